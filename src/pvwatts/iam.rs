//! Module cover (incidence angle) loss: the physical transmittance model of a glass cover, with an
//! optional anti-reflective coating, normalised at 1° incidence.
//!
//! Transmittance τ(θ) = [1 − ½(sin²(θr−θ)/sin²(θr+θ) + tan²(θr−θ)/tan²(θr+θ))]·exp(−K·L/cos θr),
//! θr from Snell's law (Fresnel reflection of unpolarised light plus Bouguer absorption).
//! Glass: n = 1.526, K = 4 m⁻¹, L = 2 mm. AR coating: n = 1.3, K = 4 m⁻¹, L = 0.02 mm, in series
//! with the glass. Only the beam is derated, for 0.5° < θ < 89.5°.
//!
//! References: De Soto, Klein & Beckman (2006), Improvement and validation of a model for
//! photovoltaic array performance, Solar Energy 80(1); Duffie & Beckman (2013) §5.3; Dobos (2014),
//! PVWatts Version 5 Manual, NREL/TP-6A20-62641; SSC `shared/lib_pv_incidence_modifier.cpp`.

use std::f64::consts::PI;

/// Smallest incidence angle with a cover loss, degrees.
pub const AOI_MIN_DEG: f64 = 0.5;
/// Largest incidence angle with a cover loss, degrees.
pub const AOI_MAX_DEG: f64 = 89.5;
/// Incidence angle at which the modifier is normalised to 1, degrees.
const NORMALISATION_AOI_DEG: f64 = 1.0;

const AIR_INDEX: f64 = 1.0;
const GLASS_INDEX: f64 = 1.526;
const GLASS_EXTINCTION: f64 = 4.0;
const GLASS_THICKNESS: f64 = 0.002;
const COATING_INDEX: f64 = 1.3;
const COATING_EXTINCTION: f64 = 4.0;
const COATING_THICKNESS: f64 = GLASS_THICKNESS * 0.01;

/// Light leaving a cover layer: transmittance and the refraction angle (as sine and cosine).
#[derive(Clone, Copy, Debug)]
struct Refracted {
    transmittance: f64,
    sin_angle: f64,
    cos_angle: f64,
}

/// Transmittance of one cover layer for light arriving at an angle with sine `sin_in` and cosine
/// `cos_in`: Fresnel reflection of unpolarised light (Snell refraction with index ratio
/// `incoming_index / cover_index`) times Bouguer absorption exp(−K·L/cos θr).
/// `extinction_thickness` is K·L (dimensionless). Angle sums are expanded with the sines and
/// cosines, so no inverse trigonometry is needed.
fn layer(
    sin_in: f64,
    cos_in: f64,
    incoming_index: f64,
    cover_index: f64,
    extinction_thickness: f64,
) -> Refracted {
    let sin_out = incoming_index / cover_index * sin_in;
    let cos_out = (1.0 - sin_out * sin_out).sqrt();
    let sin_difference = sin_out * cos_in - cos_out * sin_in;
    let sin_sum = sin_out * cos_in + cos_out * sin_in;
    let cos_difference = cos_out * cos_in + sin_out * sin_in;
    let cos_sum = cos_out * cos_in - sin_out * sin_in;
    let perpendicular = (sin_difference * sin_difference) / (sin_sum * sin_sum);
    let parallel = perpendicular * (cos_sum * cos_sum) / (cos_difference * cos_difference);
    let transmitted = 1.0 - 0.5 * (perpendicular + parallel);
    Refracted {
        transmittance: transmitted * (-extinction_thickness / cos_out).exp(),
        sin_angle: sin_out,
        cos_angle: cos_out,
    }
}

/// Cover transmittance at `incidence_deg` (clamped to 0.5°–89.5°), not normalised.
pub fn cover_transmittance(incidence_deg: f64, anti_reflective: bool) -> f64 {
    let incidence = incidence_deg.clamp(AOI_MIN_DEG, AOI_MAX_DEG) * PI / 180.0;
    let (sin_in, cos_in) = incidence.sin_cos();
    transmittance(sin_in, cos_in, anti_reflective)
}

/// Cover transmittance for an angle of incidence given by its sine and cosine, not normalised.
fn transmittance(sin_in: f64, cos_in: f64, anti_reflective: bool) -> f64 {
    if anti_reflective {
        let coating = layer(
            sin_in,
            cos_in,
            AIR_INDEX,
            COATING_INDEX,
            COATING_EXTINCTION * COATING_THICKNESS,
        );
        let glass = layer(
            coating.sin_angle,
            coating.cos_angle,
            COATING_INDEX,
            GLASS_INDEX,
            GLASS_EXTINCTION * GLASS_THICKNESS,
        );
        coating.transmittance * glass.transmittance
    } else {
        layer(
            sin_in,
            cos_in,
            AIR_INDEX,
            GLASS_INDEX,
            GLASS_EXTINCTION * GLASS_THICKNESS,
        )
        .transmittance
    }
}

/// Incidence angle modifier of a cover, normalised at 1°.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoverModel {
    anti_reflective: bool,
    transmittance_at_normal: f64,
}

impl CoverModel {
    /// Glass cover, with an anti-reflective coating when `anti_reflective` is set.
    pub fn new(anti_reflective: bool) -> Self {
        CoverModel {
            anti_reflective,
            transmittance_at_normal: cover_transmittance(NORMALISATION_AOI_DEG, anti_reflective),
        }
    }

    /// Modifier τ(θ)/τ(1°) for an angle of incidence θ given by cos θ (not clamped).
    pub fn modifier(&self, cos_incidence: f64) -> f64 {
        let sin_incidence = ((1.0 - cos_incidence) * (1.0 + cos_incidence)).sqrt();
        transmittance(sin_incidence, cos_incidence, self.anti_reflective)
            / self.transmittance_at_normal
    }

    /// Plane-of-array irradiance transmitted through the cover, W/m²:
    /// poa − (1 − IAM(θ))·DNI·cos θ for 0.5° < θ < 89.5°, raised to 0 if negative and then
    /// lowered to poa if above it (in that order, as in SSC, so a negative poa — possible when
    /// Perez's horizon term is negative — comes through unchanged); poa otherwise.
    ///
    /// * `poa`: total plane-of-array irradiance, W/m²; `dni`: direct normal irradiance, W/m².
    /// * `incidence_deg`: angle of incidence θ, degrees, and `cos_incidence` its cosine (θ is
    ///   only compared with the limits; the model uses cos θ, and sin θ from it).
    pub fn transmitted_poa(
        &self,
        poa: f64,
        dni: f64,
        incidence_deg: f64,
        cos_incidence: f64,
    ) -> f64 {
        if !(incidence_deg > AOI_MIN_DEG && incidence_deg < AOI_MAX_DEG) {
            return poa;
        }
        let loss = (1.0 - self.modifier(cos_incidence)) * dni * cos_incidence;
        let non_negative = (poa - loss).max(0.0);
        if non_negative > poa {
            poa
        } else {
            non_negative
        }
    }
}

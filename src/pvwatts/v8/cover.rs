//! Optical losses before the cells: the De Soto cover model applied per irradiance component,
//! the De Soto air-mass (spectral) modifier, and the Sjerps-Koomen reflection modifier the
//! bifacial model uses.
//!
//! Cover transmittance of one layer at incidence θ (degrees): Snell refraction θr, Fresnel
//! reflection of unpolarised light τ = 1 − ½[sin²(θr−θ)/sin²(θr+θ) + tan²(θr−θ)/tan²(θr+θ)] and
//! Bouguer absorption exp(−K·L/cos θr). Glass: n = 1.526, K = 4 m⁻¹, L = 2 mm; PVWatts v8 always
//! adds an anti-reflective coating (n = 1.3, K = 4 m⁻¹, L = 0.02 mm) on the beam. The beam is
//! taken at its angle of incidence (clamped to 1°–89°), sky diffuse at the equivalent angle
//! 59.7° − 0.1388 β + 0.001497 β², ground diffuse at 90° − 0.5788 β + 0.002693 β² (Duffie &
//! Beckman eqs. 5.4.1–5.4.2), each normalised by the transmittance at 1° and capped at 1.
//!
//! Air mass (Kasten & Young form with De Soto's constants) M = 1/(cos z + 0.5057 (96.080 − z)^−1.634),
//! scaled by exp(−0.0001184 h) for elevation h (m); modifier M_a = Σ aᵢ Mⁱ with the De Soto
//! polycrystalline coefficients, never negative. The zenith is clamped to 0°–86°.
//!
//! Every formula is evaluated in SSC's operation order (results agree to the last bit).
//!
//! References: De Soto, Klein & Beckman (2006), Improvement and validation of a model for
//! photovoltaic array performance, Solar Energy 80(1); Duffie & Beckman (2013), Solar Engineering
//! of Thermal Processes, §5.3–5.4; Sjerps-Koomen, Alsema & Turkenburg (1996), A simple model for
//! PV module reflection losses under field conditions, Solar Energy 57(6); SSC
//! `shared/lib_pv_incidence_modifier.cpp` (`transmittance`, `calculateIrradianceThroughCoverDeSoto`,
//! `iamSjerpsKoomen`) and `shared/lib_cec6par.cpp` (`air_mass_modifier`).

use std::f64::consts::PI;

/// Refractive index of the glass cover.
pub const GLASS_INDEX: f64 = 1.526;
const GLASS_EXTINCTION: f64 = 4.0;
const GLASS_THICKNESS: f64 = 0.002;
const COATING_INDEX: f64 = 1.3;
const COATING_EXTINCTION: f64 = 4.0;
const COATING_THICKNESS: f64 = GLASS_THICKNESS * 0.01;
const AIR_INDEX: f64 = 1.0;
/// De Soto's air-mass modifier coefficients a₀…a₄ (polycrystalline silicon).
const AIR_MASS_COEFFICIENTS: [f64; 5] = [0.918093, 0.086257, -0.024459, 0.002816, -0.000126];
/// Largest zenith angle used in the air-mass modifier, degrees.
const MAX_AIR_MASS_ZENITH_DEG: f64 = 86.0;

/// Transmittance of a cover layer of refractive index `cover_index` for light arriving from a
/// medium of index `incoming_index` at `incidence_deg` degrees, with Bouguer absorption
/// `extinction` (1/m) × `thickness` (m); also the refraction angle, degrees.
pub fn transmittance(
    incidence_deg: f64,
    cover_index: f64,
    incoming_index: f64,
    extinction: f64,
    thickness: f64,
) -> (f64, f64) {
    let incidence = incidence_deg * PI / 180.0;
    let refraction = (incoming_index / cover_index * incidence.sin()).asin();
    let difference = refraction - incidence;
    let sum = refraction + incidence;
    let sin_ratio = difference.sin() * difference.sin() / (sum.sin() * sum.sin());
    let tan_ratio = difference.tan() * difference.tan() / (sum.tan() * sum.tan());
    let reflected = 1.0 - 0.5 * (sin_ratio + tan_ratio);
    (
        reflected * (-extinction * thickness / refraction.cos()).exp(),
        refraction * 180.0 / PI,
    )
}

/// Transmittance of the cover (coating then glass, or glass alone) at `incidence_deg`.
fn cover_transmittance(incidence_deg: f64, anti_reflective: bool) -> f64 {
    if anti_reflective {
        let (coating, refracted) = transmittance(
            incidence_deg,
            COATING_INDEX,
            AIR_INDEX,
            COATING_EXTINCTION,
            COATING_THICKNESS,
        );
        coating
            * transmittance(
                refracted,
                GLASS_INDEX,
                COATING_INDEX,
                GLASS_EXTINCTION,
                GLASS_THICKNESS,
            )
            .0
    } else {
        transmittance(
            incidence_deg,
            GLASS_INDEX,
            AIR_INDEX,
            GLASS_EXTINCTION,
            GLASS_THICKNESS,
        )
        .0
    }
}

/// The cover's transmittance at 1°, which normalises the modifiers. As in SSC, the glass layer
/// under a coating is computed here as if light entered it from air (index 1), unlike the beam's
/// glass layer, which light enters from the coating; the beam modifier at normal incidence is
/// therefore not exactly 1 and is capped at 1.
fn normal_transmittance(anti_reflective: bool) -> f64 {
    if anti_reflective {
        let (coating, refracted) = transmittance(
            1.0,
            COATING_INDEX,
            AIR_INDEX,
            COATING_EXTINCTION,
            COATING_THICKNESS,
        );
        coating * glass_transmittance(refracted)
    } else {
        glass_transmittance(1.0)
    }
}

/// Glass-only transmittance (diffuse components pass the glass at their equivalent angles).
fn glass_transmittance(incidence_deg: f64) -> f64 {
    transmittance(
        incidence_deg,
        GLASS_INDEX,
        AIR_INDEX,
        GLASS_EXTINCTION,
        GLASS_THICKNESS,
    )
    .0
}

/// Transmittance modifiers of a surface with tilt β for sky and ground diffuse, which depend on
/// the tilt only (fixed arrays compute them once).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiffuseModifiers {
    tilt_deg: f64,
    normal: f64,
    sky: f64,
    ground: f64,
}

impl DiffuseModifiers {
    /// The modifiers of a surface tilted `tilt_deg` degrees, with the cover's transmittance at 1°
    /// (`anti_reflective`: coated glass).
    pub fn new(tilt_deg: f64, anti_reflective: bool) -> Self {
        let normal = normal_transmittance(anti_reflective);
        let sky_angle = 59.7 - 0.1388 * tilt_deg + 0.001497 * tilt_deg * tilt_deg;
        let ground_angle = 90.0 - 0.5788 * tilt_deg + 0.002693 * tilt_deg * tilt_deg;
        DiffuseModifiers {
            tilt_deg,
            normal,
            sky: (glass_transmittance(sky_angle) / normal).min_one(),
            ground: (glass_transmittance(ground_angle) / normal).min_one(),
        }
    }

    /// The tilt these modifiers were computed for, degrees.
    pub fn tilt_deg(&self) -> f64 {
        self.tilt_deg
    }
}

/// `x.min(1.0)` written as SSC's `if (x > 1.0) x = 1.0` (which keeps NaN).
trait MinOne {
    fn min_one(self) -> Self;
}

impl MinOne for f64 {
    fn min_one(self) -> f64 {
        if self > 1.0 {
            1.0
        } else {
            self
        }
    }
}

/// Irradiance reaching the cells through the cover, W/m² (never negative).
///
/// * `incidence_deg`: beam angle of incidence, degrees (clamped to 1°–89°).
/// * `beam`, `sky`, `ground`: plane-of-array components, W/m².
/// * `diffuse`: the modifiers of the surface's tilt; `anti_reflective`: coated glass.
pub fn transmitted_irradiance(
    incidence_deg: f64,
    beam: f64,
    sky: f64,
    ground: f64,
    diffuse: &DiffuseModifiers,
    anti_reflective: bool,
) -> f64 {
    let incidence = incidence_deg.clamp(1.0, 89.0);
    let beam_modifier =
        (cover_transmittance(incidence, anti_reflective) / diffuse.normal).min_one();
    let total = beam * beam_modifier + sky * diffuse.sky + ground * diffuse.ground;
    if total < 0.0 {
        0.0
    } else {
        total
    }
}

/// The air-mass (spectral) modifier for the sun at `zenith_deg` (clamped to 0°–86°) and a site
/// at `elevation_m` metres.
pub fn air_mass_modifier(zenith_deg: f64, elevation_m: f64) -> f64 {
    let zenith = zenith_deg.clamp(0.0, MAX_AIR_MASS_ZENITH_DEG);
    let mut air_mass =
        1.0 / ((zenith * PI / 180.0).cos() + 0.5057 * (96.080 - zenith).powf(-1.634));
    air_mass *= (-0.0001184 * elevation_m).exp();
    let [a0, a1, a2, a3, a4] = AIR_MASS_COEFFICIENTS;
    let modifier = a0
        + a1 * air_mass
        + a2 * (air_mass * air_mass)
        + a3 * air_mass.powf(3.0)
        + a4 * air_mass.powf(4.0);
    if modifier > 0.0 {
        modifier
    } else {
        0.0
    }
}

/// Reflection modifier of an air–glass interface of index `index` at incidence `incidence`
/// (radians, 0–π/2), relative to normal incidence (Sjerps-Koomen et al. 1996).
pub fn sjerps_koomen_modifier(index: f64, incidence: f64) -> f64 {
    let normal_reflectance = ((index - 1.0) / (index + 1.0)) * ((index - 1.0) / (index + 1.0));
    if incidence == 0.0 {
        return 1.0;
    }
    let refraction = (incidence.sin() / index).asin();
    let difference = refraction - incidence;
    let sum = refraction + incidence;
    let perpendicular = difference.sin() * difference.sin() / (sum.sin() * sum.sin());
    let parallel = difference.tan() * difference.tan() / (sum.tan() * sum.tan());
    (1.0 - 0.5 * (perpendicular + parallel)) / (1.0 - normal_reflectance)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_incidence_passes_everything_and_grazing_little() {
        let diffuse = DiffuseModifiers::new(20.0, true);
        let at_one = transmitted_irradiance(0.2, 1000.0, 0.0, 0.0, &diffuse, true);
        assert!((at_one - 1000.0).abs() < 1e-9, "{at_one}");
        let grazing = transmitted_irradiance(88.0, 1000.0, 0.0, 0.0, &diffuse, true);
        assert!(grazing < 500.0 && grazing > 0.0, "{grazing}");
        assert!(diffuse.sky < 1.0 && diffuse.ground < diffuse.sky);
        assert_eq!(
            transmitted_irradiance(30.0, -100.0, 0.0, 0.0, &diffuse, true),
            0.0
        );
    }

    #[test]
    fn glass_transmittance_follows_fresnel() {
        let (tau, refraction) = transmittance(30.0, GLASS_INDEX, 1.0, 0.0, 0.0);
        let expected_refraction = (0.5f64 / GLASS_INDEX).asin().to_degrees();
        assert!((refraction - expected_refraction).abs() < 1e-12);
        // Fresnel at 30° into n = 1.526: s and p reflectances 0.0622380 and 0.0276355.
        assert!(
            (tau - (1.0 - 0.5 * (0.0622380 + 0.0276355))).abs() < 1e-7,
            "{tau}"
        );
        let (absorbed, _) = transmittance(30.0, GLASS_INDEX, 1.0, 4.0, 0.002);
        assert!(
            (absorbed / tau - (-0.008 / expected_refraction.to_radians().cos()).exp()).abs()
                < 1e-12
        );
    }

    #[test]
    fn air_mass_modifier_is_about_one_at_air_mass_1_5() {
        let zenith = 48.19;
        let modifier = air_mass_modifier(zenith, 0.0);
        assert!((modifier - 1.0).abs() < 0.01, "{modifier}");
        assert_eq!(air_mass_modifier(95.0, 0.0), air_mass_modifier(86.0, 0.0));
        assert!(air_mass_modifier(10.0, 1600.0) > air_mass_modifier(10.0, 0.0) - 0.05);
    }

    #[test]
    fn sjerps_koomen_is_one_at_normal_incidence() {
        assert_eq!(sjerps_koomen_modifier(GLASS_INDEX, 0.0), 1.0);
        let near = sjerps_koomen_modifier(GLASS_INDEX, 1e-3);
        assert!((near - 1.0).abs() < 1e-6, "{near}");
        assert!(sjerps_koomen_modifier(GLASS_INDEX, 1.4) < 0.7);
    }
}

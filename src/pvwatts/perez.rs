//! Plane-of-array irradiance with the Perez 1990 anisotropic sky model, as implemented in SSC
//! (PVWatts' sky model).
//!
//! Differences from other Perez implementations that matter for reproducing PVWatts: air mass
//! from Kasten (1966) with 93.9°, brightness Δ with a 1367 W/m² extraterrestrial normal, sky
//! clearness with κ = 5.534e-6 deg⁻³, no clipping of negative sky diffuse, an isotropic sky and no
//! ground reflection for zenith angles above 87.5°, and no sky or ground diffuse when DHI ≤ 0.
//! Ground reflection uses beam + diffuse horizontal (not the file's GHI).
//!
//! References: Perez, Ineichen, Seals, Michalsky & Stewart (1990), Modeling daylight
//! availability and irradiance components from direct and global irradiance, Solar Energy 44(5)
//! (coefficients "allsitescomposite1990"); SSC `shared/lib_irradproc.cpp`, `perez`.

use super::angles::DEG_TO_RAD;
use super::incidence::{SunDirection, SurfaceAngles};

/// Plane-of-array irradiance components, W/m².
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PoaComponents {
    /// Beam (direct) on the surface.
    pub beam: f64,
    /// Sky diffuse on the surface (isotropic + circumsolar + horizon brightening).
    pub sky: f64,
    /// Ground-reflected diffuse on the surface.
    pub ground: f64,
}

/// Upper edges of the sky clearness (ε) bins.
const CLEARNESS_BIN_EDGES: [f64; 7] = [1.065, 1.23, 1.5, 1.95, 2.8, 4.5, 6.2];
/// Perez 1990 coefficients per ε bin: F11, F12, F13 (circumsolar) and F21, F22, F23 (horizon).
const F11: [f64; 8] = [
    -0.0083117, 0.1299457, 0.3296958, 0.5682053, 0.8730280, 1.1326077, 1.0601591, 0.6777470,
];
const F12: [f64; 8] = [
    0.5877285, 0.6825954, 0.4868735, 0.1874525, -0.3920403, -1.2367284, -1.5999137, -0.3272588,
];
const F13: [f64; 8] = [
    -0.0620636, -0.1513752, -0.2210958, -0.2951290, -0.3616149, -0.4118494, -0.3589221, -0.2504286,
];
const F21: [f64; 8] = [
    -0.0596012, -0.0189325, 0.0554140, 0.1088631, 0.2255647, 0.2877813, 0.2642124, 0.1561313,
];
const F22: [f64; 8] = [
    0.0721249, 0.0659650, -0.0639588, -0.1519229, -0.4620442, -0.8230357, -1.1272340, -1.3765031,
];
const F23: [f64; 8] = [
    -0.0220216, -0.0288748, -0.0260542, -0.0139754, 0.0012448, 0.0558651, 0.1310694, 0.2506212,
];
/// κ of the sky clearness formula, deg⁻³.
const CLEARNESS_KAPPA: f64 = 0.000005534;
/// Zenith above which the sky is treated as isotropic and ground reflection is dropped (87.5°), rad.
const ISOTROPIC_ZENITH: f64 = 1.5271631;
/// 90° as written in SSC (slightly below π/2), rad.
#[allow(clippy::approx_constant)]
const HORIZON_ZENITH: f64 = 1.5707963;
/// Smallest cos(zenith) used for the circumsolar term (zenith 85°).
const MIN_COS_ZENITH: f64 = 0.0871557;
/// Extraterrestrial normal irradiance used in the sky brightness, W/m².
const EXTRATERRESTRIAL_NORMAL: f64 = 1367.0;

/// Index of the sky-clearness bin: the number of bin edges that `clearness` exceeds.
fn clearness_bin(clearness: f64) -> usize {
    CLEARNESS_BIN_EDGES
        .iter()
        .take_while(|&&edge| clearness > edge)
        .count()
}

/// Plane-of-array beam, sky diffuse and ground-reflected irradiance (W/m²).
///
/// * `dni`, `dhi`: direct normal and diffuse horizontal irradiance, W/m² (negative DNI counts as 0).
/// * `albedo`: ground reflectance, 0–1.
/// * `sun`: sun direction; `surface`: surface tilt and angle of incidence.
pub fn perez(
    dni: f64,
    dhi: f64,
    albedo: f64,
    sun: &SunDirection,
    surface: &SurfaceAngles,
) -> PoaComponents {
    let zenith = sun.zenith;
    let dni = dni.max(0.0);
    let cos_incidence = surface.cos_incidence;
    if !(0.0..=ISOTROPIC_ZENITH).contains(&zenith) {
        let sky = dhi.max(0.0) * (1.0 + surface.cos_tilt) / 2.0;
        let beam = if cos_incidence > 0.0 && zenith < HORIZON_ZENITH {
            dni * cos_incidence
        } else {
            0.0
        };
        return PoaComponents {
            beam,
            sky,
            ground: 0.0,
        };
    }
    if dhi <= 0.0 {
        let beam = if cos_incidence > 0.0 {
            dni * cos_incidence
        } else {
            0.0
        };
        return PoaComponents {
            beam,
            sky: 0.0,
            ground: 0.0,
        };
    }

    let cos_zenith = sun.cos_zenith;
    let circumsolar_cos_zenith = if cos_zenith > MIN_COS_ZENITH {
        cos_zenith
    } else {
        MIN_COS_ZENITH
    };
    let zenith_deg = zenith / DEG_TO_RAD;
    let air_mass = 1.0 / (cos_zenith + 0.15 * (93.9 - zenith_deg).powf(-1.253));
    let brightness = dhi * air_mass / EXTRATERRESTRIAL_NORMAL;
    let zenith_cubed = zenith_deg * zenith_deg * zenith_deg;
    let clearness = ((dni + dhi) / dhi + zenith_cubed * CLEARNESS_KAPPA)
        / (1.0 + zenith_cubed * CLEARNESS_KAPPA);
    let bin = clearness_bin(clearness);
    let circumsolar = (F11[bin] + F12[bin] * brightness + F13[bin] * zenith).max(0.0);
    let horizon = F21[bin] + F22[bin] * brightness + F23[bin] * zenith;
    let beam_cos = if cos_incidence < 0.0 {
        0.0
    } else {
        cos_incidence
    };

    let isotropic_part = dhi * (1.0 - circumsolar) * (1.0 + surface.cos_tilt) / 2.0;
    let circumsolar_part = dhi * circumsolar * beam_cos / circumsolar_cos_zenith;
    let horizon_part = dhi * horizon * surface.sin_tilt;
    PoaComponents {
        beam: dni * beam_cos,
        sky: isotropic_part + circumsolar_part + horizon_part,
        ground: albedo * (dni * cos_zenith + dhi) * (1.0 - surface.cos_tilt) / 2.0,
    }
}

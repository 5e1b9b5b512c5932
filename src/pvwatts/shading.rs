//! Row-to-row self-shading of single-axis trackers without backtracking (array type 2): the
//! shaded fraction of the beam and the view-factor derates of sky and ground diffuse.
//!
//! References: Deline, Dobos, Janzou et al. (2013), A simplified model of uniform shading in
//! large photovoltaic arrays, Solar Energy 96 (diffuse derates); Anderson & Mikofski (2020),
//! NREL/TP-5K00-76626 (shaded fraction); SSC `shared/lib_irradproc.cpp` `shadeFraction1x` and
//! `shared/lib_pvshade.cpp` `diffuse_reduce`, `sssky_diffuse_table`.

use super::angles::{cosd, sin_cos_d, sind, tand, RAD_TO_DEG};
use super::incidence::SurfaceAngles;
use super::perez::PoaComponents;
use super::tracking::TrackerAxis;
use std::f64::consts::PI;

/// Number of rows assumed by the ground-diffuse derate (PVWatts uses 1000).
const ROWS: f64 = 1000.0;
/// Steps of the sky-view integration along the module slope.
const SKY_VIEW_STEPS: usize = 250;
/// Below this sky + ground diffuse (W/m²) no diffuse derate is applied.
const MIN_DIFFUSE_FOR_DERATE: f64 = 0.1;
/// Largest key of the sky derate cache (whole degrees of surface tilt).
const MAX_TILT_KEY: usize = 180;

/// Fraction (0–1) of a tracker row's width shaded by the row in front (flat ground).
///
/// * `sun_azimuth_deg`, `sun_zenith_deg`: sun position, degrees.
/// * `axis`: tracker axis; `gcr`: ground coverage ratio; `rotation_deg`: actual rotation, degrees.
pub fn beam_shade_fraction(
    sun_azimuth_deg: f64,
    sun_zenith_deg: f64,
    axis: &TrackerAxis,
    gcr: f64,
    rotation_deg: f64,
) -> f64 {
    let true_rotation = axis.true_tracking_rotation(sun_azimuth_deg, sun_zenith_deg);
    let (sin_rotation, cos_rotation) = sin_cos_d(rotation_deg);
    let tan_true_rotation = tand(true_rotation);
    let numerator = gcr * cos_rotation + gcr * sin_rotation * tan_true_rotation - 1.0;
    let denominator = gcr * (sin_rotation * tan_true_rotation + cos_rotation);
    (numerator / denominator).clamp(0.0, 1.0)
}

/// Fraction of the sky dome seen by a row of tilt `tilt_deg` (degrees, 0–90) between rows with
/// ground coverage ratio `gcr`, relative to an unobstructed surface, averaged over 250 points
/// along the module slope.
///
/// At slope position x (0 at the bottom edge) the row in front hides the sky below the angle
/// γ = −π/2 + atan(cot β − 1/(gcr·sin β·(1 − x))); the visible sky is π + π/√(1 + tan²(β + γ)),
/// against π + π/√(1 + tan² β) unobstructed. tan(β + γ) = −cot(β + atan a) is evaluated as
/// (a·tan β − 1)/(tan β + a). A horizontal row sees the whole sky (derate 1).
pub fn sky_view_derate(tilt_deg: f64, gcr: f64) -> f64 {
    let step = 1.0 / SKY_VIEW_STEPS as f64;
    let tan_tilt = tand(tilt_deg);
    let sin_tilt = sind(tilt_deg);
    let unobstructed = PI + PI / (1.0 + tan_tilt.powi(2)).sqrt();
    let mut derate = 0.0;
    for n in 0..SKY_VIEW_STEPS {
        let visible = if tilt_deg != 0.0 {
            let horizon = (1.0 / tan_tilt) - (1.0 / (gcr * sin_tilt * (1.0 - n as f64 * step)));
            let tan_tilt_gamma = (horizon * tan_tilt - 1.0) / (tan_tilt + horizon);
            let shaded = PI + PI / (1.0 + tan_tilt_gamma * tan_tilt_gamma).sqrt();
            if shaded.is_nan() {
                unobstructed
            } else {
                shaded
            }
        } else {
            unobstructed
        };
        derate += (visible / unobstructed) * step;
    }
    derate
}

/// Sky-view derates cached by whole degrees of surface tilt, as SSC does: the value computed for
/// the first tilt seen with a given whole-degree key is reused for every later tilt with that key.
/// The cache is seeded with the array's input tilt. Create one per simulation.
#[derive(Clone, Debug)]
pub struct SkyViewCache {
    gcr: f64,
    derates: Vec<Option<f64>>,
}

impl SkyViewCache {
    /// A cache for ground coverage ratio `gcr`, seeded with `initial_tilt_deg`.
    pub fn new(initial_tilt_deg: f64, gcr: f64) -> Self {
        let mut cache = SkyViewCache {
            gcr,
            derates: vec![None; MAX_TILT_KEY + 1],
        };
        let value = sky_view_derate(initial_tilt_deg, gcr);
        cache.derates[Self::key(initial_tilt_deg)] = Some(value);
        cache
    }

    fn key(tilt_deg: f64) -> usize {
        (tilt_deg as i64).clamp(0, MAX_TILT_KEY as i64) as usize
    }

    /// The cached (or newly computed) sky-view derate for a surface tilt in degrees.
    pub fn derate(&mut self, tilt_deg: f64) -> f64 {
        let key = Self::key(tilt_deg);
        let gcr = self.gcr;
        *self.derates[key].get_or_insert_with(|| sky_view_derate(tilt_deg, gcr))
    }
}

/// Derate factors of plane-of-array diffuse irradiance due to self-shading.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiffuseDerates {
    /// Factor on sky diffuse.
    pub sky: f64,
    /// Factor on ground-reflected diffuse.
    pub ground: f64,
}

/// Sky and ground diffuse derates for a tracker row (Deline et al. 2013).
///
/// * `sun_zenith_deg`, `surface_tilt_deg`: degrees.
/// * `dni`, `dhi`: beam normal and diffuse horizontal irradiance, W/m².
/// * `poa_sky`, `poa_ground`: plane-of-array sky and ground diffuse before derating, W/m².
/// * `gcr`: ground coverage ratio; `albedo`: ground reflectance.
///
/// Factors are 1 when the plane-of-array diffuse is below 0.1 W/m².
#[allow(clippy::too_many_arguments)]
pub fn diffuse_derates(
    sun_zenith_deg: f64,
    surface_tilt_deg: f64,
    dni: f64,
    dhi: f64,
    poa_sky: f64,
    poa_ground: f64,
    gcr: f64,
    albedo: f64,
    sky_view: &mut SkyViewCache,
) -> DiffuseDerates {
    if poa_sky + poa_ground < MIN_DIFFUSE_FOR_DERATE {
        return DiffuseDerates {
            sky: 1.0,
            ground: 1.0,
        };
    }
    let beam_horizontal = dni * cosd(sun_zenith_deg);
    let row_spacing = 1.0 / gcr;
    let sky = sky_view.derate(surface_tilt_deg).min(1.0);

    let sun_elevation = 90.0 - sun_zenith_deg;
    let near_view = albedo * sind(surface_tilt_deg / 2.0).powi(2);
    let shadow_edge = (row_spacing
        - 1.0 * sind(180.0 - sun_elevation - surface_tilt_deg) / sind(sun_elevation))
    .max(0.00001);
    let cos_opening = cosd(180.0 - surface_tilt_deg);
    let view_to = |distance: f64| {
        0.5 * albedo
            * (1.0 + distance
                - (distance.powi(2) / 1.0 - 2.0 * distance / 1.0 * cos_opening + 1.0).sqrt())
    };
    let beam_view = view_to(shadow_edge);
    let diffuse_view = view_to(row_spacing);
    let unshaded_ground = near_view * (beam_horizontal + dhi);
    let shaded_ground = ((near_view + (ROWS - 1.0) * beam_view) / ROWS) * beam_horizontal
        + ((near_view + (ROWS - 1.0) * diffuse_view) / ROWS) * dhi;
    let ground = if unshaded_ground > 0.0 {
        shaded_ground / unshaded_ground
    } else {
        1.0
    };
    DiffuseDerates { sky, ground }
}

/// Self-shading of a single-axis tracker array without backtracking (PVWatts array type 2).
#[derive(Clone, Debug)]
pub struct SelfShading {
    axis: TrackerAxis,
    gcr: f64,
    sky_view: SkyViewCache,
}

impl SelfShading {
    /// Self-shading for trackers with the given axis and ground coverage ratio.
    pub fn new(axis: TrackerAxis, gcr: f64) -> Self {
        SelfShading {
            axis,
            gcr,
            sky_view: SkyViewCache::new(axis.tilt_deg, gcr),
        }
    }

    /// Derate the sky and ground diffuse of `components` in place (factors outside [0, 1] are
    /// not applied) and return the beam factor 1 − shaded fraction.
    ///
    /// * `surface`: tracker orientation; `zenith`, `sun_azimuth`: sun position, radians.
    /// * `dni`, `dhi`: W/m²; `albedo`: ground reflectance.
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &mut self,
        surface: &SurfaceAngles,
        zenith: f64,
        sun_azimuth: f64,
        dni: f64,
        dhi: f64,
        albedo: f64,
        components: &mut PoaComponents,
    ) -> f64 {
        let sun_zenith_deg = zenith * RAD_TO_DEG;
        let shaded = beam_shade_fraction(
            sun_azimuth * RAD_TO_DEG,
            sun_zenith_deg,
            &self.axis,
            self.gcr,
            surface.rotation * RAD_TO_DEG,
        );
        if components.sky > 0.0 {
            let derates = diffuse_derates(
                sun_zenith_deg,
                surface.tilt * RAD_TO_DEG,
                dni,
                dhi,
                components.sky,
                components.ground,
                self.gcr,
                albedo,
                &mut self.sky_view,
            );
            if (0.0..=1.0).contains(&derates.sky) {
                components.sky *= derates.sky;
            }
            if (0.0..=1.0).contains(&derates.ground) {
                components.ground *= derates.ground;
            }
        }
        1.0 - shaded
    }
}

//! Rear-side irradiance of bifacial modules: the 2-D view-factor model of NREL's bifacial
//! calculator (Marion et al. 2017) on the layout PVWatts v8 assumes (rows `slope_length` wide,
//! 1 m above the ground, `gcr` apart, infinitely long).
//!
//! Stages, per time step, with the row-to-row interval split into 100 ground segments:
//! 1. The view factor from each ground segment to the sky between the rows.
//! 2. The ground segments in the rows' beam shadow, and the shaded share of a row's front and
//!    back (from the shadow length at the sun's elevation and relative azimuth).
//! 3. Irradiance on each ground segment: isotropic sky diffuse times its sky view, plus beam and
//!    circumsolar diffuse on the horizontal (×0.013, the light passing between the cells, where
//!    shaded). The sky components come from the Perez model on the horizontal.
//! 4. The light the front of the row behind reflects onto the rear: for six cell rows, the
//!    sky diffuse (with horizon brightening near the horizon) and the ground-reflected light each
//!    sees, degree by degree over its 180° field of view, reflected by glass (Fresnel reflectance
//!    from Marion's angular correction table).
//! 5. For six cell rows on the rear: sky diffuse and horizon brightening over the sky it sees,
//!    reflections from the next row's front, ground-reflected light over the ground it sees (the
//!    projected ground segments weighted by albedo), and beam plus circumsolar on the rear
//!    through glass (Sjerps-Koomen) on its unshaded part; the rear irradiance is their average.
//!
//! The result is the total rear irradiance before the bifaciality factor and before shading or
//! soiling. Where SSC's implementation has side effects that change the numbers (the row
//! orientation is converted to degrees and back before the rear pass; a time step whose beam
//! exceeds the extraterrestrial irradiance reuses the previous step's beam and diffuse, see
//! `engine`), the engine reproduces them.
//!
//! References: Marion, MacAlpine, Deline, Asgharzadeh, Toor, Riley, Stein & Hansen (2017), A
//! practical irradiance model for bifacial PV modules, NREL/CP-5J00-67847; Marion, Shepherd &
//! Deline (2019?), SAM's bifacial model as documented in Gilman et al. (2018), NREL/TP-6A20-67399;
//! SSC `shared/lib_irradproc.cpp` (`irrad::calc_rear_side` and the functions it calls,
//! `divideAndAlignAlbedos`) and `shared/lib_pv_incidence_modifier.h` (Marion's table).

use super::cover::{sjerps_koomen_modifier, GLASS_INDEX};
use crate::pvwatts::angles::{DEG_TO_RAD, RAD_TO_DEG};
use std::f64::consts::PI;

/// Share of beam and circumsolar light passing through the rows onto the ground they shade.
pub const TRANSMISSION_FACTOR: f64 = 0.013;
/// Ground segments of the row-to-row interval.
const SEGMENTS: usize = 100;
/// Cell rows modelled on each face.
const CELL_ROWS: usize = 6;
/// ½(cos 84° − cos 90°): the sky share of the 6° band where horizon brightening falls, as the
/// front pass writes it (the rear pass computes it).
const FRONT_HORIZON_BAND: f64 = 0.052246;

/// Marion's angular correction of glass at 0.5°…179.5° from the upward surface normal (one per
/// degree of the field of view).
#[allow(clippy::excessive_precision)]
const GLASS_CORRECTION: [f64; 180] = [
    0.057563, 0.128570, 0.199651, 0.265024, 0.324661, 0.378968, 0.428391, 0.473670, 0.514788,
    0.552454, 0.586857, 0.618484, 0.647076, 0.673762, 0.698029, 0.720118, 0.740726, 0.759671,
    0.776946, 0.792833, 0.807374, 0.821010, 0.833534, 0.845241, 0.855524, 0.865562, 0.874567,
    0.882831, 0.890769, 0.897939, 0.904373, 0.910646, 0.916297, 0.921589, 0.926512, 0.930906,
    0.935179, 0.939074, 0.942627, 0.946009, 0.949096, 0.952030, 0.954555, 0.957157, 0.959669,
    0.961500, 0.963481, 0.965353, 0.967387, 0.968580, 0.970311, 0.971567, 0.972948, 0.974114,
    0.975264, 0.976287, 0.977213, 0.978142, 0.979057, 0.979662, 0.980460, 0.981100, 0.981771,
    0.982459, 0.982837, 0.983199, 0.983956, 0.984156, 0.984682, 0.985026, 0.985364, 0.985645,
    0.985954, 0.986241, 0.986484, 0.986686, 0.986895, 0.987043, 0.987287, 0.987388, 0.987541,
    0.987669, 0.987755, 0.987877, 0.987903, 0.987996, 0.988022, 0.988091, 0.988104, 0.988114,
    0.988114, 0.988104, 0.988091, 0.988022, 0.987996, 0.987903, 0.987877, 0.987755, 0.987669,
    0.987541, 0.987388, 0.987287, 0.987043, 0.986895, 0.986686, 0.986484, 0.986240, 0.985954,
    0.985645, 0.985364, 0.985020, 0.984676, 0.984156, 0.983956, 0.983199, 0.982837, 0.982459,
    0.981771, 0.981100, 0.980460, 0.979662, 0.979057, 0.978142, 0.977213, 0.976287, 0.975264,
    0.974114, 0.972947, 0.971567, 0.970311, 0.968580, 0.967387, 0.965353, 0.963481, 0.961501,
    0.959671, 0.957157, 0.954555, 0.952030, 0.949096, 0.946009, 0.942627, 0.939074, 0.935179,
    0.930906, 0.926512, 0.921589, 0.916297, 0.910646, 0.904373, 0.897939, 0.890769, 0.882831,
    0.874567, 0.865562, 0.855524, 0.845241, 0.833534, 0.821010, 0.807374, 0.792833, 0.776946,
    0.759671, 0.740726, 0.720118, 0.698029, 0.673762, 0.647076, 0.618484, 0.586857, 0.552454,
    0.514788, 0.473670, 0.428391, 0.378968, 0.324661, 0.265024, 0.199651, 0.128570, 0.057563,
];

/// How the rows move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowMotion {
    /// Fixed tilt: the lower edge is at the ground clearance.
    Fixed,
    /// Single-axis tracker: the rotation axis is at the ground clearance.
    OneAxis,
    /// Two-axis tracker.
    TwoAxis,
}

/// Sun and row orientation of one time step, radians, and the irradiance inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RearInputs {
    pub sun_zenith: f64,
    /// Radians east of north.
    pub sun_azimuth: f64,
    /// Apparent elevation, radians.
    pub sun_elevation: f64,
    /// Front-surface tilt and azimuth (radians east of north).
    pub surface_tilt: f64,
    pub surface_azimuth: f64,
    /// Beam normal and diffuse horizontal irradiance, W/m².
    pub dni: f64,
    pub dhi: f64,
    /// Ground albedo.
    pub albedo: f64,
}

/// The rear-side model of one array.
#[derive(Clone, Debug)]
pub struct RearSideModel {
    motion: RowMotion,
    gcr: f64,
    slope_length: f64,
    clearance: f64,
    /// ½(cos j° − cos (j+1)°): the sky share of each degree of a face's field of view.
    band_weights: [f64; 180],
    /// Sky view factors of the ground segments, kept for the last surface tilt seen.
    sky_views: Option<(u64, [f64; SEGMENTS])>,
}

/// Perez components on a surface, W/m² (SSC's `poa` and `diffc`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sky {
    beam: f64,
    isotropic: f64,
    circumsolar: f64,
    horizon: f64,
}

/// Perez 1990 as SSC evaluates it inside the bifacial model: angles in radians, cosines computed
/// here (the front-side model in `perez` shares them between stages).
fn perez_components(dni: f64, dhi: f64, incidence: f64, tilt: f64, zenith: f64) -> Sky {
    const F11: [f64; 8] = [
        -0.0083117, 0.1299457, 0.3296958, 0.5682053, 0.8730280, 1.1326077, 1.0601591, 0.6777470,
    ];
    const F12: [f64; 8] = [
        0.5877285, 0.6825954, 0.4868735, 0.1874525, -0.3920403, -1.2367284, -1.5999137, -0.3272588,
    ];
    const F13: [f64; 8] = [
        -0.0620636, -0.1513752, -0.2210958, -0.2951290, -0.3616149, -0.4118494, -0.3589221,
        -0.2504286,
    ];
    const F21: [f64; 8] = [
        -0.0596012, -0.0189325, 0.0554140, 0.1088631, 0.2255647, 0.2877813, 0.2642124, 0.1561313,
    ];
    const F22: [f64; 8] = [
        0.0721249, 0.0659650, -0.0639588, -0.1519229, -0.4620442, -0.8230357, -1.1272340,
        -1.3765031,
    ];
    const F23: [f64; 8] = [
        -0.0220216, -0.0288748, -0.0260542, -0.0139754, 0.0012448, 0.0558651, 0.1310694, 0.2506212,
    ];
    const EDGES: [f64; 7] = [1.065, 1.23, 1.5, 1.95, 2.8, 4.5, 6.2];
    const KAPPA: f64 = 0.000005534;
    #[allow(clippy::approx_constant)]
    const HORIZON_ZENITH: f64 = 1.5707963;
    let dni = if dni < 0.0 { 0.0 } else { dni };
    if zenith < 0.0 || zenith > 1.5271631 {
        let dhi = if dhi < 0.0 { 0.0 } else { dhi };
        let isotropic = dhi * (1.0 + tilt.cos()) / 2.0;
        let beam = if incidence.cos() > 0.0 && zenith < HORIZON_ZENITH {
            dni * incidence.cos()
        } else {
            0.0
        };
        return Sky {
            beam,
            isotropic,
            ..Sky::default()
        };
    }
    let cos_zenith = zenith.cos();
    let circumsolar_cos = if cos_zenith > 0.0871557 {
        cos_zenith
    } else {
        0.0871557
    };
    if dhi <= 0.0 {
        let beam = if incidence.cos() > 0.0 {
            dni * incidence.cos()
        } else {
            0.0
        };
        return Sky {
            beam,
            ..Sky::default()
        };
    }
    let zenith_deg = zenith / DEG_TO_RAD;
    let air_mass = 1.0 / (cos_zenith + 0.15 * (93.9 - zenith_deg).powf(-1.253));
    let brightness = dhi * air_mass / 1367.0;
    let cubed = zenith_deg.powf(3.0);
    let mut clearness = (dni + dhi) / dhi;
    clearness = (clearness + cubed * KAPPA) / (1.0 + cubed * KAPPA);
    let bin = EDGES.iter().take_while(|&&edge| clearness > edge).count();
    let circumsolar_coefficient = F11[bin] + F12[bin] * brightness + F13[bin] * zenith;
    let f1 = if 0.0 > circumsolar_coefficient {
        0.0
    } else {
        circumsolar_coefficient
    };
    let f2 = F21[bin] + F22[bin] * brightness + F23[bin] * zenith;
    let cos_incidence = incidence.cos();
    let facing = if cos_incidence < 0.0 {
        0.0
    } else {
        cos_incidence
    };
    Sky {
        beam: dni * facing,
        isotropic: dhi * (1.0 - f1) * (1.0 + tilt.cos()) / 2.0,
        circumsolar: dhi * f1 * facing / circumsolar_cos,
        horizon: dhi * f2 * tilt.sin(),
    }
}

/// Angle of incidence (radians) of the sun on a fixed surface given in degrees, as SSC's
/// `incidence` (mode 0) computes it; also the surface tilt in radians.
fn fixed_incidence(tilt_deg: f64, azimuth_deg: f64, zenith: f64, azimuth: f64) -> (f64, f64) {
    let tilt = tilt_deg * DEG_TO_RAD;
    let surface_azimuth = azimuth_deg * DEG_TO_RAD;
    let cosine =
        zenith.sin() * (azimuth - surface_azimuth).cos() * tilt.sin() + zenith.cos() * tilt.cos();
    let incidence = if cosine < -1.0 {
        PI
    } else if cosine > 1.0 {
        0.0
    } else {
        cosine.acos()
    };
    (incidence, tilt)
}

/// `atan` moved into [0, π) as SSC does for the view angles.
fn positive_atan(value: f64) -> f64 {
    let angle = value.atan();
    if angle < 0.0 {
        angle + PI
    } else {
        angle
    }
}

/// The geometry of the rows at one surface tilt, m.
#[derive(Clone, Copy, Debug)]
struct Rows {
    clearance: f64,
    vertical: f64,
    horizontal: f64,
    row_to_row: f64,
    gap: f64,
}

/// Where the rows' beam shadow falls: the shaded ground segments and the shaded share of a
/// row's back (the front's share only matters for front irradiance, which PVWatts takes from the
/// Perez model instead).
struct Shadow {
    ground: [bool; SEGMENTS],
    back: f64,
}

impl RearSideModel {
    /// The model of rows `slope_length` m wide at ground coverage ratio `gcr`, whose lower edge
    /// (or axis) is `clearance` m above the ground.
    pub fn new(motion: RowMotion, gcr: f64, slope_length: f64, clearance: f64) -> Self {
        let mut band_weights = [0.0; 180];
        for (j, weight) in band_weights.iter_mut().enumerate() {
            *weight = 0.5 * ((j as f64 * DEG_TO_RAD).cos() - ((j + 1) as f64 * DEG_TO_RAD).cos());
        }
        RearSideModel {
            motion,
            gcr,
            slope_length,
            clearance,
            band_weights,
            sky_views: None,
        }
    }

    fn rows(&self, tilt: f64) -> Rows {
        let clearance = match self.motion {
            RowMotion::OneAxis => self.clearance - (0.5 * self.slope_length) * tilt.sin(),
            RowMotion::Fixed | RowMotion::TwoAxis => self.clearance,
        };
        let horizontal = self.slope_length * tilt.cos();
        let row_to_row = self.slope_length / self.gcr;
        Rows {
            clearance,
            vertical: self.slope_length * tilt.sin(),
            horizontal,
            row_to_row,
            gap: row_to_row - horizontal,
        }
    }

    /// Sky view factor of each ground segment (stage 1), cached for the last tilt.
    fn sky_views(&mut self, tilt: f64, rows: &Rows) -> [f64; SEGMENTS] {
        if let Some((key, views)) = &self.sky_views {
            if *key == tilt.to_bits() {
                return *views;
            }
        }
        let Rows {
            clearance,
            vertical,
            horizontal,
            row_to_row,
            gap,
        } = *rows;
        let delta = row_to_row / SEGMENTS as f64;
        let mut views = [0.0; SEGMENTS];
        let mut x = -delta / 2.0;
        let top = vertical + clearance;
        for view in views.iter_mut() {
            x += delta;
            let beta1 = positive_atan(top / (2.0 * row_to_row + horizontal - x))
                .max(positive_atan(clearance / (2.0 * row_to_row - x)));
            let angle_c = positive_atan(top / (row_to_row + horizontal - x));
            let angle_d = positive_atan(clearance / (row_to_row - x));
            let beta2 = angle_c.min(angle_d);
            let beta3 = angle_c.max(angle_d);
            let beta4 = positive_atan(top / (horizontal - x));
            let beta5 = positive_atan(clearance / (-x));
            let beta6 = positive_atan(top / (-gap - x));
            let band = |low: f64, high: f64| {
                if high > low {
                    0.5 * (low.cos() - high.cos())
                } else {
                    0.0
                }
            };
            *view = band(beta1, beta2) + band(beta3, beta4) + band(beta5, beta6);
        }
        self.sky_views = Some((tilt.to_bits(), views));
        views
    }

    /// Rear irradiance, W/m² (before the bifaciality factor).
    pub fn irradiance(&mut self, inputs: &RearInputs) -> f64 {
        let tilt = inputs.surface_tilt;
        let rows = self.rows(tilt);
        let views = self.sky_views(tilt, &rows);
        let shadow = ground_shadow(&rows, inputs);
        let horizontal_sky = perez_components(
            inputs.dni,
            inputs.dhi,
            inputs.sun_zenith,
            0.0,
            inputs.sun_zenith,
        );
        let direct = horizontal_sky.beam + horizontal_sky.circumsolar;
        let mut ground = [0.0; SEGMENTS];
        for ((irradiance, view), shaded) in ground.iter_mut().zip(views).zip(shadow.ground) {
            *irradiance = view * horizontal_sky.isotropic;
            *irradiance += if shaded {
                direct * TRANSMISSION_FACTOR
            } else {
                direct
            };
        }
        let (vertical_incidence, vertical_tilt) =
            fixed_incidence(90.0, 180.0, inputs.sun_zenith, inputs.sun_azimuth);
        let horizon = perez_components(
            inputs.dni,
            inputs.dhi,
            vertical_incidence,
            vertical_tilt,
            inputs.sun_zenith,
        )
        .horizon;
        let albedo = self.aligned_albedo(inputs.albedo, &rows);
        let faces = Faces {
            weights: &self.band_weights,
            rows: &rows,
            ground: &ground,
            albedo,
            mean_reflected: mean_reflected(&ground, albedo),
            isotropic: horizontal_sky.isotropic,
            horizon,
        };
        let reflected = faces.front_reflected(tilt);
        // SSC converts the front orientation to degrees and back before the rear pass.
        let rear_tilt = tilt * RAD_TO_DEG * DEG_TO_RAD;
        let rear_azimuth = inputs.surface_azimuth * RAD_TO_DEG * DEG_TO_RAD;
        faces.rear_average(rear_tilt, rear_azimuth, &reflected, shadow.back, inputs)
    }

    /// The albedo of every ground segment after SSC aligns its ten spatial albedos (all equal
    /// here) with the row: unchanged for fixed rows, shifted by a fraction of a segment for
    /// single-axis trackers, averaged for two-axis trackers.
    fn aligned_albedo(&self, albedo: f64, rows: &Rows) -> f64 {
        match self.motion {
            RowMotion::Fixed => albedo,
            RowMotion::OneAxis => {
                let segment = rows.row_to_row / SEGMENTS as f64;
                let segments_to_center = 0.5 * rows.horizontal / segment;
                let overhang = segments_to_center.ceil() - segments_to_center;
                albedo * (1.0 - overhang) + albedo * overhang
            }
            RowMotion::TwoAxis => (0..10).fold(0.0, |sum, _| sum + albedo) / 10.0,
        }
    }
}

/// Stage 2: the rows' shadow on the ground and on the rows.
fn ground_shadow(rows: &Rows, inputs: &RearInputs) -> Shadow {
    let Rows {
        clearance,
        vertical,
        horizontal,
        row_to_row,
        gap,
    } = *rows;
    let tan_elevation = inputs.sun_elevation.tan();
    let relative = (inputs.surface_azimuth - inputs.sun_azimuth).cos();
    let length = (vertical / tan_elevation) * relative;
    let top_length = ((clearance + vertical) / tan_elevation) * relative;
    let bottom_length = (clearance / tan_elevation) * relative;
    // Shaded ground: [start1, end1) and [0, end2).
    let (back, mut start1, mut end1, mut end2);
    end2 = 0.0;
    if length > gap {
        back = 1.0;
        (start1, end1) = (0.0, row_to_row);
    } else if length < -(row_to_row + horizontal) {
        back = (length + row_to_row + horizontal) / (length + horizontal);
        (start1, end1) = (0.0, row_to_row);
    } else {
        let (mut shadow_start, mut shadow_end);
        if top_length >= 0.0 {
            back = 1.0;
            shadow_start = bottom_length;
            shadow_end = top_length + horizontal;
            while shadow_start > row_to_row {
                shadow_start -= row_to_row;
                shadow_end -= row_to_row;
            }
        } else {
            if bottom_length < top_length + horizontal {
                back = 1.0;
                shadow_start = bottom_length;
                shadow_end = top_length + horizontal;
            } else {
                back = 0.0;
                shadow_start = top_length + horizontal;
                shadow_end = bottom_length;
            }
            while shadow_start < 0.0 {
                shadow_start += row_to_row;
                shadow_end += row_to_row;
            }
        }
        start1 = shadow_start;
        end1 = shadow_end;
        if end1 > row_to_row {
            end1 = row_to_row;
            end2 = shadow_end - row_to_row;
            if end2 > start1 {
                start1 = 0.0;
                end1 = row_to_row;
            }
        }
    }
    let delta = row_to_row / SEGMENTS as f64;
    let mut ground = [false; SEGMENTS];
    let mut x = -delta / 2.0;
    for shaded in ground.iter_mut() {
        x += delta;
        *shaded = (x >= start1 && x < end1) || (x >= 0.0 && x < end2);
    }
    Shadow { ground, back }
}

/// What the front and rear passes share for one time step.
struct Faces<'a> {
    weights: &'a [f64; 180],
    rows: &'a Rows,
    /// Irradiance of each ground segment, W/m² (the same in front of and behind a row).
    ground: &'a [f64; SEGMENTS],
    /// Albedo of each ground segment.
    albedo: f64,
    /// Mean reflected ground irradiance, W/m² (what a degree of view spanning nearly a whole
    /// row-to-row interval sees).
    mean_reflected: f64,
    /// Isotropic sky diffuse on the horizontal and horizon brightening on a vertical surface,
    /// W/m².
    isotropic: f64,
    horizon: f64,
}

/// Mean reflected irradiance of the ground segments, W/m²: the mean irradiance times the mean
/// albedo, summed in segment order as SSC sums them.
fn mean_reflected(ground: &[f64; SEGMENTS], albedo: f64) -> f64 {
    let irradiance = ground.iter().fold(0.0, |sum, g| sum + g) / SEGMENTS as f64;
    let albedo_sum = (0..SEGMENTS).fold(0.0, |sum, _| sum + albedo);
    irradiance * albedo_sum / SEGMENTS as f64
}

/// Fresnel reflectance of glass at normal incidence.
fn normal_reflectance() -> f64 {
    ((GLASS_INDEX - 1.0) / (GLASS_INDEX + 1.0)) * ((GLASS_INDEX - 1.0) / (GLASS_INDEX + 1.0))
}

impl Faces<'_> {
    /// Stage 4: light reflected by each of the six cell rows of a front face with tilt `tilt`,
    /// W/m².
    fn front_reflected(&self, tilt: f64) -> [f64; CELL_ROWS] {
        let Rows {
            clearance,
            vertical,
            horizontal,
            row_to_row,
            gap,
        } = *self.rows;
        let reflectance = normal_reflectance();
        let (bottom_x, bottom_y) = (-row_to_row, clearance);
        let (top_x, top_y) = (-gap, vertical + clearance);
        let mut reflected = [0.0; CELL_ROWS];
        for (i, out) in reflected.iter_mut().enumerate() {
            let cell_x = horizontal * (i as f64 + 0.5) / CELL_ROWS as f64;
            let cell_y = clearance + vertical * (i as f64 + 0.5) / CELL_ROWS as f64;
            let up = ((top_y - cell_y) / (cell_x - top_x)).atan();
            let down = ((cell_y - bottom_y) / (cell_x - bottom_x)).atan();
            let stop_sky = ((PI - tilt - up) / DEG_TO_RAD).round() as usize;
            let horizon_degrees = (0.0f64.max(6.0 - up / DEG_TO_RAD)).round() as usize;
            let start_ground = ((PI - tilt + down) / DEG_TO_RAD).round() as usize;
            let mut sum = 0.0;
            for j in 0..stop_sky {
                let passed = 1.0 - GLASS_CORRECTION[j] * (1.0 - reflectance);
                sum += self.weights[j] * self.isotropic * passed;
                if stop_sky - j <= horizon_degrees {
                    sum += self.weights[j] * (self.horizon / FRONT_HORIZON_BAND) * passed;
                }
            }
            let mut tan_start = (0.0 * DEG_TO_RAD + down).tan();
            for j in start_ground..180 {
                let tan_stop = (((j + 1 - start_ground) as f64) * DEG_TO_RAD + down).tan();
                let x1 = cell_x - cell_y / tan_start;
                let x2 = cell_x - cell_y / tan_stop;
                tan_start = tan_stop;
                let seen = self.front_ground_seen(x1, x2);
                sum += self.weights[j] * seen * (1.0 - GLASS_CORRECTION[j] * (1.0 - reflectance));
            }
            *out = sum;
        }
        reflected
    }

    /// Reflected ground irradiance seen between ground positions `x1` < `x2` (m) in front of a
    /// row, W/m².
    fn front_ground_seen(&self, x1: f64, x2: f64) -> f64 {
        let row_to_row = self.rows.row_to_row;
        if (x1 - x2).abs() > 0.99 * row_to_row {
            return self.mean_reflected;
        }
        let segments = SEGMENTS as f64;
        let mut x1 = segments * x1 / row_to_row;
        let mut x2 = segments * x2 / row_to_row;
        while x1 < 0.0 || x2 < 0.0 {
            x1 += segments;
            x2 += segments;
        }
        self.segments_seen(x1 as i64, x2 as i64, x1, x2)
    }

    /// Stage 5: mean rear irradiance of the six cell rows, W/m². `tilt` and `azimuth` are the
    /// front face's orientation (radians) after SSC's degree round trip; `reflected` comes from
    /// stage 4; `back_shaded` is the shaded share of the rear.
    fn rear_average(
        &self,
        tilt: f64,
        azimuth: f64,
        reflected: &[f64; CELL_ROWS],
        back_shaded: f64,
        inputs: &RearInputs,
    ) -> f64 {
        let Rows {
            clearance,
            vertical,
            horizontal,
            row_to_row,
            ..
        } = *self.rows;
        let horizon_band = 0.5 * ((84.0 * DEG_TO_RAD).cos() - (90.0 * DEG_TO_RAD).cos());
        let (bottom_x, bottom_y) = (row_to_row, clearance);
        let (top_x, top_y) = (row_to_row + horizontal, vertical + clearance);
        let (rear_incidence, rear_tilt) = fixed_incidence(
            180.0 - tilt * RAD_TO_DEG,
            azimuth * RAD_TO_DEG - 180.0,
            inputs.sun_zenith,
            inputs.sun_azimuth,
        );
        let rear_sky = perez_components(
            inputs.dni,
            inputs.dhi,
            rear_incidence,
            rear_tilt,
            inputs.sun_zenith,
        );
        let rear_direct = rear_sky.beam + rear_sky.circumsolar;
        let rear_modifier = (rear_incidence < PI / 2.0)
            .then(|| sjerps_koomen_modifier(GLASS_INDEX, rear_incidence));
        let mut average = 0.0;
        for i in 0..CELL_ROWS {
            let cell_x = horizontal * (i as f64 + 0.5) / CELL_ROWS as f64;
            let cell_y = clearance + vertical * (i as f64 + 0.5) / CELL_ROWS as f64;
            let up = ((top_y - cell_y) / (top_x - cell_x)).atan();
            let down = ((cell_y - bottom_y) / (bottom_x - cell_x)).atan();
            let stop_sky = ((tilt - up) / DEG_TO_RAD).round() as usize;
            let horizon_degrees = (0.0f64.max(6.0 - up / DEG_TO_RAD)).round() as usize;
            let start_ground = ((tilt + down) / DEG_TO_RAD).round() as usize;
            let mut rear = 0.0;
            for j in 0..stop_sky {
                let mut sky = self.weights[j] * GLASS_CORRECTION[j] * self.isotropic;
                if stop_sky - j <= horizon_degrees {
                    sky += self.weights[j] * GLASS_CORRECTION[j] * self.horizon / horizon_band;
                }
                rear += sky;
            }
            let diagonal = (bottom_x - cell_x) / down.cos();
            for j in stop_sky..start_ground {
                let alpha_start = -((j - stop_sky) as f64) * DEG_TO_RAD + up + down;
                let alpha_stop = -((j + 1 - stop_sky) as f64) * DEG_TO_RAD + up + down;
                let x2 = diagonal * alpha_start.sin()
                    / (PI - down - (PI / 2.0 - alpha_start) - tilt).cos();
                let x1 = (diagonal * alpha_stop.sin()
                    / (PI - down - (PI / 2.0 - alpha_stop) - tilt).cos())
                .max(0.0);
                rear +=
                    self.weights[j] * GLASS_CORRECTION[j] * row_reflection_seen(x1, x2, reflected);
            }
            let mut tan_start = (0.0 * DEG_TO_RAD + down).tan();
            for j in start_ground..180 {
                let tan_stop = (((j + 1 - start_ground) as f64) * DEG_TO_RAD + down).tan();
                let x2 = cell_x + cell_y / tan_start;
                let x1 = cell_x + cell_y / tan_stop;
                tan_start = tan_stop;
                rear += self.weights[j] * GLASS_CORRECTION[j] * self.rear_ground_seen(x1, x2);
            }
            let mut cell_shade = back_shaded * CELL_ROWS as f64 - i as f64;
            if cell_shade > 1.0 {
                cell_shade = 1.0;
            } else if cell_shade < 0.0 {
                cell_shade = 0.0;
            }
            if let Some(modifier) = rear_modifier.filter(|_| cell_shade < 1.0) {
                rear += (1.0 - cell_shade) * rear_direct * modifier;
            }
            average += rear / CELL_ROWS as f64;
        }
        average
    }

    /// Reflected ground irradiance seen between ground positions `x1` and `x2` (m) behind a row
    /// (negative positions lie in front of it), W/m².
    fn rear_ground_seen(&self, x1: f64, x2: f64) -> f64 {
        let row_to_row = self.rows.row_to_row;
        if (x1 - x2).abs() > 0.99 * row_to_row {
            return self.mean_reflected;
        }
        let segments = SEGMENTS as f64;
        let mut x1 = segments * x1 / row_to_row;
        let mut x2 = segments * x2 / row_to_row;
        while x1 >= segments || x2 >= segments {
            x1 -= segments;
            x2 -= segments;
        }
        while x1 < -segments || x2 < -segments {
            x1 += segments;
            x2 += segments;
        }
        let last_segment = SEGMENTS as i64 - 1;
        let first = last_segment.min((x1 + segments) as i64 - SEGMENTS as i64);
        let last = last_segment.min((x2 + segments) as i64 - SEGMENTS as i64);
        self.segments_seen(first, last, x1, x2)
    }

    /// Reflected irradiance seen between ground positions `x1` and `x2` (counted in segments;
    /// they lie in segments `first` to `last`, numbered around the interval), W/m²: each
    /// segment's irradiance × albedo weighted by its share in view, summed in segment order.
    fn segments_seen(&self, first: i64, last: i64, x1: f64, x2: f64) -> f64 {
        let wrap = |k: i64| k.rem_euclid(SEGMENTS as i64) as usize;
        if first == last {
            return self.ground[wrap(first)] * self.albedo;
        }
        if first > last {
            return 0.0 / (x2 - x1);
        }
        let mut index = wrap(first);
        let mut reflected = 0.0 + self.ground[index] * (first as f64 + 1.0 - x1) * self.albedo;
        for _ in first + 1..last {
            index = if index + 1 == SEGMENTS { 0 } else { index + 1 };
            reflected += self.ground[index] * self.albedo;
        }
        reflected += self.ground[wrap(last)] * (x2 - last as f64) * self.albedo;
        reflected / (x2 - x1)
    }
}

/// Light reflected by the next row's front onto the rear, seen between positions `x1` and `x2`
/// up that row's slope (in slope lengths), W/m².
fn row_reflection_seen(x1: f64, x2: f64, reflected: &[f64; CELL_ROWS]) -> f64 {
    const TOLERANCE: f64 = 0.0001;
    let cell = 1.0 / CELL_ROWS as f64;
    let mut seen = 0.0;
    for (k, light) in reflected.iter().enumerate() {
        let bottom = k as f64 * cell;
        let top = (k + 1) as f64 * cell;
        let length = if bottom >= x1 - TOLERANCE && top <= x2 + TOLERANCE {
            top - bottom
        } else if bottom <= x1 + TOLERANCE && top >= x2 - TOLERANCE {
            x2 - x1
        } else if bottom >= x1 - TOLERANCE && x2 > bottom - TOLERANCE && top >= x2 - TOLERANCE {
            x2 - bottom
        } else if bottom <= x1 + TOLERANCE && x1 < top + TOLERANCE && top <= x2 + TOLERANCE {
            top - x1
        } else {
            0.0
        };
        seen += length * light;
    }
    seen / (x2 - x1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noon(tilt_deg: f64) -> RearInputs {
        RearInputs {
            sun_zenith: 30.0 * DEG_TO_RAD,
            sun_azimuth: PI,
            sun_elevation: 60.0 * DEG_TO_RAD,
            surface_tilt: tilt_deg * DEG_TO_RAD,
            surface_azimuth: PI,
            dni: 800.0,
            dhi: 120.0,
            albedo: 0.2,
        }
    }

    #[test]
    fn the_rear_sees_a_few_percent_of_the_front() {
        let mut model = RearSideModel::new(RowMotion::Fixed, 0.4, 2.0 * 1.33, 1.0);
        let rear = model.irradiance(&noon(25.0));
        assert!(rear > 10.0 && rear < 150.0, "{rear}");
        let mut brighter = model.clone();
        let white = brighter.irradiance(&RearInputs {
            albedo: 0.6,
            ..noon(25.0)
        });
        assert!(white > 2.0 * rear, "{white} vs {rear}");
        let mut dense = RearSideModel::new(RowMotion::Fixed, 0.9, 2.0 * 1.33, 1.0);
        assert!(dense.irradiance(&noon(25.0)) < rear);
    }

    #[test]
    fn trackers_and_cached_views_give_finite_results() {
        for motion in [RowMotion::OneAxis, RowMotion::TwoAxis] {
            let mut model = RearSideModel::new(motion, 0.3, 1.33, 1.0);
            for tilt in [0.0, 10.0, 45.0, 10.0] {
                let rear = model.irradiance(&noon(tilt));
                assert!(rear.is_finite() && rear >= 0.0, "{motion:?} {tilt}: {rear}");
            }
        }
        let mut model = RearSideModel::new(RowMotion::Fixed, 0.4, 2.66, 1.0);
        let first = model.irradiance(&noon(20.0));
        assert_eq!(model.irradiance(&noon(20.0)), first);
    }

    #[test]
    fn the_perez_components_add_up() {
        let sky = perez_components(700.0, 150.0, 0.5, 0.4, 0.6);
        assert!(sky.isotropic > 0.0 && sky.circumsolar > 0.0);
        let flat = perez_components(700.0, 150.0, 0.6, 0.0, 0.6);
        assert_eq!(flat.horizon, 0.0);
        let low_sun = perez_components(700.0, 150.0, 1.0, 0.0, 1.55);
        assert_eq!(low_sun.isotropic, 150.0);
        assert_eq!(low_sun.circumsolar, 0.0);
    }
}

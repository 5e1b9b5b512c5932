//! The PVWatts v8 hourly loop and the monthly/annual aggregation.
//!
//! Per record: ground albedo (the weather's or the user's, else 0.2, or 0.6 on snow when the
//! snow model runs); for sun-up records the surface orientation and Perez plane-of-array
//! components (from the v5 engine), the rear-side irradiance × bifaciality, row-to-row
//! self-shading of the beam (linear) and of sky and ground diffuse (the sky derate also applies
//! to the rear), the monthly soiling loss on the front, the snow model, the De Soto cover and
//! air-mass modifiers, NOCT cell temperature, CEC module power scaled from the reference module
//! to the DC rating, snow and system losses, and the Sandia inverter. Records whose beam on the
//! horizontal exceeds the extraterrestrial irradiance get no front irradiance (SSC logs and
//! continues; its rear-side model then reuses the beam and diffuse of the last record that passed
//! that check, which the engine reproduces).
//!
//! Outputs follow SSC's conventions: the cell temperature is the ambient temperature at night
//! and 0 °C in a sun-up record without effective irradiance (SSC leaves it at its initial value
//! there); `tpoa` is 0 unless 0.5° < aoi < 89.5° (so always 0 on two-axis trackers).
//!
//! References: SSC `ssc/cmod_pvwattsv8.cpp` (`exec`) and `ssc/core.cpp` (`accumulate_monthly`,
//! `accumulate_annual`).

use super::bifacial::{RearInputs, RearSideModel, RowMotion};
use super::celltemp::NoctModel;
use super::cover::{air_mass_modifier, transmitted_irradiance, DiffuseModifiers};
use super::exactsun::exact_up_positions;
use super::inverter::SandiaInverter;
use super::layout::{ArrayLayout, ModuleGeometry, GROUND_CLEARANCE_M};
use super::params::{V8Options, V8Params, DEFAULT_ALBEDO, DEFAULT_SNOW_ALBEDO};
use super::selfshade::{
    diffuse_derates, fixed_row_shaded_fraction, DiffuseDerates, DERATE_TOLERANCE,
    MIN_DIFFUSE_FOR_DERATE,
};
use super::singlediode::CecModule;
use super::snow::{no_snow_data_message, SnowModel};
use crate::pvwatts::angles::{DEG_TO_RAD, RAD_TO_DEG};
use crate::calendar::ssc_365_day::days_in_month;
use crate::calendar::HOURS_PER_YEAR;
use crate::pvwatts::engine::{HourlyOutput, PvOutput};
use crate::pvwatts::iam::{AOI_MAX_DEG, AOI_MIN_DEG};
use crate::pvwatts::incidence::{FixedSurface, SunDirection, SurfaceAngles};
use crate::pvwatts::params::{ArrayType, Tracking};
use crate::pvwatts::perez::{perez, PoaComponents};
use crate::pvwatts::shading::{beam_shade_fraction, SkyViewCache};
use crate::pvwatts::solarpos::Precision;
use crate::pvwatts::sunpath::{SunPath, SunUp};
use crate::pvwatts::threads::thread_count;
use crate::pvwatts::tracking::{one_axis_surface, two_axis_surface, TrackerAxis};
use crate::pvwatts::weather::Weather;
use std::fmt;

/// Single-axis trackers whose axis is tilted less than this (degrees) take SSC's exact sun
/// position (see `exactsun`); from about 0.01° up the geometry is well conditioned.
const HORIZONTAL_AXIS_TILT_DEG: f64 = 1.0;

/// Why a v8 simulation stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum V8Error {
    /// The snow model is on and the weather has no usable snow depth.
    NoSnowData(String),
    /// The module model found no maximum power point (SSC stops there too).
    ModuleModel {
        /// Zero-based record.
        record: usize,
    },
}

impl fmt::Display for V8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            V8Error::NoSnowData(message) => write!(f, "{message}"),
            V8Error::ModuleModel { record } => {
                write!(
                    f,
                    "the module model found no maximum power point at record {record}"
                )
            }
        }
    }
}

impl std::error::Error for V8Error {}

/// Hourly outputs v8 has beyond the estimator's eight series, one value per record, named as
/// SSC names them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct V8Hourly {
    /// Ground albedo used.
    pub alb: Vec<f64>,
    /// Global horizontal irradiance from the weather, W/m².
    pub gh: Vec<f64>,
    /// Front irradiance through the cover, W/m² (0 outside 0.5° < aoi < 89.5°).
    pub tpoa: Vec<f64>,
    /// Angle of incidence, degrees.
    pub aoi: Vec<f64>,
    /// Sun-up code: 0 night, 1 day, 2 sunrise hour, 3 sunset hour.
    pub sunup: Vec<f64>,
    /// Self-shading factors of beam, sky diffuse and ground diffuse (1 = no shading).
    pub ss_beam_factor: Vec<f64>,
    pub ss_sky_diffuse_factor: Vec<f64>,
    pub ss_gnd_diffuse_factor: Vec<f64>,
    /// Soiling loss applied (0–1; 0 at night).
    pub soiling_f: Vec<f64>,
    /// DC loss from snow, %.
    pub dcsnowderate: Vec<f64>,
    /// Share of the rows covered by snow.
    pub snow_cover: Vec<f64>,
    /// Inverter efficiency, % (0 without DC input).
    pub inv_eff_output: Vec<f64>,
}

impl V8Hourly {
    fn with_len(records: usize) -> Self {
        let zeros = || vec![0.0; records];
        V8Hourly {
            alb: zeros(),
            gh: zeros(),
            tpoa: zeros(),
            aoi: zeros(),
            sunup: zeros(),
            ss_beam_factor: vec![1.0; records],
            ss_sky_diffuse_factor: vec![1.0; records],
            ss_gnd_diffuse_factor: vec![1.0; records],
            soiling_f: zeros(),
            dcsnowderate: zeros(),
            snow_cover: zeros(),
            inv_eff_output: zeros(),
        }
    }

    /// The series with their names, in a fixed order.
    pub fn into_columns(self) -> Vec<(&'static str, Vec<f64>)> {
        vec![
            ("alb", self.alb),
            ("gh", self.gh),
            ("tpoa", self.tpoa),
            ("aoi", self.aoi),
            ("sunup", self.sunup),
            ("ss_beam_factor", self.ss_beam_factor),
            ("ss_sky_diffuse_factor", self.ss_sky_diffuse_factor),
            ("ss_gnd_diffuse_factor", self.ss_gnd_diffuse_factor),
            ("soiling_f", self.soiling_f),
            ("dcsnowderate", self.dcsnowderate),
            ("snow_cover", self.snow_cover),
            ("inv_eff_output", self.inv_eff_output),
        ]
    }
}

/// A v8 simulation's results: the estimator's outputs (`PvOutput`, shared with v5) and v8's
/// further hourly series.
#[derive(Clone, Debug, PartialEq)]
pub struct V8Output {
    pub estimate: PvOutput,
    pub extra: V8Hourly,
    /// AC rating of the system, kW.
    pub system_capacity_ac: f64,
}

/// How the surface is oriented, with its per-simulation constants.
#[derive(Clone, Copy, Debug)]
enum Mount {
    Fixed(FixedSurface),
    OneAxis {
        axis: TrackerAxis,
        gcr: f64,
        backtracking: bool,
    },
    TwoAxis,
}

impl Mount {
    fn surface(&self, sun: &SunDirection) -> SurfaceAngles {
        match self {
            Mount::Fixed(surface) => surface.orientation(sun),
            Mount::OneAxis {
                axis,
                gcr,
                backtracking,
            } => one_axis_surface(sun, axis, *gcr, *backtracking),
            Mount::TwoAxis => two_axis_surface(sun),
        }
    }
}

/// Ground albedo of a record: the weather's value when it is used and valid (strictly between 0
/// and 1), else the user's value for the month, else 0.2 — or 0.6 when the snow model runs and
/// more than 0.5 cm of snow lies on the ground.
fn record_albedo(options: &V8Options, weather: &Weather, index: usize) -> f64 {
    let mut albedo = 0.0;
    if options.use_weather_albedo {
        if let Some(values) = &weather.albedo {
            let value = values[index];
            if value.is_finite() && value > 0.0 && value < 1.0 {
                albedo = value;
            }
        }
    } else if let Some(input) = &options.albedo {
        albedo = input.for_month(weather.month[index]);
    }
    if albedo <= 0.0 || albedo >= 1.0 {
        let snow = weather
            .snow_depth
            .as_ref()
            .map_or(f64::NAN, |depths| depths[index]);
        albedo = if options.snow_loss && snow.is_finite() && snow > 0.5 && snow < 999.0 {
            DEFAULT_SNOW_ALBEDO
        } else {
            DEFAULT_ALBEDO
        };
    }
    albedo
}

/// The constant part of a simulation, shared by the threads of stage 1.
struct System<'a> {
    params: &'a V8Params,
    mount: Mount,
    motion: RowMotion,
    layout: ArrayLayout,
    module: CecModule,
    thermal: NoctModel,
    inverter: SandiaInverter,
    dc_nameplate_w: f64,
    /// Site elevation for the air-mass modifier, m (negative or missing: 0).
    elevation: f64,
    /// Array types 0, 2 and 3 shade themselves.
    self_shaded: bool,
}

impl<'a> System<'a> {
    fn new(params: &'a V8Params, weather: &Weather) -> Self {
        let system = &params.system;
        let dc_nameplate_w = system.system_capacity * 1000.0;
        let module = CecModule::for_type(system.module_type);
        let (mount, motion) = match system.array_type.tracking() {
            Tracking::Fixed => (
                Mount::Fixed(FixedSurface::new(system.tilt, system.azimuth)),
                RowMotion::Fixed,
            ),
            Tracking::OneAxis { backtracking } => (
                Mount::OneAxis {
                    axis: TrackerAxis::new(system.tilt, system.azimuth),
                    gcr: system.gcr,
                    backtracking,
                },
                RowMotion::OneAxis,
            ),
            Tracking::TwoAxis => (Mount::TwoAxis, RowMotion::TwoAxis),
        };
        System {
            params,
            mount,
            motion,
            layout: ArrayLayout::new(
                dc_nameplate_w,
                system.array_type,
                system.gcr,
                ModuleGeometry::of(module.stc_efficiency),
            ),
            module,
            thermal: NoctModel::new(system.array_type, &module),
            inverter: SandiaInverter::new(dc_nameplate_w, system.dc_ac_ratio, system.inv_eff),
            dc_nameplate_w,
            elevation: if weather.meta.elevation >= 0.0 {
                weather.meta.elevation
            } else {
                0.0
            },
            self_shaded: matches!(
                system.array_type,
                ArrayType::FixedOpenRack | ArrayType::OneAxis | ArrayType::OneAxisBacktracking
            ),
        }
    }

    /// The rear-side model of bifacial systems.
    fn rear_model(&self) -> Option<RearSideModel> {
        let system = &self.params.system;
        (self.params.options.bifaciality > 0.0).then(|| {
            RearSideModel::new(
                self.motion,
                system.gcr,
                self.layout.slope_length(),
                GROUND_CLEARANCE_M,
            )
        })
    }
}

/// A sun-up record as the sequential pre-pass leaves it.
#[derive(Clone, Copy, Debug)]
struct UpRecord {
    index: usize,
    sun: SunDirection,
    surface: SurfaceAngles,
    /// Perez plane-of-array components (zero when the beam on the horizontal exceeds the
    /// extraterrestrial irradiance).
    components: PoaComponents,
    /// Beam and diffuse for the rear-side model (SSC's `calculatedDirectNormal` and
    /// `calculatedDiffuseHorizontal`: the last accepted record's, initially −999 and 0).
    rear_dni: f64,
    rear_dhi: f64,
    albedo: f64,
}

/// What one thread of stage 1 keeps between records: caches only, so records can be split
/// between threads in any way.
struct ThreadState {
    /// Cover modifiers of diffuse light, for the last surface tilt seen.
    diffuse_modifiers: Option<DiffuseModifiers>,
    rear: Option<RearSideModel>,
    /// Sky-view derates, filled in record order by the pre-pass (SSC keeps the first value
    /// computed for each whole degree of tilt).
    sky_view: Option<SkyViewCache>,
}

impl ThreadState {
    fn diffuse_modifiers(&mut self, tilt_deg: f64) -> DiffuseModifiers {
        match self.diffuse_modifiers {
            Some(modifiers) if modifiers.tilt_deg().to_bits() == tilt_deg.to_bits() => modifiers,
            _ => {
                let modifiers = DiffuseModifiers::new(tilt_deg, true);
                self.diffuse_modifiers = Some(modifiers);
                modifiers
            }
        }
    }
}

/// Stage 1's result for a sun-up record: irradiance, temperature and module power, before snow
/// and system losses.
#[derive(Clone, Copy, Debug, Default)]
struct Optics {
    aoi: f64,
    tilt_deg: f64,
    poa_front: f64,
    poa: f64,
    /// Rear irradiance before bifaciality and shading, W/m² (the snow model's input).
    rear_total: f64,
    tpoa: f64,
    tcell: f64,
    /// DC power of the array before snow and system losses, W.
    module_dc: f64,
    ss_beam: f64,
    ss_sky: f64,
    ss_ground: f64,
    soiling: f64,
}

/// Self-shading factors of one record before the range check.
#[derive(Clone, Copy, Debug)]
struct ShadingFactors {
    beam: f64,
    sky: f64,
    ground: f64,
}

impl ShadingFactors {
    const NONE: ShadingFactors = ShadingFactors {
        beam: 1.0,
        sky: 1.0,
        ground: 1.0,
    };
}

impl System<'_> {
    /// Stage 1 for one sun-up record: plane-of-array irradiance, shading, soiling, cover and
    /// spectral modifiers, cell temperature and module power.
    fn optics(
        &self,
        weather: &Weather,
        record: &UpRecord,
        state: &mut ThreadState,
    ) -> Result<Optics, V8Error> {
        let options = &self.params.options;
        let system = &self.params.system;
        let UpRecord {
            index,
            sun,
            surface,
            albedo,
            ..
        } = *record;
        let (dni, dhi) = (weather.dn[index], weather.df[index]);
        let PoaComponents {
            mut beam,
            mut sky,
            mut ground,
        } = record.components;
        let sun_zenith_deg = sun.zenith * RAD_TO_DEG;
        let sun_azimuth_deg = sun.azimuth * RAD_TO_DEG;
        let aoi = surface.incidence * RAD_TO_DEG;
        let tilt_deg = surface.tilt * RAD_TO_DEG;
        let rear_total = match state.rear.as_mut() {
            Some(rear) => rear.irradiance(&RearInputs {
                sun_zenith: sun.zenith,
                sun_azimuth: sun.azimuth,
                sun_elevation: DEG_TO_RAD * (90.0 - sun_zenith_deg),
                surface_tilt: surface.tilt,
                surface_azimuth: surface.azimuth,
                dni: record.rear_dni,
                dhi: record.rear_dhi,
                albedo,
            }),
            None => 0.0,
        };
        let mut rear = rear_total * options.bifaciality;

        let mut shading = ShadingFactors::NONE;
        if let Some(sky_view) = state.sky_view.as_mut() {
            let beam_factor = match (system.array_type, self.mount) {
                (ArrayType::FixedOpenRack, _) => Some(
                    1.0 - fixed_row_shaded_fraction(
                        &self.layout,
                        tilt_deg,
                        surface.azimuth * RAD_TO_DEG,
                        sun_zenith_deg,
                        sun_azimuth_deg,
                    ),
                ),
                (ArrayType::OneAxis, Mount::OneAxis { axis, gcr, .. }) => Some(
                    1.0 - beam_shade_fraction(
                        sun_azimuth_deg,
                        sun_zenith_deg,
                        &axis,
                        gcr,
                        surface.rotation * RAD_TO_DEG,
                    ),
                ),
                _ => None,
            };
            let DiffuseDerates {
                sky: sky_factor,
                ground: ground_factor,
            } = diffuse_derates(
                &self.layout,
                sun_zenith_deg,
                tilt_deg,
                dni,
                dhi,
                sky,
                ground,
                albedo,
                sky_view,
            );
            if let Some(factor) = beam_factor {
                beam *= factor;
                shading.beam = factor;
            }
            shading.sky = sky_factor;
            shading.ground = ground_factor;
        }
        let in_range = |factor: f64| (-DERATE_TOLERANCE..=1.0 + DERATE_TOLERANCE).contains(&factor);
        let (mut ss_sky, mut ss_ground) = (1.0, 1.0);
        if in_range(shading.sky) {
            sky *= shading.sky;
            rear *= shading.sky;
            ss_sky = shading.sky;
        }
        if in_range(shading.ground) {
            ground *= shading.ground;
            ss_ground = shading.ground;
        }

        let mut soiling = 0.0;
        if let Some(monthly) = &options.soiling {
            soiling = monthly[usize::from(weather.month[index] - 1)] * 0.01;
            beam *= 1.0 - soiling;
            sky *= 1.0 - soiling;
            ground *= 1.0 - soiling;
        }
        let poa_front = beam + sky + ground;
        let poa = poa_front + rear;

        let modifiers = state.diffuse_modifiers(tilt_deg);
        let front_effective = transmitted_irradiance(aoi, beam, sky, ground, &modifiers, true);
        let spectral = air_mass_modifier(sun_zenith_deg, self.elevation);
        let thermal_irradiance = front_effective * spectral;
        let tcell = if thermal_irradiance > 0.0 {
            self.thermal.cell_temperature(
                thermal_irradiance,
                weather.tdry[index],
                weather.wspd[index],
            )
        } else {
            0.0
        };
        let mut tpoa = 0.0;
        if aoi > AOI_MIN_DEG && aoi < AOI_MAX_DEG && poa_front > 0.0 {
            tpoa = front_effective;
            if tpoa < 0.0 {
                tpoa = 0.0;
            }
            if tpoa > poa {
                tpoa = poa_front;
            }
        }
        let module_power = self
            .module
            .max_power((front_effective + rear) * spectral, tcell)
            .ok_or(V8Error::ModuleModel { record: index })?;
        Ok(Optics {
            aoi,
            tilt_deg,
            poa_front,
            poa,
            rear_total,
            tpoa,
            tcell,
            module_dc: module_power * self.dc_nameplate_w / self.module.rated_power(),
            ss_beam: shading.beam,
            ss_sky,
            ss_ground,
            soiling,
        })
    }
}

/// Simulate a PV system over a weather year (PVWatts v8) on all available cores.
pub fn simulate_v8(weather: &Weather, params: &V8Params) -> Result<V8Output, V8Error> {
    simulate_v8_with_sun_path(weather, &SunPath::compute(weather, Precision::Fast), params, 0)
}

/// Simulate with a precomputed sun path, which must be `SunPath::compute(weather, Precision::Fast)` (the v5 and
/// v8 engines share it), on `threads` threads (0: all available cores). The records are split
/// between the threads; results do not depend on the thread count.
///
/// # Panics
/// When `sun_path` does not have one entry per weather record or one position per sun-up record.
pub fn simulate_v8_with_sun_path(
    weather: &Weather,
    sun_path: &SunPath,
    params: &V8Params,
    threads: usize,
) -> Result<V8Output, V8Error> {
    let records = weather.len();
    assert_eq!(
        sun_path.sunup.len(),
        records,
        "sun path and weather have different lengths"
    );
    let records_per_hour = (records / HOURS_PER_YEAR).max(1);
    let step_hours = 1.0 / records_per_hour as f64;
    let system = System::new(params, weather);
    let albedo: Vec<f64> = (0..records)
        .map(|i| record_albedo(&params.options, weather, i))
        .collect();
    let (up_records, sky_view) = sequential_pre_pass(weather, sun_path, &system, &albedo);

    let threads = thread_count(threads);
    let thread_state = || ThreadState {
        diffuse_modifiers: None,
        rear: system.rear_model(),
        sky_view: sky_view.clone(),
    };
    let optics: Vec<Result<Optics, V8Error>> =
        split_map(&up_records, threads, thread_state, |record, state| {
            system.optics(weather, record, state)
        });

    let mut hourly = HourlyOutput::night(weather, sun_path);
    let mut extra = V8Hourly::with_len(records);
    extra.gh = weather.gh.to_vec();
    extra.sunup = hourly.sunup.iter().map(|&code| f64::from(code)).collect();
    extra.alb = albedo;
    let mut snow = params
        .options
        .snow_loss
        .then(|| SnowModel::new(system.layout.modules_up));
    let losses = 1.0 - params.system.losses * 0.01;
    for (record, optics) in up_records.iter().zip(optics) {
        let optics = optics?;
        let i = record.index;
        let (mut snow_factor, mut snow_cover) = (1.0, 0.0);
        if let Some(snow) = snow.as_mut() {
            let depth = weather
                .snow_depth
                .as_ref()
                .map_or(f64::NAN, |depths| depths[i]);
            let step = snow
                .step(
                    (optics.poa_front + optics.rear_total) as f32,
                    optics.tilt_deg as f32,
                    weather.tdry[i] as f32,
                    depth as f32,
                    step_hours as f32,
                )
                .ok_or_else(|| V8Error::NoSnowData(no_snow_data_message()))?;
            let mut loss = step.loss;
            if optics.poa != 0.0 {
                loss = (f64::from(loss) * (optics.poa_front / optics.poa)) as f32;
            }
            snow_factor = 1.0 - f64::from(loss);
            snow_cover = f64::from(step.coverage);
        }
        let dc = optics.module_dc * (snow_factor * losses);
        let ac = system.inverter.ac_power(dc);
        hourly.series.poa[i] = optics.poa;
        hourly.tpoa[i] = optics.tpoa;
        hourly.series.tcell[i] = optics.tcell;
        hourly.series.dc[i] = dc;
        hourly.series.ac[i] = ac;
        hourly.aoi[i] = optics.aoi;
        hourly.shad_beam_factor[i] = optics.ss_beam;
        extra.tpoa[i] = optics.tpoa;
        extra.aoi[i] = optics.aoi;
        extra.ss_beam_factor[i] = optics.ss_beam;
        extra.ss_sky_diffuse_factor[i] = optics.ss_sky;
        extra.ss_gnd_diffuse_factor[i] = optics.ss_ground;
        extra.soiling_f[i] = optics.soiling;
        extra.dcsnowderate[i] = (1.0 - snow_factor) * 100.0;
        extra.snow_cover[i] = snow_cover;
        extra.inv_eff_output[i] = if dc > 0.0 { ac / dc * 100.0 } else { 0.0 };
    }
    Ok(V8Output {
        estimate: aggregate(weather, hourly, system.dc_nameplate_w, step_hours),
        extra,
        system_capacity_ac: system.inverter.ac_rating() / 1000.0,
    })
}

/// The parts of the record loop that depend on earlier records, in record order: each sun-up
/// record's sun (SSC's exact position where needed, see `exactsun`), surface orientation and
/// Perez components, the beam and diffuse the rear-side model carries over, and the sky-view
/// derates (SSC caches the first value computed for each whole degree of surface tilt, and
/// computes one only for records with enough diffuse light to derate).
fn sequential_pre_pass(
    weather: &Weather,
    sun_path: &SunPath,
    system: &System<'_>,
    albedo: &[f64],
) -> (Vec<UpRecord>, Option<SkyViewCache>) {
    let horizontal_axis = matches!(system.mount, Mount::OneAxis { axis, .. } if axis.tilt_deg.abs() < HORIZONTAL_AXIS_TILT_DEG);
    let exact = exact_up_positions(weather, sun_path, horizontal_axis);
    let params = &system.params.system;
    let mut sky_view = system
        .self_shaded
        .then(|| SkyViewCache::new(params.tilt, params.gcr));
    let up = &sun_path.up_positions;
    let mut rear_beam_diffuse = (-999.0, 0.0);
    let up_records: Vec<UpRecord> = (0..weather.len())
        .filter(|&i| sun_path.sunup[i] != SunUp::Night)
        .enumerate()
        .map(|(k, index)| {
            let (sun, extraterrestrial_horizontal) =
                match exact.as_ref().and_then(|positions| positions[k]) {
                    Some(exact) => (exact.direction, exact.extraterrestrial_horizontal),
                    None => (
                        SunDirection {
                            zenith: up.zenith[k],
                            azimuth: up.azimuth[k],
                            sin_zenith: up.sin_zenith[k],
                            cos_zenith: up.cos_zenith[k],
                        },
                        up.extraterrestrial_horizontal[k],
                    ),
                };
            let surface = system.mount.surface(&sun);
            let dni = weather.dn[index];
            let beam_horizontal = if dni < 0.0 { 0.0 } else { dni * sun.cos_zenith };
            let components = if beam_horizontal > extraterrestrial_horizontal {
                PoaComponents::default()
            } else {
                rear_beam_diffuse = (dni, weather.df[index]);
                perez(dni, weather.df[index], albedo[index], &sun, &surface)
            };
            if let Some(cache) = sky_view.as_mut() {
                if !(components.sky + components.ground < MIN_DIFFUSE_FOR_DERATE) {
                    cache.derate(surface.tilt * RAD_TO_DEG);
                }
            }
            UpRecord {
                index,
                sun,
                surface,
                components,
                rear_dni: rear_beam_diffuse.0,
                rear_dhi: rear_beam_diffuse.1,
                albedo: albedo[index],
            }
        })
        .collect();
    assert_eq!(
        up_records.len(),
        up.zenith.len(),
        "sun path positions do not match its sun-up records"
    );
    (up_records, sky_view)
}

/// `work` on every item, the items split into up to `threads` contiguous runs, one thread each
/// with its own state from `state`; results in item order.
fn split_map<T: Sync, S, R: Send>(
    items: &[T],
    threads: usize,
    state: impl Fn() -> S + Sync,
    work: impl Fn(&T, &mut S) -> R + Sync,
) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        let mut own = state();
        return items.iter().map(|item| work(item, &mut own)).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|run| {
                let (state, work) = (&state, &work);
                scope.spawn(move || {
                    let mut own = state();
                    run.iter()
                        .map(|item| work(item, &mut own))
                        .collect::<Vec<R>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// Monthly and annual totals from hourly results (monthly sums in record order, scaled to kWh).
fn aggregate(
    weather: &Weather,
    hourly: HourlyOutput,
    dc_nameplate_w: f64,
    step_hours: f64,
) -> PvOutput {
    let mut poa_sum = [0.0; 12];
    let mut dc_sum = [0.0; 12];
    let mut ac_sum = [0.0; 12];
    let mut ac_total = 0.0;
    let mut ac_energy_kwh = 0.0;
    let records_per_hour = 1.0 / step_hours;
    for (i, &month) in weather.month.iter().enumerate() {
        let m = usize::from(month - 1);
        poa_sum[m] += hourly.series.poa[i];
        dc_sum[m] += hourly.series.dc[i];
        ac_sum[m] += hourly.series.ac[i];
        ac_total += hourly.series.ac[i];
        ac_energy_kwh += hourly.series.ac[i] * 0.001 / records_per_hour;
    }
    let scale = 0.001 * step_hours;
    let poa_monthly = poa_sum.map(|s| s * scale);
    let leap = weather.has_leap_day();
    let mut solrad_monthly = [0.0; 12];
    for (m, solrad) in solrad_monthly.iter_mut().enumerate() {
        *solrad = poa_monthly[m] / f64::from(days_in_month(m as u8 + 1, leap));
    }
    let solrad_annual = solrad_monthly.iter().fold(0.0, |sum, &s| sum + s) / 12.0;
    let kwh_per_kw = 1000.0 * ac_energy_kwh / dc_nameplate_w;
    let hours = weather.len() as f64 * step_hours;
    PvOutput {
        hourly,
        poa_monthly,
        dc_monthly: dc_sum.map(|s| s * scale),
        ac_monthly: ac_sum.map(|s| s * scale),
        solrad_monthly,
        ac_annual: ac_total * scale,
        solrad_annual,
        capacity_factor: kwh_per_kw / (hours / 100.0),
    }
}

//! The PVWatts v5 hourly simulation loop and the monthly/annual aggregation.
//!
//! Per record: sun position (precomputed, see `sunpath`), surface orientation (fixed, single-axis
//! or two-axis), Perez plane-of-array irradiance, single-axis self-shading (array type 2), cover
//! loss, Fuentes cell temperature, DC power with losses, inverter. Records whose beam on the
//! horizontal exceeds the extraterrestrial irradiance get no plane-of-array irradiance (SSC logs
//! and continues).
//!
//! Reference: Dobos (2014), PVWatts Version 5 Manual, NREL/TP-6A20-62641; SSC
//! `ssc/cmod_pvwattsv5.cpp` (`exec`, `powerout`) and `ssc/core.cpp` (`accumulate_monthly`).

use super::angles::RAD_TO_DEG;
use super::celltemp::FuentesModel;
use super::iam::CoverModel;
use super::incidence::{FixedSurface, SunDirection, SurfaceAngles};
use super::params::{SystemParams, Tracking};
use super::perez::{perez, PoaComponents};
use super::solarpos::Precision;
use super::power::{dc_power, Inverter};
use super::shading::SelfShading;
use super::sunpath::{SunPath, SunUp};
use super::tracking::{one_axis_surface, two_axis_surface, TrackerAxis};
use super::weather::Weather;

/// Module mounting height assumed by PVWatts, m.
pub const MODULE_HEIGHT_M: f64 = 5.0;
/// Albedo used when the weather has none or an invalid one.
pub const DEFAULT_ALBEDO: f64 = 0.2;

/// The eight series the PV estimator reports per record: the engine's output and the web
/// estimator's parsed answer (`services::pv_estimator::Hourly`) are this one struct.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HourlySeries {
    /// AC output, W.
    pub ac: Vec<f64>,
    /// Plane-of-array irradiance after shading, W/m².
    pub poa: Vec<f64>,
    /// Direct normal irradiance from the weather, W/m².
    pub dn: Vec<f64>,
    /// DC output, W.
    pub dc: Vec<f64>,
    /// Diffuse horizontal irradiance from the weather, W/m².
    pub df: Vec<f64>,
    /// Ambient (dry-bulb) temperature from the weather, °C.
    pub tamb: Vec<f64>,
    /// Cell temperature, °C (ambient when the sun is down).
    pub tcell: Vec<f64>,
    /// Wind speed from the weather, m/s.
    pub wspd: Vec<f64>,
}

/// Results per weather record (hourly for hourly weather, sub-hourly otherwise).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HourlyOutput {
    /// What the estimator reports.
    pub series: HourlySeries,
    /// Plane-of-array irradiance transmitted through the cover, W/m².
    pub tpoa: Vec<f64>,
    /// Angle of incidence, degrees (0 when the sun is down).
    pub aoi: Vec<f64>,
    /// Beam shading factor (1 − self-shaded fraction for array type 2; 1 otherwise).
    pub shad_beam_factor: Vec<f64>,
    /// Sun-up code: 0 night, 1 day, 2 sunrise hour, 3 sunset hour.
    pub sunup: Vec<u8>,
}

impl HourlyOutput {
    /// Every record as at night, the values sun-up records then overwrite: no irradiance or
    /// power, the cell at ambient temperature, the weather's own series copied.
    pub(crate) fn night(weather: &Weather, sun_path: &SunPath) -> HourlyOutput {
        let records = weather.len();
        HourlyOutput {
            series: HourlySeries {
                ac: vec![0.0; records],
                poa: vec![0.0; records],
                dn: weather.dn.to_vec(),
                dc: vec![0.0; records],
                df: weather.df.to_vec(),
                tamb: weather.tdry.to_vec(),
                tcell: weather.tdry.to_vec(),
                wspd: weather.wspd.to_vec(),
            },
            tpoa: vec![0.0; records],
            aoi: vec![0.0; records],
            shad_beam_factor: vec![1.0; records],
            sunup: sun_path.sunup.iter().map(|&state| state as u8).collect(),
        }
    }
}

/// Simulation results in the units of the PV estimator web service.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PvOutput {
    /// Hourly series.
    pub hourly: HourlyOutput,
    /// Plane-of-array irradiation per month, kWh/m².
    pub poa_monthly: [f64; 12],
    /// DC energy per month, kWh.
    pub dc_monthly: [f64; 12],
    /// AC energy per month, kWh.
    pub ac_monthly: [f64; 12],
    /// Mean daily plane-of-array irradiation per month, kWh/m²/day.
    pub solrad_monthly: [f64; 12],
    /// AC energy of the year, kWh.
    pub ac_annual: f64,
    /// Mean of the 12 monthly solrad values (not weighted by days), kWh/m²/day.
    pub solrad_annual: f64,
    /// AC energy over DC nameplate times hours of the year, %.
    pub capacity_factor: f64,
}

/// Irradiance reaching the array in one sun-up record: everything the thermal model needs.
#[derive(Clone, Copy, Debug)]
struct PlaneOfArray {
    /// Plane-of-array irradiance after shading, W/m².
    poa: f64,
    /// Irradiance transmitted through the cover, W/m².
    tpoa: f64,
    /// Angle of incidence, degrees.
    aoi: f64,
    /// Beam shading factor.
    shad_beam_factor: f64,
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
    /// The mount of `params`. Only single-axis trackers use the ground coverage ratio.
    fn of(params: &SystemParams) -> Self {
        match params.array_type.tracking() {
            Tracking::Fixed => Mount::Fixed(FixedSurface::new(params.tilt, params.azimuth)),
            Tracking::OneAxis { backtracking } => Mount::OneAxis {
                axis: TrackerAxis::new(params.tilt, params.azimuth),
                gcr: params.gcr,
                backtracking,
            },
            Tracking::TwoAxis => Mount::TwoAxis,
        }
    }

    /// Surface orientation for the sun at `sun`.
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

/// Per-simulation state and constants.
struct SystemModel<'a> {
    params: &'a SystemParams,
    mount: Mount,
    dc_nameplate_w: f64,
    cover: CoverModel,
    thermal: FuentesModel,
    inverter: Inverter,
    self_shading: Option<SelfShading>,
}

impl<'a> SystemModel<'a> {
    /// The model of `params` for records `step_hours` long.
    fn new(params: &'a SystemParams, step_hours: f64) -> Self {
        let mount = Mount::of(params);
        let self_shading = match mount {
            Mount::OneAxis {
                axis,
                gcr,
                backtracking: false,
            } => Some(SelfShading::new(axis, gcr)),
            _ => None,
        };
        let dc_nameplate_w = params.system_capacity * 1000.0;
        SystemModel {
            params,
            mount,
            dc_nameplate_w,
            cover: CoverModel::new(params.module_type.has_anti_reflective_coating()),
            thermal: FuentesModel::new(params.array_type.inoct_celsius(), MODULE_HEIGHT_M, step_hours),
            inverter: Inverter::new(dc_nameplate_w, params.dc_ac_ratio, params.inv_eff),
            self_shading,
        }
    }

    /// Plane-of-array irradiance of one sun-up record. It does not depend on the thermal state.
    ///
    /// * `sun`: sun direction; `extraterrestrial_horizontal`: W/m².
    /// * `dni`, `dhi`: W/m²; `albedo`: ground reflectance.
    fn plane_of_array(
        &mut self,
        sun: &SunDirection,
        extraterrestrial_horizontal: f64,
        dni: f64,
        dhi: f64,
        albedo: f64,
    ) -> PlaneOfArray {
        let surface = self.mount.surface(sun);
        let beam_horizontal = if dni < 0.0 { 0.0 } else { dni * sun.cos_zenith };
        let mut components = if beam_horizontal > extraterrestrial_horizontal {
            PoaComponents::default()
        } else {
            perez(dni, dhi, albedo, sun, &surface)
        };
        let shad_beam_factor = match self.self_shading.as_mut() {
            Some(shading) => shading.apply(
                &surface,
                sun.zenith,
                sun.azimuth,
                dni,
                dhi,
                albedo,
                &mut components,
            ),
            None => 1.0,
        };
        let poa = components.beam * shad_beam_factor + components.sky + components.ground;
        let aoi = surface.incidence * RAD_TO_DEG;
        PlaneOfArray {
            poa,
            tpoa: self
                .cover
                .transmitted_poa(poa, dni, aoi, surface.cos_incidence),
            aoi,
            shad_beam_factor,
        }
    }

    /// Cell temperature (°C), DC and AC power (W) of the next sun-up record, from its
    /// plane-of-array irradiance `poa` and transmitted irradiance `tpoa` (W/m²), wind speed
    /// `wind` (m/s) and ambient temperature `ambient` (°C). Records must come in order: the
    /// thermal state carries over.
    fn power(&mut self, poa: f64, tpoa: f64, wind: f64, ambient: f64) -> (f64, f64, f64) {
        let tcell = self
            .thermal
            .step(poa, if wind < 0.0 { 0.0 } else { wind }, ambient);
        let dc = dc_power(
            self.dc_nameplate_w,
            self.params.module_type.temperature_coefficient(),
            tcell,
            tpoa,
            self.params.losses,
        );
        (tcell, dc, self.inverter.ac_power(dc))
    }
}

/// Albedo of a record: the weather's value when strictly between 0 and 1, else 0.2.
fn record_albedo(weather: &Weather, index: usize) -> f64 {
    match &weather.albedo {
        Some(albedo) if albedo[index].is_finite() && albedo[index] > 0.0 && albedo[index] < 1.0 => {
            albedo[index]
        }
        _ => DEFAULT_ALBEDO,
    }
}

/// The precision of the sun positions a system needs to reproduce SSC: single-axis trackers
/// turn last-bit differences of the sun position into 1e-5 W through acos(cos R) near R = 0, so
/// they get SSC's own (C library) arithmetic; every other mount agrees within 1e-12 relative with
/// the faster vectorised positions.
pub fn sun_path_precision(params: &SystemParams) -> Precision {
    match params.array_type.tracking() {
        Tracking::OneAxis { .. } => Precision::Exact,
        Tracking::Fixed | Tracking::TwoAxis => Precision::Fast,
    }
}

/// Simulate a PV system over a weather year (PVWatts v5).
pub fn simulate(weather: &Weather, params: &SystemParams) -> PvOutput {
    let sun_path = SunPath::compute(weather, sun_path_precision(params));
    simulate_with_sun_path(weather, &sun_path, params)
}

/// Simulate with a precomputed sun path, which must be
/// `SunPath::compute(weather, sun_path_precision(params))`; lets many systems share one
/// sun-position computation.
///
/// # Panics
/// When `sun_path` does not have one entry per weather record or one position per sun-up record,
/// or was computed in another precision than `params` needs.
pub fn simulate_with_sun_path(
    weather: &Weather,
    sun_path: &SunPath,
    params: &SystemParams,
) -> PvOutput {
    simulate_keeping(weather, sun_path, params, true)
}

/// `simulate_with_sun_path`, keeping the per-record series when `keep_hourly` is true; otherwise
/// `hourly` is empty (no allocation) and every monthly and annual value is the same to the last
/// bit, the sums being made in the same record order.
///
/// # Panics
/// As `simulate_with_sun_path`.
pub fn simulate_keeping(
    weather: &Weather,
    sun_path: &SunPath,
    params: &SystemParams,
    keep_hourly: bool,
) -> PvOutput {
    let records = weather.len();
    assert_eq!(
        sun_path.sunup.len(),
        records,
        "sun path and weather have different lengths"
    );
    assert_eq!(
        sun_path.precision,
        sun_path_precision(params),
        "sun path computed in the wrong precision for this mount"
    );
    let up = &sun_path.up_positions;
    assert_eq!(
        up.zenith.len(),
        sun_path.sunup.iter().filter(|&&state| state != SunUp::Night).count(),
        "sun path positions do not match its sun-up records"
    );
    let mut model = SystemModel::new(params, weather.step_hours());
    let mut hourly = keep_hourly.then(|| HourlyOutput::night(weather, sun_path));
    let mut totals = Totals::new(weather);
    let up_records = sun_path
        .sunup
        .iter()
        .enumerate()
        .filter(|(_, state)| **state != SunUp::Night)
        .map(|(i, _)| i);
    // Each record's plane of array, then its power: the self-shading and the thermal state each
    // see their records in order, as when all planes of array came first.
    for (k, i) in up_records.enumerate() {
        let plane = model.plane_of_array(
            &SunDirection {
                zenith: up.zenith[k],
                azimuth: up.azimuth[k],
                sin_zenith: up.sin_zenith[k],
                cos_zenith: up.cos_zenith[k],
            },
            up.extraterrestrial_horizontal[k],
            weather.dn[i],
            weather.df[i],
            record_albedo(weather, i),
        );
        let (tcell, dc, ac) = model.power(plane.poa, plane.tpoa, weather.wspd[i], weather.tdry[i]);
        totals.add(weather.month[i], plane.poa, dc, ac);
        if let Some(hourly) = hourly.as_mut() {
            hourly.series.poa[i] = plane.poa;
            hourly.tpoa[i] = plane.tpoa;
            hourly.aoi[i] = plane.aoi;
            hourly.shad_beam_factor[i] = plane.shad_beam_factor;
            hourly.series.tcell[i] = tcell;
            hourly.series.dc[i] = dc;
            hourly.series.ac[i] = ac;
        }
    }
    totals.finish(weather, hourly.unwrap_or_default(), model.dc_nameplate_w)
}

/// Running sums of power per month and over the year, in record order, as SSC's
/// `accumulate_monthly` makes them. Only sun-up records are added: a night record's power and
/// irradiance are +0.0, and adding +0.0 leaves every sum's bits as they are (a sum that starts at
/// +0.0 never becomes −0.0), so the sums equal those over every record.
struct Totals {
    steps_per_hour: f64,
    poa: [f64; 12],
    dc: [f64; 12],
    ac: [f64; 12],
    ac_total: f64,
    ac_energy_kwh: f64,
}

impl Totals {
    fn new(weather: &Weather) -> Self {
        Totals {
            steps_per_hour: f64::from(weather.steps_per_hour),
            poa: [0.0; 12],
            dc: [0.0; 12],
            ac: [0.0; 12],
            ac_total: 0.0,
            ac_energy_kwh: 0.0,
        }
    }

    /// Adds one record of `month` (1 to 12): plane-of-array irradiance (W/m²), DC and AC power (W).
    fn add(&mut self, month: u8, poa: f64, dc: f64, ac: f64) {
        let m = usize::from(month - 1);
        self.poa[m] += poa;
        self.dc[m] += dc;
        self.ac[m] += ac;
        self.ac_total += ac;
        self.ac_energy_kwh += ac * 0.001 / self.steps_per_hour;
    }

    /// Monthly and annual totals: the sums times 0.001·step (kWh), as SSC's `accumulate_monthly`
    /// scales them.
    fn finish(self, weather: &Weather, hourly: HourlyOutput, dc_nameplate_w: f64) -> PvOutput {
        let mut month_records = [0usize; 12];
        for &month in &weather.month {
            month_records[usize::from(month - 1)] += 1;
        }
        let to_kwh_scale = 0.001 * weather.step_hours();
        let to_kwh = |sums: [f64; 12]| sums.map(|s| s * to_kwh_scale);
        let poa_monthly = to_kwh(self.poa);
        // Days of data per month: 28 or 29 for February (a year without 29 February in UTC seen
        // in local time has parts of both days, 28 days of records in all).
        let records_per_day = 24.0 * self.steps_per_hour;
        let mut solrad_monthly = [0.0; 12];
        for (m, solrad) in solrad_monthly.iter_mut().enumerate() {
            *solrad = poa_monthly[m] / (month_records[m] as f64 / records_per_day).round();
        }
        let solrad_annual = solrad_monthly.iter().fold(0.0, |sum, &s| sum + s) / 12.0;
        let kwh_per_kw = 1000.0 * self.ac_energy_kwh / dc_nameplate_w;
        let hours = weather.hours();
        PvOutput {
            hourly,
            poa_monthly,
            dc_monthly: to_kwh(self.dc),
            ac_monthly: to_kwh(self.ac),
            solrad_monthly,
            ac_annual: self.ac_total * to_kwh_scale,
            solrad_annual,
            capacity_factor: kwh_per_kw / (hours / 100.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pvwatts::params::{validate_params, RawParams};
    use crate::pvwatts::test_support::{site, year_columns};

    fn params(array_type: i64, gcr: f64) -> SystemParams {
        let mut raw = RawParams::new(4.0, 0, 14.0, array_type, 20.0, 180.0);
        raw.gcr = gcr;
        validate_params(&raw).unwrap()
    }

    fn all_finite(out: &PvOutput) -> bool {
        let h = &out.hourly;
        [&h.series.ac, &h.series.dc, &h.series.poa, &h.tpoa, &h.series.tcell, &h.aoi]
            .iter()
            .all(|v| v.iter().all(|x| x.is_finite()))
            && out.ac_annual.is_finite()
            && out.capacity_factor.is_finite()
    }

    #[test]
    fn aggregates_follow_the_hourly_series() {
        let weather = Weather::from_columns(site(), year_columns(false)).unwrap();
        let out = simulate(&weather, &params(1, 0.4));
        let january_poa: f64 = out.hourly.series.poa[..31 * 24].iter().sum::<f64>() * 0.001;
        assert!((out.poa_monthly[0] - january_poa).abs() < 1e-9);
        assert!((out.solrad_monthly[1] - out.poa_monthly[1] / 28.0).abs() < 1e-12);
        let ac_total: f64 = out.hourly.series.ac.iter().sum::<f64>() * 0.001;
        assert!((out.ac_annual - ac_total).abs() < 1e-9);
        assert!((out.capacity_factor - out.ac_annual / (4.0 * 8760.0) * 100.0).abs() < 1e-9);
        assert!(out.ac_annual > 0.0 && all_finite(&out));
    }

    /// The sums as they were made before sun-up records alone were added: over every record,
    /// in record order, night records included.
    fn sums_over_every_record(weather: &Weather, out: &PvOutput) -> ([f64; 12], [f64; 12], [f64; 12], f64, f64) {
        let series = &out.hourly.series;
        let (mut poa, mut dc, mut ac) = ([0.0; 12], [0.0; 12], [0.0; 12]);
        let (mut ac_total, mut ac_energy_kwh) = (0.0, 0.0);
        let steps_per_hour = f64::from(weather.steps_per_hour);
        for (i, &month) in weather.month.iter().enumerate() {
            let m = usize::from(month - 1);
            poa[m] += series.poa[i];
            dc[m] += series.dc[i];
            ac[m] += series.ac[i];
            ac_total += series.ac[i];
            ac_energy_kwh += series.ac[i] * 0.001 / steps_per_hour;
        }
        let scale = 0.001 * weather.step_hours();
        let hours = weather.hours();
        // The 4 kW of `params`.
        let capacity_factor = 1000.0 * ac_energy_kwh / 4000.0 / (hours / 100.0);
        (poa.map(|s| s * scale), dc.map(|s| s * scale), ac.map(|s| s * scale), ac_total * scale, capacity_factor)
    }

    #[test]
    fn monthly_results_without_hourly_series_are_bit_identical() {
        let mut instants = year_columns(false);
        instants.minute = Some(vec![0.0; 8760]);
        let weathers = [
            Weather::from_columns(site(), year_columns(false)).unwrap(),
            Weather::from_columns(site(), year_columns(true)).unwrap(),
            Weather::from_columns(site(), instants).unwrap(),
        ];
        for weather in &weathers {
            for array_type in 0..5 {
                let p = params(array_type, 0.4);
                let sun_path = SunPath::compute(weather, sun_path_precision(&p));
                let hourly = simulate_with_sun_path(weather, &sun_path, &p);
                let monthly = simulate_keeping(weather, &sun_path, &p, false);
                assert_eq!(monthly.hourly, HourlyOutput::default());
                let bits = |out: &PvOutput| {
                    [out.poa_monthly, out.dc_monthly, out.ac_monthly, out.solrad_monthly]
                        .concat()
                        .into_iter()
                        .chain([out.ac_annual, out.solrad_annual, out.capacity_factor])
                        .map(f64::to_bits)
                        .collect::<Vec<u64>>()
                };
                assert_eq!(bits(&monthly), bits(&hourly), "array_type {array_type}");
                let (poa, dc, ac, ac_annual, capacity_factor) = sums_over_every_record(weather, &hourly);
                assert_eq!(
                    [poa, dc, ac].concat().into_iter().chain([ac_annual, capacity_factor]).map(f64::to_bits).collect::<Vec<u64>>(),
                    [hourly.poa_monthly, hourly.dc_monthly, hourly.ac_monthly]
                        .concat()
                        .into_iter()
                        .chain([hourly.ac_annual, hourly.capacity_factor])
                        .map(f64::to_bits)
                        .collect::<Vec<u64>>(),
                    "array_type {array_type}"
                );
            }
        }
    }

    #[test]
    fn leap_day_is_simulated_and_counted_in_february() {
        let weather = Weather::from_columns(site(), year_columns(true)).unwrap();
        let out = simulate(&weather, &params(0, 0.4));
        assert_eq!(out.hourly.series.ac.len(), 8784);
        let february: f64 = out.hourly.series.poa[31 * 24..60 * 24].iter().sum::<f64>() * 0.001;
        assert!((out.poa_monthly[1] - february).abs() < 1e-9);
        assert!((out.solrad_monthly[1] - out.poa_monthly[1] / 29.0).abs() < 1e-12);
        assert!((out.capacity_factor - out.ac_annual / (4.0 * 8784.0) * 100.0).abs() < 1e-9);
        assert!(out.hourly.series.poa[59 * 24 + 12] > 0.0);
    }

    #[test]
    fn dropping_the_leap_day_gives_the_365_day_results() {
        let mut plain = year_columns(false);
        plain.year.iter_mut().for_each(|year| *year = 2020);
        let mut leap = plain.clone();
        let february_29 = 59 * 24;
        for hour in 0..24 {
            let source = february_29 - 24 + hour;
            leap.year.insert(february_29 + hour, plain.year[source]);
            leap.month.insert(february_29 + hour, 2);
            leap.day.insert(february_29 + hour, 29);
            leap.hour.insert(february_29 + hour, plain.hour[source]);
            for (column, values) in [
                (&mut leap.gh, &plain.gh),
                (&mut leap.dn, &plain.dn),
                (&mut leap.df, &plain.df),
            ] {
                column.insert(february_29 + hour, values[source]);
            }
            leap.tdry
                .insert(february_29 + hour, plain.tdry[source] + 3.0);
            leap.wspd.insert(february_29 + hour, plain.wspd[source]);
        }
        let leap_weather = Weather::from_columns(site(), leap).unwrap();
        let plain_weather = Weather::from_columns(site(), plain).unwrap();
        for array_type in 0..5 {
            let p = params(array_type, 0.4);
            assert_eq!(
                simulate(&leap_weather.without_leap_day(), &p),
                simulate(&plain_weather, &p)
            );
        }
    }

    #[test]
    fn every_array_type_and_zero_gcr_give_finite_results() {
        let weather = Weather::from_columns(site(), year_columns(false)).unwrap();
        for array_type in 0..5 {
            for gcr in [0.0, 0.4, 3.0] {
                assert!(
                    all_finite(&simulate(&weather, &params(array_type, gcr))),
                    "array_type {array_type} gcr {gcr}"
                );
            }
        }
    }

    #[test]
    fn instantaneous_data_and_polar_sites_run() {
        let mut columns = year_columns(false);
        columns.minute = Some(vec![0.0; 8760]);
        let weather = Weather::from_columns(site(), columns).unwrap();
        assert!(all_finite(&simulate(&weather, &params(4, 0.4))));

        for latitude in [78.2, -77.8] {
            let mut meta = site();
            meta.lat = latitude;
            meta.lon = 15.6;
            meta.tz = 1.0;
            let weather = Weather::from_columns(meta, year_columns(false)).unwrap();
            let out = simulate(&weather, &params(2, 0.4));
            assert!(all_finite(&out), "latitude {latitude}");
            let polar_night_month = if latitude > 0.0 { 11 } else { 5 };
            assert_eq!(
                out.ac_monthly[polar_night_month], 0.0,
                "latitude {latitude}"
            );
        }
    }
}

//! Sun positions for many instants at once (a weather year): the requests, the per-day
//! geocentric columns, and the loops, compiled for AVX-512 or AVX2 where the CPU has them (the
//! same operations in the same order, so the same bits).

use std::sync::OnceLock;

use super::{delta_t, extraterrestrial_normal, geocentric_sun, topocentric_position, FastMath, GeocentricSun, JulianDate, LibmMath, Observer, Precision, SiteTerms};

/// Inputs of many sun positions, one entry per instant, as columns (so that the loop over them
/// vectorises).
#[derive(Clone, Debug, Default)]
pub struct PositionRequests {
    /// Julian day (UT) of each instant.
    pub(super) julian_day: Vec<f64>,
    /// ΔT of each instant's year, s.
    pub(super) delta_t: Vec<f64>,
    /// Air pressure for the refraction correction, mbar.
    pub(super) pressure_mbar: Vec<f64>,
    /// Dry-bulb temperature for the refraction correction, °C.
    pub(super) temperature_c: Vec<f64>,
    /// Extraterrestrial normal irradiance of each instant's date, W/m².
    pub(super) extraterrestrial_normal: Vec<f64>,
}

impl PositionRequests {
    /// Room for `capacity` instants.
    pub fn with_capacity(capacity: usize) -> Self {
        PositionRequests {
            julian_day: Vec::with_capacity(capacity),
            delta_t: Vec::with_capacity(capacity),
            pressure_mbar: Vec::with_capacity(capacity),
            temperature_c: Vec::with_capacity(capacity),
            extraterrestrial_normal: Vec::with_capacity(capacity),
        }
    }

    /// Adds the instant `hour:minute` of `date` in local standard time with time zone `tz` (hours
    /// east of UTC), with the refraction pressure (mbar) and temperature (°C); arguments as in
    /// `SolarCalculator::position`.
    pub fn push(
        &mut self,
        date: &RequestDate,
        hour: i32,
        minute: i32,
        tz: f64,
        pressure_mbar: f64,
        temperature_c: f64,
    ) {
        self.julian_day.push(date.julian.at(hour, minute, tz));
        self.delta_t.push(date.delta_t);
        self.pressure_mbar.push(pressure_mbar);
        self.temperature_c.push(temperature_c);
        self.extraterrestrial_normal
            .push(date.extraterrestrial_normal);
    }

    /// Number of instants.
    pub fn len(&self) -> usize {
        self.julian_day.len()
    }

    /// True when there are no instants.
    pub fn is_empty(&self) -> bool {
        self.julian_day.is_empty()
    }
}

/// What the position requests of one date share: its Julian day terms, ΔT of its year (s) and
/// its extraterrestrial normal irradiance (W/m²).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RequestDate {
    pub(super) julian: JulianDate,
    pub(super) delta_t: f64,
    pub(super) extraterrestrial_normal: f64,
}

impl RequestDate {
    /// The shared terms of a date.
    pub fn new(year: i32, month: u8, day: u8) -> Self {
        RequestDate {
            julian: JulianDate::new(year, i32::from(month), i32::from(day)),
            delta_t: delta_t(year),
            extraterrestrial_normal: extraterrestrial_normal(month, day),
        }
    }
}

/// Sun positions of many instants, as columns (see `SunPosition` for the units).
#[derive(Clone, Debug, PartialEq)]
pub struct SunPositions {
    pub zenith: Vec<f64>,
    pub azimuth: Vec<f64>,
    pub sin_zenith: Vec<f64>,
    pub cos_zenith: Vec<f64>,
    pub extraterrestrial_horizontal: Vec<f64>,
}

impl SunPositions {
    pub(super) fn zeroed(len: usize) -> Self {
        SunPositions {
            zenith: vec![0.0; len],
            azimuth: vec![0.0; len],
            sin_zenith: vec![0.0; len],
            cos_zenith: vec![0.0; len],
            extraterrestrial_horizontal: vec![0.0; len],
        }
    }
}

/// The loop of `SolarCalculator::positions`, inlined into each instruction-set version.
#[inline(always)]
pub(super) fn positions_loop(
    observer: &Observer,
    site: &SiteTerms,
    requests: &PositionRequests,
    out: &mut SunPositions,
) {
    let n = requests.len();
    let (jd, delta_t) = (&requests.julian_day[..n], &requests.delta_t[..n]);
    let (pressure, temperature) = (&requests.pressure_mbar[..n], &requests.temperature_c[..n]);
    let normal = &requests.extraterrestrial_normal[..n];
    let (zenith, azimuth) = (&mut out.zenith[..n], &mut out.azimuth[..n]);
    let (sin_zenith, cos_zenith) = (&mut out.sin_zenith[..n], &mut out.cos_zenith[..n]);
    let horizontal = &mut out.extraterrestrial_horizontal[..n];
    for i in 0..n {
        let position = topocentric_position::<FastMath>(
            observer,
            site,
            jd[i],
            delta_t[i],
            pressure[i],
            temperature[i],
            normal[i],
        );
        zenith[i] = position.zenith;
        azimuth[i] = position.azimuth;
        sin_zenith[i] = position.sin_zenith;
        cos_zenith[i] = position.cos_zenith;
        horizontal[i] = position.extraterrestrial_horizontal;
    }
}

/// Instruction sets the vectorised loops of this module are compiled for. FMA is never enabled
/// (and Rust does not contract a·b + c), so every version runs the same IEEE operations and gives
/// the same results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) enum InstructionSet {
    Baseline,
    Avx2,
    Avx512,
}

impl InstructionSet {
    /// Those the processor supports, narrowest first.
    pub(super) fn supported() -> Vec<InstructionSet> {
        let mut sets = vec![InstructionSet::Baseline];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                sets.push(InstructionSet::Avx2);
            }
            if std::is_x86_feature_detected!("avx512f") {
                sets.push(InstructionSet::Avx512);
            }
        }
        sets
    }

    /// The widest one the processor supports (detected once per process).
    pub(super) fn best() -> InstructionSet {
        static BEST: OnceLock<InstructionSet> = OnceLock::new();
        *BEST.get_or_init(|| {
            *InstructionSet::supported()
                .last()
                .unwrap_or(&InstructionSet::Baseline)
        })
    }
}

/// `positions_loop` compiled for AVX-512F (eight instants per instruction); callers must check
/// that the processor has it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(super) fn positions_avx512(
    observer: &Observer,
    site: &SiteTerms,
    requests: &PositionRequests,
    out: &mut SunPositions,
) {
    positions_loop(observer, site, requests, out);
}

/// `positions_loop` compiled for AVX2 (four instants per instruction); callers must check that
/// the processor has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn positions_avx2(
    observer: &Observer,
    site: &SiteTerms,
    requests: &PositionRequests,
    out: &mut SunPositions,
) {
    positions_loop(observer, site, requests, out);
}

/// Geocentric sun coordinates of many instants, as columns (see `GeocentricSun`).
#[derive(Clone, Debug, Default)]
pub(super) struct GeocentricColumns {
    pub(super) sidereal_time: Vec<f64>,
    pub(super) right_ascension: Vec<f64>,
    pub(super) declination: Vec<f64>,
}

impl GeocentricColumns {
    /// `geocentric_sun(jd, delta_t)` for every `jd` of `julian_days`.
    pub(super) fn compute(julian_days: &[f64], delta_t: f64, precision: Precision) -> Self {
        let n = julian_days.len();
        let mut columns = GeocentricColumns {
            sidereal_time: vec![0.0; n],
            right_ascension: vec![0.0; n],
            declination: vec![0.0; n],
        };
        if precision == Precision::Exact {
            for (i, &jd) in julian_days.iter().enumerate() {
                let sun = geocentric_sun::<LibmMath>(jd, delta_t);
                columns.sidereal_time[i] = sun.sidereal_time;
                columns.right_ascension[i] = sun.right_ascension;
                columns.declination[i] = sun.declination;
            }
            return columns;
        }
        match InstructionSet::best() {
            // SAFETY (both): `best` returns only instruction sets the processor supports.
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx512 => unsafe {
                geocentric_avx512(julian_days, delta_t, &mut columns)
            },
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx2 => unsafe { geocentric_avx2(julian_days, delta_t, &mut columns) },
            _ => geocentric_loop(julian_days, delta_t, &mut columns),
        }
        columns
    }

    pub(super) fn get(&self, index: usize) -> GeocentricSun {
        GeocentricSun {
            sidereal_time: self.sidereal_time[index],
            right_ascension: self.right_ascension[index],
            declination: self.declination[index],
        }
    }
}

/// The loop of `GeocentricColumns::compute`, inlined into each instruction-set version.
#[inline(always)]
pub(super) fn geocentric_loop(julian_days: &[f64], delta_t: f64, out: &mut GeocentricColumns) {
    let n = julian_days.len();
    let sidereal_time = &mut out.sidereal_time[..n];
    let right_ascension = &mut out.right_ascension[..n];
    let declination = &mut out.declination[..n];
    for i in 0..n {
        let sun = geocentric_sun::<FastMath>(julian_days[i], delta_t);
        sidereal_time[i] = sun.sidereal_time;
        right_ascension[i] = sun.right_ascension;
        declination[i] = sun.declination;
    }
}

/// `geocentric_loop` compiled for AVX2; callers must check that the processor has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn geocentric_avx2(julian_days: &[f64], delta_t: f64, out: &mut GeocentricColumns) {
    geocentric_loop(julian_days, delta_t, out);
}

/// `geocentric_loop` compiled for AVX-512F; callers must check that the processor has it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(super) fn geocentric_avx512(julian_days: &[f64], delta_t: f64, out: &mut GeocentricColumns) {
    geocentric_loop(julian_days, delta_t, out);
}

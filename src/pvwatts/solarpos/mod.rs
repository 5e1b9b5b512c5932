//! Solar position and sunrise/sunset exactly as NREL SSC's `solarpos_spa` computes them.
//!
//! SSC's "SPA" is a hybrid: the time scales, nutation-free sidereal time, heliocentric latitude,
//! topocentric correction and refraction follow the NREL Solar Position Algorithm (Reda & Andreas,
//! 2004, NREL/TP-560-34302), while the heliocentric longitude, nutation in longitude and obliquity
//! are the SG2 fits (Blanc & Wald, 2012, Solar Energy 86). Two SG2 constants given in radians are
//! used as degrees (aberration and equatorial parallax), which moves the result by about 0.005°
//! from the true SPA. PVWatts v5 numbers are only reproduced with these quirks, so they are kept.
//!
//! Two precisions (`Precision`): `Fast` evaluates the elementary functions branch-free
//! (`mathfn`, within 1–3 ulp of the C library) so that loops over instants vectorise; `Exact`
//! calls the C library as SSC does, so positions are bit-identical to SSC's. Single-axis trackers
//! need `Exact`: their rotation goes through acos(cos R), which near R = 0 turns a last-bit
//! difference of the sun position into 1e-5 W of AC power.
//!
//! Reference: SSC `shared/lib_irradproc.cpp`, `solarpos_spa`, `calculate_spa`,
//! `calculate_eot_and_sun_rise_transit_set` and `julian_day`.

use super::angles::{DEG_TO_RAD, RAD_TO_DEG};
use crate::calendar::ssc_365_day::{day_of_year_365, next_day_365};
use super::mathfn;
use std::f64::consts::PI;
use std::sync::OnceLock;

mod geocentric;
mod positions;
use geocentric::*;
pub use positions::*;

/// Where the sun is observed from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observer {
    /// Latitude, degrees north (−90…90).
    pub latitude: f64,
    /// Longitude, degrees east (−180…180).
    pub longitude: f64,
    /// Time zone of the time stamps, hours east of UTC (e.g. −5 for US Eastern standard time).
    pub tz: f64,
    /// Elevation above sea level, m (negative values are treated as 0 by the caller).
    pub elevation: f64,
}

/// Sun position for one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SunPosition {
    /// Refraction-corrected topocentric zenith angle, radians, clamped to [0, π].
    pub zenith: f64,
    /// Topocentric azimuth, radians east of north, [0, 2π).
    pub azimuth: f64,
    /// sin and cos of the zenith angle.
    pub sin_zenith: f64,
    pub cos_zenith: f64,
    /// Extraterrestrial irradiance on a horizontal surface, W/m² (0 when the sun is down).
    pub extraterrestrial_horizontal: f64,
}

/// Sunrise and sunset of one date as `solarpos_spa` reports them, local standard hours.
///
/// Polar day is reported as sunrise −100, sunset 100; polar night as sunrise 100, sunset −100.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SunriseSunset {
    /// Sunrise, local standard hours.
    pub sunrise: f64,
    /// Sunset, local standard hours (may exceed 24 when the sun sets after midnight).
    pub sunset: f64,
}

/// Sunrise value that marks a polar day (the sun never sets).
pub const POLAR_DAY_SUNRISE: f64 = -100.0;
/// Sunset value that marks a polar day.
pub const POLAR_DAY_SUNSET: f64 = 100.0;
/// Sunrise value that marks a polar night (the sun never rises).
pub const POLAR_NIGHT_SUNRISE: f64 = 100.0;
/// Sunset value that marks a polar night.
pub const POLAR_NIGHT_SUNSET: f64 = -100.0;

/// Sun elevation at sunrise and sunset, degrees (refraction plus solar radius, SPA appendix A.2).
const RISE_SET_ELEVATION_DEG: f64 = -0.8333;
/// ΔT used by SSC for the sidereal time of the rise/set computation, seconds.
const RISE_SET_SIDEREAL_DELTA_T: f64 = 67.0;
/// SG2 aberration correction, radians in SG2, applied as degrees by SSC.
const ABERRATION_AS_DEGREES: f64 = -9.933735e-5;
/// SG2 equatorial horizontal parallax, radians in SG2, applied as degrees by SSC.
const PARALLAX_AS_DEGREES: f64 = 4.263521e-5;
/// Solar constant used for the extraterrestrial irradiance, W/m².
const SOLAR_CONSTANT: f64 = 1367.0;

/// How the elementary functions of the position formulas are evaluated (see the module note).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// Branch-free functions within 1–3 ulp of the C library; loops over instants vectorise.
    Fast,
    /// The C library's functions, as SSC calls them: bit-identical to SSC's positions.
    Exact,
}

/// The elementary functions of the position formulas, in one of the two precisions.
trait SunMath {
    /// cos of a periodic term's argument.
    fn series_cos(x: f64) -> f64;
    fn sin_cos(x: f64) -> (f64, f64);
    fn atan2(y: f64, x: f64) -> f64;
    fn asin(x: f64) -> f64;
    fn tan(x: f64) -> f64;
    /// tan x, given sin x and cos x.
    fn tan_of(x: f64, sin: f64, cos: f64) -> f64;
    /// sin, cos and tan of the (tiny) geocentric latitude, radians.
    fn small_angle_sin_cos_tan(beta: f64) -> (f64, f64, f64);
}

/// `Precision::Fast`.
struct FastMath;
/// `Precision::Exact`.
struct LibmMath;

impl SunMath for FastMath {
    #[inline(always)]
    fn series_cos(x: f64) -> f64 {
        mathfn::fast_cos(x)
    }
    #[inline(always)]
    fn sin_cos(x: f64) -> (f64, f64) {
        mathfn::sin_cos(x)
    }
    #[inline(always)]
    fn atan2(y: f64, x: f64) -> f64 {
        mathfn::atan2(y, x)
    }
    #[inline(always)]
    fn asin(x: f64) -> f64 {
        mathfn::asin(x)
    }
    #[inline(always)]
    fn tan(x: f64) -> f64 {
        mathfn::tan(x)
    }
    #[inline(always)]
    fn tan_of(_x: f64, sin: f64, cos: f64) -> f64 {
        sin / cos
    }
    #[inline(always)]
    fn small_angle_sin_cos_tan(beta: f64) -> (f64, f64, f64) {
        small_angle_sin_cos_tan(beta)
    }
}

impl SunMath for LibmMath {
    fn series_cos(x: f64) -> f64 {
        x.cos()
    }
    fn sin_cos(x: f64) -> (f64, f64) {
        (x.sin(), x.cos())
    }
    fn atan2(y: f64, x: f64) -> f64 {
        y.atan2(x)
    }
    fn asin(x: f64) -> f64 {
        x.asin()
    }
    fn tan(x: f64) -> f64 {
        x.tan()
    }
    fn tan_of(x: f64, _sin: f64, _cos: f64) -> f64 {
        x.tan()
    }
    fn small_angle_sin_cos_tan(beta: f64) -> (f64, f64, f64) {
        (beta.sin(), beta.cos(), beta.tan())
    }
}

/// Julian day of the SG2 time origin, 1980-01-01 00:00 TT.
const SG2_EPOCH_JD: f64 = 2444239.5;
/// Julian day of J2000.0.
const J2000_JD: f64 = 2451545.0;

/// ΔT = TT − UT in seconds for a calendar year, as tabulated in SSC (polynomial fits per era,
/// 66.7 s outside 1961–2050).
pub fn delta_t(year: i32) -> f64 {
    if (1961..=1986).contains(&year) {
        let t = f64::from(year - 1975);
        45.45 + 1.067 * t - t.powi(2) / 260.0 - t.powi(3) / 718.0
    } else if (1987..=2005).contains(&year) {
        let t = f64::from(year - 2000);
        63.86 + 0.3345 * t - 0.060374 * t.powi(2) + 0.0017275 * t.powi(3) + 0.000651814 * t.powi(4)
    } else if (2006..=2050).contains(&year) {
        let t = f64::from(year - 2000);
        62.92 + 0.32217 * t + 0.005589 * t.powi(2)
    } else {
        66.7
    }
}

/// Julian day (UT) of a local standard time (SPA eq. 4). `minute` is a whole number of minutes:
/// SSC passes it as an integer, so callers truncate fractional minutes.
pub fn julian_day(year: i32, month: i32, day: i32, hour: i32, minute: i32, tz: f64) -> f64 {
    JulianDate::new(year, month, day).at(hour, minute, tz)
}

/// The calendar terms of the Julian day of one date (SPA eq. 4), so that many instants of a date
/// share them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JulianDate {
    /// Day of the month.
    day: f64,
    /// INT(365.25·(Y + 4716)) + INT(30.6001·(M + 1)), with January and February counted as months
    /// 13 and 14 of the year before.
    days_before: f64,
    /// Gregorian correction 2 − A + INT(A/4), A = INT(Y/100), applied after 1582-10-15.
    gregorian_correction: f64,
}

impl JulianDate {
    /// The terms of a date.
    pub fn new(year: i32, month: i32, day: i32) -> Self {
        let (year, month) = if month < 3 {
            (year - 1, month + 12)
        } else {
            (year, month)
        };
        let year_days = (365.25 * (f64::from(year) + 4716.0)) as i32;
        let month_days = (30.6001 * f64::from(month + 1)) as i32;
        let century = year / 100;
        JulianDate {
            day: f64::from(day),
            days_before: f64::from(year_days + month_days),
            gregorian_correction: f64::from(2 - century + century / 4),
        }
    }

    /// Julian day (UT) of `hour:minute` local standard time in time zone `tz` (hours east of UTC).
    pub fn at(&self, hour: i32, minute: i32, tz: f64) -> f64 {
        let day_decimal = self.day + (f64::from(hour) - tz + f64::from(minute) / 60.0) / 24.0;
        let jd = self.days_before + day_decimal - 1524.5;
        if jd > 2299160.0 {
            jd + self.gregorian_correction
        } else {
            jd
        }
    }
}

/// Reduce an angle to [0, 360) degrees.
#[inline(always)]
fn limit_degrees(degrees: f64) -> f64 {
    let turns = degrees / 360.0;
    let limited = 360.0 * (turns - mathfn::floor(turns));
    if limited < 0.0 {
        limited + 360.0
    } else {
        limited
    }
}

/// Reduce an angle to [0, 180) degrees.
#[inline(always)]
fn limit_degrees_180(degrees: f64) -> f64 {
    let half_turns = degrees / 180.0;
    let limited = 180.0 * (half_turns - mathfn::floor(half_turns));
    if limited < 0.0 {
        limited + 180.0
    } else {
        limited
    }
}

/// Reduce an angle to [−180, 180] degrees.
#[inline(always)]
fn limit_degrees_pm180(degrees: f64) -> f64 {
    let turns = degrees / 360.0;
    let limited = 360.0 * (turns - mathfn::floor(turns));
    if limited < -180.0 {
        limited + 360.0
    } else if limited > 180.0 {
        limited - 360.0
    } else {
        limited
    }
}

/// Fractional part in [0, 1).
#[inline(always)]
fn limit_zero_to_one(value: f64) -> f64 {
    let limited = value - mathfn::floor(value);
    if limited < 0.0 {
        limited + 1.0
    } else {
        limited
    }
}

/// Site constants of the topocentric correction and of the horizon coordinates.
#[derive(Clone, Copy, Debug)]
struct SiteTerms {
    /// sin and cos of the latitude.
    sin_latitude: f64,
    cos_latitude: f64,
    /// Parallax terms x = cos u + E·cos φ/R and y = 0.99664719·sin u + E·sin φ/R (SPA eq. 38–39).
    parallax_x: f64,
    parallax_y: f64,
}

impl SiteTerms {
    fn new(observer: &Observer) -> Self {
        let latitude = DEG_TO_RAD * observer.latitude;
        let (sin_latitude, cos_latitude) = latitude.sin_cos();
        let u = (0.99664719 * latitude.tan()).atan();
        SiteTerms {
            sin_latitude,
            cos_latitude,
            parallax_x: u.cos() + observer.elevation * cos_latitude / 6378140.0,
            parallax_y: 0.99664719 * u.sin() + observer.elevation * sin_latitude / 6378140.0,
        }
    }
}

/// Atmospheric refraction correction of the elevation angle, degrees (SPA eq. 42). Zero when the
/// sun is more than 0.8334° below the horizon or when the formula is not finite.
#[inline(always)]
fn refraction_correction<M: SunMath>(
    pressure_mbar: f64,
    temperature_c: f64,
    elevation_deg: f64,
) -> f64 {
    const SUN_RADIUS: f64 = 0.26667;
    const HORIZON_REFRACTION: f64 = 0.5667;
    let correction = (pressure_mbar / 1010.0) * (283.0 / (273.0 + temperature_c)) * 1.02
        / (60.0 * M::tan(DEG_TO_RAD * (elevation_deg + 10.3 / (elevation_deg + 5.11))));
    let below_horizon = elevation_deg < -(SUN_RADIUS + HORIZON_REFRACTION);
    if below_horizon || correction.is_nan() {
        0.0
    } else {
        correction
    }
}

/// Extraterrestrial normal irradiance, W/m², for a day of the year on the 365-day calendar
/// (Duffie & Beckman eq. 1.4.1a with a 1367 W/m² solar constant).
fn extraterrestrial_normal_of_day(day_of_year: u32) -> f64 {
    let day_of_year = f64::from(day_of_year);
    SOLAR_CONSTANT * (1.0 + 0.033 * (360.0 / 365.0 * day_of_year * PI / 180.0).cos())
}

/// Extraterrestrial normal irradiance, W/m², of a date. It depends on the day only, so the 365
/// values are computed once per process and looked up.
fn extraterrestrial_normal(month: u8, day: u8) -> f64 {
    static BY_DAY: OnceLock<[f64; 365]> = OnceLock::new();
    let table = BY_DAY.get_or_init(|| {
        std::array::from_fn(|index| extraterrestrial_normal_of_day(index as u32 + 1))
    });
    let day_of_year = day_of_year_365(month, day);
    match table.get((day_of_year as usize).wrapping_sub(1)) {
        Some(&normal) => normal,
        None => extraterrestrial_normal_of_day(day_of_year),
    }
}

/// Extraterrestrial irradiance on a horizontal surface, W/m², from the normal irradiance and the
/// zenith angle (radians) with its cosine: 0 when the sun is below the horizon.
#[inline(always)]
fn horizontal_projection(normal: f64, zenith: f64, cos_zenith: f64) -> f64 {
    if zenith > 0.0 && zenith < PI / 2.0 {
        normal * cos_zenith
    } else if zenith == 0.0 {
        normal
    } else {
        0.0
    }
}

/// Extraterrestrial irradiance on a horizontal surface, W/m² (Duffie & Beckman eq. 1.4.1a with a
/// 1367 W/m² solar constant, 365-day day-of-year), for a zenith angle in radians.
pub fn extraterrestrial_horizontal(month: u8, day: u8, zenith: f64) -> f64 {
    horizontal_projection(extraterrestrial_normal(month, day), zenith, zenith.cos())
}

/// Sun position of one instant from its Julian day `jd` (UT), ΔT (s), the refraction pressure
/// (mbar) and temperature (°C) and the extraterrestrial normal irradiance of its date (W/m²):
/// the topocentric part of SSC's `solarpos_spa` (SPA steps 3.11–3.15 with SSC's parallax
/// constant). Branch-free, so loops over instants vectorise.
#[inline(always)]
fn topocentric_position<M: SunMath>(
    observer: &Observer,
    site: &SiteTerms,
    jd: f64,
    delta_t: f64,
    pressure_mbar: f64,
    temperature_c: f64,
    extraterrestrial_normal: f64,
) -> SunPosition {
    let sun = geocentric_sun::<M>(jd, delta_t);
    let hour_angle = limit_degrees(sun.sidereal_time + observer.longitude - sun.right_ascension);
    let parallax = DEG_TO_RAD * PARALLAX_AS_DEGREES;
    let (sin_h, cos_h) = M::sin_cos(DEG_TO_RAD * hour_angle);
    let (sin_delta, cos_delta) = M::sin_cos(DEG_TO_RAD * sun.declination);
    let right_ascension_parallax = RAD_TO_DEG * -site.parallax_x * (sin_h / cos_delta) * parallax;
    let declination = RAD_TO_DEG
        * (DEG_TO_RAD * sun.declination
            + (site.parallax_x * cos_h * sin_delta - site.parallax_y * cos_delta) * parallax);
    let topocentric_hour_angle = hour_angle - right_ascension_parallax;

    let declination_rad = DEG_TO_RAD * declination;
    let (sin_dec, cos_dec) = M::sin_cos(declination_rad);
    let (sin_ha, cos_ha) = M::sin_cos(DEG_TO_RAD * topocentric_hour_angle);
    let elevation_uncorrected = RAD_TO_DEG
        * M::asin(site.sin_latitude * sin_dec + site.cos_latitude * cos_dec * cos_ha);
    let elevation = (elevation_uncorrected
        + refraction_correction::<M>(pressure_mbar, temperature_c, elevation_uncorrected))
    .clamp(-90.0, 90.0);
    let zenith = (DEG_TO_RAD * (90.0 - elevation)).clamp(0.0, PI);

    let tan_declination = M::tan_of(declination_rad, sin_dec, cos_dec) * site.cos_latitude;
    let azimuth_from_south = limit_degrees(
        RAD_TO_DEG * M::atan2(sin_ha, cos_ha * site.sin_latitude - tan_declination),
    );
    let azimuth = DEG_TO_RAD * limit_degrees(azimuth_from_south + 180.0);

    let (sin_zenith, cos_zenith) = M::sin_cos(zenith);
    SunPosition {
        zenith,
        azimuth,
        sin_zenith,
        cos_zenith,
        extraterrestrial_horizontal: horizontal_projection(
            extraterrestrial_normal,
            zenith,
            cos_zenith,
        ),
    }
}

/// Sun hour angle at sunrise/sunset, degrees in [0, 180] (SPA eq. A.2 with SSC's handling:
/// 180 when the sun never sets, 0 when it never rises).
fn rise_set_hour_angle(site: &SiteTerms, declination_deg: f64) -> f64 {
    let declination = DEG_TO_RAD * declination_deg;
    let argument = ((DEG_TO_RAD * RISE_SET_ELEVATION_DEG).sin()
        - site.sin_latitude * declination.sin())
        / (site.cos_latitude * declination.cos());
    if argument.abs() <= 1.0 {
        limit_degrees_180(RAD_TO_DEG * argument.acos())
    } else if argument < -1.0 {
        RAD_TO_DEG * PI
    } else {
        0.0
    }
}

/// Interpolate right ascension or declination at day fraction `n` from the values of the day
/// before, the day and the day after (SPA eq. A.10/A.11 with SSC's wrap handling).
fn interpolate_three_days(n: f64, values: [f64; 3]) -> f64 {
    let mut a = values[1] - values[0];
    let mut b = values[2] - values[1];
    if a.abs() >= 2.0 {
        a = limit_zero_to_one(a);
    }
    if b.abs() >= 2.0 {
        b = limit_zero_to_one(b);
    }
    values[1] + n * (a + b + (b - a) * n) / 2.0
}

/// Result of the sunrise/transit/sunset computation for one date.
struct RiseSetHours {
    /// Hour angle at rise/set, degrees (180: polar day, 0: polar night).
    hour_angle: f64,
    /// Sunrise, local standard hours in [0, 24) (NaN when the sun never rises).
    sunrise: f64,
    /// Sunset, local standard hours in [0, 24) (NaN when the sun never rises).
    sunset: f64,
}

/// Geocentric sun coordinates at 0 h UT of a set of days, with ΔT = 0 and with the ΔT of the
/// sidereal-time reference of the sunrise/sunset computation (`RISE_SET_SIDEREAL_DELTA_T`): the
/// evaluations that sunrise and sunset of those days and their neighbours need, computed in one
/// vectorised pass (`geocentric_loop`) instead of one by one.
#[derive(Clone, Debug, Default)]
struct DailyGeocentric {
    /// Julian days (UT, at 0 h, so x.5), increasing.
    julian_days: Vec<f64>,
    /// `GeocentricSun` at each day with ΔT = 0, as columns.
    at_zero_delta_t: GeocentricColumns,
    /// `GeocentricSun` at each day with ΔT = `RISE_SET_SIDEREAL_DELTA_T`, as columns.
    at_sidereal_delta_t: GeocentricColumns,
}

impl DailyGeocentric {
    /// The evaluations for the sunrise and sunset of `dates` (year, month, day): each date and the
    /// days before and after it.
    fn for_dates(dates: &[(i32, i32, i32)], precision: Precision) -> Self {
        let mut julian_days: Vec<f64> = dates
            .iter()
            .flat_map(|&(year, month, day)| {
                let jd0 = julian_day(year, month, day, 0, 0, 0.0);
                [jd0 - 1.0, jd0, jd0 + 1.0]
            })
            .collect();
        julian_days.sort_by(f64::total_cmp);
        julian_days.dedup();
        DailyGeocentric {
            at_zero_delta_t: GeocentricColumns::compute(&julian_days, 0.0, precision),
            at_sidereal_delta_t: GeocentricColumns::compute(
                &julian_days,
                RISE_SET_SIDEREAL_DELTA_T,
                precision,
            ),
            julian_days,
        }
    }

    /// The precomputed `geocentric_sun(jd, delta_t)`, if there is one.
    fn get(&self, jd: f64, delta_t: f64) -> Option<GeocentricSun> {
        let columns = if delta_t == 0.0 {
            &self.at_zero_delta_t
        } else if delta_t == RISE_SET_SIDEREAL_DELTA_T {
            &self.at_sidereal_delta_t
        } else {
            return None;
        };
        let index = self
            .julian_days
            .binary_search_by(|day| day.total_cmp(&jd))
            .ok()?;
        Some(columns.get(index))
    }
}

/// Solar position calculator for one observer: SSC's `solarpos_spa`, with the site constants
/// computed once and, after `prepare_dates`, the geocentric evaluations of the sunrise/sunset of
/// those dates computed together (identical inputs give identical results, so this does not
/// change any value).
#[derive(Clone, Debug)]
pub struct SolarCalculator {
    observer: Observer,
    site: SiteTerms,
    daily: DailyGeocentric,
    precision: Precision,
}

impl SolarCalculator {
    /// A calculator for `observer` in `Precision::Fast`.
    pub fn new(observer: Observer) -> Self {
        Self::with_precision(observer, Precision::Fast)
    }

    /// A calculator for `observer` evaluating its functions in `precision`.
    pub fn with_precision(observer: Observer, precision: Precision) -> Self {
        SolarCalculator {
            observer,
            site: SiteTerms::new(&observer),
            daily: DailyGeocentric::default(),
            precision,
        }
    }

    /// Computes ahead, in one vectorised pass, what `sunrise_sunset` needs for each of `dates`
    /// (year, month, day), so that calling it for those dates afterwards is cheaper.
    pub fn prepare_dates(&mut self, dates: &[(i32, i32, i32)]) {
        self.daily = DailyGeocentric::for_dates(dates, self.precision);
    }

    /// The observer of this calculator.
    pub fn observer(&self) -> &Observer {
        &self.observer
    }

    /// Geocentric sun at the start (0 h UT) of day `jd` with ΔT = `delta_t`, precomputed by
    /// `prepare_dates` where possible.
    fn geocentric_at_day_start(&self, jd: f64, delta_t: f64) -> GeocentricSun {
        self.daily.get(jd, delta_t).unwrap_or_else(|| match self.precision {
            Precision::Fast => geocentric_sun::<FastMath>(jd, delta_t),
            Precision::Exact => geocentric_sun::<LibmMath>(jd, delta_t),
        })
    }

    /// Sun position at a local standard time (SSC `solarpos_spa`, position part).
    ///
    /// * `minute`: whole minutes (SSC truncates fractional minutes before the Julian day).
    /// * `pressure_mbar`, `temperature_c`: air pressure (mbar) and dry-bulb temperature (°C) for
    ///   the refraction correction.
    ///
    /// The day-of-year used for the extraterrestrial irradiance comes from `month`/`day` on the
    /// 365-day calendar.
    #[allow(clippy::too_many_arguments)]
    pub fn position(
        &self,
        year: i32,
        month: u8,
        day: u8,
        hour: i32,
        minute: i32,
        pressure_mbar: f64,
        temperature_c: f64,
    ) -> SunPosition {
        let jd = julian_day(
            year,
            i32::from(month),
            i32::from(day),
            hour,
            minute,
            self.observer.tz,
        );
        let position = match self.precision {
            Precision::Fast => topocentric_position::<FastMath>,
            Precision::Exact => topocentric_position::<LibmMath>,
        };
        position(
            &self.observer,
            &self.site,
            jd,
            delta_t(year),
            pressure_mbar,
            temperature_c,
            extraterrestrial_normal(month, day),
        )
    }

    /// Sun positions for many instants (`SolarCalculator::position` for each request). The
    /// loop has no calls and no branches, so the compiler evaluates several instants per vector
    /// instruction; on x86-64 the widest version the processor supports (AVX-512F: 8 instants,
    /// AVX2: 4, baseline SSE2: 2) is chosen at run time. They run the same IEEE operations, so
    /// the results are identical (tested).
    /// In `Precision::Exact` the instants are computed one by one with the C library.
    pub fn positions(&self, requests: &PositionRequests) -> SunPositions {
        if self.precision == Precision::Exact {
            return self.exact_positions(requests);
        }
        self.positions_with(InstructionSet::best(), requests)
    }

    /// `positions` in `Precision::Exact`.
    fn exact_positions(&self, requests: &PositionRequests) -> SunPositions {
        let mut out = SunPositions::zeroed(requests.len());
        for i in 0..requests.len() {
            let position = topocentric_position::<LibmMath>(
                &self.observer,
                &self.site,
                requests.julian_day[i],
                requests.delta_t[i],
                requests.pressure_mbar[i],
                requests.temperature_c[i],
                requests.extraterrestrial_normal[i],
            );
            out.zenith[i] = position.zenith;
            out.azimuth[i] = position.azimuth;
            out.sin_zenith[i] = position.sin_zenith;
            out.cos_zenith[i] = position.cos_zenith;
            out.extraterrestrial_horizontal[i] = position.extraterrestrial_horizontal;
        }
        out
    }

    /// `positions` compiled for `instruction_set`, which the processor must support.
    fn positions_with(
        &self,
        instruction_set: InstructionSet,
        requests: &PositionRequests,
    ) -> SunPositions {
        let mut positions = SunPositions::zeroed(requests.len());
        let (observer, site, out) = (&self.observer, &self.site, &mut positions);
        match instruction_set {
            // SAFETY (both): callers pass only instruction sets the processor supports.
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx512 => unsafe { positions_avx512(observer, site, requests, out) },
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx2 => unsafe { positions_avx2(observer, site, requests, out) },
            _ => positions_loop(observer, site, requests, out),
        }
        positions
    }

    /// Sunrise and sunset of a date (SPA appendix A.2 as approximated in SSC): sidereal time and
    /// the test declination from a ΔT = 67 s evaluation at 0 h UT, right ascension and declination
    /// from ΔT = 0 evaluations on the day before, the day and the day after. `delta_t` (s) shifts
    /// the interpolation time.
    fn rise_set_hours(&self, year: i32, month: i32, day: i32, delta_t: f64) -> RiseSetHours {
        let observer = self.observer;
        let jd0 = julian_day(year, month, day, 0, 0, 0.0);
        let reference = self.geocentric_at_day_start(jd0, RISE_SET_SIDEREAL_DELTA_T);
        let days = [-1.0, 0.0, 1.0].map(|offset| self.geocentric_at_day_start(jd0 + offset, 0.0));
        let right_ascensions = days.map(|d| d.right_ascension);
        let declinations = days.map(|d| d.declination);

        let transit = (right_ascensions[1] - observer.longitude - reference.sidereal_time) / 360.0;
        let hour_angle = rise_set_hour_angle(&self.site, reference.declination);
        if hour_angle <= 0.0 {
            return RiseSetHours {
                hour_angle,
                sunrise: f64::NAN,
                sunset: f64::NAN,
            };
        }

        let hour_angle_fraction = hour_angle / 360.0;
        let mut times = [
            limit_zero_to_one(transit),
            limit_zero_to_one(transit - hour_angle_fraction),
            limit_zero_to_one(transit + hour_angle_fraction),
        ];
        if times[2] + observer.tz / 24.0 < 0.0 && times[2] + 1.0 + observer.tz / 24.0 < 1.0 {
            times[2] += 1.0;
        }

        let site = self.site;
        let local_hours = |i: usize| {
            let sidereal = reference.sidereal_time + 360.985647 * times[i];
            let n = times[i] + delta_t / 86400.0;
            let right_ascension = interpolate_three_days(n, right_ascensions);
            let declination = DEG_TO_RAD * interpolate_three_days(n, declinations);
            let local_hour_angle =
                DEG_TO_RAD * limit_degrees_pm180(sidereal + observer.longitude - right_ascension);
            let altitude = RAD_TO_DEG
                * (site.sin_latitude * declination.sin()
                    + site.cos_latitude * declination.cos() * local_hour_angle.cos())
                .asin();
            let day_fraction = times[i]
                + (altitude - RISE_SET_ELEVATION_DEG)
                    / (360.0 * declination.cos() * site.cos_latitude * local_hour_angle.sin());
            24.0 * limit_zero_to_one(day_fraction + observer.tz / 24.0)
        };
        RiseSetHours {
            hour_angle,
            sunrise: local_hours(1),
            sunset: local_hours(2),
        }
    }

    /// Sunrise and sunset of a date in local standard hours, as SSC's `solarpos_spa` reports
    /// them.
    ///
    /// When the sunset of the date falls before its sunrise (the sun sets after midnight), the
    /// sunset of the next day plus 24 h is returned. Polar day gives (−100, 100). Polar night gives
    /// (100, −100); SSC intends this value but, through a slot mix-up, actually returns an
    /// uninitialised sunset there, so no reference exists for that case.
    pub fn sunrise_sunset(&self, year: i32, month: i32, day: i32) -> SunriseSunset {
        let delta_t_year = delta_t(year);
        let today = self.rise_set_hours(year, month, day, delta_t_year);
        if today.hour_angle <= 0.0 {
            return SunriseSunset {
                sunrise: POLAR_NIGHT_SUNRISE,
                sunset: POLAR_NIGHT_SUNSET,
            };
        }
        if today.hour_angle == 180.0 {
            return SunriseSunset {
                sunrise: POLAR_DAY_SUNRISE,
                sunset: POLAR_DAY_SUNSET,
            };
        }
        let mut sunset = today.sunset;
        if today.sunset < today.sunrise {
            let (next_year, next_month, next_day) = next_day_365(year, month, day);
            sunset = self
                .rise_set_hours(next_year, next_month, next_day, delta_t_year)
                .sunset
                + 24.0;
        }
        SunriseSunset {
            sunrise: today.sunrise,
            sunset,
        }
    }
}

/// Sun position at a local standard time for `observer`; see `SolarCalculator::position`.
#[allow(clippy::too_many_arguments)]
pub fn sun_position(
    year: i32,
    month: u8,
    day: u8,
    hour: i32,
    minute: i32,
    observer: &Observer,
    pressure_mbar: f64,
    temperature_c: f64,
) -> SunPosition {
    SolarCalculator::new(*observer).position(
        year,
        month,
        day,
        hour,
        minute,
        pressure_mbar,
        temperature_c,
    )
}

/// Sunrise and sunset of a date for `observer`; see `SolarCalculator::sunrise_sunset`.
pub fn sunrise_sunset(year: i32, month: i32, day: i32, observer: &Observer) -> SunriseSunset {
    SolarCalculator::new(*observer).sunrise_sunset(year, month, day)
}

#[cfg(test)]
mod tests;

//! The sun's position evaluated operation by operation as SSC's `solarpos_spa` evaluates it (C
//! library calls in SSC's order), for the one case where the last bit of the position decides
//! the result: single-axis trackers with a horizontal axis.
//!
//! For a horizontal axis the surface tilt is acos(cos R) for rotation R, and the surface azimuth
//! is asin(sin R / sin(tilt)) + axis azimuth with an argument that is ±1 up to rounding. Both are
//! ill-conditioned (an ulp in R moves the azimuth by up to 1e-8 rad, and around solar noon the
//! tilt itself by 1e-8 rad), so the few-ulp differences of the engine's vectorised sun path
//! (`solarpos`, built for speed) show up in the plane-of-array irradiance at the 1e-5 W/m² level.
//! With the sun placed exactly where SSC places it, the tracker geometry (shared with v5, which
//! follows SSC's operations) gives SSC's bits. It costs about 1 µs per sun-up hour and is used
//! only for those trackers (see `engine`).
//!
//! The algorithm is the one documented in `solarpos` (NREL SPA with SSC's SG2 fits and quirks).
//!
//! References: Reda & Andreas (2004), Solar Position Algorithm for Solar Radiation Applications,
//! NREL/TP-560-34302; Blanc & Wald (2012), The SG2 algorithm for a fast and accurate computation
//! of the position of the Sun, Solar Energy 86; SSC `shared/lib_irradproc.cpp` (`calculate_spa`,
//! `solarpos_spa`, `julian_day`).

use crate::pvwatts::angles::{DEG_TO_RAD, RAD_TO_DEG};
use crate::pvwatts::incidence::SunDirection;
use crate::pvwatts::solarpos::{
    delta_t, extraterrestrial_horizontal, julian_day, Observer, SolarCalculator,
};
use crate::pvwatts::sunpath::{
    classify_step, daylight_window, observer_of, SunPath, SunUp, STANDARD_PRESSURE_MBAR,
};
use crate::pvwatts::weather::Weather;
use std::f64::consts::PI;

/// Temperature SSC assumes for refraction before the weather gives one, °C.
const STANDARD_TEMPERATURE_C: f64 = 15.0;
/// Pressures at or below this (mbar) are not used for refraction.
const MIN_PLAUSIBLE_PRESSURE_MBAR: f64 = 800.0;

/// SG2 heliocentric longitude terms: (frequency 1/day, amplitude rad, phase rad).
const LONGITUDE_TERMS: [(f64, f64, f64); 10] = [
    (1.0 / 365.261278, 3.401508e-2, 1.600780),
    (1.0 / 182.632412, 3.486440e-4, 1.662976),
    (1.0 / 29.530634, 3.136227e-5, -1.195905),
    (1.0 / 399.529850, 3.578979e-5, -1.042052),
    (1.0 / 291.956812, 2.676185e-5, 2.012613),
    (1.0 / 583.598201, 2.333925e-5, -2.867714),
    (1.0 / 4652.629372, 1.221214e-5, 1.225038),
    (1.0 / 1450.236684, 1.217941e-5, -0.828601),
    (1.0 / 199.459709, 1.343914e-5, -3.108253),
    (1.0 / 365.355291, 8.499475e-4, -2.353709),
];
/// SPA heliocentric latitude terms B0 and B1 (A, B, C).
const LATITUDE_TERMS_0: [(f64, f64, f64); 5] = [
    (280.0, 3.199, 84334.662),
    (102.0, 5.422, 5507.553),
    (80.0, 3.88, 5223.69),
    (44.0, 3.7, 2352.87),
    (32.0, 4.0, 1577.34),
];
const LATITUDE_TERMS_1: [(f64, f64, f64); 2] = [(9.0, 3.9, 5507.55), (6.0, 1.73, 5223.69)];

/// Reduce an angle to [0, 360) degrees as SSC's `limit_degrees`.
fn limit_degrees(degrees: f64) -> f64 {
    let turns = degrees / 360.0;
    let limited = 360.0 * (turns - turns.floor());
    if limited < 0.0 {
        limited + 360.0
    } else {
        limited
    }
}

/// Σ A cos(B + C·jme) of one latitude series.
fn periodic_sum(terms: &[(f64, f64, f64)], jme: f64) -> f64 {
    terms
        .iter()
        .fold(0.0, |sum, (a, b, c)| sum + a * (b + c * jme).cos())
}

/// Zenith and azimuth (radians, azimuth east of north) and apparent elevation (radians) of the
/// sun for `observer` at `hour`:`minute` (whole minutes) local standard time, with refraction for
/// `pressure_mbar` and `temperature_c`.
#[allow(clippy::too_many_arguments)]
pub fn exact_sun_position(
    observer: &Observer,
    year: i32,
    month: u8,
    day: u8,
    hour: i32,
    minute: i32,
    pressure_mbar: f64,
    temperature_c: f64,
) -> (f64, f64) {
    let jd = julian_day(
        year,
        i32::from(month),
        i32::from(day),
        hour,
        minute,
        observer.tz,
    );
    let jc = (jd - 2451545.0) / 36525.0;
    let jde = jd + delta_t(year) / 86400.0;
    let jme = (jde - 2451545.0) / 36525.0 / 10.0;
    let days_tt = jde - 2444239.5;

    let mut longitude_rad = 1.0 / 58.130101 * days_tt + 1.742145;
    for (frequency, amplitude, phase) in LONGITUDE_TERMS {
        longitude_rad += amplitude * (2.0 * PI * frequency * days_tt - phase).cos();
    }
    let heliocentric_longitude = limit_degrees(RAD_TO_DEG * longitude_rad);
    let latitude_sums = [
        periodic_sum(&LATITUDE_TERMS_0, jme),
        periodic_sum(&LATITUDE_TERMS_1, jme),
    ];
    let mut latitude_series = 0.0;
    for (i, sum) in latitude_sums.iter().enumerate() {
        latitude_series += sum * jme.powi(i as i32);
    }
    latitude_series /= 1.0e8;
    let heliocentric_latitude = RAD_TO_DEG * latitude_series;

    let mut theta = heliocentric_longitude + 180.0;
    if theta >= 360.0 {
        theta -= 360.0;
    }
    let beta = -heliocentric_latitude;
    let nutation =
        RAD_TO_DEG * 8.329092e-5 * (2.0 * PI * (1.0 / 6791.164405) * days_tt - -2.052757).cos();
    let epsilon = RAD_TO_DEG
        * (4.456183e-5 * (2.0 * PI * (1.0 / 6791.164405) * days_tt - 2.660352).cos()
            + -6.216374e-9 * days_tt
            + 4.091383e-1);
    let lambda = theta + nutation + -9.933735e-5;
    let sidereal_mean = limit_degrees(
        280.46061837
            + 360.98564736629 * (jd - 2451545.0)
            + jc * jc * (0.000387933 - jc / 38710000.0),
    );
    let sidereal = sidereal_mean + nutation * (DEG_TO_RAD * epsilon).cos();

    let lambda_rad = DEG_TO_RAD * lambda;
    let epsilon_rad = DEG_TO_RAD * epsilon;
    let right_ascension = limit_degrees(
        RAD_TO_DEG
            * (lambda_rad.sin() * epsilon_rad.cos()
                - (DEG_TO_RAD * beta).tan() * epsilon_rad.sin())
            .atan2(lambda_rad.cos()),
    );
    let beta_rad = DEG_TO_RAD * beta;
    let declination = RAD_TO_DEG
        * (beta_rad.sin() * epsilon_rad.cos()
            + beta_rad.cos() * epsilon_rad.sin() * (DEG_TO_RAD * lambda).sin())
        .asin();
    let hour_angle = limit_degrees(sidereal + observer.longitude - right_ascension);

    let latitude_rad = DEG_TO_RAD * observer.latitude;
    let parallax_rad = DEG_TO_RAD * 4.263521e-5;
    let hour_angle_rad = DEG_TO_RAD * hour_angle;
    let declination_rad = DEG_TO_RAD * declination;
    let u = (0.99664719 * latitude_rad.tan()).atan();
    let y = 0.99664719 * u.sin() + observer.elevation * latitude_rad.sin() / 6378140.0;
    let x = u.cos() + observer.elevation * latitude_rad.cos() / 6378140.0;
    let right_ascension_parallax =
        RAD_TO_DEG * -x * (hour_angle_rad.sin() / declination_rad.cos()) * parallax_rad;
    let topocentric_declination = RAD_TO_DEG
        * (declination_rad
            + (x * hour_angle_rad.cos() * declination_rad.sin() - y * declination_rad.cos())
                * parallax_rad);
    let topocentric_hour_angle = hour_angle - right_ascension_parallax;

    let topocentric_declination_rad = DEG_TO_RAD * topocentric_declination;
    let elevation_uncorrected = RAD_TO_DEG
        * (latitude_rad.sin() * topocentric_declination_rad.sin()
            + latitude_rad.cos()
                * topocentric_declination_rad.cos()
                * (DEG_TO_RAD * topocentric_hour_angle).cos())
        .asin();
    let mut refraction = 0.0;
    if elevation_uncorrected >= -(0.26667 + 0.5667) {
        refraction = (pressure_mbar / 1010.0) * (283.0 / (273.0 + temperature_c)) * 1.02
            / (60.0
                * (DEG_TO_RAD * (elevation_uncorrected + 10.3 / (elevation_uncorrected + 5.11)))
                    .tan());
    }
    if refraction.is_nan() {
        refraction = 0.0;
    }
    let elevation = (elevation_uncorrected + refraction).clamp(-90.0, 90.0);
    let zenith_deg = 90.0 - elevation;

    let topocentric_hour_angle_rad = DEG_TO_RAD * topocentric_hour_angle;
    let azimuth_astronomical = limit_degrees(
        RAD_TO_DEG
            * topocentric_hour_angle_rad.sin().atan2(
                topocentric_hour_angle_rad.cos() * latitude_rad.sin()
                    - (DEG_TO_RAD * topocentric_declination).tan() * latitude_rad.cos(),
            ),
    );
    let azimuth_deg = limit_degrees(azimuth_astronomical + 180.0);
    let zenith = (DEG_TO_RAD * zenith_deg).clamp(0.0, PI);
    (zenith, DEG_TO_RAD * azimuth_deg)
}

/// The sun of one sun-up record: its direction and the extraterrestrial irradiance on the
/// horizontal, W/m².
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactSun {
    pub direction: SunDirection,
    pub extraterrestrial_horizontal: f64,
}

/// Pressure (mbar) and temperature (°C) SSC's v8 uses for refraction in each record: its irradiance
/// processor lives for the whole simulation and keeps the last plausible pressure (above 800 mbar)
/// and the last known temperature when a record has none (v5 starts from 1013.25 mbar and 15 °C
/// in every record, as `sunpath` does).
fn carried_refraction_inputs(weather: &Weather) -> Vec<(f64, f64)> {
    let mut pressure = STANDARD_PRESSURE_MBAR;
    let mut temperature = STANDARD_TEMPERATURE_C;
    (0..weather.len())
        .map(|i| {
            if let Some(values) = &weather.pressure {
                if !values[i].is_nan() && values[i] > MIN_PLAUSIBLE_PRESSURE_MBAR {
                    pressure = values[i];
                }
            }
            if !weather.tdry[i].is_nan() {
                temperature = weather.tdry[i];
            }
            (pressure, temperature)
        })
        .collect()
}

/// Whether `sunpath` gave record `i` the refraction inputs SSC's v8 gives it.
fn same_refraction_as_sun_path(weather: &Weather, i: usize, carried: (f64, f64)) -> bool {
    let own_pressure = match &weather.pressure {
        Some(values) if values[i] > MIN_PLAUSIBLE_PRESSURE_MBAR => values[i],
        _ => STANDARD_PRESSURE_MBAR,
    };
    let own_temperature = if weather.tdry[i].is_nan() {
        STANDARD_TEMPERATURE_C
    } else {
        weather.tdry[i]
    };
    own_pressure.to_bits() == carried.0.to_bits()
        && own_temperature.to_bits() == carried.1.to_bits()
}

/// SSC's sun for the sun-up records that need it, in the order of `sun_path`'s positions: every
/// record when `every_record` (horizontal-axis trackers), otherwise only the records whose
/// refraction inputs differ between v5's rule (`sunpath`) and v8's (missing or implausible
/// pressure or temperature). `None` when no record needs it.
pub fn exact_up_positions(
    weather: &Weather,
    sun_path: &SunPath,
    every_record: bool,
) -> Option<Vec<Option<ExactSun>>> {
    let carried = carried_refraction_inputs(weather);
    let needed: Vec<usize> = (0..weather.len())
        .filter(|&i| sun_path.sunup[i] != SunUp::Night)
        .collect();
    let wanted = |i: usize| every_record || !same_refraction_as_sun_path(weather, i, carried[i]);
    if !needed.iter().any(|&i| wanted(i)) {
        return None;
    }
    let observer = observer_of(weather);
    let calculator = SolarCalculator::new(observer);
    let interval = (!weather.instantaneous).then_some(1.0);
    let positions = needed
        .iter()
        .map(|&i| {
            if !wanted(i) {
                return None;
            }
            let (year, month, day) = (weather.year[i], weather.month[i], weather.day[i]);
            let (hour, minute) = (i32::from(weather.hour[i]), i32::from(weather.minute[i]));
            let (sun_hour, sun_minute) = match sun_path.sunup[i] {
                SunUp::SunriseHour | SunUp::SunsetHour => {
                    let (sunrise, sunset) =
                        daylight_window(year, i32::from(month), i32::from(day), &calculator);
                    let time = f64::from(hour) + f64::from(minute) / 60.0;
                    let (_, sun_time) = classify_step(time, sunrise, sunset, interval);
                    let whole_hour = sun_time as i32;
                    (
                        whole_hour,
                        ((sun_time - f64::from(whole_hour)) * 60.0) as i32,
                    )
                }
                _ => (hour, minute),
            };
            let (pressure, temperature) = carried[i];
            let (zenith, azimuth) = exact_sun_position(
                &observer,
                year,
                month,
                day,
                sun_hour,
                sun_minute,
                pressure,
                temperature,
            );
            Some(ExactSun {
                direction: SunDirection::new(zenith, azimuth),
                extraterrestrial_horizontal: extraterrestrial_horizontal(month, day, zenith),
            })
        })
        .collect();
    Some(positions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pvwatts::solarpos::sun_position;

    #[test]
    fn agrees_with_the_fast_sun_path_to_a_few_ulp() {
        let observer = Observer {
            latitude: 36.1,
            longitude: -79.95,
            tz: -5.0,
            elevation: 273.0,
        };
        for (month, day, hour) in [(1u8, 15u8, 12), (6, 21, 7), (9, 30, 16), (12, 17, 11)] {
            let fast = sun_position(1990, month, day, hour, 30, &observer, 990.0, 12.0);
            let (zenith, azimuth) =
                exact_sun_position(&observer, 1990, month, day, hour, 30, 990.0, 12.0);
            assert!(
                (zenith - fast.zenith).abs() < 1e-12,
                "{month}/{day} {hour}: {zenith} vs {}",
                fast.zenith
            );
            assert!(
                (azimuth - fast.azimuth).abs() < 1e-12,
                "{month}/{day} {hour}: {azimuth} vs {}",
                fast.azimuth
            );
        }
    }
}

//! Which sun-up records of a v8 simulation need SSC's exact sun position, and that position.
//!
//! Two cases: single-axis trackers with a horizontal axis, whose tilt acos(cos R) and azimuth
//! asin(sin R / sin(tilt)) are ill-conditioned (an ulp in the rotation moves the azimuth by up
//! to 1e-8 rad), so the few-ulp differences of the fast vectorised sun path would show in the
//! plane-of-array irradiance at the 1e-5 W/m² level; and records whose refraction inputs differ
//! between v5's rule (`sunpath`) and v8's, which carries the last plausible pressure and
//! temperature forward. Both take `solarpos` in `Precision::Exact` (the C library's functions in
//! SSC's order, bit-identical to SSC's `solarpos_spa`); it costs about 1 µs per sun-up record.

use crate::pvwatts::incidence::SunDirection;
use crate::pvwatts::solarpos::{Precision, SolarCalculator};
use crate::pvwatts::sunpath::{
    classify_step, daylight_window, hour_and_minute, observer_of, SunPath, SunUp, STANDARD_PRESSURE_MBAR,
};
use crate::pvwatts::weather::Weather;

/// Temperature SSC assumes for refraction before the weather gives one, °C.
const STANDARD_TEMPERATURE_C: f64 = 15.0;
/// Pressures at or below this (mbar) are not used for refraction.
const MIN_PLAUSIBLE_PRESSURE_MBAR: f64 = 800.0;

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
    let exact = SolarCalculator::with_precision(observer, Precision::Exact);
    let interval = (!weather.instantaneous).then_some(1.0);
    let positions = needed
        .iter()
        .map(|&i| {
            if !wanted(i) {
                return None;
            }
            let (year, month, day) = (weather.year[i], weather.month[i], weather.day[i]);
            let (hour, minute) = (weather.hour[i], weather.minute[i]);
            let (sun_hour, sun_minute) = match sun_path.sunup[i] {
                SunUp::SunriseHour | SunUp::SunsetHour => {
                    let (sunrise, sunset) =
                        daylight_window(year, i32::from(month), i32::from(day), &calculator);
                    let time = f64::from(hour) + minute / 60.0;
                    let (_, sun_time) = classify_step(time, sunrise, sunset, interval);
                    hour_and_minute(sun_time)
                }
                // SSC passes whole minutes to the Julian day (7.5 counts as 7).
                _ => (i32::from(hour), minute as i32),
            };
            let (pressure, temperature) = carried[i];
            let position =
                exact.position(year, month, day, sun_hour, sun_minute, pressure, temperature);
            Some(ExactSun {
                direction: SunDirection::new(position.zenith, position.azimuth),
                extraterrestrial_horizontal: position.extraterrestrial_horizontal,
            })
        })
        .collect();
    Some(positions)
}

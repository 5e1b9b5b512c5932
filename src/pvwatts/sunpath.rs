//! Per-hour sun geometry of a weather year, including SSC's sunrise/sunset-hour rule.
//!
//! For hourly data without a minute column (TMY2, TMY3, SAM CSV without minutes) each record
//! stands for the hour hh:00–hh:59 and is labelled hh:30. In the hour that contains sunrise the sun
//! position is taken half way between sunrise and the end of the hour; in the hour that contains
//! sunset, half way between the start of the hour and sunset. Data with a minute column is treated
//! as instantaneous: the sun is placed at the stamped time and no sunrise/sunset rule applies.
//!
//! Reference: SSC `shared/lib_irradproc.cpp`, `irrad::calc` (sun-up classification and the
//! previous/next-day sunrise and sunset fixes).

use crate::calendar::ssc_365_day::{next_day_365, previous_day_365};
use super::solarpos::{
    Observer, PositionRequests, Precision, RequestDate, SolarCalculator, SunPositions,
    POLAR_DAY_SUNRISE, POLAR_DAY_SUNSET,
};
use super::weather::Weather;
use std::ops::Range;

/// Sun-up state of a time step, with SSC's numeric codes (output `sunup`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SunUp {
    /// The sun is down for the whole step.
    Night = 0,
    /// The sun is up for the whole step.
    Day = 1,
    /// The step contains sunrise.
    SunriseHour = 2,
    /// The step contains sunset.
    SunsetHour = 3,
}

/// Pressure used for refraction when the weather has none or an implausible one, mbar.
pub const STANDARD_PRESSURE_MBAR: f64 = 1013.25;
/// Temperature used for refraction when the weather has none, °C.
const STANDARD_TEMPERATURE_C: f64 = 15.0;
/// Pressures at or below this (mbar) are replaced by the standard pressure, as in SSC.
const MIN_PLAUSIBLE_PRESSURE_MBAR: f64 = 800.0;

/// Sun geometry of a weather year.
///
/// Positions are kept only for the records in which the sun is up (about half of them), in
/// record order: a `Weather` keeps its sun path for later simulations, so its size matters.
#[derive(Clone, Debug, PartialEq)]
pub struct SunPath {
    /// How the positions were computed (`Precision::Exact` for single-axis trackers).
    pub precision: Precision,
    /// Sun-up state per record.
    pub sunup: Vec<SunUp>,
    /// Sun position of each record whose state is not `SunUp::Night`, in record order.
    pub up_positions: SunPositions,
}

/// Local standard hours of sunrise and sunset used to classify the hours of a date (SSC
/// `irrad::calc`): a sunset after midnight is replaced by the previous day's early-morning sunset
/// and a sunrise before midnight by the next day's late-evening sunrise, so that both lie in the
/// date's own 0–24 h window where possible.
pub fn daylight_window(
    year: i32,
    month: i32,
    day: i32,
    calculator: &SolarCalculator,
) -> (f64, f64) {
    let today = calculator.sunrise_sunset(year, month, day);
    let mut sunrise = today.sunrise;
    let mut sunset = today.sunset;
    if sunset > 24.0 && sunset != POLAR_DAY_SUNSET {
        let (y, m, d) = previous_day_365(year, month, day);
        let previous_sunset = calculator.sunrise_sunset(y, m, d).sunset;
        if previous_sunset == POLAR_DAY_SUNSET {
            sunset -= 24.0;
        } else if previous_sunset >= 24.0 {
            sunset = previous_sunset - 24.0;
        }
    }
    if sunrise < 0.0 && sunrise != POLAR_DAY_SUNRISE {
        let (y, m, d) = next_day_365(year, month, day);
        let next_sunrise = calculator.sunrise_sunset(y, m, d).sunrise;
        if next_sunrise == POLAR_DAY_SUNRISE {
            sunrise += 24.0;
        } else if next_sunrise < 0.0 {
            sunrise = next_sunrise + 24.0;
        }
    }
    (sunrise, sunset)
}

/// Classify a time step and give the local time (hours) at which the sun position is evaluated.
///
/// * `time`: time stamp of the step, local standard hours (hh:30 for hourly interval data).
/// * `interval_hours`: `Some(step length)` for interval data (sunrise/sunset-hour rule active),
///   `None` for instantaneous data.
pub fn classify_step(
    time: f64,
    sunrise: f64,
    sunset: f64,
    interval_hours: Option<f64>,
) -> (SunUp, f64) {
    if let Some(step) = interval_hours {
        if time >= sunrise - step / 2.0 && time < sunrise + step / 2.0 {
            return (SunUp::SunriseHour, (sunrise + (time + step / 2.0)) / 2.0);
        }
        if time > sunset - step / 2.0 && time <= sunset + step / 2.0 {
            return (SunUp::SunsetHour, ((time - step / 2.0) + sunset) / 2.0);
        }
    }
    let normal_day = sunrise < sunset && time >= sunrise && time <= sunset;
    let wrapped_day = sunrise > sunset && (time <= sunset || time >= sunrise);
    if normal_day || wrapped_day {
        (SunUp::Day, time)
    } else {
        (SunUp::Night, time)
    }
}

/// Split local hours into (whole hour, whole minute), truncating like SSC does.
pub(crate) fn hour_and_minute(time: f64) -> (i32, i32) {
    let hour = time as i32;
    let minute = (time - f64::from(hour)) * 60.0;
    (hour, minute as i32)
}

/// Observer of a weather file: header latitude, longitude and time zone, elevation (negative or
/// missing elevations count as 0 m).
pub fn observer_of(weather: &Weather) -> Observer {
    let meta = &weather.meta;
    let elevation = if meta.elevation >= 0.0 {
        meta.elevation
    } else {
        0.0
    };
    Observer {
        latitude: meta.lat,
        longitude: meta.lon,
        tz: meta.tz,
        elevation,
    }
}

/// Refraction pressure of a record, mbar: the record's pressure when above 800 mbar, otherwise
/// the standard atmosphere.
fn refraction_pressure(weather: &Weather, index: usize) -> f64 {
    match &weather.pressure {
        Some(pressure) if pressure[index] > MIN_PLAUSIBLE_PRESSURE_MBAR => pressure[index],
        _ => STANDARD_PRESSURE_MBAR,
    }
}

/// The dates of a weather's records with the records of each, in record order (a date that comes
/// back after another one starts a new run).
fn date_runs(weather: &Weather) -> Vec<((i32, u8, u8), Range<usize>)> {
    let mut runs: Vec<((i32, u8, u8), Range<usize>)> = Vec::with_capacity(weather.len() / 24 + 1);
    for i in 0..weather.len() {
        let date = (weather.year[i], weather.month[i], weather.day[i]);
        match runs.last_mut() {
            Some((last, records)) if *last == date => records.end = i + 1,
            _ => runs.push((date, i..i + 1)),
        }
    }
    runs
}

impl SunPath {
    /// Compute the sun geometry of every record of `weather`.
    ///
    /// Sunrise and sunset are computed once per date; sun positions only for records in which the
    /// sun is up, all in one `SolarCalculator::positions` call.
    pub fn compute(weather: &Weather, precision: Precision) -> SunPath {
        let mut calculator = SolarCalculator::with_precision(observer_of(weather), precision);
        let records = weather.len();
        let interval_hours = if weather.instantaneous {
            None
        } else {
            Some(1.0)
        };
        let tz = calculator.observer().tz;
        let runs = date_runs(weather);
        let dates: Vec<(i32, i32, i32)> = runs
            .iter()
            .map(|&((year, month, day), _)| (year, i32::from(month), i32::from(day)))
            .collect();
        calculator.prepare_dates(&dates);
        let mut sunup = Vec::with_capacity(records);
        let mut requests = PositionRequests::with_capacity(records);
        for ((year, month, day), records) in runs {
            let (sunrise, sunset) =
                daylight_window(year, i32::from(month), i32::from(day), &calculator);
            let request_date = RequestDate::new(year, month, day);
            for i in records {
                let (hour, minute) = (weather.hour[i], weather.minute[i]);
                let time = f64::from(hour) + minute / 60.0;
                let (state, sun_time) = classify_step(time, sunrise, sunset, interval_hours);
                sunup.push(state);
                let (sun_hour, sun_minute) = match state {
                    SunUp::Night => continue,
                    // SSC passes whole minutes to the Julian day (7.5 counts as 7).
                    SunUp::Day => (i32::from(hour), minute as i32),
                    SunUp::SunriseHour | SunUp::SunsetHour => hour_and_minute(sun_time),
                };
                let temperature = if weather.tdry[i].is_nan() {
                    STANDARD_TEMPERATURE_C
                } else {
                    weather.tdry[i]
                };
                requests.push(
                    &request_date,
                    sun_hour,
                    sun_minute,
                    tz,
                    refraction_pressure(weather, i),
                    temperature,
                );
            }
        }
        SunPath {
            precision,
            sunup,
            up_positions: calculator.positions(&requests),
        }
    }
}

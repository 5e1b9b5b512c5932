//! The pressure and temperature SSC's v8 refracts each record's sun with.
//!
//! SSC's v8 keeps one irradiance processor for the whole run, and two of its side effects decide
//! them:
//!
//! * Carry-over: a record without a plausible pressure (above 800 mbar) or without a temperature
//!   keeps the last ones set (1013.25 mbar and 15 °C before any; `irrad::set_optional`).
//! * The sun-position table: `solarpos_spa` memoises its core (`calculate_spa`, which includes
//!   the refraction) by Julian day, ΔT, pressure rounded to 10 mbar and temperature rounded to
//!   5 °C (`spa_table_key`), and empties the table only when a call's day of the month lies more
//!   than 3 from the day of the last emptying (`roll_spa_table_forward`). Every record first
//!   computes the sun at 12:00 of its date for sunrise and sunset (and at 12:00 of the day before
//!   or after when the sunset falls after midnight or the sunrise before it), then at its own
//!   instant. A record whose instant is its date's noon (12:00, or 11:60 as a 30-minute EPW
//!   writes it) therefore gets the position the first record of the day in the same pressure and
//!   temperature buckets computed: refracted with that record's pressure and temperature. Over a
//!   typical year 260–344 of the 365 noon records are refracted with another record's values
//!   (about 1e-3° of sun elevation).
//!
//! The model replays every `solarpos_spa` call of the run on a table of the inputs each key was
//! first computed with; only those calls can hit (SSC's sunrise calls use ΔT 0 and 67 s, which no
//! record's year has, and their results do not depend on refraction).
//!
//! Reference: SSC `shared/lib_irradproc.cpp` (`spa_table_key`, `solarpos_lookup`,
//! `calculate_spa`, `solarpos_spa`, `irrad::calc`, `irrad::set_optional`).

use std::collections::HashMap;

use crate::calendar::ssc_365_day::{next_day_365, previous_day_365};
use crate::pvwatts::solarpos::{
    delta_t, julian_day, SolarCalculator, POLAR_DAY_SUNRISE, POLAR_DAY_SUNSET,
};
use crate::pvwatts::sunpath::{
    classify_step, daylight_window, hour_and_minute, observer_of, SunPath, SunUp,
    STANDARD_PRESSURE_MBAR,
};
use crate::pvwatts::weather::Weather;

/// Temperature SSC assumes for refraction before the weather gives one, °C.
pub const STANDARD_TEMPERATURE_C: f64 = 15.0;
/// Pressures at or below this (mbar) are not used for refraction.
pub const MIN_PLAUSIBLE_PRESSURE_MBAR: f64 = 800.0;
/// The table is emptied when a call's day of the month is further than this from the day it was
/// last emptied on.
const TABLE_SPAN_DAYS: i32 = 3;
/// Hour of the daily sunrise/sunset call.
const NOON_HOUR: i32 = 12;

/// Pressure (mbar) and temperature (°C) a sun position is refracted with.
pub type RefractionInputs = (f64, f64);

/// SSC's pressure bucket: `(int)(p + 5) / 10` (C truncation toward zero, times 10 in SSC).
fn pressure_bucket(pressure_mbar: f64) -> i32 {
    (pressure_mbar + 5.0) as i32 / 10
}

/// SSC's temperature bucket: `(int)(t + 5 / 2) / 5`; `5 / 2` is an integer division, so 2.
fn temperature_bucket(temperature_c: f64) -> i32 {
    (temperature_c + 2.0) as i32 / 5
}

/// What identifies a memoised sun position (the right ascension and declination SSC also keys
/// on are 0 in every `solarpos_spa` call).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct TableKey {
    julian_day_bits: u64,
    delta_t_bits: u64,
    pressure_bucket: i32,
    temperature_bucket: i32,
}

/// SSC's `solarpos_lookup`, holding for each key the inputs it was first computed with.
struct SunTable {
    emptied_on_day: i32,
    first_inputs: HashMap<TableKey, RefractionInputs>,
}

impl SunTable {
    fn new() -> Self {
        SunTable {
            emptied_on_day: 0,
            first_inputs: HashMap::new(),
        }
    }

    /// One `solarpos_spa` call for a date and time with the processor's current inputs: the
    /// inputs its position is refracted with.
    fn call(
        &mut self,
        date: (i32, i32, i32),
        hour: i32,
        minute: i32,
        tz: f64,
        inputs: RefractionInputs,
    ) -> RefractionInputs {
        let (year, month, day) = date;
        if (self.emptied_on_day - day).abs() > TABLE_SPAN_DAYS {
            self.emptied_on_day = day;
            self.first_inputs.clear();
        }
        let key = TableKey {
            julian_day_bits: julian_day(year, month, day, hour, minute, tz).to_bits(),
            delta_t_bits: delta_t(year).to_bits(),
            pressure_bucket: pressure_bucket(inputs.0),
            temperature_bucket: temperature_bucket(inputs.1),
        };
        *self.first_inputs.entry(key).or_insert(inputs)
    }
}

/// The pressure and temperature SSC's irradiance processor holds in each record (carry-over only).
fn carried_inputs(weather: &Weather) -> Vec<RefractionInputs> {
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

/// What `irrad::calc` computes once per date before its records' own suns.
struct DateCalls {
    date: (i32, i32, i32),
    /// The noon calls, in order: the date itself, then the day before when the sunset falls after
    /// midnight and the day after when the sunrise falls before it.
    noons: Vec<(i32, i32, i32)>,
    /// Sunrise and sunset as the sun-up classification uses them (`daylight_window`).
    window: (f64, f64),
}

impl DateCalls {
    fn new(date: (i32, i32, i32), calculator: &SolarCalculator) -> Self {
        let (year, month, day) = date;
        let today = calculator.sunrise_sunset(year, month, day);
        let mut noons = vec![date];
        if today.sunset > 24.0 && today.sunset != POLAR_DAY_SUNSET {
            noons.push(previous_day_365(year, month, day));
        }
        if today.sunrise < 0.0 && today.sunrise != POLAR_DAY_SUNRISE {
            noons.push(next_day_365(year, month, day));
        }
        DateCalls {
            date,
            noons,
            window: daylight_window(year, month, day, calculator),
        }
    }
}

/// The (hour, whole minute) at which SSC computes record `i`'s own sun: its stamp, or the
/// sunrise/sunset-hour instant of interval data.
pub fn sun_instant(weather: &Weather, i: usize, state: SunUp, window: (f64, f64)) -> (i32, i32) {
    let (hour, minute) = (weather.hour[i], weather.minute[i]);
    match state {
        SunUp::SunriseHour | SunUp::SunsetHour => {
            let interval = (!weather.instantaneous).then_some(1.0);
            let time = f64::from(hour) + minute / 60.0;
            let (_, sun_time) = classify_step(time, window.0, window.1, interval);
            hour_and_minute(sun_time)
        }
        // SSC passes whole minutes to the Julian day (7.5 counts as 7).
        SunUp::Day | SunUp::Night => (i32::from(hour), minute as i32),
    }
}

/// The pressure and temperature each record's own sun is refracted with in SSC's v8.
pub fn refraction_inputs(weather: &Weather, sun_path: &SunPath) -> Vec<RefractionInputs> {
    let calculator = SolarCalculator::new(observer_of(weather));
    let tz = calculator.observer().tz;
    let carried = carried_inputs(weather);
    let mut table = SunTable::new();
    let mut used = Vec::with_capacity(weather.len());
    let mut calls: Option<DateCalls> = None;
    for (i, &inputs) in carried.iter().enumerate() {
        let date = (
            weather.year[i],
            i32::from(weather.month[i]),
            i32::from(weather.day[i]),
        );
        let today = match calls.take() {
            Some(known) if known.date == date => known,
            _ => DateCalls::new(date, &calculator),
        };
        for &noon in &today.noons {
            table.call(noon, NOON_HOUR, 0, tz, inputs);
        }
        let (hour, minute) = sun_instant(weather, i, sun_path.sunup[i], today.window);
        used.push(table.call(date, hour, minute, tz, inputs));
        calls = Some(today);
    }
    used
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pvwatts::solarpos::Precision;
    use crate::pvwatts::test_support::{site, year_columns};

    #[test]
    fn noon_records_take_the_inputs_of_the_first_record_of_the_day_in_their_buckets() {
        // Instants on the hour; the temperature peaks at 19.9 °C around noon, and 10:00 (19.2 °C)
        // is the day's first record in the noon record's 18–23 °C bucket.
        let mut columns = year_columns(false);
        columns.minute = Some(vec![0.0; columns.year.len()]);
        let weather = Weather::from_columns(site(), columns).unwrap();
        let used = refraction_inputs(&weather, &SunPath::compute(&weather, Precision::Fast));
        for (i, &inputs) in used.iter().enumerate() {
            let own = (STANDARD_PRESSURE_MBAR, weather.tdry[i]);
            if weather.hour[i] == 12 {
                let ten = (STANDARD_PRESSURE_MBAR, weather.tdry[i - 2]);
                assert_ne!(ten, own);
                assert_eq!(inputs, ten, "record {i}");
            } else {
                assert_eq!(inputs, own, "record {i}");
            }
        }
    }

    #[test]
    fn buckets_round_as_ssc_casts_to_int() {
        assert_eq!(pressure_bucket(1004.99), 100);
        assert_eq!(pressure_bucket(1005.0), 101);
        assert_eq!(temperature_bucket(2.99), 0);
        assert_eq!(temperature_bucket(3.0), 1);
        // C truncates toward zero, so the bucket around 0 °C is 10 K wide (−7 °C to 3 °C).
        assert_eq!(temperature_bucket(-6.9), 0);
        assert_eq!(temperature_bucket(-7.0), -1);
        assert_eq!(temperature_bucket(-12.0), -2);
    }

    #[test]
    fn a_key_keeps_the_inputs_it_was_first_computed_with_until_the_table_is_emptied() {
        let mut table = SunTable::new();
        let noon = |day| (1990, 6, day);
        assert_eq!(
            table.call(noon(1), 12, 0, -7.0, (1010.0, 21.0)),
            (1010.0, 21.0)
        );
        assert_eq!(
            table.call(noon(1), 12, 0, -7.0, (1012.0, 22.5)),
            (1010.0, 21.0)
        );
        // Another temperature bucket is another key.
        assert_eq!(
            table.call(noon(1), 12, 0, -7.0, (1012.0, 23.5)),
            (1012.0, 23.5)
        );
        // 11:60 is the same instant as 12:00.
        assert_eq!(
            table.call(noon(1), 11, 60, -7.0, (1011.0, 20.0)),
            (1010.0, 21.0)
        );
        // Day 4 lies more than three days from day 0 (the table's start): emptied.
        assert_eq!(
            table.call(noon(4), 12, 0, -7.0, (1011.0, 20.0)),
            (1011.0, 20.0)
        );
        assert_eq!(
            table.call(noon(1), 12, 0, -7.0, (1012.0, 22.5)),
            (1012.0, 22.5)
        );
    }
}

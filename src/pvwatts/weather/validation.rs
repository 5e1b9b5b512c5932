//! The rules every weather year passes, whatever route it came by: plausible values, a site,
//! equal column lengths, one calendar year on a fixed time grid (`Stamps`), stamps in range and
//! finite values. Each refusal names its record and column.

use crate::calendar::ssc_365_day::days_in_month;
use crate::calendar::{is_leap_year, HOURS_PER_LEAP_YEAR, HOURS_PER_YEAR};
use super::{AIR_PRESSURE_RANGE, AIR_TEMPERATURE_RANGE, Column, Field, MAX_IRRADIANCE, Origin, SiteMeta, WIND_SPEED_RANGE, WeatherColumns, WeatherError};

/// The one plausibility rule for weather values, whatever route they came by (a file, bytes, a
/// table, pvlib's frames): irradiance 0–[`MAX_IRRADIANCE`] W/m² (GHI may be missing), air
/// temperature in [`AIR_TEMPERATURE_RANGE`], wind speed in [`WIND_SPEED_RANGE`], air pressure in
/// [`AIR_PRESSURE_RANGE`] (or missing); albedo and snow depth finite or missing. A value outside
/// is refused naming its record and column: a frame in other units (tenths, kelvin, Pa taken as
/// mbar) must never be read silently.
pub(super) fn validate_plausible_values<C: Column>(
    columns: &WeatherColumns<C>,
    origin: &Origin,
) -> Result<(), WeatherError> {
    let within = |(low, high): (f64, f64)| move |v: f64| (low..=high).contains(&v);
    let irradiance = format!("a value between 0 and {MAX_IRRADIANCE} W/m2");
    let global_ok = |v: f64| v.is_nan() || within((0.0, MAX_IRRADIANCE))(v);
    validate_values(&columns.gh, Field::Gh, origin, global_ok, &format!("{irradiance} or empty"))?;
    validate_values(&columns.dn, Field::Dn, origin, within((0.0, MAX_IRRADIANCE)), &irradiance)?;
    validate_values(&columns.df, Field::Df, origin, within((0.0, MAX_IRRADIANCE)), &irradiance)?;
    let (low, high) = AIR_TEMPERATURE_RANGE;
    let temperature = format!("an air temperature from {low} to {high} C");
    validate_values(&columns.tdry, Field::Tdry, origin, within(AIR_TEMPERATURE_RANGE), &temperature)?;
    let (low, high) = WIND_SPEED_RANGE;
    let wind = format!("a wind speed from {low} to {high} m/s");
    validate_values(&columns.wspd, Field::Wspd, origin, within(WIND_SPEED_RANGE), &wind)?;
    if let Some(pressure) = &columns.pressure {
        let (low, high) = AIR_PRESSURE_RANGE;
        let expected = format!("an air pressure from {low} to {high} mbar or empty");
        let pressure_ok = |v: f64| v.is_nan() || within(AIR_PRESSURE_RANGE)(v);
        validate_values(pressure, Field::Pressure, origin, pressure_ok, &expected)?;
    }
    for (values, field) in [(&columns.albedo, Field::Albedo), (&columns.snow_depth, Field::SnowDepth)] {
        if let Some(values) = values {
            validate_values(values, field, origin, |v| !v.is_infinite(), "a finite number or empty")?;
        }
    }
    Ok(())
}

pub(super) fn validate_site(meta: &SiteMeta, origin: &Origin) -> Result<(), WeatherError> {
    for (value, field, low, high, what) in [
        (meta.lat, Field::Latitude, -90.0, 90.0, "latitude"),
        (meta.lon, Field::Longitude, -180.0, 180.0, "longitude"),
        (meta.tz, Field::TimeZone, -15.0, 15.0, "time zone"),
    ] {
        if !(low..=high).contains(&value) {
            return Err(origin.meta_error(
                field,
                format!("{what} must be between {low} and {high}, got {value}"),
            ));
        }
    }
    Ok(())
}

pub(super) fn validate_lengths<C: Column>(
    columns: &WeatherColumns<C>,
    records: usize,
    origin: &Origin,
) -> Result<(), WeatherError> {
    let lengths = [
        (columns.month.len(), Field::Month),
        (columns.day.len(), Field::Day),
        (columns.hour.len(), Field::Hour),
        (
            columns.minute.as_ref().map_or(records, Vec::len),
            Field::Minute,
        ),
        (columns.gh.len(), Field::Gh),
        (columns.dn.len(), Field::Dn),
        (columns.df.len(), Field::Df),
        (columns.tdry.len(), Field::Tdry),
        (columns.wspd.len(), Field::Wspd),
        (
            columns.pressure.as_ref().map_or(records, |c| c.len()),
            Field::Pressure,
        ),
        (
            columns.albedo.as_ref().map_or(records, |c| c.len()),
            Field::Albedo,
        ),
        (
            columns.snow_depth.as_ref().map_or(records, |c| c.len()),
            Field::SnowDepth,
        ),
    ];
    for (length, field) in lengths {
        if length != records {
            return Err(WeatherError::new(
                &origin.file,
                None,
                Some(origin.column_name(field)),
                format!(
                    "has {length} values but '{}' has {records}",
                    origin.column_name(Field::Year)
                ),
            ));
        }
    }
    Ok(())
}

/// The time stamps of the records, as columns.
pub(super) struct Stamps<'a> {
    pub(super) year: &'a [i32],
    pub(super) month: &'a [u8],
    pub(super) day: &'a [u8],
    pub(super) hour: &'a [u8],
    pub(super) minute: &'a [f64],
}

/// Minutes in a day, and in the 366-day calendar the time grid is laid on.
pub(super) const MINUTES_PER_DAY: f64 = 1440.0;

pub(super) const CALENDAR_MINUTES: f64 = 366.0 * MINUTES_PER_DAY;

/// Start of 29 February on the 366-day calendar, minutes.
pub(super) const FEBRUARY_29_START: f64 = 59.0 * MINUTES_PER_DAY;

/// Days before each month on the 366-day calendar (29 February included).
pub(super) const DAYS_BEFORE_MONTH_366: [u16; 12] = [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335];

impl Stamps<'_> {
    /// Position of a record on the 366-day calendar, minutes from 1 January 00:00 (the year is
    /// not part of it: typical years mix years).
    fn position(&self, record: usize) -> f64 {
        let day_of_year = f64::from(DAYS_BEFORE_MONTH_366[usize::from(self.month[record] - 1)])
            + f64::from(self.day[record] - 1);
        day_of_year * MINUTES_PER_DAY + f64::from(self.hour[record]) * 60.0 + self.minute[record]
    }

    /// "m/d hh:mm" of record `record`.
    fn describe(&self, record: usize) -> String {
        describe_stamp(self.month[record], self.day[record], self.hour[record], self.minute[record])
    }
}

/// "m/d hh:mm" (fractional minutes as written, e.g. "1/1 00:07.5").
pub(super) fn describe_stamp(month: u8, day: u8, hour: u8, minute: f64) -> String {
    if minute.fract() == 0.0 {
        format!("{month}/{day} {hour:02}:{:02}", minute as u32)
    } else {
        format!("{month}/{day} {hour:02}:{minute:04.1}")
    }
}

/// (month, day, hour, minute) of a position on the 366-day calendar (minutes from 1 January
/// 00:00; positions past the end of the year stay on 31 December).
pub(super) fn stamp_of_position(position: f64) -> (u8, u8, u8, f64) {
    let day_index = (position / MINUTES_PER_DAY).floor().clamp(0.0, 365.0) as u16;
    let month = DAYS_BEFORE_MONTH_366
        .iter()
        .rposition(|&before| before <= day_index)
        .map_or(1, |m| m + 1);
    let day = day_index - DAYS_BEFORE_MONTH_366[month - 1] + 1;
    let within_day = position - f64::from(day_index) * MINUTES_PER_DAY;
    let hour = (within_day / 60.0).floor();
    (month as u8, day as u8, hour as u8, within_day - hour * 60.0)
}

/// "m/d hh:mm" of a position on the 366-day calendar.
pub(super) fn describe_position(position: f64) -> String {
    let (month, day, hour, minute) = stamp_of_position(position);
    describe_stamp(month, day, hour, minute)
}

/// Checks that the records are one calendar year on a fixed time grid (see the module rules)
/// and returns the number of records per hour. Errors name the first record that breaks a rule.
///
/// Positions on the 366-day calendar are taken modulo its length, so a year may start at any
/// record (a UTC year seen in local time starts on 31 December of the year before and ends
/// before the last local hours): from each record to the next is one step, or one step and a
/// day where the data leave out a day overlapping 29 February (exactly once when there are
/// 8760 records per record-per-hour, never when there are 8784).
pub(super) fn validate_time_grid(stamps: &Stamps<'_>, instantaneous: bool, origin: &Origin) -> Result<u32, WeatherError> {
    let records = stamps.month.len();
    validate_stamp_ranges(stamps, origin)?;
    let (steps, with_leap_day) = if records > 0 && records.is_multiple_of(HOURS_PER_YEAR) {
        (records / HOURS_PER_YEAR, false)
    } else if records > 0 && records.is_multiple_of(HOURS_PER_LEAP_YEAR) {
        (records / HOURS_PER_LEAP_YEAR, true)
    } else {
        let message = format!(
            "expected one year of records (8760, or 8784 with February 29, per record per hour; \
             e.g. 17520 for half-hourly data), found {records}: the data stop here"
        );
        return Err(match records {
            0 => origin.file_error(message),
            _ => origin.record_error(records - 1, Field::Hour, message),
        });
    };
    if steps > 60 || 60 % steps != 0 {
        return Err(origin.file_error(format!(
            "{records} records make {steps} records per hour, which is not a whole number of minutes \
             per record (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30 or 60 records per hour are supported)"
        )));
    }
    if steps > 1 && !instantaneous {
        return Err(origin.record_error(
            1,
            Field::Hour,
            format!(
                "{steps} records per hour without a minute column: sub-hourly data needs the minute of \
                 each record (instants), as in SSC"
            ),
        ));
    }
    let step = 60.0 / steps as f64;
    let mut skipped_day = false;
    for record in 1..records {
        let previous = stamps.position(record - 1);
        let expected = (previous + step) % CALENDAR_MINUTES;
        let advance = (stamps.position(record) - previous).rem_euclid(CALENDAR_MINUTES);
        if advance == step {
            continue;
        }
        // The day left out must overlap 29 February: a source without 29 February, in any zone.
        let missing_overlaps_february_29 =
            expected < FEBRUARY_29_START + MINUTES_PER_DAY && expected + MINUTES_PER_DAY > FEBRUARY_29_START;
        let may_skip = !with_leap_day && !skipped_day && missing_overlaps_february_29;
        if may_skip && advance == step + MINUTES_PER_DAY {
            skipped_day = true;
            continue;
        }
        let alternative = if may_skip {
            format!(" (or {}, leaving out a day for 29 February)", describe_position(expected + MINUTES_PER_DAY))
        } else {
            String::new()
        };
        return Err(origin.record_error(
            record,
            first_differing_field(stamps, record, expected),
            format!(
                "expected {}{alternative} after {} but found {} (records must follow each other every \
                 {step} minutes through one year)",
                describe_position(expected),
                stamps.describe(record - 1),
                stamps.describe(record),
            ),
        ));
    }
    if !with_leap_day && !skipped_day {
        return Err(origin.record_error(
            records - 1,
            Field::Month,
            format!(
                "{records} records make a 365-day year, which must leave out 29 February, but they hold \
                 it: a year with 29 February needs {} records",
                HOURS_PER_LEAP_YEAR * steps
            ),
        ));
    }
    Ok(steps as u32)
}

/// Month, day, hour and minute in range, and 29 February only in leap years.
pub(super) fn validate_stamp_ranges(stamps: &Stamps<'_>, origin: &Origin) -> Result<(), WeatherError> {
    for record in 0..stamps.month.len() {
        let (month, day, hour, minute) =
            (stamps.month[record], stamps.day[record], stamps.hour[record], stamps.minute[record]);
        let problem = if !(1..=12).contains(&month) {
            Some((Field::Month, format!("month must be 1-12, got {month}")))
        } else if day == 0 || day > days_in_month(month, true) {
            Some((Field::Day, format!("day {day} does not exist in month {month}")))
        } else if month == 2 && day == 29 && !is_leap_year(stamps.year[record]) {
            Some((Field::Day, format!("29 February {} does not exist ({} is not a leap year)", stamps.year[record], stamps.year[record])))
        } else if hour > 23 {
            Some((Field::Hour, format!("hour must be 0-23 (or 1-24 in files), got {hour}")))
        } else if !(0.0..=60.0).contains(&minute) {
            Some((Field::Minute, format!("minute must be between 0 and 60, got {minute}")))
        } else {
            None
        };
        if let Some((field, message)) = problem {
            return Err(origin.record_error(record, field, message));
        }
    }
    Ok(())
}

/// The first of month, day, hour and minute in which record `record` differs from the stamp at
/// `expected` (a calendar position), for naming the column in an error.
pub(super) fn first_differing_field(stamps: &Stamps<'_>, record: usize, expected: f64) -> Field {
    let (month, day, hour, _) = stamp_of_position(expected);
    if stamps.month[record] != month {
        Field::Month
    } else if stamps.day[record] != day {
        Field::Day
    } else if stamps.hour[record] != hour {
        Field::Hour
    } else {
        Field::Minute
    }
}

pub(super) fn validate_values(
    values: &[f64],
    field: Field,
    origin: &Origin,
    is_valid: impl Fn(f64) -> bool,
    expected: &str,
) -> Result<(), WeatherError> {
    match values.iter().position(|&v| !is_valid(v)) {
        Some(record) => Err(origin.record_error(
            record,
            field,
            format!("expected {expected}, got {}", values[record]),
        )),
        None => Ok(()),
    }
}

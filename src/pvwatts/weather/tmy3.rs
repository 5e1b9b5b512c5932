//! TMY3 reader (NREL TMY3 CSV: header line, label line, 8760 data lines).
//!
//! Header: station, city, state, time zone, latitude, longitude, elevation. Data columns used
//! (0-based): date MM/DD/YYYY 0, time HH:MM 1 (hour ending, 01:00–24:00), GHI 4, DNI 7, DHI 10,
//! dry bulb 31, pressure 40 (mbar), wind speed 46, albedo 61. As in SSC, header numbers and data
//! values are stored as `f32`, the hour is shifted to 0–23 and each record keeps its own year.
//! Reference: Wilcox & Marion (2008), Users Manual for TMY3 Data Sets, NREL/TP-581-43156; SSC
//! `shared/lib_weatherfile.cpp`.

use super::text::{parse_integer, parse_value, split_csv, ProjectedRows, Value};
use crate::calendar::HOURS_PER_LEAP_YEAR;
use super::{Field, Origin, SiteMeta, Weather, WeatherColumns, WeatherError};

const GHI: usize = 4;
const DNI: usize = 7;
const DHI: usize = 10;
const DRY_BULB: usize = 31;
const PRESSURE: usize = 40;
const WIND_SPEED: usize = 46;
const ALBEDO: usize = 61;
/// Lines before the first data record.
const HEADER_LINES: usize = 2;

/// The columns a record is read from.
const COLUMNS: [usize; 9] = [0, 1, GHI, DNI, DHI, DRY_BULB, PRESSURE, WIND_SPEED, ALBEDO];

/// Parse a TMY3 file: its text and its first lines.
pub(super) fn parse(text: &str, head: &[&str], file: &str) -> Result<Weather, WeatherError> {
    let header = split_csv(head.first().copied().unwrap_or(""));
    if header.len() != 7 {
        return Err(WeatherError::new(
            file,
            Some(1),
            None,
            format!("TMY3 header must have 7 fields (station, city, state, tz, lat, lon, elevation), found {}", header.len()),
        ));
    }
    let header_number = |index: usize, name: &str| match parse_value(&header[index]) {
        Value::Number(v) => Ok(v),
        _ => Err(WeatherError::new(
            file,
            Some(1),
            Some(name),
            format!("expected a number, got '{}'", header[index]),
        )),
    };
    let meta = SiteMeta {
        tz: header_number(3, "time zone")?,
        lat: header_number(4, "latitude")?,
        lon: header_number(5, "longitude")?,
        elevation: header_number(6, "elevation")?,
        city: header[1].to_string(),
        state: header[2].to_string(),
        country: String::new(),
        location_id: header[0].to_string(),
        source: "TMY3".to_string(),
    };
    let labels = split_csv(head.get(1).copied().unwrap_or(""));
    let label = |index: usize, fallback: &str| {
        labels
            .get(index)
            .map_or_else(|| fallback.to_string(), |l| l.to_string())
    };

    let mut columns: WeatherColumns = WeatherColumns::with_capacity(HOURS_PER_LEAP_YEAR);
    let mut pressure = Vec::with_capacity(HOURS_PER_LEAP_YEAR);
    let mut albedo = Vec::with_capacity(HOURS_PER_LEAP_YEAR);
    let mut record_lines = Vec::with_capacity(HOURS_PER_LEAP_YEAR);
    let mut hour_shift = 1;
    let mut rows = ProjectedRows::new(text, HEADER_LINES + 1, &COLUMNS);
    while let Some(line_number) = rows.next_row() {
        if rows.get(WIND_SPEED).is_none() {
            let found = rows.field_count();
            let first_missing = label(found, "a column");
            return Err(WeatherError::new(
                file,
                Some(line_number),
                Some(&first_missing),
                format!(
                    "TMY3 data line needs at least {} fields, found {found}",
                    WIND_SPEED + 1,
                ),
            ));
        }
        let cell = |index: usize| rows.get(index).unwrap_or("");
        let (month, day, year) = parse_date(cell(0)).ok_or_else(|| {
            cell_error(
                file,
                line_number,
                &label(0, "date"),
                "a date MM/DD/YYYY",
                cell(0),
            )
        })?;
        let hour_ending = cell(1)
            .split(':')
            .next()
            .and_then(parse_integer)
            .ok_or_else(|| {
                cell_error(
                    file,
                    line_number,
                    &label(1, "time"),
                    "a time HH:MM",
                    cell(1),
                )
            })?;
        if record_lines.is_empty() && hour_ending == 0 {
            hour_shift = 0;
        }
        let hour = hour_ending - hour_shift;
        if !(0..=23).contains(&hour) {
            return Err(cell_error(
                file,
                line_number,
                &label(1, "time"),
                "an hour from 01:00 to 24:00",
                cell(1),
            ));
        }
        let required = |index: usize, name: &str| match parse_value(cell(index)) {
            Value::Number(v) => Ok(v),
            _ => Err(cell_error(
                file,
                line_number,
                &label(index, name),
                "a number",
                cell(index),
            )),
        };
        let optional =
            |index: usize, name: &str| match rows.get(index).map(parse_value) {
                Some(Value::Number(v)) => Ok(v),
                Some(Value::Invalid) => Err(cell_error(
                    file,
                    line_number,
                    &label(index, name),
                    "a number",
                    cell(index),
                )),
                _ => Ok(f64::NAN),
            };
        columns.year.push(year);
        columns.month.push(month);
        columns.day.push(day);
        columns.hour.push(hour as u8);
        columns.gh.push(required(GHI, "GHI")?);
        columns.dn.push(required(DNI, "DNI")?);
        columns.df.push(required(DHI, "DHI")?);
        columns.tdry.push(required(DRY_BULB, "Dry-bulb")?);
        columns.wspd.push(required(WIND_SPEED, "Wspd")?);
        pressure.push(optional(PRESSURE, "Pressure")?);
        albedo.push(optional(ALBEDO, "Alb")?);
        record_lines.push(line_number);
    }

    columns.pressure = Some(pressure);
    columns.albedo = Some(albedo);
    let mut origin = Origin::file(file, record_lines, 1);
    for (field, index, fallback) in [
        (Field::Month, 0, "date"),
        (Field::Day, 0, "date"),
        (Field::Year, 0, "date"),
        (Field::Hour, 1, "time"),
        (Field::Gh, GHI, "GHI"),
        (Field::Dn, DNI, "DNI"),
        (Field::Df, DHI, "DHI"),
        (Field::Tdry, DRY_BULB, "Dry-bulb"),
        (Field::Wspd, WIND_SPEED, "Wspd"),
        (Field::Pressure, PRESSURE, "Pressure"),
        (Field::Albedo, ALBEDO, "Alb"),
    ] {
        origin.name_column(field, &label(index, fallback));
    }
    for (field, name) in [
        (Field::Latitude, "latitude"),
        (Field::Longitude, "longitude"),
        (Field::TimeZone, "time zone"),
    ] {
        origin.name_column(field, name);
    }
    Weather::assemble(meta, columns, &origin)
}

/// Parse "MM/DD/YYYY" into (month, day, year).
fn parse_date(cell: &str) -> Option<(u8, u8, i32)> {
    let mut parts = cell.split('/');
    let month = parse_integer(parts.next()?)?;
    let day = parse_integer(parts.next()?)?;
    let year = parse_integer(parts.next()?)?;
    if parts.next().is_some() || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    Some((month as u8, day as u8, i32::try_from(year).ok()?))
}

fn cell_error(file: &str, line: usize, column: &str, expected: &str, got: &str) -> WeatherError {
    WeatherError::new(
        file,
        Some(line),
        Some(column),
        format!("expected {expected}, got '{got}'"),
    )
}

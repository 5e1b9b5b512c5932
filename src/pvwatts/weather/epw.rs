//! EnergyPlus weather (EPW) reader: hourly or sub-hourly, as SSC reads it.
//!
//! Layout: a `LOCATION` line (city, state, country, source, station, latitude, longitude, time
//! zone, elevation), seven more header lines (design conditions, typical/extreme periods, ground
//! temperatures, holidays, two comment lines, data periods), then one line per record of at least
//! 32 fields. Fields used (0-based): year 0, month 1, day 2, hour 3 (hour ending, 1–24), minute 4,
//! dry bulb 6 (°C), pressure 9 (Pa, stored in mbar as SSC scales it: ×0.01 after `f32`
//! rounding), GHI 13, DNI 14, DHI 15 (Wh/m² over the interval), wind speed 21 (m/s), snow depth
//! 30 (cm).
//!
//! As in SSC: the hour is shifted to 0–23 and the minute kept as written (so a half-hourly file's
//! second record of hour 1 is 00:60, the end of the hour), except that a file whose first two
//! records are both at minute 60 (the usual hourly file) gets minute 30 everywhere. EPW records
//! are always instants (the sun is placed at the stamped time). The missing-value markers (9999
//! for irradiance, 99.9 °C, 999999 Pa, 999 m/s and cm) are filled by SSC's rule: the mean of the
//! neighbours for a single gap, a straight line between the nearest values for a run (wrapping
//! around the year), in `f32` arithmetic; a column missing for more than half the year becomes
//! −999. EPW has no albedo.
//!
//! Reference: EnergyPlus Auxiliary Programs, "Weather Converter Program" (EPW data dictionary);
//! SSC `shared/lib_weatherfile.cpp` (`weatherfile::open`, `handle_missing_field`).

use super::text::{parse_integer, parse_value, record_capacity, split_csv, ProjectedRows, Value};
use super::{Field, Origin, SiteMeta, Weather, WeatherColumns, WeatherError};

/// Lines before the first record.
const HEADER_LINES: usize = 8;
/// Fewest fields SSC accepts on a data line.
const MIN_FIELDS: usize = 32;

const YEAR: usize = 0;
const MONTH: usize = 1;
const DAY: usize = 2;
const HOUR: usize = 3;
const MINUTE: usize = 4;
const DRY_BULB: usize = 6;
const PRESSURE: usize = 9;
const GHI: usize = 13;
const DNI: usize = 14;
const DHI: usize = 15;
const WIND_SPEED: usize = 21;
const SNOW_DEPTH: usize = 30;

/// The minute every record of a file whose first two records are at minute 60 gets: half of a
/// one-hour step, as SSC computes it for such files.
const HOURLY_MINUTE: f64 = 30.0;

/// A data column with its EPW field, name and missing-value marker.
struct Column {
    field: Field,
    index: usize,
    name: &'static str,
    missing: f64,
    /// Scale applied after `f32` rounding (Pa to mbar for pressure).
    scale: Option<f64>,
}

const COLUMNS: [Column; 7] = [
    Column { field: Field::Gh, index: GHI, name: "Global Horizontal Radiation", missing: 9999.0, scale: None },
    Column { field: Field::Dn, index: DNI, name: "Direct Normal Radiation", missing: 9999.0, scale: None },
    Column { field: Field::Df, index: DHI, name: "Diffuse Horizontal Radiation", missing: 9999.0, scale: None },
    Column { field: Field::Tdry, index: DRY_BULB, name: "Dry Bulb Temperature", missing: 99.9, scale: None },
    Column { field: Field::Wspd, index: WIND_SPEED, name: "Wind Speed", missing: 999.0, scale: None },
    Column { field: Field::Pressure, index: PRESSURE, name: "Atmospheric Station Pressure", missing: 999999.0, scale: Some(0.01) },
    Column { field: Field::SnowDepth, index: SNOW_DEPTH, name: "Snow Depth", missing: 999.0, scale: None },
];

/// True when the first line is an EPW `LOCATION` line (upper case, 10 fields; a SAM CSV may
/// start with a `Location` column name).
pub(super) fn looks_like_header(line: &str) -> bool {
    line.starts_with("LOCATION,") && split_csv(line).len() == 10
}

/// Parse an EPW file given as lines.
pub(super) fn parse(text: &str, head: &[&str], file: &str) -> Result<Weather, WeatherError> {
    let meta = parse_location(head.first().copied().unwrap_or(""), file)?;
    let records = record_capacity(text);
    let mut columns: WeatherColumns = WeatherColumns::with_capacity(records);
    let mut minute = Vec::with_capacity(records);
    let mut values: [Vec<f32>; COLUMNS.len()] = std::array::from_fn(|_| Vec::with_capacity(records));
    let mut record_lines = Vec::with_capacity(records);
    let wanted: Vec<usize> =
        [YEAR, MONTH, DAY, HOUR, MINUTE, MIN_FIELDS - 1].into_iter().chain(COLUMNS.iter().map(|c| c.index)).collect();
    let mut rows = ProjectedRows::new(text, HEADER_LINES + 1, &wanted);
    while let Some(line_number) = rows.next_row() {
        if rows.get(MIN_FIELDS - 1).is_none() {
            return Err(WeatherError::new(
                file,
                Some(line_number),
                None,
                format!("EPW data line needs at least {MIN_FIELDS} fields, found {}", rows.field_count()),
            ));
        }
        let cell = |position: usize| rows.get(position).unwrap_or("");
        let integer = |position: usize, name: &str| {
            parse_integer(cell(position)).ok_or_else(|| {
                WeatherError::new(file, Some(line_number), Some(name), format!("expected a whole number, got '{}'", cell(position)))
            })
        };
        let hour_ending = integer(HOUR, "Hour")?;
        if !(1..=24).contains(&hour_ending) {
            return Err(WeatherError::new(
                file,
                Some(line_number),
                Some("Hour"),
                format!("EPW hours run from 1 to 24 (hour ending), got {hour_ending}"),
            ));
        }
        columns.year.push(i32::try_from(integer(YEAR, "Year")?).unwrap_or(i32::MAX));
        columns.month.push(u8::try_from(integer(MONTH, "Month")?).unwrap_or(u8::MAX));
        columns.day.push(u8::try_from(integer(DAY, "Day")?).unwrap_or(u8::MAX));
        columns.hour.push((hour_ending - 1) as u8);
        minute.push(match parse_value(cell(MINUTE)) {
            Value::Number(v) => v,
            _ => {
                return Err(WeatherError::new(
                    file,
                    Some(line_number),
                    Some("Minute"),
                    format!("expected a minute, got '{}'", cell(MINUTE)),
                ))
            }
        });
        for (column, values) in COLUMNS.iter().zip(&mut values) {
            values.push(read_value(cell(column.index), column, file, line_number)?);
        }
        record_lines.push(line_number);
    }
    if minute.len() >= 2 && minute[0] == 60.0 && minute[1] == 60.0 {
        minute.iter_mut().for_each(|m| *m = HOURLY_MINUTE);
    }
    let mut filled = values.map(|mut column| {
        fill_missing(&mut column);
        column.into_iter().map(f64::from).collect::<Vec<f64>>()
    });
    let mut take = |field: Field| {
        let position = COLUMNS.iter().position(|c| c.field == field).unwrap_or(0);
        std::mem::take(&mut filled[position])
    };
    columns.gh = take(Field::Gh);
    columns.dn = take(Field::Dn);
    columns.df = take(Field::Df);
    columns.tdry = take(Field::Tdry);
    columns.wspd = take(Field::Wspd);
    columns.pressure = Some(take(Field::Pressure));
    columns.snow_depth = Some(take(Field::SnowDepth));
    columns.minute = Some(minute);

    let mut origin = Origin::file(file, record_lines, 1);
    for (field, name) in [
        (Field::Year, "Year"),
        (Field::Month, "Month"),
        (Field::Day, "Day"),
        (Field::Hour, "Hour"),
        (Field::Minute, "Minute"),
        (Field::Latitude, "Latitude"),
        (Field::Longitude, "Longitude"),
        (Field::TimeZone, "Time Zone"),
    ] {
        origin.name_column(field, name);
    }
    for column in &COLUMNS {
        origin.name_column(column.field, column.name);
    }
    Weather::assemble(meta, columns, &origin)
}

/// One data value as SSC stores it: `f32`, scaled, and NaN for the column's missing marker.
fn read_value(cell: &str, column: &Column, file: &str, line: usize) -> Result<f32, WeatherError> {
    match parse_value(cell) {
        Value::Number(value) => {
            let (value, missing) = match column.scale {
                Some(scale) => (value * scale, column.missing * scale),
                None => (value, column.missing),
            };
            Ok(if (value - missing).abs() <= 0.01 { f32::NAN } else { value as f32 })
        }
        Value::Missing => Ok(f32::NAN),
        Value::Invalid => Err(WeatherError::new(
            file,
            Some(line),
            Some(column.name),
            format!("expected a number, got '{cell}'"),
        )),
    }
}

/// A value type gaps are filled in: `f32` for EPW files (SSC's arithmetic), `f64` for tables.
pub(super) trait GapValue:
    Copy
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
{
    const TWO: Self;
    /// What SSC writes into a column missing for more than half of the year.
    const ALL_MISSING: Self;
    fn is_nan(self) -> bool;
    fn from_count(count: usize) -> Self;
}

impl GapValue for f32 {
    const TWO: Self = 2.0;
    const ALL_MISSING: Self = -999.0;
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn from_count(count: usize) -> Self {
        count as f32
    }
}

impl GapValue for f64 {
    const TWO: Self = 2.0;
    const ALL_MISSING: Self = -999.0;
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    fn from_count(count: usize) -> Self {
        count as f64
    }
}

/// Fill NaN values the way SSC's `handle_missing_field` does: a single gap gets the mean of its
/// neighbours, a run a straight line between the nearest values before and after it (wrapping
/// around the year); a column with more than half its values missing before a gap becomes −999
/// throughout.
pub(super) fn fill_missing<T: GapValue>(values: &mut [T]) {
    let records = values.len();
    if records < 2 {
        return;
    }
    for index in 0..records {
        if !values[index].is_nan() {
            continue;
        }
        let mut previous = if index == 0 { records - 1 } else { index - 1 };
        let mut next = if index == records - 1 { 0 } else { index + 1 };
        if !values[previous].is_nan() && !values[next].is_nan() {
            values[index] = (values[previous] + values[next]) / T::TWO;
            continue;
        }
        let mut count = 0;
        while values[previous].is_nan() && count <= records {
            previous = if previous == 0 { records - 1 } else { previous - 1 };
            count += 1;
        }
        if count > records / 2 {
            values.iter_mut().for_each(|v| *v = T::ALL_MISSING);
            return;
        }
        count = 0;
        while values[next].is_nan() && count <= records {
            next = if next == records - 1 { 0 } else { next + 1 };
            count += 1;
        }
        // A run across the end of the year wraps to its start (SSC's own index arithmetic runs
        // off the end there, so no reference exists for that case).
        let span = (next + records - previous) % records;
        let slope = (values[next] - values[previous]) / T::from_count(span);
        for step in 1..span {
            values[(previous + step) % records] = values[previous] + slope * T::from_count(step);
        }
    }
}

/// The `LOCATION` line: city, state, country, source, station, latitude, longitude, time zone,
/// elevation (numbers stored as `f32`, as SSC reads them).
fn parse_location(line: &str, file: &str) -> Result<SiteMeta, WeatherError> {
    let fields = split_csv(line);
    if fields.len() != 10 {
        return Err(WeatherError::new(
            file,
            Some(1),
            None,
            format!(
                "EPW LOCATION line must have 10 fields (LOCATION, city, state, country, source, station, \
                 latitude, longitude, time zone, elevation), found {}",
                fields.len()
            ),
        ));
    }
    let number = |index: usize, name: &str| match parse_value(&fields[index]) {
        Value::Number(v) => Ok(v),
        _ => Err(WeatherError::new(file, Some(1), Some(name), format!("expected a number, got '{}'", fields[index]))),
    };
    Ok(SiteMeta {
        lat: number(6, "latitude")?,
        lon: number(7, "longitude")?,
        tz: number(8, "time zone")?,
        elevation: number(9, "elevation")?,
        city: fields[1].to_string(),
        state: fields[2].to_string(),
        country: fields[3].to_string(),
        location_id: fields[5].to_string(),
        source: fields[4].to_string(),
    })
}

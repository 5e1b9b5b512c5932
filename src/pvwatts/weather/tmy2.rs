//! TMY2 reader (NREL TMY2 fixed-width format: one header line, 8760 data lines).
//!
//! Header: WBAN, city, state, time zone, N/S, latitude degrees and minutes, E/W, longitude degrees
//! and minutes, elevation (m). Data fields (1-based columns of the manual): year 2–3 (yy + 1900),
//! month 4–5, day 6–7, hour 8–9 (hour ending 1–24), GHI 18–21, DNI 24–27, DHI 30–33 (Wh/m²),
//! dry bulb 68–71 (0.1 °C), pressure 85–88 (mbar), wind speed 96–98 (0.1 m/s), snow depth 134–136
//! (cm). Values are stored as `f32` like SSC does. TMY2 has no albedo.
//! Reference: Marion & Urban (1995), User's Manual for TMY2s, NREL; SSC `shared/lib_weatherfile.cpp`.

use super::text::{line_start, parse_integer, read_in_parts, record_capacity, NumberedLines};
use super::{Field, Origin, SiteMeta, Weather, WeatherColumns, WeatherError};
use std::ops::Range;

const YEAR: Range<usize> = 1..3;
const MONTH: Range<usize> = 3..5;
const DAY: Range<usize> = 5..7;
const HOUR: Range<usize> = 7..9;
const GHI: Range<usize> = 17..21;
const DNI: Range<usize> = 23..27;
const DHI: Range<usize> = 29..33;
const DRY_BULB: Range<usize> = 67..71;
const PRESSURE: Range<usize> = 84..88;
const WIND_SPEED: Range<usize> = 95..98;
const SNOW_DEPTH: Range<usize> = 133..136;
/// Trailing header tokens after the city and state: tz, N/S, deg, min, E/W, deg, min, elevation.
const HEADER_TAIL_TOKENS: usize = 8;

/// True when `line` looks like a TMY2 header line.
pub(super) fn looks_like_header(line: &str) -> bool {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if line.contains(',') || tokens.len() < HEADER_TAIL_TOKENS + 3 {
        return false;
    }
    let tail = &tokens[tokens.len() - HEADER_TAIL_TOKENS..];
    matches!(tail[1], "N" | "S" | "n" | "s") && matches!(tail[4], "E" | "W" | "e" | "w")
}

/// Parse a TMY2 file: its text and its first lines.
pub(super) fn parse(text: &str, head: &[&str], file: &str) -> Result<Weather, WeatherError> {
    let meta = parse_header(head.first().copied().unwrap_or(""), file)?;
    let data = &text[line_start(text, 2)..];
    let rows = read_in_parts(data, 2, true, |part, first_line| read_rows(part, first_line, file), Rows::append, file)?;
    let Rows { mut columns, pressure, snow_depth, record_lines } = rows;
    columns.pressure = Some(pressure);
    columns.snow_depth = Some(snow_depth);

    let mut origin = Origin::file(file, record_lines, 1);
    for (field, name) in [
        (Field::Gh, "GHI"),
        (Field::Dn, "DNI"),
        (Field::Df, "DHI"),
        (Field::Tdry, "dry bulb"),
        (Field::Wspd, "wind speed"),
        (Field::Pressure, "pressure"),
        (Field::SnowDepth, "snow depth"),
        (Field::Latitude, "latitude"),
        (Field::Longitude, "longitude"),
        (Field::TimeZone, "time zone"),
    ] {
        origin.name_column(field, name);
    }
    Weather::assemble(meta, columns, &origin)
}

/// The records of some data lines of a TMY2 file.
struct Rows {
    columns: WeatherColumns,
    pressure: Vec<f64>,
    snow_depth: Vec<f64>,
    record_lines: Vec<usize>,
}

impl Rows {
    fn with_capacity(records: usize) -> Self {
        Rows {
            columns: WeatherColumns::with_capacity(records),
            pressure: Vec::with_capacity(records),
            snow_depth: Vec::with_capacity(records),
            record_lines: Vec::with_capacity(records),
        }
    }

    /// Appends the records of the lines after these.
    fn append(&mut self, later: Rows) {
        let (columns, more) = (&mut self.columns, later.columns);
        columns.year.extend(more.year);
        columns.month.extend(more.month);
        columns.day.extend(more.day);
        columns.hour.extend(more.hour);
        columns.gh.extend(more.gh);
        columns.dn.extend(more.dn);
        columns.df.extend(more.df);
        columns.tdry.extend(more.tdry);
        columns.wspd.extend(more.wspd);
        self.pressure.extend(later.pressure);
        self.snow_depth.extend(later.snow_depth);
        self.record_lines.extend(later.record_lines);
    }
}

/// Reads the data lines of `part`, whose first line is file line `first_line`.
fn read_rows(part: &str, first_line: usize, file: &str) -> Result<Rows, WeatherError> {
    let mut rows = Rows::with_capacity(record_capacity(part));
    for (part_line, line) in NumberedLines::new(part, 1) {
        let line_number = part_line + first_line - 1;
        if line.trim_ascii().is_empty() {
            continue;
        }
        if line.len() < WIND_SPEED.end || !line.is_ascii() {
            return Err(WeatherError::new(
                file,
                Some(line_number),
                None,
                format!(
                    "TMY2 data line must be at least {} ASCII characters, found {}",
                    WIND_SPEED.end,
                    line.len()
                ),
            ));
        }
        let field = |range: Range<usize>, name: &str| {
            let cell = &line[range.clone()];
            parse_integer(cell).ok_or_else(|| {
                WeatherError::new(
                    file,
                    Some(line_number),
                    Some(name),
                    format!(
                        "expected an integer in columns {}-{}, got '{cell}'",
                        range.start + 1,
                        range.end
                    ),
                )
            })
        };
        let hour = field(HOUR, "hour")? - 1;
        if !(0..=23).contains(&hour) {
            return Err(WeatherError::new(
                file,
                Some(line_number),
                Some("hour"),
                format!("expected 1-24, got {}", hour + 1),
            ));
        }
        rows.columns.year.push(field(YEAR, "year")? as i32 + 1900);
        rows.columns
            .month
            .push(field(MONTH, "month")?.clamp(0, 255) as u8);
        rows.columns.day.push(field(DAY, "day")?.clamp(0, 255) as u8);
        rows.columns.hour.push(hour as u8);
        rows.columns.gh.push(f64::from(field(GHI, "GHI")? as f32));
        rows.columns.dn.push(f64::from(field(DNI, "DNI")? as f32));
        rows.columns.df.push(f64::from(field(DHI, "DHI")? as f32));
        rows.columns.tdry.push(tenths(field(DRY_BULB, "dry bulb")?));
        rows.columns.wspd.push(tenths(field(WIND_SPEED, "wind speed")?));
        rows.pressure.push(f64::from(field(PRESSURE, "pressure")? as f32));
        let snow = if line.len() >= SNOW_DEPTH.end {
            field(SNOW_DEPTH, "snow depth").map(|v| v as f64)
        } else {
            Ok(f64::NAN)
        };
        rows.snow_depth.push(snow?);
        rows.record_lines.push(line_number);
    }
    Ok(rows)
}

/// A value stored in tenths of a unit, converted like SSC: `(float)(value / 10.0)`.
fn tenths(value: i64) -> f64 {
    f64::from((value as f64 / 10.0) as f32)
}

/// Parse the header: latitude and longitude from degrees and minutes (south and west negative).
fn parse_header(line: &str, file: &str) -> Result<SiteMeta, WeatherError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if !looks_like_header(line) {
        return Err(WeatherError::new(
            file,
            Some(1),
            None,
            "TMY2 header must read: WBAN city state tz N|S lat-deg lat-min E|W lon-deg lon-min elevation",
        ));
    }
    let tail = &tokens[tokens.len() - HEADER_TAIL_TOKENS..];
    let number = |token: &str, name: &str| {
        token.parse::<f64>().map_err(|_| {
            WeatherError::new(
                file,
                Some(1),
                Some(name),
                format!("expected a number, got '{token}'"),
            )
        })
    };
    let degrees =
        |hemisphere: &str, whole: &str, minutes: &str, name: &str| -> Result<f64, WeatherError> {
            let value = number(whole, name)? + number(minutes, name)? / 60.0;
            Ok(if matches!(hemisphere, "S" | "s" | "W" | "w") {
                -value
            } else {
                value
            })
        };
    Ok(SiteMeta {
        tz: number(tail[0], "time zone")?,
        lat: degrees(tail[1], tail[2], tail[3], "latitude")?,
        lon: degrees(tail[4], tail[5], tail[6], "longitude")?,
        elevation: number(tail[7], "elevation")?,
        city: tokens[1..tokens.len() - HEADER_TAIL_TOKENS - 1].join(" "),
        state: tokens[tokens.len() - HEADER_TAIL_TOKENS - 1].to_string(),
        country: String::new(),
        location_id: tokens[0].to_string(),
        source: "TMY2".to_string(),
    })
}

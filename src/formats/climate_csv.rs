//! The climate download CSV: the 12 attributes and their file names, the typed metadata of
//! rows 1–2, the writer (the embedded service) and the fast parser (the client) into typed
//! columns and an Arrow `RecordBatch`, plus the calendar rules of the row count.
//!
//! Layout (spec, "CSV layout"): row 1 the 21 metadata names, row 2 their values, row 3 `Year,
//! Month, Day, Hour, Minute` and one column per attribute (long names, e.g. `air temperature at
//! 2m (Celsius)`), then one row per hour. Short names (`temperature_2m`) are the spec's
//! attribute names; long names are kept on each column.
//!
//! Conventions:
//! - The metadata `Time Zone` is the offset of the time stamps (0 for UTC downloads) and `Local
//!   Time Zone` the site's standard offset, as in NSRDB files. The Arrow `timestamp` column holds
//!   UTC instants (µs); its time zone is the crate's name for the stamps' standard offset
//!   (`formats::timezone`: `UTC`, `Etc/GMT+7`, `Asia/Kolkata`), or `UTC` when that offset has
//!   no such name. The Year … Minute columns always keep the file's stamps.
//! - Values are written with Rust's shortest round-trip formatting, so writer → parser returns
//!   the same `f64` bits; the service rounds values to each attribute's file precision first.
//! - The parser reads the three header rows by hand as the `csv` crate reads them (quoting) and
//!   the data rows straight into `Vec<f64>` columns (no per-field allocation): rows of plain
//!   decimals (`-?digits[.digits]`, exact, bit-identical to `str::parse::<f64>`) on a fast
//!   path that takes the stamp fields it can predict from the rows before, any other row by a
//!   general scanner on the standard parser. A shared body (Python `bytes`, a response) above
//!   128 KiB is cut at line ends and parsed in parallel on the process's parser threads
//!   (`parser_threads`). The UTC instants are computed while parsing. The vectors become Arrow
//!   buffers without copying. An empty value is NaN.
//! - An error body received instead of CSV (service JSON `{"status":400,"errors":[...]}`,
//!   gateway JSON/CSV/XML/HTML) is recognised and returned as `ClimateCsvError::ErrorBody`.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};
use serde_json::{json, Map, Value};

use crate::formats::timezone::standard_time_zone;
use crate::limits::{MAX_CSV_COLUMNS, MAX_CSV_ROWS};
use crate::spec::routes::DatasetFamily;
use crate::formats::error_body::parse_error_body;

mod parser_threads;
use parser_threads::{Helpers, PendingChunk};

/// An attribute of the climate download, in the spec's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Attribute {
    Pressure0m,
    Dhi,
    Dni,
    Ghi,
    RelativeHumidity2m,
    Temperature2m,
    WindDirection10m,
    WindDirection100m,
    WindDirection200m,
    WindSpeed10m,
    WindSpeed100m,
    WindSpeed200m,
}

impl Attribute {
    /// Every attribute, in the spec's order (the default column order).
    pub const ALL: [Attribute; 12] = [
        Attribute::Pressure0m,
        Attribute::Dhi,
        Attribute::Dni,
        Attribute::Ghi,
        Attribute::RelativeHumidity2m,
        Attribute::Temperature2m,
        Attribute::WindDirection10m,
        Attribute::WindDirection100m,
        Attribute::WindDirection200m,
        Attribute::WindSpeed10m,
        Attribute::WindSpeed100m,
        Attribute::WindSpeed200m,
    ];

    /// The spec's name, used in the `attributes` parameter and as the column name.
    pub fn name(self) -> &'static str {
        match self {
            Attribute::Pressure0m => "pressure_0m",
            Attribute::Dhi => "dhi",
            Attribute::Dni => "dni",
            Attribute::Ghi => "ghi",
            Attribute::RelativeHumidity2m => "relativehumidity_2m",
            Attribute::Temperature2m => "temperature_2m",
            Attribute::WindDirection10m => "winddirection_10m",
            Attribute::WindDirection100m => "winddirection_100m",
            Attribute::WindDirection200m => "winddirection_200m",
            Attribute::WindSpeed10m => "windspeed_10m",
            Attribute::WindSpeed100m => "windspeed_100m",
            Attribute::WindSpeed200m => "windspeed_200m",
        }
    }

    /// The column name in row 3 of the file (the spec's wording, unit in parentheses where the
    /// spec gives one).
    pub fn long_name(self) -> &'static str {
        match self {
            Attribute::Pressure0m => "Pressure",
            Attribute::Dhi => "DHI",
            Attribute::Dni => "DNI",
            Attribute::Ghi => "GHI",
            Attribute::RelativeHumidity2m => "relative humidity at 2m (%)",
            Attribute::Temperature2m => "air temperature at 2m (Celsius)",
            Attribute::WindDirection10m => "wind direction at 10m (degrees)",
            Attribute::WindDirection100m => "wind direction at 100m (degrees)",
            Attribute::WindDirection200m => "wind direction at 200m (degrees)",
            Attribute::WindSpeed10m => "wind speed at 10m (m/s)",
            Attribute::WindSpeed100m => "wind speed at 100m (m/s)",
            Attribute::WindSpeed200m => "wind speed at 200m (m/s)",
        }
    }

    /// Unit of the values.
    pub fn unit(self) -> &'static str {
        match self {
            Attribute::Pressure0m => "mbar",
            Attribute::Dhi | Attribute::Dni | Attribute::Ghi => "W/m2",
            Attribute::RelativeHumidity2m => "%",
            Attribute::Temperature2m => "Celsius",
            Attribute::WindDirection10m | Attribute::WindDirection100m | Attribute::WindDirection200m => "degrees",
            Attribute::WindSpeed10m | Attribute::WindSpeed100m | Attribute::WindSpeed200m => "m/s",
        }
    }

    /// Decimal places the service writes.
    pub fn decimals(self) -> i32 {
        match self {
            Attribute::Dhi | Attribute::Dni | Attribute::Ghi => 0,
            Attribute::WindDirection10m | Attribute::WindDirection100m | Attribute::WindDirection200m => 0,
            Attribute::Pressure0m | Attribute::RelativeHumidity2m | Attribute::Temperature2m => 1,
            Attribute::WindSpeed10m | Attribute::WindSpeed100m | Attribute::WindSpeed200m => 2,
        }
    }

    /// A value rounded to the file precision (directions wrap into [0, 360), no negative zero).
    pub fn round_for_file(self, value: f64) -> f64 {
        let scale = 10f64.powi(self.decimals());
        let rounded = (value * scale).round() / scale + 0.0;
        match self {
            Attribute::WindDirection10m | Attribute::WindDirection100m | Attribute::WindDirection200m => {
                rounded.rem_euclid(360.0)
            }
            _ => rounded,
        }
    }

    /// The attribute with this spec name (exact, lower case).
    pub fn from_name(name: &str) -> Option<Attribute> {
        Attribute::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The name the NSRDB downloads give this quantity (they have one wind height, 10 m, and
    /// no 100 or 200 m series): `air_temperature`, `wind_speed`, `surface_pressure`, ...
    pub fn nsrdb_name(self) -> Option<&'static str> {
        match self {
            Attribute::Pressure0m => Some("surface_pressure"),
            Attribute::Dhi => Some("dhi"),
            Attribute::Dni => Some("dni"),
            Attribute::Ghi => Some("ghi"),
            Attribute::RelativeHumidity2m => Some("relative_humidity"),
            Attribute::Temperature2m => Some("air_temperature"),
            Attribute::WindDirection10m => Some("wind_direction"),
            Attribute::WindSpeed10m => Some("wind_speed"),
            Attribute::WindDirection100m | Attribute::WindDirection200m | Attribute::WindSpeed100m | Attribute::WindSpeed200m => None,
        }
    }

    /// The column name NSRDB files write for this quantity (row 3).
    pub fn nsrdb_long_name(self) -> Option<&'static str> {
        match self {
            Attribute::Pressure0m => Some("Pressure"),
            Attribute::Dhi => Some("DHI"),
            Attribute::Dni => Some("DNI"),
            Attribute::Ghi => Some("GHI"),
            Attribute::RelativeHumidity2m => Some("Relative Humidity"),
            Attribute::Temperature2m => Some("Temperature"),
            Attribute::WindDirection10m => Some("Wind Direction"),
            Attribute::WindSpeed10m => Some("Wind Speed"),
            Attribute::WindDirection100m | Attribute::WindDirection200m | Attribute::WindSpeed100m | Attribute::WindSpeed200m => None,
        }
    }

    /// The attributes a data set family offers, in the spec's order.
    pub fn offered(family: DatasetFamily) -> Vec<Attribute> {
        Attribute::ALL.into_iter().filter(|a| a.name_in(family).is_some()).collect()
    }

    /// This attribute's name in the `attributes` parameter of a family's downloads.
    pub fn name_in(self, family: DatasetFamily) -> Option<&'static str> {
        match family {
            DatasetFamily::Climate => Some(self.name()),
            DatasetFamily::Nsrdb => self.nsrdb_name(),
        }
    }

    /// The attribute a file column stands for: its spec name or long name, any case.
    pub fn from_column_name(column: &str) -> Option<Attribute> {
        let column = column.trim();
        Attribute::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(column) || a.long_name().eq_ignore_ascii_case(column))
    }
}

/// The short (column) name for a file column: the attribute name when the column is one of the
/// 12, otherwise the same scheme applied to the long name: lower case, unit in parentheses
/// dropped, words joined, a trailing height after `_` (`wind direction at 180m (deg)` →
/// `winddirection_180m`).
pub fn short_column_name(long_name: &str) -> String {
    if let Some(attribute) = Attribute::from_column_name(long_name) {
        return attribute.name().to_string();
    }
    let mut name = long_name.trim().to_ascii_lowercase();
    if name.ends_with(')') {
        if let Some(open) = name.rfind('(') {
            name.truncate(open);
        }
    }
    let mut words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && *w != "at")
        .map(str::to_string)
        .collect();
    let height = words
        .last()
        .filter(|w| w.len() > 1 && w.ends_with('m') && w[..w.len() - 1].bytes().all(|b| b.is_ascii_digit()))
        .cloned();
    if height.is_some() && words.len() > 1 {
        words.pop();
    }
    match height.filter(|_| !words.is_empty()) {
        Some(height) => format!("{}_{height}", words.concat()),
        None => words.concat(),
    }
}

pub use super::calendar::{civil_from_days, days_from_civil, days_in_month, is_leap_year};

/// Rows of one year of data: 365 days, or 366 when `leap_day` is asked and the year has one,
/// times the intervals per day (`interval_minutes` must divide a day; 0 rows otherwise).
pub fn expected_rows(year: i32, leap_day: bool, interval_minutes: u32) -> usize {
    if interval_minutes == 0 || 1440 % interval_minutes != 0 {
        return 0;
    }
    let days = if leap_day && is_leap_year(year) { 366 } else { 365 };
    days * (1440 / interval_minutes) as usize
}

/// The interval assumed when a file has fewer than two rows (the only one the service offers).
const INTERVAL_WHEN_UNKNOWN: u32 = 60;

/// The Arrow time zone of stamps at `offset_hours` from UTC (see the module notes).
pub fn timestamp_time_zone(offset_hours: f64) -> String {
    standard_time_zone(offset_hours).unwrap_or_else(|| "UTC".to_string())
}

// ---------------------------------------------------------------------------------------------
// Metadata

/// Row 1 of the file, in order (spec, "CSV layout").
pub const METADATA_NAMES: [&str; 21] = [
    "Source",
    "Location ID",
    "City",
    "County",
    "State",
    "Country",
    "Offshore",
    "EEZ",
    "Latitude",
    "Longitude",
    "Time Zone",
    "Elevation",
    "Local Time Zone",
    "GHI Units",
    "DNI Units",
    "DHI Units",
    "Temperature Units",
    "Wind Speed Units",
    "Relative Humidity Units",
    "Wind Direction Units",
    "Version",
];

/// Units named in the metadata.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Units {
    pub ghi: String,
    pub dni: String,
    pub dhi: String,
    pub temperature: String,
    pub wind_speed: String,
    pub relative_humidity: String,
    pub wind_direction: String,
}

impl Units {
    /// The unit of the frame column `name`: the file's declared unit for its quantity (the
    /// metadata rows name units by quantity — "Temperature Units" — not by column), else the
    /// spec's unit of an attribute column (pressure has no unit row: mbar); `None` for a column
    /// of no known quantity.
    pub fn for_column(&self, name: &str) -> Option<String> {
        let key = normalized_key(name);
        let declared = [
            ("ghi", &self.ghi),
            ("dni", &self.dni),
            ("dhi", &self.dhi),
            ("temperature", &self.temperature),
            ("airtemperature", &self.temperature),
            ("windspeed", &self.wind_speed),
            ("relativehumidity", &self.relative_humidity),
            ("winddirection", &self.wind_direction),
        ]
        .into_iter()
        .find(|(quantity, _)| key.starts_with(quantity))
        .map(|(_, unit)| unit.as_str())
        .filter(|unit| !unit.is_empty());
        declared.map(str::to_owned).or_else(|| Attribute::from_name(name).map(|attribute| attribute.unit().to_owned()))
    }

    /// The units the embedded service writes (NSRDB spelling).
    pub fn service() -> Units {
        Units {
            ghi: "w/m2".into(),
            dni: "w/m2".into(),
            dhi: "w/m2".into(),
            temperature: "c".into(),
            wind_speed: "m/s".into(),
            relative_humidity: "%".into(),
            wind_direction: "Degrees".into(),
        }
    }
}

/// Rows 1–2 of a climate CSV, typed. Strings missing from a file are empty; numbers and the
/// offshore flag missing (or `-`) are `None`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClimateMetadata {
    pub source: String,
    pub location_id: String,
    pub city: String,
    pub county: String,
    pub state: String,
    pub country: String,
    pub offshore: Option<bool>,
    /// Exclusive economic zone of an offshore site.
    pub eez: String,
    /// Degrees north.
    pub latitude: Option<f64>,
    /// Degrees east.
    pub longitude: Option<f64>,
    /// Offset of the time stamps from UTC, hours (0 for UTC data).
    pub time_zone: Option<f64>,
    /// Metres.
    pub elevation: Option<f64>,
    /// The site's standard-time offset from UTC, hours.
    pub local_time_zone: Option<f64>,
    pub units: Units,
    pub version: String,
    /// Every name/value pair of rows 1–2 as read (empty for metadata built in code).
    pub raw: Vec<(String, String)>,
}

impl ClimateMetadata {
    /// Row 2 values in the order of [`METADATA_NAMES`].
    fn values(&self) -> [String; 21] {
        let number = |value: Option<f64>| value.map_or_else(|| "-".to_string(), |v| v.to_string());
        let text = |value: &str| if value.is_empty() { "-".to_string() } else { value.to_string() };
        let offshore = match self.offshore {
            Some(true) => "True".to_string(),
            Some(false) => "False".to_string(),
            None => "-".to_string(),
        };
        [
            text(&self.source),
            text(&self.location_id),
            text(&self.city),
            text(&self.county),
            text(&self.state),
            text(&self.country),
            offshore,
            text(&self.eez),
            number(self.latitude),
            number(self.longitude),
            number(self.time_zone),
            number(self.elevation),
            number(self.local_time_zone),
            text(&self.units.ghi),
            text(&self.units.dni),
            text(&self.units.dhi),
            text(&self.units.temperature),
            text(&self.units.wind_speed),
            text(&self.units.relative_humidity),
            text(&self.units.wind_direction),
            text(&self.version),
        ]
    }

    /// Builds typed metadata from rows 1–2. Names match without regard to case, spaces and
    /// underscores, with the aliases of other downloads of the family (`SiteID`, `Data
    /// Timezone`, `Site Timezone`); a Python bytes literal `b'Canada'` is unwrapped.
    pub fn from_pairs(names: &[String], values: &[String]) -> ClimateMetadata {
        let mut meta = ClimateMetadata::default();
        for (name, value) in names.iter().zip(values.iter().chain(std::iter::repeat(&String::new()))) {
            let value = clean_metadata_value(value);
            meta.raw.push((name.trim().to_string(), value.clone()));
            let number = || parse_metadata_number(&value);
            match normalized_key(name).as_str() {
                "source" => meta.source = value,
                "locationid" | "siteid" | "gid" => meta.location_id = value,
                "city" => meta.city = value,
                "county" => meta.county = value,
                "state" => meta.state = value,
                "country" => meta.country = value,
                "offshore" => meta.offshore = parse_bool(&value),
                "eez" => meta.eez = value,
                "latitude" | "lat" => meta.latitude = number(),
                "longitude" | "lon" | "long" => meta.longitude = number(),
                "timezone" | "datatimezone" => meta.time_zone = number(),
                "elevation" | "elev" => meta.elevation = number(),
                "localtimezone" | "sitetimezone" => meta.local_time_zone = number(),
                "ghiunits" => meta.units.ghi = value,
                "dniunits" => meta.units.dni = value,
                "dhiunits" => meta.units.dhi = value,
                "temperatureunits" => meta.units.temperature = value,
                "windspeedunits" => meta.units.wind_speed = value,
                "relativehumidityunits" => meta.units.relative_humidity = value,
                "winddirectionunits" => meta.units.wind_direction = value,
                "version" => meta.version = value,
                _ => {}
            }
        }
        if meta.time_zone.is_none() {
            meta.time_zone = meta.local_time_zone;
        }
        meta
    }

    /// The metadata as a JSON object with snake_case keys (what the Python face shows).
    pub fn to_json(&self) -> Value {
        let raw: Map<String, Value> = self.raw.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        json!({
            "source": self.source,
            "location_id": self.location_id,
            "city": self.city,
            "county": self.county,
            "state": self.state,
            "country": self.country,
            "offshore": self.offshore,
            "eez": self.eez,
            "latitude": self.latitude,
            "longitude": self.longitude,
            "time_zone": self.time_zone,
            "elevation": self.elevation,
            "local_time_zone": self.local_time_zone,
            "version": self.version,
            "raw": raw,
        })
    }
}

fn normalized_key(name: &str) -> String {
    name.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect()
}

fn clean_metadata_value(value: &str) -> String {
    let value = value.trim();
    let unwrapped = value
        .strip_prefix("b'")
        .and_then(|v| v.strip_suffix('\''))
        .or_else(|| value.strip_prefix("b\"").and_then(|v| v.strip_suffix('"')))
        .unwrap_or(value);
    unwrapped.to_string()
}

fn parse_metadata_number(value: &str) -> Option<f64> {
    value.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

fn parse_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "y" | "t" => Some(true),
        "false" | "0" | "no" | "n" | "f" => Some(false),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Table

/// One data column: short name, file name and values.
#[derive(Debug, Clone, PartialEq)]
pub struct DataColumn {
    /// Column name in frames (the spec's attribute name for the 12 attributes).
    pub name: String,
    /// Column name as written in row 3 of the file.
    pub long_name: String,
    pub values: Vec<f64>,
}

impl DataColumn {
    /// A column of one of the 12 attributes.
    pub fn of(attribute: Attribute, values: Vec<f64>) -> DataColumn {
        DataColumn { name: attribute.name().to_string(), long_name: attribute.long_name().to_string(), values }
    }

    /// A column of `attribute` as a family's files write it: NSRDB files use their own column
    /// names (`Temperature`, `Wind Speed`), which the reader turns into `temperature`, `windspeed`.
    pub fn of_family(attribute: Attribute, family: DatasetFamily, values: Vec<f64>) -> DataColumn {
        match (family, attribute.nsrdb_long_name()) {
            (DatasetFamily::Nsrdb, Some(long_name)) => DataColumn { name: short_column_name(long_name), long_name: long_name.to_string(), values },
            _ => DataColumn::of(attribute, values),
        }
    }

    /// The attribute this column holds, if it is one of the 12.
    pub fn attribute(&self) -> Option<Attribute> {
        Attribute::from_name(&self.name)
    }
}

/// One climate CSV: metadata, time stamps (in the offset `metadata.time_zone`) and columns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClimateTable {
    pub metadata: ClimateMetadata,
    pub year: Vec<i32>,
    pub month: Vec<i32>,
    pub day: Vec<i32>,
    pub hour: Vec<i32>,
    pub minute: Vec<i32>,
    pub columns: Vec<DataColumn>,
}

/// Why a body could not be read as a climate CSV.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClimateCsvError {
    /// The body is an error answer (service JSON, gateway JSON/CSV/XML or an HTML page).
    #[error("the service answered with an error instead of CSV{}: {}", status.map(|s| format!(" (status {s})")).unwrap_or_default(), messages.join("; "))]
    ErrorBody { status: Option<u16>, code: Option<String>, messages: Vec<String> },
    /// The text is not a climate CSV or a value is malformed (1-based line).
    #[error("climate CSV line {line}: {message}")]
    Malformed { line: usize, message: String },
    /// The number of rows does not match the year, leap_day and interval asked for.
    #[error(
        "expected {expected} rows for {year} (leap_day={leap_day}, interval={interval_minutes} min), found {found}"
    )]
    RowCount { year: i32, leap_day: bool, interval_minutes: u32, expected: usize, found: usize },
    /// The rows are not one calendar year at one interval (the message says what was expected).
    #[error("{0}")]
    NotOneYear(String),
}

impl ClimateCsvError {
    /// The error of a chunk that numbered its lines from the first data line, moved down by
    /// the `lines` line ends before the chunk.
    fn lines_later(self, lines: usize) -> ClimateCsvError {
        match self {
            ClimateCsvError::Malformed { line, message } => ClimateCsvError::Malformed { line: line + lines, message },
            other => other,
        }
    }
}

impl ClimateTable {
    /// Number of data rows.
    pub fn len(&self) -> usize {
        self.year.len()
    }

    pub fn is_empty(&self) -> bool {
        self.year.is_empty()
    }

    /// The column with this short name.
    pub fn column(&self, name: &str) -> Option<&DataColumn> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// Offset of the time stamps from UTC, hours (metadata `Time Zone`, 0 when absent).
    pub fn stamp_offset_hours(&self) -> f64 {
        self.metadata.time_zone.unwrap_or(0.0)
    }

    /// UTC instants of the rows, microseconds since 1970-01-01 (see [`instant_us`]). The day
    /// number is computed once per date (rows of a day are adjacent).
    pub fn timestamps_us(&self) -> Vec<i64> {
        let offset_s = offset_seconds(self.stamp_offset_hours());
        let mut last_date = (0, 0, 0);
        let mut last_days = None;
        let dates = self.year.iter().zip(&self.month).zip(&self.day);
        let times = self.hour.iter().zip(&self.minute);
        dates
            .zip(times)
            .map(|(((&year, &month), &day), (&hour, &minute))| {
                let days = match last_days {
                    Some(days) if last_date == (year, month, day) => days,
                    _ => {
                        last_date = (year, month, day);
                        *last_days.insert(days_from_civil(year, u32::try_from(month).unwrap_or(0), u32::try_from(day).unwrap_or(0)))
                    }
                };
                instant_us(days, hour, minute, offset_s)
            })
            .collect()
    }

    /// Checks the row count against one year of data at `interval_minutes`.
    pub fn check_rows(&self, year: i32, leap_day: bool, interval_minutes: u32) -> Result<(), ClimateCsvError> {
        let expected = expected_rows(year, leap_day, interval_minutes);
        if self.len() == expected {
            Ok(())
        } else {
            Err(ClimateCsvError::RowCount { year, leap_day, interval_minutes, expected, found: self.len() })
        }
    }

    /// Checks that the rows are one whole calendar year at one interval, as every climate CSV is:
    /// the year is the first row's, the interval the step from the first row to the second (60
    /// minutes with fewer rows), and 29 February counts when any row has it. A truncated,
    /// padded or doubled file fails, naming the rows expected.
    pub fn check_whole_year(&self) -> Result<(), ClimateCsvError> {
        let Some(&year) = self.year.first() else {
            return Err(ClimateCsvError::NotOneYear(format!(
                "the CSV has no data rows; a climate CSV holds one year ({} hourly rows, {} in a leap year with leap_day)",
                expected_rows(2010, false, 60),
                expected_rows(2012, true, 60)
            )));
        };
        let interval_minutes = self.step_minutes().unwrap_or(INTERVAL_WHEN_UNKNOWN);
        if interval_minutes == 0 || 1440 % interval_minutes != 0 {
            return Err(ClimateCsvError::NotOneYear(format!(
                "the first two rows are {interval_minutes} minutes apart, which is not an interval that divides a day"
            )));
        }
        let leap_day = self.month.iter().zip(&self.day).any(|(&month, &day)| month == 2 && day == 29);
        self.check_rows(year, leap_day, interval_minutes)?;
        match self.year.iter().position(|&other| other != year) {
            Some(row) => Err(ClimateCsvError::NotOneYear(format!(
                "row {} is in {} but the file starts in {year}: a climate CSV holds one year",
                row + 1,
                self.year.get(row).copied().unwrap_or_default()
            ))),
            None => Ok(()),
        }
    }

    /// Minutes from the first row's stamp to the second's.
    fn step_minutes(&self) -> Option<u32> {
        let stamp = |row: usize| -> Option<i64> {
            let days = days_from_civil(*self.year.get(row)?, u32::try_from(*self.month.get(row)?).ok()?, u32::try_from(*self.day.get(row)?).ok()?);
            Some(days * 1440 + i64::from(*self.hour.get(row)?) * 60 + i64::from(*self.minute.get(row)?))
        };
        u32::try_from(stamp(1)? - stamp(0)?).ok()
    }

    /// Metadata plus the long name of each column (`columns`: short → long) and the unit of
    /// each column of a known quantity (`units`, keyed by the frame's column names), as JSON.
    pub fn metadata_json(&self) -> Value {
        let mut value = self.metadata.to_json();
        let columns: Map<String, Value> =
            self.columns.iter().map(|c| (c.name.clone(), Value::String(c.long_name.clone()))).collect();
        let units: Map<String, Value> = self
            .columns
            .iter()
            .filter_map(|c| self.metadata.units.for_column(&c.name).map(|unit| (c.name.clone(), Value::String(unit))))
            .collect();
        if let Some(object) = value.as_object_mut() {
            object.insert("columns".into(), Value::Object(columns));
            object.insert("units".into(), Value::Object(units));
        }
        value
    }

    /// The Arrow schema of [`ClimateTable::into_record_batch`].
    pub fn schema(&self) -> Schema {
        let mut fields = time_fields(&timestamp_time_zone(self.stamp_offset_hours()));
        fields.extend(self.columns.iter().map(column_field));
        let metadata = HashMap::from([(SCHEMA_METADATA_KEY.to_string(), self.metadata_json().to_string())]);
        Schema::new_with_metadata(fields, metadata)
    }

    /// Columns `Year, Month, Day, Hour, Minute` (Int32), `timestamp` (µs, UTC instants with the
    /// stamps' time zone) and one Float64 per data column. Value vectors move into Arrow
    /// buffers without copying; the schema metadata `climate_metadata` holds
    /// [`ClimateTable::metadata_json`].
    pub fn into_record_batch(self) -> Result<RecordBatch, ArrowError> {
        let timestamps = self.timestamps_us();
        self.record_batch(timestamps)
    }

    /// [`ClimateTable::into_record_batch`] with the instants given.
    fn record_batch(self, timestamps_us: Vec<i64>) -> Result<RecordBatch, ArrowError> {
        let schema = Arc::new(self.schema());
        let time_zone = timestamp_time_zone(self.stamp_offset_hours());
        RecordBatch::try_new(schema, self.arrays(&time_zone, timestamps_us))
    }

    /// The arrays of [`ClimateTable::into_record_batch`], with the timestamp column in
    /// `time_zone` (the instants do not change; a zip of sites in several zones uses `UTC`).
    pub fn into_arrays(self, time_zone: &str) -> Vec<ArrayRef> {
        let timestamps = self.timestamps_us();
        self.arrays(time_zone, timestamps)
    }

    fn arrays(self, time_zone: &str, timestamps: Vec<i64>) -> Vec<ArrayRef> {
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(self.year)),
            Arc::new(Int32Array::from(self.month)),
            Arc::new(Int32Array::from(self.day)),
            Arc::new(Int32Array::from(self.hour)),
            Arc::new(Int32Array::from(self.minute)),
            Arc::new(TimestampMicrosecondArray::from(timestamps).with_timezone(time_zone)),
        ];
        columns.extend(self.columns.into_iter().map(|c| Arc::new(Float64Array::from(c.values)) as ArrayRef));
        columns
    }
}

/// The stamps' offset from UTC in whole seconds.
#[allow(clippy::cast_possible_truncation, reason = "the parser refuses offsets beyond 24 h, and `as` saturates")]
fn offset_seconds(offset_hours: f64) -> i64 {
    (offset_hours * 3600.0).round() as i64
}

/// The UTC instant (µs since 1970-01-01) of a stamp: day number `days` (see
/// [`days_from_civil`]), hour and minute, at `offset_s` seconds from UTC.
fn instant_us(days: i64, hour: i32, minute: i32, offset_s: i64) -> i64 {
    (days * 86_400 + i64::from(hour) * 3600 + i64::from(minute) * 60 - offset_s) * 1_000_000
}

/// Schema metadata key holding the metadata JSON.
pub const SCHEMA_METADATA_KEY: &str = "climate_metadata";

/// Year … Minute and the timestamp field.
pub fn time_fields(time_zone: &str) -> Vec<Field> {
    let mut fields: Vec<Field> = ["Year", "Month", "Day", "Hour", "Minute"]
        .iter()
        .map(|name| Field::new(*name, DataType::Int32, false))
        .collect();
    fields.push(Field::new("timestamp", DataType::Timestamp(TimeUnit::Microsecond, Some(time_zone.into())), false));
    fields
}

/// The Float64 field of a data column, with `long_name` (and `unit` for the 12) as field metadata.
pub fn column_field(column: &DataColumn) -> Field {
    let mut metadata = HashMap::from([("long_name".to_string(), column.long_name.clone())]);
    if let Some(attribute) = column.attribute() {
        metadata.insert("unit".to_string(), attribute.unit().to_string());
    }
    Field::new(column.name.clone(), DataType::Float64, false).with_metadata(metadata)
}

/// One row per metadata record: `site` then the typed metadata fields.
pub fn metadata_record_batch(rows: &[(String, &ClimateMetadata)]) -> Result<RecordBatch, ArrowError> {
    let text = |get: fn(&ClimateMetadata) -> &str| -> ArrayRef {
        Arc::new(StringArray::from(rows.iter().map(|(_, m)| get(m)).collect::<Vec<&str>>()))
    };
    let number = |get: fn(&ClimateMetadata) -> Option<f64>| -> ArrayRef {
        Arc::new(Float64Array::from(rows.iter().map(|(_, m)| get(m)).collect::<Vec<Option<f64>>>()))
    };
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("site", Arc::new(StringArray::from(rows.iter().map(|(s, _)| s.as_str()).collect::<Vec<&str>>()))),
        ("source", text(|m| &m.source)),
        ("location_id", text(|m| &m.location_id)),
        ("city", text(|m| &m.city)),
        ("county", text(|m| &m.county)),
        ("state", text(|m| &m.state)),
        ("country", text(|m| &m.country)),
        ("offshore", Arc::new(BooleanArray::from(rows.iter().map(|(_, m)| m.offshore).collect::<Vec<Option<bool>>>()))),
        ("eez", text(|m| &m.eez)),
        ("latitude", number(|m| m.latitude)),
        ("longitude", number(|m| m.longitude)),
        ("time_zone", number(|m| m.time_zone)),
        ("elevation", number(|m| m.elevation)),
        ("local_time_zone", number(|m| m.local_time_zone)),
        ("ghi_units", text(|m| &m.units.ghi)),
        ("dni_units", text(|m| &m.units.dni)),
        ("dhi_units", text(|m| &m.units.dhi)),
        ("temperature_units", text(|m| &m.units.temperature)),
        ("wind_speed_units", text(|m| &m.units.wind_speed)),
        ("relative_humidity_units", text(|m| &m.units.relative_humidity)),
        ("wind_direction_units", text(|m| &m.units.wind_direction)),
        ("version", text(|m| &m.version)),
    ];
    let fields: Vec<Field> =
        columns.iter().map(|(name, array)| Field::new(*name, array.data_type().clone(), true)).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns.into_iter().map(|(_, array)| array).collect())
}

// ---------------------------------------------------------------------------------------------
// Writer

/// Writes the table in the spec's layout: metadata names, metadata values, column names, rows.
pub fn write_climate_csv(table: &ClimateTable) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024 + table.len() * (20 + 8 * table.columns.len()));
    write_header_rows(table, &mut out);
    let dates = table.year.iter().zip(&table.month).zip(&table.day);
    let times = table.hour.iter().zip(&table.minute);
    for (row, (((&year, &month), &day), (&hour, &minute))) in dates.zip(times).enumerate() {
        for (index, value) in [year, month, day, hour, minute].into_iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            push_int(&mut out, value);
        }
        for column in &table.columns {
            out.push(b',');
            push_f64(&mut out, column.values.get(row).copied().unwrap_or(f64::NAN));
        }
        out.push(b'\n');
    }
    out
}

fn write_header_rows(table: &ClimateTable, out: &mut Vec<u8>) {
    let mut writer =
        csv::WriterBuilder::new().flexible(true).terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    let column_names: Vec<&str> = ["Year", "Month", "Day", "Hour", "Minute"]
        .into_iter()
        .chain(table.columns.iter().map(|c| c.long_name.as_str()))
        .collect();
    let rows = [
        METADATA_NAMES.iter().map(|s| s.to_string()).collect::<Vec<String>>(),
        table.metadata.values().to_vec(),
        column_names.iter().map(|s| s.to_string()).collect(),
    ];
    for row in rows {
        // Writing records into a Vec cannot fail.
        let _ = writer.write_record(&row);
    }
    if let Ok(bytes) = writer.into_inner() {
        out.extend_from_slice(&bytes);
    }
}

fn push_int(out: &mut Vec<u8>, value: i32) {
    if value < 0 {
        out.push(b'-');
    }
    push_digits(out, u64::from(value.unsigned_abs()), 0);
}

/// Writes `n`, with a decimal point `decimals` digits from the right (zero-padded: 5 with 2
/// decimals is `0.05`).
#[allow(clippy::indexing_slicing, clippy::cast_possible_truncation, reason = "24 places hold the 20 digits of a u64 and the point of at most 4 decimals; n % 10 < 10")]
fn push_digits(out: &mut Vec<u8>, mut n: u64, decimals: u32) {
    let mut digits = [0u8; 24];
    let mut at = digits.len();
    let mut written = 0;
    loop {
        if written == decimals && decimals > 0 {
            at -= 1;
            digits[at] = b'.';
        }
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        written += 1;
        if n == 0 && written > decimals {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Writes the shortest text that parses back to `value`, exactly as `Display` does. Values
/// with at most four decimals (all the service writes) take an integer fast path: the fewest
/// decimals d for which round(value·10^d) / 10^d == value give a decimal that parses back to
/// `value`; below 10^15 at that scale no shorter decimal can, so the text is `Display`'s.
#[allow(clippy::indexing_slicing, clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "decimals <= 4 indexes the 16 powers; |scaled| < 1e15 fits a u64")]
fn push_f64(out: &mut Vec<u8>, value: f64) {
    for decimals in 0..=4u32 {
        let scale = POWERS_OF_TEN[decimals as usize];
        let scaled = (value * scale).round();
        if scaled.abs() < 1e15 && scaled / scale == value {
            if value.is_sign_negative() {
                out.push(b'-');
            }
            push_digits(out, scaled.abs() as u64, decimals);
            return;
        }
    }
    out.extend_from_slice(value.to_string().as_bytes());
}

// ---------------------------------------------------------------------------------------------
// Parser

/// Role of one column of row 3.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Slot {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Value(usize),
    Skip,
}

/// Blank lines tolerated on top of [`MAX_CSV_ROWS`] before the rows are counted exactly.
const BLANK_LINE_ALLOWANCE: usize = 1024;

/// Shared bodies smaller than this are parsed on one thread.
const PARALLEL_MIN_BYTES: usize = 128 * 1024;

/// Parses a climate CSV body on this thread (the zip reader parses its entries in parallel). An
/// error answer in place of CSV gives `ErrorBody`.
pub fn parse_climate_csv(body: &[u8]) -> Result<ClimateTable, ClimateCsvError> {
    parse(BodySource::Borrowed(body)).map(|parsed| parsed.table)
}

/// A body parser threads can read without copying it: a Python `bytes`, a response's bytes.
pub type SharedBody = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// [`parse_climate_csv`] of a shared body, with the rows' instants: a large body is cut at line
/// ends into chunks parsed in parallel (see `parser_threads`), which read it in place.
pub fn read_climate_csv(body: SharedBody) -> Result<ParsedClimateCsv, ClimateCsvError> {
    parse(BodySource::Shared(body))
}

/// A parsed body: the table and the UTC instants of its rows, computed while parsing.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedClimateCsv {
    pub table: ClimateTable,
    timestamps_us: Vec<i64>,
}

impl ParsedClimateCsv {
    /// [`ClimateTable::into_record_batch`] with the instants the parser computed.
    pub fn into_record_batch(self) -> Result<RecordBatch, ArrowError> {
        self.table.record_batch(self.timestamps_us)
    }
}

/// The body being parsed: borrowed, or shared with the parser threads.
enum BodySource<'a> {
    Borrowed(&'a [u8]),
    Shared(SharedBody),
}

impl BodySource<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            BodySource::Borrowed(bytes) => bytes,
            BodySource::Shared(body) => (**body).as_ref(),
        }
    }
}

/// [`read_climate_csv`] of either kind of body (only a shared one gets parser threads).
fn parse(source: BodySource<'_>) -> Result<ParsedClimateCsv, ClimateCsvError> {
    let body = source.bytes();
    let bytes = body.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(body);
    let bom = body.len() - bytes.len();
    if let Some(error) = detect_error_body(bytes) {
        return Err(error);
    }
    // Claimed before the header is read, so their start-up overlaps it (see `parser_threads`).
    let helpers = match source {
        BodySource::Shared(_) if bytes.len() >= PARALLEL_MIN_BYTES => Helpers::claim_idle(),
        _ => Helpers::default(),
    };
    let (header, data_start) = read_header_rows(bytes)?;
    let [meta_names, meta_values, column_names] = header;
    let metadata = ClimateMetadata::from_pairs(&meta_names, &meta_values);
    let (slots, columns) = plan_columns(&column_names)?;
    let lines = count_newlines(bytes.get(data_start..).unwrap_or_default());
    if lines > MAX_CSV_ROWS + BLANK_LINE_ALLOWANCE {
        return Err(ClimateCsvError::Malformed {
            line: FIRST_DATA_LINE,
            message: format!("more than {MAX_CSV_ROWS} data rows (the limit: a leap year of one-minute data)"),
        });
    }
    for (name, offset) in [("Time Zone", metadata.time_zone), ("Local Time Zone", metadata.local_time_zone)] {
        if let Some(hours) = offset.filter(|hours| !(-24.0..=24.0).contains(hours)) {
            return Err(ClimateCsvError::Malformed { line: 2, message: format!("{name} {hours} is not an offset from UTC in hours") });
        }
    }
    let offset_s = offset_seconds(metadata.time_zone.unwrap_or(0.0));
    let layout = Arc::new(RowLayout::new(slots, column_names, columns.len(), offset_s));
    let rows = parse_chunks(&source, bom + data_start, &layout, helpers)?;
    if rows.len() > MAX_CSV_ROWS {
        return Err(ClimateCsvError::Malformed {
            line: FIRST_DATA_LINE,
            message: format!("more than {MAX_CSV_ROWS} data rows (the limit: a leap year of one-minute data)"),
        });
    }
    let [year, month, day, hour, minute] = rows.stamps;
    let table = ClimateTable {
        metadata,
        year,
        month,
        day,
        hour,
        minute,
        columns: columns
            .into_iter()
            .zip(rows.values)
            .map(|((name, long_name), values)| DataColumn { name, long_name, values })
            .collect(),
    };
    Ok(ParsedClimateCsv { table, timestamps_us: rows.instants })
}

/// Parses the data rows from `data_start`: cut into one chunk per claimed parser thread plus
/// one, the later chunks handed to those threads first, the first parsed on this thread, and
/// each thread's rows appended in order (by that thread, see `parser_threads`). The first
/// chunk's vectors get room for the later chunks' rows too, estimated from its bytes per line
/// with 1/16 slack (too little only costs a reallocation when appending). Lines are counted
/// by each chunk's parser; the later chunks number theirs from the first data line, moved
/// down by the lines before them.
#[allow(clippy::indexing_slicing, reason = "cut_rows gives at least one chunk, each a range of `bytes`")]
fn parse_chunks(
    source: &BodySource<'_>,
    data_start: usize,
    layout: &Arc<RowLayout>,
    mut helpers: Helpers,
) -> Result<Rows, ClimateCsvError> {
    let bytes = source.bytes();
    let chunks = cut_rows(bytes, data_start, helpers.count() + 1);
    let pending: Vec<PendingChunk> = match source {
        BodySource::Shared(body) => {
            chunks[1..].iter().map_while(|chunk| Some(helpers.take()?.parse(body, chunk.clone(), layout))).collect()
        }
        BodySource::Borrowed(_) => Vec::new(),
    };
    // A body with fewer lines than threads leaves some without a chunk.
    drop(helpers);
    let first = chunks[0].clone();
    let lines = count_newlines(&bytes[first.clone()]);
    let later_bytes = bytes.len() - first.end;
    let later_rows = (later_bytes * (lines + 1) / first.len().max(1)) * 17 / 16;
    let rows = Rows::with_capacity(lines + 1 + later_rows, layout.value_columns);
    let mut joined = parse_rows(&bytes[..first.end], first.start, FIRST_DATA_LINE, layout, rows);
    let mut lines_before = lines;
    for chunk in pending {
        joined = chunk.join(joined, lines_before).map(|(rows, lines)| {
            lines_before += lines;
            rows
        });
    }
    joined
}

/// What row 3 says about each field of a data row.
struct RowLayout {
    slots: Vec<Slot>,
    /// The stamps' offset from UTC, seconds.
    offset_s: i64,
    /// The column names of row 3 (for error messages).
    names: Vec<String>,
    value_columns: usize,
    /// The row starts with Year, Month, Day (see [`StampPrediction`]).
    date_first: bool,
    /// Hour and Minute follow them.
    time_follows_date: bool,
    /// Index of the first slot of the trailing run of value columns (the slots' length when
    /// the last slot is no value); value columns are numbered in slot order, so the run holds
    /// the last columns.
    value_run_start: usize,
}

impl RowLayout {
    fn new(slots: Vec<Slot>, names: Vec<String>, value_columns: usize, offset_s: i64) -> RowLayout {
        let date_first = slots.starts_with(&[Slot::Year, Slot::Month, Slot::Day]);
        let time_follows_date = slots.starts_with(&[Slot::Year, Slot::Month, Slot::Day, Slot::Hour, Slot::Minute]);
        let value_run_start = slots.iter().rposition(|slot| !matches!(slot, Slot::Value(_))).map_or(0, |last| last + 1);
        RowLayout { slots, offset_s, names, value_columns, date_first, time_follows_date, value_run_start }
    }
}

/// Line number of the first data row (after the two metadata rows and the column names).
const FIRST_DATA_LINE: usize = 4;

/// Cuts the data rows at line ends into at most `parts` byte ranges of about equal size (fewer
/// when the body has fewer lines).
#[allow(clippy::indexing_slicing, reason = "every cut point is at most the body's length")]
fn cut_rows(bytes: &[u8], data_start: usize, parts: usize) -> Vec<Range<usize>> {
    let size = bytes.len() - data_start;
    let mut chunks = Vec::with_capacity(parts);
    let mut start = data_start;
    for part in 1..=parts {
        let target = if part == parts { bytes.len() } else { (data_start + size * part / parts).max(start) };
        let end = match bytes[target..].iter().position(|&b| b == b'\n') {
            Some(offset) if part < parts => target + offset + 1,
            _ => bytes.len(),
        };
        chunks.push(start..end);
        start = end;
        if end == bytes.len() {
            break;
        }
    }
    chunks
}

/// Number of `\n` bytes, eight at a time: in x = word ^ 0x0A… a byte is zero exactly where the
/// word had a newline, and !(((x & 0x7F…) + 0x7F…) | x | 0x7F…) sets the high bit of exactly
/// those bytes. Shifted down, the bits add up per byte lane (no popcount: the baseline x86-64
/// target emulates it); a lane counts at most 255 words, then the lanes are summed.
fn count_newlines(bytes: &[u8]) -> usize {
    const LOW_SEVEN: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const NEWLINES: u64 = 0x0A0A_0A0A_0A0A_0A0A;
    const BYTE_LANES: u64 = 0x00FF_00FF_00FF_00FF;
    bytes
        .chunks(8 * 255)
        .map(|block| {
            let words = block.chunks_exact(8);
            let tail = words.remainder().iter().filter(|&&b| b == b'\n').count();
            let lanes = words.fold(0u64, |lanes, word| {
                let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8])) ^ NEWLINES;
                let newline_high_bits = !(((x & LOW_SEVEN) + LOW_SEVEN) | x | LOW_SEVEN);
                lanes + (newline_high_bits >> 7)
            });
            let pairs = (lanes & BYTE_LANES) + ((lanes >> 8) & BYTE_LANES);
            tail + (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize
        })
        .sum()
}

/// Parsed data rows of one chunk: the stamps, their UTC instants (µs) and the values.
struct Rows {
    stamps: [Vec<i32>; 5],
    instants: Vec<i64>,
    values: Vec<Vec<f64>>,
}

impl Rows {
    fn with_capacity(rows: usize, value_columns: usize) -> Rows {
        Rows {
            stamps: std::array::from_fn(|_| Vec::with_capacity(rows)),
            instants: Vec::with_capacity(rows),
            values: (0..value_columns).map(|_| Vec::with_capacity(rows)).collect(),
        }
    }

    fn len(&self) -> usize {
        self.stamps[0].len()
    }

    /// The stamp of a row whose date is day number `days`, and its instant.
    fn push_stamp(&mut self, stamp: [i32; STAMP_FIELDS], days: i64, offset_s: i64) {
        for (column, value) in self.stamps.iter_mut().zip(stamp) {
            column.push(value);
        }
        self.instants.push(instant_us(days, stamp[3], stamp[4], offset_s));
    }

    /// Drops values pushed for a row whose stamp was not pushed (a row left half-read).
    fn truncate_values(&mut self) {
        let rows = self.len();
        for column in &mut self.values {
            column.truncate(rows);
        }
    }

    /// Moves the rows of `other` after these, leaving `other` empty (with its capacity).
    fn append(&mut self, other: &mut Rows) {
        for (mine, theirs) in self.stamps.iter_mut().zip(other.stamps.iter_mut()) {
            mine.append(theirs);
        }
        self.instants.append(&mut other.instants);
        for (mine, theirs) in self.values.iter_mut().zip(other.values.iter_mut()) {
            mine.append(theirs);
        }
    }

    /// Empty again, keeping the vectors, with room for `rows` rows of `value_columns` values.
    fn reset(&mut self, rows: usize, value_columns: usize) {
        self.values.resize_with(value_columns, Vec::new);
        for column in &mut self.stamps {
            column.clear();
            column.reserve(rows);
        }
        self.instants.clear();
        self.instants.reserve(rows);
        for column in &mut self.values {
            column.clear();
            column.reserve(rows);
        }
    }
}

/// Parses the data lines from `start` to the end of `bytes` into `rows`, the first being line
/// `first_line`. Rows of plain numbers take [`plain_row`]; any other row (blank lines,
/// exponents, empty values, errors) is read again by the [`Scanner`], which holds every rule
/// and every error message.
fn parse_rows(
    bytes: &[u8],
    start: usize,
    first_line: usize,
    layout: &RowLayout,
    mut rows: Rows,
) -> Result<Rows, ClimateCsvError> {
    let mut scanner = Scanner { bytes, at: start, line: first_line };
    let mut stamps = StampPrediction::default();
    while scanner.at < bytes.len() {
        if let Some(next_row) = plain_row(bytes, scanner.at, layout, &mut stamps, &mut rows) {
            scanner.at = next_row;
            scanner.line += 1;
            continue;
        }
        rows.truncate_values();
        if !scanner.skip_blank_lines() {
            break;
        }
        scanner.row(layout, &mut rows)?;
    }
    Ok(rows)
}

/// One data row of plain numbers (see [`plain_number`]) ending in `\n`, `\r\n` or the end of the
/// chunk, with a valid stamp: the values are pushed onto `rows` and the start of the next row
/// is returned. `None` when anything else is met, or when the row does not end in a run of
/// value columns; values of this row may then have been pushed already
/// (`Rows::truncate_values` drops them). Stamp fields the row starts with as `stamps`
/// predicts are taken from the prediction, the others parsed (and checked).
#[inline]
#[allow(
    clippy::indexing_slicing,
    clippy::cast_sign_loss,
    reason = "value slots index the layout's own columns and stamp fields the five-field stamp; the stamp is checked before its casts"
)]
fn plain_row(
    bytes: &[u8],
    row_start: usize,
    layout: &RowLayout,
    stamps: &mut StampPrediction,
    rows: &mut Rows,
) -> Option<usize> {
    let mut stamp = [0i32; STAMP_FIELDS];
    let (known_fields, known_days, mut at) = stamps.known_fields(bytes, row_start, &mut stamp);
    // Where each stamp field read here ends (after its comma), for the next prediction.
    let mut stamp_ends = [row_start; STAMP_FIELDS];
    for slot in layout.slots.get(known_fields..layout.value_run_start)? {
        let (number, end) = plain_number(bytes, at)?;
        let stamp_field = match *slot {
            Slot::Year => 0,
            Slot::Month => 1,
            Slot::Day => 2,
            Slot::Hour => 3,
            Slot::Minute => 4,
            Slot::Value(column) => {
                rows.values[column].push(number.value());
                at = after_comma(bytes, end)?;
                continue;
            }
            Slot::Skip => return None,
        };
        stamp[stamp_field] = number.whole()?;
        at = after_comma(bytes, end)?;
        stamp_ends[stamp_field] = at;
    }
    let run_columns = layout.value_columns - (layout.slots.len() - layout.value_run_start);
    let (last_column, run) = rows.values.get_mut(run_columns..)?.split_last_mut()?;
    for column in run {
        let (number, end) = plain_number(bytes, at)?;
        column.push(number.value());
        at = after_comma(bytes, end)?;
    }
    let (number, end) = plain_number(bytes, at)?;
    last_column.push(number.value());
    let next_row = match bytes.get(end) {
        None => end,
        Some(b'\n') => end + 1,
        Some(b'\r') if bytes.get(end + 1) == Some(&b'\n') => end + 2,
        Some(_) => return None,
    };
    if known_fields < STAMP_FIELDS {
        check_stamp(stamp, 0).ok()?;
    }
    let days = known_days.unwrap_or_else(|| days_from_civil(stamp[0], stamp[1] as u32, stamp[2] as u32));
    rows.push_stamp(stamp, days, layout.offset_s);
    let ends = stamp_ends.map(|end| end.saturating_sub(row_start));
    stamps.learn(layout, &bytes[row_start..], known_fields, ends, stamp, days);
    Some(next_row)
}

/// The offset after the comma that must follow a field ending at `end`.
#[inline]
fn after_comma(bytes: &[u8], end: usize) -> Option<usize> {
    (bytes.get(end) == Some(&b',')).then_some(end + 1)
}

/// Year, Month, Day, Hour, Minute.
const STAMP_FIELDS: usize = 5;

/// The stamp fields the next row is expected to start with, learnt from the rows before:
/// hourly rows repeat `Year,Month,Day,` 24 times and step the hour by one, so a row that starts
/// with the expected bytes has the expected values, and those fields are compared (a word or
/// two) instead of parsed and checked. Only for rows that start with Year, Month, Day (and
/// Hour, Minute for the time).
#[derive(Debug, Clone, Default)]
struct StampPrediction {
    /// `Year,Month,Day,` of the last row, that date (checked when it was read) and its day
    /// number.
    date: Option<(FieldText, [i32; 3], i64)>,
    /// `Hour,Minute,` for every hour with the last minute read, as written.
    times: Option<HourTexts>,
    /// The last row's hour.
    last_hour: i32,
}

/// `Hour,Minute,` for the hours 0–23 (hours as written without leading zeros) with one minute.
#[derive(Debug, Clone)]
struct HourTexts {
    minute_text: FieldText,
    minute: i32,
    hours: [FieldText; 24],
}

impl HourTexts {
    /// `None` when a text would be longer than 16 bytes.
    fn new(minute_text: &[u8], minute: i32) -> Option<HourTexts> {
        let text = |hour: usize| FieldText::new(&[format!("{hour},").as_bytes(), minute_text].concat());
        let hours = (0..24).map(text).collect::<Option<Vec<FieldText>>>()?.try_into().ok()?;
        Some(HourTexts { minute_text: FieldText::new(minute_text)?, minute, hours })
    }
}

impl StampPrediction {
    /// How many leading stamp fields (0, 3 or 5) the row at `row_start` has as predicted, with
    /// their values put in `stamp`, the day number of a predicted date and the offset after
    /// the predicted fields.
    #[inline]
    fn known_fields(
        &self,
        bytes: &[u8],
        row_start: usize,
        stamp: &mut [i32; STAMP_FIELDS],
    ) -> (usize, Option<i64>, usize) {
        let Some((date_text, date, days)) = self.date.filter(|(text, _, _)| text.starts(bytes, row_start)) else {
            return (0, None, row_start);
        };
        stamp[..3].copy_from_slice(&date);
        let at = row_start + date_text.length;
        let next_hour = self.last_hour + 1;
        let time = self
            .times
            .as_ref()
            .and_then(|times| times.hours.get(usize::try_from(next_hour).ok()?).map(|text| (text, times.minute)));
        match time.filter(|(text, _)| text.starts(bytes, at)) {
            Some((time_text, minute)) => {
                stamp[3] = next_hour;
                stamp[4] = minute;
                (STAMP_FIELDS, Some(days), at + time_text.length)
            }
            None => (3, Some(days), at),
        }
    }

    /// Learns from a row read with `known_fields` predicted: `row` starts with it, `ends` are
    /// the offsets in `row` after the stamp fields read in it, `stamp` is its stamp and `days`
    /// the day number of its date.
    #[inline]
    #[allow(clippy::indexing_slicing, reason = "`ends` are offsets of this row's own fields")]
    fn learn(
        &mut self,
        layout: &RowLayout,
        row: &[u8],
        known_fields: usize,
        ends: [usize; STAMP_FIELDS],
        stamp: [i32; STAMP_FIELDS],
        days: i64,
    ) {
        self.last_hour = stamp[3];
        if known_fields == 0 && layout.date_first {
            self.date = FieldText::new(&row[..ends[2]]).map(|text| (text, [stamp[0], stamp[1], stamp[2]], days));
        }
        if known_fields < STAMP_FIELDS && layout.time_follows_date {
            self.learn_minute(&row[ends[3]..ends[4]], stamp[4]);
        }
    }

    /// A minute read as `text`: the hour texts are made again when it is not the last one.
    #[cold]
    fn learn_minute(&mut self, text: &[u8], minute: i32) {
        let same = self.times.as_ref().is_some_and(|times| times.minute == minute && times.minute_text.is(text));
        if !same {
            self.times = HourTexts::new(text, minute);
        }
    }
}

/// Up to 16 bytes of text in two little-endian words, with masks of the bytes that belong to it.
#[derive(Debug, Clone, Copy)]
struct FieldText {
    words: [u64; 2],
    masks: [u64; 2],
    length: usize,
}

#[allow(clippy::indexing_slicing, reason = "the words are cut from 16-byte arrays")]
impl FieldText {
    /// `None` for text longer than 16 bytes.
    fn new(text: &[u8]) -> Option<FieldText> {
        let mut padded = [0u8; 16];
        padded.get_mut(..text.len())?.copy_from_slice(text);
        let word = |half: usize| u64::from_le_bytes(padded[8 * half..8 * half + 8].try_into().unwrap_or([0; 8]));
        let mask = |half: usize| match text.len().saturating_sub(8 * half).min(8) {
            8 => u64::MAX,
            bytes => (1u64 << (8 * bytes)) - 1,
        };
        Some(FieldText { words: [word(0), word(1)], masks: [mask(0), mask(1)], length: text.len() })
    }

    /// This is `text`.
    fn is(&self, text: &[u8]) -> bool {
        FieldText::new(text).is_some_and(|other| other.words == self.words && other.length == self.length)
    }

    /// The bytes at `at` start with this text.
    #[inline]
    fn starts(&self, bytes: &[u8], at: usize) -> bool {
        let Some(window) = bytes.get(at..at + 16) else {
            return false;
        };
        let word = |half: usize| u64::from_le_bytes(window[8 * half..8 * half + 8].try_into().unwrap_or([0; 8]));
        ((word(0) ^ self.words[0]) & self.masks[0]) | ((word(1) ^ self.words[1]) & self.masks[1]) == 0
    }
}

/// A plain decimal as written: sign, digits and where the decimal point was.
#[derive(Debug, Clone, Copy)]
struct PlainNumber {
    negative: bool,
    /// The digits without the point, below 10^15.
    mantissa: u64,
    /// Digits after the point.
    fraction_digits: usize,
    has_point: bool,
}

#[allow(
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    reason = "a plain number has at most 15 digits (below 2^53 and 10^15, fraction digits within the table); stamp fields are below 10^9"
)]
impl PlainNumber {
    /// The value, bit-identical to the standard parser's: the mantissa (below 2^53) and
    /// 10^fraction_digits are exact in f64, so one division rounds once, correctly (Clinger's
    /// fast path).
    #[inline]
    fn value(self) -> f64 {
        // Through i64 (exact below 10^15): x86-64 converts signed integers in one instruction.
        let magnitude = self.mantissa as i64 as f64 / POWERS_OF_TEN[self.fraction_digits];
        if self.negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// The number as a stamp field: digits only, below 10^9.
    #[inline]
    fn whole(self) -> Option<i32> {
        if self.has_point || self.mantissa >= 1_000_000_000 {
            return None;
        }
        let magnitude = self.mantissa as i32;
        Some(if self.negative { -magnitude } else { magnitude })
    }
}

/// Most significant digits a [`PlainNumber`] takes (10^15 < 2^53).
const PLAIN_DIGITS: usize = 15;

/// The number at `at` when it is plain — `-?digits[.digits]`, at least one digit, at most
/// [`PLAIN_DIGITS`] — and the offset after it; `None` sends the field to the standard parser.
/// A byte loop: field lengths repeat from row to row, so its exits are predicted and the next
/// field's start never waits for arithmetic (a SWAR parser of eight bytes at a time ran no
/// faster here: it chains each field's start to the previous field's bit arithmetic).
#[inline]
fn plain_number(bytes: &[u8], at: usize) -> Option<(PlainNumber, usize)> {
    let negative = bytes.get(at) == Some(&b'-');
    let integer_start = at + usize::from(negative);
    let (mut mantissa, integer_end) = digit_run(bytes, integer_start, 0);
    let has_point = bytes.get(integer_end) == Some(&b'.');
    let mut end = integer_end;
    if has_point {
        (mantissa, end) = digit_run(bytes, integer_end + 1, mantissa);
    }
    let fraction_digits = if has_point { end - integer_end - 1 } else { 0 };
    let digits = integer_end - integer_start + fraction_digits;
    if digits == 0 || digits > PLAIN_DIGITS {
        return None;
    }
    Some((PlainNumber { negative, mantissa, fraction_digits, has_point }, end))
}

/// Consumes the digits from `at`, appending them to `value` (wrapping: callers bound the
/// count): the new value and the offset after the digits.
#[inline]
fn digit_run(bytes: &[u8], mut at: usize, mut value: u64) -> (u64, usize) {
    while let Some(digit) = bytes.get(at).map(|b| b.wrapping_sub(b'0')).filter(|&d| d <= 9) {
        value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
        at += 1;
    }
    (value, at)
}

/// An error body in place of CSV: JSON, XML/HTML, or the gateway's `Error Code,Error Message`.
fn detect_error_body(bytes: &[u8]) -> Option<ClimateCsvError> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    let head = bytes.get(start..)?;
    let looks_like_error = matches!(head.first(), Some(b'{' | b'[' | b'<'))
        || head.get(..10).is_some_and(|start| start.eq_ignore_ascii_case(b"error code"));
    if !looks_like_error {
        return None;
    }
    let status = serde_json::from_slice::<Value>(head)
        .ok()
        .and_then(|v| v.get("status").and_then(Value::as_u64))
        .and_then(|s| u16::try_from(s).ok());
    let parsed = parse_error_body(head);
    let messages =
        if parsed.messages.is_empty() { vec!["the body is not a climate CSV".to_string()] } else { parsed.messages };
    Some(ClimateCsvError::ErrorBody { status, code: parsed.code, messages })
}

/// Rows 1–3, fields trimmed, and the byte offset where the data rows begin. Read as the `csv`
/// crate reads records (quotes at a field's start, `""` inside quotes, blank lines skipped, `\n`,
/// `\r\n` or `\r` ending a record), by hand: building the crate's reader costs more than the
/// three rows (tested against the crate).
fn read_header_rows(bytes: &[u8]) -> Result<([Vec<String>; 3], usize), ClimateCsvError> {
    let mut rows: [Vec<String>; 3] = Default::default();
    let mut at = 0;
    for (index, row) in rows.iter_mut().enumerate() {
        let line = index + 1;
        while matches!(bytes.get(at), Some(b'\n' | b'\r')) {
            at += 1;
        }
        if at == bytes.len() {
            return Err(ClimateCsvError::Malformed {
                line,
                message: "the body ends before the three header rows (metadata names, metadata values, column names)"
                    .into(),
            });
        }
        let (fields, next) = header_record(bytes, at).ok_or_else(|| ClimateCsvError::Malformed {
            line,
            message: format!("more than {MAX_CSV_COLUMNS} fields (the limit; a climate CSV has about 20)"),
        })?;
        *row = fields
            .into_iter()
            .enumerate()
            .map(|(field, text)| {
                String::from_utf8(text).map(|text| text.trim().to_string()).map_err(|_| ClimateCsvError::Malformed {
                    line,
                    message: format!("unreadable header row: invalid UTF-8 in field {}", field + 1),
                })
            })
            .collect::<Result<_, _>>()?;
        at = next;
    }
    Ok((rows, at))
}

/// The fields of the CSV record at `at` and the offset after its line end; `None` past
/// [`MAX_CSV_COLUMNS`] fields.
fn header_record(bytes: &[u8], mut at: usize) -> Option<(Vec<Vec<u8>>, usize)> {
    let mut fields = Vec::new();
    let mut field = Vec::new();
    let mut field_started = false;
    let mut quoted = false;
    while let Some(&byte) = bytes.get(at) {
        at += 1;
        match byte {
            b'"' if quoted && bytes.get(at) == Some(&b'"') => {
                field.push(b'"');
                at += 1;
            }
            b'"' if quoted => quoted = false,
            _ if quoted => field.push(byte),
            b'"' if !field_started => {
                quoted = true;
                field_started = true;
            }
            b',' => {
                if fields.len() >= MAX_CSV_COLUMNS {
                    return None;
                }
                fields.push(std::mem::take(&mut field));
                field_started = false;
            }
            b'\n' | b'\r' => {
                if byte == b'\r' && bytes.get(at) == Some(&b'\n') {
                    at += 1;
                }
                break;
            }
            _ => {
                field.push(byte);
                field_started = true;
            }
        }
    }
    fields.push(field);
    Some((fields, at))
}

/// Slots for row 3 and the (short, long) names of the value columns.
#[allow(clippy::type_complexity)]
fn plan_columns(names: &[String]) -> Result<(Vec<Slot>, Vec<(String, String)>), ClimateCsvError> {
    let mut slots = Vec::with_capacity(names.len());
    let mut columns: Vec<(String, String)> = Vec::new();
    let mut taken: HashSet<String> = HashSet::new();
    for name in names {
        let slot = match normalized_key(name).as_str() {
            "year" => Slot::Year,
            "month" => Slot::Month,
            "day" => Slot::Day,
            "hour" => Slot::Hour,
            "minute" => Slot::Minute,
            "" => Slot::Skip,
            _ => {
                let mut short = short_column_name(name);
                if short.is_empty() {
                    short = normalized_key(name);
                }
                let base = short.clone();
                let mut suffix = 2;
                while taken.contains(&short) {
                    short = format!("{base}_{suffix}");
                    suffix += 1;
                }
                taken.insert(short.clone());
                columns.push((short, name.clone()));
                Slot::Value(columns.len() - 1)
            }
        };
        slots.push(slot);
    }
    for (required, slot) in [("Year", Slot::Year), ("Month", Slot::Month), ("Day", Slot::Day), ("Hour", Slot::Hour)] {
        if !slots.contains(&slot) {
            return Err(ClimateCsvError::Malformed {
                line: 3,
                message: format!("no {required} column among the column names of row 3: this is not a climate CSV"),
            });
        }
    }
    Ok((slots, columns))
}

fn check_stamp(stamp: [i32; 5], line: usize) -> Result<(), ClimateCsvError> {
    let [year, month, day, hour, minute] = stamp;
    let problem = if !(1..=9999).contains(&year) {
        Some(format!("year {year} is not 1–9999"))
    } else if !(1..=12).contains(&month) {
        Some(format!("month {month} is not 1–12"))
    } else if day < 1 || u32::try_from(day).unwrap_or(0) > days_in_month(year, u32::try_from(month).unwrap_or(0)) {
        Some(format!("day {day} does not exist in {year}-{month:02}"))
    } else if !(0..=23).contains(&hour) {
        Some(format!("hour {hour} is not 0–23"))
    } else if !(0..=59).contains(&minute) {
        Some(format!("minute {minute} is not 0–59"))
    } else {
        None
    };
    problem.map_or(Ok(()), |message| Err(ClimateCsvError::Malformed { line, message }))
}

/// 10^k, exact in f64 (every power up to 10^22 is): the writer's decimal scales and the
/// divisors of plain numbers.
const POWERS_OF_TEN: [f64; PLAIN_DIGITS + 1] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/// The general data-row reader: any row [`plain_row`] does not take, with the error messages.
struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
    /// 1-based line of the current row.
    line: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Skips empty lines; false at the end of the body.
    fn skip_blank_lines(&mut self) -> bool {
        loop {
            match self.peek() {
                None => return false,
                Some(b'\n') => {
                    self.at += 1;
                    self.line += 1;
                }
                Some(b'\r') => self.at += 1,
                Some(_) => return true,
            }
        }
    }

    fn malformed(&self, message: String) -> ClimateCsvError {
        ClimateCsvError::Malformed { line: self.line, message }
    }

    fn field_end(&self) -> usize {
        self.bytes
            .get(self.at..)
            .unwrap_or_default()
            .iter()
            .position(|&b| matches!(b, b',' | b'\n' | b'\r'))
            .map_or(self.bytes.len(), |p| self.at + p)
    }

    fn expect_comma(&mut self, index: usize, expected: usize) -> Result<(), ClimateCsvError> {
        if self.peek() == Some(b',') {
            self.at += 1;
            Ok(())
        } else {
            Err(self.malformed(format!("the row has {index} fields, the column names row has {expected}")))
        }
    }

    fn end_of_row(&mut self, expected: usize) -> Result<(), ClimateCsvError> {
        match self.peek() {
            None => Ok(()),
            Some(b'\r') if self.bytes.get(self.at + 1) == Some(&b'\n') => {
                self.at += 2;
                self.line += 1;
                Ok(())
            }
            Some(b'\n') => {
                self.at += 1;
                self.line += 1;
                Ok(())
            }
            Some(b'\r') => {
                self.at += 1;
                self.line += 1;
                Ok(())
            }
            Some(_) => {
                Err(self.malformed(format!("the row has more fields than the {expected} column names of row 3")))
            }
        }
    }

    fn skip_field(&mut self) {
        self.at = self.field_end();
    }

    /// One row by the general rules: fields counted against row 3, numbers by the standard
    /// parser (an empty value is NaN), the stamp checked.
    fn row(&mut self, layout: &RowLayout, rows: &mut Rows) -> Result<(), ClimateCsvError> {
        let fields = layout.slots.len();
        let mut stamp = [0i32; 5];
        for (index, slot) in layout.slots.iter().enumerate() {
            if index > 0 {
                self.expect_comma(index, fields)?;
            }
            match *slot {
                Slot::Year => stamp[0] = self.int("Year")?,
                Slot::Month => stamp[1] = self.int("Month")?,
                Slot::Day => stamp[2] = self.int("Day")?,
                Slot::Hour => stamp[3] = self.int("Hour")?,
                Slot::Minute => stamp[4] = self.int("Minute")?,
                Slot::Value(column) => {
                    let value = self.float(layout.names.get(index).map_or("a value", String::as_str))?;
                    if let Some(values) = rows.values.get_mut(column) {
                        values.push(value);
                    }
                }
                Slot::Skip => self.skip_field(),
            }
        }
        let line = self.line;
        self.end_of_row(fields)?;
        check_stamp(stamp, line)?;
        let [year, month, day, ..] = stamp;
        let days = days_from_civil(year, u32::try_from(month).unwrap_or(0), u32::try_from(day).unwrap_or(0));
        rows.push_stamp(stamp, days, layout.offset_s);
        Ok(())
    }

    /// The field's text and the scanner moved past it.
    fn field(&mut self) -> String {
        let start = self.at;
        self.skip_field();
        String::from_utf8_lossy(self.bytes.get(start..self.at).unwrap_or_default()).into_owned()
    }

    /// A whole number (`2010.0` is one).
    #[allow(clippy::cast_possible_truncation, reason = "a whole value below 10^9 fits an i32")]
    fn int(&mut self, column: &str) -> Result<i32, ClimateCsvError> {
        let text = self.field();
        match text.trim().parse::<f64>() {
            Ok(v) if v.fract() == 0.0 && v.abs() < 1e9 => Ok(v as i32),
            _ => Err(self.malformed(format!("{column} value \"{text}\" is not a whole number"))),
        }
    }

    /// A number; an empty field is NaN.
    fn float(&mut self, column: &str) -> Result<f64, ClimateCsvError> {
        let text = self.field();
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Ok(f64::NAN);
        }
        trimmed.parse::<f64>().map_err(|_| self.malformed(format!("{column} value \"{text}\" is not a number")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_table() -> ClimateTable {
        let metadata = ClimateMetadata {
            source: "sunflux synthetic".into(),
            location_id: "123".into(),
            city: "Boulder, east".into(),
            county: "-".into(),
            state: "Colorado".into(),
            country: "United States".into(),
            offshore: Some(false),
            eez: String::new(),
            latitude: Some(40.02),
            longitude: Some(-105.26),
            time_zone: Some(-7.0),
            elevation: Some(1650.0),
            local_time_zone: Some(-7.0),
            units: Units::service(),
            version: "1.0.0".into(),
            raw: Vec::new(),
        };
        ClimateTable {
            metadata,
            year: vec![2010, 2010],
            month: vec![1, 1],
            day: vec![1, 1],
            hour: vec![0, 1],
            minute: vec![0, 0],
            columns: vec![
                DataColumn::of(Attribute::Ghi, vec![0.0, 12.5]),
                DataColumn::of(Attribute::Temperature2m, vec![-3.25, 1.0 / 3.0]),
            ],
        }
    }

    #[test]
    fn names_map_both_ways() {
        for attribute in Attribute::ALL {
            assert_eq!(Attribute::from_name(attribute.name()), Some(attribute));
            assert_eq!(Attribute::from_column_name(attribute.long_name()), Some(attribute));
            assert_eq!(short_column_name(attribute.long_name()), attribute.name());
        }
        assert_eq!(short_column_name("wind direction at 180m (deg)"), "winddirection_180m");
        assert_eq!(short_column_name("Clearsky DHI"), "clearskydhi");
        assert_eq!(Attribute::WindDirection10m.round_for_file(359.7), 0.0);
        assert_eq!(Attribute::Temperature2m.round_for_file(-0.04), 0.0);
        assert!(Attribute::Temperature2m.round_for_file(-0.04).is_sign_positive());
    }

    #[test]
    fn calendar_matches_known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        for days in -800_000..800_000 {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(expected_rows(2012, true, 60), 8784);
        assert_eq!(expected_rows(2012, false, 60), 8760);
        assert_eq!(expected_rows(2013, true, 60), 8760);
        assert_eq!(expected_rows(2013, true, 7), 0);
        assert_eq!(timestamp_time_zone(0.0), "UTC");
        assert_eq!(timestamp_time_zone(-7.0), "Etc/GMT+7");
        assert_eq!(timestamp_time_zone(-3.5), "UTC");
    }

    #[test]
    fn writer_output_has_the_spec_layout_and_parses_back_exactly() {
        let table = sample_table();
        let text = String::from_utf8(write_climate_csv(&table)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], METADATA_NAMES.join(","));
        assert!(lines[1].starts_with(
            "sunflux synthetic,123,\"Boulder, east\",-,Colorado,United States,False,-,40.02,-105.26,-7,1650,-7,w/m2"
        ));
        assert_eq!(lines[2], "Year,Month,Day,Hour,Minute,GHI,air temperature at 2m (Celsius)");
        assert_eq!(lines[3], "2010,1,1,0,0,0,-3.25");
        let parsed = parse_climate_csv(text.as_bytes()).unwrap();
        assert_eq!(parsed.columns, table.columns);
        assert_eq!(parsed.year, table.year);
        assert_eq!(parsed.metadata.city, "Boulder, east");
        assert_eq!(parsed.metadata.offshore, Some(false));
        assert_eq!(parsed.metadata.latitude, Some(40.02));
        assert_eq!(parsed.metadata.eez, "-");
    }

    #[test]
    fn fast_writer_matches_display() {
        let mut rng = crate::local::prng::SplitMix64::new(8);
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.05,
            -0.05,
            1e14,
            123456.7891,
            0.1 + 0.2,
            1e-7,
            2.5e20,
            f64::NAN,
            f64::INFINITY,
        ];
        for _ in 0..200_000 {
            let decimals = rng.below(6) as i32;
            let raw = (rng.next_f64() - 0.5) * 10f64.powi(rng.below(9) as i32);
            values.push((raw * 10f64.powi(decimals)).round() / 10f64.powi(decimals));
            values.push(raw);
        }
        for value in values {
            let mut fast = Vec::new();
            push_f64(&mut fast, value);
            assert_eq!(String::from_utf8(fast).unwrap(), value.to_string());
        }
    }

    #[test]
    fn listed_numbers_match_the_standard_parser() {
        let cases = [
            "0",
            "-0",
            "1",
            "12.5",
            "-3.25",
            "0.1",
            "1013.2",
            "123456789012345678",
            "9007199254740993",
            "1e5",
            "2.5E-3",
            "-7.0e+2",
            "0.000001",
            "3.14159265358979",
            "1e-30",
            "00012.500",
            "+4.5",
        ];
        for case in cases {
            let body = format!("a\nb\nYear,Month,Day,Hour,x\n2010,1,1,0,{case}\n");
            let parsed = parse_climate_csv(body.as_bytes()).unwrap();
            let value = parsed.columns[0].values[0];
            let expected: f64 = case.parse().unwrap();
            assert_eq!(value.to_bits(), expected.to_bits(), "{case}");
        }
    }

    /// Random numbers of every shape the parser meets — integers and decimals of 1–22 digits,
    /// signs, leading and trailing zeros, exponents — in rows long enough to split over threads,
    /// with the last value at the very end of the body (no newline): each must have exactly the
    /// bits of the standard parser.
    #[test]
    fn random_numbers_parse_like_the_standard_parser() {
        fn random_digits(rng: &mut crate::local::prng::SplitMix64, most: u64) -> String {
            let count = rng.below(most + 1);
            (0..count).map(|_| char::from(b'0' + rng.below(10) as u8)).collect()
        }
        let mut rng = crate::local::prng::SplitMix64::new(29);
        let mut texts = Vec::new();
        for _ in 0..300_000 {
            let sign = ["", "", "-", "+"][rng.below(4) as usize];
            let longest_whole = if rng.below(4) == 0 { 20 } else { 5 };
            let whole = format!("{}{}", rng.below(10), random_digits(&mut rng, longest_whole));
            let fraction = match rng.below(5) {
                0 => String::new(),
                1 | 2 => format!(".{}", random_digits(&mut rng, 4)),
                3 => format!(".{}", random_digits(&mut rng, 22)),
                _ => {
                    let mantissa_fraction = random_digits(&mut rng, 3);
                    let exponent_sign = ["", "-", "+"][rng.below(3) as usize];
                    format!(".{mantissa_fraction}e{exponent_sign}{}", rng.below(30))
                }
            };
            texts.push(format!("{sign}{whole}{fraction}"));
        }
        let mut body = String::from("a\nb\nYear,Month,Day,Hour,x\n");
        for (row, text) in texts.iter().enumerate() {
            let newline = if row + 1 == texts.len() { "" } else { "\n" };
            body.push_str(&format!("2010,1,1,0,{text}{newline}"));
        }
        let parsed = parse_climate_csv(body.as_bytes()).unwrap();
        for (text, value) in texts.iter().zip(&parsed.columns[0].values) {
            let expected: f64 = text.parse().unwrap();
            assert_eq!(value.to_bits(), expected.to_bits(), "{text}");
        }
    }

    #[test]
    fn malformed_rows_are_located() {
        let body = "a\nb\nYear,Month,Day,Hour,Minute,GHI\n2010,1,1,0,0,5\n2010,1,1,1,0,abc\n";
        let error = parse_climate_csv(body.as_bytes()).unwrap_err();
        assert_eq!(error, ClimateCsvError::Malformed { line: 5, message: "GHI value \"abc\" is not a number".into() });
        let short = "a\nb\nYear,Month,Day,Hour,Minute,GHI\n2010,1,1,0\n";
        assert!(matches!(parse_climate_csv(short.as_bytes()), Err(ClimateCsvError::Malformed { line: 4, .. })));
        let long = "a\nb\nYear,Month,Day,Hour,Minute,GHI\n2010,1,1,0,0,1,2\n";
        assert!(parse_climate_csv(long.as_bytes()).unwrap_err().to_string().contains("more fields"));
        let bad_day = "a\nb\nYear,Month,Day,Hour,Minute,GHI\n2013,2,29,0,0,1\n";
        assert!(parse_climate_csv(bad_day.as_bytes()).unwrap_err().to_string().contains("2013-02"));
        assert!(parse_climate_csv(b"Source\nx\nfoo,bar\n1,2\n").unwrap_err().to_string().contains("not a climate CSV"));
    }

    fn shared(body: &str) -> SharedBody {
        Arc::new(body.as_bytes().to_vec())
    }

    #[test]
    fn large_bodies_split_in_order_and_keep_line_numbers() {
        let mut body = String::from("a\nb\nYear,Month,Day,Hour,Minute,GHI\r\n");
        for row in 0..40_000 {
            body.push_str(&format!("2010,1,1,{},0,{row}.5\r\n", row % 24));
        }
        assert!(body.len() > 2 * PARALLEL_MIN_BYTES);
        let parsed = parse_climate_csv(body.as_bytes()).unwrap();
        assert_eq!(parsed.len(), 40_000);
        assert!(parsed.columns[0].values.iter().enumerate().all(|(i, &v)| v == i as f64 + 0.5));
        assert!(parsed.hour.iter().enumerate().all(|(i, &h)| h == (i % 24) as i32));
        let in_parallel = read_climate_csv(shared(&body)).unwrap();
        assert_eq!(in_parallel.table, parsed);
        assert_eq!(in_parallel.timestamps_us, parsed.timestamps_us());
        assert_eq!(read_climate_csv(shared(&format!("\u{feff}{body}"))).unwrap().table, parsed);
        let broken = body.replacen("2010,1,1,3,0,39987.5", "2010,1,1,3,0,x", 1);
        let error = ClimateCsvError::Malformed { line: 39_991, message: "GHI value \"x\" is not a number".into() };
        assert_eq!(parse_climate_csv(broken.as_bytes()).unwrap_err(), error);
        assert_eq!(read_climate_csv(shared(&broken)).unwrap_err(), error);
    }

    /// Rows the fast path cannot take (blank lines, exponents, empty values, CRLF and LF mixed)
    /// anywhere in a large body: parsed in parallel exactly as on one thread.
    #[test]
    fn shared_bodies_parse_like_borrowed_ones() {
        let mut rng = crate::local::prng::SplitMix64::new(31);
        let mut body = String::from("a\nb\nYear,Month,Day,Hour,Minute,GHI,air temperature at 2m (Celsius)\n");
        let start = days_from_civil(2012, 1, 1);
        for row in 0..20_000i64 {
            let (year, month, day) = civil_from_days(start + row / 24);
            let value = match rng.below(50) {
                0 => "1.5e2".to_string(),
                1 => String::new(),
                _ => format!("{}", rng.below(100_000) as f64 / 100.0),
            };
            let end = if rng.below(2) == 0 { "\n" } else { "\r\n" };
            let blank = if rng.below(100) == 0 { "\n" } else { "" };
            body.push_str(&format!(
                "{year},{month},{day},{},0,{value},-{}.{}{end}{blank}",
                row % 24,
                row % 40,
                row % 10
            ));
        }
        let parsed = parse_climate_csv(body.as_bytes()).unwrap();
        assert_eq!(parsed.len(), 20_000);
        for _ in 0..3 {
            let in_parallel = read_climate_csv(shared(&body)).unwrap();
            // Compared as text: the empty values are NaN, which equals nothing.
            assert_eq!(format!("{:?}", in_parallel.table), format!("{parsed:?}"));
            assert_eq!(in_parallel.timestamps_us, parsed.timestamps_us());
        }
    }

    #[test]
    fn concurrent_parses_share_the_parser_threads() {
        let mut body = String::from("a\nb\nYear,Month,Day,Hour,Minute,GHI\n");
        for row in 0..30_000 {
            body.push_str(&format!("2011,3,{},{},0,{row}\n", 1 + row / 24 % 28, row % 24));
        }
        let expected = parse_climate_csv(body.as_bytes()).unwrap();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..10 {
                        assert_eq!(read_climate_csv(shared(&body)).unwrap().table, expected);
                    }
                });
            }
        });
    }

    /// The stamp fields taken from the prediction (the date repeated, the hour stepped by one)
    /// and those read are the same; a prediction never lets an invalid stamp through.
    #[test]
    fn predicted_stamps_match_the_text() {
        let rows = [
            "2012,2,28,22,0",
            "2012,2,28,23,0",
            "2012,2,29,0,0",
            "2012,2,29,1,0",
            "2012,2,29,1,30",
            "2012,2,29,2,30",
            "2012,2,29,3,00",
            "2012,2,29,4,00",
            "2012,2,29,05,0",
            "2012,2,29,06,0",
            "2012,2,29,7,0",
            "2012,2,29,7,0",
            "2012,2,29,9,0",
            "2012,3,1,10,0",
            "2012,3,1,11,0",
            "2012,03,1,12,0",
            "2012,3,1,13,0",
        ];
        let mut body = String::from("Time Zone\n-7\nYear,Month,Day,Hour,Minute,GHI\n");
        for (index, row) in rows.iter().enumerate() {
            body.push_str(&format!("{row},{index}\n"));
        }
        let parsed = read_climate_csv(shared(&body)).unwrap();
        let table = &parsed.table;
        for (index, row) in rows.iter().enumerate() {
            let fields: Vec<i32> = row.split(',').map(|field| field.parse().unwrap()).collect();
            let stamp =
                [table.year[index], table.month[index], table.day[index], table.hour[index], table.minute[index]];
            assert_eq!(stamp.to_vec(), fields, "{row}");
        }
        assert_eq!(parsed.timestamps_us, table.timestamps_us());
        let next_day = body.replace("2012,3,1,13,0,16", "2012,3,1,23,0,16\n2012,3,1,24,0,17");
        let error = read_climate_csv(shared(&next_day)).unwrap_err();
        assert_eq!(error, ClimateCsvError::Malformed { line: 21, message: "hour 24 is not 0–23".into() });
        let no_leap_day = body.replace("2012,", "2013,");
        assert!(read_climate_csv(shared(&no_leap_day)).unwrap_err().to_string().contains("day 29 does not exist"));
    }

    #[test]
    fn header_rows_read_as_the_csv_crate_reads_them() {
        let bodies: [&[u8]; 9] = [
            b"a,b\n\nc,d\r\ne,\"f,\"\"g\"\"\"\nrest",
            b"a\rb\r\nc\nrest",
            b"\"a\"x,\"b\nc\",d\ne\nf",
            b"a,b\n  \n,\n\"\"\"x\nrest",
            b"x\"y\"z,w\n1\n2\n",
            b"a\n\r\n\r\nb\nc\r\n2010,1",
            b",\n,,\n\n,\n",
            b"Source,City\nNSRDB,\"Boulder, east\"\nYear,Month\n",
            b"a\nb\nc",
        ];
        for body in bodies {
            let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(body);
            let mut record = csv::StringRecord::new();
            let mut expected: Vec<Vec<String>> = Vec::new();
            for _ in 0..3 {
                assert!(reader.read_record(&mut record).unwrap());
                expected.push(record.iter().map(|f| f.trim().to_string()).collect());
            }
            let mut expected_start = reader.position().byte() as usize;
            if body[expected_start - 1] == b'\r' && body.get(expected_start) == Some(&b'\n') {
                expected_start += 1;
            }
            let (rows, data_start) = read_header_rows(body).unwrap();
            assert_eq!(rows.to_vec(), expected, "{}", String::from_utf8_lossy(body));
            assert_eq!(data_start, expected_start, "{}", String::from_utf8_lossy(body));
        }
        assert!(read_header_rows(b"a\n\nb\n\r\n")
            .unwrap_err()
            .to_string()
            .contains("ends before the three header rows"));
        assert!(read_header_rows(b"a\xff\nb\nc\n").unwrap_err().to_string().contains("invalid UTF-8"));
    }

    #[test]
    fn newline_count_matches_a_byte_count() {
        let mut rng = crate::local::prng::SplitMix64::new(12);
        let bytes: Vec<u8> =
            (0..10_007).map(|_| [b'\n', b'\r', b'0', 0x8A, 0x0B, 0x09, 0xFF][rng.below(7) as usize]).collect();
        for start in 0..9 {
            let slice = &bytes[start..];
            assert_eq!(count_newlines(slice), slice.iter().filter(|&&b| b == b'\n').count());
        }
        let only_newlines = vec![b'\n'; 10_007];
        assert_eq!(count_newlines(&only_newlines), only_newlines.len());
    }

    #[test]
    fn crlf_trailing_empty_columns_and_empty_values() {
        let body = "Source,Latitude,Longitude,Time Zone\r\nNSRDB,40,-105,-7\r\nYear,Month,Day,Hour,Minute,DHI,,\r\n2010,1,1,0,30,,,\r\n";
        let parsed = parse_climate_csv(body.as_bytes()).unwrap();
        assert_eq!(parsed.columns.len(), 1);
        assert!(parsed.columns[0].values[0].is_nan());
        assert_eq!(parsed.minute, vec![30]);
        assert_eq!(
            parsed.timestamps_us(),
            vec![(days_from_civil(2010, 1, 1) * 86_400 + 30 * 60 + 7 * 3600) * 1_000_000]
        );
    }

    #[test]
    fn error_bodies_are_recognised() {
        let json = br#"{"inputs":{"body":{},"params":{},"query":{}},"metadata":{"version":"2.0.0"},"status":400,"errors":["Data processing failure."]}"#;
        assert_eq!(
            parse_climate_csv(json).unwrap_err(),
            ClimateCsvError::ErrorBody {
                status: Some(400),
                code: None,
                messages: vec!["Data processing failure.".into()]
            }
        );
        let gateway = b"Error Code,Error Message\nOVER_RATE_LIMIT,You have exceeded your rate limit.\n";
        let ClimateCsvError::ErrorBody { code, .. } = parse_climate_csv(gateway).unwrap_err() else { panic!() };
        assert_eq!(code.as_deref(), Some("OVER_RATE_LIMIT"));
        assert!(matches!(
            parse_climate_csv(b"<html><body>Request rejected</body></html>"),
            Err(ClimateCsvError::ErrorBody { .. })
        ));
    }

    #[test]
    fn ncdb_style_header_and_bytes_literal() {
        let body = "SiteID,Site Timezone,Data Timezone,Longitude,Latitude,Country\n80,-9,-9,-130.756,48.75498,b'Canada'\nYear,Month,Day,Hour,Minute,wind direction at 180m (deg)\n2017,1,1,0,0,347.18\n";
        let parsed = parse_climate_csv(body.as_bytes()).unwrap();
        assert_eq!(parsed.metadata.location_id, "80");
        assert_eq!(parsed.metadata.country, "Canada");
        assert_eq!(parsed.metadata.time_zone, Some(-9.0));
        assert_eq!(parsed.columns[0].name, "winddirection_180m");
        let batch = parsed.into_record_batch().unwrap();
        assert_eq!(batch.num_columns(), 7);
        assert_eq!(
            batch.schema().field(5).data_type(),
            &DataType::Timestamp(TimeUnit::Microsecond, Some("Etc/GMT+9".into()))
        );
    }

    #[test]
    fn record_batch_has_typed_columns_and_metadata() {
        let table = sample_table();
        let batch = table.clone().into_record_batch().unwrap();
        let schema = batch.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["Year", "Month", "Day", "Hour", "Minute", "timestamp", "ghi", "temperature_2m"]);
        assert_eq!(schema.field(6).metadata().get("long_name").map(String::as_str), Some("GHI"));
        let meta: Value = serde_json::from_str(&schema.metadata()[SCHEMA_METADATA_KEY]).unwrap();
        assert_eq!(meta["columns"]["temperature_2m"], "air temperature at 2m (Celsius)");
        assert_eq!(meta["state"], "Colorado");
        assert!(table.check_rows(2010, false, 60).unwrap_err().to_string().contains("expected 8760 rows"));
        let rows = metadata_record_batch(&[("123".into(), &table.metadata)]).unwrap();
        assert_eq!(rows.num_rows(), 1);
    }
}

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
//! - The parser reads the three header rows with the `csv` crate (quoting) and the data rows
//!   with a single-pass byte scanner straight into `Vec<f64>` columns (no per-field
//!   allocation); bodies above 128 KiB are cut at line ends into one chunk per core and parsed
//!   in parallel. The vectors become Arrow buffers without copying. An empty value is NaN.
//! - An error body received instead of CSV (service JSON `{"status":400,"errors":[...]}`,
//!   gateway JSON/CSV/XML/HTML) is recognised and returned as `ClimateCsvError::ErrorBody`.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};
use serde_json::{json, Map, Value};

use crate::formats::timezone::standard_time_zone;
use crate::transport::error_body::parse_error_body;

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
            "units": {
                "ghi": self.units.ghi,
                "dni": self.units.dni,
                "dhi": self.units.dhi,
                "temperature": self.units.temperature,
                "wind_speed": self.units.wind_speed,
                "relative_humidity": self.units.relative_humidity,
                "wind_direction": self.units.wind_direction,
            },
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

    /// UTC instants of the rows, microseconds since 1970-01-01.
    pub fn timestamps_us(&self) -> Vec<i64> {
        let offset_s = (self.stamp_offset_hours() * 3600.0).round() as i64;
        let mut last_date = None;
        let mut last_days = 0;
        (0..self.len())
            .map(|i| {
                let date = (self.year[i], self.month[i], self.day[i]);
                if last_date != Some(date) {
                    last_days = days_from_civil(date.0, date.1 as u32, date.2 as u32);
                    last_date = Some(date);
                }
                let seconds =
                    last_days * 86_400 + i64::from(self.hour[i]) * 3600 + i64::from(self.minute[i]) * 60 - offset_s;
                seconds * 1_000_000
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

    /// Metadata plus the long name of each column (`columns`: short → long), as JSON.
    pub fn metadata_json(&self) -> Value {
        let mut value = self.metadata.to_json();
        let columns: Map<String, Value> =
            self.columns.iter().map(|c| (c.name.clone(), Value::String(c.long_name.clone()))).collect();
        if let Some(object) = value.as_object_mut() {
            object.insert("columns".into(), Value::Object(columns));
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
        let schema = Arc::new(self.schema());
        let time_zone = timestamp_time_zone(self.stamp_offset_hours());
        RecordBatch::try_new(schema, self.into_arrays(&time_zone))
    }

    /// The arrays of [`ClimateTable::into_record_batch`], with the timestamp column in
    /// `time_zone` (the instants do not change; a zip of sites in several zones uses `UTC`).
    pub fn into_arrays(self, time_zone: &str) -> Vec<ArrayRef> {
        let timestamps = self.timestamps_us();
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
    for row in 0..table.len() {
        for (index, value) in [table.year[row], table.month[row], table.day[row], table.hour[row], table.minute[row]]
            .into_iter()
            .enumerate()
        {
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

/// Data bodies smaller than this are parsed on one thread.
const PARALLEL_MIN_BYTES: usize = 128 * 1024;

/// Parses a climate CSV body. An error answer in place of CSV gives `ErrorBody`. Large bodies
/// are cut at line ends into one chunk per core, parsed in parallel and joined in order.
pub fn parse_climate_csv(body: &[u8]) -> Result<ClimateTable, ClimateCsvError> {
    let bytes = body.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(body);
    if let Some(error) = detect_error_body(bytes) {
        return Err(error);
    }
    let (header, data_start) = read_header_rows(bytes)?;
    let [meta_names, meta_values, column_names] = header;
    let metadata = ClimateMetadata::from_pairs(&meta_names, &meta_values);
    let (slots, columns) = plan_columns(&column_names)?;
    let layout = RowLayout { slots: &slots, names: &column_names, value_columns: columns.len() };
    let chunks = split_rows(bytes, data_start);
    let total_lines: usize = chunks.iter().map(|c| c.lines).sum();
    let mut parts = if chunks.len() == 1 {
        vec![parse_rows(bytes, &chunks[0], &layout, total_lines + 1)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = chunks[1..]
                .iter()
                .map(|chunk| {
                    let layout = &layout;
                    scope.spawn(move || parse_rows(bytes, chunk, layout, chunk.lines + 1))
                })
                .collect();
            let mut parts = vec![parse_rows(bytes, &chunks[0], &layout, total_lines + 1)];
            parts.extend(handles.into_iter().map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(ClimateCsvError::Malformed { line: 0, message: "a parser thread stopped".into() })
                })
            }));
            parts
        })
    }
    .into_iter();
    let mut rows = parts.next().unwrap_or_else(|| Ok(Rows::with_capacity(0, columns.len())))?;
    for part in parts {
        rows.append(part?);
    }
    let [year, month, day, hour, minute] = rows.stamps;
    Ok(ClimateTable {
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
    })
}

/// What row 3 says about each field of a data row.
struct RowLayout<'a> {
    slots: &'a [Slot],
    names: &'a [String],
    value_columns: usize,
}

/// A run of data lines: bytes `start..end`, the 1-based number of its first line, and how many
/// line ends it holds.
#[derive(Debug, Clone, Copy)]
struct Chunk {
    start: usize,
    end: usize,
    first_line: usize,
    lines: usize,
}

/// Cuts the data rows at line ends into one chunk per core (one chunk for small bodies).
fn split_rows(bytes: &[u8], data_start: usize) -> Vec<Chunk> {
    let size = bytes.len() - data_start;
    let workers = if size < PARALLEL_MIN_BYTES {
        1
    } else {
        std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 8)
    };
    let mut chunks = Vec::with_capacity(workers);
    let mut start = data_start;
    let mut first_line = 4;
    for worker in 1..=workers {
        let target = if worker == workers { bytes.len() } else { (data_start + size * worker / workers).max(start) };
        let end = match bytes[target..].iter().position(|&b| b == b'\n') {
            Some(offset) if worker < workers => target + offset + 1,
            _ => bytes.len(),
        };
        let lines = count_newlines(&bytes[start..end]);
        chunks.push(Chunk { start, end, first_line, lines });
        first_line += lines;
        start = end;
        if end == bytes.len() {
            break;
        }
    }
    chunks
}

/// Number of `\n` bytes, eight at a time: in x = word ^ 0x0A… a byte is zero exactly where the
/// word had a newline; ((x & 0x7F…) + 0x7F…) | x sets the high bit of every non-zero byte, so
/// the high bits left clear count the newlines.
fn count_newlines(bytes: &[u8]) -> usize {
    const LOW_SEVEN: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const NEWLINES: u64 = 0x0A0A_0A0A_0A0A_0A0A;
    let words = bytes.chunks_exact(8);
    let tail = words.remainder().iter().filter(|&&b| b == b'\n').count();
    words.fold(tail, |count, word| {
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8])) ^ NEWLINES;
        let non_zero_high_bits = ((x & LOW_SEVEN).wrapping_add(LOW_SEVEN) | x) | LOW_SEVEN;
        count + (!non_zero_high_bits).count_ones() as usize
    })
}

/// Parsed data rows of one chunk.
struct Rows {
    stamps: [Vec<i32>; 5],
    values: Vec<Vec<f64>>,
}

impl Rows {
    fn with_capacity(rows: usize, value_columns: usize) -> Rows {
        Rows {
            stamps: std::array::from_fn(|_| Vec::with_capacity(rows)),
            values: (0..value_columns).map(|_| Vec::with_capacity(rows)).collect(),
        }
    }

    fn append(&mut self, mut other: Rows) {
        for (mine, theirs) in self.stamps.iter_mut().zip(other.stamps.iter_mut()) {
            mine.append(theirs);
        }
        for (mine, theirs) in self.values.iter_mut().zip(other.values.iter_mut()) {
            mine.append(theirs);
        }
    }
}

/// Parses the data lines of one chunk; vectors get room for `capacity` rows.
fn parse_rows(bytes: &[u8], chunk: &Chunk, layout: &RowLayout<'_>, capacity: usize) -> Result<Rows, ClimateCsvError> {
    let mut rows = Rows::with_capacity(capacity, layout.value_columns);
    let mut scanner = Scanner { bytes: &bytes[..chunk.end], at: chunk.start, line: chunk.first_line };
    let fields = layout.slots.len();
    while scanner.skip_blank_lines() {
        let mut stamp = [0i32; 5];
        for (index, slot) in layout.slots.iter().enumerate() {
            if index > 0 {
                scanner.expect_comma(index, fields)?;
            }
            match *slot {
                Slot::Year => stamp[0] = scanner.int("Year")?,
                Slot::Month => stamp[1] = scanner.int("Month")?,
                Slot::Day => stamp[2] = scanner.int("Day")?,
                Slot::Hour => stamp[3] = scanner.int("Hour")?,
                Slot::Minute => stamp[4] = scanner.int("Minute")?,
                Slot::Value(column) => rows.values[column].push(scanner.float(&layout.names[index])?),
                Slot::Skip => scanner.skip_field(),
            }
        }
        let line = scanner.line;
        scanner.end_of_row(fields)?;
        check_stamp(stamp, line)?;
        for (column, value) in rows.stamps.iter_mut().zip(stamp) {
            column.push(value);
        }
    }
    Ok(rows)
}

/// An error body in place of CSV: JSON, XML/HTML, or the gateway's `Error Code,Error Message`.
fn detect_error_body(bytes: &[u8]) -> Option<ClimateCsvError> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    let head = &bytes[start..];
    let looks_like_error = matches!(head.first(), Some(b'{' | b'[' | b'<'))
        || head.len() >= 10 && head[..10].eq_ignore_ascii_case(b"error code");
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

/// Rows 1–3 and the byte offset where the data rows begin.
fn read_header_rows(bytes: &[u8]) -> Result<([Vec<String>; 3], usize), ClimateCsvError> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(bytes);
    let mut rows: [Vec<String>; 3] = Default::default();
    let mut record = csv::StringRecord::new();
    for (index, row) in rows.iter_mut().enumerate() {
        let line = index + 1;
        match reader.read_record(&mut record) {
            Ok(true) => *row = record.iter().map(|f| f.trim().to_string()).collect(),
            Ok(false) => {
                return Err(ClimateCsvError::Malformed {
                    line,
                    message:
                        "the body ends before the three header rows (metadata names, metadata values, column names)"
                            .into(),
                })
            }
            Err(error) => {
                return Err(ClimateCsvError::Malformed { line, message: format!("unreadable header row: {error}") })
            }
        }
    }
    let mut data_start = usize::try_from(reader.position().byte()).unwrap_or(bytes.len()).min(bytes.len());
    if data_start > 0 && bytes[data_start - 1] == b'\r' && bytes.get(data_start) == Some(&b'\n') {
        data_start += 1;
    }
    Ok((rows, data_start))
}

/// Slots for row 3 and the (short, long) names of the value columns.
#[allow(clippy::type_complexity)]
fn plan_columns(names: &[String]) -> Result<(Vec<Slot>, Vec<(String, String)>), ClimateCsvError> {
    let mut slots = Vec::with_capacity(names.len());
    let mut columns: Vec<(String, String)> = Vec::new();
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
                while columns.iter().any(|(s, _)| *s == short) {
                    short = format!("{base}_{suffix}");
                    suffix += 1;
                }
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
    let problem = if !(1..=12).contains(&month) {
        Some(format!("month {month} is not 1–12"))
    } else if day < 1 || day as u32 > days_in_month(year, month as u32) {
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

/// 10^k for the exact fast path (every power up to 10^22 is exact in f64).
const POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// The data-row scanner: one pass over the bytes, numbers parsed in place.
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
        self.bytes[self.at..]
            .iter()
            .position(|&b| matches!(b, b',' | b'\n' | b'\r'))
            .map_or(self.bytes.len(), |p| self.at + p)
    }

    fn at_delimiter(&self) -> bool {
        matches!(self.peek(), None | Some(b',' | b'\n' | b'\r'))
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

    fn field_text(&self, start: usize, end: usize) -> String {
        String::from_utf8_lossy(&self.bytes[start..end]).into_owned()
    }

    /// A whole number: plain digits inline, anything else (e.g. `2010.0`) by the slow path.
    #[inline]
    fn int(&mut self, column: &str) -> Result<i32, ClimateCsvError> {
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let (value, count) = self.digits(0);
        if (1..=9).contains(&count) && self.at_delimiter() {
            let value = value as i32;
            return Ok(if negative { -value } else { value });
        }
        self.int_slow(start, column)
    }

    #[cold]
    #[inline(never)]
    fn int_slow(&mut self, start: usize, column: &str) -> Result<i32, ClimateCsvError> {
        self.at = start;
        let end = self.field_end();
        let text = self.field_text(start, end);
        self.at = end;
        match text.trim().parse::<f64>() {
            Ok(v) if v.fract() == 0.0 && v.abs() < 1e9 => Ok(v as i32),
            _ => Err(self.malformed(format!("{column} value \"{text}\" is not a whole number"))),
        }
    }

    /// A number: the exact fast path inline, anything else by the standard parser.
    #[inline]
    fn float(&mut self, column: &str) -> Result<f64, ClimateCsvError> {
        let start = self.at;
        if let Some(value) = self.fast_float() {
            if self.at_delimiter() {
                return Ok(value);
            }
        }
        self.float_slow(start, column)
    }

    #[cold]
    #[inline(never)]
    fn float_slow(&mut self, start: usize, column: &str) -> Result<f64, ClimateCsvError> {
        self.at = start;
        let end = self.field_end();
        let text = self.field_text(start, end);
        self.at = end;
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Ok(f64::NAN);
        }
        trimmed.parse::<f64>().map_err(|_| self.malformed(format!("{column} value \"{text}\" is not a number")))
    }

    /// Consumes a leading `-` (true) or `+`.
    fn sign(&mut self) -> bool {
        match self.peek() {
            Some(b'-') => {
                self.at += 1;
                true
            }
            Some(b'+') => {
                self.at += 1;
                false
            }
            _ => false,
        }
    }

    /// Consumes decimal digits, appending them to `value` (wrapping; callers bound the count):
    /// the new value and the number of digits.
    fn digits(&mut self, mut value: u64) -> (u64, u32) {
        let bytes = self.bytes;
        let mut i = self.at;
        while i < bytes.len() {
            let digit = bytes[i].wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
            i += 1;
        }
        let count = (i - self.at).min(u32::MAX as usize) as u32;
        self.at = i;
        (value, count)
    }

    /// Decimal numbers with at most 19 significant digits and a small exponent, computed
    /// exactly (an integer mantissa below 2^53 times or divided by an exact power of ten is
    /// correctly rounded); `None` sends the field to the standard parser.
    fn fast_float(&mut self) -> Option<f64> {
        let negative = self.sign();
        let (mut mantissa, mut digits) = self.digits(0);
        let mut scale: i32 = 0;
        if self.peek() == Some(b'.') {
            self.at += 1;
            let (with_fraction, fraction_digits) = self.digits(mantissa);
            mantissa = with_fraction;
            digits = digits.saturating_add(fraction_digits);
            scale = -(fraction_digits as i32);
        }
        if digits == 0 || digits > 19 || mantissa >= (1u64 << 53) {
            return None;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            let exponent_negative = self.sign();
            let (exponent, exponent_digits) = self.digits(0);
            if exponent_digits == 0 || exponent_digits > 4 {
                return None;
            }
            let exponent = exponent as i32;
            scale += if exponent_negative { -exponent } else { exponent };
        }
        let magnitude = mantissa as f64;
        let value = match scale {
            0 => magnitude,
            1..=22 => magnitude * POWERS_OF_TEN[scale as usize],
            -22..=-1 => magnitude / POWERS_OF_TEN[(-scale) as usize],
            _ => return None,
        };
        Some(if negative { -value } else { value })
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
    fn fast_float_matches_the_standard_parser() {
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

    #[test]
    fn large_bodies_split_in_order_and_keep_line_numbers() {
        let mut body = String::from("a\nb\nYear,Month,Day,Hour,Minute,GHI\r\n");
        for row in 0..40_000 {
            body.push_str(&format!("2010,1,1,{},0,{row}.5\r\n", row % 24));
        }
        let parsed = parse_climate_csv(body.as_bytes()).unwrap();
        assert!(body.len() > 2 * PARALLEL_MIN_BYTES);
        assert_eq!(parsed.len(), 40_000);
        assert!(parsed.columns[0].values.iter().enumerate().all(|(i, &v)| v == i as f64 + 0.5));
        assert!(parsed.hour.iter().enumerate().all(|(i, &h)| h == (i % 24) as i32));
        let broken = body.replacen("2010,1,1,3,0,39987.5", "2010,1,1,3,0,x", 1);
        assert_eq!(
            parse_climate_csv(broken.as_bytes()).unwrap_err(),
            ClimateCsvError::Malformed { line: 39_991, message: "GHI value \"x\" is not a number".into() }
        );
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

//! Solar dataset query (v1 and v2): parameter validation, the typed response, and the three wire
//! formats (json, xml, csv) in both directions, so that the client's parser and the embedded
//! service's writer share one definition of each.
//!
//! CSV shape (the spec does not show one): a header row, then one row per station with the
//! columns of [`StationColumn::ALL`] — `dataset, closest, id, lat, lon, city, state, timezone,
//! elevation, distance, resolution, country, weather_data_source`. Without `all=1` the rows are
//! the closest station of each dataset that has one, in dataset order, all with `closest=true`.
//! With `all=1` (v1) the rows are `all_stations` in ascending distance, and `closest=true` marks
//! the closest station of each dataset. Empty cells are absent values. Only stations travel in
//! csv: the parser rebuilds `inputs` from the request, the spec's no-data warning for each dataset
//! without a row, `metadata` as `{}`, and leaves `version` as `None`. Errors on a csv request
//! come back as the JSON envelope, which the parser recognises.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use serde_json::{Map, Number, Value};

use crate::formats::xml::{read_xml, write_xml, XmlError};
use crate::formats::Format;
use crate::services::raw::{exact_i64, rounded_i64};
pub use crate::spec::vocabulary::Dataset;

mod fast_json;
pub mod request;

/// Miles to metres, for the `radius` parameter (distances in responses are metres).
pub const METRES_PER_MILE: f64 = 1609.344;
/// Largest accepted `radius`, in miles.
pub const RADIUS_MAX_MILES: u32 = 2000;
/// `radius` when the request does not give one, in miles.
pub const DEFAULT_RADIUS_MILES: u32 = 100;
/// Input key that is never kept in a parsed result.
const API_KEY_INPUT: &str = "api_key";
/// The key of `outputs` that lists every station within the radius (v1, all=1).
const ALL_STATIONS_KEY: &str = "all_stations";

/// The path version of the dataset query (`spec::routes::Endpoint::DataQuery`): `v1` or `v2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryVersion {
    V1,
    V2,
}

impl QueryVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            QueryVersion::V1 => "v1",
            QueryVersion::V2 => "v2",
        }
    }

    pub fn parse(text: &str) -> Option<QueryVersion> {
        match text {
            "v1" => Some(QueryVersion::V1),
            "v2" => Some(QueryVersion::V2),
            _ => None,
        }
    }
}

/// An allowed closed range for a decimal parameter; the only place these bounds are written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberRange {
    pub name: &'static str,
    pub min: f64,
    pub max: f64,
}

pub const LATITUDE: NumberRange = NumberRange { name: "lat", min: -90.0, max: 90.0 };
pub const LONGITUDE: NumberRange = NumberRange { name: "lon", min: -180.0, max: 180.0 };

pub use super::raw::RawValue;

/// The dataset query's parameters before validation. Missing `radius`, `all`, `version` and
/// `format` take their defaults (100, 0, v2, json); missing `lat`/`lon` are problems.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawDataQuery {
    pub lat: RawValue,
    pub lon: RawValue,
    pub radius: RawValue,
    pub all: RawValue,
    pub version: RawValue,
    pub format: RawValue,
}

impl RawDataQuery {
    /// The parameters of an HTTP request: query pairs (the last of repeated names wins) plus the
    /// version and format taken from the path.
    pub fn from_query(pairs: &[(String, String)], version: QueryVersion, format: Format) -> RawDataQuery {
        let last = |name: &str| {
            pairs
                .iter()
                .rev()
                .find(|(key, _)| key == name)
                .map_or(RawValue::Missing, |(_, value)| RawValue::Text(value.clone()))
        };
        RawDataQuery {
            lat: last("lat"),
            lon: last("lon"),
            radius: last("radius"),
            all: last("all"),
            version: RawValue::from(version.as_str()),
            format: RawValue::from(format.suffix()),
        }
    }
}

/// Validated dataset query parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DataQueryParams {
    pub lat: f64,
    pub lon: f64,
    /// Miles; 0 means the closest station regardless of distance.
    pub radius: u32,
    pub all: bool,
    pub version: QueryVersion,
    pub format: Format,
}

impl DataQueryParams {
    /// The search radius in metres, or `None` for "regardless of distance" (radius 0).
    pub fn radius_m(&self) -> Option<f64> {
        (self.radius > 0).then(|| f64::from(self.radius) * METRES_PER_MILE)
    }

    /// Whether the response lists `all_stations` (v1 with all=1; v2 has no such list).
    pub fn lists_all_stations(&self) -> bool {
        self.all && self.version == QueryVersion::V1
    }

    /// The query string parameters to send (the api_key is the transport's business).
    pub fn query_pairs(&self) -> Vec<(&'static str, String)> {
        vec![
            ("lat", self.lat.to_string()),
            ("lon", self.lon.to_string()),
            ("radius", self.radius.to_string()),
            ("all", if self.all { "1" } else { "0" }.to_string()),
        ]
    }
}

/// Checks every parameter and reports all problems at once; each message names the parameter
/// and says what to give instead.
pub fn validate_data_query(raw: &RawDataQuery) -> Result<DataQueryParams, Vec<String>> {
    let mut problems = Vec::new();
    let lat = record(check_range(&raw.lat, LATITUDE), &mut problems);
    let lon = record(check_range(&raw.lon, LONGITUDE), &mut problems);
    let radius = record(check_radius(&raw.radius), &mut problems);
    let all = record(check_all(&raw.all), &mut problems);
    if radius == Some(0) && all == Some(true) {
        problems.push(format!(
            "all=1 needs a radius greater than 0: give radius between 1 and {RADIUS_MAX_MILES} miles, or use all=0"
        ));
    }
    let version = record(check_version(&raw.version), &mut problems);
    let format = record(check_format(&raw.format), &mut problems);
    match (lat, lon, radius, all, version, format) {
        (Some(lat), Some(lon), Some(radius), Some(all), Some(version), Some(format)) if problems.is_empty() => {
            Ok(DataQueryParams { lat, lon, radius, all, version, format })
        }
        _ => Err(problems),
    }
}

fn record<T>(checked: Result<T, String>, problems: &mut Vec<String>) -> Option<T> {
    checked.map_err(|problem| problems.push(problem)).ok()
}

pub fn check_range(raw: &RawValue, range: NumberRange) -> Result<f64, String> {
    let NumberRange { name, min, max } = range;
    if *raw == RawValue::Missing {
        return Err(format!("{name} is required: give a number between {min} and {max}"));
    }
    raw.as_finite_f64()
        .filter(|value| (min..=max).contains(value))
        .ok_or_else(|| format!("{name} must be a number between {min} and {max} (got {})", raw.describe()))
}

fn check_radius(raw: &RawValue) -> Result<u32, String> {
    if *raw == RawValue::Missing {
        return Ok(DEFAULT_RADIUS_MILES);
    }
    raw.as_whole()
        .filter(|miles| (0..=i64::from(RADIUS_MAX_MILES)).contains(miles))
        .and_then(|miles| u32::try_from(miles).ok())
        .ok_or_else(|| {
            format!(
                "radius must be a whole number of miles between 0 and {RADIUS_MAX_MILES} (got {}); 0 means the closest station regardless of distance",
                raw.describe()
            )
        })
}

fn check_all(raw: &RawValue) -> Result<bool, String> {
    match raw {
        RawValue::Missing => Ok(false),
        RawValue::Bool(flag) => Ok(*flag),
        other => match other.as_whole() {
            Some(0) => Ok(false),
            Some(1) => Ok(true),
            _ => Err(format!("all must be 0 or 1 (got {})", other.describe())),
        },
    }
}

fn check_version(raw: &RawValue) -> Result<QueryVersion, String> {
    match raw {
        RawValue::Missing => Ok(QueryVersion::V2),
        RawValue::Text(text) => QueryVersion::parse(text).ok_or_else(|| version_problem(raw)),
        _ => Err(version_problem(raw)),
    }
}

fn version_problem(raw: &RawValue) -> String {
    format!("version must be \"v1\" or \"v2\" (got {})", raw.describe())
}

fn check_format(raw: &RawValue) -> Result<Format, String> {
    match raw {
        RawValue::Missing => Ok(Format::Json),
        RawValue::Text(text) => Format::from_suffix(text).ok_or_else(|| format_problem(raw)),
        _ => Err(format_problem(raw)),
    }
}

fn format_problem(raw: &RawValue) -> String {
    format!("format must be \"json\", \"xml\" or \"csv\" (got {})", raw.describe())
}

/// The spec's warning for a dataset without a station: `No <dataset> data found for lat=<lat> lon=<lon>`.
/// Coordinates are printed with a decimal point (`40.0`), as the real service does.
pub fn no_data_warning(dataset: &str, lat: f64, lon: f64) -> String {
    format!("No {dataset} data found for lat={lat:?} lon={lon:?}")
}

/// One climate data station of a dataset query response.
#[derive(Debug, Clone, PartialEq)]
pub struct Station {
    pub id: String,
    pub lat: f64,
    pub lon: f64,
    pub city: String,
    pub state: String,
    /// Hours from GMT. The spec says integer, but fractional offsets exist (India +5.5), so it is
    /// kept as a float rather than rounded.
    pub timezone: f64,
    /// Metres.
    pub elevation: i64,
    /// Metres from the requested location (even though `radius` is in miles).
    pub distance: i64,
    /// Grid resolution in km; satellite (satdb) records only.
    pub resolution: Option<i64>,
    /// v2 satdb records only.
    pub country: Option<String>,
    /// v2 only.
    pub weather_data_source: Option<String>,
    /// The dataset code: the `outputs` key for a closest station, the `dataset` field (or the id
    /// prefix) for an `all_stations` entry.
    pub dataset: Option<String>,
    /// Which query version produced this record: only v1 ids work with the v6 estimator.
    pub query_version: QueryVersion,
}

impl Station {
    /// The id to pass as `file_id` to the v6 estimator, or why this station cannot be used there.
    pub fn v6_file_id(&self) -> Result<&str, String> {
        match self.query_version {
            QueryVersion::V1 => Ok(&self.id),
            QueryVersion::V2 => Err(v2_file_id_problem(&self.id)),
        }
    }
}

/// Why an id from dataset query v2 cannot be the v6 estimator's `file_id`; shared by the client
/// check and the embedded estimator so both say the same.
pub fn v2_file_id_problem(id: &str) -> String {
    format!(
        "file_id {id} comes from dataset query v2, but v1 ids work only with the v6 estimator and v2 ids do not work there: \
         call data_query(..., version=\"v1\") and pass that station or its id"
    )
}

/// A parsed dataset query response. `inputs` never holds the api_key.
#[derive(Debug, Clone, PartialEq)]
pub struct StationQuery {
    /// The path version the request used (v1 or v2).
    pub query_version: QueryVersion,
    /// The service's own version string (e.g. "1.3.1"); `None` when the format does not carry it (csv).
    pub version: Option<String>,
    pub inputs: Map<String, Value>,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    pub metadata: Map<String, Value>,
    /// Closest station per dataset code, in response order; unknown codes (nsrdb, perez) are kept.
    pub closest: Vec<(String, Option<Station>)>,
    /// Every station within the radius, ascending distance; `Some` only for v1 with all=1.
    pub all_stations: Option<Vec<Station>>,
}

impl StationQuery {
    /// The closest station of one dataset code, if the response has one.
    pub fn closest_station(&self, code: &str) -> Option<&Station> {
        self.closest.iter().find(|(key, _)| key == code).and_then(|(_, station)| station.as_ref())
    }
}

/// Why a response body could not be read as a dataset query result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    #[error("response body is not valid JSON: {0}")]
    Json(String),
    #[error("response body is not valid XML: {0}")]
    Xml(#[from] XmlError),
    #[error("response body is not valid CSV: {0}")]
    Csv(String),
    #[error("unexpected response at {path}: {problem}")]
    Shape { path: String, problem: String },
}

/// Why a result could not be written in a format.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WriteError {
    #[error("could not write JSON: {0}")]
    Json(String),
    #[error(transparent)]
    Xml(#[from] XmlError),
    #[error("could not write CSV: {0}")]
    Csv(String),
}

fn shape(path: &str, problem: impl Into<String>) -> ParseError {
    ParseError::Shape { path: path.to_string(), problem: problem.into() }
}

/// Parses a response body of the request described by `params` (its format and version; for csv
/// also its coordinates and flags, which csv does not carry).
pub fn parse_data_query(body: &[u8], params: &DataQueryParams) -> Result<StationQuery, ParseError> {
    let query = parse_any_format(body, params)?;
    let no_station = query.closest.iter().all(|(_, station)| station.is_none())
        && query.all_stations.as_ref().is_none_or(Vec::is_empty);
    if no_station && query.warnings.is_empty() && query.errors.is_empty() {
        return Err(shape("outputs", "holds no station, and no warning says why (a real answer warns for each data set without data)"));
    }
    Ok(query)
}

fn parse_any_format(body: &[u8], params: &DataQueryParams) -> Result<StationQuery, ParseError> {
    match params.format {
        Format::Json => match fast_json::parse_fast(body, params.version) {
            Some(query) => Ok(query),
            None => from_envelope(&parse_json(body)?, params.version),
        },
        Format::Xml => from_envelope(&read_xml(body)?, params.version),
        Format::Csv if is_json_body(body) => from_envelope(&parse_json(body)?, params.version),
        Format::Csv => from_csv(body, params),
    }
}

/// Writes a result in one format: the envelope for json and xml, the station table for csv.
pub fn write_data_query(query: &StationQuery, format: Format) -> Result<Vec<u8>, WriteError> {
    match format {
        Format::Json => serde_json::to_vec(&envelope_value(query)).map_err(|e| WriteError::Json(e.to_string())),
        Format::Xml => Ok(write_xml(&envelope_value(query))?),
        Format::Csv => write_csv(query),
    }
}

fn parse_json(body: &[u8]) -> Result<Value, ParseError> {
    serde_json::from_slice(body).map_err(|e| ParseError::Json(e.to_string()))
}

fn is_json_body(body: &[u8]) -> bool {
    body.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'{')
}

/// The response envelope in the spec's key order: version, warnings, errors, metadata, inputs, outputs.
pub fn envelope_value(query: &StationQuery) -> Value {
    let mut envelope = Map::new();
    if let Some(version) = &query.version {
        envelope.insert("version".into(), Value::from(version.as_str()));
    }
    envelope.insert("warnings".into(), Value::from(query.warnings.clone()));
    envelope.insert("errors".into(), Value::from(query.errors.clone()));
    envelope.insert("metadata".into(), Value::Object(query.metadata.clone()));
    envelope.insert("inputs".into(), Value::Object(query.inputs.clone()));
    envelope.insert("outputs".into(), outputs_value(query));
    Value::Object(envelope)
}

fn outputs_value(query: &StationQuery) -> Value {
    let mut outputs = Map::new();
    for (code, station) in &query.closest {
        let value = station.as_ref().map_or(Value::Null, |station| station_value(station, false));
        outputs.insert(code.clone(), value);
    }
    if let Some(all) = &query.all_stations {
        let listed = all.iter().map(|station| station_value(station, true)).collect();
        outputs.insert(ALL_STATIONS_KEY.into(), Value::Array(listed));
    }
    Value::Object(outputs)
}

/// A station record; `dataset` is written only inside `all_stations`, as in the spec.
fn station_value(station: &Station, with_dataset: bool) -> Value {
    let mut record = Map::new();
    record.insert("id".into(), Value::from(station.id.as_str()));
    record.insert("city".into(), Value::from(station.city.as_str()));
    record.insert("state".into(), Value::from(station.state.as_str()));
    if let Some(country) = &station.country {
        record.insert("country".into(), Value::from(country.as_str()));
    }
    record.insert("timezone".into(), number_value(station.timezone));
    record.insert("lat".into(), float_value(station.lat));
    record.insert("lon".into(), float_value(station.lon));
    record.insert("elevation".into(), Value::from(station.elevation));
    record.insert("distance".into(), Value::from(station.distance));
    if let Some(resolution) = station.resolution {
        record.insert("resolution".into(), Value::from(resolution));
    }
    if let Some(source) = &station.weather_data_source {
        record.insert("weather_data_source".into(), Value::from(source.as_str()));
    }
    if let (true, Some(dataset)) = (with_dataset, &station.dataset) {
        record.insert("dataset".into(), Value::from(dataset.as_str()));
    }
    Value::Object(record)
}

/// A whole number as an integer (so XML types it `integer`), anything else as a float.
fn number_value(number: f64) -> Value {
    if let Some(whole) = exact_i64(number) {
        Value::from(whole)
    } else {
        float_value(number)
    }
}

fn float_value(number: f64) -> Value {
    Number::from_f64(number).map_or(Value::Null, Value::Number)
}

fn from_envelope(root: &Value, query_version: QueryVersion) -> Result<StationQuery, ParseError> {
    let envelope = root.as_object().ok_or_else(|| shape("response", "is not an object"))?;
    let mut inputs = lenient_map(envelope.get("inputs"), "inputs")?;
    inputs.remove(API_KEY_INPUT);
    let errors = lenient_strings(envelope.get("errors"), "errors")?;
    // An error answer may carry no outputs; any other answer must.
    let empty = Value::Object(Map::new());
    let outputs = match envelope.get("outputs") {
        None if !errors.is_empty() => Some(&empty),
        outputs => outputs,
    };
    let (closest, all_stations) = parse_outputs(outputs, query_version)?;
    Ok(StationQuery {
        query_version,
        version: envelope.get("version").and_then(scalar_text),
        inputs,
        errors,
        warnings: lenient_strings(envelope.get("warnings"), "warnings")?,
        metadata: lenient_map(envelope.get("metadata"), "metadata")?,
        closest,
        all_stations,
    })
}

type ParsedOutputs = (Vec<(String, Option<Station>)>, Option<Vec<Station>>);

fn parse_outputs(outputs: Option<&Value>, query_version: QueryVersion) -> Result<ParsedOutputs, ParseError> {
    let outputs = match outputs {
        None => return Err(shape("outputs", "is missing")),
        Some(Value::Object(fields)) => fields,
        Some(_) => return Err(shape("outputs", "is not an object")),
    };
    let mut closest = Vec::new();
    let mut all_stations = None;
    for (code, value) in outputs {
        let path = format!("outputs.{code}");
        if code == ALL_STATIONS_KEY {
            all_stations = Some(parse_all_stations(value, &path, query_version)?);
            continue;
        }
        let station = match value {
            Value::Null => None,
            Value::String(text) if text.trim().is_empty() => None,
            Value::Object(record) => Some(parse_station(record, Some(code), &path, query_version)?),
            _ => return Err(shape(&path, "is neither a station record nor null")),
        };
        closest.push((code.clone(), station));
    }
    Ok((closest, all_stations))
}

fn parse_all_stations(value: &Value, path: &str, query_version: QueryVersion) -> Result<Vec<Station>, ParseError> {
    let entries = match value {
        Value::Array(entries) => entries.as_slice(),
        Value::String(text) if text.trim().is_empty() => &[],
        _ => return Err(shape(path, "is not a list of stations")),
    };
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let record = entry.as_object().ok_or_else(|| shape(&format!("{path}[{index}]"), "is not a station record"))?;
            parse_station(record, None, path, query_version).map_err(|error| at_entry(error, path, index))
        })
        .collect()
}

/// Puts the entry index into a shape error's path (built only when there is an error).
fn at_entry(error: ParseError, list_path: &str, index: usize) -> ParseError {
    match error {
        ParseError::Shape { path, problem } => ParseError::Shape {
            path: path.replacen(list_path, &format!("{list_path}[{index}]"), 1),
            problem,
        },
        other => other,
    }
}

/// Reads a station record leniently: numbers may come as strings, integers as floats.
fn parse_station(
    record: &Map<String, Value>,
    dataset_key: Option<&str>,
    path: &str,
    query_version: QueryVersion,
) -> Result<Station, ParseError> {
    let id = record.get("id").and_then(scalar_text).ok_or_else(|| shape(&format!("{path}.id"), "is missing"))?;
    let dataset = dataset_key
        .map(str::to_string)
        .or_else(|| record.get("dataset").and_then(scalar_text))
        .or_else(|| Dataset::from_id(&id).map(|dataset| dataset.code().to_string()));
    Ok(Station {
        lat: required_number(record, "lat", path)?,
        lon: required_number(record, "lon", path)?,
        city: record.get("city").and_then(scalar_text).unwrap_or_default(),
        state: record.get("state").and_then(scalar_text).unwrap_or_default(),
        timezone: required_number(record, "timezone", path)?,
        elevation: whole(required_number(record, "elevation", path)?),
        distance: whole(required_number(record, "distance", path)?),
        resolution: optional_number(record, "resolution", path)?.map(whole),
        country: record.get("country").and_then(scalar_text),
        weather_data_source: record.get("weather_data_source").and_then(scalar_text),
        dataset,
        id,
        query_version,
    })
}

/// Integers in records are metres or kilometres; a fractional value is rounded to the nearest.
fn whole(number: f64) -> i64 {
    rounded_i64(number)
}

fn required_number(record: &Map<String, Value>, key: &str, path: &str) -> Result<f64, ParseError> {
    optional_number(record, key, path)?.ok_or_else(|| shape(&format!("{path}.{key}"), "is missing"))
}

fn optional_number(record: &Map<String, Value>, key: &str, path: &str) -> Result<Option<f64>, ParseError> {
    match record.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(value) => lenient_number(value)
            .map(Some)
            .ok_or_else(|| shape(&format!("{path}.{key}"), format!("is not a number (got {value})"))),
    }
}

fn lenient_number(value: &Value) -> Option<f64> {
    let number = match value {
        Value::Number(number) => number.as_f64()?,
        Value::String(text) => text.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    number.is_finite().then_some(number)
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// An object field; absent, null, or the empty text an untyped empty XML element reads as, is `{}`.
fn lenient_map(value: Option<&Value>, path: &str) -> Result<Map<String, Value>, ParseError> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(fields)) => Ok(fields.clone()),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(Map::new()),
        Some(_) => Err(shape(path, "is not an object")),
    }
}

/// A list of messages; a lone string counts as a list of one.
fn lenient_strings(value: Option<&Value>, path: &str) -> Result<Vec<String>, ParseError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(Vec::new()),
        Some(Value::String(text)) => Ok(vec![text.clone()]),
        Some(Value::Array(items)) => Ok(items.iter().map(message_text).collect()),
        Some(_) => Err(shape(path, "is not a list of messages")),
    }
}

fn message_text(value: &Value) -> String {
    scalar_text(value).unwrap_or_else(|| value.to_string())
}

/// One row of the station table (csv body and Arrow batch).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StationRow<'a> {
    /// Whether this is the closest station of its dataset.
    pub closest: bool,
    pub station: &'a Station,
}

/// The rows of the station table: `all_stations` (flagging each dataset's closest) when the
/// response has that list, otherwise the closest stations in dataset order. A closest station
/// missing from `all_stations` is appended so no station is lost.
pub fn station_rows(query: &StationQuery) -> Vec<StationRow<'_>> {
    let closest: Vec<&Station> = query.closest.iter().filter_map(|(_, station)| station.as_ref()).collect();
    let Some(all) = &query.all_stations else {
        return closest.into_iter().map(|station| StationRow { closest: true, station }).collect();
    };
    let is_closest = |station: &Station| closest.iter().any(|c| c.id == station.id && c.dataset == station.dataset);
    let listed = |station: &Station| all.iter().any(|s| s.id == station.id && s.dataset == station.dataset);
    let mut rows: Vec<StationRow<'_>> =
        all.iter().map(|station| StationRow { closest: is_closest(station), station }).collect();
    rows.extend(closest.iter().filter(|station| !listed(station)).map(|station| StationRow { closest: true, station }));
    rows
}

/// A column of the station table; the order of `ALL` is the csv column order and the Arrow field order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StationColumn {
    Dataset,
    Closest,
    Id,
    Lat,
    Lon,
    City,
    State,
    Timezone,
    Elevation,
    Distance,
    Resolution,
    Country,
    WeatherDataSource,
}

impl StationColumn {
    pub const ALL: [StationColumn; 13] = [
        StationColumn::Dataset,
        StationColumn::Closest,
        StationColumn::Id,
        StationColumn::Lat,
        StationColumn::Lon,
        StationColumn::City,
        StationColumn::State,
        StationColumn::Timezone,
        StationColumn::Elevation,
        StationColumn::Distance,
        StationColumn::Resolution,
        StationColumn::Country,
        StationColumn::WeatherDataSource,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StationColumn::Dataset => "dataset",
            StationColumn::Closest => "closest",
            StationColumn::Id => "id",
            StationColumn::Lat => "lat",
            StationColumn::Lon => "lon",
            StationColumn::City => "city",
            StationColumn::State => "state",
            StationColumn::Timezone => "timezone",
            StationColumn::Elevation => "elevation",
            StationColumn::Distance => "distance",
            StationColumn::Resolution => "resolution",
            StationColumn::Country => "country",
            StationColumn::WeatherDataSource => "weather_data_source",
        }
    }

    pub fn from_name(name: &str) -> Option<StationColumn> {
        StationColumn::ALL.into_iter().find(|column| column.name() == name)
    }

    fn data_type(self) -> DataType {
        match self {
            StationColumn::Closest => DataType::Boolean,
            StationColumn::Lat | StationColumn::Lon | StationColumn::Timezone => DataType::Float64,
            StationColumn::Elevation | StationColumn::Distance | StationColumn::Resolution => DataType::Int64,
            StationColumn::Dataset
            | StationColumn::Id
            | StationColumn::City
            | StationColumn::State
            | StationColumn::Country
            | StationColumn::WeatherDataSource => DataType::Utf8,
        }
    }

    fn nullable(self) -> bool {
        matches!(
            self,
            StationColumn::Dataset
                | StationColumn::Resolution
                | StationColumn::Country
                | StationColumn::WeatherDataSource
        )
    }

    /// Columns a csv body must have; the others may be left out (absent values, or every row
    /// closest when `closest` is missing).
    fn required_in_csv(self) -> bool {
        matches!(
            self,
            StationColumn::Id
                | StationColumn::Lat
                | StationColumn::Lon
                | StationColumn::Timezone
                | StationColumn::Elevation
                | StationColumn::Distance
        )
    }

    fn unit(self) -> Option<&'static str> {
        match self {
            StationColumn::Lat | StationColumn::Lon => Some("degrees"),
            StationColumn::Timezone => Some("hours from GMT"),
            StationColumn::Elevation | StationColumn::Distance => Some("m"),
            StationColumn::Resolution => Some("km"),
            _ => None,
        }
    }

    fn field(self) -> Field {
        let field = Field::new(self.name(), self.data_type(), self.nullable());
        match self.unit() {
            Some(unit) => field.with_metadata(HashMap::from([("unit".to_string(), unit.to_string())])),
            None => field,
        }
    }
}

/// One cell of the station table, typed.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cell<'a> {
    Text(Option<&'a str>),
    Float(f64),
    Integer(Option<i64>),
    Flag(bool),
}

impl Cell<'_> {
    fn csv_text(self) -> String {
        match self {
            Cell::Text(text) => text.unwrap_or_default().to_string(),
            Cell::Float(number) => number.to_string(),
            Cell::Integer(number) => number.map(|n| n.to_string()).unwrap_or_default(),
            Cell::Flag(flag) => flag.to_string(),
        }
    }
}

fn cell<'a>(row: &StationRow<'a>, column: StationColumn) -> Cell<'a> {
    let station = row.station;
    match column {
        StationColumn::Dataset => Cell::Text(station.dataset.as_deref()),
        StationColumn::Closest => Cell::Flag(row.closest),
        StationColumn::Id => Cell::Text(Some(&station.id)),
        StationColumn::Lat => Cell::Float(station.lat),
        StationColumn::Lon => Cell::Float(station.lon),
        StationColumn::City => Cell::Text(Some(&station.city)),
        StationColumn::State => Cell::Text(Some(&station.state)),
        StationColumn::Timezone => Cell::Float(station.timezone),
        StationColumn::Elevation => Cell::Integer(Some(station.elevation)),
        StationColumn::Distance => Cell::Integer(Some(station.distance)),
        StationColumn::Resolution => Cell::Integer(station.resolution),
        StationColumn::Country => Cell::Text(station.country.as_deref()),
        StationColumn::WeatherDataSource => Cell::Text(station.weather_data_source.as_deref()),
    }
}

/// The Arrow schema of [`stations_to_record_batch`]; units are in each field's `unit` metadata.
pub fn station_schema() -> Schema {
    Schema::new(StationColumn::ALL.map(StationColumn::field).to_vec())
}

/// The station table as one Arrow batch: one row per station (see [`station_rows`]).
pub fn stations_to_record_batch(query: &StationQuery) -> Result<RecordBatch, ArrowError> {
    let rows = station_rows(query);
    let columns: Vec<ArrayRef> = StationColumn::ALL
        .into_iter()
        .map(|column| column_array(column, rows.iter().map(|row| cell(row, column))))
        .collect();
    RecordBatch::try_new(Arc::new(station_schema()), columns)
}

fn column_array<'a>(column: StationColumn, cells: impl Iterator<Item = Cell<'a>>) -> ArrayRef {
    match column.data_type() {
        DataType::Boolean => Arc::new(BooleanArray::from(
            cells.map(|c| if let Cell::Flag(flag) = c { Some(flag) } else { None }).collect::<Vec<_>>(),
        )),
        DataType::Float64 => Arc::new(Float64Array::from(
            cells.map(|c| if let Cell::Float(number) = c { Some(number) } else { None }).collect::<Vec<_>>(),
        )),
        DataType::Int64 => Arc::new(Int64Array::from(
            cells.map(|c| if let Cell::Integer(number) = c { number } else { None }).collect::<Vec<_>>(),
        )),
        _ => Arc::new(StringArray::from(
            cells.map(|c| if let Cell::Text(text) = c { text } else { None }).collect::<Vec<_>>(),
        )),
    }
}

fn write_csv(query: &StationQuery) -> Result<Vec<u8>, WriteError> {
    let csv_error = |e: csv::Error| WriteError::Csv(e.to_string());
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(StationColumn::ALL.map(StationColumn::name)).map_err(csv_error)?;
    for row in station_rows(query) {
        writer.write_record(StationColumn::ALL.map(|column| cell(&row, column).csv_text())).map_err(csv_error)?;
    }
    writer.into_inner().map_err(|e| WriteError::Csv(e.to_string()))
}

fn from_csv(body: &[u8], params: &DataQueryParams) -> Result<StationQuery, ParseError> {
    let csv_error = |e: csv::Error| ParseError::Csv(e.to_string());
    let mut reader = csv::ReaderBuilder::new().from_reader(body);
    let positions: HashMap<StationColumn, usize> = reader
        .headers()
        .map_err(csv_error)?
        .iter()
        .enumerate()
        .filter_map(|(index, name)| StationColumn::from_name(name.trim()).map(|column| (column, index)))
        .collect();
    if let Some(missing) = StationColumn::ALL.into_iter().find(|c| c.required_in_csv() && !positions.contains_key(c)) {
        return Err(ParseError::Csv(format!("the header row has no {} column", missing.name())));
    }
    let mut rows = Vec::new();
    for (index, record) in reader.records().enumerate() {
        let record = record.map_err(csv_error)?;
        rows.push(csv_row(&record, &positions, &format!("row {}", index + 1), params.version)?);
    }
    let closest = closest_from_rows(&rows)?;
    let warnings = closest
        .iter()
        .filter(|(code, station)| station.is_none() && Dataset::from_code(code).is_some())
        .map(|(code, _)| no_data_warning(code, params.lat, params.lon))
        .collect();
    let inputs = params.query_pairs().into_iter().map(|(name, value)| (name.to_string(), Value::from(value))).collect();
    Ok(StationQuery {
        query_version: params.version,
        version: None,
        inputs,
        errors: Vec::new(),
        warnings,
        metadata: Map::new(),
        closest,
        all_stations: params.lists_all_stations().then(|| rows.into_iter().map(|(_, station)| station).collect()),
    })
}

/// The closest station per dataset: the spec's four codes in order (absent ones as `None`),
/// then any other code in order of first appearance.
fn closest_from_rows(rows: &[(bool, Station)]) -> Result<Vec<(String, Option<Station>)>, ParseError> {
    let mut closest: Vec<(String, Option<Station>)> =
        Dataset::ALL.iter().map(|dataset| (dataset.code().to_string(), None)).collect();
    for (_, station) in rows.iter().filter(|(is_closest, _)| *is_closest) {
        let code = station.dataset.clone().unwrap_or_default();
        match closest.iter_mut().find(|(key, _)| *key == code) {
            Some((_, Some(_))) => return Err(shape("csv", format!("two closest rows for dataset {code:?}"))),
            Some((_, slot)) => *slot = Some(station.clone()),
            None => closest.push((code, Some(station.clone()))),
        }
    }
    Ok(closest)
}

fn csv_row(
    record: &csv::StringRecord,
    positions: &HashMap<StationColumn, usize>,
    path: &str,
    query_version: QueryVersion,
) -> Result<(bool, Station), ParseError> {
    let text = |column: StationColumn| positions.get(&column).and_then(|&index| record.get(index)).unwrap_or("");
    let optional_text = |column: StationColumn| Some(text(column)).filter(|t| !t.is_empty()).map(str::to_string);
    let number = |column: StationColumn| -> Result<Option<f64>, ParseError> {
        let cell = text(column).trim();
        if cell.is_empty() {
            return Ok(None);
        }
        cell.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(Some)
            .ok_or_else(|| shape(&format!("{path}.{}", column.name()), format!("is not a number (got {cell:?})")))
    };
    let required = |column: StationColumn| {
        number(column)?.ok_or_else(|| shape(&format!("{path}.{}", column.name()), "is missing"))
    };
    let closest = match text(StationColumn::Closest).trim() {
        "" | "true" | "1" => true,
        "false" | "0" => false,
        other => return Err(shape(&format!("{path}.closest"), format!("is not true or false (got {other:?})"))),
    };
    let id = optional_text(StationColumn::Id).ok_or_else(|| shape(&format!("{path}.id"), "is missing"))?;
    let dataset = optional_text(StationColumn::Dataset).or_else(|| Dataset::from_id(&id).map(|d| d.code().to_string()));
    let station = Station {
        lat: required(StationColumn::Lat)?,
        lon: required(StationColumn::Lon)?,
        city: text(StationColumn::City).to_string(),
        state: text(StationColumn::State).to_string(),
        timezone: required(StationColumn::Timezone)?,
        elevation: whole(required(StationColumn::Elevation)?),
        distance: whole(required(StationColumn::Distance)?),
        resolution: number(StationColumn::Resolution)?.map(whole),
        country: optional_text(StationColumn::Country),
        weather_data_source: optional_text(StationColumn::WeatherDataSource),
        dataset,
        id,
        query_version,
    };
    Ok((closest, station))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(lat: RawValue, lon: RawValue) -> RawDataQuery {
        RawDataQuery { lat, lon, ..RawDataQuery::default() }
    }

    #[test]
    fn defaults_fill_optional_parameters() {
        let params = validate_data_query(&raw(40.0.into(), (-105.0).into())).unwrap();
        assert_eq!(params.radius, DEFAULT_RADIUS_MILES);
        assert!(!params.all);
        assert_eq!(params.version, QueryVersion::V2);
        assert_eq!(params.format, Format::Json);
        assert_eq!(params.radius_m(), Some(100.0 * METRES_PER_MILE));
    }

    #[test]
    fn reports_every_problem_at_once() {
        let query = RawDataQuery {
            lat: 95.0.into(),
            lon: "east".into(),
            radius: 2500i64.into(),
            all: 2i64.into(),
            version: "v3".into(),
            format: "yaml".into(),
        };
        let problems = validate_data_query(&query).unwrap_err();
        assert_eq!(
            problems,
            vec![
                "lat must be a number between -90 and 90 (got 95)",
                "lon must be a number between -180 and 180 (got \"east\")",
                "radius must be a whole number of miles between 0 and 2000 (got 2500); 0 means the closest station regardless of distance",
                "all must be 0 or 1 (got 2)",
                "version must be \"v1\" or \"v2\" (got \"v3\")",
                "format must be \"json\", \"xml\" or \"csv\" (got \"yaml\")",
            ]
        );
    }

    #[test]
    fn all_needs_a_radius() {
        let mut query = raw("40".into(), "-105".into());
        query.radius = "0".into();
        query.all = true.into();
        assert_eq!(
            validate_data_query(&query).unwrap_err(),
            vec!["all=1 needs a radius greater than 0: give radius between 1 and 2000 miles, or use all=0"]
        );
    }

    #[test]
    fn missing_and_non_numbers_are_problems() {
        let problems = validate_data_query(&raw(RawValue::Missing, f64::NAN.into())).unwrap_err();
        assert_eq!(problems[0], "lat is required: give a number between -90 and 90");
        assert_eq!(problems[1], "lon must be a number between -180 and 180 (got NaN)");
        let mut query = raw("40".into(), "-105".into());
        query.radius = "50.5".into();
        query.all = "yes".into();
        let problems = validate_data_query(&query).unwrap_err();
        assert!(problems[0].starts_with("radius must be a whole number of miles between 0 and 2000 (got 50.5)"));
        assert_eq!(problems[1], "all must be 0 or 1 (got \"yes\")");
    }

    #[test]
    fn http_query_last_value_wins() {
        let pairs = [("lat", "1"), ("lat", "40"), ("lon", "-105"), ("all", "1"), ("radius", "50")]
            .map(|(k, v)| (k.to_string(), v.to_string()));
        let params = validate_data_query(&RawDataQuery::from_query(&pairs, QueryVersion::V1, Format::Xml)).unwrap();
        assert_eq!((params.lat, params.radius, params.all), (40.0, 50, true));
        assert_eq!((params.version, params.format), (QueryVersion::V1, Format::Xml));
        assert!(params.lists_all_stations());
    }

    #[test]
    fn warning_has_the_spec_shape() {
        assert_eq!(no_data_warning("intl", 40.0, -105.0), "No intl data found for lat=40.0 lon=-105.0");
        assert_eq!(no_data_warning("satdb", 40.25, -105.5), "No satdb data found for lat=40.25 lon=-105.5");
    }

    #[test]
    fn ids_tell_their_dataset() {
        assert_eq!(Dataset::from_id("0-94018"), Some(Dataset::Tmy2));
        assert_eq!(Dataset::from_id("3-G-0149190"), Some(Dataset::Satdb));
        assert_eq!(Dataset::from_id("94018"), None);
    }
}

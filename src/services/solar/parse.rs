//! Reading a dataset query body: the JSON or XML envelope (lenient about numbers written as
//! text) and the CSV station table, which carries no envelope.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::services::raw::rounded_i64;
use crate::spec::vocabulary::Dataset;
use super::{no_data_warning, shape, ALL_STATIONS_KEY, API_KEY_INPUT, DataQueryParams, ParseError, QueryVersion, Station, StationColumn, StationQuery};

pub(super) fn parse_json(body: &[u8]) -> Result<Value, ParseError> {
    serde_json::from_slice(body).map_err(|e| ParseError::Json(e.to_string()))
}

pub(super) fn is_json_body(body: &[u8]) -> bool {
    body.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'{')
}

pub(super) fn from_envelope(root: &Value, query_version: QueryVersion) -> Result<StationQuery, ParseError> {
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

pub(super) type ParsedOutputs = (Vec<(String, Option<Station>)>, Option<Vec<Station>>);

pub(super) fn parse_outputs(outputs: Option<&Value>, query_version: QueryVersion) -> Result<ParsedOutputs, ParseError> {
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

pub(super) fn parse_all_stations(value: &Value, path: &str, query_version: QueryVersion) -> Result<Vec<Station>, ParseError> {
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
pub(super) fn at_entry(error: ParseError, list_path: &str, index: usize) -> ParseError {
    match error {
        ParseError::Shape { path, problem } => ParseError::Shape {
            path: path.replacen(list_path, &format!("{list_path}[{index}]"), 1),
            problem,
        },
        other => other,
    }
}

/// Reads a station record leniently: numbers may come as strings, integers as floats.
pub(super) fn parse_station(
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
pub(super) fn whole(number: f64) -> i64 {
    rounded_i64(number)
}

pub(super) fn required_number(record: &Map<String, Value>, key: &str, path: &str) -> Result<f64, ParseError> {
    optional_number(record, key, path)?.ok_or_else(|| shape(&format!("{path}.{key}"), "is missing"))
}

pub(super) fn optional_number(record: &Map<String, Value>, key: &str, path: &str) -> Result<Option<f64>, ParseError> {
    match record.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(value) => lenient_number(value)
            .map(Some)
            .ok_or_else(|| shape(&format!("{path}.{key}"), format!("is not a number (got {value})"))),
    }
}

pub(super) fn lenient_number(value: &Value) -> Option<f64> {
    let number = match value {
        Value::Number(number) => number.as_f64()?,
        Value::String(text) => text.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    number.is_finite().then_some(number)
}

pub(super) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// An object field; absent, null, or the empty text an untyped empty XML element reads as, is `{}`.
pub(super) fn lenient_map(value: Option<&Value>, path: &str) -> Result<Map<String, Value>, ParseError> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(fields)) => Ok(fields.clone()),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(Map::new()),
        Some(_) => Err(shape(path, "is not an object")),
    }
}

/// A list of messages; a lone string counts as a list of one.
pub(super) fn lenient_strings(value: Option<&Value>, path: &str) -> Result<Vec<String>, ParseError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(Vec::new()),
        Some(Value::String(text)) => Ok(vec![text.clone()]),
        Some(Value::Array(items)) => Ok(items.iter().map(message_text).collect()),
        Some(_) => Err(shape(path, "is not a list of messages")),
    }
}

pub(super) fn message_text(value: &Value) -> String {
    scalar_text(value).unwrap_or_else(|| value.to_string())
}

pub(super) fn from_csv(body: &[u8], params: &DataQueryParams) -> Result<StationQuery, ParseError> {
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
pub(super) fn closest_from_rows(rows: &[(bool, Station)]) -> Result<Vec<(String, Option<Station>)>, ParseError> {
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

pub(super) fn csv_row(
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

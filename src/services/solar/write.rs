//! Writing a dataset query result: the envelope in the spec's key order (json and xml) and the
//! station table (csv).

use serde_json::{Map, Number, Value};

use crate::services::raw::exact_i64;
use super::{cell, station_rows, ALL_STATIONS_KEY, Station, StationColumn, StationQuery, WriteError};

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

pub(super) fn outputs_value(query: &StationQuery) -> Value {
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
pub(super) fn station_value(station: &Station, with_dataset: bool) -> Value {
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
pub(super) fn number_value(number: f64) -> Value {
    if let Some(whole) = exact_i64(number) {
        Value::from(whole)
    } else {
        float_value(number)
    }
}

pub(super) fn float_value(number: f64) -> Value {
    Number::from_f64(number).map_or(Value::Null, Value::Number)
}

pub(super) fn write_csv(query: &StationQuery) -> Result<Vec<u8>, WriteError> {
    let csv_error = |e: csv::Error| WriteError::Csv(e.to_string());
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(StationColumn::ALL.map(StationColumn::name)).map_err(csv_error)?;
    for row in station_rows(query) {
        writer.write_record(StationColumn::ALL.map(|column| cell(&row, column).csv_text())).map_err(csv_error)?;
    }
    writer.into_inner().map_err(|e| WriteError::Csv(e.to_string()))
}

//! The results frame: every series of a results document's outputs (one value per time step of
//! the modelled year) as Float64 columns `Section.field`, after a `timestamp` column of each
//! step's start in the site's standard time, as one Arrow batch (handed to polars without copies).
//!
//! The optimizer works in local standard time without saying which: the caller names it as
//! hours east of UTC (`tz_hours`). The year is `inputs.ElectricLoad.year` (2017, the reference
//! profiles' year, when absent) at `inputs.Settings.time_steps_per_hour` (1 when absent).

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, TimestampMicrosecondArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::formats::calendar::days_from_civil;
use crate::formats::timezone::standard_time_zone;

/// The year of the reference load profiles, used when the inputs name none.
const DEFAULT_YEAR: i64 = 2017;
/// How many leading values of a list are checked to be numbers before it is taken as a series.
const CHECKED_VALUES: usize = 24;
const MICROS_PER_MINUTE: i64 = 60_000_000;

/// The parts of a results document `results_series` and `site` read (a caller may hand over only
/// these; the inputs' year-long loads are not among them).
pub const READS: [&[&str]; 4] = [&["inputs", "Settings"], &["inputs", "ElectricLoad", "year"], &["inputs", "Site"], &["outputs"]];

/// `section` of a document's `part` (`inputs` or `outputs`), or nothing.
fn section<'a>(document: &'a Value, part: &str, name: &str) -> Option<&'a Map<String, Value>> {
    document.get(part)?.get(name)?.as_object()
}

/// A whole number of the inputs, Python's `int(value or default)`.
fn whole_input(document: &Value, name: &str, field: &str, default: i64) -> i64 {
    #[allow(clippy::cast_possible_truncation, reason = "a step count or a year; truncated toward zero as int() does")]
    let value = section(document, "inputs", name).and_then(|s| s.get(field)).and_then(|value| match value {
        Value::Number(number) => number.as_i64().or_else(|| number.as_f64().map(|f| f.trunc() as i64)),
        Value::Bool(flag) => Some(i64::from(*flag)),
        _ => None,
    });
    value.filter(|v| *v != 0).unwrap_or(default)
}

/// The site's (latitude, longitude) when the inputs give both as numbers.
pub fn site(document: &Value) -> Option<(f64, f64)> {
    let site = section(document, "inputs", "Site")?;
    let number = |field: &str| site.get(field).filter(|v| v.is_number()).and_then(Value::as_f64);
    Some((number("latitude")?, number("longitude")?))
}

/// The outputs' series of `steps` values whose first values are numbers, in the document's order.
fn output_series(document: &Value, steps: usize) -> Vec<(String, &Vec<Value>)> {
    let Some(outputs) = document.get("outputs").and_then(Value::as_object) else { return Vec::new() };
    let is_series = |values: &Vec<Value>| values.len() == steps && values.iter().take(CHECKED_VALUES).all(|v| v.is_number() || v.is_boolean());
    outputs
        .iter()
        .filter_map(|(name, fields)| Some((name, fields.as_object()?)))
        .flat_map(|(name, fields)| {
            fields.iter().filter_map(move |(field, values)| Some((format!("{name}.{field}"), values.as_array().filter(|v| is_series(v))?)))
        })
        .collect()
}

fn float_of(value: &Value) -> Option<f64> {
    match value {
        Value::Bool(flag) => Some(f64::from(u8::from(*flag))),
        other => other.as_f64(),
    }
}

/// The results frame of `document` with timestamps in the standard time `tz_hours` east of UTC.
pub fn results_series(document: &Value, tz_hours: f64) -> Result<RecordBatch> {
    let per_hour = whole_input(document, "Settings", "time_steps_per_hour", 1);
    let year = whole_input(document, "ElectricLoad", "year", DEFAULT_YEAR);
    if !(1..=60).contains(&per_hour) || 60 % per_hour != 0 {
        return Err(Error::Parameter(vec![format!("inputs.Settings.time_steps_per_hour must divide an hour into whole minutes (got {per_hour})")]));
    }
    let year = i32::try_from(year).ok().filter(|y| (1..=9999).contains(y)).ok_or_else(|| Error::Parameter(vec![format!("inputs.ElectricLoad.year must be a year (got {year})")]))?;
    let steps = usize::try_from(8760 * per_hour).unwrap_or(0);
    #[allow(clippy::cast_possible_truncation, reason = "minutes of an offset within a day")]
    let offset_minutes = if tz_hours.is_finite() { (tz_hours * 60.0).round() as i64 } else { 0 };
    let start_us = (days_from_civil(year, 1, 1) * 1440 - offset_minutes) * MICROS_PER_MINUTE;
    let step_us = 60 / per_hour * MICROS_PER_MINUTE;
    let zone = standard_time_zone(tz_hours).unwrap_or_else(|| "UTC".to_owned());
    let stamps = (0..8760 * per_hour).map(|step| start_us + step * step_us).collect::<Vec<i64>>();
    let mut fields = vec![Field::new("timestamp", DataType::Timestamp(TimeUnit::Microsecond, Some(zone.as_str().into())), false)];
    let mut columns: Vec<ArrayRef> = vec![Arc::new(TimestampMicrosecondArray::from(stamps).with_timezone(zone.as_str()))];
    for (name, values) in output_series(document, steps) {
        fields.push(Field::new(name, DataType::Float64, true));
        columns.push(Arc::new(values.iter().map(float_of).collect::<Float64Array>()));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(|e| Error::Parse(format!("the results frame could not be built: {e}")))
}

#[cfg(test)]
mod tests {
    use arrow_array::Array;
    use serde_json::json;

    use super::*;

    #[test]
    fn every_year_long_output_series_follows_the_timestamps_in_standard_time() {
        let gaps: Vec<Value> = (0..17520).map(|step| if step < 24 { Value::from(1.0) } else { Value::Null }).collect();
        let document = json!({
            "inputs": {"Settings": {"time_steps_per_hour": 2}, "ElectricLoad": {"year": 2023}, "Site": {"latitude": 39.7, "longitude": -105.2}},
            "outputs": {"PV": {"size_kw": 3.0, "electric_to_load_series_kw": vec![1.5; 17520], "short": [1.0, 2.0]},
                        "ElectricUtility": {"electric_to_load_series_kw": gaps, "all_null": vec![Value::Null; 17520]}, "Financial": 1},
        });
        let batch = results_series(&document, -7.0).unwrap();
        let names: Vec<String> = batch.schema().fields().iter().map(|f| f.name().clone()).collect();
        assert_eq!(names, ["timestamp", "PV.electric_to_load_series_kw", "ElectricUtility.electric_to_load_series_kw"]);
        assert_eq!(batch.num_rows(), 17520);
        let stamps = batch.column(0).as_any().downcast_ref::<TimestampMicrosecondArray>().unwrap();
        assert_eq!(stamps.timezone(), Some("Etc/GMT+7"));
        let first_utc = (days_from_civil(2023, 1, 1) * 1440 + 7 * 60) * MICROS_PER_MINUTE;
        assert_eq!((stamps.value(0), stamps.value(1) - stamps.value(0)), (first_utc, 30 * MICROS_PER_MINUTE));
        assert_eq!(batch.column(2).null_count(), 17520 - 24);
        assert_eq!(site(&document), Some((39.7, -105.2)));
    }

    #[test]
    fn a_bare_result_still_has_its_time_axis() {
        let batch = results_series(&json!({"status": "optimal", "inputs": null}), 0.0).unwrap();
        assert_eq!((batch.num_columns(), batch.num_rows()), (1, 8760));
        assert_eq!(site(&json!({"inputs": {"Site": {"latitude": true, "longitude": 1}}})), None);
        assert!(results_series(&json!({"inputs": {"Settings": {"time_steps_per_hour": 7}}}), 0.0).is_err());
    }
}

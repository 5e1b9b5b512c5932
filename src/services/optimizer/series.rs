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
use crate::calendar::days_from_civil;
use crate::formats::timezone::standard_time_zone;

/// The year of the reference load profiles, used when the inputs name none.
const DEFAULT_YEAR: i64 = 2017;
/// How many leading values of a list are checked to be numbers before it is taken as a series.
const CHECKED_VALUES: usize = 24;
const MICROS_PER_MINUTE: i64 = 60_000_000;


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

/// The modelled year's time axis: its first day and how many steps an hour it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesAxis {
    pub year: i32,
    pub per_hour: i64,
}

impl SeriesAxis {
    /// The axis a results document's inputs describe; `ParameterError` for a step count that does
    /// not divide an hour into whole minutes or a year out of 1..=9999.
    pub fn of(document: &Value) -> Result<Self> {
        let per_hour = whole_input(document, "Settings", "time_steps_per_hour", 1);
        let year = whole_input(document, "ElectricLoad", "year", DEFAULT_YEAR);
        if !(1..=60).contains(&per_hour) || 60 % per_hour != 0 {
            return Err(Error::Parameter(vec![format!("inputs.Settings.time_steps_per_hour must divide an hour into whole minutes (got {per_hour})")]));
        }
        let year = i32::try_from(year).ok().filter(|y| (1..=9999).contains(y)).ok_or_else(|| Error::Parameter(vec![format!("inputs.ElectricLoad.year must be a year (got {year})")]))?;
        Ok(Self { year, per_hour })
    }

    /// Values in a year-long series.
    pub fn steps(self) -> usize {
        usize::try_from(8760 * self.per_hour).unwrap_or(0)
    }

    /// Whether an output list is one of the year's series: one value per step, its leading values
    /// numbers (`is_number(index)` says whether the value at `index` is one; booleans count, as
    /// Python's do).
    pub fn is_series(self, len: usize, is_number: impl FnMut(usize) -> bool) -> bool {
        len == self.steps() && (0..len.min(CHECKED_VALUES)).all(is_number)
    }
}

/// The outputs' year-long series of a results document as `(Section.field, values)`, in the
/// document's order: every list of `axis.steps()` values whose leading values are numbers (or
/// booleans, which count as Python's do); a value that is not a number is null.
pub fn output_columns(document: &Value, axis: SeriesAxis) -> Vec<(String, Float64Array)> {
    let number = |value: &Value| if let Value::Bool(flag) = value { Some(f64::from(u8::from(*flag))) } else { value.as_f64() };
    let mut columns = Vec::new();
    for (name, fields) in document.get("outputs").and_then(Value::as_object).into_iter().flatten() {
        for (field, values) in fields.as_object().into_iter().flatten() {
            if let Some(values) = values.as_array().filter(|v| axis.is_series(v.len(), |i| v.get(i).is_some_and(|item| item.is_number() || item.is_boolean()))) {
                columns.push((format!("{name}.{field}"), values.iter().map(number).collect::<Float64Array>()));
            }
        }
    }
    columns
}

/// The results frame with timestamps in the standard time `tz_hours` east of UTC: `columns` are
/// the outputs' series as `(Section.field, values)`, in the document's order, a value that is not
/// a number being null.
pub fn results_series(axis: SeriesAxis, tz_hours: f64, columns: Vec<(String, Float64Array)>) -> Result<RecordBatch> {
    #[allow(clippy::cast_possible_truncation, reason = "minutes of an offset within a day")]
    let offset_minutes = if tz_hours.is_finite() { (tz_hours * 60.0).round() as i64 } else { 0 };
    let start_us = (days_from_civil(axis.year, 1, 1) * 1440 - offset_minutes) * MICROS_PER_MINUTE;
    let step_us = 60 / axis.per_hour * MICROS_PER_MINUTE;
    let zone = standard_time_zone(tz_hours).unwrap_or_else(|| "UTC".to_owned());
    let stamps = (0..8760 * axis.per_hour).map(|step| start_us + step * step_us).collect::<Vec<i64>>();
    let mut fields = vec![Field::new("timestamp", DataType::Timestamp(TimeUnit::Microsecond, Some(zone.as_str().into())), false)];
    let mut arrays: Vec<ArrayRef> = vec![Arc::new(TimestampMicrosecondArray::from(stamps).with_timezone(zone.as_str()))];
    for (name, values) in columns {
        fields.push(Field::new(name, DataType::Float64, true));
        arrays.push(Arc::new(values));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).map_err(|e| Error::Parse(format!("the results frame could not be built: {e}")))
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
        let axis = SeriesAxis::of(&document).unwrap();
        assert_eq!((axis, axis.steps()), (SeriesAxis { year: 2023, per_hour: 2 }, 17520));
        let batch = results_series(axis, -7.0, output_columns(&document, axis)).unwrap();
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
        let axis = SeriesAxis::of(&json!({"status": "optimal", "inputs": null})).unwrap();
        let batch = results_series(axis, 0.0, Vec::new()).unwrap();
        assert_eq!((batch.num_columns(), batch.num_rows()), (1, 8760));
        assert_eq!(site(&json!({"inputs": {"Site": {"latitude": true, "longitude": 1}}})), None);
        assert!(SeriesAxis::of(&json!({"inputs": {"Settings": {"time_steps_per_hour": 7}}})).is_err());
        assert!(SeriesAxis::of(&json!({"inputs": {"ElectricLoad": {"year": 12345}}})).is_err());
    }
}

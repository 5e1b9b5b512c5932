//! Conversions between Python objects and core values: raw parameters as the user gave them,
//! JSON values, and Arrow tables handed over without copying.

use std::time::Duration;

use arrow_array::RecordBatch;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use pyo3_arrow::PyTable;
use serde_json::Value;

use crate::error::Error;
use crate::limits;
use crate::services::solar::RawValue;

/// A parameter as the caller passed it, so validation can name wrong types and ranges alike.
pub fn raw_value(value: Option<&Bound<'_, PyAny>>) -> RawValue {
    let Some(value) = value.filter(|v| !v.is_none()) else { return RawValue::Missing };
    if value.is_instance_of::<PyBool>() {
        return RawValue::Bool(value.extract().unwrap_or(false));
    }
    if value.is_instance_of::<PyInt>() {
        if let Ok(number) = value.extract::<i64>() {
            return RawValue::Int(number);
        }
    }
    if value.is_instance_of::<PyFloat>() || value.hasattr("__float__").unwrap_or(false) && !value.is_instance_of::<PyString>() {
        if let Ok(number) = value.extract::<f64>() {
            return RawValue::Float(number);
        }
    }
    match value.extract::<String>() {
        Ok(text) => RawValue::Text(text),
        Err(_) => RawValue::Text(value.repr().map(|r| r.to_string()).unwrap_or_default()),
    }
}

/// A JSON value as plain Python objects (dict, list, str, int, float, bool, None).
pub fn json_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any(),
        Value::Number(number) => match (number.as_i64(), number.as_u64()) {
            (Some(int), _) => int.into_pyobject(py)?.into_any(),
            (None, Some(uint)) => uint.into_pyobject(py)?.into_any(),
            _ => number.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(text) => PyString::new(py, text).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, json_to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// Wraps record batches in an object with `__arrow_c_stream__` (polars, pyarrow and pandas read
/// it without copying the buffers).
pub fn arrow_table<'py>(py: Python<'py>, batches: Vec<RecordBatch>, schema: arrow_schema::SchemaRef) -> PyResult<Bound<'py, PyAny>> {
    let table = PyTable::try_new(batches, schema).map_err(|e| PyValueError::new_err(e.to_string()))?;
    table.into_pyobject(py).map(|bound| bound.into_any())
}

/// Reads the arguments of one call as the caller gave them, collecting every problem so that the
/// call reports all of them at once (`ParameterError`) instead of raising on the first, and so
/// that no wrong type escapes as `TypeError` or `OverflowError`.
#[derive(Debug, Default)]
pub struct Arguments {
    pub problems: Vec<String>,
}

impl Arguments {
    pub fn new() -> Self {
        Arguments::default()
    }

    fn problem<T>(&mut self, message: String) -> Option<T> {
        self.problems.push(message);
        None
    }

    /// A duration in seconds (see `limits::seconds`).
    pub fn seconds(&mut self, name: &str, value: &Bound<'_, PyAny>, positive: bool) -> Option<Duration> {
        match raw_value(Some(value)) {
            RawValue::Int(number) => self.checked_seconds(name, number as f64, positive),
            RawValue::Float(number) => self.checked_seconds(name, number, positive),
            other => self.problem(format!("{name} must be a number of seconds (got {})", other.describe())),
        }
    }

    /// [`Arguments::seconds`], or `None` given as None.
    pub fn optional_seconds(&mut self, name: &str, value: Option<&Bound<'_, PyAny>>, positive: bool) -> Option<Option<Duration>> {
        match value.filter(|v| !v.is_none()) {
            None => Some(None),
            Some(value) => self.seconds(name, value, positive).map(Some),
        }
    }

    fn checked_seconds(&mut self, name: &str, value: f64, positive: bool) -> Option<Duration> {
        limits::seconds(name, value, positive).map_err(|problem| self.problems.push(problem)).ok()
    }

    /// A whole number within `min..=max` (an integral float is accepted, a bool is not).
    pub fn whole<T: TryFrom<i64>>(&mut self, name: &str, value: &Bound<'_, PyAny>, min: i64, max: i64) -> Option<T> {
        let raw = raw_value(Some(value));
        let number = match &raw {
            RawValue::Int(_) | RawValue::Float(_) => raw.as_whole(),
            _ => None,
        };
        match number.filter(|n| (min..=max).contains(n)).and_then(|n| T::try_from(n).ok()) {
            Some(number) => Some(number),
            None => self.problem(format!("{name} must be a whole number between {min} and {max} (got {})", raw.describe())),
        }
    }

    /// `True` or `False`.
    pub fn flag(&mut self, name: &str, value: &Bound<'_, PyAny>) -> Option<bool> {
        match raw_value(Some(value)) {
            RawValue::Bool(flag) => Some(flag),
            other => self.problem(format!("{name} must be True or False (got {})", other.describe())),
        }
    }

    /// A `str`.
    pub fn text(&mut self, name: &str, value: &Bound<'_, PyAny>) -> Option<String> {
        match value.extract::<String>() {
            Ok(text) => Some(text),
            Err(_) => self.problem(format!("{name} must be text (got {})", type_name(value))),
        }
    }

    /// A `str` or None.
    pub fn optional_text(&mut self, name: &str, value: Option<&Bound<'_, PyAny>>) -> Option<Option<String>> {
        match value.filter(|v| !v.is_none()) {
            None => Some(None),
            Some(value) => self.text(name, value).map(Some),
        }
    }

    /// A list of `str` (any iterable of them but a single `str`).
    pub fn texts(&mut self, name: &str, value: &Bound<'_, PyAny>) -> Option<Vec<String>> {
        if value.is_instance_of::<PyString>() {
            return self.problem(format!("{name} must be a list of text, not one text"));
        }
        match value.extract::<Vec<String>>() {
            Ok(texts) => Some(texts),
            Err(_) => self.problem(format!("{name} must be a list of text (got {})", type_name(value))),
        }
    }

    /// `Ok` when no problem was found, else the `ParameterError` with every problem.
    pub fn finish(self) -> Result<(), Error> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Parameter(self.problems))
        }
    }
}

/// The Python type name of a value, for messages (never the value itself, which may be a key).
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "an object".to_owned())
}

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

/// A JSON value handed to Python as plain objects (a result's document, a rate).
pub struct JsonDocument(pub Value);

impl<'py> IntoPyObject<'py> for JsonDocument {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.0)
    }
}

/// Plain Python objects (dicts and other mappings, lists, tuples, str, int, float, bool, None)
/// as a JSON value; a float that is not finite becomes null, as in JSON. `ParameterError` for
/// anything else, naming where it is (`what` and the path below it).
pub fn py_to_json(value: &Bound<'_, PyAny>, what: &str) -> Result<Value, Error> {
    json_of(value, 0).map_err(|(path, problem)| Error::Parameter(vec![format!("{what}{path} {problem}")]))
}

/// The path of a problem is built only when there is one (a results document holds hundreds of
/// thousands of values); floats, the common case, are tried first.
fn json_of(value: &Bound<'_, PyAny>, depth: usize) -> Result<Value, (String, String)> {
    let failed = |e: PyErr| (String::new(), format!("could not be read: {e}"));
    if let Ok(float) = value.cast::<PyFloat>() {
        return Ok(serde_json::Number::from_f64(float.value()).map_or(Value::Null, Value::Number));
    }
    if value.is_none() {
        return Ok(Value::Null);
    }
    if depth > limits::MAX_JSON_DEPTH {
        return Err((String::new(), format!("is nested deeper than {} levels", limits::MAX_JSON_DEPTH)));
    }
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(Value::Bool(flag.is_true()));
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(Value::String(text.to_string_lossy().into_owned()));
    }
    if value.is_instance_of::<PyInt>() {
        if let Ok(int) = value.extract::<i64>() {
            return Ok(Value::from(int));
        }
        if let Ok(uint) = value.extract::<u64>() {
            return Ok(Value::from(uint));
        }
        let float: f64 = value.extract().map_err(failed)?;
        return Ok(serde_json::Number::from_f64(float).map_or(Value::Null, Value::Number));
    }
    let item_of = |index: usize, item: &Bound<'_, PyAny>| json_of(item, depth + 1).map_err(|(path, problem)| (format!("[{index}]{path}"), problem));
    if let Ok(list) = value.cast::<PyList>() {
        return list.iter().enumerate().map(|(index, item)| item_of(index, &item)).collect::<Result<Vec<_>, _>>().map(Value::Array);
    }
    if let Ok(tuple) = value.cast::<pyo3::types::PyTuple>() {
        return tuple.iter().enumerate().map(|(index, item)| item_of(index, &item)).collect::<Result<Vec<_>, _>>().map(Value::Array);
    }
    let entry_of = |key: &Bound<'_, PyAny>, item: &Bound<'_, PyAny>| -> Result<(String, Value), (String, String)> {
        let key = key.str().map_err(failed)?.to_string_lossy().into_owned();
        let value = json_of(item, depth + 1).map_err(|(path, problem)| (format!(".{key}{path}"), problem))?;
        Ok((key, value))
    };
    if let Ok(dict) = value.cast::<PyDict>() {
        return dict.iter().map(|(key, item)| entry_of(&key, &item)).collect::<Result<serde_json::Map<_, _>, _>>().map(Value::Object);
    }
    if let Ok(items) = value.call_method0("items") {
        let mut map = serde_json::Map::new();
        for pair in items.try_iter().map_err(failed)? {
            let (key, item): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.and_then(|p| p.extract()).map_err(failed)?;
            let (key, item) = entry_of(&key, &item)?;
            map.insert(key, item);
        }
        return Ok(Value::Object(map));
    }
    Err((String::new(), format!("must be a JSON value (got {})", type_name(value))))
}

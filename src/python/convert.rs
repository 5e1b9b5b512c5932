//! Conversions between Python objects and core values: raw parameters as the user gave them,
//! JSON values, and Arrow tables handed over without copying.

use arrow_array::RecordBatch;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use pyo3_arrow::PyTable;
use serde_json::Value;

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

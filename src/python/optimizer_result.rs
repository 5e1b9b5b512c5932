//! `PyResultDocument`: an optimizer results document kept as parsed JSON on the Rust side.
//! `OptimizerResult` reads its small parts (status, messages) at once and the rest only when
//! asked: the frame of `series()` and the outage simulation are built from the Rust value, and
//! the year-long lists become Python objects only when `.raw`, `.inputs` or `.outputs` is read.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use serde_json::{Map, Value};

use super::convert::{arrow_table, json_to_py, py_to_json};
use super::errors::to_pyerr;
use super::optimizer::survival;
use crate::error::Error;
use crate::places::standard_offset_near;
use crate::optimizer::outage_inputs;
use crate::optimizer::scenario::text::python_str;
use crate::services::optimizer::series::{self, output_columns, results_series, SeriesAxis};

/// A results document (a JSON object) of the service, the embedded service or `solve`.
#[pyclass(module = "sunflux._core", frozen, name = "ResultDocument")]
pub struct PyResultDocument {
    document: Value,
}

impl PyResultDocument {
    /// The document of a run's answer (a JSON object).
    pub fn new(document: Value) -> Self {
        Self { document }
    }

    fn part(&self, name: &str) -> Option<&Value> {
        self.document.get(name).filter(|value| !value.is_null())
    }
}

/// `ParameterError` unless `document` is a JSON object.
fn object(document: Value, what: &str) -> PyResult<PyResultDocument> {
    match document {
        document @ Value::Object(_) => Ok(PyResultDocument::new(document)),
        _ => Err(to_pyerr(Error::Parameter(vec![format!("{what} must be a JSON object (a results document)")]))),
    }
}

#[pymethods]
impl PyResultDocument {
    /// The document of a mapping (a results dict a user kept, for example from the live service).
    #[staticmethod]
    fn from_mapping(mapping: &Bound<'_, PyAny>) -> PyResult<Self> {
        object(py_to_json(mapping, "result").map_err(to_pyerr)?, "result")
    }

    /// The document of its JSON text (how a result is pickled).
    #[staticmethod]
    fn from_json(text: &[u8]) -> PyResult<Self> {
        let document = serde_json::from_slice(text).map_err(|e| to_pyerr(Error::Parameter(vec![format!("the result is not valid JSON: {e}")])))?;
        object(document, "result")
    }

    /// The document's JSON text.
    fn to_json<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.document.to_string().as_bytes())
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let rebuild = py.get_type::<Self>().getattr("from_json")?;
        Ok((rebuild, PyTuple::new(py, [slf.get().to_json(py)])?))
    }

    /// `(run_uuid, status, messages)`: the two texts as Python's `str` writes them ("" when
    /// absent or null) and the messages (an empty dict when absent or not an object).
    fn head<'py>(&self, py: Python<'py>) -> PyResult<(String, String, Bound<'py, PyAny>)> {
        let messages = match self.part("messages") {
            Some(messages @ Value::Object(_)) => json_to_py(py, messages)?,
            _ => PyDict::new(py).into_any(),
        };
        let text = |name: &str| self.part(name).map(python_str).unwrap_or_default();
        Ok((text("run_uuid"), text("status"), messages))
    }

    /// A top-level part (`inputs`, `outputs`, …) as Python objects; an empty dict when absent.
    fn part_dict<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.part(name) {
            Some(value) => json_to_py(py, value),
            None => Ok(PyDict::new(py).into_any()),
        }
    }

    /// The number at `path` (keys from the top), or None where there is none.
    fn number_at(&self, path: Vec<String>) -> Option<f64> {
        path.iter().try_fold(&self.document, |value, key| value.get(key.as_str())).filter(|value| value.is_number()).and_then(Value::as_f64)
    }

    /// The whole document as Python objects.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.document)
    }

    /// The document with every list of numbers left out of `outputs` (what a summary row reads:
    /// sizes, costs, bills, emissions), as Python objects.
    fn without_series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let is_numbers = |value: &Value| value.as_array().is_some_and(|items| items.iter().all(|item| item.is_number() || item.is_null()) && !items.is_empty());
        let mut light = Map::new();
        for (key, value) in self.document.as_object().into_iter().flatten() {
            let kept = match (key.as_str(), value) {
                ("outputs", Value::Object(sections)) => Value::Object(
                    sections
                        .iter()
                        .map(|(name, section)| match section {
                            Value::Object(fields) => (name.clone(), Value::Object(fields.iter().filter(|(_, v)| !is_numbers(v)).map(|(k, v)| (k.clone(), v.clone())).collect())),
                            other => (name.clone(), other.clone()),
                        })
                        .collect(),
                ),
                ("inputs", _) => continue,
                _ => value.clone(),
            };
            light.insert(key.clone(), kept);
        }
        json_to_py(py, &Value::Object(light))
    }

    /// The results frame as an Arrow table: `timestamp` in the standard time `tz` hours east of
    /// UTC (when None, the nearest known place's within 400 km of `inputs.Site`, or its nautical
    /// zone; UTC without a site), then every year-long output series.
    #[pyo3(signature = (tz=None))]
    fn series<'py>(&self, py: Python<'py>, tz: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        let axis = SeriesAxis::of(&self.document).map_err(to_pyerr)?;
        let tz = tz.unwrap_or_else(|| series::site(&self.document).map_or(0.0, |(lat, lon)| standard_offset_near(lat, lon)));
        let batch = py.detach(|| results_series(axis, tz, output_columns(&self.document, axis))).map_err(to_pyerr)?;
        arrow_table(py, vec![batch.clone()], batch.schema())
    }

    /// `simulate_outages` of the result: its inputs gathered in Rust (`optimizer::outage_inputs`),
    /// with the schema's defaults for what the document leaves out.
    #[pyo3(signature = (microgrid_only=false))]
    fn simulate_outages<'py>(&self, py: Python<'py>, microgrid_only: bool) -> PyResult<Bound<'py, PyDict>> {
        let inputs = outage_inputs::from_results(&self.document, microgrid_only).map_err(|problem| to_pyerr(Error::Parameter(vec![problem])))?;
        survival(py, &inputs)
    }
}

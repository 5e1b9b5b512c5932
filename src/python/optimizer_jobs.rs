//! Bindings of the optimizer's job client (`client.optimizer.submit / results / run`, the Utility
//! Rate Database lookups) and of its results (the frame of `OptimizerResult.series`, the outage
//! simulation of a results document): Python values in, the `services::optimizer` calls, plain
//! Python values out. A run's state reaches Python as `(document, http_status)`.

use arrow_array::Float64Array;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt, PyList, PyTuple};
use serde_json::Value;

use super::client::sync_and_async;
use super::convert::{arrow_table, mapping_items, part_at, py_parts_to_json, type_name, Arguments, JsonDocument};
use super::errors::to_pyerr;
use crate::error::Error;
use crate::local::catalog::Catalog;
use crate::services::optimizer::answer::{RunState, OPTIMAL, RUNNING_STATUSES};
use crate::services::optimizer::request::{self, RunSchedule};
use crate::services::optimizer::series::{self, results_series, SeriesAxis};
use crate::services::optimizer::urdb::{self, URDB_API_VERSION};

/// The optimizer's constants as `_core` names: `OPTIMIZER_OPTIMAL`, `OPTIMIZER_RUNNING_STATUSES`
/// and `URDB_API_VERSION`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("OPTIMIZER_OPTIMAL", OPTIMAL)?;
    m.add("OPTIMIZER_RUNNING_STATUSES", PyTuple::new(m.py(), RUNNING_STATUSES)?)?;
    m.add("URDB_API_VERSION", URDB_API_VERSION)?;
    Ok(())
}

fn state(run: RunState) -> (JsonDocument, u16) {
    (JsonDocument(Value::Object(run.document)), run.http_status)
}

sync_and_async! {
    /// POSTs a scenario (its JSON) and returns the run's run_uuid; a refusal raises
    /// `ValidationError` with `input_errors`.
    #[pyo3(signature = (client, scenario, trace=false))]
    fn optimizer_submit, optimizer_submit_async(client, scenario: Vec<u8>, trace: bool) -> String {
        Ok(request::submit(client.core(trace), scenario))
    }
}

sync_and_async! {
    /// One read of a run's results: `(document, http_status)` in whatever state the run is.
    #[pyo3(signature = (client, run_uuid, trace=false))]
    fn optimizer_results, optimizer_results_async(client, run_uuid: &Bound<'_, PyAny>, trace: bool) -> (JsonDocument, u16) {
        let run_uuid = run_uuid
            .extract::<String>()
            .map_err(|_| client.error(Error::Parameter(vec![format!("run_uuid must be a UUID string (got {})", type_name(run_uuid))])))?;
        let results = request::results(client.core(trace), run_uuid);
        Ok(async move { results.await.map(state) })
    }
}

sync_and_async! {
    /// Submits and polls until the run is optimal: `(document, http_status)`; `JobFailed`,
    /// `JobTimeout` or `NotFoundError` (after `not_found_grace` s) otherwise.
    #[pyo3(signature = (client, scenario, timeout, poll_interval, max_interval, not_found_grace, trace=false))]
    fn optimizer_run, optimizer_run_async(
        client,
        scenario: Vec<u8>,
        timeout: &Bound<'_, PyAny>,
        poll_interval: &Bound<'_, PyAny>,
        max_interval: &Bound<'_, PyAny>,
        not_found_grace: &Bound<'_, PyAny>,
        trace: bool,
    ) -> (JsonDocument, u16) {
        let mut args = Arguments::new();
        let poll_interval = args.seconds("poll_interval", poll_interval, false);
        let max_interval = args.seconds("max_interval", max_interval, false);
        let timeout = args.seconds("timeout", timeout, false);
        let not_found_grace = args.seconds("not_found_grace", not_found_grace, false);
        args.finish().map_err(|e| client.error(e))?;
        let (Some(poll_interval), Some(max_interval), Some(timeout), Some(not_found_grace)) = (poll_interval, max_interval, timeout, not_found_grace) else {
            return Err(client.error(Error::Parameter(vec!["invalid arguments".into()])));
        };
        let run = request::run(client.core(trace), scenario, RunSchedule { poll_interval, max_interval, timeout, not_found_grace });
        Ok(async move { run.await.map(state) })
    }
}

sync_and_async! {
    /// The full rate object of a Utility Rate Database label (`client` is the rate database's).
    #[pyo3(signature = (client, label, trace=false))]
    fn optimizer_urdb_rate, optimizer_urdb_rate_async(client, label: &Bound<'_, PyAny>, trace: bool) -> JsonDocument {
        let label = match label.extract::<String>() {
            Ok(text) => urdb::checked_label(&text),
            Err(_) => Err(Error::Parameter(vec![urdb::label_problem(&label.repr()?.to_string())])),
        };
        let rate = urdb::rate_by_label(client.core(trace), label.map_err(|e| client.error(e))?);
        Ok(async move { rate.await.map(|rate| JsonDocument(Value::Object(rate))) })
    }
}

sync_and_async! {
    /// The newest rate of `utility` whose name is part of `rate_name` (`client` is the rate
    /// database's).
    #[pyo3(signature = (client, utility, rate_name, trace=false))]
    fn optimizer_urdb_rate_by_name, optimizer_urdb_rate_by_name_async(client, utility: Option<String>, rate_name: Option<String>, trace: bool) -> JsonDocument {
        let (utility, rate_name) = urdb::checked_names(utility.as_deref(), rate_name.as_deref()).map_err(|e| client.error(e))?;
        let rate = urdb::rate_by_name(client.core(trace), utility, rate_name);
        Ok(async move { rate.await.map(|rate| JsonDocument(Value::Object(rate))) })
    }
}

/// The results frame of a results document as an Arrow table: `timestamp` in the standard time
/// `tz` hours east of UTC (when None, the nearest known place's within 400 km of
/// `inputs.Site`, or its nautical zone; UTC without a site), then every year-long output series.
#[pyfunction]
#[pyo3(signature = (document, tz=None))]
pub fn optimizer_series<'py>(py: Python<'py>, document: &Bound<'py, PyAny>, tz: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
    let inputs = py_parts_to_json(document, "result", &series::INPUT_READS).map_err(to_pyerr)?;
    let axis = SeriesAxis::of(&inputs).map_err(to_pyerr)?;
    let tz = tz.unwrap_or_else(|| series::site(&inputs).map_or(0.0, |(lat, lon)| Catalog::shared().standard_offset_near(lat, lon)));
    let columns = output_columns(document, axis);
    let batch = py.detach(|| results_series(axis, tz, columns)).map_err(to_pyerr)?;
    arrow_table(py, vec![batch.clone()], batch.schema())
}

/// The outputs' year-long series, read straight from the Python lists (a results document holds
/// hundreds of thousands of values: no JSON value is built for them); a value that is not a
/// number reads as null.
fn output_columns(document: &Bound<'_, PyAny>, axis: SeriesAxis) -> Vec<(String, Float64Array)> {
    let number = |value: &Bound<'_, PyAny>| match value.cast::<PyFloat>() {
        Ok(float) => Some(float.value()),
        Err(_) if value.is_instance_of::<PyInt>() => value.extract::<f64>().ok(),
        Err(_) => None,
    };
    let sections = part_at(document, &["outputs"]).and_then(|outputs| mapping_items(&outputs)).unwrap_or_default();
    let mut columns = Vec::new();
    for (section, fields) in sections {
        for (field, values) in mapping_items(&fields).unwrap_or_default() {
            let Ok(list) = values.cast::<PyList>() else { continue };
            if axis.is_series(list.len(), |index| list.get_item(index).is_ok_and(|value| number(&value).is_some())) {
                // Most series are all numbers: one conversion call per value, then no validity map.
                let values = match list.extract::<Vec<f64>>() {
                    Ok(all) => Float64Array::from(all),
                    Err(_) => list.iter().map(|value| number(&value)).collect(),
                };
                columns.push((format!("{section}.{field}"), values));
            }
        }
    }
    columns
}

//! Bindings of the optimizer's job client (`client.optimizer.submit / results / run`, the Utility
//! Rate Database lookups): Python values in, the `services::optimizer` calls, Python values out. A
//! run's state reaches Python as `(PyResultDocument, http_status)`.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use serde_json::Value;

use super::client::PyTransport;
use super::pending::PyPendingCall;
use super::convert::{type_name, Arguments, JsonDocument};
use super::optimizer_result::PyResultDocument;
use super::poll::poll_schedule;
use crate::error::Error;
use crate::services::optimizer::answer::{RunState, OPTIMAL, RUNNING_STATUSES};
use crate::services::optimizer::request::{self, RunSchedule};
use crate::services::optimizer::urdb::{self, URDB_API_VERSION};

/// The optimizer's constants as `_core` names: `OPTIMIZER_OPTIMAL`, `OPTIMIZER_RUNNING_STATUSES`
/// and `URDB_API_VERSION`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("OPTIMIZER_OPTIMAL", OPTIMAL)?;
    m.add("OPTIMIZER_RUNNING_STATUSES", PyTuple::new(m.py(), RUNNING_STATUSES)?)?;
    m.add("URDB_API_VERSION", URDB_API_VERSION)?;
    Ok(())
}

fn state(run: RunState) -> (PyResultDocument, u16) {
    (PyResultDocument::new(Value::Object(run.document)), run.http_status)
}

/// POSTs a scenario (its JSON) and returns the run's run_uuid; a refusal raises
/// `ValidationError` with `input_errors`.
///
/// Returns a `PyPendingCall` of `String`.
#[pyfunction]
#[pyo3(signature = (client, scenario, trace=false))]
pub fn optimizer_submit(client: &PyTransport, scenario: Vec<u8>, trace: bool) -> PyResult<PyPendingCall> {
    Ok(client.pending(request::submit(client.handle(trace), scenario)))
}

/// One read of a run's results: `(document, http_status)` in whatever state the run is.
///
/// Returns a `PyPendingCall` of `(PyResultDocument, u16)`.
#[pyfunction]
#[pyo3(signature = (client, run_uuid, trace=false))]
pub fn optimizer_results(client: &PyTransport, run_uuid: &Bound<'_, PyAny>, trace: bool) -> PyResult<PyPendingCall> {
    let run_uuid = run_uuid
        .extract::<String>()
        .map_err(|_| client.error(Error::Parameter(vec![format!("run_uuid must be a UUID string (got {})", type_name(run_uuid))])))?;
    let results = request::results(client.handle(trace), run_uuid);
    Ok(client.pending(async move { results.await.map(state) }))
}

/// Submits and polls until the run is optimal: `(document, http_status)`; `JobFailed`,
/// `JobTimeout` or `NotFoundError` (after `not_found_grace` s) otherwise.
///
/// Returns a `PyPendingCall` of `(PyResultDocument, u16)`.
#[pyfunction]
#[pyo3(signature = (client, scenario, timeout, poll_interval, max_interval, not_found_grace, trace=false))]
pub fn optimizer_run(
    client: &PyTransport,
    scenario: Vec<u8>,
    timeout: &Bound<'_, PyAny>,
    poll_interval: &Bound<'_, PyAny>,
    max_interval: &Bound<'_, PyAny>,
    not_found_grace: &Bound<'_, PyAny>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let mut args = Arguments::new();
    let polling = poll_schedule(&mut args, poll_interval, max_interval, timeout);
    let not_found_grace = args.seconds("not_found_grace", not_found_grace, false);
    args.finish().map_err(|e| client.error(e))?;
    let (Some(polling), Some(not_found_grace)) = (polling, not_found_grace) else {
        return Err(client.error(Error::Parameter(vec!["invalid arguments".into()])));
    };
    let run = request::run(client.handle(trace), scenario, RunSchedule { polling, not_found_grace });
    Ok(client.pending(async move { run.await.map(state) }))
}

/// The full rate object of a Utility Rate Database label (`client` is the rate database's).
///
/// Returns a `PyPendingCall` of `JsonDocument`.
#[pyfunction]
#[pyo3(signature = (client, label, trace=false))]
pub fn optimizer_urdb_rate(client: &PyTransport, label: &Bound<'_, PyAny>, trace: bool) -> PyResult<PyPendingCall> {
    let label = match label.extract::<String>() {
        Ok(text) => urdb::checked_label(&text),
        Err(_) => Err(Error::Parameter(vec![urdb::label_problem(&label.repr()?.to_string())])),
    };
    let rate = urdb::rate_by_label(client.handle(trace), label.map_err(|e| client.error(e))?);
    Ok(client.pending(async move { rate.await.map(|rate| JsonDocument(Value::Object(rate))) }))
}

/// The newest rate of `utility` whose name is part of `rate_name` (`client` is the rate
/// database's).
///
/// Returns a `PyPendingCall` of `JsonDocument`.
#[pyfunction]
#[pyo3(signature = (client, utility, rate_name, trace=false))]
pub fn optimizer_urdb_rate_by_name(client: &PyTransport, utility: Option<String>, rate_name: Option<String>, trace: bool) -> PyResult<PyPendingCall> {
    let (utility, rate_name) = urdb::checked_names(utility.as_deref(), rate_name.as_deref()).map_err(|e| client.error(e))?;
    let rate = urdb::rate_by_name(client.handle(trace), utility, rate_name);
    Ok(client.pending(async move { rate.await.map(|rate| JsonDocument(Value::Object(rate))) }))
}

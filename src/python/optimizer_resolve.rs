//! Binding of `Scenario.resolve` (`services::optimizer::resolve`): the scenario's dict in, the
//! resolved document out as plain Python values; the load, the rate and the wind resource are
//! fetched in Rust, each through its client.

use std::path::PathBuf;

use pyo3::prelude::*;

use super::client::PyTransport;
use super::pending::PyPendingCall;
use super::convert::{py_to_json, JsonDocument};
use crate::services::optimizer::resolve::{resolve, Sources};
use crate::services::simulated_load::REFERENCE_YEAR;

/// The scenario document with its reference load and URDB rate replaced by their data, and a
/// Wind section's production factor computed on the WIND Toolkit resource, fetched once and kept
/// under `cache_dir` (None keeps nothing). `client` is the developer network's (optimizer load,
/// WIND Toolkit), `urdb_client` the rate database's.
///
/// Returns a `PyPendingCall` of `JsonDocument`.
#[pyfunction]
#[pyo3(signature = (client, urdb_client, scenario, cache_dir=None, trace=false))]
pub fn optimizer_resolve(
    client: &PyTransport,
    urdb_client: PyRef<'_, PyTransport>,
    scenario: &Bound<'_, PyAny>,
    cache_dir: Option<PathBuf>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let document = py_to_json(scenario, "scenario").map_err(|e| client.error(e))?;
    let rates = urdb_client.handle(trace);
    let rates_transport = rates.transport.clone();
    let resolved = resolve(Sources { load: client.handle(trace), rates }, document, cache_dir);
    Ok(client.pending(async move { resolved.await.map(JsonDocument).map_err(|e| rates_transport.redact_error(e)) }))
}

/// The reference profiles' year as `_core.OPTIMIZER_REFERENCE_YEAR`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("OPTIMIZER_REFERENCE_YEAR", REFERENCE_YEAR)
}

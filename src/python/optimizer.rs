//! Binding of the optimizer service's load endpoint (`client.optimizer.simulated_load`):
//! validation with the rules the embedded endpoint uses, the request, and the load as Arrow.

use std::sync::Arc;

use arrow_array::RecordBatch;
use pyo3::prelude::*;

use super::bridge::{awaitable, block_on};
use super::client::CoreClient;
use super::convert::{arrow_table, raw_value};
use super::errors::to_pyerr;
use crate::error::{Error, Result};
use crate::services::simulated_load::{load_batch, parse_simulated_load, validate_simulated_load, RawSimulatedLoad, SimulatedLoadQuery};
use crate::transport::{Endpoint, Request, Transport};

/// A load profile with its summary; the Python side turns `table()` into a polars frame.
#[pyclass(module = "sunflux._core", frozen, name = "CoreSimulatedLoad")]
pub struct CoreSimulatedLoad {
    batch: RecordBatch,
    #[pyo3(get)]
    annual_kwh: f64,
    #[pyo3(get)]
    max_kw: f64,
    #[pyo3(get)]
    year: i32,
    #[pyo3(get)]
    time_steps_per_hour: usize,
}

#[pymethods]
impl CoreSimulatedLoad {
    /// `timestamp` (naive, from 1 January of `year`) and `load_kw`.
    fn table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        arrow_table(py, vec![self.batch.clone()], self.batch.schema())
    }
}

async fn run(transport: Arc<Transport>, query: SimulatedLoadQuery, trace: bool) -> Result<CoreSimulatedLoad> {
    let mut request = Request::get(Endpoint::OptimizerSimulatedLoad, query.query_pairs());
    request.trace = trace;
    let response = transport.send(&request).await?;
    let load = parse_simulated_load(&response.body).map_err(Error::Parse)?;
    let time_steps_per_hour = load.loads_kw.len() / 8760;
    let batch = load_batch(load.loads_kw, query.year).map_err(|e| Error::Parse(e.to_string()))?;
    Ok(CoreSimulatedLoad { batch, annual_kwh: load.annual_kwh, max_kw: load.max_kw, year: query.year, time_steps_per_hour })
}

/// Validates every parameter at once, asks the service for the load and parses it; blocking,
/// or an awaitable with `asynchronous=True`.
#[pyfunction]
#[pyo3(signature = (client, latitude, longitude, doe_reference_names, percent_shares, annual_kwh=None, monthly_totals_kwh=Vec::new(), year=None, time_steps_per_hour=None, asynchronous=false, trace=false))]
#[allow(clippy::too_many_arguments)]
pub fn optimizer_simulated_load<'py>(
    py: Python<'py>,
    client: &CoreClient,
    latitude: &Bound<'_, PyAny>,
    longitude: &Bound<'_, PyAny>,
    doe_reference_names: Vec<Bound<'_, PyAny>>,
    percent_shares: Vec<Bound<'_, PyAny>>,
    annual_kwh: Option<&Bound<'_, PyAny>>,
    monthly_totals_kwh: Vec<Bound<'_, PyAny>>,
    year: Option<&Bound<'_, PyAny>>,
    time_steps_per_hour: Option<&Bound<'_, PyAny>>,
    asynchronous: bool,
    trace: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let raws = |values: &[Bound<'_, PyAny>]| values.iter().map(|v| raw_value(Some(v))).collect::<Vec<_>>();
    let raw = RawSimulatedLoad {
        latitude: raw_value(Some(latitude)),
        longitude: raw_value(Some(longitude)),
        doe_reference_names: raws(&doe_reference_names),
        percent_shares: raws(&percent_shares),
        annual_kwh: raw_value(annual_kwh),
        monthly_totals_kwh: raws(&monthly_totals_kwh),
        year: raw_value(year),
        time_steps_per_hour: raw_value(time_steps_per_hour),
    };
    let query = validate_simulated_load(&raw).map_err(|problems| to_pyerr(Error::Parameter(problems)))?;
    let future = run(client.transport.clone(), query, trace);
    if asynchronous {
        awaitable(py, future)
    } else {
        Bound::new(py, block_on(py, future)?).map(|load| load.into_any())
    }
}

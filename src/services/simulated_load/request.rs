//! The load call: send the validated query and turn the answer into a timed Arrow table.

use arrow_array::RecordBatch;

use super::{load_batch, parse_simulated_load, SimulatedLoad, SimulatedLoadQuery};
use crate::error::{Error, Result};
use crate::calendar::steps_per_hour_of_year;
use crate::services::handle::ServiceHandle;
use crate::transport::{Endpoint, Request};

/// A load profile as Arrow (`timestamp`, `load_kw`) with its summary.
pub struct LoadProfile {
    pub batch: RecordBatch,
    pub annual_kwh: f64,
    pub max_kw: f64,
    pub year: i32,
    pub time_steps_per_hour: usize,
}

/// Asks the service for the load of `query`: its answer, parsed.
pub async fn fetch_load_answer(handle: &ServiceHandle, query: &SimulatedLoadQuery) -> Result<SimulatedLoad> {
    let response = handle.send(Request::get(Endpoint::OptimizerSimulatedLoad, query.query_pairs())).await?;
    parse_simulated_load(&response.body).map_err(Error::Parse)
}

/// Asks the service for the load of `query` and parses it.
pub async fn fetch_simulated_load(handle: ServiceHandle, query: SimulatedLoadQuery) -> Result<LoadProfile> {
    let load = fetch_load_answer(&handle, &query).await?;
    let time_steps_per_hour = steps_per_hour_of_year(load.loads_kw.len()).unwrap_or(1);
    let batch = load_batch(load.loads_kw, query.year).map_err(|e| Error::Parse(e.to_string()))?;
    Ok(LoadProfile { batch, annual_kwh: load.annual_kwh, max_kw: load.max_kw, year: query.year, time_steps_per_hour })
}

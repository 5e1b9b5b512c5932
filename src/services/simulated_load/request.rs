//! The load call: send the validated query and turn the answer into a timed Arrow table.

use arrow_array::RecordBatch;

use super::{load_batch, parse_load_answer, LoadAnswer, LoadType, SimulatedLoadQuery};
use crate::calendar::steps_per_hour_of_year;
use crate::error::{Error, Result};
use crate::services::handle::ServiceHandle;
use crate::transport::{Endpoint, Request};

/// A load profile as Arrow (`timestamp` and the series, `load_<unit>` first) with its summary
/// in the series' unit.
pub struct LoadProfile {
    pub batch: RecordBatch,
    pub load_type: LoadType,
    pub unit: &'static str,
    pub annual: f64,
    pub max: f64,
    pub year: i32,
    pub time_steps_per_hour: usize,
}

/// Asks the service for the load of `query`: its answer, parsed.
pub async fn fetch_load_answer(handle: &ServiceHandle, query: &SimulatedLoadQuery) -> Result<LoadAnswer> {
    let response = handle.send(Request::get(Endpoint::OptimizerSimulatedLoad, query.query_pairs())).await?;
    parse_load_answer(&response.body, query).map_err(Error::Parse)
}

/// Asks the service for the load of `query` and parses it.
pub async fn fetch_simulated_load(handle: ServiceHandle, query: SimulatedLoadQuery) -> Result<LoadProfile> {
    let answer = fetch_load_answer(&handle, &query).await?;
    let time_steps_per_hour = steps_per_hour_of_year(answer.columns.first().map_or(0, |(_, s)| s.len())).unwrap_or(1);
    let (unit, annual, max) = (answer.unit, answer.annual, answer.max);
    let batch = load_batch(answer.columns, query.year).map_err(|e| Error::Parse(e.to_string()))?;
    Ok(LoadProfile { batch, load_type: query.load_type, unit, annual, max, year: query.year, time_steps_per_hour })
}

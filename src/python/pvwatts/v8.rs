//! Bindings of the local PVWatts v8 engine: one simulation (records split over the cores) or
//! many in parallel (one core each), with the GIL released; results in the estimator's shape
//! with v8's further hourly series as extra columns.

use pyo3::prelude::*;

use crate::python::convert::raw_value;
use crate::python::errors::to_pyerr;
use crate::python::pv::PyPvEstimate;
use super::{batch_systems, local_estimate, local_station, run_batch, with_timeframe, PyWeather};
use crate::error::Error;
use crate::pvwatts::v8::{simulate_v8_with_sun_path, V8Error, V8Output, V8Params};
use crate::pvwatts::solarpos::Precision;
use crate::pvwatts::{simulate_many_v8_controlled, Weather};
use crate::services::pv_estimator::{validate_timeframe, PvEstimate, RawSystem, Timeframe};
use crate::services::pv_estimator::v8::{validate_v8_simulation, RawV8Inputs};

/// Parameters of `pvwatts_simulate_v8`, in order: the nine system parameters, then bifaciality,
/// albedo, use_wf_albedo, soiling, en_snowloss.
const V8_PARAMETERS: usize = 14;

fn params_from(args: [Option<&Bound<'_, PyAny>>; V8_PARAMETERS]) -> Result<V8Params, Vec<String>> {
    let [system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio, gcr, inv_eff, bifaciality, albedo, use_wf_albedo, soiling, en_snowloss] =
        args.map(raw_value);
    validate_v8_simulation(
        &RawSystem { system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio, gcr, inv_eff },
        &RawV8Inputs { bifaciality, albedo, use_wf_albedo, soiling, en_snowloss },
    )
}

fn v8_error(error: V8Error) -> PyErr {
    to_pyerr(Error::Parameter(vec![error.to_string()]))
}

fn estimate_of(weather: &Weather, output: V8Output, timeframe: Timeframe) -> PyResult<PyPvEstimate> {
    let mut estimate = PvEstimate::from_simulation(output.estimate, timeframe, Some(local_station(weather)), serde_json::Map::new());
    if let Some(hourly) = estimate.hourly.as_mut() {
        hourly.extra = output.extra.into_columns().into_iter().map(|(name, values)| (name.to_owned(), values)).collect();
    }
    local_estimate(weather, estimate, timeframe)
}

/// Simulates one system on one weather year with PVWatts v8 (GIL released).
#[pyfunction]
#[pyo3(signature = (weather, system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio=None, gcr=None, inv_eff=None, bifaciality=None, albedo=None, use_wf_albedo=None, soiling=None, en_snowloss=None, timeframe=None, threads=0))]
#[allow(clippy::too_many_arguments)]
pub fn pvwatts_simulate_v8(
    py: Python<'_>,
    weather: &PyWeather,
    system_capacity: &Bound<'_, PyAny>,
    module_type: &Bound<'_, PyAny>,
    losses: &Bound<'_, PyAny>,
    array_type: &Bound<'_, PyAny>,
    tilt: &Bound<'_, PyAny>,
    azimuth: &Bound<'_, PyAny>,
    dc_ac_ratio: Option<&Bound<'_, PyAny>>,
    gcr: Option<&Bound<'_, PyAny>>,
    inv_eff: Option<&Bound<'_, PyAny>>,
    bifaciality: Option<&Bound<'_, PyAny>>,
    albedo: Option<&Bound<'_, PyAny>>,
    use_wf_albedo: Option<&Bound<'_, PyAny>>,
    soiling: Option<&Bound<'_, PyAny>>,
    en_snowloss: Option<&Bound<'_, PyAny>>,
    timeframe: Option<&Bound<'_, PyAny>>,
    threads: usize,
) -> PyResult<PyPvEstimate> {
    let params = params_from([
        Some(system_capacity), Some(module_type), Some(losses), Some(array_type), Some(tilt), Some(azimuth), dc_ac_ratio, gcr, inv_eff,
        bifaciality, albedo, use_wf_albedo, soiling, en_snowloss,
    ]);
    let (params, timeframe) = with_timeframe(params, timeframe)?;
    let sun_path = weather.sun_path(Precision::Fast);
    let output = py.detach(|| simulate_v8_with_sun_path(&weather.weather, &sun_path, &params, threads)).map_err(v8_error)?;
    estimate_of(&weather.weather, output, timeframe)
}

/// Simulates every (weather, system) pair with PVWatts v8 on `threads` threads (one job per
/// thread at a time) with the GIL released; results in input order. `systems[i]` holds the 14
/// parameters of `pvwatts_simulate_v8` in its order. Ctrl-C and `progress(done)` as for
/// `pvwatts_simulate_many`.
#[pyfunction]
#[pyo3(signature = (weathers, systems, threads=0, timeframe=None, progress=None))]
pub fn pvwatts_simulate_many_v8(
    py: Python<'_>,
    weathers: Vec<PyRef<'_, PyWeather>>,
    systems: Vec<[Bound<'_, PyAny>; V8_PARAMETERS]>,
    threads: usize,
    timeframe: Option<&Bound<'_, PyAny>>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<PyPvEstimate>> {
    let params = batch_systems(weathers.len(), &systems, params_from)?;
    let timeframe = validate_timeframe(&raw_value(timeframe)).map_err(|p| to_pyerr(Error::Parameter(vec![p])))?;
    let jobs: Vec<(&Weather, V8Params, &PyWeather)> =
        weathers.iter().zip(params).map(|(core, params)| (core.weather.as_ref(), params, &**core)).collect();
    // Sun paths are computed on the workers (and cached with their weathers), not one by one here.
    let sun_path = |core: &&PyWeather| core.sun_path(Precision::Fast);
    let outputs = run_batch(py, progress.as_ref(), |control| simulate_many_v8_controlled(&jobs, sun_path, threads, control))?;
    outputs
        .into_iter()
        .zip(jobs.iter())
        .enumerate()
        .map(|(index, (output, (weather, _, _)))| {
            let failed = |e: String| to_pyerr(Error::Parameter(vec![format!("systems[{index}]: {e}")]));
            let output = output.map_err(|e| failed(e.to_string()))?;
            estimate_of(weather, output, timeframe)
        })
        .collect()
}

//! Bindings of the local PVWatts v8 engine: one simulation (records split over the cores) or
//! many in parallel (one core each), with the GIL released; results in the estimator's shape
//! with v8's further hourly series as extra columns.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use pyo3::prelude::*;

use super::convert::raw_value;
use super::errors::to_pyerr;
use super::pv::CorePvEstimate;
use super::pvwatts::{core_estimate, local_station, wait_for_batch, CoreWeather};
use crate::error::Error;
use crate::pvwatts::v8::{simulate_v8_with_sun_path, V8Error, V8Output, V8Params};
use crate::pvwatts::solarpos::Precision;
use crate::pvwatts::batch::parallel_map;
use crate::pvwatts::{BatchControl, SunPath, Weather};
use crate::services::pv_estimator::{validate_timeframe, PvEstimate, RawSystem, Timeframe};
use crate::services::pv_estimator_v8::{validate_v8_simulation, RawV8Inputs};

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

fn estimate_of(weather: &Weather, output: V8Output, timeframe: Timeframe) -> PyResult<CorePvEstimate> {
    let mut estimate = PvEstimate::from_simulation(output.estimate, timeframe, Some(local_station(weather)), serde_json::Map::new());
    if let Some(hourly) = estimate.hourly.as_mut() {
        hourly.extra = output.extra.into_columns().into_iter().map(|(name, values)| (name.to_owned(), values)).collect();
    }
    core_estimate(weather, estimate, timeframe)
}

/// Simulates one system on one weather year with PVWatts v8 (GIL released).
#[pyfunction]
#[pyo3(signature = (weather, system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio=None, gcr=None, inv_eff=None, bifaciality=None, albedo=None, use_wf_albedo=None, soiling=None, en_snowloss=None, timeframe=None, threads=0))]
#[allow(clippy::too_many_arguments)]
pub fn pvwatts_simulate_v8(
    py: Python<'_>,
    weather: &CoreWeather,
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
) -> PyResult<CorePvEstimate> {
    let params = params_from([
        Some(system_capacity), Some(module_type), Some(losses), Some(array_type), Some(tilt), Some(azimuth), dc_ac_ratio, gcr, inv_eff,
        bifaciality, albedo, use_wf_albedo, soiling, en_snowloss,
    ]);
    let timeframe = validate_timeframe(&raw_value(timeframe));
    let (params, timeframe) = match (params, timeframe) {
        (Ok(params), Ok(timeframe)) => (params, timeframe),
        (params, timeframe) => {
            let mut problems = params.err().unwrap_or_default();
            problems.extend(timeframe.err());
            return Err(to_pyerr(Error::Parameter(problems)));
        }
    };
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
    weathers: Vec<PyRef<'_, CoreWeather>>,
    systems: Vec<[Bound<'_, PyAny>; V8_PARAMETERS]>,
    threads: usize,
    timeframe: Option<&Bound<'_, PyAny>>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<CorePvEstimate>> {
    if weathers.len() != systems.len() {
        return Err(to_pyerr(Error::Parameter(vec![format!(
            "weathers and systems must have the same length (got {} and {})",
            weathers.len(),
            systems.len()
        )])));
    }
    let timeframe = validate_timeframe(&raw_value(timeframe)).map_err(|p| to_pyerr(Error::Parameter(vec![p])))?;
    let mut problems = Vec::new();
    let mut params = Vec::with_capacity(systems.len());
    for (index, system) in systems.iter().enumerate() {
        match params_from(system.each_ref().map(Some)) {
            Ok(p) => params.push(p),
            Err(listed) => problems.extend(listed.into_iter().map(|p| format!("systems[{index}]: {p}"))),
        }
    }
    if !problems.is_empty() {
        return Err(to_pyerr(Error::Parameter(problems)));
    }
    let jobs: Vec<(Arc<Weather>, Arc<SunPath>, V8Params)> =
        weathers.iter().zip(params).map(|(w, p)| (w.weather.clone(), w.sun_path(Precision::Fast), p)).collect();
    let threads = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
    let control = BatchControl::default();
    let outputs = std::thread::scope(|scope| {
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        let (jobs, control) = (&jobs, &control);
        scope.spawn(move || {
            let outputs = parallel_map(jobs.len(), threads, &control.cancelled, |i| {
                let output = jobs.get(i).map(|(weather, sun_path, params)| simulate_v8_with_sun_path(weather, sun_path, params, 1));
                control.done.fetch_add(1, Ordering::Relaxed);
                output
            });
            let _ = sender.send(outputs.filter(|_| !control.cancelled.load(Ordering::Relaxed)));
        });
        wait_for_batch(py, receiver, control, progress.as_ref())
    })?;
    if let Some(report) = &progress {
        report.call1((control.done.load(Ordering::Relaxed),))?;
    }
    outputs
        .into_iter()
        .zip(jobs.iter())
        .enumerate()
        .map(|(index, (output, (weather, _, _)))| {
            let failed = |e: String| to_pyerr(Error::Parameter(vec![format!("systems[{index}]: {e}")]));
            let output = output.ok_or_else(|| failed("not simulated".into()))?.map_err(|e| failed(e.to_string()))?;
            estimate_of(weather, output, timeframe)
        })
        .collect()
}

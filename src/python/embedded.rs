//! `sunflux._core.LocalService`: start, inspect and stop the embedded service from Python.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

use super::convert::{raw_value, Arguments};
use super::errors::to_pyerr;
use super::pvwatts::PyWeather;
use crate::error::Error;
use crate::embedded::state::ServiceState;
use crate::embedded::climate::jobs::{JobLimits, RateLimit as ClimateRate};
use crate::embedded::optimizer::JobStoreConfig as OptimizerJobConfig;
use crate::embedded::state::lock;
use crate::embedded::technical_potential::jobs::{FailureMode, JobTiming};
use crate::embedded::{FaultConfig, FaultKind, LocalService, ServiceConfig};
use crate::runtime::runtime;
use crate::spec::routes::is_identifier;

#[pyclass(module = "sunflux._core", frozen, name = "LocalService")]
pub struct PyLocalService {
    service: Mutex<Option<LocalService>>,
    state: Arc<ServiceState>,
    base_url: String,
    api_key: String,
    port: u16,
}

fn faults_config(args: &mut Arguments, rate: &Bound<'_, PyAny>, seed: &Bound<'_, PyAny>, kinds: &Bound<'_, PyAny>, delay: &Bound<'_, PyAny>, retry_after: &Bound<'_, PyAny>) -> Option<FaultConfig> {
    let rate = match raw_value(Some(rate)).as_finite_f64() {
        Some(rate) => Some(rate),
        None => {
            args.problems.push(format!("faults rate must be a number between 0 and 1 (got {})", raw_value(Some(rate)).describe()));
            None
        }
    };
    let seed = args.whole::<u64>("faults seed", seed, 0, i64::MAX);
    let delay = args.seconds("faults delay", delay, false);
    let retry_after = args.seconds("faults retry_after", retry_after, false);
    let mut parsed = Vec::new();
    for name in args.texts("faults kinds", kinds).unwrap_or_default() {
        match FaultKind::parse(&name) {
            Some(kind) => parsed.push(kind),
            None => args.problems.push(format!(
                "unknown fault kind {name:?} (use {})",
                FaultKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
            )),
        }
    }
    if parsed.is_empty() {
        parsed = FaultKind::ALL.to_vec();
    }
    let config = FaultConfig { rate: rate?, seed: seed?, kinds: parsed, delay: delay?, retry_after: retry_after? };
    match config.validate() {
        Ok(()) => Some(config),
        Err(problem) => {
            args.problems.push(problem);
            None
        }
    }
}

#[pymethods]
impl PyLocalService {
    /// Every argument is checked and every problem reported at once (`ParameterError`); the
    /// Python face hands in `problems` it found in the settings objects themselves.
    #[new]
    #[pyo3(signature = (port, api_key, extra_keys, requests_per_window, window_seconds, fault_rate, fault_seed, fault_kinds, fault_delay, fault_retry_after, explorers, technical_potential_start_delay, technical_potential_run_time, technical_potential_failure_status, technical_potential_failure_message, technical_potential_failure_region, climate_csv_interval, climate_json_interval, climate_csv_per_day, climate_json_per_day, climate_in_flight, climate_queue, climate_build_delay, climate_anywhere, optimizer_grace, optimizer_hang, urdb_any_label, problems=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        port: &Bound<'_, PyAny>,
        api_key: &Bound<'_, PyAny>,
        extra_keys: &Bound<'_, PyAny>,
        requests_per_window: &Bound<'_, PyAny>,
        window_seconds: &Bound<'_, PyAny>,
        fault_rate: &Bound<'_, PyAny>,
        fault_seed: &Bound<'_, PyAny>,
        fault_kinds: &Bound<'_, PyAny>,
        fault_delay: &Bound<'_, PyAny>,
        fault_retry_after: &Bound<'_, PyAny>,
        explorers: &Bound<'_, PyAny>,
        technical_potential_start_delay: &Bound<'_, PyAny>,
        technical_potential_run_time: &Bound<'_, PyAny>,
        technical_potential_failure_status: &Bound<'_, PyAny>,
        technical_potential_failure_message: &Bound<'_, PyAny>,
        technical_potential_failure_region: &Bound<'_, PyAny>,
        climate_csv_interval: &Bound<'_, PyAny>,
        climate_json_interval: &Bound<'_, PyAny>,
        climate_csv_per_day: &Bound<'_, PyAny>,
        climate_json_per_day: &Bound<'_, PyAny>,
        climate_in_flight: &Bound<'_, PyAny>,
        climate_queue: &Bound<'_, PyAny>,
        climate_build_delay: &Bound<'_, PyAny>,
        climate_anywhere: &Bound<'_, PyAny>,
        optimizer_grace: &Bound<'_, PyAny>,
        optimizer_hang: &Bound<'_, PyAny>,
        urdb_any_label: &Bound<'_, PyAny>,
        problems: Vec<String>,
    ) -> PyResult<Self> {
        let mut args = Arguments { problems };
        let port = args.whole::<u16>("port", port, 0, i64::from(u16::MAX));
        let api_key = args.optional_text("api_key", Some(api_key));
        let extra_keys = args.texts("extra_keys", extra_keys);
        let requests_per_window = if requests_per_window.is_none() {
            Some(None)
        } else {
            args.whole::<u32>("rate_limits requests", requests_per_window, 1, i64::from(u32::MAX)).map(Some)
        };
        let window = args.seconds("rate_limits window", window_seconds, true);
        let faults = if fault_rate.is_none() {
            Some(None)
        } else {
            faults_config(&mut args, fault_rate, fault_seed, fault_kinds, fault_delay, fault_retry_after).map(Some)
        };
        let explorers = args.texts("explorers", explorers);
        for explorer in explorers.iter().flatten() {
            if !is_identifier(explorer) {
                args.problems.push(format!("explorer names must be letters, digits, '-' or '_' (got {explorer:?})"));
            }
        }
        let start_delay = args.seconds("jobs start_delay", technical_potential_start_delay, false);
        let run_time = args.seconds("jobs run_time", technical_potential_run_time, false);
        let failure_status = args.optional_text("jobs failure_status", Some(technical_potential_failure_status));
        let failure_message = args.text("jobs failure_message", technical_potential_failure_message);
        let failure_region = args.optional_text("jobs failure_region", Some(technical_potential_failure_region));
        let csv_interval = args.seconds("climate csv_interval", climate_csv_interval, false);
        let json_interval = args.seconds("climate json_interval", climate_json_interval, false);
        let csv_per_day = args.whole::<u32>("climate csv_per_day", climate_csv_per_day, 0, i64::from(u32::MAX));
        let json_per_day = args.whole::<u32>("climate json_per_day", climate_json_per_day, 0, i64::from(u32::MAX));
        let in_flight = args.whole::<usize>("climate in_flight", climate_in_flight, 1, 1_000_000);
        let queue = args.whole::<usize>("climate queue", climate_queue, 1, 1_000_000);
        let build_delay = args.seconds("climate build_delay", climate_build_delay, false);
        let anywhere = args.flag("climate anywhere", climate_anywhere);
        let grace = args.seconds("optimizer not_found_grace", optimizer_grace, false);
        let hang = args.flag("optimizer hang", optimizer_hang);
        let any_label = args.flag("rates any_label", urdb_any_label);
        args.finish().map_err(to_pyerr)?;
        let (
            Some(port), Some(api_key), Some(extra_keys), Some(requests_per_window), Some(window), Some(faults), Some(explorers),
            Some(start_delay), Some(run_time), Some(failure_status), Some(failure_message), Some(failure_region),
            Some(csv_interval), Some(json_interval), Some(csv_per_day), Some(json_per_day), Some(in_flight), Some(queue),
            Some(build_delay), Some(anywhere), Some(grace), Some(hang), Some(any_label),
        ) = (
            port, api_key, extra_keys, requests_per_window, window, faults, explorers, start_delay, run_time, failure_status,
            failure_message, failure_region, csv_interval, json_interval, csv_per_day, json_per_day, in_flight, queue,
            build_delay, anywhere, grace, hang, any_label,
        )
        else {
            return Err(to_pyerr(Error::Parameter(vec!["invalid service configuration".into()])));
        };
        let technical_potential_failure = failure_status.map(|status| {
            let failure = FailureMode::new(status, failure_message);
            match failure_region {
                Some(region) => failure.for_region(region),
                None => failure,
            }
        });
        let config = ServiceConfig {
            port,
            api_key,
            extra_keys,
            requests_per_window,
            window,
            faults,
            explorers,
            technical_potential_timing: JobTiming { start_delay, run_time },
            technical_potential_failure,
            climate_limits: JobLimits {
                csv: ClimateRate { min_interval: csv_interval, per_day: csv_per_day },
                json: ClimateRate { min_interval: json_interval, per_day: json_per_day },
                max_in_flight_per_user: in_flight,
                queue_capacity: queue,
                ..JobLimits::default()
            },
            climate_build_delay: build_delay,
            climate_anywhere: anywhere,
            optimizer: OptimizerJobConfig { grace, hang, ..OptimizerJobConfig::default() },
            urdb_any_label: any_label,
            ..ServiceConfig::default()
        };
        let runtime = runtime().map_err(to_pyerr)?;
        let service = py.detach(|| LocalService::start(runtime, &config)).map_err(to_pyerr)?;
        Ok(PyLocalService {
            base_url: service.base_url.clone(),
            api_key: service.api_key().to_owned(),
            port: service.port,
            state: service.state.clone(),
            service: Mutex::new(Some(service)),
        })
    }

    #[getter]
    fn base_url(&self) -> &str {
        &self.base_url
    }

    #[getter]
    fn api_key(&self) -> &str {
        &self.api_key
    }

    #[getter]
    fn port(&self) -> u16 {
        self.port
    }

    #[getter]
    fn running(&self) -> bool {
        self.service.lock().map(|s| s.as_ref().is_some_and(LocalService::is_running)).unwrap_or(false)
    }

    /// Requests that reached the service so far, by path (also after `close`).
    fn hits(&self) -> BTreeMap<String, u64> {
        self.state.hits()
    }

    /// The e-mails the climate download would have sent: (to, subject, body).
    fn outbox(&self) -> Vec<(String, String, String)> {
        lock(&self.state.climate_jobs).outbox().iter().map(|m| (m.to.clone(), m.subject.clone(), m.body.clone())).collect()
    }

    /// The weather year the embedded estimator uses for a station id (v1 or v2).
    fn station_weather(&self, py: Python<'_>, file_id: &str) -> PyResult<PyWeather> {
        let (_, station) = self
            .state
            .catalog
            .lookup_id(file_id)
            .ok_or_else(|| to_pyerr(Error::Parameter(vec![format!("file_id {file_id:?} is not a station of the embedded catalog")])))?;
        let station = station.into_owned();
        let weather = py.detach(|| self.state.station_weather.for_station(&station)).map_err(|e| to_pyerr(Error::Parameter(vec![e])))?;
        Ok(PyWeather::new(weather))
    }

    /// Stops the service; calling it again does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let taken = self.service.lock().ok().and_then(|mut s| s.take());
        if let Some(mut service) = taken {
            let runtime = runtime().map_err(to_pyerr)?;
            py.detach(|| service.close(runtime));
        }
        Ok(())
    }
}

impl Drop for PyLocalService {
    fn drop(&mut self) {
        if let Ok(mut guard) = self.service.lock() {
            if let (Some(mut service), Ok(runtime)) = (guard.take(), runtime()) {
                service.close(runtime);
            }
        }
    }
}

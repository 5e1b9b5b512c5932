//! `sunflux._core.CoreLocalService`: start, inspect and stop the embedded service from Python.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;

use super::errors::to_pyerr;
use super::pvwatts::CoreWeather;
use crate::error::Error;
use crate::local::server::ServiceState;
use crate::local::climate_jobs::{JobLimits, RateLimit as ClimateRate};
use crate::local::optimizer::JobStoreConfig as OptimizerJobConfig;
use crate::local::optimizer_routes::{CheckedScenario, ScenarioChecker};
use crate::local::server::lock;
use crate::local::tp_jobs::{FailureMode, JobTiming};
use crate::local::{FaultConfig, FaultKind, LocalService, ServiceConfig};
use crate::runtime::runtime;

/// The scenario builder (Python) as the embedded optimizer's validator.
struct PythonScenarioChecker;

impl ScenarioChecker for PythonScenarioChecker {
    fn check(&self, scenario: &serde_json::Value) -> Result<CheckedScenario, String> {
        let (errors, resolved): (String, String) = Python::attach(|py| {
            py.import("sunflux.optimizer._service")?.call_method1("check_for_service", (scenario.to_string(),))?.extract()
        })
        .map_err(|e: PyErr| format!("the scenario could not be validated: {e}"))?;
        let parse = |text: &str| serde_json::from_str(text).map_err(|e| format!("the validator answered badly: {e}"));
        Ok(CheckedScenario { input_errors: parse(&errors)?, resolved: parse(&resolved)? })
    }
}

#[pyclass(module = "sunflux._core", frozen, name = "CoreLocalService")]
pub struct CoreLocalService {
    service: Mutex<Option<LocalService>>,
    state: Arc<ServiceState>,
    base_url: String,
    api_key: String,
    port: u16,
}

fn faults_config(rate: f64, seed: u64, kinds: Vec<String>, delay: f64, retry_after: f64) -> Result<FaultConfig, Error> {
    let mut problems = Vec::new();
    let mut parsed = Vec::new();
    for name in kinds {
        match FaultKind::parse(&name) {
            Some(kind) => parsed.push(kind),
            None => problems.push(format!(
                "unknown fault kind {name:?} (use {})",
                FaultKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
            )),
        }
    }
    for (name, value) in [("delay", delay), ("retry_after", retry_after)] {
        if !(value.is_finite() && value >= 0.0) {
            problems.push(format!("faults {name} must be a number of seconds >= 0 (got {value})"));
        }
    }
    if !problems.is_empty() {
        return Err(Error::Parameter(problems));
    }
    let config = FaultConfig {
        rate,
        seed,
        kinds: parsed,
        delay: Duration::from_secs_f64(delay),
        retry_after: Duration::from_secs_f64(retry_after),
    };
    config.validate().map_err(|problem| Error::Parameter(vec![problem]))?;
    Ok(config)
}

#[pymethods]
impl CoreLocalService {
    #[new]
    #[pyo3(signature = (port=0, api_key=None, extra_keys=Vec::new(), requests_per_window=1000, window_seconds=3600.0, fault_rate=None, fault_seed=0, fault_kinds=Vec::new(), fault_delay=0.05, fault_retry_after=0.1, explorers=Vec::new(), tp_start_delay=0.5, tp_run_time=2.0, tp_failure_status=None, tp_failure_message=String::new(), tp_failure_region=None, climate_csv_interval=1.0, climate_json_interval=2.0, climate_csv_per_day=10_000, climate_json_per_day=2_000, climate_in_flight=20, climate_queue=100, climate_build_delay=0.0, optimizer_grace=0.0, optimizer_hang=false, urdb_any_label=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        port: u16,
        api_key: Option<String>,
        extra_keys: Vec<String>,
        requests_per_window: u32,
        window_seconds: f64,
        fault_rate: Option<f64>,
        fault_seed: u64,
        fault_kinds: Vec<String>,
        fault_delay: f64,
        fault_retry_after: f64,
        explorers: Vec<String>,
        tp_start_delay: f64,
        tp_run_time: f64,
        tp_failure_status: Option<String>,
        tp_failure_message: String,
        tp_failure_region: Option<String>,
        climate_csv_interval: f64,
        climate_json_interval: f64,
        climate_csv_per_day: u32,
        climate_json_per_day: u32,
        climate_in_flight: usize,
        climate_queue: usize,
        climate_build_delay: f64,
        optimizer_grace: f64,
        optimizer_hang: bool,
        urdb_any_label: bool,
    ) -> PyResult<Self> {
        let mut problems = Vec::new();
        for (name, value) in [("csv_interval", climate_csv_interval), ("json_interval", climate_json_interval), ("build_delay", climate_build_delay)] {
            if !(value.is_finite() && value >= 0.0) {
                problems.push(format!("climate {name} must be a number of seconds >= 0 (got {value})"));
            }
        }
        if !(optimizer_grace.is_finite() && optimizer_grace >= 0.0) {
            problems.push(format!("optimizer not_found_grace must be a number of seconds >= 0 (got {optimizer_grace})"));
        }
        if climate_in_flight == 0 || climate_queue == 0 {
            problems.push("climate in_flight and queue must be at least 1".into());
        }
        for (name, value) in [("start_delay", tp_start_delay), ("run_time", tp_run_time)] {
            if !(value.is_finite() && value >= 0.0) {
                problems.push(format!("technical potential {name} must be a number of seconds >= 0 (got {value})"));
            }
        }
        for explorer in &explorers {
            if explorer.is_empty() || !explorer.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                problems.push(format!("explorer names must be letters, digits, '-' or '_' (got {explorer:?})"));
            }
        }
        if !problems.is_empty() {
            return Err(to_pyerr(Error::Parameter(problems)));
        }
        let tp_timing = JobTiming { start_delay: Duration::from_secs_f64(tp_start_delay), run_time: Duration::from_secs_f64(tp_run_time) };
        let tp_failure = tp_failure_status.map(|status| {
            let failure = FailureMode::new(status, tp_failure_message);
            match tp_failure_region {
                Some(region) => failure.for_region(region),
                None => failure,
            }
        });
        if !(window_seconds.is_finite() && window_seconds > 0.0) {
            return Err(to_pyerr(Error::Parameter(vec![format!("rate limit window must be a positive number of seconds (got {window_seconds})")])));
        }
        let faults = match fault_rate {
            Some(rate) => {
                let kinds = if fault_kinds.is_empty() { FaultKind::ALL.iter().map(|k| k.name().to_owned()).collect() } else { fault_kinds };
                Some(faults_config(rate, fault_seed, kinds, fault_delay, fault_retry_after).map_err(to_pyerr)?)
            }
            None => None,
        };
        let config = ServiceConfig {
            port,
            api_key,
            extra_keys,
            requests_per_window,
            window: Duration::from_secs_f64(window_seconds),
            faults,
            explorers,
            tp_timing,
            tp_failure,
            climate_limits: JobLimits {
                csv: ClimateRate { min_interval: Duration::from_secs_f64(climate_csv_interval), per_day: climate_csv_per_day },
                json: ClimateRate { min_interval: Duration::from_secs_f64(climate_json_interval), per_day: climate_json_per_day },
                max_in_flight_per_user: climate_in_flight,
                queue_capacity: climate_queue,
                ..JobLimits::default()
            },
            climate_build_delay: Duration::from_secs_f64(climate_build_delay),
            optimizer: OptimizerJobConfig { grace: Duration::from_secs_f64(optimizer_grace), hang: optimizer_hang, ..OptimizerJobConfig::default() },
            scenario_checker: Some(Arc::new(PythonScenarioChecker)),
            urdb_any_label,
        };
        let runtime = runtime().map_err(to_pyerr)?;
        let service = py.detach(|| LocalService::start(runtime, &config)).map_err(to_pyerr)?;
        Ok(CoreLocalService {
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
    fn station_weather(&self, py: Python<'_>, file_id: &str) -> PyResult<CoreWeather> {
        let (_, station) = self
            .state
            .catalog
            .lookup_id(file_id)
            .ok_or_else(|| to_pyerr(Error::Parameter(vec![format!("file_id {file_id:?} is not a station of the embedded catalog")])))?;
        let station = station.into_owned();
        let weather = py.detach(|| self.state.station_weather.for_station(&station)).map_err(|e| to_pyerr(Error::Parameter(vec![e])))?;
        Ok(CoreWeather::new(weather))
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

impl Drop for CoreLocalService {
    fn drop(&mut self) {
        if let Ok(mut guard) = self.service.lock() {
            if let (Some(mut service), Ok(runtime)) = (guard.take(), runtime()) {
                service.close(runtime);
            }
        }
    }
}

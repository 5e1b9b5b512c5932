//! Bindings of the technical potential service: configuration, job submission validated against
//! it, polling, results with class tables, deletion.

use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use super::client::PyTransport;
use super::pending::PyPendingCall;
use super::convert::{arrow_table, json_to_py, Arguments};
use super::errors::to_pyerr;
use super::poll::poll_schedule;
use crate::error::Error;
use crate::services::technical_potential::request::{
    checked_explorer, checked_job_id, config_args, fetch_config, job_body, job_call, post_job, wait_for_job,
};
use crate::services::technical_potential::{InputField, RegionConfig, ResourceConfig};
use crate::services::technical_potential::{classes_to_record_batch, configuration_to_record_batch, parse_configuration, parse_job_result, Configuration, JobResult};

/// A parsed configuration; the Python `Configuration` wraps it.
#[pyclass(module = "sunflux._core", frozen, name = "TechnicalPotentialConfiguration")]
pub struct PyTechnicalPotentialConfiguration {
    config: Configuration,
}

#[pymethods]
impl PyTechnicalPotentialConfiguration {
    /// Every region with its resources and their input fields, as plain values (`region_values`).
    fn regions<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.config.regions.iter().map(|region| region_values(py, region)).collect()
    }

    #[getter]
    fn version(&self) -> Option<String> {
        self.config.version.clone()
    }

    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &serde_json::Value::Object(self.config.inputs.clone()))
    }

    /// One row per region × resource × input field.
    fn to_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let batch = configuration_to_record_batch(&self.config).map_err(|e| to_pyerr(Error::Parse(e.to_string())))?;
        let schema = batch.schema();
        arrow_table(py, vec![batch], schema)
    }
}

/// One region's configuration as plain values: `(id, region_id, label, resources)`, each
/// resource `(id, key, label, default_power_density, input_fields)`, each input field
/// `(field_id, field_name, data_type, field_values, default_value)`; `sunflux.technical_potential`
/// makes its public records of them.
fn region_values<'py>(py: Python<'py>, region: &RegionConfig) -> PyResult<Bound<'py, PyAny>> {
    let resources = region.resources.iter().map(|resource| resource_values(py, resource)).collect::<PyResult<Vec<_>>>()?;
    (region.id, region.region_id, region.label.as_str(), resources).into_bound_py_any(py)
}

fn resource_values<'py>(py: Python<'py>, resource: &ResourceConfig) -> PyResult<Bound<'py, PyAny>> {
    let fields = resource.input_fields.iter().map(|field| input_field_values(py, field)).collect::<PyResult<Vec<_>>>()?;
    (resource.id, resource.key.as_str(), resource.label.as_str(), resource.default_power_density, fields).into_bound_py_any(py)
}

fn input_field_values<'py>(py: Python<'py>, field: &InputField) -> PyResult<Bound<'py, PyAny>> {
    let optional = |value: &Option<serde_json::Value>| value.as_ref().map_or_else(|| Ok(py.None().into_bound(py)), |value| json_to_py(py, value));
    (field.field_id, field.field_name.as_str(), field.data_type.as_str(), optional(&field.field_values)?, optional(&field.default_value)?).into_bound_py_any(py)
}

/// A job's state (and results once finished); the Python job objects wrap it.
#[pyclass(module = "sunflux._core", frozen, name = "TechnicalPotentialJobResult")]
pub struct PyTechnicalPotentialJobResult {
    result: JobResult,
}

#[pymethods]
impl PyTechnicalPotentialJobResult {
    /// `queued`, `started`, `finished`, or the failure status the service used.
    #[getter]
    fn status(&self) -> String {
        self.result.status.as_str().to_owned()
    }

    #[getter]
    fn runtime_seconds(&self) -> Option<f64> {
        self.result.runtime_seconds
    }

    #[getter]
    fn map_data_deleted(&self) -> Option<bool> {
        self.result.map_data_deleted
    }

    #[getter]
    fn disposition(&self) -> Option<String> {
        self.result.disposition.clone()
    }

    #[getter]
    fn errors(&self) -> Vec<String> {
        self.result.errors.clone()
    }

    /// `outputs` as the service wrote them (status, runtime, results …).
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.result.outputs_value())
    }

    /// Sub-region names of `regional_stats`, in order.
    fn regions(&self) -> Vec<String> {
        self.result.results.as_ref().map(|r| r.regional_stats.keys().cloned().collect()).unwrap_or_default()
    }

    /// The classes of the cumulative stats (`region=None`) or of one sub-region, as Arrow; no
    /// rows when the answer has no such stats (no results, or no such sub-region), as the totals
    /// then read 0.
    #[pyo3(signature = (region=None))]
    fn classes<'py>(&self, py: Python<'py>, region: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
        let stats = self.result.results.as_ref().and_then(|results| match region {
            None => Some(&results.cumulative_stats),
            Some(name) => results.regional_stats.get(name),
        });
        let classes = stats.map_or(&[][..], |stats| &stats.classes[..]);
        let batch = classes_to_record_batch(classes).map_err(|e| to_pyerr(Error::Parse(e.to_string())))?;
        let schema = batch.schema();
        arrow_table(py, vec![batch], schema)
    }
}

/// A Python argument checked by `check`, its problem added to `args`.
fn checked(args: &mut Arguments, name: &str, value: &Bound<'_, PyAny>, check: fn(&str) -> std::result::Result<String, String>) -> Option<String> {
    let text = args.text(name, value)?;
    check(&text).map_err(|problem| args.problems.push(problem)).ok()
}

/// Fetches the configuration (regions, resources, input fields).
///
/// Returns a `PyPendingCall` of `PyTechnicalPotentialConfiguration`.
#[pyfunction]
#[pyo3(signature = (client, explorer, countries=None, wkt=None, trace=false))]
pub fn technical_potential_config(
    client: &PyTransport,
    explorer: &Bound<'_, PyAny>,
    countries: Option<&Bound<'_, PyAny>>,
    wkt: Option<&Bound<'_, PyAny>>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let mut args = Arguments::new();
    let explorer = args.text("explorer", explorer);
    let countries = args.optional_text("countries", countries);
    let wkt = args.optional_text("wkt", wkt);
    args.finish().map_err(|e| client.error(e))?;
    let (Some(explorer), Some(countries), Some(wkt)) = (explorer, countries, wkt) else {
        return Err(client.error(Error::Parameter(vec!["invalid arguments".into()])));
    };
    let (explorer, query) = config_args(&explorer, countries.as_deref(), wkt.as_deref()).map_err(|e| client.error(e))?;
    let config = fetch_config(client.handle(trace), explorer, query);
    Ok(client.pending(async move { config.await.map(|config| PyTechnicalPotentialConfiguration { config }) }))
}

/// Submits a job validated against `config` (every problem at once); returns `(job_id, status)`.
///
/// Returns a `PyPendingCall` of `(String, String)`.
#[pyfunction]
#[pyo3(signature = (client, explorer, config, region, resource, fields_json, trace=false))]
pub fn technical_potential_submit(
    client: &PyTransport,
    explorer: &Bound<'_, PyAny>,
    config: PyRef<'_, PyTechnicalPotentialConfiguration>,
    region: &Bound<'_, PyAny>,
    resource: &Bound<'_, PyAny>,
    fields_json: &Bound<'_, PyAny>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let mut args = Arguments::new();
    let explorer = checked(&mut args, "explorer", explorer, checked_explorer);
    let region = args.text("region", region);
    let resource = args.text("resource", resource);
    let fields_json = args.text("fields", fields_json);
    args.finish().map_err(|e| client.error(e))?;
    let (Some(explorer), Some(region), Some(resource), Some(fields_json)) = (explorer, region, resource, fields_json) else {
        return Err(client.error(Error::Parameter(vec!["invalid arguments".into()])));
    };
    let fields: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&fields_json)
        .map_err(|e| client.error(Error::Parameter(vec![format!("fields must be JSON values: {e}")])))?;
    let body = job_body(&config.config, &region, &resource, &fields).map_err(|e| client.error(e))?;
    Ok(client.pending(post_job(client.handle(trace), explorer, body)))
}

/// The explorer and job id, or every problem with the two.
fn job_args(client: &PyTransport, explorer: &Bound<'_, PyAny>, job_id: &Bound<'_, PyAny>) -> PyResult<(String, String)> {
    let mut args = Arguments::new();
    let job = job_identity(&mut args, explorer, job_id);
    args.finish().map_err(|e| client.error(e))?;
    job.ok_or_else(|| client.error(Error::Parameter(vec!["invalid arguments".into()])))
}

/// A job's `explorer` and `job_id`, problems added to `args` so that they are reported with the
/// caller's others; `None` if either is invalid.
fn job_identity(args: &mut Arguments, explorer: &Bound<'_, PyAny>, job_id: &Bound<'_, PyAny>) -> Option<(String, String)> {
    let explorer = checked(args, "explorer", explorer, checked_explorer);
    let job_id = checked(args, "job_id", job_id, checked_job_id);
    Some((explorer?, job_id?))
}

/// Polls (`delete=False`) or deletes a job; a job in a failure status raises `JobFailed`.
///
/// Returns a `PyPendingCall` of `PyTechnicalPotentialJobResult`.
#[pyfunction]
#[pyo3(signature = (client, explorer, job_id, delete=false, trace=false))]
pub fn technical_potential_job(
    client: &PyTransport,
    explorer: &Bound<'_, PyAny>,
    job_id: &Bound<'_, PyAny>,
    delete: bool,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let (explorer, job_id) = job_args(client, explorer, job_id)?;
    let call = job_call(client.handle(trace), explorer, job_id, delete);
    Ok(client.pending(async move { call.await.map(|result| PyTechnicalPotentialJobResult { result }) }))
}

/// Polls a job until it finishes, on the one polling schedule: the first pause `poll_interval` s,
/// growing by half up to `max_interval` s; `JobTimeout` after `timeout` s, `JobFailed` on a
/// failure status. Every argument is checked at once.
///
/// Returns a `PyPendingCall` of `PyTechnicalPotentialJobResult`.
#[pyfunction]
#[pyo3(signature = (client, explorer, job_id, timeout, poll_interval, max_interval, trace=false))]
pub fn technical_potential_wait(
    client: &PyTransport,
    explorer: &Bound<'_, PyAny>,
    job_id: &Bound<'_, PyAny>,
    timeout: &Bound<'_, PyAny>,
    poll_interval: &Bound<'_, PyAny>,
    max_interval: &Bound<'_, PyAny>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let mut args = Arguments::new();
    let job = job_identity(&mut args, explorer, job_id);
    let schedule = poll_schedule(&mut args, poll_interval, max_interval, timeout);
    args.finish().map_err(|e| client.error(e))?;
    let (Some((explorer, job_id)), Some(schedule)) = (job, schedule) else {
        return Err(client.error(Error::Parameter(vec!["invalid arguments".into()])));
    };
    let wait = wait_for_job(client.handle(trace), explorer, job_id, schedule);
    Ok(client.pending(async move { wait.await.map(|result| PyTechnicalPotentialJobResult { result }) }))
}

/// Parses a configuration body from elsewhere.
#[pyfunction]
pub fn parse_technical_potential_configuration(body: &[u8]) -> PyResult<PyTechnicalPotentialConfiguration> {
    parse_configuration(body).map(|config| PyTechnicalPotentialConfiguration { config }).map_err(|e| to_pyerr(Error::Parse(e.to_string())))
}

/// Parses a job body from elsewhere (no failure check).
#[pyfunction]
pub fn parse_technical_potential_job(body: &[u8]) -> PyResult<PyTechnicalPotentialJobResult> {
    parse_job_result(body).map(|result| PyTechnicalPotentialJobResult { result }).map_err(|e| to_pyerr(Error::Parse(e.to_string())))
}

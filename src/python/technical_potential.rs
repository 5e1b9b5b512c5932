//! Bindings of the technical potential service: configuration, job submission validated against
//! it, polling, results with class tables, deletion.

use std::sync::Arc;

use pyo3::prelude::*;

use super::client::CoreClient;
use super::convert::{arrow_table, json_to_py, Arguments};
use super::errors::to_pyerr;
use crate::error::{Error, Result};
use crate::services::missing::parse_failure;
use crate::services::technical_potential::{
    classes_to_record_batch, configuration_to_record_batch, parse_configuration, parse_job_result, parse_job_submission, validate_config_query,
    validate_job, ConfigQuery, Configuration, JobResult, JobStatus,
};
use crate::transport::{Body, Endpoint, Request, Transport};

/// The `<explorer>` path segment: letters, digits, `-` and `_` only.
fn checked_explorer(explorer: &str) -> Result<String> {
    if !explorer.is_empty() && explorer.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        Ok(explorer.to_owned())
    } else {
        Err(Error::Parameter(vec![format!("explorer must be a name of letters, digits, '-' or '_', such as \"rede\" (got {explorer:?})")]))
    }
}

/// A parsed configuration; the Python `Configuration` wraps it.
#[pyclass(module = "sunflux._core", frozen, name = "CoreTpConfiguration")]
pub struct CoreTpConfiguration {
    config: Configuration,
}

#[pymethods]
impl CoreTpConfiguration {
    /// Every region with its resources and their input fields, as plain values.
    fn regions<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.config.regions.iter().map(|region| json_to_py(py, &region.to_value())).collect()
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

/// A job's state (and results once finished); the Python job objects wrap it.
#[pyclass(module = "sunflux._core", frozen, name = "CoreTpJobResult")]
pub struct CoreTpJobResult {
    result: JobResult,
}

#[pymethods]
impl CoreTpJobResult {
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

    /// The classes of the cumulative stats (`region=None`) or of one sub-region, as Arrow.
    #[pyo3(signature = (region=None))]
    fn classes<'py>(&self, py: Python<'py>, region: Option<&str>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(results) = &self.result.results else { return Ok(None) };
        let stats = match region {
            None => Some(&results.cumulative_stats),
            Some(name) => results.regional_stats.get(name),
        };
        let Some(stats) = stats else { return Ok(None) };
        let batch = classes_to_record_batch(&stats.classes).map_err(|e| to_pyerr(Error::Parse(e.to_string())))?;
        let schema = batch.schema();
        arrow_table(py, vec![batch], schema).map(Some)
    }
}

async fn fetch_config(transport: Arc<Transport>, explorer: String, query: ConfigQuery, trace: bool) -> Result<CoreTpConfiguration> {
    let pairs = query.query_pairs().into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    let mut request = Request::get(Endpoint::TechnicalPotentialConfig { explorer }, pairs);
    request.trace = trace;
    let response = transport.send(&request).await?;
    let body = transport.scrub(&response.body);
    let config = parse_configuration(&body).map_err(|e| parse_failure(&body, &e.to_string(), |t| transport.redact(t)))?;
    Ok(CoreTpConfiguration { config })
}

async fn post_job(transport: Arc<Transport>, explorer: String, body: Vec<u8>, trace: bool) -> Result<(String, String)> {
    let mut request = Request::get(Endpoint::TechnicalPotentialJob { explorer }, Vec::new());
    request.method = reqwest::Method::POST;
    request.body = Body::Json(body);
    request.idempotent = false;
    request.trace = trace;
    let response = transport.send(&request).await?;
    let body = transport.scrub(&response.body);
    let submission = parse_job_submission(&body).map_err(|e| parse_failure(&body, &e.to_string(), |t| transport.redact(t)))?;
    Ok((submission.job_id, submission.status.as_str().to_owned()))
}

async fn job_call(transport: Arc<Transport>, explorer: String, job_id: String, delete: bool, trace: bool) -> Result<CoreTpJobResult> {
    let mut request = Request::get(Endpoint::TechnicalPotentialJob { explorer }, vec![("jobId".to_owned(), job_id.clone())]);
    if delete {
        request.method = reqwest::Method::DELETE;
    }
    request.check_body_errors = false;
    request.trace = trace;
    let response = transport.send(&request).await?;
    let body = transport.scrub(&response.body);
    let result = parse_job_result(&body).map_err(|e| parse_failure(&body, &e.to_string(), |t| transport.redact(t)))?;
    if let JobStatus::Failed(status) = &result.status {
        let detail = if result.errors.is_empty() { String::new() } else { format!(": {}", result.errors.join("; ")) };
        return Err(Error::JobFailed {
            message: format!("technical potential job {job_id} ended with status {status:?}{detail}"),
            job_id,
            status: status.clone(),
            messages: serde_json::json!(result.errors),
        });
    }
    Ok(CoreTpJobResult { result })
}

/// The explorer and the query, or every problem with either.
fn config_args(explorer: &str, countries: Option<&str>, wkt: Option<&str>) -> Result<(String, ConfigQuery)> {
    match (checked_explorer(explorer), validate_config_query(countries, wkt)) {
        (Ok(explorer), Ok(query)) => Ok((explorer, query)),
        (explorer, query) => {
            let mut problems = match explorer {
                Err(Error::Parameter(problems)) => problems,
                _ => Vec::new(),
            };
            problems.extend(query.err().unwrap_or_default());
            Err(Error::Parameter(problems))
        }
    }
}

/// Fetches the configuration (regions, resources, input fields); blocking, or an awaitable.
#[pyfunction]
#[pyo3(signature = (client, explorer, countries=None, wkt=None, asynchronous=false, trace=false))]
pub fn tp_config<'py>(
    py: Python<'py>,
    client: &CoreClient,
    explorer: &Bound<'_, PyAny>,
    countries: Option<&Bound<'_, PyAny>>,
    wkt: Option<&Bound<'_, PyAny>>,
    asynchronous: bool,
    trace: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut args = Arguments::new();
    let explorer = args.text("explorer", explorer);
    let countries = args.optional_text("countries", countries);
    let wkt = args.optional_text("wkt", wkt);
    args.finish().map_err(|e| client.error(e))?;
    let (Some(explorer), Some(countries), Some(wkt)) = (explorer, countries, wkt) else {
        return Err(client.error(Error::Parameter(vec!["invalid arguments".into()])));
    };
    let (explorer, query) = config_args(&explorer, countries.as_deref(), wkt.as_deref()).map_err(|e| client.error(e))?;
    client.run(py, asynchronous, fetch_config(client.transport.clone(), explorer, query, trace))
}

/// Validates the job against `config` (every problem at once) and returns the body to POST.
fn job_body(config: &CoreTpConfiguration, region: &str, resource: &str, fields_json: &str) -> Result<Vec<u8>> {
    let fields: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(fields_json).map_err(|e| Error::Parameter(vec![format!("fields must be JSON values: {e}")]))?;
    let request = validate_job(&config.config, region, resource, &fields).map_err(Error::Parameter)?;
    serde_json::to_vec(&serde_json::Value::Object(request.body)).map_err(|e| Error::Parameter(vec![e.to_string()]))
}

/// Submits a job; returns `(job_id, status)` (blocking, or an awaitable).
#[pyfunction]
#[pyo3(signature = (client, explorer, config, region, resource, fields_json, asynchronous=false, trace=false))]
#[allow(clippy::too_many_arguments)]
pub fn tp_submit<'py>(
    py: Python<'py>,
    client: &CoreClient,
    explorer: &Bound<'_, PyAny>,
    config: &CoreTpConfiguration,
    region: &Bound<'_, PyAny>,
    resource: &Bound<'_, PyAny>,
    fields_json: &Bound<'_, PyAny>,
    asynchronous: bool,
    trace: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut args = Arguments::new();
    let explorer = args.text("explorer", explorer).and_then(|e| checked_explorer(&e).map_err(|e| args.problems.extend(problems_of(e))).ok());
    let region = args.text("region", region);
    let resource = args.text("resource", resource);
    let fields_json = args.text("fields", fields_json);
    args.finish().map_err(|e| client.error(e))?;
    let (Some(explorer), Some(region), Some(resource), Some(fields_json)) = (explorer, region, resource, fields_json) else {
        return Err(client.error(Error::Parameter(vec!["invalid arguments".into()])));
    };
    let body = job_body(config, &region, &resource, &fields_json).map_err(|e| client.error(e))?;
    client.run(py, asynchronous, post_job(client.transport.clone(), explorer, body, trace))
}

fn problems_of(error: Error) -> Vec<String> {
    match error {
        Error::Parameter(problems) => problems,
        other => vec![other.to_string()],
    }
}

fn checked_job_id(job_id: &str) -> Result<()> {
    if job_id.trim().is_empty() {
        return Err(Error::Parameter(vec!["job_id must not be empty: use the id submit() returned".into()]));
    }
    Ok(())
}

/// Polls (`delete=False`) or deletes a job (blocking, or an awaitable); a job in a failure
/// status raises `JobFailed`.
#[pyfunction]
#[pyo3(signature = (client, explorer, job_id, delete=false, asynchronous=false, trace=false))]
pub fn tp_job<'py>(
    py: Python<'py>,
    client: &CoreClient,
    explorer: &Bound<'_, PyAny>,
    job_id: &Bound<'_, PyAny>,
    delete: bool,
    asynchronous: bool,
    trace: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut args = Arguments::new();
    let explorer = args.text("explorer", explorer).and_then(|e| checked_explorer(&e).map_err(|e| args.problems.extend(problems_of(e))).ok());
    let job_id = args.text("job_id", job_id).and_then(|id| checked_job_id(&id).map(|()| id).map_err(|e| args.problems.extend(problems_of(e))).ok());
    args.finish().map_err(|e| client.error(e))?;
    let (Some(explorer), Some(job_id)) = (explorer, job_id) else {
        return Err(client.error(Error::Parameter(vec!["invalid arguments".into()])));
    };
    client.run(py, asynchronous, job_call(client.transport.clone(), explorer, job_id, delete, trace))
}

/// Parses a configuration body from elsewhere.
#[pyfunction]
pub fn parse_tp_configuration(body: &[u8]) -> PyResult<CoreTpConfiguration> {
    parse_configuration(body).map(|config| CoreTpConfiguration { config }).map_err(|e| to_pyerr(Error::Parse(e.to_string())))
}

/// Parses a job body from elsewhere (no failure check).
#[pyfunction]
pub fn parse_tp_job(body: &[u8]) -> PyResult<CoreTpJobResult> {
    parse_job_result(body).map(|result| CoreTpJobResult { result }).map_err(|e| to_pyerr(Error::Parse(e.to_string())))
}

//! Bindings of the climate download: one site-year as streamed CSV, download requests for any
//! WKT and years, and the zip behind a download URL, each parsed into Arrow.

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;

use super::bridge::CancelToken;
use super::client::CoreClient;
use super::convert::{arrow_table, json_to_py, raw_value, Arguments};
use super::errors::to_pyerr;
use crate::error::{ApiErrorKind, ApiFailure, Error, Result};
use crate::formats::climate_csv::{read_climate_csv, ClimateCsvError, ParsedClimateCsv, SCHEMA_METADATA_KEY};
use crate::formats::climate_zip::{read_climate_zip, ClimateZipError};
use crate::formats::wkt::point_wkt;
use crate::formats::Format;
use crate::limits::DEFAULT_MAX_UNZIPPED_BYTES;
use crate::services::climate::{check_weight, validate_climate_request_in, ClimateParams, RawClimateRequest, Terms};
use crate::services::raw::RawValue;
use crate::services::solar::{NumberRange, LATITUDE, LONGITUDE};
use crate::transport::client::check_scheme;
use crate::transport::{ApiKey, Body, Endpoint, Request, Transport};

/// One site-year as Arrow; the typed metadata is the JSON in the schema metadata
/// (`climate_metadata`), read when asked for.
#[pyclass(module = "sunflux._core", frozen, name = "CoreClimateTable")]
pub struct CoreClimateTable {
    batch: RecordBatch,
}

impl CoreClimateTable {
    fn new(parsed: ParsedClimateCsv) -> Result<CoreClimateTable> {
        let batch = parsed.into_record_batch().map_err(|e| Error::Parse(e.to_string()))?;
        Ok(CoreClimateTable { batch })
    }
}

#[pymethods]
impl CoreClimateTable {
    /// The two metadata rows (names → typed values) and `columns` (short → long names).
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let schema = self.batch.schema();
        let text = schema.metadata().get(SCHEMA_METADATA_KEY).map_or("{}", String::as_str);
        let metadata: serde_json::Value =
            serde_json::from_str(text).map_err(|e| to_pyerr(Error::Parse(e.to_string())))?;
        json_to_py(py, &metadata)
    }

    fn to_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        arrow_table(py, vec![self.batch.clone()], self.batch.schema())
    }
}

/// Every CSV of a download zip: one long table (`site`, `year`, then the data) and one metadata
/// row per site.
#[pyclass(module = "sunflux._core", frozen, name = "CoreClimateZip")]
pub struct CoreClimateZip {
    schema: arrow_schema::SchemaRef,
    batches: Vec<RecordBatch>,
    sites: RecordBatch,
    files: Vec<String>,
}

#[pymethods]
impl CoreClimateZip {
    fn data<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        arrow_table(py, self.batches.clone(), self.schema.clone())
    }

    fn sites<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        arrow_table(py, vec![self.sites.clone()], self.sites.schema())
    }

    #[getter]
    fn files(&self) -> Vec<String> {
        self.files.clone()
    }
}

/// The parameters of a request as the caller gave them.
#[allow(clippy::too_many_arguments)]
fn raw_request(
    dataset: &Bound<'_, PyAny>,
    wkt: RawValue,
    names: &Bound<'_, PyAny>,
    attributes: &Bound<'_, PyAny>,
    utc: &Bound<'_, PyAny>,
    leap_day: &Bound<'_, PyAny>,
    email: &Bound<'_, PyAny>,
    full_name: &Bound<'_, PyAny>,
    affiliation: &Bound<'_, PyAny>,
    reason: &Bound<'_, PyAny>,
    mailing_list: &Bound<'_, PyAny>,
) -> RawClimateRequest {
    RawClimateRequest {
        dataset: raw_value(Some(dataset)),
        wkt,
        names: raw_value(Some(names)),
        attributes: raw_value(Some(attributes)),
        utc: raw_value(Some(utc)),
        leap_day: raw_value(Some(leap_day)),
        interval: RawValue::Int(60),
        email: raw_value(Some(email)),
        full_name: raw_value(Some(full_name)),
        affiliation: raw_value(Some(affiliation)),
        reason: raw_value(Some(reason)),
        mailing_list: raw_value(Some(mailing_list)),
    }
}

fn validated(raw: &RawClimateRequest, format: Format) -> Result<ClimateParams> {
    let params = validate_climate_request_in(raw, format, Terms::Python).map_err(Error::Parameter)?;
    check_weight(&params, params.estimated_sites()).map_err(|problem| Error::Parameter(vec![problem]))?;
    Ok(params)
}

fn csv_error(error: ClimateCsvError, status: u16, url: &str) -> Error {
    match error {
        ClimateCsvError::ErrorBody { status: body_status, code, messages } => {
            let body = crate::formats::error_body::ErrorBody { code: code.clone(), messages: messages.clone(), html: false };
            let status = body_status.unwrap_or(status);
            Error::Api(Box::new(ApiFailure {
                kind: crate::formats::error_body::classify(status, &body),
                status,
                code,
                errors: messages,
                body: String::new(),
                url: url.to_owned(),
                retry_after: None,
                remaining: None,
            }))
        }
        other => Error::Parse(other.to_string()),
    }
}

fn endpoint(params: &ClimateParams) -> Endpoint {
    Endpoint::ClimateDownload { dataset: params.dataset.clone(), format: params.format.suffix().to_owned() }
}

fn pairs(params: &ClimateParams) -> Vec<(String, String)> {
    params.form_pairs().into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

async fn download_csv(transport: Arc<Transport>, params: ClimateParams, trace: bool) -> Result<CoreClimateTable> {
    let mut request = Request::get(endpoint(&params), pairs(&params));
    request.check_body_errors = false;
    request.trace = trace;
    let response = transport.send(&request).await?;
    let body = transport.scrub(&response.body);
    let parsed = read_climate_csv(Arc::new(body)).map_err(|e| csv_error(e, response.status, &response.url))?;
    let year = params.years.first().copied().unwrap_or_default();
    parsed.table.check_rows(year, params.leap_day, params.interval_minutes).map_err(|e| Error::Parse(e.to_string()))?;
    CoreClimateTable::new(parsed)
}

/// Streams the CSV of one site and one year (validated first, every problem at once).
#[pyfunction]
#[pyo3(signature = (client, dataset, lat, lon, year, attributes, utc, leap_day, email, full_name, affiliation, reason, mailing_list, asynchronous=false, trace=false, cancel=None))]
#[allow(clippy::too_many_arguments)]
pub fn climate_download_csv<'py>(
    py: Python<'py>,
    client: &CoreClient,
    dataset: &Bound<'_, PyAny>,
    lat: &Bound<'_, PyAny>,
    lon: &Bound<'_, PyAny>,
    year: &Bound<'_, PyAny>,
    attributes: &Bound<'_, PyAny>,
    utc: &Bound<'_, PyAny>,
    leap_day: &Bound<'_, PyAny>,
    email: &Bound<'_, PyAny>,
    full_name: &Bound<'_, PyAny>,
    affiliation: &Bound<'_, PyAny>,
    reason: &Bound<'_, PyAny>,
    mailing_list: &Bound<'_, PyAny>,
    asynchronous: bool,
    trace: bool,
    cancel: Option<PyRef<'_, CancelToken>>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut problems = Vec::new();
    let mut coordinate = |value: &Bound<'_, PyAny>, range: NumberRange| {
        let raw = raw_value(Some(value));
        raw.as_finite_f64().filter(|v| (range.min..=range.max).contains(v)).or_else(|| {
            problems.push(format!("{} must be a number between {} and {} (got {})", range.name, range.min, range.max, raw.describe()));
            None
        })
    };
    let point = (coordinate(lat, LATITUDE), coordinate(lon, LONGITUDE));
    let wkt = match point {
        (Some(lat), Some(lon)) => RawValue::Text(point_wkt(lat, lon)),
        _ => RawValue::Text(point_wkt(0.0, 0.0)),
    };
    let raw = raw_request(dataset, wkt, year, attributes, utc, leap_day, email, full_name, affiliation, reason, mailing_list);
    let params = match (validated(&raw, Format::Csv), problems.is_empty()) {
        (Ok(params), true) => params,
        (Ok(_), false) => return Err(client.error(Error::Parameter(problems))),
        (Err(Error::Parameter(more)), _) => {
            problems.extend(more);
            return Err(client.error(Error::Parameter(problems)));
        }
        (Err(other), _) => return Err(client.error(other)),
    };
    let download = download_csv(client.transport.clone(), params, trace);
    match cancel {
        Some(token) => client.run(py, asynchronous, token.guard(download)),
        None => client.run(py, asynchronous, download),
    }
}

async fn submit_request(transport: Arc<Transport>, params: ClimateParams, post: bool, trace: bool) -> Result<(String, String, String)> {
    let mut request = Request::get(endpoint(&params), Vec::new());
    if post {
        request.method = reqwest::Method::POST;
        request.body = Body::Form(pairs(&params));
        request.idempotent = false;
    } else {
        request.query = pairs(&params);
    }
    request.trace = trace;
    let response = transport.send(&request).await?;
    let body = transport.scrub(&response.body);
    let value: serde_json::Value = serde_json::from_slice(&body).map_err(|e| Error::Parse(format!("the download answer is not JSON: {e}")))?;
    let outputs = value.get("outputs").ok_or_else(|| missing_outputs(&body, &["outputs"], &transport))?;
    let text = |name: &str| outputs.get(name).and_then(serde_json::Value::as_str).map(str::to_owned);
    let (Some(message), Some(url)) = (text("message"), text("downloadUrl")) else {
        let missing: Vec<&str> = ["outputs.message", "outputs.downloadUrl"]
            .into_iter()
            .filter(|name| text(name.trim_start_matches("outputs.")).is_none())
            .collect();
        return Err(missing_outputs(&body, &missing, &transport));
    };
    Ok((message, url, String::from_utf8_lossy(&body).into_owned()))
}

/// Requests a download file for any WKT and years: `(message, download_url, raw body)`.
#[pyfunction]
#[pyo3(signature = (client, dataset, wkt, years, attributes, utc, leap_day, email, full_name, affiliation, reason, mailing_list, method, asynchronous=false, trace=false))]
#[allow(clippy::too_many_arguments)]
pub fn climate_request<'py>(
    py: Python<'py>,
    client: &CoreClient,
    dataset: &Bound<'_, PyAny>,
    wkt: &Bound<'_, PyAny>,
    years: &Bound<'_, PyAny>,
    attributes: &Bound<'_, PyAny>,
    utc: &Bound<'_, PyAny>,
    leap_day: &Bound<'_, PyAny>,
    email: &Bound<'_, PyAny>,
    full_name: &Bound<'_, PyAny>,
    affiliation: &Bound<'_, PyAny>,
    reason: &Bound<'_, PyAny>,
    mailing_list: &Bound<'_, PyAny>,
    method: &Bound<'_, PyAny>,
    asynchronous: bool,
    trace: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut problems = Vec::new();
    let post = match raw_value(Some(method)).as_text().map(str::to_ascii_uppercase).as_deref() {
        Some("POST") => true,
        Some("GET") => false,
        _ => {
            problems.push(format!("method must be \"POST\" or \"GET\" (got {})", raw_value(Some(method)).describe()));
            true
        }
    };
    let raw = raw_request(dataset, raw_value(Some(wkt)), years, attributes, utc, leap_day, email, full_name, affiliation, reason, mailing_list);
    let params = match validated(&raw, Format::Json) {
        Ok(params) if problems.is_empty() => params,
        Ok(_) => return Err(client.error(Error::Parameter(problems))),
        Err(Error::Parameter(more)) => {
            problems.extend(more);
            return Err(client.error(Error::Parameter(problems)));
        }
        Err(other) => return Err(client.error(other)),
    };
    client.run(py, asynchronous, submit_request(client.transport.clone(), params, post, trace))
}

/// An answer without outputs it must have: the error it carries if it is an error body,
/// otherwise an `ApiError` naming what is missing.
fn missing_outputs(body: &[u8], missing: &[&str], transport: &Transport) -> Error {
    crate::services::missing::missing_outputs(body, missing, |text| transport.redact(text))
}

fn is_not_ready(error: &Error) -> bool {
    matches!(error, Error::Api(failure) if failure.kind == ApiErrorKind::NotFound)
}

fn zip_error(transport: &Transport, url: &str, error: ClimateZipError) -> Error {
    let message = match error {
        ClimateZipError::NotZip(messages) => format!("{url}: the download is not a zip file: {}", messages.join("; ")),
        other => format!("{url}: {other}"),
    };
    Error::Parse(transport.redact(&message))
}

async fn fetch_zip(transport: Arc<Transport>, url: String, wait: bool, timeout: Duration, trace: bool) -> Result<CoreClimateZip> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(250);
    let max_unzipped = transport.config().byte_limits.unzipped;
    loop {
        let mut request = Request::download(url.clone());
        request.trace = trace;
        match transport.send(&request).await {
            Ok(response) => {
                let body = response.body;
                let key = transport.config().api_key.clone();
                let zip = tokio::task::spawn_blocking(move || read_climate_zip(&body, max_unzipped, key.as_ref().map(ApiKey::expose)))
                    .await
                    .map_err(|e| Error::Parse(format!("the zip reader stopped: {e}")))?
                    .map_err(|e| zip_error(&transport, &url, e))?;
                return Ok(CoreClimateZip { schema: zip.schema, batches: zip.batches, sites: zip.sites, files: zip.files });
            }
            Err(error) if wait && is_not_ready(&error) => {
                let waited = started.elapsed();
                if waited >= timeout {
                    return Err(Error::JobTimeout {
                        message: format!(
                            "the download file was not ready after {:.1} s; call fetch again later with the same URL",
                            waited.as_secs_f64()
                        ),
                        job_id: transport.redact(&url),
                        last_status: "not ready".into(),
                    });
                }
                tokio::time::sleep(pause.min(timeout.saturating_sub(waited))).await;
                pause = (pause * 3 / 2).min(Duration::from_secs(10));
            }
            Err(error) => return Err(error),
        }
    }
}

/// Downloads (polling while not ready) and parses the zip behind a download URL; the API key is
/// never sent with it. Every argument is checked at once.
#[pyfunction]
#[pyo3(signature = (client, url, wait, timeout, asynchronous=false, trace=false))]
pub fn climate_fetch<'py>(
    py: Python<'py>,
    client: &CoreClient,
    url: &Bound<'_, PyAny>,
    wait: &Bound<'_, PyAny>,
    timeout: &Bound<'_, PyAny>,
    asynchronous: bool,
    trace: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut args = Arguments::new();
    let url = args.text("download_url", url).and_then(|url| {
        let problem = match reqwest::Url::parse(&url) {
            Ok(parsed) => check_scheme(&parsed).err().map(|problem| format!("download_url {problem}")),
            Err(e) => Some(format!("download_url is not a URL ({e})")),
        };
        match problem {
            Some(problem) => {
                args.problems.push(format!("{problem}: {:?}", client.transport.redact(&url)));
                None
            }
            None => Some(url),
        }
    });
    let wait = args.flag("wait", wait);
    let timeout = args.seconds("timeout", timeout, false);
    args.finish().map_err(|e| client.error(e))?;
    let (Some(url), Some(wait), Some(timeout)) = (url, wait, timeout) else {
        return Err(client.error(Error::Parameter(vec!["invalid fetch arguments".into()])));
    };
    client.run(py, asynchronous, fetch_zip(client.transport.clone(), url, wait, timeout, trace))
}

/// The on-disk cache key of a csv request (everything that changes the data; no key, no e-mail).
#[pyfunction]
#[pyo3(signature = (dataset, lat, lon, year, attributes, utc, leap_day, email))]
#[allow(clippy::too_many_arguments)]
pub fn climate_cache_key(
    dataset: &Bound<'_, PyAny>,
    lat: &Bound<'_, PyAny>,
    lon: &Bound<'_, PyAny>,
    year: &Bound<'_, PyAny>,
    attributes: &Bound<'_, PyAny>,
    utc: &Bound<'_, PyAny>,
    leap_day: &Bound<'_, PyAny>,
    email: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let mut problems = Vec::new();
    let mut coordinate = |value: &Bound<'_, PyAny>, range: NumberRange| {
        let raw = raw_value(Some(value));
        raw.as_finite_f64().filter(|v| (range.min..=range.max).contains(v)).unwrap_or_else(|| {
            problems.push(format!("{} must be a number between {} and {} (got {})", range.name, range.min, range.max, raw.describe()));
            0.0
        })
    };
    let (lat, lon) = (coordinate(lat, LATITUDE), coordinate(lon, LONGITUDE));
    if !problems.is_empty() {
        return Err(to_pyerr(Error::Parameter(problems)));
    }
    let raw = RawClimateRequest {
        dataset: raw_value(Some(dataset)),
        wkt: RawValue::Text(point_wkt(lat, lon)),
        names: raw_value(Some(year)),
        attributes: raw_value(Some(attributes)),
        utc: raw_value(Some(utc)),
        leap_day: raw_value(Some(leap_day)),
        interval: RawValue::Int(60),
        email: raw_value(Some(email)),
        ..RawClimateRequest::default()
    };
    validated(&raw, Format::Csv).map(|params| params.cache_key()).map_err(to_pyerr)
}

/// Parses a climate CSV body from elsewhere (a file, another client); the parser threads read
/// the `bytes` in place. With `whole_year`, the rows must be one whole year.
#[pyfunction]
#[pyo3(signature = (body, whole_year=true))]
pub fn parse_climate_csv_bytes(py: Python<'_>, body: PyBackedBytes, whole_year: bool) -> PyResult<CoreClimateTable> {
    let parsed = py
        .detach(|| {
            let parsed = read_climate_csv(Arc::new(body))?;
            if whole_year {
                parsed.table.check_whole_year()?;
            }
            Ok(parsed)
        })
        .map_err(|e| to_pyerr(csv_error(e, 200, "")))?;
    CoreClimateTable::new(parsed).map_err(to_pyerr)
}

/// Parses the bytes of a download zip from elsewhere; its CSVs may inflate to `max_unzipped`
/// bytes (default: the limit of `crate::limits`).
#[pyfunction]
#[pyo3(signature = (body, max_unzipped=None))]
pub fn parse_climate_zip_bytes(py: Python<'_>, body: PyBackedBytes, max_unzipped: Option<&Bound<'_, PyAny>>) -> PyResult<CoreClimateZip> {
    let mut args = Arguments::new();
    let max_unzipped = match max_unzipped.filter(|v| !v.is_none()) {
        Some(value) => args.whole::<u64>("max_unzipped", value, 1, i64::MAX),
        None => Some(DEFAULT_MAX_UNZIPPED_BYTES),
    };
    args.finish().map_err(to_pyerr)?;
    let max_unzipped = max_unzipped.unwrap_or(DEFAULT_MAX_UNZIPPED_BYTES);
    let zip = py.detach(|| read_climate_zip(&body, max_unzipped, None)).map_err(|e| {
        to_pyerr(match e {
            ClimateZipError::NotZip(messages) => Error::Parse(format!("the body is not a zip file: {}", messages.join("; "))),
            other => Error::Parse(other.to_string()),
        })
    })?;
    Ok(CoreClimateZip { schema: zip.schema, batches: zip.batches, sites: zip.sites, files: zip.files })
}

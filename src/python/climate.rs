//! Bindings of the climate download: one site-year as streamed CSV, download requests for any
//! WKT and years, and the zip behind a download URL, each parsed into Arrow.

use std::sync::Arc;

use arrow_array::RecordBatch;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3_arrow::PyTable;

use super::bridge::PyCancelToken;
use super::client::PyTransport;
use super::pending::PyPendingCall;
use super::convert::{arrow_table, json_to_py, raw_value, Arguments};
use super::errors::to_pyerr;
use super::pvwatts::PyWeather;
use crate::error::{Error, Result};
use crate::formats::climate_csv::{read_climate_csv, ParsedClimateCsv, SCHEMA_METADATA_KEY};
use crate::formats::climate_zip::{read_climate_zip, ClimateZip, ClimateZipError};
use crate::formats::Format;
use crate::limits::DEFAULT_MAX_UNZIPPED_BYTES;
use crate::pvwatts::weather::weather_from_climate_table;
use crate::services::climate::requests::{self, point, validated, validated_site};
use crate::services::climate::RawClimateRequest;
use crate::services::raw::RawValue;

/// One site-year as Arrow; the typed metadata is the JSON in the schema metadata
/// (`climate_metadata`), read when asked for.
#[pyclass(module = "sunflux._core", frozen, name = "ClimateTable")]
pub struct PyClimateTable {
    batch: RecordBatch,
}

impl PyClimateTable {
    fn new(parsed: ParsedClimateCsv) -> Result<PyClimateTable> {
        let batch = parsed.into_record_batch().map_err(|e| Error::Parse(e.to_string()))?;
        Ok(PyClimateTable { batch })
    }
}

#[pymethods]
impl PyClimateTable {
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
#[pyclass(module = "sunflux._core", frozen, name = "ClimateZip")]
pub struct PyClimateZip {
    schema: arrow_schema::SchemaRef,
    batches: Vec<RecordBatch>,
    sites: RecordBatch,
    files: Vec<String>,
}

impl From<ClimateZip> for PyClimateZip {
    fn from(zip: ClimateZip) -> Self {
        PyClimateZip { schema: zip.schema, batches: zip.batches, sites: zip.sites, files: zip.files }
    }
}

#[pymethods]
impl PyClimateZip {
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

/// Streams the CSV of one site and one year (validated first, every problem at once).
///
/// Returns a `PyPendingCall` of `PyClimateTable`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (client, dataset, lat, lon, year, attributes, utc, leap_day, email, full_name, affiliation, reason, mailing_list, trace=false, cancel=None))]
pub fn climate_download_csv(
    client: &PyTransport,
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
    trace: bool,
    cancel: Option<PyRef<'_, PyCancelToken>>,
) -> PyResult<PyPendingCall> {
    let raw = raw_request(dataset, RawValue::Missing, year, attributes, utc, leap_day, email, full_name, affiliation, reason, mailing_list);
    let params = validated_site(&raw_value(Some(lat)), &raw_value(Some(lon)), raw).map_err(|e| client.error(e))?;
    let download = requests::download_csv(client.handle(trace), params);
    Ok(client.pending(PyCancelToken::handle(cancel.as_deref()).guard(async move { PyClimateTable::new(download.await?) })))
}

/// Requests a download file for any WKT and years: `(message, download_url, raw body)`.
///
/// Returns a `PyPendingCall` of `(String, String, String)`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (client, dataset, wkt, years, attributes, utc, leap_day, email, full_name, affiliation, reason, mailing_list, method, trace=false))]
pub fn climate_request(
    client: &PyTransport,
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
    trace: bool,
) -> PyResult<PyPendingCall> {
    let (post, mut problems) = match requests::posts(&raw_value(Some(method))) {
        Ok(post) => (post, Vec::new()),
        Err(problem) => (true, vec![problem]),
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
    Ok(client.pending(requests::submit_request(client.handle(trace), params, post)))
}

/// Downloads (polling while not ready) and parses the zip behind a download URL; the API key
/// is never sent with it. Every argument is checked at once.
///
/// Returns a `PyPendingCall` of `PyClimateZip`.
#[pyfunction]
#[pyo3(signature = (client, url, wait, timeout, trace=false))]
pub fn climate_fetch(
    client: &PyTransport,
    url: &Bound<'_, PyAny>,
    wait: &Bound<'_, PyAny>,
    timeout: &Bound<'_, PyAny>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let mut args = Arguments::new();
    let url = args.text("download_url", url).and_then(|url| match requests::checked_download_url(&url, |t| client.transport.redact(t)) {
        Ok(()) => Some(url),
        Err(problem) => {
            args.problems.push(problem);
            None
        }
    });
    let wait = args.flag("wait", wait);
    let timeout = args.seconds("timeout", timeout, false);
    args.finish().map_err(|e| client.error(e))?;
    let (Some(url), Some(wait), Some(timeout)) = (url, wait, timeout) else {
        return Err(client.error(Error::Parameter(vec!["invalid fetch arguments".into()])));
    };
    let fetch = requests::fetch_zip(client.handle(trace), url, wait, timeout);
    Ok(client.pending(async move { fetch.await.map(PyClimateZip::from) }))
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
    let wkt = point(&raw_value(Some(lat)), &raw_value(Some(lon))).map_err(|problems| to_pyerr(Error::Parameter(problems)))?;
    let raw = RawClimateRequest {
        dataset: raw_value(Some(dataset)),
        wkt: RawValue::Text(wkt),
        names: raw_value(Some(year)),
        attributes: raw_value(Some(attributes)),
        utc: raw_value(Some(utc)),
        leap_day: raw_value(Some(leap_day)),
        interval: RawValue::Int(60),
        email: raw_value(Some(email)),
        // Not part of the key; given so that the check of Python's booleans has a value.
        mailing_list: RawValue::Bool(false),
        ..RawClimateRequest::default()
    };
    validated(&raw, Format::Csv).map(|params| params.cache_key()).map_err(to_pyerr)
}

/// Parses a climate CSV body from elsewhere (a file, another client); the parser threads read
/// the `bytes` in place. With `whole_year`, the rows must be one whole year.
#[pyfunction]
#[pyo3(signature = (body, whole_year=true))]
pub fn parse_climate_csv_bytes(py: Python<'_>, body: PyBackedBytes, whole_year: bool) -> PyResult<PyClimateTable> {
    let parsed = py
        .detach(|| {
            let parsed = read_climate_csv(Arc::new(body))?;
            if whole_year {
                parsed.table.check_whole_year()?;
            }
            Ok(parsed)
        })
        .map_err(|e| to_pyerr(requests::csv_error(e, 200, "")))?;
    PyClimateTable::new(parsed).map_err(to_pyerr)
}

/// Parses the bytes of a download zip from elsewhere; its CSVs may inflate to `max_unzipped`
/// bytes (default: the limit of `crate::limits`).
#[pyfunction]
#[pyo3(signature = (body, max_unzipped=None))]
pub fn parse_climate_zip_bytes(py: Python<'_>, body: PyBackedBytes, max_unzipped: Option<&Bound<'_, PyAny>>) -> PyResult<PyClimateZip> {
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
    Ok(PyClimateZip::from(zip))
}

/// The weather year of a climate table (a `PyClimateTable`'s Arrow, or a copy keeping its
/// schema metadata), in the site's standard time with `local_time`, else in the table's zone.
#[pyfunction]
#[pyo3(signature = (table, local_time=true))]
pub fn climate_weather(py: Python<'_>, table: PyTable, local_time: bool) -> PyResult<PyWeather> {
    let (batches, schema) = table.into_inner();
    let weather = py.detach(|| weather_from_climate_table(&schema, &batches, local_time)).map_err(|message| to_pyerr(Error::Parameter(vec![message])))?;
    Ok(PyWeather::new(Arc::new(weather)))
}

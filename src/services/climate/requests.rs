//! The climate service's calls: one site-year as streamed CSV, a download file for any WKT and
//! years, and the zip behind a download URL (polled with `Backoff` while it is not ready), with
//! the checks their arguments need beyond `validate_climate_request_in`.

use std::sync::Arc;
use std::time::Duration;

use super::{check_weight, validate_climate_request_in, ClimateParams, RawClimateRequest, Terms};
use crate::error::{ApiErrorKind, ApiFailure, Error, Result};
use crate::formats::climate_csv::{read_climate_csv, ClimateCsvError, ParsedClimateCsv};
use crate::formats::climate_zip::{read_climate_zip, ClimateZip, ClimateZipError};
use crate::formats::error_body::{classify, ErrorBody};
use crate::formats::wkt::point_wkt;
use crate::formats::Format;
use crate::services::handle::ServiceHandle;
use crate::services::poll::Backoff;
use crate::services::raw::RawValue;
use crate::services::solar::{NumberRange, LATITUDE, LONGITUDE};
use crate::transport::client::check_scheme;
use crate::transport::{ApiKey, Body, Endpoint, Request};

/// The first pause while a download file is not ready, and the longest.
const ZIP_FIRST_PAUSE: Duration = Duration::from_millis(250);
const ZIP_MAX_PAUSE: Duration = Duration::from_secs(10);

/// `value` if it is a number within `range`; otherwise a problem is added.
fn coordinate(value: &RawValue, range: NumberRange, problems: &mut Vec<String>) -> Option<f64> {
    value.as_finite_f64().filter(|v| (range.min..=range.max).contains(v)).or_else(|| {
        problems.push(format!("{} must be a number between {} and {} (got {})", range.name, range.min, range.max, value.describe()));
        None
    })
}

/// The point `lat`, `lon` as WKT, or every problem with the two.
pub fn point(lat: &RawValue, lon: &RawValue) -> std::result::Result<String, Vec<String>> {
    let mut problems = Vec::new();
    match (coordinate(lat, LATITUDE, &mut problems), coordinate(lon, LONGITUDE, &mut problems)) {
        (Some(lat), Some(lon)) => Ok(point_wkt(lat, lon)),
        _ => Err(problems),
    }
}

/// The validated parameters of a request (its weight included), or every problem.
pub fn validated(raw: &RawClimateRequest, format: Format) -> Result<ClimateParams> {
    let params = validate_climate_request_in(raw, format, Terms::Python).map_err(Error::Parameter)?;
    check_weight(&params, params.estimated_sites()).map_err(|problem| Error::Parameter(vec![problem]))?;
    Ok(params)
}

/// A one-site CSV request at `lat`, `lon`: the coordinates' problems come first, then every
/// problem of the rest (`raw.wkt` is replaced by the point).
pub fn validated_site(lat: &RawValue, lon: &RawValue, mut raw: RawClimateRequest) -> Result<ClimateParams> {
    let (wkt, mut problems) = match point(lat, lon) {
        Ok(wkt) => (wkt, Vec::new()),
        Err(problems) => (point_wkt(0.0, 0.0), problems),
    };
    raw.wkt = RawValue::Text(wkt);
    match (validated(&raw, Format::Csv), problems.is_empty()) {
        (Ok(params), true) => Ok(params),
        (Ok(_), false) => Err(Error::Parameter(problems)),
        (Err(Error::Parameter(more)), _) => {
            problems.extend(more);
            Err(Error::Parameter(problems))
        }
        (Err(other), _) => Err(other),
    }
}

/// Whether a download-file request is POSTed (`"POST"`) or sent as a query (`"GET"`).
pub fn posts(method: &RawValue) -> std::result::Result<bool, String> {
    match method.as_text().map(str::to_ascii_uppercase).as_deref() {
        Some("POST") => Ok(true),
        Some("GET") => Ok(false),
        _ => Err(format!("method must be \"POST\" or \"GET\" (got {})", method.describe())),
    }
}

/// A download URL the client may fetch (http or https); the problem names it without the key.
pub fn checked_download_url(url: &str, redact: impl Fn(&str) -> String) -> std::result::Result<(), String> {
    crate::limits::url_length("download_url", url)?;
    let problem = match reqwest::Url::parse(url) {
        Ok(parsed) => check_scheme(&parsed).err().map(|problem| format!("download_url {problem}")),
        Err(e) => Some(format!("download_url is not a URL ({e})")),
    };
    problem.map_or(Ok(()), |problem| Err(format!("{problem}: {:?}", redact(url))))
}

/// The error a CSV answer stands for: an error body becomes the `ApiError` its status and code
/// classify it as; anything else the CSV reader rejected is a parse error.
pub fn csv_error(error: ClimateCsvError, status: u16, url: &str) -> Error {
    match error {
        ClimateCsvError::ErrorBody { status: body_status, code, messages } => {
            let body = ErrorBody { code: code.clone(), messages: messages.clone(), html: false };
            let status = body_status.unwrap_or(status);
            Error::Api(Box::new(ApiFailure {
                kind: classify(status, &body),
                status,
                code,
                errors: messages,
                body: String::new(),
                url: url.to_owned(),
                retry_after: None,
                remaining: None,
                input_errors: None,
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

/// Streams one site-year as CSV and checks that its rows are the year asked for.
pub async fn download_csv(handle: ServiceHandle, params: ClimateParams) -> Result<ParsedClimateCsv> {
    let mut request = Request::get(endpoint(&params), pairs(&params));
    request.check_body_errors = false;
    let response = handle.send(request).await?;
    let body = handle.scrub(&response.body);
    let parsed = read_climate_csv(Arc::new(body)).map_err(|e| csv_error(e, response.status, &response.url))?;
    let year = params.years.first().copied().unwrap_or_default();
    parsed.table.check_rows(year, params.leap_day, params.interval_minutes).map_err(|e| Error::Parse(e.to_string()))?;
    Ok(parsed)
}

/// Requests a download file: `(message, download_url, raw body)`.
pub async fn submit_request(handle: ServiceHandle, params: ClimateParams, post: bool) -> Result<(String, String, String)> {
    let mut request = Request::get(endpoint(&params), Vec::new());
    if post {
        request.method = reqwest::Method::POST;
        request.body = Body::Form(pairs(&params));
        request.idempotent = false;
    } else {
        request.query = pairs(&params);
    }
    let response = handle.send(request).await?;
    let body = handle.scrub(&response.body);
    let value: serde_json::Value = serde_json::from_slice(&body).map_err(|e| Error::Parse(format!("the download answer is not JSON: {e}")))?;
    let outputs = value.get("outputs").ok_or_else(|| missing_outputs(&body, &["outputs"], &handle))?;
    let text = |name: &str| outputs.get(name).and_then(serde_json::Value::as_str).map(str::to_owned);
    let (Some(message), Some(url)) = (text("message"), text("downloadUrl")) else {
        let missing: Vec<&str> = ["outputs.message", "outputs.downloadUrl"]
            .into_iter()
            .filter(|name| text(name.trim_start_matches("outputs.")).is_none())
            .collect();
        return Err(missing_outputs(&body, &missing, &handle));
    };
    Ok((message, url, String::from_utf8_lossy(&body).into_owned()))
}

/// An answer without outputs it must have: the error it carries if it is an error body,
/// otherwise an `ApiError` naming what is missing.
fn missing_outputs(body: &[u8], missing: &[&str], handle: &ServiceHandle) -> Error {
    crate::services::missing::missing_outputs(body, missing, |text| handle.redact(text))
}

/// A download file that is not there yet answers 404.
fn is_not_ready(error: &Error) -> bool {
    matches!(error, Error::Api(failure) if failure.kind == ApiErrorKind::NotFound)
}

fn zip_error(handle: &ServiceHandle, url: &str, error: ClimateZipError) -> Error {
    let message = match error {
        ClimateZipError::NotZip(messages) => format!("{url}: the download is not a zip file: {}", messages.join("; ")),
        other => format!("{url}: {other}"),
    };
    Error::Parse(handle.redact(&message))
}

/// Downloads and parses the zip behind a download URL (the API key is never sent with it); with
/// `wait`, polls while the file is not ready until `timeout` has passed (`JobTimeout`).
pub async fn fetch_zip(handle: ServiceHandle, url: String, wait: bool, timeout: Duration) -> Result<ClimateZip> {
    let mut backoff = Backoff::new(ZIP_FIRST_PAUSE, ZIP_MAX_PAUSE, timeout);
    let max_unzipped = handle.transport.config().byte_limits.unzipped;
    loop {
        match handle.send(Request::download(url.clone())).await {
            Ok(response) => {
                let body = response.body;
                let key = handle.transport.config().api_key.clone();
                return tokio::task::spawn_blocking(move || read_climate_zip(&body, max_unzipped, key.as_ref().map(ApiKey::expose)))
                    .await
                    .map_err(|e| Error::Parse(format!("the zip reader stopped: {e}")))?
                    .map_err(|e| zip_error(&handle, &url, e));
            }
            Err(error) if wait && is_not_ready(&error) => match backoff.next_pause() {
                Some(pause) => tokio::time::sleep(pause).await,
                None => {
                    return Err(Error::JobTimeout {
                        message: format!(
                            "the download file was not ready after {:.1} s; call fetch again later with the same URL",
                            backoff.elapsed().as_secs_f64()
                        ),
                        job_id: handle.redact(&url),
                        last_status: "not ready".into(),
                    })
                }
            },
            Err(error) => return Err(error),
        }
    }
}

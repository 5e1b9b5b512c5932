//! `sunflux._core.Transport`: the Rust transport as seen from Python. The Python `Client` and
//! `AsyncClient` classes wrap it; service methods send through it and wait for or await the `PendingCall`s it gives.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::bridge::with_python;
use super::convert::{type_name, Arguments};
use super::errors::to_pyerr;
use super::pending::PyPendingCall;
use crate::error::Error;
use crate::limits::{ByteLimits, Payload};
use crate::redact::redact;
use crate::services::handle::ServiceHandle;
use crate::transport::{
    canonical_origin, parse_base_url, ApiKey, AttemptObserver, AttemptRecord, AuthMode, Body, ClassLimits, Endpoint, Request, Response,
    RetryPolicy, RouteProfile, ServiceClass, Target, ThrottleConfig, Transport, TransportConfig, WindowLimit,
    DEFAULT_BASE_URL,
};

/// Sends one debug line per attempt to the Python logger `sunflux`.
struct PythonLog;

impl AttemptObserver for PythonLog {
    fn on_attempt(&self, record: &AttemptRecord) {
        with_python(|py| {
            let Ok(logger) = py.import("logging").and_then(|logging| logging.call_method1("getLogger", ("sunflux",))) else {
                return;
            };
            let status = record.status.map_or_else(|| "-".to_owned(), |s| s.to_string());
            let _ = logger.call_method1(
                "debug",
                (
                    "%s %s -> %s %s (attempt %d, %.1f ms)",
                    record.method.as_str(),
                    record.path.as_str(),
                    status,
                    record.outcome.as_str(),
                    record.attempt,
                    record.duration.as_secs_f64() * 1000.0,
                ),
            );
        });
    }
}

/// A finished HTTP exchange handed to Python.
#[pyclass(module = "sunflux._core", frozen, name = "RawResponse")]
pub struct PyRawResponse {
    #[pyo3(get)]
    status: u16,
    #[pyo3(get)]
    url: String,
    #[pyo3(get)]
    content_type: Option<String>,
    #[pyo3(get)]
    attempts: u32,
    #[pyo3(get)]
    rate_limit: (Option<i64>, Option<i64>),
    body: bytes::Bytes,
}

impl From<Response> for PyRawResponse {
    fn from(response: Response) -> Self {
        PyRawResponse {
            status: response.status,
            url: response.url,
            content_type: response.content_type,
            attempts: response.attempts,
            rate_limit: (response.rate_limit.limit, response.rate_limit.remaining),
            body: response.body,
        }
    }
}

#[pymethods]
impl PyRawResponse {
    /// The body as bytes.
    #[getter]
    fn content<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.body)
    }

    /// The body decoded as UTF-8 (invalid bytes replaced).
    #[getter]
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn __repr__(&self) -> String {
        format!("<RawResponse {} {} ({} bytes)>", self.status, self.url, self.body.len())
    }
}

/// Every limit of `crate::limits` by name, with its default value (bytes, levels, rows, columns
/// or seconds); `sunflux.limits()` shows them.
#[pyfunction]
pub fn default_limits() -> Vec<(String, f64)> {
    use crate::limits as l;
    let mut named: Vec<(String, f64)> = ByteLimits::default().named().into_iter().map(|(name, bytes)| (format!("max_bytes.{name}"), bytes as f64)).collect();
    named.extend([
        ("zip_entry_bytes", l::MAX_ZIP_ENTRY_BYTES as f64),
        ("zip_entries", l::MAX_ZIP_ENTRIES as f64),
        ("zip_ratio", l::MAX_ZIP_RATIO as f64),
        ("xml_depth", l::MAX_XML_DEPTH as f64),
        ("json_depth", l::MAX_JSON_DEPTH as f64),
        ("csv_columns", l::MAX_CSV_COLUMNS as f64),
        ("csv_rows", l::MAX_CSV_ROWS as f64),
        ("weather_file_bytes", l::MAX_WEATHER_FILE_BYTES as f64),
        ("weather_file_lines", l::MAX_WEATHER_FILE_LINES as f64),
        ("weather_records", l::MAX_WEATHER_RECORDS as f64),
        ("cache_entry_bytes", l::MAX_CACHE_ENTRY_BYTES as f64),
        ("deadline_seconds", l::DEFAULT_DEADLINE.as_secs_f64()),
        ("max_seconds", l::MAX_SECONDS),
        ("service_header_seconds", l::SERVICE_HEADER_TIMEOUT.as_secs_f64()),
        ("service_body_seconds", l::SERVICE_BODY_TIMEOUT.as_secs_f64()),
        ("service_body_bytes", l::SERVICE_MAX_BODY_BYTES as f64),
        ("service_hit_paths", l::SERVICE_MAX_HIT_PATHS as f64),
        ("service_discarded_bytes", l::SERVICE_MAX_DISCARDED_BYTES as f64),
        ("id_chars", l::MAX_ID_CHARS as f64),
        ("url_bytes", l::MAX_URL_BYTES as f64),
    ].map(|(name, value)| (name.to_owned(), value)));
    named
}

/// The shared transport of one `Client`.
#[pyclass(module = "sunflux._core", frozen, name = "Transport")]
pub struct PyTransport {
    pub transport: Arc<Transport>,
}

/// The client-side throttle: the spec's limits (or none), with per-class replacements given as
/// `{class name: {"per_window", "window", "min_interval", "in_flight"}}`.
fn throttle_config(args: &mut Arguments, enabled: bool, overrides: Option<&Bound<'_, PyAny>>) -> ThrottleConfig {
    let mut config = if enabled { ThrottleConfig::spec() } else { ThrottleConfig::disabled() };
    let Some(overrides) = overrides.filter(|o| !o.is_none()) else { return config };
    let Ok(overrides) = overrides.cast::<PyDict>() else {
        args.problems.push(format!("limits must be a dict of ServiceLimits by service class (got {})", type_name(overrides)));
        return config;
    };
    for (name, value) in overrides.iter() {
        let Some(name) = args.text("a limits key", &name) else { continue };
        let class = match name.as_str() {
            "solar" => ServiceClass::Solar,
            "climate_csv" => ServiceClass::ClimateCsv,
            "climate_other" => ServiceClass::ClimateOther,
            "optimizer" => ServiceClass::Optimizer,
            "technical_potential" => ServiceClass::TechnicalPotential,
            other => {
                args.problems.push(format!(
                    "limits has no service class {other:?} (use solar, climate_csv, climate_other, optimizer, technical_potential)"
                ));
                continue;
            }
        };
        let Ok(fields) = value.cast::<PyDict>() else {
            args.problems.push(format!("limits[{name:?}] must be a ServiceLimits (got {})", type_name(&value)));
            continue;
        };
        let mut limits = ClassLimits::default();
        let mut per_window = None;
        let mut window = Some(Duration::from_secs(3600));
        for (field, number) in fields.iter() {
            let field = field.extract::<String>().unwrap_or_default();
            let label = format!("limits[{name:?}].{field}");
            match field.as_str() {
                "per_window" => per_window = args.whole::<u32>(&label, &number, 0, i64::from(u32::MAX)),
                "window" => window = args.seconds(&label, &number, true),
                "min_interval" => limits.min_interval = args.seconds(&label, &number, false),
                "in_flight" => limits.max_in_flight = args.whole::<usize>(&label, &number, 1, 1_000_000),
                other => args.problems.push(format!("limits[{name:?}] has no field {other:?} (use per_window, window, min_interval, in_flight)")),
            }
        }
        if let (Some(max_requests), Some(window)) = (per_window, window) {
            limits.windows.push(WindowLimit { max_requests, window });
        }
        config.classes.insert(class, limits);
    }
    config
}

/// Response caps: the defaults with the caller's replacements `{name: bytes}`.
fn byte_limits(args: &mut Arguments, overrides: Option<&Bound<'_, PyAny>>) -> ByteLimits {
    let mut limits = ByteLimits::default();
    let Some(overrides) = overrides.filter(|o| !o.is_none()) else { return limits };
    let Ok(overrides) = overrides.cast::<PyDict>() else {
        args.problems.push(format!("max_bytes must be a dict of byte counts by name (got {})", type_name(overrides)));
        return limits;
    };
    for (name, value) in overrides.iter() {
        let Some(name) = args.text("a max_bytes key", &name) else { continue };
        if let Some(bytes) = args.whole::<u64>(&format!("max_bytes[{name:?}]"), &value, 1, i64::MAX) {
            if let Err(problem) = limits.set(&name, bytes) {
                args.problems.push(problem);
            }
        }
    }
    limits
}

/// The base URL check; the message shows the value only when it looks like a URL, so that a key
/// passed in its place (`Client(base_url, key)`) is never echoed.
fn base_url_of(args: &mut Arguments, value: &Bound<'_, PyAny>, key: Option<&str>) -> Option<reqwest::Url> {
    let text = args.text("base_url", value)?;
    match parse_base_url(&text) {
        Ok(url) => Some(url),
        Err(error) => {
            let message = if text.contains("://") {
                redact(&error.to_string(), key)
            } else {
                format!(
                    "base_url is not a URL (got {} characters without a scheme such as https://); note that the \
                     first argument of Client is api_key: Client(api_key, base_url)",
                    text.chars().count()
                )
            };
            args.problems.push(message);
            None
        }
    }
}

/// The method and endpoint name of a low-level request, each a `str` (`ParameterError` naming
/// the one that is not).
fn method_and_endpoint(method: &Bound<'_, PyAny>, endpoint: &Bound<'_, PyAny>) -> PyResult<(String, String)> {
    let mut args = Arguments::new();
    let method = args.text("method", method);
    let endpoint = args.text("endpoint", endpoint);
    args.finish().map_err(to_pyerr)?;
    Ok((method.unwrap_or_default(), endpoint.unwrap_or_default()))
}

/// The default route profile of a base URL: `nlr` for the public host, `spec` for any other.
fn default_routes(base_url: &reqwest::Url) -> RouteProfile {
    let public = reqwest::Url::parse(DEFAULT_BASE_URL).ok();
    if public.as_ref().and_then(reqwest::Url::host_str) == base_url.host_str() {
        RouteProfile::Nlr
    } else {
        RouteProfile::Spec
    }
}

impl PyTransport {
    /// The handle a service call takes.
    pub fn handle(&self, trace: bool) -> ServiceHandle {
        ServiceHandle::new(self.transport.clone(), trace)
    }

    /// A core call as a `PyPendingCall` (waited for or awaited by the caller); every error leaves
    /// with this client's key removed.
    pub fn pending<F, T>(&self, future: F) -> PyPendingCall
    where
        F: std::future::Future<Output = crate::error::Result<T>> + Send + 'static,
        T: for<'py> IntoPyObject<'py> + Send + 'static,
    {
        PyPendingCall::new(self.redacting(future))
    }

    fn redacting<F, T>(&self, future: F) -> impl std::future::Future<Output = crate::error::Result<T>> + Send + 'static
    where
        F: std::future::Future<Output = crate::error::Result<T>> + Send + 'static,
        T: Send + 'static,
    {
        let transport = self.transport.clone();
        async move { future.await.map_err(|error| transport.redact_error(error)) }
    }

    /// A Python error for `error` (a validation problem), without this client's key.
    pub fn error(&self, error: Error) -> PyErr {
        to_pyerr(self.transport.redact_error(error))
    }
}

#[pymethods]
impl PyTransport {
    /// Every argument is checked and every problem reported at once (`ParameterError`).
    #[new]
    #[pyo3(signature = (base_url, api_key, auth, routes, timeout, retries, backoff, retry_rate_limited, throttle, limits=None, deadline=None, max_bytes=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        base_url: &Bound<'_, PyAny>,
        api_key: &Bound<'_, PyAny>,
        auth: &Bound<'_, PyAny>,
        routes: &Bound<'_, PyAny>,
        timeout: &Bound<'_, PyAny>,
        retries: &Bound<'_, PyAny>,
        backoff: &Bound<'_, PyAny>,
        retry_rate_limited: &Bound<'_, PyAny>,
        throttle: &Bound<'_, PyAny>,
        limits: Option<&Bound<'_, PyAny>>,
        deadline: Option<&Bound<'_, PyAny>>,
        max_bytes: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut args = Arguments::new();
        let key_text = args.optional_text("api_key", Some(api_key)).flatten();
        let base_url = base_url_of(&mut args, base_url, key_text.as_deref());
        let api_key = key_text.as_deref().and_then(|key| ApiKey::new(key).map_err(|e| args.problems.push(e.to_string())).ok());
        let auth = args.text("auth", auth).and_then(|name| AuthMode::parse(&name).map_err(|e| args.problems.push(e.to_string())).ok());
        let routes = match args.optional_text("routes", Some(routes)) {
            Some(Some(name)) => RouteProfile::parse(&name).or_else(|| {
                args.problems.push(format!("routes must be 'spec' or 'nlr' (got {name:?})"));
                None
            }),
            Some(None) => base_url.as_ref().map(default_routes),
            None => None,
        };
        let timeout = args.seconds("timeout", timeout, true);
        let retries = args.whole::<u32>("retries", retries, 0, 100);
        let backoff = args.seconds("backoff", backoff, false);
        let retry_rate_limited = args.flag("retry_rate_limited", retry_rate_limited);
        let throttle = args.flag("throttle", throttle).map(|enabled| throttle_config(&mut args, enabled, limits));
        let deadline = args.optional_seconds("deadline", deadline, true);
        let byte_limits = byte_limits(&mut args, max_bytes);
        args.finish().map_err(to_pyerr)?;
        let (Some(base_url), Some(auth), Some(routes), Some(timeout), Some(retries), Some(backoff), Some(retry_rate_limited), Some(throttle), Some(deadline)) =
            (base_url, auth, routes, timeout, retries, backoff, retry_rate_limited, throttle, deadline)
        else {
            return Err(to_pyerr(Error::Parameter(vec!["invalid client configuration".into()])));
        };
        let retry = RetryPolicy { attempts: retries.saturating_add(1), base_delay: backoff, retry_rate_limited, ..RetryPolicy::default() };
        let config = TransportConfig { base_url, api_key, auth, routes, timeout, deadline, retry, throttle, byte_limits };
        let transport = Transport::new(config, Some(Arc::new(PythonLog))).map_err(to_pyerr)?;
        Ok(PyTransport { transport: Arc::new(transport) })
    }

    /// Checks a request once; the returned `PyPreparedRequest` sends it (waited for or awaited).
    #[pyo3(signature = (method, endpoint, args=None, query=Vec::new(), form=None, json=None, idempotent=None, check_errors=true, trace=false))]
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &self,
        method: &Bound<'_, PyAny>,
        endpoint: &Bound<'_, PyAny>,
        args: Option<HashMap<String, String>>,
        query: Vec<(String, String)>,
        form: Option<Vec<(String, String)>>,
        json: Option<Vec<u8>>,
        idempotent: Option<bool>,
        check_errors: bool,
        trace: bool,
    ) -> PyResult<PyPreparedRequest> {
        let (method, endpoint) = method_and_endpoint(method, endpoint)?;
        let endpoint = endpoint.as_str();
        let args = args.unwrap_or_default();
        let method = reqwest::Method::from_bytes(method.to_ascii_uppercase().as_bytes())
            .map_err(|_| to_pyerr(Error::Parameter(vec![format!("method {method:?} is not an HTTP method")])))?;
        let target = if endpoint == "absolute" {
            let url = args.get("url").cloned().ok_or_else(|| to_pyerr(Error::Parameter(vec!["endpoint 'absolute' needs the argument 'url'".into()])))?;
            Target::Absolute(url)
        } else {
            Target::Endpoint(Endpoint::from_name(endpoint, |key| args.get(key).cloned()).map_err(|m| to_pyerr(Error::Parameter(vec![m])))?)
        };
        let body = match (form, json) {
            (Some(_), Some(_)) => return Err(to_pyerr(Error::Parameter(vec!["give either form or json, not both".into()]))),
            (Some(pairs), None) => Body::Form(pairs),
            (None, Some(bytes)) => Body::Json(bytes),
            (None, None) => Body::Empty,
        };
        let idempotent = idempotent.unwrap_or(matches!(method, reqwest::Method::GET | reqwest::Method::HEAD | reqwest::Method::DELETE));
        let send_key = !matches!(target, Target::Absolute(_));
        let payload = match &target {
            Target::Endpoint(endpoint) => endpoint.payload(),
            Target::Absolute(_) => Payload::ClimateZip,
        };
        let request = Request { method, target, query, body, idempotent, check_body_errors: check_errors, trace, send_key, payload };
        Ok(PyPreparedRequest { transport: self.transport.clone(), request: Arc::new(request) })
    }

    /// The URL of an endpoint (no key in it).
    #[pyo3(signature = (endpoint, args=None))]
    fn url(&self, endpoint: &Bound<'_, PyAny>, args: Option<HashMap<String, String>>) -> PyResult<String> {
        let mut checked = Arguments::new();
        let endpoint = checked.text("endpoint", endpoint);
        checked.finish().map_err(to_pyerr)?;
        let args = args.unwrap_or_default();
        let endpoint = Endpoint::from_name(&endpoint.unwrap_or_default(), |key| args.get(key).cloned()).map_err(|m| to_pyerr(Error::Parameter(vec![m])))?;
        Ok(self.transport.endpoint_url(&endpoint))
    }

    /// The latest `X-RateLimit-Limit` and `X-RateLimit-Remaining` seen (None before any).
    #[getter]
    fn rate_limit(&self) -> (Option<i64>, Option<i64>) {
        let info = self.transport.rate_limit();
        (info.limit, info.remaining)
    }

    #[getter]
    fn base_url(&self) -> String {
        self.transport.config().base_url.as_str().trim_end_matches('/').to_owned()
    }

    #[getter]
    fn routes(&self) -> &'static str {
        self.transport.config().routes.name()
    }

    /// The service's identity for caches: scheme, host and port, every spelling of loopback
    /// alike (`transport::canonical_origin`).
    #[getter]
    fn cache_origin(&self) -> String {
        canonical_origin(&self.transport.config().base_url)
    }

    #[getter]
    fn has_key(&self) -> bool {
        self.transport.config().api_key.is_some()
    }

    /// Makes every later call fail at once with `TransportError(reason)`.
    fn close(&self, reason: String) {
        self.transport.close(reason);
    }

    #[getter]
    fn closed(&self) -> bool {
        self.transport.is_closed()
    }

    /// `text` with this client's key removed.
    fn redact(&self, text: &str) -> String {
        self.transport.redact(text)
    }
}

/// A request checked by `PyTransport.prepare`; each `send()` is one call (retries and throttles
/// included), waited for or awaited.
#[pyclass(module = "sunflux._core", frozen, name = "PreparedRequest")]
pub struct PyPreparedRequest {
    transport: Arc<Transport>,
    request: Arc<Request>,
}

#[pymethods]
impl PyPreparedRequest {
    /// The send of the request, pending: a `PyPendingCall` of `PyRawResponse`.
    fn send(&self) -> PyPendingCall {
        let (transport, request) = (self.transport.clone(), self.request.clone());
        PyPendingCall::new(async move { transport.send(&request).await.map(PyRawResponse::from) })
    }
}

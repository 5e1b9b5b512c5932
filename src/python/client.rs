//! `sunflux._core.CoreClient`: the Rust transport as seen from Python. The Python `Client` and
//! `AsyncClient` classes wrap it; service methods call `request`/`request_async`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::bridge::{awaitable, block_on};
use super::errors::to_pyerr;
use crate::error::Error;
use crate::transport::{
    parse_base_url, ApiKey, AttemptObserver, AttemptRecord, AuthMode, Body, ClassLimits, Endpoint, Request, Response,
    RetryPolicy, RouteProfile, ServiceClass, Target, ThrottleConfig, Transport, TransportConfig, WindowLimit,
};

/// Sends one debug line per attempt to the Python logger `sunflux`.
struct PythonLog;

impl AttemptObserver for PythonLog {
    fn on_attempt(&self, record: &AttemptRecord) {
        Python::attach(|py| {
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
pub struct RawResponse {
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

impl From<Response> for RawResponse {
    fn from(response: Response) -> Self {
        RawResponse {
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
impl RawResponse {
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

/// The shared transport of one `Client`.
#[pyclass(module = "sunflux._core", frozen, name = "CoreClient")]
pub struct CoreClient {
    pub transport: Arc<Transport>,
}

fn throttle_config(enabled: bool, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<ThrottleConfig> {
    let mut config = if enabled { ThrottleConfig::spec() } else { ThrottleConfig::disabled() };
    let Some(overrides) = overrides else { return Ok(config) };
    let mut problems = Vec::new();
    for (name, value) in overrides.iter() {
        let name: String = name.extract()?;
        let class = match name.as_str() {
            "solar" => ServiceClass::Solar,
            "climate_csv" => ServiceClass::ClimateCsv,
            "climate_other" => ServiceClass::ClimateOther,
            "optimizer" => ServiceClass::Optimizer,
            "technical_potential" => ServiceClass::TechnicalPotential,
            other => {
                problems.push(format!(
                    "limits has no service class {other:?} (use solar, climate_csv, climate_other, optimizer, technical_potential)"
                ));
                continue;
            }
        };
        let spec: HashMap<String, f64> = value.extract()?;
        let mut limits = ClassLimits::default();
        let mut per_window = None;
        let mut window = Duration::from_secs(3600);
        for (field, number) in spec {
            if !number.is_finite() || number < 0.0 {
                problems.push(format!("limits[{name:?}][{field:?}] must be a number >= 0 (got {number})"));
                continue;
            }
            match field.as_str() {
                "per_window" => per_window = Some(number as u32),
                "window" => window = Duration::from_secs_f64(number),
                "min_interval" => limits.min_interval = Some(Duration::from_secs_f64(number)),
                "in_flight" => limits.max_in_flight = Some((number as usize).max(1)),
                other => problems.push(format!("limits[{name:?}] has no field {other:?} (use per_window, window, min_interval, in_flight)")),
            }
        }
        if let Some(max_requests) = per_window {
            limits.windows.push(WindowLimit { max_requests, window });
        }
        config.classes.insert(class, limits);
    }
    if problems.is_empty() {
        Ok(config)
    } else {
        Err(to_pyerr(Error::Parameter(problems)))
    }
}

impl CoreClient {
    fn build_request(
        &self,
        method: &str,
        endpoint: &str,
        args: Option<HashMap<String, String>>,
        query: Vec<(String, String)>,
        form: Option<Vec<(String, String)>>,
        json: Option<Vec<u8>>,
        idempotent: Option<bool>,
        check_errors: bool,
        trace: bool,
    ) -> PyResult<Request> {
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
        Ok(Request { method, target, query, body, idempotent, check_body_errors: check_errors, trace, send_key })
    }
}

#[pymethods]
impl CoreClient {
    #[new]
    #[pyo3(signature = (base_url, api_key, auth, routes, timeout, retries, backoff, retry_rate_limited, throttle, limits=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        base_url: &str,
        api_key: Option<&str>,
        auth: &str,
        routes: &str,
        timeout: f64,
        retries: u32,
        backoff: f64,
        retry_rate_limited: bool,
        throttle: bool,
        limits: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let mut problems = Vec::new();
        let base_url = parse_base_url(base_url).map_err(|e| problems.push(e.to_string())).ok();
        let api_key = match api_key {
            Some(key) => ApiKey::new(key).map_err(|e| problems.push(e.to_string())).ok(),
            None => None,
        };
        let auth = AuthMode::parse(auth).map_err(|e| problems.push(e.to_string())).ok();
        let routes = RouteProfile::parse(routes).or_else(|| {
            problems.push(format!("routes must be 'spec' or 'nlr' (got {routes:?})"));
            None
        });
        if !(timeout.is_finite() && timeout > 0.0) {
            problems.push(format!("timeout must be a positive number of seconds (got {timeout})"));
        }
        if !(backoff.is_finite() && backoff >= 0.0) {
            problems.push(format!("backoff must be a number of seconds >= 0 (got {backoff})"));
        }
        let throttle = Some(throttle_config(throttle, limits)?);
        if !problems.is_empty() {
            return Err(to_pyerr(Error::Parameter(problems)));
        }
        let (Some(base_url), Some(auth), Some(routes), Some(throttle)) = (base_url, auth, routes, throttle) else {
            return Err(to_pyerr(Error::Parameter(vec!["invalid client configuration".into()])));
        };
        let retry = RetryPolicy {
            attempts: retries.saturating_add(1),
            base_delay: Duration::from_secs_f64(backoff),
            retry_rate_limited,
            ..RetryPolicy::default()
        };
        let config = TransportConfig { base_url, api_key, auth, routes, timeout: Duration::from_secs_f64(timeout), retry, throttle };
        let transport = Transport::new(config, Some(Arc::new(PythonLog))).map_err(to_pyerr)?;
        Ok(CoreClient { transport: Arc::new(transport) })
    }

    /// Sends a request and waits for it (GIL released, Ctrl-C honoured).
    #[pyo3(signature = (method, endpoint, args=None, query=Vec::new(), form=None, json=None, idempotent=None, check_errors=true, trace=false))]
    #[allow(clippy::too_many_arguments)]
    fn request(
        &self,
        py: Python<'_>,
        method: &str,
        endpoint: &str,
        args: Option<HashMap<String, String>>,
        query: Vec<(String, String)>,
        form: Option<Vec<(String, String)>>,
        json: Option<Vec<u8>>,
        idempotent: Option<bool>,
        check_errors: bool,
        trace: bool,
    ) -> PyResult<RawResponse> {
        let request = self.build_request(method, endpoint, args, query, form, json, idempotent, check_errors, trace)?;
        let transport = self.transport.clone();
        block_on(py, async move { transport.send(&request).await.map(RawResponse::from) })
    }

    /// The same as `request`, as an awaitable.
    #[pyo3(signature = (method, endpoint, args=None, query=Vec::new(), form=None, json=None, idempotent=None, check_errors=true, trace=false))]
    #[allow(clippy::too_many_arguments)]
    fn request_async<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        endpoint: &str,
        args: Option<HashMap<String, String>>,
        query: Vec<(String, String)>,
        form: Option<Vec<(String, String)>>,
        json: Option<Vec<u8>>,
        idempotent: Option<bool>,
        check_errors: bool,
        trace: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let request = self.build_request(method, endpoint, args, query, form, json, idempotent, check_errors, trace)?;
        let transport = self.transport.clone();
        awaitable(py, async move { transport.send(&request).await.map(RawResponse::from) })
    }

    /// The URL of an endpoint (no key in it).
    #[pyo3(signature = (endpoint, args=None))]
    fn url(&self, endpoint: &str, args: Option<HashMap<String, String>>) -> PyResult<String> {
        let args = args.unwrap_or_default();
        let endpoint = Endpoint::from_name(endpoint, |key| args.get(key).cloned()).map_err(|m| to_pyerr(Error::Parameter(vec![m])))?;
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

    #[getter]
    fn has_key(&self) -> bool {
        self.transport.config().api_key.is_some()
    }

    /// `text` with this client's key removed.
    fn redact(&self, text: &str) -> String {
        self.transport.redact(text)
    }
}

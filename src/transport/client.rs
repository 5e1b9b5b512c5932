//! The transport: one shared HTTP connection pool, auth, throttles, retries, manual redirects
//! (so the key never leaves its origin), error bodies and rate-limit headers.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use reqwest::{Method, Url};

use super::auth::{is_loopback_host, same_origin, ApiKey, AuthMode};
use crate::formats::error_body::{classify, failure, gateway_error, is_html_page, parse_error_body, parse_retry_after, service_errors};
use crate::redact::{redact, scrub_body};
use super::retry::RetryPolicy;
use crate::spec::routes::{Endpoint, RouteProfile, ServiceClass};
use super::throttle::{Throttle, ThrottleConfig};
use crate::error::{ApiErrorKind, ApiFailure, Error, Result};
use crate::limits::{ByteLimits, Payload};

/// Where the default base URL points (the retired earlier host is never used).
pub const DEFAULT_BASE_URL: &str = "https://developer.nlr.gov";
const MAX_REDIRECTS: usize = 10;
/// Added to an `AuthError` of a client that has no key.
const NO_KEY_HINT: &str =
    "this client has no API key: give sunflux.Client an api_key or set SUNFLUX_API_KEY";
/// Idle connections are dropped sooner than the embedded service closes them
/// (`limits::SERVICE_HEADER_TIMEOUT`), so a kept connection is never reused as it is closed.
const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(15);
/// Idle connections kept per host after a burst (httpx keeps 20). Without a cap, 500 concurrent
/// calls leave 500 idle connections and their buffers for `POOL_IDLE_TIMEOUT`, and the memory a
/// program holds follows its last burst's concurrency.
const POOL_MAX_IDLE_PER_HOST: usize = 32;

/// Everything a client is configured with.
#[derive(Debug, Clone)]
pub struct TransportConfig {
    pub base_url: Url,
    pub api_key: Option<ApiKey>,
    pub auth: AuthMode,
    pub routes: RouteProfile,
    /// One attempt, from connecting to the last byte of the body.
    pub timeout: Duration,
    /// The whole call: every attempt, the waits between them and client-side throttling.
    pub deadline: Option<Duration>,
    pub retry: RetryPolicy,
    pub throttle: ThrottleConfig,
    /// The largest body accepted for each kind of answer.
    pub byte_limits: ByteLimits,
}

/// The rule for every URL sunflux sends a request to (base URLs, download URLs, redirects):
/// `https://`, or plain `http://` to a loopback host only.
pub fn check_scheme(url: &Url) -> std::result::Result<(), String> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback_host(url) => Ok(()),
        "http" => Err("must use https:// (plain http:// is only allowed for loopback hosts such as 127.0.0.1)".into()),
        other => Err(format!("must be an https:// URL (not {other}://)")),
    }
}

/// The identity of a service for caches: scheme, host and port, with every spelling of the
/// loopback host (`localhost`, `127.0.0.1`, `[::1]`) written as `loopback` and default ports
/// dropped, and no path or key.
pub fn canonical_origin(url: &Url) -> String {
    let host = if is_loopback_host(url) { "loopback".to_owned() } else { url.host_str().unwrap_or("").to_ascii_lowercase() };
    match url.port() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    }
}

/// Where a request goes.
#[derive(Debug, Clone)]
pub enum Target {
    /// A named endpoint under the base URL and the client's route profile.
    Endpoint(Endpoint),
    /// An absolute URL handed out by the service (e.g. a `downloadUrl`).
    Absolute(String),
}

/// A request body.
#[derive(Debug, Clone, Default)]
pub enum Body {
    #[default]
    Empty,
    /// `application/x-www-form-urlencoded`.
    Form(Vec<(String, String)>),
    /// `application/json`, already serialized.
    Json(Vec<u8>),
}

/// One logical call (possibly several attempts).
#[derive(Debug, Clone)]
pub struct Request {
    pub method: Method,
    pub target: Target,
    pub query: Vec<(String, String)>,
    pub body: Body,
    /// Safe to repeat: only such requests are retried.
    pub idempotent: bool,
    /// Raise when a 2xx JSON body carries a non-empty `errors` list.
    pub check_body_errors: bool,
    /// Report each attempt to the observer.
    pub trace: bool,
    /// Attach the API key (to the base URL's origin only); false for file downloads.
    pub send_key: bool,
    /// What the body holds, for its size cap.
    pub payload: Payload,
}

impl Request {
    pub fn get(endpoint: Endpoint, query: Vec<(String, String)>) -> Self {
        Request {
            method: Method::GET,
            payload: endpoint.payload(),
            target: Target::Endpoint(endpoint),
            query,
            body: Body::Empty,
            idempotent: true,
            check_body_errors: true,
            trace: false,
            send_key: true,
        }
    }

    /// A GET of a file URL handed out by the service: never carries the key, and its body is
    /// the file (no `errors` check).
    pub fn download(url: String) -> Self {
        Request {
            method: Method::GET,
            target: Target::Absolute(url),
            query: Vec::new(),
            body: Body::Empty,
            idempotent: true,
            check_body_errors: false,
            trace: false,
            send_key: false,
            payload: Payload::ClimateZip,
        }
    }
}

/// The latest `X-RateLimit-*` values seen by a client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateLimitInfo {
    pub limit: Option<i64>,
    pub remaining: Option<i64>,
}

/// A successful answer.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    /// The final URL with the key removed.
    pub url: String,
    pub content_type: Option<String>,
    pub body: Bytes,
    pub rate_limit: RateLimitInfo,
    pub attempts: u32,
}

/// One attempt as reported to the observer (for the `sunflux` debug log).
#[derive(Debug, Clone)]
pub struct AttemptRecord {
    pub method: String,
    /// Path of the URL, without query string.
    pub path: String,
    pub status: Option<u16>,
    pub outcome: String,
    pub attempt: u32,
    pub duration: Duration,
}

/// Receives one record per attempt when a request asks to be traced.
pub trait AttemptObserver: Send + Sync {
    fn on_attempt(&self, record: &AttemptRecord);
}

fn shared_http() -> Result<reqwest::Client> {
    static HTTP: OnceLock<std::result::Result<reqwest::Client, String>> = OnceLock::new();
    HTTP.get_or_init(|| {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("sunflux/", env!("CARGO_PKG_VERSION")))
            .pool_idle_timeout(POOL_IDLE_TIMEOUT)
            .pool_max_idle_per_host(POOL_MAX_IDLE_PER_HOST)
            .tcp_nodelay(true)
            .build()
            .map_err(|e| format!("could not build the HTTP client: {e}"))
    })
    .clone()
    .map_err(Error::Transport)
}

/// The per-client transport. Cheap to share behind an `Arc`.
pub struct Transport {
    config: TransportConfig,
    http: reqwest::Client,
    throttle: Throttle,
    rate_limit: Mutex<RateLimitInfo>,
    observer: Option<Arc<dyn AttemptObserver>>,
    /// Why this transport no longer sends (its client or the service it was made for was
    /// closed); every later call fails at once with this message.
    closed: OnceLock<String>,
}

impl Transport {
    pub fn new(config: TransportConfig, observer: Option<Arc<dyn AttemptObserver>>) -> Result<Self> {
        let http = shared_http()?;
        let throttle = Throttle::new(config.throttle.clone());
        Ok(Transport { config, http, throttle, rate_limit: Mutex::new(RateLimitInfo::default()), observer, closed: OnceLock::new() })
    }

    pub fn config(&self) -> &TransportConfig {
        &self.config
    }

    /// Stops this transport: every later call (and the next attempt of a call under way) fails
    /// at once with `TransportError(reason)`. The first reason given is kept.
    pub fn close(&self, reason: String) {
        let _ = self.closed.set(reason);
    }

    /// Whether `close` was called.
    pub fn is_closed(&self) -> bool {
        self.closed.get().is_some()
    }

    fn check_open(&self) -> Result<()> {
        self.closed.get().map_or(Ok(()), |reason| Err(Error::Transport(reason.clone())))
    }

    pub fn rate_limit(&self) -> RateLimitInfo {
        *self.rate_limit.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The full URL of an endpoint, without any key (for display).
    pub fn endpoint_url(&self, endpoint: &Endpoint) -> String {
        format!("{}{}", self.config.base_url.as_str().trim_end_matches('/'), endpoint.path(self.config.routes))
    }

    /// Removes this client's key from `text`.
    pub fn redact(&self, text: &str) -> String {
        redact(text, self.config.api_key.as_ref().map(ApiKey::expose))
    }

    /// A body with this client's key masked, for parsers whose results reach the user (a typed
    /// result never holds the key, whatever the server reflected); the same bytes without it.
    pub fn scrub(&self, body: &Bytes) -> Bytes {
        scrub_body(body, self.config.api_key.as_ref().map(ApiKey::expose))
    }

    /// `error` with this client's key removed from every text it holds (a parameter a caller
    /// filled with the key by mistake is quoted in the message).
    pub fn redact_error(&self, error: Error) -> Error {
        let clean = |text: String| self.redact(&text);
        match error {
            Error::Parameter(problems) => Error::Parameter(problems.into_iter().map(clean).collect()),
            Error::Transport(message) => Error::Transport(clean(message)),
            Error::Parse(message) => Error::Parse(clean(message)),
            Error::Api(mut failure) => {
                failure.errors = failure.errors.into_iter().map(clean).collect();
                failure.body = clean(std::mem::take(&mut failure.body));
                failure.url = clean(std::mem::take(&mut failure.url));
                failure.code = failure.code.map(clean);
                Error::Api(failure)
            }
            Error::JobFailed(mut failure) => {
                failure.message = clean(std::mem::take(&mut failure.message));
                failure.job_id = clean(std::mem::take(&mut failure.job_id));
                failure.status = clean(std::mem::take(&mut failure.status));
                failure.messages = serde_json::from_str(&clean(failure.messages.to_string())).unwrap_or(serde_json::Value::Null);
                Error::JobFailed(failure)
            }
            Error::JobTimeout { message, job_id, last_status } => {
                Error::JobTimeout { message: clean(message), job_id: clean(job_id), last_status: clean(last_status) }
            }
            Error::Interrupted => Error::Interrupted,
        }
    }

    /// Sends `request`, retrying transient failures of idempotent requests, all within the
    /// client's deadline.
    pub async fn send(&self, request: &Request) -> Result<Response> {
        let class = match &request.target {
            Target::Endpoint(endpoint) => endpoint.service_class(),
            Target::Absolute(_) => ServiceClass::Unthrottled,
        };
        let clock = Deadline::start(self.config.deadline);
        let mut delays = self.config.retry.delays();
        let mut attempt = 0u32;
        loop {
            self.check_open()?;
            attempt += 1;
            let outcome = {
                let admitted = clock.within(self.throttle.admit(class)).await;
                let Some(_in_flight) = admitted else { return Err(self.deadline_passed(attempt - 1, "waiting for the client-side rate limit")) };
                let timeout = clock.remaining().map_or(self.config.timeout, |left| left.min(self.config.timeout));
                if timeout.is_zero() {
                    return Err(self.deadline_passed(attempt - 1, "before the next attempt"));
                }
                self.attempt(request, attempt, timeout).await
            };
            match outcome {
                Ok(response) => return Ok(response),
                Err(error) if request.idempotent && self.config.retry.should_retry(&error) => match delays.next() {
                    Some(backoff) => {
                        let wait = self.config.retry.wait_before_retry(&error, backoff);
                        if clock.remaining().is_some_and(|left| left <= wait) {
                            return Err(with_attempts(error, attempt, self.config.deadline));
                        }
                        tokio::time::sleep(wait).await;
                    }
                    None => return Err(with_attempts(error, attempt, None)),
                },
                Err(error) => return Err(self.with_key_hint(error)),
            }
        }
    }

    /// A refusal for want of a key, told how to give one when this client has none: a client
    /// made without a key is allowed (the embedded service's file host and the URL helpers need
    /// none), so the first refused call is where the user learns it (docs/design.md, "Keys").
    fn with_key_hint(&self, error: Error) -> Error {
        match error {
            Error::Api(mut failure) if failure.kind == ApiErrorKind::Auth && self.config.api_key.is_none() => {
                failure.errors.push(NO_KEY_HINT.to_owned());
                Error::Api(failure)
            }
            other => other,
        }
    }

    fn deadline_passed(&self, attempts: u32, when: &str) -> Error {
        let seconds = self.config.deadline.unwrap_or_default().as_secs_f64();
        Error::Transport(format!(
            "the call's deadline of {seconds:.1} s passed {when} after {attempts} attempt(s) (deadline= bounds the whole call; timeout= each attempt)"
        ))
    }

    async fn attempt(&self, request: &Request, attempt: u32, timeout: Duration) -> Result<Response> {
        let started = Instant::now();
        let first_url = self.initial_url(request)?;
        let result = self.follow(request, first_url.clone(), timeout).await;
        if request.trace {
            if let Some(observer) = &self.observer {
                let (status, outcome) = match &result {
                    Ok(response) => (Some(response.status), "ok".to_owned()),
                    Err(Error::Api(failure)) => (Some(failure.status), format!("{:?}", failure.kind)),
                    Err(other) => (None, self.redact(&other.to_string())),
                };
                observer.on_attempt(&AttemptRecord {
                    method: request.method.to_string(),
                    path: first_url.path().to_owned(),
                    status,
                    outcome,
                    attempt,
                    duration: started.elapsed(),
                });
            }
        }
        result.map(|mut response| {
            response.attempts = attempt;
            response
        })
    }

    fn initial_url(&self, request: &Request) -> Result<Url> {
        if let Target::Endpoint(endpoint) = &request.target {
            endpoint.check().map_err(Error::Parameter)?;
        }
        let text = match &request.target {
            Target::Endpoint(endpoint) => self.endpoint_url(endpoint),
            Target::Absolute(url) => url.clone(),
        };
        let mut url = Url::parse(&text).map_err(|e| Error::Parameter(vec![format!("invalid URL ({e}): {}", self.redact(&text))]))?;
        check_scheme(&url).map_err(|problem| Error::Parameter(vec![format!("{} {problem}", self.redact(&text))]))?;
        if !request.query.is_empty() {
            url.query_pairs_mut().extend_pairs(request.query.iter());
        }
        crate::limits::url_length("the request URL", url.as_str()).map_err(|problem| Error::Parameter(vec![problem]))?;
        Ok(url)
    }

    /// Sends one attempt, following redirects by hand so that the key goes only to its origin.
    async fn follow(&self, request: &Request, mut url: Url, timeout: Duration) -> Result<Response> {
        let mut method = request.method.clone();
        let mut body = request.body.clone();
        for _ in 0..=MAX_REDIRECTS {
            let keyed = request.send_key && same_origin(&self.config.base_url, &url);
            let response = self.send_once(&method, &url, &body, keyed, timeout).await?;
            let status = response.status().as_u16();
            if let Some(next) = redirect_target(&url, &response) {
                if let Err(problem) = check_scheme(&next) {
                    return Err(self.refused(status, &url, format!("refused to follow a redirect to {}: it {problem}", self.redact(next.as_str()))));
                }
                if matches!(status, 301..=303) && method != Method::GET && method != Method::HEAD {
                    method = Method::GET;
                    body = Body::Empty;
                }
                url = next;
                continue;
            }
            return self.finish(request, url, response, timeout).await;
        }
        Err(Error::Transport(format!("more than {MAX_REDIRECTS} redirects starting at {}", self.redact(url.as_str()))))
    }

    async fn send_once(&self, method: &Method, url: &Url, body: &Body, keyed: bool, timeout: Duration) -> Result<reqwest::Response> {
        let mut url = url.clone();
        let key = if keyed { self.config.api_key.as_ref() } else { None };
        if !keyed {
            strip_api_key_param(&mut url);
        }
        if let (Some(key), AuthMode::Query) = (key, self.config.auth) {
            if !url.query_pairs().any(|(name, _)| name == "api_key") {
                url.query_pairs_mut().append_pair("api_key", key.expose());
            }
        }
        let mut builder = self.http.request(method.clone(), url.clone()).timeout(timeout);
        match (key, self.config.auth) {
            (Some(key), AuthMode::Header) => builder = builder.header("X-Api-Key", key.expose()),
            (Some(key), AuthMode::Basic) => builder = builder.basic_auth(key.expose(), Some("")),
            _ => {}
        }
        builder = match body {
            Body::Empty => builder,
            Body::Form(pairs) => builder.form(pairs),
            Body::Json(bytes) => builder.header(reqwest::header::CONTENT_TYPE, "application/json").body(bytes.clone()),
        };
        builder.send().await.map_err(|e| Error::Transport(self.describe_transport_error(e, &url, timeout)))
    }

    /// An answer sunflux refuses to read on (too large, an unsafe redirect): not retried.
    fn refused(&self, status: u16, url: &Url, message: String) -> Error {
        Error::Api(Box::new(ApiFailure {
            kind: ApiErrorKind::Other,
            status,
            code: None,
            errors: vec![self.redact(&message)],
            body: String::new(),
            url: self.redact(url.as_str()),
            retry_after: None,
            remaining: None,
            input_errors: None,
        }))
    }

    /// Reads the body up to the payload's cap; a body longer than the cap or not as long as its
    /// `Content-Length` is an error, and nothing beyond the cap is ever held.
    async fn read_body(&self, request: &Request, url: &Url, mut response: reqwest::Response, timeout: Duration) -> Result<Bytes> {
        let status = response.status().as_u16();
        let limit = self.config.byte_limits.response(request.payload);
        let too_large = |what: String| {
            self.refused(
                status,
                url,
                format!(
                    "the answer is {what}, above the limit of {limit} bytes for {} answers (raise it with max_bytes={{{:?}: ...}})",
                    request.payload.name(),
                    request.payload.name()
                ),
            )
        };
        let declared = response.content_length();
        if let Some(length) = declared.filter(|length| *length > limit) {
            return Err(too_large(format!("{length} bytes long")));
        }
        const FIRST_ALLOCATION: u64 = 1 << 20;
        let capacity = usize::try_from(declared.unwrap_or(0).min(limit).min(FIRST_ALLOCATION)).unwrap_or(0);
        let mut body = BytesMut::with_capacity(capacity);
        loop {
            let chunk = response.chunk().await.map_err(|e| {
                Error::Transport(format!("the response body was cut off: {}", self.describe_transport_error(e, url, timeout)))
            })?;
            let Some(chunk) = chunk else { break };
            if u64::try_from(body.len() + chunk.len()).unwrap_or(u64::MAX) > limit {
                return Err(too_large("longer than that".into()));
            }
            body.extend_from_slice(&chunk);
        }
        if let Some(length) = declared.filter(|length| u64::try_from(body.len()).ok() != Some(*length)) {
            return Err(Error::Transport(self.redact(&format!(
                "the response body of {url} has {} bytes where its Content-Length says {length}",
                body.len()
            ))));
        }
        Ok(body.freeze())
    }

    async fn finish(&self, request: &Request, url: Url, response: reqwest::Response, timeout: Duration) -> Result<Response> {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let rate_limit = RateLimitInfo {
            limit: header_int(&headers, "x-ratelimit-limit"),
            remaining: header_int(&headers, "x-ratelimit-remaining"),
        };
        if rate_limit.limit.is_some() || rate_limit.remaining.is_some() {
            *self.rate_limit.lock().unwrap_or_else(|p| p.into_inner()) = rate_limit;
        }
        let retry_after = headers.get("retry-after").and_then(|v| v.to_str().ok()).and_then(parse_retry_after);
        let content_type = headers.get("content-type").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = self.read_body(request, &url, response, timeout).await?;
        let shown_url = self.redact(url.as_str());
        let is_html = content_type.as_deref().is_some_and(|t| t.starts_with("text/html")) || is_html_page(&body);
        if !(200..300).contains(&status) || is_html {
            let redacted_body = self.redact(&String::from_utf8_lossy(&body));
            let mut failure = failure(status, &body, shown_url, retry_after, rate_limit.remaining, redacted_body);
            failure.errors = failure.errors.iter().map(|m| self.redact(m)).collect();
            return Err(Error::Api(Box::new(failure)));
        }
        if request.check_body_errors && body.first() == Some(&b'{') {
            if let Ok(value) = serde_json::from_slice::<serde_json::Value>(&body) {
                let gateway = gateway_error(&value);
                let messages = service_errors(&value).or_else(|| gateway.as_ref().map(|g| g.messages.clone()));
                if let Some(messages) = messages {
                    let parsed = parse_error_body(&body);
                    return Err(Error::Api(Box::new(ApiFailure {
                        kind: classify(status, &parsed),
                        status,
                        code: parsed.code,
                        errors: messages.iter().map(|m| self.redact(m)).collect(),
                        body: self.redact(&String::from_utf8_lossy(&body)),
                        url: shown_url,
                        retry_after: None,
                        remaining: rate_limit.remaining,
                        input_errors: None,
                    })));
                }
            }
        }
        Ok(Response { status, url: shown_url, content_type, body, rate_limit, attempts: 1 })
    }

    /// One line: what went wrong, the URL once and without its query string (which holds the
    /// request's parameters, sometimes the key), then the causes.
    fn describe_transport_error(&self, error: reqwest::Error, url: &Url, timeout: Duration) -> String {
        let error = error.without_url();
        let what = if error.is_timeout() {
            format!("timed out after {:.1} s", timeout.as_secs_f64())
        } else if error.is_connect() {
            "could not connect".to_owned()
        } else if error.is_body() || error.is_decode() {
            "the connection closed before the whole body arrived".to_owned()
        } else {
            "the request failed".to_owned()
        };
        let mut detail = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(inner) = source {
            detail.push_str(": ");
            detail.push_str(&inner.to_string());
            source = inner.source();
        }
        let mut shown = url.clone();
        shown.set_query(None);
        self.redact(&format!("{what} ({}): {detail}", shown.as_str()))
    }
}

/// The last error of a call that gave up, saying after how many attempts (and, when the deadline
/// left no time for the next one, which deadline).
fn with_attempts(error: Error, attempts: u32, deadline: Option<Duration>) -> Error {
    let note = match deadline {
        Some(deadline) => format!(
            "gave up after {attempts} attempt(s): the call's deadline of {:.1} s left no time for another",
            deadline.as_secs_f64()
        ),
        None if attempts > 1 => format!("gave up after {attempts} attempts"),
        None => return error,
    };
    match error {
        Error::Transport(message) => Error::Transport(format!("{message} ({note})")),
        Error::Api(mut failure) => {
            failure.errors.push(note);
            Error::Api(failure)
        }
        other => other,
    }
}

/// When a call must be over.
struct Deadline(Option<tokio::time::Instant>);

impl Deadline {
    fn start(deadline: Option<Duration>) -> Deadline {
        let now = tokio::time::Instant::now();
        Deadline(deadline.and_then(|d| now.checked_add(d)))
    }

    fn remaining(&self) -> Option<Duration> {
        self.0.map(|at| at.saturating_duration_since(tokio::time::Instant::now()))
    }

    /// `future`'s output, or None when the deadline passes first.
    async fn within<F: std::future::Future>(&self, future: F) -> Option<F::Output> {
        match self.0 {
            Some(at) => tokio::time::timeout_at(at, future).await.ok(),
            None => Some(future.await),
        }
    }
}

fn redirect_target(current: &Url, response: &reqwest::Response) -> Option<Url> {
    if !matches!(response.status().as_u16(), 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let location = response.headers().get("location")?.to_str().ok()?;
    current.join(location).ok()
}

fn strip_api_key_param(url: &mut Url) {
    if !url.query_pairs().any(|(name, _)| name == "api_key") {
        return;
    }
    let kept: Vec<(String, String)> = url.query_pairs().filter(|(name, _)| name != "api_key").map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    if kept.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(kept.iter());
    }
}

fn header_int(headers: &reqwest::header::HeaderMap, name: &str) -> Option<i64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_params_are_stripped_for_foreign_hosts() {
        let mut url = Url::parse("https://files.example.org/a.zip?api_key=SECRET&x=1").unwrap();
        strip_api_key_param(&mut url);
        assert_eq!(url.as_str(), "https://files.example.org/a.zip?x=1");
        let mut only = Url::parse("https://files.example.org/a.zip?api_key=SECRET").unwrap();
        strip_api_key_param(&mut only);
        assert_eq!(only.as_str(), "https://files.example.org/a.zip");
    }
}

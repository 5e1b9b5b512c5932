//! The embedded service: configuration, shared state, the gateway middleware (faults, keys,
//! limits, `X-RateLimit-*` headers), the route table and start/stop.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::faults::{html_error_page, FaultConfig, FaultInjector, FaultKind};
use super::catalog::Catalog;
use super::gateway::{check_key, find_key, gateway_error, GatewayCode, KeyLimiter};
use super::prng::{alphanumeric, SplitMix64};
use super::reply::ServiceReply;
use super::station_weather::GeneratedWeather;
use super::tp_endpoint::LIVE_EXPLORER;
use super::tp_jobs::{FailureMode, JobStore, JobTiming};
use super::tp_model::TpModel;
use super::climate_endpoint::{PreparedDownload, DOWNLOAD_PATH_PREFIX};
use super::climate_jobs::{ClimateJobs, JobLimits};
use super::optimizer::{JobStore as OptimizerJobs, JobStoreConfig};
use super::optimizer_routes::ScenarioChecker;
use super::{climate_endpoint, optimizer_routes, pv_endpoint, solar_endpoint, status, tp_endpoint};
use crate::error::{Error, Result};
use crate::formats::Format;
use crate::transport::auth::API_KEY_LENGTH;

/// How to run the embedded service.
#[derive(Clone)]
pub struct ServiceConfig {
    /// 0 picks a free port.
    pub port: u16,
    /// The key the service hands out; a fresh random one when `None`.
    pub api_key: Option<String>,
    /// More keys to accept (each must be 40 characters).
    pub extra_keys: Vec<String>,
    /// Requests per key per rolling window (the real default: 1,000 per hour).
    pub requests_per_window: u32,
    pub window: Duration,
    pub faults: Option<FaultConfig>,
    /// Technical-potential explorers served besides `rede`.
    pub explorers: Vec<String>,
    /// How long technical-potential jobs stay queued and run.
    pub tp_timing: JobTiming,
    /// Makes technical-potential jobs end in a failure status (tests of clients).
    pub tp_failure: Option<FailureMode>,
    /// Per-user limits and queue of the climate download.
    pub climate_limits: JobLimits,
    /// Wait before building each climate download file (to observe "not ready" and a full queue).
    pub climate_build_delay: Duration,
    /// Optimizer job behaviour (the 404 race right after POST, runs that hang).
    pub optimizer: JobStoreConfig,
    /// Validates posted optimizer scenarios with the scenario builder's rules.
    pub scenario_checker: Option<Arc<dyn ScenarioChecker>>,
    /// The rate stand-in answers every well-formed URDB label (not only its catalogue's).
    pub urdb_any_label: bool,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            port: 0,
            api_key: None,
            extra_keys: Vec::new(),
            requests_per_window: 1000,
            window: Duration::from_secs(3600),
            faults: None,
            explorers: Vec::new(),
            tp_timing: JobTiming::default(),
            tp_failure: None,
            climate_limits: JobLimits::default(),
            climate_build_delay: Duration::ZERO,
            optimizer: JobStoreConfig::default(),
            scenario_checker: None,
            urdb_any_label: false,
        }
    }
}

/// State shared by every request of one running service.
pub struct ServiceState {
    pub catalog: &'static Catalog,
    pub station_weather: GeneratedWeather,
    pub tp_model: &'static TpModel,
    pub tp_jobs: Mutex<JobStore>,
    pub explorers: Vec<String>,
    pub climate_jobs: Mutex<ClimateJobs<PreparedDownload>>,
    pub climate_builder_running: AtomicBool,
    pub climate_build_delay: Duration,
    pub optimizer_jobs: OptimizerJobs,
    pub scenario_checker: Option<Arc<dyn ScenarioChecker>>,
    pub urdb_any_label: bool,
    /// `http://127.0.0.1:<port>`, known once the listener is bound (download URLs use it).
    pub base_url: OnceLock<String>,
    pub api_key: String,
    keys: HashSet<String>,
    limiter: Mutex<KeyLimiter>,
    faults: Option<Mutex<FaultInjector>>,
    started: Instant,
    hits: Mutex<BTreeMap<String, u64>>,
}

pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl ServiceState {
    pub fn new(config: &ServiceConfig) -> Result<Self> {
        let api_key = config.api_key.clone().unwrap_or_else(|| alphanumeric(&mut SplitMix64::from_entropy(), API_KEY_LENGTH));
        let mut problems = Vec::new();
        for key in std::iter::once(&api_key).chain(&config.extra_keys) {
            if key.chars().count() != API_KEY_LENGTH {
                problems.push(format!("every service key must be {API_KEY_LENGTH} characters long (one has {})", key.chars().count()));
            }
        }
        if config.requests_per_window == 0 {
            problems.push("rate limit requests_per_window must be at least 1".into());
        }
        if config.window.is_zero() {
            problems.push("rate limit window must be longer than 0 seconds".into());
        }
        if let Some(faults) = &config.faults {
            if let Err(problem) = faults.validate() {
                problems.push(problem);
            }
        }
        if !problems.is_empty() {
            return Err(Error::Parameter(problems));
        }
        let keys = std::iter::once(api_key.clone()).chain(config.extra_keys.iter().cloned()).collect();
        Ok(ServiceState {
            catalog: Catalog::shared(),
            station_weather: GeneratedWeather::default(),
            tp_model: TpModel::shared(),
            tp_jobs: Mutex::new(match &config.tp_failure {
                Some(failure) => JobStore::new(config.tp_timing).with_failure(failure.clone()),
                None => JobStore::new(config.tp_timing),
            }),
            explorers: std::iter::once(LIVE_EXPLORER.to_owned()).chain(config.explorers.iter().cloned()).collect(),
            climate_jobs: Mutex::new(ClimateJobs::new(config.climate_limits.clone(), SplitMix64::from_entropy().next_u64())),
            climate_builder_running: AtomicBool::new(false),
            climate_build_delay: config.climate_build_delay,
            base_url: OnceLock::new(),
            optimizer_jobs: OptimizerJobs::new(config.optimizer.clone()),
            scenario_checker: config.scenario_checker.clone(),
            urdb_any_label: config.urdb_any_label,
            api_key,
            keys,
            limiter: Mutex::new(KeyLimiter::new(config.requests_per_window, config.window)),
            faults: config.faults.clone().map(|f| Mutex::new(FaultInjector::new(f))),
            started: Instant::now(),
            hits: Mutex::new(BTreeMap::new()),
        })
    }

    /// Time since the service started: its clock for uptime, rate limits and job times.
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// Requests that reached the service, by path (whatever their outcome).
    pub fn hits(&self) -> BTreeMap<String, u64> {
        lock(&self.hits).clone()
    }

    fn record_hit(&self, path: &str) {
        *lock(&self.hits).entry(path.to_owned()).or_default() += 1;
    }
}

/// The format an error for this path must be written in: the path's suffix, JSON otherwise.
pub fn format_of_path(path: &str) -> Format {
    path.rsplit_once('.').and_then(|(_, suffix)| Format::from_suffix(suffix)).unwrap_or(Format::Json)
}

/// Builds the router: every endpoint the service serves, behind the gateway.
pub fn router(state: Arc<ServiceState>) -> Router {
    Router::new()
        .route("/api/local/v1/{file}", get(status::handle))
        .route("/api/solar/data_query/{file}", get(solar_endpoint::handle))
        .route("/api/pv-estimator/{file}", get(pv_endpoint::handle))
        .route("/api/pvwatts/{file}", get(pv_endpoint::handle))
        .route("/api/climate/ncdb/v2/climate/{file}", get(climate_endpoint::handle).post(climate_endpoint::handle))
        .route("/files/climate/{file}", get(climate_endpoint::handle_download))
        .route("/api/optimizer/stable/job/", post(optimizer_routes::handle_post))
        .route("/api/optimizer/stable/job/{run_uuid}/results/", get(optimizer_routes::handle_results))
        .route("/api/reopt/stable/job/", post(optimizer_routes::handle_post))
        .route("/api/reopt/stable/job/{run_uuid}/results/", get(optimizer_routes::handle_results))
        .route("/api/optimizer/stable/simulated_load/", get(optimizer_routes::handle_simulated_load))
        .route("/api/reopt/stable/simulated_load/", get(optimizer_routes::handle_simulated_load))
        .route("/utility_rates", get(optimizer_routes::handle_utility_rates))
        .route("/api/opencarto/{explorer}/v1/technical-potential/config", get(tp_endpoint::handle_config))
        .route(
            "/api/opencarto/{explorer}/v1/technical-potential",
            get(tp_endpoint::handle_job_get).post(tp_endpoint::handle_job_post).delete(tp_endpoint::handle_job_delete),
        )
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), gateway))
        .with_state(state)
}

async fn not_found() -> Response {
    reply_response(ServiceReply::json(
        404,
        &serde_json::json!({"error": {"code": "NOT_FOUND", "message": "No API could be found at this URL."}}),
    ))
}

/// Turns a pure endpoint answer into an HTTP response.
pub fn reply_response(reply: ServiceReply) -> Response {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, reply.body).into_response();
    let headers = response.headers_mut();
    headers.insert("content-type", HeaderValue::from_static(reply.content_type));
    for (name, value) in reply.headers {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    response
}

pub fn query_pairs(request: &Request) -> Vec<(String, String)> {
    request
        .uri()
        .query()
        .map(|q| url::form_urlencoded::parse(q.as_bytes()).into_owned().collect())
        .unwrap_or_default()
}

/// The key a request authenticated with, for endpoints that echo it (dataset query v2).
#[derive(Debug, Clone)]
pub struct AuthenticatedKey(pub String);

async fn gateway(State(state): State<Arc<ServiceState>>, mut request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let format = format_of_path(&path);
    state.record_hit(&path);
    if path.starts_with(DOWNLOAD_PATH_PREFIX) {
        return next.run(request).await;
    }
    let fault = state.faults.as_ref().and_then(|injector| lock(injector).draw());
    let fault_config = state.faults.as_ref().map(|injector| lock(injector).config().clone());
    match fault {
        Some(FaultKind::ServerError) => return html_response(500),
        Some(FaultKind::BadGateway) => return html_response(502),
        Some(FaultKind::Unavailable) => return html_response(503),
        Some(FaultKind::RateLimited) => return reply_response(gateway_error(GatewayCode::OverRateLimit, format)),
        Some(FaultKind::RateLimitedRetryAfter) => {
            let mut reply = gateway_error(GatewayCode::OverRateLimit, format);
            let wait = fault_config.map(|c| c.retry_after).unwrap_or(Duration::from_secs(1));
            reply.headers.push(("retry-after", format!("{}", wait.as_secs_f64())));
            return reply_response(reply);
        }
        _ => {}
    }
    let headers = request.headers();
    let header_key = headers.get("x-api-key").and_then(|v| v.to_str().ok());
    let authorization = headers.get("authorization").and_then(|v| v.to_str().ok());
    let key = find_key(header_key, &query_pairs(&request), authorization);
    if let Err(code) = check_key(key.as_deref(), &state.keys) {
        return reply_response(gateway_error(code, format));
    }
    let key = key.unwrap_or_default();
    request.extensions_mut().insert(AuthenticatedKey(key.clone()));
    let admission = lock(&state.limiter).admit(&key, Instant::now());
    let mut response = if admission.admitted {
        if fault == Some(FaultKind::Delay) {
            tokio::time::sleep(fault_config.map(|c| c.delay).unwrap_or_default()).await;
        }
        next.run(request).await
    } else {
        reply_response(gateway_error(GatewayCode::OverRateLimit, format))
    };
    let headers = response.headers_mut();
    headers.insert("x-ratelimit-limit", HeaderValue::from(admission.limit));
    headers.insert("x-ratelimit-remaining", HeaderValue::from(admission.remaining));
    match fault {
        Some(FaultKind::TruncatedBody) => cut_body(response, true).await,
        Some(FaultKind::DroppedConnection) => cut_body(response, false).await,
        _ => response,
    }
}

fn html_response(status: u16) -> Response {
    reply_response(ServiceReply::new(status, "text/html; charset=utf-8", html_error_page(status)))
}

/// Keeps the headers (with the full `Content-Length`) but sends only half the body, or none,
/// and then fails the stream so the connection closes early.
async fn cut_body(response: Response, keep_half: bool) -> Response {
    let (mut parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    let full_length = bytes.len().max(2);
    let kept = if keep_half { bytes.slice(..bytes.len() / 2) } else { bytes::Bytes::new() };
    parts.headers.insert("content-length", HeaderValue::from(full_length));
    let chunks: Vec<std::result::Result<bytes::Bytes, std::io::Error>> =
        vec![Ok(kept), Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "injected fault"))];
    Response::from_parts(parts, Body::from_stream(futures_util::stream::iter(chunks)))
}

/// A running embedded service.
pub struct LocalService {
    pub base_url: String,
    pub port: u16,
    pub state: Arc<ServiceState>,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl LocalService {
    /// Binds 127.0.0.1:`port` and serves in the background on `runtime`.
    pub fn start(runtime: &tokio::runtime::Runtime, config: &ServiceConfig) -> Result<Self> {
        let state = Arc::new(ServiceState::new(config)?);
        let listener = std::net::TcpListener::bind(("127.0.0.1", config.port))
            .map_err(|e| Error::Transport(format!("could not listen on 127.0.0.1:{}: {e}", config.port)))?;
        listener.set_nonblocking(true).map_err(|e| Error::Transport(e.to_string()))?;
        let port = listener.local_addr().map_err(|e| Error::Transport(e.to_string()))?.port();
        let _entered = runtime.enter();
        let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| Error::Transport(e.to_string()))?;
        let (shutdown, stop) = oneshot::channel::<()>();
        let _ = state.base_url.set(format!("http://127.0.0.1:{port}"));
        let app = router(state.clone());
        let task = runtime.spawn(async move {
            let server = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = stop.await;
            });
            let _ = server.await;
        });
        Ok(LocalService { base_url: format!("http://127.0.0.1:{port}"), port, state, shutdown: Some(shutdown), task: Some(task) })
    }

    pub fn api_key(&self) -> &str {
        &self.state.api_key
    }

    pub fn is_running(&self) -> bool {
        self.task.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Stops accepting, gives open requests a moment to finish, then drops the server.
    pub fn close(&mut self, runtime: &tokio::runtime::Runtime) {
        self.state.optimizer_jobs.cancel_all();
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(task) = self.task.take() {
            let abort = task.abort_handle();
            let finished = runtime.block_on(async { tokio::time::timeout(Duration::from_millis(500), task).await.is_ok() });
            if !finished {
                abort.abort();
            }
        }
    }
}

//! What every endpoint of the embedded service shares: its configuration, the state of one
//! running service (keys, limits, job stores, counters) and the helpers that turn requests and
//! replies into HTTP. The bottom of `embedded/`: it uses no endpoint and no router.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::catalog::Catalog;
use super::climate::jobs::{ClimateJobs, JobLimits, PreparedDownload};
use super::faults::{FaultConfig, FaultInjector};
use super::gateway::KeyLimiter;
use super::optimizer::{JobStore as OptimizerJobs, JobStoreConfig};
use super::prng::{alphanumeric, SplitMix64};
use super::reply::ServiceReply;
use super::station_weather::GeneratedWeather;
use super::technical_potential::jobs::{FailureMode, JobStore, JobTiming};
use super::technical_potential::model::{TechnicalPotentialModel, LIVE_EXPLORER};
use crate::error::{Error, Result};
use crate::limits::{SERVICE_BODY_TIMEOUT, SERVICE_HEADER_TIMEOUT, SERVICE_MAX_HIT_PATHS};
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
    /// Requests per key per rolling window (the spec's: 1,000 per hour); `None` enforces no
    /// window and sends no `X-RateLimit-*` headers.
    pub requests_per_window: Option<u32>,
    pub window: Duration,
    pub faults: Option<FaultConfig>,
    /// Technical-potential explorers served besides `rede`.
    pub explorers: Vec<String>,
    /// How long technical-potential jobs stay queued and run.
    pub technical_potential_timing: JobTiming,
    /// Makes technical-potential jobs end in a failure status (tests of clients).
    pub technical_potential_failure: Option<FailureMode>,
    /// Per-user limits and queue of the climate download.
    pub climate_limits: JobLimits,
    /// Wait before building each climate download file (to observe "not ready" and a full queue).
    pub climate_build_delay: Duration,
    /// Every climate data set serves every point (its synthetic weather exists everywhere), to try
    /// sites away from a set's region; unknown data set names are still refused.
    pub climate_anywhere: bool,
    /// Optimizer job behaviour (the 404 race right after POST, runs that hang).
    pub optimizer: JobStoreConfig,
    /// The rate stand-in answers every well-formed URDB label (not only its catalogue's).
    pub urdb_any_label: bool,
    /// A connection that has not sent a whole request head after this is closed.
    pub header_timeout: Duration,
    /// A request whose body has not fully arrived after this is answered 408.
    pub body_timeout: Duration,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            port: 0,
            api_key: None,
            extra_keys: Vec::new(),
            requests_per_window: Some(crate::limits::request_rates::KEY_REQUESTS_PER_HOUR),
            window: Duration::from_secs(3600),
            faults: None,
            explorers: Vec::new(),
            technical_potential_timing: JobTiming::default(),
            technical_potential_failure: None,
            climate_limits: JobLimits::default(),
            climate_build_delay: Duration::ZERO,
            climate_anywhere: false,
            optimizer: JobStoreConfig::default(),
            urdb_any_label: false,
            header_timeout: SERVICE_HEADER_TIMEOUT,
            body_timeout: SERVICE_BODY_TIMEOUT,
        }
    }
}

/// State shared by every request of one running service.
pub struct ServiceState {
    pub catalog: &'static Catalog,
    pub station_weather: GeneratedWeather,
    pub technical_potential_model: &'static TechnicalPotentialModel,
    pub technical_potential_jobs: Mutex<JobStore>,
    pub explorers: Vec<String>,
    pub climate_jobs: Mutex<ClimateJobs<PreparedDownload>>,
    pub climate_builder_running: AtomicBool,
    pub climate_build_delay: Duration,
    pub climate_anywhere: bool,
    pub optimizer_jobs: OptimizerJobs,
    pub urdb_any_label: bool,
    /// `http://127.0.0.1:<port>`, known once the listener is bound (download URLs use it).
    pub base_url: OnceLock<String>,
    pub api_key: String,
    pub(crate) keys: HashSet<String>,
    /// The per-key rolling window, when the service enforces one.
    pub(crate) limiter: Option<Mutex<KeyLimiter>>,
    pub(crate) faults: Option<Mutex<FaultInjector>>,
    pub(crate) started: Instant,
    pub(crate) hits: Mutex<BTreeMap<String, u64>>,
    pub(crate) body_timeout: Duration,
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
        if config.requests_per_window == Some(0) {
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
            technical_potential_model: TechnicalPotentialModel::shared(),
            technical_potential_jobs: Mutex::new(match &config.technical_potential_failure {
                Some(failure) => JobStore::new(config.technical_potential_timing).with_failure(failure.clone()),
                None => JobStore::new(config.technical_potential_timing),
            }),
            explorers: std::iter::once(LIVE_EXPLORER.to_owned()).chain(config.explorers.iter().cloned()).collect(),
            climate_jobs: Mutex::new(ClimateJobs::new(config.climate_limits, SplitMix64::from_entropy().next_u64())),
            climate_builder_running: AtomicBool::new(false),
            climate_build_delay: config.climate_build_delay,
            climate_anywhere: config.climate_anywhere,
            base_url: OnceLock::new(),
            optimizer_jobs: OptimizerJobs::new(config.optimizer.clone()),
            urdb_any_label: config.urdb_any_label,
            api_key,
            keys,
            limiter: config.requests_per_window.map(|limit| Mutex::new(KeyLimiter::new(limit, config.window))),
            faults: config.faults.clone().map(|f| Mutex::new(FaultInjector::new(f))),
            started: Instant::now(),
            hits: Mutex::new(BTreeMap::new()),
            body_timeout: config.body_timeout,
        })
    }

    /// Time since the service started: its clock for uptime, rate limits and job times.
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// Requests that reached the service, by path: those that passed the key check (whatever
    /// their outcome) and downloads of files the service made. Past
    /// `limits::SERVICE_MAX_HIT_PATHS` distinct paths, new ones share [`OTHER_PATHS`].
    pub fn hits(&self) -> BTreeMap<String, u64> {
        lock(&self.hits).clone()
    }

    pub fn record_hit(&self, path: &str) {
        let mut hits = lock(&self.hits);
        let known = hits.contains_key(path) || hits.len() < SERVICE_MAX_HIT_PATHS;
        *hits.entry(if known { path.to_owned() } else { OTHER_PATHS.to_owned() }).or_default() += 1;
    }

    /// Whether a `Host` header names this service (127.0.0.1 or localhost, on its port).
    pub(crate) fn is_own_host(&self, host: Option<&str>) -> bool {
        let (Some(host), Some(base)) = (host, self.base_url.get()) else { return false };
        let port = base.rsplit(':').next().unwrap_or_default();
        ["127.0.0.1", "localhost"].iter().any(|name| host.eq_ignore_ascii_case(&format!("{name}:{port}")))
    }
}

/// The `hits()` key that counts the paths beyond the distinct-path limit.
pub const OTHER_PATHS: &str = "(other paths)";

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

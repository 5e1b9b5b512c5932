//! The embedded optimizer's job store: `submit` starts a solve on its own thread and returns a
//! run_uuid (UUID v4 text from SplitMix64); `lookup` answers the results endpoint.
//!
//! States and statuses (the service's strings):
//! - `Optimizing...` while the solve runs (outputs `{}`);
//! - `optimal` with outputs;
//! - `An error occurred. See messages for more.` (HTTP 200): timeout, infeasible or not
//!   optimal, or a scenario outside the supported subset; `messages.error` says which;
//! - `error` (HTTP 400): inputs the service's optimizer rejects at run time; `messages.errors`.
//!
//! `Settings.timeout_seconds` is enforced twice: the solver stops at the deadline, and a
//! lookup after the deadline ends a job still running with the timeout error (the solver is
//! told to stop; its late result is discarded). Switches for tests: `grace` makes a fresh
//! run_uuid unknown (404) for a while, as on the live service right after a POST, and `hang`
//! keeps new jobs at `Optimizing...` until their timeout.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use crate::calendar::iso8601_utc;
use crate::optimizer::in_process::{optimize_resolved, Failure};
use crate::optimizer::model;
use crate::optimizer::outputs::{self, BodyMeta};
use crate::optimizer::run::{RunError, INFEASIBLE_MESSAGE};
use crate::optimizer::scenario::timeout_seconds;
use crate::optimizer::solve::SolveControl;
use crate::embedded::prng::SplitMix64;

pub const STATUS_OPTIMIZING: &str = "Optimizing...";
pub const STATUS_OPTIMAL: &str = "optimal";
pub const STATUS_FAILED: &str = "An error occurred. See messages for more.";
pub const STATUS_ERROR: &str = "error";

/// How the store behaves.
#[derive(Debug, Clone, PartialEq)]
pub struct JobStoreConfig {
    /// A new run_uuid answers 404 for this long after the POST (zero: off).
    pub grace: Duration,
    /// New jobs never start solving and stay at `Optimizing...` until they time out.
    pub hang: bool,
    /// `job_type` of every body.
    pub job_type: String,
    /// `reopt_version` of every body.
    pub reopt_version: String,
}

impl Default for JobStoreConfig {
    fn default() -> Self {
        JobStoreConfig {
            grace: Duration::ZERO,
            hang: false,
            job_type: "sunflux.local".into(),
            reopt_version: concat!("sunflux-local-lp-", env!("CARGO_PKG_VERSION")).into(),
        }
    }
}

/// What the lead hands over for one accepted POST.
#[derive(Debug, Clone, Default)]
pub struct Submission {
    /// The scenario with defaults resolved (`Scenario.to_dict(include_defaults=True)`).
    pub scenario: Value,
    /// The local PV engine's production factor at the site for each PV array that needs one.
    pub pv_production: Vec<Option<Vec<f64>>>,
    /// Validator messages to show from the start (e.g. `info`, `resampled inputs`).
    pub messages: Map<String, Value>,
}

/// The answer to a results lookup.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// The id is not a hexadecimal UUID.
    BadlyFormed,
    /// No such job (or it is still inside the grace period).
    NotFound,
    Found { status: String, body: Value },
}

#[derive(Debug, Clone)]
enum JobState {
    Optimizing,
    Optimal { outputs: Arc<Value> },
    Failed { message: String },
    Error { messages: Value },
}

struct Job {
    posted: Instant,
    deadline: Instant,
    timeout_seconds: f64,
    meta: BodyMeta,
    inputs: Arc<Value>,
    messages: Map<String, Value>,
    state: JobState,
    cancel: Arc<AtomicBool>,
}

struct Shared {
    config: Mutex<JobStoreConfig>,
    jobs: Mutex<HashMap<String, Job>>,
    rng: Mutex<SplitMix64>,
}

/// A cloneable handle on the store (the HTTP layer keeps one in its state).
#[derive(Clone)]
pub struct JobStore {
    shared: Arc<Shared>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A random UUID v4 in canonical lowercase text.
pub fn uuid_v4(rng: &mut SplitMix64) -> String {
    let high = rng.next_u64();
    let low = rng.next_u64();
    let high = (high & !0xF000) | 0x4000;
    let low = (low & !(0b11 << 62)) | (0b10 << 62);
    let hex = format!("{high:016x}{low:016x}");
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

/// Python's `uuid.UUID(text)` acceptance, canonicalized: optional `urn:uuid:` prefix, optional
/// braces, hyphens anywhere, exactly 32 hex digits. None when badly formed.
pub fn canonical_uuid(text: &str) -> Option<String> {
    let trimmed = text.strip_prefix("urn:").unwrap_or(text);
    let trimmed = trimmed.strip_prefix("uuid:").unwrap_or(trimmed);
    let trimmed = trimmed.trim_matches(|c| c == '{' || c == '}');
    let hex: String = trimmed.chars().filter(|&c| c != '-').collect();
    if hex.len() != 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let hex = hex.to_ascii_lowercase();
    Some(format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32]))
}

/// A top-level id string kept only when it has a UUID's length (the service's rule).
fn top_level_id(scenario: &Value, key: &str) -> String {
    scenario.get(key).and_then(Value::as_str).filter(|s| s.len() == 36).unwrap_or("").to_string()
}

/// The service's support text appended to task-failure messages.
pub fn support_suffix(run_uuid: &str) -> String {
    format!(
        " Please visit https://github.com/NREL/REopt-API-Analysis/discussions for support with common API usage issues. You can also email reopt@nrel.gov with your run_uuid ({run_uuid}) for support."
    )
}

/// `messages.error` of a timed-out job.
pub fn timeout_message(timeout_seconds: f64, run_uuid: &str) -> String {
    format!("Optimization exceeded timeout: {} seconds.{}", timeout_seconds.round() as i64, support_suffix(run_uuid))
}


/// The outcome of one job's work.
enum Outcome {
    /// The outputs.
    Optimal(Value),
    Failed(String),
    Error(Value),
    Abandoned,
}

/// Reads, optimizes and writes the outputs of one scenario (runs on the job's thread).
fn work(submission: &Submission, run_uuid: &str, control: &SolveControl) -> (Outcome, Vec<model::FilledDefault>, Option<Value>) {
    let attempt = optimize_resolved(&submission.scenario, &submission.pv_production, control);
    let outcome = match attempt.outcome {
        Ok(optimal) => Outcome::Optimal(optimal.outputs),
        Err(Failure::Unsupported(message)) => Outcome::Failed(message),
        Err(Failure::Invalid(problems)) => Outcome::Error(json!({"local_optimizer_inputs": problems})),
        Err(Failure::Run(RunError::Infeasible)) => Outcome::Failed(INFEASIBLE_MESSAGE.into()),
        Err(Failure::Run(RunError::TimedOut)) => Outcome::Failed(timeout_message(timeout_seconds(&submission.scenario), run_uuid)),
        Err(Failure::Run(RunError::Cancelled)) => Outcome::Abandoned,
        Err(Failure::Run(RunError::Failed(reason))) => Outcome::Failed(format!(
            "REopt could not find an optimal solution for these inputs. (local optimizer: {reason}){}",
            support_suffix(run_uuid)
        )),
    };
    (outcome, attempt.filled, attempt.resampled)
}

impl Default for JobStore {
    fn default() -> Self {
        JobStore::new(JobStoreConfig::default())
    }
}

impl JobStore {
    pub fn new(config: JobStoreConfig) -> Self {
        JobStore {
            shared: Arc::new(Shared {
                config: Mutex::new(config),
                jobs: Mutex::new(HashMap::new()),
                rng: Mutex::new(SplitMix64::from_entropy()),
            }),
        }
    }

    pub fn config(&self) -> JobStoreConfig {
        lock(&self.shared.config).clone()
    }

    pub fn set_grace(&self, grace: Duration) {
        lock(&self.shared.config).grace = grace;
    }

    pub fn set_hang(&self, hang: bool) {
        lock(&self.shared.config).hang = hang;
    }

    /// Number of jobs held.
    pub fn len(&self) -> usize {
        lock(&self.shared.jobs).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Accepts a validated scenario: registers the job and starts its solve. Returns the run_uuid.
    pub fn submit(&self, submission: Submission) -> String {
        let config = self.config();
        let run_uuid = uuid_v4(&mut lock(&self.shared.rng));
        let timeout_seconds = timeout_seconds(&submission.scenario);
        let posted = Instant::now();
        let deadline = posted + crate::limits::clamped_seconds(timeout_seconds);
        let cancel = Arc::new(AtomicBool::new(false));
        let created = iso8601_utc(SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default());
        let meta = BodyMeta {
            run_uuid: run_uuid.clone(),
            user_uuid: top_level_id(&submission.scenario, "user_uuid"),
            webtool_uuid: top_level_id(&submission.scenario, "webtool_uuid"),
            job_type: config.job_type.clone(),
            created,
            reopt_version: config.reopt_version.clone(),
        };
        let job = Job {
            posted,
            deadline,
            timeout_seconds,
            meta,
            inputs: Arc::new(outputs::inputs_echo(&submission.scenario, &[])),
            messages: submission.messages.clone(),
            state: JobState::Optimizing,
            cancel: cancel.clone(),
        };
        lock(&self.shared.jobs).insert(run_uuid.clone(), job);
        if !config.hang {
            let store = self.clone();
            let id = run_uuid.clone();
            let control = SolveControl { deadline: Some(deadline), cancel: Some(cancel) };
            let spawned = std::thread::Builder::new().name(format!("optimizer-{}", &id[..8])).spawn(move || {
                let (outcome, filled, resampled) = work(&submission, &id, &control);
                store.finish(&id, outcome, &submission.scenario, &filled, resampled);
            });
            if spawned.is_err() {
                self.finish(&run_uuid, Outcome::Failed(format!("Unexpected Error.{}", support_suffix(&run_uuid))), &Value::Null, &[], None);
            }
        }
        run_uuid
    }

    /// Records a job's outcome unless it already ended (e.g. timed out while solving).
    fn finish(&self, run_uuid: &str, outcome: Outcome, scenario: &Value, filled: &[model::FilledDefault], resampled: Option<Value>) {
        let mut jobs = lock(&self.shared.jobs);
        let Some(job) = jobs.get_mut(run_uuid) else { return };
        if !matches!(job.state, JobState::Optimizing) {
            return;
        }
        if Instant::now() >= job.deadline {
            job.state = JobState::Failed { message: timeout_message(job.timeout_seconds, run_uuid) };
            return;
        }
        if !filled.is_empty() {
            job.inputs = Arc::new(outputs::inputs_echo(scenario, filled));
        }
        if let Some(resampled) = resampled {
            job.messages.insert("resampled inputs".into(), resampled);
        }
        job.state = match outcome {
            Outcome::Optimal(outputs) => JobState::Optimal { outputs: Arc::new(outputs) },
            Outcome::Failed(message) => JobState::Failed { message },
            Outcome::Error(errors) => JobState::Error { messages: errors },
            Outcome::Abandoned => JobState::Failed { message: timeout_message(job.timeout_seconds, run_uuid) },
        };
    }

    /// Answers `GET job/<run_uuid>/results/`.
    pub fn lookup(&self, run_uuid: &str) -> Lookup {
        let Some(id) = canonical_uuid(run_uuid) else { return Lookup::BadlyFormed };
        let grace = self.config().grace;
        let mut jobs = lock(&self.shared.jobs);
        let Some(job) = jobs.get_mut(&id) else { return Lookup::NotFound };
        let now = Instant::now();
        if now.duration_since(job.posted) < grace {
            return Lookup::NotFound;
        }
        if matches!(job.state, JobState::Optimizing) && now >= job.deadline {
            job.cancel.store(true, Ordering::Relaxed);
            job.state = JobState::Failed { message: timeout_message(job.timeout_seconds, &id) };
        }
        let (status, outputs, messages) = match &job.state {
            JobState::Optimizing => (STATUS_OPTIMIZING, json!({}), Value::Object(job.messages.clone())),
            JobState::Optimal { outputs } => (STATUS_OPTIMAL, (**outputs).clone(), reopt_messages(&job.messages, json!({}))),
            JobState::Failed { message } => {
                let mut messages = job.messages.clone();
                messages.insert("error".into(), Value::from(message.as_str()));
                (STATUS_FAILED, json!({}), Value::Object(messages))
            }
            JobState::Error { messages } => (STATUS_ERROR, json!({}), reopt_messages(&job.messages, messages.clone())),
        };
        Lookup::Found { status: status.to_string(), body: outputs::results_body(&job.meta, status, &job.inputs, outputs, messages) }
    }

    /// Stops every running solve (for shutdown); their jobs end as timed out when looked up.
    pub fn cancel_all(&self) {
        for job in lock(&self.shared.jobs).values() {
            job.cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Forgets a job (its solve, if running, is told to stop).
    pub fn remove(&self, run_uuid: &str) -> bool {
        let Some(id) = canonical_uuid(run_uuid) else { return false };
        match lock(&self.shared.jobs).remove(&id) {
            Some(job) => {
                job.cancel.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }
}

/// Validator messages plus the optimizer's `errors`, `warnings` (only the submission's, e.g. a
/// stand-in's note) and `has_stacktrace` (the shape of a finished run's messages).
fn reopt_messages(validator: &Map<String, Value>, errors: Value) -> Value {
    let mut messages = validator.clone();
    messages.insert("errors".into(), errors);
    messages.entry("warnings").or_insert_with(|| json!({}));
    messages.insert("has_stacktrace".into(), Value::Bool(false));
    Value::Object(messages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4_and_parse_like_python() {
        let mut rng = SplitMix64::new(1);
        let id = uuid_v4(&mut rng);
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"));
        assert_eq!(canonical_uuid(&id.to_uppercase()).as_deref(), Some(id.as_str()));
        assert_eq!(canonical_uuid(&format!("{{{}}}", id.replace('-', ""))).as_deref(), Some(id.as_str()));
        assert_eq!(canonical_uuid("not-a-uuid"), None);
    }

    #[test]
    fn hung_jobs_time_out_on_lookup() {
        let store = JobStore::new(JobStoreConfig { hang: true, ..JobStoreConfig::default() });
        let id = store.submit(Submission { scenario: json!({"Settings": {"timeout_seconds": 1}}), ..Submission::default() });
        let Lookup::Found { status, .. } = store.lookup(&id) else { panic!("job must exist") };
        assert_eq!(status, STATUS_OPTIMIZING);
        std::thread::sleep(Duration::from_millis(1100));
        let Lookup::Found { status, body } = store.lookup(&id) else { panic!("job must exist") };
        assert_eq!(status, STATUS_FAILED);
        assert!(body["messages"]["error"].as_str().unwrap().starts_with("Optimization exceeded timeout: 1 seconds."));
    }

    #[test]
    fn grace_hides_new_jobs() {
        let store = JobStore::new(JobStoreConfig { hang: true, grace: Duration::from_secs(60), ..JobStoreConfig::default() });
        let id = store.submit(Submission::default());
        assert_eq!(store.lookup(&id), Lookup::NotFound);
        assert_eq!(store.lookup("xyz"), Lookup::BadlyFormed);
    }
}

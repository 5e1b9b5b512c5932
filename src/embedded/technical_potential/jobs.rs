//! The embedded technical-potential service's job store: the spec's state table with an
//! injectable clock (every call takes `now`), so tests drive it with made-up instants.
//!
//! - POST: a validated job gets the id `tpot_result_<region>_<n>` (region label in lower case,
//!   other characters as `_`; n counts from 1001 per store) and is `queued`.
//! - A job is `queued` until `start_delay` has passed since its POST, then `started` for
//!   `run_time`, then `finished`; `runtime_seconds` counts from the start (0 while queued; the
//!   full `run_time` once finished), rounded to 0.01 s.
//! - The result is computed once, the first time the job is seen after its finish time, and kept.
//! - DELETE of a finished job destroys its map assets: the result then reports
//!   `map_data_deleted: true` while the summary (the results) stays. Deleting again is allowed
//!   and changes nothing. DELETE of a queued or started job is refused (409): the state table
//!   only moves finished jobs.
//! - Unknown job ids are refused (404).
//! - Failure injection for tests: a [`FailureMode`] makes jobs (all, or one region's) end in a
//!   status of its choosing (e.g. `failed`) with its errors instead of `finished`, because the
//!   spec does not show the status of a job that ends with errors.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::embedded::technical_potential::model::{analyse, TechnicalPotentialModel};
use crate::services::technical_potential::{JobRequest, JobResult, JobResultData, JobStatus, JobSubmission};

/// The number of a store's first job.
pub const FIRST_JOB_NUMBER: u64 = 1001;

/// The status of a job that could not be run (its region or resource is not in the model).
const FAILED_STATUS: &str = "failed";

/// How long jobs wait and run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobTiming {
    /// From POST to `started`.
    pub start_delay: Duration,
    /// From `started` to `finished`.
    pub run_time: Duration,
}

impl Default for JobTiming {
    /// Half a second queued, two seconds running: slow enough to see every state, fast enough
    /// for notebooks.
    fn default() -> Self {
        JobTiming { start_delay: Duration::from_millis(500), run_time: Duration::from_secs(2) }
    }
}

/// Makes jobs end in a failure status instead of `finished` (for testing clients).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureMode {
    /// The status a failing job ends in.
    pub status: String,
    /// Its `errors`.
    pub errors: Vec<String>,
    /// Only jobs of this region (id or label, case-insensitive); `None`: every job.
    pub region: Option<String>,
}

impl FailureMode {
    /// Every job ends in `status` with one error message.
    pub fn new(status: impl Into<String>, message: impl Into<String>) -> FailureMode {
        FailureMode { status: status.into(), errors: vec![message.into()], region: None }
    }

    /// Only jobs of one region fail.
    pub fn for_region(self, region: impl Into<String>) -> FailureMode {
        FailureMode { region: Some(region.into()), ..self }
    }

    fn applies_to(&self, request: &JobRequest) -> bool {
        self.region.as_deref().is_none_or(|region| {
            let region = region.trim();
            region == request.region_id.to_string() || region.eq_ignore_ascii_case(&request.region_label)
        })
    }
}

/// Why a job request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JobError {
    #[error("no job with jobId '{0}'")]
    Unknown(String),
    #[error("job '{job_id}' is {status}: only a finished job can be deleted")]
    NotFinished { job_id: String, status: String },
}

impl JobError {
    /// 404 for an unknown job, 409 for a DELETE before the job finished.
    pub fn http_status(&self) -> u16 {
        match self {
            JobError::Unknown(_) => 404,
            JobError::NotFinished { .. } => 409,
        }
    }
}

/// How a job ended.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Finished(JobResultData),
    Failed { status: String, errors: Vec<String> },
}

#[derive(Debug, Clone)]
struct Job {
    request: JobRequest,
    created: Instant,
    failure: Option<FailureMode>,
    outcome: Option<Outcome>,
    map_data_deleted: bool,
}

/// Where a job is at an instant.
#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Queued,
    Started(Duration),
    Done(Outcome),
}

/// Every job of one embedded service.
#[derive(Debug, Clone)]
pub struct JobStore {
    timing: JobTiming,
    failure: Option<FailureMode>,
    jobs: HashMap<String, Job>,
    next_number: u64,
}

impl JobStore {
    pub fn new(timing: JobTiming) -> JobStore {
        JobStore { timing, failure: None, jobs: HashMap::new(), next_number: FIRST_JOB_NUMBER }
    }

    /// Jobs submitted from now on fail as `failure` says.
    pub fn with_failure(self, failure: FailureMode) -> JobStore {
        JobStore { failure: Some(failure), ..self }
    }

    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Queues a validated job and returns its id.
    pub fn submit(&mut self, request: JobRequest, now: Instant) -> JobSubmission {
        let job_id = format!("tpot_result_{}_{}", slug(&request.region_label), self.next_number);
        self.next_number += 1;
        let failure = self.failure.clone().filter(|failure| failure.applies_to(&request));
        self.jobs
            .insert(job_id.clone(), Job { request, created: now, failure, outcome: None, map_data_deleted: false });
        JobSubmission { job_id, status: JobStatus::Queued }
    }

    /// The job as a poll sees it at `now`.
    pub fn poll(&mut self, model: &TechnicalPotentialModel, job_id: &str, now: Instant) -> Result<JobResult, JobError> {
        let timing = self.timing;
        let job = self.jobs.get_mut(job_id).ok_or_else(|| JobError::Unknown(job_id.to_string()))?;
        let phase = job.settle(model, timing, now);
        Ok(job.view(job_id, phase, timing))
    }

    /// Destroys a finished job's map assets and answers like a poll afterwards.
    pub fn delete(&mut self, model: &TechnicalPotentialModel, job_id: &str, now: Instant) -> Result<JobResult, JobError> {
        let timing = self.timing;
        let job = self.jobs.get_mut(job_id).ok_or_else(|| JobError::Unknown(job_id.to_string()))?;
        let phase = job.settle(model, timing, now);
        if !matches!(phase, Phase::Done(_)) {
            let status = job.view(job_id, phase, timing).status;
            return Err(JobError::NotFinished { job_id: job_id.to_string(), status: status.as_str().to_string() });
        }
        job.map_data_deleted = true;
        Ok(job.view(job_id, phase, timing))
    }
}

impl Job {
    /// The phase at `now`; a job past its finish time gets its outcome (once).
    fn settle(&mut self, model: &TechnicalPotentialModel, timing: JobTiming, now: Instant) -> Phase {
        let elapsed = now.saturating_duration_since(self.created);
        if elapsed < timing.start_delay {
            Phase::Queued
        } else if elapsed < timing.start_delay + timing.run_time {
            Phase::Started(elapsed - timing.start_delay)
        } else {
            let outcome = match &self.outcome {
                Some(outcome) => outcome.clone(),
                None => self.outcome.insert(self.run(model)).clone(),
            };
            Phase::Done(outcome)
        }
    }

    fn run(&self, model: &TechnicalPotentialModel) -> Outcome {
        if let Some(failure) = &self.failure {
            return Outcome::Failed { status: failure.status.clone(), errors: failure.errors.clone() };
        }
        let request = &self.request;
        let country = model.country(request.region_id);
        match country.and_then(|country| country.resource(request.resource_id).map(|resource| (country, resource))) {
            Some((country, resource)) => Outcome::Finished(analyse(country, resource, &request.filters)),
            None => Outcome::Failed {
                status: FAILED_STATUS.to_string(),
                errors: vec![format!(
                    "resource {} of region {} is not available in this service",
                    request.resource_id, request.region_id
                )],
            },
        }
    }

    fn view(&self, job_id: &str, phase: Phase, timing: JobTiming) -> JobResult {
        let base = |status: JobStatus, runtime: Duration| JobResult {
            job_id: Some(job_id.to_string()),
            disposition: Some(status.as_str().to_string()),
            status,
            runtime_seconds: Some(round2(runtime.as_secs_f64())),
            map_data_deleted: None,
            results: None,
            errors: Vec::new(),
        };
        match phase {
            Phase::Queued => base(JobStatus::Queued, Duration::ZERO),
            Phase::Started(runtime) => base(JobStatus::Started, runtime),
            Phase::Done(Outcome::Finished(results)) => JobResult {
                map_data_deleted: Some(self.map_data_deleted),
                results: Some(results),
                ..base(JobStatus::Finished, timing.run_time)
            },
            Phase::Done(Outcome::Failed { status, errors }) => {
                JobResult { errors, ..base(JobStatus::parse(&status), timing.run_time) }
            }
        }
    }
}

/// A region label as it appears in job ids: lower case, anything but letters and digits as `_`.
fn slug(label: &str) -> String {
    label.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect()
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::technical_potential::validate_job;
    use serde_json::{json, Map, Value};

    const TIMING: JobTiming = JobTiming { start_delay: Duration::from_secs(1), run_time: Duration::from_secs(10) };

    fn request(model: &TechnicalPotentialModel, region: &str, resource: &str, fields: Value) -> JobRequest {
        let fields: Map<String, Value> = fields.as_object().cloned().unwrap_or_default();
        validate_job(model.configuration(), region, resource, &fields).unwrap()
    }

    fn at(base: Instant, seconds: f64) -> Instant {
        base + crate::limits::clamped_seconds(seconds)
    }

    #[test]
    fn ids_name_the_region_and_count_up() {
        let model = TechnicalPotentialModel::synthetic();
        let mut store = JobStore::new(TIMING);
        let now = Instant::now();
        let first = store.submit(request(&model, "India", "fixlat", json!({})), now);
        let second = store.submit(request(&model, "3", "axis1", json!({})), now);
        assert_eq!(first, JobSubmission { job_id: "tpot_result_india_1001".into(), status: JobStatus::Queued });
        assert_eq!(second.job_id, "tpot_result_bangladesh_1002");
        assert_eq!(store.len(), 2);
        assert_eq!(slug("Andaman and Nicobar"), "andaman_and_nicobar");
    }

    #[test]
    fn a_job_moves_queued_started_finished() {
        let model = TechnicalPotentialModel::synthetic();
        let mut store = JobStore::new(TIMING);
        let base = Instant::now();
        let id = store.submit(request(&model, "6", "32", json!({})), base).job_id;
        let queued = store.poll(&model, &id, at(base, 0.5)).unwrap();
        assert_eq!((queued.status.clone(), queued.runtime_seconds), (JobStatus::Queued, Some(0.0)));
        assert!(queued.results.is_none() && queued.map_data_deleted.is_none());
        let started = store.poll(&model, &id, at(base, 4.25)).unwrap();
        assert_eq!((started.status.clone(), started.runtime_seconds), (JobStatus::Started, Some(3.25)));
        assert_eq!(started.disposition.as_deref(), Some("started"));
        let finished = store.poll(&model, &id, at(base, 11.0)).unwrap();
        assert_eq!(finished.status, JobStatus::Finished);
        assert_eq!((finished.runtime_seconds, finished.map_data_deleted), (Some(10.0), Some(false)));
        assert!(finished.results.as_ref().unwrap().cumulative_stats.total_nameplate_capacity_mw > 0.0);
        assert_eq!(store.poll(&model, &id, at(base, 500.0)).unwrap(), finished);
    }

    #[test]
    fn polling_before_the_post_instant_reads_as_queued() {
        let model = TechnicalPotentialModel::synthetic();
        let mut store = JobStore::new(TIMING);
        let base = Instant::now() + Duration::from_secs(5);
        let id = store.submit(request(&model, "6", "14", json!({})), base).job_id;
        assert_eq!(store.poll(&model, &id, base - Duration::from_secs(1)).unwrap().status, JobStatus::Queued);
    }

    #[test]
    fn delete_keeps_the_summary_and_marks_map_data_deleted() {
        let model = TechnicalPotentialModel::synthetic();
        let mut store = JobStore::new(TIMING);
        let base = Instant::now();
        let id = store.submit(request(&model, "Kenya", "csp", json!({"excludeProtectedAreas": true})), base).job_id;
        let early = store.delete(&model, &id, at(base, 2.0)).unwrap_err();
        assert_eq!(early, JobError::NotFinished { job_id: id.clone(), status: "started".into() });
        assert_eq!(early.http_status(), 409);
        let before = store.poll(&model, &id, at(base, 12.0)).unwrap();
        let deleted = store.delete(&model, &id, at(base, 13.0)).unwrap();
        assert_eq!(deleted.map_data_deleted, Some(true));
        assert_eq!(deleted.results, before.results);
        assert_eq!(deleted.status, JobStatus::Finished);
        assert_eq!(store.poll(&model, &id, at(base, 14.0)).unwrap(), deleted);
        assert_eq!(store.delete(&model, &id, at(base, 15.0)).unwrap(), deleted);
    }

    #[test]
    fn unknown_ids_are_refused() {
        let model = TechnicalPotentialModel::synthetic();
        let mut store = JobStore::new(TIMING);
        let now = Instant::now();
        let error = store.poll(&model, "tpot_result_nowhere_1", now).unwrap_err();
        assert_eq!(error.http_status(), 404);
        assert_eq!(error.to_string(), "no job with jobId 'tpot_result_nowhere_1'");
        assert!(store.delete(&model, "nope", now).is_err());
    }

    #[test]
    fn failure_mode_ends_matching_jobs_in_its_status() {
        let model = TechnicalPotentialModel::synthetic();
        let failure = FailureMode::new("failed", "raster processing failed").for_region("bangladesh");
        let mut store = JobStore::new(TIMING).with_failure(failure);
        let base = Instant::now();
        let failing = store.submit(request(&model, "3", "fixlat", json!({})), base).job_id;
        let fine = store.submit(request(&model, "6", "fixlat", json!({})), base).job_id;
        assert_eq!(store.poll(&model, &failing, at(base, 2.0)).unwrap().status, JobStatus::Started);
        let failed = store.poll(&model, &failing, at(base, 20.0)).unwrap();
        assert_eq!(failed.status, JobStatus::Failed("failed".into()));
        assert_eq!(failed.errors, vec!["raster processing failed".to_string()]);
        assert!(failed.results.is_none());
        assert_eq!(store.poll(&model, &fine, at(base, 20.0)).unwrap().status, JobStatus::Finished);
        assert_eq!(store.delete(&model, &failing, at(base, 21.0)).unwrap().status, JobStatus::Failed("failed".into()));
    }
}

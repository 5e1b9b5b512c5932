//! Bookkeeping of the embedded climate download service, as pure logic with an injected clock
//! (every call takes `now`, a `Duration` since any fixed origin): per-user limits, the bounded
//! job queue, the state of each download job, the finished files and the "outbox" of e-mails
//! the service would have sent. The HTTP layer holds it behind a lock and runs the zip builds.
//!
//! Rules (spec "Limits", numbers from `limits::request_rates`; all configurable in `JobLimits`):
//! - csv requests and json requests: each at most one per minimum interval and a number per
//!   rolling 24 h per user. Spacing is measured between admitted requests; refused requests do
//!   not count. A refusal says when to retry.
//! - A cap on requests in flight per user: csv streams being answered plus the user's jobs
//!   that are queued or building.
//! - The queue holds at most `queue_capacity` unfinished (queued or building) jobs over all
//!   users; beyond that a json request is refused with "queue is full".
//! - A job goes queued → building → ready (or failed). Its id is 32 random hex digits and its
//!   download URL holds no key. On ready (or failed) an e-mail to the request's address lands in
//!   the outbox. Finished jobs and their files are kept for `keep_files_for`, then forgotten.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use crate::embedded::prng::SplitMix64;
use crate::limits::request_rates;
use crate::embedded::climate::grid::SiteInfo;
use crate::services::climate::ClimateParams;
use serde_json::Value;

const DAY: Duration = Duration::from_secs(86_400);

/// A validated json request with its sites, ready to queue.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedDownload {
    pub params: ClimateParams,
    pub sites: Vec<SiteInfo>,
    /// The `inputs` echo of the request.
    pub inputs: Value,
}

/// At most one request per `min_interval` and `per_day` per rolling 24 hours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub min_interval: Duration,
    pub per_day: u32,
}

/// The service's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobLimits {
    pub csv: RateLimit,
    pub json: RateLimit,
    pub max_in_flight_per_user: usize,
    /// Unfinished jobs the queue holds before refusing.
    pub queue_capacity: usize,
    /// How long a finished job's file and status are kept.
    pub keep_files_for: Duration,
}

impl Default for JobLimits {
    /// The spec's limits; a queue of 100 jobs; files kept for 24 hours.
    fn default() -> Self {
        JobLimits {
            csv: RateLimit { min_interval: request_rates::CLIMATE_CSV_INTERVAL, per_day: request_rates::CLIMATE_CSV_PER_DAY },
            json: RateLimit { min_interval: request_rates::CLIMATE_OTHER_INTERVAL, per_day: request_rates::CLIMATE_OTHER_PER_DAY },
            max_in_flight_per_user: request_rates::CLIMATE_IN_FLIGHT,
            queue_capacity: 100,
            keep_files_for: DAY,
        }
    }
}

/// The two request classes with their own limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RequestKind {
    Csv,
    Json,
}

impl RequestKind {
    fn label(self) -> &'static str {
        match self {
            RequestKind::Csv => "csv",
            RequestKind::Json => "json",
        }
    }
}

/// Why a request was not admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Too soon after the previous request, or the daily quota is used up.
    RateLimited { kind: RequestKind, retry_after: Duration, message: String },
    /// The user already has the maximum number of requests in flight.
    TooManyInFlight { limit: usize },
    /// The job queue is full.
    QueueFull { capacity: usize },
}

impl Refusal {
    /// The message the service answers with.
    pub fn message(&self) -> String {
        match self {
            Refusal::RateLimited { message, .. } => message.clone(),
            Refusal::TooManyInFlight { limit } => format!(
                "You have {limit} climate download requests in flight, the most allowed per user: wait for one to finish, then retry."
            ),
            Refusal::QueueFull { capacity } => format!(
                "The download request queue is full ({capacity} requests waiting): the service is not accepting more requests right now; try again later."
            ),
        }
    }

    /// A suggested wait before retrying.
    pub fn retry_after(&self) -> Duration {
        match self {
            Refusal::RateLimited { retry_after, .. } => *retry_after,
            Refusal::TooManyInFlight { .. } => Duration::from_secs(1),
            Refusal::QueueFull { .. } => Duration::from_secs(5),
        }
    }
}

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    Queued,
    Building,
    Ready,
    Failed,
}

impl JobState {
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Building => "building",
            JobState::Ready => "ready",
            JobState::Failed => "failed",
        }
    }

    fn is_finished(self) -> bool {
        matches!(self, JobState::Ready | JobState::Failed)
    }
}

/// A job as it can be shown (no file bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobStatus {
    pub id: String,
    pub state: JobState,
    pub email: String,
    pub download_url: String,
    pub submitted_at: Duration,
    pub finished_at: Option<Duration>,
    pub error: Option<String>,
}

/// What the download URL of a job serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Download {
    /// No such job (never existed or expired).
    Unknown,
    /// Queued or building.
    NotReady(JobState),
    Ready(Bytes),
    Failed(String),
}

/// An e-mail the service would have sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email {
    pub to: String,
    pub subject: String,
    pub body: String,
    pub sent_at: Duration,
}

/// Proof that a csv request was admitted; give it back with `finish_csv` when the answer is sent.
#[derive(Debug, PartialEq, Eq)]
pub struct CsvPermit {
    user: String,
}

/// A download job to queue.
#[derive(Debug, Clone, PartialEq)]
pub struct NewJob<P> {
    /// Who asked (the key the gateway accepted); used only for limits.
    pub user: String,
    /// Where the e-mail goes.
    pub email: String,
    /// One line describing the request, quoted in the e-mail.
    pub description: String,
    /// What the zip builder needs.
    pub payload: P,
}

#[derive(Debug)]
struct Job<P> {
    user: String,
    email: String,
    description: String,
    download_url: String,
    payload: Arc<P>,
    state: JobState,
    submitted_at: Duration,
    finished_at: Option<Duration>,
    file: Option<Bytes>,
    error: Option<String>,
}

#[derive(Debug, Default)]
struct Usage {
    csv: VecDeque<Duration>,
    json: VecDeque<Duration>,
    csv_streams: usize,
}

impl Usage {
    fn log(&mut self, kind: RequestKind) -> &mut VecDeque<Duration> {
        match kind {
            RequestKind::Csv => &mut self.csv,
            RequestKind::Json => &mut self.json,
        }
    }
}

/// The climate download service's state. `P` is the payload the zip builder needs.
#[derive(Debug)]
pub struct ClimateJobs<P> {
    limits: JobLimits,
    rng: SplitMix64,
    jobs: HashMap<String, Job<P>>,
    queue: VecDeque<String>,
    usage: HashMap<String, Usage>,
    outbox: Vec<Email>,
}

impl<P> ClimateJobs<P> {
    /// Empty bookkeeping; `seed` drives the job ids (use `SplitMix64::from_entropy` in a server).
    pub fn new(limits: JobLimits, seed: u64) -> Self {
        ClimateJobs {
            limits,
            rng: SplitMix64::new(seed),
            jobs: HashMap::new(),
            queue: VecDeque::new(),
            usage: HashMap::new(),
            outbox: Vec::new(),
        }
    }

    pub fn limits(&self) -> &JobLimits {
        &self.limits
    }

    /// Requests of `user` in flight: csv streams plus queued or building jobs.
    pub fn in_flight(&self, user: &str) -> usize {
        let streams = self.usage.get(user).map_or(0, |u| u.csv_streams);
        streams + self.jobs.values().filter(|job| job.user == user && !job.state.is_finished()).count()
    }

    /// Unfinished jobs (queued or building) over all users.
    pub fn unfinished_jobs(&self) -> usize {
        self.jobs.values().filter(|job| !job.state.is_finished()).count()
    }

    /// Admits a csv request or says why not; the permit counts as in flight until `finish_csv`.
    pub fn admit_csv(&mut self, user: &str, now: Duration) -> Result<CsvPermit, Refusal> {
        self.check_rate(user, RequestKind::Csv, now)?;
        self.check_in_flight(user)?;
        self.record(user, RequestKind::Csv, now);
        self.usage.entry(user.to_string()).or_default().csv_streams += 1;
        Ok(CsvPermit { user: user.to_string() })
    }

    /// The csv answer of a permit has been sent.
    pub fn finish_csv(&mut self, permit: CsvPermit) {
        if let Some(usage) = self.usage.get_mut(&permit.user) {
            usage.csv_streams = usage.csv_streams.saturating_sub(1);
        }
    }

    /// Queues a download job or says why not. `url_for` makes the download URL from the new id.
    pub fn submit(
        &mut self,
        job: NewJob<P>,
        now: Duration,
        url_for: impl FnOnce(&str) -> String,
    ) -> Result<JobStatus, Refusal> {
        self.check_rate(&job.user, RequestKind::Json, now)?;
        self.check_in_flight(&job.user)?;
        if self.unfinished_jobs() >= self.limits.queue_capacity {
            return Err(Refusal::QueueFull { capacity: self.limits.queue_capacity });
        }
        self.record(&job.user, RequestKind::Json, now);
        let id = self.new_id();
        let download_url = url_for(&id);
        self.jobs.insert(
            id.clone(),
            Job {
                user: job.user,
                email: job.email,
                description: job.description,
                download_url,
                payload: Arc::new(job.payload),
                state: JobState::Queued,
                submitted_at: now,
                finished_at: None,
                file: None,
                error: None,
            },
        );
        self.queue.push_back(id.clone());
        self.status(&id).ok_or(Refusal::QueueFull { capacity: self.limits.queue_capacity })
    }

    /// Takes the oldest queued job for building: its id and payload.
    pub fn start_next(&mut self) -> Option<(String, Arc<P>)> {
        while let Some(id) = self.queue.pop_front() {
            if let Some(job) = self.jobs.get_mut(&id).filter(|job| job.state == JobState::Queued) {
                job.state = JobState::Building;
                return Some((id, job.payload.clone()));
            }
        }
        None
    }

    /// A job's file is built: the job is ready and its e-mail is sent. False for an unknown or
    /// finished job.
    pub fn complete(&mut self, id: &str, file: Bytes, now: Duration) -> bool {
        let keep_hours = self.limits.keep_files_for.as_secs() / 3600;
        let Some(job) = self.jobs.get_mut(id).filter(|job| !job.state.is_finished()) else { return false };
        job.state = JobState::Ready;
        job.finished_at = Some(now);
        job.file = Some(file);
        self.outbox.push(Email {
            to: job.email.clone(),
            subject: "Your climate data download is ready".to_string(),
            body: format!(
                "{}\n\nYour file (a zip of CSV files, one per site and year) is ready:\n{}\n\nThe link works for {keep_hours} hours.",
                job.description, job.download_url
            ),
            sent_at: now,
        });
        true
    }

    /// A job's build failed: the job is failed and an e-mail says why. False for an unknown
    /// or finished job.
    pub fn fail(&mut self, id: &str, error: &str, now: Duration) -> bool {
        let Some(job) = self.jobs.get_mut(id).filter(|job| !job.state.is_finished()) else { return false };
        job.state = JobState::Failed;
        job.finished_at = Some(now);
        job.error = Some(error.to_string());
        self.outbox.push(Email {
            to: job.email.clone(),
            subject: "Your climate data download failed".to_string(),
            body: format!(
                "{}\n\nThe file could not be generated: {error}\nPlease submit the request again.",
                job.description
            ),
            sent_at: now,
        });
        true
    }

    /// What a job's download URL serves.
    pub fn download(&self, id: &str) -> Download {
        match self.jobs.get(id) {
            None => Download::Unknown,
            Some(job) => match (job.state, &job.file, &job.error) {
                (JobState::Ready, Some(file), _) => Download::Ready(file.clone()),
                (JobState::Failed, _, error) => Download::Failed(error.clone().unwrap_or_default()),
                (state, _, _) => Download::NotReady(state),
            },
        }
    }

    pub fn status(&self, id: &str) -> Option<JobStatus> {
        self.jobs.get(id).map(|job| JobStatus {
            id: id.to_string(),
            state: job.state,
            email: job.email.clone(),
            download_url: job.download_url.clone(),
            submitted_at: job.submitted_at,
            finished_at: job.finished_at,
            error: job.error.clone(),
        })
    }

    /// Every e-mail sent so far, oldest first.
    /// Whether a job waits to be built.
    pub fn has_queued(&self) -> bool {
        !self.queue.is_empty()
    }

    pub fn outbox(&self) -> &[Email] {
        &self.outbox
    }

    /// Forgets finished jobs older than `keep_files_for` and request logs older than a day;
    /// returns how many jobs were forgotten.
    pub fn expire(&mut self, now: Duration) -> usize {
        let keep = self.limits.keep_files_for;
        let before = self.jobs.len();
        self.jobs.retain(|_, job| job.finished_at.is_none_or(|finished| now < finished + keep));
        for usage in self.usage.values_mut() {
            for log in [&mut usage.csv, &mut usage.json] {
                prune(log, now);
            }
        }
        self.usage.retain(|_, usage| usage.csv_streams > 0 || !usage.csv.is_empty() || !usage.json.is_empty());
        before - self.jobs.len()
    }

    fn limit(&self, kind: RequestKind) -> RateLimit {
        match kind {
            RequestKind::Csv => self.limits.csv,
            RequestKind::Json => self.limits.json,
        }
    }

    fn check_rate(&mut self, user: &str, kind: RequestKind, now: Duration) -> Result<(), Refusal> {
        let limit = self.limit(kind);
        let Some(usage) = self.usage.get_mut(user) else { return Ok(()) };
        let log = usage.log(kind);
        prune(log, now);
        if let Some(&last) = log.back() {
            let next = last + limit.min_interval;
            // A request stamped here left the client up to a few ms earlier than it arrives at this
            // check (gateway, body read); a tenth of the interval of tolerance keeps a client that
            // spaces its sends exactly from being refused for that jitter.
            if now + limit.min_interval / 10 < next {
                return Err(Refusal::RateLimited {
                    kind,
                    retry_after: next - now,
                    message: format!(
                        "Too many {} requests: at most one every {} s per user; retry in {:.1} s.",
                        kind.label(),
                        limit.min_interval.as_secs_f64(),
                        (next - now).as_secs_f64()
                    ),
                });
            }
        }
        if log.len() >= limit.per_day as usize {
            let next = log.front().map_or(now, |&first| first + DAY);
            return Err(Refusal::RateLimited {
                kind,
                retry_after: next.saturating_sub(now),
                message: format!(
                    "Daily limit reached: at most {} {} requests per 24 hours per user; retry in {:.0} s.",
                    limit.per_day,
                    kind.label(),
                    next.saturating_sub(now).as_secs_f64()
                ),
            });
        }
        Ok(())
    }

    fn check_in_flight(&self, user: &str) -> Result<(), Refusal> {
        let limit = self.limits.max_in_flight_per_user;
        if self.in_flight(user) >= limit {
            Err(Refusal::TooManyInFlight { limit })
        } else {
            Ok(())
        }
    }

    fn record(&mut self, user: &str, kind: RequestKind, now: Duration) {
        self.usage.entry(user.to_string()).or_default().log(kind).push_back(now);
    }

    /// 32 hex digits, unused so far.
    fn new_id(&mut self) -> String {
        loop {
            let id = format!("{:016x}{:016x}", self.rng.next_u64(), self.rng.next_u64());
            if !self.jobs.contains_key(&id) {
                return id;
            }
        }
    }
}

/// Drops log entries older than 24 hours.
fn prune(log: &mut VecDeque<Duration>, now: Duration) {
    while log.front().is_some_and(|&t| t + DAY <= now) {
        log.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        crate::limits::clamped_seconds(s)
    }

    fn job(user: &str) -> NewJob<u32> {
        NewJob {
            user: user.into(),
            email: "me@example.org".into(),
            description: "Climate data for 1 site".into(),
            payload: 7,
        }
    }

    fn url(id: &str) -> String {
        format!("http://127.0.0.1:1/files/climate/{id}.zip")
    }

    #[test]
    fn a_job_goes_from_queued_to_ready_and_mails_its_link() {
        let mut jobs = ClimateJobs::new(JobLimits::default(), 1);
        let status = jobs.submit(job("u"), secs(10.0), url).unwrap();
        assert_eq!(status.state, JobState::Queued);
        assert_eq!(status.id.len(), 32);
        assert!(!status.download_url.contains("api_key"));
        assert_eq!(jobs.download(&status.id), Download::NotReady(JobState::Queued));
        let (id, payload) = jobs.start_next().unwrap();
        assert_eq!((id.as_str(), *payload), (status.id.as_str(), 7));
        assert_eq!(jobs.download(&id), Download::NotReady(JobState::Building));
        assert!(jobs.start_next().is_none());
        assert!(jobs.complete(&id, Bytes::from_static(b"PK"), secs(12.0)));
        assert!(!jobs.complete(&id, Bytes::new(), secs(13.0)), "finished jobs stay finished");
        assert_eq!(jobs.download(&id), Download::Ready(Bytes::from_static(b"PK")));
        let mail = &jobs.outbox()[0];
        assert_eq!(mail.to, "me@example.org");
        assert!(mail.body.contains(&status.download_url));
        assert_eq!(jobs.expire(secs(12.0 + 86_399.0)), 0);
        assert_eq!(jobs.expire(secs(12.0 + 86_400.0)), 1);
        assert_eq!(jobs.download(&id), Download::Unknown);
        assert_eq!(jobs.outbox().len(), 1, "the outbox outlives the job");
    }

    #[test]
    fn a_failed_build_is_terminal_and_mailed() {
        let mut jobs = ClimateJobs::new(JobLimits::default(), 2);
        let id = jobs.submit(job("u"), secs(0.0), url).unwrap().id;
        jobs.start_next();
        assert!(jobs.fail(&id, "disk full", secs(1.0)));
        assert_eq!(jobs.download(&id), Download::Failed("disk full".into()));
        assert!(jobs.outbox()[0].subject.contains("failed"));
        assert_eq!(jobs.in_flight("u"), 0);
    }

    #[test]
    fn the_queue_refuses_when_full() {
        let limits = JobLimits { queue_capacity: 2, ..JobLimits::default() };
        let mut jobs = ClimateJobs::new(limits, 3);
        jobs.submit(job("a"), secs(0.0), url).unwrap();
        jobs.submit(job("b"), secs(0.0), url).unwrap();
        let refusal = jobs.submit(job("c"), secs(0.0), url).unwrap_err();
        assert_eq!(refusal, Refusal::QueueFull { capacity: 2 });
        assert!(refusal.message().contains("queue is full"));
        let (id, _) = jobs.start_next().unwrap();
        jobs.complete(&id, Bytes::new(), secs(1.0));
        assert!(jobs.submit(job("c"), secs(1.0), url).is_ok(), "a finished job frees its place");
    }

    #[test]
    fn thirty_csv_requests_at_one_per_second_take_at_least_29_seconds() {
        let mut jobs: ClimateJobs<()> = ClimateJobs::new(JobLimits::default(), 4);
        let mut now = Duration::ZERO;
        let mut admitted = 0;
        let mut refusals = 0;
        while admitted < 30 {
            match jobs.admit_csv("u", now) {
                Ok(permit) => {
                    jobs.finish_csv(permit);
                    admitted += 1;
                    now += secs(0.25);
                }
                Err(refusal) => {
                    refusals += 1;
                    now += refusal.retry_after();
                }
            }
        }
        assert!(now >= secs(29.0), "{now:?}");
        assert!(refusals >= 29);
        assert!(jobs.admit_csv("other user", now).is_ok(), "limits are per user");
    }

    #[test]
    fn json_spacing_daily_quota_and_in_flight_cap() {
        let limits = JobLimits {
            json: RateLimit { min_interval: Duration::from_secs(2), per_day: 3 },
            max_in_flight_per_user: 2,
            ..JobLimits::default()
        };
        let mut jobs = ClimateJobs::new(limits, 5);
        jobs.submit(job("u"), secs(0.0), url).unwrap();
        let early = jobs.submit(job("u"), secs(1.5), url).unwrap_err();
        assert!(matches!(early, Refusal::RateLimited { retry_after, .. } if retry_after == secs(0.5)));
        jobs.submit(job("u"), secs(2.0), url).unwrap();
        assert_eq!(jobs.submit(job("u"), secs(4.0), url).unwrap_err(), Refusal::TooManyInFlight { limit: 2 });
        while let Some((id, _)) = jobs.start_next() {
            jobs.complete(&id, Bytes::new(), secs(5.0));
        }
        jobs.submit(job("u"), secs(6.0), url).unwrap();
        let quota = jobs.submit(job("u"), secs(100.0), url).unwrap_err();
        assert_eq!(quota.retry_after(), secs(86_400.0 - 100.0));
        assert!(quota.message().contains("Daily limit"));
        let stream = jobs.admit_csv("u", secs(100.0)).unwrap();
        assert_eq!(jobs.in_flight("u"), 2, "a queued job and a csv stream");
        assert_eq!(jobs.admit_csv("u", secs(101.0)).unwrap_err(), Refusal::TooManyInFlight { limit: 2 });
        jobs.finish_csv(stream);
        assert!(jobs.admit_csv("u", secs(102.0)).is_ok());
    }
}

//! The optimizer service's calls: a job's submission, one read of its results, and the run
//! (submit, then poll with the one schedule `services::poll::Backoff` until the run is optimal,
//! fails or the time is up). Answers are read by `answer`; every body is scrubbed of the key
//! before it is read, so no result, message or error holds it.

use std::time::Duration;

use super::answer::{self, RunState};
use crate::optimizer::scenario::text::{float_repr, str_repr};
use crate::error::{ApiErrorKind, Error, Result};
use crate::services::handle::ServiceHandle;
use crate::services::poll::PollSchedule;
use crate::transport::{Body, Endpoint, Request};

/// How a run is waited for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSchedule {
    /// The pauses between polls and when the run is given up (`JobTimeout`).
    pub polling: PollSchedule,
    /// How long after the POST a 404 means "not stored yet" rather than "no such run".
    pub not_found_grace: Duration,
}

/// POSTs a scenario (JSON) and returns the run's `run_uuid`. A refusal (400) raises
/// `ValidationError` carrying the service's `input_errors`.
pub async fn submit(handle: ServiceHandle, scenario: Vec<u8>) -> Result<String> {
    let mut request = Request::get(Endpoint::OptimizerJob, Vec::new());
    request.method = reqwest::Method::POST;
    request.body = Body::Json(scenario);
    request.idempotent = false;
    match handle.send(request).await {
        Ok(response) => answer::submitted_run_uuid(response.status, &handle.scrub(&response.body), &response.url),
        Err(Error::Api(failure)) if failure.kind == ApiErrorKind::Validation => Err(answer::rejected(failure)),
        Err(error) => Err(error),
    }
}

/// The run in whatever state it is (a 400 naming the run is one of its states); 404 raises
/// `NotFoundError`, a run_uuid that is not a UUID `ParameterError` before anything is sent.
pub async fn results(handle: ServiceHandle, run_uuid: String) -> Result<RunState> {
    let endpoint = Endpoint::OptimizerResults { run_uuid: run_uuid.clone() };
    endpoint.check().map_err(Error::Parameter)?;
    let mut request = Request::get(endpoint, Vec::new());
    request.check_body_errors = false;
    match handle.send(request).await {
        Ok(response) => {
            let document = answer::results_document(response.status, &handle.scrub(&response.body), &response.url, &run_uuid)?;
            Ok(RunState { http_status: response.status, document })
        }
        Err(Error::Api(failure)) if failure.kind == ApiErrorKind::Validation => answer::state_of_refusal(failure),
        Err(error) => Err(error),
    }
}

/// Submits and polls until the run is optimal (returned), ends otherwise (`JobFailed` with its
/// messages) or `schedule.polling.timeout` passes (`JobTimeout` carrying the run_uuid and the last
/// status). A 404 within the grace after the POST is a run not stored yet; later, `NotFoundError`.
pub async fn run(handle: ServiceHandle, scenario: Vec<u8>, schedule: RunSchedule) -> Result<RunState> {
    let run_uuid = submit(handle.clone(), scenario).await?;
    let mut backoff = schedule.polling.start();
    let mut last_status = "submitted".to_owned();
    loop {
        match results(handle.clone(), run_uuid.clone()).await {
            Ok(state) if state.is_optimal() => return Ok(state),
            Ok(state) if state.is_running() => last_status = state.status(),
            Ok(state) => return Err(state.failure()),
            Err(error) if answer::is_not_found(&error) => {
                if backoff.elapsed() > schedule.not_found_grace {
                    return Err(answer::not_found(format!("optimizer run {run_uuid} is not in the database")));
                }
            }
            Err(error) => return Err(error),
        }
        match backoff.next_pause() {
            Some(pause) => tokio::time::sleep(pause).await,
            None => return Err(timed_out(&run_uuid, &last_status, schedule.polling.timeout)),
        }
    }
}

fn timed_out(run_uuid: &str, last_status: &str, timeout: Duration) -> Error {
    Error::JobTimeout {
        message: format!(
            "optimizer run {run_uuid} still {} after {} s; resume with client.optimizer.results({})",
            str_repr(last_status),
            float_repr(timeout.as_secs_f64()),
            str_repr(run_uuid)
        ),
        job_id: run_uuid.to_owned(),
        last_status: last_status.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_says_how_to_resume() {
        let Error::JobTimeout { message, job_id, last_status } = timed_out("abc", "Optimizing...", Duration::from_millis(200)) else {
            panic!("not a timeout")
        };
        assert_eq!(message, "optimizer run abc still 'Optimizing...' after 0.2 s; resume with client.optimizer.results('abc')");
        assert_eq!((job_id.as_str(), last_status.as_str()), ("abc", "Optimizing..."));
    }
}

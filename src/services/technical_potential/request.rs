//! The technical potential service's calls: the configuration, a job's submission (validated
//! against the configuration), one poll or deletion of a job, with the checks of their path and
//! query arguments, and the wait for a job (`job_call` repeated on the one schedule, `services::poll::Backoff`).

use std::time::Duration;

use serde_json::{Map, Value};

use super::{parse_configuration, parse_job_result, parse_job_submission, validate_config_query, validate_job, ConfigQuery, Configuration, JobResult, JobStatus};
use crate::error::{Error, JobFailure, Result};
use crate::optimizer::scenario::text::{float_repr, str_repr};
use crate::services::handle::ServiceHandle;
use crate::services::missing::parse_failure;
use crate::services::poll::PollSchedule;
use crate::transport::{Body, Endpoint, Request};

/// The `<explorer>` path segment: letters, digits, `-` and `_` only.
pub fn checked_explorer(explorer: &str) -> std::result::Result<String, String> {
    if !explorer.is_empty() && explorer.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        Ok(explorer.to_owned())
    } else {
        Err(format!("explorer must be a name of letters, digits, '-' or '_', such as \"rede\" (got {explorer:?})"))
    }
}

/// A job id as the caller gave it: not blank, not longer than any id.
pub fn checked_job_id(job_id: &str) -> std::result::Result<String, String> {
    if job_id.trim().is_empty() {
        return Err("job_id must not be empty: use the id submit() returned".into());
    }
    crate::limits::id_length("job_id", job_id)?;
    Ok(job_id.to_owned())
}

/// The explorer and the configuration query, or every problem with either.
pub fn config_args(explorer: &str, countries: Option<&str>, wkt: Option<&str>) -> Result<(String, ConfigQuery)> {
    match (checked_explorer(explorer), validate_config_query(countries, wkt)) {
        (Ok(explorer), Ok(query)) => Ok((explorer, query)),
        (explorer, query) => {
            let mut problems: Vec<String> = explorer.err().into_iter().collect();
            problems.extend(query.err().unwrap_or_default());
            Err(Error::Parameter(problems))
        }
    }
}

/// Validates a job against `config` (every problem at once) and returns the body to POST.
pub fn job_body(config: &Configuration, region: &str, resource: &str, fields: &Map<String, Value>) -> Result<Vec<u8>> {
    let request = validate_job(config, region, resource, fields).map_err(Error::Parameter)?;
    serde_json::to_vec(&Value::Object(request.body)).map_err(|e| Error::Parameter(vec![e.to_string()]))
}

/// Fetches the configuration (regions, resources, input fields).
pub async fn fetch_config(handle: ServiceHandle, explorer: String, query: ConfigQuery) -> Result<Configuration> {
    let pairs = query.query_pairs().into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    let response = handle.send(Request::get(Endpoint::TechnicalPotentialConfig { explorer }, pairs)).await?;
    let body = handle.scrub(&response.body);
    parse_configuration(&body).map_err(|e| parse_failure(&body, &e.to_string(), |t| handle.redact(t)))
}

/// Submits a job body; returns `(job_id, status)`.
pub async fn post_job(handle: ServiceHandle, explorer: String, body: Vec<u8>) -> Result<(String, String)> {
    let mut request = Request::get(Endpoint::TechnicalPotentialJob { explorer }, Vec::new());
    request.method = reqwest::Method::POST;
    request.body = Body::Json(body);
    request.idempotent = false;
    let response = handle.send(request).await?;
    let body = handle.scrub(&response.body);
    let submission = parse_job_submission(&body).map_err(|e| parse_failure(&body, &e.to_string(), |t| handle.redact(t)))?;
    Ok((submission.job_id, submission.status.as_str().to_owned()))
}

/// Polls a job once (or deletes its map assets); a job in a failure status raises `JobFailed`.
pub async fn job_call(handle: ServiceHandle, explorer: String, job_id: String, delete: bool) -> Result<JobResult> {
    let mut request = Request::get(Endpoint::TechnicalPotentialJob { explorer }, vec![("jobId".to_owned(), job_id.clone())]);
    if delete {
        request.method = reqwest::Method::DELETE;
    }
    request.check_body_errors = false;
    let response = handle.send(request).await?;
    let body = handle.scrub(&response.body);
    let result = parse_job_result(&body).map_err(|e| parse_failure(&body, &e.to_string(), |t| handle.redact(t)))?;
    if let JobStatus::Failed(status) = &result.status {
        let detail = if result.errors.is_empty() { String::new() } else { format!(": {}", result.errors.join("; ")) };
        return Err(Error::JobFailed(Box::new(JobFailure {
            message: format!("technical potential job {job_id} ended with status {status:?}{detail}"),
            job_id,
            status: status.clone(),
            messages: serde_json::json!(result.errors),
        })));
    }
    Ok(result)
}

/// Polls a job on `schedule` until it finishes (returned). A failure status raises `JobFailed`;
/// past the deadline, `JobTimeout` names the job, its last status and how to resume the wait.
pub async fn wait_for_job(handle: ServiceHandle, explorer: String, job_id: String, schedule: PollSchedule) -> Result<JobResult> {
    let mut backoff = schedule.start();
    loop {
        let result = job_call(handle.clone(), explorer.clone(), job_id.clone(), false).await?;
        if result.status == JobStatus::Finished {
            return Ok(result);
        }
        match backoff.next_pause() {
            Some(pause) => tokio::time::sleep(pause).await,
            None => return Err(timed_out(&explorer, &job_id, result.status.as_str(), schedule.timeout)),
        }
    }
}

fn timed_out(explorer: &str, job_id: &str, last_status: &str, timeout: Duration) -> Error {
    Error::JobTimeout {
        message: format!(
            "technical potential job {job_id} still {last_status} after {} s; resume with client.technical_potential.job({}, {}).wait()",
            float_repr(timeout.as_secs_f64()),
            str_repr(explorer),
            str_repr(job_id)
        ),
        job_id: job_id.to_owned(),
        last_status: last_status.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explorer_and_job_id_problems_are_reported_together_with_the_query_problems() {
        assert!(checked_explorer("rede").is_ok());
        assert!(checked_explorer("../x").unwrap_err().contains("explorer must be"));
        assert!(checked_job_id("  ").is_err());
        let Err(Error::Parameter(problems)) = config_args("a b", Some("India"), Some("POINT (1 2)")) else { panic!("accepted") };
        assert_eq!(problems.len(), 2, "{problems:?}");
    }
}

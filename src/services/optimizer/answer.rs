//! What the optimizer's answers mean. POST `…/job/` answers 201 `{"run_uuid": …}` or 400 with
//! `messages.input_errors`; GET `…/job/<uuid>/results/` answers 200 with a `status`
//! (`"Optimizing..."`, `"optimal"`, `"An error occurred. See messages for more."`), 400 with
//! `status: "error"` naming the run (a state of the run, not a transport problem), or 404 while
//! the run is not stored yet. Bodies reach these functions with the API key already removed.

use serde_json::{Map, Value};

use crate::optimizer::scenario::text::{is_truthy, python_repr, python_str};
use crate::error::{ApiErrorKind, ApiFailure, Error, JobFailure, Result};

/// The status of a run that found its optimum.
pub const OPTIMAL: &str = "optimal";
/// The statuses of a run that is still going.
pub const RUNNING_STATUSES: [&str; 2] = ["Optimizing...", "Validating..."];
/// How much of an answer an error quotes.
const QUOTED_BODY_CHARS: usize = 4096;

/// A run in whatever state the service reported it: the answer's JSON object and its HTTP status.
#[derive(Debug, Clone, PartialEq)]
pub struct RunState {
    pub http_status: u16,
    pub document: Map<String, Value>,
}

impl RunState {
    pub fn status(&self) -> String {
        self.document.get("status").map(python_str).unwrap_or_default()
    }

    pub fn run_uuid(&self) -> String {
        self.document.get("run_uuid").map(python_str).unwrap_or_default()
    }

    pub fn is_optimal(&self) -> bool {
        self.status() == OPTIMAL
    }

    pub fn is_running(&self) -> bool {
        RUNNING_STATUSES.contains(&self.status().as_str())
    }

    /// The run's `messages` (an empty object when it has none).
    pub fn messages(&self) -> Value {
        match self.document.get("messages") {
            Some(value) if is_truthy(value) => value.clone(),
            _ => Value::Object(Map::new()),
        }
    }

    /// `JobFailed` for a run that ended without an optimum, with its messages.
    pub fn failure(&self) -> Error {
        let messages = self.messages();
        let errors = ["errors", "error"].iter().filter_map(|key| messages.get(*key)).find(|value| is_truthy(value));
        let detail = errors.map(|errors| format!(": {}", python_str(errors))).unwrap_or_default();
        let (run_uuid, status) = (self.run_uuid(), self.status());
        Error::JobFailed(Box::new(JobFailure {
            message: format!("optimizer run {run_uuid} ended with status {}{detail}", python_repr(&Value::from(status.as_str()))),
            job_id: run_uuid,
            status,
            messages,
        }))
    }
}

/// The JSON object of an answer; `ApiError` when the body is not one.
pub fn answer_object(http_status: u16, body: &[u8], url: &str) -> Result<Map<String, Value>> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(document)) => Ok(document),
        _ => Err(unexpected(http_status, "is not a JSON object", &String::from_utf8_lossy(body), url)),
    }
}

/// The parts of a results document that are objects when present (null counts as absent).
const OBJECT_PARTS: [&str; 3] = ["messages", "inputs", "outputs"];

/// The results document of run `run_uuid` from a 200 answer; `ApiError` when the body is not a
/// JSON object, has no `status` text, or has `messages`, `inputs` or `outputs` that are not
/// objects (a server's answer of any other shape ends in this error, never in a Python
/// `TypeError` later). A document without its run_uuid gets the one that was asked for.
pub fn results_document(http_status: u16, body: &[u8], url: &str, run_uuid: &str) -> Result<Map<String, Value>> {
    let mut document = answer_object(http_status, body, url)?;
    let quoted = |document: Map<String, Value>| Value::Object(document).to_string();
    if !matches!(document.get("status"), Some(Value::String(status)) if !status.is_empty()) {
        return Err(unexpected(http_status, &format!("for run {run_uuid} has no status"), &quoted(document), url));
    }
    let misshapen = OBJECT_PARTS.iter().find_map(|part| document.get(*part).filter(|value| !value.is_null() && !value.is_object()).map(|value| (part, json_type(value))));
    if let Some((part, kind)) = misshapen {
        let what = format!("for run {run_uuid} has {part} of type {kind} where an object is expected");
        return Err(unexpected(http_status, &what, &quoted(document), url));
    }
    match document.get("run_uuid") {
        Some(Value::String(text)) if !text.is_empty() => {}
        None | Some(Value::Null | Value::String(_)) => {
            document.insert("run_uuid".into(), Value::from(run_uuid));
        }
        Some(other) => {
            let what = format!("for run {run_uuid} has a run_uuid of type {} where a string is expected", json_type(other));
            return Err(unexpected(http_status, &what, &quoted(document), url));
        }
    }
    Ok(document)
}

/// The JSON name of a value's type, for messages.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The run_uuid a POST answered with; `ApiError` when the answer has none.
pub fn submitted_run_uuid(http_status: u16, body: &[u8], url: &str) -> Result<String> {
    let document = answer_object(http_status, body, url)?;
    match document.get("run_uuid") {
        Some(Value::String(run_uuid)) if !run_uuid.is_empty() => Ok(run_uuid.clone()),
        _ => Err(unexpected(http_status, "has no run_uuid", &Value::Object(document).to_string(), url)),
    }
}

/// A refused POST's error with the service's per-section `input_errors` (`{}` when it names none).
pub fn rejected(mut failure: Box<ApiFailure>) -> Error {
    let input_errors = body_object(&failure).and_then(|body| body.get("messages")?.get("input_errors").cloned());
    failure.input_errors = Some(input_errors.filter(is_truthy).unwrap_or_else(|| Value::Object(Map::new())));
    Error::Api(failure)
}

/// A 400 answer to a results read: the run's state when its body names the run (`status` and
/// a run_uuid), otherwise the error itself.
pub fn state_of_refusal(failure: Box<ApiFailure>) -> Result<RunState> {
    let names_the_run = |body: &Map<String, Value>| body.contains_key("status") && body.get("run_uuid").is_some_and(is_truthy);
    match body_object(&failure).filter(names_the_run) {
        Some(document) => Ok(RunState { http_status: failure.status, document }),
        None => Err(Error::Api(failure)),
    }
}

/// Whether an error is the service's 404 for a run it does not know (yet).
pub fn is_not_found(error: &Error) -> bool {
    matches!(error, Error::Api(failure) if failure.kind == ApiErrorKind::NotFound)
}

/// `NotFoundError` with `message` (a rule of the client, not an answer of the service).
pub fn not_found(message: String) -> Error {
    Error::Api(Box::new(ApiFailure {
        kind: ApiErrorKind::NotFound,
        status: 404,
        code: None,
        errors: vec![message],
        body: String::new(),
        url: String::new(),
        retry_after: None,
        remaining: None,
        input_errors: None,
    }))
}

fn body_object(failure: &ApiFailure) -> Option<Map<String, Value>> {
    match serde_json::from_str::<Value>(&failure.body) {
        Ok(Value::Object(body)) => Some(body),
        _ => None,
    }
}

fn unexpected(http_status: u16, what: &str, body: &str, url: &str) -> Error {
    Error::Api(Box::new(ApiFailure {
        kind: ApiErrorKind::Other,
        status: http_status,
        code: None,
        errors: vec![format!("the optimizer's answer (HTTP {http_status}) {what}")],
        body: body.chars().take(QUOTED_BODY_CHARS).collect(),
        url: url.to_owned(),
        retry_after: None,
        remaining: None,
        input_errors: None,
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refusal(status: u16, body: &Value) -> Box<ApiFailure> {
        let text = body.to_string();
        Box::new(crate::formats::error_body::failure(status, text.as_bytes(), "http://x/".into(), None, None, text.clone()))
    }

    #[test]
    fn a_post_answer_gives_its_run_uuid_or_says_what_is_wrong() {
        assert_eq!(submitted_run_uuid(201, br#"{"run_uuid": "abc"}"#, "u").unwrap(), "abc");
        let Err(Error::Api(plain)) = submitted_run_uuid(200, b"not json", "u") else { panic!("accepted") };
        assert_eq!((plain.kind, plain.errors[0].as_str()), (ApiErrorKind::Other, "the optimizer's answer (HTTP 200) is not a JSON object"));
        let Err(Error::Api(empty)) = submitted_run_uuid(201, br#"{"run_uuid": ""}"#, "u") else { panic!("accepted") };
        assert_eq!(empty.errors[0], "the optimizer's answer (HTTP 201) has no run_uuid");
    }

    #[test]
    fn a_results_answer_of_any_other_shape_is_an_api_error_naming_the_run() {
        let ok = results_document(200, br#"{"status": "optimal", "outputs": null}"#, "u", "abc").unwrap();
        assert_eq!(ok["run_uuid"], "abc");
        let problem = |body: &[u8]| match results_document(200, body, "u", "abc") {
            Err(Error::Api(failure)) => failure.errors[0].clone(),
            other => panic!("accepted: {other:?}"),
        };
        assert_eq!(problem(b"{}"), "the optimizer's answer (HTTP 200) for run abc has no status");
        assert_eq!(problem(br#"{"status": ""}"#), "the optimizer's answer (HTTP 200) for run abc has no status");
        assert_eq!(problem(br#"{"status": 3}"#), "the optimizer's answer (HTTP 200) for run abc has no status");
        assert_eq!(problem(br#"{"status": "optimal", "messages": [1]}"#), "the optimizer's answer (HTTP 200) for run abc has messages of type array where an object is expected");
        assert_eq!(problem(br#"{"status": "optimal", "outputs": "x"}"#), "the optimizer's answer (HTTP 200) for run abc has outputs of type string where an object is expected");
        assert_eq!(problem(br#"{"status": "optimal", "run_uuid": 7}"#), "the optimizer's answer (HTTP 200) for run abc has a run_uuid of type number where a string is expected");
        assert_eq!(problem(b"[]"), "the optimizer's answer (HTTP 200) is not a JSON object");
    }

    #[test]
    fn a_refused_post_carries_the_input_errors_by_section() {
        let body = json!({"status": "Invalid inputs.", "run_uuid": "", "messages": {"input_errors": {"Site": ["latitude: required"]}}});
        let Error::Api(failure) = rejected(refusal(400, &body)) else { panic!("not an API error") };
        assert_eq!(failure.kind, ApiErrorKind::Validation);
        assert_eq!(failure.input_errors, Some(json!({"Site": ["latitude: required"]})));
        let Error::Api(bare) = rejected(refusal(400, &json!({"error": "bad"}))) else { panic!() };
        assert_eq!(bare.input_errors, Some(json!({})));
    }

    #[test]
    fn a_400_naming_a_run_is_its_state_and_any_other_stays_an_error() {
        let body = json!({"run_uuid": "abc", "status": "error", "messages": {"errors": {"REopt": "infeasible"}}});
        let state = state_of_refusal(refusal(400, &body)).unwrap();
        assert_eq!((state.http_status, state.status(), state.is_running(), state.is_optimal()), (400, "error".to_owned(), false, false));
        assert!(state_of_refusal(refusal(400, &json!({"status": "error", "run_uuid": ""}))).is_err());
        assert!(state_of_refusal(refusal(400, &json!({"errors": ["x"]}))).is_err());
    }

    #[test]
    fn a_run_that_ends_without_an_optimum_fails_with_its_messages() {
        let document = json!({"run_uuid": "abc", "status": "An error occurred. See messages for more.", "messages": {"errors": {"timeout": "exceeded"}}});
        let state = RunState { http_status: 200, document: document.as_object().cloned().unwrap() };
        let Error::JobFailed(failure) = state.failure() else { panic!("not JobFailed") };
        let JobFailure { message, job_id, status, messages } = *failure;
        assert_eq!(message, "optimizer run abc ended with status 'An error occurred. See messages for more.': {'timeout': 'exceeded'}");
        assert_eq!((job_id.as_str(), status.as_str(), &messages["errors"]), ("abc", "An error occurred. See messages for more.", &json!({"timeout": "exceeded"})));
        let running = RunState { http_status: 200, document: json!({"status": "Validating..."}).as_object().cloned().unwrap() };
        assert!(running.is_running() && !running.is_optimal());
        let Error::JobFailed(failure) = running.failure() else { panic!() };
        assert_eq!(failure.message, "optimizer run  ended with status 'Validating...'");
    }
}

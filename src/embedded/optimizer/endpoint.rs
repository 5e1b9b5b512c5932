//! The optimizer's job endpoints as pure functions returning `ServiceReply` (no HTTP types):
//! `POST job/` (validation outcome → 201 or 400) and `GET job/<run_uuid>/results/`
//! (400 badly formed, 404 not in database, 400 when status is "error", else 200).
//! Validation is `optimizer::scenario::validation`'s (the rules the Python builder runs too, read
//! from one schema); its `input_errors` come in as a JSON value.

use serde_json::{json, Map, Value};

use super::jobs::{JobStore, Lookup, Submission, STATUS_ERROR};
use crate::embedded::reply::ServiceReply;

/// `status` of a POST rejected by validation.
pub const INVALID_INPUTS_STATUS: &str =
    "Invalid inputs. No optimization task has been created. See messages for details.";

/// The 404 message of an unknown run_uuid.
pub fn not_in_database_message(run_uuid: &str) -> String {
    format!(
        "run_uuid {run_uuid} not in database. You may have hit the results endpoint too quickly after POST'ing scenario, have a typo in your run_uuid, or the scenario was deleted."
    )
}

/// Whether the validator found anything (`{}`, `null` and `[]` mean no problems).
pub fn has_input_errors(input_errors: &Value) -> bool {
    match input_errors {
        Value::Null => false,
        Value::Object(map) => !map.is_empty(),
        Value::Array(items) => !items.is_empty(),
        _ => true,
    }
}

/// The 400 body of a rejected POST: `run_uuid` "", `api_version` 3, the status sentence,
/// `job_type`, the posted `user_uuid`/`webtool_uuid`/`portfolio_uuid` when they are strings,
/// and `messages` with `error` and the validator's `input_errors`.
pub fn invalid_inputs_reply(scenario: &Value, input_errors: &Value, job_type: &str) -> ServiceReply {
    let mut body = Map::new();
    body.insert("run_uuid".into(), json!(""));
    body.insert("api_version".into(), json!(3));
    body.insert("status".into(), json!(INVALID_INPUTS_STATUS));
    body.insert("job_type".into(), json!(job_type));
    for key in ["user_uuid", "webtool_uuid", "portfolio_uuid"] {
        if let Some(Value::String(id)) = scenario.get(key) {
            body.insert(key.into(), Value::from(if id.len() == 36 { id.as_str() } else { "" }));
        }
    }
    body.insert(
        "messages".into(),
        json!({"error": "Invalid inputs. See input_errors.", "input_errors": input_errors}),
    );
    ServiceReply::json(400, &Value::Object(body))
}

/// `POST job/`: 400 with the validator's errors, or 201 `{"run_uuid": …}` after submitting.
pub fn post_job_reply(store: &JobStore, submission: Submission, input_errors: &Value) -> ServiceReply {
    if has_input_errors(input_errors) {
        return invalid_inputs_reply(&submission.scenario, input_errors, &store.config().job_type);
    }
    let run_uuid = store.submit(submission);
    ServiceReply::json(201, &json!({"run_uuid": run_uuid}))
}

/// `GET job/<run_uuid>/results/`.
pub fn results_reply(store: &JobStore, run_uuid: &str) -> ServiceReply {
    match store.lookup(run_uuid) {
        Lookup::BadlyFormed => {
            ServiceReply::json(400, &json!({"messages": {"error": "badly formed hexadecimal UUID string"}, "status": "error"}))
        }
        Lookup::NotFound => {
            ServiceReply::json(404, &json!({"messages": {"error": not_in_database_message(run_uuid)}, "status": "error"}))
        }
        Lookup::Found { status, body } => ServiceReply::json(if status == STATUS_ERROR { 400 } else { 200 }, &body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedded::optimizer::jobs::JobStoreConfig;

    fn body(reply: &ServiceReply) -> Value {
        serde_json::from_slice(&reply.body).unwrap()
    }

    #[test]
    fn rejected_post_has_the_contract_shape() {
        let store = JobStore::new(JobStoreConfig { hang: true, ..JobStoreConfig::default() });
        let errors = json!({"Site": "Missing required inputs."});
        let reply = post_job_reply(&store, Submission::default(), &errors);
        assert_eq!(reply.status, 400);
        let b = body(&reply);
        assert_eq!(b["run_uuid"], "");
        assert_eq!(b["status"], INVALID_INPUTS_STATUS);
        assert_eq!(b["messages"]["input_errors"], errors);
        assert!(store.is_empty());
    }

    #[test]
    fn results_codes_follow_the_contract() {
        let store = JobStore::new(JobStoreConfig { hang: true, ..JobStoreConfig::default() });
        let created = post_job_reply(&store, Submission::default(), &json!({}));
        assert_eq!(created.status, 201);
        let id = body(&created)["run_uuid"].as_str().unwrap().to_string();
        let running = results_reply(&store, &id);
        assert_eq!(running.status, 200);
        assert_eq!(body(&running)["status"], "Optimizing...");
        assert_eq!(results_reply(&store, "123").status, 400);
        let missing = results_reply(&store, "00000000-0000-4000-8000-000000000000");
        assert_eq!(missing.status, 404);
        assert!(body(&missing)["messages"]["error"].as_str().unwrap().contains("not in database"));
    }
}

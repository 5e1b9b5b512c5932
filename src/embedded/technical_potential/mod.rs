//! The embedded technical-potential endpoints as pure functions from a request to a
//! [`ServiceReply`]: `GET` of the configuration (`spec::routes::Endpoint::TechnicalPotentialConfig`)
//! and `POST | GET | DELETE` of a job (`Endpoint::TechnicalPotentialJob`). The HTTP layer routes
//! the explorer (`rede`, the live service's, and any other name it is configured with) and passes
//! the decoded query, the body and the current instant.
//!
//! Every answer is JSON in the live service's envelope — `metadata` (`version`, `resultset.count`,
//! and `data_source`, which says the data are synthetic), `inputs`, `outputs`, `errors`, and
//! `status`, which repeats the HTTP status:
//! - config: `countries` (comma-separated names, case-insensitive) or `wkt` (a POINT; the country
//!   containing it), or neither (every region). Names that match no region are ignored, so an
//!   unknown country gives 200 with `outputs: []` and count 0. Both parameters, or a bad WKT: 400.
//! - POST: a JSON object with `region`, `resource` (ids as strings or numbers; labels and keys
//!   are accepted too) and the input fields, validated by the shared `validate_job`. Not JSON,
//!   not an object, or any field problem: 400 listing every problem. Otherwise 200 with
//!   `outputs: {jobId, status: "queued"}`; `inputs` echoes the body as received.
//! - GET `?jobId=`: 200 with the job's `outputs` (disposition, status, map_data_deleted when
//!   finished, runtime_seconds, results); a failed job is 200 with its status and `errors`.
//! - DELETE `?jobId=` (no request body): 200 with the body a GET gives afterwards
//!   (`map_data_deleted: true`); 409 if the job has not finished.
//! - Without `jobId`: 400. Unknown job id: 404. Error answers carry `outputs: {}` (config: `[]`).

pub mod jobs;
pub mod model;

use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::embedded::reply::ServiceReply;
use crate::embedded::state::{lock, query_pairs, reply_response, ServiceState};
use crate::embedded::technical_potential::jobs::{JobError, JobStore};
use crate::embedded::technical_potential::model::TechnicalPotentialModel;
use crate::services::technical_potential::{
    validate_config_query, validate_job, ConfigQuery, JobRequest, JobResult, RegionConfig,
};

/// `metadata.version` of this local service.
pub const SERVICE_VERSION: &str = "1.0.0-local";
/// `metadata.data_source`: the responses say that the data are made up.
pub const DATA_SOURCE: &str = "sunflux local service: synthetic regions and land cells, not measured data";

/// GET …/technical-potential/config.
pub fn config_reply(model: &TechnicalPotentialModel, query: &[(String, String)]) -> ServiceReply {
    let inputs = echoed_inputs(query, &["countries", "wkt"]);
    match validate_config_query(query_value(query, "countries"), query_value(query, "wkt")) {
        Ok(config_query) => {
            let regions = select_regions(model, &config_query);
            let outputs = Value::Array(regions.iter().map(|region| region.to_value()).collect());
            envelope(200, inputs, outputs, Vec::new(), regions.len())
        }
        Err(problems) => envelope(400, inputs, Value::Array(Vec::new()), problems, 0),
    }
}

/// The configuration outputs a query selects, in configuration order.
fn select_regions<'a>(model: &'a TechnicalPotentialModel, query: &ConfigQuery) -> Vec<&'a RegionConfig> {
    let regions = &model.configuration().regions;
    match query {
        ConfigQuery::All => regions.iter().collect(),
        ConfigQuery::Countries(names) => regions
            .iter()
            .filter(|region| names.iter().any(|name| model.country_named(name).is_some_and(|c| c.id == region.id)))
            .collect(),
        ConfigQuery::Point { position, .. } => match model.country_at(*position) {
            Some(country) => regions.iter().filter(|region| region.id == country.id).collect(),
            None => Vec::new(),
        },
    }
}

/// POST …/technical-potential with a JSON job scenario.
pub fn job_post_reply(model: &TechnicalPotentialModel, jobs: &mut JobStore, body: &[u8], now: Instant) -> ServiceReply {
    let fields = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(fields)) => fields,
        Ok(other) => {
            return error_reply(400, other, vec!["request body must be a JSON object (the job scenario)".into()])
        }
        Err(error) => return error_reply(400, json!({}), vec![format!("request body is not valid JSON: {error}")]),
    };
    let inputs = Value::Object(fields.clone());
    match job_request(model, fields) {
        Ok(request) => {
            let submission = jobs.submit(request, now);
            let outputs = json!({"jobId": submission.job_id, "status": submission.status.as_str()});
            envelope(200, inputs, outputs, Vec::new(), 1)
        }
        Err(problems) => error_reply(400, inputs, problems),
    }
}

/// Splits `region` and `resource` off the body and validates the rest as the job's fields.
fn job_request(model: &TechnicalPotentialModel, mut fields: Map<String, Value>) -> Result<JobRequest, Vec<String>> {
    let region = take_id(&mut fields, "region", "the id of a configuration output");
    let resource = take_id(&mut fields, "resource", "the id of an available resource");
    match (region, resource) {
        (Ok(region), Ok(resource)) => validate_job(model.configuration(), &region, &resource, &fields),
        (region, resource) => Err([region.err(), resource.err()].into_iter().flatten().collect()),
    }
}

fn take_id(fields: &mut Map<String, Value>, key: &str, what: &str) -> Result<String, String> {
    match fields.shift_remove(key) {
        Some(Value::String(text)) if !text.trim().is_empty() => Ok(text.trim().to_string()),
        Some(Value::Number(number)) => Ok(number.to_string()),
        None => Err(format!("{key}: required ({what})")),
        Some(other) => Err(format!("{key}: expected {what} as a string, got {other}")),
    }
}

/// GET …/technical-potential?jobId=…
pub fn job_get_reply(model: &TechnicalPotentialModel, jobs: &mut JobStore, query: &[(String, String)], now: Instant) -> ServiceReply {
    job_reply(query, |job_id| jobs.poll(model, job_id, now))
}

/// DELETE …/technical-potential?jobId=…
pub fn job_delete_reply(
    model: &TechnicalPotentialModel,
    jobs: &mut JobStore,
    query: &[(String, String)],
    now: Instant,
) -> ServiceReply {
    job_reply(query, |job_id| jobs.delete(model, job_id, now))
}

fn job_reply(query: &[(String, String)], act: impl FnOnce(&str) -> Result<JobResult, JobError>) -> ServiceReply {
    let Some(job_id) = query_value(query, "jobId").map(str::trim).filter(|id| !id.is_empty()) else {
        return error_reply(400, json!({}), vec!["jobId: required (the id returned by the job POST)".into()]);
    };
    let inputs = json!({"jobId": job_id});
    match act(job_id) {
        Ok(result) => envelope(200, inputs, result.outputs_value(), result.errors.clone(), 1),
        Err(error) => error_reply(error.http_status(), inputs, vec![error.to_string()]),
    }
}

/// 404 for an explorer name the service does not serve.
pub fn explorer_not_found_reply(explorer: &str, served: &[&str]) -> ServiceReply {
    let message = format!("explorer '{explorer}' is not served here; served explorers: {}", served.join(", "));
    error_reply(404, json!({}), vec![message])
}

fn error_reply(status: u16, inputs: Value, errors: Vec<String>) -> ServiceReply {
    envelope(status, inputs, json!({}), errors, 0)
}

fn envelope(status: u16, inputs: Value, outputs: Value, errors: Vec<String>, count: usize) -> ServiceReply {
    let body = json!({
        "metadata": {"version": SERVICE_VERSION, "resultset": {"count": count}, "data_source": DATA_SOURCE},
        "inputs": inputs,
        "outputs": outputs,
        "errors": errors,
        "status": status,
    });
    ServiceReply::json(status, &body)
}

/// The first value of a query parameter.
fn query_value<'a>(query: &'a [(String, String)], name: &str) -> Option<&'a str> {
    query.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
}

/// The named parameters as given (never the api_key).
fn echoed_inputs(query: &[(String, String)], names: &[&str]) -> Value {
    let echoed: Map<String, Value> = names
        .iter()
        .filter_map(|name| query_value(query, name).map(|value| (name.to_string(), Value::from(value))))
        .collect();
    Value::Object(echoed)
}

/// The served explorer named in the path, or the 404 answer listing the served ones.
fn served_explorer(state: &ServiceState, explorer: &str) -> Result<(), ServiceReply> {
    if state.explorers.iter().any(|served| served == explorer) {
        Ok(())
    } else {
        let served: Vec<&str> = state.explorers.iter().map(String::as_str).collect();
        Err(explorer_not_found_reply(explorer, &served))
    }
}

type AppState = axum::extract::State<std::sync::Arc<ServiceState>>;
type Explorer = axum::extract::Path<String>;

/// `GET …/technical-potential/config`.
pub async fn handle_config(axum::extract::State(state): AppState, axum::extract::Path(explorer): Explorer, request: axum::extract::Request) -> axum::response::Response {
    let reply = served_explorer(&state, &explorer).map_or_else(|r| r, |()| config_reply(state.technical_potential_model, &query_pairs(&request)));
    reply_response(reply)
}

/// `POST …/technical-potential` with the job's JSON body.
pub async fn handle_job_post(axum::extract::State(state): AppState, axum::extract::Path(explorer): Explorer, body: axum::body::Bytes) -> axum::response::Response {
    let reply = served_explorer(&state, &explorer)
        .map_or_else(|r| r, |()| job_post_reply(state.technical_potential_model, &mut lock(&state.technical_potential_jobs), &body, Instant::now()));
    reply_response(reply)
}

/// `GET …/technical-potential?jobId=`.
pub async fn handle_job_get(axum::extract::State(state): AppState, axum::extract::Path(explorer): Explorer, request: axum::extract::Request) -> axum::response::Response {
    let query = query_pairs(&request);
    let reply = served_explorer(&state, &explorer)
        .map_or_else(|r| r, |()| job_get_reply(state.technical_potential_model, &mut lock(&state.technical_potential_jobs), &query, Instant::now()));
    reply_response(reply)
}

/// `DELETE …/technical-potential?jobId=`.
pub async fn handle_job_delete(axum::extract::State(state): AppState, axum::extract::Path(explorer): Explorer, request: axum::extract::Request) -> axum::response::Response {
    let query = query_pairs(&request);
    let reply = served_explorer(&state, &explorer)
        .map_or_else(|r| r, |()| job_delete_reply(state.technical_potential_model, &mut lock(&state.technical_potential_jobs), &query, Instant::now()));
    reply_response(reply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedded::technical_potential::model::LIVE_EXPLORER;
    use crate::embedded::technical_potential::jobs::JobTiming;
    use std::time::Duration;

    fn query(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn body(reply: &ServiceReply) -> Value {
        serde_json::from_slice(&reply.body).unwrap()
    }

    #[test]
    fn config_selects_by_country_point_or_nothing() {
        let model = TechnicalPotentialModel::synthetic();
        let all = body(&config_reply(&model, &query(&[("api_key", "secret")])));
        assert_eq!(all["metadata"]["resultset"]["count"], json!(3));
        assert_eq!(all["inputs"], json!({}));
        let two = body(&config_reply(&model, &query(&[("countries", "kenya,India,Atlantis")])));
        let labels: Vec<&str> =
            two["outputs"].as_array().unwrap().iter().map(|o| o["region"]["label"].as_str().unwrap()).collect();
        assert_eq!(labels, ["India", "Kenya"]);
        let delhi = body(&config_reply(&model, &query(&[("wkt", "POINT(77.216 28.644)")])));
        assert_eq!(delhi["outputs"][0]["id"], json!(6));
        assert_eq!(delhi["inputs"], json!({"wkt": "POINT(77.216 28.644)"}));
        let nowhere = config_reply(&model, &query(&[("countries", "Atlantis")]));
        assert_eq!((nowhere.status, body(&nowhere)["outputs"].clone()), (200, json!([])));
        let both = config_reply(&model, &query(&[("countries", "India"), ("wkt", "POINT(0 0)")]));
        assert_eq!((both.status, body(&both)["status"].clone()), (400, json!(400)));
    }

    #[test]
    fn post_rejects_bad_bodies_with_every_problem() {
        let model = TechnicalPotentialModel::synthetic();
        let mut jobs = JobStore::new(JobTiming::default());
        let now = Instant::now();
        let not_json = job_post_reply(&model, &mut jobs, b"{nope", now);
        assert_eq!(not_json.status, 400);
        assert!(body(&not_json)["errors"][0].as_str().unwrap().starts_with("request body is not valid JSON"));
        assert_eq!(job_post_reply(&model, &mut jobs, b"[1]", now).status, 400);
        let missing = body(&job_post_reply(&model, &mut jobs, b"{\"powerDensity\": 3}", now));
        assert_eq!(missing["errors"].as_array().unwrap().len(), 2);
        let wrong = body(&job_post_reply(
            &model,
            &mut jobs,
            br#"{"region": 6, "resource": "14", "powerDensity": "x", "limitByWindSpeed": {"min": 3}}"#,
            now,
        ));
        assert_eq!(wrong["errors"].as_array().unwrap().len(), 2, "{wrong}");
        assert!(jobs.is_empty());
    }

    #[test]
    fn a_job_goes_through_post_get_delete() {
        let model = TechnicalPotentialModel::synthetic();
        let mut jobs =
            JobStore::new(JobTiming { start_delay: Duration::from_secs(1), run_time: Duration::from_secs(2) });
        let base = Instant::now();
        let posted = job_post_reply(&model, &mut jobs, br#"{"region": "India", "resource": "fixlat"}"#, base);
        let posted = body(&posted);
        assert_eq!(posted["outputs"], json!({"jobId": "tpot_result_india_1001", "status": "queued"}));
        assert_eq!(posted["inputs"], json!({"region": "India", "resource": "fixlat"}));
        let get = |jobs: &mut JobStore, seconds: u64| {
            job_get_reply(
                &model,
                jobs,
                &query(&[("jobId", "tpot_result_india_1001")]),
                base + Duration::from_secs(seconds),
            )
        };
        assert_eq!(body(&get(&mut jobs, 0))["outputs"]["status"], json!("queued"));
        assert_eq!(
            body(&get(&mut jobs, 2))["outputs"],
            json!({"disposition": "started", "status": "started", "runtime_seconds": 1})
        );
        let early = job_delete_reply(&model, &mut jobs, &query(&[("jobId", "tpot_result_india_1001")]), base);
        assert_eq!(early.status, 409);
        let finished = body(&get(&mut jobs, 3));
        assert_eq!(finished["outputs"]["map_data_deleted"], json!(false));
        let deleted = job_delete_reply(
            &model,
            &mut jobs,
            &query(&[("jobId", "tpot_result_india_1001")]),
            base + Duration::from_secs(4),
        );
        assert_eq!(deleted.status, 200);
        let deleted = body(&deleted);
        assert_eq!(deleted["outputs"]["map_data_deleted"], json!(true));
        assert_eq!(deleted["outputs"]["results"], finished["outputs"]["results"]);
        assert_eq!(job_get_reply(&model, &mut jobs, &query(&[("jobId", "x")]), base).status, 404);
        assert_eq!(job_get_reply(&model, &mut jobs, &query(&[]), base).status, 400);
    }

    #[test]
    fn unknown_explorers_get_404() {
        let reply = explorer_not_found_reply("nope", &[LIVE_EXPLORER, "demo"]);
        assert_eq!(reply.status, 404);
        assert_eq!(
            body(&reply)["errors"][0],
            json!("explorer 'nope' is not served here; served explorers: rede, demo")
        );
    }
}

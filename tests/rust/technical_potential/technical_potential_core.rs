//! Technical potential core, end to end without HTTP: the live docs' bodies (tests/data/tp_*.json,
//! reconstructed from the deprecated RE Data Explorer docs) parse and validate; the embedded
//! endpoints follow the state table with a fake clock; deletion keeps the summary; every invalid
//! field is named; an unknown job status is a failure; stricter filters never add capacity.

use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use sunflux::embedded::prng::SplitMix64;
use sunflux::embedded::reply::ServiceReply;
use sunflux::embedded::technical_potential::{config_reply, job_delete_reply, job_get_reply, job_post_reply, DATA_SOURCE};
use sunflux::embedded::technical_potential::jobs::{FailureMode, JobStore, JobTiming};
use sunflux::embedded::technical_potential::model::{analyse, TechnicalPotentialModel};
use sunflux::services::technical_potential::{
    classes_to_record_batch, configuration_to_record_batch, parse_configuration, parse_job_result,
    parse_job_submission, validate_job, Configuration, JobStatus, CORRIDOR_DISTANCES, LAND_USE_TYPES, RESOURCE_KEYS,
};

const CONFIG_INDIA: &[u8] = include_bytes!("../../data/tp_config_india.json");
const POST_BODY: &[u8] = include_bytes!("../../data/tp_job_post_body.json");
const QUEUED: &[u8] = include_bytes!("../../data/tp_job_queued.json");
const STARTED: &[u8] = include_bytes!("../../data/tp_job_started.json");
const FINISHED: &[u8] = include_bytes!("../../data/tp_job_finished.json");

const TIMING: JobTiming = JobTiming { start_delay: Duration::from_secs(2), run_time: Duration::from_secs(30) };

fn json_of(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap()
}

fn fields_of(body: &Value) -> Map<String, Value> {
    body.as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| *k != "region" && *k != "resource")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn job_query(job_id: &str) -> Vec<(String, String)> {
    vec![("jobId".to_string(), job_id.to_string()), ("api_key".to_string(), "k".repeat(40))]
}

fn reply_json(reply: &ServiceReply) -> Value {
    assert_eq!(reply.content_type, "application/json; charset=utf-8");
    serde_json::from_slice(&reply.body).unwrap()
}

// ---------------------------------------------------------------------------------------------
// The live docs' bodies

#[test]
fn the_live_configuration_parses() {
    let config = parse_configuration(CONFIG_INDIA).unwrap();
    assert_eq!((config.version.as_deref(), config.count), (Some("1.0.0"), Some(1)));
    assert_eq!(config.inputs["wkt"], json!("POINT(77.216 28.644)"));
    let india = &config.regions[0];
    assert_eq!((india.id, india.region_id, india.label.as_str()), (6, 6, "India"));
    let mut keys: Vec<&str> = india.resources.iter().map(|r| r.key.as_str()).collect();
    keys.sort_unstable();
    let mut expected = RESOURCE_KEYS.to_vec();
    expected.sort_unstable();
    assert_eq!(keys, expected);
    let csp = india.find_resource("csp").unwrap();
    assert_eq!((csp.id, csp.default_power_density), (15, Some(29.0)));
    assert_eq!(csp.field("limitBySolarResource").unwrap().field_id, 2);
    let wind = india.find_resource("32").unwrap();
    assert_eq!(wind.field("limitByWindSpeed").unwrap().default_value, Some(json!({"min": 3, "max": null})));
    let extents = wind.field("limitByGeographicExtent").unwrap().field_values.clone().unwrap();
    assert_eq!(extents.as_array().unwrap().len(), 36);
    let table = configuration_to_record_batch(&config).unwrap();
    assert_eq!((table.num_rows(), table.num_columns()), (64, 12));
}

#[test]
fn the_live_post_body_is_exactly_the_canonical_body() {
    let config = parse_configuration(CONFIG_INDIA).unwrap();
    let body = json_of(POST_BODY);
    let request = validate_job(&config, "6", "32", &fields_of(&body)).unwrap();
    assert_eq!(Value::Object(request.body.clone()), body);
    assert_eq!(request.body.keys().collect::<Vec<_>>(), body.as_object().unwrap().keys().collect::<Vec<_>>());
    assert_eq!((request.region_label.as_str(), request.resource_key.as_str()), ("India", "wind_t200"));
    assert!(request.filters.exclude_protected_areas);
    assert_eq!(request.filters.excluded_land_use.len(), 3);
    let native = json!({
        "excludeProtectedAreas": true, "limitBySlope": {"min": 1, "max": 12},
        "limitToTransmissionCorridors": {"distance": 50, "units": "kilometers"}, "powerDensity": 3,
        "limitToRoadCorridors": {"distance": 50}, "limitByWindSpeed": {"min": 3.0, "max": 20},
        "limitByGeographicExtent": ["andaman and nicobar", "Chhattisgarh"],
        "limitByLandUse": ["Urban and Built-Up Land", "Water Bodies", "Wooded Wetland"]
    });
    let from_native = validate_job(&config, "India", "wind_t200", native.as_object().unwrap()).unwrap();
    assert_eq!(from_native.body, request.body, "native values give the same canonical body");
}

#[test]
fn the_live_job_bodies_parse() {
    let submission = parse_job_submission(QUEUED).unwrap();
    assert_eq!((submission.job_id.as_str(), submission.status), ("tpot_result_india_3513", JobStatus::Queued));
    let started = parse_job_result(STARTED).unwrap();
    assert_eq!((started.status, started.runtime_seconds), (JobStatus::Started, Some(26.98)));
    assert_eq!(started.job_id.as_deref(), Some("tpot_result_india_3513"));
    assert!(started.results.is_none() && started.map_data_deleted.is_none());
    let finished = parse_job_result(FINISHED).unwrap();
    assert_eq!(
        (finished.status, finished.map_data_deleted, finished.runtime_seconds),
        (JobStatus::Finished, Some(true), Some(33.0))
    );
    let results = finished.results.unwrap();
    let cumulative = &results.cumulative_stats;
    assert_eq!(
        (cumulative.total_nameplate_capacity_mw, cumulative.min, cumulative.max),
        (159505.72, Some(0.0), Some(6.0))
    );
    assert_eq!(cumulative.classes.len(), 6);
    assert_eq!(cumulative.classes[0].min, 0.001);
    let chhattisgarh = &results.regional_stats["Chhattisgarh"];
    assert_eq!((chhattisgarh.min, chhattisgarh.max), (Some(1.0), Some(6.0)));
    let resource = results.resource_data.unwrap();
    assert_eq!((resource.resource_type.as_str(), resource.units.as_str()), ("wind_t200", "kWh/m<sup>2</sup>/day"));
    let table = classes_to_record_batch(&cumulative.classes).unwrap();
    assert_eq!((table.num_rows(), table.num_columns()), (6, 5));
}

#[test]
fn the_live_post_body_runs_on_the_embedded_service() {
    let model = TechnicalPotentialModel::synthetic();
    let mut jobs = JobStore::new(TIMING);
    let base = Instant::now();
    let posted = job_post_reply(&model, &mut jobs, POST_BODY, base);
    assert_eq!(posted.status, 200);
    let posted_json = reply_json(&posted);
    assert_eq!(posted_json["inputs"], json_of(POST_BODY));
    assert_eq!(posted_json["metadata"]["data_source"], json!(DATA_SOURCE));
    let job_id = parse_job_submission(&posted.body).unwrap().job_id;
    let finished =
        parse_job_result(&job_get_reply(&model, &mut jobs, &job_query(&job_id), base + Duration::from_secs(60)).body)
            .unwrap();
    let results = finished.results.unwrap();
    assert!(results.regional_stats.keys().all(|name| name == "Andaman and Nicobar" || name == "Chhattisgarh"));
    assert_eq!(results.resource_data.unwrap().units, "m/s");
    assert!(results.cumulative_stats.min.unwrap() >= 3.0 && results.cumulative_stats.max.unwrap() <= 20.0);
}

// ---------------------------------------------------------------------------------------------
// Configuration endpoint

#[test]
fn the_embedded_configuration_parses_with_the_client_parser() {
    let model = TechnicalPotentialModel::synthetic();
    let reply = config_reply(&model, &[]);
    let config = parse_configuration(&reply.body).unwrap();
    assert_eq!(config.regions, model.configuration().regions);
    assert_eq!(config.count, Some(3));
    let by_point =
        parse_configuration(&config_reply(&model, &[("wkt".into(), "POINT(77.216 28.644)".into())]).body).unwrap();
    assert_eq!(by_point.regions.iter().map(|r| r.label.as_str()).collect::<Vec<_>>(), ["India"]);
    let by_name =
        parse_configuration(&config_reply(&model, &[("countries".into(), "Indonesia,Bangladesh".into())]).body)
            .unwrap();
    assert_eq!(by_name.regions.iter().map(|r| r.id).collect::<Vec<_>>(), [3]);
    let bad = config_reply(&model, &[("wkt".into(), "POINT(77.216)".into())]);
    assert_eq!(bad.status, 400);
    assert!(reply_json(&bad)["errors"][0].as_str().unwrap().starts_with("wkt: "));
}

// ---------------------------------------------------------------------------------------------
// State machine and deletion

#[test]
fn the_state_table_end_to_end() {
    let model = TechnicalPotentialModel::synthetic();
    let mut jobs = JobStore::new(TIMING);
    let base = Instant::now();
    let at = |seconds: f64| base + sunflux::limits::clamped_seconds(seconds);
    let posted = job_post_reply(
        &model,
        &mut jobs,
        br#"{"region": "12", "resource": "14", "excludeProtectedAreas": "true"}"#,
        base,
    );
    let submission = parse_job_submission(&posted.body).unwrap();
    assert_eq!((submission.job_id.as_str(), submission.status), ("tpot_result_kenya_1001", JobStatus::Queued));

    let poll = |jobs: &mut JobStore, seconds: f64| {
        let reply = job_get_reply(&model, jobs, &job_query(&submission.job_id), at(seconds));
        assert_eq!(reply.status, 200);
        let json = reply_json(&reply);
        assert_eq!(json["inputs"], json!({"jobId": submission.job_id}), "the api_key is never echoed");
        parse_job_result(&reply.body).unwrap()
    };
    let queued = poll(&mut jobs, 1.0);
    assert_eq!(
        (queued.status, queued.disposition.as_deref(), queued.runtime_seconds),
        (JobStatus::Queued, Some("queued"), Some(0.0))
    );
    let started = poll(&mut jobs, 28.98);
    assert_eq!((started.status, started.runtime_seconds), (JobStatus::Started, Some(26.98)));
    let finished = poll(&mut jobs, 32.0);
    assert_eq!(
        (finished.status.clone(), finished.runtime_seconds, finished.map_data_deleted),
        (JobStatus::Finished, Some(30.0), Some(false))
    );
    let results = finished.results.clone().unwrap();
    let regional_capacity: f64 = results.regional_stats.values().map(|s| s.total_nameplate_capacity_mw).sum();
    assert!((regional_capacity - results.cumulative_stats.total_nameplate_capacity_mw).abs() < 0.1);
    assert_eq!(results.regional_stats.len(), 5);
    assert_eq!(poll(&mut jobs, 3600.0), finished, "a finished job does not change");
}

#[test]
fn deletion_destroys_map_data_and_keeps_the_summary() {
    let model = TechnicalPotentialModel::synthetic();
    let mut jobs = JobStore::new(TIMING);
    let base = Instant::now();
    let job_id =
        parse_job_submission(&job_post_reply(&model, &mut jobs, br#"{"region": 3, "resource": 34}"#, base).body)
            .unwrap()
            .job_id;
    let refused = job_delete_reply(&model, &mut jobs, &job_query(&job_id), base + Duration::from_secs(5));
    assert_eq!(refused.status, 409);
    assert!(reply_json(&refused)["errors"][0].as_str().unwrap().contains("only a finished job can be deleted"));
    let before =
        parse_job_result(&job_get_reply(&model, &mut jobs, &job_query(&job_id), base + Duration::from_secs(40)).body)
            .unwrap();
    let deleted_reply = job_delete_reply(&model, &mut jobs, &job_query(&job_id), base + Duration::from_secs(41));
    assert_eq!(deleted_reply.status, 200);
    let deleted = parse_job_result(&deleted_reply.body).unwrap();
    assert_eq!((deleted.status.clone(), deleted.map_data_deleted), (JobStatus::Finished, Some(true)));
    assert_eq!(deleted.results, before.results);
    let after =
        parse_job_result(&job_get_reply(&model, &mut jobs, &job_query(&job_id), base + Duration::from_secs(42)).body)
            .unwrap();
    assert_eq!(after, deleted);
    assert_eq!(job_delete_reply(&model, &mut jobs, &job_query(&job_id), base + Duration::from_secs(43)).status, 200);
    let unknown = job_delete_reply(&model, &mut jobs, &job_query("tpot_result_nowhere_9"), base);
    assert_eq!((unknown.status, reply_json(&unknown)["status"].clone()), (404, json!(404)));
    assert_eq!(job_get_reply(&model, &mut jobs, &job_query("tpot_result_nowhere_9"), base).status, 404);
    assert_eq!(job_get_reply(&model, &mut jobs, &[], base).status, 400);
}

// ---------------------------------------------------------------------------------------------
// Invalid fields

#[test]
fn every_invalid_field_is_named_by_client_and_service_alike() {
    let model = TechnicalPotentialModel::synthetic();
    let config: &Configuration = model.configuration();
    let cases: &[(&str, &str, &str, Value, &str)] = &[
        ("6", "32", "excludeProtectedAreas", json!("maybe"), "excludeProtectedAreas: expected true or false"),
        ("6", "32", "excludeProtectedAreas", json!(1), "excludeProtectedAreas: expected true or false"),
        ("6", "32", "limitBySlope", json!("5"), "limitBySlope: expected an object with min and/or max"),
        ("6", "32", "limitBySlope", json!({}), "limitBySlope: give min and/or max"),
        ("6", "32", "limitBySlope", json!({"min": 10, "max": "2"}), "limitBySlope: min 10 is greater than max 2"),
        ("6", "32", "limitBySlope", json!({"min": "steep"}), "limitBySlope.min: expected a number"),
        ("6", "32", "limitBySlope", json!({"min": 1, "avg": 2}), "limitBySlope: unknown key 'avg'"),
        (
            "6",
            "32",
            "limitToTransmissionCorridors",
            json!({"distance": 7}),
            "limitToTransmissionCorridors.distance: 7 is not offered",
        ),
        (
            "6",
            "32",
            "limitToTransmissionCorridors",
            json!({"units": "kilometers"}),
            "limitToTransmissionCorridors.distance: required",
        ),
        (
            "6",
            "32",
            "limitToTransmissionCorridors",
            json!({"distance": 5, "units": "furlongs"}),
            "limitToTransmissionCorridors.units: expected kilometers or miles",
        ),
        (
            "6",
            "32",
            "limitToTransmissionCorridors",
            json!(50),
            "limitToTransmissionCorridors: expected an object with distance and units",
        ),
        (
            "6",
            "32",
            "limitToRoadCorridors",
            json!({"distance": "far"}),
            "limitToRoadCorridors.distance: expected a number",
        ),
        (
            "6",
            "32",
            "limitToRoadCorridors",
            json!({"distance": 5, "width": 1}),
            "limitToRoadCorridors: unknown key 'width'",
        ),
        ("6", "32", "powerDensity", json!("lots"), "powerDensity: expected a number"),
        ("6", "32", "powerDensity", json!(-3), "powerDensity: must be greater than 0"),
        ("6", "32", "powerDensity", json!("0"), "powerDensity: must be greater than 0"),
        ("6", "32", "limitByWindSpeed", json!({"min": 12, "max": 4}), "limitByWindSpeed: min 12 is greater than max 4"),
        (
            "6",
            "32",
            "limitBySolarResource",
            json!({"min": 4}),
            "limitBySolarResource: not an input field of resource wind_t200",
        ),
        ("6", "14", "limitByWindSpeed", json!({"min": 4}), "limitByWindSpeed: not an input field of resource fixlat"),
        (
            "6",
            "14",
            "limitBySolarResource",
            json!([2, 9]),
            "limitBySolarResource: expected an object with min and/or max",
        ),
        (
            "6",
            "32",
            "limitByGeographicExtent",
            json!(["Atlantis"]),
            "limitByGeographicExtent: 'Atlantis' is not one of the offered values",
        ),
        (
            "6",
            "32",
            "limitByGeographicExtent",
            json!(["Nairobi"]),
            "limitByGeographicExtent: 'Nairobi' is not one of the offered values",
        ),
        (
            "6",
            "32",
            "limitByGeographicExtent",
            json!([]),
            "limitByGeographicExtent: list at least one geographic extent",
        ),
        ("6", "32", "limitByGeographicExtent", json!(5), "limitByGeographicExtent: expected an array of strings"),
        (
            "6",
            "32",
            "limitByLandUse",
            json!(["Lava Field"]),
            "limitByLandUse: 'Lava Field' is not one of the offered values",
        ),
        ("6", "32", "limitByLandUse", json!([1]), "limitByLandUse: expected strings, got 1"),
        ("6", "32", "colour", json!("blue"), "colour: not an input field of resource wind_t200 in region India"),
        ("99", "32", "powerDensity", json!(3), "region: '99' is not a region of the configuration"),
        ("6", "wind_t999", "powerDensity", json!(3), "resource: 'wind_t999' is not available in region India"),
        ("3", "csp", "powerDensity", json!(3), "resource: 'csp' is not available in region Bangladesh"),
    ];
    let mut jobs = JobStore::new(TIMING);
    for (region, resource, field, value, expected) in cases {
        let fields: Map<String, Value> = [(field.to_string(), value.clone())].into_iter().collect();
        let problems = validate_job(config, region, resource, &fields).unwrap_err();
        assert_eq!(problems.len(), 1, "{field}={value}: {problems:?}");
        assert!(problems[0].starts_with(expected), "{field}={value}: got {:?}, expected {expected:?}", problems[0]);

        let mut body = fields.clone();
        body.insert("region".into(), json!(region));
        body.insert("resource".into(), json!(resource));
        let reply = job_post_reply(&model, &mut jobs, &serde_json::to_vec(&body).unwrap(), Instant::now());
        assert_eq!(reply.status, 400, "{field}={value}");
        let json = reply_json(&reply);
        assert_eq!(json["errors"], json!(problems), "the service says what the client says");
        assert_eq!((json["status"].clone(), json["inputs"].clone()), (json!(400), Value::Object(body)));
    }
    assert!(jobs.is_empty(), "no invalid job was queued");
    let missing = reply_json(&job_post_reply(&model, &mut jobs, br#"{"resource": [32]}"#, Instant::now()));
    assert_eq!(
        missing["errors"],
        json!([
            "region: required (the id of a configuration output)",
            "resource: expected the id of an available resource as a string, got [32]"
        ])
    );
}

#[test]
fn all_problems_are_reported_at_once() {
    let model = TechnicalPotentialModel::synthetic();
    let fields = json!({"excludeProtectedAreas": "no", "powerDensity": "x", "limitByLandUse": ["Lava"], "extra": 1});
    let problems = validate_job(model.configuration(), "6", "14", fields.as_object().unwrap()).unwrap_err();
    assert_eq!(problems.len(), 4, "{problems:?}");
}

// ---------------------------------------------------------------------------------------------
// Failure status

#[test]
fn an_unknown_status_is_a_failure_with_the_body_errors() {
    let body = json!({
        "metadata": {"version": "1.0.0", "resultset": {"count": 1}},
        "inputs": {"jobId": "tpot_result_india_1"},
        "outputs": {"disposition": "error", "status": "error", "runtime_seconds": 4.2},
        "errors": ["Raster processing failed"],
        "status": 200
    });
    let result = parse_job_result(&serde_json::to_vec(&body).unwrap()).unwrap();
    assert_eq!(result.status, JobStatus::Failed("error".into()));
    assert!(result.status.is_terminal());
    assert_eq!(result.errors, ["Raster processing failed"]);
}

#[test]
fn an_injected_failure_reaches_the_client_parser() {
    let model = TechnicalPotentialModel::synthetic();
    let failure = FailureMode::new("failed", "synthetic failure for testing").for_region("India");
    let mut jobs = JobStore::new(TIMING).with_failure(failure);
    let base = Instant::now();
    let job_id = parse_job_submission(&job_post_reply(&model, &mut jobs, POST_BODY, base).body).unwrap().job_id;
    let running =
        parse_job_result(&job_get_reply(&model, &mut jobs, &job_query(&job_id), base + Duration::from_secs(3)).body)
            .unwrap();
    assert_eq!(running.status, JobStatus::Started);
    let reply = job_get_reply(&model, &mut jobs, &job_query(&job_id), base + Duration::from_secs(33));
    assert_eq!(reply.status, 200);
    let failed = parse_job_result(&reply.body).unwrap();
    assert_eq!(failed.status, JobStatus::Failed("failed".into()));
    assert_eq!(
        (failed.disposition.as_deref(), failed.errors.clone()),
        (Some("failed"), vec!["synthetic failure for testing".to_string()])
    );
    assert!(failed.results.is_none());
    let other = parse_job_submission(
        &job_post_reply(&model, &mut jobs, br#"{"region": "Kenya", "resource": "fixlat"}"#, base).body,
    )
    .unwrap();
    let fine = parse_job_result(
        &job_get_reply(&model, &mut jobs, &job_query(&other.job_id), base + Duration::from_secs(33)).body,
    )
    .unwrap();
    assert_eq!(fine.status, JobStatus::Finished);
}

// ---------------------------------------------------------------------------------------------
// Property: stricter filters never increase capacity (through validation, with offered values)

/// A random job of valid JSON fields for a resource, and a stricter copy of it.
fn random_fields(rng: &mut SplitMix64, extents: &[String], wind: bool) -> Map<String, Value> {
    let mut fields = Map::new();
    let pick = |rng: &mut SplitMix64, n: usize| rng.below(n as u64) as usize;
    if rng.below(3) == 0 {
        fields.insert("excludeProtectedAreas".into(), json!(rng.below(2) == 0));
    }
    if rng.below(2) == 0 {
        let low = 20.0 * rng.next_f64();
        fields.insert("limitBySlope".into(), json!({"min": low / 4.0, "max": low + 5.0}));
    }
    for corridor in ["limitToTransmissionCorridors", "limitToRoadCorridors"] {
        if rng.below(2) == 0 {
            let distance = CORRIDOR_DISTANCES[pick(rng, CORRIDOR_DISTANCES.len())];
            let units = if rng.below(2) == 0 { "kilometers" } else { "miles" };
            fields.insert(corridor.into(), json!({"distance": distance, "units": units}));
        }
    }
    let (limit, low, high) = if wind { ("limitByWindSpeed", 2.0, 11.0) } else { ("limitBySolarResource", 2.0, 8.0) };
    let a = low + (high - low) * rng.next_f64();
    fields.insert(limit.into(), json!({"min": a - 1.0, "max": a + 2.0}));
    if rng.below(2) == 0 {
        let chosen: Vec<&String> = extents.iter().filter(|_| rng.below(2) == 0).collect();
        if !chosen.is_empty() {
            fields.insert("limitByGeographicExtent".into(), json!(chosen));
        }
    }
    let excluded: Vec<&str> = LAND_USE_TYPES.iter().copied().filter(|_| rng.below(5) == 0).collect();
    fields.insert("limitByLandUse".into(), json!(excluded));
    fields
}

fn tighten(rng: &mut SplitMix64, fields: &Map<String, Value>, extents: &[String], wind: bool) -> Map<String, Value> {
    let mut strict = fields.clone();
    match rng.below(6) {
        0 => {
            strict.insert("excludeProtectedAreas".into(), json!(true));
        }
        1 => {
            let slope = strict.get("limitBySlope").cloned().unwrap_or(json!({"min": 0, "max": 60}));
            strict.insert(
                "limitBySlope".into(),
                json!({"min": slope["min"].as_f64().unwrap() + 0.5, "max": slope["max"]}),
            );
        }
        2 => {
            let key = if rng.below(2) == 0 { "limitToTransmissionCorridors" } else { "limitToRoadCorridors" };
            let current = strict.get(key).and_then(|c| c["distance"].as_f64()).unwrap_or(100.0);
            let units = strict.get(key).map_or(json!("kilometers"), |c| c["units"].clone());
            let shorter: Vec<f64> = CORRIDOR_DISTANCES.iter().copied().filter(|d| *d <= current).collect();
            let distance = shorter[rng.below(shorter.len() as u64) as usize];
            strict.insert(key.into(), json!({"distance": distance, "units": units}));
        }
        3 => {
            let key = if wind { "limitByWindSpeed" } else { "limitBySolarResource" };
            let limit = &fields[key];
            strict.insert(key.into(), json!({"min": limit["min"].as_f64().unwrap() + 0.3, "max": limit["max"]}));
        }
        4 => {
            let current: Vec<String> = match strict.get("limitByGeographicExtent") {
                Some(list) => list.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect(),
                None => extents.to_vec(),
            };
            let kept: Vec<String> = current.iter().filter(|_| rng.below(3) != 0).cloned().collect();
            if !kept.is_empty() {
                strict.insert("limitByGeographicExtent".into(), json!(kept));
            }
        }
        _ => {
            let mut excluded: Vec<Value> = strict["limitByLandUse"].as_array().unwrap().clone();
            excluded.push(json!(LAND_USE_TYPES[rng.below(LAND_USE_TYPES.len() as u64) as usize]));
            strict.insert("limitByLandUse".into(), Value::from(excluded));
        }
    }
    strict
}

#[test]
fn stricter_filters_never_increase_capacity_through_validation() {
    let model = TechnicalPotentialModel::synthetic();
    let config = model.configuration();
    let mut rng = SplitMix64::new(20_260_521);
    for case in 0..300 {
        let region = &config.regions[rng.below(config.regions.len() as u64) as usize];
        let resource = &region.resources[rng.below(region.resources.len() as u64) as usize];
        let country = model.country(region.id).unwrap();
        let spec = country.resource(resource.id).unwrap();
        let extents: Vec<String> = country.sub_regions.iter().map(|s| s.name.to_string()).collect();
        let wind = spec.kind.is_wind();
        let loose = random_fields(&mut rng, &extents, wind);
        let strict = tighten(&mut rng, &loose, &extents, wind);
        let run = |fields: &Map<String, Value>| {
            let request = validate_job(config, &region.id.to_string(), &resource.key, fields)
                .unwrap_or_else(|problems| panic!("case {case}: {problems:?} for {fields:?}"));
            analyse(country, spec, &request.filters).cumulative_stats
        };
        let (a, b) = (run(&loose), run(&strict));
        assert!(
            b.total_nameplate_capacity_mw <= a.total_nameplate_capacity_mw,
            "case {case} ({} {}): {} > {}\nloose {loose:?}\nstrict {strict:?}",
            region.label,
            resource.key,
            b.total_nameplate_capacity_mw,
            a.total_nameplate_capacity_mw
        );
    }
}

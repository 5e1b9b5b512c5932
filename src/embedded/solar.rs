//! The embedded service's dataset query endpoint (`spec::routes::Endpoint::DataQuery`, `GET`
//! `v1.<format>` and `v2.<format>`): validates the query, looks up the synthetic catalog and answers with the
//! spec's envelope (200 with outputs, 422 with errors) in json, xml or csv.
//!
//! Echo rules: `inputs` holds the recognised parameters (lat, lon, radius, all) as received;
//! v2 also echoes the api_key, first, as the spec says, and v1 never does. A 422 on a csv request
//! is answered with the JSON envelope, as real csv endpoints answer errors in JSON.

use serde_json::{json, Map, Value};

use crate::formats::Format;
use crate::embedded::catalog::{Catalog, Hit};
use crate::embedded::reply::ServiceReply;
use crate::embedded::state::{query_pairs, reply_response, AuthenticatedKey, ServiceState};
use crate::services::solar::{
    no_data_warning, validate_data_query, write_data_query, DataQueryParams, Dataset, QueryVersion, RawDataQuery,
    Station, StationQuery,
};

/// The axum handler: `file` is the last path segment, `v1.json` … `v2.csv`.
pub async fn handle(
    axum::extract::State(state): axum::extract::State<std::sync::Arc<ServiceState>>,
    axum::extract::Path(file): axum::extract::Path<String>,
    axum::Extension(key): axum::Extension<AuthenticatedKey>,
    request: axum::extract::Request,
) -> axum::response::Response {
    let parsed = file.split_once('.').and_then(|(version, suffix)| Some((QueryVersion::parse(version)?, Format::from_suffix(suffix)?)));
    let reply = match parsed {
        Some((version, format)) => data_query_reply(version, format, &query_pairs(&request), &key.0, state.catalog),
        None => ServiceReply::json(
            404,
            &json!({"errors": [format!("unknown dataset query path {file:?}: use v1 or v2 with .json, .xml or .csv")]}),
        ),
    };
    reply_response(reply)
}

/// The `version` string of each path version of this local service.
pub fn service_version(version: QueryVersion) -> &'static str {
    match version {
        QueryVersion::V1 => "1.0.0-local",
        QueryVersion::V2 => "2.0.0-local",
    }
}

/// Query parameters echoed in `inputs`, in addition to the api_key in v2.
const ECHOED_PARAMETERS: [&str; 4] = ["lat", "lon", "radius", "all"];

/// Answers one dataset query request. `query` is the decoded query string; `api_key_for_echo`
/// is the key the request authenticated with (echoed by v2 only).
pub fn data_query_reply(
    version: QueryVersion,
    format: Format,
    query: &[(String, String)],
    api_key_for_echo: &str,
    catalog: &Catalog,
) -> ServiceReply {
    let inputs = echoed_inputs(version, query, api_key_for_echo);
    match validate_data_query(&RawDataQuery::from_query(query, version, format)) {
        Ok(params) => written_reply(200, &answer(&params, inputs, catalog), format),
        Err(problems) => rejection_reply(version, format, inputs, problems),
    }
}

/// The result of a valid query: the closest station per dataset within the radius (a warning
/// for each dataset without one) and, for v1 with all=1, every station within the radius.
pub fn answer(params: &DataQueryParams, inputs: Map<String, Value>, catalog: &Catalog) -> StationQuery {
    let radius_m = params.radius_m();
    let closest: Vec<(String, Option<Station>)> = Dataset::ALL
        .into_iter()
        .map(|dataset| {
            let hit = catalog.nearest(dataset, params.lat, params.lon, radius_m);
            (dataset.code().to_string(), hit.map(|hit| station_record(&hit, params.version)))
        })
        .collect();
    let warnings = closest
        .iter()
        .filter(|(_, station)| station.is_none())
        .map(|(code, _)| no_data_warning(code, params.lat, params.lon))
        .collect();
    let all_stations = match (params.lists_all_stations(), radius_m) {
        (true, Some(radius_m)) => Some(
            catalog
                .all_within(params.lat, params.lon, radius_m)
                .iter()
                .map(|hit| station_record(hit, params.version))
                .collect(),
        ),
        _ => None,
    };
    StationQuery {
        query_version: params.version,
        version: Some(service_version(params.version).to_string()),
        inputs,
        errors: Vec::new(),
        warnings,
        metadata: Map::new(),
        closest,
        all_stations,
    }
}

/// A catalog hit as a response record: v2 adds `weather_data_source`, and `country` on satdb.
fn station_record(hit: &Hit<'_>, version: QueryVersion) -> Station {
    let station = hit.station.as_ref();
    let is_v2 = version == QueryVersion::V2;
    let country = Some(station.country.clone()).filter(|c| is_v2 && station.dataset == Dataset::Satdb && !c.is_empty());
    Station {
        id: station.id(version).to_string(),
        lat: station.lat,
        lon: station.lon,
        city: station.city.clone(),
        state: station.state.clone(),
        timezone: station.timezone,
        elevation: station.elevation,
        distance: hit.distance_m.round() as i64,
        resolution: station.resolution_km,
        country,
        weather_data_source: is_v2.then(|| station.weather_data_source.to_string()),
        dataset: Some(station.dataset.code().to_string()),
        query_version: version,
    }
}

/// `inputs` as the spec describes it for each version.
fn echoed_inputs(version: QueryVersion, query: &[(String, String)], api_key: &str) -> Map<String, Value> {
    let mut inputs = Map::new();
    if version == QueryVersion::V2 {
        inputs.insert("api_key".into(), Value::from(api_key));
    }
    for (name, value) in query.iter().filter(|(name, _)| ECHOED_PARAMETERS.contains(&name.as_str())) {
        inputs.insert(name.clone(), Value::from(value.as_str()));
    }
    inputs
}

/// 422 with the envelope whose `errors` say how to fix the request; JSON for a csv request.
fn rejection_reply(
    version: QueryVersion,
    format: Format,
    inputs: Map<String, Value>,
    problems: Vec<String>,
) -> ServiceReply {
    let rejected = StationQuery {
        query_version: version,
        version: Some(service_version(version).to_string()),
        inputs,
        errors: problems,
        warnings: Vec::new(),
        metadata: Map::new(),
        closest: Vec::new(),
        all_stations: None,
    };
    let format = if format == Format::Csv { Format::Json } else { format };
    written_reply(422, &rejected, format)
}

/// The result written in `format`; a result that cannot be written is this service's fault (500).
fn written_reply(status: u16, result: &StationQuery, format: Format) -> ServiceReply {
    match write_data_query(result, format) {
        Ok(body) => ServiceReply::new(status, format.content_type(), body),
        Err(problem) => ServiceReply::json(500, &json!({ "errors": [problem.to_string()] })),
    }
}

//! The embedded service's PV estimator, `GET v6.<json|xml>` under the estimator's root of either
//! route profile (`spec::routes::Endpoint::PvEstimator`): validates with the client's rules, resolves the station
//! like the real service (nearest of `dataset` within `radius`, or the `file_id` station), runs
//! the local PVWatts v5 engine on that station's synthetic weather, and answers with the v6
//! envelope in json (optionally JSONP) or xml.

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use crate::formats::xml::write_xml;
use crate::formats::Format;
use crate::embedded::catalog::{Catalog, CatalogStation};
use crate::embedded::reply::ServiceReply;
use crate::embedded::station_weather::WeatherSource;
use crate::embedded::state::{query_pairs, reply_response, ServiceState};
use crate::pvwatts::simulate;
use crate::services::pv_estimator::{validate_estimate, EstimateParams, Location, PvEstimate, RawEstimate, SscInfo, StationInfo};
use crate::services::solar::{v2_file_id_problem, QueryVersion};

mod v8;

/// The `version` string of the embedded estimator.
pub const SERVICE_VERSION: &str = "1.4.0-sunflux-local";
/// The SSC build whose `pvwattsv5` results the local engine reproduces (see `shared/pvref`).
pub const SSC_VERSION: i64 = 306;

/// The axum handler: `file` is `v6.json`, `v6.xml`, `v8.json` or `v8.xml` (v8 is answered by
/// its child module `v8`).
pub async fn handle(
    axum::extract::State(state): axum::extract::State<std::sync::Arc<ServiceState>>,
    axum::extract::Path(file): axum::extract::Path<String>,
    request: axum::extract::Request,
) -> axum::response::Response {
    let (version, format) = match file.as_str() {
        "v6.json" => (6, Format::Json),
        "v6.xml" => (6, Format::Xml),
        "v8.json" => (8, Format::Json),
        "v8.xml" => (8, Format::Xml),
        _ => {
            return reply_response(ServiceReply::json(
                404,
                &json!({"errors": [format!("unknown estimator path {file:?}: use v6.json, v6.xml, v8.json or v8.xml")]}),
            ))
        }
    };
    let query = query_pairs(&request);
    let reply = tokio::task::spawn_blocking(move || match version {
        8 => v8::estimate_reply_v8(format, &query, state.catalog, &state.station_weather),
        _ => estimate_reply(format, &query, state.catalog, &state.station_weather),
    })
        .await
        .unwrap_or_else(|e| ServiceReply::json(500, &json!({"errors": [format!("the estimate failed: {e}")]})));
    reply_response(reply)
}

/// Answers one estimator request.
pub fn estimate_reply(format: Format, query: &[(String, String)], catalog: &Catalog, source: &dyn WeatherSource) -> ServiceReply {
    let inputs = echoed_inputs(query);
    let params = match validate_estimate(&RawEstimate::from_query(query, format)) {
        Ok(params) => params,
        Err(problems) => return rejection(SERVICE_VERSION, format, inputs, problems),
    };
    let (station, distance_m) = match resolve_station(&params, catalog) {
        Ok(found) => found,
        Err(problem) => return rejection(SERVICE_VERSION, params.format, inputs, vec![problem]),
    };
    let weather = match source.weather(&station) {
        Ok(weather) => weather,
        Err(problem) => return rejection(SERVICE_VERSION, params.format, inputs, vec![format!("Unable to load data file for the station: {problem}")]),
    };
    let output = simulate(&weather, &params.system);
    let mut estimate = PvEstimate::from_simulation(output, params.timeframe, Some(station_info(&station, distance_m)), inputs);
    estimate.version = Some(SERVICE_VERSION.to_owned());
    estimate.ssc_info = Some(SscInfo { version: SSC_VERSION, build: format!("sunflux {} local PVWatts v5 engine", env!("CARGO_PKG_VERSION")), module: None });
    written(200, &estimate.envelope_value(), params.format, params.callback.as_deref())
}

/// The station the estimate runs on, with its distance in metres from the request's point.
pub fn resolve_station<'a>(params: &EstimateParams, catalog: &'a Catalog) -> Result<(Cow<'a, CatalogStation>, f64), String> {
    resolve_location(&params.location, catalog, QueryVersion::V1)
}

/// The station of a location, with its distance in metres; a `file_id` must come from dataset
/// query `ids` (v1 for the v6 estimator, v2 for v8). The dataset is named as `dataset_code`
/// names it in messages.
pub(crate) fn resolve_location<'a>(
    location: &Location,
    catalog: &'a Catalog,
    ids: QueryVersion,
) -> Result<(Cow<'a, CatalogStation>, f64), String> {
    let dataset_code = |dataset: crate::services::solar::Dataset| match ids {
        QueryVersion::V1 => dataset.code(),
        QueryVersion::V2 => crate::services::pv_estimator::v8::v8_dataset_code(dataset),
    };
    match location {
        Location::Coordinates { lat, lon, dataset, radius_miles } => {
            let radius_m = (*radius_miles > 0).then(|| f64::from(*radius_miles) * crate::services::solar::METRES_PER_MILE);
            catalog.nearest(*dataset, *lat, *lon, radius_m).map(|hit| (hit.station, hit.distance_m)).ok_or_else(|| {
                format!("No climate data found with dataset={} for location specified: lat={lat} lon={lon}", dataset_code(*dataset))
            })
        }
        Location::FileId(id) => match catalog.lookup_id(id) {
            Some((version, station)) if version == ids => Ok((station, 0.0)),
            Some((QueryVersion::V2, _)) => Err(v2_file_id_problem(id)),
            Some((QueryVersion::V1, _)) => Err(crate::services::pv_estimator::v8::v1_file_id_problem(id)),
            None => Err(format!("Unable to load data file for file_id specified: {id}")),
        },
    }
}

pub(crate) fn station_info(station: &CatalogStation, distance_m: f64) -> StationInfo {
    StationInfo {
        lat: station.lat,
        lon: station.lon,
        elev: station.elevation as f64,
        tz: station.timezone,
        location: station.v1_id.clone(),
        city: station.city.clone(),
        state: station.state.clone(),
        solar_resource_file: format!("{}.csv", station.v1_id),
        distance: Some(distance_m.round() as i64),
        weather_data_source: Some(station.weather_data_source.to_owned()),
    }
}

/// The request parameters as received (strings, as the real service echoes them), without the key.
pub(crate) fn echoed_inputs(query: &[(String, String)]) -> Map<String, Value> {
    let mut inputs = Map::new();
    for (name, value) in query {
        if name != "api_key" {
            inputs.insert(name.clone(), Value::String(value.clone()));
        }
    }
    inputs
}

/// The estimator's 422 answer (JSON, or XML when asked) naming every problem, in the envelope of
/// the estimator `version`.
pub(crate) fn rejection(version: &str, format: Format, inputs: Map<String, Value>, problems: Vec<String>) -> ServiceReply {
    let envelope = json!({
        "inputs": inputs,
        "errors": problems,
        "warnings": [],
        "version": version,
        "outputs": {},
    });
    written(422, &envelope, if format == Format::Xml { Format::Xml } else { Format::Json }, None)
}

pub(crate) fn written(status: u16, envelope: &Value, format: Format, callback: Option<&str>) -> ServiceReply {
    match (format, callback) {
        (Format::Xml, _) => match write_xml(envelope) {
            Ok(body) => ServiceReply::new(status, Format::Xml.content_type(), body),
            Err(error) => ServiceReply::json(500, &json!({"errors": [format!("could not write XML: {error}")]})),
        },
        (_, Some(callback)) => ServiceReply::new(status, "application/javascript; charset=utf-8", format!("{callback}({envelope});")),
        _ => ServiceReply::json(status, envelope),
    }
}

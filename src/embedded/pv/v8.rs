//! The embedded service's PV estimator v8, `GET v8.<json|xml>` under the estimator's root of
//! either route profile (`spec::routes::Endpoint::PvEstimatorV8`): validates with the client's v8 rules, resolves the station
//! like v6 (a `file_id` must come from dataset query v2), runs the local PVWatts v8 engine on that
//! station's synthetic weather, and answers with the v8 envelope: `ssc_info.module`, the station's
//! `weather_data_source` and v2 id, and hourly `alb` besides v6's eight series.

use serde_json::{json, Map, Value};

use crate::formats::Format;
use crate::embedded::catalog::Catalog;
use crate::embedded::pv::{echoed_inputs, rejection, resolve_location, station_info, written, SSC_VERSION};
use crate::embedded::station_weather::WeatherSource;
use crate::embedded::reply::ServiceReply;
use crate::pvwatts::v8::simulate_v8_with_sun_path;
use crate::pvwatts::solarpos::Precision;
use crate::pvwatts::SunPath;
use crate::services::pv_estimator::{PvEstimate, SscInfo};
use crate::services::pv_estimator::v8::{validate_estimate_v8, RawEstimateV8, LIST_SEPARATOR};
use crate::services::solar::QueryVersion;

/// The `version` string of the embedded v8 estimator.
pub const SERVICE_VERSION_V8: &str = "8.5.0-sunflux-local";
/// The compute module the answers name.
const MODULE: &str = "pvwattsv8";

/// The request parameters as received, without the key: strings, except `soiling`, which the
/// service echoes as the list of numbers it read (as the live service does).
fn echoed_inputs_v8(query: &[(String, String)]) -> Map<String, Value> {
    let mut inputs = echoed_inputs(query);
    if let Some(Value::String(text)) = inputs.get("soiling") {
        let numbers: Option<Vec<f64>> = text.split(LIST_SEPARATOR).map(|entry| entry.trim().parse().ok()).collect();
        if let Some(numbers) = numbers {
            inputs.insert("soiling".into(), json!(numbers));
        }
    }
    inputs
}

/// Answers one v8 estimator request.
pub fn estimate_reply_v8(format: Format, query: &[(String, String)], catalog: &Catalog, source: &dyn WeatherSource) -> ServiceReply {
    let inputs = echoed_inputs_v8(query);
    let params = match validate_estimate_v8(&RawEstimateV8::from_query(query, format)) {
        Ok(params) => params,
        Err(problems) => return rejection(SERVICE_VERSION_V8, format, inputs, problems),
    };
    let (station, distance_m) = match resolve_location(&params.location, catalog, QueryVersion::V2) {
        Ok(found) => found,
        Err(problem) => return rejection(SERVICE_VERSION_V8, params.format, inputs, vec![problem]),
    };
    let weather = match source.weather(&station) {
        Ok(weather) => weather,
        Err(problem) => return rejection(SERVICE_VERSION_V8, params.format, inputs, vec![format!("Unable to load data file for the station: {problem}")]),
    };
    let output = match simulate_v8_with_sun_path(&weather, &SunPath::compute(&weather, Precision::Fast), &params.params, 1) {
        Ok(output) => output,
        Err(problem) => return rejection(SERVICE_VERSION_V8, params.format, inputs, vec![problem.to_string()]),
    };
    let mut station_v8 = station_info(&station, distance_m);
    station_v8.location = station.v2_id.clone();
    station_v8.solar_resource_file = format!("{}.csv", station.v2_id);
    let mut estimate = PvEstimate::from_simulation(output.estimate, params.timeframe, Some(station_v8), inputs);
    if let Some(hourly) = estimate.hourly.as_mut() {
        hourly.extra = vec![("alb".to_owned(), output.extra.alb)];
    }
    estimate.version = Some(SERVICE_VERSION_V8.to_owned());
    estimate.ssc_info = Some(SscInfo {
        version: SSC_VERSION,
        build: format!("sunflux {} local PVWatts v8 engine", env!("CARGO_PKG_VERSION")),
        module: Some(MODULE.to_owned()),
    });
    written(200, &estimate.envelope_value(), params.format, params.callback.as_deref())
}

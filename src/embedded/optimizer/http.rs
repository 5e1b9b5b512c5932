//! The embedded optimizer's HTTP face: `POST …/job/`, `GET …/job/<run_uuid>/results/` and
//! `GET …/simulated_load/` under the optimizer's root of both route profiles (the spec's and the
//! public host's; `spec::routes::Endpoint::Optimizer*`), and the Utility Rate Database stand-in
//! (`Endpoint::UtilityRates`), and the synthetic AVERT, Cambium and EASIUR look-ups
//! (`Endpoint::OptimizerLookup`, `emissions_standin`). A posted
//! scenario is validated by `optimizer::scenario::validation` (the rules the Python scenario
//! builder applies too) and, when valid, gets the sections the service creates and the
//! schema's defaults, as the live service's `inputs` show them. PV production comes from the local engine
//! on the site's synthetic weather, as do the temperatures of the synthetic load shapes and a
//! CST's production factor where none is given (`cst_standin`).

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::response::Response;
use serde_json::{json, Map, Value};

use super::cst_standin::fill_cst_production;
use super::emissions_standin;
use super::load_profiles::{self, DATA_SOURCE};
use super::thermal_profiles;
use super::urdb_standin;
use super::{post_job_reply, results_reply, Submission};
use crate::embedded::catalog::Catalog;
use crate::embedded::climate::grid::{describe_site, nearest_site};
use crate::embedded::reply::ServiceReply;
use crate::embedded::state::{query_pairs, reply_response, ServiceState};
use crate::embedded::weather_gen::{tmy_year, TmyColumns};
use crate::optimizer::scenario::{self, pv_arrays};
use crate::optimizer::size;
use crate::services::simulated_load::{validate_simulated_load, LoadType, RawSimulatedLoad};
use crate::spec::routes::OptimizerLookup;
use crate::pvwatts::{simulate, validate_params, RawParams, SiteMeta, Weather, WeatherColumns};

/// The weather data set whose synthetic year stands in for an optimizer site.
const WEATHER_DATASET: &str = "optimizer-site";
/// The calendar year of that weather (the same typical year the estimator uses).
const WEATHER_YEAR: i32 = 2010;

fn number(section: Option<&Value>, name: &str) -> Option<f64> {
    section?.get(name)?.as_f64()
}

/// The synthetic typical year of the climate grid site nearest to a point.
fn site_weather(lat: f64, lon: f64, catalog: &Catalog) -> Result<TmyColumns, String> {
    let grid = nearest_site(lat, lon).ok_or_else(|| format!("no weather site near {lat}, {lon}"))?;
    let info = describe_site(grid, catalog);
    Ok(tmy_year(&info.spec(WEATHER_DATASET), WEATHER_YEAR))
}

/// Hourly AC output per kW DC (kW/kW) of each PV array at the scenario's site, from the local
/// engine (None for an array that gives its own `production_factor_series`).
pub fn pv_production(scenario: &Value, catalog: &Catalog) -> Result<Vec<Option<Vec<f64>>>, String> {
    let arrays = pv_arrays(scenario);
    if arrays.iter().all(|pv| pv.get("production_factor_series").is_some_and(|s| s.is_array())) {
        return Ok(vec![None; arrays.len()]);
    }
    let site = scenario.get("Site");
    let (Some(lat), Some(lon)) = (number(site, "latitude"), number(site, "longitude")) else {
        return Err("Site.latitude and Site.longitude are required for PV production".into());
    };
    let columns = site_weather(lat, lon, catalog)?;
    let meta = SiteMeta { lat, lon, tz: columns.tz, elevation: columns.elevation, source: "sunflux synthetic weather".into(), ..SiteMeta::default() };
    let weather = Weather::from_columns(
        meta,
        WeatherColumns::<Vec<f64>> {
            year: columns.year,
            month: columns.month,
            day: columns.day,
            hour: columns.hour,
            minute: None,
            gh: columns.gh,
            dn: columns.dn,
            df: columns.df,
            tdry: columns.tdry,
            wspd: columns.wspd,
            pressure: Some(columns.pressure),
            albedo: None,
            snow_depth: None,
        },
    )
    .map_err(|e| e.to_string())?;
    arrays
        .iter()
        .map(|pv| {
            if pv.get("production_factor_series").is_some_and(|s| s.is_array()) {
                return Ok(None);
            }
            let section = Some(*pv);
            let array_type = number(section, "array_type").unwrap_or(1.0) as i64;
            let tracking = matches!(array_type, 2..=4);
            let raw = RawParams {
                system_capacity: 1.0,
                module_type: number(section, "module_type").unwrap_or(0.0) as i64,
                losses: 100.0 * number(section, "losses").unwrap_or(0.14),
                array_type,
                tilt: number(section, "tilt").unwrap_or(if tracking { 0.0 } else { 20.0 }),
                azimuth: number(section, "azimuth").unwrap_or(if lat >= 0.0 { 180.0 } else { 0.0 }),
                dc_ac_ratio: number(section, "dc_ac_ratio").unwrap_or(1.2),
                gcr: number(section, "gcr").unwrap_or(0.4),
                inv_eff: 100.0 * number(section, "inv_eff").unwrap_or(0.96),
            };
            let params = validate_params(&raw).map_err(|problems| format!("PV: {}", problems.join("; ")))?;
            let output = simulate(&weather, &params);
            Ok(Some(output.hourly.series.ac.iter().map(|watts| watts / 1000.0).collect()))
        })
        .collect()
}

/// `GET …/simulated_load/`: synthetic building shapes on the site's synthetic temperatures
/// (electric from `load_profiles`, heating and cooling from `thermal_profiles`), scaled and
/// blended as the service does; `{"Error": …}` with 400 for bad parameters.
fn simulated_load_reply(pairs: &[(String, String)], catalog: &Catalog) -> ServiceReply {
    let (raw, mut problems) = RawSimulatedLoad::from_query(pairs);
    let query = match validate_simulated_load(&raw) {
        Ok(query) if problems.is_empty() => query,
        Ok(_) => return ServiceReply::json(400, &json!({"Error": problems.join("; ")})),
        Err(more) => {
            problems.extend(more);
            return ServiceReply::json(400, &json!({"Error": problems.join("; ")}));
        }
    };
    let temperatures = match site_weather(query.latitude, query.longitude, catalog) {
        Ok(columns) => columns.tdry,
        Err(problem) => return ServiceReply::json(400, &json!({"Error": problem})),
    };
    if query.load_type != LoadType::Electric {
        return match thermal_profiles::thermal_load(&query, &temperatures) {
            Ok(answer) => ServiceReply::json(200, &answer),
            Err(problem) => ServiceReply::json(400, &json!({"Error": problem})),
        };
    }
    let Some(load) = load_profiles::simulated_load(&query, &temperatures) else {
        return ServiceReply::json(400, &json!({"Error": "unknown doe_reference_name"}));
    };
    let cooling_defaults =
        if query.cooling_buildings.is_empty() { Ok(json!({})) } else { thermal_profiles::cooling_defaults(&query, &temperatures, &load.loads_kw) };
    match cooling_defaults {
        Ok(cooling_defaults) => ServiceReply::json(
            200,
            &json!({
                "loads_kw": load.loads_kw,
                "annual_kwh": load.annual_kwh,
                "min_kw": load.min_kw,
                "mean_kw": load.mean_kw,
                "max_kw": load.max_kw,
                "monthly_totals_kwh": load.monthly_totals_kwh,
                "monthly_peaks_kw": load.monthly_peaks_kw,
                "cooling_defaults": cooling_defaults,
                "data_source": DATA_SOURCE,
            }),
        ),
        Err(problem) => ServiceReply::json(400, &json!({"Error": problem})),
    }
}

/// `GET …/simulated_load/` (on a blocking thread: it generates a weather year).
pub async fn handle_simulated_load(State(state): State<Arc<ServiceState>>, request: Request) -> Response {
    let pairs = query_pairs(&request);
    let catalog = state.catalog;
    let reply = tokio::task::spawn_blocking(move || simulated_load_reply(&pairs, catalog))
        .await
        .unwrap_or_else(|e| ServiceReply::json(500, &json!({"Error": format!("the load could not be built: {e}")})));
    reply_response(reply)
}

/// `GET …/avert_emissions_profile/`, `…/cambium_profile/` or `…/easiur_costs/`: the synthetic stand-in.
pub async fn handle_lookup(lookup: OptimizerLookup, request: Request) -> Response {
    reply_response(emissions_standin::reply(lookup, &query_pairs(&request)))
}

/// `GET /utility_rates`: the Utility Rate Database stand-in.
pub async fn handle_utility_rates(State(state): State<Arc<ServiceState>>, request: Request) -> Response {
    reply_response(urdb_standin::reply(&query_pairs(&request), state.urdb_any_label))
}

fn submission_for(state: &ServiceState, body: &[u8]) -> Result<(Submission, Value), ServiceReply> {
    let scenario: Value = serde_json::from_slice(body).map_err(|e| {
        ServiceReply::json(400, &json!({"status": "error", "messages": {"error": format!("The request body is not valid JSON: {e}")}}))
    })?;
    if !scenario.is_object() {
        return Err(ServiceReply::json(400, &json!({"status": "error", "messages": {"error": "The scenario must be a JSON object of sections."}})));
    }
    if let Some(reason) = size::too_large(&scenario) {
        return Err(ServiceReply::json(400, &json!({"status": "error", "messages": {"error": reason}})));
    }
    let checked = scenario::check(&scenario).map_err(|e| ServiceReply::json(500, &json!({"status": "error", "messages": {"error": e}})))?;
    let mut resolved = checked.resolved;
    let mut warnings = Map::new();
    let pv_production = match pv_production(&resolved, state.catalog) {
        Ok(production) => production,
        Err(problem) => {
            warnings.insert("PV".into(), Value::from(problem));
            Vec::new()
        }
    };
    // The stand-in's note, or why it made none, goes to the job's warnings.
    match fill_cst_production(&mut resolved, |lat, lon| site_weather(lat, lon, state.catalog)) {
        Ok(None) => {}
        Ok(Some(note)) | Err(note) => {
            warnings.insert("CST".into(), Value::from(note));
        }
    }
    let mut messages = Map::new();
    if !warnings.is_empty() {
        messages.insert("warnings".into(), Value::Object(warnings));
    }
    Ok((Submission { scenario: resolved, pv_production, messages }, checked.input_errors))
}

/// `POST …/job/`.
pub async fn handle_post(State(state): State<Arc<ServiceState>>, body: axum::body::Bytes) -> Response {
    let shared = state.clone();
    let reply = tokio::task::spawn_blocking(move || match submission_for(&shared, &body) {
        Ok((submission, input_errors)) => post_job_reply(&shared.optimizer_jobs, submission, &input_errors),
        Err(reply) => reply,
    })
    .await
    .unwrap_or_else(|e| ServiceReply::json(500, &json!({"status": "error", "messages": {"error": format!("the job could not be created: {e}")}})));
    reply_response(reply)
}

/// `GET …/job/<run_uuid>/results/`.
pub async fn handle_results(State(state): State<Arc<ServiceState>>, Path(run_uuid): Path<String>) -> Response {
    reply_response(results_reply(&state.optimizer_jobs, &run_uuid))
}

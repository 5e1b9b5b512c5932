//! `Scenario.resolve`: a self-contained copy of a scenario document, its references to outside
//! data (`services::optimizer::references`, `thermal_references` for the heating and cooling
//! loads, a cooling load without ton-hours as the buildings' shares of the electric load)
//! replaced by the data, each input fetched once and
//! kept in the disk cache (`services::optimizer::cache`) so that a sweep of hundreds of local
//! solves fetches each input once. The load comes from the optimizer service's load endpoint,
//! the rate from the Utility Rate Database, each through its own client's `ServiceHandle`; a
//! Wind section without production gets the service's production factor
//! (`services::optimizer::wind_production`), on the WIND Toolkit resource fetched through the
//! load's client (the same developer network) and cached per site, height and year; each PV
//! array without production gets the estimator v8's output on the data set the service would
//! pick (`services::optimizer::pv_production`), cached per array's parameters; an air-source
//! heat pump without `Site.outdoor_air_temperature_degF` gets the same estimator's ambient
//! temperature at the site (`services::optimizer::ambient_temperature`), cached per request;
//! the grid emissions factors, clean-energy fraction and health costs left out get the service's
//! AVERT, Cambium and EASIUR look-ups (`services::optimizer::emissions_series`), on the load's
//! client, cached per look-up's query.

use std::future::Future;
use std::path::PathBuf;

use serde_json::{Map, Value};

use super::ambient_temperature::{temperature_need, with_outdoor_temperature};
use super::cache::{DiskCache, Entry};
use super::emissions_data::{fetch_avert_profile, fetch_cambium_profile, fetch_easiur_costs};
use super::emissions_series::{emissions_need, with_emissions, EmissionsData};
use super::references::{self, RateReference, HOURS};
use super::thermal_references::{cooling_shares, thermal_references, with_cooling_shares, with_thermal_load};
use crate::optimizer::scenario::text::python_repr;
use super::pv_production::{dataset_choice, pv_needs, with_pv_production, PvNeed};
use super::urdb;
use super::wind_production::{wind_need, with_wind_production, WindSource};
use crate::error::{Error, Result};
use crate::services::handle::ServiceHandle;
use crate::services::simulated_load::request::fetch_load_answer;
use crate::formats::Format;
use crate::services::pv_estimator::request::request_estimate;
use crate::services::pv_estimator::v8::{validate_estimate_v8, RawEstimateV8};
use crate::services::simulated_load::validate_simulated_load;
use crate::services::solar::request::query_stations;
use crate::services::solar::{DataQueryParams, QueryVersion};
use crate::transport::Endpoint;
use crate::services::wind_toolkit::request::fetch_wind_resource;
use crate::services::wind_toolkit::WindToolkitQuery;
use crate::wind::turbine::ResourceAtHeight;
use crate::pvwatts::HourlySeries;

/// The clients `resolve` asks: the developer network's (`load`: the optimizer's load endpoint
/// and the WIND Toolkit) and the rate database's (`rates`).
pub struct Sources {
    pub load: ServiceHandle,
    pub rates: ServiceHandle,
}

/// The base URL of a client as the cache key names it (never the key).
fn service(handle: &ServiceHandle) -> Value {
    Value::from(handle.transport.config().base_url.as_str().trim_end_matches('/'))
}

/// `document` with its reference load and rate replaced by their data; `cache` is the cache
/// folder (None keeps nothing). Bad references raise `ParameterError` before anything is sent.
pub async fn resolve(sources: Sources, document: Value, cache: Option<PathBuf>) -> Result<Value> {
    let cache = DiskCache::new(cache);
    // Before the electric load: a heating or cooling section may fall back to its reference name.
    let document = resolve_thermal(&sources.load, &cache, document).await?;
    let document = resolve_cooling_shares(&sources.load, &cache, document).await?;
    let document = resolve_load(&sources.load, &cache, document).await?;
    let document = resolve_rate(&sources.rates, &cache, document).await?;
    let document = resolve_wind(&sources.load, &cache, document).await?;
    let document = resolve_temperature(&sources.load, &cache, document).await?;
    let document = resolve_pv(&sources.load, &cache, document).await?;
    resolve_emissions(&sources.load, &cache, document).await
}

/// A look-up's answer from the cache, or fetched and stored there; `Ok(Err(message))` when the
/// service refused the site (a 400, not cached: the service's zeros apply).
async fn cached_lookup<T>(entry: Entry, fetch: impl Future<Output = Result<T>>) -> Result<std::result::Result<T, String>>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    if let Some(answer) = entry.read().and_then(|value| serde_json::from_value::<T>(value).ok()) {
        return Ok(Ok(answer));
    }
    match fetch.await {
        Ok(answer) => {
            entry.write(&serde_json::to_value(&answer).map_err(|e| Error::Parse(e.to_string()))?)?;
            Ok(Ok(answer))
        }
        Err(Error::Parameter(problems)) => Ok(Err(problems.join("; "))),
        Err(error) => Err(error),
    }
}

async fn resolve_emissions(handle: &ServiceHandle, cache: &DiskCache, document: Value) -> Result<Value> {
    let Some(need) = emissions_need(&document)? else { return Ok(document) };
    let entry = |kind: &str, pairs: Vec<(String, String)>| {
        let request = pairs.into_iter().map(|(name, value)| (name, Value::from(value))).collect();
        cache.entry(kind, load_key(handle, &request))
    };
    let mut data = EmissionsData::default();
    if let Some(query) = &need.avert {
        data.avert = cached_lookup(entry("avert_emissions_profile", query.query_pairs()), fetch_avert_profile(handle, query)).await?.ok();
    }
    if let Some(query) = need.cambium_co2(data.avert.as_ref()) {
        data.cambium_co2 = cached_lookup(entry("cambium_profile", query.query_pairs()), fetch_cambium_profile(handle, query)).await?.ok();
    }
    if let Some(query) = &need.clean_fraction {
        data.clean_fraction = cached_lookup(entry("cambium_profile", query.query_pairs()), fetch_cambium_profile(handle, query)).await?.ok();
    }
    if let Some(query) = &need.easiur {
        match cached_lookup(entry("easiur_costs", query.query_pairs()), fetch_easiur_costs(handle, query)).await? {
            Ok(costs) => data.easiur = Some(costs),
            Err(refusal) => data.easiur_refusal = Some(refusal),
        }
    }
    with_emissions(document, &need, &data)
}

/// A series from the cache, or fetched and stored there.
async fn cached_series(entry: Entry, fetch: impl Future<Output = Result<Vec<f64>>>) -> Result<Vec<f64>> {
    if let Some(series) = entry.read().and_then(|value| serde_json::from_value::<Vec<f64>>(value).ok()) {
        return Ok(series);
    }
    let series = fetch.await?;
    entry.write(&Value::from(series.clone()))?;
    Ok(series)
}

/// The cache key of an estimator request: the service and the request's pairs.
fn estimate_key(handle: &ServiceHandle, need: &PvNeed) -> Map<String, Value> {
    let mut key = Map::from_iter([("service".to_owned(), service(handle))]);
    key.extend(need.pairs.iter().map(|(name, value)| (name.clone(), Value::from(value.as_str()))));
    key
}

/// The cache key of a load-endpoint request: the service, its route profile and the request's key.
fn load_key(handle: &ServiceHandle, request: &Map<String, Value>) -> Map<String, Value> {
    let mut key = Map::from_iter([("service".to_owned(), service(handle)), ("routes".to_owned(), Value::from(handle.transport.config().routes.name()))]);
    key.extend(request.clone());
    key
}

async fn resolve_temperature(handle: &ServiceHandle, cache: &DiskCache, document: Value) -> Result<Value> {
    let Some(need) = temperature_need(&document)? else { return Ok(document) };
    let entry = cache.entry("ambient_temperature", estimate_key(handle, &need));
    let celsius = cached_series(entry, async { Ok(estimate_hourly(handle, &need).await?.tamb) }).await?;
    Ok(with_outdoor_temperature(document, &celsius))
}

async fn resolve_pv(handle: &ServiceHandle, cache: &DiskCache, mut document: Value) -> Result<Value> {
    for need in pv_needs(&document)? {
        let entry = cache.entry("pv_production", estimate_key(handle, &need));
        let fetch = async { Ok(estimate_hourly(handle, &need).await?.ac.iter().map(|watts| watts / 1000.0).collect()) };
        let hourly = cached_series(entry, fetch).await?;
        document = with_pv_production(document, need.index, &hourly);
    }
    Ok(document)
}

/// The estimator v8's hourly outputs for one array (AC W of a 1 kW system, ambient °C, ...), on
/// the data set the dataset query makes the service pick.
async fn estimate_hourly(handle: &ServiceHandle, need: &PvNeed) -> Result<HourlySeries> {
    let stations = DataQueryParams { lat: need.latitude, lon: need.longitude, radius: need.radius, all: false, version: QueryVersion::V2, format: Format::Json };
    let (answer, _) = query_stations(handle.clone(), stations).await?;
    let mut pairs = need.pairs.clone();
    pairs.push(("dataset".to_owned(), dataset_choice(&answer)?.to_owned()));
    let params = validate_estimate_v8(&RawEstimateV8::from_query(&pairs, Format::Json)).map_err(Error::Parameter)?;
    let query = params.query_pairs().into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    let (estimate, _) = request_estimate(handle.clone(), Endpoint::PvEstimatorV8 { format: "json".into() }, query, Format::Json).await?;
    let hourly = estimate.hourly.ok_or_else(|| Error::Parse("the estimator's answer has no hourly output".into()))?;
    Ok(hourly.series)
}

async fn resolve_wind(handle: &ServiceHandle, cache: &DiskCache, document: Value) -> Result<Value> {
    let Some(need) = wind_need(&document)? else { return Ok(document) };
    let resource = match &need.source {
        WindSource::Given(resource) => vec![resource.clone()],
        WindSource::Toolkit(queries) => {
            let mut columns = Vec::with_capacity(queries.len());
            for query in queries {
                columns.push(toolkit_resource(handle, cache, query).await?);
            }
            columns
        }
    };
    with_wind_production(document, &need, &resource)
}

/// The WIND Toolkit's resource at one height, from the cache or the service.
async fn toolkit_resource(handle: &ServiceHandle, cache: &DiskCache, query: &WindToolkitQuery) -> Result<ResourceAtHeight> {
    let key = Map::from_iter([
        ("service".to_owned(), service(handle)),
        ("latitude".to_owned(), Value::from(query.latitude)),
        ("longitude".to_owned(), Value::from(query.longitude)),
        ("hubheight".to_owned(), Value::from(query.hub_height_m)),
        ("year".to_owned(), Value::from(query.year)),
    ]);
    let entry = cache.entry("wind_resource", key);
    if let Some(resource) = entry.read().and_then(|value| serde_json::from_value::<ResourceAtHeight>(value).ok()) {
        return Ok(resource);
    }
    let heights = fetch_wind_resource(handle, query).await?.at_heights().map_err(Error::Parse)?;
    let wanted = f64::from(query.hub_height_m);
    let resource = heights.iter().find(|r| r.height_m == wanted).or(heights.first()).cloned().ok_or_else(|| Error::Parse("the SRW file has no resource".into()))?;
    entry.write(&serde_json::to_value(&resource).map_err(|e| Error::Parse(e.to_string()))?)?;
    Ok(resource)
}

async fn resolve_load(handle: &ServiceHandle, cache: &DiskCache, document: Value) -> Result<Value> {
    let Some(reference) = references::load_reference(&document)? else { return Ok(document) };
    let entry = cache.entry("simulated_load", load_key(handle, &reference.key));
    let fetch = async {
        let query = validate_simulated_load(&reference.parameters).map_err(Error::Parameter)?;
        Ok(fetch_load_answer(handle, &query).await?.into_load())
    };
    let hourly = cached_series(entry, fetch).await?;
    Ok(references::with_loads(document, &hourly))
}

async fn resolve_thermal(handle: &ServiceHandle, cache: &DiskCache, mut document: Value) -> Result<Value> {
    for reference in thermal_references(&document)? {
        let entry = cache.entry("simulated_load", load_key(handle, &reference.key));
        let fetch = async {
            let query = validate_simulated_load(&reference.parameters)
                .map_err(|problems| Error::Parameter(problems.into_iter().map(|p| format!("{}: {p}", reference.section)).collect()))?;
            Ok(fetch_load_answer(handle, &query).await?.into_load())
        };
        let hourly = cached_series(entry, fetch).await?;
        document = with_thermal_load(document, &reference, &hourly);
    }
    Ok(document)
}

async fn resolve_cooling_shares(handle: &ServiceHandle, cache: &DiskCache, document: Value) -> Result<Value> {
    let Some(shares) = cooling_shares(&document)? else { return Ok(document) };
    let mut fetched = Vec::with_capacity(shares.buildings.len());
    for building in &shares.buildings {
        let entry = cache.entry("cooling_share", load_key(handle, &building.key));
        let fetch = async {
            let query = validate_simulated_load(&building.parameters)
                .map_err(|problems| Error::Parameter(problems.into_iter().map(|p| format!("CoolingLoad: {p}")).collect()))?;
            let defaults = fetch_load_answer(handle, &query).await?.cooling_defaults.ok_or_else(|| Error::Parse("the simulated_load answer has no cooling_defaults".into()))?;
            let fractions = defaults.fraction_of_total_electric_profile;
            if fractions.len() != HOURS {
                return Err(Error::Parse(format!("the cooling_defaults' fraction_of_total_electric_profile has {} values (expected {HOURS})", fractions.len())));
            }
            Ok(fractions)
        };
        fetched.push(cached_series(entry, fetch).await?);
    }
    Ok(with_cooling_shares(document, &shares, &fetched))
}

async fn resolve_rate(handle: &ServiceHandle, cache: &DiskCache, document: Value) -> Result<Value> {
    let Some(reference) = references::rate_reference(&document) else { return Ok(document) };
    let mut key = Map::from_iter([("service".to_owned(), service(handle))]);
    key.extend(reference.key());
    let entry = cache.entry("urdb_rate", key);
    if let Some(rate) = entry.read() {
        return Ok(references::with_rate(document, rate));
    }
    let rate = match reference {
        RateReference::Label(label) => {
            let label = match label.as_str() {
                Some(text) => urdb::checked_label(text)?,
                None => return Err(Error::Parameter(vec![urdb::label_problem(&python_repr(&label))])),
            };
            urdb::rate_by_label(handle.clone(), label).await?
        }
        RateReference::Named { utility, rate_name } => {
            let (utility, rate_name) = urdb::checked_names(utility.as_str(), rate_name.as_str())?;
            urdb::rate_by_name(handle.clone(), utility, rate_name).await?
        }
    };
    let rate = Value::Object(rate);
    entry.write(&rate)?;
    Ok(references::with_rate(document, rate))
}

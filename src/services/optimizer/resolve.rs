//! `Scenario.resolve`: a self-contained copy of a scenario document, its references to outside
//! data (`services::optimizer::references`) replaced by the data, each input fetched once and
//! kept in the disk cache (`services::optimizer::cache`) so that a sweep of hundreds of local
//! solves fetches each input once. The load comes from the optimizer service's load endpoint,
//! the rate from the Utility Rate Database, each through its own client's `ServiceHandle`.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::cache::DiskCache;
use super::references::{self, RateReference};
use crate::optimizer::scenario::text::python_repr;
use super::urdb;
use crate::error::{Error, Result};
use crate::services::handle::ServiceHandle;
use crate::services::simulated_load::request::fetch_load_answer;
use crate::services::simulated_load::validate_simulated_load;

/// The clients `resolve` asks: the optimizer service's (`load`) and the rate database's (`rates`).
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
    let document = resolve_load(&sources.load, &cache, document).await?;
    resolve_rate(&sources.rates, &cache, document).await
}

async fn resolve_load(handle: &ServiceHandle, cache: &DiskCache, document: Value) -> Result<Value> {
    let Some(reference) = references::load_reference(&document)? else { return Ok(document) };
    let mut key = Map::from_iter([("service".to_owned(), service(handle)), ("routes".to_owned(), Value::from(handle.transport.config().routes.name()))]);
    key.extend(reference.key);
    let entry = cache.entry("simulated_load", key);
    let cached = entry.read().and_then(|value| serde_json::from_value::<Vec<f64>>(value).ok());
    let hourly = match cached {
        Some(hourly) => hourly,
        None => {
            let query = validate_simulated_load(&reference.parameters).map_err(Error::Parameter)?;
            let hourly = fetch_load_answer(handle, &query).await?.loads_kw;
            entry.write(&Value::from(hourly.clone()))?;
            hourly
        }
    };
    Ok(references::with_loads(document, &hourly))
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

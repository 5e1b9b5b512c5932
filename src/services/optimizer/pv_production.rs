//! What `resolve` reads and writes for PV, free of I/O: each PV array without
//! `production_factor_series` gets the one the optimizer service computes (REopt.jl
//! `production_factor.jl`, `call_pvwatts_api`): the PV estimator v8's hourly AC output of a
//! 1 kW system (W / 1000) with the array's `tilt`, `azimuth`, `module_type`, `array_type`,
//! `losses` (× 100, rounded to 3 decimals), `dc_ac_ratio`, `gcr`, `inv_eff` (× 100) and
//! `radius`, `timeframe=hourly`, at the site, from the data set the solar dataset query (v2,
//! `all=0`) finds: the only one found; else NSRDB when its station is within 20 miles; else the
//! nearest of NSRDB, international and TMY3. REopt.jl's defaults fill what the array leaves out
//! (array type 1; tilt 20 for fixed arrays, 0 for trackers; azimuth 180, or 0 south of the
//! equator; module type 0; losses 0.14; gcr 0.4; radius 0; inverter 0.96; DC/AC 1.2).

use serde_json::Value;

use super::references::steps_per_hour;
use crate::error::{Error, Result};
use crate::optimizer::scenario::given;
use crate::services::solar::StationQuery;

/// Metres in the 20 miles within which the service prefers NSRDB.
const NSRDB_PREFERRED_M: f64 = 20.0 * 1609.34;

/// One array's estimator request.
#[derive(Debug, Clone, PartialEq)]
pub struct PvNeed {
    /// The array's place in a PV list (None for a single PV object).
    pub index: Option<usize>,
    pub latitude: f64,
    pub longitude: f64,
    /// Miles (0: the nearest station at any distance).
    pub radius: u32,
    /// The estimator's parameters but `dataset` (lat, lon, system_capacity, tilt, ...).
    pub pairs: Vec<(String, String)>,
}

/// REopt.jl's number rounding to `digits` decimals.
fn rounded(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

/// Every PV array of `document` without a production factor, as estimator requests.
/// `ParameterError` when the site has no coordinates.
pub fn pv_needs(document: &Value) -> Result<Vec<PvNeed>> {
    let (single, arrays): (bool, Vec<&Value>) = match document.get("PV") {
        Some(Value::Array(items)) => (false, items.iter().collect()),
        Some(pv) if pv.is_object() => (true, vec![pv]),
        _ => return Ok(Vec::new()),
    };
    let missing: Vec<(usize, &Value)> = arrays.into_iter().enumerate().filter(|(_, pv)| !given(pv.get("production_factor_series"))).collect();
    if missing.is_empty() {
        return Ok(Vec::new());
    }
    let coordinate = |name: &str| document.get("Site").and_then(|site| site.get(name)).and_then(Value::as_f64);
    let (Some(latitude), Some(longitude)) = (coordinate("latitude"), coordinate("longitude")) else {
        return Err(Error::Parameter(vec!["Site.latitude and Site.longitude are needed to resolve the PV production".into()]));
    };
    Ok(missing
        .into_iter()
        .map(|(index, pv)| {
            let number = |name: &str, default: f64| pv.get(name).and_then(Value::as_f64).unwrap_or(default);
            let array_type = number("array_type", 1.0);
            let fixed = array_type == 0.0 || array_type == 1.0;
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a radius in whole miles, as the service reads it")]
            let radius = number("radius", 0.0).max(0.0) as u32;
            let pairs = [
                ("lat", latitude),
                ("lon", longitude),
                ("tilt", number("tilt", if fixed { 20.0 } else { 0.0 })),
                ("system_capacity", 1.0),
                ("azimuth", number("azimuth", if latitude >= 0.0 { 180.0 } else { 0.0 })),
                ("module_type", number("module_type", 0.0)),
                ("array_type", array_type),
                ("losses", rounded(number("losses", 0.14) * 100.0, 3)),
                ("dc_ac_ratio", number("dc_ac_ratio", 1.2)),
                ("gcr", number("gcr", 0.4)),
                ("inv_eff", number("inv_eff", 0.96) * 100.0),
                ("radius", f64::from(radius)),
            ];
            let mut pairs: Vec<(String, String)> = pairs.iter().map(|(name, value)| ((*name).to_owned(), value.to_string())).collect();
            pairs.push(("timeframe".to_owned(), "hourly".to_owned()));
            PvNeed { index: (!single).then_some(index), latitude, longitude, radius, pairs }
        })
        .collect())
}

/// The estimator data set the service picks from the dataset query's answer (v2 names the NSRDB
/// set `satdb` in the spec, `nsrdb` on the live host: either is NSRDB).
pub fn dataset_choice(answer: &StationQuery) -> Result<&'static str> {
    let distance = |codes: &[&str]| codes.iter().find_map(|code| answer.closest_station(code)).map(|station| station.distance as f64);
    let found = [("nsrdb", distance(&["nsrdb", "satdb"])), ("intl", distance(&["intl"])), ("tmy3", distance(&["tmy3"]))];
    let available: Vec<(&'static str, f64)> = found.iter().filter_map(|(name, metres)| metres.map(|m| (*name, m))).collect();
    match available.as_slice() {
        [] => Err(Error::Parameter(vec!["No solar weather_data_source is available near the site (PV production)".into()])),
        [(only, _)] => Ok(only),
        several => {
            if several.iter().any(|(name, metres)| *name == "nsrdb" && *metres < NSRDB_PREFERRED_M) {
                return Ok("nsrdb");
            }
            // The first of equals wins, as the service's chain of `<=` picks.
            let nearest = several.iter().fold(None::<(&'static str, f64)>, |best, item| match best {
                Some(best) if best.1 <= item.1 => Some(best),
                _ => Some(*item),
            });
            Ok(nearest.map_or("nsrdb", |(name, _)| name))
        }
    }
}

/// `document` with `hourly_kw` (kW per kW, 8760 values) as the array's production factor,
/// each hour repeated to the scenario's time steps.
pub fn with_pv_production(mut document: Value, index: Option<usize>, hourly_kw: &[f64]) -> Value {
    let per_hour = usize::try_from(steps_per_hour(&document)).unwrap_or(1).max(1);
    let factor: Vec<Value> = hourly_kw.iter().flat_map(|kw| std::iter::repeat_n(Value::from(*kw), per_hour)).collect();
    let array = match (document.get_mut("PV"), index) {
        (Some(Value::Array(items)), Some(index)) => items.get_mut(index),
        (Some(pv), None) => Some(pv),
        _ => None,
    };
    if let Some(Value::Object(pv)) = array {
        pv.insert("production_factor_series".to_owned(), Value::Array(factor));
    }
    document
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_array_without_production_asks_with_the_services_defaults() {
        let document = json!({"Site": {"latitude": -33.9, "longitude": 151.2}, "PV": [
            {"name": "roof", "losses": 0.1234567},
            {"name": "given", "production_factor_series": [0.1]},
            {"name": "tracker", "array_type": 2, "inv_eff": 0.98, "radius": 25},
        ]});
        let needs = pv_needs(&document).unwrap();
        assert_eq!(needs.iter().map(|n| n.index).collect::<Vec<_>>(), [Some(0), Some(2)]);
        let text = |need: &PvNeed| need.pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&");
        assert_eq!(text(&needs[0]), "lat=-33.9&lon=151.2&tilt=20&system_capacity=1&azimuth=0&module_type=0&array_type=1&losses=12.346&dc_ac_ratio=1.2&gcr=0.4&inv_eff=96&radius=0&timeframe=hourly");
        assert!(text(&needs[1]).contains("tilt=0&") && text(&needs[1]).contains("inv_eff=98&") && needs[1].radius == 25);
        let single = json!({"Site": {"latitude": 40.0, "longitude": -105.0}, "Settings": {"time_steps_per_hour": 4}, "PV": {}});
        let need = &pv_needs(&single).unwrap()[0];
        assert_eq!(need.index, None);
        let resolved = with_pv_production(single, need.index, &[0.5; 8760]);
        assert_eq!(resolved["PV"]["production_factor_series"].as_array().unwrap().len(), 4 * 8760);
        assert_eq!(pv_needs(&resolved).unwrap(), []);
        assert!(pv_needs(&json!({"PV": {}})).is_err());
    }
}

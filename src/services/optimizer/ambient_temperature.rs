//! What `resolve` reads and writes for the air-source heat pumps, free of I/O: a scenario with
//! an `ASHPSpaceHeater` or `ASHPWaterHeater` (not sized to 0) and no
//! `Site.outdoor_air_temperature_degF` gets the service's: PVWatts v8's hourly ambient
//! temperature `tamb` (°C) at the site, as °F (9/5 · °C + 32), each hour repeated to the time
//! steps (REopt.jl `src/core/scenario.jl` through `call_pvwatts_api` in `src/core/utils.jl`:
//! `tilt` = latitude, the other parameters the PV defaults, from the data set the dataset query
//! picks; the temperature does not depend on the array).

use serde_json::{json, Map, Value};

use super::pv_production::{pv_needs, PvNeed};
use super::references::steps_per_hour;
use crate::error::Result;
use crate::optimizer::scenario::given;

/// The sections whose COP and capacity factor follow the outdoor temperature.
const ASHP_SECTIONS: [&str; 2] = ["ASHPSpaceHeater", "ASHPWaterHeater"];

/// The estimator request for the site's temperature, or None when nothing needs it.
/// `ParameterError` when the site has no coordinates.
pub fn temperature_need(document: &Value) -> Result<Option<PvNeed>> {
    let sized = |name: &str| document.get(name).is_some_and(|s| s.is_object() && s.get("max_ton").and_then(Value::as_f64).is_none_or(|ton| ton > 0.0));
    let site = document.get("Site");
    if !ASHP_SECTIONS.iter().any(|name| sized(name)) || given(site.and_then(|s| s.get("outdoor_air_temperature_degF"))) {
        return Ok(None);
    }
    let latitude = site.and_then(|s| s.get("latitude")).cloned().unwrap_or(Value::Null);
    let probe = json!({"Site": site.cloned().unwrap_or_else(|| Value::Object(Map::new())), "PV": {"tilt": latitude, "azimuth": 180}});
    Ok(pv_needs(&probe)?.pop())
}

/// `document` with `tamb_celsius` (8760 values) as `Site.outdoor_air_temperature_degF`.
pub fn with_outdoor_temperature(mut document: Value, tamb_celsius: &[f64]) -> Value {
    let per_hour = usize::try_from(steps_per_hour(&document)).unwrap_or(1).max(1);
    let degf: Vec<Value> = tamb_celsius.iter().flat_map(|c| std::iter::repeat_n(Value::from(9.0 / 5.0 * c + 32.0), per_hour)).collect();
    if let Some(Value::Object(site)) = document.get_mut("Site") {
        site.insert("outdoor_air_temperature_degF".to_owned(), Value::Array(degf));
    }
    document
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_ashp_without_temperatures_asks_pvwatts_at_the_site_and_gets_degrees_fahrenheit() {
        let document = json!({"Site": {"latitude": 37.78, "longitude": -122.45}, "Settings": {"time_steps_per_hour": 2}, "ASHPWaterHeater": {}});
        let need = temperature_need(&document).unwrap().expect("a need");
        let text: Vec<String> = need.pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert!(text.contains(&"tilt=37.78".to_owned()) && text.contains(&"azimuth=180".to_owned()) && text.contains(&"timeframe=hourly".to_owned()));
        let resolved = with_outdoor_temperature(document, &[-40.0, 100.0]);
        let degf: Vec<f64> = resolved["Site"]["outdoor_air_temperature_degF"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(degf, [-40.0, -40.0, 212.0, 212.0]);
        assert!(temperature_need(&resolved).unwrap().is_none());
        assert!(temperature_need(&json!({"Site": {"latitude": 1.0, "longitude": 1.0}, "ASHPSpaceHeater": {"max_ton": 0}})).unwrap().is_none());
        assert!(temperature_need(&json!({"ASHPSpaceHeater": {}})).is_err());
    }
}

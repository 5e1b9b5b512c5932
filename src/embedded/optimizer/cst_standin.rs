//! The embedded service's CST production factor: where a posted job's `CST` (tech_type "ptc" or
//! none) has no `production_factor`, the service would run SAM's `trough_physical_iph` on the
//! site's NSRDB year (REopt.jl `run_ssc`, `src/core/cst_ssc.jl`, commit 029db01d); the embedded
//! service runs the parabolic-trough stand-in `optimizer::model::cst_trough` on its own synthetic
//! weather of the site (the year its PV production uses) and says so in the job's
//! `messages.warnings.CST`. Other tech types are left alone: the optimizer refuses them by name.
//!
//! Units: the factor is kW thermal per kW of CST size in each hour (8760 values).

use serde_json::Value;

use crate::embedded::weather_gen::TmyColumns;
use crate::optimizer::model::cst_trough::{design_of_cst, production_factor, Rating, TroughSite, TroughWeather};
use crate::optimizer::scenario::given;

/// What the job's warnings say about the stand-in.
pub const STAND_IN_NOTE: &str = "CST.production_factor computed by sunflux's steady-state parabolic-trough stand-in on the site's synthetic weather (not SAM's trough_physical_iph on NSRDB data)";

/// Whether the scenario has a CST sized above 0 without a production factor and of a type the
/// stand-in models (the section, to fill).
fn cst_needing_production(scenario: &Value) -> bool {
    let Some(cst) = scenario.get("CST").and_then(Value::as_object) else { return false };
    let sized = cst.get("max_kw").and_then(Value::as_f64).is_none_or(|kw| kw > 0.0);
    sized && !given(cst.get("production_factor")) && design_of_cst(cst).is_ok()
}

/// Fills `CST.production_factor` from the site's weather when it needs one: Ok(Some(note)) when
/// filled, Ok(None) when nothing was to be done, Err when the stand-in refuses the inputs.
/// `weather(latitude, longitude)` is asked for only when needed.
pub fn fill_cst_production(scenario: &mut Value, weather: impl FnOnce(f64, f64) -> Result<TmyColumns, String>) -> Result<Option<String>, String> {
    if !cst_needing_production(scenario) {
        return Ok(None);
    }
    let site = scenario.get("Site");
    let coordinate = |name: &str| site.and_then(|s| s.get(name)).and_then(Value::as_f64);
    let (Some(latitude), Some(longitude)) = (coordinate("latitude"), coordinate("longitude")) else {
        return Err("Site.latitude and Site.longitude are required for the CST production factor".into());
    };
    let Some(cst) = scenario.get_mut("CST").and_then(Value::as_object_mut) else { return Ok(None) };
    let design = design_of_cst(cst)?;
    let columns = weather(latitude, longitude)?;
    let site = TroughSite { latitude, longitude, tz: columns.tz, elevation_m: columns.elevation };
    let hourly = TroughWeather {
        year: &columns.year,
        month: &columns.month,
        day: &columns.day,
        hour: &columns.hour,
        dni: &columns.dn,
        dry_bulb_c: &columns.tdry,
        wind_m_per_s: &columns.wspd,
    };
    let factor = production_factor(&hourly, &site, &design)?;
    let capacity_factor = factor.iter().sum::<f64>() / factor.len() as f64;
    cst.insert("production_factor".into(), Value::from(factor));
    let rating = match design.rating {
        Rating::SolarMultiple => "rated at the design point (DNI 950 W/m²)",
        Rating::Aperture => "rated at 39.37/60000 MWt per m² of aperture",
    };
    Ok(Some(format!(
        "{STAND_IN_NOTE}: loop {:.0} → {:.0} °C, {rating}, annual capacity factor {capacity_factor:.3}.",
        design.loop_in_c, design.loop_out_c
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn no_weather(_: f64, _: f64) -> Result<TmyColumns, String> {
        Err("weather asked for".into())
    }

    #[test]
    fn only_a_sized_ptc_without_production_asks_for_weather() {
        for cst in [
            json!({"max_kw": 100, "production_factor": vec![0.5; 8760]}),
            json!({"max_kw": 0}),
            json!({"max_kw": 100, "tech_type": "lf"}),
        ] {
            let mut scenario = json!({"Site": {"latitude": 35.0, "longitude": -110.0}, "CST": cst});
            let before = scenario.clone();
            assert_eq!(fill_cst_production(&mut scenario, no_weather), Ok(None));
            assert_eq!(scenario, before);
        }
        let mut scenario = json!({"Site": {"latitude": 35.0, "longitude": -110.0}, "CST": {"max_kw": 100, "tech_type": "ptc"}});
        assert_eq!(fill_cst_production(&mut scenario, no_weather), Err("weather asked for".into()));
    }
}

//! The cooling results: the `ExistingChiller` and `CoolingLoad` output sections with the service's
//! names and units (REopt.jl `src/results/existing_chiller.jl`, `heating_cooling_load.jl`, and
//! the `_bau` twins of `combine_results` in `results.jl`): tons per step, ton-hours and kWh a year.
//!
//! The existing chiller is the only chiller modelled, so in both cases it serves the whole cooling
//! load and nothing goes to storage. Its size is, as the existing boiler's, its peak production
//! times `max_thermal_factor_on_peak_load` (the service's size variable is free between the peak
//! and its bound at no cost; this is its least value).

use serde_json::{Map, Value};

use super::round6;
use crate::optimizer::model::cooling_inputs::{Cooling, KWH_THERMAL_PER_TONHOUR};
use crate::optimizer::model::Model;

/// The service's rounding of these results to 3 or 2 digits.
fn round_to(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

fn rounded_series(values: impl Iterator<Item = f64>, digits: i32) -> Value {
    Value::Array(values.map(|v| Value::from(round_to(v, digits))).collect())
}

/// The existing chiller's annual items, written for the optimal case and as `_bau` twins.
fn existing_chiller_annuals(model: &Model, cooling: &Cooling) -> [(&'static str, f64); 3] {
    let dt = model.step_hours();
    let chiller = &cooling.existing_chiller;
    let peak = cooling.load_kw.iter().copied().fold(0.0, f64::max);
    let annual_thermal_kwh = cooling.load_kw.iter().sum::<f64>() * dt;
    [
        ("size_ton", round_to(peak * chiller.max_thermal_factor_on_peak_load / KWH_THERMAL_PER_TONHOUR, 3)),
        ("annual_electric_consumption_kwh", round_to(annual_thermal_kwh / chiller.cop, 3)),
        ("annual_thermal_production_tonhour", round_to(annual_thermal_kwh / KWH_THERMAL_PER_TONHOUR, 3)),
    ]
}

/// The `ExistingChiller` section; `with_bau` adds the business-as-usual twins.
pub fn existing_chiller_outputs(model: &Model, cooling: &Cooling, with_bau: bool) -> Value {
    let cop = cooling.existing_chiller.cop;
    let mut out = Map::new();
    out.insert("thermal_to_storage_series_ton".into(), rounded_series(cooling.load_kw.iter().map(|_| 0.0), 3));
    out.insert("thermal_to_load_series_ton".into(), rounded_series(cooling.load_kw.iter().map(|kw| kw / KWH_THERMAL_PER_TONHOUR), 3));
    out.insert("electric_consumption_series_kw".into(), rounded_series(cooling.load_kw.iter().map(|kw| kw / cop), 3));
    for (key, value) in existing_chiller_annuals(model, cooling) {
        out.insert(key.into(), Value::from(value));
        if with_bau {
            out.insert(format!("{key}_bau"), Value::from(value));
        }
    }
    Value::Object(out)
}

/// The `CoolingLoad` section: the load in tons and the existing chiller's electricity serving it.
pub fn cooling_load_outputs(model: &Model, cooling: &Cooling) -> Value {
    let dt = model.step_hours();
    let tons: Vec<f64> = cooling.load_kw.iter().map(|kw| kw / KWH_THERMAL_PER_TONHOUR).collect();
    let electric = cooling.base_electric_kw();
    let mut out = Map::new();
    out.insert("load_series_ton".into(), Value::Array(tons.iter().map(|&v| Value::from(round6(v))).collect()));
    out.insert("electric_chiller_base_load_series_kw".into(), Value::Array(electric.iter().map(|&v| Value::from(round6(v))).collect()));
    out.insert("annual_calculated_tonhour".into(), Value::from(round_to(tons.iter().sum::<f64>() * dt, 2)));
    out.insert("annual_electric_chiller_base_load_kwh".into(), Value::from(round_to(electric.iter().sum::<f64>() * dt, 2)));
    Value::Object(out)
}

/// Inserts the cooling sections of a run into `outputs`.
pub fn insert_cooling_outputs(outputs: &mut Map<String, Value>, model: &Model, with_bau: bool) {
    let Some(cooling) = &model.cooling else { return };
    outputs.insert("ExistingChiller".into(), existing_chiller_outputs(model, cooling, with_bau));
    outputs.insert("CoolingLoad".into(), cooling_load_outputs(model, cooling));
}

//! The `ElectricStorage` section of the results: sizes, the state-of-charge and discharge series,
//! the initial capital cost, and with `model_degradation` the state of health and its costs
//! (REopt.jl `src/results/electric_storage.jl`).

use serde_json::{json, Map, Value};

use super::{money, round6, series};
use crate::optimizer::lp::degradation::{healthy_fraction_left, DegradationDispatch};
use crate::optimizer::model::Model;
use crate::optimizer::run::CaseSolution;

/// The `ElectricStorage` section of the optimal case.
pub fn storage_outputs(model: &Model, optimal: &CaseSolution) -> Value {
    let d = &optimal.dispatch;
    let soc_fraction: Vec<f64> =
        if d.storage_kwh > 0.0 { d.soc_kwh.iter().map(|kwh| kwh / d.storage_kwh).collect() } else { Vec::new() };
    let initial = match &model.storage {
        Some(s) if optimal.case.storage => {
            let constant = if s.has_cost_constant() { s.installed_cost_constant } else { 0.0 };
            s.installed_cost_per_kw * d.storage_kw + s.installed_cost_per_kwh * d.storage_kwh + constant
        }
        _ => 0.0,
    };
    let mut section = json!({
        "size_kw": round6(d.storage_kw),
        "size_kwh": round6(d.storage_kwh),
        "soc_series_fraction": series(&soc_fraction),
        "storage_to_load_series_kw": if d.storage_kwh > 0.0 { series(&d.discharge) } else { json!([]) },
        "initial_capital_cost": money(initial),
    });
    if let (Some(g), Value::Object(map)) = (d.degradation.as_ref().filter(|_| d.storage_kwh > 0.0), &mut section) {
        map.extend(degradation_outputs(model, g, d.storage_kwh));
    }
    section
}

/// The degradation results of `ElectricStorage` (REopt.jl `add_electric_storage_results`): the
/// state of health per day as a fraction of the size, the maintenance cost and residual value ($
/// present value), and with replacement the month of the first replacement and the healthy kWh
/// left at the end.
fn degradation_outputs(model: &Model, g: &DegradationDispatch, size_kwh: f64) -> Map<String, Value> {
    let health: Vec<f64> = g.soh_kwh.iter().map(|kwh| (kwh / size_kwh * 1e3).round() / 1e3).collect();
    let mut map = Map::new();
    map.insert("state_of_health".into(), json!(health));
    map.insert("maintenance_cost".into(), money(g.maintenance_cost));
    if let Some(month) = g.replacement_month {
        let total_residual_kwh = if month == 0 {
            health.last().copied().unwrap_or(0.0) * size_kwh
        } else {
            let replacements = f64::from(model.financial.analysis_years * 12) / f64::from(month);
            size_kwh * healthy_fraction_left(replacements)
        };
        map.insert("replacement_month".into(), json!(month));
        map.insert("total_residual_kwh".into(), json!(round6(total_residual_kwh)));
    }
    map.insert("residual_value".into(), money(g.residual_value));
    map
}

//! The `GHP` section and GHP's cost items (REopt.jl 0.56.4 `add_ghp_results` in
//! `src/results/ghp.jl`; the GHP terms of `add_financial_results` in `src/results/financial.jl`).
//! Series are MMBtu/h of heating and tons of cooling per step, rounded to 3 decimals as the
//! service; costs are $ present value.

use serde_json::{Map, Value};

use super::{money, round6, round_to};
use crate::optimizer::lp::{CostFactors, Dispatch};
use crate::optimizer::model::absorption_chiller_inputs::KWH_THERMAL_PER_TONHOUR;
use crate::optimizer::model::ghp_inputs::{Ghp, HeatPumps};
use crate::optimizer::model::{HeatingLoadKind, Model, KWH_PER_MMBTU};

/// GHP's cost items in a solution (zero without a chosen option).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GhpCosts {
    /// The third-party factor times the option's net present installed cost.
    pub capital: f64,
    /// Before incentives, less the avoided capex (the service's initial capital of GHP).
    pub initial: f64,
    pub om_before_tax: f64,
    pub avoided_capex: f64,
    pub ghx_residual_value: f64,
}

fn chosen<'a>(model: &'a Model, d: &Dispatch) -> Option<(&'a Ghp, usize)> {
    let ghp = model.ghp.as_ref()?;
    Some((ghp, d.ghp.as_ref()?.chosen?))
}

pub fn ghp_costs(model: &Model, factors: &CostFactors, d: &Dispatch) -> GhpCosts {
    let Some((ghp, g)) = chosen(model, d) else { return GhpCosts::default() };
    let option = &ghp.options[g];
    GhpCosts {
        capital: factors.third_party_factor * option.installed_cost,
        initial: option.initial_capital_cost - ghp.avoided_capex,
        om_before_tax: factors.pwf_om * option.om_cost_year_one,
        avoided_capex: ghp.avoided_capex,
        ghx_residual_value: option.ghx_residual_value,
    }
}

fn rounded3(values: impl Iterator<Item = f64>) -> Vec<f64> {
    values.map(|v| round_to(v, 3)).collect()
}

fn list(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&v| Value::from(v)).collect())
}

/// The `GHP` section of the optimal case (None without GHP).
pub fn ghp_outputs(model: &Model, d: &Dispatch) -> Option<Value> {
    let ghp = model.ghp.as_ref()?;
    let steps = model.steps();
    let zeros = vec![0.0; steps];
    let mut out = Map::new();
    let Some((_, g)) = chosen(model, d) else {
        out.insert("ghp_option_chosen".into(), Value::from(0));
        out.insert("ghpghx_chosen_outputs".into(), Value::Object(Map::new()));
        for field in [
            "space_heating_thermal_load_reduction_with_ghp_mmbtu_per_hour",
            "cooling_thermal_load_reduction_with_ghp_ton",
            "thermal_to_space_heating_load_series_mmbtu_per_hour",
            "thermal_to_load_series_ton",
            "thermal_to_dhw_load_series_mmbtu_per_hour",
        ] {
            out.insert(field.into(), list(&zeros));
        }
        for field in ["ghx_residual_value_present_value", "annual_thermal_production_mmbtu", "annual_thermal_production_tonhour"] {
            out.insert(field.into(), Value::from(0.0));
        }
        return Some(Value::Object(out));
    };
    let option = &ghp.options[g];
    out.insert("ghp_option_chosen".into(), Value::from(g + 1));
    out.insert("ghpghx_chosen_outputs".into(), option.ghpghx_outputs.clone());
    match option.heat_pumps {
        HeatPumps::Wshp { ton } => {
            out.insert("size_heat_pump_ton".into(), Value::from(round6(ton)));
        }
        HeatPumps::Wwhp { heating_ton, cooling_ton } => {
            out.insert("size_wwhp_heating_pump_ton".into(), Value::from(round6(heating_ton)));
            out.insert("size_wwhp_cooling_pump_ton".into(), Value::from(round6(cooling_ton)));
        }
    }
    let heating_reduction = rounded3(ghp.space_heating_reduction_kw.iter().map(|kw| kw / KWH_PER_MMBTU));
    let cooling_reduction = rounded3(ghp.cooling_reduction_kw.iter().map(|kw| kw / KWH_THERMAL_PER_TONHOUR));
    let heating_served = rounded3(option.heating_served_kw.iter().map(|kw| kw / KWH_PER_MMBTU));
    let cooling_served = rounded3(option.cooling_served_kw.iter().map(|kw| kw / KWH_THERMAL_PER_TONHOUR));
    // As the service: with DHW service the hot-water series is the whole hot-water load (its
    // space-heating series is the served heating, which then holds that part too).
    let dhw = match (&model.heating, ghp.can_serve_dhw) {
        (Some(heating), true) => rounded3(heating.load_kw(HeatingLoadKind::DomesticHotWater, steps).iter().map(|kw| kw / KWH_PER_MMBTU)),
        _ => zeros.clone(),
    };
    out.insert("space_heating_thermal_load_reduction_with_ghp_mmbtu_per_hour".into(), list(&heating_reduction));
    out.insert("cooling_thermal_load_reduction_with_ghp_ton".into(), list(&cooling_reduction));
    out.insert("ghx_residual_value_present_value".into(), money(option.ghx_residual_value));
    out.insert("avoided_capex_by_ghp_present_value".into(), money(ghp.avoided_capex));
    out.insert("thermal_to_space_heating_load_series_mmbtu_per_hour".into(), list(&heating_served));
    out.insert("thermal_to_load_series_ton".into(), list(&cooling_served));
    out.insert("thermal_to_dhw_load_series_mmbtu_per_hour".into(), list(&dhw));
    let annual_heating = heating_served.iter().sum::<f64>() + dhw.iter().sum::<f64>();
    out.insert("annual_thermal_production_mmbtu".into(), Value::from(round6(annual_heating)));
    out.insert("annual_thermal_production_tonhour".into(), Value::from(round6(cooling_served.iter().sum::<f64>())));
    Some(Value::Object(out))
}

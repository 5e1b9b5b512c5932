//! The CHP results: its cost items in a solution (`ChpCosts`, part of the lifecycle cost) and
//! the `CHP` output section with the service's names (REopt.jl `src/results/chp.jl`).
//! Thermal series are MMBtu/h per step.
//!
//! As the service writes them, `thermal_production_series` and `thermal_to_load_series` add
//! the supplementary firing's heat to the heat made (which already holds it), so with firing
//! they exceed the heat balance's CHP term by the fired heat; the per-load series and
//! `thermal_curtailed` (waste) do not. `electric_to_grid_series_kw` is the exports of every bin.

use serde_json::{Map, Value};

use super::thermal::{mmbtu_per_hour, to_load_kind, LOAD_KEYS};
use super::{money, round6, series};
use crate::optimizer::lp::chp::{initial_capital, net_present_capital, standby_cost_per_kw};
use crate::optimizer::lp::fuel_present_worth;
use crate::optimizer::lp::CostFactors;
use crate::optimizer::model::{Model, KWH_PER_MMBTU};
use crate::optimizer::model::thermal_inputs::HeatProducer;
use crate::optimizer::run::CaseSolution;

/// The CHP's cost items in a solution ($; lifecycle items present value).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ChpCosts {
    /// The size's net present cost after MACRS and ITC on the cost curve times the third-party
    /// factor, plus the firing size at its capital cost (the service leaves the factor off it).
    pub capital: f64,
    /// The size's installed cost on the cost curve plus the firing's capital cost (before incentives).
    pub initial: f64,
    pub year_one_fuel_before_tax: f64,
    pub lifecycle_fuel_after_tax: f64,
    /// pwf_om · (fixed + per kWh + per hour on), before tax.
    pub om_before_tax: f64,
    pub year_one_standby_before_tax: f64,
    pub lifecycle_standby_after_tax: f64,
}

/// The CHP's cost items of a solution (zero without CHP in it).
pub fn chp_costs(model: &Model, factors: &CostFactors, solution: &CaseSolution) -> ChpCosts {
    let (Some(chp), Some(d)) = (&model.chp, &solution.dispatch.chp) else { return ChpCosts::default() };
    let dt = model.step_hours();
    let year_one_fuel: f64 = d.fuel_kw.iter().zip(&chp.burner.fuel_cost_per_kwh).map(|(kw, c)| dt * kw * c).sum();
    let annual_kwh: f64 = dt * d.rated_kw.iter().sum::<f64>();
    let hours_on: f64 = dt * d.on.iter().sum::<f64>();
    let om_year_one = chp.om_cost_per_kw * d.size_kw + chp.om_cost_per_kwh * annual_kwh + chp.om_cost_per_hr_per_kw_rated * d.size_kw * hours_on;
    let firing = chp.supplementary_firing_capital_cost_per_kw * d.supplementary_size_kw;
    ChpCosts {
        capital: factors.third_party_factor * net_present_capital(model, chp, d.size_kw) + firing,
        initial: initial_capital(model, chp, d.size_kw) + firing,
        year_one_fuel_before_tax: year_one_fuel,
        lifecycle_fuel_after_tax: fuel_present_worth(model, &chp.burner) * year_one_fuel * factors.offtaker_after_tax,
        om_before_tax: factors.pwf_om * om_year_one,
        year_one_standby_before_tax: 12.0 * chp.standby_rate_per_kw_per_month * d.size_kw,
        lifecycle_standby_after_tax: standby_cost_per_kw(factors, chp) * d.size_kw,
    }
}

/// The `CHP` section of the optimal case (None without CHP).
pub fn chp_outputs(model: &Model, factors: &CostFactors, solution: &CaseSolution, costs: &ChpCosts) -> Option<Value> {
    let d = solution.dispatch.chp.as_ref()?;
    let heating = model.heating.as_ref().zip(solution.dispatch.heating.as_ref());
    let steps = model.steps();
    let dt = model.step_hours();
    let service_production = |t: usize| d.heat_kw(t) - d.heat_to_waste_kw[t] + d.supplementary_kw[t];
    let production = mmbtu_per_hour((0..steps).map(service_production));
    let to_load = mmbtu_per_hour((0..steps).map(|t| service_production(t) - d.heat_to_storage_kw[t] - d.heat_to_turbine_kw[t]));
    let mut out = Map::new();
    out.insert("size_kw".into(), Value::from(round6(d.size_kw)));
    out.insert("size_supplemental_firing_kw".into(), Value::from(round6(d.supplementary_size_kw)));
    out.insert("annual_fuel_consumption_mmbtu".into(), Value::from(round6(dt * d.fuel_kw.iter().sum::<f64>() / KWH_PER_MMBTU)));
    out.insert("annual_electric_production_kwh".into(), Value::from(round6(dt * d.rated_kw.iter().sum::<f64>())));
    out.insert("annual_thermal_production_mmbtu".into(), Value::from(round6(dt * production.iter().sum::<f64>())));
    out.insert("thermal_production_series_mmbtu_per_hour".into(), series(&production));
    out.insert("electric_production_series_kw".into(), series(&d.rated_kw));
    let to_grid_kw: Vec<f64> = (0..steps).map(|t| d.to_grid_total_kw(t)).collect();
    out.insert("electric_to_grid_series_kw".into(), series(&to_grid_kw));
    out.insert("electric_to_storage_series_kw".into(), series(&d.to_storage_kw));
    // The service reports production less storage and exports as to load: curtailment included.
    let to_load_kw: Vec<f64> = d.to_load_kw.iter().zip(&d.curtailed_kw).map(|(l, c)| l + c).collect();
    out.insert("electric_to_load_series_kw".into(), series(&to_load_kw));
    out.insert("thermal_to_storage_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(d.heat_to_storage_kw.iter().copied())));
    out.insert("thermal_curtailed_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(d.heat_to_waste_kw.iter().copied())));
    out.insert("thermal_to_steamturbine_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(d.heat_to_turbine_kw.iter().copied())));
    out.insert("thermal_to_load_series_mmbtu_per_hour".into(), series(&to_load));
    for (name, kind) in LOAD_KEYS {
        let to_kind = heating.map_or_else(|| vec![0.0; steps], |(_, heat)| to_load_kind(model, heat, kind, HeatProducer::Chp));
        out.insert(format!("thermal_to_{name}_series_mmbtu_per_hour"), series(&to_kind));
    }
    out.insert("year_one_fuel_cost_before_tax".into(), money(costs.year_one_fuel_before_tax));
    out.insert("year_one_fuel_cost_after_tax".into(), money(costs.year_one_fuel_before_tax * factors.offtaker_after_tax));
    out.insert("lifecycle_fuel_cost_after_tax".into(), money(costs.lifecycle_fuel_after_tax));
    out.insert("year_one_standby_cost_before_tax".into(), money(costs.year_one_standby_before_tax.round()));
    out.insert("year_one_standby_cost_after_tax".into(), money(costs.year_one_standby_before_tax.round() * factors.offtaker_after_tax));
    out.insert("lifecycle_standby_cost_after_tax".into(), money(costs.lifecycle_standby_after_tax.round()));
    out.insert("initial_capital_costs".into(), money(costs.initial));
    Some(Value::Object(out))
}


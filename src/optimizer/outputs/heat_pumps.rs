//! The electric heating techs' results: their cost items (`HeatPumpCosts`, part of the lifecycle
//! cost) and the `ElectricHeater`, `ASHPSpaceHeater`, `ASHPWaterHeater` and `CST` sections with
//! the service's names (REopt.jl `src/results/electric_heater.jl`, `src/results/ashp.jl`,
//! `src/results/cst.jl`). Thermal
//! series in MMBtu/h, electricity in kW per step; the annual values are sums of their series, as
//! the service writes them. ASHP sizes are tons of the size variable times the sizing factor.
//! The ASHPSpaceHeater's cooling is in tons (to load, to the chilled-water tank, ton-hours a
//! year); its electricity series is heating's plus cooling's, each also on its own.

use serde_json::{Map, Value};

use super::thermal::mmbtu_per_hour;
use super::{round6, round_to, series};
use crate::optimizer::lp::heat_pumps::HeatPumpDispatch;
use crate::optimizer::lp::{CostFactors, Dispatch};
use crate::optimizer::model::absorption_chiller_inputs::KWH_THERMAL_PER_TONHOUR;
use crate::optimizer::model::electric_heater_inputs::{HeatPump, HeatPumpKind};
use crate::optimizer::model::{HeatingLoadKind, Model, KWH_PER_MMBTU};

/// The techs' cost items of a solution ($; zero without them).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HeatPumpCosts {
    /// Σ size · net present $/kW (after MACRS).
    pub capital: f64,
    /// Σ size · installed $/kW.
    pub initial: f64,
    /// pwf_om · Σ O&M $/kW-year · size, before tax.
    pub om_before_tax: f64,
    /// The ASHPs' avoided capex ($ present value), taken off capital and the lcc.
    pub avoided_capex: f64,
}

pub fn heat_pump_costs(model: &Model, factors: &CostFactors, d: &Dispatch) -> HeatPumpCosts {
    let mut costs = HeatPumpCosts::default();
    if d.heat_pumps.is_empty() {
        return costs;
    }
    for (tech, dispatch) in model.heat_pumps.iter().zip(&d.heat_pumps) {
        costs.capital += tech.net_present_cost_per_kw * dispatch.size_kw;
        costs.initial += tech.installed_cost_per_kw * dispatch.size_kw;
        costs.om_before_tax += factors.pwf_om * tech.om_cost_per_kw * dispatch.size_kw;
        costs.avoided_capex += tech.avoided_capex;
    }
    costs
}


/// A tech's heat to the high-temperature storage (MMBtu/h; zeros without one).
fn to_high_temp(model: &Model, d: &HeatPumpDispatch) -> Vec<f64> {
    let high_temp = |b: usize| model.heating.as_ref().is_some_and(|h| h.hot_storages[b].high_temp.is_some());
    let mut kw = vec![0.0; d.to_storage_kw.len()];
    for (_, part) in d.to_storages_kw.iter().filter(|(b, _)| high_temp(*b)) {
        kw.iter_mut().zip(part).for_each(|(sum, v)| *sum += v);
    }
    mmbtu_per_hour(&kw)
}

/// CST's section.
fn cst_section(model: &Model, d: &HeatPumpDispatch) -> Value {
    let mut out = Map::new();
    out.insert("size_kw".into(), Value::from(round_to(d.size_kw, 3)));
    out.insert("size_mmbtu_per_hour".into(), Value::from(round_to(d.size_kw / KWH_PER_MMBTU, 3)));
    let electric: Vec<f64> = d.electric_kw.iter().map(|kw| kw * model.step_hours()).collect();
    out.insert("electric_consumption_series_kw".into(), series(&electric));
    out.insert("annual_electric_consumption_kwh".into(), Value::from(round6(electric.iter().sum::<f64>())));
    let production = mmbtu_per_hour(d.production());
    out.insert("thermal_production_series_mmbtu_per_hour".into(), series(&production));
    out.insert("annual_thermal_production_mmbtu".into(), Value::from(round6(production.iter().sum::<f64>())));
    out.insert("thermal_to_storage_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(&d.to_storage_kw)));
    out.insert("thermal_to_high_temp_thermal_storage_series_mmbtu_per_hour".into(), series(&to_high_temp(model, d)));
    out.insert("thermal_to_steamturbine_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(&d.to_turbine_kw)));
    out.insert("thermal_curtailed_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(&d.to_waste_kw)));
    out.insert("thermal_to_load_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(d.to_loads())));
    for (name, kind) in super::thermal::LOAD_KEYS {
        out.insert(format!("thermal_to_{name}_series_mmbtu_per_hour"), series(&mmbtu_per_hour(d.to_kind(kind))));
    }
    Value::Object(out)
}

/// An ASHP's `size_ton` as written: the size variable times the sizing factor, rounded.
pub(super) fn size_ton(tech: &HeatPump, d: &HeatPumpDispatch) -> f64 {
    round_to(tech.sizing_factor * d.size_kw / KWH_THERMAL_PER_TONHOUR, 3)
}

/// One tech's section.
fn section(model: &Model, tech: &HeatPump, d: &HeatPumpDispatch) -> Value {
    if let HeatPumpKind::Cst { .. } = tech.kind {
        return cst_section(model, d);
    }
    let dt = model.step_hours();
    let mut out = Map::new();
    match tech.kind {
        HeatPumpKind::ElectricHeater => {
            out.insert("size_mmbtu_per_hour".into(), Value::from(round_to(d.size_kw / KWH_PER_MMBTU, 3)));
        }
        _ => {
            out.insert("size_ton".into(), Value::from(size_ton(tech, d)));
        }
    }
    let heating_electric: Vec<f64> = d.electric_kw.iter().map(|kw| kw * dt).collect();
    let cooling_electric: Vec<f64> = d.cooling_electric_kw.iter().map(|kw| kw * dt).collect();
    let electric: Vec<f64> = heating_electric.iter().zip(&cooling_electric).map(|(h, c)| h + c).collect();
    out.insert("electric_consumption_series_kw".into(), series(&electric));
    // The service sums the electric heater's series, and the ASHPs' times the step's hours again.
    let annual_hours = if tech.kind == HeatPumpKind::ElectricHeater { 1.0 } else { dt };
    out.insert("annual_electric_consumption_kwh".into(), Value::from(round6(annual_hours * electric.iter().sum::<f64>())));
    let production = mmbtu_per_hour(d.production());
    out.insert("thermal_production_series_mmbtu_per_hour".into(), series(&production));
    out.insert("annual_thermal_production_mmbtu".into(), Value::from(round6(production.iter().sum::<f64>())));
    out.insert("thermal_to_storage_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(&d.to_storage_kw)));
    out.insert("thermal_to_load_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(d.to_loads())));
    let kinds: &[(&str, HeatingLoadKind)] = match tech.kind {
        HeatPumpKind::ElectricHeater | HeatPumpKind::Cst { .. } => &super::thermal::LOAD_KEYS,
        HeatPumpKind::AshpSpaceHeater => &[("space_heating_load", HeatingLoadKind::SpaceHeating)],
        HeatPumpKind::AshpWaterHeater => &[("dhw_load", HeatingLoadKind::DomesticHotWater)],
    };
    for &(name, kind) in kinds {
        out.insert(format!("thermal_to_{name}_series_mmbtu_per_hour"), series(&mmbtu_per_hour(d.to_kind(kind))));
    }
    match tech.kind {
        HeatPumpKind::ElectricHeater | HeatPumpKind::Cst { .. } => {
            out.insert("thermal_to_steamturbine_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(&d.to_turbine_kw)));
            out.insert("thermal_to_high_temp_thermal_storage_series_mmbtu_per_hour".into(), series(&to_high_temp(model, d)));
        }
        HeatPumpKind::AshpSpaceHeater => {
            let tons = |kw: &[f64]| kw.iter().map(|v| v / KWH_THERMAL_PER_TONHOUR).collect::<Vec<f64>>();
            out.insert("thermal_to_storage_series_ton".into(), series(&tons(&d.cool_to_storage_kw)));
            out.insert("thermal_to_load_series_ton".into(), series(&tons(&d.cool_to_load_kw)));
            let cooled: f64 = d.cool_to_load_kw.iter().chain(&d.cool_to_storage_kw).sum();
            out.insert("annual_thermal_production_tonhour".into(), Value::from(round_to(dt * cooled / KWH_THERMAL_PER_TONHOUR, 3)));
            out.insert("electric_consumption_for_cooling_series_kw".into(), series(&cooling_electric));
            out.insert("electric_consumption_for_heating_series_kw".into(), series(&heating_electric));
            out.insert("annual_electric_consumption_for_cooling_kwh".into(), Value::from(round6(dt * cooling_electric.iter().sum::<f64>())));
            out.insert("annual_electric_consumption_for_heating_kwh".into(), Value::from(round6(dt * heating_electric.iter().sum::<f64>())));
            let steps = production.len();
            let (cop, cf) = tech.cooling.as_ref().map_or_else(|| (vec![0.0; steps], vec![0.0; steps]), |c| (c.cop.clone(), c.cf.clone()));
            out.insert("cooling_cop".into(), series(&cop));
            out.insert("cooling_cf".into(), series(&cf));
            out.insert("heating_cop".into(), series(&tech.cop));
            out.insert("heating_cf".into(), series(&tech.cf));
        }
        HeatPumpKind::AshpWaterHeater => {
            out.insert("heating_cop".into(), series(&tech.cop));
            out.insert("heating_cf".into(), series(&tech.cf));
        }
    }
    Value::Object(out)
}

/// Inserts the techs' sections of the optimal case into `outputs`.
pub fn insert_heat_pump_outputs(outputs: &mut Map<String, Value>, model: &Model, optimal: &Dispatch) {
    for (tech, d) in model.heat_pumps.iter().zip(&optimal.heat_pumps) {
        outputs.insert(tech.kind.section().into(), section(model, tech, d));
    }
}

//! The steam turbine results: its cost items in a solution (`SteamTurbineCosts`, part of the
//! lifecycle cost) and the `SteamTurbine` output section with the service's names (REopt.jl
//! `src/results/steam_turbine.jl`). Thermal series are MMBtu/h per step, electric series kW.
//! No exports (refused): that series is zeros.
//!
//! As the service writes them: the thermal consumption counts the techs' steam only (not the
//! hot storages' heat to the turbine); `thermal_to_storage` is the heat to the water tank and
//! `thermal_to_high_temp_thermal_storage` to the high-temperature storage, and `thermal_to_load`
//! is the production less the heat to the water tank only (so it holds the heat to the
//! high-temperature storage too). The split by load is of the heat to load proper.

use serde_json::{Map, Value};

use super::thermal::{mmbtu_per_hour, to_load_kind, LOAD_KEYS};
use super::{round6, series};
use crate::optimizer::lp::CostFactors;
use crate::optimizer::model::Model;
use crate::optimizer::model::thermal_inputs::HeatProducer;
use crate::optimizer::run::CaseSolution;

/// The turbine's cost items in a solution ($; lifecycle items present value).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SteamTurbineCosts {
    /// kW · net present $/kW after MACRS, and kW · installed $/kW.
    pub capital: f64,
    pub initial: f64,
    /// pwf_om · (om $/kW · kW + om $/kWh · kWh a year), before tax.
    pub om_before_tax: f64,
}

/// The turbine's cost items of a solution (zero without a turbine in it).
pub fn steam_turbine_costs(model: &Model, factors: &CostFactors, solution: &CaseSolution) -> SteamTurbineCosts {
    let (Some(st), Some(d)) = (&model.steam_turbine, &solution.dispatch.steam_turbine) else { return SteamTurbineCosts::default() };
    let annual_kwh: f64 = model.step_hours() * (0..model.steps()).map(|t| d.electric_kw(t)).sum::<f64>();
    SteamTurbineCosts {
        capital: st.net_present_cost_per_kw * d.size_kw,
        initial: st.installed_cost_per_kw * d.size_kw,
        om_before_tax: factors.pwf_om * (st.om_cost_per_kw * d.size_kw + st.om_cost_per_kwh * annual_kwh),
    }
}

/// The `SteamTurbine` section of the optimal case (None without a turbine).
pub fn steam_turbine_outputs(model: &Model, solution: &CaseSolution) -> Option<Value> {
    let d = solution.dispatch.steam_turbine.as_ref()?;
    let steps = model.steps();
    let dt = model.step_hours();
    let electric: Vec<f64> = (0..steps).map(|t| d.electric_kw(t)).collect();
    let heating = model.heating.as_ref().zip(solution.dispatch.heating.as_ref());
    let storages = || heating.into_iter().flat_map(|(h, heat)| h.hot_storages.iter().zip(&heat.storages));
    let stored_in = |t: usize| storages().map(|(_, s)| s.to_turbine_kw[t]).sum::<f64>();
    let charged = |high_temp: bool, t: usize| storages().filter(|(s, _)| s.high_temp.is_some() == high_temp).map(|(_, s)| s.turbine_charge_kw[t]).sum::<f64>();
    let consumption = mmbtu_per_hour((0..steps).map(|t| d.thermal_in_kw[t] - stored_in(t)));
    let production = mmbtu_per_hour((0..steps).map(|t| d.heat_kw(t)));
    let mut out = Map::new();
    out.insert("size_kw".into(), Value::from(round6(d.size_kw)));
    out.insert("annual_thermal_consumption_mmbtu".into(), Value::from(round6(dt * consumption.iter().sum::<f64>())));
    out.insert("annual_electric_production_kwh".into(), Value::from(round6(dt * electric.iter().sum::<f64>())));
    out.insert("annual_thermal_production_mmbtu".into(), Value::from(round6(dt * production.iter().sum::<f64>())));
    out.insert("thermal_consumption_series_mmbtu_per_hour".into(), series(&consumption));
    out.insert("electric_production_series_kw".into(), series(&electric));
    out.insert("electric_to_grid_series_kw".into(), series(&vec![0.0; steps]));
    out.insert("electric_to_storage_series_kw".into(), series(&d.to_storage_kw));
    out.insert("electric_to_load_series_kw".into(), series(&d.to_load_kw));
    out.insert("thermal_to_storage_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour((0..steps).map(|t| charged(false, t)))));
    out.insert("thermal_to_high_temp_thermal_storage_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour((0..steps).map(|t| charged(true, t)))));
    out.insert("thermal_to_load_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour((0..steps).map(|t| d.heat_kw(t) - charged(false, t)))));
    for (name, kind) in LOAD_KEYS {
        let to_kind = heating.map_or_else(|| vec![0.0; steps], |(_, heat)| to_load_kind(model, heat, kind, HeatProducer::SteamTurbine));
        out.insert(format!("thermal_to_{name}_series_mmbtu_per_hour"), series(&to_kind));
    }
    Some(Value::Object(out))
}

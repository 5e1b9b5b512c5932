//! The cooling results: the `ExistingChiller`, `AbsorptionChiller`, `ColdThermalStorage` and
//! `CoolingLoad` output sections with the service's names, units and roundings (REopt.jl
//! `src/results/existing_chiller.jl`, `absorption_chiller.jl`, `thermal_storage.jl`
//! `add_cold_storage_results`, `heating_cooling_load.jl`, and the `_bau` twins of
//! `combine_results` in `results.jl`): tons per step, ton-hours and kWh a year, MMBtu of heat.
//!
//! Without an absorption chiller or a tank the existing chiller serves the whole cooling load in
//! both cases; with them the optimal case's series come from the dispatch and the `_bau` twins
//! from the whole load. Its size is, as the existing boiler's, its peak production times
//! `max_thermal_factor_on_peak_load` (the service's size variable is free between the peak and its
//! bound at no cost; this is its least value). In the steps without the grid (the deterministic
//! outage) the service balances no cooling (`lp::cooling`): the chiller makes nothing there, in
//! both cases.

use serde_json::{Map, Value};

use super::{round6, round_to};
use crate::optimizer::lp::cooling::CoolingDispatch;
use crate::optimizer::lp::{CostFactors, Dispatch};
use crate::optimizer::model::cooling_inputs::{Cooling, KWH_THERMAL_PER_TONHOUR};
use crate::optimizer::model::{Model, KWH_PER_MMBTU};

fn rounded_series(values: impl Iterator<Item = f64>, digits: i32) -> Value {
    Value::Array(values.map(|v| Value::from(round_to(v, digits))).collect())
}

/// A cooling series where the grid serves, 0 in the steps without it.
fn with_grid(model: &Model, kw: &[f64]) -> Vec<f64> {
    kw.iter().enumerate().map(|(t, &v)| if model.has_grid(t) { v } else { 0.0 }).collect()
}

/// The existing chiller's annual items from its production per step (kW).
fn existing_chiller_annuals(model: &Model, cooling: &Cooling, produced_kw: &[f64]) -> [(&'static str, f64); 3] {
    let dt = model.step_hours();
    let chiller = &cooling.existing_chiller;
    let peak = produced_kw.iter().copied().fold(0.0, f64::max);
    let annual_thermal_kwh = produced_kw.iter().sum::<f64>() * dt;
    [
        ("size_ton", round_to(peak * chiller.max_thermal_factor_on_peak_load / KWH_THERMAL_PER_TONHOUR, 3)),
        ("annual_electric_consumption_kwh", round_to(annual_thermal_kwh / chiller.cop, 3)),
        ("annual_thermal_production_tonhour", round_to(annual_thermal_kwh / KWH_THERMAL_PER_TONHOUR, 3)),
    ]
}

/// The `ExistingChiller` section of the optimal case's dispatch (None: it serves the load a
/// chosen GHP design leaves, `left_kw`); `with_bau` adds the business-as-usual twins, where it
/// serves the whole load.
fn existing_chiller_outputs(model: &Model, cooling: &Cooling, dispatch: Option<&CoolingDispatch>, left_kw: &[f64], with_bau: bool) -> Value {
    let cop = cooling.existing_chiller.cop;
    let zeros = vec![0.0; cooling.load_kw.len()];
    let (to_load, to_storage) = dispatch.map_or((left_kw, &zeros), |d| (&d.existing_to_load_kw, &d.existing_to_storage_kw));
    let produced: Vec<f64> = to_load.iter().zip(to_storage).map(|(a, b)| a + b).collect();
    let mut out = Map::new();
    out.insert("thermal_to_storage_series_ton".into(), rounded_series(to_storage.iter().map(|kw| kw / KWH_THERMAL_PER_TONHOUR), 3));
    out.insert("thermal_to_load_series_ton".into(), rounded_series(to_load.iter().map(|kw| kw / KWH_THERMAL_PER_TONHOUR), 3));
    out.insert("electric_consumption_series_kw".into(), rounded_series(produced.iter().map(|kw| kw / cop), 3));
    for (key, value) in existing_chiller_annuals(model, cooling, &produced) {
        out.insert(key.into(), Value::from(value));
    }
    if with_bau {
        for (key, value) in existing_chiller_annuals(model, cooling, &with_grid(model, &cooling.load_kw)) {
            out.insert(format!("{key}_bau"), Value::from(value));
        }
    }
    Value::Object(out)
}

/// The `AbsorptionChiller` section (None without one).
pub fn absorption_chiller_outputs(model: &Model, cooling: &Cooling, d: &CoolingDispatch) -> Option<Value> {
    let chiller = cooling.absorption_chiller.as_ref()?;
    let dt = model.step_hours();
    let produced = d.absorption_production();
    let heat: Vec<f64> = produced.iter().map(|kw| kw / chiller.cop_thermal).collect();
    let electric: Vec<f64> = produced.iter().map(|kw| kw / chiller.cop_electric).collect();
    let tons = |kw: &[f64]| rounded_series(kw.iter().map(|v| v / KWH_THERMAL_PER_TONHOUR), 5);
    let mut out = Map::new();
    out.insert("size_kw".into(), Value::from(d.absorption_size_kw));
    out.insert("size_ton".into(), Value::from(d.absorption_size_kw / KWH_THERMAL_PER_TONHOUR));
    out.insert("thermal_to_storage_series_ton".into(), tons(&d.absorption_to_storage_kw));
    out.insert("thermal_to_load_series_ton".into(), tons(&d.absorption_to_load_kw));
    out.insert("thermal_consumption_series_mmbtu_per_hour".into(), rounded_series(heat.iter().map(|kw| kw / KWH_PER_MMBTU), 5));
    out.insert("annual_thermal_consumption_mmbtu".into(), Value::from(round_to(heat.iter().sum::<f64>() * dt / KWH_PER_MMBTU, 5)));
    out.insert("annual_thermal_production_tonhour".into(), Value::from(round_to(produced.iter().sum::<f64>() * dt / KWH_THERMAL_PER_TONHOUR, 5)));
    out.insert("electric_consumption_series_kw".into(), rounded_series(electric.iter().copied(), 3));
    out.insert("annual_electric_consumption_kwh".into(), Value::from(round_to(electric.iter().sum::<f64>() * dt, 3)));
    Some(Value::Object(out))
}

/// The `ColdThermalStorage` section (None without a tank); empty series when none is built.
pub fn cold_storage_outputs(cooling: &Cooling, d: &CoolingDispatch) -> Option<Value> {
    let tank = cooling.cold_storage.as_ref()?;
    let size_kwh = round_to(d.storage_kwh, 3);
    let mut out = Map::new();
    out.insert("size_gal".into(), Value::from((size_kwh / tank.kwh_per_gal).round()));
    let (soc, to_load) = if size_kwh != 0.0 {
        (rounded_series(d.soc_kwh.iter().map(|kwh| kwh / size_kwh), 3), rounded_series(d.discharge_kw.iter().map(|kw| kw / KWH_THERMAL_PER_TONHOUR), 7))
    } else {
        (Value::Array(Vec::new()), Value::Array(Vec::new()))
    };
    out.insert("soc_series_fraction".into(), soc);
    out.insert("storage_to_load_series_ton".into(), to_load);
    Some(Value::Object(out))
}

/// The absorption chiller's and the tank's cost items ($; zero without them).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CoolingCosts {
    /// Absorption chiller kW · net present $/kW (after MACRS).
    pub chiller_capital: f64,
    /// Absorption chiller kW · installed $/kW.
    pub chiller_initial: f64,
    /// pwf_om · O&M $/kW-year · kW, before tax.
    pub chiller_om_before_tax: f64,
    /// Tank kWh · net present $/kWh, and · installed $/kWh.
    pub storage_capital: f64,
    pub storage_initial: f64,
}

pub fn cooling_costs(model: &Model, factors: &CostFactors, d: &Dispatch) -> CoolingCosts {
    let (Some(cooling), Some(d)) = (&model.cooling, &d.cooling) else { return CoolingCosts::default() };
    let mut costs = CoolingCosts::default();
    if let Some(chiller) = &cooling.absorption_chiller {
        costs.chiller_capital = chiller.net_present_cost_per_kw * d.absorption_size_kw;
        costs.chiller_initial = chiller.installed_cost_per_kw * d.absorption_size_kw;
        costs.chiller_om_before_tax = factors.pwf_om * chiller.om_cost_per_kw * d.absorption_size_kw;
    }
    if let Some(tank) = &cooling.cold_storage {
        costs.storage_capital = tank.net_present_cost_per_kwh * d.storage_kwh;
        costs.storage_initial = tank.installed_cost_per_kwh * d.storage_kwh;
    }
    costs
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

/// Inserts the cooling sections of a run into `outputs`, from the optimal case's dispatch.
pub fn insert_cooling_outputs(outputs: &mut Map<String, Value>, model: &Model, optimal: &Dispatch, with_bau: bool) {
    let Some(cooling) = &model.cooling else { return };
    let dispatch = optimal.cooling.as_ref();
    let ghp_cooling = |t: usize| match (&model.ghp, optimal.ghp.as_ref().and_then(|g| g.chosen)) {
        (Some(ghp), Some(g)) => ghp.cooling_kw(g, t),
        _ => 0.0,
    };
    let left: Vec<f64> = (0..cooling.load_kw.len()).map(|t| (cooling.load_kw[t] - ghp_cooling(t)).max(0.0)).collect();
    let left = with_grid(model, &left);
    outputs.insert("ExistingChiller".into(), existing_chiller_outputs(model, cooling, dispatch, &left, with_bau));
    if let Some(d) = dispatch {
        if let Some(section) = absorption_chiller_outputs(model, cooling, d) {
            outputs.insert("AbsorptionChiller".into(), section);
        }
        if let Some(section) = cold_storage_outputs(cooling, d) {
            outputs.insert("ColdThermalStorage".into(), section);
        }
    }
    outputs.insert("CoolingLoad".into(), cooling_load_outputs(model, cooling));
}

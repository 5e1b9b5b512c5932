//! The results sections of the resilience parts, in the service's shape: `Generator`, the
//! `Outages` of the multiple-outage form (arrays nested `[duration][start][outage step]`, as
//! the service's API returns them) and the critical-load and off-grid fields of `ElectricLoad`
//! (the fuel-burn emissions of `Site` are in `emissions`).

use serde_json::{json, Map, Value};

use super::round_to;
use crate::optimizer::lp::{microgrid, CostFactors, Dispatch};
use crate::optimizer::model::{ArrayKind, Model, KWH_PER_MMBTU};
use crate::optimizer::outputs::CostBreakdown;
use crate::optimizer::run::{bau_outage_served_steps, CaseSolution};


fn series(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&v| Value::from(round_to(v, 6))).collect())
}

/// kWh produced by the generator per step.
fn generator_output(d: &Dispatch, t: usize) -> f64 {
    d.generator_load[t] + d.generator_storage[t] + d.generator_curtail[t]
}

pub fn generator_outputs(model: &Model, factors: &CostFactors, optimal: &CaseSolution, costs: &CostBreakdown, bau: Option<&CostBreakdown>) -> Value {
    let d = &optimal.dispatch;
    let dt = model.step_hours();
    let steps = model.steps();
    let produced: f64 = (0..steps).map(|t| generator_output(d, t)).sum::<f64>() * dt;
    json!({
        "size_kw": round_to(d.generator_kw, 6),
        "lifecycle_fixed_om_cost_after_tax": round_to(costs.generator_om_fixed_before_tax * factors.owner_after_tax, 2),
        "year_one_fixed_om_cost_before_tax": round_to(costs.generator_om_fixed_before_tax / factors.pwf_om, 2),
        "lifecycle_variable_om_cost_after_tax": round_to(costs.generator_om_variable_before_tax * factors.owner_after_tax, 2),
        "year_one_variable_om_cost_before_tax": round_to(costs.generator_om_variable_before_tax / factors.pwf_om, 2),
        "lifecycle_fuel_cost_after_tax": round_to(costs.lifecycle_fuel_cost_after_tax, 2),
        "lifecycle_fuel_cost_after_tax_bau": bau.map(|b| round_to(b.lifecycle_fuel_cost_after_tax, 2)),
        "year_one_fuel_cost_before_tax": round_to(costs.year_one_fuel_cost, 2),
        "year_one_fuel_cost_after_tax": round_to(costs.year_one_fuel_cost * factors.offtaker_after_tax, 2),
        "annual_fuel_consumption_gal": round_to(costs.generator_fuel_gal, 2),
        "annual_fuel_consumption_gal_bau": bau.map(|b| round_to(b.generator_fuel_gal, 2)),
        "electric_to_storage_series_kw": series(&d.generator_storage),
        "electric_to_grid_series_kw": series(&vec![0.0; steps]),
        "electric_to_load_series_kw": series(&d.generator_load),
        "electric_curtailed_series_kw": series(&d.generator_curtail),
        "annual_energy_produced_kwh": round_to(produced, 2),
    })
}

/// The critical load, the business-as-usual check of the deterministic outage, and the
/// off-grid load met and operating reserves.
pub fn load_extras(model: &Model, optimal: &CaseSolution, load: &mut Map<String, Value>) {
    load.insert("critical_load_series_kw".into(), series(&model.critical_load_kw));
    if model.single_outage.is_some() {
        let check = bau_outage_served_steps(model);
        load.insert("bau_critical_load_met".into(), Value::Bool(check.met));
        load.insert("bau_critical_load_met_time_steps".into(), Value::from(check.steps));
    }
    let Some(off_grid) = &model.off_grid else { return };
    let d = &optimal.dispatch;
    let steps = model.steps();
    let dt = model.step_hours();
    let met: Vec<f64> = (0..steps).map(|t| d.onsite_to_load(t)).collect();
    let total: f64 = model.critical_load_kw.iter().sum();
    let reserve_fractions: Vec<f64> = model.pvs.iter().map(|pv| pv.operating_reserve_required_fraction).collect();
    let arrays = || d.pv_by_array.iter().zip(&reserve_fractions);
    let required: Vec<f64> = (0..steps)
        .map(|t| arrays().map(|(flows, f)| f * flows.to_load[t]).sum::<f64>() + off_grid.load_reserve_fraction * met[t])
        .collect();
    let provided: Vec<f64> = (0..steps)
        .map(|t| {
            let renewables: f64 = arrays().map(|(flows, f)| (1.0 - f) * (flows.to_storage[t] + flows.curtailed[t]).max(0.0)).sum();
            d.battery_reserve[t] + renewables + (d.generator_kw - d.generator_load[t] - d.generator_curtail[t]).max(0.0)
        })
        .collect();
    load.insert("offgrid_load_met_series_kw".into(), series(&met));
    load.insert("offgrid_load_met_fraction".into(), Value::from(round_to(if total > 0.0 { met.iter().sum::<f64>() / total } else { 1.0 }, 6)));
    load.insert("offgrid_annual_oper_res_required_series_kwh".into(), series(&required.iter().map(|kw| kw * dt).collect::<Vec<_>>()));
    load.insert("offgrid_annual_oper_res_provided_series_kwh".into(), series(&provided.iter().map(|kw| kw * dt).collect::<Vec<_>>()));
}

/// A `[duration][start][step]` array padded with zeros to the longest duration.
fn nested(model: &Model, solution: &CaseSolution, value: impl Fn(&microgrid::OutageDispatch) -> Vec<f64>) -> Value {
    let (Some(outages), Some(mg)) = (&model.outages, &solution.dispatch.microgrid) else { return json!([]) };
    let longest = outages.longest();
    Value::Array(
        mg.outages
            .iter()
            .map(|starts| {
                Value::Array(
                    starts
                        .iter()
                        .map(|o| {
                            let mut values = value(o);
                            values.resize(longest, 0.0);
                            series(&values)
                        })
                        .collect(),
                )
            })
            .collect(),
    )
}

/// The `Outages` section of the multiple-outage form (None without it).
pub fn outage_outputs(model: &Model, optimal: &CaseSolution, costs: &CostBreakdown) -> Option<Value> {
    let outages = model.outages.as_ref()?;
    let mg = optimal.dispatch.microgrid.as_ref()?;
    let d = &optimal.dispatch;
    let dt = model.step_hours();
    // Renewable flows split by kind by each kind's share of the outage step's production.
    let kind_share = |kind: ArrayKind, start: usize, k: usize| -> f64 {
        let tau = outages.step(start, k, model.steps());
        let total = d.pv_production[tau];
        if total <= 0.0 {
            return 0.0;
        }
        (0..model.pvs.len()).filter(|&i| model.pvs[i].kind == kind).map(|i| d.pv_production_by_array[i][tau]).sum::<f64>() / total
    };
    let by_kind = |kind: ArrayKind, flow: fn(&microgrid::OutageDispatch) -> &Vec<f64>| {
        let starts = &outages.starts;
        Value::Array(
            mg.outages
                .iter()
                .map(|by_start| {
                    Value::Array(
                        by_start
                            .iter()
                            .zip(starts)
                            .map(|(o, &start)| {
                                let mut values: Vec<f64> = flow(o).iter().enumerate().map(|(k, v)| v * kind_share(kind, start, k)).collect();
                                values.resize(outages.longest(), 0.0);
                                series(&values)
                            })
                            .collect(),
                    )
                })
                .collect(),
        )
    };
    let unserved_per_outage: Vec<Value> = mg
        .outages
        .iter()
        .map(|starts| Value::Array(starts.iter().map(|o| Value::from(round_to(dt * o.unserved.iter().sum::<f64>(), 2))).collect()))
        .collect();
    let fuel_per_outage: Vec<Value> =
        mg.outages.iter().map(|starts| Value::Array(starts.iter().map(|o| Value::from(round_to(o.fuel_gal, 4))).collect())).collect();
    let [renewables_upgrade, generator_upgrade, storage_upgrade, chp_upgrade] = costs.microgrid_upgrade_costs;
    let storage_in = mg.members.storage && d.storage_kwh > 0.0;
    let mut out = Map::new();
    out.insert("expected_outage_cost".into(), Value::from(round_to(costs.expected_outage_cost, 4)));
    out.insert("max_outage_cost_per_outage_duration".into(), json!(costs.max_outage_cost_per_outage_duration.iter().map(|c| round_to(*c, 4)).collect::<Vec<_>>()));
    out.insert("unserved_load_series_kw".into(), nested(model, optimal, |o| o.unserved.clone()));
    out.insert("unserved_load_per_outage_kwh".into(), Value::Array(unserved_per_outage));
    out.insert("electric_storage_microgrid_upgraded".into(), Value::Bool(storage_in));
    out.insert("storage_microgrid_upgrade_cost".into(), Value::from(round_to(storage_upgrade, 2)));
    out.insert("microgrid_upgrade_capital_cost".into(), Value::from(round_to(costs.microgrid_upgrade_costs.iter().sum(), 2)));
    if storage_in {
        out.insert("storage_discharge_series_kw".into(), nested(model, optimal, |o| o.discharge.clone()));
        let kwh = d.storage_kwh;
        out.insert("soc_series_fraction".into(), nested(model, optimal, |o| o.soc_kwh.iter().map(|e| e / kwh).collect()));
    } else {
        out.insert("storage_discharge_series_kw".into(), json!([]));
        out.insert("soc_series_fraction".into(), json!([]));
    }
    for (kind, prefix, label) in [(ArrayKind::Pv, "pv", "PV"), (ArrayKind::Wind, "wind", "Wind")] {
        if !model.has_array(kind) {
            continue;
        }
        let size: f64 = model.pvs.iter().zip(&d.pv_new_kw).filter(|(pv, _)| pv.kind == kind).map(|(pv, new)| pv.existing_kw + new).sum();
        let member = mg.members.renewables;
        let total: f64 = model.pvs.iter().zip(&d.pv_new_kw).map(|(pv, new)| pv.existing_kw + new).sum();
        let upgrade = if total > 0.0 { renewables_upgrade * size / total } else { 0.0 };
        out.insert(format!("{label}_upgraded"), Value::Bool(member && size > 0.0));
        out.insert(format!("{prefix}_microgrid_size_kw"), Value::from(round_to(if member { size } else { 0.0 }, 4)));
        out.insert(format!("{prefix}_microgrid_upgrade_cost"), Value::from(round_to(upgrade, 2)));
        out.insert(format!("{prefix}_to_storage_series_kw"), by_kind(kind, |o| &o.renewable_storage));
        out.insert(format!("{prefix}_curtailed_series_kw"), by_kind(kind, |o| &o.renewable_curtailed));
        out.insert(format!("{prefix}_to_load_series_kw"), by_kind(kind, |o| &o.renewable_load));
    }
    if model.generator.is_some() {
        let member = mg.members.generator;
        out.insert("Generator_upgraded".into(), Value::Bool(member && d.generator_kw > 0.0));
        out.insert("generator_microgrid_size_kw".into(), Value::from(round_to(if member { d.generator_kw } else { 0.0 }, 4)));
        out.insert("generator_microgrid_upgrade_cost".into(), Value::from(round_to(generator_upgrade, 2)));
        out.insert("generator_to_storage_series_kw".into(), nested(model, optimal, |o| o.generator_storage.clone()));
        out.insert("generator_curtailed_series_kw".into(), nested(model, optimal, |o| vec![0.0; o.generator_load.len()]));
        out.insert("generator_to_load_series_kw".into(), nested(model, optimal, |o| o.generator_load.clone()));
        out.insert("generator_fuel_used_per_outage_gal".into(), Value::Array(fuel_per_outage));
    }
    if model.chp.is_some() {
        let size = if mg.members.chp { d.chp.as_ref().map_or(0.0, |c| c.size_kw) } else { 0.0 };
        out.insert("chp_microgrid_size_kw".into(), Value::from(round_to(size, 4)));
        out.insert("chp_microgrid_upgrade_cost".into(), Value::from(round_to(chp_upgrade, 2)));
        let to_storage = if model.storage.is_some() { nested(model, optimal, |o| o.chp_storage.clone()) } else { json!([]) };
        out.insert("chp_to_storage_series_kw".into(), to_storage);
        out.insert("chp_curtailed_series_kw".into(), nested(model, optimal, |o| vec![0.0; o.chp_load.len()]));
        out.insert("chp_to_load_series_kw".into(), nested(model, optimal, |o| o.chp_load.clone()));
        let fuel: Vec<Value> =
            mg.outages.iter().map(|starts| Value::Array(starts.iter().map(|o| Value::from(round_to(o.chp_fuel_kwh / KWH_PER_MMBTU, 4))).collect())).collect();
        out.insert("chp_fuel_used_per_outage_mmbtu".into(), Value::Array(fuel));
    }
    out.insert("critical_loads_per_outage_series_kw".into(), nested(model, optimal, |o| o.critical_load.clone()));
    Some(Value::Object(out))
}

/// The multiple-outage form's cost items of a solution.
pub(super) struct OutageItems {
    pub expected_outage_cost: f64,
    pub max_per_duration: Vec<f64>,
    pub upgrades: [f64; 4],
    pub expected_fuel_cost: f64,
}

pub(super) fn outage_costs(model: &Model, factors: &CostFactors, solution: &CaseSolution) -> OutageItems {
    let (Some(outages), Some(mg)) = (&model.outages, &solution.dispatch.microgrid) else {
        return OutageItems { expected_outage_cost: 0.0, max_per_duration: Vec::new(), upgrades: [0.0; 4], expected_fuel_cost: 0.0 };
    };
    let dt = model.step_hours();
    let lost_value = factors.pwf_e * model.resilience.value_of_lost_load_per_kwh;
    let fuel_price = model.generator.as_ref().map_or(0.0, |g| g.fuel_cost_per_gallon);
    let max_per_duration: Vec<f64> = mg
        .outages
        .iter()
        .map(|starts| starts.iter().map(|o| lost_value * dt * o.unserved.iter().sum::<f64>()).fold(0.0, f64::max))
        .collect();
    let chp_price = |start: usize| model.chp.as_ref().map_or(0.0, |c| c.burner.fuel_cost_per_kwh[start]);
    let max_fuel: Vec<f64> = mg
        .outages
        .iter()
        .map(|starts| {
            let generator = starts.iter().map(|o| fuel_price * o.fuel_gal).fold(0.0, f64::max);
            let chp = starts.iter().zip(&outages.starts).map(|(o, &start)| chp_price(start) * o.chp_fuel_kwh).fold(0.0, f64::max);
            generator + chp
        })
        .collect();
    let expected = |values: &[f64]| values.iter().zip(&outages.probabilities).map(|(v, p)| v * p).sum::<f64>();
    let upgrades = if solution.case.bau { [0.0; 4] } else { microgrid::upgrade_costs(model, factors, mg.members, &solution.dispatch) };
    OutageItems { expected_outage_cost: expected(&max_per_duration), max_per_duration, upgrades, expected_fuel_cost: expected(&max_fuel) }
}

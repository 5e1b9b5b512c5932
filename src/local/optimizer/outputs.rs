//! The results body in the live service's shape: the lifecycle-cost breakdown recomputed from
//! the returned sizes and dispatch (independently of the LP's coefficients), the `outputs`
//! sections with the service's names and `_bau` twins, and the `inputs` echo with the
//! defaults this optimizer filled.
//!
//! Only what this optimizer computes is reported: emissions, renewable fractions, payback,
//! IRR and cash-flow series are left out rather than made up (`Site` is present and empty).

use serde_json::{json, Map, Value};

use super::lp::{CostFactors, Dispatch, PvChoice};
use super::model::{FilledDefault, Model, Resampled};
use super::run::{CaseSolution, Optimized};

/// API version reported in every body.
pub const API_VERSION: u32 = 3;

/// Present-value cost items of one solution (all $; "year one" items undiscounted).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CostBreakdown {
    /// New PV capital after incentives, ITC and MACRS (Σ npc_k · kW_k).
    pub pv_capital: f64,
    /// Storage capital after incentives, including replacements and the cost constant.
    pub storage_capital: f64,
    /// Present value after tax of storage replacements (inside `storage_capital`).
    pub replacements_present_cost_after_tax: f64,
    pub om_before_tax: f64,
    pub om_after_tax: f64,
    pub pv_om_before_tax: f64,
    pub year_one_energy_cost: f64,
    pub year_one_demand_cost: f64,
    pub year_one_export_benefit: f64,
    /// Up-front cost before incentives of new PV and storage.
    pub initial_capital_costs: f64,
    /// pwf_e · (1 − τ_o) · (energy + demand − exports) of year one.
    pub lifecycle_elecbill_after_tax: f64,
    pub lcc: f64,
}

impl CostBreakdown {
    pub fn lifecycle_capital_costs(&self) -> f64 {
        self.pv_capital + self.storage_capital
    }
}

/// Recomputes every cost item from sizes and dispatch with the service's formulas.
pub fn cost_breakdown(model: &Model, factors: &CostFactors, solution: &CaseSolution) -> CostBreakdown {
    let d = &solution.dispatch;
    let dt = model.step_hours();
    let rates = &model.tariff;
    let steps = model.steps();
    let pv_total = pv_total_kw(model, solution);
    let pv_capital: f64 = d.pv_segment_kw.iter().zip(&factors.pv_segments).map(|(kw, s)| kw * s.net_present_cost_per_kw).sum();
    let pv_om_before_tax = model.pv.as_ref().map_or(0.0, |pv| factors.pwf_om * pv.om_cost_per_kw * pv_total);
    let built = solution.case.storage;
    let (storage_capital, replacements, storage_om, storage_initial) = match (&model.storage, &factors.storage) {
        (Some(s), Some(c)) if built => {
            let constant = if s.has_cost_constant() { 1.0 } else { 0.0 };
            let capital = c.net_present_cost_per_kw * d.storage_kw
                + c.net_present_cost_per_kwh * d.storage_kwh
                + constant * c.net_present_cost_constant;
            let replacements = c.replacement_present_cost_per_kw * d.storage_kw
                + c.replacement_present_cost_per_kwh * d.storage_kwh
                + constant * c.replacement_present_cost_constant;
            let initial =
                s.installed_cost_per_kw * d.storage_kw + s.installed_cost_per_kwh * d.storage_kwh + constant * s.installed_cost_constant;
            (capital, replacements, factors.pwf_om * s.om_cost_fraction_of_installed_cost * initial, initial)
        }
        _ => (0.0, 0.0, 0.0, 0.0),
    };
    let year_one_energy_cost: f64 = (0..steps).map(|t| dt * rates.energy_rate[t] * d.grid_purchase(t)).sum();
    let year_one_demand_cost: f64 = monthly_peaks(model, d).iter().zip(&rates.monthly_demand_rate).map(|(p, r)| p * r).sum();
    let year_one_export_benefit: f64 = (0..steps)
        .map(|t| dt * (rates.nem_rate(t) * d.pv_nem[t] + rates.wholesale_rate[t] * d.pv_whl[t] + rates.export_beyond_nem_rate[t] * d.pv_exc[t]))
        .sum();
    let om_before_tax = pv_om_before_tax + storage_om;
    let om_after_tax = om_before_tax * factors.owner_after_tax;
    let lifecycle_elecbill_after_tax = factors.utility_factor() * (year_one_energy_cost + year_one_demand_cost - year_one_export_benefit);
    let pv_initial = model.pv.as_ref().map_or(0.0, |pv| pv.installed_cost_per_kw * d.pv_new_kw);
    CostBreakdown {
        pv_capital,
        storage_capital,
        replacements_present_cost_after_tax: replacements,
        om_before_tax,
        om_after_tax,
        pv_om_before_tax,
        year_one_energy_cost,
        year_one_demand_cost,
        year_one_export_benefit,
        initial_capital_costs: pv_initial + storage_initial,
        lifecycle_elecbill_after_tax,
        lcc: pv_capital + storage_capital + om_after_tax + lifecycle_elecbill_after_tax,
    }
}

/// The largest grid purchase (kW) of each month.
pub fn monthly_peaks(model: &Model, d: &Dispatch) -> [f64; 12] {
    let mut peaks = [0.0f64; 12];
    for (t, &month) in model.tariff.month_of_step.iter().enumerate() {
        peaks[month as usize] = peaks[month as usize].max(d.grid_purchase(t));
    }
    peaks
}

/// PV capacity of a solution: existing plus new, or none when the case has no PV.
pub fn pv_total_kw(model: &Model, solution: &CaseSolution) -> f64 {
    match (&model.pv, solution.case.pv) {
        (Some(pv), PvChoice::Sized | PvChoice::ExistingOnly) => pv.existing_kw + solution.dispatch.pv_new_kw,
        _ => 0.0,
    }
}

/// Rounds to 6 decimals (series and sizes; enough for kW and kWh, keeps bodies small).
fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn series(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&v| Value::from(round6(v))).collect())
}

fn money(x: f64) -> Value {
    Value::from((x * 100.0).round() / 100.0)
}

/// The `outputs` object of an optimal run.
pub fn optimal_outputs(model: &Model, run: &Optimized) -> Value {
    let optimal = cost_breakdown(model, &run.factors, &run.optimal);
    let bau = run.bau.as_ref().map(|b| (b, cost_breakdown(model, &run.factors, b)));
    let mut outputs = Map::new();
    outputs.insert("Financial".into(), financial_outputs(&optimal, bau.as_ref().map(|(_, c)| c), &run.factors));
    outputs.insert("ElectricTariff".into(), tariff_outputs(&optimal, bau.as_ref().map(|(_, c)| c), &run.factors));
    outputs.insert("ElectricUtility".into(), utility_outputs(model, &run.optimal, bau.as_ref().map(|(s, _)| *s)));
    outputs.insert("ElectricLoad".into(), load_outputs(model));
    outputs.insert("Site".into(), json!({}));
    if let Some(pv) = &model.pv {
        outputs.insert("PV".into(), pv_outputs(model, pv.name.as_str(), run, bau.as_ref().map(|(s, _)| *s)));
    }
    if model.storage.is_some() {
        outputs.insert("ElectricStorage".into(), storage_outputs(model, &run.optimal));
    }
    Value::Object(outputs)
}

fn financial_outputs(optimal: &CostBreakdown, bau: Option<&CostBreakdown>, factors: &CostFactors) -> Value {
    let om_year_one = |c: &CostBreakdown| c.om_before_tax / factors.pwf_om;
    json!({
        "lcc": money(optimal.lcc),
        "lcc_bau": bau.map(|b| money(b.lcc)),
        "npv": bau.map(|b| money(b.lcc - optimal.lcc)),
        "lifecycle_capital_costs_plus_om_after_tax": money(optimal.lifecycle_capital_costs() + optimal.om_after_tax),
        "lifecycle_capital_costs": money(optimal.lifecycle_capital_costs()),
        "lifecycle_generation_tech_capital_costs": money(optimal.pv_capital),
        "lifecycle_storage_capital_costs": money(optimal.storage_capital),
        "initial_capital_costs": money(optimal.initial_capital_costs),
        "initial_capital_costs_after_incentives": money(optimal.lifecycle_capital_costs() - optimal.replacements_present_cost_after_tax),
        "replacements_present_cost_after_tax": money(optimal.replacements_present_cost_after_tax),
        "om_and_replacement_present_cost_after_tax": money(optimal.replacements_present_cost_after_tax + optimal.om_after_tax),
        "lifecycle_om_costs_before_tax": money(optimal.om_before_tax),
        "lifecycle_om_costs_after_tax": money(optimal.om_after_tax),
        "lifecycle_om_costs_before_tax_bau": bau.map(|b| money(b.om_before_tax)),
        "lifecycle_om_costs_after_tax_bau": bau.map(|b| money(b.om_after_tax)),
        "year_one_om_costs_before_tax": money(om_year_one(optimal)),
        "year_one_om_costs_after_tax": money(om_year_one(optimal) * factors.owner_after_tax),
        "year_one_om_costs_before_tax_bau": bau.map(|b| money(om_year_one(b))),
        "lifecycle_elecbill_after_tax": money(optimal.lifecycle_elecbill_after_tax),
        "lifecycle_production_incentive_after_tax": 0.0,
    })
}

fn tariff_outputs(optimal: &CostBreakdown, bau: Option<&CostBreakdown>, factors: &CostFactors) -> Value {
    let after_tax = |year_one: f64| money(year_one * factors.utility_factor());
    let mut out = Map::new();
    let mut put = |key: &str, optimal_value: Value, bau_value: Option<Value>| {
        out.insert(key.to_string(), optimal_value);
        out.insert(format!("{key}_bau"), bau_value.unwrap_or(Value::Null));
    };
    put("year_one_energy_cost_before_tax", money(optimal.year_one_energy_cost), bau.map(|b| money(b.year_one_energy_cost)));
    put("year_one_demand_cost_before_tax", money(optimal.year_one_demand_cost), bau.map(|b| money(b.year_one_demand_cost)));
    put("year_one_fixed_cost_before_tax", json!(0.0), bau.map(|_| json!(0.0)));
    put("year_one_min_charge_adder_before_tax", json!(0.0), bau.map(|_| json!(0.0)));
    put(
        "year_one_bill_before_tax",
        money(optimal.year_one_energy_cost + optimal.year_one_demand_cost),
        bau.map(|b| money(b.year_one_energy_cost + b.year_one_demand_cost)),
    );
    put("year_one_export_benefit_before_tax", money(optimal.year_one_export_benefit), bau.map(|b| money(b.year_one_export_benefit)));
    put("year_one_coincident_peak_cost_before_tax", json!(0.0), bau.map(|_| json!(0.0)));
    put("lifecycle_energy_cost_after_tax", after_tax(optimal.year_one_energy_cost), bau.map(|b| after_tax(b.year_one_energy_cost)));
    put("lifecycle_demand_cost_after_tax", after_tax(optimal.year_one_demand_cost), bau.map(|b| after_tax(b.year_one_demand_cost)));
    put("lifecycle_fixed_cost_after_tax", json!(0.0), bau.map(|_| json!(0.0)));
    put("lifecycle_min_charge_adder_after_tax", json!(0.0), bau.map(|_| json!(0.0)));
    put("lifecycle_export_benefit_after_tax", after_tax(optimal.year_one_export_benefit), bau.map(|b| after_tax(b.year_one_export_benefit)));
    put("lifecycle_coincident_peak_cost_after_tax", json!(0.0), bau.map(|_| json!(0.0)));
    Value::Object(out)
}

fn annual_kwh(model: &Model, values: impl Iterator<Item = f64>) -> f64 {
    values.sum::<f64>() * model.step_hours()
}

fn utility_outputs(model: &Model, optimal: &CaseSolution, bau: Option<&CaseSolution>) -> Value {
    let supplied = |s: &CaseSolution| annual_kwh(model, (0..model.steps()).map(|t| s.dispatch.grid_purchase(t)));
    json!({
        "electric_to_load_series_kw": series(&optimal.dispatch.grid_load),
        "electric_to_load_series_kw_bau": bau.map(|b| series(&b.dispatch.grid_load)),
        "electric_to_storage_series_kw": series(&optimal.dispatch.grid_storage),
        "annual_energy_supplied_kwh": round6(supplied(optimal)),
        "annual_energy_supplied_kwh_bau": bau.map(|b| round6(supplied(b))),
    })
}

fn load_outputs(model: &Model) -> Value {
    json!({
        "load_series_kw": series(&model.load_kw),
        "annual_calculated_kwh": round6(annual_kwh(model, model.load_kw.iter().copied())),
    })
}

fn pv_outputs(model: &Model, name: &str, run: &Optimized, bau: Option<&CaseSolution>) -> Value {
    let optimal = &run.optimal;
    let d = &optimal.dispatch;
    let lvl = run.factors.levelization;
    let production_factor = model.pv.as_ref().map_or(&[][..], |pv| pv.production_factor.as_slice());
    let year_one = |kw: f64| annual_kwh(model, production_factor.iter().map(|f| f * kw));
    let om_after_tax = |kw: f64| {
        model.pv.as_ref().map_or(0.0, |pv| run.factors.om_factor() * pv.om_cost_per_kw * kw)
    };
    let size = pv_total_kw(model, optimal);
    let bau_size = bau.map(|b| pv_total_kw(model, b)).filter(|kw| *kw > 0.0);
    let exports: Vec<f64> = (0..model.steps()).map(|t| d.pv_export(t)).collect();
    json!({
        "name": name,
        "size_kw": round6(size),
        "electric_to_storage_series_kw": series(&d.pv_storage),
        "electric_to_load_series_kw": series(&d.pv_load),
        "electric_to_grid_series_kw": series(&exports),
        "electric_curtailed_series_kw": series(&d.pv_curtail),
        "annual_energy_produced_kwh": round6(year_one(size) * lvl),
        "annual_energy_produced_kwh_bau": bau_size.map(|kw| round6(year_one(kw) * lvl)),
        "year_one_energy_produced_kwh": round6(year_one(size)),
        "year_one_energy_produced_kwh_bau": bau_size.map(|kw| round6(year_one(kw))),
        "annual_energy_exported_kwh": round6(annual_kwh(model, exports.iter().copied())),
        "lifecycle_om_cost_after_tax": money(om_after_tax(size)),
        "lifecycle_om_cost_after_tax_bau": bau_size.map(|kw| money(om_after_tax(kw))),
        "production_factor_series": production_factor,
    })
}

fn storage_outputs(model: &Model, optimal: &CaseSolution) -> Value {
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
    json!({
        "size_kw": round6(d.storage_kw),
        "size_kwh": round6(d.storage_kwh),
        "soc_series_fraction": series(&soc_fraction),
        "storage_to_load_series_kw": if d.storage_kwh > 0.0 { series(&d.discharge) } else { json!([]) },
        "initial_capital_cost": money(initial),
    })
}

/// The `inputs` echo: the resolved scenario with PV as one object and every default this
/// optimizer filled written into its section.
pub fn inputs_echo(resolved: &Value, filled: &[FilledDefault]) -> Value {
    let mut inputs = match resolved {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    if let Some(Value::Array(items)) = inputs.get("PV") {
        if let [single] = items.as_slice() {
            let single = single.clone();
            inputs.insert("PV".into(), single);
        }
    }
    for fill in filled {
        let section = inputs.entry(fill.section).or_insert_with(|| json!({}));
        if let Value::Object(map) = section {
            let slot = map.entry(fill.field).or_insert(Value::Null);
            if slot.is_null() || fill.field.starts_with("owner_") {
                *slot = fill.value.clone();
            }
        }
    }
    Value::Object(inputs)
}

/// The service's `messages["resampled inputs"]` entry, or None when nothing was resampled.
pub fn resampled_message(resampled: &[Resampled]) -> Option<Value> {
    if resampled.is_empty() {
        return None;
    }
    let mut by_section: Map<String, Value> = Map::new();
    for r in resampled {
        let section = by_section.entry(r.section).or_insert_with(|| json!({}));
        if let Value::Object(map) = section {
            map.insert(r.field.to_string(), Value::from(r.note));
        }
    }
    Some(Value::Object(by_section))
}

/// Identity and bookkeeping fields of a results body.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyMeta {
    pub run_uuid: String,
    pub user_uuid: String,
    pub webtool_uuid: String,
    pub job_type: String,
    pub created: String,
    pub reopt_version: String,
}

/// A complete results body: `run_uuid, api_version, user_uuid, webtool_uuid, job_type, status,
/// created, reopt_version, inputs, outputs, messages` in the service's order.
pub fn results_body(meta: &BodyMeta, status: &str, inputs: &Value, outputs: Value, messages: Value) -> Value {
    json!({
        "run_uuid": meta.run_uuid,
        "api_version": API_VERSION,
        "user_uuid": meta.user_uuid,
        "webtool_uuid": meta.webtool_uuid,
        "job_type": meta.job_type,
        "status": status,
        "created": meta.created,
        "reopt_version": meta.reopt_version,
        "inputs": inputs,
        "outputs": outputs,
        "messages": messages,
    })
}

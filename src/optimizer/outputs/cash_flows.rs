//! The pro forma outputs of a run (`Financial.simple_payback_years`, `internal_rate_of_return`,
//! the offtaker's free cash flows, …) and the technologies' `lcoe_per_kwh`: the inputs of
//! `optimizer::proforma` gathered from the model, the solutions and their cost breakdowns, in
//! the service's way (REopt.jl `src/results/proforma.jl` `proforma_results` and
//! `update_metrics`, `src/results/pv.jl` and `wind.jl` for the LCOE's energy).

use serde_json::{json, Map, Value};

use super::{heat_pumps, pv_array_kw, CostBreakdown};
use crate::optimizer::lp::Dispatch;
use crate::optimizer::model::absorption_chiller_inputs::KWH_THERMAL_PER_TONHOUR;
use crate::optimizer::model::electric_heater_inputs::HeatPumpKind;
use crate::optimizer::model::thermal_inputs::FuelBurner;
use crate::optimizer::model::{ArrayKind, Model};
use crate::optimizer::proforma::{
    developer_pro_forma, levelized_cost_of_energy, offtaker_pro_forma, production_incentive_series, CapitalItem, CashFlowInputs,
    EscalatingCost, LcoeInputs, OneTimeCost, ThirdParty, YearOneCosts,
};
use crate::optimizer::run::{CaseSolution, Optimized};

/// Year-one operating amounts of one case from its cost breakdown; O&M is the lifecycle O&M
/// before tax over its present-worth factor (PV and Wind on their whole size, storage on its
/// installed cost, also with degradation, the generator's fixed and variable O&M, the new boiler's,
/// the CHP's: the service's `om_series`); each boiler's and the CHP's fuel at its own escalation
/// rate (the service's `existing_boiler_`/`boiler_`/`chp_fuel_cost_escalation_rate_fraction`); the
/// CHP's standby charges with the bill, at the electricity rate.
///
/// The service's pro forma counts the CHP's O&M per hour on per kW over the fraction of the
/// year's steps it runs, not the hours (`update_metrics`): that term is replaced so. The electric
/// heating techs' O&M is replaced by `heat_pump_pro_forma_om`.
fn year_one_costs(model: &Model, costs: &CostBreakdown, solution: Option<&CaseSolution>, pwf_om: f64) -> YearOneCosts {
    let escalation = |burner: Option<&FuelBurner>| burner.map_or(0.0, |b| b.fuel_escalation);
    let heating = model.heating.as_ref();
    let existing = EscalatingCost {
        year_one: costs.heating.existing_fuel.year_one_before_tax,
        escalation: escalation(heating.map(|h| &h.existing_boiler.burner)),
    };
    let new = EscalatingCost {
        year_one: costs.heating.boiler_fuel.year_one_before_tax,
        escalation: escalation(heating.and_then(|h| h.boiler.as_ref()).map(|b| &b.burner)),
    };
    let chp = EscalatingCost { year_one: costs.chp.year_one_fuel_before_tax, escalation: escalation(model.chp.as_ref().map(|c| &c.burner)) };
    let hourly_om_shortfall = match (&model.chp, solution.and_then(|s| s.dispatch.chp.as_ref())) {
        (Some(c), Some(d)) => {
            let hours_on = model.step_hours() * d.on.iter().sum::<f64>();
            let fraction_running = d.rated_kw.iter().filter(|&&p| p > 0.0).count() as f64 / model.steps() as f64;
            c.om_cost_per_hr_per_kw_rated * d.size_kw * (fraction_running - hours_on)
        }
        _ => 0.0,
    };
    let heat_pump_om_shortfall = solution.map_or(0.0, |s| heat_pump_pro_forma_om(model, &s.dispatch) - heat_pump_lifecycle_om(model, &s.dispatch));
    YearOneCosts {
        bill: costs.year_one_bill() + costs.chp.year_one_standby_before_tax,
        export_benefit: costs.year_one_export_benefit,
        om: if pwf_om > 0.0 {
            (costs.om_before_tax + costs.degraded_storage_om_before_tax) / pwf_om + hourly_om_shortfall + heat_pump_om_shortfall
        } else {
            0.0
        },
        fuel: costs.year_one_fuel_cost,
        onsite_fuel: [existing, new, chp],
    }
}

/// The electric heating techs' year-one O&M in the lifecycle cost ($/year before tax).
fn heat_pump_lifecycle_om(model: &Model, d: &Dispatch) -> f64 {
    model.heat_pumps.iter().zip(&d.heat_pumps).map(|(tech, dispatch)| tech.om_cost_per_kw * dispatch.size_kw).sum()
}

/// The reported `size_ton` of an ASHP (the size variable times the sizing factor, rounded as
/// written; the service's pro forma reads the results).
fn reported_size_ton(model: &Model, d: &Dispatch, kind: HeatPumpKind) -> f64 {
    let sized = model.heat_pumps.iter().zip(&d.heat_pumps).find(|(tech, _)| tech.kind == kind);
    sized.map_or(0.0, |(tech, dispatch)| heat_pumps::size_ton(tech, dispatch))
}

/// The electric heating techs' year-one O&M in the service's pro forma ($/year before tax;
/// `proforma_results`): the electric heater and CST have none there; each ASHP's is the space heater's
/// O&M per kW (sizing factor included) × kWh per ton-hour × its reported tons, the water
/// heater's too (the service reads `p.s.ashp`, the space heater, for both).
fn heat_pump_pro_forma_om(model: &Model, d: &Dispatch) -> f64 {
    let Some(space_heater) = model.heat_pumps.iter().find(|t| t.kind == HeatPumpKind::AshpSpaceHeater) else {
        return 0.0;
    };
    let tons = reported_size_ton(model, d, HeatPumpKind::AshpSpaceHeater) + reported_size_ton(model, d, HeatPumpKind::AshpWaterHeater);
    space_heater.om_cost_per_kw * KWH_THERMAL_PER_TONHOUR * tons
}

/// The service's pro forma fails (`p.s.ashp` is nothing) when a water heater is built without a
/// space heater in the scenario.
fn pro_forma_fails_for_heat_pumps(model: &Model, d: &Dispatch) -> bool {
    let has_space_heater = model.heat_pumps.iter().any(|t| t.kind == HeatPumpKind::AshpSpaceHeater);
    !has_space_heater && reported_size_ton(model, d, HeatPumpKind::AshpWaterHeater) > 0.0
}

/// The capital items of the optimal case: every PV array and Wind with new capacity, storage
/// when built, the CHP when built (its initial capital, firing included, less its state and
/// utility IBIs and rebates is the basis of its ITC and MACRS, as PV's), the chosen GHP option (its heat pump tons times
/// the cost curve's slope, its incentives as PV's: `update_ghp_metrics`), and the storage replacement (kW, kWh and
/// constant together, in the battery's replacement year). The generator, the new boiler, the
/// absorption chiller, the steam turbine and the hot and cold tanks have no item: their cost is in
/// year 0's initial capital only, and the service's pro forma depreciates the boiler, the
/// absorption chiller and the steam turbine on a basis of 0 (`get_depreciation_schedule` called
/// without `federal_itc_basis`), so even with MACRS they get none, while the lifecycle cost takes
/// their MACRS.
fn capital_items(model: &Model, optimal: &CaseSolution, chp_initial_capital: f64) -> (Vec<CapitalItem>, OneTimeCost) {
    let mut items: Vec<CapitalItem> = (0..model.pvs.len())
        .filter_map(|i| {
            let pv = &model.pvs[i];
            let new_kw = pv_array_kw(model, optimal, i) - pv.existing_kw;
            (new_kw > 0.0).then(|| CapitalItem::generation(pv.installed_cost_per_kw * new_kw, new_kw, &pv.incentives))
        })
        .collect();
    let d = &optimal.dispatch;
    if let (Some(chp), true) = (&model.chp, d.chp.as_ref().is_some_and(|c| c.size_kw > 0.0)) {
        let size_kw = d.chp.as_ref().map_or(0.0, |c| c.size_kw);
        items.push(CapitalItem::generation(chp_initial_capital, size_kw, &chp.incentives));
    }
    if let (Some(ghp), Some(g)) = (&model.ghp, d.ghp.as_ref().and_then(|chosen| chosen.chosen)) {
        let option = &ghp.options[g];
        items.push(CapitalItem::generation(option.initial_capital_cost, option.pro_forma_size(), &ghp.incentives));
    }
    let replacement = match &model.storage {
        Some(s) if optimal.case.storage && d.storage_kw > 0.0 => {
            items.push(CapitalItem::storage(s, d.storage_kw, d.storage_kwh));
            OneTimeCost {
                cost: d.storage_kw * s.replace_cost_per_kw + d.storage_kwh * s.replace_cost_per_kwh + s.replace_cost_constant,
                year: s.battery_replacement_year,
            }
        }
        _ => OneTimeCost::default(),
    };
    (items, replacement)
}

/// The energy a production-based incentive is paid on (the results field the service's
/// `update_metrics` reads, rounded to kWh as written): PV's year-one production, Wind's
/// levelized annual production.
fn incentive_kwh(model: &Model, run: &Optimized, solution: &CaseSolution, array: usize) -> f64 {
    let pv = &model.pvs[array];
    let year_one = pv.production_factor.iter().sum::<f64>() * pv_array_kw(model, solution, array) * model.step_hours();
    match pv.kind {
        ArrayKind::Pv => year_one.round(),
        ArrayKind::Wind => (year_one * run.factors.levelization[array]).round(),
    }
}

/// Production-based incentives before tax in years 1..=analysis_years of the optimal and the
/// BAU case, summed over the arrays (every PV array, Wind when built; Wind has no BAU energy)
/// and CHP when built (on its annual electric production, no degradation; no BAU CHP).
/// Under third-party ownership the developer is paid on the new capacity's energy only: the
/// optimal case's energy less the BAU's.
fn production_incentives(model: &Model, run: &Optimized) -> (Vec<f64>, Vec<f64>) {
    let years = model.financial.analysis_years as usize;
    let mut optimal = vec![0.0; years];
    let mut bau = vec![0.0; years];
    let add = |total: &mut [f64], series: Vec<f64>| total.iter_mut().zip(series).for_each(|(sum, v)| *sum += v);
    if let (Some(chp), Some(d)) = (&model.chp, run.optimal.dispatch.chp.as_ref().filter(|c| c.size_kw > 0.0)) {
        if chp.production_incentive.applies() {
            let kwh = model.step_hours() * d.rated_kw.iter().sum::<f64>();
            add(&mut optimal, production_incentive_series(&chp.production_incentive, kwh, 0.0, years));
        }
    }
    for (i, pv) in model.pvs.iter().enumerate() {
        let incentive = &pv.production_incentive;
        if !incentive.applies() {
            continue;
        }
        let existing_kwh = match &run.bau {
            Some(bau) if model.financial.third_party_ownership && pv.kind == ArrayKind::Pv => incentive_kwh(model, run, bau, i),
            _ => 0.0,
        };
        let kwh = incentive_kwh(model, run, &run.optimal, i) - existing_kwh;
        let degradation = if pv.kind == ArrayKind::Pv { pv.degradation_fraction } else { 0.0 };
        if pv.kind == ArrayKind::Wind && kwh <= 0.0 {
            continue;
        }
        add(&mut optimal, production_incentive_series(incentive, kwh, degradation, years));
        if let Some(bau_solution) = run.bau.as_ref().filter(|_| pv.kind == ArrayKind::Pv) {
            add(&mut bau, production_incentive_series(incentive, incentive_kwh(model, run, bau_solution, i), degradation, years));
        }
    }
    (optimal, bau)
}

/// The pro forma fields of `Financial`, or nothing without a business-as-usual case (the
/// service computes its pro forma only beside one) or with an ASHP water heater built without a space heater in the scenario (the service's pro forma
/// fails there). The electric heating techs have no capital item: the service depreciates them on
/// a basis of 0, as the boiler.
pub fn pro_forma_outputs(model: &Model, run: &Optimized, optimal: &CostBreakdown, bau: Option<&CostBreakdown>) -> Map<String, Value> {
    let Some(bau) = bau.filter(|_| !pro_forma_fails_for_heat_pumps(model, &run.optimal.dispatch)) else {
        return Map::new();
    };
    let financial = &model.financial;
    let (capital_items, storage_replacement) = capital_items(model, &run.optimal, optimal.chp.initial);
    let (production_incentives, production_incentives_bau) = production_incentives(model, run);
    let inputs = CashFlowInputs {
        analysis_years: financial.analysis_years,
        elec_cost_escalation_rate_fraction: financial.elec_cost_escalation_rate_fraction,
        om_cost_escalation_rate_fraction: financial.om_cost_escalation_rate_fraction,
        generator_fuel_cost_escalation_rate_fraction: financial.generator_fuel_cost_escalation_rate_fraction,
        offtaker_discount_rate_fraction: financial.offtaker_discount_rate_fraction,
        offtaker_tax_rate_fraction: financial.offtaker_tax_rate_fraction,
        initial_capital_costs: optimal.initial_capital_costs,
        lifecycle_capital_costs_bau: bau.lifecycle_capital_costs(),
        capital_items,
        storage_replacement,
        optimal: year_one_costs(model, optimal, Some(&run.optimal), run.factors.pwf_om),
        bau: year_one_costs(model, bau, run.bau.as_ref(), run.factors.pwf_om),
        production_incentives,
        production_incentives_bau,
    };
    let (result, developer) = if financial.third_party_ownership {
        let third_party = ThirdParty {
            owner_discount_rate_fraction: financial.owner_discount_rate_fraction,
            owner_tax_rate_fraction: financial.owner_tax_rate_fraction,
            developer_om: inputs.optimal.om - inputs.bau.om,
        };
        let developer = developer_pro_forma(&inputs, &third_party);
        (developer.pro_forma.clone(), Some(developer))
    } else {
        (offtaker_pro_forma(&inputs), None)
    };
    let fields = json!({
        "simple_payback_years": result.simple_payback_years,
        "internal_rate_of_return": result.internal_rate_of_return,
        "net_present_cost": developer.as_ref().map_or(0.0, |d| d.net_present_cost),
        "annualized_payment_to_third_party": developer.as_ref().map_or(0.0, |d| d.annualized_payment_to_third_party),
        "offtaker_annual_free_cashflows": result.offtaker_annual_free_cashflows,
        "offtaker_annual_free_cashflows_bau": result.offtaker_annual_free_cashflows_bau,
        "offtaker_discounted_annual_free_cashflows": result.offtaker_discounted_annual_free_cashflows,
        "offtaker_discounted_annual_free_cashflows_bau": result.offtaker_discounted_annual_free_cashflows_bau,
        "developer_annual_free_cashflows": developer.map_or(Vec::new(), |d| d.developer_annual_free_cashflows),
        "capital_costs_after_non_discounted_incentives_without_macrs": result.capital_costs_after_non_discounted_incentives_without_macrs,
        "capital_costs_after_non_discounted_incentives": result.capital_costs_after_non_discounted_incentives,
    });
    match fields {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// `lcoe_per_kwh` of one PV array or Wind of the optimal case ($/kWh). The energy is PV's
/// year-one production rounded to whole kWh, Wind's levelized annual production rounded the
/// same way (the fields the service's `calculate_lcoe` reads); discounting and tax are the
/// owner's (the offtaker's without third-party ownership).
pub fn lcoe_per_kwh(model: &Model, run: &Optimized, array: usize) -> f64 {
    let pv = &model.pvs[array];
    let size = pv_array_kw(model, &run.optimal, array);
    let new_kw = size - pv.existing_kw;
    let year_one_kwh = pv.production_factor.iter().sum::<f64>() * size * model.step_hours();
    let annual_kwh = match pv.kind {
        ArrayKind::Pv => year_one_kwh.round(),
        ArrayKind::Wind => (year_one_kwh * run.factors.levelization[array]).round(),
    };
    let financial = &model.financial;
    levelized_cost_of_energy(&LcoeInputs {
        new_kw,
        capital_cost: pv.installed_cost_per_kw * new_kw,
        om_cost_per_kw: pv.om_cost_per_kw,
        incentives: &pv.incentives,
        production_incentive: &pv.production_incentive,
        annual_kwh,
        degradation_fraction: pv.degradation_fraction,
        analysis_years: financial.analysis_years,
        discount_rate_fraction: financial.owner_discount_rate_fraction,
        tax_rate_fraction: financial.owner_tax_rate_fraction,
        om_cost_escalation_rate_fraction: financial.om_cost_escalation_rate_fraction,
    })
}

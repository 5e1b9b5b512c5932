//! The heating results: the boilers' cost items of a solution (`HeatingCosts`, part of the
//! lifecycle cost) and the `ExistingBoiler`, `Boiler` and `HeatingLoad` output sections (the hot
//! storages' are `hot_storages`', inserted after these) with
//! the service's names (REopt.jl `src/results/existing_boiler.jl`, `boiler.jl`,
//! `thermal_storage.jl`, `heating_cooling_load.jl`). Thermal series are MMBtu/h per step; the fuel series, as the
//! service writes it, MMBtu per step.
//!
//! `thermal_to_steamturbine` is each boiler's steam to the steam turbine. The split of heat
//! among the heating loads (`thermal_to_dhw_load`, `storage_to_space_heating_load` etc.) is the
//! service's split only up to the degenerate choices of its program: when every producer serves
//! every load, each storage's discharge goes to the loads it serves by their shares of the step,
//! and each boiler's (and CHP's and the steam turbine's) heat to load covers the rest of every load by its share of the
//! producers' heat to load; when some producer serves only part of the loads, the producers' and
//! the storages' heat is split by augmenting paths (`split_among_loads`), each to the loads it
//! serves, which meets every load the program's rows per set of loads (`lp::heating`) allow.

use std::borrow::Borrow;

use serde_json::{Map, Value};

use super::{money, round6, series};
use crate::optimizer::lp::fuel_present_worth;
use crate::optimizer::lp::heating::{year_one_fuel_cost_per_kw, HeatingDispatch};
use crate::optimizer::lp::CostFactors;
use crate::optimizer::model::thermal_inputs::{FuelBurner, HeatProducer, Heating, HeatingLoadKind};
use crate::optimizer::emissions::TONNE_PER_LB;
use crate::optimizer::model::{HotStorage, Model, Pollutant, KWH_PER_MMBTU};
use crate::optimizer::run::CaseSolution;

/// Fuel items of one boiler in a solution.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FuelItems {
    /// Year-one fuel cost before tax ($).
    pub year_one_before_tax: f64,
    /// pwf_fuel · year one · (1 − τ_o) ($ present value).
    pub lifecycle_after_tax: f64,
}

/// The heating cost items of a solution ($; lifecycle items present value).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HeatingCosts {
    /// Hot storage kWh · net present $/kWh, and before incentives.
    pub storage_capital: f64,
    pub storage_initial: f64,
    pub existing_fuel: FuelItems,
    pub boiler_fuel: FuelItems,
    /// New boiler kW · net present $/kW (after MACRS, its only incentive), and before it.
    pub boiler_capital: f64,
    pub boiler_initial: f64,
    /// pwf_om · (om $/kW · kW + om $/kWh · kWh a year), before tax.
    pub boiler_om_before_tax: f64,
}

impl HeatingCosts {
    pub fn lifecycle_fuel_after_tax(&self) -> f64 {
        self.existing_fuel.lifecycle_after_tax + self.boiler_fuel.lifecycle_after_tax
    }
}

fn fuel_items(model: &Model, factors: &CostFactors, burner: &FuelBurner, produced_kw: &[f64]) -> FuelItems {
    let year_one: f64 = produced_kw.iter().enumerate().map(|(t, kw)| kw * year_one_fuel_cost_per_kw(model, burner, t)).sum();
    FuelItems { year_one_before_tax: year_one, lifecycle_after_tax: fuel_present_worth(model, burner) * year_one * factors.offtaker_after_tax }
}

/// The heating cost items of a solution (zero without heating).
pub fn heating_costs(model: &Model, factors: &CostFactors, solution: &CaseSolution) -> HeatingCosts {
    let (Some(heating), Some(d)) = (&model.heating, &solution.dispatch.heating) else { return HeatingCosts::default() };
    let stored = || heating.hot_storages.iter().zip(&d.storages);
    let storage_capital = stored().map(|(s, sd)| s.tank.net_present_cost_per_kwh * sd.kwh).sum();
    let storage_initial = stored().map(|(s, sd)| s.tank.installed_cost_per_kwh * sd.kwh).sum();
    let existing_fuel = fuel_items(model, factors, &heating.existing_boiler.burner, &d.existing_production());
    let base = HeatingCosts { storage_capital, storage_initial, existing_fuel, ..HeatingCosts::default() };
    let Some(boiler) = &heating.boiler else { return base };
    let produced = d.new_production();
    let annual_kwh: f64 = produced.iter().sum::<f64>() * model.step_hours();
    HeatingCosts {
        boiler_fuel: fuel_items(model, factors, &boiler.burner, &produced),
        boiler_capital: boiler.net_present_cost_per_kw * d.new_size_kw,
        boiler_initial: boiler.installed_cost_per_kw * d.new_size_kw,
        boiler_om_before_tax: factors.pwf_om * (boiler.om_cost_per_kw * d.new_size_kw + boiler.om_cost_per_kwh * annual_kwh),
        ..base
    }
}

/// Thermal kW per step as the results write heat: MMBtu/h.
pub(super) fn mmbtu_per_hour<T: Borrow<f64>>(kw: impl IntoIterator<Item = T>) -> Vec<f64> {
    kw.into_iter().map(|v| *v.borrow() / KWH_PER_MMBTU).collect()
}

/// A flow out of one storage to one load kind in step t (kW): its share of the loads the storage
/// serves (the service's choice among them is degenerate).
pub(super) fn flow_to_kind(heating: &Heating, storage: &HotStorage, flow_kw: f64, kind: HeatingLoadKind, t: usize, load_kw: f64) -> f64 {
    let servable = heating.servable_kw(storage, t);
    if storage.serves(kind) && servable > 0.0 { flow_kw * load_kw / servable } else { 0.0 }
}

/// Hot storage b's discharge to load to one load kind in step t (kW): its share of the loads it
/// serves, or with producers serving part of the loads its part of `part_served_split`.
pub(super) fn storage_to_kind(model: &Model, heating: &Heating, d: &HeatingDispatch, b: usize, kind: HeatingLoadKind, t: usize, load_kw: f64) -> f64 {
    if model.some_producer_serves_part() {
        return part_served_split(model, heating, d, t)[HeatProducer::ALL.len() + b][kind_index(kind)];
    }
    flow_to_kind(heating, &heating.hot_storages[b], d.storages[b].discharge_kw[t], kind, t, load_kw)
}

/// The storages' discharge to load to one load kind in step t (kW).
fn storages_to_kind(model: &Model, heating: &Heating, d: &HeatingDispatch, kind: HeatingLoadKind, t: usize, load_kw: f64) -> f64 {
    (0..d.storages.len()).map(|b| storage_to_kind(model, heating, d, b, kind, t, load_kw)).sum()
}

/// The GHP's heat to one load kind (kW per step; it serves the space heating and, when allowed,
/// the hot water).
fn ghp_to_kind(d: &HeatingDispatch, kind: HeatingLoadKind, t: usize) -> f64 {
    match kind {
        HeatingLoadKind::SpaceHeating => d.ghp_to_space_kw[t],
        HeatingLoadKind::DomesticHotWater => d.ghp_to_dhw_kw[t],
        HeatingLoadKind::ProcessHeat => 0.0,
    }
}

/// A producer's heat to load per step (kW).
fn producer_to_load(d: &HeatingDispatch, producer: HeatProducer) -> &[f64] {
    match producer {
        HeatProducer::ExistingBoiler => &d.existing_kw,
        HeatProducer::Boiler => &d.new_kw,
        HeatProducer::Chp => &d.chp_to_load_kw,
        HeatProducer::SteamTurbine => &d.turbine_to_load_kw,
    }
}

/// What the electric heating techs send to one load kind in step t (kW).
fn electric_to_kind(d: &HeatingDispatch, kind: HeatingLoadKind, t: usize) -> f64 {
    d.heat_pumps_to_load_kw.iter().filter(|(k, _)| *k == kind).map(|(_, s)| s[t]).sum()
}

fn kind_index(kind: HeatingLoadKind) -> usize {
    HeatingLoadKind::ALL.iter().position(|&k| k == kind).unwrap_or(0)
}

/// One producer's heat to one load kind (MMBtu/h per step): its share of the producers' (boilers'
/// and CHP's) heat to load times what the storage, the GHP and the electric heating techs leave of
/// that load, or its part of the split when some producer serves part of the loads.
pub fn to_load_kind(model: &Model, d: &HeatingDispatch, kind: HeatingLoadKind, producer: HeatProducer) -> Vec<f64> {
    let to_load_kw = producer_to_load(d, producer);
    let Some(heating) = &model.heating else { return vec![0.0; to_load_kw.len()] };
    if model.some_producer_serves_part() {
        let p = HeatProducer::ALL.iter().position(|&x| x == producer).unwrap_or(0);
        return (0..to_load_kw.len()).map(|t| part_served_split(model, heating, d, t)[p][kind_index(kind)] / KWH_PER_MMBTU).collect();
    }
    let load = heating.load_kw(kind, to_load_kw.len());
    (0..to_load_kw.len())
        .map(|t| {
            let producers = d.existing_kw[t] + d.new_kw[t] + d.chp_to_load_kw[t] + d.turbine_to_load_kw[t];
            let left = (load[t] - storages_to_kind(model, heating, d, kind, t, load[t]) - ghp_to_kind(d, kind, t) - electric_to_kind(d, kind, t)).max(0.0);
            if producers > 0.0 { to_load_kw[t] * left / producers / KWH_PER_MMBTU } else { 0.0 }
        })
        .collect()
}

/// Step t's heat from each producer (`HeatProducer::ALL` order, then each hot storage) to each load
/// kind (`HeatingLoadKind::ALL` order; kW): each source to the loads it serves, the loads being
/// what the GHP and the electric heating techs leave of them.
fn part_served_split(model: &Model, heating: &Heating, d: &HeatingDispatch, t: usize) -> Vec<[f64; 3]> {
    let served = |kinds: &[HeatingLoadKind]| HeatingLoadKind::ALL.map(|k| kinds.contains(&k));
    let mut amounts: Vec<f64> = HeatProducer::ALL.iter().map(|&p| producer_to_load(d, p)[t]).collect();
    let mut serves: Vec<[bool; 3]> = HeatProducer::ALL.iter().map(|&p| served(model.producer_serves(p))).collect();
    for (storage, sd) in heating.hot_storages.iter().zip(&d.storages) {
        amounts.push(sd.discharge_kw[t]);
        serves.push(HeatingLoadKind::ALL.map(|k| storage.serves(k)));
    }
    let load = |k: HeatingLoadKind| heating.loads.iter().filter(|l| l.kind == k).map(|l| l.thermal_kw[t]).sum::<f64>();
    let demand = HeatingLoadKind::ALL.map(|k| (load(k) - ghp_to_kind(d, k, t) - electric_to_kind(d, k, t)).max(0.0));
    split_among_loads(&amounts, &serves, demand)
}

/// A split of each source's amount among the loads it serves that meets as much of every demand
/// as the sources can: augmenting paths on the graph of sources and loads (a source sends to any
/// load it serves; a load hands back what a source sent it so that source may send it elsewhere).
/// What no load can take is left out (the absorption chiller's draw).
fn split_among_loads(amounts: &[f64], serves: &[[bool; 3]], demand: [f64; 3]) -> Vec<[f64; 3]> {
    const TINY: f64 = 1e-9;
    let n = amounts.len();
    let mut flow = vec![[0.0; 3]; n];
    let left = |flow: &[[f64; 3]], s: usize| amounts[s] - flow[s].iter().sum::<f64>();
    let unmet = |flow: &[[f64; 3]], q: usize| demand[q] - flow.iter().map(|f| f[q]).sum::<f64>();
    loop {
        // Breadth-first from every source with heat left: a load's parent is the source that
        // reaches it, a source's parent the load that hands back to it.
        let mut load_parent: [Option<usize>; 3] = [None; 3];
        let mut source_parent: Vec<Option<usize>> = vec![None; n];
        let mut queue: Vec<usize> = (0..n).filter(|&s| left(&flow, s) > TINY).collect();
        let mut seen: Vec<bool> = (0..n).map(|s| queue.contains(&s)).collect();
        let mut end = None;
        while let Some(s) = (!queue.is_empty()).then(|| queue.remove(0)) {
            for q in 0..3 {
                if !serves[s][q] || load_parent[q].is_some() {
                    continue;
                }
                load_parent[q] = Some(s);
                if unmet(&flow, q) > TINY {
                    end = Some(q);
                    break;
                }
                for back in 0..n {
                    if seen[back] || flow[back][q] <= TINY {
                        continue;
                    }
                    seen[back] = true;
                    source_parent[back] = Some(q);
                    queue.push(back);
                }
            }
            if end.is_some() {
                break;
            }
        }
        let Some(mut q) = end else { return flow };
        // The path back from the unmet load to a source with heat left, and its bottleneck.
        let mut path = Vec::new();
        let mut amount = unmet(&flow, q);
        loop {
            let s = load_parent[q].unwrap_or(0);
            path.push((s, q));
            match source_parent[s] {
                Some(previous) => {
                    amount = amount.min(flow[s][previous]);
                    q = previous;
                }
                None => {
                    amount = amount.min(left(&flow, s));
                    break;
                }
            }
        }
        for &(s, q) in &path {
            flow[s][q] += amount;
            if let Some(previous) = source_parent[s] {
                flow[s][previous] -= amount;
            }
        }
    }
}

/// What a boiler did: its heat to load, to storage and to the steam turbine (kW per step).
struct BoilerFlows<'a> {
    producer: HeatProducer,
    burner: &'a FuelBurner,
    to_load_kw: &'a [f64],
    to_storage_kw: &'a [f64],
    to_turbine_kw: &'a [f64],
    fuel: &'a FuelItems,
}

pub const LOAD_KEYS: [(&str, HeatingLoadKind); 3] = [
    ("dhw_load", HeatingLoadKind::DomesticHotWater),
    ("space_heating_load", HeatingLoadKind::SpaceHeating),
    ("process_heat_load", HeatingLoadKind::ProcessHeat),
];

/// The fields every boiler reports: fuel, production and where it went.
fn boiler_section(model: &Model, d: &HeatingDispatch, flows: BoilerFlows, factors: &CostFactors) -> Map<String, Value> {
    let dt = model.step_hours();
    let produced: Vec<f64> = (0..flows.to_load_kw.len()).map(|t| flows.to_load_kw[t] + flows.to_storage_kw[t] + flows.to_turbine_kw[t]).collect();
    let production = mmbtu_per_hour(&produced);
    // As the service: the fuel series is MMBtu burned in each step, and both annual values are
    // plain sums of their series (the same as energy at one step per hour).
    let fuel_series: Vec<f64> = production.iter().map(|p| dt * p / flows.burner.efficiency).collect();
    let mut out = Map::new();
    out.insert("fuel_consumption_series_mmbtu_per_hour".into(), series(&fuel_series));
    out.insert("annual_fuel_consumption_mmbtu".into(), Value::from(round6(fuel_series.iter().sum::<f64>())));
    out.insert("thermal_production_series_mmbtu_per_hour".into(), series(&production));
    out.insert("annual_thermal_production_mmbtu".into(), Value::from(round6(production.iter().sum::<f64>())));
    out.insert("thermal_to_storage_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(flows.to_storage_kw)));
    out.insert("thermal_to_steamturbine_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(flows.to_turbine_kw)));
    out.insert("thermal_to_load_series_mmbtu_per_hour".into(), series(&mmbtu_per_hour(flows.to_load_kw)));
    for (name, kind) in LOAD_KEYS {
        out.insert(format!("thermal_to_{name}_series_mmbtu_per_hour"), series(&to_load_kind(model, d, kind, flows.producer)));
    }
    out.insert("lifecycle_fuel_cost_after_tax".into(), money(flows.fuel.lifecycle_after_tax));
    out.insert("year_one_fuel_cost_before_tax".into(), money(flows.fuel.year_one_before_tax));
    out.insert("year_one_fuel_cost_after_tax".into(), money(flows.fuel.year_one_before_tax * factors.offtaker_after_tax));
    out
}

/// The `ExistingBoiler` section (with `_bau` twins when the business-as-usual case ran).
pub fn existing_boiler_outputs(
    model: &Model,
    heating: &Heating,
    factors: &CostFactors,
    optimal: (&HeatingDispatch, &HeatingCosts),
    bau: Option<(&HeatingDispatch, &HeatingCosts)>,
) -> Value {
    let existing = &heating.existing_boiler;
    let section = |(d, costs): (&HeatingDispatch, &HeatingCosts)| {
        let flows = BoilerFlows { producer: HeatProducer::ExistingBoiler, burner: &existing.burner, to_load_kw: &d.existing_kw, to_storage_kw: &d.existing_to_storage_kw, to_turbine_kw: &d.existing_to_turbine_kw, fuel: &costs.existing_fuel };
        let mut out = boiler_section(model, d, flows, factors);
        let peak = d.existing_production().into_iter().fold(0.0, f64::max);
        out.insert("size_mmbtu_per_hour".into(), Value::from((peak / KWH_PER_MMBTU * existing.max_thermal_factor_on_peak_load * 1000.0).round() / 1000.0));
        out
    };
    let mut out = section(optimal);
    if let Some(bau) = bau {
        for (key, value) in section(bau) {
            out.insert(format!("{key}_bau"), value);
        }
    }
    Value::Object(out)
}

/// The `Boiler` section (the new boiler; the optimal case only).
pub fn boiler_outputs(model: &Model, heating: &Heating, factors: &CostFactors, d: &HeatingDispatch, costs: &HeatingCosts) -> Option<Value> {
    let boiler = heating.boiler.as_ref()?;
    let flows = BoilerFlows { producer: HeatProducer::Boiler, burner: &boiler.burner, to_load_kw: &d.new_kw, to_storage_kw: &d.new_to_storage_kw, to_turbine_kw: &d.new_to_turbine_kw, fuel: &costs.boiler_fuel };
    let mut out = boiler_section(model, d, flows, factors);
    out.insert("size_mmbtu_per_hour".into(), Value::from((d.new_size_kw / KWH_PER_MMBTU * 1000.0).round() / 1000.0));
    let annual_kwh = d.new_production().iter().sum::<f64>() * model.step_hours();
    out.insert("lifecycle_per_unit_prod_om_costs".into(), money(factors.pwf_om * boiler.om_cost_per_kwh * annual_kwh));
    Some(Value::Object(out))
}

/// The `HeatingLoad` section: each load's thermal and boiler-fuel series and annual totals.
pub fn heating_load_outputs(model: &Model, heating: &Heating) -> Value {
    let steps = model.steps();
    let dt = model.step_hours();
    let efficiency = heating.existing_boiler.burner.efficiency;
    let mut out = Map::new();
    let mut total_thermal = vec![0.0; steps];
    let mut annual_thermal_total = 0.0;
    for (name, kind) in [
        ("dhw", HeatingLoadKind::DomesticHotWater),
        ("space_heating", HeatingLoadKind::SpaceHeating),
        ("process_heat", HeatingLoadKind::ProcessHeat),
    ] {
        let thermal = mmbtu_per_hour(heating.load_kw(kind, steps));
        let annual = (thermal.iter().sum::<f64>() * dt * 100.0).round() / 100.0;
        annual_thermal_total += annual;
        total_thermal.iter_mut().zip(&thermal).for_each(|(total, v)| *total += v);
        let fuel: Vec<f64> = thermal.iter().map(|v| v / efficiency).collect();
        out.insert(format!("{name}_thermal_load_series_mmbtu_per_hour"), series(&thermal));
        out.insert(format!("{name}_boiler_fuel_load_series_mmbtu_per_hour"), series(&fuel));
        out.insert(format!("annual_calculated_{name}_thermal_load_mmbtu"), Value::from(annual));
        out.insert(format!("annual_calculated_{name}_boiler_fuel_load_mmbtu"), Value::from(round6(annual / efficiency)));
    }
    let total_fuel: Vec<f64> = total_thermal.iter().map(|v| v / efficiency).collect();
    out.insert("total_heating_thermal_load_series_mmbtu_per_hour".into(), series(&total_thermal));
    out.insert("total_heating_boiler_fuel_load_series_mmbtu_per_hour".into(), series(&total_fuel));
    out.insert("annual_calculated_total_heating_thermal_load_mmbtu".into(), Value::from(round6(annual_thermal_total)));
    out.insert("annual_calculated_total_heating_boiler_fuel_load_mmbtu".into(), Value::from(round6(annual_thermal_total / efficiency)));
    let unaddressable: f64 = heating.loads.iter().map(|l| l.unaddressable_annual_fuel_mmbtu).sum();
    out.insert("annual_total_unaddressable_heating_load_mmbtu".into(), Value::from(round6(unaddressable)));
    let co2 = heating.existing_boiler.burner.emissions_lb_per_mmbtu[Pollutant::Co2.index()];
    out.insert("annual_emissions_from_unaddressable_heating_load_tonnes_CO2".into(), Value::from(round6(unaddressable * co2 * TONNE_PER_LB)));
    Value::Object(out)
}

/// Inserts the heating sections of a run into `outputs`.
pub fn insert_heating_outputs(
    outputs: &mut Map<String, Value>,
    model: &Model,
    factors: &CostFactors,
    optimal: (&CaseSolution, &HeatingCosts),
    bau: Option<(&CaseSolution, &HeatingCosts)>,
) {
    let (Some(heating), Some(d)) = (&model.heating, &optimal.0.dispatch.heating) else { return };
    let bau = bau.and_then(|(s, c)| s.dispatch.heating.as_ref().map(|d| (d, c)));
    outputs.insert("ExistingBoiler".into(), existing_boiler_outputs(model, heating, factors, (d, optimal.1), bau));
    if let Some(boiler) = boiler_outputs(model, heating, factors, d, optimal.1) {
        outputs.insert("Boiler".into(), boiler);
    }
    outputs.insert("HeatingLoad".into(), heating_load_outputs(model, heating));
}

#[cfg(test)]
mod tests {
    use super::split_among_loads;

    /// A source that serves two loads gives way to one that serves only one of them: the first
    /// greedy send (a to the space heating) is undone along an augmenting path.
    #[test]
    fn the_split_reroutes_around_a_source_serving_one_load() {
        let flow = split_among_loads(&[5.0, 3.0], &[[false, true, true], [false, true, false]], [0.0, 3.0, 5.0]);
        assert_eq!(flow, vec![[0.0, 0.0, 5.0], [0.0, 3.0, 0.0]]);
    }

    /// What no load can take is left with its source (the absorption chiller's draw).
    #[test]
    fn the_split_leaves_what_no_load_takes() {
        let flow = split_among_loads(&[4.0, 2.0], &[[true, true, true], [true, false, false]], [1.0, 2.0, 0.0]);
        let to_loads: Vec<f64> = (0..3).map(|q| flow.iter().map(|f| f[q]).sum()).collect();
        assert_eq!(to_loads, vec![1.0, 2.0, 0.0]);
        assert!(flow[1][1] == 0.0 && flow[1][2] == 0.0);
    }
}

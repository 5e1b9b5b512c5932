//! The results body in the live service's shape: the lifecycle-cost breakdown recomputed from
//! the returned sizes and dispatch (independently of the LP's coefficients), the `outputs`
//! sections with the service's names and `_bau` twins, and the `inputs` echo with the
//! defaults this optimizer filled.
//!
//! Only what this optimizer computes is reported: grid emissions and the grid's renewable share
//! without their given factor series are null rather than made up (`emissions`, `renewables`).
//! The pro forma (payback, IRR, cash flows) and the LCOE are in `cash_flows`.

use serde_json::{json, Map, Value};

use super::lp::{CostFactors, Dispatch, SizeChoice};
use super::tariff::{Lookback, TieredCharge};
use super::model::{ArrayKind, FilledDefault, Model, Resampled};
use super::model::resilience_inputs::Generator;
use super::run::{CaseSolution, Optimized};

pub mod cash_flows;
pub mod chp;
pub mod steam_turbine;
pub mod cooling;
pub mod emissions;
pub mod ghp;
pub mod heat_pumps;
pub mod hot_storages;
pub mod monthly_bills;
pub mod renewables;
pub mod resilience;
pub mod storage;
pub mod thermal;

/// API version reported in every body.
pub const API_VERSION: u32 = 3;

/// Present-value cost items of one solution (all $; "year one" items undiscounted).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CostBreakdown {
    /// New PV capital after incentives, ITC and MACRS (Σ npc_k · kW_k over arrays).
    pub pv_capital: f64,
    /// Storage capital after incentives, including replacements and the cost constant.
    pub storage_capital: f64,
    /// Present value after tax of storage and generator replacements (inside the capital).
    pub replacements_present_cost_after_tax: f64,
    /// The replacements' cost in their year (not discounted).
    pub replacements_future_cost: f64,
    pub om_before_tax: f64,
    pub om_after_tax: f64,
    /// With degradation, the storage O&M on its installed $/kWh (lifecycle, before tax): out of
    /// the objective and `om_before_tax`, still in the service's pro forma O&M.
    pub degraded_storage_om_before_tax: f64,
    pub pv_om_before_tax: f64,
    pub year_one_energy_cost: f64,
    pub year_one_demand_cost: f64,
    pub year_one_fixed_cost: f64,
    pub year_one_min_charge_adder: f64,
    pub year_one_coincident_peak_cost: f64,
    pub year_one_export_benefit: f64,
    /// Up-front cost before incentives of new PV, Wind, generator and storage (off grid: and
    /// the other capital costs).
    pub initial_capital_costs: f64,
    /// New generator capacity after MACRS, its replacement included.
    pub generator_capital: f64,
    pub generator_om_fixed_before_tax: f64,
    pub generator_om_variable_before_tax: f64,
    /// Gallons burned in the year's dispatch (the outages of the multiple-outage form apart).
    pub generator_fuel_gal: f64,
    pub year_one_fuel_cost: f64,
    pub lifecycle_fuel_cost_after_tax: f64,
    /// Multiple-outage form: Σ_s p_s · the costliest start's lost load ($, pwf_e · VOLL · kWh).
    pub expected_outage_cost: f64,
    /// The costliest start's lost-load cost of each duration scenario.
    pub max_outage_cost_per_outage_duration: Vec<f64>,
    /// Microgrid upgrade costs of the renewables, the generator, storage and CHP.
    pub microgrid_upgrade_costs: [f64; 4],
    /// Σ_s p_s · the costliest start's fuel cost, the generator's and CHP's each their own
    /// costliest ($, not discounted, as the service).
    pub expected_microgrid_fuel_cost: f64,
    pub offgrid_other_annual_costs_after_tax: f64,
    pub offgrid_other_capital_costs_after_depreciation: f64,
    /// The boilers' fuel, capital and O&M (zero without heating).
    pub heating: thermal::HeatingCosts,
    /// CHP's capital, fuel, O&M and standby (zero without CHP).
    pub chp: chp::ChpCosts,
    /// The steam turbine's capital and O&M (zero without one).
    pub steam_turbine: steam_turbine::SteamTurbineCosts,
    /// The absorption chiller's capital and O&M, the chilled-water tank's capital.
    pub cooling: cooling::CoolingCosts,
    /// The chosen GHP design's capital and O&M, its avoided capex and GHX residual value.
    pub ghp: ghp::GhpCosts,
    /// The electric heating techs' capital and O&M, the ASHPs' avoided capex.
    pub heat_pumps: heat_pumps::HeatPumpCosts,
    /// pwf_e · (1 − τ_o) · (energy + demand + fixed + coincident peak + minimum − exports).
    pub lifecycle_elecbill_after_tax: f64,
    /// Lifecycle CO2 cost and NOx, SO2, PM2.5 costs ($ present value; None without the factors
    /// or costs they need); in the lcc when the settings put them in the objective.
    pub lifecycle_emissions_cost_climate: Option<f64>,
    pub lifecycle_emissions_cost_health: Option<f64>,
    /// Production-based incentives of the arrays, present value after the owner's tax.
    pub production_incentive_after_tax: f64,
    pub lcc: f64,
}

impl CostBreakdown {
    /// Capital of every technology, the microgrid upgrades and the off-grid other capital.
    pub fn lifecycle_capital_costs(&self) -> f64 {
        self.pv_capital
            + self.generator_capital
            + self.heating.boiler_capital
            + self.heating.storage_capital
            + self.chp.capital
            + self.steam_turbine.capital
            + self.cooling.chiller_capital
            + self.cooling.storage_capital
            + self.heat_pumps.capital
            - self.heat_pumps.avoided_capex
            + self.storage_capital
            + self.ghp.capital
            - self.ghp.avoided_capex
            - self.ghp.ghx_residual_value
            + self.microgrid_upgrade_costs.iter().sum::<f64>()
            + self.offgrid_other_capital_costs_after_depreciation
    }

    /// Year-one fuel of every fuel-burning tech, the generator and the boilers ($ before tax),
    /// as the service's `Financial.year_one_fuel_cost_before_tax`.
    pub fn year_one_site_fuel_cost(&self) -> f64 {
        self.year_one_fuel_cost + self.heating.existing_fuel.year_one_before_tax + self.heating.boiler_fuel.year_one_before_tax
    }

    pub fn microgrid_upgrade_and_fuel_cost(&self) -> f64 {
        self.microgrid_upgrade_costs.iter().sum::<f64>() + self.expected_microgrid_fuel_cost
    }

    /// Everything billed in year one (exports not deducted), as the service's `year_one_bill`.
    pub fn year_one_bill(&self) -> f64 {
        self.year_one_energy_cost + self.year_one_demand_cost + self.year_one_fixed_cost + self.year_one_min_charge_adder + self.year_one_coincident_peak_cost
    }
}

/// The cost of `kw` under a tiered charge, filling tiers in order (each `limit` is a width).
pub fn tiered_cost(charge: &TieredCharge, kw: f64) -> f64 {
    let mut left = kw;
    let mut cost = 0.0;
    for (rate, width) in charge.rates.iter().zip(&charge.limits) {
        let used = left.min(*width).max(0.0);
        cost += rate * used;
        left -= used;
    }
    cost
}

/// The largest grid purchase within some steps.
fn peak_of(d: &Dispatch, steps: impl Iterator<Item = usize>) -> f64 {
    steps.map(|t| d.grid_purchase(t)).fold(0.0, f64::max)
}

/// Billed monthly peaks: each month's largest purchase, raised to the lookback share of the
/// past peaks (months form: the largest of the look-back months; range form: the R months before).
pub fn billed_monthly_peaks(model: &Model, d: &Dispatch) -> [f64; 12] {
    let measured = monthly_peaks(model, d);
    let mut billed = measured;
    match &model.tariff.lookback {
        Lookback::None => {}
        Lookback::Months { months, percent } => {
            let look = months.iter().map(|&m| measured[m]).fold(0.0, f64::max);
            billed.iter_mut().for_each(|peak| *peak = peak.max(percent * look));
        }
        Lookback::Range { months: range, percent } => {
            for (m, peak) in billed.iter_mut().enumerate() {
                let look = (1..=*range).map(|back| measured[(m + 12 - back % 12) % 12]).fold(0.0, f64::max);
                *peak = peak.max(percent * look);
            }
        }
    }
    billed
}

/// Year-one demand charges (monthly and time-of-use) recomputed from the purchases.
pub fn year_one_demand_cost(model: &Model, d: &Dispatch) -> f64 {
    let tariff = &model.tariff;
    let monthly: f64 = tariff.monthly_demand.iter().zip(billed_monthly_peaks(model, d)).map(|(charge, kw)| tiered_cost(charge, kw)).sum();
    let tou: f64 = tariff.tou_demand.iter().map(|period| tiered_cost(&period.charge, peak_of(d, period.steps.iter().copied()))).sum();
    monthly + tou
}

/// Recomputes every cost item from sizes and dispatch with the service's formulas.
pub fn cost_breakdown(model: &Model, factors: &CostFactors, solution: &CaseSolution) -> CostBreakdown {
    let d = &solution.dispatch;
    let dt = model.step_hours();
    let rates = &model.tariff;
    let steps = model.steps();
    let pv_capital: f64 = d
        .pv_segment_kw
        .iter()
        .zip(&factors.pv_segments)
        .flat_map(|(kws, segments)| kws.iter().zip(segments).map(|(kw, s)| kw * s.net_present_cost_per_kw))
        .sum();
    let pv_om_before_tax: f64 =
        model.pvs.iter().enumerate().map(|(i, pv)| factors.pwf_om * pv.om_cost_per_kw * pv_array_kw(model, solution, i)).sum();
    let built = solution.case.storage;
    let (storage_capital, replacements, storage_om, storage_initial, degraded_storage_om_before_tax) = match (&model.storage, &factors.storage) {
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
            // With degradation the maintenance costs replace the O&M on the installed $/kWh (REopt.jl `reopt.jl`).
            let degraded = if s.degradation.is_some() { s.installed_cost_per_kwh * d.storage_kwh } else { 0.0 };
            let om = |basis: f64| factors.pwf_om * s.om_cost_fraction_of_installed_cost * basis;
            (capital, replacements, om(initial - degraded), initial, om(degraded))
        }
        _ => (0.0, 0.0, 0.0, 0.0, 0.0),
    };
    let year_one_energy_cost: f64 =
        (0..steps).map(|t| d.grid_by_tier.iter().enumerate().map(|(k, tier)| dt * rates.energy_rates[k][t] * tier[t]).sum::<f64>()).sum();
    let year_one_demand_cost = year_one_demand_cost(model, d);
    let year_one_coincident_peak_cost: f64 =
        rates.coincident_peaks.iter().map(|cp| cp.charge_per_kw * peak_of(d, cp.steps.iter().copied())).sum();
    let year_one_fixed_cost = 12.0 * rates.fixed_monthly_charge;
    let year_one_export_benefit: f64 = (0..steps)
        .map(|t| {
            let [nem, whl, exc] = d.export_by_bin(t);
            dt * (rates.nem_rate[t] * nem + rates.wholesale_rate[t] * whl + rates.export_beyond_nem_rate[t] * exc)
        })
        .sum();
    // The service compares the annual minimum with the lifecycle bill (its formula).
    let compared = factors.pwf_e * (year_one_energy_cost + year_one_demand_cost + year_one_fixed_cost - year_one_export_benefit);
    let min_charge_adder = if rates.annual_min_charge >= 0.01 { (rates.annual_min_charge - compared).max(0.0) } else { 0.0 };
    let year_one_min_charge_adder = min_charge_adder / factors.pwf_e;
    let om_before_tax = pv_om_before_tax + storage_om;
    let lifecycle_elecbill_after_tax = factors.utility_factor()
        * (year_one_energy_cost + year_one_demand_cost + year_one_fixed_cost + year_one_coincident_peak_cost + year_one_min_charge_adder
            - year_one_export_benefit);
    let pv_initial: f64 = model.pvs.iter().zip(&d.pv_new_kw).map(|(pv, kw)| pv.installed_cost_per_kw * kw).sum();
    let generator = generator_costs(model, factors, d);
    let outages = resilience::outage_costs(model, factors, solution);
    let offgrid_annual = model.off_grid.as_ref().map_or(0.0, |o| o.other_annual_costs * factors.offgrid_annual_factor());
    let offgrid_capital = factors.offgrid_other_capital_after_depreciation;
    let offgrid_initial = model.off_grid.as_ref().map_or(0.0, |o| o.other_capital_costs);
    let heating = thermal::heating_costs(model, factors, solution);
    let chp = chp::chp_costs(model, factors, solution);
    let steam_turbine = steam_turbine::steam_turbine_costs(model, factors, solution);
    let cooling = cooling::cooling_costs(model, factors, d);
    let ghp = ghp::ghp_costs(model, factors, d);
    let heat_pumps = heat_pumps::heat_pump_costs(model, factors, d);
    let om_before_tax = om_before_tax
        + ghp.om_before_tax
        + generator.om_fixed_before_tax
        + generator.om_variable_before_tax
        + heating.boiler_om_before_tax
        + chp.om_before_tax
        + steam_turbine.om_before_tax
        + cooling.chiller_om_before_tax
        + heat_pumps.om_before_tax;
    let om_after_tax = om_before_tax * factors.owner_after_tax;
    let pounds = emissions::year_one_pounds(model, solution, generator.fuel_gal);
    let (climate, health) = emissions::emissions_costs(model, factors, &pounds);
    let in_objective = |included: bool, cost: Option<f64>| if included { cost.unwrap_or(0.0) } else { 0.0 };
    let emissions_in_objective =
        in_objective(model.emissions.climate_in_objective, climate) + in_objective(model.emissions.health_in_objective, health);
    let production_incentive_after_tax = production_incentive_after_tax(model, factors, solution);
    let lcc = emissions_in_objective
        + pv_capital
        + generator.capital
        + heating.boiler_capital
        + heating.storage_capital
        + heating.lifecycle_fuel_after_tax()
        + chp.capital
        + steam_turbine.capital
        + cooling.chiller_capital
        + cooling.storage_capital
        + ghp.capital
        - ghp.avoided_capex
        - ghp.ghx_residual_value
        + heat_pumps.capital
        - heat_pumps.avoided_capex
        + chp.lifecycle_fuel_after_tax
        + chp.lifecycle_standby_after_tax
        + storage_capital
        + om_after_tax
        + lifecycle_elecbill_after_tax
        + generator.lifecycle_fuel_cost_after_tax
        + outages.expected_outage_cost
        + outages.upgrades.iter().sum::<f64>()
        + outages.expected_fuel_cost
        + offgrid_annual
        + offgrid_capital
        + d.degradation.as_ref().map_or(0.0, |g| g.maintenance_cost - g.residual_value)
        - production_incentive_after_tax;
    CostBreakdown {
        pv_capital,
        storage_capital,
        om_before_tax,
        om_after_tax,
        degraded_storage_om_before_tax,
        pv_om_before_tax,
        year_one_energy_cost,
        year_one_demand_cost,
        year_one_fixed_cost,
        year_one_min_charge_adder,
        year_one_coincident_peak_cost,
        year_one_export_benefit,
        initial_capital_costs: pv_initial
            + storage_initial
            + generator.initial
            + offgrid_initial
            + heating.boiler_initial
            + heating.storage_initial
            + chp.initial
            + steam_turbine.initial
            + cooling.chiller_initial
            + cooling.storage_initial
            + ghp.initial
            + heat_pumps.initial
            - heat_pumps.avoided_capex,
        lifecycle_elecbill_after_tax,
        lifecycle_emissions_cost_climate: climate,
        lifecycle_emissions_cost_health: health,
        production_incentive_after_tax,
        lcc,
        generator_capital: generator.capital,
        generator_om_fixed_before_tax: generator.om_fixed_before_tax,
        generator_om_variable_before_tax: generator.om_variable_before_tax,
        generator_fuel_gal: generator.fuel_gal,
        year_one_fuel_cost: generator.year_one_fuel_cost,
        lifecycle_fuel_cost_after_tax: generator.lifecycle_fuel_cost_after_tax,
        heating,
        chp,
        steam_turbine,
        cooling,
        ghp,
        heat_pumps,
        expected_outage_cost: outages.expected_outage_cost,
        max_outage_cost_per_outage_duration: outages.max_per_duration,
        microgrid_upgrade_costs: outages.upgrades,
        expected_microgrid_fuel_cost: outages.expected_fuel_cost,
        offgrid_other_annual_costs_after_tax: offgrid_annual,
        offgrid_other_capital_costs_after_depreciation: offgrid_capital,
        replacements_present_cost_after_tax: replacements + generator.replacements,
        replacements_future_cost: replacements_future_cost(model, solution),
    }
}

/// The arrays' and CHP's production-based incentives at the solution's sizes (and CHP's kWh),
/// after the owner's tax (the LP's incentive is at its largest there, so it is recomputed).
fn production_incentive_after_tax(model: &Model, factors: &CostFactors, solution: &CaseSolution) -> f64 {
    let chp = match (&model.chp, &solution.dispatch.chp) {
        (Some(inputs), Some(d)) => {
            crate::optimizer::lp::chp::production_incentive_before_tax(model, inputs, d.size_kw, model.step_hours() * d.rated_kw.iter().sum::<f64>())
        }
        _ => 0.0,
    };
    if solution.case.pv == SizeChoice::Absent {
        return chp * factors.owner_after_tax;
    }
    // A fold from +0.0: an empty f64 sum is −0.0, which the results would print as such.
    let before_tax = factors
        .production_incentives
        .iter()
        .enumerate()
        .filter_map(|(i, incentive)| incentive.map(|incentive| incentive.value(pv_array_kw(model, solution, i))))
        .fold(chp, |total, value| total + value);
    before_tax * factors.owner_after_tax
}

/// Replacement costs in their year: storage kW, kWh and constant, and new generator kW, each
/// when replaced within the analysis period.
fn replacements_future_cost(model: &Model, solution: &CaseSolution) -> f64 {
    let d = &solution.dispatch;
    let years = model.financial.analysis_years;
    let within = |year: u32, cost: f64| if year < years { cost } else { 0.0 };
    let storage = match &model.storage {
        Some(s) if solution.case.storage => {
            within(s.inverter_replacement_year, s.replace_cost_per_kw * d.storage_kw)
                + within(s.battery_replacement_year, s.replace_cost_per_kwh * d.storage_kwh)
                + if s.has_cost_constant() { within(s.cost_constant_replacement_year, s.replace_cost_constant) } else { 0.0 }
        }
        _ => 0.0,
    };
    let generator = model.generator.as_ref().map_or(0.0, |g| within(g.replacement_year, g.replace_cost_per_kw * d.generator_new_kw));
    storage + generator
}

/// The generator's cost items of a solution.
#[derive(Default)]
struct GeneratorItems {
    capital: f64,
    replacements: f64,
    initial: f64,
    om_fixed_before_tax: f64,
    om_variable_before_tax: f64,
    fuel_gal: f64,
    year_one_fuel_cost: f64,
    lifecycle_fuel_cost_after_tax: f64,
}

/// Gallons burned producing `kw` for one step of `hours`: slope per kWh plus the intercept
/// per hour running (the exact fuel curve).
pub fn generator_gallons(g: &Generator, kw: f64, hours: f64) -> f64 {
    if kw <= 0.0 {
        0.0
    } else {
        hours * (g.fuel_slope_gal_per_kwh * kw + g.fuel_intercept_gal_per_hour)
    }
}

fn generator_costs(model: &Model, factors: &CostFactors, d: &Dispatch) -> GeneratorItems {
    let (Some(g), Some(c)) = (&model.generator, &factors.generator) else {
        return GeneratorItems::default();
    };
    let dt = model.step_hours();
    let produced = (0..model.steps()).map(|t| d.generator_load[t] + d.generator_storage[t] + d.generator_curtail[t]);
    let kwh: f64 = produced.clone().sum::<f64>() * dt;
    let fuel_gal: f64 = produced.map(|kw| generator_gallons(g, kw, dt)).sum();
    let year_one_fuel_cost = fuel_gal * g.fuel_cost_per_gallon;
    GeneratorItems {
        capital: c.net_present_cost_per_kw * d.generator_new_kw,
        replacements: c.replacement_present_cost_per_kw * d.generator_new_kw,
        initial: g.installed_cost_per_kw * d.generator_new_kw,
        om_fixed_before_tax: factors.pwf_om * g.om_cost_per_kw * d.generator_kw,
        om_variable_before_tax: factors.pwf_om * g.om_cost_per_kwh * kwh,
        fuel_gal,
        year_one_fuel_cost,
        lifecycle_fuel_cost_after_tax: factors.pwf_fuel * factors.offtaker_after_tax * year_one_fuel_cost,
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

/// Capacity of one array in a solution: existing plus new, or none when the case has no PV.
pub fn pv_array_kw(model: &Model, solution: &CaseSolution, array: usize) -> f64 {
    match solution.case.pv {
        SizeChoice::Sized | SizeChoice::ExistingOnly => model.pvs[array].existing_kw + solution.dispatch.pv_new_kw[array],
        SizeChoice::Absent => 0.0,
    }
}

/// Rounds to `digits` decimals, as the service rounds its results fields.
fn round_to(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
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
    let solved_bau = bau.as_ref().map(|(s, c)| (*s, c));
    let mut outputs = Map::new();
    let mut financial = financial_outputs(&optimal, bau.as_ref().map(|(_, c)| c), &run.factors);
    if let Value::Object(map) = &mut financial {
        map.extend(cash_flows::pro_forma_outputs(model, run, &optimal, bau.as_ref().map(|(_, c)| c)));
        map.extend(emissions::financial_outputs(model, &run.factors, (&run.optimal, &optimal), solved_bau));
        map.extend(operating_cost_outputs(&optimal, bau.as_ref().map(|(_, c)| c), &run.factors));
    }
    outputs.insert("Financial".into(), financial);
    let mut tariff = tariff_outputs(&optimal, bau.as_ref().map(|(_, c)| c), &run.factors);
    if let Value::Object(map) = &mut tariff {
        map.extend(monthly_bills::monthly_bill_series(model, &run.optimal.dispatch).into_iter().map(|(key, value)| (key.to_string(), value)));
    }
    outputs.insert("ElectricTariff".into(), tariff);
    let mut utility = utility_outputs(model, &run.optimal, bau.as_ref().map(|(s, _)| *s));
    if let Value::Object(map) = &mut utility {
        map.extend(emissions::utility_outputs(model, &run.factors, (&run.optimal, &optimal), solved_bau));
        map.extend(renewables::utility_renewable_outputs(model, &run.optimal, bau.as_ref().map(|(s, _)| *s)));
    }
    outputs.insert("ElectricUtility".into(), utility);
    let mut load = load_outputs(model);
    resilience::load_extras(model, &run.optimal, &mut load);
    outputs.insert("ElectricLoad".into(), Value::Object(load));
    let mut site = emissions::site_outputs(model, &run.factors, (&run.optimal, &optimal), solved_bau);
    site.extend(renewables::site_renewable_outputs(model, &run.optimal, bau.as_ref().map(|(s, _)| *s)));
    outputs.insert("Site".into(), Value::Object(site));
    let bau_solution = bau.as_ref().map(|(s, _)| *s);
    let arrays: Vec<Value> =
        (0..model.pvs.len()).filter(|&i| model.pvs[i].kind == ArrayKind::Pv).map(|i| pv_outputs(model, i, run, bau_solution)).collect();
    match arrays.len() {
        0 => {}
        1 => {
            outputs.insert("PV".into(), arrays.into_iter().next().unwrap_or(Value::Null));
        }
        _ => {
            outputs.insert("PV".into(), Value::Array(arrays));
        }
    }
    if let Some(wind) = model.pvs.iter().position(|pv| pv.kind == ArrayKind::Wind) {
        let mut section = pv_outputs(model, wind, run, bau_solution);
        if let Value::Object(map) = &mut section {
            map.remove("name");
        }
        outputs.insert("Wind".into(), section);
    }
    if model.storage.is_some() {
        outputs.insert("ElectricStorage".into(), storage::storage_outputs(model, &run.optimal));
    }
    if model.generator.is_some() {
        let generator = resilience::generator_outputs(model, &run.factors, &run.optimal, &optimal, bau.as_ref().map(|(_, c)| c));
        outputs.insert("Generator".into(), generator);
    }
    if let Some(section) = resilience::outage_outputs(model, &run.optimal, &optimal) {
        outputs.insert("Outages".into(), section);
    }
    let bau_heating = bau.as_ref().map(|(s, c)| (*s, &c.heating));
    thermal::insert_heating_outputs(&mut outputs, model, &run.factors, (&run.optimal, &optimal.heating), bau_heating);
    hot_storages::insert_hot_storage_outputs(&mut outputs, model, &run.optimal);
    cooling::insert_cooling_outputs(&mut outputs, model, &run.optimal.dispatch, run.bau.is_some());
    heat_pumps::insert_heat_pump_outputs(&mut outputs, model, &run.optimal.dispatch);
    if let Some(section) = chp::chp_outputs(model, &run.factors, &run.optimal, &optimal.chp) {
        outputs.insert("CHP".into(), section);
    }
    if let Some(section) = steam_turbine::steam_turbine_outputs(model, &run.optimal) {
        outputs.insert("SteamTurbine".into(), section);
    }
    if let Some(section) = ghp::ghp_outputs(model, &run.optimal.dispatch) {
        outputs.insert("GHP".into(), section);
    }
    Value::Object(outputs)
}

/// Year-one operating cost of a case before and after tax (REopt.jl `results.jl`): the bill
/// less the export benefit, fuel and O&M (no CHP standby here); the bill, exports and fuel after
/// the offtaker's tax, O&M after the owner's.
fn year_one_operating_costs(c: &CostBreakdown, factors: &CostFactors) -> (f64, f64) {
    let om = c.om_before_tax / factors.pwf_om;
    let utility_and_fuel = c.year_one_bill() - c.year_one_export_benefit + c.year_one_site_fuel_cost();
    (utility_and_fuel + om, utility_and_fuel * factors.offtaker_after_tax + om * factors.owner_after_tax)
}

/// The year-one operating costs of `Financial` (fuel and total, before and after tax, with
/// their `_bau` twins and the savings; the savings are the numerator of the service's
/// alternative payback, `capital_costs_after_non_discounted_incentives` / savings after tax).
fn operating_cost_outputs(optimal: &CostBreakdown, bau: Option<&CostBreakdown>, factors: &CostFactors) -> Map<String, Value> {
    let operating = year_one_operating_costs(optimal, factors);
    let operating_bau = bau.map(|b| year_one_operating_costs(b, factors));
    let fields = json!({
        "year_one_fuel_cost_before_tax": money(optimal.year_one_site_fuel_cost()),
        "year_one_fuel_cost_after_tax": money(optimal.year_one_site_fuel_cost() * factors.offtaker_after_tax),
        "year_one_fuel_cost_before_tax_bau": bau.map(|b| money(b.year_one_site_fuel_cost())),
        "year_one_fuel_cost_after_tax_bau": bau.map(|b| money(b.year_one_site_fuel_cost() * factors.offtaker_after_tax)),
        "year_one_total_operating_cost_before_tax": money(operating.0),
        "year_one_total_operating_cost_after_tax": money(operating.1),
        "year_one_total_operating_cost_before_tax_bau": operating_bau.map(|b| money(b.0)),
        "year_one_total_operating_cost_after_tax_bau": operating_bau.map(|b| money(b.1)),
        "year_one_total_operating_cost_savings_before_tax": operating_bau.map(|b| money(b.0 - operating.0)),
        "year_one_total_operating_cost_savings_after_tax": operating_bau.map(|b| money(b.1 - operating.1)),
    });
    match fields {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn financial_outputs(optimal: &CostBreakdown, bau: Option<&CostBreakdown>, factors: &CostFactors) -> Value {
    let om_year_one = |c: &CostBreakdown| c.om_before_tax / factors.pwf_om;
    json!({
        "year_one_om_costs_after_tax_bau": bau.map(|b| money(om_year_one(b) * factors.owner_after_tax)),
        "lcc": money(optimal.lcc),
        "lcc_bau": bau.map(|b| money(b.lcc)),
        "npv": bau.map(|b| money(b.lcc - optimal.lcc)),
        "lifecycle_capital_costs_plus_om_after_tax": money(optimal.lifecycle_capital_costs() + optimal.om_after_tax),
        "lifecycle_capital_costs": money(optimal.lifecycle_capital_costs()),
        "lifecycle_generation_tech_capital_costs": money(
            optimal.pv_capital + optimal.generator_capital + optimal.heating.boiler_capital + optimal.chp.capital + optimal.cooling.chiller_capital
                + optimal.steam_turbine.capital
                + optimal.ghp.capital
                + optimal.heat_pumps.capital
        ),
        "lifecycle_storage_capital_costs": money(optimal.storage_capital + optimal.heating.storage_capital + optimal.cooling.storage_capital),
        "initial_capital_costs": money(optimal.initial_capital_costs),
        // The owner's view: the capital without the third-party factor (the service's formulas).
        "initial_capital_costs_after_incentives":
            money(optimal.lifecycle_capital_costs() / factors.third_party_factor - optimal.replacements_present_cost_after_tax),
        "replacements_present_cost_after_tax": money(optimal.replacements_present_cost_after_tax),
        "om_and_replacement_present_cost_after_tax": money(optimal.replacements_present_cost_after_tax + optimal.om_after_tax),
        "developer_om_and_replacement_present_cost_after_tax":
            money((optimal.replacements_present_cost_after_tax + optimal.om_after_tax) / factors.third_party_factor),
        "lifecycle_om_costs_before_tax": money(optimal.om_before_tax),
        "lifecycle_om_costs_after_tax": money(optimal.om_after_tax),
        "lifecycle_om_costs_before_tax_bau": bau.map(|b| money(b.om_before_tax)),
        "lifecycle_om_costs_after_tax_bau": bau.map(|b| money(b.om_after_tax)),
        "year_one_om_costs_before_tax": money(om_year_one(optimal)),
        "year_one_om_costs_after_tax": money(om_year_one(optimal) * factors.owner_after_tax),
        "year_one_om_costs_before_tax_bau": bau.map(|b| money(om_year_one(b))),
        "lifecycle_elecbill_after_tax": money(optimal.lifecycle_elecbill_after_tax),
        "lifecycle_elecbill_after_tax_bau": bau.map(|b| money(b.lifecycle_elecbill_after_tax)),
        "lifecycle_production_incentive_after_tax": money(optimal.production_incentive_after_tax),
        "lifecycle_production_incentive_after_tax_bau": bau.map(|b| money(b.production_incentive_after_tax)),
        "lifecycle_fuel_costs_after_tax": money(optimal.lifecycle_fuel_cost_after_tax + optimal.heating.lifecycle_fuel_after_tax() + optimal.chp.lifecycle_fuel_after_tax),
        "lifecycle_fuel_costs_after_tax_bau": bau.map(|b| money(b.lifecycle_fuel_cost_after_tax + b.heating.lifecycle_fuel_after_tax())),
        "lifecycle_chp_standby_cost_after_tax": money(optimal.chp.lifecycle_standby_after_tax),
        "lifecycle_outage_cost": money(optimal.expected_outage_cost),
        "lifecycle_outage_cost_bau": bau.map(|b| money(b.expected_outage_cost)),
        "lifecycle_MG_upgrade_and_fuel_cost": money(optimal.microgrid_upgrade_and_fuel_cost()),
        "lifecycle_offgrid_other_annual_costs_after_tax": money(optimal.offgrid_other_annual_costs_after_tax),
        "lifecycle_offgrid_other_capital_costs": money(optimal.offgrid_other_capital_costs_after_depreciation),
        "replacements_future_cost_after_tax": money(optimal.replacements_future_cost),
    })
}

fn tariff_outputs(optimal: &CostBreakdown, bau: Option<&CostBreakdown>, factors: &CostFactors) -> Value {
    let after_tax = |year_one: f64| money(year_one * factors.utility_factor());
    let mut out = Map::new();
    let mut put = |key: &str, item: fn(&CostBreakdown) -> f64, lifecycle: bool| {
        let value = |c: &CostBreakdown| if lifecycle { after_tax(item(c)) } else { money(item(c)) };
        out.insert(key.to_string(), value(optimal));
        out.insert(format!("{key}_bau"), bau.map(value).unwrap_or(Value::Null));
    };
    put("year_one_energy_cost_before_tax", |c| c.year_one_energy_cost, false);
    put("year_one_demand_cost_before_tax", |c| c.year_one_demand_cost, false);
    put("year_one_fixed_cost_before_tax", |c| c.year_one_fixed_cost, false);
    put("year_one_min_charge_adder_before_tax", |c| c.year_one_min_charge_adder, false);
    put("year_one_coincident_peak_cost_before_tax", |c| c.year_one_coincident_peak_cost, false);
    put("year_one_bill_before_tax", CostBreakdown::year_one_bill, false);
    put("year_one_export_benefit_before_tax", |c| c.year_one_export_benefit, false);
    put("lifecycle_energy_cost_after_tax", |c| c.year_one_energy_cost, true);
    put("lifecycle_demand_cost_after_tax", |c| c.year_one_demand_cost, true);
    put("lifecycle_fixed_cost_after_tax", |c| c.year_one_fixed_cost, true);
    put("lifecycle_min_charge_adder_after_tax", |c| c.year_one_min_charge_adder, true);
    put("lifecycle_coincident_peak_cost_after_tax", |c| c.year_one_coincident_peak_cost, true);
    put("lifecycle_export_benefit_after_tax", |c| c.year_one_export_benefit, true);
    let after_offtaker_tax = |year_one: f64| money(year_one * factors.offtaker_after_tax);
    for (key, item) in [("year_one_bill_after_tax", CostBreakdown::year_one_bill as fn(&CostBreakdown) -> f64), ("year_one_export_benefit_after_tax", |c| c.year_one_export_benefit)] {
        out.insert(key.to_string(), after_offtaker_tax(item(optimal)));
        out.insert(format!("{key}_bau"), bau.map(|b| after_offtaker_tax(item(b))).unwrap_or(Value::Null));
    }
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

fn load_outputs(model: &Model) -> Map<String, Value> {
    let mut load = Map::new();
    load.insert("load_series_kw".into(), series(&model.load_kw));
    load.insert("annual_calculated_kwh".into(), Value::from(round6(annual_kwh(model, model.load_kw.iter().copied()))));
    load
}

/// One array's results: its own exports and its part of the shared load and storage flows and
/// of curtailment (`lp::exports::split_by_array`).
fn pv_outputs(model: &Model, array: usize, run: &Optimized, bau: Option<&CaseSolution>) -> Value {
    let optimal = &run.optimal;
    let d = &optimal.dispatch;
    let pv = &model.pvs[array];
    let lvl = run.factors.levelization[array];
    let year_one = |kw: f64| annual_kwh(model, pv.production_factor.iter().map(|f| f * kw));
    let om_after_tax = |kw: f64| run.factors.om_factor() * pv.om_cost_per_kw * kw;
    let size = pv_array_kw(model, optimal, array);
    let bau_size = bau.map(|b| pv_array_kw(model, b, array)).filter(|kw| *kw > 0.0);
    let flows = &d.pv_by_array[array];
    let exports: Vec<f64> = (0..model.steps()).map(|t| flows.to_grid.iter().map(|bin| bin[t]).sum()).collect();
    json!({
        "name": pv.name,
        "size_kw": round6(size),
        "electric_to_storage_series_kw": series(&flows.to_storage),
        "electric_to_load_series_kw": series(&flows.to_load),
        "electric_to_grid_series_kw": series(&exports),
        "electric_curtailed_series_kw": series(&flows.curtailed),
        "annual_energy_produced_kwh": round6(year_one(size) * lvl),
        "annual_energy_produced_kwh_bau": bau_size.map(|kw| round6(year_one(kw) * lvl)),
        "year_one_energy_produced_kwh": round6(year_one(size)),
        "year_one_energy_produced_kwh_bau": bau_size.map(|kw| round6(year_one(kw))),
        "annual_energy_exported_kwh": round6(annual_kwh(model, exports.iter().copied())),
        "lifecycle_om_cost_after_tax": money(om_after_tax(size)),
        "lifecycle_om_cost_after_tax_bau": bau_size.map(|kw| money(om_after_tax(kw))),
        "lcoe_per_kwh": cash_flows::lcoe_per_kwh(model, run, array),
        "production_factor_series": pv.production_factor,
    })
}

/// The `inputs` echo: the resolved scenario with a one-array PV list as one object and every
/// default this optimizer filled written into its section (PV defaults into every array).
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
    let write = |map: &mut Map<String, Value>, fill: &FilledDefault| {
        let slot = map.entry(fill.field).or_insert(Value::Null);
        if slot.is_null() || fill.overrides {
            *slot = fill.value.clone();
        }
    };
    for fill in filled {
        match inputs.entry(fill.section).or_insert_with(|| json!({})) {
            Value::Object(map) if fill.item.is_none_or(|i| i == 0) => write(map, fill),
            Value::Array(items) => items
                .iter_mut()
                .enumerate()
                .filter(|(i, _)| fill.item.is_none_or(|item| item == *i))
                .filter_map(|(_, item)| item.as_object_mut())
                .for_each(|map| write(map, fill)),
            _ => {}
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

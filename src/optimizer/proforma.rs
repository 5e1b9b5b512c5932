//! The service's pro forma as pure functions: the offtaker's yearly free cash flows of the
//! optimal and business-as-usual cases, their simple payback and internal rate of return, and
//! a technology's levelized cost of energy.
//!
//! Formulas follow REopt.jl `src/results/proforma.jl` (`proforma_results`, `update_metrics`,
//! `npv`, `irr`) and `src/results/financial.jl` (`get_depreciation_schedule`,
//! `calculate_lcoe`): the direct-ownership (offtaker) branch and the third-party branch (the
//! developer's flows, the net present cost it must recover and the offtaker's annual payment).
//! Money is in $, years count from 0 (the up-front year) to `analysis_years`.

use super::finance::macrs_schedule;
use super::model::{ProductionIncentive, PvIncentives, Storage};

/// One technology's up-front cost and the capital incentives the pro forma credits to it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CapitalItem {
    /// Cash incentives received in year 0: investment-based incentives and rebates ($).
    pub cash_incentives: f64,
    /// The basis of the federal ITC and of depreciation ($).
    pub itc_basis: f64,
    /// The ITC as a fraction of its basis.
    pub itc_fraction: f64,
    /// 0, 5 or 7 (0: no depreciation).
    pub macrs_option_years: u32,
    pub macrs_bonus_fraction: f64,
    pub macrs_itc_reduction: f64,
}

/// The capacity-based incentives of PV or Wind, in the service's order (utility before state):
/// `utility_ibi = min(capex · f_u, max_u)`, `utility_cbi = min(kW · r_u, max)`,
/// `state_ibi = min((capex − utility_ibi − utility_cbi) · f_s, max_s)`,
/// `state_cbi = min(kW · r_s, max)`, `federal_cbi = kW · r_f` (all $).
#[derive(Debug, Clone, Copy, PartialEq)]
struct CapacityIncentives {
    utility_ibi: f64,
    utility_cbi: f64,
    state_ibi: f64,
    state_cbi: f64,
    federal_cbi: f64,
}

impl CapacityIncentives {
    /// REopt.jl `update_metrics` / `calculate_lcoe`: the incentive lines.
    fn new(capital_cost: f64, new_kw: f64, incentives: &PvIncentives) -> CapacityIncentives {
        let utility_ibi = (capital_cost * incentives.utility_ibi_fraction).min(incentives.utility_ibi_max);
        let utility_cbi = (new_kw * incentives.utility_rebate_per_kw).min(incentives.utility_rebate_max);
        let state_ibi = ((capital_cost - utility_ibi - utility_cbi) * incentives.state_ibi_fraction).min(incentives.state_ibi_max);
        let state_cbi = (new_kw * incentives.state_rebate_per_kw).min(incentives.state_rebate_max);
        CapacityIncentives { utility_ibi, utility_cbi, state_ibi, state_cbi, federal_cbi: new_kw * incentives.federal_rebate_per_kw }
    }

    fn total(&self) -> f64 {
        self.utility_ibi + self.utility_cbi + self.state_ibi + self.state_cbi + self.federal_cbi
    }

    /// The capital less the state and utility incentives (the federal rebate stays in).
    fn pro_forma_itc_basis(&self, capital_cost: f64) -> f64 {
        capital_cost - self.state_ibi - self.utility_ibi - self.state_cbi - self.utility_cbi
    }
}

impl CapitalItem {
    /// PV or Wind of `new_kw` new capacity costing `capital_cost` before incentives
    /// (REopt.jl `update_metrics`).
    pub fn generation(capital_cost: f64, new_kw: f64, incentives: &PvIncentives) -> CapitalItem {
        let lines = CapacityIncentives::new(capital_cost, new_kw, incentives);
        CapitalItem {
            cash_incentives: lines.total(),
            itc_basis: lines.pro_forma_itc_basis(capital_cost),
            itc_fraction: incentives.federal_itc_fraction,
            macrs_option_years: incentives.macrs_option_years,
            macrs_bonus_fraction: incentives.macrs_bonus_fraction,
            macrs_itc_reduction: incentives.macrs_itc_reduction,
        }
    }

    /// Storage of `kw` and `kwh`: the basis is the whole installed cost (constant included),
    /// the cash incentives its per-kW and per-kWh rebates (REopt.jl `proforma_results`).
    pub fn storage(storage: &Storage, kw: f64, kwh: f64) -> CapitalItem {
        let capital_cost = kw * storage.installed_cost_per_kw + kwh * storage.installed_cost_per_kwh + storage.installed_cost_constant;
        CapitalItem {
            cash_incentives: kw * storage.total_rebate_per_kw + kwh * storage.total_rebate_per_kwh,
            itc_basis: capital_cost,
            itc_fraction: storage.total_itc_fraction,
            macrs_option_years: storage.macrs_option_years,
            macrs_bonus_fraction: storage.macrs_bonus_fraction,
            macrs_itc_reduction: storage.macrs_itc_reduction,
        }
    }

    fn federal_itc(&self) -> f64 {
        self.itc_fraction * self.itc_basis
    }

    /// Depreciation ($) in years 1..=`years` (index 0 is year 1).
    fn depreciation(&self, years: usize) -> Vec<f64> {
        depreciation_schedule(self.itc_basis, self, years)
    }
}

/// MACRS depreciation of `basis` in years 1..=`years` (REopt.jl `get_depreciation_schedule`):
/// `bonus_basis = basis · (1 − itc · reduction)` (reduction 0 without an ITC),
/// `macrs_basis = bonus_basis · (1 − bonus)`, year `i` gets `macrs_basis · rate_i` for
/// `i < years` (as the service, a schedule entry in the last year is dropped) and year 1 also
/// `bonus · bonus_basis`. Zero everywhere unless the option is 5 or 7 years.
fn depreciation_schedule(basis: f64, item: &CapitalItem, years: usize) -> Vec<f64> {
    let mut schedule = vec![0.0; years];
    let rates = macrs_schedule(item.macrs_option_years);
    if rates.is_empty() || years == 0 {
        return schedule;
    }
    let reduction = if item.itc_fraction == 0.0 { 0.0 } else { item.macrs_itc_reduction };
    let bonus_basis = basis - basis * item.itc_fraction * reduction;
    let macrs_basis = bonus_basis * (1.0 - item.macrs_bonus_fraction);
    for (year, rate) in schedule.iter_mut().take(years - 1).zip(rates) {
        *year = macrs_basis * rate;
    }
    schedule[0] += item.macrs_bonus_fraction * bonus_basis;
    schedule
}

/// A cost paid once, in `year` (not escalated), before tax ($).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct OneTimeCost {
    pub cost: f64,
    pub year: u32,
}

/// A year-one cost before tax ($) and the annual rate it escalates at (a boiler's fuel: each
/// boiler's fuel has its own rate).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EscalatingCost {
    pub year_one: f64,
    pub escalation: f64,
}

/// Year-one operating amounts of one case, before tax ($, all positive).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct YearOneCosts {
    /// Everything billed by the utility (`ElectricTariff.year_one_bill_before_tax`).
    pub bill: f64,
    pub export_benefit: f64,
    /// O&M of every technology (escalated at the O&M rate).
    pub om: f64,
    /// Generator fuel (escalated at the fuel rate).
    pub fuel: f64,
    /// The fuel of the existing boiler, the new boiler and the CHP, each at its own rate.
    pub onsite_fuel: [EscalatingCost; 3],
}

/// A production-based incentive's payments in years 1..=`years` (REopt.jl `update_metrics`):
/// in year y ≤ `incentive.years`, `min(rate · kwh, max_benefit) · (1−g)^(y−1)` for the
/// array's year-one energy `kwh` (degradation `g` for PV, 0 for Wind); the service pays it
/// whatever the size (its `max_kw` is not checked here, only in the optimization).
pub fn production_incentive_series(incentive: &ProductionIncentive, kwh: f64, degradation: f64, years: usize) -> Vec<f64> {
    (0..years)
        .map(|y| {
            if y < incentive.years as usize {
                let degraded = (1.0 - degradation).powi(y as i32);
                (incentive.per_kwh * kwh * degraded).min(incentive.max_benefit * degraded)
            } else {
                0.0
            }
        })
        .collect()
}

/// Everything the offtaker's pro forma reads.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CashFlowInputs {
    pub analysis_years: u32,
    pub elec_cost_escalation_rate_fraction: f64,
    pub om_cost_escalation_rate_fraction: f64,
    pub generator_fuel_cost_escalation_rate_fraction: f64,
    pub offtaker_discount_rate_fraction: f64,
    pub offtaker_tax_rate_fraction: f64,
    /// `Financial.initial_capital_costs` of the optimal case ($).
    pub initial_capital_costs: f64,
    /// `Financial.lifecycle_capital_costs_bau` ($; the BAU's year 0).
    pub lifecycle_capital_costs_bau: f64,
    pub capital_items: Vec<CapitalItem>,
    /// The storage replacement, booked in the battery's replacement year.
    pub storage_replacement: OneTimeCost,
    pub optimal: YearOneCosts,
    pub bau: YearOneCosts,
    /// Production-based incentives before tax in years 1..=analysis_years (empty: none).
    pub production_incentives: Vec<f64>,
    pub production_incentives_bau: Vec<f64>,
}

/// The pro forma outputs (the service's `Financial` names).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProForma {
    /// Years 0..=analysis_years, rounded to cents as the service.
    pub offtaker_annual_free_cashflows: Vec<f64>,
    pub offtaker_annual_free_cashflows_bau: Vec<f64>,
    pub offtaker_discounted_annual_free_cashflows: Vec<f64>,
    pub offtaker_discounted_annual_free_cashflows_bau: Vec<f64>,
    pub simple_payback_years: f64,
    pub internal_rate_of_return: f64,
    pub capital_costs_after_non_discounted_incentives_without_macrs: f64,
    pub capital_costs_after_non_discounted_incentives: f64,
}

/// `value · (1 + rate)^y` for y in 1..=years.
fn escalated(value: f64, rate: f64, years: usize) -> Vec<f64> {
    (1..=years).map(|y| value * (1.0 + rate).powi(y as i32)).collect()
}

fn round_to(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// Operating cash flow of a case in years 1..=years, before tax (negative: costs):
/// `−(bill − export)·(1+e_elec)^y − om·(1+e_om)^y − fuel·(1+e_fuel)^y − Σ_b burner_b·(1+e_b)^y`.
fn operating(inputs: &CashFlowInputs, costs: &YearOneCosts, years: usize) -> Vec<f64> {
    let elec = escalated(-(costs.bill - costs.export_benefit), inputs.elec_cost_escalation_rate_fraction, years);
    let om = escalated(-costs.om, inputs.om_cost_escalation_rate_fraction, years);
    let mut fuel = escalated(-costs.fuel, inputs.generator_fuel_cost_escalation_rate_fraction, years);
    for burner in costs.onsite_fuel {
        fuel.iter_mut().zip(escalated(-burner.year_one, burner.escalation, years)).for_each(|(total, cost)| *total += cost);
    }
    (0..years).map(|y| elec[y] + om[y] + fuel[y]).collect()
}

/// Adds `(1 − tax) · incentives_y` to the flows of years 1..
fn add_after_tax(flows: &mut [f64], incentives: &[f64], tax: f64) {
    flows.iter_mut().zip(incentives).for_each(|(flow, incentive)| *flow += incentive * (1.0 - tax));
}

/// The owner's free cash flows of the optimal case in years 0..=N and its capital after the
/// non-discounted incentives, for operating costs `operating` (years 1..=N, before tax,
/// negative) at the owner's `tax` and `discount` (REopt.jl `proforma_results`, both branches):
///
/// ```text
/// year 0 = −initial_capital_costs + Σ cash incentives
/// year y = (1 − tax)·(operating_y − replacement in its year) + tax·Σ depreciation_y
///          + (y = 1: Σ ITC) + (1 − tax)·pbi_y
/// ```
fn owner_flows(inputs: &CashFlowInputs, operating: Vec<f64>, tax: f64, discount: f64) -> OwnerFlows {
    let years = inputs.analysis_years as usize;
    let mut yearly: Vec<f64> = operating.iter().map(|v| v * (1.0 - tax)).collect();
    let replacement = inputs.storage_replacement;
    if (1..=years).contains(&(replacement.year as usize)) {
        yearly[replacement.year as usize - 1] -= replacement.cost * (1.0 - tax);
    }
    let mut depreciation = vec![0.0; years];
    for item in &inputs.capital_items {
        depreciation.iter_mut().zip(item.depreciation(years)).for_each(|(total, d)| *total += d);
    }
    yearly.iter_mut().zip(&depreciation).for_each(|(flow, d)| *flow += d * tax);
    add_after_tax(&mut yearly, &inputs.production_incentives, tax);
    let federal_itc: f64 = inputs.capital_items.iter().map(CapitalItem::federal_itc).sum();
    if let Some(first) = yearly.first_mut() {
        *first += federal_itc;
    }
    let cash_incentives: f64 = inputs.capital_items.iter().map(|item| item.cash_incentives).sum();
    let replacement_present_cost = replacement.cost * (1.0 - tax) / (1.0 + discount).powi(replacement.year as i32);
    let without_macrs = inputs.initial_capital_costs - cash_incentives - federal_itc + replacement_present_cost;
    OwnerFlows {
        flows: std::iter::once(cash_incentives - inputs.initial_capital_costs).chain(yearly).collect(),
        without_macrs,
        with_macrs: without_macrs - depreciation.iter().sum::<f64>() * tax,
    }
}

/// What `owner_flows` returns.
struct OwnerFlows {
    flows: Vec<f64>,
    without_macrs: f64,
    with_macrs: f64,
}

/// The offtaker's pro forma (REopt.jl `proforma_results`, direct ownership): the owner's flows
/// (`owner_flows`) at the offtaker's rates with the bill, exports, O&M and fuel as operating
/// costs, and
///
/// ```text
/// bau year 0 = −lifecycle_capital_costs_bau,  bau year y = (1 − tax)·(operating_y + pbi_bau_y)
/// discounted_y = flow_y / (1 + d)^y
/// ```
/// The payback and IRR are those of the optimal less the BAU flows.
pub fn offtaker_pro_forma(inputs: &CashFlowInputs) -> ProForma {
    let years = inputs.analysis_years as usize;
    let tax = inputs.offtaker_tax_rate_fraction;
    let discount = inputs.offtaker_discount_rate_fraction;
    let owner = owner_flows(inputs, operating(inputs, &inputs.optimal, years), tax, discount);
    let optimal = owner.flows;
    let mut bau_yearly: Vec<f64> = operating(inputs, &inputs.bau, years).iter().map(|v| v * (1.0 - tax)).collect();
    add_after_tax(&mut bau_yearly, &inputs.production_incentives_bau, tax);
    let bau: Vec<f64> = std::iter::once(-inputs.lifecycle_capital_costs_bau).chain(bau_yearly).collect();
    let net: Vec<f64> = optimal.iter().zip(&bau).map(|(o, b)| o - b).collect();
    let discounted = |flows: &[f64]| -> Vec<f64> {
        flows.iter().enumerate().map(|(y, v)| round_to(v / (1.0 + discount).powi(y as i32), 2)).collect()
    };
    let rounded: Vec<f64> = optimal.iter().map(|v| round_to(*v, 2)).collect();
    ProForma {
        offtaker_discounted_annual_free_cashflows: discounted(&rounded),
        offtaker_annual_free_cashflows: rounded,
        offtaker_annual_free_cashflows_bau: bau.iter().map(|v| round_to(*v, 2)).collect(),
        offtaker_discounted_annual_free_cashflows_bau: discounted(&bau),
        simple_payback_years: simple_payback_years(&net),
        internal_rate_of_return: irr(&net),
        capital_costs_after_non_discounted_incentives_without_macrs: owner.without_macrs,
        capital_costs_after_non_discounted_incentives: owner.with_macrs,
    }
}

/// What third-party ownership adds to the pro forma's inputs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ThirdParty {
    pub owner_discount_rate_fraction: f64,
    pub owner_tax_rate_fraction: f64,
    /// Year-one O&M the developer pays ($): the new capacity's (the existing assets' O&M stays
    /// with the offtaker, the `bau` costs' `om`).
    pub developer_om: f64,
}

/// The third-party pro forma: `pro_forma` holds the offtaker's flows (before tax; the
/// discounted ones are left empty, as the service leaves them), the developer's payback and IRR
/// and its capital after incentives.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DeveloperProForma {
    pub pro_forma: ProForma,
    /// Years 0..=N with the offtaker's payments after the developer's tax, rounded to cents.
    pub developer_annual_free_cashflows: Vec<f64>,
    /// −NPV at the owner's discount rate of the developer's flows without the payments.
    pub net_present_cost: f64,
    pub annualized_payment_to_third_party: f64,
}

/// The developer's pro forma (REopt.jl `proforma_results`, third-party branch): the owner's
/// flows (`owner_flows`) at the owner's rates with the developer's O&M as the only operating
/// cost; their net present cost `NPC = −Σ_y flow_y/(1+d_w)^y`; the payment that recovers it,
/// `NPC · d_w(1+d_w)^N/((1+d_w)^N − 1) / (1 − τ_w)` a year (`NPC/N/(1 − τ_w)` at d_w = 0),
/// received after tax in years 1..N; the offtaker's flows before tax:
///
/// ```text
/// offtaker year y = −(bill − export)·(1+e_elec)^y − fuel·(1+e_fuel)^y − om_bau·(1+e_om)^y − payment
/// ```
/// (BAU: its own bill, export and fuel, no payment; year 0 is 0 in both).
pub fn developer_pro_forma(inputs: &CashFlowInputs, third_party: &ThirdParty) -> DeveloperProForma {
    let years = inputs.analysis_years as usize;
    let (tax, discount) = (third_party.owner_tax_rate_fraction, third_party.owner_discount_rate_fraction);
    let om = escalated(-third_party.developer_om, inputs.om_cost_escalation_rate_fraction, years);
    let owner = owner_flows(inputs, om, tax, discount);
    let net_present_cost = -npv(&owner.flows, discount);
    let recovery = if discount != 0.0 {
        let growth = (1.0 + discount).powi(years as i32);
        discount * growth / (growth - 1.0)
    } else {
        1.0 / years.max(1) as f64
    };
    let payment = net_present_cost * recovery / (1.0 - tax);
    let developer: Vec<f64> =
        owner.flows.iter().enumerate().map(|(y, flow)| if y == 0 { *flow } else { flow + payment * (1.0 - tax) }).collect();
    let offtaker = |costs: &YearOneCosts, payment: f64| -> Vec<f64> {
        let with_existing_om = YearOneCosts { om: inputs.bau.om, ..*costs };
        std::iter::once(0.0).chain(operating(inputs, &with_existing_om, years).into_iter().map(|v| v - payment)).collect()
    };
    DeveloperProForma {
        pro_forma: ProForma {
            offtaker_annual_free_cashflows: offtaker(&inputs.optimal, payment),
            offtaker_annual_free_cashflows_bau: offtaker(&inputs.bau, 0.0),
            offtaker_discounted_annual_free_cashflows: Vec::new(),
            offtaker_discounted_annual_free_cashflows_bau: Vec::new(),
            simple_payback_years: simple_payback_years(&developer),
            internal_rate_of_return: irr(&developer),
            capital_costs_after_non_discounted_incentives_without_macrs: owner.without_macrs,
            capital_costs_after_non_discounted_incentives: owner.with_macrs,
        },
        developer_annual_free_cashflows: developer.iter().map(|v| round_to(*v, 2)).collect(),
        net_present_cost,
        annualized_payment_to_third_party: payment,
    }
}

/// Net present value of flows in years 0, 1, …: `Σ_y flow_y / (1 + rate)^y` (REopt.jl `npv`).
pub fn npv(cash_flows: &[f64], rate: f64) -> f64 {
    cash_flows.iter().enumerate().map(|(y, v)| v / (1.0 + rate).powi(y as i32)).sum()
}

/// Internal rate of return, rounded to 3 decimals (REopt.jl `irr`): 0 when the undiscounted sum
/// is negative or when no rate in [0, 0.99] zeroes the NPV; otherwise that rate, found by
/// bisection (the service brackets the root in the same interval).
pub fn irr(cash_flows: &[f64]) -> f64 {
    const HIGHEST: f64 = 0.99;
    let at_zero = npv(cash_flows, 0.0);
    if at_zero < 0.0 {
        return 0.0;
    }
    let at_highest = npv(cash_flows, HIGHEST);
    if at_zero == 0.0 {
        return 0.0;
    }
    if at_highest == 0.0 {
        return HIGHEST;
    }
    if at_zero.signum() == at_highest.signum() {
        return 0.0;
    }
    let (mut low, mut high) = (0.0, HIGHEST);
    for _ in 0..200 {
        let middle = 0.5 * (low + high);
        if npv(cash_flows, middle).signum() == at_zero.signum() {
            low = middle;
        } else {
            high = middle;
        }
    }
    round_to(0.5 * (low + high), 3)
}

/// Simple payback (years, 2 decimals) of net flows in years 0..=n (REopt.jl
/// `proforma_results`): 0 when the cumulative flow is still negative at the end; otherwise,
/// over years 1..n−1, a whole year for each year whose cumulative flow is negative and, in the
/// year it turns positive, the fraction `−cumulative_{y−1} / flow_y`. (As the service, the last
/// year is not examined.)
pub fn simple_payback_years(net: &[f64]) -> f64 {
    let cumulative: Vec<f64> = net.iter().scan(0.0, |sum, v| {
        *sum += v;
        Some(*sum)
    }).collect();
    if cumulative.last().is_none_or(|last| *last < 0.0) {
        return 0.0;
    }
    let years = net.len() - 1;
    let mut payback = 0.0;
    for y in 1..years {
        if cumulative[y] < 0.0 {
            payback += 1.0;
        } else if cumulative[y - 1] < 0.0 && cumulative[y] > 0.0 {
            payback -= cumulative[y - 1] / net[y];
        }
    }
    round_to(payback, 2)
}

/// What a technology's levelized cost of energy reads.
#[derive(Debug, Clone, PartialEq)]
pub struct LcoeInputs<'a> {
    pub new_kw: f64,
    /// Up-front cost of the new capacity before incentives ($).
    pub capital_cost: f64,
    pub om_cost_per_kw: f64,
    pub incentives: &'a PvIncentives,
    pub production_incentive: &'a ProductionIncentive,
    /// The energy the service divides by (kWh/year: PV's year-one production, Wind's
    /// levelized annual production).
    pub annual_kwh: f64,
    pub degradation_fraction: f64,
    pub analysis_years: u32,
    pub discount_rate_fraction: f64,
    pub tax_rate_fraction: f64,
    pub om_cost_escalation_rate_fraction: f64,
}

/// Levelized cost of energy ($/kWh, 4 decimals; REopt.jl `calculate_lcoe`), 0 without new
/// capacity:
///
/// ```text
/// lcoe = (capex + NPV(om) − NPV(pbi) − cbi − ibi − ITC/(1+d) − NPV(tax · (om_y + depreciation_y)))
///        / Σ_y kWh · (1−g)^(y−1) / (1+d)^y
/// ```
/// with `om_y = kW · om · (1+e_om)^y` and the ITC on the capital less every incentive (the
/// federal rebate included, unlike the pro forma). The production incentive follows the
/// service's loop literally: for y in 1..years with y < `production_incentive_years` (and a
/// positive `max_benefit`), `g ← (1 − g)^y`, `pbi_y = min(rate · kWh · g, max_benefit · g)`
/// discounted by `(1+d)^(y+1)`; the `g` this leaves also degrades the energy below.
pub fn levelized_cost_of_energy(inputs: &LcoeInputs) -> f64 {
    if inputs.new_kw == 0.0 {
        return 0.0;
    }
    let years = inputs.analysis_years as usize;
    let d = inputs.discount_rate_fraction;
    let discount = |y: usize| (1.0 + d).powi(-(y as i32));
    let om = escalated(inputs.new_kw * inputs.om_cost_per_kw, inputs.om_cost_escalation_rate_fraction, years);
    let npv_om: f64 = om.iter().enumerate().map(|(i, v)| v * discount(i + 1)).sum();
    let lines = CapacityIncentives::new(inputs.capital_cost, inputs.new_kw, inputs.incentives);
    let itc_basis = lines.pro_forma_itc_basis(inputs.capital_cost) - lines.federal_cbi;
    let item = CapitalItem {
        itc_basis,
        itc_fraction: inputs.incentives.federal_itc_fraction,
        macrs_option_years: inputs.incentives.macrs_option_years,
        macrs_bonus_fraction: inputs.incentives.macrs_bonus_fraction,
        macrs_itc_reduction: inputs.incentives.macrs_itc_reduction,
        ..CapitalItem::default()
    };
    let npv_itc = item.federal_itc() * discount(1);
    let depreciation = item.depreciation(years);
    let npv_deductions: f64 =
        om.iter().zip(&depreciation).enumerate().map(|(i, (o, dep))| (o + dep) * inputs.tax_rate_fraction * discount(i + 1)).sum();
    let (npv_pbi, degradation) = lcoe_production_incentive(inputs, &discount);
    let npv_energy: f64 = (1..=years).map(|y| inputs.annual_kwh * discount(y) * (1.0 - degradation).powi(y as i32 - 1)).sum();
    round_to((inputs.capital_cost + npv_om - npv_pbi - lines.total() - npv_itc - npv_deductions) / npv_energy, 4)
}

/// The LCOE's production-incentive value and the degradation the service's loop leaves behind
/// (see `levelized_cost_of_energy`).
fn lcoe_production_incentive(inputs: &LcoeInputs, discount: &dyn Fn(usize) -> f64) -> (f64, f64) {
    let incentive = inputs.production_incentive;
    let mut degradation = inputs.degradation_fraction;
    let mut npv = 0.0;
    if incentive.max_benefit > 0.0 {
        for y in (1..=inputs.analysis_years as usize).filter(|&y| y < incentive.years as usize) {
            degradation = (1.0 - degradation).powi(y as i32);
            npv += (incentive.per_kwh * inputs.annual_kwh * degradation).min(incentive.max_benefit * degradation) * discount(y + 1);
        }
    }
    (npv, degradation)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_incentives() -> PvIncentives {
        PvIncentives {
            federal_itc_fraction: 0.0,
            macrs_option_years: 0,
            macrs_bonus_fraction: 0.0,
            macrs_itc_reduction: 0.0,
            state_ibi_fraction: 0.0,
            state_ibi_max: 1e10,
            utility_ibi_fraction: 0.0,
            utility_ibi_max: 1e10,
            federal_rebate_per_kw: 0.0,
            state_rebate_per_kw: 0.0,
            state_rebate_max: 1e10,
            utility_rebate_per_kw: 0.0,
            utility_rebate_max: 1e10,
        }
    }

    #[test]
    fn irr_of_a_known_stream() {
        // −100 then 60 and 60: 60/(1+r) + 60/(1+r)² = 100 gives r = 0.1306623…
        assert_eq!(irr(&[-100.0, 60.0, 60.0]), 0.131);
        // −1000 then 1100: exactly 10 %.
        assert_eq!(irr(&[-1000.0, 1100.0]), 0.1);
        // Never paid back: the service reports 0.
        assert_eq!(irr(&[-100.0, 10.0, 10.0]), 0.0);
        // A rate above 99 % is outside the service's bracket: 0.
        assert_eq!(irr(&[-1.0, 5.0]), 0.0);
    }

    #[test]
    fn payback_of_a_known_stream() {
        // Cumulative −100, −60, −20, +20: two whole years, then 20/40 of the third.
        assert_eq!(simple_payback_years(&[-100.0, 40.0, 40.0, 40.0, 40.0]), 2.5);
        // Still negative at the end: 0.
        assert_eq!(simple_payback_years(&[-100.0, 10.0, 10.0]), 0.0);
        // As the service, the last year is not examined: paid back only in year 3 of 3 gives 2.
        assert_eq!(simple_payback_years(&[-100.0, 30.0, 30.0, 50.0]), 2.0);
    }

    #[test]
    fn npv_discounts_from_year_zero() {
        assert!((npv(&[-100.0, 110.0], 0.1)).abs() < 1e-12);
        assert!((npv(&[1.0, 1.0, 1.0], 0.0) - 3.0).abs() < 1e-12);
    }

    #[test]
    fn depreciation_with_bonus_and_itc_reduction() {
        // 1000 $ basis, ITC 30 %, half of it off the basis: 850; bonus 60 % → 510 in year 1,
        // the remaining 340 on the 5-year schedule.
        let item = CapitalItem {
            itc_basis: 1000.0,
            itc_fraction: 0.3,
            macrs_option_years: 5,
            macrs_bonus_fraction: 0.6,
            macrs_itc_reduction: 0.5,
            ..CapitalItem::default()
        };
        let schedule = item.depreciation(20);
        assert!((schedule[0] - (510.0 + 340.0 * 0.2)).abs() < 1e-9);
        assert!((schedule[1] - 340.0 * 0.32).abs() < 1e-9);
        assert!((schedule.iter().sum::<f64>() - 850.0).abs() < 1e-9);
        // A 5-year analysis drops the schedule's sixth year and its own last year (the service's `i < years`).
        let short = item.depreciation(5);
        assert!((short[4]).abs() < 1e-12);
    }

    #[test]
    fn pro_forma_of_a_small_pv_case() {
        // 10 kW at 1000 $/kW, no tax, no escalation, no discount: year 0 is −10,000; the bill
        // falls from 3000 to 1000 $ and O&M is 100 $/year, so each year nets 1900 $.
        let item = CapitalItem::generation(10_000.0, 10.0, &no_incentives());
        let inputs = CashFlowInputs {
            analysis_years: 10,
            initial_capital_costs: 10_000.0,
            capital_items: vec![item],
            optimal: YearOneCosts { bill: 1000.0, om: 100.0, ..YearOneCosts::default() },
            bau: YearOneCosts { bill: 3000.0, ..YearOneCosts::default() },
            ..CashFlowInputs::default()
        };
        let result = offtaker_pro_forma(&inputs);
        assert_eq!(result.offtaker_annual_free_cashflows[0], -10_000.0);
        assert_eq!(result.offtaker_annual_free_cashflows[1], -1100.0);
        assert_eq!(result.offtaker_annual_free_cashflows_bau[1], -3000.0);
        // Cumulative net −10,000 + 1900·y: negative for 5 years, then 500/1900 of the sixth.
        assert_eq!(result.simple_payback_years, 5.26);
        assert!((npv(&[-10_000.0, 1900.0, 1900.0, 1900.0, 1900.0, 1900.0, 1900.0, 1900.0, 1900.0, 1900.0, 1900.0], result.internal_rate_of_return)).abs() < 50.0);
        // The X/Y payback the service's own test checks: capital after incentives / savings.
        assert!((result.capital_costs_after_non_discounted_incentives / 1900.0 - 5.26).abs() < 0.01);
    }

    #[test]
    fn pro_forma_taxes_replacement_and_itc() {
        // Tax 20 %, ITC 30 % on 1000 $, a 100 $ replacement in year 2, everything else zero.
        let item = CapitalItem { itc_basis: 1000.0, itc_fraction: 0.3, ..CapitalItem::default() };
        let inputs = CashFlowInputs {
            analysis_years: 3,
            offtaker_tax_rate_fraction: 0.2,
            offtaker_discount_rate_fraction: 0.1,
            initial_capital_costs: 1000.0,
            capital_items: vec![item],
            storage_replacement: OneTimeCost { cost: 100.0, year: 2 },
            ..CashFlowInputs::default()
        };
        let result = offtaker_pro_forma(&inputs);
        assert_eq!(result.offtaker_annual_free_cashflows, vec![-1000.0, 300.0, -80.0, 0.0]);
        assert_eq!(result.offtaker_discounted_annual_free_cashflows, vec![-1000.0, 272.73, -66.12, 0.0]);
        // 1000 − 300 + 80/1.1² = 766.12 (the replacement's present cost after tax).
        assert!((result.capital_costs_after_non_discounted_incentives_without_macrs - 766.1157).abs() < 1e-3);
    }

    #[test]
    fn developer_recovers_its_net_present_cost_at_its_discount_rate() {
        // 1000 $ up front, 10 $ O&M a year for 4 years, owner at 8 % and 20 % tax.
        let inputs = CashFlowInputs {
            analysis_years: 4,
            initial_capital_costs: 1000.0,
            capital_items: vec![CapitalItem { itc_basis: 1000.0, ..CapitalItem::default() }],
            optimal: YearOneCosts { bill: 500.0, ..YearOneCosts::default() },
            bau: YearOneCosts { bill: 900.0, om: 5.0, ..YearOneCosts::default() },
            ..CashFlowInputs::default()
        };
        let third_party = ThirdParty { owner_discount_rate_fraction: 0.08, owner_tax_rate_fraction: 0.2, developer_om: 10.0 };
        let result = developer_pro_forma(&inputs, &third_party);
        // NPC = 1000 + Σ_y 10·0.8/1.08^y.
        let npc = 1000.0 + (1..=4).map(|y| 8.0 / 1.08f64.powi(y)).sum::<f64>();
        assert!((result.net_present_cost - npc).abs() < 1e-9);
        let growth = 1.08f64.powi(4);
        assert!((result.annualized_payment_to_third_party - npc * 0.08 * growth / (growth - 1.0) / 0.8).abs() < 1e-9);
        // With the payments the developer's flows are worth nothing at its own rate: its IRR is it.
        assert!(npv(&result.developer_annual_free_cashflows, 0.08).abs() < 0.02);
        assert_eq!(result.pro_forma.internal_rate_of_return, 0.08);
        // The offtaker pays the bill, the existing O&M and the payment, before tax.
        let offtaker = &result.pro_forma.offtaker_annual_free_cashflows;
        assert!((offtaker[1] - (-500.0 - 5.0 - result.annualized_payment_to_third_party)).abs() < 1e-9);
        assert_eq!(result.pro_forma.offtaker_annual_free_cashflows_bau[1], -905.0);
        assert!(result.pro_forma.offtaker_discounted_annual_free_cashflows.is_empty());
    }

    #[test]
    fn production_incentive_series_caps_degrades_and_stops() {
        // 0.1 $/kWh on 1000 kWh capped at 60 $, degrading 10 % a year, for 2 of 4 years.
        let incentive = ProductionIncentive { per_kwh: 0.1, max_benefit: 60.0, years: 2, max_kw: 1e9 };
        let series = production_incentive_series(&incentive, 1000.0, 0.1, 4);
        assert_eq!(series.len(), 4);
        assert!((series[0] - 60.0).abs() < 1e-12 && (series[1] - 54.0).abs() < 1e-12);
        assert_eq!(&series[2..], &[0.0, 0.0]);
        // The incentive enters the flows after tax, in both cases.
        let inputs = CashFlowInputs {
            analysis_years: 4,
            offtaker_tax_rate_fraction: 0.5,
            production_incentives: series.clone(),
            production_incentives_bau: vec![10.0; 4],
            ..CashFlowInputs::default()
        };
        let result = offtaker_pro_forma(&inputs);
        assert_eq!(result.offtaker_annual_free_cashflows, vec![0.0, 30.0, 27.0, 0.0, 0.0]);
        assert_eq!(result.offtaker_annual_free_cashflows_bau, vec![0.0, 5.0, 5.0, 5.0, 5.0]);
    }

    #[test]
    fn lcoe_production_incentive_follows_the_service_loop() {
        // Degradation 0.5, 3 incentive years over 2 analysis years: the loop runs for y = 1, 2,
        // setting g = (1−0.5)^1 = 0.5, then g = (1−0.5)^2 = 0.25; the pbi of y = 1 is
        // 0.1 · 1000 · 0.5 discounted by 1.1², of y = 2 0.1 · 1000 · 0.25 by 1.1³, and the
        // energy then degrades at 0.25, not 0.5.
        let incentive = ProductionIncentive { per_kwh: 0.1, max_benefit: 1e9, years: 3, max_kw: 1e9 };
        let incentives = no_incentives();
        let inputs = LcoeInputs {
            new_kw: 1.0,
            capital_cost: 1000.0,
            om_cost_per_kw: 0.0,
            incentives: &incentives,
            production_incentive: &incentive,
            annual_kwh: 1000.0,
            degradation_fraction: 0.5,
            analysis_years: 2,
            discount_rate_fraction: 0.1,
            tax_rate_fraction: 0.0,
            om_cost_escalation_rate_fraction: 0.0,
        };
        let expected = (1000.0 - 50.0 / 1.21 - 25.0 / 1.331) / (1000.0 / 1.1 + 750.0 / 1.21);
        assert_eq!(levelized_cost_of_energy(&inputs), (expected * 1e4_f64).round() / 1e4);
    }

    #[test]
    fn lcoe_without_incentives_or_tax() {
        // 1 kW at 1000 $, 10 $/year O&M, 1000 kWh/year for 2 years at 10 %: the NPV of the
        // energy is 1000/1.1 + 1000/1.21 = 1735.54 kWh, of the O&M 17.36 $.
        let incentives = no_incentives();
        let production_incentive = ProductionIncentive { per_kwh: 0.0, max_benefit: 1e9, years: 1, max_kw: 1e9 };
        let inputs = LcoeInputs {
            new_kw: 1.0,
            capital_cost: 1000.0,
            om_cost_per_kw: 10.0,
            incentives: &incentives,
            production_incentive: &production_incentive,
            annual_kwh: 1000.0,
            degradation_fraction: 0.0,
            analysis_years: 2,
            discount_rate_fraction: 0.1,
            tax_rate_fraction: 0.0,
            om_cost_escalation_rate_fraction: 0.0,
        };
        let expected = (1000.0 + 10.0 / 1.1 + 10.0 / 1.21) / (1000.0 / 1.1 + 1000.0 / 1.21);
        assert_eq!(levelized_cost_of_energy(&inputs), (expected * 1e4_f64).round() / 1e4);
        assert_eq!(levelized_cost_of_energy(&LcoeInputs { new_kw: 0.0, ..inputs }), 0.0);
    }
}

//! The mixed-integer program: cost factors (present worth of every cost item), the variants
//! solved (`Case`), and a solver-neutral program (`LinearProgram`, with integer columns for the
//! service's binaries) with the index map (`Layout`) to read a solution back as sizes and
//! dispatch series.
//!
//! Notation: t = time step (T = 8760·n steps, Δ = 1/n h), m = month, i = PV array, k = tier,
//! N = analysis years, d_o/d_w = offtaker/owner discount rates, τ_o/τ_w = their tax rates,
//! e_e/e_om = electricity and O&M escalation, u = pwf_e·(1 − τ_o) (utility cost factor).
//!
//! Present-worth factors (see `finance`):
//! - pwf_e  = Σ_{y=1..N} ((1+e_e)/(1+d_o))^y     — year-one utility costs and export credits
//! - pwf_om = Σ_{y=1..N} ((1+e_om)/(1+d_w))^y    — year-one O&M costs
//! - lvl_i  = levelization factor of array i with degradation g_i (production · lvl = average year)
//! - npc(·) = effective capital cost per unit after ITC, MACRS, rebates and replacements
//!
//! Variables (all ≥ 0; kW for flows, kWh for energy):
//! - PV array i: new capacity `new_i` = Σ_k `seg_ik` (cost-curve pieces, 0 ≤ seg_ik ≤ width).
//!   The arrays share one set of flows per step (their export and curtailment flags agree):
//!   `pv_load`, `pv_storage`, `pv_nem`, `pv_whl`, `pv_exc`.
//! - Grid: per step `grid_storage`; with K > 1 energy tiers, `tier_k[t]` for k = 1..K−1 (the
//!   purchase in tier 0 is what is left).
//! - Storage: `kw`, `kwh`; per step `discharge` (to load) and `soc` (kWh at the end of the step);
//!   `soc_start` when the initial state of charge is optimized.
//! - Demand: one variable per tier of each billed peak: month (flat demand), time-of-use
//!   period, coincident peak period; lookback peaks; the minimum-charge adder.
//!
//! Two flows are substituted out to keep the LP small (they are the slacks of two rows):
//!
//! ```text
//! purchase_t   = load_t − pv_load − discharge + grid_storage                       (≥ 0)
//! pv_curtail_t = Σ_i pf_it·lvl_i·(existing_i + new_i) − pv_load − pv_storage − exports (≥ 0;
//!                = 0 when the PV cannot curtail)
//! ```
//!
//! Constraints, for every t (m(t) its month):
//!
//! ```text
//! PV:      pv_load + pv_storage + pv_nem + pv_whl + pv_exc ≤ Σ_i pf_it·lvl_i·(existing_i + new_i)
//! Load:    pv_load + discharge ≤ load_t
//! SOC:     soc_t = soc_{t−1} + Δ(η_c·pv_storage + η_c·grid_storage − discharge/η_d),
//!          soc_{−1} = soc_init·kwh (or soc_start = soc_{T−1} when optimized)
//! Power:   pv_storage + grid_storage + discharge ≤ kw
//! Energy:  soc_min·kwh ≤ soc_t ≤ kwh;  soc_{t−1} + Δ(η_c·pv_storage + η_c·grid_storage) ≤ kwh
//! Tiers:   Σ_{k≥1} tier_k[t] ≤ purchase_t;  Δ Σ_{t∈m} (tier-k purchase) ≤ limit_mk
//! Peaks:   purchase_t ≤ Σ_k peak_gk for every billed peak g whose steps hold t;  peak_gk ≤ limit_gk
//! ```
//!
//! and once: Σ_t pv_nem ≤ Σ_t purchase_t (net metering credits at most the energy bought),
//! min_dur·kw ≤ kwh ≤ max_dur·kw, size bounds, shared roof/land space, capex bounds, and:
//!
//! ```text
//! Lookback (range R):  look_m ≥ purchase_t for t in the R months before m;  Σ_k peak_mk ≥ p·look_m
//! Lookback (months L): look ≥ Σ_k peak_lk for l ∈ L;  Σ_k peak_mk ≥ p·look
//! Minimum charge:      adder ≥ min_annual − pwf_e·(energy + demand − exports + fixed)
//! ```
//!
//! (the minimum is compared with the lifecycle bill, as the service does).
//!
//! Objective (lifecycle cost, $ present value; `Costs` of the service):
//!
//! ```text
//!   Σ_ik npc_ik·seg_ik + pwf_om·(1−τ_w)·Σ_i om_i·(existing_i + new_i)
//! + (npc_kw + pwf_om·(1−τ_w)·f_om·c_kw)·kw + (npc_kwh + pwf_om·(1−τ_w)·f_om·c_kwh)·kwh
//! + [storage built with a cost constant] (npc_c + pwf_om·(1−τ_w)·f_om·c_c)
//! + u·( Δ Σ_t Σ_k r_kt·tier-k purchase + Σ_g Σ_k D_gk·peak_gk + 12·fixed + 0.999·adder/pwf_e
//!       − Δ Σ_t (nem_t·pv_nem + w_t·pv_whl + x_t·pv_exc) )
//! ```
//!
//! minus, when `add_soc_incentive`, the average state of charge Σ_t soc_t / T ($1 per kWh of
//! average charge; in the objective only, not in the lifecycle cost). The tier-0 purchase terms
//! become a constant (the bill without PV and storage) minus credits on pv_load and discharge.

use super::finance::{
    self, effective_cost, incentive_cost_segments, CostSegment, RegionIncentive, Replacement, TaxTreatment,
};
use super::model::{Model, Pv, Storage};
use microgrid::{MicrogridDispatch, MicrogridLayout};
use super::model::resilience_inputs::Generator;
use super::tariff::{TieredCharge, UNLIMITED_DEMAND_TIER_KW};

pub mod microgrid;

/// Tier limits at or above this are no limit at all (kWh per month, kW).
pub const NO_TIER_LIMIT: f64 = 1.0e9;
/// Relative (and absolute, kWh) margin by which the least use must pass a tier's limit for its
/// falling choice to count as decided.
const DECIDED_MARGIN: f64 = 1.0e-6;

/// Fuel at or above this is unlimited (the service's default `fuel_avail_gal` is 1e9).
pub const UNLIMITED_FUEL_GAL: f64 = 1.0e9;

/// Present-worth factors and per-unit present costs of one model.
#[derive(Debug, Clone, PartialEq)]
pub struct CostFactors {
    pub pwf_e: f64,
    pub pwf_om: f64,
    /// PV levelization factor of each array.
    pub levelization: Vec<f64>,
    /// (1 − τ_o): utility costs are tax deductible for the offtaker.
    pub offtaker_after_tax: f64,
    /// (1 − τ_w): O&M is tax deductible for the owner.
    pub owner_after_tax: f64,
    /// Cost curve of each array's new capacity: width (kW) and npc ($/kW) of each piece.
    pub pv_segments: Vec<Vec<PricedSegment>>,
    pub storage: Option<StorageCosts>,
    /// Σ_{y=1..N} ((1+e_fuel)/(1+d_o))^y: year-one generator fuel costs.
    pub pwf_fuel: f64,
    pub generator: Option<GeneratorCosts>,
    /// Off grid: present cost of the other capital costs after straight-line depreciation.
    pub offgrid_other_capital_after_depreciation: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeneratorCosts {
    /// Net present $/kW of new capacity (MACRS and replacement included; no incentives).
    pub net_present_cost_per_kw: f64,
    /// Present value after tax of the replacement per kW (inside the net present cost).
    pub replacement_present_cost_per_kw: f64,
    /// $ present value per kWh produced: fuel on the fuel curve's slope (after the offtaker's
    /// tax) and variable O&M (after the owner's tax).
    pub cost_per_kwh: f64,
    /// Gallons per kWh: the fuel curve's slope.
    pub gallons_per_kwh: f64,
    /// $ present value per hour on: the fuel curve's intercept (after the offtaker's tax).
    pub cost_per_hour_on: f64,
    /// Gallons per kWh with the intercept spread over the largest size: the LP relaxation of
    /// the on/off binary that the outage microgrids still use (`lp::microgrid`).
    pub relaxed_gallons_per_kwh: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PricedSegment {
    pub width_kw: f64,
    /// $/kW before any incentive (for initial capital costs).
    pub installed_cost_per_kw: f64,
    /// Net present $/kW after incentives, ITC and MACRS.
    pub net_present_cost_per_kw: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StorageCosts {
    pub net_present_cost_per_kw: f64,
    pub net_present_cost_per_kwh: f64,
    pub net_present_cost_constant: f64,
    /// Present value after tax of replacements per kW, per kWh and of the constant.
    pub replacement_present_cost_per_kw: f64,
    pub replacement_present_cost_per_kwh: f64,
    pub replacement_present_cost_constant: f64,
}

impl CostFactors {
    /// Computes every factor; fails only when incentives make a PV cost curve non-convex.
    pub fn new(model: &Model) -> Result<CostFactors, String> {
        let f = &model.financial;
        let pwf_e = finance::present_worth_factor(f.analysis_years, f.elec_cost_escalation_rate_fraction, f.offtaker_discount_rate_fraction);
        let pwf_om = finance::present_worth_factor(f.analysis_years, f.om_cost_escalation_rate_fraction, f.owner_discount_rate_fraction);
        let levelization = model
            .pvs
            .iter()
            .map(|pv| {
                finance::levelization_factor(f.analysis_years, f.elec_cost_escalation_rate_fraction, f.offtaker_discount_rate_fraction, pv.degradation_fraction)
            })
            .collect();
        let pv_segments = model.pvs.iter().map(|pv| pv_cost_curve(model, pv)).collect::<Result<_, _>>()?;
        Ok(CostFactors {
            pwf_e,
            pwf_om,
            levelization,
            offtaker_after_tax: 1.0 - f.offtaker_tax_rate_fraction,
            owner_after_tax: 1.0 - f.owner_tax_rate_fraction,
            pv_segments,
            storage: model.storage.as_ref().map(|s| storage_costs(model, s)),
            pwf_fuel: finance::present_worth_factor(
                f.analysis_years,
                f.generator_fuel_cost_escalation_rate_fraction,
                f.offtaker_discount_rate_fraction,
            ),
            generator: model.generator.as_ref().map(|g| generator_costs(model, g)),
            offgrid_other_capital_after_depreciation: model.off_grid.as_ref().map_or(0.0, |o| {
                o.other_capital_costs
                    - finance::straight_line_depreciation_savings(
                        o.other_capital_costs,
                        f.owner_discount_rate_fraction,
                        f.analysis_years,
                        f.owner_tax_rate_fraction,
                    )
            }),
        })
    }

    /// $ present value per $ of year-one utility cost, after tax.
    pub fn utility_factor(&self) -> f64 {
        self.pwf_e * self.offtaker_after_tax
    }

    /// $ present value per $ of year-one O&M cost, after tax.
    pub fn om_factor(&self) -> f64 {
        self.pwf_om * self.owner_after_tax
    }
}

fn tax_treatment(model: &Model, itc: f64, macrs_years: u32, bonus: f64, itc_reduction: f64) -> TaxTreatment {
    TaxTreatment {
        owner_discount_rate: model.financial.owner_discount_rate_fraction,
        owner_tax_rate: model.financial.owner_tax_rate_fraction,
        itc_fraction: itc,
        macrs_option_years: macrs_years,
        macrs_bonus_fraction: bonus,
        macrs_itc_reduction: itc_reduction,
    }
}

/// PV cost curve: utility then state incentives (capped ones add pieces), then the ITC, MACRS
/// and federal rebate on each piece's slope.
fn pv_cost_curve(model: &Model, pv: &Pv) -> Result<Vec<PricedSegment>, String> {
    let i = &pv.incentives;
    let utility = RegionIncentive {
        fraction: i.utility_ibi_fraction,
        fraction_cap: i.utility_ibi_max,
        rebate_per_kw: i.utility_rebate_per_kw,
        rebate_cap: i.utility_rebate_max,
    };
    let state = RegionIncentive {
        fraction: i.state_ibi_fraction,
        fraction_cap: i.state_ibi_max,
        rebate_per_kw: i.state_rebate_per_kw,
        rebate_cap: i.state_rebate_max,
    };
    let tax = tax_treatment(model, i.federal_itc_fraction, i.macrs_option_years, i.macrs_bonus_fraction, i.macrs_itc_reduction);
    let pieces: Vec<CostSegment> = incentive_cost_segments(pv.installed_cost_per_kw, &utility, &state, pv.max_new_kw);
    let priced: Vec<PricedSegment> = pieces
        .iter()
        .map(|piece| PricedSegment {
            width_kw: piece.width_kw,
            installed_cost_per_kw: pv.installed_cost_per_kw,
            net_present_cost_per_kw: effective_cost(piece.pre_federal_cost_per_kw, None, &tax, i.federal_rebate_per_kw),
        })
        .collect();
    if priced.windows(2).any(|w| w[1].net_present_cost_per_kw < w[0].net_present_cost_per_kw - 1e-9) {
        return Err(format!(
            "PV {}: incentive caps with these tax inputs give a non-convex cost curve, which a linear program cannot represent.",
            pv.name
        ));
    }
    Ok(priced)
}

/// The generator's capital cost per kW (MACRS and replacement, no incentives, as the service
/// prices it) and its cost per kWh produced.
fn generator_costs(model: &Model, g: &Generator) -> GeneratorCosts {
    let f = &model.financial;
    let tax = tax_treatment(model, 0.0, g.macrs_option_years, g.macrs_bonus_fraction, g.macrs_itc_reduction);
    let replacement = (g.replacement_year < f.analysis_years).then_some(Replacement { cost: g.replace_cost_per_kw, year: g.replacement_year });
    let pwf_fuel = finance::present_worth_factor(f.analysis_years, f.generator_fuel_cost_escalation_rate_fraction, f.offtaker_discount_rate_fraction);
    let pwf_om = finance::present_worth_factor(f.analysis_years, f.om_cost_escalation_rate_fraction, f.owner_discount_rate_fraction);
    let fuel_factor = pwf_fuel * (1.0 - f.offtaker_tax_rate_fraction) * g.fuel_cost_per_gallon;
    GeneratorCosts {
        net_present_cost_per_kw: effective_cost(g.installed_cost_per_kw, replacement, &tax, 0.0),
        replacement_present_cost_per_kw: replacement
            .map_or(0.0, |r| r.cost * (1.0 - tax.owner_tax_rate) / (1.0 + tax.owner_discount_rate).powi(r.year as i32)),
        cost_per_kwh: fuel_factor * g.fuel_slope_gal_per_kwh + pwf_om * (1.0 - f.owner_tax_rate_fraction) * g.om_cost_per_kwh,
        gallons_per_kwh: g.fuel_slope_gal_per_kwh,
        cost_per_hour_on: fuel_factor * g.fuel_intercept_gal_per_hour,
        relaxed_gallons_per_kwh: g.fuel_slope_gal_per_kwh + g.fuel_intercept_gal_per_hour / g.max_total_kw().max(1e-9),
    }
}

fn storage_costs(model: &Model, s: &Storage) -> StorageCosts {
    let tax = tax_treatment(model, s.total_itc_fraction, s.macrs_option_years, s.macrs_bonus_fraction, s.macrs_itc_reduction);
    let years = model.financial.analysis_years;
    let replacement = |cost: f64, year: u32| (year < years).then_some(Replacement { cost, year });
    let replacement_pv = |r: Option<Replacement>| {
        r.map_or(0.0, |r| {
            r.cost * (1.0 - tax.owner_tax_rate) / (1.0 + tax.owner_discount_rate).powi(r.year as i32)
        })
    };
    let kw_replacement = replacement(s.replace_cost_per_kw, s.inverter_replacement_year);
    let kwh_replacement = replacement(s.replace_cost_per_kwh, s.battery_replacement_year);
    let constant_replacement = replacement(s.replace_cost_constant, s.cost_constant_replacement_year);
    StorageCosts {
        net_present_cost_per_kw: effective_cost(s.installed_cost_per_kw, kw_replacement, &tax, s.total_rebate_per_kw),
        net_present_cost_per_kwh: effective_cost(s.installed_cost_per_kwh, kwh_replacement, &tax, 0.0) - s.total_rebate_per_kwh,
        net_present_cost_constant: if s.has_cost_constant() {
            effective_cost(s.installed_cost_constant, constant_replacement, &tax, 0.0)
        } else {
            0.0
        },
        replacement_present_cost_per_kw: replacement_pv(kw_replacement),
        replacement_present_cost_per_kwh: replacement_pv(kwh_replacement),
        replacement_present_cost_constant: if s.has_cost_constant() { replacement_pv(constant_replacement) } else { 0.0 },
    }
}

/// How a technology's capacity (the renewable arrays, the generator) enters a case.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeChoice {
    /// Not in this case.
    Absent,
    /// Existing capacity only (business as usual).
    ExistingOnly,
    /// New capacity is sized.
    Sized,
}

/// Which export bins carry value in a case.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ExportBins {
    /// Net metering at 0.999 × the retail rate.
    pub nem: bool,
    /// Wholesale at `wholesale_rate`.
    pub whl: bool,
    /// Beyond the net-metering limit at `export_rate_beyond_net_metering_limit`.
    pub exc: bool,
}

/// One linear variant of the scenario. The service's two binary choices (net metering vs.
/// the interconnection limit, and paying the storage cost constant) are enumerated as cases.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub label: &'static str,
    pub pv: SizeChoice,
    pub generator: SizeChoice,
    /// The business-as-usual conventions for outages: in the deterministic outage only the
    /// first `bau_outage_served_steps` steps serve the critical load (what the existing
    /// capacity can carry, the rest is dropped), and no outage step must be served in full.
    pub bau: bool,
    pub bau_outage_served_steps: usize,
    /// Which technologies join the outage microgrid of the multiple-outage form.
    pub microgrid: MicrogridMembers,
    /// Storage is sized in this case (its cost constant is paid when it has one).
    pub storage: bool,
    pub exports: ExportBins,
    /// Upper limit on total PV kW (existing + new) from the net-metering or interconnection limit.
    pub pv_total_cap_kw: Option<f64>,
}

/// The technologies in the outage microgrid (each pays its upgrade cost when in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MicrogridMembers {
    pub renewables: bool,
    pub generator: bool,
    pub storage: bool,
}

/// A row `Σ a_j x_j (= | ≤) rhs`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RowKind {
    Equal,
    LessOrEqual,
}

/// minimize c·x + constant subject to rows and lower ≤ x ≤ upper (±∞ allowed).
#[derive(Debug, Clone, Default)]
pub struct LinearProgram {
    pub objective: Vec<f64>,
    pub objective_constant: f64,
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    /// Row-major coefficients: `row_start[i]..row_start[i+1]` index `columns`/`values`.
    pub row_start: Vec<usize>,
    pub columns: Vec<usize>,
    pub values: Vec<f64>,
    pub kinds: Vec<RowKind>,
    pub rhs: Vec<f64>,
    /// Whether each variable is integer (the service's binaries, bounded to 0..=1).
    pub integer: Vec<bool>,
}

impl LinearProgram {
    pub(super) fn variable(&mut self, cost: f64, lower: f64, upper: f64) -> usize {
        self.objective.push(cost);
        self.lower.push(lower);
        self.upper.push(upper);
        self.integer.push(false);
        self.objective.len() - 1
    }

    /// A 0/1 variable.
    pub(super) fn binary(&mut self, cost: f64) -> usize {
        let column = self.variable(cost, 0.0, 1.0);
        self.integer[column] = true;
        column
    }

    /// Whether the program has integer variables (and so needs the MILP solver).
    pub fn is_mixed_integer(&self) -> bool {
        self.integer.iter().any(|&integer| integer)
    }

    /// `count` consecutive variables with per-index costs; returns the first index.
    pub(super) fn series(&mut self, count: usize, cost: impl Fn(usize) -> f64) -> usize {
        let start = self.objective.len();
        for t in 0..count {
            self.variable(cost(t), 0.0, f64::INFINITY);
        }
        start
    }

    /// Adds a row (coefficients of repeated columns are added up).
    pub fn row(&mut self, terms: &[(usize, f64)], kind: RowKind, rhs: f64) {
        if self.row_start.is_empty() {
            self.row_start.push(0);
        }
        for (column, value) in merge_terms(terms.to_vec()).into_iter().filter(|(_, v)| *v != 0.0) {
            self.columns.push(column);
            self.values.push(value);
        }
        self.row_start.push(self.columns.len());
        self.kinds.push(kind);
        self.rhs.push(rhs);
    }

    pub fn variable_count(&self) -> usize {
        self.objective.len()
    }

    pub fn row_count(&self) -> usize {
        self.kinds.len()
    }

    /// Objective value of a point, constant included.
    pub fn objective_value(&self, x: &[f64]) -> f64 {
        self.objective_constant + self.objective.iter().zip(x).map(|(c, v)| c * v).sum::<f64>()
    }
}

/// A linear expression `Σ a_j x_j + constant`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expression {
    pub terms: Vec<(usize, f64)>,
    pub constant: f64,
}

impl Expression {
    pub fn value(&self, x: &[f64]) -> f64 {
        self.constant + self.terms.iter().map(|&(j, a)| a * x[j]).sum::<f64>()
    }
}

/// A billed peak: one variable per tier, each at most its tier's width.
#[derive(Debug, Clone, PartialEq)]
pub struct PeakVariables {
    pub tiers: Vec<usize>,
}

/// Where each quantity lives in the LP's variable vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub steps: usize,
    /// New capacity of each array (None when the case does not size PV).
    pub pv_new: Vec<Option<usize>>,
    pub pv_segments: Vec<Vec<usize>>,
    pub pv_load: Option<usize>,
    pub pv_storage: Option<usize>,
    pub pv_nem: Option<usize>,
    pub pv_whl: Option<usize>,
    pub pv_exc: Option<usize>,
    pub grid_storage: Option<usize>,
    pub storage_kw: Option<usize>,
    pub storage_kwh: Option<usize>,
    pub discharge: Option<usize>,
    pub soc: Option<usize>,
    pub soc_start: Option<usize>,
    /// First variable of each energy tier series k = 1..K (tier 0 is the remainder).
    pub energy_tiers: Vec<usize>,
    /// Monthly billed peaks (12, or none).
    pub monthly_peaks: Vec<PeakVariables>,
    /// One per time-of-use demand period of the tariff.
    pub tou_peaks: Vec<PeakVariables>,
    pub coincident_peaks: Vec<usize>,
    pub min_charge_adder: Option<usize>,
    /// New generator kW (None when the case does not size it).
    pub generator_new: Option<usize>,
    /// Generator to load and to storage per step (None where it may not run).
    pub generator_load: Vec<Option<usize>>,
    pub generator_storage: Vec<Option<usize>>,
    /// Generator output curtailed per step (run at its turndown above what is used; only with
    /// the on/off binary).
    pub generator_curtail: Vec<Option<usize>>,
    /// Off grid: the battery's operating reserve per step.
    pub battery_reserve: Option<usize>,
    /// The outage microgrids of the multiple-outage form.
    pub microgrid: Option<MicrogridLayout>,
}

/// Sizes and dispatch read from a solution vector (kW, kWh; series per step).
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatch {
    /// New kW of each array.
    pub pv_new_kw: Vec<f64>,
    pub pv_segment_kw: Vec<Vec<f64>>,
    /// Output of each array per step (kW, levelized: the average year's output).
    pub pv_production_by_array: Vec<Vec<f64>>,
    /// All arrays together per step.
    pub pv_production: Vec<f64>,
    pub pv_load: Vec<f64>,
    pub pv_storage: Vec<f64>,
    pub pv_nem: Vec<f64>,
    pub pv_whl: Vec<f64>,
    pub pv_exc: Vec<f64>,
    pub pv_curtail: Vec<f64>,
    pub grid_load: Vec<f64>,
    pub grid_storage: Vec<f64>,
    /// Grid purchases per energy tier and step (`[tier][t]`).
    pub grid_by_tier: Vec<Vec<f64>>,
    pub storage_kw: f64,
    pub storage_kwh: f64,
    pub discharge: Vec<f64>,
    /// kWh at the end of each step.
    pub soc_kwh: Vec<f64>,
    /// kWh before the first step.
    pub soc_start_kwh: f64,
    /// Billed kW per tier of each monthly peak, time-of-use period and coincident peak period.
    pub monthly_peaks_kw: Vec<Vec<f64>>,
    pub tou_peaks_kw: Vec<Vec<f64>>,
    pub coincident_peaks_kw: Vec<f64>,
    /// The minimum-charge adder ($ present value).
    pub min_charge_adder: f64,
    /// Generator: total kW (existing + new), new kW, to load and to storage per step.
    pub generator_kw: f64,
    pub generator_new_kw: f64,
    pub generator_load: Vec<f64>,
    pub generator_storage: Vec<f64>,
    pub generator_curtail: Vec<f64>,
    /// The load each step had to serve: the site load with the grid, the critical load (or
    /// the part the business-as-usual case can carry) without it.
    pub load_target: Vec<f64>,
    /// Off grid: the battery's operating reserve per step.
    pub battery_reserve: Vec<f64>,
    pub microgrid: Option<MicrogridDispatch>,
}

impl Dispatch {
    /// Grid purchases (to load and to storage) per step.
    pub fn grid_purchase(&self, t: usize) -> f64 {
        self.grid_load[t] + self.grid_storage[t]
    }

    /// Load served on site (renewables, storage and generator) per step.
    pub fn onsite_to_load(&self, t: usize) -> f64 {
        self.pv_load[t] + self.discharge[t] + self.generator_load[t]
    }

    /// All PV exports per step.
    pub fn pv_export(&self, t: usize) -> f64 {
        self.pv_nem[t] + self.pv_whl[t] + self.pv_exc[t]
    }

    /// An array's share of the joint PV flows in a step (by its share of the production).
    pub fn array_share(&self, array: usize, t: usize) -> f64 {
        let total = self.pv_production[t];
        if total > 0.0 {
            self.pv_production_by_array[array][t] / total
        } else {
            0.0
        }
    }
}

impl Layout {
    /// Reads a solution, clipping the interior-point noise (values at or below `tolerance`
    /// become 0, row excesses are trimmed so every step balances exactly), and derives the
    /// substituted flows (grid to load, curtailment) from the rows whose slacks they are.
    pub fn dispatch(&self, x: &[f64], model: &Model, factors: &CostFactors, case: &Case, tolerance: f64) -> Dispatch {
        let clean = |v: f64| if v <= tolerance { 0.0 } else { v };
        let series = |start: Option<usize>| -> Vec<f64> {
            match start {
                Some(s) => x[s..s + self.steps].iter().map(|&v| clean(v)).collect(),
                None => vec![0.0; self.steps],
            }
        };
        let scalar = |index: Option<usize>| index.map_or(0.0, |i| clean(x[i]));
        let pv_new_kw: Vec<f64> = self.pv_new.iter().map(|&i| scalar(i)).collect();
        let pv_production_by_array: Vec<Vec<f64>> = model
            .pvs
            .iter()
            .enumerate()
            .map(|(i, pv)| {
                let total_kw = match case.pv {
                    SizeChoice::Sized | SizeChoice::ExistingOnly => pv.existing_kw + pv_new_kw[i],
                    SizeChoice::Absent => 0.0,
                };
                pv.production_factor.iter().map(|f| f * factors.levelization[i] * total_kw).collect()
            })
            .collect();
        let pv_production: Vec<f64> = (0..self.steps).map(|t| pv_production_by_array.iter().map(|p| p[t]).sum()).collect();
        let (mut pv_load, mut pv_storage, mut pv_nem, mut pv_whl, mut pv_exc) =
            (series(self.pv_load), series(self.pv_storage), series(self.pv_nem), series(self.pv_whl), series(self.pv_exc));
        let mut discharge = series(self.discharge);
        let sparse = |columns: &[Option<usize>]| -> Vec<f64> {
            if columns.is_empty() {
                vec![0.0; self.steps]
            } else {
                columns.iter().map(|&c| scalar(c)).collect()
            }
        };
        let mut generator_load = sparse(&self.generator_load);
        let generator_storage = sparse(&self.generator_storage);
        let generator_curtail = sparse(&self.generator_curtail);
        let load_target: Vec<f64> = (0..self.steps).map(|t| load_target(model, case, t)).collect();
        for t in 0..self.steps {
            // Row residuals of the interior point: PV uses ≤ production, on-site supply ≤ load.
            let uses = pv_load[t] + pv_storage[t] + pv_nem[t] + pv_whl[t] + pv_exc[t];
            trim(uses - pv_production[t], &mut [&mut pv_exc[t], &mut pv_whl[t], &mut pv_nem[t], &mut pv_storage[t], &mut pv_load[t]]);
            let supply = pv_load[t] + discharge[t] + generator_load[t];
            trim(supply - load_target[t], &mut [&mut pv_load[t], &mut generator_load[t], &mut discharge[t]]);
        }
        let pv_curtail = (0..self.steps)
            .map(|t| clean(pv_production[t] - pv_load[t] - pv_storage[t] - pv_nem[t] - pv_whl[t] - pv_exc[t]))
            .collect();
        let grid_load: Vec<f64> = (0..self.steps)
            .map(|t| if model.has_grid(t) { clean(load_target[t] - pv_load[t] - discharge[t] - generator_load[t]) } else { 0.0 })
            .collect();
        let grid_storage = series(self.grid_storage);
        let generator_new_kw = scalar(self.generator_new);
        let generator_kw = match (&model.generator, case.generator) {
            (Some(g), SizeChoice::Sized | SizeChoice::ExistingOnly) => g.existing_kw + generator_new_kw,
            _ => 0.0,
        };
        let mut upper_tiers: Vec<Vec<f64>> = self.energy_tiers.iter().map(|&start| series(Some(start))).collect();
        let mut tier_zero = Vec::with_capacity(self.steps);
        for t in 0..self.steps {
            let purchase = grid_load[t] + grid_storage[t];
            let mut in_upper: f64 = upper_tiers.iter().map(|tier| tier[t]).sum();
            if in_upper > purchase {
                let scale = if in_upper > 0.0 { purchase / in_upper } else { 0.0 };
                upper_tiers.iter_mut().for_each(|tier| tier[t] *= scale);
                in_upper = purchase;
            }
            tier_zero.push(purchase - in_upper);
        }
        let mut grid_by_tier = vec![tier_zero];
        grid_by_tier.extend(upper_tiers);
        let microgrid = self.microgrid.as_ref().map(|mg| {
            let array_kw: Vec<f64> = pv_production_by_array_kw(model, case, &pv_new_kw);
            mg.dispatch(x, model, factors, &array_kw, tolerance)
        });
        let peaks = |groups: &[PeakVariables]| -> Vec<Vec<f64>> { groups.iter().map(|g| g.tiers.iter().map(|&j| clean(x[j])).collect()).collect() };
        Dispatch {
            pv_new_kw,
            pv_segment_kw: self.pv_segments.iter().map(|segments| segments.iter().map(|&i| clean(x[i])).collect()).collect(),
            pv_production_by_array,
            pv_production,
            pv_load,
            pv_storage,
            pv_nem,
            pv_whl,
            pv_exc,
            pv_curtail,
            grid_load,
            grid_storage,
            grid_by_tier,
            storage_kw: scalar(self.storage_kw),
            storage_kwh: scalar(self.storage_kwh),
            discharge,
            soc_kwh: series(self.soc),
            soc_start_kwh: scalar(self.soc_start),
            monthly_peaks_kw: peaks(&self.monthly_peaks),
            tou_peaks_kw: peaks(&self.tou_peaks),
            coincident_peaks_kw: self.coincident_peaks.iter().map(|&j| clean(x[j])).collect(),
            min_charge_adder: scalar(self.min_charge_adder),
            generator_kw,
            generator_new_kw,
            generator_load,
            generator_storage,
            generator_curtail,
            load_target,
            battery_reserve: series(self.battery_reserve),
            microgrid,
        }
    }
}

/// Each renewable array's total kW in a case (existing plus new; 0 when the case has none).
pub fn pv_production_by_array_kw(model: &Model, case: &Case, pv_new_kw: &[f64]) -> Vec<f64> {
    model
        .pvs
        .iter()
        .zip(pv_new_kw)
        .map(|(pv, new)| match case.pv {
            SizeChoice::Sized | SizeChoice::ExistingOnly => pv.existing_kw + new,
            SizeChoice::Absent => 0.0,
        })
        .collect()
}

/// The load a step must serve in a case: the site load with the grid; without it the critical
/// load, in the business-as-usual case only for the steps its existing capacity carries.
pub fn load_target(model: &Model, case: &Case, t: usize) -> f64 {
    if model.has_grid(t) {
        return model.load_kw[t];
    }
    match model.single_outage {
        Some((first, _)) if case.bau && t >= first + case.bau_outage_served_steps => 0.0,
        _ => model.critical_load_kw[t],
    }
}

/// $ present value of the tier-0 energy a kW of on-site supply saves in step t (0 without the
/// grid: nothing is bought then).
fn energy_value(model: &Model, factors: &CostFactors, t: usize) -> f64 {
    if model.has_grid(t) {
        factors.utility_factor() * model.step_hours() * model.tariff.energy_rates[0][t]
    } else {
        0.0
    }
}

/// Removes `excess` (when positive) from the flows in order, none below zero.
fn trim(mut excess: f64, flows: &mut [&mut f64]) {
    for flow in flows.iter_mut() {
        if excess <= 0.0 {
            return;
        }
        let cut = excess.min(**flow);
        **flow -= cut;
        excess -= cut;
    }
}

/// The LP of one case, with the either-or choices of its falling tiers.
pub struct Program {
    pub lp: LinearProgram,
    pub layout: Layout,
}

/// Builds the LP of one case.
pub fn build(model: &Model, factors: &CostFactors, case: &Case) -> Program {
    let mut lp = LinearProgram::default();
    let steps = model.steps();
    let dt = model.step_hours();
    let utility = factors.utility_factor();
    let pv_exists = !model.pvs.is_empty() && case.pv != SizeChoice::Absent;
    let storage = model.storage.as_ref().filter(|_| case.storage);
    let rates = &model.tariff;
    // Tier-0 energy cost per kW of grid purchase in step t; on-site supply earns it back.
    let energy = |t: usize| energy_value(model, factors, t);
    lp.objective_constant += (0..steps).map(|t| energy(t) * model.load_kw[t]).sum::<f64>();
    lp.objective_constant += utility * 12.0 * rates.fixed_monthly_charge;
    lp.objective_constant += offgrid_constant_costs(model, factors);

    let (pv_new, pv_segments) = pv_size_variables(&mut lp, model, factors, case);
    let pv_load = pv_exists.then(|| lp.series(steps, |t| -energy(t)));
    let pv_storage = (pv_exists && storage.is_some()).then(|| lp.series(steps, |_| 0.0));
    let pv_nem = (pv_exists && case.exports.nem).then(|| lp.series(steps, |t| -utility * dt * rates.nem_rate[t]));
    let pv_whl = (pv_exists && case.exports.whl).then(|| lp.series(steps, |t| -utility * dt * rates.wholesale_rate[t]));
    let pv_exc = (pv_exists && case.exports.exc).then(|| lp.series(steps, |t| -utility * dt * rates.export_beyond_nem_rate[t]));
    let grid_storage = storage.filter(|s| s.can_grid_charge).map(|_| lp.series(steps, energy));
    for start in [pv_nem, pv_whl, pv_exc, grid_storage].into_iter().flatten() {
        (0..steps).filter(|&t| !model.has_grid(t)).for_each(|t| lp.upper[start + t] = 0.0);
    }

    let mut layout = Layout {
        steps,
        pv_new,
        pv_segments,
        pv_load,
        pv_storage,
        pv_nem,
        pv_whl,
        pv_exc,
        grid_storage,
        storage_kw: None,
        storage_kwh: None,
        discharge: None,
        soc: None,
        soc_start: None,
        energy_tiers: Vec::new(),
        monthly_peaks: Vec::new(),
        tou_peaks: Vec::new(),
        coincident_peaks: Vec::new(),
        min_charge_adder: None,
        generator_new: None,
        generator_load: Vec::new(),
        generator_storage: Vec::new(),
        generator_curtail: Vec::new(),
        battery_reserve: None,
        microgrid: None,
    };
    add_generator(&mut lp, &mut layout, model, factors, case);
    if let (Some(s), Some(costs)) = (storage, factors.storage.as_ref()) {
        add_storage(&mut lp, &mut layout, model, factors, s, costs);
    }
    add_pv_balance(&mut lp, &layout, model, factors, case);
    add_load_balance(&mut lp, &layout, model, case);
    add_operating_reserves(&mut lp, &mut layout, model, factors, case);
    layout.microgrid = microgrid::add(&mut lp, &layout, model, factors, case);
    add_energy_tiers(&mut lp, &mut layout, model, factors);
    add_demand(&mut lp, &mut layout, model, factors);
    add_lookback(&mut lp, &layout, model);
    add_net_metering_cap(&mut lp, &layout, model);
    add_pv_size_rows(&mut lp, &layout, model, case);
    add_capex_bounds(&mut lp, &layout, model, case);
    add_min_charge(&mut lp, &mut layout, model, factors);
    Program { lp, layout }
}

/// An upper bound on the grid purchase of step t: the load plus the storage's charging power.
fn max_purchase(layout: &Layout, model: &Model, t: usize) -> f64 {
    let charging = match (layout.grid_storage, &model.storage) {
        (Some(_), Some(s)) => s.max_kw,
        _ => 0.0,
    };
    model.load_kw[t] + charging
}

/// The bounds on the total use of a tiered charge that decide its falling choices in advance:
/// `least` and `most` (kWh in a month, or kW of a peak).
struct UseBounds {
    least: f64,
    most: f64,
}

/// The service's binary of a falling tier pair: the later (cheaper) tier may be used only when
/// the earlier one is full. With b ∈ {0, 1}: `later ≤ room·b` and `earlier ≥ limit·b`, where
/// room = the most the later tier can hold (its width, or what is left of `use_bounds.most`
/// after the `used_before` of the tiers up to and including the earlier one). A later tier with
/// no room is closed. When the least possible use exceeds `used_before`, the later tier is
/// used in every feasible point, so b = 1 is decided: the earlier tier is full and no binary is
/// made (a weak big-M relaxation of an hourly year costs HiGHS minutes where there is nothing to
/// choose).
fn falling_choice(lp: &mut LinearProgram, earlier: &Expression, limit: f64, later: &Expression, use_bounds: &UseBounds, used_before: f64, later_width: f64) {
    let room = later_width.min(use_bounds.most - used_before);
    if room <= 0.0 || limit <= 0.0 {
        later.terms.iter().for_each(|&(j, _)| lp.upper[j] = 0.0);
        return;
    }
    if use_bounds.least > used_before * (1.0 + DECIDED_MARGIN) + DECIDED_MARGIN {
        let terms: Vec<(usize, f64)> = earlier.terms.iter().map(|&(j, a)| (j, -a)).collect();
        lp.row(&terms, RowKind::LessOrEqual, earlier.constant - limit);
        return;
    }
    let open = lp.binary(0.0);
    let mut terms = later.terms.clone();
    terms.push((open, -room));
    lp.row(&terms, RowKind::LessOrEqual, -later.constant);
    let mut terms: Vec<(usize, f64)> = earlier.terms.iter().map(|&(j, a)| (j, -a)).collect();
    terms.push((open, limit));
    lp.row(&terms, RowKind::LessOrEqual, earlier.constant);
}

/// The variable part of `sign · purchase_t`, where purchase_t = load_t − pv_load − discharge −
/// generator_load + grid_storage: the supply with coefficient −sign, grid_storage with +sign.
/// Only steps with the grid have purchases.
fn purchase_terms(layout: &Layout, t: usize, sign: f64) -> impl Iterator<Item = (usize, f64)> + '_ {
    supply_terms(layout, t, -sign).chain(layout.grid_storage.map(move |g| (g + t, sign)))
}

/// `sign ·` the on-site supply to load in step t: pv_load + discharge + generator_load.
fn supply_terms(layout: &Layout, t: usize, sign: f64) -> impl Iterator<Item = (usize, f64)> + '_ {
    let series = [layout.pv_load, layout.discharge].into_iter().flatten().map(move |start| (start + t, sign));
    series.chain(layout.generator_load.get(t).copied().flatten().map(move |j| (j, sign)))
}

/// PV capacity of each array: `new_i` with its bounds and the priced pieces of its cost curve,
/// plus the O&M of the whole capacity (existing included) as objective terms.
fn pv_size_variables(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, case: &Case) -> (Vec<Option<usize>>, Vec<Vec<usize>>) {
    let mut news = Vec::new();
    let mut all_segments = Vec::new();
    for (i, pv) in model.pvs.iter().enumerate() {
        if case.pv == SizeChoice::Absent {
            news.push(None);
            all_segments.push(Vec::new());
            continue;
        }
        let om = factors.om_factor() * pv.om_cost_per_kw;
        lp.objective_constant += om * pv.existing_kw;
        if case.pv != SizeChoice::Sized {
            news.push(None);
            all_segments.push(Vec::new());
            continue;
        }
        let new = lp.variable(om, pv.min_new_kw, pv.max_new_kw);
        let segments: Vec<usize> =
            factors.pv_segments[i].iter().map(|segment| lp.variable(segment.net_present_cost_per_kw, 0.0, segment.width_kw)).collect();
        let mut terms = vec![(new, 1.0)];
        terms.extend(segments.iter().map(|&s| (s, -1.0)));
        lp.row(&terms, RowKind::Equal, 0.0);
        news.push(Some(new));
        all_segments.push(segments);
    }
    (news, all_segments)
}

/// The net-metering or interconnection cap on the arrays' total kW and the space they share.
fn add_pv_size_rows(lp: &mut LinearProgram, layout: &Layout, model: &Model, case: &Case) {
    let news: Vec<(usize, usize)> = layout.pv_new.iter().enumerate().filter_map(|(i, new)| new.map(|j| (i, j))).collect();
    if news.is_empty() {
        return;
    }
    if let Some(cap) = case.pv_total_cap_kw {
        let existing: f64 = model.pvs.iter().map(|pv| pv.existing_kw).sum();
        let terms: Vec<(usize, f64)> = news.iter().map(|&(_, j)| (j, 1.0)).collect();
        lp.row(&terms, RowKind::LessOrEqual, cap - existing);
    }
    for limit in &model.pv_space_limits {
        let terms: Vec<(usize, f64)> = news.iter().filter(|(i, _)| limit.arrays.contains(i)).map(|&(_, j)| (j, 1.0)).collect();
        lp.row(&terms, RowKind::LessOrEqual, limit.max_new_kw);
    }
}

fn add_storage(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors, s: &Storage, costs: &StorageCosts) {
    let steps = model.steps();
    let dt = model.step_hours();
    let energy = |t: usize| energy_value(model, factors, t);
    let om = factors.om_factor() * s.om_cost_fraction_of_installed_cost;
    let kw = lp.variable(costs.net_present_cost_per_kw + om * s.installed_cost_per_kw, s.min_kw, s.max_kw);
    let kwh = lp.variable(costs.net_present_cost_per_kwh + om * s.installed_cost_per_kwh, s.min_kwh, s.max_kwh);
    if s.has_cost_constant() {
        lp.objective_constant += costs.net_present_cost_constant + om * s.installed_cost_constant;
    }
    let incentive = if model.settings.add_soc_incentive { -1.0 / steps as f64 } else { 0.0 };
    let discharge = lp.series(steps, |t| -energy(t));
    // soc ≥ soc_min·kwh ≥ 0 already, so soc needs no bound of its own.
    let soc = lp.series(steps, |_| incentive);
    for t in 0..steps {
        lp.lower[soc + t] = f64::NEG_INFINITY;
    }
    let soc_start = s.optimize_soc_init_fraction.then(|| lp.variable(0.0, 0.0, f64::INFINITY));
    layout.storage_kw = Some(kw);
    layout.storage_kwh = Some(kwh);
    layout.discharge = Some(discharge);
    layout.soc = Some(soc);
    layout.soc_start = soc_start;

    lp.row(&[(kwh, 1.0), (kw, -s.max_duration_hours)], RowKind::LessOrEqual, 0.0);
    lp.row(&[(kw, s.min_duration_hours), (kwh, -1.0)], RowKind::LessOrEqual, 0.0);
    if let Some(start) = soc_start {
        lp.row(&[(start, 1.0), (soc + steps - 1, -1.0)], RowKind::Equal, 0.0);
    }
    let (eta_c, eta_d) = (s.charge_efficiency(), s.discharge_efficiency());
    for t in 0..steps {
        // Charging terms Δ(η_c·pv_storage + η_c·grid_storage) and the previous state of charge.
        let mut charge: Vec<(usize, f64)> = Vec::with_capacity(2);
        if let Some(p) = layout.pv_storage {
            charge.push((p + t, dt * eta_c));
        }
        if let Some(g) = layout.grid_storage {
            charge.push((g + t, dt * eta_c));
        }
        if let Some(g) = layout.generator_storage.get(t).copied().flatten() {
            charge.push((g, dt * eta_c));
        }
        let previous: (usize, f64) = match (t, soc_start) {
            (0, Some(start)) => (start, 1.0),
            (0, None) => (kwh, s.soc_init_fraction),
            _ => (soc + t - 1, 1.0),
        };
        // soc_t − previous − charge + Δ·discharge/η_d = 0
        let mut balance = vec![(soc + t, 1.0), (previous.0, -previous.1), (discharge + t, dt / eta_d)];
        balance.extend(charge.iter().map(|&(i, a)| (i, -a)));
        lp.row(&balance, RowKind::Equal, 0.0);
        // previous + charge − kwh ≤ 0 (the storage can hold what it takes in within the step)
        let mut headroom = vec![previous, (kwh, -1.0)];
        headroom.extend(charge.iter().copied());
        lp.row(&headroom, RowKind::LessOrEqual, 0.0);
        // pv_storage + grid_storage + discharge − kw ≤ 0
        let mut power = vec![(discharge + t, 1.0), (kw, -1.0)];
        power.extend(layout.pv_storage.map(|p| (p + t, 1.0)));
        power.extend(layout.grid_storage.map(|g| (g + t, 1.0)));
        power.extend(layout.generator_storage.get(t).copied().flatten().map(|g| (g, 1.0)));
        lp.row(&power, RowKind::LessOrEqual, 0.0);
        lp.row(&[(soc + t, 1.0), (kwh, -1.0)], RowKind::LessOrEqual, 0.0);
        lp.row(&[(kwh, s.soc_min_fraction), (soc + t, -1.0)], RowKind::LessOrEqual, 0.0);
    }
}

/// Adds up coefficients of repeated columns (the first step's headroom row names kwh twice).
fn merge_terms(mut terms: Vec<(usize, f64)>) -> Vec<(usize, f64)> {
    terms.sort_by_key(|&(column, _)| column);
    let mut merged: Vec<(usize, f64)> = Vec::with_capacity(terms.len());
    for (column, value) in terms {
        match merged.last_mut() {
            Some(last) if last.0 == column => last.1 += value,
            _ => merged.push((column, value)),
        }
    }
    merged
}

fn add_pv_balance(lp: &mut LinearProgram, layout: &Layout, model: &Model, factors: &CostFactors, case: &Case) {
    if model.pvs.is_empty() || case.pv == SizeChoice::Absent {
        return;
    }
    let uses = [layout.pv_load, layout.pv_storage, layout.pv_nem, layout.pv_whl, layout.pv_exc];
    let kind = if model.pvs.iter().all(|pv| pv.can_curtail) { RowKind::LessOrEqual } else { RowKind::Equal };
    for t in 0..model.steps() {
        let mut terms: Vec<(usize, f64)> = uses.iter().flatten().map(|&start| (start + t, 1.0)).collect();
        let mut existing = 0.0;
        for (i, pv) in model.pvs.iter().enumerate() {
            let production_per_kw = pv.production_factor[t] * factors.levelization[i];
            existing += production_per_kw * pv.existing_kw;
            if let Some(new) = layout.pv_new[i] {
                terms.push((new, -production_per_kw));
            }
        }
        lp.row(&terms, kind, existing);
    }
}

/// With the grid, supply ≤ load_t (the purchase is the rest); without it, supply = the load
/// target (critical load), or off grid supply ≤ critical load with Σ supply ≥ the annual share
/// that must be met.
fn add_load_balance(lp: &mut LinearProgram, layout: &Layout, model: &Model, case: &Case) {
    for t in 0..model.steps() {
        let terms: Vec<(usize, f64)> = supply_terms(layout, t, 1.0).collect();
        let target = load_target(model, case, t);
        let kind = if model.has_grid(t) || model.off_grid.is_some() { RowKind::LessOrEqual } else { RowKind::Equal };
        if !terms.is_empty() || kind == RowKind::Equal {
            lp.row(&terms, kind, target);
        }
    }
    if let Some(off_grid) = &model.off_grid {
        let terms: Vec<(usize, f64)> = (0..model.steps()).flat_map(|t| supply_terms(layout, t, -1.0)).collect();
        let required = off_grid.min_load_met_annual_fraction * model.critical_load_kw.iter().sum::<f64>();
        lp.row(&terms, RowKind::LessOrEqual, -required);
    }
}

/// The generator: new capacity (its net present cost and O&M per kW), and where it may run,
/// its output to load and to storage per step at its cost per kWh, at most its size; the
/// year's fuel at most `fuel_avail_gal`.
///
/// The generator: its new capacity, and per step where it may run its output to the load (and
/// to storage), within its size and fuel. The service's on/off binary per step (`on_t`) is
/// modelled when it matters, that is with a minimum turndown or a fuel-curve intercept; output
/// is then to load, to storage and, with `can_curtail` (the service's default: no), curtailed:
///
/// ```text
/// output_t ≤ M·on_t
/// td·(existing + new) − output_t ≤ td·M·(1 − on_t)     (grid-connected steps, or off grid)
/// fuel = Σ_t Δ·(slope·output_t + intercept·on_t) ≤ fuel available
/// ```
///
/// with the intercept's fuel cost per step on; as in the service, the intercept is per hour on,
/// not per kW of size. M bounds the size (and so the output, curtailment included): the largest
/// size allowed, or, when a kW costs money, the most any step can take (a larger generator only
/// costs more).
fn add_generator(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors, case: &Case) {
    let (Some(g), Some(costs)) = (&model.generator, &factors.generator) else { return };
    if case.generator == SizeChoice::Absent {
        return;
    }
    let om = factors.om_factor() * g.om_cost_per_kw;
    lp.objective_constant += om * g.existing_kw;
    if case.generator == SizeChoice::Sized {
        layout.generator_new = Some(lp.variable(costs.net_present_cost_per_kw + om, g.min_new_kw, g.max_new_kw));
    }
    let dt = model.step_hours();
    let storage = model.storage.as_ref().filter(|_| case.storage);
    let most_in_step = |t: usize| model.load_kw[t] + storage.map_or(0.0, |s| s.max_kw);
    let largest_size = match layout.generator_new {
        Some(_) => g.max_total_kw(),
        None => g.existing_kw,
    };
    let size_bound = if costs.net_present_cost_per_kw + om > 0.0 {
        let most = (0..model.steps()).map(most_in_step).fold(0.0, f64::max);
        largest_size.min(most.max(g.existing_kw + g.min_new_kw))
    } else {
        largest_size
    };
    let exact = g.min_turn_down_fraction > 0.0 || g.fuel_intercept_gal_per_hour > 0.0;
    let mut fuel: Vec<(usize, f64)> = Vec::new();
    let (mut to_load, mut to_storage, mut curtailed) = (vec![None; model.steps()], vec![None; model.steps()], vec![None; model.steps()]);
    for t in 0..model.steps() {
        if !g.may_run(model.has_grid(t)) {
            continue;
        }
        let load = lp.variable(dt * costs.cost_per_kwh - energy_value(model, factors, t), 0.0, f64::INFINITY);
        to_load[t] = Some(load);
        let mut output = vec![(load, 1.0)];
        if storage.is_some() {
            let charge = lp.variable(dt * costs.cost_per_kwh, 0.0, f64::INFINITY);
            to_storage[t] = Some(charge);
            output.push((charge, 1.0));
        }
        if exact && g.can_curtail {
            // Running at the turndown above the load burns the fuel of the whole output.
            let curtail = lp.variable(dt * costs.cost_per_kwh, 0.0, f64::INFINITY);
            curtailed[t] = Some(curtail);
            output.push((curtail, 1.0));
        }
        fuel.extend(output.iter().map(|&(j, _)| (j, dt * costs.gallons_per_kwh)));
        let mut row = output.clone();
        row.extend(layout.generator_new.map(|j| (j, -1.0)));
        lp.row(&row, RowKind::LessOrEqual, g.existing_kw);
        if exact {
            let step = OnOffStep { output: &output, dt, size_bound, turndown_applies: model.off_grid.is_some() || model.has_grid(t) };
            add_on_off(lp, layout, g, costs, &step, &mut fuel);
        }
    }
    if g.fuel_avail_gal < UNLIMITED_FUEL_GAL && !fuel.is_empty() {
        lp.row(&fuel, RowKind::LessOrEqual, g.fuel_avail_gal);
    }
    layout.generator_load = to_load;
    layout.generator_storage = to_storage;
    layout.generator_curtail = curtailed;
}

/// One step of the generator's on/off choice.
struct OnOffStep<'a> {
    /// The step's output columns (to load, to storage).
    output: &'a [(usize, f64)],
    dt: f64,
    /// A bound on the generator's size (kW).
    size_bound: f64,
    /// Whether the minimum turndown holds in this step.
    turndown_applies: bool,
}

/// The on/off binary of one step (see `add_generator`); the intercept's fuel joins `fuel`.
fn add_on_off(lp: &mut LinearProgram, layout: &Layout, g: &Generator, costs: &GeneratorCosts, step: &OnOffStep, fuel: &mut Vec<(usize, f64)>) {
    let on = lp.binary(step.dt * costs.cost_per_hour_on);
    let mut row = step.output.to_vec();
    row.push((on, -step.size_bound));
    lp.row(&row, RowKind::LessOrEqual, 0.0);
    if step.turndown_applies && g.min_turn_down_fraction > 0.0 {
        // td·new − output + M·on ≤ M − td·existing, with M = td·size_bound
        let big = g.min_turn_down_fraction * step.size_bound;
        let mut row: Vec<(usize, f64)> = step.output.iter().map(|&(j, _)| (j, -1.0)).collect();
        row.extend(layout.generator_new.map(|j| (j, g.min_turn_down_fraction)));
        row.push((on, big));
        lp.row(&row, RowKind::LessOrEqual, big - g.min_turn_down_fraction * g.existing_kw);
    }
    if g.fuel_intercept_gal_per_hour > 0.0 {
        fuel.push((on, step.dt * g.fuel_intercept_gal_per_hour));
    }
}

/// Off grid, per step: the operating reserve required (the load's share of what is served, the
/// renewables' share of their output to load) is at most what the battery (its charge above the
/// minimum and its spare power), the renewables (their unused output, less their own share) and
/// the generator (its spare capacity above its output, curtailed output included) hold.
fn add_operating_reserves(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors, case: &Case) {
    let Some(off_grid) = &model.off_grid else { return };
    let steps = model.steps();
    let dt = model.step_hours();
    let renewable_share = model.pvs.first().map_or(0.0, |pv| pv.operating_reserve_required_fraction);
    let battery = match (&model.storage, layout.storage_kw, layout.storage_kwh, layout.discharge, layout.soc) {
        (Some(s), Some(kw), Some(kwh), Some(discharge), Some(soc)) => Some((s, kw, kwh, discharge, soc)),
        _ => None,
    };
    let reserve = battery.map(|_| lp.series(steps, |_| 0.0));
    layout.battery_reserve = reserve;
    for t in 0..steps {
        // required − provided ≤ 0, constants on the right.
        let mut terms: Vec<(usize, f64)> = supply_terms(layout, t, off_grid.load_reserve_fraction).collect();
        let mut rhs = 0.0;
        if let Some(pv_load) = layout.pv_load {
            // share·pv_load + (1 − share)·pv_load − (1 − share)·Σ production
            terms.push((pv_load + t, 1.0));
            for (i, pv) in model.pvs.iter().enumerate() {
                let production_per_kw = pv.production_factor[t] * factors.levelization[i];
                rhs += (1.0 - renewable_share) * production_per_kw * pv.existing_kw;
                if let Some(new) = layout.pv_new[i] {
                    terms.push((new, -(1.0 - renewable_share) * production_per_kw));
                }
            }
        }
        if let Some(g) = model.generator.as_ref().filter(|_| case.generator != SizeChoice::Absent) {
            rhs += g.existing_kw;
            terms.extend(layout.generator_new.map(|j| (j, -1.0)));
            terms.extend(layout.generator_load[t].map(|j| (j, 1.0)));
            terms.extend(layout.generator_curtail.get(t).copied().flatten().map(|j| (j, 1.0)));
        }
        if let (Some((s, kw, kwh, discharge, soc)), Some(reserve)) = (battery, reserve) {
            terms.push((reserve + t, -1.0));
            let eta_d = s.discharge_efficiency();
            // reserve ≤ kw − discharge/η_d
            lp.row(&[(reserve + t, 1.0), (discharge + t, 1.0 / eta_d), (kw, -1.0)], RowKind::LessOrEqual, 0.0);
            // reserve ≤ (soc_{t−1} − soc_min·kwh)/Δ − discharge/η_d
            let mut headroom = vec![(reserve + t, 1.0), (discharge + t, 1.0 / eta_d), (kwh, s.soc_min_fraction / dt)];
            match (t, layout.soc_start) {
                (0, Some(start)) => headroom.push((start, -1.0 / dt)),
                (0, None) => headroom.push((kwh, -s.soc_init_fraction / dt)),
                _ => headroom.push((soc + t - 1, -1.0 / dt)),
            }
            lp.row(&headroom, RowKind::LessOrEqual, 0.0);
        }
        lp.row(&terms, RowKind::LessOrEqual, rhs);
    }
}

/// Off grid: the other annual costs (after the owner's tax) and other capital costs (after
/// depreciation), fixed terms of the lifecycle cost.
fn offgrid_constant_costs(model: &Model, factors: &CostFactors) -> f64 {
    model.off_grid.as_ref().map_or(0.0, |o| o.other_annual_costs * factors.om_factor() + factors.offgrid_other_capital_after_depreciation)
}

/// The monthly kWh bought in tier 0 as an expression: Δ Σ_{t∈m} (purchase_t − Σ_{k≥1} tier_k[t]).
fn tier_zero_energy(layout: &Layout, model: &Model, month: usize) -> Expression {
    let dt = model.step_hours();
    let mut expression = Expression::default();
    for (t, &m) in model.tariff.month_of_step.iter().enumerate() {
        if m as usize != month || !model.has_grid(t) {
            continue;
        }
        expression.constant += dt * model.load_kw[t];
        expression.terms.extend(purchase_terms(layout, t, dt));
        expression.terms.extend(layout.energy_tiers.iter().map(|&start| (start + t, -dt)));
    }
    expression.terms = merge_terms(expression.terms);
    expression
}

/// Energy tiers k ≥ 1 (K > 1): per-step purchases, the tier-0 remainder non-negative, monthly
/// tier limits, and a binary for each month whose tier k+1 is cheaper than tier k.
fn add_energy_tiers(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors) {
    let tariff = &model.tariff;
    let tiers = tariff.energy_tiers();
    if tiers < 2 {
        return;
    }
    let steps = model.steps();
    let dt = model.step_hours();
    let utility = factors.utility_factor();
    layout.energy_tiers =
        (1..tiers).map(|k| lp.series(steps, |t| utility * dt * (tariff.energy_rates[k][t] - tariff.energy_rates[0][t]))).collect();
    for t in 0..steps {
        if !model.has_grid(t) {
            layout.energy_tiers.iter().for_each(|&start| lp.upper[start + t] = 0.0);
            continue;
        }
        // Σ_{k≥1} tier_k[t] ≤ purchase_t
        let mut terms: Vec<(usize, f64)> = layout.energy_tiers.iter().map(|&start| (start + t, 1.0)).collect();
        terms.extend(purchase_terms(layout, t, -1.0));
        lp.row(&terms, RowKind::LessOrEqual, model.load_kw[t]);
    }
    let month_energy = |layout: &Layout, month: usize, k: usize| -> Expression {
        if k == 0 {
            return tier_zero_energy(layout, model, month);
        }
        let columns = (0..steps).filter(|&t| tariff.month_of_step[t] as usize == month).map(|t| layout.energy_tiers[k - 1] + t);
        Expression { terms: columns.map(|j| (j, dt)).collect(), constant: 0.0 }
    };
    for month in 0..12 {
        for k in 0..tiers {
            let limit = tariff.energy_tier_limits[month][k];
            if limit < NO_TIER_LIMIT {
                let expression = month_energy(layout, month, k);
                lp.row(&expression.terms, RowKind::LessOrEqual, limit - expression.constant);
            }
        }
    }
    let mut most = [0.0f64; 12];
    for t in (0..steps).filter(|&t| model.has_grid(t)) {
        most[tariff.month_of_step[t] as usize] += dt * max_purchase(layout, model, t);
    }
    let least = least_monthly_purchase(layout, model, factors);
    for (month, k) in tariff.falling_energy_pairs() {
        let limits = &tariff.energy_tier_limits[month];
        let used_before: f64 = limits[..=k].iter().sum();
        let use_bounds = UseBounds { least: least[month], most: most[month] };
        falling_choice(lp, &month_energy(layout, month, k), limits[k], &month_energy(layout, month, k + 1), &use_bounds, used_before, limits[k + 1]);
    }
}

/// A lower bound on each month's grid purchase (kWh): the load of its grid steps less the most
/// the site could supply itself, every array and the generator at their largest sizes, and the
/// storage emptied from full (its charging comes from these same sources or from the grid, a
/// purchase). Negative when the site could cover the month.
fn least_monthly_purchase(layout: &Layout, model: &Model, factors: &CostFactors) -> [f64; 12] {
    let dt = model.step_hours();
    let has_pv = [layout.pv_load, layout.pv_storage, layout.pv_nem, layout.pv_whl, layout.pv_exc].iter().any(Option::is_some);
    let generator_kw = match (&model.generator, layout.generator_new) {
        (Some(g), Some(_)) => g.max_total_kw(),
        (Some(g), None) => g.existing_kw,
        (None, _) => 0.0,
    };
    let mut least = [0.0f64; 12];
    for t in (0..model.steps()).filter(|&t| model.has_grid(t)) {
        let pv_kw: f64 = if has_pv {
            model.pvs.iter().enumerate().map(|(i, pv)| {
                let sized = if layout.pv_new[i].is_some() { pv.max_new_kw } else { 0.0 };
                pv.production_factor[t] * factors.levelization[i] * (pv.existing_kw + sized)
            }).sum()
        } else {
            0.0
        };
        let generator = if layout.generator_load.get(t).copied().flatten().is_some() { generator_kw } else { 0.0 };
        least[model.tariff.month_of_step[t] as usize] += dt * (model.load_kw[t] - pv_kw - generator);
    }
    let stored = match (&model.storage, layout.discharge) {
        (Some(s), Some(_)) => s.max_kwh,
        _ => 0.0,
    };
    least.map(|kwh| kwh - stored)
}

/// One billed peak over `steps` with tiered rates: purchase_t ≤ Σ_k peak_k for each step, each
/// tier at most its width; a binary for each falling tier pair.
fn add_peak(lp: &mut LinearProgram, layout: &Layout, model: &Model, utility: f64, steps: &mut dyn Iterator<Item = usize>, charge: &TieredCharge) -> PeakVariables {
    let tiers: Vec<usize> = charge
        .rates
        .iter()
        .zip(&charge.limits)
        .map(|(&rate, &limit)| lp.variable(utility * rate, 0.0, if limit < UNLIMITED_DEMAND_TIER_KW { limit } else { f64::INFINITY }))
        .collect();
    let mut most = 0.0f64;
    for t in steps.filter(|&t| model.has_grid(t)) {
        let mut terms: Vec<(usize, f64)> = purchase_terms(layout, t, 1.0).collect();
        terms.extend(tiers.iter().map(|&j| (j, -1.0)));
        lp.row(&terms, RowKind::LessOrEqual, -model.load_kw[t]);
        most = most.max(max_purchase(layout, model, t));
    }
    for k in charge.falling_pairs() {
        let used_before: f64 = charge.limits[..=k].iter().sum();
        let earlier = Expression { terms: vec![(tiers[k], 1.0)], constant: 0.0 };
        let later = Expression { terms: vec![(tiers[k + 1], 1.0)], constant: 0.0 };
        falling_choice(lp, &earlier, charge.limits[k], &later, &UseBounds { least: 0.0, most }, used_before, charge.limits[k + 1]);
    }
    PeakVariables { tiers }
}

/// Monthly and time-of-use demand charges and coincident peak charges.
fn add_demand(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors) {
    let utility = factors.utility_factor();
    let tariff = &model.tariff;
    let mut monthly = Vec::with_capacity(tariff.monthly_demand.len());
    for (month, charge) in tariff.monthly_demand.iter().enumerate() {
        let mut steps = (0..model.steps()).filter(|&t| tariff.month_of_step[t] as usize == month);
        monthly.push(add_peak(lp, layout, model, utility, &mut steps, charge));
    }
    let mut tou = Vec::with_capacity(tariff.tou_demand.len());
    for period in &tariff.tou_demand {
        if period.charge.is_free() {
            tou.push(PeakVariables { tiers: Vec::new() });
            continue;
        }
        tou.push(add_peak(lp, layout, model, utility, &mut period.steps.iter().copied(), &period.charge));
    }
    let mut coincident = Vec::with_capacity(tariff.coincident_peaks.len());
    for peak in &tariff.coincident_peaks {
        let charge = TieredCharge::flat(peak.charge_per_kw);
        coincident.push(add_peak(lp, layout, model, utility, &mut peak.steps.iter().copied(), &charge).tiers[0]);
    }
    layout.monthly_peaks = monthly;
    layout.tou_peaks = tou;
    layout.coincident_peaks = coincident;
}

/// Demand lookback on the monthly billed peaks.
fn add_lookback(lp: &mut LinearProgram, layout: &Layout, model: &Model) {
    use super::tariff::Lookback;
    if layout.monthly_peaks.len() != 12 {
        return;
    }
    let billed = |m: usize| -> Vec<(usize, f64)> { layout.monthly_peaks[m].tiers.iter().map(|&j| (j, 1.0)).collect() };
    match &model.tariff.lookback {
        Lookback::None => {}
        Lookback::Months { months, percent } => {
            let look = lp.variable(0.0, 0.0, f64::INFINITY);
            for &m in months {
                // Σ_k peak_mk − look ≤ 0
                let mut terms = billed(m);
                terms.push((look, -1.0));
                lp.row(&terms, RowKind::LessOrEqual, 0.0);
            }
            for m in 0..12 {
                // percent·look − Σ_k peak_mk ≤ 0
                let mut terms: Vec<(usize, f64)> = billed(m).into_iter().map(|(j, _)| (j, -1.0)).collect();
                terms.push((look, *percent));
                lp.row(&terms, RowKind::LessOrEqual, 0.0);
            }
        }
        Lookback::Range { months: range, percent } => {
            // The largest purchase of each month, then each month's look-back peak.
            let measured: Vec<usize> = (0..12).map(|_| lp.variable(0.0, 0.0, f64::INFINITY)).collect();
            for (t, &m) in model.tariff.month_of_step.iter().enumerate().filter(|&(t, _)| model.has_grid(t)) {
                let mut terms: Vec<(usize, f64)> = purchase_terms(layout, t, 1.0).collect();
                terms.push((measured[m as usize], -1.0));
                lp.row(&terms, RowKind::LessOrEqual, -model.load_kw[t]);
            }
            for m in 0..12 {
                let look = lp.variable(0.0, 0.0, f64::INFINITY);
                for back in 1..=*range {
                    let earlier = (m + 12 - back % 12) % 12;
                    lp.row(&[(measured[earlier], 1.0), (look, -1.0)], RowKind::LessOrEqual, 0.0);
                }
                let mut terms: Vec<(usize, f64)> = billed(m).into_iter().map(|(j, _)| (j, -1.0)).collect();
                terms.push((look, *percent));
                lp.row(&terms, RowKind::LessOrEqual, 0.0);
            }
        }
    }
}

/// Σ pv_nem ≤ Σ purchase over the steps with the grid: Σ (pv_nem + supply − grid_storage) ≤ Σ load.
fn add_net_metering_cap(lp: &mut LinearProgram, layout: &Layout, model: &Model) {
    let Some(nem) = layout.pv_nem else { return };
    let grid_steps: Vec<usize> = (0..model.steps()).filter(|&t| model.has_grid(t)).collect();
    let mut terms: Vec<(usize, f64)> = grid_steps.iter().map(|&t| (nem + t, 1.0)).collect();
    for &t in &grid_steps {
        terms.extend(purchase_terms(layout, t, -1.0));
    }
    lp.row(&terms, RowKind::LessOrEqual, grid_steps.iter().map(|&t| model.load_kw[t]).sum());
}

/// Financial.min/max_initial_capital_costs_before_incentives on new PV and storage.
fn add_capex_bounds(lp: &mut LinearProgram, layout: &Layout, model: &Model, case: &Case) {
    let bounds = &model.capex_bounds;
    if bounds.min.is_none() && bounds.max.is_none() {
        return;
    }
    let mut terms: Vec<(usize, f64)> = Vec::new();
    let mut constant = 0.0;
    for (pv, new) in model.pvs.iter().zip(&layout.pv_new) {
        if let Some(new) = new {
            terms.push((*new, pv.installed_cost_per_kw));
        }
    }
    if let (Some(s), Some(kw), Some(kwh)) = (&model.storage, layout.storage_kw, layout.storage_kwh) {
        terms.push((kw, s.installed_cost_per_kw));
        terms.push((kwh, s.installed_cost_per_kwh));
        if case.storage {
            constant += s.installed_cost_constant;
        }
    }
    if let Some(max) = bounds.max {
        lp.row(&terms, RowKind::LessOrEqual, max - constant);
    }
    if let Some(min) = bounds.min {
        let negated: Vec<(usize, f64)> = terms.iter().map(|&(i, a)| (i, -a)).collect();
        lp.row(&negated, RowKind::LessOrEqual, constant - min);
    }
}

/// The year-one bill the minimum charge is compared with (energy + demand − exports + fixed;
/// coincident peak charges excluded, as the service does), as an expression.
fn year_one_bill(layout: &Layout, model: &Model) -> Expression {
    let tariff = &model.tariff;
    let dt = model.step_hours();
    let mut bill = Expression { terms: Vec::new(), constant: 12.0 * tariff.fixed_monthly_charge };
    for t in (0..model.steps()).filter(|&t| model.has_grid(t)) {
        let rate = tariff.energy_rates[0][t];
        bill.constant += dt * rate * model.load_kw[t];
        bill.terms.extend(purchase_terms(layout, t, dt * rate));
        for (k, &start) in layout.energy_tiers.iter().enumerate() {
            bill.terms.push((start + t, dt * (tariff.energy_rates[k + 1][t] - rate)));
        }
        for (column, export_rate) in [(layout.pv_nem, tariff.nem_rate[t]), (layout.pv_whl, tariff.wholesale_rate[t]), (layout.pv_exc, tariff.export_beyond_nem_rate[t])] {
            if let Some(start) = column {
                bill.terms.push((start + t, -dt * export_rate));
            }
        }
    }
    let charges = tariff.monthly_demand.iter().zip(&layout.monthly_peaks).chain(tariff.tou_demand.iter().map(|p| &p.charge).zip(&layout.tou_peaks));
    for (charge, peak) in charges {
        bill.terms.extend(peak.tiers.iter().zip(&charge.rates).map(|(&j, &rate)| (j, rate)));
    }
    bill.terms = merge_terms(bill.terms);
    bill
}

/// adder ≥ min_annual − pwf_e·bill (lifecycle bill against the annual minimum, the service's
/// comparison), priced at 0.999·(1 − τ_o) so that where the minimum lands is never arbitrary.
fn add_min_charge(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors) {
    let minimum = model.tariff.annual_min_charge;
    if minimum < 0.01 {
        return;
    }
    let adder = lp.variable(0.999 * factors.offtaker_after_tax, 0.0, f64::INFINITY);
    let bill = year_one_bill(layout, model);
    // −adder − pwf_e·bill_terms ≤ pwf_e·bill_constant − minimum
    let mut terms: Vec<(usize, f64)> = bill.terms.iter().map(|&(j, a)| (j, -factors.pwf_e * a)).collect();
    terms.push((adder, -1.0));
    lp.row(&terms, RowKind::LessOrEqual, factors.pwf_e * bill.constant - minimum);
    layout.min_charge_adder = Some(adder);
}

//! The linear program: cost factors (present worth of every cost item), the variants solved
//! (`Case`), and a solver-neutral LP (`LinearProgram`) with the index map (`Layout`) to read a
//! solution back as sizes and dispatch series.
//!
//! Notation: t = time step (T = 8760·n steps, Δ = 1/n h), m = month, N = analysis years,
//! d_o/d_w = offtaker/owner discount rates, τ_o/τ_w = their tax rates, e_e/e_om = electricity
//! and O&M escalation.
//!
//! Present-worth factors (see `finance`):
//! - pwf_e  = Σ_{y=1..N} ((1+e_e)/(1+d_o))^y     — year-one utility costs and export credits
//! - pwf_om = Σ_{y=1..N} ((1+e_om)/(1+d_w))^y    — year-one O&M costs
//! - lvl    = levelization factor of PV with degradation g (production · lvl = average year)
//! - npc(·) = effective capital cost per unit after ITC, MACRS, rebates and replacements
//!
//! Variables (all ≥ 0; kW for flows, kWh for energy):
//! - PV: new capacity `pv_new` = Σ_k `seg_k` (cost-curve pieces, 0 ≤ seg_k ≤ width_k);
//!   per step `pv_load`, `pv_storage`, `pv_nem`, `pv_whl`, `pv_exc` (exports by bin).
//! - Grid: per step `grid_storage`.
//! - Storage: `kw`, `kwh`; per step `discharge` (to load) and `soc` (kWh at the end of the step);
//!   `soc_start` when the initial state of charge is optimized.
//! - Demand: `peak_m` for each month with a demand rate.
//!
//! Two flows are substituted out to keep the LP small (they are the slacks of two rows):
//!
//! ```text
//! grid_load_t  = load_t − pv_load − discharge                                   (≥ 0)
//! pv_curtail_t = pf_t·lvl·(existing + pv_new) − pv_load − pv_storage − exports  (≥ 0; = 0
//!                when the PV cannot curtail)
//! ```
//!
//! Constraints, for every t:
//!
//! ```text
//! PV:      pv_load + pv_storage + pv_nem + pv_whl + pv_exc ≤ pf_t·lvl·(existing + pv_new)
//! Load:    pv_load + discharge ≤ load_t
//! SOC:     soc_t = soc_{t−1} + Δ(η_c·pv_storage + η_c·grid_storage − discharge/η_d),
//!          soc_{−1} = soc_init·kwh (or soc_start = soc_{T−1} when optimized)
//! Power:   pv_storage + grid_storage + discharge ≤ kw
//! Energy:  soc_min·kwh ≤ soc_t ≤ kwh;  soc_{t−1} + Δ(η_c·pv_storage + η_c·grid_storage) ≤ kwh
//! Demand:  grid_load_t + grid_storage ≤ peak_m(t)
//! ```
//!
//! and once: Σ_t pv_nem ≤ Σ_t (grid_load + grid_storage) (net metering credits at most the
//! energy bought), min_dur·kw ≤ kwh ≤ max_dur·kw, size bounds, capex bounds.
//!
//! Objective (lifecycle cost, $ present value; `Costs` of the service):
//!
//! ```text
//!   Σ_k npc_pv,k·seg_k + pwf_om·(1−τ_w)·om_pv·(existing + pv_new)
//! + (npc_kw + pwf_om·(1−τ_w)·f_om·c_kw)·kw + (npc_kwh + pwf_om·(1−τ_w)·f_om·c_kwh)·kwh
//! + [storage built with a cost constant] (npc_c + pwf_om·(1−τ_w)·f_om·c_c)
//! + pwf_e·(1−τ_o)·( Δ Σ_t r_t·(grid_load + grid_storage) + Σ_m D_m·peak_m
//!                   − Δ Σ_t (0.999·r_t·pv_nem + w_t·pv_whl + x_t·pv_exc) )
//! ```
//!
//! minus, when `add_soc_incentive`, the average state of charge Σ_t soc_t / T ($1 per kWh of
//! average charge; in the objective only, not in the lifecycle cost). The grid_load terms
//! become a constant (the bill without PV and storage) minus credits on pv_load and discharge.

use super::finance::{
    self, effective_cost, incentive_cost_segments, CostSegment, RegionIncentive, Replacement, TaxTreatment,
};
use super::model::{Model, Pv, Storage};

/// Present-worth factors and per-unit present costs of one model.
#[derive(Debug, Clone, PartialEq)]
pub struct CostFactors {
    pub pwf_e: f64,
    pub pwf_om: f64,
    /// PV levelization factor (1 without PV).
    pub levelization: f64,
    /// (1 − τ_o): utility costs are tax deductible for the offtaker.
    pub offtaker_after_tax: f64,
    /// (1 − τ_w): O&M is tax deductible for the owner.
    pub owner_after_tax: f64,
    /// PV cost curve of new capacity: width (kW) and npc ($/kW) of each piece.
    pub pv_segments: Vec<PricedSegment>,
    pub storage: Option<StorageCosts>,
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
    /// Computes every factor; fails only when incentives make the PV cost curve non-convex.
    pub fn new(model: &Model) -> Result<CostFactors, String> {
        let f = &model.financial;
        let pwf_e = finance::present_worth_factor(f.analysis_years, f.elec_cost_escalation_rate_fraction, f.offtaker_discount_rate_fraction);
        let pwf_om = finance::present_worth_factor(f.analysis_years, f.om_cost_escalation_rate_fraction, f.owner_discount_rate_fraction);
        let levelization = model.pv.as_ref().map_or(1.0, |pv| {
            finance::levelization_factor(f.analysis_years, f.elec_cost_escalation_rate_fraction, f.offtaker_discount_rate_fraction, pv.degradation_fraction)
        });
        let pv_segments = match &model.pv {
            Some(pv) => pv_cost_curve(model, pv)?,
            None => Vec::new(),
        };
        Ok(CostFactors {
            pwf_e,
            pwf_om,
            levelization,
            offtaker_after_tax: 1.0 - f.offtaker_tax_rate_fraction,
            owner_after_tax: 1.0 - f.owner_tax_rate_fraction,
            pv_segments,
            storage: model.storage.as_ref().map(|s| storage_costs(model, s)),
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
        return Err("PV incentive caps with these tax inputs give a non-convex cost curve, which a linear program cannot represent.".into());
    }
    Ok(priced)
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

/// How PV capacity enters a case.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PvChoice {
    /// No PV in this case.
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
    pub pv: PvChoice,
    /// Storage is sized in this case (its cost constant is paid when it has one).
    pub storage: bool,
    pub exports: ExportBins,
    /// Upper limit on total PV kW (existing + new) from the net-metering or interconnection limit.
    pub pv_total_cap_kw: Option<f64>,
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
}

impl LinearProgram {
    fn variable(&mut self, cost: f64, lower: f64, upper: f64) -> usize {
        self.objective.push(cost);
        self.lower.push(lower);
        self.upper.push(upper);
        self.objective.len() - 1
    }

    /// `count` consecutive variables with per-index costs; returns the first index.
    fn series(&mut self, count: usize, cost: impl Fn(usize) -> f64) -> usize {
        let start = self.objective.len();
        for t in 0..count {
            self.variable(cost(t), 0.0, f64::INFINITY);
        }
        start
    }

    fn row(&mut self, terms: &[(usize, f64)], kind: RowKind, rhs: f64) {
        if self.row_start.is_empty() {
            self.row_start.push(0);
        }
        for &(column, value) in terms.iter().filter(|(_, v)| *v != 0.0) {
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

/// Where each quantity lives in the LP's variable vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub steps: usize,
    pub pv_new: Option<usize>,
    pub pv_segments: Vec<usize>,
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
    pub peaks: [Option<usize>; 12],
}

/// Sizes and dispatch read from a solution vector (kW, kWh; series per step).
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatch {
    pub pv_new_kw: f64,
    pub pv_segment_kw: Vec<f64>,
    /// PV output per step (kW, levelized: the average year's output).
    pub pv_production: Vec<f64>,
    pub pv_load: Vec<f64>,
    pub pv_storage: Vec<f64>,
    pub pv_nem: Vec<f64>,
    pub pv_whl: Vec<f64>,
    pub pv_exc: Vec<f64>,
    pub pv_curtail: Vec<f64>,
    pub grid_load: Vec<f64>,
    pub grid_storage: Vec<f64>,
    pub storage_kw: f64,
    pub storage_kwh: f64,
    pub discharge: Vec<f64>,
    /// kWh at the end of each step.
    pub soc_kwh: Vec<f64>,
    /// kWh before the first step.
    pub soc_start_kwh: f64,
}

impl Dispatch {
    /// Grid purchases (to load and to storage) per step.
    pub fn grid_purchase(&self, t: usize) -> f64 {
        self.grid_load[t] + self.grid_storage[t]
    }

    /// All PV exports per step.
    pub fn pv_export(&self, t: usize) -> f64 {
        self.pv_nem[t] + self.pv_whl[t] + self.pv_exc[t]
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
        let pv_new_kw = scalar(self.pv_new);
        let pv_total_kw = match (&model.pv, case.pv) {
            (Some(pv), PvChoice::Sized | PvChoice::ExistingOnly) => pv.existing_kw + pv_new_kw,
            _ => 0.0,
        };
        let pv_production: Vec<f64> = match &model.pv {
            Some(pv) => pv.production_factor.iter().map(|f| f * factors.levelization * pv_total_kw).collect(),
            None => vec![0.0; self.steps],
        };
        let (mut pv_load, mut pv_storage, mut pv_nem, mut pv_whl, mut pv_exc) =
            (series(self.pv_load), series(self.pv_storage), series(self.pv_nem), series(self.pv_whl), series(self.pv_exc));
        let mut discharge = series(self.discharge);
        for t in 0..self.steps {
            // Row residuals of the interior point: PV uses ≤ production, pv_load + discharge ≤ load.
            let uses = pv_load[t] + pv_storage[t] + pv_nem[t] + pv_whl[t] + pv_exc[t];
            trim(uses - pv_production[t], &mut [&mut pv_exc[t], &mut pv_whl[t], &mut pv_nem[t], &mut pv_storage[t], &mut pv_load[t]]);
            trim(pv_load[t] + discharge[t] - model.load_kw[t], &mut [&mut pv_load[t], &mut discharge[t]]);
        }
        let pv_curtail = (0..self.steps)
            .map(|t| clean(pv_production[t] - pv_load[t] - pv_storage[t] - pv_nem[t] - pv_whl[t] - pv_exc[t]))
            .collect();
        let grid_load = (0..self.steps).map(|t| clean(model.load_kw[t] - pv_load[t] - discharge[t])).collect();
        Dispatch {
            pv_new_kw,
            pv_segment_kw: self.pv_segments.iter().map(|&i| clean(x[i])).collect(),
            pv_production,
            pv_load,
            pv_storage,
            pv_nem,
            pv_whl,
            pv_exc,
            pv_curtail,
            grid_load,
            grid_storage: series(self.grid_storage),
            storage_kw: scalar(self.storage_kw),
            storage_kwh: scalar(self.storage_kwh),
            discharge,
            soc_kwh: series(self.soc),
            soc_start_kwh: scalar(self.soc_start),
        }
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

/// Builds the LP of one case.
pub fn build(model: &Model, factors: &CostFactors, case: &Case) -> (LinearProgram, Layout) {
    let mut lp = LinearProgram::default();
    let steps = model.steps();
    let dt = model.step_hours();
    let utility = factors.utility_factor();
    let pv = model.pv.as_ref().filter(|_| case.pv != PvChoice::Absent);
    let storage = model.storage.as_ref().filter(|_| case.storage);
    let rates = &model.tariff;
    // Energy cost per kW of grid purchase in step t; pv_load and discharge earn it back.
    let energy = |t: usize| utility * dt * rates.energy_rate[t];
    lp.objective_constant += (0..steps).map(|t| energy(t) * model.load_kw[t]).sum::<f64>();

    let (pv_new, pv_segments) = pv_size_variables(&mut lp, factors, case, pv);
    let pv_exists = pv.is_some();
    let pv_load = pv_exists.then(|| lp.series(steps, |t| -energy(t)));
    let pv_storage = (pv_exists && storage.is_some()).then(|| lp.series(steps, |_| 0.0));
    let pv_nem = (pv_exists && case.exports.nem).then(|| lp.series(steps, |t| -utility * dt * rates.nem_rate(t)));
    let pv_whl = (pv_exists && case.exports.whl).then(|| lp.series(steps, |t| -utility * dt * rates.wholesale_rate[t]));
    let pv_exc = (pv_exists && case.exports.exc).then(|| lp.series(steps, |t| -utility * dt * rates.export_beyond_nem_rate[t]));
    let grid_storage = storage.filter(|s| s.can_grid_charge).map(|_| lp.series(steps, energy));

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
        peaks: [None; 12],
    };
    if let (Some(s), Some(costs)) = (storage, factors.storage.as_ref()) {
        add_storage(&mut lp, &mut layout, model, factors, s, costs);
    }
    add_pv_balance(&mut lp, &layout, model, factors, pv);
    add_load_balance(&mut lp, &layout, model);
    add_demand(&mut lp, &mut layout, model, factors);
    add_net_metering_cap(&mut lp, &layout, model);
    add_capex_bounds(&mut lp, &layout, model, case);
    (lp, layout)
}

/// The variable part of `sign · grid_load_t`, where grid_load_t = load_t − pv_load − discharge:
/// pv_load and discharge, each with coefficient −sign.
fn grid_load_terms(layout: &Layout, t: usize, sign: f64) -> impl Iterator<Item = (usize, f64)> {
    [layout.pv_load, layout.discharge].into_iter().flatten().map(move |start| (start + t, -sign))
}

/// PV capacity: `pv_new` with its bounds and the priced pieces of the cost curve, plus the
/// O&M of the whole capacity (existing included) as objective terms.
fn pv_size_variables(lp: &mut LinearProgram, factors: &CostFactors, case: &Case, pv: Option<&Pv>) -> (Option<usize>, Vec<usize>) {
    let Some(pv) = pv else { return (None, Vec::new()) };
    let om = factors.om_factor() * pv.om_cost_per_kw;
    lp.objective_constant += om * pv.existing_kw;
    if case.pv != PvChoice::Sized {
        return (None, Vec::new());
    }
    let cap_new = case.pv_total_cap_kw.map_or(f64::INFINITY, |cap| cap - pv.existing_kw);
    let pv_new = lp.variable(om, pv.min_new_kw, pv.max_new_kw.min(cap_new));
    let segments: Vec<usize> = factors
        .pv_segments
        .iter()
        .map(|segment| lp.variable(segment.net_present_cost_per_kw, 0.0, segment.width_kw))
        .collect();
    let mut terms = vec![(pv_new, 1.0)];
    terms.extend(segments.iter().map(|&s| (s, -1.0)));
    lp.row(&terms, RowKind::Equal, 0.0);
    (Some(pv_new), segments)
}

fn add_storage(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors, s: &Storage, costs: &StorageCosts) {
    let steps = model.steps();
    let dt = model.step_hours();
    let energy = |t: usize| factors.utility_factor() * dt * model.tariff.energy_rate[t];
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
        lp.row(&merge_terms(headroom), RowKind::LessOrEqual, 0.0);
        // pv_storage + grid_storage + discharge − kw ≤ 0
        let mut power = vec![(discharge + t, 1.0), (kw, -1.0)];
        power.extend(layout.pv_storage.map(|p| (p + t, 1.0)));
        power.extend(layout.grid_storage.map(|g| (g + t, 1.0)));
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

fn add_pv_balance(lp: &mut LinearProgram, layout: &Layout, model: &Model, factors: &CostFactors, pv: Option<&Pv>) {
    let Some(pv) = pv else { return };
    let uses = [layout.pv_load, layout.pv_storage, layout.pv_nem, layout.pv_whl, layout.pv_exc];
    let kind = if pv.can_curtail { RowKind::LessOrEqual } else { RowKind::Equal };
    for t in 0..model.steps() {
        let production_per_kw = pv.production_factor[t] * factors.levelization;
        let mut terms: Vec<(usize, f64)> = uses.iter().flatten().map(|&start| (start + t, 1.0)).collect();
        if let Some(new) = layout.pv_new {
            terms.push((new, -production_per_kw));
        }
        lp.row(&terms, kind, production_per_kw * pv.existing_kw);
    }
}

/// pv_load + discharge ≤ load_t (grid_load_t ≥ 0).
fn add_load_balance(lp: &mut LinearProgram, layout: &Layout, model: &Model) {
    for t in 0..model.steps() {
        let terms: Vec<(usize, f64)> = grid_load_terms(layout, t, -1.0).collect();
        if !terms.is_empty() {
            lp.row(&terms, RowKind::LessOrEqual, model.load_kw[t]);
        }
    }
}

/// grid_load_t + grid_storage − peak ≤ 0, i.e. −pv_load − discharge + grid_storage − peak ≤ −load_t.
fn add_demand(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors) {
    let utility = factors.utility_factor();
    for (month, &rate) in model.tariff.monthly_demand_rate.iter().enumerate() {
        if rate > 0.0 {
            layout.peaks[month] = Some(lp.variable(utility * rate, 0.0, f64::INFINITY));
        }
    }
    for (t, &month) in model.tariff.month_of_step.iter().enumerate() {
        let Some(peak) = layout.peaks[month as usize] else { continue };
        let mut terms: Vec<(usize, f64)> = grid_load_terms(layout, t, 1.0).collect();
        terms.push((peak, -1.0));
        terms.extend(layout.grid_storage.map(|g| (g + t, 1.0)));
        lp.row(&terms, RowKind::LessOrEqual, -model.load_kw[t]);
    }
}

/// Σ pv_nem ≤ Σ (grid_load + grid_storage): Σ (pv_nem + pv_load + discharge − grid_storage) ≤ Σ load.
fn add_net_metering_cap(lp: &mut LinearProgram, layout: &Layout, model: &Model) {
    let Some(nem) = layout.pv_nem else { return };
    let steps = model.steps();
    let mut terms: Vec<(usize, f64)> = (0..steps).map(|t| (nem + t, 1.0)).collect();
    for t in 0..steps {
        terms.extend(grid_load_terms(layout, t, -1.0));
    }
    if let Some(g) = layout.grid_storage {
        terms.extend((0..steps).map(|t| (g + t, -1.0)));
    }
    lp.row(&terms, RowKind::LessOrEqual, model.load_kw.iter().sum());
}

/// Financial.min/max_initial_capital_costs_before_incentives on new PV and storage.
fn add_capex_bounds(lp: &mut LinearProgram, layout: &Layout, model: &Model, case: &Case) {
    let bounds = &model.capex_bounds;
    if bounds.min.is_none() && bounds.max.is_none() {
        return;
    }
    let mut terms: Vec<(usize, f64)> = Vec::new();
    let mut constant = 0.0;
    if let (Some(pv), Some(new)) = (&model.pv, layout.pv_new) {
        terms.push((new, pv.installed_cost_per_kw));
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

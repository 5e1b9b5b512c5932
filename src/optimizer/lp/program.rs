//! The solver-neutral program and reading its solution: the variants solved (`Case`,
//! `SizeChoice`, `ExportBins`, `MicrogridMembers`), the `LinearProgram` with its rows and
//! `Expression`s, the `Layout` that says where each quantity lives among its variables, and
//! the `Dispatch` (sizes and series per step) read back from a solution vector.

use super::exports::{split_by_array, ArrayFlows, ExportGroup, BINS};
use super::chp::{ChpDispatch, ChpLayout};
use super::cooling::{CoolingDispatch, CoolingLayout};
use super::degradation::{DegradationDispatch, DegradationLayout};
use super::ghp::{GhpDispatch, GhpLayout};
use super::heat_pumps::{HeatPumpDispatch, HeatPumpLayout};
use super::heating::{HeatingDispatch, HeatingLayout};
use super::microgrid::{MicrogridDispatch, MicrogridLayout};
use super::steam_turbine::{SteamTurbineDispatch, SteamTurbineLayout};
use super::{load_target, CostFactors};
use crate::optimizer::model::Model;

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
    pub chp: bool,
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
    pub(in crate::optimizer) fn variable(&mut self, cost: f64, lower: f64, upper: f64) -> usize {
        self.objective.push(cost);
        self.lower.push(lower);
        self.upper.push(upper);
        self.integer.push(false);
        self.objective.len() - 1
    }

    /// A 0/1 variable.
    pub(in crate::optimizer) fn binary(&mut self, cost: f64) -> usize {
        let column = self.variable(cost, 0.0, 1.0);
        self.integer[column] = true;
        column
    }

    /// Whether the program has integer variables (and so needs the MILP solver).
    pub fn is_mixed_integer(&self) -> bool {
        self.integer.iter().any(|&integer| integer)
    }

    /// `count` consecutive variables with per-index costs; returns the first index.
    pub(in crate::optimizer) fn series(&mut self, count: usize, cost: impl Fn(usize) -> f64) -> usize {
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
    /// The arrays grouped by their export and curtailment flags, with their export series.
    pub export_groups: Vec<ExportGroup>,
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
    /// The bound on the generator's size (kW) its on/off rows use as big-M (0 without one).
    pub generator_size_bound: f64,
    /// Generator to load and to storage per step (None where it may not run).
    pub generator_load: Vec<Option<usize>>,
    pub generator_storage: Vec<Option<usize>>,
    /// Generator output curtailed per step (run at its turndown above what is used; only with
    /// the on/off binary).
    pub generator_curtail: Vec<Option<usize>>,
    /// The year's generator fuel (gal) as terms: slope · output and intercept · on per step.
    pub generator_fuel: Vec<(usize, f64)>,
    /// Off grid: the battery's operating reserve per step.
    pub battery_reserve: Option<usize>,
    /// The outage microgrids of the multiple-outage form.
    pub microgrid: Option<MicrogridLayout>,
    /// The heat balance and boilers (None without heating).
    pub heating: Option<HeatingLayout>,
    /// The cooling decisions (None when the existing chiller serves the whole load).
    pub cooling: Option<CoolingLayout>,
    /// The electric heating techs (None without them or in business as usual).
    pub heat_pumps: Option<HeatPumpLayout>,
    /// Combined heat and power (None without it or in business as usual).
    pub chp: Option<ChpLayout>,
    pub steam_turbine: Option<SteamTurbineLayout>,
    /// The storage's state of health (None without `model_degradation` or storage).
    pub degradation: Option<DegradationLayout>,
    /// The GHP design choice (None without GHP or in business as usual).
    pub ghp: Option<GhpLayout>,
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
    /// All arrays' exports per bin (net metering, wholesale, beyond the limit) per step.
    pub pv_nem: Vec<f64>,
    pub pv_whl: Vec<f64>,
    pub pv_exc: Vec<f64>,
    pub pv_curtail: Vec<f64>,
    /// Each array's flows (exports per bin, load, storage, curtailed) per step.
    pub pv_by_array: Vec<ArrayFlows>,
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
    pub heating: Option<HeatingDispatch>,
    pub chp: Option<ChpDispatch>,
    pub steam_turbine: Option<SteamTurbineDispatch>,
    pub degradation: Option<DegradationDispatch>,
    pub cooling: Option<CoolingDispatch>,
    pub ghp: Option<GhpDispatch>,
    /// One per `Model::heat_pumps` in the optimal case (empty otherwise).
    pub heat_pumps: Vec<HeatPumpDispatch>,
}

impl Dispatch {
    /// Grid purchases (to load and to storage) per step.
    pub fn grid_purchase(&self, t: usize) -> f64 {
        self.grid_load[t] + self.grid_storage[t]
    }

    /// Load served on site (renewables, storage, generator and CHP) per step.
    pub fn onsite_to_load(&self, t: usize) -> f64 {
        self.pv_load[t] + self.discharge[t] + self.generator_load[t] + self.chp.as_ref().map_or(0.0, |c| c.to_load_kw[t])
    }

    /// All PV exports per step.
    pub fn pv_export(&self, t: usize) -> f64 {
        self.pv_nem[t] + self.pv_whl[t] + self.pv_exc[t]
    }

    /// All exports per step (PV and CHP).
    pub fn export(&self, t: usize) -> f64 {
        self.pv_export(t) + self.chp.as_ref().map_or(0.0, |c| c.to_grid_total_kw(t))
    }

    /// Exports per bin (net metering, wholesale, beyond the limit) in step t: PV and CHP.
    pub fn export_by_bin(&self, t: usize) -> [f64; BINS] {
        let chp = |b: usize| self.chp.as_ref().map_or(0.0, |c| c.to_grid_kw[b][t]);
        [self.pv_nem[t] + chp(0), self.pv_whl[t] + chp(1), self.pv_exc[t] + chp(2)]
    }
}

impl Layout {
    /// Every export series with its bin (0 net metering, 1 wholesale, 2 beyond the limit): the
    /// PV groups' and CHP's.
    pub fn export_columns(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let chp = self.chp.iter().flat_map(|c| c.to_grid.iter().enumerate().filter_map(|(b, s)| s.map(|s| (b, s))));
        self.export_groups.iter().flat_map(|g| g.bins.iter().enumerate().filter_map(|(b, s)| s.map(|s| (b, s)))).chain(chp)
    }

    /// The series PV output goes to: load, storage, and each group's export bins.
    pub fn pv_uses(&self) -> Vec<usize> {
        let exports = self.export_groups.iter().flat_map(|g| g.bins.iter().flatten().copied());
        [self.pv_load, self.pv_storage].into_iter().flatten().chain(exports).collect()
    }

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
        let mut group_exports: Vec<[Vec<f64>; BINS]> = self.export_groups.iter().map(|g| g.bins.map(series)).collect();
        let bin_total = |b: usize| -> Vec<f64> { (0..self.steps).map(|t| group_exports.iter().map(|g| g[b][t]).sum()).collect() };
        let (mut pv_load, mut pv_storage, mut pv_nem, mut pv_whl, mut pv_exc) = (series(self.pv_load), series(self.pv_storage), bin_total(0), bin_total(1), bin_total(2));
        let read_exports = [pv_nem.clone(), pv_whl.clone(), pv_exc.clone()];
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
        let chp = match (&self.chp, &model.chp) {
            (Some(layout), Some(inputs)) => Some(layout.dispatch(x, inputs, self.steps, tolerance)),
            _ => None,
        };
        let chp_load = chp.as_ref().map_or(vec![0.0; self.steps], |c| c.to_load_kw.clone());
        let steam_turbine = self.steam_turbine.as_ref().map(|s| s.dispatch(x, self.steps, tolerance));
        let turbine_load = steam_turbine.as_ref().map_or(vec![0.0; self.steps], |s| s.to_load_kw.clone());
        // Negative where the chillers and the GHP use more electricity than the base ElectricLoad
        // holds; the electric heating techs' electricity is taken off it.
        let cooling_saving: Vec<f64> = (0..self.steps)
            .map(|t| {
                self.cooling.as_ref().map_or(0.0, |c| c.electric_saving(x, t)) + self.ghp.as_ref().map_or(0.0, |g| g.electric_saving_at(x, t))
                    - self.heat_pumps.as_ref().map_or(0.0, |h| h.electric_use(x, t))
            })
            .collect();
        for t in 0..self.steps {
            // Row residuals of the interior point: PV uses ≤ production, on-site supply ≤ load.
            let uses = pv_load[t] + pv_storage[t] + pv_nem[t] + pv_whl[t] + pv_exc[t];
            trim(uses - pv_production[t], &mut [&mut pv_exc[t], &mut pv_whl[t], &mut pv_nem[t], &mut pv_storage[t], &mut pv_load[t]]);
            let supply = pv_load[t] + discharge[t] + generator_load[t] + chp_load[t] + turbine_load[t] + cooling_saving[t];
            trim(supply - load_target[t], &mut [&mut pv_load[t], &mut generator_load[t], &mut discharge[t]]);
            // The groups keep their parts of each trimmed bin.
            for (b, trimmed) in [pv_nem[t], pv_whl[t], pv_exc[t]].into_iter().enumerate() {
                if read_exports[b][t] > trimmed {
                    let scale = trimmed / read_exports[b][t];
                    group_exports.iter_mut().for_each(|g| g[b][t] *= scale);
                }
            }
        }
        let pv_by_array = split_by_array(&self.export_groups, &group_exports, &pv_production_by_array, &pv_load, &pv_storage);
        let pv_curtail = (0..self.steps)
            .map(|t| clean(pv_production[t] - pv_load[t] - pv_storage[t] - pv_nem[t] - pv_whl[t] - pv_exc[t]))
            .collect();
        let grid_load: Vec<f64> = (0..self.steps)
            .map(|t| if model.has_grid(t) { clean(load_target[t] - pv_load[t] - discharge[t] - generator_load[t] - chp_load[t] - turbine_load[t] - cooling_saving[t]) } else { 0.0 })
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
            pv_by_array,
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
            heating: self.heating.as_ref().map(|h| h.dispatch(x, self.steps, tolerance)),
            cooling: match (&self.cooling, &model.cooling) {
                (Some(layout), Some(inputs)) => {
                    let ghp_cooling: Vec<f64> = (0..self.steps).map(|t| self.ghp.as_ref().map_or(0.0, |g| g.cooling_at(x, t))).collect();
                    Some(layout.dispatch(x, inputs, &ghp_cooling, tolerance))
                }
                _ => None,
            },
            ghp: self.ghp.as_ref().map(|g| g.dispatch(x, self.steps, tolerance)),
            chp,
            steam_turbine,
            degradation: self.degradation.as_ref().map(|g| g.dispatch(x)),
            heat_pumps: self.heat_pumps.as_ref().map_or_else(Vec::new, |h| h.dispatch(x, self.steps, tolerance)),
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

/// Adds up coefficients of repeated columns (the first step's headroom row names kwh twice).
pub(super) fn merge_terms(mut terms: Vec<(usize, f64)>) -> Vec<(usize, f64)> {
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

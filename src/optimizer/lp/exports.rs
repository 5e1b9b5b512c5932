//! Exports per technology (REopt.jl `src/constraints/electric_utility_constraints.jl`,
//! `add_export_constraints`, with the export bins of `fillin_techs_by_exportbin` in
//! `src/core/reopt_inputs.jl`). `ExportFlags` is the one rule which bins a technology may use
//! (the PV arrays and Wind, and CHP, whose series join its own electricity split in `chp`);
//! `add_net_metering_size_cap` caps the kW of every technology that can net meter. The renewable arrays
//! are grouped by their flags (`can_net_meter`, `can_wholesale`, `can_export_beyond_nem_limit`,
//! `can_curtail`); each group has its own export series for the bins (`:NEM`, `:WHL`, `:EXC`)
//! the case values and the group may use. Load and storage stay shared flows of all arrays.
//!
//! With groups g (arrays i ∈ g, production p_it = pf_it·lvl_i·(existing_i + new_i)), per step:
//!
//! ```text
//! Σ_b export_gb[t] ≤ Σ_{i∈g} p_it                                  (REopt (8e), per group)
//! pv_load + pv_storage + Σ_{g ∌ curtail} Σ_b export_gb ≥ Σ_{i ∌ curtail} p_it
//! ```
//!
//! (the second row only when some arrays may curtail and others may not). With the shared
//! balance `uses ≤ Σ_i p_it` these rows are exact: flows per array with the per-array balances
//! of REopt.jl exist exactly when they hold (give each array that may not curtail what its
//! exports leave of its production, the rest of load and storage to the others).
//!
//! With `allow_simultaneous_export_import = false` and export series in the case, a binary
//! b_t per step with the grid (REopt.jl `add_simultaneous_export_import_constraint`, the big-M
//! form the service uses with HiGHS, M = the largest load kW plus each heating load's largest kW):
//!
//! ```text
//! purchase_t + grid_storage_t ≤ M·(1 − b_t)        Σ_g Σ_b export_gb[t] + Σ_b chp_export_b[t] ≤ M·b_t
//! ```

use super::{supply_terms, Case, CostFactors, Layout, LinearProgram, RowKind, SizeChoice};
use crate::optimizer::model::{ExportFlags, Model, Pv};

/// The export bins: net metering, wholesale, beyond the net-metering limit.
pub const BINS: usize = 3;

/// The export flags of the technologies present in a case, each with the most kW it may reach
/// (the service's `techs.elec` with their bins, and the `max_sizes` its interconnection cap
/// sums): the arrays (their existing kW, plus the new kW they may add when sized) and CHP
/// (its max_kw) when it may export.
pub fn exporters(model: &Model, pv: SizeChoice, chp_present: bool) -> Vec<(ExportFlags, f64)> {
    let mut techs: Vec<(ExportFlags, f64)> = match pv {
        SizeChoice::Absent => Vec::new(),
        choice => model
            .pvs
            .iter()
            .map(|pv| {
                let growth = if choice == SizeChoice::Sized { pv.max_new_kw } else { 0.0 };
                (pv_flags(pv), pv.existing_kw + growth)
            })
            .collect(),
    };
    if let Some(chp) = model.chp.as_ref().filter(|c| chp_present && c.exports.any()) {
        techs.push((chp.exports, chp.max_kw));
    }
    techs
}

fn pv_flags(pv: &Pv) -> ExportFlags {
    ExportFlags { can_net_meter: pv.can_net_meter, can_wholesale: pv.can_wholesale, can_export_beyond_nem_limit: pv.can_export_beyond_nem_limit }
}

/// The bins of a case with value (net metering, wholesale, beyond the limit).
pub(super) fn valued_bins(case: &Case) -> [bool; BINS] {
    [case.exports.nem, case.exports.whl, case.exports.exc]
}

/// One export series per allowed bin, priced at −u·Δ·rate_t (0 in steps without the grid).
pub(super) fn export_series(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, allowed: [bool; BINS]) -> [Option<usize>; BINS] {
    let rates = &model.tariff;
    let utility = factors.utility_factor();
    let dt = model.step_hours();
    let steps = model.steps();
    let mut bins = [None; BINS];
    for (b, rate) in [&rates.nem_rate, &rates.wholesale_rate, &rates.export_beyond_nem_rate].into_iter().enumerate() {
        if allowed[b] {
            let start = lp.series(steps, |t| -utility * dt * rate[t]);
            (0..steps).filter(|&t| !model.has_grid(t)).for_each(|t| lp.upper[start + t] = 0.0);
            bins[b] = Some(start);
        }
    }
    bins
}

/// The net-metering or interconnection cap of a case on the total kW of the technologies that
/// can net meter (the service's `NEM_techs`: the arrays and CHP): Σ new_i + kw_chp ≤ cap − Σ existing_i.
pub(super) fn add_net_metering_size_cap(lp: &mut LinearProgram, layout: &Layout, model: &Model, case: &Case) {
    let Some(cap) = case.pv_total_cap_kw else { return };
    let arrays = layout.pv_new.iter().zip(&model.pvs).filter(|(_, pv)| pv.can_net_meter);
    let existing: f64 = model.pvs.iter().filter(|pv| pv.can_net_meter && case.pv != SizeChoice::Absent).map(|pv| pv.existing_kw).sum();
    let mut terms: Vec<(usize, f64)> = arrays.filter_map(|(new, _)| new.map(|j| (j, 1.0))).collect();
    if let (Some(chp), Some(inputs)) = (&layout.chp, &model.chp) {
        if inputs.exports.can_net_meter {
            terms.push((chp.size, 1.0));
        }
    }
    if !terms.is_empty() {
        lp.row(&terms, RowKind::LessOrEqual, cap - existing);
    }
}

/// Arrays sharing their export and curtailment flags, with their export series per bin.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportGroup {
    pub arrays: Vec<usize>,
    pub can_curtail: bool,
    /// First variable of the group's series in each bin (nem, whl, exc); None when unused.
    pub bins: [Option<usize>; BINS],
}

fn flags(pv: &Pv) -> (ExportFlags, bool) {
    (pv_flags(pv), pv.can_curtail)
}

/// The groups of the arrays and their export series, each priced at −u·Δ·rate_t (the bins of
/// `valued` that some array may use; none in steps without the grid).
pub(super) fn export_groups(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, valued: [bool; BINS]) -> Vec<ExportGroup> {
    let mut groups: Vec<ExportGroup> = Vec::new();
    let mut keys = Vec::new();
    for (i, pv) in model.pvs.iter().enumerate() {
        match keys.iter().position(|k| *k == flags(pv)) {
            Some(g) => groups[g].arrays.push(i),
            None => {
                keys.push(flags(pv));
                groups.push(ExportGroup { arrays: vec![i], can_curtail: pv.can_curtail, bins: [None; BINS] });
            }
        }
    }
    for (group, key) in groups.iter_mut().zip(&keys) {
        group.bins = export_series(lp, model, factors, key.0.allowed(valued));
    }
    groups
}

/// The production terms of some arrays in step t (new capacity, as −coefficient) and the
/// existing part (constant): Σ_i pf_it·lvl_i·(existing_i + new_i).
fn production(layout: &Layout, model: &Model, factors: &CostFactors, arrays: &[usize], t: usize, sign: f64) -> (Vec<(usize, f64)>, f64) {
    let mut terms = Vec::new();
    let mut existing = 0.0;
    for &i in arrays {
        let per_kw = model.pvs[i].production_factor[t] * factors.levelization[i];
        existing += per_kw * model.pvs[i].existing_kw;
        if let Some(new) = layout.pv_new[i] {
            terms.push((new, sign * per_kw));
        }
    }
    (terms, existing)
}

/// The rows of the module header, when the arrays form more than one group.
pub(super) fn add_export_rows(lp: &mut LinearProgram, layout: &Layout, model: &Model, factors: &CostFactors) {
    let groups = &layout.export_groups;
    if groups.len() < 2 {
        return;
    }
    let fixed: Vec<usize> = groups.iter().filter(|g| !g.can_curtail).flat_map(|g| g.arrays.iter().copied()).collect();
    let mixed = !fixed.is_empty() && groups.iter().any(|g| g.can_curtail);
    for t in 0..model.steps() {
        for group in groups.iter().filter(|g| g.bins.iter().any(Option::is_some)) {
            // Σ_b export_gb − Σ_{i∈g} pf·lvl·new_i ≤ Σ_{i∈g} pf·lvl·existing_i
            let (mut terms, existing) = production(layout, model, factors, &group.arrays, t, -1.0);
            terms.extend(group.bins.iter().flatten().map(|&start| (start + t, 1.0)));
            lp.row(&terms, RowKind::LessOrEqual, existing);
        }
        if mixed {
            // Σ_{i fixed} pf·lvl·new_i − pv_load − pv_storage − Σ_{g fixed} exports ≤ −Σ_{i fixed} pf·lvl·existing_i
            let (mut terms, existing) = production(layout, model, factors, &fixed, t, 1.0);
            terms.extend([layout.pv_load, layout.pv_storage].into_iter().flatten().map(|start| (start + t, -1.0)));
            for group in groups.iter().filter(|g| !g.can_curtail) {
                terms.extend(group.bins.iter().flatten().map(|&start| (start + t, -1.0)));
            }
            lp.row(&terms, RowKind::LessOrEqual, -existing);
        }
    }
}

/// The service's binary against exporting and buying in the same step (module header).
pub(super) fn add_no_simultaneous_export_import(lp: &mut LinearProgram, layout: &Layout, model: &Model) {
    let exports: Vec<usize> = layout.export_columns().map(|(_, start)| start).collect();
    if model.grid.allow_simultaneous_export_import || exports.is_empty() {
        return;
    }
    // The chillers and the GHP may buy beyond the load when they run above the base it holds.
    let chillers = model.cooling.as_ref().filter(|c| c.has_dispatch()).map_or(0.0, |c| c.max_added_electric_kw(model.time_steps_per_hour));
    let ghp = model.ghp.as_ref().map_or(0.0, |g| g.max_electric_kw());
    // The service's M also adds each heating load's peak (it matters once CHP exports).
    let heating: f64 = model.heating.as_ref().map_or(0.0, |h| h.loads.iter().map(|l| l.thermal_kw.iter().copied().fold(0.0, f64::max)).sum());
    let big_m = model.load_kw.iter().copied().fold(0.0, f64::max) + chillers + ghp + heating;
    for t in (0..model.steps()).filter(|&t| model.has_grid(t)) {
        let exporting = lp.binary(0.0);
        // purchase_t = load_t − supply_t + grid_storage_t:  −supply + grid_storage + M·b ≤ M − load_t
        let mut terms: Vec<(usize, f64)> = supply_terms(layout, t, -1.0).collect();
        terms.extend(layout.grid_storage.map(|g| (g + t, 1.0)));
        terms.push((exporting, big_m));
        lp.row(&terms, RowKind::LessOrEqual, big_m - model.load_kw[t]);
        let mut terms: Vec<(usize, f64)> = exports.iter().map(|&start| (start + t, 1.0)).collect();
        terms.push((exporting, -big_m));
        lp.row(&terms, RowKind::LessOrEqual, 0.0);
    }
}

/// The flows of one array per step: its exports per bin, and its part of load, storage and
/// curtailment.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ArrayFlows {
    pub to_grid: [Vec<f64>; BINS],
    pub to_load: Vec<f64>,
    pub to_storage: Vec<f64>,
    pub curtailed: Vec<f64>,
}

/// Splits the solved flows among the arrays: a group's exports by each member's share of the
/// group's production; what an array's exports leave of its production goes to load and
/// storage in full for the arrays that may not curtail, and the rest of load and storage to
/// the others by what their exports leave (the construction of the module header).
/// `group_exports[g][b]` are the group's cleaned series.
pub fn split_by_array(groups: &[ExportGroup], group_exports: &[[Vec<f64>; BINS]], production: &[Vec<f64>], pv_load: &[f64], pv_storage: &[f64]) -> Vec<ArrayFlows> {
    let steps = pv_load.len();
    let mut flows = vec![ArrayFlows::default(); production.len()];
    for array in flows.iter_mut() {
        *array = ArrayFlows { to_grid: std::array::from_fn(|_| vec![0.0; steps]), to_load: vec![0.0; steps], to_storage: vec![0.0; steps], curtailed: vec![0.0; steps] };
    }
    let mut left = vec![vec![0.0; steps]; production.len()];
    for (group, exports) in groups.iter().zip(group_exports) {
        for t in 0..steps {
            let total: f64 = group.arrays.iter().map(|&i| production[i][t]).sum();
            for &i in &group.arrays {
                let share = if total > 0.0 { production[i][t] / total } else { 0.0 };
                for (bin, exported) in flows[i].to_grid.iter_mut().zip(exports) {
                    bin[t] = exported[t] * share;
                }
                left[i][t] = (production[i][t] - flows[i].to_grid.iter().map(|s| s[t]).sum::<f64>()).max(0.0);
            }
        }
    }
    let curtails: Vec<bool> = {
        let mut c = vec![true; production.len()];
        groups.iter().for_each(|g| g.arrays.iter().for_each(|&i| c[i] = g.can_curtail));
        c
    };
    for t in 0..steps {
        let used = pv_load[t] + pv_storage[t];
        let fixed: f64 = (0..production.len()).filter(|&i| !curtails[i]).map(|i| left[i][t]).sum();
        let free: f64 = (0..production.len()).filter(|&i| curtails[i]).map(|i| left[i][t]).sum();
        let rest = (used - fixed).max(0.0);
        for i in 0..production.len() {
            let served = if !curtails[i] { left[i][t] } else if free > 0.0 { (rest * left[i][t] / free).min(left[i][t]) } else { 0.0 };
            let to_load = if used > 0.0 { served * pv_load[t] / used } else { 0.0 };
            flows[i].to_load[t] = to_load;
            flows[i].to_storage[t] = served - to_load;
            flows[i].curtailed[t] = left[i][t] - served;
        }
    }
    flows
}

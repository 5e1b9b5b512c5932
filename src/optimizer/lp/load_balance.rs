//! The load balance: the load each step must serve (`load_target`: the site load with the
//! grid, the critical load without it) and the on-site supply's row against it in every step,
//! with the annual share of the critical load that must be met off grid.

use super::{supply_terms, Case, Layout, LinearProgram, RowKind};
use crate::optimizer::model::Model;

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

/// With the grid, supply ≤ load_t (the purchase is the rest); without it, supply = the load
/// target (critical load), or off grid supply ≤ critical load with Σ supply ≥ the annual share
/// that must be met.
pub(super) fn add_load_balance(lp: &mut LinearProgram, layout: &Layout, model: &Model, case: &Case) {
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

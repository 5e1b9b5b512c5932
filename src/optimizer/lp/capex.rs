//! Financial's bounds on the initial capital cost (before incentives) of new PV and storage.

use super::{Case, Layout, LinearProgram, RowKind};
use crate::optimizer::model::Model;

/// Financial.min/max_initial_capital_costs_before_incentives on new PV and storage.
pub(super) fn add_capex_bounds(lp: &mut LinearProgram, layout: &Layout, model: &Model, case: &Case) {
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

//! The renewable arrays (PV and wind share these rows): each array's new capacity with the
//! priced pieces of its cost curve and its O&M, the net-metering or interconnection cap and the
//! roof and land space the arrays share (with CST's land, REopt.jl `LandConstraint`), the
//! production balance of each step (the uses of
//! the output at most, or without curtailment equal to, the production), and the
//! production-based incentives.

use super::{Case, CostFactors, Layout, LinearProgram, RowKind, SizeChoice};
use crate::optimizer::model::{ArrayKind, Model, Pv};

/// PV capacity of each array: `new_i` with its bounds and the priced pieces of its cost curve,
/// plus the O&M of the whole capacity (existing included) as objective terms.
pub(super) fn pv_size_variables(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, case: &Case) -> (Vec<Option<usize>>, Vec<Vec<usize>>) {
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

/// The space the arrays share (the net-metering cap on their kW is `exports::add_net_metering_size_cap`).
pub(super) fn add_pv_size_rows(lp: &mut LinearProgram, layout: &Layout, model: &Model) {
    let news: Vec<(usize, usize)> = layout.pv_new.iter().enumerate().filter_map(|(i, new)| new.map(|j| (i, j))).collect();
    if news.is_empty() {
        return;
    }
    for limit in &model.pv_space_limits {
        let terms: Vec<(usize, f64)> = news.iter().filter(|(i, _)| limit.arrays.contains(i)).map(|&(_, j)| (j, 1.0)).collect();
        lp.row(&terms, RowKind::LessOrEqual, limit.max_new_kw);
    }
}

/// The land CST shares with the PV arrays on the ground or both (REopt.jl `LandConstraint` of
/// `add_tech_size_constraints`): Σ acres_per_kw · (existing + new kW) of those arrays +
/// CST's acres_per_kw · its size ≤ `Site.land_acres`. Without such an array it is CST's own size
/// bound, already applied by the reader.
pub(super) fn add_land_row(lp: &mut LinearProgram, layout: &Layout, model: &Model) {
    let Some(heat_pumps) = &layout.heat_pumps else { return };
    let on_land: Vec<(usize, &Pv)> =
        model.pvs.iter().enumerate().filter(|(_, pv)| pv.kind == ArrayKind::Pv && pv.location != "roof" && pv.acres_per_kw > 0.0).collect();
    if on_land.is_empty() {
        return;
    }
    for (tech, columns) in model.heat_pumps.iter().zip(&heat_pumps.techs) {
        let Some(land) = tech.land else { continue };
        let mut terms = vec![(columns.size, land.acres_per_kw)];
        terms.extend(on_land.iter().filter_map(|&(i, pv)| layout.pv_new[i].map(|j| (j, pv.acres_per_kw))));
        let existing: f64 = on_land.iter().map(|(_, pv)| pv.acres_per_kw * pv.existing_kw).sum();
        lp.row(&terms, RowKind::LessOrEqual, land.site_acres - existing);
    }
}

pub(super) fn add_pv_balance(lp: &mut LinearProgram, layout: &Layout, model: &Model, factors: &CostFactors, case: &Case) {
    if model.pvs.is_empty() || case.pv == SizeChoice::Absent {
        return;
    }
    let uses = layout.pv_uses();
    let kind = if model.pvs.iter().all(|pv| pv.can_curtail) { RowKind::LessOrEqual } else { RowKind::Equal };
    for t in 0..model.steps() {
        let mut terms: Vec<(usize, f64)> = uses.iter().map(|&start| (start + t, 1.0)).collect();
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

/// Production-based incentives (REopt.jl `add_prod_incent_vars_and_constraints`), earned after
/// the owner's tax: per array with one, `inc ≤ per_kw · (existing + new)` and `inc ≤ cap`;
/// when the array can grow past `max_kw`, the service's binary `b` with `inc ≤ cap · b` and
/// `existing + new ≤ max_kw + (max_size − max_kw) · (1 − b)`. Without new capacity the
/// incentive is a constant; an array already above `max_kw` earns none.
pub(super) fn add_production_incentives(lp: &mut LinearProgram, layout: &Layout, model: &Model, factors: &CostFactors, case: &Case) {
    if case.pv == SizeChoice::Absent {
        return;
    }
    for (i, pv) in model.pvs.iter().enumerate() {
        let Some(incentive) = factors.production_incentives[i] else { continue };
        let Some(new) = layout.pv_new[i] else {
            lp.objective_constant -= factors.owner_after_tax * incentive.value(pv.existing_kw);
            continue;
        };
        if !incentive.eligible(pv.existing_kw) {
            continue;
        }
        let earned = lp.variable(-factors.owner_after_tax, 0.0, incentive.cap);
        lp.row(&[(earned, 1.0), (new, -incentive.per_kw)], RowKind::LessOrEqual, incentive.per_kw * pv.existing_kw);
        let beyond = pv.existing_kw + pv.max_new_kw - incentive.max_kw;
        if beyond > 0.0 {
            let eligible = lp.binary(0.0);
            lp.row(&[(earned, 1.0), (eligible, -incentive.cap)], RowKind::LessOrEqual, 0.0);
            lp.row(&[(new, 1.0), (eligible, beyond)], RowKind::LessOrEqual, pv.max_new_kw);
        }
    }
}

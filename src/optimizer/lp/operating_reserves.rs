//! Off-grid operating reserves: in every step the reserve the load and the renewables require
//! is at most what the battery, the renewables' unused output and the generator's spare
//! capacity hold.

use super::{supply_terms, Case, CostFactors, Layout, LinearProgram, RowKind, SizeChoice};
use crate::optimizer::model::Model;

/// Off grid, per step: the operating reserve required (the load's share of what is served, each
/// renewable array's own share of its output to load) is at most what the battery (its charge
/// above the minimum and its spare power), the renewables (their unused output, less their own
/// share) and the generator (its spare capacity above its output, curtailed output included) hold.
///
/// The arrays share one `pv_load` series, yet each array's share applies to its own flows. That
/// needs no flow per array: array i adds f_i·load_i to the requirement and can provide up to
/// (1 − f_i)·(production_i − load_i), so its net is load_i − (1 − f_i)·production_i, where
/// load_i enters with coefficient 1 whatever f_i is. Summed over the arrays this is
/// pv_load − Σ_i (1 − f_i)·production_i, as REopt.jl's per-technology rows reach at their best.
pub(super) fn add_operating_reserves(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors, case: &Case) {
    let Some(off_grid) = &model.off_grid else { return };
    let steps = model.steps();
    let dt = model.step_hours();
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
            // pv_load − Σ_i (1 − f_i)·production_i
            terms.push((pv_load + t, 1.0));
            for (i, pv) in model.pvs.iter().enumerate() {
                let unreserved = 1.0 - pv.operating_reserve_required_fraction;
                let production_per_kw = pv.production_factor[t] * factors.levelization[i];
                rhs += unreserved * production_per_kw * pv.existing_kw;
                if let Some(new) = layout.pv_new[i] {
                    terms.push((new, -unreserved * production_per_kw));
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

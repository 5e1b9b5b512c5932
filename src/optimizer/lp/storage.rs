//! Electric storage: the kW and kWh sizes with their costs, discharge and state of charge per
//! step, and the rows that bind them: the state-of-charge balance, the charging headroom,
//! power and energy limits, the minimum state of charge and the duration limits; with
//! `model_degradation` the state of health and its costs (`degradation`).

use super::degradation::add_degradation;
use super::{charge_flows, energy_value, CostFactors, Layout, LinearProgram, RowKind, StorageCosts};
use crate::optimizer::model::{Model, Storage};

pub(super) fn add_storage(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors, s: &Storage, costs: &StorageCosts) {
    let steps = model.steps();
    let dt = model.step_hours();
    let energy = |t: usize| energy_value(model, factors, t);
    let om = factors.om_factor() * s.om_cost_fraction_of_installed_cost;
    let kw = lp.variable(costs.net_present_cost_per_kw + om * s.installed_cost_per_kw, s.min_kw, s.max_kw);
    // With degradation the maintenance costs replace the O&M on the installed $/kWh (REopt.jl `reopt.jl`).
    let kwh_om = if s.degradation.is_some() { 0.0 } else { om * s.installed_cost_per_kwh };
    let kwh = lp.variable(costs.net_present_cost_per_kwh + kwh_om, s.min_kwh, s.max_kwh);
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
        let charge: Vec<(usize, f64)> = charge_flows(layout, t).into_iter().map(|i| (i, dt * eta_c)).collect();
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
        power.extend(charge_flows(layout, t).into_iter().map(|i| (i, 1.0)));
        lp.row(&power, RowKind::LessOrEqual, 0.0);
        lp.row(&[(soc + t, 1.0), (kwh, -1.0)], RowKind::LessOrEqual, 0.0);
        lp.row(&[(kwh, s.soc_min_fraction), (soc + t, -1.0)], RowKind::LessOrEqual, 0.0);
    }
    layout.degradation = s.degradation.as_ref().and_then(|g| add_degradation(lp, layout, model, s, g));
}

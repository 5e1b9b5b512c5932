//! Battery degradation (REopt.jl `add_degradation`, `src/constraints/battery_degradation.jl`): the
//! state of health of the electric storage day by day over the analysis period and the cost of
//! keeping its capacity, by daily augmentation or by replacement at 80 % health.
//!
//! Indices: D = 365·N days (N analysis years), y(d) = (d − 1) mod 365 the day of the modelled year
//! (the dispatch repeats every year), steps(y) its n_d = 24/Δ steps, J cycle-fade segments,
//! M = 12·N months. Variables (kWh unless said): `avg_y` (average stored energy of day y, ≥ 0),
//! per step and segment the charge `c_tj` and discharge `e_tj` (kW, ≥ 0), `out_yj` (energy
//! discharged in segment j on day y, ≥ 0), and `soh_d` (free: it may fall below zero). Rows:
//!
//! ```text
//! Average:    avg_y = Σ_{t∈steps(y)} soc_t / n_d
//! Segments:   Σ_j c_tj = pv_storage + grid_storage + generator_storage + chp_storage;  Σ_j e_tj = discharge_t
//!             Δ·c_tj ≤ f_j·kwh;  Δ·e_tj ≤ f_j·kwh
//! Discharged: out_yj = Δ Σ_{t∈steps(y)} e_tj
//! Health:     soh_1 = kwh;  soh_d = soh_{d−1} − Δ(k_cal·a·d^(a−1)·avg_{y(d−1)} + Σ_j k_j·out_{y(d−1)j}),  d = 2..D
//! ```
//!
//! (k_cal calendar fade, a time exponent, k_j and f_j the segments' fade coefficients and
//! fractions of the size.) The service defines its daily averages and discharges for all D days
//! from the same modelled year, so they equal those of day y(d); they are kept once per day of
//! the year here. Its daily charged energy and equivalent full cycles enter no other row and are
//! left out. Costs ($ present value; c_1..c_{D−1} the maintenance $/kWh list, c_k = installed $/kWh · pwf(k)):
//!
//! ```text
//! Augmentation:  maintenance = Σ_{d=2..D} c_{d−1}·(soh_{d−1} − soh_d);  residual = 0
//! Replacement:   binaries h_m (healthy at the end of month m) and r_m (first unhealthy month),
//!                s_m = r_m·kwh (kWh replaced), B the big M, δ(m) = round(30.4167·m):
//!                soh_δ(m) ≥ 0.8·kwh − B(1 − h_m);  soh_δ(m) ≤ 0.8·kwh + B·h_m
//!                r_1 = 1 − h_1;  r_m = h_{m−1} − h_m
//!                kwh − B(1 − r_m) ≤ s_m ≤ kwh + B(1 − r_m);  s_m ≤ B·r_m
//!                maintenance = Σ_m (Σ_{i=1..⌈D/p_m − 1⌉} c_{i·p_m})·s_m,  p_m = round(30.4167(m − 1) + 15)
//!                residual    = Σ_m c_{D−1}·(0.8 + 0.2(1 − frac(M/m)))·s_m
//! ```
//!
//! The objective gains maintenance − residual; the kWh size then carries no O&M on its installed
//! $/kWh (`storage`), and the reader zeroed the replacement costs.

use super::{charge_flows, Layout, LinearProgram, RowKind};
use crate::optimizer::model::degradation_inputs::{Degradation, MaintenanceStrategy};
use crate::optimizer::model::{Model, Storage};

const DAYS_PER_YEAR: usize = 365;
const DAYS_PER_MONTH: f64 = 30.4167;
/// The health below which the replacement strategy replaces the battery (fraction of the size).
const HEALTHY_FRACTION: f64 = 0.8;
/// The service's default `max_kwh`, which it treats as "no bound given" for its big M.
const UNBOUNDED_MAX_KWH: f64 = 1.0e6;

/// Where the degradation quantities live and how the costs read off them.
#[derive(Debug, Clone, PartialEq)]
pub struct DegradationLayout {
    /// First of the D state-of-health variables.
    pub soh: usize,
    pub days: usize,
    /// The maintenance cost and the residual value as terms of the solution.
    pub maintenance: Vec<(usize, f64)>,
    pub residual: Vec<(usize, f64)>,
    /// Replacement: the first of the M first-unhealthy-month binaries r_m.
    pub replacement_month: Option<usize>,
    pub months: usize,
}

/// The degradation results of a solved case.
#[derive(Debug, Clone, PartialEq)]
pub struct DegradationDispatch {
    /// kWh of healthy capacity at the start of each day.
    pub soh_kwh: Vec<f64>,
    pub maintenance_cost: f64,
    pub residual_value: f64,
    /// Replacement: the month (1..=M) in which the health first falls below 80 %, 0 for never.
    pub replacement_month: Option<u32>,
}

impl DegradationLayout {
    pub fn dispatch(&self, x: &[f64]) -> DegradationDispatch {
        let value = |terms: &[(usize, f64)]| terms.iter().map(|&(j, a)| a * x[j]).sum::<f64>();
        let replacement_month = self.replacement_month.map(|r| (0..self.months).map(|m| (m + 1) as f64 * x[r + m]).sum::<f64>().round() as u32);
        DegradationDispatch {
            soh_kwh: x[self.soh..self.soh + self.days].to_vec(),
            maintenance_cost: value(&self.maintenance),
            residual_value: value(&self.residual),
            replacement_month,
        }
    }
}

/// The big M of the replacement rows: a day of the peak load, or the kWh bound when one is given.
fn big_m(model: &Model, s: &Storage) -> f64 {
    let day_of_peak = 24.0 * model.load_kw.iter().copied().fold(0.0, f64::max);
    if s.max_kwh == UNBOUNDED_MAX_KWH || s.max_kwh == 0.0 { day_of_peak } else { day_of_peak.max(s.max_kwh) }
}

/// The fraction of the size still healthy at the end of the analysis period after `replacements`
/// (fractional) replacement periods: 80 % plus the unused part of the last 20 %.
pub fn healthy_fraction_left(replacements: f64) -> f64 {
    HEALTHY_FRACTION + (1.0 - HEALTHY_FRACTION) * (1.0 - replacements.fract())
}

/// The `(maintenance $/kWh, residual $/kWh)` of replacing the battery in month m (1-based) over D days.
pub fn replacement_costs(costs: &[f64], months: usize, m: usize) -> (f64, f64) {
    let days = costs.len() + 1;
    let period = ((m - 1) as f64 * DAYS_PER_MONTH + 15.0).round() as usize;
    let replacements = (days as f64 / period as f64 - 1.0).ceil() as usize;
    // The service's (1-based) entry period·i: the cost of the i-th replacement.
    let maintenance = (1..=replacements).map(|i| costs[period * i - 1]).sum();
    let residual = costs[days - 2] * healthy_fraction_left(months as f64 / m as f64);
    (maintenance, residual)
}

/// The degradation rows on the storage's columns in `layout` (None before the storage is built).
pub(super) fn add_degradation(lp: &mut LinearProgram, layout: &Layout, model: &Model, s: &Storage, g: &Degradation) -> Option<DegradationLayout> {
    let (Some(kwh), Some(soc), Some(discharge)) = (layout.storage_kwh, layout.soc, layout.discharge) else { return None };
    let dt = model.step_hours();
    let steps_per_day = model.time_steps_per_hour * 24;
    let segments = g.cycle_fade_coefficient.len();
    let days = g.maintenance_cost_per_kwh.len() + 1;

    let average = lp.series(DAYS_PER_YEAR, |_| 0.0);
    for y in 0..DAYS_PER_YEAR {
        let mut row = vec![(average + y, 1.0)];
        row.extend((y * steps_per_day..(y + 1) * steps_per_day).map(|t| (soc + t, -1.0 / steps_per_day as f64)));
        lp.row(&row, RowKind::Equal, 0.0);
    }
    let steps = model.steps();
    let charge = lp.series(steps * segments, |_| 0.0);
    let out = lp.series(steps * segments, |_| 0.0);
    for t in 0..steps {
        let mut charged: Vec<(usize, f64)> = (0..segments).map(|j| (charge + t * segments + j, 1.0)).collect();
        charged.extend(charge_flows(layout, t).into_iter().map(|i| (i, -1.0)));
        lp.row(&charged, RowKind::Equal, 0.0);
        let mut discharged: Vec<(usize, f64)> = (0..segments).map(|j| (out + t * segments + j, 1.0)).collect();
        discharged.push((discharge + t, -1.0));
        lp.row(&discharged, RowKind::Equal, 0.0);
        for (j, fraction) in g.cycle_fade_fraction.iter().enumerate() {
            lp.row(&[(charge + t * segments + j, dt), (kwh, -fraction)], RowKind::LessOrEqual, 0.0);
            lp.row(&[(out + t * segments + j, dt), (kwh, -fraction)], RowKind::LessOrEqual, 0.0);
        }
    }
    let discharged = lp.series(DAYS_PER_YEAR * segments, |_| 0.0);
    for y in 0..DAYS_PER_YEAR {
        for j in 0..segments {
            let mut row = vec![(discharged + y * segments + j, 1.0)];
            row.extend((y * steps_per_day..(y + 1) * steps_per_day).map(|t| (out + t * segments + j, -dt)));
            lp.row(&row, RowKind::Equal, 0.0);
        }
    }

    let soh = lp.series(days, |_| 0.0);
    (soh..soh + days).for_each(|j| lp.lower[j] = f64::NEG_INFINITY);
    lp.row(&[(soh, 1.0), (kwh, -1.0)], RowKind::Equal, 0.0);
    let (k_cal, a) = (g.calendar_fade_coefficient, g.time_exponent);
    for d in 1..days {
        // d is 0-based: the service's day d + 1, fading by the previous day's use.
        let y = (d - 1) % DAYS_PER_YEAR;
        let mut row = vec![(soh + d, 1.0), (soh + d - 1, -1.0), (average + y, dt * k_cal * a * ((d + 1) as f64).powf(a - 1.0))];
        row.extend(g.cycle_fade_coefficient.iter().enumerate().map(|(j, k)| (discharged + y * segments + j, dt * k)));
        lp.row(&row, RowKind::Equal, 0.0);
    }

    let months = days / DAYS_PER_YEAR * 12;
    let costs = &g.maintenance_cost_per_kwh;
    let (maintenance, residual, replacement_month) = match g.maintenance_strategy {
        MaintenanceStrategy::Augmentation => {
            let terms = costs.iter().enumerate().flat_map(|(k, c)| [(soh + k, *c), (soh + k + 1, -c)]).collect();
            (terms, Vec::new(), None)
        }
        MaintenanceStrategy::Replacement => {
            let b = big_m(model, s);
            let healthy: Vec<usize> = (0..months).map(|_| lp.binary(0.0)).collect();
            let first_unhealthy: Vec<usize> = (0..months).map(|_| lp.binary(0.0)).collect();
            let replaced = lp.series(months, |_| 0.0);
            let (mut maintenance, mut residual) = (Vec::new(), Vec::new());
            for m in 0..months {
                let day = ((m + 1) as f64 * DAYS_PER_MONTH).round() as usize;
                let health = soh + day - 1;
                lp.row(&[(health, -1.0), (kwh, HEALTHY_FRACTION), (healthy[m], b)], RowKind::LessOrEqual, b);
                lp.row(&[(health, 1.0), (kwh, -HEALTHY_FRACTION), (healthy[m], -b)], RowKind::LessOrEqual, 0.0);
                match m {
                    0 => lp.row(&[(first_unhealthy[0], 1.0), (healthy[0], 1.0)], RowKind::Equal, 1.0),
                    _ => lp.row(&[(first_unhealthy[m], 1.0), (healthy[m - 1], -1.0), (healthy[m], 1.0)], RowKind::Equal, 0.0),
                }
                let (r, e) = (first_unhealthy[m], replaced + m);
                lp.row(&[(e, -1.0), (kwh, 1.0), (r, b)], RowKind::LessOrEqual, b);
                lp.row(&[(e, 1.0), (kwh, -1.0), (r, b)], RowKind::LessOrEqual, b);
                lp.row(&[(e, 1.0), (r, -b)], RowKind::LessOrEqual, 0.0);
                let (cost, value) = replacement_costs(costs, months, m + 1);
                maintenance.push((e, cost));
                residual.push((e, value));
            }
            // The r_m are consecutive binaries: the first of them reads the month back.
            (maintenance, residual, Some(first_unhealthy[0]))
        }
    };
    for &(j, a) in &maintenance {
        lp.objective[j] += a;
    }
    for &(j, a) in &residual {
        lp.objective[j] -= a;
    }
    Some(DegradationLayout { soh, days, maintenance, residual, replacement_month, months })
}

//! The electric tariff's rows: energy tiers (the per-step purchase in each tier, the monthly
//! tier limits, and the falling-tier choice with the least monthly purchase that can decide it
//! in advance), billed demand peaks (monthly, time-of-use and coincident, each tiered), demand
//! lookback, the net-metering cap on credited exports (all groups' net-metering bins), and the annual minimum charge.

use super::program::merge_terms;
use super::{supply_terms, CostFactors, Expression, Layout, LinearProgram, PeakVariables, RowKind};
use crate::optimizer::model::Model;
use crate::optimizer::tariff::{TieredCharge, UNLIMITED_DEMAND_TIER_KW};

/// Tier limits at or above this are no limit at all (kWh per month, kW).
pub const NO_TIER_LIMIT: f64 = 1.0e9;
/// Relative (and absolute, kWh) margin by which the least use must pass a tier's limit for its
/// falling choice to count as decided.
const DECIDED_MARGIN: f64 = 1.0e-6;

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
pub(super) fn add_energy_tiers(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors) {
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
/// the site could supply itself, every array, the generator, CHP and the steam turbine at their largest sizes, and the
/// storage emptied from full (its charging comes from these same sources or from the grid, a
/// purchase). Negative when the site could cover the month.
fn least_monthly_purchase(layout: &Layout, model: &Model, factors: &CostFactors) -> [f64; 12] {
    let dt = model.step_hours();
    let has_pv = !layout.pv_uses().is_empty();
    let generator_kw = model.generator.as_ref().map_or(0.0, |g| g.largest_kw(layout.generator_new.is_some()));
    let chp_kw = match (&layout.chp, &model.chp) {
        (Some(_), Some(chp)) => chp.max_kw,
        _ => 0.0,
    };
    let turbine_kw = match (&layout.steam_turbine, &model.steam_turbine) {
        (Some(_), Some(st)) => st.max_kw,
        _ => 0.0,
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
        least[model.tariff.month_of_step[t] as usize] += dt * (model.load_kw[t] - pv_kw - generator - chp_kw - turbine_kw);
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
pub(super) fn add_demand(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors) {
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
pub(super) fn add_lookback(lp: &mut LinearProgram, layout: &Layout, model: &Model) {
    use crate::optimizer::tariff::Lookback;
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

/// Σ nem ≤ Σ purchase over the steps with the grid (the net-metering bins of PV and CHP): Σ (pv_nem + supply − grid_storage) ≤ Σ load.
pub(super) fn add_net_metering_cap(lp: &mut LinearProgram, layout: &Layout, model: &Model) {
    let nem: Vec<usize> = layout.export_columns().filter(|&(b, _)| b == 0).map(|(_, start)| start).collect();
    if nem.is_empty() {
        return;
    }
    let grid_steps: Vec<usize> = (0..model.steps()).filter(|&t| model.has_grid(t)).collect();
    let mut terms: Vec<(usize, f64)> = grid_steps.iter().flat_map(|&t| nem.iter().map(move |&start| (start + t, 1.0))).collect();
    for &t in &grid_steps {
        terms.extend(purchase_terms(layout, t, -1.0));
    }
    lp.row(&terms, RowKind::LessOrEqual, grid_steps.iter().map(|&t| model.load_kw[t]).sum());
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
        let export_rates = [tariff.nem_rate[t], tariff.wholesale_rate[t], tariff.export_beyond_nem_rate[t]];
        bill.terms.extend(layout.export_columns().map(|(b, start)| (start + t, -dt * export_rates[b])));
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
pub(super) fn add_min_charge(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors) {
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

//! Combined heat and power (REopt.jl `src/constraints/chp_constraints.jl` and the CHP terms of
//! `thermal_tech_constraints.jl` and `reopt.jl`): its size, its rated output per step with the
//! on/off binary, the fuel and heat lines with their intercepts, supplementary firing, hourly
//! O&M, and where its electricity (load, electric storage, the grid's export bins it may use) and heat (load, hot storage, waste,
//! the steam turbine when `can_supply_steam_turbine`) go. The electric and heat balances take the to-load and to-storage columns made here.
//!
//! Variables per step t: rated output `p_t` (kW), `on_t` ∈ {0,1}; with a nonzero intercept the
//! fuel intercept `yf_t` and heat intercept `yh_t`; with supplementary firing its heat `sf_t`;
//! with hourly O&M `oh_t`; electricity to load `el_t`, to storage `es_t` and, with `can_curtail`,
//! curtailed `ec_t` (the service's `dvCurtail`, fixed at 0 otherwise), exported `eg_bt` in each
//! bin b its flags allow in the case (`exports::export_series`, 0 without the grid); heat to load
//! `hl_t`, to storage `hs_t`, to waste `hw_t` and to the steam turbine `ht_t`. Once: size `kw`, supplementary firing size
//! `sf_kw`. With M = max_kw, td the minimum turndown and r the supplementary steam ratio:
//!
//! ```text
//! Maintenance: p_t = 0 in the steps of `unavailability_periods` but the deterministic outage's
//!              (the service's production factor is 1 there; off grid it holds in every step)
//! Size:        p_t ≤ kw;  min_kw ≤ kw ≤ max_kw
//! Cost curve:  with several pieces or min_allowable_kw (m_a), per piece s a size k_s and a
//!              binary z_s: max(x_s, m_a)·z_s ≤ k_s ≤ min(x_{s+1}, M)·z_s;  Σ k_s = kw;  Σ z_s ≤ 1
//!              (REopt.jl `add_cost_curve_vars_and_constraints`), costing slope_s·k_s + y_s·z_s
//! On/off:      p_t ≤ M·on_t;  td·kw − p_t ≤ td·M·(1 − on_t) in the steps with the grid
//! Fuel:        fuel_t = Δ(yf_t + a_f·p_t + sf_t/η_sf),  yf_t ≥ b_f·kw − min(b_f, 1)·M·(1 − on_t)
//! Heat:        hl_t + hs_t + hw_t + ht_t = a_h·p_t + yh_t + sf_t
//!              yh_t ≤ b_h·kw;  yh_t ≤ b_h·M·on_t;  yh_t ≥ b_h·kw − b_h·M·(1 − on_t)
//! Firing:      sf_t ≤ (r − 1)·(a_h·sf_kw + yh_t);  sf_t ≤ (r − 1)·(a_h·H + yh_t)
//! Electricity: el_t + es_t + ec_t + Σ_b eg_bt = p_t
//! Hourly O&M:  c·kw − c·M·(1 − on_t) ≤ oh_t ≤ min(c·kw, c·M·on_t)
//! ```
//!
//! With its `can_serve_*` flags all false (`makes_heat` false) every heat column is 0, as the
//! service fixes its heating production: the heat line then holds its output at 0 unless it makes
//! no heat (electric-only).
//!
//! Off grid (every step without the grid) there is no turndown, and the CHP neither provides
//! nor requires operating reserves (REopt.jl `Techs`: it is in neither `providing_oper_res` nor
//! `requiring_oper_res`); its electricity serves the off-grid balance as the others'.
//!
//! The service writes M for every big-M; the turndown's and the (positive, at most 1) fuel
//! intercept's are scaled down to the largest value their left side reaches off (kw ≤ M,
//! p_t ≥ 0, yf_t ≥ 0), which keeps the same integer points and a much tighter relaxation. With no
//! turndown, no intercepts and no hourly O&M the binary only allows p_t > 0: it is left out and
//! the CHP is on in the steps it runs.
//!
//! (a, b) are the slope and intercept of the service's part-load lines (`part_load_line`); H is
//! the largest heating load, the service's bound on the firing when its solver (HiGHS) has no
//! indicator constraints. Objective ($ present value): fuel at pwf_fuel·(1 − τ_o)·$/kWh of fuel,
//! O&M per kWh and per hour at pwf_om·(1 − τ_w), the size at its net present cost after MACRS
//! and ITC (the cost curve's pieces, `capital_pieces`) plus fixed O&M and standby charges
//! (12·rate·pwf_e·(1 − τ_o)), the firing size at its capital cost, and electricity to load
//! earning the energy it saves, exports earning −u·Δ·rate_bt.

use super::exports::BINS;
use super::{
    energy_value, export_series, fuel_present_worth, production_incentive_present_worth, region_incentives, valued_bins, Case, CostFactors, LinearProgram,
    RowKind,
};
use crate::optimizer::finance::{cost_curve_itc_basis, effective_cost, incentive_cost_curve, TaxTreatment};
use crate::optimizer::model::chp_inputs::Chp;
use crate::optimizer::model::Model;

/// Intercepts smaller than this are none (the service's threshold).
const NO_INTERCEPT: f64 = 1.0e-7;

/// Where the CHP's quantities live in the LP.
#[derive(Debug, Clone, PartialEq)]
pub struct ChpLayout {
    pub size: usize,
    pub supplementary_size: Option<usize>,
    /// First column of each series (per step).
    pub rated: usize,
    /// None when the binary changes nothing (no turndown, intercepts or hourly O&M).
    pub on: Option<usize>,
    pub fuel_intercept: Option<usize>,
    pub heat_intercept: Option<usize>,
    pub supplementary: Option<usize>,
    pub to_load: usize,
    pub to_storage: Option<usize>,
    /// Electricity curtailed (None unless `can_curtail`).
    pub curtailed: Option<usize>,
    /// Electricity exported per bin (net metering, wholesale, beyond the limit; None when unused).
    pub to_grid: [Option<usize>; BINS],
    pub heat_to_load: usize,
    pub heat_to_storage: Option<usize>,
    pub heat_to_waste: usize,
    /// Heat to the steam turbine (None unless it may feed one in this case).
    pub heat_to_turbine: Option<usize>,
    /// With a cost curve of pieces: each piece's size and binary (the outage microgrids'
    /// upgrade cost is priced on them).
    pub cost_pieces: Vec<(usize, usize)>,
}

/// The CHP's dispatch in a solution (kW per step; sizes kW).
#[derive(Debug, Clone, PartialEq)]
pub struct ChpDispatch {
    pub size_kw: f64,
    pub supplementary_size_kw: f64,
    pub rated_kw: Vec<f64>,
    pub on: Vec<f64>,
    pub to_load_kw: Vec<f64>,
    pub to_storage_kw: Vec<f64>,
    pub curtailed_kw: Vec<f64>,
    /// Exported per bin (net metering, wholesale, beyond the limit).
    pub to_grid_kw: [Vec<f64>; BINS],
    /// Fuel burned per step (kW of fuel).
    pub fuel_kw: Vec<f64>,
    /// Heat made by supplementary firing (kW thermal).
    pub supplementary_kw: Vec<f64>,
    pub heat_to_load_kw: Vec<f64>,
    pub heat_to_storage_kw: Vec<f64>,
    pub heat_to_waste_kw: Vec<f64>,
    pub heat_to_turbine_kw: Vec<f64>,
}

impl ChpDispatch {
    /// Heat made per step (to load, storage, waste and the steam turbine).
    pub fn heat_kw(&self, t: usize) -> f64 {
        self.heat_to_load_kw[t] + self.heat_to_storage_kw[t] + self.heat_to_waste_kw[t] + self.heat_to_turbine_kw[t]
    }

    /// Exported per step (all bins).
    pub fn to_grid_total_kw(&self, t: usize) -> f64 {
        self.to_grid_kw.iter().map(|bin| bin[t]).sum()
    }
}

/// The service's "big number" size that ends every cost curve (kW).
const CURVE_END_KW: f64 = 1.0e10;

/// One piece of the CHP's capital cost curve after MACRS and the ITC: `slope·kw + intercept` $
/// present value for a size in [min_kw, max_kw].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostPiece {
    pub min_kw: f64,
    pub max_kw: f64,
    pub slope: f64,
    pub intercept: f64,
}

/// The break points (kW) of the installed cost and the cost before incentives there ($): from
/// the origin through each (size, size·$/kW), on at the last $/kW (REopt.jl `cost_curve`).
fn curve_points(chp: &Chp) -> (Vec<f64>, Vec<f64>) {
    let costs = &chp.installed_cost_per_kw;
    let last = costs.last().copied().unwrap_or(0.0);
    let mut xs = vec![0.0];
    xs.extend(&chp.tech_sizes_for_cost_curve);
    let mut ys = vec![0.0];
    ys.extend(chp.tech_sizes_for_cost_curve.iter().zip(costs).map(|(x, c)| x * c));
    xs.push(CURVE_END_KW);
    ys.push(CURVE_END_KW * last);
    (xs, ys)
}

/// The $/kW before incentives of piece `s` of `curve_points`: exact for a single cost (and for
/// the first and last pieces, as the service takes them), else the chord's.
fn chord_cost_per_kw(chp: &Chp, xs: &[f64], ys: &[f64], s: usize) -> f64 {
    let costs = &chp.installed_cost_per_kw;
    if s == 0 {
        costs[0]
    } else if s + 2 == xs.len() {
        costs[costs.len() - 1]
    } else {
        (ys[s + 1] - ys[s]) / (xs[s + 1] - xs[s])
    }
}

/// Whether a utility or state IBI or rebate changes the cost curve.
fn has_regional_incentives(chp: &Chp) -> bool {
    let i = &chp.incentives;
    [i.utility_ibi_fraction, i.utility_rebate_per_kw, i.state_ibi_fraction, i.state_rebate_per_kw].iter().any(|&x| x != 0.0)
}

/// The cost curve's break points after the utility and then the state IBIs and rebates (REopt.jl
/// `cost_curve`'s regions before the federal one; a cap adds the break point where it is
/// reached), and the $/kW of piece s there: `chord_cost_per_kw` without such incentives.
fn pre_federal_curve(chp: &Chp) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (xs, ys) = curve_points(chp);
    if !has_regional_incentives(chp) {
        let costs = (0..xs.len() - 1).map(|s| chord_cost_per_kw(chp, &xs, &ys, s)).collect();
        return (xs, ys, costs);
    }
    let (utility, state) = region_incentives(&chp.incentives);
    let (xs, ys) = incentive_cost_curve(xs, ys, &utility, &state);
    let costs = (0..xs.len() - 1).map(|s| (ys[s + 1] - ys[s]) / (xs[s + 1] - xs[s])).collect();
    (xs, ys, costs)
}

/// The pieces of the capital cost curve after the IBIs, rebates, MACRS and the ITC (REopt.jl
/// `cost_curve` and `update_cost_curve!`): each piece's $/kW after the utility and state
/// incentives, the ITC and the federal rebate is rounded to whole dollars, taken back to its ITC
/// basis and brought to its net present cost (the federal rebate off); the pieces are joined end
/// to end from the origin, and none starts below min_allowable_kw.
pub fn capital_pieces(model: &Model, chp: &Chp) -> Vec<CostPiece> {
    let tax = tax_treatment(model, chp);
    let (xs, _, costs) = pre_federal_curve(chp);
    let rebate = chp.incentives.federal_rebate_per_kw;
    let mut at = 0.0;
    (0..xs.len() - 1)
        .map(|s| {
            let basis = cost_curve_itc_basis(costs[s], chp.incentives.federal_itc_fraction, rebate);
            let slope = effective_cost(basis, None, &tax, rebate);
            at += slope * (xs[s + 1] - xs[s]);
            CostPiece { min_kw: xs[s].max(chp.min_allowable_kw), max_kw: xs[s + 1], slope, intercept: at - slope * xs[s + 1] }
        })
        .collect()
}

/// Whether the cost curve needs its pieces' binaries (several pieces, or a smallest size).
fn segmented(pieces: &[CostPiece], chp: &Chp) -> bool {
    pieces.len() > 1 || chp.min_allowable_kw > 0.0
}

/// The piece a size is bought on: the cheapest that holds it (the pieces meet at their ends).
fn piece_of(pieces: &[CostPiece], kw: f64) -> Option<usize> {
    let cost = |p: &CostPiece| p.slope * kw + p.intercept;
    let tolerance = 1e-6 * (1.0 + kw);
    (0..pieces.len())
        .filter(|&s| kw >= pieces[s].min_kw - tolerance && kw <= pieces[s].max_kw + tolerance)
        .min_by(|&a, &b| cost(&pieces[a]).total_cmp(&cost(&pieces[b])))
}

/// Net present capital cost of a size after MACRS and the ITC ($; 0 for none).
pub fn net_present_capital(model: &Model, chp: &Chp, kw: f64) -> f64 {
    let pieces = capital_pieces(model, chp);
    match piece_of(&pieces, kw).filter(|_| kw > 0.0) {
        Some(s) => pieces[s].slope * kw + pieces[s].intercept,
        None => 0.0,
    }
}

/// Installed cost of a size before incentives ($): on the chord of the given curve that holds the
/// piece it is bought on, each middle chord's $/kW and intercept rounded to whole dollars as the
/// service does (REopt.jl `add_capex_constraints`).
pub fn initial_capital(model: &Model, chp: &Chp, kw: f64) -> f64 {
    let (xs, ys) = curve_points(chp);
    let pieces = capital_pieces(model, chp);
    let Some(piece) = piece_of(&pieces, kw).filter(|_| kw > 0.0) else { return 0.0 };
    // Incentive caps split the given chords; each piece ends inside or at the end of one.
    let tolerance = 1e-9 * pieces[piece].max_kw.max(1.0);
    let s = (0..xs.len() - 1).find(|&s| xs[s + 1] >= pieces[piece].max_kw - tolerance).unwrap_or(xs.len() - 2);
    let slope = chord_cost_per_kw(chp, &xs, &ys, s);
    if s == 0 || s + 2 == xs.len() {
        return slope * kw;
    }
    let slope = slope.round_ties_even();
    slope * kw + (ys[s] - slope * xs[s]).round_ties_even()
}

/// The CHP's tax treatment: MACRS and the federal ITC at the owner's rates (the cost-curve rule of
/// `cost_factors`, kept here because importing it would close a module circle through `heating`).
fn tax_treatment(model: &Model, chp: &Chp) -> TaxTreatment {
    let f = &model.financial;
    TaxTreatment {
        owner_discount_rate: f.owner_discount_rate_fraction,
        owner_tax_rate: f.owner_tax_rate_fraction,
        itc_fraction: chp.incentives.federal_itc_fraction,
        macrs_option_years: chp.incentives.macrs_option_years,
        macrs_bonus_fraction: chp.incentives.macrs_bonus_fraction,
        macrs_itc_reduction: chp.incentives.macrs_itc_reduction,
        bonus_without_macrs: false,
    }
}

/// $ present value per kW of CHP size: fixed O&M and standby charges, and the capital after
/// MACRS and ITC when the curve is a single piece through the origin (else its pieces carry it),
/// times the third-party factor as the service's `TotalTechCapCosts`.
pub fn size_cost_per_kw(model: &Model, factors: &CostFactors, chp: &Chp) -> f64 {
    let pieces = capital_pieces(model, chp);
    let capital = if segmented(&pieces, chp) { 0.0 } else { factors.third_party_factor * pieces[0].slope };
    capital + factors.om_factor() * chp.om_cost_per_kw + standby_cost_per_kw(factors, chp)
}

/// Lifecycle standby charges per kW of size, after tax.
pub fn standby_cost_per_kw(factors: &CostFactors, chp: &Chp) -> f64 {
    factors.utility_factor() * 12.0 * chp.standby_rate_per_kw_per_month
}

/// `count` binaries in a row; returns the first.
fn binaries(lp: &mut LinearProgram, count: usize) -> usize {
    let start = lp.series(count, |_| 0.0);
    for j in start..start + count {
        lp.upper[j] = 1.0;
        lp.integer[j] = true;
    }
    start
}

/// Adds the CHP's variables and rows in the optimal case; None without CHP or in business as usual.
pub(super) fn add_chp(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, case: &Case) -> Option<ChpLayout> {
    let chp = model.chp.as_ref().filter(|_| !case.bau)?;
    let heating = model.heating.as_ref();
    let steps = model.steps();
    let dt = model.step_hours();
    let big = chp.max_kw;
    let fuel_per_kwh = |t: usize| fuel_present_worth(model, &chp.burner) * factors.offtaker_after_tax * dt * chp.burner.fuel_cost_per_kwh[t];
    let size = lp.variable(size_cost_per_kw(model, factors, chp), chp.min_kw, chp.max_kw);
    let om_per_kwh = factors.om_factor() * dt * chp.om_cost_per_kwh;
    let rated = lp.series(steps, |t| chp.fuel_slope * fuel_per_kwh(t) + om_per_kwh);
    let has_fuel_intercept = chp.fuel_intercept.abs() > NO_INTERCEPT;
    let has_heat_intercept = chp.thermal_intercept.abs() > NO_INTERCEPT;
    let hourly_om = chp.om_cost_per_hr_per_kw_rated > NO_INTERCEPT;
    let needs_on = chp.min_turn_down_fraction > 0.0 || has_fuel_intercept || has_heat_intercept || hourly_om;
    let on = needs_on.then(|| binaries(lp, steps));
    let fuel_intercept = has_fuel_intercept.then(|| lp.series(steps, fuel_per_kwh));
    let heat_intercept = has_heat_intercept.then(|| lp.series(steps, |_| 0.0));
    let firing = chp.has_supplementary_firing();
    let supplementary_size = firing.then(|| lp.variable(chp.supplementary_firing_capital_cost_per_kw, 0.0, f64::INFINITY));
    let supplementary = firing.then(|| lp.series(steps, |t| fuel_per_kwh(t) / chp.supplementary_firing_efficiency));
    let electric_storage = model.storage.is_some() && case.storage;
    let to_load = lp.series(steps, |t| -energy_value(model, factors, t));
    let to_storage = electric_storage.then(|| lp.series(steps, |_| 0.0));
    let curtailed = chp.can_curtail.then(|| lp.series(steps, |_| 0.0));
    let to_grid = export_series(lp, model, factors, chp.exports.allowed(valued_bins(case)));
    let hot_storage = heating.is_some_and(|h| !h.hot_storages.is_empty());
    let heat_to_load = lp.series(steps, |_| 0.0);
    if heating.is_none() {
        // No heating load: all the heat made is wasted.
        lp.upper[heat_to_load..heat_to_load + steps].fill(0.0);
    }
    let heat_to_storage = hot_storage.then(|| lp.series(steps, |_| 0.0));
    let heat_to_waste = lp.series(steps, |_| 0.0);
    let heat_to_turbine = model.steam_turbine.as_ref().filter(|st| st.chp_supplies).map(|_| lp.series(steps, |_| 0.0));
    if !chp.makes_heat {
        for start in [Some(heat_to_load), heat_to_storage, Some(heat_to_waste), heat_to_turbine].into_iter().flatten() {
            lp.upper[start..start + steps].fill(0.0);
        }
    }
    let largest_heating_kw = heating.map_or(0.0, |h| (0..steps).map(|t| h.total_kw(t)).fold(0.0, f64::max));
    // Off (on_t = 0), td·kw − p_t ≤ td·M and b_f·kw − yf_t ≤ b_f·M already hold; a negative or
    // above-1 fuel intercept keeps the service's M, whose off row can bind.
    let turndown_big = chp.min_turn_down_fraction.min(1.0) * big;
    let fuel_big = if chp.fuel_intercept > 0.0 && chp.fuel_intercept <= 1.0 { chp.fuel_intercept * big } else { big };
    for t in 0..steps {
        let p = rated + t;
        if chp.unavailable[t] && (model.has_grid(t) || model.off_grid.is_some()) {
            // The service's production factor of 0: no output (its on binary stays free).
            lp.upper[p] = 0.0;
        }
        lp.row(&[(p, 1.0), (size, -1.0)], RowKind::LessOrEqual, 0.0);
        if let Some(b) = on.map(|on| on + t) {
            lp.row(&[(p, 1.0), (b, -big)], RowKind::LessOrEqual, 0.0);
            if model.has_grid(t) && chp.min_turn_down_fraction > 0.0 {
                lp.row(&[(size, chp.min_turn_down_fraction), (p, -1.0), (b, turndown_big)], RowKind::LessOrEqual, turndown_big);
            }
        }
        if let (Some(yf), Some(b)) = (fuel_intercept, on.map(|on| on + t)) {
            // b_f·kw + M_f·on − yf ≤ M_f
            lp.row(&[(size, chp.fuel_intercept), (b, fuel_big), (yf + t, -1.0)], RowKind::LessOrEqual, fuel_big);
            if chp.fuel_intercept < 0.0 {
                lp.lower[yf + t] = f64::NEG_INFINITY;
                // The fuel burned is never negative: −(yf + a_f·p + sf/η_sf) ≤ 0.
                let mut fuel = vec![(yf + t, -1.0), (p, -chp.fuel_slope)];
                fuel.extend(supplementary.map(|s| (s + t, -1.0 / chp.supplementary_firing_efficiency)));
                lp.row(&fuel, RowKind::LessOrEqual, 0.0);
            }
        }
        let bh = chp.thermal_intercept;
        if let (Some(yh), Some(b)) = (heat_intercept, on.map(|on| on + t)) {
            lp.lower[yh + t] = f64::NEG_INFINITY;
            lp.row(&[(yh + t, 1.0), (size, -bh)], RowKind::LessOrEqual, 0.0);
            lp.row(&[(yh + t, 1.0), (b, -bh * big)], RowKind::LessOrEqual, 0.0);
            lp.row(&[(size, bh), (b, bh * big), (yh + t, -1.0)], RowKind::LessOrEqual, bh * big);
        }
        let mut heat = vec![(heat_to_load + t, 1.0), (heat_to_waste + t, 1.0), (p, -chp.thermal_slope)];
        heat.extend([heat_to_storage, heat_to_turbine].into_iter().flatten().map(|s| (s + t, 1.0)));
        heat.extend(heat_intercept.map(|yh| (yh + t, -1.0)));
        heat.extend(supplementary.map(|s| (s + t, -1.0)));
        lp.row(&heat, RowKind::Equal, 0.0);
        if let (Some(s), Some(s_kw)) = (supplementary, supplementary_size) {
            let ratio = chp.supplementary_firing_max_steam_ratio - 1.0;
            let mut by_size = vec![(s + t, 1.0), (s_kw, -ratio * chp.thermal_slope)];
            by_size.extend(heat_intercept.map(|yh| (yh + t, -ratio)));
            lp.row(&by_size, RowKind::LessOrEqual, 0.0);
            let mut by_load = vec![(s + t, 1.0)];
            by_load.extend(heat_intercept.map(|yh| (yh + t, -ratio)));
            lp.row(&by_load, RowKind::LessOrEqual, ratio * chp.thermal_slope * largest_heating_kw);
        }
        let mut electricity = vec![(to_load + t, 1.0), (p, -1.0)];
        electricity.extend([to_storage, curtailed].into_iter().chain(to_grid).flatten().map(|s| (s + t, 1.0)));
        lp.row(&electricity, RowKind::Equal, 0.0);
    }
    let pieces = capital_pieces(model, chp);
    let cost_pieces = if segmented(&pieces, chp) { add_cost_curve(lp, chp, &pieces, factors.third_party_factor, size) } else { Vec::new() };
    if let (true, Some(on)) = (hourly_om, on) {
        add_hourly_om(lp, model, factors, chp, size, on);
    }
    add_production_incentive(lp, model, factors, chp, size, rated);
    Some(ChpLayout {
        size,
        supplementary_size,
        rated,
        on,
        fuel_intercept,
        heat_intercept,
        supplementary,
        to_load,
        to_storage,
        curtailed,
        to_grid,
        heat_to_load,
        heat_to_storage,
        heat_to_waste,
        heat_to_turbine,
        cost_pieces,
    })
}

/// The size bought on at most one piece of the cost curve, at its slope and intercept times the
/// third-party factor; returns each piece's size and binary.
fn add_cost_curve(lp: &mut LinearProgram, chp: &Chp, pieces: &[CostPiece], third_party_factor: f64, size: usize) -> Vec<(usize, usize)> {
    let mut total = vec![(size, -1.0)];
    let mut chosen = Vec::with_capacity(pieces.len());
    for piece in pieces {
        let kw = lp.variable(third_party_factor * piece.slope, 0.0, f64::INFINITY);
        let on = lp.binary(third_party_factor * piece.intercept);
        lp.row(&[(on, piece.min_kw), (kw, -1.0)], RowKind::LessOrEqual, 0.0);
        lp.row(&[(kw, 1.0), (on, -piece.max_kw.min(chp.max_kw))], RowKind::LessOrEqual, 0.0);
        total.push((kw, 1.0));
        chosen.push((on, 1.0));
    }
    lp.row(&total, RowKind::Equal, 0.0);
    lp.row(&chosen, RowKind::LessOrEqual, 1.0);
    total[1..].iter().zip(&chosen).map(|(&(kw, _), &(on, _))| (kw, on)).collect()
}

/// $ present value before tax per kWh of rated output of the production-based incentive, and
/// its cap (`pwf · tpf · rate`, `pwf · tpf · max_benefit`; None when it is not paid).
fn production_incentive_value(model: &Model, chp: &Chp) -> Option<(f64, f64)> {
    let incentive = Some(&chp.production_incentive).filter(|i| i.applies())?;
    let pwf = production_incentive_present_worth(model, incentive, None);
    Some((pwf * incentive.per_kwh, pwf * incentive.max_benefit))
}

/// The production-based incentive (REopt.jl `add_prod_incent_vars_and_constraints`; CHP's
/// production factor is 1, its maintenance steps hold p_t at 0), earned after the owner's tax:
/// `inc ≤ v·Δ·Σ_t p_t`, `0 ≤ inc ≤ cap`, and when the CHP may grow past the incentive's max_kw the
/// service's binary b: `inc ≤ cap·b`, `kw ≤ max_kw + M·(1 − b)`.
fn add_production_incentive(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, chp: &Chp, size: usize, rated: usize) {
    let Some((per_kwh, cap)) = production_incentive_value(model, chp) else { return };
    let earned = lp.variable(-factors.owner_after_tax, 0.0, cap);
    let dt = model.step_hours();
    let mut terms = vec![(earned, 1.0)];
    terms.extend((0..model.steps()).map(|t| (rated + t, -per_kwh * dt)));
    lp.row(&terms, RowKind::LessOrEqual, 0.0);
    let max_kw = chp.production_incentive.max_kw;
    if chp.max_kw > max_kw {
        let eligible = lp.binary(0.0);
        lp.row(&[(earned, 1.0), (eligible, -cap)], RowKind::LessOrEqual, 0.0);
        lp.row(&[(size, 1.0), (eligible, chp.max_kw)], RowKind::LessOrEqual, max_kw + chp.max_kw);
    }
}

/// The production-based incentive of a solution before tax ($ present value): the LP's value at
/// its optimum, `min(v·kWh, cap)` when the size is at most the incentive's max_kw, else 0.
pub fn production_incentive_before_tax(model: &Model, chp: &Chp, size_kw: f64, annual_kwh: f64) -> f64 {
    match production_incentive_value(model, chp) {
        Some((per_kwh, cap)) if size_kw <= chp.production_incentive.max_kw + 1e-6 * chp.production_incentive.max_kw.max(1.0) => {
            (per_kwh * annual_kwh).min(cap)
        }
        _ => 0.0,
    }
}

/// The O&M per hour on per kW of size (the service's `dvOMByHourBySizeCHP`).
fn add_hourly_om(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, chp: &Chp, size: usize, on: usize) {
    let c = chp.om_cost_per_hr_per_kw_rated;
    let big = chp.max_kw * c;
    let hourly = lp.series(model.steps(), |_| factors.om_factor() * model.step_hours());
    for t in 0..model.steps() {
        lp.row(&[(size, c), (on + t, big), (hourly + t, -1.0)], RowKind::LessOrEqual, big);
        lp.row(&[(hourly + t, 1.0), (size, -c)], RowKind::LessOrEqual, 0.0);
        lp.row(&[(hourly + t, 1.0), (on + t, -big)], RowKind::LessOrEqual, 0.0);
    }
}

impl ChpLayout {
    /// Reads the CHP's dispatch; values at or below `tolerance` become 0.
    pub fn dispatch(&self, x: &[f64], chp: &Chp, steps: usize, tolerance: f64) -> ChpDispatch {
        let clean = |v: f64| if v <= tolerance { 0.0 } else { v };
        let series = |start: Option<usize>| -> Vec<f64> {
            match start {
                Some(s) => x[s..s + steps].iter().map(|&v| clean(v)).collect(),
                None => vec![0.0; steps],
            }
        };
        let rated_kw = series(Some(self.rated));
        let supplementary_kw = series(self.supplementary);
        let fuel_kw = (0..steps)
            .map(|t| {
                let intercept = self.fuel_intercept.map_or(0.0, |yf| x[yf + t]);
                clean(intercept + chp.fuel_slope * rated_kw[t] + supplementary_kw[t] / chp.supplementary_firing_efficiency)
            })
            .collect();
        ChpDispatch {
            size_kw: clean(x[self.size]),
            supplementary_size_kw: self.supplementary_size.map_or(0.0, |j| clean(x[j])),
            on: match self.on {
                Some(on) => x[on..on + steps].iter().map(|v| v.round()).collect(),
                None => rated_kw.iter().map(|&p| if p > 0.0 { 1.0 } else { 0.0 }).collect(),
            },
            rated_kw,
            to_load_kw: series(Some(self.to_load)),
            to_storage_kw: series(self.to_storage),
            curtailed_kw: series(self.curtailed),
            to_grid_kw: self.to_grid.map(&series),
            fuel_kw,
            supplementary_kw,
            heat_to_load_kw: series(Some(self.heat_to_load)),
            heat_to_storage_kw: series(self.heat_to_storage),
            heat_to_waste_kw: series(Some(self.heat_to_waste)),
            heat_to_turbine_kw: series(self.heat_to_turbine),
        }
    }
}

//! Financial conventions of the optimizer as pure functions: present-worth factors, the PV
//! levelization factor, MACRS schedules, the effective (after-tax, after-incentive) cost of a
//! capital item, and the PV cost curve under capped incentives.
//!
//! Conventions (the service's, as documented in its public source; formulas only):
//! - Year-one costs grow with an escalation rate `e` and are discounted with a rate `d`; the
//!   first payment falls at the end of year 1.
//! - The ITC and bonus depreciation arrive at the end of year 1; MACRS depreciation in years
//!   1..=k; replacement costs in their replacement year, after tax.
//! - Cash incentives (IBI fractions, rebates) reduce the ITC basis, except the federal rebate.

/// IRS MACRS 5-year half-year-convention schedule (fractions of the depreciable basis).
pub const MACRS_FIVE_YEAR: [f64; 6] = [0.2, 0.32, 0.192, 0.1152, 0.1152, 0.0576];
/// IRS MACRS 7-year half-year-convention schedule.
pub const MACRS_SEVEN_YEAR: [f64; 8] = [0.1429, 0.2449, 0.1749, 0.1249, 0.0893, 0.0892, 0.0893, 0.0446];

/// A cap of this size or more means "unlimited" (the service's convention for `*_max` fields).
pub const UNLIMITED_CAP: f64 = 1.0e10;

/// Present-worth factor of a cost stream that starts at 1 $ in year 1 and escalates:
/// `pwf(n, e, d) = Σ_{y=1..n} ((1+e)/(1+d))^y`, which is `n` when `e == d`.
pub fn present_worth_factor(years: u32, escalation: f64, discount: f64) -> f64 {
    let x = (1.0 + escalation) / (1.0 + discount);
    if (x - 1.0).abs() < 1e-15 {
        return f64::from(years);
    }
    x * (1.0 - x.powi(years as i32)) / (1.0 - x)
}

/// Levelization factor of a degrading producer: the ratio of the escalated, discounted value
/// of its degrading output to that of a constant output,
/// `Σ_{y=1..n} ((1+e)/(1+d))^y (1-g)^(y-1) / pwf(n, e, d)`.
/// Production in the one-year model is multiplied by it, so one modelled year stands for the
/// average year of the analysis period.
pub fn levelization_factor(years: u32, escalation: f64, discount: f64, degradation: f64) -> f64 {
    let x = (1.0 + escalation) / (1.0 + discount);
    let numerator: f64 = (1..=years).map(|y| x.powi(y as i32) * (1.0 - degradation).powi(y as i32 - 1)).sum();
    let denominator = present_worth_factor(years, escalation, discount);
    if denominator.abs() < 1e-300 {
        1.0
    } else {
        numerator / denominator
    }
}

/// Present-worth factor of a production-based incentive paid for `years` years, at the
/// owner's discount rate `discount` (REopt.jl `production_incentives`). A degrading producer
/// (PV, `Some(g)`) takes the service's `annuity_escalation`, which sums years 1..=years+1 with
/// the degradation starting in year 2: `Σ_{y=1..years+1} (1−g)^(y−1) / (1+d)^y`; one that
/// does not degrade (Wind, `None`) the plain annuity `Σ_{y=1..years} 1 / (1+d)^y`.
pub fn production_incentive_pwf(years: u32, degradation: Option<f64>, discount: f64) -> f64 {
    match degradation {
        Some(g) => (1..=years + 1).map(|y| (1.0 - g).powi(y as i32 - 1) / (1.0 + discount).powi(y as i32)).sum(),
        None => present_worth_factor(years, 0.0, discount),
    }
}

/// The MACRS schedule for `macrs_option_years` (0 = no depreciation).
pub fn macrs_schedule(option_years: u32) -> &'static [f64] {
    match option_years {
        5 => &MACRS_FIVE_YEAR,
        7 => &MACRS_SEVEN_YEAR,
        _ => &[],
    }
}

/// How the owner is taxed and which tax incentives apply to one capital item.
#[derive(Debug, Clone, PartialEq)]
pub struct TaxTreatment {
    pub owner_discount_rate: f64,
    pub owner_tax_rate: f64,
    /// Investment tax credit as a fraction of the ITC basis.
    pub itc_fraction: f64,
    /// 0, 5 or 7.
    pub macrs_option_years: u32,
    pub macrs_bonus_fraction: f64,
    /// Fraction of the ITC that reduces the depreciable basis.
    pub macrs_itc_reduction: f64,
    /// The bonus fraction and ITC reduction apply even without a MACRS schedule (option 0):
    /// the service's storage does so (its schedule is then `[0]`, so the whole bonus is
    /// depreciated in year 1); its cost curve (PV, Wind, generator) does not.
    pub bonus_without_macrs: bool,
}

/// A one-time cost in a future year (a replacement).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Replacement {
    pub cost: f64,
    pub year: u32,
}

/// Net present cost of one unit (1 kW, 1 kWh or the whole constant) of a capital item
/// (REopt.jl `effective_cost`, rounded to 4 decimals as the service):
///
/// ```text
/// depreciable  = basis · (1 − itc_reduction · itc)
/// bonus        = depreciable · bonus_fraction                      (year 1)
/// depr_y       = (depreciable − bonus) · macrs_y (+ bonus in y=1)  (years 1..k)
/// tax_savings  = Σ_y tax · depr_y / (1+d)^y + itc · basis / (1+d)
/// replacement  = cost · (1 − tax) / (1+d)^year
/// npc          = max(0, basis − tax_savings + replacement − rebate)
/// ```
pub fn effective_cost(basis: f64, replacement: Option<Replacement>, tax: &TaxTreatment, rebate: f64) -> f64 {
    let with_bonus = tax.macrs_option_years != 0 || tax.bonus_without_macrs;
    let (bonus_fraction, itc_reduction) = if with_bonus { (tax.macrs_bonus_fraction, tax.macrs_itc_reduction) } else { (0.0, 0.0) };
    let schedule = match macrs_schedule(tax.macrs_option_years) {
        [] => &[0.0][..],
        rates => rates,
    };
    let d = tax.owner_discount_rate;
    let depreciable = basis * (1.0 - itc_reduction * tax.itc_fraction);
    let bonus = depreciable * bonus_fraction;
    let remaining = depreciable - bonus;
    let depreciation_savings: f64 = schedule
        .iter()
        .enumerate()
        .map(|(index, rate)| {
            let year = index as i32 + 1;
            let amount = rate * remaining + if year == 1 { bonus } else { 0.0 };
            tax.owner_tax_rate * amount / (1.0 + d).powi(year)
        })
        .sum();
    let itc_savings = tax.itc_fraction * basis / (1.0 + d);
    let replacement_cost = replacement
        .map(|r| r.cost * (1.0 - tax.owner_tax_rate) / (1.0 + d).powi(r.year as i32))
        .unwrap_or(0.0);
    let cost = (basis - depreciation_savings - itc_savings + replacement_cost - rebate).max(0.0);
    (cost * 1e4).round_ties_even() / 1e4
}

/// The ITC basis per kW of one piece of the service's cost curve (REopt.jl `cost_curve`): the
/// piece's slope after the ITC and the federal rebate is rounded to whole dollars (ties to
/// even, as Julia), then the two are taken back out,
/// `(round(c · (1 − itc) − r_f) + r_f) / (1 − itc)`; 0 when the ITC is 100 %.
pub fn cost_curve_itc_basis(pre_federal_cost_per_kw: f64, itc: f64, federal_rebate_per_kw: f64) -> f64 {
    if itc == 1.0 {
        return 0.0;
    }
    let combined = (pre_federal_cost_per_kw * (1.0 - itc) - federal_rebate_per_kw).round_ties_even();
    (combined + federal_rebate_per_kw) / (1.0 - itc)
}

/// Present value of the tax savings of straight-line depreciation: `cost / years · tax` at the
/// end of each of years 1..=years, discounted at `discount` (the service's treatment of the
/// off-grid "other" capital costs).
pub fn straight_line_depreciation_savings(cost: f64, discount: f64, years: u32, tax: f64) -> f64 {
    let yearly = cost / f64::from(years.max(1)) * tax;
    (1..=years).map(|y| yearly / (1.0 + discount).powi(y as i32)).sum()
}

/// A percentage incentive (of the cost so far) and a per-kW rebate, each with a cap in $.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegionIncentive {
    pub fraction: f64,
    pub fraction_cap: f64,
    pub rebate_per_kw: f64,
    pub rebate_cap: f64,
}

/// One linear piece of the PV capital cost curve (new kW only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostSegment {
    /// Width of the piece in kW (`f64::INFINITY` for the last one).
    pub width_kw: f64,
    /// $/kW after utility and state incentives, before the ITC and the federal rebate.
    pub pre_federal_cost_per_kw: f64,
}

/// A piecewise-linear function through (0, 0) given by its break points; linear after the last.
#[derive(Debug, Clone)]
struct Piecewise {
    xs: Vec<f64>,
    ys: Vec<f64>,
}

impl Piecewise {
    fn value(&self, x: f64) -> f64 {
        let n = self.xs.len();
        let k = self.xs.partition_point(|&b| b <= x).clamp(1, n - 1);
        let (x0, x1, y0, y1) = (self.xs[k - 1], self.xs[k], self.ys[k - 1], self.ys[k]);
        y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    }

    /// Every x > 0 inside the range where `scale · f(x) == level`, piece by piece.
    fn crossings(&self, scale: f64, level: f64) -> Vec<f64> {
        let mut found = Vec::new();
        for k in 1..self.xs.len() {
            let (x0, x1) = (self.xs[k - 1], self.xs[k]);
            let (y0, y1) = (scale * self.ys[k - 1], scale * self.ys[k]);
            if (y1 - y0).abs() < 1e-300 {
                continue;
            }
            let t = (level - y0) / (y1 - y0);
            if t > 0.0 && t < 1.0 {
                found.push(x0 + t * (x1 - x0));
            }
        }
        found
    }
}

fn capped(amount: f64, cap: f64) -> f64 {
    if cap >= UNLIMITED_CAP {
        amount
    } else {
        amount.min(cap)
    }
}

/// The cost curve after one region's incentives: `g(x) = f(x) − min(p·f(x), P) − min(r·x, R)`.
fn apply_region(f: &Piecewise, region: &RegionIncentive) -> Piecewise {
    let mut xs = f.xs.clone();
    if region.fraction > 0.0 && region.fraction_cap < UNLIMITED_CAP {
        xs.extend(f.crossings(region.fraction, region.fraction_cap));
    }
    if region.rebate_per_kw > 0.0 && region.rebate_cap < UNLIMITED_CAP {
        xs.push(region.rebate_cap / region.rebate_per_kw);
    }
    let last = *f.xs.last().unwrap_or(&0.0);
    xs.retain(|x| x.is_finite() && *x >= 0.0 && *x <= last);
    xs.sort_by(f64::total_cmp);
    xs.dedup_by(|a, b| (*a - *b).abs() <= 1e-9 * b.abs().max(1.0));
    let ys = xs
        .iter()
        .map(|&x| {
            let base = f.value(x);
            base - capped(region.fraction * base, region.fraction_cap) - capped(region.rebate_per_kw * x, region.rebate_cap)
        })
        .collect();
    Piecewise { xs, ys }
}

/// A cost curve through (0, 0) given by its break points (`xs` rising, `ys` in $) after the
/// utility, then the state incentives (each region's percentage applies to the cost left by the
/// previous region; a cap adds the break point where it is reached), as the service's
/// `cost_curve` takes its "utility" and "state" regions.
pub fn incentive_cost_curve(xs: Vec<f64>, ys: Vec<f64>, utility: &RegionIncentive, state: &RegionIncentive) -> (Vec<f64>, Vec<f64>) {
    let curve = apply_region(&apply_region(&Piecewise { xs, ys }, utility), state);
    (curve.xs, curve.ys)
}

/// Segments of the PV cost curve of new capacity after the utility, then the state incentives
/// (each region's percentage applies to the cost left by the previous region). Caps make the
/// curve piecewise linear with rising slopes; `horizon_kw` is the largest purchase considered.
pub fn incentive_cost_segments(
    installed_cost_per_kw: f64,
    utility: &RegionIncentive,
    state: &RegionIncentive,
    horizon_kw: f64,
) -> Vec<CostSegment> {
    let horizon = horizon_kw.max(1.0);
    let (xs, ys) = incentive_cost_curve(vec![0.0, horizon], vec![0.0, installed_cost_per_kw * horizon], utility, state);
    let mut segments: Vec<CostSegment> = xs
        .windows(2)
        .zip(ys.windows(2))
        .filter(|(x, _)| x[1] - x[0] > 1e-9)
        .map(|(x, y)| CostSegment { width_kw: x[1] - x[0], pre_federal_cost_per_kw: (y[1] - y[0]) / (x[1] - x[0]) })
        .collect();
    if let Some(last) = segments.last_mut() {
        last.width_kw = f64::INFINITY;
    }
    segments
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_tax() -> TaxTreatment {
        TaxTreatment {
            owner_discount_rate: 0.1,
            owner_tax_rate: 0.0,
            itc_fraction: 0.0,
            macrs_option_years: 0,
            macrs_bonus_fraction: 0.0,
            macrs_itc_reduction: 0.0,
            bonus_without_macrs: false,
        }
    }

    #[test]
    fn pwf_matches_the_geometric_sum() {
        let direct: f64 = (1..=25).map(|y| (1.017f64 / 1.0624).powi(y)).sum();
        assert!((present_worth_factor(25, 0.017, 0.0624) - direct).abs() < 1e-9);
        assert_eq!(present_worth_factor(20, 0.05, 0.05), 20.0);
    }

    #[test]
    fn production_incentive_pwf_sums_one_more_year_for_a_degrading_producer() {
        // One year of incentive: PV counts years 1 and 2 (the service's annuity_escalation), Wind year 1.
        let pv = production_incentive_pwf(1, Some(0.005), 0.1);
        assert!((pv - (1.0 / 1.1 + 0.995 / 1.21)).abs() < 1e-12);
        assert!((production_incentive_pwf(1, None, 0.1) - 1.0 / 1.1).abs() < 1e-12);
        assert!(production_incentive_pwf(7, Some(0.005), 0.0638) > production_incentive_pwf(1, None, 0.0638));
    }

    #[test]
    fn levelization_is_one_without_degradation_and_below_one_with_it() {
        assert!((levelization_factor(25, 0.0166, 0.0624, 0.0) - 1.0).abs() < 1e-12);
        let f = levelization_factor(25, 0.0166, 0.0624, 0.005);
        assert!(f < 1.0 && f > 0.9);
    }

    #[test]
    fn effective_cost_counts_itc_and_depreciation() {
        // The service rounds to 4 decimals: within 5e-5 of the exact value.
        assert!((effective_cost(1000.0, None, &no_tax(), 0.0) - 1000.0).abs() < 1e-9);
        let itc = TaxTreatment { itc_fraction: 0.3, ..no_tax() };
        assert!((effective_cost(1000.0, None, &itc, 0.0) - (1000.0 - 300.0 / 1.1)).abs() <= 5e-5);
        let full = TaxTreatment { owner_tax_rate: 0.26, macrs_option_years: 5, macrs_bonus_fraction: 1.0, macrs_itc_reduction: 0.5, ..itc };
        let expected = 1000.0 - 300.0 / 1.1 - 0.26 * 850.0 / 1.1;
        assert!((effective_cost(1000.0, None, &full, 0.0) - expected).abs() <= 5e-5);
        let replaced = effective_cost(0.0, Some(Replacement { cost: 100.0, year: 10 }), &no_tax(), 0.0);
        assert!((replaced - 100.0 / 1.1f64.powi(10)).abs() <= 5e-5);
        // Without MACRS the bonus counts only where the service's storage takes it.
        let bonus_only = TaxTreatment { owner_tax_rate: 0.2, macrs_bonus_fraction: 0.5, ..no_tax() };
        assert_eq!(effective_cost(1000.0, None, &bonus_only, 0.0), 1000.0);
        let storage = TaxTreatment { bonus_without_macrs: true, ..bonus_only };
        assert!((effective_cost(1000.0, None, &storage, 0.0) - (1000.0 - 0.2 * 500.0 / 1.1)).abs() <= 5e-5);
    }

    #[test]
    fn cost_curve_basis_comes_back_from_the_rounded_combined_slope() {
        // 2232 $/kW at a 30 % ITC: 1562.4 $/kW after it, rounded to 1562, so the basis is 1562 / 0.7.
        assert!((cost_curve_itc_basis(2232.0, 0.3, 0.0) - 1562.0 / 0.7).abs() < 1e-9);
        // Whole-dollar slopes come back unchanged; ties go to even (1562.5 → 1562).
        assert!((cost_curve_itc_basis(1200.0, 0.3, 100.0) - 1200.0).abs() < 1e-9);
        assert!((cost_curve_itc_basis(3125.0, 0.5, 0.0) - 1562.0 / 0.5).abs() < 1e-9);
        assert_eq!(cost_curve_itc_basis(1000.0, 1.0, 0.0), 0.0);
    }

    #[test]
    fn straight_line_depreciation_matches_the_service_off_grid_case() {
        // The service's off-grid case: $3,000 of other capital, 20 years, the owner's rates being
        // the offtaker's (8 %, 26 %) → lifecycle other capital costs 2,617.092.
        let after = 3000.0 - straight_line_depreciation_savings(3000.0, 0.08, 20, 0.26);
        assert!((after - 2617.092).abs() < 0.01, "{after}");
    }

    #[test]
    fn capped_incentives_make_rising_segments() {
        let none = RegionIncentive { fraction: 0.0, fraction_cap: UNLIMITED_CAP, rebate_per_kw: 0.0, rebate_cap: UNLIMITED_CAP };
        let utility = RegionIncentive { fraction: 0.5, fraction_cap: 10_000.0, ..none };
        let segments = incentive_cost_segments(1000.0, &utility, &none, 1e6);
        assert_eq!(segments.len(), 2);
        assert!((segments[0].width_kw - 20.0).abs() < 1e-9);
        assert!((segments[0].pre_federal_cost_per_kw - 500.0).abs() < 1e-9);
        assert!((segments[1].pre_federal_cost_per_kw - 1000.0).abs() < 1e-9);
        let flat = incentive_cost_segments(1000.0, &none, &none, 1e6);
        assert_eq!(flat.len(), 1);
        assert!(flat[0].width_kw.is_infinite());
    }
}

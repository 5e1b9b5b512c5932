//! Electric load profiles as the service builds them from a scenario: the FlatLoad shapes, the
//! scaling of a profile to annual or monthly energy, and the scaling of a profile to monthly
//! peaks (`monthly_peaks_kw`) that keeps each month's energy.

use std::fmt;
use std::ops::Range;

use crate::calendar::{modelled_year, HOURS_PER_YEAR};

/// The FlatLoad profiles (constant load over their operating hours).
pub const FLAT_LOADS: [&str; 6] = ["FlatLoad", "FlatLoad_24_5", "FlatLoad_16_7", "FlatLoad_16_5", "FlatLoad_8_7", "FlatLoad_8_5"];

/// Normalized hourly shape of a FlatLoad profile for `year`: 1 in operating hours, 0 elsewhere,
/// divided by the count. `_5` variants skip Saturdays and Sundays; `_16_` runs 06:00–22:00 and
/// `_8_` 09:00–17:00.
pub fn flat_load_shape(name: &str, year: i32) -> Vec<f64> {
    let weekdays_only = name.ends_with("_5");
    let hours: std::ops::Range<u8> = if name.starts_with("FlatLoad_16") {
        6..22
    } else if name.starts_with("FlatLoad_8") {
        9..17
    } else {
        0..24
    };
    let on: Vec<f64> = modelled_year::step_times(year, 1)
        .iter()
        .map(|time| if (!weekdays_only || !time.weekend) && hours.contains(&time.hour) { 1.0 } else { 0.0 })
        .collect();
    let count: f64 = on.iter().sum();
    on.iter().map(|x| x / count).collect()
}

/// Annual or monthly energy a load profile is scaled to (kWh).
#[derive(Debug, Clone, PartialEq)]
pub enum EnergyTarget {
    Annual(f64),
    Monthly(Vec<f64>),
}

/// Scales a profile whose values sum to 1 so that it carries the target energy:
/// annual → `kW_t = shape_t · E · n`; monthly → each month's steps are scaled to that month's
/// kWh (a month with no operating steps gets none). `n` = steps per hour of the shape.
pub fn scale_profile(shape: &[f64], energy: &EnergyTarget, year: i32, steps_per_hour: usize) -> Vec<f64> {
    let n = steps_per_hour as f64;
    match energy {
        EnergyTarget::Annual(total) => shape.iter().map(|x| x * total * n).collect(),
        EnergyTarget::Monthly(months) => {
            let month_of_step = modelled_year::month_of_each_step(year, steps_per_hour);
            let mut month_share = [0.0; 12];
            for (x, &m) in shape.iter().zip(&month_of_step) {
                month_share[m as usize] += x;
            }
            shape
                .iter()
                .zip(&month_of_step)
                .map(|(x, &m)| {
                    let share = month_share[m as usize];
                    if share > 0.0 {
                        x * months[m as usize] / share * n
                    } else {
                        0.0
                    }
                })
                .collect()
        }
    }
}

/// The steps of each month of the modelled year of `year` (0 = January), as the service's
/// `get_monthly_time_steps`: a leap year keeps February 29 and ends on December 30.
pub fn month_step_ranges(year: i32, steps_per_hour: usize) -> [Range<usize>; 12] {
    let days = modelled_year::modelled_days_in_month(year);
    let mut start = 0;
    std::array::from_fn(|month| {
        let end = start + days[month] * 24 * steps_per_hour;
        let range = start..end;
        start = end;
        range
    })
}

/// Spacing of the grid on which the exponent of `stretch_to_peak` is sought (the service's
/// `0:0.001:10`).
pub const STRETCH_EXPONENT_STEP: f64 = 0.001;
/// Index of the last point of that grid (x = 10).
pub const STRETCH_EXPONENT_LAST: usize = 10_000;

/// A month's profile brought down to a lower peak, its energy kept: with `F` the month's mean
/// load and `max` its peak, `x = (F − target) / (F − max)` and `L' = L·x + F·(1 − x)` (a blend of
/// the profile and the flat load; the peak step lands on the target). Meant for
/// `mean ≤ target < max`: below the mean `x` turns negative and the peak misses the target
/// (`scale_to_monthly_peaks` refuses that).
pub fn flatten_to_peak(month_kw: &[f64], target_kw: f64) -> Vec<f64> {
    let mean = month_kw.iter().sum::<f64>() / month_kw.len() as f64;
    let peak = month_kw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let x = (mean - target_kw) / (mean - peak);
    month_kw.iter().map(|kw| kw * x + mean * (1.0 - x)).collect()
}

/// A month's profile brought up to a higher peak, its energy kept as closely as the grid
/// allows: `T = L · target / max`, then `L' = T · exp(−x · (1 − T / target))` with `x` the point
/// of the grid 0, 0.001, …, 10 whose monthly energy is closest to the original's (the first
/// such point). The peak step keeps `T = target`; lower steps shrink, the more the lower.
/// `steps_per_hour` converts kW to kWh as the service does. Meant for `0 < max ≤ target`.
pub fn stretch_to_peak(month_kw: &[f64], target_kw: f64, steps_per_hour: usize) -> Vec<f64> {
    let n = steps_per_hour as f64;
    let peak = month_kw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let transformed: Vec<f64> = month_kw.iter().map(|kw| kw * (target_kw / peak)).collect();
    let decayed = |x: f64| transformed.iter().map(move |t| t * (-x * (1.0 - t / target_kw)).exp());
    let target_kwh = month_kw.iter().sum::<f64>() / n;
    // The grid's points as the service's range has them (k / 1000, correctly rounded).
    let energy_at = |k: usize| decayed(k as f64 / 1000.0).sum::<f64>() / n;
    let k = if transformed.iter().all(|t| *t >= 0.0) {
        first_closest_on_falling_grid(energy_at, target_kwh, STRETCH_EXPONENT_LAST)
    } else {
        first_closest_by_scan(energy_at, target_kwh, STRETCH_EXPONENT_LAST)
    };
    // The exponent as the service turns the index back into x.
    decayed(k as f64 * STRETCH_EXPONENT_STEP).collect()
}

/// The first `k` in `0..=last` with the least `|energy(k) − target|`, by a scan of every point
/// (the service's search).
fn first_closest_by_scan(energy: impl Fn(usize) -> f64, target: f64, last: usize) -> usize {
    let mut best = (0, (energy(0) - target).abs());
    for k in 1..=last {
        let gap = (energy(k) - target).abs();
        if gap < best.1 {
            best = (k, gap);
        }
    }
    best.0
}

/// What `first_closest_by_scan` finds when `energy` does not rise with `k` (every decayed
/// step is non-negative), by bisection: the gap falls until the energy crosses the target and
/// rises after, so the answer is the last point above the target (the first of its run of equal
/// values) or the first at or below it, whichever is closer, ties to the earlier.
fn first_closest_on_falling_grid(energy: impl Fn(usize) -> f64, target: f64, last: usize) -> usize {
    let crossing = first_where(0, last, |k| energy(k) <= target);
    let before = crossing.checked_sub(1);
    let at = (crossing <= last).then_some(crossing);
    match (before, at) {
        (Some(above), Some(below)) if (energy(above) - target).abs() > (energy(below) - target).abs() => below,
        (Some(above), _) => {
            let value = energy(above);
            first_where(0, above, |k| energy(k) <= value)
        }
        (None, _) => 0,
    }
}

/// The least `k` in `lo..=hi` for which `holds` is true, for a `holds` that stays true once true;
/// `hi + 1` when it never is.
fn first_where(lo: usize, hi: usize, holds: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (lo, hi + 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if holds(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Whether the service leaves the load unscaled to `monthly_peaks_kw` (with a warning): when
/// `doe_reference_name` contains "FlatLoad", or a FlatLoad name of the blend has a share above
/// 0.75. It looks at these names even when the profile is the user's `loads_kw`.
pub fn peak_scaling_skipped(doe_reference_name: &str, blend: &[(&str, f64)]) -> bool {
    doe_reference_name.contains("FlatLoad") || blend.iter().any(|(name, share)| name.contains("FlatLoad") && *share > 0.75)
}

/// A month the engine cannot scale to its peak with its energy kept (0 = January).
#[derive(Debug, Clone, PartialEq)]
pub enum MonthProblem {
    /// The target is below the month's mean load: no profile under it carries the month's
    /// energy (the service's flattening then returns a profile whose peak is not the target).
    BelowMeanLoad { month: usize, target_kw: f64, mean_kw: f64 },
    /// The month has no positive load to stretch (the service divides by its zero peak).
    NoPositiveLoad { month: usize },
}

impl fmt::Display for MonthProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MonthProblem::BelowMeanLoad { month, target_kw, mean_kw } => write!(
                f,
                "month {} peak {target_kw} kW is below the month's mean load {mean_kw:.3} kW (no profile under that peak keeps the month's energy)",
                month + 1
            ),
            MonthProblem::NoPositiveLoad { month } => write!(f, "month {} has no positive load to scale to a peak", month + 1),
        }
    }
}

/// Why a profile was not scaled to monthly peaks.
#[derive(Debug, Clone, PartialEq)]
pub enum PeakScalingError {
    /// The service's own errors, in its words.
    Rejected(String),
    /// Months the engine cannot honour.
    Months(Vec<MonthProblem>),
}

/// The service's `scale_load_to_monthly_peaks`: each month of `load_kw` (8760 ·
/// `steps_per_hour` values, months as `month_step_ranges`) brought to its peak in `peaks_kw`
/// with its energy kept: `flatten_to_peak` when the month's peak is above the target,
/// `stretch_to_peak` otherwise. Errors: the service's (not 12 peaks, a peak ≤ 0, a profile of
/// another length) and the months no profile can honour.
pub fn scale_to_monthly_peaks(load_kw: &[f64], peaks_kw: &[f64], year: i32, steps_per_hour: usize) -> Result<Vec<f64>, PeakScalingError> {
    let expected = HOURS_PER_YEAR * steps_per_hour;
    if load_kw.len() != expected {
        return Err(PeakScalingError::Rejected(format!(
            "Load profile must have {expected} intervals for {steps_per_hour} time_steps_per_hour"
        )));
    }
    if peaks_kw.len() != 12 {
        return Err(PeakScalingError::Rejected("monthly_peaks_kw must have exactly 12 values".into()));
    }
    if peaks_kw.iter().any(|kw| *kw <= 0.0) {
        return Err(PeakScalingError::Rejected("All monthly_peaks_kw values must be positive".into()));
    }
    let mut scaled = Vec::with_capacity(load_kw.len());
    let mut problems = Vec::new();
    for (month, (range, &target_kw)) in month_step_ranges(year, steps_per_hour).into_iter().zip(peaks_kw).enumerate() {
        let Some(month_kw) = load_kw.get(range) else { continue };
        let peak = month_kw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mean = month_kw.iter().sum::<f64>() / month_kw.len() as f64;
        if peak > target_kw {
            if target_kw < mean {
                problems.push(MonthProblem::BelowMeanLoad { month, target_kw, mean_kw: mean });
            } else {
                scaled.extend(flatten_to_peak(month_kw, target_kw));
            }
        } else if peak <= 0.0 {
            problems.push(MonthProblem::NoPositiveLoad { month });
        } else {
            scaled.extend(stretch_to_peak(month_kw, target_kw, steps_per_hour));
        }
    }
    if problems.is_empty() {
        Ok(scaled)
    } else {
        Err(PeakScalingError::Months(problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A month of hourly load: a 20 kW base with a daily bump to `bump` kW at 10:00–15:00 and a
    /// smaller wave, all positive.
    fn office_month(hours: usize, bump: f64) -> Vec<f64> {
        (0..hours)
            .map(|h| {
                let hour = h % 24;
                let day_bump = if (10..15).contains(&hour) { bump } else { 0.0 };
                20.0 + day_bump + 3.0 * ((h as f64) * 0.37).sin().abs()
            })
            .collect()
    }

    fn peak(kw: &[f64]) -> f64 {
        kw.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    }

    #[test]
    fn month_ranges_follow_the_services_calendar() {
        let plain = month_step_ranges(2023, 1);
        assert_eq!(plain[0], 0..744);
        assert_eq!(plain[1], 744..1416);
        assert_eq!(plain[11].end, 8760);
        let leap = month_step_ranges(2024, 4);
        assert_eq!(leap[1].len(), 29 * 96, "February 29 kept");
        assert_eq!(leap[11].len(), 30 * 96, "a leap year ends on December 30");
        assert_eq!(leap[11].end, 8760 * 4);
    }

    #[test]
    fn flattening_lands_on_the_peak_and_keeps_the_energy() {
        let month = office_month(720, 60.0);
        let energy: f64 = month.iter().sum();
        let scaled = flatten_to_peak(&month, 50.0);
        assert!((peak(&scaled) - 50.0).abs() < 1e-9, "peak {}", peak(&scaled));
        assert!((scaled.iter().sum::<f64>() - energy).abs() < 1e-9 * energy);
        // The shape is kept: every step stays on its side of the month's mean.
        let mean = energy / month.len() as f64;
        assert!(scaled.iter().zip(&month).all(|(s, m)| (s - mean) * (m - mean) >= 0.0));
        assert!(scaled.iter().all(|kw| *kw > 0.0));
    }

    #[test]
    fn stretching_lands_on_the_peak_and_keeps_the_energy_to_the_grid() {
        let month = office_month(744, 10.0);
        let energy: f64 = month.iter().sum();
        let scaled = stretch_to_peak(&month, 60.0, 1);
        assert!((peak(&scaled) - 60.0).abs() < 1e-9, "peak {}", peak(&scaled));
        // x moves on a 0.001 grid: the energy is kept to well under 0.1 %.
        let gap = (scaled.iter().sum::<f64>() - energy).abs() / energy;
        assert!(gap < 1e-3, "energy off by {gap}");
        // A target equal to the peak leaves the month as it is.
        let same = stretch_to_peak(&month, peak(&month), 1);
        assert!(same.iter().zip(&month).all(|(a, b)| (a - b).abs() < 1e-9));
    }

    #[test]
    fn the_bisection_finds_the_scans_grid_point() {
        for (bump, target, steps_per_hour) in [(10.0, 60.0, 1), (2.0, 25.0, 2), (30.0, 51.0, 4), (0.5, 400.0, 1)] {
            let month = office_month(720 * steps_per_hour, bump);
            let n = steps_per_hour as f64;
            let transformed: Vec<f64> = month.iter().map(|kw| kw * (target / peak(&month))).collect();
            let energy_at = |k: usize| transformed.iter().map(|t| t * (-(k as f64 / 1000.0) * (1.0 - t / target)).exp()).sum::<f64>() / n;
            let goal = month.iter().sum::<f64>() / n;
            let scan = first_closest_by_scan(energy_at, goal, STRETCH_EXPONENT_LAST);
            let bisection = first_closest_on_falling_grid(energy_at, goal, STRETCH_EXPONENT_LAST);
            assert_eq!(scan, bisection, "bump {bump}, target {target}");
        }
        // Flat energies (every step at the target): the first point, as the scan's findmin.
        assert_eq!(first_closest_on_falling_grid(|_| 5.0, 4.0, 100), 0);
        assert_eq!(first_closest_on_falling_grid(|k| 10.0 - k as f64, 4.6, 100), 5);
        assert_eq!(first_closest_on_falling_grid(|k| 10.0 - k as f64, 5.5, 100), 4, "ties go to the earlier point");
    }

    #[test]
    fn every_month_gets_its_peak_and_keeps_its_energy() {
        for (year, steps_per_hour) in [(2023, 1), (2024, 2)] {
            let load: Vec<f64> = office_month(8760 * steps_per_hour, 30.0);
            let peaks: Vec<f64> = (0..12).map(|m| if m % 2 == 0 { 40.0 } else { 70.0 }).collect();
            let scaled = scale_to_monthly_peaks(&load, &peaks, year, steps_per_hour).expect("scalable");
            for (month, range) in month_step_ranges(year, steps_per_hour).into_iter().enumerate() {
                let before: f64 = load[range.clone()].iter().sum();
                let after: f64 = scaled[range.clone()].iter().sum();
                assert!((peak(&scaled[range]) - peaks[month]).abs() < 1e-9);
                assert!((after - before).abs() < 1e-3 * before, "month {month}: {before} → {after}");
            }
        }
    }

    #[test]
    fn peaks_the_engine_cannot_honour_are_named() {
        let load = office_month(8760, 30.0);
        let mut peaks = vec![40.0; 12];
        peaks[2] = 10.0;
        let Err(PeakScalingError::Months(problems)) = scale_to_monthly_peaks(&load, &peaks, 2023, 1) else { panic!("month 3 is below its mean") };
        assert!(matches!(problems[..], [MonthProblem::BelowMeanLoad { month: 2, .. }]));
        assert!(problems[0].to_string().starts_with("month 3 peak 10 kW is below"));
        let mut empty = load.clone();
        empty[..744].iter_mut().for_each(|kw| *kw = 0.0);
        let Err(PeakScalingError::Months(problems)) = scale_to_monthly_peaks(&empty, &[40.0; 12], 2023, 1) else { panic!("January is empty") };
        assert_eq!(problems, vec![MonthProblem::NoPositiveLoad { month: 0 }]);
        for bad in [vec![40.0; 11], vec![0.0; 12]] {
            assert!(matches!(scale_to_monthly_peaks(&load, &bad, 2023, 1), Err(PeakScalingError::Rejected(_))));
        }
    }

    #[test]
    fn flatload_names_skip_the_peaks_as_the_service_does() {
        assert!(peak_scaling_skipped("FlatLoad_16_5", &[]));
        assert!(!peak_scaling_skipped("", &[("FlatLoad", 0.75), ("Hospital", 0.25)]));
        assert!(peak_scaling_skipped("", &[("FlatLoad_8_7", 0.8), ("Hospital", 0.2)]));
        assert!(!peak_scaling_skipped("LargeOffice", &[]));
    }
}

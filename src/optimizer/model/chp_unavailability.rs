//! CHP maintenance: the hours of the load's year in which CHP may not run, from the service's
//! relative calendar periods (REopt.jl `src/core/utils.jl` `generate_year_profile_hourly`):
//! a period starts in `month`, in week `start_week_of_month` (weeks begin on Monday, the first
//! one on the Monday on or before the 1st), on day `start_day_of_week` (1 = Monday … 7 =
//! Sunday), at `start_hour` (1 = midnight), for `duration_hours`.
//!
//! As the service does, a period is ignored when its start falls outside its month, when it runs
//! into the next year, or when it reaches past the 8760 modelled hours (a leap year's last day is
//! dropped); a zero-hour period marks nothing.

use crate::calendar::{days_from_civil, is_leap_year, civil_from_days, HOURS_PER_YEAR};

/// One relative maintenance period (all one-indexed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnavailabilityPeriod {
    pub month: u32,
    pub start_week_of_month: i64,
    pub start_day_of_week: i64,
    pub start_hour: i64,
    pub duration_hours: i64,
}

/// The first hour of the year (0-based from January 1, 00:00) a period marks, or None when the
/// service ignores it.
fn start_hour_of_year(year: i32, period: &UnavailabilityPeriod) -> Option<i64> {
    if !(1..=12).contains(&period.month) {
        return None;
    }
    let first_of_month = days_from_civil(year, period.month, 1);
    // ISO weekday (1 = Monday) of the 1st; 1970-01-01 was a Thursday.
    let weekday = (first_of_month + 3).rem_euclid(7) + 1;
    let monday = first_of_month - (weekday - 1);
    let start_day = monday + 7 * (period.start_week_of_month - 1) + (period.start_day_of_week - 1);
    let (start_year, start_month, _) = civil_from_days(start_day);
    if start_year != year || start_month != period.month {
        return None;
    }
    let start = (start_day - days_from_civil(year, 1, 1)) * 24 + period.start_hour - 1;
    let hours_in_year = if is_leap_year(year) { 8784 } else { 8760 };
    (start >= 0 && start + period.duration_hours < hours_in_year).then_some(start)
}

/// Whether CHP is unavailable in each hour of the modelled year (8760 values).
pub fn unavailable_hours(year: i32, periods: &[UnavailabilityPeriod]) -> Vec<bool> {
    let mut unavailable = vec![false; HOURS_PER_YEAR];
    for period in periods {
        let Some(start) = start_hour_of_year(year, period) else { continue };
        let end = start + period.duration_hours - 1;
        if start >= HOURS_PER_YEAR as i64 || end >= HOURS_PER_YEAR as i64 {
            continue;
        }
        for hour in start..=end {
            unavailable[hour as usize] = true;
        }
    }
    unavailable
}

#[cfg(test)]
mod tests {
    use super::*;

    fn period(month: u32, week: i64, day: i64, hour: i64, duration: i64) -> UnavailabilityPeriod {
        UnavailabilityPeriod { month, start_week_of_month: week, start_day_of_week: day, start_hour: hour, duration_hours: duration }
    }

    /// REopt.jl "CHP Unavailability and Outage" counts by hand in 2017 (January 1 a Sunday, so
    /// week 1 starts Monday December 26): week 2, Monday, hour 1 for 8 h is hours 25..=32 and
    /// week 2, Wednesday, hour 9 for 8 h is hours 81..=88 (one-indexed).
    #[test]
    fn the_testsets_hand_counted_periods() {
        let hours = unavailable_hours(2017, &[period(1, 2, 1, 1, 8), period(1, 2, 3, 9, 8)]);
        let marked: Vec<usize> = (0..HOURS_PER_YEAR).filter(|&h| hours[h]).map(|h| h + 1).collect();
        let expected: Vec<usize> = (25..=32).chain(81..=88).collect();
        assert_eq!(marked, expected);
    }

    #[test]
    fn periods_the_service_ignores_mark_nothing() {
        // Zero hours; Monday of week 1 of January 2017 is in December; past the year's end.
        let ignored = [period(1, 2, 6, 1, 0), period(1, 1, 1, 1, 5), period(12, 5, 7, 1, 48)];
        assert!(unavailable_hours(2017, &ignored).iter().all(|&u| !u));
    }
}

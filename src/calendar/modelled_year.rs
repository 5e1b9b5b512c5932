//! The optimizer's modelled year: it always has 8760 hours. In a leap year February keeps its
//! 29th and the year ends on December 30 (the service's convention), so month boundaries depend
//! on the load year. The civil facts it is built on are the parent's.

use super::{is_leap_year, weekday_of_january_first, DAYS_IN_MONTH, HOURS_PER_YEAR};

/// Days in each month of a non-leap year, as counts.
fn non_leap_days_in_month() -> [usize; 12] {
    DAYS_IN_MONTH.map(usize::from)
}

/// Days of each month as modelled for `year` (leap: February 29, December 30).
pub fn modelled_days_in_month(year: i32) -> [usize; 12] {
    let mut days = non_leap_days_in_month();
    if is_leap_year(year) {
        days[1] = 29;
        days[11] = 30;
    }
    days
}

/// Month index (0 = January) of every time step of the modelled year.
pub fn month_of_each_step(year: i32, steps_per_hour: usize) -> Vec<u8> {
    modelled_days_in_month(year)
        .iter()
        .enumerate()
        .flat_map(|(month, days)| std::iter::repeat_n(month as u8, days * 24 * steps_per_hour))
        .collect()
}

/// Month index of every step for 12 monthly values expanded by the non-leap calendar (how the
/// service expands 12-value export rates before they reach the optimizer).
pub fn month_of_each_hour_non_leap() -> Vec<u8> {
    non_leap_days_in_month()
        .iter()
        .enumerate()
        .flat_map(|(month, days)| std::iter::repeat_n(month as u8, days * 24))
        .collect()
}

/// Where a time step falls in the civil calendar (what rate schedules are keyed on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepTime {
    /// 0 = January.
    pub month: u8,
    /// Hour of the day, 0..24.
    pub hour: u8,
    /// Saturday or Sunday (rate schedules know no holidays).
    pub weekend: bool,
}

/// The calendar place of every step of the modelled year of `year` (leap years end on
/// December 30, as `month_of_each_step`).
pub fn step_times(year: i32, steps_per_hour: usize) -> Vec<StepTime> {
    let first_weekday = weekday_of_january_first(year) as usize;
    let mut times = Vec::with_capacity(HOURS_PER_YEAR * steps_per_hour);
    let mut day_of_year = 0usize;
    for (month, days) in modelled_days_in_month(year).iter().enumerate() {
        for _ in 0..*days {
            let weekday = (first_weekday - 1 + day_of_year) % 7 + 1;
            for hour in 0..24u8 {
                let time = StepTime { month: month as u8, hour, weekend: weekday >= 6 };
                times.extend(std::iter::repeat_n(time, steps_per_hour));
            }
            day_of_year += 1;
        }
    }
    times
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_cover_the_year_in_both_calendars() {
        for year in [2017, 2020] {
            let months = month_of_each_step(year, 2);
            assert_eq!(months.len(), 2 * HOURS_PER_YEAR);
            assert_eq!(months[0], 0);
            assert_eq!(*months.last().unwrap(), 11);
        }
        assert_eq!(month_of_each_step(2020, 1)[59 * 24], 1, "Feb 29 of a leap year is in February");
        assert_eq!(month_of_each_step(2017, 1)[59 * 24], 2);
    }

    #[test]
    fn steps_know_their_hour_and_weekend() {
        let times = step_times(2017, 2);
        assert_eq!(times.len(), 2 * HOURS_PER_YEAR);
        assert!(times[0].weekend && !times[48].weekend, "2017-01-01 is a Sunday, the 2nd a Monday");
        assert_eq!((times[2 * 13 + 1].hour, times.last().unwrap().month), (13, 11));
    }
}

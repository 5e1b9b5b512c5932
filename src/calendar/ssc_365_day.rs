//! The PVWatts engine's calendar convention, SSC's: a fixed 365-day month table for the day of
//! the year and for stepping from one day to the next. The engine also accepts a 366-day year when
//! the leap day is present in the data (see `pvwatts::weather` for the rule); the civil facts are
//! the parent's.

use super::DAYS_IN_MONTH;

/// Number of days of `month` (1-12); February has 29 days when `leap` is true.
pub fn days_in_month(month: u8, leap: bool) -> u8 {
    if month == 2 && leap {
        29
    } else {
        DAYS_IN_MONTH[usize::from(month - 1)]
    }
}

/// Day of the year (1-365) on the 365-day calendar, as SSC computes it for the extraterrestrial
/// irradiance: February 29 maps to 60, the same as March 1.
pub fn day_of_year_365(month: u8, day: u8) -> u32 {
    let before: u32 = DAYS_IN_MONTH[..usize::from(month - 1)]
        .iter()
        .map(|&d| u32::from(d))
        .sum();
    before + u32::from(day)
}

/// (month, day) of the zero-based `day_index` of a year that has a leap day when `leap` is true
/// (the tests build calendars with it).
#[cfg(test)]
pub fn month_day_of_index(day_index: usize, leap: bool) -> (u8, u8) {
    let mut remaining = day_index;
    for month in 1..=12u8 {
        let length = usize::from(days_in_month(month, leap));
        if remaining < length {
            return (month, (remaining + 1) as u8);
        }
        remaining -= length;
    }
    (12, 31)
}

/// The date before (`month`, `day`) following SSC's convention: the 365-day month table is used,
/// so March 1 steps back to February 28 and January 1 steps back to December 31 of the year before.
pub fn previous_day_365(year: i32, month: i32, day: i32) -> (i32, i32, i32) {
    if day > 1 {
        (year, month, day - 1)
    } else if month > 1 {
        (
            year,
            month - 1,
            i32::from(DAYS_IN_MONTH[(month - 2) as usize]),
        )
    } else {
        (year - 1, 12, 31)
    }
}

/// The date after (`month`, `day`) following SSC's convention: February 28 steps to March 1 even in
/// a leap year, and December 31 steps to January 1 of the next year.
pub fn next_day_365(year: i32, month: i32, day: i32) -> (i32, i32, i32) {
    if day < i32::from(DAYS_IN_MONTH[(month - 1) as usize]) {
        (year, month, day + 1)
    } else if month < 12 {
        (year, month + 1, 1)
    } else {
        (year + 1, 1, 1)
    }
}

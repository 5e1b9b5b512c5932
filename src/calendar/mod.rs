//! The crate's one calendar: civil (proleptic Gregorian) arithmetic shared by the formats, the
//! engine, the optimizer, the services and the embedded service — leap years, month lengths, the
//! hours of a year, day counts from 1970-01-01 both ways, weekdays and UTC timestamps — and, as
//! children, the two conventions built on these facts:
//! - `ssc_365_day`: the PVWatts engine's (SSC's) fixed 365-day month table for the day of the
//!   year and day stepping;
//! - `modelled_year`: the optimizer's 8760-hour year (a leap year keeps 29 February and ends on
//!   30 December) and the calendar place of each of its steps.

pub mod modelled_year;
pub mod ssc_365_day;

/// Days per month of a non-leap year (January first).
pub const DAYS_IN_MONTH: [u8; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/// Hours in a 365-day year.
pub const HOURS_PER_YEAR: usize = 8760;

/// Hours in a 366-day year.
pub const HOURS_PER_LEAP_YEAR: usize = 8784;

/// Typical years carry no calendar year of their own, and their months come from different years:
/// their timestamps use this non-leap year (the service's typical-year answers, and local typical
/// years without 29 February whose first record's year is a leap year)…
pub const NOMINAL_YEAR: i32 = 1990;

/// …and this leap year for typical years that hold 29 February when their first record's year
/// has none.
pub const NOMINAL_LEAP_YEAR: i32 = 2000;

/// Steps per hour that a year-long series of the optimizer's services may have: hourly,
/// 30-minute and 15-minute (the spec's `time_steps_per_hour`).
pub const STEPS_PER_HOUR_CHOICES: [usize; 3] = [1, 2, 4];

/// The steps per hour of a series of `len` values covering one 8760-hour year: 1, 2 or 4, or
/// `None` for any other length.
pub fn steps_per_hour_of_year(len: usize) -> Option<usize> {
    STEPS_PER_HOUR_CHOICES.into_iter().find(|steps| steps * HOURS_PER_YEAR == len)
}

/// Gregorian leap year.
pub fn is_leap_year(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// Days in a month (1–12) of a year; 0 for an invalid month.
pub fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if is_leap_year(year) => 29,
        _ => month
            .checked_sub(1)
            .and_then(|index| usize::try_from(index).ok())
            .and_then(|index| DAYS_IN_MONTH.get(index))
            .map_or(0, |&days| u32::from(days)),
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date (negative before). Counts whole 400-year
/// eras of 146,097 days from a March-based year, so February 29 is the last day of a year.
pub fn days_from_civil(year: i32, month: u32, day: u32) -> i64 {
    let year = i64::from(year) - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (i64::from(month) + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date (year, month, day) of a day count from 1970-01-01; inverse of [`days_from_civil`].
pub fn civil_from_days(days: i64) -> (i32, u32, u32) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = u32::try_from(day_of_year - (153 * month_from_march + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 }).unwrap_or(1);
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (i32::try_from(year).unwrap_or(if year < 0 { i32::MIN } else { i32::MAX }), month, day)
}

/// ISO weekday of January 1 of `year`: 1 = Monday … 7 = Sunday.
pub fn weekday_of_january_first(year: i32) -> u32 {
    // 1970-01-01 was a Thursday (4).
    let days = days_from_civil(year, 1, 1);
    ((days + 3).rem_euclid(7) + 1) as u32
}

/// An ISO 8601 UTC timestamp with milliseconds, e.g. `2023-09-26T22:15:18.207Z`.
pub fn iso8601_utc(since_epoch: std::time::Duration) -> String {
    let seconds = since_epoch.as_secs() as i64;
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    let second_of_day = seconds.rem_euclid(86_400);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        second_of_day / 3600,
        (second_of_day / 60) % 60,
        second_of_day % 60,
        since_epoch.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip_weekdays_and_timestamps() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil_from_days(days_from_civil(2023, 9, 26)), (2023, 9, 26));
        assert_eq!(civil_from_days(days_from_civil(2000, 2, 29)), (2000, 2, 29));
        assert_eq!(weekday_of_january_first(2017), 7, "2017 starts on a Sunday");
        assert_eq!(weekday_of_january_first(2021), 5, "2021 starts on a Friday");
        let stamp = iso8601_utc(std::time::Duration::from_millis(1_695_766_518_207));
        assert_eq!(stamp, "2023-09-26T22:15:18.207Z");
    }
}

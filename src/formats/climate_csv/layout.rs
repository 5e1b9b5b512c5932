//! The climate file's naming and calendar rules: the short column names, the row count of a
//! year and the stamps' time zone. (The attributes themselves are `spec::vocabulary::Attribute`.)

use crate::calendar::is_leap_year;
use crate::formats::timezone::standard_time_zone;
use crate::spec::vocabulary::Attribute;

/// The short (column) name for a file column: the attribute name when the column is one of the
/// 12, otherwise the same scheme applied to the long name: lower case, unit in parentheses
/// dropped, words joined, a trailing height after `_` (`wind direction at 180m (deg)` →
/// `winddirection_180m`).
pub fn short_column_name(long_name: &str) -> String {
    if let Some(attribute) = Attribute::from_column_name(long_name) {
        return attribute.name().to_string();
    }
    let mut name = long_name.trim().to_ascii_lowercase();
    if name.ends_with(')') {
        if let Some(open) = name.rfind('(') {
            name.truncate(open);
        }
    }
    let mut words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && *w != "at")
        .map(str::to_string)
        .collect();
    let height = words
        .last()
        .filter(|w| w.len() > 1 && w.ends_with('m') && w[..w.len() - 1].bytes().all(|b| b.is_ascii_digit()))
        .cloned();
    if height.is_some() && words.len() > 1 {
        words.pop();
    }
    match height.filter(|_| !words.is_empty()) {
        Some(height) => format!("{}_{height}", words.concat()),
        None => words.concat(),
    }
}

/// Rows of one year of data: 365 days, or 366 when `leap_day` is asked and the year has one,
/// times the intervals per day (`interval_minutes` must divide a day; 0 rows otherwise).
pub fn expected_rows(year: i32, leap_day: bool, interval_minutes: u32) -> usize {
    if interval_minutes == 0 || 1440 % interval_minutes != 0 {
        return 0;
    }
    let days = if leap_day && is_leap_year(year) { 366 } else { 365 };
    days * (1440 / interval_minutes) as usize
}

/// The interval assumed when a file has fewer than two rows (the only one the service offers).
pub(super) const INTERVAL_WHEN_UNKNOWN: u32 = 60;

/// The Arrow time zone of stamps at `offset_hours` from UTC (see the module notes).
pub fn timestamp_time_zone(offset_hours: f64) -> String {
    standard_time_zone(offset_hours).unwrap_or_else(|| "UTC".to_string())
}

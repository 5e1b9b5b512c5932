//! Synthetic weather for the unit tests: a crude clear-sky year at a mid-latitude site.

use crate::calendar::ssc_365_day::month_day_of_index;
use super::weather::{SiteMeta, WeatherColumns};

/// Site metadata near Golden, Colorado.
pub(crate) fn site() -> SiteMeta {
    SiteMeta {
        lat: 39.74,
        lon: -105.18,
        tz: -7.0,
        elevation: 1829.0,
        ..SiteMeta::default()
    }
}

/// One year of hourly columns (8784 records with February 29 when `leap`), hour averages
/// without minutes: irradiance follows a half-sine between 06:00 and 18:00.
pub(crate) fn year_columns(leap: bool) -> WeatherColumns {
    let records = if leap { 8784 } else { 8760 };
    let mut columns: WeatherColumns = WeatherColumns::default();
    for record in 0..records {
        let (month, day) = month_day_of_index(record / 24, leap);
        let hour = (record % 24) as u8;
        let daylight = (std::f64::consts::PI * (f64::from(hour) + 0.5 - 6.0) / 12.0)
            .sin()
            .max(0.0);
        columns.year.push(if leap { 2020 } else { 2019 });
        columns.month.push(month);
        columns.day.push(day);
        columns.hour.push(hour);
        columns.dn.push((800.0 * daylight).round());
        columns.df.push((120.0 * daylight).round());
        columns.gh.push((700.0 * daylight).round());
        columns.tdry.push(10.0 + 10.0 * daylight);
        columns.wspd.push(2.0 + f64::from(hour % 5));
    }
    columns
}

/// A SAM/NSRDB-style CSV of `year_columns(false)` with the given header rows; the column-name row
/// is `names` and each data row is produced by `row(record, columns)`.
pub(crate) fn csv_text(
    meta_names: &str,
    meta_values: &str,
    names: &str,
    row: impl Fn(usize, &WeatherColumns) -> String,
) -> String {
    let columns = year_columns(false);
    let mut text = format!("{meta_names}\n{meta_values}\n{names}\n");
    for record in 0..columns.year.len() {
        text.push_str(&row(record, &columns));
        text.push('\n');
    }
    text
}

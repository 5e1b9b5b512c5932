//! Weather from named columns (a table handed over from Python: polars, pandas, pyarrow, pvlib's
//! reader outputs): the CSV reader's column names, unit conversions and calendar rules, with the
//! site from the caller and the values used as given (no `f32` rounding; float64 columns in
//! their original buffers).
//!
//! Calendar: year (1900 when absent, as SSC), month, day and hour columns; hours 1–24 (hour
//! ending) are shifted to 0–23 as SSC does. A minute column makes the values instants; a table
//! whose first two minutes are both 60 (EPW's hour ending) gets minute 30 everywhere, SSC's rule
//! for such data. With `fill_gaps`, missing values (NaN) of the weather columns are filled as SSC
//! fills EPW files (pvlib's EPW frames keep EPW's missing-value markers).

use super::csv::choose_columns;
use super::epw::fill_missing;
use super::{Field, Origin, Series, SiteHints, SiteMeta, Weather, WeatherColumns, WeatherError};
use arrow_array::cast::AsArray;
use arrow_array::types::Float64Type;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use crate::limits::MAX_WEATHER_RECORDS;
use std::borrow::Cow;

/// One column of a table.
pub struct NamedColumn {
    /// The table's name for it.
    pub name: String,
    /// Its values (NaN for missing).
    pub values: Series,
}

/// The weather quantity a column name stands for (the names every reader accepts), as its
/// `Weather` field name ("year", "month", ..., "gh", "dn", "df", "tdry", "wspd", "pressure",
/// "albedo", "snow_depth").
pub fn column_field_name(name: &str) -> Option<&'static str> {
    super::csv::field_of(&super::csv::normalize_column_name(name).base).map(Field::default_name)
}

/// Column `index` of an Arrow table as float64, or `None` when it is not numeric: a float64
/// column without nulls in one batch is used in place; other columns are converted once, nulls
/// becoming NaN.
pub fn numeric_column(batches: &[RecordBatch], index: usize) -> Option<Series> {
    if let [batch] = batches {
        let column = batch.column(index);
        if column.data_type() == &DataType::Float64 && column.null_count() == 0 {
            return Some(column.as_primitive::<Float64Type>().values().clone());
        }
    }
    let mut out = Vec::new();
    for batch in batches {
        let column = batch.column(index);
        if !column.data_type().is_numeric() {
            return None;
        }
        let as_f64 = arrow_cast::cast(column, &DataType::Float64).ok()?;
        out.extend(as_f64.as_primitive::<Float64Type>().iter().map(|v| v.unwrap_or(f64::NAN)));
    }
    Some(out.into())
}

/// Refuses a table of more rows than a weather year has ([`MAX_WEATHER_RECORDS`]) before its
/// columns are converted.
pub fn check_table_rows(rows: usize, name: &str) -> Result<(), WeatherError> {
    if rows > MAX_WEATHER_RECORDS {
        return Err(WeatherError::new(
            name,
            None,
            None,
            format!("has {rows} rows, more than a weather year has ({MAX_WEATHER_RECORDS}: a leap year of one-minute records)"),
        ));
    }
    Ok(())
}

/// The minute that replaces EPW's hour-ending minute 60 (SSC's rule for such data).
const HOUR_ENDING_MINUTE: f64 = 30.0;

/// A weather year from named columns; `name` names the table in errors (`<name>:<record>:
/// column '<column>': ...`). `hints` must give latitude, longitude and time zone.
pub fn weather_from_columns(
    columns: Vec<NamedColumn>,
    hints: &SiteHints,
    name: &str,
    fill_gaps: bool,
) -> Result<Weather, WeatherError> {
    let missing_site: Vec<&str> = [("lat", hints.lat), ("lon", hints.lon), ("tz", hints.tz)]
        .iter()
        .filter(|(_, value)| value.is_none())
        .map(|(what, _)| *what)
        .collect();
    if !missing_site.is_empty() {
        return Err(WeatherError::new(
            name,
            None,
            None,
            format!("a table needs its site: give {}", missing_site.join(", ")),
        ));
    }
    let names: Vec<Cow<'_, str>> = columns.iter().map(|c| Cow::Borrowed(c.name.as_str())).collect();
    let chosen = choose_columns(&names);
    let mut origin = Origin::table(name);
    for (field, column) in &chosen {
        origin.name_column(*field, &column.name);
    }
    let mut slots: Vec<Option<Series>> = columns.into_iter().map(|c| Some(c.values)).collect();
    let mut take = |field: Field| -> Option<Series> {
        let (_, column) = chosen.iter().find(|(f, _)| *f == field)?;
        let values = column.conversion.convert(slots[column.index].take()?);
        let is_weather = !matches!(field, Field::Year | Field::Month | Field::Day | Field::Hour | Field::Minute);
        if fill_gaps && is_weather && values.iter().any(|v| v.is_nan()) {
            let mut filled = values.to_vec();
            fill_missing(&mut filled);
            return Some(filled.into());
        }
        Some(values)
    };
    let mut required = |field: Field| -> Result<Series, WeatherError> {
        take(field).ok_or_else(|| {
            WeatherError::new(
                name,
                None,
                None,
                format!("column '{}' is missing ({})", field.default_name(), super::csv::accepted_names(field)),
            )
        })
    };
    let month = required(Field::Month)?;
    let day = required(Field::Day)?;
    let hour = required(Field::Hour)?;
    let dn = required(Field::Dn)?;
    let df = required(Field::Df)?;
    let tdry = required(Field::Tdry)?;
    let wspd = required(Field::Wspd)?;
    let year = take(Field::Year);
    let minute = take(Field::Minute);
    let gh = take(Field::Gh);
    let pressure = take(Field::Pressure);
    let albedo = take(Field::Albedo);
    let snow_depth = take(Field::SnowDepth);

    let records = month.len();
    let whole = |values: &[f64], field: Field, low: i64, high: i64| -> Result<Vec<i64>, WeatherError> {
        values
            .iter()
            .enumerate()
            .map(|(record, &value)| {
                if value.fract() == 0.0 && (low as f64..=high as f64).contains(&value) {
                    Ok(value as i64)
                } else {
                    Err(origin.record_error(
                        record,
                        field,
                        format!("expected a whole number from {low} to {high}, got {value}"),
                    ))
                }
            })
            .collect()
    };
    let year: Vec<i32> = match &year {
        Some(values) => whole(values, Field::Year, -9999, 9999)?.into_iter().map(|y| y as i32).collect(),
        None => vec![1900; records],
    };
    let to_u8 = |values: Vec<i64>| values.into_iter().map(|v| v as u8).collect::<Vec<u8>>();
    let mut hour = whole(&hour, Field::Hour, 0, 24)?;
    if hour.iter().min() == Some(&1) && hour.iter().max() == Some(&24) {
        hour.iter_mut().for_each(|h| *h -= 1);
    }
    let minute = minute.map(|values| {
        if values.len() >= 2 && values[0] == 60.0 && values[1] == 60.0 {
            vec![HOUR_ENDING_MINUTE; values.len()]
        } else {
            values.to_vec()
        }
    });
    let columns = WeatherColumns::<Series> {
        year,
        month: to_u8(whole(&month, Field::Month, 1, 12)?),
        day: to_u8(whole(&day, Field::Day, 1, 31)?),
        hour: to_u8(hour),
        minute,
        gh: gh.unwrap_or_else(|| vec![f64::NAN; records].into()),
        dn,
        df,
        tdry,
        wspd,
        pressure,
        albedo,
        snow_depth,
    };
    let meta = SiteMeta {
        lat: hints.lat.unwrap_or(f64::NAN),
        lon: hints.lon.unwrap_or(f64::NAN),
        tz: hints.tz.unwrap_or(f64::NAN),
        elevation: hints.elevation.unwrap_or(f64::NAN),
        source: name.to_owned(),
        ..SiteMeta::default()
    };
    Weather::assemble(meta, columns, &origin)
}

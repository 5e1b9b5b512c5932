//! A climate-download table (the Arrow batch of `formats::climate_csv`, its metadata in the
//! schema) as a weather year: the site from the metadata, the calendar either the table's own
//! or the site's standard time computed from the UTC instants.

use arrow_array::cast::AsArray;
use arrow_array::types::TimestampMicrosecondType;
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Schema};
use serde::Deserialize;

use super::table::{numeric_column, weather_from_columns, NamedColumn};
use super::{SiteHints, Weather};
use crate::calendar::civil_from_days;
use crate::formats::climate_csv::SCHEMA_METADATA_KEY;

/// The weather columns a PV simulation cannot do without, as the table names them.
const IRRADIANCE_COLUMNS: [&str; 3] = ["ghi", "dni", "dhi"];

/// The table's own calendar columns (replaced by the local ones in standard time).
const CALENDAR_COLUMNS: [&str; 5] = ["Year", "Month", "Day", "Hour", "Minute"];

/// The column of UTC instants the climate table carries.
const TIMESTAMP_COLUMN: &str = "timestamp";

const MICROSECONDS_PER_MINUTE: i64 = 60_000_000;
const MINUTES_PER_DAY: i64 = 1_440;

/// What of the metadata a weather year needs (the rest of the record is the table's business).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ClimateSite {
    latitude: Option<f64>,
    longitude: Option<f64>,
    time_zone: Option<f64>,
    elevation: Option<f64>,
    local_time_zone: Option<f64>,
    city: String,
    state: String,
    country: String,
    location_id: String,
    source: String,
}

/// The weather year of a climate table (its schema and batches), named after its place. With `local_time`, the records
/// are stamped in the site's standard time (`local_time_zone`), each keeping its real date and
/// order (a UTC year at UTC−7 starts on 31 December 17:00 of the year before); without it, or
/// when the table is already in that zone, the table's own calendar and zone are kept. The
/// error is the message of a `ParameterError`.
pub fn weather_from_climate_table(schema: &Schema, batches: &[RecordBatch], local_time: bool) -> Result<Weather, String> {
    if batches.iter().all(|batch| batch.num_rows() == 0) {
        return Err("the table has no rows: a PV simulation needs one whole year".into());
    }
    let missing: Vec<&str> =
        IRRADIANCE_COLUMNS.into_iter().filter(|name| schema.column_with_name(name).is_none()).collect();
    if !missing.is_empty() {
        return Err(format!("the table lacks {} for a PV simulation", missing.join(", ")));
    }
    let site: ClimateSite = match schema.metadata().get(SCHEMA_METADATA_KEY) {
        Some(text) => serde_json::from_str(text).map_err(|e| format!("the table's metadata cannot be read: {e}"))?,
        None => ClimateSite::default(),
    };
    let table_zone = site.time_zone.unwrap_or(0.0);
    let local_zone = site.local_time_zone.filter(|zone| local_time && *zone != table_zone);
    let (columns, tz) = match local_zone {
        None => (numeric_columns(schema, batches, &[]), table_zone),
        Some(zone) => {
            let mut columns = numeric_columns(schema, batches, &CALENDAR_COLUMNS);
            columns.extend(local_calendar(schema, batches, zone)?);
            (columns, zone)
        }
    };
    let hints =
        SiteHints { lat: site.latitude, lon: site.longitude, tz: Some(tz), elevation: Some(site.elevation.unwrap_or(0.0)) };
    let mut weather = weather_from_columns(columns, &hints, "table", false).map_err(|e| e.to_string())?;
    weather.meta.city = site.city;
    weather.meta.state = site.state;
    weather.meta.country = site.country;
    weather.meta.location_id = site.location_id;
    weather.meta.source = site.source;
    Ok(weather)
}

/// Every numeric column but those in `left_out`, as float64 (see [`numeric_column`]).
fn numeric_columns(schema: &Schema, batches: &[RecordBatch], left_out: &[&str]) -> Vec<NamedColumn> {
    schema
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, field)| !left_out.contains(&field.name().as_str()))
        .filter_map(|(index, field)| Some(NamedColumn { name: field.name().clone(), values: numeric_column(batches, index)? }))
        .collect()
}

/// year, month, day, hour and minute of each UTC instant seen at `zone` hours east of UTC.
fn local_calendar(schema: &Schema, batches: &[RecordBatch], zone: f64) -> Result<Vec<NamedColumn>, String> {
    let (index, _) = schema
        .column_with_name(TIMESTAMP_COLUMN)
        .filter(|(_, field)| matches!(field.data_type(), DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, _)))
        .ok_or("the table has no timestamp column of UTC instants")?;
    let offset_minutes = (zone * 60.0).round() as i64;
    let records: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let mut calendar: [Vec<f64>; 5] = std::array::from_fn(|_| Vec::with_capacity(records));
    for batch in batches {
        for stamp in batch.column(index).as_primitive::<TimestampMicrosecondType>().values() {
            let minutes = stamp.div_euclid(MICROSECONDS_PER_MINUTE) + offset_minutes;
            let (year, month, day) = civil_from_days(minutes.div_euclid(MINUTES_PER_DAY));
            let minute_of_day = minutes.rem_euclid(MINUTES_PER_DAY);
            let parts = [f64::from(year), f64::from(month), f64::from(day), (minute_of_day / 60) as f64, (minute_of_day % 60) as f64];
            for (column, part) in calendar.iter_mut().zip(parts) {
                column.push(part);
            }
        }
    }
    Ok(["year", "month", "day", "hour", "minute"]
        .into_iter()
        .zip(calendar)
        .map(|(name, values)| NamedColumn { name: name.to_owned(), values: values.into() })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, TimestampMicrosecondArray};
    use arrow_schema::{Field, TimeUnit};
    use std::sync::Arc;

    fn batch(stamps: Vec<i64>, columns: &[&str]) -> RecordBatch {
        let mut fields = vec![Field::new(TIMESTAMP_COLUMN, DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())), false)];
        let mut arrays: Vec<arrow_array::ArrayRef> = vec![Arc::new(TimestampMicrosecondArray::from(stamps.clone()).with_timezone("UTC"))];
        for name in columns {
            fields.push(Field::new(*name, DataType::Float64, false));
            arrays.push(Arc::new(Float64Array::from(vec![0.0; stamps.len()])));
        }
        RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
    }

    #[test]
    fn a_utc_instant_keeps_its_real_date_in_standard_time() {
        let new_year_2010_us = days_from_civil_us(2010, 1, 1);
        let table = batch(vec![new_year_2010_us], &[]);
        let west = local_calendar(&table.schema(), std::slice::from_ref(&table), -7.0).unwrap();
        let values: Vec<f64> = west.iter().map(|c| c.values[0]).collect();
        assert_eq!(values, [2009.0, 12.0, 31.0, 17.0, 0.0]);
        let india = local_calendar(&table.schema(), std::slice::from_ref(&table), 5.5).unwrap();
        let values: Vec<f64> = india.iter().map(|c| c.values[0]).collect();
        assert_eq!(values, [2010.0, 1.0, 1.0, 5.0, 30.0]);
    }

    #[test]
    fn an_empty_table_or_one_without_irradiance_is_refused() {
        let empty = batch(vec![], &["ghi", "dni", "dhi"]);
        assert_eq!(
            weather_from_climate_table(&empty.schema(), &[empty], true).unwrap_err(),
            "the table has no rows: a PV simulation needs one whole year"
        );
        let no_beam = batch(vec![0], &["ghi"]);
        assert_eq!(
            weather_from_climate_table(&no_beam.schema(), &[no_beam], true).unwrap_err(),
            "the table lacks dni, dhi for a PV simulation"
        );
    }

    fn days_from_civil_us(year: i32, month: u32, day: u32) -> i64 {
        crate::calendar::days_from_civil(year, month, day) * MINUTES_PER_DAY * MICROSECONDS_PER_MINUTE
    }
}

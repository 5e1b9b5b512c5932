//! A climate table as Arrow: the schema with its metadata, the record batch (columns moved, not
//! copied) and the sites table of a zip.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};
use serde_json::{Map, Value};

use super::*;

impl ClimateTable {
    /// Metadata plus the long name of each column (`columns`: short → long) and the unit of
    /// each column of a known quantity (`units`, keyed by the frame's column names), as JSON.
    pub fn metadata_json(&self) -> Value {
        let mut value = self.metadata.to_json();
        let columns: Map<String, Value> =
            self.columns.iter().map(|c| (c.name.clone(), Value::String(c.long_name.clone()))).collect();
        let units: Map<String, Value> = self
            .columns
            .iter()
            .filter_map(|c| self.metadata.units.for_column(&c.name).map(|unit| (c.name.clone(), Value::String(unit))))
            .collect();
        if let Some(object) = value.as_object_mut() {
            object.insert("columns".into(), Value::Object(columns));
            object.insert("units".into(), Value::Object(units));
        }
        value
    }

    /// The Arrow schema of [`ClimateTable::into_record_batch`].
    pub fn schema(&self) -> Schema {
        let mut fields = time_fields(&timestamp_time_zone(self.stamp_offset_hours()));
        fields.extend(self.columns.iter().map(column_field));
        let mut metadata = HashMap::from([(SCHEMA_METADATA_KEY.to_string(), self.metadata_json().to_string())]);
        if self.metadata.is_synthetic() {
            metadata.insert(SYNTHETIC_METADATA_KEY.to_string(), "true".to_string());
        }
        Schema::new_with_metadata(fields, metadata)
    }

    /// Columns `Year, Month, Day, Hour, Minute` (Int32), `timestamp` (µs, UTC instants with the
    /// stamps' time zone) and one Float64 per data column. Value vectors move into Arrow
    /// buffers without copying; the schema metadata `climate_metadata` holds
    /// [`ClimateTable::metadata_json`].
    pub fn into_record_batch(self) -> Result<RecordBatch, ArrowError> {
        let timestamps = self.timestamps_us();
        self.record_batch(timestamps)
    }

    /// [`ClimateTable::into_record_batch`] with the instants given.
    pub(super) fn record_batch(self, timestamps_us: Vec<i64>) -> Result<RecordBatch, ArrowError> {
        let schema = Arc::new(self.schema());
        let time_zone = timestamp_time_zone(self.stamp_offset_hours());
        RecordBatch::try_new(schema, self.arrays(&time_zone, timestamps_us))
    }

    /// The arrays of [`ClimateTable::into_record_batch`], with the timestamp column in
    /// `time_zone` (the instants do not change; a zip of sites in several zones uses `UTC`).
    pub fn into_arrays(self, time_zone: &str) -> Vec<ArrayRef> {
        let timestamps = self.timestamps_us();
        self.arrays(time_zone, timestamps)
    }

    fn arrays(self, time_zone: &str, timestamps: Vec<i64>) -> Vec<ArrayRef> {
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(self.year)),
            Arc::new(Int32Array::from(self.month)),
            Arc::new(Int32Array::from(self.day)),
            Arc::new(Int32Array::from(self.hour)),
            Arc::new(Int32Array::from(self.minute)),
            Arc::new(TimestampMicrosecondArray::from(timestamps).with_timezone(time_zone)),
        ];
        columns.extend(self.columns.into_iter().map(|c| Arc::new(Float64Array::from(c.values)) as ArrayRef));
        columns
    }
}

/// Schema metadata key holding the metadata JSON.
pub const SCHEMA_METADATA_KEY: &str = "climate_metadata";
/// Schema metadata key present (`"true"`) on the embedded service's generated weather, so that
/// an Arrow consumer (pyarrow, a Parquet file) keeps the label without reading the JSON.
pub const SYNTHETIC_METADATA_KEY: &str = "synthetic";

/// Year … Minute and the timestamp field.
pub fn time_fields(time_zone: &str) -> Vec<Field> {
    let mut fields: Vec<Field> = ["Year", "Month", "Day", "Hour", "Minute"]
        .iter()
        .map(|name| Field::new(*name, DataType::Int32, false))
        .collect();
    fields.push(Field::new("timestamp", DataType::Timestamp(TimeUnit::Microsecond, Some(time_zone.into())), false));
    fields
}

/// The Float64 field of a data column, with `long_name` (and `unit` for the 12) as field metadata.
pub fn column_field(column: &DataColumn) -> Field {
    let mut metadata = HashMap::from([("long_name".to_string(), column.long_name.clone())]);
    if let Some(attribute) = column.attribute() {
        metadata.insert("unit".to_string(), attribute.unit().to_string());
    }
    Field::new(column.name.clone(), DataType::Float64, false).with_metadata(metadata)
}

/// One row per metadata record: `site` then the typed metadata fields.
pub fn metadata_record_batch(rows: &[(String, &ClimateMetadata)]) -> Result<RecordBatch, ArrowError> {
    let text = |get: fn(&ClimateMetadata) -> &str| -> ArrayRef {
        Arc::new(StringArray::from(rows.iter().map(|(_, m)| get(m)).collect::<Vec<&str>>()))
    };
    let number = |get: fn(&ClimateMetadata) -> Option<f64>| -> ArrayRef {
        Arc::new(Float64Array::from(rows.iter().map(|(_, m)| get(m)).collect::<Vec<Option<f64>>>()))
    };
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("site", Arc::new(StringArray::from(rows.iter().map(|(s, _)| s.as_str()).collect::<Vec<&str>>()))),
        ("source", text(|m| &m.source)),
        ("location_id", text(|m| &m.location_id)),
        ("city", text(|m| &m.city)),
        ("county", text(|m| &m.county)),
        ("state", text(|m| &m.state)),
        ("country", text(|m| &m.country)),
        ("offshore", Arc::new(BooleanArray::from(rows.iter().map(|(_, m)| m.offshore).collect::<Vec<Option<bool>>>()))),
        ("eez", text(|m| &m.eez)),
        ("latitude", number(|m| m.latitude)),
        ("longitude", number(|m| m.longitude)),
        ("time_zone", number(|m| m.time_zone)),
        ("elevation", number(|m| m.elevation)),
        ("local_time_zone", number(|m| m.local_time_zone)),
        ("ghi_units", text(|m| &m.units.ghi)),
        ("dni_units", text(|m| &m.units.dni)),
        ("dhi_units", text(|m| &m.units.dhi)),
        ("temperature_units", text(|m| &m.units.temperature)),
        ("wind_speed_units", text(|m| &m.units.wind_speed)),
        ("relative_humidity_units", text(|m| &m.units.relative_humidity)),
        ("wind_direction_units", text(|m| &m.units.wind_direction)),
        ("version", text(|m| &m.version)),
    ];
    let fields: Vec<Field> =
        columns.iter().map(|(name, array)| Field::new(*name, array.data_type().clone(), true)).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns.into_iter().map(|(_, array)| array).collect())
}

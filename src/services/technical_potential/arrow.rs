//! The Arrow tables behind `.to_polars()`: the configuration and the class statistics.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use serde_json::Value;

use super::*;

/// The classes as a table: min, max (resource units), nameplate_capacity_mw, ac_generation_mwh,
/// land_area_sq_km; one row per class in order.
pub fn classes_to_record_batch(classes: &[ClassStats]) -> Result<RecordBatch, ArrowError> {
    let column = |get: fn(&ClassStats) -> f64| -> ArrayRef {
        Arc::new(Float64Array::from(classes.iter().map(get).collect::<Vec<_>>()))
    };
    let schema = Schema::new(vec![
        Field::new("min", DataType::Float64, false),
        Field::new("max", DataType::Float64, false),
        unit_field("nameplate_capacity_mw", DataType::Float64, false, "MW"),
        unit_field("ac_generation_mwh", DataType::Float64, false, "MWh"),
        unit_field("land_area_sq_km", DataType::Float64, false, "km2"),
    ]);
    let columns = vec![
        column(|c| c.min),
        column(|c| c.max),
        column(|c| c.nameplate_capacity_mw),
        column(|c| c.ac_generation_mwh),
        column(|c| c.land_area_sq_km),
    ];
    RecordBatch::try_new(Arc::new(schema), columns)
}

/// The configuration flattened: one row per region × resource × input field (a resource without
/// fields, or a region without resources, still gets one row with empty field columns).
/// `field_values` and `default_value` are JSON text.
pub fn configuration_to_record_batch(config: &Configuration) -> Result<RecordBatch, ArrowError> {
    let rows = configuration_rows(config);
    let integers = |get: fn(&ConfigRow) -> Option<i64>| -> ArrayRef {
        Arc::new(Int64Array::from(rows.iter().map(get).collect::<Vec<_>>()))
    };
    let texts = |get: fn(&ConfigRow) -> Option<String>| -> ArrayRef {
        Arc::new(StringArray::from(rows.iter().map(get).collect::<Vec<_>>()))
    };
    let schema = Schema::new(vec![
        Field::new("output_id", DataType::Int64, false),
        Field::new("region_id", DataType::Int64, false),
        Field::new("region_label", DataType::Utf8, false),
        Field::new("resource_id", DataType::Int64, true),
        Field::new("resource_key", DataType::Utf8, true),
        Field::new("resource_label", DataType::Utf8, true),
        unit_field("default_power_density", DataType::Float64, true, "MW/km2"),
        Field::new("field_id", DataType::Int64, true),
        Field::new("field_name", DataType::Utf8, true),
        Field::new("data_type", DataType::Utf8, true),
        Field::new("field_values", DataType::Utf8, true),
        Field::new("default_value", DataType::Utf8, true),
    ]);
    let densities: Vec<Option<f64>> =
        rows.iter().map(|row| row.resource.and_then(|r| r.default_power_density)).collect();
    let columns = vec![
        integers(|row| Some(row.region.id)),
        integers(|row| Some(row.region.region_id)),
        texts(|row| Some(row.region.label.clone())),
        integers(|row| row.resource.map(|r| r.id)),
        texts(|row| row.resource.map(|r| r.key.clone())),
        texts(|row| row.resource.map(|r| r.label.clone())),
        Arc::new(Float64Array::from(densities)),
        integers(|row| row.field.map(|f| f.field_id)),
        texts(|row| row.field.map(|f| f.field_name.clone())),
        texts(|row| row.field.map(|f| f.data_type.clone())),
        texts(|row| row.field.and_then(|f| f.field_values.as_ref()).map(Value::to_string)),
        texts(|row| row.field.and_then(|f| f.default_value.as_ref()).map(Value::to_string)),
    ];
    RecordBatch::try_new(Arc::new(schema), columns)
}

/// One row of [`configuration_to_record_batch`].
struct ConfigRow<'a> {
    region: &'a RegionConfig,
    resource: Option<&'a ResourceConfig>,
    field: Option<&'a InputField>,
}

fn configuration_rows(config: &Configuration) -> Vec<ConfigRow<'_>> {
    let mut rows = Vec::new();
    for region in &config.regions {
        if region.resources.is_empty() {
            rows.push(ConfigRow { region, resource: None, field: None });
        }
        for resource in &region.resources {
            if resource.input_fields.is_empty() {
                rows.push(ConfigRow { region, resource: Some(resource), field: None });
            }
            rows.extend(resource.input_fields.iter().map(|field| ConfigRow {
                region,
                resource: Some(resource),
                field: Some(field),
            }));
        }
    }
    rows
}

fn unit_field(name: &str, data_type: DataType, nullable: bool, unit: &str) -> Field {
    Field::new(name, data_type, nullable).with_metadata(HashMap::from([("unit".to_string(), unit.to_string())]))
}

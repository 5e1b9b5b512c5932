//! Technical potential service (RE Data Explorer, deprecated upstream): the typed configuration
//! record, validation of a job's input fields against it (one definition shared by the client and
//! the embedded service), the configuration query, job status, the typed job result in both
//! directions, and the Arrow tables behind `.to_polars()`.
//!
//! Decisions the spec leaves open (recorded in docs/design.md):
//! - `region` and `resource` accept the configuration's ids ("6", "32") and, for convenience, the
//!   region label ("India") or the resource key or label ("wind_t200"); the body always carries
//!   the ids.
//! - The canonical POST body writes every scalar as a string, exactly like the live docs'
//!   example (`"excludeProtectedAreas": "true"`, `"powerDensity": "3"`, `{"min": "1"}`); inputs
//!   are accepted as native JSON values or as strings. A `{min, max}` side that is absent or null
//!   is left out of the body; a field whose value is null counts as not given.
//! - An offered field the caller leaves out is sent with its `defaultValue`; without one,
//!   `powerDensity` takes the resource's `defaultPowerDensity`, `limitBySolarResource` min 2 max 9
//!   and `limitByWindSpeed` min 3 (no max). A given `{min, max}` object replaces the default
//!   whole; a missing side is open.
//! - Corridor `distance` must be one of the offered distances; `units` is `kilometers` or `miles`
//!   (the dataType's wording) and defaults to kilometers.
//! - `limitByLandUse` lists land-use types to EXCLUDE (the live example lists urban land, water
//!   bodies and wooded wetland, the classic exclusions of technical-potential studies).
//!   `limitByGeographicExtent` lists the sub-regions to keep and must not be empty.
//! - The configuration query takes `countries` or a WKT POINT in `wkt`, not both.
//! - Job status: `queued`, `started`, `finished`; any other value is a failure
//!   ([`JobStatus::Failed`]) whose messages are the body's `errors`.

pub mod request;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use serde_json::{Map, Value};

use crate::formats::wkt::{parse_wkt, Geometry, LonLat};
use crate::services::raw::exact_i64;

/// The land-use types of the spec, in the live configuration's order.
pub const LAND_USE_TYPES: [&str; 20] = [
    "Barren or Sparsely Vegetated",
    "Cropland/Grassland Mosaic",
    "Cropland/Woodland Mosaic",
    "Deciduous Broadleaf Forest",
    "Dryland Cropland and Pasture",
    "Evergreen Broadleaf Forest",
    "Evergreen Needleleaf Forest",
    "Grassland",
    "Herbaceous Wetland",
    "Irrigated Cropland and Pasture",
    "Mixed Forest",
    "Mixed Shrubland/Grassland",
    "Mixed Tundra",
    "Savanna",
    "Shrubland",
    "Snow or Ice",
    "Urban and Built-Up Land",
    "Water Bodies",
    "Wooded Tundra",
    "Wooded Wetland",
];

/// Resource keys seen in the live configuration.
pub const RESOURCE_KEYS: [&str; 8] =
    ["fixlat", "csp", "axis1", "wind_t200", "wind_t237", "wind_t245", "wind_t255", "wind_t325"];

/// Corridor distances offered by the live configuration (in the request's units).
pub const CORRIDOR_DISTANCES: [f64; 7] = [1.0, 5.0, 10.0, 15.0, 20.0, 50.0, 100.0];

pub const KM_PER_MILE: f64 = 1.609344;

/// `limitBySolarResource` when the caller gives none (kWh/m²/day).
pub const SOLAR_RESOURCE_DEFAULT: Range = Range { min: Some(2.0), max: Some(9.0) };

/// `limitByWindSpeed` when the caller gives none (m/s).
pub const WIND_SPEED_DEFAULT: Range = Range { min: Some(3.0), max: None };

// ---------------------------------------------------------------------------------------------
// Field names and shapes

/// The input fields the spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldName {
    ExcludeProtectedAreas,
    LimitBySlope,
    LimitToTransmissionCorridors,
    LimitToRoadCorridors,
    PowerDensity,
    LimitBySolarResource,
    LimitByWindSpeed,
    LimitByGeographicExtent,
    LimitByLandUse,
}

impl FieldName {
    pub const ALL: [FieldName; 9] = [
        FieldName::ExcludeProtectedAreas,
        FieldName::LimitBySlope,
        FieldName::LimitToTransmissionCorridors,
        FieldName::LimitToRoadCorridors,
        FieldName::PowerDensity,
        FieldName::LimitBySolarResource,
        FieldName::LimitByWindSpeed,
        FieldName::LimitByGeographicExtent,
        FieldName::LimitByLandUse,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FieldName::ExcludeProtectedAreas => "excludeProtectedAreas",
            FieldName::LimitBySlope => "limitBySlope",
            FieldName::LimitToTransmissionCorridors => "limitToTransmissionCorridors",
            FieldName::LimitToRoadCorridors => "limitToRoadCorridors",
            FieldName::PowerDensity => "powerDensity",
            FieldName::LimitBySolarResource => "limitBySolarResource",
            FieldName::LimitByWindSpeed => "limitByWindSpeed",
            FieldName::LimitByGeographicExtent => "limitByGeographicExtent",
            FieldName::LimitByLandUse => "limitByLandUse",
        }
    }

    pub fn parse(name: &str) -> Option<FieldName> {
        FieldName::ALL.into_iter().find(|field| field.as_str() == name)
    }

    /// The `dataType` text of the live configuration.
    pub fn data_type(self) -> &'static str {
        match self {
            FieldName::ExcludeProtectedAreas => "boolean",
            FieldName::PowerDensity => "number",
            FieldName::LimitBySlope | FieldName::LimitBySolarResource | FieldName::LimitByWindSpeed => {
                "min and/or max as number"
            }
            FieldName::LimitToTransmissionCorridors | FieldName::LimitToRoadCorridors => {
                "distance as number and units as one of kilometers or miles"
            }
            FieldName::LimitByGeographicExtent => "array of strings including only provided geographic extents",
            FieldName::LimitByLandUse => "array of strings including only provided land use types",
        }
    }

    pub fn shape(self) -> FieldShape {
        FieldShape::from_data_type(self.data_type()).unwrap_or(FieldShape::Choices)
    }
}

/// How a field's value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldShape {
    Boolean,
    Number,
    /// `{min, max}`, either side optional.
    Range,
    /// `{distance, units}`.
    Corridor,
    /// An array of strings from a list.
    Choices,
}

impl FieldShape {
    /// The shape a `dataType` text describes, for fields whose name the spec does not know.
    pub fn from_data_type(text: &str) -> Option<FieldShape> {
        let text = text.trim().to_ascii_lowercase();
        if text == "boolean" {
            Some(FieldShape::Boolean)
        } else if text == "number" {
            Some(FieldShape::Number)
        } else if text.starts_with("min and/or max") {
            Some(FieldShape::Range)
        } else if text.starts_with("distance") {
            Some(FieldShape::Corridor)
        } else if text.starts_with("array of strings") {
            Some(FieldShape::Choices)
        } else {
            None
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Configuration

/// Why a response body could not be read as a technical potential record.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    #[error("response body is not valid JSON: {0}")]
    Json(String),
    #[error("unexpected response at {path}: {problem}")]
    Shape { path: String, problem: String },
}

/// The configuration record: the regions a query matched, with their resources and input fields.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Configuration {
    /// `metadata.version`.
    pub version: Option<String>,
    /// `metadata.resultset.count`.
    pub count: Option<i64>,
    /// The echoed query (`wkt` or `countries`).
    pub inputs: Map<String, Value>,
    pub regions: Vec<RegionConfig>,
}

/// One output of the configuration: a country or region.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionConfig {
    /// The output's `id`: the `region` of a job.
    pub id: i64,
    /// `region.id`.
    pub region_id: i64,
    pub label: String,
    pub resources: Vec<ResourceConfig>,
}

/// One available resource of a region.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceConfig {
    /// The `resource` of a job.
    pub id: i64,
    pub key: String,
    pub label: String,
    /// MW/km².
    pub default_power_density: Option<f64>,
    pub input_fields: Vec<InputField>,
}

/// One input field a job for a resource may carry.
#[derive(Debug, Clone, PartialEq)]
pub struct InputField {
    pub field_id: i64,
    pub field_name: String,
    pub data_type: String,
    pub field_values: Option<Value>,
    pub default_value: Option<Value>,
}

impl Configuration {
    /// Reads the record from a parsed body; unknown keys anywhere are ignored.
    pub fn from_value(body: &Value) -> Result<Configuration, ParseError> {
        let root = object(body, "$")?;
        let metadata = root.get("metadata").and_then(Value::as_object);
        let version = metadata.and_then(|m| m.get("version")).and_then(text_of);
        let count = metadata.and_then(|m| m.get("resultset")).and_then(|r| r.get("count")).and_then(integer_of);
        let inputs = root.get("inputs").and_then(Value::as_object).cloned().unwrap_or_default();
        let regions = list(root.get("outputs"), "outputs")?
            .iter()
            .enumerate()
            .map(|(index, value)| RegionConfig::from_value(value, &format!("outputs[{index}]")))
            .collect::<Result<_, _>>()?;
        Ok(Configuration { version, count, inputs, regions })
    }

    /// The region a job names: its output id or region id, or its label (case-insensitive).
    pub fn find_region(&self, token: &str) -> Option<&RegionConfig> {
        let token = token.trim();
        match token.parse::<i64>() {
            Ok(id) => {
                self.regions.iter().find(|r| r.id == id).or_else(|| self.regions.iter().find(|r| r.region_id == id))
            }
            Err(_) => self.regions.iter().find(|r| r.label.eq_ignore_ascii_case(token)),
        }
    }
}

/// Parses a configuration response body.
pub fn parse_configuration(body: &[u8]) -> Result<Configuration, ParseError> {
    Configuration::from_value(&parse_json(body)?)
}

impl RegionConfig {
    fn from_value(value: &Value, path: &str) -> Result<RegionConfig, ParseError> {
        let output = object(value, path)?;
        let region = output.get("region").and_then(Value::as_object);
        let outer_id = output.get("id").and_then(integer_of);
        let inner_id = region.and_then(|r| r.get("id")).and_then(integer_of);
        let (id, region_id) = match (outer_id, inner_id) {
            (Some(outer), Some(inner)) => (outer, inner),
            (Some(id), None) | (None, Some(id)) => (id, id),
            (None, None) => return Err(shape(&format!("{path}.id"), "no integer region id")),
        };
        let label = region
            .and_then(|r| r.get("label"))
            .and_then(text_of)
            .ok_or_else(|| shape(&format!("{path}.region.label"), "missing region label"))?;
        let resources = list(output.get("availableResources"), &format!("{path}.availableResources"))?
            .iter()
            .enumerate()
            .map(|(index, value)| ResourceConfig::from_value(value, &format!("{path}.availableResources[{index}]")))
            .collect::<Result<_, _>>()?;
        Ok(RegionConfig { id, region_id, label, resources })
    }

    /// The resource a job names: its id, or its key or label (case-insensitive).
    pub fn find_resource(&self, token: &str) -> Option<&ResourceConfig> {
        let token = token.trim();
        match token.parse::<i64>() {
            Ok(id) => self.resources.iter().find(|r| r.id == id),
            Err(_) => {
                self.resources.iter().find(|r| r.key.eq_ignore_ascii_case(token) || r.label.eq_ignore_ascii_case(token))
            }
        }
    }

    /// The output record in the live service's shape and key order.
    pub fn to_value(&self) -> Value {
        let mut region = Map::new();
        region.insert("id".into(), Value::from(self.region_id));
        region.insert("label".into(), Value::from(self.label.as_str()));
        let mut output = Map::new();
        output.insert("id".into(), Value::from(self.id));
        output.insert("region".into(), Value::Object(region));
        output.insert(
            "availableResources".into(),
            Value::Array(self.resources.iter().map(ResourceConfig::to_value).collect()),
        );
        Value::Object(output)
    }
}

impl ResourceConfig {
    fn from_value(value: &Value, path: &str) -> Result<ResourceConfig, ParseError> {
        let entry = object(value, path)?;
        let resource_path = format!("{path}.resource");
        let resource = object(entry.get("resource").unwrap_or(&Value::Null), &resource_path)?;
        let id = resource
            .get("id")
            .and_then(integer_of)
            .ok_or_else(|| shape(&format!("{resource_path}.id"), "no integer resource id"))?;
        let key = resource
            .get("key")
            .and_then(text_of)
            .ok_or_else(|| shape(&format!("{resource_path}.key"), "missing resource key"))?;
        let label = resource.get("label").and_then(text_of).unwrap_or_else(|| key.clone());
        let default_power_density = resource.get("defaultPowerDensity").and_then(number_of);
        let input_fields = list(entry.get("inputFields"), &format!("{path}.inputFields"))?
            .iter()
            .enumerate()
            .map(|(index, value)| InputField::from_value(value, &format!("{path}.inputFields[{index}]")))
            .collect::<Result<_, _>>()?;
        Ok(ResourceConfig { id, key, label, default_power_density, input_fields })
    }

    pub fn field(&self, name: &str) -> Option<&InputField> {
        self.input_fields.iter().find(|field| field.field_name == name)
    }

    fn to_value(&self) -> Value {
        let mut resource = Map::new();
        resource.insert("id".into(), Value::from(self.id));
        resource.insert("key".into(), Value::from(self.key.as_str()));
        resource.insert("label".into(), Value::from(self.label.as_str()));
        if let Some(density) = self.default_power_density {
            resource.insert("defaultPowerDensity".into(), number_value(density));
        }
        let mut entry = Map::new();
        entry.insert("resource".into(), Value::Object(resource));
        entry.insert("inputFields".into(), Value::Array(self.input_fields.iter().map(InputField::to_value).collect()));
        Value::Object(entry)
    }
}

impl InputField {
    fn from_value(value: &Value, path: &str) -> Result<InputField, ParseError> {
        let field = object(value, path)?;
        let field_id = field
            .get("fieldId")
            .and_then(integer_of)
            .ok_or_else(|| shape(&format!("{path}.fieldId"), "no integer field id"))?;
        let field_name = field
            .get("fieldName")
            .and_then(text_of)
            .ok_or_else(|| shape(&format!("{path}.fieldName"), "missing field name"))?;
        Ok(InputField {
            field_id,
            field_name,
            data_type: field.get("dataType").and_then(text_of).unwrap_or_default(),
            field_values: field.get("fieldValues").filter(|v| !v.is_null()).cloned(),
            default_value: field.get("defaultValue").filter(|v| !v.is_null()).cloned(),
        })
    }

    /// The field's shape: the spec's for a known name, else what its `dataType` says.
    pub fn shape(&self) -> Option<FieldShape> {
        FieldName::parse(&self.field_name).map(FieldName::shape).or_else(|| FieldShape::from_data_type(&self.data_type))
    }

    fn to_value(&self) -> Value {
        let mut field = Map::new();
        field.insert("fieldId".into(), Value::from(self.field_id));
        field.insert("fieldName".into(), Value::from(self.field_name.as_str()));
        field.insert("dataType".into(), Value::from(self.data_type.as_str()));
        if let Some(values) = &self.field_values {
            field.insert("fieldValues".into(), values.clone());
        }
        if let Some(default) = &self.default_value {
            field.insert("defaultValue".into(), default.clone());
        }
        Value::Object(field)
    }

    /// The offered values when `fieldValues` is an array of strings.
    fn offered_choices(&self) -> Option<Vec<&str>> {
        self.field_values.as_ref()?.as_array().map(|values| values.iter().filter_map(Value::as_str).collect())
    }

    /// The offered corridor distances (`fieldValues.distance`), else the spec's list.
    fn offered_distances(&self) -> Vec<f64> {
        self.field_values
            .as_ref()
            .and_then(|values| values.get("distance"))
            .and_then(Value::as_array)
            .map(|values| values.iter().filter_map(number_of).collect())
            .unwrap_or_else(|| CORRIDOR_DISTANCES.to_vec())
    }
}

// ---------------------------------------------------------------------------------------------
// Configuration query

/// What a configuration request asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigQuery {
    /// Every region.
    All,
    /// Regions by name (case-insensitive), in the order given.
    Countries(Vec<String>),
    /// The region containing a point; `wkt` is the text as given.
    Point { wkt: String, position: LonLat },
}

impl ConfigQuery {
    /// The query parameters that ask for this (without the api_key).
    pub fn query_pairs(&self) -> Vec<(&'static str, String)> {
        match self {
            ConfigQuery::All => Vec::new(),
            ConfigQuery::Countries(names) => vec![("countries", names.join(","))],
            ConfigQuery::Point { wkt, .. } => vec![("wkt", wkt.clone())],
        }
    }
}

/// Checks the `countries` and `wkt` parameters: at most one of them, a non-empty
/// comma-separated country list, or a WKT POINT (the spec's "point geometry").
pub fn validate_config_query(countries: Option<&str>, wkt: Option<&str>) -> Result<ConfigQuery, Vec<String>> {
    match (countries, wkt) {
        (Some(_), Some(_)) => Err(vec!["countries and wkt: give one of them, not both".to_string()]),
        (None, None) => Ok(ConfigQuery::All),
        (Some(text), None) => {
            let names: Vec<String> =
                text.split(',').map(str::trim).filter(|name| !name.is_empty()).map(str::to_string).collect();
            if names.is_empty() {
                Err(vec!["countries: give at least one country name (comma-separated)".to_string()])
            } else {
                Ok(ConfigQuery::Countries(names))
            }
        }
        (None, Some(text)) => match parse_wkt(text) {
            Ok(Geometry::Point(position)) => Ok(ConfigQuery::Point { wkt: text.trim().to_string(), position }),
            Ok(other) => Err(vec![format!("wkt: give a POINT(lon lat), not a {}", other.kind())]),
            Err(error) => Err(vec![format!("wkt: {error}")]),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Job fields

/// A `{min, max}` limit; an absent side is open.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl Range {
    pub fn contains(&self, value: f64) -> bool {
        self.min.is_none_or(|min| value >= min) && self.max.is_none_or(|max| value <= max)
    }

    /// `{min, max}` with numbers and `null` for an open side, as configuration defaults are written.
    pub fn to_number_value(&self) -> Value {
        let side = |bound: Option<f64>| bound.map_or(Value::Null, number_value);
        let mut range = Map::new();
        range.insert("min".into(), side(self.min));
        range.insert("max".into(), side(self.max));
        Value::Object(range)
    }

    fn to_canonical_value(self) -> Value {
        let mut range = Map::new();
        for (key, bound) in [("min", self.min), ("max", self.max)] {
            if let Some(bound) = bound {
                range.insert(key.into(), Value::from(format_number(bound)));
            }
        }
        Value::Object(range)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistanceUnit {
    Kilometers,
    Miles,
}

impl DistanceUnit {
    pub fn as_str(self) -> &'static str {
        match self {
            DistanceUnit::Kilometers => "kilometers",
            DistanceUnit::Miles => "miles",
        }
    }

    pub fn parse(text: &str) -> Option<DistanceUnit> {
        [DistanceUnit::Kilometers, DistanceUnit::Miles]
            .into_iter()
            .find(|unit| unit.as_str().eq_ignore_ascii_case(text.trim()))
    }

    pub fn to_km(self, distance: f64) -> f64 {
        match self {
            DistanceUnit::Kilometers => distance,
            DistanceUnit::Miles => distance * KM_PER_MILE,
        }
    }
}

/// Keep land within `distance` of a line network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Corridor {
    pub distance: f64,
    pub units: DistanceUnit,
}

impl Corridor {
    pub fn distance_km(&self) -> f64 {
        self.units.to_km(self.distance)
    }
}

/// The filters of a job, typed. `None` and empty lists filter nothing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JobFilters {
    pub exclude_protected_areas: bool,
    /// Slope, percent.
    pub slope: Option<Range>,
    pub transmission_corridor: Option<Corridor>,
    pub road_corridor: Option<Corridor>,
    /// MW/km²; `None`: the resource's default.
    pub power_density: Option<f64>,
    /// kWh/m²/day (solar resources).
    pub solar_resource: Option<Range>,
    /// m/s at hub height (wind resources).
    pub wind_speed: Option<Range>,
    /// Sub-regions to keep; `None`: all.
    pub geographic_extent: Option<Vec<String>>,
    /// Land-use types to exclude.
    pub excluded_land_use: Vec<String>,
}

/// A validated job: the resolved region and resource, typed filters, and the body to POST.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRequest {
    pub region_id: i64,
    pub region_label: String,
    pub resource_id: i64,
    pub resource_key: String,
    pub filters: JobFilters,
    /// The canonical JSON body: `region` and `resource` ids, then the fields in the
    /// configuration's order, every scalar written as a string.
    pub body: Map<String, Value>,
}

/// One field's value after validation.
#[derive(Debug, Clone, PartialEq)]
enum FieldValue {
    Flag(bool),
    Number(f64),
    Range(Range),
    Corridor(Corridor),
    Choices(Vec<String>),
    /// A field of a shape this crate does not know: sent as given.
    Raw(Value),
}

impl FieldValue {
    fn canonical(&self) -> Value {
        match self {
            FieldValue::Flag(flag) => Value::from(flag.to_string()),
            FieldValue::Number(number) => Value::from(format_number(*number)),
            FieldValue::Range(range) => range.to_canonical_value(),
            FieldValue::Corridor(corridor) => {
                let mut object = Map::new();
                object.insert("distance".into(), Value::from(format_number(corridor.distance)));
                object.insert("units".into(), Value::from(corridor.units.as_str()));
                Value::Object(object)
            }
            FieldValue::Choices(names) => Value::from(names.clone()),
            FieldValue::Raw(value) => value.clone(),
        }
    }
}

/// Validates a job against the configuration: the region and resource exist, every field is
/// offered for the resource and well-formed (a `null` value counts as not given). All problems
/// are reported at once, each starting with the field's name. On success the request carries the
/// canonical body (defaults filled in).
pub fn validate_job(
    config: &Configuration,
    region: &str,
    resource: &str,
    fields: &Map<String, Value>,
) -> Result<JobRequest, Vec<String>> {
    let region_config = config.find_region(region).ok_or_else(|| vec![unknown_region(config, region)])?;
    let resource_config =
        region_config.find_resource(resource).ok_or_else(|| vec![unknown_resource(region_config, resource)])?;
    let mut problems = Vec::new();
    let mut given: HashMap<&str, FieldValue> = HashMap::new();
    for (name, value) in fields {
        match resource_config.field(name) {
            None => problems.push(unknown_field(name, region_config, resource_config)),
            Some(_) if value.is_null() => {}
            Some(field) => match read_field(field, value) {
                Ok(read) => {
                    given.insert(name.as_str(), read);
                }
                Err(mut field_problems) => problems.append(&mut field_problems),
            },
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut body = Map::new();
    body.insert("region".into(), Value::from(region_config.id.to_string()));
    body.insert("resource".into(), Value::from(resource_config.id.to_string()));
    let mut filters = JobFilters::default();
    for field in &resource_config.input_fields {
        let value = given.remove(field.field_name.as_str()).or_else(|| default_for(field, resource_config));
        if let Some(value) = value {
            body.insert(field.field_name.clone(), value.canonical());
            apply_filter(&mut filters, &field.field_name, value);
        }
    }
    Ok(JobRequest {
        region_id: region_config.id,
        region_label: region_config.label.clone(),
        resource_id: resource_config.id,
        resource_key: resource_config.key.clone(),
        filters,
        body,
    })
}

fn unknown_region(config: &Configuration, token: &str) -> String {
    let offered: Vec<String> = config.regions.iter().map(|r| format!("{} ({})", r.id, r.label)).collect();
    format!("region: '{token}' is not a region of the configuration; offered: {}", or_none(&offered))
}

fn unknown_resource(region: &RegionConfig, token: &str) -> String {
    let offered: Vec<String> = region.resources.iter().map(|r| format!("{} ({})", r.id, r.key)).collect();
    format!("resource: '{token}' is not available in region {}; offered: {}", region.label, or_none(&offered))
}

fn unknown_field(name: &str, region: &RegionConfig, resource: &ResourceConfig) -> String {
    let known: Vec<String> = resource.input_fields.iter().map(|f| f.field_name.clone()).collect();
    format!(
        "{name}: not an input field of resource {} in region {}; its fields are {}",
        resource.key,
        region.label,
        or_none(&known)
    )
}

fn or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

/// The value sent for an offered field the caller left out, if any.
fn default_for(field: &InputField, resource: &ResourceConfig) -> Option<FieldValue> {
    if let Some(default) = &field.default_value {
        return read_field(field, default).ok();
    }
    match FieldName::parse(&field.field_name)? {
        FieldName::PowerDensity => resource.default_power_density.map(FieldValue::Number),
        FieldName::LimitBySolarResource => Some(FieldValue::Range(SOLAR_RESOURCE_DEFAULT)),
        FieldName::LimitByWindSpeed => Some(FieldValue::Range(WIND_SPEED_DEFAULT)),
        _ => None,
    }
}

fn apply_filter(filters: &mut JobFilters, name: &str, value: FieldValue) {
    let Some(name) = FieldName::parse(name) else { return };
    match (name, value) {
        (FieldName::ExcludeProtectedAreas, FieldValue::Flag(flag)) => filters.exclude_protected_areas = flag,
        (FieldName::LimitBySlope, FieldValue::Range(range)) => filters.slope = Some(range),
        (FieldName::LimitToTransmissionCorridors, FieldValue::Corridor(c)) => filters.transmission_corridor = Some(c),
        (FieldName::LimitToRoadCorridors, FieldValue::Corridor(c)) => filters.road_corridor = Some(c),
        (FieldName::PowerDensity, FieldValue::Number(density)) => filters.power_density = Some(density),
        (FieldName::LimitBySolarResource, FieldValue::Range(range)) => filters.solar_resource = Some(range),
        (FieldName::LimitByWindSpeed, FieldValue::Range(range)) => filters.wind_speed = Some(range),
        (FieldName::LimitByGeographicExtent, FieldValue::Choices(names)) => filters.geographic_extent = Some(names),
        (FieldName::LimitByLandUse, FieldValue::Choices(names)) => filters.excluded_land_use = names,
        _ => {}
    }
}

/// Reads one field's value by its shape; problems name the field.
fn read_field(field: &InputField, value: &Value) -> Result<FieldValue, Vec<String>> {
    let name = field.field_name.as_str();
    match field.shape() {
        Some(FieldShape::Boolean) => bool_of(value)
            .map(FieldValue::Flag)
            .ok_or_else(|| vec![format!("{name}: expected true or false, got {value}")]),
        Some(FieldShape::Number) => read_number_field(name, value).map(FieldValue::Number).map_err(|p| vec![p]),
        Some(FieldShape::Range) => read_range(name, value).map(FieldValue::Range),
        Some(FieldShape::Corridor) => read_corridor(field, value).map(FieldValue::Corridor),
        Some(FieldShape::Choices) => read_choices(field, value).map(FieldValue::Choices),
        None => Ok(FieldValue::Raw(value.clone())),
    }
}

fn read_number_field(name: &str, value: &Value) -> Result<f64, String> {
    let number = number_of(value).ok_or_else(|| format!("{name}: expected a number, got {value}"))?;
    if FieldName::parse(name) == Some(FieldName::PowerDensity) && number <= 0.0 {
        return Err(format!("{name}: must be greater than 0 MW/km², got {}", format_number(number)));
    }
    Ok(number)
}

fn read_range(name: &str, value: &Value) -> Result<Range, Vec<String>> {
    let Some(object) = value.as_object() else {
        return Err(vec![format!("{name}: expected an object with min and/or max, got {value}")]);
    };
    let mut problems: Vec<String> = object
        .keys()
        .filter(|key| !["min", "max"].contains(&key.as_str()))
        .map(|key| format!("{name}: unknown key '{key}' (only min and max)"))
        .collect();
    let mut side = |key: &str| match object.get(key) {
        None | Some(Value::Null) => None,
        Some(bound) => {
            let number = number_of(bound);
            if number.is_none() {
                problems.push(format!("{name}.{key}: expected a number, got {bound}"));
            }
            number
        }
    };
    let range = Range { min: side("min"), max: side("max") };
    let sides_given = ["min", "max"].iter().filter(|key| object.get(**key).is_some_and(|v| !v.is_null())).count();
    if sides_given == 0 {
        problems.push(format!("{name}: give min and/or max"));
    }
    if let (Some(min), Some(max)) = (range.min, range.max) {
        if min > max {
            problems.push(format!("{name}: min {} is greater than max {}", format_number(min), format_number(max)));
        }
    }
    if problems.is_empty() {
        Ok(range)
    } else {
        Err(problems)
    }
}

fn read_corridor(field: &InputField, value: &Value) -> Result<Corridor, Vec<String>> {
    let name = field.field_name.as_str();
    let Some(object) = value.as_object() else {
        return Err(vec![format!("{name}: expected an object with distance and units, got {value}")]);
    };
    let mut problems: Vec<String> = object
        .keys()
        .filter(|key| !["distance", "units"].contains(&key.as_str()))
        .map(|key| format!("{name}: unknown key '{key}' (only distance and units)"))
        .collect();
    let offered = field.offered_distances();
    let distance = match object.get("distance") {
        None | Some(Value::Null) => {
            problems.push(format!("{name}.distance: required"));
            None
        }
        Some(raw) => match number_of(raw) {
            Some(d) if offered.contains(&d) => Some(d),
            Some(d) => {
                let listed: Vec<String> = offered.iter().map(|d| format_number(*d)).collect();
                problems.push(format!(
                    "{name}.distance: {} is not offered; use one of {}",
                    format_number(d),
                    listed.join(", ")
                ));
                None
            }
            None => {
                problems.push(format!("{name}.distance: expected a number, got {raw}"));
                None
            }
        },
    };
    let units = match object.get("units") {
        None | Some(Value::Null) => Some(DistanceUnit::Kilometers),
        Some(raw) => {
            let units = raw.as_str().and_then(DistanceUnit::parse);
            if units.is_none() {
                problems.push(format!("{name}.units: expected kilometers or miles, got {raw}"));
            }
            units
        }
    };
    match (distance, units) {
        (Some(distance), Some(units)) if problems.is_empty() => Ok(Corridor { distance, units }),
        _ => Err(problems),
    }
}

fn read_choices(field: &InputField, value: &Value) -> Result<Vec<String>, Vec<String>> {
    let name = field.field_name.as_str();
    let items: Vec<&Value> = match value {
        Value::Array(items) => items.iter().collect(),
        Value::String(_) => vec![value],
        _ => return Err(vec![format!("{name}: expected an array of strings, got {value}")]),
    };
    let kind = FieldName::parse(name);
    let allowed: Option<Vec<&str>> =
        field.offered_choices().or_else(|| (kind == Some(FieldName::LimitByLandUse)).then(|| LAND_USE_TYPES.to_vec()));
    let mut problems = Vec::new();
    let mut chosen: Vec<String> = Vec::new();
    for item in items {
        let Some(text) = item.as_str() else {
            problems.push(format!("{name}: expected strings, got {item}"));
            continue;
        };
        let canonical = match &allowed {
            Some(allowed) => {
                allowed.iter().find(|offered| offered.eq_ignore_ascii_case(text.trim())).map(|s| s.to_string())
            }
            None => Some(text.to_string()),
        };
        match canonical {
            Some(canonical) if !chosen.contains(&canonical) => chosen.push(canonical),
            Some(_) => {}
            None => {
                let offered = allowed.as_deref().unwrap_or_default().join(", ");
                problems.push(format!("{name}: '{text}' is not one of the offered values ({offered})"));
            }
        }
    }
    if kind == Some(FieldName::LimitByGeographicExtent) && chosen.is_empty() && problems.is_empty() {
        problems.push(format!("{name}: list at least one geographic extent"));
    }
    if problems.is_empty() {
        Ok(chosen)
    } else {
        Err(problems)
    }
}

// ---------------------------------------------------------------------------------------------
// Jobs

/// A job's status. Anything but the three documented values is a failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobStatus {
    Queued,
    Started,
    Finished,
    /// The status text as the service wrote it (the spec does not name the failure status).
    Failed(String),
}

impl JobStatus {
    pub fn parse(text: &str) -> JobStatus {
        match text.trim().to_ascii_lowercase().as_str() {
            "queued" => JobStatus::Queued,
            "started" => JobStatus::Started,
            "finished" => JobStatus::Finished,
            _ => JobStatus::Failed(text.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Started => "started",
            JobStatus::Finished => "finished",
            JobStatus::Failed(text) => text,
        }
    }

    /// Finished or failed: polling will not change it.
    pub fn is_terminal(&self) -> bool {
        matches!(self, JobStatus::Finished | JobStatus::Failed(_))
    }
}

/// The answer to a job POST.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSubmission {
    pub job_id: String,
    pub status: JobStatus,
}

/// Parses a job POST response body (`outputs.jobId`, `outputs.status`).
pub fn parse_job_submission(body: &[u8]) -> Result<JobSubmission, ParseError> {
    let root = parse_json(body)?;
    let outputs = object(root.get("outputs").unwrap_or(&Value::Null), "outputs")?;
    let job_id = outputs
        .get("jobId")
        .and_then(text_of)
        .filter(|id| !id.is_empty())
        .ok_or_else(|| shape("outputs.jobId", "missing job id"))?;
    let status = outputs.get("status").and_then(text_of).map_or(JobStatus::Queued, |s| JobStatus::parse(&s));
    Ok(JobSubmission { job_id, status })
}

/// One poll of a job: its status and, when finished, its results.
#[derive(Debug, Clone, PartialEq)]
pub struct JobResult {
    /// `inputs.jobId`.
    pub job_id: Option<String>,
    pub status: JobStatus,
    pub disposition: Option<String>,
    pub runtime_seconds: Option<f64>,
    pub map_data_deleted: Option<bool>,
    pub results: Option<JobResultData>,
    /// The body's `errors` (the failure messages of a failed job).
    pub errors: Vec<String>,
}

/// `outputs.results` of a finished job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobResultData {
    pub cumulative_stats: Stats,
    /// Keyed by sub-region name.
    pub regional_stats: BTreeMap<String, Stats>,
    pub resource_data: Option<ResourceData>,
}

/// Totals over an area, with the resource range and the classes.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub total_nameplate_capacity_mw: f64,
    pub total_ac_generation_mwh: f64,
    pub total_land_area_sq_km: f64,
    /// `min` (cumulative) or `regional_min`; `None` when no land passed the filters.
    pub min: Option<f64>,
    /// `max` (cumulative) or `regional_max`.
    pub max: Option<f64>,
    pub classes: Vec<ClassStats>,
}

/// One resource class (bin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassStats {
    pub nameplate_capacity_mw: f64,
    pub ac_generation_mwh: f64,
    pub land_area_sq_km: f64,
    pub min: f64,
    pub max: f64,
}

/// The resource analysed.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceData {
    /// The resource key (`type` in the body).
    pub resource_type: String,
    pub units: String,
}

/// Which keys a [`Stats`] carries its range under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StatsScope {
    Cumulative,
    Regional,
}

impl StatsScope {
    fn range_keys(self) -> (&'static str, &'static str) {
        match self {
            StatsScope::Cumulative => ("min", "max"),
            StatsScope::Regional => ("regional_min", "regional_max"),
        }
    }
}

/// Parses a job GET (or DELETE) response body.
pub fn parse_job_result(body: &[u8]) -> Result<JobResult, ParseError> {
    JobResult::from_value(&parse_json(body)?)
}

impl JobResult {
    pub fn from_value(body: &Value) -> Result<JobResult, ParseError> {
        let root = object(body, "$")?;
        let outputs = object(root.get("outputs").unwrap_or(&Value::Null), "outputs")?;
        let status = outputs
            .get("status")
            .and_then(text_of)
            .map(|text| JobStatus::parse(&text))
            .ok_or_else(|| shape("outputs.status", "missing job status"))?;
        let results = match outputs.get("results") {
            None | Some(Value::Null) => None,
            Some(value) => Some(JobResultData::from_value(value, "outputs.results")?),
        };
        Ok(JobResult {
            job_id: root.get("inputs").and_then(|inputs| inputs.get("jobId")).and_then(text_of),
            status,
            disposition: outputs.get("disposition").and_then(text_of),
            runtime_seconds: outputs.get("runtime_seconds").and_then(number_of),
            map_data_deleted: outputs.get("map_data_deleted").and_then(bool_of),
            results,
            errors: root
                .get("errors")
                .and_then(Value::as_array)
                .map(|e| e.iter().map(message_of).collect())
                .unwrap_or_default(),
        })
    }

    /// `outputs` in the live service's key order: disposition, status, map_data_deleted,
    /// runtime_seconds, results.
    pub fn outputs_value(&self) -> Value {
        let mut outputs = Map::new();
        let disposition = self.disposition.clone().unwrap_or_else(|| self.status.as_str().to_string());
        outputs.insert("disposition".into(), Value::from(disposition));
        outputs.insert("status".into(), Value::from(self.status.as_str()));
        if let Some(deleted) = self.map_data_deleted {
            outputs.insert("map_data_deleted".into(), Value::from(deleted));
        }
        if let Some(runtime) = self.runtime_seconds {
            outputs.insert("runtime_seconds".into(), number_value(runtime));
        }
        if let Some(results) = &self.results {
            outputs.insert("results".into(), results.to_value());
        }
        Value::Object(outputs)
    }
}

impl JobResultData {
    fn from_value(value: &Value, path: &str) -> Result<JobResultData, ParseError> {
        let results = object(value, path)?;
        let cumulative_path = format!("{path}.cumulative_stats");
        let cumulative = results.get("cumulative_stats").ok_or_else(|| shape(&cumulative_path, "missing"))?;
        let cumulative_stats = Stats::from_value(cumulative, &cumulative_path)?;
        let mut regional_stats = BTreeMap::new();
        if let Some(regional) = results.get("regional_stats").filter(|v| !v.is_null()) {
            for (name, stats) in object(regional, &format!("{path}.regional_stats"))? {
                regional_stats
                    .insert(name.clone(), Stats::from_value(stats, &format!("{path}.regional_stats.{name}"))?);
            }
        }
        let resource_data = results.get("resource_data").and_then(Value::as_object).map(|data| ResourceData {
            resource_type: data.get("type").and_then(text_of).unwrap_or_default(),
            units: data.get("units").and_then(text_of).unwrap_or_default(),
        });
        Ok(JobResultData { cumulative_stats, regional_stats, resource_data })
    }

    pub fn to_value(&self) -> Value {
        let mut results = Map::new();
        results.insert("cumulative_stats".into(), self.cumulative_stats.to_value(StatsScope::Cumulative));
        let regional: Map<String, Value> = self
            .regional_stats
            .iter()
            .map(|(name, stats)| (name.clone(), stats.to_value(StatsScope::Regional)))
            .collect();
        results.insert("regional_stats".into(), Value::Object(regional));
        if let Some(data) = &self.resource_data {
            let mut resource = Map::new();
            resource.insert("type".into(), Value::from(data.resource_type.as_str()));
            resource.insert("units".into(), Value::from(data.units.as_str()));
            results.insert("resource_data".into(), Value::Object(resource));
        }
        Value::Object(results)
    }
}

impl Stats {
    /// Reads totals, the range (`min`/`max` or `regional_min`/`regional_max`) and the classes.
    fn from_value(value: &Value, path: &str) -> Result<Stats, ParseError> {
        let stats = object(value, path)?;
        let range_side = |keys: [&str; 2]| keys.iter().find_map(|key| stats.get(*key).and_then(number_of));
        let classes = list(stats.get("classes"), &format!("{path}.classes"))?
            .iter()
            .enumerate()
            .map(|(index, class)| ClassStats::from_value(class, &format!("{path}.classes[{index}]")))
            .collect::<Result<_, _>>()?;
        Ok(Stats {
            total_nameplate_capacity_mw: required_number(stats, "total_nameplate_capacity_mw", path)?,
            total_ac_generation_mwh: required_number(stats, "total_ac_generation_mwh", path)?,
            total_land_area_sq_km: required_number(stats, "total_land_area_sq_km", path)?,
            min: range_side(["min", "regional_min"]),
            max: range_side(["max", "regional_max"]),
            classes,
        })
    }

    fn to_value(&self, scope: StatsScope) -> Value {
        let (min_key, max_key) = scope.range_keys();
        let side = |bound: Option<f64>| bound.map_or(Value::Null, number_value);
        let mut stats = Map::new();
        stats.insert("total_nameplate_capacity_mw".into(), number_value(self.total_nameplate_capacity_mw));
        stats.insert("total_ac_generation_mwh".into(), number_value(self.total_ac_generation_mwh));
        stats.insert("total_land_area_sq_km".into(), number_value(self.total_land_area_sq_km));
        stats.insert(min_key.into(), side(self.min));
        stats.insert(max_key.into(), side(self.max));
        stats.insert("classes".into(), Value::Array(self.classes.iter().map(|class| class.to_value()).collect()));
        Value::Object(stats)
    }
}

impl ClassStats {
    fn from_value(value: &Value, path: &str) -> Result<ClassStats, ParseError> {
        let class = object(value, path)?;
        Ok(ClassStats {
            nameplate_capacity_mw: required_number(class, "nameplate_capacity_mw", path)?,
            ac_generation_mwh: required_number(class, "ac_generation_mwh", path)?,
            land_area_sq_km: required_number(class, "land_area_sq_km", path)?,
            min: required_number(class, "min", path)?,
            max: required_number(class, "max", path)?,
        })
    }

    fn to_value(self) -> Value {
        let mut class = Map::new();
        class.insert("nameplate_capacity_mw".into(), number_value(self.nameplate_capacity_mw));
        class.insert("ac_generation_mwh".into(), number_value(self.ac_generation_mwh));
        class.insert("land_area_sq_km".into(), number_value(self.land_area_sq_km));
        class.insert("min".into(), number_value(self.min));
        class.insert("max".into(), number_value(self.max));
        Value::Object(class)
    }
}

// ---------------------------------------------------------------------------------------------
// Arrow

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

// ---------------------------------------------------------------------------------------------
// Lenient value readers and writers

fn parse_json(body: &[u8]) -> Result<Value, ParseError> {
    serde_json::from_slice(body).map_err(|e| ParseError::Json(e.to_string()))
}

fn shape(path: &str, problem: impl Into<String>) -> ParseError {
    ParseError::Shape { path: path.to_string(), problem: problem.into() }
}

fn object<'a>(value: &'a Value, path: &str) -> Result<&'a Map<String, Value>, ParseError> {
    value.as_object().ok_or_else(|| shape(path, format!("expected an object, got {}", kind_of(value))))
}

/// An array; absent or null reads as empty.
fn list<'a>(value: Option<&'a Value>, path: &str) -> Result<&'a [Value], ParseError> {
    match value {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(shape(path, format!("expected an array, got {}", kind_of(other)))),
    }
}

fn required_number(object: &Map<String, Value>, key: &str, path: &str) -> Result<f64, ParseError> {
    object.get(key).and_then(number_of).ok_or_else(|| shape(&format!("{path}.{key}"), "missing number"))
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A finite number, given as a JSON number or a numeric string.
fn number_of(value: &Value) -> Option<f64> {
    let number = match value {
        Value::Number(number) => number.as_f64(),
        Value::String(text) => text.trim().parse::<f64>().ok(),
        _ => None,
    };
    number.filter(|n| n.is_finite())
}

/// An integer, given as a JSON integer, an integral number or an integer string.
fn integer_of(value: &Value) -> Option<i64> {
    match value {
        Value::Number(number) => number
            .as_i64()
            .or_else(|| number.as_f64().and_then(exact_i64)),
        Value::String(text) => text.trim().parse::<i64>().ok(),
        _ => None,
    }
}

/// A boolean, given as JSON true/false or the strings "true"/"false" (any case).
fn bool_of(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(flag) => Some(*flag),
        Value::String(text) if text.trim().eq_ignore_ascii_case("true") => Some(true),
        Value::String(text) if text.trim().eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// A string, or a number written as text.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

fn message_of(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}

/// A number as the service writes it: integral values without a fraction (36, not 36.0).
pub fn number_value(number: f64) -> Value {
    match exact_i64(number) {
        Some(whole) => Value::from(whole),
        None => Value::from(number),
    }
}

/// A number as text for the canonical body: "3", "0.5", "-2".
fn format_number(number: f64) -> String {
    if let Some(whole) = exact_i64(number) {
        whole.to_string()
    } else {
        number.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample_config() -> Configuration {
        let body = json!({
            "metadata": {"version": "1.0.0", "resultset": {"count": 1}},
            "inputs": {"countries": "Testland"},
            "outputs": [{
                "id": 6, "region": {"id": 6, "label": "Testland"}, "extra": true,
                "availableResources": [
                    {"resource": {"id": 14, "key": "fixlat", "label": "Fixed Tilt PV System", "defaultPowerDensity": 36},
                     "inputFields": [
                        {"fieldId": 3, "fieldName": "excludeProtectedAreas", "dataType": "boolean"},
                        {"fieldId": 7, "fieldName": "limitBySlope", "dataType": "min and/or max as number"},
                        {"fieldId": 6, "fieldName": "limitToTransmissionCorridors",
                         "dataType": "distance as number and units as one of kilometers or miles",
                         "fieldValues": {"distance": [1, 5, 10], "units": ["kilometers"]}},
                        {"fieldId": 17, "fieldName": "powerDensity", "dataType": "number"},
                        {"fieldId": 18, "fieldName": "limitBySolarResource", "dataType": "min and/or max as number",
                         "defaultValue": {"min": 2, "max": 9}},
                        {"fieldId": 8, "fieldName": "limitByGeographicExtent",
                         "dataType": "array of strings including only provided geographic extents",
                         "fieldValues": ["North", "South"]},
                        {"fieldId": 4, "fieldName": "limitByLandUse",
                         "dataType": "array of strings including only provided land use types"},
                        {"fieldId": 99, "fieldName": "futureField", "dataType": "something new"}
                     ]},
                    {"resource": {"id": 32, "key": "wind_t200", "label": "Wind T-200", "defaultPowerDensity": 3},
                     "inputFields": [
                        {"fieldId": 21, "fieldName": "limitByWindSpeed", "dataType": "min and/or max as number"}
                     ]}
                ]
            }],
            "errors": [],
            "status": 200
        });
        Configuration::from_value(&body).unwrap()
    }

    fn fields(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn configuration_reads_ids_labels_and_fields() {
        let config = sample_config();
        assert_eq!(config.version.as_deref(), Some("1.0.0"));
        assert_eq!(config.count, Some(1));
        let region = &config.regions[0];
        assert_eq!((region.id, region.region_id, region.label.as_str()), (6, 6, "Testland"));
        assert_eq!(region.resources[0].default_power_density, Some(36.0));
        assert_eq!(region.resources[0].input_fields.len(), 8);
        assert!(config.find_region("testland").is_some());
        assert!(region.find_resource("32").is_some());
        assert!(region.find_resource("Fixed Tilt PV System").is_some());
    }

    #[test]
    fn configuration_round_trips_through_the_writer() {
        let config = sample_config();
        let outputs: Vec<Value> = config.regions.iter().map(RegionConfig::to_value).collect();
        let again = Configuration::from_value(&json!({"outputs": outputs})).unwrap();
        assert_eq!(again.regions, config.regions);
    }

    #[test]
    fn configuration_rejects_wrong_shapes() {
        assert!(Configuration::from_value(&json!({"outputs": {}})).is_err());
        assert!(Configuration::from_value(&json!({"outputs": [{"region": {"label": "x"}}]})).is_err());
        assert_eq!(Configuration::from_value(&json!({})).unwrap().regions.len(), 0);
    }

    #[test]
    fn canonical_body_uses_strings_ids_and_defaults() {
        let config = sample_config();
        let request = validate_job(
            &config,
            "Testland",
            "fixlat",
            &fields(
                json!({"excludeProtectedAreas": true, "limitBySlope": {"max": 10}, "limitByLandUse": ["water bodies"]}),
            ),
        )
        .unwrap();
        assert_eq!(
            Value::Object(request.body.clone()),
            json!({
                "region": "6", "resource": "14",
                "excludeProtectedAreas": "true",
                "limitBySlope": {"max": "10"},
                "powerDensity": "36",
                "limitBySolarResource": {"min": "2", "max": "9"},
                "limitByLandUse": ["Water Bodies"]
            })
        );
        assert!(request.filters.exclude_protected_areas);
        assert_eq!(request.filters.power_density, Some(36.0));
        assert_eq!(request.filters.excluded_land_use, vec!["Water Bodies".to_string()]);
        let again = validate_job(
            &config,
            "6",
            "14",
            &request
                .body
                .iter()
                .filter(|(k, _)| *k != "region" && *k != "resource")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
        .unwrap();
        assert_eq!(again.body, request.body);
    }

    #[test]
    fn wind_default_has_no_max() {
        let request = validate_job(&sample_config(), "6", "32", &Map::new()).unwrap();
        assert_eq!(request.filters.wind_speed, Some(WIND_SPEED_DEFAULT));
        assert_eq!(request.body["limitByWindSpeed"], json!({"min": "3"}));
        assert!(request.body.get("powerDensity").is_none(), "powerDensity is not offered for this resource");
    }

    #[test]
    fn null_means_not_given() {
        let request =
            validate_job(&sample_config(), "6", "14", &fields(json!({"limitBySolarResource": null}))).unwrap();
        assert_eq!(request.filters.solar_resource, Some(SOLAR_RESOURCE_DEFAULT));
        assert!(validate_job(&sample_config(), "6", "14", &fields(json!({"nonsense": null}))).is_err());
    }

    #[test]
    fn unknown_shapes_pass_through() {
        let request = validate_job(&sample_config(), "6", "14", &fields(json!({"futureField": {"a": 1}}))).unwrap();
        assert_eq!(request.body["futureField"], json!({"a": 1}));
    }

    #[test]
    fn every_problem_is_named() {
        let config = sample_config();
        let problems = validate_job(
            &config,
            "6",
            "fixlat",
            &fields(json!({
                "excludeProtectedAreas": "yes",
                "limitBySlope": {"min": 5, "max": 1, "step": 2},
                "limitToTransmissionCorridors": {"distance": 7, "units": "leagues"},
                "powerDensity": "0",
                "limitBySolarResource": {},
                "limitByGeographicExtent": [],
                "limitByLandUse": ["Moon Dust", 3],
                "limitByWindSpeed": {"min": 3},
            })),
        )
        .unwrap_err();
        let expected_starts = [
            "excludeProtectedAreas: expected true or false",
            "limitBySlope: unknown key 'step'",
            "limitBySlope: min 5 is greater than max 1",
            "limitToTransmissionCorridors.distance: 7 is not offered",
            "limitToTransmissionCorridors.units: expected kilometers or miles",
            "powerDensity: must be greater than 0",
            "limitBySolarResource: give min and/or max",
            "limitByGeographicExtent: list at least one",
            "limitByLandUse: 'Moon Dust' is not one of the offered values",
            "limitByLandUse: expected strings, got 3",
            "limitByWindSpeed: not an input field of resource fixlat",
        ];
        for start in expected_starts {
            assert!(problems.iter().any(|p| p.starts_with(start)), "missing {start:?} in {problems:#?}");
        }
        assert_eq!(problems.len(), expected_starts.len(), "{problems:#?}");
    }

    #[test]
    fn region_and_resource_must_exist() {
        let config = sample_config();
        let problems = validate_job(&config, "Atlantis", "fixlat", &Map::new()).unwrap_err();
        assert!(problems[0].starts_with("region: 'Atlantis' is not a region"), "{problems:?}");
        let problems = validate_job(&config, "6", "wind_t999", &Map::new()).unwrap_err();
        assert!(problems[0].contains("offered: 14 (fixlat), 32 (wind_t200)"), "{problems:?}");
    }

    #[test]
    fn corridor_units_default_to_kilometers_and_miles_convert() {
        let config = sample_config();
        let request =
            validate_job(&config, "6", "14", &fields(json!({"limitToTransmissionCorridors": {"distance": "5"}})))
                .unwrap();
        assert_eq!(request.body["limitToTransmissionCorridors"], json!({"distance": "5", "units": "kilometers"}));
        let request = validate_job(
            &config,
            "6",
            "14",
            &fields(json!({"limitToTransmissionCorridors": {"distance": 10, "units": "Miles"}})),
        )
        .unwrap();
        let corridor = request.filters.transmission_corridor.unwrap();
        assert!((corridor.distance_km() - 16.09344).abs() < 1e-9);
    }

    #[test]
    fn config_query_rules() {
        assert_eq!(validate_config_query(None, None), Ok(ConfigQuery::All));
        assert_eq!(
            validate_config_query(Some("India, Kenya,"), None),
            Ok(ConfigQuery::Countries(vec!["India".into(), "Kenya".into()]))
        );
        assert!(validate_config_query(Some(" , "), None).is_err());
        assert!(validate_config_query(Some("India"), Some("POINT(1 2)")).is_err());
        let point = validate_config_query(None, Some(" point ( 77.216  28.644 ) ")).unwrap();
        assert_eq!(
            point,
            ConfigQuery::Point {
                wkt: "point ( 77.216  28.644 )".into(),
                position: LonLat { lon: 77.216, lat: 28.644 }
            }
        );
        assert_eq!(point.query_pairs(), vec![("wkt", "point ( 77.216  28.644 )".to_string())]);
        assert!(validate_config_query(None, Some("MULTIPOINT(1 2, 3 4)")).unwrap_err()[0].contains("not a MULTIPOINT"));
        for bad in ["POINT(200 0)", "POINT(0 95)", "POINT(1)", "POINT(a b)", ""] {
            assert!(validate_config_query(None, Some(bad)).unwrap_err()[0].starts_with("wkt: "), "{bad}");
        }
    }

    #[test]
    fn status_parse_treats_unknown_as_failure() {
        assert_eq!(JobStatus::parse("queued"), JobStatus::Queued);
        assert_eq!(JobStatus::parse(" Started "), JobStatus::Started);
        assert_eq!(JobStatus::parse("finished"), JobStatus::Finished);
        assert_eq!(JobStatus::parse("error"), JobStatus::Failed("error".into()));
        assert!(JobStatus::parse("failed").is_terminal());
        assert!(!JobStatus::Queued.is_terminal());
    }

    #[test]
    fn job_result_round_trips() {
        let class =
            ClassStats { nameplate_capacity_mw: 1.5, ac_generation_mwh: 2.0, land_area_sq_km: 0.5, min: 4.0, max: 4.5 };
        let stats = Stats {
            total_nameplate_capacity_mw: 1.5,
            total_ac_generation_mwh: 2.0,
            total_land_area_sq_km: 0.5,
            min: Some(4.1),
            max: None,
            classes: vec![class],
        };
        let result = JobResult {
            job_id: Some("tpot_result_x_1".into()),
            status: JobStatus::Finished,
            disposition: Some("finished".into()),
            runtime_seconds: Some(2.5),
            map_data_deleted: Some(false),
            results: Some(JobResultData {
                cumulative_stats: stats.clone(),
                regional_stats: BTreeMap::from([("North".to_string(), stats)]),
                resource_data: Some(ResourceData { resource_type: "fixlat".into(), units: "kWh/m2/day".into() }),
            }),
            errors: vec![],
        };
        let body = json!({"inputs": {"jobId": "tpot_result_x_1"}, "outputs": result.outputs_value(), "errors": []});
        assert!(body["outputs"]["results"]["regional_stats"]["North"].get("regional_min").is_some());
        assert_eq!(JobResult::from_value(&body).unwrap(), result);
    }

    #[test]
    fn classes_table_has_one_row_per_class() {
        let classes = [
            ClassStats { nameplate_capacity_mw: 1.0, ac_generation_mwh: 2.0, land_area_sq_km: 3.0, min: 0.0, max: 4.0 },
            ClassStats { nameplate_capacity_mw: 4.0, ac_generation_mwh: 5.0, land_area_sq_km: 6.0, min: 4.0, max: 4.5 },
        ];
        let batch = classes_to_record_batch(&classes).unwrap();
        assert_eq!((batch.num_rows(), batch.num_columns()), (2, 5));
        assert_eq!(batch.schema().field(2).metadata()["unit"], "MW");
    }

    #[test]
    fn configuration_table_has_one_row_per_field() {
        let batch = configuration_to_record_batch(&sample_config()).unwrap();
        assert_eq!(batch.num_rows(), 9);
        let names = batch.column(8).as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(names.value(8), "limitByWindSpeed");
    }

    #[test]
    fn numbers_are_written_like_the_service() {
        assert_eq!(format_number(3.0), "3");
        assert_eq!(format_number(0.5), "0.5");
        assert_eq!(number_value(36.0), json!(36));
        assert_eq!(number_value(26.98), json!(26.98));
        assert_eq!(number_of(&json!(" 12 ")), Some(12.0));
        assert_eq!(number_of(&json!("NaN")), None);
    }
}

//! Validation of a job's input fields against the configuration (one definition shared by the
//! client and the embedded service) and the canonical POST body.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::*;

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

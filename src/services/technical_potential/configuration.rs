//! The typed configuration record (regions, resources, input fields) parsed from the service's
//! JSON and written back for the embedded service.

use serde_json::{Map, Value};

use super::*;

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
        if root.get("outputs").is_none_or(Value::is_null) {
            return Err(shape("outputs", "missing: a configuration lists its regions there"));
        }
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
    pub(super) fn offered_choices(&self) -> Option<Vec<&str>> {
        self.field_values.as_ref()?.as_array().map(|values| values.iter().filter_map(Value::as_str).collect())
    }

    /// The offered corridor distances (`fieldValues.distance`), else the spec's list.
    pub(super) fn offered_distances(&self) -> Vec<f64> {
        self.field_values
            .as_ref()
            .and_then(|values| values.get("distance"))
            .and_then(Value::as_array)
            .map(|values| values.iter().filter_map(number_of).collect())
            .unwrap_or_else(|| CORRIDOR_DISTANCES.to_vec())
    }
}

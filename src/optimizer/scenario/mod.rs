//! The scenario facts every optimizer path shares: the service's schema (sections, fields,
//! defaults, ranges), the validation of a scenario by the service's rules, Python's text of
//! values that those rules print, and the service's notion of a given value.

pub mod schema;
pub mod text;
pub mod validation;

use serde_json::{json, Map, Value};

use schema::{schema, with_defaults};

/// The service's notion of "provided": present and not null, "" or an empty list or mapping.
pub fn given(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::String(text)) => !text.is_empty(),
        Some(Value::Array(items)) => !items.is_empty(),
        Some(Value::Object(fields)) => !fields.is_empty(),
        Some(_) => true,
    }
}

/// Sections the service creates with their defaults when a scenario leaves them out; the
/// utility only for grid-connected runs (so the results' `inputs` always show them).
const ALWAYS_CREATED: [&str; 2] = ["Settings", "Financial"];
const CREATED_ON_GRID: &str = "ElectricUtility";

/// A valid scenario with the created sections added and every section's defaults filled in.
pub fn with_service_defaults(mut document: Map<String, Value>) -> Map<String, Value> {
    let off_grid = document.get("Settings").and_then(|settings| settings.get("off_grid_flag")) == Some(&Value::Bool(true));
    let created = ALWAYS_CREATED.iter().chain((!off_grid).then_some(&CREATED_ON_GRID));
    for name in created {
        if !document.contains_key(*name) {
            document.insert((*name).to_owned(), json!({}));
        }
    }
    let table = schema();
    document
        .into_iter()
        .map(|(key, value)| {
            let filled = match (table.section(&key).is_some(), value) {
                (true, Value::Object(section)) => Value::Object(with_defaults(&key, &section)),
                (true, Value::Array(items)) => Value::Array(
                    items.into_iter().map(|item| match item {
                        Value::Object(section) => Value::Object(with_defaults(&key, &section)),
                        other => other,
                    }).collect(),
                ),
                (_, other) => other,
            };
            (key, filled)
        })
        .collect()
}

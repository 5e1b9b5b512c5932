//! The scenario facts every optimizer path shares: the service's schema (sections, fields,
//! defaults, ranges), the validation of a scenario by the service's rules (`check`, with the
//! defaults the service fills in), Python's text of values that those rules print, the
//! service's notion of a given value, and the few readings every path makes of a scenario
//! (its PV arrays, its time limit).

pub mod schema;
pub mod text;
pub mod validation;

use serde_json::{json, Map, Value};

use schema::{schema, with_defaults};
use validation::{input_errors, validate_scenario, NoHost, Raised, Value as Checked};

/// The longest `Settings.timeout_seconds` the service accepts.
pub const MAX_TIMEOUT_SECONDS: f64 = 1200.0;

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
    let off_grid = document.get("Settings").and_then(|settings| settings.get("off_grid_flag")).and_then(text::service_bool) == Some(true);
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

/// The PV arrays of a scenario: one object or a list.
pub fn pv_arrays(scenario: &Value) -> Vec<&Value> {
    match scenario.get("PV") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(pv) if pv.is_object() => vec![pv],
        _ => Vec::new(),
    }
}

/// `Settings.timeout_seconds` of a scenario (absent: the schema's default), clamped to the
/// service's 1..=1200 s.
pub fn timeout_seconds(scenario: &Value) -> f64 {
    let field = "timeout_seconds";
    scenario
        .get("Settings")
        .and_then(|s| s.get(field))
        .or_else(|| schema::default("Settings", field))
        .and_then(Value::as_f64)
        .unwrap_or(MAX_TIMEOUT_SECONDS)
        .clamp(1.0, MAX_TIMEOUT_SECONDS)
}

/// What validation says of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedScenario {
    /// Every problem as `path: message` (empty when valid).
    pub problems: Vec<String>,
    /// The service's `input_errors` shape (`{}` when there is nothing to report).
    pub input_errors: Value,
    /// The scenario with the created sections and the schema's defaults filled in (as given
    /// when it has problems).
    pub resolved: Value,
}

/// Validates a scenario by the service's rules and, when valid, fills in the service's
/// defaults. Err when the validator itself cannot run (a value it cannot show).
pub fn check(scenario: &Value) -> Result<CheckedScenario, String> {
    let value = Checked::from_json(scenario);
    let problems = validate_scenario(&value, &NoHost).map_err(|raised| {
        let error = match raised {
            Raised::ValueError(message) => format!("ValueError: {message}"),
            Raised::OverflowError(message) => format!("OverflowError: {message}"),
            Raised::Host => "the validator could not show a value".to_owned(),
        };
        format!("the scenario could not be validated: {error}")
    })?;
    if !problems.is_empty() {
        return Ok(CheckedScenario {
            problems: problems.iter().map(|p| format!("{}: {}", p.path, p.message)).collect(),
            input_errors: input_errors(&problems),
            resolved: scenario.clone(),
        });
    }
    let resolved = Value::Object(with_service_defaults(scenario.as_object().cloned().unwrap_or_default()));
    Ok(CheckedScenario { problems: Vec::new(), input_errors: json!({}), resolved })
}

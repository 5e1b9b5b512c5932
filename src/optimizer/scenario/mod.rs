//! The scenario facts every optimizer path shares: the service's schema (sections, fields,
//! defaults, ranges), the validation of a scenario by the service's rules, Python's text of
//! values that those rules print, and the service's notion of a given value.

pub mod schema;
pub mod text;
pub mod validation;

use serde_json::Value;

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

//! Lenient readers and writers of the service's JSON values (numbers and booleans written as
//! strings, ids as numbers or text).

use serde_json::{Map, Value};

use crate::services::raw::exact_i64;

use super::*;

pub(super) fn parse_json(body: &[u8]) -> Result<Value, ParseError> {
    serde_json::from_slice(body).map_err(|e| ParseError::Json(e.to_string()))
}

pub(super) fn shape(path: &str, problem: impl Into<String>) -> ParseError {
    ParseError::Shape { path: path.to_string(), problem: problem.into() }
}

pub(super) fn object<'a>(value: &'a Value, path: &str) -> Result<&'a Map<String, Value>, ParseError> {
    value.as_object().ok_or_else(|| shape(path, format!("expected an object, got {}", kind_of(value))))
}

/// An array; absent or null reads as empty.
pub(super) fn list<'a>(value: Option<&'a Value>, path: &str) -> Result<&'a [Value], ParseError> {
    match value {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(shape(path, format!("expected an array, got {}", kind_of(other)))),
    }
}

pub(super) fn required_number(object: &Map<String, Value>, key: &str, path: &str) -> Result<f64, ParseError> {
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
pub(super) fn number_of(value: &Value) -> Option<f64> {
    let number = match value {
        Value::Number(number) => number.as_f64(),
        Value::String(text) => text.trim().parse::<f64>().ok(),
        _ => None,
    };
    number.filter(|n| n.is_finite())
}

/// An integer, given as a JSON integer, an integral number or an integer string.
pub(super) fn integer_of(value: &Value) -> Option<i64> {
    match value {
        Value::Number(number) => number
            .as_i64()
            .or_else(|| number.as_f64().and_then(exact_i64)),
        Value::String(text) => text.trim().parse::<i64>().ok(),
        _ => None,
    }
}

/// A boolean, given as JSON true/false or the strings "true"/"false" (any case).
pub(super) fn bool_of(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(flag) => Some(*flag),
        Value::String(text) if text.trim().eq_ignore_ascii_case("true") => Some(true),
        Value::String(text) if text.trim().eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// A string, or a number written as text.
pub(super) fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

pub(super) fn message_of(value: &Value) -> String {
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
pub(super) fn format_number(number: f64) -> String {
    if let Some(whole) = exact_i64(number) {
        whole.to_string()
    } else {
        number.to_string()
    }
}

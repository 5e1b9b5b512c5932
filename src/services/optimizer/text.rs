//! How the optimizer client's messages show the values they quote: as Python writes them
//! (`'optimal'`, `{'REopt': 'infeasible'}`, `None`), since the messages are read by Python users
//! and have always been written that way.

use serde_json::Value;

/// `value` as Python's `repr` of the same JSON value.
pub fn python_repr(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(number) => match number.as_f64() {
            Some(float) if number.is_f64() => float_repr(float),
            _ => number.to_string(),
        },
        Value::String(text) => string_repr(text),
        Value::Array(items) => format!("[{}]", items.iter().map(python_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let pairs: Vec<String> = map.iter().map(|(key, item)| format!("{}: {}", string_repr(key), python_repr(item))).collect();
            format!("{{{}}}", pairs.join(", "))
        }
    }
}

/// `value` as Python's `str`: a string as it is, anything else as its repr.
pub fn python_str(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => python_repr(other),
    }
}

/// Python's truth of a JSON value: null, false, 0, "" and empty containers are false.
pub fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

/// A number of seconds as Python prints a float (`1200.0`, `0.2`).
pub fn float_repr(value: f64) -> String {
    format!("{value:?}")
}

/// Python's repr of a string: single quotes unless the text holds one and no double quote.
pub fn string_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') { '"' } else { '\'' };
    let mut shown = String::with_capacity(text.len() + 2);
    shown.push(quote);
    for c in text.chars() {
        match c {
            '\\' => shown.push_str("\\\\"),
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            c if c == quote => {
                shown.push('\\');
                shown.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => shown.push_str(&format!("\\x{:02x}", c as u32)),
            c => shown.push(c),
        }
    }
    shown.push(quote);
    shown
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_read_as_python_writes_them() {
        assert_eq!(python_repr(&json!({"REopt": "infeasible", "n": [1, 2.5, true, null]})), "{'REopt': 'infeasible', 'n': [1, 2.5, True, None]}");
        assert_eq!(python_repr(&json!(1200.0)), "1200.0");
        assert_eq!(string_repr("it's"), "\"it's\"");
        assert_eq!(string_repr("a'\"b\n"), "'a\\'\"b\\n'");
        assert_eq!(python_str(&json!("exceeded")), "exceeded");
        assert!(!is_truthy(&json!({})) && !is_truthy(&json!("")) && is_truthy(&json!({"a": 1})));
    }
}

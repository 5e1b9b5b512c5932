//! How the optimizer's messages show the values they quote: as Python writes them (`'optimal'`,
//! `{'REopt': 'infeasible'}`, `None`, `1e+16`, `format(x, "g")`), since the messages are read by
//! Python users and have always been written that way. The one home of these texts: the job
//! client's answers and the scenario validation both read them.

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
        Value::String(text) => str_repr(text),
        Value::Array(items) => format!("[{}]", items.iter().map(python_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let pairs: Vec<String> = map.iter().map(|(key, item)| format!("{}: {}", str_repr(key), python_repr(item))).collect();
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

/// The texts the service's boolean inputs (Django's `BooleanField`) read as true and as false.
pub const TRUE_TEXTS: [&str; 3] = ["t", "True", "1"];
pub const FALSE_TEXTS: [&str; 3] = ["f", "False", "0"];

/// A boolean input as the service reads it (Django's `BooleanField.to_python`): true and false,
/// the numbers 1 and 0 (`1.0` and `0.0` too, equal to them as Python compares), and
/// `TRUE_TEXTS` / `FALSE_TEXTS`; None for anything else (which the service refuses).
pub fn service_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(flag) => Some(*flag),
        Value::Number(number) => match number.as_f64() {
            Some(1.0) => Some(true),
            Some(0.0) => Some(false),
            _ => None,
        },
        Value::String(text) if TRUE_TEXTS.contains(&text.as_str()) => Some(true),
        Value::String(text) if FALSE_TEXTS.contains(&text.as_str()) => Some(false),
        _ => None,
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

/// `repr(x)` of a float: the shortest digits that read back, fixed notation for exponents
/// from -4 to 15, else `1e+16` style.
pub fn float_repr(x: f64) -> String {
    if let Some(shown) = without_digits(x, "0.0") {
        return shown;
    }
    let (negative, digits, exponent) = decimal_digits(&format!("{x:e}"));
    let body = if (-4..16).contains(&exponent) { fixed(&digits, exponent, true) } else { scientific(&digits, exponent) };
    if negative {
        format!("-{body}")
    } else {
        body
    }
}

/// What Python shows for a float that has no digits to show: `nan`, `inf`, `-inf`, and zero
/// (`zero`, with its sign).
fn without_digits(x: f64, zero: &str) -> Option<String> {
    if x.is_nan() {
        Some("nan".into())
    } else if x.is_infinite() {
        Some(if x > 0.0 { "inf" } else { "-inf" }.into())
    } else if x == 0.0 {
        Some(if x.is_sign_negative() { format!("-{zero}") } else { zero.to_owned() })
    } else {
        None
    }
}

/// `format(x, "g")`: six significant digits, trailing zeros dropped, scientific notation
/// below 1e-4 and from 1e6.
pub fn format_g(x: f64) -> String {
    if let Some(shown) = without_digits(x, "0") {
        return shown;
    }
    let (negative, digits, exponent) = decimal_digits(&format!("{x:.5e}"));
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let body = if (-4..6).contains(&exponent) { fixed(digits, exponent, false) } else { scientific(digits, exponent) };
    if negative {
        format!("-{body}")
    } else {
        body
    }
}

/// Sign, significant digits and decimal exponent of Rust's `{:e}` text (`-1.25e-7`).
fn decimal_digits(text: &str) -> (bool, String, i32) {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    (negative, mantissa.replace('.', ""), exponent.parse().unwrap_or(0))
}

/// Digits `d1d2d3…` times 10^(exponent) in fixed notation; `point_zero` keeps `.0` on whole numbers.
fn fixed(digits: &str, exponent: i32, point_zero: bool) -> String {
    let count = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if exponent < 0 {
        let zeros = usize::try_from(-exponent - 1).unwrap_or_default();
        return format!("0.{}{digits}", "0".repeat(zeros));
    }
    if count <= exponent + 1 {
        let zeros = usize::try_from(exponent + 1 - count).unwrap_or_default();
        return format!("{digits}{}{}", "0".repeat(zeros), if point_zero { ".0" } else { "" });
    }
    let split = usize::try_from(exponent + 1).unwrap_or_default();
    let (whole, fraction) = digits.split_at(split.min(digits.len()));
    format!("{whole}.{fraction}")
}

/// Digits in scientific notation with Python's exponent (`e+16`, `e-05`).
fn scientific(digits: &str, exponent: i32) -> String {
    let (first, rest) = digits.split_at(1.min(digits.len()));
    let mantissa = if rest.is_empty() { first.to_owned() } else { format!("{first}.{rest}") };
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
}

/// `repr(text)`: single quotes unless the text holds one and no double quote, with Python's
/// escapes (`\n`, `\x07`, `\u200b`).
pub fn str_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') { '"' } else { '\'' };
    let mut shown = String::with_capacity(text.len() + 2);
    shown.push(quote);
    for c in text.chars() {
        match c {
            '\\' => shown.push_str("\\\\"),
            '\t' => shown.push_str("\\t"),
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            c if c == quote => {
                shown.push('\\');
                shown.push(c);
            }
            c if printable(c) => shown.push(c),
            c if u32::from(c) < 0x100 => shown.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if u32::from(c) < 0x10000 => shown.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => shown.push_str(&format!("\\U{:08x}", u32::from(c))),
        }
    }
    shown.push(quote);
    shown
}

/// Python's `str.isprintable` for one character: not a control, format, separator (but the
/// space), private-use or unassigned character (the ranges these are common in).
fn printable(c: char) -> bool {
    let code = u32::from(c);
    if c.is_ascii() {
        return (0x20..0x7f).contains(&code);
    }
    !matches!(code,
        0x80..=0xa0 | 0xad | 0x034f | 0x061c | 0x115f..=0x1160 | 0x1680 | 0x180e | 0x2000..=0x200f
        | 0x2028..=0x202f | 0x205f..=0x206f | 0x3000 | 0x3164 | 0xd800..=0xf8ff | 0xfeff
        | 0xfff0..=0xfffb | 0xfffe..=0xffff | 0xe0000..=0xe0fff | 0xf0000..=0x10ffff)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn floats_show_as_python_repr_does() {
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1.5e-7, "1.5e-07"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (-0.0, "-0.0"),
            (1e300, "1e+300"),
        ];
        for (value, shown) in cases {
            assert_eq!(float_repr(value), shown, "{value}");
        }
    }

    #[test]
    fn g_format_keeps_six_significant_digits() {
        let cases = [(1.0, "1"), (0.999, "0.999"), (1.0000001, "1"), (1e16, "1e+16"), (123456789.0, "1.23457e+08"), (0.00001234, "1.234e-05"), (100000.0, "100000"), (1e6, "1e+06"), (-0.5, "-0.5"), (f64::NAN, "nan"), (0.0, "0"), (-0.0, "-0"), (f64::NEG_INFINITY, "-inf")];
        for (value, shown) in cases {
            assert_eq!(format_g(value), shown, "{value}");
        }
    }

    #[test]
    fn strings_show_as_python_repr_does() {
        assert_eq!(str_repr("abc"), "'abc'");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(str_repr("tab\tnew\nline\\"), "'tab\\tnew\\nline\\\\'");
        assert_eq!(str_repr("\u{7}é\u{200b}"), "'\\x07é\\u200b'");
    }

    #[test]
    fn values_read_as_python_writes_them() {
        assert_eq!(python_repr(&json!({"REopt": "infeasible", "n": [1, 2.5, true, null]})), "{'REopt': 'infeasible', 'n': [1, 2.5, True, None]}");
        assert_eq!(python_repr(&json!(1200.0)), "1200.0");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a'\"b\n"), "'a\\'\"b\\n'");
        assert_eq!(python_str(&json!("exceeded")), "exceeded");
        assert!(!is_truthy(&json!({})) && !is_truthy(&json!("")) && is_truthy(&json!({"a": 1})));
        let read: Vec<Option<bool>> = [json!(true), json!(1), json!(0.0), json!("t"), json!("False"), json!("0"), json!(2), json!("yes"), json!(0.5), json!(null)].iter().map(service_bool).collect();
        assert_eq!(read, [Some(true), Some(true), Some(false), Some(true), Some(false), Some(false), None, None, None, None]);
    }
}

//! Parameter values as callers give them, before validation: Python passes numbers, booleans
//! and strings, HTTP passes strings. Every service validates from these, so a wrong type and a
//! wrong range are reported the same way on the client and in the embedded service.

/// A parameter value as the caller gave it: Python passes numbers, booleans and strings, HTTP
/// passes strings. Anything that cannot be read as the parameter's type is a validation problem.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum RawValue {
    #[default]
    Missing,
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl RawValue {
    /// How the value is quoted in a problem message: numbers as written, other text quoted; a
    /// text longer than [`SHOWN_CHARS`] (a 400-digit int, a pasted document) by its start and
    /// length.
    pub fn describe(&self) -> String {
        match self {
            RawValue::Missing => "nothing".to_string(),
            RawValue::Text(text) if text.chars().count() > SHOWN_CHARS => {
                let start: String = text.chars().take(SHOWN_CHARS).collect();
                format!("{start:?}… ({} characters)", text.chars().count())
            }
            RawValue::Text(text) if text.trim().parse::<f64>().is_ok() => text.clone(),
            RawValue::Text(text) => format!("{text:?}"),
            RawValue::Int(number) => number.to_string(),
            RawValue::Float(number) if number.abs() >= 1e16 => format!("{number:e}"),
            RawValue::Float(number) => number.to_string(),
            RawValue::Bool(flag) => flag.to_string(),
        }
    }

    pub fn as_finite_f64(&self) -> Option<f64> {
        let number = match self {
            RawValue::Text(text) => text.trim().parse::<f64>().ok()?,
            RawValue::Int(number) => *number as f64,
            RawValue::Float(number) => *number,
            RawValue::Missing | RawValue::Bool(_) => return None,
        };
        number.is_finite().then_some(number)
    }

    pub fn as_whole(&self) -> Option<i64> {
        match self {
            RawValue::Text(text) => text.trim().parse::<i64>().ok(),
            RawValue::Int(number) => Some(*number),
            RawValue::Float(number) => exact_i64(*number),
            RawValue::Missing | RawValue::Bool(_) => None,
        }
    }
}

/// The characters of a text value a message quotes.
pub const SHOWN_CHARS: usize = 60;

/// A float that holds a whole number below 10^15 (exact in both types) as an integer.
#[allow(clippy::cast_possible_truncation, reason = "whole and below 10^15, so exact")]
pub fn exact_i64(number: f64) -> Option<i64> {
    (number.fract() == 0.0 && number.abs() < 1e15).then_some(number as i64)
}

/// A float rounded to the nearest integer, saturating at the ends of i64 (NaN is 0): a number a
/// server sends may be anything.
#[allow(clippy::cast_possible_truncation, reason = "`as` saturates, which is the rule here")]
pub fn rounded_i64(number: f64) -> i64 {
    number.round() as i64
}

impl From<&str> for RawValue {
    fn from(text: &str) -> Self {
        RawValue::Text(text.to_string())
    }
}

impl From<String> for RawValue {
    fn from(text: String) -> Self {
        RawValue::Text(text)
    }
}

impl From<i64> for RawValue {
    fn from(number: i64) -> Self {
        RawValue::Int(number)
    }
}

impl From<f64> for RawValue {
    fn from(number: f64) -> Self {
        RawValue::Float(number)
    }
}

impl From<bool> for RawValue {
    fn from(flag: bool) -> Self {
        RawValue::Bool(flag)
    }
}

impl RawValue {
    /// Text as given (for choices such as `timeframe`); numbers and booleans are not text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            RawValue::Text(text) => Some(text.as_str()),
            _ => None,
        }
    }

    pub fn is_missing(&self) -> bool {
        *self == RawValue::Missing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_described_by_their_start_and_length() {
        let huge = format!("1{}", "0".repeat(400));
        assert_eq!(RawValue::Text(huge).describe(), format!("\"1{}\"… (401 characters)", "0".repeat(SHOWN_CHARS - 1)));
        assert_eq!(RawValue::Text("12.5".into()).describe(), "12.5");
        assert_eq!(RawValue::Text("abc".into()).describe(), "\"abc\"");
    }
}

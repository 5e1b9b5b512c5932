//! Text helpers for the weather readers: decoding, CSV field splitting and SSC-style number parsing.

use std::borrow::Cow;

/// Decode file bytes: UTF-8 (a byte-order mark is dropped), or Latin-1 when not valid UTF-8.
pub(super) fn decode(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// Split one CSV line into trimmed fields. Double quotes group a field (commas inside stay) and
/// are removed; a doubled quote inside quotes is a literal quote. Unquoted fields are borrowed.
pub(super) fn split_csv(line: &str) -> Vec<Cow<'_, str>> {
    if !line.as_bytes().contains(&b'"') {
        let mut fields = Vec::new();
        let mut start = 0;
        for (position, &byte) in line.as_bytes().iter().enumerate() {
            if byte == b',' {
                fields.push(Cow::Borrowed(line[start..position].trim_ascii()));
                start = position + 1;
            }
        }
        fields.push(Cow::Borrowed(line[start..].trim_ascii()));
        return fields;
    }
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut in_quotes = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if in_quotes && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => {
                fields.push(Cow::Owned(std::mem::take(&mut field).trim().to_string()))
            }
            _ => field.push(c),
        }
    }
    fields.push(Cow::Owned(field.trim().to_string()));
    fields
}

/// A parsed weather value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Value {
    /// A number, already rounded through `f32` like SSC's file columns.
    Number(f64),
    /// Empty cell or a missing-value marker (NaN, NA, N/A).
    Missing,
    /// Text that is not a number.
    Invalid,
}

/// Parse a weather cell the way SSC stores it: as `f32`, widened to `f64`.
pub(super) fn parse_value(cell: &str) -> Value {
    let cell = cell.trim();
    if cell.is_empty()
        || ["nan", "na", "n/a"]
            .iter()
            .any(|marker| cell.eq_ignore_ascii_case(marker))
    {
        return Value::Missing;
    }
    if !cell.bytes().any(|b| b.is_ascii_digit()) {
        return Value::Invalid;
    }
    match cell.parse::<f32>() {
        Ok(v) => Value::Number(f64::from(v)),
        Err(_) => Value::Invalid,
    }
}

/// Parse an integer cell (an integral value written as a float, such as "7.0", is accepted).
pub(super) fn parse_integer(cell: &str) -> Option<i64> {
    let cell = cell.trim();
    cell.parse::<i64>().ok().or_else(|| {
        let value = cell.parse::<f64>().ok()?;
        (value.fract() == 0.0 && value.abs() < 1e9).then_some(value as i64)
    })
}

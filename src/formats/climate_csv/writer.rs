//! The climate CSV writer (the embedded service): the spec's layout with shortest round-trip
//! numbers.

use super::*;

/// Writes the table in the spec's layout: metadata names, metadata values, column names, rows.
pub fn write_climate_csv(table: &ClimateTable) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024 + table.len() * (20 + 8 * table.columns.len()));
    write_header_rows(table, &mut out);
    let dates = table.year.iter().zip(&table.month).zip(&table.day);
    let times = table.hour.iter().zip(&table.minute);
    for (row, (((&year, &month), &day), (&hour, &minute))) in dates.zip(times).enumerate() {
        for (index, value) in [year, month, day, hour, minute].into_iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            push_int(&mut out, value);
        }
        for column in &table.columns {
            out.push(b',');
            push_f64(&mut out, column.values.get(row).copied().unwrap_or(f64::NAN));
        }
        out.push(b'\n');
    }
    out
}

fn write_header_rows(table: &ClimateTable, out: &mut Vec<u8>) {
    let mut writer =
        csv::WriterBuilder::new().flexible(true).terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    let column_names: Vec<&str> = ["Year", "Month", "Day", "Hour", "Minute"]
        .into_iter()
        .chain(table.columns.iter().map(|c| c.long_name.as_str()))
        .collect();
    let rows = [
        METADATA_NAMES.iter().map(|s| s.to_string()).collect::<Vec<String>>(),
        table.metadata.values().to_vec(),
        column_names.iter().map(|s| s.to_string()).collect(),
    ];
    for row in rows {
        // Writing records into a Vec cannot fail.
        let _ = writer.write_record(&row);
    }
    if let Ok(bytes) = writer.into_inner() {
        out.extend_from_slice(&bytes);
    }
}

fn push_int(out: &mut Vec<u8>, value: i32) {
    if value < 0 {
        out.push(b'-');
    }
    push_digits(out, u64::from(value.unsigned_abs()), 0);
}

/// Writes `n`, with a decimal point `decimals` digits from the right (zero-padded: 5 with 2
/// decimals is `0.05`).
#[allow(clippy::indexing_slicing, clippy::cast_possible_truncation, reason = "24 places hold the 20 digits of a u64 and the point of at most 4 decimals; n % 10 < 10")]
fn push_digits(out: &mut Vec<u8>, mut n: u64, decimals: u32) {
    let mut digits = [0u8; 24];
    let mut at = digits.len();
    let mut written = 0;
    loop {
        if written == decimals && decimals > 0 {
            at -= 1;
            digits[at] = b'.';
        }
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        written += 1;
        if n == 0 && written > decimals {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Writes the shortest text that parses back to `value`, exactly as `Display` does. Values
/// with at most four decimals (all the service writes) take an integer fast path: the fewest
/// decimals d for which round(value·10^d) / 10^d == value give a decimal that parses back to
/// `value`; below 10^15 at that scale no shorter decimal can, so the text is `Display`'s.
#[allow(clippy::indexing_slicing, clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "decimals <= 4 indexes the 16 powers; |scaled| < 1e15 fits a u64")]
pub(super) fn push_f64(out: &mut Vec<u8>, value: f64) {
    for decimals in 0..=4u32 {
        let scale = POWERS_OF_TEN[decimals as usize];
        let scaled = (value * scale).round();
        if scaled.abs() < 1e15 && scaled / scale == value {
            if value.is_sign_negative() {
                out.push(b'-');
            }
            push_digits(out, scaled.abs() as u64, decimals);
            return;
        }
    }
    out.extend_from_slice(value.to_string().as_bytes());
}

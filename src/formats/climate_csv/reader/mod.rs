//! The fast climate CSV parser (the client): header rows, the column plan, plain-decimal rows on
//! a fast path, any other row by a general scanner, large shared bodies in parallel on the
//! parser threads, and error bodies recognised.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::ArrowError;
use serde_json::Value;

use crate::calendar::days_in_month;
use crate::limits::{MAX_CSV_COLUMNS, MAX_CSV_ROWS};
use crate::formats::error_body::parse_error_body;

use super::*;

mod parser_threads;
mod plain_rows;
mod scanner;
use plain_rows::*;
use scanner::*;
use parser_threads::{Helpers, PendingChunk};

/// Role of one column of row 3.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Slot {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Value(usize),
    Skip,
}

/// Blank lines tolerated on top of [`MAX_CSV_ROWS`] before the rows are counted exactly.
const BLANK_LINE_ALLOWANCE: usize = 1024;

/// Shared bodies smaller than this are parsed on one thread.
pub(super) const PARALLEL_MIN_BYTES: usize = 128 * 1024;

/// Parses a climate CSV body on this thread (the zip reader parses its entries in parallel). An
/// error answer in place of CSV gives `ErrorBody`.
pub fn parse_climate_csv(body: &[u8]) -> Result<ClimateTable, ClimateCsvError> {
    parse(BodySource::Borrowed(body)).map(|parsed| parsed.table)
}

/// A body parser threads can read without copying it: a Python `bytes`, a response's bytes.
pub type SharedBody = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// [`parse_climate_csv`] of a shared body, with the rows' instants: a large body is cut at line
/// ends into chunks parsed in parallel (see `parser_threads`), which read it in place.
pub fn read_climate_csv(body: SharedBody) -> Result<ParsedClimateCsv, ClimateCsvError> {
    parse(BodySource::Shared(body))
}

/// A parsed body: the table and the UTC instants of its rows, computed while parsing.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedClimateCsv {
    pub table: ClimateTable,
    pub(super) timestamps_us: Vec<i64>,
}

impl ParsedClimateCsv {
    /// [`ClimateTable::into_record_batch`] with the instants the parser computed.
    pub fn into_record_batch(self) -> Result<RecordBatch, ArrowError> {
        self.table.record_batch(self.timestamps_us)
    }
}

/// The body being parsed: borrowed, or shared with the parser threads.
enum BodySource<'a> {
    Borrowed(&'a [u8]),
    Shared(SharedBody),
}

impl BodySource<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            BodySource::Borrowed(bytes) => bytes,
            BodySource::Shared(body) => (**body).as_ref(),
        }
    }
}

/// [`read_climate_csv`] of either kind of body (only a shared one gets parser threads).
fn parse(source: BodySource<'_>) -> Result<ParsedClimateCsv, ClimateCsvError> {
    let body = source.bytes();
    let bytes = body.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(body);
    let bom = body.len() - bytes.len();
    if let Some(error) = detect_error_body(bytes) {
        return Err(error);
    }
    // Claimed before the header is read, so their start-up overlaps it (see `parser_threads`).
    let helpers = match source {
        BodySource::Shared(_) if bytes.len() >= PARALLEL_MIN_BYTES => Helpers::claim_idle(),
        _ => Helpers::default(),
    };
    let (header, data_start) = read_header_rows(bytes)?;
    let [meta_names, meta_values, column_names] = header;
    let metadata = ClimateMetadata::from_pairs(&meta_names, &meta_values);
    let (slots, columns) = plan_columns(&column_names)?;
    let lines = count_newlines(bytes.get(data_start..).unwrap_or_default());
    if lines > MAX_CSV_ROWS + BLANK_LINE_ALLOWANCE {
        return Err(ClimateCsvError::Malformed {
            line: FIRST_DATA_LINE,
            message: format!("more than {MAX_CSV_ROWS} data rows (the limit: a leap year of one-minute data)"),
        });
    }
    for (name, offset) in [("Time Zone", metadata.time_zone), ("Local Time Zone", metadata.local_time_zone)] {
        if let Some(hours) = offset.filter(|hours| !(-24.0..=24.0).contains(hours)) {
            return Err(ClimateCsvError::Malformed { line: 2, message: format!("{name} {hours} is not an offset from UTC in hours") });
        }
    }
    let offset_s = offset_seconds(metadata.time_zone.unwrap_or(0.0));
    let layout = Arc::new(RowLayout::new(slots, column_names, columns.len(), offset_s));
    let rows = parse_chunks(&source, bom + data_start, &layout, helpers)?;
    if rows.len() > MAX_CSV_ROWS {
        return Err(ClimateCsvError::Malformed {
            line: FIRST_DATA_LINE,
            message: format!("more than {MAX_CSV_ROWS} data rows (the limit: a leap year of one-minute data)"),
        });
    }
    let [year, month, day, hour, minute] = rows.stamps;
    let table = ClimateTable {
        metadata,
        year,
        month,
        day,
        hour,
        minute,
        columns: columns
            .into_iter()
            .zip(rows.values)
            .map(|((name, long_name), values)| DataColumn { name, long_name, values })
            .collect(),
    };
    Ok(ParsedClimateCsv { table, timestamps_us: rows.instants })
}

/// Parses the data rows from `data_start`: cut into one chunk per claimed parser thread plus
/// one, the later chunks handed to those threads first, the first parsed on this thread, and
/// each thread's rows appended in order (by that thread, see `parser_threads`). The first
/// chunk's vectors get room for the later chunks' rows too, estimated from its bytes per line
/// with 1/16 slack (too little only costs a reallocation when appending). Lines are counted
/// by each chunk's parser; the later chunks number theirs from the first data line, moved
/// down by the lines before them.
#[allow(clippy::indexing_slicing, reason = "cut_rows gives at least one chunk, each a range of `bytes`")]
fn parse_chunks(
    source: &BodySource<'_>,
    data_start: usize,
    layout: &Arc<RowLayout>,
    mut helpers: Helpers,
) -> Result<Rows, ClimateCsvError> {
    let bytes = source.bytes();
    let chunks = cut_rows(bytes, data_start, helpers.count() + 1);
    let pending: Vec<PendingChunk> = match source {
        BodySource::Shared(body) => {
            chunks[1..].iter().map_while(|chunk| Some(helpers.take()?.parse(body, chunk.clone(), layout))).collect()
        }
        BodySource::Borrowed(_) => Vec::new(),
    };
    // A body with fewer lines than threads leaves some without a chunk.
    drop(helpers);
    let first = chunks[0].clone();
    let lines = count_newlines(&bytes[first.clone()]);
    let later_bytes = bytes.len() - first.end;
    let later_rows = (later_bytes * (lines + 1) / first.len().max(1)) * 17 / 16;
    let rows = Rows::with_capacity(lines + 1 + later_rows, layout.value_columns);
    let mut joined = parse_rows(&bytes[..first.end], first.start, FIRST_DATA_LINE, layout, rows);
    let mut lines_before = lines;
    for chunk in pending {
        joined = chunk.join(joined, lines_before).map(|(rows, lines)| {
            lines_before += lines;
            rows
        });
    }
    joined
}

/// What row 3 says about each field of a data row.
struct RowLayout {
    slots: Vec<Slot>,
    /// The stamps' offset from UTC, seconds.
    offset_s: i64,
    /// The column names of row 3 (for error messages).
    names: Vec<String>,
    value_columns: usize,
    /// The row starts with Year, Month, Day (see [`StampPrediction`]).
    date_first: bool,
    /// Hour and Minute follow them.
    time_follows_date: bool,
    /// Index of the first slot of the trailing run of value columns (the slots' length when
    /// the last slot is no value); value columns are numbered in slot order, so the run holds
    /// the last columns.
    value_run_start: usize,
}

impl RowLayout {
    fn new(slots: Vec<Slot>, names: Vec<String>, value_columns: usize, offset_s: i64) -> RowLayout {
        let date_first = slots.starts_with(&[Slot::Year, Slot::Month, Slot::Day]);
        let time_follows_date = slots.starts_with(&[Slot::Year, Slot::Month, Slot::Day, Slot::Hour, Slot::Minute]);
        let value_run_start = slots.iter().rposition(|slot| !matches!(slot, Slot::Value(_))).map_or(0, |last| last + 1);
        RowLayout { slots, offset_s, names, value_columns, date_first, time_follows_date, value_run_start }
    }
}

/// Line number of the first data row (after the two metadata rows and the column names).
const FIRST_DATA_LINE: usize = 4;

/// Cuts the data rows at line ends into at most `parts` byte ranges of about equal size (fewer
/// when the body has fewer lines).
#[allow(clippy::indexing_slicing, reason = "every cut point is at most the body's length")]
fn cut_rows(bytes: &[u8], data_start: usize, parts: usize) -> Vec<Range<usize>> {
    let size = bytes.len() - data_start;
    let mut chunks = Vec::with_capacity(parts);
    let mut start = data_start;
    for part in 1..=parts {
        let target = if part == parts { bytes.len() } else { (data_start + size * part / parts).max(start) };
        let end = match bytes[target..].iter().position(|&b| b == b'\n') {
            Some(offset) if part < parts => target + offset + 1,
            _ => bytes.len(),
        };
        chunks.push(start..end);
        start = end;
        if end == bytes.len() {
            break;
        }
    }
    chunks
}

/// Number of `\n` bytes, eight at a time: in x = word ^ 0x0A… a byte is zero exactly where the
/// word had a newline, and !(((x & 0x7F…) + 0x7F…) | x | 0x7F…) sets the high bit of exactly
/// those bytes. Shifted down, the bits add up per byte lane (no popcount: the baseline x86-64
/// target emulates it); a lane counts at most 255 words, then the lanes are summed.
pub(super) fn count_newlines(bytes: &[u8]) -> usize {
    const LOW_SEVEN: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const NEWLINES: u64 = 0x0A0A_0A0A_0A0A_0A0A;
    const BYTE_LANES: u64 = 0x00FF_00FF_00FF_00FF;
    bytes
        .chunks(8 * 255)
        .map(|block| {
            let words = block.chunks_exact(8);
            let tail = words.remainder().iter().filter(|&&b| b == b'\n').count();
            let lanes = words.fold(0u64, |lanes, word| {
                let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8])) ^ NEWLINES;
                let newline_high_bits = !(((x & LOW_SEVEN) + LOW_SEVEN) | x | LOW_SEVEN);
                lanes + (newline_high_bits >> 7)
            });
            let pairs = (lanes & BYTE_LANES) + ((lanes >> 8) & BYTE_LANES);
            tail + (pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize
        })
        .sum()
}

/// Parsed data rows of one chunk: the stamps, their UTC instants (µs) and the values.
struct Rows {
    stamps: [Vec<i32>; 5],
    instants: Vec<i64>,
    values: Vec<Vec<f64>>,
}

impl Rows {
    fn with_capacity(rows: usize, value_columns: usize) -> Rows {
        Rows {
            stamps: std::array::from_fn(|_| Vec::with_capacity(rows)),
            instants: Vec::with_capacity(rows),
            values: (0..value_columns).map(|_| Vec::with_capacity(rows)).collect(),
        }
    }

    fn len(&self) -> usize {
        self.stamps[0].len()
    }

    /// The stamp of a row whose date is day number `days`, and its instant.
    fn push_stamp(&mut self, stamp: [i32; STAMP_FIELDS], days: i64, offset_s: i64) {
        for (column, value) in self.stamps.iter_mut().zip(stamp) {
            column.push(value);
        }
        self.instants.push(instant_us(days, stamp[3], stamp[4], offset_s));
    }

    /// Drops values pushed for a row whose stamp was not pushed (a row left half-read).
    fn truncate_values(&mut self) {
        let rows = self.len();
        for column in &mut self.values {
            column.truncate(rows);
        }
    }

    /// Moves the rows of `other` after these, leaving `other` empty (with its capacity).
    fn append(&mut self, other: &mut Rows) {
        for (mine, theirs) in self.stamps.iter_mut().zip(other.stamps.iter_mut()) {
            mine.append(theirs);
        }
        self.instants.append(&mut other.instants);
        for (mine, theirs) in self.values.iter_mut().zip(other.values.iter_mut()) {
            mine.append(theirs);
        }
    }

    /// Empty again, keeping the vectors, with room for `rows` rows of `value_columns` values.
    fn reset(&mut self, rows: usize, value_columns: usize) {
        self.values.resize_with(value_columns, Vec::new);
        for column in &mut self.stamps {
            column.clear();
            column.reserve(rows);
        }
        self.instants.clear();
        self.instants.reserve(rows);
        for column in &mut self.values {
            column.clear();
            column.reserve(rows);
        }
    }
}

/// Parses the data lines from `start` to the end of `bytes` into `rows`, the first being line
/// `first_line`. Rows of plain numbers take [`plain_row`]; any other row (blank lines,
/// exponents, empty values, errors) is read again by the [`Scanner`], which holds every rule
/// and every error message.
fn parse_rows(
    bytes: &[u8],
    start: usize,
    first_line: usize,
    layout: &RowLayout,
    mut rows: Rows,
) -> Result<Rows, ClimateCsvError> {
    let mut scanner = Scanner { bytes, at: start, line: first_line };
    let mut stamps = StampPrediction::default();
    while scanner.at < bytes.len() {
        if let Some(next_row) = plain_row(bytes, scanner.at, layout, &mut stamps, &mut rows) {
            scanner.at = next_row;
            scanner.line += 1;
            continue;
        }
        rows.truncate_values();
        if !scanner.skip_blank_lines() {
            break;
        }
        scanner.row(layout, &mut rows)?;
    }
    Ok(rows)
}

/// An error body in place of CSV: JSON, XML/HTML, or the gateway's `Error Code,Error Message`.
fn detect_error_body(bytes: &[u8]) -> Option<ClimateCsvError> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    let head = bytes.get(start..)?;
    let looks_like_error = matches!(head.first(), Some(b'{' | b'[' | b'<'))
        || head.get(..10).is_some_and(|start| start.eq_ignore_ascii_case(b"error code"));
    if !looks_like_error {
        return None;
    }
    let status = serde_json::from_slice::<Value>(head)
        .ok()
        .and_then(|v| v.get("status").and_then(Value::as_u64))
        .and_then(|s| u16::try_from(s).ok());
    let parsed = parse_error_body(head);
    let messages =
        if parsed.messages.is_empty() { vec!["the body is not a climate CSV".to_string()] } else { parsed.messages };
    Some(ClimateCsvError::ErrorBody { status, code: parsed.code, messages })
}

/// Rows 1–3, fields trimmed, and the byte offset where the data rows begin. Read as the `csv`
/// crate reads records (quotes at a field's start, `""` inside quotes, blank lines skipped, `\n`,
/// `\r\n` or `\r` ending a record), by hand: building the crate's reader costs more than the
/// three rows (tested against the crate).
pub(super) fn read_header_rows(bytes: &[u8]) -> Result<([Vec<String>; 3], usize), ClimateCsvError> {
    let mut rows: [Vec<String>; 3] = Default::default();
    let mut at = 0;
    for (index, row) in rows.iter_mut().enumerate() {
        let line = index + 1;
        while matches!(bytes.get(at), Some(b'\n' | b'\r')) {
            at += 1;
        }
        if at == bytes.len() {
            return Err(ClimateCsvError::Malformed {
                line,
                message: "the body ends before the three header rows (metadata names, metadata values, column names)"
                    .into(),
            });
        }
        let (fields, next) = header_record(bytes, at).ok_or_else(|| ClimateCsvError::Malformed {
            line,
            message: format!("more than {MAX_CSV_COLUMNS} fields (the limit; a climate CSV has about 20)"),
        })?;
        *row = fields
            .into_iter()
            .enumerate()
            .map(|(field, text)| {
                String::from_utf8(text).map(|text| text.trim().to_string()).map_err(|_| ClimateCsvError::Malformed {
                    line,
                    message: format!("unreadable header row: invalid UTF-8 in field {}", field + 1),
                })
            })
            .collect::<Result<_, _>>()?;
        at = next;
    }
    Ok((rows, at))
}

/// The fields of the CSV record at `at` and the offset after its line end; `None` past
/// [`MAX_CSV_COLUMNS`] fields.
fn header_record(bytes: &[u8], mut at: usize) -> Option<(Vec<Vec<u8>>, usize)> {
    let mut fields = Vec::new();
    let mut field = Vec::new();
    let mut field_started = false;
    let mut quoted = false;
    while let Some(&byte) = bytes.get(at) {
        at += 1;
        match byte {
            b'"' if quoted && bytes.get(at) == Some(&b'"') => {
                field.push(b'"');
                at += 1;
            }
            b'"' if quoted => quoted = false,
            _ if quoted => field.push(byte),
            b'"' if !field_started => {
                quoted = true;
                field_started = true;
            }
            b',' => {
                if fields.len() >= MAX_CSV_COLUMNS {
                    return None;
                }
                fields.push(std::mem::take(&mut field));
                field_started = false;
            }
            b'\n' | b'\r' => {
                if byte == b'\r' && bytes.get(at) == Some(&b'\n') {
                    at += 1;
                }
                break;
            }
            _ => {
                field.push(byte);
                field_started = true;
            }
        }
    }
    fields.push(field);
    Some((fields, at))
}

/// Slots for row 3 and the (short, long) names of the value columns.
#[allow(clippy::type_complexity)]
fn plan_columns(names: &[String]) -> Result<(Vec<Slot>, Vec<(String, String)>), ClimateCsvError> {
    let mut slots = Vec::with_capacity(names.len());
    let mut columns: Vec<(String, String)> = Vec::new();
    let mut taken: HashSet<String> = HashSet::new();
    for name in names {
        let slot = match normalized_key(name).as_str() {
            "year" => Slot::Year,
            "month" => Slot::Month,
            "day" => Slot::Day,
            "hour" => Slot::Hour,
            "minute" => Slot::Minute,
            "" => Slot::Skip,
            _ => {
                let mut short = short_column_name(name);
                if short.is_empty() {
                    short = normalized_key(name);
                }
                let base = short.clone();
                let mut suffix = 2;
                while taken.contains(&short) {
                    short = format!("{base}_{suffix}");
                    suffix += 1;
                }
                taken.insert(short.clone());
                columns.push((short, name.clone()));
                Slot::Value(columns.len() - 1)
            }
        };
        slots.push(slot);
    }
    for (required, slot) in [("Year", Slot::Year), ("Month", Slot::Month), ("Day", Slot::Day), ("Hour", Slot::Hour)] {
        if !slots.contains(&slot) {
            return Err(ClimateCsvError::Malformed {
                line: 3,
                message: format!("no {required} column among the column names of row 3: this is not a climate CSV"),
            });
        }
    }
    Ok((slots, columns))
}

fn check_stamp(stamp: [i32; 5], line: usize) -> Result<(), ClimateCsvError> {
    let [year, month, day, hour, minute] = stamp;
    let problem = if !(1..=9999).contains(&year) {
        Some(format!("year {year} is not 1–9999"))
    } else if !(1..=12).contains(&month) {
        Some(format!("month {month} is not 1–12"))
    } else if day < 1 || u32::try_from(day).unwrap_or(0) > days_in_month(year, u32::try_from(month).unwrap_or(0)) {
        Some(format!("day {day} does not exist in {year}-{month:02}"))
    } else if !(0..=23).contains(&hour) {
        Some(format!("hour {hour} is not 0–23"))
    } else if !(0..=59).contains(&minute) {
        Some(format!("minute {minute} is not 0–59"))
    } else {
        None
    };
    problem.map_or(Ok(()), |message| Err(ClimateCsvError::Malformed { line, message }))
}

/// 10^k, exact in f64 (every power up to 10^22 is): the writer's decimal scales and the
/// divisors of plain numbers.
pub(super) const POWERS_OF_TEN: [f64; PLAIN_DIGITS + 1] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

//! Text helpers for the weather readers: decoding, CSV field splitting and SSC-style number parsing.

use std::borrow::Cow;

use super::WeatherError;

/// Decode file bytes: UTF-8 (a byte-order mark is dropped), or Latin-1 when not valid UTF-8.
pub(super) fn decode(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// Lines of `bytes`: its line breaks, plus one for a last line without one.
pub(super) fn line_count(bytes: &[u8]) -> usize {
    let breaks = memchr::memchr_iter(b'\n', bytes).count();
    breaks + usize::from(bytes.last().is_some_and(|&last| last != b'\n'))
}

/// Room to reserve for the records of `part`: one per line at most. (An estimate from the
/// bytes per record reserved gigabytes for a large file of long lines.)
pub(super) fn record_capacity(part: &str) -> usize {
    line_count(part.as_bytes())
}

/// Split one CSV line into trimmed fields. Double quotes group a field (commas inside stay) and
/// are removed; a doubled quote inside quotes is a literal quote. Unquoted fields are borrowed.
pub(super) fn split_csv(line: &str) -> Vec<Cow<'_, str>> {
    let mut fields = Vec::new();
    split_csv_into(line, &mut fields);
    fields
}

/// `split_csv` into a vector the caller reuses from line to line (no allocation per line once it
/// has grown, for lines without quotes).
pub(super) fn split_csv_into<'a>(line: &'a str, fields: &mut Vec<Cow<'a, str>>) {
    fields.clear();
    if !line.as_bytes().contains(&b'"') {
        let mut start = 0;
        for (position, &byte) in line.as_bytes().iter().enumerate() {
            if byte == b',' {
                fields.push(Cow::Borrowed(line[start..position].trim_ascii()));
                start = position + 1;
            }
        }
        fields.push(Cow::Borrowed(line[start..].trim_ascii()));
        return;
    }
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
}

/// The lines of a text from a 1-based line number on, with their numbers, without their line
/// endings (`\n` or `\r\n`); nothing is allocated.
pub(super) struct NumberedLines<'a> {
    text: &'a str,
    position: usize,
    next_line: usize,
}

impl<'a> NumberedLines<'a> {
    /// The lines of `text` from line `first_line` on.
    pub(super) fn new(text: &'a str, first_line: usize) -> Self {
        let mut lines = NumberedLines { text, position: 0, next_line: 1 };
        while lines.next_line < first_line && lines.next().is_some() {}
        lines
    }
}

/// Data smaller than this is read by one thread (a thread costs more than it would save).
const PARALLEL_MIN_BYTES: usize = 256 * 1024;
/// Most threads one file is read on.
const MAX_READER_THREADS: usize = 4;

/// Reads the records of `data`, whose first line is file line `first_line`, with
/// `read(part, first_line_of_part)`: when `splittable` and the data is large, `data` is cut at
/// line breaks into contiguous parts read on up to all cores, and the results are joined in file
/// order with `append`, so the records, their line numbers and the first error reported are those
/// of one pass.
pub(super) fn read_in_parts<T: Send>(
    data: &str,
    first_line: usize,
    splittable: bool,
    read: impl Fn(&str, usize) -> Result<T, WeatherError> + Sync,
    append: impl Fn(&mut T, T),
    file: &str,
) -> Result<T, WeatherError> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get).min(MAX_READER_THREADS);
    if !splittable || threads < 2 || data.len() < PARALLEL_MIN_BYTES {
        return read(data, first_line);
    }
    let parts = split_at_line_breaks(data, first_line, threads);
    let read = &read;
    let mut results = std::thread::scope(|scope| {
        let others: Vec<_> = parts.iter().skip(1).map(|&(part, line)| scope.spawn(move || read(part, line))).collect();
        let (part, line) = parts.first().copied().unwrap_or(("", first_line));
        let mut results = vec![read(part, line)];
        results.extend(others.into_iter().map(|handle| {
            handle.join().unwrap_or_else(|_| Err(WeatherError::new(file, None, None, "a reader thread failed")))
        }));
        results
    })
    .into_iter();
    let mut joined = results.next().unwrap_or_else(|| read("", first_line))?;
    for part in results {
        append(&mut joined, part?);
    }
    Ok(joined)
}

/// `data` (starting at file line `first_line`) cut into about `parts` pieces of similar size at
/// line breaks, each with the file line number of its first line.
pub(super) fn split_at_line_breaks(data: &str, first_line: usize, parts: usize) -> Vec<(&str, usize)> {
    let bytes = data.as_bytes();
    let mut pieces = Vec::with_capacity(parts);
    let (mut start, mut line) = (0, first_line);
    for index in 1..=parts {
        let target = (bytes.len() * index / parts).max(start);
        let end = if index == parts {
            bytes.len()
        } else {
            bytes.get(target..).and_then(|rest| memchr::memchr(b'\n', rest)).map_or(bytes.len(), |at| target + at + 1)
        };
        if end > start {
            pieces.push((&data[start..end], line));
            line += memchr::memchr_iter(b'\n', &bytes[start..end]).count();
            start = end;
        }
    }
    pieces
}
/// The byte offset in `text` where its line `line` (1-based) starts; the end of `text` when it has
/// fewer lines.
pub(super) fn line_start(text: &str, line: usize) -> usize {
    let lines = NumberedLines::new(text, line);
    if lines.next_line < line {
        return text.len();
    }
    lines.position
}

impl<'a> Iterator for NumberedLines<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        if self.position >= self.text.len() {
            return None;
        }
        let rest = &self.text[self.position..];
        let (line, consumed) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(end) => (&rest[..end], end + 1),
            None => (rest, rest.len()),
        };
        self.position += consumed;
        let number = self.next_line;
        self.next_line += 1;
        Some((number, line.strip_suffix('\r').unwrap_or(line)))
    }
}

/// The data rows of a CSV text from a line on, each projected on a few columns: its cells at
/// the wanted column indices (trimmed; `None` past the end of the row) are found without
/// splitting the rest of the row. Blank rows are skipped; rows with quotes are split by
/// `split_csv_into`.
pub(super) struct ProjectedRows<'a> {
    lines: NumberedLines<'a>,
    /// The wanted column indices, ascending.
    wanted: Vec<usize>,
    /// The current row's cells as byte ranges of `line`, indexed by column (only wanted columns
    /// are filled); unused for a row with quotes, whose fields are in `quoted`.
    spans: Vec<Option<(usize, usize)>>,
    line: &'a str,
    quoted_row: bool,
    quoted: Vec<Cow<'a, str>>,
}

impl<'a> ProjectedRows<'a> {
    /// Rows of `text` from line `first_line` on, projected on the column indices `columns`.
    pub(super) fn new(text: &'a str, first_line: usize, columns: &[usize]) -> Self {
        let mut wanted = columns.to_vec();
        wanted.sort_unstable();
        wanted.dedup();
        let width = wanted.last().map_or(0, |&last| last + 1);
        ProjectedRows {
            lines: NumberedLines::new(text, first_line),
            wanted,
            spans: vec![None; width],
            line: "",
            quoted_row: false,
            quoted: Vec::new(),
        }
    }

    /// Moves to the next non-blank row and returns its line number.
    pub(super) fn next_row(&mut self) -> Option<usize> {
        loop {
            let (number, line) = self.lines.next()?;
            if line.trim_ascii().is_empty() {
                continue;
            }
            self.line = line;
            self.spans.iter_mut().for_each(|span| *span = None);
            self.quoted_row = !self.project(line.as_bytes());
            if self.quoted_row {
                split_csv_into(line, &mut self.quoted);
            }
            return Some(number);
        }
    }

    /// The byte ranges of the row's cells at the wanted columns, found from the positions of its
    /// commas, sixteen bytes at a time; false when the row has a quote (the ranges are then
    /// unusable).
    fn project(&mut self, bytes: &[u8]) -> bool {
        let mut wanted = self.wanted.iter().copied();
        let Some(mut target) = wanted.next() else { return true };
        let (mut field, mut start) = (0, 0);
        let mut chunk_start = 0;
        while chunk_start < bytes.len() {
            let (mut commas, quotes) = separator_masks(&bytes[chunk_start..]);
            if quotes != 0 {
                return false;
            }
            while commas != 0 {
                let position = chunk_start + commas.trailing_zeros() as usize;
                commas &= commas - 1;
                if field == target {
                    self.spans[target] = Some((start, position));
                    match wanted.next() {
                        Some(next) => target = next,
                        None => return true,
                    }
                }
                field += 1;
                start = position + 1;
            }
            chunk_start += 16;
        }
        if field == target {
            self.spans[target] = Some((start, bytes.len()));
        }
        true
    }

    /// The current row's cell in column `column` (a wanted one), trimmed, or `None` when the
    /// row ends before it.
    pub(super) fn get(&self, column: usize) -> Option<&str> {
        if self.quoted_row {
            return self.quoted.get(column).map(|cell| cell.as_ref());
        }
        let (start, end) = (*self.spans.get(column)?)?;
        Some(self.line[start..end].trim_ascii())
    }

    /// The current row's number of fields (for messages; splits the row).
    pub(super) fn field_count(&self) -> usize {
        split_csv(self.line).len()
    }
}

/// Bit masks of the commas and of the double quotes among the first 16 bytes of `bytes` (bit i
/// for byte i; bytes past the end count as neither).
fn separator_masks(bytes: &[u8]) -> (u32, u32) {
    let chunk: [u8; 16] = match bytes.first_chunk::<16>() {
        Some(whole) => *whole,
        None => {
            let mut padded = [0u8; 16];
            padded[..bytes.len()].copy_from_slice(bytes);
            padded
        }
    };
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads the 16 bytes of `chunk`.
        unsafe {
            let vector = _mm_loadu_si128(chunk.as_ptr().cast());
            let commas = _mm_movemask_epi8(_mm_cmpeq_epi8(vector, _mm_set1_epi8(b',' as i8))) as u32;
            let quotes = _mm_movemask_epi8(_mm_cmpeq_epi8(vector, _mm_set1_epi8(b'"' as i8))) as u32;
            (commas, quotes)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        chunk.iter().enumerate().fold((0, 0), |(commas, quotes), (i, &byte)| {
            (commas | u32::from(byte == b',') << i, quotes | u32::from(byte == b'"') << i)
        })
    }
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
    if let Some(value) = plain_decimal_f32(cell.as_bytes()) {
        return Value::Number(f64::from(value));
    }
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
#[inline]
pub(super) fn parse_integer(cell: &str) -> Option<i64> {
    plain_integer(cell.as_bytes().trim_ascii()).or_else(|| general_integer(cell))
}

/// `parse_integer` for what `plain_integer` does not read (decimals such as "7.0", exponents).
#[cold]
#[inline(never)]
fn general_integer(cell: &str) -> Option<i64> {
    let cell = cell.trim();
    cell.parse::<i64>().ok().or_else(|| {
        let value = cell.parse::<f64>().ok()?;
        (value.fract() == 0.0 && value.abs() < 1e9).then_some(value as i64)
    })
}

/// An optional sign and up to 18 digits (the common form, read without the general parser, whose
/// result it equals); `None` for anything else.
#[inline]
fn plain_integer(cell: &[u8]) -> Option<i64> {
    let (negative, digits) = match cell.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, cell),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut value: i64 = 0;
    for &byte in digits {
        let digit = byte.wrapping_sub(b'0');
        if digit >= 10 {
            return None;
        }
        value = value * 10 + i64::from(digit);
    }
    Some(if negative { -value } else { value })
}

/// Powers of ten exactly representable in `f32`.
const F32_POWERS_OF_TEN: [f32; 11] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];

/// A plain decimal `-?digits[.digits]` of at most ten characters after the sign whose digits,
/// without the point, form an integer below 2^24, as the correctly rounded `f32`: both the
/// integer and the power of ten are exact in `f32`, so one division rounds once (Clinger's fast
/// path), the same bits as `str::parse::<f32>`. `None` for anything else (the general parser
/// takes it).
fn plain_decimal_f32(cell: &[u8]) -> Option<f32> {
    let (negative, digits) = match cell.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, cell),
    };
    // Nine digits at most, so the mantissa cannot overflow before the 2^24 check.
    if digits.is_empty() || digits.len() > 10 {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut point = None;
    for (position, &byte) in digits.iter().enumerate() {
        let digit = byte.wrapping_sub(b'0');
        if digit < 10 {
            mantissa = mantissa * 10 + u64::from(digit);
        } else if byte == b'.' && point.is_none() {
            point = Some(position);
        } else {
            return None;
        }
    }
    let fraction_digits = point.map_or(0, |position| digits.len() - position - 1);
    let digit_count = digits.len() - usize::from(point.is_some());
    if digit_count == 0 || mantissa >= 1 << 24 {
        return None;
    }
    let value = mantissa as f32 / F32_POWERS_OF_TEN[fraction_digits];
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_with_or_without_a_last_line_break() {
        assert_eq!(line_count(b""), 0);
        assert_eq!(line_count(b"a"), 1);
        assert_eq!(line_count(b"a\n"), 1);
        assert_eq!(line_count(b"a\r\nb\n\nc"), 4);
        assert_eq!(record_capacity("h\n1\n2\n"), 3);
    }

    #[test]
    fn plain_decimals_parse_to_the_bits_of_the_standard_parser() {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..300_000 {
            let digits = next() % 10_000_000;
            let scale = (next() % 8) as usize;
            let text = if scale == 0 { digits.to_string() } else {
                let padded = format!("{digits:0>width$}", width = scale + 1);
                format!("{}.{}", &padded[..padded.len() - scale], &padded[padded.len() - scale..])
            };
            let text = if next() % 2 == 0 { format!("-{text}") } else { text };
            let fast = plain_decimal_f32(text.as_bytes());
            let standard: f32 = text.parse().unwrap();
            if let Some(fast) = fast {
                assert_eq!(fast.to_bits(), standard.to_bits(), "{text}");
            }
        }
        for text in ["", "-", ".", "1e5", "1.2.3", " 5", "16777216", "0.12345678901", "+3", "-.", "12345678901"] {
            assert_eq!(plain_decimal_f32(text.as_bytes()), None, "{text}");
        }
        assert_eq!(plain_decimal_f32(b"-0.0").map(f32::to_bits), Some((-0.0f32).to_bits()));
    }

    #[test]
    fn integers_parse_like_the_standard_parser() {
        for text in ["0", " 12", "-7 ", "+5", "007", "999999999999999999", "  -0"] {
            assert_eq!(parse_integer(text), text.trim().parse::<i64>().ok(), "{text:?}");
        }
        for (text, expected) in [("7.0", Some(7)), ("7.5", None), ("", None), ("-", None), ("1e3", Some(1000)), ("x1", None)] {
            assert_eq!(parse_integer(text), expected, "{text:?}");
        }
    }
}

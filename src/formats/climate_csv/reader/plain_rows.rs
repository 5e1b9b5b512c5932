//! The fast path for rows of plain decimals: the stamp fields predicted from the previous row,
//! the other fields read as plain numbers (digits, one point, an optional sign) without a
//! general float parser; a row that does not fit goes to the general scanner.

use super::{check_stamp, POWERS_OF_TEN, RowLayout, Rows, Slot};
use crate::calendar::days_from_civil;

/// One data row of plain numbers (see [`plain_number`]) ending in `\n`, `\r\n` or the end of the
/// chunk, with a valid stamp: the values are pushed onto `rows` and the start of the next row
/// is returned. `None` when anything else is met, or when the row does not end in a run of
/// value columns; values of this row may then have been pushed already
/// (`Rows::truncate_values` drops them). Stamp fields the row starts with as `stamps`
/// predicts are taken from the prediction, the others parsed (and checked).
#[inline]
#[allow(
    clippy::indexing_slicing,
    clippy::cast_sign_loss,
    reason = "value slots index the layout's own columns and stamp fields the five-field stamp; the stamp is checked before its casts"
)]
pub(super) fn plain_row(
    bytes: &[u8],
    row_start: usize,
    layout: &RowLayout,
    stamps: &mut StampPrediction,
    rows: &mut Rows,
) -> Option<usize> {
    let mut stamp = [0i32; STAMP_FIELDS];
    let (known_fields, known_days, mut at) = stamps.known_fields(bytes, row_start, &mut stamp);
    // Where each stamp field read here ends (after its comma), for the next prediction.
    let mut stamp_ends = [row_start; STAMP_FIELDS];
    for slot in layout.slots.get(known_fields..layout.value_run_start)? {
        let (number, end) = plain_number(bytes, at)?;
        let stamp_field = match *slot {
            Slot::Year => 0,
            Slot::Month => 1,
            Slot::Day => 2,
            Slot::Hour => 3,
            Slot::Minute => 4,
            Slot::Value(column) => {
                rows.values[column].push(number.value());
                at = after_comma(bytes, end)?;
                continue;
            }
            Slot::Skip => return None,
        };
        stamp[stamp_field] = number.whole()?;
        at = after_comma(bytes, end)?;
        stamp_ends[stamp_field] = at;
    }
    let run_columns = layout.value_columns - (layout.slots.len() - layout.value_run_start);
    let (last_column, run) = rows.values.get_mut(run_columns..)?.split_last_mut()?;
    for column in run {
        let (number, end) = plain_number(bytes, at)?;
        column.push(number.value());
        at = after_comma(bytes, end)?;
    }
    let (number, end) = plain_number(bytes, at)?;
    last_column.push(number.value());
    let next_row = match bytes.get(end) {
        None => end,
        Some(b'\n') => end + 1,
        Some(b'\r') if bytes.get(end + 1) == Some(&b'\n') => end + 2,
        Some(_) => return None,
    };
    if known_fields < STAMP_FIELDS {
        check_stamp(stamp, 0).ok()?;
    }
    let days = known_days.unwrap_or_else(|| days_from_civil(stamp[0], stamp[1] as u32, stamp[2] as u32));
    rows.push_stamp(stamp, days, layout.offset_s);
    let ends = stamp_ends.map(|end| end.saturating_sub(row_start));
    stamps.learn(layout, &bytes[row_start..], known_fields, ends, stamp, days);
    Some(next_row)
}

/// The offset after the comma that must follow a field ending at `end`.
#[inline]
pub(super) fn after_comma(bytes: &[u8], end: usize) -> Option<usize> {
    (bytes.get(end) == Some(&b',')).then_some(end + 1)
}

/// Year, Month, Day, Hour, Minute.
pub(super) const STAMP_FIELDS: usize = 5;

/// The stamp fields the next row is expected to start with, learnt from the rows before:
/// hourly rows repeat `Year,Month,Day,` 24 times and step the hour by one, so a row that starts
/// with the expected bytes has the expected values, and those fields are compared (a word or
/// two) instead of parsed and checked. Only for rows that start with Year, Month, Day (and
/// Hour, Minute for the time).
#[derive(Debug, Clone, Default)]
pub(super) struct StampPrediction {
    /// `Year,Month,Day,` of the last row, that date (checked when it was read) and its day
    /// number.
    pub(super) date: Option<(FieldText, [i32; 3], i64)>,
    /// `Hour,Minute,` for every hour with the last minute read, as written.
    pub(super) times: Option<HourTexts>,
    /// The last row's hour.
    pub(super) last_hour: i32,
}

/// `Hour,Minute,` for the hours 0–23 (hours as written without leading zeros) with one minute.
#[derive(Debug, Clone)]
pub(super) struct HourTexts {
    pub(super) minute_text: FieldText,
    pub(super) minute: i32,
    pub(super) hours: [FieldText; 24],
}

impl HourTexts {
    /// `None` when a text would be longer than 16 bytes.
    fn new(minute_text: &[u8], minute: i32) -> Option<HourTexts> {
        let text = |hour: usize| FieldText::new(&[format!("{hour},").as_bytes(), minute_text].concat());
        let hours = (0..24).map(text).collect::<Option<Vec<FieldText>>>()?.try_into().ok()?;
        Some(HourTexts { minute_text: FieldText::new(minute_text)?, minute, hours })
    }
}

impl StampPrediction {
    /// How many leading stamp fields (0, 3 or 5) the row at `row_start` has as predicted, with
    /// their values put in `stamp`, the day number of a predicted date and the offset after
    /// the predicted fields.
    #[inline]
    fn known_fields(
        &self,
        bytes: &[u8],
        row_start: usize,
        stamp: &mut [i32; STAMP_FIELDS],
    ) -> (usize, Option<i64>, usize) {
        let Some((date_text, date, days)) = self.date.filter(|(text, _, _)| text.starts(bytes, row_start)) else {
            return (0, None, row_start);
        };
        stamp[..3].copy_from_slice(&date);
        let at = row_start + date_text.length;
        let next_hour = self.last_hour + 1;
        let time = self
            .times
            .as_ref()
            .and_then(|times| times.hours.get(usize::try_from(next_hour).ok()?).map(|text| (text, times.minute)));
        match time.filter(|(text, _)| text.starts(bytes, at)) {
            Some((time_text, minute)) => {
                stamp[3] = next_hour;
                stamp[4] = minute;
                (STAMP_FIELDS, Some(days), at + time_text.length)
            }
            None => (3, Some(days), at),
        }
    }

    /// Learns from a row read with `known_fields` predicted: `row` starts with it, `ends` are
    /// the offsets in `row` after the stamp fields read in it, `stamp` is its stamp and `days`
    /// the day number of its date.
    #[inline]
    #[allow(clippy::indexing_slicing, reason = "`ends` are offsets of this row's own fields")]
    fn learn(
        &mut self,
        layout: &RowLayout,
        row: &[u8],
        known_fields: usize,
        ends: [usize; STAMP_FIELDS],
        stamp: [i32; STAMP_FIELDS],
        days: i64,
    ) {
        self.last_hour = stamp[3];
        if known_fields == 0 && layout.date_first {
            self.date = FieldText::new(&row[..ends[2]]).map(|text| (text, [stamp[0], stamp[1], stamp[2]], days));
        }
        if known_fields < STAMP_FIELDS && layout.time_follows_date {
            self.learn_minute(&row[ends[3]..ends[4]], stamp[4]);
        }
    }

    /// A minute read as `text`: the hour texts are made again when it is not the last one.
    #[cold]
    fn learn_minute(&mut self, text: &[u8], minute: i32) {
        let same = self.times.as_ref().is_some_and(|times| times.minute == minute && times.minute_text.is(text));
        if !same {
            self.times = HourTexts::new(text, minute);
        }
    }
}

/// Up to 16 bytes of text in two little-endian words, with masks of the bytes that belong to it.
#[derive(Debug, Clone, Copy)]
pub(super) struct FieldText {
    pub(super) words: [u64; 2],
    pub(super) masks: [u64; 2],
    pub(super) length: usize,
}

#[allow(clippy::indexing_slicing, reason = "the words are cut from 16-byte arrays")]
impl FieldText {
    /// `None` for text longer than 16 bytes.
    fn new(text: &[u8]) -> Option<FieldText> {
        let mut padded = [0u8; 16];
        padded.get_mut(..text.len())?.copy_from_slice(text);
        let word = |half: usize| u64::from_le_bytes(padded[8 * half..8 * half + 8].try_into().unwrap_or([0; 8]));
        let mask = |half: usize| match text.len().saturating_sub(8 * half).min(8) {
            8 => u64::MAX,
            bytes => (1u64 << (8 * bytes)) - 1,
        };
        Some(FieldText { words: [word(0), word(1)], masks: [mask(0), mask(1)], length: text.len() })
    }

    /// This is `text`.
    fn is(&self, text: &[u8]) -> bool {
        FieldText::new(text).is_some_and(|other| other.words == self.words && other.length == self.length)
    }

    /// The bytes at `at` start with this text.
    #[inline]
    fn starts(&self, bytes: &[u8], at: usize) -> bool {
        let Some(window) = bytes.get(at..at + 16) else {
            return false;
        };
        let word = |half: usize| u64::from_le_bytes(window[8 * half..8 * half + 8].try_into().unwrap_or([0; 8]));
        ((word(0) ^ self.words[0]) & self.masks[0]) | ((word(1) ^ self.words[1]) & self.masks[1]) == 0
    }
}

/// A plain decimal as written: sign, digits and where the decimal point was.
#[derive(Debug, Clone, Copy)]
pub(super) struct PlainNumber {
    pub(super) negative: bool,
    /// The digits without the point, below 10^15.
    pub(super) mantissa: u64,
    /// Digits after the point.
    pub(super) fraction_digits: usize,
    pub(super) has_point: bool,
}

#[allow(
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    reason = "a plain number has at most 15 digits (below 2^53 and 10^15, fraction digits within the table); stamp fields are below 10^9"
)]
impl PlainNumber {
    /// The value, bit-identical to the standard parser's: the mantissa (below 2^53) and
    /// 10^fraction_digits are exact in f64, so one division rounds once, correctly (Clinger's
    /// fast path).
    #[inline]
    fn value(self) -> f64 {
        // Through i64 (exact below 10^15): x86-64 converts signed integers in one instruction.
        let magnitude = self.mantissa as i64 as f64 / POWERS_OF_TEN[self.fraction_digits];
        if self.negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// The number as a stamp field: digits only, below 10^9.
    #[inline]
    fn whole(self) -> Option<i32> {
        if self.has_point || self.mantissa >= 1_000_000_000 {
            return None;
        }
        let magnitude = self.mantissa as i32;
        Some(if self.negative { -magnitude } else { magnitude })
    }
}

/// Most significant digits a [`PlainNumber`] takes (10^15 < 2^53).
pub(super) const PLAIN_DIGITS: usize = 15;

/// The number at `at` when it is plain — `-?digits[.digits]`, at least one digit, at most
/// [`PLAIN_DIGITS`] — and the offset after it; `None` sends the field to the standard parser.
/// A byte loop: field lengths repeat from row to row, so its exits are predicted and the next
/// field's start never waits for arithmetic (a SWAR parser of eight bytes at a time ran no
/// faster here: it chains each field's start to the previous field's bit arithmetic).
#[inline]
pub(super) fn plain_number(bytes: &[u8], at: usize) -> Option<(PlainNumber, usize)> {
    let negative = bytes.get(at) == Some(&b'-');
    let integer_start = at + usize::from(negative);
    let (mut mantissa, integer_end) = digit_run(bytes, integer_start, 0);
    let has_point = bytes.get(integer_end) == Some(&b'.');
    let mut end = integer_end;
    if has_point {
        (mantissa, end) = digit_run(bytes, integer_end + 1, mantissa);
    }
    let fraction_digits = if has_point { end - integer_end - 1 } else { 0 };
    let digits = integer_end - integer_start + fraction_digits;
    if digits == 0 || digits > PLAIN_DIGITS {
        return None;
    }
    Some((PlainNumber { negative, mantissa, fraction_digits, has_point }, end))
}

/// Consumes the digits from `at`, appending them to `value` (wrapping: callers bound the
/// count): the new value and the offset after the digits.
#[inline]
pub(super) fn digit_run(bytes: &[u8], mut at: usize, mut value: u64) -> (u64, usize) {
    while let Some(digit) = bytes.get(at).map(|b| b.wrapping_sub(b'0')).filter(|&d| d <= 9) {
        value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
        at += 1;
    }
    (value, at)
}

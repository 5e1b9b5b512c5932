//! The general row scanner: any row the fast path does not take, field by field, with the same
//! checks and messages.

use super::{check_stamp, ClimateCsvError, RowLayout, Rows, Slot};
use crate::calendar::days_from_civil;

/// The general data-row reader: any row [`plain_row`] does not take, with the error messages.
pub(super) struct Scanner<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
    /// 1-based line of the current row.
    pub(super) line: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Skips empty lines; false at the end of the body.
    pub(super) fn skip_blank_lines(&mut self) -> bool {
        loop {
            match self.peek() {
                None => return false,
                Some(b'\n') => {
                    self.at += 1;
                    self.line += 1;
                }
                Some(b'\r') => self.at += 1,
                Some(_) => return true,
            }
        }
    }

    fn malformed(&self, message: String) -> ClimateCsvError {
        ClimateCsvError::Malformed { line: self.line, message }
    }

    fn field_end(&self) -> usize {
        self.bytes
            .get(self.at..)
            .unwrap_or_default()
            .iter()
            .position(|&b| matches!(b, b',' | b'\n' | b'\r'))
            .map_or(self.bytes.len(), |p| self.at + p)
    }

    fn expect_comma(&mut self, index: usize, expected: usize) -> Result<(), ClimateCsvError> {
        if self.peek() == Some(b',') {
            self.at += 1;
            Ok(())
        } else {
            Err(self.malformed(format!("the row has {index} fields, the column names row has {expected}")))
        }
    }

    fn end_of_row(&mut self, expected: usize) -> Result<(), ClimateCsvError> {
        match self.peek() {
            None => Ok(()),
            Some(b'\r') if self.bytes.get(self.at + 1) == Some(&b'\n') => {
                self.at += 2;
                self.line += 1;
                Ok(())
            }
            Some(b'\n') => {
                self.at += 1;
                self.line += 1;
                Ok(())
            }
            Some(b'\r') => {
                self.at += 1;
                self.line += 1;
                Ok(())
            }
            Some(_) => {
                Err(self.malformed(format!("the row has more fields than the {expected} column names of row 3")))
            }
        }
    }

    fn skip_field(&mut self) {
        self.at = self.field_end();
    }

    /// One row by the general rules: fields counted against row 3, numbers by the standard
    /// parser (an empty value is NaN), the stamp checked.
    pub(super) fn row(&mut self, layout: &RowLayout, rows: &mut Rows) -> Result<(), ClimateCsvError> {
        let fields = layout.slots.len();
        let mut stamp = [0i32; 5];
        for (index, slot) in layout.slots.iter().enumerate() {
            if index > 0 {
                self.expect_comma(index, fields)?;
            }
            match *slot {
                Slot::Year => stamp[0] = self.int("Year")?,
                Slot::Month => stamp[1] = self.int("Month")?,
                Slot::Day => stamp[2] = self.int("Day")?,
                Slot::Hour => stamp[3] = self.int("Hour")?,
                Slot::Minute => stamp[4] = self.int("Minute")?,
                Slot::Value(column) => {
                    let value = self.float(layout.names.get(index).map_or("a value", String::as_str))?;
                    if let Some(values) = rows.values.get_mut(column) {
                        values.push(value);
                    }
                }
                Slot::Skip => self.skip_field(),
            }
        }
        let line = self.line;
        self.end_of_row(fields)?;
        check_stamp(stamp, line)?;
        let [year, month, day, ..] = stamp;
        let days = days_from_civil(year, u32::try_from(month).unwrap_or(0), u32::try_from(day).unwrap_or(0));
        rows.push_stamp(stamp, days, layout.offset_s);
        Ok(())
    }

    /// The field's text and the scanner moved past it.
    fn field(&mut self) -> String {
        let start = self.at;
        self.skip_field();
        String::from_utf8_lossy(self.bytes.get(start..self.at).unwrap_or_default()).into_owned()
    }

    /// A whole number (`2010.0` is one).
    #[allow(clippy::cast_possible_truncation, reason = "a whole value below 10^9 fits an i32")]
    fn int(&mut self, column: &str) -> Result<i32, ClimateCsvError> {
        let text = self.field();
        match text.trim().parse::<f64>() {
            Ok(v) if v.fract() == 0.0 && v.abs() < 1e9 => Ok(v as i32),
            _ => Err(self.malformed(format!("{column} value \"{text}\" is not a whole number"))),
        }
    }

    /// A number; an empty field is NaN.
    fn float(&mut self, column: &str) -> Result<f64, ClimateCsvError> {
        let text = self.field();
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Ok(f64::NAN);
        }
        trimmed.parse::<f64>().map_err(|_| self.malformed(format!("{column} value \"{text}\" is not a number")))
    }
}

//! The parsed climate table: typed columns with their stamps, the row-count checks, and the
//! stamps as UTC instants.

use crate::calendar::days_from_civil;
use crate::spec::routes::DatasetFamily;

use super::*;

/// One data column: short name, file name and values.
#[derive(Debug, Clone, PartialEq)]
pub struct DataColumn {
    /// Column name in frames (the spec's attribute name for the 12 attributes).
    pub name: String,
    /// Column name as written in row 3 of the file.
    pub long_name: String,
    pub values: Vec<f64>,
}

impl DataColumn {
    /// A column of one of the 12 attributes.
    pub fn of(attribute: Attribute, values: Vec<f64>) -> DataColumn {
        DataColumn { name: attribute.name().to_string(), long_name: attribute.long_name().to_string(), values }
    }

    /// A column of `attribute` as a family's files write it: NSRDB files use their own column
    /// names (`Temperature`, `Wind Speed`), which the reader turns into `temperature`, `windspeed`.
    pub fn of_family(attribute: Attribute, family: DatasetFamily, values: Vec<f64>) -> DataColumn {
        match (family, attribute.nsrdb_long_name()) {
            (DatasetFamily::Nsrdb, Some(long_name)) => DataColumn { name: short_column_name(long_name), long_name: long_name.to_string(), values },
            _ => DataColumn::of(attribute, values),
        }
    }

    /// The attribute this column holds, if it is one of the 12.
    pub fn attribute(&self) -> Option<Attribute> {
        Attribute::from_name(&self.name)
    }
}

/// One climate CSV: metadata, time stamps (in the offset `metadata.time_zone`) and columns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClimateTable {
    pub metadata: ClimateMetadata,
    pub year: Vec<i32>,
    pub month: Vec<i32>,
    pub day: Vec<i32>,
    pub hour: Vec<i32>,
    pub minute: Vec<i32>,
    pub columns: Vec<DataColumn>,
}

/// Why a body could not be read as a climate CSV.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClimateCsvError {
    /// The body is an error answer (service JSON, gateway JSON/CSV/XML or an HTML page).
    #[error("the service answered with an error instead of CSV{}: {}", status.map(|s| format!(" (status {s})")).unwrap_or_default(), messages.join("; "))]
    ErrorBody { status: Option<u16>, code: Option<String>, messages: Vec<String> },
    /// The text is not a climate CSV or a value is malformed (1-based line).
    #[error("climate CSV line {line}: {message}")]
    Malformed { line: usize, message: String },
    /// The number of rows does not match the year, leap_day and interval asked for.
    #[error(
        "expected {expected} rows for {year} (leap_day={leap_day}, interval={interval_minutes} min), found {found}"
    )]
    RowCount { year: i32, leap_day: bool, interval_minutes: u32, expected: usize, found: usize },
    /// The rows are not one calendar year at one interval (the message says what was expected).
    #[error("{0}")]
    NotOneYear(String),
}

impl ClimateCsvError {
    /// The error of a chunk that numbered its lines from the first data line, moved down by
    /// the `lines` line ends before the chunk.
    pub(super) fn lines_later(self, lines: usize) -> ClimateCsvError {
        match self {
            ClimateCsvError::Malformed { line, message } => ClimateCsvError::Malformed { line: line + lines, message },
            other => other,
        }
    }
}

impl ClimateTable {
    /// Number of data rows.
    pub fn len(&self) -> usize {
        self.year.len()
    }

    pub fn is_empty(&self) -> bool {
        self.year.is_empty()
    }

    /// The column with this short name.
    pub fn column(&self, name: &str) -> Option<&DataColumn> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// Offset of the time stamps from UTC, hours (metadata `Time Zone`, 0 when absent).
    pub fn stamp_offset_hours(&self) -> f64 {
        self.metadata.time_zone.unwrap_or(0.0)
    }

    /// UTC instants of the rows, microseconds since 1970-01-01 (see [`instant_us`]). The day
    /// number is computed once per date (rows of a day are adjacent).
    pub fn timestamps_us(&self) -> Vec<i64> {
        let offset_s = offset_seconds(self.stamp_offset_hours());
        let mut last_date = (0, 0, 0);
        let mut last_days = None;
        let dates = self.year.iter().zip(&self.month).zip(&self.day);
        let times = self.hour.iter().zip(&self.minute);
        dates
            .zip(times)
            .map(|(((&year, &month), &day), (&hour, &minute))| {
                let days = match last_days {
                    Some(days) if last_date == (year, month, day) => days,
                    _ => {
                        last_date = (year, month, day);
                        *last_days.insert(days_from_civil(year, u32::try_from(month).unwrap_or(0), u32::try_from(day).unwrap_or(0)))
                    }
                };
                instant_us(days, hour, minute, offset_s)
            })
            .collect()
    }

    /// Checks the row count against one year of data at `interval_minutes`.
    pub fn check_rows(&self, year: i32, leap_day: bool, interval_minutes: u32) -> Result<(), ClimateCsvError> {
        let expected = expected_rows(year, leap_day, interval_minutes);
        if self.len() == expected {
            Ok(())
        } else {
            Err(ClimateCsvError::RowCount { year, leap_day, interval_minutes, expected, found: self.len() })
        }
    }

    /// Checks that the rows are one whole calendar year at one interval, as every climate CSV is:
    /// the year is the first row's, the interval the step from the first row to the second (60
    /// minutes with fewer rows), and 29 February counts when any row has it. A truncated,
    /// padded or doubled file fails, naming the rows expected.
    pub fn check_whole_year(&self) -> Result<(), ClimateCsvError> {
        let Some(&year) = self.year.first() else {
            return Err(ClimateCsvError::NotOneYear(format!(
                "the CSV has no data rows; a climate CSV holds one year ({} hourly rows, {} in a leap year with leap_day)",
                expected_rows(2010, false, 60),
                expected_rows(2012, true, 60)
            )));
        };
        let interval_minutes = self.step_minutes().unwrap_or(INTERVAL_WHEN_UNKNOWN);
        if interval_minutes == 0 || 1440 % interval_minutes != 0 {
            return Err(ClimateCsvError::NotOneYear(format!(
                "the first two rows are {interval_minutes} minutes apart, which is not an interval that divides a day"
            )));
        }
        let leap_day = self.month.iter().zip(&self.day).any(|(&month, &day)| month == 2 && day == 29);
        self.check_rows(year, leap_day, interval_minutes)?;
        match self.year.iter().position(|&other| other != year) {
            Some(row) => Err(ClimateCsvError::NotOneYear(format!(
                "row {} is in {} but the file starts in {year}: a climate CSV holds one year",
                row + 1,
                self.year.get(row).copied().unwrap_or_default()
            ))),
            None => Ok(()),
        }
    }

    /// Minutes from the first row's stamp to the second's.
    fn step_minutes(&self) -> Option<u32> {
        let stamp = |row: usize| -> Option<i64> {
            let days = days_from_civil(*self.year.get(row)?, u32::try_from(*self.month.get(row)?).ok()?, u32::try_from(*self.day.get(row)?).ok()?);
            Some(days * 1440 + i64::from(*self.hour.get(row)?) * 60 + i64::from(*self.minute.get(row)?))
        };
        u32::try_from(stamp(1)? - stamp(0)?).ok()
    }
}

/// The stamps' offset from UTC in whole seconds.
#[allow(clippy::cast_possible_truncation, reason = "the parser refuses offsets beyond 24 h, and `as` saturates")]
pub(super) fn offset_seconds(offset_hours: f64) -> i64 {
    (offset_hours * 3600.0).round() as i64
}

/// The UTC instant (µs since 1970-01-01) of a stamp: day number `days` (see
/// [`days_from_civil`]), hour and minute, at `offset_s` seconds from UTC.
pub(super) fn instant_us(days: i64, hour: i32, minute: i32, offset_s: i64) -> i64 {
    (days * 86_400 + i64::from(hour) * 3600 + i64::from(minute) * 60 - offset_s) * 1_000_000
}

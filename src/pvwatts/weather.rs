//! Weather year for the PVWatts engine: the `Weather` container, its validation rules, and the
//! readers for TMY2, TMY3, SAM CSV and the climate-download CSV.
//!
//! Rules (shared by every input route):
//! * One calendar year of hourly records starting January 1 00:00: 8760 records, or 8784 when
//!   February 29 is present. Leap-day records are kept and simulated; monthly sums follow the
//!   records' months (February then has 29 days). `Weather::without_leap_day` gives the
//!   365-day year SSC itself would simulate (SSC drops February 29 when reading files).
//! * Sub-hourly data is rejected with a message saying so.
//! * Data without a minute column (TMY2, TMY3, SAM CSV without `Minute`) are hour averages
//!   labelled hh:30; the sunrise/sunset-hour rule of PVWatts applies. Data with a minute column
//!   are instantaneous values at the stamped minute (SSC's rule for such files).
//! * File readers round every weather value through `f32`, as SSC stores file columns as
//!   `float`; `Weather::from_columns` keeps the values it is given.

mod csv;
mod text;
mod tmy2;
mod tmy3;

use super::calendar::{month_day_of_index, HOURS_PER_LEAP_YEAR, HOURS_PER_YEAR};
use std::fmt;
use std::path::Path;

/// Largest beam (DNI) or diffuse (DHI) irradiance accepted, W/m² (SSC `irrad::check`).
pub const MAX_IRRADIANCE: f64 = 1500.0;

/// Site description from the weather file header.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SiteMeta {
    /// Latitude, degrees north (−90…90).
    pub lat: f64,
    /// Longitude, degrees east (−180…180).
    pub lon: f64,
    /// Time zone of the time stamps, hours east of UTC (−15…15).
    pub tz: f64,
    /// Elevation, m (negative or NaN is treated as 0 by the engine).
    pub elevation: f64,
    /// City name (may be empty).
    pub city: String,
    /// State or province (may be empty).
    pub state: String,
    /// Country (may be empty).
    pub country: String,
    /// Station or location identifier (may be empty).
    pub location_id: String,
    /// Data source, e.g. "TMY3" or "NSRDB" (may be empty).
    pub source: String,
}

/// One year of hourly weather, validated. Build it with `Weather::from_columns` or a reader; the
/// What a column of `WeatherColumns` may be: anything that reads as `[f64]` and becomes a `Series`.
pub trait Column: std::ops::Deref<Target = [f64]> + Into<Series> {}

impl<C: std::ops::Deref<Target = [f64]> + Into<Series>> Column for C {}

/// A weather column: an immutable, shareable buffer of f64. Columns built in Rust move their
/// `Vec` into it; columns handed over as Arrow float64 arrays are used in place (no copy).
pub type Series = arrow_buffer::ScalarBuffer<f64>;

/// fields are public for reading (changing them bypasses the validation).
#[derive(Clone, Debug, PartialEq)]
pub struct Weather {
    /// Site description.
    pub meta: SiteMeta,
    /// Calendar year of each record (TMY files mix years by month).
    pub year: Vec<i32>,
    /// Month, 1–12.
    pub month: Vec<u8>,
    /// Day of month, 1–31.
    pub day: Vec<u8>,
    /// Hour of day, 0–23, local standard time of `meta.tz`.
    pub hour: Vec<u8>,
    /// Minute of the time stamp (30 for hour-average data without a minute column).
    pub minute: Vec<u8>,
    /// Global horizontal irradiance, W/m² (reported, not used by the model).
    pub gh: Series,
    /// Direct normal irradiance, W/m².
    pub dn: Series,
    /// Diffuse horizontal irradiance, W/m².
    pub df: Series,
    /// Dry-bulb temperature, °C.
    pub tdry: Series,
    /// Wind speed, m/s (measured at about 10 m).
    pub wspd: Series,
    /// Air pressure, mbar (used for refraction only; values ≤ 800 or NaN mean 1013.25).
    pub pressure: Option<Series>,
    /// Ground albedo, 0–1 (values outside (0, 1) or NaN mean 0.2).
    pub albedo: Option<Series>,
    /// Snow depth, cm (read for completeness; PVWatts v5 has no snow model).
    pub snow_depth: Option<Series>,
    /// True when the time stamps are instants (the data had a minute column); false for hour
    /// averages labelled hh:30, which get the sunrise/sunset-hour rule.
    pub instantaneous: bool,
}

/// Columns for `Weather::from_columns`. All vectors must have the same length. The values are
/// `Vec`s (readers, generated data) or `Series` (Arrow buffers used in place).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WeatherColumns<C = Vec<f64>> {
    /// Calendar year of each record.
    pub year: Vec<i32>,
    /// Month, 1–12.
    pub month: Vec<u8>,
    /// Day of month.
    pub day: Vec<u8>,
    /// Hour of day, 0–23.
    pub hour: Vec<u8>,
    /// Minute of each instantaneous time stamp; `None` for hour averages labelled hh:30.
    pub minute: Option<Vec<u8>>,
    /// Global horizontal irradiance, W/m².
    pub gh: C,
    /// Direct normal irradiance, W/m².
    pub dn: C,
    /// Diffuse horizontal irradiance, W/m².
    pub df: C,
    /// Dry-bulb temperature, °C.
    pub tdry: C,
    /// Wind speed, m/s.
    pub wspd: C,
    /// Air pressure, mbar.
    pub pressure: Option<C>,
    /// Ground albedo, 0–1.
    pub albedo: Option<C>,
    /// Snow depth, cm.
    pub snow_depth: Option<C>,
}

impl WeatherColumns {
    /// Round every weather value through `f32`, as SSC stores weather-file columns. Use this when
    /// the columns were read from a weather file by other means and SSC's results are wanted.
    pub fn round_to_f32(&mut self) {
        let round =
            |values: &mut Vec<f64>| values.iter_mut().for_each(|v| *v = f64::from(*v as f32));
        for values in [
            &mut self.gh,
            &mut self.dn,
            &mut self.df,
            &mut self.tdry,
            &mut self.wspd,
        ] {
            round(values);
        }
        for values in [&mut self.pressure, &mut self.albedo, &mut self.snow_depth]
            .into_iter()
            .flatten()
        {
            round(values);
        }
    }
}

/// A weather input problem, located as precisely as possible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeatherError {
    /// File name (or `<columns>` for in-memory data).
    pub file: String,
    /// 1-based line in the file; for in-memory columns, the 1-based record number.
    pub line: Option<usize>,
    /// Column name as written in the file (or the field name for in-memory columns).
    pub column: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl WeatherError {
    /// An error located in `file` at `line`, optionally in `column`.
    pub fn new(
        file: &str,
        line: Option<usize>,
        column: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        WeatherError {
            file: file.to_string(),
            line,
            column: column.map(str::to_string),
            message: message.into(),
        }
    }
}

impl fmt::Display for WeatherError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": ")?;
        if let Some(column) = &self.column {
            write!(f, "column '{column}': ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for WeatherError {}

/// A weather column, used to name columns in error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Gh,
    Dn,
    Df,
    Tdry,
    Wspd,
    Pressure,
    Albedo,
    SnowDepth,
    Latitude,
    Longitude,
    TimeZone,
}

impl Field {
    const COUNT: usize = 16;

    /// Name used for in-memory columns.
    fn default_name(self) -> &'static str {
        match self {
            Field::Year => "year",
            Field::Month => "month",
            Field::Day => "day",
            Field::Hour => "hour",
            Field::Minute => "minute",
            Field::Gh => "gh",
            Field::Dn => "dn",
            Field::Df => "df",
            Field::Tdry => "tdry",
            Field::Wspd => "wspd",
            Field::Pressure => "pressure",
            Field::Albedo => "albedo",
            Field::SnowDepth => "snow_depth",
            Field::Latitude => "lat",
            Field::Longitude => "lon",
            Field::TimeZone => "tz",
        }
    }
}

/// Where records and header values came from, for error messages.
pub(crate) struct Origin {
    file: String,
    /// 1-based file line of each record; `None` for in-memory columns.
    record_lines: Option<Vec<usize>>,
    /// 1-based file line of the site metadata values.
    meta_line: Option<usize>,
    /// Column names as written in the file.
    names: [Option<String>; Field::COUNT],
}

impl Origin {
    /// Origin of in-memory columns.
    fn columns() -> Self {
        Origin {
            file: "<columns>".to_string(),
            record_lines: None,
            meta_line: None,
            names: Default::default(),
        }
    }

    /// Origin of a file whose records sit on `record_lines` and metadata on `meta_line`.
    pub(crate) fn file(file: &str, record_lines: Vec<usize>, meta_line: usize) -> Self {
        Origin {
            file: file.to_string(),
            record_lines: Some(record_lines),
            meta_line: Some(meta_line),
            names: Default::default(),
        }
    }

    /// Record the file's own name for a column.
    pub(crate) fn name_column(&mut self, field: Field, name: &str) {
        self.names[field as usize] = Some(name.to_string());
    }

    fn column_name(&self, field: Field) -> &str {
        self.names[field as usize]
            .as_deref()
            .unwrap_or(field.default_name())
    }

    fn record_error(&self, record: usize, field: Field, message: String) -> WeatherError {
        let line = match &self.record_lines {
            Some(lines) => lines.get(record).copied(),
            None => Some(record + 1),
        };
        WeatherError::new(&self.file, line, Some(self.column_name(field)), message)
    }

    fn meta_error(&self, field: Field, message: String) -> WeatherError {
        WeatherError::new(
            &self.file,
            self.meta_line,
            Some(self.column_name(field)),
            message,
        )
    }

    fn file_error(&self, message: String) -> WeatherError {
        WeatherError::new(&self.file, None, None, message)
    }
}

impl Weather {
    /// Build a weather year from in-memory columns and validate it (see the module rules).
    ///
    /// Values are kept as given (no `f32` rounding). `columns.minute == None` means hour averages
    /// labelled hh:30 with the sunrise/sunset-hour rule; `Some(minutes)` means instantaneous data.
    /// Errors name the column and the 1-based record number.
    pub fn from_columns<C: Column>(meta: SiteMeta, columns: WeatherColumns<C>) -> Result<Weather, WeatherError> {
        Weather::assemble(meta, columns, &Origin::columns())
    }

    /// Validate and assemble, naming `origin` in errors.
    pub(crate) fn assemble<C: Column>(
        meta: SiteMeta,
        columns: WeatherColumns<C>,
        origin: &Origin,
    ) -> Result<Weather, WeatherError> {
        validate_site(&meta, origin)?;
        let records = columns.year.len();
        validate_lengths(&columns, records, origin)?;
        validate_one_record_per_hour(&columns, origin)?;
        validate_record_count(records, origin)?;
        let instantaneous = columns.minute.is_some();
        let minute = columns.minute.unwrap_or_else(|| vec![30; records]);
        validate_calendar(&columns.month, &columns.day, &columns.hour, &minute, origin)?;
        validate_values(
            &columns.gh,
            Field::Gh,
            origin,
            |v| !v.is_infinite(),
            "a finite number or empty",
        )?;
        validate_values(
            &columns.dn,
            Field::Dn,
            origin,
            irradiance_in_range,
            "a value between 0 and 1500 W/m2",
        )?;
        validate_values(
            &columns.df,
            Field::Df,
            origin,
            irradiance_in_range,
            "a value between 0 and 1500 W/m2",
        )?;
        validate_values(
            &columns.tdry,
            Field::Tdry,
            origin,
            |v| v.is_finite(),
            "a finite temperature",
        )?;
        validate_values(
            &columns.wspd,
            Field::Wspd,
            origin,
            |v| v.is_finite(),
            "a finite wind speed",
        )?;
        for (values, field) in [
            (&columns.pressure, Field::Pressure),
            (&columns.albedo, Field::Albedo),
            (&columns.snow_depth, Field::SnowDepth),
        ] {
            if let Some(values) = values {
                validate_values(
                    values,
                    field,
                    origin,
                    |v| !v.is_infinite(),
                    "a finite number or empty",
                )?;
            }
        }
        Ok(Weather {
            meta,
            year: columns.year,
            month: columns.month,
            day: columns.day,
            hour: columns.hour,
            minute,
            gh: columns.gh.into(),
            dn: columns.dn.into(),
            df: columns.df.into(),
            tdry: columns.tdry.into(),
            wspd: columns.wspd.into(),
            pressure: columns.pressure.map(Into::into),
            albedo: columns.albedo.map(Into::into),
            snow_depth: columns.snow_depth.map(Into::into),
            instantaneous,
        })
    }

    /// Number of records (8760 or 8784).
    pub fn len(&self) -> usize {
        self.year.len()
    }

    /// Always false for a validated weather year.
    pub fn is_empty(&self) -> bool {
        self.year.is_empty()
    }

    /// True when the year includes February 29 (8784 records).
    pub fn has_leap_day(&self) -> bool {
        self.len() == HOURS_PER_LEAP_YEAR
    }

    /// The same weather without February 29: the 365-day year SSC simulates.
    pub fn without_leap_day(&self) -> Weather {
        let keep: Vec<bool> = self
            .month
            .iter()
            .zip(&self.day)
            .map(|(&m, &d)| !(m == 2 && d == 29))
            .collect();
        fn filter<T: Copy>(values: &[T], keep: &[bool]) -> Vec<T> {
            values
                .iter()
                .zip(keep)
                .filter(|(_, &k)| k)
                .map(|(&v, _)| v)
                .collect()
        }
        Weather {
            meta: self.meta.clone(),
            year: filter(&self.year, &keep),
            month: filter(&self.month, &keep),
            day: filter(&self.day, &keep),
            hour: filter(&self.hour, &keep),
            minute: filter(&self.minute, &keep),
            gh: filter(&self.gh, &keep).into(),
            dn: filter(&self.dn, &keep).into(),
            df: filter(&self.df, &keep).into(),
            tdry: filter(&self.tdry, &keep).into(),
            wspd: filter(&self.wspd, &keep).into(),
            pressure: self.pressure.as_deref().map(|v| filter(v, &keep).into()),
            albedo: self.albedo.as_deref().map(|v| filter(v, &keep).into()),
            snow_depth: self.snow_depth.as_deref().map(|v| filter(v, &keep).into()),
            instantaneous: self.instantaneous,
        }
    }
}

fn irradiance_in_range(value: f64) -> bool {
    (0.0..=MAX_IRRADIANCE).contains(&value)
}

fn validate_site(meta: &SiteMeta, origin: &Origin) -> Result<(), WeatherError> {
    for (value, field, low, high, what) in [
        (meta.lat, Field::Latitude, -90.0, 90.0, "latitude"),
        (meta.lon, Field::Longitude, -180.0, 180.0, "longitude"),
        (meta.tz, Field::TimeZone, -15.0, 15.0, "time zone"),
    ] {
        if !(low..=high).contains(&value) {
            return Err(origin.meta_error(
                field,
                format!("{what} must be between {low} and {high}, got {value}"),
            ));
        }
    }
    Ok(())
}

fn validate_lengths<C: Column>(
    columns: &WeatherColumns<C>,
    records: usize,
    origin: &Origin,
) -> Result<(), WeatherError> {
    let lengths = [
        (columns.month.len(), Field::Month),
        (columns.day.len(), Field::Day),
        (columns.hour.len(), Field::Hour),
        (
            columns.minute.as_ref().map_or(records, Vec::len),
            Field::Minute,
        ),
        (columns.gh.len(), Field::Gh),
        (columns.dn.len(), Field::Dn),
        (columns.df.len(), Field::Df),
        (columns.tdry.len(), Field::Tdry),
        (columns.wspd.len(), Field::Wspd),
        (
            columns.pressure.as_ref().map_or(records, |c| c.len()),
            Field::Pressure,
        ),
        (
            columns.albedo.as_ref().map_or(records, |c| c.len()),
            Field::Albedo,
        ),
        (
            columns.snow_depth.as_ref().map_or(records, |c| c.len()),
            Field::SnowDepth,
        ),
    ];
    for (length, field) in lengths {
        if length != records {
            return Err(WeatherError::new(
                &origin.file,
                None,
                Some(origin.column_name(field)),
                format!(
                    "has {length} values but '{}' has {records}",
                    origin.column_name(Field::Year)
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses sub-hourly data at the first record that falls in the same hour as the one before it.
fn validate_one_record_per_hour<C: Column>(columns: &WeatherColumns<C>, origin: &Origin) -> Result<(), WeatherError> {
    let same_hour = |i: usize| {
        columns.month[i] == columns.month[i - 1] && columns.day[i] == columns.day[i - 1] && columns.hour[i] == columns.hour[i - 1]
    };
    match (1..columns.month.len()).find(|&i| same_hour(i)) {
        Some(record) => {
            let field = if columns.minute.is_some() { Field::Minute } else { Field::Hour };
            Err(origin.record_error(
                record,
                field,
                format!(
                    "sub-hourly data is not supported: a second record in hour {} of {}/{}; the PVWatts v5 engine needs one \
                     record per hour (8760, or 8784 with February 29)",
                    columns.hour[record], columns.month[record], columns.day[record]
                ),
            ))
        }
        None => Ok(()),
    }
}

/// Refuses a year that is not 8760 or 8784 records, naming the last record (where the data stop).
fn validate_record_count(records: usize, origin: &Origin) -> Result<(), WeatherError> {
    if records == HOURS_PER_YEAR || records == HOURS_PER_LEAP_YEAR {
        return Ok(());
    }
    let message = format!("expected one year of hourly records (8760, or 8784 with February 29), found {records}: the data stop here");
    if records == 0 {
        return Err(origin.file_error(message));
    }
    Err(origin.record_error(records - 1, Field::Hour, message))
}

fn validate_calendar(
    month: &[u8],
    day: &[u8],
    hour: &[u8],
    minute: &[u8],
    origin: &Origin,
) -> Result<(), WeatherError> {
    let leap = month.len() == HOURS_PER_LEAP_YEAR;
    for record in 0..month.len() {
        let (expected_month, expected_day) = month_day_of_index(record / 24, leap);
        let expected_hour = (record % 24) as u8;
        if minute[record] > 59 {
            return Err(origin.record_error(
                record,
                Field::Minute,
                format!("minute must be 0-59, got {}", minute[record]),
            ));
        }
        if record > 0
            && (month[record], day[record], hour[record])
                == (month[record - 1], day[record - 1], hour[record - 1])
        {
            return Err(origin.record_error(
                record,
                Field::Hour,
                format!(
                    "sub-hourly data is not supported: a second record for {}/{} hour {}; the PVWatts v5 engine \
                     needs one record per hour",
                    month[record], day[record], hour[record]
                ),
            ));
        }
        let mismatch = if month[record] != expected_month {
            Some(Field::Month)
        } else if day[record] != expected_day {
            Some(Field::Day)
        } else if hour[record] != expected_hour {
            Some(Field::Hour)
        } else {
            None
        };
        if let Some(field) = mismatch {
            let leap_note = if leap { "366-day year" } else { "365-day year" };
            return Err(origin.record_error(
                record,
                field,
                format!(
                    "expected {expected_month}/{expected_day} hour {expected_hour} but found {}/{} hour {} \
                     (records must be consecutive hours of a {leap_note} starting January 1 hour 0)",
                    month[record], day[record], hour[record]
                ),
            ));
        }
    }
    Ok(())
}

fn validate_values(
    values: &[f64],
    field: Field,
    origin: &Origin,
    is_valid: impl Fn(f64) -> bool,
    expected: &str,
) -> Result<(), WeatherError> {
    match values.iter().position(|&v| !is_valid(v)) {
        Some(record) => Err(origin.record_error(
            record,
            field,
            format!("expected {expected}, got {}", values[record]),
        )),
        None => Ok(()),
    }
}

/// Weather file formats recognised by `parse_weather`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Tmy2,
    Tmy3,
    HeaderCsv,
}

/// Read and parse a weather file; the format is detected from the content (and the extension
/// for TMY2). See `parse_weather`.
pub fn read_weather_file(path: &Path) -> Result<Weather, WeatherError> {
    let name = path.display().to_string();
    let bytes = crate::files::read_regular_file(path, crate::limits::MAX_WEATHER_FILE_BYTES)
        .map_err(|message| WeatherError::new(&name, None, None, message))?;
    parse_weather(&bytes, &name)
}

/// Parse weather file content: TMY2 (`.tm2`), TMY3 CSV, SAM CSV or the climate-download CSV
/// (three header rows: metadata names, metadata values, column names). `name_for_errors` is used
/// in error messages and its extension helps to recognise TMY2.
pub fn parse_weather(bytes: &[u8], name_for_errors: &str) -> Result<Weather, WeatherError> {
    let content = text::decode(bytes);
    let lines: Vec<&str> = content.lines().collect();
    match detect_format(&lines, name_for_errors)? {
        Format::Tmy2 => tmy2::parse(&lines, name_for_errors),
        Format::Tmy3 => tmy3::parse(&lines, name_for_errors),
        Format::HeaderCsv => csv::parse(&lines, name_for_errors),
    }
}

fn detect_format(lines: &[&str], name: &str) -> Result<Format, WeatherError> {
    let extension = Path::new(name)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let first = lines.first().copied().unwrap_or("");
    let second = lines.get(1).copied().unwrap_or("");
    if extension == "epw" || first.starts_with("LOCATION,") {
        return Err(WeatherError::new(
            name,
            Some(1),
            None,
            "EnergyPlus (EPW) weather files are not supported",
        ));
    }
    if extension == "tm2" || extension == "tmy2" || tmy2::looks_like_header(first) {
        return Ok(Format::Tmy2);
    }
    let first_fields = text::split_csv(first).len();
    let second_fields = text::split_csv(second);
    let tmy3_labels = second_fields
        .first()
        .is_some_and(|f| f.to_ascii_lowercase().starts_with("date"));
    if first_fields == 7 && (matches!(second_fields.len(), 68 | 71) || tmy3_labels) {
        return Ok(Format::Tmy3);
    }
    if first.contains(',') {
        return Ok(Format::HeaderCsv);
    }
    Err(WeatherError::new(
        name,
        Some(1),
        None,
        "unrecognised weather file format: expected TMY2, TMY3, SAM CSV or climate-download CSV",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pvwatts::test_support::{csv_text, site, year_columns};

    /// The error of a result that must fail (without printing a whole weather year otherwise).
    fn error_of(result: Result<Weather, WeatherError>) -> WeatherError {
        match result {
            Ok(_) => panic!("expected a weather error"),
            Err(error) => error,
        }
    }

    #[test]
    fn hourly_columns_without_minutes_are_hour_averages() {
        let weather = Weather::from_columns(site(), year_columns(false)).unwrap();
        assert_eq!(weather.len(), 8760);
        assert!(!weather.instantaneous);
        assert!(weather.minute.iter().all(|&m| m == 30));
        assert!(!weather.has_leap_day());
    }

    #[test]
    fn leap_year_with_february_29_is_accepted_and_can_drop_it() {
        let weather = Weather::from_columns(site(), year_columns(true)).unwrap();
        assert!(weather.has_leap_day());
        let trimmed = weather.without_leap_day();
        assert_eq!(trimmed.len(), 8760);
        assert!(!trimmed
            .month
            .iter()
            .zip(&trimmed.day)
            .any(|(&m, &d)| m == 2 && d == 29));
        assert_eq!(trimmed.dn[59 * 24 + 12], weather.dn[60 * 24 + 12]);
    }

    #[test]
    fn wrong_lengths_and_counts_are_rejected() {
        let mut columns = year_columns(false);
        columns.dn.pop();
        let error = error_of(Weather::from_columns(site(), columns));
        assert_eq!(
            error.to_string(),
            "<columns>: column 'dn': has 8759 values but 'year' has 8760"
        );

        let mut columns = year_columns(false);
        for field in [
            &mut columns.dn,
            &mut columns.df,
            &mut columns.gh,
            &mut columns.tdry,
            &mut columns.wspd,
        ] {
            field.truncate(8000);
        }
        for field in [&mut columns.month, &mut columns.day, &mut columns.hour] {
            field.truncate(8000);
        }
        columns.year.truncate(8000);
        let error = error_of(Weather::from_columns(site(), columns));
        assert!(
            error
                .message
                .contains("expected one year of hourly records"),
            "{error}"
        );
    }

    #[test]
    fn sub_hourly_data_is_rejected() {
        let hourly = year_columns(false);
        let mut columns: WeatherColumns = WeatherColumns {
            minute: Some(Vec::new()),
            ..Default::default()
        };
        for record in 0..hourly.year.len() {
            for minute in [0u8, 30] {
                columns.year.push(hourly.year[record]);
                columns.month.push(hourly.month[record]);
                columns.day.push(hourly.day[record]);
                columns.hour.push(hourly.hour[record]);
                columns.minute.as_mut().unwrap().push(minute);
                columns.gh.push(hourly.gh[record]);
                columns.dn.push(hourly.dn[record]);
                columns.df.push(hourly.df[record]);
                columns.tdry.push(hourly.tdry[record]);
                columns.wspd.push(hourly.wspd[record]);
            }
        }
        let error = error_of(Weather::from_columns(site(), columns));
        assert!(error.message.starts_with("sub-hourly data is not supported: a second record in hour 0 of 1/1"), "{error}");
        assert_eq!((error.line, error.column.as_deref()), (Some(2), Some("minute")));
    }

    #[test]
    fn out_of_sequence_and_out_of_range_values_name_record_and_column() {
        let mut columns = year_columns(false);
        columns.day[30] = 3;
        let error = error_of(Weather::from_columns(site(), columns));
        assert_eq!(
            (error.line, error.column.as_deref()),
            (Some(31), Some("day"))
        );
        assert!(
            error
                .message
                .starts_with("expected 1/2 hour 6 but found 1/3 hour 6"),
            "{error}"
        );

        let mut columns = year_columns(false);
        columns.dn[100] = -999.0;
        let error = error_of(Weather::from_columns(site(), columns));
        assert_eq!(
            error.to_string(),
            "<columns>:101: column 'dn': expected a value between 0 and 1500 W/m2, got -999"
        );

        let mut meta = site();
        meta.lat = 95.0;
        let error = error_of(Weather::from_columns(meta, year_columns(false)));
        assert_eq!(
            error.to_string(),
            "<columns>: column 'lat': latitude must be between -90 and 90, got 95"
        );
    }

    #[test]
    fn february_29_in_a_365_day_year_is_out_of_sequence() {
        let mut columns = year_columns(false);
        for record in 59 * 24..60 * 24 {
            columns.month[record] = 2;
            columns.day[record] = 29;
        }
        let error = error_of(Weather::from_columns(site(), columns));
        assert_eq!(error.column.as_deref(), Some("month"));
    }

    const NSRDB_NAMES: &str = "Source,Location ID,City,State,Country,Latitude,Longitude,Time Zone,Elevation,Local Time Zone";
    const NSRDB_VALUES: &str = "NSRDB,149190,-,-,-,39.74,-105.18,-7,1829,-7";

    #[test]
    fn sam_csv_with_minutes_is_instantaneous_and_rounded_to_f32() {
        let text = csv_text(
            NSRDB_NAMES,
            NSRDB_VALUES,
            "Year,Month,Day,Hour,Minute,GHI,DNI,DHI,Temperature,Wind Speed,Pressure",
            |i, c| {
                format!(
                    "{},{},{},{},30,{},{},{},{},{},820.1",
                    c.year[i],
                    c.month[i],
                    c.day[i],
                    c.hour[i],
                    c.gh[i],
                    c.dn[i],
                    c.df[i],
                    c.tdry[i],
                    c.wspd[i]
                )
            },
        );
        let weather = parse_weather(text.as_bytes(), "site.csv").unwrap();
        assert!(weather.instantaneous);
        assert_eq!(weather.meta.location_id, "149190");
        assert_eq!(weather.meta.source, "NSRDB");
        assert_eq!(weather.meta.lat, f64::from(39.74f32));
        assert_eq!(weather.pressure.as_ref().unwrap()[0], f64::from(820.1f32));
        let columns = year_columns(false);
        assert_eq!(weather.tdry[12], f64::from(columns.tdry[12] as f32));
    }

    #[test]
    fn sam_csv_without_minutes_uses_the_hour_average_convention_and_hours_1_to_24() {
        let text = csv_text(
            "Latitude,Longitude,Time Zone",
            "39.74,-105.18,-7",
            "Month,Day,Hour,GHI,DNI,DHI,Tdry,Wspd",
            |i, c| {
                format!(
                    "{},{},{},{},{},{},{},{}",
                    c.month[i],
                    c.day[i],
                    c.hour[i] + 1,
                    c.gh[i],
                    c.dn[i],
                    c.df[i],
                    c.tdry[i],
                    c.wspd[i]
                )
            },
        );
        let weather = parse_weather(text.as_bytes(), "sam.csv").unwrap();
        assert!(!weather.instantaneous);
        assert_eq!(weather.hour[0], 0);
        assert_eq!(weather.year[0], 1900);
        assert!(weather.meta.elevation.is_nan());
    }

    #[test]
    fn climate_download_csv_columns_are_recognised() {
        let names = "Source,Location ID,City,County,State,Country,Offshore,EEZ,Latitude,Longitude,Time Zone,Elevation,\
                     Local Time Zone,GHI Units,DNI Units,DHI Units,Temperature Units,Wind Speed Units,Version";
        let values = "NCDB,80,-,-,-,b'Canada',0,-,48.75,-123.0,0,50,-8,w/m2,w/m2,w/m2,c,m/s,2.0.0";
        let columns = "Year,Month,Day,Hour,Minute,Pressure,DHI,DNI,GHI,relative humidity at 2m (%),\
                       air temperature at 2m (Celsius),wind direction at 10m (degrees),wind speed at 100m (m/s),\
                       wind speed at 10m (m/s)";
        let text = csv_text(names, values, columns, |i, c| {
            format!(
                "{},{},{},{},0,101325,{},{},{},50,{},180,9.5,{}",
                c.year[i],
                c.month[i],
                c.day[i],
                c.hour[i],
                c.df[i],
                c.dn[i],
                c.gh[i],
                c.tdry[i],
                c.wspd[i]
            )
        });
        let weather = parse_weather(text.as_bytes(), "climate.csv").unwrap();
        assert_eq!(weather.meta.tz, 0.0);
        assert_eq!(weather.meta.country, "Canada");
        assert_eq!(weather.wspd[3], year_columns(false).wspd[3]);
        assert_eq!(weather.pressure.as_ref().unwrap()[0], 1013.25);

        let short = "Year,Month,Day,Hour,Minute,ghi,dni,dhi,temperature_2m,windspeed_100m,windspeed_10m,pressure_0m";
        let text = csv_text(names, values, short, |i, c| {
            format!(
                "{},{},{},{},0,{},{},{},{},9.5,{},850.0",
                c.year[i],
                c.month[i],
                c.day[i],
                c.hour[i],
                c.gh[i],
                c.dn[i],
                c.df[i],
                c.tdry[i],
                c.wspd[i]
            )
        });
        let weather = parse_weather(text.as_bytes(), "climate.csv").unwrap();
        assert_eq!(weather.wspd[3], year_columns(false).wspd[3]);
        assert_eq!(weather.pressure.as_ref().unwrap()[0], 850.0);
    }

    #[test]
    fn csv_errors_name_file_line_and_column() {
        let text = csv_text(
            NSRDB_NAMES,
            NSRDB_VALUES,
            "Year,Month,Day,Hour,Minute,GHI,DNI,DHI,Temperature,Wind Speed",
            |i, c| {
                let ghi = if i == 8 {
                    "abc".to_string()
                } else {
                    c.gh[i].to_string()
                };
                format!(
                    "{},{},{},{},30,{ghi},{},{},{},{}",
                    c.year[i],
                    c.month[i],
                    c.day[i],
                    c.hour[i],
                    c.dn[i],
                    c.df[i],
                    c.tdry[i],
                    c.wspd[i]
                )
            },
        );
        let error = error_of(parse_weather(text.as_bytes(), "file.csv"));
        assert_eq!(
            error.to_string(),
            "file.csv:12: column 'GHI': expected a number, got 'abc'"
        );

        let text = csv_text(
            "Latitude,Longitude",
            "39.7,-105.2",
            "Month,Day,Hour,DNI,DHI,Temperature,Wind Speed",
            |_, _| String::new(),
        );
        let error = error_of(parse_weather(text.as_bytes(), "nozone.csv"));
        assert_eq!(error.to_string(), "nozone.csv:1: time zone is required in the metadata header (row 1 names, row 2 values)");

        let text = csv_text(
            NSRDB_NAMES,
            NSRDB_VALUES,
            "Year,Month,Day,Hour,Minute,GHI,DHI,Temperature,Wind Speed",
            |_, _| String::new(),
        );
        let error = error_of(parse_weather(text.as_bytes(), "nodni.csv"));
        assert_eq!(
            error.to_string(),
            "nodni.csv:3: no DNI column found among the column names in row 3"
        );
    }

    #[test]
    fn epw_and_unknown_formats_are_rejected() {
        let error = error_of(parse_weather(
            b"LOCATION,Denver,CO,USA,TMY3,724666,39.74,-105.18,-7.0,1829.0\n",
            "denver.epw",
        ));
        assert!(error.message.contains("EPW"), "{error}");
        let error = error_of(parse_weather(b"just some text\n", "notes.txt"));
        assert!(
            error
                .message
                .starts_with("unrecognised weather file format"),
            "{error}"
        );
    }
}

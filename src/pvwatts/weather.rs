//! Weather year for the PVWatts engine: the `Weather` container, its validation rules, and the
//! readers for TMY2, TMY3, EPW, SAM CSV, NSRDB and the climate-download CSV.
//!
//! Rules (shared by every input route):
//! * One calendar year of records at a fixed step of 60/k minutes (k = 1, 2, 3, 4, 5, 6, 10, 12,
//!   15, 20, 30 or 60 records per hour) in calendar order from 1 January 00:00: 8760·k records,
//!   or 8784·k when 29 February is present. The first record lies within the first step; each
//!   record's year is its own (typical years mix years, and a year moved to local time keeps the
//!   real year of the hours that wrapped around). A leap year may also lack one day's worth of
//!   records that overlaps 29 February: a source that left out 29 February in UTC, seen in a local
//!   time zone, lacks 28 February evening to 29 February afternoon. Leap-day records are kept
//!   and simulated; monthly sums follow the records' months (February then has 29 days).
//!   `Weather::without_leap_day` gives the 365-day year SSC itself simulates (SSC drops
//!   February 29 when reading files).
//! * Data without a minute column (TMY2, TMY3, SAM CSV without `Minute`) are hour averages
//!   labelled hh:30; the sunrise/sunset-hour rule of PVWatts applies, and they must be hourly
//!   (SSC's rule). Data with a minute column are instantaneous values at the stamped minute
//!   (SSC's rule for such files; minutes may be fractional, such as 7.5, and EPW's end-of-hour
//!   minute 60 is kept as written, as SSC keeps it).
//! * File readers round every weather value through `f32`, as SSC stores file columns as
//!   `float`; `Weather::from_columns` keeps the values it is given.

mod climate;
pub use climate::weather_from_climate_table;
mod csv;
pub use csv::metadata_keys;
mod epw;
mod table;
mod text;
mod tmy2;
mod tmy3;

use super::calendar::{days_in_month, is_leap_year, HOURS_PER_LEAP_YEAR, HOURS_PER_YEAR};
use crate::formats::calendar::{days_from_civil, NOMINAL_LEAP_YEAR, NOMINAL_YEAR};
use crate::limits::{MAX_WEATHER_FILE_BYTES, MAX_WEATHER_FILE_LINES};
pub use table::{check_table_rows, column_field_name, numeric_column, weather_from_columns, NamedColumn};
use std::fmt;
use std::path::Path;

/// Largest beam (DNI) or diffuse (DHI) irradiance accepted, W/m² (SSC `irrad::check`); global
/// (GHI) is held to the same bound.
pub const MAX_IRRADIANCE: f64 = 1500.0;
/// Plausible air temperature, °C: beyond the records measured on Earth (−89.2 °C, 56.7 °C) with a
/// margin, so a real year always passes and one in tenths of a degree (TMY2's raw 339 for
/// 33.9 °C) or in kelvin does not.
pub const AIR_TEMPERATURE_RANGE: (f64, f64) = (-100.0, 70.0);
/// Plausible wind speed, m/s: an hour's mean above this is in tenths or knots, not m/s.
pub const WIND_SPEED_RANGE: (f64, f64) = (0.0, 75.0);
/// Plausible air pressure, mbar (after the Pa/kPa conversions): below Everest's summit (about
/// 330 mbar) and above the highest sea-level pressure measured (1084 mbar), with a margin.
pub const AIR_PRESSURE_RANGE: (f64, f64) = (300.0, 1100.0);

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

/// fields are public for reading (changing them bypasses the validation); it dereferences to its
/// columns, so `weather.dn` reads the direct normal irradiance.
#[derive(Clone, Debug, PartialEq)]
pub struct Weather {
    /// Site description.
    pub meta: SiteMeta,
    /// The validated columns, as Arrow buffers; `minute` is always present (30 for hour
    /// averages).
    pub columns: WeatherColumns<Series, Vec<f64>>,
    /// True when the time stamps are instants (the data had a minute column); false for hour
    /// averages labelled hh:30, which get the sunrise/sunset-hour rule.
    pub instantaneous: bool,
    /// Records per hour (1 for hourly data; divides 60).
    pub steps_per_hour: u32,
}

impl std::ops::Deref for Weather {
    type Target = WeatherColumns<Series, Vec<f64>>;

    fn deref(&self) -> &Self::Target {
        &self.columns
    }
}

/// A weather year's columns: the input of `Weather::from_columns` (`C` = `Vec<f64>` from readers
/// and generated data, or `Series` for Arrow buffers used in place; `M` = `Option<Vec<f64>>`) and
/// the content of a validated `Weather` (`C` = `Series`, `M` = `Vec<f64>`). All vectors have the
/// same length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WeatherColumns<C = Vec<f64>, M = Option<Vec<f64>>> {
    /// Calendar year of each record (TMY files mix years by month).
    pub year: Vec<i32>,
    /// Month, 1–12.
    pub month: Vec<u8>,
    /// Day of month, 1–31.
    pub day: Vec<u8>,
    /// Hour of day, 0–23, local standard time of `meta.tz`.
    pub hour: Vec<u8>,
    /// Minute of the time stamp, 0–60, may be fractional (EPW files end an hour at minute 60).
    /// As input, `None` means hour averages labelled hh:30; a `Weather` holds 30 for them.
    pub minute: M,
    /// Global horizontal irradiance, W/m² (reported, not used by the model).
    pub gh: C,
    /// Direct normal irradiance, W/m².
    pub dn: C,
    /// Diffuse horizontal irradiance, W/m².
    pub df: C,
    /// Dry-bulb temperature, °C.
    pub tdry: C,
    /// Wind speed, m/s (measured at about 10 m).
    pub wspd: C,
    /// Air pressure, mbar (used for refraction only; values ≤ 800 or NaN mean 1013.25).
    pub pressure: Option<C>,
    /// Ground albedo, 0–1 (values outside (0, 1) or NaN mean 0.2).
    pub albedo: Option<C>,
    /// Snow depth, cm (read for completeness; PVWatts v5 has no snow model).
    pub snow_depth: Option<C>,
}

impl WeatherColumns {
    /// Empty columns with room for `records` records (without the optional columns).
    pub fn with_capacity(records: usize) -> Self {
        WeatherColumns {
            year: Vec::with_capacity(records),
            month: Vec::with_capacity(records),
            day: Vec::with_capacity(records),
            hour: Vec::with_capacity(records),
            minute: None,
            gh: Vec::with_capacity(records),
            dn: Vec::with_capacity(records),
            df: Vec::with_capacity(records),
            tdry: Vec::with_capacity(records),
            wspd: Vec::with_capacity(records),
            pressure: None,
            albedo: None,
            snow_depth: None,
        }
    }

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

    /// Origin of a named in-memory table (records numbered from 1).
    pub(crate) fn table(name: &str) -> Self {
        Origin {
            file: name.to_string(),
            ..Origin::columns()
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
        validate_plausible_values(&columns, origin)?;
        let instantaneous = columns.minute.is_some();
        let minute = columns.minute.unwrap_or_else(|| vec![30.0; records]);
        let steps_per_hour = validate_time_grid(
            &Stamps {
                year: &columns.year,
                month: &columns.month,
                day: &columns.day,
                hour: &columns.hour,
                minute: &minute,
            },
            instantaneous,
            origin,
        )?;
        Ok(Weather {
            meta,
            columns: WeatherColumns {
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
            },
            instantaneous,
            steps_per_hour,
        })
    }

    /// Length of one record's step, hours.
    pub fn step_hours(&self) -> f64 {
        1.0 / f64::from(self.steps_per_hour)
    }

    /// Hours the year covers (8760 or 8784).
    pub fn hours(&self) -> f64 {
        self.len() as f64 * self.step_hours()
    }

    /// Number of records (8760·k or 8784·k for k records per hour).
    pub fn len(&self) -> usize {
        self.year.len()
    }

    /// Always false for a validated weather year.
    pub fn is_empty(&self) -> bool {
        self.year.is_empty()
    }

    /// True when the year has records on February 29.
    pub fn has_leap_day(&self) -> bool {
        self.month
            .iter()
            .zip(&self.day)
            .any(|(&month, &day)| month == 2 && day == 29)
    }

    /// True when the records form a real time series: their years rise only from 31 December
    /// to 1 January (a single year, or a year that starts in the one before). Typical years mix
    /// the years of their months.
    pub fn is_time_series(&self) -> bool {
        (1..self.len()).all(|i| {
            let (previous, year) = (self.year[i - 1], self.year[i]);
            year == previous
                || (year == previous + 1
                    && (self.month[i - 1], self.day[i - 1]) == (12, 31)
                    && (self.month[i], self.day[i]) == (1, 1))
        })
    }

    /// The start of the interval each record stands for, microseconds since 1970-01-01 UTC: the
    /// stamp itself for instants, the start of the hour for hour averages (labelled hh:30).
    /// A time series keeps each record's year; a typical year is stamped in one year whose
    /// calendar has 29 February exactly when the records do (as pvlib's `coerce_year`), so that
    /// its stamps run through one gap-free year in order: its first record's year when that fits,
    /// otherwise `NOMINAL_YEAR` (1990) or, with 29 February, `NOMINAL_LEAP_YEAR` (2000).
    pub fn interval_starts_utc_us(&self) -> Vec<i64> {
        const MINUTE_US: f64 = 60_000_000.0;
        let nominal_year = if self.is_time_series() {
            None
        } else {
            let leap = self.has_leap_day();
            let first = self.year.first().copied().unwrap_or(NOMINAL_YEAR);
            Some(match (is_leap_year(first) == leap, leap) {
                (true, _) => first,
                (false, true) => NOMINAL_LEAP_YEAR,
                (false, false) => NOMINAL_YEAR,
            })
        };
        let zone_offset_us = (self.meta.tz * 60.0 * MINUTE_US).round() as i64;
        let mut date = None;
        let mut day_start_us = 0;
        (0..self.len())
            .map(|i| {
                let year = nominal_year.unwrap_or(self.year[i]);
                if date != Some((year, self.month[i], self.day[i])) {
                    date = Some((year, self.month[i], self.day[i]));
                    let days = days_from_civil(year, u32::from(self.month[i]), u32::from(self.day[i]));
                    day_start_us = days * 86_400_000_000 - zone_offset_us;
                }
                let minute = if self.instantaneous { self.minute[i] } else { 0.0 };
                day_start_us + ((f64::from(self.hour[i]) * 60.0 + minute) * MINUTE_US).round() as i64
            })
            .collect()
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
            columns: WeatherColumns {
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
            },
            instantaneous: self.instantaneous,
            steps_per_hour: self.steps_per_hour,
        }
    }
}

/// The one plausibility rule for weather values, whatever route they came by (a file, bytes, a
/// table, pvlib's frames): irradiance 0–[`MAX_IRRADIANCE`] W/m² (GHI may be missing), air
/// temperature in [`AIR_TEMPERATURE_RANGE`], wind speed in [`WIND_SPEED_RANGE`], air pressure in
/// [`AIR_PRESSURE_RANGE`] (or missing); albedo and snow depth finite or missing. A value outside
/// is refused naming its record and column: a frame in other units (tenths, kelvin, Pa taken as
/// mbar) must never be read silently.
fn validate_plausible_values<C: Column>(
    columns: &WeatherColumns<C>,
    origin: &Origin,
) -> Result<(), WeatherError> {
    let within = |(low, high): (f64, f64)| move |v: f64| (low..=high).contains(&v);
    let irradiance = format!("a value between 0 and {MAX_IRRADIANCE} W/m2");
    let global_ok = |v: f64| v.is_nan() || within((0.0, MAX_IRRADIANCE))(v);
    validate_values(&columns.gh, Field::Gh, origin, global_ok, &format!("{irradiance} or empty"))?;
    validate_values(&columns.dn, Field::Dn, origin, within((0.0, MAX_IRRADIANCE)), &irradiance)?;
    validate_values(&columns.df, Field::Df, origin, within((0.0, MAX_IRRADIANCE)), &irradiance)?;
    let (low, high) = AIR_TEMPERATURE_RANGE;
    let temperature = format!("an air temperature from {low} to {high} C");
    validate_values(&columns.tdry, Field::Tdry, origin, within(AIR_TEMPERATURE_RANGE), &temperature)?;
    let (low, high) = WIND_SPEED_RANGE;
    let wind = format!("a wind speed from {low} to {high} m/s");
    validate_values(&columns.wspd, Field::Wspd, origin, within(WIND_SPEED_RANGE), &wind)?;
    if let Some(pressure) = &columns.pressure {
        let (low, high) = AIR_PRESSURE_RANGE;
        let expected = format!("an air pressure from {low} to {high} mbar or empty");
        let pressure_ok = |v: f64| v.is_nan() || within(AIR_PRESSURE_RANGE)(v);
        validate_values(pressure, Field::Pressure, origin, pressure_ok, &expected)?;
    }
    for (values, field) in [(&columns.albedo, Field::Albedo), (&columns.snow_depth, Field::SnowDepth)] {
        if let Some(values) = values {
            validate_values(values, field, origin, |v| !v.is_infinite(), "a finite number or empty")?;
        }
    }
    Ok(())
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

/// The time stamps of the records, as columns.
struct Stamps<'a> {
    year: &'a [i32],
    month: &'a [u8],
    day: &'a [u8],
    hour: &'a [u8],
    minute: &'a [f64],
}

/// Minutes in a day, and in the 366-day calendar the time grid is laid on.
const MINUTES_PER_DAY: f64 = 1440.0;
const CALENDAR_MINUTES: f64 = 366.0 * MINUTES_PER_DAY;
/// Start of 29 February on the 366-day calendar, minutes.
const FEBRUARY_29_START: f64 = 59.0 * MINUTES_PER_DAY;

/// Days before each month on the 366-day calendar (29 February included).
const DAYS_BEFORE_MONTH_366: [u16; 12] = [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335];

impl Stamps<'_> {
    /// Position of a record on the 366-day calendar, minutes from 1 January 00:00 (the year is
    /// not part of it: typical years mix years).
    fn position(&self, record: usize) -> f64 {
        let day_of_year = f64::from(DAYS_BEFORE_MONTH_366[usize::from(self.month[record] - 1)])
            + f64::from(self.day[record] - 1);
        day_of_year * MINUTES_PER_DAY + f64::from(self.hour[record]) * 60.0 + self.minute[record]
    }

    /// "m/d hh:mm" of record `record`.
    fn describe(&self, record: usize) -> String {
        describe_stamp(self.month[record], self.day[record], self.hour[record], self.minute[record])
    }
}

/// "m/d hh:mm" (fractional minutes as written, e.g. "1/1 00:07.5").
fn describe_stamp(month: u8, day: u8, hour: u8, minute: f64) -> String {
    if minute.fract() == 0.0 {
        format!("{month}/{day} {hour:02}:{:02}", minute as u32)
    } else {
        format!("{month}/{day} {hour:02}:{minute:04.1}")
    }
}

/// (month, day, hour, minute) of a position on the 366-day calendar (minutes from 1 January
/// 00:00; positions past the end of the year stay on 31 December).
fn stamp_of_position(position: f64) -> (u8, u8, u8, f64) {
    let day_index = (position / MINUTES_PER_DAY).floor().clamp(0.0, 365.0) as u16;
    let month = DAYS_BEFORE_MONTH_366
        .iter()
        .rposition(|&before| before <= day_index)
        .map_or(1, |m| m + 1);
    let day = day_index - DAYS_BEFORE_MONTH_366[month - 1] + 1;
    let within_day = position - f64::from(day_index) * MINUTES_PER_DAY;
    let hour = (within_day / 60.0).floor();
    (month as u8, day as u8, hour as u8, within_day - hour * 60.0)
}

/// "m/d hh:mm" of a position on the 366-day calendar.
fn describe_position(position: f64) -> String {
    let (month, day, hour, minute) = stamp_of_position(position);
    describe_stamp(month, day, hour, minute)
}

/// Checks that the records are one calendar year on a fixed time grid (see the module rules)
/// and returns the number of records per hour. Errors name the first record that breaks a rule.
///
/// Positions on the 366-day calendar are taken modulo its length, so a year may start at any
/// record (a UTC year seen in local time starts on 31 December of the year before and ends
/// before the last local hours): from each record to the next is one step, or one step and a
/// day where the data leave out a day overlapping 29 February (exactly once when there are
/// 8760 records per record-per-hour, never when there are 8784).
fn validate_time_grid(stamps: &Stamps<'_>, instantaneous: bool, origin: &Origin) -> Result<u32, WeatherError> {
    let records = stamps.month.len();
    validate_stamp_ranges(stamps, origin)?;
    let (steps, with_leap_day) = if records > 0 && records % HOURS_PER_YEAR == 0 {
        (records / HOURS_PER_YEAR, false)
    } else if records > 0 && records % HOURS_PER_LEAP_YEAR == 0 {
        (records / HOURS_PER_LEAP_YEAR, true)
    } else {
        let message = format!(
            "expected one year of records (8760, or 8784 with February 29, per record per hour; \
             e.g. 17520 for half-hourly data), found {records}: the data stop here"
        );
        return Err(match records {
            0 => origin.file_error(message),
            _ => origin.record_error(records - 1, Field::Hour, message),
        });
    };
    if steps > 60 || 60 % steps != 0 {
        return Err(origin.file_error(format!(
            "{records} records make {steps} records per hour, which is not a whole number of minutes \
             per record (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30 or 60 records per hour are supported)"
        )));
    }
    if steps > 1 && !instantaneous {
        return Err(origin.record_error(
            1,
            Field::Hour,
            format!(
                "{steps} records per hour without a minute column: sub-hourly data needs the minute of \
                 each record (instants), as in SSC"
            ),
        ));
    }
    let step = 60.0 / steps as f64;
    let mut skipped_day = false;
    for record in 1..records {
        let previous = stamps.position(record - 1);
        let expected = (previous + step) % CALENDAR_MINUTES;
        let advance = (stamps.position(record) - previous).rem_euclid(CALENDAR_MINUTES);
        if advance == step {
            continue;
        }
        // The day left out must overlap 29 February: a source without 29 February, in any zone.
        let missing_overlaps_february_29 =
            expected < FEBRUARY_29_START + MINUTES_PER_DAY && expected + MINUTES_PER_DAY > FEBRUARY_29_START;
        let may_skip = !with_leap_day && !skipped_day && missing_overlaps_february_29;
        if may_skip && advance == step + MINUTES_PER_DAY {
            skipped_day = true;
            continue;
        }
        let alternative = if may_skip {
            format!(" (or {}, leaving out a day for 29 February)", describe_position(expected + MINUTES_PER_DAY))
        } else {
            String::new()
        };
        return Err(origin.record_error(
            record,
            first_differing_field(stamps, record, expected),
            format!(
                "expected {}{alternative} after {} but found {} (records must follow each other every \
                 {step} minutes through one year)",
                describe_position(expected),
                stamps.describe(record - 1),
                stamps.describe(record),
            ),
        ));
    }
    if !with_leap_day && !skipped_day {
        return Err(origin.record_error(
            records - 1,
            Field::Month,
            format!(
                "{records} records make a 365-day year, which must leave out 29 February, but they hold \
                 it: a year with 29 February needs {} records",
                HOURS_PER_LEAP_YEAR * steps
            ),
        ));
    }
    Ok(steps as u32)
}

/// Month, day, hour and minute in range, and 29 February only in leap years.
fn validate_stamp_ranges(stamps: &Stamps<'_>, origin: &Origin) -> Result<(), WeatherError> {
    for record in 0..stamps.month.len() {
        let (month, day, hour, minute) =
            (stamps.month[record], stamps.day[record], stamps.hour[record], stamps.minute[record]);
        let problem = if !(1..=12).contains(&month) {
            Some((Field::Month, format!("month must be 1-12, got {month}")))
        } else if day == 0 || day > days_in_month(month, true) {
            Some((Field::Day, format!("day {day} does not exist in month {month}")))
        } else if month == 2 && day == 29 && !is_leap_year(stamps.year[record]) {
            Some((Field::Day, format!("29 February {} does not exist ({} is not a leap year)", stamps.year[record], stamps.year[record])))
        } else if hour > 23 {
            Some((Field::Hour, format!("hour must be 0-23 (or 1-24 in files), got {hour}")))
        } else if !(0.0..=60.0).contains(&minute) {
            Some((Field::Minute, format!("minute must be between 0 and 60, got {minute}")))
        } else {
            None
        };
        if let Some((field, message)) = problem {
            return Err(origin.record_error(record, field, message));
        }
    }
    Ok(())
}

/// The first of month, day, hour and minute in which record `record` differs from the stamp at
/// `expected` (a calendar position), for naming the column in an error.
fn first_differing_field(stamps: &Stamps<'_>, record: usize, expected: f64) -> Field {
    let (month, day, hour, _) = stamp_of_position(expected);
    if stamps.month[record] != month {
        Field::Month
    } else if stamps.day[record] != day {
        Field::Day
    } else if stamps.hour[record] != hour {
        Field::Hour
    } else {
        Field::Minute
    }
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

/// Lines of a file the readers look at before its data rows (EPW has eight header lines).
const HEAD_LINES: usize = 9;

/// Weather file formats recognised by `parse_weather`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Tmy2,
    Tmy3,
    Epw,
    HeaderCsv,
}

/// Site facts a caller gives when reading a file: they fill what the file lacks (a CSV saved
/// without its metadata rows), and where the file has its own, they must agree with it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SiteHints {
    /// Latitude, degrees north.
    pub lat: Option<f64>,
    /// Longitude, degrees east.
    pub lon: Option<f64>,
    /// Time zone of the time stamps, hours east of UTC.
    pub tz: Option<f64>,
    /// Elevation, m.
    pub elevation: Option<f64>,
}

impl SiteHints {
    /// An error naming the first fact that differs from the file's own (file values are stored
    /// as `f32`, so a hint that rounds to the same `f32` agrees).
    fn check_against(&self, meta: &SiteMeta, file: &str) -> Result<(), WeatherError> {
        for (hint, value, name) in [
            (self.lat, meta.lat, "lat"),
            (self.lon, meta.lon, "lon"),
            (self.tz, meta.tz, "tz"),
            (self.elevation, meta.elevation, "elevation"),
        ] {
            if let Some(hint) = hint {
                if !value.is_nan() && hint != value && f64::from(hint as f32) != value {
                    return Err(WeatherError::new(
                        file,
                        None,
                        None,
                        format!("{name}={hint} was given, but the file says {value}"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Read and parse a weather file; the format is detected from the content (and the extension
/// for TMY2 and EPW). See `parse_weather_with`.
pub fn read_weather_file(path: &Path, hints: &SiteHints) -> Result<Weather, WeatherError> {
    let name = path.display().to_string();
    let bytes = crate::files::read_regular_file(path, crate::limits::MAX_WEATHER_FILE_BYTES)
        .map_err(|message| WeatherError::new(&name, None, None, message))?;
    parse_weather_with(&bytes, &name, hints)
}

/// Parse weather file content (see `parse_weather_with`) that carries its own site.
pub fn parse_weather(bytes: &[u8], name_for_errors: &str) -> Result<Weather, WeatherError> {
    parse_weather_with(bytes, name_for_errors, &SiteHints::default())
}

/// Parse weather file content: TMY2 (`.tm2`), TMY3 CSV, EPW, SAM CSV, NSRDB or the
/// climate-download CSV (three header rows: metadata names, metadata values, column names; or
/// the column names alone, with the site from `hints`). `name_for_errors` is used in error
/// messages and its extension helps to recognise TMY2 and EPW. Content larger or longer than
/// a weather file can be is refused before it is decoded (see `check_size`).
pub fn parse_weather_with(
    bytes: &[u8],
    name_for_errors: &str,
    hints: &SiteHints,
) -> Result<Weather, WeatherError> {
    check_size(bytes, name_for_errors)?;
    let content = text::decode(bytes);
    let head: Vec<&str> = content.lines().take(HEAD_LINES).collect();
    let weather = match detect_format(&head, name_for_errors)? {
        Format::Tmy2 => tmy2::parse(&content, &head, name_for_errors),
        Format::Tmy3 => tmy3::parse(&content, &head, name_for_errors),
        Format::Epw => epw::parse(&content, &head, name_for_errors),
        Format::HeaderCsv => csv::parse(&content, &head, name_for_errors, hints),
    }?;
    hints.check_against(&weather.meta, name_for_errors)?;
    Ok(weather)
}

/// Refuses content of more than [`MAX_WEATHER_FILE_BYTES`] bytes or [`MAX_WEATHER_FILE_LINES`]
/// lines, whatever it came from (a path, bytes), before it is decoded or parsed: parsing keeps
/// every record, so a file of many years used to take memory in proportion to its rows before
/// the record count was checked. With the lines bounded, the readers' columns are too.
fn check_size(bytes: &[u8], name: &str) -> Result<(), WeatherError> {
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_WEATHER_FILE_BYTES {
        return Err(WeatherError::new(
            name,
            None,
            None,
            format!("is larger than {MAX_WEATHER_FILE_BYTES} bytes, the limit for a weather file"),
        ));
    }
    let lines = text::line_count(bytes);
    if lines > MAX_WEATHER_FILE_LINES {
        return Err(WeatherError::new(
            name,
            None,
            None,
            format!(
                "has {lines} lines, more than a weather year can have ({MAX_WEATHER_FILE_LINES}: a leap year of \
                 one-minute records plus headers)"
            ),
        ));
    }
    Ok(())
}

fn detect_format(lines: &[&str], name: &str) -> Result<Format, WeatherError> {
    let extension = Path::new(name)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let first = lines.first().copied().unwrap_or("");
    let second = lines.get(1).copied().unwrap_or("");
    if extension == "epw" || epw::looks_like_header(first) {
        return Ok(Format::Epw);
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
        "unrecognised weather file format: expected TMY2, TMY3, EPW, SAM CSV, NSRDB or climate-download CSV",
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
        assert!(weather.minute.iter().all(|&m| m == 30.0));
        assert_eq!(weather.steps_per_hour, 1);
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
                .starts_with("expected one year of records (8760, or 8784 with February 29"),
            "{error}"
        );
    }

    /// `year_columns(false)` resampled to `per_hour` instants per hour at `offset` minutes into
    /// each step (values repeated).
    fn sub_hourly_columns(per_hour: u32, offset: f64) -> WeatherColumns {
        let hourly = year_columns(false);
        let mut columns: WeatherColumns = WeatherColumns {
            minute: Some(Vec::new()),
            ..Default::default()
        };
        let step = 60.0 / f64::from(per_hour);
        for record in 0..hourly.year.len() {
            for k in 0..per_hour {
                columns.year.push(hourly.year[record]);
                columns.month.push(hourly.month[record]);
                columns.day.push(hourly.day[record]);
                columns.hour.push(hourly.hour[record]);
                columns.minute.as_mut().unwrap().push(offset + step * f64::from(k));
                columns.gh.push(hourly.gh[record]);
                columns.dn.push(hourly.dn[record]);
                columns.df.push(hourly.df[record]);
                columns.tdry.push(hourly.tdry[record]);
                columns.wspd.push(hourly.wspd[record]);
            }
        }
        columns
    }

    #[test]
    fn sub_hourly_instants_are_accepted_with_their_step() {
        for (per_hour, offset) in [(2, 0.0), (4, 7.5), (12, 0.0), (60, 0.0)] {
            let weather = Weather::from_columns(site(), sub_hourly_columns(per_hour, offset)).unwrap();
            assert_eq!(weather.steps_per_hour, per_hour);
            assert_eq!(weather.len(), 8760 * per_hour as usize);
            assert_eq!(weather.hours(), 8760.0);
            assert_eq!(weather.minute[1], offset + 60.0 / f64::from(per_hour));
        }
    }

    #[test]
    fn sub_hourly_hour_averages_and_odd_steps_are_rejected() {
        let mut columns = sub_hourly_columns(2, 0.0);
        columns.minute = None;
        let error = error_of(Weather::from_columns(site(), columns));
        assert!(error.message.starts_with("2 records per hour without a minute column"), "{error}");

        let mut columns = sub_hourly_columns(2, 0.0);
        let minutes = columns.minute.as_mut().unwrap();
        minutes[3] = 0.0;
        let error = error_of(Weather::from_columns(site(), columns));
        assert_eq!((error.line, error.column.as_deref()), (Some(4), Some("minute")));
        assert!(error.message.starts_with("expected 1/1 01:30 after 1/1 01:00 but found 1/1 01:00"), "{error}");
    }

    /// The climate generator's UTC year 2010 at UTC−7, as local standard time: from 31 December
    /// 2009 17:00 to 31 December 2010 16:00, each record with its own year.
    fn rolling_local_year(leap_year_without_february_29_in_utc: bool) -> WeatherColumns {
        let year = if leap_year_without_february_29_in_utc { 2012 } else { 2010 };
        let hourly = year_columns(false);
        let mut columns: WeatherColumns = WeatherColumns {
            minute: Some(Vec::new()),
            ..Default::default()
        };
        let mut utc_day = 0;
        let (mut month, mut day) = (1u8, 1u8);
        for record in 0..8760 {
            let utc_hour = (record % 24) as i64;
            if record > 0 && utc_hour == 0 {
                utc_day += 1;
                let (m, d) = crate::pvwatts::calendar::month_day_of_index(utc_day, false);
                month = m;
                day = d;
            }
            // Local time is 7 h earlier; the calendar of the local date in a leap year.
            let local = utc_hour - 7;
            let (local_year, local_month, local_day, local_hour) = if local >= 0 {
                (year, month, day, local as u8)
            } else if month == 1 && day == 1 {
                (year - 1, 12, 31, (local + 24) as u8)
            } else if month == 3 && day == 1 && leap_year_without_february_29_in_utc {
                (year, 2, 29, (local + 24) as u8)
            } else {
                let previous_day = if day > 1 { (month, day - 1) } else {
                    let m = month - 1;
                    (m, crate::pvwatts::calendar::days_in_month(m, false))
                };
                (year, previous_day.0, previous_day.1, (local + 24) as u8)
            };
            columns.year.push(local_year);
            columns.month.push(local_month);
            columns.day.push(local_day);
            columns.hour.push(local_hour);
            columns.minute.as_mut().unwrap().push(0.0);
            columns.gh.push(hourly.gh[record]);
            columns.dn.push(hourly.dn[record]);
            columns.df.push(hourly.df[record]);
            columns.tdry.push(hourly.tdry[record]);
            columns.wspd.push(hourly.wspd[record]);
        }
        columns
    }

    #[test]
    fn a_year_may_start_anywhere_and_keep_its_real_years() {
        let weather = Weather::from_columns(site(), rolling_local_year(false)).unwrap();
        assert_eq!((weather.year[0], weather.month[0], weather.day[0], weather.hour[0]), (2009, 12, 31, 17));
        assert_eq!((weather.year[7], weather.month[7], weather.day[7], weather.hour[7]), (2010, 1, 1, 0));
        assert!(!weather.has_leap_day());
    }

    #[test]
    fn a_utc_year_without_february_29_is_a_valid_local_year() {
        let weather = Weather::from_columns(site(), rolling_local_year(true)).unwrap();
        assert_eq!(weather.len(), 8760);
        assert!(weather.has_leap_day());
        let february_29 = (0..8760).filter(|&i| weather.month[i] == 2 && weather.day[i] == 29).count();
        assert_eq!(february_29, 7);
    }

    #[test]
    fn a_second_missing_day_or_one_away_from_february_is_rejected() {
        let mut columns = year_columns(false);
        for record in 100 * 24..101 * 24 {
            columns.day[record] += 1;
        }
        let error = error_of(Weather::from_columns(site(), columns));
        assert_eq!(error.column.as_deref(), Some("day"));
        assert!(error.message.contains("expected 4/11 00:30 after 4/10 23:30 but found 4/12 00:30"), "{error}");
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
                .starts_with("expected 1/2 06:30 after 1/2 05:30 but found 1/3 06:30"),
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
    fn february_29_needs_a_leap_year_and_a_366_day_year() {
        let mut columns = year_columns(false);
        for record in 59 * 24..60 * 24 {
            columns.month[record] = 2;
            columns.day[record] = 29;
        }
        let error = error_of(Weather::from_columns(site(), columns.clone()));
        assert_eq!(error.column.as_deref(), Some("day"));
        assert_eq!(error.message, "29 February 2019 does not exist (2019 is not a leap year)");

        columns.year.iter_mut().for_each(|year| *year = 2020);
        let error = error_of(Weather::from_columns(site(), columns));
        assert!(error.message.starts_with("expected 3/1 00:30 after 2/29 23:30 but found 3/2 00:30"), "{error}");
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
        assert_eq!(
            error.to_string(),
            "nozone.csv:1: time zone is required in the metadata header (row 1 names, row 2 values), or give it \
             when reading the file"
        );

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

    /// An EPW file of `year_columns(false)`: `per_hour` records per hour with EPW's minutes
    /// (hourly files write 60), hours ending 1–24, pressure in Pa, irradiance missing (9999) in
    /// records `missing`.
    fn epw_text(per_hour: u32, missing: &[usize]) -> String {
        let columns = year_columns(false);
        let mut text = String::from("LOCATION,Golden,CO,USA,TMY3,724666,39.74,-105.18,-7.0,1829.0\n");
        for header in ["DESIGN CONDITIONS,0", "TYPICAL/EXTREME PERIODS,0", "GROUND TEMPERATURES,0",
            "HOLIDAYS/DAYLIGHT SAVINGS,No,0,0,0", "COMMENTS 1,test", "COMMENTS 2,test", "DATA PERIODS,1,1,Data,Sunday,1/1,12/31"]
        {
            text.push_str(header);
            text.push('\n');
        }
        let mut record = 0;
        for i in 0..columns.year.len() {
            for k in 1..=per_hour {
                let minute = 60 * k / per_hour;
                let dni = if missing.contains(&record) { "9999".to_string() } else { columns.dn[i].to_string() };
                let tail = vec!["0"; 12].join(",");
                text.push_str(&format!(
                    "{},{},{},{},{minute},A7A7,{},5.0,50,81000,0,0,0,{},{dni},{},0,0,0,0,180,{},0,0,0,0,0,0,0,0,{tail}\n",
                    columns.year[i], columns.month[i], columns.day[i], columns.hour[i] + 1,
                    columns.tdry[i], columns.gh[i], columns.df[i], columns.wspd[i],
                ));
                record += 1;
            }
        }
        text
    }

    #[test]
    fn epw_files_are_read_as_ssc_reads_them() {
        let weather = parse_weather(epw_text(1, &[]).as_bytes(), "golden.epw").unwrap();
        assert!(weather.instantaneous);
        assert_eq!(weather.steps_per_hour, 1);
        assert_eq!((weather.hour[0], weather.minute[0]), (0, 30.0));
        assert_eq!(weather.meta.city, "Golden");
        assert_eq!(weather.meta.lat, f64::from(39.74f32));
        assert_eq!(weather.pressure.as_ref().unwrap()[0], 810.0);

        let half_hourly = parse_weather(epw_text(2, &[]).as_bytes(), "golden_30.epw").unwrap();
        assert_eq!(half_hourly.steps_per_hour, 2);
        assert_eq!((half_hourly.hour[1], half_hourly.minute[1]), (0, 60.0));
        assert_eq!((half_hourly.hour[2], half_hourly.minute[2]), (1, 30.0));
    }

    #[test]
    fn missing_epw_values_are_filled_like_ssc() {
        let columns = year_columns(false);
        let noon = 12;
        let weather = parse_weather(epw_text(1, &[noon, noon + 24, noon + 25, noon + 26]).as_bytes(), "gaps.epw").unwrap();
        let mean = (columns.dn[noon - 1] as f32 + columns.dn[noon + 1] as f32) / 2.0;
        assert_eq!(weather.dn[noon], f64::from(mean));
        let (before, after) = (columns.dn[noon + 23] as f32, columns.dn[noon + 27] as f32);
        let slope = (after - before) / 4.0;
        for step in 1..4 {
            assert_eq!(weather.dn[noon + 23 + step], f64::from(before + slope * step as f32));
        }
    }

    #[test]
    fn a_csv_without_metadata_rows_takes_its_site_from_the_caller() {
        let text = csv_text(
            "Year,Month,Day,Hour,Minute,GHI,DNI,DHI,Temperature,Wind Speed",
            "",
            "",
            |i, c| format!("{},{},{},{},30,{},{},{},{},{}", c.year[i], c.month[i], c.day[i], c.hour[i], c.gh[i], c.dn[i], c.df[i], c.tdry[i], c.wspd[i]),
        )
        .replacen("\n\n\n", "\n", 1);
        let error = error_of(parse_weather(text.as_bytes(), "bare.csv"));
        assert!(error.message.starts_with("the file has no metadata rows (row 1 names the data columns), so the site must be given: lat, lon, tz"), "{error}");
        let hints = SiteHints { lat: Some(39.74), lon: Some(-105.18), tz: Some(-7.0), elevation: Some(1829.0) };
        let weather = parse_weather_with(text.as_bytes(), "bare.csv", &hints).unwrap();
        assert_eq!((weather.meta.lat, weather.meta.tz, weather.meta.elevation), (39.74, -7.0, 1829.0));
        assert!(weather.instantaneous);
    }

    #[test]
    fn site_facts_given_must_agree_with_the_file() {
        let text = epw_text(1, &[]);
        let agreeing = SiteHints { lat: Some(39.74), tz: Some(-7.0), ..SiteHints::default() };
        assert!(parse_weather_with(text.as_bytes(), "golden.epw", &agreeing).is_ok());
        let other = SiteHints { tz: Some(-6.0), ..SiteHints::default() };
        let error = error_of(parse_weather_with(text.as_bytes(), "golden.epw", &other));
        assert_eq!(error.to_string(), "golden.epw: tz=-6 was given, but the file says -7");
    }

    #[test]
    fn quarter_hour_csv_with_minutes_at_the_middle_of_each_step() {
        let hourly = year_columns(false);
        let mut text = format!("{NSRDB_NAMES}\n{NSRDB_VALUES}\nYear,Month,Day,Hour,Minute,DNI,DHI,Tdry,Wspd\n");
        for i in 0..hourly.year.len() {
            for k in 0..4 {
                let minute = 7.5 + 15.0 * f64::from(k);
                text.push_str(&format!(
                    "{},{},{},{},{minute},{},{},{},{}\n",
                    hourly.year[i], hourly.month[i], hourly.day[i], hourly.hour[i], hourly.dn[i], hourly.df[i], hourly.tdry[i], hourly.wspd[i]
                ));
            }
        }
        let weather = parse_weather(text.as_bytes(), "quarter.csv").unwrap();
        assert_eq!((weather.steps_per_hour, weather.minute[1]), (4, 22.5));
        assert!(weather.gh.iter().all(|v| v.is_nan()));
    }

    #[test]
    fn empty_epw_and_unknown_formats_are_rejected() {
        let error = error_of(parse_weather(
            b"LOCATION,Denver,CO,USA,TMY3,724666,39.74,-105.18,-7.0,1829.0\n",
            "denver.epw",
        ));
        assert!(error.message.contains("found 0"), "{error}");
        let error = error_of(parse_weather(b"just some text\n", "notes.txt"));
        assert!(
            error
                .message
                .starts_with("unrecognised weather file format"),
            "{error}"
        );
    }
}

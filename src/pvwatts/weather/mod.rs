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
mod csv;
mod detect;
mod epw;
mod table;
mod text;
mod tmy2;
mod tmy3;
mod validation;

use std::fmt;

use crate::calendar::is_leap_year;
use crate::calendar::{days_from_civil, NOMINAL_LEAP_YEAR, NOMINAL_YEAR};
pub use climate::weather_from_climate_table;
pub use csv::metadata_keys;
pub use detect::*;
pub use table::{check_table_rows, column_field_name, numeric_column, weather_from_columns, NamedColumn};
use validation::*;

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

#[cfg(test)]
mod tests;

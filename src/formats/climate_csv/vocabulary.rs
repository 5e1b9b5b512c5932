//! The climate download's vocabulary: its 12 attributes with their file names and units, the
//! short column names, and the calendar rules of the row count and the stamps' time zone.

use crate::formats::timezone::standard_time_zone;
use crate::spec::routes::DatasetFamily;

/// An attribute of the climate download, in the spec's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Attribute {
    Pressure0m,
    Dhi,
    Dni,
    Ghi,
    RelativeHumidity2m,
    Temperature2m,
    WindDirection10m,
    WindDirection100m,
    WindDirection200m,
    WindSpeed10m,
    WindSpeed100m,
    WindSpeed200m,
}

impl Attribute {
    /// Every attribute, in the spec's order (the default column order).
    pub const ALL: [Attribute; 12] = [
        Attribute::Pressure0m,
        Attribute::Dhi,
        Attribute::Dni,
        Attribute::Ghi,
        Attribute::RelativeHumidity2m,
        Attribute::Temperature2m,
        Attribute::WindDirection10m,
        Attribute::WindDirection100m,
        Attribute::WindDirection200m,
        Attribute::WindSpeed10m,
        Attribute::WindSpeed100m,
        Attribute::WindSpeed200m,
    ];

    /// The spec's name, used in the `attributes` parameter and as the column name.
    pub fn name(self) -> &'static str {
        match self {
            Attribute::Pressure0m => "pressure_0m",
            Attribute::Dhi => "dhi",
            Attribute::Dni => "dni",
            Attribute::Ghi => "ghi",
            Attribute::RelativeHumidity2m => "relativehumidity_2m",
            Attribute::Temperature2m => "temperature_2m",
            Attribute::WindDirection10m => "winddirection_10m",
            Attribute::WindDirection100m => "winddirection_100m",
            Attribute::WindDirection200m => "winddirection_200m",
            Attribute::WindSpeed10m => "windspeed_10m",
            Attribute::WindSpeed100m => "windspeed_100m",
            Attribute::WindSpeed200m => "windspeed_200m",
        }
    }

    /// The column name in row 3 of the file (the spec's wording, unit in parentheses where the
    /// spec gives one).
    pub fn long_name(self) -> &'static str {
        match self {
            Attribute::Pressure0m => "Pressure",
            Attribute::Dhi => "DHI",
            Attribute::Dni => "DNI",
            Attribute::Ghi => "GHI",
            Attribute::RelativeHumidity2m => "relative humidity at 2m (%)",
            Attribute::Temperature2m => "air temperature at 2m (Celsius)",
            Attribute::WindDirection10m => "wind direction at 10m (degrees)",
            Attribute::WindDirection100m => "wind direction at 100m (degrees)",
            Attribute::WindDirection200m => "wind direction at 200m (degrees)",
            Attribute::WindSpeed10m => "wind speed at 10m (m/s)",
            Attribute::WindSpeed100m => "wind speed at 100m (m/s)",
            Attribute::WindSpeed200m => "wind speed at 200m (m/s)",
        }
    }

    /// Unit of the values.
    pub fn unit(self) -> &'static str {
        match self {
            Attribute::Pressure0m => "mbar",
            Attribute::Dhi | Attribute::Dni | Attribute::Ghi => "W/m2",
            Attribute::RelativeHumidity2m => "%",
            Attribute::Temperature2m => "Celsius",
            Attribute::WindDirection10m | Attribute::WindDirection100m | Attribute::WindDirection200m => "degrees",
            Attribute::WindSpeed10m | Attribute::WindSpeed100m | Attribute::WindSpeed200m => "m/s",
        }
    }

    /// Decimal places the service writes.
    pub fn decimals(self) -> i32 {
        match self {
            Attribute::Dhi | Attribute::Dni | Attribute::Ghi => 0,
            Attribute::WindDirection10m | Attribute::WindDirection100m | Attribute::WindDirection200m => 0,
            Attribute::Pressure0m | Attribute::RelativeHumidity2m | Attribute::Temperature2m => 1,
            Attribute::WindSpeed10m | Attribute::WindSpeed100m | Attribute::WindSpeed200m => 2,
        }
    }

    /// A value rounded to the file precision (directions wrap into [0, 360), no negative zero).
    pub fn round_for_file(self, value: f64) -> f64 {
        let scale = 10f64.powi(self.decimals());
        let rounded = (value * scale).round() / scale + 0.0;
        match self {
            Attribute::WindDirection10m | Attribute::WindDirection100m | Attribute::WindDirection200m => {
                rounded.rem_euclid(360.0)
            }
            _ => rounded,
        }
    }

    /// The attribute with this spec name (exact, lower case).
    pub fn from_name(name: &str) -> Option<Attribute> {
        Attribute::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The name the NSRDB downloads give this quantity (they have one wind height, 10 m, and
    /// no 100 or 200 m series): `air_temperature`, `wind_speed`, `surface_pressure`, ...
    pub fn nsrdb_name(self) -> Option<&'static str> {
        match self {
            Attribute::Pressure0m => Some("surface_pressure"),
            Attribute::Dhi => Some("dhi"),
            Attribute::Dni => Some("dni"),
            Attribute::Ghi => Some("ghi"),
            Attribute::RelativeHumidity2m => Some("relative_humidity"),
            Attribute::Temperature2m => Some("air_temperature"),
            Attribute::WindDirection10m => Some("wind_direction"),
            Attribute::WindSpeed10m => Some("wind_speed"),
            Attribute::WindDirection100m | Attribute::WindDirection200m | Attribute::WindSpeed100m | Attribute::WindSpeed200m => None,
        }
    }

    /// The column name NSRDB files write for this quantity (row 3).
    pub fn nsrdb_long_name(self) -> Option<&'static str> {
        match self {
            Attribute::Pressure0m => Some("Pressure"),
            Attribute::Dhi => Some("DHI"),
            Attribute::Dni => Some("DNI"),
            Attribute::Ghi => Some("GHI"),
            Attribute::RelativeHumidity2m => Some("Relative Humidity"),
            Attribute::Temperature2m => Some("Temperature"),
            Attribute::WindDirection10m => Some("Wind Direction"),
            Attribute::WindSpeed10m => Some("Wind Speed"),
            Attribute::WindDirection100m | Attribute::WindDirection200m | Attribute::WindSpeed100m | Attribute::WindSpeed200m => None,
        }
    }

    /// The attributes a data set family offers, in the spec's order.
    pub fn offered(family: DatasetFamily) -> Vec<Attribute> {
        Attribute::ALL.into_iter().filter(|a| a.name_in(family).is_some()).collect()
    }

    /// This attribute's name in the `attributes` parameter of a family's downloads.
    pub fn name_in(self, family: DatasetFamily) -> Option<&'static str> {
        match family {
            DatasetFamily::Climate => Some(self.name()),
            DatasetFamily::Nsrdb => self.nsrdb_name(),
        }
    }

    /// The attribute a file column stands for: its spec name or long name, any case.
    pub fn from_column_name(column: &str) -> Option<Attribute> {
        let column = column.trim();
        Attribute::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(column) || a.long_name().eq_ignore_ascii_case(column))
    }
}

/// The short (column) name for a file column: the attribute name when the column is one of the
/// 12, otherwise the same scheme applied to the long name: lower case, unit in parentheses
/// dropped, words joined, a trailing height after `_` (`wind direction at 180m (deg)` →
/// `winddirection_180m`).
pub fn short_column_name(long_name: &str) -> String {
    if let Some(attribute) = Attribute::from_column_name(long_name) {
        return attribute.name().to_string();
    }
    let mut name = long_name.trim().to_ascii_lowercase();
    if name.ends_with(')') {
        if let Some(open) = name.rfind('(') {
            name.truncate(open);
        }
    }
    let mut words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && *w != "at")
        .map(str::to_string)
        .collect();
    let height = words
        .last()
        .filter(|w| w.len() > 1 && w.ends_with('m') && w[..w.len() - 1].bytes().all(|b| b.is_ascii_digit()))
        .cloned();
    if height.is_some() && words.len() > 1 {
        words.pop();
    }
    match height.filter(|_| !words.is_empty()) {
        Some(height) => format!("{}_{height}", words.concat()),
        None => words.concat(),
    }
}

pub use crate::formats::calendar::{civil_from_days, days_from_civil, days_in_month, is_leap_year};

/// Rows of one year of data: 365 days, or 366 when `leap_day` is asked and the year has one,
/// times the intervals per day (`interval_minutes` must divide a day; 0 rows otherwise).
pub fn expected_rows(year: i32, leap_day: bool, interval_minutes: u32) -> usize {
    if interval_minutes == 0 || 1440 % interval_minutes != 0 {
        return 0;
    }
    let days = if leap_day && is_leap_year(year) { 366 } else { 365 };
    days * (1440 / interval_minutes) as usize
}

/// The interval assumed when a file has fewer than two rows (the only one the service offers).
pub(super) const INTERVAL_WHEN_UNKNOWN: u32 = 60;

/// The Arrow time zone of stamps at `offset_hours` from UTC (see the module notes).
pub fn timestamp_time_zone(offset_hours: f64) -> String {
    standard_time_zone(offset_hours).unwrap_or_else(|| "UTC".to_string())
}

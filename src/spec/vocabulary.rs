//! The spec's vocabularies that every layer reads: the dataset query's data set codes and the
//! climate download's 12 attributes (with their file names, units and per-family names).

use crate::spec::routes::DatasetFamily;

/// The four dataset codes of the spec, in the order responses list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dataset {
    Tmy2,
    Tmy3,
    Intl,
    Satdb,
}

impl Dataset {
    pub const ALL: [Dataset; 4] = [Dataset::Tmy2, Dataset::Tmy3, Dataset::Intl, Dataset::Satdb];

    pub fn code(self) -> &'static str {
        match self {
            Dataset::Tmy2 => "tmy2",
            Dataset::Tmy3 => "tmy3",
            Dataset::Intl => "intl",
            Dataset::Satdb => "satdb",
        }
    }

    pub fn from_code(code: &str) -> Option<Dataset> {
        Dataset::ALL.into_iter().find(|dataset| dataset.code() == code)
    }

    /// The digit that starts every id of this dataset (`0-94018` is tmy2).
    pub fn id_prefix(self) -> &'static str {
        match self {
            Dataset::Tmy2 => "0",
            Dataset::Tmy3 => "1",
            Dataset::Intl => "2",
            Dataset::Satdb => "3",
        }
    }

    /// The dataset an id belongs to, read from its digit prefix. Real v1 and v2 ids share this
    /// shape, so an id alone does not tell which query version produced it (see
    /// `services::solar::Station::query_version`).
    pub fn from_id(id: &str) -> Option<Dataset> {
        let (prefix, _) = id.split_once('-')?;
        Dataset::ALL.into_iter().find(|dataset| dataset.id_prefix() == prefix)
    }
}

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

//! The typed metadata of rows 1–2 of a climate CSV (names, units, parsing of their values).

use serde_json::{json, Map, Value};

use super::*;

/// Row 1 of the file, in order (spec, "CSV layout").
pub const METADATA_NAMES: [&str; 21] = [
    "Source",
    "Location ID",
    "City",
    "County",
    "State",
    "Country",
    "Offshore",
    "EEZ",
    "Latitude",
    "Longitude",
    "Time Zone",
    "Elevation",
    "Local Time Zone",
    "GHI Units",
    "DNI Units",
    "DHI Units",
    "Temperature Units",
    "Wind Speed Units",
    "Relative Humidity Units",
    "Wind Direction Units",
    "Version",
];

/// Units named in the metadata.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Units {
    pub ghi: String,
    pub dni: String,
    pub dhi: String,
    pub temperature: String,
    pub wind_speed: String,
    pub relative_humidity: String,
    pub wind_direction: String,
}

impl Units {
    /// The unit of the frame column `name`: the file's declared unit for its quantity (the
    /// metadata rows name units by quantity — "Temperature Units" — not by column), else the
    /// spec's unit of an attribute column (pressure has no unit row: mbar); `None` for a column
    /// of no known quantity.
    pub fn for_column(&self, name: &str) -> Option<String> {
        let key = normalized_key(name);
        let declared = [
            ("ghi", &self.ghi),
            ("dni", &self.dni),
            ("dhi", &self.dhi),
            ("temperature", &self.temperature),
            ("airtemperature", &self.temperature),
            ("windspeed", &self.wind_speed),
            ("relativehumidity", &self.relative_humidity),
            ("winddirection", &self.wind_direction),
        ]
        .into_iter()
        .find(|(quantity, _)| key.starts_with(quantity))
        .map(|(_, unit)| unit.as_str())
        .filter(|unit| !unit.is_empty());
        declared.map(str::to_owned).or_else(|| Attribute::from_name(name).map(|attribute| attribute.unit().to_owned()))
    }

    /// The units the embedded service writes (NSRDB spelling).
    pub fn service() -> Units {
        Units {
            ghi: "w/m2".into(),
            dni: "w/m2".into(),
            dhi: "w/m2".into(),
            temperature: "c".into(),
            wind_speed: "m/s".into(),
            relative_humidity: "%".into(),
            wind_direction: "Degrees".into(),
        }
    }
}

/// How the embedded service's `Source` cell (and its stations' `weather_data_source`) starts: its
/// weather is generated, not measured, and every table, frame and repr made from it says so.
pub const SYNTHETIC_SOURCE: &str = "sunflux synthetic";

/// Rows 1–2 of a climate CSV, typed. Strings missing from a file are empty; numbers and the
/// offshore flag missing (or `-`) are `None`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClimateMetadata {
    pub source: String,
    pub location_id: String,
    pub city: String,
    pub county: String,
    pub state: String,
    pub country: String,
    pub offshore: Option<bool>,
    /// Exclusive economic zone of an offshore site.
    pub eez: String,
    /// Degrees north.
    pub latitude: Option<f64>,
    /// Degrees east.
    pub longitude: Option<f64>,
    /// Offset of the time stamps from UTC, hours (0 for UTC data).
    pub time_zone: Option<f64>,
    /// Metres.
    pub elevation: Option<f64>,
    /// The site's standard-time offset from UTC, hours.
    pub local_time_zone: Option<f64>,
    pub units: Units,
    pub version: String,
    /// Every name/value pair of rows 1–2 as read (empty for metadata built in code).
    pub raw: Vec<(String, String)>,
}

/// True for a source text of the embedded service's generated data (climate tables, stations).
pub fn is_synthetic_source(source: &str) -> bool {
    source.starts_with(SYNTHETIC_SOURCE)
}

impl ClimateMetadata {
    /// True for the embedded service's generated weather ([`SYNTHETIC_SOURCE`]).
    pub fn is_synthetic(&self) -> bool {
        is_synthetic_source(&self.source)
    }

    /// Row 2 values in the order of [`METADATA_NAMES`].
    pub(super) fn values(&self) -> [String; 21] {
        let number = |value: Option<f64>| value.map_or_else(|| "-".to_string(), |v| v.to_string());
        let text = |value: &str| if value.is_empty() { "-".to_string() } else { value.to_string() };
        let offshore = match self.offshore {
            Some(true) => "True".to_string(),
            Some(false) => "False".to_string(),
            None => "-".to_string(),
        };
        [
            text(&self.source),
            text(&self.location_id),
            text(&self.city),
            text(&self.county),
            text(&self.state),
            text(&self.country),
            offshore,
            text(&self.eez),
            number(self.latitude),
            number(self.longitude),
            number(self.time_zone),
            number(self.elevation),
            number(self.local_time_zone),
            text(&self.units.ghi),
            text(&self.units.dni),
            text(&self.units.dhi),
            text(&self.units.temperature),
            text(&self.units.wind_speed),
            text(&self.units.relative_humidity),
            text(&self.units.wind_direction),
            text(&self.version),
        ]
    }

    /// Builds typed metadata from rows 1–2. Names match without regard to case, spaces and
    /// underscores, with the aliases of other downloads of the family (`SiteID`, `Data
    /// Timezone`, `Site Timezone`); a Python bytes literal `b'Canada'` is unwrapped.
    pub fn from_pairs(names: &[String], values: &[String]) -> ClimateMetadata {
        let mut meta = ClimateMetadata::default();
        for (name, value) in names.iter().zip(values.iter().chain(std::iter::repeat(&String::new()))) {
            let value = clean_metadata_value(value);
            meta.raw.push((name.trim().to_string(), value.clone()));
            let number = || parse_metadata_number(&value);
            match normalized_key(name).as_str() {
                "source" => meta.source = value,
                "locationid" | "siteid" | "gid" => meta.location_id = value,
                "city" => meta.city = value,
                "county" => meta.county = value,
                "state" => meta.state = value,
                "country" => meta.country = value,
                "offshore" => meta.offshore = parse_bool(&value),
                "eez" => meta.eez = value,
                "latitude" | "lat" => meta.latitude = number(),
                "longitude" | "lon" | "long" => meta.longitude = number(),
                "timezone" | "datatimezone" => meta.time_zone = number(),
                "elevation" | "elev" => meta.elevation = number(),
                "localtimezone" | "sitetimezone" => meta.local_time_zone = number(),
                "ghiunits" => meta.units.ghi = value,
                "dniunits" => meta.units.dni = value,
                "dhiunits" => meta.units.dhi = value,
                "temperatureunits" => meta.units.temperature = value,
                "windspeedunits" => meta.units.wind_speed = value,
                "relativehumidityunits" => meta.units.relative_humidity = value,
                "winddirectionunits" => meta.units.wind_direction = value,
                "version" => meta.version = value,
                _ => {}
            }
        }
        if meta.time_zone.is_none() {
            meta.time_zone = meta.local_time_zone;
        }
        meta
    }

    /// The metadata as a JSON object with snake_case keys (what the Python face shows).
    pub fn to_json(&self) -> Value {
        let raw: Map<String, Value> = self.raw.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        json!({
            "source": self.source,
            "location_id": self.location_id,
            "city": self.city,
            "county": self.county,
            "state": self.state,
            "country": self.country,
            "offshore": self.offshore,
            "eez": self.eez,
            "latitude": self.latitude,
            "longitude": self.longitude,
            "time_zone": self.time_zone,
            "elevation": self.elevation,
            "local_time_zone": self.local_time_zone,
            "version": self.version,
            "synthetic": self.is_synthetic(),
            "raw": raw,
        })
    }
}

pub(super) fn normalized_key(name: &str) -> String {
    name.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect()
}

fn clean_metadata_value(value: &str) -> String {
    let value = value.trim();
    let unwrapped = value
        .strip_prefix("b'")
        .and_then(|v| v.strip_suffix('\''))
        .or_else(|| value.strip_prefix("b\"").and_then(|v| v.strip_suffix('"')))
        .unwrap_or(value);
    unwrapped.to_string()
}

fn parse_metadata_number(value: &str) -> Option<f64> {
    value.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

fn parse_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "y" | "t" => Some(true),
        "false" | "0" | "no" | "n" | "f" => Some(false),
        _ => None,
    }
}

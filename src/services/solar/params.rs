//! The dataset query's parameters: the raw values a caller gives, their checks (every problem
//! at once) and the validated `DataQueryParams` the request and the parser read.

use crate::formats::Format;
use crate::services::raw::RawValue;

/// Miles to metres, for the `radius` parameter (distances in responses are metres).
pub const METRES_PER_MILE: f64 = 1609.344;

/// Largest accepted `radius`, in miles.
pub const RADIUS_MAX_MILES: u32 = 2000;

/// `radius` when the request does not give one, in miles.
pub const DEFAULT_RADIUS_MILES: u32 = 100;

/// The path version of the dataset query (`spec::routes::Endpoint::DataQuery`): `v1` or `v2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryVersion {
    V1,
    V2,
}

impl QueryVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            QueryVersion::V1 => "v1",
            QueryVersion::V2 => "v2",
        }
    }

    pub fn parse(text: &str) -> Option<QueryVersion> {
        match text {
            "v1" => Some(QueryVersion::V1),
            "v2" => Some(QueryVersion::V2),
            _ => None,
        }
    }
}

/// An allowed closed range for a decimal parameter; the only place these bounds are written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberRange {
    pub name: &'static str,
    pub min: f64,
    pub max: f64,
}

pub const LATITUDE: NumberRange = NumberRange { name: "lat", min: -90.0, max: 90.0 };

pub const LONGITUDE: NumberRange = NumberRange { name: "lon", min: -180.0, max: 180.0 };

/// The dataset query's parameters before validation. Missing `radius`, `all`, `version` and
/// `format` take their defaults (100, 0, v2, json); missing `lat`/`lon` are problems.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawDataQuery {
    pub lat: RawValue,
    pub lon: RawValue,
    pub radius: RawValue,
    pub all: RawValue,
    pub version: RawValue,
    pub format: RawValue,
}

impl RawDataQuery {
    /// The parameters of an HTTP request: query pairs (the last of repeated names wins) plus the
    /// version and format taken from the path.
    pub fn from_query(pairs: &[(String, String)], version: QueryVersion, format: Format) -> RawDataQuery {
        let last = |name: &str| {
            pairs
                .iter()
                .rev()
                .find(|(key, _)| key == name)
                .map_or(RawValue::Missing, |(_, value)| RawValue::Text(value.clone()))
        };
        RawDataQuery {
            lat: last("lat"),
            lon: last("lon"),
            radius: last("radius"),
            all: last("all"),
            version: RawValue::from(version.as_str()),
            format: RawValue::from(format.suffix()),
        }
    }
}

/// Validated dataset query parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DataQueryParams {
    pub lat: f64,
    pub lon: f64,
    /// Miles; 0 means the closest station regardless of distance.
    pub radius: u32,
    pub all: bool,
    pub version: QueryVersion,
    pub format: Format,
}

impl DataQueryParams {
    /// The search radius in metres, or `None` for "regardless of distance" (radius 0).
    pub fn radius_m(&self) -> Option<f64> {
        (self.radius > 0).then(|| f64::from(self.radius) * METRES_PER_MILE)
    }

    /// Whether the response lists `all_stations` (v1 with all=1; v2 has no such list).
    pub fn lists_all_stations(&self) -> bool {
        self.all && self.version == QueryVersion::V1
    }

    /// The query string parameters to send (the api_key is the transport's business).
    pub fn query_pairs(&self) -> Vec<(&'static str, String)> {
        vec![
            ("lat", self.lat.to_string()),
            ("lon", self.lon.to_string()),
            ("radius", self.radius.to_string()),
            ("all", if self.all { "1" } else { "0" }.to_string()),
        ]
    }
}

/// Checks every parameter and reports all problems at once; each message names the parameter
/// and says what to give instead.
pub fn validate_data_query(raw: &RawDataQuery) -> Result<DataQueryParams, Vec<String>> {
    let mut problems = Vec::new();
    let lat = record(check_range(&raw.lat, LATITUDE), &mut problems);
    let lon = record(check_range(&raw.lon, LONGITUDE), &mut problems);
    let radius = record(check_radius(&raw.radius), &mut problems);
    let all = record(check_all(&raw.all), &mut problems);
    if radius == Some(0) && all == Some(true) {
        problems.push(format!(
            "all=1 needs a radius greater than 0: give radius between 1 and {RADIUS_MAX_MILES} miles, or use all=0"
        ));
    }
    let version = record(check_version(&raw.version), &mut problems);
    let format = record(check_format(&raw.format), &mut problems);
    match (lat, lon, radius, all, version, format) {
        (Some(lat), Some(lon), Some(radius), Some(all), Some(version), Some(format)) if problems.is_empty() => {
            Ok(DataQueryParams { lat, lon, radius, all, version, format })
        }
        _ => Err(problems),
    }
}

pub(super) fn record<T>(checked: Result<T, String>, problems: &mut Vec<String>) -> Option<T> {
    checked.map_err(|problem| problems.push(problem)).ok()
}

pub fn check_range(raw: &RawValue, range: NumberRange) -> Result<f64, String> {
    let NumberRange { name, min, max } = range;
    if *raw == RawValue::Missing {
        return Err(format!("{name} is required: give a number between {min} and {max}"));
    }
    raw.as_finite_f64()
        .filter(|value| (min..=max).contains(value))
        .ok_or_else(|| format!("{name} must be a number between {min} and {max} (got {})", raw.describe()))
}

pub(super) fn check_radius(raw: &RawValue) -> Result<u32, String> {
    if *raw == RawValue::Missing {
        return Ok(DEFAULT_RADIUS_MILES);
    }
    raw.as_whole()
        .filter(|miles| (0..=i64::from(RADIUS_MAX_MILES)).contains(miles))
        .and_then(|miles| u32::try_from(miles).ok())
        .ok_or_else(|| {
            format!(
                "radius must be a whole number of miles between 0 and {RADIUS_MAX_MILES} (got {}); 0 means the closest station regardless of distance",
                raw.describe()
            )
        })
}

pub(super) fn check_all(raw: &RawValue) -> Result<bool, String> {
    match raw {
        RawValue::Missing => Ok(false),
        RawValue::Bool(flag) => Ok(*flag),
        other => match other.as_whole() {
            Some(0) => Ok(false),
            Some(1) => Ok(true),
            _ => Err(format!("all must be 0 or 1 (got {})", other.describe())),
        },
    }
}

pub(super) fn check_version(raw: &RawValue) -> Result<QueryVersion, String> {
    match raw {
        RawValue::Missing => Ok(QueryVersion::V2),
        RawValue::Text(text) => QueryVersion::parse(text).ok_or_else(|| version_problem(raw)),
        _ => Err(version_problem(raw)),
    }
}

pub(super) fn version_problem(raw: &RawValue) -> String {
    format!("version must be \"v1\" or \"v2\" (got {})", raw.describe())
}

pub(super) fn check_format(raw: &RawValue) -> Result<Format, String> {
    match raw {
        RawValue::Missing => Ok(Format::Json),
        RawValue::Text(text) => Format::from_suffix(text).ok_or_else(|| format_problem(raw)),
        _ => Err(format_problem(raw)),
    }
}

pub(super) fn format_problem(raw: &RawValue) -> String {
    format!("format must be \"json\", \"xml\" or \"csv\" (got {})", raw.describe())
}

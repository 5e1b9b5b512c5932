//! Solar dataset query (v1 and v2): parameter validation, the typed response, and the three wire
//! formats (json, xml, csv) in both directions, so that the client's parser and the embedded
//! service's writer share one definition of each.
//!
//! CSV shape (the spec does not show one): a header row, then one row per station with the
//! columns of [`StationColumn::ALL`] — `dataset, closest, id, lat, lon, city, state, timezone,
//! elevation, distance, resolution, country, weather_data_source`. Without `all=1` the rows are
//! the closest station of each dataset that has one, in dataset order, all with `closest=true`.
//! With `all=1` (v1) the rows are `all_stations` in ascending distance, and `closest=true` marks
//! the closest station of each dataset. Empty cells are absent values. Only stations travel in
//! csv: the parser rebuilds `inputs` from the request, the spec's no-data warning for each dataset
//! without a row, `metadata` as `{}`, and leaves `version` as `None`. Errors on a csv request
//! come back as the JSON envelope, which the parser recognises.

use serde_json::{Map, Value};

use crate::formats::xml::{read_xml, write_xml, XmlError};
use crate::formats::Format;
pub use crate::spec::vocabulary::Dataset;

mod arrow;
mod fast_json;
mod params;
mod parse;
pub mod request;
mod write;

pub use arrow::*;
pub use params::*;
use parse::{from_csv, from_envelope, is_json_body, parse_json};
pub use write::*;

/// Input key that is never kept in a parsed result.
const API_KEY_INPUT: &str = "api_key";
/// The key of `outputs` that lists every station within the radius (v1, all=1).
const ALL_STATIONS_KEY: &str = "all_stations";

pub use crate::services::raw::RawValue;

/// The spec's warning for a dataset without a station: `No <dataset> data found for lat=<lat> lon=<lon>`.
/// Coordinates are printed with a decimal point (`40.0`), as the real service does.
pub fn no_data_warning(dataset: &str, lat: f64, lon: f64) -> String {
    format!("No {dataset} data found for lat={lat:?} lon={lon:?}")
}

/// One climate data station of a dataset query response.
#[derive(Debug, Clone, PartialEq)]
pub struct Station {
    pub id: String,
    pub lat: f64,
    pub lon: f64,
    pub city: String,
    pub state: String,
    /// Hours from GMT. The spec says integer, but fractional offsets exist (India +5.5), so it is
    /// kept as a float rather than rounded.
    pub timezone: f64,
    /// Metres.
    pub elevation: i64,
    /// Metres from the requested location (even though `radius` is in miles).
    pub distance: i64,
    /// Grid resolution in km; satellite (satdb) records only.
    pub resolution: Option<i64>,
    /// v2 satdb records only.
    pub country: Option<String>,
    /// v2 only.
    pub weather_data_source: Option<String>,
    /// The dataset code: the `outputs` key for a closest station, the `dataset` field (or the id
    /// prefix) for an `all_stations` entry.
    pub dataset: Option<String>,
    /// Which query version produced this record: only v1 ids work with the v6 estimator.
    pub query_version: QueryVersion,
}

impl Station {
    /// The id to pass as `file_id` to the v6 estimator, or why this station cannot be used there.
    pub fn v6_file_id(&self) -> Result<&str, String> {
        match self.query_version {
            QueryVersion::V1 => Ok(&self.id),
            QueryVersion::V2 => Err(v2_file_id_problem(&self.id)),
        }
    }
}

/// Why an id from dataset query v2 cannot be the v6 estimator's `file_id`; shared by the client
/// check and the embedded estimator so both say the same.
pub fn v2_file_id_problem(id: &str) -> String {
    format!(
        "file_id {id} comes from dataset query v2, but v1 ids work only with the v6 estimator and v2 ids do not work there: \
         call data_query(..., version=\"v1\") and pass that station or its id"
    )
}

/// A parsed dataset query response. `inputs` never holds the api_key.
#[derive(Debug, Clone, PartialEq)]
pub struct StationQuery {
    /// The path version the request used (v1 or v2).
    pub query_version: QueryVersion,
    /// The service's own version string (e.g. "1.3.1"); `None` when the format does not carry it (csv).
    pub version: Option<String>,
    pub inputs: Map<String, Value>,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    pub metadata: Map<String, Value>,
    /// Closest station per dataset code, in response order; unknown codes (nsrdb, perez) are kept.
    pub closest: Vec<(String, Option<Station>)>,
    /// Every station within the radius, ascending distance; `Some` only for v1 with all=1.
    pub all_stations: Option<Vec<Station>>,
}

impl StationQuery {
    /// The closest station of one dataset code, if the response has one.
    pub fn closest_station(&self, code: &str) -> Option<&Station> {
        self.closest.iter().find(|(key, _)| key == code).and_then(|(_, station)| station.as_ref())
    }
}

/// Why a response body could not be read as a dataset query result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    #[error("response body is not valid JSON: {0}")]
    Json(String),
    #[error("response body is not valid XML: {0}")]
    Xml(#[from] XmlError),
    #[error("response body is not valid CSV: {0}")]
    Csv(String),
    #[error("unexpected response at {path}: {problem}")]
    Shape { path: String, problem: String },
}

/// Why a result could not be written in a format.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WriteError {
    #[error("could not write JSON: {0}")]
    Json(String),
    #[error(transparent)]
    Xml(#[from] XmlError),
    #[error("could not write CSV: {0}")]
    Csv(String),
}

fn shape(path: &str, problem: impl Into<String>) -> ParseError {
    ParseError::Shape { path: path.to_string(), problem: problem.into() }
}

/// Parses a response body of the request described by `params` (its format and version; for csv
/// also its coordinates and flags, which csv does not carry).
pub fn parse_data_query(body: &[u8], params: &DataQueryParams) -> Result<StationQuery, ParseError> {
    let query = parse_any_format(body, params)?;
    let no_station = query.closest.iter().all(|(_, station)| station.is_none())
        && query.all_stations.as_ref().is_none_or(Vec::is_empty);
    if no_station && query.warnings.is_empty() && query.errors.is_empty() {
        return Err(shape("outputs", "holds no station, and no warning says why (a real answer warns for each data set without data)"));
    }
    Ok(query)
}

fn parse_any_format(body: &[u8], params: &DataQueryParams) -> Result<StationQuery, ParseError> {
    match params.format {
        Format::Json => match fast_json::parse_fast(body, params.version) {
            Some(query) => Ok(query),
            None => from_envelope(&parse_json(body)?, params.version),
        },
        Format::Xml => from_envelope(&read_xml(body)?, params.version),
        Format::Csv if is_json_body(body) => from_envelope(&parse_json(body)?, params.version),
        Format::Csv => from_csv(body, params),
    }
}

/// Writes a result in one format: the envelope for json and xml, the station table for csv.
pub fn write_data_query(query: &StationQuery, format: Format) -> Result<Vec<u8>, WriteError> {
    match format {
        Format::Json => serde_json::to_vec(&envelope_value(query)).map_err(|e| WriteError::Json(e.to_string())),
        Format::Xml => Ok(write_xml(&envelope_value(query))?),
        Format::Csv => write_csv(query),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(lat: RawValue, lon: RawValue) -> RawDataQuery {
        RawDataQuery { lat, lon, ..RawDataQuery::default() }
    }

    #[test]
    fn defaults_fill_optional_parameters() {
        let params = validate_data_query(&raw(40.0.into(), (-105.0).into())).unwrap();
        assert_eq!(params.radius, DEFAULT_RADIUS_MILES);
        assert!(!params.all);
        assert_eq!(params.version, QueryVersion::V2);
        assert_eq!(params.format, Format::Json);
        assert_eq!(params.radius_m(), Some(100.0 * METRES_PER_MILE));
    }

    #[test]
    fn reports_every_problem_at_once() {
        let query = RawDataQuery {
            lat: 95.0.into(),
            lon: "east".into(),
            radius: 2500i64.into(),
            all: 2i64.into(),
            version: "v3".into(),
            format: "yaml".into(),
        };
        let problems = validate_data_query(&query).unwrap_err();
        assert_eq!(
            problems,
            vec![
                "lat must be a number between -90 and 90 (got 95)",
                "lon must be a number between -180 and 180 (got \"east\")",
                "radius must be a whole number of miles between 0 and 2000 (got 2500); 0 means the closest station regardless of distance",
                "all must be 0 or 1 (got 2)",
                "version must be \"v1\" or \"v2\" (got \"v3\")",
                "format must be \"json\", \"xml\" or \"csv\" (got \"yaml\")",
            ]
        );
    }

    #[test]
    fn all_needs_a_radius() {
        let mut query = raw("40".into(), "-105".into());
        query.radius = "0".into();
        query.all = true.into();
        assert_eq!(
            validate_data_query(&query).unwrap_err(),
            vec!["all=1 needs a radius greater than 0: give radius between 1 and 2000 miles, or use all=0"]
        );
    }

    #[test]
    fn missing_and_non_numbers_are_problems() {
        let problems = validate_data_query(&raw(RawValue::Missing, f64::NAN.into())).unwrap_err();
        assert_eq!(problems[0], "lat is required: give a number between -90 and 90");
        assert_eq!(problems[1], "lon must be a number between -180 and 180 (got NaN)");
        let mut query = raw("40".into(), "-105".into());
        query.radius = "50.5".into();
        query.all = "yes".into();
        let problems = validate_data_query(&query).unwrap_err();
        assert!(problems[0].starts_with("radius must be a whole number of miles between 0 and 2000 (got 50.5)"));
        assert_eq!(problems[1], "all must be 0 or 1 (got \"yes\")");
    }

    #[test]
    fn http_query_last_value_wins() {
        let pairs = [("lat", "1"), ("lat", "40"), ("lon", "-105"), ("all", "1"), ("radius", "50")]
            .map(|(k, v)| (k.to_string(), v.to_string()));
        let params = validate_data_query(&RawDataQuery::from_query(&pairs, QueryVersion::V1, Format::Xml)).unwrap();
        assert_eq!((params.lat, params.radius, params.all), (40.0, 50, true));
        assert_eq!((params.version, params.format), (QueryVersion::V1, Format::Xml));
        assert!(params.lists_all_stations());
    }

    #[test]
    fn warning_has_the_spec_shape() {
        assert_eq!(no_data_warning("intl", 40.0, -105.0), "No intl data found for lat=40.0 lon=-105.0");
        assert_eq!(no_data_warning("satdb", 40.25, -105.5), "No satdb data found for lat=40.25 lon=-105.5");
    }

    #[test]
    fn ids_tell_their_dataset() {
        assert_eq!(Dataset::from_id("0-94018"), Some(Dataset::Tmy2));
        assert_eq!(Dataset::from_id("3-G-0149190"), Some(Dataset::Satdb));
        assert_eq!(Dataset::from_id("94018"), None);
    }
}

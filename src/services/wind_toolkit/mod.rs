//! The WIND Toolkit's SRW download (`Endpoint::WindToolkitSrw`, the path REopt.jl asks), the
//! wind resource the optimizer service downloads for a Wind section without a production factor:
//! parameters and their validation (shared by the client and the embedded endpoint), the query
//! in the service's form (`lat`, `lon`, `hubheight`, `year`; the key is the transport's), the
//! SRW answer as typed columns (`srw`) and the call (`request`).

pub mod request;
pub mod srw;

use super::raw::RawValue;
use super::solar::{check_range, NumberRange};
use crate::wind::TOOLKIT_HEIGHTS_M;

pub const LATITUDE: NumberRange = NumberRange { name: "lat", min: -90.0, max: 90.0 };
pub const LONGITUDE: NumberRange = NumberRange { name: "lon", min: -180.0, max: 180.0 };
/// The WIND Toolkit's years.
pub const YEARS: std::ops::RangeInclusive<i32> = 2007..=2014;
/// The download's `hubheight` when none is given (m).
pub const DEFAULT_HUB_HEIGHT_M: u32 = 100;

/// The parameters before validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawWindToolkit {
    pub lat: RawValue,
    pub lon: RawValue,
    pub hubheight: RawValue,
    pub year: RawValue,
}

/// Validated parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindToolkitQuery {
    pub latitude: f64,
    pub longitude: f64,
    /// One of `wind::TOOLKIT_HEIGHTS_M` (m).
    pub hub_height_m: u32,
    pub year: i32,
}

impl WindToolkitQuery {
    /// The query string the client sends (the transport adds the key).
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("lat".to_owned(), self.latitude.to_string()),
            ("lon".to_owned(), self.longitude.to_string()),
            ("hubheight".to_owned(), self.hub_height_m.to_string()),
            ("year".to_owned(), self.year.to_string()),
        ]
    }
}

impl RawWindToolkit {
    /// From decoded query pairs (the embedded endpoint); the key and unknown names are ignored
    /// as the live service ignores them.
    pub fn from_query(pairs: &[(String, String)]) -> RawWindToolkit {
        let value = |name: &str| pairs.iter().find(|(key, _)| key == name).map_or(RawValue::Missing, |(_, v)| RawValue::Text(v.clone()));
        RawWindToolkit { lat: value("lat"), lon: value("lon"), hubheight: value("hubheight"), year: value("year") }
    }
}

/// Checks every parameter at once: coordinates in range, `hubheight` one of the toolkit's
/// heights (default 100), `year` 2007 to 2014 (required).
pub fn validate_wind_toolkit(raw: &RawWindToolkit) -> Result<WindToolkitQuery, Vec<String>> {
    let mut problems = Vec::new();
    let latitude = check_range(&raw.lat, LATITUDE).map_err(|p| problems.push(p)).ok();
    let longitude = check_range(&raw.lon, LONGITUDE).map_err(|p| problems.push(p)).ok();
    let heights = TOOLKIT_HEIGHTS_M.map(|h| h.to_string()).join(", ");
    let hub_height_m = if raw.hubheight == RawValue::Missing {
        Some(DEFAULT_HUB_HEIGHT_M)
    } else {
        let height = raw.hubheight.as_whole().and_then(|h| u32::try_from(h).ok()).filter(|h| TOOLKIT_HEIGHTS_M.contains(h));
        if height.is_none() {
            problems.push(format!("hubheight must be one of {heights} (m) (got {})", raw.hubheight.describe()));
        }
        height
    };
    let year = raw.year.as_whole().and_then(|y| i32::try_from(y).ok()).filter(|y| YEARS.contains(y));
    if year.is_none() {
        problems.push(format!("year must be a year from {} to {} (got {})", YEARS.start(), YEARS.end(), raw.year.describe()));
    }
    match (latitude, longitude, hub_height_m, year) {
        (Some(latitude), Some(longitude), Some(hub_height_m), Some(year)) if problems.is_empty() => {
            Ok(WindToolkitQuery { latitude, longitude, hub_height_m, year })
        }
        _ => Err(problems),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_is_listed_and_good_parameters_make_the_services_query() {
        let raw = RawWindToolkit { lat: RawValue::Float(39.9), lon: RawValue::Float(-105.2), hubheight: RawValue::Int(80), year: RawValue::Int(2012) };
        let query = validate_wind_toolkit(&raw).unwrap();
        let pairs: Vec<String> = query.query_pairs().iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(pairs, ["lat=39.9", "lon=-105.2", "hubheight=80", "year=2012"]);
        let defaulted = validate_wind_toolkit(&RawWindToolkit { hubheight: RawValue::Missing, ..raw.clone() }).unwrap();
        assert_eq!(defaulted.hub_height_m, 100);
        let bad = RawWindToolkit { lat: RawValue::Float(91.0), lon: RawValue::Missing, hubheight: RawValue::Int(50), year: RawValue::Int(2020) };
        let problems = validate_wind_toolkit(&bad).unwrap_err();
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[2].starts_with("hubheight must be one of 10, 40, 60, 80, 100, 120, 140, 160, 200"), "{problems:?}");
        let from_text = RawWindToolkit::from_query(&[("lat".into(), "40".into()), ("lon".into(), "-100".into()), ("year".into(), "2012".into())]);
        assert!(validate_wind_toolkit(&from_text).is_ok());
    }
}

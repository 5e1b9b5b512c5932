//! The configuration query: `countries` or a WKT POINT, not both.

use crate::formats::wkt::{parse_wkt, Geometry, LonLat};

/// What a configuration request asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigQuery {
    /// Every region.
    All,
    /// Regions by name (case-insensitive), in the order given.
    Countries(Vec<String>),
    /// The region containing a point; `wkt` is the text as given.
    Point { wkt: String, position: LonLat },
}

impl ConfigQuery {
    /// The query parameters that ask for this (without the api_key).
    pub fn query_pairs(&self) -> Vec<(&'static str, String)> {
        match self {
            ConfigQuery::All => Vec::new(),
            ConfigQuery::Countries(names) => vec![("countries", names.join(","))],
            ConfigQuery::Point { wkt, .. } => vec![("wkt", wkt.clone())],
        }
    }
}

/// Checks the `countries` and `wkt` parameters: at most one of them, a non-empty
/// comma-separated country list, or a WKT POINT (the spec's "point geometry").
pub fn validate_config_query(countries: Option<&str>, wkt: Option<&str>) -> Result<ConfigQuery, Vec<String>> {
    match (countries, wkt) {
        (Some(_), Some(_)) => Err(vec!["countries and wkt: give one of them, not both".to_string()]),
        (None, None) => Ok(ConfigQuery::All),
        (Some(text), None) => {
            let names: Vec<String> =
                text.split(',').map(str::trim).filter(|name| !name.is_empty()).map(str::to_string).collect();
            if names.is_empty() {
                Err(vec!["countries: give at least one country name (comma-separated)".to_string()])
            } else {
                Ok(ConfigQuery::Countries(names))
            }
        }
        (None, Some(text)) => match parse_wkt(text) {
            Ok(Geometry::Point(position)) => Ok(ConfigQuery::Point { wkt: text.trim().to_string(), position }),
            Ok(other) => Err(vec![format!("wkt: give a POINT(lon lat), not a {}", other.kind())]),
            Err(error) => Err(vec![format!("wkt: {error}")]),
        },
    }
}

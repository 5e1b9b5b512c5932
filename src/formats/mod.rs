//! Wire formats shared by the client parsers and the embedded service writers.

#![cfg_attr(
    not(test),
    deny(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_possible_wrap, clippy::indexing_slicing)
)]

pub mod climate_csv;
pub mod climate_zip;
pub mod error_body;
pub mod timezone;
pub mod wkt;
pub mod xml;

/// A response format selected by the path suffix (`v2.json`, `v6.xml`, `-download.csv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Json,
    Xml,
    Csv,
}

impl Format {
    /// Parses a path suffix such as `json`; anything else is `None`.
    pub fn from_suffix(suffix: &str) -> Option<Format> {
        match suffix {
            "json" => Some(Format::Json),
            "xml" => Some(Format::Xml),
            "csv" => Some(Format::Csv),
            _ => None,
        }
    }

    pub fn suffix(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Xml => "xml",
            Format::Csv => "csv",
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json; charset=utf-8",
            Format::Xml => "application/xml; charset=utf-8",
            Format::Csv => "text/csv; charset=utf-8",
        }
    }
}

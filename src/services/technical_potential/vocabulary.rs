//! The technical potential service's vocabulary: land-use types, resource keys, corridor
//! distances and default ranges, and the names and shapes of the job's input fields.

use super::*;

/// The land-use types of the spec, in the live configuration's order.
pub const LAND_USE_TYPES: [&str; 20] = [
    "Barren or Sparsely Vegetated",
    "Cropland/Grassland Mosaic",
    "Cropland/Woodland Mosaic",
    "Deciduous Broadleaf Forest",
    "Dryland Cropland and Pasture",
    "Evergreen Broadleaf Forest",
    "Evergreen Needleleaf Forest",
    "Grassland",
    "Herbaceous Wetland",
    "Irrigated Cropland and Pasture",
    "Mixed Forest",
    "Mixed Shrubland/Grassland",
    "Mixed Tundra",
    "Savanna",
    "Shrubland",
    "Snow or Ice",
    "Urban and Built-Up Land",
    "Water Bodies",
    "Wooded Tundra",
    "Wooded Wetland",
];

/// Resource keys seen in the live configuration.
pub const RESOURCE_KEYS: [&str; 8] =
    ["fixlat", "csp", "axis1", "wind_t200", "wind_t237", "wind_t245", "wind_t255", "wind_t325"];

/// Corridor distances offered by the live configuration (in the request's units).
pub const CORRIDOR_DISTANCES: [f64; 7] = [1.0, 5.0, 10.0, 15.0, 20.0, 50.0, 100.0];

pub const KM_PER_MILE: f64 = 1.609344;

/// `limitBySolarResource` when the caller gives none (kWh/m²/day).
pub const SOLAR_RESOURCE_DEFAULT: Range = Range { min: Some(2.0), max: Some(9.0) };

/// `limitByWindSpeed` when the caller gives none (m/s).
pub const WIND_SPEED_DEFAULT: Range = Range { min: Some(3.0), max: None };

// ---------------------------------------------------------------------------------------------
// Field names and shapes

/// The input fields the spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldName {
    ExcludeProtectedAreas,
    LimitBySlope,
    LimitToTransmissionCorridors,
    LimitToRoadCorridors,
    PowerDensity,
    LimitBySolarResource,
    LimitByWindSpeed,
    LimitByGeographicExtent,
    LimitByLandUse,
}

impl FieldName {
    pub const ALL: [FieldName; 9] = [
        FieldName::ExcludeProtectedAreas,
        FieldName::LimitBySlope,
        FieldName::LimitToTransmissionCorridors,
        FieldName::LimitToRoadCorridors,
        FieldName::PowerDensity,
        FieldName::LimitBySolarResource,
        FieldName::LimitByWindSpeed,
        FieldName::LimitByGeographicExtent,
        FieldName::LimitByLandUse,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FieldName::ExcludeProtectedAreas => "excludeProtectedAreas",
            FieldName::LimitBySlope => "limitBySlope",
            FieldName::LimitToTransmissionCorridors => "limitToTransmissionCorridors",
            FieldName::LimitToRoadCorridors => "limitToRoadCorridors",
            FieldName::PowerDensity => "powerDensity",
            FieldName::LimitBySolarResource => "limitBySolarResource",
            FieldName::LimitByWindSpeed => "limitByWindSpeed",
            FieldName::LimitByGeographicExtent => "limitByGeographicExtent",
            FieldName::LimitByLandUse => "limitByLandUse",
        }
    }

    pub fn parse(name: &str) -> Option<FieldName> {
        FieldName::ALL.into_iter().find(|field| field.as_str() == name)
    }

    /// The `dataType` text of the live configuration.
    pub fn data_type(self) -> &'static str {
        match self {
            FieldName::ExcludeProtectedAreas => "boolean",
            FieldName::PowerDensity => "number",
            FieldName::LimitBySlope | FieldName::LimitBySolarResource | FieldName::LimitByWindSpeed => {
                "min and/or max as number"
            }
            FieldName::LimitToTransmissionCorridors | FieldName::LimitToRoadCorridors => {
                "distance as number and units as one of kilometers or miles"
            }
            FieldName::LimitByGeographicExtent => "array of strings including only provided geographic extents",
            FieldName::LimitByLandUse => "array of strings including only provided land use types",
        }
    }

    pub fn shape(self) -> FieldShape {
        FieldShape::from_data_type(self.data_type()).unwrap_or(FieldShape::Choices)
    }
}

/// How a field's value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldShape {
    Boolean,
    Number,
    /// `{min, max}`, either side optional.
    Range,
    /// `{distance, units}`.
    Corridor,
    /// An array of strings from a list.
    Choices,
}

impl FieldShape {
    /// The shape a `dataType` text describes, for fields whose name the spec does not know.
    pub fn from_data_type(text: &str) -> Option<FieldShape> {
        let text = text.trim().to_ascii_lowercase();
        if text == "boolean" {
            Some(FieldShape::Boolean)
        } else if text == "number" {
            Some(FieldShape::Number)
        } else if text.starts_with("min and/or max") {
            Some(FieldShape::Range)
        } else if text.starts_with("distance") {
            Some(FieldShape::Corridor)
        } else if text.starts_with("array of strings") {
            Some(FieldShape::Choices)
        } else {
            None
        }
    }
}

//! The embedded technical-potential service's synthetic world and its analysis: a few countries
//! with sub-regions drawn as coarse polygons, a deterministic grid of land cells per sub-region,
//! the configuration they offer, and `analyse`, which applies a job's filters and sums capacity,
//! generation and area into resource classes and regional stats.
//!
//! Nothing here is measured data. Country and sub-region names are real so that the live docs'
//! examples (India, id 6, `POINT(77.216 28.644)`, resource 32, "Chhattisgarh") work unchanged;
//! the outlines are hand-drawn approximations of each place's location that follow no real
//! border, leave gaps, and never overlap (a test checks every cell). Every cell attribute is
//! made up by a seeded generator.
//!
//! Cells: each sub-region's bounding box is cut into a 40 × 40 grid of square cells (side =
//! the longer box side / 40, degrees); a cell whose centre lies in the outline is land. Its area is
//! the product of its north–south and east–west great-circle extents. Attributes come from a
//! SplitMix64 seeded with FNV-1a of "<country>/<sub-region>", drawn in row-major order:
//! - solar: GHI = sub-region mean + 0.45 × a smooth wave field + ±0.12 noise, clamped to
//!   2.5..7.5 kWh/m²/day; DNI = GHI × the sub-region's DNI ratio ± 5 %, clamped to 2.0..8.5;
//! - wind speed at 100 m = mean + 1.1 × another wave field ± 0.35, clamped to 2.0..10.5 m/s;
//!   at hub height h it is v100 × (h/100)^(1/7);
//! - slope: exponential with the sub-region's mean, at most 60 %;
//! - protected: with the sub-region's share;
//! - land use: drawn from one of six palettes (arid, farmland, forest, urban, delta, rangeland)
//!   over the spec's 20 types;
//! - distance to transmission and to roads: distance (km, on a local equirectangular projection)
//!   to the nearest of 2–4 (transmission) or 5–9 (roads) random straight lines across the
//!   sub-region.
//!
//! Resources: `fixlat`, `axis1` use GHI, `csp` uses DNI, `wind_t<P>` is read as a turbine of
//! specific power P W/m² on an assigned hub height (t200: 120 m, t237: 110 m, t245: 100 m,
//! t255: 90 m, t325: 80 m) and uses the hub-height wind speed.
//!
//! Capacity factors (CF), with H the resource in kWh/m²/day and v in m/s:
//! - fixlat: CF = 0.80 × H / 24 (performance ratio 0.80 on a 1 kW/m² rating);
//! - axis1: CF = 0.80 × 1.20 × H / 24 (tracking gain 20 %);
//! - csp: CF = 0.064 × (H − 2.0), clamped to 0..0.60 (DNI threshold, storage-backed plant);
//! - wind: CF = 0.55 / (1 + exp(−(v − v50) / 1.5)) with v50 = 6.5 × (P / 250)^(1/3) m/s — a
//!   logistic power-curve fit; for T-200 it gives 0.086 at 3.5 m/s, 0.16 at 4.75 and 0.30 at
//!   6.25, the class capacity factors of the live docs' example result.
//!
//! Classes: resource bins [0, 4), then 0.5 wide up to 9 (solar, kWh/m²/day) or 12 (wind, m/s);
//! only bins with land are listed, ascending, and a class's min/max are its bin edges.
//! Capacity = area × power density (MW/km²); generation = capacity × 8760 h × CF. Totals are
//! rounded to 0.01 like the live service; `min`/`max` (`regional_min`/`regional_max`) are the
//! lowest and highest resource value of the land that passed, rounded to 0.01.

use serde_json::{json, Value};

use crate::formats::wkt::{LonLat, Polygon};
use crate::embedded::catalog::fnv1a64;
use crate::services::technical_potential::{
    number_value, Configuration, FieldName, InputField, JobFilters, Range,
    RegionConfig, ResourceConfig, CORRIDOR_DISTANCES, LAND_USE_TYPES, SOLAR_RESOURCE_DEFAULT,
    WIND_SPEED_DEFAULT,
};

mod analysis;
mod cells;
mod world;

pub use analysis::analyse;
use cells::*;
use world::*;

/// The explorer name of the live service.
pub const LIVE_EXPLORER: &str = "rede";
/// Each sub-region's bounding box is cut into this many cells along its longer side.
const GRID_DIVISIONS: f64 = 40.0;
/// Wind shear exponent (the one-seventh power law).
const WIND_SHEAR_EXPONENT: f64 = 1.0 / 7.0;
/// Reference height of the generated wind speeds, m.
const WIND_REFERENCE_HEIGHT_M: f64 = 100.0;
/// Units of `resource_data` (the solar string is the live service's).
const SOLAR_UNITS: &str = "kWh/m<sup>2</sup>/day";
const WIND_UNITS: &str = "m/s";

const SOLAR_CLASS_EDGES: [f64; 12] = [0.0, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0];
const WIND_CLASS_EDGES: [f64; 18] =
    [0.0, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0, 9.5, 10.0, 10.5, 11.0, 11.5, 12.0];

// ---------------------------------------------------------------------------------------------
// Resources

/// What a resource key stands for in the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResourceKind {
    FixedTilt,
    OneAxis,
    Csp,
    /// A turbine of `specific_power` W/m² of rotor area on a `hub_height_m` tower.
    Wind {
        specific_power: f64,
        hub_height_m: f64,
    },
}

impl ResourceKind {
    pub fn is_wind(self) -> bool {
        matches!(self, ResourceKind::Wind { .. })
    }

    /// Capacity factor (0..1) at a resource value (kWh/m²/day for solar, m/s for wind).
    pub fn capacity_factor(self, value: f64) -> f64 {
        let cf = match self {
            ResourceKind::FixedTilt => 0.80 * value / 24.0,
            ResourceKind::OneAxis => 0.80 * 1.20 * value / 24.0,
            ResourceKind::Csp => (0.064 * (value - 2.0)).clamp(0.0, 0.60),
            ResourceKind::Wind { specific_power, .. } => {
                let v50 = 6.5 * (specific_power / 250.0).cbrt();
                0.55 / (1.0 + (-(value - v50) / 1.5).exp())
            }
        };
        cf.clamp(0.0, 1.0)
    }

    /// Edges of the resource classes.
    pub fn class_edges(self) -> &'static [f64] {
        if self.is_wind() {
            &WIND_CLASS_EDGES
        } else {
            &SOLAR_CLASS_EDGES
        }
    }

    pub fn units(self) -> &'static str {
        if self.is_wind() {
            WIND_UNITS
        } else {
            SOLAR_UNITS
        }
    }

    /// The resource limit of a job that applies to this kind.
    fn limit(self, filters: &JobFilters) -> Option<Range> {
        if self.is_wind() {
            filters.wind_speed
        } else {
            filters.solar_resource
        }
    }

    /// The input fields the configuration offers, in the live configuration's order.
    fn input_fields(self) -> [FieldName; 8] {
        let resource_limit = if self.is_wind() { FieldName::LimitByWindSpeed } else { FieldName::LimitBySolarResource };
        let (fifth, sixth) = if self.is_wind() {
            (FieldName::LimitToRoadCorridors, resource_limit)
        } else {
            (resource_limit, FieldName::LimitToRoadCorridors)
        };
        [
            FieldName::ExcludeProtectedAreas,
            FieldName::LimitBySlope,
            FieldName::LimitToTransmissionCorridors,
            FieldName::PowerDensity,
            fifth,
            sixth,
            FieldName::LimitByGeographicExtent,
            FieldName::LimitByLandUse,
        ]
    }
}

/// A resource of the model, with the ids and labels of the live configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceSpec {
    pub id: i64,
    pub key: &'static str,
    pub label: &'static str,
    /// MW/km².
    pub default_power_density: f64,
    pub kind: ResourceKind,
}

const fn wind(id: i64, key: &'static str, label: &'static str, specific_power: f64, hub_height_m: f64) -> ResourceSpec {
    ResourceSpec {
        id,
        key,
        label,
        default_power_density: 3.0,
        kind: ResourceKind::Wind { specific_power, hub_height_m },
    }
}

/// Every resource, in the live configuration's order.
pub const RESOURCES: [ResourceSpec; 8] = [
    ResourceSpec {
        id: 14,
        key: "fixlat",
        label: "Fixed Tilt PV System",
        default_power_density: 36.0,
        kind: ResourceKind::FixedTilt,
    },
    ResourceSpec { id: 15, key: "csp", label: "CSP", default_power_density: 29.0, kind: ResourceKind::Csp },
    ResourceSpec {
        id: 13,
        key: "axis1",
        label: "1 Axis Tracking PV System",
        default_power_density: 31.0,
        kind: ResourceKind::OneAxis,
    },
    wind(32, "wind_t200", "Wind T-200", 200.0, 120.0),
    wind(35, "wind_t255", "Wind T-255", 255.0, 90.0),
    wind(34, "wind_t245", "Wind T-245", 245.0, 100.0),
    wind(33, "wind_t237", "Wind T-237", 237.0, 110.0),
    wind(36, "wind_t325", "Wind T-325", 325.0, 80.0),
];

pub fn resource_by_key(key: &str) -> Option<&'static ResourceSpec> {
    RESOURCES.iter().find(|resource| resource.key == key)
}

// ---------------------------------------------------------------------------------------------
// The world

/// One land cell of the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct LandCell {
    /// Cell centre.
    pub position: LonLat,
    pub area_sq_km: f64,
    /// One of the spec's land-use types.
    pub land_use: &'static str,
    pub slope_percent: f64,
    pub protected: bool,
    pub transmission_km: f64,
    pub road_km: f64,
    /// kWh/m²/day.
    pub ghi: f64,
    /// kWh/m²/day.
    pub dni: f64,
    /// m/s at 100 m.
    pub wind_speed_100m: f64,
}

impl LandCell {
    /// Wind speed at a hub height (power law, exponent 1/7), m/s.
    pub fn wind_speed_at(&self, hub_height_m: f64) -> f64 {
        self.wind_speed_100m * (hub_height_m / WIND_REFERENCE_HEIGHT_M).powf(WIND_SHEAR_EXPONENT)
    }

    /// The resource value a kind is analysed on.
    pub fn resource_value(&self, kind: ResourceKind) -> f64 {
        match kind {
            ResourceKind::FixedTilt | ResourceKind::OneAxis => self.ghi,
            ResourceKind::Csp => self.dni,
            ResourceKind::Wind { hub_height_m, .. } => self.wind_speed_at(hub_height_m),
        }
    }
}

/// A sub-region (a selectable geographic extent) with its cells.
#[derive(Debug, Clone, PartialEq)]
pub struct SubRegion {
    pub name: &'static str,
    pub outline: Polygon,
    pub cells: Vec<LandCell>,
}

/// A country (a configuration output).
#[derive(Debug, Clone, PartialEq)]
pub struct Country {
    pub id: i64,
    pub label: &'static str,
    pub outline: Polygon,
    pub resources: Vec<&'static ResourceSpec>,
    pub sub_regions: Vec<SubRegion>,
}

impl Country {
    /// True if the point lies in the country's outline or in one of its sub-regions (islands).
    pub fn contains(&self, position: LonLat) -> bool {
        self.outline.contains(position) || self.sub_regions.iter().any(|s| s.outline.contains(position))
    }

    pub fn resource(&self, id: i64) -> Option<&'static ResourceSpec> {
        self.resources.iter().copied().find(|resource| resource.id == id)
    }
}

/// The synthetic world and the configuration it offers. Build it once and share it.
#[derive(Debug, Clone, PartialEq)]
pub struct TechnicalPotentialModel {
    countries: Vec<Country>,
    configuration: Configuration,
}

impl TechnicalPotentialModel {
    /// Builds every country and its cells; the result is the same on every call and machine.
    /// The process-wide model, built on first use (about 10 ms) and shared by every service.
    pub fn shared() -> &'static TechnicalPotentialModel {
        static SHARED: std::sync::OnceLock<TechnicalPotentialModel> = std::sync::OnceLock::new();
        SHARED.get_or_init(TechnicalPotentialModel::synthetic)
    }

    pub fn synthetic() -> TechnicalPotentialModel {
        let countries: Vec<Country> = COUNTRIES.iter().map(build_country).collect();
        let regions: Vec<RegionConfig> = countries.iter().map(region_config).collect();
        let configuration =
            Configuration { version: None, count: Some(regions.len() as i64), inputs: Default::default(), regions };
        TechnicalPotentialModel { countries, configuration }
    }

    pub fn countries(&self) -> &[Country] {
        &self.countries
    }

    /// The configuration of every country (one output per country).
    pub fn configuration(&self) -> &Configuration {
        &self.configuration
    }

    pub fn country(&self, id: i64) -> Option<&Country> {
        self.countries.iter().find(|country| country.id == id)
    }

    /// The country with this name (case-insensitive, surrounding spaces ignored).
    pub fn country_named(&self, name: &str) -> Option<&Country> {
        self.countries.iter().find(|country| country.label.eq_ignore_ascii_case(name.trim()))
    }

    /// The country containing a point.
    pub fn country_at(&self, position: LonLat) -> Option<&Country> {
        self.countries.iter().find(|country| country.contains(position))
    }
}

fn polygon(outline: Outline) -> Polygon {
    let mut exterior: Vec<LonLat> = outline.iter().map(|&(lon, lat)| LonLat { lon, lat }).collect();
    if let Some(first) = exterior.first().copied() {
        exterior.push(first);
    }
    Polygon { exterior, holes: Vec::new() }
}

fn build_country(spec: &CountrySpec) -> Country {
    Country {
        id: spec.id,
        label: spec.label,
        outline: polygon(spec.outline),
        resources: spec.resources.iter().filter_map(|key| resource_by_key(key)).collect(),
        sub_regions: spec
            .sub_regions
            .iter()
            .map(|sub| {
                let outline = polygon(sub.outline);
                let seed = fnv1a64(&format!("{}/{}", spec.label, sub.name));
                let cells = generate_cells(&outline, sub.climate, seed);
                SubRegion { name: sub.name, outline, cells }
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// Cell generation

// ---------------------------------------------------------------------------------------------
// Configuration

/// Field ids of the live configuration (its solar limit is 18; the live CSP entry used 2).
fn field_id(name: FieldName) -> i64 {
    match name {
        FieldName::ExcludeProtectedAreas => 3,
        FieldName::LimitByLandUse => 4,
        FieldName::LimitToRoadCorridors => 5,
        FieldName::LimitToTransmissionCorridors => 6,
        FieldName::LimitBySlope => 7,
        FieldName::LimitByGeographicExtent => 8,
        FieldName::PowerDensity => 17,
        FieldName::LimitBySolarResource => 18,
        FieldName::LimitByWindSpeed => 21,
    }
}

fn region_config(country: &Country) -> RegionConfig {
    RegionConfig {
        id: country.id,
        region_id: country.id,
        label: country.label.to_string(),
        resources: country.resources.iter().map(|resource| resource_config(resource, country)).collect(),
    }
}

fn resource_config(resource: &ResourceSpec, country: &Country) -> ResourceConfig {
    ResourceConfig {
        id: resource.id,
        key: resource.key.to_string(),
        label: resource.label.to_string(),
        default_power_density: Some(resource.default_power_density),
        input_fields: resource.kind.input_fields().into_iter().map(|name| input_field(name, country)).collect(),
    }
}

fn input_field(name: FieldName, country: &Country) -> InputField {
    let field_values = match name {
        FieldName::LimitToTransmissionCorridors | FieldName::LimitToRoadCorridors => {
            let distances: Vec<Value> = CORRIDOR_DISTANCES.iter().map(|d| number_value(*d)).collect();
            Some(json!({"distance": distances, "units": ["kilometers", "miles"]}))
        }
        FieldName::LimitByGeographicExtent => {
            Some(Value::from(country.sub_regions.iter().map(|s| s.name).collect::<Vec<_>>()))
        }
        FieldName::LimitByLandUse => Some(Value::from(LAND_USE_TYPES.to_vec())),
        _ => None,
    };
    let default_value = match name {
        FieldName::LimitBySolarResource => Some(SOLAR_RESOURCE_DEFAULT.to_number_value()),
        FieldName::LimitByWindSpeed => Some(WIND_SPEED_DEFAULT.to_number_value()),
        _ => None,
    };
    InputField {
        field_id: field_id(name),
        field_name: name.as_str().to_string(),
        data_type: name.data_type().to_string(),
        field_values,
        default_value,
    }
}

// ---------------------------------------------------------------------------------------------
// Analysis

#[cfg(test)]
mod tests;

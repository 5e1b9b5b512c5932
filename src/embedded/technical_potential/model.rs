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

use std::collections::BTreeMap;
use std::f64::consts::PI;

use serde_json::{json, Value};

use crate::formats::calendar::HOURS_PER_YEAR;
use crate::formats::wkt::{LonLat, Polygon};
use crate::geodesy::{haversine_m, EARTH_RADIUS_M};
use crate::embedded::catalog::fnv1a64;
use crate::embedded::prng::SplitMix64;
use crate::services::technical_potential::{
    number_value, ClassStats, Configuration, Corridor, FieldName, InputField, JobFilters, JobResultData, Range,
    RegionConfig, ResourceConfig, ResourceData, Stats, CORRIDOR_DISTANCES, LAND_USE_TYPES, SOLAR_RESOURCE_DEFAULT,
    WIND_SPEED_DEFAULT,
};

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

/// A polygon outline as (longitude, latitude) vertices, not closed.
type Outline = &'static [(f64, f64)];

/// A land-use mix: weights over [`LAND_USE_TYPES`] in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LandPalette {
    Arid,
    Farmland,
    Forest,
    Urban,
    Delta,
    Rangeland,
}

impl LandPalette {
    fn weights(self) -> [u32; 20] {
        match self {
            LandPalette::Arid => [30, 3, 0, 0, 15, 0, 0, 10, 0, 5, 0, 10, 0, 2, 20, 0, 2, 1, 0, 0],
            LandPalette::Farmland => [2, 10, 8, 5, 15, 2, 0, 5, 2, 30, 2, 0, 0, 5, 5, 0, 5, 3, 0, 1],
            LandPalette::Forest => [0, 0, 15, 20, 8, 20, 0, 3, 0, 5, 10, 0, 0, 10, 3, 0, 2, 2, 0, 2],
            LandPalette::Urban => [3, 5, 0, 0, 10, 0, 0, 5, 0, 15, 0, 0, 0, 0, 3, 0, 55, 4, 0, 0],
            LandPalette::Delta => [0, 6, 8, 0, 0, 5, 0, 0, 10, 35, 5, 0, 0, 0, 0, 0, 8, 15, 0, 8],
            LandPalette::Rangeland => [15, 0, 0, 2, 5, 0, 0, 20, 0, 0, 0, 10, 0, 25, 20, 0, 1, 2, 0, 0],
        }
    }

    fn pick(self, draw: f64) -> &'static str {
        let weights = self.weights();
        let total: u32 = weights.iter().sum();
        let target = draw * f64::from(total);
        let mut cumulative = 0.0;
        for (name, weight) in LAND_USE_TYPES.iter().zip(weights) {
            cumulative += f64::from(weight);
            if target < cumulative {
                return name;
            }
        }
        LAND_USE_TYPES[weights.iter().rposition(|w| *w > 0).unwrap_or(0)]
    }
}

/// The made-up climate and land of one sub-region.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Climate {
    /// Mean GHI, kWh/m²/day.
    ghi: f64,
    /// DNI / GHI.
    dni_ratio: f64,
    /// Mean wind speed at 100 m, m/s.
    wind_100m: f64,
    /// Mean slope, percent.
    slope: f64,
    /// Share of protected land.
    protected: f64,
    land: LandPalette,
}

struct SubRegionSpec {
    name: &'static str,
    outline: Outline,
    climate: Climate,
}

struct CountrySpec {
    id: i64,
    label: &'static str,
    outline: Outline,
    resources: &'static [&'static str],
    sub_regions: &'static [SubRegionSpec],
}

const fn climate(ghi: f64, dni_ratio: f64, wind_100m: f64, slope: f64, protected: f64, land: LandPalette) -> Climate {
    Climate { ghi, dni_ratio, wind_100m, slope, protected, land }
}

#[rustfmt::skip]
const COUNTRIES: [CountrySpec; 3] = [
    CountrySpec {
        id: 6,
        label: "India",
        outline: &[
            (68.1, 23.7), (70.0, 20.7), (72.8, 18.9), (73.4, 16.0), (74.6, 12.7), (76.3, 9.5), (77.5, 8.1),
            (78.2, 8.9), (79.9, 10.3), (80.3, 13.1), (80.2, 15.9), (82.4, 17.0), (84.9, 19.3), (86.9, 21.1),
            (88.5, 21.6), (88.7, 24.0), (88.4, 26.0), (89.9, 26.4), (92.0, 26.8), (95.3, 26.6), (97.0, 28.2),
            (95.5, 29.3), (91.6, 27.8), (88.1, 27.9), (84.5, 27.4), (80.3, 28.9), (79.0, 30.8), (78.9, 32.3),
            (77.0, 35.5), (74.4, 35.0), (73.7, 33.0), (74.6, 31.0), (73.4, 29.9), (70.6, 28.0), (69.5, 26.7),
            (70.3, 25.5), (68.8, 24.3),
        ],
        resources: &["fixlat", "csp", "axis1", "wind_t200", "wind_t255", "wind_t245", "wind_t237", "wind_t325"],
        sub_regions: &[
            SubRegionSpec {
                name: "Andaman and Nicobar",
                outline: &[(92.2, 10.5), (93.1, 10.4), (93.2, 13.6), (92.7, 13.7)],
                climate: climate(4.9, 0.85, 6.0, 6.0, 0.35, LandPalette::Forest),
            },
            SubRegionSpec {
                name: "Chhattisgarh",
                outline: &[
                    (80.5, 18.0), (81.5, 17.8), (82.3, 18.6), (82.5, 20.0), (83.9, 21.8), (83.3, 23.6),
                    (82.0, 23.9), (81.2, 23.0), (80.7, 21.5), (80.9, 20.2),
                ],
                climate: climate(5.2, 0.95, 5.2, 3.0, 0.12, LandPalette::Forest),
            },
            SubRegionSpec {
                name: "Delhi",
                outline: &[(76.84, 28.41), (77.35, 28.41), (77.35, 28.88), (76.84, 28.88)],
                climate: climate(5.3, 0.85, 4.4, 0.8, 0.04, LandPalette::Urban),
            },
            SubRegionSpec {
                name: "Gujarat",
                outline: &[
                    (68.4, 23.6), (69.2, 22.4), (70.2, 20.9), (71.5, 20.8), (72.6, 20.6), (73.4, 21.4),
                    (74.0, 22.4), (73.8, 23.3), (73.0, 23.9), (71.0, 24.3), (69.5, 24.2),
                ],
                climate: climate(5.8, 1.05, 6.9, 1.5, 0.08, LandPalette::Farmland),
            },
            SubRegionSpec {
                name: "Karnataka",
                outline: &[
                    (74.3, 15.3), (74.8, 13.0), (75.6, 12.0), (77.0, 11.7), (78.4, 12.6), (77.8, 14.2),
                    (77.3, 15.8), (76.2, 16.0), (75.0, 16.0),
                ],
                climate: climate(5.6, 1.0, 6.4, 3.5, 0.10, LandPalette::Farmland),
            },
            SubRegionSpec {
                name: "Maharashtra",
                outline: &[
                    (73.0, 19.9), (73.4, 17.0), (74.0, 16.3), (75.5, 16.6), (77.5, 17.8), (79.0, 18.5),
                    (80.3, 19.5), (80.0, 21.0), (78.5, 21.6), (76.0, 21.4), (74.5, 21.9), (73.7, 21.0),
                ],
                climate: climate(5.5, 1.0, 5.8, 3.0, 0.07, LandPalette::Farmland),
            },
            SubRegionSpec {
                name: "Rajasthan",
                outline: &[
                    (69.9, 26.6), (70.5, 25.4), (71.2, 24.7), (73.0, 24.3), (74.5, 23.5), (76.0, 24.3),
                    (77.2, 25.4), (78.2, 26.6), (77.0, 27.6), (76.2, 28.2), (75.2, 29.9), (73.6, 29.8),
                    (72.0, 28.3), (70.6, 27.8),
                ],
                climate: climate(6.0, 1.12, 6.2, 1.2, 0.05, LandPalette::Arid),
            },
            SubRegionSpec {
                name: "Tamil Nadu",
                outline: &[
                    (76.9, 11.2), (77.4, 8.6), (78.0, 8.9), (79.3, 10.2), (79.9, 11.8), (80.1, 13.3),
                    (78.8, 12.4), (77.6, 11.5),
                ],
                climate: climate(5.5, 0.95, 7.0, 2.5, 0.08, LandPalette::Farmland),
            },
        ],
    },
    CountrySpec {
        id: 3,
        label: "Bangladesh",
        outline: &[
            (89.0, 22.0), (89.6, 21.8), (90.6, 22.2), (91.5, 22.3), (92.1, 21.0), (92.4, 20.8), (92.6, 21.6),
            (92.3, 23.6), (91.9, 24.2), (92.2, 24.9), (90.6, 25.2), (89.9, 25.3), (89.7, 26.0), (89.0, 25.9),
            (89.1, 24.3),
        ],
        resources: &["fixlat", "axis1", "wind_t245", "wind_t255"],
        sub_regions: &[
            SubRegionSpec {
                name: "Chittagong",
                outline: &[
                    (91.5, 22.6), (92.05, 21.45), (92.3, 21.2), (92.4, 22.0), (92.1, 23.4), (91.7, 24.0),
                    (91.3, 23.6),
                ],
                climate: climate(4.8, 0.8, 5.0, 5.0, 0.15, LandPalette::Forest),
            },
            SubRegionSpec {
                name: "Dhaka",
                outline: &[(90.0, 23.2), (91.0, 23.2), (91.0, 24.9), (90.0, 24.9)],
                climate: climate(4.6, 0.75, 4.3, 0.5, 0.03, LandPalette::Delta),
            },
            SubRegionSpec {
                name: "Khulna",
                outline: &[(89.1, 22.2), (89.9, 22.1), (89.9, 23.9), (89.15, 23.9)],
                climate: climate(4.8, 0.8, 5.2, 0.4, 0.20, LandPalette::Delta),
            },
            SubRegionSpec {
                name: "Rajshahi",
                outline: &[(89.15, 24.1), (89.9, 24.1), (89.9, 25.2), (89.2, 25.2)],
                climate: climate(4.9, 0.85, 4.5, 0.5, 0.02, LandPalette::Farmland),
            },
        ],
    },
    CountrySpec {
        id: 12,
        label: "Kenya",
        outline: &[
            (33.9, 0.1), (34.0, 1.2), (34.9, 4.6), (35.9, 4.6), (36.9, 4.4), (38.1, 3.6), (39.6, 3.5),
            (41.0, 4.0), (41.9, 3.9), (41.0, 2.8), (41.0, -1.7), (40.2, -2.8), (39.2, -4.7), (37.7, -3.4),
            (34.1, -1.0),
        ],
        resources: &["fixlat", "csp", "axis1", "wind_t200", "wind_t245", "wind_t255"],
        sub_regions: &[
            SubRegionSpec {
                name: "Coast",
                outline: &[(38.6, -3.0), (39.9, -2.4), (40.05, -2.9), (39.15, -4.4), (38.9, -4.1)],
                climate: climate(5.6, 0.95, 5.8, 1.5, 0.18, LandPalette::Rangeland),
            },
            SubRegionSpec {
                name: "Garissa",
                outline: &[(39.3, -1.2), (40.8, -1.2), (40.8, 1.0), (39.3, 1.0)],
                climate: climate(6.1, 1.1, 6.0, 0.8, 0.10, LandPalette::Rangeland),
            },
            SubRegionSpec {
                name: "Marsabit",
                outline: &[(36.6, 1.3), (39.0, 1.3), (39.5, 3.4), (38.1, 3.5), (36.9, 4.2), (36.5, 3.0)],
                climate: climate(6.3, 1.15, 8.0, 2.5, 0.12, LandPalette::Arid),
            },
            SubRegionSpec {
                name: "Nairobi",
                outline: &[(36.65, -1.45), (37.1, -1.45), (37.1, -1.1), (36.65, -1.1)],
                climate: climate(5.5, 0.95, 5.0, 2.5, 0.20, LandPalette::Urban),
            },
            SubRegionSpec {
                name: "Turkana",
                outline: &[(34.6, 1.4), (36.2, 1.5), (36.4, 3.0), (35.9, 4.4), (35.0, 4.4), (34.8, 3.5)],
                climate: climate(6.4, 1.2, 8.4, 2.5, 0.08, LandPalette::Arid),
            },
        ],
    },
];

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
pub struct TpModel {
    countries: Vec<Country>,
    configuration: Configuration,
}

impl TpModel {
    /// Builds every country and its cells; the result is the same on every call and machine.
    /// The process-wide model, built on first use (about 10 ms) and shared by every service.
    pub fn shared() -> &'static TpModel {
        static SHARED: std::sync::OnceLock<TpModel> = std::sync::OnceLock::new();
        SHARED.get_or_init(TpModel::synthetic)
    }

    pub fn synthetic() -> TpModel {
        let countries: Vec<Country> = COUNTRIES.iter().map(build_country).collect();
        let regions: Vec<RegionConfig> = countries.iter().map(region_config).collect();
        let configuration =
            Configuration { version: None, count: Some(regions.len() as i64), inputs: Default::default(), regions };
        TpModel { countries, configuration }
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

/// A smooth field in −1..1: a sum of three plane waves of 1.5–4.5° wavelength.
struct Waves {
    terms: [(f64, f64, f64, f64); 3],
}

impl Waves {
    fn random(rng: &mut SplitMix64) -> Waves {
        let mut term = || {
            let wavenumber = 2.0 * PI / (1.5 + 3.0 * rng.next_f64());
            let direction = 2.0 * PI * rng.next_f64();
            let phase = 2.0 * PI * rng.next_f64();
            let amplitude = 0.5 + 0.5 * rng.next_f64();
            (wavenumber * direction.cos(), wavenumber * direction.sin(), phase, amplitude)
        };
        Waves { terms: [term(), term(), term()] }
    }

    fn at(&self, position: LonLat) -> f64 {
        let total: f64 = self.terms.iter().map(|t| t.3).sum();
        let sum: f64 = self
            .terms
            .iter()
            .map(|(kx, ky, phase, amplitude)| amplitude * (kx * position.lon + ky * position.lat + phase).sin())
            .sum();
        sum / total
    }
}

/// A straight line segment (a power line or a road).
type Segment = (LonLat, LonLat);

fn random_segments(rng: &mut SplitMix64, bounds: (f64, f64, f64, f64), count: u64) -> Vec<Segment> {
    let (west, south, east, north) = bounds;
    let mut point =
        || LonLat { lon: west + (east - west) * rng.next_f64(), lat: south + (north - south) * rng.next_f64() };
    (0..count).map(|_| (point(), point())).collect()
}

/// Planar distance (km) from a point to the nearest segment, on a local equirectangular
/// projection centred on the point.
fn nearest_segment_km(position: LonLat, segments: &[Segment]) -> f64 {
    let km_per_degree = EARTH_RADIUS_M / 1000.0 * PI / 180.0;
    let x_scale = km_per_degree * position.lat.to_radians().cos();
    let project = |p: LonLat| ((p.lon - position.lon) * x_scale, (p.lat - position.lat) * km_per_degree);
    segments
        .iter()
        .map(|&(a, b)| {
            let ((ax, ay), (bx, by)) = (project(a), project(b));
            let (dx, dy) = (bx - ax, by - ay);
            let length_squared = dx * dx + dy * dy;
            let t = if length_squared > 0.0 { (-(ax * dx + ay * dy) / length_squared).clamp(0.0, 1.0) } else { 0.0 };
            (ax + t * dx).hypot(ay + t * dy)
        })
        .fold(f64::INFINITY, f64::min)
}

/// Area of a square cell of `step` degrees centred on a point, km².
fn cell_area_sq_km(centre: LonLat, step: f64) -> f64 {
    let half = step / 2.0;
    let north_south = haversine_m(centre.lat - half, centre.lon, centre.lat + half, centre.lon);
    let east_west = haversine_m(centre.lat, centre.lon - half, centre.lat, centre.lon + half);
    north_south * east_west / 1.0e6
}

/// Signed uniform noise in −1..1.
fn noise(rng: &mut SplitMix64) -> f64 {
    2.0 * rng.next_f64() - 1.0
}

fn generate_cells(outline: &Polygon, climate: Climate, seed: u64) -> Vec<LandCell> {
    let mut rng = SplitMix64::new(seed);
    let bounds = outline.bounds();
    let (west, south, east, north) = bounds;
    let step = (east - west).max(north - south) / GRID_DIVISIONS;
    let solar_field = Waves::random(&mut rng);
    let wind_field = Waves::random(&mut rng);
    let line_count = 2 + rng.below(3);
    let transmission = random_segments(&mut rng, bounds, line_count);
    let road_count = 5 + rng.below(5);
    let roads = random_segments(&mut rng, bounds, road_count);
    let columns = ((east - west) / step).ceil() as usize;
    let rows = ((north - south) / step).ceil() as usize;
    let mut cells = Vec::new();
    for row in 0..rows {
        for column in 0..columns {
            let position = LonLat { lon: west + (column as f64 + 0.5) * step, lat: south + (row as f64 + 0.5) * step };
            if !outline.contains(position) {
                continue;
            }
            let ghi = (climate.ghi + 0.45 * solar_field.at(position) + 0.12 * noise(&mut rng)).clamp(2.5, 7.5);
            let dni = (ghi * climate.dni_ratio * (1.0 + 0.05 * noise(&mut rng))).clamp(2.0, 8.5);
            let wind_speed_100m =
                (climate.wind_100m + 1.1 * wind_field.at(position) + 0.35 * noise(&mut rng)).clamp(2.0, 10.5);
            let slope_percent = (-(1.0 - rng.next_f64()).ln() * climate.slope).min(60.0);
            let protected = rng.next_f64() < climate.protected;
            let land_use = climate.land.pick(rng.next_f64());
            cells.push(LandCell {
                position,
                area_sq_km: cell_area_sq_km(position, step),
                land_use,
                slope_percent,
                protected,
                transmission_km: nearest_segment_km(position, &transmission),
                road_km: nearest_segment_km(position, &roads),
                ghi,
                dni,
                wind_speed_100m,
            });
        }
    }
    cells
}

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

/// Runs a job: keeps the cells of the selected sub-regions that pass every filter, and sums
/// their capacity, generation and area. `filters` is applied as given (defaults are filled in by
/// validation); a missing power density is the resource's default.
pub fn analyse(country: &Country, resource: &ResourceSpec, filters: &JobFilters) -> JobResultData {
    let kind = resource.kind;
    let power_density = filters.power_density.unwrap_or(resource.default_power_density);
    let limit = kind.limit(filters);
    let mut cumulative = Tally::new(kind.class_edges());
    let mut regional_stats = BTreeMap::new();
    for sub_region in country.sub_regions.iter().filter(|sub| is_selected(filters, sub.name)) {
        let mut tally = Tally::new(kind.class_edges());
        for cell in sub_region.cells.iter().filter(|cell| passes_land_filters(cell, filters)) {
            let value = cell.resource_value(kind);
            if limit.is_some_and(|limit| !limit.contains(value)) {
                continue;
            }
            let capacity = cell.area_sq_km * power_density;
            let share = Share {
                value,
                area: cell.area_sq_km,
                capacity,
                generation: capacity * HOURS_PER_YEAR as f64 * kind.capacity_factor(value),
            };
            tally.add(share);
            cumulative.add(share);
        }
        if tally.cells > 0 {
            regional_stats.insert(sub_region.name.to_string(), tally.stats());
        }
    }
    JobResultData {
        cumulative_stats: cumulative.stats(),
        regional_stats,
        resource_data: Some(ResourceData { resource_type: resource.key.to_string(), units: kind.units().to_string() }),
    }
}

fn is_selected(filters: &JobFilters, name: &str) -> bool {
    filters.geographic_extent.as_ref().is_none_or(|names| names.iter().any(|n| n == name))
}

/// Every filter that does not depend on the resource.
fn passes_land_filters(cell: &LandCell, filters: &JobFilters) -> bool {
    let within = |corridor: &Option<Corridor>, distance_km: f64| {
        corridor.is_none_or(|corridor| distance_km <= corridor.distance_km())
    };
    !(filters.exclude_protected_areas && cell.protected)
        && filters.slope.is_none_or(|slope| slope.contains(cell.slope_percent))
        && within(&filters.transmission_corridor, cell.transmission_km)
        && within(&filters.road_corridor, cell.road_km)
        && !filters.excluded_land_use.iter().any(|name| name == cell.land_use)
}

/// What one kept cell adds.
#[derive(Debug, Clone, Copy)]
struct Share {
    value: f64,
    area: f64,
    capacity: f64,
    generation: f64,
}

/// Running sums over kept cells, overall and per class.
struct Tally {
    edges: &'static [f64],
    cells: usize,
    area: f64,
    capacity: f64,
    generation: f64,
    min: f64,
    max: f64,
    classes: Vec<(f64, f64, f64)>,
}

impl Tally {
    fn new(edges: &'static [f64]) -> Tally {
        Tally {
            edges,
            cells: 0,
            area: 0.0,
            capacity: 0.0,
            generation: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            classes: vec![(0.0, 0.0, 0.0); edges.len().saturating_sub(1)],
        }
    }

    fn add(&mut self, share: Share) {
        self.cells += 1;
        self.area += share.area;
        self.capacity += share.capacity;
        self.generation += share.generation;
        self.min = self.min.min(share.value);
        self.max = self.max.max(share.value);
        let last = self.classes.len().saturating_sub(1);
        let index = self.edges.windows(2).position(|edge| share.value < edge[1]).unwrap_or(last);
        if let Some(class) = self.classes.get_mut(index) {
            class.0 += share.area;
            class.1 += share.capacity;
            class.2 += share.generation;
        }
    }

    fn stats(&self) -> Stats {
        let kept = self.cells > 0;
        let classes = self
            .classes
            .iter()
            .enumerate()
            .filter(|(_, (area, _, _))| *area > 0.0)
            .map(|(index, (area, capacity, generation))| ClassStats {
                nameplate_capacity_mw: round2(*capacity),
                ac_generation_mwh: round2(*generation),
                land_area_sq_km: round2(*area),
                min: self.edges[index],
                max: self.edges[index + 1],
            })
            .collect();
        Stats {
            total_nameplate_capacity_mw: round2(self.capacity),
            total_ac_generation_mwh: round2(self.generation),
            total_land_area_sq_km: round2(self.area),
            min: kept.then(|| round2(self.min)),
            max: kept.then(|| round2(self.max)),
            classes,
        }
    }
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::technical_potential::{validate_job, DistanceUnit, RESOURCE_KEYS};

    fn model() -> TpModel {
        TpModel::synthetic()
    }

    #[test]
    fn every_cell_lies_in_exactly_one_sub_region_and_in_its_country() {
        let model = model();
        for country in model.countries() {
            for sub_region in &country.sub_regions {
                assert!(sub_region.cells.len() >= 50, "{} has {} cells", sub_region.name, sub_region.cells.len());
                for cell in &sub_region.cells {
                    let owners: Vec<&str> = model
                        .countries()
                        .iter()
                        .flat_map(|c| c.sub_regions.iter())
                        .filter(|s| s.outline.contains(cell.position))
                        .map(|s| s.name)
                        .collect();
                    assert_eq!(owners, vec![sub_region.name], "cell {:?}", cell.position);
                    let countries: Vec<i64> =
                        model.countries().iter().filter(|c| c.contains(cell.position)).map(|c| c.id).collect();
                    assert_eq!(countries, vec![country.id], "cell {:?} of {}", cell.position, sub_region.name);
                }
            }
        }
    }

    #[test]
    fn sub_regions_other_than_islands_lie_inside_the_country_outline() {
        let model = model();
        for country in model.countries() {
            for sub_region in country.sub_regions.iter().filter(|s| s.name != "Andaman and Nicobar") {
                let outside = sub_region.cells.iter().filter(|cell| !country.outline.contains(cell.position)).count();
                assert_eq!(outside, 0, "{} has {outside} cells outside {}", sub_region.name, country.label);
            }
        }
    }

    #[test]
    fn the_model_is_deterministic_and_attributes_are_in_range() {
        let (a, b) = (model(), model());
        assert_eq!(a, b);
        for cell in a.countries().iter().flat_map(|c| c.sub_regions.iter()).flat_map(|s| s.cells.iter()) {
            assert!((2.5..=7.5).contains(&cell.ghi));
            assert!((2.0..=8.5).contains(&cell.dni));
            assert!((2.0..=10.5).contains(&cell.wind_speed_100m));
            assert!((0.0..=60.0).contains(&cell.slope_percent));
            assert!(cell.area_sq_km > 0.0 && cell.transmission_km >= 0.0 && cell.road_km >= 0.0);
            assert!(LAND_USE_TYPES.contains(&cell.land_use));
        }
    }

    #[test]
    fn points_find_their_country() {
        let model = model();
        let at = |lon, lat| model.country_at(LonLat { lon, lat }).map(|c| c.label);
        assert_eq!(at(77.216, 28.644), Some("India"));
        assert_eq!(at(92.7, 12.0), Some("India"));
        assert_eq!(at(90.4, 23.8), Some("Bangladesh"));
        assert_eq!(at(36.82, -1.29), Some("Kenya"));
        assert_eq!(at(0.0, 0.0), None);
        assert_eq!(model.country_named(" kenya ").map(|c| c.id), Some(12));
    }

    #[test]
    fn configuration_offers_every_resource_key_and_the_docs_example_validates() {
        let model = model();
        let config = model.configuration();
        for key in RESOURCE_KEYS {
            assert!(config.regions.iter().any(|r| r.resources.iter().any(|res| res.key == key)), "{key}");
        }
        let india = config.find_region("6").unwrap();
        assert_eq!(india.resources.len(), 8);
        let wind = india.find_resource("32").unwrap();
        assert_eq!(wind.input_fields.iter().map(|f| f.field_name.as_str()).collect::<Vec<_>>()[5], "limitByWindSpeed");
        let body = json!({
            "excludeProtectedAreas": "true",
            "limitBySlope": {"min": "1", "max": "12"},
            "limitToTransmissionCorridors": {"distance": "50", "units": "kilometers"},
            "powerDensity": "3",
            "limitToRoadCorridors": {"distance": "50", "units": "kilometers"},
            "limitByWindSpeed": {"min": "3", "max": "20"},
            "limitByGeographicExtent": ["Andaman and Nicobar", "Chhattisgarh"],
            "limitByLandUse": ["Urban and Built-Up Land", "Water Bodies", "Wooded Wetland"]
        });
        let request = validate_job(config, "6", "32", body.as_object().unwrap()).unwrap();
        let result = analyse(model.country(6).unwrap(), resource_by_key("wind_t200").unwrap(), &request.filters);
        assert!(result.cumulative_stats.total_nameplate_capacity_mw > 0.0);
        assert!(result.regional_stats.keys().all(|k| k == "Andaman and Nicobar" || k == "Chhattisgarh"));
    }

    #[test]
    fn capacity_factor_curves() {
        let t200 = resource_by_key("wind_t200").unwrap().kind;
        for (speed, expected) in [(3.5, 0.086), (4.75, 0.164), (6.25, 0.295)] {
            assert!((t200.capacity_factor(speed) - expected).abs() < 0.005, "{speed}: {}", t200.capacity_factor(speed));
        }
        let t325 = resource_by_key("wind_t325").unwrap().kind;
        assert!(t325.capacity_factor(7.0) < t200.capacity_factor(7.0));
        assert!((ResourceKind::FixedTilt.capacity_factor(6.0) - 0.2).abs() < 1e-12);
        assert!((ResourceKind::OneAxis.capacity_factor(6.0) - 0.24).abs() < 1e-12);
        assert_eq!(ResourceKind::Csp.capacity_factor(1.0), 0.0);
        for kind in RESOURCES.iter().map(|r| r.kind) {
            let mut previous = -1.0;
            for step in 0..240 {
                let cf = kind.capacity_factor(step as f64 * 0.05);
                assert!(cf >= previous && (0.0..=1.0).contains(&cf));
                previous = cf;
            }
        }
    }

    #[test]
    fn unfiltered_analysis_adds_up() {
        let model = model();
        let india = model.country(6).unwrap();
        let fixlat = resource_by_key("fixlat").unwrap();
        let result = analyse(india, fixlat, &JobFilters::default());
        let area: f64 = india.sub_regions.iter().flat_map(|s| s.cells.iter()).map(|c| c.area_sq_km).sum();
        let stats = &result.cumulative_stats;
        assert!((stats.total_land_area_sq_km - area).abs() < 0.02);
        assert!((stats.total_nameplate_capacity_mw - area * 36.0).abs() < 1.0);
        let class_area: f64 = stats.classes.iter().map(|c| c.land_area_sq_km).sum();
        assert!((class_area - stats.total_land_area_sq_km).abs() < 0.1);
        let class_generation: f64 = stats.classes.iter().map(|c| c.ac_generation_mwh).sum();
        assert!((class_generation - stats.total_ac_generation_mwh).abs() / stats.total_ac_generation_mwh < 1e-9);
        assert!(stats.classes.windows(2).all(|pair| pair[0].max <= pair[1].min));
        let cf = stats.total_ac_generation_mwh / (stats.total_nameplate_capacity_mw * HOURS_PER_YEAR as f64);
        assert!((0.15..0.23).contains(&cf), "fleet CF {cf}");
        assert_eq!(result.regional_stats.len(), india.sub_regions.len());
        assert_eq!(result.resource_data.unwrap().units, SOLAR_UNITS);
        assert!(stats.min.unwrap() >= 2.5 && stats.max.unwrap() <= 7.5);
    }

    #[test]
    fn filters_that_exclude_everything_leave_zeros_and_no_regions() {
        let model = model();
        let filters = JobFilters { slope: Some(Range { min: Some(70.0), max: None }), ..JobFilters::default() };
        let result = analyse(model.country(12).unwrap(), resource_by_key("csp").unwrap(), &filters);
        assert_eq!(result.cumulative_stats.total_nameplate_capacity_mw, 0.0);
        assert_eq!((result.cumulative_stats.min, result.cumulative_stats.max), (None, None));
        assert!(result.cumulative_stats.classes.is_empty() && result.regional_stats.is_empty());
    }

    #[test]
    fn power_density_scales_capacity_only() {
        let model = model();
        let kenya = model.country(12).unwrap();
        let wind = resource_by_key("wind_t200").unwrap();
        let base = analyse(kenya, wind, &JobFilters::default());
        let doubled = analyse(kenya, wind, &JobFilters { power_density: Some(6.0), ..JobFilters::default() });
        let ratio =
            doubled.cumulative_stats.total_nameplate_capacity_mw / base.cumulative_stats.total_nameplate_capacity_mw;
        assert!((ratio - 2.0).abs() < 1e-6);
        assert_eq!(doubled.cumulative_stats.total_land_area_sq_km, base.cumulative_stats.total_land_area_sq_km);
    }

    // --- Property: stricter filters never increase capacity, generation or area. -------------

    fn random_range(rng: &mut SplitMix64, low: f64, high: f64) -> Range {
        let a = low + (high - low) * rng.next_f64();
        let b = low + (high - low) * rng.next_f64();
        let (min, max) = (a.min(b), a.max(b));
        match rng.below(3) {
            0 => Range { min: Some(min), max: None },
            1 => Range { min: None, max: Some(max) },
            _ => Range { min: Some(min), max: Some(max) },
        }
    }

    /// A range inside `range`: each side moved inwards, or a missing side added.
    fn narrower(rng: &mut SplitMix64, range: Option<Range>, low: f64, high: f64) -> Option<Range> {
        let range = range.unwrap_or(Range { min: None, max: None });
        let min = range.min.unwrap_or(low);
        let max = range.max.unwrap_or(high);
        let new_min = min + (max - min).max(0.0) * 0.5 * rng.next_f64();
        let new_max = max - (max - new_min).max(0.0) * 0.5 * rng.next_f64();
        Some(Range {
            min: if range.min.is_some() || rng.below(2) == 0 { Some(new_min) } else { None },
            max: if range.max.is_some() || rng.below(2) == 0 { Some(new_max) } else { None },
        })
    }

    fn random_corridor(rng: &mut SplitMix64) -> Option<Corridor> {
        (rng.below(2) == 0).then(|| Corridor {
            distance: CORRIDOR_DISTANCES[rng.below(CORRIDOR_DISTANCES.len() as u64) as usize] * (0.5 + rng.next_f64()),
            units: if rng.below(2) == 0 { DistanceUnit::Kilometers } else { DistanceUnit::Miles },
        })
    }

    fn shorter(rng: &mut SplitMix64, corridor: Option<Corridor>) -> Option<Corridor> {
        match corridor {
            Some(corridor) => Some(Corridor { distance: corridor.distance * rng.next_f64(), units: corridor.units }),
            None => (rng.below(2) == 0)
                .then(|| Corridor { distance: 100.0 * rng.next_f64(), units: DistanceUnit::Kilometers }),
        }
    }

    fn random_filters(rng: &mut SplitMix64, country: &Country) -> JobFilters {
        let names: Vec<String> = country.sub_regions.iter().map(|s| s.name.to_string()).collect();
        JobFilters {
            exclude_protected_areas: rng.below(3) == 0,
            slope: (rng.below(2) == 0).then(|| random_range(rng, 0.0, 20.0)),
            transmission_corridor: random_corridor(rng),
            road_corridor: random_corridor(rng),
            power_density: Some(1.0 + 40.0 * rng.next_f64()),
            solar_resource: (rng.below(2) == 0).then(|| random_range(rng, 2.0, 8.0)),
            wind_speed: (rng.below(2) == 0).then(|| random_range(rng, 2.0, 10.0)),
            geographic_extent: (rng.below(2) == 0)
                .then(|| names.iter().filter(|_| rng.below(3) != 0).cloned().collect()),
            excluded_land_use: LAND_USE_TYPES.iter().filter(|_| rng.below(6) == 0).map(|s| s.to_string()).collect(),
        }
    }

    fn stricter(rng: &mut SplitMix64, filters: &JobFilters, country: &Country) -> JobFilters {
        let mut strict = filters.clone();
        let all: Vec<String> = country.sub_regions.iter().map(|s| s.name.to_string()).collect();
        for _ in 0..1 + rng.below(4) {
            match rng.below(8) {
                0 => strict.exclude_protected_areas = true,
                1 => strict.slope = narrower(rng, strict.slope, 0.0, 30.0),
                2 => strict.transmission_corridor = shorter(rng, strict.transmission_corridor),
                3 => strict.road_corridor = shorter(rng, strict.road_corridor),
                4 => strict.solar_resource = narrower(rng, strict.solar_resource, 2.0, 8.5),
                5 => strict.wind_speed = narrower(rng, strict.wind_speed, 2.0, 11.0),
                6 => {
                    let kept = strict.geographic_extent.clone().unwrap_or_else(|| all.clone());
                    strict.geographic_extent = Some(kept.into_iter().filter(|_| rng.below(3) != 0).rev().collect());
                }
                _ => {
                    let extra = LAND_USE_TYPES[rng.below(LAND_USE_TYPES.len() as u64) as usize].to_string();
                    if !strict.excluded_land_use.contains(&extra) {
                        strict.excluded_land_use.push(extra);
                    }
                }
            }
        }
        strict
    }

    #[test]
    fn stricter_filters_never_increase_capacity() {
        let model = model();
        let mut rng = SplitMix64::new(fnv1a64("stricter filters"));
        for case in 0..400 {
            let country = &model.countries()[rng.below(model.countries().len() as u64) as usize];
            let resource = country.resources[rng.below(country.resources.len() as u64) as usize];
            let loose = random_filters(&mut rng, country);
            let strict = stricter(&mut rng, &loose, country);
            let (a, b) = (analyse(country, resource, &loose), analyse(country, resource, &strict));
            let (a, b) = (&a.cumulative_stats, &b.cumulative_stats);
            assert!(
                b.total_nameplate_capacity_mw <= a.total_nameplate_capacity_mw
                    && b.total_ac_generation_mwh <= a.total_ac_generation_mwh
                    && b.total_land_area_sq_km <= a.total_land_area_sq_km,
                "case {case}: {} {}\nloose {loose:?}\nstrict {strict:?}\n{a:?}\n{b:?}",
                country.label,
                resource.key
            );
        }
    }
}

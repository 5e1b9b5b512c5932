//! The synthetic world's specification: three countries, their sub-regions as hand-drawn outlines
//! (approximate locations, no real borders), and each one's land palette and climate.

use crate::services::technical_potential::LAND_USE_TYPES;

/// A polygon outline as (longitude, latitude) vertices, not closed.
pub(super) type Outline = &'static [(f64, f64)];

/// A land-use mix: weights over [`LAND_USE_TYPES`] in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LandPalette {
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

    pub(super) fn pick(self, draw: f64) -> &'static str {
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
pub(super) struct Climate {
    /// Mean GHI, kWh/m²/day.
    pub(super) ghi: f64,
    /// DNI / GHI.
    pub(super) dni_ratio: f64,
    /// Mean wind speed at 100 m, m/s.
    pub(super) wind_100m: f64,
    /// Mean slope, percent.
    pub(super) slope: f64,
    /// Share of protected land.
    pub(super) protected: f64,
    pub(super) land: LandPalette,
}

pub(super) struct SubRegionSpec {
    pub(super) name: &'static str,
    pub(super) outline: Outline,
    pub(super) climate: Climate,
}

pub(super) struct CountrySpec {
    pub(super) id: i64,
    pub(super) label: &'static str,
    pub(super) outline: Outline,
    pub(super) resources: &'static [&'static str],
    pub(super) sub_regions: &'static [SubRegionSpec],
}

pub(super) const fn climate(ghi: f64, dni_ratio: f64, wind_100m: f64, slope: f64, protected: f64, land: LandPalette) -> Climate {
    Climate { ghi, dni_ratio, wind_100m, slope, protected, land }
}

#[rustfmt::skip]
pub(super) const COUNTRIES: [CountrySpec; 3] = [
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

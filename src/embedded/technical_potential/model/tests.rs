//! Tests of the synthetic world and its analysis: determinism, outlines that never overlap,
//! filters, classes and regional stats.

use super::*;
use crate::embedded::prng::SplitMix64;
use crate::calendar::HOURS_PER_YEAR;
use crate::services::technical_potential::{validate_job, Corridor, DistanceUnit, RESOURCE_KEYS};

fn model() -> TechnicalPotentialModel {
    TechnicalPotentialModel::synthetic()
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

//! `analyse`: a job's filters applied to the land cells, and capacity, generation and area summed
//! into resource classes and regional stats.

use std::collections::BTreeMap;

use crate::calendar::HOURS_PER_YEAR;
use crate::services::technical_potential::{ClassStats, Corridor, JobFilters, JobResultData, ResourceData, Stats};
use super::{Country, LandCell, ResourceSpec};

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

pub(super) fn is_selected(filters: &JobFilters, name: &str) -> bool {
    filters.geographic_extent.as_ref().is_none_or(|names| names.iter().any(|n| n == name))
}

/// Every filter that does not depend on the resource.
pub(super) fn passes_land_filters(cell: &LandCell, filters: &JobFilters) -> bool {
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
pub(super) struct Share {
    pub(super) value: f64,
    pub(super) area: f64,
    pub(super) capacity: f64,
    pub(super) generation: f64,
}

/// Running sums over kept cells, overall and per class.
pub(super) struct Tally {
    pub(super) edges: &'static [f64],
    pub(super) cells: usize,
    pub(super) area: f64,
    pub(super) capacity: f64,
    pub(super) generation: f64,
    pub(super) min: f64,
    pub(super) max: f64,
    pub(super) classes: Vec<(f64, f64, f64)>,
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

pub(super) fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

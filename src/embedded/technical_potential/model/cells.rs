//! The land cells of a sub-region: a seeded grid over its outline, each cell's attributes drawn
//! from smooth noise and its distance to made-up roads and lines.

use std::f64::consts::PI;

use crate::embedded::prng::SplitMix64;
use crate::formats::wkt::{LonLat, Polygon};
use crate::geodesy::{haversine_m, EARTH_RADIUS_M};
use super::{Climate, GRID_DIVISIONS, LandCell};

/// A smooth field in −1..1: a sum of three plane waves of 1.5–4.5° wavelength.
pub(super) struct Waves {
    pub(super) terms: [(f64, f64, f64, f64); 3],
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
pub(super) type Segment = (LonLat, LonLat);

pub(super) fn random_segments(rng: &mut SplitMix64, bounds: (f64, f64, f64, f64), count: u64) -> Vec<Segment> {
    let (west, south, east, north) = bounds;
    let mut point =
        || LonLat { lon: west + (east - west) * rng.next_f64(), lat: south + (north - south) * rng.next_f64() };
    (0..count).map(|_| (point(), point())).collect()
}

/// Planar distance (km) from a point to the nearest segment, on a local equirectangular
/// projection centred on the point.
pub(super) fn nearest_segment_km(position: LonLat, segments: &[Segment]) -> f64 {
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
pub(super) fn cell_area_sq_km(centre: LonLat, step: f64) -> f64 {
    let half = step / 2.0;
    let north_south = haversine_m(centre.lat - half, centre.lon, centre.lat + half, centre.lon);
    let east_west = haversine_m(centre.lat, centre.lon - half, centre.lat, centre.lon + half);
    north_south * east_west / 1.0e6
}

/// Signed uniform noise in −1..1.
pub(super) fn noise(rng: &mut SplitMix64) -> f64 {
    2.0 * rng.next_f64() - 1.0
}

pub(super) fn generate_cells(outline: &Polygon, climate: Climate, seed: u64) -> Vec<LandCell> {
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

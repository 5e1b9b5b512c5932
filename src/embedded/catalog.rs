//! The embedded service's station catalog: synthetic, deterministic stations for the four
//! datasets of the dataset query, with a spatial index for nearest-station and within-radius
//! lookups by great-circle distance.
//!
//! How it is made (nothing here is measured data, and v2 responses say so in
//! `weather_data_source`):
//! - Anchors are the real places of `crate::places` (the data file `places/cities.csv`): about
//!   190 US cities (state, standard GMT offset, approximate elevation) and about
//!   170 cities elsewhere (country instead of state).
//! - tmy2 gives every US anchor one station and some a second; tmy3 gives every US anchor 4 to 8;
//!   intl gives every other anchor 2 to 4. The first station of an anchor is named after the city
//!   and lies 3–12 km from it; the others get airport-style names ("DENVER MUNI AP") and lie
//!   15–90 km away on a pseudo-random bearing. Elevations vary around the anchor's. intl stations
//!   carry the country in `state`. Counts and positions come from a fixed-seed generator, so
//!   every build is identical.
//! - satdb is a regular 0.5° latitude/longitude grid between 60°S and 60°N (resolution 56 km,
//!   the north–south spacing). It is computed, not stored: a node takes state, country, timezone
//!   and elevation from the nearest anchor within 400 km, and is open water otherwise (no
//!   state or country, nautical time zone, elevation 0).
//! - Ids follow the real shapes: v1 `0-<5 digits>` (tmy2), `1-<6 digits>` (tmy3),
//!   `2-<5 digits>` (intl), `3-W105N040-W10450N4000` (satdb tile and node); v2 ids add the file
//!   kind (`-tm2`, `-tm3`) or use the grid index (`3-G-0149190`), so the two generations never
//!   collide and the estimator can tell a v2 id from a v1 id.
//! - Each station has a `seed` (FNV-1a of its v1 id) for the weather generator.
//!
//! Distances are haversine great-circle distances on a sphere of radius 6,371,008.8 m (the IUGG
//! mean Earth radius). The index is a k-d tree over unit vectors: straight-line (chord) distance
//! between unit vectors grows with the great-circle angle, so the nearest by chord is the
//! nearest on the sphere.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::geodesy::{haversine_m, EARTH_RADIUS_M};
use crate::embedded::prng::SplitMix64;
use crate::places::{chord_squared, nearest_on_land, unit_vector, Anchor, KdTree};
use crate::services::solar::{Dataset, QueryVersion};

/// Spacing of the satdb grid, degrees.
const SATDB_STEP_DEG: f64 = 0.5;
/// satdb covers latitudes up to this far from the equator, degrees.
const SATDB_LAT_LIMIT_DEG: f64 = 60.0;
const SATDB_ROWS: i64 = 241;
const SATDB_COLS: i64 = 720;

/// One station of the catalog, as the dataset query and the estimator see it.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogStation {
    pub dataset: Dataset,
    pub v1_id: String,
    pub v2_id: String,
    pub lat: f64,
    pub lon: f64,
    pub city: String,
    pub state: String,
    /// Empty for open-water satdb nodes.
    pub country: String,
    /// Hours from GMT (standard time).
    pub timezone: f64,
    /// Metres.
    pub elevation: i64,
    /// satdb only.
    pub resolution_km: Option<i64>,
    pub weather_data_source: &'static str,
    /// Deterministic seed for the synthetic weather of this station.
    pub seed: u64,
}

impl CatalogStation {
    /// The id this station has in responses of one query version.
    pub fn id(&self, version: QueryVersion) -> &str {
        match version {
            QueryVersion::V1 => &self.v1_id,
            QueryVersion::V2 => &self.v2_id,
        }
    }
}

/// A station found by a lookup, with its distance from the query point.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit<'a> {
    pub station: Cow<'a, CatalogStation>,
    pub distance_m: f64,
}

/// The synthetic catalog with its indexes. Build it once ([`Catalog::synthetic`]) and share it.
#[derive(Debug, Clone)]
pub struct Catalog {
    tmy2: StoredDataset,
    tmy3: StoredDataset,
    intl: StoredDataset,
    ids: HashMap<String, (QueryVersion, Dataset, usize)>,
}

impl Catalog {
    /// Builds the catalog; the result is the same on every call and every machine.
    /// The process-wide catalog, built on first use (about 2 ms) and shared by every service.
    pub fn shared() -> &'static Catalog {
        static SHARED: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
        SHARED.get_or_init(Catalog::synthetic)
    }

    pub fn synthetic() -> Catalog {
        let (us, world) = Anchor::all();
        let tmy2 = StoredDataset::new(generate_stations(Dataset::Tmy2, &us, 1, 2));
        let tmy3 = StoredDataset::new(generate_stations(Dataset::Tmy3, &us, 4, 8));
        let intl = StoredDataset::new(generate_stations(Dataset::Intl, &world, 2, 4));
        let mut ids = HashMap::new();
        for stored in [&tmy2, &tmy3, &intl] {
            for (position, station) in stored.stations.iter().enumerate() {
                ids.insert(station.v1_id.clone(), (QueryVersion::V1, station.dataset, position));
                ids.insert(station.v2_id.clone(), (QueryVersion::V2, station.dataset, position));
            }
        }
        Catalog { tmy2, tmy3, intl, ids }
    }

    /// How many stations a dataset has (grid nodes for satdb).
    pub fn station_count(&self, dataset: Dataset) -> usize {
        match self.stored(dataset) {
            Some(stored) => stored.stations.len(),
            None => (SATDB_ROWS * SATDB_COLS) as usize,
        }
    }

    /// The stored stations of tmy2, tmy3 or intl (empty for the computed satdb grid).
    pub fn stations(&self, dataset: Dataset) -> &[CatalogStation] {
        self.stored(dataset).map_or(&[], |stored| stored.stations.as_slice())
    }

    /// The closest station of a dataset, if one lies within `max_distance_m` (`None`: any distance).
    pub fn nearest(&self, dataset: Dataset, lat: f64, lon: f64, max_distance_m: Option<f64>) -> Option<Hit<'_>> {
        let in_reach = |distance_m: f64| max_distance_m.is_none_or(|limit| distance_m <= limit);
        match self.stored(dataset) {
            Some(stored) => stored.nearest(lat, lon, max_distance_m).filter(|hit| in_reach(hit.distance_m)),
            None => {
                let (node, distance_m) = self.nearest_grid_node(lat, lon).filter(|(_, d)| in_reach(*d))?;
                Some(Hit { station: Cow::Owned(self.grid_station(node)), distance_m })
            }
        }
    }

    /// Every station of a dataset within `radius_m`, nearest first.
    pub fn within(&self, dataset: Dataset, lat: f64, lon: f64, radius_m: f64) -> Vec<Hit<'_>> {
        let mut hits = match self.stored(dataset) {
            Some(stored) => stored.within(lat, lon, radius_m),
            None => self.grid_within(lat, lon, radius_m),
        };
        sort_hits(&mut hits);
        hits
    }

    /// Every station of every dataset within `radius_m`, nearest first (ties: dataset order, then id).
    pub fn all_within(&self, lat: f64, lon: f64, radius_m: f64) -> Vec<Hit<'_>> {
        let mut hits: Vec<Hit<'_>> =
            Dataset::ALL.into_iter().flat_map(|dataset| self.within(dataset, lat, lon, radius_m)).collect();
        sort_hits(&mut hits);
        hits
    }

    /// The station a v1 id names (what the v6 estimator accepts as `file_id`).
    pub fn station_by_id(&self, id: &str) -> Option<Cow<'_, CatalogStation>> {
        match self.lookup_id(id)? {
            (QueryVersion::V1, station) => Some(station),
            (QueryVersion::V2, _) => None,
        }
    }

    /// The station an id of either query version names, and which version issued that id.
    pub fn lookup_id(&self, id: &str) -> Option<(QueryVersion, Cow<'_, CatalogStation>)> {
        if let Some(&(version, dataset, position)) = self.ids.get(id) {
            let stored = self.stored(dataset)?;
            return Some((version, Cow::Borrowed(stored.stations.get(position)?)));
        }
        let (version, node) = GridNode::from_id(id)?;
        Some((version, Cow::Owned(self.grid_station(node))))
    }

    fn stored(&self, dataset: Dataset) -> Option<&StoredDataset> {
        match dataset {
            Dataset::Tmy2 => Some(&self.tmy2),
            Dataset::Tmy3 => Some(&self.tmy3),
            Dataset::Intl => Some(&self.intl),
            Dataset::Satdb => None,
        }
    }

    /// The nearest grid node. Outside the covered band the nearest node is on the edge row at
    /// the same longitude, so clamping the row and searching the neighbourhood finds it.
    fn nearest_grid_node(&self, lat: f64, lon: f64) -> Option<(GridNode, f64)> {
        if !lat.is_finite() || !lon.is_finite() {
            return None;
        }
        let row = ((lat + SATDB_LAT_LIMIT_DEG) / SATDB_STEP_DEG).floor() as i64;
        let col = ((lon + 180.0) / SATDB_STEP_DEG).floor() as i64;
        let rows = (row - 1).clamp(0, SATDB_ROWS - 1)..=(row + 2).clamp(0, SATDB_ROWS - 1);
        rows.flat_map(|r| (col - 1..=col + 2).map(move |c| GridNode::new(r, c)))
            .map(|node| (node, haversine_m(lat, lon, node.lat(), node.lon())))
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.index().cmp(&b.0.index())))
    }

    fn grid_within(&self, lat: f64, lon: f64, radius_m: f64) -> Vec<Hit<'_>> {
        if !(lat.is_finite() && lon.is_finite() && radius_m >= 0.0) {
            return Vec::new();
        }
        let reach_deg = (radius_m / EARTH_RADIUS_M).to_degrees();
        let lowest = ((lat - reach_deg + SATDB_LAT_LIMIT_DEG) / SATDB_STEP_DEG).floor().max(0.0) as i64;
        let highest =
            ((lat + reach_deg + SATDB_LAT_LIMIT_DEG) / SATDB_STEP_DEG).ceil().min((SATDB_ROWS - 1) as f64) as i64;
        let cols = grid_columns(lat, lon, radius_m);
        let mut hits = Vec::new();
        for row in lowest..=highest {
            for &col in &cols {
                let node = GridNode::new(row, col);
                let distance_m = haversine_m(lat, lon, node.lat(), node.lon());
                if distance_m <= radius_m {
                    hits.push(Hit { station: Cow::Owned(self.grid_station(node)), distance_m });
                }
            }
        }
        hits
    }

    fn grid_station(&self, node: GridNode) -> CatalogStation {
        let (lat, lon) = (node.lat(), node.lon());
        let v1_id = node.v1_id();
        let seed = fnv1a64(&v1_id);
        let land = nearest_on_land(lat, lon);
        let (state, country, timezone, elevation) = match land {
            Some(anchor) => (
                anchor.region.to_string(),
                anchor.country.to_string(),
                anchor.timezone,
                varied_elevation(anchor.elevation, 1.0, &mut SplitMix64::new(seed)),
            ),
            None => (String::new(), String::new(), (lon / 15.0).round(), 0),
        };
        CatalogStation {
            dataset: Dataset::Satdb,
            v2_id: node.v2_id(),
            v1_id,
            lat,
            lon,
            city: String::new(),
            state,
            country,
            timezone,
            elevation,
            resolution_km: Some(satdb_resolution_km()),
            weather_data_source: weather_data_source(Dataset::Satdb),
            seed,
        }
    }
}

/// The grid's north–south spacing in km, reported as `resolution`.
fn satdb_resolution_km() -> i64 {
    (SATDB_STEP_DEG.to_radians() * EARTH_RADIUS_M / 1000.0).round() as i64
}

/// Grid columns that can hold a node within `radius_m`: the longitude reach of a spherical cap
/// is asin(sin r / cos lat), or every longitude when the cap contains a pole.
fn grid_columns(lat: f64, lon: f64, radius_m: f64) -> Vec<i64> {
    let angle = radius_m / EARTH_RADIUS_M;
    let colatitude = 90.0 - lat.abs();
    let reach_deg = if angle.to_degrees() >= colatitude {
        180.0
    } else {
        (angle.sin() / lat.to_radians().cos()).min(1.0).asin().to_degrees()
    };
    if reach_deg >= 180.0 - SATDB_STEP_DEG {
        return (0..SATDB_COLS).collect();
    }
    let first = ((lon - reach_deg + 180.0) / SATDB_STEP_DEG).floor() as i64;
    let last = ((lon + reach_deg + 180.0) / SATDB_STEP_DEG).ceil() as i64;
    (first..=last).map(|col| col.rem_euclid(SATDB_COLS)).collect()
}

fn sort_hits(hits: &mut [Hit<'_>]) {
    let dataset_rank = |hit: &Hit<'_>| Dataset::ALL.iter().position(|d| *d == hit.station.dataset);
    hits.sort_by(|a, b| {
        a.distance_m
            .total_cmp(&b.distance_m)
            .then(dataset_rank(a).cmp(&dataset_rank(b)))
            .then(a.station.v1_id.cmp(&b.station.v1_id))
    });
}

/// One node of the satdb grid: row 0 is 60°S, column 0 is 180°W.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct GridNode {
    row: i64,
    col: i64,
}

impl GridNode {
    /// A node; the column wraps around the antimeridian.
    fn new(row: i64, col: i64) -> GridNode {
        GridNode { row, col: col.rem_euclid(SATDB_COLS) }
    }

    fn lat(self) -> f64 {
        -SATDB_LAT_LIMIT_DEG + self.row as f64 * SATDB_STEP_DEG
    }

    fn lon(self) -> f64 {
        -180.0 + self.col as f64 * SATDB_STEP_DEG
    }

    fn index(self) -> i64 {
        self.row * SATDB_COLS + self.col
    }

    /// `3-<1° tile>-<node in hundredths of a degree>`, e.g. `3-W104N040-W10450N4000`.
    fn v1_id(self) -> String {
        let (lat, lon) = (self.lat(), self.lon());
        let ns = if lat < 0.0 { 'S' } else { 'N' };
        let ew = if lon < 0.0 { 'W' } else { 'E' };
        let (lat, lon) = (lat.abs(), lon.abs());
        format!(
            "3-{ew}{:03}{ns}{:03}-{ew}{:05}{ns}{:04}",
            lon.trunc() as i64,
            lat.trunc() as i64,
            (lon * 100.0).round() as i64,
            (lat * 100.0).round() as i64
        )
    }

    fn v2_id(self) -> String {
        format!("3-G-{:07}", self.index())
    }

    /// The node an id names, if it is one of this grid's ids in canonical form.
    fn from_id(id: &str) -> Option<(QueryVersion, GridNode)> {
        if let Some(index) = id.strip_prefix("3-G-") {
            let index: i64 = index.parse().ok()?;
            let node = GridNode::new(index / SATDB_COLS, index % SATDB_COLS);
            let valid = (0..SATDB_ROWS * SATDB_COLS).contains(&index) && node.v2_id() == id;
            return valid.then_some((QueryVersion::V2, node));
        }
        let point = id.strip_prefix("3-")?.split('-').nth(1)?;
        let (lon, lat) = parse_hundredths_point(point)?;
        let row = ((lat + SATDB_LAT_LIMIT_DEG) / SATDB_STEP_DEG).round() as i64;
        let col = ((lon + 180.0) / SATDB_STEP_DEG).round() as i64;
        let node = GridNode::new(row, col);
        let valid = (0..SATDB_ROWS).contains(&row) && (0..SATDB_COLS).contains(&col) && node.v1_id() == id;
        valid.then_some((QueryVersion::V1, node))
    }
}

/// Reads `W10450N4000` as (lon, lat) = (-104.5, 40.0).
fn parse_hundredths_point(point: &str) -> Option<(f64, f64)> {
    let split = point.find(['N', 'S'])?;
    let (lon_part, lat_part) = point.split_at(split);
    let signed = |part: &str, negative: char, positive: char| -> Option<f64> {
        let mut chars = part.chars();
        let sign = match chars.next()? {
            c if c == negative => -1.0,
            c if c == positive => 1.0,
            _ => return None,
        };
        let hundredths: u32 = chars.as_str().parse().ok()?;
        Some(sign * f64::from(hundredths) / 100.0)
    };
    Some((signed(lon_part, 'W', 'E')?, signed(lat_part, 'S', 'N')?))
}

/// A dataset whose stations are stored, with its k-d tree.
#[derive(Debug, Clone)]
struct StoredDataset {
    stations: Vec<CatalogStation>,
    index: KdTree,
}

impl StoredDataset {
    fn new(stations: Vec<CatalogStation>) -> StoredDataset {
        let index = KdTree::build(stations.iter().map(|s| unit_vector(s.lat, s.lon)).collect());
        StoredDataset { stations, index }
    }

    fn nearest(&self, lat: f64, lon: f64, max_distance_m: Option<f64>) -> Option<Hit<'_>> {
        let bound = max_distance_m.map_or(f64::INFINITY, chord_squared);
        let (position, _) = self.index.nearest(unit_vector(lat, lon), bound)?;
        self.hit(position, lat, lon)
    }

    fn within(&self, lat: f64, lon: f64, radius_m: f64) -> Vec<Hit<'_>> {
        let mut positions = Vec::new();
        self.index.within(unit_vector(lat, lon), chord_squared(radius_m), &mut positions);
        positions
            .into_iter()
            .filter_map(|position| self.hit(position, lat, lon))
            .filter(|hit| hit.distance_m <= radius_m)
            .collect()
    }

    fn hit(&self, position: usize, lat: f64, lon: f64) -> Option<Hit<'_>> {
        let station = self.stations.get(position)?;
        let distance_m = haversine_m(lat, lon, station.lat, station.lon);
        Some(Hit { station: Cow::Borrowed(station), distance_m })
    }
}

const NAME_SUFFIXES: [&str; 12] = [
    " INTL AP",
    " MUNI AP",
    " RGNL AP",
    " COUNTY AP",
    " AWOS",
    " EXEC AP",
    " AAF",
    " FIELD",
    " NE",
    " SW",
    " NW",
    " SE",
];

fn weather_data_source(dataset: Dataset) -> &'static str {
    match dataset {
        Dataset::Tmy2 => "sunflux synthetic catalog: TMY2-style station (not measured data)",
        Dataset::Tmy3 => "sunflux synthetic catalog: TMY3-style station (not measured data)",
        Dataset::Intl => "sunflux synthetic catalog: international station (not measured data)",
        Dataset::Satdb => "sunflux synthetic catalog: 0.5 degree satellite-style grid (not measured data)",
    }
}

/// The numeric part of the n-th station id of a dataset: a stride that is coprime with the
/// span visits every number of the span once, so ids are unique.
fn station_number(dataset: Dataset, n: u64) -> u64 {
    const STRIDE: u64 = 7919;
    match dataset {
        Dataset::Tmy3 => 690_000 + (n * STRIDE) % 60_000,
        Dataset::Tmy2 | Dataset::Intl | Dataset::Satdb => 10_000 + (n * STRIDE) % 89_999,
    }
}

fn v2_suffix(dataset: Dataset) -> &'static str {
    match dataset {
        Dataset::Tmy2 => "-tm2",
        Dataset::Tmy3 | Dataset::Intl | Dataset::Satdb => "-tm3",
    }
}

/// The stored stations of one dataset: `min..=max` stations per anchor (see the module docs).
fn generate_stations(dataset: Dataset, anchors: &[Anchor], min: u64, max: u64) -> Vec<CatalogStation> {
    let mut rng = SplitMix64::new(fnv1a64(dataset.code()));
    let mut stations = Vec::new();
    for anchor in anchors {
        let count = min + rng.below(max - min + 1);
        let first_suffix = rng.below(NAME_SUFFIXES.len() as u64) as usize;
        for k in 0..count {
            let (near, far) = if k == 0 { (3_000.0, 12_000.0) } else { (15_000.0, 90_000.0) };
            let distance = near + rng.next_f64() * (far - near);
            let bearing = rng.next_f64() * 360.0;
            let (lat, lon) = destination(anchor.lat, anchor.lon, bearing, distance);
            let city = match k {
                0 => anchor.city.to_string(),
                _ => format!("{}{}", anchor.city, NAME_SUFFIXES[(first_suffix + k as usize) % NAME_SUFFIXES.len()]),
            };
            let number = station_number(dataset, stations.len() as u64 + 1);
            let v1_id = format!("{}-{number}", dataset.id_prefix());
            let spread = if k == 0 { 0.3 } else { 1.0 };
            stations.push(CatalogStation {
                dataset,
                v2_id: format!("{v1_id}{}", v2_suffix(dataset)),
                seed: fnv1a64(&v1_id),
                v1_id,
                lat,
                lon,
                city,
                state: anchor.region.to_string(),
                country: anchor.country.to_string(),
                timezone: anchor.timezone,
                elevation: varied_elevation(anchor.elevation, spread, &mut rng),
                resolution_km: None,
                weather_data_source: weather_data_source(dataset),
            });
        }
    }
    stations
}

/// An elevation near the anchor's: up to ±(15 % + 40 m), scaled by `spread`, never below sea
/// level unless the anchor is.
fn varied_elevation(base: i64, spread: f64, rng: &mut SplitMix64) -> i64 {
    let amplitude = (0.15 * base.abs() as f64 + 40.0) * spread;
    let varied = (base as f64 + (rng.next_f64() * 2.0 - 1.0) * amplitude).round() as i64;
    varied.max(base.min(0))
}

/// The point `distance_m` from (lat, lon) along the initial `bearing_deg`, rounded to 4 decimals.
fn destination(lat: f64, lon: f64, bearing_deg: f64, distance_m: f64) -> (f64, f64) {
    let (phi, lambda, theta) = (lat.to_radians(), lon.to_radians(), bearing_deg.to_radians());
    let delta = distance_m / EARTH_RADIUS_M;
    let phi2 = (phi.sin() * delta.cos() + phi.cos() * delta.sin() * theta.cos()).asin();
    let lambda2 = lambda + (theta.sin() * delta.sin() * phi.cos()).atan2(delta.cos() - phi.sin() * phi2.sin());
    let lon2 = (lambda2.to_degrees() + 180.0).rem_euclid(360.0) - 180.0;
    (round4(phi2.to_degrees()), round4(lon2))
}

fn round4(value: f64) -> f64 {
    (value * 10_000.0).round() / 10_000.0
}

/// 64-bit FNV-1a: a fixed hash, so seeds do not change between runs, builds or platforms.
pub fn fnv1a64(text: &str) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    text.bytes().fold(OFFSET, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(PRIME))
}



#[cfg(test)]
mod tests {
    use super::*;

    use std::time::Instant;

    fn brute_nearest(stations: &[CatalogStation], lat: f64, lon: f64) -> f64 {
        stations.iter().map(|s| haversine_m(lat, lon, s.lat, s.lon)).fold(f64::INFINITY, f64::min)
    }

    fn query_points(count: usize) -> Vec<(f64, f64)> {
        let mut rng = SplitMix64::new(42);
        (0..count).map(|_| (rng.next_f64() * 180.0 - 90.0, rng.next_f64() * 360.0 - 180.0)).collect()
    }

    #[test]
    fn builds_the_same_catalog_every_time() {
        let (first, second) = (Catalog::synthetic(), Catalog::synthetic());
        for dataset in [Dataset::Tmy2, Dataset::Tmy3, Dataset::Intl] {
            assert_eq!(first.stations(dataset), second.stations(dataset));
        }
        assert!((200..=300).contains(&first.station_count(Dataset::Tmy2)));
        assert!((900..=1300).contains(&first.station_count(Dataset::Tmy3)));
        assert!((350..=550).contains(&first.station_count(Dataset::Intl)));
        assert_eq!(first.station_count(Dataset::Satdb), 241 * 720);
    }

    #[test]
    fn every_station_source_is_labelled_synthetic() {
        for dataset in [Dataset::Tmy2, Dataset::Tmy3, Dataset::Intl, Dataset::Satdb] {
            assert!(crate::formats::climate_csv::is_synthetic_source(weather_data_source(dataset)), "{dataset:?}");
        }
    }

    #[test]
    fn stations_are_plausible_and_ids_unique() {
        let catalog = Catalog::synthetic();
        let mut seen = std::collections::HashSet::new();
        for dataset in [Dataset::Tmy2, Dataset::Tmy3, Dataset::Intl] {
            for station in catalog.stations(dataset) {
                assert!(seen.insert(station.v1_id.clone()) && seen.insert(station.v2_id.clone()));
                assert_eq!(Dataset::from_id(&station.v1_id), Some(dataset));
                assert!((-90.0..=90.0).contains(&station.lat) && (-180.0..180.0).contains(&station.lon));
                assert!(!station.city.is_empty() && !station.state.is_empty());
                assert!((-12.0..=14.0).contains(&station.timezone));
                assert!((-100..=5000).contains(&station.elevation));
                let in_us = station.country == "United States";
                assert_eq!(in_us, dataset != Dataset::Intl, "{station:?}");
            }
        }
    }

    #[test]
    fn nearest_and_within_match_brute_force() {
        let catalog = Catalog::synthetic();
        for dataset in [Dataset::Tmy2, Dataset::Tmy3, Dataset::Intl] {
            let stations = catalog.stations(dataset);
            for (lat, lon) in query_points(300) {
                let hit = catalog.nearest(dataset, lat, lon, None).expect("unbounded finds one");
                assert!((hit.distance_m - brute_nearest(stations, lat, lon)).abs() < 1e-6);
                let radius = 500_000.0;
                let expected = stations.iter().filter(|s| haversine_m(lat, lon, s.lat, s.lon) <= radius).count();
                let found = catalog.within(dataset, lat, lon, radius);
                assert_eq!(found.len(), expected);
                assert!(found.windows(2).all(|pair| pair[0].distance_m <= pair[1].distance_m));
                let bounded = catalog.nearest(dataset, lat, lon, Some(radius));
                assert_eq!(bounded.is_some(), expected > 0);
            }
        }
    }

    #[test]
    fn satdb_grid_nearest_matches_brute_force() {
        let catalog = Catalog::synthetic();
        let nodes: Vec<GridNode> =
            (0..SATDB_ROWS).flat_map(|row| (0..SATDB_COLS).map(move |col| GridNode::new(row, col))).collect();
        let mut points = query_points(40);
        points.extend([(59.9, 179.9), (-59.99, -179.99), (75.0, 10.2), (-89.0, 45.0), (0.0, 0.0), (60.0, -180.0)]);
        for (lat, lon) in points {
            let expected = nodes.iter().map(|n| haversine_m(lat, lon, n.lat(), n.lon())).fold(f64::INFINITY, f64::min);
            let hit = catalog.nearest(Dataset::Satdb, lat, lon, None).expect("grid always answers");
            assert!((hit.distance_m - expected).abs() < 1e-6, "at {lat},{lon}");
            let radius = 300_000.0;
            let within = nodes.iter().filter(|n| haversine_m(lat, lon, n.lat(), n.lon()) <= radius).count();
            assert_eq!(catalog.within(Dataset::Satdb, lat, lon, radius).len(), within, "at {lat},{lon}");
        }
    }

    #[test]
    fn satdb_nodes_have_grid_attributes() {
        let catalog = Catalog::synthetic();
        let boulder = catalog.nearest(Dataset::Satdb, 40.01, -105.27, Some(50_000.0)).unwrap();
        assert_eq!(boulder.station.v1_id, "3-W105N040-W10550N4000");
        assert_eq!(boulder.station.country, "United States");
        assert_eq!(boulder.station.state, "Colorado");
        assert_eq!(boulder.station.resolution_km, Some(56));
        let pacific = catalog.nearest(Dataset::Satdb, 0.0, -140.0, None).unwrap();
        assert_eq!((pacific.station.country.as_str(), pacific.station.elevation), ("", 0));
        assert_eq!(pacific.station.timezone, -9.0);
        assert!(catalog.nearest(Dataset::Satdb, 80.0, 0.0, Some(160_934.4)).is_none());
    }

    #[test]
    fn ids_resolve_by_generation() {
        let catalog = Catalog::synthetic();
        let stored = &catalog.stations(Dataset::Tmy3)[7];
        assert_eq!(catalog.station_by_id(&stored.v1_id).as_deref(), Some(stored));
        assert!(catalog.station_by_id(&stored.v2_id).is_none());
        assert_eq!(catalog.lookup_id(&stored.v2_id).map(|(v, _)| v), Some(QueryVersion::V2));
        let node = catalog.nearest(Dataset::Satdb, -33.9, 18.4, None).unwrap().station.into_owned();
        assert_eq!(catalog.station_by_id(&node.v1_id).as_deref(), Some(&node));
        let (version, by_v2) = catalog.lookup_id(&node.v2_id).unwrap();
        assert_eq!((version, by_v2.as_ref()), (QueryVersion::V2, &node));
        for bogus in ["", "3-", "3-G-9999999", "3-G-12", "3-W105N040-W10551N4000", "0-1", "9-94018", "3-X-Y-Z"] {
            assert!(catalog.lookup_id(bogus).is_none(), "{bogus}");
        }
    }

    #[test]
    fn bad_coordinates_find_nothing_and_do_not_panic() {
        let catalog = Catalog::synthetic();
        for dataset in Dataset::ALL {
            assert!(catalog.nearest(dataset, f64::NAN, 0.0, None).is_none());
            assert!(catalog.within(dataset, 0.0, f64::INFINITY, 1000.0).is_empty());
            assert!(catalog.within(dataset, 0.0, 0.0, -1.0).is_empty());
        }
    }

    /// Prints the nearest-station rate; asserts the 10,000/s floor only in optimised builds.
    #[test]
    fn nearest_lookup_rate() {
        let catalog = Catalog::synthetic();
        let points = query_points(20_000);
        let started = Instant::now();
        let mut found = 0usize;
        for &(lat, lon) in &points {
            for dataset in Dataset::ALL {
                found += usize::from(catalog.nearest(dataset, lat, lon, Some(160_934.4)).is_some());
            }
        }
        let lookups = (points.len() * Dataset::ALL.len()) as f64;
        let rate = lookups / started.elapsed().as_secs_f64();
        println!("nearest-station lookups: {rate:.0}/s ({found} found of {lookups})");
        if !cfg!(debug_assertions) {
            assert!(rate >= 10_000.0, "{rate:.0} lookups/s");
        }
    }
}

//! The embedded service's station catalog: synthetic, deterministic stations for the four
//! datasets of the dataset query, with a spatial index for nearest-station and within-radius
//! lookups by great-circle distance.
//!
//! How it is made (nothing here is measured data, and v2 responses say so in
//! `weather_data_source`):
//! - Anchors are real places written in this file: about 190 US cities (state, standard GMT
//!   offset, approximate elevation) and about 170 cities elsewhere (country instead of state).
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
use crate::local::prng::SplitMix64;
use crate::services::solar::{Dataset, QueryVersion};

/// Spacing of the satdb grid, degrees.
const SATDB_STEP_DEG: f64 = 0.5;
/// satdb covers latitudes up to this far from the equator, degrees.
const SATDB_LAT_LIMIT_DEG: f64 = 60.0;
const SATDB_ROWS: i64 = 241;
const SATDB_COLS: i64 = 720;
/// A satdb node farther than this from every anchor is open water.
const SATDB_LAND_RADIUS_M: f64 = 400_000.0;

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
    anchors: Vec<Anchor>,
    anchor_index: KdTree,
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
        let us: Vec<Anchor> = US_ANCHORS.iter().map(Anchor::us).collect();
        let world: Vec<Anchor> = WORLD_ANCHORS.iter().map(Anchor::world).collect();
        let tmy2 = StoredDataset::new(generate_stations(Dataset::Tmy2, &us, 1, 2));
        let tmy3 = StoredDataset::new(generate_stations(Dataset::Tmy3, &us, 4, 8));
        let intl = StoredDataset::new(generate_stations(Dataset::Intl, &world, 2, 4));
        let anchors: Vec<Anchor> = us.into_iter().chain(world).collect();
        let anchor_index = KdTree::build(anchors.iter().map(|a| unit_vector(a.lat, a.lon)).collect());
        let mut ids = HashMap::new();
        for stored in [&tmy2, &tmy3, &intl] {
            for (position, station) in stored.stations.iter().enumerate() {
                ids.insert(station.v1_id.clone(), (QueryVersion::V1, station.dataset, position));
                ids.insert(station.v2_id.clone(), (QueryVersion::V2, station.dataset, position));
            }
        }
        Catalog { tmy2, tmy3, intl, anchors, anchor_index, ids }
    }

    /// How many stations a dataset has (grid nodes for satdb).
    pub fn station_count(&self, dataset: Dataset) -> usize {
        match self.stored(dataset) {
            Some(stored) => stored.stations.len(),
            None => (SATDB_ROWS * SATDB_COLS) as usize,
        }
    }

    /// The standard-time offset (hours east of UTC) of the nearest place within 400 km, or the
    /// nautical zone (longitude / 15, rounded) away from land: the zone sunflux assumes for a site
    /// whose data give none (the optimizer's series).
    pub fn standard_offset_near(&self, lat: f64, lon: f64) -> f64 {
        self.anchor_index
            .nearest(unit_vector(lat, lon), chord_squared(SATDB_LAND_RADIUS_M))
            .and_then(|(position, _)| self.anchors.get(position))
            .map_or((lon / 15.0).round(), |anchor| anchor.timezone)
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
        let land = self
            .anchor_index
            .nearest(unit_vector(lat, lon), chord_squared(SATDB_LAND_RADIUS_M))
            .and_then(|(position, _)| self.anchors.get(position));
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

fn unit_vector(lat: f64, lon: f64) -> [f64; 3] {
    let (phi, lambda) = (lat.to_radians(), lon.to_radians());
    [phi.cos() * lambda.cos(), phi.cos() * lambda.sin(), phi.sin()]
}

/// The squared chord between unit vectors for a great-circle distance, widened by a hair so that
/// rounding never drops a station the haversine check would keep.
fn chord_squared(distance_m: f64) -> f64 {
    if distance_m.is_nan() || distance_m < 0.0 {
        return -1.0;
    }
    let angle = (distance_m / EARTH_RADIUS_M).min(std::f64::consts::PI);
    let chord = 2.0 * (angle / 2.0).sin();
    (chord * (1.0 + 1e-9) + 1e-12).powi(2)
}

fn squared_distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)
}

/// A static, balanced k-d tree in one array: the node of a range `lo..hi` sits at its middle,
/// its left subtree before it and its right subtree after it.
#[derive(Debug, Clone)]
struct KdTree {
    points: Vec<[f64; 3]>,
    order: Vec<usize>,
    axes: Vec<usize>,
}

impl KdTree {
    fn build(points: Vec<[f64; 3]>) -> KdTree {
        let mut tree = KdTree { order: (0..points.len()).collect(), axes: vec![0; points.len()], points };
        tree.split(0, tree.order.len());
        tree
    }

    fn split(&mut self, lo: usize, hi: usize) {
        if hi <= lo {
            return;
        }
        let axis = self.widest_axis(lo, hi);
        let mid = lo + (hi - lo) / 2;
        let points = &self.points;
        self.order[lo..hi].select_nth_unstable_by(mid - lo, |&a, &b| points[a][axis].total_cmp(&points[b][axis]));
        self.axes[mid] = axis;
        self.split(lo, mid);
        self.split(mid + 1, hi);
    }

    fn widest_axis(&self, lo: usize, hi: usize) -> usize {
        let spread = |axis: usize| {
            let values = self.order[lo..hi].iter().map(|&i| self.points[i][axis]);
            let (min, max) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(min, max), v| (min.min(v), max.max(v)));
            max - min
        };
        (0..3).max_by(|&a, &b| spread(a).total_cmp(&spread(b))).unwrap_or(0)
    }

    /// The point closest to `query` whose squared distance is at most `bound`, with that distance.
    fn nearest(&self, query: [f64; 3], bound: f64) -> Option<(usize, f64)> {
        let mut best = None;
        let mut best_distance = bound;
        self.search_nearest(0, self.order.len(), query, &mut best, &mut best_distance);
        best.map(|position| (position, best_distance))
    }

    fn search_nearest(&self, lo: usize, hi: usize, query: [f64; 3], best: &mut Option<usize>, best_distance: &mut f64) {
        if hi <= lo {
            return;
        }
        let mid = lo + (hi - lo) / 2;
        let position = self.order[mid];
        let point = self.points[position];
        let distance = squared_distance(point, query);
        if distance < *best_distance || (best.is_none() && distance <= *best_distance) {
            *best = Some(position);
            *best_distance = distance;
        }
        let axis = self.axes[mid];
        let offset = query[axis] - point[axis];
        let (near, far) = if offset < 0.0 { ((lo, mid), (mid + 1, hi)) } else { ((mid + 1, hi), (lo, mid)) };
        self.search_nearest(near.0, near.1, query, best, best_distance);
        if offset * offset <= *best_distance {
            self.search_nearest(far.0, far.1, query, best, best_distance);
        }
    }

    /// Every point whose squared distance to `query` is at most `bound`, in no particular order.
    fn within(&self, query: [f64; 3], bound: f64, found: &mut Vec<usize>) {
        self.search_within(0, self.order.len(), query, bound, found);
    }

    fn search_within(&self, lo: usize, hi: usize, query: [f64; 3], bound: f64, found: &mut Vec<usize>) {
        if hi <= lo {
            return;
        }
        let mid = lo + (hi - lo) / 2;
        let position = self.order[mid];
        let point = self.points[position];
        if squared_distance(point, query) <= bound {
            found.push(position);
        }
        let axis = self.axes[mid];
        let offset = query[axis] - point[axis];
        if offset <= 0.0 || offset * offset <= bound {
            self.search_within(lo, mid, query, bound, found);
        }
        if offset >= 0.0 || offset * offset <= bound {
            self.search_within(mid + 1, hi, query, bound, found);
        }
    }
}

/// A real place that synthetic stations cluster around.
#[derive(Debug, Clone, PartialEq)]
struct Anchor {
    city: &'static str,
    /// US state, or the country elsewhere.
    region: &'static str,
    country: &'static str,
    lat: f64,
    lon: f64,
    elevation: i64,
    timezone: f64,
}

/// (city, state or country, lat, lon, elevation m, standard GMT offset h)
type AnchorRow = (&'static str, &'static str, f64, f64, i64, f64);

impl Anchor {
    fn us(row: &AnchorRow) -> Anchor {
        let &(city, state, lat, lon, elevation, timezone) = row;
        Anchor { city, region: state, country: "United States", lat, lon, elevation, timezone }
    }

    fn world(row: &AnchorRow) -> Anchor {
        let &(city, country, lat, lon, elevation, timezone) = row;
        Anchor { city, region: country, country, lat, lon, elevation, timezone }
    }
}

/// Airport-style suffixes for the second and later stations of an anchor.
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

const US_ANCHORS: &[AnchorRow] = &[
    ("BIRMINGHAM", "Alabama", 33.52, -86.81, 180, -6.0),
    ("MONTGOMERY", "Alabama", 32.38, -86.30, 67, -6.0),
    ("MOBILE", "Alabama", 30.69, -88.04, 8, -6.0),
    ("HUNTSVILLE", "Alabama", 34.73, -86.59, 183, -6.0),
    ("ANCHORAGE", "Alaska", 61.22, -149.90, 31, -9.0),
    ("FAIRBANKS", "Alaska", 64.84, -147.72, 136, -9.0),
    ("JUNEAU", "Alaska", 58.30, -134.42, 17, -9.0),
    ("NOME", "Alaska", 64.50, -165.41, 7, -9.0),
    ("UTQIAGVIK", "Alaska", 71.29, -156.79, 3, -9.0),
    ("BETHEL", "Alaska", 60.79, -161.76, 38, -9.0),
    ("PHOENIX", "Arizona", 33.45, -112.07, 331, -7.0),
    ("TUCSON", "Arizona", 32.22, -110.97, 728, -7.0),
    ("FLAGSTAFF", "Arizona", 35.20, -111.65, 2106, -7.0),
    ("YUMA", "Arizona", 32.69, -114.63, 43, -7.0),
    ("LITTLE ROCK", "Arkansas", 34.75, -92.29, 102, -6.0),
    ("FORT SMITH", "Arkansas", 35.39, -94.40, 136, -6.0),
    ("LOS ANGELES", "California", 34.05, -118.24, 71, -8.0),
    ("SAN FRANCISCO", "California", 37.77, -122.42, 16, -8.0),
    ("SACRAMENTO", "California", 38.58, -121.49, 9, -8.0),
    ("SAN DIEGO", "California", 32.72, -117.16, 19, -8.0),
    ("FRESNO", "California", 36.74, -119.79, 94, -8.0),
    ("BAKERSFIELD", "California", 35.37, -119.02, 123, -8.0),
    ("REDDING", "California", 40.59, -122.39, 171, -8.0),
    ("BLYTHE", "California", 33.61, -114.60, 82, -8.0),
    ("ARCATA", "California", 40.87, -124.08, 7, -8.0),
    ("DAGGETT", "California", 34.86, -116.89, 588, -8.0),
    ("DENVER", "Colorado", 39.74, -104.99, 1609, -7.0),
    ("BOULDER", "Colorado", 40.01, -105.27, 1655, -7.0),
    ("COLORADO SPRINGS", "Colorado", 38.83, -104.82, 1839, -7.0),
    ("GRAND JUNCTION", "Colorado", 39.06, -108.55, 1397, -7.0),
    ("ALAMOSA", "Colorado", 37.47, -105.87, 2301, -7.0),
    ("PUEBLO", "Colorado", 38.25, -104.61, 1430, -7.0),
    ("HARTFORD", "Connecticut", 41.76, -72.68, 18, -5.0),
    ("WILMINGTON", "Delaware", 39.74, -75.55, 24, -5.0),
    ("MIAMI", "Florida", 25.76, -80.19, 2, -5.0),
    ("TAMPA", "Florida", 27.95, -82.46, 15, -5.0),
    ("JACKSONVILLE", "Florida", 30.33, -81.66, 5, -5.0),
    ("TALLAHASSEE", "Florida", 30.44, -84.28, 62, -5.0),
    ("ORLANDO", "Florida", 28.54, -81.38, 32, -5.0),
    ("KEY WEST", "Florida", 24.56, -81.78, 1, -5.0),
    ("ATLANTA", "Georgia", 33.75, -84.39, 320, -5.0),
    ("SAVANNAH", "Georgia", 32.08, -81.09, 15, -5.0),
    ("MACON", "Georgia", 32.84, -83.63, 116, -5.0),
    ("HONOLULU", "Hawaii", 21.31, -157.86, 5, -10.0),
    ("HILO", "Hawaii", 19.72, -155.08, 11, -10.0),
    ("LIHUE", "Hawaii", 21.98, -159.37, 63, -10.0),
    ("KAHULUI", "Hawaii", 20.89, -156.47, 16, -10.0),
    ("BOISE", "Idaho", 43.62, -116.20, 824, -7.0),
    ("POCATELLO", "Idaho", 42.87, -112.45, 1360, -7.0),
    ("CHICAGO", "Illinois", 41.88, -87.63, 181, -6.0),
    ("SPRINGFIELD", "Illinois", 39.80, -89.64, 182, -6.0),
    ("PEORIA", "Illinois", 40.69, -89.59, 160, -6.0),
    ("INDIANAPOLIS", "Indiana", 39.77, -86.16, 218, -5.0),
    ("EVANSVILLE", "Indiana", 37.97, -87.57, 118, -6.0),
    ("FORT WAYNE", "Indiana", 41.08, -85.14, 240, -5.0),
    ("DES MOINES", "Iowa", 41.59, -93.62, 291, -6.0),
    ("SIOUX CITY", "Iowa", 42.50, -96.40, 336, -6.0),
    ("WATERLOO", "Iowa", 42.49, -92.34, 265, -6.0),
    ("WICHITA", "Kansas", 37.69, -97.34, 396, -6.0),
    ("TOPEKA", "Kansas", 39.05, -95.68, 289, -6.0),
    ("DODGE CITY", "Kansas", 37.75, -100.02, 760, -6.0),
    ("GOODLAND", "Kansas", 39.35, -101.71, 1117, -7.0),
    ("LOUISVILLE", "Kentucky", 38.25, -85.76, 142, -5.0),
    ("LEXINGTON", "Kentucky", 38.04, -84.50, 298, -5.0),
    ("NEW ORLEANS", "Louisiana", 29.95, -90.07, 1, -6.0),
    ("SHREVEPORT", "Louisiana", 32.53, -93.75, 43, -6.0),
    ("LAKE CHARLES", "Louisiana", 30.23, -93.22, 4, -6.0),
    ("BATON ROUGE", "Louisiana", 30.45, -91.15, 17, -6.0),
    ("PORTLAND", "Maine", 43.66, -70.26, 19, -5.0),
    ("CARIBOU", "Maine", 46.86, -68.01, 190, -5.0),
    ("BANGOR", "Maine", 44.80, -68.77, 48, -5.0),
    ("BALTIMORE", "Maryland", 39.29, -76.61, 10, -5.0),
    ("BOSTON", "Massachusetts", 42.36, -71.06, 43, -5.0),
    ("WORCESTER", "Massachusetts", 42.26, -71.80, 146, -5.0),
    ("DETROIT", "Michigan", 42.33, -83.05, 183, -5.0),
    ("GRAND RAPIDS", "Michigan", 42.96, -85.67, 187, -5.0),
    ("MARQUETTE", "Michigan", 46.54, -87.40, 190, -5.0),
    ("TRAVERSE CITY", "Michigan", 44.76, -85.62, 183, -5.0),
    ("SAULT STE MARIE", "Michigan", 46.50, -84.35, 183, -5.0),
    ("MINNEAPOLIS", "Minnesota", 44.98, -93.27, 264, -6.0),
    ("DULUTH", "Minnesota", 46.79, -92.10, 214, -6.0),
    ("INTERNATIONAL FALLS", "Minnesota", 48.60, -93.41, 337, -6.0),
    ("ROCHESTER", "Minnesota", 44.02, -92.47, 300, -6.0),
    ("JACKSON", "Mississippi", 32.30, -90.18, 85, -6.0),
    ("MERIDIAN", "Mississippi", 32.36, -88.70, 102, -6.0),
    ("KANSAS CITY", "Missouri", 39.10, -94.58, 277, -6.0),
    ("ST LOUIS", "Missouri", 38.63, -90.20, 142, -6.0),
    ("SPRINGFIELD", "Missouri", 37.21, -93.29, 396, -6.0),
    ("COLUMBIA", "Missouri", 38.95, -92.33, 230, -6.0),
    ("BILLINGS", "Montana", 45.78, -108.50, 950, -7.0),
    ("GREAT FALLS", "Montana", 47.51, -111.30, 1015, -7.0),
    ("HELENA", "Montana", 46.59, -112.04, 1238, -7.0),
    ("MISSOULA", "Montana", 46.87, -113.99, 978, -7.0),
    ("GLASGOW", "Montana", 48.20, -106.64, 700, -7.0),
    ("OMAHA", "Nebraska", 41.26, -95.93, 332, -6.0),
    ("LINCOLN", "Nebraska", 40.81, -96.68, 358, -6.0),
    ("NORTH PLATTE", "Nebraska", 41.12, -100.77, 850, -6.0),
    ("SCOTTSBLUFF", "Nebraska", 41.87, -103.67, 1201, -7.0),
    ("LAS VEGAS", "Nevada", 36.17, -115.14, 610, -8.0),
    ("RENO", "Nevada", 39.53, -119.81, 1373, -8.0),
    ("ELKO", "Nevada", 40.83, -115.76, 1547, -8.0),
    ("TONOPAH", "Nevada", 38.07, -117.23, 1851, -8.0),
    ("CONCORD", "New Hampshire", 43.21, -71.54, 88, -5.0),
    ("NEWARK", "New Jersey", 40.74, -74.17, 10, -5.0),
    ("ATLANTIC CITY", "New Jersey", 39.36, -74.42, 3, -5.0),
    ("ALBUQUERQUE", "New Mexico", 35.08, -106.65, 1619, -7.0),
    ("ROSWELL", "New Mexico", 33.39, -104.52, 1089, -7.0),
    ("FARMINGTON", "New Mexico", 36.73, -108.22, 1644, -7.0),
    ("NEW YORK", "New York", 40.71, -74.01, 10, -5.0),
    ("ALBANY", "New York", 42.65, -73.76, 45, -5.0),
    ("BUFFALO", "New York", 42.89, -78.88, 183, -5.0),
    ("SYRACUSE", "New York", 43.05, -76.15, 116, -5.0),
    ("ROCHESTER", "New York", 43.16, -77.61, 154, -5.0),
    ("RALEIGH", "North Carolina", 35.78, -78.64, 96, -5.0),
    ("CHARLOTTE", "North Carolina", 35.23, -80.84, 229, -5.0),
    ("ASHEVILLE", "North Carolina", 35.60, -82.55, 650, -5.0),
    ("WILMINGTON", "North Carolina", 34.23, -77.94, 9, -5.0),
    ("CAPE HATTERAS", "North Carolina", 35.25, -75.53, 3, -5.0),
    ("BISMARCK", "North Dakota", 46.81, -100.78, 514, -6.0),
    ("FARGO", "North Dakota", 46.88, -96.79, 274, -6.0),
    ("MINOT", "North Dakota", 48.23, -101.30, 498, -6.0),
    ("WILLISTON", "North Dakota", 48.15, -103.62, 570, -6.0),
    ("COLUMBUS", "Ohio", 39.96, -83.00, 275, -5.0),
    ("CLEVELAND", "Ohio", 41.50, -81.69, 199, -5.0),
    ("CINCINNATI", "Ohio", 39.10, -84.51, 147, -5.0),
    ("TOLEDO", "Ohio", 41.65, -83.54, 187, -5.0),
    ("DAYTON", "Ohio", 39.76, -84.19, 226, -5.0),
    ("OKLAHOMA CITY", "Oklahoma", 35.47, -97.52, 396, -6.0),
    ("TULSA", "Oklahoma", 36.15, -95.99, 194, -6.0),
    ("PORTLAND", "Oregon", 45.52, -122.68, 15, -8.0),
    ("MEDFORD", "Oregon", 42.33, -122.87, 421, -8.0),
    ("EUGENE", "Oregon", 44.05, -123.09, 131, -8.0),
    ("PENDLETON", "Oregon", 45.67, -118.79, 327, -8.0),
    ("BURNS", "Oregon", 43.59, -119.05, 1265, -8.0),
    ("NORTH BEND", "Oregon", 43.41, -124.22, 5, -8.0),
    ("PHILADELPHIA", "Pennsylvania", 39.95, -75.17, 12, -5.0),
    ("PITTSBURGH", "Pennsylvania", 40.44, -80.00, 223, -5.0),
    ("HARRISBURG", "Pennsylvania", 40.27, -76.88, 98, -5.0),
    ("ERIE", "Pennsylvania", 42.13, -80.09, 199, -5.0),
    ("WILKES-BARRE", "Pennsylvania", 41.25, -75.88, 180, -5.0),
    ("PROVIDENCE", "Rhode Island", 41.82, -71.41, 23, -5.0),
    ("COLUMBIA", "South Carolina", 34.00, -81.03, 89, -5.0),
    ("CHARLESTON", "South Carolina", 32.78, -79.93, 6, -5.0),
    ("GREENVILLE", "South Carolina", 34.85, -82.40, 294, -5.0),
    ("SIOUX FALLS", "South Dakota", 43.54, -96.73, 448, -6.0),
    ("RAPID CITY", "South Dakota", 44.08, -103.23, 1005, -7.0),
    ("PIERRE", "South Dakota", 44.37, -100.35, 443, -6.0),
    ("HURON", "South Dakota", 44.36, -98.21, 390, -6.0),
    ("NASHVILLE", "Tennessee", 36.16, -86.78, 182, -6.0),
    ("MEMPHIS", "Tennessee", 35.15, -90.05, 85, -6.0),
    ("KNOXVILLE", "Tennessee", 35.96, -83.92, 270, -5.0),
    ("CHATTANOOGA", "Tennessee", 35.05, -85.31, 206, -5.0),
    ("HOUSTON", "Texas", 29.76, -95.37, 15, -6.0),
    ("DALLAS", "Texas", 32.78, -96.80, 131, -6.0),
    ("SAN ANTONIO", "Texas", 29.42, -98.49, 198, -6.0),
    ("AUSTIN", "Texas", 30.27, -97.74, 149, -6.0),
    ("EL PASO", "Texas", 31.76, -106.49, 1140, -7.0),
    ("AMARILLO", "Texas", 35.22, -101.83, 1099, -6.0),
    ("LUBBOCK", "Texas", 33.58, -101.86, 992, -6.0),
    ("MIDLAND", "Texas", 32.00, -102.08, 846, -6.0),
    ("BROWNSVILLE", "Texas", 25.90, -97.50, 10, -6.0),
    ("CORPUS CHRISTI", "Texas", 27.80, -97.40, 8, -6.0),
    ("ABILENE", "Texas", 32.45, -99.73, 522, -6.0),
    ("WACO", "Texas", 31.55, -97.15, 143, -6.0),
    ("SAN ANGELO", "Texas", 31.46, -100.44, 562, -6.0),
    ("DEL RIO", "Texas", 29.36, -100.90, 290, -6.0),
    ("SALT LAKE CITY", "Utah", 40.76, -111.89, 1288, -7.0),
    ("CEDAR CITY", "Utah", 37.68, -113.06, 1763, -7.0),
    ("MOAB", "Utah", 38.57, -109.55, 1227, -7.0),
    ("BURLINGTON", "Vermont", 44.48, -73.21, 61, -5.0),
    ("RICHMOND", "Virginia", 37.54, -77.44, 50, -5.0),
    ("NORFOLK", "Virginia", 36.85, -76.29, 3, -5.0),
    ("ROANOKE", "Virginia", 37.27, -79.94, 287, -5.0),
    ("SEATTLE", "Washington", 47.61, -122.33, 53, -8.0),
    ("SPOKANE", "Washington", 47.66, -117.43, 562, -8.0),
    ("YAKIMA", "Washington", 46.60, -120.51, 324, -8.0),
    ("OLYMPIA", "Washington", 47.04, -122.90, 29, -8.0),
    ("CHARLESTON", "West Virginia", 38.35, -81.63, 183, -5.0),
    ("ELKINS", "West Virginia", 38.93, -79.85, 591, -5.0),
    ("MILWAUKEE", "Wisconsin", 43.04, -87.91, 188, -6.0),
    ("MADISON", "Wisconsin", 43.07, -89.40, 266, -6.0),
    ("GREEN BAY", "Wisconsin", 44.51, -88.02, 177, -6.0),
    ("LA CROSSE", "Wisconsin", 43.80, -91.24, 204, -6.0),
    ("CHEYENNE", "Wyoming", 41.14, -104.82, 1848, -7.0),
    ("CASPER", "Wyoming", 42.87, -106.31, 1560, -7.0),
    ("LANDER", "Wyoming", 42.83, -108.73, 1628, -7.0),
    ("ROCK SPRINGS", "Wyoming", 41.59, -109.20, 1925, -7.0),
    ("SHERIDAN", "Wyoming", 44.80, -106.96, 1145, -7.0),
    ("SAN JUAN", "Puerto Rico", 18.47, -66.11, 8, -4.0),
];

const WORLD_ANCHORS: &[AnchorRow] = &[
    ("YELLOWKNIFE", "Canada", 62.45, -114.37, 206, -7.0),
    ("TORONTO", "Canada", 43.65, -79.38, 76, -5.0),
    ("VANCOUVER", "Canada", 49.28, -123.12, 70, -8.0),
    ("MONTREAL", "Canada", 45.50, -73.57, 36, -5.0),
    ("CALGARY", "Canada", 51.05, -114.07, 1045, -7.0),
    ("WINNIPEG", "Canada", 49.90, -97.14, 239, -6.0),
    ("HALIFAX", "Canada", 44.65, -63.57, 40, -4.0),
    ("IQALUIT", "Canada", 63.75, -68.52, 34, -5.0),
    ("WHITEHORSE", "Canada", 60.72, -135.06, 670, -8.0),
    ("REGINA", "Canada", 50.45, -104.61, 577, -6.0),
    ("MEXICO CITY", "Mexico", 19.43, -99.13, 2240, -6.0),
    ("MONTERREY", "Mexico", 25.69, -100.32, 540, -6.0),
    ("GUADALAJARA", "Mexico", 20.67, -103.35, 1566, -6.0),
    ("HERMOSILLO", "Mexico", 29.07, -110.96, 210, -7.0),
    ("MERIDA", "Mexico", 20.97, -89.62, 10, -6.0),
    ("GUATEMALA CITY", "Guatemala", 14.63, -90.51, 1500, -6.0),
    ("SAN JOSE", "Costa Rica", 9.93, -84.08, 1170, -6.0),
    ("PANAMA CITY", "Panama", 8.98, -79.52, 10, -5.0),
    ("HAVANA", "Cuba", 23.11, -82.37, 59, -5.0),
    ("SANTO DOMINGO", "Dominican Republic", 18.49, -69.93, 14, -4.0),
    ("BOGOTA", "Colombia", 4.71, -74.07, 2640, -5.0),
    ("CARACAS", "Venezuela", 10.49, -66.88, 900, -4.0),
    ("QUITO", "Ecuador", -0.18, -78.47, 2850, -5.0),
    ("LIMA", "Peru", -12.05, -77.04, 154, -5.0),
    ("LA PAZ", "Bolivia", -16.50, -68.15, 3640, -4.0),
    ("SAO PAULO", "Brazil", -23.55, -46.63, 760, -3.0),
    ("RIO DE JANEIRO", "Brazil", -22.91, -43.17, 5, -3.0),
    ("BRASILIA", "Brazil", -15.79, -47.88, 1172, -3.0),
    ("MANAUS", "Brazil", -3.12, -60.02, 92, -4.0),
    ("RECIFE", "Brazil", -8.05, -34.88, 10, -3.0),
    ("PORTO ALEGRE", "Brazil", -30.03, -51.23, 10, -3.0),
    ("SANTIAGO", "Chile", -33.45, -70.67, 570, -4.0),
    ("ANTOFAGASTA", "Chile", -23.65, -70.40, 40, -4.0),
    ("PUNTA ARENAS", "Chile", -53.16, -70.91, 34, -4.0),
    ("BUENOS AIRES", "Argentina", -34.60, -58.38, 25, -3.0),
    ("CORDOBA", "Argentina", -31.42, -64.18, 390, -3.0),
    ("MENDOZA", "Argentina", -32.89, -68.83, 746, -3.0),
    ("USHUAIA", "Argentina", -54.80, -68.30, 23, -3.0),
    ("MONTEVIDEO", "Uruguay", -34.90, -56.16, 43, -3.0),
    ("ASUNCION", "Paraguay", -25.26, -57.58, 43, -4.0),
    ("LONDON", "United Kingdom", 51.51, -0.13, 11, 0.0),
    ("EDINBURGH", "United Kingdom", 55.95, -3.19, 47, 0.0),
    ("DUBLIN", "Ireland", 53.35, -6.26, 20, 0.0),
    ("PARIS", "France", 48.86, 2.35, 35, 1.0),
    ("MARSEILLE", "France", 43.30, 5.37, 12, 1.0),
    ("LYON", "France", 45.76, 4.84, 173, 1.0),
    ("MADRID", "Spain", 40.42, -3.70, 667, 1.0),
    ("SEVILLE", "Spain", 37.39, -5.98, 7, 1.0),
    ("BARCELONA", "Spain", 41.39, 2.17, 12, 1.0),
    ("LISBON", "Portugal", 38.72, -9.14, 50, 0.0),
    ("BERLIN", "Germany", 52.52, 13.40, 34, 1.0),
    ("MUNICH", "Germany", 48.14, 11.58, 519, 1.0),
    ("HAMBURG", "Germany", 53.55, 9.99, 6, 1.0),
    ("ROME", "Italy", 41.90, 12.50, 21, 1.0),
    ("MILAN", "Italy", 45.46, 9.19, 120, 1.0),
    ("PALERMO", "Italy", 38.12, 13.36, 14, 1.0),
    ("AMSTERDAM", "Netherlands", 52.37, 4.90, -2, 1.0),
    ("BRUSSELS", "Belgium", 50.85, 4.35, 13, 1.0),
    ("ZURICH", "Switzerland", 47.38, 8.54, 408, 1.0),
    ("VIENNA", "Austria", 48.21, 16.37, 190, 1.0),
    ("WARSAW", "Poland", 52.23, 21.01, 100, 1.0),
    ("PRAGUE", "Czechia", 50.08, 14.44, 235, 1.0),
    ("STOCKHOLM", "Sweden", 59.33, 18.07, 28, 1.0),
    ("KIRUNA", "Sweden", 67.86, 20.23, 530, 1.0),
    ("OSLO", "Norway", 59.91, 10.75, 23, 1.0),
    ("TROMSO", "Norway", 69.65, 18.96, 10, 1.0),
    ("HELSINKI", "Finland", 60.17, 24.94, 17, 2.0),
    ("COPENHAGEN", "Denmark", 55.68, 12.57, 14, 1.0),
    ("ATHENS", "Greece", 37.98, 23.73, 70, 2.0),
    ("ANKARA", "Turkey", 39.93, 32.86, 938, 3.0),
    ("ISTANBUL", "Turkey", 41.01, 28.98, 39, 3.0),
    ("BUCHAREST", "Romania", 44.43, 26.10, 70, 2.0),
    ("KYIV", "Ukraine", 50.45, 30.52, 179, 2.0),
    ("MOSCOW", "Russia", 55.76, 37.62, 156, 3.0),
    ("NOVOSIBIRSK", "Russia", 55.03, 82.92, 150, 7.0),
    ("YAKUTSK", "Russia", 62.03, 129.73, 95, 9.0),
    ("VLADIVOSTOK", "Russia", 43.12, 131.89, 8, 10.0),
    ("REYKJAVIK", "Iceland", 64.15, -21.94, 15, 0.0),
    ("NUUK", "Greenland", 64.18, -51.69, 80, -2.0),
    ("CASABLANCA", "Morocco", 33.57, -7.59, 27, 1.0),
    ("MARRAKESH", "Morocco", 31.63, -8.01, 466, 1.0),
    ("ALGIERS", "Algeria", 36.75, 3.06, 24, 1.0),
    ("TAMANRASSET", "Algeria", 22.79, 5.53, 1320, 1.0),
    ("TUNIS", "Tunisia", 36.81, 10.18, 4, 1.0),
    ("TRIPOLI", "Libya", 32.89, 13.19, 81, 2.0),
    ("CAIRO", "Egypt", 30.04, 31.24, 23, 2.0),
    ("ASWAN", "Egypt", 24.09, 32.90, 194, 2.0),
    ("KHARTOUM", "Sudan", 15.50, 32.56, 381, 2.0),
    ("ADDIS ABABA", "Ethiopia", 9.03, 38.74, 2355, 3.0),
    ("NAIROBI", "Kenya", -1.29, 36.82, 1795, 3.0),
    ("DAR ES SALAAM", "Tanzania", -6.79, 39.21, 55, 3.0),
    ("LAGOS", "Nigeria", 6.52, 3.38, 41, 1.0),
    ("KANO", "Nigeria", 12.00, 8.52, 488, 1.0),
    ("ACCRA", "Ghana", 5.60, -0.19, 61, 0.0),
    ("DAKAR", "Senegal", 14.72, -17.47, 22, 0.0),
    ("BAMAKO", "Mali", 12.64, -8.00, 350, 0.0),
    ("NIAMEY", "Niger", 13.51, 2.11, 207, 1.0),
    ("N'DJAMENA", "Chad", 12.13, 15.06, 298, 1.0),
    ("KINSHASA", "Democratic Republic of the Congo", -4.44, 15.27, 240, 1.0),
    ("LUANDA", "Angola", -8.84, 13.23, 6, 1.0),
    ("WINDHOEK", "Namibia", -22.56, 17.08, 1655, 2.0),
    ("GABORONE", "Botswana", -24.65, 25.91, 1010, 2.0),
    ("LUSAKA", "Zambia", -15.39, 28.32, 1279, 2.0),
    ("HARARE", "Zimbabwe", -17.83, 31.05, 1490, 2.0),
    ("MAPUTO", "Mozambique", -25.97, 32.57, 47, 2.0),
    ("JOHANNESBURG", "South Africa", -26.20, 28.05, 1753, 2.0),
    ("CAPE TOWN", "South Africa", -33.92, 18.42, 25, 2.0),
    ("DURBAN", "South Africa", -29.86, 31.02, 8, 2.0),
    ("UPINGTON", "South Africa", -28.45, 21.26, 836, 2.0),
    ("ANTANANARIVO", "Madagascar", -18.88, 47.51, 1280, 3.0),
    ("RIYADH", "Saudi Arabia", 24.71, 46.68, 612, 3.0),
    ("JEDDAH", "Saudi Arabia", 21.49, 39.19, 12, 3.0),
    ("ABU DHABI", "United Arab Emirates", 24.45, 54.38, 5, 4.0),
    ("MUSCAT", "Oman", 23.59, 58.38, 15, 4.0),
    ("JERUSALEM", "Israel", 31.77, 35.21, 754, 2.0),
    ("AMMAN", "Jordan", 31.95, 35.93, 800, 3.0),
    ("TEHRAN", "Iran", 35.69, 51.39, 1190, 3.5),
    ("ISFAHAN", "Iran", 32.65, 51.67, 1574, 3.5),
    ("KARACHI", "Pakistan", 24.86, 67.01, 8, 5.0),
    ("LAHORE", "Pakistan", 31.55, 74.34, 217, 5.0),
    ("KABUL", "Afghanistan", 34.56, 69.21, 1791, 4.5),
    ("NEW DELHI", "India", 28.61, 77.21, 216, 5.5),
    ("MUMBAI", "India", 19.08, 72.88, 14, 5.5),
    ("CHENNAI", "India", 13.08, 80.27, 6, 5.5),
    ("KOLKATA", "India", 22.57, 88.36, 9, 5.5),
    ("JODHPUR", "India", 26.24, 73.02, 231, 5.5),
    ("BENGALURU", "India", 12.97, 77.59, 920, 5.5),
    ("KATHMANDU", "Nepal", 27.72, 85.32, 1400, 5.75),
    ("DHAKA", "Bangladesh", 23.81, 90.41, 4, 6.0),
    ("COLOMBO", "Sri Lanka", 6.93, 79.86, 1, 5.5),
    ("YANGON", "Myanmar", 16.87, 96.20, 23, 6.5),
    ("BANGKOK", "Thailand", 13.76, 100.50, 2, 7.0),
    ("HANOI", "Vietnam", 21.03, 105.85, 10, 7.0),
    ("HO CHI MINH CITY", "Vietnam", 10.82, 106.63, 19, 7.0),
    ("KUALA LUMPUR", "Malaysia", 3.139, 101.69, 56, 8.0),
    ("SINGAPORE", "Singapore", 1.35, 103.82, 15, 8.0),
    ("JAKARTA", "Indonesia", -6.21, 106.85, 8, 7.0),
    ("MAKASSAR", "Indonesia", -5.15, 119.43, 10, 8.0),
    ("MANILA", "Philippines", 14.60, 120.98, 13, 8.0),
    ("BEIJING", "China", 39.90, 116.41, 44, 8.0),
    ("SHANGHAI", "China", 31.23, 121.47, 4, 8.0),
    ("GUANGZHOU", "China", 23.13, 113.26, 21, 8.0),
    ("URUMQI", "China", 43.83, 87.62, 800, 8.0),
    ("LHASA", "China", 29.65, 91.17, 3656, 8.0),
    ("CHENGDU", "China", 30.57, 104.07, 500, 8.0),
    ("HARBIN", "China", 45.80, 126.53, 150, 8.0),
    ("ULAANBAATAR", "Mongolia", 47.89, 106.91, 1350, 8.0),
    ("SEOUL", "South Korea", 37.57, 126.98, 38, 9.0),
    ("TOKYO", "Japan", 35.68, 139.69, 40, 9.0),
    ("SAPPORO", "Japan", 43.06, 141.35, 29, 9.0),
    ("FUKUOKA", "Japan", 33.59, 130.40, 3, 9.0),
    ("ASTANA", "Kazakhstan", 51.17, 71.45, 347, 5.0),
    ("ALMATY", "Kazakhstan", 43.24, 76.89, 800, 5.0),
    ("TASHKENT", "Uzbekistan", 41.30, 69.24, 455, 5.0),
    ("SYDNEY", "Australia", -33.87, 151.21, 39, 10.0),
    ("MELBOURNE", "Australia", -37.81, 144.96, 31, 10.0),
    ("BRISBANE", "Australia", -27.47, 153.03, 27, 10.0),
    ("PERTH", "Australia", -31.95, 115.86, 31, 8.0),
    ("ADELAIDE", "Australia", -34.93, 138.60, 50, 9.5),
    ("DARWIN", "Australia", -12.46, 130.84, 37, 9.5),
    ("ALICE SPRINGS", "Australia", -23.70, 133.88, 545, 9.5),
    ("HOBART", "Australia", -42.88, 147.33, 51, 10.0),
    ("TOWNSVILLE", "Australia", -19.26, 146.82, 15, 10.0),
    ("AUCKLAND", "New Zealand", -36.85, 174.76, 196, 12.0),
    ("CHRISTCHURCH", "New Zealand", -43.53, 172.64, 20, 12.0),
    ("SUVA", "Fiji", -18.14, 178.44, 5, 12.0),
    ("PORT MORESBY", "Papua New Guinea", -9.44, 147.18, 45, 10.0),
];

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

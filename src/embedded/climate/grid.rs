//! The embedded climate service's sites: a regular global 0.04° latitude/longitude grid (about
//! 4.4 km north–south, like the NCDB 4 km product), the site rules of the spec (a point uses
//! the nearest site, a multipoint the nearest to each point, a polygon every site whose cell
//! intersects it) and the description of a site (place names, elevation, time zone).
//!
//! Grid: 4,500 rows × 9,000 columns of cells that tile the globe; a site is the centre of its
//! cell, row 0 is the southernmost band (−90°…−89.96°), column 0 starts at 180°W. Site id =
//! row × 9,000 + column (the `Location ID` of the CSV).
//!
//! Rules:
//! - Nearest site: smallest great-circle distance among the 3 × 3 cells around the point's
//!   cell (ties: smaller id). In a regular grid the nearest centre is always among these.
//! - Polygon: a site belongs when its closed cell shares any point with the polygon (holes
//!   excluded). Computed per row band: cells crossed by a polygon edge (edges clipped to the
//!   band), plus cells whose centre is inside (even–odd crossings on the band's centre line). A
//!   cell with no edge inside it is wholly in or out, so this is exact. Edges are straight in
//!   degrees; polygons must not cross the antimeridian.
//! - Description (synthetic, from `embedded::catalog`): a site is on land when a tmy3 or intl
//!   catalog station lies within 400 km (the catalog's land radius); it takes that station's
//!   state, country, time zone and an elevation varied around the station's (±(12 % + 30 m),
//!   fixed per site). The city is the station's when it lies within 50 km, else `-`; there is
//!   no county data (`-`). An offshore site has elevation 0, a nautical time zone (lon / 15,
//!   rounded) and, within 370 km (200 nautical miles) beyond the land radius, the EEZ of that
//!   station's country.

use crate::formats::wkt::{Geometry, LonLat, Polygon};
use crate::geodesy::haversine_m;
use crate::embedded::catalog::{fnv1a64, Catalog, CatalogStation, Hit};
use crate::embedded::prng::SplitMix64;
use crate::embedded::weather_gen::SiteSpec;
use crate::services::solar::Dataset;

/// Grid spacing, degrees.
pub const GRID_STEP_DEG: f64 = 0.04;
pub const GRID_ROWS: u32 = 4_500;
pub const GRID_COLS: u32 = 9_000;

/// A site is on land when a catalog station lies this close, metres.
const LAND_RADIUS_M: f64 = 400_000.0;
/// A station this close names the site's city, metres.
const CITY_RADIUS_M: f64 = 50_000.0;
/// Width of an exclusive economic zone, metres (200 nautical miles).
const EEZ_WIDTH_M: f64 = 370_400.0;

/// One site of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GridSite {
    pub row: u32,
    pub col: u32,
}

impl GridSite {
    /// The site of a cell, if the cell exists.
    pub fn new(row: u32, col: u32) -> Option<GridSite> {
        (row < GRID_ROWS && col < GRID_COLS).then_some(GridSite { row, col })
    }

    /// The site id (`Location ID`).
    pub fn id(self) -> u64 {
        u64::from(self.row) * u64::from(GRID_COLS) + u64::from(self.col)
    }

    /// The site with this id.
    pub fn from_id(id: u64) -> Option<GridSite> {
        let row = u32::try_from(id / u64::from(GRID_COLS)).ok()?;
        GridSite::new(row, (id % u64::from(GRID_COLS)) as u32)
    }

    /// Latitude of the site (cell centre), degrees, rounded to 4 decimals.
    pub fn lat(self) -> f64 {
        round4(-90.0 + (f64::from(self.row) + 0.5) * GRID_STEP_DEG)
    }

    /// Longitude of the site (cell centre), degrees, rounded to 4 decimals.
    pub fn lon(self) -> f64 {
        round4(-180.0 + (f64::from(self.col) + 0.5) * GRID_STEP_DEG)
    }
}

fn round4(value: f64) -> f64 {
    (value * 10_000.0).round() / 10_000.0
}

/// Why no site list could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GridError {
    #[error("the geometry covers more than {limit} sites")]
    TooManySites { limit: usize },
    #[error("the geometry covers no site")]
    NoSites,
}

/// Row of the band holding a latitude (clamped to the grid).
fn row_of(lat: f64) -> u32 {
    (((lat + 90.0) / GRID_STEP_DEG).floor().max(0.0) as u32).min(GRID_ROWS - 1)
}

/// Column of the band holding a longitude (clamped to the grid).
fn col_of(lon: f64) -> u32 {
    (((lon + 180.0) / GRID_STEP_DEG).floor().max(0.0) as u32).min(GRID_COLS - 1)
}

/// The site nearest to a point (great-circle distance), `None` for coordinates outside
/// −90…90 / −180…180.
pub fn nearest_site(lat: f64, lon: f64) -> Option<GridSite> {
    if !((-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon)) {
        return None;
    }
    let (row, col) = (row_of(lat), col_of(lon));
    let rows = row.saturating_sub(1)..=(row + 1).min(GRID_ROWS - 1);
    rows.flat_map(|r| [-1i64, 0, 1].map(move |dc| (r, (i64::from(col) + dc).rem_euclid(i64::from(GRID_COLS)) as u32)))
        .filter_map(|(r, c)| GridSite::new(r, c))
        .map(|site| (haversine_m(lat, lon, site.lat(), site.lon()), site))
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.id().cmp(&b.1.id())))
        .map(|(_, site)| site)
}

/// Sites of a geometry by the spec's rules, in order (points: as given, duplicates merged;
/// polygon: by row then column). More than `max_sites` sites is an error.
pub fn sites_for_geometry(geometry: &Geometry, max_sites: usize) -> Result<Vec<GridSite>, GridError> {
    let sites = match geometry {
        Geometry::Point(p) => nearest_site(p.lat, p.lon).into_iter().collect(),
        Geometry::MultiPoint(points) => {
            let mut sites: Vec<GridSite> = Vec::with_capacity(points.len());
            for site in points.iter().filter_map(|p| nearest_site(p.lat, p.lon)) {
                if !sites.contains(&site) {
                    sites.push(site);
                }
            }
            sites
        }
        Geometry::Polygon(polygon) => sites_in_polygon(polygon, max_sites)?,
    };
    match sites.len() {
        0 => Err(GridError::NoSites),
        n if n > max_sites => Err(GridError::TooManySites { limit: max_sites }),
        _ => Ok(sites),
    }
}

/// Every site whose cell intersects the polygon (see the module notes), at most `max_sites`.
pub fn sites_in_polygon(polygon: &Polygon, max_sites: usize) -> Result<Vec<GridSite>, GridError> {
    let (_, min_lat, _, max_lat) = polygon.bounds();
    if !(min_lat.is_finite() && max_lat.is_finite()) {
        return Err(GridError::NoSites);
    }
    let mut sites = Vec::new();
    for row in row_of(min_lat)..=row_of(max_lat) {
        for (first, last) in row_column_ranges(polygon, row) {
            let count = (last - first + 1) as usize;
            if sites.len() + count > max_sites {
                return Err(GridError::TooManySites { limit: max_sites });
            }
            sites.extend((first..=last).map(|col| GridSite { row, col }));
        }
    }
    Ok(sites)
}

/// Sorted, merged inclusive column ranges of one row band that intersect the polygon.
fn row_column_ranges(polygon: &Polygon, row: u32) -> Vec<(u32, u32)> {
    let south = -90.0 + f64::from(row) * GRID_STEP_DEG;
    let north = south + GRID_STEP_DEG;
    let centre = south + GRID_STEP_DEG / 2.0;
    let mut ranges = Vec::new();
    let mut crossings = Vec::new();
    for ring in polygon.rings() {
        for edge in ring.windows(2) {
            let (a, b) = (edge[0], edge[1]);
            if let Some((west, east)) = clip_to_band(a, b, south, north) {
                ranges.push((col_of(west), col_of(east)));
            }
            if (a.lat > centre) != (b.lat > centre) {
                crossings.push(a.lon + (centre - a.lat) / (b.lat - a.lat) * (b.lon - a.lon));
            }
        }
    }
    crossings.sort_by(f64::total_cmp);
    for pair in crossings.chunks_exact(2) {
        let first = ((pair[0] + 180.0) / GRID_STEP_DEG - 0.5).ceil().max(0.0);
        let last = ((pair[1] + 180.0) / GRID_STEP_DEG - 0.5).floor().min(f64::from(GRID_COLS - 1));
        if first <= last {
            ranges.push((first as u32, last as u32));
        }
    }
    merge_ranges(ranges)
}

/// The longitude span of the part of edge a–b inside the latitude band, if any.
fn clip_to_band(a: LonLat, b: LonLat, south: f64, north: f64) -> Option<(f64, f64)> {
    if a.lat.max(b.lat) < south || a.lat.min(b.lat) > north {
        return None;
    }
    if a.lat == b.lat {
        return Some((a.lon.min(b.lon), a.lon.max(b.lon)));
    }
    let at = |lat: f64| ((lat - a.lat) / (b.lat - a.lat)).clamp(0.0, 1.0);
    let (t0, t1) = (at(south), at(north));
    let lon = |t: f64| a.lon + t * (b.lon - a.lon);
    let (x0, x1) = (lon(t0), lon(t1));
    Some((x0.min(x1), x0.max(x1)))
}

fn merge_ranges(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (first, last) in ranges {
        match merged.last_mut() {
            Some(previous) if first <= previous.1.saturating_add(1) => previous.1 = previous.1.max(last),
            _ => merged.push((first, last)),
        }
    }
    merged
}

/// What the CSV metadata and the generator need to know about a site.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteInfo {
    pub site: GridSite,
    /// Degrees north.
    pub lat: f64,
    /// Degrees east.
    pub lon: f64,
    /// `-` when no catalog station is within 50 km.
    pub city: String,
    /// Always `-` (no county data).
    pub county: String,
    /// `-` outside states (or offshore).
    pub state: String,
    /// Empty offshore.
    pub country: String,
    pub offshore: bool,
    /// Country whose exclusive economic zone an offshore site lies in, `-` otherwise.
    pub eez: String,
    /// Metres.
    pub elevation_m: f64,
    /// Standard-time offset from UTC, hours.
    pub tz_offset_hours: f64,
}

impl SiteInfo {
    /// The generator's site for a data set: the slug and the site id seed the weather.
    pub fn spec(&self, dataset: &str) -> SiteSpec {
        SiteSpec {
            lat: self.lat,
            lon: self.lon,
            elevation_m: self.elevation_m,
            tz_offset_hours: self.tz_offset_hours,
            seed: site_seed(dataset, self.site),
        }
    }
}

/// Seed of a site's weather in a data set (FNV-1a of `<slug>/<site id>`).
pub fn site_seed(dataset: &str, site: GridSite) -> u64 {
    fnv1a64(&format!("{dataset}/{}", site.id()))
}

/// Describes a site from the synthetic catalog (see the module notes).
pub fn describe_site(site: GridSite, catalog: &Catalog) -> SiteInfo {
    let (lat, lon) = (site.lat(), site.lon());
    let nearest = nearest_station(catalog, lat, lon, LAND_RADIUS_M + EEZ_WIDTH_M);
    let dash = || "-".to_string();
    match nearest {
        Some(hit) if hit.distance_m <= LAND_RADIUS_M => {
            let station: &CatalogStation = &hit.station;
            SiteInfo {
                site,
                lat,
                lon,
                city: if hit.distance_m <= CITY_RADIUS_M && !station.city.is_empty() {
                    station.city.clone()
                } else {
                    dash()
                },
                county: dash(),
                state: if station.state.is_empty() || station.state == station.country {
                    dash()
                } else {
                    station.state.clone()
                },
                country: station.country.clone(),
                offshore: false,
                eez: dash(),
                elevation_m: varied_elevation(station.elevation as f64, site),
                tz_offset_hours: station.timezone,
            }
        }
        other => SiteInfo {
            site,
            lat,
            lon,
            city: dash(),
            county: dash(),
            state: dash(),
            country: String::new(),
            offshore: true,
            eez: other.map_or_else(dash, |hit| hit.station.country.clone()),
            elevation_m: 0.0,
            tz_offset_hours: (lon / 15.0).round(),
        },
    }
}

/// The nearest tmy3 or intl catalog station within `radius_m`.
fn nearest_station(catalog: &Catalog, lat: f64, lon: f64, radius_m: f64) -> Option<Hit<'_>> {
    [Dataset::Tmy3, Dataset::Intl]
        .into_iter()
        .filter_map(|dataset| catalog.nearest(dataset, lat, lon, Some(radius_m)))
        .min_by(|a, b| a.distance_m.total_cmp(&b.distance_m))
}

/// A station elevation varied per site by up to ±(12 % + 30 m), not below sea level unless the
/// station is.
fn varied_elevation(station_m: f64, site: GridSite) -> f64 {
    let mut rng = SplitMix64::new(fnv1a64(&format!("elevation/{}", site.id())));
    let amplitude = 0.12 * station_m.abs() + 30.0;
    let varied = (station_m + (rng.next_f64() * 2.0 - 1.0) * amplitude).round();
    varied.max(station_m.min(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::wkt::parse_wkt;

    fn polygon(text: &str) -> Polygon {
        match parse_wkt(text) {
            Ok(Geometry::Polygon(polygon)) => polygon,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ids_and_centres() {
        let site = GridSite::new(3250, 1868).unwrap();
        assert_eq!(GridSite::from_id(site.id()), Some(site));
        assert_eq!((site.lat(), site.lon()), (40.02, -105.26));
        assert_eq!(GridSite::new(GRID_ROWS, 0), None);
        assert_eq!(GridSite::from_id(u64::from(GRID_ROWS) * u64::from(GRID_COLS)), None);
    }

    #[test]
    fn nearest_site_matches_brute_force() {
        let mut rng = SplitMix64::new(3);
        for _ in 0..2000 {
            let lat = rng.next_f64() * 179.0 - 89.5;
            let lon = rng.next_f64() * 359.0 - 179.5;
            let site = nearest_site(lat, lon).unwrap();
            let mut best = f64::INFINITY;
            for r in row_of(lat).saturating_sub(3)..=(row_of(lat) + 3).min(GRID_ROWS - 1) {
                for c in col_of(lon).saturating_sub(3)..=(col_of(lon) + 3).min(GRID_COLS - 1) {
                    best = best.min(haversine_m(
                        lat,
                        lon,
                        GridSite { row: r, col: c }.lat(),
                        GridSite { row: r, col: c }.lon(),
                    ));
                }
            }
            assert!((haversine_m(lat, lon, site.lat(), site.lon()) - best).abs() < 1e-6);
        }
        assert_eq!(nearest_site(91.0, 0.0), None);
        assert_eq!(nearest_site(f64::NAN, 0.0), None);
        assert!(nearest_site(0.0, 180.0).is_some());
    }

    #[test]
    fn polygon_sites_match_a_cell_by_cell_test() {
        // Vertices off the grid lines, so no edge merely touches a cell corner.
        let shape = polygon("POLYGON((-105.3013 39.9007, -104.9011 40.0513, -105.0217 40.3109, -105.2003 40.2011, -105.3013 39.9007), (-105.1517 40.0519, -105.0507 40.1013, -105.1019 40.1511, -105.1517 40.0519))");
        let sites = sites_in_polygon(&shape, 10_000).unwrap();
        let mut expected = Vec::new();
        for row in row_of(39.8)..=row_of(40.4) {
            for col in col_of(-105.4)..=col_of(-104.8) {
                if cell_intersects(&shape, GridSite { row, col }) {
                    expected.push(GridSite { row, col });
                }
            }
        }
        assert_eq!(sites, expected);
        assert!(sites.len() > 50);
        assert_eq!(sites_in_polygon(&shape, 10), Err(GridError::TooManySites { limit: 10 }));
        let tiny = polygon("POLYGON((-105.011 40.011, -105.005 40.011, -105.005 40.012, -105.011 40.011))");
        assert_eq!(sites_in_polygon(&tiny, 10).unwrap().len(), 1);
    }

    /// Reference test: a corner of the cell inside the polygon, a polygon vertex inside the cell,
    /// or a polygon edge crossing a cell edge.
    fn cell_intersects(shape: &Polygon, site: GridSite) -> bool {
        let south = -90.0 + f64::from(site.row) * GRID_STEP_DEG;
        let west = -180.0 + f64::from(site.col) * GRID_STEP_DEG;
        let (north, east) = (south + GRID_STEP_DEG, west + GRID_STEP_DEG);
        let corners = [
            LonLat { lon: west, lat: south },
            LonLat { lon: east, lat: south },
            LonLat { lon: east, lat: north },
            LonLat { lon: west, lat: north },
        ];
        if corners.iter().any(|c| shape.contains(*c)) {
            return true;
        }
        let rings: Vec<&[LonLat]> = shape.rings().collect();
        if rings
            .iter()
            .flat_map(|r| r.iter())
            .any(|p| (west..=east).contains(&p.lon) && (south..=north).contains(&p.lat))
        {
            return true;
        }
        let cell_edges =
            [(corners[0], corners[1]), (corners[1], corners[2]), (corners[2], corners[3]), (corners[3], corners[0])];
        rings
            .iter()
            .flat_map(|r| r.windows(2))
            .any(|e| cell_edges.iter().any(|(p, q)| segments_cross(e[0], e[1], *p, *q)))
    }

    fn segments_cross(a: LonLat, b: LonLat, c: LonLat, d: LonLat) -> bool {
        let orient =
            |p: LonLat, q: LonLat, r: LonLat| (q.lon - p.lon) * (r.lat - p.lat) - (q.lat - p.lat) * (r.lon - p.lon);
        let (d1, d2, d3, d4) = (orient(c, d, a), orient(c, d, b), orient(a, b, c), orient(a, b, d));
        (d1 * d2 <= 0.0) && (d3 * d4 <= 0.0)
    }

    #[test]
    fn multipoint_merges_shared_sites_and_describes_places() {
        let geometry = parse_wkt("MULTIPOINT((-105.26 40.02), (-105.2601 40.0201), (2.35 48.85))").unwrap();
        let sites = sites_for_geometry(&geometry, 100).unwrap();
        assert_eq!(sites.len(), 2);
        let catalog = Catalog::synthetic();
        let boulder = describe_site(sites[0], &catalog);
        assert!(!boulder.offshore);
        assert_eq!(boulder.state, "Colorado");
        assert_eq!(boulder.tz_offset_hours, -7.0);
        assert!((1000.0..2500.0).contains(&boulder.elevation_m), "{boulder:?}");
        let pacific = describe_site(nearest_site(-30.0, -140.0).unwrap(), &catalog);
        assert!(pacific.offshore && pacific.elevation_m == 0.0 && pacific.tz_offset_hours == -9.0);
        assert_ne!(boulder.spec("a").seed, boulder.spec("b").seed);
    }
}

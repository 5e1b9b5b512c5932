//! Well-known text (WKT) for the climate download's `wkt` parameter: POINT, MULTIPOINT (both
//! `MULTIPOINT(1 2, 3 4)` and `MULTIPOINT((1 2), (3 4))`) and POLYGON with holes, in WGS 84
//! degrees, longitude first. The parser names what is wrong and how to fix it; `Display` writes
//! the canonical form (`POINT(-105.2 40.1)`), which is what the client sends.
//!
//! Geometry is planar in longitude/latitude, as a geometry (not geography) column treats it:
//! polygon edges are straight lines in degrees and polygons must not cross the antimeridian.
//!
//! Reference: OGC 06-103r4, Simple Feature Access part 1, §7 (WKT grammar).

use std::fmt;

use crate::geodesy::EARTH_RADIUS_M;

/// One position: longitude and latitude in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LonLat {
    /// Degrees east, −180…180.
    pub lon: f64,
    /// Degrees north, −90…90.
    pub lat: f64,
}

/// A polygon: one exterior ring and any number of holes. Every ring is closed (its last
/// position repeats its first) and has at least four positions.
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    pub exterior: Vec<LonLat>,
    pub holes: Vec<Vec<LonLat>>,
}

/// A geometry the climate download accepts.
#[derive(Debug, Clone, PartialEq)]
pub enum Geometry {
    Point(LonLat),
    MultiPoint(Vec<LonLat>),
    Polygon(Polygon),
}

/// Why a WKT text was refused; the message says how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct WktError {
    pub message: String,
}

impl WktError {
    fn new(message: impl Into<String>) -> Self {
        WktError { message: message.into() }
    }
}

const SHAPES_HINT: &str =
    "POINT(lon lat), MULTIPOINT(lon lat, lon lat) or POLYGON((lon lat, lon lat, lon lat, lon lat))";

/// Parses WKT text into a validated geometry: type keyword (any case), coordinates in range,
/// polygon rings closed with at least four positions and an exterior with area. An
/// `SRID=4326;` prefix is accepted; other SRIDs are refused.
pub fn parse_wkt(text: &str) -> Result<Geometry, WktError> {
    let body = strip_srid(text.trim())?;
    if body.is_empty() {
        return Err(WktError::new(format!("wkt is empty: give {SHAPES_HINT}")));
    }
    let mut cursor = Cursor::new(body);
    let keyword = cursor.word().to_ascii_uppercase();
    let geometry = match keyword.as_str() {
        "POINT" => {
            cursor.expect_plain_tagged(&keyword)?;
            cursor.open(&keyword)?;
            let position = cursor.position()?;
            cursor.close()?;
            Geometry::Point(position)
        }
        "MULTIPOINT" => {
            cursor.expect_plain_tagged(&keyword)?;
            Geometry::MultiPoint(cursor.multipoint_body()?)
        }
        "POLYGON" => {
            cursor.expect_plain_tagged(&keyword)?;
            Geometry::Polygon(cursor.polygon_body()?)
        }
        "" => return Err(WktError::new(format!("wkt must start with a geometry type: give {SHAPES_HINT}"))),
        "LINESTRING" | "MULTILINESTRING" | "MULTIPOLYGON" | "GEOMETRYCOLLECTION" | "TRIANGLE" | "TIN"
        | "POLYHEDRALSURFACE" | "CIRCULARSTRING" | "CURVEPOLYGON" => {
            return Err(WktError::new(format!(
                "{keyword} is not supported by the climate download: use POINT, MULTIPOINT or POLYGON (send one request per polygon)"
            )))
        }
        _ => {
            return Err(WktError::new(format!(
                "wkt must start with POINT, MULTIPOINT or POLYGON, found \"{}\"",
                excerpt(body)
            )))
        }
    };
    cursor.end()?;
    validate(&geometry)?;
    Ok(geometry)
}

/// `POINT(lon lat)` for a latitude/longitude pair (the order users usually have them in).
pub fn point_wkt(lat: f64, lon: f64) -> String {
    Geometry::Point(LonLat { lon, lat }).to_string()
}

impl Geometry {
    /// The WKT type keyword.
    pub fn kind(&self) -> &'static str {
        match self {
            Geometry::Point(_) => "POINT",
            Geometry::MultiPoint(_) => "MULTIPOINT",
            Geometry::Polygon(_) => "POLYGON",
        }
    }

    /// The positions of a POINT or MULTIPOINT (`None` for a polygon).
    pub fn points(&self) -> Option<Vec<LonLat>> {
        match self {
            Geometry::Point(position) => Some(vec![*position]),
            Geometry::MultiPoint(positions) => Some(positions.clone()),
            Geometry::Polygon(_) => None,
        }
    }
}

impl fmt::Display for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Geometry::Point(position) => write!(f, "POINT({} {})", position.lon, position.lat),
            Geometry::MultiPoint(positions) => {
                f.write_str("MULTIPOINT(")?;
                write_positions(f, positions)?;
                f.write_str(")")
            }
            Geometry::Polygon(polygon) => {
                f.write_str("POLYGON(")?;
                for (index, ring) in polygon.rings().enumerate() {
                    f.write_str(if index == 0 { "(" } else { ", (" })?;
                    write_positions(f, ring)?;
                    f.write_str(")")?;
                }
                f.write_str(")")
            }
        }
    }
}

fn write_positions(f: &mut fmt::Formatter<'_>, positions: &[LonLat]) -> fmt::Result {
    for (index, position) in positions.iter().enumerate() {
        if index > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{} {}", position.lon, position.lat)?;
    }
    Ok(())
}

impl Polygon {
    /// The exterior ring, then the holes.
    pub fn rings(&self) -> impl Iterator<Item = &[LonLat]> {
        std::iter::once(self.exterior.as_slice()).chain(self.holes.iter().map(Vec::as_slice))
    }

    /// (min lon, min lat, max lon, max lat) of the exterior ring, degrees.
    pub fn bounds(&self) -> (f64, f64, f64, f64) {
        self.exterior
            .iter()
            .fold((f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY), |(x0, y0, x1, y1), p| {
                (x0.min(p.lon), y0.min(p.lat), x1.max(p.lon), y1.max(p.lat))
            })
    }

    /// Even–odd point-in-polygon test over all rings (a point in a hole is outside). Points
    /// exactly on an edge may fall either way.
    pub fn contains(&self, position: LonLat) -> bool {
        self.rings().fold(false, |inside, ring| inside ^ ring_contains(ring, position))
    }

    /// Area on the sphere of mean Earth radius, km² (exterior minus holes), with edges taken
    /// as straight lines in longitude/latitude.
    ///
    /// Reference: Chamberlain & Duquette (2007), "Some algorithms for polygons on a sphere",
    /// JPL Publication 07-03, eq. (the λ/sin φ trapezoid sum).
    pub fn area_km2(&self) -> f64 {
        let exterior = ring_area_km2(&self.exterior);
        let holes: f64 = self.holes.iter().map(|hole| ring_area_km2(hole)).sum();
        (exterior - holes).max(0.0)
    }
}

/// The two ends of an edge, a window of two positions.
fn edge(pair: &[LonLat]) -> [LonLat; 2] {
    match pair {
        [a, b, ..] => [*a, *b],
        [a] => [*a, *a],
        [] => [LonLat { lon: 0.0, lat: 0.0 }; 2],
    }
}

/// Crossing-number test of one closed ring.
fn ring_contains(ring: &[LonLat], p: LonLat) -> bool {
    let mut inside = false;
    for pair in ring.windows(2) {
        let [a, b] = edge(pair);
        if (a.lat > p.lat) != (b.lat > p.lat) {
            let x = a.lon + (p.lat - a.lat) / (b.lat - a.lat) * (b.lon - a.lon);
            if p.lon < x {
                inside = !inside;
            }
        }
    }
    inside
}

/// Unsigned spherical area of one closed ring, km².
fn ring_area_km2(ring: &[LonLat]) -> f64 {
    let sum: f64 = ring
        .windows(2)
        .map(|pair| {
            let [a, b] = edge(pair);
            (b.lon - a.lon).to_radians() * (2.0 + a.lat.to_radians().sin() + b.lat.to_radians().sin())
        })
        .sum();
    let radius_km = EARTH_RADIUS_M / 1000.0;
    (sum * radius_km * radius_km / 2.0).abs()
}

/// Unsigned shoelace area of a closed ring in square degrees (0 for collinear positions).
fn planar_area_deg2(ring: &[LonLat]) -> f64 {
    let twice: f64 = ring
        .windows(2)
        .map(|pair| {
            let [a, b] = edge(pair);
            a.lon * b.lat - b.lon * a.lat
        })
        .sum();
    twice.abs() / 2.0
}

fn strip_srid(text: &str) -> Result<&str, WktError> {
    let Some(rest) = text.get(..5).filter(|head| head.eq_ignore_ascii_case("SRID=")).map(|_| &text[5..]) else {
        return Ok(text);
    };
    let (srid, body) = rest
        .split_once(';')
        .ok_or_else(|| WktError::new("an SRID prefix must end with ';', as in SRID=4326;POINT(-105 40)"))?;
    if srid.trim() != "4326" {
        return Err(WktError::new(format!(
            "SRID={} is not supported: give WGS 84 longitude/latitude degrees (SRID 4326) or leave the prefix out",
            srid.trim()
        )));
    }
    Ok(body.trim())
}

/// The first characters of a text, for messages.
fn excerpt(text: &str) -> String {
    let shown: String = text.chars().take(24).collect();
    if shown.len() < text.len() {
        format!("{shown}…")
    } else {
        shown
    }
}

/// A hand-written scanner over the WKT text (character positions in messages are 1-based).
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Cursor { text, at: 0 }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn skip_space(&mut self) {
        let trimmed = self.rest().trim_start();
        self.at = self.text.len() - trimmed.len();
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.rest().chars().next()
    }

    fn here(&self) -> String {
        format!("at character {}", self.at + 1)
    }

    /// An alphabetic word (possibly empty).
    fn word(&mut self) -> &'a str {
        self.skip_space();
        let length = self.rest().find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(self.rest().len());
        let word = &self.rest()[..length];
        self.at += length;
        word
    }

    /// Refuses `Z`, `M`, `ZM` and `EMPTY` after a type keyword.
    fn expect_plain_tagged(&mut self, keyword: &str) -> Result<(), WktError> {
        let save = self.at;
        let tag = self.word().to_ascii_uppercase();
        match tag.as_str() {
            "" => {
                self.at = save;
                Ok(())
            }
            "Z" | "M" | "ZM" => Err(WktError::new(format!(
                "{keyword} {tag} is not supported: give two-dimensional longitude latitude positions only"
            ))),
            "EMPTY" => Err(WktError::new(format!(
                "{keyword} EMPTY has no positions: give at least one longitude latitude pair"
            ))),
            other => Err(WktError::new(format!("unexpected word \"{other}\" after {keyword}: expected '('"))),
        }
    }

    fn open(&mut self, what: &str) -> Result<(), WktError> {
        match self.peek() {
            Some('(') => {
                self.at += 1;
                Ok(())
            }
            Some(other) => Err(WktError::new(format!("expected '(' for {what} {}, found '{other}'", self.here()))),
            None => Err(WktError::new(format!("the text ends where '(' for {what} was expected"))),
        }
    }

    fn close(&mut self) -> Result<(), WktError> {
        match self.peek() {
            Some(')') => {
                self.at += 1;
                Ok(())
            }
            Some(',') => {
                Err(WktError::new(format!("unexpected ',' {}: a POINT holds exactly one position", self.here())))
            }
            Some(other) => Err(WktError::new(format!("expected ')' {}, found '{other}'", self.here()))),
            None => Err(WktError::new("the text ends before a closing ')': check the parentheses")),
        }
    }

    /// True (and consumed) if the next character is a comma.
    fn comma(&mut self) -> bool {
        if self.peek() == Some(',') {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn number(&mut self, axis: &str) -> Result<f64, WktError> {
        self.skip_space();
        let length = self
            .rest()
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
            .unwrap_or(self.rest().len());
        let token = &self.rest()[..length];
        let where_ = self.here();
        match token.parse::<f64>() {
            Ok(value) if value.is_finite() && !token.is_empty() => {
                self.at += length;
                Ok(value)
            }
            _ => {
                let found = if token.is_empty() { excerpt(self.rest()) } else { token.to_string() };
                Err(WktError::new(format!("expected the {axis} as a number {where_}, found \"{found}\"")))
            }
        }
    }

    /// `lon lat`, refusing a third number.
    fn position(&mut self) -> Result<LonLat, WktError> {
        let lon = self.number("longitude")?;
        let lat = self.number("latitude")?;
        if self.peek().is_some_and(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.')) {
            return Err(WktError::new(format!(
                "a position has more than two numbers {}: give longitude and latitude only",
                self.here()
            )));
        }
        Ok(LonLat { lon, lat })
    }

    /// `(lon lat, lon lat, ...)`
    fn position_list(&mut self, what: &str) -> Result<Vec<LonLat>, WktError> {
        self.open(what)?;
        let mut positions = vec![self.position()?];
        while self.comma() {
            positions.push(self.position()?);
        }
        self.close()?;
        Ok(positions)
    }

    /// `(1 2, 3 4)` or `((1 2), (3 4))`.
    fn multipoint_body(&mut self) -> Result<Vec<LonLat>, WktError> {
        self.open("MULTIPOINT")?;
        let mut positions = Vec::new();
        loop {
            if self.peek() == Some('(') {
                self.at += 1;
                positions.push(self.position()?);
                self.close()?;
            } else {
                positions.push(self.position()?);
            }
            if !self.comma() {
                break;
            }
        }
        self.close()?;
        Ok(positions)
    }

    /// `((ring), (hole), ...)`
    fn polygon_body(&mut self) -> Result<Polygon, WktError> {
        self.open("POLYGON")?;
        if self.peek().is_some_and(|c| c != '(') {
            return Err(WktError::new(format!(
                "POLYGON needs double parentheses {}: POLYGON((lon lat, lon lat, lon lat, lon lat))",
                self.here()
            )));
        }
        let mut rings = vec![self.position_list("a polygon ring")?];
        while self.comma() {
            rings.push(self.position_list("a polygon ring")?);
        }
        self.close()?;
        let exterior = rings.remove(0);
        Ok(Polygon { exterior, holes: rings })
    }

    fn end(&mut self) -> Result<(), WktError> {
        self.skip_space();
        if self.rest().is_empty() {
            Ok(())
        } else {
            Err(WktError::new(format!(
                "unexpected text after the geometry {}: \"{}\"",
                self.here(),
                excerpt(self.rest())
            )))
        }
    }
}

/// Coordinate ranges and ring shape.
fn validate(geometry: &Geometry) -> Result<(), WktError> {
    match geometry {
        Geometry::Point(position) => check_position(*position),
        Geometry::MultiPoint(positions) => positions.iter().try_for_each(|p| check_position(*p)),
        Geometry::Polygon(polygon) => {
            for (index, ring) in polygon.rings().enumerate() {
                let name = if index == 0 {
                    "the polygon's exterior ring".to_string()
                } else {
                    format!("polygon hole {index}")
                };
                ring.iter().try_for_each(|p| check_position(*p))?;
                check_ring(ring, &name)?;
            }
            if planar_area_deg2(&polygon.exterior) == 0.0 {
                return Err(WktError::new(
                    "the polygon's exterior ring has no area (all positions on one line): give at least three distinct corners",
                ));
            }
            Ok(())
        }
    }
}

fn check_position(p: LonLat) -> Result<(), WktError> {
    let lat_ok = (-90.0..=90.0).contains(&p.lat);
    let lon_ok = (-180.0..=180.0).contains(&p.lon);
    if lat_ok && lon_ok {
        return Ok(());
    }
    let swapped_fits = (-90.0..=90.0).contains(&p.lon) && (-180.0..=180.0).contains(&p.lat);
    let order_hint = if swapped_fits {
        format!(" (WKT puts longitude first: did you mean POINT({} {})?)", p.lat, p.lon)
    } else {
        String::new()
    };
    if !lat_ok {
        Err(WktError::new(format!("latitude {} is outside -90..90{order_hint}", p.lat)))
    } else {
        Err(WktError::new(format!("longitude {} is outside -180..180{order_hint}", p.lon)))
    }
}

fn check_ring(ring: &[LonLat], name: &str) -> Result<(), WktError> {
    if ring.len() < 4 {
        return Err(WktError::new(format!(
            "{name} has {} positions: a ring needs at least 4 (three corners and the first repeated at the end)",
            ring.len()
        )));
    }
    let (Some(&first), Some(&last)) = (ring.first(), ring.last()) else {
        return Err(WktError::new(format!("{name} has no positions")));
    };
    if first != last {
        return Err(WktError::new(format!(
            "{name} is not closed: its last position ({} {}) must repeat its first ({} {})",
            last.lon, last.lat, first.lon, first.lat
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ll(lon: f64, lat: f64) -> LonLat {
        LonLat { lon, lat }
    }

    #[test]
    fn parses_the_three_shapes_in_any_case_and_spacing() {
        assert_eq!(parse_wkt("POINT(-105.2 40.1)").unwrap(), Geometry::Point(ll(-105.2, 40.1)));
        assert_eq!(parse_wkt("  point ( -105.2   40.1 ) ").unwrap(), Geometry::Point(ll(-105.2, 40.1)));
        let flat = parse_wkt("MULTIPOINT(1 2, 3 4)").unwrap();
        let nested = parse_wkt("MultiPoint((1 2),(3 4))").unwrap();
        assert_eq!(flat, Geometry::MultiPoint(vec![ll(1.0, 2.0), ll(3.0, 4.0)]));
        assert_eq!(flat, nested);
        let polygon = parse_wkt("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 4 2, 4 4, 2 2))").unwrap();
        let Geometry::Polygon(polygon) = polygon else { panic!("not a polygon") };
        assert_eq!(polygon.exterior.len(), 5);
        assert_eq!(polygon.holes.len(), 1);
        assert!(polygon.contains(ll(5.0, 5.0)));
        assert!(!polygon.contains(ll(3.5, 2.5)), "inside the hole");
        assert!(!polygon.contains(ll(11.0, 5.0)));
        assert_eq!(parse_wkt("SRID=4326;POINT(1 2)").unwrap(), Geometry::Point(ll(1.0, 2.0)));
    }

    #[test]
    fn canonical_text_round_trips() {
        for text in
            ["POINT(-105.2 40.1)", "MULTIPOINT(1 2, 3 4)", "POLYGON((0 0, 10 0, 10 10, 0 0), (1 1, 2 1, 2 2, 1 1))"]
        {
            let geometry = parse_wkt(text).unwrap();
            assert_eq!(geometry.to_string(), text);
            assert_eq!(parse_wkt(&geometry.to_string()).unwrap(), geometry);
        }
        assert_eq!(point_wkt(40.0, -105.0), "POINT(-105 40)");
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let message = |text: &str| parse_wkt(text).unwrap_err().message;
        assert!(message("").contains("empty"));
        assert!(message("LINESTRING(0 0, 1 1)").contains("not supported"));
        assert!(message("CIRCLE(0 0)").contains("must start with POINT"));
        assert!(message("POINT Z (1 2 3)").contains("two-dimensional"));
        assert!(message("POINT EMPTY").contains("no positions"));
        assert!(message("POINT(1 2 3)").contains("more than two numbers"));
        assert!(message("POINT(1)").contains("latitude as a number"));
        assert!(message("POINT(a b)").contains("longitude as a number"));
        assert!(message("POINT(1 2").contains("closing ')'"));
        assert!(message("POINT(1 2) extra").contains("unexpected text"));
        assert!(message("POINT(1 2, 3 4)").contains("exactly one position"));
        let swapped = message("POINT(40 -105)");
        assert!(
            swapped.contains("latitude -105 is outside -90..90") && swapped.contains("POINT(-105 40)"),
            "{swapped}"
        );
        assert!(message("POINT(200 10)").contains("longitude 200"));
        assert!(message("POLYGON((0 0, 1 0, 1 1, 0 1))").contains("not closed"));
        assert!(message("POLYGON((0 0, 1 0, 0 0))").contains("at least 4"));
        assert!(message("POLYGON((0 0, 1 1, 2 2, 0 0))").contains("no area"));
        assert!(message("POLYGON(0 0, 1 0, 1 1, 0 0)").contains("double parentheses"));
        assert!(message("SRID=3857;POINT(1 2)").contains("SRID=3857"));
        assert!(message("POINT(nan 1)").contains("longitude as a number"));
    }

    #[test]
    fn spherical_area_of_a_one_degree_cell_at_the_equator() {
        let Geometry::Polygon(polygon) = parse_wkt("POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))").unwrap() else {
            unreachable!()
        };
        // R² · Δλ · (sin 1° − sin 0°) = 6371.0088² · 0.0174533 · 0.0174524 ≈ 12,364 km².
        assert!((polygon.area_km2() - 12_364.0).abs() < 5.0, "{}", polygon.area_km2());
        assert_eq!(polygon.bounds(), (0.0, 0.0, 1.0, 1.0));
    }
}

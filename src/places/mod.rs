//! Real places: about 190 US cities and 170 elsewhere (`cities.csv`: state or country, standard
//! time zone, approximate elevation), with a great-circle index over them. The embedded
//! service's synthetic catalogue grows its stations around them, and `standard_offset_near`
//! gives the time zone sunflux assumes for a site whose data give none (the optimizer's series).

mod kdtree;

pub use kdtree::{chord_squared, unit_vector, KdTree};

use std::sync::OnceLock;

/// A place farther than this from every city is open water (no state, country or city time zone).
pub const LAND_RADIUS_M: f64 = 400_000.0;

/// A real place: the embedded service's synthetic stations cluster around it, and the nearest one
/// gives a site's time zone where its data give none.
#[derive(Debug, Clone, PartialEq)]
pub struct Anchor {
    pub city: &'static str,
    /// US state, or the country elsewhere.
    pub region: &'static str,
    pub country: &'static str,
    pub lat: f64,
    pub lon: f64,
    /// Metres above sea level.
    pub elevation: i64,
    /// Standard time, hours east of GMT.
    pub timezone: f64,
}

/// The anchor cities, one a line: `kind,city,region,lat,lon,elevation_m,utc_offset_h`, where
/// `kind` is `us` (region: the state) or `world` (region: the country), the elevation is in
/// metres and the offset is the standard one from GMT, in hours.
pub const CITIES_CSV: &str = include_str!("cities.csv");

impl Anchor {
    /// One line of `CITIES_CSV`, or `None` when it is not a city (the header).
    fn parse(line: &'static str) -> Option<(bool, Anchor)> {
        let mut fields = line.split(',');
        let mut next = || fields.next().map(str::trim);
        let (kind, city, region) = (next()?, next()?, next()?);
        let (lat, lon) = (next()?.parse().ok()?, next()?.parse().ok()?);
        let (elevation, timezone) = (next()?.parse().ok()?, next()?.parse().ok()?);
        let us = match kind {
            "us" => true,
            "world" => false,
            _ => return None,
        };
        let country = if us { "United States" } else { region };
        Some((us, Anchor { city, region, country, lat, lon, elevation, timezone }))
    }

    /// The US anchors and the others, read from `CITIES_CSV`.
    pub fn all() -> (Vec<Anchor>, Vec<Anchor>) {
        let (us, world): (Vec<(bool, Anchor)>, Vec<(bool, Anchor)>) =
            CITIES_CSV.lines().filter_map(Anchor::parse).partition(|(us, _)| *us);
        (us.into_iter().map(|(_, anchor)| anchor).collect(), world.into_iter().map(|(_, anchor)| anchor).collect())
    }
}

/// Every place with its index, built on first use.
struct Places {
    anchors: Vec<Anchor>,
    index: KdTree,
}

fn places() -> &'static Places {
    static PLACES: OnceLock<Places> = OnceLock::new();
    PLACES.get_or_init(|| {
        let (us, world) = Anchor::all();
        let anchors: Vec<Anchor> = us.into_iter().chain(world).collect();
        let index = KdTree::build(anchors.iter().map(|a| unit_vector(a.lat, a.lon)).collect());
        Places { anchors, index }
    })
}

/// The place nearest to a site within `LAND_RADIUS_M`, if any.
pub fn nearest_on_land(lat: f64, lon: f64) -> Option<&'static Anchor> {
    let places = places();
    places.index.nearest(unit_vector(lat, lon), chord_squared(LAND_RADIUS_M)).and_then(|(position, _)| places.anchors.get(position))
}

/// The standard-time offset (hours east of UTC) of the nearest place within 400 km, or the
/// nautical zone (longitude / 15, rounded) away from land.
pub fn standard_offset_near(lat: f64, lon: f64) -> f64 {
    nearest_on_land(lat, lon).map_or((lon / 15.0).round(), |anchor| anchor.timezone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_city_file_is_a_city() {
        let (us, world) = Anchor::all();
        assert_eq!(us.len() + world.len(), CITIES_CSV.lines().count() - 1);
        assert_eq!((us.len(), world.len()), (189, 167));
        assert!(us.iter().all(|anchor| anchor.country == "United States"));
        assert!(world.iter().all(|anchor| anchor.country == anchor.region && anchor.country != "United States"));
    }

    #[test]
    fn a_site_takes_the_zone_of_the_nearest_city_on_land_and_the_nautical_zone_at_sea() {
        assert_eq!(standard_offset_near(39.74, -104.99), -7.0);
        assert_eq!(standard_offset_near(0.0, -150.0), -10.0);
    }
}

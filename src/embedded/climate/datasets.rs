//! The one catalogue of the data sets the embedded download serves, both families
//! (`spec::routes::DatasetFamily`), each with the region it covers: an unknown name or a point
//! outside a set's coverage is refused as the live service refuses it, for the climate (NCDB)
//! sets as for the NSRDB ones. The climate sets are the two downscaled CONUS scenarios the
//! live service documents; the NSRDB sets are the GOES v4 sets. The regions are this
//! service's rectangles around the real footprints, not the live service's exact coverage;
//! the data are synthetic, like all of the embedded service's weather.

use crate::spec::routes::DatasetFamily;

/// A latitude-longitude rectangle, degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coverage {
    pub name: &'static str,
    pub south: f64,
    pub north: f64,
    pub west: f64,
    pub east: f64,
}

impl Coverage {
    pub fn contains(&self, lat: f64, lon: f64) -> bool {
        (self.south..=self.north).contains(&lat) && (self.west..=self.east).contains(&lon)
    }

    pub fn describe(&self) -> String {
        format!("{}: latitude {}…{}, longitude {}…{}", self.name, self.south, self.north, self.west, self.east)
    }
}

/// The 4 km downscaled grid of the contiguous United States.
const NCDB_CONUS: Coverage = Coverage { name: "the 4 km CONUS grid", south: 24.0, north: 50.0, west: -125.0, east: -66.0 };
/// The full disks of GOES-East and GOES-West: the Americas and the eastern Pacific.
const GOES_FULL_DISK: Coverage = Coverage { name: "the GOES full disks", south: -60.0, north: 60.0, west: -180.0, east: -20.0 };
/// The GOES CONUS scan: the contiguous United States and its surroundings.
const GOES_CONUS: Coverage = Coverage { name: "the GOES CONUS scan", south: 20.0, north: 52.0, west: -130.0, east: -60.0 };

/// A data set this service serves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dataset {
    pub slug: &'static str,
    pub coverage: Coverage,
}

/// Every data set served: the names the README, the notebooks and the tests use.
pub const DATASETS: [Dataset; 6] = [
    Dataset { slug: "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5", coverage: NCDB_CONUS },
    Dataset { slug: "ncdb-4km-Hourly-CONUS-v1-0-0-RCP8-5", coverage: NCDB_CONUS },
    Dataset { slug: "nsrdb-GOES-aggregated-v4-0-0", coverage: GOES_FULL_DISK },
    Dataset { slug: "nsrdb-GOES-full-disc-v4-0-0", coverage: GOES_FULL_DISK },
    Dataset { slug: "nsrdb-GOES-conus-v4-0-0", coverage: GOES_CONUS },
    Dataset { slug: "nsrdb-GOES-tmy-v4-0-0", coverage: GOES_FULL_DISK },
];

/// Why a data set is not served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDataset(pub String);

/// The coverage of `dataset`, or why it is not served (naming the sets of its family).
pub fn coverage_of(dataset: &str) -> Result<Coverage, UnknownDataset> {
    if let Some(known) = DATASETS.iter().find(|known| known.slug == dataset) {
        return Ok(known.coverage);
    }
    let family = DatasetFamily::of(dataset);
    let siblings: Vec<&str> = DATASETS.iter().filter(|known| DatasetFamily::of(known.slug) == family).map(|known| known.slug).collect();
    let spelled_otherwise = siblings.iter().find(|slug| slug.eq_ignore_ascii_case(dataset));
    let hint = spelled_otherwise.map(|slug| format!(" (names are case-sensitive: {slug:?})")).unwrap_or_default();
    let family_name = match family {
        DatasetFamily::Climate => "climate",
        DatasetFamily::Nsrdb => "NSRDB",
    };
    Err(UnknownDataset(format!("no {family_name} data set named {dataset:?}{hint}; this service serves {}", siblings.join(", "))))
}

/// The problems of points outside `coverage` (at most five named, then a count).
pub fn outside(dataset: &str, coverage: &Coverage, points: impl Iterator<Item = (f64, f64)>) -> Option<String> {
    let away: Vec<(f64, f64)> = points.filter(|(lat, lon)| !coverage.contains(*lat, *lon)).collect();
    if away.is_empty() {
        return None;
    }
    let shown: Vec<String> = away.iter().take(5).map(|(lat, lon)| format!("(lat {lat}, lon {lon})")).collect();
    let more = if away.len() > 5 { format!(" and {} more", away.len() - 5) } else { String::new() };
    Some(format!(
        "wkt: {}{more} outside the coverage of {dataset} ({}): no data there",
        shown.join(", "),
        coverage.describe()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_knows_its_sets_by_name_and_covers_their_region() {
        let climate = coverage_of("ncdb-4km-Hourly-CONUS-v1-0-0-RCP8-5").unwrap();
        assert!(climate.contains(39.7, -105.2) && !climate.contains(0.0, -150.0));
        let unknown = coverage_of("ncdb-nonexistent-set").unwrap_err().0;
        assert!(unknown.contains("no climate data set") && unknown.contains("ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"), "{unknown}");
        assert!(!unknown.contains("nsrdb-"), "{unknown}");
        assert!(coverage_of("ncdb-4km-hourly-conus-v1-0-0-rcp4-5").unwrap_err().0.contains("case-sensitive"));
        let conus = coverage_of("nsrdb-GOES-conus-v4-0-0").unwrap();
        assert!(conus.contains(39.7, -105.2) && !conus.contains(0.0, -150.0));
        assert!(coverage_of("nsrdb-GOES-aggregated-v4-0-0").unwrap().contains(0.0, -150.0));
        assert!(coverage_of("nsrdb-PSM3-v3").unwrap_err().0.contains("nsrdb-GOES-conus-v4-0-0"));
        let problem = outside("nsrdb-GOES-conus-v4-0-0", &conus, [(39.7, -105.2), (0.0, -150.0)].into_iter()).unwrap();
        assert!(problem.contains("(lat 0, lon -150)") && !problem.contains("-105.2"), "{problem}");
    }
}

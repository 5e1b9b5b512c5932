//! Which data sets the embedded download serves, by family (`transport::routes::DatasetFamily`):
//! the spec's climate family takes any slug (the spec treats the slug as data); the NSRDB family
//! serves the GOES v4 sets named below, each over the region it covers, so that an unknown name
//! or a point outside a set's coverage is refused as the live service refuses it (before, any
//! slug and any place returned a year of rows). The regions are this service's rectangles
//! around the satellites' footprints, not the live service's exact coverage; the data are
//! synthetic, like all of the embedded service's weather.

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

/// The full disks of GOES-East and GOES-West: the Americas and the eastern Pacific.
const GOES_FULL_DISK: Coverage = Coverage { name: "the GOES full disks", south: -60.0, north: 60.0, west: -180.0, east: -20.0 };
/// The GOES CONUS scan: the contiguous United States and its surroundings.
const GOES_CONUS: Coverage = Coverage { name: "the GOES CONUS scan", south: 20.0, north: 52.0, west: -130.0, east: -60.0 };

/// The NSRDB data sets served, with their coverage.
pub const NSRDB_DATASETS: [(&str, Coverage); 4] = [
    ("nsrdb-GOES-aggregated-v4-0-0", GOES_FULL_DISK),
    ("nsrdb-GOES-full-disc-v4-0-0", GOES_FULL_DISK),
    ("nsrdb-GOES-conus-v4-0-0", GOES_CONUS),
    ("nsrdb-GOES-tmy-v4-0-0", GOES_FULL_DISK),
];

/// Why a data set is not served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDataset(pub String);

/// The coverage of `dataset` (`None`: anywhere), or why it is not served.
pub fn coverage_of(dataset: &str) -> Result<Option<Coverage>, UnknownDataset> {
    match DatasetFamily::of(dataset) {
        DatasetFamily::Climate => Ok(None),
        DatasetFamily::Nsrdb => NSRDB_DATASETS.iter().find(|(slug, _)| *slug == dataset).map(|(_, coverage)| Some(*coverage)).ok_or_else(|| {
            let known: Vec<&str> = NSRDB_DATASETS.iter().map(|(slug, _)| *slug).collect();
            UnknownDataset(format!("no NSRDB data set named {dataset:?}; this service serves {}", known.join(", ")))
        }),
    }
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
    fn nsrdb_sets_are_known_by_name_and_cover_their_region() {
        assert_eq!(coverage_of("ncdb-anything"), Ok(None));
        let conus = coverage_of("nsrdb-GOES-conus-v4-0-0").unwrap().unwrap();
        assert!(conus.contains(39.7, -105.2) && !conus.contains(0.0, -150.0));
        assert!(coverage_of("nsrdb-GOES-aggregated-v4-0-0").unwrap().unwrap().contains(0.0, -150.0));
        assert!(coverage_of("nsrdb-PSM3-v3").unwrap_err().0.contains("nsrdb-GOES-conus-v4-0-0"));
        let problem = outside("nsrdb-GOES-conus-v4-0-0", &conus, [(39.7, -105.2), (0.0, -150.0)].into_iter()).unwrap();
        assert!(problem.contains("(lat 0, lon -150)") && !problem.contains("-105.2"), "{problem}");
    }
}

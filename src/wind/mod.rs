//! Wind production as the optimizer service computes it (issue #29): the service's generic
//! turbines by size class (REopt.jl `src/core/wind.jl` and `production_factor.jl`), the WIND
//! Toolkit heights it downloads for a hub height, one turbine's output per SAM's `windpower`
//! module (`turbine.rs`) and the WIND Toolkit grid the service checks a site against (`grid.rs`).
//! Pure functions; no I/O.

pub mod grid;
pub mod turbine;

/// The WIND Toolkit's resource heights (m above ground), the `hubheight` values its SRW download
/// accepts.
pub const TOOLKIT_HEIGHTS_M: [u32; 9] = [10, 40, 60, 80, 100, 120, 140, 160, 200];

/// The resource year the service downloads (REopt.jl asks the WIND Toolkit for 2012).
pub const RESOURCE_YEAR: i32 = 2012;

/// Wind speeds of every power curve (m/s): 0 to 25 in steps of 1.
pub const POWER_CURVE_SPEEDS_M_PER_S: [f64; 26] =
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0];

/// The service's four generic turbines (`Wind.size_class`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeClass {
    Residential,
    Commercial,
    Medium,
    Large,
}

impl SizeClass {
    pub const ALL: [SizeClass; 4] = [SizeClass::Residential, SizeClass::Commercial, SizeClass::Medium, SizeClass::Large];

    pub fn name(self) -> &'static str {
        match self {
            SizeClass::Residential => "residential",
            SizeClass::Commercial => "commercial",
            SizeClass::Medium => "medium",
            SizeClass::Large => "large",
        }
    }

    /// The class of a given `size_class`, or, when it is empty, the one the service picks from
    /// the average electric load (kW): ≤ 12.5 residential, ≤ 100 commercial, ≤ 1000 medium,
    /// else large. None for a name the service does not know.
    pub fn of(size_class: &str, load_kw: &[f64]) -> Option<SizeClass> {
        if size_class.is_empty() {
            return Some(SizeClass::for_average_load(load_kw.iter().sum::<f64>() / load_kw.len().max(1) as f64));
        }
        SizeClass::ALL.into_iter().find(|class| class.name() == size_class)
    }

    /// The class the service picks for an average electric load (kW).
    pub fn for_average_load(average_kw: f64) -> SizeClass {
        if average_kw <= 12.5 {
            SizeClass::Residential
        } else if average_kw <= 100.0 {
            SizeClass::Commercial
        } else if average_kw <= 1000.0 {
            SizeClass::Medium
        } else {
            SizeClass::Large
        }
    }

    /// Hub height (m).
    pub fn hub_height_m(self) -> f64 {
        match self {
            SizeClass::Residential => 20.0,
            SizeClass::Commercial => 40.0,
            SizeClass::Medium => 60.0,
            SizeClass::Large => 80.0,
        }
    }

    /// Rotor diameter (m).
    pub fn rotor_diameter_m(self) -> f64 {
        match self {
            SizeClass::Residential => 3.7,
            SizeClass::Commercial => 27.6,
            SizeClass::Medium => 43.8,
            SizeClass::Large => 110.0,
        }
    }

    /// The turbine's size (kW), by which its output is divided into a production factor.
    pub fn rated_kw(self) -> f64 {
        match self {
            SizeClass::Residential => 2.5,
            SizeClass::Commercial => 100.0,
            SizeClass::Medium => 250.0,
            SizeClass::Large => 2000.0,
        }
    }

    /// The default installed cost ($/kW).
    pub fn installed_cost_per_kw(self) -> f64 {
        match self {
            SizeClass::Residential => 7692.0,
            SizeClass::Commercial => 5776.0,
            SizeClass::Medium => 3807.0,
            SizeClass::Large => 2896.0,
        }
    }

    /// Output (kW) at each speed of `POWER_CURVE_SPEEDS_M_PER_S`, at sea-level air density.
    pub fn power_curve_kw(self) -> &'static [f64; 26] {
        match self {
            SizeClass::Residential => &RESIDENTIAL_CURVE,
            SizeClass::Commercial => &COMMERCIAL_CURVE,
            SizeClass::Medium => &MEDIUM_CURVE,
            SizeClass::Large => &LARGE_CURVE,
        }
    }
}

const LARGE_CURVE: [f64; 26] = [
    0.0, 0.0, 0.0, 70.119, 166.208, 324.625, 560.952, 890.771, 1329.664, 1893.213, 2000.0, 2000.0, 2000.0, 2000.0, 2000.0, 2000.0, 2000.0,
    2000.0, 2000.0, 2000.0, 2000.0, 2000.0, 2000.0, 2000.0, 2000.0, 2000.0,
];
const MEDIUM_CURVE: [f64; 26] = [
    0.0, 0.0, 0.0, 8.764875, 20.776, 40.578125, 70.119, 111.346375, 166.208, 236.651625, 250.0, 250.0, 250.0, 250.0, 250.0, 250.0, 250.0,
    250.0, 250.0, 250.0, 250.0, 250.0, 250.0, 250.0, 250.0, 250.0,
];
const COMMERCIAL_CURVE: [f64; 26] = [
    0.0, 0.0, 0.0, 3.50595, 8.3104, 16.23125, 28.0476, 44.53855, 66.4832, 94.66065, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0,
    100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0,
];
const RESIDENTIAL_CURVE: [f64; 26] = [
    0.0, 0.0, 0.0, 0.070542773, 0.1672125, 0.326586914, 0.564342188, 0.896154492, 1.3377, 1.904654883, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5,
    2.5, 2.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
];

/// The WIND Toolkit heights (m) the service downloads for a hub height: the hub height itself
/// when the toolkit has it, else the two toolkit heights around it (SAM interpolates between
/// them), or the lowest or highest toolkit height outside the toolkit's range.
pub fn resource_heights(hub_height_m: f64) -> Vec<u32> {
    let heights = TOOLKIT_HEIGHTS_M.map(f64::from);
    if let Some(exact) = TOOLKIT_HEIGHTS_M.iter().zip(heights).find(|(_, h)| *h == hub_height_m) {
        return vec![*exact.0];
    }
    match TOOLKIT_HEIGHTS_M.iter().zip(heights).position(|(_, h)| h > hub_height_m) {
        Some(0) => vec![TOOLKIT_HEIGHTS_M[0]],
        Some(upper) => TOOLKIT_HEIGHTS_M.get(upper - 1..=upper).map_or_else(Vec::new, <[u32]>::to_vec),
        None => vec![TOOLKIT_HEIGHTS_M[TOOLKIT_HEIGHTS_M.len() - 1]],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_class_downloads_the_heights_the_service_asks_for() {
        let heights: Vec<Vec<u32>> = SizeClass::ALL.iter().map(|c| resource_heights(c.hub_height_m())).collect();
        assert_eq!(heights, [vec![10, 40], vec![40], vec![60], vec![80]]);
        assert_eq!((resource_heights(5.0), resource_heights(250.0), resource_heights(150.0)), (vec![10], vec![200], vec![140, 160]));
    }

    #[test]
    fn the_class_follows_the_average_load_when_not_given() {
        let flat = |kw: f64| vec![kw; 8760];
        let classes: Vec<SizeClass> = [12.5, 12.6, 100.0, 1000.0, 1000.1].iter().map(|kw| SizeClass::of("", &flat(*kw)).unwrap()).collect();
        assert_eq!(classes, [SizeClass::Residential, SizeClass::Commercial, SizeClass::Commercial, SizeClass::Medium, SizeClass::Large]);
        assert_eq!(SizeClass::of("medium", &flat(1.0)), Some(SizeClass::Medium));
        assert_eq!(SizeClass::of("huge", &flat(1.0)), None);
        for class in SizeClass::ALL {
            let peak = class.power_curve_kw().iter().copied().fold(0.0, f64::max);
            assert_eq!(peak, class.rated_kw(), "{class:?}: the curve tops out at the rated size");
        }
    }
}

//! The service's default PV costs when `PV.installed_cost_per_kw` or `PV.om_cost_per_kw` is
//! left out: a size class (1 residential … 5 utility) chosen from the site's load and space,
//! and that class's average installed cost and O&M cost, with a premium for ground mounts.
//!
//! Facts from the optimizer's public source (its PV defaults table and size-class rule, as of
//! REopt.jl 0.56): the estimated size is half the PV that would produce the annual load at a
//! 20 % capacity factor, `0.5 · annual_kwh / (8760 · 0.2)`; when the roof and/or land limit the
//! array below `max_kw`, the estimate is instead the smaller of that limit and the full-load
//! size. The estimate is clipped to `max_kw` (when given) and `min_kw`, and the class is the
//! first whose size range holds it (above the last range: the last class; below: class 1).
//! Ground mounts (array types 0, 2, 3, 4) pay the class's cost premium. Costs are rounded to
//! whole dollars. When only the O&M cost is missing and an installed cost is given, the
//! service takes no size class and uses 18 $/kW-year.

use crate::calendar::HOURS_PER_YEAR;

/// One size class: its range of sizes (kW), average installed cost and O&M cost of a roof
/// mount ($/kW, $/kW-year), and the multiplier for ground mounts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeClass {
    pub min_kw: f64,
    pub max_kw: f64,
    pub installed_cost_per_kw: f64,
    pub om_cost_per_kw: f64,
    pub ground_cost_premium: f64,
}

/// Size classes 1 to 5 (residential, small commercial, large commercial, industrial, utility).
pub const SIZE_CLASSES: [SizeClass; 5] = [
    SizeClass { min_kw: 3.0, max_kw: 11.0, installed_cost_per_kw: 2783.0, om_cost_per_kw: 32.0, ground_cost_premium: 1.30 },
    SizeClass { min_kw: 11.0, max_kw: 100.0, installed_cost_per_kw: 2232.0, om_cost_per_kw: 26.0, ground_cost_premium: 1.30 },
    SizeClass { min_kw: 100.0, max_kw: 2000.0, installed_cost_per_kw: 1920.0, om_cost_per_kw: 20.0, ground_cost_premium: 1.15 },
    SizeClass { min_kw: 2000.0, max_kw: 10_000.0, installed_cost_per_kw: 1661.0, om_cost_per_kw: 20.0, ground_cost_premium: 1.0 },
    SizeClass { min_kw: 10_000.0, max_kw: 100_000.0, installed_cost_per_kw: 1239.0, om_cost_per_kw: 17.0, ground_cost_premium: 1.0 },
];

/// O&M cost the service uses when an installed cost is given but no O&M cost ($/kW-year).
pub const OM_COST_WITHOUT_SIZE_CLASS: f64 = 18.0;

/// The service's "unlimited" PV `max_kw`.
const UNLIMITED_MAX_KW: f64 = 1.0e9;

/// What the size class depends on.
#[derive(Debug, Clone, PartialEq)]
pub struct PvCostInputs {
    /// Annual site load (kWh).
    pub annual_kwh: f64,
    pub min_kw: f64,
    pub max_kw: f64,
    /// Roof (ft²) and land (acres) of the site, when given.
    pub roof_squarefeet: Option<f64>,
    pub land_acres: Option<f64>,
    pub kw_per_square_foot: f64,
    pub acres_per_kw: f64,
    /// PVWatts array type 0..=4 (1 is a roof mount).
    pub array_type: u32,
    /// "roof", "ground" or "both".
    pub location: String,
    /// `PV.size_class` when the scenario gives it.
    pub size_class: Option<u32>,
}

/// The defaults the service fills: costs and the class they came from (None when no class
/// was needed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PvCostDefaults {
    pub installed_cost_per_kw: Option<f64>,
    pub om_cost_per_kw: Option<f64>,
    pub size_class: Option<u32>,
}

fn is_ground_mount(array_type: u32) -> bool {
    matches!(array_type, 0 | 2 | 3 | 4)
}

/// The size class (1-based) for a scenario that gives no installed cost.
pub fn size_class(inputs: &PvCostInputs) -> u32 {
    if let Some(given) = inputs.size_class {
        return given.clamp(1, SIZE_CLASSES.len() as u32);
    }
    let roof_kw = inputs.roof_squarefeet.filter(|_| matches!(inputs.location.as_str(), "both" | "roof")).map(|ft2| ft2 * inputs.kw_per_square_foot);
    let land_kw = inputs.land_acres.filter(|_| matches!(inputs.location.as_str(), "both" | "ground")).map(|acres| acres / inputs.acres_per_kw);
    let space_kw = (roof_kw.is_some() || land_kw.is_some()).then(|| roof_kw.unwrap_or(0.0) + land_kw.unwrap_or(0.0));
    let space_constrained = space_kw.is_some_and(|kw| kw < inputs.max_kw);
    let limit_kw = if space_constrained { space_kw.unwrap_or(inputs.max_kw) } else { inputs.max_kw };
    let full_load_kw = inputs.annual_kwh / (HOURS_PER_YEAR as f64 * 0.2);
    let mut estimate = if space_constrained { limit_kw.min(full_load_kw) } else { 0.5 * full_load_kw };
    if limit_kw != UNLIMITED_MAX_KW {
        estimate = estimate.min(limit_kw);
    }
    if inputs.min_kw != 0.0 {
        estimate = estimate.max(inputs.min_kw);
    }
    if let Some(index) = SIZE_CLASSES.iter().position(|c| estimate >= c.min_kw && estimate <= c.max_kw) {
        return index as u32 + 1;
    }
    if estimate > SIZE_CLASSES[SIZE_CLASSES.len() - 1].max_kw {
        SIZE_CLASSES.len() as u32
    } else {
        1
    }
}

/// The costs the service fills for the missing ones among `installed` and `om`.
pub fn default_costs(installed: Option<f64>, om: Option<f64>, inputs: &PvCostInputs) -> PvCostDefaults {
    let class = match (installed, inputs.size_class) {
        (Some(_), None) => None,
        _ => Some(size_class(inputs)),
    };
    let premium = |c: &SizeClass| if is_ground_mount(inputs.array_type) { c.ground_cost_premium } else { 1.0 };
    let class_data = class.map(|k| &SIZE_CLASSES[k as usize - 1]);
    let installed_cost_per_kw = match (installed, class_data) {
        (Some(_), _) => None,
        (None, Some(c)) => Some((c.installed_cost_per_kw * premium(c)).round()),
        (None, None) => None,
    };
    let om_cost_per_kw = match (om, class_data) {
        (Some(_), _) => None,
        (None, Some(c)) => Some(c.om_cost_per_kw.round()),
        (None, None) => Some(OM_COST_WITHOUT_SIZE_CLASS),
    };
    PvCostDefaults { installed_cost_per_kw, om_cost_per_kw, size_class: class }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(annual_kwh: f64) -> PvCostInputs {
        PvCostInputs {
            annual_kwh,
            min_kw: 0.0,
            max_kw: UNLIMITED_MAX_KW,
            roof_squarefeet: None,
            land_acres: None,
            kw_per_square_foot: 0.01,
            acres_per_kw: 0.006,
            array_type: 1,
            location: "both".into(),
            size_class: None,
        }
    }

    #[test]
    fn the_class_follows_half_the_load_at_a_20_percent_capacity_factor() {
        // 1 GWh a year → 0.5 · 1e6 / 1752 = 285 kW: large commercial.
        assert_eq!(size_class(&inputs(1.0e6)), 3);
        assert_eq!(size_class(&inputs(100_000.0)), 2);
        assert_eq!(size_class(&inputs(1.0e9)), 5);
        assert_eq!(size_class(&inputs(1000.0)), 1);
    }

    #[test]
    fn space_and_bounds_move_the_class() {
        let roof = PvCostInputs { roof_squarefeet: Some(5000.0), ..inputs(1.0e7) };
        assert_eq!(size_class(&roof), 2, "a 50 kW roof caps the estimate");
        let fixed = PvCostInputs { min_kw: 2500.0, max_kw: 2500.0, ..inputs(1000.0) };
        assert_eq!(size_class(&fixed), 4);
    }

    #[test]
    fn ground_mounts_pay_the_premium_and_om_defaults_depend_on_the_class() {
        let ground = PvCostInputs { array_type: 0, ..inputs(100_000.0) };
        let defaults = default_costs(None, None, &ground);
        assert_eq!(defaults.installed_cost_per_kw, Some((2232.0f64 * 1.3).round()));
        assert_eq!(defaults.om_cost_per_kw, Some(26.0));
        let om_only = default_costs(Some(1500.0), None, &ground);
        assert_eq!((om_only.installed_cost_per_kw, om_only.om_cost_per_kw, om_only.size_class), (None, Some(18.0), None));
    }
}

//! The service's CHP defaults by prime mover and size class, and its rule choosing them
//! (REopt.jl 0.56.4 `src/core/chp.jl` `get_chp_defaults_prime_mover_size_class`,
//! `get_heuristic_chp_size_kw`, `get_size_class_from_size`, `get_prime_mover_defaults`).
//!
//! The table is the one of REopt.jl `data/chp/chp_defaults.json` at commit 029db01d: per prime
//! mover, one entry per size class, class 0 standing for the whole range. Each class's installed
//! cost is a two-point cost curve ($/kW at the class's smallest and largest size, kW).
//!
//! The rule: with an average boiler fuel load (MMBtu/h) and CHP not electric-only, the prime
//! mover is the reciprocating engine up to 27 MMBtu/h (hot water) or 7 MMBtu/h (steam) and the
//! combustion turbine above, and the heuristic size is the CHP whose heat meets the average
//! heating load, `fuel · η_boiler / η_thermal · η_electric · 293.07107` kW, its largest size twice
//! that; else the heuristic size is the average electric load and the largest size the peak. The
//! size class is the one whose range holds the heuristic size (iterated when the efficiencies of
//! the class found change it), class 0 without a heuristic size. Electric-only CHP has no heat
//! and 75 % of the installed and O&M costs.

use super::chp_unavailability::UnavailabilityPeriod;
use super::thermal_inputs::KWH_PER_MMBTU;

/// The service's prime movers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrimeMover {
    RecipEngine,
    MicroTurbine,
    CombustionTurbine,
    FuelCell,
}

impl PrimeMover {
    pub fn from_name(name: &str) -> Option<PrimeMover> {
        match name {
            "recip_engine" => Some(PrimeMover::RecipEngine),
            "micro_turbine" => Some(PrimeMover::MicroTurbine),
            "combustion_turbine" => Some(PrimeMover::CombustionTurbine),
            "fuel_cell" => Some(PrimeMover::FuelCell),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PrimeMover::RecipEngine => "recip_engine",
            PrimeMover::MicroTurbine => "micro_turbine",
            PrimeMover::CombustionTurbine => "combustion_turbine",
            PrimeMover::FuelCell => "fuel_cell",
        }
    }

    fn table(self) -> &'static PrimeMoverTable {
        match self {
            PrimeMover::RecipEngine => &RECIP_ENGINE,
            PrimeMover::MicroTurbine => &MICRO_TURBINE,
            PrimeMover::CombustionTurbine => &COMBUSTION_TURBINE,
            PrimeMover::FuelCell => &FUEL_CELL,
        }
    }

    /// The number of size classes (class 0 included).
    pub fn classes(self) -> usize {
        self.table().sizes_kw.len()
    }
}

/// Whether the existing boiler makes hot water or steam (the thermal efficiency differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatMedium {
    HotWater,
    Steam,
}

impl HeatMedium {
    /// The average boiler fuel load (MMBtu/h) up to which the reciprocating engine is chosen.
    fn recip_engine_up_to_mmbtu_per_hour(self) -> f64 {
        match self {
            HeatMedium::HotWater => 27.0,
            HeatMedium::Steam => 7.0,
        }
    }
}

/// One prime mover's entries, indexed by size class.
struct PrimeMoverTable {
    /// $/kW at the class's smallest and largest size.
    installed_cost_per_kw: &'static [[f64; 2]],
    /// The class's smallest and largest size (kW).
    sizes_kw: &'static [[f64; 2]],
    om_cost_per_kwh: &'static [f64],
    electric_efficiency_full_load: &'static [f64],
    thermal_efficiency_hot_water: &'static [f64],
    thermal_efficiency_steam: &'static [f64],
    min_allowable_kw: &'static [f64],
    min_turn_down_fraction: &'static [f64],
    /// Absorption-chiller cooling per unit of CHP heat, relative to a boiler's.
    cooling_thermal_factor: &'static [f64],
    unavailability_periods: &'static [UnavailabilityPeriod],
}

const fn period(month: u32, start_week_of_month: i64, start_day_of_week: i64, duration_hours: i64) -> UnavailabilityPeriod {
    UnavailabilityPeriod { month, start_week_of_month, start_day_of_week, start_hour: 1, duration_hours }
}

// REopt.jl data/chp/chp_defaults.json at 029db01d.
const RECIP_ENGINE: PrimeMoverTable = PrimeMoverTable {
    installed_cost_per_kw: &[
        [4250.0, 2000.0],
        [4250.0, 3700.0],
        [3700.0, 3450.0],
        [3450.0, 3150.0],
        [3150.0, 2800.0],
        [2800.0, 2550.0],
        [2550.0, 2350.0],
        [2350.0, 2000.0],
    ],
    sizes_kw: &[
        [35.0, 4500.0],
        [35.0, 100.0],
        [100.0, 250.0],
        [250.0, 500.0],
        [500.0, 1000.0],
        [1000.0, 2000.0],
        [2000.0, 3000.0],
        [3000.0, 4500.0],
    ],
    om_cost_per_kwh: &[0.0195, 0.0275, 0.0235, 0.021, 0.0185, 0.016, 0.0145, 0.0135],
    electric_efficiency_full_load: &[0.3555, 0.287, 0.312, 0.345, 0.3655, 0.385, 0.403, 0.405],
    thermal_efficiency_hot_water: &[0.4376, 0.52, 0.485, 0.4445, 0.419, 0.4015, 0.384, 0.384],
    thermal_efficiency_steam: &[0.1418, 0.0, 0.0, 0.0, 0.169, 0.142, 0.1295, 0.121],
    min_allowable_kw: &[17.5, 17.5, 50.0, 125.0, 250.0, 500.0, 1000.0, 1500.0],
    min_turn_down_fraction: &[0.25; 8],
    cooling_thermal_factor: &[0.8375, 0.8, 0.825, 0.85, 0.85, 0.85, 0.85, 0.85],
    unavailability_periods: &[
        period(1, 2, 6, 48),
        period(2, 2, 1, 48),
        period(3, 2, 6, 48),
        period(5, 2, 6, 48),
        period(6, 2, 1, 48),
        period(7, 2, 6, 48),
        period(9, 2, 6, 48),
        period(10, 2, 1, 48),
        period(11, 2, 6, 48),
    ],
};

const MICRO_TURBINE: PrimeMoverTable = PrimeMoverTable {
    installed_cost_per_kw: &[[4900.0, 3400.0], [4900.0, 4400.0], [4400.0, 3700.0], [3700.0, 3400.0]],
    sizes_kw: &[[65.0, 1000.0], [65.0, 200.0], [200.0, 600.0], [600.0, 1000.0]],
    om_cost_per_kwh: &[0.01475, 0.0155, 0.016, 0.014],
    electric_efficiency_full_load: &[0.274, 0.2648, 0.2819, 0.2831],
    thermal_efficiency_hot_water: &[0.4024, 0.4278, 0.3841, 0.377],
    thermal_efficiency_steam: &[0.0; 4],
    min_allowable_kw: &[45.5, 45.5, 140.0, 420.0],
    min_turn_down_fraction: &[0.3; 4],
    cooling_thermal_factor: &[0.94; 4],
    unavailability_periods: &[period(3, 2, 1, 60), period(4, 2, 5, 72), period(7, 2, 1, 60), period(10, 2, 5, 72)],
};

const COMBUSTION_TURBINE: PrimeMoverTable = PrimeMoverTable {
    installed_cost_per_kw: &[
        [5200.0, 1700.0],
        [5200.0, 4200.0],
        [4200.0, 3400.0],
        [3400.0, 2850.0],
        [2850.0, 2500.0],
        [2500.0, 2150.0],
        [2150.0, 1700.0],
    ],
    sizes_kw: &[
        [2000.0, 25000.0],
        [2000.0, 3500.0],
        [3500.0, 5000.0],
        [5000.0, 8000.0],
        [8000.0, 10000.0],
        [10000.0, 15000.0],
        [15000.0, 25000.0],
    ],
    om_cost_per_kwh: &[0.012714, 0.0145, 0.014, 0.0135, 0.013, 0.012, 0.01],
    electric_efficiency_full_load: &[0.2854, 0.236, 0.2555, 0.284, 0.3, 0.3055, 0.332],
    thermal_efficiency_hot_water: &[0.4339, 0.4499, 0.4604, 0.456, 0.4428, 0.4224, 0.3916],
    thermal_efficiency_steam: &[0.3944, 0.409, 0.4185, 0.4145, 0.4025, 0.384, 0.356],
    min_allowable_kw: &[2000.0, 2000.0, 3500.0, 5000.0, 8000.0, 10000.0, 15000.0],
    min_turn_down_fraction: &[0.5; 7],
    cooling_thermal_factor: &[0.9; 7],
    unavailability_periods: &[period(2, 2, 1, 60), period(4, 2, 5, 72), period(8, 2, 1, 60), period(10, 2, 5, 72)],
};

const FUEL_CELL: PrimeMoverTable = PrimeMoverTable {
    installed_cost_per_kw: &[[5000.0, 3680.0], [5000.0, 4600.0], [4600.0, 3680.0]],
    sizes_kw: &[[440.0, 9300.0], [440.0, 1400.0], [1400.0, 9300.0]],
    om_cost_per_kwh: &[0.039, 0.038, 0.04],
    electric_efficiency_full_load: &[0.399, 0.386, 0.413],
    thermal_efficiency_hot_water: &[0.235, 0.206, 0.265],
    thermal_efficiency_steam: &[0.172, 0.146, 0.197],
    min_allowable_kw: &[440.0, 440.0, 1400.0],
    min_turn_down_fraction: &[0.3; 3],
    cooling_thermal_factor: &[0.85; 3],
    unavailability_periods: &[period(3, 2, 1, 60), period(4, 2, 5, 72), period(7, 2, 1, 60), period(10, 2, 5, 72)],
};

/// When `min_allowable_kw` exceeds the largest size, it becomes this fraction of it.
pub const MIN_ALLOWABLE_FRACTION_OF_MAX: f64 = 0.25;

/// The share of the installed and O&M costs an electric-only CHP keeps.
const ELECTRIC_ONLY_COST_FRACTION: f64 = 0.75;

/// What the selection rule is given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Selection {
    pub medium: HeatMedium,
    /// The average boiler fuel load, MMBtu/h (None without an existing boiler).
    pub avg_boiler_fuel_mmbtu_per_hour: Option<f64>,
    pub prime_mover: Option<PrimeMover>,
    pub size_class: Option<usize>,
    pub max_kw: Option<f64>,
    pub boiler_efficiency: f64,
    /// Average and peak electric load, kW.
    pub electric_load_kw: Option<(f64, f64)>,
    pub is_electric_only: bool,
    /// A given full-load thermal efficiency (used for the heuristic size).
    pub thermal_efficiency: Option<f64>,
}

/// The defaults of one prime mover and size class.
#[derive(Debug, Clone, PartialEq)]
pub struct ChpDefaults {
    pub prime_mover: PrimeMover,
    pub size_class: usize,
    /// The largest size the rule sets (None when it has no heuristic and no class was given).
    pub max_kw: Option<f64>,
    /// The cost curve: $/kW at each size (kW).
    pub installed_cost_per_kw: [f64; 2],
    pub tech_sizes_for_cost_curve: [f64; 2],
    pub om_cost_per_kwh: f64,
    pub electric_efficiency_full_load: f64,
    pub thermal_efficiency_full_load: f64,
    pub min_allowable_kw: f64,
    pub min_turn_down_fraction: f64,
    pub cooling_thermal_factor: f64,
    pub unavailability_periods: &'static [UnavailabilityPeriod],
}

/// The CHP size (kW) whose heat at full load meets the average heating load.
fn heuristic_size_kw(pm: PrimeMover, class: usize, s: &Selection, avg_fuel: f64) -> Result<f64, String> {
    let table = pm.table();
    let thermal = s.thermal_efficiency.unwrap_or_else(|| thermal_efficiency(table, s.medium, class));
    if thermal == 0.0 {
        let medium = match s.medium {
            HeatMedium::HotWater => "hot_water",
            HeatMedium::Steam => "steam",
        };
        return Err(format!(
            "CHP: the heuristic size from the average heating load needs a thermal efficiency, and prime_mover {} (size_class {class}) has 0.0 for {medium}.",
            pm.name()
        ));
    }
    Ok(avg_fuel * s.boiler_efficiency / thermal * table.electric_efficiency_full_load[class] * KWH_PER_MMBTU)
}

fn thermal_efficiency(table: &PrimeMoverTable, medium: HeatMedium, class: usize) -> f64 {
    match medium {
        HeatMedium::HotWater => table.thermal_efficiency_hot_water[class],
        HeatMedium::Steam => table.thermal_efficiency_steam[class],
    }
}

/// The size class (1 or more) whose range holds `size_kw`: below the top of class 1 is class 1,
/// from the bottom of the last class up is the last; each range includes its lower end.
pub fn size_class_of(pm: PrimeMover, size_kw: f64) -> usize {
    let bounds = pm.table().sizes_kw;
    let last = bounds.len() - 1;
    if size_kw < bounds[1][1] {
        return 1;
    }
    if size_kw >= bounds[last][0] {
        return last;
    }
    (2..last).find(|&c| size_kw >= bounds[c][0] && size_kw < bounds[c][1]).unwrap_or(last)
}

/// The service's defaults for a CHP (`get_chp_defaults_prime_mover_size_class`); an error names a
/// size class out of range or a heuristic size that needs a zero thermal efficiency.
pub fn chp_defaults(s: &Selection) -> Result<ChpDefaults, String> {
    let mut prime_mover = s.prime_mover;
    let mut heuristic_kw = None;
    let mut max_kw = None;
    let heating = s.avg_boiler_fuel_mmbtu_per_hour.filter(|_| !s.is_electric_only);
    if let Some(avg_fuel) = heating {
        let pm = *prime_mover.get_or_insert(if avg_fuel <= s.medium.recip_engine_up_to_mmbtu_per_hour() {
            PrimeMover::RecipEngine
        } else {
            PrimeMover::CombustionTurbine
        });
        let class = s.size_class.unwrap_or(0);
        check_class(pm, class)?;
        let kw = heuristic_size_kw(pm, class, s, avg_fuel)?;
        heuristic_kw = Some(kw);
        max_kw = Some(2.0 * kw);
    } else if let Some((average, peak)) = s.electric_load_kw {
        heuristic_kw = Some(average);
        max_kw = Some(peak);
    }
    let pm = prime_mover.unwrap_or(PrimeMover::RecipEngine);
    if s.max_kw.is_some() {
        max_kw = s.max_kw;
    }
    let size_class = match (s.size_class, heuristic_kw) {
        (Some(class), _) => {
            check_class(pm, class)?;
            max_kw = max_kw.or(Some(pm.table().sizes_kw[class][1]));
            class
        }
        (None, Some(kw)) => size_class_of(pm, kw),
        (None, None) => 0,
    };
    let mut size_class = size_class;
    if let (Some(avg_fuel), None) = (heating, s.size_class) {
        // The class found has other efficiencies: size again until the class repeats.
        let mut seen = vec![0];
        while !seen.contains(&size_class) {
            seen.push(size_class);
            let kw = heuristic_size_kw(pm, size_class, s, avg_fuel)?;
            max_kw = Some(2.0 * kw);
            size_class = size_class_of(pm, kw);
        }
    }
    Ok(class_defaults(pm, size_class, s, max_kw))
}

fn check_class(pm: PrimeMover, class: usize) -> Result<(), String> {
    if class >= pm.classes() {
        return Err(format!(
            "CHP.size_class {class} is outside the valid range of 0 to {} for prime_mover {}.",
            pm.classes() - 1,
            pm.name()
        ));
    }
    Ok(())
}

fn class_defaults(pm: PrimeMover, class: usize, s: &Selection, max_kw: Option<f64>) -> ChpDefaults {
    let table = pm.table();
    let cost_share = if s.is_electric_only { ELECTRIC_ONLY_COST_FRACTION } else { 1.0 };
    let thermal = if s.is_electric_only { 0.0 } else { thermal_efficiency(table, s.medium, class) };
    let mut min_allowable_kw = table.min_allowable_kw[class];
    if let Some(max) = max_kw.filter(|&max| min_allowable_kw > max) {
        min_allowable_kw = max * MIN_ALLOWABLE_FRACTION_OF_MAX;
    }
    ChpDefaults {
        prime_mover: pm,
        size_class: class,
        max_kw,
        installed_cost_per_kw: table.installed_cost_per_kw[class].map(|c| c * cost_share),
        tech_sizes_for_cost_curve: table.sizes_kw[class],
        om_cost_per_kwh: table.om_cost_per_kwh[class] * cost_share,
        electric_efficiency_full_load: table.electric_efficiency_full_load[class],
        thermal_efficiency_full_load: thermal,
        min_allowable_kw,
        min_turn_down_fraction: table.min_turn_down_fraction[class],
        cooling_thermal_factor: table.cooling_thermal_factor[class],
        unavailability_periods: table.unavailability_periods,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selection() -> Selection {
        Selection {
            medium: HeatMedium::HotWater,
            avg_boiler_fuel_mmbtu_per_hour: None,
            prime_mover: None,
            size_class: None,
            max_kw: None,
            boiler_efficiency: 0.8,
            electric_load_kw: None,
            is_electric_only: false,
            thermal_efficiency: None,
        }
    }

    /// Each class's range includes its lower end: the sizes at the class boundaries.
    #[test]
    fn size_classes_at_their_boundaries() {
        let recip = PrimeMover::RecipEngine;
        let cases = [(0.0, 1), (99.999, 1), (100.0, 2), (249.9, 2), (250.0, 3), (500.0, 4), (1000.0, 5), (2000.0, 6), (2999.0, 6), (3000.0, 7), (1e6, 7)];
        for (kw, class) in cases {
            assert_eq!(size_class_of(recip, kw), class, "{kw} kW");
        }
        let turbine = PrimeMover::CombustionTurbine;
        assert_eq!((size_class_of(turbine, 3499.0), size_class_of(turbine, 3500.0), size_class_of(turbine, 15000.0)), (1, 2, 6));
        assert_eq!((size_class_of(PrimeMover::FuelCell, 1399.0), size_class_of(PrimeMover::FuelCell, 1400.0)), (1, 2));
    }

    /// 27 MMBtu/h of hot-water boiler fuel is still the reciprocating engine; just above, the turbine.
    #[test]
    fn prime_mover_threshold_by_heat_medium() {
        let at = |fuel: f64, medium: HeatMedium| {
            let s = Selection { avg_boiler_fuel_mmbtu_per_hour: Some(fuel), medium, ..selection() };
            chp_defaults(&s).map(|d| d.prime_mover)
        };
        assert_eq!(at(27.0, HeatMedium::HotWater), Ok(PrimeMover::RecipEngine));
        assert_eq!(at(27.001, HeatMedium::HotWater), Ok(PrimeMover::CombustionTurbine));
        assert_eq!(at(7.001, HeatMedium::Steam), Ok(PrimeMover::CombustionTurbine));
        // 0.2 MMBtu/h of steam fuel sizes 110 kW through class 0's efficiencies: class 2 makes no steam.
        assert!(at(0.2, HeatMedium::Steam).unwrap_err().contains("0.0 for steam"));
        assert_eq!(at(1.0, HeatMedium::Steam), Ok(PrimeMover::RecipEngine));
    }

    /// The heuristic size and the iteration over classes: 10 MMBtu/h of fuel at 80 % through class
    /// 0's 43.76 % heat and 35.55 % electricity is 1905 kW (class 5); class 5's efficiencies size
    /// 2248 kW (class 6), and class 6's 2461 kW (class 6 again).
    #[test]
    fn heuristic_size_iterates_to_a_stable_class() {
        let s = Selection { avg_boiler_fuel_mmbtu_per_hour: Some(10.0), ..selection() };
        let first = heuristic_size_kw(PrimeMover::RecipEngine, 0, &s, 10.0).unwrap();
        assert!((first - 10.0 * 0.8 / 0.4376 * 0.3555 * KWH_PER_MMBTU).abs() < 1e-9);
        assert_eq!(size_class_of(PrimeMover::RecipEngine, first), 5);
        let d = chp_defaults(&s).unwrap();
        let class6 = 10.0 * 0.8 / 0.384 * 0.403 * KWH_PER_MMBTU;
        assert_eq!((d.prime_mover, d.size_class), (PrimeMover::RecipEngine, 6));
        assert!((d.max_kw.unwrap() - 2.0 * class6).abs() < 1e-9);
        assert_eq!((d.installed_cost_per_kw, d.tech_sizes_for_cost_curve), ([2550.0, 2350.0], [2000.0, 3000.0]));
        assert_eq!((d.om_cost_per_kwh, d.electric_efficiency_full_load, d.thermal_efficiency_full_load), (0.0145, 0.403, 0.384));
        assert_eq!((d.min_allowable_kw, d.min_turn_down_fraction, d.unavailability_periods.len()), (1000.0, 0.25, 9));
    }

    /// Without heating (or electric-only) the electric load sizes it; electric-only costs 75 %.
    #[test]
    fn electric_load_sizes_electric_only_chp() {
        let s = Selection { electric_load_kw: Some((600.0, 1200.0)), is_electric_only: true, avg_boiler_fuel_mmbtu_per_hour: Some(30.0), ..selection() };
        let d = chp_defaults(&s).unwrap();
        assert_eq!((d.prime_mover, d.size_class, d.max_kw), (PrimeMover::RecipEngine, 4, Some(1200.0)));
        assert_eq!((d.installed_cost_per_kw, d.thermal_efficiency_full_load), ([3150.0 * 0.75, 2800.0 * 0.75], 0.0));
        assert!((d.om_cost_per_kwh - 0.0185 * 0.75).abs() < 1e-15);
    }

    /// A given class keeps its entries, its largest size the top of the class, and a
    /// min_allowable_kw above a given max_kw becomes a quarter of it; class 0 without any load.
    #[test]
    fn given_class_and_the_min_allowable_conflict() {
        let s = Selection { prime_mover: Some(PrimeMover::CombustionTurbine), size_class: Some(2), ..selection() };
        let d = chp_defaults(&s).unwrap();
        assert_eq!((d.max_kw, d.min_allowable_kw, d.om_cost_per_kwh), (Some(5000.0), 3500.0, 0.014));
        let capped = chp_defaults(&Selection { max_kw: Some(1000.0), ..s }).unwrap();
        assert_eq!(capped.min_allowable_kw, 250.0);
        assert!(chp_defaults(&Selection { size_class: Some(7), ..s }).unwrap_err().contains("0 to 6"));
        let bare = chp_defaults(&selection()).unwrap();
        assert_eq!((bare.prime_mover, bare.size_class, bare.max_kw, bare.electric_efficiency_full_load), (PrimeMover::RecipEngine, 0, None, 0.3555));
    }
}

//! Load profiles of the embedded service: the FlatLoad profiles (exact, as the service defines
//! them) and **synthetic** shapes for the commercial reference building types, which stand in
//! for the service's reference data (which is not copied here), blended as the service blends
//! them; the FlatLoad profiles and the scaling to energy are the engine's (`optimizer::loads`).
//!
//! A synthetic building shape, per hour h of a day with outdoor temperature T (°C, the climate
//! generator's typical year at the site):
//!
//! ```text
//! load = base + (1 − base)·occupancy(h, day) + cooling·max(0, T − 18)·(0.5 + 0.5·occupancy)
//!        + heating·max(0, 10 − T)
//! ```
//!
//! where occupancy is 1 in the building's open hours, 0.5 in the hour on each side, 0 when
//! closed (weekends closed for 5-day buildings; schools at 30 % in June–August). The default
//! annual energy is the type's synthetic mild-climate figure times the shape's weather uplift
//! (its energy over the same shape at a constant 14 °C). Every number here is invented to give
//! plausible shapes; none is a reference building's.

use crate::calendar::{modelled_year, HOURS_PER_YEAR};
use crate::optimizer::loads::{flat_load_shape, scale_profile, EnergyTarget, FLAT_LOADS};
use crate::services::simulated_load::{LoadEnergy, SimulatedLoad, SimulatedLoadQuery};

/// Default annual energy of the FlatLoad profiles (a 100 kW average; synthetic).
pub const FLAT_LOAD_ANNUAL_KWH: f64 = 876_000.0;

/// What the embedded service says about the profiles it serves.
pub const DATA_SOURCE: &str = "sunflux synthetic building shapes on synthetic weather (not the DOE reference building data)";

/// A synthetic building type.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Archetype {
    name: &'static str,
    /// kWh per year in a mild climate.
    annual_kwh: f64,
    /// Open hours [open, close), local time.
    open: u8,
    close: u8,
    /// Open on Saturdays and Sundays.
    weekends: bool,
    /// Load when closed, as a fraction of the open load.
    base: f64,
    /// Extra load per °C above 18 °C, as a fraction of the open load.
    cooling: f64,
    /// Extra load per °C below 10 °C.
    heating: f64,
    /// Mostly closed in June–August.
    summer_break: bool,
}

const fn archetype(name: &'static str, annual_kwh: f64, open: u8, close: u8, weekends: bool, base: f64, cooling: f64) -> Archetype {
    Archetype { name, annual_kwh, open, close, weekends, base, cooling, heating: 0.004, summer_break: false }
}

const ARCHETYPES: [Archetype; 16] = [
    archetype("FastFoodRest", 190_000.0, 6, 23, true, 0.35, 0.025),
    archetype("FullServiceRest", 360_000.0, 10, 23, true, 0.30, 0.025),
    archetype("Hospital", 9_000_000.0, 7, 19, true, 0.80, 0.020),
    archetype("LargeHotel", 3_000_000.0, 6, 23, true, 0.60, 0.020),
    archetype("LargeOffice", 6_500_000.0, 7, 19, false, 0.35, 0.030),
    archetype("MediumOffice", 900_000.0, 7, 19, false, 0.30, 0.035),
    archetype("MidriseApartment", 270_000.0, 17, 23, true, 0.55, 0.030),
    archetype("Outpatient", 1_300_000.0, 6, 21, false, 0.45, 0.025),
    Archetype { summer_break: true, ..archetype("PrimarySchool", 1_100_000.0, 7, 16, false, 0.25, 0.030) },
    archetype("RetailStore", 450_000.0, 9, 21, true, 0.25, 0.030),
    Archetype { summer_break: true, ..archetype("SecondarySchool", 3_000_000.0, 7, 17, false, 0.25, 0.030) },
    archetype("SmallHotel", 700_000.0, 6, 23, true, 0.60, 0.020),
    archetype("SmallOffice", 75_000.0, 8, 18, false, 0.30, 0.035),
    archetype("StripMall", 330_000.0, 9, 21, true, 0.30, 0.030),
    archetype("Supermarket", 1_800_000.0, 6, 23, true, 0.70, 0.015),
    archetype("Warehouse", 250_000.0, 7, 17, false, 0.30, 0.010),
];

/// The temperature at which a synthetic shape has no weather load.
const NEUTRAL_TEMPERATURE_C: f64 = 14.0;

fn occupancy(a: &Archetype, hour: u8, weekend: bool, month: u8) -> f64 {
    if weekend && !a.weekends {
        return 0.0;
    }
    let mut level: f64 = if (a.open..a.close).contains(&hour) {
        1.0
    } else if hour + 1 == a.open || hour == a.close {
        0.5
    } else {
        0.0
    };
    if a.name == "MidriseApartment" && (6..9).contains(&hour) {
        level = level.max(0.7);
    }
    if a.summer_break && (5..8).contains(&month) {
        level *= 0.3;
    }
    level
}

/// Unnormalized hourly synthetic profile of a building type for `year` at hourly temperatures
/// (°C, one per hour of the modelled year).
fn building_profile(a: &Archetype, year: i32, temperature_c: &[f64]) -> Vec<f64> {
    modelled_year::step_times(year, 1)
        .iter()
        .zip(temperature_c)
        .map(|(time, &t)| {
            let occupied = occupancy(a, time.hour, time.weekend, time.month);
            a.base + (1.0 - a.base) * occupied + a.cooling * (t - 18.0).max(0.0) * (0.5 + 0.5 * occupied) + a.heating * (10.0 - t).max(0.0)
        })
        .collect()
}

/// A building type's hourly occupancy (0 closed, 1 open) in `year`, and its synthetic
/// mild-climate annual kWh; the thermal shapes (`thermal_profiles`) are built on them.
pub(super) fn occupancy_hours(name: &str, year: i32) -> Option<(Vec<f64>, f64)> {
    let archetype = ARCHETYPES.iter().find(|a| a.name == name)?;
    let hours = modelled_year::step_times(year, 1).iter().map(|time| occupancy(archetype, time.hour, time.weekend, time.month)).collect();
    Some((hours, archetype.annual_kwh))
}

/// A building type's unnormalized hourly electric profile at the site, its occupancy and its
/// cooling coefficient (the extra load per °C above 18 °C); None for a FlatLoad or an unknown type.
pub(super) fn electric_profile_parts(name: &str, year: i32, temperature_c: &[f64]) -> Option<(Vec<f64>, Vec<f64>, f64)> {
    let archetype = ARCHETYPES.iter().find(|a| a.name == name)?;
    let (occupancy, _) = occupancy_hours(name, year)?;
    Some((building_profile(archetype, year, temperature_c), occupancy, archetype.cooling))
}

/// A building type's normalized hourly shape and its default annual kWh at this site.
pub fn building_shape(name: &str, year: i32, temperature_c: &[f64]) -> Option<(Vec<f64>, f64)> {
    if FLAT_LOADS.contains(&name) {
        return Some((flat_load_shape(name, year), FLAT_LOAD_ANNUAL_KWH));
    }
    let archetype = ARCHETYPES.iter().find(|a| a.name == name)?;
    let profile = building_profile(archetype, year, temperature_c);
    let neutral = building_profile(archetype, year, &vec![NEUTRAL_TEMPERATURE_C; HOURS_PER_YEAR]);
    let total: f64 = profile.iter().sum();
    let uplift = total / neutral.iter().sum::<f64>();
    Some((profile.iter().map(|x| x / total).collect(), archetype.annual_kwh * uplift))
}

/// The endpoint's answer: the buildings' shapes scaled and blended as the service does (each
/// building scaled to the requested energy, or all to the sum of their defaults, then weighted
/// by its share), loads rounded to 3 decimals, repeated to `time_steps_per_hour`.
/// `temperature_c` holds the site's 8760 hourly temperatures. None for an unknown building.
pub fn simulated_load(query: &SimulatedLoadQuery, temperature_c: &[f64]) -> Option<SimulatedLoad> {
    let shapes: Vec<(Vec<f64>, f64)> =
        query.buildings.iter().map(|(name, _)| building_shape(name, query.year, temperature_c)).collect::<Option<_>>()?;
    let shares: Vec<f64> = query.buildings.iter().map(|(_, share)| *share).collect();
    let hourly = blend(&shapes, &shares, energy_target(&query.energy).as_ref(), query.year);
    let n = query.time_steps_per_hour;
    let loads_kw: Vec<f64> = hourly.iter().flat_map(|&kw| std::iter::repeat_n(round3(kw), n)).collect();
    let month_of_step = modelled_year::month_of_each_step(query.year, n);
    let mut monthly_totals_kwh = vec![0.0; 12];
    let mut monthly_peaks_kw = vec![0.0f64; 12];
    for (&kw, &m) in loads_kw.iter().zip(&month_of_step) {
        monthly_totals_kwh[m as usize] += kw / n as f64;
        monthly_peaks_kw[m as usize] = monthly_peaks_kw[m as usize].max(kw);
    }
    let annual_kwh = loads_kw.iter().sum::<f64>() / n as f64;
    Some(SimulatedLoad {
        annual_kwh,
        min_kw: loads_kw.iter().copied().fold(f64::INFINITY, f64::min),
        mean_kw: loads_kw.iter().sum::<f64>() / loads_kw.len() as f64,
        max_kw: loads_kw.iter().copied().fold(0.0, f64::max),
        monthly_totals_kwh,
        monthly_peaks_kw,
        loads_kw,
    })
}

/// The buildings' shapes blended as the service blends them: each scaled to `target`, or all to
/// the sum of their defaults, then weighted by its share. Hourly, in the target's unit per hour.
pub(super) fn blend(shapes: &[(Vec<f64>, f64)], shares: &[f64], target: Option<&EnergyTarget>, year: i32) -> Vec<f64> {
    let defaults = EnergyTarget::Annual(shapes.iter().map(|(_, default)| default).sum());
    let target = target.unwrap_or(&defaults);
    let mut hourly = vec![0.0; HOURS_PER_YEAR];
    for ((shape, _), share) in shapes.iter().zip(shares) {
        for (total, value) in hourly.iter_mut().zip(scale_profile(shape, target, year, 1)) {
            *total += share * value;
        }
    }
    hourly
}

/// The energy a query asks for (None: the buildings' defaults).
pub(super) fn energy_target(energy: &LoadEnergy) -> Option<EnergyTarget> {
    match energy {
        LoadEnergy::Default => None,
        LoadEnergy::Annual(total) => Some(EnergyTarget::Annual(*total)),
        LoadEnergy::Monthly(months) => Some(EnergyTarget::Monthly(months.to_vec())),
    }
}

/// A value rounded to 3 decimals, as the service rounds its load answers.
pub(super) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::simulated_load::BUILDING_TYPES;

    fn mild_then_hot() -> Vec<f64> {
        (0..HOURS_PER_YEAR).map(|h| if (4000..6000).contains(&h) { 32.0 } else { 12.0 }).collect()
    }

    #[test]
    fn every_building_type_has_a_shape_summing_to_one() {
        for name in BUILDING_TYPES {
            let (shape, annual) = building_shape(name, 2017, &mild_then_hot()).unwrap();
            assert_eq!(shape.len(), HOURS_PER_YEAR, "{name}");
            assert!((shape.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{name}");
            assert!(annual > 10_000.0, "{name}");
        }
        assert!(building_shape("Castle", 2017, &mild_then_hot()).is_none());
    }

    #[test]
    fn offices_rest_on_weekends_and_heat_raises_the_load() {
        let (shape, _) = building_shape("MediumOffice", 2017, &mild_then_hot()).unwrap();
        assert!(shape[12] < shape[24 + 12], "2017-01-01 is a Sunday, the 2nd a Monday");
        let (_, mild) = building_shape("MediumOffice", 2017, &[12.0; HOURS_PER_YEAR]).unwrap();
        let (_, hot) = building_shape("MediumOffice", 2017, &mild_then_hot()).unwrap();
        assert!(hot > mild);
    }

    #[test]
    fn blends_keep_the_requested_monthly_energy() {
        let query = SimulatedLoadQuery {
            latitude: 40.0,
            longitude: -105.0,
            load_type: crate::services::simulated_load::LoadType::Electric,
            buildings: vec![("Hospital".into(), 0.75), ("LargeOffice".into(), 0.25)],
            energy: LoadEnergy::Monthly([1000.0; 12]),
            cooling_fraction: None,
            addressable_load_fraction: Vec::new(),
            boiler_efficiency: None,
            chiller_cop: None,
            year: 2017,
            time_steps_per_hour: 2,
            cooling_buildings: Vec::new(),
        };
        let load = simulated_load(&query, &mild_then_hot()).unwrap();
        assert_eq!(load.loads_kw.len(), 2 * HOURS_PER_YEAR);
        for month in &load.monthly_totals_kwh {
            assert!((month - 1000.0).abs() < 0.5, "{month}");
        }
        let shape = flat_load_shape("FlatLoad_8_5", 2017);
        assert_eq!(shape[10], 0.0, "2017-01-01 is a Sunday");
        assert!(shape[24 + 10] > 0.0 && shape[24 + 8] == 0.0);
    }
}

//! Heating and cooling loads of the embedded service's load endpoint: **synthetic** hourly
//! shapes for the reference building types (built on the electric archetypes' occupancy in
//! `load_profiles` and the site's synthetic temperatures), the FlatLoad profiles exactly,
//! scaled, blended and answered as the service does (REopt.jl `src/core/simulated_load.jl` at
//! 029db01d: boiler fuel in MMBtu/h for the heating types, the addressable fraction applied to
//! the energy, `heating` split into space heating and hot water by the types' own shares; cooling
//! in tons of thermal load, or a fraction of the electric load). Per hour, with occupancy o and
//! outdoor temperature T (°C):
//!
//! ```text
//! space heating = 0.03 + max(0, 16 − T)·(0.6 + 0.4·o)
//! hot water     = (0.15 + o)·(1 + 0.01·max(0, 15 − T))
//! process heat  = Chemical 0.8 + 0.2·o, Warehouse 0.3 + 0.7·o (o of the Warehouse archetype)
//! cooling       = 0.05·o + max(0, T − 18)·(0.5 + 0.5·o)
//! ```
//!
//! each normalized to sum to 1. Default fuel per year (MMBtu) when no energy is given: space
//! heating `SPACE_HEATING_MMBTU_PER_KWH` times the type's annual kWh times the site's heating
//! degree-hours over `REFERENCE_HEATING_DEGREE_HOURS`; hot water `HOT_WATER_MMBTU_PER_KWH` times
//! the annual kWh; the industrial types and FlatLoads their own figures. Every number is invented
//! to give plausible shapes; none is a reference building's. Boiler efficiency cancels: the
//! service turns the fuel energy into thermal load with it and the answer back into fuel.

use serde_json::Value;

use super::load_profiles::{blend, energy_target, occupancy_hours, round3, DATA_SOURCE};
use crate::calendar::{modelled_year, HOURS_PER_YEAR};
use crate::optimizer::loads::{flat_load_shape, EnergyTarget, FLAT_LOADS};
use crate::optimizer::model::cooling_inputs::default_existing_chiller_cop;
use crate::services::simulated_load::{CoolingFraction, LoadEnergy, LoadType, SimulatedLoadQuery};

/// Default space-heating fuel per kWh of the type's mild-climate electricity (MMBtu/kWh).
const SPACE_HEATING_MMBTU_PER_KWH: f64 = 0.002;
/// Default hot-water fuel per kWh of the type's electricity (MMBtu/kWh).
const HOT_WATER_MMBTU_PER_KWH: f64 = 0.0004;
/// The heating degree-hours below 16 °C of the climate the space-heating default is set for.
const REFERENCE_HEATING_DEGREE_HOURS: f64 = 30_000.0;
/// Default fuel of a FlatLoad heating profile (MMBtu per year: 0.1 MMBtu/h on average).
const FLAT_LOAD_ANNUAL_MMBTU: f64 = 876.0;
/// Default fuel of the industrial types (MMBtu per year).
const CHEMICAL_ANNUAL_MMBTU: f64 = 50_000.0;
const WAREHOUSE_PROCESS_ANNUAL_MMBTU: f64 = 2_000.0;
/// The service's default chiller sizing factor on the peak load (REopt.jl
/// `max_thermal_factor_on_peak_load`).
const MAX_THERMAL_FACTOR_ON_PEAK_LOAD: f64 = 1.25;

/// The thermal kinds a building has a shape of.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Space,
    HotWater,
    Process,
    Cooling,
}

/// A normalized hourly shape and its default annual energy (MMBtu of fuel; unused for cooling).
fn shape(kind: Kind, name: &str, year: i32, temperature_c: &[f64]) -> Option<(Vec<f64>, f64)> {
    if FLAT_LOADS.contains(&name) {
        return Some((flat_load_shape(name, year), FLAT_LOAD_ANNUAL_MMBTU));
    }
    let (profile, default): (Vec<f64>, f64) = match (kind, name) {
        (Kind::Process, "Chemical" | "Warehouse") => {
            let (occupancy, _) = occupancy_hours("Warehouse", year)?;
            let (base, default) = if name == "Chemical" { (0.8, CHEMICAL_ANNUAL_MMBTU) } else { (0.3, WAREHOUSE_PROCESS_ANNUAL_MMBTU) };
            (occupancy.iter().map(|o| base + (1.0 - base) * o).collect(), default)
        }
        (Kind::Process, _) => return None,
        (kind, name) => {
            let (occupancy, annual_kwh) = occupancy_hours(name, year)?;
            let hours = occupancy.iter().zip(temperature_c);
            match kind {
                Kind::Space => {
                    let degree_hours: f64 = temperature_c.iter().map(|t| (16.0 - t).max(0.0)).sum();
                    let profile = hours.map(|(o, t)| 0.03 + (16.0 - t).max(0.0) * (0.6 + 0.4 * o)).collect();
                    (profile, SPACE_HEATING_MMBTU_PER_KWH * annual_kwh * degree_hours / REFERENCE_HEATING_DEGREE_HOURS)
                }
                Kind::HotWater => (hours.map(|(o, t)| (0.15 + o) * (1.0 + 0.01 * (15.0 - t).max(0.0))).collect(), HOT_WATER_MMBTU_PER_KWH * annual_kwh),
                _ => (hours.map(|(o, t)| 0.05 * o + (t - 18.0).max(0.0) * (0.5 + 0.5 * o)).collect(), 0.0),
            }
        }
    };
    let total: f64 = profile.iter().sum();
    Some((profile.iter().map(|x| x / total).collect(), default))
}

/// The month totals of an hourly series.
fn monthly_totals(hourly: &[f64], year: i32) -> Vec<f64> {
    let mut months = vec![0.0; 12];
    for (value, &m) in hourly.iter().zip(&modelled_year::month_of_each_step(year, 1)) {
        months[m as usize] += value;
    }
    months
}

/// `hourly` times the addressable fraction (one, or one per month).
fn addressable(hourly: Vec<f64>, fractions: &[f64], year: i32) -> Vec<f64> {
    match fractions {
        [] => hourly,
        [one] => hourly.iter().map(|v| v * one).collect(),
        months => hourly.iter().zip(&modelled_year::month_of_each_step(year, 1)).map(|(v, &m)| v * months[m as usize]).collect(),
    }
}

/// The summary fields of a series under `prefix` (`mmbtu_per_hour`, `ton`, `fraction`).
fn summary(series: &[f64], unit: &str, part: &str) -> Vec<(String, Value)> {
    let min = series.iter().copied().fold(f64::INFINITY, f64::min);
    let max = series.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = series.iter().sum::<f64>() / series.len() as f64;
    vec![
        (format!("{part}loads_{unit}"), Value::from(series.iter().map(|v| round3(*v)).collect::<Vec<_>>())),
        (format!("{part}min_{unit}"), Value::from(round3(min))),
        (format!("{part}mean_{unit}"), Value::from(round3(mean))),
        (format!("{part}max_{unit}"), Value::from(round3(max))),
    ]
}

/// The endpoint's answer for a heating or cooling `query` (hourly, as the service answers them),
/// or a problem for a building type without a shape of that kind.
pub fn thermal_load(query: &SimulatedLoadQuery, temperature_c: &[f64]) -> Result<Value, String> {
    let year = query.year;
    let shares: Vec<f64> = query.buildings.iter().map(|(_, share)| *share).collect();
    let shapes = |kind: Kind| -> Result<Vec<(Vec<f64>, f64)>, String> {
        query
            .buildings
            .iter()
            .map(|(name, _)| shape(kind, name, year, temperature_c).ok_or_else(|| format!("no {kind:?} profile for {name}")))
            .collect()
    };
    let mut fields: Vec<(String, Value)> = vec![("data_source".into(), Value::from(DATA_SOURCE))];
    match query.load_type {
        LoadType::Cooling => {
            if let Some(fraction) = &query.cooling_fraction {
                let months = modelled_year::month_of_each_step(year, 1);
                let series: Vec<f64> = match fraction {
                    CoolingFraction::Annual(f) => vec![*f; HOURS_PER_YEAR],
                    CoolingFraction::Monthly(by_month) => months.iter().map(|&m| by_month[m as usize]).collect(),
                };
                fields.push(("annual_fraction".into(), Value::from(round3(series.iter().sum::<f64>() / series.len() as f64))));
                fields.extend(summary(&series, "fraction", ""));
            } else {
                let target = energy_target(&query.energy).ok_or("cooling needs annual_tonhour or monthly_tonhour")?;
                let series = blend(&shapes(Kind::Cooling)?, &shares, Some(&target), year);
                let peak_kw = series.iter().copied().fold(0.0, f64::max) * crate::optimizer::model::cooling_inputs::KWH_THERMAL_PER_TONHOUR;
                fields.push(("annual_tonhour".into(), Value::from(round3(series.iter().sum()))));
                fields.push(("chiller_cop".into(), Value::from(default_existing_chiller_cop(peak_kw, MAX_THERMAL_FACTOR_ON_PEAK_LOAD))));
                fields.extend(summary(&series, "ton", ""));
            }
        }
        LoadType::Heating => {
            let (space_shapes, water_shapes) = (shapes(Kind::Space)?, shapes(Kind::HotWater)?);
            let (space_default, water_default) = (blend(&space_shapes, &shares, None, year), blend(&water_shapes, &shares, None, year));
            // The given fuel is split into the two parts as the types' default loads split it.
            let (space_target, water_target) = match &query.energy {
                LoadEnergy::Default => (None, None),
                LoadEnergy::Annual(total) => {
                    let (space, water) = (space_default.iter().sum::<f64>(), water_default.iter().sum::<f64>());
                    (Some(EnergyTarget::Annual(total * space / (space + water))), Some(EnergyTarget::Annual(total * water / (space + water))))
                }
                LoadEnergy::Monthly(months) => {
                    let (space, water) = (monthly_totals(&space_default, year), monthly_totals(&water_default, year));
                    let part = |own: &[f64]| months.iter().zip(own).zip(space.iter().zip(&water)).map(|((m, o), (s, w))| m * o / (s + w)).collect();
                    (Some(EnergyTarget::Monthly(part(&space))), Some(EnergyTarget::Monthly(part(&water))))
                }
            };
            let space = addressable(blend(&space_shapes, &shares, space_target.as_ref(), year), &query.addressable_load_fraction, year);
            let water = addressable(blend(&water_shapes, &shares, water_target.as_ref(), year), &query.addressable_load_fraction, year);
            let total: Vec<f64> = space.iter().zip(&water).map(|(s, w)| s + w).collect();
            fields.push(("annual_mmbtu".into(), Value::from(round3(total.iter().sum()))));
            fields.extend(summary(&total, "mmbtu_per_hour", ""));
            for (part, series) in [("space", &space), ("dhw", &water)] {
                fields.push((format!("{part}_annual_mmbtu"), Value::from(round3(series.iter().sum()))));
                fields.push((format!("{part}_monthly_mmbtu"), Value::from(monthly_totals(series, year).iter().map(|m| round3(*m)).collect::<Vec<_>>())));
                fields.extend(summary(series, "mmbtu_per_hour", &format!("{part}_")));
            }
        }
        load_type => {
            let kind = match load_type {
                LoadType::SpaceHeating => Kind::Space,
                LoadType::DomesticHotWater => Kind::HotWater,
                _ => Kind::Process,
            };
            let target = energy_target(&query.energy);
            let series = addressable(blend(&shapes(kind)?, &shares, target.as_ref(), year), &query.addressable_load_fraction, year);
            fields.push(("load_type".into(), Value::from(load_type.name())));
            fields.push(("annual_mmbtu".into(), Value::from(round3(series.iter().sum()))));
            fields.push(("monthly_mmbtu".into(), Value::from(monthly_totals(&series, year).iter().map(|m| round3(*m)).collect::<Vec<_>>())));
            fields.extend(summary(&series, "mmbtu_per_hour", ""));
        }
    }
    Ok(Value::Object(fields.into_iter().collect()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::services::simulated_load::{validate_simulated_load, RawSimulatedLoad};
    use crate::services::raw::RawValue;

    /// The most the answer's series (rounded to 0.001 per hour, as the service rounds) can miss
    /// the year's total by.
    const ROUNDING_PER_YEAR: f64 = 0.0005 * HOURS_PER_YEAR as f64;

    fn cold_winter() -> Vec<f64> {
        (0..HOURS_PER_YEAR).map(|h| if (3000..6500).contains(&h) { 24.0 } else { 0.0 }).collect()
    }

    fn answer(load_type: &str, name: &str, energy: impl FnOnce(RawSimulatedLoad) -> RawSimulatedLoad) -> Value {
        let raw = RawSimulatedLoad {
            latitude: RawValue::Float(40.0),
            longitude: RawValue::Float(-105.0),
            load_type: RawValue::from(load_type),
            doe_reference_names: vec![RawValue::from(name)],
            ..RawSimulatedLoad::default()
        };
        thermal_load(&validate_simulated_load(&energy(raw)).unwrap(), &cold_winter()).unwrap()
    }

    fn series(answer: &Value, field: &str) -> Vec<f64> {
        answer[field].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect()
    }

    #[test]
    fn space_heating_follows_the_cold_and_keeps_the_given_fuel_times_the_addressable_share() {
        let load = answer("space_heating", "Hospital", |raw| RawSimulatedLoad {
            annual_mmbtu: RawValue::Int(10_000),
            addressable_load_fraction: vec![RawValue::Float(0.9)],
            ..raw
        });
        let hourly = series(&load, "loads_mmbtu_per_hour");
        assert_eq!(hourly.len(), HOURS_PER_YEAR);
        assert_eq!(load["annual_mmbtu"], json!(9000.0), "the unrounded total, as the service sums it");
        assert!((hourly.iter().sum::<f64>() - 9_000.0).abs() < ROUNDING_PER_YEAR, "{}", hourly.iter().sum::<f64>());
        assert!(hourly[100] > 5.0 * hourly[4000], "winter {} against summer {}", hourly[100], hourly[4000]);
        assert_eq!(load["data_source"], json!(DATA_SOURCE));
    }

    #[test]
    fn heating_splits_monthly_fuel_between_space_and_hot_water() {
        let load = answer("heating", "MediumOffice", |raw| RawSimulatedLoad { monthly_mmbtu: vec![RawValue::Int(100); 12], ..raw });
        let (space, water, total) = (series(&load, "space_loads_mmbtu_per_hour"), series(&load, "dhw_loads_mmbtu_per_hour"), series(&load, "loads_mmbtu_per_hour"));
        for (month, value) in monthly_totals(&total, 2017).iter().enumerate() {
            assert!((value - 100.0).abs() < ROUNDING_PER_YEAR / 12.0, "month {month}: {value}");
        }
        assert!(space.iter().sum::<f64>() > water.iter().sum::<f64>(), "a cold site heats space more than water");
        assert!(water.iter().sum::<f64>() > 0.0);
    }

    #[test]
    fn defaults_flatloads_process_heat_and_cooling() {
        let flat = answer("domestic_hot_water", "FlatLoad", |raw| raw);
        assert_eq!(flat["annual_mmbtu"], json!(FLAT_LOAD_ANNUAL_MMBTU));
        assert!(series(&flat, "loads_mmbtu_per_hour").iter().all(|v| *v == 0.1));
        let chemical = answer("process_heat", "Chemical", |raw| raw);
        assert_eq!(chemical["annual_mmbtu"], json!(CHEMICAL_ANNUAL_MMBTU));
        let cooling = answer("cooling", "LargeOffice", |raw| RawSimulatedLoad { annual_tonhour: RawValue::Int(200_000), ..raw });
        let tons = series(&cooling, "loads_ton");
        assert_eq!(cooling["annual_tonhour"], json!(200_000.0));
        assert!((tons.iter().sum::<f64>() - 200_000.0).abs() < ROUNDING_PER_YEAR && tons[4000] > tons[100], "{} {} {}", tons.iter().sum::<f64>(), tons[4000], tons[100]);
        assert_eq!(cooling["chiller_cop"], json!(4.69), "a peak above 100 tons");
        assert!(shape(Kind::Process, "Hospital", 2017, &cold_winter()).is_none(), "Hospital is no industrial type");
    }
}

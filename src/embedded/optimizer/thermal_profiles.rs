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
//!
//! An electric query naming cooling buildings (`cooling_doe_ref_name`) gets `cooling_defaults`
//! as the service makes them (`CoolingLoad` without ton-hours, REopt.jl
//! `src/core/heating_cooling_loads.jl`): the share of each building's electricity that cools,
//! hour by hour, is its synthetic cooling shape (unnormalized, above) times the type's cooling
//! coefficient in `load_profiles` (the electric shape's extra load per °C above 18 °C) over its
//! synthetic electric profile (`load_profiles`, unnormalized); it lies in [0, 1) and is 0 for the
//! FlatLoads (no weather term). A blend weights each building's share by its `cooling_pct_share`
//! (the sum the service's CoolingLoad makes). The cooling electricity is that share times the
//! answered `loads_kw`, the thermal tons it times the COP of its peak
//! (`cooling_inputs::default_cop_of_electric_peak`) over 3.51685 kW per ton, rounded to 3
//! decimals; `chiller_cop` is the default COP of the thermal peak, the shares are rounded to 9
//! decimals, and the chiller's sizing factor is the schema's default of
//! `ExistingChiller.max_thermal_factor_on_peak_load`.

use serde_json::Value;

use super::load_profiles::{blend, energy_target, occupancy_hours, round3, DATA_SOURCE};
use crate::calendar::{modelled_year, HOURS_PER_YEAR};
use crate::optimizer::loads::{flat_load_shape, EnergyTarget, FLAT_LOADS};
use super::load_profiles::electric_profile_parts;
use crate::optimizer::model::cooling_inputs::{default_cop_of_electric_peak, default_existing_chiller_cop, KWH_THERMAL_PER_TONHOUR};
use crate::optimizer::scenario::schema;
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
/// The service's default chiller sizing factor on the peak cooling load (the schema's).
fn chiller_sizing_factor() -> Result<f64, String> {
    schema::default("ExistingChiller", "max_thermal_factor_on_peak_load")
        .and_then(Value::as_f64)
        .ok_or_else(|| "the optimizer schema has no default ExistingChiller.max_thermal_factor_on_peak_load".into())
}

/// The synthetic cooling shape of one hour, unnormalized: occupancy `o`, outdoor `t` °C.
fn cooling_hour(o: f64, t: f64) -> f64 {
    0.05 * o + (t - 18.0).max(0.0) * (0.5 + 0.5 * o)
}

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
                _ => (hours.map(|(o, t)| cooling_hour(*o, *t)).collect(), 0.0),
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
                let peak_kw = series.iter().copied().fold(0.0, f64::max) * KWH_THERMAL_PER_TONHOUR;
                fields.push(("annual_tonhour".into(), Value::from(round3(series.iter().sum()))));
                fields.push(("chiller_cop".into(), Value::from(default_existing_chiller_cop(peak_kw, chiller_sizing_factor()?))));
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

/// A building's hourly share of its electricity that cools (see the header); None for an
/// unknown type.
fn cooling_electric_share(name: &str, year: i32, temperature_c: &[f64]) -> Option<Vec<f64>> {
    if FLAT_LOADS.contains(&name) {
        return Some(vec![0.0; HOURS_PER_YEAR]);
    }
    let (profile, occupancy, coefficient) = electric_profile_parts(name, year, temperature_c)?;
    Some(profile.iter().zip(&occupancy).zip(temperature_c).map(|((load, o), t)| coefficient * cooling_hour(*o, *t) / load).collect())
}

/// The electric answer's `cooling_defaults` for `query.cooling_buildings` on the answered
/// `loads_kw` (see the header), or a problem for a type without a shape.
pub fn cooling_defaults(query: &SimulatedLoadQuery, temperature_c: &[f64], loads_kw: &[f64]) -> Result<Value, String> {
    let mut fraction = vec![0.0; HOURS_PER_YEAR];
    for (name, share) in &query.cooling_buildings {
        let own = cooling_electric_share(name, query.year, temperature_c).ok_or_else(|| format!("no cooling profile for {name}"))?;
        for (total, value) in fraction.iter_mut().zip(own) {
            *total += share * value;
        }
    }
    let per_hour = (loads_kw.len() / HOURS_PER_YEAR).max(1);
    let electric: Vec<f64> = loads_kw.iter().enumerate().map(|(t, kw)| fraction[t / per_hour] * kw).collect();
    let factor = chiller_sizing_factor()?;
    let cop = default_cop_of_electric_peak(electric.iter().copied().fold(0.0, f64::max), factor);
    let thermal_kw: Vec<f64> = electric.iter().map(|kw| cop * kw).collect();
    let tons: Vec<f64> = thermal_kw.iter().map(|kw| round3(kw / KWH_THERMAL_PER_TONHOUR)).collect();
    let total: f64 = tons.iter().sum();
    Ok(serde_json::json!({
        "loads_ton": tons,
        "annual_tonhour": total / per_hour as f64,
        "chiller_cop": round3(default_existing_chiller_cop(thermal_kw.iter().copied().fold(0.0, f64::max), factor)),
        "min_ton": tons.iter().copied().fold(f64::INFINITY, f64::min),
        "mean_ton": total / tons.len() as f64,
        "max_ton": tons.iter().copied().fold(0.0, f64::max),
        "fraction_of_total_electric_profile": fraction.iter().map(|f| (f * 1e9).round() / 1e9).collect::<Vec<f64>>(),
    }))
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
    fn electric_query(cooling: &[(&str, f64)]) -> SimulatedLoadQuery {
        let (names, shares): (Vec<RawValue>, Vec<RawValue>) = cooling.iter().map(|(name, share)| (RawValue::from(*name), RawValue::Float(*share))).unzip();
        let raw = RawSimulatedLoad {
            latitude: RawValue::Float(40.0),
            longitude: RawValue::Float(-105.0),
            doe_reference_names: vec![RawValue::from("Hospital")],
            cooling_pct_shares: if names.len() > 1 { shares } else { Vec::new() },
            cooling_doe_ref_names: names,
            time_steps_per_hour: RawValue::Int(2),
            ..RawSimulatedLoad::default()
        };
        validate_simulated_load(&raw).unwrap()
    }

    #[test]
    fn cooling_defaults_are_the_cooling_share_of_the_answered_load_in_tons_at_the_peak_cop() {
        let query = electric_query(&[("Hospital", 1.0)]);
        let loads_kw = super::super::load_profiles::simulated_load(&query, &cold_winter()).unwrap().loads_kw;
        let defaults = cooling_defaults(&query, &cold_winter(), &loads_kw).unwrap();
        let (tons, fractions) = (series(&defaults, "loads_ton"), series(&defaults, "fraction_of_total_electric_profile"));
        assert_eq!((tons.len(), fractions.len()), (2 * HOURS_PER_YEAR, HOURS_PER_YEAR), "tons per electric step, shares hourly");
        assert!(fractions.iter().all(|f| (0.0..1.0).contains(f) && (f * 1e9).round() / 1e9 == *f), "shares in [0, 1), 9 decimals");
        assert!(fractions[4000] > 10.0 * fractions[100], "the hot half cools: {} against {}", fractions[4000], fractions[100]);
        let electric_peak = (0..loads_kw.len()).map(|t| fractions[t / 2] * loads_kw[t]).fold(0.0, f64::max);
        let cop = default_cop_of_electric_peak(electric_peak, 1.25);
        for t in [0, 101, 8001, 12_345] {
            let kw = fractions[t / 2] * loads_kw[t];
            assert!((tons[t] - cop * kw / KWH_THERMAL_PER_TONHOUR).abs() <= 0.0005 + 1e-9, "step {t}: {} tons for {kw} kW", tons[t]);
        }
        let peak_kw = tons.iter().copied().fold(0.0, f64::max) * KWH_THERMAL_PER_TONHOUR;
        assert!((defaults["chiller_cop"].as_f64().unwrap() - default_existing_chiller_cop(peak_kw, 1.25)).abs() < 1e-9);
        assert_eq!(defaults["max_ton"].as_f64().unwrap(), tons.iter().copied().fold(0.0, f64::max));
        assert!((defaults["annual_tonhour"].as_f64().unwrap() - tons.iter().sum::<f64>() / 2.0).abs() < 1e-6, "ton-hours of half-hour steps");
    }

    #[test]
    fn a_cooling_blend_weights_each_buildings_share_and_flatloads_do_not_cool() {
        let shares = |cooling: &[(&str, f64)]| {
            let query = electric_query(cooling);
            series(&cooling_defaults(&query, &cold_winter(), &vec![50.0; 2 * HOURS_PER_YEAR]).unwrap(), "fraction_of_total_electric_profile")
        };
        let (office, hospital, blend) = (shares(&[("LargeOffice", 1.0)]), shares(&[("Hospital", 1.0)]), shares(&[("LargeOffice", 0.25), ("Hospital", 0.75)]));
        for h in [10, 4000, 4012, 8000] {
            assert!((blend[h] - (0.25 * office[h] + 0.75 * hospital[h])).abs() < 2e-9, "hour {h}");
        }
        let flat = cooling_defaults(&electric_query(&[("FlatLoad", 1.0)]), &cold_winter(), &vec![50.0; 2 * HOURS_PER_YEAR]).unwrap();
        assert_eq!((flat["max_ton"].as_f64(), flat["chiller_cop"].as_f64()), (Some(0.0), Some(4.4)));
    }
}


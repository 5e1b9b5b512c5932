//! What `resolve` reads and writes for the heating and cooling loads (JSON, no I/O): a
//! `SpaceHeatingLoad` or `DomesticHotWaterLoad` naming a reference building (`doe_reference_name`
//! or the blend's lists, else ElectricLoad's, as the service falls back), or a `ProcessHeatLoad`
//! naming an industrial one, scaled by `annual_mmbtu` or `monthly_mmbtu`, becomes
//! `fuel_loads_mmbtu_per_hour`; a `CoolingLoad` naming one (its own or ElectricLoad's) with
//! `annual_tonhour` or `monthly_tonhour` becomes `thermal_loads_ton`. A section that holds its
//! series, or a cooling load given as fractions of the electric load, is left as it is.
//!
//! Same meaning (REopt.jl `src/core/heating_cooling_loads.jl` and `simulated_load.jl` at
//! 029db01d): the service makes a reference heating load's thermal kW as the profile scaled to
//! the fuel energy × boiler efficiency × addressable fraction, and a given fuel series' as
//! fuel × efficiency × fraction; the endpoint answers thermal ÷ efficiency. So the endpoint is
//! asked with the fraction 1 (the section keeps its `addressable_load_fraction`, applied once by
//! the reader; 12 monthly fractions become one per time step, the form the service takes beside
//! a fuel series) and without an efficiency, which cancels. Cooling ton-hours are thermal: the
//! answer's tons are the section's series. Profiles are for the service's reference year 2017
//! (or ElectricLoad's `year` beside its own `loads_kw`), hourly values repeated to
//! `Settings.time_steps_per_hour`.

use serde_json::{Map, Value};

use super::references::{given_field, raw, raws, reference_buildings, section, site, steps_per_hour};
use crate::calendar::modelled_year::month_of_each_step;
use crate::error::Result;
use crate::optimizer::scenario::given;
use crate::services::raw::RawValue;
use crate::services::simulated_load::{LoadType, RawSimulatedLoad, REFERENCE_YEAR};

/// The sections resolved here, their load type, their name fields (single, blend's names,
/// blend's percents) and the series that replaces them.
const SECTIONS: [(&str, LoadType, [&str; 3], &str); 4] = [
    ("SpaceHeatingLoad", LoadType::SpaceHeating, DOE_FIELDS, "fuel_loads_mmbtu_per_hour"),
    ("DomesticHotWaterLoad", LoadType::DomesticHotWater, DOE_FIELDS, "fuel_loads_mmbtu_per_hour"),
    ("ProcessHeatLoad", LoadType::ProcessHeat, ["industrial_reference_name", "blended_industrial_reference_names", "blended_industrial_reference_percents"], "fuel_loads_mmbtu_per_hour"),
    ("CoolingLoad", LoadType::Cooling, DOE_FIELDS, "thermal_loads_ton"),
];
const DOE_FIELDS: [&str; 3] = ["doe_reference_name", "blended_doe_reference_names", "blended_doe_reference_percents"];
/// CoolingLoad inputs that give the load as a share of the electric load (no reference needed).
const COOLING_FRACTIONS: [&str; 3] = ["per_time_step_fractions_of_electric_load", "monthly_fractions_of_electric_load", "annual_fraction_of_electric_load"];

/// A heating or cooling reference load to fetch.
#[derive(Debug, Clone, PartialEq)]
pub struct ThermalReference {
    pub section: &'static str,
    pub parameters: RawSimulatedLoad,
    /// `load_type`, `latitude`, `longitude`, `buildings`, the energy fields and `year`.
    pub key: Map<String, Value>,
}

/// The year the service builds the thermal profiles for: ElectricLoad's beside its own
/// `loads_kw`, else the reference year.
fn profile_year(document: &Value) -> i64 {
    section(document, "ElectricLoad")
        .filter(|load| given(load.get("loads_kw")))
        .and_then(|load| load.get("year"))
        .and_then(Value::as_i64)
        .unwrap_or(i64::from(REFERENCE_YEAR))
}

/// Every heating and cooling reference load of `document`, in `SECTIONS` order.
/// `ParameterError` when a blend's lists differ in length or the site has no coordinates.
pub fn thermal_references(document: &Value) -> Result<Vec<ThermalReference>> {
    let electric = section(document, "ElectricLoad");
    let mut references = Vec::new();
    for (name, load_type, fields, series) in SECTIONS {
        let Some(load) = section(document, name).filter(|load| !given(load.get(series))) else { continue };
        if load_type == LoadType::Cooling && COOLING_FRACTIONS.iter().any(|field| given(load.get(*field))) {
            continue;
        }
        let (annual_field, monthly_field) = load_type.energy_parameters();
        let (annual, monthly) = (given_field(load, annual_field), given_field(load, monthly_field));
        // Without ton-hours the service makes cooling a share of the electric load from its data.
        if load_type == LoadType::Cooling && annual.is_none() && monthly.is_none() {
            continue;
        }
        let own = reference_buildings(load, name, fields)?;
        let fallback = || match (load_type, electric) {
            (LoadType::ProcessHeat, _) | (_, None) => Ok(None),
            (_, Some(electric)) => reference_buildings(electric, "ElectricLoad", DOE_FIELDS),
        };
        let Some((names, shares, buildings)) = (match own { Some(found) => Some(found), None => fallback()? }) else { continue };
        let (latitude, longitude) = site(document)?;
        let year = profile_year(document);
        let mut parameters = RawSimulatedLoad {
            latitude: RawValue::Float(latitude),
            longitude: RawValue::Float(longitude),
            load_type: RawValue::from(load_type.name()),
            doe_reference_names: names,
            percent_shares: shares,
            year: RawValue::Int(year),
            ..RawSimulatedLoad::default()
        };
        let (annual_raw, monthly_raws) = (annual.map_or(RawValue::Missing, raw), raws(monthly));
        if load_type == LoadType::Cooling {
            (parameters.annual_tonhour, parameters.monthly_tonhour) = (annual_raw, monthly_raws);
        } else {
            (parameters.annual_mmbtu, parameters.monthly_mmbtu) = (annual_raw, monthly_raws);
        }
        let key = Map::from_iter([
            ("load_type".to_owned(), Value::from(load_type.name())),
            ("latitude".to_owned(), Value::from(latitude)),
            ("longitude".to_owned(), Value::from(longitude)),
            ("buildings".to_owned(), buildings),
            (annual_field.to_owned(), annual.cloned().unwrap_or(Value::Null)),
            (monthly_field.to_owned(), monthly.cloned().unwrap_or(Value::Null)),
            ("year".to_owned(), Value::from(year)),
        ]);
        references.push(ThermalReference { section: name, parameters, key });
    }
    Ok(references)
}

/// `document` with `reference`'s section holding `fetched` (the endpoint's hourly series)
/// repeated to the scenario's time steps in place of its reference fields and energy.
pub fn with_thermal_load(mut document: Value, reference: &ThermalReference, fetched: &[f64]) -> Value {
    let per_hour = usize::try_from(steps_per_hour(&document)).unwrap_or(1).max(1);
    let year = i32::try_from(profile_year(&document)).unwrap_or(REFERENCE_YEAR);
    let Some((_, load_type, fields, series)) = SECTIONS.iter().find(|(name, ..)| *name == reference.section) else { return document };
    let Some(Value::Object(load)) = document.get_mut(reference.section) else { return document };
    let (annual_field, monthly_field) = load_type.energy_parameters();
    load.retain(|field, _| !fields.contains(&field.as_str()) && field != annual_field && field != monthly_field);
    let values: Vec<Value> = fetched.iter().flat_map(|v| std::iter::repeat_n(Value::from(*v), per_hour)).collect();
    load.insert((*series).to_owned(), Value::Array(values));
    if let Some(Value::Array(months)) = load.get("addressable_load_fraction").cloned().filter(|f| f.as_array().is_some_and(|m| m.len() == 12)) {
        let per_step = month_of_each_step(year, per_hour).iter().filter_map(|&m| months.get(usize::from(m)).cloned()).collect();
        load.insert("addressable_load_fraction".to_owned(), Value::Array(per_step));
    }
    document
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::error::Error;

    fn hospital() -> Value {
        json!({
            "Site": {"latitude": 37.78, "longitude": -122.45},
            "Settings": {"time_steps_per_hour": 2},
            "ElectricLoad": {"doe_reference_name": "Hospital", "annual_kwh": 8760000.0},
            "SpaceHeatingLoad": {"annual_mmbtu": 29897.6, "addressable_load_fraction": vec![0.5; 12]},
            "DomesticHotWaterLoad": {"blended_doe_reference_names": ["Hospital", "FlatLoad"], "blended_doe_reference_percents": [0.5, 0.5],
                                     "monthly_mmbtu": vec![10.0; 12]},
            "ProcessHeatLoad": {"industrial_reference_name": "Chemical"},
            "CoolingLoad": {"doe_reference_name": "LargeOffice", "annual_tonhour": 5000.0},
        })
    }

    #[test]
    fn every_thermal_section_is_asked_for_with_its_own_unit_and_fallback_name() {
        let references = thermal_references(&hospital()).unwrap();
        let sections: Vec<&str> = references.iter().map(|r| r.section).collect();
        assert_eq!(sections, ["SpaceHeatingLoad", "DomesticHotWaterLoad", "ProcessHeatLoad", "CoolingLoad"]);
        let space = &references[0].parameters;
        assert_eq!((&space.doe_reference_names, &space.annual_mmbtu), (&vec![RawValue::from("Hospital")], &RawValue::Float(29897.6)), "ElectricLoad's name");
        assert!(space.addressable_load_fraction.is_empty() && space.boiler_efficiency.is_missing(), "fraction 1, no efficiency: see the header");
        assert_eq!(references[1].key["buildings"], json!([["Hospital", 0.5], ["FlatLoad", 0.5]]));
        assert_eq!(references[1].parameters.monthly_mmbtu.len(), 12);
        assert_eq!((&references[2].parameters.load_type, &references[2].key["load_type"]), (&RawValue::from("process_heat"), &json!("process_heat")));
        assert_eq!(references[3].parameters.annual_tonhour, RawValue::Float(5000.0));
        for reference in &references {
            crate::services::simulated_load::validate_simulated_load(&reference.parameters).expect("valid parameters");
        }
    }

    #[test]
    fn the_fetched_series_replaces_the_reference_and_monthly_fractions_go_per_step() {
        let document = hospital();
        let references = thermal_references(&document).unwrap();
        let hourly: Vec<f64> = (0..8760).map(|h| f64::from(h % 24)).collect();
        let resolved = with_thermal_load(document, &references[0], &hourly);
        let space = resolved["SpaceHeatingLoad"].as_object().unwrap();
        let mut fields: Vec<&String> = space.keys().collect();
        fields.sort();
        assert_eq!(fields, ["addressable_load_fraction", "fuel_loads_mmbtu_per_hour"]);
        assert_eq!((space["fuel_loads_mmbtu_per_hour"].as_array().unwrap().len(), &space["fuel_loads_mmbtu_per_hour"][11]), (17520, &json!(5.0)));
        assert_eq!(space["addressable_load_fraction"].as_array().unwrap().len(), 17520);
        let resolved = with_thermal_load(resolved, &references[3], &hourly);
        assert!(resolved["CoolingLoad"].get("doe_reference_name").is_none() && resolved["CoolingLoad"]["thermal_loads_ton"].as_array().unwrap().len() == 17520);
        assert_eq!(thermal_references(&resolved).unwrap().len(), 2, "the resolved sections are not asked again");
    }

    #[test]
    fn fractions_of_the_electric_load_and_cooling_without_ton_hours_stay() {
        let mut document = hospital();
        document["CoolingLoad"] = json!({"doe_reference_name": "LargeOffice", "annual_fraction_of_electric_load": 0.2, "annual_tonhour": 10.0});
        document["SpaceHeatingLoad"]["blended_doe_reference_names"] = json!(["Hospital"]);
        document["SpaceHeatingLoad"]["blended_doe_reference_percents"] = json!([0.5, 0.5]);
        let Err(Error::Parameter(problems)) = thermal_references(&document) else { panic!("accepted") };
        assert_eq!(problems, ["SpaceHeatingLoad.blended_doe_reference_names and blended_doe_reference_percents must be lists of one length"]);
        document.as_object_mut().unwrap().remove("SpaceHeatingLoad");
        let sections: Vec<&str> = thermal_references(&document).unwrap().iter().map(|r| r.section).collect();
        assert_eq!(sections, ["DomesticHotWaterLoad", "ProcessHeatLoad"]);
        document["CoolingLoad"] = json!({"doe_reference_name": "LargeOffice"});
        assert_eq!(thermal_references(&document).unwrap().len(), 2, "no ton-hours: the service's data, left to the reader");
    }
}

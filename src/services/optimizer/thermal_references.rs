//! What `resolve` reads and writes for the heating and cooling loads (JSON, no I/O): a
//! `SpaceHeatingLoad` or `DomesticHotWaterLoad` naming a reference building (`doe_reference_name`
//! or the blend's lists, else ElectricLoad's, as the service falls back), or a `ProcessHeatLoad`
//! naming an industrial one, scaled by `annual_mmbtu` or `monthly_mmbtu`, becomes
//! `fuel_loads_mmbtu_per_hour`; a `CoolingLoad` naming one (its own or ElectricLoad's) with
//! `annual_tonhour` or `monthly_tonhour` becomes `thermal_loads_ton`; one naming buildings without
//! ton-hours becomes `per_time_step_fractions_of_electric_load` (`cooling_shares`). A section that
//! holds its series, or a cooling load given as fractions of the electric load, is left as it is.
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
//!
//! Without ton-hours the service's CoolingLoad is `Σ share_i · fraction_i(t) · site electric kW(t)`,
//! fraction_i being building i's cooling electricity over its total electricity, in thermal kW
//! times the default COP of that series' peak (`get_default_fraction_of_total_electric`). The
//! endpoint answers fraction_i as `cooling_defaults.fraction_of_total_electric_profile` of an
//! electric query naming `cooling_doe_ref_name`; for a blend it answers the last building's
//! fraction times its percent over 100, not the sum, so each building is asked alone and the
//! shares are weighted here. The names are removed, except beside a given `ExistingChiller.cop`:
//! then the service converts a named building's load with the default COP, not the given one,
//! and the name keeps that rule (the fractions still win over it as the load's form).

use serde_json::{Map, Value};

use super::references::{given_field, raw, raws, reference_buildings, section, site, steps_per_hour, HOURS};
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

/// A CoolingLoad made of reference buildings' shares of the electric load (see the header).
#[derive(Debug, Clone, PartialEq)]
pub struct CoolingShares {
    /// One electric query naming `cooling_doe_ref_name` per building.
    pub buildings: Vec<CoolingShareQuery>,
    /// The naming fields as given (CoolingLoad's, else ElectricLoad's).
    names: Map<String, Value>,
}

/// One building of `CoolingShares`.
#[derive(Debug, Clone, PartialEq)]
pub struct CoolingShareQuery {
    pub parameters: RawSimulatedLoad,
    /// `load_type`, `latitude`, `longitude`, `cooling_doe_ref_name` and `year`.
    pub key: Map<String, Value>,
    pub share: f64,
}

/// The CoolingLoad of `document` when it names reference buildings (its own or ElectricLoad's)
/// and gives neither ton-hours, fractions of the electric load nor its series. `ParameterError`
/// when a blend's lists differ in length or hold a share that is not a number, or the site has
/// no coordinates.
pub fn cooling_shares(document: &Value) -> Result<Option<CoolingShares>> {
    let Some(load) = section(document, "CoolingLoad") else { return Ok(None) };
    let forms = ["thermal_loads_ton", "annual_tonhour", "monthly_tonhour"].iter().chain(&COOLING_FRACTIONS);
    if forms.into_iter().any(|field| given_field(load, field).is_some()) {
        return Ok(None);
    }
    let (named, found) = match reference_buildings(load, "CoolingLoad", DOE_FIELDS)? {
        Some(found) => (load, found),
        None => match section(document, "ElectricLoad") {
            Some(electric) => match reference_buildings(electric, "ElectricLoad", DOE_FIELDS)? {
                Some(found) => (electric, found),
                None => return Ok(None),
            },
            None => return Ok(None),
        },
    };
    let (names, shares, _) = found;
    let shares: Vec<f64> = if shares.is_empty() {
        vec![1.0]
    } else {
        shares.iter().map(RawValue::as_finite_f64).collect::<Option<_>>().ok_or_else(|| {
            crate::error::Error::Parameter(vec!["CoolingLoad's blended_doe_reference_percents must be numbers".into()])
        })?
    };
    let (latitude, longitude) = site(document)?;
    let year = profile_year(document);
    let buildings = names
        .into_iter()
        .zip(shares)
        .map(|(name, share)| CoolingShareQuery {
            key: Map::from_iter([
                ("load_type".to_owned(), Value::from(LoadType::Electric.name())),
                ("latitude".to_owned(), Value::from(latitude)),
                ("longitude".to_owned(), Value::from(longitude)),
                ("cooling_doe_ref_name".to_owned(), Value::from(name.as_text().unwrap_or_default())),
                ("year".to_owned(), Value::from(year)),
            ]),
            parameters: RawSimulatedLoad {
                latitude: RawValue::Float(latitude),
                longitude: RawValue::Float(longitude),
                cooling_doe_ref_names: vec![name],
                year: RawValue::Int(year),
                ..RawSimulatedLoad::default()
            },
            share,
        })
        .collect();
    let names = named.iter().filter(|(field, value)| DOE_FIELDS.contains(&field.as_str()) && given(Some(value))).map(|(f, v)| (f.clone(), v.clone())).collect();
    Ok(Some(CoolingShares { buildings, names }))
}

/// `document` with its CoolingLoad holding the buildings' hourly shares (`fetched`, one per
/// building, 8760 values each) weighted and repeated to the scenario's time steps as
/// `per_time_step_fractions_of_electric_load`.
pub fn with_cooling_shares(mut document: Value, shares: &CoolingShares, fetched: &[Vec<f64>]) -> Value {
    let per_hour = usize::try_from(steps_per_hour(&document)).unwrap_or(1).max(1);
    let mut hourly = vec![0.0; HOURS];
    for (building, fractions) in shares.buildings.iter().zip(fetched) {
        for (total, fraction) in hourly.iter_mut().zip(fractions) {
            *total += building.share * fraction;
        }
    }
    let keep_names = section(&document, "ExistingChiller").and_then(|chiller| given_field(chiller, "cop")).is_some();
    let Some(Value::Object(load)) = document.get_mut("CoolingLoad") else { return document };
    load.retain(|field, _| !DOE_FIELDS.contains(&field.as_str()));
    if keep_names {
        load.extend(shares.names.clone());
    }
    let values = hourly.iter().flat_map(|f| std::iter::repeat_n(Value::from(*f), per_hour)).collect();
    load.insert("per_time_step_fractions_of_electric_load".to_owned(), Value::Array(values));
    document
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
    #[test]
    fn cooling_without_ton_hours_asks_each_building_and_becomes_weighted_shares() {
        let mut document = hospital();
        document["CoolingLoad"] = json!({"blended_doe_reference_names": ["Hospital", "LargeOffice"], "blended_doe_reference_percents": [0.75, 0.25]});
        let shares = cooling_shares(&document).unwrap().unwrap();
        let asked: Vec<(&Value, f64)> = shares.buildings.iter().map(|b| (&b.key["cooling_doe_ref_name"], b.share)).collect();
        assert_eq!(asked, [(&json!("Hospital"), 0.75), (&json!("LargeOffice"), 0.25)]);
        for building in &shares.buildings {
            let query = crate::services::simulated_load::validate_simulated_load(&building.parameters).expect("valid parameters");
            assert_eq!((query.load_type, query.cooling_buildings.len(), query.year), (LoadType::Electric, 1, 2017));
        }
        let fetched = [vec![0.2; HOURS], (0..HOURS).map(|h| f64::from(u8::from(h % 2 == 0))).collect::<Vec<_>>()];
        let resolved = with_cooling_shares(document, &shares, &fetched);
        let cooling = resolved["CoolingLoad"].as_object().unwrap();
        assert_eq!(cooling.keys().collect::<Vec<_>>(), ["per_time_step_fractions_of_electric_load"], "the names go without a given COP");
        let fractions = cooling["per_time_step_fractions_of_electric_load"].as_array().unwrap();
        let at = |t: usize| fractions[t].as_f64().unwrap();
        assert_eq!(fractions.len(), 17520);
        assert!((at(0) - 0.4).abs() < 1e-12 && at(1) == at(0) && (at(2) - 0.15).abs() < 1e-12, "0.75·0.2 + 0.25·(1 or 0), two steps an hour");
        assert!(cooling_shares(&resolved).unwrap().is_none(), "filled once");
    }

    #[test]
    fn cooling_shares_fall_back_to_electric_names_and_keep_them_beside_a_given_cop() {
        let mut document = hospital();
        document["CoolingLoad"] = json!({});
        document["ExistingChiller"] = json!({"cop": 3.4});
        let shares = cooling_shares(&document).unwrap().unwrap();
        assert_eq!((shares.buildings.len(), &shares.buildings[0].key["cooling_doe_ref_name"]), (1, &json!("Hospital")));
        let resolved = with_cooling_shares(document.clone(), &shares, &[vec![0.1; HOURS]]);
        assert_eq!(resolved["CoolingLoad"]["doe_reference_name"], json!("Hospital"), "the name keeps the service's default-COP rule");
        for given in [json!({"annual_tonhour": 10.0}), json!({"thermal_loads_ton": [1.0]}), json!({"annual_fraction_of_electric_load": 0.1})] {
            document["CoolingLoad"] = given;
            assert!(cooling_shares(&document).unwrap().is_none());
        }
        document["CoolingLoad"] = json!({"blended_doe_reference_names": ["Hospital", "LargeOffice"], "blended_doe_reference_percents": [0.5, "half"]});
        assert!(matches!(cooling_shares(&document), Err(Error::Parameter(_))));
    }
}


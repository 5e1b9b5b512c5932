//! What `resolve` reads and writes in a scenario document (JSON), free of any I/O: the
//! reference building load of `ElectricLoad` and the rate reference of `ElectricTariff` as
//! requests, and the document with their answers in place.
//!
//! A reference load (`doe_reference_name`, or `blended_doe_reference_names` with
//! `blended_doe_reference_percents`, scaled by `annual_kwh` or `monthly_totals_kwh`) becomes
//! `loads_kw` for `year` 2017, hourly values repeated to `Settings.time_steps_per_hour`; the
//! reference fields go, and `normalize_and_scale_load_profile_input` is set when
//! `monthly_peaks_kw` is given. The service leaves those peaks unapplied when the reference is
//! a FlatLoad (or a blend more than 75 % one FlatLoad), and so does the engine when it sees
//! that name beside `loads_kw`: such a reference keeps its name fields (`doe_reference_name`,
//! or the blend's two lists) beside the resolved `loads_kw`. A rate reference (`urdb_label`, or `urdb_utility_name` with
//! `urdb_rate_name`) becomes `urdb_response`; the label stays as a note. A section that already
//! holds `loads_kw` or `urdb_response` is left as it is, as the service uses them first.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::optimizer::loads::peak_scaling_skipped;
use crate::optimizer::scenario::given;
use crate::services::raw::RawValue;
use crate::services::simulated_load::{RawSimulatedLoad, REFERENCE_YEAR};

/// ElectricLoad inputs that the resolved `loads_kw` replaces.
const LOAD_REFERENCE_FIELDS: [&str; 5] =
    ["doe_reference_name", "blended_doe_reference_names", "blended_doe_reference_percents", "annual_kwh", "monthly_totals_kwh"];
/// The reference fields that name the building; kept beside `loads_kw` when the service would
/// skip `monthly_peaks_kw` for them (`peak_scaling_skipped`).
const LOAD_REFERENCE_NAMES: [&str; 3] = ["doe_reference_name", "blended_doe_reference_names", "blended_doe_reference_percents"];
/// Hourly values in a (non-leap) modelled year.
pub(super) const HOURS: usize = 8760;

pub(super) fn section<'a>(document: &'a Value, name: &str) -> Option<&'a Map<String, Value>> {
    document.get(name)?.as_object()
}

pub(super) fn given_field<'a>(fields: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    fields.get(name).filter(|value| given(Some(value)))
}

/// A reference building load to fetch: the load endpoint's parameters and the cache key's inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadReference {
    pub parameters: RawSimulatedLoad,
    /// `latitude`, `longitude`, `buildings`, `annual_kwh`, `monthly_totals_kwh` and `year`.
    pub key: Map<String, Value>,
}

pub(super) fn raw(value: &Value) -> RawValue {
    match value {
        Value::Null => RawValue::Missing,
        Value::Bool(flag) => RawValue::Bool(*flag),
        Value::Number(number) => number.as_i64().map_or_else(|| RawValue::Float(number.as_f64().unwrap_or(f64::NAN)), RawValue::Int),
        Value::String(text) => RawValue::Text(text.clone()),
        other => RawValue::Text(other.to_string()),
    }
}

pub(super) fn raws(value: Option<&Value>) -> Vec<RawValue> {
    match value {
        None => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(raw).collect(),
        Some(other) => vec![raw(other)],
    }
}

/// The reference load of `document`, when its ElectricLoad names one and holds no `loads_kw`.
/// `ParameterError` when the blend's lists differ in length or the site has no coordinates.
pub fn load_reference(document: &Value) -> Result<Option<LoadReference>> {
    let Some(load) = section(document, "ElectricLoad").filter(|load| !given(load.get("loads_kw"))) else { return Ok(None) };
    let Some((names, shares, buildings)) = reference_buildings(load, "ElectricLoad", ["doe_reference_name", "blended_doe_reference_names", "blended_doe_reference_percents"])? else {
        return Ok(None);
    };
    let (latitude, longitude) = site(document)?;
    let annual = given_field(load, "annual_kwh");
    let monthly = given_field(load, "monthly_totals_kwh");
    let parameters = RawSimulatedLoad {
        latitude: RawValue::Float(latitude),
        longitude: RawValue::Float(longitude),
        doe_reference_names: names,
        percent_shares: shares,
        annual_kwh: annual.map_or(RawValue::Missing, raw),
        monthly_totals_kwh: raws(monthly),
        year: RawValue::Int(i64::from(REFERENCE_YEAR)),
        ..RawSimulatedLoad::default()
    };
    let key = Map::from_iter([
        ("latitude".to_owned(), Value::from(latitude)),
        ("longitude".to_owned(), Value::from(longitude)),
        ("buildings".to_owned(), buildings),
        ("annual_kwh".to_owned(), annual.cloned().unwrap_or(Value::Null)),
        ("monthly_totals_kwh".to_owned(), monthly.cloned().unwrap_or(Value::Null)),
        ("year".to_owned(), Value::from(REFERENCE_YEAR)),
    ]);
    Ok(Some(LoadReference { parameters, key }))
}

/// A reference's names and shares as the endpoint takes them, and the cache key's `buildings`.
pub(super) type Buildings = (Vec<RawValue>, Vec<RawValue>, Value);

/// The reference building of a load section: its `fields` (the single name, the blend's names
/// and its percents) as the endpoint's names and shares, and the cache key's `buildings` (the
/// name, or [name, share] pairs). None when no name is given.
pub(super) fn reference_buildings(load: &Map<String, Value>, section_name: &str, fields: [&str; 3]) -> Result<Option<Buildings>> {
    let [single, blend_names, blend_percents] = fields;
    if let Some(name) = given_field(load, single) {
        return Ok(Some((vec![raw(name)], Vec::new(), name.clone())));
    }
    let Some(names) = given_field(load, blend_names) else { return Ok(None) };
    let shares = load.get(blend_percents).filter(|v| given(Some(v))).cloned().unwrap_or(Value::Array(Vec::new()));
    let problem = || Error::Parameter(vec![format!("{section_name}.{blend_names} and {blend_percents} must be lists of one length")]);
    let (Value::Array(name_list), Value::Array(share_list)) = (names, &shares) else { return Err(problem()) };
    if name_list.len() != share_list.len() {
        return Err(problem());
    }
    let pairs = name_list.iter().zip(share_list).map(|(name, share)| Value::Array(vec![name.clone(), share.clone()])).collect();
    Ok(Some((raws(Some(names)), raws(Some(&shares)), Value::Array(pairs))))
}

pub(super) fn site(document: &Value) -> Result<(f64, f64)> {
    let coordinate = |name: &str| section(document, "Site").and_then(|site| site.get(name)).filter(|v| v.is_number()).and_then(Value::as_f64);
    match (coordinate("latitude"), coordinate("longitude")) {
        (Some(latitude), Some(longitude)) => Ok((latitude, longitude)),
        _ => Err(Error::Parameter(vec!["Site.latitude and Site.longitude are needed to resolve the reference building load".into()])),
    }
}

/// `Settings.time_steps_per_hour` as Python's `int(value or 1)` reads a number.
pub(super) fn steps_per_hour(document: &Value) -> i64 {
    #[allow(clippy::cast_possible_truncation, reason = "a step count, truncated toward zero as int() does")]
    let steps = section(document, "Settings").and_then(|s| s.get("time_steps_per_hour")).and_then(|value| match value {
        Value::Number(number) => number.as_i64().or_else(|| number.as_f64().map(|f| f.trunc() as i64)),
        Value::Bool(flag) => Some(i64::from(*flag)),
        _ => None,
    });
    steps.filter(|steps| *steps != 0).unwrap_or(1)
}

/// Whether the service leaves `monthly_peaks_kw` unapplied for the reference of `load`: a
/// FlatLoad `doe_reference_name`, or a blend more than 75 % one FlatLoad (the names and shares
/// read as the engine reads them beside `loads_kw`).
fn flat_load_reference(load: &Map<String, Value>) -> bool {
    let name = load.get("doe_reference_name").and_then(Value::as_str).unwrap_or("");
    let list = |field: &str| load.get(field).and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let shares = list("blended_doe_reference_percents").iter().filter_map(Value::as_f64);
    let blend: Vec<(&str, f64)> = list("blended_doe_reference_names").iter().filter_map(Value::as_str).zip(shares).collect();
    peak_scaling_skipped(name, &blend)
}

/// `document` with its reference load replaced by `fetched` (the endpoint's values for the year,
/// hourly or finer) repeated to the scenario's time steps. With `monthly_peaks_kw` given, a
/// FlatLoad reference keeps its name fields, so that the peaks stay unapplied as in the service.
pub fn with_loads(mut document: Value, fetched: &[f64]) -> Value {
    let per_hour = steps_per_hour(&document);
    let fetched_steps = i64::try_from(fetched.len() / HOURS).unwrap_or(1).max(1);
    let loads: Vec<Value> = if fetched_steps == per_hour {
        fetched.iter().map(|kw| Value::from(*kw)).collect()
    } else {
        let repeats = usize::try_from(per_hour.div_euclid(fetched_steps)).unwrap_or(0);
        fetched.iter().flat_map(|kw| std::iter::repeat_n(Value::from(*kw), repeats)).collect()
    };
    let Some(Value::Object(load)) = document.get_mut("ElectricLoad") else { return document };
    let peaks_given = given(load.get("monthly_peaks_kw"));
    let keep_names = peaks_given && flat_load_reference(load);
    load.retain(|field, _| !LOAD_REFERENCE_FIELDS.contains(&field.as_str()) || (keep_names && LOAD_REFERENCE_NAMES.contains(&field.as_str())));
    load.insert("loads_kw".to_owned(), Value::Array(loads));
    load.insert("year".to_owned(), Value::from(REFERENCE_YEAR));
    if peaks_given {
        load.insert("normalize_and_scale_load_profile_input".to_owned(), Value::Bool(true));
    }
    document
}

/// A Utility Rate Database rate to fetch.
#[derive(Debug, Clone, PartialEq)]
pub enum RateReference {
    Label(Value),
    Named { utility: Value, rate_name: Value },
}

impl RateReference {
    /// The cache key's inputs.
    pub fn key(&self) -> Map<String, Value> {
        match self {
            RateReference::Label(label) => Map::from_iter([("label".to_owned(), label.clone())]),
            RateReference::Named { utility, rate_name } => {
                Map::from_iter([("utility".to_owned(), utility.clone()), ("rate_name".to_owned(), rate_name.clone())])
            }
        }
    }
}

/// The rate reference of `document`, when its ElectricTariff names one and holds no `urdb_response`.
pub fn rate_reference(document: &Value) -> Option<RateReference> {
    let tariff = section(document, "ElectricTariff").filter(|tariff| !given(tariff.get("urdb_response")))?;
    if let Some(label) = given_field(tariff, "urdb_label") {
        return Some(RateReference::Label(label.clone()));
    }
    let utility = given_field(tariff, "urdb_utility_name")?;
    let rate_name = given_field(tariff, "urdb_rate_name")?;
    Some(RateReference::Named { utility: utility.clone(), rate_name: rate_name.clone() })
}

/// `document` with `rate` as its tariff's `urdb_response`.
pub fn with_rate(mut document: Value, rate: Value) -> Value {
    if let Some(Value::Object(tariff)) = document.get_mut("ElectricTariff") {
        tariff.insert("urdb_response".to_owned(), rate);
    }
    document
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn office(settings: Value) -> Value {
        json!({
            "Site": {"latitude": 39.74, "longitude": -105.17},
            "Settings": settings,
            "ElectricLoad": {"doe_reference_name": "MediumOffice", "annual_kwh": 400000, "critical_load_fraction": 0.5},
            "ElectricTariff": {"urdb_label": "5fa1e0000000000000000002"},
        })
    }

    fn hourly() -> Vec<f64> {
        (0..HOURS).map(|hour| f64::from(u32::try_from(hour % 24).unwrap())).collect()
    }

    #[test]
    fn hourly_loads_are_repeated_to_the_scenarios_time_steps() {
        for per_hour in [1_usize, 2, 4] {
            let reference = load_reference(&office(json!({"time_steps_per_hour": per_hour}))).unwrap().unwrap();
            assert_eq!(reference.parameters.doe_reference_names, [RawValue::from("MediumOffice")]);
            assert_eq!((&reference.parameters.annual_kwh, &reference.parameters.year), (&RawValue::Int(400_000), &RawValue::Int(2017)));
            let resolved = with_loads(office(json!({"time_steps_per_hour": per_hour})), &hourly());
            let load = resolved["ElectricLoad"].as_object().unwrap();
            assert_eq!(load.keys().collect::<Vec<_>>(), ["critical_load_fraction", "loads_kw", "year"]);
            let loads = load["loads_kw"].as_array().unwrap();
            assert_eq!((loads.len(), &load["year"]), (HOURS * per_hour, &json!(2017)));
            assert_eq!(loads[per_hour * 5 + per_hour - 1], json!(5.0), "hour 5's last step at {per_hour} steps per hour");
            assert_eq!(loads[per_hour * 6], json!(6.0));
        }
        assert_eq!(with_loads(office(json!({})), &hourly())["ElectricLoad"]["loads_kw"].as_array().unwrap().len(), HOURS);
    }

    #[test]
    fn a_blend_is_asked_for_by_lists_and_its_lists_must_match() {
        let mut document = office(json!({}));
        document["ElectricLoad"] = json!({"blended_doe_reference_names": ["Hospital", "LargeOffice"], "blended_doe_reference_percents": [0.75, 0.25],
                                          "monthly_totals_kwh": vec![100.0; 12], "monthly_peaks_kw": vec![5.0; 12]});
        let reference = load_reference(&document).unwrap().unwrap();
        assert_eq!(reference.parameters.doe_reference_names, [RawValue::from("Hospital"), RawValue::from("LargeOffice")]);
        assert_eq!(reference.parameters.percent_shares, [RawValue::Float(0.75), RawValue::Float(0.25)]);
        assert_eq!((reference.parameters.monthly_totals_kwh.len(), &reference.parameters.annual_kwh), (12, &RawValue::Missing));
        assert_eq!(reference.key["buildings"], json!([["Hospital", 0.75], ["LargeOffice", 0.25]]));
        let load = with_loads(document.clone(), &hourly())["ElectricLoad"].clone();
        assert_eq!(load["normalize_and_scale_load_profile_input"], json!(true));
        assert!(load.get("blended_doe_reference_names").is_none() && load.get("monthly_totals_kwh").is_none() && load.get("monthly_peaks_kw").is_some());
        document["ElectricLoad"]["blended_doe_reference_percents"] = json!([1.0]);
        let Err(Error::Parameter(problems)) = load_reference(&document) else { panic!("accepted") };
        assert_eq!(problems, ["ElectricLoad.blended_doe_reference_names and blended_doe_reference_percents must be lists of one length"]);
        document["Site"] = json!({"latitude": "39.7"});
        document["ElectricLoad"] = json!({"doe_reference_name": "Hospital"});
        let Err(Error::Parameter(problems)) = load_reference(&document) else { panic!("accepted") };
        assert!(problems[0].starts_with("Site.latitude and Site.longitude are needed"));
    }

    /// The service leaves `monthly_peaks_kw` unapplied for a FlatLoad reference, or a blend more
    /// than 75 % one FlatLoad: resolve keeps the names beside `loads_kw`, and the engine, reading
    /// them there, leaves the fetched load as it is. Other references lose their names and get
    /// the peaks.
    #[test]
    fn a_flatload_reference_keeps_its_names_so_the_peaks_stay_unapplied() {
        let fetched: Vec<f64> = hourly().iter().map(|kw| kw + 10.0).collect();
        let resolved = |load: Value| {
            let mut load = load;
            load["annual_kwh"] = json!(200_000);
            load["monthly_peaks_kw"] = json!(vec![40.0; 12]);
            let document = json!({
                "Site": {"latitude": 39.74, "longitude": -105.17},
                "ElectricLoad": load,
                "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 10.0},
            });
            let document = with_loads(document, &fetched);
            let mut fields: Vec<String> = document["ElectricLoad"].as_object().unwrap().keys().cloned().collect();
            fields.sort();
            let model = crate::optimizer::from_scenario(&document, &[]).expect("supported");
            (fields, model.load_kw)
        };
        let resolved_fields = ["loads_kw", "monthly_peaks_kw", "normalize_and_scale_load_profile_input", "year"];
        let with_names = |names: &[&str]| {
            let mut fields: Vec<String> = resolved_fields.iter().chain(names).map(|field| (*field).to_owned()).collect();
            fields.sort();
            fields
        };
        let (fields, load) = resolved(json!({"doe_reference_name": "FlatLoad_16_5"}));
        assert_eq!((fields, load.as_slice()), (with_names(&["doe_reference_name"]), fetched.as_slice()), "FlatLoad: the peaks are not applied");
        let blend = ["blended_doe_reference_names", "blended_doe_reference_percents"];
        let (fields, load) = resolved(json!({"blended_doe_reference_names": ["FlatLoad_8_7", "Hospital"], "blended_doe_reference_percents": [0.8, 0.2]}));
        assert_eq!((fields, load.as_slice()), (with_names(&blend), fetched.as_slice()), "a blend 80 % FlatLoad: the peaks are not applied");
        for load in [json!({"doe_reference_name": "MediumOffice"}),
                     json!({"blended_doe_reference_names": ["FlatLoad", "Hospital"], "blended_doe_reference_percents": [0.75, 0.25]})] {
            let (fields, load) = resolved(load);
            assert_eq!(fields, with_names(&[]));
            let peak = load.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            assert!((peak - 40.0).abs() < 1e-9, "the peaks are applied: {peak} kW");
        }
        let mut no_peaks = json!({"ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 1000}});
        no_peaks = with_loads(no_peaks, &fetched);
        assert!(no_peaks["ElectricLoad"].get("doe_reference_name").is_none(), "without peaks the name goes as before");
    }

    #[test]
    fn a_scenario_holding_its_data_is_untouched() {
        let mut document = office(json!({}));
        document["ElectricLoad"]["loads_kw"] = json!(vec![1.0; 3]);
        document["ElectricTariff"]["urdb_response"] = json!({"label": "given"});
        assert_eq!((load_reference(&document).unwrap(), rate_reference(&document)), (None, None));
        let bare = json!({"ElectricLoad": {"doe_reference_name": "", "loads_kw": []}, "ElectricTariff": {"urdb_utility_name": "U"}});
        assert_eq!((load_reference(&bare).unwrap(), rate_reference(&bare)), (None, None), "nothing given is nothing to resolve");
        assert!(!given(Some(&json!({}))) && !given(Some(&json!(""))) && !given(None) && given(Some(&json!(0))) && given(Some(&json!(false))));
    }

    #[test]
    fn a_rate_is_named_by_label_first_and_its_answer_is_added() {
        let document = office(json!({}));
        assert_eq!(rate_reference(&document), Some(RateReference::Label(json!("5fa1e0000000000000000002"))));
        let named = json!({"ElectricTariff": {"urdb_label": "", "urdb_utility_name": "U", "urdb_rate_name": "R"}});
        let reference = rate_reference(&named).unwrap();
        assert_eq!(Value::Object(reference.key()), json!({"utility": "U", "rate_name": "R"}));
        let tariff = &with_rate(document, json!({"label": "x"}))["ElectricTariff"];
        assert_eq!(tariff, &json!({"urdb_label": "5fa1e0000000000000000002", "urdb_response": {"label": "x"}}));
    }
}

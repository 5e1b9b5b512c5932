//! What `resolve` reads and writes for the grid emissions and health costs, free of I/O: which
//! of the service's look-ups (`emissions_data`) a scenario needs, and the document with their
//! answers in place, as REopt.jl 029db01d fills them (`ElectricUtility` in
//! `src/core/electric_utility.jl`, `Financial` in `src/core/financial.jl`):
//!
//! - on the grid, each of `ElectricUtility.emissions_factor_series_lb_{CO2,NOx,SO2,PM25}_per_kwh`
//!   and `renewable_energy_fraction_series` left out is filled: CO2 from Cambium
//!   (`cambium_co2_metric`) unless `co2_from_avert` or the site's AVERT region is Alaska's or
//!   Hawaii's (those come from AVERT's eGRID values), NOx, SO2 and PM2.5 from AVERT, the
//!   clean-energy fraction from Cambium (`cambium_cef_metric`). A CO2 series from Cambium comes
//!   with `emissions_factor_CO2_decrease_fraction` 0 when that is left out (the service's default
//!   for Cambium; 0.0459 otherwise, which the engine fills). Off grid none is filled (the service
//!   uses zeros, as the engine does).
//! - each of `Financial.{NOx,SO2,PM25}_{grid,onsite_fuelburn}_cost_per_tonne` and
//!   `_cost_escalation_rate_fraction` left out is filled from EASIUR (the grid costs not off grid),
//!   with `om_cost_escalation_rate_fraction` (or the sector's default) as the inflation.
//!
//! The look-ups answer hourly (the service asks its Julia server for one step an hour); the
//! series are repeated to `Settings.time_steps_per_hour`. Where a look-up refuses the site
//! (outside the data's coverage), the service warns and uses zeros, and so does `resolve`, but
//! EASIUR's refusal with `include_health_in_objective` is an error, as in the service. The
//! AVERT endpoint looks a region up by location only: an `avert_emissions_region` that is not
//! the location's region is refused by name (give the series).

use serde_json::{Map, Value};

use super::emissions_data::{AvertProfile, AvertQuery, CambiumProfile, CambiumQuery, EasiurCosts, EasiurQuery};
use super::references::{given_field, section, steps_per_hour};
use crate::error::{Error, Result};
use crate::optimizer::model::sector_defaults::OM_COST_ESCALATION;
use crate::optimizer::model::sector_inputs::{EscalationRegion, FederalProcurement, SectorDefaults};
use crate::optimizer::scenario::given;
use crate::services::simulated_load::REFERENCE_YEAR;

/// The health pollutants in the service's field names.
const HEALTH: [&str; 3] = ["NOx", "SO2", "PM25"];
/// The AVERT regions whose CO2 the service takes from AVERT (eGRID) because Cambium lacks them.
const NOT_IN_CAMBIUM: [&str; 3] = ["AKGD", "HIMS", "HIOA"];
/// Cambium's first and last data years (REopt.jl moves a `cambium_start_year` outside them to the first).
const CAMBIUM_YEARS: std::ops::RangeInclusive<i64> = 2025..=2050;

/// The look-ups a scenario needs and the fields they fill.
#[derive(Debug, Clone, PartialEq)]
pub struct EmissionsNeed {
    /// AVERT's profile: for the health series, and for the CO2 series (its region decides the source).
    pub avert: Option<AvertQuery>,
    /// `ElectricUtility.avert_emissions_region` when given.
    pub region: Option<String>,
    /// The CO2 series is left out: from Cambium (this query) unless the AVERT region says otherwise,
    /// or from AVERT (`co2_from_avert`: None).
    pub co2: Option<Option<CambiumQuery>>,
    /// The health series left out (`HEALTH` order).
    pub health: [bool; 3],
    /// Cambium's clean-energy fraction, when `renewable_energy_fraction_series` is left out.
    pub clean_fraction: Option<CambiumQuery>,
    /// EASIUR, when a Financial health cost or escalation rate is left out.
    pub easiur: Option<EasiurQuery>,
    /// The Financial fields EASIUR fills.
    pub financial_fields: Vec<String>,
    pub health_in_objective: bool,
}

/// The answers of the look-ups of an `EmissionsNeed`; None for a look-up not asked or refused
/// (the site outside its coverage), whose fields then get zeros.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EmissionsData {
    pub avert: Option<AvertProfile>,
    pub cambium_co2: Option<CambiumProfile>,
    pub clean_fraction: Option<CambiumProfile>,
    pub easiur: Option<EasiurCosts>,
    /// The service's message when EASIUR refused the site.
    pub easiur_refusal: Option<String>,
}

fn text<'a>(fields: &'a Map<String, Value>, name: &str, default: &'a str) -> &'a str {
    given_field(fields, name).and_then(Value::as_str).unwrap_or(default)
}

fn whole(fields: &Map<String, Value>, name: &str) -> Option<i64> {
    let value = given_field(fields, name)?;
    #[allow(clippy::cast_possible_truncation, reason = "a year or a count, truncated as the service's int()")]
    value.as_i64().or_else(|| value.as_f64().map(|number| number.trunc() as i64))
}

fn flag(fields: &Map<String, Value>, name: &str) -> bool {
    fields.get(name).and_then(Value::as_bool).unwrap_or(false)
}

/// The look-ups `document` needs, or None when it leaves nothing of theirs out.
/// `ParameterError` when something is needed and the site has no coordinates.
pub fn emissions_need(document: &Value) -> Result<Option<EmissionsNeed>> {
    let empty = Map::new();
    let utility = section(document, "ElectricUtility").unwrap_or(&empty);
    let financial = section(document, "Financial").unwrap_or(&empty);
    let settings = section(document, "Settings").unwrap_or(&empty);
    let site = section(document, "Site").unwrap_or(&empty);
    let off_grid = flag(settings, "off_grid_flag");
    let missing = |name: &str| !off_grid && !given(utility.get(name));
    let co2_missing = missing("emissions_factor_series_lb_CO2_per_kwh");
    let health = HEALTH.map(|p| missing(&format!("emissions_factor_series_lb_{p}_per_kwh")));
    let clean_missing = missing("renewable_energy_fraction_series");
    let mut financial_fields = Vec::new();
    for p in HEALTH {
        let names = [format!("{p}_grid_cost_per_tonne"), format!("{p}_onsite_fuelburn_cost_per_tonne"), format!("{p}_cost_escalation_rate_fraction")];
        let grid_cost = names[0].clone();
        financial_fields.extend(names.into_iter().filter(|name| !(given(financial.get(name)) || off_grid && *name == grid_cost)));
    }
    if !co2_missing && !health.contains(&true) && !clean_missing && financial_fields.is_empty() {
        return Ok(None);
    }
    let coordinate = |name: &str| site.get(name).filter(|v| v.is_number()).and_then(Value::as_f64);
    let (Some(latitude), Some(longitude)) = (coordinate("latitude"), coordinate("longitude")) else {
        return Err(Error::Parameter(vec!["Site.latitude and Site.longitude are needed to resolve the grid emissions and health costs".into()]));
    };
    let load_year = section(document, "ElectricLoad").and_then(|load| whole(load, "year")).unwrap_or(i64::from(REFERENCE_YEAR));
    let start_year = whole(utility, "cambium_start_year").filter(|year| CAMBIUM_YEARS.contains(year)).unwrap_or(*CAMBIUM_YEARS.start());
    let lifetime = whole(utility, "cambium_levelization_years").or_else(|| whole(financial, "analysis_years")).unwrap_or(25);
    let cambium = |metric: &str, default: &str| CambiumQuery {
        scenario: text(utility, "cambium_scenario", "Mid-case").to_owned(),
        location_type: text(utility, "cambium_location_type", "GEA Regions 2023").to_owned(),
        latitude,
        longitude,
        start_year,
        lifetime,
        metric_col: text(utility, metric, default).to_owned(),
        grid_level: text(utility, "cambium_grid_level", "enduse").to_owned(),
        load_year,
    };
    let co2 = co2_missing.then(|| (!flag(utility, "co2_from_avert")).then(|| cambium("cambium_co2_metric", "lrmer_co2e")));
    let avert = (co2_missing || health.contains(&true)).then_some(AvertQuery { latitude, longitude, load_year });
    let easiur = (!financial_fields.is_empty()).then(|| EasiurQuery { latitude, longitude, inflation: inflation(financial, site) });
    Ok(Some(EmissionsNeed {
        avert,
        region: given_field(utility, "avert_emissions_region").and_then(Value::as_str).map(str::to_owned),
        co2,
        health,
        clean_fraction: clean_missing.then(|| cambium("cambium_cef_metric", "cef_load")),
        easiur,
        financial_fields,
        health_in_objective: flag(settings, "include_health_in_objective"),
    }))
}

/// `Financial.om_cost_escalation_rate_fraction`, or its default for the site's sector.
fn inflation(financial: &Map<String, Value>, site: &Map<String, Value>) -> f64 {
    given_field(financial, "om_cost_escalation_rate_fraction").and_then(Value::as_f64).unwrap_or_else(|| {
        if text(site, "sector", "") == "federal" {
            SectorDefaults::federal(FederalProcurement::OwnedDirectPurchase, EscalationRegion::National).om_cost_escalation
        } else {
            OM_COST_ESCALATION
        }
    })
}

impl EmissionsNeed {
    /// The Cambium CO2 query to ask once AVERT has answered: None when the CO2 comes from AVERT
    /// (`co2_from_avert`, or a region Cambium lacks) or is given.
    pub fn cambium_co2(&self, avert: Option<&AvertProfile>) -> Option<&CambiumQuery> {
        let query = self.co2.as_ref()?.as_ref()?;
        let region = avert.map_or("", |profile| profile.avert_region_abbr.as_str());
        (!NOT_IN_CAMBIUM.contains(&region)).then_some(query)
    }

    /// `ParameterError` when the scenario names an AVERT region other than the location's.
    pub fn check_region(&self, avert: Option<&AvertProfile>) -> Result<()> {
        let (Some(wanted), Some(profile)) = (&self.region, avert) else { return Ok(()) };
        if *wanted == profile.avert_region {
            return Ok(());
        }
        Err(Error::Parameter(vec![format!(
            "ElectricUtility.avert_emissions_region {wanted:?} is not the site's region ({:?}): the service's avert_emissions_profile looks regions up by location only; give the emissions_factor_series_lb_*_per_kwh",
            profile.avert_region
        )]))
    }
}

/// `hourly` repeated to `per_hour` steps an hour; zeros for a year of steps when None.
fn stepped(hourly: Option<&[f64]>, per_hour: usize) -> Value {
    match hourly {
        Some(values) => Value::from(values.iter().flat_map(|&v| std::iter::repeat_n(v, per_hour)).collect::<Vec<f64>>()),
        None => Value::from(vec![0.0; crate::calendar::HOURS_PER_YEAR * per_hour]),
    }
}

fn section_mut<'a>(document: &'a mut Value, name: &str) -> Option<&'a mut Map<String, Value>> {
    let entry = document.as_object_mut()?.entry(name.to_owned()).or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    entry.as_object_mut()
}

/// The grid series of `need` in `utility`, from `data` (zeros for a refused look-up).
fn fill_grid_series(utility: &mut Map<String, Value>, need: &EmissionsNeed, data: &EmissionsData, per_hour: usize) {
    let avert = data.avert.as_ref();
    if let Some(source) = &need.co2 {
        let from_cambium = source.is_some() && need.cambium_co2(avert).is_some();
        let series = if from_cambium { data.cambium_co2.as_ref().map(|p| p.data_series.as_slice()) } else { avert.map(|p| p.co2_lb_per_kwh.as_slice()) };
        utility.insert("emissions_factor_series_lb_CO2_per_kwh".into(), stepped(series, per_hour));
        if from_cambium && !given(utility.get("emissions_factor_CO2_decrease_fraction")) {
            utility.insert("emissions_factor_CO2_decrease_fraction".into(), Value::from(0.0));
        }
    }
    let health = avert.map(|profile| [&profile.nox_lb_per_kwh, &profile.so2_lb_per_kwh, &profile.pm25_lb_per_kwh]);
    for (i, (p, missing)) in HEALTH.iter().zip(need.health).enumerate() {
        if missing {
            let series = health.and_then(|series| series.get(i).map(|values| values.as_slice()));
            utility.insert(format!("emissions_factor_series_lb_{p}_per_kwh"), stepped(series, per_hour));
        }
    }
    if need.clean_fraction.is_some() {
        utility.insert("renewable_energy_fraction_series".into(), stepped(data.clean_fraction.as_ref().map(|p| p.data_series.as_slice()), per_hour));
    }
}

/// `document` with the fields of `need` filled from `data`. `ParameterError` for an AVERT region
/// other than the location's, or EASIUR's refusal with the health costs in the objective.
pub fn with_emissions(mut document: Value, need: &EmissionsNeed, data: &EmissionsData) -> Result<Value> {
    need.check_region(data.avert.as_ref())?;
    if let (Some(refusal), true) = (&data.easiur_refusal, need.health_in_objective) {
        return Err(Error::Parameter(vec![format!("Financial health costs: {refusal}")]));
    }
    let per_hour = usize::try_from(steps_per_hour(&document)).unwrap_or(1).max(1);
    if need.co2.is_some() || need.health.contains(&true) || need.clean_fraction.is_some() {
        if let Some(utility) = section_mut(&mut document, "ElectricUtility") {
            fill_grid_series(utility, need, data, per_hour);
        }
    }
    if need.financial_fields.is_empty() {
        return Ok(document);
    }
    let costs = data.easiur.as_ref().map(|costs| serde_json::to_value(costs).unwrap_or(Value::Null));
    if let Some(financial) = section_mut(&mut document, "Financial") {
        for field in &need.financial_fields {
            let value = costs.as_ref().and_then(|costs| costs.get(field)).and_then(Value::as_f64).unwrap_or(0.0);
            financial.insert(field.clone(), Value::from(value));
        }
    }
    Ok(document)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn scenario(utility: Value) -> Value {
        json!({"Site": {"latitude": 39.74, "longitude": -105.17}, "ElectricLoad": {"loads_kw": [1.0], "year": 2021},
               "Settings": {"time_steps_per_hour": 2}, "ElectricUtility": utility, "Financial": {"analysis_years": 20}})
    }

    fn avert(abbr: &str, region: &str) -> AvertProfile {
        AvertProfile {
            avert_region_abbr: abbr.into(),
            avert_region: region.into(),
            avert_meters_to_region: 0.0,
            units: String::new(),
            description: String::new(),
            co2_lb_per_kwh: vec![0.7; 8760],
            nox_lb_per_kwh: vec![5e-4; 8760],
            so2_lb_per_kwh: vec![4e-4; 8760],
            pm25_lb_per_kwh: vec![3e-5; 8760],
            data_source: None,
        }
    }

    fn cambium(value: f64) -> CambiumProfile {
        CambiumProfile { location: "x".into(), metric_col: "m".into(), units: String::new(), description: String::new(), data_series: vec![value; 8760], data_source: None }
    }

    fn easiur() -> EasiurCosts {
        serde_json::from_value(json!({
            "NOx_grid_cost_per_tonne": 1.0, "SO2_grid_cost_per_tonne": 2.0, "PM25_grid_cost_per_tonne": 3.0,
            "NOx_onsite_fuelburn_cost_per_tonne": 4.0, "SO2_onsite_fuelburn_cost_per_tonne": 5.0, "PM25_onsite_fuelburn_cost_per_tonne": 6.0,
            "NOx_cost_escalation_rate_fraction": 0.07, "SO2_cost_escalation_rate_fraction": 0.08, "PM25_cost_escalation_rate_fraction": 0.09}))
        .unwrap()
    }

    #[test]
    fn co2_comes_from_cambium_unless_avert_is_asked_and_health_from_avert() {
        let need = emissions_need(&scenario(json!({}))).unwrap().unwrap();
        let co2 = need.co2.clone().unwrap().unwrap();
        assert_eq!((co2.metric_col.as_str(), co2.lifetime, co2.load_year, co2.start_year), ("lrmer_co2e", 20, 2021, 2025));
        assert_eq!(need.clean_fraction.as_ref().unwrap().metric_col, "cef_load");
        assert_eq!((need.avert.as_ref().unwrap().load_year, need.health), (2021, [true; 3]));
        assert_eq!(need.financial_fields.len(), 9);
        let data = EmissionsData { avert: Some(avert("RM", "Rocky Mountains")), cambium_co2: Some(cambium(0.9)), clean_fraction: Some(cambium(0.3)), easiur: Some(easiur()), easiur_refusal: None };
        let resolved = with_emissions(scenario(json!({})), &need, &data).unwrap();
        let utility = &resolved["ElectricUtility"];
        assert_eq!(utility["emissions_factor_series_lb_CO2_per_kwh"].as_array().unwrap().len(), 17_520, "hourly values repeated to 2 steps an hour");
        assert_eq!((utility["emissions_factor_series_lb_CO2_per_kwh"][1].as_f64(), utility["emissions_factor_CO2_decrease_fraction"].as_f64()), (Some(0.9), Some(0.0)));
        assert_eq!((utility["emissions_factor_series_lb_SO2_per_kwh"][0].as_f64(), utility["renewable_energy_fraction_series"][0].as_f64()), (Some(4e-4), Some(0.3)));
        assert_eq!((resolved["Financial"]["PM25_onsite_fuelburn_cost_per_tonne"].as_f64(), resolved["Financial"]["analysis_years"].as_i64()), (Some(6.0), Some(20)));
        assert_eq!(emissions_need(&resolved).unwrap(), None, "resolved once, nothing more to do");

        let from_avert = json!({"co2_from_avert": true, "emissions_factor_series_lb_NOx_per_kwh": 0.001});
        let need = emissions_need(&scenario(from_avert.clone())).unwrap().unwrap();
        assert_eq!((need.co2.clone(), need.health), (Some(None), [false, true, true]));
        let resolved = with_emissions(scenario(from_avert), &need, &data).unwrap();
        assert_eq!(resolved["ElectricUtility"]["emissions_factor_series_lb_CO2_per_kwh"][0].as_f64(), Some(0.7));
        assert!(resolved["ElectricUtility"].get("emissions_factor_CO2_decrease_fraction").is_none(), "AVERT's CO2 keeps the engine's 0.0459");
        assert_eq!(resolved["ElectricUtility"]["emissions_factor_series_lb_NOx_per_kwh"], json!(0.001), "a given series stays");
    }

    #[test]
    fn alaska_and_hawaii_take_co2_from_avert_and_refusals_give_zeros() {
        let need = emissions_need(&scenario(json!({}))).unwrap().unwrap();
        let hawaii = avert("HIOA", "Hawaii (Oahu)");
        assert_eq!(need.cambium_co2(Some(&hawaii)), None);
        assert!(need.cambium_co2(Some(&avert("RM", "Rocky Mountains"))).is_some());
        let data = EmissionsData { avert: Some(hawaii), ..EmissionsData::default() };
        let resolved = with_emissions(scenario(json!({})), &need, &data).unwrap();
        assert_eq!(resolved["ElectricUtility"]["emissions_factor_series_lb_CO2_per_kwh"][0].as_f64(), Some(0.7));
        assert!(resolved["ElectricUtility"]["renewable_energy_fraction_series"].as_array().unwrap().iter().all(|v| v == &json!(0.0)), "Cambium refused: zeros");
        assert_eq!(resolved["Financial"]["NOx_cost_escalation_rate_fraction"].as_f64(), Some(0.0), "EASIUR refused: zeros");
        let mut health = scenario(json!({}));
        health["Settings"]["include_health_in_objective"] = json!(true);
        let need = emissions_need(&health).unwrap().unwrap();
        let refused = EmissionsData { easiur_refusal: Some("outside the CAMx grid".into()), ..EmissionsData::default() };
        assert!(matches!(with_emissions(health, &need, &refused), Err(Error::Parameter(p)) if p[0].contains("CAMx")));
    }

    #[test]
    fn off_grid_fills_no_grid_series_and_a_named_region_must_be_the_sites() {
        let mut off_grid = scenario(json!({}));
        off_grid["Settings"]["off_grid_flag"] = json!(true);
        let need = emissions_need(&off_grid).unwrap().unwrap();
        assert_eq!((need.avert.clone(), need.co2.clone(), need.clean_fraction.clone(), need.health), (None, None, None, [false; 3]));
        assert_eq!(need.financial_fields.len(), 6, "the on-site costs and escalation rates, not the grid costs");
        let resolved = with_emissions(off_grid, &need, &EmissionsData { easiur: Some(easiur()), ..EmissionsData::default() }).unwrap();
        assert!(resolved["ElectricUtility"].as_object().unwrap().is_empty() && resolved["Financial"].get("NOx_grid_cost_per_tonne").is_none());
        let need = emissions_need(&scenario(json!({"avert_emissions_region": "Texas"}))).unwrap().unwrap();
        let Err(Error::Parameter(problems)) = need.check_region(Some(&avert("RM", "Rocky Mountains"))) else { panic!("accepted") };
        assert!(problems[0].starts_with("ElectricUtility.avert_emissions_region \"Texas\" is not the site's region"), "{problems:?}");
        let mut bare = scenario(json!({}));
        bare["Site"] = json!({});
        assert!(matches!(emissions_need(&bare), Err(Error::Parameter(_))));
    }
}

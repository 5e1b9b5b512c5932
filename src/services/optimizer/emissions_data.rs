//! The optimizer service's grid emissions and health-cost look-ups (`GET …/avert_emissions_profile/`,
//! `…/cambium_profile/`, `…/easiur_costs/`, which the API proxies to its Julia server: REopt_API
//! `reoptjl/views.py` and `julia_src/http.jl`, answering with REopt.jl's `avert_emissions_profiles`,
//! `cambium_profile` and `easiur_data`): their parameters checked all at once (by the client and
//! the embedded service alike), the requests, and the answers read into typed values.
//!
//! Units as the service gives them: emissions factors in lb per kWh, the clean-energy fraction
//! 0 to 1, health costs in US dollars per metric ton, escalation rates as nominal annual
//! fractions. The series are hourly, 8760 values aligned to the weekdays of `load_year`. A site
//! outside the data's coverage is a 400 whose `error` the client raises as `ParameterError`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::services::handle::ServiceHandle;
use crate::services::raw::RawValue;
use crate::transport::{Endpoint, Request};
use crate::spec::routes::OptimizerLookup;

/// The query of an AVERT profile.
#[derive(Debug, Clone, PartialEq)]
pub struct AvertQuery {
    pub latitude: f64,
    pub longitude: f64,
    /// The year whose weekdays the hourly series are shifted to.
    pub load_year: i64,
}

/// The query of a Cambium profile (REopt.jl's `cambium_profile` keywords).
#[derive(Debug, Clone, PartialEq)]
pub struct CambiumQuery {
    pub scenario: String,
    pub location_type: String,
    pub latitude: f64,
    pub longitude: f64,
    /// The first year of the levelization (the system's first year of operation).
    pub start_year: i64,
    /// Years averaged from `start_year`.
    pub lifetime: i64,
    /// `lrmer_co2e` and the other CO2 metrics (lb/kWh), or `cef_load` / `cef_gen` (fraction).
    pub metric_col: String,
    /// `enduse` or `busbar`.
    pub grid_level: String,
    pub load_year: i64,
}

/// The query of the EASIUR health costs.
#[derive(Debug, Clone, PartialEq)]
pub struct EasiurQuery {
    pub latitude: f64,
    pub longitude: f64,
    /// The nominal inflation added to EASIUR's real cost growth (the service passes
    /// `Financial.om_cost_escalation_rate_fraction`).
    pub inflation: f64,
}

/// AVERT's hourly grid emissions factors of one region (the service's answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AvertProfile {
    pub avert_region_abbr: String,
    pub avert_region: String,
    /// How far the site lies outside the region (0 inside it).
    #[serde(default)]
    pub avert_meters_to_region: f64,
    #[serde(default)]
    pub units: String,
    #[serde(default)]
    pub description: String,
    #[serde(rename = "emissions_factor_series_lb_CO2_per_kwh")]
    pub co2_lb_per_kwh: Vec<f64>,
    #[serde(rename = "emissions_factor_series_lb_NOx_per_kwh")]
    pub nox_lb_per_kwh: Vec<f64>,
    #[serde(rename = "emissions_factor_series_lb_SO2_per_kwh")]
    pub so2_lb_per_kwh: Vec<f64>,
    #[serde(rename = "emissions_factor_series_lb_PM25_per_kwh")]
    pub pm25_lb_per_kwh: Vec<f64>,
    /// Where the data comes from when the service says (the embedded service's stand-in does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_source: Option<String>,
}

/// Cambium's levelized hourly CO2 factor (lb/kWh) or clean-energy fraction of one region.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CambiumProfile {
    pub location: String,
    pub metric_col: String,
    #[serde(default)]
    pub units: String,
    #[serde(default)]
    pub description: String,
    pub data_series: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_source: Option<String>,
}

/// EASIUR's health costs of emissions at a site ($/metric ton) and their escalation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[allow(non_snake_case, reason = "the service's field names")]
pub struct EasiurCosts {
    pub NOx_grid_cost_per_tonne: f64,
    pub SO2_grid_cost_per_tonne: f64,
    pub PM25_grid_cost_per_tonne: f64,
    pub NOx_onsite_fuelburn_cost_per_tonne: f64,
    pub SO2_onsite_fuelburn_cost_per_tonne: f64,
    pub PM25_onsite_fuelburn_cost_per_tonne: f64,
    pub NOx_cost_escalation_rate_fraction: f64,
    pub SO2_cost_escalation_rate_fraction: f64,
    pub PM25_cost_escalation_rate_fraction: f64,
    #[serde(default)]
    pub units_costs: String,
    #[serde(default)]
    pub units_escalation: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_source: Option<String>,
}

/// A look-up's parameters by name as the caller gave them, read with every problem collected.
pub struct LookupParams<'a> {
    given: &'a [(&'a str, RawValue)],
    pub problems: Vec<String>,
}

impl<'a> LookupParams<'a> {
    pub fn new(given: &'a [(&'a str, RawValue)]) -> Self {
        LookupParams { given, problems: Vec::new() }
    }

    fn raw(&mut self, name: &str) -> Option<&'a RawValue> {
        let value = self.given.iter().find(|(key, _)| *key == name).map(|(_, value)| value).filter(|value| !value.is_missing());
        if value.is_none() {
            self.problems.push(format!("{name} is required"));
        }
        value
    }

    /// A finite number within [low, high] (0.0 after a problem).
    pub fn number(&mut self, name: &str, low: f64, high: f64) -> f64 {
        let Some(raw) = self.raw(name) else { return 0.0 };
        match raw.as_finite_f64() {
            Some(number) if (low..=high).contains(&number) => number,
            _ => {
                self.problems.push(format!("{name} must be a number from {low} to {high} (got {})", raw.describe()));
                0.0
            }
        }
    }

    /// A whole number within [low, high] (0 after a problem).
    pub fn whole(&mut self, name: &str, low: i64, high: i64) -> i64 {
        let Some(raw) = self.raw(name) else { return 0 };
        match raw.as_whole() {
            Some(number) if (low..=high).contains(&number) => number,
            _ => {
                self.problems.push(format!("{name} must be a whole number from {low} to {high} (got {})", raw.describe()));
                0
            }
        }
    }

    /// Non-empty text.
    pub fn text(&mut self, name: &str) -> String {
        let Some(raw) = self.raw(name) else { return String::new() };
        match raw.as_text().map(str::trim).filter(|text| !text.is_empty()) {
            Some(text) => text.to_owned(),
            None => {
                self.problems.push(format!("{name} must be a non-empty text (got {})", raw.describe()));
                String::new()
            }
        }
    }

    fn finish<T>(self, query: T) -> std::result::Result<T, Vec<String>> {
        if self.problems.is_empty() {
            Ok(query)
        } else {
            Err(self.problems)
        }
    }
}

fn coordinates(params: &mut LookupParams<'_>) -> (f64, f64) {
    (params.number("latitude", -90.0, 90.0), params.number("longitude", -180.0, 180.0))
}

impl AvertQuery {
    pub fn validate(given: &[(&str, RawValue)]) -> std::result::Result<AvertQuery, Vec<String>> {
        let mut params = LookupParams::new(given);
        let (latitude, longitude) = coordinates(&mut params);
        let load_year = params.whole("load_year", 1, 9999);
        params.finish(AvertQuery { latitude, longitude, load_year })
    }

    pub fn query_pairs(&self) -> Vec<(String, String)> {
        pairs(&[("latitude", self.latitude.to_string()), ("longitude", self.longitude.to_string()), ("load_year", self.load_year.to_string())])
    }
}

impl CambiumQuery {
    pub fn validate(given: &[(&str, RawValue)]) -> std::result::Result<CambiumQuery, Vec<String>> {
        let mut params = LookupParams::new(given);
        let scenario = params.text("scenario");
        let location_type = params.text("location_type");
        let (latitude, longitude) = coordinates(&mut params);
        let start_year = params.whole("start_year", 1, 9999);
        let lifetime = params.whole("lifetime", 1, 100);
        let metric_col = params.text("metric_col");
        let grid_level = params.text("grid_level");
        let load_year = params.whole("load_year", 1, 9999);
        params.finish(CambiumQuery { scenario, location_type, latitude, longitude, start_year, lifetime, metric_col, grid_level, load_year })
    }

    pub fn query_pairs(&self) -> Vec<(String, String)> {
        pairs(&[
            ("scenario", self.scenario.clone()),
            ("location_type", self.location_type.clone()),
            ("latitude", self.latitude.to_string()),
            ("longitude", self.longitude.to_string()),
            ("start_year", self.start_year.to_string()),
            ("lifetime", self.lifetime.to_string()),
            ("metric_col", self.metric_col.clone()),
            ("grid_level", self.grid_level.clone()),
            ("load_year", self.load_year.to_string()),
        ])
    }

    /// Whether the metric is an emissions rate (lb/kWh) rather than a fraction, as the service tells.
    pub fn is_emissions_metric(&self) -> bool {
        self.metric_col.contains("co2")
    }
}

impl EasiurQuery {
    pub fn validate(given: &[(&str, RawValue)]) -> std::result::Result<EasiurQuery, Vec<String>> {
        let mut params = LookupParams::new(given);
        let (latitude, longitude) = coordinates(&mut params);
        let inflation = params.number("inflation", -1.0, 1.0);
        params.finish(EasiurQuery { latitude, longitude, inflation })
    }

    pub fn query_pairs(&self) -> Vec<(String, String)> {
        pairs(&[("latitude", self.latitude.to_string()), ("longitude", self.longitude.to_string()), ("inflation", self.inflation.to_string())])
    }
}

fn pairs(items: &[(&str, String)]) -> Vec<(String, String)> {
    items.iter().map(|(name, value)| ((*name).to_owned(), value.clone())).collect()
}

/// The messages of a look-up's 400 body (`{"error": …}`, or the API's `{"Error": …}` and
/// `{"Error. Missing Parameter": …}`), else the body itself.
fn refusal_messages(body: &str) -> Vec<String> {
    let value: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let one_line = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut messages: Vec<String> = ["error", "Error"].iter().filter_map(|key| value.get(*key).and_then(Value::as_str)).map(one_line).collect();
    if let Some(name) = value.get("Error. Missing Parameter").and_then(Value::as_str) {
        messages.push(format!("missing parameter {name}"));
    }
    if messages.is_empty() {
        vec![body.chars().take(300).collect()]
    } else {
        messages
    }
}

/// GETs one look-up and reads its answer; a 400 (a site outside the data, a bad parameter) is a
/// `ParameterError` with the service's message.
async fn lookup<T: for<'de> Deserialize<'de>>(handle: &ServiceHandle, lookup: OptimizerLookup, query: Vec<(String, String)>) -> Result<T> {
    let response = match handle.send(Request::get(Endpoint::OptimizerLookup(lookup), query)).await {
        Ok(response) => response,
        Err(Error::Api(failure)) if failure.status == 400 => return Err(Error::Parameter(refusal_messages(&failure.body))),
        Err(error) => return Err(error),
    };
    serde_json::from_slice(&handle.scrub(&response.body)).map_err(|e| Error::Parse(format!("the {} answer could not be read: {e}", lookup.route())))
}

pub async fn fetch_avert_profile(handle: &ServiceHandle, query: &AvertQuery) -> Result<AvertProfile> {
    lookup(handle, OptimizerLookup::AvertEmissionsProfile, query.query_pairs()).await
}

pub async fn fetch_cambium_profile(handle: &ServiceHandle, query: &CambiumQuery) -> Result<CambiumProfile> {
    lookup(handle, OptimizerLookup::CambiumProfile, query.query_pairs()).await
}

pub async fn fetch_easiur_costs(handle: &ServiceHandle, query: &EasiurQuery) -> Result<EasiurCosts> {
    lookup(handle, OptimizerLookup::EasiurCosts, query.query_pairs()).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_is_named_at_once() {
        let given = [("latitude", RawValue::from(95.0)), ("longitude", RawValue::from("west")), ("inflation", RawValue::Missing)];
        let problems = EasiurQuery::validate(&given).unwrap_err();
        assert_eq!(problems, ["latitude must be a number from -90 to 90 (got 95)", "longitude must be a number from -180 to 180 (got \"west\")", "inflation is required"]);
        let given = [("latitude", RawValue::from("39.7")), ("longitude", RawValue::from(-105.2)), ("load_year", RawValue::from(2017_i64))];
        let query = AvertQuery::validate(&given).unwrap();
        assert_eq!(query.query_pairs(), pairs(&[("latitude", "39.7".into()), ("longitude", "-105.2".into()), ("load_year", "2017".into())]));
    }

    #[test]
    fn a_refusal_reads_the_services_message_on_one_line() {
        let body = r#"{"error": "Could not look up AVERT emissions region within 5 miles from point (1.0, 2.0).\n    Location is likely invalid."}"#;
        assert_eq!(refusal_messages(body), ["Could not look up AVERT emissions region within 5 miles from point (1.0, 2.0). Location is likely invalid."]);
        assert_eq!(refusal_messages(r#"{"Error. Missing Parameter": "load_year"}"#), ["missing parameter load_year"]);
        assert_eq!(refusal_messages("oops"), ["oops"]);
    }
}

//! Loopback stand-ins for the optimizer service's grid emissions and health-cost look-ups
//! (`avert_emissions_profile/`, `cambium_profile/`, `easiur_costs/`), in the live answers' shapes
//! (`services::optimizer::emissions_data`) with **synthetic** numbers: every answer says so in
//! its `data_source` and `description`. No EPA AVERT, NREL Cambium or EASIUR data is copied here;
//! only the region names and abbreviations, the field names, the units and the error messages
//! are the service's (REopt.jl 029db01d `src/core/electric_utility.jl`, `financial.jl`).
//!
//! The region of a site is chosen by a coarse rule of longitude bands and latitude cuts (below,
//! `avert_region`), not by AVERT's boundaries: Alaska and Hawaii by boxes, the contiguous states
//! (24–50° N, 125–66.5° W) by bands. Every number is deterministic in the inputs:
//!
//! - AVERT CO2 (lb/kWh): a regional base of 0.57 to 0.84, plus 0.08·cos(2π(h − 4)/24) (higher
//!   at night) and 0.05·cos(2π(day − 200)/365) (a summer peak), less 0.03 on the weekends of
//!   `load_year` (so the series follow its weekdays as the service aligns them); NOx, SO2 and
//!   PM2.5 are that CO2 times regional ratios (about 6e-4, 5e-4, 4e-5). Rounded to 6 digits as
//!   the service rounds.
//! - Cambium (contiguous states only): the CO2 metrics are 0.95 times the AVERT shape times the
//!   mean over the levelization years of max(0.3, 1 − 0.025·(year − 2025)) (years past 2050 at
//!   2050), 5 % more at `enduse`; the clean-energy fraction is a regional 0.25 to 0.46 grown
//!   0.015 a year (capped at 0.95), with 0.12·sin(π(h − 6)/12) more by day, within [0, 1].
//! - EASIUR (24–50° N, 126–65° W): costs scale with a smooth density proxy p (1 to about 2, high
//!   near the north-east corridor and Los Angeles): grid NOx 14,000·p, SO2 40,000·p, PM2.5
//!   150,000·p $/t; on-site (ground level) 1.15, 1.2 and 2 times those; escalation
//!   0.01 + 0.005·p (NOx), 0.012 (SO2), 0.015 (PM2.5) plus `inflation`.

use std::f64::consts::PI;

use serde_json::json;

use crate::calendar::{days_from_civil, HOURS_PER_YEAR};
use crate::embedded::reply::ServiceReply;
use crate::services::optimizer::emissions_data::{AvertQuery, CambiumQuery, EasiurQuery};
use crate::services::raw::RawValue;
use crate::spec::routes::OptimizerLookup;

/// What the stand-in says about its numbers.
pub const DATA_SOURCE: &str = "sunflux synthetic stand-in (not EPA AVERT, NREL Cambium or EASIUR data)";

/// The AVERT regions as the service names them (abbreviation, name).
pub const AVERT_REGIONS: [(&str, &str); 17] = [
    ("CA", "California"),
    ("CENT", "Central"),
    ("FL", "Florida"),
    ("MIDA", "Mid-Atlantic"),
    ("MIDW", "Midwest"),
    ("NCSC", "Carolinas"),
    ("NE", "New England"),
    ("NW", "Northwest"),
    ("NY", "New York"),
    ("RM", "Rocky Mountains"),
    ("SE", "Southeast"),
    ("SW", "Southwest"),
    ("TN", "Tennessee"),
    ("TE", "Texas"),
    ("AKGD", "Alaska"),
    ("HIMS", "Hawaii (except Oahu)"),
    ("HIOA", "Hawaii (Oahu)"),
];

/// The Cambium scenarios, location types and grid levels the service documents.
const CAMBIUM_SCENARIOS: [&str; 8] = [
    "Mid-case",
    "Low renewable energy cost",
    "High renewable energy cost",
    "High demand growth",
    "Low natural gas prices",
    "High natural gas prices",
    "Mid-case with 95% decarbonization by 2050",
    "Mid-case with 100% decarbonization by 2035",
];
const CAMBIUM_LOCATION_TYPES: [&str; 2] = ["Nations", "GEA Regions 2023"];
const CAMBIUM_GRID_LEVELS: [&str; 2] = ["enduse", "busbar"];
const CAMBIUM_FRACTION_METRICS: [&str; 2] = ["cef_load", "cef_gen"];

fn in_contiguous_states(latitude: f64, longitude: f64) -> bool {
    (24.0..=50.0).contains(&latitude) && (-125.0..=-66.5).contains(&longitude)
}

/// The index in `AVERT_REGIONS` of the stand-in's region of a site (the rule of the header), or
/// None outside Alaska, Hawaii and the contiguous states.
pub fn avert_region(latitude: f64, longitude: f64) -> Option<usize> {
    let abbr = if (51.0..=72.0).contains(&latitude) && (-170.0..=-129.0).contains(&longitude) {
        "AKGD"
    } else if (18.5..=22.5).contains(&latitude) && (-161.0..=-154.0).contains(&longitude) {
        if (21.2..=21.8).contains(&latitude) && (-158.3..=-157.6).contains(&longitude) { "HIOA" } else { "HIMS" }
    } else if !in_contiguous_states(latitude, longitude) {
        return None;
    } else if longitude < -114.0 {
        if latitude >= 42.0 { "NW" } else { "CA" }
    } else if longitude < -103.0 {
        if latitude >= 37.0 { "RM" } else { "SW" }
    } else if longitude < -94.0 {
        if latitude < 36.5 { "TE" } else { "CENT" }
    } else if longitude < -82.0 {
        if latitude >= 37.0 {
            "MIDW"
        } else if latitude >= 34.5 {
            "TN"
        } else if latitude < 31.0 && longitude >= -87.5 {
            "FL"
        } else {
            "SE"
        }
    } else if longitude < -75.0 {
        if latitude < 31.0 {
            "FL"
        } else if latitude < 36.6 {
            "NCSC"
        } else if latitude < 42.0 {
            "MIDA"
        } else {
            "NY"
        }
    } else if latitude >= 41.0 && longitude >= -73.5 {
        "NE"
    } else if latitude >= 40.5 {
        "NY"
    } else {
        "MIDA"
    };
    AVERT_REGIONS.iter().position(|(known, _)| *known == abbr)
}

fn round6(value: f64) -> f64 {
    (value * 1e6).round() / 1e6
}

/// Jan 1's weekday of `year`, 0 = Sunday.
fn first_weekday(year: i64) -> i64 {
    let year = i32::try_from(year).unwrap_or(2017);
    (days_from_civil(year, 1, 1) + 4).rem_euclid(7)
}

/// The synthetic hourly CO2 shape (lb/kWh) of region `region` for the weekdays of `load_year`.
fn co2_shape(region: usize, load_year: i64) -> Vec<f64> {
    let base = 0.57 + 0.03 * (region % 10) as f64;
    let weekday = first_weekday(load_year);
    (0..HOURS_PER_YEAR)
        .map(|hour| {
            let (day, hour_of_day) = (hour / 24, (hour % 24) as f64);
            let weekend = matches!((weekday + day as i64) % 7, 0 | 6);
            let daily = 0.08 * (2.0 * PI * (hour_of_day - 4.0) / 24.0).cos();
            let seasonal = 0.05 * (2.0 * PI * (day as f64 - 200.0) / 365.0).cos();
            base + daily + seasonal - if weekend { 0.03 } else { 0.0 }
        })
        .collect()
}

fn avert_answer(query: &AvertQuery) -> ServiceReply {
    let Some(region) = avert_region(query.latitude, query.longitude) else {
        let message = format!(
            "Could not look up AVERT emissions region within 5 miles from point ({}, {}). Location is likely invalid or well outside continental US, AK, and HI.",
            query.latitude, query.longitude
        );
        return ServiceReply::json(400, &json!({"error": message}));
    };
    let (abbr, name) = AVERT_REGIONS[region];
    let co2 = co2_shape(region, query.load_year);
    let scaled = |ratio: f64| co2.iter().map(|lb| round6(lb * ratio)).collect::<Vec<f64>>();
    let nox = 6e-4 * (1.0 + 0.1 * (region % 5) as f64);
    let so2 = 5e-4 * (1.0 + 0.15 * (region % 4) as f64);
    let pm25 = 4e-5 * (1.0 + 0.1 * (region % 3) as f64);
    ServiceReply::json(
        200,
        &json!({
            "avert_region_abbr": abbr,
            "avert_region": name,
            "units": "Pounds emissions per kWh",
            "description": format!("Synthetic stand-in hourly grid emissions factors for the region, on the weekdays of load year {}.", query.load_year),
            "avert_meters_to_region": 0.0,
            "emissions_factor_series_lb_CO2_per_kwh": scaled(1.0),
            "emissions_factor_series_lb_NOx_per_kwh": scaled(nox),
            "emissions_factor_series_lb_SO2_per_kwh": scaled(so2),
            "emissions_factor_series_lb_PM25_per_kwh": scaled(pm25),
            "data_source": DATA_SOURCE,
        }),
    )
}

/// The mean of `per_year` over the levelization years (years past 2050 count as 2050, before
/// 2025 as 2025).
fn levelized(query: &CambiumQuery, per_year: impl Fn(f64) -> f64) -> f64 {
    let years: Vec<f64> = (0..query.lifetime).map(|i| ((query.start_year + i).clamp(2025, 2050) - 2025) as f64).collect();
    years.iter().map(|&since| per_year(since)).sum::<f64>() / years.len().max(1) as f64
}

fn cambium_problems(query: &CambiumQuery) -> Vec<String> {
    let mut problems = Vec::new();
    let mut choice = |name: &str, value: &str, choices: &[&str]| {
        if !choices.contains(&value) {
            problems.push(format!("{name} must be one of {} (got {value:?})", choices.join(", ")));
        }
    };
    choice("scenario", &query.scenario, &CAMBIUM_SCENARIOS);
    choice("location_type", &query.location_type, &CAMBIUM_LOCATION_TYPES);
    choice("grid_level", &query.grid_level, &CAMBIUM_GRID_LEVELS);
    if !query.is_emissions_metric() && !CAMBIUM_FRACTION_METRICS.contains(&query.metric_col.as_str()) {
        problems.push(format!("metric_col must be a CO2 metric (such as lrmer_co2e) or one of cef_load, cef_gen (got {:?})", query.metric_col));
    }
    problems
}

fn cambium_answer(query: &CambiumQuery) -> ServiceReply {
    let problems = cambium_problems(query);
    if !problems.is_empty() {
        return ServiceReply::json(400, &json!({"error": problems.join("; ")}));
    }
    let region = avert_region(query.latitude, query.longitude).filter(|_| in_contiguous_states(query.latitude, query.longitude));
    let Some(region) = region else {
        let message = format!(
            "Could not look up Cambium {} profile from point ({}, {}). Location is likely outside contiguous US or something went wrong with the Cambium API request.",
            query.metric_col, query.latitude, query.longitude
        );
        return ServiceReply::json(400, &json!({"error": message}));
    };
    let (series, units): (Vec<f64>, &str) = if query.is_emissions_metric() {
        let decline = levelized(query, |since| (1.0 - 0.025 * since).max(0.3));
        let level = if query.grid_level == "enduse" { 1.05 } else { 1.0 };
        (co2_shape(region, query.load_year).iter().map(|lb| round6(0.95 * lb * decline * level)).collect(), "Pounds emissions per kWh")
    } else {
        let base = 0.25 + 0.03 * (region % 8) as f64;
        let grown = levelized(query, |since| (base + 0.015 * since).min(0.95));
        let hourly = (0..HOURS_PER_YEAR).map(|hour| {
            let hour_of_day = (hour % 24) as f64;
            let sun = if (6.0..18.0).contains(&hour_of_day) { 0.12 * (PI * (hour_of_day - 6.0) / 12.0).sin() } else { 0.0 };
            round6((grown + sun).clamp(0.0, 1.0))
        });
        (hourly.collect(), "Fraction of clean energy")
    };
    let location = if query.location_type == "Nations" { "United States (synthetic)".to_owned() } else { format!("{} (synthetic)", AVERT_REGIONS[region].1) };
    ServiceReply::json(
        200,
        &json!({
            "description": format!("Synthetic stand-in levelized hourly {} for the location, on the weekdays of load year {}.", query.metric_col, query.load_year),
            "units": units,
            "location": location,
            "metric_col": query.metric_col,
            "data_series": series,
            "data_source": DATA_SOURCE,
        }),
    )
}

fn easiur_answer(query: &EasiurQuery) -> ServiceReply {
    let (latitude, longitude) = (query.latitude, query.longitude);
    if !((24.0..=50.0).contains(&latitude) && (-126.0..=-65.0).contains(&longitude)) {
        let message = format!("Could not look up EASIUR health cost data from point ({latitude},{longitude}). Location is likely invalid or outside the CAMx grid.");
        return ServiceReply::json(400, &json!({"error": message}));
    }
    let density = 1.0
        + 0.8 * (-((longitude + 76.0).powi(2) / 200.0 + (latitude - 40.0).powi(2) / 50.0)).exp()
        + 0.5 * (-((longitude + 118.0).powi(2) / 20.0 + (latitude - 34.0).powi(2) / 10.0)).exp();
    let cents = |dollars: f64| (dollars * 100.0).round() / 100.0;
    let grid = [14_000.0 * density, 40_000.0 * density, 150_000.0 * density];
    let onsite = [grid[0] * 1.15, grid[1] * 1.2, grid[2] * 2.0];
    let escalation = [0.01 + 0.005 * density, 0.012, 0.015].map(|real| round6(real + query.inflation));
    let mut answer = json!({
        "units_costs": "US dollars per metric ton",
        "description_costs": "Synthetic stand-in health costs of emissions from the grid and on-site fuel burn.",
        "units_escalation": "nominal annual fraction",
        "description_escalation": "Synthetic stand-in annual nominal escalation rate of public health costs of emissions.",
        "data_source": DATA_SOURCE,
    });
    for (i, pollutant) in ["NOx", "SO2", "PM25"].iter().enumerate() {
        answer[format!("{pollutant}_grid_cost_per_tonne")] = json!(cents(grid[i]));
        answer[format!("{pollutant}_onsite_fuelburn_cost_per_tonne")] = json!(cents(onsite[i]));
        answer[format!("{pollutant}_cost_escalation_rate_fraction")] = json!(escalation[i]);
    }
    ServiceReply::json(200, &answer)
}

/// The names each look-up requires, in the API's order.
fn required(lookup: OptimizerLookup) -> &'static [&'static str] {
    match lookup {
        OptimizerLookup::AvertEmissionsProfile => &["latitude", "longitude", "load_year"],
        OptimizerLookup::CambiumProfile => {
            &["scenario", "location_type", "latitude", "longitude", "start_year", "lifetime", "metric_col", "grid_level", "load_year"]
        }
        OptimizerLookup::EasiurCosts => &["latitude", "longitude", "inflation"],
    }
}

/// `GET …/<lookup>/`: the API's `{"Error. Missing Parameter": name}` (400) for the first missing
/// parameter, `{"Error": …}` (400) for values that are not the parameter's type or range, else
/// the stand-in's answer.
pub fn reply(lookup: OptimizerLookup, pairs: &[(String, String)]) -> ServiceReply {
    if let Some(missing) = required(lookup).iter().find(|name| !pairs.iter().any(|(key, _)| key == *name)) {
        return ServiceReply::json(400, &json!({"Error. Missing Parameter": missing}));
    }
    let given: Vec<(&str, RawValue)> = pairs.iter().map(|(key, value)| (key.as_str(), RawValue::from(value.as_str()))).collect();
    let refused = |problems: Vec<String>| ServiceReply::json(400, &json!({"Error": problems.join("; ")}));
    match lookup {
        OptimizerLookup::AvertEmissionsProfile => AvertQuery::validate(&given).map_or_else(refused, |query| avert_answer(&query)),
        OptimizerLookup::CambiumProfile => CambiumQuery::validate(&given).map_or_else(refused, |query| cambium_answer(&query)),
        OptimizerLookup::EasiurCosts => EasiurQuery::validate(&given).map_or_else(refused, |query| easiur_answer(&query)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// A reply's status and body.
    fn answer(lookup: OptimizerLookup, pairs: &[(&str, &str)]) -> (u16, Value) {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        let reply = reply(lookup, &pairs);
        (reply.status, serde_json::from_slice(&reply.body).unwrap_or(Value::Null))
    }


    #[test]
    fn regions_follow_the_documented_rule() {
        let name = |lat: f64, lon: f64| avert_region(lat, lon).map(|i| AVERT_REGIONS[i].0);
        let sites = [
            ((39.74, -105.17), Some("RM")),
            ((34.05, -118.24), Some("CA")),
            ((47.6, -122.3), Some("NW")),
            ((29.76, -95.37), Some("TE")),
            ((41.88, -87.63), Some("MIDW")),
            ((42.36, -71.06), Some("NE")),
            ((40.71, -74.0), Some("NY")),
            ((25.76, -80.19), Some("FL")),
            ((61.2, -149.9), Some("AKGD")),
            ((21.3, -157.85), Some("HIOA")),
            ((19.7, -155.1), Some("HIMS")),
            ((48.86, 2.35), None),
        ];
        for ((lat, lon), expected) in sites {
            assert_eq!(name(lat, lon), expected, "({lat}, {lon})");
        }
    }

    #[test]
    fn avert_series_are_plausible_and_follow_the_load_years_weekdays() {
        let (status, body) = answer(OptimizerLookup::AvertEmissionsProfile, &[("latitude", "39.74"), ("longitude", "-105.17"), ("load_year", "2017")]);
        assert_eq!((status, body["avert_region"].as_str()), (200, Some("Rocky Mountains")));
        let co2: Vec<f64> = serde_json::from_value(body["emissions_factor_series_lb_CO2_per_kwh"].clone()).unwrap();
        assert_eq!(co2.len(), 8760);
        assert!(co2.iter().all(|lb| (0.4..=1.1).contains(lb)), "lb CO2/kWh within a plausible range");
        assert!(co2[4] > co2[16], "higher at night than in the afternoon");
        let nox = body["emissions_factor_series_lb_NOx_per_kwh"][0].as_f64().unwrap();
        assert!((1e-4..1e-3).contains(&nox), "{nox}");
        let (_, shifted) = answer(OptimizerLookup::AvertEmissionsProfile, &[("latitude", "39.74"), ("longitude", "-105.17"), ("load_year", "2018")]);
        let first = |body: &Value| body["emissions_factor_series_lb_CO2_per_kwh"][0].as_f64().unwrap();
        assert!((first(&shifted) - first(&body) - 0.03).abs() < 2e-6, "1 January 2017 is a Sunday (weekend), 2018's a Monday");
        assert_eq!(body["data_source"], DATA_SOURCE);
    }

    #[test]
    fn refusals_are_the_services_shapes() {
        let (status, body) = answer(OptimizerLookup::AvertEmissionsProfile, &[("latitude", "48.86"), ("longitude", "2.35"), ("load_year", "2017")]);
        assert_eq!(status, 400);
        assert!(body["error"].as_str().unwrap().starts_with("Could not look up AVERT emissions region"));
        assert_eq!(answer(OptimizerLookup::EasiurCosts, &[("latitude", "1")]).1, json!({"Error. Missing Parameter": "longitude"}));
        let (status, body) = answer(OptimizerLookup::EasiurCosts, &[("latitude", "1"), ("longitude", "x"), ("inflation", "0.025")]);
        assert_eq!((status, body["Error"].as_str().unwrap()), (400, "longitude must be a number from -180 to 180 (got \"x\")"));
        let cambium = [("scenario", "Mid-case"), ("location_type", "GEA Regions 2023"), ("latitude", "21.3"), ("longitude", "-157.85"), ("start_year", "2025"),
                       ("lifetime", "25"), ("metric_col", "lrmer_co2e"), ("grid_level", "enduse"), ("load_year", "2017")];
        let (status, body) = answer(OptimizerLookup::CambiumProfile, &cambium);
        assert!(status == 400 && body["error"].as_str().unwrap().contains("outside contiguous US"), "Hawaii is not in Cambium: {body}");
    }
}

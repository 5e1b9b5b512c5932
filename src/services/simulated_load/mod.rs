//! The optimizer service's load endpoint (`GET …/simulated_load/`) for electric loads:
//! parameters and their validation (shared by the client and the embedded endpoint), the query
//! string in the service's form, and the answer as a typed value and an Arrow table.
//!
//! Query form (the service's): `latitude`, `longitude`, one `doe_reference_name` or a blend as
//! `doe_reference_name[i]` with `percent_share[i]` (fractions summing to 1), `annual_kwh` or
//! `monthly_totals_kwh[0..11]`, `year`, `time_steps_per_hour`.

pub mod request;

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, TimestampMicrosecondArray};
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};
use serde::Deserialize;

use super::raw::RawValue;
use super::solar::{check_range, NumberRange};
use crate::calendar::{days_from_civil, steps_per_hour_of_year};

/// Commercial reference building types and the flat profiles the service knows.
pub const BUILDING_TYPES: [&str; 22] = [
    "FastFoodRest",
    "FullServiceRest",
    "Hospital",
    "LargeHotel",
    "LargeOffice",
    "MediumOffice",
    "MidriseApartment",
    "Outpatient",
    "PrimarySchool",
    "RetailStore",
    "SecondarySchool",
    "SmallHotel",
    "SmallOffice",
    "StripMall",
    "Supermarket",
    "Warehouse",
    "FlatLoad",
    "FlatLoad_24_5",
    "FlatLoad_16_7",
    "FlatLoad_16_5",
    "FlatLoad_8_7",
    "FlatLoad_8_5",
];

/// The year the service's reference profiles start on (a Sunday) and its default `year`.
pub const REFERENCE_YEAR: i32 = 2017;

pub const LATITUDE: NumberRange = NumberRange { name: "latitude", min: -90.0, max: 90.0 };
pub const LONGITUDE: NumberRange = NumberRange { name: "longitude", min: -180.0, max: 180.0 };

/// The parameters before validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawSimulatedLoad {
    pub latitude: RawValue,
    pub longitude: RawValue,
    /// One name, or several for a blend.
    pub doe_reference_names: Vec<RawValue>,
    /// One share per blended name (empty for one name).
    pub percent_shares: Vec<RawValue>,
    pub annual_kwh: RawValue,
    /// Empty, or 12 values.
    pub monthly_totals_kwh: Vec<RawValue>,
    pub year: RawValue,
    pub time_steps_per_hour: RawValue,
}

/// Energy the profile is scaled to.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadEnergy {
    /// The buildings' own (default) annual energy.
    Default,
    Annual(f64),
    Monthly([f64; 12]),
}

/// Validated parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedLoadQuery {
    pub latitude: f64,
    pub longitude: f64,
    /// (building type, share) pairs; one pair with share 1 for a single building.
    pub buildings: Vec<(String, f64)>,
    pub energy: LoadEnergy,
    pub year: i32,
    pub time_steps_per_hour: usize,
}

impl SimulatedLoadQuery {
    /// The query string the client sends.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        let mut pairs = vec![("latitude".to_owned(), self.latitude.to_string()), ("longitude".to_owned(), self.longitude.to_string())];
        match self.buildings.as_slice() {
            [(name, _)] => pairs.push(("doe_reference_name".to_owned(), name.clone())),
            blend => {
                for (i, (name, share)) in blend.iter().enumerate() {
                    pairs.push((format!("doe_reference_name[{i}]"), name.clone()));
                    pairs.push((format!("percent_share[{i}]"), share.to_string()));
                }
            }
        }
        match &self.energy {
            LoadEnergy::Default => {}
            LoadEnergy::Annual(kwh) => pairs.push(("annual_kwh".to_owned(), kwh.to_string())),
            LoadEnergy::Monthly(months) => {
                pairs.extend(months.iter().enumerate().map(|(i, kwh)| (format!("monthly_totals_kwh[{i}]"), kwh.to_string())));
            }
        }
        pairs.push(("year".to_owned(), self.year.to_string()));
        pairs.push(("time_steps_per_hour".to_owned(), self.time_steps_per_hour.to_string()));
        pairs
    }
}

impl RawSimulatedLoad {
    /// From decoded query pairs (the embedded endpoint). Names outside the service's list are
    /// returned as problems.
    pub fn from_query(pairs: &[(String, String)]) -> (RawSimulatedLoad, Vec<String>) {
        const KNOWN: [&str; 8] =
            ["latitude", "longitude", "doe_reference_name", "percent_share", "annual_kwh", "monthly_totals_kwh", "year", "time_steps_per_hour"];
        let mut problems = Vec::new();
        for (key, _) in pairs {
            let base = key.split('[').next().unwrap_or(key);
            if !KNOWN.contains(&base) && key != "api_key" {
                problems.push(format!("{key} is not a valid input parameter"));
            }
        }
        let get = |name: &str| pairs.iter().rev().find(|(k, _)| k == name).map_or(RawValue::Missing, |(_, v)| RawValue::from(v.as_str()));
        let indexed = |name: &str| -> Vec<RawValue> {
            (0..).map(|i| get(&format!("{name}[{i}]"))).take_while(|v| !v.is_missing()).collect()
        };
        let single = get("doe_reference_name");
        let raw = RawSimulatedLoad {
            latitude: get("latitude"),
            longitude: get("longitude"),
            doe_reference_names: if single.is_missing() { indexed("doe_reference_name") } else { vec![single] },
            percent_shares: indexed("percent_share"),
            annual_kwh: get("annual_kwh"),
            monthly_totals_kwh: indexed("monthly_totals_kwh"),
            year: get("year"),
            time_steps_per_hour: get("time_steps_per_hour"),
        };
        (raw, problems)
    }
}

fn building(raw: &RawValue) -> Result<String, String> {
    match raw.as_text() {
        Some(name) if BUILDING_TYPES.contains(&name) => Ok(name.to_owned()),
        _ => Err(format!("Invalid doe_reference_name - {}. Select from the following: {}", raw.describe(), BUILDING_TYPES.join(", "))),
    }
}

/// Every problem at once, or the validated parameters.
pub fn validate_simulated_load(raw: &RawSimulatedLoad) -> Result<SimulatedLoadQuery, Vec<String>> {
    let mut problems = Vec::new();
    let latitude = check_range(&raw.latitude, LATITUDE).map_err(|p| problems.push(p)).ok();
    let longitude = check_range(&raw.longitude, LONGITUDE).map_err(|p| problems.push(p)).ok();
    let mut buildings = Vec::new();
    match raw.doe_reference_names.as_slice() {
        [] => problems.push("doe_reference_name is required: give a building type, or several with percent_share".into()),
        [one] if raw.percent_shares.is_empty() => match building(one) {
            Ok(name) => buildings.push((name, 1.0)),
            Err(problem) => problems.push(problem),
        },
        names => {
            if names.len() != raw.percent_shares.len() {
                problems.push("The number of percent_share entries does not match that of the number of doe_reference_name entries".into());
            } else {
                let mut shares = Vec::with_capacity(names.len());
                for (name, share) in names.iter().zip(&raw.percent_shares) {
                    let share_value = share.as_finite_f64().filter(|s| (0.0..=1.0).contains(s));
                    if share_value.is_none() {
                        problems.push(format!("percent_share must be fractions between 0 and 1 (got {})", share.describe()));
                    }
                    shares.extend(share_value);
                    match (building(name), share_value) {
                        (Ok(name), Some(share)) => buildings.push((name, share)),
                        (Err(problem), _) => problems.push(problem),
                        (Ok(_), None) => {}
                    }
                }
                let total: f64 = shares.iter().sum();
                if shares.len() == names.len() && (total - 1.0).abs() > 1e-6 {
                    problems.push(format!("percent_share must sum to 1 (got {total})"));
                }
            }
        }
    }
    let energy = match (&raw.annual_kwh, raw.monthly_totals_kwh.as_slice()) {
        (RawValue::Missing, []) => LoadEnergy::Default,
        (annual, []) => match annual.as_finite_f64().filter(|kwh| *kwh >= 1.0) {
            Some(kwh) => LoadEnergy::Annual(kwh),
            None => {
                problems.push(format!("annual_kwh must be a number of at least 1 kWh (got {})", annual.describe()));
                LoadEnergy::Default
            }
        },
        (RawValue::Missing, months) => {
            let values: Option<Vec<f64>> = months.iter().map(|m| m.as_finite_f64().filter(|kwh| *kwh >= 0.0)).collect();
            match values.filter(|v| v.len() == 12).and_then(|v| <[f64; 12]>::try_from(v).ok()) {
                Some(months) => LoadEnergy::Monthly(months),
                None => {
                    problems.push(format!("monthly_totals_kwh must be 12 numbers of at least 0 kWh (got {} values)", months.len()));
                    LoadEnergy::Default
                }
            }
        }
        _ => {
            problems.push("Cannot provide both annual_kwh and monthly_totals_kwh to scale the electric load profile.".into());
            LoadEnergy::Default
        }
    };
    let year = match &raw.year {
        RawValue::Missing => Some(REFERENCE_YEAR),
        year => year.as_whole().and_then(|y| i32::try_from(y).ok()).filter(|y| (1..=9999).contains(y)).or_else(|| {
            problems.push(format!("year must be a whole number between 1 and 9999 (got {})", year.describe()));
            None
        }),
    };
    let time_steps_per_hour = match &raw.time_steps_per_hour {
        RawValue::Missing => Some(1),
        steps => steps.as_whole().filter(|n| [1, 2, 4].contains(n)).and_then(|n| usize::try_from(n).ok()).or_else(|| {
            problems.push(format!("time_steps_per_hour must be 1, 2 or 4 (got {})", steps.describe()));
            None
        }),
    };
    match (latitude, longitude, year, time_steps_per_hour) {
        (Some(latitude), Some(longitude), Some(year), Some(time_steps_per_hour)) if problems.is_empty() => {
            Ok(SimulatedLoadQuery { latitude, longitude, buildings, energy, year, time_steps_per_hour })
        }
        _ => Err(problems),
    }
}

/// The service's answer for an electric load.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SimulatedLoad {
    pub loads_kw: Vec<f64>,
    pub annual_kwh: f64,
    pub min_kw: f64,
    pub mean_kw: f64,
    pub max_kw: f64,
    pub monthly_totals_kwh: Vec<f64>,
    pub monthly_peaks_kw: Vec<f64>,
}

/// Parses an answer body; the load must have 8760 values per step-hour.
pub fn parse_simulated_load(body: &[u8]) -> Result<SimulatedLoad, String> {
    let load: SimulatedLoad = serde_json::from_slice(body).map_err(|e| format!("the simulated_load answer is not the expected JSON: {e}"))?;
    if steps_per_hour_of_year(load.loads_kw.len()).is_none() {
        return Err(format!("the simulated_load answer has {} load values (expected 8760, 17520 or 35040)", load.loads_kw.len()));
    }
    Ok(load)
}

/// `timestamp` (naive local time from 1 January of `year`, one per step) and `load_kw`; the
/// load buffer is moved in, not copied.
pub fn load_batch(loads_kw: Vec<f64>, year: i32) -> Result<RecordBatch, ArrowError> {
    let steps_per_hour = steps_per_hour_of_year(loads_kw.len()).and_then(|steps| i64::try_from(steps).ok()).unwrap_or(1);
    let step_us = 3_600_000_000 / steps_per_hour;
    let start = days_from_civil(year, 1, 1) * 86_400_000_000;
    let stamps: Vec<i64> = (0..i64::try_from(loads_kw.len()).unwrap_or(0)).map(|i| start + i * step_us).collect();
    let fields = vec![
        Field::new("timestamp", DataType::Timestamp(TimeUnit::Microsecond, None), false),
        Field::new("load_kw", DataType::Float64, false),
    ];
    let columns: Vec<ArrayRef> = vec![Arc::new(TimestampMicrosecondArray::from(stamps)), Arc::new(Float64Array::from(loads_kw))];
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawSimulatedLoad {
        RawSimulatedLoad {
            latitude: RawValue::Float(39.7),
            longitude: RawValue::Float(-105.2),
            doe_reference_names: vec![RawValue::from("Hospital")],
            ..RawSimulatedLoad::default()
        }
    }

    #[test]
    fn a_single_building_round_trips_through_the_query() {
        let query = validate_simulated_load(&RawSimulatedLoad { annual_kwh: RawValue::Int(1000), ..raw() }).unwrap();
        assert_eq!(query.buildings, vec![("Hospital".to_owned(), 1.0)]);
        let pairs = query.query_pairs();
        let (again, problems) = RawSimulatedLoad::from_query(&pairs);
        assert!(problems.is_empty());
        assert_eq!(validate_simulated_load(&again).unwrap(), query);
    }

    #[test]
    fn blends_use_indexed_names_and_shares() {
        let blend = RawSimulatedLoad {
            doe_reference_names: vec![RawValue::from("Hospital"), RawValue::from("LargeOffice")],
            percent_shares: vec![RawValue::Float(0.75), RawValue::Float(0.25)],
            monthly_totals_kwh: vec![RawValue::Int(100); 12],
            ..raw()
        };
        let query = validate_simulated_load(&blend).unwrap();
        let pairs = query.query_pairs();
        assert!(pairs.contains(&("percent_share[1]".to_owned(), "0.25".to_owned())));
        assert!(pairs.contains(&("monthly_totals_kwh[11]".to_owned(), "100".to_owned())));
        assert_eq!(validate_simulated_load(&RawSimulatedLoad::from_query(&pairs).0).unwrap(), query);
    }

    #[test]
    fn every_problem_is_reported() {
        let bad = RawSimulatedLoad {
            latitude: RawValue::Float(95.0),
            doe_reference_names: vec![RawValue::from("Castle"), RawValue::from("Hospital")],
            percent_shares: vec![RawValue::Float(0.5)],
            annual_kwh: RawValue::Int(10),
            monthly_totals_kwh: vec![RawValue::Int(1); 12],
            year: RawValue::from("soon"),
            time_steps_per_hour: RawValue::Int(3),
            ..raw()
        };
        let problems = validate_simulated_load(&bad).unwrap_err();
        for needle in ["latitude must be", "percent_share entries", "Cannot provide both", "year must be", "time_steps_per_hour must be"] {
            assert!(problems.iter().any(|p| p.contains(needle)), "{needle} missing from {problems:?}");
        }
        let (_, unknown) = RawSimulatedLoad::from_query(&[("load_type".into(), "cooling".into())]);
        assert_eq!(unknown, vec!["load_type is not a valid input parameter".to_owned()]);
    }
}

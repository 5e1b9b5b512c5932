//! The optimizer service's load endpoint (`GET …/simulated_load/`): parameters and their
//! validation (shared by the client and the embedded endpoint), the query string in the
//! service's form, and the answer as a typed value and an Arrow table.
//!
//! Query form (the service's, REopt.jl `src/core/simulated_load.jl` at 029db01d): `latitude`,
//! `longitude`, `load_type` (`load_types::LoadType`, default electric), one `doe_reference_name`
//! (`industrial_reference_name` for process heat) or a blend as `doe_reference_name[i]` with
//! `percent_share[i]` (fractions summing to 1), the energy in the load type's unit (`annual_kwh`
//! or `monthly_totals_kwh[0..11]`; `annual_mmbtu` or `monthly_mmbtu[0..11]` of boiler fuel;
//! `annual_tonhour` or `monthly_tonhour[0..11]`), the heating loads' `addressable_load_fraction`
//! and `boiler_efficiency`, cooling's `chiller_cop` and `annual_fraction` / `monthly_fraction`,
//! `year`, `time_steps_per_hour` (electric only: the service answers thermal loads hourly).
//! An electric query may name the buildings whose cooling share it wants, `cooling_doe_ref_name`
//! (a blend as `cooling_doe_ref_name[i]` with `cooling_pct_share[i]`): the answer then carries
//! `cooling_defaults` (`answer::CoolingDefaults`).

pub mod answer;
pub mod load_types;
pub mod request;

pub use answer::{load_batch, parse_load_answer, CoolingDefaults, LoadAnswer, SimulatedLoad};
pub use load_types::LoadType;

use super::raw::RawValue;
use super::solar::{check_range, NumberRange};

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
    /// `electric` when missing.
    pub load_type: RawValue,
    /// One name, or several for a blend (industrial names for process heat).
    pub doe_reference_names: Vec<RawValue>,
    /// One share per blended name (empty for one name).
    pub percent_shares: Vec<RawValue>,
    pub annual_kwh: RawValue,
    /// Empty, or 12 values.
    pub monthly_totals_kwh: Vec<RawValue>,
    /// Boiler fuel (MMBtu) of the heating load types.
    pub annual_mmbtu: RawValue,
    pub monthly_mmbtu: Vec<RawValue>,
    pub annual_tonhour: RawValue,
    pub monthly_tonhour: Vec<RawValue>,
    /// Cooling as a fraction of the electric load, for the year or by month.
    pub annual_fraction: RawValue,
    pub monthly_fraction: Vec<RawValue>,
    /// One fraction, or 12 (with `monthly_mmbtu`).
    pub addressable_load_fraction: Vec<RawValue>,
    pub boiler_efficiency: RawValue,
    pub chiller_cop: RawValue,
    pub year: RawValue,
    pub time_steps_per_hour: RawValue,
    /// Electric: the buildings whose cooling share the answer's `cooling_defaults` gives.
    pub cooling_doe_ref_names: Vec<RawValue>,
    /// One share per blended cooling building (empty for one).
    pub cooling_pct_shares: Vec<RawValue>,
}

/// Energy the profile is scaled to, in the load type's unit (kWh, fuel MMBtu or ton-hours).
#[derive(Debug, Clone, PartialEq)]
pub enum LoadEnergy {
    /// The buildings' own (default) annual energy.
    Default,
    Annual(f64),
    Monthly([f64; 12]),
}

/// Cooling given as a fraction of the electric load (the service answers `loads_fraction`).
#[derive(Debug, Clone, PartialEq)]
pub enum CoolingFraction {
    Annual(f64),
    Monthly([f64; 12]),
}

/// Validated parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedLoadQuery {
    pub latitude: f64,
    pub longitude: f64,
    pub load_type: LoadType,
    /// (building type, share) pairs; one pair with share 1 for a single building; empty for a
    /// cooling fraction.
    pub buildings: Vec<(String, f64)>,
    pub energy: LoadEnergy,
    pub cooling_fraction: Option<CoolingFraction>,
    /// Empty (all addressable), one fraction or 12 monthly ones.
    pub addressable_load_fraction: Vec<f64>,
    pub boiler_efficiency: Option<f64>,
    pub chiller_cop: Option<f64>,
    pub year: i32,
    pub time_steps_per_hour: usize,
    /// Electric: (building type, share) pairs of the cooling defaults asked for; empty for none.
    pub cooling_buildings: Vec<(String, f64)>,
}

impl SimulatedLoadQuery {
    /// The query string the client sends (an electric query as before `load_type` existed).
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        let mut pairs = vec![("latitude".to_owned(), self.latitude.to_string()), ("longitude".to_owned(), self.longitude.to_string())];
        if self.load_type != LoadType::Electric {
            pairs.push(("load_type".to_owned(), self.load_type.name().to_owned()));
        }
        push_buildings(&mut pairs, &self.buildings, self.load_type.name_parameter(), "percent_share");
        push_buildings(&mut pairs, &self.cooling_buildings, "cooling_doe_ref_name", "cooling_pct_share");
        let (annual_key, monthly_key) = self.load_type.energy_parameters();
        match &self.energy {
            LoadEnergy::Default => {}
            LoadEnergy::Annual(total) => pairs.push((annual_key.to_owned(), total.to_string())),
            LoadEnergy::Monthly(months) => pairs.extend(months.iter().enumerate().map(|(i, m)| (format!("{monthly_key}[{i}]"), m.to_string()))),
        }
        match &self.cooling_fraction {
            None => {}
            Some(CoolingFraction::Annual(f)) => pairs.push(("annual_fraction".to_owned(), f.to_string())),
            Some(CoolingFraction::Monthly(months)) => {
                pairs.extend(months.iter().enumerate().map(|(i, f)| (format!("monthly_fraction[{i}]"), f.to_string())));
            }
        }
        match self.addressable_load_fraction.as_slice() {
            [] => {}
            [one] => pairs.push(("addressable_load_fraction".to_owned(), one.to_string())),
            months => pairs.extend(months.iter().enumerate().map(|(i, f)| (format!("addressable_load_fraction[{i}]"), f.to_string()))),
        }
        pairs.extend(self.boiler_efficiency.map(|e| ("boiler_efficiency".to_owned(), e.to_string())));
        pairs.extend(self.chiller_cop.map(|cop| ("chiller_cop".to_owned(), cop.to_string())));
        pairs.push(("year".to_owned(), self.year.to_string()));
        if self.load_type == LoadType::Electric {
            pairs.push(("time_steps_per_hour".to_owned(), self.time_steps_per_hour.to_string()));
        }
        pairs
    }
}

/// One building as `name_key`, or a blend as `name_key[i]` with `share_key[i]`.
fn push_buildings(pairs: &mut Vec<(String, String)>, buildings: &[(String, f64)], name_key: &str, share_key: &str) {
    match buildings {
        [] => {}
        [(name, _)] => pairs.push((name_key.to_owned(), name.clone())),
        blend => {
            for (i, (name, share)) in blend.iter().enumerate() {
                pairs.push((format!("{name_key}[{i}]"), name.clone()));
                pairs.push((format!("{share_key}[{i}]"), share.to_string()));
            }
        }
    }
}

impl RawSimulatedLoad {
    /// From decoded query pairs (the embedded endpoint). Names outside the service's list are
    /// returned as problems.
    pub fn from_query(pairs: &[(String, String)]) -> (RawSimulatedLoad, Vec<String>) {
        const KNOWN: [&str; 7] = ["latitude", "longitude", "load_type", "doe_reference_name", "percent_share", "cooling_pct_share", "year"];
        let mut problems = Vec::new();
        for (key, _) in pairs {
            let base = key.split('[').next().unwrap_or(key);
            if !KNOWN.contains(&base) && !load_types::TYPED_PARAMETERS.contains(&base) && key != "api_key" {
                problems.push(format!("{key} is not a valid input parameter"));
            }
        }
        let get = |name: &str| pairs.iter().rev().find(|(k, _)| k == name).map_or(RawValue::Missing, |(_, v)| RawValue::from(v.as_str()));
        let indexed = |name: &str| -> Vec<RawValue> {
            (0..).map(|i| get(&format!("{name}[{i}]"))).take_while(|v| !v.is_missing()).collect()
        };
        let one_or_indexed = |name: &str| {
            let single = get(name);
            if single.is_missing() { indexed(name) } else { vec![single] }
        };
        let load_type = get("load_type");
        let name_key = if load_type.as_text() == Some("process_heat") { "industrial_reference_name" } else { "doe_reference_name" };
        let raw = RawSimulatedLoad {
            latitude: get("latitude"),
            longitude: get("longitude"),
            load_type,
            doe_reference_names: one_or_indexed(name_key),
            percent_shares: indexed("percent_share"),
            annual_kwh: get("annual_kwh"),
            monthly_totals_kwh: indexed("monthly_totals_kwh"),
            annual_mmbtu: get("annual_mmbtu"),
            monthly_mmbtu: indexed("monthly_mmbtu"),
            annual_tonhour: get("annual_tonhour"),
            monthly_tonhour: indexed("monthly_tonhour"),
            annual_fraction: get("annual_fraction"),
            monthly_fraction: indexed("monthly_fraction"),
            addressable_load_fraction: one_or_indexed("addressable_load_fraction"),
            boiler_efficiency: get("boiler_efficiency"),
            chiller_cop: get("chiller_cop"),
            year: get("year"),
            time_steps_per_hour: get("time_steps_per_hour"),
            cooling_doe_ref_names: one_or_indexed("cooling_doe_ref_name"),
            cooling_pct_shares: indexed("cooling_pct_share"),
        };
        (raw, problems)
    }

    /// The given parameters of `TYPED_PARAMETERS`, by the query's name.
    fn given_typed(&self) -> Vec<&'static str> {
        let lists = [
            ("cooling_doe_ref_name", &self.cooling_doe_ref_names),
            ("monthly_totals_kwh", &self.monthly_totals_kwh),
            ("monthly_mmbtu", &self.monthly_mmbtu),
            ("monthly_tonhour", &self.monthly_tonhour),
            ("monthly_fraction", &self.monthly_fraction),
            ("addressable_load_fraction", &self.addressable_load_fraction),
        ];
        let values = [
            ("annual_kwh", &self.annual_kwh),
            ("annual_mmbtu", &self.annual_mmbtu),
            ("annual_tonhour", &self.annual_tonhour),
            ("annual_fraction", &self.annual_fraction),
            ("boiler_efficiency", &self.boiler_efficiency),
            ("chiller_cop", &self.chiller_cop),
            ("time_steps_per_hour", &self.time_steps_per_hour),
        ];
        let mut given: Vec<&'static str> = values.iter().filter(|(_, v)| !v.is_missing()).map(|(name, _)| *name).collect();
        given.extend(lists.iter().filter(|(_, v)| !v.is_empty()).map(|(name, _)| *name));
        given
    }
}

fn building(raw: &RawValue, load_type: LoadType) -> Result<String, String> {
    let names = load_type.reference_names();
    match raw.as_text() {
        Some(name) if names.contains(&name) => Ok(name.to_owned()),
        _ => Err(format!("Invalid {} - {}. Select from the following: {}", load_type.name_parameter(), raw.describe(), names.join(", "))),
    }
}

/// Twelve numbers in `[min, max]`, or a problem naming `name`.
fn twelve(values: &[RawValue], name: &str, min: f64, max: f64) -> Result<[f64; 12], String> {
    let numbers: Option<Vec<f64>> = values.iter().map(|m| m.as_finite_f64().filter(|x| (min..=max).contains(x))).collect();
    numbers.and_then(|v| <[f64; 12]>::try_from(v).ok()).ok_or_else(|| format!("{name} must be 12 numbers between {min} and {max} (got {} values)", values.len()))
}

/// One number in `[min, max]` (exclusive of `min` when `open_min`), or a problem naming `name`.
fn bounded(raw: &RawValue, name: &str, min: f64, max: f64, open_min: bool) -> Result<f64, String> {
    raw.as_finite_f64().filter(|x| (min..=max).contains(x) && !(open_min && *x == min)).ok_or_else(|| {
        let low = if open_min { format!("above {min}") } else { format!("at least {min}") };
        format!("{name} must be a number {low} and at most {max} (got {})", raw.describe())
    })
}

/// The reference buildings and their shares, or problems.
fn buildings(raw: &RawSimulatedLoad, load_type: LoadType, problems: &mut Vec<String>) -> Vec<(String, f64)> {
    if raw.doe_reference_names.is_empty() {
        problems.push(format!("{} is required: give a building type, or several with percent_share", load_type.name_parameter()));
        return Vec::new();
    }
    blend_of(&raw.doe_reference_names, &raw.percent_shares, (load_type.name_parameter(), "percent_share"), load_type, problems)
}

/// `names` with their `shares` (one name may go without), checked under `keys` (the names' and
/// the shares' parameters), or problems.
fn blend_of(names: &[RawValue], raw_shares: &[RawValue], keys: (&str, &str), load_type: LoadType, problems: &mut Vec<String>) -> Vec<(String, f64)> {
    let (name_key, share_key) = keys;
    let mut buildings = Vec::new();
    let named = |raw: &RawValue| building(raw, load_type).map_err(|problem| problem.replacen(load_type.name_parameter(), name_key, 1));
    match names {
        [] => {}
        [one] if raw_shares.is_empty() => match named(one) {
            Ok(name) => buildings.push((name, 1.0)),
            Err(problem) => problems.push(problem),
        },
        names => {
            if names.len() != raw_shares.len() {
                problems.push(format!("The number of {share_key} entries does not match that of the number of {name_key} entries"));
                return buildings;
            }
            let mut shares = Vec::with_capacity(names.len());
            for (name, share) in names.iter().zip(raw_shares) {
                let share_value = share.as_finite_f64().filter(|s| (0.0..=1.0).contains(s));
                if share_value.is_none() {
                    problems.push(format!("{share_key} must be fractions between 0 and 1 (got {})", share.describe()));
                }
                shares.extend(share_value);
                match (named(name), share_value) {
                    (Ok(name), Some(share)) => buildings.push((name, share)),
                    (Err(problem), _) => problems.push(problem),
                    (Ok(_), None) => {}
                }
            }
            let total: f64 = shares.iter().sum();
            if shares.len() == names.len() && (total - 1.0).abs() > 1e-6 {
                problems.push(format!("{share_key} must sum to 1 (got {total})"));
            }
        }
    }
    buildings
}

/// The energy to scale to, in the load type's unit, or problems.
fn energy(raw: &RawSimulatedLoad, load_type: LoadType, problems: &mut Vec<String>) -> LoadEnergy {
    let (annual_key, monthly_key) = load_type.energy_parameters();
    let (annual, monthly, min) = match load_type {
        LoadType::Electric => (&raw.annual_kwh, raw.monthly_totals_kwh.as_slice(), 1.0),
        LoadType::Cooling => (&raw.annual_tonhour, raw.monthly_tonhour.as_slice(), 0.0),
        _ => (&raw.annual_mmbtu, raw.monthly_mmbtu.as_slice(), 0.0),
    };
    let unit = match load_type {
        LoadType::Electric => "kWh",
        LoadType::Cooling => "ton-hours",
        _ => "MMBtu",
    };
    let monthly_energy = |problems: &mut Vec<String>| match twelve(monthly, monthly_key, 0.0, MAX_ENERGY) {
        Ok(months) => LoadEnergy::Monthly(months),
        Err(problem) => {
            problems.push(problem);
            LoadEnergy::Default
        }
    };
    match (annual, monthly) {
        (RawValue::Missing, []) => LoadEnergy::Default,
        // The service's cooling load takes the monthly ton-hours when both are given.
        (_, [_, ..]) if load_type == LoadType::Cooling => monthly_energy(problems),
        (RawValue::Missing, _) => monthly_energy(problems),
        (annual, []) => match annual.as_finite_f64().filter(|total| (min..=MAX_ENERGY).contains(total)) {
            Some(total) => LoadEnergy::Annual(total),
            None => {
                problems.push(format!("{annual_key} must be a number of at least {min} {unit} (got {})", annual.describe()));
                LoadEnergy::Default
            }
        },
        _ => {
            let what = if load_type == LoadType::Electric { "electric load".to_owned() } else { load_type.name().to_owned() };
            problems.push(format!("Cannot provide both {annual_key} and {monthly_key} to scale the {what} profile."));
            LoadEnergy::Default
        }
    }
}

/// The largest energy a query scales to (the scenario schema's bound on annual energy).
const MAX_ENERGY: f64 = 1e10;
/// The largest chiller COP accepted (the scenario schema's bound on ExistingChiller.cop).
const MAX_CHILLER_COP: f64 = 20.0;

/// Every problem at once, or the validated parameters.
pub fn validate_simulated_load(raw: &RawSimulatedLoad) -> Result<SimulatedLoadQuery, Vec<String>> {
    let mut problems = Vec::new();
    let latitude = check_range(&raw.latitude, LATITUDE).map_err(|p| problems.push(p)).ok();
    let longitude = check_range(&raw.longitude, LONGITUDE).map_err(|p| problems.push(p)).ok();
    let load_type = match &raw.load_type {
        RawValue::Missing => LoadType::Electric,
        given => given.as_text().and_then(LoadType::from_name).unwrap_or_else(|| {
            let names: Vec<&str> = LoadType::ALL.iter().map(|t| t.name()).collect();
            problems.push(format!("load_type must be one of {} (got {})", names.join(", "), given.describe()));
            LoadType::Electric
        }),
    };
    for parameter in raw.given_typed() {
        if !load_type.takes(parameter) {
            problems.push(format!("Invalid key {parameter} for load_type={}", load_type.name()));
        }
    }
    let cooling_fraction = if load_type != LoadType::Cooling {
        None
    } else if !raw.annual_fraction.is_missing() {
        bounded(&raw.annual_fraction, "annual_fraction", 0.0, 1.0, false).map_err(|p| problems.push(p)).ok().map(CoolingFraction::Annual)
    } else if !raw.monthly_fraction.is_empty() {
        twelve(&raw.monthly_fraction, "monthly_fraction", 0.0, 1.0).map_err(|p| problems.push(p)).ok().map(CoolingFraction::Monthly)
    } else {
        None
    };
    let fraction_given = !raw.annual_fraction.is_missing() || !raw.monthly_fraction.is_empty();
    // A cooling fraction supersedes the reference building, as in the service.
    if !raw.cooling_pct_shares.is_empty() && raw.cooling_doe_ref_names.is_empty() {
        problems.push("cooling_pct_share needs cooling_doe_ref_name".into());
    }
    let cooling_buildings = if load_type == LoadType::Electric {
        blend_of(&raw.cooling_doe_ref_names, &raw.cooling_pct_shares, ("cooling_doe_ref_name", "cooling_pct_share"), load_type, &mut problems)
    } else {
        Vec::new()
    };
    let buildings = if load_type == LoadType::Cooling && fraction_given {
        Vec::new()
    } else if raw.doe_reference_names.is_empty() && !raw.cooling_doe_ref_names.is_empty() {
        // The service's electric load is then the cooling buildings' own.
        cooling_buildings.clone()
    } else {
        buildings(raw, load_type, &mut problems)
    };
    let energy = energy(raw, load_type, &mut problems);
    if load_type == LoadType::Cooling && !fraction_given && energy == LoadEnergy::Default && raw.given_typed().iter().all(|p| !p.ends_with("_tonhour")) {
        problems.push(
            "Use load_type=electric to get cooling load for buildings with no annual_tonhour or monthly_tonhour input (response.cooling_defaults)".into(),
        );
    }
    let addressable_load_fraction = match raw.addressable_load_fraction.as_slice() {
        [] => Vec::new(),
        [one] => bounded(one, "addressable_load_fraction", 0.0, 1.0, false).map_err(|p| problems.push(p)).map_or_else(|()| Vec::new(), |f| vec![f]),
        months => {
            if raw.monthly_mmbtu.is_empty() {
                problems.push("addressable_load_fraction must be one number, or 12 with monthly_mmbtu".into());
            }
            twelve(months, "addressable_load_fraction", 0.0, 1.0).map_err(|p| problems.push(p)).map_or_else(|()| Vec::new(), |f| f.to_vec())
        }
    };
    let boiler_efficiency = (!raw.boiler_efficiency.is_missing())
        .then(|| bounded(&raw.boiler_efficiency, "boiler_efficiency", 0.0, 1.0, true).map_err(|p| problems.push(p)).ok())
        .flatten();
    let chiller_cop = (!raw.chiller_cop.is_missing())
        .then(|| bounded(&raw.chiller_cop, "chiller_cop", 0.0, MAX_CHILLER_COP, true).map_err(|p| problems.push(p)).ok())
        .flatten();
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
        (Some(latitude), Some(longitude), Some(year), Some(time_steps_per_hour)) if problems.is_empty() => Ok(SimulatedLoadQuery {
            latitude,
            longitude,
            load_type,
            buildings,
            energy,
            cooling_fraction,
            addressable_load_fraction,
            boiler_efficiency,
            chiller_cop,
            year,
            time_steps_per_hour,
            cooling_buildings,
        }),
        _ => Err(problems),
    }
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
        let (_, unknown) = RawSimulatedLoad::from_query(&[("cooling_ref_name".into(), "Hospital".into())]);
        assert_eq!(unknown, vec!["cooling_ref_name is not a valid input parameter".to_owned()]);
    }

    #[test]
    fn heating_queries_name_their_fuel_energy_and_round_trip() {
        let heating = RawSimulatedLoad {
            load_type: RawValue::from("space_heating"),
            monthly_mmbtu: vec![RawValue::Int(10); 12],
            addressable_load_fraction: vec![RawValue::Float(0.9); 12],
            boiler_efficiency: RawValue::Float(0.8),
            ..raw()
        };
        let query = validate_simulated_load(&heating).unwrap();
        assert_eq!((query.load_type, &query.energy, query.boiler_efficiency), (LoadType::SpaceHeating, &LoadEnergy::Monthly([10.0; 12]), Some(0.8)));
        let pairs = query.query_pairs();
        for pair in [("load_type", "space_heating"), ("monthly_mmbtu[11]", "10"), ("addressable_load_fraction[0]", "0.9"), ("doe_reference_name", "Hospital")] {
            assert!(pairs.contains(&(pair.0.to_owned(), pair.1.to_owned())), "{pair:?} missing from {pairs:?}");
        }
        assert!(!pairs.iter().any(|(k, _)| k == "time_steps_per_hour"), "thermal loads are hourly");
        assert_eq!(validate_simulated_load(&RawSimulatedLoad::from_query(&pairs).0).unwrap(), query);
        let process = RawSimulatedLoad { load_type: RawValue::from("process_heat"), doe_reference_names: vec![RawValue::from("Chemical")], annual_mmbtu: RawValue::Int(5000), ..raw() };
        let pairs = validate_simulated_load(&process).unwrap().query_pairs();
        assert!(pairs.contains(&("industrial_reference_name".to_owned(), "Chemical".to_owned())));
        assert_eq!(validate_simulated_load(&RawSimulatedLoad::from_query(&pairs).0).unwrap().buildings, [("Chemical".to_owned(), 1.0)]);
    }

    #[test]
    fn each_load_type_refuses_the_others_parameters_by_name() {
        let mixed = RawSimulatedLoad {
            load_type: RawValue::from("heating"),
            annual_kwh: RawValue::Int(1000),
            annual_tonhour: RawValue::Int(5),
            annual_mmbtu: RawValue::Int(100),
            monthly_mmbtu: vec![RawValue::Int(1); 12],
            addressable_load_fraction: vec![RawValue::Float(1.5)],
            boiler_efficiency: RawValue::Float(0.0),
            time_steps_per_hour: RawValue::Int(2),
            ..raw()
        };
        let problems = validate_simulated_load(&mixed).unwrap_err();
        for needle in [
            "Invalid key annual_kwh for load_type=heating",
            "Invalid key annual_tonhour for load_type=heating",
            "Invalid key time_steps_per_hour for load_type=heating",
            "Cannot provide both annual_mmbtu and monthly_mmbtu",
            "addressable_load_fraction must be a number",
            "boiler_efficiency must be a number above 0",
        ] {
            assert!(problems.iter().any(|p| p.contains(needle)), "{needle} missing from {problems:?}");
        }
        let electric = RawSimulatedLoad { annual_mmbtu: RawValue::Int(1), chiller_cop: RawValue::Int(3), ..raw() };
        assert_eq!(validate_simulated_load(&electric).unwrap_err(), ["Invalid key annual_mmbtu for load_type=electric", "Invalid key chiller_cop for load_type=electric"]);
        let process = RawSimulatedLoad { load_type: RawValue::from("process_heat"), ..raw() };
        assert!(validate_simulated_load(&process).unwrap_err()[0].starts_with("Invalid industrial_reference_name - \"Hospital\""));
        let unknown = RawSimulatedLoad { load_type: RawValue::from("steam"), ..raw() };
        assert!(validate_simulated_load(&unknown).unwrap_err()[0].starts_with("load_type must be one of electric, heating, cooling"));
    }

    #[test]
    fn electric_queries_name_cooling_buildings_and_blends_round_trip() {
        let single = RawSimulatedLoad { doe_reference_names: Vec::new(), cooling_doe_ref_names: vec![RawValue::from("Hospital")], ..raw() };
        let query = validate_simulated_load(&single).unwrap();
        assert_eq!((&query.buildings, &query.cooling_buildings), (&vec![("Hospital".to_owned(), 1.0)], &vec![("Hospital".to_owned(), 1.0)]), "the electric load falls back to it");
        assert!(query.query_pairs().contains(&("cooling_doe_ref_name".to_owned(), "Hospital".to_owned())));
        let blend = RawSimulatedLoad {
            cooling_doe_ref_names: vec![RawValue::from("LargeOffice"), RawValue::from("Hospital")],
            cooling_pct_shares: vec![RawValue::Float(0.25), RawValue::Float(0.75)],
            ..raw()
        };
        let query = validate_simulated_load(&blend).unwrap();
        assert_eq!(query.cooling_buildings, vec![("LargeOffice".to_owned(), 0.25), ("Hospital".to_owned(), 0.75)]);
        let pairs = query.query_pairs();
        assert!(pairs.contains(&("cooling_pct_share[1]".to_owned(), "0.75".to_owned())) && pairs.contains(&("doe_reference_name".to_owned(), "Hospital".to_owned())));
        assert_eq!(validate_simulated_load(&RawSimulatedLoad::from_query(&pairs).0).unwrap(), query);
        let bad = RawSimulatedLoad {
            cooling_doe_ref_names: vec![RawValue::from("Castle"), RawValue::from("Hospital")],
            cooling_pct_shares: vec![RawValue::Float(0.5), RawValue::Float(0.6)],
            ..raw()
        };
        let problems = validate_simulated_load(&bad).unwrap_err();
        assert!(problems[0].starts_with("Invalid cooling_doe_ref_name - \"Castle\""), "{problems:?}");
        assert!(problems.iter().any(|p| p.starts_with("cooling_pct_share must sum to 1")), "{problems:?}");
        let heating = RawSimulatedLoad { load_type: RawValue::from("space_heating"), cooling_doe_ref_names: vec![RawValue::from("Hospital")], ..raw() };
        assert_eq!(validate_simulated_load(&heating).unwrap_err(), ["Invalid key cooling_doe_ref_name for load_type=space_heating"]);
        let orphan = RawSimulatedLoad { cooling_pct_shares: vec![RawValue::Float(1.0)], ..raw() };
        assert_eq!(validate_simulated_load(&orphan).unwrap_err(), ["cooling_pct_share needs cooling_doe_ref_name"]);
    }

    #[test]
    fn an_electric_answer_to_cooling_buildings_carries_its_cooling_defaults_per_step() {
        let query = validate_simulated_load(&RawSimulatedLoad {
            cooling_doe_ref_names: vec![RawValue::from("Hospital")],
            time_steps_per_hour: RawValue::Int(2),
            ..raw()
        })
        .unwrap();
        let hours = |value: f64| vec![value; 8760];
        let answer = serde_json::json!({
            "loads_kw": vec![100.0; 17520], "annual_kwh": 876_000.0, "max_kw": 100.0,
            "cooling_defaults": {"loads_ton": vec![4.0; 17520], "annual_tonhour": 35040.0, "chiller_cop": 4.4, "min_ton": 4.0, "mean_ton": 4.0,
                                 "max_ton": 4.0, "fraction_of_total_electric_profile": hours(0.03)},
        });
        let parsed = parse_load_answer(answer.to_string().as_bytes(), &query).unwrap();
        let names: Vec<&str> = parsed.columns.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["load_kw", "cooling_load_ton", "cooling_fraction_of_total_electric", "cooling_chiller_cop"]);
        assert!(parsed.columns.iter().all(|(_, series)| series.len() == 17520), "hourly shares repeated to the electric steps");
        let defaults = parsed.cooling_defaults.unwrap();
        assert_eq!((defaults.chiller_cop, defaults.fraction_of_total_electric_profile.len()), (4.4, 8760));
        let empty = serde_json::json!({"loads_kw": vec![1.0; 17520], "annual_kwh": 8760.0, "max_kw": 1.0, "cooling_defaults": {}});
        assert!(parse_load_answer(empty.to_string().as_bytes(), &query).unwrap_err().contains("cooling_defaults"));
    }

    #[test]
    fn cooling_needs_ton_hours_or_a_fraction() {
        let cooling = RawSimulatedLoad { load_type: RawValue::from("cooling"), ..raw() };
        assert!(validate_simulated_load(&cooling).unwrap_err()[0].starts_with("Use load_type=electric to get cooling load"));
        let both = RawSimulatedLoad { annual_tonhour: RawValue::Int(500), monthly_tonhour: vec![RawValue::Int(10); 12], chiller_cop: RawValue::Float(4.5), ..cooling.clone() };
        let query = validate_simulated_load(&both).unwrap();
        assert_eq!((&query.energy, query.chiller_cop), (&LoadEnergy::Monthly([10.0; 12]), Some(4.5)), "monthly ton-hours win, as in the service");
        let fraction = RawSimulatedLoad { doe_reference_names: Vec::new(), annual_fraction: RawValue::Float(0.3), ..cooling };
        let query = validate_simulated_load(&fraction).unwrap();
        assert_eq!((query.buildings.len(), &query.cooling_fraction), (0, &Some(CoolingFraction::Annual(0.3))));
        assert!(query.query_pairs().contains(&("annual_fraction".to_owned(), "0.3".to_owned())));
    }

    #[test]
    fn answers_are_read_under_their_units_column_names() {
        let hours = vec![0.5; 8760];
        let query = |load_type: &str| {
            validate_simulated_load(&RawSimulatedLoad { load_type: RawValue::from(load_type), annual_tonhour: if load_type == "cooling" { RawValue::Int(1) } else { RawValue::Missing }, ..raw() }).unwrap()
        };
        let heating = serde_json::json!({"loads_mmbtu_per_hour": hours, "annual_mmbtu": 4380.0, "max_mmbtu_per_hour": 0.5,
                                         "space_loads_mmbtu_per_hour": hours, "dhw_loads_mmbtu_per_hour": hours});
        let answer = parse_load_answer(heating.to_string().as_bytes(), &query("heating")).unwrap();
        let names: Vec<&str> = answer.columns.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!((names, answer.unit, answer.annual), (vec!["load_mmbtu_per_hour", "space_load_mmbtu_per_hour", "dhw_load_mmbtu_per_hour"], "mmbtu_per_hour", 4380.0));
        let cooling = serde_json::json!({"loads_ton": hours, "annual_tonhour": 4380.0, "max_ton": 0.5});
        let answer = parse_load_answer(cooling.to_string().as_bytes(), &query("cooling")).unwrap();
        let batch = load_batch(answer.columns, 2017).unwrap();
        assert_eq!((batch.num_rows(), batch.schema().field(1).name().as_str()), (8760, "load_ton"));
        let short = serde_json::json!({"loads_ton": [1.0, 2.0], "annual_tonhour": 3.0, "max_ton": 2.0});
        assert!(parse_load_answer(short.to_string().as_bytes(), &query("cooling")).unwrap_err().contains("2 loads_ton values"));
        assert!(parse_load_answer(b"{}", &query("space_heating")).unwrap_err().contains("no loads_mmbtu_per_hour"));
    }
}

//! PV estimator v8 (the live service's current estimator, `spec::routes::Endpoint::PvEstimatorV8`): its parameters and
//! their validation, shared by the client, the embedded endpoint and the local engine's v8
//! simulations. The system ranges are v6's except the ground coverage ratio, and the v8 options'
//! ranges live in `pvwatts::v8::params`; answers parse with `super::parse_estimate` into
//! the same `PvEstimate` (v8's hourly `alb` becomes an extra column).
//!
//! Differences from v6, as the service documents them: `dataset` is `nsrdb` (the satellite
//! data set, the spec's `satdb`; the default), `tmy2`, `tmy3` or `intl`; `file_id` is a station id
//! from dataset query v2; `albedo` is one value or twelve monthly values and `soiling` twelve
//! monthly values, written `a|b|c` in a query.

use super::{
    callback, check_format, checked_system_with, location, validate_timeframe, Location, LocationRules, RawEstimate, RawSystem,
    Timeframe,
};
use crate::services::raw::RawValue;
use crate::services::solar::Dataset;
use crate::formats::Format;
use crate::pvwatts::v8::params::validate_v8_system;
use crate::pvwatts::v8::{validate_v8_options, RawV8Options, V8Options, V8Params};

/// Separator of list values in a query (`soiling=12|4|45|…`).
pub const LIST_SEPARATOR: char = '|';

/// v8's name of a dataset (`nsrdb` for the satellite data set).
pub fn v8_dataset_code(dataset: Dataset) -> &'static str {
    match dataset {
        Dataset::Satdb => "nsrdb",
        other => other.code(),
    }
}

fn v8_dataset(code: &str) -> Option<Dataset> {
    match code {
        "nsrdb" => Some(Dataset::Satdb),
        "satdb" => None,
        other => Dataset::from_code(other),
    }
}

/// v8's: dataset query v2 ids, and `nsrdb` for the NSRDB.
const V8_LOCATION: LocationRules = LocationRules { file_id_problem: v8_file_id_problem, dataset: v8_dataset, dataset_names: "nsrdb, tmy2, tmy3, intl" };

/// The v8 options as a caller gave them, before validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawV8Inputs {
    pub bifaciality: RawValue,
    pub albedo: RawValue,
    pub use_wf_albedo: RawValue,
    pub soiling: RawValue,
    pub en_snowloss: RawValue,
}

impl RawV8Inputs {
    /// From decoded query pairs; the last repeated name wins.
    pub fn from_query(pairs: &[(String, String)]) -> Self {
        let get = |name: &str| {
            pairs.iter().rev().find(|(key, _)| key == name).map_or(RawValue::Missing, |(_, value)| RawValue::from(value.as_str()))
        };
        RawV8Inputs {
            bifaciality: get("bifaciality"),
            albedo: get("albedo"),
            use_wf_albedo: get("use_wf_albedo"),
            soiling: get("soiling"),
            en_snowloss: get("en_snowloss"),
        }
    }
}

/// A list of numbers given as one number or as `a|b|c`; every entry that is not a number is
/// reported.
fn number_list(value: &RawValue, name: &str, what: &str, problems: &mut Vec<String>) -> Option<Vec<f64>> {
    let entries: Vec<RawValue> = match value {
        RawValue::Missing => return None,
        RawValue::Text(text) => text.split(LIST_SEPARATOR).map(|entry| RawValue::from(entry.trim())).collect(),
        RawValue::Int(_) | RawValue::Float(_) => vec![value.clone()],
        RawValue::Bool(_) => {
            problems.push(format!("{name} must be {what} (got {})", value.describe()));
            return None;
        }
    };
    let mut numbers = Vec::with_capacity(entries.len());
    let mut bad = Vec::new();
    for (position, entry) in entries.iter().enumerate() {
        match entry.as_finite_f64() {
            Some(number) => numbers.push(number),
            None => bad.push(format!("{} at position {position}", entry.describe())),
        }
    }
    if bad.is_empty() {
        Some(numbers)
    } else {
        problems.push(format!("{name} must be {what}: not a number: {}", bad.join(", ")));
        None
    }
}

/// A 0/1 switch (also `true`/`false`).
fn switch(value: &RawValue, name: &str, problems: &mut Vec<String>) -> Option<bool> {
    let flag = match value {
        RawValue::Missing => return None,
        RawValue::Bool(flag) => Some(*flag),
        RawValue::Int(0) => Some(false),
        RawValue::Int(1) => Some(true),
        RawValue::Text(text) => match text.trim().to_ascii_lowercase().as_str() {
            "0" | "false" => Some(false),
            "1" | "true" => Some(true),
            _ => None,
        },
        RawValue::Int(_) | RawValue::Float(_) => None,
    };
    if flag.is_none() {
        problems.push(format!("{name} must be 0 or 1 (got {})", value.describe()));
    }
    flag
}

/// Checks the v8 options: types here, ranges in `pvwatts::v8::validate_v8_options`.
fn checked_options(raw: &RawV8Inputs, problems: &mut Vec<String>) -> Option<V8Options> {
    let before = problems.len();
    let bifaciality = match &raw.bifaciality {
        RawValue::Missing => None,
        value => value.as_finite_f64().or_else(|| {
            problems.push(format!("bifaciality must be a number between 0 and 1 (got {})", value.describe()));
            None
        }),
    };
    let typed = RawV8Options {
        bifaciality,
        albedo: number_list(&raw.albedo, "albedo", "one number or 12 monthly numbers separated by |", problems),
        use_wf_albedo: switch(&raw.use_wf_albedo, "use_wf_albedo", problems),
        soiling: number_list(&raw.soiling, "soiling", "12 monthly numbers in % separated by |", problems),
        en_snowloss: switch(&raw.en_snowloss, "en_snowloss", problems),
    };
    let typed_ok = problems.len() == before;
    match validate_v8_options(&typed) {
        Ok(options) if typed_ok => Some(options),
        Ok(_) => None,
        Err(range_problems) => {
            problems.extend(range_problems);
            None
        }
    }
}

/// Validates the inputs of a local v8 simulation: the system (v8's ranges) and the v8 options,
/// every problem at once.
pub fn validate_v8_simulation(system: &RawSystem, options: &RawV8Inputs) -> Result<V8Params, Vec<String>> {
    let mut problems = Vec::new();
    let system = checked_system_with(system, &mut problems, validate_v8_system);
    let options = checked_options(options, &mut problems);
    match (system, options) {
        (Some(system), Some(options)) if problems.is_empty() => Ok(V8Params { system, options }),
        _ => Err(problems),
    }
}

/// The v8 estimator's parameters before validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawEstimateV8 {
    /// The parameters v8 shares with v6 (their meaning differs for `dataset` and `file_id`).
    pub base: RawEstimate,
    pub options: RawV8Inputs,
}

impl RawEstimateV8 {
    /// From decoded query pairs (the embedded endpoint); the last repeated name wins.
    pub fn from_query(pairs: &[(String, String)], format: Format) -> Self {
        RawEstimateV8 { base: RawEstimate::from_query(pairs, format), options: RawV8Inputs::from_query(pairs) }
    }
}

/// Validated v8 estimator parameters. `Location::Coordinates` carries `Dataset::Satdb` for v8's
/// `nsrdb`.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimateParamsV8 {
    pub params: V8Params,
    pub location: Location,
    pub timeframe: Timeframe,
    pub format: Format,
    pub callback: Option<String>,
}

/// A number as written in a query (shortest text that reads back the same value).
fn number_text(value: f64) -> String {
    value.to_string()
}

fn list_text(values: &[f64]) -> String {
    values.iter().map(|v| number_text(*v)).collect::<Vec<_>>().join(&LIST_SEPARATOR.to_string())
}

impl EstimateParamsV8 {
    /// The query string the client sends (and the service echoes in `inputs`). Options are sent
    /// only when they differ from the service's defaults, except `use_wf_albedo`, which is always
    /// sent so that the service reads the albedo the way this client documents.
    pub fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let s = &self.params.system;
        let o = &self.params.options;
        let mut pairs = vec![
            ("system_capacity", number_text(s.system_capacity)),
            ("module_type", s.module_type.code().to_string()),
            ("losses", number_text(s.losses)),
            ("array_type", s.array_type.code().to_string()),
            ("tilt", number_text(s.tilt)),
            ("azimuth", number_text(s.azimuth)),
        ];
        match &self.location {
            Location::Coordinates { lat, lon, dataset, radius_miles } => {
                pairs.push(("lat", number_text(*lat)));
                pairs.push(("lon", number_text(*lon)));
                pairs.push(("dataset", v8_dataset_code(*dataset).to_owned()));
                pairs.push(("radius", radius_miles.to_string()));
            }
            Location::FileId(id) => pairs.push(("file_id", id.clone())),
        }
        pairs.push(("timeframe", self.timeframe.as_str().to_owned()));
        pairs.push(("dc_ac_ratio", number_text(s.dc_ac_ratio)));
        pairs.push(("gcr", number_text(s.gcr)));
        pairs.push(("inv_eff", number_text(s.inv_eff)));
        if o.bifaciality > 0.0 {
            pairs.push(("bifaciality", number_text(o.bifaciality)));
        }
        if let Some(albedo) = &o.albedo {
            pairs.push(("albedo", list_text(albedo.values())));
        }
        pairs.push(("use_wf_albedo", if o.use_weather_albedo { "1" } else { "0" }.to_owned()));
        if let Some(soiling) = &o.soiling {
            pairs.push(("soiling", list_text(soiling)));
        }
        if o.snow_loss {
            pairs.push(("en_snowloss", "1".to_owned()));
        }
        if let Some(callback) = &self.callback {
            pairs.push(("callback", callback.clone()));
        }
        pairs
    }
}

/// Checks every rule of the v8 estimator and reports every problem at once, each starting with
/// the parameter's name.
pub fn validate_estimate_v8(raw: &RawEstimateV8) -> Result<EstimateParamsV8, Vec<String>> {
    let mut problems = Vec::new();
    let system = checked_system_with(&raw.base.system, &mut problems, validate_v8_system);
    let options = checked_options(&raw.options, &mut problems);
    let location = location(&raw.base, &V8_LOCATION, &mut problems);
    let timeframe = validate_timeframe(&raw.base.timeframe).map_err(|problem| problems.push(problem)).ok();
    let format = check_format(&raw.base.format, &mut problems);
    let callback = callback(&raw.base.callback, format, &mut problems);
    match (system, options, location, timeframe, format) {
        (Some(system), Some(options), Some(location), Some(timeframe), Some(format)) if problems.is_empty() => {
            Ok(EstimateParamsV8 { params: V8Params { system, options }, location, timeframe, format, callback })
        }
        _ => Err(problems),
    }
}

/// Why `id` cannot be v8's `file_id`, if it cannot: it must be a dataset query v2 station id
/// (`<dataset digit>-<station>`).
pub fn v8_file_id_problem(id: &str) -> Option<String> {
    (Dataset::from_id(id).is_none() || id.len() < 3).then(|| {
        format!("file_id must be a station id returned by dataset query v2, such as 3-G-0149190 (got {id:?})")
    })
}

/// Why a dataset query v1 id cannot be v8's `file_id` (the embedded catalog tells v1 and v2 ids
/// apart).
pub fn v1_file_id_problem(id: &str) -> String {
    format!(
        "file_id {id} comes from dataset query v1, but the v8 estimator takes ids from dataset query v2: \
         call data_query(..., version=\"v2\") and pass that station or its id"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(pairs: &[(&str, &str)]) -> RawEstimateV8 {
        let owned: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        RawEstimateV8::from_query(&owned, Format::Json)
    }

    const BASE: [(&str, &str); 8] = [
        ("system_capacity", "4"),
        ("module_type", "0"),
        ("losses", "14"),
        ("array_type", "1"),
        ("tilt", "10"),
        ("azimuth", "180"),
        ("lat", "40"),
        ("lon", "-105"),
    ];

    #[test]
    fn the_documented_example_round_trips_through_query_pairs() {
        use crate::pvwatts::v8::AlbedoInput;
        let mut pairs = BASE.to_vec();
        pairs.extend([("soiling", "12|4|45|23|9|99|67|12.54|54|9|0|7.6"), ("albedo", "0.3"), ("bifaciality", "0.7"), ("radius", "0")]);
        let params = validate_estimate_v8(&raw(&pairs)).unwrap();
        assert_eq!(params.location, Location::Coordinates { lat: 40.0, lon: -105.0, dataset: Dataset::Satdb, radius_miles: 0 });
        let options = &params.params.options;
        assert_eq!(options.soiling.unwrap()[7], 12.54);
        assert_eq!(options.albedo, Some(AlbedoInput::Constant(0.3)));
        assert!(!options.use_weather_albedo);
        let sent: Vec<(String, String)> = params.query_pairs().into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        assert!(sent.contains(&("dataset".into(), "nsrdb".into())));
        assert!(sent.contains(&("soiling".into(), "12|4|45|23|9|99|67|12.54|54|9|0|7.6".into())));
        assert_eq!(validate_estimate_v8(&RawEstimateV8::from_query(&sent, Format::Json)).unwrap(), params);
    }

    #[test]
    fn every_problem_is_reported_with_its_name() {
        let mut pairs = BASE.to_vec();
        pairs.extend([
            ("gcr", "0.995"),
            ("bifaciality", "abc"),
            ("albedo", "0.2|1.2"),
            ("soiling", "1|2|x"),
            ("use_wf_albedo", "2"),
            ("en_snowloss", "yes"),
            ("dataset", "satdb"),
        ]);
        let problems = validate_estimate_v8(&raw(&pairs)).unwrap_err();
        for name in ["gcr", "bifaciality", "albedo", "soiling", "use_wf_albedo", "en_snowloss", "dataset"] {
            assert!(problems.iter().any(|p| p.starts_with(name)), "{name} missing in {problems:#?}");
        }
        assert!(problems.iter().any(|p| p.contains("\"x\" at position 2")), "{problems:#?}");
    }

    #[test]
    fn file_ids_of_dataset_query_v2_are_accepted() {
        let file: Vec<(&str, &str)> = BASE[..6].iter().copied().chain([("file_id", "3-G-0149190")]).collect();
        assert_eq!(validate_estimate_v8(&raw(&file)).unwrap().location, Location::FileId("3-G-0149190".into()));
        let bad: Vec<(&str, &str)> = BASE[..6].iter().copied().chain([("file_id", "W10502N4001.csv")]).collect();
        assert!(validate_estimate_v8(&raw(&bad)).unwrap_err()[0].contains("dataset query v2"));
    }

    #[test]
    fn local_simulations_use_v8_ranges() {
        let system = RawSystem {
            system_capacity: 4.0.into(),
            module_type: 0i64.into(),
            losses: 14.0.into(),
            array_type: 2i64.into(),
            tilt: 0.0.into(),
            azimuth: 180.0.into(),
            gcr: 2.0.into(),
            ..RawSystem::default()
        };
        let problems = validate_v8_simulation(&system, &RawV8Inputs { en_snowloss: true.into(), ..RawV8Inputs::default() }).unwrap_err();
        assert_eq!(problems, vec!["gcr must be between 0.01 and 0.99 (got 2)"]);
        let ok = RawSystem { gcr: 0.4.into(), ..system };
        let params = validate_v8_simulation(&ok, &RawV8Inputs { soiling: RawValue::from("1|1|1|1|1|1|1|1|1|1|1|1"), ..RawV8Inputs::default() }).unwrap();
        assert_eq!(params.options.soiling, Some([1.0; 12]));
    }
}

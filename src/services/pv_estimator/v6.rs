//! The v6 estimator's parameters and their validation, shared by the client and the embedded
//! endpoint (the system ranges themselves live in `pvwatts::params`): the raw values, the location
//! (a station or coordinates), the time frame, the format and the JSONP callback. v8 reads its
//! parameters with the same rules (`LocationRules`, `checked_system_with`).

use crate::formats::Format;
use crate::pvwatts::{validate_params, RawParams, SystemParams};
use crate::services::raw::RawValue;
use crate::services::solar::{v2_file_id_problem, Dataset, LATITUDE, LONGITUDE, NumberRange};

/// The estimator's default search radius, miles.
pub const DEFAULT_RADIUS_MILES: u32 = 100;

/// The estimator's parameters before validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawEstimate {
    pub system: RawSystem,
    pub lat: RawValue,
    pub lon: RawValue,
    pub file_id: RawValue,
    pub dataset: RawValue,
    pub radius: RawValue,
    pub timeframe: RawValue,
    pub callback: RawValue,
    pub format: RawValue,
}

impl RawEstimate {
    /// From decoded query pairs (the embedded endpoint); the last repeated name wins.
    pub fn from_query(pairs: &[(String, String)], format: Format) -> RawEstimate {
        let get = |name: &str| {
            pairs.iter().rev().find(|(key, _)| key == name).map_or(RawValue::Missing, |(_, value)| RawValue::from(value.as_str()))
        };
        RawEstimate {
            system: RawSystem {
                system_capacity: get("system_capacity"),
                module_type: get("module_type"),
                losses: get("losses"),
                array_type: get("array_type"),
                tilt: get("tilt"),
                azimuth: get("azimuth"),
                dc_ac_ratio: get("dc_ac_ratio"),
                gcr: get("gcr"),
                inv_eff: get("inv_eff"),
            },
            lat: get("lat"),
            lon: get("lon"),
            file_id: get("file_id"),
            dataset: get("dataset"),
            radius: get("radius"),
            timeframe: get("timeframe"),
            callback: get("callback"),
            format: RawValue::from(format.suffix()),
        }
    }
}

/// Where the weather comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Location {
    /// The nearest station of `dataset` within `radius_miles` (0: nearest regardless).
    Coordinates { lat: f64, lon: f64, dataset: Dataset, radius_miles: u32 },
    /// A station id from dataset query v1.
    FileId(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timeframe {
    Monthly,
    Hourly,
}

impl Timeframe {
    pub fn as_str(self) -> &'static str {
        match self {
            Timeframe::Monthly => "monthly",
            Timeframe::Hourly => "hourly",
        }
    }
}

/// Validated estimator parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimateParams {
    pub system: SystemParams,
    pub location: Location,
    pub timeframe: Timeframe,
    pub format: Format,
    pub callback: Option<String>,
}

impl EstimateParams {
    /// The query string the client sends (and the service echoes in `inputs`).
    pub fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let s = &self.system;
        let mut pairs = vec![
            ("system_capacity", s.system_capacity.to_string()),
            ("module_type", s.module_type.code().to_string()),
            ("losses", s.losses.to_string()),
            ("array_type", s.array_type.code().to_string()),
            ("tilt", s.tilt.to_string()),
            ("azimuth", s.azimuth.to_string()),
        ];
        match &self.location {
            Location::Coordinates { lat, lon, dataset, radius_miles } => {
                pairs.push(("lat", lat.to_string()));
                pairs.push(("lon", lon.to_string()));
                pairs.push(("dataset", dataset.code().to_owned()));
                pairs.push(("radius", radius_miles.to_string()));
            }
            Location::FileId(id) => pairs.push(("file_id", id.clone())),
        }
        pairs.push(("timeframe", self.timeframe.as_str().to_owned()));
        pairs.push(("dc_ac_ratio", s.dc_ac_ratio.to_string()));
        pairs.push(("gcr", s.gcr.to_string()));
        pairs.push(("inv_eff", s.inv_eff.to_string()));
        if let Some(callback) = &self.callback {
            pairs.push(("callback", callback.clone()));
        }
        pairs
    }
}

/// The system parameters before validation (shared by the estimator and the local engine).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawSystem {
    pub system_capacity: RawValue,
    pub module_type: RawValue,
    pub losses: RawValue,
    pub array_type: RawValue,
    pub tilt: RawValue,
    pub azimuth: RawValue,
    pub dc_ac_ratio: RawValue,
    pub gcr: RawValue,
    pub inv_eff: RawValue,
}

/// Checks the system parameters: types here, ranges in `pvwatts::validate_params`.
pub fn validate_system(raw: &RawSystem) -> Result<SystemParams, Vec<String>> {
    let mut problems = Vec::new();
    let system = checked_system(raw, &mut problems);
    match system {
        Some(system) if problems.is_empty() => Ok(system),
        _ => Err(problems),
    }
}

pub(super) fn checked_system(raw: &RawSystem, problems: &mut Vec<String>) -> Option<SystemParams> {
    checked_system_with(raw, problems, validate_params)
}

/// `checked_system` with another range check of the system parameters (PVWatts v8 accepts other
/// ground coverage ratios, see `pvwatts::v8::params`).
pub(crate) fn checked_system_with(
    raw: &RawSystem,
    problems: &mut Vec<String>,
    ranges: fn(&RawParams) -> Result<SystemParams, Vec<String>>,
) -> Option<SystemParams> {
    let mut number = |value: &RawValue, name: &str, default: Option<f64>| -> f64 {
        match (value, default) {
            (RawValue::Missing, Some(default)) => default,
            (RawValue::Missing, None) => {
                problems.push(format!("{name} is required"));
                f64::NAN
            }
            (value, _) => value.as_finite_f64().unwrap_or_else(|| {
                problems.push(format!("{name} must be a number (got {})", value.describe()));
                f64::NAN
            }),
        }
    };
    let system_capacity = number(&raw.system_capacity, "system_capacity", None);
    let losses = number(&raw.losses, "losses", None);
    let tilt = number(&raw.tilt, "tilt", None);
    let azimuth = number(&raw.azimuth, "azimuth", None);
    let dc_ac_ratio = number(&raw.dc_ac_ratio, "dc_ac_ratio", Some(crate::pvwatts::params::DEFAULT_DC_AC_RATIO));
    let gcr = number(&raw.gcr, "gcr", Some(crate::pvwatts::params::DEFAULT_GCR));
    let inv_eff = number(&raw.inv_eff, "inv_eff", Some(crate::pvwatts::params::DEFAULT_INV_EFF));
    let module_type = code(&raw.module_type, "module_type", "0, 1 or 2", problems);
    let array_type = code(&raw.array_type, "array_type", "0, 1, 2, 3 or 4", problems);
    validated_system(RawParams { system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio, gcr, inv_eff }, problems, ranges)
}

/// `timeframe`: `monthly` (the default) or `hourly`.
pub fn validate_timeframe(raw: &RawValue) -> Result<Timeframe, String> {
    match raw {
        RawValue::Missing => Ok(Timeframe::Monthly),
        value => match value.as_text() {
            Some("monthly") => Ok(Timeframe::Monthly),
            Some("hourly") => Ok(Timeframe::Hourly),
            _ => Err(format!("timeframe must be \"monthly\" or \"hourly\" (got {})", value.describe())),
        },
    }
}

/// Checks every rule of the spec and reports every problem at once, each starting with the
/// parameter's name.
pub fn validate_estimate(raw: &RawEstimate) -> Result<EstimateParams, Vec<String>> {
    let mut problems = Vec::new();
    let system = checked_system(&raw.system, &mut problems);
    let location = location(raw, &V6_LOCATION, &mut problems);
    let timeframe = validate_timeframe(&raw.timeframe).map_err(|problem| problems.push(problem)).ok();
    let format = check_format(&raw.format, &mut problems);
    let callback = callback(&raw.callback, format, &mut problems);
    match (system, location, timeframe, format) {
        (Some(system), Some(location), Some(timeframe), Some(format)) if problems.is_empty() => {
            Ok(EstimateParams { system, location, timeframe, format, callback })
        }
        _ => Err(problems),
    }
}

/// `format`: `json` (the default) or `xml`.
pub(crate) fn check_format(raw: &RawValue, problems: &mut Vec<String>) -> Option<Format> {
    match raw {
        RawValue::Missing => Some(Format::Json),
        value => match value.as_text().and_then(Format::from_suffix) {
            Some(format @ (Format::Json | Format::Xml)) => Some(format),
            _ => {
                problems.push(format!("format must be \"json\" or \"xml\" (got {})", value.describe()));
                None
            }
        },
    }
}

/// An integer code; a non-integer is reported here, an out-of-range integer by `validate_params`.
pub(super) fn code(value: &RawValue, name: &str, choices: &str, problems: &mut Vec<String>) -> i64 {
    match value {
        RawValue::Missing => {
            problems.push(format!("{name} is required: one of {choices}"));
            i64::MIN
        }
        value => value.as_whole().unwrap_or_else(|| {
            problems.push(format!("{name} must be one of {choices} (got {})", value.describe()));
            i64::MIN
        }),
    }
}

/// Range checks of the system parameters, skipping values already reported as missing or mistyped.
pub(super) fn validated_system(
    raw: RawParams,
    problems: &mut Vec<String>,
    ranges: fn(&RawParams) -> Result<SystemParams, Vec<String>>,
) -> Option<SystemParams> {
    let reported: Vec<String> = problems.iter().filter_map(|p| p.split_whitespace().next().map(str::to_owned)).collect();
    match ranges(&raw) {
        Ok(system) => Some(system),
        Err(range_problems) => {
            problems.extend(range_problems.into_iter().filter(|p| {
                let name = p.split_whitespace().next().unwrap_or("");
                !reported.iter().any(|r| r == name)
            }));
            None
        }
    }
}

/// How one estimator version reads a location: the station ids and dataset names it takes.
pub(crate) struct LocationRules {
    pub file_id_problem: fn(&str) -> Option<String>,
    pub dataset: fn(&str) -> Option<Dataset>,
    pub dataset_names: &'static str,
}

/// The v6 estimator's: dataset query v1 ids, and `satdb` for the NSRDB.
pub(super) const V6_LOCATION: LocationRules = LocationRules { file_id_problem, dataset: Dataset::from_code, dataset_names: "satdb, tmy2, tmy3, intl" };

/// The location of an estimate: a station (`file_id`) or coordinates with a dataset and a search
/// radius, never both; every problem is listed.
pub(crate) fn location(raw: &RawEstimate, rules: &LocationRules, problems: &mut Vec<String>) -> Option<Location> {
    let has_coordinates = !raw.lat.is_missing() || !raw.lon.is_missing();
    let file_id = match &raw.file_id {
        RawValue::Missing => None,
        RawValue::Text(text) if text.trim().is_empty() => None,
        value => Some(value.as_text().map(|t| t.trim().to_owned()).unwrap_or_else(|| value.describe())),
    };
    match (has_coordinates, file_id) {
        (true, Some(_)) => {
            problems.push("file_id must not be given together with lat and lon: give one location".into());
            None
        }
        (false, None) => {
            problems.push("lat and lon are required unless file_id is given".into());
            None
        }
        (false, Some(id)) => {
            if !raw.dataset.is_missing() {
                problems.push("dataset must not be given together with file_id: the file already names its dataset".into());
            }
            if !raw.radius.is_missing() {
                problems.push("radius must not be given together with file_id".into());
            }
            (rules.file_id_problem)(&id).map_or(Some(Location::FileId(id)), |problem| {
                problems.push(problem);
                None
            })
        }
        (true, None) => {
            let lat = coordinate(&raw.lat, LATITUDE, problems);
            let lon = coordinate(&raw.lon, LONGITUDE, problems);
            let dataset = match &raw.dataset {
                RawValue::Missing => Some(Dataset::Satdb),
                value => value.as_text().and_then(rules.dataset).or_else(|| {
                    problems.push(format!("dataset must be one of {} (got {})", rules.dataset_names, value.describe()));
                    None
                }),
            };
            let radius_miles = match &raw.radius {
                RawValue::Missing => Some(DEFAULT_RADIUS_MILES),
                value => value.as_whole().filter(|r| *r >= 0).and_then(|r| u32::try_from(r).ok()).or_else(|| {
                    problems.push(format!(
                        "radius must be a whole number of miles >= 0 (got {}); 0 means the closest station regardless of distance",
                        value.describe()
                    ));
                    None
                }),
            };
            Some(Location::Coordinates { lat: lat?, lon: lon?, dataset: dataset?, radius_miles: radius_miles? })
        }
    }
}

pub(super) fn coordinate(value: &RawValue, range: NumberRange, problems: &mut Vec<String>) -> Option<f64> {
    let NumberRange { name, min, max } = range;
    if value.is_missing() {
        problems.push(format!("{name} is required with {}", if name == "lat" { "lon" } else { "lat" }));
        return None;
    }
    value.as_finite_f64().filter(|v| (min..=max).contains(v)).or_else(|| {
        problems.push(format!("{name} must be a number between {min} and {max} (got {})", value.describe()));
        None
    })
}

/// Why `id` cannot be the v6 estimator's `file_id`, if it cannot: it must be a dataset query v1 id
/// (`<dataset digit>-<station>`); the v2 shapes of the same stations are refused with the shared text.
pub fn file_id_problem(id: &str) -> Option<String> {
    if id.ends_with("-tm2") || id.ends_with("-tm3") || id.starts_with("3-G-") {
        return Some(v2_file_id_problem(id));
    }
    if Dataset::from_id(id).is_none() || id.len() < 3 {
        return Some(format!(
            "file_id must be a station id returned by dataset query v1, such as 1-724699 (got {id:?})"
        ));
    }
    None
}

pub(crate) fn callback(value: &RawValue, format: Option<Format>, problems: &mut Vec<String>) -> Option<String> {
    let name = match value {
        RawValue::Missing => return None,
        value => value.as_text().map(str::to_owned).unwrap_or_else(|| value.describe()),
    };
    if format != Some(Format::Json) {
        problems.push("callback applies only to json output: drop it or use format=json".into());
        return None;
    }
    if let Err(problem) = crate::limits::id_length("callback", &name) {
        problems.push(problem);
        return None;
    }
    if !is_javascript_identifier(&name) {
        problems.push(format!("callback must be a JavaScript identifier such as handleEstimate (got {name:?})"));
        return None;
    }
    Some(name)
}

pub(super) fn is_javascript_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

//! Climate download request parameters, one set of rules for the client and the embedded
//! service: the raw values (HTTP form/query strings or typed client arguments), validation
//! that reports every problem at once with the parameter named and how to fix it, the request
//! weight against the service cap, the form the client sends, and the cache key.
//!
//! Rules (spec "Climate download" and "Limits"; peers-and-service-facts §0.3 for the cap):
//! - dataset slug: ASCII letters, digits and `-` (real slugs have capitals:
//!   `ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5`), without the `-download` suffix;
//! - wkt: POINT, MULTIPOINT or POLYGON with valid coordinates (`formats::wkt`);
//! - names (the years): 2000–2014, comma-separated, duplicates merged, sorted;
//! - attributes: any of the 12, comma-separated, order kept, duplicates merged; absent or
//!   empty means all 12 in the spec's order;
//! - utc (default true), leap_day (default false), mailing_list (default false): booleans;
//! - interval: required, 60 only; email: required, shaped like an address;
//! - csv: one point and one year only;
//! - weight = sites × attributes × Σ rows of each year ≤ 175,000,100. Points count one site
//!   each; a polygon is estimated from its area at the data set's nominal 4 km spacing (the
//!   embedded service checks again with its exact site count).

pub mod requests;

use super::raw::RawValue;
use crate::formats::climate_csv::expected_rows;
use crate::spec::vocabulary::Attribute;
use crate::formats::wkt::{parse_wkt, Geometry};
use crate::formats::Format;
use crate::spec::routes::DatasetFamily;

/// First and last year served (the spec's climate download).
pub const FIRST_YEAR: i32 = 2000;
pub const LAST_YEAR: i32 = 2014;
/// First and last year of the NSRDB GOES v4 family as checked before sending: its satellite
/// record starts in 1998; each data set covers part of the span, and the service refuses a year
/// its data set lacks.
pub const NSRDB_FIRST_YEAR: i32 = 1998;
pub const NSRDB_LAST_YEAR: i32 = 2024;

/// The years a data set family may be asked for.
pub fn year_span(family: DatasetFamily) -> (i32, i32) {
    match family {
        DatasetFamily::Climate => (FIRST_YEAR, LAST_YEAR),
        DatasetFamily::Nsrdb => (NSRDB_FIRST_YEAR, NSRDB_LAST_YEAR),
    }
}
/// The only interval offered, minutes.
pub const INTERVAL_MINUTES: u32 = 60;
/// The service's cap on sites × attributes × years × intervals per year.
pub const MAX_REQUEST_WEIGHT: u64 = 175_000_100;
/// Area of one site of a 4 km grid, km² (for estimating the sites of a polygon).
pub const NOMINAL_SITE_AREA_KM2: f64 = 16.0;

/// The parameters before validation. `from_pairs` fills them from HTTP; the client sets them
/// from its typed arguments (years and attributes as comma-joined text, booleans as `Bool`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawClimateRequest {
    /// The `<dataset_slug>` of the path.
    pub dataset: RawValue,
    pub wkt: RawValue,
    /// The years, comma-separated (the spec calls the parameter `names`).
    pub names: RawValue,
    pub attributes: RawValue,
    pub utc: RawValue,
    pub leap_day: RawValue,
    pub interval: RawValue,
    pub email: RawValue,
    pub full_name: RawValue,
    pub affiliation: RawValue,
    pub reason: RawValue,
    pub mailing_list: RawValue,
}

impl RawClimateRequest {
    /// The parameters of an HTTP request: `pairs` are the query pairs followed by the form
    /// body pairs, so for a repeated name the last one (the body's) wins. `api_key` and
    /// unknown names are ignored.
    pub fn from_pairs(dataset: &str, pairs: &[(String, String)]) -> RawClimateRequest {
        let last = |name: &str| {
            pairs
                .iter()
                .rev()
                .find(|(key, _)| key == name)
                .map_or(RawValue::Missing, |(_, v)| RawValue::Text(v.clone()))
        };
        RawClimateRequest {
            dataset: RawValue::from(dataset),
            wkt: last("wkt"),
            names: last("names"),
            attributes: last("attributes"),
            utc: last("utc"),
            leap_day: last("leap_day"),
            interval: last("interval"),
            email: last("email"),
            full_name: last("full_name"),
            affiliation: last("affiliation"),
            reason: last("reason"),
            mailing_list: last("mailing_list"),
        }
    }
}

/// Validated parameters of a climate download request.
#[derive(Debug, Clone, PartialEq)]
pub struct ClimateParams {
    pub dataset: String,
    pub format: Format,
    pub geometry: Geometry,
    /// Sorted, without duplicates.
    pub years: Vec<i32>,
    /// In the order asked, without duplicates.
    pub attributes: Vec<Attribute>,
    pub utc: bool,
    pub leap_day: bool,
    pub interval_minutes: u32,
    pub email: String,
    pub full_name: Option<String>,
    pub affiliation: Option<String>,
    pub reason: Option<String>,
    pub mailing_list: bool,
}

impl ClimateParams {
    /// The parameters to send, as form (POST) or query (GET) pairs; the api_key is the
    /// transport's business. Optional text parameters that are absent are left out.
    pub fn form_pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = vec![
            ("wkt", self.geometry.to_string()),
            ("names", join(&self.years)),
            ("attributes", self.attribute_names().join(",")),
            ("utc", self.utc.to_string()),
            ("leap_day", self.leap_day.to_string()),
            ("interval", self.interval_minutes.to_string()),
            ("email", self.email.clone()),
        ];
        for (name, value) in
            [("full_name", &self.full_name), ("affiliation", &self.affiliation), ("reason", &self.reason)]
        {
            if let Some(value) = value {
                pairs.push((name, value.clone()));
            }
        }
        pairs.push(("mailing_list", self.mailing_list.to_string()));
        pairs
    }

    /// The attributes as the data set's family names them.
    pub fn attribute_names(&self) -> Vec<&'static str> {
        let family = DatasetFamily::of(&self.dataset);
        self.attributes.iter().filter_map(|a| a.name_in(family)).collect()
    }

    /// What identifies the data of this request: everything that changes the returned data,
    /// nothing that does not (no api_key, e-mail, name, affiliation, reason, mailing list).
    pub fn cache_key(&self) -> String {
        let attributes = self.attribute_names();
        format!(
            "climate-download|{}|{}|{}|names={}|attributes={}|utc={}|leap_day={}|interval={}",
            self.dataset,
            self.format.suffix(),
            self.geometry,
            join(&self.years),
            attributes.join(","),
            self.utc,
            self.leap_day,
            self.interval_minutes
        )
    }

    /// Sites the request covers as the client can tell: one per point; for a polygon, its area
    /// over the nominal site area, at least 1.
    pub fn estimated_sites(&self) -> u64 {
        estimated_sites(&self.geometry)
    }

    /// The weight of this request if it covers `sites` sites.
    pub fn weight(&self, sites: u64) -> u64 {
        request_weight(sites, self.attributes.len(), &self.years, self.leap_day, self.interval_minutes)
    }
}

fn join(years: &[i32]) -> String {
    years.iter().map(i32::to_string).collect::<Vec<_>>().join(",")
}

/// Sites of a geometry as the client estimates them (see `ClimateParams::estimated_sites`).
pub fn estimated_sites(geometry: &Geometry) -> u64 {
    match geometry {
        Geometry::Point(_) => 1,
        Geometry::MultiPoint(points) => u64::try_from(points.len()).unwrap_or(u64::MAX),
        // `as` saturates: a huge or NaN area gives u64::MAX or 0, and the weight check names it.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "saturating on purpose")]
        Geometry::Polygon(polygon) => ((polygon.area_km2() / NOMINAL_SITE_AREA_KM2).ceil() as u64).max(1),
    }
}

/// sites × attributes × Σ over the years of the rows of one site-year.
pub fn request_weight(sites: u64, attributes: usize, years: &[i32], leap_day: bool, interval_minutes: u32) -> u64 {
    let rows: u64 = years.iter().map(|&year| expected_rows(year, leap_day, interval_minutes) as u64).sum();
    sites.saturating_mul(attributes as u64).saturating_mul(rows)
}

/// The weight check, shared by the client (estimated sites) and the service (exact sites).
pub fn check_weight(params: &ClimateParams, sites: u64) -> Result<u64, String> {
    let weight = params.weight(sites);
    if weight <= MAX_REQUEST_WEIGHT {
        return Ok(weight);
    }
    let site_note = match &params.geometry {
        Geometry::Polygon(_) => format!("{sites} sites in the polygon"),
        _ => format!("{sites} site(s)"),
    };
    Err(format!(
        "the request is too large: {site_note} × {} attribute(s) × {} year(s) of {}-minute data weigh {weight}, above the \
         service's cap of {MAX_REQUEST_WEIGHT}; ask for fewer sites, years or attributes, or split the request \
         (sunflux: client.climate.bulk sends one request per point and year)",
        params.attributes.len(),
        params.years.len(),
        params.interval_minutes
    ))
}

/// Whose words the problems are in: the service's parameter names (the embedded service's
/// answers), or the Python API's (`download_csv(year=)`, `request(years=)`), so a user is told
/// about the argument they wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terms {
    Wire,
    Python,
}

impl Terms {
    /// The years argument as the user knows it, for this format (csv takes one year).
    fn years(self, format: Format) -> &'static str {
        match (self, format) {
            (Terms::Wire, _) => "names (the years)",
            (Terms::Python, Format::Csv) => "year",
            (Terms::Python, _) => "years",
        }
    }

    fn years_hint(self, format: Format, (first, last): (i32, i32)) -> String {
        match (self, format) {
            (Terms::Wire, _) => format!("give whole years between {first} and {last}, comma-separated (e.g. names=2010,2011)"),
            (Terms::Python, Format::Csv) => format!("give a whole year between {first} and {last} (e.g. year=2010)"),
            (Terms::Python, _) => format!("give whole years between {first} and {last} (e.g. years=[2010, 2011])"),
        }
    }
}

/// Checks every parameter and reports all problems at once, in the service's words. `format`
/// is the path suffix.
pub fn validate_climate_request(raw: &RawClimateRequest, format: Format) -> Result<ClimateParams, Vec<String>> {
    validate_climate_request_in(raw, format, Terms::Wire)
}

/// `validate_climate_request` with problems in `terms`.
pub fn validate_climate_request_in(raw: &RawClimateRequest, format: Format, terms: Terms) -> Result<ClimateParams, Vec<String>> {
    let requested = format;
    let mut problems = Vec::new();
    let dataset = record(check_dataset(&raw.dataset), &mut problems);
    let format = record(check_format(format), &mut problems);
    let geometry = record(check_wkt(&raw.wkt), &mut problems);
    let family = DatasetFamily::of(raw.dataset.as_text().unwrap_or_default());
    let years = record(check_years(&raw.names, terms, requested, year_span(family)), &mut problems);
    let attributes = record(check_attributes(&raw.attributes, family), &mut problems);
    let utc = record(check_bool(&raw.utc, "utc", true, terms), &mut problems);
    let leap_day = record(check_bool(&raw.leap_day, "leap_day", false, terms), &mut problems);
    let interval = record(check_interval(&raw.interval), &mut problems);
    let email = record(check_email(&raw.email), &mut problems);
    let full_name = record(check_text(&raw.full_name, "full_name"), &mut problems);
    let affiliation = record(check_text(&raw.affiliation, "affiliation"), &mut problems);
    let reason = record(check_text(&raw.reason, "reason"), &mut problems);
    let mailing_list = record(check_bool(&raw.mailing_list, "mailing_list", false, terms), &mut problems);
    if let (Some(Format::Csv), Some(geometry), Some(years)) = (format, &geometry, &years) {
        problems.extend(csv_problems(geometry, years, terms));
    }
    let (
        Some(dataset),
        Some(format),
        Some(geometry),
        Some(years),
        Some(attributes),
        Some(utc),
        Some(leap_day),
        Some(interval_minutes),
        Some(email),
        Some(full_name),
        Some(affiliation),
        Some(reason),
        Some(mailing_list),
    ) = (
        dataset,
        format,
        geometry,
        years,
        attributes,
        utc,
        leap_day,
        interval,
        email,
        full_name,
        affiliation,
        reason,
        mailing_list,
    )
    else {
        return Err(problems);
    };
    let params = ClimateParams {
        dataset,
        format,
        geometry,
        years,
        attributes,
        utc,
        leap_day,
        interval_minutes,
        email,
        full_name,
        affiliation,
        reason,
        mailing_list,
    };
    if let Err(problem) = check_weight(&params, params.estimated_sites()) {
        problems.push(problem);
    }
    if problems.is_empty() {
        Ok(params)
    } else {
        Err(problems)
    }
}

fn record<T>(checked: Result<T, String>, problems: &mut Vec<String>) -> Option<T> {
    checked.map_err(|problem| problems.push(problem)).ok()
}

fn check_dataset(raw: &RawValue) -> Result<String, String> {
    let example = "e.g. ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5";
    let Some(slug) = raw.as_text().map(str::trim).filter(|s| !s.is_empty()) else {
        return Err(format!("dataset is required: give the data set slug of the download path, {example}"));
    };
    if slug.ends_with("-download") {
        return Err(format!(
            "dataset {slug:?} ends with \"-download\": give the slug without it ({:?}); the path adds it",
            slug.trim_end_matches("-download")
        ));
    }
    if !slug.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return Err(format!("dataset {slug:?} may only hold letters, digits and '-' ({example})"));
    }
    Ok(slug.to_string())
}

fn check_format(format: Format) -> Result<Format, String> {
    match format {
        Format::Json | Format::Csv => Ok(format),
        Format::Xml => Err("format must be json or csv: the climate download has no xml output".to_string()),
    }
}

fn check_wkt(raw: &RawValue) -> Result<Geometry, String> {
    match raw {
        RawValue::Missing => {
            Err("wkt is required: give POINT(lon lat), MULTIPOINT(lon lat, lon lat) or POLYGON((lon lat, ...))".into())
        }
        RawValue::Text(text) => parse_wkt(text).map_err(|error| format!("wkt: {error}")),
        other => Err(format!("wkt must be well-known text such as POINT(-105.2 40.1) (got {})", other.describe())),
    }
}

fn check_years(raw: &RawValue, terms: Terms, format: Format, span: (i32, i32)) -> Result<Vec<i32>, String> {
    let (name, hint) = (terms.years(format), terms.years_hint(format, span));
    let (first, last) = span;
    let tokens: Vec<RawValue> = match raw {
        RawValue::Missing => Vec::new(),
        RawValue::Text(text) => text.split(',').map(str::trim).filter(|t| !t.is_empty()).map(RawValue::from).collect(),
        other => vec![other.clone()],
    };
    if tokens.is_empty() {
        return Err(format!("{name} is required: {hint}"));
    }
    let mut years = Vec::with_capacity(tokens.len());
    let mut bad = Vec::new();
    for token in &tokens {
        match token.as_whole() {
            Some(year) if (i64::from(first)..=i64::from(last)).contains(&year) => {
                years.push(i32::try_from(year).unwrap_or(first));
            }
            Some(year) => bad.push(format!("{year} is outside the available years {first}–{last}")),
            None => bad.push(format!("{} is not a whole year", token.describe())),
        }
    }
    if !bad.is_empty() {
        return Err(format!("{name}: {}; {hint}", bad.join(", ")));
    }
    years.sort_unstable();
    years.dedup();
    Ok(years)
}

fn attribute_list(family: DatasetFamily) -> String {
    Attribute::offered(family).iter().filter_map(|a| a.name_in(family)).collect::<Vec<_>>().join(", ")
}

/// The attributes asked for, by the names of the data set's family (the NSRDB names its
/// quantities `air_temperature`, `wind_speed`, ...); all the family offers when none are given.
fn check_attributes(raw: &RawValue, family: DatasetFamily) -> Result<Vec<Attribute>, String> {
    let text = match raw {
        RawValue::Missing => return Ok(Attribute::offered(family)),
        RawValue::Text(text) => text,
        other => return Err(format!("attributes must be a comma-separated list of names (got {})", other.describe())),
    };
    let mut attributes = Vec::new();
    let mut unknown = Vec::new();
    for token in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let name = token.to_ascii_lowercase();
        match Attribute::offered(family).into_iter().find(|a| a.name_in(family) == Some(name.as_str())) {
            Some(attribute) if !attributes.contains(&attribute) => attributes.push(attribute),
            Some(_) => {}
            None => unknown.push(format!("{token:?}")),
        }
    }
    if !unknown.is_empty() {
        let family_note = match family {
            DatasetFamily::Climate => "",
            DatasetFamily::Nsrdb => " (the NSRDB's own names)",
        };
        return Err(format!("attributes: {} not offered; choose from {}{family_note}", unknown.join(", "), attribute_list(family)));
    }
    if attributes.is_empty() {
        return Ok(Attribute::offered(family));
    }
    Ok(attributes)
}

/// A boolean parameter (the spec's type for `utc`, `leap_day` and `mailing_list`). In Python it is
/// `True` or `False` and nothing else (None, 0, "" and "true" are refused: the spec's boolean has
/// two values). On the wire it is `true` or `false` in any case; the embedded service also reads
/// `1`, `0` and an empty value (absent), as it always has.
fn check_bool(raw: &RawValue, name: &str, default: bool, terms: Terms) -> Result<bool, String> {
    if terms == Terms::Python {
        return match raw {
            RawValue::Bool(flag) => Ok(*flag),
            RawValue::Missing => Err(format!("{name} must be True or False (got None)")),
            other => Err(format!("{name} must be True or False (got {})", other.describe())),
        };
    }
    match raw {
        RawValue::Missing => Ok(default),
        RawValue::Bool(flag) => Ok(*flag),
        RawValue::Text(text) => match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            "" => Ok(default),
            _ => Err(format!("{name} must be true or false (got {})", raw.describe())),
        },
        RawValue::Int(0) => Ok(false),
        RawValue::Int(1) => Ok(true),
        other => Err(format!("{name} must be true or false (got {})", other.describe())),
    }
}

fn check_interval(raw: &RawValue) -> Result<u32, String> {
    match raw.as_whole() {
        Some(minutes) if minutes == i64::from(INTERVAL_MINUTES) => Ok(INTERVAL_MINUTES),
        _ if raw.is_missing() => {
            Err(format!("interval is required: give interval={INTERVAL_MINUTES} (minutes, the only interval offered)"))
        }
        _ => Err(format!(
            "interval must be {INTERVAL_MINUTES} (minutes), the only interval offered (got {})",
            raw.describe()
        )),
    }
}

fn check_email(raw: &RawValue) -> Result<String, String> {
    let hint = "the service sends the download link there; give an address such as you@example.org";
    match raw.as_text().map(str::trim) {
        None if raw.is_missing() => Err(format!("email is required: {hint}")),
        Some("") => Err(format!("email is required: {hint}")),
        Some(address) if is_email_shaped(address) => Ok(address.to_string()),
        _ => Err(format!("email {} is not an e-mail address: {hint}", raw.describe())),
    }
}

/// `local@domain.tld`: one `@`, no spaces, a non-empty local part, a domain of non-empty
/// labels with a top-level label of two or more letters.
fn is_email_shaped(address: &str) -> bool {
    let Some((local, domain)) = address.split_once('@') else { return false };
    let labels: Vec<&str> = domain.split('.').collect();
    !local.is_empty()
        && !address.chars().any(|c| c.is_whitespace() || c.is_control())
        && !domain.contains('@')
        && labels.len() >= 2
        && labels.iter().all(|label| !label.is_empty() && !label.starts_with('-') && !label.ends_with('-'))
        && labels.last().is_some_and(|tld| tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic()))
}

fn check_text(raw: &RawValue, name: &str) -> Result<Option<String>, String> {
    match raw {
        RawValue::Missing => Ok(None),
        RawValue::Text(text) if text.trim().is_empty() => Ok(None),
        RawValue::Text(text) => Ok(Some(text.trim().to_string())),
        other => Err(format!("{name} must be text (got {})", other.describe())),
    }
}

/// csv streams one site and one year.
fn csv_problems(geometry: &Geometry, years: &[i32], terms: Terms) -> Vec<String> {
    let alternatives =
        "use the json format instead (sunflux: client.climate.request, then fetch), or one csv per point and \
                        year (sunflux: client.climate.bulk)";
    let mut problems = Vec::new();
    let single_point =
        matches!(geometry, Geometry::Point(_)) || matches!(geometry, Geometry::MultiPoint(p) if p.len() == 1);
    if !single_point {
        let what = match geometry {
            Geometry::MultiPoint(points) => format!("a MULTIPOINT of {} points", points.len()),
            _ => format!("a {}", geometry.kind()),
        };
        problems.push(format!("csv streams a single site: wkt must be one POINT (got {what}); {alternatives}"));
    }
    if years.len() != 1 {
        problems.push(format!(
            "csv streams a single year: {} must hold one year (got {}: {}); {alternatives}",
            match terms {
                Terms::Wire => "names",
                Terms::Python => "year",
            },
            years.len(),
            join(years)
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_take_the_names_of_the_data_set_family() {
        let nsrdb = |attributes: &str| {
            check_attributes(&RawValue::from(attributes), DatasetFamily::Nsrdb)
        };
        assert_eq!(nsrdb("air_temperature,WIND_SPEED"), Ok(vec![Attribute::Temperature2m, Attribute::WindSpeed10m]));
        assert!(nsrdb("temperature_2m").unwrap_err().contains("air_temperature"));
        assert!(check_attributes(&RawValue::from("air_temperature"), DatasetFamily::Climate).is_err());
        assert_eq!(check_attributes(&RawValue::Missing, DatasetFamily::Nsrdb).map(|a| a.len()), Ok(8));
    }

    #[test]
    fn python_booleans_are_true_or_false_only() {
        for flag in [true, false] {
            assert_eq!(check_bool(&RawValue::Bool(flag), "utc", true, Terms::Python), Ok(flag));
        }
        for given in [RawValue::Missing, RawValue::from(""), RawValue::from(0), RawValue::from("true"), RawValue::from("no")] {
            let problem = check_bool(&given, "utc", true, Terms::Python).unwrap_err();
            assert!(problem.starts_with("utc must be True or False (got "), "{given:?}: {problem}");
        }
        assert_eq!(check_bool(&RawValue::Missing, "utc", true, Terms::Wire), Ok(true));
        assert_eq!(check_bool(&RawValue::from("FALSE"), "utc", true, Terms::Wire), Ok(false));
        assert!(check_bool(&RawValue::from("no"), "utc", true, Terms::Wire).is_err());
    }

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn valid() -> Vec<(String, String)> {
        pairs(&[
            ("api_key", "k"),
            ("wkt", "POINT(-105.2 40.1)"),
            ("names", "2012"),
            ("interval", "60"),
            ("email", "me@example.org"),
        ])
    }

    #[test]
    fn a_minimal_request_gets_the_defaults() {
        let params = validate_climate_request(
            &RawClimateRequest::from_pairs("ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5", &valid()),
            Format::Csv,
        )
        .unwrap();
        assert_eq!(params.attributes, Attribute::ALL.to_vec());
        assert!(params.utc && !params.leap_day && !params.mailing_list);
        assert_eq!(params.years, vec![2012]);
        assert_eq!(params.weight(1), 12 * 8760);
        let form = params.form_pairs();
        assert_eq!(form[0], ("wkt", "POINT(-105.2 40.1)".to_string()));
        assert!(!form.iter().any(|(k, _)| *k == "api_key" || *k == "full_name"));
        assert!(!params.cache_key().contains("example.org"));
    }

    #[test]
    fn every_problem_is_reported_with_its_parameter() {
        let raw = RawClimateRequest::from_pairs(
            "Bad_slug",
            &pairs(&[
                ("wkt", "LINESTRING(0 0, 1 1)"),
                ("names", "1999,abc"),
                ("attributes", "ghi,sunshine"),
                ("utc", "maybe"),
                ("interval", "30"),
                ("email", "nobody"),
            ]),
        );
        let problems = validate_climate_request(&raw, Format::Json).unwrap_err();
        let starts: Vec<&str> = problems.iter().map(|p| p.split([' ', ':']).next().unwrap_or("")).collect();
        assert_eq!(starts, ["dataset", "wkt", "names", "attributes", "utc", "interval", "email"], "{problems:#?}");
        assert!(problems[2].contains("1999 is outside") && problems[2].contains("\"abc\" is not a whole year"));
        assert!(problems[3].contains("\"sunshine\"") && problems[3].contains("windspeed_200m"));
        let missing = validate_climate_request(&RawClimateRequest::from_pairs("x", &[]), Format::Json).unwrap_err();
        assert_eq!(missing.len(), 4, "{missing:#?}");
        assert!(missing.iter().all(|p| p.contains("is required")));
    }

    #[test]
    fn csv_is_one_point_and_one_year() {
        let mut request = valid();
        request.push(("names".into(), "2010,2011".into()));
        request.push(("wkt".into(), "MULTIPOINT(1 2, 3 4)".into()));
        let problems =
            validate_climate_request(&RawClimateRequest::from_pairs("d", &request), Format::Csv).unwrap_err();
        assert_eq!(problems.len(), 2);
        assert!(problems[0].contains("MULTIPOINT of 2 points") && problems[0].contains("client.climate.request"));
        assert!(problems[1].contains("2010,2011") && problems[1].contains("client.climate.bulk"));
        assert!(validate_climate_request(&RawClimateRequest::from_pairs("d", &request), Format::Json).is_ok());
        assert!(validate_climate_request(&RawClimateRequest::from_pairs("d", &valid()), Format::Xml).is_err());
    }

    #[test]
    fn typed_values_validate_like_text() {
        let raw = RawClimateRequest {
            dataset: "d".into(),
            wkt: "POINT(1 2)".into(),
            names: RawValue::Int(2005),
            utc: RawValue::Bool(false),
            interval: RawValue::Int(60),
            email: "a.b@c.de".into(),
            mailing_list: RawValue::Bool(true),
            ..RawClimateRequest::default()
        };
        let params = validate_climate_request(&raw, Format::Json).unwrap();
        assert!(!params.utc && params.mailing_list);
        assert_eq!(params.years, vec![2005]);
    }

    #[test]
    fn weight_cap_counts_sites_attributes_years_and_hours() {
        assert_eq!(request_weight(2, 3, &[2012, 2013], true, 60), 2 * 3 * (8784 + 8760));
        let mut request = valid();
        request.push((
            "names".into(),
            "2000,2001,2002,2003,2004,2005,2006,2007,2008,2009,2010,2011,2012,2013,2014".into(),
        ));
        request.push(("wkt".into(), "POLYGON((-105 39, -103 39, -103 41, -105 41, -105 39))".into()));
        let problems =
            validate_climate_request(&RawClimateRequest::from_pairs("d", &request), Format::Json).unwrap_err();
        assert!(problems[0].contains("above the service's cap of 175000100"), "{problems:?}");
        assert!(["me@x.org", "first.last+tag@sub.example.co"].iter().all(|a| is_email_shaped(a)));
        assert!(["a@b", "@x.org", "a b@x.org", "a@@x.org", "a@x.1"].iter().all(|a| !is_email_shaped(a)));
    }

    #[test]
    fn slug_rules() {
        assert!(check_dataset(&"ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5".into()).is_ok());
        assert!(check_dataset(&"ncdb-x-download".into()).unwrap_err().contains("\"ncdb-x\""));
        assert!(check_dataset(&"../etc".into()).is_err());
    }
}

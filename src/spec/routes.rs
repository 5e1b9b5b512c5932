//! The route table: every endpoint's path under both profiles, its throttle class and its
//! payload, and the route patterns the embedded service's router is built from. This is the only
//! place that spells a service path: the client's requests (`Endpoint::path`) and the embedded
//! service's routes (`served_routes`) are built from the same roots. Path arguments come from users:
//! each must be an identifier (a run UUID must be a UUID) and is percent-encoded as one segment,
//! so no argument can add a segment, a query or a fragment or reach another endpoint.

use crate::limits::Payload;

/// Which set of paths to use. `Spec` is exactly `shared/spec/`; `Nlr` is the public host's
/// paths where they differ (estimator under `pvwatts`, optimizer under `reopt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteProfile {
    Spec,
    Nlr,
}

impl RouteProfile {
    pub fn parse(name: &str) -> Option<RouteProfile> {
        match name {
            "spec" => Some(RouteProfile::Spec),
            "nlr" => Some(RouteProfile::Nlr),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RouteProfile::Spec => "spec",
            RouteProfile::Nlr => "nlr",
        }
    }
}

/// The spec's limit groups; each has its own throttle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServiceClass {
    /// Dataset query v1/v2, estimators v6 and v8 and the WIND Toolkit's SRW download (all the
    /// developer network's) share one hourly window per key (`limits::KEY_REQUESTS_PER_HOUR`).
    Solar,
    /// Climate download in csv: a minimum interval, a daily window and a cap in flight
    /// (`limits::CLIMATE_CSV_*`, `limits::CLIMATE_IN_FLIGHT`).
    ClimateCsv,
    /// Climate download in other formats: the same kinds of limit, slower
    /// (`limits::CLIMATE_OTHER_*`).
    ClimateOther,
    /// Optimizer jobs, its load endpoint and the rate database it reads: no limit stated by the spec.
    Optimizer,
    /// Technical potential: polling is explicitly not rate-limited.
    TechnicalPotential,
    /// Files behind a download URL and the local diagnostics endpoint.
    Unthrottled,
}

/// The families of download data sets: each has its own path root, and the same protocol
/// (parameters, limits, the two-header CSV, download zips). A data set's family is told by its
/// slug: `nsrdb-…` (the NSRDB GOES v4 sets, e.g. `nsrdb-GOES-aggregated-v4-0-0`) or any other
/// slug (the spec's climate download, `ncdb-…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DatasetFamily {
    Climate,
    Nsrdb,
}

impl DatasetFamily {
    pub const ALL: [DatasetFamily; 2] = [DatasetFamily::Climate, DatasetFamily::Nsrdb];

    pub fn of(dataset: &str) -> DatasetFamily {
        if dataset.get(..6).is_some_and(|prefix| prefix.eq_ignore_ascii_case("nsrdb-")) {
            DatasetFamily::Nsrdb
        } else {
            DatasetFamily::Climate
        }
    }

    /// The path under which `<slug>-download.<format>` lives.
    pub fn root(self) -> &'static str {
        match self {
            DatasetFamily::Climate => "/api/climate/ncdb/v2/climate",
            DatasetFamily::Nsrdb => "/api/nsrdb/v2/solar",
        }
    }
}

/// The dataset query's root; `<version>.<format>` follows.
const DATA_QUERY_ROOT: &str = "/api/solar/data_query";
/// The technical potential's root; `<explorer>/v1/technical-potential` follows.
const TECHNICAL_POTENTIAL_ROOT: &str = "/api/opencarto";
/// The technical potential's path after the explorer.
const TECHNICAL_POTENTIAL_TAIL: &str = "v1/technical-potential";
/// The embedded service's own endpoints (not in the spec): `status.<format>` and `outbox.json`.
const LOCAL_ROOT: &str = "/api/local/v1";
/// The WIND Toolkit's site-year in SAM's resource format (the path REopt.jl asks).
const WIND_TOOLKIT_SRW_PATH: &str = "/api/wind-toolkit/v2/wind/wtk-srw-download";
/// The Utility Rate Database (its own host).
const UTILITY_RATES_PATH: &str = "/utility_rates";
/// Where the embedded service's file host serves finished download zips (`<id>.zip`; no key).
pub const DOWNLOAD_FILES_PREFIX: &str = "/files/climate/";

/// A named endpoint; its arguments fill the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    DataQuery { version: String, format: String },
    PvEstimator { format: String },
    /// The estimator's version 8 (the live service's current estimator).
    PvEstimatorV8 { format: String },
    ClimateDownload { dataset: String, format: String },
    OptimizerJob,
    OptimizerResults { run_uuid: String },
    /// The optimizer service's reference load profiles.
    OptimizerSimulatedLoad,
    /// One of the optimizer service's grid emissions and health-cost look-ups.
    OptimizerLookup(OptimizerLookup),
    /// The Utility Rate Database API (its own host: the client's `urdb_base_url`).
    UtilityRates,
    /// The WIND Toolkit's SRW download (wind resource of one site and year).
    WindToolkitSrw,
    TechnicalPotentialConfig { explorer: String },
    TechnicalPotentialJob { explorer: String },
    /// The embedded service's own status endpoint (not part of the spec).
    LocalStatus { format: String },
}

impl Endpoint {
    /// The path (under the service's API root) of this endpoint under `profile`; every argument is
    /// percent-encoded as (part of) one segment.
    pub fn path(&self, profile: RouteProfile) -> String {
        match self {
            Endpoint::DataQuery { version, format } => {
                format!("{DATA_QUERY_ROOT}/{}.{}", segment(version), segment(format))
            }
            Endpoint::PvEstimator { format } => format!("{}/v6.{}", estimator_root(profile), segment(format)),
            Endpoint::PvEstimatorV8 { format } => format!("{}/v8.{}", estimator_root(profile), segment(format)),
            Endpoint::ClimateDownload { dataset, format } => {
                format!("{}/{}-download.{}", DatasetFamily::of(dataset).root(), segment(dataset), segment(format))
            }
            Endpoint::OptimizerJob => format!("{}/job/", optimizer_root(profile)),
            Endpoint::OptimizerResults { run_uuid } => {
                format!("{}/job/{}/results/", optimizer_root(profile), segment(run_uuid))
            }
            Endpoint::OptimizerSimulatedLoad => format!("{}/simulated_load/", optimizer_root(profile)),
            Endpoint::OptimizerLookup(lookup) => format!("{}/{}/", optimizer_root(profile), lookup.route()),
            Endpoint::UtilityRates => UTILITY_RATES_PATH.to_owned(),
            Endpoint::WindToolkitSrw => WIND_TOOLKIT_SRW_PATH.to_owned(),
            Endpoint::TechnicalPotentialConfig { explorer } => {
                format!("{TECHNICAL_POTENTIAL_ROOT}/{}/{TECHNICAL_POTENTIAL_TAIL}/config", segment(explorer))
            }
            Endpoint::TechnicalPotentialJob { explorer } => {
                format!("{TECHNICAL_POTENTIAL_ROOT}/{}/{TECHNICAL_POTENTIAL_TAIL}", segment(explorer))
            }
            Endpoint::LocalStatus { format } => format!("{LOCAL_ROOT}/status.{}", segment(format)),
        }
    }

    /// Checks every path argument: formats and versions are short names, a data set slug or an
    /// explorer an identifier, a run UUID a UUID. Each problem names its argument.
    pub fn check(&self) -> Result<(), Vec<String>> {
        let arguments: Vec<(&str, &str, fn(&str) -> bool, &str)> = match self {
            Endpoint::DataQuery { version, format } => {
                vec![("version", version, is_identifier, "v1 or v2"), ("format", format, is_identifier, "json, xml or csv")]
            }
            Endpoint::PvEstimator { format } | Endpoint::PvEstimatorV8 { format } | Endpoint::LocalStatus { format } => {
                vec![("format", format, is_identifier, "json or xml")]
            }
            Endpoint::ClimateDownload { dataset, format } => vec![
                ("dataset", dataset, is_identifier, "letters, digits and '-'"),
                ("format", format, is_identifier, "json or csv"),
            ],
            Endpoint::OptimizerJob
            | Endpoint::OptimizerSimulatedLoad
            | Endpoint::OptimizerLookup(_)
            | Endpoint::UtilityRates
            | Endpoint::WindToolkitSrw => Vec::new(),
            Endpoint::OptimizerResults { run_uuid } => {
                vec![("run_uuid", run_uuid, is_uuid, "a UUID such as 2f1c5e0a-7b3d-4c2e-9a41-0d8e6b7f5c13")]
            }
            Endpoint::TechnicalPotentialConfig { explorer } | Endpoint::TechnicalPotentialJob { explorer } => {
                vec![("explorer", explorer, is_identifier, "letters, digits, '-' and '_'")]
            }
        };
        let problems: Vec<String> = arguments
            .into_iter()
            .filter(|(_, value, rule, _)| !rule(value))
            .map(|(name, value, _, expected)| format!("{name} must be {expected} (got {:?})", shown(value)))
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// What the answer of this endpoint holds (for its size cap).
    pub fn payload(&self) -> Payload {
        match self {
            Endpoint::DataQuery { .. } => Payload::DataQuery,
            Endpoint::PvEstimator { .. } | Endpoint::PvEstimatorV8 { .. } => Payload::PvEstimate,
            // A site-year of SRW is ~0.3 MB of CSV: the cap of a climate CSV site-year.
            Endpoint::ClimateDownload { format, .. } if format == "csv" => Payload::ClimateCsv,
            Endpoint::WindToolkitSrw => Payload::ClimateCsv,
            Endpoint::ClimateDownload { .. } => Payload::ClimateRequest,
            // Simulated loads are one 8,760–35,040-value series; a rate's schedules and tiers are
            // a few hundred kB: both fit the optimizer's cap.
            Endpoint::OptimizerJob
            | Endpoint::OptimizerResults { .. }
            | Endpoint::OptimizerSimulatedLoad
            | Endpoint::OptimizerLookup(_)
            | Endpoint::UtilityRates => Payload::Optimizer,
            Endpoint::TechnicalPotentialConfig { .. } | Endpoint::TechnicalPotentialJob { .. } => {
                Payload::TechnicalPotential
            }
            Endpoint::LocalStatus { .. } => Payload::Small,
        }
    }

    /// The throttle group this endpoint's requests count against.
    pub fn service_class(&self) -> ServiceClass {
        match self {
            Endpoint::DataQuery { .. } | Endpoint::PvEstimator { .. } | Endpoint::PvEstimatorV8 { .. } | Endpoint::WindToolkitSrw => {
                ServiceClass::Solar
            }
            Endpoint::ClimateDownload { format, .. } if format == "csv" => ServiceClass::ClimateCsv,
            Endpoint::ClimateDownload { .. } => ServiceClass::ClimateOther,
            Endpoint::OptimizerJob
            | Endpoint::OptimizerResults { .. }
            | Endpoint::OptimizerSimulatedLoad
            | Endpoint::OptimizerLookup(_)
            | Endpoint::UtilityRates => ServiceClass::Optimizer,
            Endpoint::TechnicalPotentialConfig { .. } | Endpoint::TechnicalPotentialJob { .. } => {
                ServiceClass::TechnicalPotential
            }
            Endpoint::LocalStatus { .. } => ServiceClass::Unthrottled,
        }
    }
}

/// Every endpoint name `from_name` knows, with its path arguments (for the message that lists
/// them when a name is unknown).
pub const ENDPOINT_NAMES: [(&str, &[&str]); 14] = [
    ("data_query", &["version", "format"]),
    ("pv_estimator", &["format"]),
    ("climate_download", &["dataset", "format"]),
    ("optimizer_job", &[]),
    ("optimizer_results", &["run_uuid"]),
    ("optimizer_simulated_load", &[]),
    ("optimizer_avert_emissions_profile", &[]),
    ("optimizer_cambium_profile", &[]),
    ("optimizer_easiur_costs", &[]),
    ("utility_rates", &[]),
    ("wind_toolkit_srw", &[]),
    ("technical_potential_config", &["explorer"]),
    ("technical_potential_job", &["explorer"]),
    ("local_status", &["format"]),
];

/// `unknown endpoint "x" (use: data_query (args version, format), ...)`.
fn unknown_endpoint(name: &str) -> String {
    let known: Vec<String> = ENDPOINT_NAMES
        .iter()
        .map(|(known, args)| if args.is_empty() { (*known).to_owned() } else { format!("{known} (args {})", args.join(", ")) })
        .collect();
    format!("unknown endpoint {name:?}; the endpoints are: {}, and absolute (args url) for a URL the service handed out", known.join("; "))
}

impl Endpoint {
    /// Builds an endpoint from its snake_case name and path arguments (the Python face names
    /// endpoints this way). Missing arguments and unknown names are parameter errors.
    pub fn from_name(name: &str, arg: impl Fn(&str) -> Option<String>) -> Result<Endpoint, String> {
        let need = |key: &str| arg(key).ok_or_else(|| format!("endpoint {name:?} needs the path argument {key:?}"));
        let endpoint = match name {
            "data_query" => Endpoint::DataQuery { version: need("version")?, format: need("format")? },
            "pv_estimator" => Endpoint::PvEstimator { format: need("format")? },
            "pv_estimator_v8" => Endpoint::PvEstimatorV8 { format: need("format")? },
            "climate_download" => Endpoint::ClimateDownload { dataset: need("dataset")?, format: need("format")? },
            "optimizer_job" => Endpoint::OptimizerJob,
            "optimizer_results" => Endpoint::OptimizerResults { run_uuid: need("run_uuid")? },
            "optimizer_simulated_load" => Endpoint::OptimizerSimulatedLoad,
            "optimizer_avert_emissions_profile" => Endpoint::OptimizerLookup(OptimizerLookup::AvertEmissionsProfile),
            "optimizer_cambium_profile" => Endpoint::OptimizerLookup(OptimizerLookup::CambiumProfile),
            "optimizer_easiur_costs" => Endpoint::OptimizerLookup(OptimizerLookup::EasiurCosts),
            "utility_rates" => Endpoint::UtilityRates,
            "wind_toolkit_srw" => Endpoint::WindToolkitSrw,
            "technical_potential_config" => Endpoint::TechnicalPotentialConfig { explorer: need("explorer")? },
            "technical_potential_job" => Endpoint::TechnicalPotentialJob { explorer: need("explorer")? },
            "local_status" => Endpoint::LocalStatus { format: need("format")? },
            other => return Err(unknown_endpoint(other)),
        };
        endpoint.check().map_err(|problems| problems.join("; "))?;
        Ok(endpoint)
    }
}

/// A path argument: ASCII letters, digits, `-` and `_`, 1 to 200 of them.
pub fn is_identifier(text: &str) -> bool {
    (1..=crate::limits::MAX_ID_CHARS).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `8-4-4-4-12` hexadecimal digits, as every run UUID is written.
pub fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(group, len)| group.len() == len && group.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A value in a message: at most 60 characters of it.
fn shown(value: &str) -> String {
    let mut chars = value.chars();
    let head: String = chars.by_ref().take(60).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// Percent-encodes everything but ASCII letters, digits, `-`, `_` and `~`, so the text stays
/// inside one path segment whatever it holds (`.` too, so no `..` can form).
fn segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn optimizer_root(profile: RouteProfile) -> &'static str {
    match profile {
        RouteProfile::Spec => "/api/optimizer/stable",
        RouteProfile::Nlr => "/api/reopt/stable",
    }
}

fn estimator_root(profile: RouteProfile) -> &'static str {
    match profile {
        RouteProfile::Spec => "/api/pv-estimator",
        RouteProfile::Nlr => "/api/pvwatts",
    }
}

/// The optimizer service's default look-ups of grid emissions and health costs (GET, proxied by
/// the API to its Julia server; REopt_API `reoptjl/views.py` and `julia_src/http.jl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptimizerLookup {
    /// AVERT's hourly grid CO2, NOx, SO2 and PM2.5 factors of the site's region.
    AvertEmissionsProfile,
    /// Cambium's levelized hourly CO2 factor or clean-energy fraction of the site's region.
    CambiumProfile,
    /// EASIUR's health costs of emissions at the site and their escalation.
    EasiurCosts,
}

impl OptimizerLookup {
    pub const ALL: [OptimizerLookup; 3] = [OptimizerLookup::AvertEmissionsProfile, OptimizerLookup::CambiumProfile, OptimizerLookup::EasiurCosts];

    /// The endpoint's segment under the optimizer's root.
    pub fn route(self) -> &'static str {
        match self {
            OptimizerLookup::AvertEmissionsProfile => "avert_emissions_profile",
            OptimizerLookup::CambiumProfile => "cambium_profile",
            OptimizerLookup::EasiurCosts => "easiur_costs",
        }
    }
}

/// What the embedded service answers at a route: the router maps each to its handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// `status.<format>` and `outbox.json` (`{file}`).
    Local,
    /// `<version>.<format>` (`{file}`).
    DataQuery,
    /// `v6.<format>` and `v8.<format>` (`{file}`).
    PvEstimator,
    /// `<dataset>-download.<format>` (`{file}`), under each data set family's root.
    ClimateDownload,
    /// `<id>.zip` (`{file}`) on the file host.
    DownloadFile,
    OptimizerJob,
    OptimizerResults,
    OptimizerSimulatedLoad,
    OptimizerLookup(OptimizerLookup),
    UtilityRates,
    WindToolkitSrw,
    TechnicalPotentialConfig,
    TechnicalPotentialJob,
}

/// Every route pattern the embedded service serves (axum's syntax: `{name}` captures one path
/// segment), under both profiles, each once, built from the same roots as `Endpoint::path`.
pub fn served_routes() -> Vec<(String, Served)> {
    let mut routes = vec![
        (format!("{LOCAL_ROOT}/{{file}}"), Served::Local),
        (format!("{DATA_QUERY_ROOT}/{{file}}"), Served::DataQuery),
        (format!("{DOWNLOAD_FILES_PREFIX}{{file}}"), Served::DownloadFile),
        (UTILITY_RATES_PATH.to_owned(), Served::UtilityRates),
        (WIND_TOOLKIT_SRW_PATH.to_owned(), Served::WindToolkitSrw),
        (format!("{TECHNICAL_POTENTIAL_ROOT}/{{explorer}}/{TECHNICAL_POTENTIAL_TAIL}/config"), Served::TechnicalPotentialConfig),
        (format!("{TECHNICAL_POTENTIAL_ROOT}/{{explorer}}/{TECHNICAL_POTENTIAL_TAIL}"), Served::TechnicalPotentialJob),
    ];
    for family in DatasetFamily::ALL {
        routes.push((format!("{}/{{file}}", family.root()), Served::ClimateDownload));
    }
    for profile in [RouteProfile::Spec, RouteProfile::Nlr] {
        let optimizer = optimizer_root(profile);
        routes.extend([
            (format!("{}/{{file}}", estimator_root(profile)), Served::PvEstimator),
            (format!("{optimizer}/job/"), Served::OptimizerJob),
            (format!("{optimizer}/job/{{run_uuid}}/results/"), Served::OptimizerResults),
            (format!("{optimizer}/simulated_load/"), Served::OptimizerSimulatedLoad),
        ]);
        routes.extend(OptimizerLookup::ALL.map(|lookup| (format!("{optimizer}/{}/", lookup.route()), Served::OptimizerLookup(lookup))));
    }
    routes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downloads_are_routed_by_dataset_family() {
        let path = |dataset: &str| Endpoint::ClimateDownload { dataset: dataset.into(), format: "csv".into() }.path(RouteProfile::Nlr);
        assert_eq!(path("nsrdb-GOES-aggregated-v4-0-0"), "/api/nsrdb/v2/solar/nsrdb-GOES-aggregated-v4-0-0-download.csv");
        assert_eq!(path("ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"), "/api/climate/ncdb/v2/climate/ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5-download.csv");
        assert_eq!(DatasetFamily::of("NSRDB-GOES-conus-v4-0-0"), DatasetFamily::Nsrdb);
        assert_eq!(DatasetFamily::of("nsrdb"), DatasetFamily::Climate);
    }

    #[test]
    fn every_listed_endpoint_name_builds_with_its_listed_arguments() {
        let value = |key: &str| Some(if key == "run_uuid" { "12345678-1234-1234-1234-123456789abc".to_owned() } else { "json".to_owned() });
        for (name, args) in ENDPOINT_NAMES {
            assert!(Endpoint::from_name(name, value).is_ok(), "{name}");
            for missing in args {
                assert!(Endpoint::from_name(name, |key| if key == *missing { None } else { value(key) }).is_err(), "{name} {missing}");
            }
        }
        let message = Endpoint::from_name("climate", value).unwrap_err();
        assert!(message.contains("climate_download (args dataset, format)") && message.contains("absolute (args url)"), "{message}");
    }

    #[test]
    fn profiles_differ_only_for_estimator_and_optimizer() {
        let same = [
            Endpoint::DataQuery { version: "v1".into(), format: "json".into() },
            Endpoint::ClimateDownload { dataset: "ncdb-x".into(), format: "csv".into() },
            Endpoint::TechnicalPotentialJob { explorer: "rede".into() },
        ];
        for endpoint in same {
            assert_eq!(endpoint.path(RouteProfile::Spec), endpoint.path(RouteProfile::Nlr));
        }
        let pv = Endpoint::PvEstimator { format: "json".into() };
        assert_eq!(pv.path(RouteProfile::Spec), "/api/pv-estimator/v6.json");
        assert_eq!(pv.path(RouteProfile::Nlr), "/api/pvwatts/v6.json");
        let v8 = Endpoint::PvEstimatorV8 { format: "xml".into() };
        assert_eq!(v8.path(RouteProfile::Spec), "/api/pv-estimator/v8.xml");
        assert_eq!(v8.path(RouteProfile::Nlr), "/api/pvwatts/v8.xml");
        assert_eq!(v8.service_class(), ServiceClass::Solar);
        let job = Endpoint::OptimizerResults { run_uuid: "abc".into() };
        assert_eq!(job.path(RouteProfile::Spec), "/api/optimizer/stable/job/abc/results/");
        assert_eq!(job.path(RouteProfile::Nlr), "/api/reopt/stable/job/abc/results/");
        assert_eq!(Endpoint::OptimizerSimulatedLoad.path(RouteProfile::Nlr), "/api/reopt/stable/simulated_load/");
        assert_eq!(Endpoint::UtilityRates.path(RouteProfile::Spec), Endpoint::UtilityRates.path(RouteProfile::Nlr));
    }

    #[test]
    fn path_arguments_stay_in_their_segment() {
        let sneaky = Endpoint::OptimizerResults { run_uuid: "../../../../api/solar/data_query/v2.json?lat=1&lon=2#".into() };
        let path = sneaky.path(RouteProfile::Spec);
        let plain = Endpoint::OptimizerResults { run_uuid: "x".into() }.path(RouteProfile::Spec);
        assert_eq!(path.matches('/').count(), plain.matches('/').count(), "{path}");
        assert!(!path.contains('?') && !path.contains('#') && !path.contains(".."), "{path}");
        assert!(sneaky.check().unwrap_err()[0].starts_with("run_uuid must be a UUID"));
        let uuid = Endpoint::OptimizerResults { run_uuid: "2f1c5e0a-7b3d-4c2e-9a41-0d8e6b7f5c13".into() };
        assert!(uuid.check().is_ok());
        assert!(Endpoint::TechnicalPotentialJob { explorer: "a/b".into() }.check().is_err());
        assert!(Endpoint::ClimateDownload { dataset: "ncdb-x".into(), format: "csv?x=1".into() }.check().is_err());
        assert!(Endpoint::from_name("optimizer_results", |_| Some("x/../y".into())).is_err());
        assert_eq!(segment("a b/ü."), "a%20b%2F%C3%BC%2E");
    }

    /// Whether `path` matches the axum `pattern` (each `{name}` is one non-empty segment).
    fn matches(pattern: &str, path: &str) -> bool {
        let (pattern, path): (Vec<&str>, Vec<&str>) = (pattern.split('/').collect(), path.split('/').collect());
        pattern.len() == path.len()
            && pattern.iter().zip(&path).all(|(want, got)| if want.starts_with('{') { !got.is_empty() } else { want == got })
    }

    #[test]
    fn the_embedded_service_serves_every_path_the_client_asks_for_exactly_once() {
        let routes = served_routes();
        let mut patterns: Vec<&str> = routes.iter().map(|(pattern, _)| pattern.as_str()).collect();
        patterns.sort_unstable();
        patterns.dedup();
        assert_eq!(patterns.len(), routes.len(), "a route is listed twice");
        let uuid = "2f1c5e0a-7b3d-4c2e-9a41-0d8e6b7f5c13".to_owned();
        let endpoints = [
            (Endpoint::LocalStatus { format: "json".into() }, Served::Local),
            (Endpoint::DataQuery { version: "v2".into(), format: "csv".into() }, Served::DataQuery),
            (Endpoint::PvEstimator { format: "json".into() }, Served::PvEstimator),
            (Endpoint::PvEstimatorV8 { format: "xml".into() }, Served::PvEstimator),
            (Endpoint::ClimateDownload { dataset: "ncdb-x".into(), format: "csv".into() }, Served::ClimateDownload),
            (Endpoint::ClimateDownload { dataset: "nsrdb-x".into(), format: "json".into() }, Served::ClimateDownload),
            (Endpoint::OptimizerJob, Served::OptimizerJob),
            (Endpoint::OptimizerResults { run_uuid: uuid }, Served::OptimizerResults),
            (Endpoint::OptimizerSimulatedLoad, Served::OptimizerSimulatedLoad),
            (Endpoint::OptimizerLookup(OptimizerLookup::CambiumProfile), Served::OptimizerLookup(OptimizerLookup::CambiumProfile)),
            (Endpoint::OptimizerLookup(OptimizerLookup::EasiurCosts), Served::OptimizerLookup(OptimizerLookup::EasiurCosts)),
            (Endpoint::UtilityRates, Served::UtilityRates),
            (Endpoint::WindToolkitSrw, Served::WindToolkitSrw),
            (Endpoint::TechnicalPotentialConfig { explorer: "rede".into() }, Served::TechnicalPotentialConfig),
            (Endpoint::TechnicalPotentialJob { explorer: "rede".into() }, Served::TechnicalPotentialJob),
        ];
        for (endpoint, served) in endpoints {
            for profile in [RouteProfile::Spec, RouteProfile::Nlr] {
                let path = endpoint.path(profile);
                let hits: Vec<Served> = routes.iter().filter(|(pattern, _)| matches(pattern, &path)).map(|(_, s)| *s).collect();
                assert_eq!(hits, vec![served], "{path}");
            }
        }
        assert!(routes.iter().any(|(pattern, served)| *served == Served::DownloadFile && matches(pattern, "/files/climate/abc.zip")));
    }

    #[test]
    fn climate_format_picks_the_throttle() {
        let csv = Endpoint::ClimateDownload { dataset: "d".into(), format: "csv".into() };
        let json = Endpoint::ClimateDownload { dataset: "d".into(), format: "json".into() };
        assert_eq!(csv.service_class(), ServiceClass::ClimateCsv);
        assert_eq!(json.service_class(), ServiceClass::ClimateOther);
    }
}

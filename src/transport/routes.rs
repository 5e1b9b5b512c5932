//! The route table: every endpoint's path under both profiles, and its throttle class.
//! This is the only place that spells a service path.

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
    /// Dataset query v1/v2 and estimators v6 and v8 share 1,000 requests per rolling hour.
    Solar,
    /// Climate download in csv: 1 per second, 10,000 per day, at most 20 in flight.
    ClimateCsv,
    /// Climate download in other formats: 1 per 2 seconds, 2,000 per day, at most 20 in flight.
    ClimateOther,
    /// Optimizer jobs: no limit stated by the spec.
    Optimizer,
    /// Technical potential: polling is explicitly not rate-limited.
    TechnicalPotential,
    /// Files behind a download URL and the local diagnostics endpoint.
    Unthrottled,
}

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
    TechnicalPotentialConfig { explorer: String },
    TechnicalPotentialJob { explorer: String },
    /// The embedded service's own status endpoint (not part of the spec).
    LocalStatus { format: String },
}

impl Endpoint {
    /// The path (starting with `/api/`) of this endpoint under `profile`.
    pub fn path(&self, profile: RouteProfile) -> String {
        match self {
            Endpoint::DataQuery { version, format } => format!("/api/solar/data_query/{version}.{format}"),
            Endpoint::PvEstimator { format } => match profile {
                RouteProfile::Spec => format!("/api/pv-estimator/v6.{format}"),
                RouteProfile::Nlr => format!("/api/pvwatts/v6.{format}"),
            },
            Endpoint::PvEstimatorV8 { format } => match profile {
                RouteProfile::Spec => format!("/api/pv-estimator/v8.{format}"),
                RouteProfile::Nlr => format!("/api/pvwatts/v8.{format}"),
            },
            Endpoint::ClimateDownload { dataset, format } => {
                format!("/api/climate/ncdb/v2/climate/{dataset}-download.{format}")
            }
            Endpoint::OptimizerJob => format!("{}/job/", optimizer_root(profile)),
            Endpoint::OptimizerResults { run_uuid } => {
                format!("{}/job/{run_uuid}/results/", optimizer_root(profile))
            }
            Endpoint::TechnicalPotentialConfig { explorer } => {
                format!("/api/opencarto/{explorer}/v1/technical-potential/config")
            }
            Endpoint::TechnicalPotentialJob { explorer } => {
                format!("/api/opencarto/{explorer}/v1/technical-potential")
            }
            Endpoint::LocalStatus { format } => format!("/api/local/v1/status.{format}"),
        }
    }

    /// The throttle group this endpoint's requests count against.
    pub fn service_class(&self) -> ServiceClass {
        match self {
            Endpoint::DataQuery { .. } | Endpoint::PvEstimator { .. } | Endpoint::PvEstimatorV8 { .. } => {
                ServiceClass::Solar
            }
            Endpoint::ClimateDownload { format, .. } if format == "csv" => ServiceClass::ClimateCsv,
            Endpoint::ClimateDownload { .. } => ServiceClass::ClimateOther,
            Endpoint::OptimizerJob | Endpoint::OptimizerResults { .. } => ServiceClass::Optimizer,
            Endpoint::TechnicalPotentialConfig { .. } | Endpoint::TechnicalPotentialJob { .. } => {
                ServiceClass::TechnicalPotential
            }
            Endpoint::LocalStatus { .. } => ServiceClass::Unthrottled,
        }
    }
}

impl Endpoint {
    /// Builds an endpoint from its snake_case name and path arguments (the Python face names
    /// endpoints this way). Missing arguments and unknown names are parameter errors.
    pub fn from_name(name: &str, arg: impl Fn(&str) -> Option<String>) -> Result<Endpoint, String> {
        let need = |key: &str| arg(key).ok_or_else(|| format!("endpoint {name:?} needs the path argument {key:?}"));
        Ok(match name {
            "data_query" => Endpoint::DataQuery { version: need("version")?, format: need("format")? },
            "pv_estimator" => Endpoint::PvEstimator { format: need("format")? },
            "pv_estimator_v8" => Endpoint::PvEstimatorV8 { format: need("format")? },
            "climate_download" => Endpoint::ClimateDownload { dataset: need("dataset")?, format: need("format")? },
            "optimizer_job" => Endpoint::OptimizerJob,
            "optimizer_results" => Endpoint::OptimizerResults { run_uuid: need("run_uuid")? },
            "technical_potential_config" => Endpoint::TechnicalPotentialConfig { explorer: need("explorer")? },
            "technical_potential_job" => Endpoint::TechnicalPotentialJob { explorer: need("explorer")? },
            "local_status" => Endpoint::LocalStatus { format: need("format")? },
            other => return Err(format!("unknown endpoint {other:?}")),
        })
    }
}

fn optimizer_root(profile: RouteProfile) -> &'static str {
    match profile {
        RouteProfile::Spec => "/api/optimizer/stable",
        RouteProfile::Nlr => "/api/reopt/stable",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn climate_format_picks_the_throttle() {
        let csv = Endpoint::ClimateDownload { dataset: "d".into(), format: "csv".into() };
        let json = Endpoint::ClimateDownload { dataset: "d".into(), format: "json".into() };
        assert_eq!(csv.service_class(), ServiceClass::ClimateCsv);
        assert_eq!(json.service_class(), ServiceClass::ClimateOther);
    }
}

//! The embedded climate download endpoint, `GET|POST <family root>/<dataset_slug>-download.<json|csv>`
//! (the spec's climate download and NSRDB's, `spec::routes::Endpoint::ClimateDownload`; the
//! roots are `spec::routes::DatasetFamily::root`, the data sets `embedded::climate::datasets`), as pure functions from a
//! request to a `ServiceReply`, plus the download file route and the test outbox.
//!
//! Flow for the HTTP layer (the bookkeeping lives behind one lock; no lock is held while data
//! is generated):
//! - csv: `jobs.admit_csv(user, now)` (refusal → `refusal_reply`), then `csv_reply`, then
//!   `jobs.finish_csv(permit)`.
//! - json: `prepare_download` (400 on bad parameters), then under the lock `json_reply`, which
//!   queues the job; a background task repeatedly takes `jobs.start_next()`, runs
//!   `build_download_zip` off the lock, and records `jobs.complete` or `jobs.fail`.
//! - `GET <base>/files/climate/<id>.zip` (no key needed, like the real file host):
//!   `download_reply` — 200 with the zip once ready; until then 404 with `Retry-After: 2` (the
//!   client polls on 404); 410 when the build failed; 404 for unknown or expired ids.
//! - `outbox_reply`: the e-mails the service would have sent (`{"outbox":[{to, subject, body,
//!   sent_at_s}]}`), for tests.
//!
//! Bodies: the spec's download response (`inputs` with `body`/`params`/`query` echoing the
//! request as received — never the api_key —, `metadata.version`, `metadata.resultset.count` =
//! number of sites, `status`, `outputs.message` naming the e-mail address, `outputs.downloadUrl`);
//! every error is JSON `{"inputs", "metadata": {"version"}, "status", "errors": [...]}`, also on
//! csv requests, as the real service answers: 400 for invalid or missing parameters, 429 (with
//! `Retry-After`) for the per-user rate limits and the in-flight cap, 503 (with `Retry-After`)
//! and a message containing "queue is full" when the queue is full.

pub mod datasets;
pub mod grid;
pub mod jobs;

use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::formats::climate_csv::{write_climate_csv, ClimateMetadata, ClimateTable, DataColumn, Units, SYNTHETIC_SOURCE};
use crate::formats::climate_zip::{build_zip, entry_name};
use crate::formats::Format;
use crate::embedded::catalog::Catalog;
use crate::embedded::climate::datasets::{coverage_of, outside, UnknownDataset};
use crate::embedded::climate::grid::{describe_site, sites_for_geometry, GridError, SiteInfo, GRID_STEP_DEG};
use crate::embedded::climate::jobs::{ClimateJobs, Download, NewJob, PreparedDownload, Refusal};
use crate::embedded::reply::ServiceReply;
use crate::embedded::state::{lock, query_pairs, reply_response, AuthenticatedKey, ServiceState};
use crate::embedded::weather_gen::{generate, SeriesOptions};
use crate::spec::routes::{DatasetFamily, DOWNLOAD_FILES_PREFIX};
use crate::services::climate::{
    check_weight, request_weight, validate_climate_request, ClimateParams, RawClimateRequest, MAX_REQUEST_WEIGHT,
};

/// `metadata.version` of this local service.
pub const SERVICE_VERSION: &str = "2.0.0-local";
/// The CSV metadata `Version` of the synthetic data.
pub const DATA_VERSION: &str = "1.0.0";
/// Seconds a client is told to wait before asking again for a file that is not ready.
const NOT_READY_RETRY_AFTER_S: u64 = 2;

/// A climate download request as the HTTP layer received it.
#[derive(Debug, Clone, Copy)]
pub struct ClimateHttpRequest<'a> {
    /// The `<dataset_slug>` of the path.
    pub dataset: &'a str,
    pub format: Format,
    /// Decoded query pairs (may hold the api_key; it is never echoed).
    pub query: &'a [(String, String)],
    /// Decoded form-urlencoded body pairs of a POST (empty for GET).
    pub body: &'a [(String, String)],
}

impl ClimateHttpRequest<'_> {
    /// The raw parameters: query first, then body, so the body wins for a repeated name.
    pub fn raw(&self) -> RawClimateRequest {
        let pairs: Vec<(String, String)> = self.query.iter().chain(self.body).cloned().collect();
        RawClimateRequest::from_pairs(self.dataset, &pairs)
    }

    /// The `inputs` echo: body, params (empty, as the real service shows) and query, without the
    /// api_key.
    pub fn inputs(&self) -> Value {
        let echo = |pairs: &[(String, String)]| -> Value {
            let mut map = Map::new();
            for (name, value) in pairs.iter().filter(|(name, _)| name != "api_key") {
                map.insert(name.clone(), Value::String(value.clone()));
            }
            Value::Object(map)
        };
        json!({"body": echo(self.body), "params": {}, "query": echo(self.query)})
    }
}

/// The dataset slug and format of the last path segment `<slug>-download.<json|csv>`.
pub fn parse_download_file(file: &str) -> Option<(String, Format)> {
    let (stem, suffix) = file.rsplit_once('.')?;
    let format = Format::from_suffix(suffix).filter(|f| *f != Format::Xml)?;
    let slug = stem.strip_suffix("-download").filter(|s| !s.is_empty())?;
    Some((slug.to_string(), format))
}

/// The URL of a job's zip under `base_url` (e.g. `http://127.0.0.1:8123`).
pub fn download_url(base_url: &str, id: &str) -> String {
    format!("{}{DOWNLOAD_FILES_PREFIX}{id}.zip", base_url.trim_end_matches('/'))
}

/// The job id of a download path's last segment `<id>.zip` (32 hex digits).
pub fn parse_download_id(file: &str) -> Option<&str> {
    let id = file.strip_suffix(".zip")?;
    (id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())).then_some(id)
}

/// The error body of the service: inputs, version, status and messages.
pub fn error_reply(status: u16, inputs: Value, errors: &[String]) -> ServiceReply {
    ServiceReply::json(
        status,
        &json!({"inputs": inputs, "metadata": {"version": SERVICE_VERSION}, "status": status, "errors": errors}),
    )
}

/// Answer to a request the limits refused: 429 (rate, in flight) or 503 (queue full), with
/// `Retry-After`.
pub fn refusal_reply(refusal: &Refusal, inputs: Value) -> ServiceReply {
    let status = match refusal {
        Refusal::QueueFull { .. } => 503,
        Refusal::RateLimited { .. } | Refusal::TooManyInFlight { .. } => 429,
    };
    let mut reply = error_reply(status, inputs, &[refusal.message()]);
    reply.headers.push(("Retry-After", refusal.retry_after().as_secs_f64().ceil().max(1.0).to_string()));
    reply
}

/// Answers a csv request: one site, one year, streamed in the spec's layout.
pub fn csv_reply(request: &ClimateHttpRequest<'_>, catalog: &Catalog, anywhere: bool) -> ServiceReply {
    let inputs = request.inputs();
    let coverage = match coverage_of(request.dataset) {
        Ok(coverage) => coverage,
        Err(UnknownDataset(problem)) => return error_reply(404, inputs, &[problem]),
    };
    let params = match validate_climate_request(&request.raw(), Format::Csv) {
        Ok(params) => params,
        Err(problems) => return error_reply(400, inputs, &problems),
    };
    let site = match sites_for_geometry(&params.geometry, 1) {
        Ok(sites) => describe_site(sites[0], catalog),
        Err(error) => return error_reply(400, inputs, &[format!("wkt: {error}")]),
    };
    if let Some(problem) = outside(&params.dataset, &coverage, std::iter::once((site.lat, site.lon))).filter(|_| !anywhere) {
        return error_reply(400, inputs, &[problem]);
    }
    let Some(&year) = params.years.first() else {
        return error_reply(400, inputs, &["names (the years) is required".to_string()]);
    };
    let table = site_year_table(&params, &site, year);
    ServiceReply::new(200, Format::Csv.content_type(), write_climate_csv(&table))
}

/// Validates a json request and resolves its sites (400 reply on any problem).
pub fn prepare_download(request: &ClimateHttpRequest<'_>, catalog: &Catalog, anywhere: bool) -> Result<PreparedDownload, ServiceReply> {
    let inputs = request.inputs();
    let coverage = coverage_of(request.dataset).map_err(|UnknownDataset(problem)| error_reply(404, inputs.clone(), &[problem]))?;
    let params = validate_climate_request(&request.raw(), Format::Json)
        .map_err(|problems| error_reply(400, inputs.clone(), &problems))?;
    let per_site =
        request_weight(1, params.attributes.len(), &params.years, params.leap_day, params.interval_minutes).max(1);
    let max_sites = usize::try_from(MAX_REQUEST_WEIGHT / per_site).unwrap_or(usize::MAX);
    let grid_sites = sites_for_geometry(&params.geometry, max_sites).map_err(|error| {
        let message = match error {
            GridError::TooManySites { limit } => format!(
                "wkt: the polygon covers more than {limit} sites of this service's {GRID_STEP_DEG}° grid, so with {} attribute(s) \
                 and {} year(s) the request weighs more than the service's cap of {MAX_REQUEST_WEIGHT}; use a smaller polygon, \
                 fewer years or fewer attributes",
                params.attributes.len(),
                params.years.len()
            ),
            GridError::NoSites => "wkt: the geometry covers no site of the grid".to_string(),
        };
        error_reply(400, inputs.clone(), &[message])
    })?;
    if let Err(problem) = check_weight(&params, grid_sites.len() as u64) {
        return Err(error_reply(400, inputs, &[problem]));
    }
    if let Some(problem) = outside(&params.dataset, &coverage, grid_sites.iter().map(|site| (site.lat(), site.lon()))).filter(|_| !anywhere) {
        return Err(error_reply(400, inputs, &[problem]));
    }
    let sites = grid_sites.into_iter().map(|site| describe_site(site, catalog)).collect();
    Ok(PreparedDownload { params, sites, inputs })
}

/// Queues a prepared json request and answers with the spec's download response (or the refusal).
pub fn json_reply(
    prepared: PreparedDownload,
    jobs: &mut ClimateJobs<PreparedDownload>,
    user: &str,
    now: Duration,
    base_url: &str,
) -> ServiceReply {
    let inputs = prepared.inputs.clone();
    let email = prepared.params.email.clone();
    let count = prepared.sites.len();
    let job = NewJob {
        user: user.to_string(),
        email: email.clone(),
        description: describe_request(&prepared),
        payload: prepared,
    };
    match jobs.submit(job, now, |id| download_url(base_url, id)) {
        Ok(status) => ServiceReply::json(
            200,
            &json!({
                "inputs": inputs,
                "metadata": {"version": SERVICE_VERSION, "resultset": {"count": count}},
                "status": 200,
                "outputs": {
                    "message": format!("File generation in progress. An email will be sent to {email} when the download is ready."),
                    "downloadUrl": status.download_url,
                },
                "errors": [],
            }),
        ),
        Err(refusal) => refusal_reply(&refusal, inputs),
    }
}

/// One line for the e-mail: data set, sites, years, attributes.
fn describe_request(prepared: &PreparedDownload) -> String {
    let params = &prepared.params;
    let years: Vec<String> = params.years.iter().map(i32::to_string).collect();
    let attributes = params.attribute_names();
    format!(
        "Climate data {} for {} site(s), years {}, attributes {} ({} time stamps).",
        params.dataset,
        prepared.sites.len(),
        years.join(","),
        attributes.join(","),
        if params.utc { "UTC" } else { "local standard time" }
    )
}

/// Builds the zip of a job: one CSV per site and year (run it off the lock).
pub fn build_download_zip(job: &PreparedDownload) -> Result<Vec<u8>, String> {
    let years = &job.params.years;
    let count = job.sites.len() * years.len();
    build_zip(count, |index| {
        let site = job.sites.get(index / years.len()).ok_or("no such site")?;
        let year = *years.get(index % years.len()).ok_or("no such year")?;
        let table = site_year_table(&job.params, site, year);
        Ok((entry_name(&table.metadata.location_id, site.lat, site.lon, year), write_climate_csv(&table)))
    })
    .map_err(|error| error.to_string())
}

/// What a download URL answers.
pub fn download_reply<P>(jobs: &ClimateJobs<P>, id: &str) -> ServiceReply {
    let message = |status: u16, text: String| ServiceReply::json(status, &json!({"status": status, "errors": [text]}));
    match jobs.download(id) {
        Download::Ready(file) => {
            let mut reply = ServiceReply::new(200, "application/zip", file.to_vec());
            reply.headers.push(("Content-Disposition", format!("attachment; filename=\"{id}.zip\"")));
            reply
        }
        Download::NotReady(state) => {
            let mut reply = message(
                404,
                format!("The file is not ready yet (the job is {}); it appears at this address when the e-mail is sent. Try again shortly.", state.as_str()),
            );
            reply.headers.push(("Retry-After", NOT_READY_RETRY_AFTER_S.to_string()));
            reply
        }
        Download::Failed(error) => message(410, format!("The file could not be generated: {error}")),
        Download::Unknown => message(404, "No download file at this address (unknown or expired).".to_string()),
    }
}

/// The e-mails sent so far.
pub fn outbox_reply<P>(jobs: &ClimateJobs<P>) -> ServiceReply {
    let mails: Vec<Value> = jobs
        .outbox()
        .iter()
        .map(|mail| json!({"to": mail.to, "subject": mail.subject, "body": mail.body, "sent_at_s": mail.sent_at.as_secs_f64()}))
        .collect();
    ServiceReply::json(200, &json!({"outbox": mails}))
}

/// The CSV table of one site and year: generated series, values rounded to file precision,
/// columns in the order asked.
pub fn site_year_table(params: &ClimateParams, site: &SiteInfo, year: i32) -> ClimateTable {
    let series = generate(&site.spec(&params.dataset), year, &SeriesOptions::download(params.utc, params.leap_day));
    let family = DatasetFamily::of(&params.dataset);
    let columns = params
        .attributes
        .iter()
        .map(|&attribute| {
            DataColumn::of_family(attribute, family, series.values(attribute).iter().map(|&v| attribute.round_for_file(v)).collect())
        })
        .collect();
    ClimateTable {
        metadata: site_metadata(&params.dataset, site, params.utc),
        year: series.year,
        month: series.month,
        day: series.day,
        hour: series.hour,
        minute: series.minute,
        columns,
    }
}

/// Rows 1–2 of a site's CSV.
pub fn site_metadata(dataset: &str, site: &SiteInfo, utc: bool) -> ClimateMetadata {
    ClimateMetadata {
        source: format!("{SYNTHETIC_SOURCE} weather for {dataset} (not measured data)"),
        location_id: site.site.id().to_string(),
        city: site.city.clone(),
        county: site.county.clone(),
        state: site.state.clone(),
        country: if site.country.is_empty() { "-".to_string() } else { site.country.clone() },
        offshore: Some(site.offshore),
        eez: site.eez.clone(),
        latitude: Some(site.lat),
        longitude: Some(site.lon),
        time_zone: Some(if utc { 0.0 } else { site.tz_offset_hours }),
        elevation: Some(site.elevation_m),
        local_time_zone: Some(site.tz_offset_hours),
        units: Units::service(),
        version: DATA_VERSION.to_string(),
        raw: Vec::new(),
    }
}

/// The climate download route, GET or POST (form body), `<slug>-download.<csv|json>`.
pub async fn handle(
    axum::extract::State(state): axum::extract::State<std::sync::Arc<ServiceState>>,
    axum::extract::Path(file): axum::extract::Path<String>,
    axum::Extension(key): axum::Extension<AuthenticatedKey>,
    request: axum::extract::Request,
) -> axum::response::Response {
    let Some((dataset, format)) = parse_download_file(&file) else {
        return reply_response(error_reply(
            404,
            json!({}),
            &[format!("unknown climate download path {file:?}: use <dataset slug>-download.csv or .json")],
        ));
    };
    let root = DatasetFamily::of(&dataset).root();
    if !request.uri().path().starts_with(&format!("{root}/")) {
        return reply_response(error_reply(404, json!({}), &[format!("the data set {dataset:?} is served under {root}/, not here")]));
    }
    let query = query_pairs(&request);
    let body = match axum::body::to_bytes(request.into_body(), 16 << 20).await {
        Ok(bytes) => url::form_urlencoded::parse(&bytes).into_owned().collect::<Vec<(String, String)>>(),
        Err(error) => return reply_response(error_reply(400, json!({}), &[format!("could not read the request body: {error}")])),
    };
    let user = key.0;
    let now = state.uptime();
    let reply = match format {
        Format::Csv => {
            let permit = lock(&state.climate_jobs).admit_csv(&user, now);
            match permit {
                Err(refusal) => refusal_reply(&refusal, ClimateHttpRequest { dataset: &dataset, format, query: &query, body: &body }.inputs()),
                Ok(permit) => {
                    let shared = state.clone();
                    let reply = tokio::task::spawn_blocking(move || {
                        csv_reply(&ClimateHttpRequest { dataset: &dataset, format, query: &query, body: &body }, shared.catalog, shared.climate_anywhere)
                    })
                    .await
                    .unwrap_or_else(|e| error_reply(500, json!({}), &[format!("the download failed: {e}")]));
                    lock(&state.climate_jobs).finish_csv(permit);
                    reply
                }
            }
        }
        _ => {
            let shared = state.clone();
            let prepared = tokio::task::spawn_blocking(move || {
                prepare_download(&ClimateHttpRequest { dataset: &dataset, format, query: &query, body: &body }, shared.catalog, shared.climate_anywhere)
            })
            .await
            .unwrap_or_else(|e| Err(error_reply(500, json!({}), &[format!("the request failed: {e}")])));
            match prepared {
                Err(reply) => reply,
                Ok(prepared) => {
                    let base_url = state.base_url.get().cloned().unwrap_or_default();
                    let reply = json_reply(prepared, &mut lock(&state.climate_jobs), &user, now, &base_url);
                    start_builder(state.clone());
                    reply
                }
            }
        }
    };
    reply_response(reply)
}

/// Builds queued download files one after another on a blocking thread; at most one builder runs.
fn start_builder(state: std::sync::Arc<ServiceState>) {
    use std::sync::atomic::Ordering;
    if state.climate_builder_running.compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire).is_err() {
        return;
    }
    tokio::task::spawn_blocking(move || loop {
        let next = lock(&state.climate_jobs).start_next();
        match next {
            Some((id, job)) => {
                std::thread::sleep(state.climate_build_delay);
                let built = build_download_zip(&job);
                let now = state.uptime();
                let mut jobs = lock(&state.climate_jobs);
                match built {
                    Ok(file) => jobs.complete(&id, bytes::Bytes::from(file), now),
                    Err(error) => jobs.fail(&id, &error, now),
                };
            }
            None => {
                state.climate_builder_running.store(false, Ordering::Release);
                let more = lock(&state.climate_jobs).has_queued();
                if !more || state.climate_builder_running.compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire).is_err() {
                    return;
                }
            }
        }
    });
}

/// `GET /files/climate/<id>.zip`: the file host (no key; 404 with `Retry-After` until ready).
pub async fn handle_download(
    axum::extract::State(state): axum::extract::State<std::sync::Arc<ServiceState>>,
    axum::extract::Path(file): axum::extract::Path<String>,
) -> axum::response::Response {
    let reply = match parse_download_id(&file) {
        Some(id) => {
            let mut jobs = lock(&state.climate_jobs);
            jobs.expire(state.uptime());
            if jobs.status(id).is_some() {
                state.record_hit(&format!("{DOWNLOAD_FILES_PREFIX}{file}"));
            }
            download_reply(&jobs, id)
        }
        None => ServiceReply::json(404, &json!({"status": 404, "errors": ["No download file at this address."]})),
    };
    reply_response(reply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::climate_csv::parse_climate_csv;
    use crate::formats::climate_zip::read_climate_zip;
    use crate::embedded::climate::jobs::JobLimits;

    /// A data set of the catalogue (`datasets::DATASETS`).
    const SLUG: &str = "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5";

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn catalog() -> &'static Catalog {
        static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
        CATALOG.get_or_init(Catalog::synthetic)
    }

    #[test]
    fn csv_request_streams_one_site_year() {
        let query = pairs(&[
            ("api_key", "SECRET"),
            ("wkt", "POINT(-105.26 40.02)"),
            ("names", "2012"),
            ("interval", "60"),
            ("email", "a@b.org"),
            ("attributes", "ghi,temperature_2m"),
            ("leap_day", "true"),
            ("utc", "false"),
        ]);
        let request = ClimateHttpRequest { dataset: SLUG, format: Format::Csv, query: &query, body: &[] };
        let reply = csv_reply(&request, catalog(), false);
        assert_eq!(reply.status, 200);
        let table = parse_climate_csv(&reply.body).unwrap();
        assert_eq!(table.len(), 8784);
        assert_eq!(table.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["ghi", "temperature_2m"]);
        assert_eq!(table.metadata.time_zone, Some(-7.0));
        assert_eq!(table.metadata.state, "Colorado");
        assert!(table.metadata.source.contains(SLUG) && table.metadata.source.contains("synthetic"));
        assert_eq!((table.year[0], table.month[0], table.day[0], table.hour[0], table.minute[0]), (2012, 1, 1, 0, 0));
    }

    #[test]
    fn bad_requests_get_json_400_without_the_key() {
        let query = pairs(&[("api_key", "SECRET"), ("wkt", "POINT(-105 40)")]);
        let body = pairs(&[("names", "2010,2011")]);
        let request = ClimateHttpRequest { dataset: SLUG, format: Format::Csv, query: &query, body: &body };
        let reply = csv_reply(&request, catalog(), false);
        assert_eq!(reply.status, 400);
        let value: Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(value["status"], 400);
        assert_eq!(value["metadata"]["version"], SERVICE_VERSION);
        assert_eq!(value["inputs"]["body"]["names"], "2010,2011");
        assert!(!String::from_utf8_lossy(&reply.body).contains("SECRET"));
        let errors: Vec<String> = serde_json::from_value(value["errors"].clone()).unwrap();
        assert!(errors.iter().any(|e| e.starts_with("interval is required")));
        assert!(errors.iter().any(|e| e.starts_with("csv streams a single year")));
        let keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["inputs", "metadata", "status", "errors"]);
    }

    #[test]
    fn json_request_queues_a_zip_that_becomes_downloadable() {
        let query = pairs(&[("api_key", "SECRET")]);
        let body = pairs(&[
            ("wkt", "MULTIPOINT((-105.26 40.02),(2.35 48.85))"),
            ("names", "2010,2011"),
            ("interval", "60"),
            ("email", "me@example.org"),
            ("attributes", "dni,ghi"),
        ]);
        let request = ClimateHttpRequest { dataset: SLUG, format: Format::Json, query: &query, body: &body };
        let prepared = prepare_download(&request, catalog(), true).unwrap();
        let mut jobs = ClimateJobs::new(JobLimits::default(), 9);
        let reply = json_reply(prepared, &mut jobs, "SECRET", Duration::ZERO, "http://127.0.0.1:5000/");
        assert_eq!(reply.status, 200);
        let value: Value = serde_json::from_slice(&reply.body).unwrap();
        let keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["inputs", "metadata", "status", "outputs", "errors"]);
        assert_eq!(value["metadata"]["resultset"]["count"], 2);
        assert!(value["outputs"]["message"].as_str().unwrap().contains("me@example.org"));
        let url = value["outputs"]["downloadUrl"].as_str().unwrap().to_string();
        assert!(url.starts_with("http://127.0.0.1:5000/files/climate/") && !url.contains("SECRET"));
        let id = parse_download_id(url.rsplit('/').next().unwrap()).unwrap().to_string();
        assert_eq!(download_reply(&jobs, &id).status, 404);
        let (job_id, job) = jobs.start_next().unwrap();
        let zip = build_download_zip(&job).unwrap();
        jobs.complete(&job_id, zip.into(), Duration::from_secs(3));
        let download = download_reply(&jobs, &id);
        assert_eq!((download.status, download.content_type), (200, "application/zip"));
        let read = read_climate_zip(&download.body, u64::MAX, None).unwrap();
        assert_eq!(read.files.len(), 4);
        assert_eq!(read.sites.num_rows(), 2);
        assert_eq!(read.num_rows(), 4 * 8760);
        let outbox: Value = serde_json::from_slice(&outbox_reply(&jobs).body).unwrap();
        assert!(outbox["outbox"][0]["body"].as_str().unwrap().contains(&url));
    }

    #[test]
    fn refusals_and_paths() {
        let limits = JobLimits { queue_capacity: 0, ..JobLimits::default() };
        let mut jobs = ClimateJobs::new(limits, 1);
        let body = pairs(&[("wkt", "POINT(1 2)"), ("names", "2010"), ("interval", "60"), ("email", "me@example.org")]);
        let request = ClimateHttpRequest { dataset: SLUG, format: Format::Json, query: &[], body: &body };
        let reply =
            json_reply(prepare_download(&request, catalog(), true).unwrap(), &mut jobs, "u", Duration::ZERO, "http://h");
        assert_eq!(reply.status, 503);
        assert!(String::from_utf8_lossy(&reply.body).contains("queue is full"));
        assert!(reply.headers.iter().any(|(name, _)| *name == "Retry-After"));
        assert_eq!(
            parse_download_file("ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5-download.csv"),
            Some(("ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5".into(), Format::Csv))
        );
        assert_eq!(parse_download_file("x-download.xml"), None);
        assert_eq!(parse_download_file("-download.json"), None);
        assert_eq!(parse_download_id("0123456789abcdef0123456789abcdef.zip"), Some("0123456789abcdef0123456789abcdef"));
        assert_eq!(parse_download_id("../secret.zip"), None);
        let big = pairs(&[
            ("wkt", "POLYGON((-110 30, -90 30, -90 45, -110 45, -110 30))"),
            ("names", "2010"),
            ("interval", "60"),
            ("email", "me@example.org"),
        ]);
        let request = ClimateHttpRequest { dataset: SLUG, format: Format::Json, query: &[], body: &big };
        let refused = prepare_download(&request, catalog(), false).unwrap_err();
        assert_eq!(refused.status, 400);
        let years = "2000,2001,2002,2003,2004,2005,2006,2007,2008,2009,2010,2011,2012,2013,2014";
        let sliver = pairs(&[
            ("wkt", "POLYGON((-110 30, -90 45, -90.0001 45, -110 30))"),
            ("names", years),
            ("interval", "60"),
            ("email", "me@example.org"),
        ]);
        let request = ClimateHttpRequest { dataset: SLUG, format: Format::Json, query: &[], body: &sliver };
        let refused = prepare_download(&request, catalog(), false).unwrap_err();
        let text = String::from_utf8_lossy(&refused.body).into_owned();
        assert!(text.contains("covers more than") && text.contains("0.04° grid"), "{text}");
    }
}

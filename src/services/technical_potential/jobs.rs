//! Jobs: status, the submission answer, and the typed job result in both directions.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::*;

/// A job's status. Anything but the three documented values is a failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobStatus {
    Queued,
    Started,
    Finished,
    /// The status text as the service wrote it (the spec does not name the failure status).
    Failed(String),
}

impl JobStatus {
    pub fn parse(text: &str) -> JobStatus {
        match text.trim().to_ascii_lowercase().as_str() {
            "queued" => JobStatus::Queued,
            "started" => JobStatus::Started,
            "finished" => JobStatus::Finished,
            _ => JobStatus::Failed(text.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Started => "started",
            JobStatus::Finished => "finished",
            JobStatus::Failed(text) => text,
        }
    }

    /// Finished or failed: polling will not change it.
    pub fn is_terminal(&self) -> bool {
        matches!(self, JobStatus::Finished | JobStatus::Failed(_))
    }
}

/// The answer to a job POST.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSubmission {
    pub job_id: String,
    pub status: JobStatus,
}

/// Parses a job POST response body (`outputs.jobId`, `outputs.status`).
pub fn parse_job_submission(body: &[u8]) -> Result<JobSubmission, ParseError> {
    let root = parse_json(body)?;
    let outputs = object(root.get("outputs").unwrap_or(&Value::Null), "outputs")?;
    let job_id = outputs
        .get("jobId")
        .and_then(text_of)
        .filter(|id| !id.is_empty())
        .ok_or_else(|| shape("outputs.jobId", "missing job id"))?;
    let status = outputs.get("status").and_then(text_of).map_or(JobStatus::Queued, |s| JobStatus::parse(&s));
    Ok(JobSubmission { job_id, status })
}

/// One poll of a job: its status and, when finished, its results.
#[derive(Debug, Clone, PartialEq)]
pub struct JobResult {
    /// `inputs.jobId`.
    pub job_id: Option<String>,
    pub status: JobStatus,
    pub disposition: Option<String>,
    pub runtime_seconds: Option<f64>,
    pub map_data_deleted: Option<bool>,
    pub results: Option<JobResultData>,
    /// The body's `errors` (the failure messages of a failed job).
    pub errors: Vec<String>,
}

/// `outputs.results` of a finished job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobResultData {
    pub cumulative_stats: Stats,
    /// Keyed by sub-region name.
    pub regional_stats: BTreeMap<String, Stats>,
    pub resource_data: Option<ResourceData>,
}

/// Totals over an area, with the resource range and the classes.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub total_nameplate_capacity_mw: f64,
    pub total_ac_generation_mwh: f64,
    pub total_land_area_sq_km: f64,
    /// `min` (cumulative) or `regional_min`; `None` when no land passed the filters.
    pub min: Option<f64>,
    /// `max` (cumulative) or `regional_max`.
    pub max: Option<f64>,
    pub classes: Vec<ClassStats>,
}

/// One resource class (bin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassStats {
    pub nameplate_capacity_mw: f64,
    pub ac_generation_mwh: f64,
    pub land_area_sq_km: f64,
    pub min: f64,
    pub max: f64,
}

/// The resource analysed.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceData {
    /// The resource key (`type` in the body).
    pub resource_type: String,
    pub units: String,
}

/// Which keys a [`Stats`] carries its range under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StatsScope {
    Cumulative,
    Regional,
}

impl StatsScope {
    fn range_keys(self) -> (&'static str, &'static str) {
        match self {
            StatsScope::Cumulative => ("min", "max"),
            StatsScope::Regional => ("regional_min", "regional_max"),
        }
    }
}

/// Parses a job GET (or DELETE) response body.
pub fn parse_job_result(body: &[u8]) -> Result<JobResult, ParseError> {
    JobResult::from_value(&parse_json(body)?)
}

impl JobResult {
    pub fn from_value(body: &Value) -> Result<JobResult, ParseError> {
        let root = object(body, "$")?;
        let outputs = object(root.get("outputs").unwrap_or(&Value::Null), "outputs")?;
        let status = outputs
            .get("status")
            .and_then(text_of)
            .map(|text| JobStatus::parse(&text))
            .ok_or_else(|| shape("outputs.status", "missing job status"))?;
        let results = match outputs.get("results") {
            None | Some(Value::Null) => None,
            Some(value) => Some(JobResultData::from_value(value, "outputs.results")?),
        };
        Ok(JobResult {
            job_id: root.get("inputs").and_then(|inputs| inputs.get("jobId")).and_then(text_of),
            status,
            disposition: outputs.get("disposition").and_then(text_of),
            runtime_seconds: outputs.get("runtime_seconds").and_then(number_of),
            map_data_deleted: outputs.get("map_data_deleted").and_then(bool_of),
            results,
            errors: root
                .get("errors")
                .and_then(Value::as_array)
                .map(|e| e.iter().map(message_of).collect())
                .unwrap_or_default(),
        })
    }

    /// `outputs` in the live service's key order: disposition, status, map_data_deleted,
    /// runtime_seconds, results.
    pub fn outputs_value(&self) -> Value {
        let mut outputs = Map::new();
        let disposition = self.disposition.clone().unwrap_or_else(|| self.status.as_str().to_string());
        outputs.insert("disposition".into(), Value::from(disposition));
        outputs.insert("status".into(), Value::from(self.status.as_str()));
        if let Some(deleted) = self.map_data_deleted {
            outputs.insert("map_data_deleted".into(), Value::from(deleted));
        }
        if let Some(runtime) = self.runtime_seconds {
            outputs.insert("runtime_seconds".into(), number_value(runtime));
        }
        if let Some(results) = &self.results {
            outputs.insert("results".into(), results.to_value());
        }
        Value::Object(outputs)
    }
}

impl JobResultData {
    fn from_value(value: &Value, path: &str) -> Result<JobResultData, ParseError> {
        let results = object(value, path)?;
        let cumulative_path = format!("{path}.cumulative_stats");
        let cumulative = results.get("cumulative_stats").ok_or_else(|| shape(&cumulative_path, "missing"))?;
        let cumulative_stats = Stats::from_value(cumulative, &cumulative_path)?;
        let mut regional_stats = BTreeMap::new();
        if let Some(regional) = results.get("regional_stats").filter(|v| !v.is_null()) {
            for (name, stats) in object(regional, &format!("{path}.regional_stats"))? {
                regional_stats
                    .insert(name.clone(), Stats::from_value(stats, &format!("{path}.regional_stats.{name}"))?);
            }
        }
        let resource_data = results.get("resource_data").and_then(Value::as_object).map(|data| ResourceData {
            resource_type: data.get("type").and_then(text_of).unwrap_or_default(),
            units: data.get("units").and_then(text_of).unwrap_or_default(),
        });
        Ok(JobResultData { cumulative_stats, regional_stats, resource_data })
    }

    pub fn to_value(&self) -> Value {
        let mut results = Map::new();
        results.insert("cumulative_stats".into(), self.cumulative_stats.to_value(StatsScope::Cumulative));
        let regional: Map<String, Value> = self
            .regional_stats
            .iter()
            .map(|(name, stats)| (name.clone(), stats.to_value(StatsScope::Regional)))
            .collect();
        results.insert("regional_stats".into(), Value::Object(regional));
        if let Some(data) = &self.resource_data {
            let mut resource = Map::new();
            resource.insert("type".into(), Value::from(data.resource_type.as_str()));
            resource.insert("units".into(), Value::from(data.units.as_str()));
            results.insert("resource_data".into(), Value::Object(resource));
        }
        Value::Object(results)
    }
}

impl Stats {
    /// Reads totals, the range (`min`/`max` or `regional_min`/`regional_max`) and the classes.
    fn from_value(value: &Value, path: &str) -> Result<Stats, ParseError> {
        let stats = object(value, path)?;
        let range_side = |keys: [&str; 2]| keys.iter().find_map(|key| stats.get(*key).and_then(number_of));
        let classes = list(stats.get("classes"), &format!("{path}.classes"))?
            .iter()
            .enumerate()
            .map(|(index, class)| ClassStats::from_value(class, &format!("{path}.classes[{index}]")))
            .collect::<Result<_, _>>()?;
        Ok(Stats {
            total_nameplate_capacity_mw: required_number(stats, "total_nameplate_capacity_mw", path)?,
            total_ac_generation_mwh: required_number(stats, "total_ac_generation_mwh", path)?,
            total_land_area_sq_km: required_number(stats, "total_land_area_sq_km", path)?,
            min: range_side(["min", "regional_min"]),
            max: range_side(["max", "regional_max"]),
            classes,
        })
    }

    fn to_value(&self, scope: StatsScope) -> Value {
        let (min_key, max_key) = scope.range_keys();
        let side = |bound: Option<f64>| bound.map_or(Value::Null, number_value);
        let mut stats = Map::new();
        stats.insert("total_nameplate_capacity_mw".into(), number_value(self.total_nameplate_capacity_mw));
        stats.insert("total_ac_generation_mwh".into(), number_value(self.total_ac_generation_mwh));
        stats.insert("total_land_area_sq_km".into(), number_value(self.total_land_area_sq_km));
        stats.insert(min_key.into(), side(self.min));
        stats.insert(max_key.into(), side(self.max));
        stats.insert("classes".into(), Value::Array(self.classes.iter().map(|class| class.to_value()).collect()));
        Value::Object(stats)
    }
}

impl ClassStats {
    fn from_value(value: &Value, path: &str) -> Result<ClassStats, ParseError> {
        let class = object(value, path)?;
        Ok(ClassStats {
            nameplate_capacity_mw: required_number(class, "nameplate_capacity_mw", path)?,
            ac_generation_mwh: required_number(class, "ac_generation_mwh", path)?,
            land_area_sq_km: required_number(class, "land_area_sq_km", path)?,
            min: required_number(class, "min", path)?,
            max: required_number(class, "max", path)?,
        })
    }

    fn to_value(self) -> Value {
        let mut class = Map::new();
        class.insert("nameplate_capacity_mw".into(), number_value(self.nameplate_capacity_mw));
        class.insert("ac_generation_mwh".into(), number_value(self.ac_generation_mwh));
        class.insert("land_area_sq_km".into(), number_value(self.land_area_sq_km));
        class.insert("min".into(), number_value(self.min));
        class.insert("max".into(), number_value(self.max));
        Value::Object(class)
    }
}

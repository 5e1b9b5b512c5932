//! A scenario solved in process, without HTTP or polling: validated by the service's rules,
//! held to the size limits, given the service's defaults, read, optimized and written as the
//! service's results document. Only what the scenario holds is used: where the service would
//! fetch data (a reference load, a URDB rate, PV or Wind production), the scenario is refused
//! with the hint to resolve it first.

use serde_json::{json, Map, Value};

use crate::optimizer::model::{self, ScenarioError};
use crate::optimizer::outputs::{self, resilience, BodyMeta};
use crate::optimizer::run::{self, RunError};
use crate::optimizer::scenario::validation::{validate_scenario, NoHost, Raised, Value as Checked};
use crate::optimizer::scenario::{given, with_service_defaults};
use crate::optimizer::size;
use crate::optimizer::solve::SolveControl;

/// The `job_type` of in-process results.
pub const JOB_TYPE: &str = "sunflux.solve";

/// Why a scenario has no results.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InProcessError {
    /// The scenario breaks the service's rules, is too large, or needs data it does not hold.
    #[error("{}", .0.join("; "))]
    Refused(Vec<String>),
    /// The run ended without an optimum (infeasible, failed); the message says why.
    #[error("{0}")]
    NotOptimal(String),
    #[error("the solve exceeded its time limit")]
    TimedOut,
    #[error("the solve was cancelled")]
    Cancelled,
}

/// PV arrays of a scenario: one object or a list.
fn pv_arrays(scenario: &Value) -> Vec<&Value> {
    match scenario.get("PV") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(pv) if pv.is_object() => vec![pv],
        _ => Vec::new(),
    }
}

/// What the service would fetch for this scenario and `solve` cannot: each with its remedy.
fn needs_fetching(scenario: &Value) -> Vec<String> {
    let mut needs = Vec::new();
    for (index, pv) in pv_arrays(scenario).into_iter().enumerate() {
        if !given(pv.get("production_factor_series")) {
            needs.push(format!(
                "PV[{index}] has no production_factor_series (the service computes it from weather it fetches): give one, e.g. from sunflux.pvwatts on the site's weather, or run the scenario on a service"
            ));
        }
    }
    let wind_sized = scenario.get("Wind").and_then(|wind| wind.get("max_kw")).and_then(Value::as_f64).is_none_or(|kw| kw > 0.0);
    if scenario.get("Wind").is_some_and(Value::is_object) && wind_sized && !given(scenario.get("Wind").and_then(|w| w.get("production_factor_series"))) {
        needs.push("Wind has no production_factor_series (the service fetches wind resource data): give one, or run the scenario on a service".into());
    }
    needs
}

/// Solves a scenario (a JSON object of sections) and returns its results document.
pub fn solve_scenario(scenario: &Value, control: &SolveControl) -> Result<Value, InProcessError> {
    let Some(document) = scenario.as_object() else {
        return Err(InProcessError::Refused(vec!["The scenario must be a JSON object of sections.".into()]));
    };
    if let Some(reason) = size::too_large(scenario) {
        return Err(InProcessError::Refused(vec![reason]));
    }
    let checked = Checked::from_json(scenario);
    let problems = validate_scenario(&checked, &NoHost).map_err(|raised| {
        let reason = match raised {
            Raised::ValueError(message) | Raised::OverflowError(message) => message,
            Raised::Host => "a value could not be shown".into(),
        };
        InProcessError::Refused(vec![format!("the scenario could not be validated: {reason}")])
    })?;
    if !problems.is_empty() {
        return Err(InProcessError::Refused(problems.iter().map(|p| format!("{}: {}", p.path, p.message)).collect()));
    }
    let resolved = Value::Object(with_service_defaults(document.clone()));
    let needs = needs_fetching(&resolved);
    if !needs.is_empty() {
        return Err(InProcessError::Refused(needs));
    }
    let model = match model::from_scenario(&resolved, &[]) {
        Ok(model) => model,
        Err(ScenarioError::Unsupported(unsupported)) => return Err(InProcessError::Refused(vec![unsupported.message()])),
        Err(ScenarioError::Invalid(problems)) => return Err(InProcessError::Refused(problems)),
    };
    let optimized = match run::optimize(&model, control) {
        Ok(optimized) => optimized,
        Err(RunError::Infeasible) => return Err(InProcessError::NotOptimal(run::INFEASIBLE_MESSAGE.into())),
        Err(RunError::TimedOut) => return Err(InProcessError::TimedOut),
        Err(RunError::Cancelled) => return Err(InProcessError::Cancelled),
        Err(RunError::Failed(reason)) => return Err(InProcessError::NotOptimal(format!("no optimal solution: {reason}"))),
    };
    let warnings = match resilience::turndown_warning(&model, &optimized.optimal) {
        Some(warning) => json!({ "Generator": [warning] }),
        None => json!({}),
    };
    let mut messages = Map::new();
    if let Some(resampled) = outputs::resampled_message(&model.resampled) {
        messages.insert("resampled inputs".into(), resampled);
    }
    messages.insert("errors".into(), json!({}));
    messages.insert("warnings".into(), warnings);
    messages.insert("has_stacktrace".into(), Value::Bool(false));
    let meta = BodyMeta {
        run_uuid: String::new(),
        user_uuid: String::new(),
        webtool_uuid: String::new(),
        job_type: JOB_TYPE.into(),
        created: String::new(),
        reopt_version: concat!("sunflux-", env!("CARGO_PKG_VERSION")).into(),
    };
    let inputs = outputs::inputs_echo(&resolved, &model.filled_defaults);
    Ok(outputs::results_body(&meta, "optimal", &inputs, outputs::optimal_outputs(&model, &optimized), Value::Object(messages)))
}

//! One run of a resolved scenario (`optimize_resolved`: read, optimized, the outputs written),
//! shared by the embedded service's jobs and by in-process runs; and a scenario solved in
//! process (`solve_scenario`), without HTTP or polling: held to the size limits, validated by
//! the service's rules, given its defaults, run and written as the service's results document.
//! Only what the scenario holds is used: where the service would fetch data (a reference load,
//! a URDB rate, PV or Wind production), the scenario is refused with the hint to resolve it.

use serde_json::{json, Map, Value};

use crate::optimizer::model::{self, FilledDefault, ScenarioError};
use crate::optimizer::outputs::{self, BodyMeta};
use crate::optimizer::run::{self, CaseSolution, Optimized, RunError};
use crate::optimizer::scenario::{self, given, pv_arrays};
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

/// The outputs of an optimal run and the report of its solves (`solver_report`).
#[derive(Debug, Clone, PartialEq)]
pub struct Optimal {
    pub outputs: Value,
    pub solver: Value,
}

/// Why a resolved scenario has no outputs.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// Parts the engine does not model, named (`Unsupported::message`).
    Unsupported(String),
    /// Inputs the service's optimizer rejects at run time.
    Invalid(Vec<String>),
    Run(RunError),
}

/// One run: its outcome, the defaults the model filled in and the note on resampled inputs
/// (both empty when the scenario could not be read).
#[derive(Debug, Clone)]
pub struct Attempt {
    pub outcome: Result<Optimal, Failure>,
    pub filled: Vec<FilledDefault>,
    pub resampled: Option<Value>,
}

/// Reads a resolved scenario (defaults filled in; `pv_production` per PV array that needs it),
/// optimizes it and writes its outputs.
pub fn optimize_resolved(resolved: &Value, pv_production: &[Option<Vec<f64>>], control: &SolveControl) -> Attempt {
    let failed = |failure: Failure| Attempt { outcome: Err(failure), filled: Vec::new(), resampled: None };
    let model = match model::from_scenario(resolved, pv_production) {
        Ok(model) => model,
        Err(ScenarioError::Unsupported(unsupported)) => return failed(Failure::Unsupported(unsupported.message())),
        Err(ScenarioError::Invalid(problems)) => return failed(Failure::Invalid(problems)),
    };
    let resampled = outputs::resampled_message(&model.resampled);
    let outcome = run::optimize(&model, control)
        .map_err(Failure::Run)
        .map(|optimized| Optimal { outputs: outputs::optimal_outputs(&model, &optimized), solver: solver_report(&optimized) });
    Attempt { outcome, filled: model.filled_defaults, resampled }
}

/// The program of the optimal and the business-as-usual case (variables, binaries, rows,
/// coefficients) and their solves (simplex iterations, branch-and-bound nodes, seconds), with
/// every case tried and its objective ($, null when infeasible) and the run's seconds. The
/// service reports nothing like it; in-process results carry it as `messages.solver`.
pub fn solver_report(optimized: &Optimized) -> Value {
    let case = |solution: &CaseSolution| {
        let stats = &solution.stats;
        json!({
            "variables": stats.variables, "binaries": stats.binaries, "rows": stats.rows, "nonzeros": stats.nonzeros,
            "iterations": stats.iterations, "nodes": stats.nodes, "seconds": stats.seconds,
            "reduced_accuracy": stats.reduced_accuracy,
        })
    };
    let tried: Vec<Value> = optimized.cases_tried.iter().map(|(label, objective)| json!({"case": label, "objective": objective})).collect();
    json!({
        "optimal": case(&optimized.optimal),
        "bau": optimized.bau.as_ref().map(case),
        "cases_tried": tried,
        "seconds": optimized.seconds,
    })
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
    if !scenario.is_object() {
        return Err(InProcessError::Refused(vec!["The scenario must be a JSON object of sections.".into()]));
    }
    if let Some(reason) = size::too_large(scenario) {
        return Err(InProcessError::Refused(vec![reason]));
    }
    let checked = scenario::check(scenario).map_err(|reason| InProcessError::Refused(vec![reason]))?;
    if !checked.problems.is_empty() {
        return Err(InProcessError::Refused(checked.problems));
    }
    let needs = needs_fetching(&checked.resolved);
    if !needs.is_empty() {
        return Err(InProcessError::Refused(needs));
    }
    let attempt = optimize_resolved(&checked.resolved, &[], control);
    let optimal = match attempt.outcome {
        Ok(optimal) => optimal,
        Err(Failure::Unsupported(message)) => return Err(InProcessError::Refused(vec![message])),
        Err(Failure::Invalid(problems)) => return Err(InProcessError::Refused(problems)),
        Err(Failure::Run(RunError::Infeasible)) => return Err(InProcessError::NotOptimal(run::INFEASIBLE_MESSAGE.into())),
        Err(Failure::Run(RunError::TimedOut)) => return Err(InProcessError::TimedOut),
        Err(Failure::Run(RunError::Cancelled)) => return Err(InProcessError::Cancelled),
        Err(Failure::Run(RunError::Failed(reason))) => return Err(InProcessError::NotOptimal(format!("no optimal solution: {reason}"))),
    };
    let mut messages = Map::new();
    if let Some(resampled) = attempt.resampled {
        messages.insert("resampled inputs".into(), resampled);
    }
    messages.insert("solver".into(), optimal.solver);
    messages.insert("errors".into(), json!({}));
    messages.insert("warnings".into(), json!({}));
    messages.insert("has_stacktrace".into(), Value::Bool(false));
    let meta = BodyMeta {
        run_uuid: String::new(),
        user_uuid: String::new(),
        webtool_uuid: String::new(),
        job_type: JOB_TYPE.into(),
        created: String::new(),
        reopt_version: concat!("sunflux-", env!("CARGO_PKG_VERSION")).into(),
    };
    let inputs = outputs::inputs_echo(&checked.resolved, &attempt.filled);
    Ok(outputs::results_body(&meta, "optimal", &inputs, optimal.outputs, Value::Object(messages)))
}

//! One optimization run: the cases to solve (the service's binary choices enumerated as linear
//! cases), the optimal and business-as-usual solutions, and why a run failed.
//!
//! Binary choices of the service, made exact by enumeration:
//! - Net metering: with a net-metering limit > 0 and a PV that can net meter, either the PV
//!   total stays within the net-metering limit and exports earn the NEM (and beyond-NEM) rates,
//!   or it stays within the interconnection limit and only wholesale exports earn. Only one case
//!   is needed when the limits are equal and there is no wholesale rate, or when the PV cannot
//!   exceed the net-metering limit and there is no wholesale rate.
//! - Storage cost constant: storage is either not built or built paying the constant.
//!   The cheapest case by the full objective wins.
//!
//! Tiers whose price falls with use are either-or choices inside a case: such a case is solved
//! by branch and bound (`branching`).

use super::branching::{self, BranchFailure};
use super::lp::{self, Case, CostFactors, Dispatch, ExportBins, Layout, PvChoice};
use super::model::Model;
use super::solve::{self, SolveControl, SolveStatus};

/// Values below this (kW, kWh) are taken as zero in reported solutions.
pub const CLEAN_TOLERANCE: f64 = 1e-6;

/// The solution of one case.
#[derive(Debug, Clone)]
pub struct CaseSolution {
    pub case: Case,
    pub layout: Layout,
    pub dispatch: Dispatch,
    /// The LP's objective at the solver's point (lifecycle cost + SOC incentive term).
    pub lp_objective: f64,
    /// The SOC incentive term at the solver's point ($, ≤ 0); not part of the lifecycle cost.
    pub soc_incentive: f64,
    pub stats: SolveStats,
}

impl CaseSolution {
    /// The lifecycle cost the LP minimized (objective without the SOC incentive).
    pub fn lp_lifecycle_cost(&self) -> f64 {
        self.lp_objective - self.soc_incentive
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveStats {
    pub variables: usize,
    pub rows: usize,
    pub iterations: u32,
    pub seconds: f64,
    /// The solver met only its reduced tolerances.
    pub reduced_accuracy: bool,
    /// LPs solved (1 without falling tiers; the branch-and-bound nodes otherwise).
    pub nodes: usize,
}

/// An optimal run: the optimal case and, when `run_bau`, the business-as-usual case.
#[derive(Debug, Clone)]
pub struct Optimized {
    pub factors: CostFactors,
    pub optimal: CaseSolution,
    pub bau: Option<CaseSolution>,
    /// Every case solved (label, objective or None when infeasible) in order.
    pub cases_tried: Vec<(String, Option<f64>)>,
    pub seconds: f64,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    #[error("no feasible solution")]
    Infeasible,
    #[error("the solve exceeded its time limit")]
    TimedOut,
    #[error("the solve was cancelled")]
    Cancelled,
    #[error("{0}")]
    Failed(String),
}

/// Solves the optimal and (when asked) business-as-usual problems of a model.
pub fn optimize(model: &Model, control: &SolveControl) -> Result<Optimized, RunError> {
    let started = std::time::Instant::now();
    let factors = CostFactors::new(model).map_err(RunError::Failed)?;
    let mut tried = Vec::new();
    let optimal = best_case(model, &factors, &optimal_cases(model), control, &mut tried)?;
    let bau = if model.settings.run_bau {
        Some(best_case(model, &factors, &bau_cases(model), control, &mut tried)?)
    } else {
        None
    };
    Ok(Optimized { factors, optimal, bau, cases_tried: tried, seconds: started.elapsed().as_secs_f64() })
}

/// The cases of the optimal problem.
pub fn optimal_cases(model: &Model) -> Vec<Case> {
    let pv = if model.pvs.is_empty() { PvChoice::Absent } else { PvChoice::Sized };
    let storage_options: Vec<bool> = match &model.storage {
        Some(s) if s.has_cost_constant() && s.min_kw <= 0.0 && s.min_kwh <= 0.0 => vec![false, true],
        Some(_) => vec![true],
        None => vec![false],
    };
    let mut cases = Vec::new();
    for (label, exports, cap) in export_cases(model, pv) {
        for &storage in &storage_options {
            cases.push(Case { label, pv, storage, exports, pv_total_cap_kw: cap });
        }
    }
    cases
}

/// The cases of the business-as-usual problem: existing PV only, no storage.
pub fn bau_cases(model: &Model) -> Vec<Case> {
    let pv = if model.pvs.iter().any(|pv| pv.existing_kw > 0.0) { PvChoice::ExistingOnly } else { PvChoice::Absent };
    export_cases(model, pv)
        .into_iter()
        .map(|(label, exports, cap)| Case { label, pv, storage: false, exports, pv_total_cap_kw: cap })
        .collect()
}

/// Export configurations: (label, bins with value, cap on total PV kW).
fn export_cases(model: &Model, pv_choice: PvChoice) -> Vec<(&'static str, ExportBins, Option<f64>)> {
    // The arrays share their export flags (the model refuses arrays whose flags differ).
    let Some(pv) = model.pvs.first().filter(|_| pv_choice != PvChoice::Absent) else {
        return vec![("no exports", ExportBins::default(), None)];
    };
    let grid = &model.grid;
    let positive = |rates: &[f64]| rates.iter().sum::<f64>() > 0.0;
    let whl = pv.can_wholesale && positive(&model.tariff.wholesale_rate);
    let nem = pv.can_net_meter && grid.net_metering_limit_kw > 0.0;
    let exc = nem && pv.can_export_beyond_nem_limit && positive(&model.tariff.export_beyond_nem_rate);
    if !nem {
        return vec![("wholesale or none", ExportBins { whl, ..ExportBins::default() }, None)];
    }
    let nem_case = ("net metering", ExportBins { nem: true, exc, whl: false }, Some(grid.net_metering_limit_kw));
    if grid.net_metering_limit_kw == grid.interconnection_limit_kw && !whl {
        return vec![nem_case];
    }
    let existing: f64 = model.pvs.iter().map(|pv| pv.existing_kw).sum();
    let largest_pv = match pv_choice {
        PvChoice::Sized => existing + model.pvs.iter().map(|pv| pv.max_new_kw).sum::<f64>(),
        _ => existing,
    };
    if !whl && largest_pv <= grid.net_metering_limit_kw {
        return vec![nem_case];
    }
    vec![nem_case, ("interconnection limit", ExportBins { nem: false, exc: false, whl }, Some(grid.interconnection_limit_kw))]
}

/// Solves the cases and keeps the cheapest by objective; infeasible cases are skipped.
///
/// Cases run in waves of one export configuration, the storage options of a wave in parallel.
/// A case limited by the interconnection limit without wholesale value is skipped when the
/// net-metering case with the same storage option left the PV below the net-metering limit:
/// that case's optimum is then also optimal with the limit relaxed (convexity), and dropping
/// the export credits cannot make it cheaper.
fn best_case(
    model: &Model,
    factors: &CostFactors,
    cases: &[Case],
    control: &SolveControl,
    tried: &mut Vec<(String, Option<f64>)>,
) -> Result<CaseSolution, RunError> {
    let mut solved: Vec<CaseSolution> = Vec::new();
    let mut failure: Option<RunError> = None;
    let mut start = 0;
    while start < cases.len() {
        let end = (start..cases.len()).find(|&i| cases[i].exports != cases[start].exports).unwrap_or(cases.len());
        let wave: Vec<&Case> = cases[start..end].iter().filter(|case| !dominated(model, case, &solved)).collect();
        for (case, result) in wave.iter().zip(solve_wave(model, factors, &wave, control)) {
            match result {
                Ok(solution) => {
                    tried.push((describe(case), Some(solution.lp_objective)));
                    solved.push(solution);
                }
                Err(RunError::Infeasible) => tried.push((describe(case), None)),
                Err(other @ (RunError::TimedOut | RunError::Cancelled)) => return Err(other),
                Err(other) => failure = Some(other),
            }
        }
        start = end;
    }
    solved
        .into_iter()
        .min_by(|a, b| a.lp_objective.total_cmp(&b.lp_objective))
        .ok_or(failure.unwrap_or(RunError::Infeasible))
}

/// Whether a case cannot beat an already solved net-metering case (see `best_case`).
fn dominated(model: &Model, case: &Case, solved: &[CaseSolution]) -> bool {
    let Some(cap) = case.pv_total_cap_kw.filter(|_| !model.pvs.is_empty()) else { return false };
    let existing: f64 = model.pvs.iter().map(|pv| pv.existing_kw).sum();
    if case.exports.nem || case.exports.whl {
        return false;
    }
    solved.iter().any(|s| {
        s.case.exports.nem
            && s.case.storage == case.storage
            && s.case.pv == case.pv
            && s.case.pv_total_cap_kw.is_some_and(|nem_cap| {
                nem_cap < cap && existing + s.dispatch.pv_new_kw.iter().sum::<f64>() < nem_cap - 1e-4 * nem_cap.max(1.0)
            })
    })
}

/// Solves the cases of one wave, each on its own thread when there are several.
fn solve_wave(model: &Model, factors: &CostFactors, wave: &[&Case], control: &SolveControl) -> Vec<Result<CaseSolution, RunError>> {
    if wave.len() <= 1 {
        return wave.iter().map(|case| solve_case(model, factors, case, control)).collect();
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = wave.iter().map(|case| scope.spawn(move || solve_case(model, factors, case, control))).collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap_or_else(|_| Err(RunError::Failed("a solver thread panicked".into()))))
            .collect()
    })
}

fn describe(case: &Case) -> String {
    let storage = if case.storage { "storage" } else { "no storage" };
    format!("{:?} PV, {storage}, {}", case.pv, case.label)
}

/// Builds and solves one case (by branch and bound when it has falling tiers).
pub fn solve_case(model: &Model, factors: &CostFactors, case: &Case, control: &SolveControl) -> Result<CaseSolution, RunError> {
    let started = std::time::Instant::now();
    let program = lp::build(model, factors, case);
    let (outcome, nodes, iterations) = if program.disjunctions.is_empty() {
        let outcome = solve::solve(&program.lp, control);
        let iterations = outcome.iterations;
        (outcome, 1, iterations)
    } else {
        match branching::branch_and_bound(&program.lp, &program.disjunctions, model.settings.optimality_tolerance, control) {
            Ok(found) => (found.solution, found.nodes, found.iterations),
            Err(BranchFailure::Infeasible) => return Err(RunError::Infeasible),
            Err(BranchFailure::Stopped(status)) => return Err(stopped(status)),
            Err(BranchFailure::NodeLimit { nodes, gap }) => {
                let gap = gap.map_or("no feasible solution yet".to_string(), |g| format!("a relative gap of {g:.2e}"));
                return Err(RunError::Failed(format!(
                    "the branch-and-bound over the falling tariff tiers stopped after {nodes} nodes with {gap}"
                )));
            }
        }
    };
    match outcome.status {
        SolveStatus::Optimal | SolveStatus::AlmostOptimal => {}
        other => return Err(stopped(other)),
    }
    let layout = program.layout;
    let soc_incentive = match (layout.soc, model.settings.add_soc_incentive) {
        (Some(soc), true) => -outcome.x[soc..soc + layout.steps].iter().sum::<f64>() / layout.steps as f64,
        _ => 0.0,
    };
    Ok(CaseSolution {
        case: case.clone(),
        dispatch: layout.dispatch(&outcome.x, model, factors, case, CLEAN_TOLERANCE),
        layout,
        lp_objective: outcome.objective,
        soc_incentive,
        stats: SolveStats {
            variables: program.lp.variable_count(),
            rows: program.lp.row_count(),
            iterations,
            seconds: started.elapsed().as_secs_f64(),
            reduced_accuracy: outcome.status == SolveStatus::AlmostOptimal,
            nodes,
        },
    })
}

/// The run error of a solve that did not end optimal.
fn stopped(status: SolveStatus) -> RunError {
    match status {
        SolveStatus::Infeasible => RunError::Infeasible,
        SolveStatus::Unbounded => RunError::Failed("the problem is unbounded".into()),
        SolveStatus::TimedOut => RunError::TimedOut,
        SolveStatus::Cancelled => RunError::Cancelled,
        SolveStatus::Failed(reason) => RunError::Failed(format!("the solver stopped: {reason}")),
        SolveStatus::Optimal | SolveStatus::AlmostOptimal => RunError::Failed("the solver stopped unexpectedly".into()),
    }
}

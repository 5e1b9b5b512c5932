//! One optimization run: the cases to solve (the service's binary choices enumerated as linear
//! cases), the optimal and business-as-usual solutions, and why a run failed.
//!
//! Binary choices of the service, made exact by enumeration:
//! - Net metering: with a net-metering limit > 0 and an array that can net meter, either the
//!   total of the arrays that can net meter stays within the net-metering limit and exports
//!   earn the NEM (and beyond-NEM) rates,
//!   or it stays within the interconnection limit and only wholesale exports earn. Only one case
//!   is needed when the limits are equal and there is no wholesale rate, or when the PV cannot
//!   exceed the net-metering limit and there is no wholesale rate.
//! - Storage cost constant: storage is either not built or built paying the constant.
//!   The cheapest case by the full objective wins.
//!
//! The service's other binaries (tiers whose price falls with use, the generator's on/off per
//! step, `binNoGridPurchases` without simultaneous export and import) are integer variables of
//! a case's program, solved by HiGHS (`solve`).

use super::finance;
use super::lp::microgrid;
use super::lp::{self, exporters, Case, CostFactors, Dispatch, ExportBins, Layout, MicrogridMembers, SizeChoice};
use super::model::{ExportFlags, Model};
use super::solve::{self, SolveControl, SolveStatus};

/// `messages.error` of an infeasible scenario (the service adds no support text to it).
pub const INFEASIBLE_MESSAGE: &str = "REopt could not find an optimal solution for these inputs. For resilience runs, an 'infeasible' status is likely due to system size constraints that prevent the load from being met during a grid outage. For off-grid runs, an 'infeasible' status may be due to load operating reserve, PV operating reserve, or minimum load met requirements that are infeasible with the selected technologies and system size constraints.Please adjust these inputs and try again.";

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
    /// The unserved-load tie-breaker of the outage microgrids ($, ≥ 0); not part of the
    /// lifecycle cost either.
    pub unserved_penalty: f64,
    pub stats: SolveStats,
}

impl CaseSolution {
    /// The lifecycle cost the LP minimized (objective without the SOC incentive and the
    /// unserved-load tie-breaker).
    pub fn lp_lifecycle_cost(&self) -> f64 {
        self.lp_objective - self.soc_incentive - self.unserved_penalty
    }
}

/// The size of one case's program and what solving it took (reported as `messages.solver` of
/// in-process results).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveStats {
    pub variables: usize,
    /// Integer (binary) columns among the variables.
    pub binaries: usize,
    pub rows: usize,
    /// Coefficients stored in the constraint rows.
    pub nonzeros: usize,
    pub iterations: u32,
    pub seconds: f64,
    /// The solver met only its reduced tolerances.
    pub reduced_accuracy: bool,
    /// Branch-and-bound nodes (1 for a pure LP).
    pub nodes: u64,
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
    let pv = if model.pvs.is_empty() { SizeChoice::Absent } else { SizeChoice::Sized };
    let storage_options: Vec<bool> = match &model.storage {
        Some(s) if s.has_cost_constant() && s.min_kw <= 0.0 && s.min_kwh <= 0.0 => vec![false, true],
        Some(_) => vec![true],
        None => vec![false],
    };
    let generator = if model.generator.is_some() { SizeChoice::Sized } else { SizeChoice::Absent };
    let mut cases = Vec::new();
    for (label, exports, cap) in export_cases(model, pv, model.chp.is_some()) {
        for &storage in &storage_options {
            for microgrid in microgrid_options(model, pv, generator, storage) {
                cases.push(Case { label, pv, generator, storage, exports, pv_total_cap_kw: cap, bau: false, bau_outage_served_steps: 0, microgrid });
            }
        }
    }
    cases
}

/// The cases of the business-as-usual problem: existing PV and generator only, no storage.
pub fn bau_cases(model: &Model) -> Vec<Case> {
    let pv = if model.pvs.iter().any(|pv| pv.existing_kw > 0.0) { SizeChoice::ExistingOnly } else { SizeChoice::Absent };
    let generator =
        if model.generator.as_ref().is_some_and(|g| g.existing_kw > 0.0) { SizeChoice::ExistingOnly } else { SizeChoice::Absent };
    let served = bau_outage_served_steps(model);
    let microgrid = MicrogridMembers { renewables: pv != SizeChoice::Absent, generator: generator != SizeChoice::Absent, storage: false, chp: false };
    export_cases(model, pv, false)
        .into_iter()
        .map(|(label, exports, cap)| Case {
            label,
            pv,
            generator,
            storage: false,
            exports,
            pv_total_cap_kw: cap,
            bau: true,
            bau_outage_served_steps: served.steps,
            microgrid,
        })
        .collect()
}

/// Which technologies may join the outage microgrid: all present ones when joining is free;
/// otherwise every choice (each pays its upgrade cost), renewables only together with storage,
/// the generator or CHP (the service's rule: `add_cannot_have_MG_with_only_PVwind_constraints`).
fn microgrid_options(model: &Model, pv: SizeChoice, generator: SizeChoice, storage: bool) -> Vec<MicrogridMembers> {
    let present =
        MicrogridMembers { renewables: pv != SizeChoice::Absent, generator: generator != SizeChoice::Absent, storage, chp: model.chp.is_some() };
    if model.outages.is_none() {
        return vec![MicrogridMembers::default()];
    }
    if model.resilience.microgrid_upgrade_cost_fraction <= 0.0 {
        return vec![present];
    }
    let choices = |available: bool| if available { vec![false, true] } else { vec![false] };
    let mut options = Vec::new();
    for renewables in choices(present.renewables) {
        for generator in choices(present.generator) {
            for storage in choices(present.storage) {
                for chp in choices(present.chp) {
                    if renewables && !generator && !storage && !chp {
                        continue;
                    }
                    options.push(MicrogridMembers { renewables, generator, storage, chp });
                }
            }
        }
    }
    options
}

/// How long the existing capacity alone carries the critical load of the deterministic outage
/// (the service's business-as-usual check): step by step, existing PV first, then the existing
/// generator within its size and fuel (at least its turndown), until a step is not met.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BauOutage {
    /// Every step of the outage is met.
    pub met: bool,
    /// Steps met from the start.
    pub steps: usize,
    pub fuel_gal: f64,
}

pub fn bau_outage_served_steps(model: &Model) -> BauOutage {
    let Some((first, last)) = model.single_outage else { return BauOutage { met: true, steps: 0, fuel_gal: 0.0 } };
    let generator = model.generator.as_ref().filter(|g| g.existing_kw > 0.0);
    // Levelized, as in the dispatch that must then serve these steps (the service's check uses
    // the first year's output, which can leave its own business-as-usual dispatch infeasible).
    let f = &model.financial;
    let levelized: Vec<f64> = model
        .pvs
        .iter()
        .map(|pv| {
            pv.existing_kw
                * finance::levelization_factor(f.analysis_years, f.elec_cost_escalation_rate_fraction, f.offtaker_discount_rate_fraction, pv.degradation_fraction)
        })
        .collect();
    let existing_pv = |t: usize| -> f64 { model.pvs.iter().zip(&levelized).map(|(pv, kw)| kw * pv.production_factor[t]).sum() };
    if generator.is_none() && model.pvs.iter().all(|pv| pv.existing_kw <= 0.0) {
        return BauOutage { met: false, steps: 0, fuel_gal: 0.0 };
    }
    let dt = model.step_hours();
    let mut fuel_left = generator.map_or(0.0, |g| g.fuel_avail_gal);
    let mut fuel_used = 0.0;
    for (index, t) in (first..=last).enumerate() {
        let unmet = model.critical_load_kw[t] - existing_pv(t);
        if unmet <= 0.0 {
            continue;
        }
        let Some(g) = generator else { return BauOutage { met: false, steps: index, fuel_gal: fuel_used } };
        let fuel_kwh = (fuel_left - g.fuel_intercept_gal_per_hour) / g.fuel_slope_gal_per_kwh;
        let available = fuel_kwh.min(g.existing_kw * dt);
        let output = unmet.min(available).max(g.min_turn_down_fraction * g.existing_kw);
        let needed = g.fuel_intercept_gal_per_hour + g.fuel_slope_gal_per_kwh * output;
        fuel_left -= needed;
        fuel_used += needed;
        if output < unmet {
            return BauOutage { met: false, steps: index, fuel_gal: fuel_used };
        }
    }
    BauOutage { met: true, steps: last - first + 1, fuel_gal: fuel_used }
}

/// Export configurations: (label, bins with value, cap on the kW of the technologies that can
/// net meter). A bin has value when some technology present may use it (REopt.jl's `NEM_techs`,
/// `WHL_techs`; `lp::exporters`: the arrays and, when `chp` is in the case, CHP).
fn export_cases(model: &Model, pv_choice: SizeChoice, chp: bool) -> Vec<(&'static str, ExportBins, Option<f64>)> {
    let techs = exporters(model, pv_choice, chp);
    if techs.is_empty() {
        return vec![("no exports", ExportBins::default(), None)];
    }
    let grid = &model.grid;
    let positive = |rates: &[f64]| rates.iter().sum::<f64>() > 0.0;
    let any = |flag: fn(&ExportFlags) -> bool| techs.iter().any(|(flags, _)| flag(flags));
    let whl = any(|f| f.can_wholesale) && positive(&model.tariff.wholesale_rate);
    let nem = any(|f| f.can_net_meter) && grid.net_metering_limit_kw > 0.0;
    let exc = nem && any(|f| f.can_net_meter && f.can_export_beyond_nem_limit) && positive(&model.tariff.export_beyond_nem_rate);
    if !nem {
        return vec![("wholesale or none", ExportBins { whl, ..ExportBins::default() }, None)];
    }
    let nem_case = ("net metering", ExportBins { nem: true, exc, whl: false }, Some(grid.net_metering_limit_kw));
    if grid.net_metering_limit_kw == grid.interconnection_limit_kw && !whl {
        return vec![nem_case];
    }
    let largest: f64 = techs.iter().filter(|(flags, _)| flags.can_net_meter).map(|(_, kw)| kw).sum();
    if !whl && largest <= grid.net_metering_limit_kw {
        return vec![nem_case];
    }
    vec![nem_case, ("interconnection limit", ExportBins { nem: false, exc: false, whl }, Some(beyond_net_metering_cap_kw(model, largest)))]
}

/// The cap of the service's "beyond net metering" side (its binary `binNEM` = 0), as its
/// big-M form sets it: the least of the interconnection limit, the largest total size of the
/// technologies that can net meter, and the largest monthly load in kWh (electric, with the
/// chillers' electricity, plus the heating loads at a COP of 1). The last term mixes units;
/// it is the service's (REopt.jl `add_export_constraints`), and its answers show it: a flat
/// 10 kW load with a high wholesale rate gets 7,440 kW of PV (31 days × 24 h × 10 kW).
fn beyond_net_metering_cap_kw(model: &Model, largest_pv_kw: f64) -> f64 {
    let mut monthly_kwh = [0.0f64; 12];
    for (t, kw) in model.load_kw.iter().enumerate() {
        let heating = model.heating.as_ref().map_or(0.0, |h| h.total_kw(t));
        monthly_kwh[model.tariff.month_of_step[t] as usize] += (kw + heating) * model.step_hours();
    }
    let largest_month = monthly_kwh.iter().copied().fold(0.0, f64::max);
    model.grid.interconnection_limit_kw.min(largest_pv_kw).min(largest_month)
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
    let Some(cap) = case.pv_total_cap_kw else { return false };
    let existing: f64 = model.pvs.iter().filter(|pv| pv.can_net_meter && case.pv != SizeChoice::Absent).map(|pv| pv.existing_kw).sum();
    let chp_metering = model.chp.as_ref().is_some_and(|c| c.exports.can_net_meter);
    if case.exports.nem || case.exports.whl {
        return false;
    }
    solved.iter().any(|s| {
        s.case.exports.nem
            && s.case.storage == case.storage
            && s.case.pv == case.pv
            && s.case.generator == case.generator
            && s.case.microgrid == case.microgrid
            && s.case.pv_total_cap_kw.is_some_and(|nem_cap| {
                let pv_new: f64 = s.dispatch.pv_new_kw.iter().zip(&model.pvs).filter(|(_, pv)| pv.can_net_meter).map(|(kw, _)| kw).sum();
                let chp_kw = s.dispatch.chp.as_ref().filter(|_| chp_metering).map_or(0.0, |c| c.size_kw);
                let metering_new = pv_new + chp_kw;
                nem_cap < cap && existing + metering_new < nem_cap - 1e-4 * nem_cap.max(1.0)
            })
    })
}

/// Solves the cases of one wave, each on its own thread when there are several, at most as many
/// at once as there are cores: every solve is single-threaded and CPU-bound, so more threads than
/// cores only share the cores and multiply the memory (the API's outage case has 15 microgrid
/// choices, whose 15 relaxations at once held 1.7 GB).
fn solve_wave(model: &Model, factors: &CostFactors, wave: &[&Case], control: &SolveControl) -> Vec<Result<CaseSolution, RunError>> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if wave.len() <= 1 || cores <= 1 {
        return wave.iter().map(|case| solve_case(model, factors, case, control)).collect();
    }
    wave.chunks(cores)
        .flat_map(|chunk| {
            std::thread::scope(|scope| {
                let handles: Vec<_> = chunk.iter().map(|case| scope.spawn(move || solve_case(model, factors, case, control))).collect();
                handles
                    .into_iter()
                    .map(|handle| handle.join().unwrap_or_else(|_| Err(RunError::Failed("a solver thread panicked".into()))))
                    .collect::<Vec<_>>()
            })
        })
        .collect()
}

fn describe(case: &Case) -> String {
    let storage = if case.storage { "storage" } else { "no storage" };
    format!("{:?} PV, {storage}, {}", case.pv, case.label)
}

/// Builds and solves one case.
pub fn solve_case(model: &Model, factors: &CostFactors, case: &Case, control: &SolveControl) -> Result<CaseSolution, RunError> {
    let started = std::time::Instant::now();
    let program = lp::build(model, factors, case);
    let outcome = solve::solve(&program.lp, control, model.settings.optimality_tolerance);
    let (nodes, iterations) = (outcome.nodes, outcome.iterations);
    match outcome.status {
        SolveStatus::Optimal | SolveStatus::AlmostOptimal => {}
        other => return Err(stopped(other)),
    }
    let layout = program.layout;
    let soc_incentive = match (layout.soc, model.settings.add_soc_incentive) {
        (Some(soc), true) => -outcome.x[soc..soc + layout.steps].iter().sum::<f64>() / layout.steps as f64,
        _ => 0.0,
    };
    let dispatch = layout.dispatch(&outcome.x, model, factors, case, CLEAN_TOLERANCE);
    let unserved_penalty = dispatch.microgrid.as_ref().map_or(0.0, |mg| {
        let unserved: f64 = mg.outages.iter().flatten().flat_map(|o| o.unserved.iter()).sum();
        microgrid::UNSERVED_PENALTY_PER_KWH * model.step_hours() * unserved
    });
    Ok(CaseSolution {
        case: case.clone(),
        dispatch,
        layout,
        lp_objective: outcome.objective,
        soc_incentive,
        unserved_penalty,
        stats: SolveStats {
            variables: program.lp.variable_count(),
            binaries: program.lp.integer.iter().filter(|&&integer| integer).count(),
            rows: program.lp.row_count(),
            nonzeros: program.lp.values.len(),
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

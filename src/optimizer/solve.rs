//! Solver adapter: a program with integer variables goes to HiGHS (`optimizer::highs`, branch
//! and cut on dual simplex), a pure LP to Clarabel (pure-Rust interior point), which solves the
//! service's year-long LPs faster (docs/design.md, "The MILP solver").
//!
//! Clarabel solves `min c·x s.t. A·x + s = b, s ∈ K`. Equality rows go to the zero cone;
//! `≤` rows and finite variable bounds (`−x ≤ −lower`, `x ≤ upper`) to the non-negative cone.
//! An interior-point answer is accurate to about 1e-8 relative and not a vertex: callers clip
//! tiny values (see `Layout::dispatch`). A deadline and a cancel flag stop the iterations.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};

use super::highs::{self, Mip, MipOptions, MipStatus};
use super::lp::{LinearProgram, RowKind};

/// Variable bounds at or beyond this magnitude are the service's "unlimited" defaults (1e9 kW)
/// and are left out: as rows they only spoil the problem's scaling.
pub const UNLIMITED_BOUND: f64 = 1.0e9;

/// The largest objective coefficient handed to a solver: costs in currencies of thousands per
/// dollar (VND, IDR) make coefficients of 1e8 and more, past which the interior point's
/// tolerances read a bounded problem as unbounded. The objective is divided down to this; the
/// reported objective is computed from the original costs.
pub const LARGEST_OBJECTIVE_COEFFICIENT: f64 = 1.0e4;

/// The factor the objective is divided by (1 when its coefficients are small enough already).
fn objective_scale(lp: &LinearProgram) -> f64 {
    let largest = lp.objective.iter().fold(0.0f64, |most, c| most.max(c.abs()));
    if largest > LARGEST_OBJECTIVE_COEFFICIENT { largest / LARGEST_OBJECTIVE_COEFFICIENT } else { 1.0 }
}

/// The most a MILP's relaxation shortcut (`solve`) may take, in seconds. Where it answers, it
/// does so in seconds (a year's LP with tiers or a generator's turndown); where it runs longer,
/// the program is one HiGHS solves faster than Clarabel relaxes it: a year with a CHP's or a
/// generator's on/off binary per step (REopt.jl's heating and cooling balance case: Clarabel
/// unfinished after 30 s where HiGHS's root LP took 7 s; the API's outage case, one microgrid
/// choice: Clarabel 169 s for 93 iterations, HiGHS's whole MILP 30 s, both on shared cores).
pub const RELAXATION_SHORTCUT_SECONDS: f64 = 20.0;

/// When to give up.
#[derive(Debug, Clone, Default)]
pub struct SolveControl {
    pub deadline: Option<Instant>,
    pub cancel: Option<Arc<AtomicBool>>,
}

impl SolveControl {
    pub fn is_cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    pub fn is_past_deadline(&self) -> bool {
        self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum SolveStatus {
    Optimal,
    /// Solved to the solver's reduced tolerances only.
    AlmostOptimal,
    Infeasible,
    Unbounded,
    TimedOut,
    Cancelled,
    Failed(String),
}

#[derive(Debug, Clone)]
pub struct SolveOutcome {
    pub status: SolveStatus,
    pub x: Vec<f64>,
    /// c·x + constant at `x`.
    pub objective: f64,
    pub iterations: u32,
    pub seconds: f64,
    /// Branch-and-bound nodes of a MILP (1 for an LP).
    pub nodes: u64,
}

impl SolveOutcome {
    fn without_solution(status: SolveStatus, started: Instant) -> Self {
        SolveOutcome { status, x: Vec::new(), objective: f64::NAN, iterations: 0, seconds: started.elapsed().as_secs_f64(), nodes: 0 }
    }
}

/// The LP in Clarabel's form: matrix, right-hand side and the two cone sizes.
struct ConicForm {
    a: CscMatrix<f64>,
    b: Vec<f64>,
    equalities: usize,
    inequalities: usize,
}

/// Rows in cone order (equalities first), each as (terms, rhs); bounds become rows too.
fn conic_form(lp: &LinearProgram) -> ConicForm {
    let n = lp.variable_count();
    let mut triplets: Vec<(usize, usize, f64)> = Vec::with_capacity(lp.values.len() + 2 * n);
    let mut b: Vec<f64> = Vec::with_capacity(lp.row_count() + 2 * n);
    let push_rows = |kind: RowKind, triplets: &mut Vec<(usize, usize, f64)>, b: &mut Vec<f64>| {
        for (i, _) in lp.kinds.iter().enumerate().filter(|(_, k)| **k == kind) {
            let row = b.len();
            for k in lp.row_start[i]..lp.row_start[i + 1] {
                triplets.push((row, lp.columns[k], lp.values[k]));
            }
            b.push(lp.rhs[i]);
        }
    };
    push_rows(RowKind::Equal, &mut triplets, &mut b);
    let equalities = b.len();
    push_rows(RowKind::LessOrEqual, &mut triplets, &mut b);
    for j in 0..n {
        if lp.lower[j].abs() < UNLIMITED_BOUND {
            triplets.push((b.len(), j, -1.0));
            b.push(-lp.lower[j]);
        }
        if lp.upper[j].abs() < UNLIMITED_BOUND {
            triplets.push((b.len(), j, 1.0));
            b.push(lp.upper[j]);
        }
    }
    let inequalities = b.len() - equalities;
    ConicForm { a: csc_from_triplets(b.len(), n, &triplets), b, equalities, inequalities }
}

/// Compressed sparse columns from (row, column, value) triplets without duplicates.
fn csc_from_triplets(m: usize, n: usize, triplets: &[(usize, usize, f64)]) -> CscMatrix<f64> {
    let mut colptr = vec![0usize; n + 1];
    for &(_, j, _) in triplets {
        colptr[j + 1] += 1;
    }
    for j in 0..n {
        colptr[j + 1] += colptr[j];
    }
    let mut next = colptr.clone();
    let mut rowval = vec![0usize; triplets.len()];
    let mut nzval = vec![0.0; triplets.len()];
    for &(i, j, v) in triplets {
        rowval[next[j]] = i;
        nzval[next[j]] = v;
        next[j] += 1;
    }
    // Rows were pushed in increasing order, so every column is already sorted by row.
    CscMatrix::new(m, n, colptr, rowval, nzval)
}

/// An LP without variables: feasible when every row holds at zero.
fn constant_outcome(lp: &LinearProgram, started: Instant) -> SolveOutcome {
    let holds = lp.kinds.iter().zip(&lp.rhs).all(|(kind, rhs)| match kind {
        RowKind::Equal => rhs.abs() <= 1e-9,
        RowKind::LessOrEqual => *rhs >= -1e-9,
    });
    let status = if holds { SolveStatus::Optimal } else { SolveStatus::Infeasible };
    SolveOutcome { status, x: Vec::new(), objective: lp.objective_constant, iterations: 0, seconds: started.elapsed().as_secs_f64(), nodes: 1 }
}

/// The program in HiGHS's row-wise form (bounds at the "unlimited" magnitude become infinite,
/// as for Clarabel).
fn mip_form(lp: &LinearProgram) -> Mip {
    let finite = |bound: f64| if bound.abs() < UNLIMITED_BOUND { bound } else { bound.signum() * f64::INFINITY };
    let (row_lower, row_upper) = lp
        .kinds
        .iter()
        .zip(&lp.rhs)
        .map(|(kind, &rhs)| match kind {
            RowKind::Equal => (rhs, rhs),
            RowKind::LessOrEqual => (f64::NEG_INFINITY, rhs),
        })
        .unzip();
    let scale = objective_scale(lp);
    Mip {
        offset: lp.objective_constant / scale,
        cost: lp.objective.iter().map(|c| c / scale).collect(),
        col_lower: lp.lower.iter().map(|&l| finite(l)).collect(),
        col_upper: lp.upper.iter().map(|&u| finite(u)).collect(),
        row_lower,
        row_upper,
        row_start: lp.row_start.clone(),
        index: lp.columns.clone(),
        value: lp.values.clone(),
        integer: lp.integer.clone(),
    }
}

/// Solves a MILP with HiGHS to the relative gap, from `start` when there is a feasible point.
fn solve_mip(lp: &LinearProgram, control: &SolveControl, relative_gap: f64, time_limit: f64, started: Instant, start: Option<&[f64]>) -> SolveOutcome {
    let options = MipOptions { relative_gap, time_limit, start };
    let outcome = match highs::solve(&mip_form(lp), options, control.cancel.as_deref()) {
        Ok(outcome) => outcome,
        Err(reason) => return SolveOutcome::without_solution(SolveStatus::Failed(reason), started),
    };
    let status = match outcome.status {
        MipStatus::Optimal => SolveStatus::Optimal,
        MipStatus::Infeasible => SolveStatus::Infeasible,
        MipStatus::Unbounded => SolveStatus::Unbounded,
        MipStatus::TimeLimit => SolveStatus::TimedOut,
        MipStatus::Interrupted => SolveStatus::Cancelled,
        MipStatus::Other(code) => SolveStatus::Failed(format!("HiGHS ended with model status {code}")),
    };
    SolveOutcome {
        objective: if outcome.x.is_empty() { f64::NAN } else { lp.objective_value(&outcome.x) },
        status,
        x: outcome.x,
        iterations: u32::try_from(outcome.simplex_iterations).unwrap_or(u32::MAX),
        seconds: started.elapsed().as_secs_f64(),
        nodes: outcome.nodes.max(1),
    }
}

/// Solves the program: a MILP to the relative gap `relative_gap` (the service's
/// `Settings.optimality_tolerance`), an LP to optimality. Contradictory bounds are reported as
/// infeasible without calling a solver.
pub fn solve(lp: &LinearProgram, control: &SolveControl, relative_gap: f64) -> SolveOutcome {
    solve_with_shortcut(lp, control, relative_gap, RELAXATION_SHORTCUT_SECONDS)
}

/// `solve` with the relaxation shortcut limited to `shortcut_seconds`.
fn solve_with_shortcut(lp: &LinearProgram, control: &SolveControl, relative_gap: f64, shortcut_seconds: f64) -> SolveOutcome {
    let started = Instant::now();
    if lp.lower.iter().zip(&lp.upper).any(|(l, u)| l > u) {
        return SolveOutcome::without_solution(SolveStatus::Infeasible, started);
    }
    if control.is_cancelled() {
        return SolveOutcome::without_solution(SolveStatus::Cancelled, started);
    }
    if lp.variable_count() == 0 {
        return constant_outcome(lp, started);
    }
    let time_limit = match control.deadline {
        Some(deadline) => {
            let left = deadline.saturating_duration_since(Instant::now()).as_secs_f64();
            if left <= 0.0 {
                return SolveOutcome::without_solution(SolveStatus::TimedOut, started);
            }
            left
        }
        None => f64::INFINITY,
    };
    if !lp.is_mixed_integer() {
        // Clarabel's infeasibility certificates are numerical: a dual one on a bounded program
        // (REopt.jl's CST scenario with the trough stand-in's factor drew one) goes to HiGHS's
        // simplex to settle.
        let outcome = solve_lp(lp, control, time_limit, started);
        return match outcome.status {
            SolveStatus::Unbounded | SolveStatus::Failed(_) => solve_mip_in_time_left(lp, control, relative_gap, started, None),
            _ => outcome,
        };
    }
    // The relaxation bounds the MILP from below: when its point, binaries rounded, is feasible
    // within the gap, it is an answer and HiGHS is not needed (most tariffs' tier choices and
    // many generators' turndowns are met by the relaxation already). It is a shortcut only: past
    // its own limit HiGHS takes the MILP with the time left.
    let relaxed = solve_lp(lp, control, time_limit.min(shortcut_seconds), started);
    match relaxed.status {
        SolveStatus::Optimal | SolveStatus::AlmostOptimal => {}
        SolveStatus::TimedOut if !control.is_past_deadline() => return solve_mip_in_time_left(lp, control, relative_gap, started, None),
        SolveStatus::Infeasible | SolveStatus::TimedOut | SolveStatus::Cancelled => return relaxed,
        SolveStatus::Unbounded | SolveStatus::Failed(_) => return solve_mip(lp, control, relative_gap, time_limit, started, None),
    }
    let rounded = rounded_point(lp, &relaxed);
    if let Some(rounded) = rounded.as_ref().filter(|rounded| within_gap(rounded, &relaxed, relative_gap)) {
        return SolveOutcome { seconds: started.elapsed().as_secs_f64(), ..rounded.clone() };
    }
    solve_mip_in_time_left(lp, control, relative_gap, started, rounded.as_ref().map(|rounded| rounded.x.as_slice()))
}

/// `solve_mip` with the time left to the deadline.
fn solve_mip_in_time_left(lp: &LinearProgram, control: &SolveControl, relative_gap: f64, started: Instant, start: Option<&[f64]>) -> SolveOutcome {
    let left = control.deadline.map_or(f64::INFINITY, |deadline| deadline.saturating_duration_since(Instant::now()).as_secs_f64());
    if left <= 0.0 {
        return SolveOutcome::without_solution(SolveStatus::TimedOut, started);
    }
    solve_mip(lp, control, relative_gap, left, started, start)
}

/// A row or objective holds within this share of its size (Clarabel's answers are accurate to
/// about 1e-8 relative).
const ROUNDING_TOLERANCE: f64 = 1e-6;

/// How far a row is from holding at `x` (0 when it holds within the tolerance, relative to the
/// larger of its right-hand side and the sum of its terms' magnitudes).
fn row_excess(lp: &LinearProgram, i: usize, x: &[f64]) -> f64 {
    let range = lp.row_start[i]..lp.row_start[i + 1];
    let terms = lp.columns[range.clone()].iter().zip(&lp.values[range]).map(|(&j, a)| a * x[j]);
    let (activity, size) = terms.fold((0.0, 0.0), |(sum, size), term: f64| (sum + term, size + term.abs()));
    // Relative to the row's own size: a month's tier sums thousands of steps.
    let slack = ROUNDING_TOLERANCE * lp.rhs[i].abs().max(size).max(1.0);
    let excess = match lp.kinds[i] {
        RowKind::Equal => (activity - lp.rhs[i]).abs(),
        RowKind::LessOrEqual => activity - lp.rhs[i],
    };
    if excess > slack { excess } else { 0.0 }
}

/// The relaxation's continuous point with the fewest binaries on: every binary 0, then each
/// binary that can relieve a row the point breaks (a negative coefficient in a `≤` row) set to
/// one. An interior point leaves binaries anywhere between their rows' limits, so their relaxed
/// values say little. None when that point breaks a row.
fn rounded_point(lp: &LinearProgram, relaxed: &SolveOutcome) -> Option<SolveOutcome> {
    let mut x = relaxed.x.clone();
    for (value, _) in x.iter_mut().zip(&lp.integer).filter(|(_, &integer)| integer) {
        *value = 0.0;
    }
    for i in 0..lp.row_count() {
        if lp.kinds[i] == RowKind::LessOrEqual && row_excess(lp, i, &x) > 0.0 {
            for k in lp.row_start[i]..lp.row_start[i + 1] {
                if lp.integer[lp.columns[k]] && lp.values[k] < 0.0 {
                    x[lp.columns[k]] = 1.0;
                }
            }
        }
    }
    let rows_hold = (0..lp.row_count()).all(|i| row_excess(lp, i, &x) == 0.0);
    rows_hold.then(|| SolveOutcome { objective: lp.objective_value(&x), x, ..relaxed.clone() })
}

/// Whether a feasible point costs at most the gap more than the relaxation, which bounds the
/// MILP from below: it is then optimal within the gap.
fn within_gap(point: &SolveOutcome, relaxed: &SolveOutcome, relative_gap: f64) -> bool {
    let allowance = relative_gap.max(ROUNDING_TOLERANCE) * relaxed.objective.abs().max(1.0);
    point.objective <= relaxed.objective + allowance
}

/// Solves the program as an LP with Clarabel (integer variables relaxed to their bounds).
fn solve_lp(lp: &LinearProgram, control: &SolveControl, time_limit: f64, started: Instant) -> SolveOutcome {
    let form = conic_form(lp);
    let n = lp.variable_count();
    let p = CscMatrix::zeros((n, n));
    let cones = [SupportedConeT::ZeroConeT(form.equalities), SupportedConeT::NonnegativeConeT(form.inequalities)];
    let settings = match DefaultSettingsBuilder::default().verbose(false).time_limit(time_limit).max_iter(400).build() {
        Ok(settings) => settings,
        Err(error) => return SolveOutcome::without_solution(SolveStatus::Failed(error.to_string()), started),
    };
    let scale = objective_scale(lp);
    let objective: Vec<f64> = lp.objective.iter().map(|c| c / scale).collect();
    let mut solver = match DefaultSolver::new(&p, &objective, &form.a, &form.b, &cones, settings) {
        Ok(solver) => solver,
        Err(error) => return SolveOutcome::without_solution(SolveStatus::Failed(error.to_string()), started),
    };
    if let Some(flag) = control.cancel.clone() {
        solver.set_termination_callback(move |_info| flag.load(Ordering::Relaxed));
    }
    solver.solve();
    let status = match solver.solution.status {
        SolverStatus::Solved => SolveStatus::Optimal,
        SolverStatus::AlmostSolved => SolveStatus::AlmostOptimal,
        SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => SolveStatus::Infeasible,
        SolverStatus::DualInfeasible | SolverStatus::AlmostDualInfeasible => SolveStatus::Unbounded,
        SolverStatus::MaxTime => SolveStatus::TimedOut,
        SolverStatus::CallbackTerminated => SolveStatus::Cancelled,
        other => SolveStatus::Failed(format!("{other:?}")),
    };
    let x = solver.solution.x.clone();
    SolveOutcome {
        objective: lp.objective_value(&x),
        status,
        x,
        iterations: solver.solution.iterations,
        seconds: started.elapsed().as_secs_f64(),
        nodes: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A falling tier pair's binary: `later ≤ 50·b`, `earlier ≥ 100·b` (columns: earlier,
    /// later, b).
    fn tier_pair() -> LinearProgram {
        let mut lp = LinearProgram { objective: vec![2.0, 1.0, 0.0], lower: vec![0.0; 3], upper: vec![100.0, 50.0, 1.0], ..LinearProgram::default() };
        lp.integer = vec![false, false, true];
        lp.row(&[(1, 1.0), (2, -50.0)], RowKind::LessOrEqual, 0.0);
        lp.row(&[(0, -1.0), (2, 100.0)], RowKind::LessOrEqual, 0.0);
        lp
    }

    fn relaxed(lp: &LinearProgram, x: Vec<f64>) -> SolveOutcome {
        SolveOutcome { status: SolveStatus::Optimal, objective: lp.objective_value(&x), x, iterations: 0, seconds: 0.0, nodes: 1 }
    }

    #[test]
    fn a_relaxed_point_whose_binaries_can_be_set_is_kept_with_the_fewest_on() {
        let lp = tier_pair();
        let full_relaxed = relaxed(&lp, vec![100.0, 20.0, 0.4]);
        let full = rounded_point(&lp, &full_relaxed).expect("tier 1 is full: b = 1");
        assert_eq!(full.x, vec![100.0, 20.0, 1.0]);
        assert!(within_gap(&full, &full_relaxed, 1e-9), "b costs nothing");
        let unused = rounded_point(&lp, &relaxed(&lp, vec![60.0, 0.0, 0.5])).expect("tier 2 unused: b = 0");
        assert_eq!(unused.x, vec![60.0, 0.0, 0.0]);
        assert!(rounded_point(&lp, &relaxed(&lp, vec![60.0, 20.0, 0.4])).is_none(), "tier 2 used before tier 1 is full");
    }

    /// max x + y (as min −x − y) with x + 2y ≤ 3.5, 3x + y ≤ 5, y integer: a relaxation with no
    /// time for its shortcut leaves the MILP to HiGHS, which finds the same optimum (y = 1,
    /// x = 4/3) as the run that takes the shortcut first.
    #[test]
    fn a_relaxation_past_its_shortcut_limit_leaves_the_milp_to_highs() {
        let mut lp = LinearProgram { objective: vec![-1.0, -1.0], lower: vec![0.0; 2], upper: vec![10.0; 2], ..LinearProgram::default() };
        lp.integer = vec![false, true];
        lp.row(&[(0, 1.0), (1, 2.0)], RowKind::LessOrEqual, 3.5);
        lp.row(&[(0, 3.0), (1, 1.0)], RowKind::LessOrEqual, 5.0);
        let control = SolveControl { deadline: Some(Instant::now() + std::time::Duration::from_secs(60)), cancel: None };
        for shortcut_seconds in [0.0, RELAXATION_SHORTCUT_SECONDS] {
            let outcome = solve_with_shortcut(&lp, &control, 1e-9, shortcut_seconds);
            assert_eq!(outcome.status, SolveStatus::Optimal, "shortcut {shortcut_seconds} s");
            assert!((outcome.objective + 7.0 / 3.0).abs() < 1e-6, "shortcut {shortcut_seconds} s: {}", outcome.objective);
            assert!((outcome.x[1] - 1.0).abs() < 1e-9, "shortcut {shortcut_seconds} s: {:?}", outcome.x);
        }
    }

    /// An LP Clarabel reads as unbounded goes to HiGHS to settle: min −x − y with x − y ≤ 1 and
    /// no upper bounds is unbounded for both.
    #[test]
    fn an_lp_clarabel_reads_as_unbounded_is_settled_by_highs() {
        let mut lp = LinearProgram { objective: vec![-1.0, -1.0], lower: vec![0.0; 2], upper: vec![f64::INFINITY; 2], ..LinearProgram::default() };
        lp.integer = vec![false, false];
        lp.row(&[(0, 1.0), (1, -1.0)], RowKind::LessOrEqual, 1.0);
        let started = Instant::now();
        assert_eq!(solve_lp(&lp, &SolveControl::default(), 60.0, started).status, SolveStatus::Unbounded);
        assert_eq!(solve(&lp, &SolveControl::default(), 1e-9).status, SolveStatus::Unbounded);
    }

    /// A feasible rounded point that costs more than the gap allows is no answer (it becomes
    /// HiGHS's start instead): with b costing 10, the relaxation's b = 0.4 costs 4 less.
    #[test]
    fn a_rounded_point_beyond_the_gap_is_not_an_answer() {
        let mut lp = tier_pair();
        lp.objective[2] = 10.0;
        let relaxed = relaxed(&lp, vec![100.0, 20.0, 0.4]);
        let rounded = rounded_point(&lp, &relaxed).expect("feasible with b = 1");
        assert!((rounded.objective - relaxed.objective - 6.0).abs() < 1e-12);
        assert!(!within_gap(&rounded, &relaxed, 1e-3));
        assert!(within_gap(&rounded, &relaxed, 0.05));
    }
}

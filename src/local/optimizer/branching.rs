//! Branch and bound over the linear program for the either-or choices of tiers whose price
//! falls with use (`lp::Disjunction`): tier k+1 is cheaper than tier k, so it may be used only
//! when tier k is full. The LP relaxation lets the cheap tier be used freely; each node adds one
//! side of one violated choice (the later tier unused, or the earlier tier full) and is solved
//! again with Clarabel.
//!
//! Search: depth first, the side nearer the relaxation's point first, so that a feasible
//! solution (an incumbent) comes early; a node is dropped when its relaxation cannot beat the
//! incumbent by more than the relative gap (`Settings.optimality_tolerance`). Every node is a
//! fresh interior-point solve (Clarabel has no warm start), so the search is meant for the few
//! choices a tariff adds (one per month or demand period and falling tier pair), not for
//! general integer programs. It stops with an error past `MAX_NODES` nodes or the deadline.

use super::lp::{Disjunction, LinearProgram};
use super::solve::{self, SolveControl, SolveOutcome, SolveStatus};

/// Nodes solved before the search gives up.
pub const MAX_NODES: usize = 4000;

/// A choice counts as met when its violation is at most this share of its tier limit (or kW/kWh).
const VIOLATION_TOLERANCE: f64 = 1e-6;

/// The best solution found and what the search cost.
#[derive(Debug, Clone)]
pub struct BranchOutcome {
    pub solution: SolveOutcome,
    pub nodes: usize,
    pub iterations: u32,
}

/// Why the search failed.
#[derive(Debug, Clone, PartialEq)]
pub enum BranchFailure {
    Infeasible,
    Stopped(SolveStatus),
    NodeLimit { nodes: usize, gap: Option<f64> },
}

struct Node {
    restrictions: Vec<(usize, usize)>,
    /// The parent's relaxation value (a lower bound of this node).
    bound: f64,
}

fn violated(choice: &Disjunction, x: &[f64]) -> f64 {
    let scale = choice.limit.abs().max(1.0);
    let violation = choice.violation(x) / scale;
    if violation > VIOLATION_TOLERANCE {
        violation
    } else {
        0.0
    }
}

fn improves(objective: f64, incumbent: Option<&SolveOutcome>, gap: f64) -> bool {
    incumbent.is_none_or(|best| objective < best.objective - gap * best.objective.abs().max(1.0))
}

/// Solves `base` with every choice respected.
pub fn branch_and_bound(base: &LinearProgram, choices: &[Disjunction], gap: f64, control: &SolveControl) -> Result<BranchOutcome, BranchFailure> {
    let mut stack = vec![Node { restrictions: Vec::new(), bound: f64::NEG_INFINITY }];
    let mut incumbent: Option<SolveOutcome> = None;
    let mut nodes = 0;
    let mut iterations = 0;
    let mut open_bound = f64::INFINITY;
    while let Some(node) = stack.pop() {
        if !improves(node.bound, incumbent.as_ref(), gap) {
            continue;
        }
        if nodes >= MAX_NODES {
            open_bound = open_bound.min(node.bound);
            continue;
        }
        nodes += 1;
        let mut lp = base.clone();
        for &(choice, side) in &node.restrictions {
            choices[choice].sides()[side].apply(&mut lp);
        }
        let outcome = solve::solve(&lp, control);
        iterations += outcome.iterations;
        match outcome.status {
            SolveStatus::Optimal | SolveStatus::AlmostOptimal => {}
            SolveStatus::Infeasible => continue,
            other => return Err(BranchFailure::Stopped(other)),
        }
        if !improves(outcome.objective, incumbent.as_ref(), gap) {
            continue;
        }
        let taken: Vec<usize> = node.restrictions.iter().map(|&(choice, _)| choice).collect();
        let worst = (0..choices.len())
            .filter(|c| !taken.contains(c))
            .map(|c| (c, violated(&choices[c], &outcome.x)))
            .filter(|(_, v)| *v > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((choice, _)) = worst else {
            incumbent = Some(outcome);
            continue;
        };
        // Explore first the side the relaxation is nearer: later tier small → "later unused".
        let d = &choices[choice];
        let later = d.later.value(&outcome.x).max(0.0);
        let room = (d.limit - d.earlier.value(&outcome.x)).max(0.0);
        let first = if later <= room { 0 } else { 1 };
        for side in [1 - first, first] {
            let mut restrictions = node.restrictions.clone();
            restrictions.push((choice, side));
            stack.push(Node { restrictions, bound: outcome.objective });
        }
    }
    match incumbent {
        Some(best) if open_bound.is_infinite() || !improves(open_bound, Some(&best), gap) => {
            Ok(BranchOutcome { solution: best, nodes, iterations })
        }
        Some(best) => Err(BranchFailure::NodeLimit { nodes, gap: Some((best.objective - open_bound) / best.objective.abs().max(1.0)) }),
        None if nodes >= MAX_NODES => Err(BranchFailure::NodeLimit { nodes, gap: None }),
        None => Err(BranchFailure::Infeasible),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::optimizer::lp::{Expression, Restriction, RowKind};

    /// Buy 150 units in two tiers: tier 1 costs 2 up to 100, tier 2 costs 1 but only once
    /// tier 1 is full. The relaxation buys all 150 in tier 2 (cost 150); the true optimum fills
    /// tier 1 (100·2 + 50·1 = 250).
    #[test]
    fn a_falling_tier_is_used_only_after_the_earlier_one_is_full() {
        let mut lp = LinearProgram {
            objective: vec![2.0, 1.0],
            lower: vec![0.0, 0.0],
            upper: vec![100.0, f64::INFINITY],
            ..LinearProgram::default()
        };
        lp.row(&[(0, -1.0), (1, -1.0)], RowKind::LessOrEqual, -150.0);
        let choice = Disjunction {
            label: "test".into(),
            earlier: Expression { terms: vec![(0, 1.0)], constant: 0.0 },
            limit: 100.0,
            later: Expression { terms: vec![(1, 1.0)], constant: 0.0 },
            later_columns: vec![1],
        };
        let relaxed = solve::solve(&lp, &SolveControl::default());
        assert!((relaxed.objective - 150.0).abs() < 1e-5);
        let best = branch_and_bound(&lp, std::slice::from_ref(&choice), 1e-9, &SolveControl::default()).unwrap();
        assert!((best.solution.objective - 250.0).abs() < 1e-4, "{}", best.solution.objective);
        assert!(best.nodes >= 2);
        assert_eq!(choice.sides()[0], Restriction::Zero(vec![1]));
        lp.upper[0] = 50.0;
        let capped = branch_and_bound(&lp, &[choice], 1e-9, &SolveControl::default());
        assert_eq!(capped.unwrap_err(), BranchFailure::Infeasible, "tier 1 cannot fill, so tier 2 is closed and 150 cannot be bought");
    }
}

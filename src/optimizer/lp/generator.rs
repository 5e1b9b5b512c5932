//! The generator: its new capacity, its output per step (to the load, to storage, curtailed)
//! within its size, the year's fuel, and the service's on/off binary per step where a minimum
//! turndown or a fuel-curve intercept makes it matter.

use super::{energy_value, Case, CostFactors, Layout, LinearProgram, RowKind, SizeChoice};
use crate::optimizer::model::resilience_inputs::Generator;
use crate::optimizer::model::Model;

/// Fuel at or above this is unlimited (the service's default `fuel_avail_gal` is 1e9).
pub const UNLIMITED_FUEL_GAL: f64 = 1.0e9;

/// The generator: new capacity (its net present cost and O&M per kW), and per step where it may
/// run its output to the load (and to storage) at its cost per kWh, within its size; the year's
/// fuel at most `fuel_avail_gal`. The service's on/off binary per step (`on_t`) is
/// modelled when it matters, that is with a minimum turndown or a fuel-curve intercept; output
/// is then to load, to storage and, with `can_curtail` (the service's default: no), curtailed:
///
/// ```text
/// output_t ≤ M·on_t
/// td·(existing + new) − output_t ≤ td·M·(1 − on_t)     (grid-connected steps, or off grid)
/// fuel = Σ_t Δ·(slope·output_t + intercept·on_t) ≤ fuel available
/// ```
///
/// with the intercept's fuel cost per step on; as in the service, the intercept is per hour on,
/// not per kW of size. M bounds the size (and so the output, curtailment included): the largest
/// size allowed, or, when a kW costs money, the most any step can take (a larger generator only
/// costs more).
pub(super) fn add_generator(lp: &mut LinearProgram, layout: &mut Layout, model: &Model, factors: &CostFactors, case: &Case) {
    let (Some(g), Some(costs)) = (&model.generator, &factors.generator) else { return };
    if case.generator == SizeChoice::Absent {
        return;
    }
    let om = factors.om_factor() * g.om_cost_per_kw;
    lp.objective_constant += om * g.existing_kw;
    if case.generator == SizeChoice::Sized {
        layout.generator_new = Some(lp.variable(costs.net_present_cost_per_kw + om, g.min_new_kw, g.max_new_kw));
    }
    let dt = model.step_hours();
    let storage = model.storage.as_ref().filter(|_| case.storage);
    let most_in_step = |t: usize| model.load_kw[t] + storage.map_or(0.0, |s| s.max_kw);
    let largest_size = g.largest_kw(layout.generator_new.is_some());
    let size_bound = if costs.net_present_cost_per_kw + om > 0.0 {
        let most = (0..model.steps()).map(most_in_step).fold(0.0, f64::max);
        largest_size.min(most.max(g.existing_kw + g.min_new_kw))
    } else {
        largest_size
    };
    layout.generator_size_bound = size_bound;
    let exact = g.needs_on_off();
    let mut fuel: Vec<(usize, f64)> = Vec::new();
    let (mut to_load, mut to_storage, mut curtailed) = (vec![None; model.steps()], vec![None; model.steps()], vec![None; model.steps()]);
    for t in 0..model.steps() {
        if !g.may_run(model.has_grid(t)) {
            continue;
        }
        let load = lp.variable(dt * costs.cost_per_kwh - energy_value(model, factors, t), 0.0, f64::INFINITY);
        to_load[t] = Some(load);
        let mut output = vec![(load, 1.0)];
        if storage.is_some() {
            let charge = lp.variable(dt * costs.cost_per_kwh, 0.0, f64::INFINITY);
            to_storage[t] = Some(charge);
            output.push((charge, 1.0));
        }
        if exact && g.can_curtail {
            // Running at the turndown above the load burns the fuel of the whole output.
            let curtail = lp.variable(dt * costs.cost_per_kwh, 0.0, f64::INFINITY);
            curtailed[t] = Some(curtail);
            output.push((curtail, 1.0));
        }
        fuel.extend(output.iter().map(|&(j, _)| (j, dt * costs.gallons_per_kwh)));
        let mut row = output.clone();
        row.extend(layout.generator_new.map(|j| (j, -1.0)));
        lp.row(&row, RowKind::LessOrEqual, g.existing_kw);
        if exact {
            let turndown_applies = model.off_grid.is_some() || model.has_grid(t);
            let step = OnOffStep { output: &output, dt, size_bound, turndown_applies, cost_per_hour_on: costs.cost_per_hour_on };
            add_on_off(lp, layout, g, &step, &mut fuel);
        }
    }
    if g.fuel_avail_gal < UNLIMITED_FUEL_GAL && !fuel.is_empty() {
        lp.row(&fuel, RowKind::LessOrEqual, g.fuel_avail_gal);
    }
    layout.generator_fuel = fuel;
    layout.generator_load = to_load;
    layout.generator_storage = to_storage;
    layout.generator_curtail = curtailed;
}

/// One step of the generator's on/off choice (of the year's dispatch or of an outage's).
pub(super) struct OnOffStep<'a> {
    /// The step's output columns (to load, to storage, curtailed).
    pub output: &'a [(usize, f64)],
    pub dt: f64,
    /// A bound on the generator's size (kW).
    pub size_bound: f64,
    /// Whether the minimum turndown holds in this step.
    pub turndown_applies: bool,
    /// Objective cost ($) of an hour on: the intercept's fuel in the year's dispatch; 0 in an
    /// outage, whose fuel is costed per outage.
    pub cost_per_hour_on: f64,
}

/// The on/off binary of one step (see `add_generator`), returned; the intercept's gallons join
/// `fuel`.
pub(super) fn add_on_off(lp: &mut LinearProgram, layout: &Layout, g: &Generator, step: &OnOffStep, fuel: &mut Vec<(usize, f64)>) -> usize {
    let on = lp.binary(step.dt * step.cost_per_hour_on);
    let mut row = step.output.to_vec();
    row.push((on, -step.size_bound));
    lp.row(&row, RowKind::LessOrEqual, 0.0);
    if step.turndown_applies && g.min_turn_down_fraction > 0.0 {
        // td·new − output + M·on ≤ M − td·existing, with M = td·size_bound
        let big = g.min_turn_down_fraction * step.size_bound;
        let mut row: Vec<(usize, f64)> = step.output.iter().map(|&(j, _)| (j, -1.0)).collect();
        row.extend(layout.generator_new.map(|j| (j, g.min_turn_down_fraction)));
        row.push((on, big));
        lp.row(&row, RowKind::LessOrEqual, big - g.min_turn_down_fraction * g.existing_kw);
    }
    if g.fuel_intercept_gal_per_hour > 0.0 {
        fuel.push((on, step.dt * g.fuel_intercept_gal_per_hour));
    }
    on
}

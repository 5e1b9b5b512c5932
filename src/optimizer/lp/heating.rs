//! The heat balance and the boilers (REopt.jl `add_boiler_tech_constraints`,
//! `add_heating_tech_constraints` and the hot part of `add_thermal_load_constraints`), for
//! boilers only: no waste heat (the service fixes it to zero for techs that make no
//! electricity), no steam turbine, no hot storage.
//!
//! Variables (thermal kW, ≥ 0): per step `eb_t` (existing boiler to load) and, when a new boiler
//! is sized, `nb_t` and its size `nb_kw`. Rows, for every step t:
//!
//! ```text
//! Heat balance:  eb_t + nb_t = Σ_q load_qt
//! Capacity:      eb_t ≤ max_kw_eb (the variable's bound);  nb_t ≤ nb_kw,  min_kw ≤ nb_kw ≤ max_kw
//! ```
//!
//! Fuel burned (kWh) is Δ · production / η. Objective terms ($ present value):
//! pwf_fuel_b · (1 − τ_o) · Δ · c_bt / η_b per kW produced in step t (c = $ per kWh of fuel),
//! pwf_om · (1 − τ_w) · Δ · om_kwh per kW of the new boiler, and
//! (installed $/kW + pwf_om · (1 − τ_w) · om $/kW-year) per kW of new boiler. The business-as-usual
//! case has the existing boiler only; the optimal case drops it when `retire_in_optimal` and a
//! new boiler exists.

use super::{Case, CostFactors, LinearProgram, RowKind};
use crate::optimizer::finance::present_worth_factor;
use crate::optimizer::model::thermal_inputs::{FuelBurner, Heating};
use crate::optimizer::model::Model;

/// Where the heating quantities live in the LP.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatingLayout {
    /// Existing boiler to load, first of a series (None when retired in this case).
    pub existing: Option<usize>,
    /// New boiler to load, first of a series, and its size.
    pub new: Option<usize>,
    pub new_size: Option<usize>,
}

/// The heating dispatch of a solution (thermal kW per step; kW).
#[derive(Debug, Clone, PartialEq)]
pub struct HeatingDispatch {
    pub existing_kw: Vec<f64>,
    pub new_kw: Vec<f64>,
    pub new_size_kw: f64,
}

/// Present-worth factors of a burner's fuel: Σ_{y=1..N} ((1+e_fuel)/(1+d_o))^y.
pub fn fuel_present_worth(model: &Model, burner: &FuelBurner) -> f64 {
    let f = &model.financial;
    present_worth_factor(f.analysis_years, burner.fuel_escalation, f.offtaker_discount_rate_fraction)
}

/// $ (year one, before tax) of fuel per thermal kW produced in step t.
pub fn year_one_fuel_cost_per_kw(model: &Model, burner: &FuelBurner, t: usize) -> f64 {
    model.step_hours() * burner.fuel_cost_per_kwh[t] / burner.efficiency
}

/// Whether the existing boiler runs in a case.
pub fn existing_boiler_runs(heating: &Heating, case: &Case) -> bool {
    case.bau || !(heating.existing_boiler.retire_in_optimal && heating.boiler.is_some())
}

/// Adds the heating variables and rows of a case; None without heating.
pub(super) fn add_heating(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, case: &Case) -> Option<HeatingLayout> {
    let heating = model.heating.as_ref()?;
    let steps = model.steps();
    let fuel_factor = |burner: &FuelBurner| fuel_present_worth(model, burner) * factors.offtaker_after_tax;
    let existing = existing_boiler_runs(heating, case).then(|| {
        let burner = &heating.existing_boiler.burner;
        let pw = fuel_factor(burner);
        let start = lp.series(steps, |t| pw * year_one_fuel_cost_per_kw(model, burner, t));
        (0..steps).for_each(|t| lp.upper[start + t] = heating.existing_boiler.max_kw);
        start
    });
    let (new, new_size) = match heating.boiler.as_ref().filter(|_| !case.bau) {
        Some(boiler) => {
            let pw = fuel_factor(&boiler.burner);
            let om_per_kw_produced = factors.om_factor() * model.step_hours() * boiler.om_cost_per_kwh;
            let start = lp.series(steps, |t| pw * year_one_fuel_cost_per_kw(model, &boiler.burner, t) + om_per_kw_produced);
            let size_cost = boiler.installed_cost_per_kw + factors.om_factor() * boiler.om_cost_per_kw;
            let size = lp.variable(size_cost, boiler.min_kw, boiler.max_kw);
            for t in 0..steps {
                lp.row(&[(start + t, 1.0), (size, -1.0)], RowKind::LessOrEqual, 0.0);
            }
            (Some(start), Some(size))
        }
        None => (None, None),
    };
    for t in 0..steps {
        let terms: Vec<(usize, f64)> = [existing, new].into_iter().flatten().map(|start| (start + t, 1.0)).collect();
        lp.row(&terms, RowKind::Equal, heating.total_kw(t));
    }
    Some(HeatingLayout { existing, new, new_size })
}

impl HeatingLayout {
    /// Reads the heating dispatch; values at or below `tolerance` become 0.
    pub fn dispatch(&self, x: &[f64], steps: usize, tolerance: f64) -> HeatingDispatch {
        let clean = |v: f64| if v <= tolerance { 0.0 } else { v };
        let series = |start: Option<usize>| match start {
            Some(s) => x[s..s + steps].iter().map(|&v| clean(v)).collect(),
            None => vec![0.0; steps],
        };
        HeatingDispatch { existing_kw: series(self.existing), new_kw: series(self.new), new_size_kw: self.new_size.map_or(0.0, |i| clean(x[i])) }
    }
}

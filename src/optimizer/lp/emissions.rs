//! Emissions and renewable electricity in the program, as REopt.jl
//! `src/constraints/emissions_constraints.jl` and `renewable_energy_constraints.jl`: the
//! year's grid pounds and generator fuel as expressions, their climate and health costs in
//! the objective (`Settings.include_climate_in_objective`, `include_health_in_objective`), and
//! the renewable-electricity and CO2-reduction bounds (optimal cases only: the service's
//! business-as-usual site has no targets).
//!
//! ```text
//! grid_p   = Δ Σ_{t with grid} ef_pt·(purchase_t − [exports count]·export_t)       (lb, year one)
//! fuel_p   = lb_per_gal_p · Σ fuel terms + Δ Σ_{b,t} lb_bp · heat_bt                  (lb, year one;
//!            boilers b: lb_bp = lb-per-MMBtu / (KWH_PER_MMBTU · η_b) per thermal kWh)
//! cost_p   = TONNE_PER_LB·(pwf_grid_cost_p·c_grid_p·grid_p + pwf_onsite_cost_p·c_onsite_p·fuel_p)
//! RE_site  = Δ Σ_t [pv_load + η·pv_storage + [exports count]·export
//!                   + f_gen·(gen_load + η·gen_storage) + f_chp·(chp_load + η·chp_storage
//!                   + [exports count]·chp_export)]  (η = η_c·η_d)
//! RE_grid  = Δ Σ_{t with grid} r_t·(purchase_t − (1 − η)·grid_storage_t)
//! min·L ≤ RE_site + [grid share counts]·RE_grid ≤ max·L                             (L: year's load)
//! (1 − max)·CO2_bau ≤ pwf_grid_CO2·grid_CO2 + N·fuel_CO2 ≤ (1 − min)·CO2_bau
//! ```

use super::{load_target, supply_terms, Case, CostFactors, Expression, Layout, LinearProgram, RowKind};
use crate::optimizer::emissions::TONNE_PER_LB;
use crate::optimizer::model::Pollutant;
use crate::optimizer::model::Model;

/// The grid purchase of step t: load target − on-site supply + grid to storage (0 without the grid).
fn purchase_terms(layout: &Layout, model: &Model, case: &Case, t: usize, scale: f64, expression: &mut Expression) {
    if !model.has_grid(t) {
        return;
    }
    expression.constant += scale * load_target(model, case, t);
    expression.terms.extend(supply_terms(layout, t, -scale));
    expression.terms.extend(layout.grid_storage.map(|start| (start + t, scale)));
}

/// The exports of step t (every technology and bin).
fn export_terms(layout: &Layout, t: usize, scale: f64) -> impl Iterator<Item = (usize, f64)> + '_ {
    layout.export_columns().map(move |(_, start)| (start + t, scale))
}

/// The PV exports of step t (every group and bin).
fn pv_export_terms(layout: &Layout, t: usize, scale: f64) -> impl Iterator<Item = (usize, f64)> + '_ {
    layout.export_groups.iter().flat_map(|g| g.bins.iter().flatten()).map(move |&start| (start + t, scale))
}

/// Year-one grid pounds of a pollutant with factors `lb_per_kwh` per step.
pub fn grid_pounds(layout: &Layout, model: &Model, case: &Case, lb_per_kwh: &[f64]) -> Expression {
    let dt = model.step_hours();
    let net = model.emissions.include_exported_elec_emissions_in_total;
    let mut expression = Expression::default();
    for (t, &factor) in lb_per_kwh.iter().enumerate() {
        purchase_terms(layout, model, case, t, dt * factor, &mut expression);
        if net {
            expression.terms.extend(export_terms(layout, t, -dt * factor));
        }
    }
    expression
}

/// The round-trip efficiency of storage (1 without storage: nothing is stored then).
fn round_trip(model: &Model) -> f64 {
    model.storage.as_ref().map_or(1.0, |s| s.charge_efficiency() * s.discharge_efficiency())
}

/// Renewable kWh consumed on site in the year (`AnnualOnsiteREEleckWh`).
pub fn onsite_renewable_kwh(layout: &Layout, model: &Model) -> Expression {
    let dt = model.step_hours();
    let eta = round_trip(model);
    let exported = if model.settings.include_exported_renewable_electricity_in_total { dt } else { 0.0 };
    let generator_fraction = model.generator.as_ref().map_or(0.0, |g| g.fuel_renewable_energy_fraction);
    let chp_fraction = model.chp.as_ref().map_or(0.0, |c| c.burner.renewable_fraction);
    let mut terms = Vec::new();
    for t in 0..model.steps() {
        terms.extend(layout.pv_load.map(|start| (start + t, dt)));
        terms.extend(layout.pv_storage.map(|start| (start + t, dt * eta)));
        terms.extend(pv_export_terms(layout, t, exported));
        if generator_fraction > 0.0 {
            terms.extend(layout.generator_load.get(t).copied().flatten().map(|j| (j, dt * generator_fraction)));
            terms.extend(layout.generator_storage.get(t).copied().flatten().map(|j| (j, dt * generator_fraction * eta)));
        }
        if let (Some(chp), true) = (&layout.chp, chp_fraction > 0.0) {
            terms.push((chp.to_load + t, dt * chp_fraction));
            terms.extend(chp.to_storage.map(|start| (start + t, dt * chp_fraction * eta)));
            terms.extend(chp.to_grid.iter().flatten().map(|start| (start + t, exported * chp_fraction)));
        }
    }
    Expression { terms, constant: 0.0 }
}

/// Renewable kWh bought from the grid in the year (`AnnualGridREEleckWh`).
pub fn grid_renewable_kwh(layout: &Layout, model: &Model, case: &Case, fraction: &[f64]) -> Expression {
    let dt = model.step_hours();
    let loss = 1.0 - round_trip(model);
    let mut expression = Expression::default();
    for (t, &share) in fraction.iter().enumerate() {
        purchase_terms(layout, model, case, t, dt * share, &mut expression);
        if model.has_grid(t) {
            expression.terms.extend(layout.grid_storage.map(|start| (start + t, -dt * share * loss)));
        }
    }
    expression
}

/// Year-one pounds of a pollutant from fuel burned on site: the generator's gallons at its lb
/// per gallon, each boiler's heat (to load, to storage and to the steam turbine) at Δ·lb per thermal kWh, and the CHP's
/// fuel line (intercept, slope · output, firing heat / its efficiency) at Δ·lb per fuel kWh (the
/// service's `calc_yr1_emissions_from_onsite_fuel` over its fuel-burning techs).
pub fn onsite_fuel_pounds(layout: &Layout, model: &Model, p: Pollutant) -> Expression {
    let lb_per_gal = model.generator.as_ref().map_or(0.0, |g| g.emissions_lb_per_gal.of(p));
    let mut terms: Vec<(usize, f64)> = layout.generator_fuel.iter().map(|&(j, a)| (j, lb_per_gal * a)).collect();
    if let (Some(heating), Some(h)) = (&model.heating, &layout.heating) {
        let dt = model.step_hours();
        let existing = dt * heating.existing_boiler.burner.lb_per_thermal_kwh(p);
        let new = heating.boiler.as_ref().map_or(0.0, |b| dt * b.burner.lb_per_thermal_kwh(p));
        let series = [(h.existing, existing), (h.existing_to_storage, existing), (h.new, new), (h.new_to_storage, new)];
        let series = series.into_iter().chain([(h.existing_to_turbine, existing), (h.new_to_turbine, new)]);
        for (start, lb) in series {
            if let (Some(start), true) = (start, lb != 0.0) {
                terms.extend((0..model.steps()).map(|t| (start + t, lb)));
            }
        }
    }
    if let (Some(chp), Some(c)) = (&model.chp, &layout.chp) {
        let lb = model.step_hours() * chp.burner.lb_per_thermal_kwh(p);
        let series = [(Some(c.rated), chp.fuel_slope), (c.fuel_intercept, 1.0), (c.supplementary, 1.0 / chp.supplementary_firing_efficiency)];
        for (start, share) in series {
            if let (Some(start), true) = (start, lb != 0.0) {
                terms.extend((0..model.steps()).map(|t| (start + t, lb * share)));
            }
        }
    }
    Expression { terms, constant: 0.0 }
}

/// Adds `scale · expression` to the objective.
fn add_to_objective(lp: &mut LinearProgram, expression: &Expression, scale: f64) {
    for &(j, a) in &expression.terms {
        lp.objective[j] += scale * a;
    }
    lp.objective_constant += scale * expression.constant;
}

/// `expression ≤ rhs` (`at_most`) or `expression ≥ rhs`.
fn bound(lp: &mut LinearProgram, expression: &Expression, rhs: f64, at_most: bool) {
    let sign = if at_most { 1.0 } else { -1.0 };
    let terms: Vec<(usize, f64)> = expression.terms.iter().map(|&(j, a)| (j, sign * a)).collect();
    lp.row(&terms, RowKind::LessOrEqual, sign * (rhs - expression.constant));
}

/// The lifecycle emissions cost of a pollutant ($ present value) from its year-one grid and
/// fuel-burn pounds, or None when a cost it needs is not known.
pub fn lifecycle_emissions_cost(model: &Model, factors: &CostFactors, p: Pollutant, grid_lb: f64, fuel_lb: f64) -> Option<f64> {
    let e = &model.emissions;
    let pwf = factors.emissions[p.index()];
    let grid = if grid_lb == 0.0 { 0.0 } else { pwf.grid_cost * e.grid_cost_per_tonne[p.index()]? * grid_lb };
    let onsite = if fuel_lb == 0.0 { 0.0 } else { pwf.onsite_cost * e.onsite_cost_per_tonne[p.index()]? * fuel_lb };
    Some(TONNE_PER_LB * (grid + onsite))
}

/// The pollutants whose costs are in the objective.
pub fn priced_pollutants(model: &Model) -> Vec<Pollutant> {
    let e = &model.emissions;
    let mut priced = Vec::new();
    if e.climate_in_objective {
        priced.push(Pollutant::Co2);
    }
    if e.health_in_objective {
        priced.extend(Pollutant::HEALTH);
    }
    priced
}

/// The objective terms and the bounds (see the file header). The reader refused the runs whose
/// terms need a series or cost that is not given.
pub(super) fn add_emissions(lp: &mut LinearProgram, layout: &Layout, model: &Model, factors: &CostFactors, case: &Case) {
    let e = &model.emissions;
    for p in priced_pollutants(model) {
        let pwf = factors.emissions[p.index()];
        if let (Some(series), Some(cost)) = (e.grid(p), e.grid_cost_per_tonne[p.index()]) {
            add_to_objective(lp, &grid_pounds(layout, model, case, series), TONNE_PER_LB * pwf.grid_cost * cost);
        }
        if let Some(cost) = e.onsite_cost_per_tonne[p.index()] {
            add_to_objective(lp, &onsite_fuel_pounds(layout, model, p), TONNE_PER_LB * pwf.onsite_cost * cost);
        }
    }
    if case.bau {
        return;
    }
    let load = model.annual_electric_load_kwh();
    if e.renewable_electricity_min_fraction.is_some() || e.renewable_electricity_max_fraction.is_some() {
        let mut renewable = onsite_renewable_kwh(layout, model);
        if let (true, Some(fraction)) = (e.include_grid_renewable_fraction_in_re_constraints, e.grid_renewable_fraction.as_deref()) {
            let grid = grid_renewable_kwh(layout, model, case, fraction);
            renewable.terms.extend(grid.terms);
            renewable.constant += grid.constant;
        }
        if let Some(min) = e.renewable_electricity_min_fraction {
            bound(lp, &renewable, min * load, false);
        }
        if let Some(max) = e.renewable_electricity_max_fraction {
            bound(lp, &renewable, max * load, true);
        }
    }
    if let (Some(series), Some(bau)) = (e.grid(Pollutant::Co2), factors.bau_lifecycle_co2_lb) {
        let grid = grid_pounds(layout, model, case, series);
        let years = f64::from(model.financial.analysis_years);
        let pwf = factors.emissions[Pollutant::Co2.index()].grid_emissions;
        let mut lifecycle = Expression { terms: grid.terms.iter().map(|&(j, a)| (j, pwf * a)).collect(), constant: pwf * grid.constant };
        lifecycle.terms.extend(onsite_fuel_pounds(layout, model, Pollutant::Co2).terms.iter().map(|&(j, a)| (j, years * a)));
        if let Some(min) = e.co2_reduction_min_fraction {
            bound(lp, &lifecycle, (1.0 - min) * bau, true);
        }
        if let Some(max) = e.co2_reduction_max_fraction {
            bound(lp, &lifecycle, (1.0 - max) * bau, false);
        }
    }
}

//! The emissions conventions shared by the program and the results: the
//! present-worth factors of grid emissions and of their costs, and the business-as-usual CO2
//! the reduction constraints compare with, as REopt.jl computes them
//! (`src/core/reopt_inputs.jl::setup_present_worth_factors`, `src/core/bau_inputs.jl::
//! setup_bau_emissions_inputs`, `src/constraints/emissions_constraints.jl`).

use super::finance::present_worth_factor;
use super::model::{Model, Pollutant};
use super::lp::chp::ChpDispatch;
use super::lp::heating::HeatingDispatch;
use super::run::bau_outage_served_steps;

/// Metric tonnes per pound (the service's `TONNE_PER_LB`, 1 / 2204.62).
pub const TONNE_PER_LB: f64 = 1.0 / 2204.62;

/// The present-worth factors of one pollutant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmissionsPwf {
    /// Σ_{y=1..N} (1 − decrease)^y: year-one grid pounds to lifecycle pounds (not discounted).
    pub grid_emissions: f64,
    /// Σ_{y=1..N} ((1 + escalation)(1 − decrease)/(1 + d_o))^y: year-one grid emissions cost.
    pub grid_cost: f64,
    /// Σ_{y=1..N} ((1 + escalation)/(1 + d_o))^y: year-one fuel-burn emissions cost.
    pub onsite_cost: f64,
}

/// The factors of a pollutant from its grid decrease fraction and its cost escalation (None
/// when the cost's escalation is not known: the cost factors are then 0 and unused).
pub fn emissions_pwf(model: &Model, decrease: f64, escalation: Option<f64>) -> EmissionsPwf {
    let f = &model.financial;
    let years = f.analysis_years;
    let discount = f.offtaker_discount_rate_fraction;
    let escalation = escalation.unwrap_or(0.0);
    EmissionsPwf {
        grid_emissions: present_worth_factor(years, -decrease, 0.0),
        grid_cost: present_worth_factor(years, (1.0 + escalation) * (1.0 - decrease) - 1.0, discount),
        onsite_cost: present_worth_factor(years, escalation, discount),
    }
}

/// The present-worth factors of every pollutant of a model.
pub fn pollutant_pwfs(model: &Model) -> [EmissionsPwf; 4] {
    let e = &model.emissions;
    Pollutant::ALL.map(|p| emissions_pwf(model, e.decrease_fraction[p.index()], e.cost_escalation[p.index()]))
}

/// Year-one pounds of each pollutant from the boilers' fuel in a heating dispatch (zeros
/// without heating): Δ Σ_t heat made_t · lb per thermal kWh, heat to storage included.
pub fn boiler_pounds(model: &Model, dispatch: Option<&HeatingDispatch>) -> [f64; 4] {
    let (Some(heating), Some(d)) = (&model.heating, dispatch) else {
        return [0.0; 4];
    };
    let made = |series: Vec<f64>| series.iter().sum::<f64>() * model.step_hours();
    let (existing, new) = (made(d.existing_production()), made(d.new_production()));
    Pollutant::ALL.map(|p| {
        let new_lb = heating.boiler.as_ref().map_or(0.0, |b| new * b.burner.lb_per_thermal_kwh(p));
        existing * heating.existing_boiler.burner.lb_per_thermal_kwh(p) + new_lb
    })
}

/// Year-one pounds of each pollutant (`Pollutant` order) from the CHP's fuel, supplementary
/// firing included: fuel kWh at its lb per MMBtu. Zero without CHP.
pub fn chp_pounds(model: &Model, dispatch: Option<&ChpDispatch>) -> [f64; 4] {
    let (Some(chp), Some(d)) = (&model.chp, dispatch) else {
        return [0.0; 4];
    };
    let fuel_kwh = d.fuel_kw.iter().sum::<f64>() * model.step_hours();
    Pollutant::ALL.map(|p| fuel_kwh * chp.burner.lb_per_thermal_kwh(p))
}

/// The business-as-usual CO2 (lb per year) from the grid and in total, computed before any
/// solve as the service does: the load less the existing renewables' levelized output, none
/// bought in the deterministic outage, negative steps (exports) counted only when
/// `include_exported_elec_emissions_in_total`; plus the existing generator's fuel in the
/// outage check and the existing boiler's fuel for the year's heating load (the service's
/// annual thermal MMBtu / η at its CO2 per MMBtu). None without a CO2 factor series.
pub fn bau_co2_lb_per_year(model: &Model, levelization: &[f64]) -> Option<(f64, f64)> {
    let factors = model.emissions.grid_lb_per_kwh[Pollutant::Co2.index()].as_ref()?;
    let existing = |t: usize| -> f64 { model.pvs.iter().zip(levelization).map(|(pv, lvl)| lvl * pv.existing_kw * pv.production_factor[t]).sum() };
    let in_outage = |t: usize| model.single_outage.is_some_and(|(first, last)| (first..=last).contains(&t));
    let grid: f64 = (0..model.steps())
        .map(|t| {
            let bought = if in_outage(t) { 0.0 } else { model.load_kw[t] - existing(t) };
            let counted = if model.emissions.include_exported_elec_emissions_in_total { bought } else { bought.max(0.0) };
            factors[t] * counted
        })
        .sum::<f64>()
        * model.step_hours();
    let generator = match &model.generator {
        Some(g) => bau_outage_served_steps(model).fuel_gal * g.emissions_lb_per_gal.co2,
        None => 0.0,
    };
    let boiler = model.heating.as_ref().map_or(0.0, |h| {
        let heat_kwh = (0..model.steps()).map(|t| h.total_kw(t)).sum::<f64>() * model.step_hours();
        heat_kwh * h.existing_boiler.burner.lb_per_thermal_kwh(Pollutant::Co2)
    });
    Some((grid, grid + generator + boiler))
}

/// Business-as-usual lifecycle CO2 (lb): grid pounds times the grid-emissions factor, fuel
/// pounds times the analysis years (no decrease for fuel burned on site).
pub fn bau_lifecycle_co2_lb(model: &Model, levelization: &[f64]) -> Option<f64> {
    let (grid, total) = bau_co2_lb_per_year(model, levelization)?;
    let pwf = pollutant_pwfs(model)[Pollutant::Co2.index()];
    Some(grid * pwf.grid_emissions + f64::from(model.financial.analysis_years) * (total - grid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimizer::model::from_scenario;
    use serde_json::json;

    fn flat_model(utility: serde_json::Value) -> Model {
        let scenario = json!({
            "Site": {"latitude": 40.0, "longitude": -105.0},
            "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 87600.0},
            "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 10.0},
            "ElectricUtility": utility,
            "Financial": {"analysis_years": 20, "offtaker_discount_rate_fraction": 0.08, "NOx_cost_escalation_rate_fraction": 0.02},
        });
        from_scenario(&scenario, &[]).expect("supported")
    }

    /// The factors are the service's geometric sums, y = 1..N.
    #[test]
    fn present_worth_factors_are_the_sums_they_stand_for() {
        let model = flat_model(json!({"emissions_factor_series_lb_NOx_per_kwh": 0.01, "emissions_factor_NOx_decrease_fraction": 0.03}));
        let pwf = pollutant_pwfs(&model)[Pollutant::Nox.index()];
        let sum = |ratio: f64| (1..=20).map(|y| ratio.powi(y)).sum::<f64>();
        assert!((pwf.grid_emissions - sum(0.97)).abs() < 1e-9);
        assert!((pwf.grid_cost - sum(1.02 * 0.97 / 1.08)).abs() < 1e-9);
        assert!((pwf.onsite_cost - sum(1.02 / 1.08)).abs() < 1e-9);
        // A series left out keeps the service's default decrease, echoed only when given.
        let co2 = pollutant_pwfs(&model)[Pollutant::Co2.index()];
        assert!((co2.grid_emissions - sum(1.0 - crate::optimizer::model::EMISSIONS_DECREASE_DEFAULT)).abs() < 1e-9);
        assert!(!model.filled_defaults.iter().any(|f| f.field == "emissions_factor_CO2_decrease_fraction"));
    }

    /// 10 kW all year at 1 lb/kWh is 87,600 lb; a 100-hour outage buys nothing.
    #[test]
    fn business_as_usual_co2_is_the_load_times_the_factors() {
        let model = flat_model(json!({"emissions_factor_series_lb_CO2_per_kwh": 1.0}));
        assert_eq!(bau_co2_lb_per_year(&model, &[]), Some((87600.0, 87600.0)));
        let outage = flat_model(json!({"emissions_factor_series_lb_CO2_per_kwh": 1.0, "outage_start_time_step": 101, "outage_end_time_step": 200}));
        let (grid, _) = bau_co2_lb_per_year(&outage, &[]).expect("CO2 series");
        assert!((grid - 86600.0).abs() < 1e-6);
        assert_eq!(bau_co2_lb_per_year(&flat_model(json!({})), &[]), None);
    }
}

//! Emissions results in the service's shape, recomputed from a solution's dispatch as REopt.jl
//! `src/constraints/emissions_constraints.jl` defines them and `src/results/site.jl`,
//! `electric_utility.jl` and `financial.jl` report them: `ElectricUtility` grid emissions,
//! `Site` totals and fuel burn, `Site.lifecycle_emissions_reduction_CO2_fraction`, the
//! `Financial` climate and health costs, each with its `_bau` twin, and the breakeven CO2 cost. A pollutant without a
//! given grid series (the service's outside data) reports null where its grid part is needed.

use serde_json::{Map, Value};

use super::{CostBreakdown, round_to};
use crate::optimizer::emissions::{boiler_pounds, chp_pounds, TONNE_PER_LB};
use crate::optimizer::model::Pollutant;
use crate::optimizer::lp::emissions::lifecycle_emissions_cost;
use crate::optimizer::lp::CostFactors;
use crate::optimizer::model::Model;
use crate::optimizer::run::CaseSolution;


/// The year-one pounds of one solution.
#[derive(Debug, Clone, PartialEq)]
pub struct YearOnePounds {
    /// From the grid, net of exports when `include_exported_elec_emissions_in_total` (None
    /// without the pollutant's series).
    pub grid: [Option<f64>; 4],
    /// From fuel burned on site: the generator's, the boilers' and the CHP's.
    pub fuel: [f64; 4],
}

/// Year-one pounds of every pollutant: Δ Σ_t ef_t·(purchase_t − [exports count]·export_t) from
/// the grid, gallons · lb/gal from the generator, the boilers' heat at lb per thermal kWh, the
/// CHP's fuel at lb per kWh of fuel.
pub fn year_one_pounds(model: &Model, solution: &CaseSolution, fuel_gal: f64) -> YearOnePounds {
    let d = &solution.dispatch;
    let net = if model.emissions.include_exported_elec_emissions_in_total { 1.0 } else { 0.0 };
    let grid = Pollutant::ALL.map(|p| {
        let series = model.emissions.grid(p)?;
        Some((0..model.steps()).map(|t| series[t] * (d.grid_purchase(t) - net * d.export(t))).sum::<f64>() * model.step_hours())
    });
    let boilers = boiler_pounds(model, d.heating.as_ref());
    let chp = chp_pounds(model, d.chp.as_ref());
    let generator = |p: Pollutant| model.generator.as_ref().map_or(0.0, |g| fuel_gal * g.emissions_lb_per_gal.of(p));
    let fuel = Pollutant::ALL.map(|p| generator(p) + boilers[p.index()] + chp[p.index()]);
    YearOnePounds { grid, fuel }
}

/// Lifecycle climate (CO2) and health (NOx, SO2, PM2.5) costs ($ present value); None when a
/// factor series or cost they need is not given.
pub fn emissions_costs(model: &Model, factors: &CostFactors, pounds: &YearOnePounds) -> (Option<f64>, Option<f64>) {
    let cost = |p: Pollutant| lifecycle_emissions_cost(model, factors, p, pounds.grid[p.index()]?, pounds.fuel[p.index()]);
    let climate = cost(Pollutant::Co2);
    let health = Pollutant::HEALTH.iter().map(|&p| cost(p)).sum::<Option<f64>>();
    (climate, health)
}

/// The lifecycle and annual tonnes of one solution (the service rounds the lifecycle tonnes to
/// 2 decimals and divides by the analysis years).
struct Tonnes {
    grid: [Option<f64>; 4],
    site: [Option<f64>; 4],
    fuel: [f64; 4],
}

fn tonnes(model: &Model, factors: &CostFactors, pounds: &YearOnePounds) -> Tonnes {
    let years = f64::from(model.financial.analysis_years);
    let grid = Pollutant::ALL.map(|p| pounds.grid[p.index()].map(|lb| round_to(factors.emissions[p.index()].grid_emissions * lb * TONNE_PER_LB, 2)));
    let fuel = Pollutant::ALL.map(|p| round_to(years * pounds.fuel[p.index()] * TONNE_PER_LB, 2));
    let site = Pollutant::ALL.map(|p| {
        pounds.grid[p.index()]
            .map(|lb| round_to((factors.emissions[p.index()].grid_emissions * lb + years * pounds.fuel[p.index()]) * TONNE_PER_LB, 2))
    });
    Tonnes { grid, site, fuel }
}

/// One solution with its cost breakdown.
pub type Solved<'a> = (&'a CaseSolution, &'a CostBreakdown);

fn pounds_of(model: &Model, (solution, costs): Solved) -> YearOnePounds {
    year_one_pounds(model, solution, costs.generator_fuel_gal)
}

/// `ElectricUtility.{lifecycle,annual}_emissions_tonnes_*` and their `_bau` twins.
pub fn utility_outputs(model: &Model, factors: &CostFactors, optimal: Solved, bau: Option<Solved>) -> Map<String, Value> {
    let years = f64::from(model.financial.analysis_years);
    let mut fields = Map::new();
    let mut put = |suffix: &str, solved: Solved| {
        let t = tonnes(model, factors, &pounds_of(model, solved));
        for p in Pollutant::ALL {
            let lifecycle = t.grid[p.index()];
            fields.insert(format!("lifecycle_emissions_tonnes_{}{suffix}", p.name()), lifecycle.into());
            fields.insert(format!("annual_emissions_tonnes_{}{suffix}", p.name()), lifecycle.map(|x| x / years).into());
        }
    };
    put("", optimal);
    if let Some(b) = bau {
        put("_bau", b);
    }
    fields
}

/// `Site` emissions totals, fuel burn (the generator's, the boilers' and the CHP's) and the CO2
/// reduction, with their `_bau` twins.
pub fn site_outputs(model: &Model, factors: &CostFactors, optimal: Solved, bau: Option<Solved>) -> Map<String, Value> {
    let years = f64::from(model.financial.analysis_years);
    let mut fields = Map::new();
    let mut put = |suffix: &str, t: &Tonnes| {
        for p in Pollutant::ALL {
            let (site, fuel) = (t.site[p.index()], t.fuel[p.index()]);
            let name = p.name();
            fields.insert(format!("lifecycle_emissions_tonnes_{name}{suffix}"), site.into());
            fields.insert(format!("annual_emissions_tonnes_{name}{suffix}"), site.map(|x| x / years).into());
            fields.insert(format!("lifecycle_emissions_from_fuelburn_tonnes_{name}{suffix}"), fuel.into());
            fields.insert(format!("annual_emissions_from_fuelburn_tonnes_{name}{suffix}"), (fuel / years).into());
        }
    };
    let optimal_tonnes = tonnes(model, factors, &pounds_of(model, optimal));
    put("", &optimal_tonnes);
    if let Some(b) = bau {
        let bau_tonnes = tonnes(model, factors, &pounds_of(model, b));
        put("_bau", &bau_tonnes);
        let co2 = Pollutant::Co2.index();
        let reduction = match (bau_tonnes.site[co2], optimal_tonnes.site[co2]) {
            (Some(bau), Some(opt)) if bau != 0.0 => Value::from((bau - opt) / bau),
            _ => Value::Null,
        };
        fields.insert("lifecycle_emissions_reduction_CO2_fraction".into(), reduction);
    }
    fields
}

/// `Financial.lifecycle_emissions_cost_climate` and `_health` (2 decimals) and their `_bau`
/// twins, and `breakeven_cost_of_emissions_reduction_per_tonne_CO2` where the service writes it.
pub fn financial_outputs(model: &Model, factors: &CostFactors, optimal: Solved, bau: Option<Solved>) -> Map<String, Value> {
    let money = |x: Option<f64>| Value::from(x.map(|v| round_to(v, 2)));
    let mut fields = Map::new();
    fields.insert("lifecycle_emissions_cost_climate".into(), money(optimal.1.lifecycle_emissions_cost_climate));
    fields.insert("lifecycle_emissions_cost_health".into(), money(optimal.1.lifecycle_emissions_cost_health));
    if let Some(b) = bau {
        fields.insert("lifecycle_emissions_cost_climate_bau".into(), money(b.1.lifecycle_emissions_cost_climate));
        fields.insert("lifecycle_emissions_cost_health_bau".into(), money(b.1.lifecycle_emissions_cost_health));
        if let Some(breakeven) = breakeven_cost_per_tonne_co2(model, factors, optimal, b) {
            fields.insert("breakeven_cost_of_emissions_reduction_per_tonne_CO2".into(), Value::from(breakeven));
        }
    }
    fields
}

/// The year-one CO2 cost ($/t) that would bring the npv to 0 with everything else held, as the
/// service's `combine_results`: only when the npv without modelled climate costs is negative,
/// −npv / (pwf_grid_cost · Δ grid annual tonnes + pwf_onsite_cost · Δ fuel-burn annual tonnes),
/// the tonnes as reported (None without the CO2 series or when nothing is reduced).
pub fn breakeven_cost_per_tonne_co2(model: &Model, factors: &CostFactors, optimal: Solved, bau: Solved) -> Option<f64> {
    let e = &model.emissions;
    let mut npv = round_to(bau.1.lcc - optimal.1.lcc, 2);
    if e.climate_in_objective {
        npv -= bau.1.lifecycle_emissions_cost_climate? - optimal.1.lifecycle_emissions_cost_climate?;
    }
    if npv >= 0.0 {
        return None;
    }
    let years = f64::from(model.financial.analysis_years);
    let co2 = Pollutant::Co2.index();
    let (opt, base) = (tonnes(model, factors, &pounds_of(model, optimal)), tonnes(model, factors, &pounds_of(model, bau)));
    let pwf = factors.emissions[co2];
    let denominator = pwf.grid_cost * (base.grid[co2]? - opt.grid[co2]?) / years + pwf.onsite_cost * (base.fuel[co2] - opt.fuel[co2]) / years;
    (denominator != 0.0).then(|| -npv / denominator)
}

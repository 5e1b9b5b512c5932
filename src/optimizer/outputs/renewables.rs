//! The on-site renewable electricity of `Site` (`annual_onsite_renewable_electricity_kwh`,
//! `onsite_renewable_electricity_fraction_of_elec_load` and their `_bau` twins), as REopt.jl
//! `src/constraints/renewable_energy_constraints.jl` (`add_re_elec_calcs`) and
//! `src/results/site.jl` compute them, the renewable share of the total (electric and heating)
//! load (`onsite_renewable_energy_fraction_of_total_load`, `add_re_tot_calcs`: the boilers'
//! renewable fuel), and the grid's renewable share
//! (`ElectricUtility.annual_renewable_electricity_supplied_kwh`,
//! `Site.onsite_and_grid_renewable_electricity_fraction_of_elec_load`) from the given
//! `ElectricUtility.renewable_energy_fraction_series`; without it (the service's Cambium
//! lookup) they are null.

use serde_json::{Map, Value};

use super::round_to;
use crate::optimizer::model::Model;
use crate::optimizer::run::CaseSolution;


/// Renewable kWh consumed on site in one year (kWh):
///
/// ```text
/// dt · Σ_t [ production_t − to_storage_t · (1 − η_charge · η_discharge) − curtailed_t
///            − (1 − include_exported) · exported_t ]
/// ```
/// over PV and Wind (renewable fraction 1), the generator and CHP (their
/// `fuel_renewable_energy_fraction`; CHP's exports as PV's), production levelized as in the LP.
pub fn onsite_renewable_kwh(model: &Model, solution: &CaseSolution) -> f64 {
    let d = &solution.dispatch;
    let round_trip_loss = model.storage.as_ref().map_or(0.0, |s| 1.0 - s.charge_efficiency() * s.discharge_efficiency());
    let exported_share = if model.settings.include_exported_renewable_electricity_in_total { 0.0 } else { 1.0 };
    let generator_fraction = model.generator.as_ref().map_or(0.0, |g| g.fuel_renewable_energy_fraction);
    let chp_fraction = model.chp.as_ref().map_or(0.0, |c| c.burner.renewable_fraction);
    let per_step = |t: usize| {
        let renewables = d.pv_production[t] - d.pv_storage[t] * round_trip_loss - d.pv_curtail[t] - exported_share * d.pv_export(t);
        let generator = d.generator_load[t] + d.generator_storage[t] * (1.0 - round_trip_loss);
        let chp = d.chp.as_ref().map_or(0.0, |c| {
            c.to_load_kw[t] + c.to_storage_kw[t] * (1.0 - round_trip_loss) + (1.0 - exported_share) * c.to_grid_total_kw(t)
        });
        renewables + generator_fraction * generator + chp_fraction * chp
    };
    (0..model.steps()).map(per_step).sum::<f64>() * model.step_hours()
}

/// Renewable kWh bought from the grid in one year: dt · Σ_t r_t · (grid to load + η_charge ·
/// η_discharge · grid to storage), the storage's round-trip loss taken off (None without the
/// series).
pub fn grid_renewable_kwh(model: &Model, solution: &CaseSolution) -> Option<f64> {
    let fraction = model.emissions.grid_renewable_fraction.as_ref()?;
    let d = &solution.dispatch;
    let round_trip = model.storage.as_ref().map_or(1.0, |s| s.charge_efficiency() * s.discharge_efficiency());
    Some((0..model.steps()).map(|t| fraction[t] * (d.grid_load[t] + round_trip * d.grid_storage[t])).sum::<f64>() * model.step_hours())
}

/// The year's heat from fuel-burning techs (the boilers and CHP) consumed by the loads, and its
/// renewable part (kWh), as the service's `add_re_tot_calcs`: production (to load, to storage
/// and to the steam turbine; CHP's waste left out) less the hot storages' losses (charged −
/// discharged, to load and to the turbine); the renewable part takes each tech's `fuel_renewable_energy_fraction`, the
/// losses at the renewable share of the heat stored. Zeros without heating.
pub fn heat_kwh(model: &Model, solution: &CaseSolution) -> (f64, f64) {
    let (Some(heating), Some(d)) = (&model.heating, &solution.dispatch.heating) else {
        return (0.0, 0.0);
    };
    let total = |series: &[f64]| series.iter().sum::<f64>();
    let f_existing = heating.existing_boiler.burner.renewable_fraction;
    let f_new = heating.boiler.as_ref().map_or(0.0, |b| b.burner.renewable_fraction);
    let f_chp = model.chp.as_ref().map_or(0.0, |c| c.burner.renewable_fraction);
    let chp = solution.dispatch.chp.as_ref();
    let chp_used = chp.map_or(0.0, |c| total(&c.heat_to_load_kw) + total(&c.heat_to_storage_kw) + total(&c.heat_to_turbine_kw));
    let made = total(&d.existing_production()) + total(&d.new_production()) + chp_used;
    let made_renewable = f_existing * total(&d.existing_production()) + f_new * total(&d.new_production()) + f_chp * chp_used;
    let (stored_existing, stored_new) = (total(&d.existing_to_storage_kw), total(&d.new_to_storage_kw));
    let stored_chp = chp.map_or(0.0, |c| total(&c.heat_to_storage_kw));
    let stored = stored_existing + stored_new + stored_chp;
    let losses = stored - d.storages.iter().map(|s| total(&s.discharge_kw) + total(&s.to_turbine_kw)).sum::<f64>();
    let stored_renewable_share = if stored > 0.0 { (f_existing * stored_existing + f_new * stored_new + f_chp * stored_chp) / stored } else { 0.0 };
    let dt = model.step_hours();
    (dt * (made - losses), dt * (made_renewable - stored_renewable_share * losses))
}

/// `ElectricUtility.annual_renewable_electricity_supplied_kwh` (3 decimals) and its `_bau` twin.
pub fn utility_renewable_outputs(model: &Model, optimal: &CaseSolution, bau: Option<&CaseSolution>) -> Map<String, Value> {
    let mut fields = Map::new();
    let kwh = |s: &CaseSolution| Value::from(grid_renewable_kwh(model, s).map(|x| round_to(x, 3)));
    fields.insert("annual_renewable_electricity_supplied_kwh".into(), kwh(optimal));
    if let Some(b) = bau {
        fields.insert("annual_renewable_electricity_supplied_kwh_bau".into(), kwh(b));
    }
    fields
}

/// The `Site` fields, kWh to 2 decimals and the fractions to 4 (the service's rounding); the
/// fractions of the total load only without heating loads.
pub fn site_renewable_outputs(model: &Model, optimal: &CaseSolution, bau: Option<&CaseSolution>) -> Map<String, Value> {
    let load = model.annual_electric_load_kwh();
    let mut fields = Map::new();
    let mut put = |suffix: &str, solution: &CaseSolution| {
        let kwh = onsite_renewable_kwh(model, solution);
        fields.insert(format!("annual_onsite_renewable_electricity_kwh{suffix}"), Value::from(round_to(kwh, 2)));
        let fraction = if load > 0.0 { Value::from(round_to(kwh / load, 4)) } else { Value::Null };
        fields.insert(format!("onsite_renewable_electricity_fraction_of_elec_load{suffix}"), fraction);
        let with_grid = grid_renewable_kwh(model, solution).filter(|_| load > 0.0).map(|grid| round_to((kwh + grid) / load, 4));
        fields.insert(format!("onsite_and_grid_renewable_electricity_fraction_of_elec_load{suffix}"), Value::from(with_grid));
        let (heat, renewable_heat) = heat_kwh(model, solution);
        let all = load + heat;
        let of_total = if all > 0.0 { Value::from(round_to((kwh + renewable_heat) / all, 4)) } else { Value::Null };
        fields.insert(format!("onsite_renewable_energy_fraction_of_total_load{suffix}"), of_total);
        let with_grid = grid_renewable_kwh(model, solution).filter(|_| all > 0.0).map(|grid| round_to((kwh + renewable_heat + grid) / all, 4));
        fields.insert(format!("onsite_and_grid_renewable_energy_fraction_of_total_load{suffix}"), Value::from(with_grid));
    };
    put("", optimal);
    if let Some(b) = bau {
        put("_bau", b);
    }
    fields
}

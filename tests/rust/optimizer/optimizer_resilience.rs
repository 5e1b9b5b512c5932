//! The resilience parts of the embedded optimizer: anchor cases of the service's own test suite
//! (REopt.jl `test/runtests.jl`, testsets "Minimize Unserved Load", "OffGrid" and "Outages with
//! Wind and supply-to-load no greater than critical load"), rebuilt from
//! their stated inputs (the case files are not copied), and physical checks of our own on every
//! outage dispatch: energy balance in every outage step, the critical load met where the model
//! says it must be, no grid exchange during an outage, and the generator idle outside outages.

use serde_json::{json, Value};
use sunflux::optimizer::{from_scenario, optimize, outputs, Model, Optimized, RunError, SolveControl};
use crate::support::{daytime_production, number, numbers};

fn solve_model(model: &Model) -> (Optimized, Value) {
    let run = optimize(model, &SolveControl::default()).expect("optimal");
    let body = outputs::optimal_outputs(model, &run);
    (run, body)
}

fn model(scenario: &Value) -> Model {
    from_scenario(scenario, &[]).expect("supported scenario")
}

fn close(a: f64, b: f64, atol: f64) -> bool {
    (a - b).abs() <= atol
}

/// A load with a daily shape: 80 kW at night, 140 kW from 08:00 to 20:00.
fn daily_load() -> Vec<f64> {
    (0..8760).map(|hour| if (8..20).contains(&(hour % 24)) { 140.0 } else { 80.0 }).collect()
}

/// "Minimize Unserved Load", `nogridcost_minresilhours.json`: a 1 kW flat load, 12 outages of
/// 169 hours starting in hours 1 to 12, 168 of which must be met, lost load worth $0.001/kWh:
/// each outage leaves its last hour unserved (fuel costs more than the load is worth), 12 kWh.
#[test]
fn minimize_unserved_load_with_min_resilience_hours() {
    let scenario = json!({
        "Settings": {"run_bau": false},
        "Site": {"latitude": 39.7407, "longitude": -105.1686, "min_resil_time_steps": 168},
        "ElectricUtility": {"outage_durations": [169], "outage_start_time_steps": (1..=12).collect::<Vec<_>>()},
        "ElectricTariff": {"monthly_demand_rates": vec![0.0; 12], "monthly_energy_rates": vec![0.0; 12]},
        "ElectricLoad": {"annual_kwh": 8760.0, "doe_reference_name": "FlatLoad", "critical_load_fraction": 1.0},
        "Generator": {"fuel_avail_gal": 660, "installed_cost_per_kw": 500.0, "om_cost_per_kw": 10.0,
                      "fuel_cost_per_gallon": 3.0, "electric_efficiency_full_load": 0.3233},
        "Financial": {"value_of_lost_load_per_kwh": 0.001, "microgrid_upgrade_cost_fraction": 0.3,
                      "generator_fuel_cost_escalation_rate_fraction": 0.027, "elec_cost_escalation_rate_fraction": 0.019,
                      "offtaker_discount_rate_fraction": 0.0564},
    });
    let model = model(&scenario);
    let (run, body) = solve_model(&model);
    let unserved: f64 = body["Outages"]["unserved_load_per_outage_kwh"].as_array().unwrap().iter().flat_map(numbers).sum();
    assert!(close(unserved, 12.0, 1e-3), "unserved {unserved}");
    assert_outage_physics(&model, &run, &body);
}

/// "Minimize Unserved Load", `nogridcost_multiscenario.json`: no technology, a 10 kW critical
/// load, outages of 1 and 5 hours (probability 0.5 each) starting in hour 8758 (the 5-hour one
/// wraps into the next year's first hours): 60 kWh unserved, expected outage cost 3 h · 10 kW ·
/// pwf_e 16.18109 = 485.43270, and 161.8109 for the 1-hour outage. The case runs REopt.jl
/// directly, whose `min_resil_time_steps` defaults to 0; the service's API would fill the longest
/// duration (and find the case infeasible), so the model's value is set as the case has it.
#[test]
fn minimize_unserved_load_over_several_durations() {
    let scenario = json!({
        "Site": {"latitude": 39.7407, "longitude": -105.1686},
        "ElectricUtility": {"outage_durations": [1, 5], "outage_start_time_steps": [8758], "outage_probabilities": [0.5, 0.5]},
        "ElectricTariff": {"monthly_demand_rates": vec![0.0; 12], "monthly_energy_rates": vec![0.0; 12]},
        "ElectricLoad": {"annual_kwh": 876000.0, "doe_reference_name": "FlatLoad", "critical_load_fraction": 0.1},
        "Generator": {"fuel_avail_gal": 660, "installed_cost_per_kw": 500.0, "max_kw": 0.0},
        "Financial": {"value_of_lost_load_per_kwh": 1.0, "microgrid_upgrade_cost_fraction": 0.3,
                      "elec_cost_escalation_rate_fraction": 0.019, "offtaker_discount_rate_fraction": 0.0564},
    });
    let mut model = model(&scenario);
    assert_eq!(model.resilience.min_resil_time_steps, 5, "the API's default: the longest outage");
    model.resilience.min_resil_time_steps = 0;
    let (run, body) = solve_model(&model);
    let outages = &body["Outages"];
    let unserved: f64 = outages["unserved_load_per_outage_kwh"].as_array().unwrap().iter().flat_map(numbers).sum();
    assert!(close(unserved, 60.0, 1e-6), "unserved {unserved}");
    assert!(close(number(&body, "Outages", "expected_outage_cost"), 485.43270, 1e-5 + 1e-4), "{}", outages["expected_outage_cost"]);
    assert!(close(numbers(&outages["max_outage_cost_per_outage_duration"])[0], 161.8109, 1e-4));
    assert_outage_physics(&model, &run, &body);
}

/// "OffGrid", scenario 2: a fixed 100 kW generator serving a 100 kWh-a-year load of which 99 %
/// must be met (turndown 0): 99 kWh, 7.52 gallons, $22.57 of fuel in year one, $205.35 over the
/// life after tax; capital 100·700 $ plus a replacement in year 10 (700 $/kW at 8 %, after 26 %
/// tax: the owner's rates are the offtaker's) and the other capital costs after depreciation.
#[test]
fn off_grid_fixed_generator_only() {
    let load = vec![100.0 / 8760.0; 8760];
    let scenario = json!({
        "Settings": {"time_steps_per_hour": 1, "off_grid_flag": true, "add_soc_incentive": false},
        "Site": {"latitude": 34.5794343, "longitude": -118.1164613, "land_acres": 30, "roof_squarefeet": 5000},
        "PV": {"max_kw": 0.0, "installed_cost_per_kw": 2000, "om_cost_per_kw": 17.0, "production_factor_series": daytime_production(0.75)},
        "Generator": {"installed_cost_per_kw": 700, "min_kw": 100, "max_kw": 100, "replacement_year": 10,
                      "replace_cost_per_kw": 700, "electric_efficiency_full_load": 0.3232898,
                      "electric_efficiency_half_load": 0.3232898, "om_cost_per_kw": 20.0, "fuel_cost_per_gallon": 3.0,
                      "min_turn_down_fraction": 0.0},
        "ElectricLoad": {"loads_kw": load, "year": 2017, "min_load_met_annual_fraction": 0.99,
                         "operating_reserve_required_fraction": 0.1},
        "ElectricStorage": {"max_kw": 0.0},
        "Financial": {"elec_cost_escalation_rate_fraction": 0.026, "generator_fuel_cost_escalation_rate_fraction": 0.027,
                      "offtaker_discount_rate_fraction": 0.08, "owner_discount_rate_fraction": 0.15, "analysis_years": 20,
                      "offtaker_tax_rate_fraction": 0.26, "owner_tax_rate_fraction": 0.4,
                      "om_cost_escalation_rate_fraction": 0.025, "offgrid_other_capital_costs": 3000,
                      "offgrid_other_annual_costs": 600},
    });
    let model = model(&scenario);
    let (_, body) = solve_model(&model);
    let generator = &body["Generator"];
    assert!(close(generator["annual_fuel_consumption_gal"].as_f64().unwrap(), 7.52, 0.005));
    assert!(close(generator["annual_energy_produced_kwh"].as_f64().unwrap(), 99.0, 0.5));
    assert!(close(generator["year_one_fuel_cost_before_tax"].as_f64().unwrap(), 22.57, 0.005));
    assert!(close(generator["lifecycle_fuel_cost_after_tax"].as_f64().unwrap(), 205.35, 0.005));
    let f = &body["Financial"];
    let other_after_tax = number(&body, "Financial", "lifecycle_offgrid_other_capital_costs");
    assert!(close(other_after_tax, 2617.092, 0.01));
    assert!(close(f["initial_capital_costs"].as_f64().unwrap(), 100.0 * 700.0 + 3000.0, 0.01));
    assert!(close(f["lifecycle_capital_costs"].as_f64().unwrap(), 100.0 * (700.0 + 324.235442 * (1.0 - 0.26)) + other_after_tax, 0.1));
    assert!(close(f["initial_capital_costs_after_incentives"].as_f64().unwrap(), 700.0 * 100.0 + other_after_tax, 0.1));
    assert!(close(f["replacements_future_cost_after_tax"].as_f64().unwrap(), 700.0 * 100.0, 0.01));
    assert!(close(f["replacements_present_cost_after_tax"].as_f64().unwrap(), 100.0 * 324.235442 * (1.0 - 0.26), 0.1));
    assert!(number(&body, "ElectricLoad", "offgrid_load_met_fraction") >= 0.99 - 1e-9);
    // The lifecycle cost is the sum of its parts (the case's own identity check).
    let parts = [
        "lifecycle_generation_tech_capital_costs",
        "lifecycle_storage_capital_costs",
        "lifecycle_om_costs_after_tax",
        "lifecycle_fuel_costs_after_tax",
        "lifecycle_chp_standby_cost_after_tax",
        "lifecycle_elecbill_after_tax",
        "lifecycle_offgrid_other_annual_costs_after_tax",
        "lifecycle_offgrid_other_capital_costs",
        "lifecycle_outage_cost",
        "lifecycle_MG_upgrade_and_fuel_cost",
    ];
    let sum: f64 = parts.iter().map(|p| number(&body, "Financial", p)).sum::<f64>() - number(&body, "Financial", "lifecycle_production_incentive_after_tax");
    assert!(close(sum, number(&body, "Financial", "lcc"), 1.0), "parts {sum} vs lcc {}", f["lcc"]);
    let required = numbers(&body["ElectricLoad"]["offgrid_annual_oper_res_required_series_kwh"]).iter().sum::<f64>();
    let provided = numbers(&body["ElectricLoad"]["offgrid_annual_oper_res_provided_series_kwh"]).iter().sum::<f64>();
    assert!(provided >= required);
}

/// "OffGrid", scenario 3: a fixed 100 kW generator can carry a flat 100 kW load but not its 10 %
/// operating reserve on top, and all of the load must be met: infeasible.
#[test]
fn off_grid_reserve_requirement_is_enforced() {
    let scenario = json!({
        "Settings": {"off_grid_flag": true},
        "Site": {"latitude": 34.5794343, "longitude": -118.1164613},
        "Generator": {"min_kw": 100, "max_kw": 100, "min_turn_down_fraction": 0.0},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 876000.0, "min_load_met_annual_fraction": 1.0},
    });
    let model = model(&scenario);
    assert!(matches!(optimize(&model, &SolveControl::default()), Err(RunError::Infeasible)));
}

/// Our own: PV, storage and a generator that only runs in a 48-hour outage in June.
fn outage_scenario() -> Value {
    json!({
        "Settings": {"run_bau": true},
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "ElectricLoad": {"loads_kw": daily_load(), "year": 2017, "critical_load_fraction": 0.5},
        "ElectricTariff": {"blended_annual_energy_rate": 0.12, "blended_annual_demand_rate": 12.0},
        "ElectricUtility": {"outage_start_time_step": 4000, "outage_end_time_step": 4047},
        "PV": {"installed_cost_per_kw": 1500.0, "om_cost_per_kw": 15.0, "production_factor_series": daytime_production(0.75)},
        "ElectricStorage": {"installed_cost_constant": 0.0},
        "Generator": {"installed_cost_per_kw": 650.0, "fuel_avail_gal": 2000.0, "fuel_cost_per_gallon": 3.0},
    })
}

#[test]
fn a_deterministic_outage_is_served_on_site_and_the_generator_runs_only_then() {
    let model = model(&outage_scenario());
    let (run, body) = solve_model(&model);
    assert_outage_physics(&model, &run, &body);
    let generator = numbers(&body["Generator"]["electric_to_load_series_kw"]);
    let to_storage = numbers(&body["Generator"]["electric_to_storage_series_kw"]);
    for t in (0..8760).filter(|t| !(3999..4047).contains(t)) {
        assert_eq!(generator[t] + to_storage[t], 0.0, "the generator runs outside the outage at step {t}");
    }
    let night_carrier = number(&body, "Generator", "size_kw") + number(&body, "ElectricStorage", "size_kwh");
    assert!(night_carrier > 0.0, "the generator or storage must carry the outage's nights");
    assert!(number(&body, "Generator", "annual_fuel_consumption_gal") <= 2000.0 + 1e-6);
    assert_eq!(body["ElectricLoad"]["bau_critical_load_met"], json!(false));
    assert_eq!(body["ElectricLoad"]["bau_critical_load_met_time_steps"], json!(0));
}

/// Checks every step of the outages in a body: the year's dispatch in the deterministic outage
/// (supply = critical load, no grid), and every outage of the multiple-outage form (supply +
/// unserved = critical load, none unserved in the first `min_resil_time_steps`, storage state
/// of charge consistent).
fn assert_outage_physics(model: &Model, run: &Optimized, body: &Value) {
    let d = &run.optimal.dispatch;
    if let Some((first, last)) = model.single_outage {
        for t in first..=last {
            let supply = d.pv_load[t] + d.discharge[t] + d.generator_load[t];
            assert!((supply - model.critical_load_kw[t]).abs() < 1e-5 * model.critical_load_kw[t].max(1.0), "step {t}: supply {supply} vs critical {}", model.critical_load_kw[t]);
            assert_eq!(d.grid_load[t] + d.grid_storage[t] + d.pv_export(t), 0.0, "grid exchange in the outage at step {t}");
        }
        let grid_to_load = numbers(&body["ElectricUtility"]["electric_to_load_series_kw"]);
        assert!((first..=last).all(|t| grid_to_load[t] == 0.0));
    }
    let Some(mg) = &d.microgrid else { return };
    let outages = model.outages.as_ref().unwrap();
    let dt = model.step_hours();
    for (s, by_start) in mg.outages.iter().enumerate() {
        for (z, o) in by_start.iter().enumerate() {
            assert_eq!(o.critical_load.len(), outages.durations[s]);
            for k in 0..o.critical_load.len() {
                let supply = o.renewable_load[k] + o.generator_load[k] + o.discharge[k];
                assert!((supply + o.unserved[k] - o.critical_load[k]).abs() < 1e-5, "outage {s}/{z} step {k}: balance");
                assert!(supply <= o.critical_load[k] + 1e-5, "outage {s}/{z} step {k}: supply above the critical load");
                if k < model.resilience.min_resil_time_steps {
                    assert!(o.unserved[k] < 1e-5, "outage {s}/{z} step {k}: unserved within min_resil_time_steps");
                }
                if let Some(storage) = &model.storage {
                    if k > 0 && d.storage_kwh > 0.0 {
                        let (eta_c, eta_d) = (storage.charge_efficiency(), storage.discharge_efficiency());
                        let expected = o.soc_kwh[k - 1] + dt * (eta_c * (o.renewable_storage[k] + o.generator_storage[k]) - o.discharge[k] / eta_d);
                        assert!((o.soc_kwh[k] - expected).abs() < 1e-4 * d.storage_kwh.max(1.0), "outage {s}/{z} step {k}: state of charge");
                    }
                }
            }
        }
    }
}

/// "Outages with Wind and supply-to-load no greater than critical load", `wind_outages.json`: a
/// fixed 5,000 kW wind turbine, storage whose minimum state of charge also applies in outages,
/// lost load worth nothing, free microgrid upgrades, 0.20 $/kWh, one 10-hour outage starting at
/// step 5100 that must be met in full (`min_resil_time_steps` 10). The case's load (a reference
/// building scaled to 10 GWh a year) and its wind resource are downloaded by the service; here a
/// load of the same energy with a daily shape and a made-up wind production factor stand in,
/// with a lull at noon inside the outage so storage must help. Checked as the case checks:
/// storage discharge plus wind to load equals the critical load in every outage step (atol
/// 0.001), and the outage state-of-charge series has the discharge series' shape.
#[test]
fn outage_with_wind_supplies_exactly_the_critical_load() {
    let scale = 10_000_000.0 / daily_load().iter().sum::<f64>();
    let load: Vec<f64> = daily_load().iter().map(|kw| kw * scale).collect();
    let wind: Vec<f64> = (0..8760).map(|hour| 0.3 + 0.28 * ((hour % 24) as f64 / 24.0 * std::f64::consts::TAU).cos()).collect();
    let scenario = json!({
        "Site": {"latitude": 39.91065, "longitude": -105.2348, "min_resil_time_steps": 10},
        "ElectricLoad": {"loads_kw": load, "year": 2017},
        "Wind": {"installed_cost_per_kw": 1874, "om_cost_per_kw": 35, "macrs_bonus_fraction": 0.0, "min_kw": 5000, "max_kw": 5000,
                 "size_class": "large", "production_factor_series": wind},
        "ElectricStorage": {"soc_min_applies_during_outages": true},
        "Financial": {"value_of_lost_load_per_kwh": 0.0, "microgrid_upgrade_cost_fraction": 0.0},
        "ElectricTariff": {"monthly_demand_rates": vec![0.0; 12], "monthly_energy_rates": vec![0.2; 12]},
        "ElectricUtility": {"outage_start_time_steps": [5100], "outage_durations": [10]},
    });
    let model = model(&scenario);
    let (run, body) = solve_model(&model);
    let outages = &body["Outages"];
    let discharge = numbers(&outages["storage_discharge_series_kw"][0][0]);
    let wind_to_load = numbers(&outages["wind_to_load_series_kw"][0][0]);
    let critical = numbers(&outages["critical_loads_per_outage_series_kw"][0][0]);
    assert_eq!(critical.len(), 10);
    assert!(discharge.iter().sum::<f64>() > 0.0, "the noon lull needs storage");
    for k in 0..10 {
        assert!(close(discharge[k] + wind_to_load[k], critical[k], 0.001), "step {k}: {} + {} vs {}", discharge[k], wind_to_load[k], critical[k]);
    }
    let soc = numbers(&outages["soc_series_fraction"][0][0]);
    assert_eq!(soc.len(), discharge.len());
    let soc_min = model.storage.as_ref().unwrap().soc_min_fraction;
    assert!(soc.iter().all(|f| *f >= soc_min - 1e-6), "state of charge below {soc_min} in the outage: {soc:?}");
    assert_outage_physics(&model, &run, &body);
}

/// "OffGrid", the Indonesian case (`wind_intl_offgrid.json`): off grid, a fixed 250 kW wind
/// turbine whose production must carry a 5 % operating reserve, a fixed 20 kW generator (turndown
/// 0.05), a flat 10 kW load (year 2022), 7 % discount rate, 25 years, no tax. The case reads its
/// wind production factor from a data file; a made-up one stands in. Checked as the case checks:
/// the load met is at least the required share, the lifecycle cost is the sum of its parts, and
/// the operating reserve required over the year is the load's 10 % plus the wind's 5 % of what
/// it serves (atol 1 kWh).
#[test]
fn off_grid_wind_and_generator_reserves_add_up() {
    let wind: Vec<f64> = (0..8760).map(|hour| 0.25 + 0.2 * ((hour % 24) as f64 / 24.0 * std::f64::consts::TAU).sin() * ((hour / 24 % 7) as f64 / 7.0)).collect();
    let scenario = json!({
        "Settings": {"time_steps_per_hour": 1, "off_grid_flag": true},
        "Site": {"latitude": 1.5709993, "longitude": 127.8087693},
        "ElectricLoad": {"loads_kw": vec![10.0; 8760], "year": 2022},
        "Wind": {"installed_cost_per_kw": 1874, "om_cost_per_kw": 35, "macrs_bonus_fraction": 0.0, "min_kw": 250, "max_kw": 250,
                 "federal_itc_fraction": 0, "macrs_option_years": 0, "size_class": "commercial",
                 "operating_reserve_required_fraction": 0.05, "production_factor_series": wind},
        "Generator": {"installed_cost_per_kw": 700, "min_kw": 20, "max_kw": 20, "replacement_year": 10, "replace_cost_per_kw": 700,
                      "electric_efficiency_full_load": 0.3232898, "electric_efficiency_half_load": 0.3232898, "min_turn_down_fraction": 0.05},
        "Financial": {"om_cost_escalation_rate_fraction": 0.001, "offtaker_discount_rate_fraction": 0.07, "analysis_years": 25,
                      "offtaker_tax_rate_fraction": 0.0},
    });
    let model = model(&scenario);
    let (_, body) = solve_model(&model);
    let required_fraction = model.off_grid.as_ref().unwrap().min_load_met_annual_fraction;
    assert!(number(&body, "ElectricLoad", "offgrid_load_met_fraction") >= required_fraction - 1e-9);
    let parts = [
        "lifecycle_generation_tech_capital_costs",
        "lifecycle_storage_capital_costs",
        "lifecycle_om_costs_after_tax",
        "lifecycle_fuel_costs_after_tax",
        "lifecycle_chp_standby_cost_after_tax",
        "lifecycle_elecbill_after_tax",
        "lifecycle_offgrid_other_annual_costs_after_tax",
        "lifecycle_offgrid_other_capital_costs",
        "lifecycle_outage_cost",
        "lifecycle_MG_upgrade_and_fuel_cost",
    ];
    let sum: f64 = parts.iter().map(|p| number(&body, "Financial", p)).sum::<f64>() - number(&body, "Financial", "lifecycle_production_incentive_after_tax");
    assert!(close(sum, number(&body, "Financial", "lcc"), 1.0), "parts {sum} vs lcc {}", body["Financial"]["lcc"]);
    let wind_reserve = 0.05 * numbers(&body["Wind"]["electric_to_load_series_kw"]).iter().sum::<f64>();
    let load_reserve = 0.1 * 10.0 * 8760.0;
    let required = numbers(&body["ElectricLoad"]["offgrid_annual_oper_res_required_series_kwh"]).iter().sum::<f64>();
    assert!(close(required, load_reserve + wind_reserve, 1.0), "required {required} vs {}", load_reserve + wind_reserve);
}

/// A 100 kW generator with a 50 % turndown that may curtail, serving a flat 10 kW off-grid
/// load: the service's on/off binary keeps it at 50 kW or more whenever it runs, the rest
/// curtailed (it burns the fuel of 50 kW).
/// Without `can_curtail` (the service's default) it cannot serve the load at all: infeasible.
/// With no turndown it follows the load at 10 kW.
#[test]
fn the_generator_runs_at_its_turndown_or_not_at_all() {
    let scenario = |turndown: f64, can_curtail: bool| {
        json!({
            "Settings": {"off_grid_flag": true},
            "Site": {"latitude": 34.5794343, "longitude": -118.1164613},
            "Generator": {"min_kw": 100, "max_kw": 100, "min_turn_down_fraction": turndown, "can_curtail": can_curtail},
            "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 87600.0},
        })
    };
    assert_eq!(optimize(&model(&scenario(0.5, false)), &SolveControl::default()).map(|_| ()), Err(RunError::Infeasible));
    let exact = model(&scenario(0.5, true));
    let run = optimize(&exact, &SolveControl::default()).expect("optimal");
    let d = &run.optimal.dispatch;
    let running: Vec<f64> = (0..exact.steps()).map(|t| d.generator_load[t] + d.generator_curtail[t]).filter(|&kw| kw > 1e-6).collect();
    assert!(running.len() >= 8700, "it serves the load in (nearly) every step");
    assert!(running.iter().all(|&kw| kw >= 50.0 - 1e-6), "never between 0 and 50 kW");
    let free = model(&scenario(0.0, true));
    let run = optimize(&free, &SolveControl::default()).expect("optimal");
    assert!(run.optimal.dispatch.generator_curtail.iter().all(|&kw| kw == 0.0));
}

/// The multiple-outage form keeps the service's on/off binary per outage step: a 100 kW
/// generator with a 50 % turndown carries a 10 kW critical load through a 10-step outage at
/// 50 kW or more (the rest curtailed, as the service's dvMGCurtail), never between 0 and 50
/// kW, and the outage's fuel is the slope's on the whole output plus the intercept per hour on.
#[test]
fn an_outage_microgrid_runs_its_generator_at_its_turndown_or_not_at_all() {
    let scenario = json!({
        "Site": {"latitude": 39.7407, "longitude": -105.1686},
        "ElectricUtility": {"outage_start_time_steps": [5000], "outage_durations": [10]},
        "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 0.0},
        "ElectricLoad": {"annual_kwh": 876000.0, "doe_reference_name": "FlatLoad", "critical_load_fraction": 0.1},
        "Generator": {"existing_kw": 100, "max_kw": 0, "min_turn_down_fraction": 0.5, "fuel_cost_per_gallon": 3.0,
                      "electric_efficiency_full_load": 0.322, "electric_efficiency_half_load": 0.27},
        "Financial": {"value_of_lost_load_per_kwh": 100.0},
    });
    let model = model(&scenario);
    let g = model.generator.as_ref().unwrap();
    assert!(g.fuel_intercept_gal_per_hour > 0.0, "the efficiencies give the fuel curve an intercept");
    let (run, _) = solve_model(&model);
    let outage = &run.optimal.dispatch.microgrid.as_ref().unwrap().outages[0][0];
    let output: Vec<f64> = (0..10).map(|k| outage.generator_load[k] + outage.generator_storage.get(k).unwrap_or(&0.0) + outage.generator_curtailed[k]).collect();
    assert!(output.iter().all(|&kw| kw >= 50.0 - 1e-6), "on at 50 kW or more in every step: {output:?}");
    assert!(outage.unserved.iter().all(|&kw| kw <= 1e-6), "the critical load is served");
    assert!(outage.generator_curtailed.iter().all(|&kw| close(kw, 40.0, 1e-6)), "{:?}", outage.generator_curtailed);
    let fuel: f64 = output.iter().map(|kw| g.fuel_slope_gal_per_kwh * kw + g.fuel_intercept_gal_per_hour).sum();
    assert!(close(outage.fuel_gal, fuel, 1e-9), "{} vs {fuel}", outage.fuel_gal);
}

/// Our own: off grid, PV and Wind with their own operating reserve shares (25 % and 50 %, the
/// service's defaults), fixed sizes, and a battery sized by the optimizer. In every step the
/// reserve required is the load's 10 % of what is served plus each array's share of its own
/// output to load, and the reserve provided covers it (the service's per-technology rows).
#[test]
fn off_grid_arrays_reserve_each_their_own_share() {
    let wind: Vec<f64> = (0..8760).map(|hour| 0.3 + 0.2 * ((hour % 24) as f64 / 24.0 * std::f64::consts::TAU).cos()).collect();
    let scenario = json!({
        "Settings": {"time_steps_per_hour": 1, "off_grid_flag": true},
        "Site": {"latitude": 34.5794343, "longitude": -118.1164613},
        "ElectricLoad": {"loads_kw": vec![5.0; 8760], "year": 2022},
        "PV": {"min_kw": 30, "max_kw": 30, "production_factor_series": daytime_production(0.75)},
        "Wind": {"min_kw": 40, "max_kw": 40, "size_class": "commercial", "production_factor_series": wind},
        "ElectricStorage": {"max_kw": 100, "max_kwh": 400},
    });
    let model = model(&scenario);
    let shares: Vec<f64> = model.pvs.iter().map(|array| array.operating_reserve_required_fraction).collect();
    assert_eq!(shares, vec![0.25, 0.5]);
    let (_, body) = solve_model(&model);
    let pv_to_load = numbers(&body["PV"]["electric_to_load_series_kw"]);
    let wind_to_load = numbers(&body["Wind"]["electric_to_load_series_kw"]);
    let met = numbers(&body["ElectricLoad"]["offgrid_load_met_series_kw"]);
    let required = numbers(&body["ElectricLoad"]["offgrid_annual_oper_res_required_series_kwh"]);
    let provided = numbers(&body["ElectricLoad"]["offgrid_annual_oper_res_provided_series_kwh"]);
    assert!(wind_to_load.iter().sum::<f64>() > 0.0 && pv_to_load.iter().sum::<f64>() > 0.0);
    for t in 0..8760 {
        let expected = 0.1 * met[t] + 0.25 * pv_to_load[t] + 0.5 * wind_to_load[t];
        assert!(close(required[t], expected, 1e-5), "step {t}: required {} vs {expected}", required[t]);
        assert!(provided[t] >= required[t] - 1e-5, "step {t}: provided {} < required {}", provided[t], required[t]);
    }
}

//! Heating: the heating loads as the service converts them, the existing and new boilers and the
//! hot-water storage in the heat balance, their costs in the lifecycle cost, and the REopt.jl
//! anchors "Boiler (new) test" and the hot half of "Thermal Energy Storage + Absorption Chiller"
//! (`test/runtests.jl`), rebuilt here from the numbers those tests state. Property checks run
//! over small random heating scenarios from a fixed-seed generator.

use serde_json::{json, Value};
use sunflux::optimizer::model::KWH_PER_MMBTU;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{Draws, number, series, solve};

fn electric() -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 87600.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 0.0},
    })
}

/// "Boiler (new) test": FlatLoad space heating and hot water loads of 0.5 · 8760 MMBtu of fuel
/// each, an existing boiler (steam, efficiency 0.8) whose fuel costs $10/MMBtu except $2 in
/// February, and a new boiler (efficiency 0.8, $0.001 per MMBtu/h) at $5 except $10 in
/// February. The existing boiler serves the flat load in February's 28 days only:
/// existing ≈ load · 28/365 (atol 1e-5 MMBtu) and new ≈ load − existing (atol 1e-5).
#[test]
fn boiler_new_test() {
    let mut scenario = electric();
    scenario["ExistingBoiler"] = json!({
        "production_type": "steam", "efficiency": 0.8, "fuel_type": "natural_gas",
        "fuel_cost_per_mmbtu": [10, 2, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10]
    });
    scenario["Boiler"] = json!({
        "min_mmbtu_per_hour": 0.0, "max_mmbtu_per_hour": 1.0e9, "efficiency": 0.8,
        "installed_cost_per_mmbtu_per_hour": 0.001, "om_cost_per_mmbtu_per_hour": 0.0, "om_cost_per_mmbtu": 0.0,
        "fuel_type": "natural_gas", "fuel_cost_per_mmbtu": [5, 10, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]
    });
    scenario["Financial"] = json!({
        "om_cost_escalation_rate_fraction": 0.025, "elec_cost_escalation_rate_fraction": 0.023,
        "existing_boiler_fuel_cost_escalation_rate_fraction": 0.034, "boiler_fuel_cost_escalation_rate_fraction": 0.034,
        "offtaker_tax_rate_fraction": 0.26, "offtaker_discount_rate_fraction": 0.083, "analysis_years": 25
    });
    scenario["SpaceHeatingLoad"] = json!({"doe_reference_name": "FlatLoad", "annual_mmbtu": 0.5 * 8760.0});
    scenario["DomesticHotWaterLoad"] = json!({"doe_reference_name": "FlatLoad", "annual_mmbtu": 0.5 * 8760.0});
    let (model, _, body) = solve(&scenario);
    let heating = model.heating.as_ref().expect("heating");
    let load_thermal_mmbtu: f64 = (0..model.steps()).map(|t| heating.total_kw(t)).sum::<f64>() / KWH_PER_MMBTU;
    // Fuel 8760 MMBtu at efficiency 0.8.
    assert!((load_thermal_mmbtu - 0.8 * 8760.0).abs() < 1e-6, "{load_thermal_mmbtu}");
    let existing: f64 = series(&body, "ExistingBoiler", "thermal_production_series_mmbtu_per_hour").iter().sum();
    let boiler: f64 = series(&body, "Boiler", "thermal_production_series_mmbtu_per_hour").iter().sum();
    println!("existing {existing} expected {}", load_thermal_mmbtu * 28.0 / 365.0);
    assert!((existing - load_thermal_mmbtu * 28.0 / 365.0).abs() <= 1e-5, "existing {existing}");
    assert!((boiler - (load_thermal_mmbtu - existing)).abs() <= 1e-5, "boiler {boiler}");
}

/// A fuel load series becomes thermal kW with the existing boiler's efficiency and the
/// addressable fraction; the business-as-usual fuel cost is its lifecycle value.
#[test]
fn fuel_load_series_and_bau_fuel_cost() {
    let mut scenario = electric();
    scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![2.0; 8760], "addressable_load_fraction": 0.75});
    scenario["ExistingBoiler"] = json!({"fuel_cost_per_mmbtu": 10.0, "efficiency": 0.9});
    scenario["Financial"] = json!({"existing_boiler_fuel_cost_escalation_rate_fraction": 0.0, "offtaker_discount_rate_fraction": 0.0,
                                   "offtaker_tax_rate_fraction": 0.0, "analysis_years": 10});
    let (model, _, body) = solve(&scenario);
    let heating = model.heating.as_ref().expect("heating");
    assert!((heating.total_kw(0) - 2.0 * KWH_PER_MMBTU * 0.9 * 0.75).abs() < 1e-9);
    assert!((heating.existing_boiler.max_kw - 1.25 * heating.total_kw(0)).abs() < 1e-9);
    // Fuel burned: 1.5 MMBtu/h of addressable fuel · 8760 h at $10, ten undiscounted years.
    let fuel = number(&body, "ExistingBoiler", "annual_fuel_consumption_mmbtu");
    assert!((fuel - 1.5 * 8760.0).abs() < 1e-3, "{fuel}");
    let lifecycle = number(&body, "Financial", "lifecycle_fuel_costs_after_tax_bau");
    assert!((lifecycle - 10.0 * 1.5 * 8760.0 * 10.0).abs() < 0.01, "{lifecycle}");
    let unaddressable = number(&body, "HeatingLoad", "annual_total_unaddressable_heating_load_mmbtu");
    assert!((unaddressable - 0.5 * 8760.0).abs() < 1e-6);
    assert!((number(&body, "Financial", "lcc") - number(&body, "Financial", "lcc_bau")).abs() < 0.01);
}

#[test]
fn reference_heating_profiles_and_unmodelled_sections_are_refused_by_name() {
    let mut scenario = electric();
    scenario["SpaceHeatingLoad"] = json!({"doe_reference_name": "Hospital"});
    scenario["ExistingBoiler"] = json!({"fuel_cost_per_mmbtu": 10.0});
    scenario["CHP"] = json!({"max_kw": 100.0, "follow_electrical_load": true});
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be unsupported") };
    let text = found.message();
    for needle in ["SpaceHeatingLoad.doe_reference_name=Hospital", "fuel_loads_mmbtu_per_hour", "CHP.follow_electrical_load=true"] {
        assert!(text.contains(needle), "{needle} missing from {text}");
    }
}

#[test]
fn a_heating_load_needs_the_existing_boiler() {
    let mut scenario = electric();
    scenario["DomesticHotWaterLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![1.0; 8760]});
    assert!(matches!(from_scenario(&scenario, &[]), Err(ScenarioError::Invalid(_))));
}

/// Over random heating scenarios: every step's production meets the load exactly, no boiler
/// exceeds its capacity, and the lifecycle cost of the outputs is the program's objective.
#[test]
fn heat_balance_holds_in_every_step_of_random_scenarios() {
    let mut draws = Draws(30);
    for case in 0..4 {
        let mut scenario = electric();
        let fuel: Vec<f64> = (0..8760).map(|_| 3.0 * draws.unit()).collect();
        let monthly: Vec<f64> = (0..12).map(|_| 2.0 + 10.0 * draws.unit()).collect();
        scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": fuel});
        scenario["DomesticHotWaterLoad"] = json!({"doe_reference_name": "FlatLoad_8_5", "monthly_mmbtu": monthly});
        scenario["ExistingBoiler"] = json!({"fuel_cost_per_mmbtu": 4.0 + 8.0 * draws.unit(), "retire_in_optimal": case % 2 == 1});
        scenario["Boiler"] = json!({"fuel_cost_per_mmbtu": 4.0 + 8.0 * draws.unit(), "efficiency": 0.7 + 0.25 * draws.unit(),
                                    "installed_cost_per_mmbtu_per_hour": 20000.0 * draws.unit(), "om_cost_per_mmbtu": draws.unit()});
        let (model, run, body) = solve(&scenario);
        let heating = model.heating.as_ref().expect("heating");
        for solution in [Some(&run.optimal), run.bau.as_ref()].into_iter().flatten() {
            let d = solution.dispatch.heating.as_ref().expect("heating dispatch");
            for t in 0..model.steps() {
                let produced = d.existing_kw[t] + d.new_kw[t];
                assert!((produced - heating.total_kw(t)).abs() <= 1e-6 * (1.0 + heating.total_kw(t)), "case {case} step {t}");
                assert!(d.existing_kw[t] <= heating.existing_boiler.max_kw + 1e-6);
                assert!(d.new_kw[t] <= d.new_size_kw + 1e-6);
            }
        }
        let lcc = number(&body, "Financial", "lcc");
        let lp = run.optimal.lp_lifecycle_cost();
        assert!((lcc - lp).abs() <= 1e-6 * lp.abs() + 0.02, "case {case}: lcc {lcc} vs program {lp}");
        let served: f64 = series(&body, "ExistingBoiler", "thermal_to_load_series_mmbtu_per_hour").iter().sum::<f64>()
            + series(&body, "Boiler", "thermal_to_load_series_mmbtu_per_hour").iter().sum::<f64>();
        let load: f64 = series(&body, "HeatingLoad", "total_heating_thermal_load_series_mmbtu_per_hour").iter().sum();
        assert!((served - load).abs() <= 1e-3, "case {case}: served {served} load {load}");
    }
}

/// The hot half of REopt.jl's "Thermal Energy Storage + Absorption Chiller": 5 kW of space
/// heating and 5 kW of hot water in every other hour, when the existing boiler's fuel costs
/// $100/MMBtu (else $1), and a default hot-water tank. The tank serves the whole load
/// (Σ storage_to_load ≈ 149.45 MMBtu, atol 0.1) and is just big enough: one hour's 10 kWh
/// through the discharge efficiency above the 10 % minimum and the hour's decay, 233.0 gal
/// (atol 0.1) at the kWh per gallon between 180 and 160 °F.
#[test]
fn hot_storage_serves_the_costly_hours() {
    let mut scenario = electric();
    let fuel_per_kw = 1.0 / (KWH_PER_MMBTU * 0.8);
    let half: Vec<f64> = (0..8760).map(|t| if t % 2 == 1 { 5.0 * fuel_per_kw } else { 0.0 }).collect();
    scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": half});
    scenario["DomesticHotWaterLoad"] = json!({"fuel_loads_mmbtu_per_hour": half});
    let price: Vec<f64> = (0..8760).map(|t| if t % 2 == 1 { 100.0 } else { 1.0 }).collect();
    scenario["ExistingBoiler"] = json!({"fuel_cost_per_mmbtu": price, "efficiency": 0.8});
    scenario["HotThermalStorage"] = json!({"max_gal": 10000.0});
    let (model, run, body) = solve(&scenario);
    let to_load: f64 = series(&body, "HotThermalStorage", "storage_to_load_series_mmbtu_per_hour").iter().sum();
    assert!((to_load - 149.45).abs() <= 0.1, "{to_load}");
    let size_gal = number(&body, "HotThermalStorage", "size_gal");
    assert!((size_gal - 233.0).abs() <= 0.1, "{size_gal}");
    let storage = &model.heating.as_ref().and_then(|h| h.hot_storages.first()).expect("storage").tank;
    let needed_kwh = 10.0 / storage.discharge_efficiency / (1.0 - storage.soc_min_fraction - storage.decay_fraction_per_hour);
    let d = run.optimal.dispatch.heating.as_ref().expect("heating dispatch");
    assert!((d.storages[0].kwh - needed_kwh).abs() < 1e-4, "{} vs {needed_kwh}", d.storages[0].kwh);
    assert!(number(&body, "Financial", "lcc") < number(&body, "Financial", "lcc_bau"));
}

/// Over random scenarios with storage: every step balances (boilers to load + discharge =
/// load), the state of charge follows the service's equation and stays within its bounds, and
/// the reported lifecycle cost is the program's objective.
#[test]
fn storage_dynamics_hold_in_random_scenarios() {
    let mut draws = Draws(7);
    for case in 1..3 {
        let mut scenario = electric();
        let fuel: Vec<f64> = (0..8760).map(|_| 2.0 * draws.unit()).collect();
        let price: Vec<f64> = (0..8760).map(|_| 2.0 + 20.0 * draws.unit()).collect();
        scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": fuel});
        scenario["ProcessHeatLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![0.3; 8760]});
        scenario["ExistingBoiler"] = json!({"fuel_cost_per_mmbtu": price});
        scenario["Boiler"] = json!({"fuel_cost_per_mmbtu": 8.0 + 4.0 * draws.unit(), "installed_cost_per_mmbtu_per_hour": 5000.0 * draws.unit()});
        scenario["HotThermalStorage"] = json!({"max_gal": 20000.0 * draws.unit(), "thermal_decay_rate_fraction": 0.001 * draws.unit(),
                                               "internal_efficiency_fraction": 0.9 + 0.1 * draws.unit(), "can_serve_process_heat": case == 2});
        let (model, run, body) = solve(&scenario);
        let heating = model.heating.as_ref().expect("heating");
        let hot = heating.hot_storages.first().expect("storage");
        let s = &hot.tank;
        let d = run.optimal.dispatch.heating.as_ref().expect("heating dispatch");
        let (kwh, soc) = (d.storages[0].kwh, &d.storages[0].soc_kwh);
        let tol = 1e-5;
        let mut previous = s.soc_init_fraction * kwh;
        for t in 0..model.steps() {
            let load = heating.total_kw(t);
            assert!((d.existing_kw[t] + d.new_kw[t] + d.discharge_kw[t] - load).abs() <= tol * (1.0 + load), "case {case} balance at {t}");
            let charge = d.existing_to_storage_kw[t] + d.new_to_storage_kw[t];
            let expected = previous + s.charge_efficiency * charge - d.discharge_kw[t] / s.discharge_efficiency - s.decay_fraction_per_hour * kwh;
            assert!((soc[t] - expected).abs() <= tol * (1.0 + kwh), "case {case} soc at {t}: {} vs {expected}", soc[t]);
            assert!(soc[t] <= kwh + tol && soc[t] >= s.soc_min_fraction * kwh - tol);
            if !hot.can_serve_process_heat {
                assert!(d.discharge_kw[t] <= heating.servable_kw(hot, t) + tol);
            }
            previous = soc[t];
        }
        let lcc = number(&body, "Financial", "lcc");
        let lp = run.optimal.lp_lifecycle_cost();
        assert!((lcc - lp).abs() <= 1e-6 * lp.abs() + 0.02, "case {case}: lcc {lcc} vs program {lp}");
        let served: f64 = ["ExistingBoiler", "Boiler"].iter().map(|section| series(&body, section, "thermal_to_load_series_mmbtu_per_hour").iter().sum::<f64>()).sum::<f64>()
            + series(&body, "HotThermalStorage", "storage_to_load_series_mmbtu_per_hour").iter().sum::<f64>();
        let load: f64 = series(&body, "HeatingLoad", "total_heating_thermal_load_series_mmbtu_per_hour").iter().sum();
        assert!((served - load).abs() <= 1e-3 * (1.0 + load), "case {case}: served {served} load {load}");
    }
}

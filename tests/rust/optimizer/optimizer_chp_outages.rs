//! Heat and CHP with grid outages: the heat balance the service leaves out of the deterministic
//! outage's steps (its `HeatLoadBalanceCon` holds over `time_steps_with_grid` only), and CHP as a
//! member of the multiple-outage microgrids (REopt.jl `add_MG_CHP_fuel_burn_constraints`), with
//! the anchor "Minimize Unserved Load" (`test/runtests.jl`) rebuilt on our own flat site.

use serde_json::{json, Value};
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{isapprox, number, numbers, series, solve};

const KWH_PER_MMBTU: f64 = 293.07107;

/// A flat 100 kW site of 2022 with 1 MMBtu/h of boiler fuel for space heating at 80 %, a
/// deterministic outage of steps 50-60 (1-indexed, 11 hours) whose 50 kW critical load an
/// existing 60 kW generator carries.
fn heating_outage_scenario() -> Value {
    json!({
        "Site": {"latitude": 39.74, "longitude": -105.17},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2022, "critical_load_fraction": 0.5},
        "ElectricTariff": {"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 5.0},
        "ElectricUtility": {"outage_start_time_step": 50, "outage_end_time_step": 60},
        "Generator": {"existing_kw": 60.0, "max_kw": 60.0, "fuel_avail_gal": 1000.0, "min_turn_down_fraction": 0.0},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![1.0; 8760]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 10.0, "efficiency": 0.8}
    })
}

/// The deterministic outage's steps carry no heat: the existing boiler serves the 0.8 MMBtu/h
/// load in every other step and nothing in the outage's 11, so it burns 8749 MMBtu (rtol 1e-6)
/// while the reported heating load stays the whole year's 8760 · 0.8.
#[test]
fn the_heat_balance_leaves_the_deterministic_outage_out() {
    let (model, _, body) = solve(&heating_outage_scenario());
    let to_load = series(&body, "ExistingBoiler", "thermal_to_load_series_mmbtu_per_hour");
    for (t, &heat) in to_load.iter().enumerate() {
        let expected = if model.has_grid(t) { 0.8 } else { 0.0 };
        assert!(isapprox(heat, expected, 1e-6, 1e-9), "step {t}: {heat} MMBtu/h, expected {expected}");
    }
    assert_eq!((0..8760).filter(|&t| !model.has_grid(t)).count(), 11);
    let fuel = number(&body, "ExistingBoiler", "annual_fuel_consumption_mmbtu");
    assert!(isapprox(fuel, 8749.0, 1e-6, 0.0), "fuel {fuel}");
    let load = number(&body, "HeatingLoad", "annual_calculated_total_heating_thermal_load_mmbtu");
    assert!(isapprox(load, 8760.0 * 0.8, 1e-9, 0.0), "heating load {load}");
    assert!(isapprox(8760.0 * 0.8 * KWH_PER_MMBTU, model.heating.as_ref().map_or(0.0, |h| (0..8760).map(|t| h.total_kw(t)).sum()), 1e-9, 0.0));
}

/// "Minimize Unserved Load" (`test/scenarios/outage.json`) on our own flat site: 100 kW of load
/// (2022), half of it critical, two 10-hour outages starting at steps 5100 and 5200, a fixed
/// 100 kW CHP whose efficiencies are equal at full and half load (35 %, no fuel intercept: the
/// only form the service builds) at $12/MMBtu, $100/kWh of lost load and a free microgrid
/// upgrade; here without the testset's PV, storage and generator, and with a heating load, so
/// that the CHP alone carries the outages and its heat meets the balance in every step (the
/// multiple-outage form leaves every step with the grid).
fn chp_outages_scenario(upgrade_fraction: f64, value_of_lost_load: f64) -> Value {
    json!({
        "Site": {"latitude": 39.7407, "longitude": -105.1686},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2022, "critical_load_fraction": 0.5},
        "ElectricTariff": {"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 5.0},
        "ElectricUtility": {"outage_start_time_steps": [5100, 5200], "outage_durations": [10]},
        "Financial": {"value_of_lost_load_per_kwh": value_of_lost_load, "microgrid_upgrade_cost_fraction": upgrade_fraction},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![0.5; 8760]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 10.0, "efficiency": 0.8},
        "CHP": {"prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 12.0, "min_kw": 100.0, "max_kw": 100.0,
                "installed_cost_per_kw": 3000.0, "min_allowable_kw": 0.0, "om_cost_per_kw": 0.0, "om_cost_per_kwh": 0.0, "om_cost_per_hr_per_kw_rated": 0.0,
                "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": 0.35,
                "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": 0.45, "min_turn_down_fraction": 0.0,
                "macrs_option_years": 0, "federal_itc_fraction": 0.0}
    })
}

/// Its part 1 on our site: the expected outage cost and the unserved load are 0 (atol 0.1), the
/// CHP is in the microgrid at its 100 kW and serves the 50 kW critical load in every outage
/// step; each outage burns 10 h · 50 kW / 0.35 of fuel (4.8745 MMBtu, the service's 4 digits)
/// and its expected cost at the start's $12/MMBtu (not discounted) is in the lifecycle cost;
/// the heat balance holds in every step.
#[test]
fn minimize_unserved_load_with_chp_in_the_microgrid() {
    let (model, _, body) = solve(&chp_outages_scenario(0.0, 100.0));
    let outages = &body["Outages"];
    assert!(isapprox(number(&body, "Outages", "expected_outage_cost"), 0.0, 0.0, 0.1), "{}", outages["expected_outage_cost"]);
    let unserved: f64 = outages["unserved_load_per_outage_kwh"].as_array().unwrap().iter().flat_map(numbers).sum();
    assert!(isapprox(unserved, 0.0, 0.0, 0.1), "unserved {unserved}");
    assert_eq!(number(&body, "Outages", "chp_microgrid_size_kw"), 100.0);
    assert_eq!(number(&body, "Outages", "chp_microgrid_upgrade_cost"), 0.0);
    for by_start in outages["chp_to_load_series_kw"].as_array().unwrap() {
        for outage in by_start.as_array().unwrap() {
            assert!(numbers(outage).iter().all(|&kw| isapprox(kw, 50.0, 1e-6, 0.0)), "{outage}");
        }
    }
    let fuel_mmbtu = 10.0 * 50.0 / 0.35 / KWH_PER_MMBTU;
    for by_start in outages["chp_fuel_used_per_outage_mmbtu"].as_array().unwrap() {
        assert!(numbers(by_start).iter().all(|&f| isapprox(f, fuel_mmbtu, 0.0, 1e-4)), "{by_start} vs {fuel_mmbtu}");
    }
    let fuel_cost = number(&body, "Financial", "lifecycle_MG_upgrade_and_fuel_cost");
    assert!(isapprox(fuel_cost, 12.0 * fuel_mmbtu, 0.0, 0.01), "expected fuel cost {fuel_cost}");
    let boiler = series(&body, "ExistingBoiler", "thermal_to_load_series_mmbtu_per_hour");
    let chp = series(&body, "CHP", "thermal_to_load_series_mmbtu_per_hour");
    for t in 0..model.steps() {
        assert!(isapprox(boiler[t] + chp[t], 0.4, 1e-6, 1e-9), "step {t}: boiler {} + CHP {}", boiler[t], chp[t]);
    }
}

/// Its part 2's relation on our site: with an upgrade cost (30 %) each member pays its share
/// and the cheapest microgrid that serves wins. The CHP alone must join (the longest outage must
/// be served): on a cost curve of $3,500/kW to 50 kW and $2,500/kW at 200 kW its 100 kW sit on
/// the middle chord, $2,167/kW (rounded as the service) from $175,000 at 50 kW: $283,350 (no
/// incentives), of which it pays 30 %, $85,005 (the service's 2 digits). Beside a fixed 60 kW
/// generator at $500/kW the generator carries the outages for far less and the CHP stays out:
/// no microgrid size, no upgrade cost, no output in the outages.
#[test]
fn the_cheapest_microgrid_pays_its_upgrade_and_the_chp_joins_only_when_it_is_cheaper() {
    let mut scenario = chp_outages_scenario(0.3, 100.0);
    scenario["CHP"]["installed_cost_per_kw"] = json!([3500.0, 2500.0]);
    scenario["CHP"]["tech_sizes_for_cost_curve"] = json!([50.0, 200.0]);
    let (_, _, alone) = solve(&scenario);
    assert_eq!(number(&alone, "Outages", "chp_microgrid_size_kw"), 100.0);
    assert!(isapprox(number(&alone, "CHP", "initial_capital_costs"), 283350.0, 0.0, 0.01), "{}", alone["CHP"]["initial_capital_costs"]);
    assert!(isapprox(number(&alone, "Outages", "chp_microgrid_upgrade_cost"), 85005.0, 0.0, 0.01), "{}", alone["Outages"]["chp_microgrid_upgrade_cost"]);
    assert!(isapprox(number(&alone, "Outages", "microgrid_upgrade_capital_cost"), 85005.0, 0.0, 0.01));
    assert!(isapprox(number(&alone, "Outages", "expected_outage_cost"), 0.0, 0.0, 0.1));
    scenario["Generator"] = json!({"min_kw": 60.0, "max_kw": 60.0, "installed_cost_per_kw": 500.0, "fuel_avail_gal": 1000.0, "min_turn_down_fraction": 0.0});
    let (_, _, beside) = solve(&scenario);
    assert_eq!(number(&beside, "Outages", "chp_microgrid_size_kw"), 0.0);
    assert_eq!(number(&beside, "Outages", "chp_microgrid_upgrade_cost"), 0.0);
    assert_eq!(number(&beside, "Outages", "generator_microgrid_size_kw"), 60.0);
    let generator_upgrade = number(&beside, "Outages", "generator_microgrid_upgrade_cost");
    assert!(generator_upgrade > 0.0 && generator_upgrade < 85005.0, "generator upgrade {generator_upgrade}");
    for by_start in beside["Outages"]["chp_to_load_series_kw"].as_array().unwrap() {
        assert!(by_start.as_array().unwrap().iter().all(|outage| numbers(outage).iter().all(|&kw| kw == 0.0)), "{by_start}");
    }
    assert!(isapprox(number(&beside, "Outages", "expected_outage_cost"), 0.0, 0.0, 0.1));
}

/// With the default part-load efficiencies (a fuel intercept) the service cannot build its
/// outage model: its `MGCHPFuelBurnYIntCon` reads a `ts` that is not defined there, and the run
/// ends in status "error" with Julia's UndefVarError.
#[test]
fn chp_with_a_fuel_intercept_in_multiple_outages_is_the_services_error() {
    let mut scenario = chp_outages_scenario(0.0, 100.0);
    scenario["CHP"]["electric_efficiency_half_load"] = json!(0.32);
    let Err(ScenarioError::Invalid(messages)) = from_scenario(&scenario, &[]) else { panic!("must be invalid") };
    assert_eq!(messages, vec!["UndefVarError: `ts` not defined".to_string()]);
    scenario["ElectricUtility"] = json!({"outage_start_time_step": 5100, "outage_end_time_step": 5109});
    assert!(from_scenario(&scenario, &[]).is_ok(), "the deterministic outage builds with the intercept");
}

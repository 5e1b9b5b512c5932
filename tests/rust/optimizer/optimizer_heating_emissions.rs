//! The boilers' fuel in the emissions and renewable-energy accounting: the boiler-fuel part of
//! REopt.jl's "Emissions and Renewable Energy Percent" (`test/runtests.jl`, its thermal case,
//! `re_emissions_with_thermal.json`), rebuilt with inputs written here. That case's CHP,
//! absorption chiller and cold storage are not modelled and its grid factors come from AVERT,
//! so our own factor series and a boiler-only plant stand in and the checks are the case's
//! identities on boiler fuel, with its tolerances. Our own checks: a CO2 reduction bound and the
//! climate and health costs in the objective act on the boilers' fuel (the fuel-burn health
//! costs refused by name when left out), the renewable share of the total load counts a
//! renewable fuel, and over random scenarios the heat balances in every step while the fuel-burn
//! tonnes are the boilers' fuel at their factors.

use serde_json::{json, Value};
use sunflux::optimizer::emissions::TONNE_PER_LB;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{Draws, isapprox, number, solve};

/// The service's natural-gas emissions, lb per MMBtu (restated in the testset).
const NATURAL_GAS: [(&str, f64); 4] = [("CO2", 117.03), ("NOx", 0.09139), ("SO2", 0.000578592), ("PM25", 0.007328833)];

/// A daytime production factor (half sine from 06:00 to 18:00, peak 0.8).
fn daytime_production() -> Vec<f64> {
    (0..8760)
        .map(|hour| {
            let h = (hour % 24) as f64;
            if (6.0..18.0).contains(&h) {
                0.8 * ((h - 6.0) / 12.0 * std::f64::consts::PI).sin()
            } else {
                0.0
            }
        })
        .collect()
}

/// A flat electric load with all four grid factor series, a space heating load that varies by
/// hour (fuel MMBtu/h), the existing natural-gas boiler and a new one that may be sized.
fn heating_site(annual_kwh: f64, heating_mmbtu_per_hour: f64) -> Value {
    let fuel: Vec<f64> = (0..8760).map(|hour| heating_mmbtu_per_hour * (1.0 + 0.5 * ((hour % 24) as f64 / 24.0 * std::f64::consts::TAU).sin())).collect();
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": annual_kwh},
        "ElectricTariff": {"blended_annual_energy_rate": 0.12, "blended_annual_demand_rate": 5.0},
        "ElectricUtility": {
            "emissions_factor_series_lb_CO2_per_kwh": 0.9,
            "emissions_factor_series_lb_NOx_per_kwh": 0.0006,
            "emissions_factor_series_lb_SO2_per_kwh": 0.0004,
            "emissions_factor_series_lb_PM25_per_kwh": 0.00005,
        },
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": fuel},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 9.0},
        "Boiler": {"fuel_cost_per_mmbtu": 10.0, "efficiency": 0.9, "installed_cost_per_mmbtu_per_hour": 30000.0},
        "Financial": {"analysis_years": 20, "offtaker_discount_rate_fraction": 0.08},
    })
}

/// "Emissions and Renewable Energy Percent", the thermal case's boiler-fuel identities: the
/// Site's fuel-burn tonnes of each pollutant are natural gas's lb/MMBtu times the boilers' fuel
/// (`annual_fuel_consumption_mmbtu`) in tonnes (atol 1 for CO2, 1e-2 for the others); each
/// lifecycle total is the fuel burn's plus the grid's (rtol 0.001; 0.01 for SO2, whose rounding
/// the testset allows for); the annual total is the sum of its parts (atol 0.1). The business
/// as usual burns the whole load's fuel in the existing boiler.
#[test]
fn emissions_and_renewable_energy_percent_boiler_fuel() {
    let scenario = heating_site(87600.0, 1.0);
    let (model, _, body) = solve(&scenario);
    let fuel_mmbtu = number(&body, "ExistingBoiler", "annual_fuel_consumption_mmbtu") + number(&body, "Boiler", "annual_fuel_consumption_mmbtu");
    assert!(fuel_mmbtu > 0.0);
    for (gas, lb_per_mmbtu) in NATURAL_GAS {
        let annual = number(&body, "Site", &format!("annual_emissions_from_fuelburn_tonnes_{gas}"));
        let atol = if gas == "CO2" { 1.0 } else { 1e-2 };
        assert!(isapprox(annual, lb_per_mmbtu * fuel_mmbtu * TONNE_PER_LB, 0.0, atol), "{gas}: {annual}");
        let total = number(&body, "Site", &format!("lifecycle_emissions_tonnes_{gas}"));
        let parts = number(&body, "Site", &format!("lifecycle_emissions_from_fuelburn_tonnes_{gas}"))
            + number(&body, "ElectricUtility", &format!("lifecycle_emissions_tonnes_{gas}"));
        let rtol = if gas == "SO2" { 0.01 } else { 0.001 };
        assert!(isapprox(total, parts, rtol, 0.0), "{gas}: {total} vs {parts}");
    }
    let total = number(&body, "Site", "annual_emissions_tonnes_CO2");
    let parts = number(&body, "Site", "annual_emissions_from_fuelburn_tonnes_CO2") + number(&body, "ElectricUtility", "annual_emissions_tonnes_CO2");
    assert!(isapprox(total, parts, 0.0, 0.1));
    // Business as usual: the existing boiler (η 0.8) burns the load's own fuel, 8760 MMBtu.
    let bau_fuel = number(&body, "ExistingBoiler", "annual_fuel_consumption_mmbtu_bau");
    assert!(isapprox(bau_fuel, 8760.0, 1e-9, 1e-6), "{bau_fuel}");
    let years = f64::from(model.financial.analysis_years);
    let bau_tonnes = number(&body, "Site", "lifecycle_emissions_from_fuelburn_tonnes_CO2_bau");
    assert!(isapprox(bau_tonnes, years * 117.03 * bau_fuel * TONNE_PER_LB, 0.0, 0.01), "{bau_tonnes}");
}

/// The CO2 reduction bound counts the boilers (our own check, the testset's tolerances): with
/// a 100 kW load, 0.1 MMBtu/h of heating and PV, a reduction of exactly 20 % is met (atol
/// 1e-3) and agrees with the tonnes (atol 1e-2); the business-as-usual CO2 the bound compares
/// with is the reported one, grid plus boiler fuel.
#[test]
fn co2_reduction_bound_counts_the_boilers() {
    let mut scenario = heating_site(876000.0, 0.1);
    scenario["PV"] = json!({"installed_cost_per_kw": 1500.0, "production_factor_series": daytime_production()});
    scenario["Site"]["CO2_emissions_reduction_min_fraction"] = json!(0.2);
    scenario["Site"]["CO2_emissions_reduction_max_fraction"] = json!(0.2);
    let (_, run, body) = solve(&scenario);
    let reduction = number(&body, "Site", "lifecycle_emissions_reduction_CO2_fraction");
    assert!(isapprox(0.2, reduction, 0.0, 1e-3), "{reduction}");
    let (opt, bau) = (number(&body, "Site", "lifecycle_emissions_tonnes_CO2"), number(&body, "Site", "lifecycle_emissions_tonnes_CO2_bau"));
    assert!(isapprox((bau - opt) / bau, reduction, 0.0, 1e-2));
    let bau_parts = number(&body, "ElectricUtility", "lifecycle_emissions_tonnes_CO2_bau") + number(&body, "Site", "lifecycle_emissions_from_fuelburn_tonnes_CO2_bau");
    assert!(isapprox(bau, bau_parts, 0.001, 0.0));
    let bau_lb = run.factors.bau_lifecycle_co2_lb.expect("CO2 series given");
    assert!(isapprox(bau_lb * TONNE_PER_LB, bau, 1e-6, 0.01), "{} vs {bau}", bau_lb * TONNE_PER_LB);
}

/// The climate cost of the boilers' fuel steers the choice of boiler (our own check): the
/// existing boiler burns cheaper fuel at 3,000 lb CO2/MMBtu; at $0 per tonne it serves the
/// load, at $100 per tonne the cleaner new boiler does, and the lifecycle cost of the outputs
/// is the program's objective, climate cost included.
#[test]
fn climate_cost_of_boiler_fuel_steers_the_boiler_choice() {
    let mut scenario = heating_site(87600.0, 1.0);
    scenario["ExistingBoiler"]["emissions_factor_lb_CO2_per_mmbtu"] = json!(3000.0);
    scenario["Settings"] = json!({"include_climate_in_objective": true});
    scenario["Financial"]["CO2_cost_per_tonne"] = json!(0.0);
    let (_, _, cheap) = solve(&scenario);
    assert!(number(&cheap, "Boiler", "size_mmbtu_per_hour") < 1e-6);
    scenario["Financial"]["CO2_cost_per_tonne"] = json!(100.0);
    let (_, run, priced) = solve(&scenario);
    assert!(number(&priced, "Boiler", "size_mmbtu_per_hour") > 1.0);
    assert!(number(&priced, "ExistingBoiler", "annual_fuel_consumption_mmbtu") < number(&priced, "Boiler", "annual_fuel_consumption_mmbtu"));
    let climate = number(&priced, "Financial", "lifecycle_emissions_cost_climate");
    assert!(climate > 0.0);
    let lcc = number(&priced, "Financial", "lcc");
    let lp = run.optimal.lp_lifecycle_cost();
    assert!(isapprox(lcc, lp, 1e-6, 0.02), "lcc {lcc} vs program {lp}");
}

/// A landfill-gas existing boiler (renewable fraction 1 by the service's fuel defaults) makes
/// the heating load renewable: the share of the total load is (renewable electricity + heat) /
/// (electric load + heat) with every boiler's heat renewable in business as usual.
#[test]
fn renewable_fuel_counts_in_the_share_of_the_total_load() {
    let mut scenario = heating_site(87600.0, 1.0);
    scenario["ExistingBoiler"]["fuel_type"] = json!("landfill_bio_gas");
    scenario.as_object_mut().expect("object").remove("Boiler");
    let (_, _, body) = solve(&scenario);
    let heat_kwh = number(&body, "ExistingBoiler", "annual_thermal_production_mmbtu_bau") * 293.07107;
    let expected = heat_kwh / (87600.0 + heat_kwh);
    let share = number(&body, "Site", "onsite_renewable_energy_fraction_of_total_load_bau");
    assert!(isapprox(share, expected, 0.0, 1e-4), "{share} vs {expected}");
    assert_eq!(number(&body, "Site", "onsite_renewable_electricity_fraction_of_elec_load_bau"), 0.0);
    let fuel_co2 = number(&body, "Site", "annual_emissions_from_fuelburn_tonnes_CO2_bau");
    assert!(isapprox(fuel_co2, 115.38 * 8760.0 * TONNE_PER_LB, 0.0, 0.01), "{fuel_co2}");
}

/// Health costs in the objective with a boiler need the fuel-burn health costs the service
/// would take from EASIUR: refused by name when left out; given, the health cost counts the
/// boilers' NOx, SO2 and PM2.5 and the reported lifecycle cost is the program's objective.
#[test]
fn health_costs_of_boiler_fuel() {
    let mut scenario = heating_site(87600.0, 1.0);
    scenario["Settings"] = json!({"include_health_in_objective": true});
    for gas in ["NOx", "SO2", "PM25"] {
        scenario["Financial"][format!("{gas}_grid_cost_per_tonne")] = json!(10000.0);
        scenario["Financial"][format!("{gas}_cost_escalation_rate_fraction")] = json!(0.02);
    }
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be unsupported") };
    assert!(found.message().contains("Financial.NOx_onsite_fuelburn_cost_per_tonne"), "{}", found.message());
    for gas in ["NOx", "SO2", "PM25"] {
        scenario["Financial"][format!("{gas}_onsite_fuelburn_cost_per_tonne")] = json!(20000.0);
    }
    let (model, run, body) = solve(&scenario);
    let health = number(&body, "Financial", "lifecycle_emissions_cost_health");
    let years = f64::from(model.financial.analysis_years);
    // The fuel part alone: Σ_gas cost · pwf_onsite · year-one tonnes from the boilers' fuel.
    let pwf_onsite: f64 = (1..=20).map(|y| (1.02f64 / 1.08).powi(y)).sum();
    let fuel_part: f64 = ["NOx", "SO2", "PM25"]
        .iter()
        .map(|gas| 20000.0 * pwf_onsite * number(&body, "Site", &format!("lifecycle_emissions_from_fuelburn_tonnes_{gas}")) / years)
        .sum();
    assert!(health > fuel_part && fuel_part > 0.0, "health {health}, fuel part {fuel_part}");
    let lcc = number(&body, "Financial", "lcc");
    let lp = run.optimal.lp_lifecycle_cost();
    assert!(isapprox(lcc, lp, 1e-6, 0.02), "lcc {lcc} vs program {lp}");
}

/// Over random heating scenarios (fuel types, efficiencies, hot storage, a CO2 price in the
/// objective): every step's heat balances, the Site's fuel-burn tonnes are the boilers' fuel at
/// their factors (to the 2-decimal rounding of the lifecycle tonnes), and the lifecycle cost of
/// the outputs is the program's objective.
#[test]
fn heat_balance_and_fuel_emissions_hold_in_random_scenarios() {
    const FUELS: [(&str, f64); 4] = [("natural_gas", 117.03), ("landfill_bio_gas", 115.38), ("propane", 139.16), ("diesel_oil", 163.61)];
    let mut draws = Draws(41);
    for case in 0..3 {
        let mut scenario = heating_site(87600.0, 0.5 + draws.unit());
        let (existing_fuel, existing_co2) = FUELS[(draws.unit() * 4.0) as usize % 4];
        let (new_fuel, new_co2) = FUELS[(draws.unit() * 4.0) as usize % 4];
        scenario["ExistingBoiler"]["fuel_type"] = json!(existing_fuel);
        scenario["ExistingBoiler"]["fuel_cost_per_mmbtu"] = json!(6.0 + 8.0 * draws.unit());
        scenario["Boiler"]["fuel_type"] = json!(new_fuel);
        scenario["Boiler"]["efficiency"] = json!(0.7 + 0.25 * draws.unit());
        scenario["Boiler"]["fuel_cost_per_mmbtu"] = json!(6.0 + 8.0 * draws.unit());
        scenario["Settings"] = json!({"include_climate_in_objective": true});
        scenario["Financial"]["CO2_cost_per_tonne"] = json!(200.0 * draws.unit());
        if case != 1 {
            scenario["HotThermalStorage"] = json!({"max_gal": 5000.0});
        }
        let (model, run, body) = solve(&scenario);
        let heating = model.heating.as_ref().expect("heating");
        let d = run.optimal.dispatch.heating.as_ref().expect("heating dispatch");
        for t in 0..model.steps() {
            let served = d.existing_kw[t] + d.new_kw[t] + d.discharge_kw[t];
            assert!((served - heating.total_kw(t)).abs() <= 1e-6 * (1.0 + heating.total_kw(t)), "case {case} step {t}");
        }
        let years = f64::from(model.financial.analysis_years);
        let co2_lb = existing_co2 * number(&body, "ExistingBoiler", "annual_fuel_consumption_mmbtu") + new_co2 * number(&body, "Boiler", "annual_fuel_consumption_mmbtu");
        let reported = number(&body, "Site", "lifecycle_emissions_from_fuelburn_tonnes_CO2");
        assert!(isapprox(reported, years * co2_lb * TONNE_PER_LB, 1e-6, 0.006), "case {case}: {reported}");
        let lcc = number(&body, "Financial", "lcc");
        let lp = run.optimal.lp_lifecycle_cost();
        assert!(isapprox(lcc, lp, 1e-6, 0.02), "case {case}: lcc {lcc} vs program {lp}");
    }
}

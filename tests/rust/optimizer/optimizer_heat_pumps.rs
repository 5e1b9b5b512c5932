//! The electric heating techs: ElectricHeater, ASHPSpaceHeater and ASHPWaterHeater in the heat
//! and electric balances, their refusals, and the REopt.jl anchors "Electric Heater", "ASHP Space
//! Heater" (cases 1–2), "ASHP Water Heater" and the heating half of "Force in ASHP systems"
//! (`test/runtests.jl`), rebuilt from the numbers those tests state. The service takes its
//! outdoor temperatures from PVWatts; here each scenario gives its own
//! `Site.outdoor_air_temperature_degF`, so the numbers that follow from the temperatures (the
//! COPs, the water heater's 37.673 tons) are checked as relations (consumption = Σ heat / COP)
//! rather than copied. ASHP cooling (cases 3–4 of the space heater, the cooling half of "Force in
//! ASHP systems") is `optimizer_ashp_cooling`; `force_dispatch` ("ASHP Forced Dispatch to Load or
//! Max Capacity") is `optimizer_ashp_dispatch`.

use serde_json::{json, Value};
use sunflux::optimizer::model::KWH_PER_MMBTU;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{isapprox, number, series, solve, Draws};

/// Mild outdoor temperatures (°F): a daily swing around a yearly cycle, from about 40 to 90.
fn temperatures() -> Vec<f64> {
    (0..8760)
        .map(|h| {
            let day = (h / 24) as f64 / 365.0 * std::f64::consts::TAU;
            let hour = (h % 24) as f64 / 24.0 * std::f64::consts::TAU;
            65.0 - 15.0 * day.cos() - 10.0 * hour.cos()
        })
        .collect()
}

/// The shared inputs of the Julia scenarios `electric_heater.json`, `ashp.json`, `ashp_wh.json`.
pub fn base(fuel_cost: f64) -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45, "outdoor_air_temperature_degF": temperatures()},
        "ExistingBoiler": {"production_type": "steam", "efficiency": 0.8, "fuel_type": "natural_gas", "fuel_cost_per_mmbtu": fuel_cost},
        "Financial": {
            "om_cost_escalation_rate_fraction": 0.025, "elec_cost_escalation_rate_fraction": 0.023,
            "existing_boiler_fuel_cost_escalation_rate_fraction": 0.034, "boiler_fuel_cost_escalation_rate_fraction": 0.034,
            "offtaker_tax_rate_fraction": 0.26, "offtaker_discount_rate_fraction": 0.083, "third_party_ownership": false,
            "owner_tax_rate_fraction": 0.26, "owner_discount_rate_fraction": 0.083, "analysis_years": 25
        },
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 87600.0},
        "ElectricTariff": {"monthly_energy_rates": vec![0.1; 12]},
    })
}

pub fn flat(annual_fuel_mmbtu: f64) -> Value {
    json!({"doe_reference_name": "FlatLoad", "annual_mmbtu": annual_fuel_mmbtu})
}

/// Σ_t heat_t / cop_t (kWh) for a constant heat of `mmbtu_per_hour`.
pub fn consumption_at(mmbtu_per_hour: f64, cop: &[f64]) -> f64 {
    cop.iter().map(|c| mmbtu_per_hour * KWH_PER_MMBTU / c).sum()
}

/// "Electric Heater": loads of 0.4, 0.4 and 0.2 · 8760 MMBtu of fuel (space heating, hot
/// water, process heat), a 2500-gal tank serving the first two, an electric heater (COP 1,
/// $115,686 per MMBtu/h) serving the first two. At $10/MMBtu of fuel nothing is bought (size,
/// production, consumption ≈ 0 atol 0.1; grid energy 87,600 kWh atol 0.1); at $100/MMBtu, a
/// $1 heater and free electricity it serves 0.64 MMBtu/h (size ≈ 0.64 atol 0.1; production
/// 0.64 · 8760 MMBtu, consumption that · 293.07107 kWh, grid energy 87,600 kWh + that, rtol
/// 1e-4) and the tank passes nothing to process heat (atol 0.1).
#[test]
fn electric_heater() {
    let mut scenario = base(10.0);
    scenario["ElectricHeater"] = json!({
        "min_mmbtu_per_hour": 0.0, "max_mmbtu_per_hour": 100000, "cop": 1.0, "installed_cost_per_mmbtu_per_hour": 115686,
        "om_cost_per_mmbtu_per_hour": 0.0, "macrs_option_years": 0, "macrs_bonus_fraction": 0.0, "can_supply_steam_turbine": false,
        "can_serve_dhw": true, "can_serve_space_heating": true, "can_serve_process_heat": false
    });
    scenario["SpaceHeatingLoad"] = flat(0.4 * 8760.0);
    scenario["DomesticHotWaterLoad"] = flat(0.4 * 8760.0);
    scenario["ProcessHeatLoad"] = json!({"industrial_reference_name": "FlatLoad", "annual_mmbtu": 0.2 * 8760.0});
    scenario["HotThermalStorage"] = json!({"min_gal": 2500, "max_gal": 2500, "can_serve_dhw": true, "can_serve_space_heating": true,
                                           "can_serve_process_heat": false, "thermal_decay_rate_fraction": 0.0});
    let (_, _, body) = solve(&scenario);
    assert!(number(&body, "ElectricHeater", "size_mmbtu_per_hour").abs() <= 0.1);
    assert!(number(&body, "ElectricHeater", "annual_thermal_production_mmbtu").abs() <= 0.1);
    assert!(number(&body, "ElectricHeater", "annual_electric_consumption_kwh").abs() <= 0.1);
    assert!((number(&body, "ElectricUtility", "annual_energy_supplied_kwh") - 87600.0).abs() <= 0.1);

    scenario["ExistingBoiler"]["fuel_cost_per_mmbtu"] = json!(100);
    scenario["ElectricHeater"]["installed_cost_per_mmbtu_per_hour"] = json!(1.0);
    scenario["ElectricTariff"]["monthly_energy_rates"] = json!(vec![0.0; 12]);
    let (_, _, body) = solve(&scenario);
    let thermal = 0.64 * 8760.0;
    let consumption = thermal * KWH_PER_MMBTU;
    assert!((number(&body, "ElectricHeater", "size_mmbtu_per_hour") - 0.64).abs() <= 0.1);
    assert!(isapprox(number(&body, "ElectricHeater", "annual_thermal_production_mmbtu"), thermal, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ElectricHeater", "annual_electric_consumption_kwh"), consumption, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ElectricUtility", "annual_energy_supplied_kwh"), 87600.0 + consumption, 1e-4, 0.0));
    let to_process: f64 = series(&body, "HotThermalStorage", "storage_to_process_heat_load_series_mmbtu_per_hour").iter().sum();
    assert!(to_process.abs() <= 0.1, "{to_process}");
}

/// "ASHP Space Heater", cases 1–2: 1.0 · 8760 MMBtu of space-heating fuel, the ASHP at
/// $4,050/ton heating only. At $5/MMBtu nothing is bought (size, production, consumption ≈ 0
/// atol 0.1; grid energy 87,600 atol 0.1); at $100/MMBtu, $300/ton and a minimum allowable 80
/// tons the ASHP (size ≈ 80 atol 0.01, the load's peak over the capacity factor being less
/// here too) serves the whole 0.8 MMBtu/h (production 0.8 · 8760 rtol 1e-4), drawing
/// Σ 0.8 · 293.07107 / cop_t kWh (rtol 1e-4), which the grid adds to 87,600 kWh (rtol 1e-4).
#[test]
fn ashp_space_heater() {
    let mut scenario = base(5.0);
    scenario["SpaceHeatingLoad"] = flat(8760.0);
    scenario["ASHPSpaceHeater"] = json!({
        "min_ton": 0.0, "max_ton": 100000, "installed_cost_per_ton": 4050, "om_cost_per_ton": 0.0, "macrs_option_years": 0,
        "macrs_bonus_fraction": 0.0, "can_serve_cooling": false, "force_dispatch": false, "back_up_temp_threshold_degF": 10.0
    });
    let (_, _, body) = solve(&scenario);
    assert!(number(&body, "ASHPSpaceHeater", "size_ton").abs() <= 0.1);
    assert!(number(&body, "ASHPSpaceHeater", "annual_thermal_production_mmbtu").abs() <= 0.1);
    assert!(number(&body, "ASHPSpaceHeater", "annual_electric_consumption_kwh").abs() <= 0.1);
    assert!((number(&body, "ElectricUtility", "annual_energy_supplied_kwh") - 87600.0).abs() <= 0.1);

    scenario["ExistingBoiler"]["fuel_cost_per_mmbtu"] = json!(100);
    scenario["ExistingBoiler"]["retire_in_optimal"] = json!(false);
    scenario["ASHPSpaceHeater"]["installed_cost_per_ton"] = json!(300);
    scenario["ASHPSpaceHeater"]["min_allowable_ton"] = json!(80.0);
    let (model, _, body) = solve(&scenario);
    let cop = &model.heat_pumps[0].cop;
    let consumption = consumption_at(0.8, cop);
    assert!((number(&body, "ASHPSpaceHeater", "size_ton") - 80.0).abs() <= 0.01);
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_thermal_production_mmbtu"), 0.8 * 8760.0, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_electric_consumption_kwh"), consumption, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ElectricUtility", "annual_energy_supplied_kwh"), 87600.0 + consumption, 1e-4, 0.0));
    assert!(number(&body, "ASHPSpaceHeater", "annual_thermal_production_tonhour").abs() <= 1e-4);
}

/// "ASHP Water Heater": 0.5 · 8760 MMBtu of fuel each for space heating and hot water. At the
/// scenario's $5/MMBtu the water heater is not bought (≈ 0 atol 0.1; grid 87,600 atol 0.1); at
/// $100/MMBtu and $300/ton it serves the 0.4 MMBtu/h of hot water (rtol 1e-4) with
/// Σ 0.4 · 293.07107 / cop_t kWh (rtol 1e-4). Its size follows the temperatures (37.673 tons in
/// the service's San Francisco weather): here it is at least its largest heat over the capacity
/// factor.
#[test]
fn ashp_water_heater() {
    let mut scenario = base(5.0);
    scenario["SpaceHeatingLoad"] = flat(0.5 * 8760.0);
    scenario["DomesticHotWaterLoad"] = flat(0.5 * 8760.0);
    scenario["ASHPWaterHeater"] = json!({"min_ton": 0.0, "max_ton": 100000, "installed_cost_per_ton": 4050, "om_cost_per_ton": 0.0,
                                         "force_dispatch": false});
    let (_, _, body) = solve(&scenario);
    assert!(number(&body, "ASHPWaterHeater", "size_ton").abs() <= 0.1);
    assert!(number(&body, "ASHPWaterHeater", "annual_electric_consumption_kwh").abs() <= 0.1);
    assert!((number(&body, "ElectricUtility", "annual_energy_supplied_kwh") - 87600.0).abs() <= 0.1);

    scenario["ExistingBoiler"]["fuel_cost_per_mmbtu"] = json!(100);
    scenario["ASHPWaterHeater"]["installed_cost_per_ton"] = json!(300);
    let (model, _, body) = solve(&scenario);
    let tech = &model.heat_pumps[0];
    let consumption = consumption_at(0.4, &tech.cop);
    assert!(isapprox(number(&body, "ASHPWaterHeater", "annual_thermal_production_mmbtu"), 0.4 * 8760.0, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ASHPWaterHeater", "annual_electric_consumption_kwh"), consumption, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ElectricUtility", "annual_energy_supplied_kwh"), 87600.0 + consumption, 1e-4, 0.0));
    let produced = series(&body, "ASHPWaterHeater", "thermal_production_series_mmbtu_per_hour");
    let needed_ton = produced.iter().zip(&tech.cf).map(|(p, cf)| p * KWH_PER_MMBTU / cf).fold(0.0, f64::max) / 3.51685;
    assert!(needed_ton > 0.0 && number(&body, "ASHPWaterHeater", "size_ton") >= needed_ton - 1e-3);
}

/// "Force in ASHP systems" (its heating half; the cooling half is `optimizer_ashp_cooling`): with
/// the boiler's fuel at $0.001/MMBtu, both ASHPs forced in serve their loads all the same: the
/// space heater 0.4 · 8760 MMBtu (rtol 1e-4), the water heater with Σ 0.4 · 293.07107 / cop_t
/// kWh (rtol 1e-4). With the space heater not forced, the boiler serves its 0.4 · 8760 MMBtu.
#[test]
fn force_in_ashp_systems() {
    let mut scenario = base(0.001);
    scenario["SpaceHeatingLoad"] = flat(0.5 * 8760.0);
    scenario["DomesticHotWaterLoad"] = flat(0.5 * 8760.0);
    scenario["ExistingBoiler"]["retire_in_optimal"] = json!(false);
    scenario["ASHPSpaceHeater"] = json!({"can_serve_cooling": false, "force_into_system": true, "force_dispatch": false});
    scenario["ASHPWaterHeater"] = json!({"force_into_system": true, "force_dispatch": false, "max_ton": 100000});
    let (model, _, body) = solve(&scenario);
    let water = consumption_at(0.4, &model.heat_pumps[1].cop);
    assert!(isapprox(number(&body, "ASHPWaterHeater", "annual_electric_consumption_kwh"), water, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_thermal_production_mmbtu"), 0.4 * 8760.0, 1e-4, 0.0));

    scenario["ASHPSpaceHeater"]["force_into_system"] = json!(false);
    let (model, _, body) = solve(&scenario);
    let water = consumption_at(0.4, &model.heat_pumps[1].cop);
    assert!(isapprox(number(&body, "ASHPWaterHeater", "annual_electric_consumption_kwh"), water, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ExistingBoiler", "annual_thermal_production_mmbtu"), 0.4 * 8760.0, 1e-4, 0.0));
}

/// A missing temperature series is refused by name, pointing at `Scenario.resolve`; the forced
/// dispatch of the defaults is not refused.
#[test]
fn unmodelled_ashp_inputs_are_refused_by_name() {
    let mut scenario = base(5.0);
    scenario["SpaceHeatingLoad"] = flat(8760.0);
    scenario["Site"] = json!({"latitude": 37.78, "longitude": -122.45});
    scenario["ASHPSpaceHeater"] = json!({});
    let text = match from_scenario(&scenario, &[]) {
        Err(ScenarioError::Unsupported(parts)) => parts.message(),
        other => panic!("not refused: {:?}", other.map(|_| ())),
    };
    assert!(text.contains("Site.outdoor_air_temperature_degF (Scenario.resolve"), "{text}");
    assert!(!text.contains("force_dispatch"), "{text}");
}

/// Over random scenarios with an electric heater and both ASHPs (heating only, the water heater
/// forced in, no minimum allowable size: LPs): every step's heat balances (boiler + techs = load, each tech within
/// cf · size and serving only its loads), the electric balance holds (grid = load + the techs'
/// electricity), and the lifecycle cost of the outputs is the program's objective.
#[test]
fn balances_hold_in_random_scenarios() {
    let mut draws = Draws(77);
    // One year-long solve takes tens of seconds in a debug build: one case.
    for case in 0..1 {
        let mut scenario = base(5.0 + 40.0 * draws.unit());
        scenario["Settings"] = json!({"run_bau": false});
        let fuel: Vec<f64> = (0..8760).map(|_| draws.unit()).collect();
        scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": fuel});
        scenario["DomesticHotWaterLoad"] = flat(8760.0 * draws.unit());
        scenario["ElectricTariff"]["monthly_energy_rates"] = json!((0..12).map(|_| 0.02 + 0.1 * draws.unit()).collect::<Vec<f64>>());
        scenario["ElectricHeater"] = json!({"installed_cost_per_mmbtu_per_hour": 50000.0 * draws.unit(), "can_serve_process_heat": false});
        scenario["ASHPSpaceHeater"] = json!({"can_serve_cooling": false, "force_dispatch": false, "min_allowable_ton": 0.0,
                                             "installed_cost_per_ton": 3000.0 * draws.unit()});
        scenario["ASHPWaterHeater"] = json!({"force_dispatch": false, "min_allowable_ton": 0.0, "force_into_system": case == 0});
        let (model, run, body) = solve(&scenario);
        let heating = model.heating.as_ref().expect("heating");
        let d = &run.optimal.dispatch;
        let h = d.heating.as_ref().expect("heating dispatch");
        let to_loads: Vec<Vec<f64>> = d.heat_pumps.iter().map(|p| p.to_loads()).collect();
        let loads: Vec<Vec<f64>> = d.heat_pumps.iter().flat_map(|p| p.to_load_kw.iter().map(|(kind, _)| heating.load_kw(*kind, model.steps()))).collect();
        for t in 0..model.steps() {
            let produced = h.existing_kw[t] + h.new_kw[t] + to_loads.iter().map(|s| s[t]).sum::<f64>();
            assert!((produced - heating.total_kw(t)).abs() <= 1e-6 * (1.0 + heating.total_kw(t)), "case {case} step {t}");
            for ((tech, p), to_load) in model.heat_pumps.iter().zip(&d.heat_pumps).zip(&to_loads) {
                assert!(to_load[t] + p.to_storage_kw[t] <= tech.cf[t] * p.size_kw + 1e-6, "case {case} step {t}");
            }
            let served = d.heat_pumps.iter().flat_map(|p| p.to_load_kw.iter().map(|(_, s)| s[t]));
            assert!(served.zip(&loads).all(|(s, load)| s <= load[t] + 1e-6), "case {case} step {t}");
            let electric: f64 = d.heat_pumps.iter().map(|p| p.electric_kw[t]).sum();
            assert!((d.grid_load[t] - model.load_kw[t] - electric).abs() <= 1e-6 * (1.0 + electric), "case {case} step {t}");
        }
        let lcc = number(&body, "Financial", "lcc");
        let lp = run.optimal.lp_lifecycle_cost();
        assert!((lcc - lp).abs() <= 1e-6 * lp.abs() + 0.02, "case {case}: lcc {lcc} vs program {lp}");
    }
}

//! Producers that serve only some heating loads (`can_serve_dhw`, `can_serve_space_heating`,
//! `can_serve_process_heat` of both boilers, CHP and the steam turbine): the REopt.jl testset
//! "Process Heat Load" (`test/runtests.jl`, its test sets 2 and 3, where the new boiler serves
//! only the process heat, then all but it) rebuilt on our own inputs with the numbers it states,
//! each load met by the producers that may serve it in every step, the reader's checks, and the
//! program of a scenario whose producers serve every load left as it was.

use serde_json::{json, Value};
use sunflux::optimizer::lp::{build, CostFactors};
use sunflux::optimizer::run::optimal_cases;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{number, series, solve};

const STEPS: usize = 8760;

fn electric() -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 87600.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 0.0},
    })
}

/// A fuel series (MMBtu/h) that swings by ±`swing` around `mean` over the day.
fn daily(mean: f64, swing: f64, phase: usize) -> Vec<f64> {
    (0..STEPS).map(|h| mean + swing * (2.0 * std::f64::consts::PI * ((h + phase) % 24) as f64 / 24.0).sin()).collect()
}

fn flags(dhw: bool, space: bool, process: bool) -> Value {
    json!({"can_serve_dhw": dhw, "can_serve_space_heating": space, "can_serve_process_heat": process})
}

fn merge(mut section: Value, extra: Value) -> Value {
    for (key, value) in extra.as_object().expect("object") {
        section[key] = value.clone();
    }
    section
}

/// Asserts |a_t − b_t| ≤ atol in every step.
fn same_series(what: &str, a: &[f64], b: &[f64], atol: f64) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (t, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= atol, "{what} step {t}: {x} vs {y}");
    }
}

fn thermal_mmbtu_per_hour(fuel: &[f64], efficiency: f64) -> Vec<f64> {
    fuel.iter().map(|f| f * efficiency).collect()
}

/// The existing boiler serves only the space heating and the new boiler only the process heat:
/// although the existing boiler's fuel is the cheaper, each load is met by its own boiler in
/// every step (atol 1e-6 MMBtu/h), no boiler sends heat to the other's load, and each boiler's
/// fuel is its production over its efficiency (atol 1e-6).
#[test]
fn each_load_is_met_by_the_boiler_that_serves_it() {
    let (space, process) = (daily(4.0, 1.5, 0), daily(3.0, 1.0, 7));
    let mut scenario = electric();
    scenario["Settings"] = json!({"run_bau": false});
    scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": space});
    scenario["ProcessHeatLoad"] = json!({"fuel_loads_mmbtu_per_hour": process});
    scenario["ExistingBoiler"] = merge(json!({"fuel_cost_per_mmbtu": 5.0, "efficiency": 0.8}), flags(true, true, false));
    scenario["Boiler"] = merge(
        json!({"efficiency": 0.9, "fuel_cost_per_mmbtu": 20.0, "installed_cost_per_mmbtu_per_hour": 100.0, "max_mmbtu_per_hour": 100.0}),
        flags(false, false, true),
    );
    let (model, _, body) = solve(&scenario);
    assert_eq!(model.heating.as_ref().expect("heating").existing_boiler.serves.len(), 1);
    let (space_kw, process_kw) = (thermal_mmbtu_per_hour(&space, 0.8), thermal_mmbtu_per_hour(&process, 0.8));
    let zero = vec![0.0; STEPS];
    same_series("existing to space", &series(&body, "ExistingBoiler", "thermal_to_space_heating_load_series_mmbtu_per_hour"), &space_kw, 1e-6);
    same_series("existing to process", &series(&body, "ExistingBoiler", "thermal_to_process_heat_load_series_mmbtu_per_hour"), &zero, 1e-6);
    same_series("boiler to process", &series(&body, "Boiler", "thermal_to_process_heat_load_series_mmbtu_per_hour"), &process_kw, 1e-6);
    same_series("boiler to space", &series(&body, "Boiler", "thermal_to_space_heating_load_series_mmbtu_per_hour"), &zero, 1e-6);
    for (section, efficiency) in [("ExistingBoiler", 0.8), ("Boiler", 0.9)] {
        let production = series(&body, section, "thermal_production_series_mmbtu_per_hour");
        let fuel: Vec<f64> = production.iter().map(|p| p / efficiency).collect();
        same_series(section, &series(&body, section, "fuel_consumption_series_mmbtu_per_hour"), &fuel, 1e-6);
    }
}

/// "Process Heat Load" (`process_heat.json` as the testset changes it): hot water, space heating
/// and process heat FlatLoads of 87,600 MMBtu of fuel a year each (70,080 MMBtu of heat at the
/// steam existing boiler's 0.8; $10/MMBtu, 50 × peak), a new boiler with free landfill gas
/// (η 0.8, $40,000 per MMBtu/h, $10,000 per MMBtu/h-year, at most 35 MMBtu/h). Left out: the
/// site's CO2 bounds (0 and 1: no bound) and the zero electric load (a small one here).
fn process_heat_scenario(boiler_serves: Value) -> Value {
    let mut scenario = electric();
    for section in ["DomesticHotWaterLoad", "SpaceHeatingLoad"] {
        scenario[section] = json!({"doe_reference_name": "FlatLoad", "annual_mmbtu": 87600.0});
    }
    scenario["ProcessHeatLoad"] = json!({"industrial_reference_name": "FlatLoad", "annual_mmbtu": 87600.0});
    scenario["ExistingBoiler"] = json!({
        "production_type": "steam", "efficiency": 0.8, "fuel_type": "natural_gas", "fuel_cost_per_mmbtu": 10.0,
        "max_thermal_factor_on_peak_load": 50.0
    });
    scenario["Boiler"] = merge(
        json!({
            "min_mmbtu_per_hour": 0.0, "max_mmbtu_per_hour": 35.0, "efficiency": 0.8, "fuel_type": "landfill_bio_gas",
            "fuel_cost_per_mmbtu": 0.0, "emissions_factor_lb_CO2_per_mmbtu": 0.0,
            "installed_cost_per_mmbtu_per_hour": 40000.0, "om_cost_per_mmbtu_per_hour": 10000.0
        }),
        boiler_serves,
    );
    scenario
}

/// The testset's sums (atol 0.1 MMBtu and MMBtu/h) of each boiler's size, production and heat to
/// each load, in the order hot water, space heating, process heat.
fn check_process_heat(body: &Value, boiler_size: f64, boiler: [f64; 3], existing: [f64; 3]) {
    let close = |what: &str, value: f64, expected: f64| {
        println!("{what}: {value} (testset {expected})");
        assert!((value - expected).abs() <= 0.1, "{what}: {value} vs {expected}");
    };
    close("Boiler size", number(body, "Boiler", "size_mmbtu_per_hour"), boiler_size);
    for (section, expected) in [("Boiler", boiler), ("ExistingBoiler", existing)] {
        close(section, number(body, section, "annual_thermal_production_mmbtu"), expected.iter().sum());
        for (name, value) in ["dhw", "space_heating", "process_heat"].into_iter().zip(expected) {
            let sum: f64 = series(body, section, &format!("thermal_to_{name}_load_series_mmbtu_per_hour")).iter().sum();
            close(&format!("{section} to {name}"), sum, value);
        }
    }
}

/// "Process Heat Load", test set 2: the new boiler serves only the process heat: size 8.0,
/// production 70,080 all to the process heat; the existing boiler makes 140,160, the hot water's
/// and the space heating's 70,080 each and none of the process heat.
#[test]
fn process_heat_load_boiler_serves_only_process_heat() {
    let (_, _, body) = solve(&process_heat_scenario(flags(false, false, true)));
    check_process_heat(&body, 8.0, [0.0, 0.0, 70080.0], [70080.0, 70080.0, 0.0]);
}

/// "Process Heat Load", test set 3: the new boiler serves the hot water and the space heating but
/// not the process heat: size 16.0, 140,160 to those two; the existing boiler makes the process
/// heat's 70,080 alone.
#[test]
fn process_heat_load_boiler_serves_all_but_process_heat() {
    let (_, _, body) = solve(&process_heat_scenario(flags(true, true, false)));
    check_process_heat(&body, 16.0, [70080.0, 70080.0, 0.0], [0.0, 0.0, 70080.0]);
}

/// CHP that serves only the hot water, beside a space heating load: its heat to the space
/// heating is 0 in every step, its heat to load is at most the hot water load, the existing
/// boiler meets the space heating alone, and the hot water's two producers meet it (atol 1e-6
/// MMBtu/h). CHP runs (its electricity is worth more than its fuel) and serves some hot water.
#[test]
fn chp_serving_only_the_hot_water() {
    let (space, dhw) = (daily(6.0, 2.0, 0), daily(1.0, 0.5, 5));
    let mut scenario = json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": vec![800.0; STEPS], "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.25, "blended_annual_demand_rate": 0.0},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": space},
        "DomesticHotWaterLoad": {"fuel_loads_mmbtu_per_hour": dhw},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 10.0, "efficiency": 0.8},
        "CHP": {
            "prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 6.0, "min_kw": 500, "max_kw": 500,
            "installed_cost_per_kw": 1000.0, "om_cost_per_kw": 0.0, "om_cost_per_kwh": 0.0, "om_cost_per_hr_per_kw_rated": 0.0,
            "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": 0.35, "min_turn_down_fraction": 0.0,
            "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": 0.45,
            "macrs_option_years": 0, "macrs_bonus_fraction": 0.0, "federal_itc_fraction": 0.0,
            "unavailability_periods": [{"month": 1, "start_week_of_month": 2, "start_day_of_week": 6, "start_hour": 1, "duration_hours": 0}]
        }
    });
    scenario["CHP"] = merge(scenario["CHP"].clone(), flags(true, false, false));
    let (_, _, body) = solve(&scenario);
    let (space_kw, dhw_kw) = (thermal_mmbtu_per_hour(&space, 0.8), thermal_mmbtu_per_hour(&dhw, 0.8));
    let chp_to_space = series(&body, "CHP", "thermal_to_space_heating_load_series_mmbtu_per_hour");
    same_series("CHP to space", &chp_to_space, &vec![0.0; STEPS], 1e-6);
    let chp_to_load = series(&body, "CHP", "thermal_to_load_series_mmbtu_per_hour");
    assert!(chp_to_load.iter().zip(&dhw_kw).all(|(c, d)| *c <= d + 1e-6), "CHP heat to load beyond the hot water");
    same_series("existing to space", &series(&body, "ExistingBoiler", "thermal_to_space_heating_load_series_mmbtu_per_hour"), &space_kw, 1e-6);
    let chp_to_dhw = series(&body, "CHP", "thermal_to_dhw_load_series_mmbtu_per_hour");
    let existing_to_dhw = series(&body, "ExistingBoiler", "thermal_to_dhw_load_series_mmbtu_per_hour");
    let dhw_met: Vec<f64> = chp_to_dhw.iter().zip(&existing_to_dhw).map(|(a, b)| a + b).collect();
    same_series("hot water met", &dhw_met, &dhw_kw, 1e-6);
    assert!(number(&body, "CHP", "annual_electric_production_kwh") > 0.0);
    assert!(chp_to_dhw.iter().sum::<f64>() > 0.0);
}

/// A back-pressure steam turbine fed by the existing boiler that serves only the process heat,
/// beside a space heating load: its heat goes to the process heat alone (at most that load in
/// every step, nothing to the space heating) and the two loads are met in every step (atol 1e-6
/// MMBtu/h).
#[test]
fn steam_turbine_serving_only_the_process_heat() {
    let (space, process) = (daily(20.0, 5.0, 0), daily(60.0, 10.0, 9));
    let scenario = json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": vec![5000.0; STEPS], "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.15, "blended_annual_demand_rate": 0.0},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": space},
        "ProcessHeatLoad": {"fuel_loads_mmbtu_per_hour": process},
        "ExistingBoiler": {
            "production_type": "steam", "efficiency": 0.8, "fuel_type": "natural_gas", "fuel_cost_per_mmbtu": 10.0,
            "max_thermal_factor_on_peak_load": 1.25, "can_supply_steam_turbine": true
        },
        "SteamTurbine": {
            "min_kw": 0.0, "max_kw": 20000.0, "is_condensing": false, "inlet_steam_pressure_psig": 600.0,
            "inlet_steam_temperature_degF": 575.0, "outlet_steam_pressure_psig": 150.0, "outlet_steam_min_vapor_fraction": 0.8,
            "isentropic_efficiency": 0.612, "gearbox_generator_efficiency": 0.94, "net_to_gross_electric_ratio": 0.9,
            "installed_cost_per_kw": 682.0, "om_cost_per_kw": 0.0, "om_cost_per_kwh": 0.009, "macrs_bonus_fraction": 0.0,
            "macrs_option_years": 0, "can_serve_dhw": false, "can_serve_space_heating": false, "can_serve_process_heat": true
        }
    });
    let (_, _, body) = solve(&scenario);
    let (space_kw, process_kw) = (thermal_mmbtu_per_hour(&space, 0.8), thermal_mmbtu_per_hour(&process, 0.8));
    let turbine = |name: &str| series(&body, "SteamTurbine", &format!("thermal_to_{name}_load_series_mmbtu_per_hour"));
    same_series("turbine to space", &turbine("space_heating"), &vec![0.0; STEPS], 1e-6);
    let turbine_to_load = series(&body, "SteamTurbine", "thermal_to_load_series_mmbtu_per_hour");
    assert!(turbine_to_load.iter().zip(&process_kw).all(|(h, p)| *h <= p + 1e-6), "turbine heat to load beyond the process heat");
    assert!(turbine_to_load.iter().sum::<f64>() > 0.0, "the turbine runs");
    let existing = |name: &str| series(&body, "ExistingBoiler", &format!("thermal_to_{name}_load_series_mmbtu_per_hour"));
    same_series("space met", &existing("space_heating"), &space_kw, 1e-6);
    let process_met: Vec<f64> = turbine("process_heat").iter().zip(existing("process_heat")).map(|(a, b)| a + b).collect();
    same_series("process met", &process_met, &process_kw, 1e-6);
}

/// The hot-water tank (hot water and space heating, its defaults) beside a new boiler that
/// serves only the process heat: the existing boiler's fuel costs $100/MMBtu in odd hours and
/// $1 in even ones, when the hot water and space heating loads are zero, so the tank carries
/// the cheap heat to them, while the process heat, which the tank may not serve, takes the new
/// boiler's $50 fuel in odd hours. Every load is met in every step by the heat sent to it
/// (producers and tank; atol 1e-6 MMBtu/h), the new boiler sends nothing to the other loads
/// nor the tank to the process heat, and the tank and the new boiler both work (how the tank's
/// heat divides between its two loads is one of the program's equal choices).
#[test]
fn the_tank_and_a_boiler_serving_only_process_heat_share_the_loads() {
    let half: Vec<f64> = (0..STEPS).map(|t| if t % 2 == 1 { 2.0 } else { 0.0 }).collect();
    let mut scenario = electric();
    scenario["Settings"] = json!({"run_bau": false});
    scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": half});
    scenario["DomesticHotWaterLoad"] = json!({"fuel_loads_mmbtu_per_hour": half});
    scenario["ProcessHeatLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![1.0; STEPS]});
    let price: Vec<f64> = (0..STEPS).map(|t| if t % 2 == 1 { 100.0 } else { 1.0 }).collect();
    scenario["ExistingBoiler"] = json!({"fuel_cost_per_mmbtu": price, "efficiency": 0.8});
    scenario["Boiler"] = merge(
        json!({"efficiency": 0.8, "fuel_cost_per_mmbtu": 50.0, "installed_cost_per_mmbtu_per_hour": 100.0, "max_mmbtu_per_hour": 100.0}),
        flags(false, false, true),
    );
    scenario["HotThermalStorage"] = json!({"max_gal": 10000.0});
    let (_, _, body) = solve(&scenario);
    assert!(number(&body, "HotThermalStorage", "size_gal") > 0.0);
    let sent = |section: &str, name: &str| series(&body, section, &format!("thermal_to_{name}_load_series_mmbtu_per_hour"));
    let mut tank_to_loads = 0.0;
    for (name, fuel) in [("dhw", &half), ("space_heating", &half), ("process_heat", &vec![1.0; STEPS])] {
        let tank = series(&body, "HotThermalStorage", &format!("storage_to_{name}_load_series_mmbtu_per_hour"));
        let (existing, boiler) = (sent("ExistingBoiler", name), sent("Boiler", name));
        let met: Vec<f64> = (0..STEPS).map(|t| existing[t] + boiler[t] + tank[t]).collect();
        same_series(&format!("{name} met"), &met, &thermal_mmbtu_per_hour(fuel, 0.8), 1e-6);
        if name != "process_heat" {
            same_series(&format!("boiler to {name}"), &boiler, &vec![0.0; STEPS], 1e-6);
            tank_to_loads += tank.iter().sum::<f64>();
        } else {
            same_series("tank to process heat", &tank, &vec![0.0; STEPS], 1e-6);
            assert!(boiler.iter().sum::<f64>() > 0.0, "the boiler serves the process heat");
        }
    }
    assert!(tank_to_loads > 0.0, "the tank serves the hot water and the space heating");
}

/// The program's size: with every `can_serve_*` given true it is the program without them,
/// column for column and row for row; a new boiler that may not serve the process heat beside
/// hot water and space heating adds one row per step (the set {hot water, space heating}) and
/// no column.
#[test]
fn serving_every_load_leaves_the_program_as_it_was() {
    let count = |boiler_flags: Option<Value>| {
        let mut scenario = electric();
        scenario["DomesticHotWaterLoad"] = json!({"fuel_loads_mmbtu_per_hour": daily(1.0, 0.5, 0)});
        scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": daily(3.0, 1.0, 3)});
        scenario["ProcessHeatLoad"] = json!({"fuel_loads_mmbtu_per_hour": daily(2.0, 0.5, 6)});
        scenario["ExistingBoiler"] = json!({"fuel_cost_per_mmbtu": 10.0});
        scenario["Boiler"] = json!({"fuel_cost_per_mmbtu": 8.0, "efficiency": 0.9, "max_mmbtu_per_hour": 50.0});
        if let Some(flags) = boiler_flags {
            scenario["Boiler"] = merge(scenario["Boiler"].clone(), flags.clone());
            scenario["ExistingBoiler"] = merge(scenario["ExistingBoiler"].clone(), json!({"can_serve_dhw": true, "can_serve_space_heating": true, "can_serve_process_heat": true}));
        }
        let model = from_scenario(&scenario, &[]).expect("supported");
        let factors = CostFactors::new(&model).expect("factors");
        let program = build(&model, &factors, &optimal_cases(&model)[0]);
        (program.lp.variable_count(), program.lp.row_count())
    };
    let without = count(None);
    assert_eq!(count(Some(flags(true, true, true))), without);
    let (columns, rows) = count(Some(flags(true, true, false)));
    assert_eq!((columns, rows), (without.0, without.1 + STEPS));
}

/// The reader: a producer that may serve none of the loads given is refused by name; a load
/// with a positive total that the business-as-usual case (the existing boiler alone) cannot
/// serve is the service's error.
#[test]
fn the_reader_checks_who_serves_each_load() {
    let mut scenario = electric();
    scenario["ProcessHeatLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![1.0; STEPS]});
    scenario["ExistingBoiler"] = json!({"fuel_cost_per_mmbtu": 10.0});
    scenario["Boiler"] = merge(json!({"fuel_cost_per_mmbtu": 8.0}), flags(true, true, false));
    match from_scenario(&scenario, &[]) {
        Err(ScenarioError::Unsupported(u)) => assert!(u.items.iter().any(|i| i.contains("Boiler serving none of the heating loads given")), "{:?}", u.items),
        other => panic!("must be unsupported: {:?}", other.err()),
    }
    scenario["Boiler"] = merge(json!({"fuel_cost_per_mmbtu": 8.0}), flags(false, false, true));
    scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![1.0; STEPS]});
    scenario["ExistingBoiler"] = merge(json!({"fuel_cost_per_mmbtu": 10.0}), flags(true, true, false));
    match from_scenario(&scenario, &[]) {
        Err(ScenarioError::Invalid(items)) => assert!(items.iter().any(|i| i == "ProcessHeat load is nonzero and no techs can serve the load."), "{items:?}"),
        other => panic!("must be invalid: {:?}", other.err()),
    }
    scenario["Settings"] = json!({"run_bau": false});
    assert!(from_scenario(&scenario, &[]).is_ok());
}

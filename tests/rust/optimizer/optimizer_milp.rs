//! The service's binaries solved exactly by HiGHS: the net-metering / wholesale choice with the
//! service's big-M cap, the generator's on/off with its minimum turndown, falling tiers with
//! storage, and the size limit that refuses a program before it is built. Scenarios are
//! written here from the facts of the service's test cases (REopt.jl `test/runtests.jl`), with
//! production and load shapes made for these tests.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sunflux::optimizer::in_process::{solve_scenario, InProcessError};
use sunflux::optimizer::{from_scenario, optimize, Model, Optimized, SolveControl};

fn solve(scenario: &Value) -> (Model, Optimized) {
    let model = from_scenario(scenario, &[]).expect("supported scenario");
    let control = SolveControl { deadline: Some(Instant::now() + Duration::from_secs(60)), cancel: None };
    let run = optimize(&model, &control).expect("optimal within a minute");
    (model, run)
}

/// A clear-sky-like daily arc, 0 at night, peaking at 0.8 kW/kW at noon, weaker in winter.
fn daylight_production() -> Vec<f64> {
    (0..8760)
        .map(|hour| {
            let day = (hour / 24) as f64;
            let h = (hour % 24) as f64;
            let season = 0.55 + 0.45 * (std::f64::consts::TAU * (day - 80.0) / 365.0).sin().max(-1.0);
            let arc = (std::f64::consts::PI * (h - 6.0) / 12.0).sin();
            if (6.0..18.0).contains(&h) { 0.8 * season * arc.max(0.0) } else { 0.0 }
        })
        .collect()
}

/// The scenario of REopt.jl's "Net Metering Limit and Wholesale" (`test/scenarios/net_metering.json`:
/// a flat 10 kW load in Anchorage at 0.2106 $/kWh, a 30 kW net-metering limit, wholesale at
/// 0.01 $/kWh without `can_wholesale`), restated with this file's production shape in place of
/// the file's Anchorage series.
fn net_metering_scenario() -> Value {
    json!({
        "Site": {"latitude": 61.1709756, "longitude": -149.9068752, "land_acres": 1.0e6, "roof_squarefeet": 0},
        "Financial": {"elec_cost_escalation_rate_fraction": 0.02},
        "ElectricLoad": {"annual_kwh": 87600.0, "doe_reference_name": "FlatLoad"},
        "ElectricTariff": {"blended_annual_demand_rate": 0.0, "blended_annual_energy_rate": 0.2106, "wholesale_rate": 0.01},
        "ElectricUtility": {"net_metering_limit_kw": 30.0},
        "PV": {"array_type": 0, "max_kw": 100000, "can_net_meter": true, "can_wholesale": false, "federal_itc_fraction": 0.3,
               "installed_cost_per_kw": 2685.0, "macrs_option_years": 5, "macrs_bonus_fraction": 0.4, "om_cost_per_kw": 25.0,
               "production_factor_series": daylight_production()},
    })
}

/// "Net Metering Limit and Wholesale", case 1: PV worth its retail value under net metering
/// fills the 30 kW limit and no more (beyond it only the 10 kW load would value its output):
/// PV 30 kW (atol 1e-3).
#[test]
fn net_metering_limit_and_wholesale_case_1_sizes_pv_at_the_net_metering_limit() {
    let (_, run) = solve(&net_metering_scenario());
    let pv_kw: f64 = run.optimal.dispatch.pv_new_kw.iter().sum();
    assert!((pv_kw - 30.0).abs() <= 1e-3, "PV {pv_kw} kW");
}

/// "Net Metering Limit and Wholesale", case 2: wholesale at 5 $/kWh with `can_wholesale`.
/// Beyond net metering the service caps PV at its big-M, the largest monthly load in kWh
/// (31 · 24 · 10 = 7,440), and the wholesale value fills it: PV 7,440 kW (atol 1e-3).
#[test]
fn net_metering_limit_and_wholesale_case_2_sizes_pv_at_the_services_big_m() {
    let mut scenario = net_metering_scenario();
    scenario["ElectricTariff"]["wholesale_rate"] = json!(5.0);
    scenario["PV"]["can_wholesale"] = json!(true);
    let (_, run) = solve(&scenario);
    let pv_kw: f64 = run.optimal.dispatch.pv_new_kw.iter().sum();
    assert!((pv_kw - 7440.0).abs() <= 1e-3, "PV {pv_kw} kW");
}

/// "Net Metering Limit and Wholesale", case 3: case 2's scenario with wholesale at 0, PV of at
/// least 50 kW (past the net-metering limit) and a 35 % renewable-electricity minimum: PV
/// exports nothing (its excess is curtailed) and the export benefit is 0 (both atol 1e-3).
#[test]
fn net_metering_limit_and_wholesale_case_3_exports_nothing_past_the_limit() {
    let mut scenario = net_metering_scenario();
    scenario["ElectricTariff"]["wholesale_rate"] = json!(0.0);
    scenario["PV"]["can_wholesale"] = json!(true);
    scenario["PV"]["min_kw"] = json!(50);
    scenario["Site"]["renewable_electricity_min_fraction"] = json!(0.35);
    let control = SolveControl { deadline: Some(Instant::now() + Duration::from_secs(60)), cancel: None };
    let body = solve_scenario(&scenario, &control).expect("optimal");
    let pv = &body["outputs"]["PV"];
    assert!(pv["size_kw"].as_f64().unwrap_or(0.0) >= 50.0 - 1e-6);
    let exported: f64 = pv["electric_to_grid_series_kw"].as_array().expect("series").iter().filter_map(Value::as_f64).sum();
    assert!(exported.abs() <= 1e-3, "exported {exported} kW");
    let benefit = body["outputs"]["ElectricTariff"]["lifecycle_export_benefit_after_tax"].as_f64().expect("benefit");
    assert!(benefit.abs() <= 1e-3, "export benefit {benefit}");
}

/// A generator with a 50 % minimum turndown on a load that alternates 20 and 80 kW, with grid
/// energy dear and fuel cheap: the relaxation would run it at 20 kW in the low hours; the
/// service's binary keeps it off there (its output may not go to the grid). No step runs
/// between 0 and turndown × size.
#[test]
fn generator_turndown_is_enforced_in_every_step() {
    let load: Vec<f64> = (0..8760).map(|hour| if hour % 2 == 0 { 20.0 } else { 80.0 }).collect();
    let scenario = json!({
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "ElectricLoad": {"loads_kw": load, "year": 2017},
        "ElectricTariff": {"blended_annual_energy_rate": 1.0, "blended_annual_demand_rate": 0.0},
        "Generator": {"existing_kw": 100, "max_kw": 0, "only_runs_during_grid_outage": false, "min_turn_down_fraction": 0.5,
                      "fuel_cost_per_gallon": 1.0, "om_cost_per_kwh": 0.0},
        "Settings": {"run_bau": false},
    });
    let (model, run) = solve(&scenario);
    let d = &run.optimal.dispatch;
    let floor = 0.5 * d.generator_kw;
    assert!((d.generator_kw - 100.0).abs() < 1e-9);
    let output: Vec<f64> = (0..model.steps()).map(|t| d.generator_load[t] + d.generator_storage.get(t).copied().unwrap_or(0.0)).collect();
    let between = output.iter().filter(|&&kw| kw > 1e-6 && kw < floor - 1e-6).count();
    assert_eq!(between, 0, "steps between 0 and the turndown");
    assert!(output.iter().any(|&kw| kw >= floor - 1e-6), "the generator runs in the high hours");
}

/// Energy at 0.20 $/kWh up to 20,000 kWh a month, then 0.08 (a falling tier), a 15 $/kW demand
/// charge and storage to size: the tier binaries and the storage solve within a minute.
#[test]
fn a_falling_tier_with_storage_solves_within_a_minute() {
    let single = json!(vec![vec![0; 24]; 12]);
    let rate = json!({
        "energyweekdayschedule": single, "energyweekendschedule": single,
        "energyratestructure": [[{"rate": 0.20, "max": 20000.0, "unit": "kWh"}, {"rate": 0.08, "unit": "kWh"}]],
        "demandweekdayschedule": single, "demandweekendschedule": single,
        "demandratestructure": [[{"rate": 15.0, "unit": "kW"}]],
    });
    let load: Vec<f64> = (0..8760).map(|hour| 40.0 + if (17..20).contains(&(hour % 24)) { 60.0 } else { 0.0 }).collect();
    let scenario = json!({
        "Site": {"latitude": 34.58, "longitude": -118.12},
        "ElectricLoad": {"loads_kw": load, "year": 2017},
        "ElectricTariff": {"urdb_response": rate},
        "ElectricStorage": {"max_kw": 200, "max_kwh": 800, "installed_cost_constant": 0, "installed_cost_per_kw": 300, "installed_cost_per_kwh": 200},
    });
    let started = Instant::now();
    let (model, run) = solve(&scenario);
    assert!(started.elapsed() < Duration::from_secs(60));
    let d = &run.optimal.dispatch;
    let mut tiers = [[0.0f64; 2]; 12];
    for t in 0..model.steps() {
        let month = model.tariff.month_of_step[t] as usize;
        tiers[month][0] += d.grid_by_tier[0][t];
        tiers[month][1] += d.grid_by_tier[1][t];
    }
    for (month, [first, second]) in tiers.iter().enumerate() {
        assert!(*second <= 1e-6 || *first >= 20_000.0 - 1e-3, "month {month}: tier 2 used ({second} kWh) before tier 1 is full ({first} kWh)");
    }
    assert!(tiers.iter().any(|[_, second]| *second > 1.0), "the cheap tier is reached");
}

/// Rates in VND (thousands per kWh) on a 30 MW site with PV and storage: the objective's scale
/// is that of the currency, and the program still solves to optimal.
#[test]
fn a_site_priced_in_thousands_per_kwh_solves() {
    let load: Vec<f64> = (0..8760).map(|hour| 25_000.0 + 10_000.0 * ((hour % 24) as f64 / 24.0 * std::f64::consts::PI).sin()).collect();
    let tou: Vec<f64> = (0..8760).map(|hour| if (9..12).contains(&(hour % 24)) || (17..20).contains(&(hour % 24)) { 3266.0 } else if hour % 24 < 4 { 1146.0 } else { 1811.0 }).collect();
    let scenario = json!({
        "Site": {"latitude": 10.8, "longitude": 106.7},
        "Financial": {"offtaker_discount_rate_fraction": 0.08, "owner_discount_rate_fraction": 0.08, "elec_cost_escalation_rate_fraction": 0.03},
        "ElectricLoad": {"loads_kw": load, "year": 2022},
        "ElectricTariff": {"tou_energy_rates_per_kwh": tou},
        "PV": {"max_kw": 20000, "installed_cost_per_kw": 18_000_000.0, "om_cost_per_kw": 250_000.0, "federal_itc_fraction": 0.0,
               "macrs_option_years": 0, "production_factor_series": daylight_production()},
        "ElectricStorage": {"max_kw": 10000, "max_kwh": 40000, "installed_cost_per_kw": 5_000_000.0, "installed_cost_per_kwh": 6_000_000.0,
                            "installed_cost_constant": 0, "total_itc_fraction": 0.0, "macrs_option_years": 0},
    });
    let (_, run) = solve(&scenario);
    assert!(run.optimal.lp_lifecycle_cost() > 1.0e11, "lcc {}", run.optimal.lp_lifecycle_cost());
}

/// 8,000 outage starts of 48 h each are refused by name before anything is built.
#[test]
fn eight_thousand_outage_starts_are_refused_at_once() {
    let starts: Vec<usize> = (1..=8000).collect();
    let scenario = json!({
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 876_000.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 10.0},
        "ElectricUtility": {"outage_start_time_steps": starts, "outage_durations": [48]},
    });
    let started = Instant::now();
    let refused = solve_scenario(&scenario, &SolveControl::default());
    assert!(started.elapsed() < Duration::from_secs(1));
    match refused {
        Err(InProcessError::Refused(reasons)) => assert!(reasons[0].contains("outage_start_time_steps"), "{reasons:?}"),
        other => panic!("must be refused: {other:?}"),
    }
}

/// `solve_scenario` refuses what the service would fetch, naming it.
#[test]
fn in_process_runs_refuse_data_the_scenario_does_not_hold() {
    let scenario = json!({
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 876_000.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 10.0},
        "PV": {"max_kw": 100},
    });
    match solve_scenario(&scenario, &SolveControl::default()) {
        Err(InProcessError::Refused(reasons)) => assert!(reasons.iter().any(|r| r.contains("production_factor_series")), "{reasons:?}"),
        other => panic!("must be refused: {other:?}"),
    }
}

/// With nothing on site to size, each month's purchase is its load: the months whose load passes
/// 20,000 kWh fill the first tier and buy the rest in the cheap one (their choice is decided
/// without a binary), the others stay in the first tier.
#[test]
fn a_falling_tier_is_decided_by_each_months_load() {
    let single = json!(vec![vec![0; 24]; 12]);
    let rate = json!({
        "energyweekdayschedule": single, "energyweekendschedule": single,
        "energyratestructure": [[{"rate": 0.20, "max": 20000.0, "unit": "kWh"}, {"rate": 0.08, "unit": "kWh"}]],
    });
    let load: Vec<f64> = (0..8760).map(|hour| if (hour / 24) % 60 < 30 { 45.0 } else { 20.0 }).collect();
    let scenario = json!({
        "Site": {"latitude": 34.58, "longitude": -118.12},
        "ElectricLoad": {"loads_kw": load, "year": 2017},
        "ElectricTariff": {"urdb_response": rate},
    });
    let (model, run) = solve(&scenario);
    let d = &run.optimal.dispatch;
    let mut bought = [[0.0f64; 2]; 12];
    let mut load_by_month = [0.0f64; 12];
    for t in 0..model.steps() {
        let month = model.tariff.month_of_step[t] as usize;
        bought[month][0] += d.grid_by_tier[0][t];
        bought[month][1] += d.grid_by_tier[1][t];
        load_by_month[month] += model.load_kw[t];
    }
    for month in 0..12 {
        let expected = [load_by_month[month].min(20_000.0), (load_by_month[month] - 20_000.0).max(0.0)];
        for tier in 0..2 {
            assert!((bought[month][tier] - expected[tier]).abs() < 1e-3, "month {month} tier {tier}: {} kWh, expected {}", bought[month][tier], expected[tier]);
        }
    }
    assert!(bought.iter().any(|[_, cheap]| *cheap > 1.0) && bought.iter().any(|[_, cheap]| *cheap < 1e-6), "both kinds of month occur");
}

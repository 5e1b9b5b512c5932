//! Optimality checks of the embedded optimizer that cannot pass by accident, an independent
//! recomputation of the lifecycle cost from the returned body, per-step energy balances, the
//! job flow, and a one-year timing printout (8760 × 1, 2, 4 steps).
//!
//! Every solve holds `SOLVER` so that timings are not disturbed by the other tests. In a debug
//! build (plain `cargo test`) the solver's generic code is unoptimized and about ten times
//! slower: the timing limit is then not asserted and the sub-hourly solves are skipped.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sunflux::embedded::optimizer::{endpoint, JobStore, JobStoreConfig, Lookup, Submission};
use sunflux::optimizer::{from_scenario, optimize, outputs, Model, ScenarioError, SolveControl};
use crate::support::numbers;

static SOLVER: Mutex<()> = Mutex::new(());

const YEARS: u32 = 20;
const DISCOUNT: f64 = 0.06;
const ELEC_ESCALATION: f64 = 0.02;
const OM_ESCALATION: f64 = 0.025;
const TAX: f64 = 0.25;
const MONTH_DAYS: [usize; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/// Deterministic PV production factor: a half sine between 06:00 and 18:00, 20 % stronger in summer.
fn synthetic_production_factor() -> Vec<f64> {
    (0..8760)
        .map(|hour| {
            let h = (hour % 24) as f64;
            let day = (hour / 24) as f64;
            let season = 0.9 + 0.1 * ((day - 172.0) / 365.0 * std::f64::consts::TAU).cos();
            if (6.0..18.0).contains(&h) {
                0.8 * season * ((h - 6.0) / 12.0 * std::f64::consts::PI).sin()
            } else {
                0.0
            }
        })
        .collect()
}

fn financial() -> Value {
    json!({
        "analysis_years": YEARS,
        "offtaker_discount_rate_fraction": DISCOUNT,
        "elec_cost_escalation_rate_fraction": ELEC_ESCALATION,
        "om_cost_escalation_rate_fraction": OM_ESCALATION,
        "offtaker_tax_rate_fraction": TAX,
    })
}

/// A flat 100 kW load, blended tariff, no PV or storage yet.
fn base_scenario(energy_rate: f64, demand_rate: f64) -> Value {
    json!({
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "Financial": financial(),
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 876_000.0},
        "ElectricTariff": {"blended_annual_energy_rate": energy_rate, "blended_annual_demand_rate": demand_rate},
    })
}

fn pv(installed_cost: f64, om: f64, max_kw: f64) -> Value {
    json!({
        "installed_cost_per_kw": installed_cost, "om_cost_per_kw": om, "max_kw": max_kw,
        "federal_itc_fraction": 0.0, "macrs_option_years": 0, "degradation_fraction": 0.0,
    })
}

fn storage(cost_constant: f64) -> Value {
    json!({"installed_cost_constant": cost_constant})
}

struct Solved {
    model: Model,
    run: sunflux::optimizer::Optimized,
    outputs: Value,
}

fn solve(scenario: &Value) -> Solved {
    let _guard = SOLVER.lock().unwrap_or_else(|p| p.into_inner());
    let production = synthetic_production_factor();
    let model = from_scenario(scenario, &[Some(production)]).expect("supported scenario");
    let run = optimize(&model, &SolveControl::default()).expect("optimal");
    let outputs = outputs::optimal_outputs(&model, &run);
    Solved { model, run, outputs }
}

fn pwf(escalation: f64) -> f64 {
    (1..=YEARS).map(|y| ((1.0 + escalation) / (1.0 + DISCOUNT)).powi(y as i32)).sum()
}

fn relative_gap(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1.0)
}

/// $ present value of the energy one kW of PV saves when all of it is used on site.
fn pv_value_per_kw(energy_rate: f64) -> f64 {
    let annual_kwh_per_kw: f64 = synthetic_production_factor().iter().sum();
    pwf(ELEC_ESCALATION) * (1.0 - TAX) * energy_rate * annual_kwh_per_kw
}

#[test]
fn free_pv_with_net_metering_goes_to_its_maximum() {
    for max_kw in [60.0, 150.0] {
        let mut scenario = base_scenario(0.12, 0.0);
        scenario["PV"] = pv(0.0, 0.0, max_kw);
        scenario["ElectricUtility"] = json!({"net_metering_limit_kw": 1000.0, "interconnection_limit_kw": 1000.0});
        let solved = solve(&scenario);
        let size = solved.outputs["PV"]["size_kw"].as_f64().unwrap();
        assert!(relative_gap(size, max_kw) < 1e-5, "PV {size} kW, max {max_kw} kW");
    }
}

#[test]
fn pv_dearer_than_the_energy_it_saves_is_not_built_and_cheaper_pv_is() {
    let value = pv_value_per_kw(0.10);
    for (cost, expect_built) in [(1.05 * value, false), (0.95 * value, true)] {
        let mut scenario = base_scenario(0.10, 0.0);
        scenario["PV"] = pv(cost, 0.0, 50.0);
        let solved = solve(&scenario);
        let size = solved.outputs["PV"]["size_kw"].as_f64().unwrap();
        if expect_built {
            assert!(relative_gap(size, 50.0) < 1e-5, "PV at {cost:.0} $/kW should fill its 50 kW, got {size}");
        } else {
            assert!(size < 1e-4, "PV at {cost:.0} $/kW (value {value:.0}) should be 0, got {size}");
        }
    }
}

/// A 50 kW base with a one-hour 100 kW spike at 17:00 every day.
fn spiky_load() -> Vec<f64> {
    (0..8760).map(|h| if h % 24 == 17 { 150.0 } else { 50.0 }).collect()
}

fn storage_scenario(tariff: Value) -> Value {
    json!({
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "Financial": financial(),
        "ElectricLoad": {"loads_kw": spiky_load(), "year": 2017},
        "ElectricTariff": tariff,
        "ElectricStorage": storage(0.0),
    })
}

#[test]
fn storage_is_built_only_when_demand_charges_or_a_tou_spread_pay_for_it() {
    let flat = solve(&storage_scenario(json!({"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 0.0})));
    let flat_kwh = flat.outputs["ElectricStorage"]["size_kwh"].as_f64().unwrap();
    assert!(flat_kwh < 1e-3, "no reason to store energy on a flat rate, got {flat_kwh} kWh");

    let demand = solve(&storage_scenario(json!({"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 25.0})));
    let demand_kw = demand.outputs["ElectricStorage"]["size_kw"].as_f64().unwrap();
    assert!(demand_kw > 10.0, "demand charges should pay for storage, got {demand_kw} kW");
    let peaks = outputs::monthly_peaks(&demand.model, &demand.run.optimal.dispatch);
    assert!(peaks.iter().all(|&p| p < 150.0 - 10.0), "storage should shave the spikes: {peaks:?}");

    let tou: Vec<f64> = (0..8760).map(|h| if (16..20).contains(&(h % 24)) { 0.60 } else { 0.05 }).collect();
    let spread = solve(&storage_scenario(json!({"tou_energy_rates_per_kwh": tou})));
    let spread_kwh = spread.outputs["ElectricStorage"]["size_kwh"].as_f64().unwrap();
    assert!(spread_kwh > 10.0, "a 0.05/0.60 TOU spread should pay for storage, got {spread_kwh} kWh");
}

/// A full scenario: PV with ITC and MACRS, storage with its cost constant, TOU energy and
/// monthly demand rates, net metering below the interconnection limit.
fn full_scenario(steps_per_hour: usize) -> Value {
    let tou: Vec<f64> = (0..8760).map(|h| if (16..21).contains(&(h % 24)) { 0.32 } else { 0.11 }).collect();
    json!({
        "Settings": {"time_steps_per_hour": steps_per_hour},
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "Financial": financial(),
        "ElectricLoad": {"doe_reference_name": "FlatLoad_16_7", "annual_kwh": 900_000.0},
        "ElectricTariff": {"tou_energy_rates_per_kwh": tou, "monthly_demand_rates": vec![18.0; 12]},
        "ElectricUtility": {"net_metering_limit_kw": 200.0},
        "PV": {"installed_cost_per_kw": 1500.0, "om_cost_per_kw": 16.0, "max_kw": 400.0,
               "federal_itc_fraction": 0.3, "macrs_option_years": 5, "macrs_bonus_fraction": 1.0},
        "ElectricStorage": {"installed_cost_constant": 20_000.0},
    })
}

/// The hourly full scenario, solved once for the tests that read it.
fn full_hourly() -> &'static (Value, Solved) {
    static SOLVED: OnceLock<(Value, Solved)> = OnceLock::new();
    SOLVED.get_or_init(|| {
        let scenario = full_scenario(1);
        let solved = solve(&scenario);
        (scenario, solved)
    })
}

const OPTIMIZED_BUILD: bool = !cfg!(debug_assertions);

/// npc of 1 $ of ITC- and bonus-depreciation-eligible cost (MACRS with 100 % bonus: all
/// depreciation in year 1, basis reduced by half the ITC).
fn npc_after_itc_and_bonus(cost: f64, itc: f64) -> f64 {
    cost - (TAX * cost * (1.0 - 0.5 * itc) + itc * cost) / (1.0 + DISCOUNT)
}

/// The lifecycle cost recomputed from the body alone (sizes, series) and the scenario's prices.
fn lcc_from_body(outputs: &Value, scenario: &Value, steps_per_hour: usize) -> f64 {
    let dt = 1.0 / steps_per_hour as f64;
    let pv_kw = outputs["PV"]["size_kw"].as_f64().unwrap();
    let kw = outputs["ElectricStorage"]["size_kw"].as_f64().unwrap();
    let kwh = outputs["ElectricStorage"]["size_kwh"].as_f64().unwrap();
    let built = kwh > 0.0;
    let constant = if built { 20_000.0 } else { 0.0 };
    let capital = npc_after_itc_and_bonus(1500.0, 0.3) * pv_kw
        + npc_after_itc_and_bonus(968.0, 0.3) * kw
        + npc_after_itc_and_bonus(253.0, 0.3) * kwh
        + npc_after_itc_and_bonus(constant, 0.3);
    let om = pwf(OM_ESCALATION) * (1.0 - TAX) * (16.0 * pv_kw + 0.025 * (968.0 * kw + 253.0 * kwh + constant));
    let tou = numbers(&scenario["ElectricTariff"]["tou_energy_rates_per_kwh"]);
    let rate = |t: usize| tou[t / steps_per_hour];
    let grid_load = numbers(&outputs["ElectricUtility"]["electric_to_load_series_kw"]);
    let grid_storage = numbers(&outputs["ElectricUtility"]["electric_to_storage_series_kw"]);
    let exported = numbers(&outputs["PV"]["electric_to_grid_series_kw"]);
    let purchase = |t: usize| grid_load[t] + grid_storage[t];
    let energy: f64 = (0..grid_load.len()).map(|t| dt * rate(t) * purchase(t)).sum();
    let credit: f64 = (0..grid_load.len()).map(|t| dt * 0.999 * rate(t) * exported[t]).sum();
    let mut demand = 0.0;
    let mut start = 0;
    for days in MONTH_DAYS {
        let end = start + days * 24 * steps_per_hour;
        demand += 18.0 * (start..end).map(purchase).fold(0.0, f64::max);
        start = end;
    }
    capital + om + pwf(ELEC_ESCALATION) * (1.0 - TAX) * (energy + demand - credit)
}

#[test]
fn the_lp_objective_equals_the_lifecycle_cost_recomputed_from_the_body() {
    let (scenario, solved) = full_hourly();
    let recomputed = lcc_from_body(&solved.outputs, scenario, 1);
    let lp = solved.run.optimal.lp_lifecycle_cost();
    let reported = solved.outputs["Financial"]["lcc"].as_f64().unwrap();
    assert!(relative_gap(lp, recomputed) < 1e-5, "LP {lp:.2} vs recomputed {recomputed:.2}");
    assert!(relative_gap(reported, recomputed) < 1e-5, "reported {reported:.2} vs recomputed {recomputed:.2}");
    let lcc_bau = solved.outputs["Financial"]["lcc_bau"].as_f64().unwrap();
    let npv = solved.outputs["Financial"]["npv"].as_f64().unwrap();
    assert!((npv - (lcc_bau - reported)).abs() < 0.02);
    assert!(npv > 0.0, "the optimal case cannot cost more than business as usual");
}

/// The service's own check ("Solar and ElectricStorage w/BAU and degradation" in REopt.jl's
/// `test/runtests.jl`): the pro forma's optimal less BAU free cash flows, discounted at the
/// offtaker's rate, give the reported `npv` (rtol 1e-4; the flows are rounded to cents).
#[test]
fn the_pro_forma_cash_flows_discount_to_the_reported_npv() {
    let (_, solved) = full_hourly();
    let financial = &solved.outputs["Financial"];
    let optimal = numbers(&financial["offtaker_annual_free_cashflows"]);
    let bau = numbers(&financial["offtaker_annual_free_cashflows_bau"]);
    assert_eq!(optimal.len(), YEARS as usize + 1);
    let net: Vec<f64> = optimal.iter().zip(&bau).map(|(o, b)| o - b).collect();
    let from_flows = sunflux::optimizer::proforma::npv(&net, DISCOUNT);
    let npv = financial["npv"].as_f64().unwrap();
    assert!(relative_gap(from_flows, npv) < 1e-4, "pro forma NPV {from_flows:.2} vs npv {npv:.2}");
    let payback = financial["simple_payback_years"].as_f64().unwrap();
    let irr = financial["internal_rate_of_return"].as_f64().unwrap();
    assert!(payback > 0.0 && payback < YEARS as f64, "payback {payback}");
    assert!(irr > DISCOUNT, "a positive NPV at {DISCOUNT} needs an IRR above it, got {irr}");
    let lcoe = solved.outputs["PV"]["lcoe_per_kwh"].as_f64().unwrap();
    assert!(lcoe > 0.0 && lcoe < 0.11, "PV built against 0.11 $/kWh energy costs less than that: {lcoe}");
}

/// The monthly bill series (REopt.jl `electric_tariff.jl`) add up to the year-one parts.
#[test]
fn the_monthly_bill_series_add_up_to_the_year_one_bill() {
    let (_, solved) = full_hourly();
    let tariff = &solved.outputs["ElectricTariff"];
    let total = |key: &str| numbers(&tariff[key]).iter().sum::<f64>();
    for (monthly, year_one) in [
        ("monthly_energy_cost_series_before_tax", "year_one_energy_cost_before_tax"),
        ("monthly_demand_cost_series_before_tax", "year_one_demand_cost_before_tax"),
        ("monthly_fixed_cost_series_before_tax", "year_one_fixed_cost_before_tax"),
    ] {
        let year_one = tariff[year_one].as_f64().unwrap();
        assert!((total(monthly) - year_one).abs() < 0.07, "{monthly}: {} vs {year_one}", total(monthly));
    }
    assert_eq!(total("monthly_tou_demand_cost_series_before_tax"), 0.0);
    assert!((total("monthly_facility_demand_cost_series_before_tax") - total("monthly_demand_cost_series_before_tax")).abs() < 1e-9);
}

/// `Site`'s on-site renewable electricity (REopt.jl `add_re_elec_calcs`), recomputed from the
/// body's PV series: to load, to grid (exports count by default), and to storage less the
/// round-trip loss; without the exports when `include_exported_renewable_electricity_in_total`
/// is false.
#[test]
fn the_onsite_renewable_electricity_is_what_pv_delivers() {
    let (_, solved) = full_hourly();
    let pv = &solved.outputs["PV"];
    let storage = solved.model.storage.as_ref().expect("storage in the scenario");
    let round_trip = storage.charge_efficiency() * storage.discharge_efficiency();
    let to_grid: f64 = numbers(&pv["electric_to_grid_series_kw"]).iter().sum();
    let delivered: f64 = numbers(&pv["electric_to_load_series_kw"]).iter().sum::<f64>()
        + to_grid
        + round_trip * numbers(&pv["electric_to_storage_series_kw"]).iter().sum::<f64>();
    let site = &solved.outputs["Site"];
    let kwh = site["annual_onsite_renewable_electricity_kwh"].as_f64().unwrap();
    assert!(relative_gap(kwh, delivered) < 1e-6, "{kwh} vs {delivered}");
    let load = solved.outputs["ElectricLoad"]["annual_calculated_kwh"].as_f64().unwrap();
    let fraction = site["onsite_renewable_electricity_fraction_of_elec_load"].as_f64().unwrap();
    assert!((fraction - kwh / load).abs() < 1e-4, "{fraction} vs {}", kwh / load);
    assert_eq!(site["annual_onsite_renewable_electricity_kwh_bau"].as_f64(), Some(0.0));
    let mut without_exports = solved.model.clone();
    without_exports.settings.include_exported_renewable_electricity_in_total = false;
    let onsite_only = outputs::renewables::onsite_renewable_kwh(&without_exports, &solved.run.optimal);
    assert!(relative_gap(onsite_only, delivered - to_grid) < 1e-6, "{onsite_only} vs {}", delivered - to_grid);
}

#[test]
fn the_business_as_usual_cost_is_the_bill_of_the_plain_load() {
    let (scenario, solved) = full_hourly();
    let tou = numbers(&scenario["ElectricTariff"]["tou_energy_rates_per_kwh"]);
    let load = &solved.model.load_kw;
    let energy: f64 = load.iter().zip(&tou).map(|(kw, r)| kw * r).sum();
    let mut demand = 0.0;
    let mut start = 0;
    for days in MONTH_DAYS {
        demand += 18.0 * load[start..start + days * 24].iter().fold(0.0f64, |a, &b| a.max(b));
        start += days * 24;
    }
    let expected = pwf(ELEC_ESCALATION) * (1.0 - TAX) * (energy + demand);
    let lcc_bau = solved.outputs["Financial"]["lcc_bau"].as_f64().unwrap();
    assert!(relative_gap(lcc_bau, expected) < 1e-6, "BAU {lcc_bau:.2} vs bill {expected:.2}");
}

fn assert_balances(solved: &Solved, steps_per_hour: usize) {
    let o = &solved.outputs;
    let dt = 1.0 / steps_per_hour as f64;
    let load = numbers(&o["ElectricLoad"]["load_series_kw"]);
    let pv_load = numbers(&o["PV"]["electric_to_load_series_kw"]);
    let pv_storage = numbers(&o["PV"]["electric_to_storage_series_kw"]);
    let pv_grid = numbers(&o["PV"]["electric_to_grid_series_kw"]);
    let pv_curtailed = numbers(&o["PV"]["electric_curtailed_series_kw"]);
    let factor = numbers(&o["PV"]["production_factor_series"]);
    let storage_load = numbers(&o["ElectricStorage"]["storage_to_load_series_kw"]);
    let grid_load = numbers(&o["ElectricUtility"]["electric_to_load_series_kw"]);
    let grid_storage = numbers(&o["ElectricUtility"]["electric_to_storage_series_kw"]);
    let soc = numbers(&o["ElectricStorage"]["soc_series_fraction"]);
    let size_kw = o["PV"]["size_kw"].as_f64().unwrap();
    let kwh = o["ElectricStorage"]["size_kwh"].as_f64().unwrap();
    let annual = o["PV"]["annual_energy_produced_kwh"].as_f64().unwrap();
    let year_one = o["PV"]["year_one_energy_produced_kwh"].as_f64().unwrap();
    let levelization = annual / year_one;
    let (eta_c, eta_d) = (0.96 * 0.975f64.sqrt(), 0.96 * 0.975f64.sqrt());
    assert_eq!(load.len(), 8760 * steps_per_hour);
    for t in 0..load.len() {
        let served = pv_load[t] + storage_load[t] + grid_load[t];
        assert!((served - load[t]).abs() < 1e-4, "step {t}: served {served} vs load {}", load[t]);
        let produced = factor[t] * size_kw * levelization;
        let used = pv_load[t] + pv_storage[t] + pv_grid[t] + pv_curtailed[t];
        assert!((used - produced).abs() < 1e-4, "step {t}: PV used {used} vs produced {produced}");
        if kwh > 0.0 && t > 0 {
            let expected = soc[t - 1] * kwh + dt * (eta_c * (pv_storage[t] + grid_storage[t]) - storage_load[t] / eta_d);
            assert!((soc[t] * kwh - expected).abs() < 1e-3 * kwh.max(1.0), "step {t}: state of charge");
        }
    }
}

#[test]
fn energy_balances_hold_in_every_step() {
    let (_, hourly) = full_hourly();
    assert!(hourly.outputs["ElectricStorage"]["size_kwh"].as_f64().unwrap() > 0.0, "the full scenario builds storage");
    assert_balances(hourly, 1);
    if OPTIMIZED_BUILD {
        assert_balances(&solve(&full_scenario(2)), 2);
    }
}

#[test]
fn unsupported_scenarios_name_every_unsupported_part() {
    let mut scenario = base_scenario(0.1, 0.0);
    scenario["Wind"] = json!({"max_kw": 50});
    scenario["CST"] = json!({"max_kw": 50});
    scenario["CHP"] = json!({"max_kw": 50, "follow_electrical_load": true});
    scenario["ElectricStorage"] = json!({"dispatch_strategy": "peak_shaving"});
    scenario["ElectricLoad"] = json!({"doe_reference_name": "RetailStore", "annual_kwh": 1e5});
    scenario["Generator"] = json!({"production_incentive_per_kwh": 0.01});
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be unsupported") };
    let message = found.message();
    for part in ["Wind without production_factor_series", "CST without production_factor", "CHP.follow_electrical_load=true", "ElectricStorage.dispatch_strategy=peak_shaving", "doe_reference_name=RetailStore", "Generator.production_incentive_per_kwh"] {
        assert!(message.contains(part), "{part} not named in: {message}");
    }
}

fn poll(store: &JobStore, id: &str, limit: Duration) -> (String, Value) {
    let started = Instant::now();
    loop {
        if let Lookup::Found { status, body } = store.lookup(id) {
            if status != "Optimizing..." || started.elapsed() > limit {
                return (status, body);
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn jobs_go_from_optimizing_to_optimal_or_to_the_contract_errors() {
    let _guard = SOLVER.lock().unwrap_or_else(|p| p.into_inner());
    let store = JobStore::new(JobStoreConfig::default());
    let mut scenario = base_scenario(0.1, 10.0);
    scenario["PV"] = pv(1000.0, 10.0, 100.0);
    let submission = Submission { scenario, pv_production: vec![Some(synthetic_production_factor())], ..Submission::default() };
    let created = endpoint::post_job_reply(&store, submission, &json!({}));
    assert_eq!(created.status, 201);
    let id = serde_json::from_slice::<Value>(&created.body).unwrap()["run_uuid"].as_str().unwrap().to_string();
    let (status, body) = poll(&store, &id, Duration::from_secs(60));
    assert_eq!(status, "optimal");
    for key in ["run_uuid", "api_version", "status", "created", "inputs", "outputs", "messages"] {
        assert!(body.get(key).is_some(), "{key} missing");
    }
    assert!(body["outputs"]["PV"]["size_kw"].as_f64().is_some());
    assert_eq!(body["inputs"]["Financial"]["owner_tax_rate_fraction"], json!(TAX));

    let mut unsupported = base_scenario(0.1, 0.0);
    unsupported["CHP"] = json!({"fuel_cost_per_mmbtu": 10, "follow_electrical_load": true});
    let id = store.submit(Submission { scenario: unsupported, ..Submission::default() });
    let (status, body) = poll(&store, &id, Duration::from_secs(10));
    assert_eq!(status, "An error occurred. See messages for more.");
    assert!(body["messages"]["error"].as_str().unwrap().contains("CHP.follow_electrical_load=true"));
    assert_eq!(endpoint::results_reply(&store, &id).status, 200);

    let mut invalid = base_scenario(0.1, 0.0);
    invalid["ElectricLoad"] = json!({"loads_kw": vec![10.0; 8760]});
    let id = store.submit(Submission { scenario: invalid, ..Submission::default() });
    let (status, _) = poll(&store, &id, Duration::from_secs(10));
    assert_eq!(status, "error");
    assert_eq!(endpoint::results_reply(&store, &id).status, 400);
}

/// PV + storage + TOU energy and demand rates, without net metering (one binary choice: the
/// storage cost constant).
fn pv_storage_tariff_scenario(steps_per_hour: usize) -> Value {
    let mut scenario = full_scenario(steps_per_hour);
    scenario.as_object_mut().unwrap().remove("ElectricUtility");
    scenario
}

fn timed(scenario: &Value) -> (f64, Solved) {
    let started = Instant::now();
    let solved = solve(scenario);
    (started.elapsed().as_secs_f64(), solved)
}

fn report(label: &str, seconds: f64, solved: &Solved) {
    let stats = solved.run.optimal.stats;
    println!(
        "  {label}: {seconds:.2} s for {} LPs; storage LP {} variables, {} rows, {} iterations, {:.2} s",
        solved.run.cases_tried.len(),
        stats.variables,
        stats.rows,
        stats.iterations,
        stats.seconds
    );
}

#[test]
fn timing_of_one_year_for_one_two_and_four_steps_per_hour() {
    println!("one-year PV + storage + TOU/demand tariff (optimal cases and BAU):");
    let resolutions: &[usize] = if OPTIMIZED_BUILD { &[1, 2, 4] } else { &[1] };
    for &steps_per_hour in resolutions {
        let (seconds, solved) = timed(&pv_storage_tariff_scenario(steps_per_hour));
        report(&format!("8760 x {steps_per_hour}"), seconds, &solved);
        if steps_per_hour == 1 && OPTIMIZED_BUILD {
            assert!(seconds < 10.0, "a one-year hourly PV + storage + tariff problem must solve in under 10 s, took {seconds:.1} s");
        }
    }
    if OPTIMIZED_BUILD {
        let (seconds, solved) = timed(&full_scenario(1));
        report("8760 x 1 with net metering (both net-metering cases)", seconds, &solved);
    } else {
        println!("  (debug build: unoptimized solver, limit not asserted; run with --release for the benchmark)");
    }
}

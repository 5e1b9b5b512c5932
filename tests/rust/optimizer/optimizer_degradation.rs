//! Battery degradation (`ElectricStorage.model_degradation`, REopt.jl `battery_degradation.jl`):
//! the anchor "Solar and ElectricStorage w/BAU and degradation" (`test/runtests.jl`) on our own
//! scenario, the state of health checked day by day against the service's rows, the maintenance
//! costs of augmentation and replacement checked by hand, the reader's checks, and degradation
//! off leaving today's results as they were.
//!
//! The anchor's scenario is `pv_storage.json`: a RetailStore load of 10 GWh a year on a URDB
//! tariff, PV from the service's weather at Palmdale, and the testset's storage and financial
//! inputs. Its sizes, LCOE, lcc and lcc_bau depend on that weather, reference load and tariff,
//! none of which we have; they do not carry over. What carries over is the degradation check
//! itself, a relation: with degradation (default augmentation, the second run's default
//! settings) the year's average state of charge is lower than without it (first run, no SOC
//! incentive). The storage and financial inputs below are the testset's; load, tariff and PV
//! production are made here. The hand checks use short analysis periods (one and two years:
//! 365 and 730 days of state of health) to keep the debug-build solves short; the anchor uses
//! the testset's 20 years (7,300 days).

use serde_json::{json, Value};
use sunflux::optimizer::lp::degradation::DegradationDispatch;
use sunflux::optimizer::lp::{build, CostFactors};
use sunflux::optimizer::outputs::cost_breakdown;
use sunflux::optimizer::run::optimal_cases;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{daytime_production, isapprox, number, series, solve};

const STEPS: usize = 8760;

/// A store-like load: 600 kW at night, 1,400 kW from 08:00 to 20:00.
fn load() -> Vec<f64> {
    (0..STEPS).map(|h| if (8..20).contains(&(h % 24)) { 1400.0 } else { 600.0 }).collect()
}

/// Cheap nights, dear afternoons and a $15/kW demand charge: storage and PV both pay.
fn tariff() -> Value {
    let periods: Vec<Vec<u32>> = (0..12).map(|_| (0..24).map(|h| u32::from((14..20).contains(&h))).collect()).collect();
    let single: Vec<Vec<u32>> = (0..12).map(|_| vec![0; 24]).collect();
    json!({"urdb_response": {
        "energyweekdayschedule": periods, "energyweekendschedule": periods,
        "energyratestructure": [[{"rate": 0.08, "unit": "kWh"}], [{"rate": 0.30, "unit": "kWh"}]],
        "demandweekdayschedule": single, "demandweekendschedule": single,
        "demandratestructure": [[{"rate": 15.0, "unit": "kW"}]],
    }})
}

/// The testset's storage and financial inputs on our load, tariff and PV production.
fn pv_storage(analysis_years: u32) -> Value {
    json!({
        "Site": {"latitude": 34.5794343, "longitude": -118.1164613},
        "Settings": {"add_soc_incentive": false},
        "ElectricLoad": {"loads_kw": load(), "year": 2017},
        "ElectricTariff": tariff(),
        "PV": {"max_kw": 400.0, "installed_cost_per_kw": 2000.0, "om_cost_per_kw": 16.0, "macrs_option_years": 5,
               "macrs_bonus_fraction": 0.4, "macrs_itc_reduction": 0.5, "federal_itc_fraction": 0.3, "federal_rebate_per_kw": 350.0,
               "degradation_fraction": 0.005, "production_factor_series": daytime_production(0.8)},
        "ElectricStorage": {"total_rebate_per_kw": 100.0, "macrs_option_years": 5, "can_grid_charge": true, "macrs_bonus_fraction": 0.4,
                            "replace_cost_per_kw": 460.0, "replace_cost_per_kwh": 230.0, "replace_cost_constant": 0.0,
                            "installed_cost_per_kw": 1000.0, "installed_cost_per_kwh": 500.0, "installed_cost_constant": 0.0,
                            "om_cost_fraction_of_installed_cost": 0.0, "total_itc_fraction": 0.0},
        "Financial": {"elec_cost_escalation_rate_fraction": 0.026, "offtaker_discount_rate_fraction": 0.081,
                      "owner_discount_rate_fraction": 0.081, "analysis_years": analysis_years, "offtaker_tax_rate_fraction": 0.4,
                      "owner_tax_rate_fraction": 0.4, "om_cost_escalation_rate_fraction": 0.025},
    })
}

fn with_degradation(mut scenario: Value, degradation: Value) -> Value {
    scenario["ElectricStorage"]["model_degradation"] = json!(true);
    scenario["ElectricStorage"]["degradation"] = degradation;
    scenario
}

/// Storage of a given size: over the short analysis periods of the hand checks it would not pay.
fn fix_size(scenario: &mut Value, kw: f64, kwh: f64) {
    for (field, value) in [("min_kw", kw), ("max_kw", kw), ("min_kwh", kwh), ("max_kwh", kwh)] {
        scenario["ElectricStorage"][field] = json!(value);
    }
}

fn average(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The service's maintenance $/kWh list c_1..c_{D−1}: installed $/kWh · ((1 − r_g)/(1 + r_d))^(k/365).
fn maintenance_costs(installed: f64, declination: f64, discount: f64, days: usize) -> Vec<f64> {
    (1..days).map(|k| installed * ((1.0 - declination) / (1.0 + discount)).powf(k as f64 / 365.0)).collect()
}

/// The lifecycle cost the outputs report is the program's objective (the SOC incentive aside).
fn assert_lcc_is_the_objective(run: &sunflux::optimizer::Optimized, body: &Value) {
    let objective = run.optimal.lp_objective - run.optimal.soc_incentive;
    let lcc = number(body, "Financial", "lcc");
    assert!(isapprox(lcc, objective, 1e-6, 1.0), "lcc {lcc} vs objective {objective}");
}

/// "Solar and ElectricStorage w/BAU and degradation": the average state of charge falls when
/// degradation is modelled (0.6966 without, 0.6012 with on this scenario); the degraded run
/// reports 7,300 days of state of health from 1.0 down, a positive maintenance cost and no
/// residual value (augmentation), and its lcc is its objective with the maintenance cost in it.
#[test]
fn solar_and_storage_with_bau_and_degradation() {
    let plain = pv_storage(20);
    let (_, _, body) = solve(&plain);
    assert!(number(&body, "ElectricStorage", "size_kwh") > 0.0);
    assert!(body["ElectricStorage"].get("state_of_health").is_none());
    let avg_soc_no_degr = average(&series(&body, "ElectricStorage", "soc_series_fraction"));

    let mut degraded = with_degradation(pv_storage(20), Value::Null);
    degraded["Settings"] = json!({});
    let (_, run, r_degr) = solve(&degraded);
    let avg_soc_degr = average(&series(&r_degr, "ElectricStorage", "soc_series_fraction"));
    assert!(avg_soc_no_degr > avg_soc_degr, "{avg_soc_no_degr} vs {avg_soc_degr}");
    eprintln!("average SOC {avg_soc_no_degr:.4} without, {avg_soc_degr:.4} with degradation");

    let health = series(&r_degr, "ElectricStorage", "state_of_health");
    assert_eq!(health.len(), 7300);
    assert_eq!(health[0], 1.0);
    assert!(health.windows(2).all(|w| w[1] <= w[0]));
    assert!(number(&r_degr, "ElectricStorage", "maintenance_cost") > 0.0);
    assert_eq!(number(&r_degr, "ElectricStorage", "residual_value"), 0.0);
    assert!(r_degr["ElectricStorage"].get("replacement_month").is_none());
    assert_lcc_is_the_objective(&run, &r_degr);
}

/// Two years of augmentation with two cycle-fade segments and storage O&M (100 kW, 200 kWh): every day the state
/// of health falls by Δ(k_cal·a·d^(a−1)·avg + Σ_j k_j·out_j) of the day before (recomputed from
/// the dispatch: the year's state of charge and discharge repeat in year two), starting at the
/// size; with one discharge series, the discharge splits between the segments, each within its
/// fraction of the size per step, so the day's cycle fade lies between k_min and k_max times
/// the day's discharge, and equals k_min · discharge when the cheap segment alone can carry it.
/// The maintenance cost is Σ_d c_{d−1}(soh_{d−1} − soh_d) with c from the present-worth factor,
/// and the lcc (O&M without the installed $/kWh part, which the pro forma's O&M keeps, as the
/// service's does) is the objective.
#[test]
fn state_of_health_follows_the_calendar_and_cycle_fade() {
    let (k_cal, a, k) = (2.0e-3, 0.5, [1.0e-4, 4.0e-4]);
    let mut scenario = with_degradation(pv_storage(2), json!({
        "calendar_fade_coefficient": k_cal, "time_exponent": a,
        "cycle_fade_coefficient": k, "cycle_fade_fraction": [0.3, 0.7]}));
    scenario["ElectricStorage"]["om_cost_fraction_of_installed_cost"] = json!(0.025);
    fix_size(&mut scenario, 100.0, 200.0);
    let (model, run, body) = solve(&scenario);
    let d = &run.optimal.dispatch;
    let g: &DegradationDispatch = d.degradation.as_ref().expect("degradation");
    let size = d.storage_kwh;
    assert!((size - 200.0).abs() < 1e-6);
    assert_eq!(g.soh_kwh.len(), 730);
    assert!((g.soh_kwh[0] - size).abs() < 1e-6 * size);
    let mut cheap_only = 0;
    for day in 1..730 {
        let y = (day - 1) % 365;
        let steps = y * 24..(y + 1) * 24;
        let avg = average(&d.soc_kwh[steps.clone()]);
        let out: f64 = d.discharge[steps.clone()].iter().sum();
        let calendar = k_cal * a * ((day + 1) as f64).powf(a - 1.0) * avg;
        let fade = g.soh_kwh[day - 1] - g.soh_kwh[day];
        let cycle = fade - calendar;
        assert!(cycle >= k[0] * out - 1e-6 * size && cycle <= k[1] * out + 1e-6 * size, "day {day}: cycle fade {cycle} for {out} kWh");
        if d.discharge[steps].iter().all(|kw| *kw <= 0.3 * size * (1.0 - 1e-9)) {
            assert!((cycle - k[0] * out).abs() < 1e-6 * size, "day {day}: {cycle} vs {}", k[0] * out);
            cheap_only += 1;
        }
        assert!(fade > 0.0, "day {day}");
    }
    assert!(cheap_only > 0);
    eprintln!("health at the end {:.4}, {cheap_only} days on the cheap segment only, maintenance ${:.2}", g.soh_kwh[729] / size, g.maintenance_cost);
    let costs = maintenance_costs(500.0, 0.05, 0.081, 730);
    let maintenance: f64 = (1..730).map(|day| costs[day - 1] * (g.soh_kwh[day - 1] - g.soh_kwh[day])).sum();
    assert!(isapprox(g.maintenance_cost, maintenance, 1e-9, 1e-6), "{} vs {maintenance}", g.maintenance_cost);
    assert!(isapprox(number(&body, "ElectricStorage", "maintenance_cost"), maintenance, 0.0, 0.01));
    let health = series(&body, "ElectricStorage", "state_of_health");
    assert!(health.iter().zip(&g.soh_kwh).all(|(h, kwh)| (h - kwh / size).abs() <= 5e-4 + 1e-9));
    assert_lcc_is_the_objective(&run, &body);
    // The O&M on the installed $/kWh leaves the lifecycle O&M (the kW part stays) but not the pro forma's.
    let costs = cost_breakdown(&model, &run.factors, &run.optimal);
    let pwf_om = run.factors.pwf_om;
    assert!(isapprox(costs.om_before_tax - costs.pv_om_before_tax, pwf_om * 0.025 * 1000.0 * 100.0, 1e-6, 1e-6));
    assert!(isapprox(costs.degraded_storage_om_before_tax, pwf_om * 0.025 * 500.0 * 200.0, 1e-6, 1e-6));
}

/// Replacement over one year with a steep calendar fade and the state of charge held at or
/// above half the size, so the health must fall below 80 % within the year: the binaries pick
/// the first month m whose day round(30.4167·m) has soh < 0.8·size, the output names it, the
/// maintenance cost is size · Σ_{i=1..⌈365/p − 1⌉} c_{i·p} (p = round(30.4167(m − 1) + 15)) and
/// the residual value size · c_364 · (0.8 + 0.2(1 − frac(12/m))), as computed here by hand.
#[test]
fn replacement_binaries_pick_the_month_the_health_falls_below_80_percent() {
    let mut scenario = with_degradation(pv_storage(1), json!({"calendar_fade_coefficient": 0.06, "maintenance_strategy": "replacement"}));
    scenario["ElectricStorage"]["soc_min_fraction"] = json!(0.5);
    fix_size(&mut scenario, 100.0, 200.0);
    let (_, run, body) = solve(&scenario);
    let g = run.optimal.dispatch.degradation.as_ref().expect("degradation");
    let size = run.optimal.dispatch.storage_kwh;
    assert!((size - 200.0).abs() < 1e-6);
    let day = |m: usize| (30.4167 * m as f64).round() as usize;
    let first_unhealthy = (1..=12).find(|&m| g.soh_kwh[day(m) - 1] < 0.8 * size - 1e-6).expect("unhealthy within the year");
    assert_eq!(g.replacement_month, Some(first_unhealthy as u32));
    assert_eq!(number(&body, "ElectricStorage", "replacement_month"), first_unhealthy as f64);
    eprintln!("replacement month {first_unhealthy}, health at year end {:.3}", g.soh_kwh[364] / size);

    let costs = maintenance_costs(500.0, 0.05, 0.081, 365);
    let p = ((first_unhealthy - 1) as f64 * 30.4167 + 15.0).round() as usize;
    let replacements = (365.0 / p as f64 - 1.0).ceil() as usize;
    let maintenance: f64 = size * (1..=replacements).map(|i| costs[p * i - 1]).sum::<f64>();
    let cycles = 12.0 / first_unhealthy as f64;
    let residual = size * costs[363] * (0.8 + 0.2 * (1.0 - cycles.fract()));
    assert!(isapprox(g.maintenance_cost, maintenance, 1e-6, 1e-6), "{} vs {maintenance}", g.maintenance_cost);
    assert!(isapprox(g.residual_value, residual, 1e-6, 1e-6), "{} vs {residual}", g.residual_value);
    assert!(isapprox(number(&body, "ElectricStorage", "residual_value"), residual, 0.0, 0.01));
    let total_residual_kwh = size * (0.8 + 0.2 * (1.0 - cycles.fract()));
    assert!(isapprox(number(&body, "ElectricStorage", "total_residual_kwh"), total_residual_kwh, 0.0, 1e-3));
    assert_lcc_is_the_objective(&run, &body);
}

/// Degradation off is today's model: `model_degradation: false` with a (valid, unused)
/// degradation section gives the same results body, to the last digit, as leaving both out,
/// and the same program; the replacement costs stay in (they are zeroed only with degradation).
#[test]
fn degradation_off_gives_todays_results() {
    let today = pv_storage(2);
    let mut off = pv_storage(2);
    off["ElectricStorage"]["model_degradation"] = json!(false);
    off["ElectricStorage"]["degradation"] = json!({"maintenance_strategy": "replacement", "cycle_fade_coefficient": [1e-4, 2e-4],
                                                   "cycle_fade_fraction": [0.5, 0.5]});
    let (model_today, _, body_today) = solve(&today);
    let (model_off, _, body_off) = solve(&off);
    assert_eq!(body_today, body_off);
    assert_eq!(model_off.storage.as_ref().map(|s| (s.replace_cost_per_kwh, s.degradation.is_none())), Some((230.0, true)));
    let size = |model: &sunflux::optimizer::Model| {
        let factors = CostFactors::new(model).expect("factors");
        let program = build(model, &factors, &optimal_cases(model)[0]);
        (program.lp.variable_count(), program.lp.row_count())
    };
    assert_eq!(size(&model_today), size(&model_off));
}

/// The rows the model adds, counted: per day of the year its average and J discharged
/// energies, per step J charge and J discharge segments, D days of health; rows: the averages,
/// two segment sums and 2J segment limits per step, J discharged energies per day of the year,
/// D health rows. Replacement adds 2·12N binaries and 12N replaced kWh with 6 rows a month.
#[test]
fn the_program_grows_by_the_rows_of_the_model() {
    let count = |scenario: &Value| {
        let model = from_scenario(scenario, &[]).expect("supported");
        let factors = CostFactors::new(&model).expect("factors");
        let program = build(&model, &factors, &optimal_cases(&model)[0]);
        (program.lp.variable_count(), program.lp.row_count(), program.lp.is_mixed_integer())
    };
    let (years, segments, days) = (2, 2, 730);
    let segmented = json!({"cycle_fade_coefficient": [1e-4, 2e-4], "cycle_fade_fraction": [0.5, 0.5]});
    let base = count(&pv_storage(years));
    let augmented = count(&with_degradation(pv_storage(years), segmented.clone()));
    let mut replaced = segmented;
    replaced["maintenance_strategy"] = json!("replacement");
    let replacement = count(&with_degradation(pv_storage(years), replaced));
    let variables = 365 * (1 + segments) + 2 * segments * STEPS + days;
    let rows = 365 + 2 * STEPS + 2 * segments * STEPS + 365 * segments + days;
    assert_eq!((augmented.0 - base.0, augmented.1 - base.1, augmented.2), (variables, rows, base.2));
    let months = 12 * years as usize;
    assert_eq!((replacement.0 - augmented.0, replacement.1 - augmented.1, replacement.2), (3 * months, 6 * months, true));
}

/// Bad degradation inputs are collected together, as the service rejects them: an unknown
/// field, cycle-fade lists of unequal length, an unknown strategy and a maintenance cost list
/// whose length is not 365 · analysis_years − 1.
#[test]
fn bad_degradation_inputs_are_collected() {
    let scenario = with_degradation(pv_storage(2), json!({
        "cycle_fade_coefficient": [1e-4, 2e-4], "cycle_fade_fraction": [1.0], "maintenance_strategy": "swap",
        "maintenance_cost_per_kwh": vec![100.0; 364], "calendar_fade": 1e-3}));
    let Err(ScenarioError::Invalid(messages)) = from_scenario(&scenario, &[]) else { panic!("must be invalid") };
    let text = messages.join("\n");
    for part in ["calendar_fade is not an input", "must have equal length", "maintenance_strategy \"swap\"", "must have a length of 729"] {
        assert!(text.contains(part), "{part} not in {text}");
    }
}

//! `ElectricLoad.monthly_peaks_kw` end to end: REopt.jl's "Peak load scaling" test with a custom
//! profile (facts of the service's test: monthly totals of 7e6 / 12 kWh, peaks of 1,700 kW in
//! every month, year 2023, a blended demand rate of 10 $/kW and energy rate of 0.12 $/kWh, one
//! analysis year, no discounting or tax, no technologies; its demand cost is 12 · 1,700 · 10 =
//! 204,000 $, rtol 1e-4), and the inputs the service skips or rejects. The service's test reads
//! a San Francisco large-office profile; the office-like profile here is made for this test,
//! with months on both sides of the target so that both scalings run.

use std::time::Instant;

use serde_json::{json, Value};
use sunflux::optimizer::in_process::{solve_scenario, InProcessError};
use sunflux::optimizer::loads::month_step_ranges;
use sunflux::optimizer::{from_scenario, ScenarioError, SolveControl};

const MONTHLY_KWH: f64 = 7.0e6 / 12.0;
const PEAK_KW: f64 = 1700.0;
const DEMAND_RATE: f64 = 10.0;
/// How closely a month keeps its energy: a stretched month's exponent moves on a 0.001 grid.
const MONTH_ENERGY_RTOL: f64 = 1e-3;

/// An office-like load for `year` at `steps_per_hour`: a base all day and a weekday bump from
/// 08:00 to 18:00 whose height swings through the year (low in winter, high in summer), with a
/// small wiggle so that no two days are alike.
fn office_load(year: i32, steps_per_hour: usize) -> Vec<f64> {
    let first_weekday = sunflux::calendar::weekday_of_january_first(year) as usize; // 1 = Monday
    (0..8760 * steps_per_hour)
        .map(|step| {
            let hour_of_year = step / steps_per_hour;
            let day = hour_of_year / 24;
            let hour = hour_of_year % 24;
            let weekday = (first_weekday - 1 + day) % 7 + 1;
            let season = (std::f64::consts::PI * day as f64 / 365.0).sin().powi(2);
            let bump = if weekday <= 5 && (8..18).contains(&hour) { 1.5 + 5.0 * season } else { 0.0 };
            100.0 * (1.0 + bump + 0.05 * (step as f64 * 0.61).sin())
        })
        .collect()
}

fn scenario(year: i32, steps_per_hour: usize, peaks: Option<Vec<f64>>) -> Value {
    let mut load = json!({
        "loads_kw": office_load(year, steps_per_hour),
        "year": year,
        "normalize_and_scale_load_profile_input": true,
        "monthly_totals_kwh": vec![MONTHLY_KWH; 12],
    });
    if let Some(peaks) = peaks {
        load["monthly_peaks_kw"] = json!(peaks);
    }
    json!({
        "Settings": {"time_steps_per_hour": steps_per_hour},
        "Site": {"latitude": 37.7749295, "longitude": -122.4194155},
        "ElectricLoad": load,
        "ElectricTariff": {"blended_annual_energy_rate": 0.12, "blended_annual_demand_rate": DEMAND_RATE},
        "Financial": {"analysis_years": 1, "offtaker_discount_rate_fraction": 0.0, "offtaker_tax_rate_fraction": 0.0,
                      "elec_cost_escalation_rate_fraction": 0.0},
    })
}

/// Each month's peak and energy (kWh) of a load of the modelled year.
fn monthly(load: &[f64], year: i32, steps_per_hour: usize) -> Vec<(f64, f64)> {
    month_step_ranges(year, steps_per_hour)
        .into_iter()
        .map(|range| {
            let month = &load[range];
            (month.iter().copied().fold(f64::NEG_INFINITY, f64::max), month.iter().sum::<f64>() / steps_per_hour as f64)
        })
        .collect()
}

fn number(value: &Value) -> f64 {
    value.as_f64().expect("a number")
}

/// REopt.jl "Peak load scaling", custom profile: year-one demand cost 204,000 $ (rtol 1e-4),
/// annual energy 7e6 kWh (rtol 1e-4), every month's peak 1,700 kW. A stretched month's energy
/// is kept to the service's grid of the exponent (steps of 0.001): within 1e-3 here.
#[test]
fn peak_load_scaling_custom_profile_matches_the_services_demand_cost() {
    let energy_only = from_scenario(&scenario(2023, 1, None), &[]).expect("supported");
    let before = monthly(&energy_only.load_kw, 2023, 1);
    assert!(before.iter().any(|(peak, _)| *peak > PEAK_KW) && before.iter().any(|(peak, _)| *peak < PEAK_KW),
            "months on both sides of the target: {before:?}");

    let started = Instant::now();
    let results = solve_scenario(&scenario(2023, 1, Some(vec![PEAK_KW; 12])), &SolveControl::default()).expect("optimal");
    let seconds = started.elapsed().as_secs_f64();
    let outputs = &results["outputs"];
    let demand_cost = number(&outputs["ElectricTariff"]["year_one_demand_cost_before_tax"]);
    let annual_kwh = number(&outputs["ElectricLoad"]["annual_calculated_kwh"]);
    let load: Vec<f64> = outputs["ElectricLoad"]["load_series_kw"].as_array().expect("a series").iter().map(number).collect();
    let after = monthly(&load, 2023, 1);
    println!("demand cost {demand_cost} $, annual {annual_kwh} kWh, solved in {seconds:.2} s; monthly (peak kW, kWh): {after:?}");
    let expected = 12.0 * PEAK_KW * DEMAND_RATE;
    assert!((demand_cost - expected).abs() <= 1e-4 * expected, "demand cost {demand_cost}, expected {expected}");
    assert!((annual_kwh - 7.0e6).abs() <= 1e-4 * 7.0e6, "annual {annual_kwh} kWh");
    for (month, (peak, kwh)) in after.iter().enumerate() {
        assert!((peak - PEAK_KW).abs() <= 1e-6 * PEAK_KW, "month {}: peak {peak} kW", month + 1);
        assert!((kwh - MONTHLY_KWH).abs() <= MONTH_ENERGY_RTOL * MONTHLY_KWH, "month {}: {kwh} kWh", month + 1);
    }
}

/// A leap year at 30-minute steps: February has 29 days and December 30 (the service's
/// calendar), and every month still lands on its peak with its energy (to the exponent's grid).
#[test]
fn leap_year_sub_hourly_profiles_scale_by_the_services_months() {
    let peaks: Vec<f64> = (0..12).map(|m| 1500.0 + 50.0 * m as f64).collect();
    let model = from_scenario(&scenario(2024, 2, Some(peaks.clone())), &[]).expect("supported");
    for (month, (peak, kwh)) in monthly(&model.load_kw, 2024, 2).into_iter().enumerate() {
        assert!((peak - peaks[month]).abs() <= 1e-6 * peaks[month], "month {}: peak {peak} kW", month + 1);
        assert!((kwh - MONTHLY_KWH).abs() <= MONTH_ENERGY_RTOL * MONTHLY_KWH, "month {}: {kwh} kWh", month + 1);
    }
}

/// Peaks alone scale the profile as given (no energy scaling first): each month keeps the
/// energy it had.
#[test]
fn peaks_without_energy_keep_the_profiles_own_months() {
    let mut peaks_only = scenario(2023, 1, Some(vec![900.0; 12]));
    peaks_only["ElectricLoad"].as_object_mut().expect("an object").remove("monthly_totals_kwh");
    let model = from_scenario(&peaks_only, &[]).expect("supported");
    let given = monthly(&office_load(2023, 1), 2023, 1);
    for (month, ((peak, kwh), (_, given_kwh))) in monthly(&model.load_kw, 2023, 1).into_iter().zip(given).enumerate() {
        assert!((peak - 900.0).abs() <= 1e-6 * 900.0, "month {}: peak {peak} kW", month + 1);
        assert!((kwh - given_kwh).abs() <= MONTH_ENERGY_RTOL * given_kwh, "month {}: {kwh} kWh, given {given_kwh}", month + 1);
    }
}

/// The service does not scale to peaks when the reference name is a FlatLoad (even beside
/// `loads_kw`): the load is the energy-scaled profile.
#[test]
fn a_flatload_name_leaves_the_peaks_unapplied() {
    let energy_only = from_scenario(&scenario(2023, 1, None), &[]).expect("supported");
    let mut named = scenario(2023, 1, Some(vec![PEAK_KW; 12]));
    named["ElectricLoad"]["doe_reference_name"] = json!("FlatLoad_16_5");
    let model = from_scenario(&named, &[]).expect("supported");
    assert_eq!(model.load_kw, energy_only.load_kw);
}

/// What the engine cannot honour is refused by name; what the service rejects is invalid.
#[test]
fn impossible_and_rejected_peaks_are_named() {
    // A January peak below January's mean load (about 784 kW).
    let mut peaks = vec![PEAK_KW; 12];
    peaks[0] = 500.0;
    match solve_scenario(&scenario(2023, 1, Some(peaks)), &SolveControl::default()) {
        Err(InProcessError::Refused(reasons)) => {
            assert!(reasons.iter().any(|r| r.contains("ElectricLoad.monthly_peaks_kw (month 1 peak 500 kW is below")), "{reasons:?}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    let eleven = scenario(2023, 1, Some(vec![PEAK_KW; 11]));
    match from_scenario(&eleven, &[]) {
        Err(ScenarioError::Invalid(problems)) => assert!(problems.iter().any(|p| p.contains("exactly 12 values")), "{problems:?}"),
        other => panic!("expected invalid, got {other:?}"),
    }
    let mut not_normalized = scenario(2023, 1, Some(vec![PEAK_KW; 12]));
    not_normalized["ElectricLoad"]["normalize_and_scale_load_profile_input"] = json!(false);
    not_normalized["ElectricLoad"].as_object_mut().expect("an object").remove("monthly_totals_kwh");
    assert!(matches!(from_scenario(&not_normalized, &[]), Err(ScenarioError::Invalid(_))));
    let mut nothing_to_scale_to = scenario(2023, 1, None);
    nothing_to_scale_to["ElectricLoad"].as_object_mut().expect("an object").remove("monthly_totals_kwh");
    match from_scenario(&nothing_to_scale_to, &[]) {
        Err(ScenarioError::Invalid(problems)) => assert!(problems.iter().any(|p| p.contains("but no annual_kwh")), "{problems:?}"),
        other => panic!("expected invalid, got {other:?}"),
    }
}

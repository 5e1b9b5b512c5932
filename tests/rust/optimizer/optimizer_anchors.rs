//! Anchor cases of the service's own test suite (REopt.jl `test/runtests.jl`, testsets under
//! "Rate Structures"), rebuilt here from their stated inputs: each test names the case it
//! mirrors and checks the number that case states with its tolerance. The scenarios are written
//! out below (the case files are not copied); the URDB rates are the small hand-made structures
//! those cases describe.

use serde_json::{json, Value};
use crate::support::{isapprox, number, solve};

/// Julia's `isapprox` default for floats: rtol = √ε.
const JULIA_RTOL: f64 = 1.4901161193847656e-8;

fn site() -> Value {
    json!({"latitude": 34.5794343, "longitude": -118.1164613})
}

/// One weekday/weekend schedule with every hour in period 0.
fn single_period() -> Value {
    json!(vec![vec![0; 24]; 12])
}

/// "Blended tariff": FlatLoad 10,000 kWh, $0.10/kWh and $10/kW-month, no technologies.
#[test]
fn blended_tariff() {
    let scenario = json!({
        "Site": site(),
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 10000.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 10},
    });
    let (_, _, body) = solve(&scenario);
    assert!(isapprox(number(&body, "ElectricTariff", "year_one_energy_cost_before_tax"), 1000.0, JULIA_RTOL, 0.0));
    assert!(isapprox(number(&body, "ElectricTariff", "year_one_demand_cost_before_tax"), 136.99, JULIA_RTOL, 0.0));
}

/// "Coincident Peak Charges": a 1 kW flat load, two coincident peak periods at $10 and $5/kW.
#[test]
fn coincident_peak_charges() {
    let scenario = json!({
        "Site": {"latitude": 35.2, "longitude": -91.7},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 8760.0},
        "ElectricTariff": {
            "coincident_peak_load_active_time_steps": [[1, 2, 100], [6000, 7000]],
            "coincident_peak_load_charge_per_kw": [10, 5],
            "blended_annual_energy_rate": 1.0,
            "blended_annual_demand_rate": 0.0
        },
    });
    let (model, run, body) = solve(&scenario);
    assert!(isapprox(number(&body, "ElectricTariff", "year_one_coincident_peak_cost_before_tax"), 15.0, JULIA_RTOL, 0.0));
    assert_eq!(run.optimal.dispatch.coincident_peaks_kw.len(), model.tariff.coincident_peaks.len());
}

/// The load of the custom-rate "Lookback Demand Charges" cases: 100 kW with a January peak of
/// 200, April 400, June 500 and December 300 (Julia's 1-based steps 22, 2403, 4088, 8333), 2022.
fn lookback_scenario(tariff: Value) -> Value {
    let mut loads = vec![100.0; 8760];
    for (step, kw) in [(22, 200.0), (2403, 400.0), (4088, 500.0), (8333, 300.0)] {
        loads[step - 1] = kw;
    }
    json!({
        "Site": {"latitude": 33.748995, "longitude": -84.387982},
        "ElectricLoad": {"loads_kw": loads, "year": 2022},
        "ElectricTariff": tariff,
        "Financial": {"offtaker_discount_rate_fraction": 0.0, "offtaker_tax_rate_fraction": 0.0,
                      "elec_cost_escalation_rate_fraction": 0.0, "om_cost_escalation_rate_fraction": 0.0},
    })
}

const LOOKBACK_RATES: [f64; 12] = [10.0, 10.0, 20.0, 50.0, 20.0, 10.0, 20.0, 20.0, 20.0, 20.0, 20.0, 5.0];

fn demand_cost(peaks: [f64; 12]) -> f64 {
    peaks.iter().zip(LOOKBACK_RATES).map(|(p, r)| p * r).sum()
}

/// "Lookback Demand Charges", case 2: `demand_lookback_months` January, April, December at 75 %.
#[test]
fn lookback_months() {
    let mut months = [0; 12];
    for m in [0, 3, 11] {
        months[m] = 1;
    }
    let scenario = lookback_scenario(json!({
        "demand_lookback_percent": 0.75, "monthly_demand_rates": LOOKBACK_RATES,
        "demand_lookback_months": months, "blended_annual_energy_rate": 0.01,
    }));
    let (_, run, body) = solve(&scenario);
    let expected = demand_cost([300.0, 300.0, 300.0, 400.0, 300.0, 500.0, 300.0, 300.0, 300.0, 300.0, 300.0, 300.0]);
    assert!(isapprox(number(&body, "ElectricTariff", "year_one_demand_cost_before_tax"), expected, JULIA_RTOL, 1e-6));
    let billed: f64 = run.optimal.dispatch.monthly_peaks_kw.iter().zip(LOOKBACK_RATES).map(|(tiers, r)| tiers.iter().sum::<f64>() * r).sum();
    assert!(isapprox(billed, expected, 1e-6, 1e-3), "the LP's billed peaks agree with the recomputation: {billed}");
}

/// "Lookback Demand Charges", case 3: `demand_lookback_range` 6 months at 75 %.
#[test]
fn lookback_range() {
    let scenario = lookback_scenario(json!({
        "demand_lookback_percent": 0.75, "monthly_demand_rates": LOOKBACK_RATES,
        "blended_annual_energy_rate": 0.01, "demand_lookback_range": 6,
    }));
    let (_, _, body) = solve(&scenario);
    let expected = demand_cost([225.0, 225.0, 225.0, 400.0, 300.0, 500.0, 375.0, 375.0, 375.0, 375.0, 375.0, 375.0]);
    assert!(isapprox(number(&body, "ElectricTariff", "year_one_demand_cost_before_tax"), expected, JULIA_RTOL, 1e-6));
}

/// A single-period URDB rate with the given energy and demand tiers.
fn tiered_rate(energy: Value, demand: Value) -> Value {
    json!({
        "energyweekdayschedule": single_period(), "energyweekendschedule": single_period(),
        "energyratestructure": [energy],
        "demandweekdayschedule": single_period(), "demandweekendschedule": single_period(),
        "demandratestructure": [demand],
    })
}

/// "Tiered TOU Demand": FlatLoad 1,000,000 kWh; demand tier 1 free up to 50 kW, tier 2 $12/kW;
/// expected charges 12 · (50·0 + (max demand − 50)·12) within 1 $.
#[test]
fn tiered_tou_demand() {
    let rate = tiered_rate(
        json!([{"rate": 0.1, "max": 40000.0, "unit": "kWh"}, {"rate": 0.12, "unit": "kWh"}]),
        json!([{"rate": 0, "max": 50.0, "unit": "kW"}, {"rate": 12.0, "unit": "kW"}]),
    );
    let scenario = json!({
        "Site": site(),
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 1_000_000.0},
        "ElectricTariff": {"urdb_response": rate},
    });
    let (_, _, body) = solve(&scenario);
    let max_demand = 1_000_000.0 / 8760.0;
    let expected = 12.0 * (50.0 * 0.0 + (max_demand - 50.0) * 12.0);
    assert!(isapprox(number(&body, "ElectricTariff", "year_one_demand_cost_before_tax"), expected, 0.0, 1.0));
}

/// "Demand and Energy Tier Limits Big-M Setup": a flat 100 kW load; energy $0.10 up to
/// 74,400 kWh then $0.05, demand $10 up to 100 kW then $5 (both tiers fall). Tier 1 holds the
/// whole load, so nothing may be bought in tier 2; lcc 1.092312443e6 within rtol 1e-6 (the
/// service's default financial inputs). Here the bounds on the purchases already close tier 2
/// (the load never exceeds tier 1), so no branching is needed.
#[test]
fn demand_and_energy_tier_limits_big_m() {
    let rate = tiered_rate(
        json!([{"rate": 0.1, "max": 74400.0, "unit": "kWh"}, {"rate": 0.05, "max": 1.0e14, "unit": "kWh"}]),
        json!([{"rate": 10.0, "max": 100.0, "unit": "kW"}, {"rate": 5.0, "max": 1.0e14, "unit": "kW"}]),
    );
    let scenario = json!({
        "Site": site(),
        "Settings": {"optimality_tolerance": 1e-5},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 876_000.0},
        "ElectricTariff": {"urdb_response": rate},
    });
    let (_, run, body) = solve(&scenario);
    let d = &run.optimal.dispatch;
    assert!(d.grid_by_tier[1].iter().sum::<f64>().abs() < 1e-6, "no energy bought in tier 2");
    let tier_two_peaks: f64 = d.tou_peaks_kw.iter().map(|tiers| tiers[1]).sum();
    assert!(tier_two_peaks.abs() < 1e-6, "no demand billed in tier 2");
    assert!(isapprox(number(&body, "Financial", "lcc"), 1.092312443e6, 1e-6, 0.0), "lcc {}", number(&body, "Financial", "lcc"));
}

//! The tariff's monthly results and a month whose export rate beats the retail rate, after the
//! REopt.jl testsets "Monthly ElectricTariff Results" (its blended-rate half) and "January Export
//! Rates", on our own load and production shapes (the Julia cases read DOE reference loads, a
//! URDB rate and PVWatts production that this project does not have, so their absolute numbers
//! are not restated; the properties they check are).

use serde_json::{json, Value};
use sunflux::optimizer::{from_scenario, optimize, outputs, SolveControl};
use crate::support::numbers;

/// Hours per month of the 365-day year, January first.
const MONTH_DAYS: [usize; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

fn solve(scenario: &Value, pv_production: &[Option<Vec<f64>>]) -> Value {
    let model = from_scenario(scenario, pv_production).expect("supported scenario");
    let run = optimize(&model, &SolveControl::default()).expect("optimal");
    outputs::optimal_outputs(&model, &run)
}

/// A load with a daily and a seasonal shape (kW): higher by day and in summer.
fn load() -> Vec<f64> {
    (0..8760)
        .map(|hour| {
            let season = 1.0 + 0.3 * ((hour as f64 / 8760.0 - 0.55) * std::f64::consts::TAU).cos();
            let day = if (8..20).contains(&(hour % 24)) { 140.0 } else { 80.0 };
            day * season
        })
        .collect()
}

/// The months' ranges of hour indices.
fn months() -> impl Iterator<Item = std::ops::Range<usize>> {
    MONTH_DAYS.iter().scan(0, |start, days| {
        let range = *start..*start + days * 24;
        *start = range.end;
        Some(range)
    })
}

/// "Monthly ElectricTariff Results", blended rates: each month's energy cost is its kWh times
/// the energy rate and its demand cost its peak times the demand rate (rtol 0.01, as the Julia
/// test), twelve of each.
#[test]
fn monthly_costs_of_blended_rates_are_the_months_kwh_and_peaks_priced() {
    let load = load();
    let scenario = json!({
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "ElectricLoad": {"loads_kw": load, "year": 2017},
        "ElectricTariff": {"blended_annual_energy_rate": 0.12, "blended_annual_demand_rate": 20.0},
        "PV": {"max_kw": 0},
    });
    let body = solve(&scenario, &[Some(vec![0.0; 8760])]);
    let energy = numbers(&body["ElectricTariff"]["monthly_energy_cost_series_before_tax"]);
    let demand = numbers(&body["ElectricTariff"]["monthly_demand_cost_series_before_tax"]);
    assert_eq!((energy.len(), demand.len()), (12, 12));
    for (month, hours) in months().enumerate() {
        let kwh: f64 = load[hours.clone()].iter().sum();
        let peak = load[hours].iter().copied().fold(0.0, f64::max);
        let close = |got: f64, expected: f64| (got - expected).abs() <= 0.01 * expected.abs();
        assert!(close(energy[month], kwh * 0.12), "month {month}: energy {} vs {}", energy[month], kwh * 0.12);
        assert!(close(demand[month], peak * 20.0), "month {month}: demand {} vs {}", demand[month], peak * 20.0);
    }
}

/// "January Export Rates": monthly energy rates, no demand charges, and a wholesale rate above
/// January's retail rate in January only (0 after): PV is built, and in January all of it is
/// sold, none serves the load.
#[test]
fn pv_sells_everything_in_the_month_its_export_rate_beats_the_retail_rate() {
    let monthly_rates = [0.1, 0.1, 0.11, 0.11, 0.12, 0.14, 0.16, 0.16, 0.13, 0.12, 0.11, 0.1];
    let january_hours = 31 * 24;
    let wholesale: Vec<f64> = (0..8760).map(|hour| if hour < january_hours { monthly_rates[0] + 0.1 } else { 0.0 }).collect();
    let pv: Vec<f64> = (0..8760)
        .map(|hour| {
            let h = (hour % 24) as f64;
            if (6.0..18.0).contains(&h) { 0.8 * ((h - 6.0) / 12.0 * std::f64::consts::PI).sin() } else { 0.0 }
        })
        .collect();
    let scenario = json!({
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "ElectricLoad": {"loads_kw": load(), "year": 2017},
        "ElectricTariff": {"monthly_energy_rates": monthly_rates, "monthly_demand_rates": vec![0.0; 12], "wholesale_rate": wholesale},
        "PV": {"max_kw": 500},
    });
    let body = solve(&scenario, &[Some(pv)]);
    assert!(body["PV"]["size_kw"].as_f64().unwrap() > 1.0, "PV is built: {}", body["PV"]["size_kw"]);
    let to_load = numbers(&body["PV"]["electric_to_load_series_kw"]);
    assert!(to_load[..january_hours].iter().all(|&kw| kw == 0.0), "PV serves the load in January");
    assert!(to_load[january_hours..].iter().sum::<f64>() > 0.0, "PV serves the load after January");
}

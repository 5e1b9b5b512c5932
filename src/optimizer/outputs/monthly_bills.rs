//! The monthly parts of the bill in `ElectricTariff` (year one, before tax, $ per month), as
//! REopt.jl `src/results/electric_tariff.jl` (`add_electric_tariff_results`) writes them:
//! `monthly_fixed_cost_series_before_tax`, `monthly_energy_cost_series_before_tax`,
//! `monthly_facility_demand_cost_series_before_tax`, `monthly_tou_demand_cost_series_before_tax`
//! and `monthly_demand_cost_series_before_tax` (facility plus time-of-use).

use serde_json::{json, Value};

use super::{billed_monthly_peaks, tiered_cost};
use crate::optimizer::lp::Dispatch;
use crate::optimizer::model::Model;

/// The five monthly series, as (key, 12 values in $).
pub fn monthly_bill_series(model: &Model, d: &Dispatch) -> Vec<(&'static str, Value)> {
    let tariff = &model.tariff;
    let dt = model.step_hours();
    // Energy: Σ over the month's steps and tiers of rate ($/kWh) · purchase (kW) · step (h).
    let mut energy = [0.0f64; 12];
    for (t, &month) in tariff.month_of_step.iter().enumerate() {
        energy[month as usize] += d.grid_by_tier.iter().enumerate().map(|(k, tier)| dt * tariff.energy_rates[k][t] * tier[t]).sum::<f64>();
    }
    // Facility demand: each month's tiered charge on its billed (look-back raised) peak.
    let mut facility = [0.0f64; 12];
    for ((cost, charge), kw) in facility.iter_mut().zip(&tariff.monthly_demand).zip(billed_monthly_peaks(model, d)) {
        *cost = tiered_cost(charge, kw);
    }
    // Time-of-use demand: each period's tiered charge on its peak, booked in the month of the
    // step one day after its first step (the service's rule, which shifts by a day for leap years).
    let steps_per_day = (24.0 / dt).round() as usize;
    let last_step = tariff.month_of_step.len().saturating_sub(1);
    let mut tou = [0.0f64; 12];
    for period in &tariff.tou_demand {
        let Some(&first) = period.steps.first() else { continue };
        let month = tariff.month_of_step.get((first + steps_per_day).min(last_step)).copied().unwrap_or(period.month);
        let peak = period.steps.iter().map(|&t| d.grid_purchase(t)).fold(0.0, f64::max);
        tou[month as usize] += tiered_cost(&period.charge, peak);
    }
    let demand: Vec<f64> = facility.iter().zip(&tou).map(|(f, t)| f + t).collect();
    let cents = |values: &[f64]| json!(values.iter().map(|v| (v * 100.0).round() / 100.0).collect::<Vec<f64>>());
    vec![
        ("monthly_fixed_cost_series_before_tax", cents(&[tariff.fixed_monthly_charge; 12])),
        ("monthly_energy_cost_series_before_tax", cents(&energy)),
        ("monthly_facility_demand_cost_series_before_tax", cents(&facility)),
        ("monthly_tou_demand_cost_series_before_tax", cents(&tou)),
        ("monthly_demand_cost_series_before_tax", cents(&demand)),
    ]
}

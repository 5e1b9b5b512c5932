//! What the optimizer's test modules share: solving a scenario to its results body, reading
//! numbers and series out of that body, Julia's `isapprox` (the tolerances the anchors cite are
//! Julia's), the daytime production shape most tests put under PV, and the fixed-seed draws of
//! the random-scenario tests.

use serde_json::Value;
use sunflux::optimizer::{from_scenario, optimize, outputs, Model, Optimized, SolveControl};

/// The model, the solved run and the results body of a scenario the local optimizer supports
/// and solves to optimal (panics otherwise: the tests build such scenarios).
pub fn solve(scenario: &Value) -> (Model, Optimized, Value) {
    let model = from_scenario(scenario, &[]).expect("supported scenario");
    let run = optimize(&model, &SolveControl::default()).expect("optimal");
    let body = outputs::optimal_outputs(&model, &run);
    (model, run, body)
}

/// `body[section][field]` as a number.
pub fn number(body: &Value, section: &str, field: &str) -> f64 {
    body[section][field].as_f64().unwrap_or_else(|| panic!("{section}.{field} missing or null: {}", body[section][field]))
}

/// A series of numbers (every item a number).
pub fn numbers(value: &Value) -> Vec<f64> {
    let items = value.as_array().unwrap_or_else(|| panic!("not a series: {value}"));
    items.iter().map(|v| v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))).collect()
}

/// `body[section][field]` as a series of numbers.
pub fn series(body: &Value, section: &str, field: &str) -> Vec<f64> {
    numbers(&body[section][field])
}

/// Julia's `isapprox(a, b; rtol, atol)`: |a − b| ≤ max(atol, rtol · max(|a|, |b|)).
pub fn isapprox(a: f64, b: f64, rtol: f64, atol: f64) -> bool {
    (a - b).abs() <= atol.max(rtol * a.abs().max(b.abs()))
}

/// An hourly production factor that is a half sine from 06:00 to 18:00 with the given peak, and
/// zero at night, every day of a 8,760-hour year.
pub fn daytime_production(peak: f64) -> Vec<f64> {
    (0..8760)
        .map(|hour| {
            let h = (hour % 24) as f64;
            if (6.0..18.0).contains(&h) { peak * ((h - 6.0) / 12.0 * std::f64::consts::PI).sin() } else { 0.0 }
        })
        .collect()
}

/// A fixed-seed generator (64-bit linear congruential, Knuth's constants) for random scenarios
/// that are the same in every run.
pub struct Draws(pub u64);

impl Draws {
    /// The next draw, uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A results series of MMBtu/h in kW (zeros when the section is absent).
pub fn mmbtu_series_kw(body: &Value, section: &str, field: &str) -> Vec<f64> {
    if body[section].is_null() {
        return vec![0.0; 8760];
    }
    series(body, section, field).iter().map(|v| v * sunflux::optimizer::model::KWH_PER_MMBTU).collect()
}

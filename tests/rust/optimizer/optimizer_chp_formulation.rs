//! The CHP's program is written tighter than the service's without moving its optimum: the
//! turndown's and the fuel intercept's big-M scaled to what their rows reach when off, and the
//! on/off binary left out when nothing depends on it (`lp/chp.rs`). Each test solves a pair of
//! scenarios that differ only where the formulation differs and compares their lifecycle costs
//! (rtol 1e-6).

use serde_json::{json, Value};
use crate::support::{isapprox, number, solve};

/// A flat 100 kW electric load at $0.20/kWh and a heating load of 1 MMBtu/h of fuel, with a CHP
/// burning $3/MMBtu fuel: worth running at the load in every step it may (a heat-led site that
/// starts and stops every day takes HiGHS minutes, too long for a test).
fn site(chp: Value) -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.20, "blended_annual_demand_rate": 5.0},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![1.0; 8760]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 3.0, "efficiency": 0.8},
        "CHP": chp
    })
}

fn chp(max_kw: f64, electric_half: f64, thermal_half: f64, turndown: f64) -> Value {
    json!({
        "fuel_cost_per_mmbtu": 3.0, "installed_cost_per_kw": 800.0, "om_cost_per_kwh": 0.0, "om_cost_per_hr_per_kw_rated": 0.0,
        "max_kw": max_kw, "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": electric_half,
        "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": thermal_half, "min_turn_down_fraction": turndown,
        "unavailability_periods": [{"month": 3, "start_week_of_month": 2, "start_day_of_week": 3, "start_hour": 9, "duration_hours": 100}]
    })
}

/// With a turndown of 0.6 and both intercepts, the big-M's follow max_kw: a CHP that may be
/// 120 kW and one that may be 20,000 kW (M 167 times larger) are bought at the same size and
/// cost the same, since neither bound binds (the load is 100 kW and the CHP does not export).
/// It is off for its 100 maintenance hours only.
#[test]
fn the_scaled_big_ms_keep_the_optimum_of_the_services_own() {
    let (_, tight_run, tight) = solve(&site(chp(120.0, 0.30, 0.48, 0.6)));
    let (_, loose_run, loose) = solve(&site(chp(20000.0, 0.30, 0.48, 0.6)));
    let d = tight_run.optimal.dispatch.chp.as_ref().expect("CHP dispatch");
    assert!(d.size_kw > 10.0 && d.size_kw < 120.0 - 1e-3, "size {}", d.size_kw);
    assert_eq!(d.rated_kw.iter().filter(|&&p| p == 0.0).count(), 100, "off in maintenance only");
    let (lcc_tight, lcc_loose) = (number(&tight, "Financial", "lcc"), number(&loose, "Financial", "lcc"));
    assert!(isapprox(lcc_tight, lcc_loose, 1e-6, 0.0), "lcc {lcc_tight} with max_kw 120 vs {lcc_loose} with 20,000");
    let size_loose = loose_run.optimal.dispatch.chp.as_ref().expect("CHP dispatch").size_kw;
    assert!(isapprox(d.size_kw, size_loose, 1e-4, 1e-3), "size {} vs {size_loose}", d.size_kw);
}

/// Without turndown, intercepts (equal full- and half-load efficiencies) or hourly O&M, the
/// on/off binary is left out: 8,760 fewer binaries, and the same lifecycle cost as the program
/// that keeps them through a turndown of 1e-7 (its rows bind by at most 1e-7 of the size).
#[test]
fn the_on_off_binary_is_left_out_when_it_changes_nothing() {
    let (_, without_run, without) = solve(&site(chp(120.0, 0.35, 0.45, 0.0)));
    let (_, with_run, with) = solve(&site(chp(120.0, 0.35, 0.45, 1e-7)));
    assert_eq!(with_run.optimal.stats.binaries - without_run.optimal.stats.binaries, 8760);
    let (lcc_without, lcc_with) = (number(&without, "Financial", "lcc"), number(&with, "Financial", "lcc"));
    assert!(isapprox(lcc_without, lcc_with, 1e-6, 0.0), "lcc {lcc_without} without the binary vs {lcc_with} with it");
    let d = without_run.optimal.dispatch.chp.as_ref().expect("CHP dispatch");
    assert!(d.size_kw > 10.0, "size {}", d.size_kw);
    for t in 0..8760 {
        assert_eq!(d.on[t], if d.rated_kw[t] > 0.0 { 1.0 } else { 0.0 }, "step {t}: on follows the output");
    }
}

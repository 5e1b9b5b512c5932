//! Heat and CHP with grid outages: the heat balance the service leaves out of the deterministic
//! outage's steps (its `HeatLoadBalanceCon` holds over `time_steps_with_grid` only), and CHP as a
//! member of the multiple-outage microgrids (REopt.jl `add_MG_CHP_fuel_burn_constraints`), with
//! the anchor "Minimize Unserved Load" (`test/runtests.jl`) rebuilt on our own flat site.

use serde_json::{json, Value};
use crate::support::{isapprox, number, series, solve};

const KWH_PER_MMBTU: f64 = 293.07107;

/// A flat 100 kW site of 2022 with 1 MMBtu/h of boiler fuel for space heating at 80 %, a
/// deterministic outage of steps 50-60 (1-indexed, 11 hours) whose 50 kW critical load an
/// existing 60 kW generator carries.
fn heating_outage_scenario() -> Value {
    json!({
        "Site": {"latitude": 39.74, "longitude": -105.17},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2022, "critical_load_fraction": 0.5},
        "ElectricTariff": {"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 5.0},
        "ElectricUtility": {"outage_start_time_step": 50, "outage_end_time_step": 60},
        "Generator": {"existing_kw": 60.0, "max_kw": 60.0, "fuel_avail_gal": 1000.0, "min_turn_down_fraction": 0.0},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![1.0; 8760]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 10.0, "efficiency": 0.8}
    })
}

/// The deterministic outage's steps carry no heat: the existing boiler serves the 0.8 MMBtu/h
/// load in every other step and nothing in the outage's 11, so it burns 8749 MMBtu (rtol 1e-6)
/// while the reported heating load stays the whole year's 8760 · 0.8.
#[test]
fn the_heat_balance_leaves_the_deterministic_outage_out() {
    let (model, _, body) = solve(&heating_outage_scenario());
    let to_load = series(&body, "ExistingBoiler", "thermal_to_load_series_mmbtu_per_hour");
    for (t, &heat) in to_load.iter().enumerate() {
        let expected = if model.has_grid(t) { 0.8 } else { 0.0 };
        assert!(isapprox(heat, expected, 1e-6, 1e-9), "step {t}: {heat} MMBtu/h, expected {expected}");
    }
    assert_eq!((0..8760).filter(|&t| !model.has_grid(t)).count(), 11);
    let fuel = number(&body, "ExistingBoiler", "annual_fuel_consumption_mmbtu");
    assert!(isapprox(fuel, 8749.0, 1e-6, 0.0), "fuel {fuel}");
    let load = number(&body, "HeatingLoad", "annual_calculated_total_heating_thermal_load_mmbtu");
    assert!(isapprox(load, 8760.0 * 0.8, 1e-9, 0.0), "heating load {load}");
    assert!(isapprox(8760.0 * 0.8 * KWH_PER_MMBTU, model.heating.as_ref().map_or(0.0, |h| (0..8760).map(|t| h.total_kw(t)).sum()), 1e-9, 0.0));
}

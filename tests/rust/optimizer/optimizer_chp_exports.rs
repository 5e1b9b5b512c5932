//! CHP exports (the service's `techs.elec` with CHP's `export_bins_by_tech`: REopt.jl
//! `add_export_constraints` and the CHP split of `src/results/chp.jl`). No REopt.jl testset
//! exports from CHP; "CHP Unavailability and Outage" checks the default (no flags: no exports),
//! reproduced here beside the exporting case on our own flat site: the CHP's electricity per step
//! is its load, storage, grid and curtailment parts, exports happen only in the bins its flags
//! allow and are paid the tariff's export rate, and the net-metering limit caps its size.

use serde_json::{json, Value};
use crate::support::{isapprox, number, series, solve};

/// A site in 2017 with the given electric load and 3 MMBtu/h of boiler fuel for space heating at
/// 80 % ($8/MMBtu), and a CHP whose cheap fuel ($2/MMBtu at 35 %) makes
/// electricity below the wholesale rate: a single cost slope, equal full- and half-load
/// efficiencies and no turndown (no on/off binary), no maintenance hours.
fn exporting_scenario(load_kw: Vec<f64>, chp: Value, tariff: Value) -> Value {
    let mut chp_inputs = json!({
        "prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 2.0, "min_allowable_kw": 0,
        "installed_cost_per_kw": 1500.0, "om_cost_per_kwh": 0.005, "om_cost_per_kw": 0.0, "om_cost_per_hr_per_kw_rated": 0.0,
        "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": 0.35,
        "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": 0.45, "min_turn_down_fraction": 0.0,
        "macrs_option_years": 0, "macrs_bonus_fraction": 0.0, "federal_itc_fraction": 0.0,
        "unavailability_periods": [{"month": 1, "start_week_of_month": 2, "start_day_of_week": 6, "start_hour": 1, "duration_hours": 0}]
    });
    chp_inputs.as_object_mut().unwrap().extend(chp.as_object().unwrap().clone());
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "Financial": {"analysis_years": 20, "offtaker_discount_rate_fraction": 0.08, "offtaker_tax_rate_fraction": 0.26,
                      "elec_cost_escalation_rate_fraction": 0.02, "om_cost_escalation_rate_fraction": 0.025},
        "ElectricLoad": {"loads_kw": load_kw, "year": 2017},
        "ElectricTariff": tariff,
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![3.0; 8760]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 8.0, "efficiency": 0.8},
        "CHP": chp_inputs
    })
}

/// Every step: production = to load (curtailment included, as the service writes it) + to
/// storage + to grid, atol 1e-6.
fn assert_split(body: &Value) {
    let production = series(body, "CHP", "electric_production_series_kw");
    let to_load = series(body, "CHP", "electric_to_load_series_kw");
    let to_storage = series(body, "CHP", "electric_to_storage_series_kw");
    let to_grid = series(body, "CHP", "electric_to_grid_series_kw");
    for t in 0..production.len() {
        let parts = to_load[t] + to_storage[t] + to_grid[t];
        assert!(isapprox(production[t], parts, 0.0, 1e-6), "step {t}: production {} vs parts {parts}", production[t]);
    }
}

/// Wholesale at $0.06/kWh (energy $0.10/kWh) on a flat 200 kW load, with a CHP fixed at 500 kW that may wholesale: it runs flat out, serves
/// the 200 kW load and exports the other 300 kW in every step; the year-one export benefit is
/// Σ 0.06·to grid (rtol 1e-6) and its lifecycle value that times pwf_e·(1 − τ). Without the flag
/// (the service's default, the relation "CHP never exports" of "CHP Unavailability and
/// Outage"), the same CHP exports nothing, so it runs at the load.
#[test]
fn chp_wholesale_exports_are_split_and_paid() {
    let tariff = json!({"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 0.0, "wholesale_rate": 0.06});
    let (model, run, body) = solve(&exporting_scenario(vec![200.0; 8760], json!({"min_kw": 500, "max_kw": 500, "can_wholesale": true}), tariff.clone()));
    assert_split(&body);
    let to_grid = series(&body, "CHP", "electric_to_grid_series_kw");
    let production = series(&body, "CHP", "electric_production_series_kw");
    for t in 0..to_grid.len() {
        assert!(isapprox(production[t], 500.0, 1e-9, 1e-6), "step {t}: production {}", production[t]);
        assert!(isapprox(to_grid[t], 300.0, 1e-9, 1e-6), "step {t}: export {}", to_grid[t]);
    }
    let benefit = number(&body, "ElectricTariff", "year_one_export_benefit_before_tax");
    let by_hand: f64 = to_grid.iter().map(|kw| 0.06 * kw).sum();
    assert!(isapprox(benefit, by_hand, 1e-6, 0.0), "export benefit {benefit} vs {by_hand}");
    assert!(isapprox(by_hand, 0.06 * 300.0 * 8760.0, 1e-6, 0.0));
    let lifecycle = number(&body, "ElectricTariff", "lifecycle_export_benefit_after_tax");
    let expected = by_hand * run.factors.pwf_e * (1.0 - model.financial.offtaker_tax_rate_fraction);
    assert!(isapprox(lifecycle, expected, 1e-6, 0.0), "lifecycle export benefit {lifecycle} vs {expected}");

    let (_, _, body) = solve(&exporting_scenario(vec![200.0; 8760], json!({"min_kw": 500, "max_kw": 500}), tariff));
    assert_split(&body);
    assert_eq!(series(&body, "CHP", "electric_to_grid_series_kw").iter().sum::<f64>(), 0.0);
    assert_eq!(number(&body, "ElectricTariff", "year_one_export_benefit_before_tax"), 0.0);
    let production = series(&body, "CHP", "electric_production_series_kw");
    assert!(production.iter().all(|&kw| kw <= 200.0 + 1e-6), "the CHP runs above the load without exports");
}

/// Net metering on a load of 200 kW by day and 50 kW by night, with the net-metering limit equal
/// to the interconnection limit (150 kW; the service's single `sum(dvSize[NEM_techs]) ≤
/// interconnection_limit_kw` row, binNEM = 1): a CHP that may net meter is sized at most 150 kW,
/// it exports at night, its exports (credited at the retail rate) are at most the energy bought
/// over the year (the service's constraint (9c), binding here: rtol 1e-6), and the year-one benefit is Σ nem_rate·to grid
/// (rtol 1e-6). The same CHP without the flag is not capped: it is sized above 150 kW.
#[test]
fn chp_net_metering_caps_its_size_and_credits() {
    let tariff = json!({"monthly_energy_rates": [0.10, 0.10, 0.30, 0.30, 0.10, 0.10, 0.10, 0.10, 0.10, 0.10, 0.10, 0.10],
                        "monthly_demand_rates": vec![0.0; 12]});
    let load: Vec<f64> = (0..8760).map(|t| if (6..18).contains(&(t % 24)) { 200.0 } else { 50.0 }).collect();
    let mut scenario = exporting_scenario(load.clone(), json!({"max_kw": 400, "can_net_meter": true}), tariff.clone());
    scenario["ElectricUtility"] = json!({"net_metering_limit_kw": 150.0, "interconnection_limit_kw": 150.0});
    let (model, _, body) = solve(&scenario);
    assert_split(&body);
    let size = number(&body, "CHP", "size_kw");
    assert!(size > 1.0 && size <= 150.0 + 1e-6, "CHP size {size} against the 150 kW limit");
    let to_grid = series(&body, "CHP", "electric_to_grid_series_kw");
    let bought: f64 = series(&body, "ElectricUtility", "electric_to_load_series_kw").iter().sum::<f64>()
        + series(&body, "ElectricUtility", "electric_to_storage_series_kw").iter().sum::<f64>();
    let exported: f64 = to_grid.iter().sum();
    assert!(exported > 1.0, "the CHP exports at night: {exported} kWh");
    assert!(exported <= bought * (1.0 + 1e-6), "net-metered {exported} kWh against {bought} kWh bought");
    let benefit = number(&body, "ElectricTariff", "year_one_export_benefit_before_tax");
    let by_hand: f64 = to_grid.iter().enumerate().map(|(t, kw)| model.tariff.nem_rate[t] * kw).sum();
    assert!(isapprox(benefit, by_hand, 1e-6, 0.0), "export benefit {benefit} vs {by_hand}");

    let mut scenario = exporting_scenario(load, json!({"max_kw": 400}), tariff);
    scenario["ElectricUtility"] = json!({"net_metering_limit_kw": 150.0, "interconnection_limit_kw": 150.0});
    let (_, _, body) = solve(&scenario);
    assert!(number(&body, "CHP", "size_kw") > 150.0 + 1.0, "uncapped CHP size {}", body["CHP"]["size_kw"]);
    assert_eq!(series(&body, "CHP", "electric_to_grid_series_kw").iter().sum::<f64>(), 0.0);
}

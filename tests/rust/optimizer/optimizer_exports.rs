//! Exports per technology: PV and Wind with different export and curtailment flags, each
//! exporting only into the bins its own flags allow (REopt.jl `add_export_constraints` and the
//! export bins per technology of `src/core/techs.jl`; own synthetic fixtures).

use serde_json::{json, Value};
use sunflux::optimizer::{from_scenario, optimize, outputs, SolveControl};
use crate::support::{daytime_production, numbers};

fn wind_factor() -> Vec<f64> {
    (0..8760).map(|h| if (6..18).contains(&(h % 24)) { 0.1 } else { 0.5 }).collect()
}

/// A flat 100 kW load on a blended tariff with a wholesale rate, PV fixed at 400 kW (far more
/// than the load by day) and Wind at 100 kW (50 kW at night: the site still buys at night, so
/// net metering has purchases to offset).
fn scenario(pv_flags: Value, wind_flags: Value) -> Value {
    let mut pv = json!({"installed_cost_per_kw": 100, "om_cost_per_kw": 0, "min_kw": 400, "max_kw": 400, "federal_itc_fraction": 0.0, "macrs_option_years": 0, "degradation_fraction": 0.0});
    let mut wind = json!({"installed_cost_per_kw": 100, "om_cost_per_kw": 0, "min_kw": 100, "max_kw": 100, "federal_itc_fraction": 0.0, "macrs_option_years": 0, "production_factor_series": wind_factor()});
    pv.as_object_mut().unwrap().extend(pv_flags.as_object().unwrap().clone());
    wind.as_object_mut().unwrap().extend(wind_flags.as_object().unwrap().clone());
    json!({
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "Financial": {"analysis_years": 20, "offtaker_discount_rate_fraction": 0.06, "offtaker_tax_rate_fraction": 0.25},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 876_000.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.12, "blended_annual_demand_rate": 0.0, "wholesale_rate": 0.05},
        "ElectricUtility": {"net_metering_limit_kw": 1000.0, "interconnection_limit_kw": 1000.0},
        "PV": pv,
        "Wind": wind,
    })
}

/// The body and, per array (PV 0, Wind 1), its exports per bin (kWh in the year: net
/// metering, wholesale, beyond the limit).
fn run(scenario: &Value) -> (Value, Vec<[f64; 3]>) {
    let model = from_scenario(scenario, &[Some(daytime_production(0.8))]).expect("supported scenario");
    let run = optimize(&model, &SolveControl::default()).expect("optimal");
    let bins = run.optimal.dispatch.pv_by_array.iter().map(|flows| flows.to_grid.each_ref().map(|s| s.iter().sum())).collect();
    (outputs::optimal_outputs(&model, &run), bins)
}

/// Each array's flows add up to its production in every step.
fn assert_array_balances(section: &Value, factor: &[f64], kw: f64) {
    let parts = ["electric_to_load_series_kw", "electric_to_storage_series_kw", "electric_to_grid_series_kw", "electric_curtailed_series_kw"];
    let series: Vec<Vec<f64>> = parts.iter().map(|p| numbers(&section[p])).collect();
    for t in 0..8760 {
        let used: f64 = series.iter().map(|s| s[t]).sum();
        assert!((used - factor[t] * kw).abs() < 1e-4, "step {t}: {used} vs {}", factor[t] * kw);
    }
}

#[test]
fn wind_that_cannot_net_meter_sends_nothing_to_the_grid_while_pv_net_meters() {
    let (body, bins) = run(&scenario(json!({"can_net_meter": true, "can_wholesale": false}), json!({"can_net_meter": false, "can_wholesale": false})));
    let (pv, wind) = (&body["PV"], &body["Wind"]);
    assert!(numbers(&wind["electric_to_grid_series_kw"]).iter().all(|&kw| kw == 0.0), "Wind has no export bin");
    assert_eq!(bins[1], [0.0; 3]);
    assert!(bins[0][0] > 1.0e5 && bins[0][1] == 0.0, "PV net meters its surplus: {:?}", bins[0]);
    assert_array_balances(pv, &daytime_production(0.8), 400.0);
    assert_array_balances(wind, &wind_factor(), 100.0);
}

#[test]
fn pv_that_may_only_wholesale_and_wind_that_may_not_curtail_keep_to_their_flags() {
    // Wind may only net meter and not curtail, PV may only wholesale: the service's binary
    // chooses net metering (Wind credited, PV's wholesale without value) or the interconnection
    // limit (PV sold at the wholesale rate, Wind with no bin at all: all of it to load).
    let (body, bins) = run(&scenario(json!({"can_net_meter": false, "can_wholesale": true}), json!({"can_net_meter": true, "can_wholesale": false, "can_curtail": false})));
    let (pv, wind) = (&body["PV"], &body["Wind"]);
    assert!(numbers(&wind["electric_curtailed_series_kw"]).iter().all(|&kw| kw == 0.0), "Wind may not curtail");
    assert!(bins[0][0] == 0.0 && bins[0][2] == 0.0, "PV only wholesales: {:?}", bins[0]);
    assert!(bins[1][1] == 0.0 && bins[1][2] == 0.0, "Wind only net meters: {:?}", bins[1]);
    assert!(bins[0][1] > 1.0e5, "the interconnection case sells PV's surplus wholesale: {:?}", bins[0]);
    assert_array_balances(pv, &daytime_production(0.8), 400.0);
    assert_array_balances(wind, &wind_factor(), 100.0);
}

/// REopt.jl testset "Do not allow_simultaneous_export_import" (test/runtests.jl), rebuilt on an
/// own fixture: monthly energy rates without demand charges, PV up to 200 kW, a wholesale rate
/// in January 0.10 $/kWh above that month's retail rate (0 after). The Julia test: in January,
/// wherever PV exports, the grid serves no load (exactly 0). With simultaneous export and
/// import allowed, PV instead sells all it makes in January and the grid serves the load.
#[test]
fn do_not_allow_simultaneous_export_import() {
    let january = 31 * 24;
    let rates = [0.15, 0.2, 0.21, 0.23, 0.27, 0.19, 0.22, 0.17, 0.24, 0.26, 0.18, 0.2];
    let wholesale: Vec<f64> = (0..8760).map(|t| if t < january { rates[0] + 0.1 } else { 0.0 }).collect();
    let load: Vec<f64> = (0..8760).map(|t| if (7..22).contains(&(t % 24)) { 40.0 } else { 20.0 }).collect();
    let scenario = |allow: bool| {
        json!({
            "Site": {"latitude": 35.2, "longitude": -91.7},
            "Financial": {"analysis_years": 20, "offtaker_discount_rate_fraction": 0.081, "elec_cost_escalation_rate_fraction": 0.026, "offtaker_tax_rate_fraction": 0.26},
            "ElectricLoad": {"loads_kw": load, "year": 2017},
            "ElectricTariff": {"monthly_energy_rates": rates, "monthly_demand_rates": vec![0.0; 12], "wholesale_rate": wholesale},
            "ElectricUtility": {"allow_simultaneous_export_import": allow},
            "PV": {"max_kw": 200.0, "installed_cost_per_kw": 2000.0, "om_cost_per_kw": 16.0, "federal_itc_fraction": 0.3, "macrs_bonus_fraction": 0.0},
        })
    };
    let (body, _) = run(&scenario(false));
    let (to_grid, grid_to_load) = (numbers(&body["PV"]["electric_to_grid_series_kw"]), numbers(&body["ElectricUtility"]["electric_to_load_series_kw"]));
    assert!(to_grid[..january].iter().sum::<f64>() > 0.0, "PV exports in January");
    assert!((0..january).filter(|&t| to_grid[t] > 0.0).all(|t| grid_to_load[t] == 0.0));
    let (body, _) = run(&scenario(true));
    let (to_grid, grid_to_load) = (numbers(&body["PV"]["electric_to_grid_series_kw"]), numbers(&body["ElectricUtility"]["electric_to_load_series_kw"]));
    assert!((0..january).any(|t| to_grid[t] > 0.0 && grid_to_load[t] > 0.0), "two meters in effect: export and import at once");
}

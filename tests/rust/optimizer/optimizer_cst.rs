//! Concentrating solar thermal (CST) with a production factor made in code: the REopt.jl anchor
//! "CST + High-temperature TES" (`test/runtests.jl`; its production factor comes from SAM and
//! its hot-water tank beside the storage is refused here, so its production and curtailment
//! numbers do not carry over: the relations they come from are asserted instead) rebuilt on our
//! own process-heat load, CST serving some heat loads and not others with and without waste, and
//! the reader's bounds and refusals. Every solve checks each step: CST's production equal to
//! `cf · size` and split into its flows, the heat balance per load, the storage's SOC recursion,
//! and CST's electricity (production / 1000) in the electric balance.

use serde_json::{json, Value};
use sunflux::optimizer::model::cst_inputs::CST_COP;
use sunflux::optimizer::model::KWH_PER_MMBTU;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{daytime_production, isapprox, number, series, solve};

/// The high-temperature storage's defaults the SOC check uses (REopt.jl
/// `HighTempThermalStorageDefaults`, commit 029db01d).
const SOC_INIT: f64 = 0.5;
const DECAY: f64 = 0.0004;
/// The service's CST and storage installed costs the anchor's capital check uses ($/kW, $/kWh).
const CST_PER_KW: f64 = 2200.0;
const STORAGE_PER_KWH: f64 = 86.0;
/// Boiler efficiency of every scenario here (thermal kW per kW of fuel).
const BOILER_EFFICIENCY: f64 = 0.8;

/// A flat 100 kW electric load on a $0.10/kWh tariff, the existing boiler ($10/MMBtu), `loads`
/// (heating load sections by name with their boiler fuel in MMBtu/h, flat) and `extra` sections;
/// no BAU run.
fn scenario(loads: &[(&str, f64)], extra: Value) -> Value {
    let mut s = json!({
        "Settings": {"run_bau": false},
        "Site": {"latitude": 37.78, "longitude": -122.45, "land_acres": 20.0},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 0.0},
        "ExistingBoiler": {"efficiency": BOILER_EFFICIENCY, "fuel_cost_per_mmbtu": 10.0}
    });
    for &(section, mmbtu) in loads {
        s[section] = json!({"fuel_loads_mmbtu_per_hour": vec![mmbtu; 8760]});
    }
    for (key, value) in extra.as_object().expect("sections") {
        s[key] = value.clone();
    }
    s
}

/// A results series in kW (zeros when the section is absent).
fn kw(body: &Value, section: &str, field: &str) -> Vec<f64> {
    if body[section].is_null() {
        return vec![0.0; 8760];
    }
    series(body, section, field).iter().map(|v| v * KWH_PER_MMBTU).collect()
}

/// CST's flows of a results body (kW per step).
struct CstFlows {
    production: Vec<f64>,
    to_storage: Vec<f64>,
    curtailed: Vec<f64>,
}

/// Checks CST's rows in every step: production equal to `cf · size`, split into heat to the
/// loads, to storage and wasted; its heat to each load the sum of the per-load series; its
/// electricity production / 1000 and in the grid's supply to the 100 kW load.
fn checked_cst(body: &Value, cf: &[f64]) -> CstFlows {
    let size = number(body, "CST", "size_kw");
    let production = kw(body, "CST", "thermal_production_series_mmbtu_per_hour");
    let to_load = kw(body, "CST", "thermal_to_load_series_mmbtu_per_hour");
    let to_storage = kw(body, "CST", "thermal_to_storage_series_mmbtu_per_hour");
    let curtailed = kw(body, "CST", "thermal_curtailed_series_mmbtu_per_hour");
    let per_load: Vec<Vec<f64>> = ["dhw_load", "space_heating_load", "process_heat_load"]
        .iter()
        .map(|name| kw(body, "CST", &format!("thermal_to_{name}_series_mmbtu_per_hour")))
        .collect();
    let electric = series(body, "CST", "electric_consumption_series_kw");
    let grid = series(body, "ElectricUtility", "electric_to_load_series_kw");
    for t in 0..8760 {
        let made = cf[t] * size;
        assert!((production[t] - made).abs() <= 1e-3 * made.max(1.0), "production at {t}: {} vs cf·size {made}", production[t]);
        let split = to_load[t] + to_storage[t] + curtailed[t];
        assert!((split - production[t]).abs() <= 1e-2, "CST flows at {t}: {split} vs {}", production[t]);
        let loads: f64 = per_load.iter().map(|s| s[t]).sum();
        assert!((loads - to_load[t]).abs() <= 1e-2, "CST heat per load at {t}: {loads} vs {}", to_load[t]);
        assert!((electric[t] - production[t] / CST_COP).abs() <= 1e-3, "CST electricity at {t}: {}", electric[t]);
        assert!((grid[t] - 100.0 - electric[t]).abs() <= 1e-3, "electric balance at {t}: grid {} for 100 kW + CST {}", grid[t], electric[t]);
    }
    let annual = number(body, "CST", "annual_electric_consumption_kwh");
    assert!(isapprox(annual, electric.iter().sum(), 1e-6, 1e-3), "annual electricity {annual}");
    CstFlows { production, to_storage, curtailed }
}

/// The thermal load (kW) of a flat boiler fuel load (MMBtu/h).
fn thermal_kw(mmbtu: f64) -> f64 {
    mmbtu * BOILER_EFFICIENCY * KWH_PER_MMBTU
}

/// "CST + High-temperature TES": a 10,000 kW CST that only charges a 10,000 kWh storage serving
/// a process-heat load. The testset's size checks (CST 10,000 kW atol 0.001 and its MMBtu/h
/// atol 1.0e-3, storage 10,000 kWh atol 0.1) and its capital check (initial capital = CST
/// kW · $2,200 + storage kWh · $86, rtol 1.0e-3) carry over; its production and curtailment
/// (SAM's) are here Σ cf · size and production less the charges (rtol 1.0e-4, the testset's). In
/// every step: CST's rows, nothing to the load straight from CST, the process-heat balance with
/// the storage's discharge, and the SOC recursion on CST's and the boiler's charges.
#[test]
fn cst_charging_high_temp_storage() {
    let cf = daytime_production(0.7);
    let load = thermal_kw(1.0);
    let s = scenario(
        &[("ProcessHeatLoad", 1.0)],
        json!({
            "HighTempThermalStorage": {"min_kwh": 10000.0, "max_kwh": 10000.0, "installed_cost_per_kwh": STORAGE_PER_KWH},
            "CST": {"min_kw": 10000.0, "max_kw": 10000.0, "production_factor": cf, "elec_consumption_factor_series": vec![0.0; 8760],
                    "charge_storage_only": true, "can_serve_process_heat": true, "installed_cost_per_kw": CST_PER_KW}
        }),
    );
    let (_, _, body) = solve(&s);
    let size_kw = number(&body, "CST", "size_kw");
    assert!((size_kw - 10000.0).abs() <= 0.001, "CST size {size_kw}");
    assert!((number(&body, "CST", "size_mmbtu_per_hour") - 10000.0 / KWH_PER_MMBTU).abs() <= 1.0e-3);
    let storage_kwh = number(&body, "HighTempThermalStorage", "size_kwh");
    assert!((storage_kwh - 10000.0).abs() <= 0.1, "storage size {storage_kwh}");
    let capital = number(&body, "Financial", "initial_capital_costs");
    assert!(isapprox(capital, size_kw * CST_PER_KW + storage_kwh * STORAGE_PER_KWH, 1.0e-3, 0.0), "initial capital {capital}");

    let flows = checked_cst(&body, &cf);
    let annual = number(&body, "CST", "annual_thermal_production_mmbtu");
    let expected = cf.iter().sum::<f64>() * 10000.0 / KWH_PER_MMBTU;
    assert!(isapprox(annual, expected, 1.0e-4, 0.0), "annual production {annual} vs {expected}");
    let curtailed: f64 = flows.curtailed.iter().sum();
    let charged: f64 = flows.to_storage.iter().sum();
    assert!(isapprox(curtailed, flows.production.iter().sum::<f64>() - charged, 1.0e-4, 0.0), "curtailed {curtailed}");
    assert!(curtailed > 0.0 && charged > 0.0, "CST both charges and curtails: {charged} / {curtailed} kWh");
    assert!(kw(&body, "CST", "thermal_to_load_series_mmbtu_per_hour").iter().all(|&v| v == 0.0), "charge_storage_only: no heat straight to load");
    let to_high_temp = kw(&body, "CST", "thermal_to_high_temp_thermal_storage_series_mmbtu_per_hour");
    assert!(to_high_temp.iter().zip(&flows.to_storage).all(|(a, b)| (a - b).abs() < 1e-9));

    let boiler_to_load = kw(&body, "ExistingBoiler", "thermal_to_load_series_mmbtu_per_hour");
    let boiler_to_storage = kw(&body, "ExistingBoiler", "thermal_to_storage_series_mmbtu_per_hour");
    let discharge = kw(&body, "HighTempThermalStorage", "storage_to_load_series_mmbtu_per_hour");
    let soc: Vec<f64> = series(&body, "HighTempThermalStorage", "soc_series_fraction").iter().map(|f| f * storage_kwh).collect();
    let efficiency = 0.999999f64.sqrt();
    let mut previous = SOC_INIT * storage_kwh;
    for t in 0..8760 {
        let supplied = boiler_to_load[t] + discharge[t];
        assert!((supplied - load).abs() <= 1e-3 * load, "process heat balance at {t}: {supplied} vs {load}");
        let charge = flows.to_storage[t] + boiler_to_storage[t];
        let expected = previous * (1.0 - DECAY) + efficiency * charge - discharge[t] / efficiency;
        assert!((soc[t] - expected).abs() <= 1e-3 * storage_kwh, "SOC at {t}: {} vs {expected}", soc[t]);
        previous = soc[t];
    }
    // Free solar heat through the storage carries most of the load the boiler would burn fuel for.
    assert!(discharge.iter().sum::<f64>() > 0.9 * load * 8760.0, "the storage serves most of the load");
}

/// CST that may serve the space heating but not the hot water, without storage: per load, the
/// boiler and CST meet each load in every step and CST gives the hot water nothing. Without
/// waste its production (cf · size) may never exceed the space heating load, so the cheap CST is
/// sized to the load over the peak factor (rtol 1.0e-4); allowed to waste, it is built larger
/// and curtails the excess.
#[test]
fn cst_serving_space_heating_only_with_and_without_waste() {
    let cf = daytime_production(0.7);
    let space = thermal_kw(2.0);
    let dhw = thermal_kw(1.0);
    let run = |can_waste: bool| {
        let s = scenario(
            &[("SpaceHeatingLoad", 2.0), ("DomesticHotWaterLoad", 1.0)],
            json!({"CST": {"max_kw": 5000.0, "production_factor": cf, "elec_consumption_factor_series": vec![0.0; 8760],
                           "can_serve_space_heating": true, "can_serve_dhw": false, "can_serve_process_heat": false,
                           "can_waste_heat": can_waste, "installed_cost_per_kw": 100.0, "om_cost_per_kw": 0.0}}),
        );
        let (_, _, body) = solve(&s);
        let flows = checked_cst(&body, &cf);
        let cst_space = kw(&body, "CST", "thermal_to_space_heating_load_series_mmbtu_per_hour");
        let cst_dhw = kw(&body, "CST", "thermal_to_dhw_load_series_mmbtu_per_hour");
        let boiler_space = kw(&body, "ExistingBoiler", "thermal_to_space_heating_load_series_mmbtu_per_hour");
        let boiler_dhw = kw(&body, "ExistingBoiler", "thermal_to_dhw_load_series_mmbtu_per_hour");
        for t in 0..8760 {
            assert_eq!(cst_dhw[t], 0.0, "CST heat to the hot water at {t}");
            assert!((boiler_space[t] + cst_space[t] - space).abs() <= 1e-3 * space, "space heating balance at {t}: {} + {}", boiler_space[t], cst_space[t]);
            assert!((boiler_dhw[t] - dhw).abs() <= 1e-3 * dhw, "hot water balance at {t}: {}", boiler_dhw[t]);
        }
        (number(&body, "CST", "size_kw"), flows)
    };
    let peak_cf = cf.iter().copied().fold(0.0, f64::max);
    let (size, flows) = run(false);
    assert!(isapprox(size, space / peak_cf, 1.0e-4, 0.0), "no waste: size {size} vs load / peak cf {}", space / peak_cf);
    assert!(flows.curtailed.iter().all(|&v| v == 0.0), "nothing curtailed without waste");
    let (wasting_size, wasting) = run(true);
    assert!(wasting_size > size * 1.05, "with waste CST is built larger: {wasting_size} vs {size}");
    assert!(wasting.curtailed.iter().sum::<f64>() > 0.0, "and curtails the excess");
}

/// The reader: the production factor as cf, the COP of 1000, the land bound on the size
/// (Site.land_acres / acres_per_kw), the net present cost with 5-year MACRS below the installed
/// cost, the invalid scenario without land, and the refusals by name.
#[test]
fn reader_bounds_and_refusals() {
    let cf = daytime_production(0.5);
    let with_cst = |cst: Value| scenario(&[("ProcessHeatLoad", 1.0)], json!({ "CST": cst }));
    let model = from_scenario(&with_cst(json!({"production_factor": cf, "acres_per_kw": 0.001, "macrs_option_years": 5})), &[]).expect("supported");
    let tech = model.heat_pumps.first().expect("CST");
    assert_eq!(tech.kind.section(), "CST");
    assert_eq!(tech.cf, cf);
    assert!(tech.cop.iter().all(|&c| c == CST_COP));
    assert!((tech.max_kw - 20.0 / 0.001).abs() < 1e-6, "land bound {}", tech.max_kw);
    assert!(tech.net_present_cost_per_kw < tech.installed_cost_per_kw, "MACRS: {}", tech.net_present_cost_per_kw);

    let mut no_land = with_cst(json!({"production_factor": cf}));
    no_land["Site"].as_object_mut().expect("site").remove("land_acres");
    match from_scenario(&no_land, &[]) {
        Err(ScenarioError::Invalid(items)) => assert!(items.iter().any(|i| i.contains("Site.land_acres not provided")), "{items:?}"),
        other => panic!("expected invalid without land, got {other:?}"),
    }
    let refused = |scenario: Value, reason: &str| match from_scenario(&scenario, &[]) {
        Err(ScenarioError::Unsupported(u)) => assert!(u.items.iter().any(|i| i.contains(reason)), "{reason} not in {:?}", u.items),
        other => panic!("expected a refusal naming {reason}, got {other:?}"),
    };
    refused(with_cst(json!({"max_kw": 100.0})), "CST without production_factor");
    refused(with_cst(json!({"production_factor": cf, "tech_type": "lf"})), "CST.tech_type=lf");
    refused(with_cst(json!({"production_factor": cf, "can_serve_process_heat": false})), "CST serving none of the heating loads given");
}

/// REopt.jl's `LandConstraint`: CST and a ground-mounted PV array share `Site.land_acres`. On one
/// acre, with CST at 0.001 acres/kW serving a process-heat load and PV at 0.006 acres/kW sized
/// against a flat 100 kW load, the shared row binds (Σ acres within 1e-6 of the acre) and PV is
/// smaller than with 20 acres, where neither is held by the land.
#[test]
fn cst_shares_the_land_with_ground_pv() {
    let cf = daytime_production(0.5);
    let run = |acres: f64| {
        let mut s = scenario(
            &[("ProcessHeatLoad", 1.0)],
            json!({"CST": {"max_kw": 5000.0, "production_factor": cf, "acres_per_kw": 0.001, "installed_cost_per_kw": 100.0, "om_cost_per_kw": 0.0},
                   "PV": {"max_kw": 1000.0, "location": "ground", "acres_per_kw": 0.006, "production_factor_series": daytime_production(0.8),
                          "installed_cost_per_kw": 500.0, "om_cost_per_kw": 0.0, "can_net_meter": false, "can_wholesale": false,
                          "can_export_beyond_nem_limit": false}}),
        );
        s["Site"]["land_acres"] = json!(acres);
        let (_, _, body) = solve(&s);
        (number(&body, "PV", "size_kw"), number(&body, "CST", "size_kw"))
    };
    let (pv_roomy, cst_roomy) = run(20.0);
    assert!(0.006 * pv_roomy + 0.001 * cst_roomy < 19.0, "20 acres do not bind: PV {pv_roomy} kW, CST {cst_roomy} kW");
    let (pv, cst) = run(1.0);
    let used = 0.006 * pv + 0.001 * cst;
    assert!((used - 1.0).abs() <= 1e-6, "the shared land row binds: {used} acres (PV {pv} kW, CST {cst} kW)");
    assert!(pv < pv_roomy - 1.0, "PV {pv} kW on one acre against {pv_roomy} kW on twenty");
}

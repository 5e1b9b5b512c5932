//! The high-temperature thermal storage: the storage part of the REopt.jl anchor "CST +
//! High-temperature TES" (`test/runtests.jl`; its CST and hot-water tank are not built here, so
//! its other numbers do not carry over) rebuilt on our own process-heat load, the reader's
//! defaults and refusals, and the storage's rows checked step by step in every solve: the heat
//! balance with its charge and discharge, the SOC recursion (decay on the stored energy), its
//! charge and discharge rates, its SOC floor, and `one_direction_flow`.

use serde_json::{json, Value};
use sunflux::optimizer::model::KWH_PER_MMBTU;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{isapprox, number, series, solve};

/// The storage's defaults the checks use (REopt.jl `HighTempThermalStorageDefaults`, commit 029db01d).
const CHARGE_HOURS: f64 = 4.0;
const DISCHARGE_HOURS: f64 = 10.0;
const SOC_MIN: f64 = 0.1;
const SOC_INIT: f64 = 0.5;
const DECAY: f64 = 0.0004;
const INSTALLED_PER_KWH: f64 = 86.0;

/// A process-heat load (boiler fuel, MMBtu/h) that runs from 08:00 to 18:00 at `day_mmbtu` and
/// at a tenth of it otherwise, the existing boiler (η 0.8, $10/MMBtu, `existing_factor` × the
/// peak), a new boiler that costs `boiler_per_mmbtu_per_hour` to build, and the storage with
/// `storage` inputs; no BAU run.
fn scenario(day_mmbtu: f64, existing_factor: f64, boiler_per_mmbtu_per_hour: f64, storage: Value) -> Value {
    let fuel: Vec<f64> = (0..8760).map(|h| if (8..18).contains(&(h % 24)) { day_mmbtu } else { day_mmbtu / 10.0 }).collect();
    json!({
        "Settings": {"run_bau": false},
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 0.0},
        "ProcessHeatLoad": {"fuel_loads_mmbtu_per_hour": fuel},
        "ExistingBoiler": {"efficiency": 0.8, "fuel_cost_per_mmbtu": 10.0, "max_thermal_factor_on_peak_load": existing_factor},
        "Boiler": {"efficiency": 0.8, "fuel_cost_per_mmbtu": 10.0, "max_mmbtu_per_hour": 100.0,
                   "installed_cost_per_mmbtu_per_hour": boiler_per_mmbtu_per_hour, "om_cost_per_mmbtu_per_hour": 0.0},
        "HighTempThermalStorage": storage
    })
}

/// The storage's flows of a results body (kW per step) and its size (kWh).
struct Flows {
    size_kwh: f64,
    charge: Vec<f64>,
    discharge: Vec<f64>,
    soc_kwh: Vec<f64>,
}

fn kw(body: &Value, section: &str, field: &str) -> Vec<f64> {
    if body[section].is_null() {
        return vec![0.0; 8760];
    }
    series(body, section, field).iter().map(|v| v * KWH_PER_MMBTU).collect()
}

/// Checks the heat balance and the storage's rows in every step and returns its flows.
fn checked_flows(model_load_kw: &[f64], body: &Value) -> Flows {
    let size_kwh = number(body, "HighTempThermalStorage", "size_kwh");
    let storage_to_load = kw(body, "HighTempThermalStorage", "storage_to_load_series_mmbtu_per_hour");
    let to_turbine = kw(body, "HighTempThermalStorage", "storage_to_turbine_series_mmbtu_per_hour");
    assert!(to_turbine.iter().all(|&v| v == 0.0), "no turbine, no heat to it");
    let existing_to_load = kw(body, "ExistingBoiler", "thermal_to_load_series_mmbtu_per_hour");
    let new_to_load = kw(body, "Boiler", "thermal_to_load_series_mmbtu_per_hour");
    let existing_to_storage = kw(body, "ExistingBoiler", "thermal_to_storage_series_mmbtu_per_hour");
    let new_to_storage = kw(body, "Boiler", "thermal_to_storage_series_mmbtu_per_hour");
    let soc: Vec<f64> = series(body, "HighTempThermalStorage", "soc_series_fraction").iter().map(|f| f * size_kwh).collect();
    let charge: Vec<f64> = (0..8760).map(|t| existing_to_storage[t] + new_to_storage[t]).collect();
    let efficiency = 0.999999f64.sqrt();
    let mut previous = SOC_INIT * size_kwh;
    for t in 0..8760 {
        let supplied = existing_to_load[t] + new_to_load[t] + storage_to_load[t];
        assert!((supplied - model_load_kw[t]).abs() <= 1e-3 * model_load_kw[t].max(1.0), "heat balance at {t}: {supplied} vs {}", model_load_kw[t]);
        let expected = previous * (1.0 - DECAY) + efficiency * charge[t] - storage_to_load[t] / efficiency;
        assert!((soc[t] - expected).abs() <= 1e-3 * size_kwh.max(1.0), "SOC at {t}: {} vs {expected}", soc[t]);
        assert!(charge[t] <= size_kwh / CHARGE_HOURS + 1e-3, "charge rate at {t}: {}", charge[t]);
        assert!(storage_to_load[t] <= size_kwh / DISCHARGE_HOURS + 1e-3, "discharge rate at {t}: {}", storage_to_load[t]);
        assert!(soc[t] >= SOC_MIN * size_kwh - 1e-3 && soc[t] <= size_kwh + 1e-3, "SOC bounds at {t}: {}", soc[t]);
        previous = soc[t];
    }
    Flows { size_kwh, charge, discharge: storage_to_load, soc_kwh: soc }
}

fn load_kw(scenario: &Value) -> Vec<f64> {
    let fuel = scenario["ProcessHeatLoad"]["fuel_loads_mmbtu_per_hour"].as_array().expect("fuel series");
    fuel.iter().map(|v| v.as_f64().expect("number") * 0.8 * KWH_PER_MMBTU).collect()
}

/// "CST + High-temperature TES", its storage part: a storage of 10,000 kWh (atol 0.1, the
/// testset's) and its capital cost in `Financial.initial_capital_costs` at the installed
/// $86/kWh (rtol 1.0e-3). Here the storage is the only thing built (the new boiler is priced out),
/// and the balances and rows hold in every step.
#[test]
fn fixed_storage_capital_cost_and_rows() {
    let s = scenario(1.0, 1.0, 1.0e7, json!({"min_kwh": 10000.0, "max_kwh": 10000.0}));
    let (_, _, body) = solve(&s);
    let flows = checked_flows(&load_kw(&s), &body);
    assert!((flows.size_kwh - 10000.0).abs() <= 0.1, "size {}", flows.size_kwh);
    let capital = number(&body, "Financial", "initial_capital_costs");
    assert!(isapprox(capital, flows.size_kwh * INSTALLED_PER_KWH, 1.0e-3, 0.0), "initial capital {capital}");
    // The initial charge is free heat: the storage gives it back to the load.
    assert!(flows.discharge.iter().sum::<f64>() > 0.0, "the storage discharges its initial charge");
    assert!(flows.soc_kwh.iter().all(|&soc| soc >= SOC_MIN * flows.size_kwh - 1e-3));
}

/// With a costly new boiler the storage shaves the day's peak (charged at night by the boilers'
/// spare capacity), and with `one_direction_flow` no step both charges and discharges.
#[test]
fn storage_sized_against_a_boiler_one_direction() {
    let s = scenario(10.0, 0.3, 1.0e6, json!({"max_kwh": 100000.0, "one_direction_flow": true}));
    let (model, _, body) = solve(&s);
    let flows = checked_flows(&load_kw(&s), &body);
    assert!(flows.size_kwh > 0.0, "storage built");
    assert!(flows.charge.iter().sum::<f64>() > 0.0, "the storage is charged");
    let peak_load = load_kw(&s).iter().copied().fold(0.0, f64::max);
    let boiler_kw = number(&body, "Boiler", "size_mmbtu_per_hour") * KWH_PER_MMBTU;
    let existing_kw = model.heating.as_ref().expect("heating").existing_boiler.max_kw;
    assert!(boiler_kw + existing_kw < peak_load - 1.0, "the storage covers part of the peak: boilers {} kW, peak {peak_load} kW", boiler_kw + existing_kw);
    for t in 0..8760 {
        assert!(flows.charge[t] <= 1e-6 || flows.discharge[t] <= 1e-6, "charge {} and discharge {} at {t}", flows.charge[t], flows.discharge[t]);
    }
}

/// The reader: the service's defaults (commercial sector: 5-year MACRS with 100 % bonus and a
/// 30 % ITC make the net present cost below the installed $86/kWh; power bound max_kwh / 4), and
/// what it refuses by name.
#[test]
fn defaults_and_refusals() {
    let model = from_scenario(&scenario(1.0, 1.0, 1.0e7, json!({"max_kwh": 1000.0})), &[]).expect("supported");
    let storage = model.heating.as_ref().and_then(|h| h.hot_storages.first()).expect("high-temperature storage");
    let limits = storage.high_temp.as_ref().expect("high-temperature limits");
    assert_eq!((limits.charge_hours, limits.discharge_hours, limits.one_direction_flow), (CHARGE_HOURS, DISCHARGE_HOURS, false));
    assert!((storage.tank.max_kw - 1000.0 / CHARGE_HOURS).abs() < 1e-9);
    assert!((storage.tank.installed_cost_per_kwh - INSTALLED_PER_KWH).abs() < 1e-12);
    assert!(storage.tank.net_present_cost_per_kwh < INSTALLED_PER_KWH * 0.75, "ITC and MACRS: {}", storage.tank.net_present_cost_per_kwh);
    assert!(storage.can_serve_process_heat && !storage.can_serve_dhw && !storage.can_serve_space_heating);

    let refused = |scenario: Value, reason: &str| match from_scenario(&scenario, &[]) {
        Err(ScenarioError::Unsupported(u)) => assert!(u.items.iter().any(|i| i.contains(reason)), "{reason} not in {:?}", u.items),
        other => panic!("expected a refusal naming {reason}, got {other:?}"),
    };
    let mut no_load = scenario(1.0, 1.0, 1.0e7, json!({"max_kwh": 1000.0}));
    no_load.as_object_mut().expect("object").remove("ProcessHeatLoad");
    refused(no_load, "HighTempThermalStorage without a heating load");
}

//! The hot storages with the steam turbine and with each other (REopt.jl
//! `add_hot_thermal_storage_dispatch_constraints`, `steam_turbine_production_constraints`,
//! 029db01d): a turbine fed only through the high-temperature storage (`supply_turbine_only`),
//! the water tank and the high-temperature storage together with a turbine both of them feed and
//! charge, `charge_storage_only` aimed at a tank that takes no turbine heat, and the reader's
//! defaults and refusals. The anchor "All heating supply/demand/storage energy balance"
//! (`test/runtests.jl`) is rebuilt with the tank also supplying the turbine: every producer's heat
//! to load plus the storages' is the load (rtol 1e-5) and the steam the turbine takes is what its
//! suppliers send it (atol 3 MMBtu a year), both its relations, every step here. Each solve checks
//! the storages' SOC recursions and rates step by step.

use serde_json::{json, Value};
use sunflux::optimizer::lp::heating::HeatingDispatch;
use sunflux::optimizer::lp::steam_turbine::SteamTurbineDispatch;
use sunflux::optimizer::model::{HotStorage, Model, KWH_PER_MMBTU};
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{isapprox, number, series, solve};

/// The turbine's ratios, given (kWh of electricity and of heat per kWh of steam).
const ELECTRIC_PER_STEAM: f64 = 0.1;
const HEAT_PER_STEAM: f64 = 0.8;

/// Space heating and process heat (boiler fuel, MMBtu/h: `space` and `process` by day, a tenth
/// by night), the existing boiler (η 0.8) burning fuel cheap at night ($2/MMBtu) and dear by
/// day ($12/MMBtu), electricity at $0.30/kWh, and a turbine of `turbine_kw` (fixed) with the
/// ratios above; `boiler_feeds` says whether the boiler may send it steam. No BAU run.
fn scenario(space: f64, process: f64, turbine_kw: f64, boiler_feeds: bool) -> Value {
    let day = |h: usize| (8..18).contains(&(h % 24));
    let shape = |peak: f64| -> Vec<f64> { (0..8760).map(|h| if day(h) { peak } else { peak / 10.0 }).collect() };
    let price: Vec<f64> = (0..8760).map(|h| if day(h) { 12.0 } else { 2.0 }).collect();
    json!({
        "Settings": {"run_bau": false},
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": vec![500.0; 8760], "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.30, "blended_annual_demand_rate": 0.0},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": shape(space)},
        "ProcessHeatLoad": {"fuel_loads_mmbtu_per_hour": shape(process)},
        "ExistingBoiler": {"efficiency": 0.8, "fuel_cost_per_mmbtu": price, "max_thermal_factor_on_peak_load": 3.0,
                           "can_supply_steam_turbine": boiler_feeds},
        "SteamTurbine": {"min_kw": turbine_kw, "max_kw": turbine_kw, "electric_produced_to_thermal_consumed_ratio": ELECTRIC_PER_STEAM,
                         "thermal_produced_to_thermal_consumed_ratio": HEAT_PER_STEAM, "installed_cost_per_kw": 100.0, "om_cost_per_kwh": 0.0}
    })
}

/// A results series in kW (zeros when the section is absent).
fn kw(body: &Value, section: &str, field: &str) -> Vec<f64> {
    if body[section].is_null() {
        return vec![0.0; 8760];
    }
    series(body, section, field).iter().map(|v| v * KWH_PER_MMBTU).collect()
}

/// Equal within the solver's tolerance relative to `scale` and the results' rounding (1e-6
/// MMBtu/h is 3e-4 kW).
fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-3 + 1e-4 * scale.abs()
}

/// Checks every step of a solve: the heat balance (boiler and turbine heat to load plus the
/// storages' discharges is the load), the turbine's steam row (the boiler's steam plus the
/// storages' heat to it is its steam in) and its two ratios, each storage's SOC recursion (the
/// charge it implies is never negative, and the implied charges add up to the boiler's and the
/// turbine's heat to storage), its bounds and the high-temperature storage's rates; returns the
/// implied charges per storage.
fn check_steps(model: &Model, heat: &HeatingDispatch, st: &SteamTurbineDispatch) -> Vec<Vec<f64>> {
    let heating = model.heating.as_ref().expect("heating");
    let storages: Vec<(&HotStorage, _)> = heating.hot_storages.iter().zip(&heat.storages).collect();
    let mut charges = vec![vec![0.0; 8760]; storages.len()];
    for t in 0..8760 {
        let load = heating.total_kw(t);
        let served = heat.existing_kw[t] + st.heat_to_load_kw[t] + heat.discharge_kw[t];
        assert!(close(served, load, load), "heat balance at {t}: {served} vs {load}");
        let stored_in: f64 = storages.iter().map(|(_, d)| d.to_turbine_kw[t]).sum();
        let steam = heat.existing_to_turbine_kw[t] + stored_in;
        assert!(close(steam, st.thermal_in_kw[t], steam), "steam row at {t}: {steam} vs {}", st.thermal_in_kw[t]);
        assert!(close(st.electric_kw(t), ELECTRIC_PER_STEAM * st.thermal_in_kw[t], steam), "electric ratio at {t}");
        assert!(close(st.heat_kw(t), HEAT_PER_STEAM * st.thermal_in_kw[t], steam), "heat ratio at {t}");
        let mut implied = 0.0;
        for (b, (s, d)) in storages.iter().enumerate() {
            let tank = &s.tank;
            let previous = if t == 0 { tank.soc_init_fraction * d.kwh } else { d.soc_kwh[t - 1] };
            let decay = if tank.decay_of_stored_energy { tank.decay_fraction_per_hour * previous } else { tank.decay_fraction_per_hour * d.kwh };
            let out = d.discharge_kw[t] + d.to_turbine_kw[t];
            let charge = (d.soc_kwh[t] - previous + decay + out / tank.discharge_efficiency) / tank.charge_efficiency;
            assert!(charge >= -1e-4 * d.kwh.max(1.0), "{} charge at {t}: {charge}", s.section());
            assert!(d.soc_kwh[t] <= d.kwh + 1e-4 && d.soc_kwh[t] >= tank.soc_min_fraction * d.kwh - 1e-4, "{} SOC bounds at {t}", s.section());
            if let Some(limits) = &s.high_temp {
                assert!(charge <= d.kwh / limits.charge_hours + 1e-3, "charge rate at {t}: {charge}");
                assert!(out <= d.kwh / limits.discharge_hours + 1e-3, "discharge rate at {t}: {out}");
            }
            assert!(d.discharge_kw[t] <= heating.servable_kw(s, t) + 1e-4, "{} serves only its loads at {t}", s.section());
            charges[b][t] = charge;
            implied += charge;
        }
        let given = heat.existing_to_storage_kw[t] + st.heat_to_storage_kw[t];
        assert!(close(implied, given, given), "charges at {t}: SOC says {implied}, the techs {given}");
    }
    charges
}

/// A turbine whose only steam is the high-temperature storage's (`supply_turbine_only`; the
/// boiler may not feed it): in every step its steam in is the storage's heat to it, the storage
/// sends nothing to load and takes no turbine heat, the boiler's heat to storage is all the
/// storage's charge, and the service's turbine consumption (the techs' steam only) is zero. The
/// turbine runs (electricity at $0.30/kWh against $2/MMBtu of night fuel).
#[test]
fn turbine_fed_only_through_the_high_temperature_storage() {
    let mut s = scenario(0.0, 2.0, 50.0, false);
    s.as_object_mut().expect("object").remove("SpaceHeatingLoad");
    s["HighTempThermalStorage"] = json!({"min_kwh": 20000.0, "max_kwh": 20000.0, "supply_turbine_only": true});
    let (model, run, body) = solve(&s);
    let heat = run.optimal.dispatch.heating.as_ref().expect("heating");
    let st = run.optimal.dispatch.steam_turbine.as_ref().expect("turbine");
    let charges = check_steps(&model, heat, st);
    let to_turbine = kw(&body, "HighTempThermalStorage", "storage_to_turbine_series_mmbtu_per_hour");
    let to_load = kw(&body, "HighTempThermalStorage", "storage_to_load_series_mmbtu_per_hour");
    let consumption = kw(&body, "SteamTurbine", "thermal_consumption_series_mmbtu_per_hour");
    let to_high_temp = kw(&body, "SteamTurbine", "thermal_to_high_temp_thermal_storage_series_mmbtu_per_hour");
    let boiler_steam = kw(&body, "ExistingBoiler", "thermal_to_steamturbine_series_mmbtu_per_hour");
    let boiler_to_storage = kw(&body, "ExistingBoiler", "thermal_to_storage_series_mmbtu_per_hour");
    for t in 0..8760 {
        assert!(close(st.thermal_in_kw[t], to_turbine[t], to_turbine[t]), "steam in at {t}: {} vs {}", st.thermal_in_kw[t], to_turbine[t]);
        assert!(to_load[t].abs() <= 1e-6 && heat.discharge_kw[t] == 0.0, "supply_turbine_only: no heat to load at {t}");
        assert!(to_high_temp[t] == 0.0 && st.heat_to_storage_kw[t] == 0.0, "no turbine heat back into it at {t}");
        assert!(consumption[t].abs() <= 1e-6 && boiler_steam[t] == 0.0, "no tech steam at {t}");
        assert!(close(charges[0][t], boiler_to_storage[t], boiler_to_storage[t]), "the boiler charges it at {t}");
        assert!(st.electric_kw(t) <= 50.0 + 1e-3, "the turbine within its size at {t}");
    }
    let electricity = number(&body, "SteamTurbine", "annual_electric_production_kwh");
    let steam: f64 = to_turbine.iter().sum();
    assert!(electricity > 0.0, "the turbine runs on stored heat");
    assert!(isapprox(electricity, ELECTRIC_PER_STEAM * steam, 1e-5, 1e-3), "{electricity} vs {}", ELECTRIC_PER_STEAM * steam);
    assert!(number(&body, "SteamTurbine", "annual_thermal_consumption_mmbtu").abs() <= 1e-6);
}

/// The water tank (space heating only, feeding the turbine) and the high-temperature storage
/// (process heat only) beside the boiler, which feeds the turbine too; the turbine's heat may
/// charge both. Every step checks as above, each storage serving only its load, and the results
/// say what the service's say: the turbine's heat to the tank and to the high-temperature storage
/// apart, its `thermal_to_load` less the tank's part only, the high-temperature storage's
/// `storage_to_load` every hot storage's outflow less its own heat to the turbine, and the tank's
/// split by load adding to its whole outflow. The anchor's two relations hold over the year.
#[test]
fn water_tank_and_high_temperature_storage_with_a_turbine() {
    let mut s = scenario(2.0, 2.0, 60.0, true);
    // The tank at least 2,000 gal: left free the optimum builds almost none of it.
    s["HotThermalStorage"] = json!({"min_gal": 2000.0, "max_gal": 5000.0, "installed_cost_per_gal": 0.5, "can_serve_dhw": false, "can_serve_process_heat": false,
                                    "can_supply_steam_turbine": true});
    s["HighTempThermalStorage"] = json!({"max_kwh": 20000.0, "installed_cost_per_kwh": 5.0});
    let (model, run, body) = solve(&s);
    let heat = run.optimal.dispatch.heating.as_ref().expect("heating");
    let st = run.optimal.dispatch.steam_turbine.as_ref().expect("turbine");
    check_steps(&model, heat, st);
    let (tank, high) = (&heat.storages[0], &heat.storages[1]);
    assert!(tank.kwh > 1.0 && high.kwh > 1.0, "both storages built: {} and {} kWh", tank.kwh, high.kwh);
    let reported = |section: &str, field: &str| kw(&body, section, field);
    let (st_to_tank, st_to_high) = (reported("SteamTurbine", "thermal_to_storage_series_mmbtu_per_hour"),
                                    reported("SteamTurbine", "thermal_to_high_temp_thermal_storage_series_mmbtu_per_hour"));
    let st_to_load = reported("SteamTurbine", "thermal_to_load_series_mmbtu_per_hour");
    let high_to_load = reported("HighTempThermalStorage", "storage_to_load_series_mmbtu_per_hour");
    let tank_to_load = reported("HotThermalStorage", "storage_to_load_series_mmbtu_per_hour");
    let tank_to_turbine = reported("HotThermalStorage", "storage_to_turbine_series_mmbtu_per_hour");
    let tank_by_load: Vec<Vec<f64>> = ["dhw", "space_heating", "process_heat"]
        .iter()
        .map(|name| reported("HotThermalStorage", &format!("storage_to_{name}_load_series_mmbtu_per_hour")))
        .collect();
    let boiler_to_load = reported("ExistingBoiler", "thermal_to_load_series_mmbtu_per_hour");
    let boiler_steam = reported("ExistingBoiler", "thermal_to_steamturbine_series_mmbtu_per_hour");
    let consumption = reported("SteamTurbine", "thermal_consumption_series_mmbtu_per_hour");
    let heating = model.heating.as_ref().expect("heating");
    let (mut supplied, mut demanded, mut sent, mut taken) = (0.0, 0.0, 0.0, 0.0);
    for t in 0..8760 {
        let tol = 1e-3 * (1.0 + st.thermal_in_kw[t]);
        assert!((st_to_tank[t] - tank.turbine_charge_kw[t]).abs() <= tol && (st_to_high[t] - high.turbine_charge_kw[t]).abs() <= tol, "turbine heat to each at {t}");
        assert!((st_to_tank[t] + st_to_high[t] - st.heat_to_storage_kw[t]).abs() <= tol, "the turbine's heat to storage is split at {t}");
        assert!((st_to_load[t] - (st.heat_kw(t) - st_to_tank[t])).abs() <= tol, "turbine thermal_to_load at {t}");
        let all_out = tank.discharge_kw[t] + tank.to_turbine_kw[t] + high.discharge_kw[t] + high.to_turbine_kw[t];
        assert!((high_to_load[t] - (all_out - high.to_turbine_kw[t])).abs() <= tol, "high-temperature storage_to_load at {t}");
        assert!((tank_to_load[t] - tank.discharge_kw[t]).abs() <= tol && (tank_to_turbine[t] - tank.to_turbine_kw[t]).abs() <= tol, "tank flows at {t}");
        let split: f64 = tank_by_load.iter().map(|s| s[t]).sum();
        assert!((split - tank.discharge_kw[t] - tank.to_turbine_kw[t]).abs() <= tol && tank_by_load[2][t] == 0.0, "tank split by load at {t}");
        supplied += boiler_to_load[t] + st.heat_to_load_kw[t] + tank_to_load[t] + high.discharge_kw[t];
        demanded += heating.total_kw(t);
        sent += boiler_steam[t];
        taken += consumption[t];
    }
    assert!(isapprox(supplied, demanded, 1e-5, 0.0), "heat to load {supplied} vs load {demanded}");
    assert!((sent - taken).abs() / KWH_PER_MMBTU <= 3.0, "steam sent {sent} vs taken {taken}");
    let stored_steam: f64 = (0..8760).map(|t| tank.to_turbine_kw[t] + high.to_turbine_kw[t]).sum();
    let steam_in: f64 = st.thermal_in_kw.iter().sum();
    assert!(isapprox(sent + stored_steam, steam_in, 1e-5, 1e-3), "the turbine's steam is the boiler's and the storages'");
}

/// `charge_storage_only` sends the turbine's heat to the water tank when there is one (the
/// service's order); a tank that supplies the turbine only takes none, so the turbine makes no
/// heat and hence no electricity though the high-temperature storage could have taken it.
#[test]
fn charge_storage_only_aims_at_the_tank() {
    let mut s = scenario(2.0, 2.0, 60.0, true);
    s["SteamTurbine"]["charge_storage_only"] = json!(true);
    s["HotThermalStorage"] = json!({"max_gal": 5000.0, "can_supply_steam_turbine": true, "supply_turbine_only": true});
    s["HighTempThermalStorage"] = json!({"max_kwh": 20000.0});
    let (model, run, body) = solve(&s);
    let heat = run.optimal.dispatch.heating.as_ref().expect("heating");
    let st = run.optimal.dispatch.steam_turbine.as_ref().expect("turbine");
    check_steps(&model, heat, st);
    assert!(st.thermal_in_kw.iter().all(|&v| v == 0.0), "no steam in");
    assert_eq!(number(&body, "SteamTurbine", "annual_electric_production_kwh"), 0.0);
    assert!(heat.storages[0].discharge_kw.iter().all(|&v| v == 0.0), "the tank sends nothing to load");
}

/// The storages' turbine defaults (the service's: the tank does not supply it, the
/// high-temperature storage does, neither only it); both storages read together; a turbine only
/// a storage feeds is valid and one nobody feeds invalid (the electric techs beside both storages
/// are `optimizer_hot_storages_mixed`'s).
#[test]
fn defaults_and_refusals() {
    let mut s = scenario(1.0, 1.0, 10.0, false);
    s["HotThermalStorage"] = json!({"max_gal": 1000.0});
    s["HighTempThermalStorage"] = json!({"max_kwh": 1000.0});
    let model = from_scenario(&s, &[]).expect("a storage feeds the turbine");
    let storages = &model.heating.as_ref().expect("heating").hot_storages;
    assert_eq!(storages.iter().map(|s| s.section()).collect::<Vec<_>>(), ["HotThermalStorage", "HighTempThermalStorage"]);
    assert_eq!(storages.iter().map(|s| (s.can_supply_steam_turbine, s.supply_turbine_only)).collect::<Vec<_>>(), [(false, false), (true, false)]);
    let mut nobody = s.clone();
    nobody.as_object_mut().expect("object").remove("HighTempThermalStorage");
    assert!(matches!(from_scenario(&nobody, &[]), Err(ScenarioError::Invalid(_))), "a turbine nobody feeds is invalid");
}

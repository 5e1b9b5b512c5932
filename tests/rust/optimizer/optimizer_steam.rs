//! The steam turbine: the REopt.jl anchors "Back pressure steam turbine" and "All heating
//! supply/demand/storage energy balance" (`test/runtests.jl`) rebuilt on our own flat loads
//! (their Hospital profiles, URDB tariff and AVERT emissions are the service's data), what the
//! reader refuses by name, and property checks over random turbine scenarios: the electric and
//! heat balances and the turbine's steam, heat and electricity rows hold in every step, and the
//! outputs' lifecycle cost is the program's objective.

use serde_json::{json, Value};
use sunflux::optimizer::model::KWH_PER_MMBTU;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{Draws, isapprox, number, series, solve};

/// The anchor's turbine ratios, as its expected annual values give them (18,970,374.6 kWh out of
/// 1,000,557.6 MMBtu of steam; 924,045.1 MMBtu of heat out); the reader computes them from the
/// steam conditions of `backpressure_steamturbine_inputs.json` (600 → 150 psig, 575 °F, η_s 0.612,
/// gearbox 0.94, net-to-gross 0.9), which the scenario gives instead.
const ELECTRIC_PER_STEAM: f64 = 18_970_374.6 / (1_000_557.6 * KWH_PER_MMBTU);
const HEAT_PER_STEAM: f64 = 924_045.1 / 1_000_557.6;

/// The anchor's inputs on flat loads: `electric_kw` of electric load at $0.15/kWh, `heat_mmbtu`
/// MMBtu/h of space-heating boiler fuel, the steam ExistingBoiler (η 0.8, $10/MMBtu, 1.25 × peak)
/// feeding the back-pressure turbine with the file's steam conditions and costs (no MACRS) and
/// Financial.
fn backpressure_scenario(electric_kw: f64, heat_mmbtu: f64) -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "Financial": {
            "om_cost_escalation_rate_fraction": 0.025, "elec_cost_escalation_rate_fraction": 0.023,
            "existing_boiler_fuel_cost_escalation_rate_fraction": 0.034, "offtaker_tax_rate_fraction": 0.26,
            "offtaker_discount_rate_fraction": 0.083, "owner_tax_rate_fraction": 0.26, "owner_discount_rate_fraction": 0.083, "analysis_years": 25
        },
        "ElectricLoad": {"loads_kw": vec![electric_kw; 8760], "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.15, "blended_annual_demand_rate": 0.0},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![heat_mmbtu; 8760]},
        "ExistingBoiler": {
            "production_type": "steam", "efficiency": 0.8, "fuel_type": "natural_gas", "fuel_cost_per_mmbtu": 10.0,
            "max_thermal_factor_on_peak_load": 1.25, "can_supply_steam_turbine": true
        },
        "SteamTurbine": {
            "min_kw": 0.0, "max_kw": 20000.0, "is_condensing": false, "inlet_steam_pressure_psig": 600.0,
            "inlet_steam_temperature_degF": 575.0, "outlet_steam_pressure_psig": 150.0, "outlet_steam_min_vapor_fraction": 0.8,
            "isentropic_efficiency": 0.612, "gearbox_generator_efficiency": 0.94, "net_to_gross_electric_ratio": 0.9,
            "installed_cost_per_kw": 682.0, "om_cost_per_kw": 0.0, "om_cost_per_kwh": 0.009, "macrs_bonus_fraction": 0.0,
            "macrs_option_years": 0
        }
    })
}

/// "Back pressure steam turbine": the boiler's steam runs the turbine and its exhaust serves the
/// heating load. The ratios the reader computes from the steam conditions are the testset's
/// (rtol 1e-4). On a flat load the optimum is closed-form: all the heat comes through the
/// turbine, so its steam is H/r_h and its size r_e·H/r_h (atol 1.0 kW, the testset's), and the
/// annual electricity, steam and heat follow (rtol 0.001). What carries over from the testset as
/// stated: heat to load equals the load (atol 1.0 MMBtu), the net electric efficiency of
/// boiler → turbine 0.052 (atol 0.005: 0.8 · r_e = 0.0518), and the boiler within its capacity.
#[test]
fn back_pressure_steam_turbine() {
    let heat_mmbtu = 80.0;
    let (model, run, body) = solve(&backpressure_scenario(5000.0, heat_mmbtu));
    let st = model.steam_turbine.as_ref().expect("turbine");
    assert!(isapprox(st.electric_per_thermal, ELECTRIC_PER_STEAM, 1e-4, 0.0), "r_e {}", st.electric_per_thermal);
    assert!(isapprox(st.thermal_per_thermal, HEAT_PER_STEAM, 1e-4, 0.0), "r_h {}", st.thermal_per_thermal);
    let heat_kw = heat_mmbtu * 0.8 * KWH_PER_MMBTU;
    let steam_kw = heat_kw / HEAT_PER_STEAM;
    let size = number(&body, "SteamTurbine", "size_kw");
    assert!((size - ELECTRIC_PER_STEAM * steam_kw).abs() <= 1.0, "size {size} vs {}", ELECTRIC_PER_STEAM * steam_kw);
    let electric = number(&body, "SteamTurbine", "annual_electric_production_kwh");
    assert!(isapprox(electric, ELECTRIC_PER_STEAM * steam_kw * 8760.0, 0.001, 0.0), "electric {electric}");
    let consumed = number(&body, "SteamTurbine", "annual_thermal_consumption_mmbtu");
    assert!(isapprox(consumed, steam_kw * 8760.0 / KWH_PER_MMBTU, 0.001, 0.0), "steam {consumed}");
    let produced = number(&body, "SteamTurbine", "annual_thermal_production_mmbtu");
    assert!(isapprox(produced, heat_kw * 8760.0 / KWH_PER_MMBTU, 0.001, 0.0), "heat {produced}");
    // The testset's relations among the annual values: the ratios come back out.
    assert!(isapprox(electric / (consumed * KWH_PER_MMBTU), ELECTRIC_PER_STEAM, 0.001, 0.0));
    assert!(isapprox(produced / consumed, HEAT_PER_STEAM, 0.001, 0.0));

    let boiler_to_load = series(&body, "ExistingBoiler", "thermal_to_load_series_mmbtu_per_hour");
    let boiler_to_turbine = series(&body, "ExistingBoiler", "thermal_to_steamturbine_series_mmbtu_per_hour");
    let turbine_to_load = series(&body, "SteamTurbine", "thermal_to_load_series_mmbtu_per_hour");
    let to_load: f64 = boiler_to_load.iter().sum::<f64>() + turbine_to_load.iter().sum::<f64>();
    assert!((to_load - heat_mmbtu * 0.8 * 8760.0).abs() <= 1.0, "heat to load {to_load}");
    let turbine_in = series(&body, "SteamTurbine", "thermal_consumption_series_mmbtu_per_hour");
    assert!((boiler_to_turbine.iter().sum::<f64>() - turbine_in.iter().sum::<f64>()).abs() <= 3.0);
    let fuel: f64 = series(&body, "ExistingBoiler", "fuel_consumption_series_mmbtu_per_hour").iter().sum();
    let turbine_electric: f64 = series(&body, "SteamTurbine", "electric_production_series_kw").iter().sum();
    let efficiency = turbine_electric / (fuel * KWH_PER_MMBTU);
    assert!((efficiency - 0.052).abs() <= 0.005, "net electric efficiency {efficiency}");
    let capacity = heat_mmbtu * 0.8 * 1.25;
    assert!(boiler_to_load.iter().zip(&boiler_to_turbine).all(|(a, b)| a + b <= capacity + 1e-6));
    // The turbine pays: the business-as-usual case (boiler only) costs more.
    assert!(number(&body, "Financial", "npv") > 0.0);
    let lcc = number(&body, "Financial", "lcc");
    let lp = run.optimal.lp_lifecycle_cost();
    assert!((lcc - lp).abs() <= 1e-6 * lp.abs() + 0.02, "lcc {lcc} vs program {lp}");
}

/// "All heating supply/demand/storage energy balance" on our own flat loads: the turbine fixed at
/// 30 kW, the hot-water tank fixed at 50,000 gal, a new Boiler that may not supply the turbine.
/// As the testset: every producer's heat to load plus the tank's discharge is the heating load
/// (rtol 1e-5), the steam to the turbine from the boilers is its consumption (atol 3), and the
/// boiler that may not supply it sends none. The testset's CHP and absorption chiller are left
/// out (their binaries and the cooling load make it a long solve; their heat rows are checked in
/// `optimizer_chp` and `optimizer_absorption`).
#[test]
fn all_heating_supply_demand_storage_energy_balance() {
    let mut scenario = backpressure_scenario(2000.0, 10.0);
    let heat: Vec<f64> = (0..8760).map(|h| 6.0 + 8.0 * ((h % 24) as f64 / 23.0)).collect();
    scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": heat});
    scenario["Settings"] = json!({"run_bau": false});
    scenario["SteamTurbine"]["min_kw"] = json!(30.0);
    scenario["SteamTurbine"]["max_kw"] = json!(30.0);
    scenario["HotThermalStorage"] = json!({"min_gal": 50000.0, "max_gal": 50000.0});
    scenario["Boiler"] = json!({"fuel_cost_per_mmbtu": 9.0, "max_mmbtu_per_hour": 5.0, "can_supply_steam_turbine": false});
    let (model, _, body) = solve(&scenario);
    let load: f64 = (0..8760).map(|t| model.heating.as_ref().unwrap().total_kw(t)).sum::<f64>() / KWH_PER_MMBTU;
    let total = |section: &str, field: &str| series(&body, section, field).iter().sum::<f64>();
    let to_load = total("ExistingBoiler", "thermal_to_load_series_mmbtu_per_hour")
        + total("Boiler", "thermal_to_load_series_mmbtu_per_hour")
        + total("SteamTurbine", "thermal_to_load_series_mmbtu_per_hour")
        + total("HotThermalStorage", "storage_to_load_series_mmbtu_per_hour");
    assert!(isapprox(to_load, load, 1e-5, 0.0), "heat to load {to_load} vs load {load}");
    let to_turbine = total("ExistingBoiler", "thermal_to_steamturbine_series_mmbtu_per_hour") + total("Boiler", "thermal_to_steamturbine_series_mmbtu_per_hour");
    let consumed = total("SteamTurbine", "thermal_consumption_series_mmbtu_per_hour");
    assert!((to_turbine - consumed).abs() <= 3.0, "to turbine {to_turbine} vs {consumed}");
    assert_eq!(total("Boiler", "thermal_to_steamturbine_series_mmbtu_per_hour"), 0.0);
    assert!(isapprox(number(&body, "SteamTurbine", "size_kw"), 30.0, 1e-9, 0.0));
    assert!(consumed > 0.0);
}

/// What the reader refuses or rejects by name, and the defaults it fills.
#[test]
fn steam_turbine_refusals_and_defaults() {
    let refused = |edit: &dyn Fn(&mut Value), needle: &str| {
        let mut scenario = backpressure_scenario(1000.0, 10.0);
        edit(&mut scenario);
        match from_scenario(&scenario, &[]) {
            Err(ScenarioError::Unsupported(found)) => assert!(found.message().contains(needle), "{needle} missing from {}", found.message()),
            Err(ScenarioError::Invalid(found)) => panic!("{needle}: invalid instead: {found:?}"),
            Ok(_) => panic!("{needle}: accepted"),
        }
    };
    refused(&|s| s["SteamTurbine"]["inlet_steam_temperature_degF"] = json!(1500.0), "SteamTurbine steam conditions outside IAPWS-IF97");
    refused(&|s| s["SteamTurbine"]["can_waste_heat"] = json!(true), "SteamTurbine.can_waste_heat=true");
    refused(&|s| s["SteamTurbine"]["can_net_meter"] = json!(true), "SteamTurbine.can_net_meter=true");
    refused(&|s| s["SteamTurbine"]["can_serve_space_heating"] = json!(false), "SteamTurbine serving none of the heating loads given");
    refused(&|s| s["SteamTurbine"]["production_incentive_per_kwh"] = json!(0.05), "SteamTurbine.production_incentive_per_kwh");
    refused(&|s| s.as_object_mut().unwrap().retain(|k, _| k != "SpaceHeatingLoad"), "SteamTurbine without a heating load");
    refused(&|s| s["Financial"]["max_initial_capital_costs_before_incentives"] = json!(1e6), "Financial.max_initial_capital_costs_before_incentives with a SteamTurbine");

    let mut scenario = backpressure_scenario(1000.0, 10.0);
    scenario["ExistingBoiler"]["can_supply_steam_turbine"] = json!(false);
    assert!(matches!(from_scenario(&scenario, &[]), Err(ScenarioError::Invalid(_))), "a turbine nobody feeds is invalid");
    // 600 psig at 500 °F expanded ideally to 0 psig ends at a vapour fraction of 0.791 (steam tables).
    let mut scenario = backpressure_scenario(1000.0, 10.0);
    for (field, value) in [("inlet_steam_temperature_degF", 500.0), ("outlet_steam_pressure_psig", 0.0), ("isentropic_efficiency", 1.0)] {
        scenario["SteamTurbine"][field] = json!(value);
    }
    match from_scenario(&scenario, &[]) {
        Err(ScenarioError::Invalid(found)) => assert!(format!("{found:?}").contains("The calculated steam outlet vapor fraction of 0.79"), "{found:?}"),
        other => panic!("a wet exhaust below the minimum vapor fraction: {:?}", other.err()),
    }

    // 10 MMBtu/h of fuel: 0.07 · 2,930.7 kW = 205 kW, class 1 ($1,136/kW, $0.01/kWh) when the
    // costs are left out (REopt.jl `get_steam_turbine_defaults_size_class`).
    let mut scenario = backpressure_scenario(1000.0, 10.0);
    for field in ["installed_cost_per_kw", "om_cost_per_kwh", "macrs_option_years", "macrs_bonus_fraction"] {
        scenario["SteamTurbine"].as_object_mut().unwrap().remove(field);
    }
    let model = from_scenario(&scenario, &[]).expect("supported");
    let st = model.steam_turbine.as_ref().expect("turbine");
    assert_eq!((st.size_class, st.installed_cost_per_kw, st.om_cost_per_kwh), (1, 1136.0, 0.01));
    // Five-year MACRS with 100 % bonus, the default: the net present cost is below the installed cost.
    assert_eq!((st.macrs_option_years, st.macrs_bonus_fraction), (5, 1.0));
    assert!(st.net_present_cost_per_kw < st.installed_cost_per_kw);
}

/// A turbine given no ratios and no steam conditions reads with class 1's conditions (500 →
/// 50 psig, η_s 0.525, gearbox 0.94, net-to-gross 0.974; REopt.jl
/// `data/steam_turbine/steam_turbine_default_data.json`) and the service's inlet temperature:
/// no temperature given and superheat 0, which the service adds to T_sat as 0 °F = 255.372 K.
/// By hand from the steam tables: 500 psig = 35.487 bar, T_sat 516.50 K, T_in 771.88 K,
/// h_in = 3448.20 kJ/kg, s_in = 7.14864 kJ/(kg·K); 50 psig = 4.4606 bar, h_f = 621.74 kJ/kg,
/// h_is = 2873.10 kJ/kg; h_out = 3448.20 − 0.525 · 575.10 = 3146.27 kJ/kg; r_e = 301.93 · 0.94 ·
/// 0.974 / 2826.46 = 0.097802 and r_h = 2524.53 / 2826.46 = 0.89318 (rtol 1e-4). The conditions
/// and both ratios are recorded as filled defaults; a ratio given is kept.
#[test]
fn steam_turbine_without_ratios_computes_them_from_the_class_conditions() {
    let mut scenario = backpressure_scenario(1000.0, 10.0);
    scenario["SteamTurbine"].as_object_mut().unwrap().retain(|k, _| !k.contains("steam") && !k.contains("efficiency") && !k.contains("ratio"));
    let model = from_scenario(&scenario, &[]).expect("supported");
    let st = model.steam_turbine.as_ref().expect("turbine");
    assert_eq!(st.size_class, 1);
    assert!(isapprox(st.electric_per_thermal, 0.097802, 1e-4, 0.0), "r_e {}", st.electric_per_thermal);
    assert!(isapprox(st.thermal_per_thermal, 0.89318, 1e-4, 0.0), "r_h {}", st.thermal_per_thermal);
    let filled = |field: &str| model.filled_defaults.iter().find(|f| f.section == "SteamTurbine" && f.field == field).and_then(|f| f.value.as_f64());
    assert_eq!(filled("inlet_steam_pressure_psig"), Some(500.0));
    assert_eq!(filled("outlet_steam_pressure_psig"), Some(50.0));
    assert_eq!(filled("isentropic_efficiency"), Some(0.525));
    assert_eq!(filled("electric_produced_to_thermal_consumed_ratio"), Some(st.electric_per_thermal));

    scenario["SteamTurbine"]["thermal_produced_to_thermal_consumed_ratio"] = json!(0.8);
    let model = from_scenario(&scenario, &[]).expect("supported");
    let st = model.steam_turbine.as_ref().expect("turbine");
    assert_eq!(st.thermal_per_thermal, 0.8);
    assert!(isapprox(st.electric_per_thermal, 0.097802, 1e-4, 0.0));
}

/// Over random turbine scenarios (daily heating and electric profiles, fuel and electricity
/// prices, ratios, turbine costs; one draw with a new boiler, the hot-water tank and
/// `charge_storage_only`, one with the battery; the optimal case only, a full year is some
/// seconds per solve): in every step the grid, the turbine and the battery serve the electric
/// load; the boilers, the turbine and the tank serve the heating load; the boilers' steam to the
/// turbine is its consumption; its electricity and heat are the ratios times that steam, its
/// electricity at most its size; and the outputs' lifecycle cost is the program's objective.
#[test]
fn balances_hold_in_every_step_of_random_steam_turbine_scenarios() {
    let mut draws = Draws(47);
    for case in 0..2 {
        let (heat_base, heat_swing) = (2.0 + 4.0 * draws.unit(), 4.0 * draws.unit());
        let heat: Vec<f64> = (0..8760).map(|h| heat_base + heat_swing * (((h % 24) as f64 / 24.0) * std::f64::consts::TAU).sin().abs()).collect();
        let electric: Vec<f64> = (0..8760).map(|h| 300.0 + 200.0 * if (8..20).contains(&(h % 24)) { 1.0 } else { 0.0 }).collect();
        let mut scenario = backpressure_scenario(0.0, 0.0);
        scenario["Settings"] = json!({"run_bau": false});
        scenario["ElectricLoad"]["loads_kw"] = json!(electric);
        scenario["SpaceHeatingLoad"]["fuel_loads_mmbtu_per_hour"] = json!(heat);
        scenario["ElectricTariff"] = json!({"blended_annual_energy_rate": 0.08 + 0.12 * draws.unit(), "blended_annual_demand_rate": 10.0 * draws.unit()});
        scenario["ExistingBoiler"]["fuel_cost_per_mmbtu"] = json!(4.0 + 8.0 * draws.unit());
        let st = &mut scenario["SteamTurbine"];
        st["electric_produced_to_thermal_consumed_ratio"] = json!(0.04 + 0.04 * draws.unit());
        st["thermal_produced_to_thermal_consumed_ratio"] = json!(0.85 + 0.1 * draws.unit());
        st["installed_cost_per_kw"] = json!(400.0 + 1000.0 * draws.unit());
        st["om_cost_per_kw"] = json!(20.0 * draws.unit());
        st["macrs_option_years"] = json!(if case == 1 { 7 } else { 0 });
        match case {
            0 => {
                scenario["HotThermalStorage"] = json!({"max_gal": 5000.0, "installed_cost_per_gal": 1.0});
                scenario["SteamTurbine"]["charge_storage_only"] = json!(true);
                scenario["Boiler"] = json!({"fuel_cost_per_mmbtu": 6.0, "max_mmbtu_per_hour": 4.0});
            }
            _ => scenario["ElectricStorage"] = json!({"max_kw": 100.0, "max_kwh": 400.0}),
        }
        let (model, run, body) = solve(&scenario);
        let st = model.steam_turbine.as_ref().expect("turbine");
        let heating = model.heating.as_ref().expect("heating");
        let d = &run.optimal.dispatch;
        let s = d.steam_turbine.as_ref().expect("turbine dispatch");
        let h = d.heating.as_ref().expect("heating dispatch");
        let existing_production = h.existing_production();
        assert!(existing_production.iter().all(|&kw| kw <= heating.existing_boiler.max_kw + 1e-6), "case {case}: boiler above its capacity");
        for t in 0..model.steps() {
            let tol = |x: f64| 1e-6 * (1.0 + x.abs());
            let served = d.grid_load[t] + s.to_load_kw[t] + d.discharge[t];
            assert!((served - model.load_kw[t]).abs() <= tol(model.load_kw[t]), "case {case} step {t}: electric {served}");
            let heat_served = h.existing_kw[t] + h.new_kw[t] + h.discharge_kw[t] + s.heat_to_load_kw[t];
            assert!((heat_served - heating.total_kw(t)).abs() <= tol(heating.total_kw(t)), "case {case} step {t}: heat {heat_served}");
            let steam = h.existing_to_turbine_kw[t] + h.new_to_turbine_kw[t];
            assert!((steam - s.thermal_in_kw[t]).abs() <= tol(steam), "case {case} step {t}: steam {steam} vs {}", s.thermal_in_kw[t]);
            assert!((s.electric_kw(t) - st.electric_per_thermal * s.thermal_in_kw[t]).abs() <= tol(s.electric_kw(t)), "case {case} step {t}: electricity");
            assert!((s.heat_kw(t) - st.thermal_per_thermal * s.thermal_in_kw[t]).abs() <= tol(s.heat_kw(t)), "case {case} step {t}: turbine heat");
            assert!(s.electric_kw(t) <= s.size_kw + 1e-6, "case {case} step {t}: above size");
            assert!(case != 0 || s.heat_to_load_kw[t] == 0.0, "case {case} step {t}: charge_storage_only");
        }
        let lcc = number(&body, "Financial", "lcc");
        let lp = run.optimal.lp_lifecycle_cost();
        assert!((lcc - lp).abs() <= 1e-6 * lp.abs() + 0.02, "case {case}: lcc {lcc} vs program {lp}");
    }
}

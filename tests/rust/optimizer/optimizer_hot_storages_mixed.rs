//! Both hot storages, the water tank and the high-temperature storage, with the electric heating
//! techs that charge each of them apart (REopt.jl `add_hot_thermal_storage_dispatch_constraints`,
//! `add_hot_tes_flow_restrictions!`, the `*ToStorageOnly` and `CSTHeatProduction` rows of
//! `add_heating_tech_constraints`, 029db01d): the electric heater charging both, the heater and
//! CST with `charge_storage_only` (the high-temperature storage first), CST with and without
//! waste, a heat pump forced into a load beside both, and which storages each tech may charge. Every solve checks each step: the heat balance
//! of every load (each storage here serves one load), each storage's SOC recursion (the charge
//! it implies is at least the electric techs' heat to it, and the charges add up to the techs'
//! heat to storage), its bounds and the high-temperature storage's rates, and the techs' own
//! relations (the heater's electricity is its heat / COP; CST's production is cf · size and
//! splits into load, each storage and waste). Also the refusal of cooling off grid and its
//! reason.

use serde_json::{json, Value};
use sunflux::optimizer::lp::heat_pumps::HeatPumpDispatch;
use sunflux::optimizer::lp::heating::HeatingDispatch;
use sunflux::optimizer::model::{HeatingLoadKind, Model};
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{daytime_production, isapprox, mmbtu_series_kw as kw, series, solve};

/// The electric heater's COP in every scenario here.
const HEATER_COP: f64 = 1.0;

/// A flat 100 kW electric load at $0.02/kWh from midnight to 06:00 and $0.30/kWh otherwise, the
/// existing boiler (η 0.8, $25/MMBtu), `loads` (heating load sections with their boiler fuel in
/// MMBtu/h by day, 08:00–18:00, and a tenth of it by night), the water tank (up to 20,000 gal
/// at $0.1/gal) and the high-temperature storage (up to 20,000 kWh at $1/kWh) serving the loads
/// named, and `extra` sections; no BAU run.
fn scenario(loads: &[(&str, f64)], tank_serves: &str, high_serves: &str, extra: Value) -> Value {
    let day = |h: usize| (8..18).contains(&(h % 24));
    let rates: Vec<f64> = (0..8760).map(|h| if h % 24 < 6 { 0.02 } else { 0.30 }).collect();
    let flags = |serves: &str| json!({"can_serve_dhw": false, "can_serve_space_heating": serves == "space", "can_serve_process_heat": serves == "process"});
    let mut s = json!({
        "Settings": {"run_bau": false},
        "Site": {"latitude": 37.78, "longitude": -122.45, "land_acres": 20.0},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2022},
        "ElectricTariff": {"tou_energy_rates_per_kwh": rates},
        "ExistingBoiler": {"efficiency": 0.8, "fuel_cost_per_mmbtu": 25.0},
        "HotThermalStorage": {"max_gal": 20000.0, "installed_cost_per_gal": 0.1},
        "HighTempThermalStorage": {"max_kwh": 20000.0, "installed_cost_per_kwh": 1.0}
    });
    for (section, serves) in [("HotThermalStorage", tank_serves), ("HighTempThermalStorage", high_serves)] {
        for (field, value) in flags(serves).as_object().expect("flags") {
            s[section][field] = value.clone();
        }
    }
    for &(section, peak) in loads {
        s[section] = json!({"fuel_loads_mmbtu_per_hour": (0..8760).map(|h| if day(h) { peak } else { peak / 10.0 }).collect::<Vec<f64>>()});
    }
    for (key, value) in extra.as_object().expect("sections") {
        s[key] = value.clone();
    }
    s
}

/// The results' names of a load kind.
fn load_name(kind: HeatingLoadKind) -> &'static str {
    match kind {
        HeatingLoadKind::DomesticHotWater => "dhw_load",
        HeatingLoadKind::SpaceHeating => "space_heating_load",
        HeatingLoadKind::ProcessHeat => "process_heat_load",
    }
}

/// Checks every step of a solve (the module's header) and returns the charge each storage's SOC
/// recursion implies (kW per step).
fn check_steps(model: &Model, heat: &HeatingDispatch, pumps: &[HeatPumpDispatch], body: &Value) -> Vec<Vec<f64>> {
    let heating = model.heating.as_ref().expect("heating");
    let kinds: Vec<HeatingLoadKind> = heating.loads.iter().map(|l| l.kind).collect();
    // Each storage serves one load here, so its discharge is that load's.
    let storage_kind: Vec<HeatingLoadKind> = heating
        .hot_storages
        .iter()
        .map(|s| {
            let served: Vec<HeatingLoadKind> = kinds.iter().copied().filter(|&k| s.serves(k)).collect();
            assert_eq!(served.len(), 1, "{} serves one load here", s.section());
            served[0]
        })
        .collect();
    let boiler_to: Vec<Vec<f64>> = kinds.iter().map(|&k| kw(body, "ExistingBoiler", &format!("thermal_to_{}_series_mmbtu_per_hour", load_name(k)))).collect();
    let mut charges = vec![vec![0.0; 8760]; heating.hot_storages.len()];
    for t in 0..8760 {
        for (i, load) in heating.loads.iter().enumerate() {
            let pumps_to: f64 = pumps.iter().map(|p| p.to_kind(load.kind)[t]).sum();
            let stored: f64 = heat.storages.iter().zip(&storage_kind).filter(|(_, &k)| k == load.kind).map(|(d, _)| d.discharge_kw[t]).sum();
            let served = boiler_to[i][t] + pumps_to + stored;
            let need = load.thermal_kw[t];
            assert!((served - need).abs() <= 1e-2 + 1e-5 * need, "{:?} balance at {t}: {served} vs {need}", load.kind);
        }
        let mut implied_total = 0.0;
        for (b, (s, d)) in heating.hot_storages.iter().zip(&heat.storages).enumerate() {
            let tank = &s.tank;
            let previous = if t == 0 { tank.soc_init_fraction * d.kwh } else { d.soc_kwh[t - 1] };
            let decay = tank.decay_fraction_per_hour * if tank.decay_of_stored_energy { previous } else { d.kwh };
            let out = d.discharge_kw[t] + d.to_turbine_kw[t];
            let charge = (d.soc_kwh[t] - previous + decay + out / tank.discharge_efficiency) / tank.charge_efficiency;
            let electric: f64 = pumps.iter().flat_map(|p| p.to_storages_kw.iter()).filter(|(to, _)| *to == b).map(|(_, kw)| kw[t]).sum();
            let tol = 1e-3 + 1e-5 * d.kwh;
            assert!(charge >= electric - tol, "{} at {t}: the SOC's charge {charge} below the electric techs' {electric}", s.section());
            assert!(d.soc_kwh[t] <= d.kwh + tol && d.soc_kwh[t] >= tank.soc_min_fraction * d.kwh - tol, "{} SOC bounds at {t}", s.section());
            if let Some(limits) = &s.high_temp {
                assert!(charge <= d.kwh / limits.charge_hours + tol && out <= d.kwh / limits.discharge_hours + tol, "rates at {t}");
            }
            charges[b][t] = charge;
            implied_total += charge;
        }
        let given = heat.existing_to_storage_kw[t] + pumps.iter().map(|p| p.to_storage_kw[t]).sum::<f64>();
        assert!((implied_total - given).abs() <= 1e-2 + 1e-5 * given, "charges at {t}: the SOCs say {implied_total}, the techs {given}");
    }
    for (tech, p) in model.heat_pumps.iter().zip(pumps) {
        let section = tech.kind.section();
        let production = p.production();
        let reported = kw(body, section, "thermal_production_series_mmbtu_per_hour");
        // The ASHPs' results have no high-temperature part.
        let high_field = "thermal_to_high_temp_thermal_storage_series_mmbtu_per_hour";
        let to_high = if body[section][high_field].is_null() { None } else { Some(kw(body, section, high_field)) };
        let to_storage = kw(body, section, "thermal_to_storage_series_mmbtu_per_hour");
        let electric = series(body, section, "electric_consumption_series_kw");
        for t in 0..8760 {
            let high: f64 = p.to_storages_kw.iter().filter(|(b, _)| heating.hot_storages[*b].high_temp.is_some()).map(|(_, kw)| kw[t]).sum();
            let parts = p.to_loads()[t] + p.to_storage_kw[t] + p.to_waste_kw[t] + p.to_turbine_kw[t];
            assert!((reported[t] - production[t]).abs() <= 1e-2 && (parts - production[t]).abs() <= 1e-6, "{section} production at {t}");
            assert!(to_high.as_ref().is_none_or(|h| (h[t] - high).abs() <= 1e-2), "{section} heat to the high-temperature storage at {t}");
            assert!((to_storage[t] - p.to_storage_kw[t]).abs() <= 1e-2, "{section} heat to storage at {t}");
            assert!((electric[t] - production[t] / tech.cop[t]).abs() <= 1e-3, "{section} electricity at {t}: {} for {} of heat", electric[t], production[t]);
        }
    }
    charges
}

/// The electric heater charging both storages: night electricity ($0.02/kWh at COP 1) against
/// $31/MMBtu of boiler heat, space heating through the tank and process heat through the
/// high-temperature storage. Each step as the header; the heater sends heat to both storages
/// over the year, each at most its SOC's charge, and its results name the high-temperature part;
/// the grid supplies the 100 kW load plus the heater's electricity.
#[test]
fn electric_heater_charges_both_storages() {
    let heater = json!({"ElectricHeater": {"installed_cost_per_mmbtu_per_hour": 2000.0, "cop": HEATER_COP}});
    let s = scenario(&[("SpaceHeatingLoad", 2.0), ("ProcessHeatLoad", 1.0)], "space", "process", heater);
    let (model, run, body) = solve(&s);
    let heat = run.optimal.dispatch.heating.as_ref().expect("heating");
    let pumps = &run.optimal.dispatch.heat_pumps;
    assert_eq!(model.heat_pumps[0].charges, [0, 1], "the heater serves every load: it may charge both");
    check_steps(&model, heat, pumps, &body);
    let to_each: Vec<f64> = pumps[0].to_storages_kw.iter().map(|(_, kw)| kw.iter().sum()).collect();
    assert!(to_each.iter().all(|&kwh| kwh > 1000.0), "the heater charges both storages: {to_each:?} kWh");
    let grid = series(&body, "ElectricUtility", "electric_to_load_series_kw");
    for (t, g) in grid.iter().enumerate() {
        assert!((g - 100.0 - pumps[0].electric_kw[t]).abs() <= 1e-3, "electric balance at {t}");
    }
    let night: f64 = (0..8760).filter(|t| t % 24 < 6).map(|t| pumps[0].to_storage_kw[t]).sum();
    assert!(night > 0.9 * to_each.iter().sum::<f64>(), "the heater charges at night: {night} of {to_each:?}");
}

/// The heater with `charge_storage_only`: all its heat to the high-temperature storage (the
/// service's order), none to the loads or the tank, which the boiler alone may charge.
#[test]
fn electric_heater_charging_only_the_high_temperature_storage() {
    let heater = json!({"ElectricHeater": {"installed_cost_per_mmbtu_per_hour": 2000.0, "cop": HEATER_COP, "charge_storage_only": true}});
    let s = scenario(&[("SpaceHeatingLoad", 2.0), ("ProcessHeatLoad", 1.0)], "space", "process", heater);
    let (model, run, body) = solve(&s);
    let heat = run.optimal.dispatch.heating.as_ref().expect("heating");
    let pumps = &run.optimal.dispatch.heat_pumps;
    assert_eq!(model.heat_pumps[0].charges, [1]);
    let charges = check_steps(&model, heat, pumps, &body);
    let heater = &pumps[0];
    assert!(heater.to_loads().iter().all(|&v| v == 0.0), "no heat straight to a load");
    let made: f64 = heater.production().iter().sum();
    let to_high: f64 = kw(&body, "ElectricHeater", "thermal_to_high_temp_thermal_storage_series_mmbtu_per_hour").iter().sum();
    assert!(made > 1000.0 && isapprox(to_high, made, 1e-5, 1.0), "all of its {made} kWh to the high-temperature storage ({to_high})");
    for t in 0..8760 {
        assert!(charges[0][t] <= heat.existing_to_storage_kw[t] + 1e-2, "only the boiler charges the tank at {t}");
    }
}

/// CST beside both storages, both serving process heat. First with `charge_storage_only` and
/// waste (the corpus's CST case on our own production factor): its heat goes to the
/// high-temperature storage or is wasted, never to the tank or the load. Then free to serve the
/// load and both storages but not to waste: its production is exactly cf · size every step and
/// its heat to the storages at most that.
#[test]
fn cst_with_both_storages() {
    let cf = daytime_production(0.7);
    let cst = |extra: Value| {
        let mut c = json!({"production_factor": cf, "can_serve_process_heat": true, "can_serve_space_heating": false, "can_serve_dhw": false,
                           "installed_cost_per_kw": 500.0, "acres_per_kw": 0.001});
        for (k, v) in extra.as_object().expect("fields") {
            c[k] = v.clone();
        }
        json!({"CST": c})
    };
    let only = scenario(&[("ProcessHeatLoad", 1.0)], "process", "process", cst(json!({"min_kw": 2000.0, "max_kw": 2000.0, "charge_storage_only": true})));
    let (model, run, body) = solve(&only);
    let heat = run.optimal.dispatch.heating.as_ref().expect("heating");
    let pumps = &run.optimal.dispatch.heat_pumps;
    assert_eq!(model.heat_pumps[0].charges, [1]);
    check_steps(&model, heat, pumps, &body);
    let c = &pumps[0];
    for t in 0..8760 {
        let made = cf[t] * c.size_kw;
        assert!((c.production()[t] - made).abs() <= 1e-3 * made.max(1.0), "production cf·size at {t}");
        assert!(c.to_loads()[t] == 0.0, "charge_storage_only at {t}");
    }
    let (charged, wasted): (f64, f64) = (c.to_storage_kw.iter().sum(), c.to_waste_kw.iter().sum());
    assert!(charged > 0.0 && wasted > 0.0, "CST charges the storage and wastes the rest: {charged} / {wasted} kWh");

    let free = scenario(&[("ProcessHeatLoad", 1.0)], "process", "process", cst(json!({"max_kw": 1500.0, "can_waste_heat": false})));
    let (model, run, body) = solve(&free);
    let heat = run.optimal.dispatch.heating.as_ref().expect("heating");
    let pumps = &run.optimal.dispatch.heat_pumps;
    assert_eq!(model.heat_pumps[0].charges, [0, 1]);
    check_steps(&model, heat, pumps, &body);
    let c = &pumps[0];
    assert!(c.size_kw > 1.0, "CST built: {} kW", c.size_kw);
    for t in 0..8760 {
        let made = cf[t] * c.size_kw;
        assert!(c.to_waste_kw[t] == 0.0 && (c.production()[t] - made).abs() <= 1e-3 * made.max(1.0), "no waste, production cf·size at {t}");
        assert!(c.to_storage_kw[t] <= made + 1e-3, "heat to the storages within cf·size at {t}");
    }
    assert!(c.to_storage_kw.iter().sum::<f64>() > 0.0, "CST charges a storage");
}

/// Which storages a tech may charge: only those whose loads it may all serve, with
/// `charge_storage_only` only the high-temperature storage (none when that one serves a load
/// the tech may not), and none serving only a load another heat pump is forced into.
#[test]
fn which_storages_each_tech_may_charge() {
    let base = scenario(&[("SpaceHeatingLoad", 2.0), ("ProcessHeatLoad", 1.0)], "space", "process", json!({}));
    let charges = |heater: Value| {
        let mut s = base.clone();
        s["ElectricHeater"] = heater;
        from_scenario(&s, &[]).expect("supported").heat_pumps[0].charges.clone()
    };
    assert_eq!(charges(json!({"can_serve_process_heat": false})), [0]);
    assert_eq!(charges(json!({"can_serve_space_heating": false})), [1]);
    assert_eq!(charges(json!({"charge_storage_only": true})), [1]);
    assert_eq!(charges(json!({"charge_storage_only": true, "can_serve_process_heat": false})), Vec::<usize>::new());
    let mut forced = forced_scenario();
    forced["ElectricHeater"] = json!({});
    let model = from_scenario(&forced, &[]).expect("a forced heat pump beside both storages");
    let charges: Vec<(&str, Vec<usize>)> = model.heat_pumps.iter().map(|p| (p.kind.section(), p.charges.clone())).collect();
    assert_eq!(charges, [("ElectricHeater", vec![1]), ("ASHPSpaceHeater", vec![0])]);
}

/// Space heating through the tank, process heat through the high-temperature storage, and the
/// ASHP space heater forced into the space heating (40 °F outside, no minimum allowable size).
fn forced_scenario() -> Value {
    let ashp = json!({"ASHPSpaceHeater": {"force_into_system": true, "can_serve_cooling": false, "min_allowable_ton": 0.0, "installed_cost_per_ton": 1500.0}});
    let mut s = scenario(&[("SpaceHeatingLoad", 2.0), ("ProcessHeatLoad", 1.0)], "space", "process", ashp);
    s["Site"]["outdoor_air_temperature_degF"] = json!(vec![40.0; 8760]);
    s
}

/// A heat pump forced into the space heating beside both storages (`add_ashp_force_in_constraints`):
/// each step as the header, the boiler sends no heat to the space heating and none into the tank
/// (which serves only it), so the heat pump and the tank's discharge serve all of it and the tank
/// takes only the heat pump's heat; the boiler still charges the high-temperature storage.
#[test]
fn forced_heat_pump_with_both_storages() {
    let (model, run, body) = solve(&forced_scenario());
    let heat = run.optimal.dispatch.heating.as_ref().expect("heating");
    let pumps = &run.optimal.dispatch.heat_pumps;
    let charges = check_steps(&model, heat, pumps, &body);
    let boiler_to_space = kw(&body, "ExistingBoiler", "thermal_to_space_heating_load_series_mmbtu_per_hour");
    let space = model.heating.as_ref().expect("heating").load_kw(HeatingLoadKind::SpaceHeating, 8760);
    let ashp = &pumps[0];
    for t in 0..8760 {
        assert!(boiler_to_space[t].abs() <= 1e-2, "the boiler serves no space heating at {t}: {}", boiler_to_space[t]);
        let served = ashp.to_kind(HeatingLoadKind::SpaceHeating)[t] + heat.storages[0].discharge_kw[t];
        assert!((served - space[t]).abs() <= 1e-2 + 1e-5 * space[t], "forced load at {t}: {served} vs {}", space[t]);
        let from_ashp: f64 = ashp.to_storages_kw.iter().filter(|(b, _)| *b == 0).map(|(_, kw)| kw[t]).sum();
        assert!(charges[0][t] <= from_ashp + 1e-2, "only the heat pump charges the tank at {t}: {} vs {from_ashp}", charges[0][t]);
    }
    assert!(ashp.size_kw > 1.0, "the forced heat pump is built: {} kW", ashp.size_kw);
}

/// Cooling off grid stays refused by name with its reason: the service's scenario throws for a
/// cooling load off grid (REopt.jl `Scenario`), so there is no off-grid cooling to reproduce; the
/// same scenario without it is read.
#[test]
fn cooling_off_grid_is_refused_with_the_service_reason() {
    let base = json!({
        "Settings": {"off_grid_flag": true},
        "Site": {"latitude": 34.58, "longitude": -118.12},
        "Generator": {"max_kw": 200.0},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2022}
    });
    assert!(from_scenario(&base, &[]).expect("the electric techs off grid").off_grid.is_some());
    let mut cooling = base.clone();
    cooling["CoolingLoad"] = json!({"thermal_loads_ton": vec![10.0; 8760]});
    cooling["ExistingChiller"] = json!({"cop": 3.5});
    match from_scenario(&cooling, &[]) {
        Err(ScenarioError::Unsupported(u)) => {
            let item = u.items.iter().find(|i| i.starts_with("cooling loads off grid")).unwrap_or_else(|| panic!("{:?}", u.items));
            assert!(item.contains("the service's Scenario throws"), "{item}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

//! The ASHPs' `force_dispatch` (true by default): in every step the heat pump makes all the load
//! it serves or all its size allows, whichever is less (with cooling, its heat over the heating
//! capacity factor plus its cooling over the cooling one against its size), for a given size and a
//! sized one, the space heater that cools and the water heater; and REopt.jl's testset "ASHP
//! Forced Dispatch to Load or Max Capacity" (`test/runtests.jl`) rebuilt on our own temperatures
//! (`optimizer_heat_pumps::base`): its sums over the service's COPs and capacity factors are taken
//! over ours, with the Julia tolerances.

use serde_json::{json, Value};
use sunflux::optimizer::model::cooling_inputs::KWH_THERMAL_PER_TONHOUR;
use sunflux::optimizer::model::KWH_PER_MMBTU;
use sunflux::optimizer::{Model, Optimized};
use crate::optimizer_heat_pumps::{base, consumption_at, flat};
use crate::support::{isapprox, number, solve};

/// The testset's scenario: REopt.jl's `test/scenarios/ashp.json` space heater (no cooling, no
/// forced dispatch, $4,050/ton) under half the heating fuel each for space heating and hot water
/// (0.4 MMBtu/h of heat each), a flat 0.1-ton cooling load, a kept COP-100 chiller and a kept
/// boiler burning fuel at $0.001/MMBtu.
fn forced_dispatch_scenario() -> Value {
    let mut scenario = base(0.001);
    scenario["SpaceHeatingLoad"] = flat(0.5 * 8760.0);
    scenario["DomesticHotWaterLoad"] = flat(0.5 * 8760.0);
    scenario["CoolingLoad"] = json!({"thermal_loads_ton": vec![0.1; 8760]});
    scenario["ExistingChiller"] = json!({"retire_in_optimal": false, "cop": 100});
    scenario["ExistingBoiler"]["retire_in_optimal"] = json!(false);
    scenario["ASHPSpaceHeater"] = json!({
        "min_ton": 0.0, "max_ton": 100000, "installed_cost_per_ton": 4050, "om_cost_per_ton": 0.0, "macrs_option_years": 0,
        "macrs_bonus_fraction": 0.0, "can_serve_cooling": false, "force_dispatch": false, "back_up_temp_threshold_degF": 10.0
    });
    scenario
}

/// Checks heat pump `i`'s forced dispatch in every step (atol 1e-6): without cooling its heat is
/// min(cf_t · size, load_t); with cooling heat_t / cf_t + cooling_t / ccf_t is min(size, load_t /
/// cf_t + cooling load_t / ccf_t). Returns the number of steps at capacity and at load (a step
/// where both meet counts as at load).
fn assert_forced_dispatch(model: &Model, run: &Optimized, i: usize) -> (usize, usize) {
    let tech = &model.heat_pumps[i];
    let p = &run.optimal.dispatch.heat_pumps[i];
    let load = model.heating.as_ref().expect("heating").load_kw(tech.serves[0], model.steps());
    let made = p.production();
    let (mut at_capacity, mut at_load) = (0, 0);
    for t in 0..model.steps() {
        let (output, capacity, need) = match &tech.cooling {
            None => (made[t], tech.cf[t] * p.size_kw, load[t]),
            Some(c) => {
                let cooling_load = model.cooling.as_ref().expect("cooling").load_kw[t];
                let cooled = p.cool_to_load_kw[t] + p.cool_to_storage_kw[t];
                (made[t] / tech.cf[t] + cooled / c.cf[t], p.size_kw, load[t] / tech.cf[t] + cooling_load / c.cf[t])
            }
        };
        assert!((output - capacity.min(need)).abs() <= 1e-6, "heat pump {i} at {t}: {output} vs min({capacity}, {need})");
        if need <= capacity { at_load += 1 } else { at_capacity += 1 }
    }
    (at_capacity, at_load)
}

/// Testset case 1, a given size that cools: the 1,000-ton space heater with `can_serve_cooling`
/// and `force_dispatch` serves all the heat and, though the COP-100 chiller is cheaper, all the
/// cooling: it draws Σ 0.4 · 293.07107 / cop_t + 0.1 · 3.51685 / ccop_t kWh, makes 876 ton-h and
/// 0.4 · 8760 MMBtu (rtol 1e-4), and in every step exactly its need.
#[test]
fn forced_dispatch_of_an_oversized_cooling_space_heater_meets_the_loads() {
    let mut scenario = forced_dispatch_scenario();
    scenario["ASHPSpaceHeater"]["can_serve_cooling"] = json!(true);
    scenario["ASHPSpaceHeater"]["force_dispatch"] = json!(true);
    scenario["ASHPSpaceHeater"]["min_ton"] = json!(1000);
    scenario["ASHPSpaceHeater"]["max_ton"] = json!(1000);
    let (model, run, body) = solve(&scenario);
    let tech = &model.heat_pumps[0];
    let cooling = tech.cooling.as_ref().expect("the ASHP cools");
    let consumption = consumption_at(0.4, &tech.cop) + cooling.cop.iter().map(|c| 0.1 * KWH_THERMAL_PER_TONHOUR / c).sum::<f64>();
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_electric_consumption_kwh"), consumption, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_thermal_production_tonhour"), 0.1 * 8760.0, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_thermal_production_mmbtu"), 0.4 * 8760.0, 1e-4, 0.0));
    assert_eq!(assert_forced_dispatch(&model, &run, 0), (0, 8760));
}

/// Testset case 2, given sizes below the loads: a 10-ton space heater (heat only) and a 10-ton
/// water heater, both forced to dispatch with no minimum allowable size, run at capacity in every
/// step although the boiler's fuel is nearly free: each draws Σ 10 · 3.51685 · cf_t / cop_t kWh
/// and makes Σ 10 · (3.51685 / 293.07107) · cf_t MMBtu (rtol 1e-4).
#[test]
fn forced_dispatch_of_undersized_heaters_runs_them_at_capacity() {
    let mut scenario = forced_dispatch_scenario();
    scenario["ASHPSpaceHeater"]["force_dispatch"] = json!(true);
    scenario["ASHPSpaceHeater"]["min_ton"] = json!(10);
    scenario["ASHPSpaceHeater"]["max_ton"] = json!(10);
    scenario["ASHPSpaceHeater"]["min_allowable_ton"] = json!(0);
    scenario["ASHPWaterHeater"] = json!({"force_dispatch": true, "min_allowable_ton": 0.0, "min_ton": 10, "max_ton": 10});
    let (model, run, body) = solve(&scenario);
    for (i, section) in ["ASHPSpaceHeater", "ASHPWaterHeater"].into_iter().enumerate() {
        let tech = &model.heat_pumps[i];
        let consumption: f64 = tech.cf.iter().zip(&tech.cop).map(|(cf, cop)| 10.0 * KWH_THERMAL_PER_TONHOUR * cf / cop).sum();
        let production: f64 = tech.cf.iter().map(|cf| 10.0 * KWH_THERMAL_PER_TONHOUR / KWH_PER_MMBTU * cf).sum();
        assert!(isapprox(number(&body, section, "annual_electric_consumption_kwh"), consumption, 1e-4, 0.0), "{section}");
        assert!(isapprox(number(&body, section, "annual_thermal_production_mmbtu"), production, 1e-4, 0.0), "{section}");
        assert_eq!(assert_forced_dispatch(&model, &run, i), (8760, 0), "{section}");
    }
}

/// Testset cases 3 and 4 (cheap fuel, $4,050/ton and the water heater's default cost): without
/// forced dispatch the two 10-ton heaters make and draw nothing (atol 1e-4); forced to dispatch and
/// free to size (min_ton 0), neither is bought (size atol 1e-4).
#[test]
fn unforced_heaters_idle_and_forced_ones_are_not_bought_when_fuel_is_cheap() {
    let mut scenario = forced_dispatch_scenario();
    scenario["ASHPSpaceHeater"]["min_ton"] = json!(10);
    scenario["ASHPSpaceHeater"]["max_ton"] = json!(10);
    scenario["ASHPSpaceHeater"]["min_allowable_ton"] = json!(0);
    scenario["ASHPWaterHeater"] = json!({"force_dispatch": false, "min_allowable_ton": 0.0, "min_ton": 10, "max_ton": 10});
    let (_, _, body) = solve(&scenario);
    for section in ["ASHPSpaceHeater", "ASHPWaterHeater"] {
        assert!(number(&body, section, "annual_electric_consumption_kwh").abs() <= 1e-4, "{section}");
        assert!(number(&body, section, "annual_thermal_production_mmbtu").abs() <= 1e-4, "{section}");
    }

    for section in ["ASHPSpaceHeater", "ASHPWaterHeater"] {
        scenario[section]["force_dispatch"] = json!(true);
        scenario[section]["min_ton"] = json!(0.0);
    }
    let (_, _, body) = solve(&scenario);
    for section in ["ASHPSpaceHeater", "ASHPWaterHeater"] {
        assert!(number(&body, section, "size_ton").abs() <= 1e-4, "{section}");
    }
}

/// A sized space heater forced to dispatch under a space heating load that swings each day from
/// 0.1 to 1 MMBtu/h of fuel, dear fuel ($20/MMBtu) and a cheap heat pump: the size bought is
/// positive, some steps run at capacity and others at load, and in every step the heat is
/// min(cf_t · size, load_t) (atol 1e-6).
#[test]
fn a_sized_forced_heater_makes_the_lesser_of_capacity_and_load() {
    let mut scenario = base(20.0);
    let fuel: Vec<f64> = (0..8760).map(|h| 0.55 - 0.45 * (h as f64 / 24.0 * std::f64::consts::TAU).cos()).collect();
    scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": fuel});
    scenario["ASHPSpaceHeater"] = json!({"can_serve_cooling": false, "min_allowable_ton": 0.0, "installed_cost_per_ton": 1500.0, "om_cost_per_ton": 0.0});
    let (model, run, body) = solve(&scenario);
    assert!(model.heat_pumps[0].force_dispatch, "forced dispatch is the default");
    assert!(number(&body, "ASHPSpaceHeater", "size_ton") > 0.1);
    let (at_capacity, at_load) = assert_forced_dispatch(&model, &run, 0);
    assert!(at_capacity > 0 && at_load > 0, "{at_capacity} steps at capacity, {at_load} at load");
}

/// The same heater where every other month's electricity ($0.40/kWh against $0.02) makes its
/// heat dearer than the boiler's, so that the forced dispatch binds and the binaries decide: a
/// positive size, steps at capacity and at load, and in every step min(cf_t · size, load_t)
/// (atol 1e-6). `max_ton` 100 (above the peak need) keeps the big-M near the loads: with the
/// default ten times the peaks the branch and bound needs minutes more.
#[test]
fn a_sized_forced_heater_runs_when_the_boiler_is_cheaper() {
    let mut scenario = base(20.0);
    let fuel: Vec<f64> = (0..8760).map(|h| 0.55 - 0.45 * (h as f64 / 24.0 * std::f64::consts::TAU).cos()).collect();
    scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": fuel});
    scenario["ElectricTariff"]["monthly_energy_rates"] = json!((0..12).map(|m| if m % 2 == 0 { 0.02 } else { 0.4 }).collect::<Vec<f64>>());
    scenario["ASHPSpaceHeater"] = json!({"can_serve_cooling": false, "min_allowable_ton": 0.0, "installed_cost_per_ton": 1500.0, "om_cost_per_ton": 0.0, "max_ton": 100.0});
    let (model, run, body) = solve(&scenario);
    assert!(number(&body, "ASHPSpaceHeater", "size_ton") > 0.1);
    let (at_capacity, at_load) = assert_forced_dispatch(&model, &run, 0);
    assert!(at_capacity > 0 && at_load > 0, "{at_capacity} steps at capacity, {at_load} at load");
}

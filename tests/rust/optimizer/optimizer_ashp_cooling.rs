//! The ASHPSpaceHeater's cooling: its cooling COP and capacity factor, its cooling in the cooling
//! balance and its electricity in the electric balance, the one size its heating and cooling share,
//! and the REopt.jl anchors "ASHP Space Heater" (cases 3–4) and the cooling half of "Force in ASHP
//! systems" (cases 1 and 3; case 2 leaves the space heater neither forced in nor forced to
//! dispatch, not rebuilt here) from `test/runtests.jl`,
//! rebuilt on our own temperatures (`optimizer_heat_pumps::base`): the numbers that follow from
//! the service's weather are checked as relations (consumption = Σ production / COP), the others
//! with the Julia tolerances.

use serde_json::json;
use sunflux::optimizer::model::cooling_inputs::KWH_THERMAL_PER_TONHOUR;
use sunflux::optimizer::model::KWH_PER_MMBTU;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::optimizer_heat_pumps::{base, consumption_at, flat};
use crate::support::{isapprox, number, solve, Draws};

/// Σ_t 0.1 ton · 3.51685 / cop_t (kWh): a flat 0.1-ton cooling load served by the ASHP.
fn cooling_consumption(cop: &[f64]) -> f64 {
    cop.iter().map(|c| 0.1 * KWH_THERMAL_PER_TONHOUR / c).sum()
}

/// "ASHP Space Heater", cases 3–4: case 2's scenario (fuel at $100/MMBtu, the ASHP at $300/ton
/// with a minimum allowable 80 tons) with a flat 0.1-ton cooling load, an existing chiller of COP
/// 0.5 and ASHP cooling. The ASHP stays at 80 tons (atol 0.01), cools the whole 876 ton-h (rtol
/// 1e-4) and draws Σ 0.8 · 293.07107 / cop_t + Σ 0.1 · 3.51685 / ccop_t kWh (rtol 1e-4); the grid
/// then gives 87,600 kWh less the existing chiller's 876 · 3.51685 / 0.5 plus that (rtol 1e-4).
/// Case 4: with the boiler and a COP-100 chiller retired and free fuel, the same consumption
/// (rtol 1e-4) and 876 ton-h (atol 1e-4).
#[test]
fn ashp_space_heater_cooling() {
    let mut scenario = base(100.0);
    scenario["SpaceHeatingLoad"] = flat(8760.0);
    scenario["ExistingBoiler"]["retire_in_optimal"] = json!(false);
    scenario["ASHPSpaceHeater"] = json!({
        "min_ton": 0.0, "max_ton": 100000, "installed_cost_per_ton": 300, "om_cost_per_ton": 0.0, "macrs_option_years": 0,
        "macrs_bonus_fraction": 0.0, "can_serve_cooling": true, "force_dispatch": false, "back_up_temp_threshold_degF": 10.0,
        "min_allowable_ton": 80.0
    });
    scenario["CoolingLoad"] = json!({"thermal_loads_ton": vec![0.1; 8760]});
    scenario["ExistingChiller"] = json!({"cop": 0.5});
    let (model, _, body) = solve(&scenario);
    let tech = &model.heat_pumps[0];
    let cooling = tech.cooling.as_ref().expect("the ASHP cools");
    let consumption = consumption_at(0.8, &tech.cop) + cooling_consumption(&cooling.cop);
    assert!((number(&body, "ASHPSpaceHeater", "size_ton") - 80.0).abs() <= 0.01);
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_electric_consumption_kwh"), consumption, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_thermal_production_tonhour"), 876.0, 1e-4, 0.0));
    let grid = 87600.0 - 876.0 * KWH_THERMAL_PER_TONHOUR / 0.5 + consumption;
    assert!(isapprox(number(&body, "ElectricUtility", "annual_energy_supplied_kwh"), grid, 1e-4, 0.0));
    let for_cooling = number(&body, "ASHPSpaceHeater", "annual_electric_consumption_for_cooling_kwh");
    assert!(isapprox(for_cooling, cooling_consumption(&cooling.cop), 1e-4, 0.0), "{for_cooling}");
    assert!(number(&body, "ExistingChiller", "annual_thermal_production_tonhour").abs() <= 0.1);

    scenario["ExistingChiller"] = json!({"retire_in_optimal": true, "cop": 100});
    scenario["ExistingBoiler"]["retire_in_optimal"] = json!(true);
    scenario["ExistingBoiler"]["fuel_cost_per_mmbtu"] = json!(0);
    let (_, _, body) = solve(&scenario);
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_electric_consumption_kwh"), consumption, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_thermal_production_tonhour"), 876.0, 0.0, 1e-4));
}

/// "Force in ASHP systems", cases 1 and 3: half the heating fuel each for space heating and hot
/// water, the 0.1-ton cooling load, a COP-100 chiller and fuel at $0.001/MMBtu kept. Both ASHPs
/// forced in: the water heater draws Σ 0.4 · 293.07107 / cop_t kWh (rtol 1e-4), the space heater
/// makes 0.4 · 8760 MMBtu and all 876 ton-h of cooling (rtol 1e-4) though the chiller is cheaper.
/// The space heater alone forced in: it makes the same (rtol 1e-4), the boiler the hot water's
/// 0.4 · 8760 MMBtu (rtol 1e-4).
#[test]
fn force_in_ashp_systems_with_cooling() {
    let mut scenario = base(0.001);
    scenario["SpaceHeatingLoad"] = flat(0.5 * 8760.0);
    scenario["DomesticHotWaterLoad"] = flat(0.5 * 8760.0);
    scenario["CoolingLoad"] = json!({"thermal_loads_ton": vec![0.1; 8760]});
    scenario["ExistingChiller"] = json!({"retire_in_optimal": false, "cop": 100});
    scenario["ExistingBoiler"]["retire_in_optimal"] = json!(false);
    scenario["ASHPSpaceHeater"] = json!({"can_serve_cooling": true, "force_into_system": true, "force_dispatch": false});
    scenario["ASHPWaterHeater"] = json!({"force_into_system": true, "force_dispatch": false, "max_ton": 100000});
    let (model, _, body) = solve(&scenario);
    let water = consumption_at(0.4, &model.heat_pumps[1].cop);
    assert!(isapprox(number(&body, "ASHPWaterHeater", "annual_electric_consumption_kwh"), water, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_thermal_production_mmbtu"), 0.4 * 8760.0, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_thermal_production_tonhour"), 876.0, 1e-4, 0.0));

    scenario["ASHPWaterHeater"]["force_into_system"] = json!(false);
    let (_, _, body) = solve(&scenario);
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_thermal_production_mmbtu"), 0.4 * 8760.0, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ASHPSpaceHeater", "annual_thermal_production_tonhour"), 876.0, 1e-4, 0.0));
    assert!(isapprox(number(&body, "ExistingBoiler", "annual_thermal_production_mmbtu"), 0.4 * 8760.0, 1e-4, 0.0));
}

/// The cooling curves: the service's defaults (COP 4.0 … 2.2, CF 1.03 … 0.87 from 70 to 110 °F)
/// with no back-up at any temperature, the cooling load in the default maximum and minimum
/// allowable sizes, and unequal reference lengths the service's error.
#[test]
fn ashp_cooling_inputs_follow_the_service() {
    let mut scenario = base(5.0);
    scenario["SpaceHeatingLoad"] = flat(8760.0);
    scenario["Site"]["outdoor_air_temperature_degF"] = json!((0..8760).map(|t| [0.0, 70.0, 76.0, 120.0][t % 4]).collect::<Vec<f64>>());
    scenario["CoolingLoad"] = json!({"thermal_loads_ton": vec![1.0; 8760]});
    scenario["ASHPSpaceHeater"] = json!({"force_dispatch": false});
    let model = from_scenario(&scenario, &[]).expect("supported");
    let tech = &model.heat_pumps[0];
    let cooling = tech.cooling.as_ref().expect("cools by default");
    assert_eq!(&cooling.cop[..4], &[4.0, 4.0, 3.75, 2.2]);
    assert!(cooling.cf[..4].iter().zip([1.03, 1.03, 1.005, 0.87]).all(|(a, b)| (a - b).abs() < 1e-12), "{:?}", &cooling.cf[..4]);
    let heat_kw = 0.8 * KWH_PER_MMBTU;
    let per_step = (0..4).map(|t| heat_kw / tech.cf[t] + KWH_THERMAL_PER_TONHOUR / cooling.cf[t]).fold(0.0, f64::max);
    assert!((tech.min_allowable_kw - 0.25 * per_step).abs() < 1e-9, "{} vs {}", tech.min_allowable_kw, 0.25 * per_step);
    let peaks = (0..4).map(|t| heat_kw / tech.cf[t]).fold(0.0, f64::max) + (0..4).map(|t| KWH_THERMAL_PER_TONHOUR / cooling.cf[t]).fold(0.0, f64::max);
    assert!((tech.max_kw - 10.0 * peaks * KWH_THERMAL_PER_TONHOUR).abs() < 1e-6);
    scenario["ASHPSpaceHeater"]["cooling_cop_reference"] = json!([4.0, 3.0]);
    let Err(ScenarioError::Invalid(messages)) = from_scenario(&scenario, &[]) else { panic!("must be invalid") };
    assert!(messages.join(" ").contains("cooling_cop_reference, cooling_cf_reference, and cooling_reference_temps_degF must all be the same length"));
}

/// Over a random scenario with a cooling ASHP (no minimum allowable size: an LP), a chilled-water
/// tank and an existing chiller: in every step the chiller, the ASHP and the tank meet the cooling
/// load, the ASHP's heat and cooling over their capacity factors fit its one size, the grid meets
/// ElectricLoad less the base chiller electricity plus the chiller's and the ASHP's, and the
/// reported lifecycle cost is the program's objective.
#[test]
fn cooling_and_shared_size_hold_in_every_step_of_a_random_scenario() {
    let mut draws = Draws(91);
    let mut scenario = base(5.0 + 40.0 * draws.unit());
    scenario["Settings"] = json!({"run_bau": false});
    scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": (0..8760).map(|_| draws.unit()).collect::<Vec<f64>>()});
    scenario["CoolingLoad"] = json!({"thermal_loads_ton": (0..8760).map(|_| 2.0 * draws.unit()).collect::<Vec<f64>>()});
    scenario["ExistingChiller"] = json!({"cop": 2.0 + 3.0 * draws.unit()});
    scenario["ColdThermalStorage"] = json!({"max_gal": 2000.0 * draws.unit()});
    scenario["ElectricTariff"]["monthly_energy_rates"] = json!((0..12).map(|_| 0.05 + 0.2 * draws.unit()).collect::<Vec<f64>>());
    scenario["ASHPSpaceHeater"] = json!({"force_dispatch": false, "min_allowable_ton": 0.0, "installed_cost_per_ton": 1500.0 * draws.unit()});
    let (model, run, body) = solve(&scenario);
    let cooling = model.cooling.as_ref().expect("cooling");
    let tech = &model.heat_pumps[0];
    let curves = tech.cooling.as_ref().expect("the ASHP cools");
    let d = &run.optimal.dispatch;
    let c = d.cooling.as_ref().expect("cooling dispatch");
    let p = &d.heat_pumps[0];
    assert!(p.cool_to_load_kw.iter().sum::<f64>() > 0.0, "the ASHP never cools");
    let tol = 1e-5;
    for t in 0..model.steps() {
        let load = cooling.load_kw[t];
        let cooled = c.existing_to_load_kw[t] + p.cool_to_load_kw[t] + c.discharge_kw[t];
        assert!((cooled - load).abs() <= tol * (1.0 + load), "cooling at {t}: {cooled} vs {load}");
        let heat = p.to_loads()[t] + p.to_storage_kw[t];
        let cool = p.cool_to_load_kw[t] + p.cool_to_storage_kw[t];
        assert!(heat / tech.cf[t] + cool / curves.cf[t] <= p.size_kw + tol, "size at {t}");
        let existing = c.existing_to_load_kw[t] + c.existing_to_storage_kw[t];
        let cop = cooling.existing_chiller.cop;
        let demand = model.load_kw[t] - load / cop + existing / cop + heat / tech.cop[t] + cool / curves.cop[t];
        assert!((d.grid_load[t] - demand).abs() <= tol * (1.0 + demand), "electric at {t}: {} vs {demand}", d.grid_load[t]);
    }
    let lcc = number(&body, "Financial", "lcc");
    let lp = run.optimal.lp_lifecycle_cost();
    assert!((lcc - lp).abs() <= 1e-6 * lp.abs() + 0.02, "lcc {lcc} vs program {lp}");
}

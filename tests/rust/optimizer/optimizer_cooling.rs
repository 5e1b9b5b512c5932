//! Cooling: the CoolingLoad as the service converts it (thermal tons, fractions of the electric
//! load, FlatLoad shapes scaled to ton-hours), the existing chiller's default COP, its
//! electricity inside ElectricLoad, and the cooling checks of REopt.jl's "Heating and cooling
//! inputs + CHP defaults" (`test/runtests.jl`) rebuilt from the numbers that test states.
//! Property checks run over small random cooling scenarios from a fixed-seed generator.
//!
//! The absorption chiller and the chilled-water tank are in `optimizer_absorption`. Not
//! reproduced: "Existing HVAC (Boiler and Chiller) Costs for BAU" needs GHP or the existing
//! chiller's capital cost, refused by name (checked below), and reference-building cooling
//! profiles (the service's data).

use serde_json::{json, Value};
use sunflux::optimizer::model::cooling_inputs::KWH_THERMAL_PER_TONHOUR;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{Draws, number, series, solve};

/// An electric load that swings between 20 % and 100 % of its peak over the day.
fn daily_load(peak_kw: f64) -> Vec<f64> {
    (0..8760).map(|h| peak_kw * (0.6 + 0.4 * ((h % 24) as f64 / 24.0 * std::f64::consts::TAU).sin())).collect()
}

fn electric(loads_kw: Vec<f64>) -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": loads_kw, "year": 2017},
        "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 10.0},
    })
}

/// "Heating and cooling inputs + CHP defaults", its cooling check without reference data: a
/// CoolingLoad of `annual_fraction_of_electric_load` 0.5 and an empty ExistingChiller. The
/// chiller's electricity Σ thermal / COP is half the electric load (atol 1 kWh), and, on the
/// testset's Hospital total (7,752,820 kWh a year, restated as a FlatLoad's annual_kwh), 3,876,410
/// kWh (atol 1).
#[test]
fn heating_and_cooling_inputs_annual_fraction_of_electric_load() {
    let scenario = json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 7_752_820.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 10.0},
        "CoolingLoad": {"annual_fraction_of_electric_load": 0.5},
        "ExistingChiller": {},
    });
    let model = from_scenario(&scenario, &[]).expect("supported");
    let cooling = model.cooling.as_ref().expect("cooling");
    let chiller_kwh: f64 = cooling.load_kw.iter().sum::<f64>() / cooling.existing_chiller.cop;
    let expected = 0.5 * model.load_kw.iter().sum::<f64>();
    assert!((chiller_kwh.round() - expected.round()).abs() <= 1.0, "{chiller_kwh} vs {expected}");
    assert!((chiller_kwh.round() - 3_876_410.0).abs() <= 1.0, "{chiller_kwh}");
}

/// The default COP (REopt.jl `get_existing_chiller_default_cop`): 4.40 below 100 tons of chiller
/// (peak · max_thermal_factor_on_peak_load), 4.69 from 100 tons; a given COP wins. A default is
/// echoed among the filled inputs.
#[test]
fn the_existing_chiller_cop_follows_the_chiller_size() {
    let cop = |tons: f64, chiller: Value| {
        let mut scenario = electric(vec![1000.0; 8760]);
        scenario["CoolingLoad"] = json!({"thermal_loads_ton": vec![tons; 8760]});
        let given = chiller.get("cop").is_some();
        scenario["ExistingChiller"] = chiller;
        let model = from_scenario(&scenario, &[]).expect("supported");
        let cop = model.cooling.expect("cooling").existing_chiller.cop;
        let echoed = model.filled_defaults.iter().find(|f| f.section == "ExistingChiller" && f.field == "cop").map(|f| f.value.clone());
        assert_eq!(echoed, (!given).then(|| json!(cop)));
        cop
    };
    assert_eq!(cop(79.0, json!({})), 4.40);
    assert_eq!(cop(81.0, json!({})), 4.69);
    assert_eq!(cop(90.0, json!({"max_thermal_factor_on_peak_load": 1.0})), 4.40);
    assert_eq!(cop(90.0, json!({"cop": 3.2})), 3.2);
}

/// The electric fractions convert with the given COP; monthly fractions follow the load year's
/// months; a FlatLoad shape carries annual_tonhour (or monthly_tonhour) of cooling.
#[test]
fn cooling_load_forms_convert_as_the_service() {
    let loads = daily_load(500.0);
    let mut scenario = electric(loads.clone());
    scenario["ExistingChiller"] = json!({"cop": 4.0});
    scenario["CoolingLoad"] = json!({"per_time_step_fractions_of_electric_load": vec![0.25; 8760]});
    let cooling = from_scenario(&scenario, &[]).expect("supported").cooling.expect("cooling");
    assert!((0..8760).all(|t| (cooling.load_kw[t] - loads[t]).abs() < 1e-9));
    let mut monthly = vec![0.0; 12];
    monthly[6] = 0.5;
    scenario["CoolingLoad"] = json!({"monthly_fractions_of_electric_load": monthly});
    let cooling = from_scenario(&scenario, &[]).expect("supported").cooling.expect("cooling");
    let july = (181 * 24)..(212 * 24);
    assert!((0..8760).all(|t| (cooling.load_kw[t] - if july.contains(&t) { 2.0 * loads[t] } else { 0.0 }).abs() < 1e-9));
    scenario["CoolingLoad"] = json!({"doe_reference_name": "FlatLoad_16_5", "annual_tonhour": 100_000.0});
    let (_, _, body) = solve(&scenario);
    assert!((number(&body, "CoolingLoad", "annual_calculated_tonhour") - 100_000.0).abs() <= 0.01);
    assert!((number(&body, "ExistingChiller", "annual_electric_consumption_kwh") - 100_000.0 * KWH_THERMAL_PER_TONHOUR / 4.0).abs() <= 0.01);
}

/// The cooling load's electricity is part of ElectricLoad: adding the section changes neither the
/// electric load nor the lifecycle cost, and the chiller's electricity is bought from the grid.
#[test]
fn the_existing_chillers_electricity_is_inside_the_electric_load() {
    let plain = electric(daily_load(300.0));
    let mut cooled = plain.clone();
    cooled["CoolingLoad"] = json!({"annual_fraction_of_electric_load": 0.4});
    let (_, _, without) = solve(&plain);
    let (model, _, with) = solve(&cooled);
    assert_eq!(series(&with, "ElectricLoad", "load_series_kw"), series(&without, "ElectricLoad", "load_series_kw"));
    assert!((number(&with, "Financial", "lcc") - number(&without, "Financial", "lcc")).abs() < 0.01);
    let chiller = series(&with, "ExistingChiller", "electric_consumption_series_kw");
    let bought = series(&with, "ElectricUtility", "electric_to_load_series_kw");
    assert!((0..model.steps()).all(|t| chiller[t] <= bought[t] + 1e-3));
    for key in ["size_ton", "annual_electric_consumption_kwh", "annual_thermal_production_tonhour"] {
        assert_eq!(with["ExistingChiller"][key], with["ExistingChiller"][format!("{key}_bau")], "{key}");
    }
}

/// Heating and cooling together: the boiler's heat and the chiller's cooling are reported side
/// by side, and the cooling (inside the electric load) leaves the lifecycle cost as without it.
/// An ExistingChiller without a CoolingLoad is ignored, as the service builds no chiller then.
#[test]
fn cooling_beside_heating_and_a_chiller_without_load() {
    let mut heated = electric(daily_load(300.0));
    heated["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![0.5; 8760]});
    heated["ExistingBoiler"] = json!({"fuel_cost_per_mmbtu": 10.0});
    heated["ExistingChiller"] = json!({"cop": 5.0});
    let mut both = heated.clone();
    both["CoolingLoad"] = json!({"thermal_loads_ton": vec![20.0; 8760]});
    let (_, _, heated_only) = solve(&heated);
    let (_, _, body) = solve(&both);
    assert!(heated_only.get("ExistingChiller").is_none() && heated_only.get("CoolingLoad").is_none());
    assert!((number(&body, "Financial", "lcc") - number(&heated_only, "Financial", "lcc")).abs() < 0.01);
    assert!((number(&body, "ExistingBoiler", "annual_thermal_production_mmbtu") - number(&heated_only, "ExistingBoiler", "annual_thermal_production_mmbtu")).abs() < 1e-6);
    assert!((number(&body, "CoolingLoad", "annual_calculated_tonhour") - 20.0 * 8760.0).abs() <= 0.01);
    assert!((number(&body, "ExistingChiller", "annual_electric_consumption_kwh") - 20.0 * 8760.0 * KWH_THERMAL_PER_TONHOUR / 5.0).abs() <= 0.01);
}

#[test]
fn unmodelled_cooling_parts_are_refused_by_name() {
    let mut scenario = electric(daily_load(300.0));
    scenario["CoolingLoad"] = json!({"doe_reference_name": "Hospital"});
    scenario["ExistingChiller"] = json!({"installed_cost_dollars": 50000.0});
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be unsupported") };
    let text = found.message();
    assert!(text.contains("CoolingLoad.doe_reference_name=Hospital"), "{text}");
    scenario["CoolingLoad"] = json!({"thermal_loads_ton": vec![10.0; 8760]});
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be unsupported") };
    assert!(found.message().contains("ExistingChiller.installed_cost_dollars"), "{}", found.message());
}

/// The service refuses a cooling load whose electricity exceeds the electric load in a step.
#[test]
fn cooling_electricity_above_the_electric_load_is_invalid() {
    let mut scenario = electric(vec![10.0; 8760]);
    scenario["CoolingLoad"] = json!({"thermal_loads_ton": vec![20.0; 8760]});
    scenario["ExistingChiller"] = json!({"cop": 3.0});
    let Err(ScenarioError::Invalid(messages)) = from_scenario(&scenario, &[]) else { panic!("must be invalid") };
    assert!(messages.join(" ").contains("Cooling electric consumption cannot be more than the total electric load"));
}

/// Over random cooling scenarios with PV and a battery: in every step of both cases the chiller's
/// cooling meets the load, its electricity is the load over its COP, and the electric balance
/// (grid + PV + battery to load) serves ElectricLoad with that electricity inside.
#[test]
fn cooling_and_electric_balances_hold_in_every_step_of_random_scenarios() {
    let mut draws = Draws(31);
    for case in 0..2 {
        let loads: Vec<f64> = (0..8760).map(|_| 50.0 + 250.0 * draws.unit()).collect();
        let tons: Vec<f64> = loads.iter().map(|kw| kw * draws.unit() * 0.9).collect();
        let mut scenario = electric(loads.clone());
        scenario["CoolingLoad"] = json!({"thermal_loads_ton": tons});
        scenario["ExistingChiller"] = json!({"cop": 4.0 + 2.0 * draws.unit()});
        scenario["PV"] = json!({"production_factor_series": (0..8760).map(|h| (((h % 24) as f64 - 6.0) / 12.0 * std::f64::consts::PI).sin().max(0.0)).collect::<Vec<f64>>(),
                                "installed_cost_per_kw": 800.0 + 800.0 * draws.unit()});
        scenario["ElectricStorage"] = json!({"installed_cost_per_kw": 500.0, "installed_cost_per_kwh": 200.0 + 200.0 * draws.unit()});
        let (model, _, body) = solve(&scenario);
        let cooling = model.cooling.as_ref().expect("cooling");
        let to_load = series(&body, "ExistingChiller", "thermal_to_load_series_ton");
        let electricity = series(&body, "ExistingChiller", "electric_consumption_series_kw");
        let grid = series(&body, "ElectricUtility", "electric_to_load_series_kw");
        let pv = series(&body, "PV", "electric_to_load_series_kw");
        // An unbuilt battery reports an empty series.
        let battery = series(&body, "ElectricStorage", "storage_to_load_series_kw");
        let battery = |t: usize| battery.get(t).copied().unwrap_or(0.0);
        for t in 0..model.steps() {
            let tons = cooling.load_kw[t] / KWH_THERMAL_PER_TONHOUR;
            assert!((to_load[t] - tons).abs() <= 1e-3, "case {case} step {t}");
            assert!((electricity[t] - cooling.load_kw[t] / cooling.existing_chiller.cop).abs() <= 1e-3, "case {case} step {t}");
            let served = grid[t] + pv[t] + battery(t);
            assert!((served - loads[t]).abs() <= 1e-3 * (1.0 + loads[t]), "case {case} step {t}: {served} vs {}", loads[t]);
            assert!(electricity[t] <= loads[t] + 1e-3);
        }
    }
}

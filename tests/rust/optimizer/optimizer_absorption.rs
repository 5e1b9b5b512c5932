//! The absorption chiller and the chilled-water tank: their defaults, the cooling balance they
//! join, the heat the absorption chiller draws from the heat balance, the electricity the
//! chillers add to or take from the electric balance, and the REopt.jl anchors "Thermal Energy
//! Storage + Absorption Chiller" and "Heat and cool energy balance" (`test/runtests.jl`) rebuilt
//! on our own inputs. Property checks run over small random scenarios from a fixed-seed
//! generator.

use serde_json::{json, Value};
use sunflux::optimizer::model::cooling_inputs::KWH_THERMAL_PER_TONHOUR;
use sunflux::optimizer::model::KWH_PER_MMBTU;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{Draws, isapprox, number, series, solve};

/// "Thermal Energy Storage + Absorption Chiller", as the testset sets it up after reading its
/// scenario: every other hour 10 kW of electric load, 5 kW each of space heating and hot water
/// (thermal, through a boiler of efficiency 0.8), 10 kW of cooling, fuel at $100 per kWh and
/// energy at $100/kWh; in the hours between no load, fuel at $1/kWh and energy at $50/kWh. The
/// scenario's $100/kW monthly demand rate, its Financial, a 1000-ton absorption chiller at
/// $500/ton, $0.5/ton-year and a thermal COP of 0.7, and two 2,500-gallon tanks at $1.50/gal (the
/// service's default). The testset overrides the loads after the service has sized the existing
/// boiler and chiller on its Hospital profiles and set the chiller's COP from them, so neither
/// limits the dispatch there: here both take the largest max_thermal_factor_on_peak_load (5) and
/// the chiller the COP of a Hospital's cooling load (above 100 tons: 4.69).
fn tes_and_absorption_chiller() -> Value {
    let even = |on: f64, off: f64| -> Vec<f64> { (0..8760).map(|t| if t % 2 == 1 { on } else { off }).collect() };
    let fuel = even(5.0 / 0.8 / KWH_PER_MMBTU, 0.0);
    json!({
        "Site": {"latitude": 34.5794343, "longitude": -118.1164613},
        "ElectricLoad": {"loads_kw": even(10.0, 0.0), "year": 2017},
        "ElectricTariff": {"tou_energy_rates_per_kwh": even(100.0, 50.0), "monthly_demand_rates": vec![100.0; 12]},
        "Financial": {"elec_cost_escalation_rate_fraction": 0.026, "offtaker_discount_rate_fraction": 0.081,
                      "owner_discount_rate_fraction": 0.081, "analysis_years": 20, "offtaker_tax_rate_fraction": 0.4,
                      "owner_tax_rate_fraction": 0.4, "om_cost_escalation_rate_fraction": 0.025},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": fuel},
        "DomesticHotWaterLoad": {"fuel_loads_mmbtu_per_hour": fuel},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": even(100.0 * KWH_PER_MMBTU, KWH_PER_MMBTU), "efficiency": 0.8,
                           "max_thermal_factor_on_peak_load": 5.0},
        "CoolingLoad": {"thermal_loads_ton": even(10.0 / KWH_THERMAL_PER_TONHOUR, 0.0)},
        "ExistingChiller": {"cop": 4.69, "max_thermal_factor_on_peak_load": 5.0},
        "AbsorptionChiller": {"min_ton": 0.0, "max_ton": 1000.0, "macrs_option_years": 0, "macrs_bonus_fraction": 0.0,
                              "installed_cost_per_ton": 500.0, "om_cost_per_ton": 0.5, "cop_thermal": 0.7},
        "HotThermalStorage": {"max_gal": 2500.0, "installed_cost_per_gal": 1.5},
        "ColdThermalStorage": {"max_gal": 2500.0, "installed_cost_per_gal": 1.5},
    })
}

/// The testset's numbers carry over whole (its loads, prices and costs are all set by the test):
/// the tanks serve every load (Σ hot storage to load ≈ 149.45 MMBtu, Σ cold ≈ 12,454.33 ton-h, atol
/// 0.1), they are just big enough (233 and 378 gal, atol 0.1), the existing chiller makes nothing
/// and the absorption chiller, sized at ≈ 2.846 tons (atol 0.01), makes 12,464.15 ton-h (atol 0.1).
#[test]
fn thermal_energy_storage_and_absorption_chiller() {
    let (_, _, body) = solve(&tes_and_absorption_chiller());
    let sum = |section: &str, field: &str| series(&body, section, field).iter().sum::<f64>();
    let hot = sum("HotThermalStorage", "storage_to_load_series_mmbtu_per_hour");
    let cold = sum("ColdThermalStorage", "storage_to_load_series_ton");
    assert!(isapprox(hot, 149.45, 0.0, 0.1), "hot storage to load {hot}");
    assert!(isapprox(cold, 12454.33, 0.0, 0.1), "cold storage to load {cold}");
    assert!(isapprox(number(&body, "HotThermalStorage", "size_gal"), 233.0, 0.0, 0.1));
    assert!(isapprox(number(&body, "ColdThermalStorage", "size_gal"), 378.0, 0.0, 0.1), "{}", number(&body, "ColdThermalStorage", "size_gal"));
    assert!(isapprox(number(&body, "ExistingChiller", "annual_thermal_production_tonhour"), 0.0, 0.0, 0.1));
    let made = number(&body, "AbsorptionChiller", "annual_thermal_production_tonhour");
    assert!(isapprox(made, 12464.15, 0.0, 0.1), "absorption chiller made {made}");
    let size = number(&body, "AbsorptionChiller", "size_ton");
    assert!(isapprox(size, 2.846, 0.0, 0.01), "absorption chiller size {size}");
}

/// The defaults of the testset's first checks (`get_absorption_chiller_defaults`): with nothing
/// but the size bounds given, a hot-water chiller takes the costs of the peak load's size class
/// (10 tons and less: $7,000/ton, $300/ton-year) and the thermal COP 0.74, and feeds on the hot
/// water load; a steam boiler makes it a steam chiller (COP 1.42), and so does a combustion
/// turbine; each default is echoed among the filled inputs.
#[test]
fn absorption_chiller_defaults_follow_the_heat_medium_and_the_size_class() {
    let mut scenario = tes_and_absorption_chiller();
    scenario["AbsorptionChiller"] = json!({"max_ton": 1000.0});
    let model = from_scenario(&scenario, &[]).expect("supported");
    let chiller = model.cooling.as_ref().and_then(|c| c.absorption_chiller.clone()).expect("absorption chiller");
    assert!((chiller.installed_cost_per_kw - 7000.0 / KWH_THERMAL_PER_TONHOUR).abs() < 1e-9);
    assert!((chiller.om_cost_per_kw - 300.0 / KWH_THERMAL_PER_TONHOUR).abs() < 1e-9);
    assert_eq!(chiller.cop_thermal, 0.74);
    assert_eq!(chiller.cop_electric, 14.1);
    let filled: Vec<&str> = model.filled_defaults.iter().filter(|f| f.section == "AbsorptionChiller").map(|f| f.field).collect();
    assert_eq!(filled, ["installed_cost_per_ton", "om_cost_per_ton", "cop_thermal", "heating_load_input"]);
    scenario["ExistingBoiler"]["production_type"] = json!("steam");
    let model = from_scenario(&scenario, &[]).expect("supported");
    let chiller = model.cooling.as_ref().and_then(|c| c.absorption_chiller.clone()).expect("absorption chiller");
    assert_eq!(chiller.cop_thermal, 1.42);
    assert!((chiller.installed_cost_per_kw - 3723.0 / KWH_THERMAL_PER_TONHOUR).abs() < 1e-9);
}

/// An absorption chiller drawing on an absent ProcessHeatLoad: the service balances that zero
/// load with the draw, so the existing boiler makes the heat, and the hot tank (which serves only
/// loads with a positive total) cannot: in every step the boiler's and the tank's heat to load
/// are the heating load plus the chiller's consumption (atol 1e-3 MMBtu/h, the rounding of the
/// series), the tank gives at most the space heating and hot water load, and the chiller runs.
#[test]
fn an_absorption_chiller_on_an_absent_load_draws_the_boilers_heat() {
    let mut scenario = tes_and_absorption_chiller();
    scenario["AbsorptionChiller"]["heating_load_input"] = json!("ProcessHeat");
    let (_, _, body) = solve(&scenario);
    let boiler = series(&body, "ExistingBoiler", "thermal_to_load_series_mmbtu_per_hour");
    let tank = series(&body, "HotThermalStorage", "storage_to_load_series_mmbtu_per_hour");
    let load = series(&body, "HeatingLoad", "total_heating_thermal_load_series_mmbtu_per_hour");
    let draw = series(&body, "AbsorptionChiller", "thermal_consumption_series_mmbtu_per_hour");
    for t in 0..8760 {
        assert!(isapprox(boiler[t] + tank[t], load[t] + draw[t], 0.0, 1e-3), "step {t}: {} + {} vs {} + {}", boiler[t], tank[t], load[t], draw[t]);
        assert!(tank[t] <= load[t] + 1e-3, "step {t}: the tank serves the chiller's draw");
    }
    let made = number(&body, "AbsorptionChiller", "annual_thermal_production_tonhour");
    assert!(made > 1000.0, "absorption chiller made {made} ton-h");
}

/// Without any heating load or heating tech the service builds no heat balance at all
/// (`HeatLoadBalanceCon` needs a tech in `techs.heating`): the chiller's heat costs nothing, so
/// at $100/kWh it makes all the cooling (the existing chiller nothing, atol 0.1 ton-h) and
/// reports its consumption as its cooling over cop_thermal 0.7 (to the series' rounding).
#[test]
fn an_absorption_chiller_without_heating_takes_free_heat() {
    let mut scenario = tes_and_absorption_chiller();
    for section in ["SpaceHeatingLoad", "DomesticHotWaterLoad", "ExistingBoiler", "HotThermalStorage", "ColdThermalStorage"] {
        scenario.as_object_mut().expect("object").remove(section);
    }
    let (_, _, body) = solve(&scenario);
    assert!(isapprox(number(&body, "ExistingChiller", "annual_thermal_production_tonhour"), 0.0, 0.0, 0.1));
    let made = number(&body, "AbsorptionChiller", "annual_thermal_production_tonhour");
    assert!(isapprox(made, 10.0 / KWH_THERMAL_PER_TONHOUR * 4380.0, 1e-4, 0.0), "absorption chiller made {made}");
    let heat: f64 = series(&body, "AbsorptionChiller", "thermal_consumption_series_mmbtu_per_hour").iter().sum();
    // Each of the 4380 running steps' consumption is written to 1e-5 MMBtu/h.
    assert!(isapprox(heat, made * KWH_THERMAL_PER_TONHOUR / 0.7 / KWH_PER_MMBTU, 0.0, 4380.0 * 1e-5), "heat {heat}");
}

/// The heating techs the service would balance an absent load's draw with are refused by name
/// (an ElectricHeater beside a chiller on an absent load, any heating tech without a heating
/// load); with CHP the chiller needs CHP.cooling_thermal_factor, and 0 is the service's error.
#[test]
fn an_absorption_chiller_without_its_heat_source_is_refused_by_name() {
    let mut scenario = tes_and_absorption_chiller();
    scenario["AbsorptionChiller"]["heating_load_input"] = json!("ProcessHeat");
    scenario["ElectricHeater"] = json!({"max_mmbtu_per_hour": 1.0, "installed_cost_per_mmbtu_per_hour": 100000.0});
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be unsupported") };
    assert!(found.message().contains("ElectricHeater with an AbsorptionChiller drawing from an absent ProcessHeatLoad"), "{}", found.message());
    let mut scenario = tes_and_absorption_chiller();
    scenario["CHP"] = chp(0.0);
    let Err(ScenarioError::Invalid(messages)) = from_scenario(&scenario, &[]) else { panic!("must be invalid") };
    assert!(messages.join(" ").contains("cooling_thermal_factor is 0.0"), "{messages:?}");
    // "Heat and cool energy balance": CHP's cooling_thermal_factor 0.8 scales cop_thermal 0.7.
    scenario["CHP"] = chp(0.8);
    let model = from_scenario(&scenario, &[]).expect("supported");
    let chiller = model.cooling.as_ref().and_then(|c| c.absorption_chiller.as_ref()).expect("absorption chiller");
    assert!((chiller.cop_thermal - 0.8 * 0.7).abs() < 1e-12);
}

/// A 300 kW recip engine with the inputs the service would fill from its prime-mover data.
fn chp(cooling_thermal_factor: f64) -> Value {
    json!({"prime_mover": "recip_engine", "min_kw": 300.0, "max_kw": 300.0, "cooling_thermal_factor": cooling_thermal_factor,
           "fuel_cost_per_mmbtu": vec![11.0; 12], "installed_cost_per_kw": 3000.0, "om_cost_per_kwh": 0.02,
           "electric_efficiency_full_load": 0.35, "thermal_efficiency_full_load": 0.45, "min_turn_down_fraction": 0.5,
           "unavailability_periods": [{"month": 1, "start_week_of_month": 2, "start_day_of_week": 6, "start_hour": 1, "duration_hours": 0}]})
}

/// "Heat and cool energy balance" on our own loads (the testset's are the service's Hospital
/// profiles): the testset's chillers and tanks and a boiler of efficiency 0.78, its fuel at $3/MMBtu
/// (not the testset's $11: without the CHP's heat the absorption chiller must beat the electric
/// chiller on boiler heat to run at all).
/// Its CHP is left out of the solve (its on/off binaries in every hour make the debug-build test
/// take many minutes); its cooling_thermal_factor is checked on the model above, and the CHP
/// terms of the heat checks are zero here. Its checks carry over as relations: the chillers make the cooling load plus the
/// cold tank's losses (atol 5 ton-h), the tank returns less than 97 % of what it took, the
/// absorption chiller's electricity is its cooling over cop_electric (atol 1 kWh), the boiler's
/// fuel and all heat made meet the heating load plus the chiller's draw, waste and the hot
/// tank's losses (atol 8 MMBtu), and the chiller's COP is cop_thermal 0.7 (rtol 1e-4).
#[test]
fn heat_and_cool_energy_balance() {
    let shape = |t: usize, phase: f64| 0.6 + 0.4 * ((t % 24) as f64 / 24.0 * std::f64::consts::TAU + phase).sin();
    let electric: Vec<f64> = (0..8760).map(|t| 1500.0 * shape(t, 0.0)).collect();
    let heat_fuel: Vec<f64> = (0..8760).map(|t| 1.2 * shape(t, 2.0)).collect();
    let cooling_tons: Vec<f64> = (0..8760).map(|t| 350.0 * shape(t, 1.0) * if (3000..6000).contains(&t) { 1.0 } else { 0.4 }).collect();
    let scenario = json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": electric, "year": 2017},
        "ElectricTariff": {"tou_energy_rates_per_kwh": (0..8760).map(|t| if (12..20).contains(&(t % 24)) { 0.25 } else { 0.09 }).collect::<Vec<f64>>(),
                           "monthly_demand_rates": vec![15.0; 12]},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": heat_fuel},
        "DomesticHotWaterLoad": {"fuel_loads_mmbtu_per_hour": vec![0.3; 8760]},
        "ExistingBoiler": {"production_type": "hot_water", "efficiency": 0.78, "fuel_cost_per_mmbtu": vec![3.0; 12]},
        "ExistingChiller": {"cop": 3.4, "max_thermal_factor_on_peak_load": 1.25},
        "CoolingLoad": {"thermal_loads_ton": cooling_tons},
        "HotThermalStorage": {"min_gal": 20000.0, "max_gal": 20000.0, "internal_efficiency_fraction": 0.97, "thermal_decay_rate_fraction": 0.004},
        "ColdThermalStorage": {"min_gal": 30000.0, "max_gal": 30000.0, "internal_efficiency_fraction": 0.97, "thermal_decay_rate_fraction": 0.004,
                               "soc_init_fraction": 0.1},
        "AbsorptionChiller": {"min_ton": 400.0, "max_ton": 400.0, "cop_thermal": 0.7, "installed_cost_per_ton": 500.0,
                              "om_cost_per_ton": 0.5, "macrs_option_years": 0, "macrs_bonus_fraction": 0.0},
    });
    let (model, _, body) = solve(&scenario);
    let sum = |section: &str, field: &str| series(&body, section, field).iter().sum::<f64>();
    let cooling_load = number(&body, "CoolingLoad", "annual_calculated_tonhour");
    let to_load = sum("ExistingChiller", "thermal_to_load_series_ton") + sum("AbsorptionChiller", "thermal_to_load_series_ton");
    let to_tes = sum("ExistingChiller", "thermal_to_storage_series_ton") + sum("AbsorptionChiller", "thermal_to_storage_series_ton");
    let from_tes = sum("ColdThermalStorage", "storage_to_load_series_ton");
    assert!(to_tes > 0.0, "the cold tank is used");
    assert!(from_tes / to_tes < 0.97, "tank efficiency with decay {}", from_tes / to_tes);
    assert!(isapprox((to_load + to_tes).round(), cooling_load + to_tes - from_tes, 0.0, 5.0), "{} vs {}", to_load + to_tes, cooling_load + to_tes - from_tes);
    let absorption_tons = sum("AbsorptionChiller", "thermal_to_load_series_ton") + sum("AbsorptionChiller", "thermal_to_storage_series_ton");
    let cop_electric = model.cooling.as_ref().and_then(|c| c.absorption_chiller.as_ref()).expect("chiller").cop_electric;
    let electric_kwh = number(&body, "AbsorptionChiller", "annual_electric_consumption_kwh");
    assert!(isapprox(electric_kwh.round(), absorption_tons * KWH_THERMAL_PER_TONHOUR / cop_electric, 0.0, 1.0));

    let heating_load = number(&body, "HeatingLoad", "annual_calculated_total_heating_thermal_load_mmbtu");
    let tes_inflows = sum("ExistingBoiler", "thermal_to_storage_series_mmbtu_per_hour");
    let tes_outflows = sum("HotThermalStorage", "storage_to_load_series_mmbtu_per_hour");
    let expected = heating_load + tes_inflows + sum("AbsorptionChiller", "thermal_consumption_series_mmbtu_per_hour");
    let fuel_expected = (expected - tes_outflows) / 0.78;
    assert!(isapprox(number(&body, "ExistingBoiler", "annual_fuel_consumption_mmbtu").round(), fuel_expected, 0.0, 8.0));
    let made = sum("ExistingBoiler", "thermal_production_series_mmbtu_per_hour") + tes_outflows;
    assert!(isapprox(made.round(), expected, 0.0, 8.0), "{made} vs {expected}");

    let heat_in = number(&body, "AbsorptionChiller", "annual_thermal_consumption_mmbtu") * KWH_PER_MMBTU;
    assert!(heat_in > 0.0, "the absorption chiller runs");
    let cool_out = number(&body, "AbsorptionChiller", "annual_thermal_production_tonhour") * KWH_THERMAL_PER_TONHOUR;
    assert!(isapprox(cool_out / heat_in, 0.7, 1e-4, 0.0), "COP {}", cool_out / heat_in);
}

/// Over random scenarios with PV, an absorption chiller, both tanks and a retiring (then with a
/// new boiler) or staying existing chiller: in every step of the optimal case the chillers and the cold tank meet the
/// cooling load, the boilers and the hot tank meet the heating load plus the chiller's heat draw,
/// the grid and PV meet ElectricLoad less the base chiller electricity plus what the chillers use,
/// and the reported lifecycle cost is the program's objective.
#[test]
fn cooling_heat_and_electric_balances_hold_in_every_step_of_random_scenarios() {
    let mut draws = Draws(47);
    for case in 0..2 {
        let electric: Vec<f64> = (0..8760).map(|_| 100.0 + 200.0 * draws.unit()).collect();
        let tons: Vec<f64> = electric.iter().map(|kw| kw * draws.unit() * 0.2).collect();
        let fuel: Vec<f64> = (0..8760).map(|_| 0.2 + 0.5 * draws.unit()).collect();
        let mut scenario = json!({
            "Site": {"latitude": 37.78, "longitude": -122.45},
            "ElectricLoad": {"loads_kw": electric, "year": 2017},
            "ElectricTariff": {"tou_energy_rates_per_kwh": (0..8760).map(|_| 0.05 + 0.2 * draws.unit()).collect::<Vec<f64>>(),
                               "monthly_demand_rates": vec![20.0 * draws.unit(); 12]},
            "PV": {"production_factor_series": (0..8760).map(|h| (((h % 24) as f64 - 6.0) / 12.0 * std::f64::consts::PI).sin().max(0.0)).collect::<Vec<f64>>(),
                   "installed_cost_per_kw": 1000.0 + 1000.0 * draws.unit()},
            "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": fuel},
            "DomesticHotWaterLoad": {"fuel_loads_mmbtu_per_hour": vec![0.1; 8760]},
            "ExistingBoiler": {"fuel_cost_per_mmbtu": 2.0 + 10.0 * draws.unit()},
            "HotThermalStorage": {"max_gal": 5000.0 * draws.unit()},
            "CoolingLoad": {"thermal_loads_ton": tons},
            "ExistingChiller": {"cop": 3.0 + 2.0 * draws.unit(), "retire_in_optimal": case == 1},
            "AbsorptionChiller": {"installed_cost_per_ton": 200.0 + 2000.0 * draws.unit(), "cop_thermal": 0.6 + 0.6 * draws.unit(),
                                  "heating_load_input": if case == 1 { "SpaceHeating" } else { "DomesticHotWater" }},
            "ColdThermalStorage": {"max_gal": 20000.0 * draws.unit(), "thermal_decay_rate_fraction": 0.001 * draws.unit()},
        });
        if case == 1 {
            // The existing boiler is sized on the heating load alone: without the retired chiller
            // the absorption chiller's draw needs a new boiler.
            scenario["Boiler"] = json!({"fuel_cost_per_mmbtu": 4.0 + 8.0 * draws.unit(), "installed_cost_per_mmbtu_per_hour": 20000.0 * draws.unit()});
        }
        let (model, run, body) = solve(&scenario);
        let cooling = model.cooling.as_ref().expect("cooling");
        let heating = model.heating.as_ref().expect("heating");
        let chiller = cooling.absorption_chiller.as_ref().expect("absorption chiller");
        let d = &run.optimal.dispatch;
        let c = d.cooling.as_ref().expect("cooling dispatch");
        let h = d.heating.as_ref().expect("heating dispatch");
        let tol = 1e-5;
        for t in 0..model.steps() {
            let load = cooling.load_kw[t];
            let cooled = c.existing_to_load_kw[t] + c.absorption_to_load_kw[t] + c.discharge_kw[t];
            assert!((cooled - load).abs() <= tol * (1.0 + load), "case {case} cooling at {t}: {cooled} vs {load}");
            let existing = c.existing_to_load_kw[t] + c.existing_to_storage_kw[t];
            assert!(existing <= cooling.existing_chiller.max_kw + tol);
            if case == 1 {
                assert_eq!(existing, 0.0, "a retired chiller makes nothing");
            }
            let absorbed = c.absorption_to_load_kw[t] + c.absorption_to_storage_kw[t];
            assert!(absorbed <= c.absorption_size_kw + tol);
            let draw = absorbed / chiller.cop_thermal;
            let heat = h.existing_kw[t] + h.new_kw[t] + h.discharge_kw[t];
            assert!((heat - heating.total_kw(t) - draw).abs() <= tol * (1.0 + heat), "case {case} heat at {t}: {heat} vs {} + {draw}", heating.total_kw(t));
            let demand = model.load_kw[t] - load / cooling.existing_chiller.cop + existing / cooling.existing_chiller.cop + absorbed / chiller.cop_electric;
            let served = d.grid_load[t] + d.pv_load[t];
            assert!((served - demand).abs() <= tol * (1.0 + demand), "case {case} electric at {t}: {served} vs {demand}");
        }
        let lcc = number(&body, "Financial", "lcc");
        let lp = run.optimal.lp_lifecycle_cost();
        assert!((lcc - lp).abs() <= 1e-6 * lp.abs() + 0.02, "case {case}: lcc {lcc} vs program {lp}");
    }
}

/// A cooling scenario without an absorption chiller or a tank solves as before: no cooling
/// decision enters the program, the existing chiller serves the whole load, the results carry no
/// new section, and an absorption chiller of max_ton 0 (which the service leaves out) gives the
/// very same results body.
#[test]
fn without_the_new_sections_nothing_changes() {
    let mut scenario = tes_and_absorption_chiller();
    for key in ["AbsorptionChiller", "ColdThermalStorage"] {
        scenario.as_object_mut().expect("object").remove(key);
    }
    let (model, run, body) = solve(&scenario);
    assert!(run.optimal.layout.cooling.is_none() && run.optimal.dispatch.cooling.is_none());
    assert!(body.get("AbsorptionChiller").is_none() && body.get("ColdThermalStorage").is_none());
    let cooling = model.cooling.as_ref().expect("cooling");
    let tons: Vec<f64> = cooling.load_kw.iter().map(|kw| kw / KWH_THERMAL_PER_TONHOUR).collect();
    let to_load = series(&body, "ExistingChiller", "thermal_to_load_series_ton");
    assert!(to_load.iter().zip(&tons).all(|(a, b)| (a - b).abs() <= 1e-3));
    let d = &run.optimal.dispatch;
    assert!((0..model.steps()).all(|t| (d.grid_load[t] - model.load_kw[t]).abs() <= 1e-6));
    scenario["AbsorptionChiller"] = json!({"max_ton": 0.0});
    let (_, _, same) = solve(&scenario);
    assert_eq!(same, body);
}


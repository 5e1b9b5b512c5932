//! CHP's renewable fuel, CHP, the electric heater and CST feeding the steam turbine, and CHP's
//! cooling_thermal_factor default: the REopt.jl testset "Emissions and Renewable Energy Percent"
//! (its `re_emissions_with_thermal.json` case, `test/runtests.jl`) rebuilt on our own flat loads
//! (its Hospital profiles, URDB tariff and AVERT factors are the service's data: its identities
//! carry over, with its tolerances), the renewable-electricity bound counting CHP's renewable
//! share, and the turbine's steam balance: in every step its steam in is the boilers', CHP's and
//! the electric heater's or CST's steam to it.

use serde_json::{json, Value};
use sunflux::optimizer::model::KWH_PER_MMBTU;
use sunflux::optimizer::{from_scenario, ScenarioError};
use sunflux::optimizer::Optimized;
use crate::support::{daytime_production, isapprox, number, series, solve};

const TONNE_PER_LB: f64 = 1.0 / 2204.62;
/// Natural gas lb per MMBtu (CO2, NOx, SO2, PM2.5), the testset's dictionary.
const NATURAL_GAS: [(&str, f64); 4] = [("CO2", 117.03), ("NOx", 0.09139), ("SO2", 0.000578592), ("PM25", 0.007328833)];
/// The steam turbine ratios of `optimizer_steam`'s back-pressure anchor (kWh per kWh of steam).
const ELECTRIC_PER_STEAM: f64 = 18_970_374.6 / (1_000_557.6 * KWH_PER_MMBTU);
const HEAT_PER_STEAM: f64 = 924_045.1 / 1_000_557.6;

/// A CHP with no binary (no turndown, equal full- and half-load efficiencies, no hourly O&M, one
/// $/kW and no maintenance): the solves stay linear.
fn linear_chp(min_kw: f64, max_kw: f64, fuel_cost_per_mmbtu: f64) -> Value {
    json!({
        "prime_mover": "recip_engine", "min_kw": min_kw, "max_kw": max_kw, "min_allowable_kw": 0.0, "fuel_cost_per_mmbtu": fuel_cost_per_mmbtu,
        "installed_cost_per_kw": 1500.0, "om_cost_per_kwh": 0.0, "electric_efficiency_full_load": 0.35, "thermal_efficiency_full_load": 0.45,
        "min_turn_down_fraction": 0.0, "macrs_option_years": 0, "macrs_bonus_fraction": 0.0,
        "unavailability_periods": [{"month": 1, "start_week_of_month": 2, "start_day_of_week": 6, "start_hour": 1, "duration_hours": 0}]
    })
}

/// A flat electric load with the four grid factor series and the testset's Financial.
fn site(electric_kw: f64) -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "Financial": {
            "om_cost_escalation_rate_fraction": 0.025, "elec_cost_escalation_rate_fraction": 0.023,
            "existing_boiler_fuel_cost_escalation_rate_fraction": 0.034, "chp_fuel_cost_escalation_rate_fraction": 0.034,
            "offtaker_tax_rate_fraction": 0.26, "offtaker_discount_rate_fraction": 0.083, "owner_tax_rate_fraction": 0.26,
            "owner_discount_rate_fraction": 0.083, "analysis_years": 25
        },
        "ElectricLoad": {"loads_kw": vec![electric_kw; 8760], "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.15, "blended_annual_demand_rate": 0.0},
        "ElectricUtility": {
            "emissions_factor_series_lb_CO2_per_kwh": 0.9, "emissions_factor_series_lb_NOx_per_kwh": 0.0006,
            "emissions_factor_series_lb_SO2_per_kwh": 0.0004, "emissions_factor_series_lb_PM25_per_kwh": 0.00005
        }
    })
}

/// The testset's thermal case on our loads: 1,000 kW electric, space heating and hot water that
/// vary by hour, the hot-water ExistingBoiler (η 0.75, $10/MMBtu) and the 200 kW CHP ($8/MMBtu)
/// whose fuel is 30 % renewable.
fn re_emissions_with_thermal() -> Value {
    let fuel: Vec<f64> = (0..8760).map(|t| 1.5 + 0.5 * ((t % 24) as f64 / 24.0 * std::f64::consts::TAU).sin()).collect();
    let mut scenario = site(1000.0);
    scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": fuel});
    scenario["DomesticHotWaterLoad"] = json!({"fuel_loads_mmbtu_per_hour": fuel});
    scenario["ExistingBoiler"] = json!({"production_type": "hot_water", "efficiency": 0.75, "fuel_type": "natural_gas", "fuel_cost_per_mmbtu": 10.0});
    scenario["CHP"] = linear_chp(200.0, 200.0, 8.0);
    scenario["CHP"]["fuel_renewable_energy_fraction"] = json!(0.3);
    scenario
}

/// "Emissions and Renewable Energy Percent", the thermal case's identities: the fuel-burn tonnes
/// are natural gas's lb/MMBtu times the boiler's and CHP's fuel (atol 1 for CO2, 1e-2 for the
/// others); each lifecycle total is the fuel burn's plus the grid's (rtol 0.001, SO2 0.01, and
/// atol 0.015 for the three numbers' rounding to 0.01 t: our PM2.5 tonnes are a few); the
/// on-site renewable electricity is 0.3 × CHP's electricity (atol 1 kWh) and its fraction of the
/// load that over the load (rtol 0.001); the renewable share of the total load is (0.3 × CHP's
/// heat + the renewable electricity) over (CHP's and the boiler's heat + the load) (rtol 0.001).
#[test]
fn emissions_and_renewable_energy_percent_with_renewable_chp_fuel() {
    let (model, _, body) = solve(&re_emissions_with_thermal());
    assert_eq!(model.chp.as_ref().map(|c| c.burner.renewable_fraction), Some(0.3));
    assert!(isapprox(number(&body, "CHP", "size_kw"), 200.0, 0.0, 0.1));
    let fuel_mmbtu = number(&body, "ExistingBoiler", "annual_fuel_consumption_mmbtu") + number(&body, "CHP", "annual_fuel_consumption_mmbtu");
    for (gas, lb_per_mmbtu) in NATURAL_GAS {
        let annual = number(&body, "Site", &format!("annual_emissions_from_fuelburn_tonnes_{gas}"));
        let atol = if gas == "CO2" { 1.0 } else { 1e-2 };
        assert!(isapprox(annual, lb_per_mmbtu * fuel_mmbtu * TONNE_PER_LB, 0.0, atol), "{gas}: {annual}");
        let lifecycle = number(&body, "Site", &format!("lifecycle_emissions_tonnes_{gas}"));
        let parts = number(&body, "Site", &format!("lifecycle_emissions_from_fuelburn_tonnes_{gas}"))
            + number(&body, "ElectricUtility", &format!("lifecycle_emissions_tonnes_{gas}"));
        let rtol = if gas == "SO2" { 0.01 } else { 0.001 };
        assert!(isapprox(lifecycle, parts, rtol, 0.015), "{gas}: {lifecycle} vs {parts}");
    }
    let chp_kwh = number(&body, "CHP", "annual_electric_production_kwh");
    assert!(chp_kwh > 0.0);
    let renewable_kwh = number(&body, "Site", "annual_onsite_renewable_electricity_kwh");
    assert!(isapprox(renewable_kwh, 0.3 * chp_kwh, 0.0, 1.0), "{renewable_kwh} vs {}", 0.3 * chp_kwh);
    let load = model.annual_electric_load_kwh();
    let fraction = number(&body, "Site", "onsite_renewable_electricity_fraction_of_elec_load");
    assert!(isapprox(fraction, renewable_kwh / load, 0.001, 0.0), "{fraction}");
    let chp_heat = number(&body, "CHP", "annual_thermal_production_mmbtu");
    let boiler_heat = number(&body, "ExistingBoiler", "annual_thermal_production_mmbtu");
    let expected = (0.3 * chp_heat * KWH_PER_MMBTU + renewable_kwh) / ((chp_heat + boiler_heat) * KWH_PER_MMBTU + load);
    let of_total = number(&body, "Site", "onsite_renewable_energy_fraction_of_total_load");
    assert!(isapprox(of_total, expected, 0.001, 0.0), "{of_total} vs {expected}");
    assert_eq!(number(&body, "Site", "onsite_renewable_energy_fraction_of_total_load_bau"), 0.0);
}

/// The renewable-electricity bound counts CHP's renewable share (REopt.jl `add_re_elec_calcs`):
/// CHP's power ($20/MMBtu of fuel at 35 %: $0.195/kWh) costs more than the grid's $0.15, so it
/// makes just the 20 % of the 500 kW load the bound asks for, from landfill gas (renewable share
/// 1 by the service's fuel defaults, its emission factors 115.38 lb CO2/MMBtu) — 876,000 kWh —
/// and twice that when its fuel is half renewable (rtol 1e-6).
#[test]
fn the_renewable_electricity_bound_counts_chp_renewable_fuel() {
    let load_kwh = 500.0 * 8760.0;
    let run = |fraction: Option<f64>| {
        let mut scenario = site(500.0);
        scenario["Site"]["renewable_electricity_min_fraction"] = json!(0.2);
        scenario["CHP"] = linear_chp(0.0, 1000.0, 20.0);
        scenario["CHP"]["fuel_type"] = json!("landfill_bio_gas");
        if let Some(f) = fraction {
            scenario["CHP"]["fuel_renewable_energy_fraction"] = json!(f);
        }
        solve(&scenario)
    };
    let (model, _, body) = run(None);
    let chp = model.chp.as_ref().expect("CHP");
    assert_eq!((chp.burner.renewable_fraction, chp.burner.emissions_lb_per_mmbtu[0]), (1.0, 115.38));
    let renewable = number(&body, "Site", "annual_onsite_renewable_electricity_kwh");
    assert!(isapprox(renewable, 0.2 * load_kwh, 1e-6, 0.0), "{renewable}");
    assert!(isapprox(number(&body, "CHP", "annual_electric_production_kwh"), 0.2 * load_kwh, 1e-6, 0.0));
    let co2 = number(&body, "Site", "annual_emissions_from_fuelburn_tonnes_CO2");
    assert!(isapprox(co2, 115.38 * number(&body, "CHP", "annual_fuel_consumption_mmbtu") * TONNE_PER_LB, 0.0, 1.0), "{co2}");
    let (_, _, body) = run(Some(0.5));
    assert!(isapprox(number(&body, "CHP", "annual_electric_production_kwh"), 0.4 * load_kwh, 1e-6, 0.0));
    assert!(isapprox(number(&body, "Site", "annual_onsite_renewable_electricity_kwh"), 0.2 * load_kwh, 1e-6, 0.0));
}

/// Left out beside an AbsorptionChiller, CHP's cooling_thermal_factor is its prime mover's and
/// size class's (REopt.jl `data/chp/chp_defaults.json`): a recip engine of class 2 0.825, class
/// 1 0.8; a micro turbine 0.94, a combustion turbine 0.9, a fuel cell 0.85; it scales the
/// chiller's cop_thermal (0.7) and is echoed as a filled default.
#[test]
fn cooling_thermal_factor_defaults_by_prime_mover() {
    let factor = |prime_mover: &str, size_class: usize| {
        let mut scenario = re_emissions_with_thermal();
        scenario["CoolingLoad"] = json!({"thermal_loads_ton": vec![50.0; 8760]});
        scenario["AbsorptionChiller"] = json!({"min_ton": 0.0, "max_ton": 100.0, "cop_thermal": 0.7, "installed_cost_per_ton": 500.0,
                                               "om_cost_per_ton": 0.5, "macrs_option_years": 0, "macrs_bonus_fraction": 0.0});
        scenario["CHP"]["prime_mover"] = json!(prime_mover);
        scenario["CHP"]["size_class"] = json!(size_class);
        let model = from_scenario(&scenario, &[]).expect("supported");
        let chiller = model.cooling.as_ref().and_then(|c| c.absorption_chiller.clone()).expect("absorption chiller");
        let filled = model.filled_defaults.iter().find(|f| f.section == "CHP" && f.field == "cooling_thermal_factor").and_then(|f| f.value.as_f64());
        let factor = filled.expect("cooling_thermal_factor filled");
        assert!(isapprox(chiller.cop_thermal, 0.7 * factor, 1e-12, 0.0), "{prime_mover} class {size_class}: {}", chiller.cop_thermal);
        factor
    };
    let cases = [("recip_engine", 2, 0.825), ("recip_engine", 1, 0.8), ("micro_turbine", 2, 0.94), ("combustion_turbine", 3, 0.9), ("fuel_cell", 1, 0.85)];
    for (prime_mover, class, expected) in cases {
        assert!(isapprox(factor(prime_mover, class), expected, 1e-12, 0.0), "{prime_mover} class {class}");
    }
}

/// The back-pressure turbine of `optimizer_steam` on a 2,000 kW load at $0.15/kWh and 3 MMBtu/h
/// of space heating, the steam ExistingBoiler (η 0.8) not feeding it.
fn turbine_site(boiler_fuel_cost: f64) -> Value {
    let mut scenario = site(2000.0);
    scenario["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![3.0; 8760]});
    scenario["ExistingBoiler"] = json!({"production_type": "steam", "efficiency": 0.8, "fuel_cost_per_mmbtu": boiler_fuel_cost,
                                        "max_thermal_factor_on_peak_load": 1.25, "can_supply_steam_turbine": false});
    scenario["SteamTurbine"] = json!({
        "min_kw": 0.0, "max_kw": 20000.0, "electric_produced_to_thermal_consumed_ratio": ELECTRIC_PER_STEAM,
        "thermal_produced_to_thermal_consumed_ratio": HEAT_PER_STEAM, "installed_cost_per_kw": 682.0, "om_cost_per_kw": 0.0,
        "om_cost_per_kwh": 0.009, "macrs_bonus_fraction": 0.0, "macrs_option_years": 0
    });
    scenario
}

/// The turbine's steam balance in every step (atol 1e-6 kW): steam in = the boilers' + CHP's +
/// the electric heater's (or CST's, the one electric heating tech of a case) steam to it; its electricity and heat are r_e and r_h of it. Returns
/// the year's CHP and heater steam to the turbine (kWh).
fn check_steam_balance(run: &Optimized) -> (f64, f64) {
    let d = &run.optimal.dispatch;
    let st = d.steam_turbine.as_ref().expect("turbine dispatch");
    let heating = d.heating.as_ref().expect("heating dispatch");
    let zeros = vec![0.0; st.thermal_in_kw.len()];
    let chp = d.chp.as_ref().map_or(&zeros, |c| &c.heat_to_turbine_kw);
    let heater = d.heat_pumps.first().map_or(&zeros, |h| &h.to_turbine_kw);
    for t in 0..st.thermal_in_kw.len() {
        let fed = heating.existing_to_turbine_kw[t] + heating.new_to_turbine_kw[t] + chp[t] + heater[t];
        assert!((st.thermal_in_kw[t] - fed).abs() <= 1e-6, "step {t}: {} vs {fed}", st.thermal_in_kw[t]);
        assert!((st.electric_kw(t) - ELECTRIC_PER_STEAM * fed).abs() <= 1e-6, "step {t}");
        assert!((st.heat_kw(t) - HEAT_PER_STEAM * fed).abs() <= 1e-6, "step {t}");
    }
    (chp.iter().sum(), heater.iter().sum())
}

/// CHP → steam turbine (REopt.jl `steam_turbine_constraints.jl`, CHP in `can_supply_steam_turbine`):
/// a 400 kW CHP at $4/MMBtu runs all year and its heat (400 · 0.45/0.35 kW) earns more through
/// the turbine (r_e of it as $0.15 power) than the r_h heat lost is worth against $10 boiler fuel:
/// all of it feeds the turbine (rtol 1e-6), the boiler feeds none (it may not), and the steam
/// balance holds in every step; CHP's `thermal_to_steamturbine_series_mmbtu_per_hour` sums to the
/// turbine's `annual_thermal_consumption_mmbtu` (rtol 1e-6) and its heat to load leaves it out.
#[test]
fn chp_feeds_the_steam_turbine() {
    let mut scenario = turbine_site(10.0);
    scenario["CHP"] = linear_chp(400.0, 400.0, 4.0);
    scenario["CHP"]["can_supply_steam_turbine"] = json!(true);
    let (_, run, body) = solve(&scenario);
    let (chp_kwh, heater_kwh) = check_steam_balance(&run);
    assert_eq!(heater_kwh, 0.0);
    let chp_heat_kwh = 400.0 * 0.45 / 0.35 * 8760.0;
    assert!(isapprox(chp_kwh, chp_heat_kwh, 1e-6, 0.0), "{chp_kwh} vs {chp_heat_kwh}");
    let to_turbine: f64 = series(&body, "CHP", "thermal_to_steamturbine_series_mmbtu_per_hour").iter().sum();
    assert!(isapprox(to_turbine, number(&body, "SteamTurbine", "annual_thermal_consumption_mmbtu"), 1e-5, 0.0), "{to_turbine}");
    let to_load: f64 = series(&body, "CHP", "thermal_to_load_series_mmbtu_per_hour").iter().sum();
    assert!(to_load.abs() <= 1e-3, "{to_load}");
}

/// ElectricHeater → steam turbine: the heater (cop 1) may serve only the hot water, so the space
/// heating comes from $60/MMBtu boiler fuel ($0.256/kWh of heat) or from the turbine's exhaust,
/// whose steam the heater makes at $0.15/kWh less the r_e of it the turbine returns ($0.152/kWh
/// of exhaust heat): the heater's
/// steam feeds the turbine, the balance holds in every step, its electricity is all its heat
/// (to load and to the turbine; rtol 1e-6) and its `thermal_to_steamturbine_series_mmbtu_per_hour`
/// sums to the turbine's `annual_thermal_consumption_mmbtu` (rtol 1e-6).
#[test]
fn the_electric_heater_feeds_the_steam_turbine() {
    let mut scenario = turbine_site(60.0);
    scenario["DomesticHotWaterLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![0.5; 8760]});
    scenario["ElectricHeater"] = json!({
        "min_mmbtu_per_hour": 0.0, "max_mmbtu_per_hour": 100.0, "cop": 1.0, "installed_cost_per_mmbtu_per_hour": 10000.0,
        "om_cost_per_mmbtu_per_hour": 0.0, "macrs_option_years": 0, "macrs_bonus_fraction": 0.0, "can_supply_steam_turbine": true,
        "can_serve_dhw": true, "can_serve_space_heating": false, "can_serve_process_heat": false
    });
    let (_, run, body) = solve(&scenario);
    let (chp_kwh, heater_kwh) = check_steam_balance(&run);
    assert_eq!(chp_kwh, 0.0);
    assert!(heater_kwh > 0.0);
    let to_turbine: f64 = series(&body, "ElectricHeater", "thermal_to_steamturbine_series_mmbtu_per_hour").iter().sum();
    assert!(isapprox(to_turbine, number(&body, "SteamTurbine", "annual_thermal_consumption_mmbtu"), 1e-5, 0.0), "{to_turbine}");
    let made = number(&body, "ElectricHeater", "annual_thermal_production_mmbtu") * KWH_PER_MMBTU;
    assert!(isapprox(number(&body, "ElectricHeater", "annual_electric_consumption_kwh"), made, 1e-6, 0.0));
    assert!(isapprox(made, heater_kwh + 0.5 * 0.8 * KWH_PER_MMBTU * 8760.0, 1e-6, 0.0), "{made}");
}

/// CST → steam turbine (REopt.jl `CSTToSteamTurbine`, CST in `techs_can_supply_steam_turbine`):
/// a cheap CST ($100/kW) serving the space heating and, beyond it, the turbine, against $60/MMBtu
/// boiler fuel. In every step the steam balance holds, CST's production is cf · size (rtol 1e-6)
/// and splits into heat to load and to the turbine; CST is built past the space heating load,
/// its `thermal_to_steamturbine_series_mmbtu_per_hour` sums to the turbine's
/// `annual_thermal_consumption_mmbtu` (rtol 1e-5) and the turbine makes r_e of it.
#[test]
fn cst_feeds_the_steam_turbine() {
    let cf = daytime_production(0.7);
    let mut scenario = turbine_site(60.0);
    scenario["Site"]["land_acres"] = json!(100.0);
    scenario["CST"] = json!({"min_kw": 0.0, "max_kw": 5000.0, "production_factor": cf, "installed_cost_per_kw": 100.0, "om_cost_per_kw": 0.0,
                             "macrs_option_years": 0, "macrs_bonus_fraction": 0.0, "can_supply_steam_turbine": true, "can_waste_heat": false, "can_serve_space_heating": true});
    let (_, run, body) = solve(&scenario);
    let (chp_kwh, cst_kwh) = check_steam_balance(&run);
    assert_eq!(chp_kwh, 0.0);
    let size = number(&body, "CST", "size_kw");
    let space_kw = 3.0 * 0.8 * KWH_PER_MMBTU;
    assert!(size * 0.7 > space_kw * 1.05, "CST {size} kW is built past the space heating load {space_kw} kW");
    let d = &run.optimal.dispatch.heat_pumps[0];
    let to_load = d.to_loads();
    for t in 0..8760 {
        let made = cf[t] * size;
        assert!(isapprox(to_load[t] + d.to_turbine_kw[t], made, 1e-6, 1e-6), "CST split at {t}: {} + {} vs {made}", to_load[t], d.to_turbine_kw[t]);
    }
    let to_turbine: f64 = series(&body, "CST", "thermal_to_steamturbine_series_mmbtu_per_hour").iter().sum();
    assert!(isapprox(to_turbine, number(&body, "SteamTurbine", "annual_thermal_consumption_mmbtu"), 1e-5, 0.0), "{to_turbine}");
    assert!(isapprox(to_turbine * KWH_PER_MMBTU, cst_kwh, 1e-5, 0.0), "{to_turbine} MMBtu vs {cst_kwh} kWh");
    let electric = number(&body, "SteamTurbine", "annual_electric_production_kwh");
    assert!(isapprox(electric, ELECTRIC_PER_STEAM * cst_kwh, 1e-5, 0.0), "turbine electricity {electric} vs r_e · {cst_kwh}");
}

/// CHP's `can_supply_steam_turbine` without a turbine changes nothing (the service's flag then
/// has no turbine to feed) and is accepted; an ASHP feeding the turbine is refused by name.
#[test]
fn turbine_feeds_accepted_and_refused() {
    let mut scenario = re_emissions_with_thermal();
    scenario["CHP"]["can_supply_steam_turbine"] = json!(true);
    assert!(from_scenario(&scenario, &[]).is_ok_and(|m| m.steam_turbine.is_none() && m.chp.is_some()));
    let mut scenario = turbine_site(10.0);
    scenario["ExistingBoiler"]["can_supply_steam_turbine"] = json!(true);
    scenario["ASHPSpaceHeater"] = json!({"min_ton": 0.0, "max_ton": 100.0, "can_supply_steam_turbine": true,
                                         "heating_cop_reference": [2.0, 3.0], "heating_cf_reference": [1.0, 1.0],
                                         "heating_reference_temps_degF": [0.0, 50.0], "back_up_temp_threshold_degF": -20.0});
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be unsupported") };
    assert!(found.message().contains("ASHPSpaceHeater.can_supply_steam_turbine=true"), "{}", found.message());
}

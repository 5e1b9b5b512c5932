//! CHP and the cooling load with the grid's outage: the REopt.jl anchor "CHP Unavailability and
//! Outage" (`test/runtests.jl`) rebuilt on our own flat site (its scenario rests on the service's
//! Hospital profiles and a URDB rate), the cooling balance the service leaves out of the
//! deterministic outage's steps (its cooling row holds over `time_steps_with_grid` only, and the
//! electric balance without the grid has no chiller term), CHP curtailment (`can_curtail`, the
//! service's `dvCurtail`), CHP off grid, and the CHP inputs the service overwrites or drops,
//! refused by name.

use serde_json::{json, Value};
use sunflux::optimizer::model::cooling_inputs::KWH_THERMAL_PER_TONHOUR;
use sunflux::optimizer::{from_scenario, ScenarioError};
use sunflux::optimizer::model::KWH_PER_MMBTU;
use crate::support::{isapprox, number, series, solve};

/// The testset's outage and maintenance hours in 2017 (1-indexed, inclusive): the outage and the
/// first period are hours 25-32 (week 2's Monday from hour 1, 8 h), the second period 81-88
/// (week 2's Wednesday from hour 9, 8 h).
const OUTAGE: (usize, usize) = (25, 32);
const SECOND_PERIOD: (usize, usize) = (81, 88);

/// "CHP Unavailability and Outage" on our own site: 1,500 kW of flat load in 2017, a quarter of
/// it critical, an outage over hours 25-32, 4 + 2 MMBtu/h of boiler fuel for space heating and hot
/// water at 80 %, 100 tons of cooling at COP 4, energy at $0.20/kWh. The CHP is the testset's
/// kind: a recip engine fixed at 1,000 kW with efficiencies that differ at full and half load, a
/// minimum turndown of 0.5, the 30 % ITC, no cost curve and the testset's two maintenance
/// periods (the first inside the outage, the second not).
fn unavailability_and_outage_scenario() -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "Financial": {"analysis_years": 25, "om_cost_escalation_rate_fraction": 0.025, "elec_cost_escalation_rate_fraction": 0.023,
                      "chp_fuel_cost_escalation_rate_fraction": 0.034, "offtaker_discount_rate_fraction": 0.083, "offtaker_tax_rate_fraction": 0.26},
        "ElectricLoad": {"loads_kw": vec![1500.0; 8760], "year": 2017, "critical_load_fraction": 0.25},
        "ElectricTariff": {"blended_annual_energy_rate": 0.20, "blended_annual_demand_rate": 10.0},
        "ElectricUtility": {"outage_start_time_step": OUTAGE.0, "outage_end_time_step": OUTAGE.1},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![4.0; 8760]},
        "DomesticHotWaterLoad": {"fuel_loads_mmbtu_per_hour": vec![2.0; 8760]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 5.0, "efficiency": 0.8},
        "CoolingLoad": {"thermal_loads_ton": vec![100.0; 8760]},
        "ExistingChiller": {"cop": 4.0},
        "CHP": {
            "prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 5.0, "min_kw": 1000, "max_kw": 1000, "min_allowable_kw": 0,
            "installed_cost_per_kw": 2000.0, "om_cost_per_kwh": 0.01, "om_cost_per_kw": 0.0, "om_cost_per_hr_per_kw_rated": 0.0,
            "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": 0.32,
            "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": 0.47,
            "min_turn_down_fraction": 0.5, "federal_itc_fraction": 0.3,
            "unavailability_periods": [
                {"month": 1, "start_week_of_month": 2, "start_day_of_week": 1, "start_hour": 1, "duration_hours": 8},
                {"month": 1, "start_week_of_month": 2, "start_day_of_week": 3, "start_hour": 9, "duration_hours": 8}
            ]
        }
    })
}

/// 0-based steps of 1-indexed inclusive hours.
fn hours((first, last): (usize, usize)) -> std::ops::Range<usize> {
    first - 1..last
}

/// The testset's seven checks on our site: in the outage the CHP carries the critical load alone
/// (Σ (to load − critical) ≈ 0, atol 0.001; Σ to load ≈ Σ critical, atol 0.1) at 375 kW, below
/// its 500 kW turndown, which the outage ignores, and despite the maintenance period there; it
/// never exports (Σ to grid = 0) nor curtails (Σ production ≈ Σ to load, rtol 1e-5); the existing
/// chiller uses no electricity in the outage; and the CHP makes nothing in the second period.
/// Besides: the electric balance holds in every step (atol 1e-6), with the grid the CHP runs at
/// or above its turndown when on, and the existing chiller serves the 100 tons in every step with
/// the grid.
#[test]
fn chp_unavailability_and_outage() {
    let (model, _, body) = solve(&unavailability_and_outage_scenario());
    let production = series(&body, "CHP", "electric_production_series_kw");
    let to_load = series(&body, "CHP", "electric_to_load_series_kw");
    let to_grid = series(&body, "CHP", "electric_to_grid_series_kw");
    let load = series(&body, "ElectricLoad", "load_series_kw");
    let outage = hours(OUTAGE);
    let off_by: f64 = outage.clone().map(|t| to_load[t] - 0.25 * load[t]).sum();
    assert!(isapprox(off_by, 0.0, 0.0, 0.001), "CHP to load minus critical load in the outage: {off_by}");
    let critical: f64 = outage.clone().map(|t| 0.25 * load[t]).sum();
    assert!(isapprox(to_load[outage.clone()].iter().sum(), critical, 0.0, 0.1));
    for t in outage.clone() {
        assert!(isapprox(production[t], 375.0, 1e-9, 1e-6), "step {t}: {} kW in the outage", production[t]);
    }
    assert_eq!(to_grid.iter().sum::<f64>(), 0.0);
    let made: f64 = production.iter().sum();
    assert!(made > 0.0 && isapprox(made, to_load.iter().sum(), 1e-5, 0.0), "produced {made}");
    let chiller = series(&body, "ExistingChiller", "electric_consumption_series_kw");
    assert_eq!(chiller[outage.clone()].iter().sum::<f64>(), 0.0);
    assert_eq!(production[hours(SECOND_PERIOD)].iter().sum::<f64>(), 0.0);
    let from_grid = series(&body, "ElectricUtility", "electric_to_load_series_kw");
    let chiller_tons = series(&body, "ExistingChiller", "thermal_to_load_series_ton");
    for t in 0..8760 {
        let served = if model.has_grid(t) { load[t] } else { model.critical_load_kw[t] };
        assert!(isapprox(to_load[t] + from_grid[t], served, 0.0, 1e-6), "step {t}: {} + {} vs {served}", to_load[t], from_grid[t]);
        if model.has_grid(t) {
            assert!(production[t] == 0.0 || production[t] >= 500.0 - 1e-6, "step {t}: {} kW below the turndown", production[t]);
            assert!(isapprox(chiller_tons[t], 100.0, 0.0, 1e-3), "step {t}: chiller {} tons", chiller_tons[t]);
        } else {
            assert_eq!(chiller_tons[t], 0.0);
        }
    }
}

/// A flat 100 kW site of 2022 whose 50 kW critical load an existing 60 kW generator carries
/// through an outage of steps 50-60, with 1 MMBtu/h of boiler fuel for space heating, 10 tons of
/// cooling at COP 3.5, and an absorption chiller and a chilled-water tank to size.
fn cooling_outage_scenario() -> Value {
    json!({
        "Site": {"latitude": 39.74, "longitude": -105.17},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2022, "critical_load_fraction": 0.5},
        "ElectricTariff": {"blended_annual_energy_rate": 0.30, "blended_annual_demand_rate": 20.0},
        "ElectricUtility": {"outage_start_time_step": 50, "outage_end_time_step": 60},
        "Generator": {"existing_kw": 60.0, "max_kw": 60.0, "fuel_avail_gal": 1000.0, "min_turn_down_fraction": 0.0},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![1.0; 8760]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 2.0, "efficiency": 0.8},
        "CoolingLoad": {"thermal_loads_ton": vec![10.0; 8760]},
        "ExistingChiller": {"cop": 3.5},
        "AbsorptionChiller": {"min_ton": 0.0, "max_ton": 100.0, "installed_cost_per_ton": 500.0, "om_cost_per_ton": 0.5, "cop_thermal": 0.7},
        "ColdThermalStorage": {"max_gal": 5000.0, "installed_cost_per_gal": 1.5}
    })
}

/// The deterministic outage's steps carry no cooling: there the chillers and the tank serve
/// nothing (the existing chiller's electricity is not in the outage's balance, whose critical
/// load the generator meets alone, atol 1e-6), while in every step with the grid the existing
/// chiller, the absorption chiller and the tank serve the 10 tons (atol 1e-3, the series'
/// roundings). The business-as-usual chiller makes the 10 tons in the 8,749 hours with the grid.
#[test]
fn the_cooling_balance_leaves_the_deterministic_outage_out() {
    let (model, _, body) = solve(&cooling_outage_scenario());
    let existing = series(&body, "ExistingChiller", "thermal_to_load_series_ton");
    let absorption = series(&body, "AbsorptionChiller", "thermal_to_load_series_ton");
    let tank = series(&body, "ColdThermalStorage", "storage_to_load_series_ton");
    let tank = if tank.is_empty() { vec![0.0; 8760] } else { tank };
    let generator = series(&body, "Generator", "electric_to_load_series_kw");
    assert!(number(&body, "AbsorptionChiller", "size_ton") > 0.0, "the absorption chiller is bought");
    assert_eq!((0..8760).filter(|&t| !model.has_grid(t)).count(), 11);
    for t in 0..8760 {
        let served = existing[t] + absorption[t] + tank[t];
        if model.has_grid(t) {
            assert!(isapprox(served, 10.0, 0.0, 1e-3), "step {t}: {served} tons served");
        } else {
            assert_eq!(served, 0.0, "step {t}");
            assert!(isapprox(generator[t], 50.0, 0.0, 1e-6), "step {t}: generator {}", generator[t]);
        }
    }
    let bau = number(&body, "ExistingChiller", "annual_thermal_production_tonhour_bau");
    assert!(isapprox(bau, 10.0 * 8749.0, 1e-9, 1e-3), "business-as-usual {bau} ton-hours");
    let kwh = 10.0 * KWH_THERMAL_PER_TONHOUR * 8749.0 / 3.5;
    assert!(isapprox(number(&body, "ExistingChiller", "annual_electric_consumption_kwh_bau"), kwh, 1e-9, 1e-3));
}

/// Cooling in multiple outages is read (the service's microgrid rows carry the critical load
/// alone and every step keeps its cooling balance); off grid it stays refused, and so do the CHP
/// inputs the service would not honour: an hourly unavailability (REopt.jl overwrites it with the
/// periods' hours) and an output profile (not a CHP field of the service).
#[test]
fn what_is_read_and_what_stays_refused() {
    let mut multiple = cooling_outage_scenario();
    multiple["ElectricUtility"] = json!({"outage_start_time_steps": [100, 2000], "outage_durations": [5]});
    let model = from_scenario(&multiple, &[]).expect("cooling with multiple outages is read");
    assert!(model.cooling.is_some() && model.outages.is_some());
    let mut off_grid = cooling_outage_scenario();
    off_grid["Settings"] = json!({"off_grid_flag": true});
    let mut chp = unavailability_and_outage_scenario();
    let mut hourly = vec![0; 8760];
    hourly[100] = 1;
    chp["CHP"]["unavailability_hourly"] = json!(hourly);
    chp["CHP"]["production_factor_series"] = json!(vec![1.0; 8760]);
    for (scenario, needles) in [
        (off_grid, vec!["cooling loads off grid"]),
        (chp, vec!["CHP.unavailability_hourly (the service replaces it", "CHP.production_factor_series (not a CHP input of the service"]),
    ] {
        match from_scenario(&scenario, &[]) {
            Err(ScenarioError::Unsupported(parts)) => {
                for needle in needles {
                    assert!(parts.items.iter().any(|p| p.contains(needle)), "{needle} not in {:?}", parts.items);
                }
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}

/// A 100 kW CHP at a 0.8 turndown on a site whose load alternates hourly between 50 and 150 kW
/// (2022), with 1 MMBtu/h of boiler fuel for space heating at 80 % and $20/MMBtu: its heat (45 %
/// against 35 % electric, no fuel intercept, $4/MMBtu) is worth more than its fuel, so it runs
/// whenever its electricity has somewhere to go. No maintenance (one zero-hour period).
fn curtailment_scenario(can_curtail: bool) -> Value {
    let load: Vec<f64> = (0..8760).map(|t| if t % 2 == 0 { 50.0 } else { 150.0 }).collect();
    json!({
        "Site": {"latitude": 39.74, "longitude": -105.17},
        "ElectricLoad": {"loads_kw": load, "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.25, "blended_annual_demand_rate": 0.0},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![1.0; 8760]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 20.0, "efficiency": 0.8},
        "CHP": {
            "prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 4.0, "min_kw": 100, "max_kw": 100, "min_allowable_kw": 0,
            "installed_cost_per_kw": 1000.0, "om_cost_per_kwh": 0.0, "om_cost_per_kw": 0.0, "om_cost_per_hr_per_kw_rated": 0.0,
            "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": 0.35,
            "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": 0.45,
            "min_turn_down_fraction": 0.8, "macrs_option_years": 0, "federal_itc_fraction": 0.0, "can_curtail": can_curtail,
            "unavailability_periods": [{"month": 1, "start_week_of_month": 2, "start_day_of_week": 6, "start_hour": 1, "duration_hours": 0}]
        }
    })
}

/// With `can_curtail` the CHP runs through the 50 kW hours at or above its 80 kW turndown and
/// curtails what the load cannot take: in every step the grid and the CHP's electricity to load
/// meet the load (atol 1e-6), the reported to load is the service's production less storage and
/// exports (curtailment included, atol 1e-3 for the 3-digit rounding), only what the load could
/// not take is curtailed, and the fuel follows the whole production (rtol 1e-6). Without it the
/// CHP cannot run in those hours (no exports, turndown above the load), and the lifecycle cost
/// is not lower.
#[test]
fn chp_curtailment_lets_it_run_above_the_load() {
    let (model, run, body) = solve(&curtailment_scenario(true));
    let d = run.optimal.dispatch.chp.as_ref().expect("CHP dispatch");
    let production = series(&body, "CHP", "electric_production_series_kw");
    let reported = series(&body, "CHP", "electric_to_load_series_kw");
    let from_grid = series(&body, "ElectricUtility", "electric_to_load_series_kw");
    for t in 0..8760 {
        let load = model.load_kw[t];
        assert!(isapprox(d.to_load_kw[t] + from_grid[t], load, 0.0, 1e-6), "step {t}: {} + {} vs {load}", d.to_load_kw[t], from_grid[t]);
        assert!(isapprox(reported[t], production[t], 0.0, 1e-3), "step {t}: reported {} of {}", reported[t], production[t]);
        assert!(isapprox(d.rated_kw[t], d.to_load_kw[t] + d.curtailed_kw[t], 0.0, 1e-6), "step {t}");
        assert!(d.curtailed_kw[t] <= (d.rated_kw[t] - load).max(0.0) + 1e-6, "step {t}: curtailed {} of {} at {load}", d.curtailed_kw[t], d.rated_kw[t]);
    }
    let curtailed: f64 = d.curtailed_kw.iter().sum();
    assert!(curtailed > 0.0 && (0..8760).step_by(2).all(|t| d.rated_kw[t] >= 80.0 - 1e-6), "curtailed {curtailed} kWh");
    let fuel = number(&body, "CHP", "annual_fuel_consumption_mmbtu");
    let expected = d.rated_kw.iter().sum::<f64>() / 0.35 / KWH_PER_MMBTU;
    assert!(isapprox(fuel, expected, 1e-6, 0.0), "fuel {fuel} expected {expected}");

    let (_, fixed_run, fixed) = solve(&curtailment_scenario(false));
    let fixed_production = series(&fixed, "CHP", "electric_production_series_kw");
    assert!((0..8760).step_by(2).all(|t| fixed_production[t] == 0.0), "the CHP ran below its turndown");
    assert!(fixed_run.optimal.dispatch.chp.as_ref().is_some_and(|c| c.curtailed_kw.iter().all(|&c| c == 0.0)));
    let (lcc, fixed_lcc) = (number(&body, "Financial", "lcc"), number(&fixed, "Financial", "lcc"));
    assert!(lcc <= fixed_lcc + 1e-6 * fixed_lcc.abs(), "lcc with curtailment {lcc} above {fixed_lcc}");
}

/// Off grid a fixed 150 kW CHP (turndown 0.8, constant 35 % efficiency, no heating load: its heat
/// is wasted) alone serves 99 % of a flat 100 kW load of 2017 with no operating reserve asked of
/// the load (the CHP neither provides nor requires any, as in the service's `Techs`), under the
/// testset's second maintenance period (hours 81-88).
fn off_grid_scenario() -> Value {
    json!({
        "Settings": {"off_grid_flag": true},
        "Site": {"latitude": 34.58, "longitude": -118.12},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2017, "min_load_met_annual_fraction": 0.99,
                         "operating_reserve_required_fraction": 0.0},
        "CHP": {
            "prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 4.0, "min_kw": 150, "max_kw": 150, "min_allowable_kw": 0,
            "installed_cost_per_kw": 1000.0, "om_cost_per_kwh": 0.0, "om_cost_per_kw": 0.0, "om_cost_per_hr_per_kw_rated": 0.0,
            "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": 0.35,
            "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": 0.45,
            "min_turn_down_fraction": 0.8, "macrs_option_years": 0, "federal_itc_fraction": 0.0,
            "unavailability_periods": [{"month": 1, "start_week_of_month": 2, "start_day_of_week": 3, "start_hour": 9, "duration_hours": 8}]
        }
    })
}

/// Off grid the maintenance holds (no production in hours 81-88, unlike in the deterministic
/// outage), the turndown does not (the service writes it over `time_steps_with_grid`, none off
/// grid): the CHP serves exactly the 99 % the load asks (rtol 1e-6), never more than the load in a
/// step (atol 1e-6), and 867,240 kWh over 100 kW steps leave some step served in part, below the
/// 120 kW turndown.
#[test]
fn chp_off_grid_keeps_its_maintenance_and_drops_its_turndown() {
    let (model, _, body) = solve(&off_grid_scenario());
    assert!(model.off_grid.is_some());
    let production = series(&body, "CHP", "electric_production_series_kw");
    let to_load = series(&body, "CHP", "electric_to_load_series_kw");
    assert_eq!(production[hours(SECOND_PERIOD)].iter().sum::<f64>(), 0.0);
    for t in 0..8760 {
        assert!(to_load[t] <= 100.0 + 1e-6 && isapprox(production[t], to_load[t], 0.0, 1e-6), "step {t}: {} of {}", to_load[t], production[t]);
    }
    let served: f64 = to_load.iter().sum();
    assert!(isapprox(served, 0.99 * 876000.0, 1e-6, 0.0), "served {served} kWh");
    assert!(production.iter().any(|&p| p > 1e-6 && p < 120.0 - 1e-6), "no step below the turndown");
    assert!(number(&body, "ElectricLoad", "offgrid_load_met_fraction") >= 0.99 - 1e-9);
}

//! Combined heat and power: the REopt.jl anchor "CHP Supplementary firing and standby"
//! (`test/runtests.jl`), rebuilt from the numbers it states on its own flat loads, the
//! relationships of the CHP testsets whose inputs rest on data we do not have or on parts not
//! modelled (waste heat, the fuel line's intercept), and property checks over random CHP
//! scenarios: the electric and heat balances hold in every step and the fuel burned is the
//! service's line with its intercept.

use serde_json::{json, Value};
use sunflux::optimizer::model::KWH_PER_MMBTU;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{Draws, isapprox, number, series, solve};

/// `test/scenarios/chp_supplementary_firing.json` as the testset changes it: flat 800 kW electric
/// load (2022), 6 MMBtu/h of fuel each for hot water and space heating, the CHP fixed at 800 kW
/// with its stated efficiencies and costs (no MACRS, no ITC), supplementary firing up to 5 × the
/// unfired steam at 90 %. Left out: the AVERT emissions (not part of what is checked), the PV and
/// storage the file fixes at zero, and the zero-hour unavailability period.
fn supplementary_firing_scenario(firing_cost_per_kw: f64, boiler_efficiency: f64) -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "Financial": {
            "analysis_years": 25, "om_cost_escalation_rate_fraction": 0.025, "elec_cost_escalation_rate_fraction": 0.023,
            "existing_boiler_fuel_cost_escalation_rate_fraction": 0.034, "boiler_fuel_cost_escalation_rate_fraction": 0.034,
            "chp_fuel_cost_escalation_rate_fraction": 0.034, "offtaker_discount_rate_fraction": 0.083, "offtaker_tax_rate_fraction": 0.26
        },
        "ElectricLoad": {"loads_kw": vec![800.0; 8760], "year": 2022},
        "ElectricTariff": {
            "monthly_energy_rates": [0.15, 0.2, 0.21, 0.23, 0.27, 0.19, 0.22, 0.17, 0.24, 0.26, 0.18, 0.2],
            "monthly_demand_rates": [0.08, 0.11, 0, 0, 0.15, 0.14, 0.09, 0.06, 0, 0, 0.05, 0]
        },
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![6.0; 8760]},
        "DomesticHotWaterLoad": {"fuel_loads_mmbtu_per_hour": vec![6.0; 8760]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 10.0, "efficiency": boiler_efficiency},
        "CHP": {
            "prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 10.0, "min_kw": 800, "max_kw": 800,
            "installed_cost_per_kw": 2416.7, "om_cost_per_kw": 149.8, "om_cost_per_kwh": 0.0, "om_cost_per_hr_per_kw_rated": 0.0,
            "electric_efficiency_full_load": 0.3573, "electric_efficiency_half_load": 0.3216, "min_turn_down_fraction": 0.5,
            "thermal_efficiency_full_load": 0.4418, "thermal_efficiency_half_load": 0.4664,
            "macrs_option_years": 0, "macrs_bonus_fraction": 0.0, "macrs_itc_reduction": 0.0, "federal_itc_fraction": 0.0,
            "unavailability_periods": [{"month": 1, "start_week_of_month": 2, "start_day_of_week": 6, "start_hour": 1, "duration_hours": 0}],
            "supplementary_firing_capital_cost_per_kw": firing_cost_per_kw,
            "supplementary_firing_max_steam_ratio": 5.0, "supplementary_firing_efficiency": 0.9
        }
    })
}

/// "CHP Supplementary firing and standby", part 1: firing at $10,000/kW is not bought; the CHP
/// runs at 800 kW all year: size 800, firing size 0, 800·8760 kWh (rtol 1e-5), heat
/// 800·(0.4418/0.3573)·8760/293.07107 MMBtu (rtol 1e-5), no demand cost, and the heating load
/// 12·8760·0.95 MMBtu (the testset's exact equalities, here rtol 1e-9).
#[test]
fn chp_supplementary_firing_and_standby_part_one() {
    let (_, _, body) = solve(&supplementary_firing_scenario(10000.0, 0.95));
    assert!(isapprox(number(&body, "CHP", "size_kw"), 800.0, 1e-9, 0.0), "{}", body["CHP"]["size_kw"]);
    assert_eq!(number(&body, "CHP", "size_supplemental_firing_kw"), 0.0);
    let electric = number(&body, "CHP", "annual_electric_production_kwh");
    assert!(isapprox(electric, 800.0 * 8760.0, 1e-5, 0.0), "electric {electric}");
    let thermal = number(&body, "CHP", "annual_thermal_production_mmbtu");
    let expected = 800.0 * (0.4418 / 0.3573) * 8760.0 / 293.07107;
    assert!(isapprox(thermal, expected, 1e-5, 0.0), "thermal {thermal} expected {expected}");
    assert_eq!(number(&body, "ElectricTariff", "lifecycle_demand_cost_after_tax"), 0.0);
    let load = number(&body, "HeatingLoad", "annual_calculated_total_heating_thermal_load_mmbtu");
    assert!(isapprox(load, 12.0 * 8760.0 * 0.95, 1e-9, 0.0), "heating load {load}");
}

/// "CHP Supplementary firing and standby", part 2, without its `reduces_demand_charges=false`
/// (refused here, so its demand cost of 5212.7 is not checked): firing at $10/kW and 90 % beats
/// the boiler at 85 %, and is sized to carry the heat the CHP leaves: 321.71 kW (atol 0.1),
/// annual heat 149136.6 MMBtu (rtol 1e-5; as the service reports it, the fired heat counted
/// twice). The CHP's size and dispatch do not depend on the demand charges (it is fixed and runs
/// at full output in every hour either way).
#[test]
fn chp_supplementary_firing_and_standby_part_two_firing() {
    let (_, _, body) = solve(&supplementary_firing_scenario(10.0, 0.85));
    let firing = number(&body, "CHP", "size_supplemental_firing_kw");
    assert!((firing - 321.71).abs() <= 0.1, "firing {firing}");
    let thermal = number(&body, "CHP", "annual_thermal_production_mmbtu");
    assert!(isapprox(thermal, 149136.6, 1e-5, 0.0), "thermal {thermal}");
    let mut refused = supplementary_firing_scenario(10.0, 0.85);
    refused["CHP"]["reduces_demand_charges"] = json!(false);
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&refused, &[]) else { panic!("must be unsupported") };
    assert!(found.message().contains("CHP.reduces_demand_charges=false"), "{}", found.message());
}

/// One maintenance period of 0 hours: none (the service fills its defaults for a left-out list).
fn no_maintenance() -> Value {
    json!([{"month": 1, "start_week_of_month": 2, "start_day_of_week": 1, "start_hour": 1, "duration_hours": 0}])
}

/// A small site: flat 100 kW electric load, a heating load of `heat_mmbtu_per_hour` of fuel, a
/// CHP that may be sized up to `max_kw`.
fn small_scenario(heat_mmbtu_per_hour: Vec<f64>, chp: Value) -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.25, "blended_annual_demand_rate": 5.0},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": heat_mmbtu_per_hour},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 12.0, "efficiency": 0.8},
        "CHP": chp
    })
}

/// "CHP to Waste Heat" rests on CHP net metering, not modelled; its relationship is checked instead: when electricity is worth
/// running the CHP for but the heating load is small, the CHP wastes the heat the load cannot
/// take, waste is never negative, and heat to load plus waste is the heat made in every step.
#[test]
fn chp_to_waste_heat_when_the_heating_load_is_small() {
    let chp = json!({
        "fuel_cost_per_mmbtu": 3.0, "installed_cost_per_kw": 100.0, "om_cost_per_kwh": 0.0, "max_kw": 100.0,
        "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": 0.32,
        "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": 0.47, "min_turn_down_fraction": 0.3,
        "unavailability_periods": no_maintenance()
    });
    let (model, run, body) = solve(&small_scenario(vec![0.05; 8760], chp));
    let d = run.optimal.dispatch.chp.as_ref().expect("CHP dispatch");
    assert!(d.size_kw > 50.0, "size {}", d.size_kw);
    let waste = series(&body, "CHP", "thermal_curtailed_series_mmbtu_per_hour");
    assert!(waste.iter().all(|&w| w >= 0.0));
    assert!(waste.iter().sum::<f64>() > 0.0);
    let chp = model.chp.as_ref().expect("CHP");
    for t in 0..model.steps() {
        let made = chp.thermal_slope * d.rated_kw[t] + if d.on[t] > 0.5 { chp.thermal_intercept * d.size_kw } else { 0.0 };
        assert!((d.heat_kw(t) - made).abs() <= 1e-5 * (1.0 + made), "step {t}: {} vs {made}", d.heat_kw(t));
    }
}

/// "CHP Cost Curve and Min Allowable Size" (its numbers in `optimizer_chp_defaults`): its
/// `min_allowable_kw` relationship is checked: on a 100 kW load, a CHP
/// worth building that may not be smaller than 120 kW is built at 120 kW or more (without the
/// floor it would not exceed the load it can serve, having no exports).
#[test]
fn chp_min_allowable_size_makes_the_size_zero_or_at_least_it() {
    let chp = json!({
        "fuel_cost_per_mmbtu": 3.0, "installed_cost_per_kw": 300.0, "om_cost_per_kwh": 0.0, "max_kw": 200.0, "min_allowable_kw": 120.0,
        "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": 0.33,
        "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": 0.47, "min_turn_down_fraction": 0.3,
        "unavailability_periods": no_maintenance()
    });
    let (_, run, _) = solve(&small_scenario(vec![1.0; 8760], chp));
    let d = run.optimal.dispatch.chp.as_ref().expect("CHP dispatch");
    assert!(d.size_kw >= 120.0 - 1e-6, "size {}", d.size_kw);
    assert!(d.rated_kw.iter().all(|&p| p <= 100.0 + 1e-6));
}

/// Under third-party ownership the service weighs CHP's capital by the third-party factor as every
/// other tech's (`TotalTechCapCosts`), on a single piece and on the pieces of a curve with a
/// smallest size: `lifecycle_capital_costs` is that factor (here ≠ 1) times the size's net
/// present cost (to the cent it is written to), and the lcc is the program's objective (rtol 1e-6).
#[test]
fn chp_capital_carries_the_third_party_factor() {
    for min_allowable_kw in [0.0, 60.0] {
        let chp = json!({
            "fuel_cost_per_mmbtu": 3.0, "installed_cost_per_kw": 1500.0, "om_cost_per_kwh": 0.0, "min_kw": 80.0, "max_kw": 80.0,
            "min_allowable_kw": min_allowable_kw, "macrs_option_years": 5,
            "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": 0.35,
            "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": 0.45, "min_turn_down_fraction": 0.0,
            "unavailability_periods": no_maintenance()
        });
        let mut scenario = small_scenario(vec![0.0; 8760], chp);
        let object = scenario.as_object_mut().expect("object");
        object.remove("SpaceHeatingLoad");
        object.remove("ExistingBoiler");
        scenario["Financial"] = json!({"third_party_ownership": true, "owner_discount_rate_fraction": 0.05, "owner_tax_rate_fraction": 0.3,
                                       "offtaker_discount_rate_fraction": 0.08, "offtaker_tax_rate_fraction": 0.26});
        let (model, run, body) = solve(&scenario);
        let tpf = run.factors.third_party_factor;
        assert!((tpf - 1.0).abs() > 0.05, "third-party factor {tpf}");
        let chp = model.chp.as_ref().expect("CHP");
        let expected = tpf * sunflux::optimizer::lp::chp::net_present_capital(&model, chp, 80.0);
        let capital = number(&body, "Financial", "lifecycle_capital_costs");
        assert!(isapprox(capital, expected, 0.0, 0.005), "min allowable {min_allowable_kw}: capital {capital} vs {expected}");
        let lcc = number(&body, "Financial", "lcc");
        assert!(isapprox(lcc, run.optimal.lp_objective, 1e-6, 0.01), "lcc {lcc} vs objective {}", run.optimal.lp_objective);
    }
}

/// The CHP parts the service models but this optimizer does not are refused by name.
#[test]
fn unmodelled_chp_parts_are_refused_by_name() {
    let chp = json!({
        "fuel_cost_per_mmbtu": 3.0, "installed_cost_per_kw": [2300.0, 1800.0], "tech_sizes_for_cost_curve": [100.0, 300.0],
        "om_cost_per_kwh": 0.0, "max_kw": 100.0, "electric_efficiency_full_load": 0.35, "thermal_efficiency_full_load": 0.45,
        "min_turn_down_fraction": 0.3, "follow_electrical_load": true, "ramp_rate_fraction_per_hour": 0.5
    });
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&small_scenario(vec![1.0; 8760], chp), &[]) else { panic!("must be unsupported") };
    let text = found.message();
    for needle in ["CHP.follow_electrical_load=true", "CHP.ramp_rate_fraction_per_hour"] {
        assert!(text.contains(needle), "{needle} missing from {text}");
    }
    assert!(!text.contains("installed_cost_per_kw"), "a cost curve is modelled: {text}");
}

/// Over random CHP scenarios (varying heating load, costs, efficiencies, turndown, hourly O&M,
/// hot storage, a 100-hour maintenance period): in every step the grid and the CHP serve the electric load, the boilers, the
/// CHP and the storage serve the heat load, the CHP's heat is its line when on (slope · output +
/// intercept · size, plus firing), its fuel is the fuel line with its intercept, its
/// output respects the turndown and is 0 in maintenance, and the outputs' lifecycle cost is the program's objective.
#[test]
fn balances_and_fuel_line_hold_in_every_step_of_random_chp_scenarios() {
    let mut draws = Draws(31);
    for case in 0..3 {
        let heat: Vec<f64> = (0..8760).map(|_| 1.5 * draws.unit()).collect();
        let electric_full = 0.28 + 0.1 * draws.unit();
        let chp = json!({
            "fuel_cost_per_mmbtu": 2.0 + 6.0 * draws.unit(), "installed_cost_per_kw": 500.0 + 2500.0 * draws.unit(),
            "om_cost_per_kwh": 0.02 * draws.unit(), "om_cost_per_hr_per_kw_rated": if case == 1 { 0.002 } else { 0.0 },
            "max_kw": 150.0, "electric_efficiency_full_load": electric_full, "electric_efficiency_half_load": electric_full - 0.04 * draws.unit(),
            "thermal_efficiency_full_load": 0.4 + 0.1 * draws.unit(), "thermal_efficiency_half_load": 0.4 + 0.1 * draws.unit(),
            "min_turn_down_fraction": 0.5 * draws.unit(), "standby_rate_per_kw_per_month": 2.0 * draws.unit(),
            "supplementary_firing_max_steam_ratio": if case == 2 { 2.0 } else { 1.0 }, "supplementary_firing_capital_cost_per_kw": 20.0,
            "unavailability_periods": [{"month": 3, "start_week_of_month": 2, "start_day_of_week": 3, "start_hour": 9, "duration_hours": 100}]
        });
        let mut scenario = small_scenario(heat, chp);
        if case == 0 {
            scenario["HotThermalStorage"] = json!({"max_gal": 2000.0});
        }
        let (model, run, body) = solve(&scenario);
        let chp = model.chp.as_ref().expect("CHP");
        let heating = model.heating.as_ref().expect("heating");
        let d = run.optimal.dispatch.chp.as_ref().expect("CHP dispatch");
        let h = run.optimal.dispatch.heating.as_ref().expect("heating dispatch");
        let electric = &run.optimal.dispatch;
        for t in 0..model.steps() {
            let served = electric.grid_load[t] + d.to_load_kw[t];
            assert!((served - model.load_kw[t]).abs() <= 1e-6 * (1.0 + model.load_kw[t]), "case {case} step {t}: electric {served}");
            assert!((d.to_load_kw[t] + d.to_storage_kw[t] - d.rated_kw[t]).abs() <= 1e-6 * (1.0 + d.rated_kw[t]));
            let heat_served = h.existing_kw[t] + h.new_kw[t] + h.discharge_kw[t] + d.heat_to_load_kw[t];
            assert!((heat_served - heating.total_kw(t)).abs() <= 1e-6 * (1.0 + heating.total_kw(t)), "case {case} step {t}: heat {heat_served}");
            let on = if d.on[t] > 0.5 { 1.0 } else { 0.0 };
            if on == 1.0 {
                let made = chp.thermal_slope * d.rated_kw[t] + chp.thermal_intercept * d.size_kw + d.supplementary_kw[t];
                assert!((d.heat_kw(t) - made).abs() <= 1e-5 * (1.0 + made), "case {case} step {t}: heat made {} vs {made}", d.heat_kw(t));
            } else {
                // Off, the heat intercept is at most 0: only (the service's big-M) firing heats.
                assert!(d.heat_kw(t) <= d.supplementary_kw[t] + 1e-6, "case {case} step {t}: heat while off");
            }
            let fuel = chp.fuel_slope * d.rated_kw[t] + on * chp.fuel_intercept * d.size_kw + d.supplementary_kw[t] / chp.supplementary_firing_efficiency;
            assert!((d.fuel_kw[t] - fuel).abs() <= 1e-5 * (1.0 + fuel), "case {case} step {t}: fuel {} vs {fuel}", d.fuel_kw[t]);
            assert!(d.rated_kw[t] <= d.size_kw + 1e-6);
            assert!(on == 0.0 || d.rated_kw[t] >= chp.min_turn_down_fraction * d.size_kw - 1e-5, "case {case} step {t}: turndown");
            assert!(on == 1.0 || d.rated_kw[t] <= 1e-6);
            // 2022: March 1 is a Tuesday, week 2 starts Monday March 7; Wednesday March 9, 08:00.
            let march_9_8h = (31 + 28 + 8) * 24 + 8;
            if (march_9_8h..march_9_8h + 100).contains(&t) {
                assert!(d.rated_kw[t] == 0.0, "case {case} step {t}: output in maintenance");
            }
        }
        let annual_fuel = number(&body, "CHP", "annual_fuel_consumption_mmbtu");
        assert!((annual_fuel - d.fuel_kw.iter().sum::<f64>() / KWH_PER_MMBTU).abs() <= 1e-3);
        let lcc = number(&body, "Financial", "lcc");
        let lp = run.optimal.lp_lifecycle_cost();
        assert!((lcc - lp).abs() <= 1e-6 * lp.abs() + 0.02, "case {case}: lcc {lcc} vs program {lp}");
    }
}

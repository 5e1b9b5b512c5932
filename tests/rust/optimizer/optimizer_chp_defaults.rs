//! CHP defaults by prime mover and size class, and cost curves: the REopt.jl anchors "CHP Cost
//! Curve and Min Allowable Size" and "Heating and cooling inputs + CHP defaults" (`test/runtests.jl`)
//! on our own flat loads, "CHP Sizing" as a relationship (its numbers rest on the service's
//! reference building loads), and a check that a CHP with every default-filled input given reads
//! exactly as given.
//!
//! Which numbers depend on the service's data: the size classes, `min_allowable_kw` and
//! `om_cost_per_kwh` looked up here are facts of its `data/chp/chp_defaults.json` (carried over
//! exactly); the loads that pick the classes are ours, built to land in the testset's classes.

use serde_json::{json, Value};
use sunflux::optimizer::from_scenario;
use crate::support::{isapprox, number, solve};

/// A flat site: `electric_kw` of electric load (2022), `fuel_mmbtu_per_hour` of boiler fuel each
/// for space heating and hot water at boiler efficiency 0.72 (the testset's), and `chp`.
fn flat_site(electric_kw: f64, fuel_mmbtu_per_hour: f64, chp: Value) -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": vec![electric_kw; 8760], "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.25, "blended_annual_demand_rate": 10.0},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![fuel_mmbtu_per_hour; 8760]},
        "DomesticHotWaterLoad": {"fuel_loads_mmbtu_per_hour": vec![fuel_mmbtu_per_hour; 8760]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 11.0, "efficiency": 0.72, "production_type": "hot_water"},
        "CHP": chp
    })
}

/// "Heating and cooling inputs + CHP defaults": with 10,000 MMBtu a year of boiler fuel at 72 %
/// the recip engine's heuristic size lands in class 2 (min_allowable_kw 50, O&M $0.0235/kWh);
/// with 24,000 MMBtu in class 3 (125 kW, $0.021/kWh); the combustion turbine of class 1 with
/// max_kw 2500 has min_allowable_kw 2000 and $0.0145/kWh (atol 0.01 / 0.1 / 0.0001 as the testset).
/// The filled inputs are echoed; class 3 also fills its cost curve and nine maintenance periods.
#[test]
fn heating_and_cooling_inputs_and_chp_defaults() {
    let recip = json!({"prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 10.0});
    let read = |annual_fuel_mmbtu: f64, chp: &Value| {
        let hourly = annual_fuel_mmbtu / 2.0 / 8760.0;
        from_scenario(&flat_site(1000.0, hourly, chp.clone()), &[]).expect("supported").chp.expect("CHP read")
    };
    let class2 = read(10_000.0, &recip);
    assert!(isapprox(class2.min_allowable_kw, 50.0, 0.0, 0.01) && isapprox(class2.om_cost_per_kwh, 0.0235, 0.0, 0.0001));
    let class3 = read(24_000.0, &recip);
    assert!(isapprox(class3.min_allowable_kw, 125.0, 0.0, 0.1) && isapprox(class3.om_cost_per_kwh, 0.021, 0.0, 0.0001));
    assert_eq!((class3.installed_cost_per_kw.clone(), class3.tech_sizes_for_cost_curve.clone()), (vec![3450.0, 3150.0], vec![250.0, 500.0]));
    assert_eq!((class3.min_turn_down_fraction, class3.unavailable.iter().filter(|&&u| u).count()), (0.25, 9 * 48));
    // The heuristic size of class 3, 2.74 MMBtu/h · 0.72 / 0.4445 · 0.345 · 293.07107 kW, doubled.
    let heuristic = 24_000.0 / 8760.0 * 0.72 / 0.4445 * 0.345 * 293.07107;
    assert!(isapprox(class3.max_kw, 2.0 * heuristic, 1e-9, 0.0), "max_kw {}", class3.max_kw);
    let turbine = json!({"prime_mover": "combustion_turbine", "size_class": 1, "max_kw": 2500.0, "fuel_cost_per_mmbtu": 10.0});
    let class1 = read(24_000.0, &turbine);
    assert!(isapprox(class1.min_allowable_kw, 2000.0, 0.0, 0.1) && isapprox(class1.om_cost_per_kwh, 0.0145, 0.0, 0.0001));
    assert_eq!(class1.max_kw, 2500.0);
    let model = from_scenario(&flat_site(1000.0, 24_000.0 / 2.0 / 8760.0, recip), &[]).expect("supported");
    let filled: Vec<&str> = model.filled_defaults.iter().filter(|f| f.section == "CHP").map(|f| f.field).collect();
    for field in ["installed_cost_per_kw", "tech_sizes_for_cost_curve", "om_cost_per_kwh", "min_allowable_kw", "max_kw", "electric_efficiency_full_load"] {
        assert!(filled.contains(&field), "{field} not echoed: {filled:?}");
    }
}

/// A CHP with every input the defaults fill given reads exactly as given: no CHP default is
/// filled (the macrs/ITC fields aside) and its cost is the given single $/kW.
#[test]
fn every_input_given_changes_nothing() {
    let chp = json!({
        "prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 3.0, "installed_cost_per_kw": 1234.0, "om_cost_per_kwh": 0.011,
        "max_kw": 321.0, "min_allowable_kw": 0.0, "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": 0.33,
        "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": 0.47, "min_turn_down_fraction": 0.4,
        "macrs_option_years": 0, "macrs_bonus_fraction": 0.0, "federal_itc_fraction": 0.0,
        "unavailability_periods": [{"month": 1, "start_week_of_month": 2, "start_day_of_week": 1, "start_hour": 1, "duration_hours": 0}]
    });
    let model = from_scenario(&flat_site(100.0, 0.5, chp), &[]).expect("supported");
    let filled: Vec<&str> = model.filled_defaults.iter().filter(|f| f.section == "CHP").map(|f| f.field).collect();
    assert!(filled.is_empty(), "filled {filled:?}");
    let c = model.chp.expect("CHP read");
    assert_eq!((c.installed_cost_per_kw, c.tech_sizes_for_cost_curve), (vec![1234.0], vec![]));
    assert_eq!((c.om_cost_per_kwh, c.max_kw, c.min_allowable_kw, c.min_turn_down_fraction), (0.011, 321.0, 0.0, 0.4));
    assert!(c.unavailable.iter().all(|&u| !u));
}

/// "CHP Cost Curve and Min Allowable Size": the CHP of recip class 1 on the curve $2300, 1800,
/// 1500/kW at 100, 300, 1140 kW, 10 % ITC and no MACRS, may be 0 or 555.5-555.51 kW; worth
/// building here (flat 1000 kW electric load, 4 MMBtu/h of fuel each for two heating loads), it is
/// built at 555.5 kW (atol 0.1). Its initial capital is the chord from (300, 540,000 $) to
/// (1140, 1,710,000 $) at its size (within 1e-4 relative, as the testset). After the ITC the
/// testset's 1e-4 is relative to its CHP + PV total (1.82 M$ of PV after its ITC besides): the
/// service rounds each chord's $/kW after the ITC to whole dollars (1253.57 → 1254 here), which
/// moves the CHP's figure by about 110 $; that exact value is checked too (rtol 1e-6).
#[test]
fn cost_curve_and_min_allowable_size() {
    let chp = json!({
        "prime_mover": "recip_engine", "size_class": 1, "fuel_cost_per_mmbtu": 8.0, "min_kw": 0, "min_allowable_kw": 555.5, "max_kw": 555.51,
        "installed_cost_per_kw": [2300.0, 1800.0, 1500.0], "tech_sizes_for_cost_curve": [100.0, 300.0, 1140.0],
        "federal_itc_fraction": 0.1, "macrs_option_years": 0, "macrs_bonus_fraction": 0.0, "macrs_itc_reduction": 0.0
    });
    let mut scenario = flat_site(1000.0, 4.0, chp);
    scenario["Financial"] = json!({"offtaker_discount_rate_fraction": 0.083, "owner_discount_rate_fraction": 0.083});
    let (_, _, body) = solve(&scenario);
    let size = number(&body, "CHP", "size_kw");
    assert!(isapprox(size, 555.5, 0.0, 0.1), "size {size}");
    let slope = (1140.0 * 1500.0 - 300.0 * 1800.0) / (1140.0 - 300.0);
    let initial = 300.0 * 1800.0 + (size - 300.0) * slope;
    let kept = 1.0 - 0.1 / 1.083;
    let testset_pv_after_itc = 1500.0 * 1600.0 * (1.0 - 0.26 / 1.083);
    let got_initial = number(&body, "Financial", "initial_capital_costs");
    assert!(isapprox(got_initial, initial, 0.0, 1e-4 * initial), "initial {got_initial} expected {initial}");
    assert!(isapprox(number(&body, "CHP", "initial_capital_costs"), initial, 0.0, 1e-4 * initial));
    let after_itc = number(&body, "Financial", "initial_capital_costs_after_incentives");
    assert!(isapprox(after_itc, initial * kept, 0.0, 1e-4 * (initial * kept + testset_pv_after_itc)), "after ITC {after_itc}");
    let whole_dollars = [2070.0, 1395.0, 1254.0].map(|s: f64| s / 0.9 * kept);
    let service = 100.0 * whole_dollars[0] + 200.0 * whole_dollars[1] + (size - 300.0) * whole_dollars[2];
    assert!(isapprox(after_itc, service, 1e-6, 0.0), "after ITC {after_itc} vs the service's rounding {service}");
}

/// "CHP Sizing" rests on the service's reference loads; its relationship on ours: with only the
/// prime mover and the fuel cost given, the defaults size the CHP (class 2 here: at most twice
/// the heuristic size, 0 or at least 50 kW) on its default cost curve and maintenance periods,
/// in which it makes nothing.
#[test]
fn chp_sizing_on_the_defaults() {
    let chp = json!({"prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 4.0});
    let (model, run, body) = solve(&flat_site(300.0, 0.6, chp));
    let c = model.chp.as_ref().expect("CHP read");
    assert_eq!((c.min_allowable_kw, c.tech_sizes_for_cost_curve.clone()), (50.0, vec![100.0, 250.0]));
    let d = run.optimal.dispatch.chp.as_ref().expect("CHP dispatch");
    assert!(d.size_kw >= 50.0 - 1e-6 && d.size_kw <= c.max_kw + 1e-6, "size {} max {}", d.size_kw, c.max_kw);
    assert!((0..model.steps()).filter(|&t| c.unavailable[t]).all(|t| d.rated_kw[t] == 0.0));
    assert!(c.unavailable.iter().any(|&u| u));
    assert!(number(&body, "CHP", "initial_capital_costs") > 0.0);
}

/// "CHP Proforma Metrics" (`test/scenarios/chp_payback.json`, checked there against a verified
/// pro forma spreadsheet): flat electric load by the file's monthly totals, flat heating loads of
/// 6,795 and 36,205 MMBtu a year, a recip engine of class 5 fixed at 1104 kW on its default cost
/// curve, O&M, efficiencies and maintenance periods, 30 % ITC, 5-year MACRS with 80 % bonus. The
/// simple payback is 8.31 years (atol 0.02, as the testset). Left out: the file's emissions
/// region settings (emissions are not in its objective) and the zero-sized generator.
#[test]
fn chp_proforma_metrics() {
    let scenario = json!({
        "Financial": {
            "offtaker_tax_rate_fraction": 0.26, "elec_cost_escalation_rate_fraction": 0.017, "chp_fuel_cost_escalation_rate_fraction": 0.015,
            "existing_boiler_fuel_cost_escalation_rate_fraction": 0.015, "om_cost_escalation_rate_fraction": 0.025
        },
        "Site": {"latitude": 41.8809434, "longitude": -72.2600655, "land_acres": 1000000.0, "roof_squarefeet": 0},
        "ElectricLoad": {
            "doe_reference_name": "FlatLoad",
            "monthly_totals_kwh": [921984.0, 884352.0, 912576.0, 921984.0, 950208.0, 903168.0, 1025472.0, 978432.0, 1072512.0, 1044288.0, 987840.0, 950208.0]
        },
        "ElectricTariff": {"blended_annual_demand_rate": 21.487, "blended_annual_energy_rate": 0.0788},
        "ElectricUtility": {"net_metering_limit_kw": 0.0},
        "CHP": {
            "prime_mover": "recip_engine", "size_class": 5, "min_kw": 1104.0, "min_allowable_kw": 1104.0, "max_kw": 1104.0,
            "fuel_type": "natural_gas", "fuel_cost_per_mmbtu": 10.55, "federal_itc_fraction": 0.3, "macrs_option_years": 5,
            "macrs_bonus_fraction": 0.8, "macrs_itc_reduction": 0.5
        },
        "DomesticHotWaterLoad": {"annual_mmbtu": 6795.0, "doe_reference_name": "FlatLoad"},
        "SpaceHeatingLoad": {"annual_mmbtu": 36205.0, "doe_reference_name": "FlatLoad"},
        "ExistingBoiler": {"fuel_type": "natural_gas", "production_type": "hot_water", "fuel_cost_per_mmbtu": 10.55}
    });
    let (_, _, body) = solve(&scenario);
    assert!(isapprox(number(&body, "CHP", "size_kw"), 1104.0, 0.0, 1e-6));
    // The class-5 curve's chord from (1000 kW, 2.8 M$) to (2000 kW, 5.1 M$) at 1104 kW.
    assert!(isapprox(number(&body, "CHP", "initial_capital_costs"), 2_800_000.0 + 104.0 * 2300.0, 1e-9, 0.0));
    let payback = number(&body, "Financial", "simple_payback_years");
    assert!((payback - 8.31).abs() <= 0.02, "simple payback {payback}");
}

/// CHP in the emissions objective: an electric-only CHP (no heating load, defaults of recip class
/// 2 at 75 % of the cost) burns 10,000 lb CO2 per MMBtu of fuel while the grid emits nothing. At
/// $0 per tonne it is built; at $100 per tonne its fuel's climate cost keeps it out, and the
/// outputs' lifecycle cost, climate cost included, is the program's objective (rtol 1e-6).
#[test]
fn climate_cost_of_chp_fuel_keeps_it_out() {
    let mut scenario = json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": vec![150.0; 8760], "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.30, "blended_annual_demand_rate": 10.0},
        "ElectricUtility": {
            "emissions_factor_series_lb_CO2_per_kwh": 0.0, "emissions_factor_series_lb_NOx_per_kwh": 0.0,
            "emissions_factor_series_lb_SO2_per_kwh": 0.0, "emissions_factor_series_lb_PM25_per_kwh": 0.0
        },
        "CHP": {"prime_mover": "recip_engine", "size_class": 2, "is_electric_only": true, "fuel_cost_per_mmbtu": 3.0,
                "emissions_factor_lb_CO2_per_mmbtu": 10000.0, "unavailability_periods": [
                    {"month": 1, "start_week_of_month": 2, "start_day_of_week": 1, "start_hour": 1, "duration_hours": 0}]},
        "Settings": {"include_climate_in_objective": true},
        "Financial": {"analysis_years": 20, "offtaker_discount_rate_fraction": 0.08, "CO2_cost_per_tonne": 0.0}
    });
    let (model, _, free) = solve(&scenario);
    let c = model.chp.as_ref().expect("CHP read");
    assert_eq!((c.thermal_slope, c.thermal_intercept, c.installed_cost_per_kw.clone()), (0.0, 0.0, vec![3700.0 * 0.75, 3450.0 * 0.75]));
    assert!(number(&free, "CHP", "size_kw") > 50.0, "size {}", free["CHP"]["size_kw"]);
    assert_eq!(number(&free, "CHP", "annual_thermal_production_mmbtu"), 0.0);
    scenario["Financial"]["CO2_cost_per_tonne"] = json!(100.0);
    let (_, run, priced) = solve(&scenario);
    assert!(number(&priced, "CHP", "size_kw") < 1e-6, "size {}", priced["CHP"]["size_kw"]);
    let lcc = number(&priced, "Financial", "lcc");
    let lp = run.optimal.lp_lifecycle_cost();
    assert!(isapprox(lcc, lp, 1e-6, 0.02), "lcc {lcc} vs program {lp}");
}

/// "Heating and cooling inputs + CHP defaults", the case without heating: with neither a heating
/// load nor max_kw, CHP.max_kw is the peak electric load (atol 0.01).
#[test]
fn without_heating_max_kw_is_the_peak_electric_load() {
    let loads: Vec<f64> = (0..8760).map(|h| 400.0 + 300.0 * ((h % 24) as f64 / 24.0 * std::f64::consts::TAU).sin()).collect();
    let peak = loads.iter().copied().fold(f64::MIN, f64::max);
    let scenario = json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": loads, "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 10.0},
        "CHP": {"prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 10.0}
    });
    let model = from_scenario(&scenario, &[]).expect("supported");
    let c = model.chp.expect("CHP read");
    assert!(isapprox(c.max_kw, peak, 0.0, 0.01), "max_kw {} peak {peak}", c.max_kw);
    // The average load (400 kW) picks class 3: its O&M and smallest size.
    assert_eq!((c.om_cost_per_kwh, c.min_allowable_kw), (0.021, 125.0));
}

/// "CHP Unavailability and Outage", its points 4 and 6 on our own site: in the deterministic
/// outage (steps 50-60 of 2022, inside the maintenance period of January's second week, hours
/// 49-96) the CHP alone serves the 10 kW critical load: maintenance is ignored there and so is
/// the 50 % turndown of its fixed 100 kW (10 kW output); outside the outage the maintenance holds.
#[test]
fn chp_unavailability_and_outage() {
    let scenario = json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2022, "critical_load_fraction": 0.1},
        "ElectricTariff": {"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 5.0},
        "ElectricUtility": {"outage_start_time_step": 50, "outage_end_time_step": 60},
        "CHP": {"prime_mover": "recip_engine", "is_electric_only": true, "fuel_cost_per_mmbtu": 20.0, "min_kw": 100.0, "max_kw": 100.0,
                "min_turn_down_fraction": 0.5, "unavailability_periods": [
                    {"month": 1, "start_week_of_month": 2, "start_day_of_week": 1, "start_hour": 1, "duration_hours": 48}]}
    });
    let (model, run, _) = solve(&scenario);
    let c = model.chp.as_ref().expect("CHP read");
    let d = run.optimal.dispatch.chp.as_ref().expect("CHP dispatch");
    for t in 49..60 {
        assert!(c.unavailable[t] && !model.has_grid(t), "step {t}");
        assert!(isapprox(d.rated_kw[t], 10.0, 0.0, 1e-6), "step {t}: {}", d.rated_kw[t]);
    }
    let maintenance: Vec<usize> = (0..model.steps()).filter(|&t| c.unavailable[t] && model.has_grid(t)).collect();
    assert_eq!(maintenance.len(), 48 - 11);
    assert!(maintenance.iter().all(|&t| d.rated_kw[t] == 0.0));
}

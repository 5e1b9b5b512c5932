//! The pro forma with heating, as REopt.jl `src/results/proforma.jl` builds it: each boiler's
//! year-one fuel escalated at its own rate (`existing_boiler_`/`boiler_fuel_cost_escalation_
//! rate_fraction`), the new boiler's O&M with the others', its capital and the hot storage's in
//! year 0 (the service's pro forma credits neither of them an ITC or depreciation). The checks
//! are the service's own identity from "Solar and ElectricStorage w/BAU and degradation" (the
//! free cash flows discount to the reported `npv`, rtol 1e-4) on heating scenarios written
//! here, and the year-one fuel totals.

use serde_json::{json, Value};
use sunflux::optimizer::proforma::npv;
use crate::support::{daytime_production, number, numbers, solve};

const DISCOUNT: f64 = 0.07;

/// PV, an electric load, a space heating load, the existing boiler whose fuel is dearer in
/// winter and a new boiler with O&M too small for the peak (so both run), the boilers' fuels
/// escalating at different rates.
fn heating_with_pv() -> Value {
    let fuel: Vec<f64> = (0..8760).map(|hour| 0.5 + 0.4 * ((hour % 24) as f64 / 24.0 * std::f64::consts::TAU).cos()).collect();
    let existing_price: Vec<f64> = (0..12).map(|month| if !(3..9).contains(&month) { 14.0 } else { 8.0 }).collect();
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 200000.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.2, "blended_annual_demand_rate": 10.0},
        "PV": {"installed_cost_per_kw": 1200.0, "production_factor_series": daytime_production(0.8)},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": fuel},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": existing_price},
        "Boiler": {"fuel_cost_per_mmbtu": 9.0, "efficiency": 0.95, "installed_cost_per_mmbtu_per_hour": 20000.0, "max_mmbtu_per_hour": 0.4,
                   "om_cost_per_mmbtu_per_hour": 500.0, "om_cost_per_mmbtu": 0.5},
        "Financial": {"analysis_years": 25, "offtaker_discount_rate_fraction": DISCOUNT, "offtaker_tax_rate_fraction": 0.26,
                      "existing_boiler_fuel_cost_escalation_rate_fraction": 0.05, "boiler_fuel_cost_escalation_rate_fraction": 0.01},
    })
}

/// The optimal less BAU free cash flows discounted at the offtaker's rate.
fn pro_forma_npv(financial: &Value, years: usize) -> f64 {
    let optimal = numbers(&financial["offtaker_annual_free_cashflows"]);
    let bau = numbers(&financial["offtaker_annual_free_cashflows_bau"]);
    assert_eq!(optimal.len(), years + 1);
    let net: Vec<f64> = optimal.iter().zip(&bau).map(|(o, b)| o - b).collect();
    npv(&net, DISCOUNT)
}

/// "Solar and ElectricStorage w/BAU and degradation"'s identity with boilers: the cash flows
/// discount to `npv` (rtol 1e-4); both boilers run; `Financial.year_one_fuel_cost_before_tax`
/// is the boilers' (atol 0.01, each rounded to cents); the BAU's year 1 is its bill and its
/// boiler fuel escalated one year, after tax (atol 0.01).
#[test]
fn the_pro_forma_with_boilers_discounts_to_the_reported_npv() {
    let (model, _, body) = solve(&heating_with_pv());
    let financial = &body["Financial"];
    assert!(number(&body, "Boiler", "size_mmbtu_per_hour") > 0.0 && number(&body, "ExistingBoiler", "annual_fuel_consumption_mmbtu") > 0.0);
    let reported = number(&body, "Financial", "npv");
    let from_flows = pro_forma_npv(financial, model.financial.analysis_years as usize);
    assert!((from_flows - reported).abs() <= 1e-4 * reported.abs(), "pro forma NPV {from_flows:.2} vs npv {reported:.2}");
    let fuel = number(&body, "ExistingBoiler", "year_one_fuel_cost_before_tax") + number(&body, "Boiler", "year_one_fuel_cost_before_tax");
    assert!((number(&body, "Financial", "year_one_fuel_cost_before_tax") - fuel).abs() <= 0.01);
    let bau_fuel = number(&body, "ExistingBoiler", "year_one_fuel_cost_before_tax_bau");
    assert!((number(&body, "Financial", "year_one_fuel_cost_before_tax_bau") - bau_fuel).abs() <= 0.01);
    let bill_bau = number(&body, "ElectricTariff", "year_one_bill_before_tax_bau");
    let f = &model.financial;
    let expected = -(1.0 - f.offtaker_tax_rate_fraction) * (bill_bau * (1.0 + f.elec_cost_escalation_rate_fraction) + bau_fuel * 1.05);
    let year_one_bau = numbers(&financial["offtaker_annual_free_cashflows_bau"])[1];
    assert!((year_one_bau - expected).abs() <= 0.01, "{year_one_bau} vs {expected}");
}

/// With hot storage: the service's pro forma books its installed cost in year 0 and no ITC or
/// depreciation, while the lifecycle cost takes its net present cost; so the cash flows
/// discount to `npv` less exactly those incentives' value, installed − net present cost
/// (atol 0.05 + rtol 1e-4: the flows are rounded to cents).
#[test]
fn the_pro_forma_books_the_hot_storage_in_year_zero() {
    let mut scenario = heating_with_pv();
    let price: Vec<f64> = (0..8760).map(|hour| if hour % 24 < 12 { 4.0 } else { 30.0 }).collect();
    scenario["ExistingBoiler"]["fuel_cost_per_mmbtu"] = json!(price);
    scenario.as_object_mut().expect("object").remove("Boiler");
    scenario["HotThermalStorage"] = json!({"max_gal": 20000.0, "installed_cost_per_gal": 1.5});
    let (model, run, body) = solve(&scenario);
    let storage = &model.heating.as_ref().and_then(|h| h.hot_storages.first()).expect("storage").tank;
    let kwh = run.optimal.dispatch.heating.as_ref().expect("heating").storages[0].kwh;
    assert!(kwh > 0.0, "the storage shifts the boiler to the cheap hours");
    let incentives = (storage.installed_cost_per_kwh - storage.net_present_cost_per_kwh) * kwh;
    assert!(incentives > 0.0);
    let reported = number(&body, "Financial", "npv");
    let from_flows = pro_forma_npv(&body["Financial"], model.financial.analysis_years as usize);
    let expected = reported - incentives;
    assert!((from_flows - expected).abs() <= 0.05 + 1e-4 * expected.abs(), "pro forma NPV {from_flows:.2} vs {expected:.2}");
}

/// The heating scenario with a hot water load and a cooling load served by a poor existing
/// chiller (COP 2) and a hot-water absorption chiller drawing the boilers' heat, both the new boiler and the absorption chiller
/// on `macrs_option_years`.
fn heating_and_absorption_cooling(macrs_option_years: u32) -> Value {
    let mut scenario = heating_with_pv();
    let cooling: Vec<f64> = (0..8760).map(|hour| if (8..20).contains(&(hour % 24)) { 10.0 } else { 4.0 }).collect();
    scenario["DomesticHotWaterLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![0.1; 8760]});
    scenario["CoolingLoad"] = json!({"thermal_loads_ton": cooling});
    scenario["ExistingChiller"] = json!({"cop": 2.0});
    scenario["AbsorptionChiller"] = json!({"max_ton": 15.0, "installed_cost_per_ton": 500.0, "om_cost_per_ton": 20.0,
                                           "cop_thermal": 0.7, "macrs_option_years": macrs_option_years});
    scenario["Boiler"]["macrs_option_years"] = json!(macrs_option_years);
    scenario["Boiler"]["max_mmbtu_per_hour"] = json!(2.0);
    scenario
}

/// MACRS on the new boiler and the absorption chiller (REopt.jl `setup_boiler_inputs` and its
/// absorption chiller twin: MACRS only, at the owner's rates) lowers the lifecycle cost by exactly
/// (installed − net present cost) · size, while the service's pro forma depreciates both on a basis
/// of 0 (`get_depreciation_schedule` without `federal_itc_basis`) and carries the chiller's fixed
/// O&M: so the cash flows discount to `npv` less that MACRS value (atol 0.05 + rtol 1e-4), and
/// without MACRS to `npv` itself. The initial capital is the installed cost either way.
#[test]
fn the_pro_forma_with_an_absorption_chiller_and_macrs_on_the_boiler() {
    for macrs_option_years in [0, 7] {
        let (model, run, body) = solve(&heating_and_absorption_cooling(macrs_option_years));
        let boiler = model.heating.as_ref().and_then(|h| h.boiler.as_ref()).expect("boiler");
        let chiller = model.cooling.as_ref().and_then(|c| c.absorption_chiller.as_ref()).expect("absorption chiller");
        let boiler_kw = run.optimal.dispatch.heating.as_ref().expect("heating").new_size_kw;
        let chiller_kw = run.optimal.dispatch.cooling.as_ref().expect("cooling").absorption_size_kw;
        assert!(boiler_kw > 0.0 && chiller_kw > 0.0, "both are built: boiler {boiler_kw} kW, chiller {chiller_kw} kW");
        let macrs_value =
            (boiler.installed_cost_per_kw - boiler.net_present_cost_per_kw) * boiler_kw + (chiller.installed_cost_per_kw - chiller.net_present_cost_per_kw) * chiller_kw;
        assert_eq!(macrs_value > 0.0, macrs_option_years > 0, "MACRS value {macrs_value}");
        let reported = number(&body, "Financial", "npv");
        let from_flows = pro_forma_npv(&body["Financial"], model.financial.analysis_years as usize);
        let expected = reported - macrs_value;
        assert!((from_flows - expected).abs() <= 0.05 + 1e-4 * expected.abs(), "MACRS {macrs_option_years}: pro forma NPV {from_flows:.2} vs {expected:.2}");
        let installed = boiler.installed_cost_per_kw * boiler_kw + chiller.installed_cost_per_kw * chiller_kw;
        let pv_installed = model.pvs[0].installed_cost_per_kw * number(&body, "PV", "size_kw");
        let initial = number(&body, "Financial", "initial_capital_costs");
        assert!((initial - installed - pv_installed).abs() <= 0.01 + 1e-9 * initial, "initial capital {initial} vs {}", installed + pv_installed);
    }
}

/// A boiler `macrs_option_years` other than 0, 5 or 7 is invalid, as the service's schedules are.
#[test]
fn a_boiler_macrs_period_outside_the_schedules_is_invalid() {
    let mut scenario = heating_with_pv();
    scenario["Boiler"]["macrs_option_years"] = json!(3);
    match sunflux::optimizer::from_scenario(&scenario, &[]) {
        Err(sunflux::optimizer::ScenarioError::Invalid(problems)) => {
            assert!(problems.iter().any(|p| p == "Boiler.macrs_option_years must be 0, 5, or 7."), "{problems:?}");
        }
        other => panic!("expected invalid inputs, got {:?}", other.map(|_| "a model")),
    }
}

/// Outdoor temperatures (°F) between about 35 and 75: the heat pumps' COP and capacity factor.
fn mild_temperatures() -> Vec<f64> {
    (0..8760).map(|h| 55.0 - 12.0 * ((h / 24) as f64 / 365.0 * std::f64::consts::TAU).cos() - 8.0 * ((h % 24) as f64 / 24.0 * std::f64::consts::TAU).cos()).collect()
}

/// The heating scenario with a hot water load, cheap electricity, dear boiler fuel, an electric
/// heater for the hot water and an ASHP space heater at sizing factor 1.25 (both with O&M).
fn heating_with_heat_pumps() -> Value {
    let mut scenario = heating_with_pv();
    scenario.as_object_mut().expect("object").remove("Boiler");
    scenario["Site"]["outdoor_air_temperature_degF"] = json!(mild_temperatures());
    scenario["ElectricTariff"] = json!({"blended_annual_energy_rate": 0.03, "blended_annual_demand_rate": 1.0});
    scenario["ExistingBoiler"]["fuel_cost_per_mmbtu"] = json!(40.0);
    scenario["DomesticHotWaterLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![0.1; 8760]});
    scenario["ElectricHeater"] = json!({"installed_cost_per_mmbtu_per_hour": 5000.0, "om_cost_per_mmbtu_per_hour": 3000.0, "cop": 1.0,
                                        "can_serve_space_heating": false, "can_serve_dhw": true, "can_serve_process_heat": false});
    scenario["ASHPSpaceHeater"] = json!({"installed_cost_per_ton": 500.0, "om_cost_per_ton": 60.0, "sizing_factor": 1.25,
                                         "can_serve_cooling": false, "force_dispatch": false});
    scenario
}

/// With the electric heater and an ASHP space heater (REopt.jl `proforma_results`): the service's
/// pro forma carries no O&M for the electric heater, and the ASHP's as its O&M per kW (sizing
/// factor included) × 3.51685 × its reported tons (sizing factor included again), while the
/// lifecycle cost counts both on the size variable. So the cash flows discount to `npv` less
/// the after-tax present value of that year-one difference escalated at the O&M rate (atol 0.05
/// + rtol 1e-4); both techs depreciate on a basis of 0 (no MACRS here either way).
#[test]
fn the_pro_forma_with_heat_pumps_counts_their_om_as_the_service() {
    let (model, run, body) = solve(&heating_with_heat_pumps());
    let sized: Vec<(f64, f64)> =
        model.heat_pumps.iter().zip(&run.optimal.dispatch.heat_pumps).map(|(tech, d)| (tech.om_cost_per_kw, d.size_kw)).collect();
    let [(heater_om, heater_kw), (ashp_om, ashp_kw)] = sized[..] else { panic!("two techs: {sized:?}") };
    assert!(heater_kw > 0.0 && ashp_kw > 0.0, "both are built: heater {heater_kw} kW, ASHP {ashp_kw} kW");
    let tons = number(&body, "ASHPSpaceHeater", "size_ton");
    assert!((tons - 1.25 * ashp_kw / 3.51685).abs() <= 5e-4, "{tons} tons");
    let year_one_difference = ashp_om * 3.51685 * tons - ashp_om * ashp_kw - heater_om * heater_kw;
    assert!(year_one_difference.abs() > 100.0, "{year_one_difference}");
    let f = &model.financial;
    let after_tax_value: f64 = (1..=f.analysis_years)
        .map(|y| year_one_difference * (1.0 + f.om_cost_escalation_rate_fraction).powi(y as i32) * (1.0 - f.offtaker_tax_rate_fraction) / (1.0 + DISCOUNT).powi(y as i32))
        .sum();
    let reported = number(&body, "Financial", "npv");
    let from_flows = pro_forma_npv(&body["Financial"], f.analysis_years as usize);
    let expected = reported - after_tax_value;
    assert!((from_flows - expected).abs() <= 0.05 + 1e-4 * expected.abs(), "pro forma NPV {from_flows:.2} vs {expected:.2}");
}

/// A water heater built without a space heater in the scenario: the service's pro forma reads
/// the space heater's O&M (`p.s.ashp`, nothing here) and fails, so no pro forma is written.
#[test]
fn no_pro_forma_for_a_water_heater_without_a_space_heater() {
    let mut scenario = heating_with_heat_pumps();
    let object = scenario.as_object_mut().expect("object");
    object.remove("ElectricHeater");
    object.remove("ASHPSpaceHeater");
    scenario["ASHPWaterHeater"] = json!({"installed_cost_per_ton": 500.0, "om_cost_per_ton": 60.0, "force_dispatch": false});
    let (_, _, body) = solve(&scenario);
    assert!(number(&body, "ASHPWaterHeater", "size_ton") > 0.0);
    assert!(number(&body, "Financial", "npv").is_finite());
    assert!(body["Financial"].get("offtaker_annual_free_cashflows").is_none(), "{}", body["Financial"]);
}

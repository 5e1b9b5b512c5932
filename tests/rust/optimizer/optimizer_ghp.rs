//! Geothermal heat pumps from given GhpGhx designs (`GHP.ghpghx_responses`): the REopt.jl "GHP"
//! testset (`test/runtests.jl`) rebuilt on our own loads and our own two responses made in code,
//! the choice of GHP or none by cost, the heat, cooling and electric balances in every step, and
//! the by-name refusals of what needs the service's separate GhpGhx tool or its climate data.
//!
//! Our scenario: 100 kW of electric load, 1.25 MMBtu/h of space-heating fuel and 0.25 MMBtu/h of
//! hot-water fuel through a boiler of efficiency 0.8, 100 tons of cooling on a chiller of COP 4,
//! energy at $0.10/kWh. The testset's factors (0.85 heating, 0.6 cooling), building area
//! (50,000 ft²), `require_ghp_purchase` and its two options, the second using half the first's
//! electricity, carry over; its loads come from the service's Hospital profiles, so its annual
//! numbers do not, only the relations between them (reduction = load · (1 − factor), served =
//! load · factor, the boiler left with the hot water).

use serde_json::{json, Value};
use sunflux::optimizer::finance::{cost_curve_itc_basis, effective_cost, TaxTreatment};
use sunflux::optimizer::model::cooling_inputs::KWH_THERMAL_PER_TONHOUR;
use sunflux::optimizer::model::KWH_PER_MMBTU;
use sunflux::optimizer::{from_scenario, Model, Optimized, ScenarioError};
use crate::support::{isapprox, number, series, solve};

const HOURS: usize = 8760;
const SPACE_FUEL: f64 = 1.25;
const DHW_FUEL: f64 = 0.25;
const EFFICIENCY: f64 = 0.8;
const COOLING_TON: f64 = 100.0;
const CHILLER_COP: f64 = 4.0;
const HEATING_FACTOR: f64 = 0.85;
const COOLING_FACTOR: f64 = 0.6;
const GHP_KW: f64 = 30.0;

/// A GhpGhx response as the service's tool returns it, with the fields the model reads: the
/// loads it sized for (what the retrofit leaves of the space heating and the cooling) and the
/// design's electricity, boreholes and peak tons.
fn response(electric_kw: f64) -> Value {
    json!({
        "inputs": {
            "heating_thermal_load_mmbtu_per_hr": vec![SPACE_FUEL * EFFICIENCY * HEATING_FACTOR; HOURS],
            "cooling_thermal_load_ton": vec![COOLING_TON * COOLING_FACTOR; HOURS],
        },
        "outputs": {
            "heat_pump_configuration": "WSHP",
            "yearly_total_electric_consumption_series_kw": vec![electric_kw; HOURS],
            "number_of_boreholes": 100,
            "length_boreholes_ft": 400.0,
            "peak_combined_heatpump_thermal_ton": 150.0,
            "heating_cop_avg": 3.9,
            "cooling_cop_avg": 7.7,
        },
    })
}

fn scenario(ghp: Value) -> Value {
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"loads_kw": vec![100.0; HOURS], "year": 2017},
        "ElectricTariff": {"tou_energy_rates_per_kwh": vec![0.1; HOURS]},
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![SPACE_FUEL; HOURS]},
        "DomesticHotWaterLoad": {"fuel_loads_mmbtu_per_hour": vec![DHW_FUEL; HOURS]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 10.0, "efficiency": EFFICIENCY},
        "CoolingLoad": {"thermal_loads_ton": vec![COOLING_TON; HOURS]},
        "ExistingChiller": {"cop": CHILLER_COP},
        "PV": {"max_kw": 0.0},
        "ElectricStorage": {"max_kw": 0.0, "max_kwh": 0.0},
        "GHP": ghp,
    })
}

/// The testset's GHP section on our two responses.
fn testset_ghp() -> Value {
    json!({
        "require_ghp_purchase": true,
        "building_sqft": 50000.0,
        "can_serve_dhw": false,
        "space_heating_efficiency_thermal_factor": HEATING_FACTOR,
        "cooling_efficiency_thermal_factor": COOLING_FACTOR,
        "ghpghx_responses": [response(GHP_KW), response(GHP_KW * 0.5)],
    })
}

fn sum(body: &Value, section: &str, field: &str) -> f64 {
    series(body, section, field).iter().sum()
}

/// "GHP" (points 1 to 4): the option with half the electricity is chosen; the space heating
/// shrinks by fuel · η · (1 − 0.85) = 1,314 MMBtu and the cooling by 100 · 0.4 ton a year (atol
/// 0.1); GHP serves fuel · η · 0.85 = 7,446 MMBtu of space heating (atol 1.0); the boiler is left
/// with the hot water, 2,190 · 0.8 = 1,752 MMBtu (atol 1.5); the existing chiller's whole load is
/// GHP's served cooling / 0.6 (atol 1.0), and with the reduction GHP takes all of it.
#[test]
fn ghp_testset_on_our_own_responses() {
    let (model, run, body) = solve(&scenario(testset_ghp()));
    assert_eq!(body["GHP"]["ghp_option_chosen"], json!(2));
    let annual_space_thermal = SPACE_FUEL * EFFICIENCY * HOURS as f64;
    let heating_reduced = sum(&body, "GHP", "space_heating_thermal_load_reduction_with_ghp_mmbtu_per_hour");
    assert!(isapprox(heating_reduced, annual_space_thermal * (1.0 - HEATING_FACTOR), 0.0, 0.1), "heating reduction {heating_reduced}");
    let cooling_reduced = sum(&body, "GHP", "cooling_thermal_load_reduction_with_ghp_ton");
    assert!(isapprox(cooling_reduced, COOLING_TON * HOURS as f64 * (1.0 - COOLING_FACTOR), 0.0, 0.1), "cooling reduction {cooling_reduced}");
    let heating_served = sum(&body, "GHP", "thermal_to_space_heating_load_series_mmbtu_per_hour");
    assert!(isapprox(heating_served, annual_space_thermal * HEATING_FACTOR, 0.0, 1.0), "heating served {heating_served}");
    let boiler = number(&body, "ExistingBoiler", "annual_thermal_production_mmbtu");
    assert!(isapprox(boiler, DHW_FUEL * EFFICIENCY * HOURS as f64, 0.0, 1.5), "boiler {boiler}");
    let cooling_served = sum(&body, "GHP", "thermal_to_load_series_ton");
    assert!(isapprox(COOLING_TON * HOURS as f64, cooling_served / COOLING_FACTOR, 0.0, 1.0), "cooling served {cooling_served}");
    assert!(isapprox(number(&body, "ExistingChiller", "annual_thermal_production_tonhour"), 0.0, 0.0, 0.1));
    assert_eq!(body["GHP"]["ghpghx_chosen_outputs"]["heating_cop_avg"], json!(3.9));
    assert!(isapprox(number(&body, "GHP", "size_heat_pump_ton"), 150.0 * 1.1, 1e-9, 0.0));
    let lcc = number(&body, "Financial", "lcc");
    assert!(isapprox(lcc, run.optimal.lp_objective, 1e-6, 0.01), "lcc {lcc} against the objective {}", run.optimal.lp_objective);
    assert_balances(&body);
    assert_costs(&model, &run, &body);
}

/// Every step balances with the chosen design: the grid serves the load plus GHP's electricity
/// less what the chiller no longer uses (its whole load / COP), and the boiler and GHP (its
/// served heating plus the reduction) meet the heat load.
fn assert_balances(body: &Value) {
    let grid = series(body, "ElectricUtility", "electric_to_load_series_kw");
    let chiller_kw = COOLING_TON * KWH_THERMAL_PER_TONHOUR / CHILLER_COP;
    let boiler = series(body, "ExistingBoiler", "thermal_to_load_series_mmbtu_per_hour");
    let served = series(body, "GHP", "thermal_to_space_heating_load_series_mmbtu_per_hour");
    let reduction = series(body, "GHP", "space_heating_thermal_load_reduction_with_ghp_mmbtu_per_hour");
    for t in 0..HOURS {
        assert!(isapprox(grid[t], 100.0 + GHP_KW * 0.5 - chiller_kw, 0.0, 1e-5), "step {t}: grid {}", grid[t]);
        let heat_load = (SPACE_FUEL + DHW_FUEL) * EFFICIENCY;
        assert!(isapprox(boiler[t] + served[t] + reduction[t], heat_load, 0.0, 2e-3), "step {t}: heat {}", boiler[t] + served[t] + reduction[t]);
    }
}

/// The installed cost the service prices (`get_ghp_installed_cost` on the single-piece cost
/// curve): 165 tons at (GHX 40,000 ft · $14 + 50,000 ft² · $1.70) / 165 + $1,075 per ton (its
/// initial capital), the slope after the 30 % ITC rounded to whole $, then the ITC at the
/// owner's rates; its O&M
/// −$0.51/ft²-year; the GHX's residual value 560,000 · (50 − 25)/50 / 1.0624^25.
fn assert_costs(model: &Model, run: &Optimized, body: &Value) {
    let tons = 165.0;
    let per_ton = (40_000.0 * 14.0 + 50_000.0 * 1.7) / tons + 1075.0;
    let f = &model.financial;
    let tax = TaxTreatment {
        owner_discount_rate: f.owner_discount_rate_fraction,
        owner_tax_rate: f.owner_tax_rate_fraction,
        itc_fraction: 0.3,
        macrs_option_years: 0,
        macrs_bonus_fraction: 0.0,
        macrs_itc_reduction: 0.5,
        bonus_without_macrs: false,
    };
    let installed = tons * effective_cost(cost_curve_itc_basis(per_ton, 0.3, 0.0), None, &tax, 0.0);
    let residual = 560_000.0 * 0.5 / (1.0 + f.offtaker_discount_rate_fraction).powi(25);
    assert!(isapprox(number(body, "GHP", "ghx_residual_value_present_value"), residual, 0.0, 0.01));
    let capital = number(body, "Financial", "lifecycle_capital_costs");
    assert!(isapprox(capital, installed - residual, 0.0, 0.02), "capital {capital} against {}", installed - residual);
    let initial = number(body, "Financial", "initial_capital_costs");
    assert!(isapprox(initial, tons * per_ton, 0.0, 0.02), "initial capital {initial} against {}", tons * per_ton);
    let om = number(body, "Financial", "lifecycle_om_costs_before_tax");
    assert!(isapprox(om, run.factors.pwf_om * -0.51 * 50_000.0, 0.0, 0.02), "O&M {om}");
}

/// Without `require_ghp_purchase` the costs decide: GHP at the testset's prices saves more than
/// it costs here (its electricity is below the chiller's and the boiler's fuel it saves), so it
/// is bought and the lcc falls below the one without GHP; at $100,000 per ton of heat pump it is
/// not, every GHP series is zero and the lcc is the one without GHP.
#[test]
fn ghp_is_chosen_or_not_by_its_costs() {
    let mut without = scenario(json!(null));
    without.as_object_mut().map(|s| s.remove("GHP"));
    let (_, _, none) = solve(&without);
    let lcc_none = number(&none, "Financial", "lcc");
    let mut optional = testset_ghp();
    optional["require_ghp_purchase"] = json!(false);
    let (_, _, cheap) = solve(&scenario(optional.clone()));
    assert_eq!(cheap["GHP"]["ghp_option_chosen"], json!(2));
    assert!(number(&cheap, "Financial", "lcc") < lcc_none, "{} against {lcc_none}", number(&cheap, "Financial", "lcc"));
    optional["installed_cost_heatpump_per_ton"] = json!(100_000.0);
    let (_, run, dear) = solve(&scenario(optional));
    assert_eq!(dear["GHP"]["ghp_option_chosen"], json!(0));
    assert_eq!(sum(&dear, "GHP", "thermal_to_load_series_ton"), 0.0);
    let lcc = number(&dear, "Financial", "lcc");
    assert!(isapprox(lcc, lcc_none, 1e-9, 0.01), "{lcc} against {lcc_none}");
    assert!(isapprox(lcc, run.optimal.lp_objective, 1e-6, 0.01));
}

/// With `can_serve_dhw` GHP may give its served heat to the hot water: with a design sized for
/// both loads (as the service sizes it then) the boiler makes nothing, GHP's reduction and served
/// heating are the whole heat load, and its hot-water series is, as the service writes it, the
/// whole hot-water load.
#[test]
fn ghp_serving_hot_water_takes_it_from_the_boiler() {
    let mut ghp = testset_ghp();
    ghp["can_serve_dhw"] = json!(true);
    let both = (SPACE_FUEL * HEATING_FACTOR + DHW_FUEL) * EFFICIENCY;
    let mut sized = response(GHP_KW * 0.5);
    sized["inputs"]["heating_thermal_load_mmbtu_per_hr"] = json!(vec![both; HOURS]);
    ghp["ghpghx_responses"] = json!([sized]);
    let (_, run, body) = solve(&scenario(ghp));
    let dhw = sum(&body, "GHP", "thermal_to_dhw_load_series_mmbtu_per_hour");
    let boiler = number(&body, "ExistingBoiler", "annual_thermal_production_mmbtu");
    let total = (SPACE_FUEL + DHW_FUEL) * EFFICIENCY * HOURS as f64;
    let ghp_heat = sum(&body, "GHP", "space_heating_thermal_load_reduction_with_ghp_mmbtu_per_hour")
        + sum(&body, "GHP", "thermal_to_space_heating_load_series_mmbtu_per_hour");
    assert!(isapprox(dhw, DHW_FUEL * EFFICIENCY * HOURS as f64, 0.0, 1.5), "hot water from GHP {dhw}");
    assert!(isapprox(boiler, 0.0, 0.0, 1.5), "boiler {boiler}");
    assert!(isapprox(ghp_heat, total, 0.0, 1.5), "GHP {ghp_heat} against {total}");
    assert!(isapprox(number(&body, "Financial", "lcc"), run.optimal.lp_objective, 1e-6, 0.01));
}

fn refusal(scenario: &Value) -> String {
    match from_scenario(scenario, &[]) {
        Err(ScenarioError::Unsupported(unsupported)) => unsupported.message(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Sizing from `ghpghx_inputs` needs the service's GhpGhx tool; a default efficiency factor of a
/// reference building needs the site's ASHRAE climate zone; hourly responses do not fit
/// sub-hourly steps; capped incentives and capital-cost bounds are not modelled with GHP: each
/// is refused by name.
#[test]
fn ghp_parts_outside_the_model_are_refused_by_name() {
    let inputs_only = scenario(json!({"building_sqft": 50000.0, "ghpghx_inputs": [{}]}));
    assert!(refusal(&inputs_only).contains("GHP.ghpghx_inputs without ghpghx_responses (the GHX sizing needs the service's separate GhpGhx tool)"));
    let mut reference = scenario(testset_ghp());
    reference["GHP"].as_object_mut().map(|g| g.remove("space_heating_efficiency_thermal_factor"));
    reference["SpaceHeatingLoad"]["doe_reference_name"] = json!("Hospital");
    assert!(refusal(&reference).contains("GHP.space_heating_efficiency_thermal_factor left out with SpaceHeatingLoad.doe_reference_name=Hospital"));
    let mut subhourly = scenario(testset_ghp());
    subhourly["Settings"] = json!({"time_steps_per_hour": 2});
    subhourly["ElectricLoad"]["loads_kw"] = json!(vec![100.0; 2 * HOURS]);
    assert!(refusal(&subhourly).contains("GHP with Settings.time_steps_per_hour > 1"));
    let mut capped = scenario(testset_ghp());
    capped["GHP"]["state_ibi_max"] = json!(1000.0);
    assert!(refusal(&capped).contains("GHP.state_ibi_max (capped GHP incentives)"));
    let mut bounded = scenario(testset_ghp());
    bounded["Financial"] = json!({"max_initial_capital_costs_before_incentives": 1.0e6});
    assert!(refusal(&bounded).contains("Financial.min/max_initial_capital_costs_before_incentives with GHP"));
}

/// Without a given factor and without a reference building the factor is 1: no reduction.
#[test]
fn ghp_without_factors_outside_the_reference_buildings_reduces_nothing() {
    let mut ghp = testset_ghp();
    ghp.as_object_mut().map(|g| {
        g.remove("space_heating_efficiency_thermal_factor");
        g.remove("cooling_efficiency_thermal_factor")
    });
    let model = from_scenario(&scenario(ghp), &[]).expect("supported");
    let ghp = model.ghp.expect("GHP");
    assert!(ghp.space_heating_reduction_kw.iter().chain(&ghp.cooling_reduction_kw).all(|&kw| kw == 0.0));
    assert!((ghp.options[0].heating_served_kw[0] - SPACE_FUEL * EFFICIENCY * HEATING_FACTOR * KWH_PER_MMBTU).abs() < 1e-9);
}

/// The pro forma with GHP (REopt.jl `update_ghp_metrics`): the chosen option's heat pump tons
/// times its cost curve's slope is its capital, with the utility and state incentives, the
/// rebates per ton, the 30 % ITC and 5-year MACRS with bonus on it as for PV; the service's pro
/// forma has no GHX residual value. So the cash flows discount to `npv` less the residual value,
/// within what the lifecycle cost's whole-dollar slope after the ITC moves (tons · $0.5 / 0.7 of
/// basis) and rtol 1e-4.
#[test]
fn the_pro_forma_with_ghp_takes_its_incentives_as_the_service() {
    let mut ghp = testset_ghp();
    for (field, value) in [("utility_ibi_fraction", 0.05), ("state_ibi_fraction", 0.1), ("utility_rebate_per_ton", 40.0),
                           ("state_rebate_per_ton", 25.0), ("federal_rebate_per_ton", 10.0), ("macrs_option_years", 5.0), ("macrs_bonus_fraction", 0.4)] {
        ghp[field] = json!(value);
    }
    let (model, _, body) = solve(&scenario(ghp));
    assert_eq!(body["GHP"]["ghp_option_chosen"], json!(2));
    let f = &model.financial;
    let optimal = series(&body, "Financial", "offtaker_annual_free_cashflows");
    let bau = series(&body, "Financial", "offtaker_annual_free_cashflows_bau");
    assert_eq!(optimal.len(), f.analysis_years as usize + 1);
    let net: Vec<f64> = optimal.iter().zip(&bau).map(|(o, b)| o - b).collect();
    let from_flows = sunflux::optimizer::proforma::npv(&net, f.offtaker_discount_rate_fraction);
    let residual = number(&body, "GHP", "ghx_residual_value_present_value");
    let expected = number(&body, "Financial", "npv") - residual;
    let slope_rounding = 165.0 * 0.5 / 0.7;
    assert!((from_flows - expected).abs() <= slope_rounding + 1e-4 * expected.abs(), "pro forma NPV {from_flows:.2} vs {expected:.2}");
    let without_incentives = 165.0 * ((40_000.0 * 14.0 + 50_000.0 * 1.7) / 165.0 + 1075.0);
    let year_zero = optimal[0];
    let cash_incentives = without_incentives * 0.05 + (without_incentives * 0.95 - 165.0 * 40.0) * 0.1 + 165.0 * (40.0 + 25.0 + 10.0);
    assert!(isapprox(year_zero, -without_incentives + cash_incentives, 0.0, 0.01), "year 0 {year_zero}");
}

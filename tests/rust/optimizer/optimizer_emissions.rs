//! Emissions and renewable electricity in the embedded optimizer: the parts of REopt.jl's own
//! testsets ("Emissions and Renewable Energy Percent", "Renewable Energy from Grid" in
//! `test/runtests.jl`) that need no outside data, rebuilt with inputs written here (the case
//! files are not copied; their factors come from AVERT and Cambium and their PV from PVWatts,
//! so our own factor series and production factors stand in, and the checks are the cases'
//! identities with their tolerances), and property checks of our own: the renewable and CO2
//! bounds hold at the optimum and binding them changes the answer, and the climate cost in the
//! objective adds exactly its term to the lifecycle cost.

use serde_json::{json, Value};
use sunflux::optimizer::emissions::TONNE_PER_LB;
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{daytime_production, isapprox, number, numbers, solve};

/// Grid CO2 (lb/kWh): 1.2 at night, down to 0.6 at midday (solar on the grid).
fn co2_factors() -> Vec<f64> {
    (0..8760).map(|hour| 1.2 - 0.6 * ((hour % 24) as f64 / 24.0 * 2.0 * std::f64::consts::PI - std::f64::consts::PI).cos().max(0.0)).collect()
}

/// The grid's renewable share: 0.2 at night, 0.5 from 09:00 to 16:00.
fn grid_renewable_fraction() -> Vec<f64> {
    (0..8760).map(|hour| if (9..16).contains(&(hour % 24)) { 0.5 } else { 0.2 }).collect()
}

/// Time-of-use energy rates: $0.06/kWh at night, $0.30 from 16:00 to 21:00, $0.12 otherwise.
fn tou_rates() -> Vec<f64> {
    (0..8760)
        .map(|hour| match hour % 24 {
            0..=5 | 22 | 23 => 0.06,
            16..=20 => 0.30,
            _ => 0.12,
        })
        .collect()
}

/// The elec-only case of the two testsets (`re_emissions_elec_only.json`): a 100,000 kWh flat
/// load, 10 kW of existing PV ($2,000/kW, 0.5 %/year degradation), storage that may charge from
/// the grid, the case's Financial, with our factor series and rates.
fn elec_only() -> Value {
    json!({
        "Site": {"latitude": 35.2468, "longitude": -91.7337},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 100000.0, "year": 2017},
        "ElectricTariff": {"tou_energy_rates_per_kwh": tou_rates(), "monthly_demand_rates": vec![5.0; 12]},
        "ElectricUtility": {
            "emissions_factor_series_lb_CO2_per_kwh": co2_factors(),
            "emissions_factor_CO2_decrease_fraction": 0.01174,
            "renewable_energy_fraction_series": grid_renewable_fraction(),
        },
        "PV": {"existing_kw": 10.0, "installed_cost_per_kw": 2000.0, "om_cost_per_kw": 16.0, "degradation_fraction": 0.005,
               "macrs_bonus_fraction": 0.4, "federal_itc_fraction": 0.3, "production_factor_series": daytime_production(0.8)},
        "ElectricStorage": {"installed_cost_per_kw": 1000.0, "installed_cost_per_kwh": 400.0, "replace_cost_per_kw": 460.0,
                            "replace_cost_per_kwh": 230.0, "installed_cost_constant": 0.0, "replace_cost_constant": 0.0,
                            "can_grid_charge": true, "total_itc_fraction": 0.0},
        "Financial": {"elec_cost_escalation_rate_fraction": 0.026, "offtaker_discount_rate_fraction": 0.081, "analysis_years": 20,
                      "offtaker_tax_rate_fraction": 0.4, "om_cost_escalation_rate_fraction": 0.025},
    })
}

/// Site totals are the grid's plus the fuel burn's, and the reduction is the one the tonnes
/// give (the testset's identities, its tolerances).
fn check_emissions_identities(body: &Value) {
    let total = number(body, "Site", "annual_emissions_tonnes_CO2");
    let parts = number(body, "Site", "annual_emissions_from_fuelburn_tonnes_CO2") + number(body, "ElectricUtility", "annual_emissions_tonnes_CO2");
    assert!(isapprox(total, parts, 0.0, 1e-1), "{total} vs {parts}");
    let reduction = number(body, "Site", "lifecycle_emissions_reduction_CO2_fraction");
    let (opt, bau) = (number(body, "Site", "lifecycle_emissions_tonnes_CO2"), number(body, "Site", "lifecycle_emissions_tonnes_CO2_bau"));
    assert!(isapprox((bau - opt) / bau, reduction, 0.0, 1e-2));
}

/// "Emissions and Renewable Energy Percent", case 2 (CO2 reduction of exactly 80 %, exports
/// counted in neither total): the reduction met (atol 1e-3), the identities, no fuel burn, a
/// breakeven CO2 cost ≥ 0, and the case's round trip: with the sizes fixed at the optimum and
/// that cost in the objective, the breakeven is the cost given (rtol 0.001).
#[test]
fn emissions_reduction_target_of_eighty_percent() {
    let mut scenario = elec_only();
    scenario["Site"]["include_exported_renewable_electricity_in_total"] = json!(false);
    scenario["Site"]["include_exported_elec_emissions_in_total"] = json!(false);
    scenario["Site"]["CO2_emissions_reduction_min_fraction"] = json!(0.8);
    scenario["Site"]["CO2_emissions_reduction_max_fraction"] = json!(0.8);
    let (model, run, body) = solve(&scenario);
    assert!(isapprox(0.8, number(&body, "Site", "lifecycle_emissions_reduction_CO2_fraction"), 0.0, 1e-3));
    check_emissions_identities(&body);
    assert_eq!(number(&body, "Site", "lifecycle_emissions_from_fuelburn_tonnes_CO2"), 0.0);
    // The business-as-usual CO2 the bound compares with is the business-as-usual solve's.
    let bau_tonnes = run.factors.bau_lifecycle_co2_lb.expect("CO2 series given") * TONNE_PER_LB;
    assert!(isapprox(bau_tonnes, number(&body, "Site", "lifecycle_emissions_tonnes_CO2_bau"), 1e-6, 0.01));
    assert!(model.emissions.has_co2_bounds());
    let breakeven = number(&body, "Financial", "breakeven_cost_of_emissions_reduction_per_tonne_CO2");
    assert!(breakeven >= 0.0);
    let new_pv = number(&body, "PV", "size_kw") - 10.0;
    scenario["PV"]["min_kw"] = json!(new_pv);
    scenario["PV"]["max_kw"] = json!(new_pv);
    for (field, size) in [("kw", number(&body, "ElectricStorage", "size_kw")), ("kwh", number(&body, "ElectricStorage", "size_kwh"))] {
        scenario["ElectricStorage"][format!("min_{field}")] = json!(size);
        scenario["ElectricStorage"][format!("max_{field}")] = json!(size);
    }
    scenario["Financial"]["CO2_cost_per_tonne"] = json!(breakeven);
    scenario["Settings"] = json!({"include_climate_in_objective": true});
    let (_, _, priced) = solve(&scenario);
    let again = number(&priced, "Financial", "breakeven_cost_of_emissions_reduction_per_tonne_CO2");
    assert!(isapprox(again, breakeven, 0.001, 0.0), "{again} vs {breakeven}");
}

/// "Emissions and Renewable Energy Percent", case 1 (renewable electricity of exactly 80 %
/// with exports counted, a 2,000-hour outage from hour 4,033, a generator of 2 kW existing up
/// to 20 kW with 1,000 gallons): the on-site renewable fraction is 0.8 (Julia's default
/// tolerance; the service rounds it to 4 decimals) and the totals add up (atol 0.1).
#[test]
fn renewable_electricity_target_of_eighty_percent_with_an_outage() {
    let mut scenario = elec_only();
    scenario["Site"]["renewable_electricity_min_fraction"] = json!(0.8);
    scenario["Site"]["renewable_electricity_max_fraction"] = json!(0.8);
    scenario["ElectricUtility"]["outage_start_time_step"] = json!(4033);
    scenario["ElectricUtility"]["outage_end_time_step"] = json!(6033);
    scenario["Generator"] = json!({"max_kw": 20.0, "existing_kw": 2.0, "fuel_avail_gal": 1000.0, "installed_cost_per_kw": 600.0,
                                   "om_cost_per_kw": 10.0, "om_cost_per_kwh": 0.01, "fuel_cost_per_gallon": 4.0,
                                   "electric_efficiency_full_load": 0.349006, "electric_efficiency_half_load": 0.349006,
                                   "min_turn_down_fraction": 0.0});
    let (_, _, body) = solve(&scenario);
    let fraction = number(&body, "Site", "onsite_renewable_electricity_fraction_of_elec_load");
    assert!(isapprox(fraction, 0.8, 1.4901161193847656e-8, 0.0), "{fraction}");
    let total = number(&body, "Site", "annual_emissions_tonnes_CO2");
    let parts = number(&body, "Site", "annual_emissions_from_fuelburn_tonnes_CO2") + number(&body, "ElectricUtility", "annual_emissions_tonnes_CO2");
    assert!(isapprox(total, parts, 0.0, 1e-1));
    assert!(number(&body, "Site", "annual_emissions_from_fuelburn_tonnes_CO2") > 0.0, "the generator serves the outage");
}

/// "Renewable Energy from Grid": the grid's renewable kWh is Σ (grid to load + η·grid to
/// storage)·r_t (rtol 1e-4), and the on-site-and-grid fraction adds the on-site renewable kWh
/// (PV to load, to grid, η·to storage) over the year's load (rtol 1e-3), η = η_charge·η_discharge.
#[test]
fn renewable_energy_from_grid() {
    let mut scenario = elec_only();
    scenario["ElectricStorage"]["installed_cost_per_kw"] = json!(100.0);
    scenario["ElectricStorage"]["installed_cost_per_kwh"] = json!(80.0);
    let (model, _, body) = solve(&scenario);
    let storage = model.storage.as_ref().expect("storage");
    let eta = storage.charge_efficiency() * storage.discharge_efficiency();
    let share = grid_renewable_fraction();
    let grid_load = numbers(&body["ElectricUtility"]["electric_to_load_series_kw"]);
    let grid_storage = numbers(&body["ElectricUtility"]["electric_to_storage_series_kw"]);
    assert!(grid_storage.iter().sum::<f64>() > 1.0, "the battery charges from the grid");
    let grid_re: f64 = (0..8760).map(|t| (grid_load[t] + grid_storage[t] * eta) * share[t]).sum();
    assert!(isapprox(number(&body, "ElectricUtility", "annual_renewable_electricity_supplied_kwh"), grid_re, 1e-4, 0.0));
    let pv = &body["PV"];
    let sum = |field: &str| numbers(&pv[field]).iter().sum::<f64>();
    let onsite = sum("electric_to_load_series_kw") + sum("electric_to_grid_series_kw") + sum("electric_to_storage_series_kw") * eta;
    let expected = (onsite + grid_re) / number(&body, "ElectricLoad", "annual_calculated_kwh");
    assert!(isapprox(number(&body, "Site", "onsite_and_grid_renewable_electricity_fraction_of_elec_load"), expected, 1e-3, 0.0));
    // Without heating the service's total load is the electric load (REopt.jl `add_re_tot_calcs`).
    for (total, electric) in [
        ("onsite_and_grid_renewable_energy_fraction_of_total_load", "onsite_and_grid_renewable_electricity_fraction_of_elec_load"),
        ("onsite_renewable_energy_fraction_of_total_load", "onsite_renewable_electricity_fraction_of_elec_load"),
        ("onsite_renewable_energy_fraction_of_total_load_bau", "onsite_renewable_electricity_fraction_of_elec_load_bau"),
    ] {
        assert_eq!(body["Site"][total], body["Site"][electric], "{total}");
    }
}

/// The renewable minimum holds at the optimum, and set above the unconstrained optimum's share
/// it binds: more PV, a higher lifecycle cost.
#[test]
fn renewable_minimum_holds_and_binds() {
    let (_, free_run, free) = solve(&elec_only());
    let share = number(&free, "Site", "onsite_renewable_electricity_fraction_of_elec_load");
    let target = (share + 0.25).min(0.9);
    let mut scenario = elec_only();
    scenario["Site"]["renewable_electricity_min_fraction"] = json!(target);
    let (_, bound_run, bound) = solve(&scenario);
    assert!(number(&bound, "Site", "onsite_renewable_electricity_fraction_of_elec_load") >= target - 1e-4);
    assert!(number(&bound, "PV", "size_kw") > number(&free, "PV", "size_kw") + 1.0);
    assert!(number(&bound, "Financial", "lcc") > number(&free, "Financial", "lcc"));
    assert!(bound_run.optimal.lp_lifecycle_cost() > free_run.optimal.lp_lifecycle_cost());
}

/// Counting the grid's renewable share in the bound lowers what the site must produce.
#[test]
fn grid_share_counts_toward_the_renewable_minimum() {
    let mut scenario = elec_only();
    scenario["Site"]["renewable_electricity_min_fraction"] = json!(0.6);
    let (_, _, site_only) = solve(&scenario);
    scenario["Site"]["include_grid_renewable_fraction_in_RE_constraints"] = json!(true);
    let (_, _, with_grid) = solve(&scenario);
    assert!(number(&with_grid, "Site", "onsite_and_grid_renewable_electricity_fraction_of_elec_load") >= 0.6 - 1e-4);
    assert!(number(&with_grid, "PV", "size_kw") < number(&site_only, "PV", "size_kw"));
}

/// CO2 reduction bounds hold against the business-as-usual CO2: at least 50 %, then at most
/// 20 % (a PV that pays for itself is held back).
#[test]
fn co2_reduction_bounds_hold() {
    let mut scenario = elec_only();
    scenario["Site"]["CO2_emissions_reduction_min_fraction"] = json!(0.5);
    let (_, _, at_least) = solve(&scenario);
    assert!(number(&at_least, "Site", "lifecycle_emissions_reduction_CO2_fraction") >= 0.5 - 1e-3);
    let (_, _, free) = solve(&elec_only());
    let free_reduction = number(&free, "Site", "lifecycle_emissions_reduction_CO2_fraction");
    let cap = free_reduction / 2.0;
    let mut scenario = elec_only();
    scenario["Site"]["CO2_emissions_reduction_max_fraction"] = json!(cap);
    let (_, _, at_most) = solve(&scenario);
    assert!(number(&at_most, "Site", "lifecycle_emissions_reduction_CO2_fraction") <= cap + 1e-3);
    assert!(number(&at_most, "Financial", "lcc") >= number(&free, "Financial", "lcc") - 0.01);
}

/// With the sizes fixed, the climate cost in the objective adds exactly its term to the
/// lifecycle cost; with free sizes, the cost is never lower, and the program's objective is the
/// lifecycle cost recomputed from the dispatch.
#[test]
fn climate_cost_in_the_objective_adds_exactly_its_term() {
    let mut fixed = elec_only();
    fixed["PV"]["min_kw"] = json!(40.0);
    fixed["PV"]["max_kw"] = json!(40.0);
    fixed["ElectricStorage"]["max_kw"] = json!(0.0);
    fixed["ElectricStorage"]["max_kwh"] = json!(0.0);
    let (_, _, without) = solve(&fixed);
    fixed["Settings"] = json!({"include_climate_in_objective": true});
    let (_, _, with) = solve(&fixed);
    let climate = number(&with, "Financial", "lifecycle_emissions_cost_climate");
    assert!(climate > 0.0);
    assert!(isapprox(number(&without, "Financial", "lifecycle_emissions_cost_climate"), climate, 0.0, 0.01));
    assert!(isapprox(number(&with, "Financial", "lcc") - number(&without, "Financial", "lcc"), climate, 0.0, 0.02));

    let (_, _, free_without) = solve(&elec_only());
    let mut priced = elec_only();
    priced["Settings"] = json!({"include_climate_in_objective": true});
    priced["Financial"]["CO2_cost_per_tonne"] = json!(300.0);
    let (_, run, free_with) = solve(&priced);
    assert!(number(&free_with, "Financial", "lcc") >= number(&free_without, "Financial", "lcc"));
    assert!(number(&free_with, "PV", "size_kw") >= number(&free_without, "PV", "size_kw") - 1e-3);
    assert!(isapprox(run.optimal.lp_lifecycle_cost(), number(&free_with, "Financial", "lcc"), 1e-6, 0.05));
}

/// Health costs need their factors and costs: left out, the run names each input to give.
#[test]
fn health_costs_without_their_inputs_are_refused_by_name() {
    let mut scenario = elec_only();
    scenario["Settings"] = json!({"include_health_in_objective": true});
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be refused") };
    let text = found.message();
    for needle in ["emissions_factor_series_lb_NOx_per_kwh (AVERT", "Financial.PM25_cost_escalation_rate_fraction (EASIUR"] {
        assert!(text.contains(needle), "{needle} missing from {text}");
    }
    for p in ["NOx", "SO2", "PM25"] {
        scenario["ElectricUtility"][format!("emissions_factor_series_lb_{p}_per_kwh")] = json!(0.001);
        scenario["Financial"][format!("{p}_grid_cost_per_tonne")] = json!(20000.0);
        scenario["Financial"][format!("{p}_cost_escalation_rate_fraction")] = json!(0.02);
    }
    let (_, _, body) = solve(&scenario);
    assert!(number(&body, "Financial", "lifecycle_emissions_cost_health") > 0.0);
}

/// Without factor series the grid outputs are null and an unconstrained run still solves; a
/// CO2 bound or the climate objective then names the series to give.
#[test]
fn missing_grid_series_give_null_outputs_or_a_named_refusal() {
    let mut scenario = elec_only();
    scenario["ElectricUtility"] = json!({});
    let (_, _, body) = solve(&scenario);
    assert!(body["ElectricUtility"]["lifecycle_emissions_tonnes_CO2"].is_null());
    assert!(body["Site"]["onsite_and_grid_renewable_electricity_fraction_of_elec_load"].is_null());
    assert!(body["Financial"]["lifecycle_emissions_cost_climate"].is_null());
    assert!(body["Site"]["lifecycle_emissions_from_fuelburn_tonnes_CO2"].is_number());
    scenario["Site"]["CO2_emissions_reduction_min_fraction"] = json!(0.3);
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be refused") };
    assert!(found.message().contains("ElectricUtility.emissions_factor_series_lb_CO2_per_kwh (Cambium or AVERT"));
}

/// A scalar factor is every step's; an hourly series is repeated per step of a finer model.
#[test]
fn factor_series_expand_as_the_service_expands_them() {
    let mut scenario = elec_only();
    scenario["ElectricUtility"]["emissions_factor_series_lb_CO2_per_kwh"] = json!(0.9);
    let model = from_scenario(&scenario, &[]).expect("supported");
    assert_eq!(model.emissions.grid_lb_per_kwh[0].as_deref(), Some(&vec![0.9; 8760][..]));
    scenario["Settings"] = json!({"time_steps_per_hour": 2});
    scenario["ElectricUtility"]["emissions_factor_series_lb_CO2_per_kwh"] = json!(co2_factors());
    scenario["PV"]["production_factor_series"] = json!(daytime_production(0.8));
    scenario["ElectricTariff"] = json!({"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 5.0});
    let model = from_scenario(&scenario, &[]).expect("supported");
    let series = model.emissions.grid_lb_per_kwh[0].as_ref().expect("CO2 series");
    assert_eq!(series.len(), 17520);
    assert_eq!((series[2], series[3]), (co2_factors()[1], co2_factors()[1]));
    scenario["ElectricUtility"]["emissions_factor_series_lb_CO2_per_kwh"] = json!(vec![1.0; 100]);
    assert!(matches!(from_scenario(&scenario, &[]), Err(ScenarioError::Invalid(_))));
}

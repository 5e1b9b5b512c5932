//! CHP exports (the service's `techs.elec` with CHP's `export_bins_by_tech`: REopt.jl
//! `add_export_constraints` and the CHP split of `src/results/chp.jl`). No REopt.jl testset
//! exports from CHP; "CHP Unavailability and Outage" checks the default (no flags: no exports),
//! reproduced here beside the exporting case on our own flat site: the CHP's electricity per step
//! is its load, storage, grid and curtailment parts, exports happen only in the bins its flags
//! allow and are paid the tariff's export rate, and the net-metering limit caps its size. Also
//! CHP's IBIs, rebates and production incentive, and heat producers whose `can_serve_*` flags are
//! all false (REopt.jl fixes their heating production at 0).

use serde_json::{json, Value};
use sunflux::optimizer::{from_scenario, ScenarioError};
use crate::support::{isapprox, number, series, solve};

/// A site in 2017 with the given electric load and 3 MMBtu/h of boiler fuel for space heating at
/// 80 % ($8/MMBtu), and a CHP whose cheap fuel ($2/MMBtu at 35 %) makes
/// electricity below the wholesale rate: a single cost slope, equal full- and half-load
/// efficiencies and no turndown (no on/off binary), no maintenance hours.
fn exporting_scenario(load_kw: Vec<f64>, chp: Value, tariff: Value) -> Value {
    let mut chp_inputs = json!({
        "prime_mover": "recip_engine", "fuel_cost_per_mmbtu": 2.0, "min_allowable_kw": 0,
        "installed_cost_per_kw": 1500.0, "om_cost_per_kwh": 0.005, "om_cost_per_kw": 0.0, "om_cost_per_hr_per_kw_rated": 0.0,
        "electric_efficiency_full_load": 0.35, "electric_efficiency_half_load": 0.35,
        "thermal_efficiency_full_load": 0.45, "thermal_efficiency_half_load": 0.45, "min_turn_down_fraction": 0.0,
        "macrs_option_years": 0, "macrs_bonus_fraction": 0.0, "federal_itc_fraction": 0.0,
        "unavailability_periods": [{"month": 1, "start_week_of_month": 2, "start_day_of_week": 6, "start_hour": 1, "duration_hours": 0}]
    });
    chp_inputs.as_object_mut().unwrap().extend(chp.as_object().unwrap().clone());
    json!({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "Financial": {"analysis_years": 20, "offtaker_discount_rate_fraction": 0.08, "offtaker_tax_rate_fraction": 0.26,
                      "elec_cost_escalation_rate_fraction": 0.02, "om_cost_escalation_rate_fraction": 0.025},
        "ElectricLoad": {"loads_kw": load_kw, "year": 2017},
        "ElectricTariff": tariff,
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": vec![3.0; 8760]},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 8.0, "efficiency": 0.8},
        "CHP": chp_inputs
    })
}

/// Every step: production = to load (curtailment included, as the service writes it) + to
/// storage + to grid, atol 1e-6.
fn assert_split(body: &Value) {
    let production = series(body, "CHP", "electric_production_series_kw");
    let to_load = series(body, "CHP", "electric_to_load_series_kw");
    let to_storage = series(body, "CHP", "electric_to_storage_series_kw");
    let to_grid = series(body, "CHP", "electric_to_grid_series_kw");
    for t in 0..production.len() {
        let parts = to_load[t] + to_storage[t] + to_grid[t];
        assert!(isapprox(production[t], parts, 0.0, 1e-6), "step {t}: production {} vs parts {parts}", production[t]);
    }
}

/// Wholesale at $0.06/kWh (energy $0.10/kWh) on a flat 200 kW load, with a CHP fixed at 500 kW that may wholesale: it runs flat out, serves
/// the 200 kW load and exports the other 300 kW in every step; the year-one export benefit is
/// Σ 0.06·to grid (rtol 1e-6) and its lifecycle value that times pwf_e·(1 − τ). Without the flag
/// (the service's default, the relation "CHP never exports" of "CHP Unavailability and
/// Outage"), the same CHP exports nothing, so it runs at the load.
#[test]
fn chp_wholesale_exports_are_split_and_paid() {
    let tariff = json!({"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 0.0, "wholesale_rate": 0.06});
    let (model, run, body) = solve(&exporting_scenario(vec![200.0; 8760], json!({"min_kw": 500, "max_kw": 500, "can_wholesale": true}), tariff.clone()));
    assert_split(&body);
    let to_grid = series(&body, "CHP", "electric_to_grid_series_kw");
    let production = series(&body, "CHP", "electric_production_series_kw");
    for t in 0..to_grid.len() {
        assert!(isapprox(production[t], 500.0, 1e-9, 1e-6), "step {t}: production {}", production[t]);
        assert!(isapprox(to_grid[t], 300.0, 1e-9, 1e-6), "step {t}: export {}", to_grid[t]);
    }
    let benefit = number(&body, "ElectricTariff", "year_one_export_benefit_before_tax");
    let by_hand: f64 = to_grid.iter().map(|kw| 0.06 * kw).sum();
    assert!(isapprox(benefit, by_hand, 1e-6, 0.0), "export benefit {benefit} vs {by_hand}");
    assert!(isapprox(by_hand, 0.06 * 300.0 * 8760.0, 1e-6, 0.0));
    let lifecycle = number(&body, "ElectricTariff", "lifecycle_export_benefit_after_tax");
    let expected = by_hand * run.factors.pwf_e * (1.0 - model.financial.offtaker_tax_rate_fraction);
    assert!(isapprox(lifecycle, expected, 1e-6, 0.0), "lifecycle export benefit {lifecycle} vs {expected}");

    let (_, _, body) = solve(&exporting_scenario(vec![200.0; 8760], json!({"min_kw": 500, "max_kw": 500}), tariff));
    assert_split(&body);
    assert_eq!(series(&body, "CHP", "electric_to_grid_series_kw").iter().sum::<f64>(), 0.0);
    assert_eq!(number(&body, "ElectricTariff", "year_one_export_benefit_before_tax"), 0.0);
    let production = series(&body, "CHP", "electric_production_series_kw");
    assert!(production.iter().all(|&kw| kw <= 200.0 + 1e-6), "the CHP runs above the load without exports");
}

/// Net metering on a load of 200 kW by day and 50 kW by night, with the net-metering limit equal
/// to the interconnection limit (150 kW; the service's single `sum(dvSize[NEM_techs]) ≤
/// interconnection_limit_kw` row, binNEM = 1): a CHP that may net meter is sized at most 150 kW,
/// it exports at night, its exports (credited at the retail rate) are at most the energy bought
/// over the year (the service's constraint (9c), binding here: rtol 1e-6), and the year-one benefit is Σ nem_rate·to grid
/// (rtol 1e-6). The same CHP without the flag is not capped: it is sized above 150 kW.
#[test]
fn chp_net_metering_caps_its_size_and_credits() {
    let tariff = json!({"monthly_energy_rates": [0.10, 0.10, 0.30, 0.30, 0.10, 0.10, 0.10, 0.10, 0.10, 0.10, 0.10, 0.10],
                        "monthly_demand_rates": vec![0.0; 12]});
    let load: Vec<f64> = (0..8760).map(|t| if (6..18).contains(&(t % 24)) { 200.0 } else { 50.0 }).collect();
    let mut scenario = exporting_scenario(load.clone(), json!({"max_kw": 400, "can_net_meter": true}), tariff.clone());
    scenario["ElectricUtility"] = json!({"net_metering_limit_kw": 150.0, "interconnection_limit_kw": 150.0});
    let (model, _, body) = solve(&scenario);
    assert_split(&body);
    let size = number(&body, "CHP", "size_kw");
    assert!(size > 1.0 && size <= 150.0 + 1e-6, "CHP size {size} against the 150 kW limit");
    let to_grid = series(&body, "CHP", "electric_to_grid_series_kw");
    let bought: f64 = series(&body, "ElectricUtility", "electric_to_load_series_kw").iter().sum::<f64>()
        + series(&body, "ElectricUtility", "electric_to_storage_series_kw").iter().sum::<f64>();
    let exported: f64 = to_grid.iter().sum();
    assert!(exported > 1.0, "the CHP exports at night: {exported} kWh");
    assert!(exported <= bought * (1.0 + 1e-6), "net-metered {exported} kWh against {bought} kWh bought");
    let benefit = number(&body, "ElectricTariff", "year_one_export_benefit_before_tax");
    let by_hand: f64 = to_grid.iter().enumerate().map(|(t, kw)| model.tariff.nem_rate[t] * kw).sum();
    assert!(isapprox(benefit, by_hand, 1e-6, 0.0), "export benefit {benefit} vs {by_hand}");

    let mut scenario = exporting_scenario(load, json!({"max_kw": 400}), tariff);
    scenario["ElectricUtility"] = json!({"net_metering_limit_kw": 150.0, "interconnection_limit_kw": 150.0});
    let (_, _, body) = solve(&scenario);
    assert!(number(&body, "CHP", "size_kw") > 150.0 + 1.0, "uncapped CHP size {}", body["CHP"]["size_kw"]);
    assert_eq!(series(&body, "CHP", "electric_to_grid_series_kw").iter().sum::<f64>(), 0.0);
}

/// A CHP fixed at 400 kW under a flat 500 kW load, on the tariff of `exporting_scenario` without
/// exports: it runs flat out in every step (its heat is worth more than its fuel) and serves load
/// only, so two such runs differ in its incentives alone.
fn fixed_chp_scenario(incentives: Value) -> Value {
    let mut chp = json!({"min_kw": 400, "max_kw": 400});
    chp.as_object_mut().unwrap().extend(incentives.as_object().unwrap().clone());
    exporting_scenario(vec![500.0; 8760], chp, json!({"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 0.0}))
}

/// IBIs and rebates through the cost curve as REopt.jl `cost_curve` takes them (utility, state,
/// then federal; no ITC or MACRS here): a 10 % utility IBI capped at $30,000 (reached at 200 kW,
/// where the cap adds a break point), $50/kW from the state and $20/kW federal lower the 400 kW
/// CHP's lifecycle capital cost by 30,000 + 400·(50 + 20) = $58,000 (rtol 1e-6); its initial
/// capital (before incentives) stays 400·1500; the pro forma (REopt.jl `update_metrics`) takes
/// the same $58,000 of cash incentives in year 0 and in its capital after incentives.
#[test]
fn chp_ibis_and_rebates_lower_its_net_capital_cost() {
    let (_, _, plain) = solve(&fixed_chp_scenario(json!({})));
    let incentives = json!({"utility_ibi_fraction": 0.1, "utility_ibi_max": 30000.0, "state_rebate_per_kw": 50.0, "federal_rebate_per_kw": 20.0});
    let (_, _, body) = solve(&fixed_chp_scenario(incentives));
    let by_hand = 30000.0 + 400.0 * (50.0 + 20.0);
    for body in [&plain, &body] {
        assert!(isapprox(number(body, "CHP", "size_kw"), 400.0, 1e-9, 0.0));
        assert!(isapprox(number(body, "CHP", "annual_electric_production_kwh"), 400.0 * 8760.0, 1e-6, 0.0));
        assert!(isapprox(number(body, "Financial", "initial_capital_costs"), 400.0 * 1500.0, 1e-9, 0.0));
    }
    let lowered = number(&plain, "Financial", "lifecycle_capital_costs") - number(&body, "Financial", "lifecycle_capital_costs");
    assert!(isapprox(lowered, by_hand, 1e-6, 0.0), "net capital lowered by {lowered}, by hand {by_hand}");
    let key = "capital_costs_after_non_discounted_incentives_without_macrs";
    let pro_forma = number(&plain, "Financial", key) - number(&body, "Financial", key);
    assert!(isapprox(pro_forma, by_hand, 1e-6, 0.0), "pro forma incentives {pro_forma}, by hand {by_hand}");
    let year_zero = |b: &Value| series(b, "Financial", "offtaker_annual_free_cashflows")[0];
    assert!(isapprox(year_zero(&body) - year_zero(&plain), by_hand, 1e-6, 0.0));
}

/// The production-based incentive as REopt.jl `add_prod_incent_vars_and_constraints` (the
/// relation of its "Production Based Incentives" testset, lifecycle incentive = pwf · benefit, on our own
/// CHP): $0.01/kWh for 5 years on the 400 kW CHP's 3,504,000 kWh is $35,040 a year, so the
/// lifecycle incentive after tax is pwf₅·35,040·(1 − τ_owner) (pwf₅ = Σ_{y=1..5} (1+d_owner)^−y;
/// rtol 1e-6); capped at $20,000 a year it is pwf₅·20,000·(1 − τ_owner), and the pro forma's free
/// cash flows of years 1-5 differ by (1 − τ)·15,040 and not after.
#[test]
fn chp_production_incentive_is_paid_on_its_kwh_up_to_its_cap() {
    let incentive = |max_benefit: f64| {
        json!({"production_incentive_per_kwh": 0.01, "production_incentive_years": 5, "production_incentive_max_kw": 1000.0,
               "production_incentive_max_benefit": max_benefit})
    };
    let (model, _, uncapped) = solve(&fixed_chp_scenario(incentive(1.0e9)));
    let (_, _, capped) = solve(&fixed_chp_scenario(incentive(20000.0)));
    let f = &model.financial;
    let pwf: f64 = (1..=5).map(|y| (1.0 + f.owner_discount_rate_fraction).powi(-y)).sum();
    let after_tax = 1.0 - f.owner_tax_rate_fraction;
    let kwh = number(&uncapped, "CHP", "annual_electric_production_kwh");
    assert!(isapprox(kwh, 400.0 * 8760.0, 1e-6, 0.0), "CHP kWh {kwh}");
    let paid = number(&uncapped, "Financial", "lifecycle_production_incentive_after_tax");
    assert!(isapprox(paid, pwf * 0.01 * kwh * after_tax, 1e-6, 0.0), "uncapped incentive {paid}");
    let paid = number(&capped, "Financial", "lifecycle_production_incentive_after_tax");
    assert!(isapprox(paid, pwf * 20000.0 * after_tax, 1e-6, 0.0), "capped incentive {paid}");
    let flows = |b: &Value| series(b, "Financial", "offtaker_annual_free_cashflows");
    let (high, low) = (flows(&uncapped), flows(&capped));
    for year in 1..high.len() {
        let expected = if year <= 5 { (1.0 - f.offtaker_tax_rate_fraction) * (0.01 * kwh - 20000.0) } else { 0.0 };
        assert!(isapprox(high[year] - low[year], expected, 1e-6, 0.01), "year {year}: {} vs {expected}", high[year] - low[year]);
    }
}

/// A new Boiler (free to buy, $1/MMBtu at 90 %) and a CHP (up to 400 kW) whose `can_serve_*`
/// flags are all false make no heat, as REopt.jl's `add_heating_tech_constraints` fixes their
/// `dvHeatingProduction` at 0: the boiler produces nothing, the CHP (with a heat line) cannot run,
/// and the existing boiler serves the whole 3·0.8 MMBtu/h (rtol 1e-6). With the flags left at
/// their defaults both run.
#[test]
fn heat_producers_serving_no_load_make_no_heat() {
    let scenario = |serves: bool| {
        let flags = json!({"can_serve_dhw": serves, "can_serve_space_heating": serves, "can_serve_process_heat": serves});
        let mut chp = json!({"max_kw": 400});
        chp.as_object_mut().unwrap().extend(flags.as_object().unwrap().clone());
        let mut scenario = exporting_scenario(vec![200.0; 8760], chp, json!({"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 0.0}));
        let mut boiler = json!({"fuel_cost_per_mmbtu": 1.0, "efficiency": 0.9, "installed_cost_per_mmbtu_per_hour": 0.0, "max_mmbtu_per_hour": 10.0});
        boiler.as_object_mut().unwrap().extend(flags.as_object().unwrap().clone());
        scenario["Boiler"] = boiler;
        scenario
    };
    let (_, _, body) = solve(&scenario(false));
    assert_eq!(number(&body, "CHP", "annual_electric_production_kwh"), 0.0);
    assert_eq!(number(&body, "CHP", "annual_thermal_production_mmbtu"), 0.0);
    assert_eq!(number(&body, "Boiler", "annual_thermal_production_mmbtu"), 0.0);
    let existing = number(&body, "ExistingBoiler", "annual_thermal_production_mmbtu");
    assert!(isapprox(existing, 3.0 * 0.8 * 8760.0, 1e-6, 0.0), "existing boiler {existing} MMBtu");

    let (_, _, body) = solve(&scenario(true));
    assert!(number(&body, "CHP", "annual_electric_production_kwh") > 0.0);
    assert!(number(&body, "Boiler", "annual_thermal_production_mmbtu") > 0.0);
}

/// Flags true only for loads not given stay refused by name: the service makes those loads zeros
/// the producer's heat may still be wasted through.
#[test]
fn heat_producers_serving_only_loads_not_given_are_refused() {
    let chp = json!({"max_kw": 400, "can_serve_dhw": true, "can_serve_space_heating": false, "can_serve_process_heat": false});
    let scenario = exporting_scenario(vec![200.0; 8760], chp, json!({"blended_annual_energy_rate": 0.10}));
    let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be unsupported") };
    assert!(found.message().contains("CHP serving none of the heating loads given"), "{}", found.message());
}

//! Third-party ownership as the service models it (REopt.jl `setup_present_worth_factors`, the
//! objective of `src/core/reopt.jl`, `src/results/financial.jl` and the third-party branch of
//! `src/results/proforma.jl`): the owner's costs are present values at the owner's rates,
//! weighed by the third-party factor; the utility bill stays the offtaker's. Scenarios are
//! written here with made-up shapes: a flat load, a daylight arc of production.

use serde_json::{json, Value};
use sunflux::optimizer::in_process::solve_scenario;
use sunflux::optimizer::proforma::npv;
use sunflux::optimizer::SolveControl;
use crate::support;

const YEARS: i32 = 25;
const PV_COST_PER_KW: f64 = 1000.0;
const PV_OM_PER_KW: f64 = 20.0;
const OM_ESCALATION: f64 = 0.025;
const ELEC_ESCALATION: f64 = 0.02;

/// A clear-sky-like daily arc, 0 at night, peaking at 0.8 kW/kW at noon, weaker in winter.
fn daylight_production() -> Vec<f64> {
    (0..8760)
        .map(|hour| {
            let day = (hour / 24) as f64;
            let h = (hour % 24) as f64;
            let season = 0.55 + 0.45 * (std::f64::consts::TAU * (day - 80.0) / 365.0).sin();
            let arc = (std::f64::consts::PI * (h - 6.0) / 12.0).sin();
            if (6.0..18.0).contains(&h) { 0.8 * season * arc.max(0.0) } else { 0.0 }
        })
        .collect()
}

/// A 100 kW flat load at 0.20 $/kWh, PV without tax incentives (its net present cost per kW is
/// its installed cost, so the capital can be recomputed by hand), an existing 10 kW whose O&M
/// the offtaker keeps paying, and the given `Financial`.
fn scenario(financial: Value) -> Value {
    json!({
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "Financial": financial,
        "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2017},
        "ElectricTariff": {"blended_annual_energy_rate": 0.20, "blended_annual_demand_rate": 0.0},
        "PV": {"existing_kw": 10.0, "max_kw": 400.0, "installed_cost_per_kw": PV_COST_PER_KW, "om_cost_per_kw": PV_OM_PER_KW,
               "federal_itc_fraction": 0.0, "macrs_option_years": 0, "can_net_meter": false, "can_wholesale": false,
               "can_export_beyond_nem_limit": false, "production_factor_series": daylight_production()},
    })
}

fn financial(third_party: bool, offtaker: (f64, f64), owner: (f64, f64)) -> Value {
    json!({
        "analysis_years": YEARS, "third_party_ownership": third_party,
        "om_cost_escalation_rate_fraction": OM_ESCALATION, "elec_cost_escalation_rate_fraction": ELEC_ESCALATION,
        "offtaker_discount_rate_fraction": offtaker.0, "offtaker_tax_rate_fraction": offtaker.1,
        "owner_discount_rate_fraction": owner.0, "owner_tax_rate_fraction": owner.1,
    })
}

fn solve(scenario: &Value) -> Value {
    solve_scenario(scenario, &SolveControl::default()).expect("optimal")
}

/// `outputs[section][field]` of a whole results body.
fn number(body: &Value, section: &str, field: &str) -> f64 {
    support::number(&body["outputs"], section, field)
}

fn list(body: &Value, field: &str) -> Vec<f64> {
    body["outputs"]["Financial"][field].as_array().unwrap_or_else(|| panic!("{field} missing")).iter().filter_map(Value::as_f64).collect()
}

/// Σ_{y=1..N} ((1+e)/(1+d))^y.
fn annuity(escalation: f64, discount: f64) -> f64 {
    (1..=YEARS).map(|y| ((1.0 + escalation) / (1.0 + discount)).powi(y)).sum()
}

/// With the owner's rates equal to the offtaker's the third-party factor is 1: sizes and the
/// lifecycle cost are those of direct ownership.
#[test]
fn third_party_ownership_at_the_offtakers_rates_changes_nothing() {
    let rates = (0.07, 0.25);
    let direct = solve(&scenario(financial(false, rates, rates)));
    let third_party = solve(&scenario(financial(true, rates, rates)));
    let size = |body: &Value| number(body, "PV", "size_kw");
    assert!(size(&direct) > 10.0, "PV is built: {}", size(&direct));
    assert!((size(&direct) - size(&third_party)).abs() < 1e-6, "{} vs {}", size(&direct), size(&third_party));
    assert!((number(&direct, "Financial", "lcc") - number(&third_party, "Financial", "lcc")).abs() < 0.01);
    assert_eq!(third_party["inputs"]["Financial"]["owner_discount_rate_fraction"], json!(0.07));
}

/// Owner at 10 % and 30 % tax, offtaker at 6 % and 20 %: the owner's capital and O&M in the
/// lifecycle cost are its present values at its rates times the third-party factor
/// `pwf(6 %)·0.8 / (pwf(10 %)·0.7)`, recomputed here from the body's sizes; the bill is the
/// offtaker's; the developer's pro forma recovers its net present cost exactly.
#[test]
fn the_owners_costs_are_discounted_at_the_owners_rates() {
    let (offtaker, owner) = ((0.06, 0.20), (0.10, 0.30));
    let body = solve(&scenario(financial(true, offtaker, owner)));
    let tpf = annuity(0.0, offtaker.0) * (1.0 - offtaker.1) / (annuity(0.0, owner.0) * (1.0 - owner.1));
    let size = number(&body, "PV", "size_kw");
    let new_kw = size - 10.0;
    assert!(new_kw > 1.0, "PV is built: {size} kW");
    let capital = number(&body, "Financial", "lifecycle_generation_tech_capital_costs");
    assert!((capital - tpf * PV_COST_PER_KW * new_kw).abs() < 0.01, "capital {capital}");
    let om_before_tax = tpf * annuity(OM_ESCALATION, owner.0) * PV_OM_PER_KW * size;
    let om_after_tax = number(&body, "Financial", "lifecycle_om_costs_after_tax");
    assert!((om_after_tax - om_before_tax * (1.0 - owner.1)).abs() < 0.01, "O&M {om_after_tax}");
    assert!((number(&body, "Financial", "year_one_om_costs_before_tax") - PV_OM_PER_KW * size).abs() < 0.01);
    let bill = number(&body, "ElectricTariff", "year_one_bill_before_tax");
    let elecbill = number(&body, "Financial", "lifecycle_elecbill_after_tax");
    // The year-one bill is written to the cent: its rounding times pwf_e · (1 − τ_o) ≈ 12.6.
    assert!((elecbill - bill * annuity(ELEC_ESCALATION, offtaker.0) * (1.0 - offtaker.1)).abs() < 0.1, "bill {elecbill}");
    let lcc = number(&body, "Financial", "lcc");
    assert!((lcc - (capital + om_after_tax + elecbill)).abs() < 0.05, "lcc {lcc}");
    // The owner's view of the capital: the up-front cost (no incentives, no replacements).
    assert!((number(&body, "Financial", "initial_capital_costs_after_incentives") - PV_COST_PER_KW * new_kw).abs() < 0.01);

    // The developer pays the new capacity and its O&M; the payments recover the net present cost.
    let developer = list(&body, "developer_annual_free_cashflows");
    assert_eq!(developer.len(), YEARS as usize + 1);
    assert!((developer[0] + PV_COST_PER_KW * new_kw).abs() < 0.01);
    let net_present_cost = number(&body, "Financial", "net_present_cost");
    let payment = number(&body, "Financial", "annualized_payment_to_third_party");
    let without_payments: Vec<f64> =
        developer.iter().enumerate().map(|(y, flow)| if y == 0 { *flow } else { flow - payment * (1.0 - owner.1) }).collect();
    assert!((npv(&without_payments, owner.0) + net_present_cost).abs() < 0.05, "NPC {net_present_cost}");
    let by_hand = PV_COST_PER_KW * new_kw
        + (1..=YEARS).map(|y| PV_OM_PER_KW * new_kw * (1.0 + OM_ESCALATION).powi(y) * (1.0 - owner.1) / (1.0 + owner.0).powi(y)).sum::<f64>();
    assert!((net_present_cost - by_hand).abs() < 0.01, "NPC {net_present_cost} vs {by_hand}");
    assert!(npv(&developer, owner.0).abs() < 0.05, "the developer's NPV with the payments is nil");
    assert_eq!(number(&body, "Financial", "internal_rate_of_return"), owner.0);
    // The offtaker pays the bill, the existing array's O&M and the payment, before tax.
    let offtaker_flows = list(&body, "offtaker_annual_free_cashflows");
    let year_one = -bill * (1.0 + ELEC_ESCALATION) - PV_OM_PER_KW * 10.0 * (1.0 + OM_ESCALATION) - payment;
    assert!((offtaker_flows[1] - year_one).abs() < 0.01, "offtaker year 1 {}", offtaker_flows[1]);
    assert!(list(&body, "offtaker_discounted_annual_free_cashflows").is_empty());
}

/// REopt.jl "Sector defaults" (`test/runtests.jl`): the defaults the service fills by sector and
/// federal procurement type, on a scenario of our own with the electric technologies this
/// optimizer models (the testset's CHP, GHP, steam turbine and thermal storages are not; its
/// CHP fuel escalation, 0.00581 nationally, is the boilers' row of the same table, the same for
/// every procurement type, read here for an existing boiler of a federally owned site: with a
/// third party, heating loads are refused).
#[test]
fn sector_defaults_anchor() {
    let site = |extra: Value| {
        let mut site = json!({"latitude": 34.58, "longitude": -118.12});
        site.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        json!({
            "Site": site,
            "ElectricLoad": {"loads_kw": vec![100.0; 8760], "year": 2017},
            "ElectricTariff": {"blended_annual_energy_rate": 0.20, "blended_annual_demand_rate": 10.0},
            "PV": {"production_factor_series": daylight_production()},
            "Wind": {"production_factor_series": vec![0.3; 8760]},
            "ElectricStorage": {},
        })
    };
    let read = |extra: Value| sunflux::optimizer::from_scenario(&site(extra), &[]).expect("supported");

    let commercial = read(json!({"sector": "commercial/industrial"}));
    assert_eq!(commercial.financial.owner_tax_rate_fraction, 0.26);
    assert_eq!(commercial.financial.elec_cost_escalation_rate_fraction, 0.0166);
    for pv in &commercial.pvs {
        let i = &pv.incentives;
        assert!(i.macrs_option_years != 0 && i.macrs_bonus_fraction != 0.0 && i.federal_itc_fraction != 0.0, "{}", pv.name);
    }
    let storage = commercial.storage.as_ref().expect("storage");
    assert!(storage.macrs_option_years != 0 && storage.macrs_bonus_fraction != 0.0 && storage.total_itc_fraction != 0.0);

    let private = read(json!({"sector": "federal", "federal_procurement_type": "privateowned_thirdparty"}));
    assert_eq!(private.financial.owner_tax_rate_fraction, 0.26);
    assert!(private.financial.third_party_ownership);
    for pv in &private.pvs {
        let i = &pv.incentives;
        assert!(i.macrs_option_years != 0 && i.macrs_bonus_fraction != 0.0 && i.federal_itc_fraction != 0.0, "{}", pv.name);
    }
    let storage = private.storage.as_ref().expect("storage");
    assert!(storage.macrs_option_years != 0 && storage.macrs_bonus_fraction != 0.0 && storage.total_itc_fraction != 0.0);

    let direct = read(json!({"sector": "federal", "federal_procurement_type": "fedowned_dirpurch", "federal_sector_state": "CA"}));
    assert_eq!(direct.financial.owner_tax_rate_fraction, 0.0);
    assert_eq!(direct.financial.elec_cost_escalation_rate_fraction, -0.00088);
    for pv in &direct.pvs {
        let i = &pv.incentives;
        assert_eq!((i.macrs_option_years, i.macrs_bonus_fraction, i.federal_itc_fraction), (0, 0.0, 0.0), "{}", pv.name);
    }
    let storage = direct.storage.as_ref().expect("storage");
    assert_eq!((storage.macrs_option_years, storage.macrs_bonus_fraction, storage.total_itc_fraction), (0, 0.0, 0.0));

    let mut heated = site(json!({"sector": "federal", "federal_procurement_type": "fedowned_dirpurch"}));
    heated["SpaceHeatingLoad"] = json!({"fuel_loads_mmbtu_per_hour": vec![1.0; 8760]});
    heated["ExistingBoiler"] = json!({"fuel_cost_per_mmbtu": 10.0});
    let heated = sunflux::optimizer::from_scenario(&heated, &[]).expect("supported");
    assert_eq!(heated.heating.expect("heating").existing_boiler.burner.fuel_escalation, 0.00581);
}

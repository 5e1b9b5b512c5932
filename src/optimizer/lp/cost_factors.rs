//! Cost factors: the present-worth factors of the lifecycle cost and the net present cost per
//! unit of each technology after its tax treatment (ITC, MACRS, replacements) and incentives,
//! with each PV array's cost curve (capped incentives add pieces). REopt.jl computes these in
//! its inputs and `src/constraints/cost_curve_constraints.jl`; here they are `CostFactors`,
//! computed once per model and shared by every case.
//!
//! Third-party ownership (REopt.jl `setup_present_worth_factors`): the owner's costs (capital,
//! O&M, production incentives) are present values at the owner's discount and tax rates, and the
//! service weighs each by the third-party factor
//! `tpf = pwf(d_o)·(1 − τ_o) / (pwf(d_w)·(1 − τ_w))` (pwf(d) = Σ_{y=1..N} (1+d)^−y), the
//! offtaker's value of a dollar the owner must recover. Every owner's cost here carries that
//! factor already (1 without third-party ownership), so the LP and the outputs read them as is.

use crate::optimizer::finance::{
    self, effective_cost, incentive_cost_segments, CostSegment, RegionIncentive, Replacement, TaxTreatment,
};
use crate::optimizer::emissions::{self, EmissionsPwf};
use crate::optimizer::model::resilience_inputs::Generator;
use crate::optimizer::model::thermal_inputs::FuelBurner;
use crate::optimizer::model::{ArrayKind, Financial, Model, ProductionIncentive, Pv, PvIncentives, Storage};

/// Present-worth factors and per-unit present costs of one model.
#[derive(Debug, Clone, PartialEq)]
pub struct CostFactors {
    pub pwf_e: f64,
    /// Σ_{y=1..N} ((1+e_om)/(1+d_w))^y times the third-party factor: the service's
    /// `third_party_factor * pwf_om`, which every O&M term and year-one O&M output uses.
    pub pwf_om: f64,
    /// The third-party factor (1 without third-party ownership).
    pub third_party_factor: f64,
    /// PV levelization factor of each array.
    pub levelization: Vec<f64>,
    /// (1 − τ_o): utility costs are tax deductible for the offtaker.
    pub offtaker_after_tax: f64,
    /// (1 − τ_w): O&M is tax deductible for the owner.
    pub owner_after_tax: f64,
    /// Cost curve of each array's new capacity: width (kW) and npc ($/kW) of each piece.
    pub pv_segments: Vec<Vec<PricedSegment>>,
    /// Each array's production-based incentive, when it has one.
    pub production_incentives: Vec<Option<ProductionIncentiveValue>>,
    pub storage: Option<StorageCosts>,
    /// Σ_{y=1..N} ((1+e_fuel)/(1+d_o))^y: year-one generator fuel costs.
    pub pwf_fuel: f64,
    pub generator: Option<GeneratorCosts>,
    /// Off grid: present cost of the other capital costs after straight-line depreciation.
    pub offgrid_other_capital_after_depreciation: f64,
    /// Present-worth factors of each pollutant's grid emissions and costs (`Pollutant` order).
    pub emissions: [EmissionsPwf; 4],
    /// Business-as-usual lifecycle CO2 (lb) the reduction bounds compare with (None without a
    /// CO2 factor series).
    pub bau_lifecycle_co2_lb: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeneratorCosts {
    /// Net present $/kW of new capacity (MACRS and replacement included; no incentives).
    pub net_present_cost_per_kw: f64,
    /// Present value after tax of the replacement per kW (inside the net present cost).
    pub replacement_present_cost_per_kw: f64,
    /// $ present value per kWh produced: fuel on the fuel curve's slope (after the offtaker's
    /// tax) and variable O&M (after the owner's tax).
    pub cost_per_kwh: f64,
    /// Gallons per kWh: the fuel curve's slope.
    pub gallons_per_kwh: f64,
    /// $ present value per hour on: the fuel curve's intercept (after the offtaker's tax).
    pub cost_per_hour_on: f64,
}

/// A production-based incentive in present value before tax (REopt.jl
/// `production_incentive_constraints.jl`): `pwf · rate` per kWh of rated production (the
/// production factor times the size, curtailment included, not levelized), at most
/// `pwf · max_benefit`, and nothing when the whole size exceeds `max_kw`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProductionIncentiveValue {
    /// $ present value per kW of size: `pwf · rate · Δ Σ_t pf_t`.
    pub per_kw: f64,
    /// $ present value cap: `pwf · max_benefit`.
    pub cap: f64,
    /// The largest whole size (kW, existing included) that receives it.
    pub max_kw: f64,
}

impl ProductionIncentiveValue {
    /// Whether an array of `size_kw` (existing included) receives it (within the solver's
    /// feasibility tolerance).
    pub fn eligible(&self, size_kw: f64) -> bool {
        size_kw <= self.max_kw + 1e-6 * self.max_kw.abs().max(1.0)
    }

    /// The incentive of an array of `size_kw` (the LP's optimum for that size), before tax.
    pub fn value(&self, size_kw: f64) -> f64 {
        if self.eligible(size_kw) {
            (self.per_kw * size_kw).min(self.cap)
        } else {
            0.0
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PricedSegment {
    pub width_kw: f64,
    /// $/kW before any incentive (for initial capital costs).
    pub installed_cost_per_kw: f64,
    /// Net present $/kW after incentives, ITC and MACRS.
    pub net_present_cost_per_kw: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StorageCosts {
    pub net_present_cost_per_kw: f64,
    pub net_present_cost_per_kwh: f64,
    pub net_present_cost_constant: f64,
    /// Present value after tax of replacements per kW, per kWh and of the constant.
    pub replacement_present_cost_per_kw: f64,
    pub replacement_present_cost_per_kwh: f64,
    pub replacement_present_cost_constant: f64,
}

impl CostFactors {
    /// Computes every factor; fails only when incentives make a PV cost curve non-convex.
    pub fn new(model: &Model) -> Result<CostFactors, String> {
        let f = &model.financial;
        let pwf_e = finance::present_worth_factor(f.analysis_years, f.elec_cost_escalation_rate_fraction, f.offtaker_discount_rate_fraction);
        let tpf = third_party_factor(f);
        let pwf_om = tpf * finance::present_worth_factor(f.analysis_years, f.om_cost_escalation_rate_fraction, f.owner_discount_rate_fraction);
        let levelization: Vec<f64> = model
            .pvs
            .iter()
            .map(|pv| {
                finance::levelization_factor(f.analysis_years, f.elec_cost_escalation_rate_fraction, f.offtaker_discount_rate_fraction, pv.degradation_fraction)
            })
            .collect();
        let pv_segments = model.pvs.iter().map(|pv| pv_cost_curve(model, pv)).collect::<Result<_, _>>()?;
        let bau_lifecycle_co2_lb = emissions::bau_lifecycle_co2_lb(model, &levelization);
        let production_incentives = model.pvs.iter().map(|pv| production_incentive_value(model, pv)).collect();
        Ok(CostFactors {
            emissions: emissions::pollutant_pwfs(model),
            bau_lifecycle_co2_lb,
            pwf_e,
            pwf_om,
            third_party_factor: tpf,
            levelization,
            offtaker_after_tax: 1.0 - f.offtaker_tax_rate_fraction,
            owner_after_tax: 1.0 - f.owner_tax_rate_fraction,
            pv_segments,
            production_incentives,
            storage: model.storage.as_ref().map(|s| storage_costs(model, s)),
            pwf_fuel: finance::present_worth_factor(
                f.analysis_years,
                f.generator_fuel_cost_escalation_rate_fraction,
                f.offtaker_discount_rate_fraction,
            ),
            generator: model.generator.as_ref().map(|g| generator_costs(model, g)),
            offgrid_other_capital_after_depreciation: model.off_grid.as_ref().map_or(0.0, |o| {
                o.other_capital_costs
                    - finance::straight_line_depreciation_savings(
                        o.other_capital_costs,
                        f.owner_discount_rate_fraction,
                        f.analysis_years,
                        f.owner_tax_rate_fraction,
                    )
            }),
        })
    }

    /// $ present value per $ of year-one utility cost, after tax.
    pub fn utility_factor(&self) -> f64 {
        self.pwf_e * self.offtaker_after_tax
    }

    /// $ present value per $ of year-one O&M cost, after tax.
    pub fn om_factor(&self) -> f64 {
        self.pwf_om * self.owner_after_tax
    }

    /// $ present value per $ of the off-grid other annual costs, after tax: the owner's O&M
    /// factor without the third-party factor (the service does not weigh these by it).
    pub fn offgrid_annual_factor(&self) -> f64 {
        self.om_factor() / self.third_party_factor
    }
}

/// The third-party factor `pwf(d_o)·(1 − τ_o) / (pwf(d_w)·(1 − τ_w))`, 1 without third-party
/// ownership (REopt.jl `setup_present_worth_factors`).
pub fn third_party_factor(f: &Financial) -> f64 {
    if !f.third_party_ownership {
        return 1.0;
    }
    let offtaker = finance::present_worth_factor(f.analysis_years, 0.0, f.offtaker_discount_rate_fraction) * (1.0 - f.offtaker_tax_rate_fraction);
    let owner = finance::present_worth_factor(f.analysis_years, 0.0, f.owner_discount_rate_fraction) * (1.0 - f.owner_tax_rate_fraction);
    offtaker / owner
}

/// The tax treatment of a cost-curve technology (PV, Wind, the generator): no bonus without
/// MACRS.
fn tax_treatment(model: &Model, itc: f64, macrs_years: u32, bonus: f64, itc_reduction: f64) -> TaxTreatment {
    TaxTreatment {
        bonus_without_macrs: false,
        owner_discount_rate: model.financial.owner_discount_rate_fraction,
        owner_tax_rate: model.financial.owner_tax_rate_fraction,
        itc_fraction: itc,
        macrs_option_years: macrs_years,
        macrs_bonus_fraction: bonus,
        macrs_itc_reduction: itc_reduction,
    }
}

/// The utility's and the state's IBI and rebate of a technology (the cost curve's regions before
/// the federal one).
pub fn region_incentives(i: &PvIncentives) -> (RegionIncentive, RegionIncentive) {
    let utility = RegionIncentive {
        fraction: i.utility_ibi_fraction,
        fraction_cap: i.utility_ibi_max,
        rebate_per_kw: i.utility_rebate_per_kw,
        rebate_cap: i.utility_rebate_max,
    };
    let state = RegionIncentive {
        fraction: i.state_ibi_fraction,
        fraction_cap: i.state_ibi_max,
        rebate_per_kw: i.state_rebate_per_kw,
        rebate_cap: i.state_rebate_max,
    };
    (utility, state)
}

/// PV cost curve: utility then state incentives (capped ones add pieces), then the ITC, MACRS
/// and federal rebate on each piece's slope.
fn pv_cost_curve(model: &Model, pv: &Pv) -> Result<Vec<PricedSegment>, String> {
    let i = &pv.incentives;
    let (utility, state) = region_incentives(i);
    let tax = tax_treatment(model, i.federal_itc_fraction, i.macrs_option_years, i.macrs_bonus_fraction, i.macrs_itc_reduction);
    let tpf = third_party_factor(&model.financial);
    let pieces: Vec<CostSegment> = incentive_cost_segments(pv.installed_cost_per_kw, &utility, &state, pv.max_new_kw);
    let priced: Vec<PricedSegment> = pieces
        .iter()
        .map(|piece| PricedSegment {
            width_kw: piece.width_kw,
            installed_cost_per_kw: pv.installed_cost_per_kw,
            net_present_cost_per_kw: tpf
                * effective_cost(
                    finance::cost_curve_itc_basis(piece.pre_federal_cost_per_kw, i.federal_itc_fraction, i.federal_rebate_per_kw),
                    None,
                    &tax,
                    i.federal_rebate_per_kw,
                ),
        })
        .collect();
    if priced.windows(2).any(|w| w[1].net_present_cost_per_kw < w[0].net_present_cost_per_kw - 1e-9) {
        return Err(format!(
            "PV {}: incentive caps with these tax inputs give a non-convex cost curve, which a linear program cannot represent.",
            pv.name
        ));
    }
    Ok(priced)
}

/// $ present value before tax of a production-based incentive's $1 a year (the service's
/// `pbi_pwf · third_party_factor`; `degradation` for PV only).
pub fn production_incentive_present_worth(model: &Model, incentive: &ProductionIncentive, degradation: Option<f64>) -> f64 {
    third_party_factor(&model.financial) * finance::production_incentive_pwf(incentive.years, degradation, model.financial.owner_discount_rate_fraction)
}

/// An array's production-based incentive in present value (degradation counts for PV only,
/// as the service's `production_incentives` reads it from PV's fields).
fn production_incentive_value(model: &Model, pv: &Pv) -> Option<ProductionIncentiveValue> {
    let incentive = Some(&pv.production_incentive).filter(|incentive| incentive.applies())?;
    let degradation = (pv.kind == ArrayKind::Pv).then_some(pv.degradation_fraction);
    let pwf = production_incentive_present_worth(model, incentive, degradation);
    let kwh_per_kw = pv.production_factor.iter().sum::<f64>() * model.step_hours();
    Some(ProductionIncentiveValue { per_kw: pwf * incentive.per_kwh * kwh_per_kw, cap: pwf * incentive.max_benefit, max_kw: incentive.max_kw })
}

/// The generator's capital cost per kW (MACRS and replacement, no incentives, as the service
/// prices it) and its cost per kWh produced.
fn generator_costs(model: &Model, g: &Generator) -> GeneratorCosts {
    let f = &model.financial;
    let tax = tax_treatment(model, 0.0, g.macrs_option_years, g.macrs_bonus_fraction, g.macrs_itc_reduction);
    let replacement = (g.replacement_year < f.analysis_years).then_some(Replacement { cost: g.replace_cost_per_kw, year: g.replacement_year });
    let pwf_fuel = finance::present_worth_factor(f.analysis_years, f.generator_fuel_cost_escalation_rate_fraction, f.offtaker_discount_rate_fraction);
    let tpf = third_party_factor(f);
    let pwf_om = tpf * finance::present_worth_factor(f.analysis_years, f.om_cost_escalation_rate_fraction, f.owner_discount_rate_fraction);
    let fuel_factor = pwf_fuel * (1.0 - f.offtaker_tax_rate_fraction) * g.fuel_cost_per_gallon;
    GeneratorCosts {
        net_present_cost_per_kw: tpf * effective_cost(finance::cost_curve_itc_basis(g.installed_cost_per_kw, 0.0, 0.0), replacement, &tax, 0.0),
        replacement_present_cost_per_kw: replacement
            .map_or(0.0, |r| r.cost * (1.0 - tax.owner_tax_rate) / (1.0 + tax.owner_discount_rate).powi(r.year as i32)),
        cost_per_kwh: fuel_factor * g.fuel_slope_gal_per_kwh + pwf_om * (1.0 - f.owner_tax_rate_fraction) * g.om_cost_per_kwh,
        gallons_per_kwh: g.fuel_slope_gal_per_kwh,
        cost_per_hour_on: fuel_factor * g.fuel_intercept_gal_per_hour,
    }
}

fn storage_costs(model: &Model, s: &Storage) -> StorageCosts {
    let tax = TaxTreatment {
        bonus_without_macrs: true,
        ..tax_treatment(model, s.total_itc_fraction, s.macrs_option_years, s.macrs_bonus_fraction, s.macrs_itc_reduction)
    };
    let years = model.financial.analysis_years;
    let replacement = |cost: f64, year: u32| (year < years).then_some(Replacement { cost, year });
    let replacement_pv = |r: Option<Replacement>| {
        r.map_or(0.0, |r| {
            r.cost * (1.0 - tax.owner_tax_rate) / (1.0 + tax.owner_discount_rate).powi(r.year as i32)
        })
    };
    let kw_replacement = replacement(s.replace_cost_per_kw, s.inverter_replacement_year);
    let kwh_replacement = replacement(s.replace_cost_per_kwh, s.battery_replacement_year);
    let constant_replacement = replacement(s.replace_cost_constant, s.cost_constant_replacement_year);
    let tpf = third_party_factor(&model.financial);
    StorageCosts {
        net_present_cost_per_kw: tpf * effective_cost(s.installed_cost_per_kw, kw_replacement, &tax, s.total_rebate_per_kw),
        net_present_cost_per_kwh: tpf * (effective_cost(s.installed_cost_per_kwh, kwh_replacement, &tax, 0.0) - s.total_rebate_per_kwh),
        net_present_cost_constant: if s.has_cost_constant() {
            tpf * effective_cost(s.installed_cost_constant, constant_replacement, &tax, 0.0)
        } else {
            0.0
        },
        replacement_present_cost_per_kw: replacement_pv(kw_replacement),
        replacement_present_cost_per_kwh: replacement_pv(kwh_replacement),
        replacement_present_cost_constant: if s.has_cost_constant() { replacement_pv(constant_replacement) } else { 0.0 },
    }
}

/// Off grid: the other annual costs (after the owner's tax) and other capital costs (after
/// depreciation), fixed terms of the lifecycle cost.
pub(super) fn offgrid_constant_costs(model: &Model, factors: &CostFactors) -> f64 {
    model.off_grid.as_ref().map_or(0.0, |o| o.other_annual_costs * factors.offgrid_annual_factor() + factors.offgrid_other_capital_after_depreciation)
}

/// Present-worth factors of a burner's fuel: Σ_{y=1..N} ((1+e_fuel)/(1+d_o))^y.
pub fn fuel_present_worth(model: &Model, burner: &FuelBurner) -> f64 {
    let f = &model.financial;
    finance::present_worth_factor(f.analysis_years, burner.fuel_escalation, f.offtaker_discount_rate_fraction)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::optimizer::model::from_scenario;

    /// Storage and a generator without tax incentives or replacements under third-party
    /// ownership: their net present costs are the installed costs times the third-party factor,
    /// the generator's variable O&M per kWh carries it too, its fuel does not.
    #[test]
    fn the_owners_storage_and_generator_costs_carry_the_third_party_factor() {
        let scenario = json!({
            "Site": {"latitude": 40.0, "longitude": -105.0},
            "Financial": {"third_party_ownership": true, "analysis_years": 20, "offtaker_discount_rate_fraction": 0.05,
                          "offtaker_tax_rate_fraction": 0.1, "owner_discount_rate_fraction": 0.09, "owner_tax_rate_fraction": 0.3},
            "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 87600.0},
            "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 10.0},
            "ElectricStorage": {"installed_cost_per_kw": 300.0, "installed_cost_per_kwh": 200.0, "installed_cost_constant": 0.0,
                                "replace_cost_per_kw": 0.0, "replace_cost_per_kwh": 0.0, "replace_cost_constant": 0.0,
                                "macrs_option_years": 0, "macrs_bonus_fraction": 0.0, "total_itc_fraction": 0.0},
            "Generator": {"max_kw": 50, "installed_cost_per_kw": 500.0, "replace_cost_per_kw": 0.0, "macrs_option_years": 0,
                          "om_cost_per_kwh": 0.02, "fuel_cost_per_gallon": 0.0},
        });
        let model = from_scenario(&scenario, &[]).unwrap();
        let factors = CostFactors::new(&model).unwrap();
        let pwf = |d: f64| finance::present_worth_factor(20, 0.0, d);
        let tpf = pwf(0.05) * 0.9 / (pwf(0.09) * 0.7);
        assert!((factors.third_party_factor - tpf).abs() < 1e-12);
        let storage = factors.storage.unwrap();
        assert!((storage.net_present_cost_per_kw - tpf * 300.0).abs() < 1e-3);
        assert!((storage.net_present_cost_per_kwh - tpf * 200.0).abs() < 1e-3);
        let generator = factors.generator.unwrap();
        assert!((generator.net_present_cost_per_kw - tpf * 500.0).abs() < 1e-3);
        let om_pwf = finance::present_worth_factor(20, model.financial.om_cost_escalation_rate_fraction, 0.09);
        assert!((generator.cost_per_kwh - tpf * om_pwf * 0.7 * 0.02).abs() < 1e-9);
        assert!((factors.pwf_om - tpf * om_pwf).abs() < 1e-9);
    }
}

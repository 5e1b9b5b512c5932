//! Reads `Financial`: the analysis period, escalation rates, the offtaker's rates and, under
//! third-party ownership, the owner's (developer's) rates, and the capital-cost bounds.
//!
//! As the service (REopt.jl 0.56.4 `src/core/financial.jl`): without third-party ownership the
//! owner is the offtaker and the owner's rates are overwritten with the offtaker's whatever was
//! given; with it, null owner rates take their sector defaults. Null rates take the defaults of
//! the site's sector (`sector_inputs`), `third_party_ownership` too (federal procurement types
//! with a third party default it to true).

use serde_json::Value;

use super::{CapexBounds, FilledDefault, Financial, Reader};

impl Reader<'_> {
    pub(super) fn read_financial(&mut self) -> Financial {
        let map = self.section("Financial").unwrap_or(self.empty);
        let s = "Financial";
        let sd = self.sector;
        let third_party_ownership = self.flag_or(map, s, "third_party_ownership", sd.third_party_ownership);
        if map.get("third_party_ownership").is_none_or(Value::is_null) {
            self.filled.push(FilledDefault::new(s, "third_party_ownership", Value::from(third_party_ownership)));
        }
        let offtaker_discount = self.filled_number(map, s, "offtaker_discount_rate_fraction", sd.offtaker_discount);
        let offtaker_tax = self.filled_number(map, s, "offtaker_tax_rate_fraction", sd.offtaker_tax);
        let (owner_discount, owner_tax) = if third_party_ownership {
            (
                self.filled_number(map, s, "owner_discount_rate_fraction", sd.owner_discount),
                self.filled_number(map, s, "owner_tax_rate_fraction", sd.owner_tax),
            )
        } else {
            for (field, value) in [("owner_discount_rate_fraction", offtaker_discount), ("owner_tax_rate_fraction", offtaker_tax)] {
                self.filled.push(FilledDefault::forced(s, field, Value::from(value)));
            }
            (offtaker_discount, offtaker_tax)
        };
        Financial {
            analysis_years: self.count(map, s, "analysis_years").max(1),
            third_party_ownership,
            elec_cost_escalation_rate_fraction: self.filled_number(map, s, "elec_cost_escalation_rate_fraction", sd.elec_cost_escalation),
            om_cost_escalation_rate_fraction: self.filled_number(map, s, "om_cost_escalation_rate_fraction", sd.om_cost_escalation),
            offtaker_discount_rate_fraction: offtaker_discount,
            offtaker_tax_rate_fraction: offtaker_tax,
            owner_discount_rate_fraction: owner_discount,
            owner_tax_rate_fraction: owner_tax,
            generator_fuel_cost_escalation_rate_fraction: self.filled_number(
                map,
                s,
                "generator_fuel_cost_escalation_rate_fraction",
                sd.generator_fuel_escalation,
            ),
        }
    }

    pub(super) fn read_capex_bounds(&mut self) -> CapexBounds {
        let map = self.section("Financial").unwrap_or(self.empty);
        CapexBounds {
            min: self.number_in(map, "Financial", "min_initial_capital_costs_before_incentives"),
            max: self.number_in(map, "Financial", "max_initial_capital_costs_before_incentives"),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{from_scenario, sector_defaults};

    fn scenario(financial: serde_json::Value) -> serde_json::Value {
        json!({
            "Site": {"latitude": 40.0, "longitude": -105.0},
            "Financial": financial,
            "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 87600.0},
            "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 10.0},
        })
    }

    #[test]
    fn the_owners_rates_are_the_offtakers_unless_a_third_party_owns() {
        let given = json!({"offtaker_discount_rate_fraction": 0.05, "owner_discount_rate_fraction": 0.09, "owner_tax_rate_fraction": 0.1});
        let direct = from_scenario(&scenario(given.clone()), &[]).unwrap().financial;
        assert_eq!((direct.owner_discount_rate_fraction, direct.owner_tax_rate_fraction), (0.05, sector_defaults::OFFTAKER_TAX));
        let mut third_party = given;
        third_party["third_party_ownership"] = json!(true);
        let owned = from_scenario(&scenario(third_party), &[]).unwrap().financial;
        assert!(owned.third_party_ownership);
        assert_eq!((owned.owner_discount_rate_fraction, owned.owner_tax_rate_fraction), (0.09, 0.1));
        let model = from_scenario(&scenario(json!({"third_party_ownership": true})), &[]).unwrap();
        assert_eq!(model.financial.owner_discount_rate_fraction, sector_defaults::OWNER_DISCOUNT);
        let direct = from_scenario(&scenario(json!({})), &[]).unwrap();
        assert!(direct.filled_defaults.iter().any(|f| f.field == "third_party_ownership" && f.value == json!(false)));
        assert!(model.filled_defaults.iter().any(|f| f.field == "owner_tax_rate_fraction" && f.value == json!(sector_defaults::OWNER_TAX)));
    }
}

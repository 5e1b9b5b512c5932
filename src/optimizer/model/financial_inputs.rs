//! Reads `Financial`: the analysis period, escalation rates, the offtaker's rates and, under
//! third-party ownership, the owner's (developer's) rates, and the capital-cost bounds.
//!
//! As the service (REopt.jl 0.56.4 `src/core/financial.jl`): without third-party ownership the
//! owner is the offtaker and the owner's rates are overwritten with the offtaker's whatever was
//! given; with it, null owner rates take their sector defaults.

use serde_json::Value;

use super::{sector_defaults as sd, CapexBounds, FilledDefault, Financial, Reader};

impl Reader<'_> {
    pub(super) fn read_financial(&mut self) -> Financial {
        let map = self.section("Financial").unwrap_or(self.empty);
        let s = "Financial";
        let third_party_ownership = self.flag_or(map, s, "third_party_ownership", false);
        let offtaker_discount = self.filled_number(map, s, "offtaker_discount_rate_fraction", sd::OFFTAKER_DISCOUNT);
        let offtaker_tax = self.filled_number(map, s, "offtaker_tax_rate_fraction", sd::OFFTAKER_TAX);
        let (owner_discount, owner_tax) = if third_party_ownership {
            (
                self.filled_number(map, s, "owner_discount_rate_fraction", sd::OWNER_DISCOUNT),
                self.filled_number(map, s, "owner_tax_rate_fraction", sd::OWNER_TAX),
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
            elec_cost_escalation_rate_fraction: self.filled_number(map, s, "elec_cost_escalation_rate_fraction", sd::ELEC_COST_ESCALATION),
            om_cost_escalation_rate_fraction: self.filled_number(map, s, "om_cost_escalation_rate_fraction", sd::OM_COST_ESCALATION),
            offtaker_discount_rate_fraction: offtaker_discount,
            offtaker_tax_rate_fraction: offtaker_tax,
            owner_discount_rate_fraction: owner_discount,
            owner_tax_rate_fraction: owner_tax,
            generator_fuel_cost_escalation_rate_fraction: self.filled_number(
                map,
                s,
                "generator_fuel_cost_escalation_rate_fraction",
                sd::GENERATOR_FUEL_ESCALATION,
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

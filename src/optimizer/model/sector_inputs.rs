//! The sector defaults: what the service fills for null Financial rates and technology tax
//! incentives, by `Site.sector` and, for the federal sector, `Site.federal_procurement_type` and
//! the NIST escalation region of `Site.federal_sector_state`.
//!
//! The numbers are facts of the service (REopt.jl 0.56.4 `data/sector_dependent_defaults.json`,
//! read by `get_sector_defaults` in `src/core/utils.jl`; the state → region table is that
//! file's `get_NIST_EERC_rate_region` and `state_name_to_abbr`). An unknown or empty state takes
//! the national average, as the service (which warns).

use serde_json::Value;

use super::{sector_defaults as commercial, Reader};

/// Tax-incentive defaults of one technology.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IncentiveDefaults {
    pub macrs_option_years: u32,
    pub macrs_bonus_fraction: f64,
    /// PV and Wind: `federal_itc_fraction`; storage: `total_itc_fraction`.
    pub itc_fraction: f64,
}

/// Every default the sector decides, for the sections this optimizer reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SectorDefaults {
    pub om_cost_escalation: f64,
    pub elec_cost_escalation: f64,
    /// Both boilers' fuel escalation (the service's table gives them the same values).
    pub boiler_fuel_escalation: f64,
    pub generator_fuel_escalation: f64,
    pub offtaker_tax: f64,
    pub offtaker_discount: f64,
    pub third_party_ownership: bool,
    pub owner_tax: f64,
    pub owner_discount: f64,
    pub pv: IncentiveDefaults,
    pub wind: IncentiveDefaults,
    pub storage: IncentiveDefaults,
}

/// The NIST energy escalation regions of the federal defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EscalationRegion {
    West,
    Midwest,
    South,
    Northeast,
    National,
}

/// `Site.federal_procurement_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FederalProcurement {
    /// Federally owned, direct purchase: no taxes, no incentives, no third party.
    OwnedDirectPurchase,
    /// Federally owned, third-party financed: a taxed owner without tax incentives.
    OwnedThirdParty,
    /// Privately owned, third party: the owner takes MACRS and the ITC.
    PrivateThirdParty,
}

impl FederalProcurement {
    pub fn parse(text: &str) -> Option<FederalProcurement> {
        match text {
            "fedowned_dirpurch" => Some(FederalProcurement::OwnedDirectPurchase),
            "fedowned_thirdparty" => Some(FederalProcurement::OwnedThirdParty),
            "privateowned_thirdparty" => Some(FederalProcurement::PrivateThirdParty),
            _ => None,
        }
    }
}

const NO_INCENTIVES: IncentiveDefaults = IncentiveDefaults { macrs_option_years: 0, macrs_bonus_fraction: 0.0, itc_fraction: 0.0 };
const FULL_INCENTIVES: IncentiveDefaults = IncentiveDefaults { macrs_option_years: 5, macrs_bonus_fraction: 1.0, itc_fraction: 0.3 };

impl SectorDefaults {
    /// The commercial/industrial sector (the schema's default sector).
    pub const COMMERCIAL: SectorDefaults = SectorDefaults {
        om_cost_escalation: commercial::OM_COST_ESCALATION,
        elec_cost_escalation: commercial::ELEC_COST_ESCALATION,
        boiler_fuel_escalation: commercial::BOILER_FUEL_ESCALATION,
        generator_fuel_escalation: commercial::GENERATOR_FUEL_ESCALATION,
        offtaker_tax: commercial::OFFTAKER_TAX,
        offtaker_discount: commercial::OFFTAKER_DISCOUNT,
        third_party_ownership: false,
        owner_tax: commercial::OWNER_TAX,
        owner_discount: commercial::OWNER_DISCOUNT,
        pv: IncentiveDefaults { macrs_option_years: commercial::MACRS_OPTION_YEARS, macrs_bonus_fraction: commercial::MACRS_BONUS_FRACTION, itc_fraction: commercial::PV_FEDERAL_ITC },
        wind: IncentiveDefaults { macrs_option_years: commercial::MACRS_OPTION_YEARS, macrs_bonus_fraction: commercial::MACRS_BONUS_FRACTION, itc_fraction: commercial::WIND_FEDERAL_ITC },
        storage: IncentiveDefaults { macrs_option_years: commercial::MACRS_OPTION_YEARS, macrs_bonus_fraction: commercial::MACRS_BONUS_FRACTION, itc_fraction: commercial::STORAGE_TOTAL_ITC },
    };

    /// The federal sector's defaults for a procurement type and escalation region.
    pub fn federal(procurement: FederalProcurement, region: EscalationRegion) -> SectorDefaults {
        use EscalationRegion::*;
        let (elec, boiler_fuel, generator_fuel) = match region {
            West => (-0.00088, 0.01022, -0.00813),
            Midwest => (0.00397, 0.00387, -0.011),
            South => (0.00468, 0.0112, -0.00807),
            Northeast => (0.01077, -0.00184, -0.0094),
            National => (0.00415, 0.00581, -0.00918),
        };
        let third_party = procurement != FederalProcurement::OwnedDirectPurchase;
        let incentives = if procurement == FederalProcurement::PrivateThirdParty { FULL_INCENTIVES } else { NO_INCENTIVES };
        SectorDefaults {
            om_cost_escalation: 0.012,
            elec_cost_escalation: elec,
            boiler_fuel_escalation: boiler_fuel,
            generator_fuel_escalation: generator_fuel,
            offtaker_tax: 0.0,
            offtaker_discount: 0.042,
            third_party_ownership: third_party,
            owner_tax: if third_party { 0.26 } else { 0.0 },
            owner_discount: if third_party { 0.0624 } else { 0.042 },
            pv: incentives,
            wind: incentives,
            storage: incentives,
        }
    }
}

/// The NIST escalation region of a state given by name or two-letter abbreviation (National
/// when unknown or empty).
pub fn escalation_region(state: &str) -> EscalationRegion {
    use EscalationRegion::*;
    const STATES: [(&str, &str, EscalationRegion); 51] = [
        ("WA", "Washington", West), ("OR", "Oregon", West), ("CA", "California", West), ("AK", "Alaska", West),
        ("HI", "Hawaii", West), ("NV", "Nevada", West), ("ID", "Idaho", West), ("UT", "Utah", West),
        ("AZ", "Arizona", West), ("MT", "Montana", West), ("WY", "Wyoming", West), ("CO", "Colorado", West),
        ("NM", "New Mexico", West),
        ("ND", "North Dakota", Midwest), ("SD", "South Dakota", Midwest), ("NE", "Nebraska", Midwest), ("KS", "Kansas", Midwest),
        ("MN", "Minnesota", Midwest), ("IA", "Iowa", Midwest), ("MO", "Missouri", Midwest), ("WI", "Wisconsin", Midwest),
        ("IL", "Illinois", Midwest), ("IN", "Indiana", Midwest), ("OH", "Ohio", Midwest), ("MI", "Michigan", Midwest),
        ("LA", "Louisiana", South), ("TX", "Texas", South), ("OK", "Oklahoma", South), ("AR", "Arkansas", South),
        ("KY", "Kentucky", South), ("TN", "Tennessee", South), ("AL", "Alabama", South), ("MS", "Mississippi", South),
        ("NC", "North Carolina", South), ("SC", "South Carolina", South), ("GA", "Georgia", South), ("FL", "Florida", South),
        ("WV", "West Virginia", South), ("VA", "Virginia", South), ("MD", "Maryland", South), ("DE", "Delaware", South),
        ("DC", "District of Columbia", South),
        ("NJ", "New Jersey", Northeast), ("NY", "New York", Northeast), ("PA", "Pennsylvania", Northeast),
        ("CT", "Connecticut", Northeast), ("RI", "Rhode Island", Northeast), ("MA", "Massachusetts", Northeast),
        ("NH", "New Hampshire", Northeast), ("ME", "Maine", Northeast), ("VT", "Vermont", Northeast),
    ];
    STATES.iter().find(|(abbr, name, _)| *abbr == state || *name == state).map_or(National, |(_, _, region)| *region)
}

impl Reader<'_> {
    /// The sector defaults of the scenario's `Site`.
    pub(super) fn read_sector(&mut self) -> SectorDefaults {
        let site = self.section("Site").unwrap_or(self.empty);
        if site.get("sector").and_then(Value::as_str) != Some("federal") {
            return SectorDefaults::COMMERCIAL;
        }
        let procurement = site.get("federal_procurement_type").and_then(Value::as_str).unwrap_or("");
        let Some(procurement) = FederalProcurement::parse(procurement) else {
            self.invalid.push("If sector is federal, must provide federal_procurement_type.".into());
            return SectorDefaults::COMMERCIAL;
        };
        let state = site.get("federal_sector_state").and_then(Value::as_str).unwrap_or("");
        SectorDefaults::federal(procurement, escalation_region(state))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_by_name_or_abbreviation_and_the_national_average_otherwise() {
        assert_eq!(escalation_region("CA"), EscalationRegion::West);
        assert_eq!(escalation_region("District of Columbia"), EscalationRegion::South);
        assert_eq!(escalation_region(""), EscalationRegion::National);
        assert_eq!(escalation_region("Puerto Rico"), EscalationRegion::National);
    }
}

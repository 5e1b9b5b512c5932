//! The load endpoint's `load_type`s: which parameters each takes (the service refuses the
//! others: REopt.jl `src/core/simulated_load.jl` at 029db01d rejects keys with `_mmbtu`, `_ton`
//! or `_fraction` for electric loads, `_kw` or `_ton` for heating loads and `_kw` or `_mmbtu`
//! for cooling; we refuse, by name, the parameters a type would silently ignore too), the names
//! they read, and the units of their energy and answer.

use super::BUILDING_TYPES;

/// What the endpoint profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadType {
    Electric,
    /// Space heating plus domestic hot water, split as the reference buildings split them.
    Heating,
    Cooling,
    SpaceHeating,
    DomesticHotWater,
    ProcessHeat,
}

/// The industrial reference types of `load_type=process_heat` (the service's
/// `DEFAULT_PROCESS_TYPES`).
pub const PROCESS_TYPES: [&str; 8] = ["Chemical", "Warehouse", "FlatLoad", "FlatLoad_24_5", "FlatLoad_16_7", "FlatLoad_16_5", "FlatLoad_8_7", "FlatLoad_8_5"];

/// Every optional parameter whose acceptance depends on the load type, as the query names it
/// (`industrial_reference_name` is process heat's name for `doe_reference_name`).
pub const TYPED_PARAMETERS: [&str; 14] = [
    "annual_kwh",
    "monthly_totals_kwh",
    "annual_mmbtu",
    "monthly_mmbtu",
    "annual_tonhour",
    "monthly_tonhour",
    "annual_fraction",
    "monthly_fraction",
    "addressable_load_fraction",
    "boiler_efficiency",
    "chiller_cop",
    "industrial_reference_name",
    "time_steps_per_hour",
    "cooling_doe_ref_name",
];

impl LoadType {
    pub const ALL: [LoadType; 6] =
        [LoadType::Electric, LoadType::Heating, LoadType::Cooling, LoadType::SpaceHeating, LoadType::DomesticHotWater, LoadType::ProcessHeat];

    pub fn name(self) -> &'static str {
        match self {
            LoadType::Electric => "electric",
            LoadType::Heating => "heating",
            LoadType::Cooling => "cooling",
            LoadType::SpaceHeating => "space_heating",
            LoadType::DomesticHotWater => "domestic_hot_water",
            LoadType::ProcessHeat => "process_heat",
        }
    }

    pub fn from_name(name: &str) -> Option<LoadType> {
        LoadType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The query's names of the annual and monthly energy.
    pub fn energy_parameters(self) -> (&'static str, &'static str) {
        match self {
            LoadType::Electric => ("annual_kwh", "monthly_totals_kwh"),
            LoadType::Cooling => ("annual_tonhour", "monthly_tonhour"),
            _ => ("annual_mmbtu", "monthly_mmbtu"),
        }
    }

    /// The query's name of the reference building.
    pub fn name_parameter(self) -> &'static str {
        if self == LoadType::ProcessHeat { "industrial_reference_name" } else { "doe_reference_name" }
    }

    /// The reference names this type takes.
    pub fn reference_names(self) -> &'static [&'static str] {
        if self == LoadType::ProcessHeat { &PROCESS_TYPES } else { &BUILDING_TYPES }
    }

    /// Whether `parameter` (one of `TYPED_PARAMETERS`) applies to this type.
    pub fn takes(self, parameter: &str) -> bool {
        let (annual, monthly) = self.energy_parameters();
        parameter == annual
            || parameter == monthly
            || match self {
                LoadType::Electric => ["time_steps_per_hour", "cooling_doe_ref_name"].contains(&parameter),
                LoadType::Cooling => ["annual_fraction", "monthly_fraction", "chiller_cop"].contains(&parameter),
                _ => ["addressable_load_fraction", "boiler_efficiency"].contains(&parameter),
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_takes_its_own_energy_and_names() {
        for load_type in LoadType::ALL {
            assert_eq!(LoadType::from_name(load_type.name()), Some(load_type));
            let (annual, monthly) = load_type.energy_parameters();
            assert!(load_type.takes(annual) && load_type.takes(monthly));
        }
        assert!(!LoadType::Electric.takes("annual_mmbtu") && !LoadType::Heating.takes("annual_tonhour") && !LoadType::Cooling.takes("boiler_efficiency"));
        assert!(LoadType::ProcessHeat.reference_names().contains(&"Chemical") && !LoadType::SpaceHeating.reference_names().contains(&"Chemical"));
        assert_eq!(LoadType::from_name("steam"), None);
    }
}

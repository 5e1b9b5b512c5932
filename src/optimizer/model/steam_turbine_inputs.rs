//! SteamTurbine read into typed inputs (REopt.jl `src/core/steam_turbine.jl` and
//! `setup_steam_turbine_inputs` of `src/core/reopt_inputs.jl`): a back-pressure (or condensing)
//! turbine fed with steam by the boilers, CHP, the electric heater and the hot storages that may
//! supply it (`can_supply_steam_turbine`), making
//! electricity and, from its exhaust, heat for the heating loads or the hot storages.
//!
//! Units: kW electric for the size; the two ratios are kWh out per kWh of steam heat consumed.
//! A ratio not given comes from the steam conditions (`steam_turbine_cycle`, the conditions not
//! given from the size class). The installed and variable O&M costs default by size class
//! (`SIZE_CLASS_DEFAULTS`); the class comes from the average boiler fuel load when not given. The capital cost takes MACRS (5 or 7 years, owner's rates)
//! and no ITC.
//!
//! Refused by name: wasted turbine heat, capital cost bounds, the ASHPs supplying the turbine, a
//! turbine that may serve none of the heating loads given, exports, curtailment and production
//! incentives of the turbine. Its heat serves the loads its `can_serve_*` flags allow (`serves`).

use serde_json::Map;
use serde_json::Value;

use super::sector_defaults::{MACRS_BONUS_FRACTION, MACRS_OPTION_YEARS};
use super::{Financial, Heating, HeatingLoadKind, Reader, KWH_PER_MMBTU};
use super::steam_turbine_cycle::{InletTemperature, SteamConditions, SIZE_CLASS_CONDITIONS};
use super::thermal_inputs::macrs_only_cost;

/// Installed $ per kW and variable O&M $ per kWh by size class 0–3 (REopt.jl
/// `data/steam_turbine/steam_turbine_default_data.json`, commit 029db01d).
pub const SIZE_CLASS_DEFAULTS: [(f64, f64); 4] = [(828.0, 0.0083), (1136.0, 0.01), (682.0, 0.009), (666.0, 0.006)];

/// The service's typical turbine kW electric per kW of boiler fuel, which picks the size class
/// from the average boiler fuel load (REopt.jl `get_steam_turbine_defaults_size_class`).
const ELECTRIC_PER_FUEL: f64 = 0.07;
/// Upper kW bounds of classes 1 and 2 (class 3 above), the same function's `class_bounds`.
const CLASS_UPPER_KW: [f64; 2] = [1000.0, 5000.0];

#[derive(Debug, Clone, PartialEq)]
pub struct SteamTurbine {
    pub size_class: usize,
    /// Electric size bounds (kW).
    pub min_kw: f64,
    pub max_kw: f64,
    /// kWh electric and kWh heat out per kWh of steam heat in.
    pub electric_per_thermal: f64,
    pub thermal_per_thermal: f64,
    /// $ per kW before incentives, and net present $ per kW after MACRS.
    pub installed_cost_per_kw: f64,
    pub net_present_cost_per_kw: f64,
    pub macrs_option_years: u32,
    pub macrs_bonus_fraction: f64,
    /// $ per kW-year and $ per kWh of electricity.
    pub om_cost_per_kw: f64,
    pub om_cost_per_kwh: f64,
    /// Its heat goes to the hot-water tank only.
    pub charge_storage_only: bool,
    /// Which boilers may feed it steam.
    pub existing_boiler_supplies: bool,
    pub boiler_supplies: bool,
    /// Whether the heat of CHP, the electric heater and CST may feed it (their
    /// `can_supply_steam_turbine`, false by default).
    pub chp_supplies: bool,
    pub electric_heater_supplies: bool,
    pub cst_supplies: bool,
    /// The heating loads given its heat may serve (its `can_serve_*` flags).
    pub serves: Vec<HeatingLoadKind>,
}

/// The size class of an average boiler fuel load (MMBtu/h), or class 0 without one.
pub fn size_class_of_fuel_load(average_mmbtu_per_hour: Option<f64>) -> usize {
    let Some(fuel) = average_mmbtu_per_hour else { return 0 };
    let heuristic_kw = fuel * KWH_PER_MMBTU * ELECTRIC_PER_FUEL;
    if heuristic_kw < CLASS_UPPER_KW[0] {
        1
    } else if heuristic_kw >= CLASS_UPPER_KW[1] {
        3
    } else {
        2
    }
}

impl Reader<'_> {
    pub(super) fn read_steam_turbine(&mut self, heating: Option<&Heating>, financial: &Financial) -> Option<SteamTurbine> {
        let s = "SteamTurbine";
        let map = self.section(s)?;
        let Some(heating) = heating else {
            // A heating load given but not read here is refused by its own name.
            let load_given = HeatingLoadKind::ALL.iter().any(|kind| self.section(kind.section()).is_some());
            if !load_given || self.unsupported.is_empty() {
                self.unsupported.push("SteamTurbine without a heating load (no boiler to feed it steam)".into());
            }
            return None;
        };
        self.refuse_turbine_options(map);
        let size_class = match self.number_in(map, s, "size_class") {
            Some(class) if (0.0..=3.0).contains(&class) && class.fract() == 0.0 => class as usize,
            Some(class) => {
                self.invalid.push(format!("Invalid size_class {class} given for steam_turbine, must be in [0,1,2,3]"));
                return None;
            }
            None => {
                let fuel = heating_average_fuel_mmbtu_per_hour(heating);
                let class = size_class_of_fuel_load(Some(fuel));
                self.filled.push(super::FilledDefault::new(s, "size_class", Value::from(class)));
                class
            }
        };
        let (electric_per_thermal, thermal_per_thermal) = self.turbine_ratios(map, size_class)?;
        let (class_cost, class_om) = SIZE_CLASS_DEFAULTS[size_class];
        let installed_cost_per_kw = self.filled_number(map, s, "installed_cost_per_kw", class_cost);
        let macrs_option_years = self.filled_count(map, s, "macrs_option_years", MACRS_OPTION_YEARS);
        let macrs_bonus_fraction = self.filled_number(map, s, "macrs_bonus_fraction", MACRS_BONUS_FRACTION);
        if ![0, 5, 7].contains(&macrs_option_years) {
            self.invalid.push("SteamTurbine macrs_option_years must be 0, 5, or 7.".into());
        }
        let net_present_cost_per_kw = macrs_only_cost(installed_cost_per_kw, financial, macrs_option_years, macrs_bonus_fraction);
        let existing_boiler_supplies = self.section("ExistingBoiler").is_some_and(|m| self.flag(m, "ExistingBoiler", "can_supply_steam_turbine"));
        let boiler_supplies = heating.boiler.is_some() && self.section("Boiler").is_some_and(|m| self.flag(m, "Boiler", "can_supply_steam_turbine"));
        let chp_supplies = self.section("CHP").is_some_and(|m| self.flag_or(m, "CHP", "can_supply_steam_turbine", false));
        let electric_heater_supplies = self.section("ElectricHeater").is_some_and(|m| self.flag_or(m, "ElectricHeater", "can_supply_steam_turbine", false));
        let cst_supplies = self.section("CST").is_some_and(|m| self.flag(m, "CST", "can_supply_steam_turbine"));
        let storage_supplies = heating.hot_storages.iter().any(|b| b.can_supply_steam_turbine);
        if !existing_boiler_supplies && !boiler_supplies && !chp_supplies && !electric_heater_supplies && !cst_supplies && !storage_supplies {
            self.invalid.push("Steam turbine is present, but set p.techs.can_supply_steam_turbine is empty and no storage is compatible with steam turbine.".into());
        }
        let serves = self.served_heating_loads(map, s, heating)?;
        Some(SteamTurbine {
            size_class,
            min_kw: self.number(map, s, "min_kw"),
            max_kw: self.number(map, s, "max_kw"),
            electric_per_thermal,
            thermal_per_thermal,
            installed_cost_per_kw,
            net_present_cost_per_kw,
            macrs_option_years,
            macrs_bonus_fraction,
            om_cost_per_kw: self.number(map, s, "om_cost_per_kw"),
            om_cost_per_kwh: self.filled_number(map, s, "om_cost_per_kwh", class_om),
            charge_storage_only: self.flag_or(map, s, "charge_storage_only", false),
            existing_boiler_supplies,
            boiler_supplies,
            chp_supplies,
            electric_heater_supplies,
            cst_supplies,
            serves,
        })
    }

    /// The two ratios as given, or as the service computes them from the steam conditions
    /// (REopt.jl `SteamTurbine`'s defaults loop and `assign_st_elec_and_therm_prod_ratios!`).
    fn turbine_ratios(&mut self, map: &Map<String, Value>, size_class: usize) -> Option<(f64, f64)> {
        let s = "SteamTurbine";
        let (e, h) = ("electric_produced_to_thermal_consumed_ratio", "thermal_produced_to_thermal_consumed_ratio");
        let given = (self.number_in(map, s, e), self.number_in(map, s, h));
        if let (Some(electric), Some(thermal)) = given {
            return Some((electric, thermal));
        }
        let class = SIZE_CLASS_CONDITIONS[size_class];
        let inlet_temperature = match self.number_in(map, s, "inlet_steam_temperature_degF") {
            Some(degf) => InletTemperature::Degf(degf),
            None => InletTemperature::SuperheatDegf(self.number(map, s, "inlet_steam_superheat_degF")),
        };
        let conditions = SteamConditions {
            inlet_pressure_psig: self.filled_number(map, s, "inlet_steam_pressure_psig", class.inlet_pressure_psig),
            inlet_temperature,
            outlet_pressure_psig: self.filled_number(map, s, "outlet_steam_pressure_psig", class.outlet_pressure_psig),
            isentropic_efficiency: self.filled_number(map, s, "isentropic_efficiency", class.isentropic_efficiency),
            gearbox_generator_efficiency: self.filled_number(map, s, "gearbox_generator_efficiency", class.gearbox_generator_efficiency),
            net_to_gross_electric_ratio: self.filled_number(map, s, "net_to_gross_electric_ratio", class.net_to_gross_electric_ratio),
            is_condensing: self.flag_or(map, s, "is_condensing", false),
        };
        let Some(cycle) = conditions.ratios() else {
            self.unsupported.push(format!(
                "{s} steam conditions outside IAPWS-IF97 regions 1, 2 and 4 ({} psig at {:.2} K to {} psig: the steam properties cover 273.15–1073.15 K below the critical region)",
                conditions.inlet_pressure_psig,
                conditions.inlet_temperature_k().unwrap_or(f64::NAN),
                conditions.outlet_pressure_psig
            ));
            return None;
        };
        let min_vapor_fraction = self.number(map, s, "outlet_steam_min_vapor_fraction");
        if let Some(quality) = cycle.outlet_quality.filter(|&x| x < min_vapor_fraction) {
            self.invalid.push(format!(
                "The calculated steam outlet vapor fraction of {quality} is lower than the minimum allowable value of {min_vapor_fraction}"
            ));
        }
        let mut computed = |field: &'static str, given: Option<f64>, value: f64| {
            given.unwrap_or_else(|| {
                self.filled.push(super::FilledDefault::new(s, field, Value::from(value)));
                value
            })
        };
        Some((computed(e, given.0, cycle.electric_per_thermal), computed(h, given.1, cycle.thermal_per_thermal)))
    }

    fn refuse_turbine_options(&mut self, map: &Map<String, Value>) {
        let s = "SteamTurbine";
        if self.flag_or(map, s, "can_waste_heat", false) {
            // Its heat-production row and the heat balance both count the waste.
            self.unsupported.push(format!("{s}.can_waste_heat=true (the service counts the turbine's wasted heat twice)"));
        }
        for field in ["can_net_meter", "can_wholesale", "can_export_beyond_nem_limit", "can_curtail"] {
            if self.flag_or(map, s, field, false) {
                self.unsupported.push(format!("{s}.{field}=true (exports and curtailment of the steam turbine)"));
            }
        }
        if self.number_in(map, s, "production_incentive_per_kwh").is_some_and(|v| v != 0.0) {
            self.unsupported.push(format!("{s}.production_incentive_per_kwh (production incentives of the steam turbine)"));
        }
        let financial = self.section("Financial").unwrap_or(self.empty);
        for field in ["min_initial_capital_costs_before_incentives", "max_initial_capital_costs_before_incentives"] {
            if crate::optimizer::scenario::given(financial.get(field)) {
                self.unsupported.push(format!("Financial.{field} with a SteamTurbine (capital cost bounds on the steam turbine)"));
            }
        }
        for section in ["ASHPSpaceHeater", "ASHPWaterHeater"] {
            if self.section(section).is_some_and(|m| self.flag_or(m, section, "can_supply_steam_turbine", false)) {
                self.unsupported.push(format!("{section}.can_supply_steam_turbine=true (heat pump steam to the steam turbine)"));
            }
        }
    }
}

/// The average boiler fuel of the heating loads (MMBtu/h): thermal load over the existing
/// boiler's efficiency, as the service sizes its default class.
fn heating_average_fuel_mmbtu_per_hour(heating: &Heating) -> f64 {
    let steps = heating.loads.first().map_or(1, |load| load.thermal_kw.len()).max(1);
    let total: f64 = (0..steps).map(|t| heating.total_kw(t)).sum();
    total / steps as f64 / heating.existing_boiler.burner.efficiency / KWH_PER_MMBTU
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_class_follows_the_heuristic_turbine_size() {
        // 0.07 · 293.07107 kWh/MMBtu: about 48.7 MMBtu/h of fuel makes 1,000 kW, 243.7 makes 5,000 kW.
        assert_eq!(size_class_of_fuel_load(None), 0);
        assert_eq!(size_class_of_fuel_load(Some(10.0)), 1);
        assert_eq!(size_class_of_fuel_load(Some(48.0)), 1);
        assert_eq!(size_class_of_fuel_load(Some(49.0)), 2);
        assert_eq!(size_class_of_fuel_load(Some(243.0)), 2);
        assert_eq!(size_class_of_fuel_load(Some(244.0)), 3);
    }
}

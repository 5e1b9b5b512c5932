//! The thermal storages read into typed inputs (REopt.jl `src/core/energy_storage/thermal_storage.jl`),
//! each sized in kWh of heat moved: the water tanks HotThermalStorage (heat) and
//! ColdThermalStorage (chilled water), and HighTempThermalStorage (molten salt, sized in kWh).
//!
//! Units: the service sizes a tank in gallons and converts with the kWh a gallon holds
//! between `hot_water_temp_degF` and `cool_water_temp_degF` (`optimizer::water::kwh_per_gal`,
//! IAPWS-95 water as its CoolProp call): kWh = gal · kWh/gal, $/kWh = $/gal ÷ kWh/gal. The
//! internal efficiency is split evenly between charging and discharging (η_c = η_d = √η). The
//! tank loses `thermal_decay_rate_fraction` of its *size* per hour. Its capital cost takes the
//! storage sector defaults (5-year MACRS with 100 % bonus, 30 % ITC) when left null.
//! `om_cost_per_gal` is read by the service but enters neither its objective nor its results; it
//! is ignored here too.
//!
//! HighTempThermalStorage is read in kWh (`min_kwh`, `max_kwh`, `installed_cost_per_kwh`; its
//! temperatures and fluid size nothing in the service). It differs from the tanks where the
//! service's rows differ: it decays by `thermal_decay_rate_fraction` of its *stored energy* per
//! hour, charges at most size/`num_charge_hours` and discharges at most size/`num_discharge_hours`
//! kW, its power bound is max_kwh / min(num_charge_hours, num_discharge_hours), and its MACRS
//! schedule is the 7-year one when `macrs_option_years` is 7 and the 5-year one otherwise (0
//! included). `om_cost_per_kwh` enters neither the service's objective nor its results.
//!
//! Either storage may feed the steam turbine (`can_supply_steam_turbine`, the service's default
//! false for the tank and true for the high-temperature storage) and then, with
//! `supply_turbine_only`, feed nothing else. Both may be given together (`lp::hot_storages`).
//!
//! Which storages an electric heating tech (electric heater, ASHP, CST) may charge
//! (`chargeable_storages`, REopt.jl `add_hot_tes_flow_restrictions!` in
//! src/constraints/storage_constraints.jl and the `*ToStorageOnly` rows of
//! `add_heating_tech_constraints`, 029db01d): a storage none of whose served loads (those given
//! with a load) the tech may not serve, and with `charge_storage_only` only the high-temperature
//! storage when there is one and else the water tank. A load a heat pump is forced into
//! (`force_into_system`) is the service's `dvHeatingProduction` of no other tech, so no other tech
//! may charge a storage that serves only forced loads (`only_forced`,
//! `electric_heater_inputs::drop_forced_charges`).

use super::thermal_inputs::{Heating, HeatingLoadKind};
use super::{Financial, Reader};
use crate::optimizer::finance::{effective_cost, TaxTreatment};
use crate::optimizer::water::kwh_per_gal;

/// Whether stored heat may feed the steam turbine when the input leaves it out (REopt.jl
/// `HotThermalStorageDefaults` and `HighTempThermalStorageDefaults`,
/// src/core/energy_storage/thermal_storage.jl, 029db01d; the service's schema has no such field).
const HOT_WATER_SUPPLIES_TURBINE: bool = false;
const HIGH_TEMP_SUPPLIES_TURBINE: bool = true;

/// What the hot and the cold tank share.
#[derive(Debug, Clone, PartialEq)]
pub struct ThermalTank {
    /// kWh of heat per gallon.
    pub kwh_per_gal: f64,
    /// Size bounds (kWh of heat).
    pub min_kwh: f64,
    pub max_kwh: f64,
    pub charge_efficiency: f64,
    pub discharge_efficiency: f64,
    pub soc_min_fraction: f64,
    pub soc_init_fraction: f64,
    /// Fraction lost per hour: of the size (water tanks) or of the stored energy (high temperature).
    pub decay_fraction_per_hour: f64,
    pub decay_of_stored_energy: bool,
    /// Bound on charge plus discharge (kW).
    pub max_kw: f64,
    /// $ per kWh before incentives, and net present $ per kWh after ITC, MACRS and rebate.
    pub installed_cost_per_kwh: f64,
    pub net_present_cost_per_kwh: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HotStorage {
    pub tank: ThermalTank,
    /// Which loads it may serve: hot water, space heating, process heat.
    pub can_serve_dhw: bool,
    pub can_serve_space_heating: bool,
    pub can_serve_process_heat: bool,
    /// The high-temperature storage's own limits (None for the water tank).
    pub high_temp: Option<HighTempLimits>,
    /// Whether its heat may feed the steam turbine, and whether then it feeds nothing else (no
    /// heat to load, and the turbine's heat does not charge it).
    pub can_supply_steam_turbine: bool,
    pub supply_turbine_only: bool,
}

/// The hot storages (indices in `Heating::hot_storages`) a tech that may serve the loads
/// `can_serve` may charge (the module's header).
pub fn chargeable_storages(heating: &Heating, can_serve: &[HeatingLoadKind], storage_only: bool) -> Vec<usize> {
    let compatible = |s: &HotStorage| {
        let served = served_loads(heating, s);
        !served.is_empty() && served.iter().all(|kind| can_serve.contains(kind))
    };
    let storages = &heating.hot_storages;
    if storage_only {
        let preferred = storages.iter().position(|s| s.high_temp.is_some()).or_else(|| storages.iter().position(|s| s.high_temp.is_none()));
        return preferred.filter(|&b| compatible(&storages[b])).into_iter().collect();
    }
    (0..storages.len()).filter(|&b| compatible(&storages[b])).collect()
}

/// The loads a storage serves: those given with a load that it may serve (the service's
/// `heating_loads_served_by_tes`).
pub fn served_loads(heating: &Heating, s: &HotStorage) -> Vec<HeatingLoadKind> {
    heating.loads.iter().filter(|load| s.serves(load.kind) && load.thermal_kw.iter().sum::<f64>() > 0.0).map(|load| load.kind).collect()
}

/// Whether every load a storage serves is one of the `forced` loads (and it serves some).
pub fn only_forced(heating: &Heating, s: &HotStorage, forced: &[HeatingLoadKind]) -> bool {
    let served = served_loads(heating, s);
    !served.is_empty() && served.iter().all(|kind| forced.contains(kind))
}

impl HotStorage {
    /// Whether it may serve a load kind (the service's `heating_loads_served_by_tes`).
    pub fn serves(&self, kind: HeatingLoadKind) -> bool {
        match kind {
            HeatingLoadKind::DomesticHotWater => self.can_serve_dhw,
            HeatingLoadKind::SpaceHeating => self.can_serve_space_heating,
            HeatingLoadKind::ProcessHeat => self.can_serve_process_heat,
        }
    }

    /// The service's name of the section.
    pub fn section(&self) -> &'static str {
        if self.high_temp.is_some() { "HighTempThermalStorage" } else { "HotThermalStorage" }
    }
}

/// What only the high-temperature storage has.
#[derive(Debug, Clone, PartialEq)]
pub struct HighTempLimits {
    /// Hours to fill and to empty it at its largest rates: charge ≤ kwh / charge_hours,
    /// discharge ≤ kwh / discharge_hours.
    pub charge_hours: f64,
    pub discharge_hours: f64,
    /// No charge and discharge in the same step (two binaries per step).
    pub one_direction_flow: bool,
}

impl Reader<'_> {
    pub(super) fn read_hot_storage(&mut self, financial: &Financial, steps_per_hour: usize) -> Option<HotStorage> {
        let s = "HotThermalStorage";
        let map = self.section(s)?;
        Some(HotStorage {
            tank: self.read_tank(s, financial, steps_per_hour)?,
            can_serve_dhw: self.flag(map, s, "can_serve_dhw"),
            can_serve_space_heating: self.flag(map, s, "can_serve_space_heating"),
            can_serve_process_heat: self.flag(map, s, "can_serve_process_heat"),
            high_temp: None,
            can_supply_steam_turbine: self.flag_or(map, s, "can_supply_steam_turbine", HOT_WATER_SUPPLIES_TURBINE),
            supply_turbine_only: self.flag_or(map, s, "supply_turbine_only", false),
        })
    }

    pub(super) fn read_high_temp_storage(&mut self, financial: &Financial) -> Option<HotStorage> {
        let s = "HighTempThermalStorage";
        let map = self.section(s)?;
        let charge_hours = self.number(map, s, "num_charge_hours");
        let discharge_hours = self.number(map, s, "num_discharge_hours");
        if charge_hours <= 0.0 || discharge_hours <= 0.0 {
            self.invalid.push(format!("{s}.num_charge_hours and num_discharge_hours must be positive."));
            return None;
        }
        let internal = self.number(map, s, "internal_efficiency_fraction");
        let installed_cost_per_kwh = self.number(map, s, "installed_cost_per_kwh");
        let tax = self.storage_tax(map, s, financial);
        let schedule = TaxTreatment { macrs_option_years: if tax.macrs_option_years == 7 { 7 } else { 5 }, ..tax };
        let net_present_cost_per_kwh = effective_cost(installed_cost_per_kwh, None, &schedule, 0.0) - self.number(map, s, "total_rebate_per_kwh");
        let max_kwh = self.number(map, s, "max_kwh");
        let tank = ThermalTank {
            kwh_per_gal: 0.0,
            min_kwh: self.number(map, s, "min_kwh"),
            max_kwh,
            charge_efficiency: internal.sqrt(),
            discharge_efficiency: internal.sqrt(),
            soc_min_fraction: self.number(map, s, "soc_min_fraction"),
            soc_init_fraction: self.number(map, s, "soc_init_fraction"),
            decay_fraction_per_hour: self.number(map, s, "thermal_decay_rate_fraction"),
            decay_of_stored_energy: true,
            max_kw: max_kwh / charge_hours.min(discharge_hours),
            installed_cost_per_kwh,
            net_present_cost_per_kwh,
        };
        Some(HotStorage {
            tank,
            can_serve_dhw: self.flag(map, s, "can_serve_dhw"),
            can_serve_space_heating: self.flag(map, s, "can_serve_space_heating"),
            can_serve_process_heat: self.flag(map, s, "can_serve_process_heat"),
            high_temp: Some(HighTempLimits { charge_hours, discharge_hours, one_direction_flow: self.flag(map, s, "one_direction_flow") }),
            can_supply_steam_turbine: self.flag_or(map, s, "can_supply_steam_turbine", HIGH_TEMP_SUPPLIES_TURBINE),
            supply_turbine_only: self.flag(map, s, "supply_turbine_only"),
        })
    }

    /// The chilled-water tank: it serves the cooling load only.
    pub(super) fn read_cold_storage(&mut self, financial: &Financial, steps_per_hour: usize) -> Option<ThermalTank> {
        self.read_tank("ColdThermalStorage", financial, steps_per_hour)
    }

    /// A water tank: its power bound is max_kwh per step (max_kw = max_kwh · n).
    fn read_tank(&mut self, s: &'static str, financial: &Financial, steps_per_hour: usize) -> Option<ThermalTank> {
        let map = self.section(s)?;
        let per_gal = kwh_per_gal(self.number(map, s, "hot_water_temp_degF"), self.number(map, s, "cool_water_temp_degF"));
        if per_gal.is_nan() || per_gal <= 0.0 {
            self.invalid.push(format!("{s}.hot_water_temp_degF must be above cool_water_temp_degF."));
            return None;
        }
        let internal = self.number(map, s, "internal_efficiency_fraction");
        let installed_cost_per_kwh = self.number(map, s, "installed_cost_per_gal") / per_gal;
        let tax = self.storage_tax(map, s, financial);
        // The service subtracts the rebate after its effective cost (which is floored at zero).
        let net_present_cost_per_kwh = effective_cost(installed_cost_per_kwh, None, &tax, 0.0) - self.number(map, s, "total_rebate_per_kwh");
        Some(ThermalTank {
            kwh_per_gal: per_gal,
            min_kwh: self.number(map, s, "min_gal") * per_gal,
            max_kwh: self.number(map, s, "max_gal") * per_gal,
            charge_efficiency: internal.sqrt(),
            discharge_efficiency: internal.sqrt(),
            soc_min_fraction: self.number(map, s, "soc_min_fraction"),
            soc_init_fraction: self.number(map, s, "soc_init_fraction"),
            decay_fraction_per_hour: self.number(map, s, "thermal_decay_rate_fraction"),
            decay_of_stored_energy: false,
            max_kw: self.number(map, s, "max_gal") * per_gal * steps_per_hour as f64,
            installed_cost_per_kwh,
            net_present_cost_per_kwh,
        })
    }

    /// A thermal storage's tax treatment: the storage sector defaults when left null.
    fn storage_tax(&mut self, map: &serde_json::Map<String, serde_json::Value>, s: &'static str, financial: &Financial) -> TaxTreatment {
        let macrs_option_years = self.filled_count(map, s, "macrs_option_years", self.sector.storage.macrs_option_years);
        if ![0, 5, 7].contains(&macrs_option_years) {
            self.invalid.push(format!("{s} macrs_option_years must be 0, 5, or 7."));
        }
        TaxTreatment {
            owner_discount_rate: financial.owner_discount_rate_fraction,
            owner_tax_rate: financial.owner_tax_rate_fraction,
            itc_fraction: self.filled_number(map, s, "total_itc_fraction", self.sector.storage.itc_fraction),
            macrs_option_years,
            macrs_bonus_fraction: self.filled_number(map, s, "macrs_bonus_fraction", self.sector.storage.macrs_bonus_fraction),
            macrs_itc_reduction: self.number(map, s, "macrs_itc_reduction"),
            // The service prices its thermal tanks as its electric storage: the bonus counts
            // without a MACRS schedule too.
            bonus_without_macrs: true,
        }
    }
}

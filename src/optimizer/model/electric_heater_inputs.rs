//! The electric heating techs as the LP sees them (`HeatPump`: ElectricHeater, ASHPSpaceHeater,
//! ASHPWaterHeater, CST: `cst_inputs`) and the reader of the `ElectricHeater` section (REopt.jl `ElectricHeater` in
//! `src/core/electric_heater.jl`, `setup_electric_heater_inputs` in `src/core/reopt_inputs.jl`).
//!
//! Units: sizes are thermal kW (the section gives MMBtu/h, `KWH_PER_MMBTU`), costs $ per thermal
//! kW (and per kW-year for O&M); a heat pump makes `cf_t · size` thermal kW at most in step t and
//! takes `production / cop_t` electric kW. The electric heater's cop and cf are constant (cf 1).
//!
//! Its `can_supply_steam_turbine` is read with the steam turbine (`SteamTurbine::electric_heater_supplies`);
//! with `charge_storage_only` and a hot storage all its heat goes to the storage it may charge
//! (`chargeable_storages`).
//! Refused by name: an electric heater without a heating load, an electric heater serving none of
//! the loads.

use serde_json::{Map, Value};

use super::hot_storage_inputs::{chargeable_storages, only_forced};
use super::thermal_inputs::{macrs_only_cost, Heating, HeatingLoadKind, KWH_PER_MMBTU};
use super::{Financial, Reader};

/// The three electric heating techs, in the service's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatPumpKind {
    ElectricHeater,
    AshpSpaceHeater,
    AshpWaterHeater,
    /// Concentrating solar thermal (`cst_inputs`): its production equals `cf · size`, the part
    /// no load or storage takes wasted when it may waste heat.
    Cst { can_waste_heat: bool },
}

impl HeatPumpKind {
    /// The section (and output) name.
    pub fn section(self) -> &'static str {
        match self {
            HeatPumpKind::ElectricHeater => "ElectricHeater",
            HeatPumpKind::AshpSpaceHeater => "ASHPSpaceHeater",
            HeatPumpKind::AshpWaterHeater => "ASHPWaterHeater",
            HeatPumpKind::Cst { .. } => "CST",
        }
    }
}

/// One electric heating tech the optimal case may size.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatPump {
    pub kind: HeatPumpKind,
    /// Bounds of the size variable (thermal kW; the size reported is `sizing_factor` times it).
    pub min_kw: f64,
    pub max_kw: f64,
    /// A positive value makes the size either 0 or at least this (one binary, as the service's
    /// one-segment cost curve).
    pub min_allowable_kw: f64,
    pub sizing_factor: f64,
    /// $ per kW of the size variable before and after MACRS (sizing factor included).
    pub installed_cost_per_kw: f64,
    pub net_present_cost_per_kw: f64,
    /// $ per kW-year.
    pub om_cost_per_kw: f64,
    /// Per step: thermal kW out per electric kW in, and the available share of the size.
    pub cop: Vec<f64>,
    pub cf: Vec<f64>,
    /// The heating loads it may serve (only those with a load).
    pub serves: Vec<HeatingLoadKind>,
    /// The hot storages it may charge (indices in `Heating::hot_storages`, `chargeable_storages`).
    pub charges: Vec<usize>,
    /// `charge_storage_only` with a hot storage: no heat to load or to the steam turbine.
    pub storage_only: bool,
    /// The loads only it serves (the boilers and other techs make none of their heat).
    pub forced_loads: Vec<HeatingLoadKind>,
    /// $ present value taken off the lifecycle cost whenever the tech is offered.
    pub avoided_capex: f64,
    /// The ASHPSpaceHeater's cooling (`can_serve_cooling` with a cooling load), from the same size.
    pub cooling: Option<HeatPumpCooling>,
    /// An ASHP's `force_dispatch` (not forced into the system): in every step it makes all the
    /// load it serves or all its capacity allows, whichever is less (`heat_pumps`).
    pub force_dispatch: bool,
    /// CST's land: its size shares `Site.land_acres` with the PV arrays on the ground or both.
    pub land: Option<LandUse>,
}

/// A tech's claim on the site's land (REopt.jl `LandConstraint` in `add_tech_size_constraints`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LandUse {
    pub site_acres: f64,
    pub acres_per_kw: f64,
}

/// Per step: cooling kW out per electric kW in, and the share of the size it may cool with;
/// a step's heating over its `cf` and cooling over this `cf` share the one size.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatPumpCooling {
    pub cop: Vec<f64>,
    pub cf: Vec<f64>,
}

/// A heat pump may not charge a storage serving only the loads another tech is forced into.
pub(super) fn drop_forced_charges(heating: Option<&Heating>, heat_pumps: &mut [HeatPump]) {
    let Some(heating) = heating else { return };
    let forced: Vec<(usize, HeatingLoadKind)> =
        heat_pumps.iter().enumerate().flat_map(|(i, p)| p.forced_loads.iter().map(move |&kind| (i, kind))).collect();
    for (i, pump) in heat_pumps.iter_mut().enumerate() {
        let by_others: Vec<HeatingLoadKind> = forced.iter().filter(|(j, _)| *j != i).map(|&(_, kind)| kind).collect();
        pump.charges.retain(|&b| !only_forced(heating, &heating.hot_storages[b], &by_others));
    }
}

impl HeatPump {
    /// Whether it may serve a load kind.
    pub fn serves(&self, kind: HeatingLoadKind) -> bool {
        self.serves.contains(&kind)
    }
}

/// The heating loads and the flag that lets a tech serve each.
const HEATING_FLAGS: [(HeatingLoadKind, &str); 3] = [
    (HeatingLoadKind::DomesticHotWater, "can_serve_dhw"),
    (HeatingLoadKind::SpaceHeating, "can_serve_space_heating"),
    (HeatingLoadKind::ProcessHeat, "can_serve_process_heat"),
];

impl Reader<'_> {
    /// The electric heating techs given, in the service's order.
    /// `cooling_kw`: the cooling load (thermal kW per step), None without one.
    pub(super) fn read_heat_pumps(&mut self, heating: Option<&Heating>, cooling_kw: Option<&[f64]>, steps_per_hour: usize, financial: &Financial) -> Vec<HeatPump> {
        let steps = crate::calendar::HOURS_PER_YEAR * steps_per_hour;
        let mut techs: Vec<HeatPump> = self.read_electric_heater(heating, steps, financial).into_iter().collect();
        techs.extend(self.read_cst(heating, steps_per_hour, financial));
        for kind in [HeatPumpKind::AshpSpaceHeater, HeatPumpKind::AshpWaterHeater] {
            techs.extend(self.read_ashp(kind, heating, cooling_kw, steps_per_hour, financial));
        }
        techs
    }

    /// Whether any `can_serve_*` flag of section `s` (the schema's default when left out) is true.
    pub(super) fn serves_any_heating_load(&mut self, map: &Map<String, Value>, s: &str) -> bool {
        HEATING_FLAGS.iter().any(|&(_, field)| self.flag(map, s, field))
    }

    /// The heating loads given whose `can_serve_*` flag lets the tech of section `s` serve them;
    /// refused by name when there are none.
    pub(super) fn served_heating_loads(&mut self, map: &Map<String, Value>, s: &str, heating: &Heating) -> Option<Vec<HeatingLoadKind>> {
        let mut serves = Vec::new();
        for (kind, field) in HEATING_FLAGS {
            if self.flag(map, s, field) && heating.loads.iter().any(|load| load.kind == kind) {
                serves.push(kind);
            }
        }
        if serves.is_empty() {
            self.unsupported.push(format!("{s} serving none of the heating loads given"));
            return None;
        }
        Some(serves)
    }

    /// The heating loads a heat producer (the boilers, CHP) serves: none when all its
    /// `can_serve_*` flags are false (REopt.jl then fixes every `dvHeatingProduction` of it at 0,
    /// `add_heating_tech_constraints`: it makes no heat), else `served_heating_loads`. Flags true
    /// only for loads not given stay refused: the service makes those loads zeros its heat may
    /// still go to waste or the steam turbine through.
    pub(super) fn producer_heating_loads(&mut self, map: &Map<String, Value>, s: &str, heating: &Heating) -> Option<Vec<HeatingLoadKind>> {
        if !self.serves_any_heating_load(map, s) {
            return Some(Vec::new());
        }
        self.served_heating_loads(map, s, heating)
    }

    /// MACRS years (0, 5 or 7) and bonus fraction of a heat pump section.
    pub(super) fn heat_pump_macrs(&mut self, map: &Map<String, Value>, s: &'static str) -> (u32, f64) {
        let years = self.count_or(map, s, "macrs_option_years", 0);
        if ![0, 5, 7].contains(&years) {
            self.invalid.push(format!("{s}.macrs_option_years must be 0, 5, or 7."));
        }
        (years, self.number_or(map, s, "macrs_bonus_fraction", 0.0))
    }

    /// The ElectricHeater section, None when absent or sized to 0 (the service then builds none).
    pub(super) fn read_electric_heater(&mut self, heating: Option<&Heating>, steps: usize, financial: &Financial) -> Option<HeatPump> {
        let s = "ElectricHeater";
        let map = self.section(s)?;
        let max_kw = self.number(map, s, "max_mmbtu_per_hour") * KWH_PER_MMBTU;
        if max_kw <= 0.0 {
            return None;
        }
        let Some(heating) = heating else {
            self.unsupported.push("ElectricHeater without a heating load (nothing for it to serve)".into());
            return None;
        };
        let served = self.served_heating_loads(map, s, heating)?;
        // A keyword of the service's struct only (not in its schema): false when left out.
        let storage_only = self.flag_or(map, s, "charge_storage_only", false) && !heating.hot_storages.is_empty();
        let charges = chargeable_storages(heating, &served, storage_only);
        let serves = if storage_only { Vec::new() } else { served };
        let cop = self.number(map, s, "cop");
        if cop <= 0.0 {
            self.invalid.push("ElectricHeater.cop must be positive.".into());
            return None;
        }
        let installed_cost_per_kw = self.number(map, s, "installed_cost_per_mmbtu_per_hour") / KWH_PER_MMBTU;
        let (years, bonus) = self.heat_pump_macrs(map, s);
        Some(HeatPump {
            kind: HeatPumpKind::ElectricHeater,
            min_kw: self.number(map, s, "min_mmbtu_per_hour") * KWH_PER_MMBTU,
            max_kw,
            min_allowable_kw: 0.0,
            sizing_factor: 1.0,
            installed_cost_per_kw,
            net_present_cost_per_kw: macrs_only_cost(installed_cost_per_kw, financial, years, bonus),
            om_cost_per_kw: self.number(map, s, "om_cost_per_mmbtu_per_hour") / KWH_PER_MMBTU,
            cop: vec![cop; steps],
            cf: vec![1.0; steps],
            serves,
            charges,
            storage_only,
            forced_loads: Vec::new(),
            avoided_capex: 0.0,
            cooling: None,
            force_dispatch: false,
            land: None,
        })
    }
}

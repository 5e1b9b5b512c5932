//! The renewable arrays and storage as typed values, and their reading: PV (one array or a
//! list of named arrays, with costs left out filled by size class, incentives and the site's
//! roof and land space), Wind with a given production factor (sized and reported like an
//! array), and ElectricStorage.

use serde_json::{Map, Value};

use super::sector_inputs::IncentiveDefaults;
use super::degradation_inputs::Degradation;
use super::{pv_costs, FilledDefault, Financial, Reader};
use crate::wind::SizeClass;

/// What reading a PV array needs from the rest of the scenario.
#[derive(Debug, Clone, Copy)]
struct ArrayContext {
    steps_per_hour: usize,
    /// The site's annual load (kWh), for the size class of default costs.
    annual_kwh: f64,
    off_grid: bool,
}

/// What a renewable array is: a PV array or the wind turbine. Both are sized like PV and share
/// the renewable flows; results are reported per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayKind {
    Pv,
    Wind,
}

/// A technology's export flags (`can_net_meter`, `can_wholesale`, `can_export_beyond_nem_limit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExportFlags {
    pub can_net_meter: bool,
    pub can_wholesale: bool,
    pub can_export_beyond_nem_limit: bool,
}

impl ExportFlags {
    /// The bins with value in a case the technology may use (net metering, wholesale, beyond
    /// the limit: the bins of `lp::exports`): beyond the limit only when it can also net meter,
    /// as the service's `fillin_techs_by_exportbin` has it.
    pub fn allowed(&self, valued: [bool; 3]) -> [bool; 3] {
        [valued[0] && self.can_net_meter, valued[1] && self.can_wholesale, valued[2] && self.can_net_meter && self.can_export_beyond_nem_limit]
    }

    pub fn any(&self) -> bool {
        self.can_net_meter || self.can_wholesale || self.can_export_beyond_nem_limit
    }
}

/// Roof, ground or both: the arrays of that `location` and the new kW the site holds for them.
#[derive(Debug, Clone, PartialEq)]
pub struct SpaceLimit {
    pub arrays: Vec<usize>,
    pub max_new_kw: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pv {
    pub kind: ArrayKind,
    pub name: String,
    /// "roof", "ground" or "both".
    pub location: String,
    /// Land per kW (PV on the ground or both shares `Site.land_acres` with CST; 0 for Wind).
    pub acres_per_kw: f64,
    pub existing_kw: f64,
    /// Bounds on new capacity (kW beyond existing), space limits applied.
    pub min_new_kw: f64,
    pub max_new_kw: f64,
    pub installed_cost_per_kw: f64,
    pub om_cost_per_kw: f64,
    pub degradation_fraction: f64,
    /// kW AC per kW DC of capacity, per step.
    pub production_factor: Vec<f64>,
    pub incentives: PvIncentives,
    /// The production-based incentive (paid only when `per_kwh` > 0; its other fields also
    /// steer the service's LCOE).
    pub production_incentive: ProductionIncentive,
    pub can_net_meter: bool,
    pub can_wholesale: bool,
    pub can_export_beyond_nem_limit: bool,
    pub can_curtail: bool,
    /// Off grid: operating reserve required per kW of this array's output serving load.
    pub operating_reserve_required_fraction: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PvIncentives {
    pub federal_itc_fraction: f64,
    pub macrs_option_years: u32,
    pub macrs_bonus_fraction: f64,
    pub macrs_itc_reduction: f64,
    pub state_ibi_fraction: f64,
    pub state_ibi_max: f64,
    pub utility_ibi_fraction: f64,
    pub utility_ibi_max: f64,
    pub federal_rebate_per_kw: f64,
    pub state_rebate_per_kw: f64,
    pub state_rebate_max: f64,
    pub utility_rebate_per_kw: f64,
    pub utility_rebate_max: f64,
}

/// A production-based incentive of PV, Wind or CHP (REopt.jl `production_incentives`): $ per kWh
/// produced (curtailed kWh included), at most `max_benefit` $ a year, paid for `years` years,
/// and only when the whole size (existing included) is at most `max_kw`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProductionIncentive {
    pub per_kwh: f64,
    pub max_benefit: f64,
    pub years: u32,
    pub max_kw: f64,
}

impl ProductionIncentive {
    /// Whether it is paid (the service's `techs.pbi`: `production_incentive_per_kwh` > 0).
    pub fn applies(&self) -> bool {
        self.per_kwh > 0.0
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Storage {
    pub min_kw: f64,
    pub max_kw: f64,
    pub min_kwh: f64,
    pub max_kwh: f64,
    pub internal_efficiency_fraction: f64,
    pub inverter_efficiency_fraction: f64,
    pub rectifier_efficiency_fraction: f64,
    pub soc_min_fraction: f64,
    pub soc_init_fraction: f64,
    pub optimize_soc_init_fraction: bool,
    pub can_grid_charge: bool,
    /// The state of charge never goes below `soc_min_fraction` in outages either.
    pub soc_min_applies_during_outages: bool,
    pub installed_cost_per_kw: f64,
    pub installed_cost_per_kwh: f64,
    pub installed_cost_constant: f64,
    pub replace_cost_per_kw: f64,
    pub replace_cost_per_kwh: f64,
    pub replace_cost_constant: f64,
    pub inverter_replacement_year: u32,
    pub battery_replacement_year: u32,
    pub cost_constant_replacement_year: u32,
    pub om_cost_fraction_of_installed_cost: f64,
    pub macrs_option_years: u32,
    pub macrs_bonus_fraction: f64,
    pub macrs_itc_reduction: f64,
    pub total_itc_fraction: f64,
    pub total_rebate_per_kw: f64,
    pub total_rebate_per_kwh: f64,
    pub min_duration_hours: f64,
    pub max_duration_hours: f64,
    /// The battery degradation model (`model_degradation`); its replacement costs are then zero.
    pub degradation: Option<Degradation>,
}

impl Storage {
    /// AC→stored efficiency: rectifier · √internal.
    pub fn charge_efficiency(&self) -> f64 {
        self.rectifier_efficiency_fraction * self.internal_efficiency_fraction.sqrt()
    }

    /// Stored→AC efficiency: inverter · √internal.
    pub fn discharge_efficiency(&self) -> f64 {
        self.inverter_efficiency_fraction * self.internal_efficiency_fraction.sqrt()
    }

    /// Whether the fixed cost (installed or replacement constant) applies when storage is built.
    pub fn has_cost_constant(&self) -> bool {
        self.installed_cost_constant != 0.0 || self.replace_cost_constant != 0.0
    }
}

impl Reader<'_> {
    /// Every PV array that can exist (max or existing capacity above zero); names must be unique.
    pub(super) fn read_pvs(&mut self, steps_per_hour: usize, engine: &[Option<Vec<f64>>], annual_kwh: f64, off_grid: bool) -> Vec<Pv> {
        let sections = self.pv_sections();
        let several = sections.len() > 1;
        let mut pvs: Vec<Pv> = Vec::new();
        for (index, map) in sections.into_iter().enumerate() {
            let default_name = if several { format!("PV{}", index + 1) } else { "PV".to_string() };
            let engine = engine.get(index).and_then(Option::as_deref);
            let context = ArrayContext { steps_per_hour, annual_kwh, off_grid };
            if let Some(pv) = self.read_pv(map, index, default_name, engine, context) {
                if pvs.iter().any(|other| other.name == pv.name) {
                    self.invalid.push(format!("PV names must be unique: {} is used twice.", pv.name));
                }
                pvs.push(pv);
            }
        }
        pvs
    }

    fn read_pv(&mut self, map: &Map<String, Value>, index: usize, default_name: String, engine: Option<&[f64]>, context: ArrayContext) -> Option<Pv> {
        let ArrayContext { steps_per_hour, annual_kwh, off_grid } = context;
        let s = "PV";
        let existing_kw = self.number(map, s, "existing_kw");
        let min_kw = self.number(map, s, "min_kw");
        let max_kw = self.number(map, s, "max_kw");
        if max_kw <= 0.0 && existing_kw <= 0.0 {
            return None;
        }
        let given = self.numbers(map, s, "production_factor_series");
        let production_factor = if !given.is_empty() {
            self.series(&given, s, "production_factor_series", steps_per_hour)?
        } else if let Some(engine) = engine {
            if engine.iter().any(|f| !f.is_finite()) {
                self.invalid.push("The local PV production has non-finite values.".into());
                return None;
            }
            self.series(engine, s, "production_factor_series", steps_per_hour)?
        } else {
            self.unsupported.push("PV without production_factor_series (no local PV production was supplied)".into());
            return None;
        };
        let location = match self.text(map, "location") {
            "" => "both".to_string(),
            other => other.to_string(),
        };
        let (installed_cost, om_cost) = self.pv_costs(map, index, &location, min_kw, max_kw, annual_kwh);
        let space_limit_kw = self.array_space_kw(map, &location);
        let incentives = self.read_incentives(map, s, self.sector.pv);
        Some(Pv {
            kind: ArrayKind::Pv,
            operating_reserve_required_fraction: self.reserve_fraction(map, s, off_grid, 0.25),
            name: match self.text(map, "name") {
                "" => default_name,
                name => name.to_string(),
            },
            acres_per_kw: self.number(map, s, "acres_per_kw"),
            location,
            existing_kw,
            min_new_kw: min_kw,
            max_new_kw: space_limit_kw.map_or(max_kw, |limit| max_kw.min(limit)),
            installed_cost_per_kw: installed_cost,
            om_cost_per_kw: om_cost,
            degradation_fraction: self.number(map, s, "degradation_fraction"),
            production_factor,
            incentives,
            production_incentive: self.read_production_incentive(map, s),
            can_net_meter: self.flag(map, s, "can_net_meter") && !off_grid,
            can_wholesale: self.flag(map, s, "can_wholesale") && !off_grid,
            can_export_beyond_nem_limit: self.flag(map, s, "can_export_beyond_nem_limit") && !off_grid,
            can_curtail: self.flag(map, s, "can_curtail"),
        })
    }

    /// An array's operating reserve fraction: off grid its value or the service's default,
    /// on grid always 0 (the service resets it).
    fn reserve_fraction(&mut self, map: &Map<String, Value>, section: &'static str, off_grid: bool, off_grid_default: f64) -> f64 {
        if off_grid {
            self.filled_number(map, section, "operating_reserve_required_fraction", off_grid_default)
        } else {
            0.0
        }
    }

    /// The production-based incentive inputs of a PV array or the wind turbine.
    pub(super) fn read_production_incentive(&mut self, map: &Map<String, Value>, s: &'static str) -> ProductionIncentive {
        ProductionIncentive {
            per_kwh: self.number(map, s, "production_incentive_per_kwh"),
            max_benefit: self.number(map, s, "production_incentive_max_benefit"),
            years: self.count(map, s, "production_incentive_years"),
            max_kw: self.number(map, s, "production_incentive_max_kw"),
        }
    }

    /// The incentives of a PV array, the wind turbine or CHP (the same fields in their sections).
    pub(super) fn read_incentives(&mut self, map: &Map<String, Value>, s: &'static str, defaults: IncentiveDefaults) -> PvIncentives {
        PvIncentives {
            federal_itc_fraction: self.filled_number(map, s, "federal_itc_fraction", defaults.itc_fraction),
            macrs_option_years: self.filled_count(map, s, "macrs_option_years", defaults.macrs_option_years),
            macrs_bonus_fraction: self.filled_number(map, s, "macrs_bonus_fraction", defaults.macrs_bonus_fraction),
            macrs_itc_reduction: self.number(map, s, "macrs_itc_reduction"),
            state_ibi_fraction: self.number(map, s, "state_ibi_fraction"),
            state_ibi_max: self.number(map, s, "state_ibi_max"),
            utility_ibi_fraction: self.number(map, s, "utility_ibi_fraction"),
            utility_ibi_max: self.number(map, s, "utility_ibi_max"),
            federal_rebate_per_kw: self.number(map, s, "federal_rebate_per_kw"),
            state_rebate_per_kw: self.number(map, s, "state_rebate_per_kw"),
            state_rebate_max: self.number(map, s, "state_rebate_max"),
            utility_rebate_per_kw: self.number(map, s, "utility_rebate_per_kw"),
            utility_rebate_max: self.number(map, s, "utility_rebate_max"),
        }
    }

    /// The wind turbine, from its production factor (the wind resource download and turbine
    /// model of the service are not available here), sized and priced like an array.
    pub(super) fn read_wind(&mut self, steps_per_hour: usize, base_load: &[f64], off_grid: bool) -> Option<Pv> {
        let map = self.section("Wind")?;
        let s = "Wind";
        let min_kw = self.number(map, s, "min_kw");
        let mut max_kw = self.number(map, s, "max_kw");
        if max_kw <= 0.0 {
            return None;
        }
        let given = self.numbers(map, s, "production_factor_series");
        if given.is_empty() {
            return None;
        }
        let production_factor = self.series(&given, s, "production_factor_series", steps_per_hour)?;
        let site = self.section("Site").unwrap_or(self.empty);
        if let Some(acres) = self.number_in(site, "Site", "land_acres") {
            let acres_per_kw = self.number(map, s, "acres_per_kw");
            // Turbines below 1.5 MW are not held to the land limit (the service's rule).
            let land_kw = if acres_per_kw > 0.0 { (acres / acres_per_kw).max(1500.0) } else { f64::INFINITY };
            max_kw = max_kw.min(land_kw);
        }
        if min_kw > max_kw {
            self.invalid.push("Wind.min_kw is greater than Wind.max_kw or the land-constrained size (Site.land_acres / Wind.acres_per_kw).".into());
            return None;
        }
        let installed_cost_per_kw = match self.number_in(map, s, "installed_cost_per_kw") {
            Some(cost) => cost,
            None => {
                let cost = wind_size_class_cost(self.text(map, "size_class"), base_load);
                self.filled.push(FilledDefault::new(s, "installed_cost_per_kw", Value::from(cost)));
                cost
            }
        };
        let incentives = self.read_incentives(map, s, self.sector.wind);
        Some(Pv {
            kind: ArrayKind::Wind,
            name: "Wind".into(),
            location: "wind".into(),
            acres_per_kw: 0.0,
            existing_kw: 0.0,
            min_new_kw: min_kw,
            max_new_kw: max_kw,
            installed_cost_per_kw,
            om_cost_per_kw: self.number(map, s, "om_cost_per_kw"),
            degradation_fraction: 0.0,
            production_factor,
            incentives,
            production_incentive: self.read_production_incentive(map, s),
            can_net_meter: self.flag(map, s, "can_net_meter") && !off_grid,
            can_wholesale: self.flag(map, s, "can_wholesale") && !off_grid,
            can_export_beyond_nem_limit: self.flag(map, s, "can_export_beyond_nem_limit") && !off_grid,
            can_curtail: self.flag(map, s, "can_curtail"),
            operating_reserve_required_fraction: self.reserve_fraction(map, s, off_grid, 0.5),
        })
    }

    /// An array's installed and O&M costs; missing ones get the service's size-class defaults
    /// (`pv_costs`), recorded for the echo of that array.
    fn pv_costs(&mut self, map: &Map<String, Value>, index: usize, location: &str, min_kw: f64, max_kw: f64, annual_kwh: f64) -> (f64, f64) {
        let s = "PV";
        let installed = self.number_in(map, s, "installed_cost_per_kw");
        let om = self.number_in(map, s, "om_cost_per_kw");
        if let (Some(installed), Some(om)) = (installed, om) {
            return (installed, om);
        }
        let site = self.section("Site").unwrap_or(self.empty);
        let inputs = pv_costs::PvCostInputs {
            annual_kwh,
            min_kw,
            max_kw,
            roof_squarefeet: self.number_in(site, "Site", "roof_squarefeet"),
            land_acres: self.number_in(site, "Site", "land_acres"),
            kw_per_square_foot: self.number(map, s, "kw_per_square_foot"),
            acres_per_kw: self.number(map, s, "acres_per_kw"),
            array_type: self.count(map, s, "array_type"),
            location: location.to_string(),
            size_class: self.number_in(map, s, "size_class").map(|c| c as u32),
        };
        let defaults = pv_costs::default_costs(installed, om, &inputs);
        let mut fill = |field: &'static str, value: Option<Value>| {
            if let Some(value) = value {
                self.filled.push(FilledDefault { item: Some(index), ..FilledDefault::new(s, field, value) });
            }
        };
        fill("installed_cost_per_kw", defaults.installed_cost_per_kw.map(Value::from));
        fill("om_cost_per_kw", defaults.om_cost_per_kw.map(Value::from));
        fill("size_class", defaults.size_class.map(Value::from));
        (installed.or(defaults.installed_cost_per_kw).unwrap_or(0.0), om.or(defaults.om_cost_per_kw).unwrap_or(0.0))
    }

    /// New PV kW that fits the site for one array's `location`: roof area × kW/ft² and/or land
    /// ÷ acres/kW ("both" is limited only when both areas are given).
    fn array_space_kw(&mut self, pv: &Map<String, Value>, location: &str) -> Option<f64> {
        let site = self.section("Site").unwrap_or(self.empty);
        let roof = self.number_in(site, "Site", "roof_squarefeet");
        let land = self.number_in(site, "Site", "land_acres");
        let kw_per_square_foot = self.number(pv, "PV", "kw_per_square_foot");
        let acres_per_kw = self.number(pv, "PV", "acres_per_kw");
        let roof_kw = roof.map(|ft2| ft2 * kw_per_square_foot);
        let land_kw = land.map(|acres| if acres_per_kw > 0.0 { acres / acres_per_kw } else { f64::INFINITY });
        match location {
            "roof" => roof_kw,
            "ground" => land_kw,
            _ => roof_kw.zip(land_kw).map(|(r, l)| r + l),
        }
    }

    /// The space shared by the arrays of each location, when more than one array uses it (the
    /// service sizes it with the last array's kW/ft² or acres/kW).
    pub(super) fn pv_space_limits(&mut self, pvs: &[Pv]) -> Vec<SpaceLimit> {
        let sections = self.pv_sections();
        let mut limits = Vec::new();
        for location in ["roof", "ground", "both"] {
            let arrays: Vec<usize> = (0..pvs.len()).filter(|&i| pvs[i].location == location).collect();
            if arrays.len() < 2 {
                continue;
            }
            let last = sections.iter().rev().find(|map| map.get("location").and_then(Value::as_str).unwrap_or("both") == location);
            if let Some(space) = last.and_then(|map| self.array_space_kw(map, location)) {
                limits.push(SpaceLimit { arrays, max_new_kw: space });
            }
        }
        limits
    }

    pub(super) fn read_storage(&mut self, off_grid: bool, soc_min_applies_during_outages: bool, financial: &Financial) -> Option<Storage> {
        let sd = self.sector.storage;
        let map = self.section("ElectricStorage")?;
        let s = "ElectricStorage";
        let max_kw = self.number(map, s, "max_kw");
        let max_kwh = self.number(map, s, "max_kwh");
        if max_kw <= 0.0 || max_kwh <= 0.0 {
            return None;
        }
        let soc_init_fraction = self.filled_number(map, s, "soc_init_fraction", if off_grid { 1.0 } else { 0.5 });
        let internal = self.number(map, s, "internal_efficiency_fraction");
        let inverter = self.number(map, s, "inverter_efficiency_fraction");
        let rectifier = self.number(map, s, "rectifier_efficiency_fraction");
        if internal <= 0.0 || inverter <= 0.0 || rectifier <= 0.0 {
            self.invalid.push("ElectricStorage efficiencies must be greater than 0.".into());
            return None;
        }
        let can_grid_charge = match map.get("can_grid_charge") {
            None | Some(Value::Null) => {
                self.filled.push(FilledDefault::new(s, "can_grid_charge", Value::Bool(!off_grid)));
                !off_grid
            }
            Some(_) => self.flag_or(map, s, "can_grid_charge", true) && !off_grid,
        };
        let installed_cost_per_kwh = self.number(map, s, "installed_cost_per_kwh");
        let degradation = self.read_degradation(map, financial, installed_cost_per_kwh);
        let replaced = degradation.is_none();
        let replace_cost = |reader: &mut Self, field: &str| if replaced { reader.number(map, s, field) } else { 0.0 };
        Some(Storage {
            min_kw: self.number(map, s, "min_kw"),
            max_kw,
            min_kwh: self.number(map, s, "min_kwh"),
            max_kwh,
            internal_efficiency_fraction: internal,
            inverter_efficiency_fraction: inverter,
            rectifier_efficiency_fraction: rectifier,
            soc_min_fraction: self.number(map, s, "soc_min_fraction"),
            soc_init_fraction,
            optimize_soc_init_fraction: self.flag(map, s, "optimize_soc_init_fraction"),
            can_grid_charge,
            soc_min_applies_during_outages,
            installed_cost_per_kw: self.number(map, s, "installed_cost_per_kw"),
            installed_cost_per_kwh,
            installed_cost_constant: self.number(map, s, "installed_cost_constant"),
            replace_cost_per_kw: replace_cost(self, "replace_cost_per_kw"),
            replace_cost_per_kwh: replace_cost(self, "replace_cost_per_kwh"),
            replace_cost_constant: replace_cost(self, "replace_cost_constant"),
            inverter_replacement_year: self.count(map, s, "inverter_replacement_year"),
            battery_replacement_year: self.count(map, s, "battery_replacement_year"),
            cost_constant_replacement_year: self.count(map, s, "cost_constant_replacement_year"),
            om_cost_fraction_of_installed_cost: self.number(map, s, "om_cost_fraction_of_installed_cost"),
            macrs_option_years: self.filled_count(map, s, "macrs_option_years", sd.macrs_option_years),
            macrs_bonus_fraction: self.filled_number(map, s, "macrs_bonus_fraction", sd.macrs_bonus_fraction),
            macrs_itc_reduction: self.number(map, s, "macrs_itc_reduction"),
            total_itc_fraction: self.filled_number(map, s, "total_itc_fraction", sd.itc_fraction),
            total_rebate_per_kw: self.number(map, s, "total_rebate_per_kw"),
            total_rebate_per_kwh: self.number(map, s, "total_rebate_per_kwh"),
            min_duration_hours: self.number(map, s, "min_duration_hours"),
            max_duration_hours: self.number(map, s, "max_duration_hours"),
            degradation,
        })
    }
}

/// The service's default wind cost for a size class ($/kW): given, or chosen by the average
/// load (`wind::SizeClass::of`; an unknown name costs as a large turbine).
pub fn wind_size_class_cost(size_class: &str, load_kw: &[f64]) -> f64 {
    SizeClass::of(size_class, load_kw).unwrap_or(SizeClass::Large).installed_cost_per_kw()
}

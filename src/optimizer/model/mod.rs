//! The supported subset of an optimizer scenario as typed, fully resolved values, and
//! `from_scenario`, which reads a scenario dict (as the Python builder resolves it with
//! `Scenario.to_dict(include_defaults=True)`) into a `Model` or says why it cannot.
//!
//! Units: kW, kWh, $, fractions; every series has one value per time step of the modelled
//! year (8760 · time_steps_per_hour). An input left out takes its default from the optimizer
//! schema (`optimizer::scenario::schema`, the data file the Python builder reads too), never a number restated
//! here. Values the service leaves null and fills later (sector defaults of Financial, PV and
//! ElectricStorage; the on-grid storage defaults) are filled here with the service's numbers and
//! recorded in `Model::filled_defaults` so results can echo them.
//!
//! Subset rules: a scenario is rejected as `ScenarioError::Unsupported` when it carries any
//! section outside {Meta, Settings, Site, Financial, ElectricLoad, ElectricTariff,
//! ElectricUtility, PV (one array or a list), Wind, ElectricStorage, Generator, the heating loads,
//! ExistingBoiler, Boiler, HotThermalStorage, CoolingLoad, ExistingChiller, CHP, AbsorptionChiller,
//! ColdThermalStorage, SteamTurbine, GHP, ElectricHeater, ASHPSpaceHeater, ASHPWaterHeater,
//! HighTempThermalStorage, CST}, or any input of
//! those sections that this optimizer does not model set to a non-default value (listed one by
//! one). Emissions and renewable-electricity inputs are read in `emissions_inputs`, which refuses
//! by name only the outside data (Cambium, AVERT, EASIUR) a run would need. Inputs the service itself would reject at run time become `ScenarioError::Invalid`.
//!
//! The reading is split by section: `load_inputs` (ElectricLoad), `tariff_inputs`
//! (ElectricTariff, ElectricUtility), `technology_inputs` (PV, Wind, ElectricStorage),
//! `resilience_inputs` (Generator, outages, critical loads, off grid), `emissions_inputs`
//! (emissions factors, costs and targets), `thermal_inputs` (heating loads and boilers) and
//! `cooling_inputs` (the cooling load and the chillers: `absorption_chiller_inputs`; the tanks:
//! `hot_storage_inputs`) and `ghp_inputs` (GHP design options from GhpGhx responses); this file holds the
//! typed model, the reader's field helpers, the subset checks, Financial and Settings.

use serde_json::{Map, Value};

use crate::calendar::HOURS_PER_YEAR;
use crate::calendar::steps_per_hour_of_year;
use crate::optimizer::scenario::given as is_given;
use crate::optimizer::scenario::text::service_bool;
use super::pv_costs;
use crate::optimizer::scenario::schema;
use resilience_inputs::{Generator, OffGrid, Outages, Resilience};
use super::tariff::Tariff;

pub mod absorption_chiller_inputs;
pub mod ashp_inputs;
mod chp_defaults;
pub mod chp_inputs;
pub mod cst_inputs;
pub mod cst_trough;
mod chp_unavailability;
mod emissions_inputs;
mod financial_inputs;
pub mod sector_inputs;
mod load_inputs;
pub mod resilience_inputs;
mod tariff_inputs;
mod technology_inputs;
pub mod cooling_inputs;
pub mod degradation_inputs;
pub mod ghp_inputs;
pub mod electric_heater_inputs;
pub mod hot_storage_inputs;
pub mod steam_properties;
pub mod steam_turbine_cycle;
pub mod steam_turbine_inputs;
pub mod thermal_inputs;

pub use emissions_inputs::{Emissions, Pollutant, EMISSIONS_DECREASE_DEFAULT};
pub use tariff_inputs::GridLimits;
pub use technology_inputs::{wind_size_class_cost, ArrayKind, ExportFlags, ProductionIncentive, Pv, PvIncentives, SpaceLimit, Storage};
pub use hot_storage_inputs::HotStorage;
pub use thermal_inputs::{Heating, HeatingLoadKind, KWH_PER_MMBTU};

/// Sections this optimizer reads.
pub const SUPPORTED_SECTIONS: [&str; 29] = [
    "Meta",
    "Settings",
    "Site",
    "Financial",
    "ElectricLoad",
    "ElectricTariff",
    "ElectricUtility",
    "PV",
    "Wind",
    "ElectricStorage",
    "Generator",
    "SpaceHeatingLoad",
    "DomesticHotWaterLoad",
    "ProcessHeatLoad",
    "ExistingBoiler",
    "Boiler",
    "HotThermalStorage",
    "CoolingLoad",
    "ExistingChiller",
    "CHP",
    "AbsorptionChiller",
    "ColdThermalStorage",
    "SteamTurbine",
    "GHP",
    "ElectricHeater",
    "ASHPSpaceHeater",
    "ASHPWaterHeater",
    "HighTempThermalStorage",
    "CST",
];

/// Every other section of the service's scenario (their presence makes a scenario unsupported).
pub const UNSUPPORTED_SECTIONS: [&str; 0] = [];

/// Commercial/industrial sector defaults the service applies when Financial rates are null
/// (the federal sector's are in `sector_inputs`).
pub mod sector_defaults {
    pub const ELEC_COST_ESCALATION: f64 = 0.0166;
    pub const OM_COST_ESCALATION: f64 = 0.025;
    pub const OFFTAKER_TAX: f64 = 0.26;
    pub const OFFTAKER_DISCOUNT: f64 = 0.0624;
    pub const PV_FEDERAL_ITC: f64 = 0.3;
    pub const STORAGE_TOTAL_ITC: f64 = 0.3;
    pub const MACRS_OPTION_YEARS: u32 = 5;
    pub const MACRS_BONUS_FRACTION: f64 = 1.0;
    pub const WIND_FEDERAL_ITC: f64 = 0.3;
    pub const GENERATOR_FUEL_ESCALATION: f64 = 0.0197;
    pub const BOILER_FUEL_ESCALATION: f64 = 0.0348;
    /// The owner's rates under third-party ownership (REopt.jl 0.56.4 `src/core/financial.jl`).
    pub const OWNER_TAX: f64 = 0.26;
    pub const OWNER_DISCOUNT: f64 = 0.0624;
}

/// The year the service sets for every reference (DOE) load profile.
pub const REFERENCE_PROFILE_YEAR: i32 = 2017;

/// Why a scenario cannot be optimized here.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScenarioError {
    /// Outside the supported subset: every offending section or input, one per entry.
    #[error("{}", .0.message())]
    Unsupported(Unsupported),
    /// Inputs the service's optimizer would reject at run time (results status "error").
    #[error("{}", .0.join(" "))]
    Invalid(Vec<String>),
}

/// The unsupported sections and inputs found, e.g. `Wind (section)` or
/// `ElectricTariff.urdb_label (URDB rates)`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Unsupported {
    pub items: Vec<String>,
}

impl Unsupported {
    pub fn message(&self) -> String {
        format!(
            "The local optimizer does not model these parts of the scenario: {}. Remove them or use the live service.",
            self.items.join("; ")
        )
    }
}

/// A value this optimizer filled for a null input, echoed in the results' `inputs`.
#[derive(Debug, Clone, PartialEq)]
pub struct FilledDefault {
    pub section: &'static str,
    pub field: &'static str,
    pub value: Value,
    /// The item of a list section (a PV array) it belongs to; None: every item.
    pub item: Option<usize>,
    /// The service replaces a given value too (not only a null one).
    pub overrides: bool,
}

impl FilledDefault {
    pub fn new(section: &'static str, field: &'static str, value: Value) -> Self {
        FilledDefault { section, field, value, item: None, overrides: false }
    }

    /// A value the service sets whatever the scenario gave.
    pub fn forced(section: &'static str, field: &'static str, value: Value) -> Self {
        FilledDefault { overrides: true, ..FilledDefault::new(section, field, value) }
    }
}

/// A series brought to the model's resolution (the service's "resampled inputs" message).
#[derive(Debug, Clone, PartialEq)]
pub struct Resampled {
    pub section: &'static str,
    pub field: &'static str,
    pub note: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub time_steps_per_hour: usize,
    /// Calendar year of the load (month boundaries).
    pub year: i32,
    /// Site load per step (kW), existing PV added back when `loads_kw_is_net`.
    pub load_kw: Vec<f64>,
    /// Load to serve without the grid (kW per step): the whole load off grid.
    pub critical_load_kw: Vec<f64>,
    /// Whether the grid serves each step (false in the deterministic outage and off grid).
    pub grid_available: Vec<bool>,
    /// The deterministic outage: first and last step (0-based, inclusive).
    pub single_outage: Option<(usize, usize)>,
    /// The multiple-outage form (`outage_start_time_steps`, `outage_durations`).
    pub outages: Option<Outages>,
    pub resilience: Resilience,
    pub generator: Option<Generator>,
    /// Off-grid settings when `Settings.off_grid_flag`.
    pub off_grid: Option<OffGrid>,
    pub tariff: Tariff,
    pub grid: GridLimits,
    /// The PV arrays, in scenario order (names unique).
    pub pvs: Vec<Pv>,
    /// Site space shared by arrays of one location: new kW of these arrays together.
    pub pv_space_limits: Vec<SpaceLimit>,
    pub storage: Option<Storage>,
    /// Grid emissions and clean-energy factors, emissions costs, renewable and CO2 targets.
    pub emissions: Emissions,
    /// Heating loads and the boilers serving them (None without a heating load).
    pub heating: Option<Heating>,
    /// The cooling load and the existing chiller serving it (None without a cooling load).
    pub cooling: Option<cooling_inputs::Cooling>,
    /// Combined heat and power (None without the section).
    pub chp: Option<chp_inputs::Chp>,
    /// The steam turbine fed by the boilers (`steam_turbine_inputs`).
    pub steam_turbine: Option<steam_turbine_inputs::SteamTurbine>,
    /// Geothermal heat pump design options (None without the section).
    pub ghp: Option<ghp_inputs::Ghp>,
    /// ElectricHeater, ASHPSpaceHeater, ASHPWaterHeater (those given), sized in the optimal case.
    pub heat_pumps: Vec<electric_heater_inputs::HeatPump>,
    pub financial: Financial,
    pub settings: RunSettings,
    pub capex_bounds: CapexBounds,
    pub filled_defaults: Vec<FilledDefault>,
    pub resampled: Vec<Resampled>,
}

impl Model {
    pub fn steps(&self) -> usize {
        self.load_kw.len()
    }

    /// Hours per time step, Δ = 1 / time_steps_per_hour.
    pub fn step_hours(&self) -> f64 {
        1.0 / self.time_steps_per_hour as f64
    }

    pub fn has_grid(&self, t: usize) -> bool {
        self.grid_available[t]
    }

    /// The electric load of the year (kWh): the load where the grid serves, the critical load
    /// where it does not (the deterministic outage; off grid, every step).
    pub fn annual_electric_load_kwh(&self) -> f64 {
        let step_load = |t: usize| if self.grid_available[t] { self.load_kw[t] } else { self.critical_load_kw[t] };
        (0..self.steps()).map(step_load).sum::<f64>() * self.step_hours()
    }

    /// Whether any array of this kind exists.
    pub fn has_array(&self, kind: ArrayKind) -> bool {
        self.pvs.iter().any(|pv| pv.kind == kind)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Financial {
    pub analysis_years: u32,
    /// Two-party ownership: a developer at the owner's rates owns the technologies and the
    /// offtaker pays the utility bills (`Financial.third_party_ownership`).
    pub third_party_ownership: bool,
    pub elec_cost_escalation_rate_fraction: f64,
    pub om_cost_escalation_rate_fraction: f64,
    pub offtaker_discount_rate_fraction: f64,
    pub offtaker_tax_rate_fraction: f64,
    pub owner_discount_rate_fraction: f64,
    pub owner_tax_rate_fraction: f64,
    pub generator_fuel_cost_escalation_rate_fraction: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunSettings {
    pub run_bau: bool,
    pub add_soc_incentive: bool,
    /// Relative gap at which a branch-and-bound search stops (`Settings.optimality_tolerance`).
    pub optimality_tolerance: f64,
    /// `Site.include_exported_renewable_electricity_in_total`: exported renewable kWh count as
    /// renewable electricity of the site (results only).
    pub include_exported_renewable_electricity_in_total: bool,
}

/// Financial.min/max_initial_capital_costs_before_incentives.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CapexBounds {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

/// Reads a resolved scenario. `pv_production[i]` is the PV engine's production factor (kW AC
/// per kW DC) of array `i` on the site's weather, hourly or per step; an array's own
/// `production_factor_series` wins.
pub fn from_scenario(resolved: &Value, pv_production: &[Option<Vec<f64>>]) -> Result<Model, ScenarioError> {
    let Some(root) = resolved.as_object() else {
        return Err(ScenarioError::Invalid(vec!["A scenario must be a JSON object whose keys are section names.".into()]));
    };
    let empty = Map::new();
    let mut reader = Reader::new(root, &empty);
    reader.check_sections();
    reader.check_unmodelled_inputs();
    reader.sector = reader.read_sector();
    let model = reader.read_model(pv_production);
    model.iter().for_each(|m| reader.check_heating_loads_served(m));
    reader.finish(model)
}

/// Reads fields with defaults and collects every unsupported input and invalid value at once.
pub(super) struct Reader<'a> {
    pub(super) root: &'a Map<String, Value>,
    pub(super) empty: &'a Map<String, Value>,
    pub(super) unsupported: Vec<String>,
    pub(super) invalid: Vec<String>,
    pub(super) filled: Vec<FilledDefault>,
    pub(super) resampled: Vec<Resampled>,
    /// The defaults of the site's sector (`sector_inputs`).
    pub(super) sector: sector_inputs::SectorDefaults,
}

/// The entries in first-seen order without repeats (a section may be read more than once).
fn distinct(items: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    items.into_iter().filter(|item| seen.insert(item.clone())).collect()
}

impl<'a> Reader<'a> {
    fn new(root: &'a Map<String, Value>, empty: &'a Map<String, Value>) -> Self {
        Reader {
            root,
            empty,
            unsupported: Vec::new(),
            invalid: Vec::new(),
            filled: Vec::new(),
            resampled: Vec::new(),
            sector: sector_inputs::SectorDefaults::COMMERCIAL,
        }
    }

    fn finish(self, model: Option<Model>) -> Result<Model, ScenarioError> {
        if !self.unsupported.is_empty() {
            return Err(ScenarioError::Unsupported(Unsupported { items: distinct(self.unsupported) }));
        }
        match model {
            Some(mut model) if self.invalid.is_empty() => {
                model.filled_defaults = self.filled;
                model.resampled = self.resampled;
                Ok(model)
            }
            _ => Err(ScenarioError::Invalid(distinct(self.invalid))),
        }
    }

    /// A section as an object. Absent or null → None.
    pub(super) fn section(&mut self, name: &str) -> Option<&'a Map<String, Value>> {
        match self.root.get(name) {
            None | Some(Value::Null) => None,
            Some(Value::Object(map)) => Some(map),
            Some(_) => {
                self.invalid.push(format!("{name} must be an object."));
                None
            }
        }
    }

    /// The PV arrays: one object or a list of objects.
    pub(super) fn pv_sections(&mut self) -> Vec<&'a Map<String, Value>> {
        match self.root.get("PV") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Object(map)) => vec![map],
            Some(Value::Array(items)) => match items.iter().map(Value::as_object).collect::<Option<Vec<_>>>() {
                Some(maps) => maps,
                None => {
                    self.invalid.push("PV must be an object or a list of objects.".into());
                    Vec::new()
                }
            },
            Some(_) => {
                self.invalid.push("PV must be an object or a list of objects.".into());
                Vec::new()
            }
        }
    }

    fn check_sections(&mut self) {
        for name in UNSUPPORTED_SECTIONS {
            if is_given(self.root.get(name)) {
                self.unsupported.push(format!("{name} (section)"));
            }
        }
    }

    /// Inputs of supported sections that change the optimization but are not modelled here.
    fn check_unmodelled_inputs(&mut self) {
        if let Some(load) = self.section("ElectricLoad") {
            if is_given(load.get("blended_doe_reference_names")) && !is_given(load.get("loads_kw")) {
                self.unsupported.push(
                    "ElectricLoad.blended_doe_reference_names (reference building profiles: resolve them into loads_kw with Scenario.resolve(client))".into(),
                );
            }
        }
        if let Some(tariff) = self.section("ElectricTariff") {
            if !is_given(tariff.get("urdb_response")) {
                for field in ["urdb_label", "urdb_utility_name", "urdb_rate_name"] {
                    if is_given(tariff.get(field)) {
                        self.unsupported.push(format!(
                            "ElectricTariff.{field} (URDB rates by reference: resolve them into urdb_response with Scenario.resolve(client))"
                        ));
                    }
                }
            }
        }
        if let Some(wind) = self.section("Wind") {
            let sized = wind.get("max_kw").and_then(Value::as_f64).is_none_or(|kw| kw > 0.0);
            if sized && !is_given(wind.get("production_factor_series")) {
                self.unsupported.push(
                    "Wind without production_factor_series (Scenario.resolve(client) computes it from the WIND Toolkit resource with the service's turbine model, or give Wind.production_factor_series)".into(),
                );
            }
        }
        if let Some(cst) = self.section("CST") {
            let sized = cst.get("max_kw").and_then(Value::as_f64).is_none_or(|kw| kw > 0.0);
            if sized && !is_given(cst.get("production_factor")) {
                let why = match cst_trough::design_of_cst(cst) {
                    Ok(_) => "the service runs SAM's trough model on NSRDB weather: compute one with sunflux.optimizer.trough_production_factor from a weather year, or post the job to the embedded service, which fills its stand-in".to_string(),
                    Err(other) => format!("{other}; the service computes it from SSC_Inputs with SAM"),
                };
                self.unsupported.push(format!("CST without production_factor ({why})"));
            }
        }
        if let Some(generator) = self.section("Generator") {
            // The service prices these through its cost curve in a way of its own (the basis
            // grossed up by the ITC); not modelled here.
            for field in ["federal_itc_fraction", "federal_rebate_per_kw"] {
                if generator.get(field).and_then(Value::as_f64).is_some_and(|v| v > 0.0) {
                    self.unsupported.push(format!("Generator.{field} (generator capital incentives)"));
                }
            }
        }
        if let Some(storage) = self.section("ElectricStorage") {
            match storage.get("dispatch_strategy").and_then(Value::as_str) {
                None | Some("optimized") => {}
                Some(other) => self.unsupported.push(format!("ElectricStorage.dispatch_strategy={other} (only \"optimized\")")),
            }
        }
    }

    pub(super) fn number_in(&mut self, map: &Map<String, Value>, section: &str, field: &str) -> Option<f64> {
        match map.get(field) {
            None | Some(Value::Null) => None,
            Some(value) => match value.as_f64() {
                Some(x) if x.is_finite() => Some(x),
                _ => {
                    self.invalid.push(format!("{section}.{field} must be a number."));
                    None
                }
            },
        }
    }

    /// A number input, or its default in the optimizer schema.
    pub(super) fn number(&mut self, map: &Map<String, Value>, section: &str, field: &str) -> f64 {
        let default = self.schema_default(section, field, Value::as_f64);
        self.number_or(map, section, field, default)
    }

    /// A number input the schema has no default for (the service leaves it null): `default`.
    pub(super) fn number_or(&mut self, map: &Map<String, Value>, section: &str, field: &str, default: f64) -> f64 {
        self.number_in(map, section, field).unwrap_or(default)
    }

    /// The schema's default of a field the reader relies on; a field without one is a defect
    /// of this reader, reported as an invalid input rather than a panic.
    fn schema_default<T: Default>(&mut self, section: &str, field: &str, read: fn(&Value) -> Option<T>) -> T {
        schema::default(section, field).and_then(read).unwrap_or_else(|| {
            self.invalid.push(format!("{section}.{field} has no default of this type in the optimizer schema."));
            T::default()
        })
    }

    /// A nullable input the service fills later: the default is recorded for the echo.
    pub(super) fn filled_number(&mut self, map: &Map<String, Value>, section: &'static str, field: &'static str, default: f64) -> f64 {
        self.number_in(map, section, field).unwrap_or_else(|| {
            self.filled.push(FilledDefault::new(section, field, Value::from(default)));
            default
        })
    }

    /// A whole-number field filled with its default when null; the echo keeps it an integer.
    pub(super) fn filled_count(&mut self, map: &Map<String, Value>, section: &'static str, field: &'static str, default: u32) -> u32 {
        match self.number_in(map, section, field) {
            Some(value) => value as u32,
            None => {
                self.filled.push(FilledDefault::new(section, field, Value::from(default)));
                default
            }
        }
    }

    /// A whole-number input, or its default in the optimizer schema.
    pub(super) fn count(&mut self, map: &Map<String, Value>, section: &str, field: &str) -> u32 {
        let default = self.schema_default(section, field, |value| value.as_u64().and_then(|n| u32::try_from(n).ok()));
        self.count_or(map, section, field, default)
    }

    pub(super) fn count_or(&mut self, map: &Map<String, Value>, section: &str, field: &str, default: u32) -> u32 {
        match self.number_in(map, section, field) {
            None => default,
            Some(x) if x >= 0.0 && x <= f64::from(u32::MAX) => x.trunc() as u32,
            Some(_) => {
                self.invalid.push(format!("{section}.{field} must be a non-negative integer."));
                default
            }
        }
    }

    /// A true/false input, or its default in the optimizer schema.
    pub(super) fn flag(&mut self, map: &Map<String, Value>, section: &str, field: &str) -> bool {
        let default = self.schema_default(section, field, Value::as_bool);
        self.flag_or(map, section, field, default)
    }

    pub(super) fn flag_or(&mut self, map: &Map<String, Value>, section: &str, field: &str, default: bool) -> bool {
        match map.get(field) {
            None | Some(Value::Null) => default,
            Some(value) => service_bool(value).unwrap_or_else(|| {
                self.invalid.push(format!("{section}.{field} must be true or false."));
                default
            }),
        }
    }

    /// A list of numbers (a scalar counts as a one-element list); absent → empty.
    pub(super) fn numbers(&mut self, map: &Map<String, Value>, section: &str, field: &str) -> Vec<f64> {
        let values: Vec<&Value> = match map.get(field) {
            None | Some(Value::Null) => return Vec::new(),
            Some(Value::Array(items)) => items.iter().collect(),
            Some(scalar) => vec![scalar],
        };
        let parsed: Option<Vec<f64>> = values.iter().map(|v| v.as_f64().filter(|x| x.is_finite())).collect();
        parsed.unwrap_or_else(|| {
            self.invalid.push(format!("{section}.{field} must be a list of numbers."));
            Vec::new()
        })
    }

    pub(super) fn text<'m>(&self, map: &'m Map<String, Value>, field: &str) -> &'m str {
        map.get(field).and_then(Value::as_str).unwrap_or("")
    }

    /// A series of 8760, 17520 or 35040 values brought to `steps_per_hour`.
    pub(super) fn series(&mut self, values: &[f64], section: &'static str, field: &'static str, steps_per_hour: usize) -> Option<Vec<f64>> {
        match resample(values, steps_per_hour) {
            Ok((series, note)) => {
                if let Some(note) = note {
                    self.resampled.push(Resampled { section, field, note });
                }
                Some(series)
            }
            Err(message) => {
                self.invalid.push(format!("{section}.{field}: {message}"));
                None
            }
        }
    }

    fn read_model(&mut self, pv_production: &[Option<Vec<f64>>]) -> Option<Model> {
        let settings_map = self.section("Settings").unwrap_or(self.empty);
        let steps_per_hour = self.count(settings_map, "Settings", "time_steps_per_hour") as usize;
        if ![1, 2, 4].contains(&steps_per_hour) {
            self.invalid.push("Settings.time_steps_per_hour must be 1, 2 or 4.".into());
            return None;
        }
        let settings = RunSettings {
            run_bau: self.flag(settings_map, "Settings", "run_bau"),
            add_soc_incentive: self.flag(settings_map, "Settings", "add_soc_incentive"),
            optimality_tolerance: self.number(settings_map, "Settings", "optimality_tolerance").max(1e-9),
            include_exported_renewable_electricity_in_total: {
                let site = self.section("Site").unwrap_or(self.empty);
                self.flag(site, "Site", "include_exported_renewable_electricity_in_total")
            },
        };
        let off_grid = self.off_grid_flag();
        let settings = RunSettings { run_bau: settings.run_bau && !off_grid, ..settings };
        let financial = self.read_financial();
        let capex_bounds = self.read_capex_bounds();
        // Before the load and the tariff, whose failures end the reading: every unsupported
        // part of the generator is named too.
        let generator = self.read_generator(off_grid, financial.analysis_years);
        let emissions = self.read_emissions(steps_per_hour, off_grid, generator.is_some(), settings.run_bau);
        self.check_chp();
        let (load_year, base_load) = self.read_load(steps_per_hour)?;
        let steps = base_load.len();
        let annual_kwh = base_load.iter().sum::<f64>() / steps_per_hour as f64;
        let mut pvs = self.read_pvs(steps_per_hour, pv_production, annual_kwh, off_grid);
        let pv_space_limits = self.pv_space_limits(&pvs);
        if let Some(wind) = self.read_wind(steps_per_hour, &base_load, off_grid) {
            pvs.push(wind);
        }
        let existing_pv: Vec<f64> = (0..steps).map(|t| pvs.iter().map(|pv| pv.existing_kw * pv.production_factor[t]).sum()).collect();
        let critical_load_kw = self.read_critical_load(&base_load, steps_per_hour, off_grid, &existing_pv);
        let base_electric_kw = base_load.clone();
        let load_kw = self.net_load_adjustment(base_load, &pvs);
        let grid = self.read_grid();
        let outages = self.read_outages(steps, off_grid);
        let resilience = self.read_resilience(outages.multiple.as_ref());
        let storage = self.read_storage(off_grid, resilience.soc_min_applies_during_outages, &financial);
        let context = thermal_inputs::HeatingContext { off_grid };
        let heating = self.read_heating(steps_per_hour, load_year, context, &financial);
        let cooling = self.read_cooling(steps_per_hour, load_year, &base_electric_kw, context, heating.as_ref(), &financial);
        let chp = self.read_chp(heating.as_ref(), &base_electric_kw, steps_per_hour, load_year);
        let steam_turbine = self.read_steam_turbine(heating.as_ref(), &financial);
        let without_grid: Vec<bool> = (0..steps).map(|t| off_grid || outages.single.is_some_and(|(first, last)| (first..=last).contains(&t))).collect();
        let ghp_loads = ghp_inputs::GhpLoads { heating: heating.as_ref(), cooling_kw: cooling.as_ref().map(|c| c.load_kw.as_slice()), without_grid: &without_grid };
        let ghp = self.read_ghp(steps_per_hour, &financial, ghp_loads);
        if ghp.is_some() && (capex_bounds.min.is_some() || capex_bounds.max.is_some()) {
            self.unsupported.push("Financial.min/max_initial_capital_costs_before_incentives with GHP (its capital in the bounds)".into());
        }
        let mut heat_pumps = self.read_heat_pumps(heating.as_ref(), cooling.as_ref().map(|c| c.load_kw.as_slice()), steps_per_hour, &financial);
        electric_heater_inputs::drop_forced_charges(heating.as_ref(), &mut heat_pumps);
        if let (Some(chp), Some(_)) = (&chp, &outages.multiple) {
            self.check_chp_in_outages(chp);
        }
        if heating.is_some() && generator.is_none() {
            self.check_onsite_fuel_costs(&emissions);
        }
        if heating.is_some() && financial.third_party_ownership {
            self.unsupported.push("Financial.third_party_ownership=true with heating loads (the boilers' third-party costs)".into());
        }
        // Read last: a tariff that cannot be read ends the reading, and every other unsupported
        // part must be named first.
        let tariff = if off_grid { Tariff::none(steps_per_hour, load_year) } else { self.read_tariff(steps_per_hour, load_year)? };
        let off_grid = off_grid.then(|| self.read_off_grid());
        let grid_available = without_grid.iter().map(|&without| !without).collect();
        Some(Model {
            time_steps_per_hour: steps_per_hour,
            year: load_year,
            load_kw,
            critical_load_kw,
            grid_available,
            single_outage: outages.single,
            outages: outages.multiple,
            resilience,
            generator,
            off_grid,
            tariff,
            grid,
            pvs,
            pv_space_limits,
            storage,
            emissions,
            heating,
            cooling,
            chp,
            steam_turbine,
            ghp,
            heat_pumps,
            financial,
            settings,
            capex_bounds,
            filled_defaults: Vec::new(),
            resampled: Vec::new(),
        })
    }
}

/// Brings a series of 8760, 17520 or 35040 values to 8760 · `steps_per_hour` values: longer
/// series are averaged, shorter ones repeated. Returns the service's note when it changed.
pub fn resample(values: &[f64], steps_per_hour: usize) -> Result<(Vec<f64>, Option<&'static str>), String> {
    let target = HOURS_PER_YEAR * steps_per_hour;
    if steps_per_hour_of_year(values.len()).is_none() {
        return Err(
            "Invalid length. Samples must be hourly (8,760 samples), 30 minute (17,520 samples), or 15 minute (35,040 samples)"
                .into(),
        );
    }
    if values.len() == target {
        Ok((values.to_vec(), None))
    } else if values.len() < target {
        let repeat = target / values.len();
        Ok((
            values.iter().flat_map(|&v| std::iter::repeat_n(v, repeat)).collect(),
            Some("Upsampled to match time_steps_per_hour via forward-fill."),
        ))
    } else {
        let group = values.len() / target;
        Ok((
            values.chunks(group).map(|c| c.iter().sum::<f64>() / group as f64).collect(),
            Some("Downsampled to match time_steps_per_hour via average."),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimizer::tariff::TieredCharge;
    use serde_json::json;

    fn flat_scenario() -> Value {
        json!({
            "Site": {"latitude": 40.0, "longitude": -105.0},
            "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 87600.0},
            "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 10.0},
        })
    }

    #[test]
    fn flat_load_and_blended_tariff_resolve_with_defaults() {
        let model = from_scenario(&flat_scenario(), &[]).unwrap();
        assert_eq!(model.steps(), 8760);
        assert!(model.load_kw.iter().all(|kw| (kw - 10.0).abs() < 1e-9));
        assert_eq!(model.tariff.monthly_demand, vec![TieredCharge::flat(10.0); 12]);
        assert_eq!(model.financial.offtaker_discount_rate_fraction, sector_defaults::OFFTAKER_DISCOUNT);
        assert_eq!(model.year, 2017);
        assert!(model.filled_defaults.iter().any(|f| f.field == "elec_cost_escalation_rate_fraction"));
    }

    #[test]
    fn every_unsupported_part_is_named() {
        let mut scenario = flat_scenario();
        scenario["Wind"] = json!({"max_kw": 100});
        scenario["ElectricTariff"]["urdb_label"] = json!("abc");
        scenario["ElectricLoad"]["doe_reference_name"] = json!("Hospital");
        scenario["CST"] = json!({"max_kw": 100});
        scenario["Site"]["land_acres"] = json!(10.0);
        scenario["CHP"] = json!({"max_kw": 100, "follow_electrical_load": true});
        let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be unsupported") };
        let text = found.message();
        for needle in ["Wind without production_factor_series", "ElectricTariff.urdb_label", "CST without production_factor", "CHP.follow_electrical_load=true", "Scenario.resolve(client)"] {
            assert!(text.contains(needle), "{needle} missing from {text}");
        }
    }

    #[test]
    fn generator_incentives_are_refused_and_production_incentives_are_read() {
        let mut scenario = flat_scenario();
        scenario["Generator"] = json!({"max_kw": 10, "federal_itc_fraction": 0.3});
        let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be unsupported") };
        assert!(found.message().contains("Generator.federal_itc_fraction (generator capital incentives)"));
        let mut scenario = flat_scenario();
        scenario["PV"] = json!({"production_factor_series": vec![0.2; 8760], "production_incentive_per_kwh": 0.05,
                                "production_incentive_years": 5});
        let model = from_scenario(&scenario, &[]).unwrap();
        let incentive = &model.pvs[0].production_incentive;
        assert!(incentive.applies());
        assert_eq!((incentive.per_kwh, incentive.years, incentive.max_kw, incentive.max_benefit), (0.05, 5, 1e9, 1e9));
    }

    #[test]
    fn pv_costs_left_out_get_the_size_class_defaults() {
        let mut scenario = flat_scenario();
        scenario["PV"] = json!([{"name": "roof", "production_factor_series": vec![0.2; 8760]},
                                {"name": "field", "array_type": 0, "om_cost_per_kw": 15.0, "production_factor_series": vec![0.2; 8760]}]);
        let model = from_scenario(&scenario, &[]).unwrap();
        // 87,600 kWh a year → 0.5 · 87,600 / 1,752 = 25 kW: small commercial (2,232 $/kW, 26 $/kW-year).
        assert_eq!((model.pvs[0].installed_cost_per_kw, model.pvs[0].om_cost_per_kw), (2232.0, 26.0));
        assert_eq!((model.pvs[1].installed_cost_per_kw, model.pvs[1].om_cost_per_kw), ((2232.0f64 * 1.3).round(), 15.0));
        let filled: Vec<(&str, Option<usize>)> =
            model.filled_defaults.iter().filter(|f| f.section == "PV" && f.field.ends_with("cost_per_kw")).map(|f| (f.field, f.item)).collect();
        assert_eq!(filled, vec![("installed_cost_per_kw", Some(0)), ("om_cost_per_kw", Some(0)), ("installed_cost_per_kw", Some(1))]);
    }

    #[test]
    fn loads_without_year_are_invalid() {
        let mut scenario = flat_scenario();
        scenario["ElectricLoad"] = json!({"loads_kw": vec![1.0; 8760]});
        assert!(matches!(from_scenario(&scenario, &[]), Err(ScenarioError::Invalid(_))));
    }

    #[test]
    fn the_section_lists_cover_the_services_29_sections_once() {
        let mut all: Vec<&str> = SUPPORTED_SECTIONS.iter().chain(UNSUPPORTED_SECTIONS.iter()).copied().collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 29);
    }

    #[test]
    fn resampling_averages_and_repeats() {
        let (down, note) = resample(&[1.0, 3.0].repeat(8760), 1).unwrap();
        assert_eq!(down.len(), 8760);
        assert_eq!(down[0], 2.0);
        assert!(note.unwrap().starts_with("Downsampled"));
        let (up, _) = resample(&vec![5.0; 8760], 4).unwrap();
        assert_eq!(up.len(), 35040);
        assert!(resample(&[1.0; 10], 1).is_err());
    }
}

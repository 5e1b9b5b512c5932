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
//! ElectricUtility, PV (one array or a list), Wind, ElectricStorage, Generator}, or any input of
//! those sections that this optimizer does not model set to a non-default value (listed one by
//! one). Inputs that only feed outputs this optimizer does not produce (grid emissions) are
//! ignored. Inputs the service itself would reject at run time become `ScenarioError::Invalid`.
//! The resilience parts (Generator, outages, Wind, off grid) are read in `resilience_inputs`.

use serde_json::{Map, Value};

use super::calendar::{self, HOURS_PER_YEAR};
use crate::formats::calendar::steps_per_hour_of_year;
use crate::optimizer::scenario::given as is_given;
use super::pv_costs;
use crate::optimizer::scenario::schema;
use resilience_inputs::{Generator, OffGrid, Outages, Resilience};
use super::tariff::{self, CoincidentPeak, Lookback, Tariff, TieredCharge, UNLIMITED_ENERGY_TIER_KWH};
use crate::optimizer::loads::{flat_load_shape, peak_scaling_skipped, scale_profile, scale_to_monthly_peaks, EnergyTarget, PeakScalingError, FLAT_LOADS};

pub mod resilience_inputs;

/// Sections this optimizer reads.
pub const SUPPORTED_SECTIONS: [&str; 11] = [
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
];

/// Every other section of the service's scenario (their presence makes a scenario unsupported).
pub const UNSUPPORTED_SECTIONS: [&str; 18] = [
    "CoolingLoad",
    "ExistingChiller",
    "ExistingBoiler",
    "SpaceHeatingLoad",
    "DomesticHotWaterLoad",
    "CHP",
    "Boiler",
    "HotThermalStorage",
    "HighTempThermalStorage",
    "ColdThermalStorage",
    "AbsorptionChiller",
    "SteamTurbine",
    "GHP",
    "ProcessHeatLoad",
    "ElectricHeater",
    "ASHPSpaceHeater",
    "ASHPWaterHeater",
    "CST",
];

/// Commercial/industrial sector defaults the service applies when Financial rates are null.
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

    /// Whether any array of this kind exists.
    pub fn has_array(&self, kind: ArrayKind) -> bool {
        self.pvs.iter().any(|pv| pv.kind == kind)
    }
}

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

#[derive(Debug, Clone, PartialEq)]
pub struct GridLimits {
    pub net_metering_limit_kw: f64,
    pub interconnection_limit_kw: f64,
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

#[derive(Debug, Clone, PartialEq)]
pub struct Financial {
    pub analysis_years: u32,
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
    let model = reader.read_model(pv_production);
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
        const SET_MEANS_UNSUPPORTED: [(&str, &str, &str); 4] = [
            ("Site", "CO2_emissions_reduction_min_fraction", "emissions constraints"),
            ("Site", "CO2_emissions_reduction_max_fraction", "emissions constraints"),
            ("Site", "renewable_electricity_min_fraction", "renewable-energy constraints"),
            ("Site", "renewable_electricity_max_fraction", "renewable-energy constraints"),
        ];
        for (section, field, what) in SET_MEANS_UNSUPPORTED {
            if let Some(map) = self.section(section) {
                if is_given(map.get(field)) {
                    self.unsupported.push(format!("{section}.{field} ({what})"));
                }
            }
        }
        let flags: [(&str, &str, bool, &str); 4] = [
            ("Settings", "include_climate_in_objective", true, "climate costs in the objective"),
            ("Settings", "include_health_in_objective", true, "health costs in the objective"),
            ("Financial", "third_party_ownership", true, "third-party ownership"),
            ("ElectricUtility", "allow_simultaneous_export_import", false, "forbidding simultaneous export and import"),
        ];
        for (section, field, unsupported_value, what) in flags {
            if let Some(map) = self.section(section) {
                if map.get(field).and_then(Value::as_bool) == Some(unsupported_value) {
                    self.unsupported.push(format!("{section}.{field}={unsupported_value} ({what})"));
                }
            }
        }
        if let Some(site) = self.section("Site") {
            if site.get("sector").and_then(Value::as_str) == Some("federal") {
                self.unsupported.push("Site.sector=federal (federal sector defaults)".into());
            }
        }
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
        for pv in self.pv_sections() {
            if pv.get("production_incentive_per_kwh").and_then(Value::as_f64).is_some_and(|v| v > 0.0) {
                self.unsupported.push("PV.production_incentive_per_kwh (production-based incentives)".into());
            }
        }
        if let Some(wind) = self.section("Wind") {
            let sized = wind.get("max_kw").and_then(Value::as_f64).is_none_or(|kw| kw > 0.0);
            if sized && !is_given(wind.get("production_factor_series")) {
                self.unsupported.push(
                    "Wind without production_factor_series (the local optimizer has no wind resource data or turbine model: give Wind.production_factor_series)".into(),
                );
            }
            if wind.get("production_incentive_per_kwh").and_then(Value::as_f64).is_some_and(|v| v > 0.0) {
                self.unsupported.push("Wind.production_incentive_per_kwh (production-based incentives)".into());
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
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                self.invalid.push(format!("{section}.{field} must be true or false."));
                default
            }
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
        };
        let off_grid = self.off_grid_flag();
        let settings = RunSettings { run_bau: settings.run_bau && !off_grid, ..settings };
        let financial = self.read_financial();
        let capex_bounds = self.read_capex_bounds();
        // Before the load and the tariff, whose failures end the reading: every unsupported
        // part of the generator is named too.
        let generator = self.read_generator(off_grid, financial.analysis_years);
        let (load_year, base_load) = self.read_load(steps_per_hour)?;
        let steps = base_load.len();
        let annual_kwh = base_load.iter().sum::<f64>() / steps_per_hour as f64;
        let mut pvs = self.read_pvs(steps_per_hour, pv_production, annual_kwh, off_grid);
        let pv_space_limits = self.pv_space_limits(&pvs);
        if let Some(wind) = self.read_wind(steps_per_hour, &base_load, off_grid) {
            pvs.push(wind);
        }
        self.check_shared_flows(&pvs, off_grid);
        let existing_pv: Vec<f64> = (0..steps).map(|t| pvs.iter().map(|pv| pv.existing_kw * pv.production_factor[t]).sum()).collect();
        let critical_load_kw = self.read_critical_load(&base_load, steps_per_hour, off_grid, &existing_pv);
        let load_kw = self.net_load_adjustment(base_load, &pvs);
        let grid = self.read_grid();
        let outages = self.read_outages(steps, off_grid);
        let resilience = self.read_resilience(outages.multiple.as_ref());
        let storage = self.read_storage(off_grid, resilience.soc_min_applies_during_outages);
        // Read last: a tariff that cannot be read ends the reading, and every other unsupported
        // part must be named first.
        let tariff = if off_grid { Tariff::none(steps_per_hour, load_year) } else { self.read_tariff(steps_per_hour, load_year)? };
        let off_grid = off_grid.then(|| self.read_off_grid());
        let grid_available = (0..steps)
            .map(|t| off_grid.is_none() && !outages.single.is_some_and(|(first, last)| (first..=last).contains(&t)))
            .collect();
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
            financial,
            settings,
            capex_bounds,
            filled_defaults: Vec::new(),
            resampled: Vec::new(),
        })
    }

    fn read_financial(&mut self) -> Financial {
        use sector_defaults as sd;
        let map = self.section("Financial").unwrap_or(self.empty);
        let s = "Financial";
        let offtaker_discount = self.filled_number(map, s, "offtaker_discount_rate_fraction", sd::OFFTAKER_DISCOUNT);
        let offtaker_tax = self.filled_number(map, s, "offtaker_tax_rate_fraction", sd::OFFTAKER_TAX);
        // Without third-party ownership the owner is the offtaker: the service overwrites the
        // owner's rates with the offtaker's.
        for (field, value) in [("owner_discount_rate_fraction", offtaker_discount), ("owner_tax_rate_fraction", offtaker_tax)] {
            self.filled.push(FilledDefault::forced(s, field, Value::from(value)));
        }
        Financial {
            analysis_years: self.count(map, s, "analysis_years").max(1),
            elec_cost_escalation_rate_fraction: self.filled_number(map, s, "elec_cost_escalation_rate_fraction", sd::ELEC_COST_ESCALATION),
            om_cost_escalation_rate_fraction: self.filled_number(map, s, "om_cost_escalation_rate_fraction", sd::OM_COST_ESCALATION),
            offtaker_discount_rate_fraction: offtaker_discount,
            offtaker_tax_rate_fraction: offtaker_tax,
            owner_discount_rate_fraction: offtaker_discount,
            owner_tax_rate_fraction: offtaker_tax,
            generator_fuel_cost_escalation_rate_fraction: self.filled_number(
                map,
                s,
                "generator_fuel_cost_escalation_rate_fraction",
                sd::GENERATOR_FUEL_ESCALATION,
            ),
        }
    }

    fn read_capex_bounds(&mut self) -> CapexBounds {
        let map = self.section("Financial").unwrap_or(self.empty);
        CapexBounds {
            min: self.number_in(map, "Financial", "min_initial_capital_costs_before_incentives"),
            max: self.number_in(map, "Financial", "max_initial_capital_costs_before_incentives"),
        }
    }

    /// The load year and the load per step before the net-load adjustment.
    fn read_load(&mut self, steps_per_hour: usize) -> Option<(i32, Vec<f64>)> {
        let Some(map) = self.section("ElectricLoad") else {
            self.invalid.push("ElectricLoad: Missing required inputs.".into());
            return None;
        };
        let s = "ElectricLoad";
        let loads = self.numbers(map, s, "loads_kw");
        let annual = self.number_in(map, s, "annual_kwh");
        let monthly = self.numbers(map, s, "monthly_totals_kwh");
        let peaks = self.numbers(map, s, "monthly_peaks_kw");
        let normalize = self.flag(map, s, "normalize_and_scale_load_profile_input");
        if annual.is_some() && !monthly.is_empty() {
            self.invalid.push("Cannot provide both annual_kwh and monthly_totals_kwh to scale the electric load profile.".into());
            return None;
        }
        if !monthly.is_empty() && monthly.len() != 12 {
            self.invalid.push("ElectricLoad.monthly_totals_kwh must have 12 values.".into());
            return None;
        }
        let energy = match (annual, monthly.is_empty()) {
            (Some(total), _) => Some(EnergyTarget::Annual(total)),
            (None, false) => Some(EnergyTarget::Monthly(monthly)),
            (None, true) => None,
        };
        let name = self.text(map, "doe_reference_name");
        if !loads.is_empty() {
            let Some(year) = self.number_in(map, s, "year").map(|y| y as i32) else {
                self.invalid.push("Must provide ElectricLoad.year when using loads_kw input.".into());
                return None;
            };
            let series = self.series(&loads, s, "loads_kw", steps_per_hour)?;
            let blend = self.reference_blend(map);
            let blend: Vec<(&str, f64)> = blend.iter().map(|(name, share)| (name.as_str(), *share)).collect();
            // The service looks at the reference names even for a custom profile.
            let scaling = LoadScaling { normalize, energy, peaks, skip_peaks: peak_scaling_skipped(name, &blend) };
            return self.custom_load(series, year, steps_per_hour, scaling).map(|load| (year, load));
        }
        if name.is_empty() {
            self.invalid.push("ElectricLoad: Must provide at least one set of valid inputs.".into());
            return None;
        }
        if !FLAT_LOADS.contains(&name) {
            self.unsupported.push(format!(
                "ElectricLoad.doe_reference_name={name} (reference building profiles other than FlatLoad: resolve them into loads_kw with Scenario.resolve(client))"
            ));
            return None;
        }
        let Some(energy) = energy else {
            self.unsupported.push(format!(
                "ElectricLoad.doe_reference_name={name} without annual_kwh or monthly_totals_kwh (the climate-zone default energy: resolve it with Scenario.resolve(client))"
            ));
            return None;
        };
        // `monthly_peaks_kw` is left unused here: the service does not scale a FlatLoad to peaks.
        let year = REFERENCE_PROFILE_YEAR;
        self.filled.push(FilledDefault::new(s, "year", Value::from(year)));
        let hourly = scale_profile(&flat_load_shape(name, year), &energy, year, 1);
        Some((year, hourly.iter().flat_map(|&kw| std::iter::repeat_n(kw, steps_per_hour)).collect()))
    }

    /// `blended_doe_reference_names` paired with `blended_doe_reference_percents` (only what
    /// the service's FlatLoad test of `monthly_peaks_kw` reads; unpaired names are dropped).
    fn reference_blend(&mut self, map: &Map<String, Value>) -> Vec<(String, f64)> {
        let names: Vec<String> = match map.get("blended_doe_reference_names") {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        let shares = self.numbers(map, "ElectricLoad", "blended_doe_reference_percents");
        names.into_iter().zip(shares).collect()
    }

    /// A custom `loads_kw` profile with `normalize_and_scale_load_profile_input` as the
    /// service applies it: the energy scaling first (the profile normalized, then scaled to
    /// `annual_kwh` or `monthly_totals_kwh`), then the scaling to `monthly_peaks_kw`
    /// (`loads::scale_to_monthly_peaks`), or the peaks alone on the profile as given.
    fn custom_load(&mut self, loads: Vec<f64>, year: i32, steps_per_hour: usize, scaling: LoadScaling) -> Option<Vec<f64>> {
        let LoadScaling { normalize, energy, peaks, skip_peaks } = scaling;
        if !normalize {
            if energy.is_none() && peaks.is_empty() {
                return Some(loads);
            }
            self.invalid.push(
                "If providing loads_kw and annual_kwh or monthly_totals_kwh or monthly_peaks_kw, must set normalize_and_scale_load_profile_input=true."
                    .into(),
            );
            return None;
        }
        let loads = match energy {
            Some(energy) => {
                let total: f64 = loads.iter().sum();
                if total <= 0.0 {
                    self.invalid.push("ElectricLoad.loads_kw must have a positive total to be normalized.".into());
                    return None;
                }
                let shape: Vec<f64> = loads.iter().map(|kw| kw / total).collect();
                scale_profile(&shape, &energy, year, steps_per_hour)
            }
            None if peaks.is_empty() => {
                self.invalid.push(
                    "Provided loads_kw with normalize_and_scale_load_profile_input=true, but no annual_kwh, monthly_totals_kwh, or monthly_peaks_kw was provided"
                        .into(),
                );
                return None;
            }
            None => loads,
        };
        if peaks.is_empty() || skip_peaks {
            return Some(loads);
        }
        match scale_to_monthly_peaks(&loads, &peaks, year, steps_per_hour) {
            Ok(scaled) => Some(scaled),
            Err(PeakScalingError::Rejected(message)) => {
                self.invalid.push(message);
                None
            }
            Err(PeakScalingError::Months(problems)) => {
                for problem in problems {
                    self.unsupported.push(format!("ElectricLoad.monthly_peaks_kw ({problem})"));
                }
                None
            }
        }
    }

    /// `loads_kw_is_net`: the load given is net of the existing PV, whose output is added back.
    fn net_load_adjustment(&mut self, mut load: Vec<f64>, pvs: &[Pv]) -> Vec<f64> {
        let map = self.section("ElectricLoad").unwrap_or(self.empty);
        let is_net = self.flag(map, "ElectricLoad", "loads_kw_is_net");
        for pv in pvs.iter().filter(|pv| is_net && pv.existing_kw > 0.0) {
            for (kw, factor) in load.iter_mut().zip(&pv.production_factor) {
                *kw += pv.existing_kw * factor;
            }
        }
        load
    }

    fn read_tariff(&mut self, steps_per_hour: usize, year: i32) -> Option<Tariff> {
        let Some(map) = self.section("ElectricTariff") else {
            self.invalid.push("ElectricTariff: Missing required inputs.".into());
            return None;
        };
        let s = "ElectricTariff";
        let steps = HOURS_PER_YEAR * steps_per_hour;
        let month_of_step = calendar::month_of_each_step(year, steps_per_hour);
        let tou = self.numbers(map, s, "tou_energy_rates_per_kwh");
        let monthly_energy = self.numbers(map, s, "monthly_energy_rates");
        let monthly_demand = self.numbers(map, s, "monthly_demand_rates");
        let blended_energy = self.number_in(map, s, "blended_annual_energy_rate");
        let blended_demand = self.number_in(map, s, "blended_annual_demand_rate");
        for (rates, field) in [(&monthly_energy, "monthly_energy_rates"), (&monthly_demand, "monthly_demand_rates")] {
            if !rates.is_empty() && rates.len() != 12 {
                self.invalid.push(format!("length({field}) must equal 12, got length {}", rates.len()));
                return None;
            }
        }
        let twelve = |rates: &[f64]| -> Vec<TieredCharge> { (0..12).map(|m| TieredCharge::flat(rates.get(m).copied().unwrap_or(0.0))).collect() };
        let unlimited_tier = || vec![vec![UNLIMITED_ENERGY_TIER_KWH]; 12];
        let mut parts = if let Some(response) = map.get("urdb_response").filter(|v| is_given(Some(v))) {
            let rate = match tariff::read_urdb(response, year, steps_per_hour) {
                Ok(rate) => rate,
                Err(message) => {
                    self.invalid.push(message);
                    return None;
                }
            };
            let mut parts = TariffParts {
                energy_rates: rate.energy_rates,
                energy_tier_limits: rate.energy_tier_limits,
                monthly_demand: rate.monthly_demand,
                tou_demand: rate.tou_demand,
                lookback: rate.lookback,
                fixed_monthly_charge: rate.fixed_monthly_charge,
                annual_min_charge: rate.annual_min_charge,
                sell_rate: rate.sell_rate,
            };
            if self.flag(map, s, "add_monthly_rates_to_urdb_rate") {
                if monthly_energy.len() == 12 {
                    for tier in &mut parts.energy_rates {
                        for (rate, &m) in tier.iter_mut().zip(&month_of_step) {
                            *rate += monthly_energy[m as usize];
                        }
                    }
                }
                if monthly_demand.len() == 12 {
                    for (charge, extra) in parts.monthly_demand.iter_mut().zip(&monthly_demand) {
                        charge.rates.iter_mut().for_each(|rate| *rate += extra);
                    }
                }
            }
            if self.flag(map, s, "add_tou_energy_rates_to_urdb_rate") && tou.len() == steps {
                for tier in &mut parts.energy_rates {
                    tier.iter_mut().zip(&tou).for_each(|(rate, extra)| *rate += extra);
                }
            }
            parts
        } else {
            let (energy, demand) = if !tou.is_empty() {
                (self.series(&tou, s, "tou_energy_rates_per_kwh", steps_per_hour)?, twelve(&monthly_demand))
            } else if !monthly_energy.is_empty() {
                (month_of_step.iter().map(|&m| monthly_energy[m as usize]).collect(), twelve(&monthly_demand))
            } else if let Some(rate) = blended_energy {
                let demand = match blended_demand {
                    Some(d) => twelve(&[d; 12]),
                    None => twelve(&monthly_demand),
                };
                (vec![rate; steps], demand)
            } else {
                self.invalid.push(
                    "Creating ElectricTariff requires at least urdb_label, urdb_response, monthly rates, annual rates, or tou_energy_rates_per_kwh."
                        .into(),
                );
                return None;
            };
            TariffParts {
                energy_rates: vec![energy],
                energy_tier_limits: unlimited_tier(),
                monthly_demand: demand,
                tou_demand: Vec::new(),
                lookback: self.read_lookback(map)?,
                fixed_monthly_charge: 0.0,
                annual_min_charge: 0.0,
                sell_rate: vec![0.0; steps],
            }
        };
        let wholesale = self.numbers(map, s, "wholesale_rate");
        let beyond = self.numbers(map, s, "export_rate_beyond_net_metering_limit");
        let mut wholesale_rate = self.export_rate(&wholesale, "wholesale_rate", steps_per_hour)?;
        wholesale_rate.iter_mut().zip(&parts.sell_rate).for_each(|(rate, sell)| *rate += sell);
        let coincident_peaks = self.read_coincident_peaks(map, steps)?;
        let nem_rate = Tariff::nem_rates_from_energy(&parts.energy_rates);
        if parts.monthly_demand.iter().all(|c| c.rates.iter().all(|r| *r == 0.0)) && parts.lookback == Lookback::None {
            parts.monthly_demand.clear();
        }
        Some(Tariff {
            month_of_step,
            energy_rates: parts.energy_rates,
            energy_tier_limits: parts.energy_tier_limits,
            monthly_demand: parts.monthly_demand,
            tou_demand: parts.tou_demand,
            lookback: parts.lookback,
            coincident_peaks,
            fixed_monthly_charge: parts.fixed_monthly_charge,
            annual_min_charge: parts.annual_min_charge,
            nem_rate,
            wholesale_rate,
            export_beyond_nem_rate: self.export_rate(&beyond, "export_rate_beyond_net_metering_limit", steps_per_hour)?,
        })
    }

    /// `demand_lookback_months` (12 flags) or `demand_lookback_range`, with `demand_lookback_percent`.
    fn read_lookback(&mut self, map: &Map<String, Value>) -> Option<Lookback> {
        let s = "ElectricTariff";
        let months = self.numbers(map, s, "demand_lookback_months");
        let range = self.count_or(map, s, "demand_lookback_range", 0) as usize;
        let percent = self.number_or(map, s, "demand_lookback_percent", 0.0);
        if !months.is_empty() && months.len() != 12 {
            self.invalid.push("Length of demand_lookback_months array must be 12.".into());
            return None;
        }
        if range != 0 && !months.is_empty() {
            self.invalid.push("Cannot supply demand_lookback_months if demand_lookback_range != 0.".into());
            return None;
        }
        let flags: Vec<bool> = months.iter().map(|m| *m == 1.0).collect();
        Some(tariff::lookback_from(percent, range, &flags))
    }

    /// `coincident_peak_load_active_time_steps` (lists of 1-based steps) with one
    /// `coincident_peak_load_charge_per_kw` each.
    fn read_coincident_peaks(&mut self, map: &Map<String, Value>, steps: usize) -> Option<Vec<CoincidentPeak>> {
        let s = "ElectricTariff";
        let charges = self.numbers(map, s, "coincident_peak_load_charge_per_kw");
        let periods: Vec<Vec<f64>> = match map.get("coincident_peak_load_active_time_steps") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                let lists: Option<Vec<Vec<f64>>> =
                    items.iter().map(|item| item.as_array().map(|steps| steps.iter().filter_map(Value::as_f64).collect())).collect();
                match lists {
                    Some(lists) => lists.into_iter().filter(|l| !l.is_empty()).collect(),
                    None => {
                        self.invalid.push("ElectricTariff.coincident_peak_load_active_time_steps must be a list of lists of time steps.".into());
                        return None;
                    }
                }
            }
            Some(_) => {
                self.invalid.push("ElectricTariff.coincident_peak_load_active_time_steps must be a list of lists of time steps.".into());
                return None;
            }
        };
        if charges.is_empty() {
            return Some(Vec::new());
        }
        if charges.len() != periods.len() {
            self.invalid.push(
                "The number of rates in coincident_peak_load_charge_per_kw must match the number of timestep sets in coincident_peak_load_active_time_steps"
                    .into(),
            );
            return None;
        }
        let mut peaks = Vec::with_capacity(periods.len());
        for (period, charge) in periods.into_iter().zip(charges) {
            if period.iter().any(|&step| step < 1.0 || step > steps as f64 || step.fract() != 0.0) {
                self.invalid.push(format!("ElectricTariff.coincident_peak_load_active_time_steps must hold time steps from 1 to {steps}."));
                return None;
            }
            peaks.push(CoincidentPeak { steps: period.iter().map(|&step| step as usize - 1).collect(), charge_per_kw: charge });
        }
        Some(peaks)
    }

    /// An export rate given as nothing, one value, 12 monthly values or a series.
    fn export_rate(&mut self, values: &[f64], field: &'static str, steps_per_hour: usize) -> Option<Vec<f64>> {
        let steps = HOURS_PER_YEAR * steps_per_hour;
        match values.len() {
            0 => Some(vec![0.0; steps]),
            1 => Some(vec![values[0]; steps]),
            12 => {
                let hourly: Vec<f64> = calendar::month_of_each_hour_non_leap().iter().map(|&m| values[m as usize]).collect();
                Some(hourly.iter().flat_map(|&r| std::iter::repeat_n(r, steps_per_hour)).collect())
            }
            _ => self.series(values, "ElectricTariff", field, steps_per_hour),
        }
    }

    fn read_grid(&mut self) -> GridLimits {
        let map = self.section("ElectricUtility").unwrap_or(self.empty);
        GridLimits {
            net_metering_limit_kw: self.number(map, "ElectricUtility", "net_metering_limit_kw"),
            interconnection_limit_kw: self.number(map, "ElectricUtility", "interconnection_limit_kw"),
        }
    }

    /// Every PV array that can exist (max or existing capacity above zero); names must be unique.
    fn read_pvs(&mut self, steps_per_hour: usize, engine: &[Option<Vec<f64>>], annual_kwh: f64, off_grid: bool) -> Vec<Pv> {
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

    /// The renewable arrays (PV and Wind) share one set of flows: their export and curtailment
    /// flags, and off grid their operating reserve share, must agree.
    fn check_shared_flows(&mut self, arrays: &[Pv], off_grid: bool) {
        let flags = |pv: &Pv| (pv.can_net_meter, pv.can_wholesale, pv.can_export_beyond_nem_limit, pv.can_curtail);
        if arrays.windows(2).any(|pair| flags(&pair[0]) != flags(&pair[1])) {
            self.unsupported.push("PV arrays or Wind with different can_net_meter, can_wholesale, can_export_beyond_nem_limit or can_curtail".into());
        }
        let reserve = |pv: &Pv| pv.operating_reserve_required_fraction;
        if off_grid && arrays.windows(2).any(|pair| reserve(&pair[0]) != reserve(&pair[1])) {
            self.unsupported.push("PV and Wind with different operating_reserve_required_fraction off grid".into());
        }
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
        let incentives = self.read_incentives(map, s, sector_defaults::PV_FEDERAL_ITC);
        Some(Pv {
            kind: ArrayKind::Pv,
            operating_reserve_required_fraction: self.reserve_fraction(map, s, off_grid, 0.25),
            name: match self.text(map, "name") {
                "" => default_name,
                name => name.to_string(),
            },
            location,
            existing_kw,
            min_new_kw: min_kw,
            max_new_kw: space_limit_kw.map_or(max_kw, |limit| max_kw.min(limit)),
            installed_cost_per_kw: installed_cost,
            om_cost_per_kw: om_cost,
            degradation_fraction: self.number(map, s, "degradation_fraction"),
            production_factor,
            incentives,
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

    /// The wind turbine, from its production factor (the wind resource download and turbine
    /// model of the service are not available here), sized and priced like an array.
    /// The incentives of a PV array or the wind turbine (the same fields in both sections).
    fn read_incentives(&mut self, map: &Map<String, Value>, s: &'static str, federal_itc_fraction: f64) -> PvIncentives {
        use sector_defaults as sd;
        PvIncentives {
            federal_itc_fraction: self.filled_number(map, s, "federal_itc_fraction", federal_itc_fraction),
            macrs_option_years: self.filled_count(map, s, "macrs_option_years", sd::MACRS_OPTION_YEARS),
            macrs_bonus_fraction: self.filled_number(map, s, "macrs_bonus_fraction", sd::MACRS_BONUS_FRACTION),
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

    fn read_wind(&mut self, steps_per_hour: usize, base_load: &[f64], off_grid: bool) -> Option<Pv> {
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
        let incentives = self.read_incentives(map, s, sector_defaults::WIND_FEDERAL_ITC);
        Some(Pv {
            kind: ArrayKind::Wind,
            name: "Wind".into(),
            location: "wind".into(),
            existing_kw: 0.0,
            min_new_kw: min_kw,
            max_new_kw: max_kw,
            installed_cost_per_kw,
            om_cost_per_kw: self.number(map, s, "om_cost_per_kw"),
            degradation_fraction: 0.0,
            production_factor,
            incentives,
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
    fn pv_space_limits(&mut self, pvs: &[Pv]) -> Vec<SpaceLimit> {
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

    fn read_storage(&mut self, off_grid: bool, soc_min_applies_during_outages: bool) -> Option<Storage> {
        use sector_defaults as sd;
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
            installed_cost_per_kwh: self.number(map, s, "installed_cost_per_kwh"),
            installed_cost_constant: self.number(map, s, "installed_cost_constant"),
            replace_cost_per_kw: self.number(map, s, "replace_cost_per_kw"),
            replace_cost_per_kwh: self.number(map, s, "replace_cost_per_kwh"),
            replace_cost_constant: self.number(map, s, "replace_cost_constant"),
            inverter_replacement_year: self.count(map, s, "inverter_replacement_year"),
            battery_replacement_year: self.count(map, s, "battery_replacement_year"),
            cost_constant_replacement_year: self.count(map, s, "cost_constant_replacement_year"),
            om_cost_fraction_of_installed_cost: self.number(map, s, "om_cost_fraction_of_installed_cost"),
            macrs_option_years: self.filled_count(map, s, "macrs_option_years", sd::MACRS_OPTION_YEARS),
            macrs_bonus_fraction: self.filled_number(map, s, "macrs_bonus_fraction", sd::MACRS_BONUS_FRACTION),
            macrs_itc_reduction: self.number(map, s, "macrs_itc_reduction"),
            total_itc_fraction: self.filled_number(map, s, "total_itc_fraction", sd::STORAGE_TOTAL_ITC),
            total_rebate_per_kw: self.number(map, s, "total_rebate_per_kw"),
            total_rebate_per_kwh: self.number(map, s, "total_rebate_per_kwh"),
            min_duration_hours: self.number(map, s, "min_duration_hours"),
            max_duration_hours: self.number(map, s, "max_duration_hours"),
        })
    }
}

/// The service's default wind cost for a size class ($/kW): given, or chosen by the average
/// load (≤ 12.5 kW residential, ≤ 100 commercial, ≤ 1000 medium, else large).
pub fn wind_size_class_cost(size_class: &str, load_kw: &[f64]) -> f64 {
    let average = load_kw.iter().sum::<f64>() / load_kw.len().max(1) as f64;
    let class = match size_class {
        "" if average <= 12.5 => "residential",
        "" if average <= 100.0 => "commercial",
        "" if average <= 1000.0 => "medium",
        "" => "large",
        given => given,
    };
    match class {
        "residential" => 7692.0,
        "commercial" => 5776.0,
        "medium" => 3807.0,
        _ => 2896.0,
    }
}

/// How a custom `loads_kw` profile is to be scaled (ElectricLoad inputs).
struct LoadScaling {
    /// `normalize_and_scale_load_profile_input`.
    normalize: bool,
    /// `annual_kwh` or `monthly_totals_kwh`.
    energy: Option<EnergyTarget>,
    /// `monthly_peaks_kw` (empty: not given).
    peaks: Vec<f64>,
    /// The service does not scale to the peaks (FlatLoad reference names), though it checks
    /// that they come with `normalize`.
    skip_peaks: bool,
}

/// The pieces of a tariff that depend on how it was given (URDB or custom rates).
struct TariffParts {
    energy_rates: Vec<Vec<f64>>,
    energy_tier_limits: Vec<Vec<f64>>,
    monthly_demand: Vec<TieredCharge>,
    tou_demand: Vec<tariff::DemandPeriod>,
    lookback: Lookback,
    fixed_monthly_charge: f64,
    annual_min_charge: f64,
    sell_rate: Vec<f64>,
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
        scenario["CHP"] = json!({"max_kw": 100});
        let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, &[]) else { panic!("must be unsupported") };
        let text = found.message();
        for needle in ["Wind without production_factor_series", "ElectricTariff.urdb_label", "CHP (section)", "Scenario.resolve(client)"] {
            assert!(text.contains(needle), "{needle} missing from {text}");
        }
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

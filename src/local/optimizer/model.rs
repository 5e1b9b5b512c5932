//! The supported subset of an optimizer scenario as typed, fully resolved values, and
//! `from_scenario`, which reads a scenario dict (as the lead's Python builder resolves it with
//! `Scenario.to_dict(include_defaults=True)`) into a `Model` or says why it cannot.
//!
//! Units: kW, kWh, $, fractions; every series has one value per time step of the modelled
//! year (8760 · time_steps_per_hour). Values the service leaves null and fills later (sector
//! defaults of Financial, PV and ElectricStorage; the on-grid storage defaults) are filled here
//! with the service's numbers and recorded in `Model::filled_defaults` so results can echo them.
//!
//! Subset rules: a scenario is rejected as `ScenarioError::Unsupported` when it carries any
//! section outside {Meta, Settings, Site, Financial, ElectricLoad, ElectricTariff,
//! ElectricUtility, PV (one array), ElectricStorage}, or any input of those sections that this
//! optimizer does not model set to a non-default value (listed one by one). Inputs that only
//! feed outputs this optimizer does not produce (emissions, outages, off-grid) are ignored.
//! Inputs the service itself would reject at run time become `ScenarioError::Invalid`.

use serde_json::{Map, Value};

use super::calendar::{self, HOURS_PER_YEAR};

/// Sections this optimizer reads.
pub const SUPPORTED_SECTIONS: [&str; 9] =
    ["Meta", "Settings", "Site", "Financial", "ElectricLoad", "ElectricTariff", "ElectricUtility", "PV", "ElectricStorage"];

/// Every other section of the service's scenario (their presence makes a scenario unsupported).
pub const UNSUPPORTED_SECTIONS: [&str; 20] = [
    "Generator",
    "Wind",
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
}

/// The FlatLoad reference profiles (constant load over their operating hours).
pub const FLAT_LOADS: [&str; 6] = ["FlatLoad", "FlatLoad_24_5", "FlatLoad_16_7", "FlatLoad_16_5", "FlatLoad_8_7", "FlatLoad_8_5"];

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
    pub tariff: Tariff,
    pub grid: GridLimits,
    pub pv: Option<Pv>,
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
}

#[derive(Debug, Clone, PartialEq)]
pub struct Tariff {
    /// $/kWh of grid purchases per step.
    pub energy_rate: Vec<f64>,
    /// $/kW of each month's peak grid purchase.
    pub monthly_demand_rate: [f64; 12],
    /// Month index (0..12) of each step.
    pub month_of_step: Vec<u8>,
    /// $/kWh paid for wholesale exports per step (all zero: no wholesale bin).
    pub wholesale_rate: Vec<f64>,
    /// $/kWh paid for exports beyond the net-metering limit per step.
    pub export_beyond_nem_rate: Vec<f64>,
}

impl Tariff {
    /// Net-metered exports are credited at 99.9 % of the retail rate (the service's rule, so
    /// that buying and selling the same kWh is never free).
    pub fn nem_rate(&self, step: usize) -> f64 {
        0.999 * self.energy_rate[step]
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct GridLimits {
    pub net_metering_limit_kw: f64,
    pub interconnection_limit_kw: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pv {
    pub name: String,
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
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunSettings {
    pub run_bau: bool,
    pub add_soc_incentive: bool,
}

/// Financial.min/max_initial_capital_costs_before_incentives.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CapexBounds {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

/// Reads a resolved scenario. `pv_production` is the PV engine's production factor (kW AC per
/// kW DC) on the site's weather, hourly or per step; `PV.production_factor_series` wins.
pub fn from_scenario(resolved: &Value, pv_production: Option<&[f64]>) -> Result<Model, ScenarioError> {
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
struct Reader<'a> {
    root: &'a Map<String, Value>,
    empty: &'a Map<String, Value>,
    unsupported: Vec<String>,
    invalid: Vec<String>,
    filled: Vec<FilledDefault>,
    resampled: Vec<Resampled>,
}

/// The entries in first-seen order without repeats (a section may be read more than once).
fn distinct(items: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    items.into_iter().filter(|item| seen.insert(item.clone())).collect()
}

/// Whether a JSON value counts as given (the service's rule: not null, "" or []).
fn is_given(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(_) => true,
    }
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

    /// A section as an object; PV may be a one-element list. Absent or null → None.
    fn section(&mut self, name: &str) -> Option<&'a Map<String, Value>> {
        match self.root.get(name) {
            None | Some(Value::Null) => None,
            Some(Value::Object(map)) => Some(map),
            Some(Value::Array(items)) if name == "PV" => match items.as_slice() {
                [] => None,
                [Value::Object(map)] => Some(map),
                [_] => {
                    self.invalid.push("PV must be an object.".into());
                    None
                }
                _ => {
                    self.unsupported.push(format!("PV ({} arrays; one PV array is modelled)", items.len()));
                    None
                }
            },
            Some(_) => {
                self.invalid.push(format!("{name} must be an object."));
                None
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
        const SET_MEANS_UNSUPPORTED: [(&str, &str, &str); 17] = [
            ("Site", "CO2_emissions_reduction_min_fraction", "emissions constraints"),
            ("Site", "CO2_emissions_reduction_max_fraction", "emissions constraints"),
            ("Site", "renewable_electricity_min_fraction", "renewable-energy constraints"),
            ("Site", "renewable_electricity_max_fraction", "renewable-energy constraints"),
            ("ElectricLoad", "blended_doe_reference_names", "blended reference building profiles"),
            ("ElectricLoad", "blended_doe_reference_percents", "blended reference building profiles"),
            ("ElectricTariff", "urdb_label", "URDB rates"),
            ("ElectricTariff", "urdb_response", "URDB rates"),
            ("ElectricTariff", "urdb_utility_name", "URDB rates"),
            ("ElectricTariff", "urdb_rate_name", "URDB rates"),
            ("ElectricTariff", "coincident_peak_load_active_time_steps", "coincident peak charges"),
            ("ElectricTariff", "coincident_peak_load_charge_per_kw", "coincident peak charges"),
            ("ElectricUtility", "outage_start_time_step", "grid outages"),
            ("ElectricUtility", "outage_end_time_step", "grid outages"),
            ("ElectricUtility", "outage_start_time_steps", "grid outages"),
            ("ElectricUtility", "outage_durations", "grid outages"),
            ("ElectricUtility", "outage_probabilities", "grid outages"),
        ];
        for (section, field, what) in SET_MEANS_UNSUPPORTED {
            if let Some(map) = self.section(section) {
                if is_given(map.get(field)) {
                    self.unsupported.push(format!("{section}.{field} ({what})"));
                }
            }
        }
        let flags: [(&str, &str, bool, &str); 5] = [
            ("Settings", "off_grid_flag", true, "off-grid systems"),
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
            if site.get("min_resil_time_steps").and_then(Value::as_f64).is_some_and(|v| v > 0.0) {
                self.unsupported.push("Site.min_resil_time_steps (resilience constraints)".into());
            }
        }
        if let Some(pv) = self.section("PV") {
            if pv.get("production_incentive_per_kwh").and_then(Value::as_f64).is_some_and(|v| v > 0.0) {
                self.unsupported.push("PV.production_incentive_per_kwh (production-based incentives)".into());
            }
        }
        if let Some(storage) = self.section("ElectricStorage") {
            match storage.get("dispatch_strategy").and_then(Value::as_str) {
                None | Some("optimized") => {}
                Some(other) => self.unsupported.push(format!("ElectricStorage.dispatch_strategy={other} (only \"optimized\")")),
            }
        }
    }

    fn number_in(&mut self, map: &Map<String, Value>, section: &str, field: &str) -> Option<f64> {
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

    fn number(&mut self, map: &Map<String, Value>, section: &str, field: &str, default: f64) -> f64 {
        self.number_in(map, section, field).unwrap_or(default)
    }

    /// A nullable input the service fills later: the default is recorded for the echo.
    fn filled_number(&mut self, map: &Map<String, Value>, section: &'static str, field: &'static str, default: f64) -> f64 {
        self.number_in(map, section, field).unwrap_or_else(|| {
            self.filled.push(FilledDefault { section, field, value: Value::from(default) });
            default
        })
    }

    /// A whole-number field filled with its default when null; the echo keeps it an integer.
    fn filled_count(&mut self, map: &Map<String, Value>, section: &'static str, field: &'static str, default: u32) -> u32 {
        match self.number_in(map, section, field) {
            Some(value) => value as u32,
            None => {
                self.filled.push(FilledDefault { section, field, value: Value::from(default) });
                default
            }
        }
    }

    fn count(&mut self, map: &Map<String, Value>, section: &str, field: &str, default: u32) -> u32 {
        match self.number_in(map, section, field) {
            None => default,
            Some(x) if x >= 0.0 && x <= f64::from(u32::MAX) => x.trunc() as u32,
            Some(_) => {
                self.invalid.push(format!("{section}.{field} must be a non-negative integer."));
                default
            }
        }
    }

    fn flag(&mut self, map: &Map<String, Value>, section: &str, field: &str, default: bool) -> bool {
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
    fn numbers(&mut self, map: &Map<String, Value>, section: &str, field: &str) -> Vec<f64> {
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

    fn text<'m>(&self, map: &'m Map<String, Value>, field: &str) -> &'m str {
        map.get(field).and_then(Value::as_str).unwrap_or("")
    }

    /// A series of 8760, 17520 or 35040 values brought to `steps_per_hour`.
    fn series(&mut self, values: &[f64], section: &'static str, field: &'static str, steps_per_hour: usize) -> Option<Vec<f64>> {
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

    fn read_model(&mut self, pv_production: Option<&[f64]>) -> Option<Model> {
        let settings_map = self.section("Settings").unwrap_or(self.empty);
        let steps_per_hour = self.count(settings_map, "Settings", "time_steps_per_hour", 1) as usize;
        if ![1, 2, 4].contains(&steps_per_hour) {
            self.invalid.push("Settings.time_steps_per_hour must be 1, 2 or 4.".into());
            return None;
        }
        let settings = RunSettings {
            run_bau: self.flag(settings_map, "Settings", "run_bau", true),
            add_soc_incentive: self.flag(settings_map, "Settings", "add_soc_incentive", true),
        };
        let financial = self.read_financial();
        let capex_bounds = self.read_capex_bounds();
        let (load_year, base_load) = self.read_load(steps_per_hour)?;
        let pv = self.read_pv(steps_per_hour, pv_production);
        let load_kw = self.net_load_adjustment(base_load, pv.as_ref());
        let tariff = self.read_tariff(steps_per_hour, load_year)?;
        let grid = self.read_grid();
        let storage = self.read_storage();
        Some(Model {
            time_steps_per_hour: steps_per_hour,
            year: load_year,
            load_kw,
            tariff,
            grid,
            pv,
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
            self.filled.push(FilledDefault { section: s, field, value: Value::from(value) });
        }
        Financial {
            analysis_years: self.count(map, s, "analysis_years", 25).max(1),
            elec_cost_escalation_rate_fraction: self.filled_number(map, s, "elec_cost_escalation_rate_fraction", sd::ELEC_COST_ESCALATION),
            om_cost_escalation_rate_fraction: self.filled_number(map, s, "om_cost_escalation_rate_fraction", sd::OM_COST_ESCALATION),
            offtaker_discount_rate_fraction: offtaker_discount,
            offtaker_tax_rate_fraction: offtaker_tax,
            owner_discount_rate_fraction: offtaker_discount,
            owner_tax_rate_fraction: offtaker_tax,
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
        let peaks_given = is_given(map.get("monthly_peaks_kw"));
        let normalize = self.flag(map, s, "normalize_and_scale_load_profile_input", false);
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
        if !loads.is_empty() {
            let Some(year) = self.number_in(map, s, "year").map(|y| y as i32) else {
                self.invalid.push("Must provide ElectricLoad.year when using loads_kw input.".into());
                return None;
            };
            let series = self.series(&loads, s, "loads_kw", steps_per_hour)?;
            return self.custom_load(series, year, steps_per_hour, normalize, energy, peaks_given).map(|load| (year, load));
        }
        let name = self.text(map, "doe_reference_name");
        if name.is_empty() {
            self.invalid.push("ElectricLoad: Must provide at least one set of valid inputs.".into());
            return None;
        }
        if !FLAT_LOADS.contains(&name) {
            self.unsupported.push(format!("ElectricLoad.doe_reference_name={name} (only the FlatLoad profiles are available locally)"));
            return None;
        }
        let Some(energy) = energy else {
            self.unsupported.push(format!(
                "ElectricLoad.doe_reference_name={name} without annual_kwh or monthly_totals_kwh (the climate-zone default energy)"
            ));
            return None;
        };
        let year = REFERENCE_PROFILE_YEAR;
        self.filled.push(FilledDefault { section: s, field: "year", value: Value::from(year) });
        let hourly = scale_profile(&flat_load_shape(name, year), &energy, year, 1);
        Some((year, hourly.iter().flat_map(|&kw| std::iter::repeat_n(kw, steps_per_hour)).collect()))
    }

    fn custom_load(
        &mut self,
        loads: Vec<f64>,
        year: i32,
        steps_per_hour: usize,
        normalize: bool,
        energy: Option<EnergyTarget>,
        peaks_given: bool,
    ) -> Option<Vec<f64>> {
        match (normalize, energy) {
            (false, None) if !peaks_given => Some(loads),
            (false, _) => {
                self.invalid.push(
                    "If providing loads_kw and annual_kwh or monthly_totals_kwh or monthly_peaks_kw, must set normalize_and_scale_load_profile_input=true."
                        .into(),
                );
                None
            }
            (true, Some(energy)) => {
                let total: f64 = loads.iter().sum();
                if total <= 0.0 {
                    self.invalid.push("ElectricLoad.loads_kw must have a positive total to be normalized.".into());
                    return None;
                }
                let shape: Vec<f64> = loads.iter().map(|kw| kw / total).collect();
                Some(scale_profile(&shape, &energy, year, steps_per_hour))
            }
            (true, None) => {
                self.unsupported.push("ElectricLoad.monthly_peaks_kw (scaling a profile to monthly peaks)".into());
                None
            }
        }
    }

    /// `loads_kw_is_net`: the load given is net of the existing PV, whose output is added back.
    fn net_load_adjustment(&mut self, mut load: Vec<f64>, pv: Option<&Pv>) -> Vec<f64> {
        let map = self.section("ElectricLoad").unwrap_or(self.empty);
        let is_net = self.flag(map, "ElectricLoad", "loads_kw_is_net", true);
        if let Some(pv) = pv.filter(|pv| is_net && pv.existing_kw > 0.0) {
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
        if !monthly_demand.is_empty() && monthly_demand.len() != 12 {
            self.invalid.push(format!("length(monthly_demand_rates) must equal 12, got length {}", monthly_demand.len()));
            return None;
        }
        let twelve = |rates: &[f64]| -> [f64; 12] { std::array::from_fn(|m| rates.get(m).copied().unwrap_or(0.0)) };
        let (energy_rate, monthly_demand_rate) = if !tou.is_empty() {
            (self.series(&tou, s, "tou_energy_rates_per_kwh", steps_per_hour)?, twelve(&monthly_demand))
        } else if !monthly_energy.is_empty() {
            if monthly_energy.len() != 12 {
                self.invalid.push(format!("length(monthly_energy_rates) must equal 12, got length {}", monthly_energy.len()));
                return None;
            }
            (month_of_step.iter().map(|&m| monthly_energy[m as usize]).collect(), twelve(&monthly_demand))
        } else if let Some(rate) = blended_energy {
            let demand = match blended_demand {
                Some(d) => [d; 12],
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
        let wholesale = self.numbers(map, s, "wholesale_rate");
        let beyond = self.numbers(map, s, "export_rate_beyond_net_metering_limit");
        Some(Tariff {
            energy_rate,
            monthly_demand_rate,
            month_of_step,
            wholesale_rate: self.export_rate(&wholesale, "wholesale_rate", steps_per_hour)?,
            export_beyond_nem_rate: self.export_rate(&beyond, "export_rate_beyond_net_metering_limit", steps_per_hour)?,
        })
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
            net_metering_limit_kw: self.number(map, "ElectricUtility", "net_metering_limit_kw", 0.0),
            interconnection_limit_kw: self.number(map, "ElectricUtility", "interconnection_limit_kw", 1.0e9),
        }
    }

    fn read_pv(&mut self, steps_per_hour: usize, engine: Option<&[f64]>) -> Option<Pv> {
        use sector_defaults as sd;
        let map = self.section("PV")?;
        let s = "PV";
        let existing_kw = self.number(map, s, "existing_kw", 0.0);
        let min_kw = self.number(map, s, "min_kw", 0.0);
        let max_kw = self.number(map, s, "max_kw", 1.0e9);
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
        let installed_cost = self.number_in(map, s, "installed_cost_per_kw");
        let om_cost = self.number_in(map, s, "om_cost_per_kw");
        for (value, field) in [(installed_cost, "installed_cost_per_kw"), (om_cost, "om_cost_per_kw")] {
            if value.is_none() {
                self.unsupported.push(format!("PV.{field} left to the service's size-class default (give a value)"));
            }
        }
        let space_limit_kw = self.pv_space_limit(map);
        let incentives = PvIncentives {
            federal_itc_fraction: self.filled_number(map, s, "federal_itc_fraction", sd::PV_FEDERAL_ITC),
            macrs_option_years: self.filled_count(map, s, "macrs_option_years", sd::MACRS_OPTION_YEARS),
            macrs_bonus_fraction: self.filled_number(map, s, "macrs_bonus_fraction", sd::MACRS_BONUS_FRACTION),
            macrs_itc_reduction: self.number(map, s, "macrs_itc_reduction", 0.5),
            state_ibi_fraction: self.number(map, s, "state_ibi_fraction", 0.0),
            state_ibi_max: self.number(map, s, "state_ibi_max", 1.0e10),
            utility_ibi_fraction: self.number(map, s, "utility_ibi_fraction", 0.0),
            utility_ibi_max: self.number(map, s, "utility_ibi_max", 1.0e10),
            federal_rebate_per_kw: self.number(map, s, "federal_rebate_per_kw", 0.0),
            state_rebate_per_kw: self.number(map, s, "state_rebate_per_kw", 0.0),
            state_rebate_max: self.number(map, s, "state_rebate_max", 1.0e10),
            utility_rebate_per_kw: self.number(map, s, "utility_rebate_per_kw", 0.0),
            utility_rebate_max: self.number(map, s, "utility_rebate_max", 1.0e10),
        };
        Some(Pv {
            name: match self.text(map, "name") {
                "" => "PV".to_string(),
                name => name.to_string(),
            },
            existing_kw,
            min_new_kw: min_kw,
            max_new_kw: space_limit_kw.map_or(max_kw, |limit| max_kw.min(limit)),
            installed_cost_per_kw: installed_cost.unwrap_or(0.0),
            om_cost_per_kw: om_cost.unwrap_or(0.0),
            degradation_fraction: self.number(map, s, "degradation_fraction", 0.005),
            production_factor,
            incentives,
            can_net_meter: self.flag(map, s, "can_net_meter", true),
            can_wholesale: self.flag(map, s, "can_wholesale", true),
            can_export_beyond_nem_limit: self.flag(map, s, "can_export_beyond_nem_limit", true),
            can_curtail: self.flag(map, s, "can_curtail", true),
        })
    }

    /// New PV kW that fits the site: roof area × kW/ft² and/or land ÷ acres/kW, by location
    /// ("both" is limited only when both areas are given).
    fn pv_space_limit(&mut self, pv: &Map<String, Value>) -> Option<f64> {
        let site = self.section("Site").unwrap_or(self.empty);
        let roof = self.number_in(site, "Site", "roof_squarefeet");
        let land = self.number_in(site, "Site", "land_acres");
        let kw_per_square_foot = self.number(pv, "PV", "kw_per_square_foot", 0.01);
        let acres_per_kw = self.number(pv, "PV", "acres_per_kw", 0.006);
        let roof_kw = roof.map(|ft2| ft2 * kw_per_square_foot);
        let land_kw = land.map(|acres| if acres_per_kw > 0.0 { acres / acres_per_kw } else { f64::INFINITY });
        match self.text(pv, "location") {
            "roof" => roof_kw,
            "ground" => land_kw,
            _ => roof_kw.zip(land_kw).map(|(r, l)| r + l),
        }
    }

    fn read_storage(&mut self) -> Option<Storage> {
        use sector_defaults as sd;
        let map = self.section("ElectricStorage")?;
        let s = "ElectricStorage";
        let max_kw = self.number(map, s, "max_kw", 1.0e9);
        let max_kwh = self.number(map, s, "max_kwh", 1.0e6);
        if max_kw <= 0.0 || max_kwh <= 0.0 {
            return None;
        }
        let soc_init_fraction = self.filled_number(map, s, "soc_init_fraction", 0.5);
        let internal = self.number(map, s, "internal_efficiency_fraction", 0.975);
        let inverter = self.number(map, s, "inverter_efficiency_fraction", 0.96);
        let rectifier = self.number(map, s, "rectifier_efficiency_fraction", 0.96);
        if internal <= 0.0 || inverter <= 0.0 || rectifier <= 0.0 {
            self.invalid.push("ElectricStorage efficiencies must be greater than 0.".into());
            return None;
        }
        let can_grid_charge = match map.get("can_grid_charge") {
            None | Some(Value::Null) => {
                self.filled.push(FilledDefault { section: s, field: "can_grid_charge", value: Value::Bool(true) });
                true
            }
            Some(_) => self.flag(map, s, "can_grid_charge", true),
        };
        Some(Storage {
            min_kw: self.number(map, s, "min_kw", 0.0),
            max_kw,
            min_kwh: self.number(map, s, "min_kwh", 0.0),
            max_kwh,
            internal_efficiency_fraction: internal,
            inverter_efficiency_fraction: inverter,
            rectifier_efficiency_fraction: rectifier,
            soc_min_fraction: self.number(map, s, "soc_min_fraction", 0.2),
            soc_init_fraction,
            optimize_soc_init_fraction: self.flag(map, s, "optimize_soc_init_fraction", false),
            can_grid_charge,
            installed_cost_per_kw: self.number(map, s, "installed_cost_per_kw", 968.0),
            installed_cost_per_kwh: self.number(map, s, "installed_cost_per_kwh", 253.0),
            installed_cost_constant: self.number(map, s, "installed_cost_constant", 222_115.0),
            replace_cost_per_kw: self.number(map, s, "replace_cost_per_kw", 0.0),
            replace_cost_per_kwh: self.number(map, s, "replace_cost_per_kwh", 0.0),
            replace_cost_constant: self.number(map, s, "replace_cost_constant", 0.0),
            inverter_replacement_year: self.count(map, s, "inverter_replacement_year", 10),
            battery_replacement_year: self.count(map, s, "battery_replacement_year", 10),
            cost_constant_replacement_year: self.count(map, s, "cost_constant_replacement_year", 10),
            om_cost_fraction_of_installed_cost: self.number(map, s, "om_cost_fraction_of_installed_cost", 0.025),
            macrs_option_years: self.filled_count(map, s, "macrs_option_years", sd::MACRS_OPTION_YEARS),
            macrs_bonus_fraction: self.filled_number(map, s, "macrs_bonus_fraction", sd::MACRS_BONUS_FRACTION),
            macrs_itc_reduction: self.number(map, s, "macrs_itc_reduction", 0.5),
            total_itc_fraction: self.filled_number(map, s, "total_itc_fraction", sd::STORAGE_TOTAL_ITC),
            total_rebate_per_kw: self.number(map, s, "total_rebate_per_kw", 0.0),
            total_rebate_per_kwh: self.number(map, s, "total_rebate_per_kwh", 0.0),
            min_duration_hours: self.number(map, s, "min_duration_hours", 0.0),
            max_duration_hours: self.number(map, s, "max_duration_hours", 100_000.0),
        })
    }
}

/// Annual or monthly energy a load profile is scaled to (kWh).
#[derive(Debug, Clone, PartialEq)]
enum EnergyTarget {
    Annual(f64),
    Monthly(Vec<f64>),
}

/// Scales a profile whose values sum to 1 so that it carries the target energy:
/// annual → `kW_t = shape_t · E · n`; monthly → each month's steps are scaled to that month's
/// kWh (a month with no operating steps gets none). `n` = steps per hour of the shape.
fn scale_profile(shape: &[f64], energy: &EnergyTarget, year: i32, steps_per_hour: usize) -> Vec<f64> {
    let n = steps_per_hour as f64;
    match energy {
        EnergyTarget::Annual(total) => shape.iter().map(|x| x * total * n).collect(),
        EnergyTarget::Monthly(months) => {
            let month_of_step = calendar::month_of_each_step(year, steps_per_hour);
            let mut month_share = [0.0; 12];
            for (x, &m) in shape.iter().zip(&month_of_step) {
                month_share[m as usize] += x;
            }
            shape
                .iter()
                .zip(&month_of_step)
                .map(|(x, &m)| {
                    let share = month_share[m as usize];
                    if share > 0.0 {
                        x * months[m as usize] / share * n
                    } else {
                        0.0
                    }
                })
                .collect()
        }
    }
}

/// Normalized hourly shape of a FlatLoad profile for `year`: 1 in operating hours, 0 elsewhere,
/// divided by the count. `_5` variants skip Saturdays and Sundays; `_16_` runs 06:00–22:00 and
/// `_8_` 09:00–17:00.
pub fn flat_load_shape(name: &str, year: i32) -> Vec<f64> {
    let weekdays_only = name.ends_with("_5");
    let hours: std::ops::Range<usize> = if name.starts_with("FlatLoad_16") {
        6..22
    } else if name.starts_with("FlatLoad_8") {
        9..17
    } else {
        0..24
    };
    let first_weekday = calendar::weekday_of_january_first(year) as usize;
    let on: Vec<f64> = (0..HOURS_PER_YEAR)
        .map(|hour| {
            let weekday = (first_weekday - 1 + hour / 24) % 7 + 1;
            let working_day = !weekdays_only || weekday <= 5;
            if working_day && hours.contains(&(hour % 24)) {
                1.0
            } else {
                0.0
            }
        })
        .collect();
    let count: f64 = on.iter().sum();
    on.iter().map(|x| x / count).collect()
}

/// Brings a series of 8760, 17520 or 35040 values to 8760 · `steps_per_hour` values: longer
/// series are averaged, shorter ones repeated. Returns the service's note when it changed.
pub fn resample(values: &[f64], steps_per_hour: usize) -> Result<(Vec<f64>, Option<&'static str>), String> {
    let target = HOURS_PER_YEAR * steps_per_hour;
    if ![HOURS_PER_YEAR, 2 * HOURS_PER_YEAR, 4 * HOURS_PER_YEAR].contains(&values.len()) {
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
        let model = from_scenario(&flat_scenario(), None).unwrap();
        assert_eq!(model.steps(), 8760);
        assert!(model.load_kw.iter().all(|kw| (kw - 10.0).abs() < 1e-9));
        assert_eq!(model.tariff.monthly_demand_rate, [10.0; 12]);
        assert_eq!(model.financial.offtaker_discount_rate_fraction, sector_defaults::OFFTAKER_DISCOUNT);
        assert_eq!(model.year, 2017);
        assert!(model.filled_defaults.iter().any(|f| f.field == "elec_cost_escalation_rate_fraction"));
    }

    #[test]
    fn every_unsupported_part_is_named() {
        let mut scenario = flat_scenario();
        scenario["Wind"] = json!({"max_kw": 100});
        scenario["ElectricTariff"]["urdb_label"] = json!("abc");
        scenario["Settings"] = json!({"off_grid_flag": true});
        let Err(ScenarioError::Unsupported(found)) = from_scenario(&scenario, None) else { panic!("must be unsupported") };
        let text = found.message();
        for needle in ["Wind (section)", "ElectricTariff.urdb_label", "Settings.off_grid_flag"] {
            assert!(text.contains(needle), "{needle} missing from {text}");
        }
    }

    #[test]
    fn loads_without_year_are_invalid_and_weekday_profiles_skip_weekends() {
        let mut scenario = flat_scenario();
        scenario["ElectricLoad"] = json!({"loads_kw": vec![1.0; 8760]});
        assert!(matches!(from_scenario(&scenario, None), Err(ScenarioError::Invalid(_))));
        let shape = flat_load_shape("FlatLoad_8_5", 2017);
        assert_eq!(shape[10], 0.0, "2017-01-01 is a Sunday");
        assert!(shape[24 + 10] > 0.0 && shape[24 + 8] == 0.0);
        assert!((shape.iter().sum::<f64>() - 1.0).abs() < 1e-9);
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

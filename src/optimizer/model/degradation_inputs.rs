//! `ElectricStorage.model_degradation` and its `degradation` section read into typed inputs
//! (REopt.jl `Degradation` and the `ElectricStorage` constructor, `src/core/energy_storage/electric_storage.jl`).
//!
//! Units: the fade coefficients are per hour of the service's own formula (see `lp::degradation`),
//! `cycle_fade_fraction` a fraction of the kWh size per segment, `maintenance_cost_per_kwh` $ per
//! kWh (present value), D − 1 values for D = 365 · analysis_years days (entry d − 1 prices the
//! capacity lost on day d, d = 2..D). When the
//! costs are left out they are the installed $/kWh times the daily present-worth factor
//! ((1 − r_g)/(1 + r_d))^(day/365), day = 1..D−1, r_g the cost declination, r_d the owner's discount rate.
//! With degradation the service zeroes the storage's three replacement costs (the maintenance
//! costs take their place); the reader does the same.

use serde_json::{Map, Value};

use super::{Financial, Reader};

const SECTION: &str = "ElectricStorage.degradation";

/// The service's defaults (REopt.jl `src/core/energy_storage/electric_storage.jl` at 029db01d, `Degradation`).
pub const CALENDAR_FADE_COEFFICIENT: f64 = 1.16e-3;
pub const CYCLE_FADE_COEFFICIENT: f64 = 2.46e-5;
pub const CYCLE_FADE_FRACTION: f64 = 1.0;
pub const TIME_EXPONENT: f64 = 0.428;
pub const INSTALLED_COST_PER_KWH_DECLINATION_RATE: f64 = 0.05;

/// What the owner does about lost capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaintenanceStrategy {
    /// Lost capacity is bought back every day.
    Augmentation,
    /// The whole battery is replaced when its state of health falls below 80 % (monthly binaries).
    Replacement,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Degradation {
    pub calendar_fade_coefficient: f64,
    /// One coefficient and one fraction of the kWh size per cycle-fade segment (same length).
    pub cycle_fade_coefficient: Vec<f64>,
    pub cycle_fade_fraction: Vec<f64>,
    pub time_exponent: f64,
    pub installed_cost_per_kwh_declination_rate: f64,
    pub maintenance_strategy: MaintenanceStrategy,
    /// $ per kWh, D − 1 values, given or from the present-worth factor.
    pub maintenance_cost_per_kwh: Vec<f64>,
}

impl Degradation {
    /// D = 365 · analysis_years days of the state of health.
    pub fn days(financial: &Financial) -> usize {
        365 * financial.analysis_years as usize
    }
}

const FIELDS: [&str; 7] = [
    "calendar_fade_coefficient",
    "cycle_fade_coefficient",
    "cycle_fade_fraction",
    "time_exponent",
    "installed_cost_per_kwh_declination_rate",
    "maintenance_strategy",
    "maintenance_cost_per_kwh",
];

impl Reader<'_> {
    /// The degradation inputs when `ElectricStorage.model_degradation` is true (None otherwise).
    /// A `degradation` section is checked even when unused, as the service builds it whenever
    /// given; every bad value is collected.
    pub(super) fn read_degradation(&mut self, storage: &Map<String, Value>, financial: &Financial, installed_cost_per_kwh: f64) -> Option<Degradation> {
        let modelled = self.flag_or(storage, "ElectricStorage", "model_degradation", false);
        if !modelled && storage.get("degradation").is_none_or(Value::is_null) {
            return None;
        }
        let empty = Map::new();
        let map = match storage.get("degradation") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(map)) => map,
            Some(_) => {
                self.invalid.push(format!("{SECTION} must be an object."));
                &empty
            }
        };
        for field in map.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
            self.invalid.push(format!("{SECTION}.{field} is not an input of the degradation model."));
        }
        let list = |reader: &mut Self, field: &str, default: f64| {
            if map.get(field).is_some_and(|v| !v.is_null()) { reader.numbers(map, SECTION, field) } else { vec![default] }
        };
        let cycle_fade_coefficient = list(self, "cycle_fade_coefficient", CYCLE_FADE_COEFFICIENT);
        let cycle_fade_fraction = list(self, "cycle_fade_fraction", CYCLE_FADE_FRACTION);
        if cycle_fade_coefficient.len() != cycle_fade_fraction.len() {
            self.invalid.push(format!("{SECTION}: cycle_fade_coefficient and cycle_fade_fraction must have equal length."));
        }
        if cycle_fade_coefficient.is_empty() {
            self.invalid.push(format!("{SECTION}.cycle_fade_coefficient must have at least one segment."));
        }
        let maintenance_strategy = match map.get("maintenance_strategy") {
            None | Some(Value::Null) => MaintenanceStrategy::Augmentation,
            Some(Value::String(s)) if s == "augmentation" => MaintenanceStrategy::Augmentation,
            Some(Value::String(s)) if s == "replacement" => MaintenanceStrategy::Replacement,
            Some(other) => {
                self.invalid.push(format!("{SECTION}.maintenance_strategy {other} is not supported: augmentation or replacement."));
                MaintenanceStrategy::Augmentation
            }
        };
        let calendar_fade_coefficient = self.number_in(map, SECTION, "calendar_fade_coefficient").unwrap_or(CALENDAR_FADE_COEFFICIENT);
        let time_exponent = self.number_in(map, SECTION, "time_exponent").unwrap_or(TIME_EXPONENT);
        let declination =
            self.number_in(map, SECTION, "installed_cost_per_kwh_declination_rate").unwrap_or(INSTALLED_COST_PER_KWH_DECLINATION_RATE);
        let days = Degradation::days(financial);
        let given = self.numbers(map, SECTION, "maintenance_cost_per_kwh");
        let maintenance_cost_per_kwh = if given.is_empty() {
            let factor = (1.0 - declination) / (1.0 + financial.owner_discount_rate_fraction);
            (1..days).map(|day| installed_cost_per_kwh * factor.powf(day as f64 / 365.0)).collect()
        } else {
            // The service checks the length only when it builds the model.
            if modelled && given.len() != days - 1 {
                self.invalid.push(format!("{SECTION}.maintenance_cost_per_kwh must have a length of {} (365 · analysis_years − 1).", days - 1));
            }
            given
        };
        modelled.then_some(Degradation {
            calendar_fade_coefficient,
            cycle_fade_coefficient,
            cycle_fade_fraction,
            time_exponent,
            installed_cost_per_kwh_declination_rate: declination,
            maintenance_strategy,
            maintenance_cost_per_kwh,
        })
    }
}

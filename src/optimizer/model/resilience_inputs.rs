//! The resilience parts of a scenario as typed values, and their reading: the Generator, grid
//! outages (one deterministic outage, or the multiple-outage form), critical loads, the value
//! of lost load, and the off-grid settings (Wind is read in `technology_inputs`).
//!
//! Defaults the service leaves null and fills before its optimizer runs (its input validator's
//! off-grid dependent rules) are filled here the same way and recorded for the results' echo:
//! Generator installed cost 650 $/kW (800 when it may run with the grid, 880 off grid), O&M
//! 20 $/kW-year (10 off grid), turndown 0 (0.15 off grid), replacement in the last analysis year
//! at no cost (off grid: year 10 at the installed cost), half-load efficiency = full-load;
//! off grid: critical load = the whole load, load operating reserve 10 %, minimum annual load
//! met 99.999 %, PV reserve 25 %, Wind reserve 50 %, no exports; with several outages and no
//! `Site.min_resil_time_steps`, the longest outage must be fully served.
//!
//! Units: kW, kWh, gallons, $; outage steps are 0-based here (the scenario's are 1-based).

use serde_json::{Map, Value};

use crate::optimizer::model::{FilledDefault, Reader};
use super::emissions_inputs::Pollutant;
use crate::optimizer::scenario::text::service_bool;

/// Higher heating value of diesel the service uses unless given (kWh per gallon).
pub const KWH_PER_GALLON_DIESEL: f64 = 40.7;

/// A fuel curve: gallons = slope · kWh + intercept · hours running.
///
/// From the full- and half-load efficiencies of a 1 kW machine (the service's formula):
/// fuel at full load 1/η_full kWh_t per hour, at half load 0.5/η_half; the line through both,
/// divided by the fuel's heating value. Equal efficiencies give a zero intercept.
pub fn fuel_slope_and_intercept(efficiency_full_load: f64, efficiency_half_load: f64, kwh_per_gallon: f64) -> (f64, f64) {
    let full = 1.0 / efficiency_full_load;
    let half = 0.5 / efficiency_half_load;
    let slope = (full - half) / 0.5;
    let intercept = full - slope;
    (slope / kwh_per_gallon, intercept / kwh_per_gallon)
}

/// Pounds of each pollutant per gallon of fuel burned.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EmissionsFactors {
    pub co2: f64,
    pub nox: f64,
    pub so2: f64,
    pub pm25: f64,
}

impl EmissionsFactors {
    pub fn of(&self, p: Pollutant) -> f64 {
        match p {
            Pollutant::Co2 => self.co2,
            Pollutant::Nox => self.nox,
            Pollutant::So2 => self.so2,
            Pollutant::Pm25 => self.pm25,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Generator {
    pub existing_kw: f64,
    /// Bounds on new capacity beyond `existing_kw`.
    pub min_new_kw: f64,
    pub max_new_kw: f64,
    pub installed_cost_per_kw: f64,
    pub om_cost_per_kw: f64,
    pub om_cost_per_kwh: f64,
    pub fuel_cost_per_gallon: f64,
    /// Gallons per kWh produced.
    pub fuel_slope_gal_per_kwh: f64,
    /// Gallons per hour while running (the service's intercept, not scaled by size).
    pub fuel_intercept_gal_per_hour: f64,
    /// Fuel for the whole year of the dispatch, and for each outage of the multiple-outage form.
    pub fuel_avail_gal: f64,
    /// Lowest output while running, as a fraction of the size.
    pub min_turn_down_fraction: f64,
    /// Output beyond what is used may be curtailed (the service's default: no).
    pub can_curtail: bool,
    pub only_runs_during_grid_outage: bool,
    pub macrs_option_years: u32,
    pub macrs_bonus_fraction: f64,
    pub macrs_itc_reduction: f64,
    /// Replacement within the analysis period (None when in or after its last year).
    pub replacement_year: u32,
    pub replace_cost_per_kw: f64,
    pub emissions_lb_per_gal: EmissionsFactors,
    pub fuel_renewable_energy_fraction: f64,
}

impl Generator {
    /// The largest total capacity (existing + new): a bound on the size for the on/off binaries.
    pub fn max_total_kw(&self) -> f64 {
        self.existing_kw + self.max_new_kw
    }

    /// The largest capacity a case can have: the largest total when it sizes the generator,
    /// else what exists.
    pub fn largest_kw(&self, sized: bool) -> f64 {
        if sized { self.max_total_kw() } else { self.existing_kw }
    }

    /// Whether the service's on/off binary per step matters: with a minimum turndown or a
    /// fuel-curve intercept (without both it changes nothing and the program stays an LP).
    pub fn needs_on_off(&self) -> bool {
        self.min_turn_down_fraction > 0.0 || self.fuel_intercept_gal_per_hour > 0.0
    }

    /// Whether the generator may run in a step with (true) or without the grid.
    pub fn may_run(&self, grid_available: bool) -> bool {
        !grid_available || !self.only_runs_during_grid_outage
    }
}

/// The multiple-outage form: every scenario s (a duration with its probability) starts at every
/// start step; the dispatch during each is a separate microgrid problem.
#[derive(Debug, Clone, PartialEq)]
pub struct Outages {
    /// First step of each outage (0-based).
    pub starts: Vec<usize>,
    /// Duration in steps of each scenario.
    pub durations: Vec<usize>,
    pub probabilities: Vec<f64>,
}

impl Outages {
    pub fn longest(&self) -> usize {
        self.durations.iter().copied().max().unwrap_or(0)
    }

    /// The model step of outage step `ts` (0-based) of an outage starting at `start`, wrapping
    /// around the end of the year.
    pub fn step(&self, start: usize, ts: usize, steps: usize) -> usize {
        (start + ts) % steps
    }
}

/// How outages are valued and what must be served.
#[derive(Debug, Clone, PartialEq)]
pub struct Resilience {
    /// $ per kWh of critical load not served in an outage of the multiple-outage form.
    pub value_of_lost_load_per_kwh: f64,
    /// Share of a technology's capital cost paid to make it part of the outage microgrid.
    pub microgrid_upgrade_cost_fraction: f64,
    /// Outage steps from the start of each outage that must be fully served.
    pub min_resil_time_steps: usize,
    /// The storage's minimum state of charge holds during outages too.
    pub soc_min_applies_during_outages: bool,
}

/// Off-grid settings (`Settings.off_grid_flag`).
#[derive(Debug, Clone, PartialEq)]
pub struct OffGrid {
    /// Share of the year's load that must be served.
    pub min_load_met_annual_fraction: f64,
    /// Operating reserve required per kW of load served.
    pub load_reserve_fraction: f64,
    /// Other capital costs ($, depreciated straight-line over the analysis period).
    pub other_capital_costs: f64,
    /// Other annual costs ($ per year, tax deductible for the owner).
    pub other_annual_costs: f64,
}

/// The outages of a scenario as read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OutageInputs {
    /// The deterministic outage: first and last step (0-based, inclusive).
    pub single: Option<(usize, usize)>,
    pub multiple: Option<Outages>,
}

impl<'a> Reader<'a> {
    pub(super) fn off_grid_flag(&mut self) -> bool {
        let settings = self.section("Settings").unwrap_or(self.empty);
        self.flag(settings, "Settings", "off_grid_flag")
    }

    /// A nullable field the service fills with `default`, recorded for the echo.
    fn filled_value(&mut self, map: &Map<String, Value>, section: &'static str, field: &'static str, default: f64) -> f64 {
        self.filled_number(map, section, field, default)
    }

    pub(super) fn read_generator(&mut self, off_grid: bool, analysis_years: u32) -> Option<Generator> {
        let map = self.section("Generator")?;
        let s = "Generator";
        let existing_kw = self.number(map, s, "existing_kw");
        let max_new_kw = self.number(map, s, "max_kw");
        if existing_kw + max_new_kw <= 0.0 {
            return None;
        }
        let only_outage = self.flag(map, s, "only_runs_during_grid_outage");
        let installed_default = if off_grid {
            880.0
        } else if only_outage {
            650.0
        } else {
            800.0
        };
        let installed_cost_per_kw = self.filled_value(map, s, "installed_cost_per_kw", installed_default);
        let full = self.number(map, s, "electric_efficiency_full_load");
        let half = self.filled_value(map, s, "electric_efficiency_half_load", full);
        let heating_value = self.number(map, s, "fuel_higher_heating_value_kwh_per_gal");
        if full <= 0.0 || half <= 0.0 || heating_value <= 0.0 {
            self.invalid.push("Generator efficiencies and fuel heating value must be greater than 0.".into());
            return None;
        }
        let (slope, intercept) = fuel_slope_and_intercept(full, half, heating_value);
        let sells = self.flag(map, s, "sells_energy_back_to_grid");
        let exports = ["can_net_meter", "can_wholesale", "can_export_beyond_nem_limit"].into_iter().any(|f| map.get(f).and_then(service_bool) == Some(true));
        if sells && exports && !off_grid {
            self.unsupported.push("Generator.sells_energy_back_to_grid=true with export bins (generator exports)".into());
        }
        if self.number(map, s, "production_incentive_per_kwh") > 0.0 {
            self.unsupported.push("Generator.production_incentive_per_kwh (production-based incentives)".into());
        }
        let replacement_year = match self.number_in(map, s, "replacement_year") {
            Some(year) => year.max(0.0) as u32,
            None => {
                let year = if off_grid { 10 } else { analysis_years };
                self.filled.push(FilledDefault::new(s, "replacement_year", Value::from(year)));
                year
            }
        };
        let replace_cost_per_kw = self.filled_value(map, s, "replace_cost_per_kw", if off_grid { installed_cost_per_kw } else { 0.0 });
        Some(Generator {
            existing_kw,
            min_new_kw: self.number(map, s, "min_kw"),
            max_new_kw,
            installed_cost_per_kw,
            om_cost_per_kw: self.filled_value(map, s, "om_cost_per_kw", if off_grid { 10.0 } else { 20.0 }),
            om_cost_per_kwh: self.number(map, s, "om_cost_per_kwh"),
            fuel_cost_per_gallon: self.number(map, s, "fuel_cost_per_gallon"),
            fuel_slope_gal_per_kwh: slope,
            fuel_intercept_gal_per_hour: intercept,
            fuel_avail_gal: self.number(map, s, "fuel_avail_gal"),
            min_turn_down_fraction: self.filled_value(map, s, "min_turn_down_fraction", if off_grid { 0.15 } else { 0.0 }),
            can_curtail: self.flag(map, s, "can_curtail"),
            only_runs_during_grid_outage: only_outage,
            macrs_option_years: self.count(map, s, "macrs_option_years"),
            macrs_bonus_fraction: self.number(map, s, "macrs_bonus_fraction"),
            macrs_itc_reduction: self.number(map, s, "macrs_itc_reduction"),
            replacement_year,
            replace_cost_per_kw,
            emissions_lb_per_gal: EmissionsFactors {
                co2: self.number(map, s, "emissions_factor_lb_CO2_per_gal"),
                nox: self.number(map, s, "emissions_factor_lb_NOx_per_gal"),
                so2: self.number(map, s, "emissions_factor_lb_SO2_per_gal"),
                pm25: self.number(map, s, "emissions_factor_lb_PM25_per_gal"),
            },
            fuel_renewable_energy_fraction: self.number(map, s, "fuel_renewable_energy_fraction"),
        })
    }

    /// The deterministic outage and the multiple-outage form of `ElectricUtility` (ignored off
    /// grid, where the whole year is without grid).
    pub(super) fn read_outages(&mut self, steps: usize, off_grid: bool) -> OutageInputs {
        if off_grid {
            return OutageInputs::default();
        }
        let map = self.section("ElectricUtility").unwrap_or(self.empty);
        let s = "ElectricUtility";
        let mut outages = OutageInputs::default();
        let start = self.number_in(map, s, "outage_start_time_step");
        let end = self.number_in(map, s, "outage_end_time_step");
        match (start, end) {
            (Some(start), Some(end)) if start >= 1.0 && end >= start && end <= steps as f64 => {
                outages.single = Some((start as usize - 1, end as usize - 1));
            }
            (None, None) => {}
            _ => self.invalid.push(format!(
                "ElectricUtility.outage_start_time_step and outage_end_time_step must both be given, with 1 ≤ start ≤ end ≤ {steps}."
            )),
        }
        let starts = self.numbers(map, s, "outage_start_time_steps");
        let durations = self.numbers(map, s, "outage_durations");
        if starts.is_empty() && durations.is_empty() {
            return outages;
        }
        if starts.is_empty() || durations.is_empty() {
            self.invalid.push("ElectricUtility.outage_start_time_steps and outage_durations must be given together.".into());
            return outages;
        }
        let whole = |values: &[f64]| values.iter().all(|v| *v >= 1.0 && v.fract() == 0.0);
        if !whole(&starts) || !whole(&durations) || starts.iter().any(|&v| v > steps as f64) || durations.iter().any(|&v| v > steps as f64) {
            self.invalid.push(format!("ElectricUtility outage start steps and durations must be whole numbers from 1 to {steps}."));
            return outages;
        }
        let probabilities = match self.numbers(map, s, "outage_probabilities") {
            given if given.is_empty() => vec![1.0 / durations.len() as f64; durations.len()],
            given if given.len() == durations.len() && (given.iter().sum::<f64>() - 1.0).abs() <= 1e-8 => given,
            _ => {
                self.invalid.push("outage_probabilities must have one value per outage duration and sum to 1.0.".into());
                return outages;
            }
        };
        outages.multiple = Some(Outages {
            starts: starts.iter().map(|&v| v as usize - 1).collect(),
            durations: durations.iter().map(|&v| v as usize).collect(),
            probabilities,
        });
        outages
    }

    /// Critical load per step: `critical_loads_kw`, or `critical_load_fraction` (the whole load
    /// off grid) of the load as given; existing PV output added back when
    /// `critical_loads_kw_is_net`.
    pub(super) fn read_critical_load(&mut self, base_load: &[f64], steps_per_hour: usize, off_grid: bool, existing_pv: &[f64]) -> Vec<f64> {
        let map = self.section("ElectricLoad").unwrap_or(self.empty);
        let s = "ElectricLoad";
        let given = self.numbers(map, s, "critical_loads_kw");
        if off_grid {
            self.filled.push(FilledDefault::forced(s, "critical_load_fraction", Value::from(1.0)));
            return base_load.to_vec();
        }
        let mut critical = if given.is_empty() {
            let fraction = self.number(map, s, "critical_load_fraction");
            base_load.iter().map(|kw| fraction * kw).collect()
        } else {
            match self.series(&given, s, "critical_loads_kw", steps_per_hour) {
                Some(series) => series,
                None => return vec![0.0; base_load.len()],
            }
        };
        if self.flag(map, s, "critical_loads_kw_is_net") {
            critical.iter_mut().zip(existing_pv).for_each(|(kw, pv)| *kw += pv);
        }
        critical
    }

    /// CHP in the multiple-outage form. With a fuel intercept the service's own row fails: its
    /// `MGCHPFuelBurnYIntCon` (src/constraints/outage_constraints.jl line 196, 029db01d) is
    /// indexed over (t, s, tz) and reads `binMGCHPIsOnInTS[s,tz,ts]`, whose `ts` is no index of
    /// the row and no local of `add_MG_CHP_fuel_burn_constraints` (the `ts` of the sums beside it
    /// belong to their generators), so Julia looks it up as a global of the REopt module, where
    /// none exists: building the model throws an UndefVarError that `run_reopt` returns as status
    /// "error". With the efficiencies equal at full and half load there is no intercept and the
    /// linear fuel row is built (`lp::microgrid`).
    pub(super) fn check_chp_in_outages(&mut self, chp: &super::chp_inputs::Chp) {
        if chp.fuel_intercept.abs() > 1.0e-7 {
            self.invalid.push("UndefVarError: `ts` not defined".into());
        }
    }

    pub(super) fn read_resilience(&mut self, outages: Option<&Outages>) -> Resilience {
        let financial = self.section("Financial").unwrap_or(self.empty);
        let value_of_lost_load_per_kwh = self.number(financial, "Financial", "value_of_lost_load_per_kwh");
        let microgrid_upgrade_cost_fraction = self.number(financial, "Financial", "microgrid_upgrade_cost_fraction");
        let site = self.section("Site").unwrap_or(self.empty);
        let given = self.number_or(site, "Site", "min_resil_time_steps", 0.0).max(0.0) as usize;
        let min_resil_time_steps = match outages {
            Some(outages) if given == 0 => {
                self.filled.push(FilledDefault::new("Site", "min_resil_time_steps", Value::from(outages.longest())));
                outages.longest()
            }
            _ => given,
        };
        let storage = self.section("ElectricStorage").unwrap_or(self.empty);
        Resilience {
            value_of_lost_load_per_kwh,
            microgrid_upgrade_cost_fraction,
            min_resil_time_steps,
            soc_min_applies_during_outages: self.flag(storage, "ElectricStorage", "soc_min_applies_during_outages"),
        }
    }

    pub(super) fn read_off_grid(&mut self) -> OffGrid {
        let load = self.section("ElectricLoad").unwrap_or(self.empty);
        let financial = self.section("Financial").unwrap_or(self.empty);
        OffGrid {
            min_load_met_annual_fraction: self.filled_value(load, "ElectricLoad", "min_load_met_annual_fraction", 0.99999),
            load_reserve_fraction: self.filled_value(load, "ElectricLoad", "operating_reserve_required_fraction", 0.1),
            other_capital_costs: self.number(financial, "Financial", "offgrid_other_capital_costs"),
            other_annual_costs: self.number(financial, "Financial", "offgrid_other_annual_costs"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_efficiencies_give_a_line_through_zero() {
        let (slope, intercept) = fuel_slope_and_intercept(0.3232898, 0.3232898, KWH_PER_GALLON_DIESEL);
        // The service's off-grid case: 99 kWh burn 7.52 gallons.
        assert!((99.0 * slope - 7.524).abs() < 1e-3);
        assert!(intercept.abs() < 1e-12);
        let (slope, intercept) = fuel_slope_and_intercept(0.35, 0.30, 1.0);
        assert!((slope + intercept - 1.0 / 0.35).abs() < 1e-12);
        assert!((0.5 * slope + intercept - 0.5 / 0.30).abs() < 1e-12);
    }

    #[test]
    fn outage_steps_wrap_around_the_year() {
        let outages = Outages { starts: vec![8757], durations: vec![5], probabilities: vec![1.0] };
        assert_eq!(outages.step(8757, 4, 8760), 1);
        assert_eq!(outages.longest(), 5);
    }
}

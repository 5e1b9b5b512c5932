//! The CHP section read into typed inputs: size bounds, costs, the full- and half-load
//! efficiencies (from which the fuel and heat lines per kW follow), turndown, fuel, supplementary
//! firing, standby charges, the tax treatment and incentives of its capital cost (ITC, MACRS,
//! state and utility IBIs, rebates), its production-based incentive and its export flags (REopt.jl
//! `src/core/chp.jl`).
//!
//! The inputs the service fills from its prime-mover table (`om_cost_per_kwh`, the full-load
//! efficiencies, `min_allowable_kw`, `min_turn_down_fraction`, `max_kw`, the maintenance periods
//! placed on the calendar in `chp_unavailability`, the installed cost as the size class's cost
//! curve) are filled by `chp_defaults` when left out. Also refused by name:
//! `unavailability_hourly` and `production_factor_series` (which the service overwrites or
//! drops), `reduces_demand_charges=false`, CHP serving absorption chillers only (an API field REopt.jl
//! 0.56.4 has no rows for), and capital cost bounds with CHP. Off grid its maintenance holds in
//! every step (`lp::chp`). Without a heating load (or electric-only,
//! `is_electric_only`: no heat, 75 % of the default costs) its heat is wasted. Its heat serves the
//! loads given its `can_serve_*` flags allow (`serves`); with all of them false it makes no heat
//! (`makes_heat`, as the service's); flags true only for loads not given are refused.

use serde_json::{Map, Value};

use super::chp_defaults::{chp_defaults, ChpDefaults, HeatMedium, PrimeMover, Selection, MIN_ALLOWABLE_FRACTION_OF_MAX};
use super::chp_unavailability::{unavailable_hours, UnavailabilityPeriod};
use super::thermal_inputs::{fuel_emissions_lb_per_mmbtu, fuel_renewable_fraction, FuelBurner, Heating, HeatingLoadKind, KWH_PER_MMBTU};
use super::sector_inputs::IncentiveDefaults;
use super::{ExportFlags, FilledDefault, Pollutant, ProductionIncentive, PvIncentives, Reader};

/// REopt.jl `src/core/chp.jl` defaults of the tax inputs the shipped schema leaves null
/// (MACRS 5 years, 100 % bonus, no ITC).
const CHP_INCENTIVES: IncentiveDefaults = IncentiveDefaults { macrs_option_years: 5, macrs_bonus_fraction: 1.0, itc_fraction: 0.0 };

/// A combined heat and power system the optimizer may size (kW are electric, rated).
#[derive(Debug, Clone, PartialEq)]
pub struct Chp {
    /// Fuel (efficiency 1: fuel per kWh is given by the lines below), cost and emissions.
    pub burner: FuelBurner,
    pub min_kw: f64,
    pub max_kw: f64,
    /// Whether CHP is in maintenance (may not run) in each step.
    pub unavailable: Vec<bool>,
    /// The smallest nonzero size (0: none); the size is 0 or at least this.
    pub min_allowable_kw: f64,
    /// $ per kW of size at each size of `tech_sizes_for_cost_curve` (kW); one value and no sizes:
    /// the same $/kW at every size.
    pub installed_cost_per_kw: Vec<f64>,
    pub tech_sizes_for_cost_curve: Vec<f64>,
    /// $ per kW-year, $ per kWh produced, $ per hour on per kW of size.
    pub om_cost_per_kw: f64,
    pub om_cost_per_kwh: f64,
    pub om_cost_per_hr_per_kw_rated: f64,
    /// Fuel kW per kW of output (slope) and per kW of size when on (intercept).
    pub fuel_slope: f64,
    pub fuel_intercept: f64,
    /// Thermal kW per kW of output (slope) and per kW of size when on (intercept).
    pub thermal_slope: f64,
    pub thermal_intercept: f64,
    pub min_turn_down_fraction: f64,
    /// Supplementary firing: the most fired heat over unfired heat, its efficiency and its $ per kW.
    pub supplementary_firing_max_steam_ratio: f64,
    pub supplementary_firing_efficiency: f64,
    pub supplementary_firing_capital_cost_per_kw: f64,
    /// $ per kW of size per month charged by the utility.
    pub standby_rate_per_kw_per_month: f64,
    /// Whether its electricity may be curtailed (`can_curtail`; the service's default: no).
    pub can_curtail: bool,
    /// The export bins it may use (the service's defaults: none; none off grid).
    pub exports: ExportFlags,
    /// Its tax treatment and capital incentives (the fields of PV's: ITC, MACRS, IBIs and rebates).
    pub incentives: PvIncentives,
    /// Its production-based incentive, on its rated output (`production_factor` 1).
    pub production_incentive: ProductionIncentive,
    /// The heating loads given its heat may serve (its `can_serve_*` flags; none without heating).
    pub serves: Vec<HeatingLoadKind>,
    /// False when its `can_serve_*` flags are all false: the service fixes its heat at 0 (none to
    /// load, storage, waste or the steam turbine), so with a heat line it cannot run.
    pub makes_heat: bool,
}

/// A line through (½, at_half/2) and (1, at_full) per kW of size, as the service draws the fuel
/// and heat of a part-loaded CHP: `(slope, intercept)` with `value = slope·output + intercept·size`.
pub fn part_load_line(at_full: f64, at_half: f64) -> (f64, f64) {
    let half = 0.5 * at_half;
    let slope = (at_full - half) / 0.5;
    (slope, at_full - slope)
}

impl Chp {
    /// Whether supplementary firing can add heat.
    pub fn has_supplementary_firing(&self) -> bool {
        self.supplementary_firing_max_steam_ratio > 1.0
    }
}

impl<'a> Reader<'a> {
    /// Records every part of CHP that is not modelled. Called before the load, whose failure ends
    /// the reading, so that they are all named.
    pub(super) fn check_chp(&mut self) {
        let Some(map) = self.section("CHP") else { return };
        self.refuse_unmodelled_chp_inputs(map);
        let financial = self.section("Financial").unwrap_or(self.empty);
        for field in ["min_initial_capital_costs_before_incentives", "max_initial_capital_costs_before_incentives"] {
            if crate::optimizer::scenario::given(financial.get(field)) {
                self.unsupported.push(format!("Financial.{field} with CHP (capital cost bounds on CHP)"));
            }
        }
    }

    /// The installed cost: one $/kW, a given cost curve, or the size class's curve when left out
    /// (the service's rule: the curve's sizes are ignored beside a single cost).
    fn chp_cost_curve(&mut self, map: &Map<String, Value>, defaults: &ChpDefaults) -> Option<(Vec<f64>, Vec<f64>)> {
        let s = "CHP";
        let costs = self.numbers(map, s, "installed_cost_per_kw");
        let sizes = self.numbers(map, s, "tech_sizes_for_cost_curve");
        match costs.len() {
            0 if sizes.is_empty() => {
                let (costs, sizes) = (defaults.installed_cost_per_kw.to_vec(), defaults.tech_sizes_for_cost_curve.to_vec());
                self.filled.push(FilledDefault::new(s, "installed_cost_per_kw", Value::from(costs.clone())));
                self.filled.push(FilledDefault::new(s, "tech_sizes_for_cost_curve", Value::from(sizes.clone())));
                Some((costs, sizes))
            }
            1 => Some((costs, Vec::new())),
            // A first size of 0 (its cost in $) breaks the service's own capital cost sum: refused as invalid.
            n if n > 1 && n == sizes.len() && sizes.windows(2).all(|w| w[0] < w[1]) && sizes[0] > 0.0 => Some((costs, sizes)),
            _ => {
                self.invalid.push(
                    "CHP.tech_sizes_for_cost_curve must give as many increasing positive sizes as CHP.installed_cost_per_kw has costs (a cost curve).".into(),
                );
                None
            }
        }
    }

    /// The service's defaults for this CHP from its prime mover, size class and loads.
    pub(super) fn read_chp_defaults(&mut self, map: &Map<String, Value>, heating: Option<&Heating>, electric_kw: &[f64]) -> Option<ChpDefaults> {
        let s = "CHP";
        let prime_mover = match map.get("prime_mover").and_then(Value::as_str) {
            None => None,
            Some(name) => match PrimeMover::from_name(name) {
                Some(pm) => Some(pm),
                None => {
                    self.invalid.push("CHP.prime_mover must be recip_engine, micro_turbine, combustion_turbine or fuel_cell.".into());
                    return None;
                }
            },
        };
        let boiler = self.section("ExistingBoiler").unwrap_or(self.empty);
        let medium = if boiler.get("production_type").and_then(Value::as_str) == Some("steam") { HeatMedium::Steam } else { HeatMedium::HotWater };
        let is_electric_only = self.flag_or(map, s, "is_electric_only", false);
        let thermal_efficiency = self.number_in(map, s, "thermal_efficiency_full_load");
        // The service passes no boiler fuel load for a CHP with no heat (either way of saying so).
        let heat_free = is_electric_only || thermal_efficiency == Some(0.0);
        let avg_boiler_fuel_mmbtu_per_hour = heating.filter(|_| !heat_free).map(|h| {
            let steps = h.loads.first().map_or(1, |load| load.thermal_kw.len()).max(1);
            let thermal: f64 = (0..steps).map(|t| h.total_kw(t)).sum::<f64>() / steps as f64;
            thermal / h.existing_boiler.burner.efficiency / KWH_PER_MMBTU
        });
        let boiler_efficiency = heating.map_or(0.8, |h| h.existing_boiler.burner.efficiency);
        let electric_load_kw = (!electric_kw.is_empty())
            .then(|| (electric_kw.iter().sum::<f64>() / electric_kw.len() as f64, electric_kw.iter().copied().fold(f64::MIN, f64::max)));
        let size_class = match self.number_in(map, s, "size_class") {
            None => None,
            Some(c) if c >= 0.0 && c.fract() == 0.0 => Some(c as usize),
            Some(_) => {
                self.invalid.push("CHP.size_class must be a whole number from 0.".into());
                return None;
            }
        };
        let max_kw = self.number_in(map, s, "max_kw");
        let selection = Selection {
            medium,
            avg_boiler_fuel_mmbtu_per_hour,
            prime_mover,
            size_class,
            max_kw,
            boiler_efficiency,
            electric_load_kw,
            is_electric_only,
            thermal_efficiency,
        };
        match chp_defaults(&selection) {
            Ok(defaults) => Some(defaults),
            Err(message) => {
                self.invalid.push(message);
                None
            }
        }
    }

    /// A CHP input filled from the defaults when left out (echoed with the results).
    fn chp_filled(&mut self, map: &Map<String, Value>, field: &'static str, default: f64) -> f64 {
        self.filled_number(map, "CHP", field, default)
    }

    /// Reads CHP (after `check_chp`, which names what is refused); None without the section.
    pub(super) fn read_chp(&mut self, heating: Option<&Heating>, electric_kw: &[f64], steps_per_hour: usize, year: i32) -> Option<Chp> {
        let map = self.section("CHP")?;
        let s = "CHP";
        let defaults = self.read_chp_defaults(map, heating, electric_kw)?;
        let (installed_cost_per_kw, tech_sizes_for_cost_curve) = self.chp_cost_curve(map, &defaults)?;
        let electric_full = self.chp_filled(map, "electric_efficiency_full_load", defaults.electric_efficiency_full_load);
        let mut thermal_full = self.chp_filled(map, "thermal_efficiency_full_load", defaults.thermal_efficiency_full_load);
        let electric_half = self.number_or(map, s, "electric_efficiency_half_load", electric_full);
        let mut thermal_half = self.number_or(map, s, "thermal_efficiency_half_load", thermal_full);
        if self.flag_or(map, s, "is_electric_only", false) {
            // The service zeroes given thermal efficiencies of an electric-only CHP.
            (thermal_full, thermal_half) = (0.0, 0.0);
        }
        if electric_full <= 0.0 || electric_half <= 0.0 {
            self.invalid.push("CHP.electric_efficiency_full_load and electric_efficiency_half_load must be positive.".into());
            return None;
        }
        let (fuel_slope, fuel_intercept) = part_load_line(1.0 / electric_full, 1.0 / electric_half);
        let (thermal_slope, thermal_intercept) = part_load_line(thermal_full / electric_full, thermal_half / electric_half);
        let min_kw = self.number(map, s, "min_kw");
        let Some(max_kw) = self.number_in(map, s, "max_kw").or(defaults.max_kw) else {
            self.invalid.push("CHP.max_kw must be given when there is no load to size CHP by.".into());
            return None;
        };
        if self.number_in(map, s, "max_kw").is_none() {
            self.filled.push(FilledDefault::new(s, "max_kw", Value::from(max_kw)));
        }
        let mut min_allowable_kw = self.chp_filled(map, "min_allowable_kw", defaults.min_allowable_kw);
        if min_allowable_kw > max_kw {
            min_allowable_kw = max_kw * MIN_ALLOWABLE_FRACTION_OF_MAX;
        }
        if min_kw > max_kw {
            self.invalid.push("CHP.min_kw must not exceed CHP.max_kw.".into());
            return None;
        }
        let burner = self.chp_burner(map, steps_per_hour)?;
        let periods = self.unavailability_periods(map, &defaults)?;
        let unavailable = unavailable_hours(year, &periods).into_iter().flat_map(|u| std::iter::repeat_n(u, steps_per_hour)).collect();
        let serves = match heating {
            Some(heating) => self.producer_heating_loads(map, s, heating)?,
            None => Vec::new(),
        };
        let makes_heat = self.serves_any_heating_load(map, s);
        let supplementary_firing_efficiency = self.number(map, s, "supplementary_firing_efficiency");
        if supplementary_firing_efficiency <= 0.0 {
            self.invalid.push("CHP.supplementary_firing_efficiency must be positive.".into());
            return None;
        }
        Some(Chp {
            burner,
            min_kw,
            max_kw,
            min_allowable_kw,
            unavailable,
            installed_cost_per_kw,
            tech_sizes_for_cost_curve,
            om_cost_per_kw: self.number(map, s, "om_cost_per_kw"),
            om_cost_per_kwh: self.chp_filled(map, "om_cost_per_kwh", defaults.om_cost_per_kwh),
            om_cost_per_hr_per_kw_rated: self.number(map, s, "om_cost_per_hr_per_kw_rated"),
            fuel_slope,
            fuel_intercept,
            thermal_slope,
            thermal_intercept,
            min_turn_down_fraction: self.chp_filled(map, "min_turn_down_fraction", defaults.min_turn_down_fraction),
            supplementary_firing_max_steam_ratio: self.number(map, s, "supplementary_firing_max_steam_ratio"),
            supplementary_firing_efficiency,
            supplementary_firing_capital_cost_per_kw: self.number(map, s, "supplementary_firing_capital_cost_per_kw"),
            standby_rate_per_kw_per_month: self.number(map, s, "standby_rate_per_kw_per_month"),
            can_curtail: self.flag_or(map, s, "can_curtail", false),
            exports: self.chp_export_flags(map),
            incentives: self.read_incentives(map, s, CHP_INCENTIVES),
            production_incentive: self.read_production_incentive(map, s),
            serves,
            makes_heat,
        })
    }

    /// The CHP's fuel: cost per kWh of fuel per step, escalation, emissions and renewable share
    /// (`fuel_renewable_energy_fraction`: 1 for landfill_bio_gas, else 0) of its fuel type.
    fn chp_burner(&mut self, map: &Map<String, Value>, steps_per_hour: usize) -> Option<FuelBurner> {
        let s = "CHP";
        let fuel_cost_per_kwh = self.fuel_cost_per_kwh(map, s, steps_per_hour)?;
        let fuel_type = map.get("fuel_type").and_then(Value::as_str).unwrap_or("natural_gas");
        let defaults = fuel_emissions_lb_per_mmbtu(fuel_type);
        let emissions = Pollutant::ALL.map(|gas| {
            let field = format!("emissions_factor_lb_{}_per_mmbtu", gas.name());
            self.number_in(map, s, &field).unwrap_or(defaults[gas.index()])
        });
        let financial = self.section("Financial").unwrap_or(self.empty);
        let fuel_escalation = self.filled_number(financial, "Financial", "chp_fuel_cost_escalation_rate_fraction", self.sector.boiler_fuel_escalation);
        let renewable_fraction = self.number_or(map, s, "fuel_renewable_energy_fraction", fuel_renewable_fraction(fuel_type));
        Some(FuelBurner { efficiency: 1.0, fuel_cost_per_kwh, fuel_escalation, emissions_lb_per_mmbtu: emissions, renewable_fraction })
    }

    /// The maintenance periods, the prime mover's when none are given; each key a whole number
    /// (the service converts them to integers).
    fn unavailability_periods(&mut self, map: &Map<String, Value>, defaults: &ChpDefaults) -> Option<Vec<UnavailabilityPeriod>> {
        let items = map.get("unavailability_periods").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        if items.is_empty() {
            return Some(defaults.unavailability_periods.to_vec());
        }
        let mut periods = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let whole = |key: &str| item.get(key).and_then(Value::as_f64).filter(|x| x.fract() == 0.0 && x.abs() < 1e9).map(|x| x as i64);
            let keys = ["month", "start_week_of_month", "start_day_of_week", "start_hour", "duration_hours"].map(whole);
            let [Some(month), Some(week), Some(day), Some(hour), Some(duration)] = keys else {
                self.invalid.push(format!(
                    "CHP.unavailability_periods[{index}] must give whole numbers for month, start_week_of_month, start_day_of_week, start_hour and duration_hours."
                ));
                return None;
            };
            let month = u32::try_from(month).unwrap_or(0);
            periods.push(UnavailabilityPeriod { month, start_week_of_month: week, start_day_of_week: day, start_hour: hour, duration_hours: duration });
        }
        Some(periods)
    }

    /// The export flags, all false off grid (as the arrays').
    fn chp_export_flags(&mut self, map: &Map<String, Value>) -> ExportFlags {
        let on_grid = !self.off_grid_flag();
        ExportFlags {
            can_net_meter: self.flag_or(map, "CHP", "can_net_meter", false) && on_grid,
            can_wholesale: self.flag_or(map, "CHP", "can_wholesale", false) && on_grid,
            can_export_beyond_nem_limit: self.flag_or(map, "CHP", "can_export_beyond_nem_limit", false) && on_grid,
        }
    }

    /// Records every CHP input that changes the optimization but is not modelled.
    fn refuse_unmodelled_chp_inputs(&mut self, map: &Map<String, Value>) {
        let s = "CHP";
        let flags: [(&str, bool, &str); 2] = [
            ("serve_absorption_chiller_only", true, "absorption chillers"),
            ("reduces_demand_charges", false, "CHP left out of the demand peaks"),
        ];
        for (field, refused, what) in flags {
            let default = !refused;
            if self.flag_or(map, s, field, default) == refused {
                self.unsupported.push(format!("CHP.{field}={refused} ({what})"));
            }
        }
        if self.number_in(map, s, "existing_kw").is_some_and(|kw| kw > 0.0) {
            self.unsupported.push("CHP.existing_kw (existing CHP)".into());
        }
        // REopt.jl's `CHP` constructor overwrites a given hourly profile with the hours of the
        // (given or default) periods, and the service has no CHP output profile: either would
        // be ignored there, so it is refused here rather than honoured or dropped.
        if self.numbers(map, s, "unavailability_hourly").iter().any(|&u| u != 0.0) {
            self.unsupported.push("CHP.unavailability_hourly (the service replaces it with the hours of CHP.unavailability_periods)".into());
        }
        if crate::optimizer::scenario::given(map.get("production_factor_series")) {
            self.unsupported.push("CHP.production_factor_series (not a CHP input of the service, which drops it)".into());
        }
        if self.number_in(map, s, "ramp_rate_fraction_per_hour").is_some_and(|r| r < 1.0) {
            self.unsupported.push("CHP.ramp_rate_fraction_per_hour (CHP ramp limits)".into());
        }
        for field in ["follow_electrical_load", "follow_heating_load"] {
            if self.flag_or(map, s, field, false) {
                self.unsupported.push(format!("CHP.{field}=true (load-following CHP)"));
            }
        }
    }
}

//! The emissions and renewable-electricity inputs (`ElectricUtility` factor series, `Site`
//! targets and accounting flags, `Settings` objective flags, `Financial` emissions costs) read
//! into `Emissions`, as REopt.jl `src/core/electric_utility.jl`, `site.jl` and `financial.jl`
//! take them.
//!
//! The service fills factor series left out from outside data (Cambium CO2 and clean-energy
//! fractions, AVERT health factors, EASIUR health costs): here they stay None. A run is refused
//! (by name, saying which input to give) only when such a value enters the optimization: a
//! binding CO2 reduction bound or the climate objective (CO2 series), the health objective (the
//! health series, costs and escalation rates; the fuel-burn costs with a generator or boilers),
//! a renewable-electricity bound counting the
//! grid's share (the clean-energy fraction series). Otherwise the outputs that need them are
//! reported as null.

use serde_json::{Map, Value};

use super::{FilledDefault, Reader};
use crate::calendar::HOURS_PER_YEAR;
use crate::optimizer::scenario::given as is_given;

/// The pollutants in the service's order; arrays indexed by pollutant follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pollutant {
    Co2,
    Nox,
    So2,
    Pm25,
}

impl Pollutant {
    pub const ALL: [Pollutant; 4] = [Pollutant::Co2, Pollutant::Nox, Pollutant::So2, Pollutant::Pm25];
    /// The health pollutants (the service's "health" costs).
    pub const HEALTH: [Pollutant; 3] = [Pollutant::Nox, Pollutant::So2, Pollutant::Pm25];

    /// The name in the service's field names (`emissions_factor_series_lb_{name}_per_kwh`).
    pub fn name(self) -> &'static str {
        match self {
            Pollutant::Co2 => "CO2",
            Pollutant::Nox => "NOx",
            Pollutant::So2 => "SO2",
            Pollutant::Pm25 => "PM25",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// The service's default annual decrease of a given grid emissions series
/// (`EMISSIONS_DECREASE_DEFAULTS` of REopt.jl, the same for all four).
pub const EMISSIONS_DECREASE_DEFAULT: f64 = 0.0459;

/// How a refusal of outside data says it can be filled (`services::optimizer::emissions_series`).
const RESOLVE: &str = "Scenario.resolve(client) fills it from the service's";

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Emissions {
    /// lb per kWh bought, per step, of each pollutant (`Pollutant` order); None when not given
    /// (the service would look it up in outside data); zeros off grid.
    pub grid_lb_per_kwh: [Option<Vec<f64>>; 4],
    /// Annual decrease of each grid factor.
    pub decrease_fraction: [f64; 4],
    /// Renewable share of the grid's electricity per step; None when not given.
    pub grid_renewable_fraction: Option<Vec<f64>>,
    pub include_exported_elec_emissions_in_total: bool,
    pub include_grid_renewable_fraction_in_re_constraints: bool,
    /// `Site.renewable_electricity_min/max_fraction` (of the year's electric load).
    pub renewable_electricity_min_fraction: Option<f64>,
    pub renewable_electricity_max_fraction: Option<f64>,
    /// `Site.CO2_emissions_reduction_min/max_fraction` (of the business-as-usual lifecycle CO2).
    pub co2_reduction_min_fraction: Option<f64>,
    pub co2_reduction_max_fraction: Option<f64>,
    pub climate_in_objective: bool,
    pub health_in_objective: bool,
    /// $ per tonne of grid emissions (CO2: `CO2_cost_per_tonne`); None when the service would
    /// take it from EASIUR.
    pub grid_cost_per_tonne: [Option<f64>; 4],
    /// $ per tonne of emissions from fuel burned on site.
    pub onsite_cost_per_tonne: [Option<f64>; 4],
    /// Annual escalation of each cost.
    pub cost_escalation: [Option<f64>; 4],
}

impl Emissions {
    /// Whether a CO2 reduction bound constrains anything (the service's own test).
    pub fn has_co2_bounds(&self) -> bool {
        self.co2_reduction_min_fraction.is_some_and(|f| f > 0.0) || self.co2_reduction_max_fraction.is_some_and(|f| f < 1.0)
    }

    pub fn has_re_bounds(&self) -> bool {
        self.renewable_electricity_min_fraction.is_some_and(|f| f > 0.0) || self.renewable_electricity_max_fraction.is_some()
    }

    pub fn grid(&self, p: Pollutant) -> Option<&[f64]> {
        self.grid_lb_per_kwh[p.index()].as_deref()
    }
}

impl Reader<'_> {
    pub(super) fn read_emissions(&mut self, steps_per_hour: usize, off_grid: bool, has_generator: bool, run_bau: bool) -> Emissions {
        let utility = self.section("ElectricUtility").unwrap_or(self.empty);
        let site = self.section("Site").unwrap_or(self.empty);
        let settings = self.section("Settings").unwrap_or(self.empty);
        let financial = self.section("Financial").unwrap_or(self.empty);
        let grid_lb_per_kwh = Pollutant::ALL.map(|p| {
            let field = series_field(p);
            self.grid_series(utility, field, steps_per_hour, off_grid)
        });
        let mut decrease_fraction = [0.0; 4];
        for p in Pollutant::ALL {
            let field = decrease_field(p);
            decrease_fraction[p.index()] = match self.number_in(utility, "ElectricUtility", field) {
                Some(value) => value,
                None if grid_lb_per_kwh[p.index()].is_some() && !off_grid => {
                    self.filled.push(FilledDefault::new("ElectricUtility", field, Value::from(EMISSIONS_DECREASE_DEFAULT)));
                    EMISSIONS_DECREASE_DEFAULT
                }
                None => EMISSIONS_DECREASE_DEFAULT,
            };
        }
        let co2_cost = self.number(financial, "Financial", "CO2_cost_per_tonne");
        let co2_escalation = self.number(financial, "Financial", "CO2_cost_escalation_rate_fraction");
        let mut grid_cost_per_tonne = [Some(co2_cost); 4];
        let mut onsite_cost_per_tonne = [Some(co2_cost); 4];
        let mut cost_escalation = [Some(co2_escalation); 4];
        for p in Pollutant::HEALTH {
            let name = p.name();
            grid_cost_per_tonne[p.index()] = self.number_in(financial, "Financial", &format!("{name}_grid_cost_per_tonne"));
            onsite_cost_per_tonne[p.index()] = self.number_in(financial, "Financial", &format!("{name}_onsite_fuelburn_cost_per_tonne"));
            cost_escalation[p.index()] = self.number_in(financial, "Financial", &format!("{name}_cost_escalation_rate_fraction"));
        }
        let grid_renewable_fraction = self.grid_series(utility, "renewable_energy_fraction_series", steps_per_hour, off_grid);
        let emissions = Emissions {
            grid_lb_per_kwh,
            decrease_fraction,
            grid_renewable_fraction,
            include_exported_elec_emissions_in_total: self.flag(site, "Site", "include_exported_elec_emissions_in_total"),
            include_grid_renewable_fraction_in_re_constraints: self.flag(site, "Site", "include_grid_renewable_fraction_in_RE_constraints"),
            renewable_electricity_min_fraction: self.number_in(site, "Site", "renewable_electricity_min_fraction"),
            renewable_electricity_max_fraction: self.number_in(site, "Site", "renewable_electricity_max_fraction"),
            co2_reduction_min_fraction: self.number_in(site, "Site", "CO2_emissions_reduction_min_fraction"),
            co2_reduction_max_fraction: self.number_in(site, "Site", "CO2_emissions_reduction_max_fraction"),
            climate_in_objective: self.flag(settings, "Settings", "include_climate_in_objective"),
            health_in_objective: self.flag(settings, "Settings", "include_health_in_objective"),
            grid_cost_per_tonne,
            onsite_cost_per_tonne,
            cost_escalation,
        };
        self.check_outside_data(&emissions, has_generator);
        if emissions.has_co2_bounds() && (off_grid || !run_bau) {
            self.invalid.push(
                "To constrain CO2 emissions reduction min or max percentages, the optimal and business as usual scenarios must be run in parallel."
                    .into(),
            );
        }
        emissions
    }

    /// A factor series: a number or one value repeated, 8760 · steps values as they are, an
    /// hourly series repeated per step (the service's expansion); None when not given.
    fn grid_series(&mut self, map: &Map<String, Value>, field: &'static str, steps_per_hour: usize, off_grid: bool) -> Option<Vec<f64>> {
        let steps = HOURS_PER_YEAR * steps_per_hour;
        if off_grid {
            return Some(vec![0.0; steps]);
        }
        if !is_given(map.get(field)) {
            return None;
        }
        let values = self.numbers(map, "ElectricUtility", field);
        match values.len() {
            0 => None,
            1 => Some(vec![values[0]; steps]),
            n if n == steps => Some(values),
            HOURS_PER_YEAR => Some(values.iter().flat_map(|&v| std::iter::repeat_n(v, steps_per_hour)).collect()),
            _ => {
                self.invalid.push(format!(
                    "The provided ElectricUtility emissions or clean enery fraction series for {field} does not match the time_steps_per_hour."
                ));
                None
            }
        }
    }

    /// With fuel burned on site (a generator or boilers) and health costs in the objective,
    /// refuses by name the fuel-burn health costs the service would take from EASIUR.
    pub(super) fn check_onsite_fuel_costs(&mut self, e: &Emissions) {
        if !e.health_in_objective {
            return;
        }
        for p in Pollutant::HEALTH {
            if e.onsite_cost_per_tonne[p.index()].is_none() {
                let name = p.name();
                self.unsupported.push(format!(
                    "Financial.{name}_onsite_fuelburn_cost_per_tonne (EASIUR health costs are outside data: {RESOLVE} EASIUR look-up, or give the cost)"
                ));
            }
        }
    }

    /// Refuses, by name, the outside data the optimization would need.
    fn check_outside_data(&mut self, e: &Emissions, has_generator: bool) {
        if has_generator {
            self.check_onsite_fuel_costs(e);
        }
        if (e.has_co2_bounds() || e.climate_in_objective) && e.grid(Pollutant::Co2).is_none() {
            self.unsupported.push(format!(
                "ElectricUtility.emissions_factor_series_lb_CO2_per_kwh (Cambium or AVERT grid CO2 emissions factors are outside data: \
                 {RESOLVE} Cambium/AVERT look-up, or give the series)"
            ));
        }
        if e.has_re_bounds() && e.include_grid_renewable_fraction_in_re_constraints && e.grid_renewable_fraction.is_none() {
            self.unsupported.push(format!(
                "ElectricUtility.renewable_energy_fraction_series (Cambium grid clean-energy fractions are outside data: \
                 {RESOLVE} Cambium look-up, or give the series)"
            ));
        }
        if !e.health_in_objective {
            return;
        }
        for p in Pollutant::HEALTH {
            let name = p.name();
            let grid_used = e.grid(p).is_some_and(|series| series.iter().any(|&v| v != 0.0));
            if e.grid(p).is_none() {
                self.unsupported.push(format!(
                    "ElectricUtility.{} (AVERT grid health emissions factors are outside data: {RESOLVE} AVERT look-up, or give the series)",
                    series_field(p)
                ));
            } else if grid_used && e.grid_cost_per_tonne[p.index()].is_none() {
                self.unsupported.push(format!(
                    "Financial.{name}_grid_cost_per_tonne (EASIUR health costs are outside data: {RESOLVE} EASIUR look-up, or give the cost)"
                ));
            }
            if e.cost_escalation[p.index()].is_none() {
                self.unsupported.push(format!(
                    "Financial.{name}_cost_escalation_rate_fraction (EASIUR escalation rates are outside data: {RESOLVE} EASIUR look-up, or give the rate)"
                ));
            }
        }
    }
}

fn series_field(p: Pollutant) -> &'static str {
    match p {
        Pollutant::Co2 => "emissions_factor_series_lb_CO2_per_kwh",
        Pollutant::Nox => "emissions_factor_series_lb_NOx_per_kwh",
        Pollutant::So2 => "emissions_factor_series_lb_SO2_per_kwh",
        Pollutant::Pm25 => "emissions_factor_series_lb_PM25_per_kwh",
    }
}

fn decrease_field(p: Pollutant) -> &'static str {
    match p {
        Pollutant::Co2 => "emissions_factor_CO2_decrease_fraction",
        Pollutant::Nox => "emissions_factor_NOx_decrease_fraction",
        Pollutant::So2 => "emissions_factor_SO2_decrease_fraction",
        Pollutant::Pm25 => "emissions_factor_PM25_decrease_fraction",
    }
}

//! The cooling part of a scenario read into typed inputs: the CoolingLoad as thermal kW per step
//! and the ExistingChiller that serves it (REopt.jl `src/core/heating_cooling_loads.jl`
//! `CoolingLoad`, `src/core/existing_chiller.jl`, and their wiring in `src/core/scenario.jl`).
//!
//! Units: the service takes cooling as tons of refrigeration (1 ton = 3.51685 kW thermal); the
//! fraction-of-electric forms give the chiller's *electric* kW, turned into thermal kW with the
//! chiller's COP. The cooling load's electricity is part of ElectricLoad: the service takes
//! `thermal/cop` out of the electric load and puts the chillers' electricity back in its balance.
//! With the existing chiller as the only chiller it serves the whole cooling load in both cases,
//! so what is taken out is put back exactly and the electric load stays `ElectricLoad` as given;
//! the cooling load enters the results only.
//!
//! With an AbsorptionChiller (`absorption_chiller_inputs`) or a ColdThermalStorage
//! (`hot_storage_inputs`) the existing chiller's production becomes a decision (`lp::cooling`), and
//! its electricity, its share of the absorption chiller's and the base taken out above make the
//! difference the electric balance carries.
//!
//! Refused by name (not modelled here): reference-building cooling loads (they need the service's
//! profile data, which `Scenario.resolve` turns into tons or fractions of the electric load;
//! FlatLoad shapes scaled to annual_tonhour or monthly_tonhour are read), the
//! existing chiller's capital costs, cooling off grid (REopt.jl's `Scenario`, src/core/scenario.jl,
//! 029db01d, throws for a CoolingLoad or any chiller off grid: there is no off-grid cooling of the
//! service to reproduce), and an absorption chiller
//! without a heating load beside another heating tech (`check_absorption_heat_source`).

use serde_json::{Map, Value};

use super::absorption_chiller_inputs::AbsorptionChiller;
use super::hot_storage_inputs::ThermalTank;
use super::thermal_inputs::{Heating, HeatingLoadKind};
use super::{FilledDefault, Financial, Reader};
use crate::calendar::modelled_year::month_of_each_step;
use crate::calendar::HOURS_PER_YEAR;
use crate::optimizer::loads::{flat_load_shape, scale_profile, EnergyTarget, FLAT_LOADS};

pub use super::absorption_chiller_inputs::KWH_THERMAL_PER_TONHOUR;

/// The service's default existing-chiller COPs (REopt.jl `get_existing_chiller_default_cop`,
/// heating_cooling_loads.jl at 029db01d): below 100 tons of chiller, at or above, and unknown.
const COP_BELOW_100_TON: f64 = 4.40;
const COP_FROM_100_TON: f64 = 4.69;
const COP_UNKNOWN: f64 = (COP_BELOW_100_TON + COP_FROM_100_TON) / 2.0;

/// What `Scenario.resolve` makes of a reference cooling load, named in its refusal.
const RESOLVE_FILLS: &str = "Scenario.resolve(client) fills CoolingLoad.thermal_loads_ton from annual_tonhour or monthly_tonhour, \
else per_time_step_fractions_of_electric_load from the buildings' cooling share of their electricity";

/// The existing chiller's COP when none is given: by the chiller's size in tons (peak thermal
/// load · max_thermal_factor_on_peak_load).
pub fn default_existing_chiller_cop(peak_thermal_kw: f64, max_thermal_factor_on_peak_load: f64) -> f64 {
    if peak_thermal_kw / KWH_THERMAL_PER_TONHOUR * max_thermal_factor_on_peak_load < 100.0 {
        COP_BELOW_100_TON
    } else {
        COP_FROM_100_TON
    }
}

/// The COP the service turns a cooling load given as chiller electricity into thermal load with
/// (reference buildings, or no COP given): the default of the peak its unknown-COP guess gives.
pub fn default_cop_of_electric_peak(peak_electric_kw: f64, max_thermal_factor_on_peak_load: f64) -> f64 {
    default_existing_chiller_cop(peak_electric_kw * COP_UNKNOWN, max_thermal_factor_on_peak_load)
}

#[derive(Debug, Clone, PartialEq)]
pub struct ExistingChiller {
    /// Thermal kW out per electric kW in.
    pub cop: f64,
    /// Thermal kW it can deliver: the peak cooling load · max_thermal_factor_on_peak_load.
    pub max_kw: f64,
    pub max_thermal_factor_on_peak_load: f64,
    /// Not used in the optimal case when an absorption chiller exists.
    pub retire_in_optimal: bool,
}

/// The cooling part of a model: a cooling load with at least one positive value and its chiller.
#[derive(Debug, Clone, PartialEq)]
pub struct Cooling {
    /// Thermal kW per step.
    pub load_kw: Vec<f64>,
    pub existing_chiller: ExistingChiller,
    pub absorption_chiller: Option<AbsorptionChiller>,
    /// The chilled-water tank.
    pub cold_storage: Option<ThermalTank>,
}

impl Cooling {
    /// The existing chiller's electricity per step when it serves the whole load (kW): the
    /// service's `electric_chiller_base_load_series_kw`.
    pub fn base_electric_kw(&self) -> Vec<f64> {
        self.load_kw.iter().map(|kw| kw / self.existing_chiller.cop).collect()
    }

    /// A bound on the electricity the chillers may use above the base in any step (kW): the
    /// existing chiller at full output, the absorption chiller serving the peak and charging the
    /// tank at its power limit.
    pub fn max_added_electric_kw(&self, steps_per_hour: usize) -> f64 {
        let peak = self.load_kw.iter().copied().fold(0.0, f64::max);
        let tank_power = self.cold_storage.as_ref().map_or(0.0, |tank| tank.max_kwh * steps_per_hour as f64);
        let absorption = self.absorption_chiller.as_ref().map_or(0.0, |a| (peak + tank_power) / a.cop_electric);
        self.existing_chiller.max_kw / self.existing_chiller.cop + absorption
    }

    /// Whether the existing chiller's production is a decision (another chiller or a tank exists).
    pub fn has_dispatch(&self) -> bool {
        self.absorption_chiller.is_some() || self.cold_storage.is_some()
    }
}

/// How the CoolingLoad gives its load before the COP is known.
enum CoolingSeries {
    /// Thermal kW per step.
    Thermal(Vec<f64>),
    /// The chiller's electric kW per step.
    Electric(Vec<f64>),
}

impl Reader<'_> {
    /// The cooling part, or None without a positive cooling load (the service then builds no
    /// chiller and ignores an ExistingChiller section). `electric_kw` is ElectricLoad as given
    /// (before any net-load adjustment).
    pub(super) fn read_cooling(
        &mut self,
        steps_per_hour: usize,
        year: i32,
        electric_kw: &[f64],
        context: super::thermal_inputs::HeatingContext,
        heating: Option<&Heating>,
        financial: &Financial,
    ) -> Option<Cooling> {
        let chiller_map = self.section("ExistingChiller").unwrap_or(self.empty);
        let load_map = self.section("CoolingLoad")?;
        let s = "ExistingChiller";
        let given_cop = self.number_in(chiller_map, s, "cop");
        if given_cop.is_some_and(|cop| cop <= 0.0) {
            self.invalid.push("ExistingChiller.cop must be positive.".into());
            return None;
        }
        let factor = self.number(chiller_map, s, "max_thermal_factor_on_peak_load");
        let load_kw = match self.cooling_series(load_map, steps_per_hour, year, electric_kw)? {
            CoolingSeries::Thermal(kw) => kw,
            CoolingSeries::Electric(kw) => {
                // The service converts with the given COP, except when a reference building is
                // named (its own or ElectricLoad's): then as without a COP.
                let cop = match given_cop {
                    Some(cop) if !self.names_reference_building(load_map) => cop,
                    _ => default_cop_of_electric_peak(kw.iter().copied().fold(0.0, f64::max), factor),
                };
                kw.iter().map(|e| e * cop).collect()
            }
        };
        let peak = load_kw.iter().copied().fold(0.0, f64::max);
        if peak <= 0.0 {
            return None;
        }
        if context.off_grid {
            self.unsupported.push(
                "cooling loads off grid (Settings.off_grid_flag with a CoolingLoad: the service's Scenario throws for every section but PV, Wind, ElectricStorage, Generator, Settings, Site, Financial, ElectricLoad, ElectricTariff and ElectricUtility off grid, so it has no off-grid cooling to follow)".into(),
            );
        }
        for field in ["installed_cost_per_ton", "installed_cost_dollars"] {
            if self.number_in(chiller_map, s, field).is_some_and(|cost| cost != 0.0) {
                self.unsupported.push(format!("{s}.{field} (capital cost of the existing chiller)"));
            }
        }
        if factor < 1.0 {
            self.invalid.push(format!(
                "ExistingChiller.max_thermal_factor_on_peak_load ({factor}) below 1 cannot serve the peak cooling load, and no other chiller is modelled."
            ));
            return None;
        }
        let cop = given_cop.unwrap_or_else(|| {
            let cop = default_existing_chiller_cop(peak, factor);
            self.filled.push(FilledDefault::new(s, "cop", Value::from(cop)));
            cop
        });
        if let Some(t) = (0..load_kw.len()).find(|&t| load_kw[t] / cop > electric_kw[t] + 1e-9) {
            self.invalid.push(format!(
                "Cooling electric consumption cannot be more than the total electric load at any time step: at time step {} the cooling electric consumption is {:.3} kW and the total electric load is {:.3} kW.",
                t + 1,
                load_kw[t] / cop,
                electric_kw[t]
            ));
            return None;
        }
        let retire_in_optimal = self.flag(chiller_map, s, "retire_in_optimal");
        let existing_chiller = ExistingChiller { cop, max_kw: peak * factor, max_thermal_factor_on_peak_load: factor, retire_in_optimal };
        let absorption_chiller = self.read_absorption_chiller(peak, financial, (heating, electric_kw));
        if let Some(chiller) = &absorption_chiller {
            self.check_absorption_heat_source(chiller, heating);
        }
        let cold_storage = self.read_cold_storage(financial, steps_per_hour);
        if cold_storage.is_some() && financial.third_party_ownership {
            self.unsupported.push("Financial.third_party_ownership=true with ColdThermalStorage (the tank's third-party costs)".into());
        }
        Some(Cooling { load_kw, existing_chiller, absorption_chiller, cold_storage })
    }

    /// The service draws the absorption chiller's heat from its heating load's balance, which
    /// exists whenever any heating tech does (`HeatLoadBalanceCon` in load_balance.jl, over every
    /// q in `heating_loads`, which always holds DomesticHotWater, SpaceHeating and ProcessHeat
    /// since scenario.jl builds an absent load as zeros). An absent load of a site with heat is
    /// then a zero load the boilers and CHP still serve (`can_serve_*` true) and the hot storage
    /// does not (`heating_loads_served_by_tes` wants a positive total): what the one heat balance
    /// here already is. Without any heating load no boiler is built, and with no other heating
    /// tech (`techs.heating` empty) the balance is not built at all: the chiller's heat is free,
    /// bounded only by its size and the cooling balance, as the LP here (no heat balance) has it.
    /// Refused: the heating techs the service would still balance that heat with.
    fn check_absorption_heat_source(&mut self, chiller: &AbsorptionChiller, heating: Option<&Heating>) {
        let kind = chiller.heating_load;
        let section = kind.section();
        if heating.is_some() && self.section(section).is_none() {
            let ghp_serves = self.section("GHP").is_some_and(|ghp| match kind {
                HeatingLoadKind::SpaceHeating => true,
                HeatingLoadKind::DomesticHotWater => ghp.get("can_serve_dhw").and_then(Value::as_bool) == Some(true),
                HeatingLoadKind::ProcessHeat => false,
            });
            let electric_heater = self.section("ElectricHeater").is_some();
            for (tech, serves) in [("ElectricHeater", electric_heater), ("GHP", ghp_serves)] {
                if serves {
                    self.unsupported.push(format!(
                        "{tech} with an AbsorptionChiller drawing from an absent {section} (that tech's heat to the zero load is not modelled)"
                    ));
                }
            }
        }
        if heating.is_none() {
            for tech in ["ElectricHeater", "ASHPSpaceHeater", "ASHPWaterHeater", "GHP", "SteamTurbine", "CST"] {
                if self.section(tech).is_some() {
                    self.unsupported.push(format!(
                        "AbsorptionChiller without a heating load but with {tech} (the service balances the chiller's heat with that tech's)"
                    ));
                }
            }
        }
    }

    /// Whether the CoolingLoad names a reference building, itself or through ElectricLoad (the
    /// service copies ElectricLoad's names into an empty CoolingLoad's).
    fn names_reference_building(&mut self, map: &Map<String, Value>) -> bool {
        let electric = self.section("ElectricLoad").unwrap_or(self.empty);
        [map, electric].iter().any(|m| !self.text(m, "doe_reference_name").is_empty() || crate::optimizer::scenario::given(m.get("blended_doe_reference_names")))
    }

    /// The CoolingLoad's series in the service's order of forms: thermal tons, fractions of the
    /// electric load per step, by month or for the year, then a FlatLoad shape scaled to ton-hours.
    fn cooling_series(&mut self, map: &Map<String, Value>, steps_per_hour: usize, year: i32, electric_kw: &[f64]) -> Option<CoolingSeries> {
        let s = "CoolingLoad";
        if let Some(given) = self.number_in(map, s, "year") {
            if given as i32 != year {
                self.invalid.push(format!("Inconsistent load years: ElectricLoad year ({year}) does not match the provided year ({}) for {s}.", given as i32));
                return None;
            }
        }
        let steps = HOURS_PER_YEAR * steps_per_hour;
        let tons = self.numbers(map, s, "thermal_loads_ton");
        if !tons.is_empty() {
            if tons.len() != steps {
                self.invalid.push("Provided cooling load does not match the time_steps_per_hour.".into());
                return None;
            }
            return Some(CoolingSeries::Thermal(tons.iter().map(|ton| ton * KWH_THERMAL_PER_TONHOUR).collect()));
        }
        let per_step = self.numbers(map, s, "per_time_step_fractions_of_electric_load");
        if !per_step.is_empty() {
            if per_step.len() != steps {
                self.invalid.push("Provided cooling per_time_step_fractions_of_electric_load array does not match the time_steps_per_hour.".into());
                return None;
            }
            return Some(CoolingSeries::Electric(per_step.iter().zip(electric_kw).map(|(f, kw)| f * kw).collect()));
        }
        let monthly = self.numbers(map, s, "monthly_fractions_of_electric_load");
        if !monthly.is_empty() {
            if monthly.len() != 12 {
                self.invalid.push("Provided cooling monthly_fractions_of_electric_load array does not have 12 values.".into());
                return None;
            }
            let months = month_of_each_step(year, steps_per_hour);
            return Some(CoolingSeries::Electric(months.iter().zip(electric_kw).map(|(&m, kw)| monthly[m as usize] * kw).collect()));
        }
        if let Some(fraction) = self.number_in(map, s, "annual_fraction_of_electric_load") {
            return Some(CoolingSeries::Electric(electric_kw.iter().map(|kw| fraction * kw).collect()));
        }
        self.flat_cooling_load(map, steps_per_hour, year)
    }

    /// A FlatLoad shape (CoolingLoad's own doe_reference_name or ElectricLoad's) scaled to
    /// annual_tonhour or monthly_tonhour; every other reference form needs the service's data.
    fn flat_cooling_load(&mut self, map: &Map<String, Value>, steps_per_hour: usize, year: i32) -> Option<CoolingSeries> {
        let s = "CoolingLoad";
        let electric = self.section("ElectricLoad").unwrap_or(self.empty);
        if crate::optimizer::scenario::given(map.get("blended_doe_reference_names"))
            || (self.text(map, "doe_reference_name").is_empty() && crate::optimizer::scenario::given(electric.get("blended_doe_reference_names")))
        {
            self.unsupported.push(format!(
                "{s}.blended_doe_reference_names (reference cooling profiles need the service's data: {RESOLVE_FILLS})"
            ));
            return None;
        }
        let own = self.text(map, "doe_reference_name");
        let name = if own.is_empty() { self.text(electric, "doe_reference_name") } else { own }.to_string();
        if name.is_empty() {
            self.invalid.push(
                "Cannot construct BuiltInCoolingLoad. You must provide either [thermal_loads_ton], [doe_reference_name, city], [blended_doe_reference_names, blended_doe_reference_percents, city], or the site_electric_load_profile along with one of [per_time_step_fractions_of_electric_load, monthly_fractions_of_electric_load, annual_fraction_of_electric_load].".into(),
            );
            return None;
        }
        let annual = self.number_in(map, s, "annual_tonhour");
        let monthly = self.numbers(map, s, "monthly_tonhour");
        // The service scales to monthly ton-hours when 12 are given, else to the annual total.
        let energy = match (monthly.len() == 12, annual) {
            (true, _) => Some(EnergyTarget::Monthly(monthly.iter().map(|t| t * KWH_THERMAL_PER_TONHOUR).collect())),
            (false, Some(total)) => Some(EnergyTarget::Annual(total * KWH_THERMAL_PER_TONHOUR)),
            (false, None) => None,
        };
        let (true, Some(energy)) = (FLAT_LOADS.contains(&name.as_str()), energy) else {
            self.unsupported.push(format!(
                "{s}.doe_reference_name={name} (reference cooling profiles need the service's data: {RESOLVE_FILLS})"
            ));
            return None;
        };
        let hourly = scale_profile(&flat_load_shape(&name, year), &energy, year, 1);
        Some(CoolingSeries::Thermal(hourly.iter().flat_map(|&kw| std::iter::repeat_n(kw, steps_per_hour)).collect()))
    }
}

//! The heating part of a scenario read into typed inputs: the heating loads
//! (SpaceHeatingLoad, DomesticHotWaterLoad, ProcessHeatLoad) as thermal kW per step, the
//! ExistingBoiler that serves them in business as usual, the new Boiler that may be sized and
//! the hot storages, the water tank and the high-temperature storage (`hot_storage_inputs`).
//!
//! Units: heating loads are given as boiler *fuel* (MMBtu/h or MMBtu); the service turns them
//! into thermal kW with the existing boiler's efficiency η_eb and its constant
//! `KWH_PER_MMBTU`: thermal_kW = fuel_MMBtu/h · 293.07107 · η_eb · addressable fraction.
//! Fuel costs are $/MMBtu of fuel, kept here as $ per kWh of fuel per step.
//!
//! Refused by name (not modelled here): reference-building and industrial heating profiles and
//! blends (they need the service's profile data: `Scenario.resolve` turns them into
//! `fuel_loads_mmbtu_per_hour`; a single FlatLoad, also as `industrial_reference_name`, scaled to
//! annual_mmbtu or monthly_mmbtu is read here), boiler capital
//! costs of the existing boiler, heating off grid. Each boiler serves the loads given its `can_serve_*`
//! flags allow (with all of them false it makes no heat, as the service's; one whose flags are true
//! only for loads not given is refused). With the deterministic outage the heat balance
//! leaves the outage steps out as the service does (`lp::heating`).

use serde_json::{Map, Value};

use super::{FilledDefault, Financial, HotStorage, Model, Pollutant, Reader};
use crate::calendar::modelled_year::month_of_each_hour_non_leap;
use crate::calendar::HOURS_PER_YEAR;
use crate::optimizer::loads::{flat_load_shape, scale_profile, EnergyTarget, FLAT_LOADS};
use crate::optimizer::finance::{effective_cost, TaxTreatment};

/// kWh per MMBtu, the service's conversion constant.
pub const KWH_PER_MMBTU: f64 = 293.07107;

/// The efficiency of the existing boiler per production type when none is given.
fn default_existing_efficiency(production_type: &str) -> Option<f64> {
    match production_type {
        "hot_water" => Some(0.8),
        "steam" => Some(0.75),
        _ => None,
    }
}

/// The three heating loads of the service, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatingLoadKind {
    DomesticHotWater,
    SpaceHeating,
    ProcessHeat,
}

impl HeatingLoadKind {
    pub const ALL: [HeatingLoadKind; 3] = [HeatingLoadKind::DomesticHotWater, HeatingLoadKind::SpaceHeating, HeatingLoadKind::ProcessHeat];

    pub fn section(self) -> &'static str {
        match self {
            HeatingLoadKind::DomesticHotWater => "DomesticHotWaterLoad",
            HeatingLoadKind::SpaceHeating => "SpaceHeatingLoad",
            HeatingLoadKind::ProcessHeat => "ProcessHeatLoad",
        }
    }
}

/// One heating load.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatingLoad {
    pub kind: HeatingLoadKind,
    /// Thermal kW per step (the addressable part).
    pub thermal_kw: Vec<f64>,
    /// Fuel MMBtu a year the boilers cannot address (reported only).
    pub unaddressable_annual_fuel_mmbtu: f64,
}

/// What both boilers share: fuel, efficiency, emissions.
#[derive(Debug, Clone, PartialEq)]
pub struct FuelBurner {
    /// Thermal kWh out per kWh of fuel in.
    pub efficiency: f64,
    /// $ per kWh of fuel, per step.
    pub fuel_cost_per_kwh: Vec<f64>,
    /// Annual escalation of the fuel cost (fraction).
    pub fuel_escalation: f64,
    /// lb per MMBtu of fuel: CO2, NOx, SO2, PM2.5 (`Pollutant` order).
    pub emissions_lb_per_mmbtu: [f64; 4],
    /// The renewable share of the fuel (`fuel_renewable_energy_fraction`).
    pub renewable_fraction: f64,
}

impl FuelBurner {
    /// lb of a pollutant per thermal kWh made: 1/η kWh of fuel at lb-per-MMBtu / `KWH_PER_MMBTU`.
    pub fn lb_per_thermal_kwh(&self, p: Pollutant) -> f64 {
        self.emissions_lb_per_mmbtu[p.index()] / (KWH_PER_MMBTU * self.efficiency)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ExistingBoiler {
    pub burner: FuelBurner,
    /// Thermal kW it can deliver: the peak heating load · max_thermal_factor_on_peak_load.
    pub max_kw: f64,
    pub max_thermal_factor_on_peak_load: f64,
    /// Not used in the optimal case when a new boiler exists.
    pub retire_in_optimal: bool,
    /// The heating loads given it may serve (its `can_serve_*` flags; none when they are all
    /// false: it makes no heat).
    pub serves: Vec<HeatingLoadKind>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewBoiler {
    pub burner: FuelBurner,
    /// Thermal kW bounds of the new capacity.
    pub min_kw: f64,
    pub max_kw: f64,
    /// $ per thermal kW.
    pub installed_cost_per_kw: f64,
    /// $ per thermal kW after MACRS (the service gives the boiler no other incentive); the
    /// installed cost without MACRS.
    pub net_present_cost_per_kw: f64,
    /// $ per thermal kW per year.
    pub om_cost_per_kw: f64,
    /// $ per thermal kWh produced.
    pub om_cost_per_kwh: f64,
    /// The heating loads given it may serve (its `can_serve_*` flags; none when they are all
    /// false: it makes no heat).
    pub serves: Vec<HeatingLoadKind>,
}

/// The heating part of a model: loads with at least one positive value, and the boilers.
#[derive(Debug, Clone, PartialEq)]
pub struct Heating {
    pub loads: Vec<HeatingLoad>,
    pub existing_boiler: ExistingBoiler,
    pub boiler: Option<NewBoiler>,
    /// The hot storages, the water tank first (either, both or none).
    pub hot_storages: Vec<HotStorage>,
}

impl Heating {
    /// Total thermal load per step (kW).
    pub fn total_kw(&self, t: usize) -> f64 {
        self.loads.iter().map(|load| load.thermal_kw[t]).sum()
    }

    /// Whether a hot storage may serve a load kind (the service's `heating_loads_served_by_tes`).
    pub fn storage_serves(&self, kind: HeatingLoadKind) -> bool {
        self.hot_storages.iter().any(|s| s.serves(kind))
    }

    /// The part of step t's load the given storage may serve (kW).
    pub fn servable_kw(&self, storage: &HotStorage, t: usize) -> f64 {
        self.loads.iter().filter(|load| storage.serves(load.kind)).map(|load| load.thermal_kw[t]).sum()
    }

    /// The thermal series of one load kind (zeros when absent).
    pub fn load_kw(&self, kind: HeatingLoadKind, steps: usize) -> Vec<f64> {
        self.loads.iter().find(|load| load.kind == kind).map_or_else(|| vec![0.0; steps], |load| load.thermal_kw.clone())
    }
}

/// The producers whose heat to load is one column per step in the program (`lp::heating`): both
/// boilers, CHP and the steam turbine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatProducer {
    ExistingBoiler,
    Boiler,
    Chp,
    SteamTurbine,
}

impl HeatProducer {
    pub const ALL: [HeatProducer; 4] = [HeatProducer::ExistingBoiler, HeatProducer::Boiler, HeatProducer::Chp, HeatProducer::SteamTurbine];
}

impl Model {
    /// The heating loads a producer may serve (empty when the model has no such producer).
    pub fn producer_serves(&self, producer: HeatProducer) -> &[HeatingLoadKind] {
        let heating = self.heating.as_ref();
        match producer {
            HeatProducer::ExistingBoiler => heating.map(|h| h.existing_boiler.serves.as_slice()),
            HeatProducer::Boiler => heating.and_then(|h| h.boiler.as_ref()).map(|b| b.serves.as_slice()),
            HeatProducer::Chp => self.chp.as_ref().map(|c| c.serves.as_slice()),
            HeatProducer::SteamTurbine => self.steam_turbine.as_ref().map(|st| st.serves.as_slice()),
        }
        .unwrap_or(&[])
    }

    /// Whether a producer the model has serves only some of the heating loads given (then the
    /// heat balance on the totals needs its per-load rows, `lp::heating`).
    pub fn some_producer_serves_part(&self) -> bool {
        let Some(heating) = &self.heating else { return false };
        HeatProducer::ALL.into_iter().map(|p| self.producer_serves(p)).any(|serves| !serves.is_empty() && serves.len() < heating.loads.len())
    }
}

impl Reader<'_> {
    /// The heating part, or None without a positive heating load (the service then builds no
    /// boiler). A heating load without inputs inherits ElectricLoad.doe_reference_name.
    pub(super) fn read_heating(&mut self, steps_per_hour: usize, year: i32, context: HeatingContext, financial: &Financial) -> Option<Heating> {
        let existing_map = self.section("ExistingBoiler");
        let efficiency = self.existing_efficiency(existing_map.unwrap_or(self.empty));
        let mut loads = Vec::new();
        for kind in HeatingLoadKind::ALL {
            if let Some(map) = self.section(kind.section()) {
                if let Some(load) = self.read_heating_load(map, kind, steps_per_hour, year, efficiency) {
                    loads.push(load);
                }
            }
        }
        let peak = (0..HOURS_PER_YEAR * steps_per_hour).map(|t| loads.iter().map(|l| l.thermal_kw[t]).sum::<f64>()).fold(0.0, f64::max);
        if peak <= 0.0 {
            let any_load_section = HeatingLoadKind::ALL.iter().any(|kind| self.root.get(kind.section()).is_some_and(|v| !v.is_null()));
            for storage in ["HotThermalStorage", "HighTempThermalStorage"] {
                if self.section(storage).is_some() && !any_load_section {
                    self.unsupported.push(format!("{storage} without a heating load"));
                }
            }
            return None;
        }
        if context.off_grid {
            self.unsupported.push("heating loads off grid (Settings.off_grid_flag with a heating load)".into());
        }
        let Some(existing_map) = existing_map else {
            self.invalid.push("Must include ExistingBoiler input with at least fuel_cost_per_mmbtu if modeling heating load".into());
            return None;
        };
        let existing_boiler = self.read_existing_boiler(existing_map, efficiency, peak, steps_per_hour)?;
        let boiler = match self.section("Boiler") {
            Some(map) => Some(self.read_new_boiler(map, steps_per_hour, financial)?),
            None => None,
        };
        let mut hot_storages: Vec<HotStorage> =
            [self.read_hot_storage(financial, steps_per_hour), self.read_high_temp_storage(financial)].into_iter().flatten().collect();
        for storage in &mut hot_storages {
            // `heating_loads_served_by_tes` (reopt_inputs.jl): only loads given with a positive total.
            let positive = |kind| loads.iter().any(|l: &HeatingLoad| l.kind == kind && l.thermal_kw.iter().sum::<f64>() > 0.0);
            storage.can_serve_dhw &= positive(HeatingLoadKind::DomesticHotWater);
            storage.can_serve_space_heating &= positive(HeatingLoadKind::SpaceHeating);
            storage.can_serve_process_heat &= positive(HeatingLoadKind::ProcessHeat);
        }
        let mut heating = Heating { loads, existing_boiler, boiler, hot_storages };
        heating.existing_boiler.serves = self.producer_heating_loads(existing_map, "ExistingBoiler", &heating)?;
        if let (Some(map), true) = (self.section("Boiler"), heating.boiler.is_some()) {
            let serves = self.producer_heating_loads(map, "Boiler", &heating)?;
            if let Some(boiler) = heating.boiler.as_mut() {
                boiler.serves = serves;
            }
        }
        Some(heating)
    }

    /// η_eb: ExistingBoiler.efficiency, or the default of its production_type.
    fn existing_efficiency(&mut self, map: &Map<String, Value>) -> f64 {
        let s = "ExistingBoiler";
        let production_type = match map.get("production_type").and_then(Value::as_str) {
            Some(text) => text.to_string(),
            None => "hot_water".to_string(),
        };
        let Some(default) = default_existing_efficiency(&production_type) else {
            self.invalid.push("ExistingBoiler.production_type must be steam or hot_water.".into());
            return 0.8;
        };
        match self.number_in(map, s, "efficiency") {
            Some(eta) => eta,
            None => {
                if !map.is_empty() {
                    self.filled.push(FilledDefault::new(s, "efficiency", Value::from(default)));
                }
                default
            }
        }
    }

    fn read_heating_load(
        &mut self,
        map: &Map<String, Value>,
        kind: HeatingLoadKind,
        steps_per_hour: usize,
        year: i32,
        efficiency: f64,
    ) -> Option<HeatingLoad> {
        let s = kind.section();
        if let Some(given) = self.number_in(map, s, "year") {
            if given as i32 != year {
                self.invalid.push(format!("Inconsistent load years: ElectricLoad year ({year}) does not match the provided year ({}) for {s}.", given as i32));
                return None;
            }
        }
        let fuel = self.numbers(map, s, "fuel_loads_mmbtu_per_hour");
        let annual = self.number_in(map, s, "annual_mmbtu");
        let monthly = self.numbers(map, s, "monthly_mmbtu");
        let normalize = self.flag_or(map, s, "normalize_and_scale_load_profile_input", false);
        let fraction = self.numbers(map, s, "addressable_load_fraction");
        let fraction = if fraction.is_empty() { vec![1.0] } else { fraction };
        if annual.is_some() && !monthly.is_empty() {
            self.invalid.push(format!("Cannot provide both annual_mmbtu and monthly_mmbtu to scale the {s} profile."));
            return None;
        }
        if !monthly.is_empty() && monthly.len() != 12 {
            self.invalid.push("monthly_mmbtu must be length 12 if provided.".into());
            return None;
        }
        let energy = match (annual, monthly.is_empty()) {
            (Some(total), _) => Some(EnergyTarget::Annual(total)),
            (None, false) => Some(EnergyTarget::Monthly(monthly)),
            (None, true) => None,
        };
        let to_thermal = KWH_PER_MMBTU * efficiency;
        if !fuel.is_empty() {
            let series = self.series(&fuel, s, "fuel_loads_mmbtu_per_hour", steps_per_hour)?;
            if !normalize {
                if energy.is_some() {
                    self.invalid.push(format!(
                        "If providing {s} fuel_loads_mmbtu_per_hour and annual_mmbtu or monthly_mmbtu, must set normalize_and_scale_load_profile_input=true."
                    ));
                    return None;
                }
                let fraction = self.fraction_per_step(&fraction, series.len(), s)?;
                let thermal_kw = series.iter().zip(&fraction).map(|(f, a)| f * to_thermal * a).collect();
                let unaddressable = series.iter().zip(&fraction).map(|(f, a)| f * (1.0 - a)).sum::<f64>() / steps_per_hour as f64;
                return Some(HeatingLoad { kind, thermal_kw, unaddressable_annual_fuel_mmbtu: unaddressable });
            }
            let Some(energy) = energy else {
                self.invalid.push(format!(
                    "Provided {s} fuel_loads_mmbtu_per_hour with normalize_and_scale_load_profile_input=true, but no annual_mmbtu or monthly_mmbtu was provided"
                ));
                return None;
            };
            let total: f64 = series.iter().sum();
            if total <= 0.0 {
                self.invalid.push(format!("{s}.fuel_loads_mmbtu_per_hour must have a positive total to be normalized."));
                return None;
            }
            let shape: Vec<f64> = series.iter().map(|f| f / total).collect();
            return self.scaled_load(kind, &shape, energy, &fraction, year, steps_per_hour, to_thermal);
        }
        // A process heat load names an industrial type, and never falls back on ElectricLoad's building.
        let (name_field, blend_field) = match kind {
            HeatingLoadKind::ProcessHeat => ("industrial_reference_name", "blended_industrial_reference_names"),
            _ => ("doe_reference_name", "blended_doe_reference_names"),
        };
        if crate::optimizer::scenario::given(map.get(blend_field)) {
            self.unsupported.push(format!(
                "{s}.{blend_field} (blended reference heating profiles need the service's data: resolve them into {s}.fuel_loads_mmbtu_per_hour with Scenario.resolve(client))"
            ));
            return None;
        }
        let own = self.text(map, name_field).to_string();
        let name = if own.is_empty() && kind != HeatingLoadKind::ProcessHeat {
            let electric = self.section("ElectricLoad").unwrap_or(self.empty);
            self.text(electric, "doe_reference_name").to_string()
        } else {
            own
        };
        if name.is_empty() {
            self.invalid.push(format!(
                "Cannot construct {s}. You must provide either [fuel_loads_mmbtu_per_hour], [doe_reference_name, latitude, longitude], or [blended_doe_reference_names, blended_doe_reference_percents, latitude, longitude]."
            ));
            return None;
        }
        let (true, Some(energy)) = (FLAT_LOADS.contains(&name.as_str()), energy) else {
            self.unsupported.push(format!(
                "{s}.{name_field}={name} (reference heating profiles and their default energy need the service's data: resolve them into {s}.fuel_loads_mmbtu_per_hour with Scenario.resolve(client))"
            ));
            return None;
        };
        let shape = flat_load_shape(&name, year);
        let hourly = self.scaled_load(kind, &shape, energy, &fraction, year, 1, to_thermal)?;
        let thermal_kw = hourly.thermal_kw.iter().flat_map(|&kw| std::iter::repeat_n(kw, steps_per_hour)).collect();
        Some(HeatingLoad { thermal_kw, ..hourly })
    }

    /// A shape (summing to 1) scaled to fuel energy (annual or monthly MMBtu) times the
    /// addressable fraction, as thermal kW.
    #[allow(clippy::too_many_arguments)]
    fn scaled_load(
        &mut self,
        kind: HeatingLoadKind,
        shape: &[f64],
        energy: EnergyTarget,
        fraction: &[f64],
        year: i32,
        steps_per_hour: usize,
        to_thermal: f64,
    ) -> Option<HeatingLoad> {
        let s = kind.section();
        let (target, unaddressable) = match (energy, fraction) {
            (EnergyTarget::Annual(total), [a]) => (EnergyTarget::Annual(total * a), total * (1.0 - a)),
            (EnergyTarget::Monthly(months), [a]) => {
                let unaddressable = months.iter().map(|m| m * (1.0 - a)).sum();
                (EnergyTarget::Monthly(months.iter().map(|m| m * a).collect()), unaddressable)
            }
            (EnergyTarget::Monthly(months), fractions) if fractions.len() == 12 => {
                let unaddressable = months.iter().zip(fractions).map(|(m, a)| m * (1.0 - a)).sum();
                (EnergyTarget::Monthly(months.iter().zip(fractions).map(|(m, a)| m * a).collect()), unaddressable)
            }
            _ => {
                self.invalid.push(format!(
                    "{s}.addressable_load_fraction must be a scalar or an array of length 12 if monthly_mmbtu is input or of length fuel_loads_mmbtu_per_hour"
                ));
                return None;
            }
        };
        let fuel_mmbtu_per_hour = scale_profile(shape, &target, year, steps_per_hour);
        let thermal_kw = fuel_mmbtu_per_hour.iter().map(|f| f * to_thermal).collect();
        Some(HeatingLoad { kind, thermal_kw, unaddressable_annual_fuel_mmbtu: unaddressable })
    }

    /// The addressable fraction per step of a fuel series: a scalar, or a series whose length
    /// divides the series' (repeated to it).
    fn fraction_per_step(&mut self, fraction: &[f64], steps: usize, s: &str) -> Option<Vec<f64>> {
        match fraction {
            [a] => Some(vec![*a; steps]),
            many if !many.is_empty() && steps.is_multiple_of(many.len()) && many.len() != 12 => {
                Some(many.iter().flat_map(|&a| std::iter::repeat_n(a, steps / many.len())).collect())
            }
            _ => {
                self.invalid.push(format!(
                    "{s}.addressable_load_fraction must be a scalar or an array of the length of fuel_loads_mmbtu_per_hour"
                ));
                None
            }
        }
    }

    /// A fuel cost input ($/MMBtu: scalar, 12 monthly values or one per step) as $/kWh per step.
    pub(super) fn fuel_cost_per_kwh(&mut self, map: &Map<String, Value>, s: &'static str, steps_per_hour: usize) -> Option<Vec<f64>> {
        let given = self.numbers(map, s, "fuel_cost_per_mmbtu");
        let steps = HOURS_PER_YEAR * steps_per_hour;
        let per_mmbtu: Vec<f64> = match given.len() {
            0 => {
                self.invalid.push(format!("The {s}.fuel_cost_per_mmbtu is a required input when modeling a heating load."));
                return None;
            }
            1 => vec![given[0]; steps],
            12 => month_of_each_hour_non_leap()
                .iter()
                .flat_map(|&m| std::iter::repeat_n(given[m as usize], steps_per_hour))
                .collect(),
            n if n == steps => given,
            _ => {
                self.invalid.push(format!("Cannot convert {s}.fuel_cost_per_mmbtu to appropriate length time series."));
                return None;
            }
        };
        Some(per_mmbtu.iter().map(|c| c / KWH_PER_MMBTU).collect())
    }

    fn burner(&mut self, map: &Map<String, Value>, s: &'static str, efficiency: f64, steps_per_hour: usize) -> Option<FuelBurner> {
        let fuel_cost_per_kwh = self.fuel_cost_per_kwh(map, s, steps_per_hour)?;
        let fuel_type = map.get("fuel_type").and_then(Value::as_str).unwrap_or("natural_gas").to_string();
        if s == "ExistingBoiler" && !["natural_gas", "landfill_bio_gas", "propane", "diesel_oil"].contains(&fuel_type.as_str()) {
            self.invalid.push("ExistingBoiler.fuel_type must be one of natural_gas, landfill_bio_gas, propane, diesel_oil.".into());
        }
        let defaults = fuel_defaults(&fuel_type);
        let mut emissions = defaults.lb_per_mmbtu;
        for (value, field) in emissions.iter_mut().zip(EMISSIONS_FIELDS) {
            *value = self.number_or(map, s, field, *value);
        }
        let renewable_fraction = self.number_or(map, s, "fuel_renewable_energy_fraction", defaults.renewable_fraction);
        let financial = self.section("Financial").unwrap_or(self.empty);
        let escalation_field = if s == "Boiler" { "boiler_fuel_cost_escalation_rate_fraction" } else { "existing_boiler_fuel_cost_escalation_rate_fraction" };
        let fuel_escalation = self.filled_number(financial, "Financial", escalation_field, self.sector.boiler_fuel_escalation);
        Some(FuelBurner { efficiency, fuel_cost_per_kwh, fuel_escalation, emissions_lb_per_mmbtu: emissions, renewable_fraction })
    }

    fn read_existing_boiler(&mut self, map: &Map<String, Value>, efficiency: f64, peak_kw: f64, steps_per_hour: usize) -> Option<ExistingBoiler> {
        let s = "ExistingBoiler";
        for field in ["installed_cost_per_mmbtu_per_hour", "installed_cost_dollars"] {
            if self.number_in(map, s, field).is_some_and(|cost| cost != 0.0) {
                self.unsupported.push(format!("{s}.{field} (capital cost of the existing boiler)"));
            }
        }
        let factor = self.number(map, s, "max_thermal_factor_on_peak_load");
        let retire_in_optimal = self.flag(map, s, "retire_in_optimal");
        let burner = self.burner(map, s, efficiency, steps_per_hour)?;
        Some(ExistingBoiler { burner, max_kw: peak_kw * factor, max_thermal_factor_on_peak_load: factor, retire_in_optimal, serves: Vec::new() })
    }

    fn read_new_boiler(&mut self, map: &Map<String, Value>, steps_per_hour: usize, financial: &Financial) -> Option<NewBoiler> {
        let s = "Boiler";
        let macrs_option_years = self.count(map, s, "macrs_option_years");
        if ![0, 5, 7].contains(&macrs_option_years) {
            self.invalid.push("Boiler.macrs_option_years must be 0, 5, or 7.".into());
        }
        let financial_section = self.section("Financial").unwrap_or(self.empty);
        for field in ["min_initial_capital_costs_before_incentives", "max_initial_capital_costs_before_incentives"] {
            if crate::optimizer::scenario::given(financial_section.get(field)) {
                self.unsupported.push(format!("Financial.{field} with a new Boiler (capital cost bounds on boilers)"));
            }
        }
        let efficiency = self.number(map, s, "efficiency");
        let burner = self.burner(map, s, efficiency, steps_per_hour)?;
        let installed_cost_per_kw = self.number(map, s, "installed_cost_per_mmbtu_per_hour") / KWH_PER_MMBTU;
        let macrs_bonus_fraction = self.number(map, s, "macrs_bonus_fraction");
        Some(NewBoiler {
            burner,
            min_kw: self.number(map, s, "min_mmbtu_per_hour") * KWH_PER_MMBTU,
            max_kw: self.number(map, s, "max_mmbtu_per_hour") * KWH_PER_MMBTU,
            installed_cost_per_kw,
            net_present_cost_per_kw: macrs_only_cost(installed_cost_per_kw, financial, macrs_option_years, macrs_bonus_fraction),
            om_cost_per_kw: self.number(map, s, "om_cost_per_mmbtu_per_hour") / KWH_PER_MMBTU,
            om_cost_per_kwh: self.number(map, s, "om_cost_per_mmbtu") / KWH_PER_MMBTU,
            serves: Vec::new(),
        })
    }

    /// The service's check (`REoptInputs`, reopt_inputs.jl) that a heating load with a positive
    /// total has a tech to serve it: in the optimal case, and in business as usual (the existing
    /// boiler alone) when that case runs.
    pub(super) fn check_heating_loads_served(&mut self, model: &Model) {
        let Some(heating) = &model.heating else { return };
        for kind in heating.loads.iter().filter(|l| l.thermal_kw.iter().sum::<f64>() > 0.0).map(|l| l.kind) {
            let by_existing = heating.existing_boiler.serves.contains(&kind);
            let ghp = model.ghp.as_ref().is_some_and(|g| kind == HeatingLoadKind::SpaceHeating || (g.can_serve_dhw && kind == HeatingLoadKind::DomesticHotWater));
            let optimal = HeatProducer::ALL.into_iter().any(|p| model.producer_serves(p).contains(&kind))
                || model.heat_pumps.iter().any(|h| h.serves.contains(&kind))
                || ghp;
            if !optimal || (model.settings.run_bau && !by_existing) {
                let name = kind.section().trim_end_matches("Load");
                self.invalid.push(format!("{name} load is nonzero and no techs can serve the load."));
            }
        }
    }
}

/// $ per kW of a thermal technology the service gives MACRS and no other incentive (the new
/// boiler, the absorption chiller, the steam turbine, the electric heater and the ASHPs: REopt.jl
/// `setup_boiler_inputs`, `setup_absorption_chiller_inputs` and their twins):
/// its installed cost less the present value of its depreciation at the owner's rates, or the
/// installed cost without MACRS.
pub(super) fn macrs_only_cost(installed_cost_per_kw: f64, financial: &Financial, macrs_option_years: u32, macrs_bonus_fraction: f64) -> f64 {
    if macrs_option_years == 0 {
        return installed_cost_per_kw;
    }
    let tax = TaxTreatment {
        owner_discount_rate: financial.owner_discount_rate_fraction,
        owner_tax_rate: financial.owner_tax_rate_fraction,
        itc_fraction: 0.0,
        macrs_option_years,
        macrs_bonus_fraction,
        macrs_itc_reduction: 0.0,
        bonus_without_macrs: false,
    };
    effective_cost(installed_cost_per_kw, None, &tax, 0.0)
}

/// What the heating reader needs to know of the rest of the scenario.
#[derive(Debug, Clone, Copy)]
pub(super) struct HeatingContext {
    pub off_grid: bool,
}

/// What the service assumes of a boiler fuel left unstated: its renewable share and its
/// emissions, lb per MMBtu of fuel burned (CO2, NOx, SO2, PM2.5, `Pollutant` order).
#[derive(Debug, Clone, Copy, PartialEq)]
struct FuelDefaults {
    renewable_fraction: f64,
    lb_per_mmbtu: [f64; 4],
}

/// The service's defaults by fuel type: the `FUEL_DEFAULTS` table of REopt.jl `src/REopt.jl`
/// (commit 029db01, January 2026). A fuel type it does not list (the new Boiler's "uranium")
/// takes 0 for each, as the service's `get(..., fuel_type, 0)`.
fn fuel_defaults(fuel_type: &str) -> FuelDefaults {
    let (renewable_fraction, lb_per_mmbtu) = match fuel_type {
        "natural_gas" => (0.0, [117.03, 0.09139, 0.000578592, 0.007328833]),
        "landfill_bio_gas" => (1.0, [115.38, 0.14, 0.045, 0.02484]),
        "propane" => (0.0, [139.16, 0.15309, 0.0, 0.009906836]),
        "diesel_oil" => (0.0, [163.61, 0.56, 0.28897737, 0.0]),
        _ => (0.0, [0.0; 4]),
    };
    FuelDefaults { renewable_fraction, lb_per_mmbtu }
}

/// The service's emissions of a fuel type, lb per MMBtu burned, in `Pollutant` order (CHP's
/// fuel takes the same table).
pub(super) fn fuel_emissions_lb_per_mmbtu(fuel_type: &str) -> [f64; 4] {
    fuel_defaults(fuel_type).lb_per_mmbtu
}

/// The service's renewable share of a fuel type (CHP's fuel takes the same table).
pub(super) fn fuel_renewable_fraction(fuel_type: &str) -> f64 {
    fuel_defaults(fuel_type).renewable_fraction
}

/// The boilers' emissions factor fields, in `Pollutant` order.
const EMISSIONS_FIELDS: [&str; 4] =
    ["emissions_factor_lb_CO2_per_mmbtu", "emissions_factor_lb_NOx_per_mmbtu", "emissions_factor_lb_SO2_per_mmbtu", "emissions_factor_lb_PM25_per_mmbtu"];

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::optimizer::model::{from_scenario, ScenarioError};

    fn with_heating(section: &str, load: Value) -> Value {
        let mut document = json!({
            "Site": {"latitude": 37.78, "longitude": -122.45},
            "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 87600.0},
            "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 0.0},
            "ExistingBoiler": {"fuel_cost_per_mmbtu": 10.0, "efficiency": 0.8},
        });
        document[section] = load;
        document
    }

    /// A FlatLoad names its own shape: the reader scales it to the fuel energy, for process heat
    /// by its industrial name too; other references and blends go through resolve.
    #[test]
    fn flatload_heating_references_are_read_and_scaled_to_the_fuel() {
        let document = with_heating("ProcessHeatLoad", json!({"industrial_reference_name": "FlatLoad_24_5", "annual_mmbtu": 2600.0}));
        let heating = from_scenario(&document, &[]).expect("read").heating.expect("a heating load");
        let load = &heating.loads[0];
        assert_eq!(load.kind, HeatingLoadKind::ProcessHeat);
        let annual_thermal_kwh: f64 = load.thermal_kw.iter().sum();
        assert!((annual_thermal_kwh - 2600.0 * KWH_PER_MMBTU * 0.8).abs() < 1e-6, "{annual_thermal_kwh}");
        assert_eq!(load.thermal_kw[0], 0.0, "2017-01-01 is a Sunday, off for a 5-day FlatLoad");
        let refused = |section: &str, load: Value| match from_scenario(&with_heating(section, load), &[]) {
            Err(ScenarioError::Unsupported(parts)) => parts.message(),
            other => panic!("not refused: {:?}", other.map(|_| ())),
        };
        let text = refused("ProcessHeatLoad", json!({"industrial_reference_name": "Chemical", "annual_mmbtu": 10.0}));
        assert!(text.contains("ProcessHeatLoad.industrial_reference_name=Chemical (") && text.contains("Scenario.resolve(client)"), "{text}");
        let text = refused("SpaceHeatingLoad", json!({"blended_doe_reference_names": ["FlatLoad", "FlatLoad_8_5"], "blended_doe_reference_percents": [0.5, 0.5]}));
        assert!(text.contains("SpaceHeatingLoad.blended_doe_reference_names (blended reference heating profiles"), "{text}");
    }
}

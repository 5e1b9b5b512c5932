//! ElectricTariff and ElectricUtility read into the rate structure (`Tariff`) and the grid's
//! net-metering and interconnection limits: a URDB rate (`urdb_response`) with the monthly or
//! TOU rates the service may add to it, or custom TOU, monthly or blended rates; export rates,
//! demand lookback and coincident peak charges.

use serde_json::{Map, Value};

use super::Reader;
use crate::calendar::{modelled_year, HOURS_PER_YEAR};
use crate::optimizer::scenario::given as is_given;
use crate::optimizer::tariff::{self, CoincidentPeak, Lookback, Tariff, TieredCharge, UNLIMITED_ENERGY_TIER_KWH};

#[derive(Debug, Clone, PartialEq)]
pub struct GridLimits {
    pub net_metering_limit_kw: f64,
    pub interconnection_limit_kw: f64,
    /// `ElectricUtility.allow_simultaneous_export_import`: false adds the service's binary
    /// `binNoGridPurchases` per step (`lp::exports`).
    pub allow_simultaneous_export_import: bool,
}

impl Reader<'_> {
    pub(super) fn read_tariff(&mut self, steps_per_hour: usize, year: i32) -> Option<Tariff> {
        let Some(map) = self.section("ElectricTariff") else {
            self.invalid.push("ElectricTariff: Missing required inputs.".into());
            return None;
        };
        let s = "ElectricTariff";
        let steps = HOURS_PER_YEAR * steps_per_hour;
        let month_of_step = modelled_year::month_of_each_step(year, steps_per_hour);
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
                let hourly: Vec<f64> = modelled_year::month_of_each_hour_non_leap().iter().map(|&m| values[m as usize]).collect();
                Some(hourly.iter().flat_map(|&r| std::iter::repeat_n(r, steps_per_hour)).collect())
            }
            _ => self.series(values, "ElectricTariff", field, steps_per_hour),
        }
    }

    pub(super) fn read_grid(&mut self) -> GridLimits {
        let map = self.section("ElectricUtility").unwrap_or(self.empty);
        GridLimits {
            net_metering_limit_kw: self.number(map, "ElectricUtility", "net_metering_limit_kw"),
            interconnection_limit_kw: self.number(map, "ElectricUtility", "interconnection_limit_kw"),
            allow_simultaneous_export_import: self.flag_or(map, "ElectricUtility", "allow_simultaneous_export_import", true),
        }
    }
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

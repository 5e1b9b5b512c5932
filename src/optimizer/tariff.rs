//! Electricity tariffs as the optimizer prices them, and the reading of a full Utility Rate
//! Database rate (`ElectricTariff.urdb_response`) into one.
//!
//! A tariff is: energy rates per time step and tier with each tier's monthly kWh limit;
//! monthly ("flat") demand charges and time-of-use demand periods, both with tiers; demand
//! lookback; coincident peak charges; a fixed monthly charge and a minimum charge; and the
//! export rates (net metering, wholesale, beyond the net-metering limit).
//!
//! URDB conventions followed as the service reads them (its public source, formulas only):
//! - Schedules are 12 months × 24 hours of zero-based period indices, weekday and weekend
//!   (Saturday, Sunday; no holidays); a period's tiers are padded to the largest tier count by
//!   repeating its last tier.
//! - A tier's `max` is that tier's own width (kWh per month for energy, kW for demand); a tier
//!   without `max` is unlimited (1e10 kWh, 1e8 kW). Each month's energy tier limits are those of
//!   the period of its first weekday hour.
//! - Rates are `rate + adj`, rounded to 6 decimals; energy tier limits to 3 decimals; `sell`
//!   (of the first tier) adds to the wholesale export rate.
//! - Only kWh energy units are modelled: any other `unit` is refused with the service's message.
//! - Fixed charge: `fixedmonthlycharge`, else `fixedchargefirstmeter` in $/month, $/day (×
//!   30.4375) or $/year (÷ 12). Minimum charge: `mincharge` in $/month, $/day (× 30.4375) or
//!   $/year; the annual minimum is the larger of the annual one and 12 × the monthly one.
//! - Lookback: `lookbackmonths` (12 flags), `lookbackpercent` (a fraction) or `lookbackrange`
//!   (months); a range wins over months.

use serde_json::{Map, Value};

use crate::calendar::modelled_year::{self, StepTime};
use crate::calendar::HOURS_PER_YEAR;

/// The width of an energy tier without a `max` (kWh per month).
pub const UNLIMITED_ENERGY_TIER_KWH: f64 = 1.0e10;
/// The width of a demand tier without a `max` (kW).
pub const UNLIMITED_DEMAND_TIER_KW: f64 = 1.0e8;
/// Days per month used to turn $/day charges into monthly ones (365.25 / 12).
pub const DAYS_PER_MONTH: f64 = 30.4375;

/// A charge with tiers: $ per unit in each tier and each tier's width.
#[derive(Debug, Clone, PartialEq)]
pub struct TieredCharge {
    pub rates: Vec<f64>,
    pub limits: Vec<f64>,
}

impl TieredCharge {
    /// One unlimited tier.
    pub fn flat(rate: f64) -> Self {
        TieredCharge { rates: vec![rate], limits: vec![UNLIMITED_DEMAND_TIER_KW] }
    }

    pub fn tiers(&self) -> usize {
        self.rates.len()
    }

    /// Whether every tier is free (such a peak costs nothing and needs no rows).
    pub fn is_free(&self) -> bool {
        self.rates.iter().all(|r| *r == 0.0)
    }

    /// Tier pairs (k, k+1) where the later tier is cheaper: using it needs tier k full, a
    /// choice a linear program cannot express.
    pub fn falling_pairs(&self) -> Vec<usize> {
        (0..self.rates.len().saturating_sub(1)).filter(|&k| self.rates[k + 1] < self.rates[k]).collect()
    }
}

/// A time-of-use demand period of one month (the service's "ratchet").
#[derive(Debug, Clone, PartialEq)]
pub struct DemandPeriod {
    pub month: u8,
    pub steps: Vec<usize>,
    pub charge: TieredCharge,
}

/// Demand lookback: each month's billed peak is at least `percent` of a past peak.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookback {
    None,
    /// One look-back peak, the largest billed peak of these months (0-based).
    Months { months: Vec<usize>, percent: f64 },
    /// For each month, the largest grid purchase of the `months` months before it (wrapping
    /// around the modelled year).
    Range { months: usize, percent: f64 },
}

/// A coincident peak charge: $/kW of the largest grid purchase within its steps.
#[derive(Debug, Clone, PartialEq)]
pub struct CoincidentPeak {
    pub steps: Vec<usize>,
    pub charge_per_kw: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Tariff {
    /// Month index (0..12) of each step.
    pub month_of_step: Vec<u8>,
    /// $/kWh of grid purchases, `energy_rates[tier][step]`.
    pub energy_rates: Vec<Vec<f64>>,
    /// kWh width of each energy tier, `energy_tier_limits[month][tier]`.
    pub energy_tier_limits: Vec<Vec<f64>>,
    /// Monthly demand charges (12, or none when the rate has no flat demand).
    pub monthly_demand: Vec<TieredCharge>,
    pub tou_demand: Vec<DemandPeriod>,
    pub lookback: Lookback,
    pub coincident_peaks: Vec<CoincidentPeak>,
    pub fixed_monthly_charge: f64,
    /// The yearly minimum bill ($).
    pub annual_min_charge: f64,
    /// $/kWh credited for net-metered exports per step: 99.9 % of the energy rate of the
    /// cheapest tier (the service's rule, so that buying and selling the same kWh is never free).
    pub nem_rate: Vec<f64>,
    /// $/kWh paid for wholesale exports per step.
    pub wholesale_rate: Vec<f64>,
    /// $/kWh paid for exports beyond the net-metering limit per step.
    pub export_beyond_nem_rate: Vec<f64>,
}

impl Tariff {
    /// No bill at all (off grid, where the service ignores the tariff).
    pub fn none(steps_per_hour: usize, year: i32) -> Tariff {
        let steps = HOURS_PER_YEAR * steps_per_hour;
        Tariff {
            month_of_step: modelled_year::month_of_each_step(year, steps_per_hour),
            energy_rates: vec![vec![0.0; steps]],
            energy_tier_limits: vec![vec![UNLIMITED_ENERGY_TIER_KWH]; 12],
            monthly_demand: Vec::new(),
            tou_demand: Vec::new(),
            lookback: Lookback::None,
            coincident_peaks: Vec::new(),
            fixed_monthly_charge: 0.0,
            annual_min_charge: 0.0,
            nem_rate: vec![0.0; steps],
            wholesale_rate: vec![0.0; steps],
            export_beyond_nem_rate: vec![0.0; steps],
        }
    }

    pub fn energy_tiers(&self) -> usize {
        self.energy_rates.len()
    }

    /// Energy tier pairs (month, k) where tier k+1 is cheaper than tier k in some step of the
    /// month (a choice the linear program cannot express).
    pub fn falling_energy_pairs(&self) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        for k in 0..self.energy_tiers().saturating_sub(1) {
            let mut months = [false; 12];
            for (t, &m) in self.month_of_step.iter().enumerate() {
                if self.energy_rates[k + 1][t] < self.energy_rates[k][t] {
                    months[m as usize] = true;
                }
            }
            pairs.extend((0..12).filter(|&m| months[m]).map(|m| (m, k)));
        }
        pairs
    }

    /// The NEM credit per step from the energy rates: 0.999 × the tier whose rates sum lowest.
    pub fn nem_rates_from_energy(energy_rates: &[Vec<f64>]) -> Vec<f64> {
        let cheapest = (0..energy_rates.len())
            .min_by(|&a, &b| energy_rates[a].iter().sum::<f64>().total_cmp(&energy_rates[b].iter().sum::<f64>()))
            .unwrap_or(0);
        energy_rates.get(cheapest).map(|rates| rates.iter().map(|r| 0.999 * r).collect()).unwrap_or_default()
    }
}

/// A URDB rate read for one modelled year.
#[derive(Debug, Clone, PartialEq)]
pub struct UrdbRate {
    pub energy_rates: Vec<Vec<f64>>,
    pub energy_tier_limits: Vec<Vec<f64>>,
    /// $/kWh paid for exports per step (the first tier's `sell`).
    pub sell_rate: Vec<f64>,
    pub monthly_demand: Vec<TieredCharge>,
    pub tou_demand: Vec<DemandPeriod>,
    pub lookback: Lookback,
    pub fixed_monthly_charge: f64,
    pub annual_min_charge: f64,
    /// `label`, `name` and `utility` of the rate (empty when absent).
    pub label: String,
    pub name: String,
    pub utility: String,
}

fn round_to(x: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (x * scale).round() / scale
}

fn number(map: &Map<String, Value>, key: &str) -> Option<f64> {
    map.get(key).and_then(Value::as_f64)
}

fn text(map: &Map<String, Value>, key: &str) -> String {
    map.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// One period's tiers; every entry must be an object.
type Period = Vec<Map<String, Value>>;

/// A rate structure (list of periods, each a list of tier objects), padded so that every
/// period has the largest tier count by repeating its last tier. None when absent.
fn structure(rate: &Map<String, Value>, key: &str) -> Result<Option<Vec<Period>>, String> {
    let Some(value) = rate.get(key).filter(|v| !v.is_null()) else { return Ok(None) };
    let periods = value.as_array().ok_or_else(|| format!("urdb_response.{key} must be a list of periods."))?;
    let mut parsed: Vec<Period> = Vec::with_capacity(periods.len());
    for (index, period) in periods.iter().enumerate() {
        let tiers = period.as_array().ok_or_else(|| format!("urdb_response.{key}[{index}] must be a list of tiers."))?;
        let tiers: Option<Period> = tiers.iter().map(|t| t.as_object().cloned()).collect();
        match tiers {
            Some(tiers) if !tiers.is_empty() => parsed.push(tiers),
            _ => return Err(format!("urdb_response.{key}[{index}] must be a non-empty list of tier objects.")),
        }
    }
    let most = parsed.iter().map(Vec::len).max().unwrap_or(0);
    for period in &mut parsed {
        while period.len() < most {
            let last = period[period.len() - 1].clone();
            period.push(last);
        }
    }
    Ok(Some(parsed))
}

/// A 12 × 24 schedule of zero-based period indices that must exist in a structure of
/// `periods` periods. Entries past the 24th of a row are not read (the service reads 24).
fn schedule(rate: &Map<String, Value>, key: &str, periods: usize, structure_key: &str) -> Result<Vec<[usize; 24]>, String> {
    let rows = rate
        .get(key)
        .and_then(Value::as_array)
        .filter(|rows| rows.len() == 12)
        .ok_or_else(|| format!("urdb_response.{key} must have 12 months of 24 hourly periods."))?;
    let mut months = Vec::with_capacity(12);
    for (month, row) in rows.iter().enumerate() {
        let hours = row.as_array().filter(|h| h.len() >= 24).ok_or_else(|| format!("urdb_response.{key}[{month}] must have 24 hourly periods."))?;
        let mut periods_of_hours = [0usize; 24];
        for (hour, slot) in periods_of_hours.iter_mut().enumerate() {
            let period = hours[hour].as_f64().filter(|p| *p >= 0.0 && p.fract() == 0.0).map(|p| p as usize);
            *slot = match period {
                Some(p) if p < periods => p,
                _ => return Err(format!("{key} contains value {} which has no associated rate in {structure_key}.", hours[hour])),
            };
        }
        months.push(periods_of_hours);
    }
    Ok(months)
}

fn period_of(times: &StepTime, weekday: &[[usize; 24]], weekend: &[[usize; 24]]) -> usize {
    let table = if times.weekend { weekend } else { weekday };
    table[times.month as usize][times.hour as usize]
}

/// Reads a full URDB rate for the modelled year `year` at `steps_per_hour`.
pub fn read_urdb(rate: &Value, year: i32, steps_per_hour: usize) -> Result<UrdbRate, String> {
    let rate = rate.as_object().ok_or("ElectricTariff.urdb_response must be a URDB rate object.")?;
    let times = modelled_year::step_times(year, steps_per_hour);
    let (energy_rates, energy_tier_limits, sell_rate) = energy(rate, &times)?;
    let monthly_demand = monthly_demand(rate)?;
    let tou_demand = tou_demand(rate, &times)?;
    let (fixed_monthly_charge, annual_min_charge) = fixed_and_minimum(rate);
    Ok(UrdbRate {
        energy_rates,
        energy_tier_limits,
        sell_rate,
        monthly_demand,
        tou_demand,
        lookback: lookback(rate),
        fixed_monthly_charge,
        annual_min_charge,
        label: text(rate, "label"),
        name: text(rate, "name"),
        utility: text(rate, "utility"),
    })
}

type EnergyParts = (Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<f64>);

fn energy(rate: &Map<String, Value>, times: &[StepTime]) -> Result<EnergyParts, String> {
    let periods = structure(rate, "energyratestructure")?.filter(|p| !p.is_empty()).ok_or("No energyratestructure in URDB response.")?;
    let weekday = schedule(rate, "energyweekdayschedule", periods.len(), "energyratestructure")?;
    let weekend = schedule(rate, "energyweekendschedule", periods.len(), "energyratestructure")?;
    for tier in periods.iter().flatten() {
        if let Some(unit) = tier.get("unit").and_then(Value::as_str) {
            if unit != "kWh" {
                return Err(format!("URDB energy tiers have non-standard units of {unit}"));
            }
        }
    }
    let tiers = periods[0].len();
    let rate_of = |tier: &Map<String, Value>| round_to(number(tier, "rate").unwrap_or(0.0) + number(tier, "adj").unwrap_or(0.0), 6);
    let mut rates = vec![Vec::with_capacity(times.len()); tiers];
    let mut sell = Vec::with_capacity(times.len());
    for time in times {
        let period = &periods[period_of(time, &weekday, &weekend)];
        for (k, series) in rates.iter_mut().enumerate() {
            series.push(rate_of(&period[k]));
        }
        sell.push(round_to(number(&period[0], "sell").unwrap_or(0.0), 6));
    }
    let limits = (0..12)
        .map(|month| {
            let period = &periods[weekday[month][0]];
            period.iter().map(|tier| round_to(number(tier, "max").unwrap_or(UNLIMITED_ENERGY_TIER_KWH), 3)).collect()
        })
        .collect();
    Ok((rates, limits, sell))
}

fn tiered(period: &Period, decimals: i32) -> TieredCharge {
    TieredCharge {
        rates: period.iter().map(|t| round_to(number(t, "rate").unwrap_or(0.0) + number(t, "adj").unwrap_or(0.0), 6)).collect(),
        limits: period.iter().map(|t| round_to(number(t, "max").unwrap_or(UNLIMITED_DEMAND_TIER_KW), decimals)).collect(),
    }
}

/// `flatdemandstructure` by `flatdemandmonths` (12 zero-based periods); none when absent.
fn monthly_demand(rate: &Map<String, Value>) -> Result<Vec<TieredCharge>, String> {
    let Some(periods) = structure(rate, "flatdemandstructure")? else { return Ok(Vec::new()) };
    let months: Vec<usize> = match rate.get("flatdemandmonths").and_then(Value::as_array) {
        Some(months) if months.len() == 12 => months
            .iter()
            .map(|p| p.as_f64().filter(|p| *p >= 0.0 && (*p as usize) < periods.len()).map(|p| p as usize))
            .collect::<Option<Vec<usize>>>()
            .ok_or("flatdemandmonths contains a period which has no associated rate in flatdemandstructure.")?,
        _ => return Ok(Vec::new()),
    };
    Ok(months.iter().map(|&p| tiered(&periods[p], 6)).collect())
}

/// One demand period per month and `demandratestructure` period that has steps in that month,
/// in the service's order (month, then period).
fn tou_demand(rate: &Map<String, Value>, times: &[StepTime]) -> Result<Vec<DemandPeriod>, String> {
    let Some(periods) = structure(rate, "demandratestructure")? else { return Ok(Vec::new()) };
    let weekday = schedule(rate, "demandweekdayschedule", periods.len(), "demandratestructure")?;
    let weekend = schedule(rate, "demandweekendschedule", periods.len(), "demandratestructure")?;
    let mut steps: Vec<Vec<Vec<usize>>> = vec![vec![Vec::new(); periods.len()]; 12];
    for (t, time) in times.iter().enumerate() {
        steps[time.month as usize][period_of(time, &weekday, &weekend)].push(t);
    }
    let mut result = Vec::new();
    for (month, by_period) in steps.into_iter().enumerate() {
        for (period, steps) in by_period.into_iter().enumerate() {
            if !steps.is_empty() {
                result.push(DemandPeriod { month: month as u8, steps, charge: tiered(&periods[period], 3) });
            }
        }
    }
    Ok(result)
}

/// (fixed monthly charge, annual minimum charge) in $.
fn fixed_and_minimum(rate: &Map<String, Value>) -> (f64, f64) {
    let mut fixed = number(rate, "fixedmonthlycharge").unwrap_or(0.0);
    if fixed == 0.0 {
        let first_meter = number(rate, "fixedchargefirstmeter").unwrap_or(0.0);
        fixed = match rate.get("fixedchargeunits").and_then(Value::as_str) {
            Some("$/month") => first_meter,
            Some("$/day") => first_meter * DAYS_PER_MONTH,
            Some("$/year") => first_meter / 12.0,
            _ => 0.0,
        };
    }
    let minimum = number(rate, "mincharge").unwrap_or(0.0);
    let (annual, monthly) = match rate.get("minchargeunits").and_then(Value::as_str) {
        Some("$/month") => (0.0, minimum),
        Some("$/day") => (0.0, minimum * DAYS_PER_MONTH),
        Some("$/year") => (minimum, 0.0),
        _ => (0.0, 0.0),
    };
    (fixed, annual_minimum(annual, monthly))
}

/// The service's rule: the larger of the annual minimum and twelve monthly minimums.
pub fn annual_minimum(annual: f64, monthly: f64) -> f64 {
    if annual > 12.0 * monthly {
        annual
    } else {
        12.0 * monthly
    }
}

fn lookback(rate: &Map<String, Value>) -> Lookback {
    let percent = number(rate, "lookbackpercent").unwrap_or(0.0);
    let range = number(rate, "lookbackrange").unwrap_or(0.0) as usize;
    let flags: Vec<bool> = rate
        .get("lookbackmonths")
        .and_then(Value::as_array)
        .map(|months| months.iter().map(|m| m.as_bool().unwrap_or_else(|| m.as_f64() == Some(1.0))).collect())
        .unwrap_or_default();
    lookback_from(percent, range, &flags)
}

/// The lookback of a percent, a range and 12 month flags (a range wins; no percent, none).
pub fn lookback_from(percent: f64, range: usize, month_flags: &[bool]) -> Lookback {
    if percent <= 0.0 {
        Lookback::None
    } else if range > 0 {
        Lookback::Range { months: range.min(12), percent }
    } else if month_flags.len() == 12 {
        Lookback::Months { months: (0..12).filter(|&m| month_flags[m]).collect(), percent }
    } else {
        Lookback::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calendar::HOURS_PER_YEAR;
    use serde_json::json;

    fn hours(period: usize) -> Value {
        json!(vec![vec![period; 24]; 12])
    }

    /// Tiered energy and demand with monthly and TOU periods, after the structure of the rate
    /// in "Multi-tier demand and energy rates" (REopt.jl runtests.jl): energy periods 1 and 2,
    /// period 1 (May–October) tiered at 20,000 kWh; demand period 1 tiered at 100 kW, period 0
    /// (weekday January) untiered.
    fn multi_tier() -> Value {
        let mut energy_weekday = vec![vec![2; 24]; 12];
        for month in energy_weekday.iter_mut().take(10).skip(4) {
            *month = vec![1; 24];
        }
        let mut demand_weekday = vec![vec![1; 24]; 12];
        demand_weekday[0] = vec![0; 24];
        json!({
            "energyweekdayschedule": energy_weekday,
            "energyweekendschedule": energy_weekday,
            "energyratestructure": [
                [{"rate": 0, "unit": "kWh"}],
                [{"rate": 0.08, "max": 20000, "unit": "kWh"}, {"rate": 0.06, "unit": "kWh"}],
                [{"rate": 0.062, "unit": "kWh"}]
            ],
            "demandweekdayschedule": demand_weekday,
            "demandweekendschedule": hours(1),
            "demandratestructure": [[{"rate": 0}], [{"rate": 24.0, "max": 100.0}, {"rate": 17.0}]],
            "fixedchargefirstmeter": 3.0,
            "fixedchargeunits": "$/day"
        })
    }

    #[test]
    fn tier_limits_follow_the_services_reading() {
        let rate = read_urdb(&multi_tier(), 2017, 1).unwrap();
        assert_eq!(rate.energy_tier_limits[0], vec![UNLIMITED_ENERGY_TIER_KWH; 2], "padded single tier, no max");
        assert_eq!(rate.energy_tier_limits[5], vec![20_000.0, UNLIMITED_ENERGY_TIER_KWH]);
        assert_eq!(rate.energy_rates.len(), 2);
        let (january_weekdays, january_weekend) = (&rate.tou_demand[0], &rate.tou_demand[1]);
        assert_eq!(january_weekdays.charge.limits, vec![UNLIMITED_DEMAND_TIER_KW; 2], "untiered period, padded");
        assert!(january_weekdays.charge.is_free());
        assert_eq!(january_weekend.month, 0);
        assert_eq!(january_weekend.charge.limits, vec![100.0, UNLIMITED_DEMAND_TIER_KW]);
        assert_eq!(january_weekend.steps.len(), 9 * 24, "2017-01 has 9 weekend days (period 1); weekdays are period 0");
        assert_eq!(rate.tou_demand.len(), 13);
        assert!((rate.fixed_monthly_charge - 3.0 * DAYS_PER_MONTH).abs() < 1e-12);
        assert_eq!(rate.tou_demand[4].charge.falling_pairs(), vec![0]);
    }

    #[test]
    fn weekday_and_weekend_schedules_pick_the_period() {
        let mut rate = multi_tier();
        rate["energyweekendschedule"] = hours(0);
        let read = read_urdb(&rate, 2017, 2).unwrap();
        assert_eq!(read.energy_rates[0].len(), 2 * HOURS_PER_YEAR);
        assert_eq!(read.energy_rates[0][0], 0.0, "2017-01-01 is a Sunday: weekend period 0");
        assert_eq!(read.energy_rates[0][2 * 24], 0.062, "Monday: weekday period 2");
    }

    #[test]
    fn non_kwh_units_and_missing_periods_are_refused() {
        let mut rate = multi_tier();
        rate["energyratestructure"][2][0]["unit"] = json!("kWh daily");
        assert_eq!(read_urdb(&rate, 2017, 1).unwrap_err(), "URDB energy tiers have non-standard units of kWh daily");
        let mut rate = multi_tier();
        rate["energyweekdayschedule"][0][3] = json!(7);
        assert!(read_urdb(&rate, 2017, 1).unwrap_err().contains("has no associated rate"));
        assert!(read_urdb(&json!({"energyratestructure": []}), 2017, 1).unwrap_err().contains("No energyratestructure"));
    }

    #[test]
    fn lookback_and_minimum_rules() {
        assert_eq!(lookback_from(0.0, 3, &[]), Lookback::None);
        assert_eq!(lookback_from(0.5, 3, &[true; 12]), Lookback::Range { months: 3, percent: 0.5 });
        let mut flags = [false; 12];
        flags[0] = true;
        assert_eq!(lookback_from(0.75, 0, &flags), Lookback::Months { months: vec![0], percent: 0.75 });
        assert_eq!(annual_minimum(100.0, 20.0), 240.0);
        assert_eq!(annual_minimum(300.0, 20.0), 300.0);
    }
}

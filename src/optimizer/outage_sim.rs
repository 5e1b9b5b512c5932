//! The outage survival simulation run after sizing: for an outage starting at every time step
//! of the year, how many hours the chosen system carries the critical load by load following.
//! The service's `simulate_outages` conventions (its public source, formulas only):
//!
//! - the renewables' AC output is taken off the critical load first; a surplus charges the
//!   battery (at most its power, at the round-trip efficiency, up to its capacity);
//! - a remaining load is met by the generator when it is at most the generator's size and the
//!   fuel suffices; the generator runs at least at its turndown (the surplus charges the
//!   battery) and burns `slope·max(load, turndown·size) + intercept` gallons per hour;
//! - otherwise the generator gives what its size and fuel allow and the battery must carry the
//!   whole rest within its power and charge (it is discharged to empty, without losses);
//! - a step whose load is left unmet (above 1e-5 kW) ends the outage: the hours survived are
//!   the steps met ÷ steps per hour; an outage met for the whole year counts a year.
//!
//! Outages wrap around the end of the year. A site with no battery, no renewable output and no
//! generator survives nothing: every start 0 hours and no durations (the service's answer).
//! Each start is independent, so the starts are split between threads.

use crate::calendar::steps_per_hour_of_year;

/// What the simulation needs: series per time step, sizes, the fuel curve.
#[derive(Debug, Clone, PartialEq)]
pub struct OutageSimInputs {
    pub critical_load_kw: Vec<f64>,
    /// AC output of the renewables (PV and wind) per step, curtailed output included.
    pub renewable_kw: Vec<f64>,
    pub battery_kwh: f64,
    pub battery_kw: f64,
    /// State of charge (fraction of `battery_kwh`) when an outage starts in each step.
    pub initial_soc_fraction: Vec<f64>,
    pub battery_roundtrip_efficiency: f64,
    pub generator_kw: f64,
    pub fuel_available_gal: f64,
    pub fuel_intercept_gal_per_hour: f64,
    pub fuel_slope_gal_per_kwh: f64,
    pub generator_min_turndown_fraction: f64,
}

/// Hours survived for each start and their summary.
#[derive(Debug, Clone, PartialEq)]
pub struct OutageSurvival {
    /// Hours survived by an outage starting in each step.
    pub hours_by_start: Vec<f64>,
    pub hours_min: f64,
    pub hours_max: f64,
    /// Average over starts, rounded to 2 decimals (as the service reports it).
    pub hours_avg: f64,
    /// 1, 2, … up to ⌊max⌋ + 1 hours; empty when the site has nothing to survive with.
    pub outage_durations: Vec<usize>,
    /// Share of starts surviving at least each duration, rounded to 4 decimals.
    pub probs_of_surviving: Vec<f64>,
}

/// Why the inputs cannot be simulated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct OutageSimError(pub String);

/// Load left below this (kW) counts as met (the service rounds to 5 decimals).
const MET_TOLERANCE_KW: f64 = 0.5e-5;

fn validate(inputs: &OutageSimInputs) -> Result<usize, OutageSimError> {
    let n = inputs.critical_load_kw.len();
    let Some(steps_per_hour) = steps_per_hour_of_year(n) else {
        return Err(OutageSimError(format!("critical_load_kw must have 8760, 17520 or 35040 values, got {n}.")));
    };
    for (name, series) in [("renewable_kw", &inputs.renewable_kw), ("initial_soc_fraction", &inputs.initial_soc_fraction)] {
        if !series.is_empty() && series.len() != n {
            return Err(OutageSimError(format!("{name} must be empty or have one value per time step ({n}), got {}.", series.len())));
        }
    }
    let all_series = inputs.critical_load_kw.iter().chain(&inputs.renewable_kw).chain(&inputs.initial_soc_fraction);
    let scalars = [
        inputs.battery_kwh,
        inputs.battery_kw,
        inputs.battery_roundtrip_efficiency,
        inputs.generator_kw,
        inputs.fuel_available_gal,
        inputs.fuel_intercept_gal_per_hour,
        inputs.fuel_slope_gal_per_kwh,
        inputs.generator_min_turndown_fraction,
    ];
    if all_series.chain(scalars.iter()).any(|v| !v.is_finite()) {
        return Err(OutageSimError("every input must be a finite number.".into()));
    }
    if scalars.iter().any(|v| *v < 0.0) {
        return Err(OutageSimError("sizes, fuel, efficiency and fuel curve must not be negative.".into()));
    }
    if inputs.generator_kw > 0.0 && inputs.fuel_slope_gal_per_kwh <= 0.0 {
        return Err(OutageSimError("a generator needs a fuel slope above 0 gallons per kWh.".into()));
    }
    Ok(steps_per_hour)
}

/// Simulates an outage starting at every step.
pub fn simulate_outages(inputs: &OutageSimInputs) -> Result<OutageSurvival, OutageSimError> {
    let per_hour = validate(inputs)?;
    let n = inputs.critical_load_kw.len();
    let net: Vec<f64> = (0..n).map(|t| inputs.critical_load_kw[t] - inputs.renewable_kw.get(t).copied().unwrap_or(0.0)).collect();
    let has_battery = inputs.battery_kw > 0.0 && inputs.battery_kwh > 0.0;
    let nothing = !has_battery && inputs.renewable_kw.iter().sum::<f64>() == 0.0 && inputs.generator_kw == 0.0;
    if nothing {
        return Ok(OutageSurvival { hours_by_start: vec![0.0; n], hours_min: 0.0, hours_max: 0.0, hours_avg: 0.0, outage_durations: Vec::new(), probs_of_surviving: Vec::new() });
    }
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get()).clamp(1, 8);
    let chunk = n.div_ceil(threads);
    let net = &net;
    let soc_at = |start: usize| if has_battery { inputs.initial_soc_fraction.get(start).copied().unwrap_or(0.0) * inputs.battery_kwh } else { 0.0 };
    let soc_at = &soc_at;
    let parts: Vec<Option<Vec<f64>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .step_by(chunk)
            .map(|first| scope.spawn(move || (first..(first + chunk).min(n)).map(|start| survive(inputs, net, start, soc_at(start), per_hour)).collect::<Vec<f64>>()))
            .collect();
        handles.into_iter().map(|handle| handle.join().ok()).collect()
    });
    let hours_by_start: Vec<f64> = parts.into_iter().collect::<Option<Vec<_>>>().ok_or_else(|| OutageSimError("a simulation thread failed.".into()))?.concat();
    Ok(summarize(hours_by_start))
}

/// Hours one outage starting at `start` is carried.
fn survive(inputs: &OutageSimInputs, net: &[f64], start: usize, mut soc: f64, per_hour: usize) -> f64 {
    let n = net.len();
    let dt = 1.0 / per_hour as f64;
    let (kwh, kw, rte) = (inputs.battery_kwh, inputs.battery_kw, inputs.battery_roundtrip_efficiency);
    let (gen_kw, slope, intercept) = (inputs.generator_kw, inputs.fuel_slope_gal_per_kwh, inputs.fuel_intercept_gal_per_hour);
    let turndown_kw = inputs.generator_min_turndown_fraction * gen_kw;
    let mut fuel = inputs.fuel_available_gal;
    let charge = |soc: &mut f64, surplus_kw: f64| {
        if *soc < kwh {
            *soc += (kwh - *soc).min(kw * dt * rte).min(surplus_kw * dt * rte);
        }
    };
    for i in 0..n {
        let mut load = net[(start + i) % n];
        if load < 0.0 {
            charge(&mut soc, -load);
        } else {
            let needed = (slope * load.max(turndown_kw) + intercept) * dt;
            if load <= gen_kw && needed <= fuel {
                fuel -= needed;
                if load < turndown_kw {
                    charge(&mut soc, turndown_kw - load);
                }
                load = 0.0;
            } else {
                // The most the remaining fuel gives in one step (kW).
                let fuel_kw = if slope > 0.0 { ((fuel / dt - intercept) / slope).max(0.0) } else { 0.0 };
                if needed > fuel && load <= gen_kw {
                    load -= fuel_kw;
                    fuel = 0.0;
                } else if needed <= fuel {
                    load -= gen_kw;
                    fuel = (fuel - (gen_kw * slope + intercept) * dt).max(0.0);
                } else {
                    load -= gen_kw.min(fuel_kw);
                    fuel = 0.0;
                }
                if kw.min(soc / dt) >= load {
                    soc = (soc - load * dt).max(0.0);
                    load = 0.0;
                }
            }
        }
        if load > MET_TOLERANCE_KW {
            return i as f64 / per_hour as f64;
        }
    }
    n as f64 / per_hour as f64
}

fn summarize(hours_by_start: Vec<f64>) -> OutageSurvival {
    let n = hours_by_start.len().max(1) as f64;
    let hours_min = hours_by_start.iter().copied().fold(f64::INFINITY, f64::min);
    let hours_max = hours_by_start.iter().copied().fold(0.0, f64::max);
    let hours_avg = (hours_by_start.iter().sum::<f64>() / n * 100.0).round() / 100.0;
    let outage_durations: Vec<usize> = (1..=hours_max.floor() as usize + 1).collect();
    let probs_of_surviving = outage_durations
        .iter()
        .map(|&hours| {
            let surviving = hours_by_start.iter().filter(|&&h| h >= hours as f64).count() as f64;
            (surviving / n * 1e4).round() / 1e4
        })
        .collect();
    OutageSurvival { hours_min: if hours_min.is_finite() { hours_min } else { 0.0 }, hours_max, hours_avg, outage_durations, probs_of_surviving, hours_by_start }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(load_kw: f64) -> OutageSimInputs {
        OutageSimInputs {
            critical_load_kw: vec![load_kw; 8760],
            renewable_kw: Vec::new(),
            battery_kwh: 0.0,
            battery_kw: 0.0,
            initial_soc_fraction: Vec::new(),
            battery_roundtrip_efficiency: 1.0,
            generator_kw: 0.0,
            fuel_available_gal: 0.0,
            fuel_intercept_gal_per_hour: 0.0,
            fuel_slope_gal_per_kwh: 0.0,
            generator_min_turndown_fraction: 0.0,
        }
    }

    #[test]
    fn a_full_battery_carries_a_flat_load_for_its_energy_over_the_load() {
        // 400 kWh at 100 kW carry 4 hours from every start (the service's 8760-flat-load case).
        let sim = simulate_outages(&OutageSimInputs { battery_kwh: 400.0, battery_kw: 100.0, initial_soc_fraction: vec![1.0; 8760], ..inputs(100.0) }).unwrap();
        assert!(sim.hours_by_start.iter().all(|&h| h == 4.0));
        assert_eq!((sim.hours_min, sim.hours_max, sim.hours_avg), (4.0, 4.0, 4.0));
        assert_eq!(sim.outage_durations, vec![1, 2, 3, 4, 5]);
        assert_eq!(sim.probs_of_surviving, vec![1.0, 1.0, 1.0, 1.0, 0.0]);
    }

    #[test]
    fn fuel_limits_the_generator() {
        // 10 kW for 10 hours at 0.1 gal/kWh: 10 gallons last 10 hours.
        let sim = simulate_outages(&OutageSimInputs {
            generator_kw: 20.0,
            fuel_available_gal: 10.0,
            fuel_slope_gal_per_kwh: 0.1,
            ..inputs(10.0)
        })
        .unwrap();
        assert!(sim.hours_by_start.iter().all(|&h| (h - 10.0).abs() < 1e-9), "{:?}", &sim.hours_by_start[..3]);
    }

    #[test]
    fn nothing_survives_nothing_and_bad_inputs_are_refused() {
        let sim = simulate_outages(&inputs(5.0)).unwrap();
        assert_eq!((sim.hours_max, sim.hours_avg), (0.0, 0.0));
        assert!(sim.outage_durations.is_empty() && sim.probs_of_surviving.is_empty());
        assert_eq!(sim.hours_by_start, vec![0.0; 8760]);
        let bad = OutageSimInputs { critical_load_kw: vec![1.0; 100], ..inputs(1.0) };
        assert!(simulate_outages(&bad).is_err());
        let negative = OutageSimInputs { battery_kwh: -1.0, ..inputs(1.0) };
        assert!(simulate_outages(&negative).unwrap_err().0.contains("negative"));
    }

    #[test]
    fn survival_never_falls_when_the_battery_grows() {
        let load: Vec<f64> = (0..8760).map(|h| 50.0 + 30.0 * ((h % 24) as f64 / 24.0 * std::f64::consts::TAU).sin()).collect();
        let pv: Vec<f64> = (0..8760).map(|h| if (7..17).contains(&(h % 24)) { 90.0 } else { 0.0 }).collect();
        let mut previous: Option<Vec<f64>> = None;
        for kwh in [0.0, 100.0, 200.0, 400.0, 800.0] {
            let sim = simulate_outages(&OutageSimInputs {
                critical_load_kw: load.clone(),
                renewable_kw: pv.clone(),
                battery_kwh: kwh,
                battery_kw: 100.0,
                initial_soc_fraction: vec![0.8; 8760],
                battery_roundtrip_efficiency: 0.9,
                ..inputs(0.0)
            })
            .unwrap();
            if let Some(before) = &previous {
                assert!(sim.hours_by_start.iter().zip(before).all(|(now, then)| now >= then), "{kwh} kWh survives less somewhere");
            }
            previous = Some(sim.hours_by_start);
        }
    }
}

//! Parallel simulation of many (weather, system) pairs on a fixed number of threads, for the v5
//! and the v8 engine.
//!
//! v5 jobs that share the same `Weather` (the same reference) and sun-position precision share one
//! sun-path computation; callers that keep sun paths with their weathers pass them in, for v5 and v8.
//! Results come back in job order whatever the thread count, and are identical to running
//! `simulate` on each job.

use super::engine::{simulate_keeping, sun_path_precision, PvOutput};
use super::params::SystemParams;
use super::solarpos::Precision;
use super::sunpath::SunPath;
use super::v8::{simulate_v8_with_sun_path, V8Error, V8Output, V8Params};
use super::weather::Weather;
use super::threads::{parallel_map, thread_count};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::ops::Deref;
use std::sync::OnceLock;

/// How a caller on another thread follows and stops a batch: `done` counts simulated systems;
/// setting `cancelled` makes every worker stop before its next job.
#[derive(Debug, Default)]
pub struct BatchControl {
    pub cancelled: AtomicBool,
    pub done: AtomicUsize,
}

impl BatchControl {
    fn stopped(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

/// Simulate many (weather, system) pairs in parallel on `threads` threads (0 means the number of
/// available CPUs). Results are in the order of `jobs`.
pub fn simulate_many(jobs: &[(&Weather, SystemParams)], threads: usize) -> Vec<PvOutput> {
    let control = BatchControl::default();
    // Nothing sets `cancelled`, so the batch always completes.
    simulate_many_controlled(jobs, threads, &control).unwrap_or_default()
}

/// `simulate_many`, counting finished systems in `control.done` and returning `None` as soon as
/// the workers see `control.cancelled` (each finishes the system it is on: milliseconds).
pub fn simulate_many_controlled(jobs: &[(&Weather, SystemParams)], threads: usize, control: &BatchControl) -> Option<Vec<PvOutput>> {
    let mut distinct: Vec<(&Weather, Precision)> = Vec::new();
    let weather_slot: Vec<usize> = jobs
        .iter()
        .map(|(weather, params)| {
            let key = (*weather, sun_path_precision(params));
            match distinct
                .iter()
                .position(|(w, p)| std::ptr::eq(*w, key.0) && *p == key.1)
            {
                Some(slot) => slot,
                None => {
                    distinct.push(key);
                    distinct.len() - 1
                }
            }
        })
        .collect();
    let sun_paths: Vec<OnceLock<SunPath>> = distinct.iter().map(|_| OnceLock::new()).collect();
    let jobs: Vec<(&Weather, SystemParams, &OnceLock<SunPath>)> = jobs
        .iter()
        .zip(weather_slot)
        .filter_map(|(&(weather, params), slot)| Some((weather, params, sun_paths.get(slot)?)))
        .collect();
    simulate_many_with_sun_paths(
        &jobs,
        |weather, params, slot| {
            let slot: &OnceLock<SunPath> = slot;
            slot.get_or_init(|| SunPath::compute(weather, sun_path_precision(params)))
        },
        true,
        threads,
        control,
    )
}

/// `simulate_many_controlled` on jobs that carry where their sun path is kept (`cache`, a
/// cache kept with the weather, say): `sun_path(weather, params, cache)` must give
/// `SunPath::compute(weather, sun_path_precision(params))`. Each worker asks for the sun path of
/// the job it takes, so the sun-position work of a batch spreads over the threads with the
/// simulations, without a pass of its own. Without `keep_hourly` the outputs have no per-record
/// series (`simulate_keeping`): monthly results allocate none.
pub fn simulate_many_with_sun_paths<'a, C: Sync, S: Deref<Target = SunPath> + 'a>(
    jobs: &'a [(&Weather, SystemParams, C)],
    sun_path: impl Fn(&Weather, &SystemParams, &'a C) -> S + Sync,
    keep_hourly: bool,
    threads: usize,
    control: &BatchControl,
) -> Option<Vec<PvOutput>> {
    let outputs = parallel_map(jobs.len(), thread_count(threads), &control.cancelled, |i| {
        let (weather, params, cache) = &jobs[i];
        let output = simulate_keeping(weather, &sun_path(weather, params, cache), params, keep_hourly);
        control.done.fetch_add(1, Ordering::Relaxed);
        output
    });
    outputs.filter(|_| !control.stopped())
}

/// Many v8 simulations, one job per thread at a time, counted and stopped as
/// `simulate_many_controlled` says; each job's own error in its place. Each job's sun path is
/// `sun_path(cache)` of its `cache`, which must give `SunPath::compute(weather, Precision::Fast)`,
/// asked for on the worker that runs the job.
pub fn simulate_many_v8_controlled<'a, C: Sync, S: Deref<Target = SunPath> + 'a>(
    jobs: &'a [(&Weather, V8Params, C)],
    sun_path: impl Fn(&'a C) -> S + Sync,
    threads: usize,
    control: &BatchControl,
) -> Option<Vec<Result<V8Output, V8Error>>> {
    let outputs = parallel_map(jobs.len(), thread_count(threads), &control.cancelled, |i| {
        let (weather, params, cache) = &jobs[i];
        let output = simulate_v8_with_sun_path(weather, &sun_path(cache), params, 1);
        control.done.fetch_add(1, Ordering::Relaxed);
        output
    });
    outputs.filter(|_| !control.stopped())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pvwatts::engine::simulate;
    use crate::pvwatts::params::{validate_params, RawParams};
    use crate::pvwatts::test_support::{site, year_columns};

    #[test]
    fn results_match_single_runs_in_job_order() {
        let first = Weather::from_columns(site(), year_columns(false)).unwrap();
        let mut other_site = site();
        other_site.lat = -33.9;
        other_site.lon = 18.4;
        other_site.tz = 2.0;
        let second = Weather::from_columns(other_site, year_columns(true)).unwrap();
        let jobs: Vec<(&Weather, SystemParams)> = (0..7)
            .map(|i| {
                let weather = if i % 2 == 0 { &first } else { &second };
                (
                    weather,
                    validate_params(&RawParams::new(
                        1.0 + i as f64,
                        i % 3,
                        10.0,
                        i % 5,
                        25.0,
                        180.0,
                    ))
                    .unwrap(),
                )
            })
            .collect();
        let expected: Vec<PvOutput> = jobs.iter().map(|(w, p)| simulate(w, p)).collect();
        for threads in [0, 1, 2, 3, 16] {
            assert_eq!(simulate_many(&jobs, threads), expected, "threads {threads}");
        }
        assert!(simulate_many(&[], 4).is_empty());
    }

    #[test]
    fn a_cancelled_batch_stops_and_returns_nothing() {
        let weather = Weather::from_columns(site(), year_columns(false)).unwrap();
        let params = validate_params(&RawParams::new(4.0, 0, 14.0, 1, 20.0, 180.0)).unwrap();
        let jobs: Vec<(&Weather, SystemParams)> = (0..50).map(|_| (&weather, params)).collect();
        for threads in [1, 2] {
            let control = BatchControl::default();
            control.cancelled.store(true, Ordering::Relaxed);
            assert_eq!(simulate_many_controlled(&jobs, threads, &control), None);
            assert_eq!(control.done.load(Ordering::Relaxed), 0);
        }
        let control = BatchControl::default();
        assert_eq!(simulate_many_controlled(&jobs, 2, &control).map(|o| o.len()), Some(50));
        assert_eq!(control.done.load(Ordering::Relaxed), 50);
    }
}

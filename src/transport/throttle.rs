//! Client-side throttles: the spec's per-service limits as rolling windows, minimum spacing and
//! an in-flight cap. `Schedule::reserve` is pure arithmetic over send times so it is tested
//! without sleeping; `Throttle` wraps it for async callers.
//!
//! A spaced class is spaced by when its requests really leave, not by when they were booked: a
//! task woken late on a loaded machine would otherwise leave less than an interval before the
//! next one, woken on time. So a spaced class books one send at a time (`Throttle::gates`) and
//! records the time its task really woke (`Schedule::sent_at`).
//!
//! Rolling windows are kept as a log of send times rather than a token bucket (GCRA): a bucket
//! of N refilled at N per hour admits close to 2N requests in some rolling hour, while the spec
//! says no more than N in any hour.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::spec::routes::ServiceClass;
use crate::limits::request_rates;

/// At most `max_requests` in any rolling `window`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowLimit {
    pub max_requests: u32,
    pub window: Duration,
}

/// All limits of one service class.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClassLimits {
    pub windows: Vec<WindowLimit>,
    pub min_interval: Option<Duration>,
    pub max_in_flight: Option<usize>,
}

const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(86_400);

/// Limits per service class. `spec()` holds the values of `shared/spec/`.
#[derive(Debug, Clone, PartialEq)]
pub struct ThrottleConfig {
    pub classes: HashMap<ServiceClass, ClassLimits>,
}

impl ThrottleConfig {
    /// The spec's limits (`limits::request_rates`): an hourly window for dataset query + estimator;
    /// for climate csv and other climate formats each a minimum interval and a daily window, and a
    /// cap on climate requests in flight.
    pub fn spec() -> Self {
        let mut classes = HashMap::new();
        classes.insert(
            ServiceClass::Solar,
            ClassLimits {
                windows: vec![WindowLimit { max_requests: request_rates::KEY_REQUESTS_PER_HOUR, window: HOUR }],
                ..ClassLimits::default()
            },
        );
        classes.insert(
            ServiceClass::ClimateCsv,
            ClassLimits {
                windows: vec![WindowLimit { max_requests: request_rates::CLIMATE_CSV_PER_DAY, window: DAY }],
                min_interval: Some(request_rates::CLIMATE_CSV_INTERVAL),
                max_in_flight: Some(request_rates::CLIMATE_IN_FLIGHT),
            },
        );
        classes.insert(
            ServiceClass::ClimateOther,
            ClassLimits {
                windows: vec![WindowLimit { max_requests: request_rates::CLIMATE_OTHER_PER_DAY, window: DAY }],
                min_interval: Some(request_rates::CLIMATE_OTHER_INTERVAL),
                max_in_flight: Some(request_rates::CLIMATE_IN_FLIGHT),
            },
        );
        ThrottleConfig { classes }
    }

    /// No client-side limits at all.
    pub fn disabled() -> Self {
        ThrottleConfig { classes: HashMap::new() }
    }
}

/// Sends are spaced 2 % more than the minimum interval, so that arrival jitter never makes a
/// request look early to a service that enforces the interval strictly.
const SPACING_MARGIN_DIVISOR: u32 = 50;

/// The send log of one service class.
#[derive(Debug, Default)]
pub struct Schedule {
    sends: VecDeque<Instant>,
}

impl Schedule {
    /// Books the earliest send time at or after `now` that keeps every limit, records it and
    /// returns it. Booked times never decrease, so the log stays sorted.
    pub fn reserve(&mut self, limits: &ClassLimits, now: Instant) -> Instant {
        let mut slot = now;
        if let (Some(interval), Some(last)) = (limits.min_interval, self.sends.back()) {
            slot = slot.max(*last + interval + interval / SPACING_MARGIN_DIVISOR);
        }
        if let Some(last) = self.sends.back() {
            slot = slot.max(*last);
        }
        for limit in &limits.windows {
            let max = limit.max_requests as usize;
            if max == 0 {
                continue;
            }
            let in_window = self.sends.iter().rev().take_while(|sent| **sent + limit.window > slot).count();
            if in_window >= max {
                if let Some(oldest_blocking) = self.sends.get(self.sends.len().saturating_sub(max)) {
                    slot = slot.max(*oldest_blocking + limit.window);
                }
            }
        }
        self.sends.push_back(slot);
        let horizon = limits.windows.iter().map(|w| w.window).max().unwrap_or(Duration::ZERO);
        let keep = limits.windows.iter().map(|w| w.max_requests as usize).max().unwrap_or(1).max(1);
        while self.sends.len() > keep {
            match self.sends.front() {
                Some(first) if *first + horizon <= slot => {
                    self.sends.pop_front();
                }
                _ => break,
            }
        }
        slot
    }

    /// Moves the last booked send to `woke`, when its task really went: a late wake pushes the
    /// sends booked after it, so the interval holds between real sends.
    pub fn sent_at(&mut self, woke: Instant) {
        if let Some(last) = self.sends.back_mut() {
            *last = (*last).max(woke);
        }
    }
}

/// Shared by every request of one client.
#[derive(Debug)]
pub struct Throttle {
    config: ThrottleConfig,
    schedules: Mutex<HashMap<ServiceClass, Schedule>>,
    in_flight: HashMap<ServiceClass, Arc<Semaphore>>,
    /// One per spaced class: held from booking a send until its task wakes.
    gates: HashMap<ServiceClass, tokio::sync::Mutex<()>>,
}

impl Throttle {
    pub fn new(config: ThrottleConfig) -> Self {
        let in_flight = config
            .classes
            .iter()
            .filter_map(|(class, limits)| limits.max_in_flight.map(|n| (*class, Arc::new(Semaphore::new(n.max(1))))))
            .collect();
        let gates = config
            .classes
            .iter()
            .filter(|(_, limits)| limits.min_interval.is_some())
            .map(|(class, _)| (*class, tokio::sync::Mutex::new(())))
            .collect();
        Throttle { config, schedules: Mutex::new(HashMap::new()), in_flight, gates }
    }

    /// Waits for an in-flight slot and a send time. Holding the returned permit keeps the
    /// request counted as in flight.
    pub async fn admit(&self, class: ServiceClass) -> Option<OwnedSemaphorePermit> {
        let permit = match self.in_flight.get(&class) {
            Some(semaphore) => semaphore.clone().acquire_owned().await.ok(),
            None => None,
        };
        if let Some(limits) = self.config.classes.get(&class) {
            let gate = match self.gates.get(&class) {
                Some(gate) => Some(gate.lock().await),
                None => None,
            };
            let slot = self.with_schedule(class, |schedule| schedule.reserve(limits, Instant::now()));
            tokio::time::sleep_until(slot).await;
            if gate.is_some() {
                self.with_schedule(class, |schedule| schedule.sent_at(Instant::now()));
            }
        }
        permit
    }

    fn with_schedule<T>(&self, class: ServiceClass, change: impl FnOnce(&mut Schedule) -> T) -> T {
        let mut schedules = self.schedules.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        change(schedules.entry(class).or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        crate::limits::clamped_seconds(s)
    }

    #[test]
    fn spacing_pushes_each_send_one_interval_later() {
        let limits = ClassLimits { min_interval: Some(secs(1.0)), ..ClassLimits::default() };
        let mut schedule = Schedule::default();
        let t0 = Instant::now();
        let slots: Vec<Duration> = (0..5).map(|_| schedule.reserve(&limits, t0) - t0).collect();
        assert_eq!(slots, vec![secs(0.0), secs(1.02), secs(2.04), secs(3.06), secs(4.08)]);
    }

    #[test]
    fn a_late_wake_pushes_the_next_send() {
        let limits = ClassLimits { min_interval: Some(secs(1.0)), ..ClassLimits::default() };
        let mut schedule = Schedule::default();
        let t0 = Instant::now();
        schedule.reserve(&limits, t0);
        schedule.sent_at(t0 + secs(0.3));
        assert_eq!(schedule.reserve(&limits, t0) - t0, secs(1.32));
        schedule.sent_at(t0 + secs(1.0));
        assert_eq!(schedule.reserve(&limits, t0) - t0, secs(2.34));
    }

    #[tokio::test(start_paused = true)]
    async fn spaced_sends_are_an_interval_apart_when_they_really_go() {
        let mut config = ThrottleConfig::disabled();
        config.classes.insert(ServiceClass::ClimateCsv, ClassLimits { min_interval: Some(secs(1.0)), ..ClassLimits::default() });
        let throttle = Arc::new(Throttle::new(config));
        let tasks: Vec<_> = (0..4)
            .map(|_| {
                let throttle = throttle.clone();
                tokio::spawn(async move {
                    throttle.admit(ServiceClass::ClimateCsv).await;
                    Instant::now()
                })
            })
            .collect();
        let mut sent = Vec::new();
        for task in tasks {
            sent.push(task.await.expect("task"));
        }
        sent.sort();
        for pair in sent.windows(2) {
            assert!(pair[1] - pair[0] >= secs(1.0), "{:?}", pair[1] - pair[0]);
        }
    }

    #[test]
    fn spacing_does_not_delay_a_late_request() {
        let limits = ClassLimits { min_interval: Some(secs(1.0)), ..ClassLimits::default() };
        let mut schedule = Schedule::default();
        let t0 = Instant::now();
        schedule.reserve(&limits, t0);
        assert_eq!(schedule.reserve(&limits, t0 + secs(5.0)) - t0, secs(5.0));
    }

    #[test]
    fn rolling_window_admits_max_then_waits_for_the_oldest_to_expire() {
        let limits = ClassLimits {
            windows: vec![WindowLimit { max_requests: 3, window: secs(10.0) }],
            ..ClassLimits::default()
        };
        let mut schedule = Schedule::default();
        let t0 = Instant::now();
        let first: Vec<Duration> = (0..3).map(|i| schedule.reserve(&limits, t0 + secs(i as f64)) - t0).collect();
        assert_eq!(first, vec![secs(0.0), secs(1.0), secs(2.0)]);
        assert_eq!(schedule.reserve(&limits, t0 + secs(3.0)) - t0, secs(10.0));
        assert_eq!(schedule.reserve(&limits, t0 + secs(3.0)) - t0, secs(11.0));
    }

    #[test]
    fn no_rolling_window_ever_holds_more_than_max() {
        let limits = ClassLimits {
            windows: vec![WindowLimit { max_requests: 7, window: secs(60.0) }],
            min_interval: Some(secs(0.5)),
            max_in_flight: None,
        };
        let mut schedule = Schedule::default();
        let t0 = Instant::now();
        let mut booked = Vec::new();
        for i in 0..200u32 {
            let arrival = t0 + secs(f64::from(i % 13) * 0.7 + f64::from(i) * 0.9);
            booked.push(schedule.reserve(&limits, arrival));
        }
        for (i, start) in booked.iter().enumerate() {
            let in_window = booked[i..].iter().take_while(|t| **t < *start + secs(60.0)).count();
            assert!(in_window <= 7, "window starting at send {i} holds {in_window}");
        }
        for pair in booked.windows(2) {
            assert!(pair[1] - pair[0] >= secs(0.5));
        }
    }

    #[test]
    fn spec_limits_are_the_documented_numbers() {
        let spec = ThrottleConfig::spec();
        let csv = &spec.classes[&ServiceClass::ClimateCsv];
        assert_eq!(csv.min_interval, Some(secs(1.0)));
        assert_eq!(csv.max_in_flight, Some(20));
        assert_eq!(csv.windows[0].max_requests, 10_000);
        let other = &spec.classes[&ServiceClass::ClimateOther];
        assert_eq!(other.min_interval, Some(secs(2.0)));
        assert_eq!(other.windows[0].max_requests, 2_000);
        assert_eq!(spec.classes[&ServiceClass::Solar].windows[0], WindowLimit { max_requests: 1000, window: HOUR });
    }
}

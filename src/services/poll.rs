//! The one polling schedule: every wait for something the service is still preparing (the climate
//! download file, a technical-potential job, an optimizer run) pauses by `Backoff`, started from the
//! caller's `PollSchedule`.
//!
//! The pause starts at `first`, grows by half after every poll (×1.5: quick answers are seen
//! quickly, long jobs are not hammered) up to `max_pause`, and is shortened so that the last one
//! ends at the deadline. Callers choose the numbers: the climate fetch starts at 0.25 s with a cap
//! of 10 s; the technical-potential wait and the optimizer run start at `poll_interval` (default
//! 0.05 s for the optimizer run, 1 s for other jobs) with the cap `max_interval` (default 15 s).

use std::time::{Duration, Instant};

/// A wait's numbers as the caller chose them: the first pause, the longest pause and the deadline
/// (checked from Python by `python::poll::poll_schedule`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PollSchedule {
    pub poll_interval: Duration,
    pub max_interval: Duration,
    pub timeout: Duration,
}

impl PollSchedule {
    /// The schedule's backoff, its deadline counted from now.
    pub fn start(&self) -> Backoff {
        Backoff::new(self.poll_interval, self.max_interval, self.timeout)
    }
}

/// A deadline and a growing pause between polls.
#[derive(Debug, Clone)]
pub struct Backoff {
    pause: Duration,
    max_pause: Duration,
    started: Instant,
    timeout: Duration,
}

impl Backoff {
    /// A schedule that starts now and ends `timeout` from now.
    pub fn new(first: Duration, max_pause: Duration, timeout: Duration) -> Self {
        Backoff { pause: first, max_pause, started: Instant::now(), timeout }
    }

    /// The pause before the next poll (never past the deadline), or `None` once the deadline has
    /// passed: the caller then reports a timeout.
    pub fn next_pause(&mut self) -> Option<Duration> {
        let remaining = self.timeout.checked_sub(self.started.elapsed()).filter(|left| !left.is_zero())?;
        let pause = self.pause.min(remaining);
        self.pause = (self.pause * 3 / 2).min(self.max_pause);
        Some(pause)
    }

    /// The time since the schedule started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_grow_by_half_up_to_the_cap() {
        let mut backoff = Backoff::new(Duration::from_millis(1000), Duration::from_millis(2000), Duration::from_secs(3600));
        let pauses: Vec<u128> = (0..4).map(|_| backoff.next_pause().unwrap().as_millis()).collect();
        assert_eq!(pauses, [1000, 1500, 2000, 2000]);
    }

    #[test]
    fn the_last_pause_ends_at_the_deadline_and_then_there_is_none() {
        let mut backoff = Backoff::new(Duration::from_secs(60), Duration::from_secs(60), Duration::from_millis(30));
        assert!(backoff.next_pause().unwrap() <= Duration::from_millis(30));
        std::thread::sleep(Duration::from_millis(35));
        assert_eq!(backoff.next_pause(), None);
    }

    #[test]
    fn a_zero_timeout_allows_no_pause() {
        assert_eq!(Backoff::new(Duration::from_secs(1), Duration::from_secs(1), Duration::ZERO).next_pause(), None);
    }
}

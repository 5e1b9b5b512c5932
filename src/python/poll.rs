//! The one polling schedule (`services::poll`) from Python: `poll_schedule` checks a wait's
//! `poll_interval`, `max_interval` and `timeout` for every binding that polls
//! (`technical_potential_wait`, `optimizer_run`), and `sunflux._core.Backoff` exposes the schedule's
//! pauses. `Backoff` is for the tests only (`tests/test_transport.py`,
//! `tests/test_optimizer_polling.py` check the one schedule through it); every wait itself polls
//! in Rust.

use std::sync::Mutex;

use pyo3::prelude::*;

use super::convert::Arguments;
use super::errors::to_pyerr;
use crate::services::poll::{self, PollSchedule};

/// A wait's first pause, longest pause and deadline in seconds (each a finite number >= 0),
/// problems added to `args` so that they are reported with the caller's others; `None` if any is
/// invalid.
pub fn poll_schedule(
    args: &mut Arguments,
    poll_interval: &Bound<'_, PyAny>,
    max_interval: &Bound<'_, PyAny>,
    timeout: &Bound<'_, PyAny>,
) -> Option<PollSchedule> {
    let poll_interval = args.seconds("poll_interval", poll_interval, false);
    let max_interval = args.seconds("max_interval", max_interval, false);
    let timeout = args.seconds("timeout", timeout, false);
    Some(PollSchedule { poll_interval: poll_interval?, max_interval: max_interval?, timeout: timeout? })
}

/// The one polling schedule's pauses, for the tests: a deadline and a pause that grows by half
/// after every poll up to a cap.
#[pyclass(module = "sunflux._core", frozen, name = "Backoff")]
pub struct PyBackoff {
    schedule: Mutex<poll::Backoff>,
}

#[pymethods]
impl PyBackoff {
    /// The first pause `poll_interval` s, the longest `max_interval` s, the deadline `timeout` s
    /// from now (checked by `poll_schedule`: `ParameterError`).
    #[new]
    fn new(poll_interval: &Bound<'_, PyAny>, max_interval: &Bound<'_, PyAny>, timeout: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut args = Arguments::new();
        let schedule = poll_schedule(&mut args, poll_interval, max_interval, timeout);
        args.finish().map_err(to_pyerr)?;
        let schedule = schedule.ok_or_else(|| to_pyerr(crate::error::Error::Parameter(vec!["invalid arguments".into()])))?;
        Ok(PyBackoff { schedule: Mutex::new(schedule.start()) })
    }

    /// Seconds to pause before the next poll, or None once the deadline has passed.
    fn next_pause(&self) -> Option<f64> {
        self.schedule.lock().unwrap_or_else(std::sync::PoisonError::into_inner).next_pause().map(|pause| pause.as_secs_f64())
    }
}

//! `sunflux._core.Backoff`: the one polling schedule (`services::poll::Backoff`) seen from Python,
//! so that its pauses can be inspected; every wait itself polls in Rust.

use std::sync::Mutex;

use pyo3::prelude::*;

use super::convert::Arguments;
use super::errors::to_pyerr;
use crate::services::poll;

/// A deadline and a pause that grows by half after every poll up to a cap.
#[pyclass(module = "sunflux._core", frozen, name = "Backoff")]
pub struct PyBackoff {
    schedule: Mutex<poll::Backoff>,
}

#[pymethods]
impl PyBackoff {
    /// The first pause `poll_interval` s, the longest `max_interval` s, the deadline `timeout` s
    /// from now (every argument checked at once: `ParameterError`).
    #[new]
    fn new(poll_interval: &Bound<'_, PyAny>, max_interval: &Bound<'_, PyAny>, timeout: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut args = Arguments::new();
        let first = args.seconds("poll_interval", poll_interval, false);
        let max_pause = args.seconds("max_interval", max_interval, false);
        let timeout = args.seconds("timeout", timeout, false);
        args.finish().map_err(to_pyerr)?;
        let (Some(first), Some(max_pause), Some(timeout)) = (first, max_pause, timeout) else {
            return Err(to_pyerr(crate::error::Error::Parameter(vec!["invalid arguments".into()])));
        };
        Ok(PyBackoff { schedule: Mutex::new(poll::Backoff::new(first, max_pause, timeout)) })
    }

    /// Seconds to pause before the next poll, or None once the deadline has passed.
    fn next_pause(&self) -> Option<f64> {
        self.schedule.lock().unwrap_or_else(std::sync::PoisonError::into_inner).next_pause().map(|pause| pause.as_secs_f64())
    }
}

//! `_core.optimizer_solve`: a scenario solved in process (`optimizer::in_process`), on a thread
//! of its own while the caller waits without the GIL; Ctrl-C stops the solver (HiGHS's
//! interrupt callback, Clarabel's termination callback) and is raised within about 100 ms.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use pyo3::prelude::*;
use serde_json::{json, Value};

use super::bridge::{PyCancelToken, SIGNAL_CHECK};
use super::optimizer_result::PyResultDocument;
use super::errors::to_pyerr;
use crate::error::{Error, JobFailure};
use crate::optimizer::highs;
use crate::optimizer::in_process::{solve_scenario, InProcessError};
use crate::optimizer::scenario;
use crate::optimizer::solve::SolveControl;

/// The status text of a failed run (the service's).
const STATUS_FAILED: &str = "An error occurred. See messages for more.";

fn to_error(error: InProcessError, timeout_seconds: f64) -> Error {
    match error {
        InProcessError::Refused(problems) => Error::Parameter(problems),
        InProcessError::NotOptimal(message) => Error::JobFailed(Box::new(JobFailure {
            message: format!("the scenario has no optimal solution: {message}"),
            job_id: String::new(),
            status: STATUS_FAILED.into(),
            messages: json!({ "error": message }),
        })),
        InProcessError::TimedOut => Error::JobTimeout {
            message: format!("the solve did not finish within {timeout_seconds} s (Settings.timeout_seconds)"),
            job_id: String::new(),
            last_status: "Optimizing...".into(),
        },
        InProcessError::Cancelled => Error::Interrupted,
    }
}

/// Solves a scenario given as JSON text and returns its results document. A
/// cancelled `token` stops the solve (`KeyboardInterrupt`); Ctrl-C on this thread cancels it.
#[pyfunction]
#[pyo3(signature = (scenario_json, token=None))]
pub fn optimizer_solve<'py>(py: Python<'py>, scenario_json: &[u8], token: Option<&PyCancelToken>) -> PyResult<PyResultDocument> {
    let scenario: Value = serde_json::from_slice(scenario_json)
        .map_err(|e| to_pyerr(Error::Parameter(vec![format!("the scenario is not valid JSON: {e}")])))?;
    let timeout_seconds = scenario::timeout_seconds(&scenario);
    let cancel: Arc<AtomicBool> = PyCancelToken::handle(token).flag();
    let control = SolveControl {
        deadline: Instant::now().checked_add(crate::limits::clamped_seconds(timeout_seconds)),
        cancel: Some(cancel.clone()),
    };
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("sunflux-solve".into())
        .spawn(move || {
            let _ = sender.send(solve_scenario(&scenario, &control));
        })
        .map_err(|e| to_pyerr(Error::Transport(format!("the solver thread could not start: {e}"))))?;
    let mut receiver = receiver;
    loop {
        let (waited, returned) = py.detach(move || (receiver.recv_timeout(SIGNAL_CHECK), receiver));
        receiver = returned;
        match waited {
            Ok(Ok(body)) => return Ok(PyResultDocument::new(body)),
            Ok(Err(InProcessError::Cancelled)) => return Err(to_pyerr(Error::Interrupted)),
            Ok(Err(error)) => return Err(to_pyerr(to_error(error, timeout_seconds))),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if let Err(signal) = py.check_signals() {
                    cancel.store(true, Ordering::Relaxed);
                    return Err(signal);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(to_pyerr(Error::Transport("the solver thread ended without an answer".into())));
            }
        }
    }
}

/// Tells the engine where `highsbox`'s HiGHS library is (the package calls this at import).
#[pyfunction]
pub fn set_highs_location(path: std::path::PathBuf) {
    highs::set_library_location(path);
}

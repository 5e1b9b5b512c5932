//! `sunflux._core.PendingCall`: the one async seam. Every I/O binding checks its arguments and
//! returns a pending call, which the caller either waits for (`.wait()`, GIL released, Ctrl-C
//! honoured) or awaits (`await call`, an asyncio future of the running loop); nothing is sent
//! until one of the two is chosen, and a call runs once.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};

use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use super::bridge::{awaitable, block_on};
use super::errors::to_pyerr;
use crate::error::{Error, Result};

/// Turns a finished call's value into a Python object once the GIL is held.
type IntoPython = Box<dyn for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>> + Send>;

/// A finished call's value, not yet a Python object.
pub struct Answer(IntoPython);

impl<'py> IntoPyObject<'py> for Answer {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        (self.0)(py)
    }
}

type AnswerFuture = Pin<Box<dyn Future<Output = Result<Answer>> + Send>>;

/// A checked request not yet sent: `.wait()` runs it blocking, `await` runs it on asyncio.
#[pyclass(module = "sunflux._core", frozen, name = "PendingCall")]
pub struct PyPendingCall {
    future: Mutex<Option<AnswerFuture>>,
}

impl PyPendingCall {
    /// The pending call of `future`, whose value becomes Python when it is handed over.
    pub fn new<F, T>(future: F) -> Self
    where
        F: Future<Output = Result<T>> + Send + 'static,
        T: for<'py> IntoPyObject<'py> + Send + 'static,
    {
        let answer = async move { future.await.map(|value| Answer(Box::new(move |py| value.into_bound_py_any(py)))) };
        PyPendingCall { future: Mutex::new(Some(Box::pin(answer))) }
    }

    fn take(&self) -> PyResult<AnswerFuture> {
        self.future
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or_else(|| to_pyerr(Error::Parameter(vec!["this call has already been waited for or awaited; a call runs once".into()])))
    }
}

#[pymethods]
impl PyPendingCall {
    /// Sends the request and waits for its value with the GIL released (Ctrl-C aborts it).
    fn wait<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let future = self.take()?;
        block_on(py, future)?.into_pyobject(py)
    }

    /// Sends the request on the shared runtime; its value is delivered to the running event loop
    /// (cancelling the await aborts the request).
    fn __await__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let future = self.take()?;
        awaitable(py, future)?.call_method0("__await__")
    }
}

//! Running core futures from Python: blocking calls release the GIL and stay interruptible by
//! Ctrl-C; async calls become asyncio awaitables on the same shared runtime.

use std::future::Future;
use std::sync::Once;
use std::time::Duration;

use pyo3::prelude::*;

use super::errors::to_pyerr;
use crate::error::Result;
use crate::runtime::runtime;

/// How often a blocking call checks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

enum Outcome<T> {
    Done(Result<T>),
    Interrupted(PyErr),
}

/// Runs `future` to completion with the GIL released. A pending signal (Ctrl-C) cancels the
/// future within about 100 ms and is raised.
pub fn block_on<F, T>(py: Python<'_>, future: F) -> PyResult<T>
where
    F: Future<Output = Result<T>> + Send,
    T: Send,
{
    let runtime = runtime().map_err(to_pyerr)?;
    let outcome = py.detach(|| {
        runtime.block_on(async move {
            tokio::pin!(future);
            let mut ticker = tokio::time::interval(SIGNAL_CHECK);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticker.tick().await;
            loop {
                tokio::select! {
                    result = &mut future => return Outcome::Done(result),
                    _ = ticker.tick() => {
                        if let Err(signal) = Python::attach(|py| py.check_signals()) {
                            return Outcome::Interrupted(signal);
                        }
                    }
                }
            }
        })
    });
    match outcome {
        Outcome::Done(result) => result.map_err(to_pyerr),
        Outcome::Interrupted(signal) => Err(signal),
    }
}

/// Wraps `future` in an asyncio awaitable running on the shared runtime.
pub fn awaitable<'py, F, T>(py: Python<'py>, future: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = Result<T>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    ensure_async_runtime()?;
    pyo3_async_runtimes::tokio::future_into_py(py, async move { future.await.map_err(to_pyerr) })
}

fn ensure_async_runtime() -> PyResult<()> {
    static INIT: Once = Once::new();
    let runtime = runtime().map_err(to_pyerr)?;
    INIT.call_once(|| {
        let _ = pyo3_async_runtimes::tokio::init_with_runtime(runtime);
    });
    Ok(())
}

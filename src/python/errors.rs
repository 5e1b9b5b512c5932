//! Maps core errors onto the Python exception classes of `sunflux._errors`.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::{ApiErrorKind, Error, JobFailure};

/// The Python exception for `error` (needs the GIL; takes it if not held).
pub fn to_pyerr(error: Error) -> PyErr {
    Python::attach(|py| build(py, error).unwrap_or_else(|failed_to_build| failed_to_build))
}

fn class_name(kind: ApiErrorKind) -> &'static str {
    match kind {
        ApiErrorKind::Validation => "ValidationError",
        ApiErrorKind::Auth => "AuthError",
        ApiErrorKind::RateLimit => "RateLimitError",
        ApiErrorKind::QueueFull => "QueueFullError",
        ApiErrorKind::NotFound => "NotFoundError",
        ApiErrorKind::Server => "ServerError",
        ApiErrorKind::Other => "ApiError",
    }
}

fn build(py: Python<'_>, error: Error) -> PyResult<PyErr> {
    let module = py.import("sunflux._errors")?;
    let message = error.to_string();
    let instance = match error {
        Error::Parameter(problems) => module.getattr("ParameterError")?.call1((problems, message))?,
        Error::Transport(text) => module.getattr("TransportError")?.call1((text,))?,
        Error::Parse(problem) => {
            let kwargs = PyDict::new(py);
            kwargs.set_item("status", 200)?;
            kwargs.set_item("errors", vec![problem])?;
            module.getattr("ApiError")?.call((message,), Some(&kwargs))?
        }
        Error::Api(failure) => {
            let kwargs = PyDict::new(py);
            kwargs.set_item("status", failure.status)?;
            kwargs.set_item("errors", failure.errors.clone())?;
            kwargs.set_item("code", failure.code.clone())?;
            kwargs.set_item("body", failure.body.clone())?;
            kwargs.set_item("url", failure.url.clone())?;
            kwargs.set_item("retry_after", failure.retry_after.map(|d| d.as_secs_f64()))?;
            kwargs.set_item("remaining", failure.remaining)?;
            let instance = module.getattr(class_name(failure.kind))?.call((message,), Some(&kwargs))?;
            if let Some(input_errors) = &failure.input_errors {
                instance.setattr("input_errors", super::convert::json_to_py(py, input_errors)?)?;
            }
            instance
        }
        Error::JobFailed(failure) => {
            let JobFailure { message, job_id, status, messages } = *failure;
            let kwargs = PyDict::new(py);
            kwargs.set_item("job_id", job_id)?;
            kwargs.set_item("status", status)?;
            kwargs.set_item("messages", super::convert::json_to_py(py, &messages)?)?;
            module.getattr("JobFailed")?.call((message,), Some(&kwargs))?
        }
        Error::JobTimeout { message, job_id, last_status } => {
            let kwargs = PyDict::new(py);
            kwargs.set_item("job_id", job_id)?;
            kwargs.set_item("last_status", last_status)?;
            module.getattr("JobTimeout")?.call((message,), Some(&kwargs))?
        }
        Error::Interrupted => return Ok(pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")),
    };
    Ok(PyErr::from_value(instance))
}

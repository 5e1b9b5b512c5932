//! The core error type. Every fallible operation of the crate returns it; `python/errors.rs`
//! maps each variant onto the Python exception hierarchy the brief fixes (docs/design.md, "Errors").

use std::time::Duration;

/// How the service answered when it answered with an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiErrorKind {
    /// 422 / 400 with the service's `errors` list.
    Validation,
    /// 403 `API_KEY_*`.
    Auth,
    /// 429 `OVER_RATE_LIMIT` or a 503 rate-limit body.
    RateLimit,
    /// The climate download queue refused the request.
    QueueFull,
    /// 404.
    NotFound,
    /// 5xx, HTML gateway pages, "Data processing failure".
    Server,
    /// Any other non-success answer.
    Other,
}

/// A service answer that is an error. All text fields are already free of the API key.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiFailure {
    pub kind: ApiErrorKind,
    pub status: u16,
    pub code: Option<String>,
    pub errors: Vec<String>,
    pub body: String,
    pub url: String,
    pub retry_after: Option<Duration>,
    pub remaining: Option<i64>,
    /// The optimizer's per-section `input_errors` of a rejected scenario (`{section: [problems]}`).
    pub input_errors: Option<serde_json::Value>,
}

/// A job that ended in error (boxed in `Error` so that every `Result` stays small).
#[derive(Debug, Clone, PartialEq)]
pub struct JobFailure {
    pub message: String,
    pub job_id: String,
    pub status: String,
    /// What the service said: a list, or the optimizer's map.
    pub messages: serde_json::Value,
}

impl ApiFailure {
    /// One line for the exception message: status, code and the first messages.
    pub fn summary(&self) -> String {
        let mut text = format!("HTTP {}", self.status);
        if let Some(code) = &self.code {
            text.push_str(&format!(" {code}"));
        }
        if !self.errors.is_empty() {
            text.push_str(": ");
            text.push_str(&self.errors.join("; "));
        }
        if !self.url.is_empty() {
            text.push_str(&format!(" ({})", self.url));
        }
        text
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// Client-side validation failed; nothing was sent.
    #[error("{}", join_problems(.0))]
    Parameter(Vec<String>),
    /// Connection, TLS, timeout, truncated body.
    #[error("{0}")]
    Transport(String),
    /// The service answered with an error.
    #[error("{}", .0.summary())]
    Api(Box<ApiFailure>),
    /// A job ended in error.
    #[error("{}", .0.message)]
    JobFailed(Box<JobFailure>),
    /// A wait deadline passed.
    #[error("{message}")]
    JobTimeout { message: String, job_id: String, last_status: String },
    /// A response could not be understood.
    #[error("could not parse the response: {0}")]
    Parse(String),
    /// The caller pressed Ctrl-C (a pending Python exception is waiting to be raised).
    #[error("interrupted")]
    Interrupted,
}

fn join_problems(problems: &[String]) -> String {
    match problems {
        [one] => one.clone(),
        many => {
            let lines: Vec<String> = many.iter().map(|p| format!("  - {p}")).collect();
            format!("{} problems:\n{}", many.len(), lines.join("\n"))
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

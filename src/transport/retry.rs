//! The retry policy: which outcomes are worth another attempt, and how long to wait before it.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};

use crate::error::{ApiErrorKind, Error};

/// How many times and how patiently to retry.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Total attempts, the first included (1 = no retry).
    pub attempts: u32,
    /// Delay before the first retry; later ones double, with full jitter.
    pub base_delay: Duration,
    /// No computed delay exceeds this (a server's `Retry-After` may, up to `max_retry_after`).
    pub max_delay: Duration,
    /// Longest `Retry-After` honoured; a longer one fails at once with `RateLimitError`.
    pub max_retry_after: Duration,
    /// Retry 429 answers (on by default; turn off to fail fast and keep the rolling quota).
    pub retry_rate_limited: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
            retry_rate_limited: true,
        }
    }
}

impl RetryPolicy {
    /// The jittered exponential delays between attempts (`attempts - 1` of them).
    pub fn delays(&self) -> impl Iterator<Item = Duration> {
        ExponentialBuilder::default()
            .with_min_delay(self.base_delay)
            .with_max_delay(self.max_delay)
            .with_factor(2.0)
            .with_max_times(self.attempts.saturating_sub(1) as usize)
            .with_jitter()
            .build()
    }

    /// Whether `error` is transient under this policy.
    pub fn should_retry(&self, error: &Error) -> bool {
        match error {
            Error::Transport(_) => true,
            Error::Api(failure) => match failure.kind {
                ApiErrorKind::Server => true,
                ApiErrorKind::RateLimit => {
                    self.retry_rate_limited && failure.retry_after.is_none_or(|wait| wait <= self.max_retry_after)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The wait before the next attempt: the backoff delay, or the server's `Retry-After` if longer.
    pub fn wait_before_retry(&self, error: &Error, backoff: Duration) -> Duration {
        let server_says = match error {
            Error::Api(failure) => failure.retry_after,
            _ => None,
        };
        match server_says {
            Some(wait) => wait.max(backoff.min(self.max_delay)),
            None => backoff,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiFailure;

    fn api(kind: ApiErrorKind, status: u16, retry_after: Option<Duration>) -> Error {
        Error::Api(Box::new(ApiFailure {
            kind,
            status,
            code: None,
            errors: vec![],
            body: String::new(),
            url: String::new(),
            retry_after,
            remaining: None,
            input_errors: None,
        }))
    }

    #[test]
    fn transient_outcomes_are_retried_and_client_errors_are_not() {
        let policy = RetryPolicy::default();
        assert!(policy.should_retry(&Error::Transport("connection reset".into())));
        assert!(policy.should_retry(&api(ApiErrorKind::Server, 502, None)));
        assert!(policy.should_retry(&api(ApiErrorKind::RateLimit, 429, None)));
        assert!(policy.should_retry(&api(ApiErrorKind::RateLimit, 429, Some(Duration::from_secs(5)))));
        assert!(!policy.should_retry(&api(ApiErrorKind::RateLimit, 429, Some(Duration::from_secs(1900)))));
        assert!(!policy.should_retry(&api(ApiErrorKind::Validation, 422, None)));
        assert!(!policy.should_retry(&api(ApiErrorKind::Auth, 403, None)));
        assert!(!policy.should_retry(&Error::Parameter(vec!["x".into()])));
        let fail_fast = RetryPolicy { retry_rate_limited: false, ..RetryPolicy::default() };
        assert!(!fail_fast.should_retry(&api(ApiErrorKind::RateLimit, 429, None)));
    }

    #[test]
    fn delays_grow_are_bounded_and_counted() {
        let policy = RetryPolicy {
            attempts: 6,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(800),
            ..RetryPolicy::default()
        };
        let delays: Vec<Duration> = policy.delays().collect();
        assert_eq!(delays.len(), 5);
        for (i, delay) in delays.iter().enumerate() {
            let floor = Duration::from_millis(100 * (1 << i)).min(Duration::from_millis(800));
            assert!(*delay >= floor, "delay {i} = {delay:?} below {floor:?}");
            assert!(*delay <= floor * 2 + Duration::from_millis(800), "delay {i} = {delay:?}");
        }
    }

    #[test]
    fn retry_after_wins_when_longer() {
        let policy = RetryPolicy::default();
        let limited = api(ApiErrorKind::RateLimit, 429, Some(Duration::from_secs(3)));
        assert_eq!(policy.wait_before_retry(&limited, Duration::from_millis(200)), Duration::from_secs(3));
        let plain = api(ApiErrorKind::Server, 503, None);
        assert_eq!(policy.wait_before_retry(&plain, Duration::from_millis(200)), Duration::from_millis(200));
    }
}

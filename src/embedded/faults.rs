//! Seeded fault injection for tests: a fraction of responses become what flaky infrastructure
//! produces (HTML 5xx pages, 429s with and without `Retry-After`, delays, cut-off bodies,
//! dropped connections). Off unless configured.

use std::time::Duration;

use super::prng::SplitMix64;

/// One kind of injected failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// 500 with an HTML error page.
    ServerError,
    /// 502 with an HTML proxy page.
    BadGateway,
    /// 503 "no healthy upstream" HTML page.
    Unavailable,
    /// 429 `OVER_RATE_LIMIT` with `Retry-After`.
    RateLimitedRetryAfter,
    /// 429 `OVER_RATE_LIMIT` without `Retry-After` (as the real gateway sends it).
    RateLimited,
    /// The normal answer, after `FaultConfig::delay`.
    Delay,
    /// The normal headers, then only half the body before the connection closes.
    TruncatedBody,
    /// Headers announcing a body, then the connection closes with none of it.
    DroppedConnection,
}

impl FaultKind {
    pub const ALL: [FaultKind; 8] = [
        FaultKind::ServerError,
        FaultKind::BadGateway,
        FaultKind::Unavailable,
        FaultKind::RateLimitedRetryAfter,
        FaultKind::RateLimited,
        FaultKind::Delay,
        FaultKind::TruncatedBody,
        FaultKind::DroppedConnection,
    ];

    pub fn parse(name: &str) -> Option<FaultKind> {
        Some(match name {
            "500" | "server_error" => FaultKind::ServerError,
            "502" | "bad_gateway" => FaultKind::BadGateway,
            "503" | "unavailable" => FaultKind::Unavailable,
            "429_retry_after" => FaultKind::RateLimitedRetryAfter,
            "429" => FaultKind::RateLimited,
            "delay" => FaultKind::Delay,
            "truncate" => FaultKind::TruncatedBody,
            "drop" => FaultKind::DroppedConnection,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::ServerError => "500",
            FaultKind::BadGateway => "502",
            FaultKind::Unavailable => "503",
            FaultKind::RateLimitedRetryAfter => "429_retry_after",
            FaultKind::RateLimited => "429",
            FaultKind::Delay => "delay",
            FaultKind::TruncatedBody => "truncate",
            FaultKind::DroppedConnection => "drop",
        }
    }
}

/// What to inject and how often.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultConfig {
    /// Fraction of responses (0..=1) that fail.
    pub rate: f64,
    pub seed: u64,
    pub kinds: Vec<FaultKind>,
    /// How long a `Delay` fault waits.
    pub delay: Duration,
    /// The `Retry-After` value sent with `RateLimitedRetryAfter`.
    pub retry_after: Duration,
}

impl FaultConfig {
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.rate) {
            return Err(format!("faults rate must be between 0 and 1 (got {})", self.rate));
        }
        if self.kinds.is_empty() {
            return Err("faults kinds must not be empty".into());
        }
        Ok(())
    }
}

/// Draws faults from a seeded sequence, one draw per request.
#[derive(Debug)]
pub struct FaultInjector {
    config: FaultConfig,
    rng: SplitMix64,
}

impl FaultInjector {
    pub fn new(config: FaultConfig) -> Self {
        let rng = SplitMix64::new(config.seed);
        FaultInjector { config, rng }
    }

    pub fn config(&self) -> &FaultConfig {
        &self.config
    }

    /// The fault for the next request, if any.
    pub fn draw(&mut self) -> Option<FaultKind> {
        let roll = self.rng.next_f64();
        let pick = self.rng.below(self.config.kinds.len() as u64) as usize;
        (roll < self.config.rate).then(|| self.config.kinds[pick])
    }
}

/// The HTML page a proxy sends for `status`.
pub fn html_error_page(status: u16) -> String {
    let (title, text) = match status {
        502 => ("502 Bad Gateway", "The proxy received an invalid response from an upstream server."),
        503 => ("503 Service Unavailable", "no healthy upstream"),
        _ => ("500 Internal Server Error", "An error has occurred. Your support ID is: 0000000000000000000"),
    };
    format!("<!DOCTYPE html>\n<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{text}</p></body></html>\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_is_respected_and_seeded() {
        let config = FaultConfig {
            rate: 0.3,
            seed: 42,
            kinds: FaultKind::ALL.to_vec(),
            delay: Duration::from_millis(1),
            retry_after: Duration::from_secs(1),
        };
        let mut a = FaultInjector::new(config.clone());
        let mut b = FaultInjector::new(config);
        let draws: Vec<Option<FaultKind>> = (0..10_000).map(|_| a.draw()).collect();
        assert!(draws.iter().zip((0..10_000).map(|_| b.draw())).all(|(x, y)| *x == y));
        let failed = draws.iter().filter(|d| d.is_some()).count();
        assert!((2700..3300).contains(&failed), "{failed}");
        for kind in FaultKind::ALL {
            assert!(draws.contains(&Some(kind)), "{kind:?} never drawn");
            assert_eq!(FaultKind::parse(kind.name()), Some(kind));
        }
    }
}

//! Everything between a typed call and the wire: routes, auth, throttles, retries, redirects,
//! retries and redirects. Routes are `spec::routes`, error bodies `formats::error_body`, redaction `redact`.

#![cfg_attr(
    not(test),
    deny(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_possible_wrap, clippy::indexing_slicing)
)]

pub mod auth;
pub mod base_url;
pub mod client;
pub mod retry;
pub mod throttle;

pub use auth::{ApiKey, AuthMode};
pub use base_url::parse_base_url;
pub use client::{canonical_origin, check_scheme, AttemptObserver, AttemptRecord, Body, RateLimitInfo, Request, Response, Target, Transport, TransportConfig, DEFAULT_BASE_URL};
pub use retry::RetryPolicy;
pub use crate::spec::routes::{Endpoint, RouteProfile, ServiceClass};
pub use throttle::{ClassLimits, ThrottleConfig, WindowLimit};

//! Everything between a typed call and the wire: routes, auth, throttles, retries, redirects,
//! error bodies and redaction.

pub mod auth;
pub mod client;
pub mod error_body;
pub mod redact;
pub mod retry;
pub mod routes;
pub mod throttle;

pub use auth::{ApiKey, AuthMode};
pub use client::{canonical_origin, check_scheme, parse_base_url, AttemptObserver, AttemptRecord, Body, RateLimitInfo, Request, Response, Target, Transport, TransportConfig, DEFAULT_BASE_URL};
pub use retry::RetryPolicy;
pub use routes::{Endpoint, RouteProfile, ServiceClass};
pub use throttle::{ClassLimits, ThrottleConfig, WindowLimit};

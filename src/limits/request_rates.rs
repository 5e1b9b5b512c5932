//! The request limits the spec states for the live service (requests per window, pauses, calls in
//! flight), in one place: the client-side throttle (`transport::throttle::ThrottleConfig::spec`)
//! and the embedded service when it is asked to enforce them (`LocalService(limits="spec")`) read
//! these numbers, so the two always agree. `python/spec.rs` exports them as constants of
//! `sunflux._core` (`KEY_REQUESTS_PER_HOUR`, …), which the Python face reads instead of restating
//! them.

use std::time::Duration;

/// Dataset query and estimator calls per key in any rolling hour.
pub const KEY_REQUESTS_PER_HOUR: u32 = 1_000;
/// One climate CSV request per second per user ...
pub const CLIMATE_CSV_INTERVAL: Duration = Duration::from_secs(1);
/// ... and 10,000 per rolling 24 hours.
pub const CLIMATE_CSV_PER_DAY: u32 = 10_000;
/// One climate request of any other format per 2 seconds ...
pub const CLIMATE_OTHER_INTERVAL: Duration = Duration::from_secs(2);
/// ... and 2,000 per rolling 24 hours.
pub const CLIMATE_OTHER_PER_DAY: u32 = 2_000;
/// Climate requests of one user in flight at once (CSV streams and unfinished downloads).
pub const CLIMATE_IN_FLIGHT: usize = 20;


//! sunflux: the Rust core. Pure-Rust modules know nothing of Python; only `python/` does.

pub mod error;
pub mod files;
pub mod formats;
pub mod limits;
pub mod local;
pub mod python;
pub mod pvwatts;
pub mod runtime;
pub mod services;
pub mod transport;

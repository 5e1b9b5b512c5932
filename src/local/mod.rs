//! The embedded service (axum) that serves every endpoint of the spec on loopback, with the
//! gateway's auth, limits and error bodies, seeded fault injection, and synthetic data.

pub mod catalog;
pub mod faults;
pub mod gateway;
pub mod prng;
pub mod reply;
pub mod server;
pub mod solar_endpoint;
pub mod status;

pub use faults::{FaultConfig, FaultKind};
pub use server::{LocalService, ServiceConfig};

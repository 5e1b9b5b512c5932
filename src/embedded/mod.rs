//! The embedded service (axum) that serves every endpoint of the spec on loopback, with the
//! gateway's auth, limits and error bodies, seeded fault injection, and synthetic data.

pub mod catalog;
pub mod climate;
pub mod faults;
pub mod gateway;
pub mod optimizer;
pub mod prng;
pub mod pv;
pub mod reply;
pub mod request_body;
pub mod server;
pub mod solar;
pub mod state;
pub mod station_weather;
pub mod status;
pub mod technical_potential;
pub mod weather_gen;
pub mod wind_toolkit;

pub use faults::{FaultConfig, FaultKind};
pub use server::LocalService;
pub use state::ServiceConfig;

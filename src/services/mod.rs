//! One module per service: parameters and validation, request building, typed responses.

pub mod climate;
pub mod missing;
pub mod pv_estimator;
pub mod raw;
pub mod solar;
pub mod solar_json;
pub mod technical_potential;

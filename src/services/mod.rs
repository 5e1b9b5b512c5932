//! One module per service: parameters and validation, request building, typed responses.

pub mod climate;
pub mod pv_estimator;
pub mod pv_estimator_v8;
pub mod raw;
pub mod solar;
pub mod solar_json;
pub mod technical_potential;

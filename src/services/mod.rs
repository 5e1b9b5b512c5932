//! One module per service: parameters and validation, request building, typed responses.

pub mod climate;
pub mod pv_estimator;
pub mod raw;
pub mod simulated_load;
pub mod solar;
pub mod solar_json;
pub mod technical_potential;

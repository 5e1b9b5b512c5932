//! One module per service: parameters and validation, request building, typed responses.

#![cfg_attr(
    not(test),
    deny(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_possible_wrap, clippy::indexing_slicing)
)]

pub mod climate;
pub mod handle;
pub mod missing;
pub mod poll;
pub mod pv_estimator;
pub mod raw;
pub mod simulated_load;
pub mod solar;
pub mod technical_potential;
pub mod wind_toolkit;
pub mod optimizer;

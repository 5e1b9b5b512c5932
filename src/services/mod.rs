//! One module per service: parameters and validation, request building, typed responses.

pub mod solar;

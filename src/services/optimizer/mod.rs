//! The optimizer's scenario facts shared by the client and the embedded service: the embedded
//! schema (`schema`) and the validation of scenarios (`validation`).

pub mod schema;
pub mod validation;

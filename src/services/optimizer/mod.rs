//! The optimizer service, free of Python: the scenario facts shared by the client and the
//! embedded service (the embedded schema, the validation of scenarios), a job's submission, its
//! results read as a run state, the run loop (submit, then poll with `services::poll::Backoff`),
//! the Utility Rate Database lookups, the results frame as Arrow, and `Scenario.resolve` (the
//! reference load and the rate fetched into the scenario, through a disk cache).

pub mod answer;
pub mod cache;
pub mod references;
pub mod request;
pub mod resolve;
pub mod schema;
pub mod series;
pub mod text;
pub mod urdb;
pub mod validation;

//! The optimizer service's calls and answers, free of Python: a job's submission, its results
//! read as a run state, the run loop (submit, then poll with `services::poll::Backoff`), the
//! Utility Rate Database lookups, the results frame as Arrow, and `Scenario.resolve` (the
//! reference load and the rate fetched into the scenario, through a disk cache).

pub mod answer;
pub mod request;
pub mod series;
pub mod text;
pub mod urdb;
pub mod cache;
pub mod references;
pub mod resolve;

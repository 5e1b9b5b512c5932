//! The optimizer service's calls and answers, free of Python: a job's submission, its results
//! read as a run state, the run loop (submit, then poll with `services::poll::Backoff`), the
//! Utility Rate Database lookups and the results frame as Arrow.

pub mod answer;
pub mod request;
pub mod series;
pub mod text;
pub mod urdb;
pub mod cache;
pub mod references;
pub mod resolve;

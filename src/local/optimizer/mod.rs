//! The embedded optimizer: a linear program that really minimizes the lifecycle cost of the
//! supported subset of an optimizer scenario (site load, a non-URDB tariff with net metering and
//! export rates, one PV array, electric storage, the financial present-worth conventions, and
//! the business-as-usual case), the job store behind the local job endpoints, and the results
//! body in the live service's shape; the HTTP wiring (`http`), the load profiles of its
//! simulated-load endpoint (`load_profiles`) and the Utility Rate Database stand-in
//! (`urdb_standin`). Scenarios are validated by `services::optimizer::validation`
//! (the rules the Python builder uses too).
//!
//! Flow: `model::from_scenario` (resolved scenario → `Model`, or the unsupported parts) →
//! `run::optimize` (cases → `lp::build` → `solve::solve` with Clarabel) →
//! `outputs::optimal_outputs`; `jobs::JobStore` runs that on a thread per job and
//! `endpoint` turns lookups into replies.

pub mod branching;
pub mod calendar;
pub mod endpoint;
pub mod finance;
pub mod http;
pub mod jobs;
pub mod load_profiles;
pub mod lp;
pub mod model;
pub mod outage_inputs;
pub mod outage_sim;
pub mod outputs;
pub mod pv_costs;
pub mod run;
pub mod solve;
pub mod tariff;
pub mod urdb_standin;

pub use endpoint::{post_job_reply, results_reply};
pub use jobs::{JobStore, JobStoreConfig, Lookup, Submission};
pub use model::{from_scenario, Model, ScenarioError, Unsupported};
pub use run::{optimize, Optimized, RunError};
pub use solve::SolveControl;

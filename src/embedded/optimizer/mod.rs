//! The embedded optimizer's HTTP face: the job store behind the local job endpoints (each job
//! runs the engine of `crate::optimizer` on a thread), the replies in the live service's shape,
//! the HTTP wiring (`http`), the load profiles of its simulated-load endpoint
//! (`load_profiles`, `thermal_profiles` for heating and cooling), the Utility Rate Database stand-in (`urdb_standin`),
//! the synthetic stand-ins of the grid emissions and health-cost look-ups (`emissions_standin`)
//! and of the CST production factor the service computes with SAM (`cst_standin`).

pub mod cst_standin;
pub mod emissions_standin;
pub mod endpoint;
pub mod http;
pub mod jobs;
pub mod load_profiles;
pub mod thermal_profiles;
pub mod urdb_standin;

pub use endpoint::{post_job_reply, results_reply};
pub use jobs::{JobStore, JobStoreConfig, Lookup, Submission};

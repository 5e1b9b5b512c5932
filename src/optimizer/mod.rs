//! The optimizer engine: the lifecycle-cost program of an optimizer scenario, solved in
//! process. It knows no HTTP, no transport and no Python; the embedded service
//! (`embedded::optimizer`) and the Python bindings call it.
//!
//! - `scenario`: the service's schema, validation and text rules, shared with the client;
//! - `model`: a resolved scenario read into typed inputs (`Model`), or the parts it does not
//!   model, named;
//! - `finance`, `tariff`, `pv_costs`: the present-worth factors, the rate structure and the PV
//!   cost curves; `emissions`: the pollutants, their present-worth factors and the
//!   business-as-usual CO2 (the time axis, the modelled 8760-hour year, is `calendar::modelled_year`);
//! - `lp`: the mixed-integer program (variables, one function per constraint family) and
//!   its `Layout` to read a solution back;
//! - `solve`: the solver adapter;
//! - `run`: the cases solved (optimal and business as usual) and why a run failed;
//! - `outputs`: the results per section; `outage_inputs`, `outage_sim`: the outage simulation;
//! - `water`: liquid water properties (IAPWS-95) for hot-water storage gallons.
//!
//! Flow: `model::from_scenario` → `run::optimize` (cases → `lp::build` → `solve::solve`) →
//! `outputs::optimal_outputs`.

pub mod emissions;
pub mod finance;
pub mod highs;
pub mod in_process;
pub mod loads;
pub mod lp;
pub mod model;
pub mod outage_inputs;
pub mod outage_sim;
pub mod outputs;
pub mod proforma;
pub mod pv_costs;
pub mod run;
pub mod scenario;
pub mod size;
pub mod solve;
pub mod tariff;
pub mod water;

pub use model::{from_scenario, Model, ScenarioError, Unsupported};
pub use run::{optimize, Optimized, RunError};
pub use solve::SolveControl;

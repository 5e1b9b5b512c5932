//! The optimizer service, free of Python: a job's submission, its results read as a run state,
//! the run loop (submit, then poll with `services::poll::Backoff`), the Utility Rate Database
//! lookups, the results frame as Arrow, and `Scenario.resolve` (the reference load, the rate
//! the PV and Wind production factors, the heat pumps' outdoor temperature and the grid emissions and health costs
//! (AVERT, Cambium, EASIUR) fetched or computed into the scenario, through a disk
//! cache). The scenario facts it shares with the
//! engine and the embedded service (schema, validation) live in `optimizer::scenario`.

pub mod ambient_temperature;
pub mod answer;
pub mod cache;
pub mod emissions_data;
pub mod emissions_series;
pub mod pv_production;
pub mod references;
pub mod thermal_references;
pub mod request;
pub mod resolve;
pub mod series;
pub mod urdb;
pub mod wind_production;

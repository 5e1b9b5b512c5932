//! The optimizer's integration tests, one test binary for all of them (one link of the crate
//! instead of one per file): each module covers one part of the local optimizer, and `support`
//! holds what they share. Run one part with `cargo test --test optimizer <module>::`.

mod support;

mod optimizer_absorption;
mod optimizer_anchors;
mod optimizer_ashp_cooling;
mod optimizer_ashp_dispatch;
mod optimizer_chp;
mod optimizer_chp_fuels;
mod optimizer_chp_defaults;
mod optimizer_chp_exports;
mod optimizer_chp_formulation;
mod optimizer_chp_grid;
mod optimizer_chp_outages;
mod optimizer_cooling;
mod optimizer_cst;
mod optimizer_core;
mod optimizer_degradation;
mod optimizer_emissions;
mod optimizer_exports;
mod optimizer_ghp;
mod optimizer_heating;
mod optimizer_heat_pumps;
mod optimizer_heat_qualities;
mod optimizer_high_temp_storage;
mod optimizer_hot_storages;
mod optimizer_hot_storages_mixed;
mod optimizer_heating_emissions;
mod optimizer_heating_proforma;
mod optimizer_incentives;
mod optimizer_loads;
mod optimizer_milp;
mod optimizer_ownership;
mod optimizer_proforma;
mod optimizer_resilience;
mod optimizer_steam;
mod optimizer_tariff_results;

//! The PyO3 module `sunflux._core`: the only part of the crate that knows about Python.

#![cfg_attr(
    not(test),
    deny(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_possible_wrap, clippy::indexing_slicing)
)]

use pyo3::prelude::*;

pub mod bridge;
pub mod client;
pub mod climate;
pub mod convert;
pub mod errors;
pub mod embedded;
pub mod optimizer;
pub mod poll;
pub mod pv;
pub mod pvwatts;
pub mod solar;
pub mod spec;
pub mod technical_potential;
pub mod time_zones;
pub mod optimizer_emissions;
pub mod optimizer_jobs;
pub mod optimizer_resolve;
pub mod optimizer_result;
pub mod optimizer_solve;
pub mod pending;
pub mod validation;
pub mod wind;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    validation::check_embedded_schema()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("_build_profile", if cfg!(debug_assertions) { "debug" } else { "release" })?;
    m.add("DEFAULT_BASE_URL", crate::transport::DEFAULT_BASE_URL)?;
    m.add("API_KEY_LENGTH", crate::transport::auth::API_KEY_LENGTH)?;
    m.add("DEFAULT_DEADLINE", crate::limits::DEFAULT_DEADLINE.as_secs_f64())?;
    m.add_function(wrap_pyfunction!(client::default_limits, m)?)?;
    spec::register(m)?;
    m.add_class::<client::PyTransport>()?;
    m.add_class::<client::PyRawResponse>()?;
    m.add_class::<client::PyPreparedRequest>()?;
    m.add_class::<pending::PyPendingCall>()?;
    m.add_class::<bridge::PyCancelToken>()?;
    m.add_class::<poll::PyBackoff>()?;
    m.add_function(wrap_pyfunction!(bridge::quiesce, m)?)?;
    m.add_class::<embedded::PyLocalService>()?;
    m.add_class::<solar::PyStationQuery>()?;
    m.add_class::<pv::PyPvEstimate>()?;
    m.add_class::<optimizer::PySimulatedLoad>()?;
    m.add_function(wrap_pyfunction!(optimizer::optimizer_simulated_load, m)?)?;
    m.add_function(wrap_pyfunction!(optimizer::simulate_outages, m)?)?;
    m.add_function(wrap_pyfunction!(optimizer::optimizer_trough_production_factor, m)?)?;
    m.add_class::<optimizer_emissions::PyAvertEmissionsProfile>()?;
    m.add_class::<optimizer_emissions::PyCambiumProfile>()?;
    m.add_class::<optimizer_emissions::PyEasiurCosts>()?;
    m.add_function(wrap_pyfunction!(optimizer_emissions::optimizer_avert_emissions_profile, m)?)?;
    m.add_function(wrap_pyfunction!(optimizer_emissions::optimizer_cambium_profile, m)?)?;
    m.add_function(wrap_pyfunction!(optimizer_emissions::optimizer_easiur_costs, m)?)?;
    m.add_class::<wind::PyWindResource>()?;
    m.add_function(wrap_pyfunction!(wind::wind_toolkit_srw, m)?)?;
    m.add_class::<optimizer_result::PyResultDocument>()?;
    m.add_function(wrap_pyfunction!(optimizer_solve::optimizer_solve, m)?)?;
    m.add_function(wrap_pyfunction!(optimizer_solve::set_highs_location, m)?)?;
    m.add_function(wrap_pyfunction!(pv::pv_estimate, m)?)?;
    m.add_function(wrap_pyfunction!(pv::parse_pv_estimate, m)?)?;
    m.add_function(wrap_pyfunction!(pv::v8::pv_estimate_v8, m)?)?;
    m.add_class::<pvwatts::PyWeather>()?;
    m.add_class::<climate::PyClimateTable>()?;
    m.add_class::<climate::PyClimateZip>()?;
    m.add_function(wrap_pyfunction!(climate::climate_download_csv, m)?)?;
    m.add_function(wrap_pyfunction!(climate::climate_request, m)?)?;
    m.add_function(wrap_pyfunction!(climate::climate_fetch, m)?)?;
    m.add_function(wrap_pyfunction!(climate::climate_cache_key, m)?)?;
    m.add_function(wrap_pyfunction!(climate::climate_weather, m)?)?;
    m.add_function(wrap_pyfunction!(climate::parse_climate_csv_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(climate::parse_climate_zip_bytes, m)?)?;
    m.add_class::<technical_potential::PyTechnicalPotentialConfiguration>()?;
    m.add_class::<technical_potential::PyTechnicalPotentialJobResult>()?;
    m.add_function(wrap_pyfunction!(technical_potential::technical_potential_config, m)?)?;
    m.add_function(wrap_pyfunction!(technical_potential::technical_potential_submit, m)?)?;
    m.add_function(wrap_pyfunction!(technical_potential::technical_potential_job, m)?)?;
    m.add_function(wrap_pyfunction!(technical_potential::technical_potential_wait, m)?)?;
    m.add_function(wrap_pyfunction!(technical_potential::parse_technical_potential_configuration, m)?)?;
    m.add_function(wrap_pyfunction!(technical_potential::parse_technical_potential_job, m)?)?;
    m.add_function(wrap_pyfunction!(pvwatts::read_weather_path, m)?)?;
    m.add_function(wrap_pyfunction!(pvwatts::read_weather_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(pvwatts::weather_from_table, m)?)?;
    m.add_function(wrap_pyfunction!(pvwatts::weather_column_field, m)?)?;
    m.add_function(wrap_pyfunction!(pvwatts::pvwatts_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(pvwatts::pvwatts_simulate_many, m)?)?;
    m.add_function(wrap_pyfunction!(pvwatts::v8::pvwatts_simulate_v8, m)?)?;
    m.add_function(wrap_pyfunction!(pvwatts::v8::pvwatts_simulate_many_v8, m)?)?;
    m.add_function(wrap_pyfunction!(solar::solar_data_query, m)?)?;
    m.add_function(wrap_pyfunction!(solar::parse_solar_data_query, m)?)?;
    m.add_function(wrap_pyfunction!(time_zones::standard_time_zone_name, m)?)?;
    m.add_function(wrap_pyfunction!(time_zones::site_standard_offset, m)?)?;
    optimizer_jobs::register(m)?;
    m.add_function(wrap_pyfunction!(optimizer_jobs::optimizer_submit, m)?)?;
    m.add_function(wrap_pyfunction!(optimizer_jobs::optimizer_results, m)?)?;
    m.add_function(wrap_pyfunction!(optimizer_jobs::optimizer_run, m)?)?;
    m.add_function(wrap_pyfunction!(optimizer_jobs::optimizer_urdb_rate, m)?)?;
    m.add_function(wrap_pyfunction!(optimizer_jobs::optimizer_urdb_rate_by_name, m)?)?;
    m.add_function(wrap_pyfunction!(optimizer_resolve::optimizer_resolve, m)?)?;
    optimizer_resolve::register(m)?;
    m.add_function(wrap_pyfunction!(validation::optimizer_validate_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(validation::optimizer_validate_section, m)?)?;
    m.add_function(wrap_pyfunction!(validation::optimizer_not_a_scenario_message, m)?)?;
    m.add_function(wrap_pyfunction!(validation::optimizer_sections_json, m)?)?;
    Ok(())
}

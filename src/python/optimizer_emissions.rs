//! Bindings of the optimizer service's grid emissions and health-cost look-ups
//! (`client.optimizer.avert_emissions_profile / cambium_profile / easiur_costs`): the parameters
//! checked all at once (`services::optimizer::emissions_data`, the rules the embedded service
//! applies), the request, and the answer as a typed object with the service's field names.

use pyo3::prelude::*;

use super::client::PyTransport;
use super::convert::raw_value;
use super::pending::PyPendingCall;
use crate::error::Error;
use crate::services::optimizer::emissions_data::{
    fetch_avert_profile, fetch_cambium_profile, fetch_easiur_costs, AvertProfile, AvertQuery, CambiumProfile, CambiumQuery, EasiurCosts, EasiurQuery,
};
use crate::services::raw::RawValue;

/// AVERT's hourly grid emissions factors (lb/kWh) of the site's region, aligned to the weekdays
/// of the load year.
#[pyclass(module = "sunflux._core", frozen, name = "AvertEmissionsProfile", get_all)]
pub struct PyAvertEmissionsProfile {
    avert_region_abbr: String,
    avert_region: String,
    avert_meters_to_region: f64,
    units: String,
    description: String,
    #[pyo3(name = "emissions_factor_series_lb_CO2_per_kwh")]
    co2: Vec<f64>,
    #[pyo3(name = "emissions_factor_series_lb_NOx_per_kwh")]
    nox: Vec<f64>,
    #[pyo3(name = "emissions_factor_series_lb_SO2_per_kwh")]
    so2: Vec<f64>,
    #[pyo3(name = "emissions_factor_series_lb_PM25_per_kwh")]
    pm25: Vec<f64>,
    data_source: Option<String>,
}

impl From<AvertProfile> for PyAvertEmissionsProfile {
    fn from(p: AvertProfile) -> Self {
        PyAvertEmissionsProfile {
            avert_region_abbr: p.avert_region_abbr,
            avert_region: p.avert_region,
            avert_meters_to_region: p.avert_meters_to_region,
            units: p.units,
            description: p.description,
            co2: p.co2_lb_per_kwh,
            nox: p.nox_lb_per_kwh,
            so2: p.so2_lb_per_kwh,
            pm25: p.pm25_lb_per_kwh,
            data_source: p.data_source,
        }
    }
}

#[pymethods]
impl PyAvertEmissionsProfile {
    fn __repr__(&self) -> String {
        format!("AvertEmissionsProfile(avert_region={:?}, hours={})", self.avert_region, self.co2.len())
    }
}

/// Cambium's levelized hourly CO2 factor (lb/kWh) or clean-energy fraction of the site's region.
#[pyclass(module = "sunflux._core", frozen, name = "CambiumProfile", get_all)]
pub struct PyCambiumProfile {
    location: String,
    metric_col: String,
    units: String,
    description: String,
    data_series: Vec<f64>,
    data_source: Option<String>,
}

impl From<CambiumProfile> for PyCambiumProfile {
    fn from(p: CambiumProfile) -> Self {
        PyCambiumProfile { location: p.location, metric_col: p.metric_col, units: p.units, description: p.description, data_series: p.data_series, data_source: p.data_source }
    }
}

#[pymethods]
impl PyCambiumProfile {
    fn __repr__(&self) -> String {
        format!("CambiumProfile(location={:?}, metric_col={:?}, hours={})", self.location, self.metric_col, self.data_series.len())
    }
}

/// EASIUR's health costs of emissions at the site ($/metric ton) and their nominal escalation.
#[pyclass(module = "sunflux._core", frozen, name = "EasiurCosts", get_all)]
#[allow(non_snake_case, reason = "the service's field names")]
pub struct PyEasiurCosts {
    NOx_grid_cost_per_tonne: f64,
    SO2_grid_cost_per_tonne: f64,
    PM25_grid_cost_per_tonne: f64,
    NOx_onsite_fuelburn_cost_per_tonne: f64,
    SO2_onsite_fuelburn_cost_per_tonne: f64,
    PM25_onsite_fuelburn_cost_per_tonne: f64,
    NOx_cost_escalation_rate_fraction: f64,
    SO2_cost_escalation_rate_fraction: f64,
    PM25_cost_escalation_rate_fraction: f64,
    units_costs: String,
    units_escalation: String,
    data_source: Option<String>,
}

impl From<EasiurCosts> for PyEasiurCosts {
    fn from(c: EasiurCosts) -> Self {
        PyEasiurCosts {
            NOx_grid_cost_per_tonne: c.NOx_grid_cost_per_tonne,
            SO2_grid_cost_per_tonne: c.SO2_grid_cost_per_tonne,
            PM25_grid_cost_per_tonne: c.PM25_grid_cost_per_tonne,
            NOx_onsite_fuelburn_cost_per_tonne: c.NOx_onsite_fuelburn_cost_per_tonne,
            SO2_onsite_fuelburn_cost_per_tonne: c.SO2_onsite_fuelburn_cost_per_tonne,
            PM25_onsite_fuelburn_cost_per_tonne: c.PM25_onsite_fuelburn_cost_per_tonne,
            NOx_cost_escalation_rate_fraction: c.NOx_cost_escalation_rate_fraction,
            SO2_cost_escalation_rate_fraction: c.SO2_cost_escalation_rate_fraction,
            PM25_cost_escalation_rate_fraction: c.PM25_cost_escalation_rate_fraction,
            units_costs: c.units_costs,
            units_escalation: c.units_escalation,
            data_source: c.data_source,
        }
    }
}

#[pymethods]
impl PyEasiurCosts {
    fn __repr__(&self) -> String {
        format!(
            "EasiurCosts(NOx_grid_cost_per_tonne={}, SO2_grid_cost_per_tonne={}, PM25_grid_cost_per_tonne={})",
            self.NOx_grid_cost_per_tonne, self.SO2_grid_cost_per_tonne, self.PM25_grid_cost_per_tonne
        )
    }
}

fn given<'a>(pairs: &[(&'a str, Option<&Bound<'_, PyAny>>)]) -> Vec<(&'a str, RawValue)> {
    pairs.iter().map(|(name, value)| (*name, raw_value(*value))).collect()
}

/// Validates every parameter at once and asks the service for the site's AVERT profile.
///
/// Returns a `PyPendingCall` of `PyAvertEmissionsProfile`.
#[pyfunction]
#[pyo3(signature = (client, latitude, longitude, load_year, trace=false))]
pub fn optimizer_avert_emissions_profile(
    client: &PyTransport,
    latitude: &Bound<'_, PyAny>,
    longitude: &Bound<'_, PyAny>,
    load_year: &Bound<'_, PyAny>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let given = given(&[("latitude", Some(latitude)), ("longitude", Some(longitude)), ("load_year", Some(load_year))]);
    let query = AvertQuery::validate(&given).map_err(|problems| client.error(Error::Parameter(problems)))?;
    let handle = client.handle(trace);
    Ok(client.pending(async move { fetch_avert_profile(&handle, &query).await.map(PyAvertEmissionsProfile::from) }))
}

/// Validates every parameter at once and asks the service for a Cambium profile.
///
/// Returns a `PyPendingCall` of `PyCambiumProfile`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (client, latitude, longitude, scenario, location_type, start_year, lifetime, metric_col, grid_level, load_year, trace=false))]
pub fn optimizer_cambium_profile(
    client: &PyTransport,
    latitude: &Bound<'_, PyAny>,
    longitude: &Bound<'_, PyAny>,
    scenario: &Bound<'_, PyAny>,
    location_type: &Bound<'_, PyAny>,
    start_year: &Bound<'_, PyAny>,
    lifetime: &Bound<'_, PyAny>,
    metric_col: &Bound<'_, PyAny>,
    grid_level: &Bound<'_, PyAny>,
    load_year: &Bound<'_, PyAny>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let given = given(&[
        ("scenario", Some(scenario)),
        ("location_type", Some(location_type)),
        ("latitude", Some(latitude)),
        ("longitude", Some(longitude)),
        ("start_year", Some(start_year)),
        ("lifetime", Some(lifetime)),
        ("metric_col", Some(metric_col)),
        ("grid_level", Some(grid_level)),
        ("load_year", Some(load_year)),
    ]);
    let query = CambiumQuery::validate(&given).map_err(|problems| client.error(Error::Parameter(problems)))?;
    let handle = client.handle(trace);
    Ok(client.pending(async move { fetch_cambium_profile(&handle, &query).await.map(PyCambiumProfile::from) }))
}

/// Validates every parameter at once and asks the service for the site's EASIUR health costs.
///
/// Returns a `PyPendingCall` of `PyEasiurCosts`.
#[pyfunction]
#[pyo3(signature = (client, latitude, longitude, inflation, trace=false))]
pub fn optimizer_easiur_costs(
    client: &PyTransport,
    latitude: &Bound<'_, PyAny>,
    longitude: &Bound<'_, PyAny>,
    inflation: &Bound<'_, PyAny>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let given = given(&[("latitude", Some(latitude)), ("longitude", Some(longitude)), ("inflation", Some(inflation))]);
    let query = EasiurQuery::validate(&given).map_err(|problems| client.error(Error::Parameter(problems)))?;
    let handle = client.handle(trace);
    Ok(client.pending(async move { fetch_easiur_costs(&handle, &query).await.map(PyEasiurCosts::from) }))
}

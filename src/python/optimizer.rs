//! Bindings of the optimizer: the service's load endpoint (`client.optimizer.simulated_load`:
//! validation with the rules the embedded endpoint uses, the request, and the load as Arrow),
//! the outage survival simulation of given series (`sunflux.optimizer.simulate_outages`; a
//! result's own is `PyResultDocument.simulate_outages`), and the parabolic-trough stand-in for
//! the CST production factor (`sunflux.optimizer.trough_production_factor`).

use arrow_array::RecordBatch;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::client::PyTransport;
use super::pending::PyPendingCall;
use super::convert::{arrow_table, raw_value};
use super::errors::to_pyerr;
use super::pvwatts::PyWeather;
use crate::error::Error;
use crate::optimizer::model::cst_trough::{design_of_cst, production_factor, TroughDesign, TroughSite, TroughWeather};
use crate::optimizer::outage_inputs::fuel_curve;
use crate::optimizer::outage_sim::{self, OutageSimInputs};
use crate::services::simulated_load::request::{fetch_simulated_load, LoadProfile};
use crate::services::simulated_load::{validate_simulated_load, RawSimulatedLoad};

/// A load profile with its summary; the Python side turns `table()` into a polars frame.
#[pyclass(module = "sunflux._core", frozen, name = "SimulatedLoad")]
pub struct PySimulatedLoad {
    batch: RecordBatch,
    /// `electric`, `heating`, `cooling`, `space_heating`, `domestic_hot_water` or `process_heat`.
    #[pyo3(get)]
    load_type: &'static str,
    /// The series' unit as its column names it: `kw`, `mmbtu_per_hour`, `ton` or `fraction`.
    #[pyo3(get)]
    unit: &'static str,
    /// The year's energy (kWh, MMBtu of fuel, ton-hours; the mean for a fraction).
    #[pyo3(get)]
    annual: f64,
    /// The largest value of the load series, in its unit.
    #[pyo3(get)]
    max: f64,
    #[pyo3(get)]
    year: i32,
    #[pyo3(get)]
    time_steps_per_hour: usize,
}

#[pymethods]
impl PySimulatedLoad {
    /// `timestamp` (naive, from 1 January of `year`) and `load_<unit>` (with `space_…` and `dhw_…`
    /// for `heating`, the `cooling_…` defaults for an electric load asked with cooling buildings).
    fn table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        arrow_table(py, vec![self.batch.clone()], self.batch.schema())
    }
}

impl From<LoadProfile> for PySimulatedLoad {
    fn from(load: LoadProfile) -> Self {
        PySimulatedLoad {
            batch: load.batch,
            load_type: load.load_type.name(),
            unit: load.unit,
            annual: load.annual,
            max: load.max,
            year: load.year,
            time_steps_per_hour: load.time_steps_per_hour,
        }
    }
}

/// Validates every parameter at once, asks the service for the load and parses it.
///
/// Returns a `PyPendingCall` of `PySimulatedLoad`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (client, latitude, longitude, doe_reference_names, percent_shares, annual_kwh=None, monthly_totals_kwh=Vec::new(), year=None, time_steps_per_hour=None, trace=false, load_type=None, annual_mmbtu=None, monthly_mmbtu=Vec::new(), annual_tonhour=None, monthly_tonhour=Vec::new(), annual_fraction=None, monthly_fraction=Vec::new(), addressable_load_fraction=Vec::new(), boiler_efficiency=None, chiller_cop=None, cooling_doe_ref_names=Vec::new(), cooling_pct_shares=Vec::new()))]
pub fn optimizer_simulated_load(
    client: &PyTransport,
    latitude: &Bound<'_, PyAny>,
    longitude: &Bound<'_, PyAny>,
    doe_reference_names: Vec<Bound<'_, PyAny>>,
    percent_shares: Vec<Bound<'_, PyAny>>,
    annual_kwh: Option<&Bound<'_, PyAny>>,
    monthly_totals_kwh: Vec<Bound<'_, PyAny>>,
    year: Option<&Bound<'_, PyAny>>,
    time_steps_per_hour: Option<&Bound<'_, PyAny>>,
    trace: bool,
    load_type: Option<&Bound<'_, PyAny>>,
    annual_mmbtu: Option<&Bound<'_, PyAny>>,
    monthly_mmbtu: Vec<Bound<'_, PyAny>>,
    annual_tonhour: Option<&Bound<'_, PyAny>>,
    monthly_tonhour: Vec<Bound<'_, PyAny>>,
    annual_fraction: Option<&Bound<'_, PyAny>>,
    monthly_fraction: Vec<Bound<'_, PyAny>>,
    addressable_load_fraction: Vec<Bound<'_, PyAny>>,
    boiler_efficiency: Option<&Bound<'_, PyAny>>,
    chiller_cop: Option<&Bound<'_, PyAny>>,
    cooling_doe_ref_names: Vec<Bound<'_, PyAny>>,
    cooling_pct_shares: Vec<Bound<'_, PyAny>>,
) -> PyResult<PyPendingCall> {
    let raws = |values: &[Bound<'_, PyAny>]| values.iter().map(|v| raw_value(Some(v))).collect::<Vec<_>>();
    let raw = RawSimulatedLoad {
        latitude: raw_value(Some(latitude)),
        longitude: raw_value(Some(longitude)),
        doe_reference_names: raws(&doe_reference_names),
        percent_shares: raws(&percent_shares),
        annual_kwh: raw_value(annual_kwh),
        monthly_totals_kwh: raws(&monthly_totals_kwh),
        load_type: raw_value(load_type),
        annual_mmbtu: raw_value(annual_mmbtu),
        monthly_mmbtu: raws(&monthly_mmbtu),
        annual_tonhour: raw_value(annual_tonhour),
        monthly_tonhour: raws(&monthly_tonhour),
        annual_fraction: raw_value(annual_fraction),
        monthly_fraction: raws(&monthly_fraction),
        addressable_load_fraction: raws(&addressable_load_fraction),
        boiler_efficiency: raw_value(boiler_efficiency),
        chiller_cop: raw_value(chiller_cop),
        year: raw_value(year),
        time_steps_per_hour: raw_value(time_steps_per_hour),
        cooling_doe_ref_names: raws(&cooling_doe_ref_names),
        cooling_pct_shares: raws(&cooling_pct_shares),
    };
    let query = validate_simulated_load(&raw).map_err(|problems| to_pyerr(Error::Parameter(problems)))?;
    let load = fetch_simulated_load(client.handle(trace), query);
    Ok(client.pending(async move { load.await.map(PySimulatedLoad::from) }))
}

/// Hours survived by an outage starting at every time step, and their summary, as a dict with
/// the service's `resilience_stats` keys. Runs without the GIL.
#[pyfunction]
#[pyo3(signature = (critical_load_kw, renewable_kw, battery_kwh, battery_kw, initial_soc_fraction, battery_roundtrip_efficiency, generator_kw, fuel_available_gal, generator_efficiency_full_load, generator_efficiency_half_load, fuel_kwh_per_gallon, generator_min_turndown_fraction))]
#[allow(clippy::too_many_arguments)]
pub fn simulate_outages<'py>(
    py: Python<'py>,
    critical_load_kw: Vec<f64>,
    renewable_kw: Vec<f64>,
    battery_kwh: f64,
    battery_kw: f64,
    initial_soc_fraction: Vec<f64>,
    battery_roundtrip_efficiency: f64,
    generator_kw: f64,
    fuel_available_gal: f64,
    generator_efficiency_full_load: f64,
    generator_efficiency_half_load: f64,
    fuel_kwh_per_gallon: f64,
    generator_min_turndown_fraction: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let (fuel_slope_gal_per_kwh, fuel_intercept_gal_per_hour) =
        fuel_curve(generator_efficiency_full_load, generator_efficiency_half_load, fuel_kwh_per_gallon).map_err(parameter_error)?;
    let inputs = OutageSimInputs {
        critical_load_kw,
        renewable_kw,
        battery_kwh,
        battery_kw,
        initial_soc_fraction,
        battery_roundtrip_efficiency,
        generator_kw,
        fuel_available_gal,
        fuel_intercept_gal_per_hour,
        fuel_slope_gal_per_kwh,
        generator_min_turndown_fraction,
    };
    survival(py, &inputs)
}

/// The hourly CST production factor (kW thermal per kW rated) of the parabolic-trough stand-in
/// (`optimizer::model::cst_trough`) on an hourly weather year at its own site; `cst_json` is the
/// CST section as JSON (its temperatures, `SSC_Inputs` and tech type), None for the service's
/// defaults. Runs without the GIL.
#[pyfunction]
#[pyo3(signature = (weather, cst_json=None))]
pub fn optimizer_trough_production_factor(py: Python<'_>, weather: &PyWeather, cst_json: Option<&str>) -> PyResult<Vec<f64>> {
    let design = match cst_json {
        None => TroughDesign::default(),
        Some(text) => {
            let section: serde_json::Value = serde_json::from_str(text).map_err(|e| parameter_error(format!("CST: {e}")))?;
            let map = section.as_object().ok_or_else(|| parameter_error("CST must be a mapping of its fields".into()))?;
            design_of_cst(map).map_err(parameter_error)?
        }
    };
    let year = &weather.weather;
    if year.steps_per_hour != 1 {
        return Err(parameter_error(format!("the weather has {} records per hour; the trough stand-in takes hourly weather", year.steps_per_hour)));
    }
    let meta = &year.meta;
    let site = TroughSite { latitude: meta.lat, longitude: meta.lon, tz: meta.tz, elevation_m: meta.elevation };
    let hourly = TroughWeather {
        year: &year.year,
        month: &year.month,
        day: &year.day,
        hour: &year.hour,
        dni: &year.dn,
        dry_bulb_c: &year.tdry,
        wind_m_per_s: &year.wspd,
    };
    py.detach(|| production_factor(&hourly, &site, &design)).map_err(parameter_error)
}

fn parameter_error(problem: String) -> PyErr {
    to_pyerr(Error::Parameter(vec![problem]))
}

/// Runs the simulation without the GIL; the dict of the service's `resilience_stats` keys.
pub(super) fn survival<'py>(py: Python<'py>, inputs: &OutageSimInputs) -> PyResult<Bound<'py, PyDict>> {
    let survival = py.detach(|| outage_sim::simulate_outages(inputs)).map_err(|problem| parameter_error(problem.0))?;
    let result = PyDict::new(py);
    result.set_item("resilience_by_time_step", survival.hours_by_start)?;
    result.set_item("resilience_hours_min", survival.hours_min)?;
    result.set_item("resilience_hours_max", survival.hours_max)?;
    result.set_item("resilience_hours_avg", survival.hours_avg)?;
    result.set_item("outage_durations", survival.outage_durations)?;
    result.set_item("probs_of_surviving", survival.probs_of_surviving)?;
    Ok(result)
}

//! Bindings of the PV estimator (v6 here, v8 in the `v8` child) and of the estimate result shared
//! with the local engine.

pub mod v8;

use std::future::Future;

use arrow_array::RecordBatch;
use pyo3::prelude::*;

use super::client::PyTransport;
use super::pending::PyPendingCall;
use super::convert::{arrow_table, json_to_py, raw_value};
use super::errors::to_pyerr;
use crate::error::{Error, Result};
use crate::services::missing::parse_failure;
use crate::formats::Format;
use crate::services::pv_estimator::request::request_estimate;
use crate::services::pv_estimator::{consecutive_hours_utc_us, hourly_batch, monthly_batch, parse_estimate, validate_estimate, EstimateParams, PvEstimate, RawEstimate, RawSystem};
use crate::calendar::NOMINAL_YEAR;
use crate::transport::Endpoint;

/// A PV estimate with its tables already in Arrow form; the Python `PvEstimate` wraps it.
#[pyclass(module = "sunflux._core", frozen, name = "PvEstimate")]
pub struct PyPvEstimate {
    estimate: PvEstimate,
    monthly: RecordBatch,
    hourly: Option<RecordBatch>,
    raw: String,
}

impl PyPvEstimate {
    /// Moves the hourly series into Arrow buffers (no copy) and keeps the rest. `utc_us` gives
    /// the start of each record's interval (UTC µs); `None` stamps consecutive hours of the
    /// nominal year in the station's standard time.
    pub fn new(mut estimate: PvEstimate, utc_us: Option<Vec<i64>>, raw: String) -> Result<Self> {
        let monthly = monthly_batch(&estimate.monthly).map_err(|e| Error::Parse(e.to_string()))?;
        let tz_hours = estimate.tz_hours();
        let hourly = match estimate.hourly.take() {
            Some(hourly) => {
                let stamps = utc_us.unwrap_or_else(|| consecutive_hours_utc_us(NOMINAL_YEAR, hourly.series.ac.len(), tz_hours));
                Some(hourly_batch(hourly, tz_hours, stamps).map_err(|e| Error::Parse(e.to_string()))?)
            }
            None => None,
        };
        Ok(PyPvEstimate { estimate, monthly, hourly, raw })
    }
}

#[pymethods]
impl PyPvEstimate {
    #[getter]
    fn ac_annual(&self) -> f64 {
        self.estimate.ac_annual
    }

    #[getter]
    fn solrad_annual(&self) -> f64 {
        self.estimate.solrad_annual
    }

    #[getter]
    fn capacity_factor(&self) -> f64 {
        self.estimate.capacity_factor
    }

    #[getter]
    fn version(&self) -> Option<String> {
        self.estimate.version.clone()
    }

    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.estimate.warnings.clone()
    }

    #[getter]
    fn errors(&self) -> Vec<String> {
        self.estimate.errors.clone()
    }

    #[getter]
    fn raw(&self) -> &str {
        &self.raw
    }

    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &serde_json::Value::Object(self.estimate.inputs.clone()))
    }

    fn station_info<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.estimate.station_info.as_ref().map(|s| json_to_py(py, &s.to_value())).transpose()
    }

    fn ssc_info<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.estimate
            .ssc_info
            .as_ref()
            .map(|s| json_to_py(py, &serde_json::json!({"version": s.version, "build": s.build, "module": s.module})))
            .transpose()
    }

    /// Month 1–12 with poa (kWh/m²), dc (kWhdc), ac (kWhac), solrad (kWh/m²/day).
    fn monthly<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        arrow_table(py, vec![self.monthly.clone()], self.monthly.schema())
    }

    /// The hourly table, or None for a monthly estimate.
    fn hourly<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.hourly.as_ref().map(|batch| arrow_table(py, vec![batch.clone()], batch.schema())).transpose()
    }
}

/// Parses an estimator body (json, JSONP or xml) that came from elsewhere.
#[pyfunction]
pub fn parse_pv_estimate(body: &[u8], format: &str) -> PyResult<PyPvEstimate> {
    let format = Format::from_suffix(format)
        .filter(|f| *f != Format::Csv)
        .ok_or_else(|| to_pyerr(Error::Parameter(vec![format!("format must be \"json\" or \"xml\" (got {format:?})")])))?;
    let estimate = parse_estimate(body, format).map_err(|e| to_pyerr(parse_failure(body, &e, str::to_owned)))?;
    PyPvEstimate::new(estimate, None, String::from_utf8_lossy(body).into_owned()).map_err(to_pyerr)
}

/// The estimator arguments as given, in `pv_estimate`'s order (the v6 and v8 bindings share it).
pub(crate) fn raw_estimate(args: &[Option<&Bound<'_, PyAny>>; 17]) -> RawEstimate {
    let [system_capacity, module_type, losses, array_type, tilt, azimuth, lat, lon, file_id, dataset, radius, timeframe, dc_ac_ratio, gcr, inv_eff, format, callback] =
        args.map(raw_value);
    RawEstimate {
        system: RawSystem { system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio, gcr, inv_eff },
        lat,
        lon,
        file_id,
        dataset,
        radius,
        timeframe,
        callback,
        format,
    }
}

fn params(args: &[Option<&Bound<'_, PyAny>>; 17]) -> Result<EstimateParams> {
    validate_estimate(&raw_estimate(args)).map_err(Error::Parameter)
}

/// The estimator call (v6 or v8) as the future a binding runs.
pub(crate) fn estimate_call(
    client: &PyTransport,
    endpoint: Endpoint,
    query: Vec<(String, String)>,
    format: Format,
    trace: bool,
) -> impl Future<Output = Result<PyPvEstimate>> + Send + 'static {
    let request = request_estimate(client.handle(trace), endpoint, query, format);
    async move {
        let (estimate, raw) = request.await?;
        PyPvEstimate::new(estimate, None, raw)
    }
}

/// Validates (every problem at once), estimates and parses.
///
/// Returns a `PyPendingCall` of `PyPvEstimate`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (client, system_capacity, module_type, losses, array_type, tilt, azimuth, lat=None, lon=None, file_id=None, dataset=None, radius=None, timeframe=None, dc_ac_ratio=None, gcr=None, inv_eff=None, format=None, callback=None, trace=false))]
pub fn pv_estimate(
    client: &PyTransport,
    system_capacity: &Bound<'_, PyAny>,
    module_type: &Bound<'_, PyAny>,
    losses: &Bound<'_, PyAny>,
    array_type: &Bound<'_, PyAny>,
    tilt: &Bound<'_, PyAny>,
    azimuth: &Bound<'_, PyAny>,
    lat: Option<&Bound<'_, PyAny>>,
    lon: Option<&Bound<'_, PyAny>>,
    file_id: Option<&Bound<'_, PyAny>>,
    dataset: Option<&Bound<'_, PyAny>>,
    radius: Option<&Bound<'_, PyAny>>,
    timeframe: Option<&Bound<'_, PyAny>>,
    dc_ac_ratio: Option<&Bound<'_, PyAny>>,
    gcr: Option<&Bound<'_, PyAny>>,
    inv_eff: Option<&Bound<'_, PyAny>>,
    format: Option<&Bound<'_, PyAny>>,
    callback: Option<&Bound<'_, PyAny>>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let params = params(&[
        Some(system_capacity), Some(module_type), Some(losses), Some(array_type), Some(tilt), Some(azimuth), lat, lon, file_id, dataset,
        radius, timeframe, dc_ac_ratio, gcr, inv_eff, format, callback,
    ])
    .map_err(|e| client.error(e))?;
    let query = params.query_pairs().into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    let endpoint = Endpoint::PvEstimator { format: params.format.suffix().to_owned() };
    Ok(client.pending(estimate_call(client, endpoint, query, params.format, trace)))
}

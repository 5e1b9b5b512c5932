//! Binding of the WIND Toolkit's SRW download (`client.optimizer.wind_resource`): validation
//! with the rules the embedded endpoint uses, the request, and the resource as Arrow with its
//! header.

use arrow_array::RecordBatch;
use pyo3::prelude::*;

use super::client::PyTransport;
use super::convert::{arrow_table, raw_value};
use super::errors::to_pyerr;
use super::pending::PyPendingCall;
use crate::error::Error;
use crate::services::wind_toolkit::request::fetch_wind_resource;
use crate::services::wind_toolkit::srw::WindResource;
use crate::services::wind_toolkit::{validate_wind_toolkit, RawWindToolkit};

/// A site-year of wind resource; the Python side turns `table()` into a polars frame.
#[pyclass(module = "sunflux._core", frozen, name = "WindResource")]
pub struct PyWindResource {
    batch: RecordBatch,
    #[pyo3(get)]
    location_id: String,
    #[pyo3(get)]
    description: String,
    #[pyo3(get)]
    year: Option<i32>,
    #[pyo3(get)]
    latitude: Option<f64>,
    #[pyo3(get)]
    longitude: Option<f64>,
    #[pyo3(get)]
    heights_m: Vec<f64>,
}

#[pymethods]
impl PyWindResource {
    /// `temperature_c`, `pressure_atm`, `wind_speed_m_per_s`, `wind_direction_deg`.
    fn table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        arrow_table(py, vec![self.batch.clone()], self.batch.schema())
    }
}

fn typed(resource: &WindResource) -> Result<PyWindResource, Error> {
    let batch = resource.batch().map_err(|e| Error::Parse(e.to_string()))?;
    let mut heights_m: Vec<f64> = resource.columns.iter().map(|c| c.height_m).collect();
    heights_m.dedup();
    let header = &resource.header;
    Ok(PyWindResource {
        batch,
        location_id: header.location_id.clone(),
        description: header.description.clone(),
        year: header.year,
        latitude: header.latitude,
        longitude: header.longitude,
        heights_m,
    })
}

/// Validates every parameter at once, asks the WIND Toolkit for the site-year and parses it.
///
/// Returns a `PyPendingCall` of `PyWindResource`.
#[pyfunction]
#[pyo3(signature = (client, lat, lon, hubheight=None, year=None, trace=false))]
pub fn wind_toolkit_srw(
    client: &PyTransport,
    lat: &Bound<'_, PyAny>,
    lon: &Bound<'_, PyAny>,
    hubheight: Option<&Bound<'_, PyAny>>,
    year: Option<&Bound<'_, PyAny>>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let raw = RawWindToolkit { lat: raw_value(Some(lat)), lon: raw_value(Some(lon)), hubheight: raw_value(hubheight), year: raw_value(year) };
    let query = validate_wind_toolkit(&raw).map_err(|problems| to_pyerr(Error::Parameter(problems)))?;
    let handle = client.handle(trace);
    Ok(client.pending(async move { fetch_wind_resource(&handle, &query).await.and_then(|resource| typed(&resource)) }))
}

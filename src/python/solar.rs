//! Bindings of the solar dataset query: validate, send, parse, and hand the stations over as
//! Python values and an Arrow table.

use pyo3::prelude::*;

use super::client::PyTransport;
use super::pending::PyPendingCall;
use super::convert::{arrow_table, json_to_py, raw_value};
use crate::error::{Error, Result};
use crate::services::missing::parse_failure;
use crate::services::solar::request::query_stations;
use crate::services::solar::{parse_data_query, stations_to_record_batch, validate_data_query, DataQueryParams, RawDataQuery, Station, StationQuery};

/// A parsed dataset query answer; the Python `StationQuery` wraps it.
#[pyclass(module = "sunflux._core", frozen, name = "StationQuery")]
pub struct PyStationQuery {
    query: StationQuery,
    raw: String,
}

fn station_dict<'py>(py: Python<'py>, station: &Station) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::json!({
        "id": station.id,
        "lat": station.lat,
        "lon": station.lon,
        "city": station.city,
        "state": station.state,
        "timezone": station.timezone,
        "elevation": station.elevation,
        "distance": station.distance,
        "resolution": station.resolution,
        "country": station.country,
        "weather_data_source": station.weather_data_source,
        "dataset": station.dataset,
        "query_version": station.query_version.as_str(),
    });
    json_to_py(py, &value)
}

#[pymethods]
impl PyStationQuery {
    /// `[(dataset code, station dict or None)]` in response order.
    fn closest<'py>(&self, py: Python<'py>) -> PyResult<Vec<(String, Option<Bound<'py, PyAny>>)>> {
        self.query
            .closest
            .iter()
            .map(|(code, station)| Ok((code.clone(), station.as_ref().map(|s| station_dict(py, s)).transpose()?)))
            .collect()
    }

    /// Every station within the radius (v1 with all=1), or None.
    fn all_stations<'py>(&self, py: Python<'py>) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
        self.query.all_stations.as_ref().map(|stations| stations.iter().map(|s| station_dict(py, s)).collect()).transpose()
    }

    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.query.warnings.clone()
    }

    #[getter]
    fn errors(&self) -> Vec<String> {
        self.query.errors.clone()
    }

    #[getter]
    fn version(&self) -> Option<String> {
        self.query.version.clone()
    }

    #[getter]
    fn query_version(&self) -> &'static str {
        self.query.query_version.as_str()
    }

    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &serde_json::Value::Object(self.query.inputs.clone()))
    }

    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &serde_json::Value::Object(self.query.metadata.clone()))
    }

    /// The response body as received, with the API key redacted.
    #[getter]
    fn raw(&self) -> &str {
        &self.raw
    }

    /// One row per station, typed columns, as an Arrow stream.
    fn to_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let batch = stations_to_record_batch(&self.query).map_err(|e| super::errors::to_pyerr(Error::Parse(e.to_string())))?;
        let schema = batch.schema();
        arrow_table(py, vec![batch], schema)
    }
}

/// Parses a dataset query body (the benchmark and tests call this without HTTP).
#[pyfunction]
pub fn parse_solar_data_query(
    body: &[u8],
    lat: &Bound<'_, PyAny>,
    lon: &Bound<'_, PyAny>,
    radius: &Bound<'_, PyAny>,
    all: &Bound<'_, PyAny>,
    version: &Bound<'_, PyAny>,
    format: &Bound<'_, PyAny>,
) -> PyResult<PyStationQuery> {
    let params = params(Some(lat), Some(lon), Some(radius), Some(all), Some(version), Some(format)).map_err(super::errors::to_pyerr)?;
    let query = parse_data_query(body, &params).map_err(|e| super::errors::to_pyerr(parse_failure(body, &e.to_string(), str::to_owned)))?;
    Ok(PyStationQuery { query, raw: String::from_utf8_lossy(body).into_owned() })
}

fn params(
    lat: Option<&Bound<'_, PyAny>>,
    lon: Option<&Bound<'_, PyAny>>,
    radius: Option<&Bound<'_, PyAny>>,
    all: Option<&Bound<'_, PyAny>>,
    version: Option<&Bound<'_, PyAny>>,
    format: Option<&Bound<'_, PyAny>>,
) -> Result<DataQueryParams> {
    let raw = RawDataQuery {
        lat: raw_value(lat),
        lon: raw_value(lon),
        radius: raw_value(radius),
        all: raw_value(all),
        version: raw_value(version),
        format: raw_value(format),
    };
    validate_data_query(&raw).map_err(Error::Parameter)
}

/// Validates (every problem at once), queries and parses.
///
/// Returns a `PyPendingCall` of `PyStationQuery`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (client, lat, lon, radius, all, version, format, trace=false))]
pub fn solar_data_query(
    client: &PyTransport,
    lat: &Bound<'_, PyAny>,
    lon: &Bound<'_, PyAny>,
    radius: &Bound<'_, PyAny>,
    all: &Bound<'_, PyAny>,
    version: &Bound<'_, PyAny>,
    format: &Bound<'_, PyAny>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let params = params(Some(lat), Some(lon), Some(radius), Some(all), Some(version), Some(format)).map_err(|e| client.error(e))?;
    let query = query_stations(client.handle(trace), params);
    Ok(client.pending(async move { query.await.map(|(query, raw)| PyStationQuery { query, raw }) }))
}

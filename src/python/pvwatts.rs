//! Bindings of the local PVWatts v5 engine: weather years (files, bytes or Arrow tables) and
//! simulations, one or many in parallel with the GIL released.

use std::sync::{Arc, OnceLock};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use pyo3::prelude::*;
use pyo3_arrow::PyTable;

use super::convert::{arrow_table, raw_value};
use super::errors::to_pyerr;
use super::pv::CorePvEstimate;
use crate::error::Error;
use crate::pvwatts::weather::Series;
use crate::pvwatts::{parse_weather, read_weather_file, simulate_many, simulate_with_sun_path, SiteMeta, SunPath, Weather, WeatherColumns};
use crate::services::pv_estimator::{record_hours_ms, stamp_year, validate_system, NOMINAL_YEAR, validate_timeframe, PvEstimate, RawSystem, StationInfo, Timeframe};

/// A weather year for the engine; the Python `Weather` wraps it.
#[pyclass(module = "sunflux._core", frozen, name = "CoreWeather")]
pub struct CoreWeather {
    pub weather: Arc<Weather>,
    /// The sun's path over this year, computed on the first simulation and reused by the next
    /// (it depends only on the site and the calendar; about half the work of one simulation).
    sun_path: OnceLock<Arc<SunPath>>,
}

impl CoreWeather {
    pub fn new(weather: Arc<Weather>) -> Self {
        CoreWeather { weather, sun_path: OnceLock::new() }
    }

    pub(crate) fn sun_path(&self) -> Arc<SunPath> {
        self.sun_path.get_or_init(|| Arc::new(SunPath::compute(&self.weather))).clone()
    }
}

fn weather_error(error: crate::pvwatts::WeatherError) -> PyErr {
    to_pyerr(Error::Parameter(vec![error.to_string()]))
}

#[pymethods]
impl CoreWeather {
    /// Site metadata: lat, lon (degrees), tz (hours), elevation (m), city, state, country, location_id, source.
    fn meta(&self) -> (f64, f64, f64, f64, String, String, String, String, String) {
        let m = &self.weather.meta;
        (m.lat, m.lon, m.tz, m.elevation, m.city.clone(), m.state.clone(), m.country.clone(), m.location_id.clone(), m.source.clone())
    }

    fn __len__(&self) -> usize {
        self.weather.len()
    }

    #[getter]
    fn has_leap_day(&self) -> bool {
        self.weather.has_leap_day()
    }

    #[getter]
    fn instantaneous(&self) -> bool {
        self.weather.instantaneous
    }

    /// The columns: year, month, day, hour, minute, gh, dn, df (W/m²), tdry (°C), wspd (m/s) and
    /// pressure (mbar) / albedo / snow_depth (cm) when present.
    fn to_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let w = &self.weather;
        let ints = |values: Vec<i64>| -> ArrayRef { Arc::new(Int64Array::from(values)) };
        let floats = |values: &Series| -> ArrayRef { Arc::new(Float64Array::new(values.clone(), None)) };
        let mut fields = Vec::new();
        let mut columns: Vec<ArrayRef> = Vec::new();
        for (name, column) in [
            ("year", ints(w.year.iter().map(|&v| i64::from(v)).collect())),
            ("month", ints(w.month.iter().map(|&v| i64::from(v)).collect())),
            ("day", ints(w.day.iter().map(|&v| i64::from(v)).collect())),
            ("hour", ints(w.hour.iter().map(|&v| i64::from(v)).collect())),
            ("minute", ints(w.minute.iter().map(|&v| i64::from(v)).collect())),
            ("gh", floats(&w.gh)),
            ("dn", floats(&w.dn)),
            ("df", floats(&w.df)),
            ("tdry", floats(&w.tdry)),
            ("wspd", floats(&w.wspd)),
        ] {
            fields.push(Field::new(name, column.data_type().clone(), false));
            columns.push(column);
        }
        for (name, optional) in [("pressure", &w.pressure), ("albedo", &w.albedo), ("snow_depth", &w.snow_depth)] {
            if let Some(values) = optional {
                fields.push(Field::new(name, DataType::Float64, false));
                columns.push(floats(values));
            }
        }
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(|e| to_pyerr(Error::Parse(e.to_string())))?;
        let schema = batch.schema();
        arrow_table(py, vec![batch], schema)
    }
}

/// Reads a TMY2, TMY3, SAM CSV or climate-download CSV file (GIL released).
#[pyfunction]
pub fn read_weather_path(py: Python<'_>, path: std::path::PathBuf) -> PyResult<CoreWeather> {
    let weather = py.detach(|| read_weather_file(&path)).map_err(weather_error)?;
    Ok(CoreWeather::new(Arc::new(weather)))
}

/// Reads weather from the bytes of one of those files; `name` is used in error messages.
#[pyfunction]
pub fn read_weather_bytes(py: Python<'_>, data: Vec<u8>, name: String) -> PyResult<CoreWeather> {
    let weather = py.detach(move || parse_weather(&data, &name)).map_err(weather_error)?;
    Ok(CoreWeather::new(Arc::new(weather)))
}

/// A float column of the table: the Arrow buffer itself when it is one float64 chunk without
/// nulls (no copy), otherwise a converted copy.
fn column_f64(batches: &[RecordBatch], name: &str) -> Result<Option<Series>, String> {
    if let [batch] = batches {
        if let Some(column) = batch.column_by_name(name) {
            if column.data_type() == &DataType::Float64 && column.null_count() == 0 {
                return Ok(Some(column.as_primitive::<Float64Type>().values().clone()));
            }
        }
    }
    let mut out = Vec::new();
    for batch in batches {
        let Some(column) = batch.column_by_name(name) else { return Ok(None) };
        match column.data_type() {
            DataType::Float64 => out.extend(column.as_primitive::<Float64Type>().iter().map(|v| v.unwrap_or(f64::NAN))),
            DataType::Int64 => out.extend(column.as_primitive::<Int64Type>().iter().map(|v| v.map_or(f64::NAN, |v| v as f64))),
            other => return Err(format!("column {name:?} must be float64 or int64 (got {other})")),
        }
    }
    Ok(Some(out.into()))
}

/// Builds a weather year from an Arrow table (polars, pyarrow or pandas) with canonical column
/// names (year, month, day, hour, [minute], gh, dn, df, tdry, wspd, [pressure], [albedo], [snow_depth]).
#[pyfunction]
#[pyo3(signature = (table, lat, lon, tz, elevation, name="table"))]
pub fn weather_from_table(table: PyTable, lat: f64, lon: f64, tz: f64, elevation: f64, name: &str) -> PyResult<CoreWeather> {
    let (batches, _) = table.into_inner();
    let fail = |message: String| to_pyerr(Error::Parameter(vec![format!("{name}: {message}")]));
    let required = |column: &str| -> PyResult<Series> {
        column_f64(&batches, column).map_err(fail)?.ok_or_else(|| fail(format!("column {column:?} is missing")))
    };
    let calendar = |column: &str| -> PyResult<Vec<u8>> { Ok(required(column)?.iter().map(|v| v.clamp(0.0, 255.0) as u8).collect()) };
    let minute = column_f64(&batches, "minute").map_err(fail)?.map(|values| values.iter().map(|v| v.clamp(0.0, 255.0) as u8).collect());
    let columns = WeatherColumns::<Series> {
        year: required("year")?.iter().map(|&v| v as i32).collect(),
        month: calendar("month")?,
        day: calendar("day")?,
        hour: calendar("hour")?,
        minute,
        gh: required("gh")?,
        dn: required("dn")?,
        df: required("df")?,
        tdry: required("tdry")?,
        wspd: required("wspd")?,
        pressure: column_f64(&batches, "pressure").map_err(fail)?,
        albedo: column_f64(&batches, "albedo").map_err(fail)?,
        snow_depth: column_f64(&batches, "snow_depth").map_err(fail)?,
    };
    let meta = SiteMeta { lat, lon, tz, elevation, source: name.to_owned(), ..SiteMeta::default() };
    let weather = Weather::from_columns(meta, columns).map_err(weather_error)?;
    Ok(CoreWeather::new(Arc::new(weather)))
}

fn system_from(args: [Option<&Bound<'_, PyAny>>; 9]) -> Result<crate::pvwatts::SystemParams, Vec<String>> {
    let [system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio, gcr, inv_eff] = args.map(raw_value);
    validate_system(&RawSystem { system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio, gcr, inv_eff })
}

pub(crate) fn local_station(weather: &Weather) -> StationInfo {
    let m = &weather.meta;
    StationInfo {
        lat: m.lat,
        lon: m.lon,
        elev: m.elevation,
        tz: m.tz,
        location: m.location_id.clone(),
        city: m.city.clone(),
        state: m.state.clone(),
        solar_resource_file: m.source.clone(),
        distance: None,
        weather_data_source: None,
    }
}

fn estimate_of(weather: &Weather, output: crate::pvwatts::PvOutput, timeframe: Timeframe) -> PyResult<CorePvEstimate> {
    let estimate = PvEstimate::from_simulation(output, timeframe, Some(local_station(weather)), serde_json::Map::new());
    core_estimate(weather, estimate, timeframe)
}

/// A local estimate with hourly stamps from the weather's own calendar.
pub(crate) fn core_estimate(weather: &Weather, estimate: PvEstimate, timeframe: Timeframe) -> PyResult<CorePvEstimate> {
    let stamps = (timeframe == Timeframe::Hourly).then(|| {
        let year = stamp_year(weather.year.first().copied().unwrap_or(NOMINAL_YEAR), weather.has_leap_day());
        record_hours_ms(year, &weather.month, &weather.day, &weather.hour)
    });
    CorePvEstimate::new(estimate, stamps, String::new()).map_err(to_pyerr)
}

/// Simulates one system on one weather year (GIL released).
#[pyfunction]
#[pyo3(signature = (weather, system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio=None, gcr=None, inv_eff=None, timeframe=None))]
#[allow(clippy::too_many_arguments)]
pub fn pvwatts_simulate(
    py: Python<'_>,
    weather: &CoreWeather,
    system_capacity: &Bound<'_, PyAny>,
    module_type: &Bound<'_, PyAny>,
    losses: &Bound<'_, PyAny>,
    array_type: &Bound<'_, PyAny>,
    tilt: &Bound<'_, PyAny>,
    azimuth: &Bound<'_, PyAny>,
    dc_ac_ratio: Option<&Bound<'_, PyAny>>,
    gcr: Option<&Bound<'_, PyAny>>,
    inv_eff: Option<&Bound<'_, PyAny>>,
    timeframe: Option<&Bound<'_, PyAny>>,
) -> PyResult<CorePvEstimate> {
    let system = system_from([Some(system_capacity), Some(module_type), Some(losses), Some(array_type), Some(tilt), Some(azimuth), dc_ac_ratio, gcr, inv_eff]);
    let timeframe = validate_timeframe(&raw_value(timeframe));
    let (system, timeframe) = match (system, timeframe) {
        (Ok(system), Ok(timeframe)) => (system, timeframe),
        (system, timeframe) => {
            let mut problems = system.err().unwrap_or_default();
            problems.extend(timeframe.err());
            return Err(to_pyerr(Error::Parameter(problems)));
        }
    };
    let output = py.detach(|| simulate_with_sun_path(&weather.weather, &weather.sun_path(), &system));
    estimate_of(&weather.weather, output, timeframe)
}

/// Simulates every (weather, system) pair on `threads` threads with the GIL released; results in
/// input order. `systems[i]` is a tuple of the nine system parameters.
#[pyfunction]
#[pyo3(signature = (weathers, systems, threads=0, timeframe=None))]
pub fn pvwatts_simulate_many(
    py: Python<'_>,
    weathers: Vec<PyRef<'_, CoreWeather>>,
    systems: Vec<[Bound<'_, PyAny>; 9]>,
    threads: usize,
    timeframe: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<CorePvEstimate>> {
    if weathers.len() != systems.len() {
        return Err(to_pyerr(Error::Parameter(vec![format!(
            "weathers and systems must have the same length (got {} and {})",
            weathers.len(),
            systems.len()
        )])));
    }
    let timeframe = validate_timeframe(&raw_value(timeframe)).map_err(|p| to_pyerr(Error::Parameter(vec![p])))?;
    let mut problems = Vec::new();
    let mut params = Vec::with_capacity(systems.len());
    for (index, system) in systems.iter().enumerate() {
        match system_from([Some(&system[0]), Some(&system[1]), Some(&system[2]), Some(&system[3]), Some(&system[4]), Some(&system[5]), Some(&system[6]), Some(&system[7]), Some(&system[8])]) {
            Ok(p) => params.push(p),
            Err(listed) => problems.extend(listed.into_iter().map(|p| format!("systems[{index}]: {p}"))),
        }
    }
    if !problems.is_empty() {
        return Err(to_pyerr(Error::Parameter(problems)));
    }
    let shared: Vec<Arc<Weather>> = weathers.iter().map(|w| w.weather.clone()).collect();
    let threads = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
    let outputs = py.detach(|| {
        let jobs: Vec<(&Weather, crate::pvwatts::SystemParams)> = shared.iter().map(|w| w.as_ref()).zip(params.iter().copied()).collect();
        simulate_many(&jobs, threads)
    });
    outputs.into_iter().zip(shared.iter()).map(|(output, weather)| estimate_of(weather, output, timeframe)).collect()
}

//! Bindings of the local PVWatts v5 engine: weather years (files, bytes or Arrow tables) and
//! simulations, one or many in parallel with the GIL released (the v8 engine's in the `v8` child).

pub mod v8;

use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use arrow_array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch, TimestampMicrosecondArray};
use crate::formats::timezone::standard_time_zone;
use arrow_schema::{DataType, Field, Schema};
use pyo3::prelude::*;
use pyo3_arrow::PyTable;

use super::bridge::SIGNAL_CHECK;
use super::convert::{arrow_table, raw_value};
use super::errors::to_pyerr;
use super::pv::PyPvEstimate;
use crate::error::Error;
use crate::pvwatts::weather::Series;
use crate::pvwatts::solarpos::Precision;
use crate::pvwatts::weather::{check_table_rows, numeric_column};
use crate::pvwatts::{column_field_name, parse_weather_with, read_weather_file, weather_from_columns, NamedColumn, SiteHints, simulate_many_with_sun_paths, BatchControl, simulate_keeping, sun_path_precision, SunPath, Weather};
use crate::services::pv_estimator::{validate_system, validate_timeframe, PvEstimate, RawSystem, StationInfo, Timeframe};

/// A weather year for the engine; the Python `Weather` wraps it.
#[pyclass(module = "sunflux._core", frozen, name = "Weather")]
pub struct PyWeather {
    pub weather: Arc<Weather>,
    /// The sun's path over this year in each precision, computed on the first simulation that
    /// needs it and reused by the next (it depends only on the site and the calendar; about half
    /// the work of one simulation).
    sun_path_fast: OnceLock<Arc<SunPath>>,
    sun_path_exact: OnceLock<Arc<SunPath>>,
}

impl PyWeather {
    pub fn new(weather: Arc<Weather>) -> Self {
        PyWeather { weather, sun_path_fast: OnceLock::new(), sun_path_exact: OnceLock::new() }
    }

    pub(crate) fn sun_path(&self, precision: Precision) -> Arc<SunPath> {
        let cache = match precision {
            Precision::Fast => &self.sun_path_fast,
            Precision::Exact => &self.sun_path_exact,
        };
        cache.get_or_init(|| Arc::new(SunPath::compute(&self.weather, precision))).clone()
    }
}

fn weather_error(error: crate::pvwatts::WeatherError) -> PyErr {
    to_pyerr(Error::Parameter(vec![error.to_string()]))
}

#[pymethods]
impl PyWeather {
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

    #[getter]
    fn steps_per_hour(&self) -> u32 {
        self.weather.steps_per_hour
    }

    /// The same year without its 29 February records: the 365-day year SSC simulates.
    /// A copy naming its place (city, state, country, location id, source); the data and the
    /// site's coordinates are the same.
    fn with_place(&self, city: String, state: String, country: String, location_id: String, source: String) -> PyWeather {
        let mut weather = (*self.weather).clone();
        weather.meta = crate::pvwatts::SiteMeta { city, state, country, location_id, source, ..weather.meta };
        PyWeather::new(Arc::new(weather))
    }

    fn without_leap_day(&self) -> PyWeather {
        PyWeather::new(Arc::new(self.weather.without_leap_day()))
    }

    /// The columns: timestamp (start of each record's interval, µs, in the weather's standard
    /// time zone), year, month, day, hour, minute, gh, dn, df (W/m²), tdry (°C), wspd (m/s) and
    /// pressure (mbar) / albedo / snow_depth (cm) when present.
    fn to_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let w = &self.weather;
        let ints = |values: Vec<i64>| -> ArrayRef { Arc::new(Int64Array::from(values)) };
        let floats = |values: &Series| -> ArrayRef { Arc::new(Float64Array::new(values.clone(), None)) };
        let zone = standard_time_zone(w.meta.tz).unwrap_or_else(|| "UTC".to_owned());
        let stamps: ArrayRef = Arc::new(TimestampMicrosecondArray::from(w.interval_starts_utc_us()).with_timezone(zone.as_str()));
        let mut fields = Vec::new();
        let mut columns: Vec<ArrayRef> = Vec::new();
        for (name, column) in [
            ("timestamp", stamps),
            ("year", ints(w.year.iter().map(|&v| i64::from(v)).collect())),
            ("month", ints(w.month.iter().map(|&v| i64::from(v)).collect())),
            ("day", ints(w.day.iter().map(|&v| i64::from(v)).collect())),
            ("hour", ints(w.hour.iter().map(|&v| i64::from(v)).collect())),
            ("minute", Arc::new(Float64Array::from(w.minute.clone())) as ArrayRef),
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

/// Reads a TMY2, TMY3, EPW, SAM CSV, NSRDB or climate-download CSV file (GIL released); the site
/// facts given fill what the file lacks and must agree with what it has.
#[pyfunction]
#[pyo3(signature = (path, lat=None, lon=None, tz=None, elevation=None))]
pub fn read_weather_path(py: Python<'_>, path: std::path::PathBuf, lat: Option<f64>, lon: Option<f64>, tz: Option<f64>, elevation: Option<f64>) -> PyResult<PyWeather> {
    let hints = SiteHints { lat, lon, tz, elevation };
    let weather = py.detach(|| read_weather_file(&path, &hints)).map_err(weather_error)?;
    Ok(PyWeather::new(Arc::new(weather)))
}

/// Reads weather from the bytes of one of those files; `name` is used in error messages.
#[pyfunction]
#[pyo3(signature = (data, name, lat=None, lon=None, tz=None, elevation=None))]
pub fn read_weather_bytes(py: Python<'_>, data: &[u8], name: String, lat: Option<f64>, lon: Option<f64>, tz: Option<f64>, elevation: Option<f64>) -> PyResult<PyWeather> {
    let hints = SiteHints { lat, lon, tz, elevation };
    // The bytes object's own buffer, not a copy: a copy doubled the memory of a large file.
    let weather = py.detach(move || parse_weather_with(data, &name, &hints)).map_err(weather_error)?;
    Ok(PyWeather::new(Arc::new(weather)))
}

/// A numeric column of the table as f64: the Arrow buffer itself when it is one float64 chunk
/// without nulls (no copy), otherwise a converted copy (nulls become NaN); `None` for other types.
/// Builds a weather year from an Arrow table (polars, pyarrow or pandas): its numeric columns
/// under any of the names the file readers accept, the site from the arguments.
#[pyfunction]
#[pyo3(signature = (table, lat=None, lon=None, tz=None, elevation=None, name="table", fill_gaps=false))]
#[allow(clippy::too_many_arguments)]
pub fn weather_from_table(py: Python<'_>, table: PyTable, lat: Option<f64>, lon: Option<f64>, tz: Option<f64>, elevation: Option<f64>, name: &str, fill_gaps: bool) -> PyResult<PyWeather> {
    let (batches, schema) = table.into_inner();
    check_table_rows(batches.iter().map(RecordBatch::num_rows).sum(), name).map_err(weather_error)?;
    let columns: Vec<NamedColumn> = schema
        .fields()
        .iter()
        .enumerate()
        .filter_map(|(index, field)| numeric_column(&batches, index).map(|values| NamedColumn { name: field.name().clone(), values }))
        .collect();
    let hints = SiteHints { lat, lon, tz, elevation };
    let weather = py.detach(|| weather_from_columns(columns, &hints, name, fill_gaps)).map_err(weather_error)?;
    Ok(PyWeather::new(Arc::new(weather)))
}

/// The weather quantity a column name stands for ("gh", "dn", "tdry", "month", ...), or None.
#[pyfunction]
pub fn weather_column_field(name: &str) -> Option<&'static str> {
    column_field_name(name)
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

fn estimate_of(weather: &Weather, output: crate::pvwatts::PvOutput, timeframe: Timeframe) -> PyResult<PyPvEstimate> {
    let estimate = PvEstimate::from_simulation(output, timeframe, Some(local_station(weather)), serde_json::Map::new());
    local_estimate(weather, estimate, timeframe)
}

/// A local estimate with hourly stamps from the weather's own calendar.
pub(crate) fn local_estimate(weather: &Weather, estimate: PvEstimate, timeframe: Timeframe) -> PyResult<PyPvEstimate> {
    let stamps = (timeframe == Timeframe::Hourly).then(|| weather.interval_starts_utc_us());
    PyPvEstimate::new(estimate, stamps, String::new()).map_err(to_pyerr)
}

/// A validated system and the `timeframe` argument, or every problem of both at once.
pub(crate) fn with_timeframe<P>(system: std::result::Result<P, Vec<String>>, timeframe: Option<&Bound<'_, PyAny>>) -> PyResult<(P, Timeframe)> {
    match (system, validate_timeframe(&raw_value(timeframe))) {
        (Ok(system), Ok(timeframe)) => Ok((system, timeframe)),
        (system, timeframe) => {
            let mut problems = system.err().unwrap_or_default();
            problems.extend(timeframe.err());
            Err(to_pyerr(Error::Parameter(problems)))
        }
    }
}

/// Simulates one system on one weather year (GIL released).
#[pyfunction]
#[pyo3(signature = (weather, system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio=None, gcr=None, inv_eff=None, timeframe=None))]
#[allow(clippy::too_many_arguments)]
pub fn pvwatts_simulate(
    py: Python<'_>,
    weather: &PyWeather,
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
) -> PyResult<PyPvEstimate> {
    let system = system_from([Some(system_capacity), Some(module_type), Some(losses), Some(array_type), Some(tilt), Some(azimuth), dc_ac_ratio, gcr, inv_eff]);
    let (system, timeframe) = with_timeframe(system, timeframe)?;
    let hourly = timeframe == Timeframe::Hourly;
    let output = py.detach(|| simulate_keeping(&weather.weather, &weather.sun_path(sun_path_precision(&system)), &system, hourly));
    estimate_of(&weather.weather, output, timeframe)
}

/// Waits for a batch with the GIL released, waking every 100 ms to look for Ctrl-C and report
/// progress; on a signal (or a failing progress callback) the workers are told to stop, and the
/// scope around this joins them within one system's time.
fn wait_for_batch<T: Send>(
    py: Python<'_>,
    receiver: std::sync::mpsc::Receiver<Option<Vec<T>>>,
    control: &BatchControl,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<T>> {
    let stop = |error: PyErr| {
        control.cancelled.store(true, Ordering::Relaxed);
        error
    };
    let mut receiver = receiver;
    loop {
        let (waited, returned) = py.detach(move || (receiver.recv_timeout(SIGNAL_CHECK), receiver));
        receiver = returned;
        match waited {
            Ok(Some(outputs)) => return Ok(outputs),
            Ok(None) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(to_pyerr(Error::Transport("the simulation batch ended without its results".into())));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                py.check_signals().map_err(stop)?;
                if let Some(report) = progress {
                    report.call1((control.done.load(Ordering::Relaxed),)).map_err(stop)?;
                }
            }
        }
    }
}

/// The systems of a batch, each parsed by `parse`; every problem of every system is listed, each
/// prefixed with `systems[i]`, and `weathers` and `systems` must pair up one to one.
pub(crate) fn batch_systems<P, const N: usize>(
    weathers: usize,
    systems: &[[Bound<'_, PyAny>; N]],
    parse: impl Fn([Option<&Bound<'_, PyAny>>; N]) -> Result<P, Vec<String>>,
) -> PyResult<Vec<P>> {
    if weathers != systems.len() {
        return Err(to_pyerr(Error::Parameter(vec![format!(
            "weathers and systems must have the same length (got {weathers} and {})",
            systems.len()
        )])));
    }
    let mut problems = Vec::new();
    let mut params = Vec::with_capacity(systems.len());
    for (index, system) in systems.iter().enumerate() {
        match parse(system.each_ref().map(Some)) {
            Ok(parsed) => params.push(parsed),
            Err(listed) => problems.extend(listed.into_iter().map(|p| format!("systems[{index}]: {p}"))),
        }
    }
    if problems.is_empty() {
        Ok(params)
    } else {
        Err(to_pyerr(Error::Parameter(problems)))
    }
}

/// Runs `batch` on a thread of its own while this one waits with the GIL released (Ctrl-C and
/// progress as `wait_for_batch` says), then reports the final count to `progress`.
pub(crate) fn run_batch<T: Send>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    batch: impl FnOnce(&BatchControl) -> Option<Vec<T>> + Send,
) -> PyResult<Vec<T>> {
    let control = BatchControl::default();
    let outputs = std::thread::scope(|scope| {
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        let control = &control;
        scope.spawn(move || {
            let _ = sender.send(batch(control));
        });
        wait_for_batch(py, receiver, control, progress)
    })?;
    if let Some(report) = progress {
        report.call1((control.done.load(Ordering::Relaxed),))?;
    }
    Ok(outputs)
}

/// Simulates every (weather, system) pair on `threads` threads with the GIL released; results in
/// input order. `systems[i]` is a tuple of the nine system parameters. The calling thread waits
/// for the batch and, every 100 ms, looks for Ctrl-C (which stops the workers before their next
/// system and is raised) and calls `progress(done)` with the number of systems simulated.
#[pyfunction]
#[pyo3(signature = (weathers, systems, threads=0, timeframe=None, progress=None))]
pub fn pvwatts_simulate_many(
    py: Python<'_>,
    weathers: Vec<PyRef<'_, PyWeather>>,
    systems: Vec<[Bound<'_, PyAny>; 9]>,
    threads: usize,
    timeframe: Option<&Bound<'_, PyAny>>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<PyPvEstimate>> {
    let params = batch_systems(weathers.len(), &systems, system_from)?;
    let timeframe = validate_timeframe(&raw_value(timeframe)).map_err(|p| to_pyerr(Error::Parameter(vec![p])))?;
    let jobs: Vec<(&Weather, crate::pvwatts::SystemParams, &PyWeather)> =
        weathers.iter().zip(params).map(|(core, params)| (core.weather.as_ref(), params, &**core)).collect();
    // Each weather's cached sun path, computed by the worker that first needs it and kept for
    // later calls, as `simulate` does.
    let sun_path = |_: &Weather, params: &crate::pvwatts::SystemParams, core: &&PyWeather| core.sun_path(sun_path_precision(params));
    let outputs = run_batch(py, progress.as_ref(), |control| simulate_many_with_sun_paths(&jobs, sun_path, timeframe == Timeframe::Hourly, threads, control))?;
    outputs.into_iter().zip(jobs.iter()).map(|(output, (weather, _, _))| estimate_of(weather, output, timeframe)).collect()
}

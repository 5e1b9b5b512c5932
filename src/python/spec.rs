//! The spec's rules as constants of `sunflux._core`, read from their one Rust home so that the
//! Python face restates none of them: the request limits (`limits::request_rates`), the data set
//! codes, the climate attributes, the fault kinds of the embedded service and the metadata names a
//! weather table's site is read from; and the messages that say why a station's id cannot be an
//! estimator's `file_id`, so that `Station.file_id` in Python says what the Rust checks say.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::embedded::FaultKind;
use crate::embedded::climate::datasets::DATASETS;
use crate::pvwatts::weather::metadata_keys;
use crate::spec::vocabulary::{Attribute, Dataset};
use crate::limits::request_rates;

/// Why an id from dataset query v2 cannot be the v6 estimator's `file_id`.
#[pyfunction]
pub fn v2_file_id_problem(id: &str) -> String {
    crate::services::solar::v2_file_id_problem(id)
}

/// True for a source text of the embedded service's generated data.
#[pyfunction]
pub fn is_synthetic_source(source: &str) -> bool {
    crate::formats::climate_csv::is_synthetic_source(source)
}

/// Why an id from dataset query v1 cannot be the v8 estimator's `file_id`.
#[pyfunction]
pub fn v1_file_id_problem(id: &str) -> String {
    crate::services::pv_estimator::v8::v1_file_id_problem(id)
}

/// Adds every constant and message function to the module `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("KEY_REQUESTS_PER_HOUR", request_rates::KEY_REQUESTS_PER_HOUR)?;
    m.add("CLIMATE_CSV_INTERVAL", request_rates::CLIMATE_CSV_INTERVAL.as_secs_f64())?;
    m.add("CLIMATE_CSV_PER_DAY", request_rates::CLIMATE_CSV_PER_DAY)?;
    m.add("CLIMATE_JSON_INTERVAL", request_rates::CLIMATE_OTHER_INTERVAL.as_secs_f64())?;
    m.add("CLIMATE_JSON_PER_DAY", request_rates::CLIMATE_OTHER_PER_DAY)?;
    m.add("CLIMATE_IN_FLIGHT", request_rates::CLIMATE_IN_FLIGHT)?;
    m.add("CLIMATE_DATASETS", PyTuple::new(py, DATASETS.map(|dataset| dataset.slug))?)?;
    m.add("SOLAR_DATASETS", PyTuple::new(py, Dataset::ALL.map(Dataset::code))?)?;
    m.add("CLIMATE_ATTRIBUTES", PyTuple::new(py, Attribute::ALL.map(Attribute::name))?)?;
    m.add("SYNTHETIC_METADATA_KEY", crate::formats::climate_csv::SYNTHETIC_METADATA_KEY)?;
    m.add("FAULT_KINDS", PyTuple::new(py, FaultKind::ALL.map(FaultKind::name))?)?;
    let weather_metadata_keys = PyDict::new(py);
    for (name, keys) in metadata_keys() {
        weather_metadata_keys.set_item(name, PyTuple::new(py, keys)?)?;
    }
    m.add("WEATHER_METADATA_KEYS", weather_metadata_keys)?;
    m.add_function(wrap_pyfunction!(v2_file_id_problem, m)?)?;
    m.add_function(wrap_pyfunction!(v1_file_id_problem, m)?)?;
    m.add_function(wrap_pyfunction!(is_synthetic_source, m)?)?;
    Ok(())
}

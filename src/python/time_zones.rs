//! Time-zone helpers for the Python face's frames: the zone name of a standard-time offset, and
//! the standard time sunflux assumes for a site whose data give none.

use pyo3::prelude::*;

use crate::formats::timezone::standard_time_zone;
use crate::places::standard_offset_near;

/// The zone a frame in standard time `tz_hours` (hours east of UTC) is labelled with:
/// `Etc/GMT∓N` for whole hours, a zone that keeps a fractional offset without daylight saving
/// (`Asia/Kolkata` for +5.5), or `UTC` when no zone has that offset.
#[pyfunction]
pub fn standard_time_zone_name(tz_hours: f64) -> String {
    standard_time_zone(tz_hours).unwrap_or_else(|| "UTC".to_owned())
}

/// The standard-time offset (hours east of UTC) of the nearest place sunflux knows within
/// 400 km of (`lat`, `lon`), or the nautical zone.
#[pyfunction]
pub fn site_standard_offset(lat: f64, lon: f64) -> f64 {
    standard_offset_near(lat, lon)
}

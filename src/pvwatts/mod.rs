//! Local PVWatts v5 engine: a pure-Rust re-implementation of NREL SSC's `pvwattsv5` compute
//! module (the algorithm behind the PV estimator v6), with weather-file readers.
//!
//! Stages, in execution order (one module each): `solarpos` (SSC's SPA/SG2 sun position and
//! sunrise/sunset), `sunpath` (per-hour sun geometry with the sunrise/sunset-hour rule),
//! `incidence` and `tracking` (surface orientation), `perez` (plane-of-array irradiance),
//! `shading` (single-axis self-shading), `iam` (cover loss), `celltemp` (Fuentes cell
//! temperature), `power` (DC and inverter), `engine` (hourly loop and aggregation). `params`
//! holds the parameter ranges and validation, `weather` the weather year and its readers,
//! `batch` the parallel runner, `mathfn` the inline cosine and floor of the solar position.
//!
//! Reference: Dobos (2014), PVWatts Version 5 Manual, NREL/TP-6A20-62641, and the SSC source
//! (`ssc/cmod_pvwattsv5.cpp` and the `shared/lib_*` files named in each module).

mod angles;
pub mod batch;
mod mathfn;
pub mod celltemp;
pub mod engine;
pub mod iam;
pub mod incidence;
pub mod params;
pub mod perez;
pub mod power;
pub mod shading;
pub mod solarpos;
pub mod sunpath;
mod threads;
#[cfg(test)]
mod test_support;
pub mod tracking;
pub mod v8;
pub mod weather;

pub use batch::{simulate_many, simulate_many_controlled, simulate_many_v8_controlled, simulate_many_with_sun_paths, BatchControl};
pub use engine::{simulate, simulate_keeping, simulate_with_sun_path, sun_path_precision, HourlyOutput, HourlySeries, PvOutput};
pub use params::{validate_params, ArrayType, ModuleType, RawParams, SystemParams, Tracking};
pub use sunpath::{SunPath, SunUp};
pub use weather::{
    parse_weather, parse_weather_with, read_weather_file, weather_from_columns, column_field_name, NamedColumn,
    SiteHints, SiteMeta, Weather, WeatherColumns, WeatherError,
};

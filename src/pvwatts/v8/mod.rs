//! Local PVWatts v8 engine: a pure-Rust re-implementation of NREL SSC's `pvwattsv8` compute module
//! (the algorithm behind the live PV estimator v8, the PVWatts Calculator and SAM's PVWatts).
//!
//! What v8 shares with the v5 engine, and reuses from it: SSC's sun position with the
//! sunrise/sunset-hour rule (`sunpath`), the surface orientation of fixed, single-axis (true
//! tracking or backtracking, ±45°) and two-axis arrays (`incidence`, `tracking`), Perez 1990
//! plane-of-array irradiance (`perez`), the single-axis shaded fraction and the sky-view derate
//! table (`shading`). What v8 computes differently, one module each, in execution order:
//!
//! * `params`: v8's inputs and their ranges (bifaciality, albedo, soiling, snow model).
//! * `layout`: the assumed physical layout (300 W modules, rows, row spacing) the shading,
//!   bifacial and snow models work on.
//! * `selfshade`: row-to-row self-shading for open-rack fixed arrays and both single-axis
//!   trackers (beam shaded fraction and sky/ground diffuse derates over the array's rows).
//! * `bifacial`: rear-side irradiance from a 2-D view-factor model of the rows and the ground.
//! * `cover`: the De Soto cover model per irradiance component and the air-mass modifier.
//! * `celltemp`: the NOCT cell-temperature model (no thermal memory, unlike v5's Fuentes model).
//! * `singlediode`: the CEC six-parameter single-diode module model at its maximum power point.
//! * `snow`: Marion's snow-coverage model (2013).
//! * `inverter`: the Sandia inverter model with PVWatts v8's coefficients.
//! * `exactsun`: SSC's sun position to the last bit, for horizontal-axis trackers (whose
//!   geometry amplifies the last bit) and records whose refraction inputs differ from v5's.
//! * `refraction`: the pressure and temperature SSC's v8 refracts each record's sun with (its
//!   carry-over and its sun-position table).
//! * `engine`: the hourly loop, losses, and the monthly/annual aggregation.
//!
//! Every stage follows SSC's operation order so that results agree with SSC to floating-point
//! noise (see `docs/design.md` and `tests/data/pvref_v8`).
//!
//! References: SSC `ssc/cmod_pvwattsv8.cpp` and the `shared/lib_*` files named in each module;
//! the PVWatts Version 8 description (pvwatts.nrel.gov/version_8.php); Gilman, Dobos, DiOrio et
//! al. (2018), SAM Photovoltaic Model Technical Reference Update, NREL/TP-6A20-67399.

pub mod bifacial;
pub mod celltemp;
pub mod cover;
pub mod engine;
pub mod exactsun;
pub mod inverter;
pub mod layout;
pub mod params;
pub mod refraction;
pub mod selfshade;
pub mod singlediode;
pub mod snow;

pub use engine::{simulate_v8, simulate_v8_with_sun_path, V8Error, V8Hourly, V8Output};
pub use params::{validate_v8_options, AlbedoInput, RawV8Options, V8Options, V8Params};

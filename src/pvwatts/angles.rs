//! Angle conversion constants and degree-argument trigonometry shared by the PVWatts stages.
//!
//! The constants are the exact `f64` values of π/180 and 180/π that NREL SSC uses (`DTOR`,
//! `RTOD` in `lib_util.h`), so conversions round exactly as in the reference implementation.

/// Degrees → radians factor (π/180).
pub const DEG_TO_RAD: f64 = std::f64::consts::PI / 180.0;

/// Radians → degrees factor (180/π).
pub const RAD_TO_DEG: f64 = 180.0 / std::f64::consts::PI;

/// Sine of an angle given in degrees.
#[inline]
pub fn sind(degrees: f64) -> f64 {
    (DEG_TO_RAD * degrees).sin()
}

/// Cosine of an angle given in degrees.
#[inline]
pub fn cosd(degrees: f64) -> f64 {
    (DEG_TO_RAD * degrees).cos()
}

/// Sine and cosine of an angle given in degrees, identical to (`sind`, `cosd`) (`f64::sin_cos` is
/// `(sin, cos)`; the compiler may make one `sincos` call of it, which rounds as `sin` and `cos`).
#[inline]
pub fn sin_cos_d(degrees: f64) -> (f64, f64) {
    (DEG_TO_RAD * degrees).sin_cos()
}

/// Tangent of an angle given in degrees.
#[inline]
pub fn tand(degrees: f64) -> f64 {
    (DEG_TO_RAD * degrees).tan()
}

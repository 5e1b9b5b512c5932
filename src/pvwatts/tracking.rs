//! Tracker geometry: single-axis true tracking with a ±45° limit and optional backtracking, and
//! two-axis tracking.
//!
//! References: Marion & Dobos (2013), Rotation Angle for the Optimum Tracking of One-Axis
//! Trackers, NREL/TP-6A20-58891 (true-tracking angle); Anderson & Mikofski (2020), Slope-Aware
//! Backtracking for Single-Axis Trackers, NREL/TP-5K00-76626 (closed-form backtracking, here on
//! flat ground); SSC `shared/lib_irradproc.cpp`, `incidence` (modes 1 and 2), `truetrack`,
//! `backtrack`.

use super::angles::{cosd, sin_cos_d, DEG_TO_RAD, RAD_TO_DEG};
use super::incidence::{angle_of_incidence, SunDirection, SurfaceAngles};
use std::f64::consts::PI;

/// Largest rotation of a single-axis tracker, degrees (fixed in PVWatts v5).
pub const ROTATION_LIMIT_DEG: f64 = 45.0;
/// |cos(axis tilt)| below this means a vertical axis (89.9°–90.1°).
const VERTICAL_AXIS_COS: f64 = 0.001745;

/// The axis of a single-axis tracker, with the sines and cosines of its angles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackerAxis {
    /// Axis tilt from horizontal, degrees.
    pub tilt_deg: f64,
    /// Axis azimuth, degrees east of north.
    pub azimuth_deg: f64,
    sin_tilt: f64,
    cos_tilt: f64,
    sin_azimuth: f64,
    cos_azimuth: f64,
    /// Axis tilt and azimuth in radians, and the cosine of that tilt (the rotated-surface
    /// geometry works from the radian values).
    tilt: f64,
    azimuth: f64,
    cos_tilt_radians: f64,
}

impl TrackerAxis {
    /// An axis with tilt `tilt_deg` and azimuth `azimuth_deg` (degrees, east of north).
    pub fn new(tilt_deg: f64, azimuth_deg: f64) -> Self {
        let (sin_tilt, cos_tilt) = sin_cos_d(tilt_deg);
        let (sin_azimuth, cos_azimuth) = sin_cos_d(azimuth_deg);
        let tilt = tilt_deg * DEG_TO_RAD;
        TrackerAxis {
            tilt_deg,
            azimuth_deg,
            sin_tilt,
            cos_tilt,
            sin_azimuth,
            cos_azimuth,
            tilt,
            azimuth: azimuth_deg * DEG_TO_RAD,
            cos_tilt_radians: tilt.cos(),
        }
    }

    /// Rotation (degrees) about this axis that minimises the angle of incidence (Marion & Dobos
    /// 2013, eq. 7): the direction of the sun (azimuth east of north and zenith, degrees) in axis
    /// coordinates. Positive rotation turns the surface towards the west for a south-facing axis.
    pub fn true_tracking_rotation(&self, sun_azimuth_deg: f64, sun_zenith_deg: f64) -> f64 {
        let sun_elevation = 90.0 - sun_zenith_deg;
        let (sin_elevation, cos_elevation) = sin_cos_d(sun_elevation);
        let (sin_azimuth, cos_azimuth) = sin_cos_d(sun_azimuth_deg);
        let sx = cos_elevation * sin_azimuth;
        let sy = cos_elevation * cos_azimuth;
        let sz = sin_elevation;
        let sx_axis = sx * self.cos_azimuth - sy * self.sin_azimuth;
        let sz_axis = sx * self.sin_azimuth * self.sin_tilt
            + sy * self.sin_tilt * self.cos_azimuth
            + sz * self.cos_tilt;
        sx_axis.atan2(sz_axis) * 180.0 / PI
    }
}

/// Backtracking rotation (degrees) that avoids row-to-row beam shading on flat ground
/// (Anderson & Mikofski 2020, eq. 14 with zero cross-axis slope). `gcr` is the ground
/// coverage ratio; the true-tracking rotation is returned when no shading would occur.
pub fn backtracking_rotation(true_rotation_deg: f64, gcr: f64) -> f64 {
    let projection = cosd(true_rotation_deg).abs() / (gcr * cosd(0.0));
    if projection.abs() >= 1.0 {
        return true_rotation_deg;
    }
    let sign = if true_rotation_deg > 0.0 { 1.0 } else { -1.0 };
    true_rotation_deg + -sign * (RAD_TO_DEG * projection.acos())
}

/// Rotation (radians) of a tracker with a vertical axis: the surface turns with the sun azimuth.
fn vertical_axis_rotation(sun_azimuth: f64, axis_azimuth: f64) -> f64 {
    if axis_azimuth <= PI {
        if sun_azimuth <= axis_azimuth + PI {
            sun_azimuth - axis_azimuth
        } else {
            sun_azimuth - axis_azimuth - 2.0 * PI
        }
    } else if sun_azimuth >= axis_azimuth - PI {
        sun_azimuth - axis_azimuth
    } else {
        sun_azimuth - axis_azimuth + 2.0 * PI
    }
}

/// Surface tilt (radians) with its sine and cosine, and surface azimuth (radians), of a
/// single-axis tracker rotated by `rotation` (radians) about `axis`.
fn rotated_surface(axis: &TrackerAxis, rotation: f64) -> (f64, (f64, f64), f64) {
    let axis_azimuth = axis.azimuth;
    let (sin_rotation, cos_rotation) = rotation.sin_cos();
    let cos_tilt = axis.cos_tilt_radians * cos_rotation;
    let tilt = if cos_tilt < -1.0 {
        PI
    } else if cos_tilt > 1.0 {
        0.0
    } else {
        cos_tilt.acos()
    };
    let (sin_tilt, cos_tilt) = tilt.sin_cos();
    if tilt == 0.0 {
        return (tilt, (sin_tilt, cos_tilt), PI);
    }
    let sin_offset = sin_rotation / sin_tilt;
    let mut azimuth = if sin_offset < -1.0 {
        1.5 * PI + axis_azimuth
    } else if sin_offset > 1.0 {
        0.5 * PI + axis_azimuth
    } else if rotation < -0.5 * PI {
        axis_azimuth - PI - sin_offset.asin()
    } else if rotation > 0.5 * PI {
        axis_azimuth + PI - sin_offset.asin()
    } else {
        sin_offset.asin() + axis_azimuth
    };
    if azimuth > 2.0 * PI {
        azimuth -= 2.0 * PI;
    } else if azimuth < 0.0 {
        azimuth += 2.0 * PI;
    }
    (tilt, (sin_tilt, cos_tilt), azimuth)
}

/// Orientation of a single-axis tracker about `axis` for the sun at `sun`. The rotation is
/// limited to ±45°; with `backtracking` it is the backtracking angle for ground coverage ratio
/// `gcr` (also limited).
pub fn one_axis_surface(
    sun: &SunDirection,
    axis: &TrackerAxis,
    gcr: f64,
    backtracking: bool,
) -> SurfaceAngles {
    let limit = ROTATION_LIMIT_DEG * DEG_TO_RAD;
    let true_rotation = if axis.cos_tilt_radians.abs() < VERTICAL_AXIS_COS {
        vertical_axis_rotation(sun.azimuth, axis.azimuth)
    } else {
        axis.true_tracking_rotation(sun.azimuth * 180.0 / PI, sun.zenith * 180.0 / PI)
            * (PI / 180.0)
    };
    let mut rotation = true_rotation.clamp(-limit, limit);
    if backtracking {
        rotation = (backtracking_rotation(true_rotation * 180.0 / PI, gcr) * (PI / 180.0))
            .clamp(-limit, limit);
    }
    let (tilt, (sin_tilt, cos_tilt), azimuth) = rotated_surface(axis, rotation);
    let (incidence, cos_incidence) = angle_of_incidence(sun, sin_tilt, cos_tilt, azimuth);
    SurfaceAngles {
        incidence,
        cos_incidence,
        tilt,
        sin_tilt,
        cos_tilt,
        azimuth,
        rotation,
    }
}

/// Orientation of a two-axis tracker: the surface normal points at the sun (incidence 0).
pub fn two_axis_surface(sun: &SunDirection) -> SurfaceAngles {
    SurfaceAngles {
        incidence: 0.0,
        cos_incidence: 1.0,
        tilt: sun.zenith,
        sin_tilt: sun.sin_zenith,
        cos_tilt: sun.cos_zenith,
        azimuth: sun.azimuth,
        rotation: 0.0,
    }
}

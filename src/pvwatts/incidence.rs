//! Sun direction, surface orientation and the beam angle of incidence; fixed-tilt surfaces.
//!
//! Reference: Duffie & Beckman (2013), Solar Engineering of Thermal Processes, 4th ed., eq. 1.6.3;
//! SSC `shared/lib_irradproc.cpp`, `incidence` (mode 0).

use super::angles::DEG_TO_RAD;

/// Direction of the sun for one time step, with the sine and cosine of the zenith angle that
/// several stages use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SunDirection {
    /// Zenith angle, radians.
    pub zenith: f64,
    /// Azimuth, radians east of north.
    pub azimuth: f64,
    /// sin and cos of the zenith angle.
    pub sin_zenith: f64,
    pub cos_zenith: f64,
}

impl SunDirection {
    /// The sun at `zenith` and `azimuth` (radians, azimuth east of north).
    pub fn new(zenith: f64, azimuth: f64) -> Self {
        let (sin_zenith, cos_zenith) = zenith.sin_cos();
        SunDirection {
            zenith,
            azimuth,
            sin_zenith,
            cos_zenith,
        }
    }
}

/// Orientation of the module surface for one time step. All angles in radians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceAngles {
    /// Angle of incidence of the beam on the surface, radians [0, π], and its cosine.
    pub incidence: f64,
    pub cos_incidence: f64,
    /// Surface tilt from horizontal, radians, with its sine and cosine.
    pub tilt: f64,
    pub sin_tilt: f64,
    pub cos_tilt: f64,
    /// Surface azimuth, radians east of north.
    pub azimuth: f64,
    /// Tracker rotation about its axis, radians (0 for fixed and two-axis arrays).
    pub rotation: f64,
}

/// Angle of incidence θ (radians) of the beam on a surface with tilt β (given as sin β, cos β)
/// and azimuth γ (radians), with cos θ: cos θ = sin z · cos(A − γ) · sin β + cos z · cos β,
/// clamped to [−1, 1].
///
/// The later stages take cos θ from here rather than as cos(acos(cos θ)) like SSC, which saves
/// two cosines per hour and differs from SSC's value by about an ulp.
pub fn angle_of_incidence(
    sun: &SunDirection,
    sin_tilt: f64,
    cos_tilt: f64,
    surface_azimuth: f64,
) -> (f64, f64) {
    let cos_incidence = (sun.sin_zenith * (sun.azimuth - surface_azimuth).cos() * sin_tilt
        + sun.cos_zenith * cos_tilt)
        .clamp(-1.0, 1.0);
    (cos_incidence.acos(), cos_incidence)
}

/// A fixed surface: tilt and azimuth in radians with the sine and cosine of the tilt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedSurface {
    tilt: f64,
    sin_tilt: f64,
    cos_tilt: f64,
    azimuth: f64,
}

impl FixedSurface {
    /// A surface with tilt `tilt_deg` and azimuth `azimuth_deg` (degrees, east of north).
    pub fn new(tilt_deg: f64, azimuth_deg: f64) -> Self {
        let tilt = tilt_deg * DEG_TO_RAD;
        let (sin_tilt, cos_tilt) = tilt.sin_cos();
        FixedSurface {
            tilt,
            sin_tilt,
            cos_tilt,
            azimuth: azimuth_deg * DEG_TO_RAD,
        }
    }

    /// Orientation and angle of incidence for the sun at `sun`.
    pub fn orientation(&self, sun: &SunDirection) -> SurfaceAngles {
        let (incidence, cos_incidence) =
            angle_of_incidence(sun, self.sin_tilt, self.cos_tilt, self.azimuth);
        SurfaceAngles {
            incidence,
            cos_incidence,
            tilt: self.tilt,
            sin_tilt: self.sin_tilt,
            cos_tilt: self.cos_tilt,
            azimuth: self.azimuth,
            rotation: 0.0,
        }
    }
}

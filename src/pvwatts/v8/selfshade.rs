//! Row-to-row self-shading of open-rack fixed arrays and single-axis trackers (PVWatts v8 applies
//! it to array types 0, 2 and 3; roof mounts and two-axis trackers have none).
//!
//! * Beam: the shaded share of a fixed row is the area of the front row's shadow on it
//!   (Appelbaum & Bany 1979, eqs. 11–13 and A12–A15, portrait modules strung horizontally; the
//!   shadow reaches the row end when more than one string runs along the row). Single-axis
//!   trackers without backtracking use the tracker shaded fraction of `shading`; backtracking
//!   avoids beam shading. The linear loss is applied to the beam (PVWatts v8 leaves SSC's
//!   non-linear electrical derate switched off).
//! * Diffuse: sky diffuse is derated by the share of the sky dome the row in front hides (the
//!   250-point view-factor integral cached per whole degree of tilt, `shading::SkyViewCache`);
//!   ground-reflected diffuse by the view of shaded and unshaded ground between the rows,
//!   averaged over the first row (which sees open ground) and the others (Deline et al. 2013,
//!   with the array's own number of rows). Derates outside 0–1 (±1e-5) are not applied.
//!
//! References: Appelbaum & Bany (1979), Shadow effect of adjacent solar collectors in large scale
//! systems, Solar Energy 23(6); Deline, Dobos, Janzou, Meydbray & Donovan (2013), A simplified
//! model of uniform shading in large photovoltaic arrays, Solar Energy 96; SSC
//! `shared/lib_pvshade.cpp` (`ss_exec`, `diffuse_reduce`) and `ssc/cmod_pvwattsv8.cpp`.

use super::layout::ArrayLayout;
use crate::pvwatts::angles::{cosd, sind, tand};
use crate::pvwatts::shading::SkyViewCache;

/// Smallest row spacing used, m.
const MIN_ROW_SPACING: f64 = 0.00001;
/// Below this sky + ground diffuse on the array (W/m²) no diffuse derate is applied.
pub const MIN_DIFFUSE_FOR_DERATE: f64 = 0.1;
/// Smallest distance Y₁ of the ground-view geometry, in row-slope units.
const MIN_GROUND_VIEW_DISTANCE: f64 = 0.00001;
/// Tolerance on the 0–1 range of a derate before it is discarded.
pub const DERATE_TOLERANCE: f64 = 0.00001;

/// Shaded share (0–1) of a fixed open-rack row's area from the row in front.
///
/// * `tilt_deg`, `azimuth_deg`: surface tilt and azimuth, degrees.
/// * `sun_zenith_deg`, `sun_azimuth_deg`: sun position, degrees.
pub fn fixed_row_shaded_fraction(
    layout: &ArrayLayout,
    tilt_deg: f64,
    azimuth_deg: f64,
    sun_zenith_deg: f64,
    sun_azimuth_deg: f64,
) -> f64 {
    let side = layout.slope_length();
    let row_length = f64::from(layout.modules_along) * layout.module.width;
    let spacing = if layout.row_spacing < MIN_ROW_SPACING {
        MIN_ROW_SPACING
    } else {
        layout.row_spacing
    };
    let relative_azimuth = sun_azimuth_deg - azimuth_deg;
    let (py, px) = if sun_zenith_deg < 90.0 && tilt_deg != 0.0 && relative_azimuth.abs() < 90.0 {
        let tan_elevation = tand(90.0 - sun_zenith_deg);
        (
            side * (cosd(tilt_deg) + cosd(relative_azimuth) * sind(tilt_deg) / tan_elevation),
            side * sind(tilt_deg) * sind(relative_azimuth) / tan_elevation,
        )
    } else {
        (0.0, 0.0)
    };
    let mut along = if py == 0.0 { 0.0 } else { spacing * px / py };
    along = along.max(0.0).min(row_length);
    if layout.strings_along > 1 {
        along = 0.0;
    }
    let height = if py == 0.0 {
        0.0
    } else {
        side * (1.0 - spacing / py)
    };
    let height = height.max(0.0).min(side);
    height * (row_length - along) / (side * row_length)
}

/// Derate factors of the plane-of-array diffuse irradiance from self-shading.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiffuseDerates {
    /// Factor on sky diffuse (and the rear side).
    pub sky: f64,
    /// Factor on ground-reflected diffuse.
    pub ground: f64,
}

/// Sky and ground diffuse derates of a row (Deline et al. 2013).
///
/// * `sun_zenith_deg`, `tilt_deg`: degrees; `dni`, `dhi`: W/m².
/// * `poa_sky`, `poa_ground`: plane-of-array sky and ground diffuse, W/m².
/// * `albedo`: ground reflectance; `sky_view`: the array's sky-view cache.
#[allow(clippy::too_many_arguments)]
pub fn diffuse_derates(
    layout: &ArrayLayout,
    sun_zenith_deg: f64,
    tilt_deg: f64,
    dni: f64,
    dhi: f64,
    poa_sky: f64,
    poa_ground: f64,
    albedo: f64,
    sky_view: &mut SkyViewCache,
) -> DiffuseDerates {
    if poa_sky + poa_ground < MIN_DIFFUSE_FOR_DERATE {
        return DiffuseDerates {
            sky: 1.0,
            ground: 1.0,
        };
    }
    let spacing = if layout.row_spacing < MIN_ROW_SPACING {
        MIN_ROW_SPACING
    } else {
        layout.row_spacing
    };
    let gcr = layout.slope_length() / spacing;
    let rows = f64::from(layout.rows);
    let beam_horizontal = dni * cosd(sun_zenith_deg);
    let relative_spacing = 1.0 / gcr;
    let sky = sky_view.derate(tilt_deg).min(1.0);
    let sun_elevation = 90.0 - sun_zenith_deg;
    let half_tilt_sine = sind(tilt_deg / 2.0);
    let near = albedo * (half_tilt_sine * half_tilt_sine);
    let distance = (relative_spacing
        - sind(180.0 - sun_elevation - tilt_deg) / sind(sun_elevation))
    .max(MIN_GROUND_VIEW_DISTANCE);
    let view =
        |d: f64| 0.5 * albedo * (1.0 + d - (d * d - 2.0 * d * cosd(180.0 - tilt_deg) + 1.0).sqrt());
    let sunlit_ground = view(distance);
    let open_ground = view(relative_spacing);
    let unshaded = near * (beam_horizontal + dhi);
    let reduced = (near + (rows - 1.0) * sunlit_ground) / rows * beam_horizontal
        + (near + (rows - 1.0) * open_ground) / rows * dhi;
    DiffuseDerates {
        sky,
        ground: if unshaded > 0.0 {
            reduced / unshaded
        } else {
            1.0
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pvwatts::params::ArrayType;
    use crate::pvwatts::v8::layout::ModuleGeometry;

    fn rack() -> ArrayLayout {
        ArrayLayout::new(
            4000.0,
            ArrayType::FixedOpenRack,
            0.4,
            ModuleGeometry::of(0.19),
        )
    }

    #[test]
    fn low_sun_in_front_shades_the_rows() {
        let layout = rack();
        let low = fixed_row_shaded_fraction(&layout, 30.0, 180.0, 80.0, 180.0);
        let high = fixed_row_shaded_fraction(&layout, 30.0, 180.0, 30.0, 180.0);
        assert!(low > 0.3 && low <= 1.0, "{low}");
        assert_eq!(high, 0.0);
        assert_eq!(
            fixed_row_shaded_fraction(&layout, 30.0, 180.0, 80.0, 20.0),
            0.0,
            "sun behind"
        );
        assert_eq!(
            fixed_row_shaded_fraction(&layout, 0.0, 180.0, 80.0, 180.0),
            0.0,
            "flat rows"
        );
        let oblique = fixed_row_shaded_fraction(&layout, 30.0, 180.0, 80.0, 240.0);
        assert!(oblique < low, "{oblique} vs {low}");
    }

    #[test]
    fn diffuse_is_derated_between_rows_only() {
        let layout = rack();
        let mut cache = SkyViewCache::new(30.0, 0.4);
        let derates = diffuse_derates(
            &layout, 40.0, 30.0, 700.0, 100.0, 120.0, 15.0, 0.2, &mut cache,
        );
        assert!(derates.sky < 1.0 && derates.sky > 0.8, "{derates:?}");
        assert!(derates.ground < 1.0 && derates.ground > 0.0, "{derates:?}");
        let dark = diffuse_derates(&layout, 40.0, 30.0, 0.0, 0.05, 0.04, 0.0, 0.2, &mut cache);
        assert_eq!(
            dark,
            DiffuseDerates {
                sky: 1.0,
                ground: 1.0
            }
        );
    }
}

//! The WIND Toolkit grid, as the optimizer service checks a Wind site against it before it
//! would download the resource: a point is in the toolkit when its cell of the 2 km grid on the
//! toolkit's Lambert conformal conic projection lies within the grid's 2976 × 1602 cells.
//!
//! Projection (PROJ `+proj=lcc +lat_1=30 +lat_2=60 +lat_0=38.47240422490422 +lon_0=-96
//! +ellps=sphere`, the sphere of radius 6 370 997 m), grid origin (the first cell's centre) at
//! 19.624062° N, 123.30661° W; a point's cell is its offset from the origin in metres divided by
//! 2000 and rounded half to even (Python's `round`). Facts from the REopt API's
//! `lat_lon_in_windtoolkit` (reoptjl/validators.py), after NREL hsds-examples' `indicesForCoord`.
//! Formulas: J. P. Snyder, "Map Projections — A Working Manual", USGS PP 1395 (1987), eqs.
//! 15-1 to 15-5 (sphere).

/// Radius of PROJ's `sphere` ellipsoid (m).
const SPHERE_RADIUS_M: f64 = 6_370_997.0;
/// Standard parallels, latitude of origin and central meridian (degrees).
const STANDARD_PARALLELS_DEG: (f64, f64) = (30.0, 60.0);
const ORIGIN_LATITUDE_DEG: f64 = 38.472_404_224_904_22;
const CENTRAL_MERIDIAN_DEG: f64 = -96.0;
/// The first cell's centre (latitude, longitude; degrees).
const GRID_ORIGIN_DEG: (f64, f64) = (19.624_062, -123.306_61);
/// Cell size (m) and the grid's cells east (x) and north (y).
const CELL_M: f64 = 2000.0;
const CELLS_X: i64 = 2976;
const CELLS_Y: i64 = 1602;

/// Easting and northing (m) of a point (degrees) on the toolkit's projection.
pub fn project(latitude_deg: f64, longitude_deg: f64) -> (f64, f64) {
    let (phi1, phi2) = (STANDARD_PARALLELS_DEG.0.to_radians(), STANDARD_PARALLELS_DEG.1.to_radians());
    let half_tan = |phi: f64| (std::f64::consts::FRAC_PI_4 + phi / 2.0).tan();
    let n = (phi1.cos() / phi2.cos()).ln() / (half_tan(phi2) / half_tan(phi1)).ln();
    let f = phi1.cos() * half_tan(phi1).powf(n) / n;
    let rho = SPHERE_RADIUS_M * f / half_tan(latitude_deg.to_radians()).powf(n);
    let rho0 = SPHERE_RADIUS_M * f / half_tan(ORIGIN_LATITUDE_DEG.to_radians()).powf(n);
    let mut dlon = (longitude_deg - CENTRAL_MERIDIAN_DEG).to_radians();
    // PROJ brings the longitude difference into −π..π.
    dlon = (dlon + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
    let theta = n * dlon;
    (rho * theta.sin(), rho0 - rho * theta.cos())
}

/// The (row, column) cell of a point in the WIND Toolkit grid, or None outside it.
pub fn toolkit_cell(latitude_deg: f64, longitude_deg: f64) -> Option<(i64, i64)> {
    if !latitude_deg.is_finite() || !longitude_deg.is_finite() || latitude_deg.abs() >= 90.0 {
        return None;
    }
    let origin = project(GRID_ORIGIN_DEG.0, GRID_ORIGIN_DEG.1);
    let point = project(latitude_deg, longitude_deg);
    #[allow(clippy::cast_possible_truncation, reason = "a rounded cell index, far inside i64 for any point on the sphere")]
    let cell = |offset: f64| (offset / CELL_M).round_ties_even() as i64;
    let (x, y) = (cell(point.0 - origin.0), cell(point.1 - origin.1));
    ((0..CELLS_X).contains(&x) && (0..CELLS_Y).contains(&y)).then_some((y, x))
}

/// Whether the service finds a point in the WIND Toolkit.
pub fn in_toolkit(latitude_deg: f64, longitude_deg: f64) -> bool {
    toolkit_cell(latitude_deg, longitude_deg).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_is_the_first_cell_and_the_central_meridian_runs_north() {
        assert_eq!(toolkit_cell(GRID_ORIGIN_DEG.0, GRID_ORIGIN_DEG.1), Some((0, 0)));
        let (x, y) = project(ORIGIN_LATITUDE_DEG, CENTRAL_MERIDIAN_DEG);
        assert!(x.abs() < 1e-6 && y.abs() < 1e-6, "{x} {y}");
        let (x, north) = project(ORIGIN_LATITUDE_DEG + 1.0, CENTRAL_MERIDIAN_DEG);
        // A degree of the sphere is 111.19 km; between the standard parallels the scale is below 1.
        let scale = north / (SPHERE_RADIUS_M * 1.0_f64.to_radians());
        assert!(x.abs() < 1e-6 && (0.95..1.0).contains(&scale), "{scale}");
    }

    #[test]
    fn conus_sites_are_in_the_toolkit_and_far_ones_are_not() {
        for (lat, lon) in [(39.91065, -105.2348), (38.9228, -95.94535), (34.5794343, -118.1164613), (44.9, -68.7), (25.8, -80.2)] {
            assert!(in_toolkit(lat, lon), "{lat}, {lon}");
        }
        for (lat, lon) in [(21.3, -157.9), (61.2, -149.9), (51.5, -0.1), (-33.9, 151.2), (10.0, -84.0), (19.62, -123.4)] {
            assert!(!in_toolkit(lat, lon), "{lat}, {lon}");
        }
        assert!(!in_toolkit(f64::NAN, 0.0) && !in_toolkit(90.0, 0.0));
    }
}

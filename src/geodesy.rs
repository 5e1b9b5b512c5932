//! Distances on the Earth as a sphere: what the station search, the climate grid, WKT areas
//! and the technical-potential regions measure with.

/// Mean Earth radius (IUGG), metres.
pub const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Great-circle distance between two points given in degrees, metres.
pub fn haversine_m(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (phi1, phi2) = (lat1.to_radians(), lat2.to_radians());
    let half_dphi = (phi2 - phi1) / 2.0;
    let half_dlambda = (lon2 - lon1).to_radians() / 2.0;
    let a = half_dphi.sin().powi(2) + phi1.cos() * phi2.cos() * half_dlambda.sin().powi(2);
    let a = a.clamp(0.0, 1.0);
    2.0 * EARTH_RADIUS_M * a.sqrt().atan2((1.0 - a).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn haversine_matches_known_distances() {
        let quarter = haversine_m(0.0, 0.0, 0.0, 90.0);
        assert!((quarter - EARTH_RADIUS_M * std::f64::consts::FRAC_PI_2).abs() < 1e-6);
        assert!(haversine_m(40.0, -105.0, 40.0, -105.0).abs() < 1e-9);
        // Haversine is ill-conditioned at the antipode; a decimetre there is within its rounding.
        let antipode = haversine_m(10.0, 20.0, -10.0, -160.0);
        assert!((antipode - EARTH_RADIUS_M * std::f64::consts::PI).abs() < 1.0);
    }
}

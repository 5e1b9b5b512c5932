//! Inline, branch-free sin, cos, tan, atan2, asin and floor for the solar position.
//! `fast_cos` trades the relative accuracy of `sin_cos` near the zeros of cos for speed.
//!
//! The solar position of a year is computed for thousands of sun-up hours at once. The C library's
//! functions are out-of-line calls with branches on the argument range, which keep the compiler
//! from evaluating several hours per vector instruction. The functions here have no calls and no
//! branches (only selects), so a loop over hours that uses them is vectorised. Each is accurate to
//! a few units in the last place (ulp) and differs from the C library's result in the last bits
//! for some arguments; the tests below bound both. Such differences move a sun position by about
//! 1e-16 rad, far below the engine's tolerances against SSC (1e-9 relative on every output).
//!
//! sin/cos: Cody–Waite reduction x = k·π/2 + r with |r| ≤ π/4, π/2 split into three parts (the
//! first two with 27 significant bits, so k·part is exact for |k| < 2²⁶), then the Taylor series of
//! sin r to r¹⁷ and of cos r to r¹⁶ (truncation errors below 1e-19 and 3e-18 on |r| ≤ π/4), and
//! the quadrant k mod 4 selecting ±sin r or ±cos r; within 1 ulp for |x| < 1e8.
//!
//! atan: a = min(|x|, |y|)/max(|x|, |y|) in [0, 1]; above tan(π/12) it is reduced by
//! atan a = π/6 + atan((a·√3 − 1)/(a + √3)), so the Taylor series runs on |v| ≤ tan(π/12) =
//! 0.268, where its terms up to v²⁹ leave a truncation error below 1e-18; the octant is restored
//! with π/2 − r and π − r. asin x = atan2(x, √((1 − x)(1 + x))).

/// 2/π.
const FRAC_2_PI: f64 = std::f64::consts::FRAC_2_PI;
/// π/2 = `HALF_PI_1` + `HALF_PI_2` + `HALF_PI_3` (error 4e-35).
const HALF_PI_1: f64 = 1.570_796_325_802_803;
const HALF_PI_2: f64 = 9.920_935_739_593_517e-10;
const HALF_PI_3: f64 = 5.721_188_726_109_832e-18;
/// 1.5·2⁵²: adding and subtracting it rounds to the nearest integer (|value| < 2⁵¹), and the
/// low bits of the sum hold that integer in two's complement.
const ROUNDING_SHIFTER: f64 = 6_755_399_441_055_744.0;
/// Taylor coefficients (−1)ⁿ/(2n+1)! of sin r, n = 1…8.
const SIN_COEFFICIENTS: [f64; 8] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 1_307_674_368_000.0,
    1.0 / 355_687_428_096_000.0,
];

/// Horner evaluation of Σ cᵢ·zⁱ.
#[inline(always)]
fn horner(z: f64, coefficients: &[f64]) -> f64 {
    coefficients
        .iter()
        .rev()
        .fold(0.0, |sum, &coefficient| sum * z + coefficient)
}

/// (sin x, cos x) for x in radians; see the module documentation for the accuracy.
#[inline(always)]
pub fn sin_cos(x: f64) -> (f64, f64) {
    let shifted = x * FRAC_2_PI + ROUNDING_SHIFTER;
    let quadrant = shifted.to_bits();
    let k = shifted - ROUNDING_SHIFTER;
    // x − k·HALF_PI_1 and k·HALF_PI_2 are exact; the rounding error of their difference is
    // recovered exactly (two-sum), so r_hi + r_lo is the reduced argument to about 2⁻¹⁰⁶.
    let r1 = x - k * HALF_PI_1;
    let middle = k * HALF_PI_2;
    let r2 = r1 - middle;
    let middle_part = r2 - r1;
    let r1_part = r2 - middle_part;
    let r2_error = (r1 - r1_part) - (middle + middle_part);
    let r_hi = r2 - k * HALF_PI_3;
    let r_lo = ((r2 - r_hi) - k * HALF_PI_3) + r2_error;
    let z = r_hi * r_hi;
    // 1 − z/2 rounded, plus its rounding error ((1 − w) − z/2 is exact) with the small terms;
    // r_lo enters through sin(r + δ) ≈ sin r + δ·cos r and cos(r + δ) ≈ cos r − δ·sin r.
    let half_z = 0.5 * z;
    let w = 1.0 - half_z;
    let sin_r = r_hi + (r_hi * z * horner(z, &SIN_COEFFICIENTS) + r_lo * w);
    let cos_r = w
        + ((((1.0 - w) - half_z) + z * z * horner(z, &COS_TAYLOR_COEFFICIENTS[1..8]))
            - r_hi * r_lo);
    // Quadrant k mod 4: (sin, cos) = (s, c), (c, −s), (−s, −c), (−c, s).
    let odd = quadrant & 1 != 0;
    let (sin_abs, cos_abs) = if odd { (cos_r, sin_r) } else { (sin_r, cos_r) };
    let sin_sign = (quadrant & 2) << 62;
    let cos_sign = ((quadrant ^ (quadrant >> 1)) & 1) << 63;
    (
        f64::from_bits(sin_abs.to_bits() ^ sin_sign),
        f64::from_bits(cos_abs.to_bits() ^ cos_sign),
    )
}

/// π = `PI_HI` + `PI_LO` (error 7e-27); `PI_HI` has 33 significant bits, so k·`PI_HI` is exact
/// for |k| < 2²⁰.
const PI_HI: f64 = 3.141_592_653_468_251_2;
const PI_LO: f64 = 1.215_420_101_301_238_4e-10;
/// Taylor coefficients (−1)ⁿ/(2n)! of cos r, n = 1…10 (`sin_cos` uses n = 2…8).
const COS_TAYLOR_COEFFICIENTS: [f64; 10] = [
    -1.0 / 2.0,
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40_320.0,
    -1.0 / 3_628_800.0,
    1.0 / 479_001_600.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 20_922_789_888_000.0,
    -1.0 / 6_402_373_705_728_000.0,
    1.0 / 2_432_902_008_176_640_000.0,
];

/// cos x for |x| < 1e6 rad with an absolute error below 5e-16: one reduction x = k·π + r
/// (|r| ≤ π/2, the product k·π carried to 2⁻⁸⁰), the Taylor series of cos r to r²⁰ (truncation
/// error 1.8e-17), and the sign of (−1)ᵏ. About half the work of `sin_cos`. Its error is
/// absolute, not relative: it suits terms such as A·cos(ωt + φ) added into a larger sum, like the
/// periodic terms of the solar position series.
#[inline(always)]
pub fn fast_cos(x: f64) -> f64 {
    let shifted = x * std::f64::consts::FRAC_1_PI + ROUNDING_SHIFTER;
    let odd = shifted.to_bits() & 1;
    let k = shifted - ROUNDING_SHIFTER;
    let r = (x - k * PI_HI) - k * PI_LO;
    let z = r * r;
    let cos_r = 1.0 + z * horner(z, &COS_TAYLOR_COEFFICIENTS);
    f64::from_bits(cos_r.to_bits() ^ (odd << 63))
}

/// 2⁵²: adding and subtracting it rounds a value in [0, 2⁵²) to the nearest integer.
const TWO_POW_52: f64 = 4_503_599_627_370_496.0;

/// The largest integer not above `x`, identical to `f64::floor` for every input (including −0,
/// infinities and NaN). On x86-64 without SSE4.1 `f64::floor` is a library call; this is
/// branch-free, so it vectorises.
#[inline(always)]
pub fn floor(x: f64) -> f64 {
    let magnitude = x.abs();
    let nearest = (magnitude + TWO_POW_52) - TWO_POW_52;
    let floor_of_magnitude = if nearest > magnitude {
        nearest - 1.0
    } else {
        nearest
    };
    let ceil_of_magnitude = if nearest < magnitude {
        nearest + 1.0
    } else {
        nearest
    };
    let floored = if x.is_sign_negative() {
        -ceil_of_magnitude
    } else {
        floor_of_magnitude
    };
    // Magnitudes of 2⁵² and more, infinities and NaN are their own floor; the sign of a zero
    // result is the sign of x (floor(−0) = −0).
    if magnitude < TWO_POW_52 {
        floored.copysign(x)
    } else {
        x
    }
}

/// tan x = sin x / cos x for x in radians (within 2 ulp where |tan x| is not huge).
#[inline(always)]
pub fn tan(x: f64) -> f64 {
    let (sin, cos) = sin_cos(x);
    sin / cos
}

/// tan(π/12), the threshold of the π/6 argument reduction of `atan_unit`.
const TAN_PI_12: f64 = 0.267_949_192_431_122_7;
/// √3.
const SQRT_3: f64 = 1.732_050_807_568_877_2;
/// Taylor coefficients (−1)ⁿ/(2n+1) of atan v, n = 1…14.
const ATAN_COEFFICIENTS: [f64; 14] = [
    -1.0 / 3.0,
    1.0 / 5.0,
    -1.0 / 7.0,
    1.0 / 9.0,
    -1.0 / 11.0,
    1.0 / 13.0,
    -1.0 / 15.0,
    1.0 / 17.0,
    -1.0 / 19.0,
    1.0 / 21.0,
    -1.0 / 23.0,
    1.0 / 25.0,
    -1.0 / 27.0,
    1.0 / 29.0,
];

/// atan a for a in [0, 1], radians in [0, π/4].
#[inline(always)]
fn atan_unit(a: f64) -> f64 {
    let reduced = a > TAN_PI_12;
    let v = if reduced {
        (a * SQRT_3 - 1.0) / (a + SQRT_3)
    } else {
        a
    };
    let offset = if reduced {
        std::f64::consts::FRAC_PI_6
    } else {
        0.0
    };
    let z = v * v;
    offset + (v + v * z * horner(z, &ATAN_COEFFICIENTS))
}

/// atan2(y, x), radians in [−π, π], with the C library's conventions for signed zeros
/// (atan2(±0, +0) = ±0, atan2(±0, −0) = ±π).
#[inline(always)]
pub fn atan2(y: f64, x: f64) -> f64 {
    let (abs_x, abs_y) = (x.abs(), y.abs());
    let steep = abs_y > abs_x;
    let (small, large) = if steep {
        (abs_x, abs_y)
    } else {
        (abs_y, abs_x)
    };
    let ratio = if large == 0.0 { 0.0 } else { small / large };
    let first_octant = atan_unit(ratio);
    let first_quadrant = if steep {
        std::f64::consts::FRAC_PI_2 - first_octant
    } else {
        first_octant
    };
    let half_turn = if x.is_sign_negative() {
        std::f64::consts::PI - first_quadrant
    } else {
        first_quadrant
    };
    half_turn.copysign(y)
}

/// asin x, radians in [−π/2, π/2]; NaN for |x| > 1.
#[inline(always)]
pub fn asin(x: f64) -> f64 {
    atan2(x, ((1.0 - x) * (1.0 + x)).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift64 sequence of uniform numbers in [0, 1) from `seed`.
    fn uniform(seed: u64) -> impl FnMut() -> f64 {
        let mut state = seed;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Distance in units in the last place of `reference`.
    fn ulps(value: f64, reference: f64) -> f64 {
        let ulp = f64::from_bits(reference.abs().to_bits() + 1) - reference.abs();
        (value - reference).abs() / ulp.max(f64::MIN_POSITIVE)
    }

    #[test]
    fn sine_and_cosine_match_the_c_library() {
        let mut next = uniform(0x2545_f491_4f6c_dd1d_u64);
        let mut worst: f64 = 0.0;
        let mut differing = 0;
        for scale in [1.0, 10.0, 1e3, 1e4, 1e6, 1e8] {
            for _ in 0..200_000 {
                let x = (2.0 * next() - 1.0) * scale;
                let (s, c) = sin_cos(x);
                // Absolute error allowed near zeros: half an ulp of x (the argument's own rounding).
                let floor = x.abs() * f64::EPSILON / 2.0;
                for (value, reference) in [(s, x.sin()), (c, x.cos())] {
                    let error = if reference.abs() < floor {
                        (value - reference).abs() / floor
                    } else {
                        ulps(value, reference)
                    };
                    worst = worst.max(error);
                    differing += usize::from(value != reference);
                }
            }
        }
        assert!(worst <= 1.0, "worst error {worst} ulp");
        assert!(differing < 2_400_000 / 20, "{differing} results differ");
        for x in [
            0.0,
            -0.0,
            1e-300,
            std::f64::consts::FRAC_PI_2,
            std::f64::consts::PI,
        ] {
            let (s, c) = sin_cos(x);
            assert!(ulps(s, x.sin()) <= 1.0 && ulps(c, x.cos()) <= 1.0, "{x}");
        }
        assert!(sin_cos(f64::NAN).1.is_nan() && sin_cos(f64::INFINITY).0.is_nan());
    }

    /// Error of `value` in ulp of `reference`, with an absolute floor of `floor` (for results
    /// near zero, whose accuracy is limited by the argument's own rounding).
    fn error_ulps(value: f64, reference: f64, floor: f64) -> f64 {
        if reference.abs() < floor {
            (value - reference).abs() / floor
        } else {
            ulps(value, reference)
        }
    }

    #[test]
    fn inverse_functions_and_tan_match_the_c_library() {
        let mut next = uniform(0x853c_49e6_748f_ea9b_u64);
        let (mut worst_atan2, mut worst_asin, mut worst_tan): (f64, f64, f64) = (0.0, 0.0, 0.0);
        for scale in [1e-8, 1e-3, 1.0, 10.0, 1e4] {
            for _ in 0..100_000 {
                let (y, x) = ((2.0 * next() - 1.0) * scale, 2.0 * next() - 1.0);
                worst_atan2 = worst_atan2.max(ulps(atan2(y, x), y.atan2(x)));
                worst_atan2 = worst_atan2.max(ulps(atan2(x, y), x.atan2(y)));
                let s = 2.0 * next() - 1.0;
                worst_asin = worst_asin.max(ulps(asin(s), s.asin()));
                // The sun's elevation and declination stay within ±90°; tan is used well inside.
                let t = (2.0 * next() - 1.0) * 1.5;
                worst_tan = worst_tan.max(error_ulps(tan(t), t.tan(), f64::EPSILON * t.abs()));
            }
        }
        assert!(worst_atan2 <= 2.0, "atan2: {worst_atan2} ulp");
        assert!(worst_asin <= 3.0, "asin: {worst_asin} ulp");
        assert!(worst_tan <= 3.0, "tan: {worst_tan} ulp");
        let signed_zeros = [
            (0.0, 0.0),
            (-0.0, 0.0),
            (0.0, -0.0),
            (-0.0, -0.0),
            (1.0, 0.0),
            (-1.0, -0.0),
        ];
        for (y, x) in signed_zeros {
            let (got, expected): (f64, f64) = (atan2(y, x), y.atan2(x));
            assert_eq!(got.to_bits(), expected.to_bits(), "atan2({y}, {x})");
        }
        for x in [1.0, -1.0, 0.0, -0.0] {
            assert_eq!(asin(x).to_bits(), x.asin().to_bits(), "asin({x})");
        }
        assert!(asin(1.0 + f64::EPSILON).is_nan() && atan2(f64::NAN, 1.0).is_nan());
        assert!(atan2(1.0, f64::NAN).is_nan());
    }

    #[test]
    fn fast_cosine_is_within_its_absolute_error_bound() {
        let mut next = uniform(0x9e37_79b9_7f4a_7c15_u64);
        let mut worst: f64 = 0.0;
        for scale in [1.0, 10.0, 1e3, 1e4, 1e6] {
            for _ in 0..200_000 {
                let x = (2.0 * next() - 1.0) * scale;
                worst = worst.max((fast_cos(x) - x.cos()).abs());
            }
        }
        assert!(worst <= 5e-16, "fast_cos: absolute error {worst:e}");
        for x in [0.0, -0.0] {
            assert_eq!(fast_cos(x), 1.0);
        }
        assert!(fast_cos(f64::NAN).is_nan() && fast_cos(f64::INFINITY).is_nan());
    }

    #[test]
    fn floor_matches_the_library_floor() {
        let special = [
            0.0,
            -0.0,
            -0.5,
            0.5,
            -1.0,
            1.0,
            -2.5,
            2.5,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            1e300,
            -1e300,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let random = (0..100_000).map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            f64::from_bits(state)
        });
        for x in special.into_iter().chain(random) {
            let (got, expected) = (floor(x), x.floor());
            assert!(
                got.to_bits() == expected.to_bits() || (got.is_nan() && expected.is_nan()),
                "{x:e}: {got:e} vs {expected:e}"
            );
        }
    }
}

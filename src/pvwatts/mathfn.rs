//! Inline cosine and floor for the solar position.
//!
//! Each solar position sums 19 periodic terms (SG2 longitude, SPA latitude, nutation,
//! obliquity). The C library's `cos` is an out-of-line call with branches on the argument range;
//! `cos_each` here is branch-free, so the compiler evaluates two terms per SSE2 instruction. It is
//! accurate to one unit in the last place (ulp) for |x| < 1e8 (of the larger of |cos x| and
//! 2⁻⁵³·|x|/2) and differs from the C library's result in the last bit for about 3 % of
//! arguments. The series multiply these cosines by amplitudes of at most 0.034 and add them to
//! sums of magnitude above 1, which absorb such differences: no sun position of the regression
//! sweep (16 site-years) changed by a single bit.
//!
//! Method: Cody–Waite reduction x = k·π/2 + r with |r| ≤ π/4, π/2 split into three parts (the
//! first two with 27 significant bits, so k·part is exact for |k| < 2²⁶), then the Taylor series of
//! sin r to r¹⁷ and of cos r to r¹⁶ (truncation errors below 1e-19 and 3e-18 on |r| ≤ π/4), and
//! the quadrant k mod 4 selecting ±sin r or ±cos r.

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
/// Taylor coefficients (−1)ⁿ/(2n)! of cos r, n = 2…8.
const COS_COEFFICIENTS: [f64; 7] = [
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40_320.0,
    -1.0 / 3_628_800.0,
    1.0 / 479_001_600.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 20_922_789_888_000.0,
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
fn sin_cos(x: f64) -> (f64, f64) {
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
    let cos_r = w + ((((1.0 - w) - half_z) + z * z * horner(z, &COS_COEFFICIENTS)) - r_hi * r_lo);
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

/// The largest integer not above `x`, identical to `f64::floor` for every input (including −0,
/// infinities and NaN). On x86-64 without SSE4.1 `f64::floor` is a library call; this is a
/// truncating conversion and a comparison.
#[inline(always)]
pub fn floor(x: f64) -> f64 {
    // Magnitudes of 2⁵² and more, infinities and NaN are their own floor.
    if x.is_nan() || x.abs() >= 4_503_599_627_370_496.0 {
        return x;
    }
    // Truncation toward zero, keeping the sign of x so that −0 (and −0.x) stay negative.
    let truncated = (x as i64 as f64).copysign(x);
    if truncated > x {
        truncated - 1.0
    } else {
        truncated
    }
}

/// cos of every element of `x` (radians); see the module documentation for the accuracy. One
/// loop without calls or branches, which the compiler vectorises.
#[inline(always)]
pub fn cos_each<const N: usize>(x: [f64; N]) -> [f64; N] {
    let mut cosines = [0.0; N];
    for (cosine, &x) in cosines.iter_mut().zip(&x) {
        *cosine = sin_cos(x).1;
    }
    cosines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place of `reference`.
    fn ulps(value: f64, reference: f64) -> f64 {
        let ulp = f64::from_bits(reference.abs().to_bits() + 1) - reference.abs();
        (value - reference).abs() / ulp.max(f64::MIN_POSITIVE)
    }

    #[test]
    fn sine_and_cosine_match_the_c_library() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
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
        let arguments = [0.5, 1.0, 100.0, -2000.0, 3e4];
        let cosines = cos_each(arguments);
        for (x, c) in arguments.iter().zip(cosines) {
            assert_eq!(c, sin_cos(*x).1);
        }
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

//! Water and steam properties from the IAPWS Industrial Formulation 1997 (IAPWS-IF97, release
//! IAPWS R7-97(2012)): region 1 (compressed liquid, eq. 7), region 2 (superheated vapour,
//! eqs. 15–17) and region 4 (the saturation line, eqs. 30–31), with the saturated states taken
//! from regions 1 and 2 at (p_s, T_s) as the release prescribes. The steam turbine's ratios need
//! what the service asks CoolProp's `PropsSI` for (REopt.jl `assign_st_elec_and_therm_prod_ratios!`
//! in `src/core/steam_turbine.jl`): h and s at (p, T), T_sat(p), h at (p, s), the quality at
//! (p, h) and the saturated liquid's h. IF97 shares IAPWS-95's reference state; in the turbine's
//! range it agrees with CoolProp's IAPWS-95 to about 2e-5 relative in the vapour's h, its
//! saturation temperature lies some mK off (2e-4 of the saturated liquid's h at 11 bar), and the
//! turbine's ratios come within 5e-5 relative of those CoolProp gives.
//!
//! Pure functions in SI units as `PropsSI` takes them: pressure in Pa, temperature in K, specific
//! enthalpy in J/kg, specific entropy in J/(kg·K). A state outside regions 1, 2 and 4 (region 3
//! near the critical point, region 5 above 1073.15 K, below the triple point) is `None`.

/// Specific gas constant of water, kJ/(kg·K) (IAPWS R7-97(2012), eq. 1).
const R_KJ_PER_KG_K: f64 = 0.461526;

/// Region 1 reducing pressure (MPa) and temperature (K) (IAPWS R7-97(2012), eq. 7).
const REGION1_P_STAR_MPA: f64 = 16.53;
const REGION1_T_STAR_K: f64 = 1386.0;
/// Region 1 coefficients (I_i, J_i, n_i), IAPWS R7-97(2012) Table 2.
const REGION1: [(i32, i32, f64); 34] = [
    (0, -2, 0.14632971213167),
    (0, -1, -0.84548187169114),
    (0, 0, -0.37563603672040e1),
    (0, 1, 0.33855169168385e1),
    (0, 2, -0.95791963387872),
    (0, 3, 0.15772038513228),
    (0, 4, -0.16616417199501e-1),
    (0, 5, 0.81214629983568e-3),
    (1, -9, 0.28319080123804e-3),
    (1, -7, -0.60706301565874e-3),
    (1, -1, -0.18990068218419e-1),
    (1, 0, -0.32529748770505e-1),
    (1, 1, -0.21841717175414e-1),
    (1, 3, -0.52838357969930e-4),
    (2, -3, -0.47184321073267e-3),
    (2, 0, -0.30001780793026e-3),
    (2, 1, 0.47661393906987e-4),
    (2, 3, -0.44141845330846e-5),
    (2, 17, -0.72694996297594e-15),
    (3, -4, -0.31679644845054e-4),
    (3, 0, -0.28270797985312e-5),
    (3, 6, -0.85205128120103e-9),
    (4, -5, -0.22425281908000e-5),
    (4, -2, -0.65171222895601e-6),
    (4, 10, -0.14341729937924e-12),
    (5, -8, -0.40516996860117e-6),
    (8, -11, -0.12734301741641e-8),
    (8, -6, -0.17424871230634e-9),
    (21, -29, -0.68762131295531e-18),
    (23, -31, 0.14478307828521e-19),
    (29, -38, 0.26335781662795e-22),
    (30, -39, -0.11947622640071e-22),
    (31, -40, 0.18228094581404e-23),
    (32, -41, -0.93537087292458e-25),
];

/// Region 2 reducing pressure (MPa) and temperature (K) (IAPWS R7-97(2012), eq. 15).
const REGION2_P_STAR_MPA: f64 = 1.0;
const REGION2_T_STAR_K: f64 = 540.0;
/// Region 2 ideal-gas part (J°_i, n°_i), IAPWS R7-97(2012) Table 10.
const REGION2_IDEAL: [(i32, f64); 9] = [
    (0, -0.96927686500217e1),
    (1, 0.10086655968018e2),
    (-5, -0.56087911283020e-2),
    (-4, 0.71452738081455e-1),
    (-3, -0.40710498223928),
    (-2, 0.14240819171444e1),
    (-1, -0.43839511319450e1),
    (2, -0.28408632460772),
    (3, 0.21268463753307e-1),
];
/// Region 2 residual part (I_i, J_i, n_i), IAPWS R7-97(2012) Table 11.
const REGION2_RESIDUAL: [(i32, i32, f64); 43] = [
    (1, 0, -0.17731742473213e-2),
    (1, 1, -0.17834862292358e-1),
    (1, 2, -0.45996013696365e-1),
    (1, 3, -0.57581259083432e-1),
    (1, 6, -0.50325278727930e-1),
    (2, 1, -0.33032641670203e-4),
    (2, 2, -0.18948987516315e-3),
    (2, 4, -0.39392777243355e-2),
    (2, 7, -0.43797295650573e-1),
    (2, 36, -0.26674547914087e-4),
    (3, 0, 0.20481737692309e-7),
    (3, 1, 0.43870667284435e-6),
    (3, 3, -0.32277677238570e-4),
    (3, 6, -0.15033924542148e-2),
    (3, 35, -0.40668253562649e-1),
    (4, 1, -0.78847309559367e-9),
    (4, 2, 0.12790717852285e-7),
    (4, 3, 0.48225372718507e-6),
    (5, 7, 0.22922076337661e-5),
    (6, 3, -0.16714766451061e-10),
    (6, 16, -0.21171472321355e-2),
    (6, 35, -0.23895741934104e2),
    (7, 0, -0.59059564324270e-17),
    (7, 11, -0.12621808899101e-5),
    (7, 25, -0.38946842435739e-1),
    (8, 8, 0.11256211360459e-10),
    (8, 36, -0.82311340897998e1),
    (9, 13, 0.19809712802088e-7),
    (10, 4, 0.10406965210174e-18),
    (10, 10, -0.10234747095929e-12),
    (10, 14, -0.10018179379511e-8),
    (16, 29, -0.80882908646985e-10),
    (16, 50, 0.10693031879409),
    (18, 57, -0.33662250574171),
    (20, 20, 0.89185845355421e-24),
    (20, 35, 0.30629316876232e-12),
    (20, 48, -0.42002467698208e-5),
    (21, 21, -0.59056029685639e-25),
    (22, 53, 0.37826947613457e-5),
    (23, 39, -0.12768608934681e-14),
    (24, 26, 0.73087610595061e-28),
    (24, 40, 0.55414715350778e-16),
    (24, 58, -0.94369707241210e-6),
];

/// Region 4 coefficients n_1 … n_10, IAPWS R7-97(2012) Table 34.
const REGION4: [f64; 10] = [
    0.11670521452767e4,
    -0.72421316703206e6,
    -0.17073846940092e2,
    0.12020824702470e5,
    -0.32325550322333e7,
    0.14915108613530e2,
    -0.48232657361591e4,
    0.40511340542057e6,
    -0.23855557567849,
    0.65017534844798e3,
];

/// The B23 line between regions 2 and 3, p = n_1 + n_2·T + n_3·T² (MPa, K), IAPWS R7-97(2012)
/// Table 1 and eq. 5.
const B23: [f64; 3] = [0.34805185628969e3, -0.11671859879975e1, 0.10192970039326e-2];

/// Bounds of regions 1, 2 and 4 (IAPWS R7-97(2012) section 3): region 1 and the saturation line
/// below 623.15 K (above it the liquid side is region 3), region 2 up to 1073.15 K.
const T_MIN_K: f64 = 273.15;
const T_REGION1_MAX_K: f64 = 623.15;
const T_REGION2_MAX_K: f64 = 1073.15;
/// Upper pressure of regions 1 and 2 (Pa).
const P_MAX_PA: f64 = 100.0e6;
/// Saturation pressure at 273.15 K and at 623.15 K (Pa), the ends of the saturation line covered.
const P_SATURATION_MIN_PA: f64 = 611.212677;
const P_SATURATION_MAX_PA: f64 = 16.529164253e6;
const PA_PER_MPA: f64 = 1.0e6;
const J_PER_KJ: f64 = 1000.0;

/// Specific volume, enthalpy, entropy and isobaric heat capacity of one state (m³/kg, J/kg,
/// J/(kg·K), J/(kg·K)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct State {
    pub volume_m3_per_kg: f64,
    pub enthalpy_j_per_kg: f64,
    pub entropy_j_per_kg_k: f64,
    pub heat_capacity_j_per_kg_k: f64,
}

/// γ and its derivatives γ_π, γ_τ, γ_ττ of one region's dimensionless Gibbs free energy.
struct Gibbs {
    g: f64,
    g_pi: f64,
    g_tau: f64,
    g_tau_tau: f64,
}

impl Gibbs {
    /// The state from the region's reduced pressure π and inverse temperature τ (eqs. 7 and 15
    /// with Tables 3 and 12's relations).
    fn state(&self, p_pa: f64, t_k: f64, pi: f64, tau: f64) -> State {
        let rt_j_per_kg = R_KJ_PER_KG_K * J_PER_KJ * t_k;
        State {
            volume_m3_per_kg: rt_j_per_kg / p_pa * pi * self.g_pi,
            enthalpy_j_per_kg: rt_j_per_kg * tau * self.g_tau,
            entropy_j_per_kg_k: R_KJ_PER_KG_K * J_PER_KJ * (tau * self.g_tau - self.g),
            heat_capacity_j_per_kg_k: -R_KJ_PER_KG_K * J_PER_KJ * tau * tau * self.g_tau_tau,
        }
    }
}

/// Region 1 at (p, T), whatever the region the state is in (IAPWS R7-97(2012) eq. 7).
fn region1(p_pa: f64, t_k: f64) -> State {
    let pi = p_pa / PA_PER_MPA / REGION1_P_STAR_MPA;
    let tau = REGION1_T_STAR_K / t_k;
    let (a, b) = (7.1 - pi, tau - 1.222);
    let mut gibbs = Gibbs { g: 0.0, g_pi: 0.0, g_tau: 0.0, g_tau_tau: 0.0 };
    for &(i, j, n) in &REGION1 {
        let (fi, fj) = (f64::from(i), f64::from(j));
        gibbs.g += n * a.powi(i) * b.powi(j);
        gibbs.g_pi -= n * fi * a.powi(i - 1) * b.powi(j);
        gibbs.g_tau += n * a.powi(i) * fj * b.powi(j - 1);
        gibbs.g_tau_tau += n * a.powi(i) * fj * (fj - 1.0) * b.powi(j - 2);
    }
    gibbs.state(p_pa, t_k, pi, tau)
}

/// Region 2 at (p, T), whatever the region the state is in (IAPWS R7-97(2012) eqs. 15–17).
fn region2(p_pa: f64, t_k: f64) -> State {
    let pi = p_pa / PA_PER_MPA / REGION2_P_STAR_MPA;
    let tau = REGION2_T_STAR_K / t_k;
    let mut gibbs = Gibbs { g: pi.ln(), g_pi: 1.0 / pi, g_tau: 0.0, g_tau_tau: 0.0 };
    for &(j, n) in &REGION2_IDEAL {
        let fj = f64::from(j);
        gibbs.g += n * tau.powi(j);
        gibbs.g_tau += n * fj * tau.powi(j - 1);
        gibbs.g_tau_tau += n * fj * (fj - 1.0) * tau.powi(j - 2);
    }
    let b = tau - 0.5;
    for &(i, j, n) in &REGION2_RESIDUAL {
        let (fi, fj) = (f64::from(i), f64::from(j));
        gibbs.g += n * pi.powi(i) * b.powi(j);
        gibbs.g_pi += n * fi * pi.powi(i - 1) * b.powi(j);
        gibbs.g_tau += n * pi.powi(i) * fj * b.powi(j - 1);
        gibbs.g_tau_tau += n * pi.powi(i) * fj * (fj - 1.0) * b.powi(j - 2);
    }
    gibbs.state(p_pa, t_k, pi, tau)
}

/// Saturation pressure (Pa) at a temperature of 273.15–623.15 K (IAPWS R7-97(2012) eq. 30).
pub fn saturation_pressure_pa(t_k: f64) -> Option<f64> {
    if !(T_MIN_K..=T_REGION1_MAX_K).contains(&t_k) {
        return None;
    }
    let n = &REGION4;
    let theta = t_k + n[8] / (t_k - n[9]);
    let a = theta * theta + n[0] * theta + n[1];
    let b = n[2] * theta * theta + n[3] * theta + n[4];
    let c = n[5] * theta * theta + n[6] * theta + n[7];
    Some((2.0 * c / (-b + (b * b - 4.0 * a * c).sqrt())).powi(4) * PA_PER_MPA)
}

/// Saturation temperature (K) at a pressure between those of 273.15 K and 623.15 K (IAPWS
/// R7-97(2012) eq. 31).
pub fn saturation_temperature_k(p_pa: f64) -> Option<f64> {
    if !(P_SATURATION_MIN_PA..=P_SATURATION_MAX_PA).contains(&p_pa) {
        return None;
    }
    let n = &REGION4;
    let beta = (p_pa / PA_PER_MPA).powf(0.25);
    let e = beta * beta + n[2] * beta + n[5];
    let f = n[0] * beta * beta + n[3] * beta + n[6];
    let g = n[1] * beta * beta + n[4] * beta + n[7];
    let d = 2.0 * g / (-f - (f * f - 4.0 * e * g).sqrt());
    Some((n[9] + d - ((n[9] + d).powi(2) - 4.0 * (n[8] + n[9] * d)).sqrt()) / 2.0)
}

/// The single-phase state at (p, T) in region 1 or 2, by the region's bounds (IAPWS R7-97(2012)
/// section 3): liquid at or below the saturation temperature up to 623.15 K, vapour above it and,
/// past 623.15 K, below the B23 line up to 1073.15 K.
pub fn state(p_pa: f64, t_k: f64) -> Option<State> {
    if !(T_MIN_K..=T_REGION2_MAX_K).contains(&t_k) || p_pa <= 0.0 || p_pa > P_MAX_PA {
        return None;
    }
    if t_k <= T_REGION1_MAX_K {
        let p_saturation_pa = saturation_pressure_pa(t_k)?;
        return Some(if p_pa >= p_saturation_pa { region1(p_pa, t_k) } else { region2(p_pa, t_k) });
    }
    let b23_pa = (B23[0] + B23[1] * t_k + B23[2] * t_k * t_k) * PA_PER_MPA;
    (p_pa <= b23_pa).then(|| region2(p_pa, t_k))
}

/// The saturated liquid and vapour at a pressure on the covered saturation line.
pub fn saturated(p_pa: f64) -> Option<(State, State)> {
    let t_k = saturation_temperature_k(p_pa)?;
    Some((region1(p_pa, t_k), region2(p_pa, t_k)))
}

/// Specific enthalpy (J/kg) at a pressure and specific entropy: the two-phase mixture between
/// the saturated entropies, otherwise the region 1 or 2 temperature whose entropy it is.
pub fn enthalpy_from_entropy_j_per_kg(p_pa: f64, s_j_per_kg_k: f64) -> Option<f64> {
    let t_saturation_k = saturation_temperature_k(p_pa)?;
    let (liquid, vapour) = saturated(p_pa)?;
    let (s_liquid, s_vapour) = (liquid.entropy_j_per_kg_k, vapour.entropy_j_per_kg_k);
    if (s_liquid..=s_vapour).contains(&s_j_per_kg_k) {
        let quality = (s_j_per_kg_k - s_liquid) / (s_vapour - s_liquid);
        return Some(liquid.enthalpy_j_per_kg + quality * (vapour.enthalpy_j_per_kg - liquid.enthalpy_j_per_kg));
    }
    let (region, low_k, high_k): (fn(f64, f64) -> State, f64, f64) =
        if s_j_per_kg_k > s_vapour { (region2, t_saturation_k, T_REGION2_MAX_K) } else { (region1, T_MIN_K, t_saturation_k) };
    let t_k = temperature_of_entropy_k(|t| region(p_pa, t), s_j_per_kg_k, low_k, high_k)?;
    Some(region(p_pa, t_k).enthalpy_j_per_kg)
}

/// The temperature in [low, high] whose entropy along one isobar is `s`: Newton's steps on
/// ds/dT = c_p/T, kept inside a shrinking bracket (entropy rises with temperature).
fn temperature_of_entropy_k(at: impl Fn(f64) -> State, s_j_per_kg_k: f64, low_k: f64, high_k: f64) -> Option<f64> {
    let residual = |t_k: f64| at(t_k).entropy_j_per_kg_k - s_j_per_kg_k;
    let (mut low, mut high) = (low_k, high_k);
    if residual(low) > 0.0 || residual(high) < 0.0 {
        return None;
    }
    let mut t_k = 0.5 * (low + high);
    for _ in 0..100 {
        let found = at(t_k);
        let r = found.entropy_j_per_kg_k - s_j_per_kg_k;
        if r > 0.0 { high = t_k } else { low = t_k }
        let newton = t_k - r * t_k / found.heat_capacity_j_per_kg_k;
        let next = if newton > low && newton < high { newton } else { 0.5 * (low + high) };
        if (next - t_k).abs() <= 1e-10 * t_k {
            return Some(next);
        }
        t_k = next;
    }
    None
}

/// The vapour quality of a two-phase state at (p, h), or `None` outside the dome (CoolProp's
/// `Q` is -1 there).
pub fn quality(p_pa: f64, h_j_per_kg: f64) -> Option<f64> {
    let (liquid, vapour) = saturated(p_pa)?;
    let (h_liquid, h_vapour) = (liquid.enthalpy_j_per_kg, vapour.enthalpy_j_per_kg);
    (h_liquid..=h_vapour).contains(&h_j_per_kg).then(|| (h_j_per_kg - h_liquid) / (h_vapour - h_liquid))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `value` equals the release's printed `expected` to its last printed digit.
    fn printed(value: f64, expected: f64, digits: i32) -> bool {
        let unit = 10f64.powi(expected.abs().log10().floor() as i32 - digits + 1);
        (value - expected).abs() <= 0.5 * unit
    }

    fn check(found: State, (v, h_kj, s_kj): (f64, f64, f64)) {
        assert!(printed(found.volume_m3_per_kg, v, 9), "v {} vs {v}", found.volume_m3_per_kg);
        assert!(printed(found.enthalpy_j_per_kg / J_PER_KJ, h_kj, 9), "h {} vs {h_kj}", found.enthalpy_j_per_kg / J_PER_KJ);
        assert!(printed(found.entropy_j_per_kg_k / J_PER_KJ, s_kj, 9), "s {} vs {s_kj}", found.entropy_j_per_kg_k / J_PER_KJ);
    }

    /// IAPWS R7-97(2012) Table 5: v (m³/kg), h (kJ/kg), s (kJ/(kg·K)) of region 1 at (T, p).
    #[test]
    fn region1_matches_the_release_table_5() {
        check(state(3.0e6, 300.0).unwrap(), (0.100215168e-2, 0.115331273e3, 0.392294792));
        check(state(80.0e6, 300.0).unwrap(), (0.971180894e-3, 0.184142828e3, 0.368563852));
        check(state(3.0e6, 500.0).unwrap(), (0.120241800e-2, 0.975542239e3, 0.258041912e1));
    }

    /// IAPWS R7-97(2012) Table 15: v, h, s of region 2 at (T, p).
    #[test]
    fn region2_matches_the_release_table_15() {
        check(state(0.0035e6, 300.0).unwrap(), (0.394913866e2, 0.254991145e4, 0.852238967e1));
        check(state(0.0035e6, 700.0).unwrap(), (0.923015898e2, 0.333568375e4, 0.101749996e2));
        check(state(30.0e6, 700.0).unwrap(), (0.542946619e-2, 0.263149474e4, 0.517540298e1));
    }

    /// IAPWS R7-97(2012) Tables 35 and 36: the saturation pressure (MPa) at 300, 500 and 600 K
    /// and the saturation temperature (K) at 0.1, 1 and 10 MPa; the covered line's ends.
    #[test]
    fn saturation_line_matches_the_release_tables_35_and_36() {
        for (t_k, p_mpa) in [(300.0, 0.353658941e-2), (500.0, 0.263889776e1), (600.0, 0.123443146e2)] {
            let found = saturation_pressure_pa(t_k).unwrap() / PA_PER_MPA;
            assert!(printed(found, p_mpa, 9), "p_s({t_k}) {found} vs {p_mpa}");
        }
        for (p_mpa, t_k) in [(0.1, 0.372755919e3), (1.0, 0.453035632e3), (10.0, 0.584149488e3)] {
            let found = saturation_temperature_k(p_mpa * PA_PER_MPA).unwrap();
            assert!(printed(found, t_k, 9), "T_s({p_mpa}) {found} vs {t_k}");
        }
        assert!(printed(saturation_pressure_pa(T_MIN_K).unwrap(), P_SATURATION_MIN_PA, 9));
        assert!(printed(saturation_pressure_pa(T_REGION1_MAX_K).unwrap(), P_SATURATION_MAX_PA, 11));
        assert_eq!((saturation_pressure_pa(650.0), saturation_temperature_k(20.0e6)), (None, None));
    }

    /// Outside regions 1, 2 and 4 there is no state: region 3 (above the B23 line), region 5.
    #[test]
    fn states_outside_the_covered_regions_are_none() {
        assert_eq!(state(30.0e6, 650.0), None);
        assert_eq!(state(1.0e6, 1100.0), None);
        assert_eq!(state(120.0e6, 300.0), None);
        assert!(state(10.0e6, 700.0).is_some());
    }

    /// (p, s) → h inverts (p, T) → (h, s) in region 1, region 2 and the mixture, and the quality
    /// of the mixture comes back from its enthalpy; single-phase states have none.
    #[test]
    fn enthalpy_from_entropy_and_quality_invert_the_forward_equations() {
        for (p_pa, t_k) in [(3.0e6, 500.0), (1.0e6, 600.0), (4.2e6, 782.0), (0.01e6, 320.0)] {
            let forward = state(p_pa, t_k).unwrap();
            let back = enthalpy_from_entropy_j_per_kg(p_pa, forward.entropy_j_per_kg_k).unwrap();
            assert!((back - forward.enthalpy_j_per_kg).abs() <= 1e-6, "({p_pa}, {t_k}): {back} vs {}", forward.enthalpy_j_per_kg);
            assert_eq!(quality(p_pa, forward.enthalpy_j_per_kg), None);
        }
        let p_pa = 1.0e6;
        let (liquid, vapour) = saturated(p_pa).unwrap();
        let s = liquid.entropy_j_per_kg_k + 0.3 * (vapour.entropy_j_per_kg_k - liquid.entropy_j_per_kg_k);
        let h = enthalpy_from_entropy_j_per_kg(p_pa, s).unwrap();
        assert!((quality(p_pa, h).unwrap() - 0.3).abs() <= 1e-12);
    }
}

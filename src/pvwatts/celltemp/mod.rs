//! Cell temperature: the Fuentes (1987) transient thermal model as used by PVWatts.
//!
//! The module is a single thermal mass exchanging heat by convection (free and forced, with a
//! ground-temperature ratio and a total/top convection ratio derived from the installed nominal
//! operating cell temperature, INOCT), by radiation to sky and ground, and absorbing 83 % of the
//! plane-of-array irradiance. The state (module temperature, absorbed irradiance) is kept between
//! calls; PVWatts calls the model only while the sun is up, so the previous evening's state carries
//! over to the next sunrise, and a sun-up step with no irradiance resets it to ambient.
//!
//! Each time step solves T = G(T), where G is the exponential solution of the heat balance with
//! coefficients evaluated at T. PVWatts runs 10 fixed-point iterations from the previous module
//! temperature T₀ and keeps the 10th iterate. Where that sequence has certainly converged (to
//! 1e-10 K) the fixed point is found here by Newton's method instead, from the first iterate T₁;
//! G(T₀), G(T₁) and one evaluation at the first Newton point suffice in 90–99 % of those steps.
//! Otherwise (PVWatts' iteration contracting too slowly: calm wind, |G'| large, a change of flow
//! regime, ambient temperature too close to the fixed point, or the fixed point too close to a
//! temperature where G jumps) the 10 iterations are run as PVWatts runs them, continuing from the
//! first two iterates and stopping early once they have converged to 1e-9 K away from any jump.
//! That is 2–8 % of the sun-up steps of a typical weather year, and G is evaluated 3.2–3.8 times
//! per step on average.
//!
//! G jumps where the forced convection switches between its laminar and turbulent correlations
//! (Reynolds number 1.2e5, at a module temperature found in closed form per step) and where the
//! memory term switches off (heat-balance eigenvalue −10). PVWatts' later iterates stay within
//! e₂ = |T₂ − T*| of the fixed point only while no jump lies in that interval, so Newton's result
//! is used only when both switching temperatures lie more than 2·e₂ away: where SSC's iterates
//! cross a switch (seen on real files at wind speeds near 4.6 m/s), they are followed one by one.
//!
//! G is evaluated in closed power-law form (`TopConvection`: two logarithms, two exponentials and
//! a polynomial cube root, where SSC evaluates seven or eight powers), and arranged so that the
//! chain of dependent operations from T to G(T), which sets the cost of the (serial) iteration,
//! is short. It agrees with SSC's operation sequence to about 1e-11 K per evaluation. Against
//! SSC's own arithmetic (kept as the test reference) the cell temperature differs by at most
//! 4.0e-10 K over 1.35 million sun-up steps (two weather years, five array types, INOCT
//! 45–60 °C, wind scaled by 0–8, irradiance by 0.2–1.3, ambient shifted by −20…+10 K), including
//! steps where PVWatts' iteration has not converged; the reference tests allow 1e-6 K.
//!
//! References: Fuentes (1987), A simplified thermal model for flat-plate photovoltaic arrays,
//! Sandia SAND85-0330; Dobos (2014), PVWatts Version 5 Manual, NREL/TP-6A20-62641; SSC
//! `shared/lib_pvwatts.cpp`, `pvwatts_celltemp`.

/// Stefan–Boltzmann constant as used by PVWatts, W/(m²·K⁴).
const STEFAN_BOLTZMANN: f64 = 0.00000005669;
/// Solar absorptivity of the module.
const ABSORPTIVITY: f64 = 0.83;
/// Thermal emissivity of the module.
const EMISSIVITY: f64 = 0.84;
/// Hydraulic length of the module, m.
const HYDRAULIC_LENGTH: f64 = 0.5;
/// Heat capacity per unit area, J/(m²·K), before the INOCT adjustment.
const HEAT_CAPACITY: f64 = 11000.0;
/// Height at which the wind speed is measured, m.
const WIND_MEASUREMENT_HEIGHT: f64 = 9.144;
/// Ambient temperature of the NOCT conditions, K.
const NOCT_AMBIENT_K: f64 = 293.15;
/// Sky temperature of the NOCT conditions, K.
const NOCT_SKY_K: f64 = 282.21;
/// Irradiance of the NOCT conditions, W/m².
const NOCT_IRRADIANCE: f64 = 800.0;
/// Eigenvalues of the heat balance at or below this are treated as full decay (factor 0).
const NO_MEMORY_EIGENVALUE: f64 = -10.0;

/// Fixed-point iterations per time step in PVWatts.
const PVWATTS_ITERATIONS: usize = 10;
/// The PVWatts-style iteration stops once an iterate moves by less than this, K, while the steps
/// shrink at least twofold (the remaining iterations would change the result by less than about
/// 1e-10 K).
const ITERATION_CONVERGED_K: f64 = 1e-9;
/// The iteration stops early only this far (K) from a switch of regime, where an iterate moving
/// by less than 1e-9 K cannot cross it.
const REGIME_CLEARANCE_K: f64 = 1e-6;
/// Newton's method stops after a step smaller than this, K (the error is then below 1e-12 K),
/// or once the error left after a step, estimated from the quadratic convergence of the last two
/// steps (|s₂|³/s₁²), is below `NEWTON_ERROR_K`.
const NEWTON_STEP_CONVERGED_K: f64 = 1e-6;
const NEWTON_ERROR_K: f64 = 1e-11;
/// Newton's method is not tried when the convergence bound estimated from G(T₁) alone
/// (`FuentesModel::solve_by_newton`) exceeds the required residual by this factor (none of the
/// 195 000 steps so rejected in the sweep described in the module documentation would have passed
/// the final test).
const EARLY_REJECTION_FACTOR: f64 = 1e3;
/// Largest number of Newton steps before falling back to the PVWatts iteration.
const NEWTON_MAX_STEPS: usize = 8;
/// The Newton result is used only if PVWatts' 10th iterate is within this of it, K.
const PVWATTS_RESIDUAL_K: f64 = 1e-10;
/// Safety factor on the largest observed |G'| when bounding PVWatts' convergence.
const SLOPE_SAFETY_FACTOR: f64 = 1.25;
/// Smallest distance between ambient temperature and the fixed point T*, in multiples of the
/// distance e₂ = |T₂ − T*| of PVWatts' second iterate, for which Newton's result is used; below
/// `AMBIENT_CLEARANCE_SAMPLED`·e₂ the slope is also evaluated at the interval edge nearest to
/// ambient (see `FuentesModel::pvwatts_converges`).
const AMBIENT_CLEARANCE_MIN: f64 = 2.0;
const AMBIENT_CLEARANCE_SAMPLED: f64 = 32.0;

/// Air density at 1 atm times film temperature, kg·K/m³ (ρ = 0.003484·101325/T).
const AIR_DENSITY_TIMES_T: f64 = 0.003484 * 101325.0;
/// Kinematic viscosity coefficient: ν = 0.24237e-6·T^0.76/ρ, m²/s.
const AIR_VISCOSITY_COEFFICIENT: f64 = 0.24237e-6;
/// Thermal conductivity coefficient: k = 2.1695e-4·T^0.84, W/(m·K).
const AIR_CONDUCTIVITY_COEFFICIENT: f64 = 2.1695e-4;
/// Specific heat of air used by the convection correlations, J/(kg·K).
const AIR_SPECIFIC_HEAT: f64 = 1007.0;
/// Prandtl number of air.
const PRANDTL: f64 = 0.71;
/// Gravity, m/s².
const GRAVITY: f64 = 9.8;
/// Reynolds number above which the turbulent forced-convection correlation is used.
const TURBULENT_REYNOLDS: f64 = 1.2e5;
/// Exponents of the film temperature in h_forced³ (laminar, turbulent) and in h_free³, and of
/// |ΔT| in h_free³.
const LAMINAR_FILM_EXPONENT: f64 = -0.36;
const TURBULENT_FILM_EXPONENT: f64 = -1.944;
const FREE_FILM_EXPONENT: f64 = -1.8192;
const FREE_DELTA_EXPONENT: f64 = 0.96;
/// Exponent of the film temperature in the Reynolds number (ν ∝ T^1.76).
const REYNOLDS_FILM_EXPONENT: f64 = -1.76;

/// Top-side convection of a module, W/(m²·K): h = (h_free³ + h_forced³)^(1/3).
///
/// Fuentes' correlations, with air properties at the film temperature T (K): density
/// ρ = 0.003484·101325/T, kinematic viscosity ν = 0.24237e-6·T^0.76/ρ, conductivity
/// k = 2.1695e-4·T^0.84; Reynolds Re = v·L/ν; forced convection 0.86·Re^−0.5·ρ·v·c_p/Pr^0.67
/// (laminar) or 0.0282·Re^−0.2·ρ·v·c_p/Pr^0.4 (turbulent, Re > 1.2e5); free convection
/// 0.21·(Gr·Pr)^0.32·k/L with Gr = g/T·|ΔT|·L³/ν²·0.5.
///
/// Substituting the property laws gives pure power laws in v, T and |ΔT|, evaluated here through
/// logarithms: h_forced³ = c_lam·v^1.5·T^−0.36 (laminar) or c_turb·v^2.4·T^−1.944 (turbulent),
/// h_free³ = c_free·|ΔT|^0.96·T^−1.8192, and ln Re = ln(v·L·0.003484·101325/0.24237e-6) −
/// 1.76·ln T, with T = S/2 for the sum S = T_module + T_ambient (the factors 2^−exponent are kept
/// in the constants, so that ln S is the only logarithm of the film temperature).
///
/// The sum of the cubes is never formed: with a³ the larger and b³ the smaller one,
/// h = a·(1 + r)^(1/3) with r = b³/a³ = exp(−|ln a³ − ln b³|) ∈ [0, 1], and a = exp(ln a³/3) is
/// computed alongside r; the cube root of 1 + r is a polynomial (`cube_root_of_one_plus`). Each
/// evaluation takes two logarithms and two exponentials, which overlap in pairs, where SSC
/// evaluates seven or eight powers; the result agrees with SSC's to about 1e-15 relative.
#[derive(Clone, Copy, Debug)]
struct TopConvection {
    /// ln(c_lam·2^0.36), c_lam = (0.86·c_p/Pr^0.67·ρT·(L·ρT/a)^−0.5)³.
    ln_laminar_cubed: f64,
    /// ln(c_turb·2^1.944), c_turb = (0.0282·c_p/Pr^0.4·ρT·(L·ρT/a)^−0.2)³.
    ln_turbulent_cubed: f64,
    /// ln(c_free·2^1.8192), c_free = (0.21/L·b·(Pr·g/2·L³·(ρT/a)²)^0.32)³.
    ln_free_cubed: f64,
    /// ln(L·ρT/a·2^1.76): ln Re = ln v + this − 1.76·ln S.
    ln_reynolds_factor: f64,
}

/// Wind-dependent convection factors of one time step.
#[derive(Clone, Copy, Debug)]
struct WindFactors {
    /// ln(c_lam·2^0.36·v^1.5).
    ln_laminar_cubed: f64,
    /// ln(c_turb·2^1.944·v^2.4).
    ln_turbulent_cubed: f64,
    /// ln Re + 1.76·ln S, or −∞ when the turbulent correlation is not allowed.
    ln_reynolds_at_unit_sum: f64,
}

/// Top-side convection at one module temperature.
#[derive(Clone, Copy, Debug)]
struct ConvectionValue {
    /// Coefficient h, W/(m²·K).
    coefficient: f64,
    /// dh/dT_module, W/(m²·K²).
    slope: f64,
    /// True when the turbulent forced-convection correlation applies.
    turbulent: bool,
    /// ln Re − ln 1.2e5: the flow switches where it crosses 0 (−∞ when only the laminar
    /// correlation is allowed).
    ln_reynolds_margin: f64,
}

/// Monomial coefficients in t = 2r − 1 of the degree-18 polynomial that interpolates
/// (1 + r)^(1/3) at the Chebyshev nodes of r ∈ [0, 1].
const CUBE_ROOT_POLYNOMIAL: [f64; 19] = [
    1.1447142425533319,
    0.1271904713948152,
    -0.014132274599424028,
    0.002617087888748213,
    -0.0005815750863854385,
    0.00014216279949253924,
    -3.685702212211722e-05,
    9.945540867643913e-06,
    -2.7626500787410867e-06,
    7.84476919245999e-07,
    -2.266271355297902e-07,
    6.63329923497093e-08,
    -1.965342069611238e-08,
    5.960334003207483e-09,
    -1.798353018257415e-09,
    4.720320483890375e-10,
    -1.4380893146348233e-10,
    8.123528651147412e-11,
    -2.516677540768664e-11,
];

/// (1 + r)^(1/3) for r ∈ [0, 1], by a polynomial evaluated in Estrin's scheme (five dependent
/// multiply–add levels, where a logarithm and an exponential would take about twice as long).
///
/// The interpolation error is below 1e-16 ((1 + r)^(1/3) is analytic up to r = −1, three
/// half-widths from the centre of the interval, so the Chebyshev error falls by 5.8 per degree);
/// evaluated in double precision the result is within 4.7e-16 relative (measured against
/// 50-digit arithmetic at 2·10⁴ points).
fn cube_root_of_one_plus(r: f64) -> f64 {
    let c = &CUBE_ROOT_POLYNOMIAL;
    let t = 2.0 * r - 1.0;
    let t2 = t * t;
    let t4 = t2 * t2;
    let t8 = t4 * t4;
    let pair = |i: usize| c[i] + c[i + 1] * t;
    let four = |i: usize| pair(i) + pair(i + 2) * t2;
    let eight = |i: usize| four(i) + four(i + 4) * t4;
    eight(0) + eight(8) * t8 + (pair(16) + c[18] * t2) * (t8 * t8)
}

impl TopConvection {
    fn new() -> Self {
        let density_over_viscosity = AIR_DENSITY_TIMES_T / AIR_VISCOSITY_COEFFICIENT;
        let reynolds_factor = HYDRAULIC_LENGTH * density_over_viscosity;
        let laminar = 0.8600 * AIR_SPECIFIC_HEAT / PRANDTL.powf(0.67)
            * AIR_DENSITY_TIMES_T
            * reynolds_factor.powf(-0.5);
        let turbulent = 0.0282 * AIR_SPECIFIC_HEAT / PRANDTL.powf(0.4)
            * AIR_DENSITY_TIMES_T
            * reynolds_factor.powf(-0.2);
        let grashof_factor =
            GRAVITY * 0.5 * HYDRAULIC_LENGTH.powi(3) * density_over_viscosity.powi(2);
        let free = 0.21 / HYDRAULIC_LENGTH
            * AIR_CONDUCTIVITY_COEFFICIENT
            * (PRANDTL * grashof_factor).powf(0.32);
        // Film temperature T = S/2: T^e = 2^−e·S^e.
        let ln_2 = std::f64::consts::LN_2;
        TopConvection {
            ln_laminar_cubed: 3.0 * laminar.ln() - LAMINAR_FILM_EXPONENT * ln_2,
            ln_turbulent_cubed: 3.0 * turbulent.ln() - TURBULENT_FILM_EXPONENT * ln_2,
            ln_free_cubed: 3.0 * free.ln() - FREE_FILM_EXPONENT * ln_2,
            ln_reynolds_factor: reynolds_factor.ln() - REYNOLDS_FILM_EXPONENT * ln_2,
        }
    }

    /// Factors for wind speed `wind` (m/s at module height); `turbulent_allowed` enables the
    /// turbulent correlation.
    fn wind_factors(&self, wind: f64, turbulent_allowed: bool) -> WindFactors {
        let ln_wind = wind.ln();
        WindFactors {
            ln_laminar_cubed: self.ln_laminar_cubed + 1.5 * ln_wind,
            ln_turbulent_cubed: self.ln_turbulent_cubed + 2.4 * ln_wind,
            ln_reynolds_at_unit_sum: if turbulent_allowed {
                ln_wind + self.ln_reynolds_factor
            } else {
                f64::NEG_INFINITY
            },
        }
    }

    /// Convective coefficient and its derivative for module and ambient temperatures in K.
    fn evaluate(&self, wind: &WindFactors, module_k: f64, ambient_k: f64) -> ConvectionValue {
        let sum = module_k + ambient_k;
        let delta = module_k - ambient_k;
        let ln_sum = sum.ln();
        let ln_reynolds_margin = wind.ln_reynolds_at_unit_sum + REYNOLDS_FILM_EXPONENT * ln_sum
            - TURBULENT_REYNOLDS.ln();
        let turbulent = ln_reynolds_margin > 0.0;
        let (ln_forced_factor, forced_exponent) = if turbulent {
            (wind.ln_turbulent_cubed, TURBULENT_FILM_EXPONENT)
        } else {
            (wind.ln_laminar_cubed, LAMINAR_FILM_EXPONENT)
        };
        let ln_forced_cubed = ln_forced_factor + forced_exponent * ln_sum;
        let ln_free_cubed = self.ln_free_cubed
            + FREE_DELTA_EXPONENT * delta.abs().ln()
            + FREE_FILM_EXPONENT * ln_sum;
        let free_larger = ln_free_cubed > ln_forced_cubed;
        let larger_root = (ln_free_cubed.max(ln_forced_cubed) * (1.0 / 3.0)).exp();
        let ratio = (-(ln_free_cubed - ln_forced_cubed).abs()).exp();
        let coefficient = larger_root * cube_root_of_one_plus(ratio);
        // d ln h³/dT = (a + (b − a)·s)/S + 0.96·s/ΔT, with a and b the film-temperature exponents
        // of the forced and free cubes and s = w/(1 + r) the free share of h³ (w = 1 if the free
        // cube is the larger, r if not); over the common denominator (1 + r)·S·ΔT, so that it
        // takes one division.
        let free_weight = if free_larger { 1.0 } else { ratio };
        let one_plus_ratio = 1.0 + ratio;
        let log_slope_numerator = forced_exponent * delta * one_plus_ratio
            + free_weight
                * ((FREE_FILM_EXPONENT - forced_exponent) * delta + FREE_DELTA_EXPONENT * sum);
        ConvectionValue {
            coefficient,
            slope: coefficient * (1.0 / 3.0) * log_slope_numerator / (one_plus_ratio * sum * delta),
            turbulent,
            ln_reynolds_margin,
        }
    }
}

/// Top-side convective coefficient, W/(m²·K), evaluated with exactly the floating-point
/// operations of SSC's `pvwatts_celltemp` (same correlations as `TopConvection`, in their
/// original form). Used for the INOCT calibration in `FuentesModel::new` (where it determines
/// constants of every step) and, in the tests, as the reference for the power-law form. `wind` is
/// at module height, m/s; temperatures in K.
fn pvwatts_top_convection(
    wind: f64,
    module_k: f64,
    ambient_k: f64,
    turbulent_allowed: bool,
) -> f64 {
    let film = (module_k + ambient_k) / 2.0;
    let density = 0.003484 * 101325.0 / film;
    let viscosity = 0.24237e-6 * film.powf(0.76) / density;
    let conductivity = 2.1695e-4 * film.powf(0.84);
    let reynolds = wind * HYDRAULIC_LENGTH / viscosity;
    let mut forced = 0.8600 / reynolds.powf(0.5) * density * wind * 1007.0 / 0.71f64.powf(0.67);
    if turbulent_allowed && reynolds > TURBULENT_REYNOLDS {
        forced = 0.0282 / reynolds.powf(0.2) * density * wind * 1007.0 / 0.71f64.powf(0.4);
    }
    let grashof = 9.8 / film * (module_k - ambient_k).abs() * HYDRAULIC_LENGTH.powf(3.0)
        / viscosity.powf(2.0)
        * 0.5;
    let free = 0.21 * (grashof * 0.71).powf(0.32) * conductivity / HYDRAULIC_LENGTH;
    (free.powf(3.0) + forced.powf(3.0)).powf(1.0 / 3.0)
}

/// Inputs of one time step.
#[derive(Clone, Copy, Debug)]
struct StepInputs {
    /// Convection factors of the wind speed at module height.
    wind: WindFactors,
    /// Ambient and sky temperatures, K.
    ambient_k: f64,
    sky_k: f64,
    /// Absorbed irradiance of this and of the previous step, W/m².
    absorbed: f64,
    previous_absorbed: f64,
    /// Module temperature at the end of the previous step, K.
    previous_module_k: f64,
}

/// One evaluation of the PVWatts update G at a module temperature.
#[derive(Clone, Copy, Debug)]
struct Update {
    /// G(T), K.
    next: f64,
    /// G'(T).
    slope: f64,
    /// Flow regime and memory regime; G is discontinuous where they change.
    turbulent: bool,
    decaying: bool,
    /// ln Re − ln 1.2e5 (the flow regime switches where it crosses 0; it falls by 1.76 per unit of
    /// ln(T + T_ambient)).
    ln_reynolds_margin: f64,
    /// Eigenvalue of the heat balance (the memory regime switches where it crosses −10) and its
    /// derivative, 1/K.
    eigen: f64,
    eigen_slope: f64,
}

/// Effective sky temperature for radiation, K, at ambient temperature `ambient_k` (K):
/// 0.68·0.0552·T^1.5 + 0.32·T (T^1.5 as T·√T, within a unit in the last place of the power).
fn sky_temperature(ambient_k: f64) -> f64 {
    0.68 * (0.0552 * (ambient_k * ambient_k.sqrt())) + 0.32 * ambient_k
}

/// Heat capacity of a module with installed nominal operating cell temperature `inoct_k` (K),
/// J/(m²·K): 11000, raised by 1/12 per K of INOCT above 48 °C.
fn heat_capacity(inoct_k: f64) -> f64 {
    let mut heat_capacity = HEAT_CAPACITY;
    if inoct_k > 321.15 {
        heat_capacity *= 1.0 + (inoct_k - 321.15) / 12.0;
    }
    heat_capacity
}

/// True when neither switch of G's regimes (flow, memory) lies within `radius` (K) of the module
/// temperature at which `evaluation` was made; `sum` is that temperature plus ambient, K.
///
/// The flow switch is at the sum S_b = S·exp(m/1.76) for the log margin m of the Reynolds number,
/// so |S_b − S| ≥ S·(1 − e^(−|m|/1.76)) ≥ S·x/(1 + x) with x = |m|/1.76 (no exponential needed).
/// The memory switch is located to first order from the eigenvalue and its slope, with a factor
/// 4 for the curvature (the loss coefficient's slope is at least the radiative 4εσT³ ≈ 5 W/(m²·K²)).
fn regimes_clear(evaluation: &Update, sum: f64, radius: f64) -> bool {
    let x = evaluation.ln_reynolds_margin.abs() / -REYNOLDS_FILM_EXPONENT;
    let flow_clear = sum * x > radius * (1.0 + x);
    let memory_clear = (evaluation.eigen - NO_MEMORY_EIGENVALUE).abs()
        > 4.0 * evaluation.eigen_slope.abs() * radius;
    flow_clear && memory_clear
}

/// Fuentes cell-temperature model with its state carried between time steps.
#[derive(Clone, Debug)]
pub struct FuentesModel {
    /// Convection correlations.
    convection: TopConvection,
    /// Wind speed ratio between module height and measurement height ((h/9.144)^0.2).
    wind_height_factor: f64,
    /// Ground temperature rise ratio (T_ground − T_amb)/(T_module − T_amb).
    ground_ratio: f64,
    /// Ratio of total to top-side convection.
    convection_ratio: f64,
    /// Eigenvalue of the heat balance per unit heat-loss coefficient, −Δt/C (C: heat capacity),
    /// m²·K/W.
    eigen_per_loss: f64,
    /// Its reciprocal, W/(m²·K).
    loss_per_eigen: f64,
    /// Module temperature at the end of the previous step, K.
    previous_module_k: f64,
    /// Absorbed irradiance of the previous step, W/m².
    previous_absorbed: f64,
}

impl FuentesModel {
    /// A model for an installed nominal operating cell temperature `inoct_c` (°C), mounting height
    /// `height_m` (m) and time step `timestep_hours`. The initial state is 20 °C and no irradiance.
    pub fn new(inoct_c: f64, height_m: f64, timestep_hours: f64) -> Self {
        let inoct = inoct_c + 273.15;
        let convection = TopConvection::new();
        let top = pvwatts_top_convection(1.0, inoct, NOCT_AMBIENT_K, false);
        let radiative_ground = EMISSIVITY
            * STEFAN_BOLTZMANN
            * (inoct.powf(2.0) + NOCT_AMBIENT_K.powf(2.0))
            * (inoct + NOCT_AMBIENT_K);
        let back_ratio = (ABSORPTIVITY * NOCT_IRRADIANCE
            - EMISSIVITY * STEFAN_BOLTZMANN * (inoct.powf(4.0) - NOCT_SKY_K.powf(4.0))
            - top * (inoct - NOCT_AMBIENT_K))
            / ((radiative_ground + top) * (inoct - NOCT_AMBIENT_K));
        let ground = (inoct.powf(4.0) - back_ratio * (inoct.powf(4.0) - NOCT_AMBIENT_K.powf(4.0)))
            .powf(0.25)
            .min(inoct)
            .max(NOCT_AMBIENT_K);
        let ground_ratio = (ground - NOCT_AMBIENT_K) / (inoct - NOCT_AMBIENT_K);
        let convection_ratio = (ABSORPTIVITY * NOCT_IRRADIANCE
            - EMISSIVITY
                * STEFAN_BOLTZMANN
                * (2.0 * inoct.powf(4.0) - NOCT_SKY_K.powf(4.0) - ground.powf(4.0)))
            / (top * (inoct - NOCT_AMBIENT_K));
        let eigen_per_loss = -timestep_hours * 3600.0 / heat_capacity(inoct);
        FuentesModel {
            convection,
            wind_height_factor: (height_m / WIND_MEASUREMENT_HEIGHT).powf(0.2),
            ground_ratio,
            convection_ratio,
            eigen_per_loss,
            loss_per_eigen: 1.0 / eigen_per_loss,
            previous_module_k: NOCT_AMBIENT_K,
            previous_absorbed: 0.0,
        }
    }

    /// Advance one time step and return the cell temperature, °C.
    ///
    /// * `poa`: plane-of-array irradiance, W/m² (total, before cover loss).
    /// * `wind`: wind speed at 9.144 m, m/s (negative values must be set to 0 by the caller).
    /// * `ambient_c`: dry-bulb temperature, °C.
    ///
    /// With `poa` ≤ 0 the state is reset to ambient and the ambient temperature is returned.
    pub fn step(&mut self, poa: f64, wind: f64, ambient_c: f64) -> f64 {
        if poa <= 0.0 {
            self.previous_module_k = ambient_c + 273.15;
            self.previous_absorbed = 0.0;
            return ambient_c;
        }
        let ambient_k = ambient_c + 273.15;
        let wind_at_module = wind * self.wind_height_factor + 0.0001;
        let inputs = StepInputs {
            wind: self.convection.wind_factors(wind_at_module, true),
            ambient_k,
            sky_k: sky_temperature(ambient_k),
            absorbed: poa * ABSORPTIVITY,
            previous_absorbed: self.previous_absorbed,
            previous_module_k: self.previous_module_k,
        };
        let first = self.update(&inputs, inputs.previous_module_k).next;
        let second = self.update(&inputs, first);
        let module = self
            .solve_by_newton(&inputs, first, &second)
            .unwrap_or_else(|| self.iterate_like_pvwatts(&inputs, first, &second));
        self.previous_module_k = module;
        self.previous_absorbed = inputs.absorbed;
        module - 273.15
    }

    /// The PVWatts update G(T) and its derivative: the module temperature at the end of the step
    /// from the exponential solution of the heat balance with all coefficients evaluated at T.
    ///
    /// Always inlined (4 % of the step time): the result is not passed through memory, and where
    /// only G is used (`iterate_like_pvwatts`) the derivative is not computed.
    #[inline(always)]
    fn update(&self, inputs: &StepInputs, module: f64) -> Update {
        let (ambient, sky) = (inputs.ambient_k, inputs.sky_k);
        let ratio = self.ground_ratio;
        let radiation = EMISSIVITY * STEFAN_BOLTZMANN;
        let top = self.convection.evaluate(&inputs.wind, module, ambient);
        let convection = self.convection_ratio * top.coefficient;
        let convection_slope = self.convection_ratio * top.slope;
        let radiative_sky = radiation * (module * module + sky * sky) * (module + sky);
        let radiative_sky_slope =
            radiation * (2.0 * module * (module + sky) + module * module + sky * sky);
        let ground = ambient + ratio * (module - ambient);
        let radiative_ground = radiation * (module * module + ground * ground) * (module + ground);
        let radiative_ground_slope = radiation
            * ((2.0 * module + 2.0 * ground * ratio) * (module + ground)
                + (module * module + ground * ground) * (1.0 + ratio));
        let total = convection + radiative_sky + radiative_ground;
        let total_slope = convection_slope + radiative_sky_slope + radiative_ground_slope;

        let inverse_total = 1.0 / total;
        let eigen = total * self.eigen_per_loss;
        let decaying = eigen > NO_MEMORY_EIGENVALUE;
        let decay = if decaying { eigen.exp() } else { 0.0 };

        // With B the heat balance (including ΔI/eigen for the irradiance gained over the step,
        // ΔI) and H the total loss, G = (B + ΔI)/H + d·(T_prev − B/H) for the decay d = e^eigen.
        // Every term but the last multiply–add is computed while the exponential is evaluated,
        // and the only division is 1/H.
        let gained = inputs.absorbed - inputs.previous_absorbed;
        let gained_over_eigen = gained * self.loss_per_eigen * inverse_total;
        let relaxed = (convection * ambient
            + radiative_sky * sky
            + radiative_ground * ground
            + inputs.previous_absorbed
            + gained_over_eigen)
            * inverse_total;
        let gained_over_total = gained * inverse_total;
        let steady = relaxed + gained_over_total;
        let memory = inputs.previous_module_k - relaxed;
        // Derivatives: d(1/H)/dT = −H'/H², so d(ΔI/eigen)/dT = −(ΔI/eigen)·H'/H.
        let total_slope_over_total = total_slope * inverse_total;
        let balance_slope = convection_slope * ambient
            + radiative_sky_slope * sky
            + radiative_ground_slope * ground
            + radiative_ground * ratio
            - gained_over_eigen * total_slope_over_total;
        let relaxed_slope = balance_slope * inverse_total - relaxed * total_slope_over_total;
        let steady_slope = relaxed_slope - gained_over_total * total_slope_over_total;
        let memory_slope = total_slope * self.eigen_per_loss * memory - relaxed_slope;
        Update {
            next: steady + decay * memory,
            slope: steady_slope + decay * memory_slope,
            turbulent: top.turbulent,
            decaying,
            ln_reynolds_margin: top.ln_reynolds_margin,
            eigen,
            eigen_slope: total_slope * self.eigen_per_loss,
        }
    }

    /// PVWatts' iteration: up to 10 fixed-point iterations from the previous module temperature
    /// T₀ (stopping once the iterates converge to 1e-9 K, at least `REGIME_CLEARANCE_K` away from
    /// a switch of regime), given its first two iterates `first` = G(T₀) and `second`, the
    /// evaluation of G at T₁. Returns the module temperature, K.
    fn iterate_like_pvwatts(&self, inputs: &StepInputs, first: f64, second: &Update) -> f64 {
        let mut module = inputs.previous_module_k;
        let mut previous_step = f64::INFINITY;
        let mut evaluation = *second;
        for iteration in 0..PVWATTS_ITERATIONS {
            let next = match iteration {
                0 => first,
                1 => second.next,
                _ => {
                    evaluation = self.update(inputs, module);
                    evaluation.next
                }
            };
            let step = (next - module).abs();
            let converged = step < ITERATION_CONVERGED_K
                && step < 0.5 * previous_step
                && iteration >= 1
                && regimes_clear(&evaluation, module + inputs.ambient_k, REGIME_CLEARANCE_K);
            previous_step = step;
            module = next;
            if converged {
                break;
            }
        }
        module
    }

    /// The fixed point of G by Newton's method, when PVWatts' 10 iterations from the previous
    /// module temperature end within 1e-10 K of it; `None` otherwise.
    ///
    /// `first_iterate` is PVWatts' first iterate T₁ = G(T₀) and `second` the evaluation of G at T₁
    /// (so `second.next` is the second iterate T₂); Newton's method starts from T₁. Each
    /// further PVWatts iteration shrinks the distance to the fixed point T* by |G'|, starting from
    /// e₂ = |T₂ − T*|, so the result is accepted when G is smooth around T* (same flow and memory
    /// regime at every point evaluated from T₁ on, ambient far enough outside T* ± e₂) and
    /// (1.25·max|G'|)^8·e₂ < 1e-10 K, with max|G'| over those points (`pvwatts_converges`).
    ///
    /// Steps that will not pass (1.25·|G'(T₁)| ≥ 1, or the bound with |G'(T₁)| and the estimate
    /// e₂ ≈ |G'(T₁)·s₁| from the first Newton step s₁ above 1e3 times the limit) are rejected
    /// before any further evaluation.
    fn solve_by_newton(
        &self,
        inputs: &StepInputs,
        first_iterate: f64,
        second: &Update,
    ) -> Option<f64> {
        // The first Newton step s₁ puts T* ≈ T₁ + s₁, so e₂ = |T₂ − T*| ≈ |G'(T₁)·s₁|.
        let contraction = SLOPE_SAFETY_FACTOR * second.slope.abs();
        let first_step = (second.next - first_iterate) / (1.0 - second.slope);
        if contraction >= 1.0
            || contraction.powi(PVWATTS_ITERATIONS as i32 - 2) * (second.slope * first_step).abs()
                > EARLY_REJECTION_FACTOR * PVWATTS_RESIDUAL_K
        {
            return None;
        }
        let mut current = *second;
        let mut module = first_iterate;
        let mut largest_slope = second.slope.abs();
        let mut previous_step = f64::NAN;
        for _ in 0..NEWTON_MAX_STEPS {
            let newton_step = (current.next - module) / (1.0 - current.slope);
            let evaluated_at = module;
            module += newton_step;
            let remaining_error = newton_step.abs().powi(3) / (previous_step * previous_step);
            previous_step = newton_step;
            if newton_step.abs() < NEWTON_STEP_CONVERGED_K || remaining_error < NEWTON_ERROR_K {
                return self
                    .pvwatts_converges(
                        inputs,
                        second,
                        (&current, evaluated_at),
                        module,
                        largest_slope,
                    )
                    .then_some(module);
            }
            current = self.update(inputs, module);
            if current.turbulent != second.turbulent || current.decaying != second.decaying {
                return None;
            }
            largest_slope = largest_slope.max(current.slope.abs());
        }
        None
    }

    /// True when PVWatts' iteration, at its second iterate `second.next`, ends within 1e-10 K of
    /// `fixed_point` after its remaining 8 iterations, judged from the largest |G'| seen near the
    /// fixed point (`largest_slope`, from evaluations in the regimes of `second`; `nearest` is the
    /// last of them with the module temperature it was made at, one Newton step from T*).
    ///
    /// The remaining iterates stay within e₂ = |T₂ − T*| of T* as long as G has no jump there, so
    /// both switches of regime must lie more than 2·e₂ from T* (checked from `nearest`).
    /// |G'| grows towards ambient temperature (through the |ΔT| dependence of free convection),
    /// so ambient must also lie more than 2·e₂ from T*; if it lies within 32·e₂, G' is also
    /// evaluated at T* ∓ e₂, the point of that interval nearest to ambient.
    fn pvwatts_converges(
        &self,
        inputs: &StepInputs,
        second: &Update,
        nearest: (&Update, f64),
        fixed_point: f64,
        largest_slope: f64,
    ) -> bool {
        let distance = (second.next - fixed_point).abs();
        let clearance = fixed_point - inputs.ambient_k;
        let converges = |slope: f64| {
            let contraction = SLOPE_SAFETY_FACTOR * slope;
            contraction < 1.0
                && contraction.powi(PVWATTS_ITERATIONS as i32 - 2) * distance < PVWATTS_RESIDUAL_K
        };
        if clearance.abs() <= AMBIENT_CLEARANCE_MIN * distance || !converges(largest_slope) {
            return false;
        }
        let (nearest, nearest_at) = nearest;
        let radius = AMBIENT_CLEARANCE_MIN * distance + (fixed_point - nearest_at).abs();
        if !regimes_clear(nearest, nearest_at + inputs.ambient_k, radius) {
            return false;
        }
        if clearance.abs() >= AMBIENT_CLEARANCE_SAMPLED * distance {
            return true;
        }
        let edge = self.update(inputs, fixed_point - distance.copysign(clearance));
        edge.turbulent == second.turbulent
            && edge.decaying == second.decaying
            && converges(largest_slope.max(edge.slope.abs()))
    }
}

#[cfg(test)]
mod tests;

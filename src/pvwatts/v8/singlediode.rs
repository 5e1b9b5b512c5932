//! Module DC power: the CEC six-parameter single-diode model at the maximum power point, with the
//! reference module PVWatts v8 assigns to each module type.
//!
//! At effective irradiance S (W/m², after cover and spectral losses, rear side included) and cell
//! temperature T (K), with reference conditions 1000 W/m² and T_ref = 298.15 K:
//! I_L = S/1000 · (I_L,ref + μ_Isc (T − T_ref)) with μ_Isc = α_Isc (1 − Adj/100);
//! I_0 = I_0,ref (T/T_ref)³ exp((E_g0/T_ref − E_g/T)/k) with E_g = 1.12 (1 − 0.0002677 (T − T_ref)) eV;
//! a = a_ref T/T_ref; R_sh = R_sh,ref · 1000/S; R_s constant. The current at voltage V solves
//! I = I_L − I_0 (exp((V + I R_s)/a) − 1) − (V + I R_s)/R_sh. Below 1 W/m² the module makes no
//! power.
//!
//! The maximum power point is found as SSC finds it, because SSC's answer is the power at the
//! point where its search stops (within 1e-4 relative of the true optimum, whose power it then
//! matches to about 1e-8), not the exact optimum: the open-circuit voltage by bisection on
//! [0, 1.5 V_oc,ref] to 0.001 V; the current at a voltage by Newton's method from 0.9 I_L until
//! steps are at most 1e-4 A; the maximum of V·I by bracketing (golden-ratio expansion with
//! parabolic steps) and golden-section search on [0, V_oc] to a relative tolerance of 1e-4
//! (Press et al., Numerical Recipes, §10.1–10.2). Every step repeats SSC's arithmetic, so the
//! search visits the same points.
//!
//! References: De Soto, Klein & Beckman (2006), Improvement and validation of a model for
//! photovoltaic array performance, Solar Energy 80(1); Dobos (2012), An improved coefficient
//! calculator for the California Energy Commission 6 parameter photovoltaic module model, J. Sol.
//! Energy Eng. 134(2); SSC `shared/lib_cec6par.cpp` (`cec6par_module_t`) and
//! `shared/lib_pvmodel.cpp` (`openvoltage_5par`, `current_5par`, `maxpower_5par`).

use crate::pvwatts::params::ModuleType;

/// Boltzmann constant, eV/K.
const BOLTZMANN_EV: f64 = 8.618e-5;
/// Reference cell temperature, K.
const REFERENCE_TEMPERATURE_K: f64 = 25.0 + 273.15;
/// Reference irradiance, W/m².
const REFERENCE_IRRADIANCE: f64 = 1000.0;
/// Band gap at the reference temperature, eV.
const BAND_GAP_EV: f64 = 1.12;
/// Effective irradiance below which a module makes no power, W/m².
const MIN_IRRADIANCE: f64 = 1.0;

/// A module of the CEC database with its single-diode parameters at reference conditions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CecModule {
    /// Area, m².
    pub area: f64,
    /// Voltage and current at the maximum power point, V and A.
    pub vmp: f64,
    pub imp: f64,
    /// Open-circuit voltage, V.
    pub voc: f64,
    /// Short-circuit current temperature coefficient, A/K.
    pub alpha_isc: f64,
    /// Modified ideality factor, V.
    pub a: f64,
    /// Light current, A.
    pub il: f64,
    /// Diode saturation current, A.
    pub io: f64,
    /// Series and shunt resistance, Ω.
    pub rs: f64,
    pub rsh: f64,
    /// Temperature coefficient adjustment, %.
    pub adj: f64,
    /// Rated efficiency of PVWatts' 300 W module of this type (0–1); sets the module size.
    pub stc_efficiency: f64,
}

impl CecModule {
    /// The reference module of a PVWatts module type: standard = Canadian Solar CS1H-320MS,
    /// premium = SunPower SPR-E20-327, thin film = First Solar FS-6435A (parameters from SAM
    /// 2020.2.29's coefficient generator, as in SSC).
    pub fn for_type(module_type: ModuleType) -> Self {
        match module_type {
            ModuleType::Standard => CecModule {
                area: 1.6864,
                vmp: 35.8,
                imp: 9.01,
                voc: 43.3,
                alpha_isc: 0.004755,
                a: 1.65916,
                il: 9.51393,
                io: 4.37813e-11,
                rs: 0.269953,
                rsh: 654.059,
                adj: 5.79586,
                stc_efficiency: 0.19,
            },
            ModuleType::Premium => CecModule {
                area: 1.6297,
                vmp: 54.7,
                imp: 5.98,
                voc: 64.9,
                alpha_isc: 0.0026,
                a: 2.45326,
                il: 6.4704,
                io: 2.01784e-11,
                rs: 0.421231,
                rsh: 261.723,
                adj: 9.56482,
                stc_efficiency: 0.21,
            },
            ModuleType::ThinFilm => CecModule {
                area: 2.4751,
                vmp: 183.6,
                imp: 2.37,
                voc: 219.6,
                alpha_isc: 0.00102,
                a: 7.97293,
                il: 2.55475,
                io: 2.69243e-12,
                rs: 4.60991,
                rsh: 2476.95,
                adj: -2.49865,
                stc_efficiency: 0.18,
            },
        }
    }

    /// Power at the maximum power point, W, at effective irradiance `irradiance` (W/m²) and cell
    /// temperature `cell_c` (°C); 0 below 1 W/m². `None` when the search fails (SSC then stops
    /// the simulation).
    pub fn max_power(&self, irradiance: f64, cell_c: f64) -> Option<f64> {
        if !(irradiance >= MIN_IRRADIANCE) {
            return Some(0.0);
        }
        let cell_k = cell_c + 273.15;
        let temperature_coefficient = self.alpha_isc * (1.0 - self.adj / 100.0);
        let mut light_current = irradiance / REFERENCE_IRRADIANCE
            * (self.il + temperature_coefficient * (cell_k - REFERENCE_TEMPERATURE_K));
        if light_current < 0.0 {
            light_current = 0.0;
        }
        let band_gap = BAND_GAP_EV * (1.0 - 0.0002677 * (cell_k - REFERENCE_TEMPERATURE_K));
        let diode = Diode {
            light_current,
            saturation_current: self.io
                * (cell_k / REFERENCE_TEMPERATURE_K).powf(3.0)
                * (1.0 / BOLTZMANN_EV
                    * (BAND_GAP_EV / REFERENCE_TEMPERATURE_K - band_gap / cell_k))
                    .exp(),
            ideality: self.a * cell_k / REFERENCE_TEMPERATURE_K,
            series_resistance: self.rs,
            shunt_resistance: self.rsh * (REFERENCE_IRRADIANCE / irradiance),
        };
        let open_circuit = diode.open_circuit_voltage(self.voc);
        let power = diode.max_power(open_circuit)?;
        (power >= 0.0).then_some(power)
    }

    /// Power at the reference conditions' maximum power point (Vmp × Imp), W.
    pub fn rated_power(&self) -> f64 {
        self.vmp * self.imp
    }
}

/// The single-diode equation's parameters at operating conditions.
#[derive(Clone, Copy, Debug)]
struct Diode {
    /// A.
    light_current: f64,
    /// A.
    saturation_current: f64,
    /// V.
    ideality: f64,
    /// Ω.
    series_resistance: f64,
    /// Ω.
    shunt_resistance: f64,
}

/// Newton steps allowed for a current.
const MAX_CURRENT_ITERATIONS: usize = 4000;
/// Current steps at or below this end Newton's method, A.
const CURRENT_TOLERANCE: f64 = 0.0001;
/// Bisection steps allowed for the open-circuit voltage.
const MAX_VOLTAGE_ITERATIONS: usize = 5000;
/// Bracket width that ends the open-circuit bisection, V.
const VOLTAGE_TOLERANCE: f64 = 0.001;
/// Golden-section steps allowed.
const MAX_SEARCH_ITERATIONS: usize = 5000;
/// Relative tolerance of the maximum power point voltage.
const SEARCH_TOLERANCE: f64 = 1e-4;

impl Diode {
    /// Open-circuit voltage by bisection on [0, 1.5 `reference_voc`], starting from
    /// `reference_voc`; −1 if it does not converge.
    fn open_circuit_voltage(&self, reference_voc: f64) -> f64 {
        let mut low = 0.0;
        let mut high = reference_voc * 1.5;
        let mut voltage = reference_voc;
        let mut steps = 0;
        while (high - low).abs() > VOLTAGE_TOLERANCE {
            let current = self.light_current
                - self.saturation_current * ((voltage / self.ideality).exp() - 1.0)
                - voltage / self.shunt_resistance;
            if current < 0.0 {
                high = voltage;
            }
            if current > 0.0 {
                low = voltage;
            }
            voltage = (high + low) / 2.0;
            steps += 1;
            if steps > MAX_VOLTAGE_ITERATIONS {
                return -1.0;
            }
        }
        voltage
    }

    /// Current at `voltage` by Newton's method from 0.9 I_L (never negative); −1 if it does not
    /// converge.
    fn current(&self, voltage: f64) -> f64 {
        let Diode {
            light_current: il,
            saturation_current: io,
            ideality: a,
            series_resistance: rs,
            shunt_resistance: rsh,
        } = *self;
        let mut previous = 0.0;
        let mut current = 0.9 * il;
        let mut steps = 0;
        while (current - previous).abs() > CURRENT_TOLERANCE {
            previous = current;
            let diode_voltage = voltage + previous * rs;
            let exponential = (diode_voltage / a).exp();
            let residual = il - previous - io * (exponential - 1.0) - diode_voltage / rsh;
            let slope = -1.0 - io * (rs / a) * exponential - rs / rsh;
            let next = previous - residual / slope;
            current = if 0.0 > next { 0.0 } else { next };
            if steps == MAX_CURRENT_ITERATIONS {
                return -1.0;
            }
            steps += 1;
        }
        current
    }

    /// The function minimised: minus the power at `voltage`, W.
    fn negative_power(&self, voltage: f64) -> f64 {
        -voltage * self.current(voltage)
    }

    /// Power at the maximum power point, searched on [0, `open_circuit`]; `None` if the search
    /// does not converge.
    fn max_power(&self, open_circuit: f64) -> Option<f64> {
        golden_section_minimum(0.0, open_circuit, SEARCH_TOLERANCE, |v| {
            self.negative_power(v)
        })
        .map(|(_, negative_power)| -negative_power)
    }
}

/// Golden ratio used to expand a bracket.
const GOLDEN_EXPANSION: f64 = 1.618034;
/// Largest parabolic step, in bracket widths.
const PARABOLIC_LIMIT: f64 = 100.0;
/// Guard against a zero denominator in the parabolic step.
const TINY: f64 = 1.0e-20;
/// Golden-section ratios.
const GOLDEN_R: f64 = 0.61803399;
const GOLDEN_C: f64 = 1.0 - GOLDEN_R;

/// A bracket (a, b, c) of a minimum: f(b) is below f(a) and f(c).
struct Bracket {
    a: f64,
    b: f64,
    c: f64,
}

/// Brackets a minimum of `f` by walking downhill from (a, b) with golden-ratio steps and
/// parabolic extrapolation (Numerical Recipes `mnbrak`).
fn bracket_minimum(mut a: f64, mut b: f64, f: &impl Fn(f64) -> f64) -> Bracket {
    let mut fa = f(a);
    let mut fb = f(b);
    if fb > fa {
        std::mem::swap(&mut a, &mut b);
        std::mem::swap(&mut fa, &mut fb);
    }
    let mut c = b + GOLDEN_EXPANSION * (b - a);
    let mut fc = f(c);
    while fb > fc {
        let r = (b - a) * (fb - fc);
        let q = (b - c) * (fb - fa);
        let spread = (q - r).abs().max_nr(TINY);
        let signed = if q - r >= 0.0 {
            spread.abs()
        } else {
            -spread.abs()
        };
        let mut u = b - ((b - c) * q - (b - a) * r) / (2.0 * signed);
        let limit = b + PARABOLIC_LIMIT * (c - b);
        let mut fu;
        if (b - u) * (u - c) > 0.0 {
            fu = f(u);
            if fu < fc {
                return Bracket { a: b, b: u, c };
            } else if fu > fb {
                return Bracket { a, b, c: u };
            }
            u = c + GOLDEN_EXPANSION * (c - b);
            fu = f(u);
        } else if (c - u) * (u - limit) > 0.0 {
            fu = f(u);
            if fu < fc {
                b = c;
                c = u;
                u = c + GOLDEN_EXPANSION * (c - b);
                fb = fc;
                fc = fu;
                fu = f(u);
            }
        } else if (u - limit) * (limit - c) >= 0.0 {
            u = limit;
            fu = f(u);
        } else {
            u = c + GOLDEN_EXPANSION * (c - b);
            fu = f(u);
        }
        a = b;
        b = c;
        c = u;
        fa = fb;
        fb = fc;
        fc = fu;
    }
    Bracket { a, b, c }
}

/// `a.max(b)` as the C macro `((a) > (b) ? (a) : (b))` (NaN handling included).
trait MaxNr {
    fn max_nr(self, other: Self) -> Self;
}

impl MaxNr for f64 {
    fn max_nr(self, other: f64) -> f64 {
        if self > other {
            self
        } else {
            other
        }
    }
}

/// Minimum of `f` on [`low`, `high`] by golden-section search to relative tolerance `tolerance`
/// (Numerical Recipes `golden`, with SSC's clamping of the bracket into the interval): the point
/// and the value there, or `None` after too many steps.
fn golden_section_minimum(
    low: f64,
    high: f64,
    tolerance: f64,
    f: impl Fn(f64) -> f64,
) -> Option<(f64, f64)> {
    let Bracket { mut a, mut b, c } = bracket_minimum(low, high, &f);
    // The bracket may extend past the interval; its first two points are pulled back into it.
    if a < low {
        a = low;
    }
    if a > high {
        a = high;
    }
    if b < low {
        b = low;
    }
    if b > high {
        b = high;
    }
    let (mut x0, mut x3) = (a, c);
    let (mut x1, mut x2) = if (c - b).abs() > (b - a).abs() {
        (b, b + GOLDEN_C * (c - b))
    } else {
        (b - GOLDEN_C * (b - a), b)
    };
    let mut f1 = f(x1);
    let mut f2 = f(x2);
    let mut steps = 0;
    while (x3 - x0).abs() > tolerance * (x1.abs() + x2.abs()) {
        if f2 < f1 {
            x0 = x1;
            x1 = x2;
            x2 = GOLDEN_R * x1 + GOLDEN_C * x3;
            f1 = f2;
            f2 = f(x2);
        } else {
            x3 = x2;
            x2 = x1;
            x1 = GOLDEN_R * x2 + GOLDEN_C * x0;
            f2 = f1;
            f1 = f(x1);
        }
        let exceeded = steps > MAX_SEARCH_ITERATIONS;
        steps += 1;
        if exceeded {
            return None;
        }
    }
    Some(if f1 < f2 { (x1, f1) } else { (x2, f2) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_conditions_give_the_rated_power() {
        for module_type in [
            ModuleType::Standard,
            ModuleType::Premium,
            ModuleType::ThinFilm,
        ] {
            let module = CecModule::for_type(module_type);
            let power = module.max_power(1000.0, 25.0).unwrap();
            let rated = module.rated_power();
            assert!(
                (power / rated - 1.0).abs() < 0.01,
                "{module_type:?}: {power} vs {rated}"
            );
        }
    }

    #[test]
    fn power_falls_with_temperature_and_darkness() {
        let module = CecModule::for_type(ModuleType::Standard);
        let cool = module.max_power(800.0, 20.0).unwrap();
        let hot = module.max_power(800.0, 60.0).unwrap();
        assert!(hot < cool * 0.9, "{hot} vs {cool}");
        assert_eq!(module.max_power(0.99, 20.0), Some(0.0));
        assert_eq!(module.max_power(f64::NAN, 20.0), Some(0.0));
        assert!(module.max_power(5.0, 20.0).unwrap() > 0.0);
    }

    #[test]
    fn golden_section_finds_a_parabola_minimum() {
        let (x, value) =
            golden_section_minimum(0.0, 10.0, 1e-8, |x| (x - 3.0) * (x - 3.0) - 1.0).unwrap();
        assert!((x - 3.0).abs() < 1e-6, "{x}");
        assert!((value + 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_diode_current_solves_its_equation() {
        let module = CecModule::for_type(ModuleType::Premium);
        let diode = Diode {
            light_current: module.il,
            saturation_current: module.io,
            ideality: module.a,
            series_resistance: module.rs,
            shunt_resistance: module.rsh,
        };
        let voltage = 50.0;
        let current = diode.current(voltage);
        let residual = module.il
            - current
            - module.io * (((voltage + current * module.rs) / module.a).exp() - 1.0)
            - (voltage + current * module.rs) / module.rsh;
        assert!(residual.abs() < 1e-6, "{residual}");
        let open = diode.open_circuit_voltage(module.voc);
        assert!((open - module.voc).abs() < 0.1, "{open}");
        assert_eq!(diode.current(open + 5.0), 0.0);
    }
}

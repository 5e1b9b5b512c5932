//! Liquid water at atmospheric pressure from the IAPWS-95 formulation (the equation of state
//! CoolProp evaluates for "Water", which the service calls to turn hot-water storage gallons into
//! kWh): density and isobaric heat capacity at 101,325 Pa, and the service's kWh per gallon of a
//! tank between two temperatures.
//!
//! The Helmholtz energy uses the ideal part and residual terms 1–51 of IAPWS-95; the three
//! Gaussian and two non-analytic terms (52–56) describe the critical region and are below 1e-12 of
//! the liquid's values at 1 atm, so they are left out. Density solves p(ρ, T) = 101,325 Pa by
//! Newton's method from 1,000 kg/m³ (the liquid root below the boiling point).

/// Critical temperature (K), critical density (kg/m³), specific gas constant (J/(kg·K)).
const T_C: f64 = 647.096;
const RHO_C: f64 = 322.0;
const R: f64 = 461.51805;
/// Atmospheric pressure (Pa) at which the service evaluates the tank water.
const P_ATM: f64 = 101_325.0;
/// US gallons per m³ and seconds per hour, the service's constants.
const GAL_PER_M3: f64 = 264.172;
const SECONDS_PER_HOUR: f64 = 3600.0;

/// Ideal-gas part: coefficient of ln τ and the (n, γ) of the Planck-Einstein terms.
const IDEAL_LOG_TAU: f64 = 3.00632;
const IDEAL_EXP: [(f64, f64); 5] = [
    (0.012436, 1.28728967),
    (0.97315, 3.53734222),
    (1.2795, 7.74073708),
    (0.96956, 9.24437796),
    (0.24873, 27.5075105),
];

/// Residual terms 1–51: (n, d, t, c); c = 0 for the polynomial terms, else the term carries
/// exp(−δ^c).
const RESIDUAL: [(f64, i32, f64, i32); 51] = [
    (0.012533547935523, 1, -0.5, 0),
    (7.8957634722828, 1, 0.875, 0),
    (-8.7803203303561, 1, 1.0, 0),
    (0.31802509345418, 2, 0.5, 0),
    (-0.26145533859358, 2, 0.75, 0),
    (-0.0078199751687981, 3, 0.375, 0),
    (0.0088089493102134, 4, 1.0, 0),
    (-0.66856572307965, 1, 4.0, 1),
    (0.20433810950965, 1, 6.0, 1),
    (-6.6212605039687e-05, 1, 12.0, 1),
    (-0.19232721156002, 2, 1.0, 1),
    (-0.25709043003438, 2, 5.0, 1),
    (0.16074868486251, 3, 4.0, 1),
    (-0.040092828925807, 4, 2.0, 1),
    (3.9343422603254e-07, 4, 13.0, 1),
    (-7.5941377088144e-06, 5, 9.0, 1),
    (0.00056250979351888, 7, 3.0, 1),
    (-1.5608652257135e-05, 9, 4.0, 1),
    (1.1537996422951e-09, 10, 11.0, 1),
    (3.6582165144204e-07, 11, 4.0, 1),
    (-1.3251180074668e-12, 13, 13.0, 1),
    (-6.2639586912454e-10, 15, 1.0, 1),
    (-0.10793600908932, 1, 7.0, 2),
    (0.017611491008752, 2, 1.0, 2),
    (0.22132295167546, 2, 9.0, 2),
    (-0.40247669763528, 2, 10.0, 2),
    (0.58083399985759, 3, 10.0, 2),
    (0.0049969146990806, 4, 3.0, 2),
    (-0.031358700712549, 4, 7.0, 2),
    (-0.74315929710341, 4, 10.0, 2),
    (0.4780732991548, 5, 10.0, 2),
    (0.020527940895948, 6, 6.0, 2),
    (-0.13636435110343, 6, 10.0, 2),
    (0.014180634400617, 7, 10.0, 2),
    (0.0083326504880713, 9, 1.0, 2),
    (-0.029052336009585, 9, 2.0, 2),
    (0.038615085574206, 9, 3.0, 2),
    (-0.020393486513704, 9, 4.0, 2),
    (-0.0016554050063734, 9, 8.0, 2),
    (0.0019955571979541, 10, 6.0, 2),
    (0.00015870308324157, 10, 9.0, 2),
    (-1.638856834253e-05, 12, 8.0, 2),
    (0.043613615723811, 3, 16.0, 3),
    (0.034994005463765, 4, 22.0, 3),
    (-0.076788197844621, 4, 23.0, 3),
    (0.022446277332006, 5, 23.0, 3),
    (-6.2689710414685e-05, 14, 10.0, 4),
    (-5.5711118565645e-10, 3, 50.0, 6),
    (-0.19905718354408, 6, 44.0, 6),
    (0.31777497330738, 6, 46.0, 6),
    (-0.11841182425981, 6, 50.0, 6),
];

/// Derivatives of the residual Helmholtz energy φʳ(δ, τ) a state needs.
struct Residual {
    d: f64,
    dd: f64,
    tt: f64,
    dt: f64,
}

fn residual(delta: f64, tau: f64) -> Residual {
    let mut r = Residual {
        d: 0.0,
        dd: 0.0,
        tt: 0.0,
        dt: 0.0,
    };
    for &(n, d, t, c) in &RESIDUAL {
        let d = f64::from(d);
        let base = n * delta.powf(d) * tau.powf(t);
        if c == 0 {
            r.d += base * d / delta;
            r.dd += base * d * (d - 1.0) / (delta * delta);
            r.tt += base * t * (t - 1.0) / (tau * tau);
            r.dt += base * d * t / (delta * tau);
        } else {
            let c = f64::from(c);
            let dc = delta.powi(c as i32);
            let term = base * (-dc).exp();
            r.d += term * (d - c * dc) / delta;
            r.dd += term * ((d - c * dc) * (d - 1.0 - c * dc) - c * c * dc) / (delta * delta);
            r.tt += term * t * (t - 1.0) / (tau * tau);
            r.dt += term * t * (d - c * dc) / (delta * tau);
        }
    }
    r
}

/// Pressure (Pa) and its derivative by density at (ρ, T).
fn pressure(rho: f64, temperature: f64) -> (f64, f64) {
    let delta = rho / RHO_C;
    let r = residual(delta, T_C / temperature);
    (
        rho * R * temperature * (1.0 + delta * r.d),
        R * temperature * (1.0 + 2.0 * delta * r.d + delta * delta * r.dd),
    )
}

/// Density (kg/m³) of liquid water at 1 atm and `temperature` (K, between freezing and boiling).
pub fn liquid_density(temperature: f64) -> f64 {
    let mut rho = 1000.0;
    for _ in 0..50 {
        let (p, slope) = pressure(rho, temperature);
        let step = (p - P_ATM) / slope;
        rho -= step;
        if step.abs() < 1e-12 * rho {
            break;
        }
    }
    rho
}

/// Isobaric heat capacity (J/(kg·K)) of liquid water at 1 atm and `temperature` (K).
pub fn liquid_cp(temperature: f64) -> f64 {
    let rho = liquid_density(temperature);
    let delta = rho / RHO_C;
    let tau = T_C / temperature;
    let r = residual(delta, tau);
    let ideal_tt = -IDEAL_LOG_TAU / (tau * tau)
        - IDEAL_EXP
            .iter()
            .map(|&(n, g)| {
                let e = (-g * tau).exp();
                n * g * g * e / ((1.0 - e) * (1.0 - e))
            })
            .sum::<f64>();
    let cv = -R * tau * tau * (ideal_tt + r.tt);
    let numerator = 1.0 + delta * r.d - delta * tau * r.dt;
    cv + R * numerator * numerator / (1.0 + 2.0 * delta * r.d + delta * delta * r.dd)
}

/// °F to K as the service converts.
pub fn kelvin_of_fahrenheit(degf: f64) -> f64 {
    (degf - 32.0) * 5.0 / 9.0 + 273.15
}

/// kWh stored per gallon of water between `hot_degf` and `cold_degf` (the service's
/// `get_kwh_per_gal`): ρ · c_p at the mean temperature times the temperature difference.
pub fn kwh_per_gal(hot_degf: f64, cold_degf: f64) -> f64 {
    let (hot, cold) = (
        kelvin_of_fahrenheit(hot_degf),
        kelvin_of_fahrenheit(cold_degf),
    );
    let mean = (hot + cold) / 2.0;
    let kj_per_m3 = liquid_density(mean) * liquid_cp(mean) / 1000.0 * (hot - cold);
    kj_per_m3 / GAL_PER_M3 / SECONDS_PER_HOUR
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CoolProp 8.0 `PropsSI` for "Water" at 101,325 Pa (the library the service calls), at the
    /// mean temperatures of these tanks: (hot °F, cold °F, ρ kg/m³, c_p kJ/(kg·K), kWh/gal).
    const COOLPROP: [(f64, f64, f64, f64, f64); 4] = [
        (
            180.0,
            160.0,
            973.8396739669118,
            4.194339492173968,
            0.04772206729562991,
        ),
        (
            160.0,
            120.0,
            983.1958242273752,
            4.184953280584229,
            0.09614547307789038,
        ),
        (
            200.0,
            100.0,
            980.2481130360561,
            4.187608260495007,
            0.23979508250402604,
        ),
        (
            120.0,
            60.0,
            994.9569868634486,
            4.1794694210779815,
            0.1457521327954849,
        ),
    ];

    #[test]
    fn water_matches_coolprop() {
        for (hot, cold, rho, cp, kwh) in COOLPROP {
            let mean = (kelvin_of_fahrenheit(hot) + kelvin_of_fahrenheit(cold)) / 2.0;
            assert!(
                (liquid_density(mean) / rho - 1.0).abs() < 1e-9,
                "rho {} vs {rho}",
                liquid_density(mean)
            );
            assert!(
                (liquid_cp(mean) / 1000.0 / cp - 1.0).abs() < 1e-9,
                "cp {} vs {cp}",
                liquid_cp(mean)
            );
            assert!((kwh_per_gal(hot, cold) / kwh - 1.0).abs() < 1e-9);
        }
    }
}

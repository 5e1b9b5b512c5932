//! DC array power with temperature coefficient and system losses, and the inverter part-load
//! efficiency curve with clipping.
//!
//! References: Dobos (2014), PVWatts Version 5 Manual, NREL/TP-6A20-62641, eq. 5–7 (DC power,
//! losses, inverter curve η = η_nom/η_ref·(−0.0162ζ − 0.0059/ζ + 0.9858), η_ref = 0.9637);
//! SSC `ssc/cmod_pvwattsv5.cpp`, `powerout`.

/// Reference cell temperature of the nameplate rating, °C.
const REFERENCE_CELL_TEMPERATURE: f64 = 25.0;
/// Irradiance of the nameplate rating, W/m².
const REFERENCE_IRRADIANCE: f64 = 1000.0;
/// Reference efficiency of the inverter curve.
const INVERTER_REFERENCE_EFFICIENCY: f64 = 0.9637;
/// Inverter part-load curve coefficients (A·ζ + B/ζ + C).
const INVERTER_A: f64 = -0.0162;
const INVERTER_B: f64 = -0.0059;
const INVERTER_C: f64 = 0.9858;

/// DC output of the array, W: P_dc0·(1 + γ(T_cell − 25))·G_tr/1000·(1 − losses/100).
///
/// * `dc_nameplate_w`: DC nameplate, W; `temperature_coefficient`: γ, 1/°C.
/// * `cell_temperature_c`: °C; `transmitted_poa`: irradiance after cover loss, W/m².
/// * `losses_percent`: system losses, %.
pub fn dc_power(
    dc_nameplate_w: f64,
    temperature_coefficient: f64,
    cell_temperature_c: f64,
    transmitted_poa: f64,
    losses_percent: f64,
) -> f64 {
    let dc = dc_nameplate_w
        * (1.0 + temperature_coefficient * (cell_temperature_c - REFERENCE_CELL_TEMPERATURE))
        * transmitted_poa
        / REFERENCE_IRRADIANCE;
    dc * (1.0 - losses_percent / 100.0)
}

/// PVWatts inverter: part-load efficiency curve and clipping at the AC nameplate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inverter {
    /// AC nameplate, W.
    pub ac_nameplate_w: f64,
    /// Nominal efficiency, fraction (e.g. 0.96).
    pub nominal_efficiency: f64,
}

impl Inverter {
    /// Inverter for a DC nameplate (W), DC/AC ratio and nominal efficiency in %.
    pub fn new(dc_nameplate_w: f64, dc_ac_ratio: f64, efficiency_percent: f64) -> Self {
        Inverter {
            ac_nameplate_w: dc_nameplate_w / dc_ac_ratio,
            nominal_efficiency: efficiency_percent / 100.0,
        }
    }

    /// AC output, W, for a DC input in W: dc·η(ζ) with ζ = dc/(P_ac0/η_nom), clipped to
    /// [0, P_ac0]; 0 for dc ≤ 0 (no night tare).
    pub fn ac_power(&self, dc: f64) -> f64 {
        let dc_rating = self.ac_nameplate_w / self.nominal_efficiency;
        let load = dc / dc_rating;
        let mut ac = 0.0;
        if load > 0.0 {
            let efficiency = (INVERTER_A * load + INVERTER_B / load + INVERTER_C)
                * self.nominal_efficiency
                / INVERTER_REFERENCE_EFFICIENCY;
            ac = dc * efficiency;
        }
        if ac > self.ac_nameplate_w {
            ac = self.ac_nameplate_w;
        }
        if ac < 0.0 {
            ac = 0.0;
        }
        ac
    }
}

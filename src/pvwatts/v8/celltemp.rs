//! Cell temperature: the NOCT model of the CEC calculator as PVWatts v8 configures it. Unlike
//! v5's Fuentes model it has no thermal mass, so every hour is independent.
//!
//! T_cell = T_amb + S/800 · (T_NOCT − 20) · (1 − η_ref/τα) · 9.5/(5.7 + 3.8 v), where S is the
//! front-side effective irradiance (W/m², after the cover and air-mass modifiers), T_NOCT = 49 °C
//! for roof mounts and 45 °C otherwise, η_ref the reference module's efficiency, τα = 0.9, and
//! v = 0.51 × the weather's wind speed (the wind at module height for installations below 22 ft,
//! at least 0.001 m/s). The temperature is computed in kelvin, as SSC does. Without effective
//! irradiance the model does not run (see `engine`).
//!
//! References: Duffie & Beckman (2013), Solar Engineering of Thermal Processes, §23.3;
//! Neises (2011), Development and validation of a model to predict the temperature of a
//! photovoltaic cell, MS thesis, University of Wisconsin–Madison; SSC `shared/lib_cec6par.cpp`
//! (`noct_celltemp_t`) and `ssc/cmod_pvwattsv8.cpp`.

use super::singlediode::CecModule;
use crate::pvwatts::params::ArrayType;

/// Irradiance of the NOCT conditions, W/m².
const NOCT_IRRADIANCE: f64 = 800.0;
/// Ambient temperature of the NOCT conditions, °C.
const NOCT_AMBIENT_C: f64 = 20.0;
/// Transmittance–absorptance product.
const TAU_ALPHA: f64 = 0.9;
/// Wind at module height over the weather's wind speed (installations below 22 ft).
const WIND_FACTOR: f64 = 0.51;
/// Smallest wind speed used, m/s.
const MIN_WIND: f64 = 0.001;

/// The NOCT model of one system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoctModel {
    /// Nominal operating cell temperature, °C.
    noct_c: f64,
    /// Efficiency of the reference module at reference conditions (0–1).
    reference_efficiency: f64,
}

impl NoctModel {
    /// The model of `module` on `array_type` (roof mounts run 4 K hotter).
    pub fn new(array_type: ArrayType, module: &CecModule) -> Self {
        let noct_c = match array_type {
            ArrayType::FixedRoofMount => 49.0,
            _ => 45.0,
        };
        NoctModel {
            noct_c,
            reference_efficiency: module.imp * module.vmp / (1000.0 * module.area),
        }
    }

    /// Cell temperature, °C, at front-side effective irradiance `effective` (W/m², positive),
    /// ambient temperature `ambient_c` (°C) and weather wind speed `wind` (m/s).
    pub fn cell_temperature(&self, effective: f64, ambient_c: f64, wind: f64) -> f64 {
        let mut module_wind = wind * WIND_FACTOR;
        if module_wind < MIN_WIND {
            module_wind = MIN_WIND;
        }
        let heating = effective / NOCT_IRRADIANCE
            * (self.noct_c - NOCT_AMBIENT_C)
            * (1.0 - self.reference_efficiency / TAU_ALPHA);
        let cell_k = (ambient_c + 273.15) + heating * 9.5 / (5.7 + 3.8 * module_wind);
        cell_k - 273.15
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pvwatts::params::ModuleType;

    #[test]
    fn noct_conditions_give_about_the_noct() {
        let module = CecModule::for_type(ModuleType::Standard);
        let model = NoctModel::new(ArrayType::FixedOpenRack, &module);
        // At 800 W/m², 20 °C and 1 m/s at module height the cell warms by (NOCT − 20 K) times
        // the share of light not turned into power: 25 K × (1 − 0.1913/0.9).
        let cell = model.cell_temperature(800.0, 20.0, 1.0 / 0.51);
        assert!((cell - 39.687).abs() < 1e-3, "{cell}");
        let roof = NoctModel::new(ArrayType::FixedRoofMount, &module);
        assert!(roof.cell_temperature(800.0, 20.0, 2.0) > model.cell_temperature(800.0, 20.0, 2.0));
        assert_eq!(
            model.cell_temperature(500.0, 10.0, -3.0),
            model.cell_temperature(500.0, 10.0, 0.0)
        );
    }
}

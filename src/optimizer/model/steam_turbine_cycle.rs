//! The steam turbine's electric and heat ratios from its steam conditions, as the service
//! computes them when they are not given (REopt.jl `assign_st_elec_and_therm_prod_ratios!` in
//! `src/core/steam_turbine.jl`, commit 029db01d): the boiler heats saturated liquid at the outlet
//! pressure to the inlet state, the turbine expands it with its isentropic efficiency, the shaft
//! work times the gearbox/generator efficiency and the net-to-gross ratio is the electricity, and a
//! back-pressure turbine's exhaust condensing to saturated liquid is the heat recovered. Steam
//! properties from IAPWS-IF97 (`steam_properties`) where the service asks CoolProp.
//!
//! Units: pressures in psig and temperatures in °F as the inputs give them, converted with the
//! service's constants; the ratios are kWh out per kWh of steam heat consumed.

use super::steam_properties::{enthalpy_from_entropy_j_per_kg, quality, saturated, saturation_temperature_k, state};
use crate::optimizer::water::kelvin_of_fahrenheit;

/// Steam conditions by size class 0–3 (REopt.jl `data/steam_turbine/steam_turbine_default_data.json`,
/// commit 029db01d): inlet and outlet pressure (psig), isentropic efficiency, gearbox/generator
/// efficiency, net-to-gross electric ratio. The file's inlet temperatures are left out: the
/// service fills the inlet temperature only where the superheat is NaN, and the superheat defaults
/// to 0, so the inlet state always comes from the superheat when no temperature is given.
pub const SIZE_CLASS_CONDITIONS: [SteamConditions; 4] = [
    SteamConditions::class(600.0, 117.0, 0.639, 0.947, 0.971),
    SteamConditions::class(500.0, 50.0, 0.525, 0.94, 0.974),
    SteamConditions::class(600.0, 150.0, 0.612, 0.94, 0.966),
    SteamConditions::class(700.0, 150.0, 0.78, 0.96, 0.973),
];

/// The service's psi per bar and standard atmosphere in bar (gauge to absolute pressure).
const PSI_PER_BAR: f64 = 14.5038;
const ATMOSPHERE_BAR: f64 = 1.01325;
const PA_PER_BAR: f64 = 1.0e5;

/// How the inlet temperature is given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InletTemperature {
    Degf(f64),
    /// Degrees F above the saturation temperature at the inlet pressure.
    SuperheatDegf(f64),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteamConditions {
    pub inlet_pressure_psig: f64,
    pub inlet_temperature: InletTemperature,
    pub outlet_pressure_psig: f64,
    pub isentropic_efficiency: f64,
    pub gearbox_generator_efficiency: f64,
    pub net_to_gross_electric_ratio: f64,
    /// A condensing turbine recovers no heat from its exhaust.
    pub is_condensing: bool,
}

/// What the cycle gives: the two ratios and the exhaust's vapour quality (`None` when it is
/// superheated, as CoolProp's -1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CycleRatios {
    pub electric_per_thermal: f64,
    pub thermal_per_thermal: f64,
    pub outlet_quality: Option<f64>,
}

/// Absolute pressure (Pa) of a gauge pressure in psig, with the service's constants.
pub fn pascal_of_psig(psig: f64) -> f64 {
    (psig / PSI_PER_BAR + ATMOSPHERE_BAR) * PA_PER_BAR
}

impl SteamConditions {
    const fn class(inlet_psig: f64, outlet_psig: f64, isentropic: f64, gearbox_generator: f64, net_to_gross: f64) -> Self {
        SteamConditions {
            inlet_pressure_psig: inlet_psig,
            inlet_temperature: InletTemperature::SuperheatDegf(0.0),
            outlet_pressure_psig: outlet_psig,
            isentropic_efficiency: isentropic,
            gearbox_generator_efficiency: gearbox_generator,
            net_to_gross_electric_ratio: net_to_gross,
            is_condensing: false,
        }
    }

    /// The inlet temperature (K). The service converts the superheat as a temperature, not as a
    /// difference (0 °F of superheat adds 255.37 K to the saturation temperature); kept so that the
    /// ratios are the service's.
    pub fn inlet_temperature_k(&self) -> Option<f64> {
        match self.inlet_temperature {
            InletTemperature::Degf(degf) => Some(kelvin_of_fahrenheit(degf)),
            InletTemperature::SuperheatDegf(degf) => {
                Some(saturation_temperature_k(pascal_of_psig(self.inlet_pressure_psig))? + kelvin_of_fahrenheit(degf))
            }
        }
    }

    /// The ratios, or `None` where a state falls outside IAPWS-IF97 regions 1, 2 and 4.
    pub fn ratios(&self) -> Option<CycleRatios> {
        let inlet_pa = pascal_of_psig(self.inlet_pressure_psig);
        let outlet_pa = pascal_of_psig(self.outlet_pressure_psig);
        let inlet = state(inlet_pa, self.inlet_temperature_k()?)?;
        let h_in = inlet.enthalpy_j_per_kg;
        let h_isentropic = enthalpy_from_entropy_j_per_kg(outlet_pa, inlet.entropy_j_per_kg_k)?;
        let h_out = h_in - self.isentropic_efficiency * (h_in - h_isentropic);
        let h_liquid = saturated(outlet_pa)?.0.enthalpy_j_per_kg;
        // The boiler's feed is saturated liquid at the outlet pressure (the pump's work ignored).
        let boiler_heat = h_in - h_liquid;
        let electric = (h_in - h_out) * self.gearbox_generator_efficiency * self.net_to_gross_electric_ratio;
        let recovered = if self.is_condensing { 0.0 } else { h_out - h_liquid };
        Some(CycleRatios {
            electric_per_thermal: electric / boiler_heat,
            thermal_per_thermal: recovered / boiler_heat,
            outlet_quality: quality(outlet_pa, h_out),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relative(found: f64, expected: f64) -> f64 {
        ((found - expected) / expected).abs()
    }

    /// The "Back pressure steam turbine" testset's conditions (the class 2 file values with the
    /// net-to-gross ratio 0.9), by hand from the steam tables:
    ///
    /// - inlet 600 psig = (600/14.5038 + 1.01325) bar = 42.3817 bar, 575 °F = 574.817 K (superheated,
    ///   T_sat 526.96 K): h_in = 2958.26 kJ/kg, s_in = 6.33424 kJ/(kg·K);
    /// - outlet 150 psig = 11.3554 bar: h_f = 787.30 kJ/kg, h_g = 2781.7 kJ/kg; at s_in the ideal
    ///   exhaust is wet, h_is = 2687.00 kJ/kg;
    /// - h_out = 2958.26 − 0.612 · (2958.26 − 2687.00) = 2792.25 kJ/kg (above h_g: superheated);
    /// - boiler heat 2958.26 − 787.30 = 2170.96 kJ/kg; electricity 166.01 · 0.94 · 0.9 = 140.45 kJ/kg;
    ///   heat recovered 2792.25 − 787.30 = 2004.95 kJ/kg;
    /// - r_e = 140.45 / 2170.96 = 0.064694, r_h = 2004.95 / 2170.96 = 0.92353 (the testset's annual
    ///   values give 18,970,374.6 kWh / (1,000,557.6 MMBtu · 293.07107) = 0.064694 and 924,045.1 /
    ///   1,000,557.6 = 0.92353).
    #[test]
    fn back_pressure_anchor_conditions_match_the_hand_calculation() {
        let conditions = SteamConditions {
            inlet_temperature: InletTemperature::Degf(575.0),
            net_to_gross_electric_ratio: 0.9,
            ..SIZE_CLASS_CONDITIONS[2]
        };
        let inlet = state(pascal_of_psig(600.0), conditions.inlet_temperature_k().unwrap()).unwrap();
        assert!((inlet.enthalpy_j_per_kg / 1e3 - 2958.26).abs() <= 0.1, "h_in {}", inlet.enthalpy_j_per_kg);
        assert!((inlet.entropy_j_per_kg_k / 1e3 - 6.33424).abs() <= 1e-4, "s_in {}", inlet.entropy_j_per_kg_k);
        let h_is = enthalpy_from_entropy_j_per_kg(pascal_of_psig(150.0), inlet.entropy_j_per_kg_k).unwrap();
        assert!((h_is / 1e3 - 2687.00).abs() <= 0.1, "h_is {h_is}");
        let cycle = conditions.ratios().unwrap();
        assert!(relative(cycle.electric_per_thermal, 0.064694) <= 1e-4, "r_e {}", cycle.electric_per_thermal);
        assert!(relative(cycle.thermal_per_thermal, 0.92353) <= 1e-4, "r_h {}", cycle.thermal_per_thermal);
        assert_eq!(cycle.outlet_quality, None);
        let condensing = SteamConditions { is_condensing: true, ..conditions }.ratios().unwrap();
        assert_eq!((condensing.electric_per_thermal, condensing.thermal_per_thermal), (cycle.electric_per_thermal, 0.0));
    }

    /// The service's default conditions of size class 0 (no inlet temperature, superheat 0), by
    /// hand from the steam tables:
    ///
    /// - inlet 600 psig = 42.3817 bar, T_sat = 526.957 K; the service adds the 0 °F superheat as
    ///   255.372 K, so T_in = 782.330 K: h_in = 3464.42 kJ/kg, s_in = 7.08998 kJ/(kg·K);
    /// - outlet 117 psig = 9.0801 bar: h_f = 744.22 kJ/kg; at s_in the ideal exhaust is superheated,
    ///   h_is = 3007.75 kJ/kg;
    /// - h_out = 3464.42 − 0.639 · 456.67 = 3172.61 kJ/kg; boiler heat 3464.42 − 744.22 = 2720.20 kJ/kg;
    /// - r_e = 291.81 · 0.947 · 0.971 / 2720.20 = 0.098644, r_h = (3172.61 − 744.22) / 2720.20 = 0.89272.
    ///
    /// Class 1's file conditions with its inlet temperature given (500 psig, 550 °F → 50 psig,
    /// η_s 0.525) end wet: x_out = (2732.53 − 621.74) / (2742.97 − 621.74) = 0.99507.
    #[test]
    fn class_defaults_match_the_hand_calculation() {
        let class0 = SIZE_CLASS_CONDITIONS[0];
        assert!((class0.inlet_temperature_k().unwrap() - 782.330).abs() <= 0.01, "T_in {:?}", class0.inlet_temperature_k());
        let cycle = class0.ratios().unwrap();
        assert!(relative(cycle.electric_per_thermal, 0.098644) <= 1e-4, "r_e {}", cycle.electric_per_thermal);
        assert!(relative(cycle.thermal_per_thermal, 0.89272) <= 1e-4, "r_h {}", cycle.thermal_per_thermal);
        assert_eq!(cycle.outlet_quality, None);
        let wet = SteamConditions { inlet_temperature: InletTemperature::Degf(550.0), ..SIZE_CLASS_CONDITIONS[1] }.ratios().unwrap();
        let quality = wet.outlet_quality.expect("wet exhaust");
        assert!((quality - 0.99507).abs() <= 2e-5, "x_out {quality}");
    }

    /// The service's ratios for each size class's default conditions, from CoolProp 8.0 `PropsSI`
    /// on "Water" (IAPWS-95, the library the service calls) through the same cycle: IF97 gives them
    /// within 1e-4 relative (measured: at most 4.7e-5, the saturation line of IF97 lying some mK
    /// off IAPWS-95's).
    #[test]
    fn class_defaults_match_the_service_coolprop_ratios() {
        const COOLPROP: [(f64, f64); 4] = [
            (0.09864448323168996, 0.8927237476777009),
            (0.09780174000027296, 0.8931782297170335),
            (0.08299121646855563, 0.9086040081179731),
            (0.11971757961952999, 0.8718336977351724),
        ];
        for (conditions, (electric, thermal)) in SIZE_CLASS_CONDITIONS.iter().zip(COOLPROP) {
            let cycle = conditions.ratios().unwrap();
            assert!(relative(cycle.electric_per_thermal, electric) <= 1e-4, "{conditions:?}: r_e {} vs {electric}", cycle.electric_per_thermal);
            assert!(relative(cycle.thermal_per_thermal, thermal) <= 1e-4, "{conditions:?}: r_h {} vs {thermal}", cycle.thermal_per_thermal);
        }
    }

    /// Conditions past IAPWS-IF97 regions 1, 2 and 4 have no ratios.
    #[test]
    fn conditions_outside_the_formulation_have_no_ratios() {
        let too_hot = SteamConditions { inlet_temperature: InletTemperature::Degf(1500.0), ..SIZE_CLASS_CONDITIONS[0] };
        assert_eq!(too_hot.ratios(), None);
        let supercritical = SteamConditions { inlet_pressure_psig: 3500.0, inlet_temperature: InletTemperature::Degf(700.0), ..SIZE_CLASS_CONDITIONS[0] };
        assert_eq!(supercritical.ratios(), None);
    }
}

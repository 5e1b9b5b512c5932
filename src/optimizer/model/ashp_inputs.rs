//! The air-source heat pumps `ASHPSpaceHeater` and `ASHPWaterHeater` read into `HeatPump`s
//! (REopt.jl `ASHPSpaceHeater`, `ASHPWaterHeater`, `get_ashp_performance` and
//! `get_ashp_default_min_allowable_size` in `src/core/ashp.jl`; `setup_ASHP*_inputs` in
//! `src/core/reopt_inputs.jl`; the temperatures from `Site.outdoor_air_temperature_degF` as
//! `src/core/scenario.jl` passes them).
//!
//! Units: sizes in tons of the section become thermal kW (`KWH_THERMAL_PER_TONHOUR`); the COP
//! and capacity factor of each step are interpolated from the reference points at the outdoor
//! temperature (°F), and below the back-up threshold the resistive back-up gives COP 1 and CF 1.
//!
//! The space heater also cools when `can_serve_cooling` (true by default) and a cooling load exists:
//! its cooling COP and capacity factor come from the cooling reference points with no back-up
//! (the service passes a threshold of −460 °F), and the cooling load joins the default maximum
//! (ten times the peak of heating load / heating cf plus the peak of cooling load / cooling cf)
//! and the default minimum allowable size (a fraction of the peak of their sum per step).
//!
//! `force_dispatch` (true by default) holds unless `force_into_system`, as the service's
//! `elseif`; its rows are `heat_pumps`'.
//!
//! Refused by name: an AbsorptionChiller or GHP beside a space heater forced in that cools, an
//! ASHP without its heating load, and an ASHP without `Site.outdoor_air_temperature_degF`
//! (`Scenario.resolve` fills it).

use serde_json::{Map, Value};

use super::absorption_chiller_inputs::KWH_THERMAL_PER_TONHOUR;
use super::electric_heater_inputs::{HeatPump, HeatPumpCooling, HeatPumpKind};
use super::hot_storage_inputs::chargeable_storages;
use super::thermal_inputs::{macrs_only_cost, Heating, HeatingLoadKind};
use super::{Financial, Reader};

/// The service's defaults of one ASHP section: REopt.jl `data/ashp/ashp_defaults.json` (commit
/// 029db01d), the same for both sections but for the loads they serve and cooling (the space
/// heater's only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AshpDefaults {
    pub max_ton: f64,
    pub installed_cost_per_ton: f64,
    pub om_cost_per_ton: f64,
    pub back_up_temp_threshold_degf: f64,
    pub sizing_factor: f64,
    pub heating_cop_reference: [f64; 4],
    pub heating_cf_reference: [f64; 4],
    pub heating_reference_temps_degf: [f64; 4],
    pub cooling_cop_reference: [f64; 4],
    pub cooling_cf_reference: [f64; 4],
    pub cooling_reference_temps_degf: [f64; 4],
}

pub const ASHP_DEFAULTS: AshpDefaults = AshpDefaults {
    max_ton: 99_999_999.0,
    installed_cost_per_ton: 2250.0,
    om_cost_per_ton: 40.0,
    back_up_temp_threshold_degf: 10.0,
    sizing_factor: 1.0,
    heating_cop_reference: [1.5, 2.3, 3.3, 4.5],
    heating_cf_reference: [0.38, 0.64, 1.0, 1.4],
    heating_reference_temps_degf: [-5.0, 17.0, 47.0, 80.0],
    cooling_cop_reference: [4.0, 3.5, 2.9, 2.2],
    cooling_cf_reference: [1.03, 0.98, 0.93, 0.87],
    cooling_reference_temps_degf: [70.0, 82.0, 95.0, 110.0],
};

/// The back-up threshold `ASHPSpaceHeater` passes for cooling: below absolute zero, so never.
pub const COOLING_BACK_UP_THRESHOLD_DEGF: f64 = -460.0;

/// `get_ashp_defaults(_, force_into_system=true)`: a system forced in is oversized by this
/// factor and carries no O&M.
pub const FORCED_SIZING_FACTOR: f64 = 1.1;

/// `min_allowable_peak_capacity_fraction` when neither it nor `min_allowable_ton` is given.
pub const MIN_ALLOWABLE_PEAK_CAPACITY_FRACTION: f64 = 0.25;

/// The reference curves and costs of an ASHP section, its defaults filled.
#[derive(Debug, Clone, PartialEq)]
struct AshpCurves {
    cop_reference: Vec<f64>,
    cf_reference: Vec<f64>,
    reference_temps_degf: Vec<f64>,
    back_up_temp_threshold_degf: f64,
    installed_cost_per_ton: f64,
    om_cost_per_ton: f64,
}

/// COP and capacity factor per step at the outdoor temperatures: linear between neighbouring
/// reference points (in the order given, either direction), the end value outside them, and
/// (1, 1) below the back-up threshold.
pub fn ashp_performance(cop_reference: &[f64], cf_reference: &[f64], reference_temps: &[f64], temps_degf: &[f64], back_up_threshold: f64) -> (Vec<f64>, Vec<f64>) {
    let (first, last) = (reference_temps[0], reference_temps[reference_temps.len() - 1]);
    let at_extreme = |pick_max: bool| {
        let mut best = 0;
        for (i, &temp) in reference_temps.iter().enumerate() {
            if (pick_max && temp > reference_temps[best]) || (!pick_max && temp < reference_temps[best]) {
                best = i;
            }
        }
        best
    };
    let point = |temp: f64| -> (f64, f64) {
        if temp < first && temp < last {
            let i = at_extreme(false);
            return (cop_reference[i], cf_reference[i]);
        }
        if temp > first && temp > last {
            let i = at_extreme(true);
            return (cop_reference[i], cf_reference[i]);
        }
        for i in 1..reference_temps.len() {
            let (a, b) = (reference_temps[i - 1], reference_temps[i]);
            if temp >= a.min(b) && temp <= a.max(b) {
                let share = (temp - a) / (b - a);
                return (
                    cop_reference[i - 1] + (cop_reference[i] - cop_reference[i - 1]) * share,
                    cf_reference[i - 1] + (cf_reference[i] - cf_reference[i - 1]) * share,
                );
            }
        }
        (0.0, 0.0)
    };
    temps_degf.iter().map(|&temp| if temp < back_up_threshold { (1.0, 1.0) } else { point(temp) }).unzip()
}

/// The default minimum allowable size: `fraction` of the peak of heating load / heating cf, plus
/// cooling load / cooling cf in the same step when the heat pump cools (kW).
pub fn default_min_allowable_kw(heating: (&[f64], &[f64]), cooling: Option<(&[f64], &[f64])>, fraction: f64) -> f64 {
    let (load, cf) = heating;
    let per_step = (0..load.len()).map(|t| load[t] / cf[t] + cooling.map_or(0.0, |(c, f)| c[t] / f[t]));
    fraction * per_step.fold(f64::NEG_INFINITY, f64::max)
}

fn peak_over_cf(load_kw: &[f64], cf: &[f64]) -> f64 {
    load_kw.iter().zip(cf).map(|(l, c)| l / c).fold(f64::NEG_INFINITY, f64::max)
}

impl Reader<'_> {
    /// One ASHP section, None when absent or with max_ton 0 (the service then builds none).
    pub(super) fn read_ashp(&mut self, kind: HeatPumpKind, heating: Option<&Heating>, cooling_kw: Option<&[f64]>, steps_per_hour: usize, financial: &Financial) -> Option<HeatPump> {
        let s = kind.section();
        let map = self.section(s)?;
        let given_max_ton = self.number_in(map, s, "max_ton");
        if given_max_ton.unwrap_or(ASHP_DEFAULTS.max_ton) <= 0.0 {
            return None;
        }
        let load_kind = if kind == HeatPumpKind::AshpSpaceHeater { HeatingLoadKind::SpaceHeating } else { HeatingLoadKind::DomesticHotWater };
        let load = heating.and_then(|h| h.loads.iter().find(|l| l.kind == load_kind)).map(|l| l.thermal_kw.clone());
        let force_into_system = self.flag_or(map, s, "force_into_system", false);
        let can_cool = kind == HeatPumpKind::AshpSpaceHeater && self.flag_or(map, s, "can_serve_cooling", true);
        // The service's forced dispatch is the `elseif` of forcing into the system.
        let force_dispatch = self.flag_or(map, s, "force_dispatch", true) && !force_into_system;
        let temps = self.outdoor_temperatures(s, steps_per_hour);
        let Some(load) = load else {
            self.unsupported.push(format!("{s} without a {} (nothing for it to serve)", load_kind.section()));
            return None;
        };
        let temps = temps?;
        let curves = self.ashp_curves(map, s)?;
        let (cop, mut cf) = ashp_performance(&curves.cop_reference, &curves.cf_reference, &curves.reference_temps_degf, &temps, curves.back_up_temp_threshold_degf);
        cop.iter().zip(cf.iter_mut()).filter(|(c, _)| **c == 1.0).for_each(|(_, f)| *f = 1.0);
        if cf.iter().any(|&f| f <= 0.0) {
            self.invalid.push(format!("{s}.heating_cf_reference must give a positive capacity factor at every outdoor temperature."));
            return None;
        }
        let cooling = if can_cool { Some(self.ashp_cooling(map, s, &temps)?) } else { None };
        if force_into_system && cooling.is_some() && cooling_kw.is_some() {
            for other in ["AbsorptionChiller", "GHP"] {
                if self.section(other).is_some() {
                    self.unsupported.push(format!("{other} with {s}.force_into_system and can_serve_cooling (the other cooling techs held at zero)"));
                }
            }
        }
        let zeros = vec![0.0; load.len()];
        let cooling_load = cooling_kw.unwrap_or(&zeros);
        let min_ton = self.number(map, s, "min_ton");
        let ten_peaks = 10.0 * (peak_over_cf(&load, &cf) + cooling.as_ref().map_or(0.0, |c| peak_over_cf(cooling_load, &c.cf)));
        let mut max_ton = given_max_ton.unwrap_or(ASHP_DEFAULTS.max_ton).min(ten_peaks);
        if given_max_ton.is_some() || kind == HeatPumpKind::AshpWaterHeater {
            max_ton = max_ton.max(min_ton);
        }
        let max_kw = max_ton * KWH_THERMAL_PER_TONHOUR;
        let min_allowable_kw = match (self.number_in(map, s, "min_allowable_ton"), self.number_in(map, s, "min_allowable_peak_capacity_fraction")) {
            (Some(_), Some(_)) => {
                self.invalid.push(format!("{s}: at most one of min_allowable_ton and min_allowable_peak_capacity_fraction may be input."));
                return None;
            }
            (Some(ton), None) => ton * KWH_THERMAL_PER_TONHOUR,
            (None, fraction) => {
                let cooling_part = cooling.as_ref().map(|c| (cooling_load, c.cf.as_slice()));
                default_min_allowable_kw((&load, &cf), cooling_part, fraction.unwrap_or(MIN_ALLOWABLE_PEAK_CAPACITY_FRACTION))
            }
        };
        if min_allowable_kw > max_kw {
            self.invalid.push(format!("The {s} minimum allowable size of {min_allowable_kw} kW is larger than the maximum size of {max_kw} kW."));
            return None;
        }
        let sizing_factor = self.number_in(map, s, "sizing_factor").unwrap_or(if force_into_system { FORCED_SIZING_FACTOR } else { ASHP_DEFAULTS.sizing_factor });
        // The service scales the space heater's costs by the sizing factor, not the water heater's.
        let cost_scale = if kind == HeatPumpKind::AshpSpaceHeater { sizing_factor } else { 1.0 };
        let installed_cost_per_kw = curves.installed_cost_per_ton / KWH_THERMAL_PER_TONHOUR * cost_scale;
        let (years, bonus) = self.heat_pump_macrs(map, s);
        Some(HeatPump {
            kind,
            min_kw: min_ton * KWH_THERMAL_PER_TONHOUR,
            max_kw,
            min_allowable_kw,
            sizing_factor,
            installed_cost_per_kw,
            net_present_cost_per_kw: macrs_only_cost(installed_cost_per_kw, financial, years, bonus),
            om_cost_per_kw: curves.om_cost_per_ton / KWH_THERMAL_PER_TONHOUR * cost_scale,
            cop,
            cf,
            serves: vec![load_kind],
            charges: heating.map_or_else(Vec::new, |h| chargeable_storages(h, &[load_kind], false)),
            storage_only: false,
            forced_loads: if force_into_system { vec![load_kind] } else { Vec::new() },
            avoided_capex: self.number_or(map, s, "avoided_capex_by_ashp_present_value", 0.0),
            cooling: cooling.filter(|_| cooling_kw.is_some()),
            force_dispatch,
            land: None,
        })
    }

    /// The space heater's cooling COP and capacity factor per step: the cooling reference points
    /// (given together or the defaults) at the outdoor temperatures, never backed up.
    fn ashp_cooling(&mut self, map: &Map<String, Value>, s: &'static str, temps: &[f64]) -> Option<HeatPumpCooling> {
        let defaults = (&ASHP_DEFAULTS.cooling_cop_reference[..], &ASHP_DEFAULTS.cooling_cf_reference[..], &ASHP_DEFAULTS.cooling_reference_temps_degf[..]);
        let (cop_reference, cf_reference, reference_temps) = self.ashp_reference_points(map, s, "cooling", defaults)?;
        let (cop, cf) = ashp_performance(&cop_reference, &cf_reference, &reference_temps, temps, COOLING_BACK_UP_THRESHOLD_DEGF);
        if cf.iter().chain(&cop).any(|&v| v <= 0.0) {
            self.invalid.push(format!("{s}.cooling_cop_reference and cooling_cf_reference must give a positive COP and capacity factor at every outdoor temperature."));
            return None;
        }
        Some(HeatPumpCooling { cop, cf })
    }

    /// The `{mode}_cop_reference`, `{mode}_cf_reference` and `{mode}_reference_temps_degF` lists
    /// (`mode` heating or cooling): given together, or the defaults when all are left out; lists of
    /// different lengths are the service's error.
    fn ashp_reference_points(
        &mut self,
        map: &Map<String, Value>,
        s: &str,
        mode: &str,
        defaults: (&[f64], &[f64], &[f64]),
    ) -> Option<(Vec<f64>, Vec<f64>, Vec<f64>)> {
        let (cop_field, cf_field, temps_field) = (format!("{mode}_cop_reference"), format!("{mode}_cf_reference"), format!("{mode}_reference_temps_degF"));
        let cop_reference = self.numbers(map, s, &cop_field);
        let cf_reference = self.numbers(map, s, &cf_field);
        let reference_temps = self.numbers(map, s, &temps_field);
        if cop_reference.len() != cf_reference.len() || cf_reference.len() != reference_temps.len() {
            self.invalid.push(format!("{s}: {cop_field}, {cf_field}, and {temps_field} must all be the same length."));
            return None;
        }
        if cop_reference.is_empty() {
            return Some((defaults.0.to_vec(), defaults.1.to_vec(), defaults.2.to_vec()));
        }
        Some((cop_reference, cf_reference, reference_temps))
    }

    /// The reference points (given together or the defaults), the threshold and the costs.
    fn ashp_curves(&mut self, map: &Map<String, Value>, s: &'static str) -> Option<AshpCurves> {
        let defaults = (&ASHP_DEFAULTS.heating_cop_reference[..], &ASHP_DEFAULTS.heating_cf_reference[..], &ASHP_DEFAULTS.heating_reference_temps_degf[..]);
        let (cop_reference, cf_reference, reference_temps_degf) = self.ashp_reference_points(map, s, "heating", defaults)?;
        let forced = self.flag_or(map, s, "force_into_system", false);
        Some(AshpCurves {
            cop_reference,
            cf_reference,
            reference_temps_degf,
            back_up_temp_threshold_degf: self.number_in(map, s, "back_up_temp_threshold_degF").unwrap_or(ASHP_DEFAULTS.back_up_temp_threshold_degf),
            installed_cost_per_ton: self.number_in(map, s, "installed_cost_per_ton").unwrap_or(ASHP_DEFAULTS.installed_cost_per_ton),
            om_cost_per_ton: self.number_in(map, s, "om_cost_per_ton").unwrap_or(if forced { 0.0 } else { ASHP_DEFAULTS.om_cost_per_ton }),
        })
    }

    /// `Site.outdoor_air_temperature_degF` at the model's resolution; refused by name when absent.
    fn outdoor_temperatures(&mut self, s: &str, steps_per_hour: usize) -> Option<Vec<f64>> {
        let site = self.section("Site").unwrap_or(self.empty);
        let temps = self.numbers(site, "Site", "outdoor_air_temperature_degF");
        if temps.is_empty() {
            self.unsupported.push(format!(
                "{s} without Site.outdoor_air_temperature_degF (Scenario.resolve(client) fills it from the PVWatts hourly ambient temperature, as the service does)"
            ));
            return None;
        }
        self.series(&temps, "Site", "outdoor_air_temperature_degF", steps_per_hour)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// REopt.jl testset "ASHP min allowable size and COP, CF Profiles": the heating and the
    /// (decreasing) cooling reference curves and the default minimum allowable sizes.
    #[test]
    fn performance_interpolates_clamps_and_backs_up_as_the_service() {
        let (cop, cf) = ashp_performance(&[1.0, 3.0, 4.0], &[1.2, 1.3, 1.5], &[10.0, 20.0, 30.0], &[5.0, 15.0, 25.0, 35.0], 10.0);
        assert_eq!(cop, vec![1.0, 2.0, 3.5, 4.0]);
        assert_eq!(cf, vec![1.0, 1.25, 1.4, 1.5]);
        let (cop, cf) = ashp_performance(&[1.0, 3.0, 4.0], &[1.2, 1.3, 1.5], &[30.0, 20.0, 10.0], &[35.0, 25.0, 15.0, 5.0], -200.0);
        assert_eq!(cop, vec![1.0, 2.0, 3.5, 4.0]);
        assert_eq!(cf, vec![1.2, 1.25, 1.4, 1.5]);
        let (_, heating_cf) = ashp_performance(&[1.0, 3.0, 4.0], &[1.2, 1.3, 1.5], &[10.0, 20.0, 30.0], &[5.0, 15.0, 25.0, 35.0], 10.0);
        assert!((default_min_allowable_kw((&[10.0; 4], &heating_cf), None, 0.5) - 5.0).abs() < 1e-8);
        let (_, cooling_cf) = ashp_performance(&[1.0, 3.0, 4.0], &[1.2, 1.3, 1.5], &[30.0, 20.0, 10.0], &[35.0, 25.0, 15.0, 5.0], -200.0);
        let both = default_min_allowable_kw((&[10.0; 4], &heating_cf), Some((&[10.0; 4], &cooling_cf)), 0.5);
        assert!((both - 9.166666666666666).abs() < 1e-8, "{both}");
    }
}

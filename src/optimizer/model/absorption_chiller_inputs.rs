//! The AbsorptionChiller read into typed inputs (REopt.jl `src/core/absorption_chiller.jl` and
//! `setup_absorption_chiller_inputs` in `src/core/reopt_inputs.jl`): a chiller the optimizer may
//! size that makes cooling from heat, drawn from one heating load's balance.
//!
//! Units: the service takes tons of refrigeration and $/ton; the LP works in thermal kW
//! (1 ton = 3.51685 kW). Its heat draw is cooling / cop_thermal (times CHP.cooling_thermal_factor
//! with CHP: its prime mover's and size class's default when left out), its electricity cooling / cop_electric. Costs, COP and the heating load fed left
//! null take the service's defaults of its heat medium (hot water or steam; from the CHP's prime
//! mover, else the existing boiler's production type), interpolated by the peak cooling load's
//! tons between the two size classes around it. Only MACRS applies to its capital cost (no ITC).

use serde_json::{Map, Value};

use super::thermal_inputs::{macrs_only_cost, Heating, HeatingLoadKind};
use super::{FilledDefault, Financial, Reader};

/// kW thermal per ton of refrigeration (kWh thermal per ton-hour), the service's constant.
pub const KWH_THERMAL_PER_TONHOUR: f64 = 3.51685;

/// The service's defaults of one heat medium (REopt.jl `data/absorption_chiller/
/// absorption_chiller_defaults.json` at 029db01d): per size class (tons) the installed $/ton and
/// the O&M $/ton-year, and one thermal COP. Both media feed the DomesticHotWater load by default.
struct MediumDefaults {
    name: &'static str,
    size_class_tons: &'static [f64],
    installed_cost_per_ton: &'static [f64],
    om_cost_per_ton: &'static [f64],
    cop_thermal: f64,
}

const HOT_WATER: MediumDefaults = MediumDefaults {
    name: "hot_water",
    size_class_tons: &[10.0, 50.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0, 900.0, 1000.0],
    installed_cost_per_ton: &[7000.0, 3066.0, 2027.0, 1587.0, 1527.0, 1426.0, 1365.0, 1313.0, 1312.0, 1277.0, 1248.0],
    om_cost_per_ton: &[300.0, 80.0, 36.0, 32.0, 31.0, 30.0, 28.0, 26.0, 23.0, 20.0, 18.0],
    cop_thermal: 0.74,
};

const STEAM: MediumDefaults = MediumDefaults {
    name: "steam",
    size_class_tons: &[50.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0, 900.0, 1000.0],
    installed_cost_per_ton: &[3723.0, 2461.0, 1960.0, 1855.0, 1709.0, 1623.0, 1547.0, 1520.0, 1470.0, 1427.0],
    om_cost_per_ton: &[100.0, 43.0, 36.0, 34.0, 32.0, 30.0, 28.0, 26.0, 23.0, 20.0],
    cop_thermal: 1.42,
};

/// The service's size-class rule (`get_absorption_chiller_max_size_class`): the class at or
/// below the peak and the weight of the next one; below the first class the first alone, above
/// the last the last alone.
pub fn size_class_weights(load_max_tons: f64, classes: &[f64]) -> (usize, f64) {
    let last = classes.len() - 1;
    if load_max_tons <= classes[0] {
        return (0, 0.0);
    }
    if load_max_tons > classes[last] {
        return (last - 1, 1.0);
    }
    let lower = (0..last).find(|&c| load_max_tons > classes[c] && load_max_tons <= classes[c + 1]).unwrap_or(last - 1);
    (lower, (load_max_tons - classes[lower]) / (classes[lower + 1] - classes[lower]))
}

/// (installed $/ton, O&M $/ton-year) of a medium for the peak cooling load.
fn interpolated_costs(medium: &MediumDefaults, load_max_tons: f64) -> (f64, f64) {
    let (class, upper) = size_class_weights(load_max_tons, medium.size_class_tons);
    let blend = |values: &[f64]| upper * values[class + 1] + (1.0 - upper) * values[class];
    (blend(medium.installed_cost_per_ton), blend(medium.om_cost_per_ton))
}

#[derive(Debug, Clone, PartialEq)]
pub struct AbsorptionChiller {
    /// Size bounds (thermal kW of cooling).
    pub min_kw: f64,
    pub max_kw: f64,
    /// $ per kW of cooling, before and after MACRS.
    pub installed_cost_per_kw: f64,
    pub net_present_cost_per_kw: f64,
    /// $ per kW of cooling per year.
    pub om_cost_per_kw: f64,
    /// Cooling kW per kW of heat drawn (with CHP's cooling_thermal_factor applied).
    pub cop_thermal: f64,
    /// Cooling kW per kW of electricity.
    pub cop_electric: f64,
    /// The heating load whose balance carries its heat draw.
    pub heating_load: HeatingLoadKind,
}

impl Reader<'_> {
    /// The absorption chiller for a cooling load peaking at `peak_kw`; None without the section
    /// or with max_ton = 0 (the service then leaves it out). The heating and electric loads pick
    /// the CHP's size class, whose cooling_thermal_factor is the default.
    pub(super) fn read_absorption_chiller(
        &mut self,
        peak_kw: f64,
        financial: &Financial,
        (heating, electric_kw): (Option<&Heating>, &[f64]),
    ) -> Option<AbsorptionChiller> {
        let s = "AbsorptionChiller";
        let map = self.section(s)?;
        let max_ton = self.number(map, s, "max_ton");
        if max_ton == 0.0 {
            return None;
        }
        let medium = self.absorption_medium(map)?;
        let (cost_default, om_default) = interpolated_costs(medium, peak_kw / KWH_THERMAL_PER_TONHOUR);
        let installed_cost_per_ton = self.filled_number(map, s, "installed_cost_per_ton", cost_default);
        let om_cost_per_ton = self.filled_number(map, s, "om_cost_per_ton", om_default);
        let cop_thermal = self.filled_number(map, s, "cop_thermal", medium.cop_thermal);
        let heating_load = match map.get("heating_load_input").and_then(Value::as_str) {
            Some(name) => match HeatingLoadKind::ALL.into_iter().find(|k| k.section().strip_suffix("Load") == Some(name)) {
                Some(kind) => kind,
                None => {
                    self.invalid.push("AbsorptionChiller.heating_load_input must be DomesticHotWater, SpaceHeating or ProcessHeat.".into());
                    return None;
                }
            },
            None => {
                self.filled.push(FilledDefault::new(s, "heating_load_input", Value::from("DomesticHotWater")));
                HeatingLoadKind::DomesticHotWater
            }
        };
        let thermal_factor = match self.section("CHP") {
            None => 1.0,
            Some(chp) => match self.number_in(chp, "CHP", "cooling_thermal_factor") {
                Some(factor) if factor > 0.0 => factor,
                Some(_) => {
                    self.invalid.push("The CHP cooling_thermal_factor is 0.0 which implies that CHP cannot serve AbsorptionChiller.".into());
                    return None;
                }
                None => {
                    let before = self.invalid.len();
                    let defaults = self.read_chp_defaults(chp, heating, electric_kw);
                    // The CHP reader names a failure of the defaults; once is enough.
                    self.invalid.truncate(before);
                    let factor = defaults?.cooling_thermal_factor;
                    self.filled.push(FilledDefault::new("CHP", "cooling_thermal_factor", Value::from(factor)));
                    factor
                }
            },
        };
        let macrs_option_years = self.count(map, s, "macrs_option_years");
        if ![0, 5, 7].contains(&macrs_option_years) {
            self.invalid.push("AbsorptionChiller.macrs_option_years must be 0, 5, or 7.".into());
        }
        let installed_cost_per_kw = installed_cost_per_ton / KWH_THERMAL_PER_TONHOUR;
        let net_present_cost_per_kw = macrs_only_cost(installed_cost_per_kw, financial, macrs_option_years, self.number(map, s, "macrs_bonus_fraction"));
        let cop_electric = self.number(map, s, "cop_electric");
        if cop_thermal <= 0.0 || cop_electric <= 0.0 {
            self.invalid.push("AbsorptionChiller.cop_thermal and cop_electric must be positive.".into());
            return None;
        }
        Some(AbsorptionChiller {
            min_kw: self.number(map, s, "min_ton") * KWH_THERMAL_PER_TONHOUR,
            max_kw: max_ton * KWH_THERMAL_PER_TONHOUR,
            installed_cost_per_kw,
            net_present_cost_per_kw,
            om_cost_per_kw: om_cost_per_ton / KWH_THERMAL_PER_TONHOUR,
            cop_thermal: cop_thermal * thermal_factor,
            cop_electric,
            heating_load,
        })
    }

    /// The heat medium: as given, else steam behind a combustion-turbine CHP and hot water behind
    /// another, else the existing boiler's production type, else hot water.
    fn absorption_medium(&mut self, map: &Map<String, Value>) -> Option<&'static MediumDefaults> {
        let given = map.get("thermal_consumption_hot_water_or_steam").and_then(Value::as_str);
        let chp = self.section("CHP").map(|chp| self.text(chp, "prime_mover").to_string());
        let boiler = self.section("ExistingBoiler").map(|b| self.text(b, "production_type").to_string());
        let name = match (given, chp, boiler) {
            (Some(name), _, _) => name.to_string(),
            (None, Some(prime_mover), _) if prime_mover == "combustion_turbine" => "steam".into(),
            (None, Some(_), _) => "hot_water".into(),
            (None, None, Some(production)) if !production.is_empty() => production,
            _ => "hot_water".into(),
        };
        let medium = [&HOT_WATER, &STEAM].into_iter().find(|m| m.name == name);
        if medium.is_none() {
            self.invalid.push("AbsorptionChiller.thermal_consumption_hot_water_or_steam must be hot_water or steam.".into());
        }
        medium
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_interpolate_between_neighbours_and_clamp_at_the_ends() {
        assert_eq!(size_class_weights(5.0, HOT_WATER.size_class_tons), (0, 0.0));
        assert_eq!(size_class_weights(2000.0, HOT_WATER.size_class_tons), (9, 1.0));
        let (class, weight) = size_class_weights(250.0, HOT_WATER.size_class_tons);
        assert_eq!((class, weight), (2, 0.5));
        let (cost, om) = interpolated_costs(&HOT_WATER, 250.0);
        assert!((cost - (2027.0 + 1587.0) / 2.0).abs() < 1e-9 && (om - 34.0).abs() < 1e-9);
        assert_eq!(interpolated_costs(&STEAM, 1000.0), (1427.0, 20.0));
    }
}

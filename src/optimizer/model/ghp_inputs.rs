//! The GHP section read into typed design options (REopt.jl 0.56.4 `src/core/ghp.jl`: the `GHP`
//! constructor, `setup_installed_cost_curve!`, `setup_om_cost!`; the GHP part of
//! `src/core/scenario.jl`; `setup_ghp_inputs` and `get_ghp_installed_cost` in
//! `src/core/reopt_inputs.jl`). Only the form where the ground heat exchanger is already sized
//! is modelled: `GHP.ghpghx_responses`, one response of the service's separate GhpGhx sizing
//! tool per option. Sizing from `ghpghx_inputs` needs that tool and is refused by name.
//!
//! Units: the responses give MMBtu/h of heating, tons of cooling and kW of electricity per hour;
//! the options hold thermal and electric kW per step (1 MMBtu/h = 293.07107 kW, 1 ton =
//! 3.51685 kW). Costs are $ (installed: net present after incentives), $/year (O&M).
//!
//! Per option g and step t (H = heating load SH + DHW + PH, SH the space heating, C the cooling
//! load; f_h, f_c the efficiency thermal factors):
//!
//! ```text
//! reduction_h_t = min(SH_t·(1 − f_h), H_t)        reduction_c_t = min(C_t·(1 − f_c), C_t)
//! served_h_gt   = min(heating_g_t, H_t − reduction_h_t)
//! served_c_gt   = min(cooling_g_t, C_t − reduction_c_t)
//! all of them and the electricity are 0 in steps without the grid
//! heat pump tons (WSHP) = peak_combined_ton · sizing factor
//! installed_g   = tons · npc((ghx_ft·$/ft + sqft·$/sqft + aux) / tons + $/ton)
//! (WWHP: per pump, tons_p · npc((ghx + aux)/2/tons_p + $/ton_p), no hydronic loop)
//! om_g          = sqft · om $/sqft-year
//! residual_g    = ghx $ · (life − N)/life / (1 + d)^N   (d the owner's rate under third party)
//! ```
//!
//! npc is the service's cost curve of a single piece: utility then state IBI fraction and
//! $/ton rebate, the slope after the ITC and federal rebate rounded to whole $, then the ITC and
//! MACRS (`finance::effective_cost`).

use serde_json::{Map, Value};

use super::absorption_chiller_inputs::KWH_THERMAL_PER_TONHOUR;
use super::technology_inputs::PvIncentives;
use super::thermal_inputs::{Heating, HeatingLoadKind, KWH_PER_MMBTU};
use super::{Financial, Reader};
use crate::calendar::HOURS_PER_YEAR;
use crate::optimizer::finance::{cost_curve_itc_basis, effective_cost, TaxTreatment, UNLIMITED_CAP};
use crate::optimizer::scenario::given as is_given;

/// GHP's federal ITC where the sector gives tax incentives (REopt.jl
/// `data/sector_dependent_defaults.json` at 029db01d: 0.3 for commercial/industrial and
/// privately owned third party, 0 for the federally owned procurement types, as PV).
const GHP_FEDERAL_ITC: f64 = 0.3;

/// Building types whose efficiency thermal factors the service looks up by ASHRAE climate zone
/// (REopt.jl `data/ghp/ghp_*_efficiency_thermal_factors.csv` at 029db01d); others take 1.
const THERMAL_FACTOR_BUILDINGS: [&str; 7] =
    ["LargeOffice", "MediumOffice", "PrimarySchool", "SecondarySchool", "Hospital", "Outpatient", "LargeHotel"];

/// The heat pumps of a GhpGhx design.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HeatPumps {
    /// Water-to-air: one set of heat pumps sized on the combined peak (tons).
    Wshp { ton: f64 },
    /// Water-to-water: a heating and a cooling pump (tons).
    Wwhp { heating_ton: f64, cooling_ton: f64 },
}

/// One GhpGhx design the optimizer may choose.
#[derive(Debug, Clone, PartialEq)]
pub struct GhpOption {
    pub heat_pumps: HeatPumps,
    /// Heating and cooling the design serves beyond the retrofit's load reduction (thermal kW).
    pub heating_served_kw: Vec<f64>,
    pub cooling_served_kw: Vec<f64>,
    /// The design's electricity (kW).
    pub electric_kw: Vec<f64>,
    /// Net present installed cost after incentives ($), and before them (the service's initial
    /// capital: the heat pump tons times the cost curve's slope).
    pub installed_cost: f64,
    pub initial_capital_cost: f64,
    pub om_cost_year_one: f64,
    /// The ground heat exchanger's capital cost and its present residual value ($).
    pub ghx_only_capital_cost: f64,
    pub ghx_residual_value: f64,
    /// The response's outputs, echoed as `ghpghx_chosen_outputs`.
    pub ghpghx_outputs: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ghp {
    pub options: Vec<GhpOption>,
    /// One option must be bought.
    pub require_purchase: bool,
    /// GHP may serve the domestic hot water (up to its served heating).
    pub can_serve_dhw: bool,
    /// Heating and cooling load the retrofit removes while GHP runs (thermal kW).
    pub space_heating_reduction_kw: Vec<f64>,
    pub cooling_reduction_kw: Vec<f64>,
    /// HVAC capital avoided by GHP, present value ($).
    pub avoided_capex: f64,
    /// The incentives and tax treatment as the service's pro forma takes them (`update_ghp_metrics`:
    /// rebates per ton read as per kW of heat pump tons; no caps, capped ones are refused).
    pub incentives: PvIncentives,
}

impl GhpOption {
    /// The "kW" the service's pro forma prices rebates on: the heat pump tons (WWHP: the mean of
    /// its heating and cooling pumps' tons).
    pub fn pro_forma_size(&self) -> f64 {
        match self.heat_pumps {
            HeatPumps::Wshp { ton } => ton,
            HeatPumps::Wwhp { heating_ton, cooling_ton } => (heating_ton + cooling_ton) / 2.0,
        }
    }
}

impl Ghp {
    /// Option g's heating when chosen (thermal kW): the reduction plus what it serves.
    pub fn heating_kw(&self, g: usize, t: usize) -> f64 {
        self.space_heating_reduction_kw[t] + self.options[g].heating_served_kw[t]
    }

    pub fn cooling_kw(&self, g: usize, t: usize) -> f64 {
        self.cooling_reduction_kw[t] + self.options[g].cooling_served_kw[t]
    }

    /// The most electricity any option uses in a step (kW).
    pub fn max_electric_kw(&self) -> f64 {
        self.options.iter().flat_map(|o| o.electric_kw.iter().copied()).fold(0.0, f64::max)
    }
}

/// Cost inputs shared by the options.
struct CostInputs {
    heatpump_per_ton: f64,
    wwhp_heating_per_ton: f64,
    wwhp_cooling_per_ton: f64,
    sizing_factor: f64,
    ghx_per_ft: f64,
    ghx_only_capital_cost: Option<f64>,
    hydronic_loop: f64,
    aux_heater_per_mmbtu_per_hr: f64,
    aux_cooler_per_ton: f64,
    aux_sizing_factor: f64,
    utility_ibi: f64,
    state_ibi: f64,
    utility_rebate_per_ton: f64,
    state_rebate_per_ton: f64,
    federal_rebate_per_ton: f64,
    tax: TaxTreatment,
}

impl CostInputs {
    fn pro_forma_incentives(&self) -> PvIncentives {
        PvIncentives {
            federal_itc_fraction: self.tax.itc_fraction,
            macrs_option_years: self.tax.macrs_option_years,
            macrs_bonus_fraction: self.tax.macrs_bonus_fraction,
            macrs_itc_reduction: self.tax.macrs_itc_reduction,
            state_ibi_fraction: self.state_ibi,
            state_ibi_max: UNLIMITED_CAP,
            utility_ibi_fraction: self.utility_ibi,
            utility_ibi_max: UNLIMITED_CAP,
            federal_rebate_per_kw: self.federal_rebate_per_ton,
            state_rebate_per_kw: self.state_rebate_per_ton,
            state_rebate_max: UNLIMITED_CAP,
            utility_rebate_per_kw: self.utility_rebate_per_ton,
            utility_rebate_max: UNLIMITED_CAP,
        }
    }

    /// Net present $ per ton of a single-piece cost curve with slope `per_ton`.
    fn net_present_per_ton(&self, per_ton: f64) -> f64 {
        let after_utility = per_ton * (1.0 - self.utility_ibi) - self.utility_rebate_per_ton;
        let after_state = after_utility * (1.0 - self.state_ibi) - self.state_rebate_per_ton;
        let basis = cost_curve_itc_basis(after_state, self.tax.itc_fraction, self.federal_rebate_per_ton);
        effective_cost(basis, None, &self.tax, self.federal_rebate_per_ton)
    }
}

/// The space-heating and the cooling series the reader already has (zeros without them).
pub(super) struct GhpLoads<'a> {
    pub heating: Option<&'a Heating>,
    pub cooling_kw: Option<&'a [f64]>,
    /// Steps without the grid (the deterministic outage; every step off grid).
    pub without_grid: &'a [bool],
}

impl Reader<'_> {
    /// The GHP options; None without the section or when it cannot be modelled (named).
    pub(super) fn read_ghp(&mut self, steps_per_hour: usize, financial: &Financial, loads: GhpLoads) -> Option<Ghp> {
        let s = "GHP";
        let map = self.section(s)?;
        let responses = match map.get("ghpghx_responses") {
            Some(Value::Array(items)) if !items.is_empty() => items,
            _ => {
                if is_given(map.get("ghpghx_response_uuids")) {
                    self.unsupported.push("GHP.ghpghx_response_uuids (responses of the service's GhpGhx tool by reference: give ghpghx_responses)".into());
                } else {
                    self.unsupported
                        .push("GHP.ghpghx_inputs without ghpghx_responses (the GHX sizing needs the service's separate GhpGhx tool)".into());
                }
                return None;
            }
        };
        let Some(building_sqft) = self.number_in(map, s, "building_sqft") else {
            self.invalid.push("If evaluating GHP you must enter a building_sqft.".into());
            return None;
        };
        if steps_per_hour != 1 {
            self.unsupported.push("GHP with Settings.time_steps_per_hour > 1 (the GhpGhx responses are hourly)".into());
            return None;
        }
        self.refuse_capped_ghp_incentives(map);
        let steps = HOURS_PER_YEAR;
        let heating_factor = self.ghp_thermal_factor(map, "space_heating_efficiency_thermal_factor", "SpaceHeatingLoad")?;
        let cooling_factor = self.ghp_thermal_factor(map, "cooling_efficiency_thermal_factor", "CoolingLoad")?;
        let space_heating = loads.heating.map_or_else(|| vec![0.0; steps], |h| h.load_kw(HeatingLoadKind::SpaceHeating, steps));
        let heating_total: Vec<f64> = (0..steps).map(|t| loads.heating.map_or(0.0, |h| h.total_kw(t))).collect();
        let cooling = loads.cooling_kw.map_or_else(|| vec![0.0; steps], <[f64]>::to_vec);
        let grid = |t: usize, kw: f64| if loads.without_grid[t] { 0.0 } else { kw };
        let full_heating_reduction: Vec<f64> = (0..steps).map(|t| (space_heating[t] * (1.0 - heating_factor)).min(heating_total[t])).collect();
        let full_cooling_reduction: Vec<f64> = (0..steps).map(|t| (cooling[t] * (1.0 - cooling_factor)).min(cooling[t])).collect();
        let costs = self.ghp_cost_inputs(map, building_sqft, financial);
        let om_cost_year_one = building_sqft * self.number(map, s, "om_cost_per_sqft_year");
        let life = self.count(map, s, "ghx_useful_life_years");
        let mut hybrid = self.flag_or(map, s, "is_ghx_hybrid", false);
        let mut options = Vec::with_capacity(responses.len());
        for (index, response) in responses.iter().enumerate() {
            let name = format!("GHP.ghpghx_responses[{index}]");
            let Some(response) = self.ghpghx_response(response, &name, steps) else { continue };
            // The service marks the shared inputs once a response is hybrid, so every later
            // option prices the auxiliary units too.
            hybrid |= matches!(response.hybrid_method.as_deref(), Some("Automatic" | "Fractional"));
            let ghx_cost = costs.ghx_only_capital_cost.unwrap_or(response.ghx_ft * costs.ghx_per_ft);
            let aux = if hybrid {
                let heater = costs.aux_heater_per_mmbtu_per_hr * response.peak_aux_heater_mmbtu_per_hr * costs.aux_sizing_factor;
                heater + costs.aux_cooler_per_ton * response.peak_aux_cooler_ton * costs.aux_sizing_factor
            } else {
                0.0
            };
            let (heat_pumps, installed_cost, initial_capital_cost) = match response.heat_pumps {
                HeatPumps::Wshp { ton: peak } => {
                    let ton = peak * costs.sizing_factor;
                    if ton <= 0.0 {
                        self.unsupported.push(format!("{name}.outputs.peak_combined_heatpump_thermal_ton=0 (costing the GHX alone)"));
                        continue;
                    }
                    let per_ton = (ghx_cost + costs.hydronic_loop + aux) / ton + costs.heatpump_per_ton;
                    (HeatPumps::Wshp { ton }, ton * costs.net_present_per_ton(per_ton), ton * per_ton)
                }
                HeatPumps::Wwhp { heating_ton, cooling_ton } => {
                    let (heating_ton, cooling_ton) = (heating_ton * costs.sizing_factor, cooling_ton * costs.sizing_factor);
                    if heating_ton <= 0.0 || cooling_ton <= 0.0 {
                        self.invalid.push(format!("{name}: a WWHP design needs positive peak heating and cooling heat pump tons."));
                        continue;
                    }
                    let heating_per_ton = (ghx_cost + aux) / 2.0 / heating_ton + costs.wwhp_heating_per_ton;
                    let cooling_per_ton = (ghx_cost + aux) / 2.0 / cooling_ton + costs.wwhp_cooling_per_ton;
                    let installed = heating_ton * costs.net_present_per_ton(heating_per_ton) + cooling_ton * costs.net_present_per_ton(cooling_per_ton);
                    (HeatPumps::Wwhp { heating_ton, cooling_ton }, installed, heating_ton * heating_per_ton + cooling_ton * cooling_per_ton)
                }
            };
            let residual_rate = if financial.third_party_ownership { financial.owner_discount_rate_fraction } else { financial.offtaker_discount_rate_fraction };
            let years = f64::from(financial.analysis_years);
            let life = f64::from(life);
            let ghx_residual_value = ghx_cost * ((life - years) / life) / (1.0 + residual_rate).powf(years);
            options.push(GhpOption {
                heat_pumps,
                heating_served_kw: (0..steps)
                    .map(|t| grid(t, response.heating_kw[t].min(heating_total[t] - full_heating_reduction[t])))
                    .collect(),
                cooling_served_kw: (0..steps).map(|t| grid(t, response.cooling_kw[t].min(cooling[t] - full_cooling_reduction[t]))).collect(),
                electric_kw: (0..steps).map(|t| grid(t, response.electric_kw[t])).collect(),
                installed_cost,
                initial_capital_cost,
                om_cost_year_one,
                ghx_only_capital_cost: ghx_cost,
                ghx_residual_value,
                ghpghx_outputs: response.outputs,
            });
        }
        if options.len() != responses.len() {
            return None;
        }
        Some(Ghp {
            options,
            require_purchase: self.flag_or(map, s, "require_ghp_purchase", false),
            can_serve_dhw: self.flag_or(map, s, "can_serve_dhw", false),
            space_heating_reduction_kw: (0..steps).map(|t| grid(t, full_heating_reduction[t])).collect(),
            cooling_reduction_kw: (0..steps).map(|t| grid(t, full_cooling_reduction[t])).collect(),
            avoided_capex: self.number(map, s, "avoided_capex_by_ghp_present_value"),
            incentives: costs.pro_forma_incentives(),
        })
    }

    /// An efficiency thermal factor: given, 1 for a building the service has no factors for, and
    /// refused for one whose factor needs the ASHRAE climate zone of the site.
    fn ghp_thermal_factor(&mut self, map: &Map<String, Value>, field: &'static str, load: &str) -> Option<f64> {
        if let Some(factor) = self.number_in(map, "GHP", field) {
            return Some(factor);
        }
        let building = self.section(load).map(|l| self.text(l, "doe_reference_name")).unwrap_or("");
        if THERMAL_FACTOR_BUILDINGS.contains(&building) {
            self.unsupported.push(format!(
                "GHP.{field} left out with {load}.doe_reference_name={building} (its default depends on the site's ASHRAE climate zone: give it)"
            ));
            return None;
        }
        Some(1.0)
    }

    /// Caps on incentives make the service's cost curve piecewise; not modelled for GHP.
    fn refuse_capped_ghp_incentives(&mut self, map: &Map<String, Value>) {
        for field in ["state_ibi_max", "utility_ibi_max", "state_rebate_max", "utility_rebate_max"] {
            if self.number_in(map, "GHP", field).is_some_and(|cap| cap < UNLIMITED_CAP) {
                self.unsupported.push(format!("GHP.{field} (capped GHP incentives)"));
            }
        }
    }

    fn ghp_cost_inputs(&mut self, map: &Map<String, Value>, building_sqft: f64, financial: &Financial) -> CostInputs {
        let s = "GHP";
        let itc_default = if self.sector.pv.itc_fraction > 0.0 { GHP_FEDERAL_ITC } else { 0.0 };
        let macrs_option_years = self.count_or(map, s, "macrs_option_years", 0);
        if ![0, 5, 7].contains(&macrs_option_years) {
            self.invalid.push("GHP.macrs_option_years must be 0, 5, or 7.".into());
        }
        let tax = TaxTreatment {
            owner_discount_rate: financial.owner_discount_rate_fraction,
            owner_tax_rate: financial.owner_tax_rate_fraction,
            itc_fraction: self.number_or(map, s, "federal_itc_fraction", itc_default),
            macrs_option_years,
            macrs_bonus_fraction: self.number_or(map, s, "macrs_bonus_fraction", 0.0),
            macrs_itc_reduction: self.number(map, s, "macrs_itc_reduction"),
            bonus_without_macrs: false,
        };
        CostInputs {
            heatpump_per_ton: self.number(map, s, "installed_cost_heatpump_per_ton"),
            wwhp_heating_per_ton: self.number(map, s, "installed_cost_wwhp_heating_pump_per_ton"),
            wwhp_cooling_per_ton: self.number(map, s, "installed_cost_wwhp_cooling_pump_per_ton"),
            sizing_factor: self.number(map, s, "heatpump_capacity_sizing_factor_on_peak_load"),
            ghx_per_ft: self.number(map, s, "installed_cost_ghx_per_ft"),
            ghx_only_capital_cost: self.number_in(map, s, "ghx_only_capital_cost"),
            hydronic_loop: building_sqft * self.number(map, s, "installed_cost_building_hydronic_loop_per_sqft"),
            aux_heater_per_mmbtu_per_hr: self.number(map, s, "aux_heater_installed_cost_per_mmbtu_per_hr"),
            aux_cooler_per_ton: self.number(map, s, "aux_cooler_installed_cost_per_ton"),
            aux_sizing_factor: self.number(map, s, "aux_unit_capacity_sizing_factor_on_peak_load"),
            utility_ibi: self.number(map, s, "utility_ibi_fraction"),
            state_ibi: self.number(map, s, "state_ibi_fraction"),
            utility_rebate_per_ton: self.number(map, s, "utility_rebate_per_ton"),
            state_rebate_per_ton: self.number(map, s, "state_rebate_per_ton"),
            federal_rebate_per_ton: self.number(map, s, "federal_rebate_per_ton"),
            tax,
        }
    }

    /// The fields of one GhpGhx response the model uses.
    fn ghpghx_response(&mut self, response: &Value, name: &str, steps: usize) -> Option<Response> {
        let (Some(inputs), Some(outputs)) =
            (response.get("inputs").and_then(Value::as_object), response.get("outputs").and_then(Value::as_object))
        else {
            self.invalid.push(format!("{name} must be an object with inputs and outputs."));
            return None;
        };
        let mut hourly = |map: &Map<String, Value>, part: &str, field: &str, scale: f64| -> Option<Vec<f64>> {
            let values = self.numbers(map, name, field);
            if values.len() != steps {
                self.invalid.push(format!("{name}.{part}.{field} must hold {steps} hourly values."));
                return None;
            }
            Some(values.into_iter().map(|v| v * scale).collect())
        };
        let heating_kw = hourly(inputs, "inputs", "heating_thermal_load_mmbtu_per_hr", KWH_PER_MMBTU);
        let cooling_kw = hourly(inputs, "inputs", "cooling_thermal_load_ton", KWH_THERMAL_PER_TONHOUR);
        let electric_kw = hourly(outputs, "outputs", "yearly_total_electric_consumption_series_kw", 1.0);
        let mut number = |field: &str| -> Option<f64> {
            let value = self.number_in(outputs, name, field);
            if value.is_none() {
                self.invalid.push(format!("{name}.outputs.{field} is required."));
            }
            value
        };
        let ghx_ft = number("number_of_boreholes")? * number("length_boreholes_ft")?;
        let heat_pumps = match outputs.get("heat_pump_configuration").and_then(Value::as_str) {
            Some("WSHP") => HeatPumps::Wshp { ton: number("peak_combined_heatpump_thermal_ton")? },
            Some("WWHP") => HeatPumps::Wwhp {
                heating_ton: number("peak_heating_heatpump_thermal_ton")?,
                cooling_ton: number("peak_cooling_heatpump_thermal_ton")?,
            },
            _ => {
                self.invalid.push(format!("{name}.outputs.heat_pump_configuration must be WSHP or WWHP."));
                return None;
            }
        };
        let optional = |field: &str| outputs.get(field).and_then(Value::as_f64).unwrap_or(0.0);
        Some(Response {
            heating_kw: heating_kw?,
            cooling_kw: cooling_kw?,
            electric_kw: electric_kw?,
            ghx_ft,
            heat_pumps,
            hybrid_method: inputs.get("hybrid_ghx_sizing_method").and_then(Value::as_str).map(str::to_owned),
            peak_aux_heater_mmbtu_per_hr: optional("peak_aux_heater_thermal_production_mmbtu_per_hour"),
            peak_aux_cooler_ton: optional("peak_aux_cooler_thermal_production_ton"),
            outputs: Value::Object(outputs.clone()),
        })
    }
}

/// The parts of one GhpGhx response the options are built from (kW per hour, ft, tons).
struct Response {
    heating_kw: Vec<f64>,
    cooling_kw: Vec<f64>,
    electric_kw: Vec<f64>,
    ghx_ft: f64,
    heat_pumps: HeatPumps,
    hybrid_method: Option<String>,
    peak_aux_heater_mmbtu_per_hr: f64,
    peak_aux_cooler_ton: f64,
    outputs: Value,
}

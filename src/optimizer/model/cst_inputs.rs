//! The reader of the `CST` section (concentrating solar thermal) as one more electric heating
//! tech (REopt.jl `CST` in `src/core/cst.jl`, `setup_cst_inputs` in `src/core/reopt_inputs.jl`,
//! the CST rows of `add_heating_tech_constraints`, the `LandConstraint` of
//! `add_tech_size_constraints`; commit 029db01d).
//!
//! Units: thermal kW; `production_factor` is thermal kW per kW of size in each step and the
//! production equals it (less what is wasted when `can_waste_heat`). The service files CST
//! among its electric heaters with a COP of 1000 in every step (`CST_COP`): that, not
//! `elec_consumption_factor_series` (which its LP never reads), is the electricity the balance
//! takes. Its `om_cost_per_kwh` is likewise read by no row of the service's LP, and CST burns no
//! fuel (no emissions). The land row `acres_per_kw · size ≤ Site.land_acres` is a bound on the
//! size here; with PV arrays on the ground or both the row they share is `lp::pv::add_land_row`.
//! With `can_supply_steam_turbine` (the API's default false) and a turbine, its heat may go to
//! the turbine as the electric heater's does (`SteamTurbine::cst_supplies`).
//!
//! Refused by name: CST without `production_factor` (in `check_unmodelled_inputs`: the service
//! always computes it from `SSC_Inputs` with SAM's solar thermal models, replacing a given one;
//! the embedded service fills a "ptc" one with the `cst_trough` stand-in before reading),
//! a `tech_type` other than "ptc" with its cost or land inputs left to the service's per-type
//! defaults, CST serving none of the heating loads given.

use serde_json::{Map, Value};

use super::electric_heater_inputs::{HeatPump, HeatPumpKind, LandUse};
use super::hot_storage_inputs::chargeable_storages;
use super::thermal_inputs::{macrs_only_cost, Heating};
use super::{Financial, Reader};
use crate::optimizer::scenario::given as is_given;

/// The COP the service gives CST in every step (`setup_cst_inputs`, commit 029db01d).
pub const CST_COP: f64 = 1000.0;

impl Reader<'_> {
    /// The CST section, None when absent or sized to 0 (the service then builds none).
    pub(super) fn read_cst(&mut self, heating: Option<&Heating>, steps_per_hour: usize, financial: &Financial) -> Option<HeatPump> {
        let s = "CST";
        let map = self.section(s)?;
        let max_kw = self.number(map, s, "max_kw");
        if max_kw <= 0.0 {
            return None;
        }
        // Refused by name with the other inputs left to outside data (`check_unmodelled_inputs`).
        if !is_given(map.get("production_factor")) {
            return None;
        }
        let Some(land_acres) = self.section("Site").and_then(|site| site.get("land_acres")).and_then(Value::as_f64) else {
            self.invalid.push("Site.land_acres not provided as an input, which is required when CST is included as a technology.".into());
            return None;
        };
        self.refuse_cst_outside_inputs(map);
        let Some(heating) = heating else {
            self.unsupported.push("CST without a heating load (nothing for it to serve)".into());
            return None;
        };
        let values = self.numbers(map, s, "production_factor");
        let cf = self.series(&values, s, "production_factor", steps_per_hour)?;
        let storage_only = self.flag(map, s, "charge_storage_only") && !heating.hot_storages.is_empty();
        let served = self.served_heating_loads(map, s, heating)?;
        // Charging only the storage, it has no heat-to-load columns; the loads it may serve
        // still bound nothing else (the service's per-load production is then all to storage).
        let charges = chargeable_storages(heating, &served, storage_only);
        let serves = if storage_only { Vec::new() } else { served };
        let acres_per_kw = self.number(map, s, "acres_per_kw");
        let land_kw = if acres_per_kw > 0.0 { land_acres / acres_per_kw } else { f64::INFINITY };
        let installed_cost_per_kw = self.number(map, s, "installed_cost_per_kw");
        let (years, bonus) = self.heat_pump_macrs(map, s);
        let steps = cf.len();
        Some(HeatPump {
            kind: HeatPumpKind::Cst { can_waste_heat: self.flag(map, s, "can_waste_heat") },
            min_kw: self.number(map, s, "min_kw"),
            max_kw: max_kw.min(land_kw),
            min_allowable_kw: 0.0,
            sizing_factor: 1.0,
            installed_cost_per_kw,
            net_present_cost_per_kw: macrs_only_cost(installed_cost_per_kw, financial, years, bonus),
            om_cost_per_kw: self.number(map, s, "om_cost_per_kw"),
            cop: vec![CST_COP; steps],
            cf,
            serves,
            charges,
            storage_only,
            forced_loads: Vec::new(),
            avoided_capex: 0.0,
            cooling: None,
            force_dispatch: false,
            land: Some(LandUse { site_acres: land_acres, acres_per_kw }),
        })
    }

    /// The CST inputs whose effect lies outside this optimizer.
    fn refuse_cst_outside_inputs(&mut self, map: &Map<String, Value>) {
        let tech_type = map.get("tech_type").and_then(Value::as_str).unwrap_or("ptc");
        let per_type = ["installed_cost_per_kw", "om_cost_per_kw", "om_cost_per_kwh", "acres_per_kw"];
        if tech_type != "ptc" && per_type.iter().any(|field| !is_given(map.get(*field))) {
            self.unsupported.push(format!(
                "CST.tech_type={tech_type} without installed_cost_per_kw, om_cost_per_kw, om_cost_per_kwh and acres_per_kw (the service's defaults by type)"
            ));
        }
    }
}

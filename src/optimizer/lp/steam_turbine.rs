//! The steam turbine (REopt.jl `src/constraints/steam_turbine_constraints.jl`, its size row in
//! `tech_constraints.jl` and its terms of `reopt.jl`): steam heat in from the boilers that may
//! supply it, electricity out to the load or the electric storage, exhaust heat out to the
//! heating loads or the hot-water tank. The boilers' steam columns and the row that sums them
//! are `heating`'s (they cost fuel as the rest of a boiler's production).
//!
//! Variables per step t (kW): steam heat in `in_t`; electricity to load `el_t` and to storage
//! `es_t`; heat to load `hl_t` and to the tank `hs_t`. Once: size `kw`. With the electric and
//! thermal ratios r_e and r_h:
//!
//! ```text
//! Electricity: el_t + es_t = r_e · in_t
//! Heat:        hl_t + hs_t = r_h · in_t          (hl_t = 0 when charge_storage_only with a tank)
//! Size:        el_t + es_t ≤ kw;  min_kw ≤ kw ≤ max_kw
//! ```
//!
//! Objective ($ present value): the size at its net present cost after MACRS plus fixed O&M
//! pwf_om·(1 − τ_w)·om_kw, the electricity at pwf_om·(1 − τ_w)·Δ·om_kwh per kW made, and the
//! electricity to load earning the energy it saves. Only the optimal case has a turbine.

use super::{energy_value, Case, CostFactors, LinearProgram, RowKind};
use crate::optimizer::model::Model;

/// Where the steam turbine's quantities live in the LP (first column of each series).
#[derive(Debug, Clone, PartialEq)]
pub struct SteamTurbineLayout {
    pub size: usize,
    pub thermal_in: usize,
    pub to_load: usize,
    pub to_storage: Option<usize>,
    pub heat_to_load: usize,
    pub heat_to_storage: Option<usize>,
}

/// The steam turbine's dispatch (kW per step; size kW).
#[derive(Debug, Clone, PartialEq)]
pub struct SteamTurbineDispatch {
    pub size_kw: f64,
    pub thermal_in_kw: Vec<f64>,
    pub to_load_kw: Vec<f64>,
    pub to_storage_kw: Vec<f64>,
    pub heat_to_load_kw: Vec<f64>,
    pub heat_to_storage_kw: Vec<f64>,
}

impl SteamTurbineDispatch {
    /// Electricity made in step t (kW).
    pub fn electric_kw(&self, t: usize) -> f64 {
        self.to_load_kw[t] + self.to_storage_kw[t]
    }

    /// Heat made in step t (kW).
    pub fn heat_kw(&self, t: usize) -> f64 {
        self.heat_to_load_kw[t] + self.heat_to_storage_kw[t]
    }
}

/// Adds the turbine's columns and rows of a case; None without one (or in business as usual).
pub(super) fn add_steam_turbine(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, case: &Case) -> Option<SteamTurbineLayout> {
    let st = model.steam_turbine.as_ref().filter(|_| !case.bau)?;
    let steps = model.steps();
    let size_cost = st.net_present_cost_per_kw + factors.om_factor() * st.om_cost_per_kw;
    let size = lp.variable(size_cost, st.min_kw, st.max_kw);
    let om_per_kw_made = factors.om_factor() * model.step_hours() * st.om_cost_per_kwh;
    let thermal_in = lp.series(steps, |_| 0.0);
    let to_load = lp.series(steps, |t| om_per_kw_made - energy_value(model, factors, t));
    let to_storage = (model.storage.is_some() && case.storage).then(|| lp.series(steps, |_| om_per_kw_made));
    let hot_storage = model.heating.as_ref().is_some_and(|h| !h.hot_storages.is_empty());
    let heat_to_load = lp.series(steps, |_| 0.0);
    if st.charge_storage_only && hot_storage {
        lp.upper[heat_to_load..heat_to_load + steps].fill(0.0);
    }
    let heat_to_storage = hot_storage.then(|| lp.series(steps, |_| 0.0));
    for t in 0..steps {
        let mut electricity = vec![(to_load + t, 1.0), (thermal_in + t, -st.electric_per_thermal)];
        electricity.extend(to_storage.map(|s| (s + t, 1.0)));
        lp.row(&electricity, RowKind::Equal, 0.0);
        let mut heat = vec![(heat_to_load + t, 1.0), (thermal_in + t, -st.thermal_per_thermal)];
        heat.extend(heat_to_storage.map(|s| (s + t, 1.0)));
        lp.row(&heat, RowKind::Equal, 0.0);
        let mut rated = vec![(to_load + t, 1.0), (size, -1.0)];
        rated.extend(to_storage.map(|s| (s + t, 1.0)));
        lp.row(&rated, RowKind::LessOrEqual, 0.0);
    }
    Some(SteamTurbineLayout { size, thermal_in, to_load, to_storage, heat_to_load, heat_to_storage })
}

impl SteamTurbineLayout {
    /// Reads the turbine's dispatch; values at or below `tolerance` become 0.
    pub fn dispatch(&self, x: &[f64], steps: usize, tolerance: f64) -> SteamTurbineDispatch {
        let clean = |v: f64| if v <= tolerance { 0.0 } else { v };
        let series = |start: Option<usize>| match start {
            Some(s) => x[s..s + steps].iter().map(|&v| clean(v)).collect(),
            None => vec![0.0; steps],
        };
        SteamTurbineDispatch {
            size_kw: clean(x[self.size]),
            thermal_in_kw: series(Some(self.thermal_in)),
            to_load_kw: series(Some(self.to_load)),
            to_storage_kw: series(self.to_storage),
            heat_to_load_kw: series(Some(self.heat_to_load)),
            heat_to_storage_kw: series(self.heat_to_storage),
        }
    }
}

//! A thermal storage's variables and rows, the same for the hot and the cold water tank and
//! the high-temperature storage but for its decay and its own limits (REopt.jl
//! `add_hot_thermal_storage_dispatch_constraints`, `add_cold_thermal_storage_dispatch_constraints`
//! and the shared rows of `add_storage_size_constraints`): size `kwh` (kWh of heat moved), per step
//! t `discharge_t` (kW to load) and `soc_t` (kWh at the end of step t), charged by the series S
//! given; a hot storage feeding the steam turbine has a second outflow `turbine_t` (kW), and
//! out_t = discharge_t + turbine_t (the service's dvHeatFromStorage, its part to the turbine
//! dvHeatFromStorageToTurbine).
//!
//! ```text
//! SOC:     soc_t = soc_{t−1} + Δ(η_c Σ S_t − out_t/η_d − decay·kwh),  soc_{−1} = soc_init·kwh
//!          (high temperature: decay·soc_{t−1} in place of decay·kwh)
//! Bounds:  soc_min·kwh ≤ soc_t ≤ kwh;  kwh ≥ soc_{t−1} + Δ(η_c Σ S_t − decay·kwh)
//! Power:   Σ S_t + out_t ≤ max_kw  (max_kwh · n for the tanks, max_kwh / min(h_c, h_d) high temperature)
//! High temperature only, with its charge and discharge hours h_c, h_d:
//!          Σ S_t ≤ kwh / h_c;  out_t ≤ kwh / h_d
//!          one_direction_flow: Σ S_t ≤ M·c_t, out_t ≤ M·d_t, c_t + d_t ≤ 1 (c, d binary),
//!          M = min(max_kw, 100 · the largest total heating load)
//! ```
//!
//! Objective: the storage's net present $ per kWh of size. What the discharge may serve is the
//! caller's (`heating`, `cooling`).

use super::{LinearProgram, RowKind};
use crate::optimizer::model::hot_storage_inputs::{HighTempLimits, ThermalTank};
use crate::optimizer::model::Model;

/// A water tank's columns: size (kWh), discharge to load (kW), heat to the steam turbine (kW;
/// None when it feeds none) and state of charge (kWh) series.
#[derive(Debug, Clone, PartialEq)]
pub struct TankColumns {
    pub kwh: usize,
    pub discharge: usize,
    pub to_turbine: Option<usize>,
    pub soc: usize,
}

impl TankColumns {
    /// The outflows of step t: to load and to the turbine.
    fn outflows(&self, t: usize) -> impl Iterator<Item = usize> + '_ {
        [Some(self.discharge), self.to_turbine].into_iter().flatten().map(move |s| s + t)
    }
}

/// A water tank's size, discharge and state-of-charge variables and rows, given the series that
/// charge it; shared by the hot and the cold tank (the service's rows are the same).
pub(super) fn add_tank(lp: &mut LinearProgram, model: &Model, s: &ThermalTank, charges: &[usize]) -> TankColumns {
    add_storage(lp, model, s, charges, false)
}

/// A thermal storage's columns and rows, with an outflow to the steam turbine when `feeds_turbine`.
pub(super) fn add_storage(lp: &mut LinearProgram, model: &Model, s: &ThermalTank, charges: &[usize], feeds_turbine: bool) -> TankColumns {
    let steps = model.steps();
    let dt = model.step_hours();
    let kwh = lp.variable(s.net_present_cost_per_kwh, s.min_kwh, s.max_kwh);
    let discharge = lp.series(steps, |_| 0.0);
    let to_turbine = feeds_turbine.then(|| lp.series(steps, |_| 0.0));
    let soc = lp.series(steps, |_| 0.0);
    let columns = TankColumns { kwh, discharge, to_turbine, soc };
    let decay = dt * s.decay_fraction_per_hour;
    for t in 0..steps {
        // soc_t − soc_{t−1} − Δ η_c Σ S + Δ out / η_d + Δ decay (kwh or soc_{t−1}) = 0
        let mut terms: Vec<(usize, f64)> = vec![(soc + t, 1.0)];
        terms.extend(columns.outflows(t).map(|j| (j, dt / s.discharge_efficiency)));
        terms.extend(charges.iter().map(|&c| (c + t, -dt * s.charge_efficiency)));
        let (column, coefficient) = previous_soc(soc, kwh, t, s.soc_init_fraction);
        if s.decay_of_stored_energy {
            terms.push((column, -coefficient * (1.0 - decay)));
        } else {
            terms.push((column, -coefficient));
            terms.push((kwh, decay));
        }
        lp.row(&terms, RowKind::Equal, 0.0);
        lp.row(&[(soc + t, 1.0), (kwh, -1.0)], RowKind::LessOrEqual, 0.0);
        lp.row(&[(soc + t, -1.0), (kwh, s.soc_min_fraction)], RowKind::LessOrEqual, 0.0);
        // soc_{t−1} + Δ(η_c Σ S − decay kwh) ≤ kwh
        let mut headroom: Vec<(usize, f64)> = charges.iter().map(|&c| (c + t, dt * s.charge_efficiency)).collect();
        headroom.push((kwh, -1.0 - dt * s.decay_fraction_per_hour));
        headroom.push(previous_soc(soc, kwh, t, s.soc_init_fraction));
        lp.row(&headroom, RowKind::LessOrEqual, 0.0);
        let mut power: Vec<(usize, f64)> = charges.iter().map(|&c| (c + t, 1.0)).collect();
        power.extend(columns.outflows(t).map(|j| (j, 1.0)));
        lp.row(&power, RowKind::LessOrEqual, s.max_kw);
    }
    columns
}

/// The high-temperature storage's charge and discharge rates and, with `one_direction_flow`,
/// its binaries; `peak_load_kw` is the largest total heating load of a step.
pub(super) fn add_high_temp_limits(lp: &mut LinearProgram, model: &Model, s: &ThermalTank, limits: &HighTempLimits, columns: &TankColumns, charges: &[usize], peak_load_kw: f64) {
    let big_m = s.max_kw.min(100.0 * peak_load_kw);
    for t in 0..model.steps() {
        let mut charge: Vec<(usize, f64)> = charges.iter().map(|&c| (c + t, 1.0)).collect();
        charge.push((columns.kwh, -1.0 / limits.charge_hours));
        lp.row(&charge, RowKind::LessOrEqual, 0.0);
        let mut out: Vec<(usize, f64)> = columns.outflows(t).map(|j| (j, 1.0)).collect();
        out.push((columns.kwh, -1.0 / limits.discharge_hours));
        lp.row(&out, RowKind::LessOrEqual, 0.0);
        if limits.one_direction_flow {
            let (charging, discharging) = (lp.binary(0.0), lp.binary(0.0));
            let mut charge: Vec<(usize, f64)> = charges.iter().map(|&c| (c + t, 1.0)).collect();
            charge.push((charging, -big_m));
            lp.row(&charge, RowKind::LessOrEqual, 0.0);
            let mut out: Vec<(usize, f64)> = columns.outflows(t).map(|j| (j, 1.0)).collect();
            out.push((discharging, -big_m));
            lp.row(&out, RowKind::LessOrEqual, 0.0);
            lp.row(&[(charging, 1.0), (discharging, 1.0)], RowKind::LessOrEqual, 1.0);
        }
    }
}

/// The term of soc_{t−1}: the initial charge soc_init · kwh before the first step.
fn previous_soc(soc: usize, kwh: usize, t: usize, soc_init_fraction: f64) -> (usize, f64) {
    if t == 0 {
        (kwh, soc_init_fraction)
    } else {
        (soc + t - 1, 1.0)
    }
}

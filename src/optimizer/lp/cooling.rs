//! The cooling balance with an absorption chiller, a cooling ASHP or a chilled-water tank (REopt.jl
//! `add_thermal_load_constraints` cooling row, the cooling part of `add_thermal_tech_constraints`,
//! `add_cold_thermal_storage_dispatch_constraints`, and the chillers' terms of
//! `add_elec_load_balance_constraints`). Without any (and in the business-as-usual case) the
//! existing chiller serves the whole load and nothing is built here.
//!
//! The ASHPSpaceHeater that cools (`heat_pumps`: its size and capacity rows, its own
//! electricity) is one more chiller here: its cooling to load `P_t` is served cooling like `A_t`,
//! its cooling to the tank `PS_t` a charge, and the existing chiller is retired with it as with
//! the absorption chiller (reopt.jl: `retire_in_optimal` and any other tech in `techs.cooling`), and
//! always when the space heater is forced in (`add_ashp_force_in_constraints` fixes every other
//! cooling tech's production to 0; the reader refuses the absorption chiller and GHP beside it).
//!
//! Variables (thermal kW, ≥ 0), per step t: the absorption chiller's cooling to load `A_t` and to
//! the tank `AS_t`, its size `a_kw`; the existing chiller's cooling to the tank `ES_t`; the tank's
//! size `kwh`, `discharge_t` and `soc_t`. The existing chiller's cooling to load is the slack of
//! the cooling balance, `E_t = L_t − A_t − discharge_t` (as the grid purchase is the slack of the
//! electric balance); retired in the optimal case it is zero and the balance an equality:
//!
//! ```text
//! Cooling balance:  A_t + P_t + discharge_t ≤ L_t   (E_t ≥ 0;  = L_t when the existing chiller is retired)
//! Existing chiller: E_t + ES_t ≤ max_kw_e   ⇔   ES_t − A_t − discharge_t ≤ max_kw_e − L_t
//! Absorption:       A_t + AS_t ≤ a_kw,  min_kw ≤ a_kw ≤ max_kw
//! Tank:             the rows of `water_tank` with charges ES_t + AS_t
//! ```
//!
//! The electric balance carries each chiller's electricity, (E_t + ES_t)/cop_e for the existing
//! chiller and (A_t + AS_t)/cop_a for the absorption chiller, against ElectricLoad, which holds the
//! base L_t/cop_e (the existing chiller serving the whole load). Their difference is what the
//! electric rows take as on-site supply (`electric_terms`):
//!
//! ```text
//! saving_t = (A_t + P_t + discharge_t)/cop_e − ES_t/cop_e − (A_t + AS_t)/cop_a
//! ```
//!
//! (the ASHP's (P_t + PS_t)/ccop_t is its own demand in `heat_pumps`).
//!
//! In the steps without the grid (the deterministic outage) the service writes neither the
//! cooling balance (load_balance.jl `add_thermal_load_constraints` builds it over
//! `time_steps_with_grid`, 029db01d) nor any chiller term in the electric balance without the grid
//! (8b of `add_elec_load_balance_constraints`): the cooling load goes unserved and the chillers'
//! production costs nothing. Here those steps have no cooling row and no saving_t, the existing
//! chiller's capacity bounds its charge of the tank alone (E_t = 0), and the cooling to load
//! (A_t, P_t, discharge_t), which would change nothing there, is 0: the production the testset
//! "CHP Unavailability and Outage" expects zeroed in the outage.
//!
//! The heat balance of the chiller's heating load takes its draw (A_t + AS_t)/cop_thermal as
//! demand (`heat_draw_terms`), as the service's (load_balance.jl, `add_thermal_load_constraints`):
//!
//! ```text
//! if !isempty(p.techs.heating)
//!     @constraint(m, HeatLoadBalanceCon[q in p.heating_loads, ts in p.time_steps_with_grid], ... ==
//!         p.heating_loads_kw[q][ts] + ...
//!         + sum(m[:dvCoolingProduction][t,ts] / p.thermal_cop[t] for t in p.absorption_chillers_using_heating_load[q]))
//! ```
//!
//! scenario.jl builds an absent heating load as zeros, so `heating_loads` always holds the
//! chiller's `heating_load_input`: with heat elsewhere on the site the draw on an absent load is
//! the boilers' and CHP's (their `can_serve_*` are true; the hot tank's `heating_loads_served_by_tes`
//! leaves out loads whose total is not positive), which is the one heat balance of `heating` with
//! that load 0. With no heating load there is no boiler, and with no other heating tech
//! `techs.heating` is empty and the balance is not built: nothing but the chiller's size and the
//! cooling balance bounds its heat, which is free; here there is then no heat balance either
//! (`heating` builds none without `Model::heating`). The reader refuses the heating techs that
//! would change either case (`cooling_inputs::check_absorption_heat_source`). Objective ($ present value): (npc $/kW + pwf_om · (1 − τ_w) · O&M
//! $/kW-year) · a_kw, the tank's net present $/kWh · kwh, and the tier-0 energy value of saving_t.

use super::ghp::GhpLayout;
use super::heat_pumps::HeatPumpLayout;
use super::water_tank::{add_tank, TankColumns};
use super::{energy_value, Case, CostFactors, LinearProgram, RowKind};
use crate::optimizer::model::cooling_inputs::Cooling;
use crate::optimizer::model::thermal_inputs::HeatingLoadKind;
use crate::optimizer::model::Model;

/// Where the cooling decisions live in the LP.
#[derive(Debug, Clone, PartialEq)]
pub struct CoolingLayout {
    /// Absorption chiller to load and to the tank (first of a series), and its size.
    pub absorption_to_load: Option<usize>,
    pub absorption_to_storage: Option<usize>,
    pub absorption_size: Option<usize>,
    /// Existing chiller to the tank (None without a tank or when retired).
    pub existing_to_storage: Option<usize>,
    pub storage: Option<TankColumns>,
    /// Whether the existing chiller runs in this case.
    pub existing_runs: bool,
    /// The cooling ASHP's cooling to load (first of a series; `heat_pumps` owns the columns).
    ashp_to_load: Vec<usize>,
    /// 1/cop_e, 1/cop_a and 1/cop_thermal.
    existing_per_kw: f64,
    absorption_electric_per_kw: f64,
    absorption_heat_per_kw: f64,
    /// The heating load whose balance takes the absorption chiller's heat.
    pub heating_load: Option<HeatingLoadKind>,
    /// Whether step t has the grid: its cooling balance and its saving_t in the electric balance.
    balanced: Vec<bool>,
}

/// The cooling dispatch of a solution (thermal kW per step, kW, kWh).
#[derive(Debug, Clone, PartialEq)]
pub struct CoolingDispatch {
    pub existing_to_load_kw: Vec<f64>,
    pub existing_to_storage_kw: Vec<f64>,
    pub absorption_to_load_kw: Vec<f64>,
    pub absorption_to_storage_kw: Vec<f64>,
    pub absorption_size_kw: f64,
    pub storage_kwh: f64,
    pub discharge_kw: Vec<f64>,
    pub soc_kwh: Vec<f64>,
}

/// Whether the optimal case decides the cooling dispatch.
pub fn has_cooling_dispatch(model: &Model, case: &Case) -> bool {
    let ashp_cools = model.heat_pumps.iter().any(|h| h.cooling.is_some());
    !case.bau && model.cooling.as_ref().is_some_and(|c| c.has_dispatch() || ashp_cools)
}

/// Adds the cooling variables and rows of a case; None when the existing chiller serves the
/// whole load (or what a chosen GHP design leaves of it). The GHP's fixed cooling joins the
/// served cooling of the balance, and so does the cooling ASHP's cooling to load.
pub(super) fn add_cooling(
    lp: &mut LinearProgram,
    model: &Model,
    factors: &CostFactors,
    case: &Case,
    ghp: Option<&GhpLayout>,
    heat_pumps: Option<&HeatPumpLayout>,
) -> Option<CoolingLayout> {
    let cooling = model.cooling.as_ref().filter(|_| has_cooling_dispatch(model, case))?;
    let steps = model.steps();
    let energy = |t: usize| energy_value(model, factors, t);
    let chiller = &cooling.existing_chiller;
    let existing_per_kw = 1.0 / chiller.cop;
    let absorption = cooling.absorption_chiller.as_ref();
    let ashp_to_load: Vec<usize> = heat_pumps.into_iter().flat_map(HeatPumpLayout::cooling_to_load).collect();
    // `add_ashp_force_in_constraints`: a space heater forced in makes all the cooling too.
    let ashp_forced = model.heat_pumps.iter().any(|h| h.cooling.is_some() && !h.forced_loads.is_empty());
    let existing_runs = !(ashp_forced || (chiller.retire_in_optimal && (absorption.is_some() || !ashp_to_load.is_empty())));
    let absorption_electric_per_kw = absorption.map_or(0.0, |a| 1.0 / a.cop_electric);
    let tank = cooling.cold_storage.as_ref();
    let absorption_to_load = absorption.map(|_| lp.series(steps, |t| -energy(t) * (existing_per_kw - absorption_electric_per_kw)));
    let absorption_to_storage = absorption.and(tank).map(|_| lp.series(steps, |t| energy(t) * absorption_electric_per_kw));
    let absorption_size = absorption.map(|a| lp.variable(a.net_present_cost_per_kw + factors.om_factor() * a.om_cost_per_kw, a.min_kw, a.max_kw));
    let existing_to_storage = tank.filter(|_| existing_runs).map(|_| lp.series(steps, |t| energy(t) * existing_per_kw));
    let mut charges: Vec<usize> = [existing_to_storage, absorption_to_storage].into_iter().flatten().collect();
    charges.extend(heat_pumps.into_iter().flat_map(HeatPumpLayout::cooling_to_storage));
    for &start in &ashp_to_load {
        (0..steps).for_each(|t| lp.objective[start + t] -= energy(t) * existing_per_kw);
    }
    let storage = tank.map(|tank| {
        let columns = add_tank(lp, model, tank, &charges);
        (0..steps).for_each(|t| lp.objective[columns.discharge + t] = -energy(t) * existing_per_kw);
        columns
    });
    let to_load_columns: Vec<usize> = [absorption_to_load, storage.as_ref().map(|s| s.discharge)].into_iter().flatten().chain(ashp_to_load.iter().copied()).collect();
    for t in 0..steps {
        if !model.has_grid(t) {
            to_load_columns.iter().for_each(|&start| lp.upper[start + t] = 0.0);
            if let Some(to_storage) = existing_to_storage {
                lp.upper[to_storage + t] = lp.upper[to_storage + t].min(chiller.max_kw);
            }
        } else {
            let mut served: Vec<(usize, f64)> = to_load_columns.iter().map(|&s| (s + t, 1.0)).collect();
            served.extend(ghp.into_iter().flat_map(|g| g.cooling_terms(t)));
            let kind = if existing_runs { RowKind::LessOrEqual } else { RowKind::Equal };
            lp.row(&served, kind, cooling.load_kw[t]);
            if let Some(to_storage) = existing_to_storage {
                let mut terms: Vec<(usize, f64)> = served.iter().map(|&(j, a)| (j, -a)).collect();
                terms.push((to_storage + t, 1.0));
                lp.row(&terms, RowKind::LessOrEqual, chiller.max_kw - cooling.load_kw[t]);
            }
        }
        if let (Some(to_load), Some(size)) = (absorption_to_load, absorption_size) {
            let mut terms = vec![(to_load + t, 1.0), (size, -1.0)];
            terms.extend(absorption_to_storage.map(|s| (s + t, 1.0)));
            lp.row(&terms, RowKind::LessOrEqual, 0.0);
        }
    }
    Some(CoolingLayout {
        absorption_to_load,
        absorption_to_storage,
        absorption_size,
        existing_to_storage,
        storage,
        existing_runs,
        ashp_to_load,
        existing_per_kw,
        absorption_electric_per_kw,
        absorption_heat_per_kw: absorption.map_or(0.0, |a| 1.0 / a.cop_thermal),
        heating_load: absorption.map(|a| a.heating_load),
        balanced: model.grid_available.clone(),
    })
}

impl CoolingLayout {
    /// `sign ·` the electricity step t saves against the base L_t/cop_e (saving_t above; none
    /// without the grid).
    pub fn electric_terms(&self, t: usize, sign: f64) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (e, a) = (self.existing_per_kw, self.absorption_electric_per_kw);
        let balanced = self.balanced[t];
        [
            (self.absorption_to_load, e - a),
            (self.absorption_to_storage, -a),
            (self.existing_to_storage, -e),
            (self.storage.as_ref().map(|s| s.discharge), e),
        ]
        .into_iter()
        .chain(self.ashp_to_load.iter().map(move |&s| (Some(s), e)))
        .filter_map(move |(start, per_kw)| start.filter(|_| balanced).map(|s| (s + t, sign * per_kw)))
    }

    /// The absorption chiller's heat draw in step t as terms (kW of heat).
    pub fn heat_draw_terms(&self, t: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        [self.absorption_to_load, self.absorption_to_storage].into_iter().flatten().map(move |s| (s + t, self.absorption_heat_per_kw))
    }

    /// The electricity saved in step t at a solution (kW; negative when the chillers use more).
    pub fn electric_saving(&self, x: &[f64], t: usize) -> f64 {
        self.electric_terms(t, 1.0).map(|(j, a)| a * x[j]).sum()
    }

    /// Reads the cooling dispatch (`ghp_cooling_kw`: the GHP's cooling per step, which the
    /// existing chiller does not make); values at or below `tolerance` become 0.
    pub fn dispatch(&self, x: &[f64], cooling: &Cooling, ghp_cooling_kw: &[f64], tolerance: f64) -> CoolingDispatch {
        let steps = cooling.load_kw.len();
        let clean = |v: f64| if v <= tolerance { 0.0 } else { v };
        let series = |start: Option<usize>| match start {
            Some(s) => x[s..s + steps].iter().map(|&v| clean(v)).collect(),
            None => vec![0.0; steps],
        };
        let absorption_to_load_kw = series(self.absorption_to_load);
        let discharge_kw = series(self.storage.as_ref().map(|s| s.discharge));
        let ashp_kw = |t: usize| self.ashp_to_load.iter().map(|&s| x[s + t]).sum::<f64>();
        let existing_to_load_kw = (0..steps)
            .map(|t| {
                if self.existing_runs && self.balanced[t] {
                    clean(cooling.load_kw[t] - absorption_to_load_kw[t] - discharge_kw[t] - ghp_cooling_kw[t] - ashp_kw(t))
                } else {
                    0.0
                }
            })
            .collect();
        CoolingDispatch {
            existing_to_load_kw,
            existing_to_storage_kw: series(self.existing_to_storage),
            absorption_to_load_kw,
            absorption_to_storage_kw: series(self.absorption_to_storage),
            absorption_size_kw: self.absorption_size.map_or(0.0, |i| clean(x[i])),
            storage_kwh: self.storage.as_ref().map_or(0.0, |s| clean(x[s.kwh])),
            discharge_kw,
            soc_kwh: series(self.storage.as_ref().map(|s| s.soc)),
        }
    }
}

impl CoolingDispatch {
    /// The absorption chiller's cooling (kW per step), to load and to the tank.
    pub fn absorption_production(&self) -> Vec<f64> {
        self.absorption_to_load_kw.iter().zip(&self.absorption_to_storage_kw).map(|(a, b)| a + b).collect()
    }

    pub fn existing_production(&self) -> Vec<f64> {
        self.existing_to_load_kw.iter().zip(&self.existing_to_storage_kw).map(|(a, b)| a + b).collect()
    }
}

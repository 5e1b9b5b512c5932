//! The electric heating techs in the optimal case: ElectricHeater, ASHPSpaceHeater and
//! ASHPWaterHeater, and CST (REopt.jl `add_heating_tech_constraints` production limit,
//! the CST rows (`CSTHeatProduction`, its waste), `add_ashp_force_in_constraints` with `force_into_system`, `avoided_capex_by_ashp`, the
//! electric heaters' terms of `add_elec_load_balance_constraints`, the one-segment cost curve of
//! `setup_ASHP*_inputs`). Thermal and electric kW; Δ = hours per step.
//!
//! Variables (≥ 0), for each tech h: per step its heat to each load q it serves `H_hqt` and to
//! each hot storage b it may charge `S_hbt` (`HeatPump::charges`; S_ht below is Σ_b S_hbt) and, for the electric heater
//! and CST when `can_supply_steam_turbine`, to the steam turbine `T_ht`; its size `size_h`; a binary `b_h` when it has a minimum allowable
//! size. Rows, for every step t:
//!
//! ```text
//! Capacity:        Σ_q H_hqt + S_ht + T_ht ≤ cf_ht · size_h,  min_kw ≤ size_h ≤ max_kw
//! With cooling:    (Σ_q H_hqt + S_ht) / cf_ht + (C_ht + CS_ht) / ccf_ht ≤ size_h
//! CST:             Σ_q H_hqt + S_ht + W_ht = cf_ht · size_h  (W: heat wasted, a column only when
//!                  it may waste heat)
//! Allowable size:  min_allowable_h · b_h ≤ size_h ≤ max_kw · b_h
//! Per load q:      Σ_h H_hqt ≤ load_qt + draw_qt           (the absorption chiller's draw on q)
//! Forced load q:   H_hqt = load_qt + draw_qt, or with hot storages serving q
//!                  H_hqt + Σ_{b serving q} discharge_bt ≥ load_qt + draw_qt; no other tech has
//!                  an H_h'qt (force_into_system)
//! ```
//!
//! An ASHP with `force_dispatch` (`add_ashp_force_in_constraints`, its `elseif` branch) makes in
//! every step all the load it serves or all its size allows, whichever is less. The service has a
//! binary `b_t` (1 when the size exceeds the step's need) and `E_t` = b_t · k_t · size_h, with the
//! need n_t = load_qt / cf_ht, k_t = cf_ht and the production P_t = Σ_q H_hqt + S_ht (its heat for
//! q, storage included, as its `dvHeatingProduction`); when it cools n_t = load_qt / cf_ht +
//! cooling_t / ccf_ht, k_t = 1 and P_t = (Σ_q H_hqt + S_ht) / cf_ht + (C_ht + CS_ht) / ccf_ht; its
//! big-M is M = 2 · max(max_kw, max_t load_qt / cf_ht [+ max_t cooling_t / ccf_ht]), and with
//! ℓ_t = k_t · n_t (load_qt itself without cooling) its rows are
//!
//! ```text
//! b_t ≥ (size_h − n_t) / M,   b_t ≤ 1 − (n_t − size_h) / M
//! E_t ≥ k_t · size_h − M · (1 − b_t),   E_t ≤ k_t · size_h,   E_t ≤ M · b_t,   E_t ≥ 0
//! P_t ≥ k_t · size_h − E_t + ℓ_t · b_t
//! ```
//!
//! Here the first two are multiplied through by M (1/M may fall below the solver's coefficient
//! tolerance) and E_t is projected out (Fourier–Motzkin: every lower bound of E_t at most every
//! upper one), which leaves the same points (s, b, P), the relaxation's included, and lets a
//! relaxed point whose binaries are rounded stay feasible (E_t's relaxed value would not):
//!
//! ```text
//! size_h − M · b_t ≤ n_t,   M · b_t − size_h ≤ M − n_t
//! P_t ≥ ℓ_t · b_t,   P_t ≥ k_t · size_h + (ℓ_t − M) · b_t,   k_t · size_h ≤ M (a row only where
//! k_t · max_kw > M: capacity factors above 2)
//! ```
//!
//! With the capacity row and the per-load row this leaves P_t = min(k_t · size_h, ℓ_t). One more
//! row per step, b_t ≥ b_u for a step t of the next smaller need than u's (n_t < n_u), cuts off
//! no integer point and lets the branch and bound search over the size.
//!
//! A space heater that may cool where no cooling load exists takes the heating-only rows: the
//! service's cooling rows with a zero cooling load admit the same integer points.
//!
//! The ASHPSpaceHeater that cools (`add_heating_cooling_constraints` in thermal_tech_constraints.jl,
//! which implies `add_cooling_tech_constraints`' C ≤ ccf · size and the heating row) has two more
//! series: its cooling to load `C_ht` and to the chilled-water tank `CS_ht`, which `cooling` puts in
//! the cooling balance and the tank's charges.
//!
//! The heat balance (`heating`) takes Σ_hq H_hqt as supply and S_hbt as storage b's charges. The
//! steam turbine's steam row (`heating`) takes T_ht. The electric balance takes
//! (Σ_q H_hqt + S_ht + T_ht + W_ht) / cop_ht + (C_ht + CS_ht) / ccop_ht as demand (`electric_terms`: a negative
//! on-site supply), valued at the tier-0 energy rate. Objective ($ present value):
//! (npc $/kW + pwf_om · (1 − τ_w) · O&M $/kW-year) · size_h, minus the avoided capex of the ASHPs
//! offered (a constant, as the service's `AvoidedCapexByASHP`).

use super::{energy_value, Case, CostFactors, LinearProgram, RowKind};
use crate::optimizer::model::electric_heater_inputs::{HeatPump, HeatPumpCooling, HeatPumpKind};
use crate::optimizer::model::{HeatingLoadKind, Model};

/// One tech's columns.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatPumpColumns {
    /// Heat to each load it serves (first of a series).
    pub to_load: Vec<(HeatingLoadKind, usize)>,
    /// Heat to each hot storage it may charge: (index in `Heating::hot_storages`, first of a series).
    pub to_storages: Vec<(usize, usize)>,
    /// Heat wasted (first of a series; CST that may waste heat only).
    pub to_waste: Option<usize>,
    /// Heat to the steam turbine (first of a series; None unless it may feed one).
    pub to_turbine: Option<usize>,
    pub size: usize,
    pub binary: Option<usize>,
    /// Cooling to load and to the chilled-water tank (first of a series; None when it does not cool).
    pub cool_to_load: Option<usize>,
    pub cool_to_storage: Option<usize>,
}

/// Where the electric heating techs live in the LP (one entry per `Model::heat_pumps`).
#[derive(Debug, Clone, PartialEq)]
pub struct HeatPumpLayout {
    pub techs: Vec<HeatPumpColumns>,
    /// 1/cop per tech and step, and 1/cooling cop (empty when it does not cool).
    electric_per_kw: Vec<Vec<f64>>,
    /// Whether step t's electric balance takes the techs' electricity: only with the grid, as
    /// the service's balance without it (`add_elec_load_balance_constraints`, 8b) has no heating
    /// term.
    in_balance: Vec<bool>,
    cooling_electric_per_kw: Vec<Vec<f64>>,
}

/// One tech's dispatch (thermal kW per step; size kW of the variable).
#[derive(Debug, Clone, PartialEq)]
pub struct HeatPumpDispatch {
    pub size_kw: f64,
    pub to_load_kw: Vec<(HeatingLoadKind, Vec<f64>)>,
    /// Heat to the hot storages together, and to each (index in `Heating::hot_storages`).
    pub to_storage_kw: Vec<f64>,
    pub to_storages_kw: Vec<(usize, Vec<f64>)>,
    /// Heat wasted (zeros but for CST).
    pub to_waste_kw: Vec<f64>,
    pub to_turbine_kw: Vec<f64>,
    pub electric_kw: Vec<f64>,
    /// Cooling to load and to the chilled-water tank, and the electricity for it (zeros when it
    /// does not cool); `electric_kw` is the heating's.
    pub cool_to_load_kw: Vec<f64>,
    pub cool_to_storage_kw: Vec<f64>,
    pub cooling_electric_kw: Vec<f64>,
}

impl HeatPumpDispatch {
    /// Heat to the loads per step.
    pub fn to_loads(&self) -> Vec<f64> {
        (0..self.to_storage_kw.len()).map(|t| self.to_load_kw.iter().map(|(_, s)| s[t]).sum()).collect()
    }

    /// Heat to one load per step (zeros when it does not serve it).
    pub fn to_kind(&self, kind: HeatingLoadKind) -> Vec<f64> {
        self.to_load_kw.iter().find(|(k, _)| *k == kind).map_or_else(|| vec![0.0; self.to_storage_kw.len()], |(_, s)| s.clone())
    }

    /// Heat made per step: to the loads, to storage and wasted.
    pub fn production(&self) -> Vec<f64> {
        self.to_loads().iter().enumerate().map(|(t, a)| a + self.to_storage_kw[t] + self.to_turbine_kw[t] + self.to_waste_kw[t]).collect()
    }
}

/// Adds the techs' columns, capacity and size rows; None in the business-as-usual case or
/// without any. The load rows come with the heat balance (`add_load_rows`).
pub(super) fn add_heat_pumps(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, case: &Case) -> Option<HeatPumpLayout> {
    if case.bau || model.heat_pumps.is_empty() {
        return None;
    }
    let heating = model.heating.as_ref()?;
    let steps = model.steps();
    let cold_tank = model.cooling.as_ref().is_some_and(|c| c.cold_storage.is_some());
    let mut techs = Vec::new();
    let mut electric_per_kw = Vec::new();
    let mut cooling_electric_per_kw = Vec::new();
    for tech in &model.heat_pumps {
        let per_kw: Vec<f64> = tech.cop.iter().map(|c| 1.0 / c).collect();
        let cost = |t: usize| energy_value(model, factors, t) * per_kw[t];
        // A load another tech is forced into gets no column here (a column fixed at 0 would be
        // two opposite bound rows for the interior point).
        let forced_elsewhere = |kind: &HeatingLoadKind| model.heat_pumps.iter().any(|other| other.kind != tech.kind && other.forced_loads.contains(kind));
        let served = tech.serves.iter().filter(|kind| !forced_elsewhere(kind));
        let to_load: Vec<(HeatingLoadKind, usize)> = served.map(|&kind| (kind, lp.series(steps, cost))).collect();
        let to_storages: Vec<(usize, usize)> = tech.charges.iter().map(|&b| (b, lp.series(steps, cost))).collect();
        let (fixed_output, to_waste) = match tech.kind {
            HeatPumpKind::Cst { can_waste_heat } => (true, can_waste_heat.then(|| lp.series(steps, cost))),
            _ => (false, None),
        };
        let feeds_turbine = !tech.storage_only
            && model.steam_turbine.as_ref().is_some_and(|st| match tech.kind {
                HeatPumpKind::ElectricHeater => st.electric_heater_supplies,
                HeatPumpKind::Cst { .. } => st.cst_supplies,
                HeatPumpKind::AshpSpaceHeater | HeatPumpKind::AshpWaterHeater => false,
            });
        let to_turbine = feeds_turbine.then(|| lp.series(steps, cost));
        let cooling = tech.cooling.as_ref().filter(|_| model.cooling.is_some());
        let cool_per_kw: Vec<f64> = cooling.map_or_else(Vec::new, |c| c.cop.iter().map(|cop| 1.0 / cop).collect());
        let cool_cost = |t: usize| energy_value(model, factors, t) * cool_per_kw[t];
        let cool_to_load = cooling.map(|_| lp.series(steps, cool_cost));
        let cool_to_storage = cooling.filter(|_| cold_tank).map(|_| lp.series(steps, cool_cost));
        let size = lp.variable(tech.net_present_cost_per_kw + factors.om_factor() * tech.om_cost_per_kw, tech.min_kw, tech.max_kw);
        for t in 0..steps {
            let heat = to_load.iter().map(|&(_, s)| s).chain(to_storages.iter().map(|&(_, s)| s)).chain(to_turbine).chain(to_waste);
            let terms: Vec<(usize, f64)> = match cooling {
                None => heat.map(|s| (s + t, 1.0)).chain([(size, -tech.cf[t])]).collect(),
                Some(c) => {
                    let cool = [cool_to_load, cool_to_storage].into_iter().flatten().map(|s| (s + t, 1.0 / c.cf[t]));
                    heat.map(|s| (s + t, 1.0 / tech.cf[t])).chain(cool).chain([(size, -1.0)]).collect()
                }
            };
            lp.row(&terms, if fixed_output { RowKind::Equal } else { RowKind::LessOrEqual }, 0.0);
        }
        let binary = (tech.min_allowable_kw > 0.0).then(|| {
            let b = lp.binary(0.0);
            lp.row(&[(size, -1.0), (b, tech.min_allowable_kw)], RowKind::LessOrEqual, 0.0);
            lp.row(&[(size, 1.0), (b, -tech.max_kw)], RowKind::LessOrEqual, 0.0);
            b
        });
        if tech.force_dispatch {
            let load = heating.loads.iter().find(|l| tech.serves(l.kind));
            let made: Vec<usize> = to_load.iter().map(|&(_, s)| s).chain(to_storages.iter().map(|&(_, s)| s)).collect();
            let cooled: Vec<usize> = [cool_to_load, cool_to_storage].into_iter().flatten().collect();
            let cooling_load = model.cooling.as_ref().map(|c| c.load_kw.as_slice());
            if let Some(load) = load {
                add_forced_dispatch(lp, tech, size, (&made, &cooled), &load.thermal_kw, cooling.zip(cooling_load));
            }
        }
        techs.push(HeatPumpColumns { to_load, to_storages, to_waste, to_turbine, size, binary, cool_to_load, cool_to_storage });
        electric_per_kw.push(per_kw);
        cooling_electric_per_kw.push(cool_per_kw);
    }
    lp.objective_constant -= model.heat_pumps.iter().map(|h| h.avoided_capex).sum::<f64>();
    Some(HeatPumpLayout { techs, electric_per_kw, in_balance: model.grid_available.clone(), cooling_electric_per_kw })
}

/// The forced dispatch's binaries and rows (the module's header) for a tech of size column `size`
/// whose heat columns are `made` and cooling columns `cooled` (first of each series).
fn add_forced_dispatch(
    lp: &mut LinearProgram,
    tech: &HeatPump,
    size: usize,
    (made, cooled): (&[usize], &[usize]),
    load_kw: &[f64],
    cooling: Option<(&HeatPumpCooling, &[f64])>,
) {
    let steps = load_kw.len();
    let peak = |v: &mut dyn Iterator<Item = f64>| v.fold(f64::NEG_INFINITY, f64::max);
    let heat_peak = peak(&mut (0..steps).map(|t| load_kw[t] / tech.cf[t]));
    let cooling_peak = cooling.map_or(0.0, |(c, l)| peak(&mut (0..steps).map(|t| l[t] / c.cf[t])));
    let big_m = 2.0 * tech.max_kw.max(heat_peak + cooling_peak);
    let mut binaries = Vec::with_capacity(steps);
    for t in 0..steps {
        let b = lp.binary(0.0);
        let (k, need, load_term) = match cooling {
            None => (tech.cf[t], load_kw[t] / tech.cf[t], load_kw[t]),
            Some((c, l)) => {
                let need = load_kw[t] / tech.cf[t] + l[t] / c.cf[t];
                (1.0, need, need)
            }
        };
        lp.row(&[(size, 1.0), (b, -big_m)], RowKind::LessOrEqual, need);
        lp.row(&[(b, big_m), (size, -1.0)], RowKind::LessOrEqual, big_m - need);
        let mut production: Vec<(usize, f64)> = made.iter().map(|&s| (s + t, -k / tech.cf[t])).collect();
        if let Some((c, _)) = cooling {
            production.extend(cooled.iter().map(|&s| (s + t, -1.0 / c.cf[t])));
        }
        let mut terms = production.clone();
        terms.push((b, load_term));
        lp.row(&terms, RowKind::LessOrEqual, 0.0);
        production.extend([(size, k), (b, load_term - big_m)]);
        lp.row(&production, RowKind::LessOrEqual, 0.0);
        if k * tech.max_kw > big_m {
            lp.row(&[(size, k)], RowKind::LessOrEqual, big_m);
        }
        binaries.push((need, b));
    }
    // Rows the service lacks that cut off no integer point: b_u = 1 means size_h ≥ n_u, so a step
    // of a smaller need n_t < n_u has size_h > n_t and b_t = 1. Alone the big-M rows relax to
    // almost nothing; with these, branching on one step settles every step of a larger or smaller
    // need, a search over the size.
    binaries.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut below, mut level): (Option<usize>, Option<(f64, usize)>) = (None, None);
    for &(need, b) in &binaries {
        if level.is_none_or(|(n, _)| need > n) {
            below = level.map(|(_, rep)| rep);
            level = Some((need, b));
        }
        if let Some(anchor) = below {
            lp.row(&[(b, 1.0), (anchor, -1.0)], RowKind::LessOrEqual, 0.0);
        }
    }
}

/// The per-load rows of the heat balance: the techs' heat to a load at most the load (with the
/// absorption chiller's draw `draw(q, t)` as terms), and a forced load all theirs with the
/// `discharges` of the hot storages (the loads each serves, its first column) serving it.
pub(super) fn add_load_rows(
    lp: &mut LinearProgram,
    model: &Model,
    layout: &HeatPumpLayout,
    discharges: &[(Vec<HeatingLoadKind>, usize)],
    draw: &dyn Fn(HeatingLoadKind, usize) -> Vec<(usize, f64)>,
) {
    let Some(heating) = &model.heating else { return };
    for load in &heating.loads {
        let serving: Vec<(usize, &HeatPump)> = layout
            .techs
            .iter()
            .zip(&model.heat_pumps)
            .filter_map(|(columns, tech)| columns.to_load.iter().find(|(k, _)| *k == load.kind).map(|&(_, s)| (s, tech)))
            .collect();
        if serving.is_empty() {
            continue;
        }
        let forcing = serving.iter().find(|(_, tech)| tech.forced_loads.contains(&load.kind)).map(|&(s, _)| s);
        let discharges: Vec<usize> =
            if forcing.is_some() { discharges.iter().filter(|(served, _)| served.contains(&load.kind)).map(|&(_, d)| d).collect() } else { Vec::new() };
        for t in (0..model.steps()).filter(|&t| model.has_grid(t)) {
            let drawn = draw(load.kind, t);
            let mut terms: Vec<(usize, f64)> = serving.iter().map(|&(s, _)| (s + t, 1.0)).collect();
            terms.extend(drawn.iter().map(|&(j, a)| (j, -a)));
            // Forced without storage to help, the two rows meet: one equality (the interior
            // point dislikes a pair of opposite inequalities).
            let kind = if forcing.is_some() && discharges.is_empty() { RowKind::Equal } else { RowKind::LessOrEqual };
            lp.row(&terms, kind, load.thermal_kw[t]);
            let Some(forced) = forcing else { continue };
            if !discharges.is_empty() {
                let mut terms = vec![(forced + t, -1.0)];
                terms.extend(discharges.iter().map(|&d| (d + t, -1.0)));
                terms.extend(drawn.iter().copied());
                lp.row(&terms, RowKind::LessOrEqual, -load.thermal_kw[t]);
            }
        }
    }
}

impl HeatPumpLayout {
    /// The techs' heat to load in step t as terms of the heat balance.
    pub fn heat_terms(&self, t: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.techs.iter().flat_map(move |c| c.to_load.iter().map(move |&(_, s)| (s + t, 1.0)))
    }

    /// The techs' heat to load of the kinds `served` in step t (the storage's servable row).
    pub fn heat_terms_for(&self, t: usize, served: impl Fn(HeatingLoadKind) -> bool + Copy + 'static) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.techs.iter().flat_map(move |c| c.to_load.iter().filter(move |(k, _)| served(*k)).map(move |&(_, s)| (s + t, 1.0)))
    }

    /// The columns charging the hot storages: (index in `Heating::hot_storages`, first of a series).
    pub fn storage_charges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.techs.iter().flat_map(|c| c.to_storages.iter().copied())
    }

    /// `sign ·` minus the techs' electricity in step t (a demand in the electric balance; none
    /// in a step without the grid).
    pub fn electric_terms(&self, t: usize, sign: f64) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.all_electric_terms(t, sign).filter(move |_| self.in_balance[t])
    }

    fn all_electric_terms(&self, t: usize, sign: f64) -> impl Iterator<Item = (usize, f64)> + '_ {
        let heating = self.techs.iter().zip(&self.electric_per_kw).flat_map(move |(c, per_kw)| {
            c.to_load.iter().map(|&(_, s)| s).chain(c.to_storages.iter().map(|&(_, s)| s)).chain(c.to_turbine).chain(c.to_waste).map(move |s| (s + t, -sign * per_kw[t]))
        });
        let cooling = self.techs.iter().zip(&self.cooling_electric_per_kw).flat_map(move |(c, per_kw)| {
            [c.cool_to_load, c.cool_to_storage].into_iter().flatten().map(move |s| (s + t, -sign * per_kw[t]))
        });
        heating.chain(cooling)
    }

    /// The techs' cooling to load (first of each series).
    pub fn cooling_to_load(&self) -> impl Iterator<Item = usize> + '_ {
        self.techs.iter().filter_map(|c| c.cool_to_load)
    }

    /// The techs' cooling to the chilled-water tank (first of each series).
    pub fn cooling_to_storage(&self) -> impl Iterator<Item = usize> + '_ {
        self.techs.iter().filter_map(|c| c.cool_to_storage)
    }

    /// The techs' electricity in step t at a solution (kW).
    pub fn electric_use(&self, x: &[f64], t: usize) -> f64 {
        -self.all_electric_terms(t, 1.0).map(|(j, a)| a * x[j]).sum::<f64>()
    }

    /// Reads each tech's dispatch; values at or below `tolerance` become 0.
    pub fn dispatch(&self, x: &[f64], steps: usize, tolerance: f64) -> Vec<HeatPumpDispatch> {
        let clean = |v: f64| if v <= tolerance { 0.0 } else { v };
        let series = |start: Option<usize>| match start {
            Some(s) => x[s..s + steps].iter().map(|&v| clean(v)).collect(),
            None => vec![0.0; steps],
        };
        self.techs
            .iter()
            .zip(self.electric_per_kw.iter().zip(&self.cooling_electric_per_kw))
            .map(|(c, (per_kw, cool_per_kw))| {
                let to_load_kw: Vec<(HeatingLoadKind, Vec<f64>)> = c.to_load.iter().map(|&(k, s)| (k, series(Some(s)))).collect();
                let to_storages_kw: Vec<(usize, Vec<f64>)> = c.to_storages.iter().map(|&(b, s)| (b, series(Some(s)))).collect();
                let to_storage_kw: Vec<f64> = (0..steps).map(|t| to_storages_kw.iter().map(|(_, s)| s[t]).sum()).collect();
                let to_turbine_kw = series(c.to_turbine);
                let to_waste_kw = series(c.to_waste);
                let made = |t: usize| to_load_kw.iter().map(|(_, s)| s[t]).sum::<f64>() + to_storage_kw[t] + to_turbine_kw[t] + to_waste_kw[t];
                let electric_kw = (0..steps).map(|t| made(t) * per_kw[t]).collect();
                let (cool_to_load_kw, cool_to_storage_kw) = (series(c.cool_to_load), series(c.cool_to_storage));
                let cooling_electric_kw =
                    if cool_per_kw.is_empty() { vec![0.0; steps] } else { (0..steps).map(|t| (cool_to_load_kw[t] + cool_to_storage_kw[t]) * cool_per_kw[t]).collect() };
                HeatPumpDispatch {
                    size_kw: clean(x[c.size]),
                    to_load_kw,
                    to_storage_kw,
                    to_storages_kw,
                    to_waste_kw,
                    to_turbine_kw,
                    electric_kw,
                    cool_to_load_kw,
                    cool_to_storage_kw,
                    cooling_electric_kw,
                }
            })
            .collect()
    }
}

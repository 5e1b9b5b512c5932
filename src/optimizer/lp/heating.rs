//! The heat balance, the boilers and the hot storages, the water tank and the high-temperature
//! storage (REopt.jl `add_boiler_tech_constraints`, `add_heating_tech_constraints`, the hot part of
//! `add_thermal_load_constraints` and `add_hot_thermal_storage_dispatch_constraints`; the
//! storages' charges, served rows and heat to the turbine are `hot_storages`', their own rows
//! `water_tank`'s): no waste
//! heat (the service fixes it to zero for techs that make no electricity), no steam turbine. CHP
//! (`chp`) adds its heat to load to the balance and its heat to storage to the charges.
//!
//! Variables (thermal kW, ≥ 0): per step and boiler b (existing `eb`, new `nb`) its heat to load
//! `L_bt` and to storage `S_bt` (its total over the hot storages); the new boiler's size `nb_kw`;
//! with storages, each storage's discharge to load `discharge_st` (`hot_storages`). Rows, for
//! every step t:
//!
//! ```text
//! Heat balance:  Σ_b L_bt + Σ_s discharge_st = Σ_q load_qt + draw_t  (the absorption chiller's, `cooling`)
//! Capacity:      L_ebt + S_ebt ≤ max_kw_eb;  L_nbt + S_nbt ≤ nb_kw,  min_kw ≤ nb_kw ≤ max_kw
//! ```
//!
//! The heat balance and the rows derived from it (served loads, the electric heating techs'
//! per-load rows) hold only in the steps with the grid: the service writes
//! `HeatLoadBalanceCon` over `time_steps_with_grid` (src/constraints/load_balance.jl,
//! `add_thermal_load_constraints`, 029db01d) and nothing in their place, so in the steps of the
//! deterministic outage the heating load goes unserved at no cost while every technology's own
//! rows (capacity, storage state of charge) still hold. The multiple-outage form leaves every
//! step with the grid, so its balance is whole.
//!
//! The electric heating techs (`heat_pumps`) add their heat to load to the balance (and to the
//! storage's servable row for the loads it serves), their heat to storage to the charges, and
//! their rows per load.
//!
//! The service keeps one production variable per tech and heating load q and one balance per q
//! (`dvHeatingProduction[t, q, ts]`, fixed at 0 for the loads a tech may not serve; its heat to
//! storage, to the turbine and wasted leave through any q it serves). Here the producers (both
//! boilers, CHP, the steam turbine) keep one heat-to-load column L_p each and the balance is on
//! the totals, with rows per set of loads in its place. For fixed values this is a transportation
//! problem: sources L_p (and each hot storage's discharge D_b) each sending to the loads it serves S_p,
//! sinks r_qt = load_qt + draw_qt − (the electric heating techs' and the GHP's heat to q), which
//! their own rows keep ≥ 0. By Hall's theorem (Gale's feasibility theorem for supplies and
//! demands) a split of every source among its loads meeting every r_q exists iff the totals
//! balance and, for every set T of loads,
//!
//! ```text
//! Per-load sets:  Σ_{p: S_p ⊆ T} L_pt + Σ_{b: S_b ⊆ T} D_bt + Σ_{q∈T} (heat pumps', GHP's heat to q)_t
//!                   ≤ Σ_{q∈T} load_qt + Σ_{q∈T} draw_qt
//! ```
//!
//! The set of all loads is the balance itself; a set that is not the union of the served sets
//! inside it is implied by that union (r ≥ 0); with every producer serving every load only the
//! unions of the storages' served sets remain: `hot_storages`' served rows. So the rows here are
//! added only for the sets that
//! hold a producer serving part of the loads (`add_part_served_rows`), and a program whose
//! producers all serve every load is as before, column for column and row for row. The split
//! is not unique; no cost depends on it (fuel and O&M are on each tech's total), and the outputs
//! choose one (`outputs::thermal`).
//!
//! Fuel burned (kWh) is Δ · production / η. Objective terms ($ present value):
//! pwf_fuel_b · (1 − τ_o) · Δ · c_bt / η_b per kW produced in step t (c = $ per kWh of fuel),
//! pwf_om · (1 − τ_w) · Δ · om_kwh per kW of the new boiler, and
//! (installed $/kW + pwf_om · (1 − τ_w) · om $/kW-year) per kW of new boiler, each storage's net
//! present $ per kWh of size. The business-as-usual
//! case has the existing boiler only (no storage); the optimal case drops it when
//! `retire_in_optimal` and another heating tech or CHP exists.
//!
//! With a steam turbine (`steam_turbine`) each boiler that may supply it has a third series,
//! its steam to the turbine `T_bt`, inside its capacity row and costed as its other production;
//! Σ_b T_bt + chp_t + heater_t + Σ_s turbine_st = in_t (the turbine's steam in, with CHP's and the
//! electric heater's steam columns of `chp` and `heat_pumps` and the storages' heat to the turbine
//! when they may supply it), and the turbine's heat to load and to storage join the balance and
//! the charges.

use super::chp::ChpLayout;
use super::cooling::CoolingLayout;
use super::steam_turbine::SteamTurbineLayout;
use super::ghp::GhpLayout;
use super::heat_pumps::{add_load_rows, HeatPumpLayout};
use super::hot_storages::{add_hot_storages, HotStorageDispatch, HotStorageLayout, StoragePartners};
use super::{fuel_present_worth, Case, CostFactors, LinearProgram, RowKind};
use crate::optimizer::model::thermal_inputs::{FuelBurner, HeatProducer, Heating, HeatingLoadKind};
use crate::optimizer::model::Model;

/// Where the heating quantities live in the LP.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatingLayout {
    /// Existing boiler to load, first of a series (None when retired in this case).
    pub existing: Option<usize>,
    /// New boiler to load, first of a series, and its size.
    pub new: Option<usize>,
    pub new_size: Option<usize>,
    /// Each boiler's heat to storage, first of a series (None without storage or boiler).
    pub existing_to_storage: Option<usize>,
    pub new_to_storage: Option<usize>,
    /// The hot storages of this case (none in business as usual).
    pub storages: Vec<HotStorageLayout>,
    /// CHP's heat to load, first of a series (None without CHP in this case).
    pub chp_to_load: Option<usize>,
    /// Each boiler's steam to the turbine, first of a series (None when it feeds none).
    pub existing_to_turbine: Option<usize>,
    pub new_to_turbine: Option<usize>,
    /// The steam turbine's heat to load, first of a series.
    pub turbine_to_load: Option<usize>,
    /// The GHP's heat to the space heating and the hot water (None without them).
    pub ghp_to_space: Option<usize>,
    pub ghp_to_dhw: Option<usize>,
    /// The electric heating techs' heat to each load (first of a series each).
    pub heat_pumps_to_load: Vec<(HeatingLoadKind, usize)>,
}

/// The heating dispatch of a solution (thermal kW per step; kW).
#[derive(Debug, Clone, PartialEq)]
pub struct HeatingDispatch {
    /// Each boiler's heat to load.
    pub existing_kw: Vec<f64>,
    pub new_kw: Vec<f64>,
    pub new_size_kw: f64,
    /// Each boiler's heat to storage.
    pub existing_to_storage_kw: Vec<f64>,
    pub new_to_storage_kw: Vec<f64>,
    /// The hot storages' discharge to load together (kW), and each storage's dispatch (in the
    /// order of `Heating::hot_storages`).
    pub discharge_kw: Vec<f64>,
    pub storages: Vec<HotStorageDispatch>,
    /// CHP's heat to load (kW; zeros without CHP).
    pub chp_to_load_kw: Vec<f64>,
    /// Each boiler's steam to the turbine (kW; zeros without one).
    pub existing_to_turbine_kw: Vec<f64>,
    pub new_to_turbine_kw: Vec<f64>,
    /// The steam turbine's heat to load (kW; zeros without one).
    pub turbine_to_load_kw: Vec<f64>,
    /// The GHP's heat to the space heating and the hot water (kW; zeros without GHP).
    pub ghp_to_space_kw: Vec<f64>,
    pub ghp_to_dhw_kw: Vec<f64>,
    /// The electric heating techs' heat to each load (kW; one entry per tech and load served).
    pub heat_pumps_to_load_kw: Vec<(HeatingLoadKind, Vec<f64>)>,
}

impl HeatingDispatch {
    /// A boiler's production per step: to load, to storage and to the steam turbine.
    pub fn existing_production(&self) -> Vec<f64> {
        (0..self.existing_kw.len()).map(|t| self.existing_kw[t] + self.existing_to_storage_kw[t] + self.existing_to_turbine_kw[t]).collect()
    }

    pub fn new_production(&self) -> Vec<f64> {
        (0..self.new_kw.len()).map(|t| self.new_kw[t] + self.new_to_storage_kw[t] + self.new_to_turbine_kw[t]).collect()
    }
}

/// $ (year one, before tax) of fuel per thermal kW produced in step t.
pub fn year_one_fuel_cost_per_kw(model: &Model, burner: &FuelBurner, t: usize) -> f64 {
    model.step_hours() * burner.fuel_cost_per_kwh[t] / burner.efficiency
}

/// Whether the existing boiler runs in a case: retired in the optimal case when any other heating
/// tech or CHP exists (reopt.jl: `!isempty(setdiff(union(p.techs.chp, p.techs.heating), ["ExistingBoiler"]))`).
pub fn existing_boiler_runs(model: &Model, heating: &Heating, case: &Case) -> bool {
    let others = heating.boiler.is_some() || model.chp.is_some() || !model.heat_pumps.is_empty() || model.ghp.is_some() || model.steam_turbine.is_some();
    case.bau || !(heating.existing_boiler.retire_in_optimal && others)
}

/// The other technologies' columns the heat balance takes in (None where absent in this case).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct HeatPartners<'a> {
    pub chp: Option<&'a ChpLayout>,
    pub cooling: Option<&'a CoolingLayout>,
    pub turbine: Option<&'a SteamTurbineLayout>,
    pub ghp: Option<&'a GhpLayout>,
    pub heat_pumps: Option<&'a HeatPumpLayout>,
}

/// Adds the heating variables and rows of a case; None without heating. CHP's heat to load
/// joins the heat balance and its heat to storage the storage's charges; the absorption
/// chiller's heat draw is demand in the balance; the steam turbine's steam comes from the boilers;
/// the GHP's and the electric heating techs' heat to load join the balance and their heat to
/// storage the charges.
pub(super) fn add_heating(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, case: &Case, partners: HeatPartners) -> Option<HeatingLayout> {
    let HeatPartners { chp, cooling, turbine, ghp, heat_pumps } = partners;
    let heating = model.heating.as_ref()?;
    let steps = model.steps();
    let storages = if case.bau { &[][..] } else { &heating.hot_storages[..] };
    let fuel_factor = |burner: &FuelBurner| fuel_present_worth(model, burner) * factors.offtaker_after_tax;
    let feeds = |supplies: fn(&crate::optimizer::model::steam_turbine_inputs::SteamTurbine) -> bool| {
        turbine.is_some() && model.steam_turbine.as_ref().is_some_and(supplies)
    };
    // Heat to load, to storage and to the turbine cost the same fuel (and O&M) per kW made; a
    // boiler serving no load (its `can_serve_*` flags all false) makes none, as the service's.
    let produced = |lp: &mut LinearProgram, cost: &dyn Fn(usize) -> f64, to_turbine: bool, serves: &[HeatingLoadKind]| {
        let to_load = lp.series(steps, cost);
        let to_storage = (!storages.is_empty()).then(|| lp.series(steps, cost));
        let to_turbine = to_turbine.then(|| lp.series(steps, cost));
        if serves.is_empty() {
            for start in [Some(to_load), to_storage, to_turbine].into_iter().flatten() {
                lp.upper[start..start + steps].fill(0.0);
            }
        }
        (to_load, to_storage, to_turbine)
    };
    let existing = existing_boiler_runs(model, heating, case).then(|| {
        let burner = &heating.existing_boiler.burner;
        let pw = fuel_factor(burner);
        let existing_supplies = feeds(|st| st.existing_boiler_supplies);
        let (to_load, to_storage, to_turbine) =
            produced(lp, &|t| pw * year_one_fuel_cost_per_kw(model, burner, t), existing_supplies, &heating.existing_boiler.serves);
        for t in 0..steps {
            let terms: Vec<(usize, f64)> = [Some(to_load), to_storage, to_turbine].into_iter().flatten().map(|s| (s + t, 1.0)).collect();
            lp.row(&terms, RowKind::LessOrEqual, heating.existing_boiler.max_kw);
        }
        (to_load, to_storage, to_turbine)
    });
    let new = heating.boiler.as_ref().filter(|_| !case.bau).map(|boiler| {
        let pw = fuel_factor(&boiler.burner);
        let om_per_kw_produced = factors.om_factor() * model.step_hours() * boiler.om_cost_per_kwh;
        let cost = |t| pw * year_one_fuel_cost_per_kw(model, &boiler.burner, t) + om_per_kw_produced;
        let (to_load, to_storage, to_turbine) = produced(lp, &cost, feeds(|st| st.boiler_supplies), &boiler.serves);
        let size_cost = boiler.net_present_cost_per_kw + factors.om_factor() * boiler.om_cost_per_kw;
        let size = lp.variable(size_cost, boiler.min_kw, boiler.max_kw);
        for t in 0..steps {
            let mut terms: Vec<(usize, f64)> = [Some(to_load), to_storage, to_turbine].into_iter().flatten().map(|s| (s + t, 1.0)).collect();
            terms.push((size, -1.0));
            lp.row(&terms, RowKind::LessOrEqual, 0.0);
        }
        (to_load, to_storage, size, to_turbine)
    });
    let charges: Vec<usize> = [existing.and_then(|e| e.1), new.and_then(|n| n.1), chp.and_then(|c| c.heat_to_storage), ghp.and_then(|g| g.heat_to_storage)]
        .into_iter()
        .flatten()
        .collect();
    let dedicated: Vec<(usize, usize)> = heat_pumps.into_iter().flat_map(HeatPumpLayout::storage_charges).collect();
    let storage_sets: Vec<Vec<HeatingLoadKind>> = storages.iter().map(|s| HeatingLoadKind::ALL.into_iter().filter(|&k| s.serves(k)).collect()).collect();
    let storages = add_hot_storages(lp, model, heating, storages, StoragePartners { charges: &charges, dedicated: &dedicated, turbine, cooling, heat_pumps, ghp });
    if let Some(pumps) = heat_pumps {
        let draw = |kind, t| cooling.filter(|c| c.heating_load == Some(kind)).map_or_else(Vec::new, |c| c.heat_draw_terms(t).collect());
        let discharges: Vec<(Vec<HeatingLoadKind>, usize)> = storage_sets.iter().cloned().zip(storages.iter().map(|s| s.discharge)).collect();
        add_load_rows(lp, model, pumps, &discharges, &draw);
    }
    let (existing_to_turbine, new_to_turbine) = (existing.and_then(|e| e.2), new.and_then(|n| n.3));
    if let Some(st) = turbine {
        for t in 0..steps {
            let heater = heat_pumps.into_iter().flat_map(|h| h.techs.iter()).filter_map(|c| c.to_turbine);
            let stored = storages.iter().filter_map(|s| s.to_turbine);
            let feeds = [existing_to_turbine, new_to_turbine, chp.and_then(|c| c.heat_to_turbine)].into_iter().flatten().chain(heater).chain(stored);
            let mut steam: Vec<(usize, f64)> = feeds.map(|s| (s + t, 1.0)).collect();
            steam.push((st.thermal_in + t, -1.0));
            lp.row(&steam, RowKind::Equal, 0.0);
        }
    }
    for t in (0..steps).filter(|&t| model.has_grid(t)) {
        let ghp_to_load = [ghp.and_then(|g| g.heat_to_space), ghp.and_then(|g| g.heat_to_dhw)];
        let to_load = [existing.map(|e| e.0), new.map(|n| n.0), chp.map(|c| c.heat_to_load), turbine.map(|s| s.heat_to_load)].into_iter().chain(ghp_to_load);
        let mut terms: Vec<(usize, f64)> = to_load.into_iter().flatten().map(|start| (start + t, 1.0)).collect();
        terms.extend(storages.iter().map(|s| (s.discharge + t, 1.0)));
        terms.extend(heat_pumps.into_iter().flat_map(|h| h.heat_terms(t)));
        terms.extend(cooling.into_iter().flat_map(|c| c.heat_draw_terms(t)).map(|(j, a)| (j, -a)));
        lp.row(&terms, RowKind::Equal, heating.total_kw(t));
    }
    let producers = [
        existing.map(|e| (HeatProducer::ExistingBoiler, e.0)),
        new.map(|n| (HeatProducer::Boiler, n.0)),
        chp.map(|c| (HeatProducer::Chp, c.heat_to_load)),
        turbine.map(|s| (HeatProducer::SteamTurbine, s.heat_to_load)),
    ];
    if model.some_producer_serves_part() {
        let discharges: Vec<(Vec<HeatingLoadKind>, usize)> = storage_sets.into_iter().zip(storages.iter().map(|s| s.discharge)).collect();
        add_part_served_rows(lp, model, heating, &producers.into_iter().flatten().collect::<Vec<_>>(), &discharges, &partners);
    }
    Some(HeatingLayout {
        existing: existing.map(|e| e.0),
        new: new.map(|n| n.0),
        new_size: new.map(|n| n.2),
        existing_to_storage: existing.and_then(|e| e.1),
        new_to_storage: new.and_then(|n| n.1),
        storages,
        chp_to_load: chp.map(|c| c.heat_to_load),
        existing_to_turbine,
        new_to_turbine,
        turbine_to_load: turbine.map(|s| s.heat_to_load),
        ghp_to_space: ghp.and_then(|g| g.heat_to_space),
        ghp_to_dhw: ghp.and_then(|g| g.heat_to_dhw),
        heat_pumps_to_load: heat_pumps.into_iter().flat_map(|h| h.techs.iter()).flat_map(|c| c.to_load.iter().copied()).collect(),
    })
}

/// The Hall rows of the header: for each proper set T of the loads given that some producer
/// serving part of them lies in and that is the union of the served sets inside it, the heat to
/// load of the producers (and the hot storages' discharges) serving only loads in T is at most what T's
/// loads and the absorption chiller's draw on them leave after the heat sent to each of them alone
/// (the electric heating techs', the GHP's).
fn add_part_served_rows(lp: &mut LinearProgram, model: &Model, heating: &Heating, producers: &[(HeatProducer, usize)], discharges: &[(Vec<HeatingLoadKind>, usize)], partners: &HeatPartners) {
    let kinds: Vec<HeatingLoadKind> = heating.loads.iter().map(|load| load.kind).collect();
    // (served loads, first column, whether a producer serving part of the loads)
    let mut sources: Vec<(Vec<HeatingLoadKind>, usize, bool)> =
        producers.iter().map(|&(p, start)| (model.producer_serves(p).to_vec(), start, model.producer_serves(p).len() < kinds.len())).collect();
    for (served, d) in discharges {
        let served: Vec<HeatingLoadKind> = served.iter().copied().filter(|k| kinds.contains(k)).collect();
        if !served.is_empty() {
            sources.push((served, *d, false));
        }
    }
    for mask in 1..(1usize << kinds.len()) - 1 {
        let set: Vec<HeatingLoadKind> = kinds.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, &k)| k).collect();
        let inside: Vec<&(Vec<HeatingLoadKind>, usize, bool)> = sources.iter().filter(|s| s.0.iter().all(|k| set.contains(k))).collect();
        // Without a producer serving part of the loads the storages' own rows hold it; a set its
        // sources do not cover is implied by the smaller one they do.
        if !inside.iter().any(|s| s.2) || !set.iter().all(|k| inside.iter().any(|s| s.0.contains(k))) {
            continue;
        }
        let cooling = partners.cooling.filter(|c| c.heating_load.is_some_and(|k| set.contains(&k)));
        let ghp_alone = partners.ghp.map_or([None, None], |g| {
            [g.heat_to_space.filter(|_| set.contains(&HeatingLoadKind::SpaceHeating)), g.heat_to_dhw.filter(|_| set.contains(&HeatingLoadKind::DomesticHotWater))]
        });
        let pumps_alone: Vec<usize> =
            partners.heat_pumps.into_iter().flat_map(|h| h.techs.iter()).flat_map(|c| c.to_load.iter()).filter(|(k, _)| set.contains(k)).map(|&(_, s)| s).collect();
        let rhs: Vec<f64> = (0..model.steps()).map(|t| heating.loads.iter().filter(|l| set.contains(&l.kind)).map(|l| l.thermal_kw[t]).sum()).collect();
        for t in (0..model.steps()).filter(|&t| model.has_grid(t)) {
            let columns = inside.iter().map(|s| s.1).chain(ghp_alone.into_iter().flatten()).chain(pumps_alone.iter().copied());
            let mut terms: Vec<(usize, f64)> = columns.map(|s| (s + t, 1.0)).collect();
            terms.extend(cooling.into_iter().flat_map(|c| c.heat_draw_terms(t)).map(|(j, a)| (j, -a)));
            lp.row(&terms, RowKind::LessOrEqual, rhs[t]);
        }
    }
}

impl HeatingLayout {
    /// Reads the heating dispatch; values at or below `tolerance` become 0.
    pub fn dispatch(&self, x: &[f64], steps: usize, tolerance: f64) -> HeatingDispatch {
        let clean = |v: f64| if v <= tolerance { 0.0 } else { v };
        let series = |start: Option<usize>| match start {
            Some(s) => x[s..s + steps].iter().map(|&v| clean(v)).collect(),
            None => vec![0.0; steps],
        };
        let storages: Vec<HotStorageDispatch> = self.storages.iter().map(|s| s.dispatch(x, steps, tolerance)).collect();
        HeatingDispatch {
            existing_kw: series(self.existing),
            new_kw: series(self.new),
            new_size_kw: self.new_size.map_or(0.0, |i| clean(x[i])),
            existing_to_storage_kw: series(self.existing_to_storage),
            new_to_storage_kw: series(self.new_to_storage),
            discharge_kw: (0..steps).map(|t| storages.iter().map(|s| s.discharge_kw[t]).sum()).collect(),
            storages,
            chp_to_load_kw: series(self.chp_to_load),
            existing_to_turbine_kw: series(self.existing_to_turbine),
            new_to_turbine_kw: series(self.new_to_turbine),
            turbine_to_load_kw: series(self.turbine_to_load),
            ghp_to_space_kw: series(self.ghp_to_space),
            ghp_to_dhw_kw: series(self.ghp_to_dhw),
            heat_pumps_to_load_kw: self.heat_pumps_to_load.iter().map(|&(kind, start)| (kind, series(Some(start)))).collect(),
        }
    }
}

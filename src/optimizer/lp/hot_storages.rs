//! The hot storages of the heat balance, the water tank and the high-temperature storage, each
//! with its own columns (REopt.jl `add_hot_thermal_storage_dispatch_constraints`,
//! `add_hot_tes_flow_restrictions!` and the hot storages' terms of `add_thermal_load_constraints`
//! and `steam_turbine_production_constraints`, 029db01d): which series charge which storage,
//! what each storage may discharge to load, and its heat to the steam turbine. A storage's own
//! rows are `water_tank`'s; thermal kW per step, kWh.
//!
//! Charges. The boilers and CHP may charge every hot storage, so their heat to storage is one
//! series each (the service reports each tech's total over the storages) and, with both
//! storages, a split per storage b, `c_bt ≥ 0`, carries it: Σ_b c_bt = Σ_techs S_t. The electric
//! heating techs (`heat_pumps`) have a series per storage they may charge (`HeatPump::charges`:
//! their results name the high-temperature storage's part, and a tech may charge only a storage
//! whose loads it serves), added to that storage's charges as they are. A storage serving only
//! loads a heat pump is forced into takes no heat of the boilers, CHP or the turbine (the
//! service's production of a forced load is the heat pump's alone): their charges to it are
//! fixed at 0 (`only_forced`). The steam
//! turbine's heat to storage `hs_t` goes only to the storages it may charge: not to one that
//! supplies the turbine only (`supply_turbine_only`, against a loop), and with
//! `charge_storage_only` to the water tank when there is one and else to the high-temperature
//! storage (the service's order); split the same way when both may take it, fixed at 0 when none.
//!
//! Discharge. Storage b discharges `discharge_bt` to load and, when it may supply the turbine
//! (`can_supply_steam_turbine`) and serves some load, `turbine_bt` to the turbine's steam in
//! (`steam_turbine`'s in_t, `heating`'s steam row). With `supply_turbine_only` its discharge to
//! load is 0. What the discharge to load may serve, in the steps with the grid (the service's
//! discharge per load q is 0 for a load the storage may not serve, and its heat balance per q
//! holds then in these steps):
//!
//! ```text
//! discharge_bt ≤ Σ_{q served by b} (load_qt + draw_qt − Σ_{heat pumps, GHP} to_load_qt)
//! Σ_b discharge_bt ≤ Σ_{q served by any} (load_qt + draw_qt − Σ_{heat pumps, GHP} to_load_qt)   (both storages)
//! ```
//!
//! (draw: the absorption chiller's heat from that load, `cooling`.)

use super::cooling::CoolingLayout;
use super::ghp::GhpLayout;
use super::heat_pumps::HeatPumpLayout;
use super::steam_turbine::SteamTurbineLayout;
use super::water_tank::{add_high_temp_limits, add_storage};
use super::{LinearProgram, RowKind};
use crate::optimizer::model::steam_turbine_inputs::SteamTurbine;
use crate::optimizer::model::thermal_inputs::{Heating, HeatingLoadKind};
use crate::optimizer::model::hot_storage_inputs::only_forced;
use crate::optimizer::model::{HotStorage, Model};

/// One hot storage's columns (first of each series; the size once).
#[derive(Debug, Clone, PartialEq)]
pub struct HotStorageLayout {
    pub kwh: usize,
    pub discharge: usize,
    pub to_turbine: Option<usize>,
    pub soc: usize,
    /// The series carrying the steam turbine's heat into it (None when it takes none).
    pub turbine_charge: Option<usize>,
}

/// One hot storage's dispatch: size (kWh), discharge to load and to the turbine (kW), state of
/// charge (kWh at each step's end) and the turbine's heat into it (kW; zeros without).
#[derive(Debug, Clone, PartialEq)]
pub struct HotStorageDispatch {
    pub kwh: f64,
    pub discharge_kw: Vec<f64>,
    pub to_turbine_kw: Vec<f64>,
    pub soc_kwh: Vec<f64>,
    pub turbine_charge_kw: Vec<f64>,
}

/// The other columns the storages' rows take in.
#[derive(Debug, Clone, Copy)]
pub(super) struct StoragePartners<'a> {
    /// The techs' heat to storage (each tech's total over the storages).
    pub charges: &'a [usize],
    /// Heat to one storage only: (index in the storages given, first of a series).
    pub dedicated: &'a [(usize, usize)],
    pub turbine: Option<&'a SteamTurbineLayout>,
    pub cooling: Option<&'a CoolingLayout>,
    pub heat_pumps: Option<&'a HeatPumpLayout>,
    pub ghp: Option<&'a GhpLayout>,
}

/// Adds the storages given (none in business as usual) with their charges, served rows and
/// outflows to the turbine.
pub(super) fn add_hot_storages(lp: &mut LinearProgram, model: &Model, heating: &Heating, storages: &[HotStorage], partners: StoragePartners) -> Vec<HotStorageLayout> {
    let steps = model.steps();
    let mut charges: Vec<Vec<usize>> = split(lp, steps, partners.charges, storages.len());
    let forced: Vec<HeatingLoadKind> = model.heat_pumps.iter().flat_map(|h| h.forced_loads.iter().copied()).collect();
    let blocked: Vec<bool> = storages.iter().map(|s| only_forced(heating, s, &forced)).collect();
    for columns in charges.iter().zip(&blocked).filter(|&(_, &blocked)| blocked).map(|(columns, _)| columns) {
        columns.iter().for_each(|&c| lp.upper[c..c + steps].fill(0.0));
    }
    let st = model.steam_turbine.as_ref().filter(|_| partners.turbine.is_some());
    let turbine_charges = match (partners.turbine.and_then(|t| t.heat_to_storage), st) {
        (Some(column), Some(st)) => {
            let takers = turbine_takers(st, storages, &blocked);
            if takers.is_empty() {
                lp.upper[column..column + steps].fill(0.0);
            }
            let parts = split(lp, steps, &[column], takers.len());
            let mut per_storage = vec![None; storages.len()];
            for (b, part) in takers.into_iter().zip(parts) {
                per_storage[b] = part.first().copied();
            }
            per_storage
        }
        _ => vec![None; storages.len()],
    };
    let peak = (0..steps).map(|t| heating.total_kw(t)).fold(0.0, f64::max);
    let mut layouts = Vec::new();
    for (b, s) in storages.iter().enumerate() {
        charges[b].extend(turbine_charges[b]);
        charges[b].extend(partners.dedicated.iter().filter(|&&(to, _)| to == b).map(|&(_, column)| column));
        let serves_any = HeatingLoadKind::ALL.into_iter().any(|kind| s.serves(kind));
        let columns = add_storage(lp, model, &s.tank, &charges[b], st.is_some() && s.can_supply_steam_turbine && serves_any);
        if let Some(limits) = &s.high_temp {
            add_high_temp_limits(lp, model, &s.tank, limits, &columns, &charges[b], peak);
        }
        if st.is_some() && s.can_supply_steam_turbine && s.supply_turbine_only {
            lp.upper[columns.discharge..columns.discharge + steps].fill(0.0);
        }
        let served: Vec<HeatingLoadKind> = HeatingLoadKind::ALL.into_iter().filter(|&kind| s.serves(kind)).collect();
        add_served_row(lp, model, heating, &[columns.discharge], &served, partners);
        layouts.push(HotStorageLayout { kwh: columns.kwh, discharge: columns.discharge, to_turbine: columns.to_turbine, soc: columns.soc, turbine_charge: turbine_charges[b] });
    }
    if storages.len() > 1 {
        let served: Vec<HeatingLoadKind> = HeatingLoadKind::ALL.into_iter().filter(|&kind| heating.storage_serves(kind)).collect();
        let discharges: Vec<usize> = layouts.iter().map(|l| l.discharge).collect();
        add_served_row(lp, model, heating, &discharges, &served, partners);
    }
    layouts
}

/// The storages (indices) the turbine's heat may charge (none of the `blocked` ones).
fn turbine_takers(st: &SteamTurbine, storages: &[HotStorage], blocked: &[bool]) -> Vec<usize> {
    let takes = |b: usize| !(blocked[b] || (storages[b].can_supply_steam_turbine && storages[b].supply_turbine_only));
    if st.charge_storage_only {
        let preferred = storages.iter().position(|s| s.high_temp.is_none()).or_else(|| storages.iter().position(|s| s.high_temp.is_some()));
        preferred.filter(|&b| takes(b)).into_iter().collect()
    } else {
        (0..storages.len()).filter(|&b| takes(b)).collect()
    }
}

/// The series charging each of `parts` storages: the sources themselves for one, a split series
/// each (Σ parts = Σ sources) for more.
fn split(lp: &mut LinearProgram, steps: usize, sources: &[usize], parts: usize) -> Vec<Vec<usize>> {
    match (parts, sources.is_empty()) {
        (0, _) => return Vec::new(),
        (1, _) => return vec![sources.to_vec()],
        (_, true) => return vec![Vec::new(); parts],
        _ => {}
    }
    let columns: Vec<usize> = (0..parts).map(|_| lp.series(steps, |_| 0.0)).collect();
    for t in 0..steps {
        let mut terms: Vec<(usize, f64)> = columns.iter().map(|&c| (c + t, 1.0)).collect();
        terms.extend(sources.iter().map(|&s| (s + t, -1.0)));
        lp.row(&terms, RowKind::Equal, 0.0);
    }
    columns.into_iter().map(|c| vec![c]).collect()
}

/// Σ discharges ≤ what the loads `served` leave after the heat pumps' and the GHP's heat to them (plus the
/// absorption chiller's draw when its load is one of them); a bound when nothing else enters.
fn add_served_row(lp: &mut LinearProgram, model: &Model, heating: &Heating, discharges: &[usize], served: &[HeatingLoadKind], partners: StoragePartners) {
    let draw = partners.cooling.filter(|c| c.heating_load.is_some_and(|kind| served.contains(&kind)));
    for t in (0..model.steps()).filter(|&t| model.has_grid(t)) {
        let servable: f64 = heating.loads.iter().filter(|load| served.contains(&load.kind)).map(|load| load.thermal_kw[t]).sum();
        let mut terms: Vec<(usize, f64)> = draw.into_iter().flat_map(|c| c.heat_draw_terms(t)).map(|(j, a)| (j, -a)).collect();
        let pumps = partners.heat_pumps.into_iter().flat_map(|h| h.techs.iter()).flat_map(|c| c.to_load.iter()).filter(|(k, _)| served.contains(k));
        terms.extend(pumps.map(|&(_, start)| (start + t, 1.0)));
        let ghp = partners.ghp.map_or([None, None], |g| {
            [g.heat_to_space.filter(|_| served.contains(&HeatingLoadKind::SpaceHeating)), g.heat_to_dhw.filter(|_| served.contains(&HeatingLoadKind::DomesticHotWater))]
        });
        terms.extend(ghp.into_iter().flatten().map(|start| (start + t, 1.0)));
        if let ([discharge], true) = (discharges, terms.is_empty()) {
            lp.upper[discharge + t] = lp.upper[discharge + t].min(servable);
        } else {
            terms.extend(discharges.iter().map(|&d| (d + t, 1.0)));
            lp.row(&terms, RowKind::LessOrEqual, servable);
        }
    }
}

impl HotStorageLayout {
    /// Reads the storage's dispatch; values at or below `tolerance` become 0.
    pub fn dispatch(&self, x: &[f64], steps: usize, tolerance: f64) -> HotStorageDispatch {
        let clean = |v: f64| if v <= tolerance { 0.0 } else { v };
        let series = |start: Option<usize>| match start {
            Some(s) => x[s..s + steps].iter().map(|&v| clean(v)).collect(),
            None => vec![0.0; steps],
        };
        HotStorageDispatch {
            kwh: clean(x[self.kwh]),
            discharge_kw: series(Some(self.discharge)),
            to_turbine_kw: series(self.to_turbine),
            soc_kwh: series(Some(self.soc)),
            turbine_charge_kw: series(self.turbine_charge),
        }
    }
}

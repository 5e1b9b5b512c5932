//! Geothermal heat pumps from given GhpGhx designs (REopt.jl 0.56.4 `add_ghp_constraints` in
//! `src/constraints/ghp_constraints.jl`, the GHP terms of `add_elec_load_balance_constraints`
//! and the objective in `src/core/reopt.jl`). The optimal case chooses one design option g or
//! none; a chosen design's heating, cooling and electricity are fixed series (`ghp_inputs`).
//!
//! Variables: a binary `b_g` per option; with heating, per step t the GHP's heat to the space
//! heating `GS_t`, with `can_serve_dhw` to the hot water `GD_t`, with a hot tank to it `GT_t`
//! (thermal kW, ≥ 0). Rows (H_gt = heating reduction + served heating, Hs_gt the served part
//! alone, C_gt likewise for cooling, E_gt the electricity):
//!
//! ```text
//! Choice:   Σ_g b_g ≤ 1   (= 1 with require_ghp_purchase)
//! Heating:  GS_t + GD_t + GT_t ≤ Σ_g H_gt·b_g,  GD_t ≤ Σ_g Hs_gt·b_g,  GS_t ≤ SH_t,  GD_t ≤ DHW_t
//! Cooling:  Σ_g C_gt·b_g joins the chillers' served cooling (`cooling`), or the existing
//!           chiller serves the rest of the load
//! Electric: Σ_g (C_gt/cop_e − E_gt)·b_g is on-site supply against ElectricLoad, whose base
//!           holds the existing chiller serving the whole cooling load
//! ```
//!
//! The service fixes the GHP's heating production and lets it go to waste or to the hot tank,
//! so its heat to load is at most that production; each heating load takes at most its own
//! load from it. Objective ($ present value) per option:
//! tpf · installed_g + pwf_om · (1 − τ_w) · om_g − avoided capex − GHX residual value
//! + Σ_t (tier-0 energy value) · (E_gt − C_gt/cop_e).

use super::{energy_value, Case, CostFactors, LinearProgram, RowKind};
use crate::optimizer::model::{HeatingLoadKind, Model};

/// Where the GHP decisions live in the LP.
#[derive(Debug, Clone, PartialEq)]
pub struct GhpLayout {
    /// One binary per option.
    pub bins: Vec<usize>,
    /// The GHP's heat to the space heating, the hot water and the hot tank (first of a series;
    /// None without heating, DHW service or a tank).
    pub heat_to_space: Option<usize>,
    pub heat_to_dhw: Option<usize>,
    pub heat_to_storage: Option<usize>,
    /// Per option and step: its cooling (thermal kW) and the electricity it saves against the
    /// base in ElectricLoad (kW, negative when it uses more).
    cooling_kw: Vec<Vec<f64>>,
    electric_saving_kw: Vec<Vec<f64>>,
}

/// Adds the GHP choice of the optimal case; None without GHP or in business as usual.
pub(super) fn add_ghp(lp: &mut LinearProgram, model: &Model, factors: &CostFactors, case: &Case) -> Option<GhpLayout> {
    let ghp = model.ghp.as_ref().filter(|_| !case.bau)?;
    let steps = model.steps();
    let chiller_electric_per_kw = model.cooling.as_ref().map_or(0.0, |c| 1.0 / c.existing_chiller.cop);
    let cooling_kw: Vec<Vec<f64>> = (0..ghp.options.len()).map(|g| (0..steps).map(|t| ghp.cooling_kw(g, t)).collect()).collect();
    let electric_saving_kw: Vec<Vec<f64>> = ghp
        .options
        .iter()
        .zip(&cooling_kw)
        .map(|(option, cooling)| (0..steps).map(|t| cooling[t] * chiller_electric_per_kw - option.electric_kw[t]).collect())
        .collect();
    let bins: Vec<usize> = ghp
        .options
        .iter()
        .zip(&electric_saving_kw)
        .map(|(option, saving)| {
            let energy: f64 = (0..steps).map(|t| energy_value(model, factors, t) * saving[t]).sum();
            let cost = factors.third_party_factor * option.installed_cost + factors.om_factor() * option.om_cost_year_one
                - ghp.avoided_capex
                - option.ghx_residual_value
                - energy;
            lp.binary(cost)
        })
        .collect();
    let choice: Vec<(usize, f64)> = bins.iter().map(|&b| (b, 1.0)).collect();
    lp.row(&choice, if ghp.require_purchase { RowKind::Equal } else { RowKind::LessOrEqual }, 1.0);
    let mut layout = GhpLayout { bins, heat_to_space: None, heat_to_dhw: None, heat_to_storage: None, cooling_kw, electric_saving_kw };
    if let Some(heating) = &model.heating {
        let bounded = |lp: &mut LinearProgram, kind: HeatingLoadKind| {
            let start = lp.series(steps, |_| 0.0);
            let load = heating.load_kw(kind, steps);
            (0..steps).for_each(|t| lp.upper[start + t] = load[t]);
            start
        };
        let space = bounded(lp, HeatingLoadKind::SpaceHeating);
        let dhw = ghp.can_serve_dhw.then(|| bounded(lp, HeatingLoadKind::DomesticHotWater));
        let storage = (!heating.hot_storages.is_empty()).then(|| lp.series(steps, |_| 0.0));
        for t in 0..steps {
            let mut terms: Vec<(usize, f64)> = [Some(space), dhw, storage].into_iter().flatten().map(|s| (s + t, 1.0)).collect();
            terms.extend(layout.bins.iter().enumerate().map(|(g, &b)| (b, -ghp.heating_kw(g, t))));
            lp.row(&terms, RowKind::LessOrEqual, 0.0);
            if let Some(dhw) = dhw {
                let mut terms = vec![(dhw + t, 1.0)];
                terms.extend(layout.bins.iter().enumerate().map(|(g, &b)| (b, -ghp.options[g].heating_served_kw[t])));
                lp.row(&terms, RowKind::LessOrEqual, 0.0);
            }
        }
        layout = GhpLayout { heat_to_space: Some(space), heat_to_dhw: dhw, heat_to_storage: storage, ..layout };
    }
    Some(layout)
}

impl GhpLayout {
    /// The chosen option's cooling in step t as terms (thermal kW).
    pub fn cooling_terms(&self, t: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.bins.iter().zip(&self.cooling_kw).map(move |(&b, cooling)| (b, cooling[t]))
    }

    /// `sign ·` the electricity the GHP saves in step t against the base in ElectricLoad.
    pub fn electric_terms(&self, t: usize, sign: f64) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.bins.iter().zip(&self.electric_saving_kw).map(move |(&b, saving)| (b, sign * saving[t]))
    }

    /// The chosen option's index (None when none is chosen).
    pub fn chosen(&self, x: &[f64]) -> Option<usize> {
        self.bins.iter().position(|&b| x[b] > 0.5)
    }

    /// The cooling and the electricity saved in step t at a solution (kW).
    pub fn cooling_at(&self, x: &[f64], t: usize) -> f64 {
        self.cooling_terms(t).map(|(j, a)| a * x[j]).sum()
    }

    pub fn electric_saving_at(&self, x: &[f64], t: usize) -> f64 {
        self.electric_terms(t, 1.0).map(|(j, a)| a * x[j]).sum()
    }
}

/// The GHP part of a solution: the option chosen and its heat to each use (thermal kW per step).
#[derive(Debug, Clone, PartialEq)]
pub struct GhpDispatch {
    pub chosen: Option<usize>,
    pub to_space_heating_kw: Vec<f64>,
    pub to_dhw_kw: Vec<f64>,
    pub to_storage_kw: Vec<f64>,
}

impl GhpLayout {
    /// Reads the GHP decisions; values at or below `tolerance` become 0.
    pub fn dispatch(&self, x: &[f64], steps: usize, tolerance: f64) -> GhpDispatch {
        let series = |start: Option<usize>| match start {
            Some(s) => x[s..s + steps].iter().map(|&v| if v <= tolerance { 0.0 } else { v }).collect(),
            None => vec![0.0; steps],
        };
        GhpDispatch {
            chosen: self.chosen(x),
            to_space_heating_kw: series(self.heat_to_space),
            to_dhw_kw: series(self.heat_to_dhw),
            to_storage_kw: series(self.heat_to_storage),
        }
    }
}

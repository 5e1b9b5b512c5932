//! The mixed-integer program: cost factors (present worth of every cost item), the variants
//! solved (`Case`), and a solver-neutral program (`LinearProgram`, with integer columns for the
//! service's binaries) with the index map (`Layout`) to read a solution back as sizes and
//! dispatch series.
//!
//! Notation: t = time step (T = 8760·n steps, Δ = 1/n h), m = month, i = PV array, k = tier,
//! N = analysis years, d_o/d_w = offtaker/owner discount rates, τ_o/τ_w = their tax rates,
//! e_e/e_om = electricity and O&M escalation, u = pwf_e·(1 − τ_o) (utility cost factor).
//!
//! Present-worth factors (see `finance`):
//! - pwf_e  = Σ_{y=1..N} ((1+e_e)/(1+d_o))^y     — year-one utility costs and export credits
//! - pwf_om = Σ_{y=1..N} ((1+e_om)/(1+d_w))^y    — year-one O&M costs
//! - lvl_i  = levelization factor of array i with degradation g_i (production · lvl = average year)
//! - npc(·) = effective capital cost per unit after ITC, MACRS, rebates and replacements
//!
//! Variables (all ≥ 0; kW for flows, kWh for energy):
//! - PV array i: new capacity `new_i` = Σ_k `seg_ik` (cost-curve pieces, 0 ≤ seg_ik ≤ width).
//!   The arrays share `pv_load` and `pv_storage` per step; each group of arrays with the same
//!   export and curtailment flags has its own exports `pv_nem`, `pv_whl`, `pv_exc` (the bins it
//!   may use; see `exports` for the rows that tie them to the group's production). Below,
//!   `pv_nem` etc. stand for the sum over the groups.
//! - Grid: per step `grid_storage`; with K > 1 energy tiers, `tier_k[t]` for k = 1..K−1 (the
//!   purchase in tier 0 is what is left).
//! - Storage: `kw`, `kwh`; per step `discharge` (to load) and `soc` (kWh at the end of the step);
//!   `soc_start` when the initial state of charge is optimized.
//! - Demand: one variable per tier of each billed peak: month (flat demand), time-of-use
//!   period, coincident peak period; lookback peaks; the minimum-charge adder.
//!
//! Two flows are substituted out to keep the LP small (they are the slacks of two rows):
//!
//! ```text
//! purchase_t   = load_t − pv_load − discharge + grid_storage                       (≥ 0)
//! pv_curtail_t = Σ_i pf_it·lvl_i·(existing_i + new_i) − pv_load − pv_storage − exports (≥ 0;
//!                = 0 when the PV cannot curtail)
//! ```
//!
//! Constraints, for every t (m(t) its month):
//!
//! ```text
//! PV:      pv_load + pv_storage + pv_nem + pv_whl + pv_exc ≤ Σ_i pf_it·lvl_i·(existing_i + new_i)
//! Load:    pv_load + discharge ≤ load_t
//! SOC:     soc_t = soc_{t−1} + Δ(η_c·pv_storage + η_c·grid_storage − discharge/η_d),
//!          soc_{−1} = soc_init·kwh (or soc_start = soc_{T−1} when optimized)
//! Power:   pv_storage + grid_storage + discharge ≤ kw
//! Energy:  soc_min·kwh ≤ soc_t ≤ kwh;  soc_{t−1} + Δ(η_c·pv_storage + η_c·grid_storage) ≤ kwh
//! Tiers:   Σ_{k≥1} tier_k[t] ≤ purchase_t;  Δ Σ_{t∈m} (tier-k purchase) ≤ limit_mk
//! Peaks:   purchase_t ≤ Σ_k peak_gk for every billed peak g whose steps hold t;  peak_gk ≤ limit_gk
//! ```
//!
//! and once: Σ_t (pv_nem + chp_nem) ≤ Σ_t purchase_t (net metering credits at most the energy
//! bought; CHP's exports are its own series, see `chp`), the net-metering or interconnection cap
//! on the kW of the arrays and CHP that can net meter (`exports::add_net_metering_size_cap`),
//! min_dur·kw ≤ kwh ≤ max_dur·kw, size bounds, shared roof/land space, capex bounds, and:
//!
//! ```text
//! Lookback (range R):  look_m ≥ purchase_t for t in the R months before m;  Σ_k peak_mk ≥ p·look_m
//! Lookback (months L): look ≥ Σ_k peak_lk for l ∈ L;  Σ_k peak_mk ≥ p·look
//! Minimum charge:      adder ≥ min_annual − pwf_e·(energy + demand − exports + fixed)
//! ```
//!
//! (the minimum is compared with the lifecycle bill, as the service does).
//!
//! Objective (lifecycle cost, $ present value; `Costs` of the service):
//!
//! ```text
//!   Σ_ik npc_ik·seg_ik + pwf_om·(1−τ_w)·Σ_i om_i·(existing_i + new_i)
//! + (npc_kw + pwf_om·(1−τ_w)·f_om·c_kw)·kw + (npc_kwh + pwf_om·(1−τ_w)·f_om·c_kwh)·kwh
//! + [storage built with a cost constant] (npc_c + pwf_om·(1−τ_w)·f_om·c_c)
//! + u·( Δ Σ_t Σ_k r_kt·tier-k purchase + Σ_g Σ_k D_gk·peak_gk + 12·fixed + 0.999·adder/pwf_e
//!       − Δ Σ_t (nem_t·pv_nem + w_t·pv_whl + x_t·pv_exc) )
//! ```
//!
//! minus, when `add_soc_incentive`, the average state of charge Σ_t soc_t / T ($1 per kWh of
//! average charge; in the objective only, not in the lifecycle cost). The tier-0 purchase terms
//! become a constant (the bill without PV and storage) minus credits on pv_load and discharge.
//!
//! The program is built in `build` (this file) from one file per family of rows, as REopt.jl's
//! `src/constraints`: `cost_factors` (present worth, tax treatment, cost curves), `program`
//! (the `LinearProgram`, `Case`, `Layout` and `Dispatch` types and reading a solution), `pv`,
//! `storage`, `exports` (export groups), `load_balance`, `generator` (with its on/off binary), `operating_reserves`,
//! `electric_tariff` (energy tiers, demand peaks, lookback, net-metering cap, minimum charge),
//! `capex` (capital cost bounds), `microgrid` (the outage microgrids), `emissions` (emissions
//! costs in the objective, renewable-electricity and CO2-reduction bounds), `degradation` (the
//! battery's state of health and its maintenance costs, from `storage`) and `heating` (the heat
//! balance and the boilers, independent of the electric rows) and `chp` (combined heat and power: its electricity joins the
//! load balance and the electric storage, its heat the heat balance and the hot storage) and
//! `cooling` (the absorption chiller and the chilled-water tank: the electricity the chillers
//! save joins the on-site supply, the absorption chiller's heat draw the heat balance) and `ghp`
//! (the choice of one given geothermal heat pump design: its fixed heating, cooling and electricity).

use super::model::Model;

mod capex;
pub mod chp;
mod cost_factors;
pub mod cooling;
pub mod degradation;
mod electric_tariff;
pub mod emissions;
pub mod exports;
mod generator;
pub mod ghp;
pub mod heat_pumps;
pub mod heating;
pub mod hot_storages;
mod load_balance;
pub mod microgrid;
mod operating_reserves;
mod program;
mod pv;
pub mod steam_turbine;
mod storage;
mod water_tank;

use capex::add_capex_bounds;
pub use cost_factors::{
    fuel_present_worth, production_incentive_present_worth, region_incentives, CostFactors, GeneratorCosts, PricedSegment, ProductionIncentiveValue,
    StorageCosts,
};
use cost_factors::offgrid_constant_costs;
use electric_tariff::{add_demand, add_energy_tiers, add_lookback, add_min_charge, add_net_metering_cap};
pub use electric_tariff::NO_TIER_LIMIT;
use exports::{add_export_rows, add_net_metering_size_cap, add_no_simultaneous_export_import, export_groups, export_series, valued_bins};
pub use exports::exporters;
use generator::add_generator;
pub use generator::UNLIMITED_FUEL_GAL;
use load_balance::add_load_balance;
pub use load_balance::load_target;
use operating_reserves::add_operating_reserves;
pub use program::{
    pv_production_by_array_kw, Case, Dispatch, ExportBins, Expression, Layout, LinearProgram, MicrogridMembers, PeakVariables, RowKind,
    SizeChoice,
};
use pv::{add_land_row, add_production_incentives, add_pv_balance, add_pv_size_rows, pv_size_variables};
use storage::add_storage;

/// $ present value of the tier-0 energy a kW of on-site supply saves in step t (0 without the
/// grid: nothing is bought then).
fn energy_value(model: &Model, factors: &CostFactors, t: usize) -> f64 {
    if model.has_grid(t) {
        factors.utility_factor() * model.step_hours() * model.tariff.energy_rates[0][t]
    } else {
        0.0
    }
}

/// The LP of one case, with the either-or choices of its falling tiers.
pub struct Program {
    pub lp: LinearProgram,
    pub layout: Layout,
}

/// Builds the LP of one case.
pub fn build(model: &Model, factors: &CostFactors, case: &Case) -> Program {
    let mut lp = LinearProgram::default();
    let steps = model.steps();
    let utility = factors.utility_factor();
    let pv_exists = !model.pvs.is_empty() && case.pv != SizeChoice::Absent;
    let storage = model.storage.as_ref().filter(|_| case.storage);
    let rates = &model.tariff;
    // Tier-0 energy cost per kW of grid purchase in step t; on-site supply earns it back.
    let energy = |t: usize| energy_value(model, factors, t);
    lp.objective_constant += (0..steps).map(|t| energy(t) * model.load_kw[t]).sum::<f64>();
    lp.objective_constant += utility * 12.0 * rates.fixed_monthly_charge;
    lp.objective_constant += offgrid_constant_costs(model, factors);

    let (pv_new, pv_segments) = pv_size_variables(&mut lp, model, factors, case);
    let pv_load = pv_exists.then(|| lp.series(steps, |t| -energy(t)));
    let pv_storage = (pv_exists && storage.is_some()).then(|| lp.series(steps, |_| 0.0));
    let valued = valued_bins(case).map(|bin| bin && pv_exists);
    let export_groups = if pv_exists { export_groups(&mut lp, model, factors, valued) } else { Vec::new() };
    let grid_storage = storage.filter(|s| s.can_grid_charge).map(|_| lp.series(steps, energy));
    if let Some(start) = grid_storage {
        (0..steps).filter(|&t| !model.has_grid(t)).for_each(|t| lp.upper[start + t] = 0.0);
    }

    let mut layout = Layout {
        steps,
        pv_new,
        pv_segments,
        pv_load,
        pv_storage,
        export_groups,
        grid_storage,
        storage_kw: None,
        storage_kwh: None,
        discharge: None,
        soc: None,
        soc_start: None,
        energy_tiers: Vec::new(),
        monthly_peaks: Vec::new(),
        tou_peaks: Vec::new(),
        coincident_peaks: Vec::new(),
        min_charge_adder: None,
        generator_new: None,
        generator_size_bound: 0.0,
        generator_load: Vec::new(),
        generator_storage: Vec::new(),
        generator_curtail: Vec::new(),
        generator_fuel: Vec::new(),
        battery_reserve: None,
        microgrid: None,
        heating: None,
        chp: None,
        cooling: None,
        heat_pumps: None,
        degradation: None,
        steam_turbine: None,
        ghp: None,
    };
    add_generator(&mut lp, &mut layout, model, factors, case);
    layout.chp = chp::add_chp(&mut lp, model, factors, case);
    layout.steam_turbine = steam_turbine::add_steam_turbine(&mut lp, model, factors, case);
    layout.ghp = ghp::add_ghp(&mut lp, model, factors, case);
    layout.heat_pumps = heat_pumps::add_heat_pumps(&mut lp, model, factors, case);
    layout.cooling = cooling::add_cooling(&mut lp, model, factors, case, layout.ghp.as_ref(), layout.heat_pumps.as_ref());
    if let (Some(s), Some(costs)) = (storage, factors.storage.as_ref()) {
        add_storage(&mut lp, &mut layout, model, factors, s, costs);
    }
    add_pv_balance(&mut lp, &layout, model, factors, case);
    add_export_rows(&mut lp, &layout, model, factors);
    add_no_simultaneous_export_import(&mut lp, &layout, model);
    add_load_balance(&mut lp, &layout, model, case);
    add_operating_reserves(&mut lp, &mut layout, model, factors, case);
    layout.microgrid = microgrid::add(&mut lp, &layout, model, factors, case);
    add_energy_tiers(&mut lp, &mut layout, model, factors);
    add_demand(&mut lp, &mut layout, model, factors);
    add_lookback(&mut lp, &layout, model);
    add_net_metering_cap(&mut lp, &layout, model);
    add_pv_size_rows(&mut lp, &layout, model);
    add_land_row(&mut lp, &layout, model);
    add_net_metering_size_cap(&mut lp, &layout, model, case);
    add_production_incentives(&mut lp, &layout, model, factors, case);
    add_capex_bounds(&mut lp, &layout, model, case);
    add_min_charge(&mut lp, &mut layout, model, factors);
    let partners = heating::HeatPartners {
        chp: layout.chp.as_ref(),
        cooling: layout.cooling.as_ref(),
        turbine: layout.steam_turbine.as_ref(),
        ghp: layout.ghp.as_ref(),
        heat_pumps: layout.heat_pumps.as_ref(),
    };
    layout.heating = heating::add_heating(&mut lp, model, factors, case, partners);
    emissions::add_emissions(&mut lp, &layout, model, factors, case);
    Program { lp, layout }
}

/// `sign ·` the on-site supply to load in step t: pv_load + discharge + generator_load + CHP and
/// steam turbine to load + the electricity the chillers (`cooling`) and the GHP (`ghp`) save
/// against the base in ElectricLoad, less the electricity of the electric heating techs
/// (`heat_pumps`).
fn supply_terms(layout: &Layout, t: usize, sign: f64) -> impl Iterator<Item = (usize, f64)> + '_ {
    let chp = layout.chp.as_ref().map(|c| c.to_load);
    let turbine = layout.steam_turbine.as_ref().map(|s| s.to_load);
    let series = [layout.pv_load, layout.discharge, chp, turbine].into_iter().flatten().map(move |start| (start + t, sign));
    let cooling = layout.cooling.iter().flat_map(move |c| c.electric_terms(t, sign));
    let cooling = cooling.chain(layout.ghp.iter().flat_map(move |g| g.electric_terms(t, sign)));
    let heat_pumps = layout.heat_pumps.iter().flat_map(move |h| h.electric_terms(t, sign));
    series.chain(layout.generator_load.get(t).copied().flatten().map(move |j| (j, sign))).chain(cooling).chain(heat_pumps)
}

/// The flows charging the electric storage in step t (kW): from PV, the grid, the generator, CHP and the steam turbine.
fn charge_flows(layout: &Layout, t: usize) -> Vec<usize> {
    let mut flows = Vec::with_capacity(2);
    flows.extend(layout.pv_storage.map(|p| p + t));
    flows.extend(layout.grid_storage.map(|g| g + t));
    flows.extend(layout.generator_storage.get(t).copied().flatten());
    flows.extend(layout.chp.as_ref().and_then(|c| c.to_storage).map(|c| c + t));
    flows.extend(layout.steam_turbine.as_ref().and_then(|s| s.to_storage).map(|s| s + t));
    flows
}

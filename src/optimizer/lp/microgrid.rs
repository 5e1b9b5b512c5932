//! The outage microgrids of the multiple-outage form (`outage_start_time_steps`,
//! `outage_durations`, `outage_probabilities`): for every duration scenario s and start z, a
//! separate dispatch of the site's own capacity over the outage's steps, coupled to the
//! year's dispatch only through the sizes and the state of charge at the start. The service's
//! formulation, written for this LP:
//!
//! ```text
//! per outage step k (model step τ = (z + k) mod T), for the members of the microgrid:
//!   ren_load + ren_storage ≤ Σ_i pf_iτ·lvl_i·(existing_i + new_i)       (the rest is curtailed)
//!   gen_load + gen_storage + gen_curtailed ≤ existing_g + new_g
//!   (with turndown or intercept) the year's on/off rows on that output, turndown always
//!   chp_load + chp_storage ≤ chp_kw                    (maintenance and turndown ignored)
//!   ren_load + gen_load + chp_load + discharge ≤ critical_τ   (= when k < min_resil_time_steps)
//!   soc_k = soc_{k−1} + Δ(η_c·(ren_storage + gen_storage + chp_storage) − discharge/η_d)
//!   soc_{−1} ≤ soc of the year's dispatch at the end of step z
//!   soc_min·kwh ≤ soc_k (when it applies in outages) ≤ kwh; charge + discharge ≤ kw;
//!   soc_{k−1} + Δ·η_c·charge ≤ kwh
//! per outage (s, z):
//!   Σ_k Δ·(slope·(gen_load + gen_storage + gen_curtailed) + intercept·on_k) ≤ fuel_avail_gal
//!   lost_s ≥ pwf_e·VOLL·Σ_k (critical − supply);  fuel_s ≥ $/gal·gallons
//!   chp_fuel_s ≥ $/kWh_z·Σ_k Δ·a_f·(chp_load + chp_storage)   ($/kWh of fuel at the start z)
//! objective: Σ_s p_s·(lost_s + fuel_s + chp_fuel_s) + upgrade costs of the members
//!            + 0.0001·Σ unserved kWh (not part of the lifecycle cost)
//! ```
//!
//! As the service does: the lost load is valued with pwf_e (every year), the outage fuel once
//! (not discounted, no tax); the microgrid sizes equal the sizes built
//! (`mg_tech_sizes_equal_grid_sizes`, its default); a member pays
//! `microgrid_upgrade_cost_fraction` of its capital cost (storage: of its whole capital cost,
//! cost constant included; CHP: of its net present capital, on the piece bought of a cost curve
//! of pieces, times the third-party factor as the service's `cap_cost_slope` terms). CHP joins only with a fuel line
//! through the origin (equal efficiencies at full and half load): with an intercept the
//! service's own row cannot be built (`model::resilience_inputs::check_chp_in_outages`), so its
//! on/off binary only lets it run and the linear fuel row
//! (`add_MG_CHP_fuel_burn_constraints`, `MGCHPFuelBurnConLinear`) is all there is; its
//! curtailment, free and fuel-burning, is never chosen and left out. Which technologies are
//! members is enumerated by `run` (each choice one case: exact), renewables only together with
//! storage, the generator or CHP. The
//! generator's on/off binary per outage step is the year's (`generator::add_on_off`: turndown
//! on its whole output, curtailment included, and the intercept's gallons per hour on) wherever
//! a turndown or an intercept makes it matter. One relaxation, stated in docs/design.md: the
//! service's 1 kW minimum microgrid size of a member, which only keeps its binary from being
//! free. Variables exist for the steps of
//! each scenario's own duration (the service also keeps the steps up to the longest duration,
//! which cost nothing).

use crate::optimizer::lp::chp::{capital_pieces, net_present_capital};
use crate::optimizer::lp::generator::{add_on_off, OnOffStep};
use crate::optimizer::lp::{Case, CostFactors, LinearProgram, Layout, MicrogridMembers as Members, RowKind, SizeChoice};
use crate::optimizer::model::Model;

/// Objective weight of a kWh of unserved critical load (the service's tie-breaker that serves
/// load in every outage, not only the costliest).
pub const UNSERVED_PENALTY_PER_KWH: f64 = 0.0001;

/// Variables of one outage step (None when the member or flow is absent).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepColumns {
    pub renewable_load: Option<usize>,
    pub renewable_storage: Option<usize>,
    pub generator_load: Option<usize>,
    pub generator_storage: Option<usize>,
    /// Output above what is used and its on/off binary (only where the binary matters).
    pub generator_curtailed: Option<usize>,
    pub generator_on: Option<usize>,
    pub chp_load: Option<usize>,
    pub chp_storage: Option<usize>,
    pub discharge: Option<usize>,
    pub soc: Option<usize>,
}

/// One outage (scenario s, start z): its steps' variables.
#[derive(Debug, Clone, PartialEq)]
pub struct OutageColumns {
    pub start: usize,
    pub steps: Vec<StepColumns>,
    pub soc_start: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MicrogridLayout {
    /// `outages[s][z]`.
    pub outages: Vec<Vec<OutageColumns>>,
    /// The lost-load cost and the generator's and CHP's fuel costs of the costliest start of
    /// each scenario.
    pub lost_cost: Vec<Option<usize>>,
    pub fuel_cost: Vec<Option<usize>>,
    pub chp_fuel_cost: Vec<Option<usize>>,
    pub members: Members,
}

/// One outage's dispatch (kW per outage step).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OutageDispatch {
    pub critical_load: Vec<f64>,
    pub renewable_load: Vec<f64>,
    pub renewable_storage: Vec<f64>,
    pub renewable_curtailed: Vec<f64>,
    pub generator_load: Vec<f64>,
    pub generator_storage: Vec<f64>,
    /// Run above what is used (at its turndown), burning fuel all the same.
    pub generator_curtailed: Vec<f64>,
    pub chp_load: Vec<f64>,
    pub chp_storage: Vec<f64>,
    pub discharge: Vec<f64>,
    /// kWh at the end of each outage step.
    pub soc_kwh: Vec<f64>,
    pub unserved: Vec<f64>,
    pub fuel_gal: f64,
    /// CHP fuel burned in the outage (kWh).
    pub chp_fuel_kwh: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MicrogridDispatch {
    /// `outages[s][z]`.
    pub outages: Vec<Vec<OutageDispatch>>,
    pub members: Members,
}

/// Adds the microgrids of a case; None without the multiple-outage form.
pub fn add(lp: &mut LinearProgram, layout: &Layout, model: &Model, factors: &CostFactors, case: &Case) -> Option<MicrogridLayout> {
    let outages = model.outages.as_ref()?;
    let members = case.microgrid;
    let steps = model.steps();
    let dt = model.step_hours();
    let resilience = &model.resilience;
    let min_resil = if case.bau { 0 } else { resilience.min_resil_time_steps };
    let renewables = members.renewables && case.pv != SizeChoice::Absent && !model.pvs.is_empty();
    let generator = model.generator.as_ref().filter(|_| members.generator && case.generator != SizeChoice::Absent);
    let storage = match (&model.storage, layout.storage_kw, layout.storage_kwh, layout.soc) {
        (Some(s), Some(kw), Some(kwh), Some(soc)) if members.storage && case.storage => Some((s, kw, kwh, soc)),
        _ => None,
    };
    let chp = model.chp.as_ref().zip(layout.chp.as_ref()).filter(|_| members.chp && !case.bau);
    let lost_value = factors.pwf_e * resilience.value_of_lost_load_per_kwh;
    let gallons_per_kwh = factors.generator.map_or(0.0, |c| c.gallons_per_kwh);
    let mut layout_outages = Vec::with_capacity(outages.durations.len());
    let mut lost_cost = Vec::with_capacity(outages.durations.len());
    let mut fuel_cost = Vec::with_capacity(outages.durations.len());
    let mut chp_fuel_cost = Vec::with_capacity(outages.durations.len());
    for (&duration, &probability) in outages.durations.iter().zip(&outages.probabilities) {
        let lost = (lost_value > 0.0).then(|| lp.variable(probability, 0.0, f64::INFINITY));
        let fuel = generator.filter(|g| g.fuel_cost_per_gallon > 0.0).map(|_| lp.variable(probability, 0.0, f64::INFINITY));
        let chp_fuel = chp.filter(|(c, _)| outages.starts.iter().any(|&z| c.burner.fuel_cost_per_kwh[z] > 0.0)).map(|_| lp.variable(probability, 0.0, f64::INFINITY));
        lost_cost.push(lost);
        fuel_cost.push(fuel);
        chp_fuel_cost.push(chp_fuel);
        let mut by_start = Vec::with_capacity(outages.starts.len());
        for &start in &outages.starts {
            let soc_start = storage.map(|(_, _, _, _)| lp.variable(0.0, 0.0, f64::INFINITY));
            if let (Some(first), Some((_, _, _, soc))) = (soc_start, storage) {
                lp.row(&[(first, 1.0), (soc + start, -1.0)], RowKind::LessOrEqual, 0.0);
            }
            let mut columns = Vec::with_capacity(duration);
            let mut supply_total: Vec<(usize, f64)> = Vec::new();
            let mut gallons: Vec<(usize, f64)> = Vec::new();
            let mut chp_fuel_kwh: Vec<(usize, f64)> = Vec::new();
            let mut critical_total = 0.0;
            for k in 0..duration {
                let tau = outages.step(start, k, steps);
                let critical = model.critical_load_kw[tau];
                critical_total += critical;
                let supply_cost = -UNSERVED_PENALTY_PER_KWH * dt;
                let mut step = StepColumns::default();
                if renewables {
                    step.renewable_load = Some(lp.variable(supply_cost, 0.0, f64::INFINITY));
                    step.renewable_storage = storage.map(|_| lp.variable(0.0, 0.0, f64::INFINITY));
                    let mut row: Vec<(usize, f64)> = [step.renewable_load, step.renewable_storage].into_iter().flatten().map(|j| (j, 1.0)).collect();
                    let mut existing = 0.0;
                    for (i, pv) in model.pvs.iter().enumerate() {
                        let per_kw = pv.production_factor[tau] * factors.levelization[i];
                        existing += per_kw * pv.existing_kw;
                        if let Some(new) = layout.pv_new[i] {
                            row.push((new, -per_kw));
                        }
                    }
                    lp.row(&row, RowKind::LessOrEqual, existing);
                }
                if let Some(g) = generator {
                    step.generator_load = Some(lp.variable(supply_cost, 0.0, f64::INFINITY));
                    step.generator_storage = storage.map(|_| lp.variable(0.0, 0.0, f64::INFINITY));
                    // On at its turndown above what is used, the rest is curtailed (the service's
                    // dvMGCurtail); its fuel is burnt all the same.
                    step.generator_curtailed = g.needs_on_off().then(|| lp.variable(0.0, 0.0, f64::INFINITY));
                    let output: Vec<(usize, f64)> =
                        [step.generator_load, step.generator_storage, step.generator_curtailed].into_iter().flatten().map(|j| (j, 1.0)).collect();
                    gallons.extend(output.iter().map(|&(j, _)| (j, dt * gallons_per_kwh)));
                    let mut row = output.clone();
                    row.extend(layout.generator_new.map(|j| (j, -1.0)));
                    lp.row(&row, RowKind::LessOrEqual, g.existing_kw);
                    if g.needs_on_off() {
                        let on_off = OnOffStep { output: &output, dt, size_bound: layout.generator_size_bound, turndown_applies: true, cost_per_hour_on: 0.0 };
                        step.generator_on = Some(add_on_off(lp, layout, g, &on_off, &mut gallons));
                    }
                }
                if let Some((c, c_layout)) = chp {
                    // Maintenance is ignored in outages (the service's production factor plus
                    // unavailability is 1) and so is the turndown: its on binary only lets it run.
                    step.chp_load = Some(lp.variable(supply_cost, 0.0, f64::INFINITY));
                    step.chp_storage = storage.map(|_| lp.variable(0.0, 0.0, f64::INFINITY));
                    let output: Vec<(usize, f64)> = [step.chp_load, step.chp_storage].into_iter().flatten().map(|j| (j, 1.0)).collect();
                    chp_fuel_kwh.extend(output.iter().map(|&(j, _)| (j, dt * c.fuel_slope)));
                    let mut row = output;
                    row.push((c_layout.size, -1.0));
                    lp.row(&row, RowKind::LessOrEqual, 0.0);
                }
                if let Some((s_model, kw, kwh, _)) = storage {
                    step.discharge = Some(lp.variable(supply_cost, 0.0, f64::INFINITY));
                    step.soc = Some(lp.variable(0.0, f64::NEG_INFINITY, f64::INFINITY));
                    let charges: Vec<usize> = [step.renewable_storage, step.generator_storage, step.chp_storage].into_iter().flatten().collect();
                    let previous = if k == 0 { soc_start } else { columns.last().and_then(|c: &StepColumns| c.soc) };
                    let (discharge, soc) = (step.discharge.unwrap_or(0), step.soc.unwrap_or(0));
                    let (eta_c, eta_d) = (s_model.charge_efficiency(), s_model.discharge_efficiency());
                    // soc − previous − Δη_c·charge + Δ·discharge/η_d = 0
                    let mut balance = vec![(soc, 1.0), (discharge, dt / eta_d)];
                    balance.extend(previous.map(|p| (p, -1.0)));
                    balance.extend(charges.iter().map(|&j| (j, -dt * eta_c)));
                    lp.row(&balance, RowKind::Equal, 0.0);
                    lp.row(&[(soc, 1.0), (kwh, -1.0)], RowKind::LessOrEqual, 0.0);
                    let floor = if resilience.soc_min_applies_during_outages { s_model.soc_min_fraction } else { 0.0 };
                    lp.row(&[(kwh, floor), (soc, -1.0)], RowKind::LessOrEqual, 0.0);
                    let mut power = vec![(discharge, 1.0), (kw, -1.0)];
                    power.extend(charges.iter().map(|&j| (j, 1.0)));
                    lp.row(&power, RowKind::LessOrEqual, 0.0);
                    let mut headroom: Vec<(usize, f64)> = previous.map(|p| (p, 1.0)).into_iter().collect();
                    headroom.push((kwh, -1.0));
                    headroom.extend(charges.iter().map(|&j| (j, dt * eta_c)));
                    lp.row(&headroom, RowKind::LessOrEqual, 0.0);
                }
                let supply: Vec<(usize, f64)> = [step.renewable_load, step.generator_load, step.chp_load, step.discharge].into_iter().flatten().map(|j| (j, 1.0)).collect();
                let kind = if k < min_resil { RowKind::Equal } else { RowKind::LessOrEqual };
                lp.row(&supply, kind, critical);
                lp.objective_constant += UNSERVED_PENALTY_PER_KWH * dt * critical;
                supply_total.extend(supply);
                columns.push(step);
            }
            if let Some(lost) = lost {
                // lost ≥ pwf_e·VOLL·Δ·Σ(critical − supply)
                let mut row: Vec<(usize, f64)> = supply_total.iter().map(|&(j, _)| (j, -lost_value * dt)).collect();
                row.push((lost, -1.0));
                lp.row(&row, RowKind::LessOrEqual, -lost_value * dt * critical_total);
            }
            if let Some(g) = generator {
                if g.fuel_avail_gal < crate::optimizer::lp::UNLIMITED_FUEL_GAL && !gallons.is_empty() {
                    lp.row(&gallons, RowKind::LessOrEqual, g.fuel_avail_gal);
                }
                if let Some(fuel) = fuel {
                    let mut row: Vec<(usize, f64)> = gallons.iter().map(|&(j, a)| (j, a * g.fuel_cost_per_gallon)).collect();
                    row.push((fuel, -1.0));
                    lp.row(&row, RowKind::LessOrEqual, 0.0);
                }
            }
            if let (Some((c, _)), Some(cost)) = (chp, chp_fuel) {
                // The fuel of the whole outage at the $/kWh of its first step, not discounted.
                let price = c.burner.fuel_cost_per_kwh[start];
                let mut row: Vec<(usize, f64)> = chp_fuel_kwh.iter().map(|&(j, a)| (j, a * price)).collect();
                row.push((cost, -1.0));
                lp.row(&row, RowKind::LessOrEqual, 0.0);
            }
            by_start.push(OutageColumns { start, steps: columns, soc_start });
        }
        layout_outages.push(by_start);
    }
    let in_microgrid = Members { renewables, generator: generator.is_some(), storage: storage.is_some(), chp: chp.is_some() };
    add_upgrade_costs(lp, layout, model, factors, case, in_microgrid);
    Some(MicrogridLayout { outages: layout_outages, lost_cost, fuel_cost, chp_fuel_cost, members })
}

/// The upgrade cost of each member: `microgrid_upgrade_cost_fraction` of its capital cost
/// (the first cost-curve piece's net present cost per kW of its whole size; storage: its
/// whole capital cost). Existing capacity pays too, as in the service.
fn add_upgrade_costs(lp: &mut LinearProgram, layout: &Layout, model: &Model, factors: &CostFactors, case: &Case, members: Members) {
    let Members { renewables, generator, storage, chp } = members;
    let fraction = model.resilience.microgrid_upgrade_cost_fraction;
    // The business-as-usual case has only existing capacity, whose capital cost is zero there.
    if fraction <= 0.0 || case.bau {
        return;
    }
    if renewables {
        for (i, pv) in model.pvs.iter().enumerate() {
            let slope = factors.pv_segments[i].first().map_or(0.0, |s| s.net_present_cost_per_kw);
            lp.objective_constant += fraction * slope * pv.existing_kw;
            if let Some(new) = layout.pv_new[i] {
                lp.objective[new] += fraction * slope;
            }
        }
    }
    if let (true, Some(g), Some(costs)) = (generator, &model.generator, &factors.generator) {
        lp.objective_constant += fraction * costs.net_present_cost_per_kw * g.existing_kw;
        if let Some(new) = layout.generator_new {
            lp.objective[new] += fraction * costs.net_present_cost_per_kw;
        }
    }
    if let (true, Some(s), Some(costs), Some(kw), Some(kwh)) = (storage, &model.storage, &factors.storage, layout.storage_kw, layout.storage_kwh) {
        lp.objective[kw] += fraction * costs.net_present_cost_per_kw;
        lp.objective[kwh] += fraction * costs.net_present_cost_per_kwh;
        if s.has_cost_constant() && case.storage {
            lp.objective_constant += fraction * costs.net_present_cost_constant;
        }
    }
    if let (true, Some(c), Some(c_layout)) = (chp, &model.chp, &layout.chp) {
        // The service's `cap_cost_slope`·size, or on a cost curve of pieces its slope and
        // intercept on the piece bought, each times the third-party factor.
        let share = fraction * factors.third_party_factor;
        let pieces = capital_pieces(model, c);
        if c_layout.cost_pieces.is_empty() {
            lp.objective[c_layout.size] += share * pieces[0].slope;
        }
        for (piece, &(kw, on)) in pieces.iter().zip(&c_layout.cost_pieces) {
            lp.objective[kw] += share * piece.slope;
            lp.objective[on] += share * piece.intercept;
        }
    }
}

/// The upgrade cost of the members of a solution ($): renewables, generator, storage, CHP.
pub fn upgrade_costs(model: &Model, factors: &CostFactors, members: Members, d: &crate::optimizer::lp::Dispatch) -> [f64; 4] {
    let fraction = model.resilience.microgrid_upgrade_cost_fraction;
    let renewables: f64 = if members.renewables {
        model
            .pvs
            .iter()
            .enumerate()
            .map(|(i, pv)| fraction * factors.pv_segments[i].first().map_or(0.0, |s| s.net_present_cost_per_kw) * (pv.existing_kw + d.pv_new_kw[i]))
            .sum()
    } else {
        0.0
    };
    let generator = match (members.generator, &factors.generator) {
        (true, Some(c)) => fraction * c.net_present_cost_per_kw * d.generator_kw,
        _ => 0.0,
    };
    let storage = match (members.storage, &model.storage, &factors.storage) {
        (true, Some(s), Some(c)) if d.storage_kwh > 0.0 || d.storage_kw > 0.0 => {
            let constant = if s.has_cost_constant() { c.net_present_cost_constant } else { 0.0 };
            fraction * (c.net_present_cost_per_kw * d.storage_kw + c.net_present_cost_per_kwh * d.storage_kwh + constant)
        }
        _ => 0.0,
    };
    let chp = match (members.chp, &model.chp, &d.chp) {
        (true, Some(c), Some(cd)) => fraction * factors.third_party_factor * net_present_capital(model, c, cd.size_kw),
        _ => 0.0,
    };
    [renewables, generator, storage, chp]
}

impl MicrogridLayout {
    /// Reads the outages' dispatch from a solution (values at or below `tolerance` are 0);
    /// `array_kw` is each renewable array's total size in the solution.
    pub fn dispatch(&self, x: &[f64], model: &Model, factors: &CostFactors, array_kw: &[f64], tolerance: f64) -> MicrogridDispatch {
        let clean = |v: f64| if v <= tolerance { 0.0 } else { v };
        let value = |c: Option<usize>| c.map_or(0.0, |j| clean(x[j]));
        let steps = model.steps();
        let dt = model.step_hours();
        let gallons_per_kwh = factors.generator.map_or(0.0, |c| c.gallons_per_kwh);
        let intercept_gal_per_hour = model.generator.as_ref().map_or(0.0, |g| g.fuel_intercept_gal_per_hour);
        let chp_fuel_slope = model.chp.as_ref().map_or(0.0, |c| c.fuel_slope);
        let outages = model.outages.as_ref();
        let by_scenario = self
            .outages
            .iter()
            .map(|starts| {
                starts
                    .iter()
                    .map(|outage| {
                        let mut d = OutageDispatch::default();
                        for (k, c) in outage.steps.iter().enumerate() {
                            let tau = outages.map_or(0, |o| o.step(outage.start, k, steps));
                            let critical = model.critical_load_kw[tau];
                            let (ren_load, ren_storage) = (value(c.renewable_load), value(c.renewable_storage));
                            let (gen_load, gen_storage) = (value(c.generator_load), value(c.generator_storage));
                            let discharge = value(c.discharge);
                            let (chp_load, chp_storage) = (value(c.chp_load), value(c.chp_storage));
                            let (curtailed, on) = (value(c.generator_curtailed), c.generator_on.map_or(0.0, |j| x[j].round()));
                            let production: f64 = if self.members.renewables {
                                model.pvs.iter().enumerate().map(|(i, pv)| pv.production_factor[tau] * factors.levelization[i] * array_kw[i]).sum()
                            } else {
                                0.0
                            };
                            d.critical_load.push(critical);
                            d.renewable_load.push(ren_load);
                            d.renewable_storage.push(ren_storage);
                            d.renewable_curtailed.push(clean(production - ren_load - ren_storage));
                            d.generator_load.push(gen_load);
                            d.generator_storage.push(gen_storage);
                            d.generator_curtailed.push(curtailed);
                            d.chp_load.push(chp_load);
                            d.chp_storage.push(chp_storage);
                            d.discharge.push(discharge);
                            d.soc_kwh.push(value(c.soc));
                            d.unserved.push(clean(critical - ren_load - gen_load - chp_load - discharge));
                            d.chp_fuel_kwh += dt * chp_fuel_slope * (chp_load + chp_storage);
                            d.fuel_gal += dt * (gallons_per_kwh * (gen_load + gen_storage + curtailed) + intercept_gal_per_hour * on);
                        }
                        d
                    })
                    .collect()
            })
            .collect();
        MicrogridDispatch { outages: by_scenario, members: self.members }
    }
}

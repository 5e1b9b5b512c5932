//! The hot storages' sections, `HotThermalStorage` and `HighTempThermalStorage` (optimal case), with
//! the service's names (REopt.jl `add_hot_storage_results` and
//! `add_high_temp_thermal_storage_results`, src/results/thermal_storage.jl, 029db01d). Thermal
//! series are MMBtu/h per step; empty when nothing is built. The split of a discharge among the loads is `thermal`'s
//! (`storage_to_kind`; the part to the turbine by the loads' shares).
//!
//! As the service writes them: `storage_to_turbine` is the storage's heat to the steam turbine
//! (zeros when it may not supply one); the tank's `storage_to_load` is its discharge less that,
//! while its split by load (`storage_to_space_heating_load` etc.) is of its whole discharge, the
//! part to the turbine included (the service's per-load discharge, dvHeatFromStorage, holds both);
//! the high-temperature storage's `storage_to_load` is the whole discharge of *every* hot storage
//! less its own heat to the turbine (its sum runs over all hot storages).

use serde_json::{Map, Value};

use super::series;
use super::thermal::{flow_to_kind, mmbtu_per_hour, storage_to_kind, LOAD_KEYS};
use crate::optimizer::lp::heating::HeatingDispatch;
use crate::optimizer::model::thermal_inputs::Heating;
use crate::optimizer::model::{Model, KWH_PER_MMBTU};
use crate::optimizer::run::CaseSolution;

/// Inserts the hot storages' sections of the optimal case into `outputs`.
pub fn insert_hot_storage_outputs(outputs: &mut Map<String, Value>, model: &Model, optimal: &CaseSolution) {
    let (Some(heating), Some(d)) = (&model.heating, &optimal.dispatch.heating) else { return };
    for (section, storage) in hot_storage_outputs(model, heating, d) {
        outputs.insert(section.into(), storage);
    }
}

/// The hot storages' sections of the optimal case, in the order of `Heating::hot_storages`.
fn hot_storage_outputs(model: &Model, heating: &Heating, d: &HeatingDispatch) -> Vec<(&'static str, Value)> {
    let steps = model.steps();
    let all_out: Vec<f64> = (0..steps).map(|t| d.storages.iter().map(|s| s.discharge_kw[t] + s.to_turbine_kw[t]).sum()).collect();
    let mut sections = Vec::new();
    for (b, (storage, sd)) in heating.hot_storages.iter().zip(&d.storages).enumerate() {
        let high_temp = storage.high_temp.is_some();
        let mut out = Map::new();
        let size_kwh = (sd.kwh * 1000.0).round() / 1000.0;
        out.insert("size_kwh".into(), Value::from(size_kwh));
        if !high_temp {
            out.insert("size_gal".into(), Value::from((size_kwh / storage.tank.kwh_per_gal).round()));
        }
        let built = size_kwh != 0.0;
        let when_built = |v: Vec<f64>| if built { v } else { Vec::new() };
        out.insert("soc_series_fraction".into(), series(&when_built(sd.soc_kwh.iter().map(|kwh| kwh / sd.kwh).collect())));
        let to_load: Vec<f64> = if high_temp { (0..steps).map(|t| all_out[t] - sd.to_turbine_kw[t]).collect() } else { sd.discharge_kw.clone() };
        out.insert("storage_to_load_series_mmbtu_per_hour".into(), series(&when_built(mmbtu_per_hour(&to_load))));
        out.insert("storage_to_turbine_series_mmbtu_per_hour".into(), series(&when_built(mmbtu_per_hour(&sd.to_turbine_kw))));
        if built && !high_temp {
            for (name, kind) in LOAD_KEYS {
                let load = heating.load_kw(kind, steps);
                let to_kind = |t: usize| storage_to_kind(model, heating, d, b, kind, t, load[t]) + flow_to_kind(heating, storage, sd.to_turbine_kw[t], kind, t, load[t]);
                let part: Vec<f64> = (0..steps).map(|t| to_kind(t) / KWH_PER_MMBTU).collect();
                out.insert(format!("storage_to_{name}_series_mmbtu_per_hour"), series(&part));
            }
        }
        sections.push((storage.section(), Value::Object(out)));
    }
    sections
}

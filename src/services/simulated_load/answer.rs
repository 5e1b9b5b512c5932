//! The load endpoint's answers: the electric one as a typed value (which the embedded endpoint
//! also writes), every load type's series under its unit's column name (`load_kw`,
//! `load_mmbtu_per_hour` of boiler fuel, `load_ton`, `load_fraction` of the electric load;
//! `load_type=heating` adds its `space_…` and `dhw_…` parts; an electric answer to
//! `cooling_doe_ref_name` adds its `cooling_defaults` as `cooling_load_ton`,
//! `cooling_fraction_of_total_electric` and `cooling_chiller_cop`, hourly values repeated to the
//! electric steps), and the series as a timed Arrow table. Field names follow REopt.jl
//! `src/core/simulated_load.jl` at 029db01d.

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, TimestampMicrosecondArray};
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};
use serde::Deserialize;
use serde_json::Value;

use super::{LoadType, SimulatedLoadQuery};
use crate::calendar::{days_from_civil, steps_per_hour_of_year};

/// The service's answer for an electric load.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SimulatedLoad {
    pub loads_kw: Vec<f64>,
    pub annual_kwh: f64,
    pub min_kw: f64,
    pub mean_kw: f64,
    pub max_kw: f64,
    pub monthly_totals_kwh: Vec<f64>,
    pub monthly_peaks_kw: Vec<f64>,
}

/// The electric answer's `cooling_defaults`: the cooling buildings' cooling load on this
/// electric load. The service makes the thermal tons as `chiller COP · fraction · loads_kw`, the COP
/// that of the peak electric cooling load; `chiller_cop` is the one of the peak thermal load.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CoolingDefaults {
    /// Thermal tons, one per electric step (rounded to 3 decimals).
    pub loads_ton: Vec<f64>,
    pub annual_tonhour: f64,
    pub chiller_cop: f64,
    pub min_ton: f64,
    pub mean_ton: f64,
    pub max_ton: f64,
    /// The buildings' cooling electricity over their total electricity, hourly (9 decimals).
    pub fraction_of_total_electric_profile: Vec<f64>,
}

/// Any load type's answer: its series by column name (the load first), the year's total and
/// the largest value, in the series' unit.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadAnswer {
    pub columns: Vec<(String, Vec<f64>)>,
    /// `kw`, `mmbtu_per_hour`, `ton` or `fraction`.
    pub unit: &'static str,
    /// kWh, MMBtu or ton-hours for the year; the mean fraction for a cooling fraction.
    pub annual: f64,
    pub max: f64,
    /// An electric answer's to `cooling_doe_ref_name`.
    pub cooling_defaults: Option<CoolingDefaults>,
}

impl LoadAnswer {
    /// The load's own series (the first column).
    pub fn into_load(self) -> Vec<f64> {
        self.columns.into_iter().next().map(|(_, series)| series).unwrap_or_default()
    }
}

fn series(answer: &Value, field: &str) -> Result<Vec<f64>, String> {
    let values = answer.get(field).and_then(Value::as_array).ok_or_else(|| format!("the simulated_load answer has no {field} list"))?;
    let series: Option<Vec<f64>> = values.iter().map(Value::as_f64).collect();
    let series = series.ok_or_else(|| format!("the simulated_load answer's {field} holds a value that is not a number"))?;
    if steps_per_hour_of_year(series.len()).is_none() {
        return Err(format!("the simulated_load answer has {} {field} values (expected 8760, 17520 or 35040)", series.len()));
    }
    Ok(series)
}

fn number(answer: &Value, field: &str) -> Result<f64, String> {
    answer.get(field).and_then(Value::as_f64).ok_or_else(|| format!("the simulated_load answer has no number {field}"))
}

/// Parses an answer body to `query`; each series must have 8760 values per step-hour.
pub fn parse_load_answer(body: &[u8], query: &SimulatedLoadQuery) -> Result<LoadAnswer, String> {
    let answer: Value = serde_json::from_slice(body).map_err(|e| format!("the simulated_load answer is not the expected JSON: {e}"))?;
    let (unit, prefix) = match (query.load_type, &query.cooling_fraction) {
        (LoadType::Cooling, Some(_)) => ("fraction", "fraction"),
        (LoadType::Electric, _) => ("kw", "kwh"),
        (LoadType::Cooling, None) => ("ton", "tonhour"),
        _ => ("mmbtu_per_hour", "mmbtu"),
    };
    let mut columns = vec![(format!("load_{unit}"), series(&answer, &format!("loads_{unit}"))?)];
    if query.load_type == LoadType::Heating {
        for part in ["space", "dhw"] {
            columns.push((format!("{part}_load_{unit}"), series(&answer, &format!("{part}_loads_{unit}"))?));
        }
    }
    let cooling_defaults = if query.cooling_buildings.is_empty() { None } else { Some(cooling_defaults(&answer, &mut columns)?) };
    Ok(LoadAnswer { columns, unit, annual: number(&answer, &format!("annual_{prefix}"))?, max: number(&answer, &format!("max_{unit}"))?, cooling_defaults })
}

/// The answer's `cooling_defaults`, its series added to `columns` at the electric load's steps.
fn cooling_defaults(answer: &Value, columns: &mut Vec<(String, Vec<f64>)>) -> Result<CoolingDefaults, String> {
    let found = answer.get("cooling_defaults").ok_or("the simulated_load answer has no cooling_defaults")?;
    let defaults: CoolingDefaults = serde_json::from_value(found.clone()).map_err(|e| format!("the simulated_load answer's cooling_defaults: {e}"))?;
    let steps = columns.first().map_or(0, |(_, load)| load.len());
    let per_hour = |values: &[f64], field: &str| {
        if values.is_empty() || !steps.is_multiple_of(values.len()) {
            return Err(format!("the simulated_load answer's cooling_defaults has {} {field} values for {steps} steps", values.len()));
        }
        Ok(values.iter().flat_map(|v| std::iter::repeat_n(*v, steps / values.len())).collect::<Vec<f64>>())
    };
    let tons = per_hour(&defaults.loads_ton, "loads_ton")?;
    let fractions = per_hour(&defaults.fraction_of_total_electric_profile, "fraction_of_total_electric_profile")?;
    columns.push(("cooling_load_ton".into(), tons));
    columns.push(("cooling_fraction_of_total_electric".into(), fractions));
    columns.push(("cooling_chiller_cop".into(), vec![defaults.chiller_cop; steps]));
    Ok(defaults)
}

/// `timestamp` (naive local time from 1 January of `year`, one per step) and the series as
/// named; the buffers are moved in, not copied. The steps per hour follow the first series.
pub fn load_batch(columns: Vec<(String, Vec<f64>)>, year: i32) -> Result<RecordBatch, ArrowError> {
    let steps = columns.first().map_or(0, |(_, series)| series.len());
    let steps_per_hour = steps_per_hour_of_year(steps).and_then(|steps| i64::try_from(steps).ok()).unwrap_or(1);
    let step_us = 3_600_000_000 / steps_per_hour;
    let start = days_from_civil(year, 1, 1) * 86_400_000_000;
    let stamps: Vec<i64> = (0..i64::try_from(steps).unwrap_or(0)).map(|i| start + i * step_us).collect();
    let mut fields = vec![Field::new("timestamp", DataType::Timestamp(TimeUnit::Microsecond, None), false)];
    let mut arrays: Vec<ArrayRef> = vec![Arc::new(TimestampMicrosecondArray::from(stamps))];
    for (name, series) in columns {
        fields.push(Field::new(name, DataType::Float64, false));
        arrays.push(Arc::new(Float64Array::from(series)));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
}

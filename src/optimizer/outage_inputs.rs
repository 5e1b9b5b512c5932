//! The outage simulation's inputs read from a results document (the embedded service's or the
//! live one's): the critical load, the renewables' AC output (every PV array and the wind
//! turbine, all their flows), the battery and generator sizes, and the inputs the body leaves
//! out taken from the scenario schema's defaults (`schema`). With `microgrid_only`, only what
//! the multiple-outage form's microgrid includes (`Outages.*_upgraded`,
//! `generator_microgrid_size_kw`), as the service's option of that name.

use serde_json::{Map, Value};

use super::model::resilience_inputs::fuel_slope_and_intercept;
use super::outage_sim::OutageSimInputs;
use crate::optimizer::scenario::schema;
use crate::optimizer::scenario::text::python_repr;

/// The flows that together are a renewable's AC output.
const RENEWABLE_FLOWS: [&str; 4] =
    ["electric_to_storage_series_kw", "electric_curtailed_series_kw", "electric_to_load_series_kw", "electric_to_grid_series_kw"];
/// The battery's efficiencies whose product is its round trip.
const STORAGE_EFFICIENCIES: [&str; 3] = ["internal_efficiency_fraction", "inverter_efficiency_fraction", "rectifier_efficiency_fraction"];
/// The generator's turndown off grid when the inputs give none (the service's).
const OFF_GRID_TURNDOWN: f64 = 0.15;

/// The fuel curve (gallons per kWh, gallons per hour running) of the generator's efficiencies.
pub fn fuel_curve(efficiency_full_load: f64, efficiency_half_load: f64, kwh_per_gallon: f64) -> Result<(f64, f64), String> {
    if [efficiency_full_load, efficiency_half_load, kwh_per_gallon].iter().any(|v| !v.is_finite() || *v <= 0.0) {
        return Err("generator efficiencies and fuel_kwh_per_gallon must be numbers above 0.".into());
    }
    Ok(fuel_slope_and_intercept(efficiency_full_load, efficiency_half_load, kwh_per_gallon))
}

fn section<'a>(part: Option<&'a Value>, name: &str) -> Option<&'a Map<String, Value>> {
    part?.get(name)?.as_object()
}

/// A number of a section (not a flag), or `default`.
fn number(section: Option<&Map<String, Value>>, field: &str, default: f64) -> f64 {
    section.and_then(|s| s.get(field)).filter(|v| v.is_number()).and_then(Value::as_f64).unwrap_or(default)
}

/// An input of the results, or its default in the schema when the body leaves it out.
fn input(inputs: Option<&Value>, name: &str, field: &str) -> Result<f64, String> {
    let default = schema::default(name, field).and_then(Value::as_f64).ok_or_else(|| format!("the schema has no default for {name}.{field}"))?;
    Ok(number(section(inputs, name), field, default))
}

fn numbers(values: &[Value], what: &str) -> Result<Vec<f64>, String> {
    values.iter().map(|v| v.as_f64().ok_or_else(|| format!("the result's {what} holds a value that is not a number ({})", python_repr(v)))).collect()
}

/// The renewables' AC output per step (zeros when there are none).
fn renewable_output(outputs: Option<&Value>, steps: usize, microgrid_only: bool) -> Vec<f64> {
    let mut total = vec![0.0; steps];
    let outages = section(outputs, "Outages");
    for name in ["PV", "Wind"] {
        if microgrid_only && outages.and_then(|o| o.get(&format!("{name}_upgraded"))) != Some(&Value::Bool(true)) {
            continue;
        }
        let parts: Vec<&Map<String, Value>> = match outputs.and_then(|o| o.get(name)) {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_object).collect(),
            Some(Value::Object(one)) => vec![one],
            _ => Vec::new(),
        };
        for flow in parts.iter().flat_map(|part| RENEWABLE_FLOWS.iter().filter_map(|flow| part.get(*flow)?.as_array())) {
            if flow.len() == steps {
                total.iter_mut().zip(flow).for_each(|(sum, value)| *sum += value.as_f64().unwrap_or(0.0));
            }
        }
    }
    total
}

/// The simulation's inputs from an optimal results document; why not, otherwise.
pub fn from_results(document: &Value, microgrid_only: bool) -> Result<OutageSimInputs, String> {
    let status = document.get("status").unwrap_or(&Value::Null);
    if status != "optimal" {
        return Err(format!("simulate_outages needs an optimal result, got status {}.", python_repr(status)));
    }
    let (inputs, outputs) = (document.get("inputs"), document.get("outputs"));
    let critical = section(outputs, "ElectricLoad").and_then(|s| s.get("critical_load_series_kw")).and_then(Value::as_array).filter(|v| !v.is_empty());
    let critical = critical.ok_or("the result has no ElectricLoad.critical_load_series_kw to simulate outages with.")?;
    let outages = section(outputs, "Outages").filter(|o| !o.is_empty());
    if microgrid_only && outages.is_none() {
        return Err("microgrid_only needs a result with the Outages of the multiple-outage form.".into());
    }
    let storage_upgraded = outages.and_then(|o| o.get("electric_storage_microgrid_upgraded")) == Some(&Value::Bool(true));
    let storage = section(outputs, "ElectricStorage").filter(|_| !microgrid_only || storage_upgraded);
    let roundtrip = STORAGE_EFFICIENCIES.iter().try_fold(1.0, |product, field| Ok::<f64, String>(product * input(inputs, "ElectricStorage", field)?))?;
    let generator_in = section(inputs, "Generator");
    let full_load = input(inputs, "Generator", "electric_efficiency_full_load")?;
    let off_grid = section(inputs, "Settings").and_then(|s| s.get("off_grid_flag")).and_then(crate::optimizer::scenario::text::service_bool) == Some(true);
    let generator_kw = if microgrid_only {
        number(outages, "generator_microgrid_size_kw", 0.0)
    } else {
        number(section(outputs, "Generator"), "size_kw", 0.0)
    };
    let (fuel_slope_gal_per_kwh, fuel_intercept_gal_per_hour) = fuel_curve(
        full_load,
        number(generator_in, "electric_efficiency_half_load", full_load),
        input(inputs, "Generator", "fuel_higher_heating_value_kwh_per_gal")?,
    )?;
    let soc = storage.and_then(|s| s.get("soc_series_fraction")).and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    Ok(OutageSimInputs {
        critical_load_kw: numbers(critical, "ElectricLoad.critical_load_series_kw")?,
        renewable_kw: renewable_output(outputs, critical.len(), microgrid_only),
        battery_kwh: number(storage, "size_kwh", 0.0),
        battery_kw: number(storage, "size_kw", 0.0),
        initial_soc_fraction: numbers(soc, "ElectricStorage.soc_series_fraction")?,
        battery_roundtrip_efficiency: roundtrip,
        generator_kw,
        fuel_available_gal: input(inputs, "Generator", "fuel_avail_gal")?,
        fuel_intercept_gal_per_hour,
        fuel_slope_gal_per_kwh,
        generator_min_turndown_fraction: number(generator_in, "min_turn_down_fraction", if off_grid { OFF_GRID_TURNDOWN } else { 0.0 }),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn inputs_come_from_the_body_or_the_schema_defaults() {
        let document = json!({
            "status": "optimal",
            "inputs": {"Generator": {"electric_efficiency_full_load": 0.3}},
            "outputs": {
                "ElectricLoad": {"critical_load_series_kw": [2.0, 2.0]},
                "PV": [{"electric_to_load_series_kw": [1.0, 0.5], "electric_to_grid_series_kw": [0.25, 0.0]}, {"electric_to_load_series_kw": [1.0]}],
                "ElectricStorage": {"size_kw": 3, "size_kwh": 6.0, "soc_series_fraction": [0.5, 1]},
                "Generator": {"size_kw": 10.0},
            },
        });
        let inputs = from_results(&document, false).unwrap();
        assert_eq!((inputs.renewable_kw.clone(), inputs.battery_kw, inputs.generator_kw), (vec![1.25, 0.5], 3.0, 10.0));
        assert_eq!(inputs.initial_soc_fraction, [0.5, 1.0]);
        let default = |field| schema::default("ElectricStorage", field).and_then(Value::as_f64).unwrap();
        let roundtrip = default("internal_efficiency_fraction") * default("inverter_efficiency_fraction") * default("rectifier_efficiency_fraction");
        assert!((inputs.battery_roundtrip_efficiency - roundtrip).abs() < 1e-12);
        assert_eq!(inputs.generator_min_turndown_fraction, 0.0);
        let microgrid = from_results(&json!({"status": "optimal", "outputs": {"ElectricLoad": {"critical_load_series_kw": [1.0]}}}), true);
        assert_eq!(microgrid.unwrap_err(), "microgrid_only needs a result with the Outages of the multiple-outage form.");
    }

    #[test]
    fn a_result_that_is_not_optimal_or_has_no_critical_load_is_refused() {
        assert_eq!(from_results(&json!({"status": "error"}), false).unwrap_err(), "simulate_outages needs an optimal result, got status 'error'.");
        assert_eq!(from_results(&json!({}), false).unwrap_err(), "simulate_outages needs an optimal result, got status None.");
        assert!(from_results(&json!({"status": "optimal", "outputs": {}}), false).unwrap_err().contains("critical_load_series_kw"));
        assert!(fuel_curve(0.3, 0.0, 40.0).is_err());
    }
}

//! The program's size, estimated from the scenario before anything is built, and the limits a
//! scenario must stay within (docs/design.md, "Limits"): the embedded service answers 400
//! and `solve` raises `ParameterError` past them, so no input can make the hosting process
//! grow without bound.

use serde_json::Value;

use crate::calendar::HOURS_PER_YEAR;

/// Most variables a program may have (about 1.5 GB of solver memory at the largest).
pub const MAX_VARIABLES: usize = 3_000_000;

/// Most outage steps of the multiple-outage form: starts × the sum of the durations.
pub const MAX_OUTAGE_STEPS: usize = 50_000;

/// Variables per time step of the year's dispatch, at most (PV flows, storage, grid, tiers,
/// generator and its on/off): a bound, not a count.
const VARIABLES_PER_STEP: usize = 24;

/// Variables per outage step, at most (renewables, generator and storage flows, the state of
/// charge and the on/off).
const VARIABLES_PER_OUTAGE_STEP: usize = 8;

/// What a scenario asks of the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub steps: usize,
    pub outage_steps: usize,
    pub variables: usize,
}

fn count(value: Option<&Value>) -> usize {
    value.and_then(Value::as_array).map_or(0, Vec::len)
}

/// The estimate for a scenario (read leniently: validation judges the values themselves).
pub fn estimate(scenario: &Value) -> Size {
    let steps_per_hour = scenario
        .get("Settings")
        .and_then(|settings| settings.get("time_steps_per_hour"))
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(1)
        .clamp(1, 4);
    let steps = HOURS_PER_YEAR * steps_per_hour;
    let outages = scenario.get("ElectricUtility");
    let starts = count(outages.and_then(|u| u.get("outage_start_time_steps")));
    let duration_steps: usize = outages
        .and_then(|u| u.get("outage_durations"))
        .and_then(Value::as_array)
        .map_or(0, |durations| durations.iter().filter_map(Value::as_u64).map(|d| usize::try_from(d).unwrap_or(usize::MAX).min(steps)).sum());
    let outage_steps = starts.saturating_mul(duration_steps);
    let variables = steps.saturating_mul(VARIABLES_PER_STEP).saturating_add(outage_steps.saturating_mul(VARIABLES_PER_OUTAGE_STEP));
    Size { steps, outage_steps, variables }
}

/// Why a scenario is too large, or None when it is within the limits.
pub fn too_large(scenario: &Value) -> Option<String> {
    let size = estimate(scenario);
    if size.outage_steps > MAX_OUTAGE_STEPS {
        return Some(format!(
            "The scenario is too large to optimize: {} outage time steps (ElectricUtility.outage_start_time_steps × the sum of outage_durations); the limit is {MAX_OUTAGE_STEPS}.",
            size.outage_steps
        ));
    }
    if size.variables > MAX_VARIABLES {
        return Some(format!("The scenario is too large to optimize: about {} variables; the limit is {MAX_VARIABLES}.", size.variables));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn eight_thousand_outage_starts_of_two_days_are_refused_by_name() {
        let starts: Vec<usize> = (0..8000).collect();
        let scenario = json!({"ElectricUtility": {"outage_start_time_steps": starts, "outage_durations": [48]}});
        assert_eq!(estimate(&scenario).outage_steps, 384_000);
        let message = too_large(&scenario).unwrap();
        assert!(message.contains("outage_start_time_steps") && message.contains("50000"), "{message}");
    }

    #[test]
    fn real_sizes_pass() {
        let scenario = json!({
            "Settings": {"time_steps_per_hour": 4},
            "ElectricUtility": {"outage_start_time_steps": [100, 2000, 4000, 6000], "outage_durations": [96, 192]},
        });
        assert_eq!(estimate(&scenario).steps, 35_040);
        assert_eq!(too_large(&scenario), None);
        assert_eq!(too_large(&json!({})), None);
    }
}

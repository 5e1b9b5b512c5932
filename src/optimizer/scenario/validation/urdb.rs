//! Structure checks of a Utility Rate Database rate given as `ElectricTariff.urdb_response`:
//! the required lists, the month-by-hour schedules against their rate structures, the tiers
//! of each period and the demand ratchet.

use super::value::{less, Num, Outcome, Value};
use super::{Context, Host, Shown, MONTHS};
use crate::optimizer::scenario::schema::schema;

/// (message, offending value) of each problem of a rate.
pub(crate) fn problems<'a>(rate: &'a Value, context: &Context, host: &dyn Host) -> Outcome<Vec<(String, Shown<'a>)>> {
    let rules = &schema().rules.urdb;
    let mut found = Vec::new();
    for name in &rules.required {
        match rate.get(name) {
            None | Some(Value::None) => found.push((format!("Missing valid entry for {name}."), Shown::Nothing)),
            Some(value) if value.as_list().is_none() => found.push((format!("Expecting a list for {name}."), Shown::Input(value))),
            Some(value) if value.as_list().is_some_and(<[Value]>::is_empty) => found.push((format!("List is empty for {name}."), Shown::Input(value))),
            Some(_) => {}
        }
    }
    for (schedule_name, structure_name) in &rules.schedules {
        let Some(schedule) = rate.get(schedule_name).filter(|schedule| schedule.as_list().is_some_and(|rows| !rows.is_empty())) else { continue };
        let Some(structure) = rate.get(structure_name).and_then(Value::as_list).filter(|periods| !periods.is_empty()) else {
            found.push((format!("Missing {structure_name} a dependency of {schedule_name}."), Shown::Nothing));
            continue;
        };
        found.extend(schedule_problems(schedule_name, schedule, structure_name, structure.len(), context, host)?);
    }
    for structure_name in &rules.tiered_structures {
        if let Some(structure) = rate.get(structure_name).and_then(Value::as_list) {
            found.extend(tier_problems(structure_name, structure, &rules.tier_numbers));
        }
    }
    if let Some(ratchet) = rate.get("demandratchetpercentage").filter(|ratchet| ratchet.as_list().is_some_and(|items| items.len() != MONTHS)) {
        found.push(("demandratchetpercentage must contain 12 values.".into(), Shown::Input(ratchet)));
    }
    Ok(found)
}

fn schedule_problems<'a>(schedule_name: &str, schedule: &'a Value, structure_name: &str, periods: usize, context: &Context, host: &dyn Host) -> Outcome<Vec<(String, Shown<'a>)>> {
    let rows = schedule.as_list().unwrap_or_default();
    if rows.len() != MONTHS || !rows.iter().all(|row| row.as_list().is_some_and(|entries| !entries.is_empty())) {
        return Ok(vec![(format!("{schedule_name} must hold 12 months of entries."), Shown::Input(schedule))]);
    }
    let mut found = Vec::new();
    let steps_per_hour = usize::try_from(context.time_steps_per_hour).unwrap_or(1);
    let periods = Num::Int(i128::try_from(periods).unwrap_or(i128::MAX));
    for (index, row) in rows.iter().enumerate() {
        let month = index + 1;
        let entries = row.as_list().unwrap_or_default();
        if entries.len() % 24 != 0 {
            found.push((format!("Entry {month} of {schedule_name} does not contain a number of entries divisible by 24."), Shown::Input(row)));
            continue;
        }
        if entries.len() / 24 > steps_per_hour {
            found.push((format!("The time steps per hour in the {schedule_name} must be no greater than the Settings.time_steps_per_hour."), Shown::Input(row)));
            break;
        }
        let no_rate = |period: &Value| match period.number().filter(|_| period.is_int()) {
            Some(number) => less(number, Num::Int(0)) || !less(number, periods),
            None => true,
        };
        if let Some(bad) = entries.iter().find(|period| no_rate(period)) {
            found.push((format!("{schedule_name} contains value {} which has no associated rate in {structure_name}.", bad.repr(host)?), Shown::Input(bad)));
            break;
        }
    }
    Ok(found)
}

fn tier_problems<'a>(structure_name: &str, structure: &'a [Value], tier_numbers: &[String]) -> Vec<(String, Shown<'a>)> {
    for (number, period) in structure.iter().enumerate() {
        let Some(tiers) = period.as_list().filter(|tiers| tiers.iter().all(|tier| tier.as_map().is_some())) else {
            return vec![(format!("Period {number} of {structure_name} must be a list of tier objects."), Shown::Input(period))];
        };
        for (tier_index, tier) in tiers.iter().enumerate() {
            for key in tier_numbers {
                if let Some(value) = tier.get(key).filter(|value| !value.is_none() && value.number().is_none()) {
                    return vec![(format!("Tier {tier_index} of period {number} in {structure_name} has a non-numeric {key}."), Shown::Input(value))];
                }
            }
            if tier_index + 1 < tiers.len() && tier.get("max").and_then(Value::number).is_none() {
                return vec![(format!("Tier {tier_index} of period {number} in {structure_name} needs a max (every tier but the last)."), Shown::Input(tier))];
            }
        }
    }
    Vec::new()
}

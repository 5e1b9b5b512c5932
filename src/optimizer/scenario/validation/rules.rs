//! The rules inside one section: input sets, needs and exclusive fields, equal lengths, bound
//! pairs, blends, grid mode, and the own rules of ElectricTariff (coincident peaks and the URDB
//! rate), ElectricUtility (outage time steps) and CHP (unavailability periods).

use super::fields::show;
use super::value::{fsum, greater, less, py_max, to_float, Num, Outcome, Value};
use crate::optimizer::scenario::text::{format_g, str_repr};
use super::{shown, urdb, Context, Report, Shown};
use crate::optimizer::scenario::schema::{schema, SectionSpec};

const SUM_TOLERANCE: f64 = 1e-9;
const PROBABILITY_TOLERANCE: f64 = 1e-8;

fn given(values: &Value, name: &str) -> bool {
    values.get(name).is_some_and(Value::given)
}

pub(crate) fn check_possible_sets(report: &mut Report<'_>, spec: &SectionSpec, place: &str, values: &Value) {
    let sets = &spec.possible_sets;
    if sets.is_empty() || sets.iter().any(|names| names.iter().all(|name| given(values, name))) {
        return;
    }
    let listing = sets
        .iter()
        .map(|names| format!("[{}]", names.iter().map(|name| str_repr(name)).collect::<Vec<_>>().join(", ")))
        .collect::<Vec<_>>()
        .join(", ");
    let note = schema().rules.input_set_notes.iter().find(|(key, _)| *key == spec.key).map(|(_, note)| note.as_str()).filter(|note| !note.is_empty());
    let message = format!("Must provide at least one set of valid inputs from [{listing}].");
    let message = match note {
        Some(note) => format!("{message} {note}"),
        None => message,
    };
    report.add(&spec.key, place, "", "input_set", Shown::Nothing, message);
}

/// The `needs` and `exclusive` rules of the section: a field given (or equal to a value) needs
/// another field given; fields of one group exclude those of the other.
pub(crate) fn check_needs<'a>(report: &mut Report<'a>, key: &str, place: &str, values: &'a Value) -> Outcome<()> {
    let rules = &schema().rules;
    for rule in rules.exclusive.iter().filter(|rule| rule.section == key) {
        if rule.either.iter().any(|name| given(values, name)) && rule.or.iter().any(|name| given(values, name)) {
            report.add(key, place, &rule.report, "exclusive", shown(values.get(&rule.report)), rule.message.clone());
        }
    }
    for need in rules.needs.iter().filter(|need| need.section == key) {
        if given(values, &need.need) {
            continue;
        }
        let when = values.get(&need.when);
        let applies = match &need.equals {
            Some(equals) => match when {
                Some(when) => when.equals(equals, report.host)?,
                None => false,
            },
            None => when.is_some_and(Value::given),
        };
        if applies {
            report.add(key, place, &need.need, &need.rule, shown(values.get(&need.need)), need.message.clone());
        }
    }
    Ok(())
}

pub(crate) fn check_same_length<'a>(report: &mut Report<'a>, key: &str, place: &str, values: &'a Value) {
    let Some((_, groups)) = schema().rules.same_length.iter().find(|(section, _)| section == key) else { return };
    for group in groups {
        let mut lengths: Vec<usize> = group.iter().filter_map(|name| values.get(name)?.as_list()).filter(|items| !items.is_empty()).map(<[Value]>::len).collect();
        lengths.sort_unstable();
        lengths.dedup();
        if let (true, Some((last, rest))) = (lengths.len() > 1, group.split_last()) {
            let first = rest.first().unwrap_or(last);
            report.add(key, place, first, "matching_length", shown(values.get(first)), format!("{}, and {last} must all have the same length.", rest.join(", ")));
        }
    }
}

pub(crate) fn check_bounds<'a>(report: &mut Report<'a>, key: &str, place: &str, values: &'a Value) -> Outcome<()> {
    for (low_name, high_name) in &schema().rules.bound_pairs {
        let (Some(low), Some(high)) = (values.get(low_name), values.get(high_name)) else { continue };
        if let (Some(a), Some(b)) = (low.number(), high.number()) {
            if greater(a, b) {
                let message = format!("{low_name} ({}) must not exceed {high_name} ({}).", show(low, report.host)?, show(high, report.host)?);
                report.add(key, place, low_name, "min_max", Shown::Input(low), message);
            }
        }
    }
    Ok(())
}

/// `math.fsum` of numbers as floats.
fn sum(items: &[Value]) -> Outcome<f64> {
    let floats = items.iter().filter_map(Value::number).map(to_float).collect::<Outcome<Vec<f64>>>()?;
    fsum(&floats)
}

/// `math.isclose(a, b, rel_tol=tolerance, abs_tol=tolerance)`.
fn is_close(a: f64, b: f64, tolerance: f64) -> bool {
    if a == b {
        return true;
    }
    if a.is_infinite() || b.is_infinite() {
        return false;
    }
    let difference = (b - a).abs();
    difference <= (tolerance * b).abs() || difference <= (tolerance * a).abs() || difference <= tolerance
}

pub(crate) fn check_blend<'a>(report: &mut Report<'a>, key: &str, place: &str, values: &'a Value) -> Outcome<()> {
    let Some((_, (names_field, percents_field))) = schema().rules.blends.iter().find(|(section, _)| section == key) else { return Ok(()) };
    let (names, percents) = (values.get(names_field), values.get(percents_field));
    if !(names.is_some_and(Value::given) || percents.is_some_and(Value::given)) {
        return Ok(());
    }
    let (Some(names), Some(percents)) = (names, percents) else { return Ok(()) };
    let (Some(name_items), Some(percent_items)) = (names.as_list(), percents.as_list()) else { return Ok(()) };
    if name_items.len() != percent_items.len() {
        report.add(key, place, names_field, "matching_length", Shown::Input(names), format!("The number of {names_field} must equal the number of {percents_field}."));
    }
    if !percent_items.is_empty() && percent_items.iter().all(|item| item.number().is_some()) {
        let total = sum(percent_items)?;
        if !is_close(total, 1.0, SUM_TOLERANCE) {
            report.add(key, place, percents_field, "sum", Shown::Input(percents), format!("Sum must = 1.0 (the percents add up to {}).", format_g(total)));
        }
    }
    Ok(())
}

pub(crate) fn check_grid_mode<'a>(report: &mut Report<'a>, key: &str, place: &str, values: &'a Value, context: &Context) -> Outcome<()> {
    let rules = &schema().rules;
    if context.off_grid {
        if rules.off_grid_false_flag_sections.iter().any(|section| section == key) {
            for flag in &rules.off_grid_false_flags {
                if let Some(value) = values.get(flag).filter(|value| value.is_true()) {
                    report.add(key, place, flag, "off_grid", Shown::Input(value), format!("{flag} is always false when Settings.off_grid_flag is true."));
                }
            }
        }
        return Ok(());
    }
    for (_, name, fixed) in rules.on_grid_fixed.iter().filter(|(section, _, _)| section == key) {
        if let Some(value) = values.get(name).filter(|value| value.number().is_some() && !value.py_eq(fixed)) {
            let message = format!("{name} applies to off-grid scenarios only (Settings.off_grid_flag); on the grid it is fixed at {}.", show(fixed, report.host)?);
            report.add(key, place, name, "off_grid", Shown::Input(value), message);
        }
    }
    Ok(())
}

pub(crate) fn electric_tariff_rules<'a>(report: &mut Report<'a>, place: &str, values: &'a Value, context: &Context) -> Outcome<()> {
    let charges = values.get("coincident_peak_load_charge_per_kw");
    // [[]] is how the service's own example says "no coincident peak periods".
    let mut step_sets = 0;
    for steps in values.get("coincident_peak_load_active_time_steps").and_then(Value::as_list).into_iter().flatten() {
        if steps.truthy(report.host)? {
            step_sets += 1;
        }
    }
    let charge_count = charges.and_then(Value::as_list).map_or(0, <[Value]>::len);
    if (step_sets > 0 || charge_count > 0) && step_sets != charge_count {
        report.add(
            "ElectricTariff",
            place,
            "coincident_peak_load_charge_per_kw",
            "matching_length",
            shown(charges),
            "The number of rates in coincident_peak_load_charge_per_kw must match the number of timestep sets in coincident_peak_load_active_time_steps.".into(),
        );
    }
    if let Some(rate) = values.get("urdb_response").filter(|rate| rate.as_map().is_some()) {
        if rate.truthy(report.host)? {
            for (message, bad) in urdb::problems(rate, context, report.host)? {
                report.add("ElectricTariff", place, "urdb_response", "urdb", bad, message);
            }
        }
    }
    Ok(())
}

/// The list when it is a list of integers, else an empty one.
fn integers(value: Option<&Value>) -> &[Value] {
    value.and_then(Value::as_list).filter(|items| items.iter().all(Value::is_int)).unwrap_or_default()
}

pub(crate) fn electric_utility_rules<'a>(report: &mut Report<'a>, place: &str, values: &'a Value, context: &Context) -> Outcome<()> {
    let host = report.host;
    let latest_step = Num::Int(i128::from(context.max_time_step));
    let start = values.get("outage_start_time_step");
    let end = values.get("outage_end_time_step");
    if let (Some(a), Some(b)) = (start.and_then(Value::number), end.and_then(Value::number)) {
        if less(b, a) {
            report.add("ElectricUtility", place, "outage_end_time_step", "order", shown(end), "outage_end_time_step must be larger than or equal to outage_start_time_step.".into());
        }
    }
    for (name, value) in [("outage_start_time_step", start), ("outage_end_time_step", end)] {
        if let Some(value) = value.filter(|value| value.number().is_some_and(|number| greater(number, latest_step))) {
            report.add("ElectricUtility", place, name, "time_step_bound", Shown::Input(value), format!("Value is greater than the max allowable ({}).", context.max_time_step));
        }
    }
    let starts = values.get("outage_start_time_steps");
    let durations = values.get("outage_durations");
    let probabilities = values.get("outage_probabilities");
    if let (Some(probability_list), Some(duration_list)) = (probabilities.and_then(Value::as_list), durations.and_then(Value::as_list)) {
        if !probability_list.is_empty() && probability_list.len() != duration_list.len() {
            report.add("ElectricUtility", place, "outage_probabilities", "matching_length", shown(probabilities), "outage_probabilities and outage_durations must have the same length.".into());
        }
    }
    if let Some(items) = probabilities.and_then(Value::as_list).filter(|items| !items.is_empty() && items.iter().all(|item| item.number().is_some())) {
        let total = sum(items)?;
        if (total - 1.0).abs() > PROBABILITY_TOLERANCE {
            report.add("ElectricUtility", place, "outage_probabilities", "sum", shown(probabilities), format!("outage_probabilities must have a sum of 1.0 (they add up to {}).", format_g(total)));
        }
    }
    let start_steps = integers(starts);
    let duration_steps = integers(durations);
    let (Some(latest), longest) = (py_max(start_steps), py_max(duration_steps)) else { return Ok(()) };
    let latest_number = latest.number().unwrap_or(Num::Int(0));
    if greater(latest_number, latest_step) {
        report.add("ElectricUtility", place, "outage_start_time_steps", "time_step_bound", Shown::Input(latest), format!("Value is greater than the max allowable ({}).", context.max_time_step));
    } else if let Some(longest) = longest {
        if runs_past(latest_number, longest.number().unwrap_or(Num::Int(0)), context.max_time_step) {
            let message = format!(
                "Value is greater than the max allowable ({} - {}): the longest outage starting at the last start step runs past the end of the year.",
                context.max_time_step,
                latest.str(host)?
            );
            report.add("ElectricUtility", place, "outage_durations", "time_step_bound", Shown::Input(longest), message);
        }
    }
    Ok(())
}

/// `start + duration - 1 > last` for whole numbers.
#[allow(clippy::cast_precision_loss)]
fn runs_past(start: Num, duration: Num, last: i64) -> bool {
    match (start, duration) {
        (Num::Int(start), Num::Int(duration)) => start.saturating_add(duration).saturating_sub(1) > i128::from(last),
        _ => {
            let float = |number: Num| match number {
                Num::Int(int) => int as f64,
                Num::Float(float) => float,
                Num::Big { negative, approx } => approx.unwrap_or(if negative { f64::NEG_INFINITY } else { f64::INFINITY }),
            };
            float(start) + float(duration) - 1.0 > last as f64
        }
    }
}

pub(crate) fn chp_rules<'a>(report: &mut Report<'a>, place: &str, values: &'a Value) -> Outcome<()> {
    let Some(periods) = values.get("unavailability_periods").and_then(Value::as_list) else { return Ok(()) };
    for (index, period) in periods.iter().enumerate() {
        if period.as_map().is_none() {
            continue;
        }
        for (name, (low, high)) in &schema().rules.chp_unavailability_keys {
            let value = period.get(name).filter(|value| value.is_int());
            let message = match value.and_then(Value::number) {
                None => format!("Item {} needs an integer {name}.", index + 1),
                Some(number) if less(number, Num::Int(i128::from(*low))) || high.is_some_and(|high| greater(number, Num::Int(i128::from(high)))) => {
                    let limit = match high {
                        Some(high) => format!("{low}..{high}"),
                        None => format!(">= {low}"),
                    };
                    format!("Item {} has {name} {}, outside {limit}.", index + 1, value.map_or(Ok(String::new()), |value| value.str(report.host))?)
                }
                Some(_) => continue,
            };
            report.add("CHP", place, "unavailability_periods", "unavailability_period", Shown::Input(period), message);
            break;
        }
    }
    Ok(())
}

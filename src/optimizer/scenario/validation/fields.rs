//! The checks of one field against its record in the field table: given or not, type, finite,
//! range, choices, and for lists each item, the shape and the series length.

use super::value::{less, Num, Outcome, Raised, Value};
use super::{Context, Report, Shown, MONTHS};
use crate::optimizer::scenario::schema::FieldSpec;
use crate::optimizer::scenario::text::{FALSE_TEXTS, TRUE_TEXTS};

/// The field's problems land under its section, place and name.
struct FieldReport<'r, 'a> {
    report: &'r mut Report<'a>,
    section: &'r str,
    place: &'r str,
    name: &'r str,
}

impl<'a> FieldReport<'_, 'a> {
    fn add(&mut self, rule: &str, value: Shown<'a>, message: String) {
        self.report.add(self.section, self.place, self.name, rule, value, message);
    }
}

pub(crate) fn check_field<'a>(report: &mut Report<'a>, section: &str, place: &str, field: &FieldSpec, value: &'a Value, context: &Context) -> Outcome<()> {
    let host = report.host;
    let mut add = FieldReport { report, section, place, name: &field.name };
    if !value.given() {
        if field.required {
            add.add("required", Shown::Input(value), "This field is required.".into());
        } else if value.is_none() && !field.nullable {
            add.add("null", Shown::Nothing, "This field cannot be null.".into());
        } else if !value.is_none() && !field.blank {
            add.add("blank", Shown::Input(value), "This field cannot be blank.".into());
        }
        return Ok(());
    }
    if let Some(item_kind) = field.kind.strip_prefix("list[").and_then(|rest| rest.strip_suffix(']')) {
        return check_list(&mut add, item_kind, field, value, context);
    }
    let problem = match scalar_problem(&field.kind, value, host)? {
        Some(problem) => Some(problem),
        None => range_problem(value, field.min.as_ref(), field.max.as_ref(), field.choices.as_deref(), host)?,
    };
    if let Some((rule, message)) = problem {
        add.add(rule, Shown::Input(value), message);
    }
    Ok(())
}

/// `math.isfinite(number)` (which raises for an int too large for a float).
fn finite(number: Num) -> Outcome<bool> {
    match number {
        Num::Float(float) => Ok(float.is_finite()),
        Num::Int(_) => Ok(true),
        Num::Big { approx: Some(_), .. } => Ok(true),
        Num::Big { approx: None, .. } => Err(Raised::OverflowError("int too large to convert to float".into())),
    }
}

/// The (rule, message) for one scalar value of type `kind`, or None when it is fine.
pub(crate) fn scalar_problem(kind: &str, value: &Value, host: &dyn super::Host) -> Outcome<Option<(&'static str, String)>> {
    Ok(match kind {
        "float" => match value.number() {
            None => Some(("type", format!("“{}” value must be a float.", value.str(host)?))),
            Some(number) if !finite(number)? => Some(("finite", "Value must be a finite number.".into())),
            Some(_) => None,
        },
        "int" => match value.number() {
            None => Some(("type", format!("“{}” value must be an integer.", value.str(host)?))),
            Some(Num::Float(float)) if !(float.is_finite() && float.fract() == 0.0) => Some(("integer", format!("“{}” value must be an integer.", value.str(host)?))),
            Some(_) => None,
        },
        "bool" if !reads_as_bool(value) => Some(("type", format!("“{}” value must be either True or False.", value.str(host)?))),
        "str" if value.as_str().is_none() => Some(("type", format!("“{}” value must be a string.", value.str(host)?))),
        "object" if value.as_map().is_none() => Some(("type", "Value must be a JSON object.".into())),
        _ => None,
    })
}

/// Whether the service's boolean field takes `value` (`text::service_bool`'s rule: a bool, the
/// numbers 1 and 0, or one of its texts).
fn reads_as_bool(value: &Value) -> bool {
    match value.base() {
        Value::Bool(_) => true,
        Value::Str(text) => TRUE_TEXTS.contains(&text.as_str()) || FALSE_TEXTS.contains(&text.as_str()),
        _ => match value.number() {
            Some(Num::Int(int)) => int == 0 || int == 1,
            Some(Num::Float(float)) => float == 0.0 || float == 1.0,
            _ => false,
        },
    }
}

/// `_fmt`: a bound or a value as the messages show it (`5.0`, `1e+16`, `'text'`, `3`).
pub(crate) fn show(value: &Value, host: &dyn super::Host) -> Outcome<String> {
    match value.base() {
        Value::Float(float) if float.is_finite() && float.fract() == 0.0 => {
            if float.abs() < 1e16 {
                value.repr(host)
            } else {
                Ok(crate::optimizer::scenario::text::format_g(*float))
            }
        }
        Value::Str(_) => value.repr(host),
        _ => value.str(host),
    }
}

pub(crate) fn range_problem(value: &Value, minimum: Option<&Value>, maximum: Option<&Value>, choices: Option<&[Value]>, host: &dyn super::Host) -> Outcome<Option<(&'static str, String)>> {
    if let Some(choices) = choices {
        if !choices.iter().any(|choice| value.py_eq(choice)) {
            let listing = choices.iter().map(|choice| show(choice, host)).collect::<Outcome<Vec<_>>>()?.join(", ");
            return Ok(Some(("choices", format!("Value {} is not a valid choice (choices: {listing}).", value.repr(host)?))));
        }
    }
    if let Some(number) = value.number() {
        if let Some(minimum) = minimum.filter(|minimum| minimum.number().is_some_and(|low| less(number, low))) {
            return Ok(Some(("min", format!("Ensure this value is greater than or equal to {}.", show(minimum, host)?))));
        }
        if let Some(maximum) = maximum.filter(|maximum| maximum.number().is_some_and(|high| less(high, number))) {
            return Ok(Some(("max", format!("Ensure this value is less than or equal to {}.", show(maximum, host)?))));
        }
    }
    Ok(None)
}

fn check_list<'a>(add: &mut FieldReport<'_, 'a>, item_kind: &str, field: &FieldSpec, value: &'a Value, context: &Context) -> Outcome<()> {
    let shape = field.shape.as_deref();
    let Some(items) = value.as_list() else {
        if shape.is_some_and(|shape| shape.starts_with("scalar")) {
            // One value stands for the whole list; its count (1) fits every scalar shape.
            return check_items(add, item_kind, field, std::slice::from_ref(value), context);
        }
        add.add("type", Shown::Input(value), "Expected a list.".into());
        return Ok(());
    };
    check_items(add, item_kind, field, items, context)?;
    check_shape(add, shape, value, items.len(), context);
    Ok(())
}

/// Per-item checks; one problem per field and rule, naming the first bad item and the count.
fn check_items<'a>(add: &mut FieldReport<'_, 'a>, item_kind: &str, field: &FieldSpec, items: &'a [Value], context: &Context) -> Outcome<()> {
    let host = add.report.host;
    let mut first: Vec<(&'static str, usize, &'a Value, String, usize)> = Vec::new();
    // A plain finite float within the item bounds has nothing to report (most of a series).
    let plain_floats = item_kind == "float" && field.item_choices.is_none();
    let low = field.item_min.as_ref().and_then(Value::number);
    let high = field.item_max.as_ref().and_then(Value::number);
    let fits = |x: f64| x.is_finite() && low.is_none_or(|low| !less(Num::Float(x), low)) && high.is_none_or(|high| !less(high, Num::Float(x)));
    for (index, item) in items.iter().enumerate() {
        if let (true, Value::Float(x)) = (plain_floats, item) {
            if fits(*x) {
                continue;
            }
        }
        let problem = match item_kind {
            "list[int]" => time_step_set_problem(item, context),
            "object" => item.as_map().is_none().then(|| ("type", "Item must be a JSON object.".to_owned())),
            _ => match scalar_problem(item_kind, item, host)? {
                Some(problem) => Some(problem),
                None => range_problem(item, field.item_min.as_ref(), field.item_max.as_ref(), field.item_choices.as_deref(), host)?,
            },
        };
        if let Some((rule, message)) = problem {
            match first.iter_mut().find(|seen| seen.0 == rule) {
                Some(seen) => seen.4 += 1,
                None => first.push((rule, index, item, message, 1)),
            }
        }
    }
    for (rule, index, item, message, count) in first {
        let more = count - 1;
        let suffix = if more > 0 { format!(" ({more} more item{} like it)", if more > 1 { "s" } else { "" }) } else { String::new() };
        add.add(rule, Shown::Input(item), format!("Item {} in the array did not validate: {message}{suffix}", index + 1));
    }
    Ok(())
}

fn time_step_set_problem(item: &Value, context: &Context) -> Option<(&'static str, String)> {
    let Some(steps) = item.as_list().filter(|steps| steps.iter().all(Value::is_int)) else {
        return Some(("type", "Each entry must be a list of integer time steps.".into()));
    };
    let latest = Num::Int(i128::from(context.max_time_step));
    for step in steps.iter().filter_map(Value::number) {
        if less(step, Num::Int(1)) {
            return Some(("min", "Time steps are 1-based: ensure each is greater than or equal to 1.".into()));
        }
        if less(latest, step) {
            return Some(("time_step_bound", format!("At least one time step is greater than the max allowable ({}).", context.max_time_step)));
        }
    }
    None
}

fn check_shape<'a>(add: &mut FieldReport<'_, 'a>, shape: Option<&str>, value: &'a Value, count: usize, context: &Context) {
    match shape {
        Some("monthly") if count != MONTHS => add.add("length", Shown::Input(value), format!("Must have 12 values, one per month (got {count}).")),
        Some("up_to_12") if count > MONTHS => add.add("length", Shown::Input(value), format!("List contains {count} items, it should contain no more than 12.")),
        Some("series") => check_series_length(add, value, count, context, ""),
        Some("scalar_or_series") if count != 1 => check_series_length(add, value, count, context, ""),
        Some("scalar_monthly_or_series") if count != 1 && count != MONTHS => check_series_length(add, value, count, context, "1 or 12 values, or "),
        _ => {}
    }
}

fn check_series_length<'a>(add: &mut FieldReport<'_, 'a>, value: &'a Value, count: usize, context: &Context, also: &str) {
    let count_steps = i64::try_from(count).unwrap_or(i64::MAX);
    if count_steps == context.series_length {
        return;
    }
    if !super::series_lengths().contains(&count_steps) {
        add.add(
            "series_length",
            Shown::Input(value),
            format!(
                "Invalid length ({count}). Needs {also}one value per time step: samples must be hourly (8,760 samples), 30 minute (17,520 samples), or 15 minute (35,040 samples)."
            ),
        );
        return;
    }
    add.add(
        "series_length",
        Shown::Input(value),
        format!(
            "Has {count} samples but Settings.time_steps_per_hour is {}, which needs {} (one per time step).",
            context.time_steps_per_hour, context.series_length
        ),
    );
}

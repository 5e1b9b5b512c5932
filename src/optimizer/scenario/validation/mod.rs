//! Validation of optimizer scenarios, every rule in one place: field types, ranges, choices,
//! shapes and series lengths (`fields`), the in-section rules (`rules`), the URDB rate
//! structure (`urdb`) and the rules across sections (`cross`), reading the field table and
//! the rule tables from the embedded schema (`super::schema`).
//!
//! One home for both users: the Python binding (`Scenario.validate()`,
//! `validate_scenario_dict`) converts the user's objects into `Value`s, and the embedded
//! service validates a posted scenario's JSON. Each `Problem` names its section, field, path,
//! rule, the offending value and a message in the live service's wording where it has one;
//! messages show values as Python's `repr`/`str` would (`value`).

pub mod cross;
mod fields;
mod rules;
mod urdb;
pub mod value;

use serde_json::{json, Map};

pub use value::{Handle, Host, Key, NoHost, Origin, Outcome, Raised, Value};

use super::schema::{schema, SectionSpec};

/// Hours of the year a series covers.
pub const HOURS_PER_YEAR: i64 = 8760;
/// Values of a monthly field.
pub const MONTHS: usize = 12;

/// The time steps per hour the schema allows (`Settings.time_steps_per_hour`'s choices).
pub fn time_steps_per_hour_choices() -> Vec<i64> {
    let settings = schema().section("Settings");
    let field = settings.and_then(|section| section.field("time_steps_per_hour"));
    field
        .and_then(|field| field.choices.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|choice| match choice {
            Value::Int(steps) => i64::try_from(*steps).ok(),
            _ => None,
        })
        .collect()
}

/// The series lengths a year may have: one value per time step.
pub fn series_lengths() -> Vec<i64> {
    time_steps_per_hour_choices().into_iter().map(|steps| HOURS_PER_YEAR * steps).collect()
}

/// The offending value of a problem: nothing, a part of the input, or a value made here.
#[derive(Debug, Clone, PartialEq)]
pub enum Shown<'a> {
    Nothing,
    Input(&'a Value),
    Made(Value),
}

fn shown(value: Option<&Value>) -> Shown<'_> {
    value.map_or(Shown::Nothing, Shown::Input)
}

/// One thing wrong with a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem<'a> {
    /// The section key, `""` for the scenario as a whole.
    pub section: String,
    /// The field name, `""` for a rule about the section.
    pub field: String,
    /// Where it is (`ElectricLoad.loads_kw`, `PV[1].max_kw`).
    pub path: String,
    /// A short rule id (`min`, `choices`, `series_length`, ...).
    pub rule: String,
    pub value: Shown<'a>,
    pub message: String,
}

/// What the cross-field rules need to know about the scenario as a whole.
pub(crate) struct Context {
    pub time_steps_per_hour: i64,
    pub off_grid: bool,
    pub series_length: i64,
    pub max_time_step: i64,
}

impl Context {
    fn new(settings: Option<&Value>) -> Context {
        let settings = settings.filter(|settings| settings.as_map().is_some());
        let steps = settings.and_then(|settings| settings.get("time_steps_per_hour"));
        let allowed = time_steps_per_hour_choices();
        let time_steps_per_hour = steps
            .filter(|steps| steps.number().is_some())
            .and_then(|steps| allowed.iter().copied().find(|choice| steps.py_eq(&Value::Int(i128::from(*choice)))))
            .unwrap_or(1);
        let off_grid = settings.and_then(|settings| settings.get("off_grid_flag")).is_some_and(Value::is_true);
        let series_length = HOURS_PER_YEAR * time_steps_per_hour;
        Context { time_steps_per_hour, off_grid, series_length, max_time_step: series_length }
    }
}

/// Collects problems, building paths the same way everywhere.
pub(crate) struct Report<'a> {
    pub problems: Vec<Problem<'a>>,
    pub host: &'a dyn Host,
}

impl<'a> Report<'a> {
    pub fn add(&mut self, section: &str, place: &str, field: &str, rule: &str, value: Shown<'a>, message: String) {
        let path = if field.is_empty() { place.to_owned() } else { format!("{place}.{field}") };
        self.problems.push(Problem { section: section.to_owned(), field: field.to_owned(), path, rule: rule.to_owned(), value, message });
    }
}

/// Every problem of a scenario (as JSON would decode it). Unknown sections and fields are not
/// problems (the service ignores them).
pub fn validate_scenario<'a>(scenario: &'a Value, host: &'a dyn Host) -> Outcome<Vec<Problem<'a>>> {
    let mut report = Report { problems: Vec::new(), host };
    let table = schema();
    let Some(entries) = scenario.as_map() else {
        let kind = scenario.type_name(host)?;
        report.add("", "", "", "type", Shown::Made(Value::Str(kind)), "A scenario must be a JSON object whose keys are section names.".into());
        return Ok(report.problems);
    };
    if !entries.iter().any(|(key, _)| key.name.as_deref().is_some_and(|name| table.section(name).is_some())) {
        let keys: Vec<Key> = entries.iter().map(|(key, _)| key.clone()).collect();
        report.add("", "", "", "not_a_scenario", Shown::Nothing, not_a_scenario_message(&keys));
        return Ok(report.problems);
    }
    let context = Context::new(scenario.get("Settings"));
    cross::check_presence(&mut report, scenario, &context);
    for (key, value) in entries {
        let Some(spec) = key.name.as_deref().and_then(|name| table.section(name)) else { continue };
        for (place, values) in instances(&mut report, spec, value)? {
            check_section(&mut report, spec, &place, values, &context)?;
        }
    }
    for name in &table.top_level_strings {
        if let Some(value) = scenario.get(name).filter(|value| !value.is_none() && value.as_str().is_none()) {
            report.add("", name, "", "type", Shown::Input(value), "Must be a string.".into());
        }
    }
    cross::check_cross_section(&mut report, scenario)?;
    Ok(report.problems)
}

/// Problems of one section on its own: its fields and its in-section rules. None for a
/// section the schema does not know.
pub fn validate_section<'a>(key: &str, values: &'a Value, time_steps_per_hour: &Value, host: &'a dyn Host) -> Option<Outcome<Vec<Problem<'a>>>> {
    let spec = schema().section(key)?;
    let settings = Value::Map(vec![(Key::text("time_steps_per_hour"), time_steps_per_hour.clone())], Origin::PLAIN);
    let context = Context::new(Some(&settings));
    let mut report = Report { problems: Vec::new(), host };
    Some(check_section(&mut report, spec, key, values, &context).map(|()| report.problems))
}

/// Problems in the live service's `messages.input_errors` shape: `{Section: {field_or_rule:
/// [message, ...]}}`; problems about a whole section are keyed by their rule, problems about
/// the whole scenario by `"Scenario"`.
pub fn input_errors(problems: &[Problem<'_>]) -> serde_json::Value {
    let mut errors: Map<String, serde_json::Value> = Map::new();
    for problem in problems {
        let section = if problem.section.is_empty() { "Scenario" } else { &problem.section };
        let label = if problem.field.is_empty() { &problem.rule } else { &problem.field };
        let labels = errors.entry(section.to_owned()).or_insert_with(|| json!({}));
        if let Some(labels) = labels.as_object_mut() {
            if let Some(messages) = labels.entry(label.clone()).or_insert_with(|| json!([])).as_array_mut() {
                messages.push(json!(problem.message));
            }
        }
    }
    serde_json::Value::Object(errors)
}

/// Why a JSON object (given by its keys) is not an optimizer scenario, with a hint of what it
/// may be instead.
pub fn not_a_scenario_message(keys: &[Key]) -> String {
    let has = |name: &str| keys.iter().any(|key| key.name.as_deref() == Some(name));
    let mut shown = keys.iter().take(8).map(Key::repr).collect::<Vec<_>>().join(", ");
    if keys.len() > 8 {
        shown.push_str(", ...");
    }
    let mut text = format!(
        "This is not an optimizer scenario: it has none of the section keys (Site, ElectricLoad, ElectricTariff, PV, ...); its top-level keys are {}.",
        if shown.is_empty() { "none" } else { &shown }
    );
    if has("inputs") && has("outputs") {
        text.push_str(" It looks like an optimizer results response; the scenario it ran is under 'inputs' (Scenario.from_dict(response['inputs'])).");
    } else if has("energyratestructure") || has("energyweekdayschedule") {
        text.push_str(" It looks like a URDB rate; give it as ElectricTariff(urdb_response=...) in a scenario.");
    }
    text
}

/// The section objects under a key with their paths (`PV` may be a list of objects).
fn instances<'a>(report: &mut Report<'a>, spec: &SectionSpec, value: &'a Value) -> Outcome<Vec<(String, &'a Value)>> {
    let key = &spec.key;
    if let (true, Some(items)) = (spec.many, value.as_list()) {
        let mut found = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let place = format!("{key}[{index}]");
            if item.as_map().is_some() {
                found.push((place, item));
            } else {
                report.add(key, &place, "", "type", Shown::Input(item), format!("Each {key} array must be an object."));
            }
        }
        if items.is_empty() {
            report.add(key, key, "", "type", Shown::Input(value), format!("{key} must be an object or a non-empty list."));
        }
        check_unique_names(report, spec, &found)?;
        return Ok(found);
    }
    if value.as_map().is_some() {
        return Ok(vec![(key.clone(), value)]);
    }
    let expected = if spec.many { "an object or a list of objects" } else { "an object" };
    report.add(key, key, "", "type", Shown::Input(value), format!("Section {key} must be {expected}."));
    Ok(Vec::new())
}

/// Several arrays of one section are told apart by `name`, so names must differ.
fn check_unique_names<'a>(report: &mut Report<'a>, spec: &SectionSpec, found: &[(String, &'a Value)]) -> Outcome<()> {
    let default = spec.field("name").map_or(&Value::None, |field| &field.default);
    let mut seen: Vec<&str> = Vec::new();
    for (place, values) in found {
        let (name, value) = match values.get("name") {
            Some(given) => (given, Shown::Input(given)),
            None => (default, Shown::Made(default.clone())),
        };
        let Some(text) = name.as_str() else { continue };
        if seen.contains(&text) {
            let message = format!("Each {} array needs its own name; {} is used twice.", spec.key, name.repr(report.host)?);
            report.add(&spec.key, place, "name", "unique", value, message);
        }
        seen.push(text);
    }
    Ok(())
}

fn check_section<'a>(report: &mut Report<'a>, spec: &SectionSpec, place: &str, values: &'a Value, context: &Context) -> Outcome<()> {
    let key = spec.key.as_str();
    for field in spec.fields.iter().filter(|field| field.required && !values.has(&field.name)) {
        report.add(key, place, &field.name, "required", Shown::Nothing, "This field is required.".into());
    }
    for (name, value) in values.as_map().into_iter().flatten() {
        if let Some(field) = name.name.as_deref().and_then(|name| spec.field(name)) {
            fields::check_field(report, key, place, field, value, context)?;
        }
    }
    rules::check_possible_sets(report, spec, place, values);
    rules::check_bounds(report, key, place, values)?;
    rules::check_blend(report, key, place, values)?;
    rules::check_needs(report, key, place, values)?;
    rules::check_same_length(report, key, place, values);
    match key {
        "ElectricTariff" => rules::electric_tariff_rules(report, place, values, context)?,
        "ElectricUtility" => rules::electric_utility_rules(report, place, values, context)?,
        "CHP" => rules::chp_rules(report, place, values)?,
        _ => {}
    }
    rules::check_grid_mode(report, key, place, values, context)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(scenario: serde_json::Value) -> Vec<(String, String, String)> {
        let value = Value::from_json(&scenario);
        let found = validate_scenario(&value, &NoHost).unwrap();
        found.into_iter().map(|problem| (problem.path, problem.rule, problem.message)).collect()
    }

    fn base() -> serde_json::Value {
        json!({
            "Site": {"latitude": 39.7, "longitude": -105.2},
            "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 100000.0},
            "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 1.0},
        })
    }

    fn with(section: &str, values: serde_json::Value) -> serde_json::Value {
        let mut scenario = base();
        scenario[section] = values;
        scenario
    }

    /// The service looks a sized Wind site up in the WIND Toolkit grid unless the scenario gives
    /// the production factor or all four resource series.
    #[test]
    fn a_wind_site_outside_the_wind_toolkit_is_refused() {
        let message = cross::NOT_IN_WIND_TOOLKIT.to_owned();
        let refused = ("Wind.Site".to_owned(), "wind_toolkit".to_owned(), message);
        assert_eq!(problems(with("Wind", json!({}))), [], "Golden, Colorado is in the grid");
        let mut honolulu = with("Wind", json!({"size_class": "commercial"}));
        honolulu["Site"] = json!({"latitude": 21.3, "longitude": -157.85});
        assert_eq!(problems(honolulu.clone()), [refused]);
        honolulu["Wind"] = json!({"max_kw": 0});
        assert_eq!(problems(honolulu.clone()), [], "an unsized Wind needs no resource");
        honolulu["Wind"] = json!({"production_factor_series": vec![0.3; 8760]});
        assert_eq!(problems(honolulu.clone()), []);
        let series: serde_json::Map<String, serde_json::Value> = cross::WIND_RESOURCE_SERIES.iter().map(|name| ((*name).to_owned(), json!(vec![1.0; 8760]))).collect();
        honolulu["Wind"] = serde_json::Value::Object(series);
        assert_eq!(problems(honolulu), []);
    }

    #[test]
    fn a_valid_scenario_has_no_problems() {
        assert_eq!(problems(base()), []);
    }

    #[test]
    fn ranges_and_choices_name_their_bounds_as_python_shows_them() {
        let found = problems(with("PV", json!({"tilt": 95, "array_type": 7, "losses": 1e17})));
        assert_eq!(
            found,
            [
                ("PV.tilt".into(), "max".into(), "Ensure this value is less than or equal to 90.".into()),
                ("PV.array_type".into(), "choices".into(), "Value 7 is not a valid choice (choices: 0, 1, 2, 3, 4).".into()),
                ("PV.losses".into(), "max".into(), "Ensure this value is less than or equal to 0.99.".into()),
            ]
        );
    }

    #[test]
    fn a_series_of_another_time_step_names_the_settings() {
        let found = problems(with("ElectricLoad", json!({"loads_kw": vec![1.0; 17520], "year": 2017})));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, "series_length");
        assert_eq!(found[0].2, "Has 17520 samples but Settings.time_steps_per_hour is 1, which needs 8760 (one per time step).");
    }

    #[test]
    fn bad_items_are_reported_once_with_a_count() {
        let found = problems(with("ElectricLoad", json!({"loads_kw": [1.0, "x", "y", "z"], "year": 2017})));
        assert_eq!(found[0].2, "Item 2 in the array did not validate: “x” value must be a float. (2 more items like it)");
    }

    #[test]
    fn an_off_grid_run_refuses_sections_it_cannot_model() {
        let mut scenario = with("CHP", json!({"fuel_cost_per_mmbtu": 10.0}));
        scenario["Settings"] = json!({"off_grid_flag": true});
        let found = problems(scenario);
        assert!(found.contains(&("CHP".into(), "off_grid".into(), "Currently, off-grid functionality doesn't allow modeling for CHP (Settings.off_grid_flag is true).".into())));
    }

    #[test]
    fn a_urdb_schedule_pointing_past_its_structure_is_named() {
        let rate = json!({"energyweekdayschedule": vec![vec![0; 24]; 12], "energyweekendschedule": vec![vec![2; 24]; 12], "energyratestructure": [[{"rate": 0.1}]]});
        let found = problems(with("ElectricTariff", json!({"urdb_response": rate})));
        assert_eq!(found, [("ElectricTariff.urdb_response".into(), "urdb".into(), "energyweekendschedule contains value 2 which has no associated rate in energyratestructure.".into())]);
    }

    #[test]
    fn blends_sum_with_fsum_and_show_the_total_as_g() {
        let found = problems(with("ElectricLoad", json!({"blended_doe_reference_names": ["Hospital", "LargeOffice"], "blended_doe_reference_percents": [0.5, 0.25], "annual_kwh": 1.0})));
        assert!(found.contains(&("ElectricLoad.blended_doe_reference_percents".into(), "sum".into(), "Sum must = 1.0 (the percents add up to 0.75).".into())));
    }

    #[test]
    fn a_document_without_sections_says_what_it_may_be() {
        let found = problems(json!({"inputs": {}, "outputs": {}}));
        assert_eq!(found.len(), 1);
        assert!(found[0].2.ends_with("its top-level keys are 'inputs', 'outputs'. It looks like an optimizer results response; the scenario it ran is under 'inputs' (Scenario.from_dict(response['inputs']))."));
    }

    #[test]
    fn input_errors_group_messages_by_section_and_field() {
        let value = Value::from_json(&json!({"Site": {"latitude": 100}}));
        let found = validate_scenario(&value, &NoHost).unwrap();
        let errors = input_errors(&found);
        assert_eq!(errors["Site"]["longitude"], json!(["This field is required."]));
        assert_eq!(errors["Site"]["latitude"], json!(["Ensure this value is less than or equal to 90."]));
        assert_eq!(errors["ElectricLoad"]["required"], json!(["Missing required inputs."]));
    }
}

//! The rules across sections: required sections, the sections an off-grid run may hold, loads
//! that inherit the electric load's reference building, sections that need a field of
//! another, heating loads that need an existing boiler, the resilience window against the
//! outage durations, and a Wind site the service would look up in the WIND Toolkit.

use super::fields::show;
use super::value::{greater, py_max, Num, Value};
use super::{Context, Outcome, Report, Shown};
use crate::optimizer::scenario::schema::schema;
use crate::wind::grid::in_toolkit;

/// The Wind inputs that, all given, spare the service the WIND Toolkit download.
pub const WIND_RESOURCE_SERIES: [&str; 4] = ["wind_meters_per_sec", "wind_direction_degrees", "temperature_celsius", "pressure_atmospheres"];
/// The service's message for a Wind site outside the WIND Toolkit grid.
pub const NOT_IN_WIND_TOOLKIT: &str = "latitude/longitude not in the WindToolkit database. Cannot retrieve wind resource data.";

pub(crate) fn check_presence(report: &mut Report<'_>, scenario: &Value, context: &Context) {
    let table = schema();
    let rules = &table.rules;
    let on_grid: &[String] = if context.off_grid { &[] } else { &rules.required_on_grid_sections };
    for key in rules.required_sections.iter().chain(on_grid) {
        if !scenario.has(key) {
            report.add(key, key, "", "required", Shown::Nothing, "Missing required inputs.".into());
        }
    }
    if context.off_grid {
        for (key, _) in scenario.as_map().into_iter().flatten() {
            let Some(key) = key.name.as_deref() else { continue };
            if table.section(key).is_some() && !rules.off_grid_sections.iter().any(|allowed| allowed == key) {
                report.add(
                    key,
                    key,
                    "",
                    "off_grid",
                    Shown::Nothing,
                    format!("Currently, off-grid functionality doesn't allow modeling for {key} (Settings.off_grid_flag is true)."),
                );
            }
        }
    }
}

/// The section under `key` when it is an object.
fn section<'a>(scenario: &'a Value, key: &str) -> Option<&'a Value> {
    scenario.get(key).filter(|value| value.as_map().is_some())
}

fn given_in(section: Option<&Value>, name: &str) -> bool {
    section.and_then(|section| section.get(name)).is_some_and(Value::given)
}

pub(crate) fn check_cross_section<'a>(report: &mut Report<'a>, scenario: &'a Value) -> Outcome<()> {
    let rules = &schema().rules;
    let electric_load = section(scenario, "ElectricLoad");
    let has_reference = given_in(electric_load, "doe_reference_name") || given_in(electric_load, "blended_doe_reference_names");
    for (key, own_profile) in &rules.inheriting_loads {
        let Some(load) = section(scenario, key) else { continue };
        if own_profile.iter().any(|name| given_in(Some(load), name)) || has_reference {
            continue;
        }
        report.add(key, key, "doe_reference_name", "cross_section", Shown::Nothing, format!("Must provide DOE commercial reference building profiles either under {key} or ElectricLoad."));
    }
    for need in &rules.section_needs {
        if section(scenario, &need.when).is_some() && !given_in(section(scenario, &need.section), &need.need) {
            report.add(&need.section, &need.section, &need.need, &need.rule, Shown::Nothing, need.message.clone());
        }
    }
    let heating: Vec<&str> = rules.heating_loads.iter().map(String::as_str).filter(|key| scenario.has(key)).collect();
    if !heating.is_empty() && !scenario.has("ExistingBoiler") {
        report.add(
            "ExistingBoiler",
            "ExistingBoiler",
            "",
            "cross_section",
            Shown::Nothing,
            format!("A heating load ({}) needs an ExistingBoiler section (with fuel_cost_per_mmbtu) to serve it in the business-as-usual case.", heating.join(", ")),
        );
    }
    check_wind_site(report, scenario);
    let resilience = section(scenario, "Site").and_then(|site| site.get("min_resil_time_steps"));
    let durations = section(scenario, "ElectricUtility").and_then(|utility| utility.get("outage_durations")).and_then(Value::as_list);
    let (Some(resilience), Some(durations)) = (resilience, durations) else { return Ok(()) };
    let Some(steps) = resilience.number() else { return Ok(()) };
    if durations.is_empty() || !durations.iter().all(|duration| duration.number().is_some()) {
        return Ok(());
    }
    if let Some(longest) = py_max(durations).filter(|longest| longest.number().is_some_and(|longest| greater(steps, longest))) {
        let message = format!("min_resil_time_steps must be at most the longest of ElectricUtility.outage_durations ({}).", show(longest, report.host)?);
        report.add("Site", "Site", "min_resil_time_steps", "cross_section", Shown::Input(resilience), message);
    }
    Ok(())
}

/// A sized Wind section (`max_kw` > 0, default 1e9) with neither a production factor nor all
/// four resource series needs the WIND Toolkit: the site must lie in its grid
/// (`wind::grid`), as the service checks before it downloads.
fn check_wind_site(report: &mut Report<'_>, scenario: &Value) {
    let Some(wind) = section(scenario, "Wind") else { return };
    let sized = wind.get("max_kw").and_then(float).is_none_or(|kw| kw > 0.0);
    let has_resource = WIND_RESOURCE_SERIES.iter().all(|name| given_in(Some(wind), name));
    if !sized || has_resource || given_in(Some(wind), "production_factor_series") {
        return;
    }
    let site = section(scenario, "Site");
    let coordinate = |name: &str| site.and_then(|site| site.get(name)).and_then(float);
    let (Some(latitude), Some(longitude)) = (coordinate("latitude"), coordinate("longitude")) else { return };
    if !in_toolkit(latitude, longitude) {
        report.add("Wind", "Wind", "Site", "wind_toolkit", Shown::Nothing, NOT_IN_WIND_TOOLKIT.into());
    }
}

/// A number as a float (a huge int by its approximation).
fn float(value: &Value) -> Option<f64> {
    #[allow(clippy::cast_precision_loss, reason = "compared with 0 or projected: any int is fine as a float")]
    match value.number()? {
        Num::Int(int) => Some(int as f64),
        Num::Float(float) => Some(float),
        Num::Big { approx, .. } => approx,
    }
}

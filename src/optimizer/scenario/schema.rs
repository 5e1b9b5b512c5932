//! The optimizer scenario schema, `data/optimizer/sections.json` (written by
//! `tools/gen_optimizer_schema.py`), embedded at build time: the field table and the cross-field
//! rule tables the validator reads, the defaults the embedded optimizer and the service's resolved
//! scenario take, and the descriptions the Python section classes show. The Python package holds
//! no copy: it reads this text from `sunflux._core.optimizer_sections_json()`, so both read one
//! file. A text that is no schema fails loudly: `sunflux._core` refuses to import, naming the
//! fault (`check_embedded`), and `the_embedded_schema_parses_and_holds_every_section` fails.

use std::sync::OnceLock;

use serde_json::{Map, Value as Json};

use super::validation::Value;

/// The embedded text of the schema, as the generator wrote it.
pub const SECTIONS_JSON: &str = include_str!("../../../data/optimizer/sections.json");

/// The top-level members the schema document must hold, each an object or an array.
const MEMBERS: [(&str, bool); 4] = [("sections", true), ("rules", true), ("docs", true), ("top_level_strings", false)];

/// Parses a schema document and checks its shape: the top-level members, a non-empty section
/// table whose sections each have a field table and descriptions. The error says what is wrong.
pub fn parse_document(text: &str) -> Result<Json, String> {
    let document: Json = serde_json::from_str(text).map_err(|error| format!("it is not JSON ({error})"))?;
    for (member, is_object) in MEMBERS {
        let found = document.get(member).is_some_and(|value| if is_object { value.is_object() } else { value.is_array() });
        if !found {
            return Err(format!("it has no {} `{member}`", if is_object { "object" } else { "array" }));
        }
    }
    let sections = document.get("sections").and_then(Json::as_object).into_iter().flatten();
    let mut count = 0;
    for (key, section) in sections {
        count += 1;
        if !section.get("fields").is_some_and(Json::is_object) {
            return Err(format!("section `{key}` has no `fields` object"));
        }
        if !document.get("docs").and_then(|docs| docs.get(key)).is_some_and(Json::is_object) {
            return Err(format!("section `{key}` has no descriptions under `docs`"));
        }
    }
    if count == 0 {
        return Err("its `sections` table is empty".to_owned());
    }
    Ok(document)
}

/// The embedded document, parsed on first use, or why it is no schema.
fn parsed() -> &'static Result<Json, String> {
    static PARSED: OnceLock<Result<Json, String>> = OnceLock::new();
    PARSED.get_or_init(|| parse_document(SECTIONS_JSON))
}

/// Ok when the embedded schema parses and has its shape; else the message `sunflux._core`
/// raises as an `ImportError`.
pub fn check_embedded() -> Result<(), String> {
    match parsed() {
        Ok(_) => Ok(()),
        Err(fault) => Err(format!(
            "the optimizer schema embedded at build time (data/optimizer/sections.json) is broken: {fault}; \
             regenerate it with `python tools/gen_optimizer_schema.py` and rebuild"
        )),
    }
}

/// The whole schema document. A broken one never gets this far from Python (`sunflux._core`
/// does not import, see `check_embedded`); Rust callers read it as null.
fn document() -> &'static Json {
    static NULL: Json = Json::Null;
    parsed().as_ref().unwrap_or(&NULL)
}

/// The schema's sections (key → `{"fields": {name → record}, ...}`).
fn sections() -> &'static Map<String, Json> {
    static EMPTY: OnceLock<Map<String, Json>> = OnceLock::new();
    document().get("sections").and_then(Json::as_object).unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

/// The schema's default of `section.field`; None when the field has none (the service leaves
/// it null or fills it from other inputs) or is not in the schema.
pub fn default(section: &str, field: &str) -> Option<&'static Json> {
    sections().get(section)?.get("fields")?.get(field)?.get("default").filter(|value| !value.is_null())
}

/// A section's fields (name → record) in the table's order; empty for an unknown section.
pub fn field_records(section: &str) -> impl Iterator<Item = (&'static String, &'static Json)> {
    sections().get(section).and_then(|record| record.get("fields")).and_then(Json::as_object).into_iter().flatten()
}

/// What the field table says about one field, as the validator reads it.
pub struct FieldSpec {
    pub name: String,
    /// The default (None when the table gives none or null).
    pub default: Value,
    /// `float`, `int`, `bool`, `str`, `object` or `list[<item type>]`.
    pub kind: String,
    pub shape: Option<String>,
    pub min: Option<Value>,
    pub max: Option<Value>,
    pub item_min: Option<Value>,
    pub item_max: Option<Value>,
    pub choices: Option<Vec<Value>>,
    pub item_choices: Option<Vec<Value>>,
    pub nullable: bool,
    pub blank: bool,
    pub required: bool,
}

/// One section of the table.
pub struct SectionSpec {
    pub key: String,
    /// The section may be a list of objects (`PV`).
    pub many: bool,
    pub fields: Vec<FieldSpec>,
    /// Sets of fields of which one must be given in full.
    pub possible_sets: Vec<Vec<String>>,
}

impl SectionSpec {
    pub fn field(&self, name: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|field| field.name == name)
    }
}

/// `needs`: a field given (or equal to `equals`) needs another.
pub struct Need {
    pub section: String,
    pub when: String,
    pub equals: Option<Value>,
    pub need: String,
    pub rule: String,
    pub message: String,
}

/// `exclusive`: fields of `either` exclude those of `or`.
pub struct Exclusive {
    pub section: String,
    pub either: Vec<String>,
    pub or: Vec<String>,
    pub report: String,
    pub message: String,
}

/// `section_needs`: a section present needs a field of (maybe another) section.
pub struct SectionNeed {
    pub when: String,
    pub section: String,
    pub need: String,
    pub rule: String,
    pub message: String,
}

/// The URDB rate structure tables.
pub struct UrdbRules {
    pub required: Vec<String>,
    pub schedules: Vec<(String, String)>,
    pub tiered_structures: Vec<String>,
    pub tier_numbers: Vec<String>,
}

/// The cross-field rule tables (`tools/optimizer_schema/rules.json` says what each one is and
/// where it comes from).
pub struct Rules {
    pub required_sections: Vec<String>,
    pub required_on_grid_sections: Vec<String>,
    pub off_grid_sections: Vec<String>,
    pub off_grid_false_flag_sections: Vec<String>,
    pub off_grid_false_flags: Vec<String>,
    pub on_grid_fixed: Vec<(String, String, Value)>,
    pub bound_pairs: Vec<(String, String)>,
    pub needs: Vec<Need>,
    pub exclusive: Vec<Exclusive>,
    pub section_needs: Vec<SectionNeed>,
    pub input_set_notes: Vec<(String, String)>,
    pub heating_loads: Vec<String>,
    pub inheriting_loads: Vec<(String, Vec<String>)>,
    pub blends: Vec<(String, (String, String))>,
    pub same_length: Vec<(String, Vec<Vec<String>>)>,
    pub chp_unavailability_keys: Vec<(String, (i64, Option<i64>))>,
    pub urdb: UrdbRules,
}

/// The schema as the validator reads it.
pub struct Schema {
    pub top_level_strings: Vec<String>,
    pub sections: Vec<SectionSpec>,
    pub rules: Rules,
}

impl Schema {
    pub fn section(&self, key: &str) -> Option<&SectionSpec> {
        self.sections.iter().find(|section| section.key == key)
    }
}

/// The typed schema, built on first use.
pub fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| Schema::from_json(document()))
}

fn strings(value: Option<&Json>) -> Vec<String> {
    value.and_then(Json::as_array).into_iter().flatten().filter_map(Json::as_str).map(str::to_owned).collect()
}

fn text(value: &Json, key: &str) -> String {
    value.get(key).and_then(Json::as_str).unwrap_or_default().to_owned()
}

fn entries(value: Option<&Json>) -> impl Iterator<Item = (&String, &Json)> {
    value.and_then(Json::as_object).into_iter().flatten()
}

fn pair(value: &Json) -> (String, String) {
    let items = strings(Some(value));
    let mut items = items.into_iter();
    (items.next().unwrap_or_default(), items.next().unwrap_or_default())
}

fn number(value: Option<&Json>) -> Option<Value> {
    value.filter(|value| !value.is_null()).map(Value::from_json)
}

fn values(value: Option<&Json>) -> Option<Vec<Value>> {
    value.and_then(Json::as_array).map(|items| items.iter().map(Value::from_json).collect())
}

impl FieldSpec {
    fn from_json(name: &str, record: &Json) -> Self {
        let flag = |key: &str| record.get(key).and_then(Json::as_bool).unwrap_or(false);
        FieldSpec {
            name: name.to_owned(),
            default: record.get("default").map(Value::from_json).unwrap_or(Value::None),
            kind: text(record, "type"),
            shape: record.get("shape").and_then(Json::as_str).map(str::to_owned),
            min: number(record.get("min")),
            max: number(record.get("max")),
            item_min: number(record.get("item_min")),
            item_max: number(record.get("item_max")),
            choices: values(record.get("choices")),
            item_choices: values(record.get("item_choices")),
            nullable: flag("nullable"),
            blank: flag("blank"),
            required: flag("required"),
        }
    }
}

impl Schema {
    fn from_json(document: &Json) -> Self {
        let sections = entries(document.get("sections"))
            .map(|(key, section)| SectionSpec {
                key: key.clone(),
                many: section.get("many").and_then(Json::as_bool).unwrap_or(false),
                fields: entries(section.get("fields")).map(|(name, record)| FieldSpec::from_json(name, record)).collect(),
                possible_sets: section.get("possible_sets").and_then(Json::as_array).into_iter().flatten().map(|set| strings(Some(set))).collect(),
            })
            .collect();
        let rules = document.get("rules").cloned().unwrap_or_default();
        let rule = |key: &str| rules.get(key);
        let flags = rule("off_grid_false_flags");
        let urdb = rule("urdb");
        Schema {
            top_level_strings: strings(document.get("top_level_strings")),
            sections,
            rules: Rules {
                required_sections: strings(rule("required_sections")),
                required_on_grid_sections: strings(rule("required_on_grid_sections")),
                off_grid_sections: strings(rule("off_grid_sections")),
                off_grid_false_flag_sections: strings(flags.and_then(|f| f.get("sections"))),
                off_grid_false_flags: strings(flags.and_then(|f| f.get("flags"))),
                on_grid_fixed: rule("on_grid_fixed")
                    .and_then(Json::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|row| {
                        let row = row.as_array()?;
                        let (section, name, fixed) = (row.first()?.as_str()?, row.get(1)?.as_str()?, row.get(2)?);
                        Some((section.to_owned(), name.to_owned(), Value::from_json(fixed)))
                    })
                    .collect(),
                bound_pairs: rule("bound_pairs").and_then(Json::as_array).into_iter().flatten().map(pair).collect(),
                needs: rule("needs")
                    .and_then(Json::as_array)
                    .into_iter()
                    .flatten()
                    .map(|need| Need {
                        section: text(need, "section"),
                        when: text(need, "when"),
                        equals: need.get("equals").map(Value::from_json),
                        need: text(need, "need"),
                        rule: text(need, "rule"),
                        message: text(need, "message"),
                    })
                    .collect(),
                exclusive: rule("exclusive")
                    .and_then(Json::as_array)
                    .into_iter()
                    .flatten()
                    .map(|rule| Exclusive {
                        section: text(rule, "section"),
                        either: strings(rule.get("either")),
                        or: strings(rule.get("or")),
                        report: text(rule, "report"),
                        message: text(rule, "message"),
                    })
                    .collect(),
                section_needs: rule("section_needs")
                    .and_then(Json::as_array)
                    .into_iter()
                    .flatten()
                    .map(|need| SectionNeed {
                        when: text(need, "when"),
                        section: text(need, "section"),
                        need: text(need, "need"),
                        rule: text(need, "rule"),
                        message: text(need, "message"),
                    })
                    .collect(),
                input_set_notes: entries(rule("input_set_notes")).map(|(key, note)| (key.clone(), note.as_str().unwrap_or_default().to_owned())).collect(),
                heating_loads: strings(rule("heating_loads")),
                inheriting_loads: entries(rule("inheriting_loads")).map(|(key, own)| (key.clone(), strings(Some(own)))).collect(),
                blends: entries(rule("blends")).map(|(key, fields)| (key.clone(), pair(fields))).collect(),
                same_length: entries(rule("same_length"))
                    .map(|(key, groups)| (key.clone(), groups.as_array().into_iter().flatten().map(|group| strings(Some(group))).collect()))
                    .collect(),
                chp_unavailability_keys: entries(rule("chp_unavailability_keys"))
                    .map(|(key, range)| {
                        let low = range.get(0).and_then(Json::as_i64).unwrap_or_default();
                        (key.clone(), (low, range.get(1).and_then(Json::as_i64)))
                    })
                    .collect(),
                urdb: UrdbRules {
                    required: strings(urdb.and_then(|u| u.get("required"))),
                    schedules: urdb.and_then(|u| u.get("schedules")).and_then(Json::as_array).into_iter().flatten().map(pair).collect(),
                    tiered_structures: strings(urdb.and_then(|u| u.get("tiered_structures"))),
                    tier_numbers: strings(urdb.and_then(|u| u.get("tier_numbers"))),
                },
            },
        }
    }
}

/// A section object with the schema's default of every field it does not set appended, in
/// the table's order (defaults that are null, `""` or `[]` are not written), as the scenario
/// builder's `Section.to_dict(include_defaults=True)` does.
pub fn with_defaults(section: &str, values: &Map<String, Json>) -> Map<String, Json> {
    let mut filled = values.clone();
    for (name, record) in field_records(section) {
        let Some(default) = record.get("default") else { continue };
        let empty = match default {
            Json::Null => true,
            Json::String(text) => text.is_empty(),
            Json::Array(items) => items.is_empty(),
            _ => false,
        };
        if !empty && !filled.contains_key(name) {
            filled.insert(name.clone(), default.clone());
        }
    }
    filled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_schema_parses_and_holds_every_section() {
        assert_eq!(check_embedded(), Ok(()));
        assert_eq!(sections().len(), 29);
        assert_eq!(schema().sections.len(), 29);
        assert_eq!(default("ElectricStorage", "installed_cost_per_kwh").and_then(Json::as_f64), Some(253.0));
        assert_eq!(default("Settings", "run_bau"), Some(&Json::Bool(true)));
        assert_eq!(default("Financial", "offtaker_tax_rate_fraction"), None);
        assert_eq!(default("PV", "no_such_field"), None);
    }

    #[test]
    fn a_broken_schema_is_refused_with_its_fault() {
        assert!(parse_document("{\"sections\": ").is_err_and(|fault| fault.starts_with("it is not JSON")));
        assert_eq!(parse_document("[]"), Err("it has no object `sections`".to_owned()));
        let empty = r#"{"sections": {}, "rules": {}, "docs": {}, "top_level_strings": []}"#;
        assert_eq!(parse_document(empty), Err("its `sections` table is empty".to_owned()));
        let undocumented = r#"{"sections": {"PV": {"fields": {}}}, "rules": {}, "docs": {}, "top_level_strings": []}"#;
        assert_eq!(parse_document(undocumented), Err("section `PV` has no descriptions under `docs`".to_owned()));
    }

    #[test]
    fn the_rule_tables_are_read_in_order() {
        let rules = &schema().rules;
        assert_eq!(rules.required_sections, ["Site", "ElectricLoad"]);
        assert_eq!(rules.bound_pairs.first(), Some(&("min_kw".to_owned(), "max_kw".to_owned())));
        assert_eq!(rules.chp_unavailability_keys.last(), Some(&("duration_hours".to_owned(), (0, None))));
        assert!(schema().section("PV").is_some_and(|pv| pv.many));
    }

    #[test]
    fn defaults_follow_the_set_values_and_skip_empty_ones() {
        let values: Map<String, Json> = serde_json::from_str(r#"{"run_bau": false, "extra": 1}"#).unwrap();
        let filled = with_defaults("Settings", &values);
        let keys: Vec<&String> = filled.keys().take(2).collect();
        assert_eq!(keys, ["run_bau", "extra"]);
        assert_eq!(filled.get("run_bau"), Some(&Json::Bool(false)));
        assert!(filled.len() > 2);
        assert!(filled.values().all(|value| !value.is_null()));
    }
}

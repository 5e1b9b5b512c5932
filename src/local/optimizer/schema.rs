//! The optimizer scenario schema, `python/sunflux/optimizer/schema.json` (written by
//! `tools/gen_optimizer_schema.py`, shipped with the Python package), embedded at build time so
//! the model's defaults come from the same file the Python scenario builder reads.

use std::sync::OnceLock;

use serde_json::{Map, Value};

const SCHEMA_JSON: &str = include_str!("../../../python/sunflux/optimizer/schema.json");

/// The schema's sections (key → `{"fields": {name → record}, ...}`), parsed on first use.
fn sections() -> &'static Map<String, Value> {
    static SECTIONS: OnceLock<Map<String, Value>> = OnceLock::new();
    SECTIONS.get_or_init(|| {
        let document: Value = serde_json::from_str(SCHEMA_JSON).unwrap_or_default();
        document.get("sections").and_then(Value::as_object).cloned().unwrap_or_default()
    })
}

/// The schema's default of `section.field`; None when the field has none (the service leaves
/// it null or fills it from other inputs) or is not in the schema.
pub fn default(section: &str, field: &str) -> Option<&'static Value> {
    sections().get(section)?.get("fields")?.get(field)?.get("default").filter(|value| !value.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_schema_parses_and_holds_every_section() {
        assert_eq!(sections().len(), 29);
        assert_eq!(default("ElectricStorage", "installed_cost_per_kwh").and_then(Value::as_f64), Some(253.0));
        assert_eq!(default("Settings", "run_bau"), Some(&Value::Bool(true)));
        assert_eq!(default("Financial", "offtaker_tax_rate_fraction"), None);
        assert_eq!(default("PV", "no_such_field"), None);
    }
}

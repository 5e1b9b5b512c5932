//! The optimizer's inputs from the Utility Rate Database API (version 8, the one the optimizer
//! reads): a rate by its label, and the newest rate of a utility whose name is part of a given
//! rate name (how the optimizer reads `urdb_utility_name` with `urdb_rate_name`).

use serde_json::{Map, Value};

use super::answer::not_found;
use crate::optimizer::scenario::text::{python_str, str_repr};
use crate::error::{Error, Result};
use crate::services::handle::ServiceHandle;
use crate::services::missing::parse_failure;
use crate::transport::{Endpoint, Request};

/// The version of the Utility Rate Database API asked for.
pub const URDB_API_VERSION: u32 = 8;
/// A rate label is 24 hexadecimal digits.
const LABEL_DIGITS: usize = 24;

/// Why `shown` (a label as the caller's language writes it) is not a rate label.
pub fn label_problem(shown: &str) -> String {
    format!("urdb_label must be a URDB rate label of 24 hexadecimal digits (got {shown})")
}

/// The label, when it is one.
pub fn checked_label(label: &str) -> Result<String> {
    if label.len() == LABEL_DIGITS && label.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(label.to_owned())
    } else {
        Err(Error::Parameter(vec![label_problem(&str_repr(label))]))
    }
}

/// The utility and rate name, when both are given.
pub fn checked_names(utility: Option<&str>, rate_name: Option<&str>) -> Result<(String, String)> {
    match (utility, rate_name) {
        (Some(utility), Some(rate_name)) if !utility.is_empty() && !rate_name.is_empty() => Ok((utility.to_owned(), rate_name.to_owned())),
        _ => Err(Error::Parameter(vec!["urdb_utility_name and urdb_rate_name must both be given".into()])),
    }
}

/// The query of a lookup: full detail as JSON, plus what selects the rates.
fn query(selector: (&str, &str)) -> Vec<(String, String)> {
    let fixed = [("version", URDB_API_VERSION.to_string()), ("format", "json".to_owned()), ("detail", "full".to_owned())];
    fixed.into_iter().chain([(selector.0, selector.1.to_owned())]).map(|(name, value)| (name.to_owned(), value)).collect()
}

/// The answer's rates (`items`), those that are objects.
fn items(body: &Value) -> impl Iterator<Item = &Map<String, Value>> {
    body.get("items").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object)
}

/// The first rate of an answer; `NotFoundError` naming `what` when there is none.
pub fn first_rate(body: &Value, what: &str) -> Result<Map<String, Value>> {
    items(body).next().cloned().ok_or_else(|| not_found(format!("the Utility Rate Database has no rate for {what}")))
}

/// The newest (latest `startdate`) rate whose name is part of `rate_name`; the first of equals.
pub fn newest_named(body: &Value, utility: &str, rate_name: &str) -> Result<Map<String, Value>> {
    let start = |item: &Map<String, Value>| item.get("startdate").and_then(Value::as_f64).unwrap_or(0.0);
    items(body)
        .filter(|item| rate_name.contains(&python_str(item.get("name").unwrap_or(&Value::from("")))))
        .fold(None::<&Map<String, Value>>, |best, item| match best {
            Some(best) if start(best) >= start(item) => Some(best),
            _ => Some(item),
        })
        .cloned()
        .ok_or_else(|| not_found(format!("the Utility Rate Database has no rate {} of {}", str_repr(rate_name), str_repr(utility))))
}

/// Asks the rate database (the handle of its own client) and returns the answer's JSON.
async fn lookup(handle: &ServiceHandle, selector: (&str, &str)) -> Result<Value> {
    let response = handle.send(Request::get(Endpoint::UtilityRates, query(selector))).await?;
    let body = handle.scrub(&response.body);
    serde_json::from_slice(&body).map_err(|e| parse_failure(&body, &format!("the Utility Rate Database answer is not JSON: {e}"), |t| handle.redact(t)))
}

/// The full rate object of a label (what `urdb_response` holds).
pub async fn rate_by_label(handle: ServiceHandle, label: String) -> Result<Map<String, Value>> {
    first_rate(&lookup(&handle, ("getpage", &label)).await?, &format!("label {label}"))
}

/// The newest rate of `utility` whose name is part of `rate_name`.
pub async fn rate_by_name(handle: ServiceHandle, utility: String, rate_name: String) -> Result<Map<String, Value>> {
    newest_named(&lookup(&handle, ("ratesforutility", &utility)).await?, &utility, &rate_name)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_label_is_24_hexadecimal_digits() {
        assert_eq!(checked_label("5ed6c1a15457a3367add15ae").unwrap(), "5ed6c1a15457a3367add15ae");
        let Err(Error::Parameter(problems)) = checked_label("not-a-label") else { panic!("accepted") };
        assert_eq!(problems, [label_problem("'not-a-label'")]);
        assert!(checked_label("5ed6c1a15457a3367add15aé").is_err() && checked_label("5ed6c1a15457a3367add15ae0").is_err());
        assert!(checked_names(Some("Utility"), None).is_err() && checked_names(Some(""), Some("x")).is_err());
    }

    #[test]
    fn the_query_asks_for_version_8_in_full_detail() {
        let pairs = query(("getpage", "abc"));
        let shown: Vec<String> = pairs.iter().map(|(name, value)| format!("{name}={value}")).collect();
        assert_eq!(shown, ["version=8", "format=json", "detail=full", "getpage=abc"]);
    }

    #[test]
    fn the_newest_rate_whose_name_is_part_of_the_rate_name_is_chosen() -> Result<()> {
        let body = json!({"items": [
            {"name": "E-19", "startdate": 100, "label": "old"},
            {"name": "E-19", "startdate": 300, "label": "new"},
            {"name": "E-19", "startdate": 300, "label": "equal"},
            {"name": "A-1", "startdate": 900, "label": "other"},
            {"name": "E-19 TOU", "startdate": 999, "label": "longer"},
            "not a rate",
        ]});
        assert_eq!(newest_named(&body, "PG&E", "E-19 Medium General Demand")?["label"], "new");
        let Err(Error::Api(missing)) = newest_named(&body, "PG&E", "B-6") else { panic!("found") };
        assert_eq!((missing.status, missing.errors[0].as_str()), (404, "the Utility Rate Database has no rate 'B-6' of 'PG&E'"));
        assert_eq!(newest_named(&json!({"items": [{"label": "nameless"}]}), "u", "any")?["label"], "nameless");
        assert!(first_rate(&json!({"items": []}), "label x").is_err());
        assert_eq!(first_rate(&body, "label x")?["label"], "old");
        Ok(())
    }
}

//! The one rule for answers that lack what they must hold. A zero is a real answer here, so a
//! missing value never becomes one: an error body (a gateway's `{"error": {"code": ...}}` or a
//! service's non-empty `errors`) raises its own typed error, and anything else raises `ApiError`
//! naming every required field that is missing. Optional fields that are absent read as `None`.

use crate::error::{ApiErrorKind, ApiFailure, Error};
use crate::formats::error_body::{classify, gateway_error, parse_error_body, service_errors};

/// The error for an answer `body` (status 200) that lacks the `missing` required fields.
pub fn missing_outputs(body: &[u8], missing: &[&str], redact: impl Fn(&str) -> String) -> Error {
    carried_error(body, &redact).unwrap_or_else(|| {
        api_error(ApiErrorKind::Other, None, vec![format!("the answer has no {}", missing.join(", "))], body, &redact)
    })
}

/// The typed error a JSON error body carries (a gateway error object or a non-empty `errors`
/// list), if it is one.
pub fn carried_error(body: &[u8], redact: impl Fn(&str) -> String) -> Option<Error> {
    let start = body.iter().position(|b| !b.is_ascii_whitespace())?;
    let messages = match body.get(start) {
        Some(b'{') => {
            let value = serde_json::from_slice::<serde_json::Value>(body).ok()?;
            service_errors(&value).or_else(|| gateway_error(&value).map(|g| g.messages))?
        }
        Some(b'<') => {
            let listed = crate::formats::xml::read_xml(body).ok().and_then(|value| service_errors(&value));
            let parsed = parse_error_body(body);
            match (listed, parsed.code) {
                (Some(messages), _) => messages,
                (None, Some(_)) => parsed.messages,
                (None, None) => return None,
            }
        }
        _ => return None,
    };
    let parsed = parse_error_body(body);
    Some(api_error(classify(200, &parsed), parsed.code, messages, body, &redact))
}

/// The error for a body that could not be parsed: the typed error it carries, if any, else
/// `Error::Parse` with `message`.
pub fn parse_failure(body: &[u8], message: &str, redact: impl Fn(&str) -> String) -> Error {
    carried_error(body, &redact).unwrap_or_else(|| Error::Parse(redact(message)))
}

fn api_error(kind: ApiErrorKind, code: Option<String>, errors: Vec<String>, body: &[u8], redact: impl Fn(&str) -> String) -> Error {
    Error::Api(Box::new(ApiFailure {
        kind,
        status: 200,
        code,
        errors: errors.iter().map(|m| redact(m)).collect(),
        body: redact(&String::from_utf8_lossy(body.get(..4096).unwrap_or(body))),
        url: String::new(),
        retry_after: None,
        remaining: None,
        input_errors: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_what_is_missing_or_raises_the_error_the_body_carries() {
        let Error::Api(plain) = missing_outputs(b"{}", &["outputs"], str::to_owned) else { panic!() };
        assert_eq!((plain.kind, plain.errors.clone()), (ApiErrorKind::Other, vec!["the answer has no outputs".to_owned()]));
        let gateway = br#"{"error":{"code":"API_KEY_INVALID","message":"An invalid api_key was supplied"}}"#;
        let Error::Api(auth) = missing_outputs(gateway, &["outputs"], str::to_owned) else { panic!() };
        assert_eq!((auth.kind, auth.code.as_deref()), (ApiErrorKind::Auth, Some("API_KEY_INVALID")));
        let Error::Api(service) = missing_outputs(br#"{"errors":["lat is required"]}"#, &["outputs"], str::to_owned) else { panic!() };
        assert_eq!(service.errors, vec!["lat is required".to_owned()]);
    }
}

//! Reading error bodies: gateway errors in JSON, XML, CSV or HTML, and service bodies with an
//! `errors` list (also on HTTP 200), and turning status + body into a typed `ApiFailure`.

use std::time::Duration;

use crate::error::{ApiErrorKind, ApiFailure};

/// What an error body said, whatever its format.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ErrorBody {
    /// Gateway code such as `API_KEY_INVALID` or `OVER_RATE_LIMIT`.
    pub code: Option<String>,
    /// Human-readable messages, in order.
    pub messages: Vec<String>,
    /// The body was an HTML page (a gateway or proxy, not the service).
    pub html: bool,
}

/// Extracts code and messages from any of the four gateway formats or a service `errors` body.
pub fn parse_error_body(body: &[u8]) -> ErrorBody {
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.is_empty() {
        return ErrorBody::default();
    }
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(trimmed) {
            return from_json(&value);
        }
    }
    if looks_like_html(trimmed) {
        return from_html(trimmed);
    }
    if trimmed.starts_with('<') {
        return from_xml(trimmed);
    }
    if let Some(parsed) = from_csv(trimmed) {
        return parsed;
    }
    ErrorBody { code: None, messages: vec![first_line(trimmed)], html: false }
}

/// Messages of a service body's non-empty `errors` (list of strings, or a map of lists as the
/// optimizer sends). `None` when there is no such list or it is empty.
pub fn service_errors(value: &serde_json::Value) -> Option<Vec<String>> {
    let messages = collect_messages(value.get("errors")?);
    (!messages.is_empty()).then_some(messages)
}

/// A gateway error object (`{"error": {"code": "API_KEY_INVALID", "message": ...}}`), which no
/// service answer has at its top level, whatever the HTTP status it came with.
pub fn gateway_error(value: &serde_json::Value) -> Option<ErrorBody> {
    let error = value.get("error")?;
    error.get("code").and_then(serde_json::Value::as_str)?;
    let mut body = from_json(value);
    if body.messages.is_empty() {
        body.messages.push(body.code.clone().unwrap_or_default());
    }
    Some(body)
}

/// Whether a body is an HTML page (a gateway's or a proxy's, not the service's), judged from its
/// first kilobyte so that large bodies are not copied.
pub fn is_html_page(body: &[u8]) -> bool {
    let head = body.get(..1024).unwrap_or(body);
    let text = String::from_utf8_lossy(head);
    looks_like_html(text.trim_start_matches('\u{feff}').trim_start())
}

fn from_json(value: &serde_json::Value) -> ErrorBody {
    if let Some(error) = value.get("error").filter(|e| e.is_object()) {
        let code = error.get("code").and_then(|c| c.as_str()).map(str::to_owned);
        let messages = error.get("message").map(collect_messages).unwrap_or_default();
        return ErrorBody { code, messages, html: false };
    }
    let mut messages = value.get("errors").map(collect_messages).unwrap_or_default();
    if let Some(optimizer) = value.get("messages") {
        for key in ["error", "errors", "input_errors"] {
            if let Some(found) = optimizer.get(key) {
                messages.extend(collect_messages(found));
            }
        }
    }
    if messages.is_empty() {
        if let Some(message) = value.get("message").or_else(|| value.get("status")).and_then(|m| m.as_str()) {
            messages.push(message.to_owned());
        }
    }
    ErrorBody { code: None, messages, html: false }
}

/// Flattens strings, lists and maps of messages into one list (maps as `key: message`).
fn collect_messages(value: &serde_json::Value) -> Vec<String> {
    match value {
        serde_json::Value::String(s) if !s.is_empty() => vec![s.clone()],
        serde_json::Value::Array(items) => items.iter().flat_map(collect_messages).collect(),
        serde_json::Value::Object(map) => map
            .iter()
            .flat_map(|(key, inner)| collect_messages(inner).into_iter().map(move |m| format!("{key}: {m}")))
            .collect(),
        serde_json::Value::Number(n) => vec![n.to_string()],
        _ => Vec::new(),
    }
}

fn looks_like_html(text: &str) -> bool {
    let head: String = text.chars().take(200).collect::<String>().to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.contains("<html") || head.starts_with("<head") || head.starts_with("<body")
}

fn from_html(text: &str) -> ErrorBody {
    let title = element_text(text, "title");
    let heading = element_text(text, "h1");
    let body_text = strip_tags(text);
    let mut messages: Vec<String> = [title, heading].into_iter().flatten().collect();
    messages.dedup();
    if let Some(support) = body_text.find("support ID").map(|at| body_text[at..].chars().take(80).collect::<String>()) {
        messages.push(support.trim().to_owned());
    }
    if messages.is_empty() && !body_text.is_empty() {
        messages.push(body_text.chars().take(200).collect());
    }
    ErrorBody { code: None, messages, html: true }
}

fn from_xml(text: &str) -> ErrorBody {
    let code = element_text(text, "code");
    let mut messages: Vec<String> = element_text(text, "message").into_iter().collect();
    if messages.is_empty() {
        messages = all_element_texts(text, "error");
    }
    ErrorBody { code, messages, html: false }
}

fn from_csv(text: &str) -> Option<ErrorBody> {
    let mut lines = text.lines();
    let header = lines.next()?.trim();
    if !header.eq_ignore_ascii_case("Error Code,Error Message") {
        return None;
    }
    let row = lines.next().unwrap_or("");
    let (code, message) = row.split_once(',').unwrap_or((row, ""));
    let message = message.trim().trim_matches('"').to_owned();
    Some(ErrorBody {
        code: Some(code.trim().to_owned()).filter(|c| !c.is_empty()),
        messages: if message.is_empty() { Vec::new() } else { vec![message] },
        html: false,
    })
}

/// Text of the first `<tag>…</tag>` (case-insensitive, attributes allowed), entities decoded.
fn element_text(text: &str, tag: &str) -> Option<String> {
    all_element_texts(text, tag).into_iter().next()
}

fn all_element_texts(text: &str, tag: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(rel) = lower[from..].find(&open) {
        let start = from + rel;
        let after_name = start + open.len();
        let next = lower[after_name..].chars().next();
        if !matches!(next, Some('>') | Some(' ') | Some('\t') | Some('\n')) {
            from = after_name;
            continue;
        }
        let Some(gt) = lower[after_name..].find('>') else { break };
        let content_start = after_name + gt + 1;
        let Some(end_rel) = lower[content_start..].find(&close) else { break };
        let content = strip_tags(&text[content_start..content_start + end_rel]);
        if !content.is_empty() {
            found.push(content);
        }
        from = content_start + end_rel + close.len();
    }
    found
}

fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    let decoded = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").chars().take(200).collect()
}

/// Decides the error class from the status and what the body said.
pub fn classify(status: u16, body: &ErrorBody) -> ApiErrorKind {
    let code = body.code.as_deref().unwrap_or("");
    let joined = body.messages.join(" ").to_ascii_lowercase();
    if code == "OVER_RATE_LIMIT" || status == 429 || (status == 503 && joined.contains("rate limit")) {
        return ApiErrorKind::RateLimit;
    }
    if code.starts_with("API_KEY_") || status == 403 || status == 401 {
        return ApiErrorKind::Auth;
    }
    if joined.contains("queue is full") || joined.contains("queue full") {
        return ApiErrorKind::QueueFull;
    }
    if joined.contains("data processing failure") || body.html || status >= 500 {
        return ApiErrorKind::Server;
    }
    match status {
        400 | 422 => ApiErrorKind::Validation,
        404 => ApiErrorKind::NotFound,
        _ => ApiErrorKind::Other,
    }
}

/// `Retry-After` as seconds (the HTTP-date form is rare on these services and treated as absent).
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| crate::limits::clamped_seconds(seconds.min(86_400.0)))
}

/// Builds the failure for a non-success answer (or a 200 with errors).
pub fn failure(status: u16, body: &[u8], url: String, retry_after: Option<Duration>, remaining: Option<i64>, redacted_body: String) -> ApiFailure {
    let parsed = parse_error_body(body);
    let kind = classify(status, &parsed);
    let errors = if parsed.messages.is_empty() { vec![default_message(status)] } else { parsed.messages.clone() };
    ApiFailure { kind, status, code: parsed.code, errors, body: redacted_body, url, retry_after, remaining, input_errors: None }
}

fn default_message(status: u16) -> String {
    match status {
        400 => "Bad Request".into(),
        403 => "Forbidden".into(),
        404 => "Not Found".into(),
        422 => "Unprocessable Entity".into(),
        429 => "Too Many Requests".into(),
        500 => "Internal Server Error".into(),
        502 => "Bad Gateway".into(),
        503 => "Service Unavailable".into(),
        504 => "Gateway Timeout".into(),
        other => format!("HTTP status {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_gateway_error() {
        let body = br#"{"error":{"code":"API_KEY_MISSING","message":"No api_key was supplied. Get one at https://developer.nlr.gov"}}"#;
        let parsed = parse_error_body(body);
        assert_eq!(parsed.code.as_deref(), Some("API_KEY_MISSING"));
        assert_eq!(parsed.messages, vec!["No api_key was supplied. Get one at https://developer.nlr.gov"]);
        assert_eq!(classify(403, &parsed), ApiErrorKind::Auth);
    }

    #[test]
    fn xml_gateway_error() {
        let body = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<response>\n  <error>\n    <code>OVER_RATE_LIMIT</code>\n    <message>You have exceeded your rate limit. Try again later.</message>\n  </error>\n</response>";
        let parsed = parse_error_body(body);
        assert_eq!(parsed.code.as_deref(), Some("OVER_RATE_LIMIT"));
        assert_eq!(parsed.messages, vec!["You have exceeded your rate limit. Try again later."]);
        assert_eq!(classify(429, &parsed), ApiErrorKind::RateLimit);
    }

    #[test]
    fn csv_gateway_error() {
        let parsed = parse_error_body(b"Error Code,Error Message\nAPI_KEY_INVALID,An invalid api_key was supplied.\n");
        assert_eq!(parsed.code.as_deref(), Some("API_KEY_INVALID"));
        assert_eq!(parsed.messages, vec!["An invalid api_key was supplied."]);
        assert_eq!(classify(403, &parsed), ApiErrorKind::Auth);
    }

    #[test]
    fn html_gateway_pages() {
        let page = b"<html><head><title>Request Rejected</title></head><body>The requested URL was rejected. Your support ID is: 1234567890</body></html>";
        let parsed = parse_error_body(page);
        assert!(parsed.html);
        assert_eq!(parsed.messages[0], "Request Rejected");
        assert!(parsed.messages.iter().any(|m| m.contains("support ID is: 1234567890")));
        assert_eq!(classify(200, &parsed), ApiErrorKind::Server);
        let upstream = parse_error_body(b"<!DOCTYPE html><html><body><h1>503 Service Unavailable</h1>no healthy upstream</body></html>");
        assert_eq!(upstream.messages[0], "503 Service Unavailable");
        assert_eq!(classify(503, &upstream), ApiErrorKind::Server);
    }

    #[test]
    fn service_bodies() {
        let body = br#"{"inputs":{"body":{},"params":{},"query":{}},"metadata":{"version":"2.0.0"},"status":400,"errors":["Data processing failure."]}"#;
        let parsed = parse_error_body(body);
        assert_eq!(parsed.messages, vec!["Data processing failure."]);
        assert_eq!(classify(400, &parsed), ApiErrorKind::Server);
        let queue = parse_error_body(br#"{"errors":["The request queue is full. Please try again later."]}"#);
        assert_eq!(classify(503, &queue), ApiErrorKind::QueueFull);
        let invalid = parse_error_body(br#"{"errors":["lat must be between -90 and 90"]}"#);
        assert_eq!(classify(422, &invalid), ApiErrorKind::Validation);
    }

    #[test]
    fn optimizer_input_errors_are_flattened_with_their_section() {
        let body = br#"{"status":"Invalid inputs. No optimization task has been created. See messages for details.","run_uuid":"","messages":{"error":"Invalid inputs.","input_errors":{"Site":["latitude: required"],"PV":["tilt: too large"]}}}"#;
        let parsed = parse_error_body(body);
        assert_eq!(parsed.messages, vec!["Invalid inputs.", "Site: latitude: required", "PV: tilt: too large"]);
    }

    #[test]
    fn errors_on_200_are_found() {
        let value: serde_json::Value = serde_json::from_str(r#"{"errors":["An internal error occurred in the pvwattsv5 module."],"outputs":{}}"#).unwrap();
        assert_eq!(service_errors(&value).unwrap().len(), 1);
        let fine: serde_json::Value = serde_json::from_str(r#"{"errors":[],"outputs":{}}"#).unwrap();
        assert!(service_errors(&fine).is_none());
    }

    #[test]
    fn retry_after_seconds() {
        assert_eq!(parse_retry_after(" 3 "), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }
}

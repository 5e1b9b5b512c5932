//! The embedded service's API gateway: finds the key (header, query or basic auth), checks it,
//! counts requests per key against rolling limits, and writes gateway errors in the request's
//! format as the real gateway does.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use base64::Engine as _;

use super::reply::ServiceReply;
use crate::formats::Format;
use crate::transport::auth::API_KEY_LENGTH;

const SIGNUP: &str = "https://developer.nlr.gov";

/// Gateway error codes the embedded service produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GatewayCode {
    ApiKeyMissing,
    ApiKeyInvalid,
    OverRateLimit,
}

impl GatewayCode {
    pub fn as_str(self) -> &'static str {
        match self {
            GatewayCode::ApiKeyMissing => "API_KEY_MISSING",
            GatewayCode::ApiKeyInvalid => "API_KEY_INVALID",
            GatewayCode::OverRateLimit => "OVER_RATE_LIMIT",
        }
    }

    pub fn status(self) -> u16 {
        match self {
            GatewayCode::ApiKeyMissing | GatewayCode::ApiKeyInvalid => 403,
            GatewayCode::OverRateLimit => 429,
        }
    }

    pub fn message(self) -> String {
        match self {
            GatewayCode::ApiKeyMissing => format!("No api_key was supplied. Get one at {SIGNUP}"),
            GatewayCode::ApiKeyInvalid => format!("An invalid api_key was supplied. Get one at {SIGNUP}"),
            GatewayCode::OverRateLimit => {
                format!("You have exceeded your rate limit. Try again later or contact us at {SIGNUP}/contact/ for assistance")
            }
        }
    }
}

/// The key of a request, looked for where the real gateway looks: the `X-Api-Key` header, then
/// the `api_key` query parameter, then the user name of HTTP basic authentication.
pub fn find_key(x_api_key: Option<&str>, query: &[(String, String)], authorization: Option<&str>) -> Option<String> {
    if let Some(key) = x_api_key.filter(|k| !k.is_empty()) {
        return Some(key.to_owned());
    }
    if let Some((_, key)) = query.iter().find(|(name, value)| name == "api_key" && !value.is_empty()) {
        return Some(key.clone());
    }
    basic_user(authorization?)
}

fn basic_user(authorization: &str) -> Option<String> {
    let (scheme, encoded) = authorization.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let user = text.split_once(':').map_or(text.as_str(), |(user, _)| user);
    (!user.is_empty()).then(|| user.to_owned())
}

/// Decides whether a key is accepted: 40 characters and registered with this service.
pub fn check_key(key: Option<&str>, registered: &HashSet<String>) -> Result<(), GatewayCode> {
    match key {
        None => Err(GatewayCode::ApiKeyMissing),
        Some(key) if key.chars().count() != API_KEY_LENGTH || !registered.contains(key) => Err(GatewayCode::ApiKeyInvalid),
        Some(_) => Ok(()),
    }
}

/// A gateway error body in the request's format (JSON, XML or CSV).
pub fn gateway_error(code: GatewayCode, format: Format) -> ServiceReply {
    let message = code.message();
    let body = match format {
        Format::Json => serde_json::json!({"error": {"code": code.as_str(), "message": message}}).to_string(),
        Format::Xml => format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<response>\n  <error>\n    <code>{}</code>\n    <message>{}</message>\n  </error>\n</response>\n",
            code.as_str(),
            xml_escape(&message)
        ),
        Format::Csv => format!("Error Code,Error Message\n{},{}\n", code.as_str(), csv_field(&message)),
    };
    ServiceReply::new(code.status(), format.content_type(), body)
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// Per-key rolling-window counting, as `X-RateLimit-Limit` / `-Remaining` report it.
#[derive(Debug)]
pub struct KeyLimiter {
    pub limit: u32,
    pub window: Duration,
    seen: HashMap<String, VecDeque<Instant>>,
}

/// The outcome of counting one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Admission {
    pub admitted: bool,
    pub limit: u32,
    pub remaining: u32,
}

impl KeyLimiter {
    pub fn new(limit: u32, window: Duration) -> Self {
        KeyLimiter { limit, window, seen: HashMap::new() }
    }

    /// Counts a request of `key` at `now` if it fits in the rolling window.
    pub fn admit(&mut self, key: &str, now: Instant) -> Admission {
        let log = self.seen.entry(key.to_owned()).or_default();
        while log.front().is_some_and(|t| *t + self.window <= now) {
            log.pop_front();
        }
        let used = log.len() as u32;
        if used >= self.limit {
            return Admission { admitted: false, limit: self.limit, remaining: 0 };
        }
        log.push_back(now);
        Admission { admitted: true, limit: self.limit, remaining: self.limit - used - 1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0123456789abcdefghij0123456789abcdefghij";

    #[test]
    fn key_is_found_in_header_query_or_basic_auth() {
        let basic = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{KEY}:")));
        assert_eq!(find_key(Some(KEY), &[], None).as_deref(), Some(KEY));
        assert_eq!(find_key(None, &[("api_key".into(), KEY.into())], None).as_deref(), Some(KEY));
        assert_eq!(find_key(None, &[], Some(&basic)).as_deref(), Some(KEY));
        assert_eq!(find_key(None, &[], Some("Bearer x")), None);
        assert_eq!(find_key(None, &[("lat".into(), "1".into())], None), None);
    }

    #[test]
    fn key_rules() {
        let registered: HashSet<String> = [KEY.to_owned()].into();
        assert_eq!(check_key(None, &registered), Err(GatewayCode::ApiKeyMissing));
        assert_eq!(check_key(Some(&KEY[..39]), &registered), Err(GatewayCode::ApiKeyInvalid));
        assert_eq!(check_key(Some(&"x".repeat(40)), &registered), Err(GatewayCode::ApiKeyInvalid));
        assert_eq!(check_key(Some(KEY), &registered), Ok(()));
    }

    #[test]
    fn gateway_bodies_parse_back_with_the_client_parser() {
        use crate::formats::error_body::parse_error_body;
        for format in [Format::Json, Format::Xml, Format::Csv] {
            for code in [GatewayCode::ApiKeyMissing, GatewayCode::ApiKeyInvalid, GatewayCode::OverRateLimit] {
                let reply = gateway_error(code, format);
                assert_eq!(reply.status, code.status());
                let parsed = parse_error_body(&reply.body);
                assert_eq!(parsed.code.as_deref(), Some(code.as_str()), "{format:?}");
                assert_eq!(parsed.messages, vec![code.message()], "{format:?}");
            }
        }
    }

    #[test]
    fn limiter_counts_a_rolling_window_per_key() {
        let mut limiter = KeyLimiter::new(2, Duration::from_secs(10));
        let t0 = Instant::now();
        assert_eq!(limiter.admit("a", t0), Admission { admitted: true, limit: 2, remaining: 1 });
        assert_eq!(limiter.admit("a", t0).remaining, 0);
        assert!(!limiter.admit("a", t0 + Duration::from_secs(5)).admitted);
        assert!(limiter.admit("b", t0).admitted);
        assert!(limiter.admit("a", t0 + Duration::from_secs(10)).admitted);
    }
}

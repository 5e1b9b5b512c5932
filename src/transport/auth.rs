//! API keys: the one length rule, the three ways of sending a key, and where a key may go.

use std::fmt;

use crate::error::{Error, Result};

/// The spec: "An API key is a 40-character string."
pub const API_KEY_LENGTH: usize = 40;

/// How the key travels with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMode {
    /// `X-Api-Key: <key>` (the default).
    Header,
    /// `api_key=<key>` in the query string (also for POST).
    Query,
    /// HTTP basic authentication with the key as user name and an empty password.
    Basic,
}

impl AuthMode {
    pub fn parse(name: &str) -> Result<AuthMode> {
        match name {
            "header" => Ok(AuthMode::Header),
            "query" => Ok(AuthMode::Query),
            "basic" => Ok(AuthMode::Basic),
            other => Err(Error::Parameter(vec![format!(
                "auth must be one of 'header', 'query', 'basic' (got {other:?})"
            )])),
        }
    }
}

/// A checked API key. Its `Debug` and `Display` never show the key.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Accepts only keys of exactly 40 characters; the message never repeats the key.
    pub fn new(key: &str) -> Result<ApiKey> {
        let length = key.chars().count();
        if length != API_KEY_LENGTH {
            return Err(Error::Parameter(vec![format!(
                "api_key must be {API_KEY_LENGTH} characters long (got {length} characters)"
            )]));
        }
        if key.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(Error::Parameter(vec!["api_key must not contain spaces or control characters".into()]));
        }
        Ok(ApiKey(key.to_owned()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// `true` when `url` is on the same scheme, host and port as `base`: only then may the key go.
pub fn same_origin(base: &reqwest::Url, url: &reqwest::Url) -> bool {
    base.scheme() == url.scheme()
        && base.host_str() == url.host_str()
        && base.port_or_known_default() == url.port_or_known_default()
}

/// Loopback hosts may be reached over plain `http://`; everything else needs `https://`.
pub fn is_loopback_host(url: &reqwest::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_length_is_checked_without_echoing_the_key() {
        let short = "k".repeat(39);
        let err = ApiKey::new(&short).unwrap_err().to_string();
        assert!(err.contains("40 characters"));
        assert!(!err.contains(&short));
        assert!(ApiKey::new(&"k".repeat(41)).is_err());
        assert!(ApiKey::new(&"k".repeat(40)).is_ok());
    }

    #[test]
    fn debug_and_display_hide_the_key() {
        let key = ApiKey::new(&"s".repeat(40)).unwrap();
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        assert_eq!(format!("{key}"), "***");
    }

    #[test]
    fn origin_and_loopback_rules() {
        let base = reqwest::Url::parse("https://developer.nlr.gov/api/x").unwrap();
        let same = reqwest::Url::parse("https://developer.nlr.gov:443/other").unwrap();
        let other = reqwest::Url::parse("https://files.example.org/a.zip").unwrap();
        let downgraded = reqwest::Url::parse("http://developer.nlr.gov/x").unwrap();
        assert!(same_origin(&base, &same));
        assert!(!same_origin(&base, &other));
        assert!(!same_origin(&base, &downgraded));
        for loopback in ["http://127.0.0.1:9/", "http://localhost/", "http://[::1]:8/", "http://127.3.4.5/"] {
            assert!(is_loopback_host(&reqwest::Url::parse(loopback).unwrap()), "{loopback}");
        }
        assert!(!is_loopback_host(&reqwest::Url::parse("http://10.0.0.1/").unwrap()));
        assert!(!is_loopback_host(&reqwest::Url::parse("http://example.org/").unwrap()));
    }

    #[test]
    fn auth_mode_names() {
        assert_eq!(AuthMode::parse("header").unwrap(), AuthMode::Header);
        assert_eq!(AuthMode::parse("query").unwrap(), AuthMode::Query);
        assert_eq!(AuthMode::parse("basic").unwrap(), AuthMode::Basic);
        assert!(AuthMode::parse("cookie").is_err());
    }
}

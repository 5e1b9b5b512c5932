//! The base URL a client is built with: absolute, `https://` (plain `http://` to a loopback host
//! only), a host and an optional path prefix, and nothing that carries a key. A userinfo part
//! (`key@host`, `user:key@host`) or a query string (`?api_key=...`) would show the key in
//! `repr(client)`, `.base_url` and `.url()`, and a query would swallow the endpoint paths joined
//! after it, so both are refused; no message quotes either part.

use reqwest::Url;

use super::client::check_scheme;
use crate::error::{Error, Result};

/// Checks a base URL (surrounding blanks and trailing slashes are dropped).
pub fn parse_base_url(text: &str) -> Result<Url> {
    let trimmed = text.trim().trim_end_matches('/');
    let shown = shown(trimmed);
    let problem = |message: String| Error::Parameter(vec![message]);
    let url = Url::parse(trimmed).map_err(|e| problem(format!("base_url is not a valid URL ({e}): {shown:?}")))?;
    check_scheme(&url).map_err(|p| problem(format!("base_url {p}, got {shown:?}")))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(problem(format!(
            "base_url must not hold a key or credentials before its host (got {shown:?}): give the key as api_key= and the base URL as {:?}",
            bare(&url)
        )));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(problem(format!(
            "base_url must not have a query string or fragment (got {shown:?}): give the key as api_key=, parameters to the calls, and the base URL as {:?}",
            bare(&url)
        )));
    }
    Ok(url)
}

/// The URL without userinfo, query and fragment: what the caller meant as the base URL.
fn bare(url: &Url) -> String {
    let mut bare = url.clone();
    let _ = bare.set_username("");
    let _ = bare.set_password(None);
    bare.set_query(None);
    bare.set_fragment(None);
    bare.as_str().trim_end_matches('/').to_owned()
}

/// A base URL as a message may quote it, also when it does not parse: a userinfo part is
/// written `***@`, and a query or fragment `?***` or `#***`.
fn shown(text: &str) -> String {
    let cut = text.find(['?', '#']);
    let head = cut.and_then(|at| text.get(..at)).unwrap_or(text);
    let masked = match head.split_once("://") {
        Some((scheme, rest)) => {
            let authority = rest.find('/').and_then(|end| rest.get(..end)).unwrap_or(rest);
            match authority.rfind('@').and_then(|at| rest.get(at + 1..)) {
                Some(after) => format!("{scheme}://***@{after}"),
                None => head.to_owned(),
            }
        }
        None => head.to_owned(),
    };
    match cut.and_then(|at| text.get(at..at + 1)) {
        Some(mark) => format!("{masked}{mark}***"),
        None => masked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "k3yk3yk3yk3yk3yk3yk3yk3yk3yk3yk3yk3yk3yk";

    #[test]
    fn base_url_rules() {
        assert!(parse_base_url("https://developer.nlr.gov").is_ok());
        assert_eq!(parse_base_url(" http://127.0.0.1:8080/prefix/ ").unwrap().as_str(), "http://127.0.0.1:8080/prefix");
        assert!(parse_base_url("http://localhost:1").is_ok());
        let err = parse_base_url("http://developer.nlr.gov").unwrap_err().to_string();
        assert!(err.contains("https://"), "{err}");
        assert!(parse_base_url("ftp://x").is_err());
        assert!(parse_base_url("not a url").is_err());
    }

    #[test]
    fn a_key_in_the_base_url_is_refused_without_quoting_it() {
        let cases = [
            (format!("https://{KEY}@developer.nlr.gov/api"), "credentials", "https://developer.nlr.gov/api"),
            (format!("https://user:{KEY}@developer.nlr.gov"), "credentials", "https://developer.nlr.gov"),
            (format!("http://127.0.0.1:9/?api_key={KEY}"), "query string", "http://127.0.0.1:9"),
            (format!("https://developer.nlr.gov/base?key={KEY}&x=1"), "query string", "https://developer.nlr.gov/base"),
            (format!("https://developer.nlr.gov/#{KEY}"), "fragment", "https://developer.nlr.gov"),
            (format!("https://{KEY}@host:99999?api_key={KEY}"), "not a valid URL", "https://***@host:99999?***"),
            (format!("http://{KEY}@developer.nlr.gov"), "https://", "http://***@developer.nlr.gov"),
        ];
        for (text, rule, hint) in &cases {
            let message = parse_base_url(text).unwrap_err().to_string();
            assert!(message.contains(rule) && message.contains(hint), "{text}: {message}");
            assert!(!message.contains(KEY), "{message}");
        }
    }
}

//! Removing the API key from any text that may reach a message, a log line or a repr.

/// What the key is replaced with.
pub const MASK: &str = "***";

/// Replaces every occurrence of `key` (raw, percent-encoded or base64 as in basic auth) and every
/// `api_key=` query value in `text`.
pub fn redact(text: &str, key: Option<&str>) -> String {
    let mut out = redact_api_key_params(text);
    if let Some(key) = key.filter(|k| !k.is_empty()) {
        for form in key_forms(key) {
            if out.contains(&form) {
                out = out.replace(&form, MASK);
            }
        }
    }
    out
}

fn key_forms(key: &str) -> Vec<String> {
    use base64::Engine as _;
    let encoded: String = url::form_urlencoded::byte_serialize(key.as_bytes()).collect();
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{key}:"));
    let mut forms = vec![key.to_owned(), encoded, basic];
    forms.dedup();
    forms
}

/// Masks the value of every `api_key=` parameter, whatever key it holds.
fn redact_api_key_params(text: &str) -> String {
    const NEEDLE: &str = "api_key=";
    if !text.contains(NEEDLE) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(NEEDLE) {
        let (head, tail) = rest.split_at(at + NEEDLE.len());
        out.push_str(head);
        let value_len = tail.find(|c: char| matches!(c, '&' | ' ' | '"' | '\'' | '#' | '<' | '\n' | ',')).unwrap_or(tail.len());
        if value_len > 0 {
            out.push_str(MASK);
        }
        rest = &tail[value_len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "abcdefghijABCDEFGHIJ0123456789+/klmnopqr";

    #[test]
    fn raw_encoded_and_basic_forms_are_masked() {
        use base64::Engine as _;
        let encoded: String = url::form_urlencoded::byte_serialize(KEY.as_bytes()).collect();
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("{KEY}:"));
        let text = format!("raw {KEY} enc {encoded} basic {basic}");
        let clean = redact(&text, Some(KEY));
        assert!(!clean.contains(KEY) && !clean.contains(&encoded) && !clean.contains(&basic), "{clean}");
        assert_eq!(clean.matches(MASK).count(), 3);
    }

    #[test]
    fn api_key_params_are_masked_even_for_other_keys() {
        let url = "https://h/api/x.json?lat=1&api_key=SOMEOTHERKEY&lon=2";
        assert_eq!(redact(url, None), "https://h/api/x.json?lat=1&api_key=***&lon=2");
        assert_eq!(redact("api_key=", None), "api_key=");
        assert_eq!(redact("{\"q\":\"api_key=zz\"}", None), "{\"q\":\"api_key=***\"}");
    }
}

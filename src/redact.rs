//! Removing the API key from any text that may reach a message, a log line, a repr, a typed
//! result or a cache. A server may reflect the key in any encoding its format has, so the key is
//! found character by character with each character written literally or escaped: JSON
//! (`\u0061`, `\/`), XML (`&#97;`, `&#x61;`, `&amp;`), or percent-encoding (`%61`). The key's
//! whole-value encodings are masked too: the base64 form of basic auth (`key:`), and hex (lower
//! and upper case) and base64 (standard and URL-safe, with and without padding) of the bare key.
//! So is every `api_key=` value, whatever key it holds, and every `email=` value (the climate
//! service's required address is personal data: it has no place in a message, a log or a repr).

#![cfg_attr(
    not(test),
    deny(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_possible_wrap, clippy::indexing_slicing)
)]

use bytes::Bytes;

/// What the key is replaced with.
pub const MASK: &str = "***";

/// Replaces every occurrence of `key` (in any of the encodings above) and every `api_key=` and
/// `email=` query value in `text`.
pub fn redact(text: &str, key: Option<&str>) -> String {
    let out = SECRET_PARAMS.iter().fold(text.to_owned(), |text, name| redact_param(&text, name));
    let Some(key) = key.filter(|k| !k.is_empty()) else { return out };
    let masked = match mask_key(out.as_bytes(), key.as_bytes()) {
        Some(bytes) => String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        None => out,
    };
    encoded_forms(key).iter().fold(masked, |text, form| if text.contains(form.as_str()) { text.replace(form.as_str(), MASK) } else { text })
}

/// A response body with the key masked, for parsers whose results reach the user; the same
/// bytes (no copy) when the key is not in it.
pub fn scrub_body(body: &Bytes, key: Option<&str>) -> Bytes {
    let Some(key) = key.filter(|k| !k.is_empty()) else { return body.clone() };
    let mut masked = mask_key(body, key.as_bytes());
    for form in encoded_forms(key) {
        let text = masked.as_deref().unwrap_or(body);
        if find(text, form.as_bytes()).is_some() {
            masked = Some(replace_all(text, form.as_bytes()));
        }
    }
    masked.map_or_else(|| body.clone(), Bytes::from)
}

/// The encodings of the whole key a server may reflect (a header echoed back, a debug field):
/// base64 of basic auth's `key:`, hex in both cases, and base64 in both alphabets with and
/// without padding. Each padded form comes before the unpadded one it starts with.
fn encoded_forms(key: &str) -> Vec<String> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    use base64::Engine as _;
    let bytes = key.as_bytes();
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    let candidates = [
        STANDARD.encode(format!("{key}:")),
        STANDARD.encode(bytes),
        URL_SAFE.encode(bytes),
        STANDARD_NO_PAD.encode(bytes),
        URL_SAFE_NO_PAD.encode(bytes),
        hex.to_ascii_uppercase(),
        hex,
    ];
    let mut forms: Vec<String> = Vec::with_capacity(candidates.len());
    for form in candidates {
        if !forms.contains(&form) {
            forms.push(form);
        }
    }
    forms
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    memchr::memmem::find(haystack, needle)
}

fn replace_all(haystack: &[u8], needle: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while let Some(at) = find(rest, needle) {
        out.extend_from_slice(rest.get(..at).unwrap_or_default());
        out.extend_from_slice(MASK.as_bytes());
        rest = rest.get(at + needle.len()..).unwrap_or_default();
    }
    out.extend_from_slice(rest);
    out
}

/// `text` with every (possibly escaped) occurrence of `key` replaced by the mask, or `None` when
/// there is none.
fn mask_key(text: &[u8], key: &[u8]) -> Option<Vec<u8>> {
    let first = *key.first()?;
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut at = 0;
    while at < text.len() {
        let byte = text.get(at).copied().unwrap_or_default();
        let candidate = byte == first || matches!(byte, b'\\' | b'%' | b'&');
        if let Some(end) = candidate.then(|| match_at(text, at, key)).flatten() {
            let buffer = out.get_or_insert_with(|| Vec::with_capacity(text.len()));
            buffer.extend_from_slice(text.get(copied..at).unwrap_or_default());
            buffer.extend_from_slice(MASK.as_bytes());
            copied = end;
            at = end;
        } else {
            at += 1;
        }
    }
    let mut buffer = out?;
    buffer.extend_from_slice(text.get(copied..).unwrap_or_default());
    Some(buffer)
}

/// The end of `key` written from `start`, each byte literal or escaped.
fn match_at(text: &[u8], start: usize, key: &[u8]) -> Option<usize> {
    let mut at = start;
    for &wanted in key {
        let (byte, next) = decode_one(text, at, wanted)?;
        if byte != wanted {
            return None;
        }
        at = next;
    }
    Some(at)
}

/// The byte written at `at` and where the next one starts: an escape of an ASCII character, or
/// the byte itself.
fn decode_one(text: &[u8], at: usize, wanted: u8) -> Option<(u8, usize)> {
    let rest = text.get(at..)?;
    let byte = *rest.first()?;
    if byte == wanted {
        return Some((byte, at + 1));
    }
    let escaped = match byte {
        b'\\' => json_escape(rest),
        b'%' => hex_value(rest.get(1..3)?).map(|value| (value, 3)),
        b'&' => xml_escape(rest),
        _ => None,
    };
    let (value, length) = escaped?;
    let ascii = u8::try_from(value).ok().filter(u8::is_ascii)?;
    Some((ascii, at + length))
}

fn json_escape(rest: &[u8]) -> Option<(u32, usize)> {
    match rest.get(1)? {
        b'u' => hex_value(rest.get(2..6)?).map(|value| (value, 6)),
        // Escaped twice (`\\u0061`): the text a JSON string holds after one decoding still
        // spells the key.
        b'\\' if rest.get(2) == Some(&b'u') => hex_value(rest.get(3..7)?).map(|value| (value, 7)),
        b'/' => Some((u32::from(b'/'), 2)),
        b'\\' => Some((u32::from(b'\\'), 2)),
        b'"' => Some((u32::from(b'"'), 2)),
        _ => None,
    }
}

fn xml_escape(rest: &[u8]) -> Option<(u32, usize)> {
    let end = rest.iter().take(12).position(|&b| b == b';')?;
    let name = rest.get(1..end)?;
    let value = match name {
        b"amp" => u32::from(b'&'),
        b"lt" => u32::from(b'<'),
        b"gt" => u32::from(b'>'),
        b"quot" => u32::from(b'"'),
        b"apos" => u32::from(b'\''),
        [b'#', b'x' | b'X', hex @ ..] => hex_value(hex)?,
        [b'#', decimal @ ..] if !decimal.is_empty() && decimal.iter().all(u8::is_ascii_digit) => {
            std::str::from_utf8(decimal).ok()?.parse().ok()?
        }
        _ => return None,
    };
    Some((value, end + 1))
}

fn hex_value(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 6 || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// The query parameters whose values are masked wherever they appear: any key, and the e-mail
/// address the climate service asks for.
const SECRET_PARAMS: [&str; 2] = ["api_key=", "email="];

/// Masks the value of every `needle` (`name=`) parameter in `text`.
fn redact_param(text: &str, needle: &str) -> String {
    if !text.contains(needle) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(needle) {
        let (head, tail) = rest.split_at(at + needle.len());
        out.push_str(head);
        let value_len = tail.find(['&', ' ', '"', '\'', '#', '<', '\n', ',']).unwrap_or(tail.len());
        if value_len > 0 {
            out.push_str(MASK);
        }
        rest = tail.get(value_len..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "abcdefghijABCDEFGHIJ0123456789+/klmnopqr";

    fn json_escaped(key: &str) -> String {
        key.chars().map(|c| format!("\\u{:04x}", c as u32)).collect()
    }

    fn xml_escaped(key: &str) -> String {
        key.chars().enumerate().map(|(i, c)| if i % 2 == 0 { format!("&#{};", c as u32) } else { format!("&#x{:X};", c as u32) }).collect()
    }

    #[test]
    fn every_encoding_of_the_key_is_masked() {
        use base64::Engine as _;
        let encoded: String = url::form_urlencoded::byte_serialize(KEY.as_bytes()).collect();
        let all_percent: String = KEY.bytes().map(|b| format!("%{b:02x}")).collect();
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("{KEY}:"));
        let slashed = KEY.replace('/', "\\/");
        let forms = [KEY.to_owned(), encoded, all_percent, basic, json_escaped(KEY), xml_escaped(KEY), slashed];
        for form in &forms {
            let text = format!("before {form} after");
            assert_eq!(redact(&text, Some(KEY)), "before *** after", "{form}");
            let scrubbed = scrub_body(&Bytes::from(text.clone()), Some(KEY));
            assert_eq!(&scrubbed[..], b"before *** after", "{form}");
        }
        let mixed = format!("{}{}", &KEY[..20], json_escaped(&KEY[20..]));
        assert_eq!(redact(&mixed, Some(KEY)), "***");
        let twice = json_escaped(KEY).replace('\\', "\\\\");
        assert_eq!(redact(&twice, Some(KEY)), "***");
    }

    #[test]
    fn hex_and_base64_of_the_bare_key_are_masked() {
        use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
        use base64::Engine as _;
        // 41 bytes: base64 needs padding, and its standard and URL-safe alphabets differ.
        let key = "abcdefghijABCDEFGHIJ0123456789klmnop~~~qr";
        let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
        let forms = [
            hex.clone(),
            hex.to_ascii_uppercase(),
            STANDARD.encode(key),
            STANDARD_NO_PAD.encode(key),
            URL_SAFE.encode(key),
            URL_SAFE_NO_PAD.encode(key),
        ];
        assert_ne!(forms[2], forms[4]);
        assert!(forms[2].ends_with('='));
        for form in &forms {
            let text = format!("{{\"echo\": \"{form}\"}}");
            assert_eq!(redact(&text, Some(key)), "{\"echo\": \"***\"}", "{form}");
            let scrubbed = scrub_body(&Bytes::from(text.clone()), Some(key));
            assert_eq!(&scrubbed[..], b"{\"echo\": \"***\"}", "{form}");
        }
        let all = forms.join(" ");
        assert_eq!(redact(&all, Some(key)), ["***"; 6].join(" "));
    }

    #[test]
    fn text_without_the_key_is_kept_and_not_copied() {
        let body = Bytes::from_static(b"{\"a\": \"\\u0041 &amp; 100% abc\"}");
        let scrubbed = scrub_body(&body, Some(KEY));
        assert_eq!(scrubbed.as_ptr(), body.as_ptr());
        assert_eq!(redact("abcdefghij partial", Some(KEY)), "abcdefghij partial");
        assert_eq!(redact("ünïcode & ✓", Some(KEY)), "ünïcode & ✓");
    }

    #[test]
    fn api_key_params_are_masked_even_for_other_keys() {
        let url = "https://h/api/x.json?lat=1&api_key=SOMEOTHERKEY&lon=2";
        assert_eq!(redact(url, None), "https://h/api/x.json?lat=1&api_key=***&lon=2");
        assert_eq!(redact("api_key=", None), "api_key=");
        assert_eq!(redact("{\"q\":\"api_key=zz\"}", None), "{\"q\":\"api_key=***\"}");
    }

    #[test]
    fn email_params_are_masked_as_personal_data() {
        let url = "https://h/api/climate.csv?email=ada%40example.org&lat=1&api_key=K";
        assert_eq!(redact(url, Some("K")), "https://h/api/climate.csv?email=***&lat=1&api_key=***");
        assert_eq!(redact("email=", None), "email=");
    }
}

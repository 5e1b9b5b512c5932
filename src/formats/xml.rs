//! The spec's XML conventions, written from and read back into `serde_json::Value`.
//!
//! One generic mapping serves every endpoint that speaks XML (dataset query, PV estimator):
//!
//! - The document root is `<response>`.
//! - Object keys become element names with `_` replaced by `-` (`all_stations` → `all-stations`);
//!   reading turns `-` back into `_`.
//! - Integers carry `type="integer"`, other numbers `type="float"`, booleans `type="boolean"`;
//!   strings carry no type attribute.
//! - `null` is an empty element with `nil="true"` (`<intl nil="true"/>`).
//! - Arrays carry `type="array"`. Their children are named after the array: a name ending in
//!   `ies` ends in `y` instead (`entries` → `entry`), a name ending in a single `s` loses it
//!   (`all-stations` → `all-station`, `errors` → `error`), any other name is reused as is
//!   (`ac-monthly` → `ac-monthly`, `ac` → `ac`). The reader ignores child names inside arrays.
//! - Objects are nested elements. An empty object is written as `type="hash"` so that it reads
//!   back as `{}` rather than as an empty string.
//!
//! Reading is lenient where real services differ from this writer: `decimal` and `double` read
//! as floats, an element without a type whose text is empty or only whitespace reads as `""`,
//! and unknown type names read as strings.

use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::{Reader, Writer};
use serde_json::{Map, Number, Value};

use crate::limits::MAX_XML_DEPTH;

/// Name of the root element of every response document.
pub const ROOT_ELEMENT: &str = "response";

/// Why a value could not be written as XML or a document could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum XmlError {
    #[error("key {0:?} cannot be an XML element name")]
    InvalidName(String),
    #[error("could not write XML: {0}")]
    Write(String),
    #[error("body is not UTF-8: {0}")]
    NotUtf8(String),
    #[error("malformed XML at byte {position}: {message}")]
    Malformed { position: u64, message: String },
    #[error("element <{element}>: {message}")]
    BadValue { element: String, message: String },
    #[error("the document has no root element")]
    NoRoot,
    #[error("elements are nested more than {MAX_XML_DEPTH} levels deep (the limit; real answers have 5)")]
    TooDeep,
}

/// Writes `value` as a complete XML document with a `<response>` root.
pub fn write_xml(value: &Value) -> Result<Vec<u8>, XmlError> {
    let mut writer = Writer::new(Vec::new());
    emit(&mut writer, Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    write_element(&mut writer, ROOT_ELEMENT, value)?;
    Ok(writer.into_inner())
}

/// Reads a document written with these conventions and returns the root element's value.
/// The root element's name is not checked, so gateway error documents read as well.
pub fn read_xml(body: &[u8]) -> Result<Value, XmlError> {
    let text = std::str::from_utf8(body).map_err(|e| XmlError::NotUtf8(e.to_string()))?;
    let mut reader = Reader::from_str(text);
    let mut open: Vec<OpenElement> = Vec::new();
    let mut root: Option<Value> = None;
    loop {
        let event = reader.read_event().map_err(|e| malformed(&reader, e.to_string()))?;
        match event {
            Event::Start(start) => {
                if open.len() >= MAX_XML_DEPTH {
                    return Err(XmlError::TooDeep);
                }
                open.push(OpenElement::from_start(&start, &reader)?);
            }
            Event::Empty(start) => {
                let element = OpenElement::from_start(&start, &reader)?;
                close_element(element, &mut open, &mut root, &reader)?;
            }
            Event::End(_) => {
                let element = open.pop().ok_or_else(|| malformed(&reader, "unexpected end tag"))?;
                close_element(element, &mut open, &mut root, &reader)?;
            }
            Event::Text(text) => append_text(&mut open, &text.xml10_content(), &reader)?,
            Event::CData(data) => append_text(&mut open, &data.xml10_content(), &reader)?,
            Event::GeneralRef(reference) => {
                let resolved = resolve_reference(&reference, &reader)?;
                append_text(&mut open, &resolved, &reader)?;
            }
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
        }
    }
    if !open.is_empty() {
        return Err(malformed(&reader, "document ends inside an element"));
    }
    root.ok_or(XmlError::NoRoot)
}

/// The element name for a JSON key: underscores become hyphens.
pub fn element_name(key: &str) -> Result<String, XmlError> {
    let name = key.replace('_', "-");
    let mut chars = name.chars();
    let starts_well = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    if starts_well && rest_ok {
        Ok(name)
    } else {
        Err(XmlError::InvalidName(key.to_string()))
    }
}

/// The JSON key for an element name: hyphens become underscores.
pub fn key_name(element: &str) -> String {
    element.replace('-', "_")
}

/// The name of the children of an array element (see the module documentation).
pub fn array_child_name(array_name: &str) -> String {
    if let Some(stem) = array_name.strip_suffix("ies") {
        if !stem.is_empty() {
            return format!("{stem}y");
        }
    }
    match array_name.strip_suffix('s') {
        Some(stem) if !stem.is_empty() && !stem.ends_with('s') => stem.to_string(),
        _ => array_name.to_string(),
    }
}

fn emit(writer: &mut Writer<Vec<u8>>, event: Event<'_>) -> Result<(), XmlError> {
    writer.write_event(event).map_err(|e| XmlError::Write(e.to_string()))
}

fn write_element(writer: &mut Writer<Vec<u8>>, name: &str, value: &Value) -> Result<(), XmlError> {
    let start = BytesStart::new(name);
    match value {
        Value::Null => emit(writer, Event::Empty(start.with_attributes([("nil", "true")]))),
        Value::Bool(flag) => write_leaf(writer, start.with_attributes([("type", "boolean")]), &flag.to_string()),
        Value::Number(number) => {
            let kind = if number.is_f64() { "float" } else { "integer" };
            write_leaf(writer, start.with_attributes([("type", kind)]), &number.to_string())
        }
        Value::String(text) => write_leaf(writer, start, text),
        Value::Array(items) => {
            let child = array_child_name(name);
            emit(writer, Event::Start(start.with_attributes([("type", "array")])))?;
            for item in items {
                write_element(writer, &child, item)?;
            }
            emit(writer, Event::End(BytesEnd::new(name)))
        }
        Value::Object(fields) => {
            let start = if fields.is_empty() { start.with_attributes([("type", "hash")]) } else { start };
            emit(writer, Event::Start(start))?;
            for (key, field) in fields {
                write_element(writer, &element_name(key)?, field)?;
            }
            emit(writer, Event::End(BytesEnd::new(name)))
        }
    }
}

fn write_leaf(writer: &mut Writer<Vec<u8>>, start: BytesStart<'_>, text: &str) -> Result<(), XmlError> {
    let end = BytesEnd::new(start.name().0.to_string());
    emit(writer, Event::Start(start))?;
    if !text.is_empty() {
        emit(writer, Event::Text(BytesText::new(text)))?;
    }
    emit(writer, Event::End(end))
}

/// The `type` attribute as the reader understands it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DeclaredType {
    Untyped,
    Array,
    Hash,
    Integer,
    Float,
    Boolean,
}

impl DeclaredType {
    fn from_attribute(value: &str) -> DeclaredType {
        match value {
            "array" => DeclaredType::Array,
            "hash" | "object" => DeclaredType::Hash,
            "integer" => DeclaredType::Integer,
            "float" | "decimal" | "double" => DeclaredType::Float,
            "boolean" => DeclaredType::Boolean,
            _ => DeclaredType::Untyped,
        }
    }
}

/// An element whose end tag has not been read yet.
struct OpenElement {
    element: String,
    declared: DeclaredType,
    nil: bool,
    text: String,
    children: Vec<(String, Value)>,
}

impl OpenElement {
    fn from_start(start: &BytesStart<'_>, reader: &Reader<&[u8]>) -> Result<OpenElement, XmlError> {
        let mut declared = DeclaredType::Untyped;
        let mut nil = false;
        for attribute in start.attributes() {
            let attribute = attribute.map_err(|e| malformed(reader, e.to_string()))?;
            let value = attribute
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|e| malformed(reader, e.to_string()))?;
            match attribute.key.0 {
                "type" => declared = DeclaredType::from_attribute(&value),
                "nil" => nil = value == "true",
                _ => {}
            }
        }
        Ok(OpenElement {
            element: start.name().0.to_string(),
            declared,
            nil,
            text: String::new(),
            children: Vec::new(),
        })
    }

    fn into_value(self) -> Result<Value, XmlError> {
        if self.nil {
            return Ok(Value::Null);
        }
        let has_text = !self.text.trim().is_empty();
        match self.declared {
            DeclaredType::Array => Ok(Value::Array(self.children.into_iter().map(|(_, v)| v).collect())),
            DeclaredType::Integer => self.parse_integer(),
            DeclaredType::Float => self.parse_float(),
            DeclaredType::Boolean => self.parse_boolean(),
            DeclaredType::Hash => self.into_object(),
            DeclaredType::Untyped if !self.children.is_empty() => {
                if has_text {
                    Err(self.bad("mixes text with child elements"))
                } else {
                    self.into_object()
                }
            }
            DeclaredType::Untyped if has_text => Ok(Value::String(self.text)),
            DeclaredType::Untyped => Ok(Value::String(String::new())),
        }
    }

    fn into_object(self) -> Result<Value, XmlError> {
        let mut fields = Map::new();
        for (element, value) in self.children {
            let key = key_name(&element);
            if fields.contains_key(&key) {
                return Err(XmlError::BadValue {
                    element: self.element,
                    message: format!("child <{element}> appears twice outside an array"),
                });
            }
            fields.insert(key, value);
        }
        Ok(Value::Object(fields))
    }

    fn parse_integer(&self) -> Result<Value, XmlError> {
        let text = self.text.trim();
        if let Ok(signed) = text.parse::<i64>() {
            return Ok(Value::from(signed));
        }
        text.parse::<u64>().map(Value::from).map_err(|_| self.bad("is typed integer but holds no integer"))
    }

    fn parse_float(&self) -> Result<Value, XmlError> {
        self.text
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| self.bad("is typed float but holds no finite number"))
    }

    fn parse_boolean(&self) -> Result<Value, XmlError> {
        match self.text.trim() {
            "true" | "1" => Ok(Value::Bool(true)),
            "false" | "0" => Ok(Value::Bool(false)),
            _ => Err(self.bad("is typed boolean but holds neither true nor false")),
        }
    }

    fn bad(&self, message: &str) -> XmlError {
        XmlError::BadValue { element: self.element.clone(), message: message.to_string() }
    }
}

fn close_element(
    element: OpenElement,
    open: &mut [OpenElement],
    root: &mut Option<Value>,
    reader: &Reader<&[u8]>,
) -> Result<(), XmlError> {
    let name = element.element.clone();
    let value = element.into_value()?;
    match open.last_mut() {
        Some(parent) => parent.children.push((name, value)),
        None if root.is_none() => *root = Some(value),
        None => return Err(malformed(reader, "more than one root element")),
    }
    Ok(())
}

fn append_text(open: &mut [OpenElement], text: &str, reader: &Reader<&[u8]>) -> Result<(), XmlError> {
    match open.last_mut() {
        Some(element) => {
            element.text.push_str(text);
            Ok(())
        }
        None if text.trim().is_empty() => Ok(()),
        None => Err(malformed(reader, "text outside the root element")),
    }
}

fn resolve_reference(reference: &quick_xml::events::BytesRef<'_>, reader: &Reader<&[u8]>) -> Result<String, XmlError> {
    if let Some(character) = reference.resolve_char_ref().map_err(|e| malformed(reader, e.to_string()))? {
        return Ok(character.to_string());
    }
    resolve_xml_entity(reference)
        .map(str::to_string)
        .ok_or_else(|| malformed(reader, format!("unknown entity &{};", &**reference)))
}

fn malformed(reader: &Reader<&[u8]>, message: impl Into<String>) -> XmlError {
    XmlError::Malformed { position: reader.error_position(), message: message.into() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(value: &Value) -> Value {
        let body = write_xml(value).expect("writes");
        read_xml(&body).expect("reads")
    }

    #[test]
    fn writes_the_spec_conventions() {
        let value = json!({
            "version": "1.3.1",
            "errors": [],
            "metadata": {},
            "outputs": {"intl": null, "all_stations": [{"id": "0-94018", "timezone": -7, "lat": 40.0}]}
        });
        let text = String::from_utf8(write_xml(&value).unwrap()).unwrap();
        assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?><response>"));
        assert!(text.contains("<errors type=\"array\"></errors>"));
        assert!(text.contains("<metadata type=\"hash\"></metadata>"));
        assert!(text.contains("<intl nil=\"true\"/>"));
        assert!(text.contains("<all-stations type=\"array\"><all-station><id>0-94018</id>"));
        assert!(text.contains("<timezone type=\"integer\">-7</timezone>"));
        assert!(text.contains("<lat type=\"float\">40.0</lat>"));
    }

    #[test]
    fn round_trips_every_kind_of_value() {
        let value = json!({
            "ac_monthly": [474.3, 515.0],
            "ssc_info": {"version": 45, "build": "Linux 64 bit"},
            "station_info": {"city": "", "location": "None", "distance": 2029},
            "flags": [true, false, null],
            "nested": [[1, 2], []],
            "big": 18446744073709551615u64,
            "text": "a < b & \"c\" 'd' > e",
            "empty": {},
            "entries": ["x"]
        });
        assert_eq!(round_trip(&value), value);
    }

    #[test]
    fn names_array_children_by_one_rule() {
        assert_eq!(array_child_name("all-stations"), "all-station");
        assert_eq!(array_child_name("errors"), "error");
        assert_eq!(array_child_name("entries"), "entry");
        assert_eq!(array_child_name("ac-monthly"), "ac-monthly");
        assert_eq!(array_child_name("address"), "address");
        assert_eq!(array_child_name("s"), "s");
    }

    #[test]
    fn reads_indented_real_world_documents() {
        let body = br#"<?xml version="1.0" encoding="UTF-8"?>
<response>
  <version>1.3.1</version>
  <metadata>
  </metadata>
  <outputs>
    <tmy2>
      <elevation type="decimal">1689.5</elevation>
      <city>BOULDER &amp; CO&#46;</city>
      <state/>
    </tmy2>
    <intl type="hash" nil="true"/>
  </outputs>
</response>"#;
        let value = read_xml(body).unwrap();
        assert_eq!(value["version"], "1.3.1");
        assert_eq!(value["metadata"], "");
        assert_eq!(value["outputs"]["tmy2"]["elevation"], 1689.5);
        assert_eq!(value["outputs"]["tmy2"]["city"], "BOULDER & CO.");
        assert_eq!(value["outputs"]["tmy2"]["state"], "");
        assert_eq!(value["outputs"]["intl"], Value::Null);
    }

    #[test]
    fn rejects_bad_documents_without_panicking() {
        for body in [
            &b""[..],
            b"<response>",
            b"<a></b>",
            b"<a/><b/>",
            b"<a type=\"integer\">x</a>",
            b"<a type=\"float\">NaN</a>",
            b"<a>&bogus;</a>",
            b"<a>text<b/></a>",
            b"<a><b>1</b><b>2</b></a>",
            b"\xff\xfe",
        ] {
            assert!(read_xml(body).is_err(), "{:?}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let depth = 200_000;
        let body = format!("{}{}", "<a>".repeat(depth), "</a>".repeat(depth));
        assert_eq!(read_xml(body.as_bytes()), Err(XmlError::TooDeep));
        let fits = format!("{}x{}", "<a>".repeat(MAX_XML_DEPTH), "</a>".repeat(MAX_XML_DEPTH));
        assert!(read_xml(fits.as_bytes()).is_ok());
    }

    #[test]
    fn refuses_keys_that_are_not_element_names() {
        assert_eq!(write_xml(&json!({"_x": 1})), Err(XmlError::InvalidName("_x".into())));
        assert_eq!(write_xml(&json!({"a b": 1})), Err(XmlError::InvalidName("a b".into())));
        assert_eq!(write_xml(&json!({"1a": 1})), Err(XmlError::InvalidName("1a".into())));
    }
}

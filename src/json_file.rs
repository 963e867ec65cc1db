//! Strict parsing of the JSON files users edit by hand (`thresholds.json`,
//! `retrieval.thresholds.json`, `prices.json`, `--history`).
//!
//! serde_json alone accepts two things that silently change what a file
//! means: content after the document (`{…} {…}` keeps the first object) and
//! a repeated object key (the last one wins). Both are errors here, with the
//! line and column. A leading UTF-8 byte-order mark is accepted.

use std::collections::HashSet;

use serde::de::{DeserializeOwned, Error as _, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// Parses one JSON document into `T`.
///
/// # Errors
/// A message without the file name (callers add it): syntax errors, trailing
/// content and duplicate keys with line and column; a wrong field with its
/// path (`at \`hashing-512-v1.vectorZ\`: invalid type …`).
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut de = serde_json::Deserializer::from_str(text);
    AnyValue::deserialize(&mut de).and_then(|_| de.end()).map_err(|e| e.to_string())?;
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de)
        .map_err(|e| format!("at `{}`: {}", e.path(), crate::text_file::clean_type_names(&e.inner().to_string())))
}

/// The first repeated object key in a JSON document: the path of the object
/// that repeats it (`params.arguments`, `.` for the top level) and the message
/// ("duplicate key `limit`"). `None` when no key repeats or the text is not
/// JSON (syntax errors are left to the caller's own parser).
pub fn duplicate_key(text: &str) -> Option<(String, String)> {
    let mut de = serde_json::Deserializer::from_str(text);
    let e = serde_path_to_error::deserialize::<_, AnyValue>(&mut de).err()?;
    let message = e.inner().to_string();
    let message = message.split(" at line ").next().unwrap_or(&message);
    message.starts_with("duplicate key `").then(|| (e.path().to_string(), message.to_owned()))
}

/// Any JSON value, checked for duplicate keys in every object and discarded.
struct AnyValue;

impl<'de> Deserialize<'de> for AnyValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(AnyValueVisitor)
    }
}

struct AnyValueVisitor;

impl<'de> Visitor<'de> for AnyValueVisitor {
    type Value = AnyValue;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_i64<E>(self, _: i64) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_u64<E>(self, _: u64) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_f64<E>(self, _: f64) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_str<E>(self, _: &str) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_unit<E>(self) -> Result<AnyValue, E> {
        Ok(AnyValue)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AnyValue, A::Error> {
        while seq.next_element::<AnyValue>()?.is_some() {}
        Ok(AnyValue)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyValue, A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(A::Error::custom(format!("duplicate key `{key}`")));
            }
            map.next_value::<AnyValue>()?;
        }
        Ok(AnyValue)
    }
}

/// How a JSON value is described in an error message: `null`, `a string`, `an object`, …
pub fn kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    type Doc = BTreeMap<String, BTreeMap<String, f64>>;

    #[test]
    fn parses_a_plain_document_and_a_byte_order_mark() {
        let d: Doc = from_str("\u{feff}{\"a\": {\"min\": 0.5}}").unwrap();
        assert_eq!(d["a"]["min"], 0.5);
    }

    #[test]
    fn trailing_content_is_an_error() {
        let e = from_str::<Doc>("{\"a\": {\"min\": 0.5}}\n{\"a\": {\"max\": 0.1}}\n").unwrap_err();
        assert!(e.contains("trailing characters at line 2 column 1"), "{e}");
    }

    #[test]
    fn duplicate_keys_are_errors_at_any_depth() {
        let e = from_str::<Doc>("{\"a\": {\"min\": 0.5}, \"a\": {\"max\": 0.1}}").unwrap_err();
        assert!(e.contains("duplicate key `a`") && e.contains("line 1"), "{e}");
        let e = from_str::<Doc>("{\"a\": {\"min\": 0.5, \"min\": 0.7}}").unwrap_err();
        assert!(e.contains("duplicate key `min`"), "{e}");
    }

    #[test]
    fn a_wrong_field_names_its_path() {
        let e = from_str::<Doc>("{\"a\": {\"min\": \"high\"}}").unwrap_err();
        assert!(e.starts_with("at `a.min`"), "{e}");
    }
}

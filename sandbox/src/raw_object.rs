//! An ordered JSON object whose values keep their exact JSON text.
//!
//! Transactions are stored this way (not as `serde_json::Value`) so that every field
//! round-trips byte-exact: `100.10` stays `100.10` and `1e2` stays `1e2`. The usual way to get
//! that, serde_json's `arbitrary_precision` feature, would leak into the other workspace crates
//! through feature unification, so each value is kept as a `RawValue` instead.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// A JSON object as an ordered list of (field name, raw JSON text) pairs.
///
/// Field order is the order of first appearance; a repeated name keeps its first position and
/// its last value (the usual "last one wins" reading of duplicate keys).
#[derive(Debug, Clone, Default)]
pub struct RawObject {
    fields: Vec<(String, Box<RawValue>)>,
}

impl RawObject {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses a JSON object; anything else (array, scalar, bad JSON) is an error.
    pub fn parse(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// The fields in order, each with its exact JSON text.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &RawValue)> {
        self.fields.iter().map(|(name, value)| (name.as_str(), value.as_ref()))
    }

    pub fn get(&self, key: &str) -> Option<&RawValue> {
        self.fields.iter().find(|(name, _)| name == key).map(|(_, value)| value.as_ref())
    }

    /// The field's value when it is a JSON string (escapes decoded); `None` otherwise.
    pub fn get_str(&self, key: &str) -> Option<String> {
        self.get(key).and_then(|raw| serde_json::from_str::<String>(raw.get()).ok())
    }

    /// Replaces the value of `key` in place, or appends the field when it is new.
    pub fn insert(&mut self, key: &str, value: Box<RawValue>) {
        match self.fields.iter_mut().find(|(name, _)| name == key) {
            Some((_, slot)) => *slot = value,
            None => self.fields.push((key.to_owned(), value)),
        }
    }

    /// Serialises `value` and inserts it as [`RawObject::insert`] does.
    pub fn insert_json<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), serde_json::Error> {
        let raw = serde_json::value::to_raw_value(value)?;
        self.insert(key, raw);
        Ok(())
    }

    /// Sets `key` only when the object already has it (used for `updated_at`, which seeded
    /// objects may lack and must not gain).
    pub fn replace_existing<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), serde_json::Error> {
        if self.get(key).is_some() {
            self.insert_json(key, value)?;
        }
        Ok(())
    }
}

impl Serialize for RawObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.fields.len()))?;
        for (name, value) in &self.fields {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for RawObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor;

        impl<'de> Visitor<'de> for ObjectVisitor {
            type Value = RawObject;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<RawObject, A::Error> {
                let mut object = RawObject::new();
                while let Some((key, value)) = access.next_entry::<String, Box<RawValue>>()? {
                    object.insert(&key, value);
                }
                Ok(object)
            }
        }

        deserializer.deserialize_map(ObjectVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b171_raw_objects_keep_number_text_and_order() {
        let text = r#"{"z":1e2,"amount":100.10,"nested":{"a": [1, 2.50]},"n":null}"#;
        let object = RawObject::parse(text.as_bytes()).map_err(|e| e.to_string());
        let out = object.and_then(|o| serde_json::to_string(&o).map_err(|e| e.to_string()));
        assert_eq!(out.as_deref(), Ok(r#"{"z":1e2,"amount":100.10,"nested":{"a": [1, 2.50]},"n":null}"#));
    }

    #[test]
    fn b171_raw_objects_reject_non_objects() {
        assert!(RawObject::parse(b"[1]").is_err());
        assert!(RawObject::parse(b"\"x\"").is_err());
        assert!(RawObject::parse(b"{").is_err());
    }

    #[test]
    fn b171_duplicate_keys_keep_first_position_last_value() {
        let object = RawObject::parse(br#"{"a":1,"b":2,"a":3}"#).unwrap_or_default();
        assert_eq!(serde_json::to_string(&object).ok().as_deref(), Some(r#"{"a":3,"b":2}"#));
    }

    #[test]
    fn b171_get_str_only_for_strings() {
        let object = RawObject::parse(br#"{"s":"a\u0041","n":5}"#).unwrap_or_default();
        assert_eq!(object.get_str("s").as_deref(), Some("aA"));
        assert_eq!(object.get_str("n"), None);
        assert_eq!(object.get_str("missing"), None);
    }
}

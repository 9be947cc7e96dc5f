//! Descriptive fields: the ones no payment decision reads (ADR 0003, amended 2026-11-23).
//!
//! Such a field that is missing, null or not of its type reads as absent (`None`) with a
//! warning in the log, and the decision proceeds: a merchant must be able to ship a paid order
//! whatever the service wrote in a field nobody decides on. The warning names the record and
//! the field and says what was wrong, never the value (it may be the customer's contact
//! details, or anything a hostile body put there).

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::timestamp::{Timestamp, parse_timestamp};

/// Reads the descriptive fields of one record, and logs what it leaves out.
pub(crate) struct Descriptive<'a> {
    /// The record, as the warnings name it (`transaction \`ORDER-1\``).
    pub(crate) record: &'a str,
}

impl Descriptive<'_> {
    fn absent<T>(&self, field: &str, problem: &str) -> Option<T> {
        log::warn!(target: "sika", "{}: `{field}` {problem}; read as absent", self.record);
        None
    }

    fn read<T: DeserializeOwned>(&self, field: &str, raw: Option<&RawValue>, kind: &str) -> Option<T> {
        match raw {
            None => self.absent(field, "is missing"),
            Some(raw) if raw.get() == "null" => self.absent(field, "is null"),
            Some(raw) => serde_json::from_str(raw.get()).ok().or_else(|| self.absent(field, &format!("is not {kind}"))),
        }
    }

    /// A string.
    pub(crate) fn text(&self, field: &str, raw: Option<&RawValue>) -> Option<String> {
        self.read(field, raw, "a string")
    }

    /// An integer that fits 64 bits.
    pub(crate) fn integer(&self, field: &str, raw: Option<&RawValue>) -> Option<i64> {
        self.read(field, raw, "a 64-bit integer")
    }

    /// `true` or `false`.
    pub(crate) fn boolean(&self, field: &str, raw: Option<&RawValue>) -> Option<bool> {
        self.read(field, raw, "true or false")
    }

    /// An ISO 8601 time that every language holds (years 1 to 9999, no leap second: ADR 0022).
    pub(crate) fn timestamp(&self, field: &str, raw: Option<&RawValue>) -> Option<Timestamp> {
        let text: String = self.read(field, raw, "a string")?;
        parse_timestamp(&text).or_else(|| self.absent(field, "is not an ISO 8601 time in years 1 to 9999"))
    }
}

/// The raw values of the keys `names` of one JSON object (`None` when it is not an object);
/// other keys are skipped, and a key given twice is an error: a hostile body must not choose
/// which of two values we read.
pub(crate) fn object_fields(
    raw: &RawValue,
    names: &'static [&'static str],
) -> Result<Option<Vec<Option<Box<RawValue>>>>, serde_json::Error> {
    if !raw.get().trim_start().starts_with('{') {
        return Ok(None);
    }
    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
    KnownFields(names).deserialize(&mut deserializer).map(Some)
}

struct KnownFields(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KnownFields {
    type Value = Vec<Option<Box<RawValue>>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for KnownFields {
    type Value = Vec<Option<Box<RawValue>>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut values: Vec<Option<Box<RawValue>>> = vec![None; self.0.len()];
        while let Some(key) = map.next_key::<String>()? {
            match self.0.iter().position(|name| *name == key) {
                Some(index) if values[index].is_some() => {
                    return Err(de::Error::custom(format!("duplicate field `{key}`")));
                }
                Some(index) => values[index] = Some(map.next_value()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(values)
    }
}

/// A timestamp of a list record (a bank, a provider), in the service's body or in the record's
/// own JSON: absent when null, missing (with `#[serde(default)]`) or not a time every language
/// holds, with a warning for the last.
fn list_timestamp<'de, D: Deserializer<'de>>(field: &str, deserializer: D) -> Result<Option<Timestamp>, D::Error> {
    let raw = <Box<RawValue>>::deserialize(deserializer)?;
    if raw.get() == "null" {
        return Ok(None);
    }
    Ok(Descriptive { record: "list record" }.timestamp(field, Some(&raw)))
}

/// `createdAt` of a bank or provider (see `list_timestamp`).
pub(crate) fn created_at<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Timestamp>, D::Error> {
    list_timestamp("createdAt", deserializer)
}

/// `updatedAt` of a bank or provider (see `list_timestamp`).
pub(crate) fn updated_at<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Timestamp>, D::Error> {
    list_timestamp("updatedAt", deserializer)
}

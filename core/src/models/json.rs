//! Records as JSON for storing and logging: one writer in the core, so every language's
//! `to_json()` gives the same text (ADR 0015).
//!
//! The service's field names (where a record renames one, such as a bank's `type`), and its
//! texts: a status as `successful`, an amount as an exact decimal string that keeps its scale
//! (`"100.10"`: a JSON number would be read back as a binary float by most parsers), and
//! timestamps as ISO 8601 in UTC with milliseconds, as the service writes them.

use std::fmt::Display;

use chrono::SecondsFormat;
use serde::Serializer;

use crate::amount::Amount;
use crate::timestamp::Timestamp;

/// An amount as its exact decimal text (`"100.10"`).
pub(crate) fn amount_text<S: Serializer>(amount: &Amount, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(amount)
}

/// A timestamp as ISO 8601 in UTC with milliseconds (`2024-05-01T12:00:00.123Z`).
pub(crate) fn timestamp_text<S: Serializer>(time: &Timestamp, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&time.to_rfc3339_opts(SecondsFormat::Millis, true))
}

/// A value as its `Display` text: the service's text of a status, payment type or bank scheme.
pub(crate) fn service_text<S: Serializer, T: Display>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// The JSON text of a record. Every record holds only text, numbers, booleans and records of
/// those, all written by the serialisers above or serde's own, none of which can fail.
pub(crate) fn to_text<T: serde::Serialize>(record: &T) -> String {
    serde_json::to_string(record).expect("a record of text, numbers and booleans always serialises")
}

/// Adds `to_json()` to records (exported to every language with the `uniffi` feature).
macro_rules! to_json_methods {
    ($($record:ty),* $(,)?) => {$(
        #[cfg_attr(feature = "uniffi", uniffi::export)]
        impl $record {
            /// The record as JSON text, for storing and logging: the service's field names and
            /// texts, amounts as exact decimal strings (`"100.10"`), timestamps as ISO 8601 UTC.
            /// The same text in every language.
            pub fn to_json(&self) -> String {
                $crate::models::json::to_text(self)
            }
        }
    )*};
}

pub(crate) use to_json_methods;

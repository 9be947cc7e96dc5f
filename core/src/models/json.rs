//! Records as JSON for storing and logging: one writer in the core, so every language's
//! `to_json()` gives the same text (ADR 0015).
//!
//! The service's field names (where a record renames one, such as a bank's `type`), and its
//! texts: a status as `successful`, an amount as an exact decimal string that keeps its scale
//! (`"100.10"`: a JSON number would be read back as a binary float by most parsers), and
//! timestamps as ISO 8601 in UTC with milliseconds, as the service writes them.
//!
//! The same text reads back (`transaction_from_json()` and the other `*_from_json()`): the
//! records derive `Deserialize` for their `to_json()` form, with the readers below next to the
//! writers, so `from_json(to_json(x)) == x` for every record (ADR 0017).
//!
//! Only the writers, the readers and the two macros live here; each record's module invokes
//! `to_json_methods!` and `from_json_functions!` beside the record, so this module imports no
//! record and no record's module imports it back for its own functions.

use std::borrow::Cow;
use std::fmt::Display;

use chrono::SecondsFormat;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serializer};

use crate::amount::Amount;
use crate::error::SikaError;
use crate::status::{PaymentType, TransactionStatus};
use crate::timestamp::Timestamp;

/// An amount as its exact decimal text (`"100.10"`).
pub(crate) fn amount_text<S: Serializer>(amount: &Amount, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(amount)
}

/// A timestamp as ISO 8601 in UTC with milliseconds (`2024-05-01T12:00:00.123Z`); a time
/// finer than a millisecond gets the digits it needs, so reading the text back gives it exactly.
pub(crate) fn timestamp_text<S: Serializer>(time: &Timestamp, serializer: S) -> Result<S::Ok, S::Error> {
    let digits =
        if time.timestamp_subsec_nanos() % 1_000_000 == 0 { SecondsFormat::Millis } else { SecondsFormat::AutoSi };
    serializer.serialize_str(&time.to_rfc3339_opts(digits, true))
}

/// An optional timestamp as [`timestamp_text`], or null.
pub(crate) fn optional_timestamp_text<S: Serializer>(
    time: &Option<Timestamp>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match time {
        Some(time) => timestamp_text(time, serializer),
        None => serializer.serialize_none(),
    }
}

/// A value as its `Display` text: the service's text of a status, payment type or bank scheme.
pub(crate) fn service_text<S: Serializer, T: Display>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// A status read back from the service's text, through the decoder's own parser (so `success`
/// stays `Unknown`).
pub(crate) fn status_from_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<TransactionStatus, D::Error> {
    Cow::<str>::deserialize(deserializer).map(|text| TransactionStatus::from_wire(&text))
}

/// An optional payment type as its service text, or null.
pub(crate) fn optional_service_text<S: Serializer, T: Display>(
    value: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serializer.collect_str(value),
        None => serializer.serialize_none(),
    }
}

/// An optional payment type read back from its text (null is `None`).
pub(crate) fn optional_payment_type_from_text<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<PaymentType>, D::Error> {
    Ok(Option::<Cow<str>>::deserialize(deserializer)?.map(|text| PaymentType::from_wire(&text)))
}

/// The JSON text of a record. Every record holds only text, numbers, booleans and records of
/// those, all written by the serialisers above or serde's own, none of which can fail.
pub(crate) fn to_text<T: serde::Serialize>(record: &T) -> String {
    serde_json::to_string(record).expect("a record of text, numbers and booleans always serialises")
}

/// Adds `to_json()` to records (exported to every language with the `uniffi` feature).
macro_rules! to_json_methods {
    ($($record:ty),* $(,)?) => {$(
        impl $record {
            /// The record as JSON text, for storing and logging: the service's field names and
            /// texts, amounts as exact decimal strings (`"100.10"`), timestamps as ISO 8601 UTC.
            /// The same text in every language.
            pub fn to_json(&self) -> String {
                $crate::models::json::to_text(self)
            }
        }

        #[cfg(feature = "uniffi")]
        #[uniffi::export]
        impl $record {
            /// The record as JSON text, for storing and logging: the service's field names and
            /// texts, amounts as exact decimal strings (`"100.10"`), timestamps as ISO 8601 UTC.
            /// The same text in every language.
            ///
            /// A record built in another language can hold a value the core cannot (an amount
            /// beyond 28 significant digits, a time out of range): that is `InvalidInput`
            /// naming the field, raised as the record crosses. The `Result` gives that error
            /// its type; without it UniFFI reports a failed argument as an internal error with
            /// a Rust backtrace (B63).
            #[uniffi::method(name = "to_json")]
            pub fn foreign_to_json(&self) -> Result<String, $crate::error::SikaError> {
                Ok(self.to_json())
            }
        }
    )*};
}

pub(crate) use to_json_methods;

/// A record read back from its `to_json()` text. Any other text is bad input, named `json`.
pub(crate) fn from_text<T: DeserializeOwned>(json: &str, record: &str) -> Result<T, SikaError> {
    serde_json::from_str(json)
        .map_err(|error| SikaError::invalid_input("json", format!("not the JSON text of a {record}: {error}")))
}

/// Exports `<record>_from_json(json)`, the reader of each record's `to_json()` text.
macro_rules! from_json_functions {
    ($($function:ident => $record:ident),* $(,)?) => {$(
        /// Reads the record back from its `to_json()` text (for a cache or a queue): the same
        /// record, statuses through the decoder's parsers, the amount with its scale. Any other
        /// text is `InvalidInput` for the field `json`.
        #[cfg_attr(feature = "uniffi", uniffi::export)]
        pub fn $function(json: String) -> Result<$record, $crate::SikaError> {
            $crate::models::json::from_text(&json, stringify!($record))
        }
    )*};
}

pub(crate) use from_json_functions;

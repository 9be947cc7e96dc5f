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

/// Adds `to_json()` to records (exported to every language with the `uniffi` feature); with
/// `decisions:` first, to decisions, written by [`decision_text`].
macro_rules! to_json_methods {
    (decisions: $($decision:ty),* $(,)?) => {
        $crate::models::json::to_json_methods!(@with $crate::models::json::decision_text; $($decision),*);
    };
    ($($record:ty),* $(,)?) => {
        $crate::models::json::to_json_methods!(@with $crate::models::json::to_text; $($record),*);
    };
    (@with $writer:path; $($record:ty),*) => {$(
        impl $record {
            /// The record as JSON text, for storing and logging: the service's field names and
            /// texts, amounts as exact decimal strings (`"100.10"`), timestamps as ISO 8601 UTC.
            /// The same text in every language.
            pub fn to_json(&self) -> String {
                $writer(self)
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

/// Exports `<record>_from_json(json)`, the reader of each record's `to_json()` text; with
/// `decisions:` first, of each decision's (read by [`decision_from_text`]).
macro_rules! from_json_functions {
    (decisions: $($function:ident => $record:ident),* $(,)?) => {
        $crate::models::json::from_json_functions!(@with $crate::models::json::decision_from_text; $($function => $record),*);
    };
    ($($function:ident => $record:ident),* $(,)?) => {
        $crate::models::json::from_json_functions!(@with $crate::models::json::from_text; $($function => $record),*);
    };
    (@with $reader:path; $($function:ident => $record:ident),*) => {$(
        /// Reads the record back from its `to_json()` text (for a cache or a queue): the same
        /// record, statuses through the decoder's parsers, the amount with its scale. Any other
        /// text is `InvalidInput` for the field `json`.
        #[cfg_attr(feature = "uniffi", uniffi::export)]
        pub fn $function(json: String) -> Result<$record, $crate::SikaError> {
            $reader(&json, stringify!($record))
        }
    )*};
}

pub(crate) use from_json_functions;

// Decisions (`PaymentCheck`, `WebhookDecision`, `LedgerDecision`; ADR 0080) are written with
// their kind first, under `outcome`, then the variant's fields:
// `{"outcome":"NOT_PAID","transaction":{...},"action":"INVESTIGATE"}`. Their serde derive is
// externally tagged (`{"NOT_PAID":{...}}`, variants renamed to capitals), which serde_json reads
// and writes directly; serde's internally tagged form would buffer the fields first, and the
// amounts' reader (`Amount`, through a raw JSON value) cannot be read from that buffer. So the
// text is moved between the two forms here, around serde_json's own reader and writer.

/// A decision as its JSON text: the kind under `outcome`, then its fields.
pub(crate) fn decision_text<T: serde::Serialize>(decision: &T) -> String {
    let external = to_text(decision);
    // serde_json's compact text of an externally tagged struct variant: `{"NAME":{FIELDS}}`, the
    // name a variant's (capitals and `_`, never escaped).
    let (name, fields) = external
        .strip_prefix("{\"")
        .and_then(|rest| rest.strip_suffix('}'))
        .and_then(|rest| rest.split_once("\":"))
        .filter(|(name, fields)| name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') && fields.starts_with('{'))
        .expect("a decision is an externally tagged struct variant");
    let fields = &fields[1..];
    let separator = if fields == "}" { "" } else { "," };
    format!("{{\"outcome\":\"{name}\"{separator}{fields}")
}

/// A decision read back from its `to_json()` text. Any other text is bad input, named `json`.
pub(crate) fn decision_from_text<T: DeserializeOwned>(json: &str, decision: &str) -> Result<T, SikaError> {
    let bad = |error: String| SikaError::invalid_input("json", format!("not the JSON text of a {decision}: {error}"));
    let mut fields: std::collections::BTreeMap<String, Box<serde_json::value::RawValue>> =
        serde_json::from_str(json).map_err(|error| bad(error.to_string()))?;
    let outcome = fields.remove("outcome").ok_or_else(|| bad("no `outcome`".to_owned()))?;
    let outcome: String = serde_json::from_str(outcome.get()).map_err(|error| bad(format!("`outcome`: {error}")))?;
    let mut external = String::from("{");
    external.push_str(&to_text(&outcome));
    external.push_str(":{");
    for (index, (name, value)) in fields.iter().enumerate() {
        if index > 0 {
            external.push(',');
        }
        external.push_str(&to_text(name));
        external.push(':');
        external.push_str(value.get());
    }
    external.push_str("}}");
    serde_json::from_str(&external).map_err(|error| bad(error.to_string()))
}

/// A decision held in another (`LedgerDecision::Decided`), written in its own JSON shape.
#[cfg(feature = "ledger")]
pub(crate) fn nested_decision<S: Serializer, T: serde::Serialize>(
    decision: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let text = serde_json::value::RawValue::from_string(decision_text(decision)).map_err(serde::ser::Error::custom)?;
    serde::Serialize::serialize(&text, serializer)
}

/// A nested decision read back from its own JSON shape.
#[cfg(feature = "ledger")]
pub(crate) fn nested_decision_from_text<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
) -> Result<T, D::Error> {
    let raw = <Box<serde_json::value::RawValue>>::deserialize(deserializer)?;
    decision_from_text(raw.get(), "decision").map_err(serde::de::Error::custom)
}

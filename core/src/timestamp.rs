//! ISO 8601 timestamps as the service writes them (`2024-01-15T10:30:00.000Z`).
//!
//! Every timestamp is descriptive (ADR 0022): one that no language can hold reads as absent,
//! decided here so that every language gets the same record.

use chrono::{DateTime, Datelike, NaiveDateTime, SubsecRound, Utc};
use serde::de::{self, Deserialize, Deserializer};

/// A point in time, in UTC.
pub type Timestamp = DateTime<Utc>;

/// Parses RFC 3339 / ISO 8601 with any offset; a timestamp without an offset is taken as UTC,
/// since the service documents all its timestamps as UTC. Read to the microsecond (finer digits
/// are dropped), the precision every language holds. `None` for other text, and for a time a
/// language cannot hold (see [`is_supported`]).
pub fn parse_timestamp(text: &str) -> Option<Timestamp> {
    parse_any(text).map(|time| time.trunc_subsecs(6)).filter(is_supported)
}

fn parse_any(text: &str) -> Option<Timestamp> {
    if let Ok(with_offset) = DateTime::parse_from_rfc3339(text) {
        return Some(with_offset.with_timezone(&Utc));
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
        .map(|naive| naive.and_utc())
}

/// Whether every language holds `time` as the core does: years 1 to 9999 in UTC (Python's
/// `datetime`; Kotlin's `Instant` and Swift's `Date` reach further), and not a leap second
/// (`23:59:60`, which chrono keeps but `datetime`, `Instant` and `Date` cannot name). Times
/// cross the FFI as whole microseconds, so the last one held is `9999-12-31T23:59:59.999999Z`.
pub fn is_supported(time: &Timestamp) -> bool {
    (1..=9999).contains(&time.year()) && time.timestamp_subsec_nanos() < 1_000_000_000
}

/// The record form's reader (`*_from_json`) of an optional timestamp: null or absent is
/// `None`, a time every language holds is read, anything else is an error.
pub(crate) fn deserialize_optional<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Timestamp>, D::Error> {
    let Some(text) = Option::<std::borrow::Cow<'de, str>>::deserialize(deserializer)? else { return Ok(None) };
    let time = parse_timestamp(&text);
    time.map(Some).ok_or_else(|| de::Error::custom(format!("`{text}` is not an ISO 8601 timestamp in years 1 to 9999")))
}

/// The record form's reader (`*_from_json`) of a required timestamp: a time every language
/// holds is read, anything else is an error.
#[cfg(feature = "ledger")]
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Timestamp, D::Error> {
    deserialize_optional(deserializer)?.ok_or_else(|| de::Error::custom("a timestamp is required, not null"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b01_parses_the_service_format_with_milliseconds() {
        let parsed = parse_timestamp("2024-01-15T10:30:00.123Z").expect("parses");
        assert_eq!(parsed.timestamp_millis(), 1_705_314_600_123);
    }

    #[test]
    fn b01_converts_offsets_to_utc_and_reads_naive_as_utc() {
        let offset = parse_timestamp("2024-01-15T12:30:00+02:00").expect("offset");
        let naive = parse_timestamp("2024-01-15T10:30:00").expect("naive");
        assert_eq!(offset, naive);
    }

    #[test]
    fn b01_rejects_other_text() {
        assert!(parse_timestamp("yesterday").is_none());
        assert!(parse_timestamp("2024-13-45T10:30:00Z").is_none());
    }

    #[test]
    fn b52_read_to_the_microsecond() {
        let time = parse_timestamp("1969-12-31T23:59:59.123456789Z").expect("parses");
        assert_eq!(time.timestamp_micros(), -876_544);
    }

    #[test]
    fn b52_only_times_every_language_holds() {
        for held in [
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999Z",
            "9999-12-31T23:59:59.9999995Z",
            "1969-12-31T23:59:59.500Z",
            "2016-12-31T23:59:59.999Z",
        ] {
            assert!(parse_timestamp(held).is_some(), "{held}");
        }
        for not_held in [
            "0000-12-31T23:59:59Z",
            "0001-01-01T00:00:00+00:01",
            "10000-01-01T00:00:00Z",
            "9999-12-31T23:59:60Z",
            "2016-12-31T23:59:60Z",
            "9999-12-31T23:00:00-01:00",
        ] {
            assert!(parse_timestamp(not_held).is_none(), "{not_held}");
        }
    }
}

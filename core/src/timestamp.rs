//! ISO 8601 timestamps as the service writes them (`2024-01-15T10:30:00.000Z`).

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::de::{self, Deserialize, Deserializer};

/// A point in time, in UTC.
pub type Timestamp = DateTime<Utc>;

/// Parses RFC 3339 / ISO 8601 with any offset; a timestamp without an offset is taken as UTC,
/// since the service documents all its timestamps as UTC.
pub fn parse_timestamp(text: &str) -> Option<Timestamp> {
    if let Ok(with_offset) = DateTime::parse_from_rfc3339(text) {
        return Some(with_offset.with_timezone(&Utc));
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
        .map(|naive| naive.and_utc())
}

pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Timestamp, D::Error> {
    let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
    parse_timestamp(&text).ok_or_else(|| de::Error::custom(format!("`{text}` is not an ISO 8601 timestamp")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_service_format_with_milliseconds() {
        let parsed = parse_timestamp("2024-01-15T10:30:00.123Z").expect("parses");
        assert_eq!(parsed.timestamp_millis(), 1_705_314_600_123);
    }

    #[test]
    fn converts_offsets_to_utc_and_reads_naive_as_utc() {
        let offset = parse_timestamp("2024-01-15T12:30:00+02:00").expect("offset");
        let naive = parse_timestamp("2024-01-15T10:30:00").expect("naive");
        assert_eq!(offset, naive);
    }

    #[test]
    fn rejects_other_text() {
        assert!(parse_timestamp("yesterday").is_none());
        assert!(parse_timestamp("2024-13-45T10:30:00Z").is_none());
    }
}

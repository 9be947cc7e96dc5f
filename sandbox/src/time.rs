//! Timestamps in the service's format: ISO 8601, UTC, milliseconds, `Z`
//! (`2024-01-15T10:30:00.000Z`). Done by hand to keep the crate free of a date library.

use std::time::{SystemTime, UNIX_EPOCH};

/// The current time, e.g. `2024-01-15T10:30:00.000Z`.
pub fn now_iso() -> String {
    let millis = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
    format_unix_millis(u64::try_from(millis).unwrap_or(u64::MAX))
}

/// Formats milliseconds since the Unix epoch.
pub fn format_unix_millis(millis: u64) -> String {
    let ms = millis % 1000;
    let secs = millis / 1000;
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z", rem / 3600, (rem % 3600) / 60, rem % 60)
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day); Howard Hinnant's
/// `civil_from_days`, restricted to dates on or after the epoch.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b171_times_format_known_instants() {
        assert_eq!(format_unix_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_unix_millis(1_705_314_600_000), "2024-01-15T10:30:00.000Z");
        assert_eq!(format_unix_millis(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(format_unix_millis(1_735_689_599_999), "2024-12-31T23:59:59.999Z");
    }

    #[test]
    fn b171_now_has_the_service_shape() {
        let now = now_iso();
        assert_eq!(now.len(), 24);
        assert!(now.ends_with('Z'));
        assert_eq!(&now[10..11], "T");
    }
}

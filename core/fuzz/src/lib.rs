//! Helpers shared by the fuzz targets.

/// Splits a fuzz input into an HTTP status (the first two bytes, big-endian) and a body.
/// Inputs shorter than two bytes are a status of 0 (or the one byte) with an empty body.
/// The seeds scripts/fuzz writes start with `\x00\xc8` (200), so the success paths are reached.
pub fn status_and_body(data: &[u8]) -> (u16, &[u8]) {
    match data {
        [high, low, body @ ..] => (u16::from_be_bytes([*high, *low]), body),
        [one] => (u16::from(*one), &[]),
        [] => (0, &[]),
    }
}

/// Whether `needle` occurs in `haystack`.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|window| window == needle)
}

/// `^\+\d{8,15}$`, without a regex crate.
pub fn is_international_phone(text: &str) -> bool {
    text.strip_prefix('+')
        .is_some_and(|digits| (8..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()))
}

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

/// The exact value a JSON-style number text stands for, written independently of sika-core:
/// its sign, its significant digits (no leading or trailing zeros) and the power of ten of the
/// last one, so `100.10`, `1.001e2` and `1001e-1` are all `(false, "1001", -1)`. Zero is
/// `(false, "", 0)` whatever its sign. `None` when the text is not such a number.
pub fn exact_value(text: &str) -> Option<(bool, String, i128)> {
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, exponent.strip_prefix('+').unwrap_or(exponent).parse::<i128>().ok()?),
        None => (text, 0),
    };
    let (negative, unsigned) = match mantissa.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
    };
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    // `.5` is a number text (the value one half); `.` alone is not.
    if (whole.is_empty() && fraction.is_empty()) || !format!("{whole}{fraction}").bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = format!("{whole}{fraction}");
    let significant = digits.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    if trimmed.is_empty() {
        return Some((false, String::new(), 0));
    }
    let power = exponent - fraction.len() as i128 + (significant.len() - trimmed.len()) as i128;
    Some((negative, trimmed.to_owned(), power))
}

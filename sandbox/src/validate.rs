//! Input rules shared by verify and charge.

/// Longest reference the service accepts.
pub const MAX_REFERENCE_LEN: usize = 100;

/// A well-formed reference: 1 to 100 characters, each an ASCII letter, digit, `-`, `_` or `.`.
///
/// Verify applies this only after the lookup has missed, so that references seeded through
/// the control API with other characters (`a/b`) can still be found.
pub fn is_valid_reference(reference: &str) -> bool {
    !reference.is_empty()
        && reference.len() <= MAX_REFERENCE_LEN
        && reference.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// International format: `+` then 8 to 15 digits, nothing else.
pub fn is_valid_phone_number(phone: &str) -> bool {
    match phone.strip_prefix('+') {
        Some(digits) => (8..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()),
        None => false,
    }
}

/// A plain e-mail check: one `@`, a non-empty local part, a dotted domain, no whitespace or
/// control characters. Deliverability is not the sandbox's business.
pub fn is_valid_email(email: &str) -> bool {
    if email.len() > 254 || email.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let mut parts = email.split('@');
    let (Some(local), Some(domain), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
}

/// A positive, finite JSON number, judged from its raw text (so no precision is lost first).
pub fn is_positive_json_number(raw: &str) -> bool {
    let starts_like_number = raw.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'-');
    // The JSON number grammar is a subset of what `f64::from_str` accepts; the first-byte
    // check rules out the extra spellings (`inf`, `NaN`, `+1`) that Rust would take.
    starts_like_number && raw.parse::<f64>().is_ok_and(|v| v.is_finite() && v > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b171_references_are_validated() {
        assert!(is_valid_reference("order-1_2.3"));
        assert!(is_valid_reference(&"a".repeat(100)));
        assert!(!is_valid_reference(&"a".repeat(101)));
        assert!(!is_valid_reference(""));
        assert!(!is_valid_reference("a/b"));
        assert!(!is_valid_reference("a b"));
        assert!(!is_valid_reference("é"));
    }

    #[test]
    fn b171_phones_are_validated() {
        assert!(is_valid_phone_number("+233244120000"));
        assert!(is_valid_phone_number("+12345678"));
        assert!(is_valid_phone_number("+123456789012345"));
        assert!(!is_valid_phone_number("+1234567"));
        assert!(!is_valid_phone_number("+1234567890123456"));
        assert!(!is_valid_phone_number("233244120000"));
        assert!(!is_valid_phone_number("+23324412 000"));
        assert!(!is_valid_phone_number("+"));
    }

    #[test]
    fn b171_emails_are_validated() {
        assert!(is_valid_email("kofi@example.com"));
        assert!(!is_valid_email("kofi.example.com"));
        assert!(!is_valid_email("kofi@@example.com"));
        assert!(!is_valid_email("a@b@example.com"));
        assert!(!is_valid_email("@example.com"));
        assert!(!is_valid_email("kofi@example"));
        assert!(!is_valid_email("kofi@.com"));
        assert!(!is_valid_email("kofi @example.com"));
    }

    #[test]
    fn b171_amounts_are_validated() {
        assert!(is_positive_json_number("100.10"));
        assert!(is_positive_json_number("1e2"));
        assert!(is_positive_json_number("0.01"));
        assert!(!is_positive_json_number("0"));
        assert!(!is_positive_json_number("-0.0"));
        assert!(!is_positive_json_number("-5"));
        assert!(!is_positive_json_number("1e400"));
        assert!(!is_positive_json_number("\"100\""));
        assert!(!is_positive_json_number("null"));
        assert!(!is_positive_json_number("true"));
        assert!(!is_positive_json_number(""));
    }
}

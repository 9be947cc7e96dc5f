//! Checks on caller input, run before any request is built: a rejected input sends nothing.

use crate::country;
use crate::error::{Result, SikaError};
use crate::models::ChargeRequest;

/// Longest reference accepted; longer ones are certainly mistakes and would make huge URLs.
pub const MAX_REFERENCE_CHARS: usize = 256;

/// A country code: exactly two ASCII letters, any case; returned upper-case as it is sent.
pub(crate) fn country_code(code: &str) -> Result<String> {
    if code.len() == 2 && code.bytes().all(|b| b.is_ascii_alphabetic()) {
        Ok(code.to_ascii_uppercase())
    } else {
        Err(SikaError::invalid_input("country", "must be a two-letter country code such as GH"))
    }
}

/// A non-empty identifier without control characters (references, provider codes).
fn identifier(field: &str, value: &str) -> Result<()> {
    if value.is_empty() {
        return Err(SikaError::invalid_input(field, "must not be empty"));
    }
    if value.chars().any(char::is_control) {
        return Err(SikaError::invalid_input(field, "must not contain control characters"));
    }
    if value.trim() != value {
        return Err(SikaError::invalid_input(field, "must not start or end with white space"));
    }
    Ok(())
}

/// A transaction reference, which travels as one URL path segment.
pub(crate) fn reference(value: &str) -> Result<()> {
    identifier("reference", value)?;
    if value.chars().count() > MAX_REFERENCE_CHARS {
        return Err(SikaError::invalid_input("reference", format!("must be at most {MAX_REFERENCE_CHARS} characters")));
    }
    // `.` and `..` are the only segments no URL can carry as data: every URL parser
    // resolves them, even percent-encoded, which would change the path.
    if value == "." || value == ".." {
        return Err(SikaError::invalid_input("reference", "`.` and `..` are not valid references"));
    }
    Ok(())
}

/// International format: `+` then 8 to 15 digits, nothing else.
pub(crate) fn phone_number(value: &str) -> Result<()> {
    let valid = value
        .strip_prefix('+')
        .is_some_and(|digits| (8..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()));
    if valid {
        Ok(())
    } else {
        Err(SikaError::invalid_input(
            "phone_number",
            "must be in international format: + then 8 to 15 digits (e.g. +233244123456)",
        ))
    }
}

/// A phone number for logs: the country code and the last two digits only (`+233*******56`).
pub(crate) fn mask_phone(value: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    let keep_start = if value.starts_with('+') { 4 } else { 0 };
    let keep_end = 2;
    if chars.len() <= keep_start + keep_end {
        return "*".repeat(chars.len());
    }
    chars
        .iter()
        .enumerate()
        .map(|(index, c)| if index < keep_start || index >= chars.len() - keep_end { *c } else { '*' })
        .collect()
}

/// An e-mail address for logs: the local part's first character and the domain only
/// (`a***@example.com`); text without an `@` is all stars.
pub(crate) fn mask_email(value: &str) -> String {
    match value.rsplit_once('@') {
        Some((local, domain)) => match local.chars().next() {
            Some(first) => format!("{first}***@{domain}"),
            None => format!("***@{domain}"),
        },
        None => "*".repeat(value.chars().count()),
    }
}

/// One `@`, a non-empty local part, a domain with an inner dot, no white space or controls.
pub(crate) fn email(value: &str) -> Result<()> {
    let valid = !value.chars().any(|c| c.is_whitespace() || c.is_control())
        && value.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
        });
    if valid {
        Ok(())
    } else {
        Err(SikaError::invalid_input("email", "must be an e-mail address such as name@example.com"))
    }
}

fn callback_url(value: &str) -> Result<()> {
    let parsed = url::Url::parse(value)
        .map_err(|e| SikaError::invalid_input("callback_url", format!("must be an absolute URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(SikaError::invalid_input("callback_url", "must be an http or https URL"));
    }
    Ok(())
}

/// Checks a whole charge and returns its currency upper-cased, as it is sent.
pub(crate) fn charge(request: &ChargeRequest) -> Result<String> {
    if !request.amount.is_positive() {
        return Err(SikaError::invalid_input("amount", "must be greater than zero"));
    }
    if request.amount.scale() > 2 {
        return Err(SikaError::invalid_input("amount", "must have at most two decimal places"));
    }
    email(&request.email)?;
    phone_number(&request.phone_number)?;
    reference(&request.reference)?;
    identifier("provider", &request.provider)?;
    let currency = request.currency.to_ascii_uppercase();
    if !country::is_mobile_money_currency(&currency) {
        return Err(SikaError::invalid_input(
            "currency",
            format!(
                "must be the currency of a mobile money country: {}",
                country::mobile_money_currencies().join(", ")
            ),
        ));
    }
    if let Some(url) = &request.callback_url {
        callback_url(url)?;
    }
    Ok(currency)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(result: Result<impl Sized>) -> String {
        match result {
            Err(SikaError::InvalidInput { field, .. }) => field,
            Err(other) => panic!("wrong error: {other:?}"),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn b12_country_codes() {
        assert_eq!(country_code("gh").ok().as_deref(), Some("GH"));
        assert_eq!(country_code("Ke").ok().as_deref(), Some("KE"));
        for bad in ["", "G", "GHA", " G", "G ", "G1", "ÀB", "\u{0}G"] {
            assert_eq!(field_of(country_code(bad)), "country", "{bad:?}");
        }
    }

    #[test]
    fn b12_references() {
        for good in ["ORDER-1", "a/b", "?x", "#frag", "%2F", "caf\u{e9}", "..a", "a b"] {
            assert!(reference(good).is_ok(), "{good:?}");
        }
        let long = "x".repeat(MAX_REFERENCE_CHARS + 1);
        for bad in ["", ".", "..", "a\u{0}b", "line\nbreak", " lead", "trail ", long.as_str()] {
            assert_eq!(field_of(reference(bad)), "reference", "{bad:?}");
        }
    }

    #[test]
    fn b24_phone_numbers() {
        for good in ["+233244123456", "+12345678", "+123456789012345"] {
            assert!(phone_number(good).is_ok(), "{good}");
        }
        for bad in ["0244123456", "+1234567", "+1234567890123456", "+233 244 123456", "++233244123456", "", "+"] {
            assert_eq!(field_of(phone_number(bad)), "phone_number", "{bad:?}");
        }
    }

    #[test]
    fn b28_phone_numbers_are_masked_for_logs() {
        assert_eq!(mask_phone("+233244123456"), "+233*******56");
        assert_eq!(mask_phone("0244123456"), "********56");
        assert_eq!(mask_phone("+23"), "***");
    }

    #[test]
    fn b28_emails_are_masked_for_logs() {
        assert_eq!(mask_email("ama@example.com"), "a***@example.com");
        assert_eq!(mask_email("@example.com"), "***@example.com");
        assert_eq!(mask_email("not-an-address"), "**************");
        assert_eq!(mask_email("a@b@example.com"), "a***@example.com");
    }

    #[test]
    fn b12_emails() {
        assert!(email("ama@example.com").is_ok());
        for bad in [
            "",
            "ama",
            "ama@",
            "@example.com",
            "ama@example",
            "a@b@c.com",
            "ama @example.com",
            "ama@.com",
            "ama@example.",
        ] {
            assert_eq!(field_of(email(bad)), "email", "{bad:?}");
        }
    }
}

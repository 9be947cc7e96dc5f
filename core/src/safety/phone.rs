//! Phone numbers as customers type them, turned into the international form charges need.

use crate::error::{Result, SikaError};
use crate::validation;

/// Calling code and national number length of each mobile money country.
const PLANS: [(&str, &str, usize); 4] = [("GH", "233", 9), ("KE", "254", 9), ("UG", "256", 9), ("TZ", "255", 9)];

/// Normalizes a mobile money number of a country (GH, KE, UG, TZ; any case) to `+<code><number>`.
///
/// Accepts the ways people write them: `024 412 3456`, `0244123456`, `233244123456`,
/// `+233 24 412 3456`, `00233-24-412-3456`, `(024) 412.3456`. Anything else, or a number of
/// another country, is `InvalidInput`.
#[cfg_attr(feature = "uniffi", uniffi::export)]
pub fn normalize_phone_number(input: &str, country: &str) -> Result<String> {
    let country = validation::country_code(country)?;
    let Some(&(_, calling_code, national_length)) = PLANS.iter().find(|(code, _, _)| *code == country) else {
        return Err(SikaError::invalid_input(
            "country",
            format!("{country} has no mobile money; use GH, KE, UG or TZ"),
        ));
    };
    let invalid = || {
        SikaError::invalid_input(
            "phone_number",
            format!(
                "not a {country} mobile number: expected +{calling_code} and {national_length} digits, or 0 and {national_length} digits"
            ),
        )
    };
    let trimmed = input.trim();
    let (international, rest) = match trimmed.strip_prefix('+') {
        Some(rest) => (true, rest),
        None => (false, trimmed),
    };
    if !rest.chars().all(|c| c.is_ascii_digit() || matches!(c, ' ' | '-' | '.' | '(' | ')')) {
        return Err(invalid());
    }
    let digits: String = rest.chars().filter(char::is_ascii_digit).collect();
    let national = if international {
        digits.strip_prefix(calling_code)
    } else if let Some(after_exit) = digits.strip_prefix("00") {
        after_exit.strip_prefix(calling_code)
    } else if digits.len() == calling_code.len() + national_length {
        digits.strip_prefix(calling_code)
    } else {
        digits.strip_prefix('0')
    };
    match national {
        // A national number never starts with the trunk 0 once the code is there (`+233 0244...`).
        Some(national) if national.len() == national_length && !national.starts_with('0') => {
            Ok(format!("+{calling_code}{national}"))
        }
        _ => Err(invalid()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_forms_of_a_ghana_number() {
        for input in [
            "024 412 3456",
            "0244123456",
            "233244123456",
            "+233 24 412 3456",
            "00233-24-412-3456",
            "(024) 412.3456",
            " +233244123456 ",
        ] {
            assert_eq!(normalize_phone_number(input, "GH").as_deref(), Ok("+233244123456"), "{input:?}");
        }
    }

    #[test]
    fn each_mobile_money_country() {
        assert_eq!(normalize_phone_number("0712 345 678", "ke").as_deref(), Ok("+254712345678"));
        assert_eq!(normalize_phone_number("+256 772 123456", "UG").as_deref(), Ok("+256772123456"));
        assert_eq!(normalize_phone_number("0754123456", "TZ").as_deref(), Ok("+255754123456"));
    }

    #[test]
    fn rejects_other_numbers_and_countries() {
        let field = |result: Result<String>| match result {
            Err(SikaError::InvalidInput { field, .. }) => field,
            other => panic!("expected InvalidInput, got {other:?}"),
        };
        for input in [
            "",
            "024412345",
            "02441234567",
            "+254712345678",
            "+233 0244123456",
            "0244l23456",
            "+",
            "233",
            "++233244123456",
            "024\u{0}4123456",
        ] {
            assert_eq!(field(normalize_phone_number(input, "GH")), "phone_number", "{input:?}");
        }
        assert_eq!(field(normalize_phone_number("0244123456", "NG")), "country");
        assert_eq!(field(normalize_phone_number("0244123456", "Ghana")), "country");
    }
}

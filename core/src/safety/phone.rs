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

    /// Every case of the shared scenario file, which each language's suite also runs (ADR 0037).
    #[test]
    fn b24_normalize_phone_number_scenarios() {
        let file: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/scenarios/b24_phone_numbers.json"))
                .expect("b24_phone_numbers.json");
        let cases = file["cases"].as_array().expect("cases");
        assert!(!cases.is_empty());
        for case in cases {
            let (input, country) = (case["input"].as_str().expect("input"), case["country"].as_str().expect("country"));
            let got = normalize_phone_number(input, country);
            let expect = &case["expect"];
            if let Some(normalized) = expect["normalized"].as_str() {
                assert_eq!(got.as_deref(), Ok(normalized), "{input:?} in {country}");
            } else {
                let field = expect["invalid_input"].as_str().expect("normalized or invalid_input");
                match got {
                    Err(SikaError::InvalidInput { field: got, .. }) => assert_eq!(got, field, "{input:?} in {country}"),
                    other => panic!("{input:?} in {country}: expected InvalidInput on {field}, got {other:?}"),
                }
            }
        }
    }
}

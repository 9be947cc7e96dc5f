//! Money as an exact decimal that keeps the JSON number text it came from.

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};
use serde_json::value::RawValue;

/// An amount of money. Never a binary float: `100.10` stays `100.10` (scale kept), and
/// equality is decimal equality (`100.1 == 100.10`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(Decimal);

impl Amount {
    /// Wraps a decimal.
    pub fn new(value: Decimal) -> Self {
        Self(value)
    }

    /// The decimal value.
    pub fn as_decimal(&self) -> Decimal {
        self.0
    }

    /// Number of digits after the decimal point, as written.
    pub fn scale(&self) -> u32 {
        self.0.scale()
    }

    /// Whether the amount is strictly greater than zero.
    pub fn is_positive(&self) -> bool {
        self.0 > Decimal::ZERO
    }
}

/// Why a text is not an amount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmountParseError(String);

impl fmt::Display for AmountParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AmountParseError {}

impl FromStr for Amount {
    type Err = AmountParseError;

    /// Parses decimal text as JSON writes numbers: `100`, `-5.25`, `100.10`, `1e2`, `1.5E-3`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let is_number_text = !text.is_empty()
            && text.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'));
        if !is_number_text {
            return Err(AmountParseError(format!("`{}` is not a decimal number", truncate(text))));
        }
        let not_representable = |why: &dyn fmt::Display| {
            AmountParseError(format!("`{}` is not a representable amount: {why}", truncate(text)))
        };
        // `Decimal::from_scientific` rounds past 28 significant digits (`99.99…9e0` became
        // `100`), so the exponent form is rewritten as the plain text it stands for, which
        // `from_str_exact` either holds exactly or rejects: money is never rounded.
        let plain = match text.split_once(['e', 'E']) {
            Some((mantissa, exponent)) => {
                plain_text(mantissa, exponent).ok_or_else(|| not_representable(&"bad exponent form"))?
            }
            None => text.to_owned(),
        };
        Decimal::from_str_exact(&plain).map(Amount).map_err(|e| not_representable(&e))
    }
}

/// Exponents beyond this cannot give an amount `Decimal` holds (28 digits either side of the
/// point) from a mantissa short enough to be an amount; bounding them keeps the rewrite small.
const MAX_EXPONENT: usize = 64;

/// The plain decimal text for `mantissa` × 10^`exponent`, keeping every digit written (so the
/// scale is the mantissa's minus the exponent, never below zero): `1.50e1` is `15.0`, `15e-3`
/// is `0.015`. `None` when either part is malformed or the exponent is out of bounds.
fn plain_text(mantissa: &str, exponent: &str) -> Option<String> {
    let (sign, unsigned) = match mantissa.as_bytes().first()? {
        b'-' => ("-", &mantissa[1..]),
        b'+' => ("", &mantissa[1..]),
        _ => ("", mantissa),
    };
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let is_digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !is_digits(whole) || !is_digits(fraction) || (unsigned.contains('.') && fraction.is_empty())
    {
        return None;
    }
    let (exponent_negative, exponent_digits) = match exponent.as_bytes().first()? {
        b'-' => (true, &exponent[1..]),
        b'+' => (false, &exponent[1..]),
        _ => (false, exponent),
    };
    if exponent_digits.is_empty() || !is_digits(exponent_digits) {
        return None;
    }
    let shift: usize = exponent_digits.parse().ok().filter(|shift| *shift <= MAX_EXPONENT)?;
    let digits = format!("{whole}{fraction}");
    // Position of the decimal point within `digits`, counted from the left, after the shift.
    let point = if exponent_negative { whole.len() as isize - shift as isize } else { (whole.len() + shift) as isize };
    let plain = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs()))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (left, right) = digits.split_at(point as usize);
        format!("{left}.{right}")
    };
    Some(format!("{sign}{plain}"))
}

fn truncate(text: &str) -> &str {
    match text.char_indices().nth(40) {
        Some((index, _)) => &text[..index],
        None => text,
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Amount({})", self.0)
    }
}

impl From<Decimal> for Amount {
    fn from(value: Decimal) -> Self {
        Self(value)
    }
}

impl From<Amount> for Decimal {
    fn from(value: Amount) -> Self {
        value.0
    }
}

impl<'de> Deserialize<'de> for Amount {
    /// Reads the raw JSON text, so no float ever stands between the wire and the decimal.
    /// A JSON string holding a decimal (`"100.10"`) is accepted too: some gateways quote money.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = <Box<RawValue>>::deserialize(deserializer)?;
        let text = raw.get();
        let number_text = match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
            Some(inner) => inner,
            None => text,
        };
        number_text.parse().map_err(de::Error::custom)
    }
}

impl Serialize for Amount {
    /// Writes the decimal as a JSON number with its exact digits (`100.10`, not `100.1`).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw = RawValue::from_string(self.0.to_string()).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amount(text: &str) -> Amount {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn b01_keeps_the_scale_as_written() {
        assert_eq!(amount("100.10").to_string(), "100.10");
        assert_eq!(amount("0.50").to_string(), "0.50");
        assert_eq!(amount("100").to_string(), "100");
    }

    #[test]
    fn b01_equality_is_decimal_equality() {
        assert_eq!(amount("100.1"), amount("100.10"));
        assert_ne!(amount("100.1"), amount("100.01"));
    }

    #[test]
    fn b01_scientific_notation_is_exact() {
        assert_eq!(amount("1e2").to_string(), "100");
        assert_eq!(amount("1.5E-3").to_string(), "0.0015");
    }

    #[test]
    fn b01_exponent_form_keeps_every_digit() {
        for (text, expected) in [
            ("1.0010e2", "100.10"),
            ("1.50e1", "15.0"),
            ("15e-3", "0.015"),
            ("-2.5E+1", "-25"),
            ("1e27", "1000000000000000000000000000"),
            ("1e-28", "0.0000000000000000000000000001"),
            ("9999999999999999999999999999e0", "9999999999999999999999999999"),
            ("0e0", "0"),
        ] {
            assert_eq!(amount(text).to_string(), expected, "{text}");
        }
    }

    #[test]
    fn b01_exponent_form_that_cannot_be_held_exactly_is_rejected() {
        for text in [
            "99.9999999999999999999999999999e0",
            "1.00000000000000000000000000001e0",
            "1e-30",
            "1E+40",
            "1e29",
            "1e65",
            "1.e2",
            ".5e1",
            "1e",
            "1e+",
            "e5",
            "1e2e3",
            "1e-2.5",
            "--1e2",
        ] {
            assert!(text.parse::<Amount>().is_err(), "{text:?} parsed as {:?}", text.parse::<Amount>());
        }
    }

    #[test]
    fn b01_rejects_what_is_not_a_decimal() {
        for text in ["", "NaN", "inf", "Infinity", "1,5", "12abc", " 1", "1e99999"] {
            assert!(text.parse::<Amount>().is_err(), "{text:?} parsed");
        }
    }

    #[test]
    fn b01_json_round_trip_keeps_digits() {
        let parsed: Amount = serde_json::from_str("100.10").expect("number");
        assert_eq!(serde_json::to_string(&parsed).expect("serialise"), "100.10");
        let quoted: Amount = serde_json::from_str("\"25.00\"").expect("string");
        assert_eq!(quoted.to_string(), "25.00");
        assert!(serde_json::from_str::<Amount>("true").is_err());
    }
}

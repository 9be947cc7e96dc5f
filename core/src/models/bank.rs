use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use super::descriptive;
use super::json::{from_json_functions, optional_timestamp_text, service_text, to_json_methods};
use crate::timestamp::Timestamp;

/// A bank of a country, for bank pickers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Bank {
    /// Unique bank identifier.
    pub id: i64,
    /// Bank name.
    pub name: String,
    /// Bank code, numeric text (`044`): keep it as text, leading zeros matter.
    pub code: String,
    /// Whether the bank is active.
    pub active: bool,
    /// Country name, in full.
    pub country: String,
    /// Currency code.
    pub currency: String,
    /// The account number scheme of the bank (the service's `type`).
    #[serde(rename = "type", serialize_with = "service_text")]
    pub account_type: BankAccountType,
    /// When the bank record was created; `None` when the service sent none, or a time outside
    /// years 1 to 9999 (ADR 0022).
    #[serde(
        rename = "createdAt",
        default,
        deserialize_with = "descriptive::created_at",
        serialize_with = "optional_timestamp_text"
    )]
    pub created_at: Option<Timestamp>,
    /// When the bank record last changed; `None` as for `created_at`.
    #[serde(
        rename = "updatedAt",
        default,
        deserialize_with = "descriptive::updated_at",
        serialize_with = "optional_timestamp_text"
    )]
    pub updated_at: Option<Timestamp>,
}

to_json_methods!(Bank);
from_json_functions!(bank_from_json => Bank);

/// The account number scheme of a bank. Prints as the service's text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum), uniffi::export(Display))]
pub enum BankAccountType {
    /// `nuban`: Nigeria's 10-digit uniform bank account number.
    Nuban,
    /// `account_number`: a plain account number (Ghana, Kenya, Uganda, Tanzania).
    AccountNumber,
    /// Any other value, kept as sent.
    Other {
        /// The service's text.
        value: String,
    },
}

impl BankAccountType {
    /// Decodes the service's text; unknown values become `Other`.
    pub fn from_wire(text: &str) -> Self {
        match text {
            "nuban" => Self::Nuban,
            "account_number" => Self::AccountNumber,
            other => Self::Other { value: other.to_owned() },
        }
    }

    /// The text as the service sends it.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Nuban => "nuban",
            Self::AccountNumber => "account_number",
            Self::Other { value } => value,
        }
    }
}

impl fmt::Display for BankAccountType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Builds a bank account scheme from the service's text (`nuban`), as the decoder does.
#[cfg(feature = "uniffi")]
#[uniffi::export]
fn bank_account_type_from_text(text: String) -> BankAccountType {
    BankAccountType::from_wire(&text)
}

impl<'de> Deserialize<'de> for BankAccountType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(Self::from_wire(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b114_a_bank_writes_the_service_names_and_texts() {
        let body = r#"{"id":1,"name":"Access Bank","code":"044","active":true,"country":"Nigeria","currency":"NGN",
            "type":"nuban","createdAt":"2024-01-15T10:30:00.000Z","updatedAt":"2024-01-15T10:30:00Z"}"#;
        let bank: Bank = serde_json::from_str(body).expect("bank");
        let json: serde_json::Value = serde_json::from_str(&bank.to_json()).expect("JSON");
        assert_eq!(json["type"], "nuban");
        assert_eq!(json["code"], "044");
        assert_eq!(json["createdAt"], "2024-01-15T10:30:00.000Z");
        assert_eq!(json["updatedAt"], "2024-01-15T10:30:00.000Z");
        assert_eq!(BankAccountType::Other { value: "iban".into() }.to_string(), "iban");
    }
}

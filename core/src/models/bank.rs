use serde::{Deserialize, Deserializer};

use crate::timestamp::{self, Timestamp};

/// A bank of a country, for bank pickers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
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
    #[serde(rename = "type")]
    pub account_type: BankAccountType,
    /// When the bank record was created.
    #[serde(rename = "createdAt", deserialize_with = "timestamp::deserialize")]
    pub created_at: Timestamp,
    /// When the bank record last changed.
    #[serde(rename = "updatedAt", deserialize_with = "timestamp::deserialize")]
    pub updated_at: Timestamp,
}

/// The account number scheme of a bank.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
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

impl<'de> Deserialize<'de> for BankAccountType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(Self::from_wire(&text))
    }
}

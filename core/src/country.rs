//! The spec's country table: which country offers what, in which currency.

use serde::{Deserialize, Serialize};

use crate::models::BankAccountType;
use crate::models::json::{from_json_functions, service_text, to_json_methods};

/// A country the service works in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct CountryInfo {
    /// ISO 3166-1 alpha-2 code (`GH`).
    pub code: String,
    /// Name as the service writes it (`Ghana`).
    pub name: String,
    /// ISO 4217 currency code (`GHS`).
    pub currency: String,
    /// The account number scheme of the country's banks.
    #[serde(serialize_with = "service_text")]
    pub bank_account_type: BankAccountType,
    /// Whether mobile money providers are offered (every country but Nigeria).
    pub mobile_money: bool,
}

to_json_methods!(CountryInfo);
from_json_functions!(country_info_from_json => CountryInfo);

struct CountryRow {
    code: &'static str,
    name: &'static str,
    currency: &'static str,
    nuban: bool,
    mobile_money: bool,
}

const COUNTRIES: [CountryRow; 5] = [
    CountryRow { code: "GH", name: "Ghana", currency: "GHS", nuban: false, mobile_money: true },
    CountryRow { code: "KE", name: "Kenya", currency: "KES", nuban: false, mobile_money: true },
    CountryRow { code: "UG", name: "Uganda", currency: "UGX", nuban: false, mobile_money: true },
    CountryRow { code: "TZ", name: "Tanzania", currency: "TZS", nuban: false, mobile_money: true },
    CountryRow { code: "NG", name: "Nigeria", currency: "NGN", nuban: true, mobile_money: false },
];

/// Every country of the service, in the spec's order.
#[cfg_attr(feature = "uniffi", uniffi::export)]
pub fn countries() -> Vec<CountryInfo> {
    COUNTRIES
        .iter()
        .map(|row| CountryInfo {
            code: row.code.to_owned(),
            name: row.name.to_owned(),
            currency: row.currency.to_owned(),
            bank_account_type: if row.nuban { BankAccountType::Nuban } else { BankAccountType::AccountNumber },
            mobile_money: row.mobile_money,
        })
        .collect()
}

/// Whether `currency` (upper-case) is the currency of a mobile money country.
pub(crate) fn is_mobile_money_currency(currency: &str) -> bool {
    COUNTRIES.iter().any(|row| row.mobile_money && row.currency == currency)
}

/// The mobile money currencies, for error messages.
pub(crate) fn mobile_money_currencies() -> Vec<&'static str> {
    COUNTRIES.iter().filter(|row| row.mobile_money).map(|row| row.currency).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b20_only_mobile_money_currencies_can_be_charged() {
        for currency in ["GHS", "KES", "UGX", "TZS"] {
            assert!(is_mobile_money_currency(currency));
        }
        for currency in ["NGN", "USD", "ghs", ""] {
            assert!(!is_mobile_money_currency(currency));
        }
    }
}

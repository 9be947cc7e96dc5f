//! The fixed reference data the sandbox serves: countries, mobile money providers, banks.
//!
//! Matches the spec's country table: GH has 3 providers, KE, UG and TZ 2 each, NG none (banks
//! only); every country has banks, Nigeria's of account type `nuban`, the others'
//! `account_number`. Codes and ids are stable so tests can rely on them.

use serde::Serialize;

/// One row of the spec's country table.
#[derive(Debug)]
pub struct Country {
    pub code: &'static str,
    pub name: &'static str,
    pub currency: &'static str,
    pub bank_account_type: &'static str,
}

pub const COUNTRIES: [Country; 5] = [
    Country { code: "GH", name: "Ghana", currency: "GHS", bank_account_type: "account_number" },
    Country { code: "KE", name: "Kenya", currency: "KES", bank_account_type: "account_number" },
    Country { code: "UG", name: "Uganda", currency: "UGX", bank_account_type: "account_number" },
    Country { code: "TZ", name: "Tanzania", currency: "TZS", bank_account_type: "account_number" },
    Country { code: "NG", name: "Nigeria", currency: "NGN", bank_account_type: "nuban" },
];

/// Looks a country up by its two-letter code, case-insensitively.
pub fn country(code: &str) -> Option<&'static Country> {
    COUNTRIES.iter().find(|c| c.code.eq_ignore_ascii_case(code))
}

/// The country whose currency is `currency` (exact, upper-case), for charges.
pub fn country_by_currency(currency: &str) -> Option<&'static Country> {
    COUNTRIES.iter().find(|c| c.currency == currency)
}

/// Seed records were "created" at one fixed instant, like a real service's old rows.
const SEEDED_AT: &str = "2024-01-15T10:30:00.000Z";

/// A mobile money provider exactly as it goes on the wire.
#[derive(Debug, Serialize)]
pub struct Provider {
    pub id: u32,
    pub name: &'static str,
    pub code: &'static str,
    pub active: bool,
    pub country: &'static str,
    pub currency: &'static str,
    #[serde(rename = "type")]
    pub provider_type: &'static str,
    pub logo: &'static str,
    #[serde(rename = "createdAt")]
    pub created_at: &'static str,
    #[serde(rename = "updatedAt")]
    pub updated_at: &'static str,
    /// Two-letter code of `country`; not on the wire.
    #[serde(skip)]
    pub country_code: &'static str,
}

const fn provider(
    id: u32,
    name: &'static str,
    code: &'static str,
    country: &'static Country,
    logo: &'static str,
) -> Provider {
    Provider {
        id,
        name,
        code,
        active: true,
        country: country.name,
        currency: country.currency,
        provider_type: "mobile_money",
        logo,
        created_at: SEEDED_AT,
        updated_at: SEEDED_AT,
        country_code: country.code,
    }
}

const GH: &Country = &COUNTRIES[0];
const KE: &Country = &COUNTRIES[1];
const UG: &Country = &COUNTRIES[2];
const TZ: &Country = &COUNTRIES[3];
const NG: &Country = &COUNTRIES[4];

pub static PROVIDERS: [Provider; 9] = [
    provider(1, "MTN Mobile Money", "MTN", GH, "https://assets.sika.example/logos/mtn.png"),
    provider(2, "Vodafone Cash", "VODAFONE", GH, "https://assets.sika.example/logos/vodafone.png"),
    provider(3, "AirtelTigo Money", "AIRTELTIGO", GH, "https://assets.sika.example/logos/airteltigo.png"),
    provider(4, "M-Pesa", "MPESA_KE", KE, "https://assets.sika.example/logos/mpesa.png"),
    provider(5, "Airtel Money", "AIRTEL_KE", KE, "https://assets.sika.example/logos/airtel.png"),
    provider(6, "MTN Mobile Money", "MTN_UG", UG, "https://assets.sika.example/logos/mtn.png"),
    provider(7, "Airtel Money", "AIRTEL_UG", UG, "https://assets.sika.example/logos/airtel.png"),
    provider(8, "M-Pesa", "MPESA_TZ", TZ, "https://assets.sika.example/logos/mpesa.png"),
    provider(9, "Tigo Pesa", "TIGO_TZ", TZ, "https://assets.sika.example/logos/tigo.png"),
];

/// The providers of one country (empty for Nigeria).
pub fn providers_for(country: &Country) -> Vec<&'static Provider> {
    PROVIDERS.iter().filter(|p| p.country_code == country.code).collect()
}

/// A bank exactly as it goes on the wire.
#[derive(Debug, Serialize)]
pub struct Bank {
    pub id: u32,
    pub name: &'static str,
    pub code: &'static str,
    pub active: bool,
    pub country: &'static str,
    pub currency: &'static str,
    #[serde(rename = "type")]
    pub account_type: &'static str,
    #[serde(rename = "createdAt")]
    pub created_at: &'static str,
    #[serde(rename = "updatedAt")]
    pub updated_at: &'static str,
    #[serde(skip)]
    pub country_code: &'static str,
}

const fn bank(id: u32, name: &'static str, code: &'static str, country: &'static Country) -> Bank {
    Bank {
        id,
        name,
        code,
        active: true,
        country: country.name,
        currency: country.currency,
        account_type: country.bank_account_type,
        created_at: SEEDED_AT,
        updated_at: SEEDED_AT,
        country_code: country.code,
    }
}

pub static BANKS: [Bank; 20] = [
    bank(101, "GCB Bank", "040", GH),
    bank(102, "Ecobank Ghana", "130", GH),
    bank(103, "Stanbic Bank Ghana", "190", GH),
    bank(104, "Absa Bank Ghana", "030", GH),
    bank(201, "Access Bank", "044", NG),
    bank(202, "First Bank of Nigeria", "011", NG),
    bank(203, "Guaranty Trust Bank", "058", NG),
    bank(204, "United Bank for Africa", "033", NG),
    bank(205, "Zenith Bank", "057", NG),
    bank(301, "KCB Bank Kenya", "001", KE),
    bank(302, "Equity Bank Kenya", "068", KE),
    bank(303, "Co-operative Bank of Kenya", "011", KE),
    bank(304, "NCBA Bank Kenya", "007", KE),
    bank(401, "Stanbic Bank Uganda", "031", UG),
    bank(402, "Centenary Bank", "032", UG),
    bank(403, "dfcu Bank", "036", UG),
    bank(501, "CRDB Bank", "003", TZ),
    bank(502, "NMB Bank", "015", TZ),
    bank(503, "National Bank of Commerce", "016", TZ),
    bank(504, "Stanbic Bank Tanzania", "031", TZ),
];

pub fn banks_for(country: &Country) -> Vec<&'static Bank> {
    BANKS.iter().filter(|b| b.country_code == country.code).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b171_seed_counts_match_the_spec() {
        let count = |code: &str| country(code).map(|c| providers_for(c).len());
        assert_eq!(count("GH"), Some(3));
        assert_eq!(count("KE"), Some(2));
        assert_eq!(count("UG"), Some(2));
        assert_eq!(count("TZ"), Some(2));
        assert_eq!(count("NG"), Some(0));
        for c in &COUNTRIES {
            let n = banks_for(c).len();
            assert!((3..=5).contains(&n), "{}: {n} banks", c.code);
        }
    }

    #[test]
    fn b171_seed_ids_and_provider_codes_are_unique() {
        let mut ids: Vec<u32> = PROVIDERS.iter().map(|p| p.id).collect();
        ids.extend(BANKS.iter().map(|b| b.id));
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n);
        let mut codes: Vec<&str> = PROVIDERS.iter().map(|p| p.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), PROVIDERS.len());
    }

    #[test]
    fn b171_seed_bank_codes_are_numeric() {
        assert!(BANKS.iter().all(|b| !b.code.is_empty() && b.code.bytes().all(|c| c.is_ascii_digit())));
    }
}

//! Records as foreign code sees them, converted from the core's. Timestamps cross as
//! `SystemTime` (Python `datetime`, Kotlin `Instant`, Swift `Date`).

use std::time::SystemTime;

use sika_core::{self as core, Amount};

use crate::status::{PaymentType, TransactionStatus};

/// A mobile money provider of a country.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct MobileMoneyProvider {
    pub id: i64,
    pub name: String,
    /// The value to send as `provider` in a charge request.
    pub code: String,
    pub active: bool,
    /// Country name in full (`Ghana`).
    pub country: String,
    pub currency: String,
    /// Always `mobile_money` today.
    pub provider_type: String,
    pub logo: String,
    pub created_at: SystemTime,
    pub updated_at: SystemTime,
}

/// A bank of a country.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Bank {
    pub id: i64,
    pub name: String,
    /// Numeric text (`044`); keep it as text.
    pub code: String,
    pub active: bool,
    pub country: String,
    pub currency: String,
    pub account_type: BankAccountType,
    pub created_at: SystemTime,
    pub updated_at: SystemTime,
}

/// The account number scheme of a bank.
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum BankAccountType {
    Nuban,
    AccountNumber,
    Other { value: String },
}

/// A transaction, as verification reports it.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Transaction {
    pub id: i64,
    pub domain: String,
    /// Exact decimal amount, as sent.
    pub amount: Amount,
    pub currency: String,
    pub due_date: Option<String>,
    pub has_invoice: bool,
    pub invoice_number: Option<String>,
    pub description: Option<String>,
    /// Your reference: the value that was verified.
    pub tx_ref: String,
    /// The gateway's own reference.
    pub gateway_ref: String,
    /// Only `Successful` means paid.
    pub status: TransactionStatus,
    pub payment_type: PaymentType,
    pub created_at: SystemTime,
    pub updated_at: SystemTime,
    pub customer: Option<Customer>,
    pub custom_fields: Vec<CustomField>,
    /// The transaction object exactly as the service sent it.
    pub raw_json: String,
}

/// The customer of a transaction.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct Customer {
    pub id: i64,
    pub name: String,
    pub phone_number: String,
    pub email: String,
    pub created_at: SystemTime,
    pub updated_at: SystemTime,
}

/// One entry of a transaction's custom fields.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct CustomField {
    pub display_name: String,
    pub variable_name: String,
    pub value: String,
}

/// A mobile money charge request.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ChargeRequest {
    /// More than zero, at most two decimal places.
    pub amount: Amount,
    pub email: String,
    /// International format: `+233244123456`.
    pub phone_number: String,
    /// Your unique reference; verify it later.
    pub reference: String,
    /// Currency of a mobile money country: GHS, KES, UGX, TZS.
    pub currency: String,
    /// The `code` of a mobile money provider.
    pub provider: String,
    #[uniffi(default = None)]
    pub callback_url: Option<String>,
}

/// The service's answer to a charge, kept as sent.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ChargeResponse {
    pub http_status: u16,
    pub status: Option<bool>,
    pub message: Option<String>,
    pub data_json: Option<String>,
    pub raw_json: String,
}

/// A country the service works in.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct CountryInfo {
    pub code: String,
    pub name: String,
    pub currency: String,
    pub bank_account_type: BankAccountType,
    /// Whether mobile money providers are offered (all but Nigeria).
    pub mobile_money: bool,
}

impl From<core::MobileMoneyProvider> for MobileMoneyProvider {
    fn from(p: core::MobileMoneyProvider) -> Self {
        Self {
            id: p.id,
            name: p.name,
            code: p.code,
            active: p.active,
            country: p.country,
            currency: p.currency,
            provider_type: p.provider_type,
            logo: p.logo,
            created_at: p.created_at.into(),
            updated_at: p.updated_at.into(),
        }
    }
}

impl From<core::BankAccountType> for BankAccountType {
    fn from(account_type: core::BankAccountType) -> Self {
        match account_type {
            core::BankAccountType::Nuban => Self::Nuban,
            core::BankAccountType::AccountNumber => Self::AccountNumber,
            core::BankAccountType::Other(value) => Self::Other { value },
        }
    }
}

impl From<core::Bank> for Bank {
    fn from(b: core::Bank) -> Self {
        Self {
            id: b.id,
            name: b.name,
            code: b.code,
            active: b.active,
            country: b.country,
            currency: b.currency,
            account_type: b.account_type.into(),
            created_at: b.created_at.into(),
            updated_at: b.updated_at.into(),
        }
    }
}

impl From<core::Customer> for Customer {
    fn from(c: core::Customer) -> Self {
        Self {
            id: c.id,
            name: c.name,
            phone_number: c.phone_number,
            email: c.email,
            created_at: c.created_at.into(),
            updated_at: c.updated_at.into(),
        }
    }
}

impl From<core::CustomField> for CustomField {
    fn from(f: core::CustomField) -> Self {
        Self { display_name: f.display_name, variable_name: f.variable_name, value: f.value }
    }
}

impl From<core::Transaction> for Transaction {
    fn from(t: core::Transaction) -> Self {
        Self {
            id: t.id,
            domain: t.domain,
            amount: t.amount,
            currency: t.currency,
            due_date: t.due_date,
            has_invoice: t.has_invoice,
            invoice_number: t.invoice_number,
            description: t.description,
            tx_ref: t.tx_ref,
            gateway_ref: t.gateway_ref,
            status: t.status.into(),
            payment_type: t.payment_type.into(),
            created_at: t.created_at.into(),
            updated_at: t.updated_at.into(),
            customer: t.customer.map(Into::into),
            custom_fields: t.custom_fields.into_iter().map(Into::into).collect(),
            raw_json: t.raw_json,
        }
    }
}

impl From<ChargeRequest> for core::ChargeRequest {
    fn from(r: ChargeRequest) -> Self {
        Self {
            amount: r.amount,
            email: r.email,
            phone_number: r.phone_number,
            reference: r.reference,
            currency: r.currency,
            provider: r.provider,
            callback_url: r.callback_url,
        }
    }
}

impl From<core::ChargeResponse> for ChargeResponse {
    fn from(r: core::ChargeResponse) -> Self {
        Self {
            http_status: r.http_status,
            status: r.status,
            message: r.message,
            data_json: r.data_json,
            raw_json: r.raw_json,
        }
    }
}

impl From<core::CountryInfo> for CountryInfo {
    fn from(c: core::CountryInfo) -> Self {
        Self {
            code: c.code,
            name: c.name,
            currency: c.currency,
            bank_account_type: c.bank_account_type.into(),
            mobile_money: c.mobile_money,
        }
    }
}

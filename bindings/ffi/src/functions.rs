//! Free functions: the status logic, the country table, and decoding of recorded responses
//! (which every language's suite runs over `tests/fixtures/`).

use sika_core::decode;

use crate::error::Result;
use crate::records::{Bank, ChargeResponse, CountryInfo, MobileMoneyProvider, Transaction};
use crate::status::{MerchantAction, TransactionStatus};

/// What the merchant should do for a status.
#[uniffi::export]
pub fn merchant_action(status: TransactionStatus) -> MerchantAction {
    sika_core::merchant_action(&status.into()).into()
}

/// Whether the status will not change by waiting (all but Pending and Unknown).
#[uniffi::export]
pub fn is_final(status: TransactionStatus) -> bool {
    sika_core::is_final(&status.into())
}

/// The service's countries: code, name, currency, bank account type, mobile money offered.
#[uniffi::export]
pub fn countries() -> Vec<CountryInfo> {
    sika_core::countries().into_iter().map(Into::into).collect()
}

/// Decodes a recorded provider-list response (HTTP status and body), as the client would.
#[uniffi::export]
pub fn decode_providers_response(http_status: u16, body: Vec<u8>) -> Result<Vec<MobileMoneyProvider>> {
    Ok(decode::providers_response(http_status, &body)?.into_iter().map(Into::into).collect())
}

/// Decodes a recorded bank-list response, as the client would.
#[uniffi::export]
pub fn decode_banks_response(http_status: u16, body: Vec<u8>) -> Result<Vec<Bank>> {
    Ok(decode::banks_response(http_status, &body)?.into_iter().map(Into::into).collect())
}

/// Decodes a recorded verification response, as the client would.
#[uniffi::export]
pub fn decode_transaction_response(http_status: u16, body: Vec<u8>) -> Result<Transaction> {
    Ok(decode::transaction_response(http_status, &body)?.into())
}

/// Decodes a recorded charge response, as the client would.
#[uniffi::export]
pub fn decode_charge_response(http_status: u16, body: Vec<u8>) -> Result<ChargeResponse> {
    Ok(decode::charge_response(http_status, &body)?.into())
}

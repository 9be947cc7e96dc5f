//! Functions that take a body: as owned bytes, which every language passes as its own byte
//! array (a borrowed `&[u8]` would be a `ByteBuffer` in Kotlin). Recorded-response decoding
//! lets every language's suite run the shared fixtures (`tests/fixtures/`) through the core.

use crate::error::{Result, SikaError};
use crate::{Bank, ChargeResponse, MobileMoneyProvider, Transaction, WebhookEvent};

/// Parses a webhook notification without verifying anything (to find the order to expect).
/// Errors are `InvalidInput` on `webhook`.
#[uniffi::export]
pub fn parse_webhook_event(body: Vec<u8>) -> Result<WebhookEvent> {
    crate::parse_webhook_event(&body)
}

fn status(http_status: i32) -> Result<u16> {
    u16::try_from(http_status).map_err(|_| SikaError::invalid_input("http_status", "must be between 0 and 65535"))
}

/// Decodes a recorded provider-list response (HTTP status and body), as the client would.
#[uniffi::export]
pub fn decode_providers_response(http_status: i32, body: Vec<u8>) -> Result<Vec<MobileMoneyProvider>> {
    crate::decode::providers_response(status(http_status)?, &body)
}

/// Decodes a recorded bank-list response, as the client would.
#[uniffi::export]
pub fn decode_banks_response(http_status: i32, body: Vec<u8>) -> Result<Vec<Bank>> {
    crate::decode::banks_response(status(http_status)?, &body)
}

/// Decodes a recorded verification response, as the client would.
#[uniffi::export]
pub fn decode_transaction_response(http_status: i32, body: Vec<u8>) -> Result<Transaction> {
    crate::decode::transaction_response(status(http_status)?, &body)
}

/// Decodes a recorded charge response, as the client would.
#[uniffi::export]
pub fn decode_charge_response(http_status: i32, body: Vec<u8>) -> Result<ChargeResponse> {
    crate::decode::charge_response(status(http_status)?, &body)
}

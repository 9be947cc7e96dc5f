//! Functions that take a body: as owned bytes, which every language passes as its own byte
//! array (a borrowed `&[u8]` would be a `ByteBuffer` in Kotlin).
//!
//! The `decode_*` functions are public API for merchants, as `sika_core::decode` is for Rust
//! (ADR 0037): they read a stored or replayed response (an audit log, a recorded answer in the
//! merchant's own tests) exactly as the client reads a live one, with the same typed errors. Every
//! language's suite runs the shared fixtures and scenarios (`tests/fixtures/`) through them.

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

/// Decodes a stored provider-list response (HTTP status and body) exactly as the client reads a
/// live one: the providers, or the typed error the service's answer means.
#[uniffi::export]
pub fn decode_providers_response(http_status: i32, body: Vec<u8>) -> Result<Vec<MobileMoneyProvider>> {
    crate::decode::providers_response(status(http_status)?, &body)
}

/// Decodes a stored bank-list response exactly as the client reads a live one.
#[uniffi::export]
pub fn decode_banks_response(http_status: i32, body: Vec<u8>) -> Result<Vec<Bank>> {
    crate::decode::banks_response(status(http_status)?, &body)
}

/// Decodes a stored verification response exactly as the client reads a live one: the
/// transaction (amount exact, status strict), or the typed error.
#[uniffi::export]
pub fn decode_transaction_response(http_status: i32, body: Vec<u8>) -> Result<Transaction> {
    crate::decode::transaction_response(status(http_status)?, &body)
}

/// Decodes a stored charge response exactly as the client reads a live one.
#[uniffi::export]
pub fn decode_charge_response(http_status: i32, body: Vec<u8>) -> Result<ChargeResponse> {
    crate::decode::charge_response(status(http_status)?, &body)
}

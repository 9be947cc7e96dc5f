//! # sika-core
//!
//! The typed client and payment-status logic of Sika, for the mobile money and bank
//! service: list providers and banks, verify transactions, start mobile money charges.
//! Pure Rust; the Python, Kotlin and Swift packages are generated from it.
//!
//! ```no_run
//! # async fn example() -> sika_core::Result<()> {
//! use sika_core::{Client, ClientConfig, MerchantAction};
//!
//! let client = Client::new(ClientConfig::new("sk_test_...", "http://127.0.0.1:8080"))?;
//! let transaction = client.verify_transaction("ORDER-1001").await?;
//! if transaction.status.merchant_action() == MerchantAction::FulfilOrder {
//!     // Also compare amount and currency with the order before shipping.
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Money is [`Amount`] (an exact decimal), only [`TransactionStatus::Successful`] means paid,
//! and the secret key never appears in any output.
//!
//! With the `uniffi` feature these same types are the ones Python, Kotlin and Swift see (UniFFI
//! derives on them, ADR 0011), and [`ffi`] adds the few wrappers whose foreign shape must
//! differ: the clients, their config and the wait options.

// The plain crate has no unsafe code; UniFFI's generated scaffolding (only with the feature) does.
#![cfg_attr(not(feature = "uniffi"), forbid(unsafe_code))]
#![warn(missing_docs)]

// Not for Android, iOS, tvOS, watchOS, visionOS or wasm: a `compile_error!` says why (ADR 0027).
mod server_only;

// One UniFFI component for the whole SDK. Its namespace keeps the name of the shared library
// the bindings load (libsika_ffi), so the generated files keep their names (`sika_ffi.py`,
// `sika_ffi.kt`); the FFI symbols take the crate's name (`ffi_sika_core_...`).
#[cfg(feature = "uniffi")]
uniffi::setup_scaffolding!("sika_ffi");

mod amount;
mod bank_cache;
mod blocking;
mod client;
mod config;
mod country;
pub mod decode;
mod error;
#[cfg(feature = "uniffi")]
pub mod ffi;
mod in_flight;
#[cfg_attr(not(feature = "uniffi"), allow(dead_code))]
mod interruptions;
// The payments ledger (ADR 0046): off by default; the cdylib enables and exports it (ADR 0050).
#[cfg(feature = "ledger")]
pub mod ledger;
mod models;
mod process;
mod redact;
mod request_id;
mod safety;
mod scrub;
mod secret;
mod spans;
mod status;
mod timestamp;
mod tls;
mod trace;
mod transport;
mod validation;

pub use amount::{Amount, AmountParseError};
pub use blocking::BlockingClient;
pub use client::{CallOptions, Client};
pub use config::ClientConfig;
pub use country::{CountryInfo, countries, country_info_from_json};
pub use error::{Result, SikaError};
pub use in_flight::take_cancelled_charge;
pub use models::{
    Bank, BankAccountType, ChargeRequest, ChargeResponse, CustomField, Customer, MobileMoneyProvider, Transaction,
    bank_from_json, charge_request_from_json, charge_response_from_json, custom_field_from_json, customer_from_json,
    mobile_money_provider_from_json, transaction_from_json,
};
pub use rust_decimal::Decimal;
pub use safety::await_status::{AwaitOptions, Cancellation};
pub use safety::confirm::{
    ExpectedPayment, PaymentCheck, check_payment, expected_payment_from_json, payment_check_from_json,
};
pub use safety::phone::normalize_phone_number;
pub use safety::webhook::{
    CHARGE_SUCCESS, MAX_WEBHOOK_BYTES, MAX_WEBHOOK_DEPTH, WebhookDecision, WebhookDecisionKind, WebhookEvent,
    parse_webhook_event, webhook_decision_from_json, webhook_event_from_json,
};
pub use scrub::{MAX_LOG_MESSAGE_CHARS, MAX_TEXT_CHARS, escape_controls};
pub use secret::{SecretKey, SecretUrl};
pub use status::{MerchantAction, PaymentType, TransactionStatus};
pub use timestamp::{Timestamp, parse_timestamp};
pub use trace::{AttemptSpan, with_trace_context};
pub use transport::MAX_RESPONSE_BYTES;
pub use validation::MAX_REFERENCE_CHARS;

/// The README's Rust example is compiled as a doctest, so it cannot drift from the API.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

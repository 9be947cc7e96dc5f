//! # sika-ffi
//!
//! UniFFI exports of `sika-core` for Python, Kotlin and Swift. This crate only converts:
//! every behaviour lives in `sika-core`. Records and enums are declared here with the names
//! foreign code sees, and converted with `From` impls; errors cross as [`SikaError`].

uniffi::setup_scaffolding!();

mod amount;
mod clients;
mod config;
mod error;
mod functions;
mod logging;
mod records;
mod safety;
mod status;

pub use clients::{BlockingClient, Client};
pub use config::{ClientConfig, SecretKey};
pub use error::SikaError;
pub use logging::LogLevel;
pub use records::{
    Bank, BankAccountType, ChargeRequest, ChargeResponse, CountryInfo, CustomField, Customer, MobileMoneyProvider,
    Transaction,
};
pub use safety::{AwaitOptions, Cancellation, ExpectedPayment, PaymentCheck, WebhookDecision, WebhookEvent};
pub use status::{MerchantAction, PaymentType, TransactionStatus};

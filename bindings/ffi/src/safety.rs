//! The payment-safety layer as foreign code sees it: records and enums converted from the
//! core's, a cancellation handle, and the free functions.

use std::sync::Arc;

use sika_core::{self as core, Amount};

use crate::error::Result;
use crate::records::Transaction;
use crate::status::MerchantAction;

/// What the merchant's order says the payment must be.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ExpectedPayment {
    /// Compared as a decimal (`100.1 == 100.10`).
    pub amount: Amount,
    /// Compared without regard to case.
    pub currency: String,
}

/// The outcome of checking a verified transaction against the order. Ship only on `Confirmed`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum PaymentCheck {
    /// Status exactly `successful`; reference, currency and amount all match.
    Confirmed { transaction: Transaction },
    /// Still pending.
    NotYet { transaction: Transaction },
    /// Failed, abandoned, reversed or an unknown status: not paid.
    NotPaid { transaction: Transaction, action: MerchantAction },
    /// The transaction does not match the order (`field` is tx_ref, currency or amount).
    Mismatch { transaction: Transaction, field: String, expected: String, actual: String },
}

/// A parsed, unverified webhook notification.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct WebhookEvent {
    pub event: String,
    pub reference: Option<String>,
    pub raw_json: String,
}

/// What to do with a webhook notification. Answer with `http_status()`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum WebhookDecision {
    /// Verified paid, in full, for this order: fulfil it, idempotently.
    Fulfil { transaction: Transaction },
    /// Verified but not matching the order, or an unknown status: do not fulfil; investigate.
    Investigate { transaction: Transaction, reason: String },
    /// Nothing to do (another event, or a final status that is not a payment).
    Ignore { reason: String },
    /// Not decidable now (pending, or the service unreachable): ask for a redelivery.
    RetryLater { reason: String },
    /// Not a genuine or well-formed notification.
    Reject { reason: String },
}

#[uniffi::export]
impl WebhookDecision {
    /// Whether to answer HTTP 200.
    pub fn acknowledge(&self) -> bool {
        self.kind().acknowledge()
    }

    /// The HTTP status to answer the notification with (200, 503 or 400).
    pub fn http_status(&self) -> u16 {
        self.kind().http_status()
    }
}

impl WebhookDecision {
    fn kind(&self) -> core::WebhookDecisionKind {
        match self {
            Self::Fulfil { .. } => core::WebhookDecisionKind::Fulfil,
            Self::Investigate { .. } => core::WebhookDecisionKind::Investigate,
            Self::Ignore { .. } => core::WebhookDecisionKind::Ignore,
            Self::RetryLater { .. } => core::WebhookDecisionKind::RetryLater,
            Self::Reject { .. } => core::WebhookDecisionKind::Reject,
        }
    }
}

/// Stops a wait from another task or thread.
#[derive(uniffi::Object, Default)]
pub struct Cancellation(core::Cancellation);

#[uniffi::export]
impl Cancellation {
    #[uniffi::constructor]
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Stops every wait using this handle; they end with `SikaError.Cancelled`.
    pub fn cancel(&self) {
        self.0.cancel();
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// How to wait for a final status. Unset values take the core's defaults (first check after
/// 3000 ms, then every 2000 ms doubling up to 10 000 ms, for at most 120 000 ms).
#[derive(uniffi::Record, Default)]
pub struct AwaitOptions {
    #[uniffi(default = None)]
    pub initial_delay_ms: Option<u64>,
    #[uniffi(default = None)]
    pub interval_ms: Option<u64>,
    #[uniffi(default = None)]
    pub max_interval_ms: Option<u64>,
    #[uniffi(default = None)]
    pub timeout_ms: Option<u64>,
    #[uniffi(default = None)]
    pub cancellation: Option<Arc<Cancellation>>,
}

impl From<AwaitOptions> for core::AwaitOptions {
    fn from(options: AwaitOptions) -> Self {
        let defaults = core::AwaitOptions::default();
        Self {
            initial_delay_ms: options.initial_delay_ms.unwrap_or(defaults.initial_delay_ms),
            interval_ms: options.interval_ms.unwrap_or(defaults.interval_ms),
            max_interval_ms: options.max_interval_ms.unwrap_or(defaults.max_interval_ms),
            timeout_ms: options.timeout_ms.unwrap_or(defaults.timeout_ms),
            cancellation: options.cancellation.map(|handle| handle.0.clone()),
        }
    }
}

impl From<ExpectedPayment> for core::ExpectedPayment {
    fn from(expected: ExpectedPayment) -> Self {
        Self { amount: expected.amount, currency: expected.currency }
    }
}

impl From<core::PaymentCheck> for PaymentCheck {
    fn from(check: core::PaymentCheck) -> Self {
        match check {
            core::PaymentCheck::Confirmed { transaction } => Self::Confirmed { transaction: transaction.into() },
            core::PaymentCheck::NotYet { transaction } => Self::NotYet { transaction: transaction.into() },
            core::PaymentCheck::NotPaid { transaction, action } => {
                Self::NotPaid { transaction: transaction.into(), action: action.into() }
            }
            core::PaymentCheck::Mismatch { transaction, field, expected, actual } => {
                Self::Mismatch { transaction: transaction.into(), field, expected, actual }
            }
        }
    }
}

impl From<core::WebhookEvent> for WebhookEvent {
    fn from(event: core::WebhookEvent) -> Self {
        Self { event: event.event, reference: event.reference, raw_json: event.raw_json }
    }
}

impl From<core::WebhookDecision> for WebhookDecision {
    fn from(decision: core::WebhookDecision) -> Self {
        match decision {
            core::WebhookDecision::Fulfil { transaction } => Self::Fulfil { transaction: transaction.into() },
            core::WebhookDecision::Investigate { transaction, reason } => {
                Self::Investigate { transaction: transaction.into(), reason }
            }
            core::WebhookDecision::Ignore { reason } => Self::Ignore { reason },
            core::WebhookDecision::RetryLater { reason } => Self::RetryLater { reason },
            core::WebhookDecision::Reject { reason } => Self::Reject { reason },
        }
    }
}

/// Parses a webhook notification without verifying anything (to find the order to expect).
#[uniffi::export]
pub fn parse_webhook_event(body: Vec<u8>) -> Result<WebhookEvent> {
    Ok(core::parse_webhook_event(&body)?.into())
}

/// Normalizes a mobile money number of GH, KE, UG or TZ to `+<code><number>`.
#[uniffi::export]
pub fn normalize_phone_number(input: String, country: String) -> Result<String> {
    Ok(core::normalize_phone_number(&input, &country)?)
}

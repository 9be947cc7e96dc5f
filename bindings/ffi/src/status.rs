//! Status enums with named fields (`Unknown { value }`), which read well in every language.

use std::fmt;

use sika_core as core;

/// The status of a transaction. Only `Successful` means paid; `success` is `Unknown`.
/// Prints as the service's text (`successful`, `pending`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum TransactionStatus {
    Successful,
    Pending,
    Failed,
    Abandoned,
    Reversed,
    /// Any other value, kept as sent. Never paid: investigate.
    Unknown {
        value: String,
    },
}

/// The payment method of a transaction. Prints as the service's text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, uniffi::Enum)]
#[uniffi::export(Display)]
pub enum PaymentType {
    Card,
    MobileMoney,
    /// Any other value, kept as sent.
    Other {
        value: String,
    },
}

/// What a merchant is expected to do for a status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum MerchantAction {
    /// Successful: process the order, send a confirmation.
    FulfilOrder,
    /// Pending: wait for the webhook, or verify again later.
    AwaitWebhookOrReverify,
    /// Failed: inform the customer, allow a retry.
    InformCustomerAllowRetry,
    /// Abandoned: contact the customer, offer help.
    ContactCustomer,
    /// Reversed: update the order, process the refund.
    UpdateOrderAndRefund,
    /// Unknown status: do not fulfil; investigate.
    Investigate,
}

impl fmt::Display for TransactionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(core::TransactionStatus::from(self.clone()).as_str())
    }
}

impl fmt::Display for PaymentType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(core::PaymentType::from(self.clone()).as_str())
    }
}

impl From<PaymentType> for core::PaymentType {
    fn from(payment_type: PaymentType) -> Self {
        match payment_type {
            PaymentType::Card => Self::Card,
            PaymentType::MobileMoney => Self::MobileMoney,
            PaymentType::Other { value } => Self::Other(value),
        }
    }
}

impl From<core::TransactionStatus> for TransactionStatus {
    fn from(status: core::TransactionStatus) -> Self {
        match status {
            core::TransactionStatus::Successful => Self::Successful,
            core::TransactionStatus::Pending => Self::Pending,
            core::TransactionStatus::Failed => Self::Failed,
            core::TransactionStatus::Abandoned => Self::Abandoned,
            core::TransactionStatus::Reversed => Self::Reversed,
            core::TransactionStatus::Unknown(value) => Self::Unknown { value },
        }
    }
}

impl From<TransactionStatus> for core::TransactionStatus {
    fn from(status: TransactionStatus) -> Self {
        match status {
            TransactionStatus::Successful => Self::Successful,
            TransactionStatus::Pending => Self::Pending,
            TransactionStatus::Failed => Self::Failed,
            TransactionStatus::Abandoned => Self::Abandoned,
            TransactionStatus::Reversed => Self::Reversed,
            TransactionStatus::Unknown { value } => Self::Unknown(value),
        }
    }
}

impl From<core::PaymentType> for PaymentType {
    fn from(payment_type: core::PaymentType) -> Self {
        match payment_type {
            core::PaymentType::Card => Self::Card,
            core::PaymentType::MobileMoney => Self::MobileMoney,
            core::PaymentType::Other(value) => Self::Other { value },
        }
    }
}

impl From<core::MerchantAction> for MerchantAction {
    fn from(action: core::MerchantAction) -> Self {
        match action {
            core::MerchantAction::FulfilOrder => Self::FulfilOrder,
            core::MerchantAction::AwaitWebhookOrReverify => Self::AwaitWebhookOrReverify,
            core::MerchantAction::InformCustomerAllowRetry => Self::InformCustomerAllowRetry,
            core::MerchantAction::ContactCustomer => Self::ContactCustomer,
            core::MerchantAction::UpdateOrderAndRefund => Self::UpdateOrderAndRefund,
            core::MerchantAction::Investigate => Self::Investigate,
        }
    }
}

//! Transaction status and what a merchant should do about it.
//!
//! This is the logic a merchant's money depends on, so it is deliberately strict: only the
//! exact text `successful` means paid. The documented client mistake `success`, a different
//! case (`Successful`) or any value the service may add later decode to [`TransactionStatus::Unknown`],
//! which is never final and never fulfils an order.

use std::fmt;

/// The status of a transaction, as reported by verification. Only `Successful` means paid;
/// `success` is `Unknown`. Prints as the service's text (`successful`, `pending`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum), uniffi::export(Display))]
pub enum TransactionStatus {
    /// `successful`: the payment completed. The only status that may fulfil an order.
    Successful,
    /// `pending`: still processing (for mobile money, the customer has not answered the USSD prompt yet).
    Pending,
    /// `failed`: declined or failed.
    Failed,
    /// `abandoned`: the customer gave up.
    Abandoned,
    /// `reversed`: reversed or refunded after success.
    Reversed,
    /// Any other value, kept as sent (for example `success`). Treat as "investigate", never as paid.
    Unknown {
        /// The service's text.
        value: String,
    },
}

impl TransactionStatus {
    /// Decodes the service's text. Exact and case-sensitive, never an error.
    pub fn from_wire(text: &str) -> Self {
        match text {
            "successful" => Self::Successful,
            "pending" => Self::Pending,
            "failed" => Self::Failed,
            "abandoned" => Self::Abandoned,
            "reversed" => Self::Reversed,
            other => Self::Unknown { value: other.to_owned() },
        }
    }

    /// The text as the service sends it (the original text for `Unknown`).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Successful => "successful",
            Self::Pending => "pending",
            Self::Failed => "failed",
            Self::Abandoned => "abandoned",
            Self::Reversed => "reversed",
            Self::Unknown { value } => value,
        }
    }
}

#[cfg_attr(feature = "uniffi", uniffi::export)]
impl TransactionStatus {
    /// Whether the status will not change by waiting: every status but `Pending` and `Unknown`.
    ///
    /// `Reversed` is final, and so is `Successful` as far as waiting goes (a reversal comes
    /// later as its own event).
    pub fn is_final(&self) -> bool {
        !matches!(self, Self::Pending | Self::Unknown { .. })
    }

    /// What the merchant should do, as the service documents it.
    pub fn merchant_action(&self) -> MerchantAction {
        match self {
            Self::Successful => MerchantAction::FulfilOrder,
            Self::Pending => MerchantAction::AwaitWebhookOrReverify,
            Self::Failed => MerchantAction::InformCustomerAllowRetry,
            Self::Abandoned => MerchantAction::ContactCustomer,
            Self::Reversed => MerchantAction::UpdateOrderAndRefund,
            Self::Unknown { .. } => MerchantAction::Investigate,
        }
    }
}

/// Builds a status from the service's text (`successful`), by the decoder's own rule: exact and
/// case-sensitive, anything else is `Unknown`.
#[cfg(feature = "uniffi")]
#[uniffi::export]
fn transaction_status_from_text(text: String) -> TransactionStatus {
    TransactionStatus::from_wire(&text)
}

impl fmt::Display for TransactionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a merchant is expected to do for a status (the spec's "action" column). In a decision's
/// JSON (`PaymentCheck::to_json`) it is its name in capitals: `"INVESTIGATE"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MerchantAction {
    /// Successful: process the order and send a confirmation.
    FulfilOrder,
    /// Pending: wait for the `charge.success` webhook, or verify again later.
    AwaitWebhookOrReverify,
    /// Failed: tell the customer and let them retry.
    InformCustomerAllowRetry,
    /// Abandoned: contact the customer and offer help.
    ContactCustomer,
    /// Reversed: update the order status and process the refund.
    UpdateOrderAndRefund,
    /// Unknown status: do not fulfil; look into it (and re-verify).
    Investigate,
}

/// The payment method of a transaction. Prints as the service's text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum), uniffi::export(Display))]
pub enum PaymentType {
    /// `card`.
    Card,
    /// `mobile_money`.
    MobileMoney,
    /// Any other value, kept as sent (the spec does not list them all).
    Other {
        /// The service's text.
        value: String,
    },
}

impl PaymentType {
    /// Decodes the service's text; unknown values become `Other`.
    pub fn from_wire(text: &str) -> Self {
        match text {
            "card" => Self::Card,
            "mobile_money" => Self::MobileMoney,
            other => Self::Other { value: other.to_owned() },
        }
    }

    /// The text as the service sends it.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Card => "card",
            Self::MobileMoney => "mobile_money",
            Self::Other { value } => value,
        }
    }
}

/// Builds a payment type from the service's text (`mobile_money`), as the decoder does.
#[cfg(feature = "uniffi")]
#[uniffi::export]
fn payment_type_from_text(text: String) -> PaymentType {
    PaymentType::from_wire(&text)
}

impl fmt::Display for PaymentType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b10_only_the_exact_word_successful_is_success() {
        assert_eq!(TransactionStatus::from_wire("successful"), TransactionStatus::Successful);
        for lookalike in ["success", "Successful", "SUCCESSFUL", " successful", "successful ", "succeeded", ""] {
            let status = TransactionStatus::from_wire(lookalike);
            assert_eq!(status, TransactionStatus::Unknown { value: lookalike.to_owned() });
            assert_eq!(status.merchant_action(), MerchantAction::Investigate);
            assert!(!status.is_final());
        }
    }

    #[test]
    fn b11_every_status_has_its_action_and_finality() {
        let file: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fixtures/scenarios/b11_status_actions.json")).expect("json");
        let variant = |debug: String| debug.split([' ', '{', '(']).next().unwrap_or_default().to_owned();
        for row in file["cases"].as_array().expect("cases") {
            let text = row["text"].as_str().expect("text");
            let status = TransactionStatus::from_wire(text);
            assert_eq!(status.as_str(), text, "the text is kept");
            assert_eq!(variant(format!("{status:?}")), row["status"], "{text:?}");
            assert_eq!(variant(format!("{:?}", status.merchant_action())), row["merchant_action"], "{text:?}");
            assert_eq!(status.is_final(), row["is_final"], "{text:?}");
        }
    }

    #[test]
    fn b01_payment_types_keep_unknown_values() {
        assert_eq!(PaymentType::from_wire("card"), PaymentType::Card);
        assert_eq!(PaymentType::from_wire("mobile_money"), PaymentType::MobileMoney);
        assert_eq!(PaymentType::from_wire("bank_transfer").as_str(), "bank_transfer");
    }
}

//! The one decision a merchant must get right: is this order paid, in full, in its currency?

use serde::{Deserialize, Serialize};

use crate::amount::Amount;
use crate::error::{Result, SikaError};
use crate::models::Transaction;
use crate::models::json::{amount_text, from_json_functions, to_json_methods};
use crate::status::{MerchantAction, TransactionStatus};

/// What the merchant's order says the payment must be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ExpectedPayment {
    /// The order's amount; compared as a decimal (`100.1 == 100.10`).
    #[serde(serialize_with = "amount_text")]
    pub amount: Amount,
    /// The order's currency; compared without regard to case.
    pub currency: String,
}

to_json_methods!(ExpectedPayment);

impl ExpectedPayment {
    /// `InvalidInput` when the order's expectation cannot be checked (an amount not above
    /// zero, a currency that is not three letters), as `confirm_payment` and `handle_webhook`
    /// refuse it before anything is sent: for a caller that checks it before a wait.
    pub fn validate(&self) -> Result<()> {
        validate_expected(self)
    }
}
from_json_functions!(expected_payment_from_json => ExpectedPayment);

/// The outcome of checking a verified transaction against the order. Ship only on `Confirmed`.
///
/// As JSON (`to_json()`, read back by `payment_check_from_json`): the variant's name in capitals
/// under `outcome`, then its fields, the transaction as its own `to_json()` (ADR 0080):
/// `{"outcome":"NOT_PAID","transaction":{...},"action":"INVESTIGATE"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PaymentCheck {
    /// Paid: status exactly `successful`, and reference, currency and amount all match. Ship.
    Confirmed {
        /// The verified transaction.
        transaction: Transaction,
    },
    /// Still pending: wait for the webhook or check again later.
    NotYet {
        /// The verified transaction.
        transaction: Transaction,
    },
    /// Not paid (failed, abandoned, reversed, or a status we do not know): do not ship.
    NotPaid {
        /// The verified transaction.
        transaction: Transaction,
        /// What to do instead.
        action: MerchantAction,
    },
    /// The service reports a transaction that does not match the order: do not ship; investigate.
    Mismatch {
        /// The verified transaction.
        transaction: Transaction,
        /// `tx_ref`, `currency` or `amount`.
        field: String,
        /// The order's value.
        expected: String,
        /// The transaction's value.
        actual: String,
    },
}

to_json_methods!(decisions: PaymentCheck);
from_json_functions!(decisions: payment_check_from_json => PaymentCheck);

impl PaymentCheck {
    /// Whether the order may be fulfilled: true only for `Confirmed`.
    pub fn is_confirmed(&self) -> bool {
        matches!(self, Self::Confirmed { .. })
    }

    /// The verified transaction, whatever the outcome.
    pub fn transaction(&self) -> &Transaction {
        match self {
            Self::Confirmed { transaction }
            | Self::NotYet { transaction }
            | Self::NotPaid { transaction, .. }
            | Self::Mismatch { transaction, .. } => transaction,
        }
    }
}

/// Checks the order's expectation before anything is sent.
pub(crate) fn validate_expected(expected: &ExpectedPayment) -> Result<()> {
    if !expected.amount.is_positive() {
        return Err(SikaError::invalid_input("amount", "the expected amount must be greater than zero"));
    }
    if expected.currency.len() != 3 || !expected.currency.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(SikaError::invalid_input("currency", "must be a three-letter currency code such as GHS"));
    }
    Ok(())
}

/// Checks a verified transaction against the order. The only path to `Confirmed`.
///
/// The reference is checked first, whatever the status: a response about another transaction
/// is never evidence about this order.
pub fn check_payment(transaction: Transaction, reference: &str, expected: &ExpectedPayment) -> PaymentCheck {
    if transaction.tx_ref != reference {
        let actual = transaction.tx_ref.clone();
        return mismatch(transaction, "tx_ref", reference.to_owned(), actual);
    }
    match &transaction.status {
        TransactionStatus::Successful => {}
        TransactionStatus::Pending => return PaymentCheck::NotYet { transaction },
        other => {
            let action = other.merchant_action();
            return PaymentCheck::NotPaid { transaction, action };
        }
    }
    if !transaction.currency.eq_ignore_ascii_case(&expected.currency) {
        let actual = transaction.currency.clone();
        return mismatch(transaction, "currency", expected.currency.clone(), actual);
    }
    if transaction.amount != expected.amount {
        let actual = transaction.amount.to_string();
        return mismatch(transaction, "amount", expected.amount.to_string(), actual);
    }
    PaymentCheck::Confirmed { transaction }
}

fn mismatch(transaction: Transaction, field: &str, expected: String, actual: String) -> PaymentCheck {
    PaymentCheck::Mismatch { transaction, field: field.to_owned(), expected, actual }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transaction(status: &str, tx_ref: &str, amount: &str, currency: &str) -> Transaction {
        let object = format!(
            r#"{{"id":1,"domain":"test","amount":{amount},"currency":"{currency}","due_date":null,"has_invoice":false,
            "invoice_number":null,"description":null,"tx_ref":"{tx_ref}","gw_ref":"GW-1","status":"{status}",
            "payment_type":"mobile_money","created_at":"2024-05-01T12:00:00.000Z","updated_at":"2024-05-01T12:00:00.000Z"}}"#
        );
        Transaction::from_json(&object).expect("valid transaction")
    }

    fn expected(amount: &str, currency: &str) -> ExpectedPayment {
        ExpectedPayment { amount: amount.parse().expect("amount"), currency: currency.to_owned() }
    }

    #[test]
    fn b21_confirmed_only_when_everything_matches() {
        let check =
            check_payment(transaction("successful", "ORDER-1", "100.10", "GHS"), "ORDER-1", &expected("100.1", "ghs"));
        assert!(check.is_confirmed(), "{check:?}");
    }

    #[test]
    fn b21_every_other_case_is_not_confirmed() {
        let order = expected("100.10", "GHS");
        let cases = [
            (transaction("success", "ORDER-1", "100.10", "GHS"), "NotPaid"),
            (transaction("Successful", "ORDER-1", "100.10", "GHS"), "NotPaid"),
            (transaction("pending", "ORDER-1", "100.10", "GHS"), "NotYet"),
            (transaction("failed", "ORDER-1", "100.10", "GHS"), "NotPaid"),
            (transaction("abandoned", "ORDER-1", "100.10", "GHS"), "NotPaid"),
            (transaction("reversed", "ORDER-1", "100.10", "GHS"), "NotPaid"),
            (transaction("successful", "ORDER-2", "100.10", "GHS"), "Mismatch:tx_ref"),
            (transaction("pending", "ORDER-2", "100.10", "GHS"), "Mismatch:tx_ref"),
            (transaction("successful", "ORDER-1", "100.09", "GHS"), "Mismatch:amount"),
            (transaction("successful", "ORDER-1", "10010", "GHS"), "Mismatch:amount"),
            (transaction("successful", "ORDER-1", "100.10", "KES"), "Mismatch:currency"),
        ];
        for (transaction, want) in cases {
            let check = check_payment(transaction, "ORDER-1", &order);
            let got = match &check {
                PaymentCheck::Confirmed { .. } => "Confirmed".to_owned(),
                PaymentCheck::NotYet { .. } => "NotYet".to_owned(),
                PaymentCheck::NotPaid { .. } => "NotPaid".to_owned(),
                PaymentCheck::Mismatch { field, .. } => format!("Mismatch:{field}"),
            };
            assert_eq!(got, want, "{check:?}");
        }
    }

    #[test]
    fn b21_not_paid_carries_the_action() {
        let check = check_payment(transaction("reversed", "ORDER-1", "5", "GHS"), "ORDER-1", &expected("5", "GHS"));
        assert!(matches!(check, PaymentCheck::NotPaid { action: MerchantAction::UpdateOrderAndRefund, .. }));
        let check = check_payment(transaction("success", "ORDER-1", "5", "GHS"), "ORDER-1", &expected("5", "GHS"));
        assert!(matches!(check, PaymentCheck::NotPaid { action: MerchantAction::Investigate, .. }));
    }

    #[test]
    fn b21_a_mismatch_names_both_values() {
        let check =
            check_payment(transaction("successful", "ORDER-1", "99.99", "GHS"), "ORDER-1", &expected("100", "GHS"));
        match check {
            PaymentCheck::Mismatch { field, expected, actual, .. } => {
                assert_eq!((field.as_str(), expected.as_str(), actual.as_str()), ("amount", "100", "99.99"));
            }
            other => panic!("{other:?}"),
        }
    }

    /// B261: a decision's JSON is its kind under `outcome` and its fields, the transaction as its
    /// own `to_json()`: the bytes of the shared fixture, and read back equal (ADR 0080).
    #[test]
    fn b261_a_payment_check_is_the_shared_fixtures_json_and_reads_back() {
        let shapes = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/json_shapes/");
        let response = std::fs::read(format!("{shapes}transaction_response.json")).expect("fixture");
        let transaction = crate::decode::transaction_response(200, &response).expect("decodes");
        let check = PaymentCheck::NotPaid { transaction: transaction.clone(), action: MerchantAction::Investigate };
        let expected = std::fs::read_to_string(format!("{shapes}payment_check_not_paid.json")).expect("fixture");
        assert_eq!(check.to_json(), expected.trim_end_matches('\n'));
        let checks = [
            PaymentCheck::Confirmed { transaction: transaction.clone() },
            PaymentCheck::NotYet { transaction: transaction.clone() },
            check,
            mismatch(transaction.clone(), "amount", "100".to_owned(), "100.10".to_owned()),
        ];
        let mut outcomes = Vec::new();
        for check in checks {
            let json: serde_json::Value = serde_json::from_str(&check.to_json()).expect("JSON");
            outcomes.push(json["outcome"].as_str().expect("outcome").to_owned());
            assert_eq!(
                json["transaction"],
                serde_json::from_str::<serde_json::Value>(&transaction.to_json()).expect("JSON")
            );
            assert_eq!(payment_check_from_json(check.to_json()).expect("reads back"), check);
        }
        assert_eq!(outcomes, ["CONFIRMED", "NOT_YET", "NOT_PAID", "MISMATCH"]);
        for bad in [r#"{"transaction":{}}"#, r#"{"outcome":"PAID"}"#, "[]"] {
            match payment_check_from_json(bad.to_owned()) {
                Err(SikaError::InvalidInput { field, .. }) => assert_eq!(field, "json"),
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn b21_expectations_are_checked() {
        assert!(validate_expected(&expected("0", "GHS")).is_err());
        assert!(validate_expected(&expected("-1", "GHS")).is_err());
        assert!(validate_expected(&expected("1", "GH")).is_err());
        assert!(validate_expected(&expected("1", "GHS")).is_ok());
    }
}

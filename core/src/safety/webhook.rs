//! Webhook notifications. A `charge.success` notification is only a hint: anyone can POST to
//! a webhook URL, so the decision to fulfil comes from verifying the reference with the
//! service and checking the result against the order, never from the notification.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{Result, SikaError};
use crate::models::Transaction;
use crate::models::json::{from_json_functions, to_json_methods};
use crate::safety::confirm::{ExpectedPayment, PaymentCheck, check_payment};
use crate::safety::grace::NotFound;
use crate::status::MerchantAction;

/// Largest notification accepted; the documented payload is a few dozen bytes.
pub const MAX_WEBHOOK_BYTES: usize = 64 * 1024;
/// Deepest JSON nesting accepted in a notification (the documented payload has depth 2).
pub const MAX_WEBHOOK_DEPTH: usize = 32;
/// The one event the service documents.
pub const CHARGE_SUCCESS: &str = "charge.success";

/// A parsed notification. Unverified: its content proves nothing about payment. Prints without
/// the body (which may hold the customer's details).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record), uniffi::export(Debug, Display))]
pub struct WebhookEvent {
    /// The event name (`charge.success`).
    pub event: String,
    /// `data.reference`, when present.
    pub reference: Option<String>,
    /// The body as received.
    pub raw_json: String,
}

to_json_methods!(WebhookEvent);
from_json_functions!(webhook_event_from_json => WebhookEvent);

/// `webhook charge.success for ORDER-1`
impl fmt::Display for WebhookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "webhook {} for {}", self.event, self.reference.as_deref().unwrap_or("no reference"))
    }
}

/// The event and reference; the body's length only.
impl fmt::Debug for WebhookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookEvent")
            .field("event", &self.event)
            .field("reference", &self.reference)
            .field("raw_json", &format_args!("<{} bytes>", self.raw_json.len()))
            .finish()
    }
}

/// What to do with a notification, and how to answer it (`http_status()`).
///
/// As JSON (`to_json()`, read back by `webhook_decision_from_json`): the variant's name in
/// capitals under `outcome`, then its fields (ADR 0080): `{"outcome":"RETRY_LATER","reason":"..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum WebhookDecision {
    /// Verified paid, in full, for this order: fulfil it (idempotently: deliveries repeat).
    Fulfil {
        /// The verified transaction.
        transaction: Transaction,
    },
    /// Verified, but it does not match the order or has an unknown status: do not fulfil; look into it.
    Investigate {
        /// The verified transaction.
        transaction: Transaction,
        /// What does not add up.
        reason: String,
    },
    /// Nothing to do: another event, or a final status that is not a payment.
    Ignore {
        /// Why.
        reason: String,
    },
    /// Not decidable now (still pending, the service could not be reached, or it does not know
    /// the reference yet, within `not_found_grace_ms` of the first "not found"): answer with an
    /// error so the service delivers it again, or verify later.
    RetryLater {
        /// Why.
        reason: String,
    },
    /// Not a genuine or well-formed notification: malformed, oversized, no reference, or a
    /// reference the service still does not know once `not_found_grace_ms` has passed.
    Reject {
        /// Why.
        reason: String,
    },
}

to_json_methods!(decisions: WebhookDecision);
from_json_functions!(decisions: webhook_decision_from_json => WebhookDecision);

/// The kind of a [`WebhookDecision`], without its data: it decides how to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WebhookDecisionKind {
    /// See [`WebhookDecision::Fulfil`].
    Fulfil,
    /// See [`WebhookDecision::Investigate`].
    Investigate,
    /// See [`WebhookDecision::Ignore`].
    Ignore,
    /// See [`WebhookDecision::RetryLater`].
    RetryLater,
    /// See [`WebhookDecision::Reject`].
    Reject,
}

impl WebhookDecisionKind {
    /// Whether to answer HTTP 200 (the service then stops delivering this notification).
    pub fn acknowledge(self) -> bool {
        self.http_status() == 200
    }

    /// The HTTP status to answer with: 200 when acknowledged, 503 to ask for a redelivery,
    /// 400 for a notification that is not genuine or well-formed.
    pub fn http_status(self) -> i32 {
        match self {
            Self::Fulfil | Self::Investigate | Self::Ignore => 200,
            Self::RetryLater => 503,
            Self::Reject => 400,
        }
    }
}

impl WebhookDecision {
    /// The decision's kind.
    pub fn kind(&self) -> WebhookDecisionKind {
        match self {
            Self::Fulfil { .. } => WebhookDecisionKind::Fulfil,
            Self::Investigate { .. } => WebhookDecisionKind::Investigate,
            Self::Ignore { .. } => WebhookDecisionKind::Ignore,
            Self::RetryLater { .. } => WebhookDecisionKind::RetryLater,
            Self::Reject { .. } => WebhookDecisionKind::Reject,
        }
    }
}

#[cfg_attr(feature = "uniffi", uniffi::export)]
impl WebhookDecision {
    /// Whether to answer HTTP 200 (the service then stops delivering this notification).
    pub fn acknowledge(&self) -> bool {
        self.kind().acknowledge()
    }

    /// The HTTP status to answer the notification with: 200 when acknowledged, 503 to ask for
    /// a redelivery, 400 for a notification that is not genuine or well-formed.
    pub fn http_status(&self) -> i32 {
        self.kind().http_status()
    }
}

#[derive(Deserialize)]
struct Notification {
    event: String,
    #[serde(default)]
    data: Option<NotificationData>,
}

#[derive(Deserialize)]
struct NotificationData {
    #[serde(default)]
    reference: Option<String>,
}

/// Parses a notification without verifying anything (to find the order to expect). Errors are
/// `InvalidInput` on `webhook`.
pub fn parse_webhook_event(body: &[u8]) -> Result<WebhookEvent> {
    let reject = |reason: String| SikaError::invalid_input("webhook", reason);
    if body.len() > MAX_WEBHOOK_BYTES {
        return Err(reject(format!("body larger than {MAX_WEBHOOK_BYTES} bytes")));
    }
    if nesting_exceeds(body, MAX_WEBHOOK_DEPTH) {
        return Err(reject(format!("JSON nested deeper than {MAX_WEBHOOK_DEPTH} levels")));
    }
    let text = std::str::from_utf8(body).map_err(|_| reject("body is not UTF-8".to_owned()))?;
    let notification: Notification =
        serde_json::from_str(text).map_err(|e| reject(format!("not a notification object: {e}")))?;
    Ok(WebhookEvent {
        event: notification.event,
        reference: notification.data.and_then(|data| data.reference),
        raw_json: text.to_owned(),
    })
}

/// Whether brackets nest deeper than `limit`, outside strings. Checked before parsing, so a
/// hostile body costs a linear scan and nothing more.
fn nesting_exceeds(body: &[u8], limit: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &byte in body {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// A notification that ends before verification: only these two outcomes are possible there.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum EndedUnverified {
    Ignore(String),
    Reject(String),
}

impl From<EndedUnverified> for WebhookDecision {
    fn from(ended: EndedUnverified) -> Self {
        match ended {
            EndedUnverified::Ignore(reason) => Self::Ignore { reason },
            EndedUnverified::Reject(reason) => Self::Reject { reason },
        }
    }
}

/// The notification's reference when it must be verified, or why it ends here.
pub(crate) fn reference_to_verify(body: &[u8]) -> std::result::Result<String, EndedUnverified> {
    let event = parse_webhook_event(body).map_err(|error| EndedUnverified::Reject(error.to_string()))?;
    if event.event != CHARGE_SUCCESS {
        return Err(EndedUnverified::Ignore(format!("event `{}` is not handled", event.event)));
    }
    match event.reference {
        Some(reference) if !reference.is_empty() => Ok(reference),
        _ => Err(EndedUnverified::Reject("notification has no data.reference".to_owned())),
    }
}

/// Decides from the verification of the notification's reference. `not_found` says what a
/// `TransactionNotFound` means now (asked only then): within the grace the notification may be
/// early, so the service is asked to deliver it again; after it, the reference is unknown.
pub(crate) fn decide(
    verified: Result<Transaction>,
    reference: &str,
    expected: &ExpectedPayment,
    not_found: impl FnOnce() -> NotFound,
) -> WebhookDecision {
    let transaction = match verified {
        Ok(transaction) => transaction,
        Err(SikaError::TransactionNotFound { .. }) => return decide_not_found(not_found()),
        Err(error @ (SikaError::InvalidReference { .. } | SikaError::InvalidInput { .. })) => {
            return WebhookDecision::Reject {
                reason: format!("the reference does not verify ({error}): not a genuine notification"),
            };
        }
        Err(error) => return WebhookDecision::RetryLater { reason: format!("could not verify: {error}") },
    };
    from_check(check_payment(transaction, reference, expected))
}

/// The decision for a verified payment's check against the order (also the ledger's `settle`).
pub(crate) fn from_check(check: PaymentCheck) -> WebhookDecision {
    match check {
        PaymentCheck::Confirmed { transaction } => WebhookDecision::Fulfil { transaction },
        PaymentCheck::NotYet { .. } => {
            WebhookDecision::RetryLater { reason: "the transaction is still pending".to_owned() }
        }
        PaymentCheck::NotPaid { transaction, action: MerchantAction::Investigate } => {
            let reason = format!("unknown transaction status `{}`", transaction.status);
            WebhookDecision::Investigate { transaction, reason }
        }
        PaymentCheck::NotPaid { transaction, .. } => {
            WebhookDecision::Ignore { reason: format!("the transaction is {}, not paid", transaction.status) }
        }
        PaymentCheck::Mismatch { transaction, field, expected, actual } => {
            let reason = format!("{field} does not match the order: expected {expected}, the service reports {actual}");
            WebhookDecision::Investigate { transaction, reason }
        }
    }
}

/// A reference the service does not know: early within the grace, unknown after it.
fn decide_not_found(not_found: NotFound) -> WebhookDecision {
    match not_found {
        NotFound::NotVisibleYet { since, grace } => WebhookDecision::RetryLater {
            reason: format!(
                "the service does not know the reference yet (first not found {} ms ago, within the {} ms grace \
                 for an early notification): deliver it again",
                since.as_millis(),
                grace.as_millis()
            ),
        },
        NotFound::Unknown { grace } => WebhookDecision::Reject {
            reason: format!(
                "the service still does not know the reference {} ms after it was first not found: not a genuine \
                 notification",
                grace.as_millis()
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn b22_parses_the_documented_payload() {
        let event =
            parse_webhook_event(br#"{"event":"charge.success","data":{"reference":"ORDER-1"}}"#).expect("parses");
        assert_eq!(event.event, "charge.success");
        assert_eq!(event.reference.as_deref(), Some("ORDER-1"));
    }

    #[test]
    fn b22_rejects_bodies_that_are_not_notifications() {
        let deep = format!(r#"{{"event":"charge.success","data":{}{}}}"#, "[".repeat(10_000), "]".repeat(10_000));
        let big = format!(r#"{{"event":"charge.success","pad":"{}"}}"#, "x".repeat(MAX_WEBHOOK_BYTES));
        let bodies: [&[u8]; 9] = [
            b"",
            b"not json",
            b"[]",
            br#"{"data":{"reference":"ORDER-1"}}"#,
            br#"{"event":1}"#,
            br#"{"event":"charge.success","data":"ORDER-1"}"#,
            b"\xff\xfe",
            deep.as_bytes(),
            big.as_bytes(),
        ];
        for body in bodies {
            assert!(
                matches!(parse_webhook_event(body), Err(SikaError::InvalidInput { ref field, .. }) if field == "webhook"),
                "{:?}",
                String::from_utf8_lossy(&body[..body.len().min(60)])
            );
        }
    }

    #[test]
    fn b22_nesting_is_accepted_up_to_the_limit_and_rejected_past_it() {
        // The outer object is the first level.
        let nested = |depth: usize| {
            let inner = depth - 1;
            format!(r#"{{"event":"charge.success","pad":{}{}}}"#, "[".repeat(inner), "]".repeat(inner))
        };
        assert!(parse_webhook_event(nested(MAX_WEBHOOK_DEPTH).as_bytes()).is_ok());
        assert!(parse_webhook_event(nested(MAX_WEBHOOK_DEPTH + 1).as_bytes()).is_err());
        assert_eq!(MAX_WEBHOOK_DEPTH, 32, "docs/RELIABILITY.md states 32 levels");
    }

    #[test]
    fn b22_brackets_inside_strings_do_not_count_as_nesting() {
        let body = format!(r#"{{"event":"charge.success","note":"{}"}}"#, "[{".repeat(100));
        assert!(parse_webhook_event(body.as_bytes()).is_ok());
    }

    #[test]
    fn b22_only_a_charge_success_with_a_reference_goes_on_to_verification() {
        assert_eq!(
            reference_to_verify(br#"{"event":"charge.success","data":{"reference":"R-1"}}"#),
            Ok("R-1".to_owned())
        );
        assert!(matches!(
            reference_to_verify(br#"{"event":"transfer.success","data":{}}"#),
            Err(EndedUnverified::Ignore(_))
        ));
        for body in
            [&br#"{"event":"charge.success"}"#[..], br#"{"event":"charge.success","data":{"reference":""}}"#, b"{"]
        {
            assert!(matches!(reference_to_verify(body), Err(EndedUnverified::Reject(_))));
        }
    }

    #[test]
    fn b22_answers_per_decision() {
        let reason = String::new();
        assert_eq!(WebhookDecision::Ignore { reason: reason.clone() }.http_status(), 200);
        assert!(!WebhookDecision::RetryLater { reason: reason.clone() }.acknowledge());
        assert_eq!(WebhookDecision::RetryLater { reason: reason.clone() }.http_status(), 503);
        assert_eq!(WebhookDecision::Reject { reason }.http_status(), 400);
    }

    #[test]
    fn b22_verification_errors_decide_between_reject_and_retry() {
        let expected = ExpectedPayment { amount: "1".parse().expect("amount"), currency: "GHS".into() };
        let unasked = || -> NotFound { panic!("the grace is asked about a not-found only") };
        assert!(matches!(
            decide(Err(SikaError::Timeout { request_id: None }), "R", &expected, unasked),
            WebhookDecision::RetryLater { .. }
        ));
        assert!(matches!(
            decide(Err(SikaError::Unauthorized { request_id: None }), "R", &expected, unasked),
            WebhookDecision::RetryLater { .. }
        ));
        assert!(matches!(
            decide(Err(SikaError::InvalidReference { request_id: None }), "R", &expected, unasked),
            WebhookDecision::Reject { .. }
        ));
    }

    #[test]
    fn b53_a_reference_not_found_is_retried_within_the_grace_and_rejected_after_it() {
        let expected = ExpectedPayment { amount: "1".parse().expect("amount"), currency: "GHS".into() };
        let grace = Duration::from_secs(300);
        let early = || NotFound::NotVisibleYet { since: Duration::from_secs(10), grace };
        let decision = decide(Err(SikaError::TransactionNotFound { request_id: None }), "R", &expected, early);
        match &decision {
            WebhookDecision::RetryLater { reason } => {
                assert!(
                    reason.contains("not know the reference yet") && reason.contains("300000 ms grace"),
                    "{reason}"
                );
            }
            other => panic!("expected RetryLater, got {other:?}"),
        }
        assert_eq!(decision.http_status(), 503);
        let late = decide(Err(SikaError::TransactionNotFound { request_id: None }), "R", &expected, || {
            NotFound::Unknown { grace }
        });
        assert!(matches!(late, WebhookDecision::Reject { ref reason } if reason.contains("still does not know")));
        assert_eq!(late.http_status(), 400);
    }
}

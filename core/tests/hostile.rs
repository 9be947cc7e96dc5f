//! A broken or hostile service: every fault the sandbox can inject ends in a typed error within
//! the call's deadline, never a panic, a hang or a wrong "paid".

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sika_core::{Client, ExpectedPayment, PaymentCheck, SikaError, TransactionStatus};
use support::{Sandbox, transaction_object};

/// The shared fault list of every language's hostile-response tests.
fn faults() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/faults.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("tests/fixtures/faults.json")).expect("faults.json")
}

fn client(sandbox: &Sandbox, faults: &Value) -> Client {
    let mut config = sandbox.config();
    config.timeout_ms = faults["budget_ms"].as_u64().expect("budget_ms");
    config.max_retries = faults["max_retries"].as_u64().expect("max_retries") as u32;
    Client::new(config).expect("client")
}

fn kind_of(result: &Result<TransactionStatus, SikaError>) -> String {
    match result {
        Ok(status) => format!("Ok({status})"),
        Err(error) => format!("{error:?}").split([' ', '{', '(']).next().unwrap_or_default().to_owned(),
    }
}

/// What a case of faults.json must end in: its `error` kind, or for `"outcome": "confirmed"` (a
/// fault the SDK must survive) the seeded transaction, verified and confirmed as paid.
enum Expected<'a> {
    Error(&'a str),
    Confirmed,
}

fn expected(case: &Value) -> Expected<'_> {
    match (case["error"].as_str(), case["outcome"].as_str()) {
        (Some(error), None) => Expected::Error(error),
        (None, Some("confirmed")) => Expected::Confirmed,
        _ => panic!("{}: a case has either an error or \"outcome\": \"confirmed\"", case["id"]),
    }
}

#[tokio::test]
async fn b29_every_fault_is_a_typed_error_within_the_deadline() {
    let faults = faults();
    let limit = Duration::from_millis(
        faults["budget_ms"].as_u64().expect("budget_ms") + faults["slack_ms"].as_u64().expect("slack_ms"),
    );
    let cases = faults["cases"].as_array().expect("cases");
    assert!(cases.len() >= 18, "the fault list lost cases");
    for case in cases {
        let (id, kind) = (case["id"].as_str().expect("id"), case["kind"].as_str().expect("kind"));
        let sandbox = Sandbox::start();
        sandbox.seed_transaction(&transaction_object("HOSTILE-1", "successful", "10"));
        let count = faults["count"].as_u64().expect("count") as u32;
        sandbox.fault("/transaction/verify", kind, count, case["options"].clone());
        let client = client(&sandbox, &faults);
        let started = Instant::now();
        let result = client.verify_transaction("HOSTILE-1").await.map(|t| t.status);
        let elapsed = started.elapsed();
        assert!(elapsed < limit, "{id}: took {elapsed:?}");
        match expected(case) {
            Expected::Error(error) => {
                assert_eq!(kind_of(&result), error, "{id}: {result:?}");
                // B64: whatever the service sent, the error's text is bounded.
                let max = faults["max_message_chars"].as_u64().expect("max_message_chars") as usize;
                let chars = result.as_ref().expect_err("an error").to_string().chars().count();
                assert!(chars <= max, "{id}: a message of {chars} characters, more than {max}");
            }
            Expected::Confirmed => {
                assert_eq!(result, Ok(TransactionStatus::Successful), "{id}");
                // The same client again: the fault (`count` answers) is still in place.
                let paid = ExpectedPayment { amount: "10".parse().expect("amount"), currency: "GHS".into() };
                let started = Instant::now();
                let check = client.confirm_payment("HOSTILE-1", &paid).await;
                let elapsed = started.elapsed();
                assert!(matches!(check, Ok(PaymentCheck::Confirmed { .. })), "{id}: {check:?}");
                assert!(elapsed < limit, "{id}: confirm took {elapsed:?}");
            }
        }
    }
}

#[test]
fn b29_every_case_expects_an_error_or_a_confirmed_payment() {
    let faults = faults();
    let cases = faults["cases"].as_array().expect("cases");
    let confirmed = cases.iter().filter(|case| matches!(expected(case), Expected::Confirmed)).count();
    assert!(confirmed >= 1, "faults.json lost its faults the SDK must survive");
}

#[tokio::test]
async fn b29_a_duplicated_status_never_reads_as_paid() {
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("DUP-1", "failed", "10"));
    sandbox.fault("/transaction/verify", "duplicate_keys", 1, json!({ "first": "failed", "second": "successful" }));
    let result = client(&sandbox, &faults()).verify_transaction("DUP-1").await;
    assert!(matches!(result, Err(SikaError::UnexpectedResponse { .. })), "{result:?}");
}

#[tokio::test]
async fn b29_a_fault_on_one_endpoint_leaves_the_others_alone() {
    let sandbox = Sandbox::start();
    sandbox.fault("/transaction/verify", "hang", 1, json!({}));
    let providers = client(&sandbox, &faults()).list_mobile_money_providers(None).await.expect("providers unaffected");
    assert_eq!(providers.len(), 3);
}

/// The content type is not trusted either way: the body decides. A valid envelope labelled
/// `text/plain` is the transaction it says (the status rules still apply), and a JSON label on
/// a page that is not JSON is `UnexpectedResponse` (the `html_200`-like cases of faults.json).
#[tokio::test]
async fn b29_a_wrong_content_type_is_judged_by_the_body() {
    let sandbox = Sandbox::start();
    let envelope = format!(
        r#"{{"status":true,"message":"Transaction fetched","data":{}}}"#,
        transaction_object("LABEL-1", "successful", "10")
    );
    sandbox.fault("/transaction/verify", "body", 1, json!({ "body": envelope, "content_type": "text/plain" }));
    let transaction = client(&sandbox, &faults()).verify_transaction("LABEL-1").await.expect("decoded by its body");
    assert_eq!(transaction.status, TransactionStatus::Successful);

    sandbox.fault(
        "/transaction/verify",
        "body",
        1,
        json!({ "body": "<html>ok</html>", "content_type": "application/json" }),
    );
    let result = client(&sandbox, &faults()).verify_transaction("LABEL-1").await;
    assert!(matches!(result, Err(SikaError::UnexpectedResponse { .. })), "{result:?}");
}

/// B50: whether some fragment of `key` of 8 or more characters (the scrubber's bound) is in `text`.
fn has_key_fragment(text: &str, key: &str) -> bool {
    let key: Vec<char> = key.chars().collect();
    key.windows(8).any(|window| text.contains(&window.iter().collect::<String>()))
}

fn assert_fit_to_leave(text: &str, what: &str) {
    assert!(!has_key_fragment(text, support::KEY), "{what}: a fragment of the key in {text:?}");
    assert!(!text.contains(['\n', '\r', '\u{2028}', '\u{2029}']), "{what}: a raw line break in {text:?}");
}

#[tokio::test]
async fn b50_echoed_key_fragments_and_line_breaks_never_leave_in_an_error() {
    let faults = faults();
    let cases: Vec<&Value> =
        faults["cases"].as_array().expect("cases").iter().filter(|case| case["kind"] == "echo_key").collect();
    assert!(cases.len() >= 3, "the echoed-key faults are missing from faults.json");
    for case in cases {
        let id = case["id"].as_str().expect("id");
        let sandbox = Sandbox::start();
        sandbox.seed_transaction(&transaction_object("HOSTILE-1", "successful", "10"));
        sandbox.fault(
            "/transaction/verify",
            "echo_key",
            faults["count"].as_u64().expect("count") as u32,
            case["options"].clone(),
        );
        let error = client(&sandbox, &faults).verify_transaction("HOSTILE-1").await.expect_err(id);
        assert_fit_to_leave(&error.to_string(), id);
        assert_fit_to_leave(&format!("{error:?}"), id);
        assert!(error.to_string().contains("[REDACTED]"), "{id}: the echo was not there to remove: {error}");
    }
}

#[tokio::test]
async fn b50_a_key_echoed_as_the_status_never_leaves_in_a_decision_reason() {
    let sandbox = Sandbox::start();
    let expected = sika_core::ExpectedPayment { amount: "10".parse().expect("amount"), currency: "GHS".into() };
    let body = br#"{"event":"charge.success","data":{"reference":"ECHO-1"}}"#;
    for status in [support::KEY.to_owned(), format!("{}\nERROR forged", &support::KEY[3..])] {
        sandbox.seed_transaction(&transaction_object("ECHO-1", &status, "10"));
        let decision = client(&sandbox, &faults()).handle_webhook(body, &expected).await.expect("a decision");
        let reason = match &decision {
            sika_core::WebhookDecision::Investigate { reason, .. }
            | sika_core::WebhookDecision::Ignore { reason }
            | sika_core::WebhookDecision::RetryLater { reason }
            | sika_core::WebhookDecision::Reject { reason } => reason.clone(),
            sika_core::WebhookDecision::Fulfil { .. } => panic!("an unknown status fulfilled: {decision:?}"),
        };
        assert_fit_to_leave(&reason, "decision reason");
        assert!(reason.contains("[REDACTED]"), "the echo was not there to remove: {reason}");
    }
}

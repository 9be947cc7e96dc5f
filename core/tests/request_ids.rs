//! Request ids (ADR 0053): every attempt sends `X-Request-Id` (one call id, the attempt's
//! number), and every error that follows a request carries the id to quote to support: the
//! service's, else the one Sika sent. The cases are `tests/fixtures/request_ids.json`, shared
//! by every language's suite.

mod support;

use serde_json::Value;
use sika_core::{Client, SikaError};
use support::{KEY, Sandbox, calls, fixture};

/// The `sika_<32 hex>` call id and attempt number of a sent id.
fn parts(id: &str) -> (&str, u32) {
    let (call, attempt) = id.rsplit_once('_').unwrap_or_else(|| panic!("{id}"));
    let hex = call.strip_prefix("sika_").unwrap_or_else(|| panic!("{id}"));
    assert_eq!(hex.len(), 32, "{id}");
    assert!(hex.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)), "{id}");
    (call, attempt.parse().unwrap_or_else(|_| panic!("{id}")))
}

async fn run_case(sandbox: &Sandbox, file: &Value, case: &Value) {
    let id = case["id"].as_str().expect("id");
    sandbox.control("reset", None, None);
    if let Some(fault) = case.get("fault") {
        let count = fault["count"].as_u64().expect("count") as u32;
        sandbox.fault(
            fault["path"].as_str().expect("path"),
            fault["kind"].as_str().expect("kind"),
            count,
            fault["options"].clone(),
        );
    }
    let mut config = sandbox.config();
    config.timeout_ms = file["budget_ms"].as_u64().expect("budget_ms");
    config.max_retries = file["max_retries"].as_u64().expect("max_retries") as u32;
    if let Some(key) = case["secret_key"].as_str() {
        config.secret_key = key.into();
    }
    let client = Client::new(config).expect("client");
    let text = |name: &str| case[name].as_str().unwrap_or_else(|| panic!("{id}: {name}"));
    let error = match text("call") {
        "verify" => client.verify_transaction(text("reference")).await.map(|_| ()),
        "providers" => client.list_mobile_money_providers(Some(text("country"))).await.map(|_| ()),
        "charge" => client.initiate_charge(&support::charge(text("reference"), "+233241234567")).await.map(|_| ()),
        other => panic!("{id}: unknown call {other}"),
    }
    .expect_err(id);
    assert_eq!(calls::variant(&error), text("error"), "{id}: {error:?}");

    let requests = sandbox.requests();
    assert_eq!(requests.len() as u64, case["attempts"].as_u64().expect("attempts"), "{id}: {requests:?}");
    let sent: Vec<&str> = requests.iter().map(|r| r["request_id"].as_str().expect("request_id sent")).collect();
    let call = parts(sent[0]).0;
    for (n, sent) in sent.iter().enumerate() {
        assert_eq!(parts(sent), (call, n as u32 + 1), "{id}: {sent}");
    }
    let last = requests.last().expect("a request");
    let quoted = error.request_id().unwrap_or_else(|| panic!("{id}: no request id in {error:?}"));
    match text("quote") {
        "service" => assert_eq!(Some(quoted), last["answered_request_id"].as_str(), "{id}"),
        "sika" => assert_eq!(Some(quoted), last["request_id"].as_str(), "{id}"),
        "cleaned" => {
            assert!(quoted.chars().count() <= file["max_request_id_chars"].as_u64().expect("max") as usize, "{id}");
            assert!(!quoted.chars().any(|c| c.is_control() || c == '\u{2028}'), "{id}: {quoted:?}");
            assert!(!quoted.contains(KEY) && !quoted.contains(&KEY[8..]), "{id}: the key is in {quoted:?}");
            assert!(quoted.starts_with(text("starts_with")), "{id}: {quoted:?}");
        }
        other => panic!("{id}: unknown quote {other}"),
    }
    // The id is in the error's text too, where support looks for it, and never the key.
    let message = error.to_string();
    assert!(message.contains(&format!("(request id {quoted})")), "{id}: {message}");
    assert!(!message.contains(KEY), "{id}");
}

#[tokio::test]
async fn b200_b206_every_error_after_a_request_carries_its_request_id() {
    let file = fixture("request_ids.json");
    let sandbox = Sandbox::start();
    for case in file["cases"].as_array().expect("cases") {
        run_case(&sandbox, &file, case).await;
    }
}

/// Errors no request preceded carry none (ADR 0053).
#[tokio::test]
async fn b205_errors_before_sending_carry_no_request_id() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let invalid = client.verify_transaction("").await.expect_err("empty reference");
    assert!(matches!(invalid, SikaError::InvalidInput { .. }), "{invalid:?}");
    assert_eq!(invalid.request_id(), None);
    client.shutdown();
    let closed = client.verify_transaction("RID-1").await.expect_err("shut down");
    assert_eq!(closed.request_id(), None, "{closed:?}");
    assert!(sandbox.requests().is_empty());
}

/// A successful call's requests carry ids too (support can find a call that went wrong later).
#[tokio::test]
async fn b201_a_successful_call_sends_its_request_id() {
    let sandbox = Sandbox::start();
    sandbox.client().list_banks(Some("GH")).await.expect("banks");
    let requests = sandbox.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(parts(requests[0]["request_id"].as_str().expect("sent")).1, 1);
}

//! A broken or hostile service: every fault the sandbox can inject ends in a typed error within
//! the call's deadline, never a panic, a hang or a wrong "paid".

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sika_core::{Client, SikaError, TransactionStatus};
use support::{Sandbox, transaction_object};

const BUDGET_MS: u64 = 1500;

fn client(sandbox: &Sandbox) -> Client {
    let mut config = sandbox.config();
    config.timeout_ms = BUDGET_MS;
    config.max_retries = 1;
    Client::new(config).expect("client")
}

/// Injects `kind` on verify (for every attempt) and returns what the client made of it.
async fn verify_under(
    sandbox: &Sandbox,
    kind: &str,
    options: Value,
) -> (Result<TransactionStatus, SikaError>, Duration) {
    sandbox.seed_transaction(&transaction_object("HOSTILE-1", "successful", "10"));
    sandbox.fault("/transaction/verify", kind, 3, options);
    let started = Instant::now();
    let result = client(sandbox).verify_transaction("HOSTILE-1").await.map(|t| t.status);
    (result, started.elapsed())
}

fn kind_of(result: &Result<TransactionStatus, SikaError>) -> String {
    match result {
        Ok(status) => format!("Ok({status})"),
        Err(error) => format!("{error:?}").split([' ', '{', '(']).next().unwrap_or_default().to_owned(),
    }
}

#[tokio::test]
async fn every_fault_is_a_typed_error_within_the_deadline() {
    let cases: Vec<(&str, Value, &str)> = vec![
        ("status", json!({ "status": 500 }), "Api"),
        (
            "status",
            json!({ "status": 503, "body": "<html>Bad gateway</html>", "content_type": "text/html" }),
            "UnexpectedResponse",
        ),
        ("status", json!({ "status": 429, "retry_after": 30 }), "RateLimited"),
        ("reset", json!({}), "Network"),
        ("hang", json!({}), "Timeout"),
        ("delay", json!({ "delay_ms": 5000 }), "Timeout"),
        ("truncate", json!({}), "Network"),
        ("drip", json!({ "chunk_bytes": 1, "interval_ms": 200 }), "Timeout"),
        ("body", json!({ "body": "" }), "UnexpectedResponse"),
        ("body", json!({ "body": "<html>maintenance</html>", "content_type": "text/html" }), "UnexpectedResponse"),
        ("body", json!({ "body": "{\"status\":true,\"message\":\"ok\",\"data\":null}" }), "UnexpectedResponse"),
        ("body", json!({ "body": "{\"status\":true,\"message\":\"ok\",\"data\":[1,2]}" }), "UnexpectedResponse"),
        ("body", json!({ "body": "{\"status\":true,\"data\":{}}", "content_type": null }), "UnexpectedResponse"),
        ("huge", json!({ "size_bytes": 17 * 1024 * 1024 }), "UnexpectedResponse"),
        ("huge", json!({ "size_bytes": 17 * 1024 * 1024, "chunked": true }), "UnexpectedResponse"),
        ("deep_json", json!({ "depth": 10_000 }), "UnexpectedResponse"),
        ("duplicate_keys", json!({}), "UnexpectedResponse"),
        ("non_utf8", json!({}), "UnexpectedResponse"),
    ];
    for (kind, options, expected) in cases {
        let sandbox = Sandbox::start();
        let (result, elapsed) = verify_under(&sandbox, kind, options.clone()).await;
        assert_eq!(kind_of(&result), expected, "{kind} {options}: {result:?}");
        assert!(elapsed < Duration::from_millis(BUDGET_MS + 1000), "{kind} {options}: took {elapsed:?}");
    }
}

#[tokio::test]
async fn a_duplicated_status_never_reads_as_paid() {
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("DUP-1", "failed", "10"));
    sandbox.fault("/transaction/verify", "duplicate_keys", 1, json!({ "first": "failed", "second": "successful" }));
    let result = client(&sandbox).verify_transaction("DUP-1").await;
    assert!(matches!(result, Err(SikaError::UnexpectedResponse { .. })), "{result:?}");
}

#[tokio::test]
async fn a_fault_on_one_endpoint_leaves_the_others_alone() {
    let sandbox = Sandbox::start();
    sandbox.fault("/transaction/verify", "hang", 1, json!({}));
    let providers = client(&sandbox).list_mobile_money_providers(None).await.expect("providers unaffected");
    assert_eq!(providers.len(), 3);
}

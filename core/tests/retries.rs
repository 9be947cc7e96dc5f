//! The transport under faults: which calls are retried, within which budget, and which never are.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use sika_core::{Client, SikaError};
use support::{Sandbox, charge, transaction_object};

#[tokio::test]
async fn b26_a_read_is_retried_after_a_5xx_and_succeeds() {
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("RETRY-1", "successful", "5"));
    sandbox.fault("/transaction/verify", "status", 2, json!({ "status": 503 }));
    let transaction = sandbox.client().verify_transaction("RETRY-1").await.expect("third attempt succeeds");
    assert_eq!(transaction.tx_ref, "RETRY-1");
    assert_eq!(sandbox.requests().len(), 3);
}

#[tokio::test]
async fn b26_retries_stop_at_max_retries_with_the_last_error() {
    let sandbox = Sandbox::start();
    sandbox.fault("/bank", "status", 5, json!({ "status": 502 }));
    let result = sandbox.client().list_banks(Some("GH")).await;
    assert!(matches!(result, Err(SikaError::Api { http_status: 502, .. })), "{result:?}");
    assert_eq!(sandbox.requests().len(), 3, "one call and max_retries = 2 retries");
}

#[tokio::test]
async fn b26_retry_after_is_honoured_and_reported() {
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("RL-1", "pending", "5"));
    sandbox.fault("/transaction/verify", "status", 1, json!({ "status": 429, "retry_after": 1 }));
    let started = Instant::now();
    sandbox.client().verify_transaction("RL-1").await.expect("retried after the wait");
    assert!(started.elapsed() >= Duration::from_millis(950), "{:?}", started.elapsed());

    let mut config = sandbox.config();
    config.max_retries = 0;
    sandbox.fault("/transaction/verify", "status", 1, json!({ "status": 429, "retry_after": 7 }));
    let result = Client::new(config).expect("client").verify_transaction("RL-1").await;
    assert_eq!(result.map(|_| ()), Err(SikaError::RateLimited { retry_after_seconds: Some(7) }));
}

/// docs/RELIABILITY.md: a `Retry-After` is honoured up to 10 s only, even when the deadline
/// would allow a longer wait; past it the call ends at once with the service's hint.
#[tokio::test]
async fn b29_a_retry_after_over_ten_seconds_is_not_waited_for() {
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("RL-2", "pending", "5"));
    let mut config = sandbox.config();
    config.timeout_ms = 60_000;
    config.max_retries = 1;
    sandbox.fault("/transaction/verify", "status", 1, json!({ "status": 429, "retry_after": 11 }));
    let started = Instant::now();
    let result = Client::new(config).expect("client").verify_transaction("RL-2").await;
    assert_eq!(result.map(|_| ()), Err(SikaError::RateLimited { retry_after_seconds: Some(11) }));
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn b26_the_timeout_bounds_the_whole_call_including_slow_answers() {
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("SLOW-1", "pending", "5"));
    let mut config = sandbox.config();
    config.timeout_ms = 500;
    let client = Client::new(config).expect("client");
    for kind in ["hang", "delay"] {
        sandbox.fault(
            "/transaction/verify",
            kind,
            3,
            json!(if kind == "delay" { json!({ "delay_ms": 5000 }) } else { json!({}) }),
        );
        let started = Instant::now();
        assert_eq!(client.verify_transaction("SLOW-1").await.map(|_| ()), Err(SikaError::Timeout), "{kind}");
        assert!(started.elapsed() < Duration::from_millis(1500), "{kind}: {:?}", started.elapsed());
    }
}

#[tokio::test]
async fn b26_a_charge_is_never_retried_and_a_lost_answer_is_outcome_unknown() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    sandbox.fault("/charge", "status", 1, json!({ "status": 503 }));
    let result = client.initiate_charge(&charge("NO-RETRY", "+233244125678")).await;
    assert!(matches!(result, Err(SikaError::ChargeOutcomeUnknown { ref reference, .. }) if reference == "NO-RETRY"));
    assert_eq!(sandbox.requests().len(), 1);

    for then in ["status", "reset"] {
        let reference = format!("TAKEN-{then}");
        sandbox.fault("/charge", "after_processing", 1, json!({ "then": then }));
        let result = client.initiate_charge(&charge(&reference, "+233244125678")).await;
        assert!(matches!(result, Err(SikaError::ChargeOutcomeUnknown { .. })), "{then}: {result:?}");
        let taken = client.verify_transaction(&reference).await.expect("the service did create it");
        assert_eq!(taken.tx_ref, reference);
    }
}

#[tokio::test]
async fn b26_a_charge_refused_by_the_service_is_a_definite_error() {
    let sandbox = Sandbox::start();
    sandbox.fault("/charge", "status", 1, json!({ "status": 429 }));
    let result = sandbox.client().initiate_charge(&charge("RATE", "+233244125678")).await;
    assert!(matches!(result, Err(SikaError::RateLimited { .. })), "{result:?}");
}

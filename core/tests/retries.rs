//! The transport under faults: which calls are retried, within which budget, and which never are.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use sika_core::{Client, SikaError};
use support::{Sandbox, calls, transaction_object};

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
    assert!(matches!(result, Err(SikaError::RateLimited { retry_after_seconds: Some(11), .. })), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn b25_a_charge_whose_answer_was_lost_after_processing_is_outcome_unknown() {
    calls::run_scenario("b25_lost_charge.json").await;
}

#[tokio::test]
async fn b26_reads_are_retried_and_charges_are_not() {
    calls::run_scenario("b26_retries.json").await;
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
        let outcome = client.verify_transaction("SLOW-1").await.map(|_| ());
        assert!(matches!(outcome, Err(SikaError::Timeout { .. })), "{kind}: {outcome:?}");
        assert!(started.elapsed() < Duration::from_millis(1500), "{kind}: {:?}", started.elapsed());
    }
}

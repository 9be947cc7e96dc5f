//! B53: a reference the service does not know yet gets a grace period (ADR 0023). The
//! parameters come from the `early_webhook` scenario of tests/fixtures/faults.json, which every
//! language's test reads.

mod support;

use std::time::{Duration, Instant};

use serde_json::Value;
use sika_core::{
    AwaitOptions, BlockingClient, Client, ClientConfig, ExpectedPayment, SikaError, TransactionStatus, WebhookDecision,
};
use support::{Sandbox, transaction_object};

/// The scenario's `setup`.
fn setup() -> Value {
    let faults = support::fixture("faults.json");
    let scenarios = faults["scenarios"].as_array().expect("faults.json has scenarios");
    let scenario = scenarios.iter().find(|s| s["id"] == "early_webhook").expect("scenario early_webhook");
    assert_eq!(scenario["behaviour"], "B53");
    scenario["setup"].clone()
}

fn grace_ms(setup: &Value) -> u64 {
    setup["not_found_grace_ms"].as_u64().expect("setup.not_found_grace_ms")
}

fn grace(setup: &Value) -> Duration {
    Duration::from_millis(grace_ms(setup))
}

fn config(sandbox: &Sandbox, setup: &Value) -> ClientConfig {
    ClientConfig { not_found_grace_ms: grace_ms(setup), ..sandbox.config() }
}

fn text<'a>(setup: &'a Value, name: &str) -> &'a str {
    setup[name].as_str().unwrap_or_else(|| panic!("setup.{name}"))
}

fn order(setup: &Value) -> ExpectedPayment {
    ExpectedPayment { amount: text(setup, "amount").parse().expect("amount"), currency: text(setup, "currency").into() }
}

fn notification(reference: &str) -> Vec<u8> {
    format!(r#"{{"event":"charge.success","data":{{"reference":"{reference}"}}}}"#).into_bytes()
}

fn await_options(setup: &Value) -> AwaitOptions {
    let ms = |name: &str| setup["await"][name].as_u64().unwrap_or_else(|| panic!("setup.await.{name}"));
    AwaitOptions {
        initial_delay_ms: ms("initial_delay_ms"),
        interval_ms: ms("interval_ms"),
        max_interval_ms: ms("max_interval_ms"),
        timeout_ms: ms("timeout_ms"),
        cancellation: None,
    }
}

fn seed_paid(sandbox: &Sandbox, setup: &Value, reference: &str) {
    sandbox.seed_transaction(&transaction_object(reference, "successful", text(setup, "amount")));
}

#[tokio::test]
async fn b53_an_early_webhook_is_retried_and_fulfilled_once_the_reference_is_visible() {
    let setup = setup();
    let sandbox = Sandbox::start();
    let client = Client::new(config(&sandbox, &setup)).expect("client");
    let reference = text(&setup, "reference");

    let early = client.handle_webhook(&notification(reference), &order(&setup)).await.expect("decision");
    match &early {
        WebhookDecision::RetryLater { reason } => {
            assert!(reason.contains("does not know the reference yet"), "{reason}")
        }
        other => panic!("an early notification must be RetryLater, got {other:?}"),
    }
    assert_eq!((early.acknowledge(), early.http_status()), (false, 503));

    seed_paid(&sandbox, &setup, reference);
    let redelivered = client.handle_webhook(&notification(reference), &order(&setup)).await.expect("decision");
    assert!(
        matches!(redelivered, WebhookDecision::Fulfil { ref transaction } if transaction.tx_ref == reference),
        "{redelivered:?}"
    );
}

#[tokio::test]
async fn b53_an_unknown_reference_is_retried_within_the_grace_and_rejected_after_it() {
    let setup = setup();
    let sandbox = Sandbox::start();
    let client = Client::new(config(&sandbox, &setup)).expect("client");
    let body = notification("EARLY-NEVER-CHARGED");
    let started = Instant::now();
    let first = client.handle_webhook(&body, &order(&setup)).await.expect("decision");
    assert_eq!(first.http_status(), 503, "{first:?}");
    // A repeated delivery within the grace is still an early one; the grace does not restart.
    let again = client.handle_webhook(&body, &order(&setup)).await.expect("decision");
    assert!(started.elapsed() < grace(&setup), "the test machine was too slow to check within the grace");
    assert_eq!(again.http_status(), 503, "{again:?}");

    tokio::time::sleep(grace(&setup)).await;
    let late = client.handle_webhook(&body, &order(&setup)).await.expect("decision");
    match &late {
        WebhookDecision::Reject { reason } => assert!(reason.contains("still does not know"), "{reason}"),
        other => panic!("after the grace an unknown reference must be Reject, got {other:?}"),
    }
    assert_eq!(late.http_status(), 400);
}

#[test]
fn b53_the_blocking_client_has_the_same_grace() {
    let setup = setup();
    let sandbox = Sandbox::start();
    let client = BlockingClient::new(config(&sandbox, &setup)).expect("client");
    let body = notification("EARLY-BLOCKING");
    assert_eq!(client.handle_webhook(&body, &order(&setup)).expect("decision").http_status(), 503);
    std::thread::sleep(grace(&setup));
    assert_eq!(client.handle_webhook(&body, &order(&setup)).expect("decision").http_status(), 400);
}

#[tokio::test]
async fn b53_without_a_grace_an_unknown_reference_is_rejected_at_once() {
    let setup = setup();
    let sandbox = Sandbox::start();
    let client = Client::new(ClientConfig { not_found_grace_ms: 0, ..sandbox.config() }).expect("client");
    let decision = client.handle_webhook(&notification("EARLY-NO-GRACE"), &order(&setup)).await.expect("decision");
    assert!(matches!(decision, WebhookDecision::Reject { .. }), "{decision:?}");
}

#[tokio::test]
async fn b53_await_final_status_ends_with_not_found_once_the_grace_is_over() {
    let setup = setup();
    let sandbox = Sandbox::start();
    let client = Client::new(config(&sandbox, &setup)).expect("client");
    let options = await_options(&setup);
    let started = Instant::now();
    let result = client.await_final_status("AWAIT-NEVER-CHARGED", &options).await;
    let waited = started.elapsed();
    assert!(matches!(result.map(|_| ()), Err(SikaError::TransactionNotFound { .. })));
    assert!(waited >= grace(&setup), "ended before the grace: {waited:?}");
    let bound = grace(&setup) + Duration::from_millis(options.max_interval_ms) + Duration::from_secs(2);
    assert!(waited < bound, "retried past the grace: {waited:?} (timeout {} ms)", options.timeout_ms);
}

#[tokio::test]
async fn b53_await_final_status_sees_a_charge_that_becomes_visible_during_the_grace() {
    let setup = setup();
    let sandbox = Sandbox::start();
    let client = Client::new(config(&sandbox, &setup)).expect("client");
    let reference = "AWAIT-EARLY";
    let seeding = tokio::spawn({
        let (url, setup) = (sandbox.url.clone(), setup.clone());
        async move {
            tokio::time::sleep(grace(&setup) / 3).await;
            let object = transaction_object(reference, "successful", text(&setup, "amount"));
            tokio::task::spawn_blocking(move || support::control(&url, "seed_transaction", None, Some(&object)))
                .await
                .expect("seeded");
        }
    });
    let transaction = client.await_final_status(reference, &await_options(&setup)).await.expect("final");
    assert_eq!(transaction.status, TransactionStatus::Successful);
    seeding.await.expect("seeding task");
}

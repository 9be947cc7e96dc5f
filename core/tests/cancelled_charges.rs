//! B230: a charge whose call ends early after its request may have reached the service is never
//! "cancelled" (ADR 0075). Dropped after the sandbox logged `POST /charge` (a `hang` fault: the
//! charge is at the service, its answer never comes), it logs a WARN record naming the reference
//! and the request id the sandbox received, and `take_cancelled_charge` answers its
//! `ChargeOutcomeUnknown` once. Dropped while it waits for a socket (none connected), it sent
//! nothing, logs nothing and leaves nothing to take. (The blocking call a host interrupts:
//! `interruptions.rs` and `in_flight.rs` units; each language's own forms: its suite.)
//!
//! B284: the other ways a Rust caller stops a charge after it was sent end the same way: its own
//! deadline (`tokio::time::timeout`), its task aborted, a ledger's charge dropped (the reference
//! stays expected); the client's own deadline (`timeout_ms`) passing after sending is the
//! charge's own outcome, `ChargeOutcomeUnknown` returned, with nothing kept and no "cancelled"
//! record. B285: a client shut down answers a charge `Configuration` and sends nothing.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use sika_core::{ClientConfig, SikaError, take_cancelled_charge};
use support::{Sandbox, captured_log, charge, transaction_object};

const SETTLE: Duration = Duration::from_secs(5);

/// The `request_id` the sandbox logged for the charges it received.
fn charges_received(sandbox: &Sandbox) -> Vec<String> {
    sandbox
        .requests()
        .iter()
        .filter(|r| r["path"] == "/charge")
        .map(|r| r["request_id"].as_str().expect("request_id").to_owned())
        .collect()
}

async fn until_charge_received(sandbox: &Sandbox) -> String {
    let started = Instant::now();
    loop {
        if let Some(id) = charges_received(sandbox).pop() {
            return id;
        }
        assert!(started.elapsed() < SETTLE, "the charge never reached the sandbox");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b230_a_charge_dropped_after_it_was_sent_is_outcome_unknown_with_its_request_id() {
    captured_log::capture(log::LevelFilter::Warn);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    sandbox.fault("/charge", "hang", 1, json!({}));
    let request = charge("B230-SENT-1", "+233244123333");
    let received = tokio::select! {
        outcome = client.initiate_charge(&request) => panic!("the hung charge answered: {outcome:?}"),
        id = until_charge_received(&sandbox) => id,
    };
    let unknown = take_cancelled_charge("B230-SENT-1").expect("the dropped charge's outcome");
    match &unknown {
        SikaError::ChargeOutcomeUnknown { reference, reason, request_id } => {
            assert_eq!(reference, "B230-SENT-1");
            assert!(reason.contains("cancelled"), "{reason}");
            assert_eq!(request_id.as_deref(), Some(received.as_str()), "the id the sandbox received");
        }
        other => panic!("not outcome-unknown: {other:?}"),
    }
    assert!(unknown.to_string().contains("verify reference `B230-SENT-1`"), "{unknown}");
    assert_eq!(take_cancelled_charge("B230-SENT-1"), None, "answered once");
    let warned: Vec<String> = captured_log::lines()
        .into_iter()
        .filter(|line| line.contains("B230-SENT-1") && line.contains(&received))
        .collect();
    assert_eq!(warned.len(), 1, "one WARN record names the reference and the request id: {warned:?}");
    assert!(warned[0].contains("outcome is unknown"), "{warned:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b230_a_charge_dropped_before_any_socket_connected_sent_nothing() {
    captured_log::capture(log::LevelFilter::Warn);
    let sandbox = Sandbox::start();
    // One socket in all (none kept for charges below a cap of 4, ADR 0065), held by a read
    // that hangs: the charge waits for it, unconnected.
    let config = ClientConfig { max_connections_per_host: 1, timeout_ms: 30_000, max_retries: 0, ..sandbox.config() };
    let client = sika_core::Client::new(config).expect("client");
    sandbox.seed_transaction(&transaction_object("B230-HOLD", "pending", "1"));
    sandbox.fault("/transaction/verify", "hang", 1, json!({}));
    let holder = tokio::spawn({
        let client = client.clone();
        async move { client.verify_transaction("B230-HOLD").await }
    });
    let started = Instant::now();
    while !sandbox.requests().iter().any(|r| r["path"] == "/transaction/verify/B230-HOLD") {
        assert!(started.elapsed() < SETTLE, "the holding read never reached the sandbox");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let request = charge("B230-UNSENT-1", "+233244123333");
    let outcome = tokio::time::timeout(Duration::from_millis(300), client.initiate_charge(&request)).await;
    assert!(outcome.is_err(), "the charge got a socket: {outcome:?}");
    holder.abort();
    assert_eq!(take_cancelled_charge("B230-UNSENT-1"), None, "nothing sent: nothing unknown");
    assert!(charges_received(&sandbox).is_empty(), "the sandbox received a charge");
    assert!(!captured_log::lines().iter().any(|line| line.contains("B230-UNSENT-1")), "a WARN for an unsent charge");
}

/// The one `ChargeOutcomeUnknown` kept for `reference`, its request id the one the sandbox received.
fn assert_kept_outcome_unknown(reference: &str, received: &str) {
    match take_cancelled_charge(reference) {
        Some(SikaError::ChargeOutcomeUnknown { reference: kept, reason, request_id }) => {
            assert_eq!(kept, reference);
            assert!(reason.contains("cancelled"), "{reason}");
            assert_eq!(request_id.as_deref(), Some(received), "the id the sandbox received");
        }
        other => panic!("not outcome-unknown: {other:?}"),
    }
    assert_eq!(take_cancelled_charge(reference), None, "answered once");
}

fn assert_one_warning(reference: &str, received: &str) {
    let warned: Vec<String> = captured_log::lines()
        .into_iter()
        .filter(|line| line.contains(reference) && line.contains(received) && line.contains("outcome is unknown"))
        .collect();
    assert_eq!(warned.len(), 1, "one WARN record names the reference and the request id: {warned:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b284_a_charge_whose_callers_deadline_passes_after_it_was_sent_is_outcome_unknown() {
    captured_log::capture(log::LevelFilter::Warn);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    sandbox.fault("/charge", "hang", 1, json!({}));
    let request = charge("B284-DEADLINE-1", "+233244123333");
    let outcome = tokio::time::timeout(Duration::from_millis(1_000), client.initiate_charge(&request)).await;
    assert!(outcome.is_err(), "the hung charge answered: {outcome:?}");
    let received = charges_received(&sandbox);
    assert_eq!(received.len(), 1, "the charge reached the sandbox");
    assert_kept_outcome_unknown("B284-DEADLINE-1", &received[0]);
    assert_one_warning("B284-DEADLINE-1", &received[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b284_a_charge_task_aborted_after_it_was_sent_is_outcome_unknown() {
    captured_log::capture(log::LevelFilter::Warn);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    sandbox.fault("/charge", "hang", 1, json!({}));
    let task = tokio::spawn({
        let client = client.clone();
        async move { client.initiate_charge(&charge("B284-ABORTED-1", "+233244123333")).await }
    });
    let received = until_charge_received(&sandbox).await;
    task.abort();
    assert!(task.await.expect_err("aborted").is_cancelled());
    assert_kept_outcome_unknown("B284-ABORTED-1", &received);
    assert_one_warning("B284-ABORTED-1", &received);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b284_the_clients_own_deadline_after_sending_returns_outcome_unknown_and_keeps_nothing() {
    captured_log::capture(log::LevelFilter::Warn);
    let sandbox = Sandbox::start();
    let config = ClientConfig { timeout_ms: 700, max_retries: 0, ..sandbox.config() };
    let client = sika_core::Client::new(config).expect("client");
    sandbox.fault("/charge", "hang", 1, json!({}));
    let started = Instant::now();
    let outcome = client.initiate_charge(&charge("B284-OWN-DEADLINE", "+233244123333")).await;
    assert!(started.elapsed() < Duration::from_secs(5), "ended by its deadline");
    let received = charges_received(&sandbox);
    assert_eq!(received.len(), 1, "the charge reached the sandbox");
    match outcome {
        Err(SikaError::ChargeOutcomeUnknown { reference, request_id, .. }) => {
            assert_eq!(reference, "B284-OWN-DEADLINE");
            assert_eq!(request_id.as_deref(), Some(received[0].as_str()));
        }
        other => panic!("not outcome-unknown: {other:?}"),
    }
    assert_eq!(take_cancelled_charge("B284-OWN-DEADLINE"), None, "returned to the caller: nothing kept");
    let cancelled: Vec<String> = captured_log::lines()
        .into_iter()
        .filter(|line| line.contains("B284-OWN-DEADLINE") && line.contains("cancelled"))
        .collect();
    assert!(cancelled.is_empty(), "a charge that timed out was not cancelled: {cancelled:?}");
}

#[cfg(feature = "ledger")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b284_a_ledger_charge_dropped_after_it_was_sent_stays_expected() {
    captured_log::capture(log::LevelFilter::Warn);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let dir = std::env::temp_dir().join(format!("sika-b284-{}-{}", std::process::id(), line!()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ledger = sika_core::ledger::Ledger::sqlite(dir.join("ledger.db")).await.expect("ledger");
    sandbox.fault("/charge", "hang", 1, json!({}));
    let request = charge("B284-LEDGER-1", "+233244123333");
    let received = tokio::select! {
        outcome = ledger.initiate_charge(&client, &request) => panic!("the hung charge answered: {outcome:?}"),
        id = until_charge_received(&sandbox) => id,
    };
    assert_kept_outcome_unknown("B284-LEDGER-1", &received);
    let record = ledger.payment("B284-LEDGER-1").await.expect("payment").expect("still expected: reconcile settles it");
    assert_eq!(record.fulfilled_at, None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b285_a_charge_on_a_client_shut_down_is_configuration_and_sends_nothing() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    client.shutdown();
    match client.initiate_charge(&charge("B285-1", "+233244123333")).await {
        Err(SikaError::Configuration { reason }) => assert!(reason.contains("shut down"), "{reason}"),
        other => panic!("not Configuration: {other:?}"),
    }
    let blocking = sandbox.blocking_client();
    blocking.shutdown();
    let outcome = tokio::task::spawn_blocking(move || blocking.initiate_charge(&charge("B285-2", "+233244123333")))
        .await
        .expect("ran");
    assert!(matches!(outcome, Err(SikaError::Configuration { .. })), "{outcome:?}");
    assert!(sandbox.requests().is_empty(), "nothing sent");
}

//! B230: a charge whose call ends early after its request may have reached the service is never
//! "cancelled" (ADR 0075). Dropped after the sandbox logged `POST /charge` (a `hang` fault: the
//! charge is at the service, its answer never comes), it logs a WARN record naming the reference
//! and the request id the sandbox received, and `take_cancelled_charge` answers its
//! `ChargeOutcomeUnknown` once. Dropped while it waits for a socket (none connected), it sent
//! nothing, logs nothing and leaves nothing to take. (The blocking call a host interrupts:
//! `interruptions.rs` and `in_flight.rs` units; each language's own forms: its suite.)

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

//! B43: a client's lifecycle. `shutdown()` closes the connection pool (the sandbox's open
//! connections return to their baseline: polled, never a fixed sleep), lets a call in flight
//! finish, makes every later call a `Configuration` error with nothing sent, and may be called
//! again. Both clients; for the blocking one the runtime is shut down too (in the background).

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use sika_core::{SikaError, Transaction};
use support::{Sandbox, transaction_object};

/// How long closed connections may take to show at the sandbox.
const SETTLE: Duration = Duration::from_secs(5);
/// The open count of an idle sandbox: only the control request's own connection.
const IDLE: u64 = 1;
/// A verify answered this late is still in flight when the client is shut down.
const DELAY_MS: u64 = 400;

fn shut_down_error() -> SikaError {
    SikaError::Configuration { reason: "the client has been shut down".into() }
}

fn seed_and_delay_the_next_verify(sandbox: &Sandbox) {
    sandbox.seed_transaction(&transaction_object("LIFE-1", "successful", "3.00"));
    sandbox.fault("/transaction/verify", "delay", 1, json!({ "delay_ms": DELAY_MS }));
}

fn verified(result: sika_core::Result<Transaction>) {
    assert_eq!(result.expect("the call in flight finished").tx_ref, "LIFE-1");
}

#[test]
fn b43_a_blocking_client_shut_down_finishes_its_call_closes_its_pool_and_refuses_more() {
    let sandbox = Sandbox::start();
    seed_and_delay_the_next_verify(&sandbox);
    let client = Arc::new(sandbox.blocking_client());
    let in_flight = std::thread::spawn({
        let client = Arc::clone(&client);
        move || client.verify_transaction("LIFE-1")
    });
    let started = Instant::now();
    support::poll_until(SETTLE, || sandbox.requests().len(), |sent| *sent == 1);
    client.shutdown();
    assert!(started.elapsed() < Duration::from_millis(DELAY_MS), "shutdown did not wait for the call");
    verified(in_flight.join().expect("no panic"));
    let open = sandbox.wait_for_open_at_most(IDLE, SETTLE).open;
    assert_eq!(open, IDLE, "the pool's connection is closed");
    assert_eq!(client.verify_transaction("LIFE-1").map(|_| ()), Err(shut_down_error()));
    assert_eq!(client.list_banks(Some("GH")).map(|_| ()), Err(shut_down_error()));
    client.shutdown();
    assert_eq!(client.list_mobile_money_providers(None).map(|_| ()), Err(shut_down_error()));
    assert_eq!(sandbox.requests().len(), 1, "nothing sent after shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b43_an_async_client_shut_down_finishes_its_call_closes_its_pool_and_refuses_more() {
    let sandbox = Sandbox::start();
    seed_and_delay_the_next_verify(&sandbox);
    let client = sandbox.client();
    let in_flight = tokio::spawn({
        let client = client.clone();
        async move { client.verify_transaction("LIFE-1").await }
    });
    let started = Instant::now();
    while sandbox.requests().is_empty() && started.elapsed() < SETTLE {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    client.shutdown();
    assert!(started.elapsed() < Duration::from_millis(DELAY_MS), "shutdown did not wait for the call");
    verified(in_flight.await.expect("no panic"));
    let open = sandbox.wait_for_open_at_most_async(IDLE, SETTLE).await.open;
    assert_eq!(open, IDLE, "the pool's connection is closed");
    assert_eq!(client.verify_transaction("LIFE-1").await.map(|_| ()), Err(shut_down_error()));
    // Clones share the client, so they are shut down too; a second shutdown does nothing.
    let clone = client.clone();
    clone.shutdown();
    assert_eq!(clone.list_banks(None).await.map(|_| ()), Err(shut_down_error()));
    assert_eq!(sandbox.requests().len(), 1, "nothing sent after shutdown");
}

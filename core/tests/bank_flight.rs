//! B48: concurrent callers of one bank list during an outage. They share one fetch (one
//! request reaches the service) and its outcome, failure included, and each returns within
//! its own `timeout_ms`, never after the callers before it have each used theirs.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use sika_core::{BlockingClient, Client, SikaError};
use support::Sandbox;

const CALLERS: usize = 8;
const TIMEOUT_MS: u64 = 600;

/// Queued callers would take `CALLERS × timeout`; sharing takes one timeout. Two leave room
/// for a loaded machine and still fail the queue.
const BOUND: Duration = Duration::from_millis(2 * TIMEOUT_MS);

fn config(sandbox: &Sandbox) -> sika_core::ClientConfig {
    let mut config = sandbox.config();
    config.timeout_ms = TIMEOUT_MS;
    config.max_retries = 0;
    config
}

/// How many bank list requests the sandbox received.
fn bank_requests(sandbox: &Sandbox) -> usize {
    sandbox.requests().iter().filter(|r| r["path"].as_str().is_some_and(|p| p.starts_with("/bank"))).count()
}

/// A 503 sent slowly enough (about 300 ms) that every caller joins the fetch before it answers.
fn slow_outage(sandbox: &Sandbox) {
    let body = r#"{"status":false,"message":"Service unavailable","data":null}"#;
    sandbox.fault("/bank", "drip", 1, json!({ "status": 503, "body": body, "chunk_bytes": 4, "interval_ms": 20 }));
}

async fn concurrent_async_calls(client: &Client) -> (Vec<Result<usize, SikaError>>, Duration) {
    let started = Instant::now();
    let calls = (0..CALLERS).map(|_| {
        let client = client.clone();
        tokio::spawn(async move { client.list_banks(Some("GH")).await.map(|banks| banks.len()) })
    });
    let mut outcomes = Vec::new();
    for call in calls.collect::<Vec<_>>() {
        outcomes.push(call.await.expect("task"));
    }
    (outcomes, started.elapsed())
}

fn concurrent_blocking_calls(client: &BlockingClient) -> (Vec<Result<usize, SikaError>>, Duration) {
    let started = Instant::now();
    let outcomes = std::thread::scope(|scope| {
        let calls: Vec<_> =
            (0..CALLERS).map(|_| scope.spawn(|| client.list_banks(Some("GH")).map(|banks| banks.len()))).collect();
        calls.into_iter().map(|call| call.join().expect("thread")).collect()
    });
    (outcomes, started.elapsed())
}

fn assert_all(outcomes: &[Result<usize, SikaError>], expected: &SikaError, took: Duration) {
    assert_eq!(outcomes.len(), CALLERS);
    for outcome in outcomes {
        assert_eq!(outcome.as_ref().err(), Some(expected), "{outcomes:?}");
    }
    assert!(took < BOUND, "{CALLERS} callers took {took:?}, more than {BOUND:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b48_async_callers_during_a_hang_share_one_fetch_and_time_out_together() {
    let sandbox = Sandbox::start();
    let client = Client::new(config(&sandbox)).expect("client");
    sandbox.fault("/bank", "hang", 100, json!({}));
    let (outcomes, took) = concurrent_async_calls(&client).await;
    assert_all(&outcomes, &SikaError::Timeout, took);
    assert_eq!(bank_requests(&sandbox), 1, "one flight, one request");

    sandbox.control("clear_faults", None, None);
    assert!(client.list_banks(Some("GH")).await.is_ok(), "the call after the failure fetches again");
    assert_eq!(bank_requests(&sandbox), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b48_async_callers_share_one_fetch_and_its_5xx() {
    let sandbox = Sandbox::start();
    let client = Client::new(config(&sandbox)).expect("client");
    slow_outage(&sandbox);
    let (outcomes, took) = concurrent_async_calls(&client).await;
    let unavailable = SikaError::Api { http_status: 503, message: "Service unavailable".into() };
    assert_all(&outcomes, &unavailable, took);
    assert_eq!(bank_requests(&sandbox), 1, "one flight, one request");
}

#[test]
fn b48_blocking_callers_during_a_hang_share_one_fetch_and_time_out_together() {
    let sandbox = Sandbox::start();
    let client = BlockingClient::new(config(&sandbox)).expect("client");
    sandbox.fault("/bank", "hang", 100, json!({}));
    let (outcomes, took) = concurrent_blocking_calls(&client);
    assert_all(&outcomes, &SikaError::Timeout, took);
    assert_eq!(bank_requests(&sandbox), 1, "one flight, one request");

    sandbox.control("clear_faults", None, None);
    assert!(client.list_banks(Some("GH")).is_ok(), "the call after the failure fetches again");
    assert_eq!(bank_requests(&sandbox), 2);
}

#[test]
fn b48_blocking_callers_share_one_fetch_and_its_5xx() {
    let sandbox = Sandbox::start();
    let client = BlockingClient::new(config(&sandbox)).expect("client");
    slow_outage(&sandbox);
    let (outcomes, took) = concurrent_blocking_calls(&client);
    let unavailable = SikaError::Api { http_status: 503, message: "Service unavailable".into() };
    assert_all(&outcomes, &unavailable, took);
    assert_eq!(bank_requests(&sandbox), 1, "one flight, one request");
}

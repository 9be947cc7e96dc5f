//! B48: concurrent callers of one bank list during an outage. They share one fetch (one
//! request reaches the service) and its outcome, failure included, and each returns within
//! its own `timeout_ms`, never after the callers before it have each used theirs.

mod support;

use std::time::{Duration, Instant};

use serde_json::Value;
use sika_core::{BlockingClient, Client, SikaError};
use support::{Sandbox, scenario};

/// faults.json's `concurrent_bank_fetch_during_outage`: every parameter of these tests.
struct Outage {
    setup: Value,
    callers: usize,
    country: String,
    timeout_ms: u64,
    /// Queued callers would take `callers × timeout`; sharing takes one timeout. The bound (in
    /// timeouts) leaves room for a loaded machine and still fails the queue.
    bound: Duration,
}

impl Outage {
    fn read() -> Self {
        let setup = scenario("concurrent_bank_fetch_during_outage");
        let number = |name: &str| setup[name].as_u64().unwrap_or_else(|| panic!("{name}"));
        let timeout_ms = number("timeout_ms");
        Self {
            callers: number("callers") as usize,
            country: setup["country"].as_str().expect("country").to_owned(),
            bound: Duration::from_millis(number("bound_in_timeouts") * timeout_ms),
            timeout_ms,
            setup,
        }
    }

    fn config(&self, sandbox: &Sandbox) -> sika_core::ClientConfig {
        let mut config = sandbox.config();
        config.timeout_ms = self.timeout_ms;
        config.max_retries = self.setup["max_retries"].as_u64().expect("max_retries") as u32;
        config
    }

    /// Puts the scenario's fault `name` (`hang`, `slow_503`) in place; returns the error all
    /// callers must share.
    fn fault(&self, sandbox: &Sandbox, name: &str) -> SikaError {
        let fault = &self.setup["faults"][name];
        let (kind, count) = (fault["kind"].as_str().expect("kind"), fault["count"].as_u64().expect("count"));
        sandbox.fault(self.setup["path"].as_str().expect("path"), kind, count as u32, fault["options"].clone());
        match fault["error"].as_str() {
            Some("Timeout") => SikaError::Timeout { request_id: None },
            // The service's own message, from the envelope the fault sends.
            Some("Api") => {
                let body: Value = serde_json::from_str(fault["options"]["body"].as_str().expect("body")).expect("JSON");
                let message = body["message"].as_str().expect("message").to_owned();
                SikaError::Api {
                    http_status: fault["http_status"].as_i64().expect("http_status") as i32,
                    message,
                    request_id: None,
                }
            }
            other => panic!("{name}: no expected error for {other:?}"),
        }
    }
}

/// How many bank list requests the sandbox received.
fn bank_requests(sandbox: &Sandbox) -> usize {
    sandbox.requests().iter().filter(|r| r["path"].as_str().is_some_and(|p| p.starts_with("/bank"))).count()
}

async fn concurrent_async_calls(outage: &Outage, client: &Client) -> (Vec<Result<usize, SikaError>>, Duration) {
    let started = Instant::now();
    let calls = (0..outage.callers).map(|_| {
        let (client, country) = (client.clone(), outage.country.clone());
        tokio::spawn(async move { client.list_banks(Some(&country)).await.map(|banks| banks.len()) })
    });
    let mut outcomes = Vec::new();
    for call in calls.collect::<Vec<_>>() {
        outcomes.push(call.await.expect("task"));
    }
    (outcomes, started.elapsed())
}

fn concurrent_blocking_calls(outage: &Outage, client: &BlockingClient) -> (Vec<Result<usize, SikaError>>, Duration) {
    let started = Instant::now();
    let outcomes = std::thread::scope(|scope| {
        let calls: Vec<_> = (0..outage.callers)
            .map(|_| scope.spawn(|| client.list_banks(Some(&outage.country)).map(|banks| banks.len())))
            .collect();
        calls.into_iter().map(|call| call.join().expect("thread")).collect()
    });
    (outcomes, started.elapsed())
}

fn assert_all(outage: &Outage, outcomes: &[Result<usize, SikaError>], expected: &SikaError, took: Duration) {
    assert_eq!(outcomes.len(), outage.callers);
    for outcome in outcomes {
        assert_eq!(outcome.as_ref().err().map(without_request_id).as_ref(), Some(expected), "{outcomes:?}");
    }
    let (callers, bound) = (outage.callers, outage.bound);
    assert!(took < bound, "{callers} callers took {took:?}, more than {bound:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b48_async_callers_during_a_hang_share_one_fetch_and_time_out_together() {
    let outage = Outage::read();
    let sandbox = Sandbox::start();
    let client = Client::new(outage.config(&sandbox)).expect("client");
    let expected = outage.fault(&sandbox, "hang");
    let (outcomes, took) = concurrent_async_calls(&outage, &client).await;
    assert_all(&outage, &outcomes, &expected, took);
    assert_eq!(bank_requests(&sandbox), 1, "one flight, one request");

    sandbox.control("clear_faults", None, None);
    assert!(client.list_banks(Some(&outage.country)).await.is_ok(), "the call after the failure fetches again");
    assert_eq!(bank_requests(&sandbox), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b48_async_callers_share_one_fetch_and_its_5xx() {
    let outage = Outage::read();
    let sandbox = Sandbox::start();
    let client = Client::new(outage.config(&sandbox)).expect("client");
    let expected = outage.fault(&sandbox, "slow_503");
    let (outcomes, took) = concurrent_async_calls(&outage, &client).await;
    assert_all(&outage, &outcomes, &expected, took);
    assert_eq!(bank_requests(&sandbox), 1, "one flight, one request");
}

#[test]
fn b48_blocking_callers_during_a_hang_share_one_fetch_and_time_out_together() {
    let outage = Outage::read();
    let sandbox = Sandbox::start();
    let client = BlockingClient::new(outage.config(&sandbox)).expect("client");
    let expected = outage.fault(&sandbox, "hang");
    let (outcomes, took) = concurrent_blocking_calls(&outage, &client);
    assert_all(&outage, &outcomes, &expected, took);
    assert_eq!(bank_requests(&sandbox), 1, "one flight, one request");

    sandbox.control("clear_faults", None, None);
    assert!(client.list_banks(Some(&outage.country)).is_ok(), "the call after the failure fetches again");
    assert_eq!(bank_requests(&sandbox), 2);
}

#[test]
fn b48_blocking_callers_share_one_fetch_and_its_5xx() {
    let outage = Outage::read();
    let sandbox = Sandbox::start();
    let client = BlockingClient::new(outage.config(&sandbox)).expect("client");
    let expected = outage.fault(&sandbox, "slow_503");
    let (outcomes, took) = concurrent_blocking_calls(&outage, &client);
    assert_all(&outage, &outcomes, &expected, took);
    assert_eq!(bank_requests(&sandbox), 1, "one flight, one request");
}

/// The error without its request id: callers of one flight share its outcome, but a caller
/// whose own deadline ended the wait quotes its own call's id, or none (ADR 0053).
fn without_request_id(error: &SikaError) -> SikaError {
    match error.clone() {
        SikaError::Timeout { .. } => SikaError::Timeout { request_id: None },
        SikaError::Api { http_status, message, .. } => SikaError::Api { http_status, message, request_id: None },
        other => other,
    }
}

//! The payment-safety layer against the sandbox: confirm_payment, handle_webhook,
//! await_final_status, and a charge whose outcome is unknown.

mod support;

use std::time::Duration;

use sika_core::{AwaitOptions, Cancellation, Client, ClientConfig, SikaError, TransactionStatus};
use support::{Sandbox, calls, charge, transaction_object};

fn fast_await() -> AwaitOptions {
    AwaitOptions { initial_delay_ms: 50, interval_ms: 50, max_interval_ms: 200, timeout_ms: 5000, cancellation: None }
}

#[tokio::test]
async fn b21_confirm_payment_confirms_only_an_exact_match() {
    calls::run_scenario("b21_confirm_payment.json").await;
}

#[tokio::test]
async fn b22_a_webhook_is_fulfilled_only_after_verification() {
    calls::run_scenario("b22_webhook_decisions.json").await;
}

#[tokio::test]
async fn b23_await_final_status_follows_the_ussd_answer() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    for (suffix, want) in [("0000", TransactionStatus::Successful), ("1111", TransactionStatus::Failed)] {
        let reference = format!("WAIT-{suffix}");
        client.initiate_charge(&charge(&reference, &format!("+23324412{suffix}"))).await.expect("charge");
        let transaction = client.await_final_status(&reference, &fast_await()).await.expect("final");
        assert_eq!(transaction.status, want);
    }
}

#[tokio::test]
async fn b23_await_final_status_times_out_on_a_customer_who_never_answers() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    client.initiate_charge(&charge("WAIT-3333", "+233244123333")).await.expect("charge");
    let options = AwaitOptions { timeout_ms: 600, ..fast_await() };
    let started = std::time::Instant::now();
    assert!(matches!(
        client.await_final_status("WAIT-3333", &options).await.map(|_| ()),
        Err(SikaError::Timeout { .. })
    ));
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
}

#[tokio::test]
async fn b23_await_final_status_stops_when_cancelled_and_polls_no_more() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    client.initiate_charge(&charge("WAIT-CANCEL", "+233244123333")).await.expect("charge");
    let cancellation = Cancellation::new();
    let options = AwaitOptions { timeout_ms: 60_000, cancellation: Some(cancellation.clone()), ..fast_await() };
    let waiting = tokio::spawn({
        let client = client.clone();
        async move { client.await_final_status("WAIT-CANCEL", &options).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    cancellation.cancel();
    let result = tokio::time::timeout(Duration::from_secs(2), waiting).await.expect("ends promptly").expect("task");
    assert_eq!(result.map(|_| ()), Err(SikaError::Cancelled));
    let polls = sandbox.requests().len();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(sandbox.requests().len(), polls, "no verification after cancellation");
}

#[tokio::test]
async fn b23_await_final_status_rejects_bad_options_before_sending() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let options = AwaitOptions { interval_ms: 0, ..fast_await() };
    assert!(matches!(client.await_final_status("R", &options).await, Err(SikaError::InvalidInput { .. })));
    assert!(matches!(client.await_final_status("..", &fast_await()).await, Err(SikaError::InvalidInput { .. })));
    assert!(sandbox.requests().is_empty());
}

/// A server that reads the request and closes the connection without answering: the charge
/// may have been received, so its outcome is unknown and it must not be re-sent.
#[tokio::test]
async fn b25_a_charge_whose_answer_is_lost_is_outcome_unknown_and_sent_once() {
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let accepted = tokio::spawn(async move {
        let mut connections = 0;
        while let Ok(Ok((mut socket, _))) = tokio::time::timeout(Duration::from_millis(1500), listener.accept()).await {
            connections += 1;
            let mut buffer = [0u8; 4096];
            let _ = socket.read(&mut buffer).await;
            drop(socket);
        }
        connections
    });
    let client = Client::new(ClientConfig::new(support::KEY, format!("http://{address}"))).expect("client");
    match client.initiate_charge(&charge("LOST-1", "+233244125678")).await {
        Err(SikaError::ChargeOutcomeUnknown { reference, .. }) => assert_eq!(reference, "LOST-1"),
        other => panic!("expected ChargeOutcomeUnknown, got {other:?}"),
    }
    assert_eq!(accepted.await.expect("listener"), 1, "a charge is never sent twice");
}

#[tokio::test]
async fn b25_a_charge_that_cannot_connect_was_not_sent() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let client = Client::new(ClientConfig::new(support::KEY, format!("http://127.0.0.1:{port}"))).expect("client");
    let result = client.initiate_charge(&charge("NOT-SENT", "+233244125678")).await;
    assert!(matches!(result, Err(SikaError::Network { .. })), "{result:?}");
}

#[tokio::test]
async fn b36_an_answer_about_another_reference_is_never_a_transaction_of_this_one() {
    calls::run_scenario("b36_answer_about_another_reference.json").await;
}

/// The blocking client takes the same path (B19's shape; the async rows are the scenario file's):
/// its verification answered about `ORDER-B` is `UnexpectedResponse` naming both references.
#[test]
fn b36_the_blocking_client_rejects_an_answer_about_another_reference() {
    let sandbox = Sandbox::start();
    let body = format!(
        r#"{{"status":true,"message":"Verification successful","data":{}}}"#,
        transaction_object("ORDER-B", "successful", "100.10")
    );
    sandbox.fault("/transaction/verify/ORDER-A", "body", 1, serde_json::json!({ "body": body }));
    let blocking = sandbox.blocking_client().verify_transaction("ORDER-A");
    assert!(
        matches!(&blocking, Err(SikaError::UnexpectedResponse { http_status: 200, reason, .. })
            if reason.contains("`ORDER-B`") && reason.contains("`ORDER-A`")),
        "{blocking:?}"
    );
}

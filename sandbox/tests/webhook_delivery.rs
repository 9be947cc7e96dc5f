//! Webhooks delivered as a real service delivers them: retried on a schedule when answered
//! non-2xx or not at all (B88), several deliveries at once on request (B91), every attempt
//! logged with the receiver's answer and its time; and every answer of the sandbox carries a
//! request id (B89).

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use reqwest::Method;
use serde_json::{Value, json};
use support::{Sandbox, assert_error, wait_for_webhook_log};

/// A receiver that answers 500 to its first `failures` deliveries, then 200.
async fn flaky_receiver(failures: usize) -> (String, Arc<AtomicUsize>) {
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let app = Router::new().fallback(move || {
        let counter = counter.clone();
        async move {
            if counter.fetch_add(1, Ordering::SeqCst) < failures {
                StatusCode::INTERNAL_SERVER_ERROR
            } else {
                StatusCode::OK
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind receiver");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{address}/hook"), seen)
}

/// The fields of the log that do not vary from run to run.
fn stable(log: &Value) -> Value {
    log.as_array()
        .expect("log")
        .iter()
        .map(|a| json!({ "delivery_id": a["delivery_id"], "attempt": a["attempt"], "http_status": a["http_status"], "delivered": a["delivered"] }))
        .collect()
}

#[tokio::test]
async fn b88_a_failed_delivery_is_retried_on_the_schedule_until_answered_2xx() {
    let sandbox = Sandbox::start_with_args(50, None, &["--webhook-retry-ms", "20,40,80"]);
    let (url, seen) = flaky_receiver(2).await;
    let sent = sandbox
        .control(Method::POST, "/__sandbox/webhooks/send", Some(&json!({ "reference": "R-1", "url": url }).to_string()))
        .await;
    // The answer holds the first attempt; the retries go on in the background.
    assert_eq!(
        stable(&sent.json["data"]),
        json!([{ "delivery_id": 1, "attempt": 1, "http_status": 500, "delivered": false }])
    );
    let log = wait_for_webhook_log(&sandbox, 3).await;
    assert_eq!(
        stable(&log),
        json!([
            { "delivery_id": 1, "attempt": 1, "http_status": 500, "delivered": false },
            { "delivery_id": 1, "attempt": 2, "http_status": 500, "delivered": false },
            { "delivery_id": 1, "attempt": 3, "http_status": 200, "delivered": true },
        ])
    );
    // Answered 2xx: no more attempts, though the schedule had one more.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(seen.load(Ordering::SeqCst), 3);
    for attempt in log.as_array().expect("log") {
        assert!(attempt["sent_at"].as_str().is_some_and(|t| t.ends_with('Z') && t.len() == 24), "{attempt}");
        assert!(attempt["duration_ms"].is_u64(), "{attempt}");
    }

    // The schedule is a setting too; without one nothing is retried.
    let settings = sandbox.settings(&json!({ "webhook_retry_ms": [] })).await;
    assert_eq!(settings["webhook_retry_ms"], json!([]));
    let (url, seen) = flaky_receiver(5).await;
    sandbox
        .control(Method::POST, "/__sandbox/webhooks/send", Some(&json!({ "reference": "R-2", "url": url }).to_string()))
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(seen.load(Ordering::SeqCst), 1);

    for (body, message) in [
        (json!({ "webhook_retry_ms": 5 }), "webhook_retry_ms must be an array of milliseconds: not an array"),
        (
            json!({ "webhook_retry_ms": [-1] }),
            "webhook_retry_ms must be an array of milliseconds: not a non-negative integer",
        ),
        (
            json!({ "webhook_retry_ms": [3_600_001] }),
            "webhook_retry_ms must be an array of milliseconds: each wait must be a whole number of milliseconds up to 3600000",
        ),
    ] {
        let reply = sandbox.control(Method::POST, "/__sandbox/settings", Some(&body.to_string())).await;
        assert_error(&reply, 400, message);
    }
}

#[tokio::test]
async fn b88_the_simulations_deliveries_are_retried_too() {
    let (url, seen) = flaky_receiver(1).await;
    let sandbox = Sandbox::start_with_args(20, Some(&url), &["--webhook-retry-ms", "30"]);
    sandbox.charge(&support::charge_body("sim-1", "+233244120000", &[])).await;
    let log = wait_for_webhook_log(&sandbox, 2).await;
    assert_eq!(
        stable(&log),
        json!([
            { "delivery_id": 1, "attempt": 1, "http_status": 500, "delivered": false },
            { "delivery_id": 1, "attempt": 2, "http_status": 200, "delivered": true },
        ])
    );
    assert_eq!(seen.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn b91_concurrent_deliveries_arrive_at_once() {
    // The receiver answers only when three deliveries are in flight together.
    let barrier = Arc::new(tokio::sync::Barrier::new(3));
    let app = Router::new().fallback(move || {
        let barrier = barrier.clone();
        async move {
            match tokio::time::timeout(Duration::from_secs(2), barrier.wait()).await {
                Ok(_) => StatusCode::OK,
                Err(_) => StatusCode::SERVICE_UNAVAILABLE,
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind receiver");
    let url = format!("http://{}/hook", listener.local_addr().expect("address"));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let sandbox = Sandbox::start();
    let body = json!({ "reference": "dup-1", "url": url, "times": 3, "concurrent": true });
    let sent = sandbox.control(Method::POST, "/__sandbox/webhooks/send", Some(&body.to_string())).await;
    assert_eq!(sent.status, 200, "{}", sent.body);
    let statuses: Vec<&Value> =
        sent.json["data"].as_array().expect("attempts").iter().map(|a| &a["http_status"]).collect();
    assert_eq!(statuses, vec![&json!(200); 3], "{}", sent.body);
    let ids: Vec<&Value> = sent.json["data"].as_array().expect("attempts").iter().map(|a| &a["delivery_id"]).collect();
    assert_eq!(ids, vec![&json!(1), &json!(2), &json!(3)]);

    let bad = json!({ "reference": "dup-1", "url": url, "concurrent": "yes" });
    let reply = sandbox.control(Method::POST, "/__sandbox/webhooks/send", Some(&bad.to_string())).await;
    assert_error(&reply, 400, "concurrent must be a boolean");
}

#[tokio::test]
async fn b89_every_answer_carries_a_request_id() {
    let sandbox = Sandbox::start();
    sandbox.control(Method::POST, "/__sandbox/faults", Some(r#"{"path":"/bank","kind":"status","status":503}"#)).await;
    let http = support::http_client();
    let mut ids = Vec::new();
    for (path, auth) in [
        ("/mobile-money-providers", true),
        ("/mobile-money-providers", false),
        ("/bank", true),
        ("/nowhere", true),
        ("/__sandbox/settings", false),
    ] {
        let mut request = http.get(format!("{}{path}", sandbox.url));
        if auth {
            request = request.bearer_auth(support::KEY);
        }
        let response = request.send().await.expect("answer");
        let id = response.headers().get("x-request-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
        ids.push(id.unwrap_or_else(|| panic!("no X-Request-Id on {path} ({})", response.status())));
    }
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
    assert!(ids.iter().all(|id| id.starts_with("req_")), "{ids:?}");
}

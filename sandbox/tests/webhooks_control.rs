//! Webhook controls and run-time settings of the built `sika-sandbox` binary:
//! `/__sandbox/settings` (webhook URL, USSD delay, repeated deliveries), `--webhook-repeat`,
//! forced notifications (`/__sandbox/webhooks/send`) and the webhook log. Every receiver is a
//! local listener on 127.0.0.1.

mod support;

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use support::*;

type Deliveries = mpsc::UnboundedReceiver<(String, String, String)>;

/// Asserts that nothing more arrives within `wait`.
async fn assert_no_more(deliveries: &mut Deliveries, wait: Duration) {
    tokio::time::sleep(wait).await;
    assert!(deliveries.try_recv().is_err(), "unexpected extra delivery");
}

/// The webhook log without the fields that vary from run to run (`sent_at`, `duration_ms`),
/// after checking they are there.
fn without_times(log: &Value) -> Value {
    log.as_array()
        .expect("webhook log")
        .iter()
        .map(|attempt| {
            let mut attempt = attempt.clone();
            let object = attempt.as_object_mut().expect("attempt object");
            assert!(object.remove("sent_at").is_some_and(|t| t.is_string()), "sent_at");
            assert!(object.remove("duration_ms").is_some_and(|t| t.is_u64()), "duration_ms");
            attempt
        })
        .collect()
}

fn success_body(reference: &str) -> String {
    format!(r#"{{"event":"charge.success","data":{{"reference":"{reference}"}}}}"#)
}

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn b173_settings_point_the_sandbox_at_a_listener_started_later() {
    let sandbox = Sandbox::start();
    let settings = sandbox.control(Method::GET, "/__sandbox/settings", None).await;
    assert_eq!(
        settings.body,
        r#"{"status":true,"message":"ok","data":{"webhook_url":null,"confirm_after_ms":50,"webhook_repeat":1,"webhook_retry_ms":[]}}"#
    );
    // No URL yet: a successful charge sends nothing and records nothing.
    sandbox.charge(&charge_body("s-0", "+233244120000", &[])).await;
    sandbox.statuses_until_final("s-0", "successful").await;

    let (receiver_url, mut deliveries) = start_receiver().await;
    let hook = format!("{receiver_url}/hook");
    let updated = sandbox.settings(&json!({ "webhook_url": hook })).await;
    assert_eq!(
        updated,
        json!({ "webhook_url": hook, "confirm_after_ms": 50, "webhook_repeat": 1, "webhook_retry_ms": [] })
    );
    sandbox.charge(&charge_body("s-1", "+233244120000", &[])).await;
    let (path, content_type, body) = next_delivery(&mut deliveries).await;
    assert_eq!((path.as_str(), content_type.as_str()), ("/hook", "application/json"));
    assert_eq!(body, success_body("s-1"));
    let log = wait_for_webhook_log(&sandbox, 1).await;
    assert_eq!(
        without_times(&log),
        json!([{
            "reference": "s-1", "delivered": true, "event": "charge.success",
            "url": hook, "http_status": 200, "error": null, "delivery_id": 1, "attempt": 1
        }])
    );

    // null turns webhooks off again.
    let off = sandbox.settings(&json!({ "webhook_url": null })).await;
    assert_eq!(off["webhook_url"], Value::Null);
    sandbox.charge(&charge_body("s-2", "+233244120000", &[])).await;
    sandbox.statuses_until_final("s-2", "successful").await;
    assert_no_more(&mut deliveries, Duration::from_millis(200)).await;
    assert_eq!(sandbox.webhooks().await.as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn b173_settings_are_validated_all_or_nothing() {
    let sandbox = Sandbox::start();
    let cases = [
        ("nope", "Invalid request body"),
        ("[]", "Invalid request body"),
        (r#"{"webhook":"http://127.0.0.1:9/"}"#, r#"Unknown setting \"webhook\""#),
        (r#"{"webhook_url":"http://example.com/hook"}"#, "Invalid webhook_url: the host must be a loopback address"),
        (r#"{"webhook_url":"http://10.1.2.3:8080/hook"}"#, "Invalid webhook_url: the host must be a loopback address"),
        (r#"{"webhook_url":5}"#, "webhook_url must be a string or null"),
        (r#"{"confirm_after_ms":-1}"#, "confirm_after_ms must be a non-negative integer"),
        (r#"{"confirm_after_ms":"5"}"#, "confirm_after_ms must be a non-negative integer"),
        (r#"{"webhook_repeat":101}"#, "webhook_repeat must be an integer from 0 to 100"),
        // A good field next to a bad one changes nothing.
        (r#"{"confirm_after_ms":7,"webhook_repeat":1.5}"#, "webhook_repeat must be an integer from 0 to 100"),
    ];
    for (body, message) in cases {
        let reply = sandbox.control(Method::POST, "/__sandbox/settings", Some(body)).await;
        assert_eq!(reply.body, format!(r#"{{"status":false,"message":"{message}","data":null}}"#), "{body}");
        assert_eq!(reply.status, 400);
    }
    let reply =
        sandbox.control(Method::POST, "/__sandbox/settings", Some(r#"{"webhook_url":"ftp://127.0.0.1/"}"#)).await;
    assert_eq!(reply.status, 400, "{}", reply.body);
    let settings = sandbox.control(Method::GET, "/__sandbox/settings", None).await;
    assert_eq!(
        settings.json["data"],
        json!({ "webhook_url": null, "confirm_after_ms": 50, "webhook_repeat": 1, "webhook_retry_ms": [] })
    );
    // Loopback spellings that are accepted; an empty change is fine too.
    for url in ["http://localhost:9/hook", "http://[::1]:9/", "http://127.0.0.2:9/"] {
        assert_eq!(sandbox.settings(&json!({ "webhook_url": url })).await["webhook_url"], url);
    }
    assert_eq!(sandbox.settings(&json!({})).await["webhook_url"], "http://127.0.0.2:9/");
    // A reset keeps the settings.
    sandbox.control(Method::POST, "/__sandbox/reset", None).await;
    assert_eq!(
        sandbox.control(Method::GET, "/__sandbox/settings", None).await.json["data"]["webhook_url"],
        "http://127.0.0.2:9/"
    );
}

#[tokio::test]
async fn b173_slow_confirmation_applies_to_later_charges() {
    let sandbox = Sandbox::start_with(100, None);
    sandbox.charge(&charge_body("slow-before", "+233244120000", &[])).await;
    assert_eq!(sandbox.settings(&json!({ "confirm_after_ms": 1500 })).await["confirm_after_ms"], 1500);
    let charged_at = Instant::now();
    sandbox.charge(&charge_body("slow-after", "+233244120000", &[])).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(sandbox.status_of("slow-before").await, "successful");
    assert_eq!(sandbox.status_of("slow-after").await, "pending");
    sandbox.statuses_until_final("slow-after", "successful").await;
    assert!(charged_at.elapsed() >= Duration::from_millis(1500));
}

// ---------------------------------------------------------------------------------------------
// Repeated deliveries
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn b173_repeated_deliveries_arrive_n_times() {
    let (receiver_url, mut deliveries) = start_receiver().await;
    let sandbox = Sandbox::start_with(50, Some(&format!("{receiver_url}/hook")));
    assert_eq!(sandbox.settings(&json!({ "webhook_repeat": 3 })).await["webhook_repeat"], 3);
    sandbox.charge(&charge_body("rep-3", "+233244120000", &[])).await;
    for _ in 0..3 {
        assert_eq!(next_delivery(&mut deliveries).await.2, success_body("rep-3"));
    }
    assert_no_more(&mut deliveries, Duration::from_millis(300)).await;
    let log = wait_for_webhook_log(&sandbox, 3).await;
    assert_eq!(
        delivered_by_reference(&log),
        json!([
            { "reference": "rep-3", "delivered": true },
            { "reference": "rep-3", "delivered": true },
            { "reference": "rep-3", "delivered": true },
        ])
    );

    // 0: the notification never comes.
    sandbox.settings(&json!({ "webhook_repeat": 0 })).await;
    sandbox.charge(&charge_body("rep-0", "+233244120000", &[])).await;
    sandbox.statuses_until_final("rep-0", "successful").await;
    assert_no_more(&mut deliveries, Duration::from_millis(300)).await;
}

#[tokio::test]
async fn b173_webhook_repeat_flag_sets_the_default() {
    let (receiver_url, mut deliveries) = start_receiver().await;
    let sandbox = Sandbox::start_with_args(50, Some(&format!("{receiver_url}/hook")), &["--webhook-repeat", "2"]);
    assert_eq!(sandbox.control(Method::GET, "/__sandbox/settings", None).await.json["data"]["webhook_repeat"], 2);
    sandbox.charge(&charge_body("flag-2", "+233244124444", &[])).await;
    for _ in 0..2 {
        assert_eq!(next_delivery(&mut deliveries).await.2, success_body("flag-2"));
    }
    // Reversal sends nothing more.
    sandbox.statuses_until_final("flag-2", "reversed").await;
    assert_no_more(&mut deliveries, Duration::from_millis(200)).await;
}

#[test]
fn b173_webhook_repeat_flag_is_range_checked() {
    for bad in ["101", "-1", "x"] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_sika-sandbox"))
            .args(["--port", "0", "--secret-key", KEY, "--webhook-repeat", bad])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run sika-sandbox");
        assert_eq!(output.status.code(), Some(2), "{bad}");
        assert!(output.stdout.is_empty(), "{bad}: nothing may be announced");
    }
}

// ---------------------------------------------------------------------------------------------
// Forced notifications
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn b173_forced_webhook_for_a_failed_transaction_is_delivered() {
    let (receiver_url, mut deliveries) = start_receiver().await;
    let hook = format!("{receiver_url}/hook");
    let sandbox = Sandbox::start_with(50, Some(&hook));
    sandbox.charge(&charge_body("forced-1", "+233244121111", &[])).await;
    sandbox.statuses_until_final("forced-1", "failed").await;
    assert_no_more(&mut deliveries, Duration::from_millis(100)).await;

    let sent = sandbox.control(Method::POST, "/__sandbox/webhooks/send", Some(r#"{"reference":"forced-1"}"#)).await;
    assert_eq!(sent.status, 200, "{}", sent.body);
    assert_eq!(sent.json["message"], "Webhook sent");
    let expected_attempt = json!({
        "reference": "forced-1", "delivered": true, "event": "charge.success",
        "url": hook, "http_status": 200, "error": null, "delivery_id": 1, "attempt": 1
    });
    assert_eq!(without_times(&sent.json["data"]), json!([expected_attempt]));
    let (path, _, body) = next_delivery(&mut deliveries).await;
    assert_eq!((path.as_str(), body), ("/hook", success_body("forced-1")));
    assert_eq!(without_times(&sandbox.webhooks().await), json!([expected_attempt]));
    // The transaction is untouched.
    assert_eq!(sandbox.status_of("forced-1").await, "failed");
}

#[tokio::test]
async fn b173_forced_webhooks_options() {
    let (receiver_url, mut deliveries) = start_receiver().await;
    let sandbox = Sandbox::start();
    let send = |body: Value| {
        let sandbox = &sandbox;
        async move { sandbox.control(Method::POST, "/__sandbox/webhooks/send", Some(&body.to_string())).await }
    };

    // No URL configured and none given.
    assert_error(&send(json!({ "reference": "x" })).await, 400, "No webhook URL configured");

    // A transaction that does not exist, another event, several times, to a URL given here.
    let sent = send(json!({
        "reference": "never-charged", "event": "charge.failed", "times": 2, "url": format!("{receiver_url}/other")
    }))
    .await;
    assert_eq!(sent.status, 200, "{}", sent.body);
    assert_eq!(sent.json["data"].as_array().map(Vec::len), Some(2));
    for _ in 0..2 {
        let (path, _, body) = next_delivery(&mut deliveries).await;
        assert_eq!(path, "/other");
        assert_eq!(body, r#"{"event":"charge.failed","data":{"reference":"never-charged"}}"#);
    }

    // A raw body, sent exactly; a receiver that answers 500 is recorded as such.
    let sent = send(json!({ "body": "{\"event\":", "url": format!("{receiver_url}/fail") })).await;
    assert_eq!(sent.status, 200, "{}", sent.body);
    assert_eq!(
        without_times(&sent.json["data"]),
        json!([{
            "reference": null, "delivered": false, "event": "charge.success",
            "url": format!("{receiver_url}/fail"), "http_status": 500,
            "error": "the receiver answered HTTP 500", "delivery_id": 3, "attempt": 1
        }])
    );
    assert_eq!(next_delivery(&mut deliveries).await.2, "{\"event\":");

    // Nobody listening: recorded with no HTTP status.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let closed_url = format!("http://{}/hook", closed.local_addr().expect("addr"));
    drop(closed);
    let sent = send(json!({ "reference": "r", "url": closed_url })).await;
    assert_eq!(sent.json["data"][0]["delivered"], false);
    assert_eq!(sent.json["data"][0]["http_status"], Value::Null);
    assert!(sent.json["data"][0]["error"].as_str().is_some_and(|e| !e.is_empty()));

    assert_eq!(sandbox.webhooks().await.as_array().map(Vec::len), Some(4));

    for (body, message) in [
        (
            json!({ "reference": "r", "url": "http://example.com/hook" }),
            "Invalid url: the host must be a loopback address",
        ),
        (json!({ "url": format!("{receiver_url}/hook") }), "reference must be a string"),
        (json!({ "reference": 5, "url": format!("{receiver_url}/hook") }), "reference must be a string"),
        (
            json!({ "reference": "r", "times": 0, "url": format!("{receiver_url}/hook") }),
            "times must be an integer from 1 to 100",
        ),
        (
            json!({ "reference": "r", "times": 101, "url": format!("{receiver_url}/hook") }),
            "times must be an integer from 1 to 100",
        ),
        (json!({ "reference": "r", "extra": 1 }), r#"Unknown field \"extra\""#),
    ] {
        assert_error(&send(body).await, 400, message);
    }
    assert!(deliveries.try_recv().is_err(), "a refused request sends nothing");
}

//! B185: Rust's `tracing` spans (issue 30, ADR 0060). A call is a span `sika.<operation>` in the
//! caller's current span, each HTTP attempt a child span `sika.attempt` with `otel.name`
//! `GET /transaction/verify/{reference}` and OpenTelemetry's stable HTTP client attributes; a
//! failed call names its error and request id; no key, phone number or e-mail in any field.

mod support;

use std::collections::BTreeMap;

use serde_json::json;
use sika_core::SikaError;
use support::spans::{Recorder, Seen};
use support::{KEY, Sandbox, charge, transaction_object};
use tracing::info_span;

fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned())).collect()
}

#[test]
fn b185_a_call_retried_twice_is_a_span_with_three_attempt_spans_in_the_callers_span() {
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("B185-1", "successful", "100.10"));
    sandbox.fault("/transaction/verify", "status", 2, json!({ "status": 503 }));
    let (recorder, _guard) = Recorder::install();
    let mut config = sandbox.config();
    config.max_retries = 3;
    let client = sika_core::Client::new(config).expect("client");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let request = info_span!("POST /orders/pay");
    let transaction = runtime.block_on(tracing::Instrument::instrument(client.verify_transaction("B185-1"), request));
    assert_eq!(transaction.expect("verified").tx_ref, "B185-1");

    let spans = recorder.spans();
    let parent = spans.iter().find(|s| s.name == "POST /orders/pay").expect("the caller's span");
    let call = spans.iter().find(|s| s.name == "sika.verify_transaction").expect("the call's span");
    assert_eq!(call.parent, Some(parent.id));
    assert_eq!(call.fields, fields(&[("sika.operation", "verify_transaction"), ("sika.reference", "B185-1")]));
    let attempts: Vec<&Seen> = spans.iter().filter(|s| s.name == "sika.attempt").collect();
    assert_eq!(attempts.len(), 3);
    let ids: Vec<String> =
        sandbox.requests().iter().map(|r| r["request_id"].as_str().expect("id").to_owned()).collect();
    let port = url::Url::parse(&sandbox.url).expect("url").port().expect("port").to_string();
    for (n, attempt) in attempts.iter().enumerate() {
        assert_eq!(attempt.parent, Some(call.id));
        let mut expected = fields(&[
            ("otel.name", "GET /transaction/verify/{reference}"),
            ("otel.kind", "client"),
            ("http.request.method", "GET"),
            ("server.address", "127.0.0.1"),
            ("server.port", &port),
            ("url.template", "/transaction/verify/{reference}"),
            ("sika.request_id", &ids[n]),
        ]);
        let (status, resend) = (if n < 2 { "503" } else { "200" }, n.to_string());
        expected.insert("http.response.status_code".into(), status.into());
        if n < 2 {
            expected.insert("error.type".into(), "503".into());
        }
        if n > 0 {
            expected.insert("http.request.resend_count".into(), resend);
        }
        assert_eq!(attempt.fields, expected, "attempt {n}");
    }
}

#[test]
fn b185_a_failed_call_names_its_error_and_request_id_and_no_secret_is_a_field() {
    let sandbox = Sandbox::start();
    let (recorder, _guard) = Recorder::install();
    let client = sandbox.blocking_client();
    let error = client.verify_transaction("B185-MISSING").expect_err("not found");
    assert!(matches!(error, SikaError::TransactionNotFound { .. }), "{error:?}");
    let spans = recorder.spans();
    let call = spans.iter().find(|s| s.name == "sika.verify_transaction").expect("the call's span");
    assert_eq!(call.fields["error.type"], "TransactionNotFound");
    assert_eq!(Some(call.fields["sika.request_id"].as_str()), error.request_id());

    let request = charge("B185-CHARGE", "+233244125678");
    client.initiate_charge(&request).expect("charged");
    let text = format!("{:?}", recorder.spans());
    assert!(text.contains("sika.initiate_charge") && text.contains("/charge"), "{text}");
    for secret in [KEY, request.phone_number.as_str(), "244125678", request.email.as_str()] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
}

/// B187: a Rust service's own W3C context (`with_trace_context`) reaches the service with every
/// request of the calls made inside it, and only those; a malformed one is not sent.
#[test]
fn b187_a_rust_callers_trace_context_is_sent_with_the_calls_inside_it() {
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("B187-1", "successful", "100.10"));
    sandbox.fault("/transaction/verify", "status", 1, json!({ "status": 503 }));
    let client = sika_core::Client::new(sandbox.config()).expect("client");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    runtime.block_on(async {
        sika_core::with_trace_context(parent, Some("shop=1"), async {
            client.verify_transaction("B187-1").await.expect("verified");
        })
        .await;
        client.verify_transaction("B187-1").await.expect("verified");
        sika_core::with_trace_context("00-not-a-context\r\nx: 1", Some("shop=1"), client.verify_transaction("B187-1"))
            .await
            .expect("verified");
    });
    let sent: Vec<(serde_json::Value, serde_json::Value)> =
        sandbox.requests().iter().map(|r| (r["traceparent"].clone(), r["tracestate"].clone())).collect();
    let with = (json!(parent), json!("shop=1"));
    let without = (serde_json::Value::Null, serde_json::Value::Null);
    assert_eq!(sent, vec![with.clone(), with, without.clone(), without]);
}

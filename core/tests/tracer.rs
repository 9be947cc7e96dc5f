//! B208: the host's tracer (issue 30, ADR 0058) sees each call of the exported clients start
//! and end on the host's own thread, every attempt of the call carries the W3C context it
//! answered with, and the call's end hands over each attempt with the HTTP client attributes.
//! One process-wide tracer (nextest runs each test in its own process).
#![cfg(feature = "uniffi")]

mod support;

use std::sync::{Arc, Mutex, PoisonError};
use std::thread::ThreadId;
use std::time::Duration;

use serde_json::{Value, json};
use sika_core::ffi::{
    BlockingClient, CallEnd, CallStart, Client, ClientConfig, TracedCall, Tracer, set_tracer, take_ended_call,
    trace_next_call,
};
use sika_core::{SecretKey, SikaError};
use support::{KEY, Sandbox, transaction_object};

const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// What the tracer answers `call_started` with.
#[derive(Clone)]
enum Answer {
    Traced { traceparent: &'static str, tracestate: Option<&'static str> },
    NotTraced,
}

#[derive(Default)]
struct Seen {
    started: Vec<(CallStart, ThreadId)>,
    ended: Vec<(CallEnd, ThreadId)>,
}

#[derive(Clone)]
struct Recording {
    seen: Arc<Mutex<Seen>>,
    answer: Arc<Mutex<Answer>>,
}

impl Recording {
    fn install(answer: Answer) -> Self {
        let recording = Self { seen: Arc::default(), answer: Arc::new(Mutex::new(answer)) };
        assert!(set_tracer(Box::new(recording.clone())), "the first tracer");
        recording
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Tracer for Recording {
    fn call_started(&self, call: CallStart) -> Option<TracedCall> {
        let mut seen = self.seen();
        seen.started.push((call, std::thread::current().id()));
        let id = i64::try_from(seen.started.len()).expect("count");
        match self.answer.lock().unwrap_or_else(PoisonError::into_inner).clone() {
            Answer::Traced { traceparent, tracestate } => {
                Some(TracedCall { id, traceparent: traceparent.into(), tracestate: tracestate.map(Into::into) })
            }
            Answer::NotTraced => None,
        }
    }

    fn call_ended(&self, end: CallEnd) {
        self.seen().ended.push((end, std::thread::current().id()));
    }
}

fn config(sandbox: &Sandbox) -> ClientConfig {
    ClientConfig {
        secret_key: Arc::new(SecretKey::from(KEY)),
        base_url: sandbox.url.clone(),
        timeout_ms: Some(10_000),
        connect_timeout_ms: None,
        max_retries: Some(3),
        bank_cache_ttl_seconds: None,
        user_agent_suffix: None,
        proxy: None,
        not_found_grace_ms: Some(0),
        max_connections_per_host: None,
        pool_idle_timeout_ms: None,
    }
}

/// The trace context of each request the sandbox received.
fn contexts(sandbox: &Sandbox) -> Vec<(Value, Value)> {
    sandbox.requests().iter().map(|r| (r["traceparent"].clone(), r["tracestate"].clone())).collect()
}

#[test]
fn b208_an_async_call_retried_twice_is_one_traced_call_with_three_attempts() {
    let tracer = Recording::install(Answer::Traced { traceparent: PARENT, tracestate: Some("sika=test") });
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("B208-1", "successful", "100.10"));
    sandbox.fault("/transaction/verify", "status", 2, json!({ "status": 503 }));
    let client = Client::new(config(&sandbox)).expect("client");
    let caller = std::thread::current().id();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let transaction = runtime.block_on(client.verify_transaction("B208-1".into())).expect("verified");
    assert_eq!(transaction.tx_ref, "B208-1");

    // Every attempt carried the host's context.
    let sent = (json!(PARENT), json!("sika=test"));
    assert_eq!(contexts(&sandbox), vec![sent.clone(), sent.clone(), sent]);
    let seen = tracer.seen();
    let (start, started_on) = &seen.started[0];
    assert_eq!(start.operation, "verify_transaction");
    assert_eq!(start.reference.as_deref(), Some("B208-1"));
    assert_eq!(start.server_address, "127.0.0.1");
    assert_eq!(Some(start.server_port), url::Url::parse(&sandbox.url).expect("url").port().map(i32::from));
    let (end, ended_on) = &seen.ended[0];
    // Both on the host's thread (the one polling the call), never the SDK's runtime threads.
    assert_eq!((*started_on, *ended_on), (caller, caller));
    assert_eq!((end.id, end.error_type.as_deref(), end.request_id.as_deref()), (1, None, None));
    let attempts: Vec<_> = end
        .attempts
        .iter()
        .map(|a| (a.method.as_str(), a.url_template.as_str(), a.resend_count, a.status_code, a.error_type.as_deref()))
        .collect();
    let template = "/transaction/verify/{reference}";
    assert_eq!(
        attempts,
        [
            ("GET", template, 0, Some(503), Some("503")),
            ("GET", template, 1, Some(503), Some("503")),
            ("GET", template, 2, Some(200), None),
        ]
    );
    let ids: Vec<Value> = sandbox.requests().iter().map(|r| r["request_id"].clone()).collect();
    let recorded: Vec<Value> = end.attempts.iter().map(|a| json!(a.request_id)).collect();
    assert_eq!(recorded, ids, "each attempt's own request id");
    for attempt in &end.attempts {
        assert!(attempt.started_at_unix_nanos <= attempt.ended_at_unix_nanos, "{attempt:?}");
    }
    assert!(end.attempts.windows(2).all(|w| w[0].ended_at_unix_nanos <= w[1].started_at_unix_nanos));
}

#[test]
fn b208_a_blocking_call_is_traced_on_its_callers_thread_with_its_error() {
    let tracer = Recording::install(Answer::Traced { traceparent: PARENT, tracestate: None });
    let sandbox = Sandbox::start();
    let client = Arc::new(BlockingClient::new(config(&sandbox)).expect("client"));
    let worker = std::thread::spawn({
        let client = Arc::clone(&client);
        move || (std::thread::current().id(), client.verify_transaction("B208-MISSING".into()))
    });
    let (caller, outcome) = worker.join().expect("no panic");
    let error = outcome.expect_err("not found");
    assert!(matches!(error, SikaError::TransactionNotFound { .. }), "{error:?}");
    assert_eq!(contexts(&sandbox), vec![(json!(PARENT), Value::Null)]);
    let seen = tracer.seen();
    assert_eq!((seen.started[0].1, seen.ended[0].1), (caller, caller));
    let end = &seen.ended[0].0;
    assert_eq!(end.error_type.as_deref(), Some("TransactionNotFound"));
    assert_eq!(end.request_id.as_deref(), error.request_id());
    assert_eq!(end.attempts[0].status_code, Some(404));
    assert_eq!(end.attempts[0].error_type.as_deref(), Some("404"));
}

#[test]
fn b208_a_cancelled_call_ends_as_cancelled_where_it_is_dropped() {
    let tracer = Recording::install(Answer::Traced { traceparent: PARENT, tracestate: None });
    let sandbox = Sandbox::start();
    sandbox.fault("/transaction/verify", "hang", 1, json!({}));
    let client = Client::new(config(&sandbox)).expect("client");
    let caller = std::thread::current().id();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let outcome = runtime.block_on(async {
        tokio::time::timeout(Duration::from_millis(500), client.verify_transaction("B208-HANG".into())).await
    });
    assert!(outcome.is_err(), "the hang outlived the timeout");
    let seen = tracer.seen();
    assert_eq!(seen.ended.len(), 1);
    let (end, ended_on) = &seen.ended[0];
    assert_eq!((end.error_type.as_deref(), *ended_on), (Some("Cancelled"), caller));
}

#[test]
fn b208_an_untraced_call_and_a_context_the_service_could_not_read_send_nothing() {
    let tracer = Recording::install(Answer::NotTraced);
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("B208-2", "successful", "100.10"));
    let client = BlockingClient::new(config(&sandbox)).expect("client");
    client.verify_transaction("B208-2".into()).expect("verified");
    assert_eq!(contexts(&sandbox), vec![(Value::Null, Value::Null)]);
    assert!(tracer.seen().ended.is_empty(), "nothing to end: the host did not trace it");
    // A header the host should never have given: not sent, and the call's span still ends.
    let injected = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\nx-injected: 1";
    *tracer.answer.lock().unwrap_or_else(PoisonError::into_inner) =
        Answer::Traced { traceparent: injected, tracestate: Some("ok=1") };
    sandbox.clear_requests();
    client.verify_transaction("B208-2".into()).expect("verified");
    assert_eq!(contexts(&sandbox), vec![(Value::Null, Value::Null)]);
    assert_eq!(tracer.seen().ended.len(), 1);
}

/// B184: a host that traces its calls itself (Python, ADR 0059) is never called back: the call
/// it names with `trace_next_call` sends its context, the next call on the thread is untraced,
/// and the call's start and end wait for `take_ended_call`, also when it was cancelled.
#[test]
fn b184_a_call_the_host_traces_itself_is_kept_for_it_with_no_callback() {
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("B184-1", "successful", "100.10"));
    sandbox.fault("/transaction/verify", "status", 1, json!({ "status": 503 }));
    let client = Arc::new(BlockingClient::new(config(&sandbox)).expect("client"));
    let traced = |id| TracedCall { id, traceparent: PARENT.into(), tracestate: Some("sika=own".into()) };
    trace_next_call(Some(traced(7)));
    // Another thread's call does not take this thread's span.
    let other = std::thread::spawn({
        let client = Arc::clone(&client);
        move || client.verify_transaction("B184-1".into()).map(|_| ())
    });
    other.join().expect("no panic").expect("verified");
    assert_eq!(contexts(&sandbox), vec![(Value::Null, Value::Null); 2]);
    sandbox.clear_requests();
    assert_eq!(take_ended_call(7), None, "not started yet");
    client.verify_transaction("B184-1".into()).expect("verified");
    client.verify_transaction("B184-1".into()).expect("verified");
    let sent = (json!(PARENT), json!("sika=own"));
    assert_eq!(contexts(&sandbox), vec![sent, (Value::Null, Value::Null)], "the next call only");
    let ended = take_ended_call(7).expect("kept");
    assert_eq!(
        (ended.call.operation.as_str(), ended.call.reference.as_deref()),
        ("verify_transaction", Some("B184-1"))
    );
    assert_eq!((ended.end.id, ended.end.error_type.as_deref(), ended.end.attempts.len()), (7, None, 1));
    assert_eq!(take_ended_call(7), None, "taken once");
    assert_eq!(ended.end.decision, None, "a verification is no decision");
    // A decision's kind is in its end.
    trace_next_call(Some(traced(10)));
    let expected = sika_core::ExpectedPayment { amount: "100.10".parse().expect("amount"), currency: "GHS".into() };
    client.confirm_payment("B184-1".into(), expected).expect("checked");
    assert_eq!(take_ended_call(10).expect("kept").end.decision.as_deref(), Some("confirmed"));

    // An async call's span is taken at its first poll; a cancelled call's end is kept too.
    sandbox.fault("/transaction/verify", "hang", 1, json!({}));
    let client = Client::new(config(&sandbox)).expect("client");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    trace_next_call(Some(traced(8)));
    let outcome = runtime.block_on(async {
        tokio::time::timeout(Duration::from_millis(500), client.verify_transaction("B184-1".into())).await
    });
    assert!(outcome.is_err(), "the hang outlived the timeout");
    let ended = take_ended_call(8).expect("kept");
    assert_eq!(ended.end.error_type.as_deref(), Some("Cancelled"));

    // A span no call took is forgotten.
    trace_next_call(Some(traced(9)));
    trace_next_call(None);
    client_call(&runtime, &client);
    assert_eq!(take_ended_call(9), None);
}

fn client_call(runtime: &tokio::runtime::Runtime, client: &Client) {
    runtime.block_on(client.verify_transaction("B184-1".into())).expect("verified");
}

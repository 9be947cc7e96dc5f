//! B41: the core's records reach a host's sink through the process's bridge, at the level the
//! host sets and changes, with nothing built while the host wants nothing. One test: the
//! bridge is the process's one logger.
#![cfg(feature = "uniffi")]

mod support;

use std::sync::{Arc, Mutex};

use log::LevelFilter;
use serde_json::json;
use sika_core::ffi::{
    LogLevel, LogRecord, LogSink, enable_logging, flush_log_records, set_log_sink, set_log_sink_level,
};
use sika_core::{Amount, ChargeRequest};
use support::{Sandbox, transaction_object};

/// A host's sink that keeps what it receives.
#[derive(Clone, Default)]
struct Recording(Arc<Mutex<Vec<LogRecord>>>);

impl Recording {
    /// What the sink received, once every record logged so far has been delivered (records
    /// reach the sink on the SDK's logging thread, ADR 0044).
    fn taken(&self) -> Vec<LogRecord> {
        flush_log_records(10_000);
        std::mem::take(&mut *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

impl LogSink for Recording {
    fn log(&self, record: LogRecord) {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(record);
    }

    /// WARN when installed; the test then changes the level with `set_log_sink_level` (these
    /// calls go to the core's client, not the FFI's, so the core never asks again).
    fn level(&self) -> Option<LogLevel> {
        Some(LogLevel::Warn)
    }
}

fn with_level(records: &[LogRecord], level: LogLevel) -> Vec<&LogRecord> {
    records.iter().filter(|record| record.level == level).collect()
}

#[test]
fn b41_the_hosts_sink_follows_its_level_and_never_sees_the_key_or_a_phone_number() {
    assert_eq!(log::max_level(), LevelFilter::Off, "nothing is logged before a host asks");
    let sink = Recording::default();
    assert!(set_log_sink(Box::new(sink.clone())));
    assert!(!set_log_sink(Box::new(Recording::default())), "the first sink stays");
    assert_eq!(log::max_level(), LevelFilter::Warn, "log's macros filter at the host's level");

    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("LOG-B41", "successful", "5"));
    let client = sandbox.blocking_client();

    // A retried read: one WARNING from the transport, and no per-request DEBUG line.
    sandbox.fault("/transaction/verify", "status", 1, json!({ "status": 503 }));
    client.verify_transaction("LOG-B41").expect("the retry succeeds");
    let records = sink.taken();
    let warnings = with_level(&records, LogLevel::Warn);
    assert_eq!(warnings.len(), 1, "{records:?}");
    assert_eq!(warnings[0].target, "sika.transport");
    assert!(warnings[0].message.contains("GET /transaction/verify/LOG-B41 failed (HTTP 503); retry 1"), "{records:?}");
    assert!(with_level(&records, LogLevel::Debug).is_empty(), "{records:?}");
    // B85: the same facts as fields of their own.
    assert_eq!(
        (
            warnings[0].operation.as_deref(),
            warnings[0].reference.as_deref(),
            warnings[0].http_status,
            warnings[0].attempt
        ),
        (Some("verify_transaction"), Some("LOG-B41"), Some(503), Some(1)),
        "{records:?}"
    );
    // B207: the retry's record names the failed attempt's id, the first the sandbox received.
    let first = sandbox.requests().first().and_then(|r| r["request_id"].as_str().map(str::to_owned));
    assert!(first.as_deref().is_some_and(|id| id.starts_with("sika_") && id.ends_with("_1")), "{first:?}");
    assert_eq!(warnings[0].request_id, first, "{records:?}");

    // DEBUG at runtime: one line per request, and the charge's INFO line with the phone masked.
    set_log_sink_level(Some(LogLevel::Debug));
    assert_eq!(log::max_level(), LevelFilter::Debug);
    client.verify_transaction("LOG-B41").expect("verify");
    client
        .initiate_charge(&ChargeRequest {
            amount: "12.50".parse::<Amount>().expect("amount"),
            email: "ama@example.com".into(),
            phone_number: "+233244129876".into(),
            reference: "LOG-B41-CHARGE".into(),
            currency: "GHS".into(),
            provider: "MTN".into(),
            callback_url: None,
        })
        .expect("charge");
    let records = sink.taken();
    let debug: Vec<_> = with_level(&records, LogLevel::Debug).iter().map(|r| r.message.as_str()).collect();
    assert!(debug.iter().any(|m| m.starts_with("GET /transaction/verify/LOG-B41 -> HTTP 200 in ")), "{records:?}");
    assert!(debug.iter().any(|m| m.starts_with("POST /charge -> HTTP 200 in ")), "{records:?}");
    let verify = with_level(&records, LogLevel::Debug)
        .into_iter()
        .find(|r| r.message.starts_with("GET /transaction/verify/LOG-B41"))
        .expect("the request line");
    assert_eq!(
        (verify.operation.as_deref(), verify.reference.as_deref(), verify.http_status, verify.attempt),
        (Some("verify_transaction"), Some("LOG-B41"), Some(200), Some(1)),
        "{verify:?}"
    );
    assert!(verify.duration_ms.is_some_and(|ms| verify.message.ends_with(&format!(" in {ms} ms"))), "{verify:?}");
    // B207: the record names the request id the service received, as a field of its own.
    let received: Vec<String> =
        sandbox.requests().iter().filter_map(|r| r["request_id"].as_str().map(str::to_owned)).collect();
    assert!(
        verify.request_id.as_ref().is_some_and(|id| id.starts_with("sika_") && received.contains(id)),
        "{verify:?} {received:?}"
    );
    let info = with_level(&records, LogLevel::Info);
    assert_eq!(info.len(), 1, "{records:?}");
    assert_eq!(info[0].target, "sika.client");
    assert_eq!(info[0].message, "charge LOG-B41-CHARGE: 12.50 GHS to +233*******76 via MTN");
    assert_eq!(
        (info[0].operation.as_deref(), info[0].reference.as_deref()),
        (Some("initiate_charge"), Some("LOG-B41-CHARGE"))
    );
    let all = format!("{records:?}");
    assert!(!all.contains(support::KEY), "the key reached the sink: {all}");
    assert!(!all.contains("Bearer"), "an authorization header reached the sink: {all}");
    assert!(!all.contains("244129876"), "a full phone number reached the sink: {all}");

    // Back to nothing: log's own filter is off again, so no record is even built.
    set_log_sink_level(None);
    assert_eq!(log::max_level(), LevelFilter::Off);
    sandbox.fault("/transaction/verify", "status", 1, json!({ "status": 503 }));
    client.verify_transaction("LOG-B41").expect("the retry succeeds");
    assert_eq!(sink.taken(), []);

    // The console is a second output with its own level: it does not turn the sink on.
    enable_logging(LogLevel::Info);
    assert_eq!(log::max_level(), LevelFilter::Info);
    client.verify_transaction("LOG-B41").expect("verify");
    assert_eq!(sink.taken(), []);
    enable_logging(LogLevel::Error);
    assert_eq!(log::max_level(), LevelFilter::Error, "the console's level changes too");
}

//! The host's tracer (issue 30, ADR 0058): one span per client call, started and ended by the
//! host, with the call's HTTP attempts handed over at its end (`crate::trace`).
//!
//! Both callbacks run on the host's own thread: `call_started` where the call starts (its first
//! poll, or a blocking call's caller), so the host sees its current context (a Python
//! `contextvars` context, a JVM thread's, a Swift task's) and makes the call's span its child;
//! `call_ended` where the call's result is taken, or where a cancelled call is dropped. The
//! call's requests carry the W3C context the host answers with.
//!
//! No tracer installed: one atomic load per call, nothing sent, nothing recorded.

use std::sync::{Arc, OnceLock};

use super::runtime;
use crate::error::{Result, SikaError};
use crate::trace::{self, AttemptSpan, CallTrace};

/// A call as it starts: the span's name is `sika.<operation>`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct CallStart {
    /// The client method (`verify_transaction`, `initiate_charge`, ...).
    pub operation: String,
    /// The order's reference, when the call names one (`sika.reference`).
    pub reference: Option<String>,
    /// `server.address`: the service's host.
    pub server_address: String,
    /// `server.port`: the service's port.
    pub server_port: i32,
}

/// The host's span for a call: its id (given back in `CallEnd`) and its W3C trace context,
/// which every request of the call carries (`traceparent`, `tracestate`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct TracedCall {
    /// The host's id of the span, given back in `CallEnd`.
    pub id: i64,
    /// `00-<trace id>-<span id>-<flags>`; anything else is not sent.
    pub traceparent: String,
    /// The host's `tracestate`, sent with the `traceparent`.
    pub tracestate: Option<String>,
}

/// A call as it ends: its attempts (each to be recorded as a child span, with its own times),
/// and its error's kind and request id when it failed (`Cancelled` when it was cancelled).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct CallEnd {
    /// The `TracedCall.id` the host gave.
    pub id: i64,
    /// `error.type`: the error's kind (`Timeout`, `ChargeOutcomeUnknown`, ...); none on success.
    pub error_type: Option<String>,
    /// The request id of the call's error, to quote to support.
    pub request_id: Option<String>,
    /// The call's HTTP attempts, in the order they ended.
    pub attempts: Vec<AttemptSpan>,
}

/// The host's tracer: Python's OpenTelemetry bridge (`sika[otel]`), the JVM's, or a Swift
/// app's own. Its methods must not throw: a tracer that fails must return none.
#[uniffi::export(callback_interface)]
pub trait Tracer: Send + Sync {
    /// A call starts, on the caller's thread: start its span as a child of the host's current
    /// context and answer with its id and context; none: the call is not traced.
    fn call_started(&self, call: CallStart) -> Option<TracedCall>;
    /// The call `end.id` ended: record its attempts and end its span.
    fn call_ended(&self, end: CallEnd);
}

static TRACER: OnceLock<Box<dyn Tracer>> = OnceLock::new();

/// Installs the host's tracer for the rest of the process. Returns false when one was already
/// installed: the first one stays.
#[uniffi::export]
pub fn set_tracer(tracer: Box<dyn Tracer>) -> bool {
    TRACER.set(tracer).is_ok()
}

/// A call the host traces, until it ends.
pub(crate) struct Traced {
    id: i64,
    trace: Arc<CallTrace>,
    ended: bool,
}

/// Asks the host's tracer, if there is one, to start `operation`'s span (on the caller's thread).
pub(crate) fn start(operation: &str, reference: Option<&str>, base_url: &reqwest::Url) -> Option<Traced> {
    let tracer = TRACER.get()?;
    let call = CallStart {
        operation: operation.to_owned(),
        reference: reference.map(str::to_owned),
        server_address: base_url.host_str().unwrap_or_default().to_owned(),
        server_port: base_url.port_or_known_default().map_or(0, i32::from),
    };
    let traced = tracer.call_started(call)?;
    // A context the service could not read is not sent; the span is still ended.
    let traceparent = is_traceparent(&traced.traceparent).then_some(traced.traceparent);
    let tracestate = traced.tracestate.filter(|state| is_tracestate(state));
    Some(Traced { id: traced.id, trace: CallTrace::new(traceparent, tracestate), ended: false })
}

impl Traced {
    pub(crate) fn trace(&self) -> Arc<CallTrace> {
        Arc::clone(&self.trace)
    }

    /// Hands the call's end to the host (where the result is taken).
    pub(crate) fn end<T>(mut self, result: &Result<T>) {
        self.finish(result.as_ref().err());
    }

    fn finish(&mut self, error: Option<&SikaError>) {
        self.ended = true;
        // An exiting Python host can no longer take callbacks (ADR 0013).
        let Some(tracer) = TRACER.get().filter(|_| !runtime::host_is_exiting()) else { return };
        tracer.call_ended(CallEnd {
            id: self.id,
            error_type: error.map(|error| trace::error_kind(error).to_owned()),
            request_id: error.and_then(SikaError::request_id).map(str::to_owned),
            attempts: self.trace.take_attempts(),
        });
    }
}

impl Drop for Traced {
    /// A call dropped before its end (the host cancelled it) ends as `Cancelled`.
    fn drop(&mut self) {
        if !self.ended {
            self.finish(Some(&SikaError::Cancelled));
        }
    }
}

/// W3C `traceparent`, version 00: `00-` 32 lowercase hex (not all zero) `-` 16 (not all zero)
/// `-` 2.
fn is_traceparent(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let hex = |part: &str, len: usize| {
        part.len() == len && part.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    matches!(parts.as_slice(), [version, trace, span, flags]
        if *version == "00" && hex(trace, 32) && hex(span, 16) && hex(flags, 2)
            && trace.bytes().any(|b| b != b'0') && span.bytes().any(|b| b != b'0'))
}

/// W3C `tracestate`: printable ASCII, at most 512 characters.
fn is_tracestate(text: &str) -> bool {
    !text.is_empty() && text.len() <= 512 && text.bytes().all(|b| (0x20..0x7f).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b208_only_a_w3c_traceparent_is_sent() {
        assert!(is_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
        for bad in [
            "",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\nx: y",
        ] {
            assert!(!is_traceparent(bad), "{bad:?}");
        }
        assert!(is_tracestate("vendor=abc,other=1"));
        assert!(!is_tracestate("a=\u{7f}") && !is_tracestate(&"a".repeat(513)) && !is_tracestate(""));
    }
}

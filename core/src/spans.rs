//! Rust's `tracing` spans (issue 30, ADR 0060): each client call is a span `sika.<operation>`
//! and each HTTP attempt a child span, with the names and attributes the hosts' OpenTelemetry
//! spans have (ADR 0058, 0059), so a Rust service's `tracing-opentelemetry` layer exports the
//! same trace as a Python or JVM one. An attempt's span is named `sika.attempt` (a `tracing`
//! span's name is fixed where it is written) and carries `otel.name`
//! (`GET /transaction/verify/{reference}`) and `otel.kind = "client"`, which that layer reads.
//! No key, phone number or e-mail is a field. With no subscriber interested, a span costs a
//! cached check and no field is computed.

use std::future::Future;

use tracing::{Instrument, Span};

use crate::error::{Result, SikaError};

/// A client call's span, `sika.<operation>`, in the current span.
macro_rules! call_span {
    ($operation:literal, $reference:expr) => {
        tracing::info_span!(
            target: "sika",
            concat!("sika.", $operation),
            sika.operation = $operation,
            sika.reference = $reference,
            error.type = tracing::field::Empty,
            sika.request_id = tracing::field::Empty,
        )
    };
}
pub(crate) use call_span;

/// Runs `call` in `span`, and records its error's kind and request id there.
pub(crate) async fn in_call_span<T>(span: Span, call: impl Future<Output = Result<T>>) -> Result<T> {
    let result = call.instrument(span.clone()).await;
    if let Err(error) = &result {
        record_error(&span, error);
    }
    result
}

/// `error.type` and `sika.request_id` of a span whose call or attempt failed.
pub(crate) fn record_error(span: &Span, error: &SikaError) {
    span.record("error.type", error.kind());
    if let Some(id) = error.request_id() {
        span.record("sika.request_id", id);
    }
}

/// A reference as a span shows it: only one the SDK would send (a hostile one, with control
/// characters or too long, is left out).
pub(crate) fn shown(reference: &str) -> Option<&str> {
    crate::validation::reference(reference).is_ok().then_some(reference)
}

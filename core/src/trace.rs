//! A call's trace (issue 30, ADR 0058): the W3C context its requests carry (`traceparent`,
//! `tracestate`), and each of its HTTP attempts, recorded for the host's tracer.
//!
//! The host's tracer (`ffi::tracer`) starts the call's span where the call starts and ends it
//! where the call's result is taken: on the host's own thread, inside its polls, never on the
//! SDK's runtime threads (in Python a callback from those makes a thread state each time, and a
//! fork could meet CPython's lock held while it does: ADR 0054). So the core records each
//! attempt here as it happens, and the host makes the attempts' spans once the call has ended,
//! with their own start and end times.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::SikaError;

/// One HTTP attempt of a call, as the host's tracer records it: a span named
/// `{method} {url_template}`, with OpenTelemetry's stable HTTP client attributes. No key, phone
/// number or e-mail: the path's reference is `{reference}` in the template.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AttemptSpan {
    /// `http.request.method`.
    pub method: String,
    /// `url.template`: the path, with `{reference}` for a reference.
    pub url_template: String,
    /// `http.request.resend_count`: 0 for the first attempt, 1 for the first retry.
    pub resend_count: i32,
    /// `http.response.status_code`, when an answer came.
    pub status_code: Option<i32>,
    /// `error.type`: the status code (`503`) of an answer of 400 or more, else the error's
    /// kind (`Timeout`, `Network`); none for a success.
    pub error_type: Option<String>,
    /// The `X-Request-Id` the attempt sent.
    pub request_id: String,
    /// When the attempt started, in nanoseconds since the Unix epoch.
    pub started_at_unix_nanos: i64,
    /// When the attempt ended, in nanoseconds since the Unix epoch.
    pub ended_at_unix_nanos: i64,
}

/// What a traced call sends with each attempt, and what it records of them.
#[derive(Debug)]
pub(crate) struct CallTrace {
    traceparent: Option<String>,
    tracestate: Option<String>,
    /// Kept for the host's tracer; none for a Rust caller's context (`with_trace_context`),
    /// whose attempts are `tracing` spans already and which may cover any number of calls.
    attempts: Option<Mutex<Vec<AttemptSpan>>>,
}

tokio::task_local! {
    static CURRENT: Arc<CallTrace>;
}

impl CallTrace {
    /// A call's trace with the host's W3C context: a `traceparent` the service could not read is
    /// not sent (nor its `tracestate`), and neither is a `tracestate` that is not printable ASCII.
    /// `keep_attempts`: whether its attempts are recorded for the host's tracer.
    pub(crate) fn checked(traceparent: String, tracestate: Option<String>, keep_attempts: bool) -> Arc<Self> {
        let traceparent = is_traceparent(&traceparent).then_some(traceparent);
        let tracestate = tracestate.filter(|state| is_tracestate(state));
        Arc::new(Self { traceparent, tracestate, attempts: keep_attempts.then(Mutex::default) })
    }

    /// Whether the call's attempts are recorded (`record`).
    pub(crate) fn keeps_attempts(&self) -> bool {
        self.attempts.is_some()
    }

    /// The W3C headers every attempt of the call sends (`tracestate` only with a
    /// `traceparent`).
    pub(crate) fn headers(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let parent = self.traceparent.as_deref();
        parent
            .map(|parent| ("traceparent", parent))
            .into_iter()
            .chain(parent.and(self.tracestate.as_deref()).map(|state| ("tracestate", state)))
    }

    pub(crate) fn record(&self, attempt: AttemptSpan) {
        if let Some(attempts) = &self.attempts {
            attempts.lock().unwrap_or_else(PoisonError::into_inner).push(attempt);
        }
    }

    /// The attempts recorded so far, in the order they ended.
    #[cfg(feature = "uniffi")]
    pub(crate) fn take_attempts(&self) -> Vec<AttemptSpan> {
        self.attempts
            .as_ref()
            .map(|attempts| std::mem::take(&mut *attempts.lock().unwrap_or_else(PoisonError::into_inner)))
            .unwrap_or_default()
    }
}

/// The trace of the call being run, if the host traces it: a call takes it when it starts
/// (`CallIds::new`), so a fetch it hands to another task keeps it.
pub(crate) fn current() -> Option<Arc<CallTrace>> {
    CURRENT.try_with(Arc::clone).ok()
}

/// Runs `call` so that the requests of the client calls it makes carry the W3C trace context
/// `traceparent` (and `tracestate`): a Rust service's current OpenTelemetry context, injected
/// with its propagator (`tracing-opentelemetry`'s `Span::context()`, say), so the service's side
/// joins the caller's trace (issue 30, ADR 0060). A `traceparent` that is not W3C's version 00
/// format, or a `tracestate` with anything but printable ASCII, is not sent. Async calls only:
/// a `BlockingClient` call runs on the client's own runtime.
pub async fn with_trace_context<T>(traceparent: &str, tracestate: Option<&str>, call: impl Future<Output = T>) -> T {
    CURRENT.scope(CallTrace::checked(traceparent.to_owned(), tracestate.map(str::to_owned), false), call).await
}

/// Runs `call` with `trace` as its current trace (none: untraced, as before).
#[cfg(feature = "uniffi")]
pub(crate) async fn scoped<T>(trace: Option<Arc<CallTrace>>, call: impl Future<Output = T>) -> T {
    match trace {
        Some(trace) => CURRENT.scope(trace, call).await,
        None => call.await,
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

/// Now, in nanoseconds since the Unix epoch (what OpenTelemetry's timestamps are).
pub(crate) fn unix_nanos() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// `error.type` of an attempt or a call that failed: the status code of an answer of 400 or
/// more, else the error's kind.
pub(crate) fn error_type(status: Option<i32>, error: Option<&SikaError>) -> Option<String> {
    match (status, error) {
        (Some(status), _) if status >= 400 => Some(status.to_string()),
        (_, Some(error)) => Some(error.kind().to_owned()),
        _ => None,
    }
}

/// The `url.template` of a path the SDK requests: the reference of a verify is `{reference}`.
pub(crate) fn url_template(path: &str) -> String {
    match path.rsplit_once("/transaction/verify/") {
        Some((prefix, _reference)) => format!("{prefix}/transaction/verify/{{reference}}"),
        None => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b208_the_url_template_hides_the_reference() {
        assert_eq!(url_template("/transaction/verify/ORDER%201"), "/transaction/verify/{reference}");
        assert_eq!(url_template("/api/transaction/verify/X"), "/api/transaction/verify/{reference}");
        assert_eq!(url_template("/charge"), "/charge");
    }

    #[test]
    fn b208_error_type_is_the_status_of_an_error_answer_else_the_kind() {
        assert_eq!(error_type(Some(503), None).as_deref(), Some("503"));
        assert_eq!(error_type(Some(200), None), None);
        assert_eq!(error_type(None, Some(&SikaError::Timeout { request_id: None })).as_deref(), Some("Timeout"));
    }

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

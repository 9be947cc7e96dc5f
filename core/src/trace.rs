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
    attempts: Mutex<Vec<AttemptSpan>>,
}

tokio::task_local! {
    static CURRENT: Arc<CallTrace>;
}

impl CallTrace {
    #[cfg(feature = "uniffi")]
    pub(crate) fn new(traceparent: Option<String>, tracestate: Option<String>) -> Arc<Self> {
        Arc::new(Self { traceparent, tracestate, attempts: Mutex::default() })
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
        self.attempts.lock().unwrap_or_else(PoisonError::into_inner).push(attempt);
    }

    /// The attempts recorded so far, in the order they ended.
    #[cfg(feature = "uniffi")]
    pub(crate) fn take_attempts(&self) -> Vec<AttemptSpan> {
        std::mem::take(&mut *self.attempts.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The trace of the call being run, if the host traces it: a call takes it when it starts
/// (`CallIds::new`), so a fetch it hands to another task keeps it.
pub(crate) fn current() -> Option<Arc<CallTrace>> {
    CURRENT.try_with(Arc::clone).ok()
}

/// Runs `call` with `trace` as its current trace (none: untraced, as before).
#[cfg(feature = "uniffi")]
pub(crate) async fn scoped<T>(trace: Option<Arc<CallTrace>>, call: impl Future<Output = T>) -> T {
    match trace {
        Some(trace) => CURRENT.scope(trace, call).await,
        None => call.await,
    }
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
        (_, Some(error)) => Some(error_kind(error).to_owned()),
        _ => None,
    }
}

/// The error's variant, as every language names it.
pub(crate) fn error_kind(error: &SikaError) -> &'static str {
    match error {
        SikaError::Unauthorized { .. } => "Unauthorized",
        SikaError::InvalidCountryCode { .. } => "InvalidCountryCode",
        SikaError::NoProvidersFound { .. } => "NoProvidersFound",
        SikaError::TransactionNotFound { .. } => "TransactionNotFound",
        SikaError::InvalidReference { .. } => "InvalidReference",
        SikaError::InvalidInput { .. } => "InvalidInput",
        SikaError::Api { .. } => "Api",
        SikaError::RateLimited { .. } => "RateLimited",
        SikaError::Timeout { .. } => "Timeout",
        SikaError::Network { .. } => "Network",
        SikaError::UnexpectedResponse { .. } => "UnexpectedResponse",
        SikaError::ChargeOutcomeUnknown { .. } => "ChargeOutcomeUnknown",
        SikaError::Cancelled => "Cancelled",
        SikaError::Configuration { .. } => "Configuration",
        SikaError::Storage { .. } => "Storage",
        SikaError::ClaimLost { .. } => "ClaimLost",
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
}

//! Request ids (ADR 0053): every request carries `X-Request-Id: sika_<32 hex>_<attempt>`, one
//! random id per call and the attempt's number (1, 2, 3, ... for a retried GET), so support can
//! find each attempt and see that they belong to one call. An error carries the id the
//! service answered with, when it sent one, else the one Sika sent with the last attempt.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use http::HeaderValue;

use crate::trace::CallTrace;

/// The header's name, sent and read.
pub(crate) const HEADER: &str = "x-request-id";

/// The most characters kept of a service's request id: a real one is far shorter; a longer one
/// is cut with the marker of every bounded text (ADR 0040).
pub(crate) const MAX_REQUEST_ID_CHARS: usize = 200;

/// The ids of one call: its random part, and the last attempt made (0 before the first).
/// Clones share the attempt count (a shared bank list fetch outlives its caller's borrow).
#[derive(Debug, Clone)]
pub(crate) struct CallIds(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    call: String,
    last_attempt: AtomicU32,
    /// The call's trace when the host traces it (issue 30): taken where the call starts.
    trace: Option<Arc<CallTrace>>,
}

impl CallIds {
    /// A new call: 128 random bits from the operating system (fresh in a forked worker too).
    pub(crate) fn new() -> Self {
        let mut bytes = [0_u8; 16];
        if getrandom::getrandom(&mut bytes).is_err() {
            // The system's generator failed (it does not on the supported platforms): an id
            // still unique enough to find in the logs is better than none.
            bytes = fastrand::u128(..).to_le_bytes();
        }
        let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        let trace = crate::trace::current();
        Self(Arc::new(Inner { call: format!("sika_{hex}"), last_attempt: AtomicU32::new(0), trace }))
    }

    /// The call's trace, when the host traces it.
    pub(crate) fn trace(&self) -> Option<&CallTrace> {
        self.0.trace.as_deref()
    }

    /// The id of attempt `attempt` (from 1), which becomes the call's last.
    pub(crate) fn attempt(&self, attempt: u32) -> String {
        self.0.last_attempt.fetch_max(attempt, Ordering::Relaxed);
        format!("{}_{attempt}", self.0.call)
    }

    /// The id of the last attempt made, `None` before the first.
    pub(crate) fn last(&self) -> Option<String> {
        let attempt = self.0.last_attempt.load(Ordering::Relaxed);
        (attempt > 0).then(|| format!("{}_{attempt}", self.0.call))
    }
}

/// A service's `X-Request-Id`, as the service's text is kept (ADR 0040): any bytes read as
/// UTF-8 (invalid ones replaced), cut at [`MAX_REQUEST_ID_CHARS`], control characters escaped.
/// The key is removed later, with every other text of the error (`client.rs`). An empty one
/// counts as absent.
pub(crate) fn from_service(value: &HeaderValue) -> Option<String> {
    let text = String::from_utf8_lossy(value.as_bytes());
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    Some(crate::scrub::escape_controls(&crate::scrub::bounded_to(text.to_owned(), MAX_REQUEST_ID_CHARS)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b200_one_random_id_per_call_with_the_attempt_number() {
        let (call, other) = (CallIds::new(), CallIds::new());
        assert_eq!(call.last(), None);
        let first = call.attempt(1);
        let third = call.attempt(3);
        assert_eq!(call.last().as_deref(), Some(third.as_str()));
        let prefix = first.strip_suffix("_1").expect(&first);
        assert_eq!(third, format!("{prefix}_3"));
        let hex = prefix.strip_prefix("sika_").expect(prefix);
        assert_eq!(hex.len(), 32);
        assert!(hex.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()), "{hex}");
        assert_ne!(other.attempt(1), first);
    }

    #[test]
    fn b206_a_service_id_is_bounded_and_its_controls_escaped() {
        let long = HeaderValue::from_str(&"x".repeat(100_000)).unwrap();
        let kept = from_service(&long).unwrap();
        assert!(kept.chars().count() < MAX_REQUEST_ID_CHARS + 100, "{}", kept.len());
        assert!(kept.starts_with(&"x".repeat(MAX_REQUEST_ID_CHARS)));
        let controls = HeaderValue::from_bytes("id\tone\u{85}two\u{202e}".as_bytes()).unwrap();
        let kept = from_service(&controls).unwrap();
        assert!(!kept.chars().any(char::is_control), "{kept:?}");
        assert!(kept.starts_with("id"));
        assert_eq!(from_service(&HeaderValue::from_static("  ")), None);
        assert_eq!(from_service(&HeaderValue::from_static("req_1")).as_deref(), Some("req_1"));
    }
}

//! The host's tracer (issue 30, ADR 0058): one span per client call, started and ended by the
//! host, with the call's HTTP attempts handed over at its end (`crate::trace`).
//!
//! Both callbacks run on the host's own thread: `call_started` where the call starts (its first
//! poll, or a blocking call's caller), so the host sees its current context (a Python
//! `contextvars` context, a JVM thread's, a Swift task's) and makes the call's span its child;
//! `call_ended` where the call's result is taken, or where a cancelled call is dropped. The
//! call's requests carry the W3C context the host answers with.
//!
//! A host that cannot be called back from inside a call (Python: its code run inside a poll, in
//! Rust frames, can be ended by the interpreter's exit, ADR 0059) traces its calls itself:
//! `trace_next_call` on the thread that is about to start the call hands the core the call's
//! span, and `take_ended_call` takes the call's end after it returns.
//!
//! No tracer installed: one atomic load per call, nothing sent, nothing recorded.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::runtime;
use crate::error::{Result, SikaError};
use crate::process::PerProcess;
use crate::trace::{AttemptSpan, CallTrace};

/// A call as it starts: the span's name is `sika.<operation>`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct CallStart {
    /// The client method (`verify_transaction`, `initiate_charge`, ...), or the ledger's,
    /// prefixed `ledger.` (`ledger.handle_webhook`, `ledger.settle`, `ledger.renew`,
    /// `ledger.mark_fulfilled`, `ledger.release`, `ledger.reconcile`, ...): its verifications
    /// are the call's attempts.
    pub operation: String,
    /// The order's reference, when the call names one (`sika.reference`).
    pub reference: Option<String>,
    /// `server.address`: the service's host (empty for a ledger call that takes no client).
    pub server_address: String,
    /// `server.port`: the service's port (0 for a ledger call that takes no client).
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
    /// `sika.decision`: the payment decision the call returned (`confirmed`, `not_yet`,
    /// `not_paid`, `mismatch` of a `PaymentCheck`; `fulfil`, `investigate`, `ignore`,
    /// `retry_later`, `reject` of a `WebhookDecision`; `fulfil`, `already_fulfilled`,
    /// `in_progress` or the recorded decision's kind of a `LedgerDecision`); none for any
    /// other call.
    pub decision: Option<String>,
    /// The offers of the claims the call gave (a ledger's `Fulfil` decisions: one for a
    /// webhook or a settle, any number for a reconcile run), for the counters of claims offered
    /// and offered again (an offer above 1); empty for any other call.
    pub offers: Vec<i64>,
}

/// The payment decision a call's result is, for `CallEnd.decision`: every client method's
/// result type says whether it is one.
pub(crate) trait Decided {
    fn decision(&self) -> Option<&'static str> {
        None
    }

    /// The offers of the claims the result gives (`CallEnd.offers`).
    fn offers(&self) -> Vec<i64> {
        Vec::new()
    }
}

impl Decided for crate::PaymentCheck {
    fn decision(&self) -> Option<&'static str> {
        Some(match self {
            Self::Confirmed { .. } => "confirmed",
            Self::NotYet { .. } => "not_yet",
            Self::NotPaid { .. } => "not_paid",
            Self::Mismatch { .. } => "mismatch",
        })
    }
}

impl Decided for crate::WebhookDecision {
    fn decision(&self) -> Option<&'static str> {
        Some(match self {
            Self::Fulfil { .. } => "fulfil",
            Self::Investigate { .. } => "investigate",
            Self::Ignore { .. } => "ignore",
            Self::RetryLater { .. } => "retry_later",
            Self::Reject { .. } => "reject",
        })
    }
}

impl Decided for crate::Transaction {}
impl Decided for crate::ChargeResponse {}
impl<T> Decided for Vec<T> {}

#[cfg(feature = "ledger")]
mod ledger_results {
    use super::Decided;
    use crate::ledger::{Claim, LedgerDecision, PaymentRecord, ReconcileReport};

    impl Decided for LedgerDecision {
        fn decision(&self) -> Option<&'static str> {
            Some(match self {
                Self::Fulfil { .. } => "fulfil",
                Self::AlreadyFulfilled { .. } => "already_fulfilled",
                Self::InProgress { .. } => "in_progress",
                Self::Decided { decision } => return decision.decision(),
            })
        }

        fn offers(&self) -> Vec<i64> {
            match self {
                Self::Fulfil { claim, .. } => vec![claim.offer],
                _ => Vec::new(),
            }
        }
    }

    impl Decided for ReconcileReport {
        fn offers(&self) -> Vec<i64> {
            self.checked.iter().flat_map(|checked| checked.decision.offers()).collect()
        }
    }

    impl Decided for () {}
    impl Decided for Claim {}
    impl Decided for Option<PaymentRecord> {}
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

/// A call's start and end, for a host that traces its calls itself (`take_ended_call`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct EndedCall {
    /// The call as it started.
    pub call: CallStart,
    /// The call as it ended.
    pub end: CallEnd,
}

static TRACER: OnceLock<Box<dyn Tracer>> = OnceLock::new();

thread_local! {
    /// The span of the call this thread is about to start (`trace_next_call`).
    static NEXT_CALL: RefCell<Option<TracedCall>> = const { RefCell::new(None) };
}

/// The ends of calls traced by the host itself, until it takes them. Bounded: a host that never
/// takes its ends loses the newest ones, never memory. Per process (ADR 0013): a child forked
/// while a parent thread held the map's lock (a call ending there) keeps its own ends in a map
/// of its own, and never waits for that lock.
static ENDED: PerProcess<Mutex<HashMap<i64, EndedCall>>> = PerProcess::empty();
const MAX_ENDED: usize = 4096;

/// Whether any call was traced with `trace_next_call`: until then a call reads no thread-local.
static NEXT_CALL_USED: AtomicBool = AtomicBool::new(false);

/// Installs the host's tracer for the rest of the process. Returns false when one was already
/// installed: the first one stays.
#[uniffi::export]
pub fn set_tracer(tracer: Box<dyn Tracer>) -> bool {
    TRACER.set(tracer).is_ok()
}

/// The next call this thread starts (the next client call it makes, or the next poll it makes of
/// a client call's future that has not started yet) is traced as `call`: its requests carry its
/// W3C context, and its end is kept for `take_ended_call(call.id)`. `None` forgets a span that
/// no call took. For a host that cannot be called back inside a call (Python, ADR 0059);
/// another host installs a `Tracer`.
#[uniffi::export]
pub fn trace_next_call(call: Option<TracedCall>) {
    if call.is_some() {
        NEXT_CALL_USED.store(true, Ordering::Relaxed);
    }
    NEXT_CALL.with(|next| *next.borrow_mut() = call);
}

/// The start and end of the call traced as `id` by `trace_next_call`, once it ended (it returned,
/// failed, or was cancelled); `None` before that, or when no call took that span.
#[uniffi::export]
pub fn take_ended_call(id: i64) -> Option<EndedCall> {
    ENDED.current()?.lock().unwrap_or_else(PoisonError::into_inner).remove(&id)
}

/// Keeps `ended` for `take_ended_call`, unless the map is full.
fn keep_ended(id: i64, ended: impl FnOnce() -> EndedCall) {
    let Ok(map) = ENDED.get(|| Ok(Mutex::new(HashMap::new()))) else { return };
    let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
    if map.len() < MAX_ENDED {
        map.insert(id, ended());
    }
}

/// Where a traced call's end goes.
enum EndTo {
    /// The installed `Tracer`'s `call_ended`.
    Tracer,
    /// Kept for the host's `take_ended_call`, with the call's start.
    Kept(CallStart),
}

/// A call the host traces, until it ends.
pub(crate) struct Traced {
    id: i64,
    /// The call's reference, for its end when it is dropped (a charge's may be unknown).
    reference: Option<String>,
    trace: Arc<CallTrace>,
    end_to: EndTo,
    ended: bool,
}

/// Starts `operation`'s span, on the caller's thread: the one `trace_next_call` gave this thread,
/// else the one the host's tracer, if there is one, answers with. `base_url`: the service the
/// call talks to (none for a ledger call that takes no client).
pub(crate) fn start(operation: &str, reference: Option<&str>, base_url: Option<&url::Url>) -> Option<Traced> {
    let next =
        if NEXT_CALL_USED.load(Ordering::Relaxed) { NEXT_CALL.with(|next| next.borrow_mut().take()) } else { None };
    // Nothing to trace: the call builds no `CallStart`.
    let tracer = if next.is_none() { Some(TRACER.get()?) } else { None };
    let call = CallStart {
        operation: operation.to_owned(),
        reference: reference.map(str::to_owned),
        server_address: base_url.and_then(url::Url::host_str).unwrap_or_default().to_owned(),
        server_port: base_url.and_then(url::Url::port_or_known_default).map_or(0, i32::from),
    };
    let (traced, end_to) = match next {
        Some(traced) => (traced, EndTo::Kept(call)),
        None => (tracer?.call_started(call)?, EndTo::Tracer),
    };
    // A context the service could not read is not sent; the span is still ended.
    Some(Traced {
        id: traced.id,
        reference: reference.map(str::to_owned),
        trace: CallTrace::checked(traced.traceparent, traced.tracestate, true),
        end_to,
        ended: false,
    })
}

impl Traced {
    pub(crate) fn trace(&self) -> Arc<CallTrace> {
        Arc::clone(&self.trace)
    }

    /// Hands the call's end to the host (where the result is taken).
    pub(crate) fn end<T: Decided>(mut self, result: &Result<T>) {
        let offers = result.as_ref().map(Decided::offers).unwrap_or_default();
        self.finish(result.as_ref().err(), result.as_ref().ok().and_then(Decided::decision), offers);
    }

    fn finish(&mut self, error: Option<&SikaError>, decision: Option<&str>, offers: Vec<i64>) {
        self.ended = true;
        let end = || CallEnd {
            id: self.id,
            error_type: error.map(|error| error.kind().to_owned()),
            request_id: error.and_then(SikaError::request_id).map(str::to_owned),
            attempts: self.trace.take_attempts(),
            decision: decision.map(str::to_owned),
            offers: offers.clone(),
        };
        match &self.end_to {
            EndTo::Kept(call) => keep_ended(self.id, || EndedCall { call: call.clone(), end: end() }),
            EndTo::Tracer => {
                // An exiting Python host can no longer take callbacks (ADR 0013).
                let Some(tracer) = TRACER.get().filter(|_| !runtime::host_is_exiting()) else { return };
                tracer.call_ended(end());
            }
        }
    }
}

impl Drop for Traced {
    /// A call dropped before its end (the host cancelled it) ends as `Cancelled`, or as
    /// `ChargeOutcomeUnknown` when it was a charge that may have been sent (ADR 0075).
    fn drop(&mut self) {
        if !self.ended {
            let error = crate::in_flight::dropped_call_error(self.reference.as_deref());
            self.finish(Some(&error), None, Vec::new());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn ended(id: i64) -> EndedCall {
        let call = CallStart {
            operation: "verify_transaction".to_owned(),
            reference: None,
            server_address: "127.0.0.1".to_owned(),
            server_port: 1,
        };
        let end = CallEnd {
            id,
            error_type: None,
            request_id: None,
            attempts: Vec::new(),
            decision: None,
            offers: Vec::new(),
        };
        EndedCall { call, end }
    }

    #[test]
    fn b188_a_child_forked_while_a_call_end_is_kept_takes_its_own_ends() {
        keep_ended(1, || ended(1));
        // A parent thread keeping a call's end at the fork holds the map's lock.
        let map = ENDED.current().expect("this process's map");
        let held = map.lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: the child only keeps and takes an end (allocation is fork-safe in glibc), then
        // leaves with `_exit`, running no destructor of the parent's state.
        let child = unsafe { libc::fork() };
        assert!(child >= 0, "fork failed");
        if child == 0 {
            keep_ended(2, || ended(2));
            let own = take_ended_call(2).is_some_and(|taken| taken.end.id == 2);
            let inherited = take_ended_call(1);
            // SAFETY: ends the child at once, as above.
            unsafe { libc::_exit(if own && inherited.is_none() { 0 } else { 1 }) }
        }
        drop(held);
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut status = 0;
        // SAFETY: waits for the child forked above, without blocking.
        while unsafe { libc::waitpid(child, &mut status, libc::WNOHANG) } == 0 {
            if Instant::now() > deadline {
                // SAFETY: the child forked above, hung on its parent's lock.
                unsafe { libc::kill(child, libc::SIGKILL) };
                unsafe { libc::waitpid(child, &mut status, 0) };
                panic!("the child waited for the lock its parent held at the fork");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "child status {status}");
        assert_eq!(take_ended_call(1).map(|taken| taken.end.id), Some(1), "the parent keeps its own");
    }
}

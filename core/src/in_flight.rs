//! A charge whose call ends early after its request may have reached the service (ADR 0075).
//!
//! A call ends early when its caller stops waiting: a blocking call its host interrupts (a
//! Python signal handler that raised, ADR 0070), or a future dropped (an asyncio task, a Kotlin
//! job or a Swift `Task` cancelled, a JVM thread interrupted while it parks, a Rust `select!`).
//! For a charge, "cancelled" would say "not charged", and a caller who believes it charges again
//! under a new reference. So a charge knows, as its one attempt goes, whether a socket was
//! connected for it (`Progress`, the same fact that makes every other failure after sending
//! `ChargeOutcomeUnknown`, ADR 0038), and whoever ends it early asks it:
//!
//! - no socket connected yet: nothing left, and none will connect for it now (the question and
//!   the connector agree under one atomic): the call ends `Cancelled`;
//! - a socket was connected: its outcome is unknown. The question logs a WARN record naming the
//!   reference and the request id (once), keeps a `ChargeOutcomeUnknown` for
//!   [`take_cancelled_charge`], and the caller gets that error where the SDK chooses what is
//!   thrown (the blocking calls); a host whose contract throws its own cancellation takes it
//!   (by the reference, which it knows) as that exception's cause.
//!
//! The runners of calls (`blocking.rs`, `ffi/runtime.rs`) watch each call they run with a
//! [`Watch`], which the charge made inside it joins; a charge dropped with no runner watching
//! (a Rust caller's own future) asks itself as it is dropped.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::SikaError;
use crate::process::PerProcess;
use crate::request_id::CallIds;
use crate::transport::Progress;

/// Why a charge ended early after sending, its error's `reason`.
pub(crate) const REASON: &str = "the call was cancelled after its request may have reached the service";

/// Why a charge whose answer had arrived ended unknown: its host cancelled the call after the
/// answer was ready and before it took it (a Kotlin job cancelled as its continuation resumed,
/// an asyncio task cancelled before the loop ran its wake). The answer is lost with the call.
#[cfg(feature = "uniffi")]
pub(crate) const ANSWER_DROPPED: &str =
    "the call was cancelled as the service's answer arrived, before the answer reached the caller";

/// The most cancelled charges kept for [`take_cancelled_charge`]: a host that never takes them
/// loses the oldest, never memory.
const MAX_KEPT: usize = 1024;

tokio::task_local! {
    /// The watch of the call being run, set by its runner.
    static CURRENT: Arc<Watch>;
}

/// What a runner knows of the call it runs: the charge made inside it, if any.
#[derive(Default)]
pub(crate) struct Watch(Mutex<WatchState>);

#[derive(Default)]
struct WatchState {
    /// The runner ended the call: a charge that joins now is given up at once.
    ended_early: bool,
    charge: Option<Arc<Shared>>,
}

impl Watch {
    pub(crate) fn new() -> Arc<Self> {
        Arc::default()
    }

    /// `call`, watched by this watch: a charge made inside it joins it.
    pub(crate) fn scope<F: Future>(self: &Arc<Self>, call: F) -> impl Future<Output = F::Output> + use<F> {
        CURRENT.scope(Arc::clone(self), call)
    }

    /// The runner ends the call early, now: the error it ends with. `ChargeOutcomeUnknown` when
    /// a charge of the call may have been sent (logged at WARN), else `Cancelled`, and no socket
    /// connects for it after this. `for_the_host`: the caller will not get this error (the host
    /// throws its own cancellation), so it is kept for [`take_cancelled_charge`].
    pub(crate) fn ended_early(&self, for_the_host: bool) -> SikaError {
        let charge = {
            let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            state.ended_early = true;
            state.charge.clone()
        };
        charge.and_then(|charge| charge.give_up(for_the_host)).unwrap_or(SikaError::Cancelled)
    }

    /// The runner's call finished, but its host dropped it before taking its output: a charge of
    /// it that was answered is reported and kept as if cancelled after sending, since its caller
    /// will never see the answer (B312).
    #[cfg(feature = "uniffi")]
    pub(crate) fn answer_dropped(&self) {
        let charge = self.0.lock().unwrap_or_else(PoisonError::into_inner).charge.clone();
        if let Some(charge) = charge {
            charge.answer_dropped();
        }
    }

    fn join(&self, charge: &Arc<Shared>) {
        let ended_early = {
            let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            state.charge = Some(Arc::clone(charge));
            state.ended_early
        };
        if ended_early {
            charge.give_up(true);
        }
    }
}

/// One charge as it goes: made where the charge is about to be sent, told of its attempt, and
/// told when it ended (with any outcome). Dropped before that, it was ended early.
pub(crate) struct Charge(Arc<Shared>);

struct Shared {
    /// As the error shows it (scrubbed like every error's text).
    reference: String,
    ids: CallIds,
    state: Mutex<ChargeState>,
}

#[derive(Default)]
struct ChargeState {
    attempt: Option<Arc<Progress>>,
    given_up: bool,
    ended: bool,
    /// The WARN record was written (and the error kept), once, by the first to give it up:
    /// under the lock, so a second one returns only once it is kept.
    reported: bool,
}

impl Charge {
    /// A charge of `reference` (as errors show it), with its call's ids, joining the call's
    /// watch if a runner watches it. A charge of the same reference cancelled earlier is
    /// forgotten: [`take_cancelled_charge`] answers for the newest.
    pub(crate) fn new(reference: String, ids: &CallIds) -> Self {
        forget(&reference);
        let shared = Arc::new(Shared { reference, ids: ids.clone(), state: Mutex::default() });
        // Outside a watched call (a Rust caller's own future) the charge answers for itself.
        let _ = CURRENT.try_with(|watch| watch.join(&shared));
        Self(shared)
    }

    /// The charge's attempt starts with `progress`: given up already, it may connect no socket.
    pub(crate) fn attempting(&self, progress: &Arc<Progress>) {
        let mut state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.given_up {
            progress.abandon();
        }
        state.attempt = Some(Arc::clone(progress));
    }

    /// The charge ended with an outcome of its own (an answer or an error): not ended early.
    pub(crate) fn ended(self) {
        self.0.state.lock().unwrap_or_else(PoisonError::into_inner).ended = true;
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        // Dropped before its end: ended early, by a runner (which answered first) or by a Rust
        // caller's own drop, who gets no error: kept for `take_cancelled_charge`.
        self.0.give_up(true);
    }
}

impl Shared {
    /// Gives the charge up: its `ChargeOutcomeUnknown` when its request may have been sent,
    /// none when it surely was not (and now cannot be) or had ended already. The first to give
    /// it up logs it, and keeps it for [`take_cancelled_charge`] when `keep` (no caller gets it).
    fn give_up(&self, keep: bool) -> Option<SikaError> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.ended {
            return None;
        }
        state.given_up = true;
        if !state.attempt.as_ref().is_some_and(|attempt| attempt.abandon()) {
            return None;
        }
        Some(self.report(&mut state, REASON, keep))
    }

    /// The charge had ended with its own outcome, but its call's host dropped that outcome
    /// untaken: unless it was reported already, or its attempt never connected (then nothing was
    /// charged), it is reported and kept as unknown.
    #[cfg(feature = "uniffi")]
    fn answer_dropped(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if !state.ended || state.reported || !state.attempt.as_ref().is_some_and(|attempt| attempt.abandon()) {
            return;
        }
        self.report(&mut state, ANSWER_DROPPED, true);
    }

    /// The charge's `ChargeOutcomeUnknown` for `reason`. The first report logs it at WARN and,
    /// when `keep` (no caller gets it), keeps it for [`take_cancelled_charge`].
    fn report(&self, state: &mut ChargeState, reason: &str, keep: bool) -> SikaError {
        let error = SikaError::ChargeOutcomeUnknown {
            reference: self.reference.clone(),
            reason: reason.to_owned(),
            request_id: self.ids.last(),
        };
        if !state.reported {
            state.reported = true;
            log::warn!(
                target: "sika",
                operation = "initiate_charge",
                reference = self.reference.as_str(),
                request_id = self.ids.last().as_deref();
                "charge {}: {reason}: its outcome is unknown; verify reference {} before charging again (request id {})",
                self.reference,
                self.reference,
                self.ids.last().as_deref().unwrap_or("none")
            );
            if keep {
                kept(error.clone());
            }
        }
        error
    }
}

/// The charges cancelled after sending, oldest first, until a host takes them. Per process
/// (ADR 0013): a child forked while a parent thread held the lock keeps its own.
static CANCELLED: PerProcess<Mutex<VecDeque<SikaError>>> = PerProcess::empty();

fn kept(error: SikaError) {
    let Ok(kept) = CANCELLED.get(|| Ok(Mutex::default())) else { return };
    let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
    if kept.len() == MAX_KEPT {
        kept.pop_front();
    }
    kept.push_back(error);
}

fn forget(reference: &str) {
    let _ = take(reference);
}

fn take(reference: &str) -> Option<SikaError> {
    let kept = CANCELLED.current()?;
    let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
    let at = newest(&kept, reference)?;
    kept.remove(at)
}

fn newest(kept: &VecDeque<SikaError>, reference: &str) -> Option<usize> {
    kept.iter().rposition(
        |error| matches!(error, SikaError::ChargeOutcomeUnknown { reference: kept, .. } if kept == reference),
    )
}

/// What a call about `reference` that its host dropped ended with, left for the host to take:
/// the charge's `ChargeOutcomeUnknown` when one was kept, else `Cancelled` (the tracer's end of
/// a dropped call, `ffi/tracer.rs`).
#[cfg(feature = "uniffi")]
pub(crate) fn dropped_call_error(reference: Option<&str>) -> SikaError {
    let found = reference.and_then(|reference| {
        let kept = CANCELLED.current()?;
        let kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
        newest(&kept, reference).map(|at| kept[at].clone())
    });
    found.unwrap_or(SikaError::Cancelled)
}

/// The outcome of the newest charge of `reference` whose call was cancelled (interrupted, its
/// task or future cancelled or dropped) after its request may have reached the service: a
/// `ChargeOutcomeUnknown` with the reference and the request id, which the SDK also logged at
/// WARN. For a host whose cancellation throws its own exception (asyncio's `CancelledError`,
/// Kotlin's `CancellationException`, Swift's `CancellationError`): the charge may exist, so
/// verify the reference (or let the ledger's `reconcile` settle it) before charging again. Each
/// is answered once; none when the charge was cancelled before anything was sent (it was not
/// made), or was not cancelled.
#[cfg_attr(feature = "uniffi", uniffi::export)]
pub fn take_cancelled_charge(reference: &str) -> Option<SikaError> {
    take(reference)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A charge of `reference` made inside `watch`'s call, its attempt started.
    async fn charge_in(watch: &Arc<Watch>, reference: &str) -> (Charge, Arc<Progress>, CallIds) {
        let ids = CallIds::new();
        let (charge, progress) = watch
            .scope(async {
                let charge = Charge::new(reference.to_owned(), &ids);
                ids.attempt(1);
                let progress = Arc::new(Progress::default());
                charge.attempting(&progress);
                (charge, progress)
            })
            .await;
        (charge, progress, ids)
    }

    #[tokio::test]
    async fn b230_a_call_ended_after_its_charge_connected_is_outcome_unknown_with_its_request_id() {
        let watch = Watch::new();
        let (charge, progress, ids) = charge_in(&watch, "B230-UNIT-SENT").await;
        assert!(progress.connect(), "the socket connects");
        let error = watch.ended_early(true);
        assert_eq!(
            error,
            SikaError::ChargeOutcomeUnknown {
                reference: "B230-UNIT-SENT".to_owned(),
                reason: REASON.to_owned(),
                request_id: ids.last(),
            }
        );
        drop(charge);
        assert_eq!(take_cancelled_charge("B230-UNIT-SENT"), Some(error), "kept once, by the first to give it up");
        assert_eq!(take_cancelled_charge("B230-UNIT-SENT"), None);
    }

    #[tokio::test]
    async fn b230_a_call_whose_caller_gets_the_error_keeps_none() {
        let watch = Watch::new();
        let (charge, progress, _) = charge_in(&watch, "B230-UNIT-RETURNED").await;
        assert!(progress.connect());
        assert!(matches!(watch.ended_early(false), SikaError::ChargeOutcomeUnknown { .. }));
        drop(charge);
        assert_eq!(take_cancelled_charge("B230-UNIT-RETURNED"), None, "the caller has it");
    }

    #[tokio::test]
    async fn b230_a_call_ended_before_its_charge_connected_is_cancelled_and_never_connects() {
        let watch = Watch::new();
        let (charge, progress, _) = charge_in(&watch, "B230-UNIT-UNSENT").await;
        assert_eq!(watch.ended_early(true), SikaError::Cancelled);
        assert!(!progress.connect(), "a socket that connects after the answer \"not sent\" is closed unused");
        drop(charge);
        assert_eq!(take_cancelled_charge("B230-UNIT-UNSENT"), None);
    }

    #[tokio::test]
    async fn b230_a_charge_that_joins_a_call_already_ended_never_connects() {
        let watch = Watch::new();
        assert_eq!(watch.ended_early(true), SikaError::Cancelled, "no charge yet");
        let (_charge, progress, _) = charge_in(&watch, "B230-UNIT-LATE").await;
        assert!(!progress.connect());
    }

    #[tokio::test]
    async fn b230_a_charge_with_an_outcome_of_its_own_is_not_given_up() {
        let watch = Watch::new();
        let (charge, progress, _) = charge_in(&watch, "B230-UNIT-ENDED").await;
        assert!(progress.connect());
        charge.ended();
        assert_eq!(watch.ended_early(true), SikaError::Cancelled, "its own outcome was returned already");
        assert_eq!(take_cancelled_charge("B230-UNIT-ENDED"), None);
    }

    #[cfg(feature = "uniffi")]
    #[tokio::test]
    async fn b312_an_answered_charge_whose_answer_was_dropped_is_kept_unknown() {
        let watch = Watch::new();
        let (charge, progress, ids) = charge_in(&watch, "B312-UNIT-DROPPED").await;
        assert!(progress.connect());
        charge.ended();
        watch.answer_dropped();
        watch.answer_dropped();
        let expected = SikaError::ChargeOutcomeUnknown {
            reference: "B312-UNIT-DROPPED".to_owned(),
            reason: ANSWER_DROPPED.to_owned(),
            request_id: ids.last(),
        };
        assert_eq!(take_cancelled_charge("B312-UNIT-DROPPED"), Some(expected));
        assert_eq!(take_cancelled_charge("B312-UNIT-DROPPED"), None, "kept once");
    }

    #[cfg(feature = "uniffi")]
    #[tokio::test]
    async fn b312_a_dropped_answer_of_a_charge_that_never_connected_keeps_nothing() {
        let watch = Watch::new();
        let (charge, _progress, _) = charge_in(&watch, "B312-UNIT-UNSENT").await;
        charge.ended();
        watch.answer_dropped();
        assert_eq!(take_cancelled_charge("B312-UNIT-UNSENT"), None, "nothing could have been charged");
    }

    #[tokio::test]
    async fn b230_a_charge_dropped_outside_any_watch_keeps_its_outcome() {
        let ids = CallIds::new();
        let charge = Charge::new("B230-UNIT-OWN".to_owned(), &ids);
        ids.attempt(1);
        let progress = Arc::new(Progress::default());
        charge.attempting(&progress);
        assert!(progress.connect());
        drop(charge);
        let kept = take_cancelled_charge("B230-UNIT-OWN").expect("kept as it was dropped");
        assert_eq!(kept.request_id(), ids.last().as_deref());
    }
}

//! The runtime the async `Client`'s calls run on when foreign code calls them.
//!
//! UniFFI's `async_runtime = "tokio"` would wrap each call in async-compat's `Compat`, which
//! polls it on the foreign thread inside async-compat's one global runtime: a current-thread
//! runtime held open by a background thread (`async-compat/tokio-1`) that drives every socket
//! and timer. A forked child inherits that runtime without the thread (its timers never fire,
//! its sockets never wake: calls hang) and with the epoll instance it shares with the parent.
//! So each exported async method spawns its call here instead: onto a runtime this module
//! owns, one per process (`crate::process`), built afresh in a forked child. The foreign side
//! awaits the task's handle, and dropping that (a cancelled Python task, Kotlin job or Swift
//! `Task`) aborts the call; the task wakes the host through a gate the host closes at exit
//! (wake_gate.rs). See docs/adr/0013-process-model.md.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::runtime::Runtime;
use tokio::task::{JoinError, JoinHandle};

use super::wake_gate::{GatedWaker, WakeGate};
use crate::error::{Result, SikaError};
use crate::in_flight::Watch;
use crate::process::PerProcess;

/// Worker threads per process. A call's own work is small (a request, a decode), so two keep
/// sockets served while one decodes a large bank list; more would only add threads to every
/// process of a pre-fork server.
const WORKERS: usize = 2;

/// This process's runtime, built at the first call (in a forked child: at its first call).
/// Never shut down: foreign code may call until the process exits.
static RUNTIME: PerProcess<HostRuntime> = PerProcess::empty();

/// A process's runtime, and the gate its calls wake the host through (wake_gate.rs).
struct HostRuntime {
    runtime: Runtime,
    gate: Arc<WakeGate>,
}

/// Runs `call` on this process's runtime and waits for it. Dropping the returned future
/// aborts the call: its request is dropped and its connection closed at once.
///
/// `call` is boxed as it is given, before anything awaits: a call's future (its request,
/// retries and decode) is kilobytes, and held by value it made every future around it as
/// large, each copied whole at every move (into UniFFI's future, into the task): a tenth of an
/// awaited verification's instructions in `memcpy` (issue 45). Boxed, each move is a pointer.
pub(crate) fn run<T, F>(call: F) -> impl Future<Output = Result<T>> + Send + 'static
where
    F: Future<Output = Result<T>> + Send + 'static,
    T: Send + 'static,
{
    let call = Box::pin(call);
    async move {
        let host = RUNTIME.get(build)?;
        let task = host.start(call)?;
        drop(host);
        match task.await {
            Ok(result) => result,
            // The call's panic, raised where UniFFI polls (it turns a panic into a foreign error).
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            // Only an abort or a runtime shut down cancels a task; neither happens while awaited.
            Err(_cancelled) => Err(SikaError::Cancelled),
        }
    }
}

/// Runs `call` on this process's runtime and blocks the caller's thread until it ends: for the
/// blocking objects whose core type is async only (the ledger). Refused inside an async
/// runtime, where blocking would stall it.
#[cfg(feature = "ledger")]
pub(crate) fn block_on<T, F>(call: F) -> Result<T>
where
    F: Future<Output = Result<T>> + Send + 'static,
    T: Send + 'static,
{
    if tokio::runtime::Handle::try_current().is_ok() {
        return Err(SikaError::configuration(
            "a blocking call was made from inside an async runtime; use the async object there",
        ));
    }
    let handle = RUNTIME.get(build)?.runtime.handle().clone();
    let watch = Watch::new();
    // Aborted when dropped: a call its host interrupts (ADR 0070) ends with it.
    let mut task = tokio_util::task::AbortOnDropHandle::new(handle.spawn(watch.scope(call)));
    let task = std::pin::pin!(async move {
        match (&mut task).await {
            Ok(result) => result,
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(_cancelled) => Err(SikaError::Cancelled),
        }
    });
    crate::blocking::run_unless_interrupted(task, &watch, |call| handle.block_on(call))
}

/// Whether the host has closed its wakes (Python at exit): no callback may reach it then.
pub(crate) fn host_is_exiting() -> bool {
    RUNTIME.current().is_some_and(|host| host.gate.is_closed())
}

/// Called by the Python package at interpreter exit (an `atexit` handler, added by the
/// lifecycle patch of `bindings/uniffi-bindgen`), before CPython finalizes: from then on no
/// thread of this process's runtime wakes a foreign future (wake_gate.rs). Async calls still
/// in flight then never complete, and a call started later (an `atexit` handler that runs
/// after this one) fails at once rather than waiting for a wake that never comes. Not part of
/// the UniFFI interface: the JVM and Swift must not call it (a JVM's shutdown hooks may still
/// await calls), and an exported function would be public in every language.
#[unsafe(no_mangle)]
pub extern "C" fn sika_ffi_close_host_wakes() {
    if let Some(host) = RUNTIME.current() {
        host.gate.close();
    }
}

fn build() -> Result<HostRuntime> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .thread_name("sika-runtime")
        .enable_all()
        .build()
        .map_err(|e| SikaError::configuration(format!("cannot start the SDK's runtime: {e}")))?;
    Ok(HostRuntime { runtime, gate: Arc::default() })
}

/// What a call started after the host closed its wakes fails with.
const HOST_CLOSED: &str =
    "the interpreter is exiting: an async call can no longer complete (a BlockingClient call still can)";

impl HostRuntime {
    /// Spawns `call`, unless the host has closed its wakes: the call could never complete.
    /// (One atomic load; the gate's own check at each wake stays the guarantee.)
    fn start<T, F>(&self, call: F) -> Result<HostCall<Result<T>>>
    where
        F: Future<Output = Result<T>> + Send + 'static,
        T: Send + 'static,
    {
        if self.gate.is_closed() {
            return Err(SikaError::configuration(HOST_CLOSED));
        }
        let watch = Watch::new();
        let task = self.runtime.spawn(watch.scope(call));
        Ok(HostCall { task, watch, gate: Arc::clone(&self.gate), waker: None, handed_over: false })
    }
}

/// A call's task as the host awaits it: woken through the gate, aborted when dropped before
/// it finished.
struct HostCall<T> {
    task: JoinHandle<T>,
    /// What the call did, for its end when it is dropped before it (in_flight.rs).
    watch: Arc<Watch>,
    gate: Arc<WakeGate>,
    /// The gated form of the host's waker, rebuilt only when the host's waker changes.
    waker: Option<GatedWaker>,
    /// The task's output was given to the host (a poll returned it).
    handed_over: bool,
}

impl<T> Future for HostCall<T> {
    type Output = std::result::Result<T, JoinError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let waker = match &this.waker {
            Some(gated) if gated.wakes(cx.waker()) => gated,
            _ => this.waker.insert(this.gate.waker(cx.waker())),
        };
        let polled = Pin::new(&mut this.task).poll(&mut Context::from_waker(waker.waker()));
        this.handed_over = polled.is_ready();
        polled
    }
}

impl<T> Drop for HostCall<T> {
    fn drop(&mut self) {
        // A no-op once the task has finished.
        self.task.abort();
        // The host cancelled the call: a charge of it that may have been sent is logged, and
        // kept for the host to take as its cancellation's cause (ADR 0075); one that was not
        // can no longer connect.
        if !self.task.is_finished() {
            let _ = self.watch.ended_early(true);
        } else if !self.handed_over {
            // It finished, but the host dropped it before taking its output (a Kotlin job
            // cancelled as its continuation resumed): an answered charge is lost with it (B312).
            self.watch.answer_dropped();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    use super::*;

    /// Polls `future` once with a no-op waker, the way a foreign executor starts a call.
    fn poll_once<F: Future>(future: Pin<&mut F>) -> Poll<F::Output> {
        future.poll(&mut Context::from_waker(std::task::Waker::noop()))
    }

    #[test]
    fn b175_a_call_runs_on_the_runtime_and_its_result_comes_back() {
        let mut call = Box::pin(run(async { Ok(std::thread::current().name().map(str::to_owned)) }));
        let started = Instant::now();
        let thread = loop {
            if let Poll::Ready(result) = poll_once(call.as_mut()) {
                break result.expect("ran");
            }
            assert!(started.elapsed() < Duration::from_secs(5), "the call never finished");
            std::thread::sleep(Duration::from_millis(1));
        };
        assert_eq!(thread.as_deref(), Some("sika-runtime"));
    }

    #[test]
    fn b175_dropping_the_call_aborts_its_task() {
        // The task's future owns `dropped`'s guard: it is dropped when the task is aborted.
        struct SetOnDrop(Arc<AtomicBool>);
        impl Drop for SetOnDrop {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let dropped = Arc::new(AtomicBool::new(false));
        let guard = SetOnDrop(Arc::clone(&dropped));
        let mut call = Box::pin(run(async move {
            let _guard = guard;
            std::future::pending::<Result<()>>().await
        }));
        assert!(poll_once(call.as_mut()).is_pending());
        drop(call);
        let started = Instant::now();
        while !dropped.load(Ordering::SeqCst) {
            assert!(started.elapsed() < Duration::from_secs(5), "the task was not aborted");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn b54_a_call_started_after_the_host_closed_fails_at_once_and_never_runs() {
        let host = build().expect("a runtime");
        host.gate.close();
        let ran = Arc::new(AtomicBool::new(false));
        let started = host.start({
            let ran = Arc::clone(&ran);
            async move {
                ran.store(true, Ordering::SeqCst);
                Ok(())
            }
        });
        match started {
            Err(error) => assert_eq!(error, SikaError::configuration(HOST_CLOSED)),
            Ok(_) => panic!("a call started after the host closed"),
        }
        std::thread::sleep(Duration::from_millis(20));
        assert!(!ran.load(Ordering::SeqCst), "the call ran");
    }

    /// A call on `host` that makes a charge of `reference` whose attempt connected and that was
    /// answered (its outcome its own), started and left to finish before the host takes it.
    fn answered_charge(host: &HostRuntime, reference: &'static str) -> HostCall<Result<()>> {
        let call = host
            .start(async move {
                let ids = crate::request_id::CallIds::new();
                let charge = crate::in_flight::Charge::new(reference.to_owned(), &ids);
                ids.attempt(1);
                let progress = Arc::new(crate::transport::Progress::default());
                charge.attempting(&progress);
                assert!(progress.connect(), "the charge's socket connects");
                charge.ended();
                Ok(())
            })
            .expect("started");
        let started = Instant::now();
        while !call.task.is_finished() {
            assert!(started.elapsed() < Duration::from_secs(5), "the call never finished");
            std::thread::sleep(Duration::from_millis(1));
        }
        call
    }

    #[test]
    fn b312_a_call_its_host_drops_after_its_charge_was_answered_keeps_the_charge_unknown() {
        let host = build().expect("a runtime");
        drop(answered_charge(&host, "B312-ANSWER-DROPPED"));
        match crate::in_flight::take_cancelled_charge("B312-ANSWER-DROPPED") {
            Some(SikaError::ChargeOutcomeUnknown { reference, reason, request_id }) => {
                assert_eq!(reference, "B312-ANSWER-DROPPED");
                assert_eq!(reason, crate::in_flight::ANSWER_DROPPED);
                assert!(request_id.is_some(), "the request id of its attempt");
            }
            other => panic!("the dropped answer of a charge became {other:?}"),
        }
    }

    #[test]
    fn b312_a_call_whose_host_took_the_answer_keeps_nothing() {
        let host = build().expect("a runtime");
        let mut call = Box::pin(answered_charge(&host, "B312-ANSWER-TAKEN"));
        assert!(matches!(poll_once(call.as_mut()), Poll::Ready(Ok(Ok(())))), "the answer is handed over");
        drop(call);
        assert_eq!(crate::in_flight::take_cancelled_charge("B312-ANSWER-TAKEN"), None);
    }

    #[test]
    fn b175_a_panicking_call_panics_where_it_is_awaited() {
        let mut call = Box::pin(run(async { panic!("boom") as Result<()> }));
        let started = Instant::now();
        let outcome = loop {
            let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| poll_once(call.as_mut())));
            match polled {
                Ok(Poll::Pending) => {}
                Ok(Poll::Ready(result)) => panic!("a panic became {result:?}"),
                Err(panic) => break panic,
            }
            assert!(started.elapsed() < Duration::from_secs(5), "the call never finished");
            std::thread::sleep(Duration::from_millis(1));
        };
        assert_eq!(outcome.downcast_ref::<&str>(), Some(&"boom"));
    }
}

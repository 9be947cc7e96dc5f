//! The gate every wake of a foreign future passes through, closed when the host exits.
//!
//! A call ends on one of the SDK's threads, which wakes the foreign future: UniFFI's
//! continuation, which in Python takes the GIL and schedules the coroutine. While CPython
//! (before 3.14) finalizes, a thread that takes the GIL is ended with `pthread_exit`, whose
//! forced unwind aborts the process when it meets the `catch_unwind` of the Tokio task that
//! woke ("FATAL: exception not rethrown" at interpreter exit, measured about one exit in three
//! with an async call just finished). So the host closes the gate before it finalizes (Python's
//! `atexit`): no thread enters it afterwards, and `close` waits for those already inside.
//! A JVM host never closes it (its shutdown hooks may still await calls); a wake is dropped
//! there once the VM reports that it is gone (jvm_host.rs).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Wake, Waker};
use std::time::{Duration, Instant};

/// How long `close` waits for wakes already in the host. One takes microseconds; the bound
/// only keeps a host's exit from waiting on a callback that never returns.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

#[derive(Default)]
pub(crate) struct WakeGate {
    closed: AtomicBool,
    waking: AtomicUsize,
}

impl WakeGate {
    /// After it no wake reaches the host; returns once the wakes in progress are done.
    pub(crate) fn close(&self) {
        // SeqCst here and in `pass`: either a wake sees the gate closed, or `close` sees the
        // wake counted (a Dekker pair; weaker orderings allow both to miss).
        self.closed.store(true, Ordering::SeqCst);
        let started = Instant::now();
        while self.waking.load(Ordering::SeqCst) != 0 && started.elapsed() < CLOSE_WAIT {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Whether `close` was called (one atomic load).
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    fn pass(&self, wake: impl FnOnce()) {
        self.waking.fetch_add(1, Ordering::SeqCst);
        // A JVM host that no longer exists cannot take the wake either (jvm_host.rs).
        if !self.closed.load(Ordering::SeqCst) && !super::jvm_host::host_vm_is_gone() {
            wake();
        }
        self.waking.fetch_sub(1, Ordering::SeqCst);
    }

    /// A waker that wakes `host` through this gate.
    pub(crate) fn waker(self: &Arc<Self>, host: &Waker) -> GatedWaker {
        let wake = Arc::new(GatedWake { gate: Arc::clone(self), host: host.clone() });
        GatedWaker { waker: Waker::from(Arc::clone(&wake)), wake }
    }
}

/// A gated waker, kept across polls while the host's waker stays the same.
pub(crate) struct GatedWaker {
    wake: Arc<GatedWake>,
    waker: Waker,
}

impl GatedWaker {
    pub(crate) fn wakes(&self, host: &Waker) -> bool {
        self.wake.host.will_wake(host)
    }

    pub(crate) fn waker(&self) -> &Waker {
        &self.waker
    }
}

struct GatedWake {
    gate: Arc<WakeGate>,
    host: Waker,
}

impl Wake for GatedWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.gate.pass(|| self.host.wake_by_ref());
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// A host waker counting its wakes.
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn b54_wakes_pass_until_the_gate_closes() {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let host = Waker::from(Arc::clone(&count));
        let gate = Arc::new(WakeGate::default());
        let gated = gate.waker(&host);
        assert!(gated.wakes(&host));
        gated.waker().wake_by_ref();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        gate.close();
        gated.waker().wake_by_ref();
        assert_eq!(count.0.load(Ordering::SeqCst), 1, "no wake after close");
    }

    #[test]
    fn b54_close_waits_for_a_wake_in_progress() {
        let gate = Arc::new(WakeGate::default());
        let (entered, release) = (std::sync::mpsc::channel(), std::sync::mpsc::channel::<()>());
        let waking = std::thread::spawn({
            let gate = Arc::clone(&gate);
            let (entered, release) = (entered.0, release.1);
            move || {
                let mut left_the_host = None;
                gate.pass(|| {
                    entered.send(()).expect("send");
                    release.recv().expect("released");
                    left_the_host = Some(Instant::now());
                });
                left_the_host.expect("the wake passed")
            }
        });
        entered.1.recv().expect("the wake is in progress");
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            release.0.send(()).expect("release");
        });
        gate.close();
        let closed_at = Instant::now();
        let woke_until = waking.join().expect("no panic");
        releaser.join().expect("no panic");
        assert!(woke_until <= closed_at, "close returned while the wake was still in the host");
    }
}

//! A host thread's interruptions, watched while it waits in a blocking call (ADR 0070).
//!
//! CPython runs a signal's Python handler only on its main thread, between bytecodes: a
//! blocking call that waited inside Rust kept Ctrl-C and gunicorn's SIGTERM waiting for its end
//! (ADR 0042). So a host may give a thread of its own a descriptor that becomes readable when
//! it must run code (the pipe CPython's `signal.set_wakeup_fd` writes a signal's number to) and
//! a function that runs that code and says whether the call goes on. A blocking call on that
//! thread waits for both: when the descriptor is readable, the call stops being polled, the
//! wait returns from the runtime (so the host's code may itself make blocking calls) and the
//! function runs, draining the descriptor. If it went on to its end (it sets a flag the host
//! gave), the same call resumes where it was; if not, the call is dropped (its request with it:
//! the connection closed, nothing sent after) and ends `Cancelled`. A flag rather than a
//! result: CPython runs a pending handler as the callback's first frame starts, so a handler's
//! exception ends the callback before any of its code, and ctypes then returns no value.
//!
//! The call runs on the caller's thread as before (ADR 0010): nothing crosses threads unless a
//! signal comes. The only host that sets this is Python, for its main thread; without the
//! `uniffi` feature no thread has it.

use std::future::Future;
use std::pin::Pin;

/// What a host set for one of its threads: the descriptor to watch, what to run, and the flag
/// that code sets when it went to its end (the call goes on).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Watched {
    #[cfg_attr(not(all(feature = "uniffi", unix)), allow(dead_code))]
    fd: i32,
    #[cfg_attr(not(all(feature = "uniffi", unix)), allow(dead_code))]
    give_way: extern "C" fn(),
    #[cfg_attr(not(all(feature = "uniffi", unix)), allow(dead_code))]
    went_on: *mut i8,
}

#[cfg(all(feature = "uniffi", unix))]
thread_local! {
    static WATCHED: std::cell::Cell<Option<Watched>> = const { std::cell::Cell::new(None) };
}

/// What this thread's host set, if anything.
pub(crate) fn this_thread() -> Option<Watched> {
    #[cfg(all(feature = "uniffi", unix))]
    return WATCHED.with(std::cell::Cell::get);
    #[cfg(not(all(feature = "uniffi", unix)))]
    None
}

/// Sets (or, with `None`, clears) what the calling thread's blocking calls watch.
///
/// # Safety
/// `went_on` must stay valid for writes and reads of one byte while it is set.
#[cfg(all(feature = "uniffi", unix))]
pub(crate) unsafe fn set_for_this_thread(watched: Option<(i32, extern "C" fn(), *mut i8)>) {
    WATCHED.with(|cell| cell.set(watched.map(|(fd, give_way, went_on)| Watched { fd, give_way, went_on })));
}

/// Polls `call` until it ends (`Some`) or, when `watched`, until its descriptor is readable
/// (`None`: the call is left as it is, to be resumed). A descriptor the runtime cannot watch
/// leaves the call uninterruptible, as it was before this module.
pub(crate) async fn until_interrupted<F: Future + ?Sized>(
    watched: Option<Watched>,
    call: Pin<&mut F>,
) -> Option<F::Output> {
    #[cfg(all(feature = "uniffi", unix))]
    if let Some(watched) = watched {
        use tokio::io::Interest;
        use tokio::io::unix::AsyncFd;
        // SAFETY: the host keeps the descriptor open, and the same pipe, while its thread is
        // in a call (sika_ffi_watch_this_thread); the registration ends with this wait.
        if let Ok(descriptor) = unsafe { AsyncFd::register_with_interest(watched.fd, Interest::READABLE) } {
            return tokio::select! {
                biased;
                output = call => Some(output),
                _ = descriptor.readable() => None,
            };
        }
    }
    #[cfg(not(all(feature = "uniffi", unix)))]
    let _ = watched;
    Some(call.await)
}

/// After [`until_interrupted`] returned `None`: runs the host's code, which drains the
/// descriptor (Python passes the signals' numbers on to a wakeup fd it replaced). Whether the
/// call goes on.
pub(crate) fn give_way(watched: Watched) -> bool {
    #[cfg(all(feature = "uniffi", unix))]
    // SAFETY: the host keeps `went_on` valid while it is set (`set_for_this_thread`).
    unsafe {
        watched.went_on.write_volatile(0);
        (watched.give_way)();
        watched.went_on.read_volatile() != 0
    }
    #[cfg(not(all(feature = "uniffi", unix)))]
    {
        let _ = watched;
        true
    }
}

#[cfg(all(test, feature = "uniffi", unix))]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::blocking::run_unless_interrupted;
    use crate::error::{Result, SikaError};

    static GAVE_WAY: AtomicUsize = AtomicUsize::new(0);
    static GO_ON: AtomicBool = AtomicBool::new(true);
    static READ_END: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);
    static WENT_ON: std::sync::atomic::AtomicI8 = std::sync::atomic::AtomicI8::new(0);

    /// The host's code: drains the pipe, as Python's does, and sets the flag when it goes on (a
    /// handler that raised would have ended it first).
    extern "C" fn give_way_here() {
        let mut bytes = [0u8; 16];
        // SAFETY: `bytes` has room for what is asked; the pipe is non-blocking.
        while unsafe { libc::read(READ_END.load(Ordering::SeqCst), bytes.as_mut_ptr().cast(), bytes.len()) } > 0 {}
        GAVE_WAY.fetch_add(1, Ordering::SeqCst);
        if GO_ON.load(Ordering::SeqCst) {
            WENT_ON.store(1, Ordering::SeqCst);
        }
    }

    /// A non-blocking pipe: (read end, write end).
    fn pipe() -> (i32, i32) {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors; both are this test's own.
        unsafe {
            assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
            for fd in fds {
                libc::fcntl(fd, libc::F_SETFL, libc::fcntl(fd, libc::F_GETFL) | libc::O_NONBLOCK);
            }
        }
        (fds[0], fds[1])
    }

    /// Writes one byte to `fd` once `ready` is set (as CPython's signal handler would), from
    /// another thread while this one is in the call.
    fn signal_when(ready: Arc<AtomicBool>, fd: i32) -> std::thread::JoinHandle<()> {
        std::thread::spawn(move || {
            while !ready.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
            // SAFETY: one byte from a live array to the test's pipe.
            assert_eq!(unsafe { libc::write(fd, [2u8].as_ptr().cast(), 1) }, 1);
        })
    }

    /// A call that waits until it is told to finish (after the signal was given way to).
    async fn call_until(finish: Arc<AtomicBool>, started: Arc<AtomicBool>, dropped: Arc<AtomicBool>) -> Result<u32> {
        struct SetOnDrop(Arc<AtomicBool>);
        impl Drop for SetOnDrop {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let _guard = SetOnDrop(dropped);
        started.store(true, Ordering::SeqCst);
        while !finish.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        Ok(7)
    }

    fn run_watched(go_on: bool) -> (Result<u32>, bool) {
        GO_ON.store(go_on, Ordering::SeqCst);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let (read_end, write_end) = pipe();
        READ_END.store(read_end, Ordering::SeqCst);
        WENT_ON.store(1, Ordering::SeqCst); // the core clears it before each call of the host's code
        // SAFETY: a static, valid for ever.
        unsafe { set_for_this_thread(Some((read_end, give_way_here, WENT_ON.as_ptr()))) };
        let (started, finish, dropped) = (Arc::default(), Arc::new(AtomicBool::new(false)), Arc::default());
        let signaller = signal_when(Arc::clone(&started), write_end);
        // The call finishes only after the host's code ran: it was resumed, not restarted.
        let finisher = {
            let finish = Arc::clone(&finish);
            std::thread::spawn(move || {
                while GAVE_WAY.load(Ordering::SeqCst) == 0 {
                    std::thread::sleep(Duration::from_millis(1));
                }
                finish.store(true, Ordering::SeqCst);
            })
        };
        let result = {
            let call = std::pin::pin!(call_until(finish, started, Arc::clone(&dropped)));
            run_unless_interrupted(call, &crate::in_flight::Watch::new(), |call| runtime.block_on(call))
        };
        // SAFETY: clearing sets no pointer.
        unsafe { set_for_this_thread(None) };
        signaller.join().expect("signaller");
        finisher.join().expect("finisher");
        (result, dropped.load(Ordering::SeqCst))
    }

    #[test]
    fn b210_a_watched_call_gives_way_then_resumes_the_same_call() {
        let (result, _) = run_watched(true);
        assert_eq!(result.expect("resumed"), 7);
        assert_eq!(GAVE_WAY.load(Ordering::SeqCst), 1, "the host's code ran once, for one byte");
    }

    #[test]
    fn b210_a_watched_call_the_host_stops_ends_cancelled_and_is_dropped() {
        let (result, dropped) = run_watched(false);
        assert!(matches!(result, Err(SikaError::Cancelled)), "{result:?}");
        assert!(dropped, "the call's future is dropped, its request with it");
        assert_eq!(GAVE_WAY.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn b210_an_unwatched_thread_runs_the_call_to_its_end() {
        // SAFETY: clearing sets no pointer.
        unsafe { set_for_this_thread(None) };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let call = std::pin::pin!(async { Ok::<_, SikaError>(3) });
        assert_eq!(
            run_unless_interrupted(call, &crate::in_flight::Watch::new(), |call| runtime.block_on(call)).expect("ran"),
            3
        );
        assert!(this_thread().is_none());
    }
}

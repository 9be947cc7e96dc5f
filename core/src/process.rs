//! State that belongs to the process that built it: runtimes, connection pools, caches.
//!
//! A process forked from one that used a client inherits a copy of that client's memory: its
//! runtime (whose threads do not exist in the child, and whose epoll instance the child shares
//! with the parent), its pooled sockets (the very TCP connections the parent still reads from),
//! and its locks (held forever when a parent thread held them at the fork). Touching any of it
//! hangs the child, crashes it, or hands one process the answer meant for the other. So each
//! value here is tagged with the id of the process that built it; a process that finds only
//! other processes' values builds its own and leaves the inherited ones alone: never used,
//! locked, shut down or dropped (see `Generation`'s `Drop`). See docs/adr/0013-process-model.md.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::error::{Result, SikaError};

/// A value per process, built on first use in each process (the first one may be given).
pub(crate) struct PerProcess<T> {
    shut_down: AtomicBool,
    /// Each process appends its value after the ones it inherited, so a process's own value
    /// is always the last one. A link is set once and never changed: walking it needs no lock.
    first: Link<T>,
}

type Link<T> = OnceLock<Box<Generation<T>>>;

/// One process's value.
struct Generation<T> {
    pid: u32,
    /// `None` once shut down. Locked only by the process that built it, and only to clone or
    /// take the `Arc`: never across an await.
    value: Mutex<Option<Arc<T>>>,
    next: Link<T>,
}

impl<T> PerProcess<T> {
    /// Nothing built yet: the first `get` builds.
    pub(crate) const fn empty() -> Self {
        Self { shut_down: AtomicBool::new(false), first: OnceLock::new() }
    }

    /// `value`, built by this process.
    pub(crate) fn new(value: T) -> Self {
        Self::built_by(std::process::id(), value)
    }

    fn built_by(pid: u32, value: T) -> Self {
        let state = Self::empty();
        state.first.get_or_init(|| Generation::new(pid, value));
        state
    }

    /// This process's value: the one it built, or one `build` makes now when there is none
    /// (first use, or first use after a fork). `Configuration` once shut down.
    pub(crate) fn get(&self, build: impl FnOnce() -> Result<T>) -> Result<Arc<T>> {
        let pid = std::process::id();
        let mut build = Some(build);
        loop {
            if self.shut_down.load(Ordering::Acquire) {
                return Err(shut_down());
            }
            let (end, last) = self.last();
            if let Some(own) = last.filter(|last| last.pid == pid) {
                return own.value.lock().unwrap_or_else(PoisonError::into_inner).clone().ok_or_else(shut_down);
            }
            // Only this process's threads append after its last inherited value: when another
            // thread got there first, its value (this process's) is found on the next turn.
            let build =
                build.take().ok_or_else(|| SikaError::configuration("cannot set up this process's client state"))?;
            let _lost_race = end.set(Generation::new(pid, build()?));
        }
    }

    /// This process's value if it has built one (and not shut it down); never builds.
    pub(crate) fn current(&self) -> Option<Arc<T>> {
        self.own()?.value.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Marks the value shut down (in this process, and in processes forked from it later) and
    /// hands back this process's value to be dropped by the caller. Calls holding a clone of
    /// it finish with it. Idempotent.
    pub(crate) fn shut_down(&self) -> Option<Arc<T>> {
        self.shut_down.store(true, Ordering::Release);
        self.own()?.value.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// The last value, when this process built it.
    fn own(&self) -> Option<&Generation<T>> {
        self.last().1.filter(|last| last.pid == std::process::id())
    }

    /// The empty link after the last value, and the last value (none before the first `get`).
    fn last(&self) -> (&Link<T>, Option<&Generation<T>>) {
        let (mut end, mut last) = (&self.first, None);
        while let Some(generation) = end.get() {
            (end, last) = (&generation.next, Some(&**generation));
        }
        (end, last)
    }
}

impl<T> Generation<T> {
    fn new(pid: u32, value: T) -> Box<Self> {
        Box::new(Self { pid, value: Mutex::new(Some(Arc::new(value))), next: OnceLock::new() })
    }
}

impl<T> Drop for Generation<T> {
    fn drop(&mut self) {
        if self.pid != std::process::id() {
            // Inherited by fork: leak it on purpose. Dropping it could close sockets the
            // parent still uses, join threads that do not exist here, or wait on a lock a
            // parent thread held at the fork. (`get_mut` reads the value without locking.)
            std::mem::forget(self.value.get_mut().unwrap_or_else(PoisonError::into_inner).take());
        }
    }
}

fn shut_down() -> SikaError {
    SikaError::configuration("the client has been shut down")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b37_the_first_value_is_kept_and_built_once() {
        let state = PerProcess::new(7);
        let value = state.get(|| panic!("already built")).expect("value");
        assert_eq!(*value, 7);
        let lazy = PerProcess::empty();
        assert!(lazy.current().is_none(), "nothing built yet");
        assert_eq!(*lazy.get(|| Ok(1)).expect("built"), 1);
        assert_eq!(lazy.current().as_deref(), Some(&1));
        assert_eq!(*lazy.get(|| Ok(2)).expect("kept"), 1);
    }

    #[test]
    fn b37_a_failed_build_is_the_call_error_and_the_next_call_builds_again() {
        let lazy: PerProcess<u8> = PerProcess::empty();
        let failed = lazy.get(|| Err(SikaError::configuration("no")));
        assert_eq!(failed.expect_err("failed"), SikaError::configuration("no"));
        assert_eq!(*lazy.get(|| Ok(3)).expect("built"), 3);
    }

    #[test]
    fn b43_after_shut_down_every_get_is_configuration_and_the_value_is_handed_back() {
        let state = PerProcess::new(String::from("pool"));
        let held = state.get(|| panic!("built")).expect("value");
        let handed_back = state.shut_down().expect("this process's value");
        assert!(Arc::ptr_eq(&held, &handed_back), "the same value");
        assert!(state.shut_down().is_none(), "twice: nothing more");
        let error = state.get(|| Ok(String::from("new"))).expect_err("shut down");
        assert_eq!(error, SikaError::configuration("the client has been shut down"));
    }

    #[test]
    fn b37_another_process_s_value_is_never_used_and_never_dropped() {
        // What a fork leaves: a value built by another process (no pid is u32::MAX).
        let state = PerProcess::built_by(u32::MAX, ());
        let inherited = state.first.get().and_then(|first| first.value.lock().ok()?.clone()).expect("inherited");
        assert!(state.current().is_none(), "the inherited value is not this process's");
        let own = state.get(|| Ok(())).expect("built here");
        assert!(!Arc::ptr_eq(&own, &inherited), "a fresh value, not the inherited one");
        assert!(Arc::ptr_eq(&own, &state.get(|| panic!("built")).expect("kept")), "then kept");
        drop(own);
        drop(state);
        // Leaked, not dropped: the count still includes the state's reference.
        assert_eq!(Arc::strong_count(&inherited), 2);
        // Kept reachable, so that LeakSanitizer (scripts/test-leaks) does not report the leak.
        static LEAKED_ON_PURPOSE: Mutex<Vec<Arc<()>>> = Mutex::new(Vec::new());
        LEAKED_ON_PURPOSE.lock().unwrap_or_else(PoisonError::into_inner).push(inherited);
    }
}

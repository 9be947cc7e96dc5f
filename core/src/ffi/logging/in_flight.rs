//! The sink calls under way, so that a host shutting down can wait for them to end
//! (`close_log_sink`): a foreign runtime that is being torn down must not be entered, and a
//! thread still waiting to enter it then (Python's GIL, say) could be killed inside Rust.

use std::sync::atomic::{AtomicU64, Ordering};

/// A count tagged with the process it was made in (`pid << 32 | count`). A forked child keeps
/// its parent's memory but none of its other threads, so the calls they had under way are not
/// the child's: a count made in another process reads as zero and restarts from it.
pub(super) struct InFlight(AtomicU64);

/// One call under way; ends when dropped (a panic included).
pub(super) struct Call<'a>(&'a InFlight);

impl InFlight {
    pub(super) const fn new() -> Self {
        Self(AtomicU64::new(0))
    }

    /// Counts a call made by this process.
    pub(super) fn enter(&self) -> Call<'_> {
        self.enter_as(std::process::id());
        Call(self)
    }

    /// The calls of this process under way.
    pub(super) fn count(&self) -> u32 {
        count_for(self.0.load(Ordering::SeqCst), std::process::id())
    }

    fn enter_as(&self, pid: u32) {
        let _ = self.0.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |value| {
            Some(pack(pid, count_for(value, pid).saturating_add(1)))
        });
    }

    fn leave_as(&self, pid: u32) {
        let _ = self.0.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |value| {
            let count = count_for(value, pid);
            (count > 0).then(|| pack(pid, count - 1))
        });
    }
}

impl Drop for Call<'_> {
    fn drop(&mut self) {
        self.0.leave_as(std::process::id());
    }
}

fn pack(pid: u32, count: u32) -> u64 {
    (u64::from(pid) << 32) | u64::from(count)
}

/// The count of `value` if `pid` made it, else zero.
fn count_for(value: u64, pid: u32) -> u32 {
    if (value >> 32) as u32 == pid { value as u32 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b41_calls_are_counted_until_they_end() {
        let in_flight = InFlight::new();
        assert_eq!(in_flight.count(), 0);
        let first = in_flight.enter();
        let second = in_flight.enter();
        assert_eq!(in_flight.count(), 2);
        drop(first);
        assert_eq!(in_flight.count(), 1);
        drop(second);
        assert_eq!(in_flight.count(), 0);
    }

    #[test]
    fn b41_a_forked_child_does_not_wait_for_its_parents_calls() {
        let in_flight = InFlight::new();
        let parent = std::process::id().wrapping_add(1);
        in_flight.enter_as(parent);
        in_flight.enter_as(parent);
        assert_eq!(in_flight.count(), 0, "counted in another process");
        let call = in_flight.enter();
        assert_eq!(in_flight.count(), 1, "the count restarts in this process");
        in_flight.leave_as(parent);
        assert_eq!(in_flight.count(), 1, "a parent's call ending is not this process's");
        drop(call);
        assert_eq!(in_flight.count(), 0);
    }
}

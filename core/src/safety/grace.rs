//! The grace period of a reference the service does not know yet (ADR 0023).
//!
//! A notification, or a wait begun right after a charge, can reach the SDK before the
//! verification endpoint sees the transaction. For `not_found_grace_ms` after this process first
//! heard "not found" for a reference, "not found" means "not visible yet"; after it, "unknown".
//! The clock starts at the SDK's own first sight, never at a time the notification claims: the
//! body is unauthenticated and the documented payload carries no time. Only ever a longer wait,
//! never a decision: a grace turns "not found" into "ask again", never into "paid".

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// References remembered at most, per client and process. A forged flood of references cannot
/// grow memory past it; a reference pushed out only gets a fresh grace (a longer wait, the safe
/// side).
pub(crate) const MAX_REMEMBERED: usize = 4096;

/// What "not found" means now for one reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotFound {
    /// Within the grace: probably not visible yet; ask again later.
    NotVisibleYet { since: Duration, grace: Duration },
    /// The grace is over: the service does not know the reference.
    Unknown { grace: Duration },
}

/// When this process first heard "not found" for each reference.
pub(crate) struct NotFoundGrace {
    grace: Duration,
    first_seen: Mutex<HashMap<String, Instant>>,
}

impl NotFoundGrace {
    pub(crate) fn new(grace: Duration) -> Self {
        Self { grace, first_seen: Mutex::new(HashMap::new()) }
    }

    /// Notes a "not found" for `reference` now and says what it means.
    pub(crate) fn not_found(&self, reference: &str) -> NotFound {
        let now = Instant::now();
        // A panic elsewhere while holding the lock leaves a map that is still consistent.
        let mut first_seen = self.first_seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let since = match first_seen.get(reference) {
            Some(seen) => now.saturating_duration_since(*seen),
            None => {
                make_room(&mut first_seen, now, self.grace);
                first_seen.insert(reference.to_owned(), now);
                Duration::ZERO
            }
        };
        classify(since, self.grace)
    }
}

/// "Not found" `since` after the first one, under a grace of `grace`.
pub(crate) fn classify(since: Duration, grace: Duration) -> NotFound {
    if since < grace { NotFound::NotVisibleYet { since, grace } } else { NotFound::Unknown { grace } }
}

/// Frees a slot when the map is full: first the references whose grace is over, then the oldest.
fn make_room(first_seen: &mut HashMap<String, Instant>, now: Instant, grace: Duration) {
    if first_seen.len() < MAX_REMEMBERED {
        return;
    }
    first_seen.retain(|_, seen| now.saturating_duration_since(*seen) < grace);
    if first_seen.len() >= MAX_REMEMBERED {
        if let Some(oldest) = first_seen.iter().min_by_key(|(_, seen)| **seen).map(|(reference, _)| reference.clone()) {
            first_seen.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn b53_the_grace_runs_from_the_first_not_found_of_each_reference() {
        let grace = NotFoundGrace::new(Duration::from_secs(60));
        assert!(matches!(grace.not_found("A"), NotFound::NotVisibleYet { since, .. } if since.is_zero()));
        tokio::time::advance(Duration::from_secs(59)).await;
        assert!(matches!(grace.not_found("A"), NotFound::NotVisibleYet { .. }));
        assert!(matches!(grace.not_found("B"), NotFound::NotVisibleYet { since, .. } if since.is_zero()));
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(grace.not_found("A"), NotFound::Unknown { grace: Duration::from_secs(60) });
        assert!(
            matches!(grace.not_found("B"), NotFound::NotVisibleYet { .. }),
            "B's grace runs from its own first sight"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn b53_no_grace_means_unknown_at_once() {
        let grace = NotFoundGrace::new(Duration::ZERO);
        assert_eq!(grace.not_found("A"), NotFound::Unknown { grace: Duration::ZERO });
    }

    #[tokio::test(start_paused = true)]
    async fn b53_memory_is_bounded_and_eviction_only_lengthens_a_grace() {
        let grace = NotFoundGrace::new(Duration::from_secs(60));
        grace.not_found("OLDEST");
        tokio::time::advance(Duration::from_secs(30)).await;
        for n in 0..MAX_REMEMBERED {
            grace.not_found(&format!("R-{n}"));
        }
        assert_eq!(grace.first_seen.lock().expect("lock").len(), MAX_REMEMBERED);
        tokio::time::advance(Duration::from_secs(40)).await;
        // Pushed out, OLDEST starts a fresh grace rather than being called unknown early.
        assert!(matches!(grace.not_found("OLDEST"), NotFound::NotVisibleYet { since, .. } if since.is_zero()));
        assert_eq!(grace.first_seen.lock().expect("lock").len(), MAX_REMEMBERED);
    }
}

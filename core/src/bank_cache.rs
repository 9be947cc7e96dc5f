//! The per-country bank list cache (the spec suggests one hour; banks change rarely), with
//! single flight: concurrent callers of one missing or expired list share one fetch and its
//! outcome, failure included, and nobody waits on a lock while the fetch runs, so each caller
//! stays within its own deadline.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::{Shared, WeakShared};
use tokio::time::Instant;

use crate::error::Result;
use crate::models::Bank;

type Fetch = Pin<Box<dyn Future<Output = Result<Vec<Bank>>> + Send>>;
type Flight = Shared<Fetch>;

/// What one country's entry holds: the last list fetched and the fetch under way, if any.
#[derive(Default)]
struct Slot {
    cached: Option<(Instant, Vec<Bank>)>,
    /// Weak, so a fetch every caller has given up on (dropped) is not joined later: its own
    /// deadline has passed or it was cancelled; the next caller starts a new one.
    in_flight: Option<(u64, WeakShared<Fetch>)>,
}

/// One slot per country; a slot's lock is held only to read or update it, never across a fetch.
pub(crate) struct BankCache {
    ttl: Duration,
    slots: Arc<Mutex<HashMap<String, Slot>>>,
    next_flight: Mutex<u64>,
}

impl BankCache {
    pub(crate) fn new(ttl: Duration) -> Self {
        Self { ttl, slots: Arc::default(), next_flight: Mutex::new(0) }
    }

    /// The cached list for `key` if fresh, else the outcome of the fetch under way for `key`,
    /// else `fetch`'s (stored when it succeeded).
    pub(crate) async fn get_or_fetch<F>(&self, key: &str, fetch: F) -> Result<Vec<Bank>>
    where
        F: Future<Output = Result<Vec<Bank>>> + Send + 'static,
    {
        self.younger_than_or_fetch(key, self.ttl, fetch).await
    }

    /// The outcome of a fetch for `key` not answered yet (the one under way, else `fetch`),
    /// stored when it succeeded, whatever the cache held.
    pub(crate) async fn refresh<F>(&self, key: &str, fetch: F) -> Result<Vec<Bank>>
    where
        F: Future<Output = Result<Vec<Bank>>> + Send + 'static,
    {
        // Nothing cached is younger than zero: the list is always fetched.
        self.younger_than_or_fetch(key, Duration::ZERO, fetch).await
    }

    /// The list cached for `key` if younger than `max_age`, else the flight's outcome.
    async fn younger_than_or_fetch<F>(&self, key: &str, max_age: Duration, fetch: F) -> Result<Vec<Bank>>
    where
        F: Future<Output = Result<Vec<Bank>>> + Send + 'static,
    {
        let flight = {
            // A poisoned map only means another thread panicked while holding it; every update
            // is a single assignment, so the map is still sound.
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            let slot = slots.entry(key.to_owned()).or_default();
            if let Some((fetched_at, banks)) = &slot.cached {
                if fetched_at.elapsed() < max_age {
                    return Ok(banks.clone());
                }
            }
            match slot.in_flight.as_ref().and_then(|(_, weak)| weak.upgrade()) {
                Some(flight) => flight,
                None => {
                    let id = self.flight_id();
                    let flight = self.flight(key, id, fetch);
                    slot.in_flight = flight.downgrade().map(|weak| (id, weak));
                    flight
                }
            }
        };
        flight.await
    }

    /// `fetch`, ending by storing its list (when the cache is on) and retiring itself, so the
    /// caller after a failure fetches again.
    fn flight<F>(&self, key: &str, id: u64, fetch: F) -> Flight
    where
        F: Future<Output = Result<Vec<Bank>>> + Send + 'static,
    {
        let slots = Arc::clone(&self.slots);
        let key = key.to_owned();
        let keep = !self.ttl.is_zero();
        let fetch: Fetch = Box::pin(async move {
            let outcome = fetch.await;
            let mut slots = slots.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(slot) = slots.get_mut(&key) {
                // A slot's flight is only ever replaced once it was given up; never retire a newer one.
                if slot.in_flight.as_ref().is_some_and(|(current, _)| *current == id) {
                    slot.in_flight = None;
                }
                if let (true, Ok(banks)) = (keep, &outcome) {
                    slot.cached = Some((Instant::now(), banks.clone()));
                }
            }
            outcome
        });
        fetch.shared()
    }

    fn flight_id(&self) -> u64 {
        let mut next = self.next_flight.lock().unwrap_or_else(PoisonError::into_inner);
        *next += 1;
        *next
    }
}

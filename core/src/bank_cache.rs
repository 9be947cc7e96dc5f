//! The per-country bank list cache (the spec suggests one hour; banks change rarely).

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use crate::error::Result;
use crate::models::Bank;

type Slot = Arc<tokio::sync::Mutex<Option<(Instant, Vec<Bank>)>>>;

/// One slot per country; a slot's async lock is held while its list is fetched, so many
/// concurrent callers for one country cause one request, and other countries do not wait.
pub(crate) struct BankCache {
    ttl: Duration,
    slots: Mutex<HashMap<String, Slot>>,
}

impl BankCache {
    pub(crate) fn new(ttl: Duration) -> Self {
        Self { ttl, slots: Mutex::new(HashMap::new()) }
    }

    /// The cached list for `key` if fresh, else `fetch`'s result (stored when it succeeded).
    pub(crate) async fn get_or_fetch<F>(&self, key: &str, fetch: F) -> Result<Vec<Bank>>
    where
        F: Future<Output = Result<Vec<Bank>>>,
    {
        self.younger_than_or_fetch(key, self.ttl, fetch).await
    }

    /// `fetch`'s result, stored when it succeeded, whatever the cache held.
    pub(crate) async fn refresh<F>(&self, key: &str, fetch: F) -> Result<Vec<Bank>>
    where
        F: Future<Output = Result<Vec<Bank>>>,
    {
        // Nothing cached is younger than zero: the list is always fetched.
        self.younger_than_or_fetch(key, Duration::ZERO, fetch).await
    }

    /// The list cached for `key` if younger than `max_age`, else `fetch`'s result (stored when
    /// it succeeded and the cache is on).
    async fn younger_than_or_fetch<F>(&self, key: &str, max_age: Duration, fetch: F) -> Result<Vec<Bank>>
    where
        F: Future<Output = Result<Vec<Bank>>>,
    {
        if self.ttl.is_zero() {
            return fetch.await;
        }
        let slot = {
            // A poisoned map only means another thread panicked mid-insert of an Arc; the map is still sound.
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(slots.entry(key.to_owned()).or_default())
        };
        let mut cached = slot.lock().await;
        if let Some((fetched_at, banks)) = cached.as_ref() {
            if fetched_at.elapsed() < max_age {
                return Ok(banks.clone());
            }
        }
        let banks = fetch.await?;
        *cached = Some((Instant::now(), banks.clone()));
        Ok(banks)
    }
}

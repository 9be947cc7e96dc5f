//! All mutable sandbox state, in memory behind one mutex.
//!
//! The lock is a `std::sync::Mutex` held only for short, synchronous sections and never across
//! an `.await`. A poisoned lock is recovered rather than propagated: the state is plain data,
//! and a sandbox that stops answering after one bad request would be worse than useless.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;

use crate::fault::Fault;
use crate::raw_object::RawObject;
use crate::time::now_iso;

/// The request log keeps at most this many entries (oldest dropped first), so a sandbox left
/// running under a long test session does not grow without bound.
pub const MAX_LOGGED_REQUESTS: usize = 10_000;

/// One API request as it arrived, for tests that prove what a client did or did not send.
#[derive(Debug, Clone, Serialize)]
pub struct LoggedRequest {
    pub method: String,
    /// The path exactly as on the wire, still percent-encoded.
    pub path: String,
    pub query: Option<String>,
    pub authorized: bool,
    /// The `X-Request-Id` the client sent (as text, invalid UTF-8 replaced), or null.
    pub request_id: Option<String>,
    /// The `X-Request-Id` the sandbox answered with (a `request_id` fault may send another).
    pub answered_request_id: String,
    /// API requests being answered when this one arrived, this one included: a client's
    /// concurrency, as the service saw it.
    pub in_flight: usize,
    /// When it arrived, in milliseconds since the sandbox started.
    pub received_ms: u64,
    /// The W3C trace context it carried (`traceparent`, `tracestate`), or null.
    pub traceparent: Option<String>,
    pub tracestate: Option<String>,
}

/// One attempted webhook delivery.
#[derive(Debug, Clone, Serialize)]
pub struct WebhookAttempt {
    /// `null` only for a forced notification sent with a raw body and no reference.
    pub reference: Option<String>,
    /// True when the receiver answered with a 2xx status.
    pub delivered: bool,
    pub event: String,
    pub url: String,
    /// The receiver's HTTP status; `null` when it did not answer (refused, timed out...).
    pub http_status: Option<u16>,
    /// Why it was not delivered; `null` when it was.
    pub error: Option<String>,
    /// Which delivery this attempt belongs to (from 1; a delivery's retries share it).
    pub delivery_id: u64,
    /// 1 for the first attempt of a delivery, 2 for its first retry, and so on.
    pub attempt: u32,
    /// When the attempt was sent (`2024-01-15T10:30:00.000Z`).
    pub sent_at: String,
    /// How long the receiver took to answer (or to fail), in milliseconds.
    pub duration_ms: u64,
}

/// An injected fault waiting for its requests.
#[derive(Debug)]
struct StoredFault {
    id: u64,
    /// How many more requests it applies to (never 0: a used-up fault is removed).
    remaining: u64,
    fault: Arc<Fault>,
}

/// Ids handed to the builder of a charge's transaction object.
#[derive(Debug)]
pub struct ChargeIds {
    pub transaction_id: u64,
    pub customer_id: u64,
    pub customer_created_at: String,
}

#[derive(Debug)]
pub enum ChargeError {
    DuplicateReference,
    Build(serde_json::Error),
}

#[derive(Debug)]
struct StoredTransaction {
    /// Unique for the life of the process (survives resets), so a USSD timer started for one
    /// charge never changes a transaction that later replaced it under the same reference.
    version: u64,
    object: RawObject,
}

#[derive(Debug)]
struct Customer {
    id: u64,
    created_at: String,
}

#[derive(Debug)]
struct Inner {
    transactions: HashMap<String, StoredTransaction>,
    customers: HashMap<String, Customer>,
    requests: VecDeque<LoggedRequest>,
    webhooks: Vec<WebhookAttempt>,
    /// In the order they were added, which is the order they are used in.
    faults: Vec<StoredFault>,
    next_fault_id: u64,
    next_delivery_id: u64,
    next_transaction_id: u64,
    next_customer_id: u64,
    next_version: u64,
}

impl Inner {
    fn new() -> Self {
        Self {
            transactions: HashMap::new(),
            customers: HashMap::new(),
            requests: VecDeque::new(),
            webhooks: Vec::new(),
            faults: Vec::new(),
            next_fault_id: 1,
            next_delivery_id: 1,
            next_transaction_id: 1,
            next_customer_id: 1,
            next_version: 1,
        }
    }

    fn bump_version(&mut self) -> u64 {
        let version = self.next_version;
        self.next_version += 1;
        version
    }
}

#[derive(Debug)]
pub struct Store {
    inner: Mutex<Inner>,
}

impl Default for Store {
    fn default() -> Self {
        Self::new()
    }
}

impl Store {
    pub fn new() -> Self {
        Self { inner: Mutex::new(Inner::new()) }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A copy of the transaction stored under exactly this `tx_ref`.
    pub fn get(&self, tx_ref: &str) -> Option<RawObject> {
        self.lock().transactions.get(tx_ref).map(|t| t.object.clone())
    }

    /// Stores (or replaces) a transaction as given: the control API's seeding.
    pub fn put(&self, tx_ref: String, object: RawObject) {
        let mut inner = self.lock();
        let version = inner.bump_version();
        inner.transactions.insert(tx_ref, StoredTransaction { version, object });
    }

    /// Creates a charge's transaction unless the reference is taken. Checking and inserting
    /// under one lock makes two concurrent charges with one reference yield exactly one 409.
    /// Returns the object and its version (for the USSD simulation).
    pub fn create_charge(
        &self,
        tx_ref: &str,
        email: &str,
        build: impl FnOnce(&ChargeIds) -> Result<RawObject, serde_json::Error>,
    ) -> Result<(RawObject, u64), ChargeError> {
        let mut inner = self.lock();
        if inner.transactions.contains_key(tx_ref) {
            return Err(ChargeError::DuplicateReference);
        }
        let (customer_id, customer_created_at, new_customer) = match inner.customers.get(email) {
            Some(c) => (c.id, c.created_at.clone(), false),
            None => (inner.next_customer_id, now_iso(), true),
        };
        let ids = ChargeIds { transaction_id: inner.next_transaction_id, customer_id, customer_created_at };
        let object = build(&ids).map_err(ChargeError::Build)?;
        // Counters move only once the build succeeded.
        inner.next_transaction_id += 1;
        if new_customer {
            inner.next_customer_id += 1;
            inner
                .customers
                .insert(email.to_owned(), Customer { id: ids.customer_id, created_at: ids.customer_created_at });
        }
        let version = inner.bump_version();
        inner.transactions.insert(tx_ref.to_owned(), StoredTransaction { version, object: object.clone() });
        Ok((object, version))
    }

    /// Sets `status` (and `updated_at` when the object has one). `Ok(None)`: no such transaction.
    pub fn set_status(&self, tx_ref: &str, status: &str) -> Result<Option<RawObject>, serde_json::Error> {
        let mut inner = self.lock();
        let Some(stored) = inner.transactions.get_mut(tx_ref) else {
            return Ok(None);
        };
        stored.object.insert_json("status", status)?;
        stored.object.replace_existing("updated_at", &now_iso())?;
        Ok(Some(stored.object.clone()))
    }

    /// Moves the transaction from status `from` to `to`, only if it is still the same stored
    /// transaction (`version`) and still in `from`. Returns whether it moved.
    pub fn transition(&self, tx_ref: &str, version: u64, from: &str, to: &str) -> bool {
        let mut inner = self.lock();
        let Some(stored) = inner.transactions.get_mut(tx_ref) else {
            return false;
        };
        if stored.version != version || stored.object.get_str("status").as_deref() != Some(from) {
            return false;
        }
        let mut updated = stored.object.clone();
        if updated.insert_json("status", to).is_err() || updated.replace_existing("updated_at", &now_iso()).is_err() {
            return false;
        }
        stored.object = updated;
        true
    }

    pub fn log_request(&self, request: LoggedRequest) {
        let mut inner = self.lock();
        if inner.requests.len() >= MAX_LOGGED_REQUESTS {
            inner.requests.pop_front();
        }
        inner.requests.push_back(request);
    }

    pub fn requests(&self) -> Vec<LoggedRequest> {
        self.lock().requests.iter().cloned().collect()
    }

    pub fn clear_requests(&self) {
        self.lock().requests.clear();
    }

    pub fn log_webhook(&self, attempt: WebhookAttempt) {
        self.lock().webhooks.push(attempt);
    }

    /// A new delivery's id (its attempts, retries included, all carry it).
    pub fn next_delivery_id(&self) -> u64 {
        let mut inner = self.lock();
        let id = inner.next_delivery_id;
        inner.next_delivery_id += 1;
        id
    }

    pub fn webhooks(&self) -> Vec<WebhookAttempt> {
        self.lock().webhooks.clone()
    }

    /// Adds a fault for the next `count` matching requests (`count` at least 1); returns its id.
    pub fn add_fault(&self, fault: Fault, count: u64) -> u64 {
        let mut inner = self.lock();
        let id = inner.next_fault_id;
        inner.next_fault_id += 1;
        inner.faults.push(StoredFault { id, remaining: count.max(1), fault: Arc::new(fault) });
        id
    }

    /// Uses up one request's worth of the first fault (in the order added) that matches this
    /// request, if any.
    pub fn take_fault(&self, method: &str, path: &str) -> Option<Arc<Fault>> {
        let mut inner = self.lock();
        let index = inner.faults.iter().position(|stored| stored.fault.matches(method, path))?;
        let stored = &mut inner.faults[index];
        let fault = stored.fault.clone();
        stored.remaining = stored.remaining.saturating_sub(1);
        if stored.remaining == 0 {
            inner.faults.remove(index);
        }
        Some(fault)
    }

    /// The faults still waiting, as shown by the control API.
    pub fn faults(&self) -> Vec<serde_json::Value> {
        self.lock().faults.iter().map(|stored| stored.fault.describe(stored.id, stored.remaining)).collect()
    }

    pub fn clear_faults(&self) {
        self.lock().faults.clear();
    }

    /// Back to a fresh start: no transactions, customers, logged requests, webhooks or faults,
    /// ids from 1 again. Versions keep counting so timers of earlier charges stay inert.
    pub fn reset(&self) {
        let mut inner = self.lock();
        let next_version = inner.next_version;
        *inner = Inner::new();
        inner.next_version = next_version;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str) -> RawObject {
        RawObject::parse(text.as_bytes()).unwrap_or_default()
    }

    #[test]
    fn b171_a_charge_then_its_duplicate() {
        let store = Store::new();
        let first = store.create_charge("r1", "a@b.co", |ids| {
            assert_eq!(ids.transaction_id, 1);
            Ok(object(r#"{"status":"pending"}"#))
        });
        assert!(first.is_ok());
        let second = store.create_charge("r1", "a@b.co", |_| Ok(RawObject::new()));
        assert!(matches!(second, Err(ChargeError::DuplicateReference)));
    }

    #[test]
    fn b171_a_transition_respects_version_and_status() {
        let store = Store::new();
        let Ok((_, version)) =
            store.create_charge("r1", "a@b.co", |_| Ok(object(r#"{"status":"pending","updated_at":"x"}"#)))
        else {
            panic!("charge failed");
        };
        assert!(!store.transition("r1", version + 100, "pending", "successful"));
        assert!(store.transition("r1", version, "pending", "successful"));
        assert!(!store.transition("r1", version, "pending", "failed"));
        let stored = store.get("r1").unwrap_or_default();
        assert_eq!(stored.get_str("status").as_deref(), Some("successful"));
        assert_ne!(stored.get_str("updated_at").as_deref(), Some("x"));
        // A seeded replacement is a new version: the old timer cannot touch it.
        store.put("r1".into(), object(r#"{"status":"successful"}"#));
        assert!(!store.transition("r1", version, "successful", "reversed"));
    }

    #[test]
    fn b173_set_status_adds_no_updated_at() {
        let store = Store::new();
        store.put("s".into(), object(r#"{"tx_ref":"s"}"#));
        let updated = store.set_status("s", "weird").ok().flatten();
        let text = updated.and_then(|o| serde_json::to_string(&o).ok());
        assert_eq!(text.as_deref(), Some(r#"{"tx_ref":"s","status":"weird"}"#));
        assert!(matches!(store.set_status("missing", "x"), Ok(None)));
    }

    #[test]
    fn b173_reset_restarts_ids() {
        let store = Store::new();
        let _ = store.create_charge("r1", "a@b.co", |_| Ok(RawObject::new()));
        store.reset();
        assert!(store.get("r1").is_none());
        let _ = store.create_charge("r2", "a@b.co", |ids| {
            assert_eq!(ids.transaction_id, 1);
            assert_eq!(ids.customer_id, 1);
            Ok(RawObject::new())
        });
    }
}

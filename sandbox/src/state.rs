//! The state every handler shares: the secret key fixed at startup, the settings tests may
//! change at run time, and the [`Store`].

use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, header};

use crate::listener::ConnectionStats;
use crate::store::Store;
use crate::webhook::WebhookTarget;

pub type AppState = Arc<Shared>;

/// Deliberately not `Debug`: it holds the secret key.
pub struct Shared {
    /// The exact `Authorization` value accepted: `Bearer <KEY>`.
    expected_authorization: Vec<u8>,
    /// Set from the command line, changed by `POST /__sandbox/settings`; not touched by a reset.
    settings: Mutex<Settings>,
    pub store: Store,
    /// Counted by the listener, read by `GET /__sandbox/connections`.
    pub connections: Arc<ConnectionStats>,
    /// API requests being answered now (the request log's `in_flight`).
    pub in_flight: AtomicUsize,
    /// When the sandbox started (the request log's `received_ms`).
    pub started: Instant,
}

/// What `POST /__sandbox/settings` can change.
#[derive(Debug, Clone)]
pub struct Settings {
    /// How long the simulated customer takes to answer the USSD prompt (read when a charge
    /// is made, so a change applies to later charges).
    pub confirm_after: Duration,
    /// Where `charge.success` goes, when configured.
    pub webhook: Option<WebhookTarget>,
    /// How many times each `charge.success` of the simulation is delivered (repeated
    /// deliveries, as a real service's retries would cause).
    pub webhook_repeat: u32,
    /// The waits before each retry of a delivery that failed (empty: no retries).
    pub webhook_retry: Vec<std::time::Duration>,
}

impl Shared {
    pub fn new(secret_key: &str, settings: Settings) -> Self {
        Self {
            expected_authorization: format!("Bearer {secret_key}").into_bytes(),
            settings: Mutex::new(settings),
            store: Store::new(),
            connections: Arc::default(),
            in_flight: AtomicUsize::new(0),
            started: Instant::now(),
        }
    }

    /// The settings as they are now (a copy: the lock is never held across an `.await`).
    pub fn settings(&self) -> Settings {
        self.lock_settings().clone()
    }

    /// Changes the settings under the lock; returns the new ones.
    pub fn update_settings(&self, change: impl FnOnce(&mut Settings)) -> Settings {
        let mut settings = self.lock_settings();
        change(&mut settings);
        settings.clone()
    }

    fn lock_settings(&self) -> MutexGuard<'_, Settings> {
        self.settings.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// True when the request carries exactly one `Authorization` header equal to
    /// `Bearer <KEY>` (scheme and key compared exactly, as the real service does).
    pub fn is_authorized(&self, headers: &HeaderMap) -> bool {
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        match (values.next(), values.next()) {
            (Some(value), None) => value.as_bytes() == self.expected_authorization.as_slice(),
            _ => false,
        }
    }
}

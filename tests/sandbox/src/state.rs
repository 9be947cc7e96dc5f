//! The state every handler shares: the configuration fixed at startup and the [`Store`].

use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, header};

use crate::store::Store;
use crate::webhook::WebhookTarget;

pub type AppState = Arc<Shared>;

/// Deliberately not `Debug`: it holds the secret key.
pub struct Shared {
    /// The exact `Authorization` value accepted: `Bearer <KEY>`.
    expected_authorization: Vec<u8>,
    /// How long the simulated customer takes to answer the USSD prompt.
    pub confirm_after: Duration,
    /// Where `charge.success` goes, when configured.
    pub webhook: Option<WebhookTarget>,
    pub store: Store,
}

impl Shared {
    pub fn new(secret_key: &str, confirm_after: Duration, webhook: Option<WebhookTarget>) -> Self {
        Self {
            expected_authorization: format!("Bearer {secret_key}").into_bytes(),
            confirm_after,
            webhook,
            store: Store::new(),
        }
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

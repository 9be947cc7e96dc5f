//! Reconciliation (issue 28): the payments still open, verified again from a scheduled job (a
//! cron job, Celery beat, Spring's `@Scheduled`, a Swift task), for the notifications that never
//! came or came too early: pending, unknown, never seen, or claimed by a worker that died.

use std::sync::Mutex;
use std::time::Duration;

use futures_util::{StreamExt, stream};
use tokio::time::Instant;

use super::{EventSource, Ledger, LedgerDecision, OpenPage, Row};
use crate::client::Client;
use crate::error::{Result, SikaError};
use crate::status::TransactionStatus;

/// How a reconciliation run chooses and paces its checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReconcileOptions {
    /// Only payments expected at least this long ago, in milliseconds (default 1 minute: a new
    /// order's notification is usually on its way).
    pub older_than_ms: u64,
    /// At most this many payments per run, oldest first (default 100).
    pub limit: u32,
    /// At most this many requests to the service in flight (default 4).
    pub concurrency: u32,
}

impl Default for ReconcileOptions {
    fn default() -> Self {
        Self { older_than_ms: 60_000, limit: 100, concurrency: 4 }
    }
}

/// One payment a run checked, and the ledger's decision: fulfil a `Fulfil` (then
/// [`Ledger::mark_fulfilled`]); the others need nothing now.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ReconciledPayment {
    /// The order's reference.
    pub reference: String,
    /// What the ledger decided, recorded with the source `reconcile`.
    pub decision: LedgerDecision,
}

/// A payment a run could not check (the service's error, or the database's): it stays open,
/// for the next run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ReconcileFailure {
    /// The order's reference.
    pub reference: String,
    /// The error's text.
    pub reason: String,
    /// The request id to quote to support, when a request preceded the error.
    pub request_id: Option<String>,
}

/// What a reconciliation run did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ReconcileReport {
    /// Every payment checked, oldest first, with the ledger's decision.
    pub checked: Vec<ReconciledPayment>,
    /// Every payment whose check failed.
    pub failures: Vec<ReconcileFailure>,
}

/// A `429` answered with this many tries of one payment is a failure of the run.
const RATE_LIMITED_TRIES: u32 = 3;
/// The pause after a `429` without `Retry-After`, and the longest pause honoured.
const DEFAULT_PAUSE: Duration = Duration::from_secs(1);
const LONGEST_PAUSE: Duration = Duration::from_secs(60);

impl Ledger {
    /// Verifies again the payments still open: not fulfilled, expected at least
    /// `older_than_ms` ago, and pending, of an unknown status, never verified, or claimed by
    /// a caller whose lease expired (one with a final status that was not paid, or paid but
    /// not in full, waits for a person, not for this). Oldest first, at most `limit`, with at
    /// most `concurrency` requests in flight; a `429` pauses every check for its `Retry-After`
    /// (then the payment is tried again, 3 tries in all); each request keeps the client's
    /// deadline and retries. Each decision is made and recorded as [`Ledger::settle`]'s, with
    /// the source `reconcile`: a paid one is `Fulfil` with a claim to exactly one caller.
    /// The service's and the database's errors for one payment are that payment's failure;
    /// listing the open payments failing is this call's `Storage` error.
    pub async fn reconcile(&self, client: &Client, options: &ReconcileOptions) -> Result<ReconcileReport> {
        if options.limit == 0 {
            return Err(SikaError::invalid_input("limit", "must be greater than zero"));
        }
        if options.concurrency == 0 {
            return Err(SikaError::invalid_input("concurrency", "must be greater than zero"));
        }
        let references = self.open_references(options).await?;
        let pause = Pause::default();
        let outcomes = stream::iter(references)
            .map(|reference| self.check_again(client, reference, &pause))
            .buffered(usize::try_from(options.concurrency).unwrap_or(usize::MAX))
            .collect::<Vec<_>>()
            .await;
        let mut report = ReconcileReport { checked: Vec::new(), failures: Vec::new() };
        for (reference, outcome) in outcomes {
            match outcome {
                Ok(decision) => report.checked.push(ReconciledPayment { reference, decision }),
                Err(error) => report.failures.push(ReconcileFailure {
                    reason: error.to_string(),
                    request_id: error.request_id().map(str::to_owned),
                    reference,
                }),
            }
        }
        Ok(report)
    }

    /// The references to check, oldest first, at most `limit`.
    async fn open_references(&self, options: &ReconcileOptions) -> Result<Vec<String>> {
        let now = self.now();
        let older_than = i64::try_from(options.older_than_ms.saturating_mul(1_000)).unwrap_or(i64::MAX);
        let limit = usize::try_from(options.limit).unwrap_or(usize::MAX);
        let mut references = Vec::new();
        let mut after = (i64::MIN, String::new());
        loop {
            let page = OpenPage {
                created_before: now.saturating_sub(older_than),
                now,
                after: after.clone(),
                size: i64::from(options.limit),
            };
            let rows = self
                .within(async {
                    match &*self.store().await? {
                        super::Store::Sqlite(s) => s.open_page(page).await,
                        super::Store::Postgres(s) => s.open_page(page).await,
                    }
                })
                .await?;
            let full_page = rows.len() == limit;
            if let Some(last) = rows.last() {
                after = (last.created_at, last.reference.clone());
            }
            references.extend(rows.into_iter().filter(worth_checking).map(|row| row.reference));
            if references.len() >= limit || !full_page {
                references.truncate(limit);
                return Ok(references);
            }
        }
    }

    async fn check_again(&self, client: &Client, reference: String, pause: &Pause) -> (String, Result<LedgerDecision>) {
        let mut tries = 0;
        loop {
            pause.wait().await;
            tries += 1;
            match self.decide(client, &reference, EventSource::Reconcile).await {
                Err(SikaError::RateLimited { retry_after_seconds, .. }) if tries < RATE_LIMITED_TRIES => {
                    let wait = retry_after_seconds
                        .and_then(|s| u64::try_from(s).ok())
                        .map_or(DEFAULT_PAUSE, Duration::from_secs)
                        .min(LONGEST_PAUSE);
                    pause.until(Instant::now() + wait);
                }
                outcome => return (reference, outcome),
            }
        }
    }
}

/// Whether a payment with no live claim and not fulfilled is worth a request: never verified,
/// not final yet (pending, or a status Sika does not know), or paid with a claim that expired.
fn worth_checking(row: &Row) -> bool {
    match &row.last_status {
        None => true,
        Some(status) => !TransactionStatus::from_wire(status).is_final() || row.claims_offered > 0,
    }
}

/// No check starts before the instant a `429` asked for. A `std` mutex: the lock is only held
/// to read or move the instant, never across an `await`.
#[derive(Default)]
struct Pause(Mutex<Option<Instant>>);

impl Pause {
    async fn wait(&self) {
        let until = *self.lock();
        if let Some(until) = until {
            tokio::time::sleep_until(until).await;
        }
    }

    fn until(&self, instant: Instant) {
        let mut until = self.lock();
        if until.is_none_or(|current| current < instant) {
            *until = Some(instant);
        }
    }

    /// The instant, even after a panic elsewhere while it was held (an `Option<Instant>` is
    /// never left half-written).
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

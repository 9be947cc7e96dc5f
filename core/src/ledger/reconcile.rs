//! Reconciliation (issue 28): the payments still open, verified again from a scheduled job (a
//! cron job, Celery beat, Spring's `@Scheduled`, a Swift task), for the notifications that never
//! came or came too early: pending, unknown, never seen, or claimed by a worker that died.
//!
//! A run claims nothing (ADR 0081): a payment it finds paid in full is recorded `ready` and
//! reported, and [`Ledger::claim`] claims it when its fulfilment starts, so however many a run
//! finds, no claim waits while the merchant's code ships the others.

use std::sync::Mutex;
use std::time::Duration;

use futures_util::{StreamExt, stream};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::{
    Claim, ClaimRequest, ClaimState, ClaimStep, Claimed, EventSource, Ledger, LedgerDecision, OpenPage, Row, Store,
};
use crate::client::Client;
use crate::error::{Result, SikaError};
use crate::models::Transaction;
use crate::models::json::{from_json_functions, to_json_methods};
use crate::safety::webhook::WebhookDecision;
use crate::spans;
use crate::status::TransactionStatus;
use crate::validation;

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
    /// How long the run may take, in milliseconds (default 4 minutes: under a 5-minute
    /// schedule). No check starts after it, nor waits for a `Retry-After` that ends after it;
    /// the checks already sent finish (each within the client's own deadline). The payments
    /// left are in the report's `unchecked`, for the next run.
    pub deadline_ms: u64,
}

impl Default for ReconcileOptions {
    fn default() -> Self {
        Self { older_than_ms: 60_000, limit: 100, concurrency: 4, deadline_ms: DEFAULT_DEADLINE_MS }
    }
}

/// A run's default deadline: 4 minutes, so that a run started every 5 minutes ends before the
/// next one starts.
pub const DEFAULT_DEADLINE_MS: u64 = 4 * 60 * 1000;

/// One payment a run checked and decided, and the ledger's decision (never `Fulfil`: a run
/// claims nothing, a payment paid in full is [`ReadyPayment`]): nothing to do now.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ReconciledPayment {
    /// The order's reference.
    pub reference: String,
    /// What the ledger decided, recorded with the source `reconcile`.
    pub decision: LedgerDecision,
}

/// A payment a run verified paid in full, recorded as `ready` and not claimed (ADR 0081): claim
/// it with [`Ledger::claim`] when its fulfilment starts, then fulfil it in the block (or
/// `mark_fulfilled`). Left unclaimed, the next run finds it again. It has the records' JSON
/// (`to_json()`, `ready_payment_from_json`), so a job can queue one fulfilment per payment:
/// [`Ledger::claim`] decides by the ledger's own record, never by the text's transaction alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ReadyPayment {
    /// The order's reference.
    pub reference: String,
    /// The verified transaction.
    pub transaction: Transaction,
}

to_json_methods!(ReadyPayment);
from_json_functions!(ready_payment_from_json => ReadyPayment);

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
    /// The error itself, typed: decide by its kind (`RateLimited`, `Timeout`, `Storage`, ...),
    /// never by `reason`'s text, which is for people.
    pub error: SikaError,
}

/// What a reconciliation run did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ReconcileReport {
    /// Every payment checked and decided that needs nothing now, oldest first, with the
    /// ledger's decision.
    pub checked: Vec<ReconciledPayment>,
    /// Every payment verified paid in full, oldest first, unclaimed: claim each with
    /// [`Ledger::claim`] as its fulfilment starts.
    pub ready: Vec<ReadyPayment>,
    /// Every payment whose check failed.
    pub failures: Vec<ReconcileFailure>,
    /// The payments this run had no time for (its `deadline_ms` passed, or a `Retry-After`
    /// would have ended after it), oldest first: still open, for the next run.
    pub unchecked: Vec<String>,
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
    /// the source `reconcile`, except that a payment paid in full is not claimed: it is
    /// recorded `ready` and listed in the report's `ready`, for [`Ledger::claim`] (ADR 0081).
    /// The service's and the database's errors for one payment are that payment's failure;
    /// listing the open payments failing is this call's `Storage` error.
    pub async fn reconcile(&self, client: &Client, options: &ReconcileOptions) -> Result<ReconcileReport> {
        let span = spans::call_span!("ledger.reconcile", None::<&str>);
        spans::in_call_span(span, self.run_reconcile(client, options)).await
    }

    /// [`Ledger::reconcile`]'s run, in its span: its verifications are the span's children.
    async fn run_reconcile(&self, client: &Client, options: &ReconcileOptions) -> Result<ReconcileReport> {
        if options.limit == 0 {
            return Err(SikaError::invalid_input("limit", "must be greater than zero"));
        }
        if options.concurrency == 0 {
            return Err(SikaError::invalid_input("concurrency", "must be greater than zero"));
        }
        if options.deadline_ms == 0 {
            return Err(SikaError::invalid_input("deadline_ms", "must be greater than zero"));
        }
        let deadline = Instant::now() + Duration::from_millis(options.deadline_ms);
        let references = self.open_references(options).await?;
        let pause = Pause::default();
        let outcomes = stream::iter(references)
            .map(|reference| self.check_again(client, reference, &pause, deadline))
            .buffered(usize::try_from(options.concurrency).unwrap_or(usize::MAX))
            .collect::<Vec<_>>()
            .await;
        let mut report =
            ReconcileReport { checked: Vec::new(), ready: Vec::new(), failures: Vec::new(), unchecked: Vec::new() };
        for (reference, outcome) in outcomes {
            match outcome {
                None => report.unchecked.push(reference),
                Some(Ok(Checked::Decided(decision))) => report.checked.push(ReconciledPayment { reference, decision }),
                Some(Ok(Checked::Ready(ready))) => report.ready.push(ready),
                Some(Err(error)) => report.failures.push(ReconcileFailure {
                    reason: error.to_string(),
                    request_id: error.request_id().map(str::to_owned),
                    reference,
                    error,
                }),
            }
        }
        if !report.unchecked.is_empty() {
            log::warn!(
                target: "sika",
                unchecked = report.unchecked.len();
                "reconcile: {} payments left for the next run: the run's deadline ({} ms) passed", report.unchecked.len(), options.deadline_ms
            );
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

    /// The payment's decision, or `None` when the run's `deadline` leaves no time to check it.
    async fn check_again(
        &self,
        client: &Client,
        reference: String,
        pause: &Pause,
        deadline: Instant,
    ) -> (String, Option<Result<Checked>>) {
        let mut tries = 0;
        loop {
            if pause.ends_after(deadline) || Instant::now() >= deadline {
                return (reference, None);
            }
            pause.wait().await;
            tries += 1;
            match self.check_unclaimed(client, &reference).await {
                Err(SikaError::RateLimited { retry_after_seconds, .. }) if tries < RATE_LIMITED_TRIES => {
                    let wait = retry_after_seconds
                        .and_then(|s| u64::try_from(s).ok())
                        .map_or(DEFAULT_PAUSE, Duration::from_secs)
                        .min(LONGEST_PAUSE);
                    pause.until(Instant::now() + wait);
                }
                outcome => return (reference, Some(outcome)),
            }
        }
    }
}

/// Whether a payment with no live claim and not fulfilled is worth a request: never verified,
/// not final yet (pending, or a status Sika does not know), paid with a claim that expired, or
/// found paid by a run whose task never claimed it (ADR 0081).
fn worth_checking(row: &Row) -> bool {
    match &row.last_status {
        None => true,
        Some(status) => {
            !TransactionStatus::from_wire(status).is_final() || row.claims_offered > 0 || row.paid_at.is_some()
        }
    }
}

/// What a run made of one payment.
enum Checked {
    /// Decided, and nothing to fulfil now.
    Decided(LedgerDecision),
    /// Paid in full, recorded `ready`, not claimed.
    Ready(ReadyPayment),
}

/// What claiming a ready payment found, under the row's lock.
pub(super) enum ReadyClaim {
    /// No verification recorded it paid in full (nor a claim since): nothing to claim.
    NotPaid { last_status: Option<String> },
    /// The claim rule's step, as after a verification.
    Claimed(Claimed),
}

/// The rule of claiming without asking the service: the claim rule's, but only a payment
/// a reconciliation run recorded paid in full (`paid`) may be offered; `None`: not paid.
pub(super) fn ready_claim_step(state: &ClaimState, paid: bool, now: i64) -> Option<ClaimStep> {
    let step = super::claim_step(state, now);
    match step {
        ClaimStep::Offer { .. } if !paid => None,
        step => Some(step),
    }
}

impl Ledger {
    /// A run's check of one payment: [`Ledger::settle`]'s decision, recorded with the source
    /// `reconcile`, except that a payment paid in full is recorded `ready`, not claimed.
    async fn check_unclaimed(&self, client: &Client, reference: &str) -> Result<Checked> {
        let Some(row) = self.row(reference).await? else {
            return Err(SikaError::invalid_input(
                "reference",
                format!("reference `{reference}` is not expected by the ledger: record it with `expect` first"),
            ));
        };
        if let Some(answer) = self.answer_without_asking(&row, EventSource::Reconcile).await? {
            return Ok(Checked::Decided(answer));
        }
        let expected = row.expected()?;
        crate::safety::confirm::validate_expected(&expected)?;
        // The deliveries' verification in flight, shared (ADR 0085), as `decide` does.
        let verified = self.verify_once(client, reference).await;
        let (decision, status) = client.settle_decision_from(reference, verified, &expected)?;
        let WebhookDecision::Fulfil { transaction } = decision else {
            return self.conclude(reference, decision, status, EventSource::Reconcile).await.map(Checked::Decided);
        };
        let (at, status) = (self.now(), transaction.status.to_string());
        let detail = "verified paid in full: ready to fulfil, claimed when its fulfilment starts";
        self.within(async {
            match &*self.store().await? {
                Store::Sqlite(s) => s.record_ready(reference, at, &status, detail).await,
                Store::Postgres(s) => s.record_ready(reference, at, &status, detail).await,
            }
        })
        .await?;
        Ok(Checked::Ready(ReadyPayment { reference: reference.to_owned(), transaction }))
    }

    /// Claims a payment a reconciliation run reported ready, with no request to the service,
    /// as its fulfilment starts (ADR 0081): `Fulfil` with the claim (and the run's verified
    /// transaction) to exactly one caller per lease, as [`Ledger::settle`] gives it;
    /// `AlreadyFulfilled` or `InProgress` when another caller got there first. A reference the
    /// ledger does not expect, or a transaction of another reference, is `InvalidInput`; one
    /// no run recorded paid in full is `Decided(RetryLater)`, nothing claimed. Recorded with
    /// the source `reconcile`.
    pub async fn claim(&self, ready: &ReadyPayment) -> Result<LedgerDecision> {
        let span = spans::call_span!("ledger.claim", spans::shown(&ready.reference));
        spans::in_call_span(span, self.claim_ready(ready)).await
    }

    /// [`Ledger::claim`], in its span.
    async fn claim_ready(&self, ready: &ReadyPayment) -> Result<LedgerDecision> {
        let reference = ready.reference.as_str();
        validation::reference(reference)?;
        if ready.transaction.tx_ref != reference {
            return Err(SikaError::invalid_input(
                "transaction",
                format!("the transaction of `{}` is not `{reference}`'s", ready.transaction.tx_ref),
            ));
        }
        let request = ClaimRequest {
            now: self.now(),
            lease: self.lease_micros(),
            token: super::new_token(),
            source: EventSource::Reconcile,
            status: ready.transaction.status.to_string(),
        };
        let found = self
            .within(async {
                match &*self.store().await? {
                    Store::Sqlite(s) => s.claim_ready(reference, &request).await,
                    Store::Postgres(s) => s.claim_ready(reference, &request).await,
                }
            })
            .await?;
        let claimed = match found {
            None => {
                return Err(SikaError::invalid_input(
                    "reference",
                    format!("reference `{reference}` is not expected by the ledger: nothing to claim"),
                ));
            }
            Some(ReadyClaim::NotPaid { last_status }) => {
                let status = last_status.as_deref().unwrap_or("never verified");
                return Ok(LedgerDecision::Decided {
                    decision: WebhookDecision::RetryLater {
                        reason: format!(
                            "`{reference}` is not recorded as paid in full ({status}): nothing to claim; `settle` \
                             it, or let its notification or the next reconcile run decide"
                        ),
                    },
                });
            }
            Some(ReadyClaim::Claimed(claimed)) => claimed,
        };
        match claimed.step {
            ClaimStep::Offer { offer } => {
                super::warn_if_lapsed(reference, &claimed);
                Ok(LedgerDecision::Fulfil {
                    claim: Claim {
                        reference: reference.to_owned(),
                        token: request.token,
                        offer,
                        lease_expires_at: super::timestamp(claimed.lease_until)?,
                    },
                    transaction: ready.transaction.clone(),
                })
            }
            other => other.into_decision(reference),
        }
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

    /// Whether the pause in force ends after `deadline`.
    fn ends_after(&self, deadline: Instant) -> bool {
        self.lock().is_some_and(|until| until > deadline)
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

//! The payments ledger as foreign code calls it (ADR 0046, ADR 0050): owned arguments in, the
//! core's own records and errors out. `Ledger`'s methods run on the SDK's runtime (as the async
//! client's do, `runtime.rs`); `BlockingLedger`'s decisions run as the blocking client's calls
//! do (on the caller's thread, with its connections), its other calls on the SDK's runtime. Opening is a blocking call in both (once, at start-up): SQLite creates or migrates
//! its file, PostgreSQL connects and migrates under its advisory lock.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::clients::{BlockingClient, Client};
use super::runtime;
use super::tracer::{self, Decided, Traced};
use crate::error::Result;
use crate::ledger::{self, Claim, LedgerDecision, PaymentEvent, PaymentRecord, ReadyPayment, ReconcileReport};
use crate::models::json::{from_json_functions, to_json_methods};
use crate::trace::{self, CallTrace};
use crate::{ChargeRequest, ChargeResponse, ExpectedPayment, SecretUrl};

/// A ledger's settings as foreign code gives them: signed and optional (unset: the core's
/// default; negative: `InvalidInput` naming the setting).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, uniffi::Record)]
pub struct LedgerOptions {
    /// How long a claim lasts before it is offered again, in milliseconds (default 5 minutes).
    #[uniffi(default = None)]
    pub lease_ms: Option<i64>,
    /// SQLite: how long a change waits for another connection's write lock, in milliseconds
    /// (default 5 s).
    #[uniffi(default = None)]
    pub busy_timeout_ms: Option<i64>,
    /// PostgreSQL: the schema of the `sika_` tables (created if missing; default `public`).
    #[uniffi(default = None)]
    pub schema: Option<String>,
    /// PostgreSQL: connections kept open at most (default 8).
    #[uniffi(default = None)]
    pub max_connections: Option<i64>,
    /// PostgreSQL: how long connecting may take, TCP and start-up both, in milliseconds
    /// (default 5 s).
    #[uniffi(default = None)]
    pub connect_timeout_ms: Option<i64>,
    /// How long one operation may take in all before it is a `Storage` error, in milliseconds
    /// (default 20 s, the client's call deadline): each statement and lock wait included, so a
    /// database that stops answering never hangs a worker.
    #[uniffi(default = None)]
    pub timeout_ms: Option<i64>,
}

to_json_methods!(LedgerOptions);
from_json_functions!(ledger_options_from_json => LedgerOptions);

impl LedgerOptions {
    fn sqlite(self) -> Result<ledger::SqliteOptions> {
        let defaults = ledger::SqliteOptions::default();
        Ok(ledger::SqliteOptions {
            lease_ms: setting("lease_ms", self.lease_ms, defaults.lease_ms)?,
            busy_timeout_ms: setting("busy_timeout_ms", self.busy_timeout_ms, defaults.busy_timeout_ms)?,
            timeout_ms: setting("timeout_ms", self.timeout_ms, defaults.timeout_ms)?,
        })
    }

    fn postgres(self) -> Result<ledger::PostgresOptions> {
        let defaults = ledger::PostgresOptions::default();
        Ok(ledger::PostgresOptions {
            schema: self.schema,
            lease_ms: setting("lease_ms", self.lease_ms, defaults.lease_ms)?,
            max_connections: setting("max_connections", self.max_connections, defaults.max_connections)?,
            connect_timeout_ms: setting("connect_timeout_ms", self.connect_timeout_ms, defaults.connect_timeout_ms)?,
            timeout_ms: setting("timeout_ms", self.timeout_ms, defaults.timeout_ms)?,
        })
    }
}

/// A reconciliation run's settings as foreign code gives them: signed and optional (unset: the
/// core's default; negative: `InvalidInput` naming the setting; `limit` or `concurrency` 0:
/// `InvalidInput`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, uniffi::Record)]
pub struct ReconcileOptions {
    /// Only payments expected at least this long ago, in milliseconds (default 1 minute).
    #[uniffi(default = None)]
    pub older_than_ms: Option<i64>,
    /// At most this many payments per run, oldest first (default 100).
    #[uniffi(default = None)]
    pub limit: Option<i64>,
    /// At most this many requests to the service in flight (default 4).
    #[uniffi(default = None)]
    pub concurrency: Option<i64>,
    /// How long the run may take, in milliseconds (default 4 minutes, under a 5-minute
    /// schedule): no check starts after it; the payments left are the report's `unchecked`.
    #[uniffi(default = None)]
    pub deadline_ms: Option<i64>,
}

to_json_methods!(ReconcileOptions);
from_json_functions!(reconcile_options_from_json => ReconcileOptions);

impl ReconcileOptions {
    fn core(self) -> Result<ledger::ReconcileOptions> {
        let defaults = ledger::ReconcileOptions::default();
        Ok(ledger::ReconcileOptions {
            older_than_ms: setting("older_than_ms", self.older_than_ms, defaults.older_than_ms)?,
            limit: setting("limit", self.limit, defaults.limit)?,
            concurrency: setting("concurrency", self.concurrency, defaults.concurrency)?,
            deadline_ms: setting("deadline_ms", self.deadline_ms, defaults.deadline_ms)?,
        })
    }
}

fn setting<T: TryFrom<i64>>(field: &str, value: Option<i64>, default: T) -> Result<T> {
    value.map_or(Ok(default), |value| super::unsigned(field, value))
}

/// Opens a ledger on the SDK's runtime (PostgreSQL's connection tasks live there).
fn open_sqlite(path: String, options: Option<LedgerOptions>) -> Result<Arc<ledger::Ledger>> {
    let options = options.unwrap_or_default().sqlite()?;
    runtime::block_on(async move { ledger::Ledger::sqlite_with(path, options).await.map(Arc::new) })
}

fn open_postgres(url: Arc<SecretUrl>, options: Option<LedgerOptions>) -> Result<Arc<ledger::Ledger>> {
    let options = options.unwrap_or_default().postgres()?;
    runtime::block_on(async move { ledger::Ledger::postgres((*url).clone(), options).await.map(Arc::new) })
}

fn renew_interval_ms(ledger: &ledger::Ledger) -> i64 {
    i64::try_from(ledger.renew_interval().as_millis()).unwrap_or(i64::MAX)
}

/// `payment_events`' foreign arguments as the core's: `after` unset is 0, `limit` unset is
/// `payment()`'s page (100); a negative one is `InvalidInput`.
fn events_page(after: Option<i64>, limit: Option<i64>) -> Result<(i64, u32)> {
    let after = setting("after", after, 0_u64)?;
    let limit = setting("limit", limit, ledger::PAYMENT_EVENTS_SHOWN)?;
    Ok((i64::try_from(after).unwrap_or(i64::MAX), limit))
}

/// Runs the ledger operation `call` on the SDK's runtime as a traced call `ledger.<operation>`
/// (ADR 0085): the host's tracer sees it start here, at the first poll (the host's thread), and
/// end where its result is taken, and the verifications it sends carry its W3C context and are
/// its attempts, as a client call's are (ADR 0058, 0059).
async fn traced<T, F>(operation: &'static str, reference: Option<&str>, server: Option<&url::Url>, call: F) -> Result<T>
where
    F: Future<Output = Result<T>> + Send + 'static,
    T: Decided + Send + 'static,
{
    let traced = tracer::start(operation, reference, server);
    let result = runtime::run(trace::scoped(traced.as_ref().map(Traced::trace), call)).await;
    if let Some(traced) = traced {
        traced.end(&result);
    }
    result
}

/// `traced` for a blocking ledger's call, on the caller's thread: `call` runs with the trace its
/// requests carry (none: untraced).
fn traced_blocking<T: Decided>(
    operation: &'static str,
    reference: Option<&str>,
    server: Option<&url::Url>,
    call: impl FnOnce(Option<Arc<CallTrace>>) -> Result<T>,
) -> Result<T> {
    let traced = tracer::start(operation, reference, server);
    let result = call(traced.as_ref().map(Traced::trace));
    if let Some(traced) = traced {
        traced.end(&result);
    }
    result
}

/// The payments ledger, async: fulfil exactly once. Share one per process.
#[derive(uniffi::Object)]
pub struct Ledger(Arc<ledger::Ledger>);

#[uniffi::export]
impl Ledger {
    /// Opens (creating or migrating) a ledger in the SQLite file `path` (WAL mode). Blocks
    /// while it opens. Throws `Storage` when the file cannot be opened.
    #[uniffi::constructor(default(options = None))]
    pub fn sqlite(path: String, options: Option<LedgerOptions>) -> Result<Arc<Self>> {
        Ok(Arc::new(Self(open_sqlite(path, options)?)))
    }

    /// Connects to PostgreSQL at `url` (its password is never printed) and creates or migrates
    /// the tables under an advisory lock. Blocks while it opens.
    #[uniffi::constructor(default(options = None))]
    pub fn postgres(url: Arc<SecretUrl>, options: Option<LedgerOptions>) -> Result<Arc<Self>> {
        Ok(Arc::new(Self(open_postgres(url, options)?)))
    }

    /// Records an order's expected payment. The same values again: a no-op; other values for a
    /// known reference: `InvalidInput` naming it (never overwritten).
    ///
    /// Parameters:
    /// - `reference`: your reference of the order's payment.
    /// - `expected`: the order's `amount` and `currency`.
    ///
    /// Errors: `InvalidInput` naming `reference`, `amount` or `currency` (nothing recorded), `Storage`
    /// when the database fails (down, locked past `busy_timeout_ms`, full): nothing recorded half-way,
    /// no claim given.
    pub async fn expect(&self, reference: String, expected: ExpectedPayment) -> Result<()> {
        let ledger = Arc::clone(&self.0);
        let shown = Some(reference.clone());
        traced("ledger.expect", shown.as_deref(), None, async move { ledger.expect(&reference, &expected).await }).await
    }

    /// Charges through the ledger: checks the request, records its amount and currency as the
    /// reference's expected payment (as `expect` does), then sends it (`initiate_charge`). A
    /// bad request, or a reference expected with other figures: `InvalidInput`, nothing sent.
    ///
    /// Parameters:
    /// - `client`: the client that sends the charge.
    /// - `request`: the charge, as for the client's `initiate_charge`.
    ///
    /// Returns: the service's `ChargeResponse`.
    ///
    /// Errors: `InvalidInput` naming the field (nothing sent), `Storage` when the database fails (down,
    /// locked past `busy_timeout_ms`, full): nothing recorded half-way, no claim given (nothing sent then),
    /// and the errors of the client's `initiate_charge` (`ChargeOutcomeUnknown` above all: verify, or
    /// let the webhook or `reconcile` settle it).
    pub async fn initiate_charge(&self, client: Arc<Client>, request: ChargeRequest) -> Result<ChargeResponse> {
        let ledger = Arc::clone(&self.0);
        let client = client.core().clone();
        let (shown, server) = (Some(request.reference.clone()), client.base_url().clone());
        let call = async move { ledger.initiate_charge(&client, &request).await };
        traced("ledger.initiate_charge", shown.as_deref(), Some(&server), call).await
    }

    /// Decides a notification with the recorded expectation, and gives `Fulfil` (with its
    /// claim) to exactly one caller per lease; answer with `http_status()`.
    ///
    /// Parameters:
    /// - `client`: the client that verifies the notification's reference.
    /// - `body`: the request's body, as received.
    ///
    /// Returns: a `LedgerDecision`: `Fulfil` (ship, then `mark_fulfilled` its claim),
    /// `AlreadyFulfilled`, `InProgress`, or `Decided` (the client's own decision, recorded; a
    /// reference the ledger does not expect is `Reject`, with nothing sent). Answer the webhook
    /// with its `http_status()`.
    ///
    /// Errors: `Storage` when the database fails (down, locked past `busy_timeout_ms`, full): nothing
    /// recorded half-way, no claim given. A failed verification is a decision (`RetryLater`), not an
    /// error.
    pub async fn handle_webhook(&self, client: Arc<Client>, body: Vec<u8>) -> Result<LedgerDecision> {
        let ledger = Arc::clone(&self.0);
        let client = client.core().clone();
        let server = client.base_url().clone();
        let call = async move { ledger.handle_webhook(&client, &body).await };
        traced("ledger.handle_webhook", None, Some(&server), call).await
    }

    /// Verifies `reference` and decides as `handle_webhook` does (order page, or after
    /// `await_final_status`). A reference never expected is `InvalidInput`, nothing sent.
    ///
    /// Parameters:
    /// - `client`: the client that verifies it.
    /// - `reference`: your reference of an expected payment.
    ///
    /// Returns: a `LedgerDecision`, as `handle_webhook` gives.
    ///
    /// Errors: `InvalidInput` naming `reference` (never expected; nothing sent), `Storage` when the
    /// database fails (down, locked past `busy_timeout_ms`, full): nothing recorded half-way, no claim
    /// given; and the errors of the client's `confirm_payment` (`TransactionNotFound`, `Timeout`, ...).
    pub async fn settle(&self, client: Arc<Client>, reference: String) -> Result<LedgerDecision> {
        let ledger = Arc::clone(&self.0);
        let client = client.core().clone();
        let (shown, server) = (Some(reference.clone()), client.base_url().clone());
        let call = async move { ledger.settle(&client, &reference).await };
        traced("ledger.settle", shown.as_deref(), Some(&server), call).await
    }

    /// Marks the claim's order fulfilled (a compare-and-set on the claim): `ClaimLost` when its
    /// lease expired and it was offered again; the same claim again is a no-op.
    ///
    /// Parameters:
    /// - `claim`: the claim of a `Fulfil` decision, once the order is fulfilled.
    ///
    /// Errors: `ClaimLost` (another caller holds the reference's claim now), `Storage` when the
    /// database fails (down, locked past `busy_timeout_ms`, full): nothing recorded half-way, no claim
    /// given.
    pub async fn mark_fulfilled(&self, claim: Claim) -> Result<()> {
        let ledger = Arc::clone(&self.0);
        let shown = Some(claim.reference.clone());
        traced("ledger.mark_fulfilled", shown.as_deref(), None, async move { ledger.mark_fulfilled(&claim).await })
            .await
    }

    /// Extends the claim's lease from now while its fulfilment goes on (a compare-and-set, as
    /// `mark_fulfilled` is): the claim with its new `lease_expires_at`; `ClaimLost` (logged at
    /// WARN) when the reference was offered again meanwhile: stop the fulfilment. The
    /// fulfilment blocks of each language call it every `renew_interval_ms()`.
    ///
    /// Parameters:
    /// - `claim`: the claim of a `Fulfil` decision (or its last renewal) whose order is being fulfilled.
    ///
    /// Returns: the claim with its new `lease_expires_at` (a claim already marked fulfilled, as it is).
    ///
    /// Errors: `ClaimLost` (another caller holds the reference's claim now), `Storage` when the
    /// database fails or does not answer within `timeout_ms`: nothing changed.
    pub async fn renew(&self, claim: Claim) -> Result<Claim> {
        let ledger = Arc::clone(&self.0);
        let shown = Some(claim.reference.clone());
        traced("ledger.renew", shown.as_deref(), None, async move { ledger.renew(&claim).await }).await
    }

    /// Gives the claim back at once because its fulfilment failed: the next delivery, settle
    /// or reconcile is offered the reference immediately, not after the lease. Recorded with
    /// `reason`. A claim already marked fulfilled stays fulfilled; `ClaimLost` when it was
    /// offered again meanwhile.
    ///
    /// Parameters:
    /// - `claim`: the claim of a `Fulfil` decision whose fulfilment failed.
    /// - `reason`: why, for the audit trail (at most 500 characters are kept).
    ///
    /// Errors: `ClaimLost` (another caller holds the reference's claim now), `Storage` when the
    /// database fails or does not answer within `timeout_ms`: nothing changed.
    pub async fn release(&self, claim: Claim, reason: String) -> Result<()> {
        let ledger = Arc::clone(&self.0);
        let shown = Some(claim.reference.clone());
        traced("ledger.release", shown.as_deref(), None, async move { ledger.release(&claim, &reason).await }).await
    }

    /// Claims a payment of a `reconcile` report's `ready` list as its fulfilment starts, with no
    /// request to the service (ADR 0081): call it for each, in turn, just before fulfilling it,
    /// so no claim waits while earlier ones ship.
    ///
    /// Parameters:
    /// - `ready`: a `ReadyPayment` of a `reconcile` report.
    ///
    /// Returns: a `LedgerDecision`: `Fulfil` (fulfil it in the block, or ship then `mark_fulfilled`
    /// its claim), `AlreadyFulfilled` or `InProgress` (another caller has it: nothing to do), or
    /// `Decided` with `RetryLater` when no run recorded it paid in full (nothing claimed).
    ///
    /// Errors: `InvalidInput` naming `reference` (never expected) or `transaction` (another
    /// reference's), `Storage` when the database fails or does not answer within `timeout_ms`:
    /// nothing claimed.
    pub async fn claim(&self, ready: ReadyPayment) -> Result<LedgerDecision> {
        let ledger = Arc::clone(&self.0);
        runtime::run(async move { ledger.claim(&ready).await }).await
    }

    /// How often a claim's holder renews it while working: a third of the lease.
    ///
    /// Returns: milliseconds.
    ///
    /// Errors: none (it reads a setting).
    pub fn renew_interval_ms(&self) -> i64 {
        renew_interval_ms(&self.0)
    }

    /// The record of `reference` with its first 100 events of the audit trail, oldest first
    /// (`more_events`: more follow, page them with `payment_events`); none when never expected.
    /// A delivery repeated in a row is one event with its `repeats` and `last_at`.
    ///
    /// Parameters:
    /// - `reference`: your reference of the payment.
    ///
    /// Returns: its `PaymentRecord` (expected figures, last status, claim, its first 100 events), or none.
    ///
    /// Errors: `Storage` when the database fails (down, locked past `busy_timeout_ms`, full): nothing
    /// recorded half-way, no claim given.
    pub async fn payment(&self, reference: String) -> Result<Option<PaymentRecord>> {
        let ledger = Arc::clone(&self.0);
        let shown = Some(reference.clone());
        traced("ledger.payment", shown.as_deref(), None, async move { ledger.payment(&reference).await }).await
    }

    /// The events of `reference` after the one whose `sequence` is `after`, oldest first: the
    /// pages after `payment()`'s first 100 events.
    ///
    /// Parameters:
    /// - `reference`: your reference of the payment.
    /// - `after`: the `sequence` of the last event already read (unset or 0: from the first).
    /// - `limit`: at most this many events (unset: 100; 1 to 1,000).
    ///
    /// Returns: the events, oldest first; empty when none follow (or the reference was never expected).
    ///
    /// Errors: `InvalidInput` naming `after` or `limit` (negative, or `limit` 0 or over 1,000), `Storage`
    /// when the database fails or does not answer within `timeout_ms`.
    #[uniffi::method(default(after = None, limit = None))]
    pub async fn payment_events(
        &self,
        reference: String,
        after: Option<i64>,
        limit: Option<i64>,
    ) -> Result<Vec<PaymentEvent>> {
        let (after, limit) = events_page(after, limit)?;
        let ledger = Arc::clone(&self.0);
        let shown = Some(reference.clone());
        let call = async move { ledger.payment_events(&reference, after, limit).await };
        traced("ledger.payment_events", shown.as_deref(), None, call).await
    }

    /// Verifies again the payments still open (pending, of an unknown status, never verified,
    /// or claimed by a caller whose lease expired), oldest first, at most `limit`, with at
    /// most `concurrency` requests in flight; a 429 pauses the run for its `Retry-After`. For
    /// a scheduled job. A run claims nothing: the payments paid in full are the report's
    /// `ready`, each claimed with `claim` as its fulfilment starts (ADR 0081). A payment whose
    /// check failed is in `failures`, and stays open for the next run.
    ///
    /// Parameters:
    /// - `client`: the client that verifies the payments.
    /// - `options`: `older_than_ms` (1 minute), `limit` (100) and `concurrency` (4).
    ///
    /// Returns: a `ReconcileReport`: the payments paid in full, unclaimed (`ready`), each other
    /// payment checked with the ledger's decision (`checked`), the `failures` (each reference
    /// with why its check failed) and the payments left for the next run (`unchecked`).
    ///
    /// Errors: `InvalidInput` naming an option, `Storage` when the database fails (down, locked past
    /// `busy_timeout_ms`, full): nothing recorded half-way, no claim given. A payment's failed check is
    /// in the report, not an error.
    #[uniffi::method(default(options = None))]
    pub async fn reconcile(&self, client: Arc<Client>, options: Option<ReconcileOptions>) -> Result<ReconcileReport> {
        let options = options.unwrap_or_default().core()?;
        let ledger = Arc::clone(&self.0);
        let client = client.core().clone();
        let server = client.base_url().clone();
        let call = async move { ledger.reconcile(&client, &options).await };
        traced("ledger.reconcile", None, Some(&server), call).await
    }
}

/// The payments ledger, blocking: the same operations as plain calls, for threads, WSGI
/// servers and Java. Share one per process.
#[derive(uniffi::Object)]
pub struct BlockingLedger(Arc<ledger::Ledger>);

impl BlockingLedger {
    /// The ledger, with this process's store opened on the SDK's runtime: a decision runs on
    /// the blocking client's runtime, which nothing drives between its calls, so connections
    /// opened there (a forked worker's first call, ADR 0055) hung every later call.
    fn opened(&self) -> Result<&ledger::Ledger> {
        if !self.0.is_open_in_this_process() {
            let ledger = Arc::clone(&self.0);
            runtime::block_on(async move { ledger.open_in_this_process().await })?;
        }
        Ok(&self.0)
    }
}

#[uniffi::export]
impl BlockingLedger {
    /// See `Ledger.sqlite`.
    #[uniffi::constructor(default(options = None))]
    pub fn sqlite(path: String, options: Option<LedgerOptions>) -> Result<Arc<Self>> {
        Ok(Arc::new(Self(open_sqlite(path, options)?)))
    }

    /// See `Ledger.postgres`.
    #[uniffi::constructor(default(options = None))]
    pub fn postgres(url: Arc<SecretUrl>, options: Option<LedgerOptions>) -> Result<Arc<Self>> {
        Ok(Arc::new(Self(open_postgres(url, options)?)))
    }

    /// The same ledger (its store and its connections) with async methods, for the asyncio
    /// side of an app that also has threads. Both may be used at once.
    pub fn async_ledger(&self) -> Arc<Ledger> {
        Arc::new(Ledger(Arc::clone(&self.0)))
    }

    /// See `Ledger.expect`.
    pub fn expect(&self, reference: String, expected: ExpectedPayment) -> Result<()> {
        let ledger = Arc::clone(&self.0);
        traced_blocking("ledger.expect", Some(&reference.clone()), None, |trace| {
            runtime::block_on(trace::scoped(trace, async move { ledger.expect(&reference, &expected).await }))
        })
    }

    /// See `Ledger.initiate_charge`.
    pub fn initiate_charge(&self, client: Arc<BlockingClient>, request: ChargeRequest) -> Result<ChargeResponse> {
        let core = client.core();
        let ledger = self.opened()?;
        traced_blocking(
            "ledger.initiate_charge",
            Some(&request.reference),
            Some(core.async_client().base_url()),
            |trace| core.run_with(trace::scoped(trace, ledger.initiate_charge(core.async_client(), &request))),
        )
    }

    /// See `Ledger.handle_webhook`.
    pub fn handle_webhook(&self, client: Arc<BlockingClient>, body: Vec<u8>) -> Result<LedgerDecision> {
        let core = client.core();
        let ledger = self.opened()?;
        traced_blocking("ledger.handle_webhook", None, Some(core.async_client().base_url()), |trace| {
            core.run_with(trace::scoped(trace, ledger.handle_webhook(core.async_client(), &body)))
        })
    }

    /// See `Ledger.settle`.
    pub fn settle(&self, client: Arc<BlockingClient>, reference: String) -> Result<LedgerDecision> {
        let core = client.core();
        let ledger = self.opened()?;
        traced_blocking("ledger.settle", Some(&reference), Some(core.async_client().base_url()), |trace| {
            core.run_with(trace::scoped(trace, ledger.settle(core.async_client(), &reference)))
        })
    }

    /// See `Ledger.mark_fulfilled`.
    pub fn mark_fulfilled(&self, claim: Claim) -> Result<()> {
        let ledger = Arc::clone(&self.0);
        traced_blocking("ledger.mark_fulfilled", Some(&claim.reference.clone()), None, |trace| {
            runtime::block_on(trace::scoped(trace, async move { ledger.mark_fulfilled(&claim).await }))
        })
    }

    /// See `Ledger.renew`.
    pub fn renew(&self, claim: Claim) -> Result<Claim> {
        let ledger = Arc::clone(&self.0);
        traced_blocking("ledger.renew", Some(&claim.reference.clone()), None, |trace| {
            runtime::block_on(trace::scoped(trace, async move { ledger.renew(&claim).await }))
        })
    }

    /// See `Ledger.release`.
    pub fn release(&self, claim: Claim, reason: String) -> Result<()> {
        let ledger = Arc::clone(&self.0);
        traced_blocking("ledger.release", Some(&claim.reference.clone()), None, |trace| {
            runtime::block_on(trace::scoped(trace, async move { ledger.release(&claim, &reason).await }))
        })
    }

    /// See `Ledger.claim`.
    pub fn claim(&self, ready: ReadyPayment) -> Result<LedgerDecision> {
        let ledger = Arc::clone(&self.0);
        runtime::block_on(async move { ledger.claim(&ready).await })
    }

    /// See `Ledger.renew_interval_ms`.
    pub fn renew_interval_ms(&self) -> i64 {
        renew_interval_ms(&self.0)
    }

    /// See `Ledger.payment`.
    pub fn payment(&self, reference: String) -> Result<Option<PaymentRecord>> {
        let ledger = Arc::clone(&self.0);
        traced_blocking("ledger.payment", Some(&reference.clone()), None, |trace| {
            runtime::block_on(trace::scoped(trace, async move { ledger.payment(&reference).await }))
        })
    }

    /// See `Ledger.payment_events`.
    #[uniffi::method(default(after = None, limit = None))]
    pub fn payment_events(
        &self,
        reference: String,
        after: Option<i64>,
        limit: Option<i64>,
    ) -> Result<Vec<PaymentEvent>> {
        let (after, limit) = events_page(after, limit)?;
        let ledger = Arc::clone(&self.0);
        traced_blocking("ledger.payment_events", Some(&reference.clone()), None, |trace| {
            runtime::block_on(trace::scoped(
                trace,
                async move { ledger.payment_events(&reference, after, limit).await },
            ))
        })
    }

    /// See `Ledger.reconcile`.
    #[uniffi::method(default(options = None))]
    pub fn reconcile(&self, client: Arc<BlockingClient>, options: Option<ReconcileOptions>) -> Result<ReconcileReport> {
        let options = options.unwrap_or_default().core()?;
        let core = client.core();
        let ledger = self.opened()?;
        traced_blocking("ledger.reconcile", None, Some(core.async_client().base_url()), |trace| {
            core.run_with(trace::scoped(trace, ledger.reconcile(core.async_client(), &options)))
        })
    }
}

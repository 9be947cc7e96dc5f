//! The payments ledger (ADR 0046): the decision, the claim to fulfil and the audit trail of
//! every reference, on the merchant's database (SQLite embedded, PostgreSQL across machines).
//!
//! The ledger decides nothing itself: [`Client::handle_webhook`] and [`Client::confirm_payment`]
//! decide, against the expectation the ledger recorded; the ledger then gives the claim to fulfil
//! to exactly one caller per lease, records every decision, and answers the others "already
//! fulfilled" or "in progress".
//!
//! What "exactly once" means here: for one reference, at most one caller at a time holds a live
//! claim, and once [`Ledger::mark_fulfilled`] succeeds no caller is ever offered it again. A
//! caller that crashes after fulfilling and before marking loses its claim when the lease
//! expires, and the next webhook, settle or reconcile is offered it again (once per expiry): the
//! fulfilment code must still be idempotent on the reference for that case.
//!
//! ```rust,no_run
//! # async fn example(client: sika_core::Client, body: Vec<u8>) -> sika_core::Result<()> {
//! # async fn ship(_reference: &str) -> sika_core::Result<()> { Ok(()) }
//! use sika_core::ExpectedPayment;
//! use sika_core::ledger::{Ledger, LedgerDecision};
//!
//! let ledger = Ledger::sqlite("orders-ledger.db").await?;   // or Ledger::postgres(url, options)
//! ledger.expect("ORDER-1001", &ExpectedPayment { amount: "25.50".parse()?, currency: "GHS".into() }).await?;
//! // In the webhook handler:
//! let decision = ledger.handle_webhook(&client, &body).await?;
//! if let LedgerDecision::Fulfil { claim, .. } = &decision {
//!     // Renewed while it ships, marked fulfilled after, given back if shipping fails.
//!     ledger.fulfil(claim, |held| async move { ship(&held.reference).await }).await?;
//! }
//! let _answer = decision.http_status();
//! # Ok(())
//! # }
//! ```

mod clock;
mod flight;
mod fulfilment;
mod postgres;
mod reconcile;
mod sqlite;

pub use reconcile::{
    ReadyPayment, ReconcileFailure, ReconcileOptions, ReconcileReport, ReconciledPayment, ready_payment_from_json,
};

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chrono::DateTime;
use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::error::{Result, SikaError};
use crate::models::json::{self, from_json_functions, optional_timestamp_text, timestamp_text, to_json_methods};
use crate::models::{ChargeRequest, ChargeResponse, Transaction};
use crate::process::PerProcess;
use crate::safety::confirm::{self, ExpectedPayment};
use crate::safety::webhook::{self, WebhookDecision, WebhookDecisionKind};
use crate::secret::SecretUrl;
use crate::spans;
use crate::status::TransactionStatus;
use crate::timestamp::{self, Timestamp};
use crate::validation;

/// The schema version this SDK writes (`sika_schema_version.version`).
pub const SCHEMA_VERSION: i64 = 1;
/// How long a claim lasts unless configured: 5 minutes.
pub const DEFAULT_LEASE_MS: u64 = 5 * 60 * 1000;
/// How many events `payment()` gives at most (ADR 0085): page the rest with
/// [`Ledger::payment_events`].
pub const PAYMENT_EVENTS_SHOWN: u32 = 100;
/// How many events one page of [`Ledger::payment_events`] gives at most.
pub const MAX_EVENTS_PAGE: u32 = 1_000;
/// How long one ledger operation may take unless configured: the client's default call
/// deadline (20 s), so a database that stops answering never holds a worker longer than a call
/// to the service would.
pub const DEFAULT_TIMEOUT_MS: u64 = 20_000;

/// Settings of a SQLite ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqliteOptions {
    /// How long a claim lasts before it is offered again, in milliseconds (default 5 minutes).
    pub lease_ms: u64,
    /// How long a change waits for another connection's write lock before it is a `Storage`
    /// error, in milliseconds (default 5 s; never longer than `timeout_ms`).
    pub busy_timeout_ms: u64,
    /// How long one operation may take in all before it is a `Storage` error, in milliseconds
    /// (default 20 s, the client's call deadline).
    pub timeout_ms: u64,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        Self { lease_ms: DEFAULT_LEASE_MS, busy_timeout_ms: 5_000, timeout_ms: DEFAULT_TIMEOUT_MS }
    }
}

/// Settings of a PostgreSQL ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostgresOptions {
    /// The PostgreSQL schema of the `sika_` tables (created if missing); `None`: `public`.
    pub schema: Option<String>,
    /// How long a claim lasts before it is offered again, in milliseconds (default 5 minutes).
    pub lease_ms: u64,
    /// Connections this ledger keeps open at most (default 8).
    pub max_connections: u32,
    /// How long connecting may take, TCP and PostgreSQL's start-up both, in milliseconds
    /// (default 5 s).
    pub connect_timeout_ms: u64,
    /// How long one operation may take in all (waiting for a connection, each statement, each
    /// row lock) before it is a `Storage` error, in milliseconds (default 20 s, the client's
    /// call deadline). The server enforces it too (`statement_timeout`, `lock_timeout`), and a
    /// connection whose operation ran out of time is closed, never pooled again.
    pub timeout_ms: u64,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            schema: None,
            lease_ms: DEFAULT_LEASE_MS,
            max_connections: 8,
            connect_timeout_ms: 5_000,
            timeout_ms: DEFAULT_TIMEOUT_MS,
        }
    }
}

/// The right to fulfil one reference, given to exactly one caller per lease. Hand it back to
/// [`Ledger::mark_fulfilled`] once the order is fulfilled, or to [`Ledger::release`] when the
/// fulfilment failed; [`Ledger::renew`] extends it while the work goes on. `offer` is the
/// fencing token for downstream systems: it only grows, so a warehouse or a shipping API that
/// remembers the highest offer it acted on for a reference can refuse a stale holder's request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Claim {
    /// The order's reference.
    pub reference: String,
    /// This claim's identity (random; not a secret).
    pub token: String,
    /// Which offer of the reference this is: 1 for the first, 2 after one lease expired or one
    /// claim was released, ... (the fencing token: it only grows).
    pub offer: i64,
    /// When the lease ends; after it the reference may be offered again.
    #[serde(serialize_with = "timestamp_text", deserialize_with = "timestamp::deserialize")]
    pub lease_expires_at: Timestamp,
}

to_json_methods!(Claim);
from_json_functions!(claim_from_json => Claim);

/// What the ledger decided for a notification or a settle call, and how to answer it
/// (`http_status()`).
///
/// As JSON (`to_json()`, read back by `ledger_decision_from_json`): the variant's name in
/// capitals under `outcome`, then its fields (ADR 0080); a recorded decision holds the client's
/// in its own shape: `{"outcome":"DECIDED","decision":{"outcome":"REJECT","reason":"..."}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum LedgerDecision {
    /// Verified paid, in full, and this caller holds the claim: fulfil the order, then
    /// [`Ledger::mark_fulfilled`].
    Fulfil {
        /// The claim to mark once fulfilled.
        claim: Claim,
        /// The verified transaction.
        transaction: Transaction,
    },
    /// The order was fulfilled (marked) already: nothing to do.
    AlreadyFulfilled {
        /// The order's reference.
        reference: String,
        /// When it was marked fulfilled.
        #[serde(serialize_with = "timestamp_text", deserialize_with = "timestamp::deserialize")]
        fulfilled_at: Timestamp,
    },
    /// Another caller holds a live claim: nothing to do now, and the notification is answered
    /// 503 so that the service delivers it again (ADR 0071): by then the order is fulfilled
    /// (answered 200), or its claim was released or expired and the redelivery is offered it.
    InProgress {
        /// The order's reference.
        reference: String,
        /// When the other caller's lease ends.
        #[serde(serialize_with = "timestamp_text", deserialize_with = "timestamp::deserialize")]
        lease_expires_at: Timestamp,
    },
    /// The client's own decision, recorded: `Investigate`, `Ignore`, `RetryLater` or `Reject`
    /// (never `Fulfil`: a verified payment is always a claim, or one of the two answers above).
    /// A reference the ledger does not expect is `Reject` (nothing is sent to the service then).
    Decided {
        /// The decision, as [`Client::handle_webhook`] makes it.
        #[serde(serialize_with = "json::nested_decision", deserialize_with = "json::nested_decision_from_text")]
        decision: WebhookDecision,
    },
}

to_json_methods!(decisions: LedgerDecision);
from_json_functions!(decisions: ledger_decision_from_json => LedgerDecision);

/// The kind of a [`LedgerDecision`], without its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LedgerDecisionKind {
    /// See [`LedgerDecision::Fulfil`].
    Fulfil,
    /// See [`LedgerDecision::AlreadyFulfilled`].
    AlreadyFulfilled,
    /// See [`LedgerDecision::InProgress`].
    InProgress,
    /// See [`LedgerDecision::Decided`]: the decision's own kind.
    Decided(WebhookDecisionKind),
}

impl LedgerDecisionKind {
    /// The HTTP status to answer a notification with: 200 for a claim given or already
    /// fulfilled; 503 while another caller holds the claim (in progress: the service's
    /// redelivery comes back when that caller has fulfilled, released or lost it, ADR 0071); a
    /// recorded decision is answered as the client's ([`WebhookDecisionKind::http_status`]).
    pub fn http_status(self) -> i32 {
        match self {
            Self::Fulfil | Self::AlreadyFulfilled => 200,
            Self::InProgress => 503,
            Self::Decided(kind) => kind.http_status(),
        }
    }
}

impl LedgerDecision {
    /// The decision's kind.
    pub fn kind(&self) -> LedgerDecisionKind {
        match self {
            Self::Fulfil { .. } => LedgerDecisionKind::Fulfil,
            Self::AlreadyFulfilled { .. } => LedgerDecisionKind::AlreadyFulfilled,
            Self::InProgress { .. } => LedgerDecisionKind::InProgress,
            Self::Decided { decision } => LedgerDecisionKind::Decided(decision.kind()),
        }
    }
}

#[cfg_attr(feature = "uniffi", uniffi::export)]
impl LedgerDecision {
    /// The HTTP status to answer the notification with: 200 for a claim given or already
    /// fulfilled, 503 while another caller holds the claim (so the service delivers it again);
    /// a recorded decision's own (200, 503 or 400).
    pub fn http_status(&self) -> i32 {
        self.kind().http_status()
    }

    /// Whether to answer HTTP 200 (the service then stops delivering this notification).
    pub fn acknowledge(&self) -> bool {
        self.http_status() == 200
    }
}

/// Who made a recorded decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "snake_case")]
pub enum EventSource {
    /// [`Ledger::expect`].
    Expect,
    /// [`Ledger::handle_webhook`].
    Webhook,
    /// [`Ledger::settle`].
    Settle,
    /// A reconciliation run, and [`Ledger::claim`] of a payment it found ready.
    Reconcile,
    /// [`Ledger::mark_fulfilled`].
    MarkFulfilled,
    /// [`Ledger::release`].
    Release,
}

/// What a recorded event says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// The expected payment was recorded.
    Expected,
    /// A claim was given (`Fulfil`).
    Fulfil,
    /// Answered "already fulfilled".
    AlreadyFulfilled,
    /// Answered "in progress".
    InProgress,
    /// Decided `Investigate`.
    Investigate,
    /// Decided `Ignore`.
    Ignore,
    /// Decided `RetryLater`.
    RetryLater,
    /// Decided `Reject`.
    Reject,
    /// The claim was marked fulfilled.
    Fulfilled,
    /// The claim was given back ([`Ledger::release`]), with its reason: the next caller is
    /// offered the reference at once.
    Released,
    /// A reconciliation run verified it paid in full and left it unclaimed: [`Ledger::claim`]
    /// claims it when its fulfilment starts (ADR 0081).
    Ready,
}

macro_rules! text_enum {
    ($name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $name {
            /// The text stored in the database.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),+ }
            }

            fn parse(text: &str) -> Result<Self> {
                match text {
                    $($text => Ok(Self::$variant),)+
                    other => Err(storage(format!("unknown {} `{other}` in the ledger", stringify!($name)))),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

text_enum!(EventSource {
    Expect => "expect",
    Webhook => "webhook",
    Settle => "settle",
    Reconcile => "reconcile",
    MarkFulfilled => "mark_fulfilled",
    Release => "release",
});

text_enum!(EventKind {
    Expected => "expected",
    Fulfil => "fulfil",
    AlreadyFulfilled => "already_fulfilled",
    InProgress => "in_progress",
    Investigate => "investigate",
    Ignore => "ignore",
    RetryLater => "retry_later",
    Reject => "reject",
    Fulfilled => "fulfilled",
    Released => "released",
    Ready => "ready",
});

/// One recorded decision about a reference: the audit trail. The same event recorded again
/// and again in a row (identical deliveries: same source, kind, status and detail) is one
/// event with its count, `repeats`, and the time it was last seen, `last_at` (ADR 0085).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PaymentEvent {
    /// When it was (first) recorded.
    #[serde(serialize_with = "timestamp_text", deserialize_with = "timestamp::deserialize")]
    pub at: Timestamp,
    /// Who decided.
    pub source: EventSource,
    /// What was decided.
    pub kind: EventKind,
    /// The transaction's status as the service reported it then, when it was verified.
    #[serde(default)]
    pub status: Option<String>,
    /// The decision's reason, or other detail.
    pub detail: String,
    /// How many times it was recorded in a row: 1 for once.
    #[serde(default = "one")]
    #[cfg_attr(feature = "uniffi", uniffi(default = 1))]
    pub repeats: i64,
    /// When it was last recorded, when `repeats` is more than 1.
    #[serde(default, serialize_with = "optional_timestamp_text", deserialize_with = "timestamp::deserialize_optional")]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub last_at: Option<Timestamp>,
    /// Its place in the ledger's audit trail (it only grows): the cursor `after` of
    /// [`Ledger::payment_events`].
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default = 0))]
    pub sequence: i64,
}

fn one() -> i64 {
    1
}

/// What the ledger holds for one reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PaymentRecord {
    /// The order's reference.
    pub reference: String,
    /// The expected payment, as first recorded.
    pub expected: ExpectedPayment,
    /// When it was first expected.
    #[serde(serialize_with = "timestamp_text", deserialize_with = "timestamp::deserialize")]
    pub created_at: Timestamp,
    /// The last status the service reported, and when.
    #[serde(default)]
    pub last_status: Option<String>,
    /// When `last_status` was seen.
    #[serde(default, serialize_with = "optional_timestamp_text", deserialize_with = "timestamp::deserialize_optional")]
    pub last_status_at: Option<Timestamp>,
    /// How many claims were given (more than 1 only after leases expired).
    pub claims_offered: i64,
    /// When the last claim's lease ends (or ended).
    #[serde(default, serialize_with = "optional_timestamp_text", deserialize_with = "timestamp::deserialize_optional")]
    pub claim_expires_at: Option<Timestamp>,
    /// When the order was marked fulfilled.
    #[serde(default, serialize_with = "optional_timestamp_text", deserialize_with = "timestamp::deserialize_optional")]
    pub fulfilled_at: Option<Timestamp>,
    /// The first recorded decisions, oldest first: at most [`PAYMENT_EVENTS_SHOWN`] (100).
    pub events: Vec<PaymentEvent>,
    /// Whether more events follow `events`: page them with [`Ledger::payment_events`], after
    /// the last one's `sequence`.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default = false))]
    pub more_events: bool,
}

to_json_methods!(PaymentEvent, PaymentRecord);
from_json_functions!(payment_event_from_json => PaymentEvent, payment_record_from_json => PaymentRecord);

/// A payments ledger on SQLite or PostgreSQL (ADR 0046). Cheap to share behind an `Arc`; every
/// operation is one database transaction per state change.
pub struct Ledger {
    /// This process's connections (ADR 0055): a process forked from the one that opened the
    /// ledger opens its own on first use, and leaves the inherited ones alone. A SQLite
    /// connection used across `fork` loses writes (the parent's close deletes the WAL the child
    /// still writes to), and a pooled PostgreSQL connection's task runs on the parent's runtime,
    /// which has no threads in the child: every query hung.
    stores: PerProcess<Store>,
    opener: Opener,
    lease: Duration,
    /// Every database call's deadline (opening this process's store included).
    timeout: Duration,
    /// Where its time comes from: a SQLite file's boot-anchored clock, or the wall clock
    /// (ADR 0095).
    clock: clock::LedgerClock,
    /// Added to this process's wall clock wherever the ledger reads it: zero, but for tests of
    /// machines whose clocks disagree or are stepped (`with_clock_offset`).
    clock_offset_micros: i64,
    /// The verifications in flight, one per reference (ADR 0085).
    flights: flight::Flights,
}

/// Runs `$call` on this process's store, whichever backend it is (`$s`), within the ledger's
/// deadline: a database that does not answer is a `Storage` error, never a hang.
macro_rules! on_store {
    ($ledger:expr, |$s:ident| $call:expr) => {
        $ledger.within(async {
            match &*$ledger.store().await? {
                Store::Sqlite($s) => $call.await,
                Store::Postgres($s) => $call.await,
            }
        })
    };
}

enum Store {
    Sqlite(sqlite::SqliteStore),
    Postgres(Box<postgres::PgStore>),
}

/// What a process needs to open its own store.
enum Opener {
    Sqlite { path: PathBuf, busy_timeout_ms: u64 },
    Postgres { url: SecretUrl, options: PostgresOptions },
}

impl Opener {
    async fn open(&self) -> Result<Store> {
        Ok(match self {
            Self::Sqlite { path, busy_timeout_ms } => {
                Store::Sqlite(sqlite::SqliteStore::open(path.clone(), *busy_timeout_ms).await?)
            }
            Self::Postgres { url, options } => Store::Postgres(Box::new(postgres::PgStore::open(url, options).await?)),
        })
    }
}

/// The backend and its settings; never the PostgreSQL URL.
impl fmt::Debug for Ledger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("Ledger");
        match &self.opener {
            Opener::Sqlite { path, .. } => s.field("sqlite", path),
            Opener::Postgres { options, .. } => {
                s.field("postgres_schema", &options.schema.as_deref().unwrap_or(postgres::DEFAULT_SCHEMA))
            }
        };
        s.field("lease_ms", &self.lease.as_millis()).field("timeout_ms", &self.timeout.as_millis()).finish()
    }
}

impl Ledger {
    /// Opens (creating or migrating) a ledger in the SQLite file `path`, with the default
    /// options (a 5-minute lease).
    pub async fn sqlite(path: impl AsRef<Path>) -> Result<Self> {
        Self::sqlite_with(path, SqliteOptions::default()).await
    }

    /// Opens (creating or migrating) a ledger in the SQLite file `path`, in WAL mode.
    pub async fn sqlite_with(path: impl AsRef<Path>, options: SqliteOptions) -> Result<Self> {
        // A lock wait ends within the operation's deadline too.
        let busy_timeout_ms = options.busy_timeout_ms.min(options.timeout_ms);
        let opener = Opener::Sqlite { path: path.as_ref().to_owned(), busy_timeout_ms };
        Self::open(opener, options.lease_ms, options.timeout_ms).await
    }

    /// Connects to PostgreSQL at `url` (`postgresql://user:password@host:port/database`; the
    /// password is never printed) and creates or migrates the tables, under an advisory lock.
    pub async fn postgres(url: SecretUrl, options: PostgresOptions) -> Result<Self> {
        let (lease_ms, timeout_ms) = (options.lease_ms, options.timeout_ms);
        Self::open(Opener::Postgres { url, options }, lease_ms, timeout_ms).await
    }

    async fn open(opener: Opener, lease_ms: u64, timeout_ms: u64) -> Result<Self> {
        let lease = positive("lease_ms", lease_ms)?;
        let timeout = positive("timeout_ms", timeout_ms)?;
        let store = within(timeout, opener.open()).await?;
        let clock = match &store {
            Store::Sqlite(s) => s.clock,
            Store::Postgres(_) => clock::LedgerClock::Wall,
        };
        Ok(Self {
            stores: PerProcess::new(store),
            opener,
            lease,
            timeout,
            clock,
            clock_offset_micros: 0,
            flights: flight::Flights::default(),
        })
    }

    /// This ledger as if this process's wall clock were `offset_ms` ahead (negative: behind):
    /// what an app server with a wrong clock does, or one whose clock was stepped since the file
    /// was anchored. For tests of time only (ADR 0071, ADR 0095): leases must not move with it,
    /// PostgreSQL's (the server's clock) nor, on Linux, SQLite's (the boot clock).
    #[doc(hidden)]
    pub fn with_clock_offset(mut self, offset_ms: i64) -> Self {
        self.clock_offset_micros = offset_ms.saturating_mul(1_000);
        self
    }

    /// The ledger's clock, in microseconds since the epoch: this process's wall clock (with the
    /// test offset), or a SQLite file's boot-anchored clock.
    fn now(&self) -> i64 {
        self.clock.now(|| now_micros().saturating_add(self.clock_offset_micros))
    }

    /// `work` (database calls), ended with a `Storage` error at the ledger's deadline.
    async fn within<T>(&self, work: impl Future<Output = Result<T>>) -> Result<T> {
        within(self.timeout, work).await
    }

    fn lease_micros(&self) -> i64 {
        i64::try_from(self.lease.as_micros()).unwrap_or(i64::MAX)
    }

    /// Whether this process has its store (see `store`).
    #[cfg(feature = "uniffi")]
    pub(crate) fn is_open_in_this_process(&self) -> bool {
        self.stores.current().is_some()
    }

    /// Opens this process's store unless it has one, on the runtime this runs on: for callers
    /// that must choose it (PostgreSQL's connection tasks live there).
    #[cfg(feature = "uniffi")]
    pub(crate) async fn open_in_this_process(&self) -> Result<()> {
        self.store().await.map(drop)
    }

    /// This process's store: the one opened with the ledger, or, in a process forked from the
    /// one that opened it, its own (opened now, on first use).
    async fn store(&self) -> Result<Arc<Store>> {
        if let Some(own) = self.stores.current() {
            return Ok(own);
        }
        let opened = self.opener.open().await?;
        // A thread of this process that opened one meanwhile wins; this one is closed.
        self.stores.get(move || Ok(opened))
    }

    /// How long a claim lasts.
    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// How often a holder renews its claim while it works (a third of the lease, so that two
    /// renewals in a row may fail or be late before the lease ends): the fulfilment blocks of
    /// every language renew at this pace.
    pub fn renew_interval(&self) -> Duration {
        (self.lease / 3).max(Duration::from_millis(1))
    }

    /// Every database call's deadline.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Records what the order `reference` must be paid. The same values again (amounts equal
    /// as decimals, currencies in any case) are a no-op; different values are `InvalidInput`
    /// naming the reference, and the record is never overwritten.
    pub async fn expect(&self, reference: &str, expected: &ExpectedPayment) -> Result<()> {
        validation::reference(reference)?;
        confirm::validate_expected(expected)?;
        let existing = on_store!(self, |s| s.expect(reference, expected, self.now())).await?;
        match existing {
            None => Ok(()),
            Some(recorded) if same_expectation(&recorded, expected) => Ok(()),
            Some(recorded) => Err(SikaError::invalid_input(
                "expected",
                format!(
                    "reference `{reference}` is already expected as {} {}, not {} {}: the record is never overwritten",
                    recorded.amount, recorded.currency, expected.amount, expected.currency
                ),
            )),
        }
    }

    /// Charges through the ledger: checks the whole request, records its amount and currency as
    /// the reference's expected payment (as [`Ledger::expect`] does), and only then sends the
    /// charge ([`Client::initiate_charge`]), so the webhook that follows is always decided
    /// against the order's own figures. A bad request is `InvalidInput` with nothing recorded
    /// and nothing sent; a reference already expected with other figures is `InvalidInput`
    /// naming it, with nothing sent. Charging the same request again (after
    /// `ChargeOutcomeUnknown`, once verified that no charge exists) records nothing new.
    pub async fn initiate_charge(&self, client: &Client, request: &ChargeRequest) -> Result<ChargeResponse> {
        let currency = validation::charge(request)?;
        self.expect(&request.reference, &ExpectedPayment { amount: request.amount, currency }).await?;
        client.initiate_charge(request).await
    }

    /// Decides a webhook notification with the ledger: a reference the ledger does not expect
    /// is `Reject` (400) with nothing sent; one already fulfilled or claimed is answered
    /// `AlreadyFulfilled`/`InProgress` (200) with nothing sent; otherwise
    /// [`Client::handle_webhook`] decides against the recorded expectation, and a `Fulfil`
    /// becomes a claim for exactly one caller. Every decision is recorded.
    pub async fn handle_webhook(&self, client: &Client, body: &[u8]) -> Result<LedgerDecision> {
        let span = spans::call_span!("ledger.handle_webhook", None::<&str>);
        spans::in_call_span(span, async move {
            let reference = match webhook::reference_to_verify(body) {
                Ok(reference) => reference,
                Err(ended) => return Ok(LedgerDecision::Decided { decision: ended.into() }),
            };
            let Some(row) = self.row(&reference).await? else {
                return Ok(LedgerDecision::Decided {
                    decision: WebhookDecision::Reject {
                        reason: format!(
                            "reference `{reference}` is not expected by the ledger: not an order of this shop"
                        ),
                    },
                });
            };
            if let Some(answer) = self.answer_without_asking(&row, EventSource::Webhook).await? {
                return Ok(answer);
            }
            let expected = row.expected()?;
            confirm::validate_expected(&expected)?;
            let verified = self.verify_once(client, &reference).await;
            let (decision, status) = client.webhook_decision_from(&reference, verified, &expected);
            self.conclude(&reference, decision, status, EventSource::Webhook).await
        })
        .await
    }

    /// Verifies `reference` and decides with the ledger as [`Ledger::handle_webhook`] does
    /// (for the order page, or after `await_final_status`): `Fulfil` with a claim to exactly
    /// one caller. A reference the ledger does not expect is `InvalidInput`, nothing sent; the
    /// service's errors are returned as they are (nothing recorded).
    pub async fn settle(&self, client: &Client, reference: &str) -> Result<LedgerDecision> {
        let span = spans::call_span!("ledger.settle", spans::shown(reference));
        spans::in_call_span(span, async move { self.decide(client, reference, EventSource::Settle).await }).await
    }

    /// `settle`'s decision, recorded as made by `source`.
    async fn decide(&self, client: &Client, reference: &str, source: EventSource) -> Result<LedgerDecision> {
        validation::reference(reference)?;
        let Some(row) = self.row(reference).await? else {
            return Err(SikaError::invalid_input(
                "reference",
                format!("reference `{reference}` is not expected by the ledger: record it with `expect` first"),
            ));
        };
        if let Some(answer) = self.answer_without_asking(&row, source).await? {
            return Ok(answer);
        }
        let expected = row.expected()?;
        confirm::validate_expected(&expected)?;
        let verified = self.verify_once(client, reference).await;
        let (decision, status) = client.settle_decision_from(reference, verified, &expected)?;
        self.conclude(reference, decision, status, source).await
    }

    /// Verifies `reference`, sharing the request with every other caller of this ledger that
    /// verifies it on the same service while it is in flight (ADR 0085); a caller after it
    /// answered sends its own.
    async fn verify_once(&self, client: &Client, reference: &str) -> Result<Transaction> {
        let key = format!("{} {reference}", client.base_url());
        self.flights.verify(key, || client.verify_transaction(reference)).await
    }

    /// Marks the claim's order fulfilled: a compare-and-set on the claim. `ClaimLost` when its
    /// lease expired and the reference was offered again (another caller holds it now); marking
    /// the same claim again is a no-op.
    pub async fn mark_fulfilled(&self, claim: &Claim) -> Result<()> {
        let span = spans::call_span!("ledger.mark_fulfilled", spans::shown(&claim.reference));
        spans::in_call_span(span, async move {
            match on_store!(self, |s| s.mark(claim, self.now())).await? {
                HolderStep::Current | HolderStep::Fulfilled => Ok(()),
                HolderStep::Lost => Err(claim_lost(claim, "marking it fulfilled")),
            }
        })
        .await
    }

    /// Extends the claim's lease by the ledger's lease from now (on PostgreSQL, the database
    /// server's now): a compare-and-set on the claim, as `mark_fulfilled` is. Gives the claim
    /// with its new `lease_expires_at`; `ClaimLost` (and a WARN log line) when the reference
    /// was offered again meanwhile, so the work must stop; a claim already marked fulfilled is
    /// given back as it is. A claim whose lease ended but that nobody was offered since is
    /// still this caller's, and is renewed.
    pub async fn renew(&self, claim: &Claim) -> Result<Claim> {
        let span = spans::call_span!("ledger.renew", spans::shown(&claim.reference));
        spans::in_call_span(span, async move {
            let lease = self.lease_micros();
            match on_store!(self, |s| s.renew(claim, lease, self.now())).await? {
                (HolderStep::Current, until) => Ok(Claim { lease_expires_at: timestamp(until)?, ..claim.clone() }),
                (HolderStep::Fulfilled, _) => Ok(claim.clone()),
                (HolderStep::Lost, _) => Err(claim_lost(claim, "renewing it")),
            }
        })
        .await
    }

    /// Gives the claim back at once, because its fulfilment failed or will not happen: the
    /// next delivery, `settle` or reconcile is offered the reference immediately, not after the
    /// lease. Recorded in the audit trail with `reason` (at most 500 characters are kept). A
    /// claim already marked fulfilled stays fulfilled (nothing changes); `ClaimLost` when the
    /// reference was offered again meanwhile.
    pub async fn release(&self, claim: &Claim, reason: &str) -> Result<()> {
        let span = spans::call_span!("ledger.release", spans::shown(&claim.reference));
        spans::in_call_span(span, async move {
            let reason = crate::scrub::bounded(reason.chars().take(500).collect::<String>());
            match on_store!(self, |s| s.release(claim, &reason, self.now())).await? {
                HolderStep::Current => {
                    log::info!(
                        target: "sika",
                        reference = claim.reference.as_str(),
                        offer = claim.offer;
                        "claim {} of `{}` released: {reason}", claim.offer, claim.reference
                    );
                    Ok(())
                }
                HolderStep::Fulfilled => Ok(()),
                HolderStep::Lost => Err(claim_lost(claim, "releasing it")),
            }
        })
        .await
    }

    /// The record of `reference` with its first [`PAYMENT_EVENTS_SHOWN`] (100) events, oldest
    /// first (`more_events` says whether more follow: [`Ledger::payment_events`] pages them);
    /// `None` when never expected.
    pub async fn payment(&self, reference: &str) -> Result<Option<PaymentRecord>> {
        let shown = i64::from(PAYMENT_EVENTS_SHOWN);
        let found = on_store!(self, |s| s.payment(reference, shown + 1)).await?;
        let Some((row, mut events)) = found else { return Ok(None) };
        let more_events = events.len() > PAYMENT_EVENTS_SHOWN as usize;
        events.truncate(PAYMENT_EVENTS_SHOWN as usize);
        let events = events.into_iter().map(EventRow::event).collect::<Result<Vec<_>>>()?;
        Ok(Some(PaymentRecord {
            expected: row.expected()?,
            created_at: timestamp(row.created_at)?,
            last_status: row.last_status,
            last_status_at: row.last_status_at.map(timestamp).transpose()?,
            claims_offered: row.claims_offered,
            claim_expires_at: row.claim_expires_at.map(timestamp).transpose()?,
            fulfilled_at: row.fulfilled_at.map(timestamp).transpose()?,
            reference: row.reference,
            events,
            more_events,
        }))
    }

    /// The events of `reference` after the one whose `sequence` is `after` (0: from the first),
    /// oldest first, at most `limit` (1 to [`MAX_EVENTS_PAGE`], 1,000): the pages after
    /// `payment()`'s first events. Empty when there are no more, or the reference was never
    /// expected. A `limit` of 0 or over 1,000, or a negative `after`, is `InvalidInput`.
    pub async fn payment_events(&self, reference: &str, after: i64, limit: u32) -> Result<Vec<PaymentEvent>> {
        if limit == 0 || limit > MAX_EVENTS_PAGE {
            return Err(SikaError::invalid_input("limit", format!("must be 1 to {MAX_EVENTS_PAGE}")));
        }
        if after < 0 {
            return Err(SikaError::invalid_input("after", "must not be negative"));
        }
        let events = on_store!(self, |s| s.events(reference, after, i64::from(limit))).await?;
        events.into_iter().map(EventRow::event).collect()
    }

    async fn row(&self, reference: &str) -> Result<Option<Row>> {
        on_store!(self, |s| s.row(reference)).await
    }

    /// A reference fulfilled, or claimed with a live lease, is answered without asking the
    /// service (and the answer recorded).
    async fn answer_without_asking(&self, row: &Row, source: EventSource) -> Result<Option<LedgerDecision>> {
        // The database's clock where it has one (PostgreSQL), as the claim itself is decided.
        let now = row.read_at.unwrap_or_else(|| self.now());
        let step = claim_step(&row.claim_state(), now);
        if let ClaimStep::Offer { .. } = step {
            return Ok(None);
        }
        let event = NewEvent { at: now, source, kind: step.event_kind(), status: None, detail: String::new() };
        on_store!(self, |s| s.record(&row.reference, event)).await?;
        step.into_decision(&row.reference).map(Some)
    }

    /// Records a decision made by the client, with the status of the transaction it verified
    /// (every decision's, so that a payment that failed is not checked again); a `Fulfil`
    /// becomes a claim, or "already fulfilled"/"in progress" when another caller got there first.
    async fn conclude(
        &self,
        reference: &str,
        decision: WebhookDecision,
        verified: Option<TransactionStatus>,
        source: EventSource,
    ) -> Result<LedgerDecision> {
        let now = self.now();
        let status = verified.map(|status| status.to_string());
        let (kind, detail) = match &decision {
            WebhookDecision::Fulfil { transaction } => {
                let request = ClaimRequest {
                    now,
                    lease: self.lease_micros(),
                    token: new_token(),
                    source,
                    status: transaction.status.to_string(),
                };
                let claimed = on_store!(self, |s| s.claim(reference, &request)).await?;
                let WebhookDecision::Fulfil { transaction } = decision else { unreachable!("matched above") };
                return match claimed.step {
                    ClaimStep::Offer { offer } => {
                        warn_if_lapsed(reference, &claimed);
                        Ok(LedgerDecision::Fulfil {
                            claim: Claim {
                                reference: reference.to_owned(),
                                token: request.token,
                                offer,
                                lease_expires_at: timestamp(claimed.lease_until)?,
                            },
                            transaction,
                        })
                    }
                    other => other.into_decision(reference),
                };
            }
            WebhookDecision::Investigate { reason, .. } => (EventKind::Investigate, reason.clone()),
            WebhookDecision::Ignore { reason } => (EventKind::Ignore, reason.clone()),
            WebhookDecision::RetryLater { reason } => (EventKind::RetryLater, reason.clone()),
            WebhookDecision::Reject { reason } => (EventKind::Reject, reason.clone()),
        };
        let event = NewEvent { at: now, source, kind, status, detail };
        on_store!(self, |s| s.record(reference, event)).await?;
        Ok(LedgerDecision::Decided { decision })
    }
}

fn positive(setting: &str, ms: u64) -> Result<Duration> {
    if ms == 0 {
        return Err(SikaError::invalid_input(setting, "must be greater than zero"));
    }
    Ok(Duration::from_millis(ms))
}

/// `work`, ended with a `Storage` error naming the deadline when it takes longer.
async fn within<T>(timeout: Duration, work: impl Future<Output = Result<T>>) -> Result<T> {
    match tokio::time::timeout(timeout, work).await {
        Ok(done) => done,
        Err(_elapsed) => Err(storage(format!(
            "the ledger's database did not answer within {} ms (the ledger's timeout_ms): nothing was decided",
            timeout.as_millis()
        ))),
    }
}

/// `ClaimLost` for `claim`, logged at WARN: its holder must stop, since another caller may be
/// fulfilling the order now.
fn claim_lost(claim: &Claim, doing: &str) -> SikaError {
    log::warn!(
        target: "sika",
        reference = claim.reference.as_str(),
        offer = claim.offer;
        "claim {} of `{}` was lost before {doing}: the reference was offered again after its lease ended", claim.offer, claim.reference
    );
    SikaError::ClaimLost { reference: claim.reference.clone() }
}

/// A claim offered again because the previous holder's lease ended without a mark: the order
/// may have been fulfilled by a worker that stalled or died, so it is logged at WARN (ADR 0071).
fn warn_if_lapsed(reference: &str, claimed: &Claimed) {
    if let (ClaimStep::Offer { offer }, Some(ended)) = (claimed.step, claimed.lapsed_at()) {
        let lapsed_ms = claimed.now.saturating_sub(ended) / 1_000;
        log::warn!(
            target: "sika",
            reference = reference,
            offer = offer,
            lapsed_ms = lapsed_ms;
            "`{reference}` offered again (claim {offer}): claim {}'s lease ended {lapsed_ms} ms ago without a mark; pass the offer to your fulfilment as its fencing token",
            offer - 1
        );
    }
}

fn same_expectation(recorded: &ExpectedPayment, expected: &ExpectedPayment) -> bool {
    recorded.amount == expected.amount && recorded.currency.eq_ignore_ascii_case(&expected.currency)
}

/// A claim's identity: random bits, the process id and the time, so that two processes forked
/// from one parent (same generator state) still make different tokens.
fn new_token() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{:016x}{:08x}{:x}", fastrand::u64(..), std::process::id(), nanos & 0xffff_ffff_ffff)
}

fn now_micros() -> i64 {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since_epoch.as_micros()).unwrap_or(i64::MAX)
}

fn timestamp(micros: i64) -> Result<Timestamp> {
    DateTime::from_timestamp_micros(micros).ok_or_else(|| storage(format!("time {micros} out of range in the ledger")))
}

/// The expectation as a store holds it (the amount as its exact text), read back.
pub(crate) fn recorded_expectation(amount: &str, currency: String) -> Result<ExpectedPayment> {
    let amount = amount.parse().map_err(|_| storage(format!("amount `{amount}` unreadable in the ledger")))?;
    Ok(ExpectedPayment { amount, currency })
}

pub(crate) fn storage(reason: impl Into<String>) -> SikaError {
    SikaError::Storage { reason: crate::scrub::bounded(reason.into()) }
}

/// One `sika_payments` row, as stored.
#[derive(Debug, Clone)]
/// A page of the payments a reconciliation checks again: not fulfilled, expected no later than
/// `created_before`, with no live claim at `now` (microseconds since the epoch), after the
/// cursor `after` (created at, reference), oldest first, at most `size`.
struct OpenPage {
    created_before: i64,
    now: i64,
    after: (i64, String),
    size: i64,
}

struct Row {
    reference: String,
    amount: String,
    currency: String,
    created_at: i64,
    last_status: Option<String>,
    last_status_at: Option<i64>,
    claim_token: Option<String>,
    claim_expires_at: Option<i64>,
    claims_offered: i64,
    fulfilled_at: Option<i64>,
    /// When a reconciliation run last verified it paid in full (ADR 0081): only then may
    /// [`Ledger::claim`] claim it without asking the service.
    paid_at: Option<i64>,
    /// The database's clock when it read the row, where the database keeps the clock of the
    /// leases (PostgreSQL); `None`: this process's.
    read_at: Option<i64>,
}

impl Row {
    fn expected(&self) -> Result<ExpectedPayment> {
        let amount =
            self.amount.parse().map_err(|_| storage(format!("amount `{}` unreadable in the ledger", self.amount)))?;
        Ok(ExpectedPayment { amount, currency: self.currency.clone() })
    }

    fn claim_state(&self) -> ClaimState {
        ClaimState {
            token: self.claim_token.is_some(),
            expires_at: self.claim_expires_at,
            offers: self.claims_offered,
            fulfilled_at: self.fulfilled_at,
        }
    }
}

/// One `sika_payment_events` row, as stored.
#[derive(Debug, Clone)]
struct EventRow {
    id: i64,
    at: i64,
    source: String,
    kind: String,
    status: Option<String>,
    detail: String,
    repeats: i64,
    last_at: Option<i64>,
}

impl EventRow {
    fn event(self) -> Result<PaymentEvent> {
        Ok(PaymentEvent {
            at: timestamp(self.at)?,
            source: EventSource::parse(&self.source)?,
            kind: EventKind::parse(&self.kind)?,
            status: self.status,
            detail: self.detail,
            repeats: self.repeats,
            last_at: self.last_at.map(timestamp).transpose()?,
            sequence: self.id,
        })
    }
}

/// An event to record.
#[derive(Debug, Clone)]
struct NewEvent {
    at: i64,
    source: EventSource,
    kind: EventKind,
    status: Option<String>,
    detail: String,
}

/// A claim to try to take, in one transaction.
#[derive(Debug, Clone)]
struct ClaimRequest {
    /// The ledger's clock: the time of the leases on SQLite (one machine's file, its boot
    /// clock, ADR 0095); PostgreSQL uses its server's clock instead, so app servers whose clocks
    /// differ agree on a lease.
    now: i64,
    /// How long the claim lasts, in microseconds.
    lease: i64,
    token: String,
    source: EventSource,
    status: String,
}

/// What a claim attempt did: the step, the time it was decided at (on the clock of the
/// leases), the new lease's end when offered, and the claim columns it found.
#[derive(Debug, Clone, Copy)]
struct Claimed {
    step: ClaimStep,
    now: i64,
    lease_until: i64,
    before: ClaimState,
}

impl Claimed {
    fn new(step: ClaimStep, before: ClaimState, now: i64, lease: i64) -> Self {
        Self { step, now, lease_until: now.saturating_add(lease), before }
    }

    /// When the previous claim's lease ended, when this offer follows a claim that lapsed
    /// (neither marked nor released).
    fn lapsed_at(&self) -> Option<i64> {
        match self.step {
            ClaimStep::Offer { .. } if self.before.token => self.before.expires_at,
            _ => None,
        }
    }

    /// The audit trail's text for this attempt.
    fn detail(&self) -> String {
        match self.step {
            ClaimStep::Offer { offer } => match self.lapsed_at() {
                Some(ended) => format!(
                    "claim {offer} given: claim {}'s lease ended {} ms before without a mark (offered again)",
                    offer - 1,
                    self.now.saturating_sub(ended) / 1_000
                ),
                None if offer > 1 => format!("claim {offer} given after claim {} was released", offer - 1),
                None => format!("claim {offer} given"),
            },
            _ => String::new(),
        }
    }
}

/// The claim columns of a row, read under its lock.
#[derive(Debug, Clone, Copy)]
struct ClaimState {
    token: bool,
    expires_at: Option<i64>,
    offers: i64,
    fulfilled_at: Option<i64>,
}

/// What a claim attempt gives, decided here for both databases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClaimStep {
    Offer { offer: i64 },
    AlreadyFulfilled { at: i64 },
    InProgress { until: i64 },
}

/// The one rule of claims: fulfilled stays fulfilled; a live lease is in progress; no claim,
/// or an expired one, is offered (the caller writes the new claim in the same transaction
/// that read this state, so each expiry is offered once).
fn claim_step(state: &ClaimState, now: i64) -> ClaimStep {
    if let Some(at) = state.fulfilled_at {
        return ClaimStep::AlreadyFulfilled { at };
    }
    match state.expires_at {
        Some(until) if state.token && until > now => ClaimStep::InProgress { until },
        _ => ClaimStep::Offer { offer: state.offers.saturating_add(1) },
    }
}

impl ClaimStep {
    fn event_kind(self) -> EventKind {
        match self {
            Self::Offer { .. } => EventKind::Fulfil,
            Self::AlreadyFulfilled { .. } => EventKind::AlreadyFulfilled,
            Self::InProgress { .. } => EventKind::InProgress,
        }
    }

    fn into_decision(self, reference: &str) -> Result<LedgerDecision> {
        match self {
            Self::AlreadyFulfilled { at } => {
                Ok(LedgerDecision::AlreadyFulfilled { reference: reference.to_owned(), fulfilled_at: timestamp(at)? })
            }
            Self::InProgress { until } => {
                Ok(LedgerDecision::InProgress { reference: reference.to_owned(), lease_expires_at: timestamp(until)? })
            }
            Self::Offer { .. } => Err(storage("a claim offered without its token")),
        }
    }
}

/// Whether a claim is still its holder's: what marking, renewing and releasing found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HolderStep {
    /// The current claim, not fulfilled: the holder's change is made.
    Current,
    /// The current claim, already marked fulfilled: nothing changes.
    Fulfilled,
    /// Another claim was given since (or this one was released): `ClaimLost`.
    Lost,
}

/// The one rule of holding: only the current claim (same token and offer) marks, renews or
/// releases.
fn holder_step(current_token: Option<&str>, current_offer: i64, fulfilled: bool, claim: &Claim) -> HolderStep {
    if current_token != Some(claim.token.as_str()) || current_offer != claim.offer {
        return HolderStep::Lost;
    }
    if fulfilled { HolderStep::Fulfilled } else { HolderStep::Current }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(token: bool, expires_at: Option<i64>, offers: i64, fulfilled_at: Option<i64>) -> ClaimState {
        ClaimState { token, expires_at, offers, fulfilled_at }
    }

    #[test]
    fn b132_claim_rule() {
        assert_eq!(claim_step(&state(false, None, 0, None), 10), ClaimStep::Offer { offer: 1 });
        assert_eq!(claim_step(&state(true, Some(20), 1, None), 10), ClaimStep::InProgress { until: 20 });
        assert_eq!(claim_step(&state(true, Some(10), 1, None), 10), ClaimStep::Offer { offer: 2 });
        assert_eq!(claim_step(&state(true, Some(20), 1, Some(5)), 10), ClaimStep::AlreadyFulfilled { at: 5 });
    }

    #[test]
    fn b132_mark_rule() {
        let claim = Claim {
            reference: "R".into(),
            token: "t1".into(),
            offer: 1,
            lease_expires_at: DateTime::from_timestamp_micros(0).expect("epoch"),
        };
        assert_eq!(holder_step(Some("t1"), 1, false, &claim), HolderStep::Current);
        assert_eq!(holder_step(Some("t1"), 1, true, &claim), HolderStep::Fulfilled);
        assert_eq!(holder_step(Some("t2"), 2, false, &claim), HolderStep::Lost);
        assert_eq!(holder_step(Some("t1"), 2, false, &claim), HolderStep::Lost);
        // Released: no token is current, so the released claim can neither mark nor renew.
        assert_eq!(holder_step(None, 1, false, &claim), HolderStep::Lost);
    }

    /// B211: an offer after a lapsed claim (its lease ended with no mark and no release) is
    /// told apart from one after a release, and the lease is counted from the clock of the
    /// leases that decided it.
    #[test]
    fn b211_an_offer_says_whether_the_previous_claim_lapsed_or_was_released() {
        let lapsed = Claimed::new(ClaimStep::Offer { offer: 2 }, state(true, Some(1_000_000), 1, None), 3_000_000, 500);
        assert_eq!(lapsed.lapsed_at(), Some(1_000_000));
        assert_eq!(lapsed.lease_until, 3_000_500);
        assert!(lapsed.detail().contains("claim 1's lease ended 2000 ms before"), "{}", lapsed.detail());
        let released =
            Claimed::new(ClaimStep::Offer { offer: 2 }, state(false, Some(1_000_000), 1, None), 3_000_000, 5);
        assert_eq!(released.lapsed_at(), None);
        assert_eq!(released.detail(), "claim 2 given after claim 1 was released");
        let first = Claimed::new(ClaimStep::Offer { offer: 1 }, state(false, None, 0, None), 3_000_000, 5);
        assert_eq!((first.lapsed_at(), first.detail().as_str()), (None, "claim 1 given"));
    }

    /// B212: a claim being worked on is answered 503, so that the service delivers the
    /// notification again; only a fulfilled order (or the claim itself) is acknowledged.
    #[test]
    fn b212_in_progress_is_answered_retry_later() {
        assert_eq!(LedgerDecisionKind::InProgress.http_status(), 503);
        assert_eq!(LedgerDecisionKind::AlreadyFulfilled.http_status(), 200);
        assert_eq!(LedgerDecisionKind::Fulfil.http_status(), 200);
    }

    #[test]
    fn b132_claim_tokens_differ() {
        assert_ne!(new_token(), new_token());
    }

    fn time(text: &str) -> Timestamp {
        crate::timestamp::parse_timestamp(text).expect("a time")
    }

    /// B40: the ledger's records are data, as the other records: the core's JSON with ISO 8601
    /// times, the events' texts as stored, the amount as an exact decimal, and read back equal.
    /// B261: every decision writes its kind under `outcome` (a recorded one holds the client's in
    /// its own shape, times as the records' ISO text) and reads back equal (ADR 0080).
    #[test]
    fn b261_decisions_write_their_kind_and_read_back() {
        let transaction = crate::decode::transaction_response(
            200,
            &std::fs::read(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tests/fixtures/json_shapes/transaction_response.json"
            ))
            .expect("fixture"),
        )
        .expect("decodes");
        let claim = Claim {
            reference: "ORDER-1001".to_owned(),
            token: "token-1".to_owned(),
            offer: 1,
            lease_expires_at: time("2024-05-01T12:05:00.5Z"),
        };
        let webhook = [
            WebhookDecision::Fulfil { transaction: transaction.clone() },
            WebhookDecision::Investigate { transaction: transaction.clone(), reason: "short".to_owned() },
            WebhookDecision::Ignore { reason: "another event".to_owned() },
            WebhookDecision::RetryLater { reason: "pending".to_owned() },
            WebhookDecision::Reject { reason: "no reference".to_owned() },
        ];
        let mut outcomes = Vec::new();
        for decision in &webhook {
            let json: serde_json::Value = serde_json::from_str(&decision.to_json()).expect("JSON");
            outcomes.push(json["outcome"].as_str().expect("outcome").to_owned());
            assert_eq!(webhook::webhook_decision_from_json(decision.to_json()).expect("reads back"), *decision);
        }
        assert_eq!(outcomes, ["FULFIL", "INVESTIGATE", "IGNORE", "RETRY_LATER", "REJECT"]);
        assert_eq!(webhook[3].to_json(), r#"{"outcome":"RETRY_LATER","reason":"pending"}"#);
        let ledger = [
            LedgerDecision::Fulfil { claim: claim.clone(), transaction },
            LedgerDecision::AlreadyFulfilled {
                reference: "ORDER-1".to_owned(),
                fulfilled_at: time("2024-05-01T12:00:00Z"),
            },
            LedgerDecision::InProgress {
                reference: "ORDER-1".to_owned(),
                lease_expires_at: time("2024-05-01T12:05:00.000001Z"),
            },
            LedgerDecision::Decided { decision: webhook[4].clone() },
        ];
        for decision in &ledger {
            assert_eq!(ledger_decision_from_json(decision.to_json()).expect("reads back"), *decision);
        }
        let fulfil: serde_json::Value = serde_json::from_str(&ledger[0].to_json()).expect("JSON");
        assert_eq!(fulfil["outcome"], "FULFIL");
        assert_eq!(fulfil["claim"]["lease_expires_at"], "2024-05-01T12:05:00.500Z");
        assert_eq!(fulfil["transaction"]["amount"], "100.10");
        assert_eq!(
            ledger[1].to_json(),
            r#"{"outcome":"ALREADY_FULFILLED","reference":"ORDER-1","fulfilled_at":"2024-05-01T12:00:00.000Z"}"#
        );
        assert_eq!(
            ledger[2].to_json(),
            r#"{"outcome":"IN_PROGRESS","reference":"ORDER-1","lease_expires_at":"2024-05-01T12:05:00.000001Z"}"#
        );
        assert_eq!(
            ledger[3].to_json(),
            r#"{"outcome":"DECIDED","decision":{"outcome":"REJECT","reason":"no reference"}}"#
        );
    }

    #[test]
    fn b40_the_ledgers_records_write_and_read_back_the_cores_json() {
        let event = PaymentEvent {
            at: time("2024-05-01T12:00:00.123Z"),
            source: EventSource::MarkFulfilled,
            kind: EventKind::AlreadyFulfilled,
            status: Some("successful".to_owned()),
            detail: "claim 1".to_owned(),
            repeats: 3,
            last_at: Some(time("2024-05-01T12:00:09Z")),
            sequence: 7,
        };
        let record = PaymentRecord {
            reference: "ORDER-1".to_owned(),
            expected: ExpectedPayment { amount: "100.10".parse().expect("amount"), currency: "GHS".to_owned() },
            created_at: time("2024-05-01T11:00:00Z"),
            last_status: None,
            last_status_at: None,
            claims_offered: 1,
            claim_expires_at: Some(time("2024-05-01T12:05:00.000001Z")),
            fulfilled_at: None,
            events: vec![event.clone()],
            more_events: true,
        };
        let json: serde_json::Value = serde_json::from_str(&record.to_json()).expect("JSON");
        assert_eq!(json["expected"]["amount"], "100.10");
        assert_eq!(json["created_at"], "2024-05-01T11:00:00.000Z");
        assert_eq!(json["claim_expires_at"], "2024-05-01T12:05:00.000001Z");
        assert_eq!(json["last_status_at"], serde_json::Value::Null);
        assert_eq!(json["events"][0]["source"], "mark_fulfilled");
        assert_eq!(json["events"][0]["kind"], "already_fulfilled");
        assert_eq!(payment_record_from_json(record.to_json()).expect("reads back"), record);
        assert_eq!(payment_event_from_json(event.to_json()).expect("reads back"), event);
        // B300: an event's count and last sighting are in its JSON; an event written before
        // them reads as recorded once.
        assert_eq!(json["events"][0]["repeats"], 3);
        assert_eq!(json["events"][0]["last_at"], "2024-05-01T12:00:09.000Z");
        let older = r#"{"at":"2024-05-01T12:00:00Z","source":"webhook","kind":"ignore","status":null,"detail":""}"#;
        let older = payment_event_from_json(older.to_owned()).expect("an older event reads");
        assert_eq!((older.repeats, older.last_at, older.sequence), (1, None, 0));
        let claim = Claim {
            reference: "ORDER-1".to_owned(),
            token: "t".to_owned(),
            offer: 2,
            lease_expires_at: time("2024-05-01T12:05:00Z"),
        };
        assert_eq!(claim_from_json(claim.to_json()).expect("reads back"), claim);
        for source in [EventSource::Expect, EventSource::Webhook, EventSource::Settle, EventSource::Reconcile] {
            assert_eq!(serde_json::to_value(source).expect("text"), source.as_str());
        }
        let error =
            claim_from_json(r#"{"reference":"ORDER-1","token":"t","offer":1,"lease_expires_at":null}"#.to_owned())
                .expect_err("no lease time");
        assert!(matches!(error, SikaError::InvalidInput { .. }), "{error:?}");
    }
}

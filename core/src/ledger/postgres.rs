//! The ledger on PostgreSQL: a small pool of `tokio-postgres` connections (no TLS yet: loopback
//! or a private network), tables in the configured schema, created or migrated under an
//! advisory lock; each change is one transaction that locks the reference's row
//! (`SELECT ... FOR UPDATE`).
//!
//! Time (ADR 0071): every lease is read and written on the database server's clock
//! (`clock_timestamp()` in the statement that locks the row), so app servers whose clocks
//! disagree still agree on whether a claim is live. Every statement and row-lock wait is bounded
//! by the server (`statement_timeout`, `lock_timeout`, set at connect), connecting by
//! `connect_timeout_ms` (TCP and start-up), and each operation by the ledger's deadline; a
//! connection whose operation did not finish is closed, never pooled again.

use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::{Semaphore, SemaphorePermit};
use tokio_postgres::types::Type;
use tokio_postgres::{Client as PgClient, Config, GenericClient, NoTls};

use super::reconcile::{ReadyClaim, ready_claim_step};
use super::{
    Claim, ClaimRequest, ClaimState, ClaimStep, Claimed, EventRow, HolderStep, NewEvent, OpenPage, PostgresOptions,
    Row, SCHEMA_VERSION, claim_step, holder_step, storage,
};
use crate::error::{Result, SikaError};
use crate::safety::confirm::ExpectedPayment;
use crate::secret::SecretUrl;

/// The schema of the tables unless configured.
pub(super) const DEFAULT_SCHEMA: &str = "public";

/// The database server's clock, in microseconds since the epoch: the one clock of the leases.
/// `clock_timestamp()`, not `now()`: a transaction that waited for a row lock must not decide
/// with the time it started at.
const DB_NOW: &str = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::bigint";

pub(super) struct PgStore {
    config: Config,
    /// The URL's password, to remove from any text the database's errors carry.
    password: Option<String>,
    schema: String,
    /// `"schema".` before each table name.
    prefix: String,
    idle: Mutex<Vec<PgClient>>,
    permits: Semaphore,
    /// How long connecting may take in all (tokio-postgres's own timeout covers the TCP
    /// connect only: a server that accepts and never answers hung the start-up).
    connect_timeout: Duration,
    /// The runtime the ledger was opened on: every connection is made there and its task runs
    /// there, so a pooled connection keeps working when a later call runs on another runtime
    /// (a blocking client's, which nothing drives between its calls).
    tasks: tokio::runtime::Handle,
}

impl PgStore {
    pub(super) async fn open(url: &SecretUrl, options: &PostgresOptions) -> Result<Self> {
        let raw = url.expose();
        let password =
            url::Url::parse(raw).ok().and_then(|u| u.password().map(str::to_owned)).filter(|p| !p.is_empty());
        let mut config: Config = raw.parse().map_err(|e: tokio_postgres::Error| {
            let reason = scrub_text(&e.to_string(), password.as_deref(), Some(raw));
            SikaError::invalid_input(
                "url",
                format!("not a PostgreSQL URL (postgresql://user:password@host/db): {reason}"),
            )
        })?;
        let password = password.or_else(|| config.get_password().map(|p| String::from_utf8_lossy(p).into_owned()));
        let connect_timeout = Duration::from_millis(options.connect_timeout_ms.max(1));
        config.connect_timeout(connect_timeout);
        // The server ends a statement or a lock wait that outlives the ledger's deadline itself,
        // and a session left idle in a transaction (a worker frozen mid-change) releases its locks.
        let timeout_ms = options.timeout_ms.max(1);
        config.options(format!(
            "-c statement_timeout={timeout_ms} -c lock_timeout={timeout_ms} \
             -c idle_in_transaction_session_timeout={}",
            timeout_ms.saturating_mul(2)
        ));
        // A peer that vanished (a partition) is noticed on idle pooled connections too.
        config.keepalives(true).keepalives_idle(Duration::from_secs(30));
        let schema = options.schema.clone().unwrap_or_else(|| DEFAULT_SCHEMA.to_owned());
        if !is_identifier(&schema) {
            return Err(SikaError::invalid_input(
                "schema",
                "must be a PostgreSQL identifier: 1 to 63 lower-case letters, digits or `_`, not starting with a digit",
            ));
        }
        if options.max_connections == 0 {
            return Err(SikaError::invalid_input("max_connections", "must be greater than zero"));
        }
        let max = usize::try_from(options.max_connections).unwrap_or(usize::MAX).min(Semaphore::MAX_PERMITS);
        let store = Self {
            config,
            password,
            prefix: format!("\"{schema}\"."),
            schema,
            idle: Mutex::new(Vec::new()),
            permits: Semaphore::new(max),
            connect_timeout,
            tasks: tokio::runtime::Handle::current(),
        };
        store.migrate().await?;
        Ok(store)
    }

    fn error(&self, error: &tokio_postgres::Error) -> SikaError {
        let mut text = error.to_string();
        if let Some(db) = error.as_db_error() {
            text = format!("{}: {}", db.code().code(), db.message());
        }
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            let cause_text = cause.to_string();
            if !text.contains(&cause_text) {
                text = format!("{text}: {cause_text}");
            }
            source = cause.source();
        }
        storage(scrub_text(&text, self.password.as_deref(), None))
    }

    /// `sika_payments` as `"schema".sika_payments`.
    fn t(&self, table: &str) -> String {
        format!("{}{table}", self.prefix)
    }

    async fn connection(&self) -> Result<Pooled<'_>> {
        let permit = self.permits.acquire().await.map_err(|_| storage("the ledger's pool is closed"))?;
        let reused = {
            let mut idle = self.idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut found = None;
            while let Some(client) = idle.pop() {
                if !client.is_closed() {
                    found = Some(client);
                    break;
                }
            }
            found
        };
        let client = match reused {
            Some(client) => client,
            None => {
                // Connected on the ledger's runtime too: a socket belongs to the runtime it was
                // made on, and a connection made by a call on a blocking client's runtime
                // (nothing drives it between calls) hung every later query on it (B165).
                let config = self.config.clone();
                let mut connected = self.tasks.spawn(async move {
                    let (client, connection) = config.connect(NoTls).await?;
                    // The connection's task ends when the client is dropped or the server goes away.
                    tokio::spawn(async move {
                        let _ = connection.await;
                    });
                    Ok::<_, tokio_postgres::Error>(client)
                });
                match tokio::time::timeout(self.connect_timeout, &mut connected).await {
                    Ok(Ok(connected)) => connected.map_err(|e| self.error(&e))?,
                    Ok(Err(join)) => return Err(storage(format!("connecting to PostgreSQL failed: {join}"))),
                    Err(_elapsed) => {
                        connected.abort();
                        return Err(storage(format!(
                            "connecting to PostgreSQL took longer than {} ms (connect_timeout_ms): the server \
                             accepted no session",
                            self.connect_timeout.as_millis()
                        )));
                    }
                }
            }
        };
        Ok(Pooled { store: self, client: Some(client), finished: false, _permit: permit })
    }

    async fn migrate(&self) -> Result<()> {
        let mut pooled = self.connection().await?;
        let tx = pooled.client().transaction().await.map_err(|e| self.error(&e))?;
        let lock_key = format!("sika_ledger:{}", self.schema);
        let schema = format!(
            "CREATE SCHEMA IF NOT EXISTS \"{s}\";
             CREATE TABLE IF NOT EXISTS {version} (
                 id INTEGER PRIMARY KEY CHECK (id = 1),
                 version BIGINT NOT NULL
             );
             CREATE TABLE IF NOT EXISTS {payments} (
                 reference TEXT PRIMARY KEY,
                 amount TEXT NOT NULL,
                 currency TEXT NOT NULL,
                 created_at BIGINT NOT NULL,
                 last_status TEXT,
                 last_status_at BIGINT,
                 claim_token TEXT,
                 claim_expires_at BIGINT,
                 claims_offered BIGINT NOT NULL DEFAULT 0,
                 fulfilled_at BIGINT,
                 paid_at BIGINT
             );
             CREATE TABLE IF NOT EXISTS {events} (
                 id BIGSERIAL PRIMARY KEY,
                 reference TEXT NOT NULL REFERENCES {payments} (reference),
                 at BIGINT NOT NULL,
                 source TEXT NOT NULL,
                 kind TEXT NOT NULL,
                 status TEXT,
                 detail TEXT NOT NULL,
                 repeats BIGINT NOT NULL DEFAULT 1,
                 last_at BIGINT
             );",
            s = self.schema,
            version = self.t("sika_schema_version"),
            payments = self.t("sika_payments"),
            events = self.t("sika_payment_events"),
        );
        let result: std::result::Result<Option<i64>, tokio_postgres::Error> = async {
            tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&lock_key]).await?;
            tx.batch_execute(&schema).await?;
            // A ledger made before `paid_at` (ADR 0081) gets the column: an addition older SDKs
            // ignore, so the version stays. Altered only when missing, as the indexes are made
            // (`ALTER TABLE` locks the table even when the column exists).
            let paid_at: Option<i32> = tx
                .query_opt(
                    "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'paid_at' \
                     AND NOT attisdropped",
                    &[&self.t("sika_payments")],
                )
                .await?
                .map(|row| row.get(0));
            if paid_at.is_none() {
                tx.batch_execute(&format!(
                    "ALTER TABLE {} ADD COLUMN IF NOT EXISTS paid_at BIGINT",
                    self.t("sika_payments")
                ))
                .await?;
            }
            // `CREATE INDEX IF NOT EXISTS` locks its table (SHARE) even when the index exists:
            // at every open, while other workers write, that deadlocked their `expect` (which
            // locks the payments, then the events). So an index is made only when missing, the
            // payments' first: the order every change takes its tables in.
            let indexes = [
                (
                    "sika_payments_open",
                    format!("{} (created_at, reference) WHERE fulfilled_at IS NULL", self.t("sika_payments")),
                ),
                ("sika_payment_events_reference", format!("{} (reference, id)", self.t("sika_payment_events"))),
            ];
            for (name, on) in indexes {
                let qualified = format!("\"{}\".{name}", self.schema);
                let exists: Option<String> = tx.query_one("SELECT to_regclass($1)::text", &[&qualified]).await?.get(0);
                if exists.is_none() {
                    tx.batch_execute(&format!("CREATE INDEX IF NOT EXISTS {name} ON {on}")).await?;
                }
            }
            // Events made before they counted their repeats (ADR 0085) get the two columns, only
            // when missing (an ALTER locks the table even when it changes nothing); still schema
            // version 1: an older SDK reads and writes beside them.
            let events = format!("\"{}\".sika_payment_events", self.schema);
            let counted = tx
                .query_opt(
                    "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'repeats' \
                     AND NOT attisdropped",
                    &[&events],
                )
                .await?
                .is_some();
            if !counted {
                tx.batch_execute(&format!(
                    "ALTER TABLE {} ADD COLUMN IF NOT EXISTS repeats BIGINT NOT NULL DEFAULT 1, \
                     ADD COLUMN IF NOT EXISTS last_at BIGINT",
                    self.t("sika_payment_events")
                ))
                .await?;
            }
            let version = tx
                .query_opt(&format!("SELECT version FROM {} WHERE id = 1", self.t("sika_schema_version")), &[])
                .await?
                .map(|row| row.get::<_, i64>(0));
            if version.is_none() {
                tx.execute(
                    &format!("INSERT INTO {} (id, version) VALUES (1, $1)", self.t("sika_schema_version")),
                    &[&SCHEMA_VERSION],
                )
                .await?;
            }
            Ok(version)
        }
        .await;
        let version = result.map_err(|e| self.error(&e))?;
        if let Some(version) = version.filter(|v| *v > SCHEMA_VERSION) {
            return Err(storage(format!(
                "the ledger's schema is version {version}, newer than this SDK's {SCHEMA_VERSION}: upgrade Sika"
            )));
        }
        tx.commit().await.map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(())
    }

    pub(super) async fn expect(
        &self,
        reference: &str,
        expected: &ExpectedPayment,
        now: i64,
    ) -> Result<Option<ExpectedPayment>> {
        let mut pooled = self.connection().await?;
        let tx = pooled.client().transaction().await.map_err(|e| self.error(&e))?;
        let (amount, currency) = (expected.amount.to_string(), expected.currency.clone());
        let result: std::result::Result<Option<(String, String)>, tokio_postgres::Error> = async {
            let inserted = tx
                .query_typed(
                    &format!(
                        "INSERT INTO {} (reference, amount, currency, created_at) VALUES ($1, $2, $3, $4) \
                         ON CONFLICT (reference) DO NOTHING RETURNING 1",
                        self.t("sika_payments")
                    ),
                    &[(&reference, Type::TEXT), (&amount, Type::TEXT), (&currency, Type::TEXT), (&now, Type::INT8)],
                )
                .await?;
            if inserted.len() == 1 {
                self.insert_event(&tx, reference, now, "expect", "expected", None, &format!("{amount} {currency}"))
                    .await?;
                return Ok(None);
            }
            let rows = tx
                .query_typed(
                    &format!("SELECT amount, currency FROM {} WHERE reference = $1", self.t("sika_payments")),
                    &[(&reference, Type::TEXT)],
                )
                .await?;
            Ok(rows.first().map(|row| (row.get(0), row.get(1))))
        }
        .await;
        let recorded = result.map_err(|e| self.error(&e))?;
        tx.commit().await.map_err(|e| self.error(&e))?;
        pooled.finished = true;
        recorded.map(|(amount, currency)| super::recorded_expectation(&amount, currency)).transpose()
    }

    fn row_query(&self) -> String {
        format!(
            "SELECT reference, amount, currency, created_at, last_status, last_status_at, claim_token, \
             claim_expires_at, claims_offered, fulfilled_at, {DB_NOW}, paid_at FROM {} WHERE reference = $1",
            self.t("sika_payments")
        )
    }

    pub(super) async fn row(&self, reference: &str) -> Result<Option<Row>> {
        let mut pooled = self.connection().await?;
        let rows = pooled
            .client()
            .query_typed(&self.row_query(), &[(&reference, Type::TEXT)])
            .await
            .map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(rows.first().map(read_row))
    }

    pub(super) async fn open_page(&self, page: OpenPage) -> Result<Vec<Row>> {
        let query = format!(
            "SELECT reference, amount, currency, created_at, last_status, last_status_at, claim_token, \
             claim_expires_at, claims_offered, fulfilled_at, {DB_NOW}, paid_at FROM {} \
             WHERE fulfilled_at IS NULL AND created_at <= $1 \
             AND (claim_expires_at IS NULL OR claim_expires_at <= {DB_NOW}) \
             AND (created_at > $2 OR (created_at = $2 AND reference > $3)) \
             ORDER BY created_at, reference LIMIT $4",
            self.t("sika_payments")
        );
        let mut pooled = self.connection().await?;
        let (after_created, after_reference) = page.after;
        let rows = pooled
            .client()
            .query(&query, &[&page.created_before, &after_created, &after_reference, &page.size])
            .await
            .map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(rows.iter().map(read_row).collect())
    }

    pub(super) async fn record(&self, reference: &str, event: NewEvent) -> Result<()> {
        let mut pooled = self.connection().await?;
        let tx = pooled.client().transaction().await.map_err(|e| self.error(&e))?;
        let result: std::result::Result<(), tokio_postgres::Error> = async {
            // The payment's row is locked first (as every change locks it), so that concurrent
            // repeats of one event are counted on one row, never added as rows of their own.
            if let Some(status) = &event.status {
                tx.query_typed(
                    &format!(
                        "UPDATE {} SET last_status = $2, last_status_at = $3 WHERE reference = $1",
                        self.t("sika_payments")
                    ),
                    &[(&reference, Type::TEXT), (status, Type::TEXT), (&event.at, Type::INT8)],
                )
                .await?;
            } else {
                tx.query_typed(
                    &format!("SELECT 1 FROM {} WHERE reference = $1 FOR UPDATE", self.t("sika_payments")),
                    &[(&reference, Type::TEXT)],
                )
                .await?;
            }
            self.insert_event(
                &tx,
                reference,
                event.at,
                event.source.as_str(),
                event.kind.as_str(),
                event.status.as_deref(),
                &event.detail,
            )
            .await
        }
        .await;
        result.map_err(|e| self.error(&e))?;
        tx.commit().await.map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(())
    }

    pub(super) async fn claim(&self, reference: &str, request: &ClaimRequest) -> Result<Claimed> {
        let mut pooled = self.connection().await?;
        let tx = pooled.client().transaction().await.map_err(|e| self.error(&e))?;
        // Typed queries: one round trip each (no prepare), and one UPDATE: a webhook decision's
        // claim is 5 round trips with BEGIN and COMMIT (the ledger bench's "added" time).
        let result: std::result::Result<Option<Claimed>, tokio_postgres::Error> = async {
            let rows = tx
                .query_typed(
                    &format!(
                        "SELECT claim_token, claim_expires_at, claims_offered, fulfilled_at, {DB_NOW} FROM {} \
                         WHERE reference = $1 FOR UPDATE",
                        self.t("sika_payments")
                    ),
                    &[(&reference, Type::TEXT)],
                )
                .await?;
            let Some(row) = rows.first() else { return Ok(None) };
            let state = claim_state(row);
            // The server's clock, read after the row lock was granted.
            let now: i64 = row.get(4);
            let step = claim_step(&state, now);
            let claimed = Claimed::new(step, state, now, request.lease);
            let payments = self.t("sika_payments");
            match step {
                ClaimStep::Offer { offer } => {
                    tx.query_typed(
                        &format!(
                            "UPDATE {payments} SET claim_token = $2, claim_expires_at = $3, claims_offered = $4, \
                             last_status = $5, last_status_at = $6 WHERE reference = $1"
                        ),
                        &[
                            (&reference, Type::TEXT),
                            (&request.token, Type::TEXT),
                            (&claimed.lease_until, Type::INT8),
                            (&offer, Type::INT8),
                            (&request.status, Type::TEXT),
                            (&now, Type::INT8),
                        ],
                    )
                    .await?;
                }
                _ => {
                    tx.query_typed(
                        &format!("UPDATE {payments} SET last_status = $2, last_status_at = $3 WHERE reference = $1"),
                        &[(&reference, Type::TEXT), (&request.status, Type::TEXT), (&now, Type::INT8)],
                    )
                    .await?;
                }
            }
            self.insert_event(
                &tx,
                reference,
                now,
                request.source.as_str(),
                step.event_kind().as_str(),
                Some(&request.status),
                &claimed.detail(),
            )
            .await?;
            Ok(Some(claimed))
        }
        .await;
        let step = result.map_err(|e| self.error(&e))?;
        let claimed = step.ok_or_else(|| storage(format!("the ledger has no record of `{reference}` to claim")))?;
        tx.commit().await.map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(claimed)
    }

    /// Whether `claim` is its reference's current claim, with the row locked for the change, and
    /// the server's clock once the lock was granted.
    async fn holder(
        &self,
        tx: &impl GenericClient,
        claim: &Claim,
    ) -> std::result::Result<(HolderStep, i64), tokio_postgres::Error> {
        let rows = tx
            .query_typed(
                &format!(
                    "SELECT claim_token, claims_offered, fulfilled_at, {DB_NOW} FROM {} WHERE reference = $1 FOR UPDATE",
                    self.t("sika_payments")
                ),
                &[(&claim.reference, Type::TEXT)],
            )
            .await?;
        let Some(row) = rows.first() else { return Ok((HolderStep::Lost, 0)) };
        let token: Option<String> = row.get(0);
        let step = holder_step(token.as_deref(), row.get(1), row.get::<_, Option<i64>>(2).is_some(), claim);
        Ok((step, row.get(3)))
    }

    /// Marks the current claim fulfilled, at the server's time.
    pub(super) async fn mark(&self, claim: &Claim, _now: i64) -> Result<HolderStep> {
        let mut pooled = self.connection().await?;
        let tx = pooled.client().transaction().await.map_err(|e| self.error(&e))?;
        let result: std::result::Result<HolderStep, tokio_postgres::Error> = async {
            let (step, now) = self.holder(&tx, claim).await?;
            if step == HolderStep::Current {
                tx.query_typed(
                    &format!("UPDATE {} SET fulfilled_at = $2 WHERE reference = $1", self.t("sika_payments")),
                    &[(&claim.reference, Type::TEXT), (&now, Type::INT8)],
                )
                .await?;
                let detail = format!("claim {} marked", claim.offer);
                self.insert_event(&tx, &claim.reference, now, "mark_fulfilled", "fulfilled", None, &detail).await?;
            }
            Ok(step)
        }
        .await;
        let step = result.map_err(|e| self.error(&e))?;
        tx.commit().await.map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(step)
    }

    /// Extends the current claim's lease to the server's now plus `lease`.
    pub(super) async fn renew(&self, claim: &Claim, lease: i64, _now: i64) -> Result<(HolderStep, i64)> {
        let mut pooled = self.connection().await?;
        let tx = pooled.client().transaction().await.map_err(|e| self.error(&e))?;
        let result: std::result::Result<(HolderStep, i64), tokio_postgres::Error> = async {
            let (step, now) = self.holder(&tx, claim).await?;
            let until = now.saturating_add(lease);
            if step == HolderStep::Current {
                tx.query_typed(
                    &format!("UPDATE {} SET claim_expires_at = $2 WHERE reference = $1", self.t("sika_payments")),
                    &[(&claim.reference, Type::TEXT), (&until, Type::INT8)],
                )
                .await?;
            }
            Ok((step, until))
        }
        .await;
        let renewed = result.map_err(|e| self.error(&e))?;
        tx.commit().await.map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(renewed)
    }

    /// Ends the current claim at the server's now, recorded with `reason`.
    pub(super) async fn release(&self, claim: &Claim, reason: &str, _now: i64) -> Result<HolderStep> {
        let mut pooled = self.connection().await?;
        let tx = pooled.client().transaction().await.map_err(|e| self.error(&e))?;
        let result: std::result::Result<HolderStep, tokio_postgres::Error> = async {
            let (step, now) = self.holder(&tx, claim).await?;
            if step == HolderStep::Current {
                tx.query_typed(
                    &format!(
                        "UPDATE {} SET claim_token = NULL, claim_expires_at = $2 WHERE reference = $1",
                        self.t("sika_payments")
                    ),
                    &[(&claim.reference, Type::TEXT), (&now, Type::INT8)],
                )
                .await?;
                let detail = format!("claim {} released: {reason}", claim.offer);
                self.insert_event(&tx, &claim.reference, now, "release", "released", None, &detail).await?;
            }
            Ok(step)
        }
        .await;
        let step = result.map_err(|e| self.error(&e))?;
        tx.commit().await.map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(step)
    }

    /// Records that a reconciliation run verified `reference` paid in full (`paid_at`, the
    /// status, the `ready` event), without claiming it (ADR 0081).
    pub(super) async fn record_ready(&self, reference: &str, at: i64, status: &str, detail: &str) -> Result<()> {
        let mut pooled = self.connection().await?;
        let tx = pooled.client().transaction().await.map_err(|e| self.error(&e))?;
        let result: std::result::Result<(), tokio_postgres::Error> = async {
            tx.query_typed(
                &format!(
                    "UPDATE {} SET last_status = $2, last_status_at = $3, paid_at = $3 WHERE reference = $1",
                    self.t("sika_payments")
                ),
                &[(&reference, Type::TEXT), (&status, Type::TEXT), (&at, Type::INT8)],
            )
            .await?;
            self.insert_event(&tx, reference, at, "reconcile", "ready", Some(status), detail).await
        }
        .await;
        result.map_err(|e| self.error(&e))?;
        tx.commit().await.map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(())
    }

    /// Claims a payment a reconciliation run recorded paid in full, in one transaction on the
    /// server's clock, as `claim` does after a verification; `None` when the reference is not
    /// in the ledger.
    pub(super) async fn claim_ready(&self, reference: &str, request: &ClaimRequest) -> Result<Option<ReadyClaim>> {
        let mut pooled = self.connection().await?;
        let tx = pooled.client().transaction().await.map_err(|e| self.error(&e))?;
        let result: std::result::Result<Option<ReadyClaim>, tokio_postgres::Error> = async {
            let rows = tx
                .query_typed(
                    &format!(
                        "SELECT claim_token, claim_expires_at, claims_offered, fulfilled_at, {DB_NOW}, paid_at, \
                         last_status FROM {} WHERE reference = $1 FOR UPDATE",
                        self.t("sika_payments")
                    ),
                    &[(&reference, Type::TEXT)],
                )
                .await?;
            let Some(row) = rows.first() else { return Ok(None) };
            let state = claim_state(row);
            // The server's clock, read after the row lock was granted.
            let now: i64 = row.get(4);
            let paid = row.get::<_, Option<i64>>(5).is_some();
            let Some(step) = ready_claim_step(&state, paid, now) else {
                return Ok(Some(ReadyClaim::NotPaid { last_status: row.get(6) }));
            };
            let claimed = Claimed::new(step, state, now, request.lease);
            if let ClaimStep::Offer { offer } = step {
                tx.query_typed(
                    &format!(
                        "UPDATE {} SET claim_token = $2, claim_expires_at = $3, claims_offered = $4 WHERE reference = $1",
                        self.t("sika_payments")
                    ),
                    &[
                        (&reference, Type::TEXT),
                        (&request.token, Type::TEXT),
                        (&claimed.lease_until, Type::INT8),
                        (&offer, Type::INT8),
                    ],
                )
                .await?;
            }
            let (source, kind) = (request.source.as_str(), step.event_kind().as_str());
            self.insert_event(&tx, reference, now, source, kind, None, &claimed.detail()).await?;
            Ok(Some(ReadyClaim::Claimed(claimed)))
        }
        .await;
        let claimed = result.map_err(|e| self.error(&e))?;
        tx.commit().await.map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(claimed)
    }

    /// The row and its first `limit` events, oldest first.
    pub(super) async fn payment(&self, reference: &str, limit: i64) -> Result<Option<(Row, Vec<EventRow>)>> {
        let mut pooled = self.connection().await?;
        let tx = pooled.client().transaction().await.map_err(|e| self.error(&e))?;
        let result: std::result::Result<Option<(Row, Vec<EventRow>)>, tokio_postgres::Error> = async {
            let Some(row) = tx.query_opt(&self.row_query(), &[&reference]).await? else { return Ok(None) };
            let events = self.read_events(&tx, reference, 0, limit).await?;
            Ok(Some((read_row(&row), events)))
        }
        .await;
        let found = result.map_err(|e| self.error(&e))?;
        tx.commit().await.map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(found)
    }

    /// The events after the one with id `after`, oldest first, at most `limit`.
    pub(super) async fn events(&self, reference: &str, after: i64, limit: i64) -> Result<Vec<EventRow>> {
        let mut pooled = self.connection().await?;
        let events = self.read_events(&*pooled.client(), reference, after, limit).await.map_err(|e| self.error(&e))?;
        pooled.finished = true;
        Ok(events)
    }

    async fn read_events(
        &self,
        client: &impl GenericClient,
        reference: &str,
        after: i64,
        limit: i64,
    ) -> std::result::Result<Vec<EventRow>, tokio_postgres::Error> {
        let rows = client
            .query_typed(
                &format!(
                    "SELECT id, at, source, kind, status, detail, repeats, last_at FROM {} \
                     WHERE reference = $1 AND id > $2 ORDER BY id LIMIT $3",
                    self.t("sika_payment_events")
                ),
                &[(&reference, Type::TEXT), (&after, Type::INT8), (&limit, Type::INT8)],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|r| EventRow {
                id: r.get(0),
                at: r.get(1),
                source: r.get(2),
                kind: r.get(3),
                status: r.get(4),
                detail: r.get(5),
                repeats: r.get(6),
                last_at: r.get(7),
            })
            .collect())
    }

    /// Records an event: the reference's last event counted once more when it is the same
    /// (source, kind, status and detail: a repeated delivery, ADR 0085), else a new row. The
    /// caller holds the payment's row lock, so concurrent repeats count on one row.
    #[allow(clippy::too_many_arguments)]
    async fn insert_event(
        &self,
        tx: &impl GenericClient,
        reference: &str,
        at: i64,
        source: &str,
        kind: &str,
        status: Option<&str>,
        detail: &str,
    ) -> std::result::Result<(), tokio_postgres::Error> {
        let events = self.t("sika_payment_events");
        let repeated = tx
            .query_typed(
                &format!(
                    "UPDATE {events} SET repeats = repeats + 1, last_at = $2 \
                     WHERE id = (SELECT max(id) FROM {events} WHERE reference = $1) \
                     AND source = $3 AND kind = $4 AND status IS NOT DISTINCT FROM $5 AND detail = $6 RETURNING 1"
                ),
                &[
                    (&reference, Type::TEXT),
                    (&at, Type::INT8),
                    (&source, Type::TEXT),
                    (&kind, Type::TEXT),
                    (&status, Type::TEXT),
                    (&detail, Type::TEXT),
                ],
            )
            .await?;
        if !repeated.is_empty() {
            return Ok(());
        }
        tx.query_typed(
            &format!(
                "INSERT INTO {events} (reference, at, source, kind, status, detail) VALUES ($1, $2, $3, $4, $5, $6)"
            ),
            &[
                (&reference, Type::TEXT),
                (&at, Type::INT8),
                (&source, Type::TEXT),
                (&kind, Type::TEXT),
                (&status, Type::TEXT),
                (&detail, Type::TEXT),
            ],
        )
        .await?;
        Ok(())
    }
}

/// A pooled connection; back to the pool when dropped after its operation finished, unless
/// the server closed it. One dropped mid-operation (its deadline passed, or its caller was
/// cancelled) is closed: its server may still be working, or frozen, on a half-sent change.
struct Pooled<'a> {
    store: &'a PgStore,
    client: Option<PgClient>,
    finished: bool,
    _permit: SemaphorePermit<'a>,
}

impl Pooled<'_> {
    fn client(&mut self) -> &mut PgClient {
        self.client.as_mut().expect("a pooled connection holds its client until dropped")
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(client) = self.client.take().filter(|c| self.finished && !c.is_closed()) {
            self.store.idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(client);
        }
    }
}

fn read_row(row: &tokio_postgres::Row) -> Row {
    Row {
        reference: row.get(0),
        amount: row.get(1),
        currency: row.get(2),
        created_at: row.get(3),
        last_status: row.get(4),
        last_status_at: row.get(5),
        claim_token: row.get(6),
        claim_expires_at: row.get(7),
        claims_offered: row.get(8),
        fulfilled_at: row.get(9),
        read_at: row.try_get(10).ok(),
        paid_at: row.get(11),
    }
}

fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z' | b'_'))
        && name.len() <= 63
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

/// Removes the password (and the whole URL) from a text about the connection.
fn scrub_text(text: &str, password: Option<&str>, url: Option<&str>) -> String {
    let mut text = text.to_owned();
    if let Some(url) = url.filter(|u| !u.is_empty()) {
        text = text.replace(url, "[REDACTED]");
    }
    if let Some(password) = password.filter(|p| !p.is_empty()) {
        text = text.replace(password, "[REDACTED]");
    }
    text
}

/// The claim columns `claim_token, claim_expires_at, claims_offered, fulfilled_at`, the first
/// four of every claiming `SELECT`.
fn claim_state(row: &tokio_postgres::Row) -> ClaimState {
    ClaimState {
        token: row.get::<_, Option<String>>(0).is_some(),
        expires_at: row.get(1),
        offers: row.get(2),
        fulfilled_at: row.get(3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b136_a_schema_name_must_be_a_plain_identifier() {
        assert!(is_identifier("shop_ledger"));
        assert!(is_identifier("_x1"));
        for bad in ["", "1x", "Shop", "a-b", "a\"b", "a;drop", &"x".repeat(64)] {
            assert!(!is_identifier(bad), "{bad}");
        }
    }

    #[test]
    fn b135_the_url_password_is_scrubbed() {
        let text = scrub_text(
            "auth failed for pa55 at postgresql://u:pa55@h/db",
            Some("pa55"),
            Some("postgresql://u:pa55@h/db"),
        );
        assert!(!text.contains("pa55"), "{text}");
    }
}

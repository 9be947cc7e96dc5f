//! The ledger in an embedded SQLite file: one connection per ledger handle, in WAL mode with a
//! busy timeout; each change is one `BEGIN IMMEDIATE` transaction (the write lock taken first,
//! so two handles never deadlock upgrading a read lock). Calls run on tokio's blocking pool.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};

use super::clock::{BootClock, LedgerClock, boot_clock};
use super::reconcile::{ReadyClaim, ready_claim_step};
use super::{
    Claim, ClaimRequest, ClaimState, ClaimStep, Claimed, EventRow, HolderStep, NewEvent, OpenPage, Row, SCHEMA_VERSION,
    claim_step, holder_step, storage,
};
use crate::error::Result;
use crate::safety::confirm::ExpectedPayment;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS sika_schema_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sika_payments (
    reference TEXT PRIMARY KEY,
    amount TEXT NOT NULL,
    currency TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_status TEXT,
    last_status_at INTEGER,
    claim_token TEXT,
    claim_expires_at INTEGER,
    claims_offered INTEGER NOT NULL DEFAULT 0,
    fulfilled_at INTEGER,
    paid_at INTEGER
);
CREATE TABLE IF NOT EXISTS sika_payment_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    reference TEXT NOT NULL REFERENCES sika_payments (reference),
    at INTEGER NOT NULL,
    source TEXT NOT NULL,
    kind TEXT NOT NULL,
    status TEXT,
    detail TEXT NOT NULL,
    repeats INTEGER NOT NULL DEFAULT 1,
    last_at INTEGER
);
CREATE INDEX IF NOT EXISTS sika_payment_events_reference ON sika_payment_events (reference, id);
CREATE INDEX IF NOT EXISTS sika_payments_open ON sika_payments (created_at, reference) WHERE fulfilled_at IS NULL;
CREATE TABLE IF NOT EXISTS sika_clock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    boot_id TEXT NOT NULL,
    wall_minus_boot INTEGER NOT NULL
);
";

const ROW: &str = "SELECT reference, amount, currency, created_at, last_status, last_status_at, claim_token, \
                   claim_expires_at, claims_offered, fulfilled_at, paid_at FROM sika_payments WHERE reference = ?1";

/// A page of open payments after a cursor, oldest first (see `OpenPage`).
const OPEN: &str = "SELECT reference, amount, currency, created_at, last_status, last_status_at, claim_token, \
                    claim_expires_at, claims_offered, fulfilled_at, paid_at FROM sika_payments \
                    WHERE fulfilled_at IS NULL AND created_at <= ?1 \
                    AND (claim_expires_at IS NULL OR claim_expires_at <= ?2) \
                    AND (created_at > ?3 OR (created_at = ?3 AND reference > ?4)) \
                    ORDER BY created_at, reference LIMIT ?5";

pub(super) struct SqliteStore {
    connection: Arc<Mutex<Connection>>,
    /// The clock of this file's times and leases (ADR 0095).
    pub(super) clock: LedgerClock,
}

impl SqliteStore {
    pub(super) async fn open(path: PathBuf, busy_timeout_ms: u64) -> Result<Self> {
        let opened = path.clone();
        let connection = blocking(move || {
            let busy_timeout = Duration::from_millis(busy_timeout_ms);
            let mut connection = Connection::open(&opened)?;
            connection.busy_timeout(busy_timeout)?;
            let mode: String = retry_while_busy(busy_timeout, || {
                connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            })?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(failure(format!("journal mode `{mode}`, not WAL")));
            }
            connection.pragma_update(None, "foreign_keys", true)?;
            let boot = boot_clock();
            let clock =
                retry_while_busy(busy_timeout, || migrate(&mut connection, boot.as_ref(), super::now_micros()))?;
            Ok((connection, clock))
        })
        .await
        .map_err(|e| storage(format!("{e} (SQLite file {})", path.display())))?;
        let (connection, clock) = connection;
        Ok(Self { connection: Arc::new(Mutex::new(connection)), clock })
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T> {
        let connection = Arc::clone(&self.connection);
        blocking(move || {
            let mut connection = connection.lock().unwrap_or_else(PoisonError::into_inner);
            work(&mut connection)
        })
        .await
        .map_err(|e| storage(e.to_string()))
    }

    pub(super) async fn expect(
        &self,
        reference: &str,
        expected: &ExpectedPayment,
        now: i64,
    ) -> Result<Option<ExpectedPayment>> {
        let (reference, amount, currency) =
            (reference.to_owned(), expected.amount.to_string(), expected.currency.clone());
        let recorded = self
            .run(move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let inserted = tx.execute(
                    "INSERT INTO sika_payments (reference, amount, currency, created_at) VALUES (?1, ?2, ?3, ?4) \
                     ON CONFLICT (reference) DO NOTHING",
                    params![reference, amount, currency, now],
                )?;
                if inserted == 1 {
                    insert_event(&tx, &reference, now, "expect", "expected", None, &format!("{amount} {currency}"))?;
                    tx.commit()?;
                    return Ok(None);
                }
                let recorded = tx.query_row(
                    "SELECT amount, currency FROM sika_payments WHERE reference = ?1",
                    params![reference],
                    |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)),
                )?;
                Ok(Some(recorded))
            })
            .await?;
        recorded.map(|(amount, currency)| super::recorded_expectation(&amount, currency)).transpose()
    }

    pub(super) async fn row(&self, reference: &str) -> Result<Option<Row>> {
        let reference = reference.to_owned();
        self.run(move |c| c.query_row(ROW, params![reference], read_row).optional()).await
    }

    pub(super) async fn open_page(&self, page: OpenPage) -> Result<Vec<Row>> {
        self.run(move |c| {
            let mut statement = c.prepare_cached(OPEN)?;
            let rows = statement
                .query_map(params![page.created_before, page.now, page.after.0, page.after.1, page.size], read_row)?;
            rows.collect()
        })
        .await
    }

    pub(super) async fn record(&self, reference: &str, event: NewEvent) -> Result<()> {
        let reference = reference.to_owned();
        self.run(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            if let Some(status) = &event.status {
                tx.execute(
                    "UPDATE sika_payments SET last_status = ?2, last_status_at = ?3 WHERE reference = ?1",
                    params![reference, status, event.at],
                )?;
            }
            insert_event(
                &tx,
                &reference,
                event.at,
                event.source.as_str(),
                event.kind.as_str(),
                event.status.as_deref(),
                &event.detail,
            )?;
            tx.commit()
        })
        .await
    }

    /// Leases are on the file's clock (`clock`): a SQLite file is one machine's, whose processes
    /// share its boot clock and the file's anchor (ADR 0095).
    pub(super) async fn claim(&self, reference: &str, request: &ClaimRequest) -> Result<Claimed> {
        let (reference, request) = (reference.to_owned(), request.clone());
        self.run(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let state = tx.query_row(
                "SELECT claim_token, claim_expires_at, claims_offered, fulfilled_at FROM sika_payments \
                 WHERE reference = ?1",
                params![reference],
                claim_state,
            )?;
            let step = claim_step(&state, request.now);
            let claimed = Claimed::new(step, state, request.now, request.lease);
            if let ClaimStep::Offer { offer } = step {
                offer_claim(&tx, &reference, &request.token, claimed.lease_until, offer)?;
            }
            tx.execute(
                "UPDATE sika_payments SET last_status = ?2, last_status_at = ?3 WHERE reference = ?1",
                params![reference, request.status, request.now],
            )?;
            insert_event(
                &tx,
                &reference,
                request.now,
                request.source.as_str(),
                step.event_kind().as_str(),
                Some(&request.status),
                &claimed.detail(),
            )?;
            tx.commit()?;
            Ok(claimed)
        })
        .await
    }

    pub(super) async fn mark(&self, claim: &Claim, now: i64) -> Result<HolderStep> {
        let claim = claim.clone();
        self.run(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let step = holder(&tx, &claim)?;
            if step == HolderStep::Current {
                tx.execute(
                    "UPDATE sika_payments SET fulfilled_at = ?2 WHERE reference = ?1",
                    params![claim.reference, now],
                )?;
                let detail = format!("claim {} marked", claim.offer);
                insert_event(&tx, &claim.reference, now, "mark_fulfilled", "fulfilled", None, &detail)?;
                tx.commit()?;
            }
            Ok(step)
        })
        .await
    }

    /// Extends the lease of the current claim to `now + lease`; gives the step and the new end.
    pub(super) async fn renew(&self, claim: &Claim, lease: i64, now: i64) -> Result<(HolderStep, i64)> {
        let claim = claim.clone();
        self.run(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let step = holder(&tx, &claim)?;
            let until = now.saturating_add(lease);
            if step == HolderStep::Current {
                tx.execute(
                    "UPDATE sika_payments SET claim_expires_at = ?2 WHERE reference = ?1",
                    params![claim.reference, until],
                )?;
                tx.commit()?;
            }
            Ok((step, until))
        })
        .await
    }

    /// Ends the current claim now (no token is current after it), recorded with `reason`.
    pub(super) async fn release(&self, claim: &Claim, reason: &str, now: i64) -> Result<HolderStep> {
        let (claim, reason) = (claim.clone(), reason.to_owned());
        self.run(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let step = holder(&tx, &claim)?;
            if step == HolderStep::Current {
                tx.execute(
                    "UPDATE sika_payments SET claim_token = NULL, claim_expires_at = ?2 WHERE reference = ?1",
                    params![claim.reference, now],
                )?;
                let detail = format!("claim {} released: {reason}", claim.offer);
                insert_event(&tx, &claim.reference, now, "release", "released", None, &detail)?;
                tx.commit()?;
            }
            Ok(step)
        })
        .await
    }

    /// Records that a reconciliation run verified `reference` paid in full (`paid_at`, the
    /// status, the `ready` event), without claiming it (ADR 0081).
    pub(super) async fn record_ready(&self, reference: &str, at: i64, status: &str, detail: &str) -> Result<()> {
        let (reference, status, detail) = (reference.to_owned(), status.to_owned(), detail.to_owned());
        self.run(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute(
                "UPDATE sika_payments SET last_status = ?2, last_status_at = ?3, paid_at = ?3 WHERE reference = ?1",
                params![reference, status, at],
            )?;
            insert_event(&tx, &reference, at, "reconcile", "ready", Some(&status), &detail)?;
            tx.commit()
        })
        .await
    }

    /// Claims a payment a reconciliation run recorded paid in full, in one transaction, as
    /// `claim` does after a verification; `None` when the reference is not in the ledger.
    pub(super) async fn claim_ready(&self, reference: &str, request: &ClaimRequest) -> Result<Option<ReadyClaim>> {
        let (reference, request) = (reference.to_owned(), request.clone());
        self.run(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let found = tx
                .query_row(
                    "SELECT claim_token, claim_expires_at, claims_offered, fulfilled_at, paid_at, last_status \
                     FROM sika_payments WHERE reference = ?1",
                    params![reference],
                    |row| {
                        Ok((
                            claim_state(row)?,
                            row.get::<_, Option<i64>>(4)?.is_some(),
                            row.get::<_, Option<String>>(5)?,
                        ))
                    },
                )
                .optional()?;
            let Some((state, paid, last_status)) = found else { return Ok(None) };
            let Some(step) = ready_claim_step(&state, paid, request.now) else {
                return Ok(Some(ReadyClaim::NotPaid { last_status }));
            };
            let claimed = Claimed::new(step, state, request.now, request.lease);
            if let ClaimStep::Offer { offer } = step {
                offer_claim(&tx, &reference, &request.token, claimed.lease_until, offer)?;
            }
            let (source, kind) = (request.source.as_str(), step.event_kind().as_str());
            insert_event(&tx, &reference, request.now, source, kind, None, &claimed.detail())?;
            tx.commit()?;
            Ok(Some(ReadyClaim::Claimed(claimed)))
        })
        .await
    }

    /// The row and its first `limit` events, oldest first.
    pub(super) async fn payment(&self, reference: &str, limit: i64) -> Result<Option<(Row, Vec<EventRow>)>> {
        let reference = reference.to_owned();
        self.run(move |c| {
            let tx = c.transaction()?;
            let Some(row) = tx.query_row(ROW, params![reference], read_row).optional()? else { return Ok(None) };
            let events = read_events(&tx, &reference, 0, limit)?;
            Ok(Some((row, events)))
        })
        .await
    }

    /// The events after the one with id `after`, oldest first, at most `limit`.
    pub(super) async fn events(&self, reference: &str, after: i64, limit: i64) -> Result<Vec<EventRow>> {
        let reference = reference.to_owned();
        self.run(move |c| read_events(c, &reference, after, limit)).await
    }
}

/// Whether `claim` is its reference's current claim, read inside the change's transaction.
fn holder(tx: &rusqlite::Transaction<'_>, claim: &Claim) -> rusqlite::Result<HolderStep> {
    let current = tx
        .query_row(
            "SELECT claim_token, claims_offered, fulfilled_at FROM sika_payments WHERE reference = ?1",
            params![claim.reference],
            |row| {
                Ok((row.get::<_, Option<String>>(0)?, row.get::<_, i64>(1)?, row.get::<_, Option<i64>>(2)?.is_some()))
            },
        )
        .optional()?;
    Ok(current
        .map_or(HolderStep::Lost, |(token, offer, fulfilled)| holder_step(token.as_deref(), offer, fulfilled, claim)))
}

fn read_events(c: &Connection, reference: &str, after: i64, limit: i64) -> rusqlite::Result<Vec<EventRow>> {
    let mut statement = c.prepare_cached(
        "SELECT id, at, source, kind, status, detail, repeats, last_at FROM sika_payment_events \
         WHERE reference = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
    )?;
    statement
        .query_map(params![reference, after, limit], |r| {
            Ok(EventRow {
                id: r.get(0)?,
                at: r.get(1)?,
                source: r.get(2)?,
                kind: r.get(3)?,
                status: r.get(4)?,
                detail: r.get(5)?,
                repeats: r.get(6)?,
                last_at: r.get(7)?,
            })
        })?
        .collect()
}

/// Creates the tables or checks their version, in one `BEGIN IMMEDIATE` transaction (so two
/// processes opening a new file at once migrate it once), and gives the file's clock. A file
/// made before events counted their repeats (ADR 0085) gets the two columns: still schema
/// version 1, since an older SDK reads and writes beside them (its events are recorded once
/// each). So is the clock's table an addition (ADR 0095): an older SDK, on the wall clock,
/// differs from the file's clock only by the wall clock's steps since the boot's anchor.
fn migrate(connection: &mut Connection, boot: Option<&BootClock>, wall: i64) -> rusqlite::Result<LedgerClock> {
    let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(SCHEMA)?;
    add_paid_at(&tx)?;
    let counted: bool = tx.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info('sika_payment_events') WHERE name = 'repeats'",
        [],
        |row| row.get(0),
    )?;
    if !counted {
        tx.execute_batch(
            "ALTER TABLE sika_payment_events ADD COLUMN repeats INTEGER NOT NULL DEFAULT 1;
             ALTER TABLE sika_payment_events ADD COLUMN last_at INTEGER;",
        )?;
    }
    let version: Option<i64> =
        tx.query_row("SELECT version FROM sika_schema_version WHERE id = 1", [], |row| row.get(0)).optional()?;
    match version {
        None => {
            tx.execute("INSERT INTO sika_schema_version (id, version) VALUES (1, ?1)", params![SCHEMA_VERSION])?;
        }
        Some(version) if version > SCHEMA_VERSION => {
            return Err(failure(format!(
                "the ledger's schema is version {version}, newer than this SDK's {SCHEMA_VERSION}: upgrade Sika"
            )));
        }
        Some(_) => {}
    }
    let clock = match boot {
        Some(boot) => LedgerClock::Anchored { wall_minus_boot: anchor(&tx, boot, wall)? },
        None => LedgerClock::Wall,
    };
    tx.commit()?;
    Ok(clock)
}

/// The file's anchor for this boot: the one recorded by the boot's first opening, or, in a file
/// last opened in another boot (or never), `wall - boot` now, recorded for the others.
fn anchor(tx: &rusqlite::Transaction<'_>, boot: &BootClock, wall: i64) -> rusqlite::Result<i64> {
    let recorded: Option<(String, i64)> = tx
        .query_row("SELECT boot_id, wall_minus_boot FROM sika_clock WHERE id = 1", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    if let Some((boot_id, wall_minus_boot)) = recorded
        && boot_id == boot.boot_id
    {
        return Ok(wall_minus_boot);
    }
    let wall_minus_boot = wall.saturating_sub(boot.micros);
    tx.execute(
        "INSERT INTO sika_clock (id, boot_id, wall_minus_boot) VALUES (1, ?1, ?2) \
         ON CONFLICT (id) DO UPDATE SET boot_id = excluded.boot_id, wall_minus_boot = excluded.wall_minus_boot",
        params![boot.boot_id, wall_minus_boot],
    )?;
    Ok(wall_minus_boot)
}

/// A file made before `paid_at` (ADR 0081) gets the column: an addition older SDKs ignore, so
/// the schema's version stays.
fn add_paid_at(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let present: i64 =
        tx.query_row("SELECT COUNT(*) FROM pragma_table_info('sika_payments') WHERE name = 'paid_at'", [], |row| {
            row.get(0)
        })?;
    if present == 0 {
        tx.execute_batch("ALTER TABLE sika_payments ADD COLUMN paid_at INTEGER")?;
    }
    Ok(())
}

/// The claim columns `claim_token, claim_expires_at, claims_offered, fulfilled_at`, the first
/// four of every claiming `SELECT`.
fn claim_state(row: &rusqlite::Row<'_>) -> rusqlite::Result<ClaimState> {
    Ok(ClaimState {
        token: row.get::<_, Option<String>>(0)?.is_some(),
        expires_at: row.get(1)?,
        offers: row.get(2)?,
        fulfilled_at: row.get(3)?,
    })
}

/// Gives the payment's claim to `token` until `lease_until`, as its offer number `offer`.
fn offer_claim(
    tx: &rusqlite::Transaction<'_>,
    reference: &str,
    token: &str,
    lease_until: i64,
    offer: i64,
) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE sika_payments SET claim_token = ?2, claim_expires_at = ?3, claims_offered = ?4 WHERE reference = ?1",
        params![reference, token, lease_until, offer],
    )?;
    Ok(())
}

/// Records an event: the reference's last event counted once more when it is the same (source,
/// kind, status and detail: a repeated delivery, ADR 0085), else a new row. Inside the change's
/// `BEGIN IMMEDIATE` transaction, so two handles never both add the row.
fn insert_event(
    tx: &rusqlite::Transaction<'_>,
    reference: &str,
    at: i64,
    source: &str,
    kind: &str,
    status: Option<&str>,
    detail: &str,
) -> rusqlite::Result<()> {
    let repeated = tx.execute(
        "UPDATE sika_payment_events SET repeats = repeats + 1, last_at = ?2 \
         WHERE id = (SELECT max(id) FROM sika_payment_events WHERE reference = ?1) \
         AND source = ?3 AND kind = ?4 AND status IS ?5 AND detail = ?6",
        params![reference, at, source, kind, status, detail],
    )?;
    if repeated == 0 {
        tx.execute(
            "INSERT INTO sika_payment_events (reference, at, source, kind, status, detail) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![reference, at, source, kind, status, detail],
        )?;
    }
    Ok(())
}

fn read_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok(Row {
        reference: row.get(0)?,
        amount: row.get(1)?,
        currency: row.get(2)?,
        created_at: row.get(3)?,
        last_status: row.get(4)?,
        last_status_at: row.get(5)?,
        claim_token: row.get(6)?,
        claim_expires_at: row.get(7)?,
        claims_offered: row.get(8)?,
        fulfilled_at: row.get(9)?,
        paid_at: row.get(10)?,
        read_at: None,
    })
}

/// Retries `work` while SQLite reports the file busy, until `timeout` has passed. Switching a new
/// file to WAL takes an exclusive lock, and SQLite returns `SQLITE_BUSY` at once, without calling
/// the busy handler, when handles opening the file together would otherwise wait on each other.
fn retry_while_busy<T>(timeout: Duration, mut work: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        match work() {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if matches!(error.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                    && Instant::now() + pause < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Runs SQLite work on tokio's blocking pool; a panic there is a `Storage` error too.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> rusqlite::Result<T> + Send + 'static,
) -> std::result::Result<T, String> {
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(error.to_string()),
        Err(join) => Err(format!("the SQLite call did not finish: {join}")),
    }
}

/// A failure of the ledger's own checks, as SQLite work's error.
fn failure(reason: String) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(reason.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// B181: reconcile's page of open payments is read through the partial index of the
    /// unfulfilled ones, in its order: a ledger of many fulfilled payments is not scanned
    /// whole for each page, nor sorted.
    #[test]
    fn b181_the_open_payments_page_is_read_through_its_partial_index() {
        let mut connection = Connection::open_in_memory().expect("in memory");
        migrate(&mut connection, None, 0).expect("migrate");
        let mut plan = connection.prepare(&format!("EXPLAIN QUERY PLAN {OPEN}")).expect("explain");
        let details: Vec<String> = plan
            .query_map(params![0_i64, 0_i64, 0_i64, "", 10_i64], |row| row.get::<_, String>(3))
            .expect("plan")
            .collect::<rusqlite::Result<_>>()
            .expect("rows");
        assert!(details.iter().any(|d| d.contains("INDEX sika_payments_open")), "{details:?}");
        assert!(!details.iter().any(|d| d.contains("TEMP B-TREE")), "sorted after the read: {details:?}");
    }

    fn boot(boot_id: &str, micros: i64) -> BootClock {
        BootClock { boot_id: boot_id.to_owned(), micros }
    }

    /// B319: the first opening of a boot anchors the file's clock; a later one of the same boot,
    /// whatever its wall clock reads, takes that anchor, and the first of the next boot anchors
    /// it again. Without a boot clock, the wall clock.
    #[test]
    fn b319_a_files_clock_is_anchored_once_per_boot() {
        // One connection stands for every process: the anchor is in the file.
        let mut file = Connection::open_in_memory().expect("in memory");
        let anchored = |wall_minus_boot| LedgerClock::Anchored { wall_minus_boot };
        assert_eq!(migrate(&mut file, Some(&boot("a", 5_000)), 1_000_000).expect("migrate"), anchored(995_000));
        let ten_minutes = 600_000_000;
        let stepped = migrate(&mut file, Some(&boot("a", 9_000)), 1_000_000 + ten_minutes).expect("migrate");
        assert_eq!(stepped, anchored(995_000), "a stepped wall clock moved the file's clock");
        let next_boot = migrate(&mut file, Some(&boot("b", 2_000)), 3_000_000).expect("migrate");
        assert_eq!(next_boot, anchored(2_998_000));
        assert_eq!(migrate(&mut file, Some(&boot("b", 7_000)), 0).expect("migrate"), anchored(2_998_000));
        assert_eq!(migrate(&mut file, None, 0).expect("migrate"), LedgerClock::Wall);
    }
}

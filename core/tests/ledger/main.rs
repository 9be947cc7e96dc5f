//! The payments ledger (ADR 0046), B130-B139, B167, B181, B183 and B300-B303, each on SQLite (a temporary file) and on a real
//! PostgreSQL (a throwaway cluster, `cluster.rs`), with the sandbox as the service. No mocks.

#[path = "../support/mod.rs"]
mod support;

mod cluster;
mod fork;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use sika_core::ledger::{
    Claim, EventKind, EventSource, Ledger, LedgerDecision, LedgerDecisionKind, PostgresOptions, SqliteOptions,
};
use sika_core::{ExpectedPayment, SecretUrl, SikaError, WebhookDecision, WebhookDecisionKind};
use support::{Sandbox, transaction_object};

use cluster::Cluster;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backend {
    Sqlite,
    Postgres,
}

/// One database for one test: a SQLite file in a temporary directory, or a PostgreSQL cluster.
struct Db {
    dir: PathBuf,
    cluster: Option<Cluster>,
}

impl Db {
    fn new(backend: Backend) -> Self {
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "sika-ledger-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let cluster = (backend == Backend::Postgres).then(Cluster::start);
        Self { dir, cluster }
    }

    /// A new ledger handle (its own connections) on this database.
    async fn open(&self, lease_ms: u64) -> Ledger {
        self.try_open(lease_ms).await.expect("ledger opens")
    }

    async fn try_open(&self, lease_ms: u64) -> Result<Ledger, SikaError> {
        match &self.cluster {
            Some(cluster) => {
                // Generous: connecting (TCP and start-up, ADR 0071) is not what these tests test, and a
                // loaded 2-core CI machine starts 32 sessions at once slowly.
                let options = PostgresOptions { lease_ms, connect_timeout_ms: 15_000, ..PostgresOptions::default() };
                Ledger::postgres(SecretUrl::from(cluster.url()), options).await
            }
            None => {
                Ledger::sqlite_with(self.dir.join("ledger.db"), SqliteOptions { lease_ms, ..Default::default() }).await
            }
        }
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs `$name(backend)` as two tests, `$name::sqlite` and `$name::postgres`.
macro_rules! on_both {
    ($name:ident) => {
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn sqlite() {
                super::$name(super::Backend::Sqlite).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn postgres() {
                super::$name(super::Backend::Postgres).await
            }
        }
    };
}

const LONG_LEASE_MS: u64 = 300_000;

fn order(amount: &str) -> ExpectedPayment {
    ExpectedPayment { amount: amount.parse().expect("amount"), currency: "GHS".into() }
}

fn notification(reference: &str) -> Vec<u8> {
    format!(r#"{{"event":"charge.success","data":{{"reference":"{reference}"}}}}"#).into_bytes()
}

fn seed(sandbox: &Sandbox, reference: &str, status: &str, amount: &str) {
    sandbox.seed_transaction(&transaction_object(reference, status, amount));
}

fn claim_of(decision: &LedgerDecision) -> Claim {
    match decision {
        LedgerDecision::Fulfil { claim, .. } => claim.clone(),
        other => panic!("expected Fulfil, got {other:?}"),
    }
}

async fn b130_expect_records_once_and_never_overwrites(backend: Backend) {
    let db = Db::new(backend);
    let ledger = db.open(LONG_LEASE_MS).await;
    ledger.expect("B130-1", &order("25.50")).await.expect("first expectation");
    // The same values again (25.5 == 25.50, currency in any case): a no-op.
    ledger
        .expect("B130-1", &ExpectedPayment { amount: "25.5".parse().expect("amount"), currency: "ghs".into() })
        .await
        .expect("same values again");
    for different in
        [order("25.51"), ExpectedPayment { amount: "25.50".parse().expect("amount"), currency: "KES".into() }]
    {
        match ledger.expect("B130-1", &different).await {
            Err(SikaError::InvalidInput { field, reason }) => {
                assert_eq!(field, "expected");
                assert!(reason.contains("B130-1"), "names the reference: {reason}");
            }
            other => panic!("different values must be InvalidInput, got {other:?}"),
        }
    }
    let record = ledger.payment("B130-1").await.expect("read").expect("recorded");
    assert_eq!(record.expected, order("25.50"), "never overwritten");
    assert_eq!(record.expected.amount.to_string(), "25.50", "kept as first written");
    let expected_events: Vec<_> = record.events.iter().filter(|e| e.kind == EventKind::Expected).collect();
    assert_eq!(expected_events.len(), 1, "{:?}", record.events);
    // Bad input: typed errors, nothing recorded.
    assert!(matches!(ledger.expect("..", &order("1")).await, Err(SikaError::InvalidInput { .. })));
    assert!(matches!(ledger.expect("B130-2", &order("0")).await, Err(SikaError::InvalidInput { .. })));
    assert!(ledger.payment("B130-2").await.expect("read").is_none());
}
on_both!(b130_expect_records_once_and_never_overwrites);

async fn b131_concurrent_deliveries_and_settles_fulfil_exactly_once(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = Arc::new(sandbox.client());
    let mut handles = Vec::new();
    for _ in 0..4 {
        handles.push(Arc::new(db.open(LONG_LEASE_MS).await));
    }
    let references: Vec<String> = (0..3).map(|i| format!("B131-{i}")).collect();
    for reference in &references {
        seed(&sandbox, reference, "successful", "100.10");
        handles[0].expect(reference, &order("100.10")).await.expect("expect");
    }
    // 32 tasks over 4 handles, each delivering every reference's notification twice and
    // settling it once, all at once; a task given the claim marks it at once.
    let mut tasks = Vec::new();
    for task in 0..32 {
        let ledger = Arc::clone(&handles[task % handles.len()]);
        let client = Arc::clone(&client);
        let references = references.clone();
        tasks.push(tokio::spawn(async move {
            let mut outcomes = Vec::new();
            for round in 0..3 {
                for reference in &references {
                    let decision = if (task + round) % 3 == 2 {
                        ledger.settle(&client, reference).await
                    } else {
                        ledger.handle_webhook(&client, &notification(reference)).await
                    }
                    .expect("a decision");
                    if let LedgerDecision::Fulfil { claim, .. } = &decision {
                        ledger.mark_fulfilled(claim).await.expect("mark");
                    }
                    outcomes.push((reference.clone(), decision.kind(), decision.http_status()));
                }
            }
            outcomes
        }));
    }
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.extend(task.await.expect("task"));
    }
    assert_eq!(outcomes.len(), 32 * 3 * references.len());
    for reference in &references {
        let mine: Vec<_> = outcomes.iter().filter(|(r, _, _)| r == reference).collect();
        let fulfils = mine.iter().filter(|(_, kind, _)| *kind == LedgerDecisionKind::Fulfil).count();
        assert_eq!(fulfils, 1, "{reference}: exactly one Fulfil, got {fulfils}");
        for (_, kind, status) in &mine {
            assert!(
                matches!(
                    kind,
                    LedgerDecisionKind::Fulfil | LedgerDecisionKind::AlreadyFulfilled | LedgerDecisionKind::InProgress
                ),
                "{reference}: {kind:?}"
            );
            // In progress is answered 503, so the service delivers again (ADR 0071).
            let expected = if *kind == LedgerDecisionKind::InProgress { 503 } else { 200 };
            assert_eq!(*status, expected, "{reference}: {kind:?}");
        }
        let record = handles[1].payment(reference).await.expect("read").expect("recorded");
        assert_eq!(record.claims_offered, 1);
        assert!(record.fulfilled_at.is_some());
        assert_eq!(record.events.iter().filter(|e| e.kind == EventKind::Fulfil).count(), 1);
        assert_eq!(record.events.iter().filter(|e| e.kind == EventKind::Fulfilled).count(), 1);
    }
    // Once fulfilled, a delivery is answered without asking the service.
    sandbox.clear_requests();
    let late = handles[2].handle_webhook(&client, &notification(&references[0])).await.expect("decision");
    assert_eq!(late.kind(), LedgerDecisionKind::AlreadyFulfilled, "{late:?}");
    assert!(sandbox.requests().is_empty(), "{:?}", sandbox.requests());
}
on_both!(b131_concurrent_deliveries_and_settles_fulfil_exactly_once);

async fn b132_an_unmarked_claim_is_offered_again_once_and_the_lost_claim_is_claim_lost(backend: Backend) {
    const LEASE_MS: u64 = 1_500;
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    // `a` takes the first claim with a short lease; the re-offer goes to callers whose own
    // lease is long, so that a slow machine cannot expire it again during the test.
    let (a, b) = (db.open(LEASE_MS).await, db.open(LONG_LEASE_MS).await);
    let c = db.open(LONG_LEASE_MS).await;
    seed(&sandbox, "B132-1", "successful", "100.10");
    a.expect("B132-1", &order("100.10")).await.expect("expect");

    let first = claim_of(&a.handle_webhook(&client, &notification("B132-1")).await.expect("decision"));
    assert_eq!(first.offer, 1);
    // Within the lease: in progress, for every caller.
    let during = b.settle(&client, "B132-1").await.expect("decision");
    assert_eq!(during.kind(), LedgerDecisionKind::InProgress, "{during:?}");
    // Answered 503 (ADR 0071): the service delivers it again, and is then answered for the outcome.
    assert_eq!(during.http_status(), 503);

    // The worker holding it "crashed": after the lease, exactly one of many callers gets it.
    tokio::time::sleep(Duration::from_millis(LEASE_MS + 100)).await;
    let mut calls = Vec::new();
    for i in 0..12 {
        let ledger = if i % 2 == 0 { &c } else { &b };
        let client = &client;
        calls.push(async move {
            if i % 3 == 0 {
                ledger.settle(client, "B132-1").await
            } else {
                ledger.handle_webhook(client, &notification("B132-1")).await
            }
        });
    }
    let decisions: Vec<LedgerDecision> =
        futures_join_all(calls).await.into_iter().map(|d| d.expect("decision")).collect();
    let offered: Vec<Claim> = decisions
        .iter()
        .filter_map(|d| match d {
            LedgerDecision::Fulfil { claim, .. } => Some(claim.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(offered.len(), 1, "offered again exactly once: {decisions:?}");
    let second = &offered[0];
    assert_eq!(second.offer, 2);
    assert_ne!(second.token, first.token);
    assert!(decisions.iter().all(|d| matches!(d.kind(), LedgerDecisionKind::Fulfil | LedgerDecisionKind::InProgress)));

    // The first worker comes back: its claim is lost.
    match a.mark_fulfilled(&first).await {
        Err(SikaError::ClaimLost { reference }) => assert_eq!(reference, "B132-1"),
        other => panic!("a lost claim must be ClaimLost, got {other:?}"),
    }
    let message = SikaError::ClaimLost { reference: "B132-1".into() }.to_string();
    assert!(message.contains("B132-1") && message.contains("offered again"), "{message}");
    b.mark_fulfilled(second).await.expect("the live claim marks");
    b.mark_fulfilled(second).await.expect("marking the same claim again is a no-op");
    assert!(matches!(a.mark_fulfilled(&first).await, Err(SikaError::ClaimLost { .. })));
    let after = a.handle_webhook(&client, &notification("B132-1")).await.expect("decision");
    assert_eq!(after.kind(), LedgerDecisionKind::AlreadyFulfilled, "{after:?}");
    let record = a.payment("B132-1").await.expect("read").expect("recorded");
    assert_eq!(record.claims_offered, 2);
}
on_both!(b132_an_unmarked_claim_is_offered_again_once_and_the_lost_claim_is_claim_lost);

/// A claim marked after its lease expired, but before anyone else was offered it, still marks
/// (the compare-and-set is on the claim, not the clock).
async fn b132_an_expired_claim_not_offered_again_still_marks(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(200).await;
    seed(&sandbox, "B132-2", "successful", "100.10");
    ledger.expect("B132-2", &order("100.10")).await.expect("expect");
    let claim = claim_of(&ledger.settle(&client, "B132-2").await.expect("decision"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    ledger.mark_fulfilled(&claim).await.expect("not offered again: still the claim");
    let after = ledger.settle(&client, "B132-2").await.expect("decision");
    assert_eq!(after.kind(), LedgerDecisionKind::AlreadyFulfilled);
}
on_both!(b132_an_expired_claim_not_offered_again_still_marks);

async fn b133_an_amount_mismatch_is_recorded_as_investigate_never_fulfil(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    seed(&sandbox, "B133-1", "successful", "10.00");
    ledger.expect("B133-1", &order("100.10")).await.expect("expect");
    for _ in 0..2 {
        let webhook = ledger.handle_webhook(&client, &notification("B133-1")).await.expect("decision");
        match &webhook {
            LedgerDecision::Decided { decision: WebhookDecision::Investigate { reason, .. } } => {
                assert!(reason.contains("amount"), "{reason}")
            }
            other => panic!("a short amount must be Investigate, got {other:?}"),
        }
        assert_eq!(webhook.http_status(), 200);
        let settled = ledger.settle(&client, "B133-1").await.expect("decision");
        assert_eq!(settled.kind(), LedgerDecisionKind::Decided(WebhookDecisionKind::Investigate), "{settled:?}");
    }
    let record = ledger.payment("B133-1").await.expect("read").expect("recorded");
    assert_eq!(record.claims_offered, 0);
    assert!(record.fulfilled_at.is_none());
    let investigations: Vec<_> = record.events.iter().filter(|e| e.kind == EventKind::Investigate).collect();
    assert_eq!(investigations.len(), 4, "{:?}", record.events);
    assert!(investigations.iter().all(|e| e.detail.contains("amount") && e.status.as_deref() == Some("successful")));
    assert!(record.events.iter().all(|e| e.kind != EventKind::Fulfil));
}
on_both!(b133_an_amount_mismatch_is_recorded_as_investigate_never_fulfil);

async fn b134_a_reference_never_expected_is_rejected_with_nothing_sent(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    seed(&sandbox, "B134-UNKNOWN", "successful", "100.10");
    sandbox.clear_requests();
    let decision = ledger.handle_webhook(&client, &notification("B134-UNKNOWN")).await.expect("decision");
    match &decision {
        LedgerDecision::Decided { decision: WebhookDecision::Reject { reason } } => {
            assert!(reason.contains("B134-UNKNOWN"), "{reason}")
        }
        other => panic!("an unexpected reference must be Reject, got {other:?}"),
    }
    assert_eq!(decision.http_status(), 400);
    match ledger.settle(&client, "B134-UNKNOWN").await {
        Err(SikaError::InvalidInput { field, reason }) => {
            assert_eq!(field, "reference");
            assert!(reason.contains("B134-UNKNOWN"), "{reason}");
        }
        other => panic!("settling an unexpected reference must be InvalidInput, got {other:?}"),
    }
    // Junk and other events end before the ledger too.
    assert_eq!(ledger.handle_webhook(&client, b"not json").await.expect("decision").http_status(), 400);
    let other = br#"{"event":"transfer.success","data":{"reference":"B134-UNKNOWN"}}"#;
    assert_eq!(
        ledger.handle_webhook(&client, other).await.expect("decision").kind(),
        LedgerDecisionKind::Decided(WebhookDecisionKind::Ignore)
    );
    assert!(sandbox.requests().is_empty(), "nothing sent: {:?}", sandbox.requests());
    assert!(ledger.payment("B134-UNKNOWN").await.expect("read").is_none(), "nothing recorded");
}
on_both!(b134_a_reference_never_expected_is_rejected_with_nothing_sent);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b135_the_postgres_password_is_never_printed() {
    let db = Db::new(Backend::Postgres);
    let cluster = db.cluster.as_ref().expect("cluster");
    let ledger = db.open(LONG_LEASE_MS).await;
    let printed = format!("{ledger:?} {:?}", SecretUrl::from(cluster.url()));
    assert!(!printed.contains(cluster::PASSWORD), "{printed}");
    // A wrong password, an unreachable server, a malformed URL: errors without the password.
    let attempts = [
        format!("postgresql://sika:wrong_{}@127.0.0.1:{}/postgres", cluster::PASSWORD, cluster.port),
        format!("postgresql://sika:{}@127.0.0.1:1/postgres", cluster::PASSWORD),
        format!("postgresql://sika:{}@127.0.0.1:{}/postgres?sslmode=bogus", cluster::PASSWORD, cluster.port),
        format!("postgresql://sika:{}@[::1/postgres", cluster::PASSWORD),
    ];
    for url in attempts {
        let options = PostgresOptions { connect_timeout_ms: 2_000, ..Default::default() };
        let error = Ledger::postgres(SecretUrl::from(url.clone()), options).await.expect_err("cannot open");
        assert!(matches!(error, SikaError::Storage { .. } | SikaError::InvalidInput { .. }), "{error:?}");
        let printed = format!("{error} {error:?}");
        assert!(!printed.contains(cluster::PASSWORD), "{printed}");
    }
}

async fn b136_the_schema_is_versioned_and_concurrent_opens_migrate_once(backend: Backend) {
    let db = Db::new(backend);
    // Eight handles opening a new database at once: every one works, on one schema.
    let opens: Vec<_> = (0..8).map(|_| db.try_open(LONG_LEASE_MS)).collect();
    let ledgers: Vec<Ledger> = futures_join_all(opens).await.into_iter().map(|l| l.expect("opens")).collect();
    ledgers[3].expect("B136-1", &order("5")).await.expect("expect");
    assert!(ledgers[6].payment("B136-1").await.expect("read").is_some());
    // Opening again keeps the data.
    let again = db.open(LONG_LEASE_MS).await;
    assert!(again.payment("B136-1").await.expect("read").is_some());
    assert_eq!(sika_core::ledger::SCHEMA_VERSION, 1);
    if let Some(cluster) = &db.cluster {
        // Another schema: its own tables.
        let options = PostgresOptions { schema: Some("shop_ledger".into()), ..Default::default() };
        let other = Ledger::postgres(SecretUrl::from(cluster.url()), options).await.expect("schema option");
        assert!(other.payment("B136-1").await.expect("read").is_none());
        assert!(format!("{other:?}").contains("shop_ledger"));
        let bad = PostgresOptions { schema: Some("x; drop table".into()), ..Default::default() };
        let error = Ledger::postgres(SecretUrl::from(cluster.url()), bad).await.expect_err("bad schema");
        assert!(matches!(error, SikaError::InvalidInput { ref field, .. } if field == "schema"), "{error:?}");
    } else {
        // WAL mode, on the file.
        let wal = db.dir.join("ledger.db-wal");
        assert!(wal.exists(), "SQLite in WAL mode");
    }
}
on_both!(b136_the_schema_is_versioned_and_concurrent_opens_migrate_once);

/// B181: a ledger made before the index of its open payments (schema version 1 without it) gets
/// it when next opened: reconcile's pages read the unfulfilled payments through it.
async fn b181_an_existing_ledger_gets_the_open_payments_index_when_opened(backend: Backend) {
    let db = Db::new(backend);
    let ledger = db.open(LONG_LEASE_MS).await;
    ledger.expect("B181-1", &order("5")).await.expect("expect");
    drop(ledger);
    let definition = match &db.cluster {
        Some(cluster) => {
            let (client, connection) =
                tokio_postgres::connect(&cluster.url(), tokio_postgres::NoTls).await.expect("connects");
            let driver = tokio::spawn(connection);
            client.batch_execute("DROP INDEX sika_payments_open").await.expect("the index existed");
            let again = db.open(LONG_LEASE_MS).await;
            assert!(again.payment("B181-1").await.expect("read").is_some());
            let query = "SELECT indexdef FROM pg_indexes WHERE indexname = 'sika_payments_open'";
            let definition: String = client.query_one(query, &[]).await.expect("the index again").get(0);
            drop(client);
            driver.await.expect("driver").expect("closed");
            definition
        }
        None => {
            let path = db.dir.join("ledger.db");
            rusqlite_open(&path).execute_batch("DROP INDEX sika_payments_open").expect("the index existed");
            let again = db.open(LONG_LEASE_MS).await;
            assert!(again.payment("B181-1").await.expect("read").is_some());
            let query = "SELECT sql FROM sqlite_master WHERE name = 'sika_payments_open'";
            rusqlite_open(&path).query_row(query, [], |row| row.get(0)).expect("the index again")
        }
    };
    assert!(definition.contains("(created_at, reference)"), "{definition}");
    assert!(definition.contains("fulfilled_at IS NULL"), "only the open payments: {definition}");
}
on_both!(b181_an_existing_ledger_gets_the_open_payments_index_when_opened);

/// B183: opening a ledger once its schema is in place (each worker at start, a forked child at
/// its first call) takes no lock on its tables: it finishes while another connection holds a
/// write on both. Before, `CREATE INDEX IF NOT EXISTS` at every open waited for such a writer,
/// and deadlocked workers' concurrent `expect`s (B179 met it under gunicorn).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b183_opening_a_ledger_waits_for_no_writer_of_its_tables() {
    let db = Db::new(Backend::Postgres);
    let first = db.open(LONG_LEASE_MS).await;
    first.expect("B183-1", &order("5")).await.expect("expect");
    let cluster = db.cluster.as_ref().expect("a cluster");
    let (writer, connection) = tokio_postgres::connect(&cluster.url(), tokio_postgres::NoTls).await.expect("connects");
    let driver = tokio::spawn(connection);
    writer
        .batch_execute(
            "BEGIN; \
             UPDATE sika_payments SET claims_offered = claims_offered WHERE reference = 'B183-1'; \
             UPDATE sika_payment_events SET detail = detail WHERE reference = 'B183-1';",
        )
        .await
        .expect("a writer holds both tables");
    let opened = tokio::time::timeout(Duration::from_secs(20), db.try_open(LONG_LEASE_MS)).await;
    writer.batch_execute("ROLLBACK").await.expect("rollback");
    drop(writer);
    driver.await.expect("driver").expect("closed");
    let second = opened.expect("opened while the writer held its tables").expect("opens");
    assert!(second.payment("B183-1").await.expect("read").is_some());
}

async fn b137_storage_failures_are_typed_and_never_fulfil(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    seed(&sandbox, "B137-1", "successful", "100.10");
    ledger.expect("B137-1", &order("100.10")).await.expect("expect");
    match &db.cluster {
        Some(cluster) => {
            cluster.stop();
            for _ in 0..2 {
                let outcome = ledger.handle_webhook(&client, &notification("B137-1")).await;
                assert!(matches!(outcome, Err(SikaError::Storage { .. })), "{outcome:?}");
                let settled = ledger.settle(&client, "B137-1").await;
                assert!(matches!(settled, Err(SikaError::Storage { .. })), "{settled:?}");
            }
            cluster.start_server();
        }
        None => {
            // Another connection holds the write lock past the busy timeout.
            let path = db.dir.join("ledger.db");
            let options = SqliteOptions { busy_timeout_ms: 200, lease_ms: LONG_LEASE_MS, ..Default::default() };
            let short = Ledger::sqlite_with(&path, options).await.expect("opens");
            let (locked_tx, locked_rx) = std::sync::mpsc::channel();
            let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
            let holder = std::thread::spawn(move || {
                let connection = rusqlite_open(&path);
                connection.execute_batch("BEGIN IMMEDIATE").expect("lock");
                locked_tx.send(()).expect("send");
                release_rx.recv().ok();
                connection.execute_batch("ROLLBACK").expect("unlock");
            });
            locked_rx.recv().expect("locked");
            let outcome = short.handle_webhook(&client, &notification("B137-1")).await;
            match &outcome {
                Err(SikaError::Storage { reason }) => assert!(reason.contains("locked"), "{reason}"),
                other => panic!("a locked database must be Storage, got {other:?}"),
            }
            release_tx.send(()).expect("release");
            holder.join().expect("holder");
        }
    }
    // Back: the same run ends with exactly one Fulfil.
    let decision = ledger.handle_webhook(&client, &notification("B137-1")).await.expect("decision after restart");
    let claim = claim_of(&decision);
    assert_eq!(claim.offer, 1, "no claim was given while the database failed");
    ledger.mark_fulfilled(&claim).await.expect("mark");
    let again = ledger.settle(&client, "B137-1").await.expect("decision");
    assert_eq!(again.kind(), LedgerDecisionKind::AlreadyFulfilled);
}
on_both!(b137_storage_failures_are_typed_and_never_fulfil);

/// A second connection to the SQLite file, outside the ledger (the same bundled SQLite).
fn rusqlite_open(path: &std::path::Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).expect("a second connection")
}

async fn b138_payment_returns_the_audit_trail(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    sandbox.seed_transaction(&transaction_object("B138-1", "pending", "100.10"));
    ledger.expect("B138-1", &order("100.10")).await.expect("expect");
    let pending = ledger.handle_webhook(&client, &notification("B138-1")).await.expect("decision");
    assert_eq!(
        (pending.kind(), pending.http_status()),
        (LedgerDecisionKind::Decided(WebhookDecisionKind::RetryLater), 503)
    );
    sandbox.set_status("B138-1", "successful");
    let claim = claim_of(&ledger.settle(&client, "B138-1").await.expect("decision"));
    ledger.mark_fulfilled(&claim).await.expect("mark");
    let record = ledger.payment("B138-1").await.expect("read").expect("recorded");
    let trail: Vec<(EventSource, EventKind)> = record.events.iter().map(|e| (e.source, e.kind)).collect();
    assert_eq!(
        trail,
        [
            (EventSource::Expect, EventKind::Expected),
            (EventSource::Webhook, EventKind::RetryLater),
            (EventSource::Settle, EventKind::Fulfil),
            (EventSource::MarkFulfilled, EventKind::Fulfilled),
        ]
    );
    assert!(record.events.windows(2).all(|w| w[0].at <= w[1].at), "in time order");
    assert_eq!(record.last_status.as_deref(), Some("successful"));
    assert!(record.last_status_at.is_some() && record.fulfilled_at.is_some());
    assert!(record.created_at <= record.fulfilled_at.expect("fulfilled"));
    assert_eq!(record.expected, order("100.10"));
}
on_both!(b138_payment_returns_the_audit_trail);

async fn b167_a_charge_through_the_ledger_records_the_order_before_it_is_sent(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    let never_answers = "+233244123333";
    // A bad request: nothing recorded, nothing sent.
    let mut bad = support::charge("B167-BAD", never_answers);
    bad.amount = "0".parse().expect("amount");
    match ledger.initiate_charge(&client, &bad).await {
        Err(SikaError::InvalidInput { field, .. }) => assert_eq!(field, "amount"),
        other => panic!("a zero amount must be InvalidInput, got {other:?}"),
    }
    assert!(ledger.payment("B167-BAD").await.expect("read").is_none(), "nothing recorded");
    // A reference already expected with other figures: nothing sent, the record kept.
    ledger.expect("B167-OTHER", &order("99.00")).await.expect("expect");
    match ledger.initiate_charge(&client, &support::charge("B167-OTHER", never_answers)).await {
        Err(SikaError::InvalidInput { field, reason }) => {
            assert_eq!(field, "expected");
            assert!(reason.contains("B167-OTHER"), "{reason}");
        }
        other => panic!("other figures for an expected reference must be InvalidInput, got {other:?}"),
    }
    assert!(sandbox.requests().is_empty(), "nothing sent: {:?}", sandbox.requests());
    let kept = ledger.payment("B167-OTHER").await.expect("read").expect("recorded");
    assert_eq!(kept.expected, order("99.00"));
    // A good charge: its figures recorded (the currency as it is sent), then sent once.
    let mut request = support::charge("B167-1", never_answers);
    request.currency = "ghs".into();
    ledger.initiate_charge(&client, &request).await.expect("charged");
    let record = ledger.payment("B167-1").await.expect("read").expect("recorded by the charge");
    assert_eq!(record.expected, order("10"));
    assert_eq!(record.expected.currency, "GHS");
    let trail: Vec<(EventSource, EventKind)> = record.events.iter().map(|e| (e.source, e.kind)).collect();
    assert_eq!(trail, [(EventSource::Expect, EventKind::Expected)]);
    let charges = sandbox.requests().iter().filter(|r| r["path"] == "/charge").count();
    assert_eq!(charges, 1, "{:?}", sandbox.requests());
    // The webhook that follows is decided against the charge's own figures.
    sandbox.set_status("B167-1", "successful");
    let decision = ledger.handle_webhook(&client, &notification("B167-1")).await.expect("decision");
    ledger.mark_fulfilled(&claim_of(&decision)).await.expect("mark");
}
on_both!(b167_a_charge_through_the_ledger_records_the_order_before_it_is_sent);

async fn futures_join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    futures_util::future::join_all(futures).await
}

/// Where a worker process finds the database: `sqlite:PATH` or `postgres:URL`.
fn worker_db_spec(db: &Db) -> String {
    match &db.cluster {
        Some(cluster) => format!("postgres:{}", cluster.url()),
        None => format!("sqlite:{}", db.dir.join("ledger.db").display()),
    }
}

/// Starts this test binary again as a worker process (`ledger_worker_process`).
fn spawn_worker(db: &Db, sandbox: &Sandbox, mode: &str, references: &[String], lease_ms: u64) -> std::process::Child {
    std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", "ledger_worker_process", "--ignored", "--nocapture", "--test-threads", "1"])
        .env("SIKA_LEDGER_WORKER_DB", worker_db_spec(db))
        .env("SIKA_LEDGER_WORKER_SANDBOX", &sandbox.url)
        .env("SIKA_LEDGER_WORKER_MODE", mode)
        .env("SIKA_LEDGER_WORKER_REFERENCES", references.join(","))
        .env("SIKA_LEDGER_WORKER_LEASE_MS", lease_ms.to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .expect("worker process starts")
}

/// The worker's `LEDGER ...` lines (the test harness may print `test NAME ... ` before one).
fn worker_lines(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout).lines().filter_map(worker_line).collect()
}

fn worker_line(line: &str) -> Option<String> {
    line.find("LEDGER ").map(|at| line[at..].to_owned())
}

/// Rounds of deliveries per worker thread (B139): 5 rounds x 8 threads x 4 workers = 160 calls
/// per reference, 120 of them webhook deliveries.
const DELIVERY_ROUNDS: usize = 5;

/// The worker of B139, run only as a child process by the B139 tests (ignored otherwise). Mode
/// `deliver`: 8 threads, each delivering every reference's notification in `DELIVERY_ROUNDS`
/// rounds, a quarter of them settles instead (over 4 workers: 120 deliveries of each
/// reference's `charge.success` and 40 settles, the issue's "100 at once"), marking what it
/// is given; prints `LEDGER FULFIL <reference>` per claim. Mode
/// `claim-and-hang`: takes the first reference's claim, prints `LEDGER CLAIMED`, and waits to be
/// killed.
#[test]
#[ignore = "a worker process of the B139 tests, started by them"]
fn ledger_worker_process() {
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name}: run by the B139 tests only"));
    let (db, sandbox_url, mode) =
        (var("SIKA_LEDGER_WORKER_DB"), var("SIKA_LEDGER_WORKER_SANDBOX"), var("SIKA_LEDGER_WORKER_MODE"));
    let references: Vec<String> = var("SIKA_LEDGER_WORKER_REFERENCES").split(',').map(str::to_owned).collect();
    let lease_ms: u64 = var("SIKA_LEDGER_WORKER_LEASE_MS").parse().expect("lease");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(8).enable_all().build().expect("runtime");
    runtime.block_on(async move {
        let mut config = sika_core::ClientConfig::new(support::KEY, sandbox_url);
        config.timeout_ms = 20_000;
        let client = Arc::new(sika_core::Client::new(config).expect("client"));
        let ledger = Arc::new(match db.split_once(':').expect("spec") {
            ("sqlite", path) => {
                Ledger::sqlite_with(path, SqliteOptions { lease_ms, ..Default::default() }).await.expect("sqlite")
            }
            (_, url) => {
                let options = PostgresOptions { lease_ms, ..Default::default() };
                Ledger::postgres(SecretUrl::from(url), options).await.expect("postgres")
            }
        });
        if mode == "claim-and-hang" {
            let claim = claim_of(&ledger.settle(&client, &references[0]).await.expect("decision"));
            println!("LEDGER CLAIMED {} {}", claim.reference, claim.offer);
            tokio::time::sleep(Duration::from_secs(600)).await;
            return;
        }
        let mut tasks = Vec::new();
        for thread in 0..8 {
            let (ledger, client, references) = (Arc::clone(&ledger), Arc::clone(&client), references.clone());
            tasks.push(tokio::spawn(async move {
                for round in 0..DELIVERY_ROUNDS {
                    for reference in &references {
                        let decision = if (thread + round) % 4 == 3 {
                            ledger.settle(&client, reference).await
                        } else {
                            ledger.handle_webhook(&client, &notification(reference)).await
                        }
                        .expect("a decision");
                        match &decision {
                            LedgerDecision::Fulfil { claim, .. } => {
                                println!("LEDGER FULFIL {reference}");
                                ledger.mark_fulfilled(claim).await.expect("mark");
                            }
                            LedgerDecision::AlreadyFulfilled { .. } | LedgerDecision::InProgress { .. } => {}
                            other => panic!("{reference}: {other:?}"),
                        }
                    }
                }
            }));
        }
        for task in tasks {
            task.await.expect("worker task");
        }
    });
}

async fn b139_four_processes_of_eight_threads_fulfil_exactly_once(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let ledger = db.open(LONG_LEASE_MS).await;
    let references: Vec<String> = (0..5).map(|i| format!("B139-{i}")).collect();
    for reference in &references {
        seed(&sandbox, reference, "successful", "100.10");
        ledger.expect(reference, &order("100.10")).await.expect("expect");
    }
    let workers: Vec<_> = (0..4).map(|_| spawn_worker(&db, &sandbox, "deliver", &references, LONG_LEASE_MS)).collect();
    let mut fulfilled = Vec::new();
    for worker in workers {
        let output = tokio::task::spawn_blocking(move || worker.wait_with_output()).await.expect("join").expect("wait");
        assert!(output.status.success(), "a worker failed: {:?}", output.status);
        fulfilled.extend(worker_lines(&output.stdout));
    }
    for reference in &references {
        let count = fulfilled.iter().filter(|l| **l == format!("LEDGER FULFIL {reference}")).count();
        assert_eq!(count, 1, "{reference}: exactly one Fulfil across the processes: {fulfilled:?}");
        let record = ledger.payment(reference).await.expect("read").expect("recorded");
        assert_eq!((record.claims_offered, record.fulfilled_at.is_some()), (1, true));
    }
}
on_both!(b139_four_processes_of_eight_threads_fulfil_exactly_once);

async fn b139_a_worker_killed_between_claim_and_mark_is_replaced_once_after_the_lease(backend: Backend) {
    const LEASE_MS: u64 = 1_500;
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    let references = vec!["B139-KILLED".to_owned()];
    seed(&sandbox, &references[0], "successful", "100.10");
    ledger.expect(&references[0], &order("100.10")).await.expect("expect");
    let mut worker = spawn_worker(&db, &sandbox, "claim-and-hang", &references, LEASE_MS);
    let stdout = worker.stdout.take().expect("stdout");
    let first = tokio::task::spawn_blocking(move || {
        // The worker's first `LEDGER ` line (the test harness prints its own lines too).
        let lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
        lines.map_while(|l| l.ok()).find_map(|l| worker_line(&l)).unwrap_or_default()
    })
    .await
    .expect("join");
    assert_eq!(first.trim(), "LEDGER CLAIMED B139-KILLED 1");
    worker.kill().expect("SIGKILL");
    worker.wait().expect("reaped");
    let during = ledger.handle_webhook(&client, &notification("B139-KILLED")).await.expect("decision");
    assert_eq!(during.kind(), LedgerDecisionKind::InProgress, "{during:?}");
    tokio::time::sleep(Duration::from_millis(LEASE_MS + 200)).await;
    let body = notification("B139-KILLED");
    let after: Vec<LedgerDecision> = futures_join_all((0..8).map(|_| ledger.handle_webhook(&client, &body)).collect())
        .await
        .into_iter()
        .map(|d| d.expect("decision"))
        .collect();
    let offers: Vec<i64> = after
        .iter()
        .filter_map(|d| match d {
            LedgerDecision::Fulfil { claim, .. } => Some(claim.offer),
            _ => None,
        })
        .collect();
    assert_eq!(offers, [2], "exactly one more offer after the lease: {after:?}");
}
on_both!(b139_a_worker_killed_between_claim_and_mark_is_replaced_once_after_the_lease);

// After `on_both!`, which it uses.
mod reconcile;

// After `on_both!` and the helpers above (ADR 0085).
mod bounded;

// Last: its tests use `on_both!` and the helpers above.
mod time;

// After `on_both!` and `reconcile`'s helpers, which it uses.
mod ready;

// After the helpers above (ADR 0085).
mod traced;

// After `on_both!` and the helpers above (the Rust fulfilment block).
mod fulfil;

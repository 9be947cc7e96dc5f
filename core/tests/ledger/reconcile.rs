//! B165-B166, B169: `reconcile`, the payments still open verified again from a scheduled job.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use sika_core::ledger::{Claim, EventKind, Ledger, LedgerDecision, ReconcileOptions, ReconcileReport, SqliteOptions};
use sika_core::{Client, SikaError};

use super::support::{Sandbox, poll_until};
use super::{Backend, Db, LONG_LEASE_MS, claim_of, notification, order, seed};

const PAID: usize = 600;
const PENDING: usize = 300;
const FAILED: usize = 100;
const CONCURRENCY: u32 = 8;
const RATE_LIMITED: u32 = 5;
const UNAVAILABLE: u32 = 20;

/// A client whose every fault reaches the run (no retries of its own).
fn client_without_retries(sandbox: &Sandbox) -> Client {
    let mut config = sandbox.config();
    config.max_retries = 0;
    Client::new(config).expect("client")
}

fn reference(kind: &str, index: usize) -> String {
    format!("B165-{kind}-{index:04}")
}

/// The payments a run found paid in full (a run claims none of them: ADR 0081).
fn fulfilled(report: &ReconcileReport) -> BTreeSet<String> {
    report.ready.iter().map(|r| r.reference.clone()).collect()
}

/// Every payment a run checked: decided, or found ready.
fn checked_references(report: &ReconcileReport) -> BTreeSet<String> {
    report.checked.iter().map(|c| c.reference.clone()).chain(fulfilled(report)).collect()
}

/// Claims and marks each ready payment of `report` in turn, as a task does; the references it
/// was given `Fulfil` for.
pub(crate) async fn fulfil_ready(ledger: &Ledger, report: &ReconcileReport) -> Vec<String> {
    let mut fulfilled = Vec::new();
    for ready in &report.ready {
        if let LedgerDecision::Fulfil { claim, .. } = ledger.claim(ready).await.expect("claim") {
            ledger.mark_fulfilled(&claim).await.expect("mark");
            fulfilled.push(claim.reference);
        }
    }
    fulfilled
}

fn verifies(sandbox: &Sandbox) -> Vec<Value> {
    sandbox.requests().into_iter().filter(|r| r["path"].as_str().is_some_and(|p| p.contains("/verify/"))).collect()
}

/// B165: 1,000 open payments (600 paid, 300 pending, 100 failed) while the service answers 5
/// `429 Retry-After: 1` then 20 `503`, on a client without retries (every fault reaches the
/// run): every payment is checked or listed as failed; the service never sees more than
/// `concurrency` requests at once; after a 429 no check starts for its `Retry-After`; a second
/// run checks the failures and the pending ones, never the decided or claimed ones, and over
/// both runs each paid payment is `Fulfil` exactly once.
async fn b165_reconcile_checks_every_open_payment_once_within_its_concurrency(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = client_without_retries(&sandbox);
    let ledger = db.open(LONG_LEASE_MS).await;
    let kinds = [("PAID", PAID, "successful"), ("PENDING", PENDING, "pending"), ("FAILED", FAILED, "failed")];
    for (kind, count, status) in kinds {
        for index in 0..count {
            let reference = reference(kind, index);
            seed(&sandbox, &reference, status, "25.50");
            ledger.expect(&reference, &order("25.50")).await.expect("expect");
        }
    }
    let paid: BTreeSet<String> = (0..PAID).map(|i| reference("PAID", i)).collect();
    sandbox.fault("/transaction/verify", "status", RATE_LIMITED, json!({ "status": 429, "retry_after": "1" }));
    sandbox.fault("/transaction/verify", "status", UNAVAILABLE, json!({ "status": 503 }));
    sandbox.clear_requests();

    let options = ReconcileOptions { older_than_ms: 0, limit: 1_000, concurrency: CONCURRENCY, ..Default::default() };
    let first = ledger.reconcile(&client, &options).await.expect("first run");

    let checked = checked_references(&first);
    let failed: BTreeSet<String> = first.failures.iter().map(|f| f.reference.clone()).collect();
    assert_eq!(
        first.checked.len() + first.ready.len() + failed.len(),
        PAID + PENDING + FAILED,
        "every payment once: {first:?}"
    );
    assert!(checked.is_disjoint(&failed));
    assert!(
        (UNAVAILABLE as usize..=(UNAVAILABLE + RATE_LIMITED) as usize).contains(&failed.len()),
        "the 503s (and at most the 429s) fail: {:?}",
        first.failures
    );
    for failure in &first.failures {
        assert!(failure.request_id.is_some(), "{failure:?}");
        // The typed error, not only its text: a 503 (or a 429 past its tries), whose text and
        // request id are the failure's.
        assert!(
            matches!(failure.error, SikaError::Api { http_status: 503, .. } | SikaError::RateLimited { .. }),
            "{failure:?}"
        );
        assert_eq!(
            (failure.error.to_string(), failure.error.request_id()),
            (failure.reason.clone(), failure.request_id.as_deref())
        );
    }
    let log = verifies(&sandbox);
    let most = log.iter().filter_map(|r| r["in_flight"].as_u64()).max().expect("in_flight logged");
    assert!(most <= u64::from(CONCURRENCY), "{most} requests in flight at once, concurrency {CONCURRENCY}");
    assert!(most > 1, "the run never had two requests in flight");
    // The 5th request was the last 429. During (most of) its Retry-After only checks already
    // past the pause when it began may still arrive (at most `concurrency - 1`, slower under
    // load); without the pause, about 200 arrive in that time.
    let last_429_at = log[RATE_LIMITED as usize - 1]["received_ms"].as_u64().expect("received_ms");
    let during_pause: Vec<u64> = log
        .iter()
        .skip(RATE_LIMITED as usize)
        .filter_map(|r| r["received_ms"].as_u64())
        .filter(|at| (last_429_at..last_429_at + 900).contains(at))
        .collect();
    assert!(during_pause.len() < CONCURRENCY as usize, "requests during the Retry-After pause: {during_pause:?}");

    let once: BTreeSet<String> = fulfil_ready(&ledger, &first).await.into_iter().collect();
    let second = ledger.reconcile(&client, &options).await.expect("second run");
    assert!(second.failures.is_empty(), "{:?}", second.failures);
    let rechecked = checked_references(&second);
    let still_open: BTreeSet<String> = first
        .checked
        .iter()
        .filter(|c| c.reference.contains("PENDING"))
        .map(|c| c.reference.clone())
        .chain(failed.iter().cloned())
        .collect();
    assert_eq!(rechecked, still_open, "the second run checks the pending and the failed, nothing else");
    assert_eq!(once, fulfilled(&first), "each ready payment of the first run claimed once");
    let twice: BTreeSet<String> = fulfil_ready(&ledger, &second).await.into_iter().collect();
    assert!(once.is_disjoint(&twice), "a payment fulfilled twice");
    assert_eq!(once.union(&twice).cloned().collect::<BTreeSet<_>>(), paid, "each paid payment fulfilled once");
    for reference in once.iter().take(3) {
        let record = ledger.payment(reference).await.expect("payment").expect("recorded");
        assert!(record.events.iter().any(|e| e.source == sika_core::ledger::EventSource::Reconcile), "{record:?}");
        assert_eq!(record.claims_offered, 1);
    }
}
on_both!(b165_reconcile_checks_every_open_payment_once_within_its_concurrency);

/// B166: a run with `limit` or `concurrency` 0 is `InvalidInput` naming it, nothing sent; a
/// payment younger than `older_than_ms` is not checked.
async fn b166_reconcile_refuses_bad_options_and_leaves_new_payments(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    seed(&sandbox, "B166-1", "successful", "25.50");
    ledger.expect("B166-1", &order("25.50")).await.expect("expect");
    sandbox.clear_requests();
    for (options, field) in [
        (ReconcileOptions { limit: 0, ..ReconcileOptions::default() }, "limit"),
        (ReconcileOptions { concurrency: 0, ..ReconcileOptions::default() }, "concurrency"),
        (ReconcileOptions { deadline_ms: 0, ..ReconcileOptions::default() }, "deadline_ms"),
    ] {
        let error = ledger.reconcile(&client, &options).await.expect_err("bad options");
        assert!(matches!(&error, sika_core::SikaError::InvalidInput { field: f, .. } if f == field), "{error:?}");
    }
    let young = ledger.reconcile(&client, &ReconcileOptions::default()).await.expect("run");
    assert_eq!((young.checked.len(), young.failures.len()), (0, 0), "a minute-old payment waits: {young:?}");
    assert!(sandbox.requests().is_empty(), "nothing sent");
    let due = ledger.reconcile(&client, &ReconcileOptions { older_than_ms: 0, ..Default::default() }).await;
    assert_eq!(fulfilled(&due.expect("run")), BTreeSet::from(["B166-1".to_owned()]));
}
on_both!(b166_reconcile_refuses_bad_options_and_leaves_new_payments);

const STOPPED_PAID: usize = 12;
const STOPPED_DELAY_MS: u64 = 1_000;

/// B169: the database stops in the middle of a `reconcile` run. The sandbox delays every
/// verify by 1 s and the run checks 12 paid payments 2 at a time; once the 4th verify has
/// arrived (so the first two checks are decided and recorded, and two more are waiting on the
/// service) the database goes away: PostgreSQL is stopped (`immediate`, connections cut);
/// SQLite, whose file cannot be stopped, is locked by another connection holding a write
/// transaction past the ledger's 200 ms busy timeout (as B137 does: reads still work in WAL
/// mode, every state change fails), which is what a merchant sees of a database that stops
/// taking writes. What the code does: the open payments were listed before the stop, so the
/// call returns `Ok`; each check the database failed is that payment's entry in `failures`
/// with the `Storage` error's text (a failed listing would make the whole call
/// `Err(Storage)`, as B137 shows for one decision). The run ends (no hang, no panic), every
/// payment is in `checked` or `failures`, each `Fulfil` it gave has its claim recorded and
/// can be marked, and a failed one has no claim. Once the database is back, a second run and
/// the notifications delivered at the same time end with exactly one `Fulfil` per paid
/// reference over both runs, and `payment(reference)` shows one claim, marked.
async fn b169_reconcile_survives_the_database_stopping_mid_run(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = Arc::new(sandbox.client());
    let ledger = Arc::new(match backend {
        Backend::Postgres => db.open(LONG_LEASE_MS).await,
        Backend::Sqlite => {
            let options = SqliteOptions { busy_timeout_ms: 200, lease_ms: LONG_LEASE_MS, ..Default::default() };
            Ledger::sqlite_with(db.dir.join("ledger.db"), options).await.expect("opens")
        }
    });
    let paid: BTreeSet<String> = (0..STOPPED_PAID).map(|i| format!("B169-{i:02}")).collect();
    for reference in &paid {
        seed(&sandbox, reference, "successful", "25.50");
        ledger.expect(reference, &order("25.50")).await.expect("expect");
    }
    sandbox.fault("/transaction/verify", "delay", 1_000, json!({ "delay_ms": STOPPED_DELAY_MS }));
    sandbox.clear_requests();

    let options = ReconcileOptions { older_than_ms: 0, limit: 100, concurrency: 2, ..Default::default() };
    let run = {
        let (ledger, client, options) = (Arc::clone(&ledger), Arc::clone(&client), options.clone());
        tokio::spawn(async move { ledger.reconcile(&client, &options).await })
    };
    let seen = poll_until(Duration::from_secs(30), || verifies(&sandbox).len(), |seen| *seen >= 4);
    assert!(seen >= 4, "the run sent {seen} verifies in 30 s");
    let lock = match &db.cluster {
        Some(cluster) => {
            cluster.stop();
            None
        }
        None => Some(hold_write_lock(db.dir.join("ledger.db"))),
    };
    let first = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the run ends while the database is down")
        .expect("the run does not panic")
        .expect("the open payments were listed before the stop: the run returns its report");
    let checked = checked_references(&first);
    let failed: BTreeSet<String> = first.failures.iter().map(|f| f.reference.clone()).collect();
    assert!(first.checked.is_empty(), "every payment is paid: found ready, or failed: {first:?}");
    assert_eq!(first.ready.len() + failed.len(), STOPPED_PAID, "every payment once: {first:?}");
    assert_eq!(checked.union(&failed).cloned().collect::<BTreeSet<_>>(), paid);
    assert!(checked.len() >= 2, "the two checks before the stop were decided: {first:?}");
    assert!(failed.len() >= 2, "the checks waiting on the service when it stopped failed: {first:?}");
    for failure in &first.failures {
        assert!(matches!(failure.error, SikaError::Storage { .. }), "a Storage failure: {failure:?}");
        assert!(failure.reason.starts_with("ledger storage error"), "{failure:?}");
        if backend == Backend::Sqlite {
            assert!(failure.reason.contains("locked"), "{failure:?}");
        }
    }
    match (&db.cluster, lock) {
        (Some(cluster), _) => cluster.start_server(),
        (None, Some(lock)) => lock.release(),
        (None, None) => unreachable!("SQLite holds a lock"),
    }
    let mut early: Vec<Claim> = Vec::new();
    for ready in &first.ready {
        let record = ledger.payment(&ready.reference).await.expect("payment").expect("recorded");
        assert_eq!(record.claims_offered, 0, "the run claimed nothing (ADR 0081): {record:?}");
        assert!(record.events.iter().any(|e| e.kind == EventKind::Ready), "recorded ready: {record:?}");
        let claim = claim_of(&ledger.claim(ready).await.expect("a ready payment found before the stop claims"));
        assert_eq!(claim.offer, 1);
        ledger.mark_fulfilled(&claim).await.expect("mark");
        early.push(claim);
    }
    for reference in &failed {
        let record = ledger.payment(reference).await.expect("payment").expect("recorded");
        assert_eq!(record.claims_offered, 0, "no claim for a failed check: {record:?}");
        let kinds: Vec<EventKind> = record.events.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EventKind::Expected], "nothing recorded half-way for a failed check");
    }

    // Back: a second run and a delivery of every notification, at once.
    sandbox.control("clear_faults", None, None);
    let second = {
        let (ledger, client, options) = (Arc::clone(&ledger), Arc::clone(&client), options.clone());
        tokio::spawn(async move { ledger.reconcile(&client, &options).await })
    };
    let mut deliveries = Vec::new();
    for reference in &paid {
        let (ledger, client, reference) = (Arc::clone(&ledger), Arc::clone(&client), reference.clone());
        deliveries.push(tokio::spawn(async move { ledger.handle_webhook(&client, &notification(&reference)).await }));
    }
    let second = second.await.expect("no panic").expect("second run");
    assert!(second.failures.is_empty(), "{:?}", second.failures);
    let mut later: Vec<Claim> = Vec::new();
    for ready in &second.ready {
        later.extend(fulfil_claim(&ledger.claim(ready).await.expect("claim")));
    }
    for delivery in deliveries {
        let decision = delivery.await.expect("no panic").expect("a decision");
        // In progress (the run holds the claim) is answered 503: delivered again (ADR 0071).
        let expected = if matches!(decision, LedgerDecision::InProgress { .. }) { 503 } else { 200 };
        assert_eq!(decision.http_status(), expected, "{decision:?}");
        later.extend(fulfil_claim(&decision));
    }
    let mut fulfils: Vec<String> = early.iter().chain(&later).map(|c| c.reference.clone()).collect();
    fulfils.sort();
    assert_eq!(fulfils, paid.iter().cloned().collect::<Vec<_>>(), "exactly one Fulfil per paid reference");
    for claim in &later {
        ledger.mark_fulfilled(claim).await.expect("mark");
    }
    for reference in &paid {
        let record = ledger.payment(reference).await.expect("payment").expect("recorded");
        assert_eq!(record.claims_offered, 1, "{record:?}");
        assert!(record.fulfilled_at.is_some(), "{record:?}");
        assert_eq!(record.events.iter().filter(|e| e.kind == EventKind::Fulfil).count(), 1, "{record:?}");
    }
}
on_both!(b169_reconcile_survives_the_database_stopping_mid_run);

fn fulfil_claim(decision: &LedgerDecision) -> Option<Claim> {
    match decision {
        LedgerDecision::Fulfil { claim, .. } => Some(claim.clone()),
        _ => None,
    }
}

/// Another connection holding SQLite's write lock until released.
struct WriteLock {
    release: std::sync::mpsc::Sender<()>,
    holder: std::thread::JoinHandle<()>,
}

fn hold_write_lock(path: std::path::PathBuf) -> WriteLock {
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let (release, release_rx) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        let connection = rusqlite::Connection::open(path).expect("a second connection");
        connection.execute_batch("BEGIN IMMEDIATE").expect("lock");
        locked_tx.send(()).expect("send");
        release_rx.recv().ok();
        connection.execute_batch("ROLLBACK").expect("unlock");
    });
    locked_rx.recv().expect("locked");
    WriteLock { release, holder }
}

impl WriteLock {
    fn release(self) {
        self.release.send(()).expect("release");
        self.holder.join().expect("holder");
    }
}

/// B222: a reconcile run has an end. Under a storm of `429 Retry-After: 60` a run with a 1.5 s
/// deadline waits for no `Retry-After` that ends after it, starts no check after it, ends
/// within it (plus one request), and reports the payments it left as `unchecked`, oldest
/// first; a later run checks them.
async fn b222_a_reconcile_run_ends_by_its_deadline_and_reports_what_it_left(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = client_without_retries(&sandbox);
    let ledger = db.open(LONG_LEASE_MS).await;
    let references: Vec<String> = (0..8).map(|index| reference("B222", index)).collect();
    for reference in &references {
        seed(&sandbox, reference, "pending", "25.50");
        ledger.expect(reference, &order("25.50")).await.expect("expect");
    }
    sandbox.fault("/transaction/verify", "status", 1_000, json!({ "status": 429, "retry_after": "60" }));
    let options = ReconcileOptions { older_than_ms: 0, concurrency: 2, deadline_ms: 1_500, ..Default::default() };
    let started = std::time::Instant::now();
    let run = ledger.reconcile(&client, &options).await.expect("run");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "the run took {took:?}, past its 1.5 s deadline: {run:?}");
    assert!(run.checked.is_empty(), "{run:?}");
    let left: Vec<String> = run.failures.iter().map(|f| f.reference.clone()).chain(run.unchecked.clone()).collect();
    assert_eq!(left.len(), references.len(), "every payment failed or left: {run:?}");
    assert!(!run.unchecked.is_empty(), "{run:?}");
    let mut sorted = run.unchecked.clone();
    sorted.sort();
    assert_eq!(run.unchecked, sorted, "oldest first");
    sandbox.control("clear_faults", None, None);
    let later = ledger.reconcile(&client, &options).await.expect("later run");
    assert_eq!(later.checked.len(), references.len(), "{later:?}");
    assert!(later.unchecked.is_empty());
}
on_both!(b222_a_reconcile_run_ends_by_its_deadline_and_reports_what_it_left);

//! B270, B272: a reconciliation run claims nothing (ADR 0081); `claim` takes a payment the
//! run recorded paid in full, with no request to the service.

use std::collections::BTreeSet;
use std::time::Duration;

use sika_core::SikaError;
use sika_core::ledger::{EventKind, EventSource, LedgerDecision, ReadyPayment, ReconcileOptions, SqliteOptions};
use sika_core::{WebhookDecision, ledger::Ledger};

use super::reconcile::fulfil_ready;
use super::support::Sandbox;
use super::{Backend, Db, LONG_LEASE_MS, claim_of, order, seed};

fn verifies(sandbox: &Sandbox) -> usize {
    sandbox.requests().iter().filter(|r| r["path"].as_str().is_some_and(|p| p.contains("/verify/"))).count()
}

fn run_options() -> ReconcileOptions {
    ReconcileOptions { older_than_ms: 0, ..ReconcileOptions::default() }
}

/// `ready`'s transaction as another reference's: what a hand-made `ReadyPayment` may hold.
fn ready_as(ready: &ReadyPayment, reference: &str) -> ReadyPayment {
    let mut transaction = ready.transaction.clone();
    transaction.tx_ref = reference.to_owned();
    ReadyPayment { reference: reference.to_owned(), transaction }
}

/// B270: a run records the payments it finds paid in full as `ready` and claims none of them
/// (no claim offered, no lease); `claim(ready)` then sends nothing to the service and answers
/// as the claim rule does: `Fulfil` with offer 1 and the run's transaction to one caller,
/// `InProgress` (503) to another while that claim is live, `AlreadyFulfilled` once marked;
/// `Fulfil` again at once (offer 2) after a release; `Decided(RetryLater)` for a payment no
/// run recorded paid in full (pending, or paid short), `InvalidInput` for a reference the
/// ledger does not expect, a bad one, or a transaction of another reference. A ready payment
/// nobody claimed is found ready again by the next run.
async fn b270_a_run_claims_nothing_and_claim_takes_a_ready_payment_without_a_request(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    let other = db.open(LONG_LEASE_MS).await;
    for (reference, status, amount) in [
        ("B270-PAID", "successful", "25.50"),
        ("B270-RELEASED", "successful", "25.50"),
        ("B270-LEFT", "successful", "25.50"),
        ("B270-PENDING", "pending", "25.50"),
        ("B270-SHORT", "successful", "2.50"),
    ] {
        seed(&sandbox, reference, status, amount);
        ledger.expect(reference, &order("25.50")).await.expect("expect");
    }
    let run = ledger.reconcile(&client, &run_options()).await.expect("run");
    let ready: BTreeSet<&str> = run.ready.iter().map(|r| r.reference.as_str()).collect();
    assert_eq!(ready, BTreeSet::from(["B270-PAID", "B270-RELEASED", "B270-LEFT"]), "{run:?}");
    assert!(run.checked.iter().all(|c| !matches!(c.decision, LedgerDecision::Fulfil { .. })), "{run:?}");
    let decided: BTreeSet<&str> = run.checked.iter().map(|c| c.reference.as_str()).collect();
    assert_eq!(decided, BTreeSet::from(["B270-PENDING", "B270-SHORT"]), "{run:?}");
    for ready in &run.ready {
        assert_eq!(ready.transaction.tx_ref, ready.reference);
        let record = ledger.payment(&ready.reference).await.expect("payment").expect("recorded");
        assert_eq!((record.claims_offered, record.claim_expires_at), (0, None), "the run claimed it: {record:?}");
        let event = record.events.last().expect("an event");
        assert_eq!(
            (event.source, event.kind, event.status.as_deref()),
            (EventSource::Reconcile, EventKind::Ready, Some("successful"))
        );
    }
    let of = |reference: &str| run.ready.iter().find(|r| r.reference == reference).expect("ready").clone();
    let (paid, released) = (of("B270-PAID"), of("B270-RELEASED"));

    sandbox.clear_requests();
    let first = ledger.claim(&paid).await.expect("claim");
    let claim = claim_of(&first);
    assert_eq!(claim.offer, 1);
    let LedgerDecision::Fulfil { transaction, .. } = &first else { unreachable!("Fulfil") };
    assert_eq!(*transaction, paid.transaction, "the run's verified transaction");
    let second = other.claim(&paid).await.expect("claim");
    assert!(matches!(second, LedgerDecision::InProgress { .. }), "{second:?}");
    assert_eq!(second.http_status(), 503);
    ledger.mark_fulfilled(&claim).await.expect("mark");
    let third = other.claim(&paid).await.expect("claim");
    assert!(matches!(third, LedgerDecision::AlreadyFulfilled { .. }), "{third:?}");

    // Given back: offered again at once, with no wait for the 5-minute lease.
    let given = claim_of(&ledger.claim(&released).await.expect("claim"));
    ledger.release(&given, "carrier down").await.expect("release");
    let again = claim_of(&other.claim(&released).await.expect("claim after release"));
    assert_eq!(again.offer, 2);
    other.mark_fulfilled(&again).await.expect("mark");

    // Nothing recorded as paid in full: typed answers, nothing claimed.
    for reference in ["B270-PENDING", "B270-SHORT"] {
        let answer = ledger.claim(&ready_as(&paid, reference)).await.expect("an answer");
        match &answer {
            LedgerDecision::Decided { decision: WebhookDecision::RetryLater { reason } } => {
                assert!(reason.contains(reference) && reason.contains("not recorded as paid"), "{reason}");
            }
            other => panic!("{reference}: expected Decided(RetryLater), got {other:?}"),
        }
        let record = ledger.payment(reference).await.expect("payment").expect("recorded");
        assert_eq!(record.claims_offered, 0, "{record:?}");
    }
    for (ready, field) in [
        (ready_as(&paid, "B270-NEVER"), "reference"),
        (ready_as(&paid, ".."), "reference"),
        (ReadyPayment { reference: "B270-LEFT".to_owned(), transaction: paid.transaction.clone() }, "transaction"),
    ] {
        let error = ledger.claim(&ready).await.expect_err("bad input");
        assert!(matches!(&error, SikaError::InvalidInput { field: f, .. } if f == field), "{error:?}");
    }
    assert_eq!(verifies(&sandbox), 0, "claim sends nothing to the service");
    let record = ledger.payment("B270-LEFT").await.expect("payment").expect("recorded");
    assert_eq!(record.claims_offered, 0, "a refused claim claims nothing: {record:?}");

    // Left unclaimed (a task that died after the run): the next run finds it ready again.
    let next = ledger.reconcile(&client, &run_options()).await.expect("next run");
    let ready: Vec<&str> = next.ready.iter().map(|r| r.reference.as_str()).collect();
    assert_eq!(ready, ["B270-LEFT"], "{next:?}");
    assert_eq!(fulfil_ready(&ledger, &next).await, ["B270-LEFT"]);
}
on_both!(b270_a_run_claims_nothing_and_claim_takes_a_ready_payment_without_a_request);

/// B270: a ready claim is a claim like any other: renewed, it outlasts its lease while other
/// callers get `InProgress`; once it lapses unrenewed, the next `claim` is offered it (offer 2)
/// and the old holder's mark is `ClaimLost`.
async fn b270_a_ready_claim_follows_the_lease_rules(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let lease_ms = 600;
    let ledger = db.open(lease_ms).await;
    seed(&sandbox, "B270-LEASE", "successful", "25.50");
    ledger.expect("B270-LEASE", &order("25.50")).await.expect("expect");
    let run = ledger.reconcile(&client, &run_options()).await.expect("run");
    let ready = run.ready.first().expect("ready").clone();
    let mut claim = claim_of(&ledger.claim(&ready).await.expect("claim"));
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(lease_ms / 3)).await;
        claim = ledger.renew(&claim).await.expect("renew");
        assert!(matches!(ledger.claim(&ready).await.expect("claim"), LedgerDecision::InProgress { .. }));
    }
    tokio::time::sleep(Duration::from_millis(lease_ms + 200)).await;
    let next = claim_of(&ledger.claim(&ready).await.expect("claim after the lease"));
    assert_eq!(next.offer, 2);
    assert!(matches!(ledger.mark_fulfilled(&claim).await, Err(SikaError::ClaimLost { .. })));
    ledger.mark_fulfilled(&next).await.expect("mark");
}
on_both!(b270_a_ready_claim_follows_the_lease_rules);

/// B272: a SQLite ledger made before `paid_at` (ADR 0081) opens: the column is added, the old
/// rows are kept, and a run then finds them ready.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b272_a_ledger_made_before_paid_at_gets_the_column() {
    let db = Db::new(Backend::Sqlite);
    let path = db.dir.join("ledger.db");
    {
        let connection = rusqlite::Connection::open(&path).expect("open");
        connection
            .execute_batch(
                "CREATE TABLE sika_schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
                 INSERT INTO sika_schema_version (id, version) VALUES (1, 1);
                 CREATE TABLE sika_payments (reference TEXT PRIMARY KEY, amount TEXT NOT NULL, currency TEXT NOT NULL,
                     created_at INTEGER NOT NULL, last_status TEXT, last_status_at INTEGER, claim_token TEXT,
                     claim_expires_at INTEGER, claims_offered INTEGER NOT NULL DEFAULT 0, fulfilled_at INTEGER);
                 INSERT INTO sika_payments (reference, amount, currency, created_at) VALUES ('B272-OLD', '25.50', 'GHS', 1);",
            )
            .expect("an old ledger");
    }
    let sandbox = Sandbox::start();
    seed(&sandbox, "B272-OLD", "successful", "25.50");
    let ledger = Ledger::sqlite_with(&path, SqliteOptions::default()).await.expect("opens and migrates");
    let run = ledger.reconcile(&sandbox.client(), &run_options()).await.expect("run");
    assert_eq!(fulfil_ready(&ledger, &run).await, ["B272-OLD"], "{run:?}");
    drop(ledger);
    Ledger::sqlite_with(&path, SqliteOptions::default()).await.expect("opens again");
}

//! Exactly once against time (issue 43, ADR 0071), B211-B217: claims renewed while slow work
//! goes on, claims given back, re-offers recorded, one clock for leases on PostgreSQL, and a
//! deadline on every database call (a frozen server, a server that never answers, a row lock
//! held by another session), on SQLite files and real PostgreSQL clusters.

use std::time::{Duration, Instant};

use sika_core::SikaError;
use sika_core::ledger::{EventKind, EventSource, Ledger, LedgerDecision, LedgerDecisionKind, PostgresOptions};

use super::support::{Sandbox, captured_log};
use super::{Backend, Db, LONG_LEASE_MS, claim_of, notification, order, seed};

/// B213: a holder that renews its claim keeps it for a fulfilment three times longer than its
/// lease: every other caller meanwhile is answered `InProgress` (503), and the mark succeeds.
/// Once its renewals stop and the lease lapses, the next caller is offered it, and the old
/// holder's renewal is `ClaimLost`.
async fn b213_a_renewed_claim_outlives_its_lease_and_a_lapsed_one_is_lost(backend: Backend) {
    const LEASE_MS: u64 = 600;
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let (holder, other) = (db.open(LEASE_MS).await, db.open(LONG_LEASE_MS).await);
    assert_eq!(holder.renew_interval(), Duration::from_millis(200));
    for reference in ["B213-1", "B213-2"] {
        seed(&sandbox, reference, "successful", "100.10");
        holder.expect(reference, &order("100.10")).await.expect("expect");
    }
    let mut claim = claim_of(&holder.settle(&client, "B213-1").await.expect("decision"));
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(3 * LEASE_MS) {
        tokio::time::sleep(holder.renew_interval()).await;
        let renewed = holder.renew(&claim).await.expect("renewed");
        assert!(renewed.lease_expires_at >= claim.lease_expires_at, "{renewed:?} after {claim:?}");
        assert_eq!((renewed.offer, &renewed.token), (claim.offer, &claim.token));
        claim = renewed;
        let during = other.handle_webhook(&client, &notification("B213-1")).await.expect("decision");
        assert_eq!(during.kind(), LedgerDecisionKind::InProgress, "{during:?}");
        assert_eq!(during.http_status(), 503);
    }
    holder.mark_fulfilled(&claim).await.expect("the renewed claim marks");
    assert_eq!(holder.renew(&claim).await.expect("a fulfilled claim renews as a no-op"), claim);
    let record = holder.payment("B213-1").await.expect("read").expect("recorded");
    assert_eq!(record.claims_offered, 1, "{record:?}");

    // No renewal: after the lease, another caller is offered it and the old holder has lost it.
    let lapsed = claim_of(&holder.settle(&client, "B213-2").await.expect("decision"));
    tokio::time::sleep(Duration::from_millis(LEASE_MS + 200)).await;
    captured_log::capture(log::LevelFilter::Warn);
    let second = claim_of(&other.settle(&client, "B213-2").await.expect("decision"));
    assert_eq!(second.offer, 2);
    match holder.renew(&lapsed).await {
        Err(SikaError::ClaimLost { reference }) => assert_eq!(reference, "B213-2"),
        other => panic!("a renewal after a re-offer must be ClaimLost, got {other:?}"),
    }
    // B215: the re-offer is logged at WARN with the reference and the offer, and recorded.
    let lines = captured_log::lines();
    assert!(
        lines.iter().any(|l| l.contains("`B213-2` offered again (claim 2)") && l.contains("lease ended")),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.contains("claim 1 of `B213-2` was lost before renewing it")), "{lines:?}");
    let record = holder.payment("B213-2").await.expect("read").expect("recorded");
    let offered = record.events.iter().rfind(|e| e.kind == EventKind::Fulfil).expect("the second offer");
    assert!(offered.detail.contains("claim 2 given: claim 1's lease ended"), "{offered:?}");
    other.mark_fulfilled(&second).await.expect("mark");
}
on_both!(b213_a_renewed_claim_outlives_its_lease_and_a_lapsed_one_is_lost);

/// B214: a claim given back (its shipment failed) is offered to the very next caller, with no
/// wait for the lease; the released claim can neither mark nor renew, and the audit trail
/// keeps the reason.
async fn b214_a_released_claim_is_offered_at_once(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let (first, second) = (db.open(LONG_LEASE_MS).await, db.open(LONG_LEASE_MS).await);
    seed(&sandbox, "B214-1", "successful", "100.10");
    first.expect("B214-1", &order("100.10")).await.expect("expect");
    let claim = claim_of(&first.handle_webhook(&client, &notification("B214-1")).await.expect("decision"));
    first.release(&claim, "carrier API answered 502").await.expect("released");
    let again = second.handle_webhook(&client, &notification("B214-1")).await.expect("decision");
    let next = claim_of(&again);
    assert_eq!(next.offer, 2, "offered at once, not after the 5-minute lease");
    assert!(matches!(first.mark_fulfilled(&claim).await, Err(SikaError::ClaimLost { .. })));
    assert!(matches!(first.renew(&claim).await, Err(SikaError::ClaimLost { .. })));
    assert!(matches!(first.release(&claim, "again").await, Err(SikaError::ClaimLost { .. })));
    second.mark_fulfilled(&next).await.expect("mark");
    second.release(&next, "after the mark").await.expect("a fulfilled claim stays fulfilled");
    let after = first.settle(&client, "B214-1").await.expect("decision");
    assert_eq!(after.kind(), LedgerDecisionKind::AlreadyFulfilled, "{after:?}");
    let record = first.payment("B214-1").await.expect("read").expect("recorded");
    let released: Vec<_> = record.events.iter().filter(|e| e.kind == EventKind::Released).collect();
    assert_eq!(released.len(), 1, "{record:?}");
    assert_eq!(released[0].source, EventSource::Release);
    assert_eq!(released[0].detail, "claim 1 released: carrier API answered 502");
    assert!(record.events.iter().any(|e| e.detail == "claim 2 given after claim 1 was released"), "{record:?}");
}
on_both!(b214_a_released_claim_is_offered_at_once);

/// B216: leases on PostgreSQL follow the database server's clock: a ledger on an app server
/// whose clock runs 10 minutes ahead (or behind) is answered `InProgress` while another's
/// 5-minute claim is live, and its own claims last their lease on the server's clock.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn b216_app_servers_whose_clocks_differ_share_the_databases_clock() {
    leases_ignore_the_wall_clocks_of_the_processes(Backend::Postgres, "B216").await;
}

/// B319: a SQLite ledger's leases follow the machine's boot clock, anchored once per boot
/// (ADR 0095), not the wall clock: a process whose wall clock was stepped 10 minutes ahead (or
/// back) since the file was anchored is answered `InProgress` while another's 5-minute claim
/// is live, and its own claims last their lease.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn b319_a_sqlite_ledgers_leases_survive_a_step_of_the_wall_clock() {
    leases_ignore_the_wall_clocks_of_the_processes(Backend::Sqlite, "B319").await;
}

async fn leases_ignore_the_wall_clocks_of_the_processes(backend: Backend, id: &str) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let honest = db.open(LONG_LEASE_MS).await;
    let ahead = db.open(LONG_LEASE_MS).await.with_clock_offset(10 * 60 * 1000);
    let behind = db.open(LONG_LEASE_MS).await.with_clock_offset(-10 * 60 * 1000);
    let (live, skewed_own) = (format!("{id}-1"), format!("{id}-2"));
    seed(&sandbox, &live, "successful", "100.10");
    honest.expect(&live, &order("100.10")).await.expect("expect");
    let claim = claim_of(&honest.settle(&client, &live).await.expect("decision"));
    for skewed in [&ahead, &behind] {
        for _ in 0..2 {
            let decision = skewed.handle_webhook(&client, &notification(&live)).await.expect("decision");
            assert_eq!(decision.kind(), LedgerDecisionKind::InProgress, "a live claim given twice: {decision:?}");
        }
    }
    // A claim taken by the skewed process lasts its lease on the shared clock, not 10 minutes less.
    seed(&sandbox, &skewed_own, "successful", "100.10");
    honest.expect(&skewed_own, &order("100.10")).await.expect("expect");
    let skewed_claim = claim_of(&behind.settle(&client, &skewed_own).await.expect("decision"));
    let now: chrono::DateTime<chrono::Utc> = std::time::SystemTime::now().into();
    let lease_left = skewed_claim.lease_expires_at.signed_duration_since(now);
    assert!(lease_left > chrono::Duration::minutes(4), "{lease_left:?}");
    let during = honest.settle(&client, &skewed_own).await.expect("decision");
    assert_eq!(during.kind(), LedgerDecisionKind::InProgress, "{during:?}");
    honest.mark_fulfilled(&claim).await.expect("mark");
}

/// The deadline of B217's ledgers. Opening (connect and migrate) must fit in it too, on a
/// loaded 2-core machine.
const TIMEOUT_MS: u64 = 2_000;

/// A PostgreSQL ledger with B217's deadline, and a claim on `reference` (seeded paid).
struct Claimed {
    db: Db,
    sandbox: Sandbox,
    client: sika_core::Client,
    ledger: Ledger,
    claim: sika_core::ledger::Claim,
}

async fn claimed_on_postgres(reference: &str) -> Claimed {
    let db = Db::new(Backend::Postgres);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let url = db.cluster.as_ref().expect("a cluster").url();
    let options = PostgresOptions { lease_ms: LONG_LEASE_MS, timeout_ms: TIMEOUT_MS, ..PostgresOptions::default() };
    let ledger = Ledger::postgres(url.into(), options).await.expect("opens");
    seed(&sandbox, reference, "successful", "100.10");
    ledger.expect(reference, &order("100.10")).await.expect("expect");
    let claim = claim_of(&ledger.settle(&client, reference).await.expect("decision"));
    Claimed { db, sandbox, client, ledger, claim }
}

/// B217: every ledger operation ends within the ledger's deadline with a typed `Storage`
/// error when PostgreSQL is frozen (SIGSTOP: connections open, nothing answers), and works
/// again once it is back; no pooled connection stays stuck on the frozen server.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn b217_a_frozen_database_ends_every_operation_at_its_deadline() {
    let Claimed { db, sandbox: _sandbox, client, ledger, claim } = claimed_on_postgres("B217-1").await;
    let cluster = db.cluster.as_ref().expect("a cluster");
    cluster.freeze();
    let bound = Duration::from_millis(TIMEOUT_MS * 4);
    macro_rules! ends_within_deadline {
        ($what:literal, $call:expr) => {{
            let started = Instant::now();
            let outcome = $call.await;
            let took = started.elapsed();
            match &outcome {
                Err(SikaError::Storage { reason }) => assert!(reason.contains("did not answer within"), "{reason}"),
                other => panic!("{}: a frozen database must be Storage, got {other:?}", $what),
            }
            assert!(took < bound, "{} took {took:?}", $what);
        }};
    }
    ends_within_deadline!("expect", ledger.expect("B217-2", &order("1.00")));
    ends_within_deadline!("handle_webhook", ledger.handle_webhook(&client, &notification("B217-1")));
    ends_within_deadline!("settle", ledger.settle(&client, "B217-1"));
    ends_within_deadline!("renew", ledger.renew(&claim));
    ends_within_deadline!("release", ledger.release(&claim, "frozen"));
    ends_within_deadline!("mark_fulfilled", ledger.mark_fulfilled(&claim));
    ends_within_deadline!("payment", ledger.payment("B217-1"));
    ends_within_deadline!("reconcile", ledger.reconcile(&client, &Default::default()));
    cluster.thaw();
    // Back: the same claim marks (nothing was changed while frozen), on fresh connections.
    ledger.mark_fulfilled(&claim).await.expect("marks once the database is back");
    let after = ledger.settle(&client, "B217-1").await.expect("decision");
    assert_eq!(after.kind(), LedgerDecisionKind::AlreadyFulfilled, "{after:?}");
}

/// B217: a server that accepts the connection and never answers ends opening the ledger
/// within `connect_timeout_ms` (tokio-postgres's own timeout covers the TCP connect only).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b217_a_server_that_never_answers_ends_opening_at_the_connect_timeout() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let silent = std::thread::spawn(move || {
        // Accepts and holds each connection, answering nothing.
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept() {
            held.push(stream);
            if held.len() >= 4 {
                break;
            }
        }
    });
    let options = PostgresOptions { connect_timeout_ms: 500, timeout_ms: 1_000, ..PostgresOptions::default() };
    let started = Instant::now();
    let url = format!("postgresql://sika:pw@127.0.0.1:{port}/postgres");
    let outcome = Ledger::postgres(url.into(), options).await;
    assert!(matches!(outcome, Err(SikaError::Storage { .. })), "{outcome:?}");
    assert!(started.elapsed() < Duration::from_secs(4), "took {:?}", started.elapsed());
    drop(silent);
}

/// B217: a row lock held by another session ends `handle_webhook` and `mark_fulfilled` within
/// the deadline (the server's `lock_timeout`), typed `Storage`, and both work once it is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn b217_a_row_lock_held_elsewhere_ends_at_the_deadline() {
    let Claimed { db, sandbox: _sandbox, client, ledger, claim } = claimed_on_postgres("B217-3").await;
    let cluster = db.cluster.as_ref().expect("a cluster");
    let (locker, connection) = tokio_postgres::connect(&cluster.url(), tokio_postgres::NoTls).await.expect("connect");
    let connection = tokio::spawn(connection);
    locker
        .batch_execute("BEGIN; SELECT * FROM sika_payments WHERE reference = 'B217-3' FOR UPDATE")
        .await
        .expect("lock the row");
    for _ in 0..2 {
        let started = Instant::now();
        let outcome = ledger.mark_fulfilled(&claim).await;
        assert!(matches!(outcome, Err(SikaError::Storage { .. })), "{outcome:?}");
        let webhook = ledger.handle_webhook(&client, &notification("B217-3")).await;
        assert!(matches!(webhook, Err(SikaError::Storage { .. })), "{webhook:?}");
        assert!(started.elapsed() < Duration::from_millis(TIMEOUT_MS * 6), "took {:?}", started.elapsed());
    }
    locker.batch_execute("ROLLBACK").await.expect("unlock");
    ledger.mark_fulfilled(&claim).await.expect("marks once the lock is gone");
    let after = ledger.handle_webhook(&client, &notification("B217-3")).await.expect("decision");
    assert!(matches!(after, LedgerDecision::AlreadyFulfilled { .. }), "{after:?}");
    drop(locker);
    let _ = connection.await;
}

//! B165-B166: `reconcile`, the payments still open verified again from a scheduled job.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use sika_core::Client;
use sika_core::ledger::{LedgerDecision, ReconcileOptions, ReconcileReport};

use super::support::Sandbox;
use super::{Backend, Db, LONG_LEASE_MS, order, seed};

const PAID: usize = 600;
const PENDING: usize = 300;
const FAILED: usize = 100;
const CONCURRENCY: u32 = 8;
const RATE_LIMITED: u32 = 5;
const UNAVAILABLE: u32 = 20;

fn reference(kind: &str, index: usize) -> String {
    format!("B165-{kind}-{index:04}")
}

fn fulfilled(report: &ReconcileReport) -> BTreeSet<String> {
    report
        .checked
        .iter()
        .filter(|c| matches!(c.decision, LedgerDecision::Fulfil { .. }))
        .map(|c| c.reference.clone())
        .collect()
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
    let mut config = sandbox.config();
    config.max_retries = 0;
    let client = Client::new(config).expect("client");
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

    let options = ReconcileOptions { older_than_ms: 0, limit: 1_000, concurrency: CONCURRENCY };
    let first = ledger.reconcile(&client, &options).await.expect("first run");

    let checked: BTreeSet<String> = first.checked.iter().map(|c| c.reference.clone()).collect();
    let failed: BTreeSet<String> = first.failures.iter().map(|f| f.reference.clone()).collect();
    assert_eq!(checked.len() + failed.len(), PAID + PENDING + FAILED, "every payment once: {first:?}");
    assert!(checked.is_disjoint(&failed));
    assert!(
        (UNAVAILABLE as usize..=(UNAVAILABLE + RATE_LIMITED) as usize).contains(&failed.len()),
        "the 503s (and at most the 429s) fail: {:?}",
        first.failures
    );
    for failure in &first.failures {
        assert!(failure.request_id.is_some(), "{failure:?}");
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

    let second = ledger.reconcile(&client, &options).await.expect("second run");
    assert!(second.failures.is_empty(), "{:?}", second.failures);
    let rechecked: BTreeSet<String> = second.checked.iter().map(|c| c.reference.clone()).collect();
    let still_open: BTreeSet<String> = first
        .checked
        .iter()
        .filter(|c| c.reference.contains("PENDING"))
        .map(|c| c.reference.clone())
        .chain(failed.iter().cloned())
        .collect();
    assert_eq!(rechecked, still_open, "the second run checks the pending and the failed, nothing else");
    let (once, twice) = (fulfilled(&first), fulfilled(&second));
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

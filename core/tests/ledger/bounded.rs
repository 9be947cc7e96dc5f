//! Bounded audit and one verification in flight (issue 43 item 7, ADR 0085), B300-B303, on
//! SQLite and PostgreSQL with the sandbox as the service.

use std::sync::Arc;

use futures_util::{StreamExt, stream};
use serde_json::json;
use sika_core::ledger::{EventKind, EventSource, LedgerDecision, LedgerDecisionKind, PAYMENT_EVENTS_SHOWN};
use sika_core::{SikaError, WebhookDecisionKind};

use super::support::Sandbox;
use super::{Backend, Db, LONG_LEASE_MS, claim_of, notification, order, rusqlite_open, seed};

fn verifies(sandbox: &Sandbox) -> usize {
    sandbox.requests().iter().filter(|r| r["path"].as_str().is_some_and(|p| p.contains("/verify/"))).count()
}

/// B300: 20,000 deliveries of one fulfilled order, 32 at a time, leave its audit trail bounded:
/// the repeated "already fulfilled" is one event counting them, with the time of the last;
/// nothing is sent to the service for them.
async fn b300_twenty_thousand_deliveries_of_a_fulfilled_order_keep_its_events_bounded(backend: Backend) {
    const DELIVERIES: usize = 20_000;
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = Arc::new(db.open(LONG_LEASE_MS).await);
    seed(&sandbox, "B300-1", "successful", "25.50");
    ledger.expect("B300-1", &order("25.50")).await.expect("expect");
    let claim = claim_of(&ledger.handle_webhook(&client, &notification("B300-1")).await.expect("decision"));
    ledger.mark_fulfilled(&claim).await.expect("mark");
    sandbox.clear_requests();

    let body = notification("B300-1");
    let answers = stream::iter(0..DELIVERIES)
        .map(|_| {
            let (ledger, client, body) = (Arc::clone(&ledger), client.clone(), body.clone());
            async move { ledger.handle_webhook(&client, &body).await.expect("decision").kind() }
        })
        .buffer_unordered(32)
        .collect::<Vec<_>>()
        .await;
    assert!(answers.iter().all(|kind| *kind == LedgerDecisionKind::AlreadyFulfilled));
    assert_eq!(verifies(&sandbox), 0, "a fulfilled order is answered without asking");

    let record = ledger.payment("B300-1").await.expect("read").expect("recorded");
    let trail: Vec<(EventSource, EventKind, i64)> =
        record.events.iter().map(|e| (e.source, e.kind, e.repeats)).collect();
    assert_eq!(
        trail,
        [
            (EventSource::Expect, EventKind::Expected, 1),
            (EventSource::Webhook, EventKind::Fulfil, 1),
            (EventSource::MarkFulfilled, EventKind::Fulfilled, 1),
            (EventSource::Webhook, EventKind::AlreadyFulfilled, DELIVERIES as i64),
        ],
        "bounded: {} events",
        record.events.len()
    );
    assert!(!record.more_events);
    let repeated = &record.events[3];
    let last = repeated.last_at.expect("the last sighting");
    assert!(repeated.at <= last, "{repeated:?}");
    assert!(record.events[0].last_at.is_none(), "an event recorded once has no last sighting");
}
on_both!(b300_twenty_thousand_deliveries_of_a_fulfilled_order_keep_its_events_bounded);

/// B301: `payment()` gives the first 100 events and says more follow; `payment_events` pages
/// the rest after a sequence, oldest first, with a bounded page; bad pages are `InvalidInput`.
async fn b301_payment_gives_a_bounded_page_of_events_and_the_rest_are_paged(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    seed(&sandbox, "B301-1", "successful", "25.50");
    ledger.expect("B301-1", &order("25.50")).await.expect("expect");
    let claim = claim_of(&ledger.settle(&client, "B301-1").await.expect("decision"));
    ledger.mark_fulfilled(&claim).await.expect("mark");
    // Deliveries and settles in turn: no two in a row are the same event.
    for _ in 0..75 {
        ledger.handle_webhook(&client, &notification("B301-1")).await.expect("webhook");
        ledger.settle(&client, "B301-1").await.expect("settle");
    }
    let total = 3 + 150;
    let record = ledger.payment("B301-1").await.expect("read").expect("recorded");
    assert_eq!(record.events.len(), PAYMENT_EVENTS_SHOWN as usize);
    assert!(record.more_events);
    let mut all = record.events.clone();
    loop {
        let after = all.last().expect("an event").sequence;
        let page = ledger.payment_events("B301-1", after, 40).await.expect("a page");
        assert!(page.len() <= 40);
        if page.is_empty() {
            break;
        }
        all.extend(page);
    }
    assert_eq!(all.len(), total);
    assert!(all.windows(2).all(|w| w[0].sequence < w[1].sequence), "oldest first, no event twice");
    assert!(all.iter().all(|e| e.repeats == 1));
    assert_eq!(ledger.payment_events("B301-1", 0, 1000).await.expect("all").len(), total);
    assert!(ledger.payment_events("B301-NEVER", 0, 10).await.expect("none").is_empty());
    for (after, limit, field) in [(0, 0, "limit"), (0, 1001, "limit"), (-1, 10, "after")] {
        match ledger.payment_events("B301-1", after, limit).await {
            Err(SikaError::InvalidInput { field: named, .. }) => assert_eq!(named, field),
            other => panic!("a bad page must be InvalidInput, got {other:?}"),
        }
    }
}
on_both!(b301_payment_gives_a_bounded_page_of_events_and_the_rest_are_paged);

/// B302: eight deliveries of one pending order at once, and four settles, while the service is
/// slow, send one verification request; all are "retry later". A delivery after it answered
/// verifies afresh, and sees the payment made since: a stale "pending" never hides it.
async fn b302_concurrent_deliveries_share_one_verification_and_a_later_one_verifies_afresh(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = Arc::new(db.open(LONG_LEASE_MS).await);
    seed(&sandbox, "B302-1", "pending", "25.50");
    ledger.expect("B302-1", &order("25.50")).await.expect("expect");
    // The pool's connections made first (on PostgreSQL, connecting is slow on a loaded machine), and
    // a slow answer: every caller reaches the verification while it is in flight.
    futures_util::future::join_all((0..8).map(|_| ledger.payment("B302-1"))).await;
    sandbox.fault("/transaction/verify", "delay", 1, json!({ "delay_ms": 3_000 }));
    sandbox.clear_requests();
    let deliveries = (0..12).map(|n| {
        let (ledger, client) = (Arc::clone(&ledger), client.clone());
        tokio::spawn(async move {
            if n % 3 == 2 {
                ledger.settle(&client, "B302-1").await
            } else {
                ledger.handle_webhook(&client, &notification("B302-1")).await
            }
        })
    });
    let decisions = futures_util::future::join_all(deliveries).await;
    for decision in decisions {
        let decision = decision.expect("joins").expect("decision");
        assert_eq!(decision.kind(), LedgerDecisionKind::Decided(WebhookDecisionKind::RetryLater), "{decision:?}");
        assert_eq!(decision.http_status(), 503, "the service delivers again");
    }
    assert_eq!(verifies(&sandbox), 1, "one request for twelve callers in flight: {:?}", sandbox.requests());

    sandbox.set_status("B302-1", "successful");
    let later = ledger.handle_webhook(&client, &notification("B302-1")).await.expect("decision");
    assert!(matches!(later, LedgerDecision::Fulfil { .. }), "a later delivery verifies afresh: {later:?}");
    assert_eq!(verifies(&sandbox), 2);
}
on_both!(b302_concurrent_deliveries_share_one_verification_and_a_later_one_verifies_afresh);

/// B303: a ledger made before events counted their repeats (its events table without `repeats`
/// and `last_at`) gets the columns when next opened, its old events read as recorded once, and
/// repeats of its last event are counted from then on. Still schema version 1.
async fn b303_an_existing_ledger_gets_the_repeat_columns_when_opened(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    seed(&sandbox, "B303-1", "failed", "25.50");
    ledger.expect("B303-1", &order("25.50")).await.expect("expect");
    drop(ledger);
    let drop_columns = "ALTER TABLE sika_payment_events DROP COLUMN last_at; \
                        ALTER TABLE sika_payment_events DROP COLUMN repeats;";
    let version: i64 = match &db.cluster {
        Some(cluster) => {
            let (admin, connection) =
                tokio_postgres::connect(&cluster.url(), tokio_postgres::NoTls).await.expect("connects");
            let driver = tokio::spawn(connection);
            admin.batch_execute(drop_columns).await.expect("the columns existed");
            let again = db.open(LONG_LEASE_MS).await;
            exercise(&again, &client).await;
            let version =
                admin.query_one("SELECT version FROM sika_schema_version", &[]).await.expect("version").get(0);
            drop(admin);
            driver.await.expect("driver").expect("closed");
            version
        }
        None => {
            let path = db.dir.join("ledger.db");
            rusqlite_open(&path).execute_batch(drop_columns).expect("the columns existed");
            let again = db.open(LONG_LEASE_MS).await;
            exercise(&again, &client).await;
            rusqlite_open(&path)
                .query_row("SELECT version FROM sika_schema_version", [], |row| row.get(0))
                .expect("version")
        }
    };
    assert_eq!(version, 1);

    async fn exercise(ledger: &sika_core::ledger::Ledger, client: &sika_core::Client) {
        for _ in 0..3 {
            let decided = ledger.handle_webhook(client, &notification("B303-1")).await.expect("decision");
            assert_eq!(decided.http_status(), 200, "{decided:?}");
        }
        let record = ledger.payment("B303-1").await.expect("read").expect("recorded");
        let trail: Vec<(EventKind, i64)> = record.events.iter().map(|e| (e.kind, e.repeats)).collect();
        assert_eq!(trail.len(), 2, "the old event, and one counting the three deliveries: {record:?}");
        assert_eq!(trail[0], (EventKind::Expected, 1), "an old event reads as recorded once");
        assert_eq!(trail[1].1, 3, "{record:?}");
    }
}
on_both!(b303_an_existing_ledger_gets_the_repeat_columns_when_opened);

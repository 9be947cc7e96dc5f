//! The Rust fulfilment block, `Ledger::fulfil` (issue 43 item 1): B218 a shipment three times
//! longer than the lease keeps its claim and ships once, B219 a shipment that fails gives the
//! claim back at once, B221 a claim lost while the work runs is `ClaimLost` at its end and is
//! neither marked nor released. Python, Kotlin and Swift test their own blocks the same way.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use sika_core::SikaError;
use sika_core::ledger::{EventKind, LedgerDecisionKind};

use super::support::Sandbox;
use super::{Backend, Db, LONG_LEASE_MS, claim_of, notification, order, seed};

const LEASE_MS: u64 = 600;

/// The merchant's error: a carrier that refused, or the ledger's.
#[derive(Debug)]
enum ShipError {
    Carrier(&'static str),
    Ledger(SikaError),
}

impl From<SikaError> for ShipError {
    fn from(error: SikaError) -> Self {
        Self::Ledger(error)
    }
}

impl std::fmt::Display for ShipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Carrier(why) => write!(f, "carrier refused: {why}"),
            Self::Ledger(error) => write!(f, "{error}"),
        }
    }
}

/// B218: work three times longer than the lease keeps its claim (every other caller meanwhile
/// is `InProgress`), is marked fulfilled when it ends, and was offered once.
async fn b218_a_shipment_longer_than_its_lease_ships_once(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let (holder, other) = (db.open(LEASE_MS).await, db.open(LEASE_MS).await);
    seed(&sandbox, "B218-RS", "successful", "100.10");
    holder.expect("B218-RS", &order("100.10")).await.expect("expect");
    let claim = claim_of(&holder.handle_webhook(&client, &notification("B218-RS")).await.expect("decision"));
    let shipments = AtomicU32::new(0);
    let (other, client, shipments) = (&other, &client, &shipments);
    let shipped = holder
        .fulfil(&claim, |held| async move {
            for _ in 0..6 {
                tokio::time::sleep(Duration::from_millis(LEASE_MS / 2)).await;
                let during = other.handle_webhook(client, &notification("B218-RS")).await?;
                assert_eq!(during.kind(), LedgerDecisionKind::InProgress, "{during:?}");
            }
            shipments.fetch_add(1, Ordering::SeqCst);
            Ok::<_, ShipError>(held.offer)
        })
        .await
        .expect("fulfilled");
    assert_eq!((shipped, shipments.load(Ordering::SeqCst)), (1, 1));
    let after = other.handle_webhook(client, &notification("B218-RS")).await.expect("decision");
    assert_eq!(after.kind(), LedgerDecisionKind::AlreadyFulfilled, "{after:?}");
    let record = holder.payment("B218-RS").await.expect("read").expect("recorded");
    assert_eq!((record.claims_offered, record.fulfilled_at.is_some()), (1, true), "{record:?}");
}
on_both!(b218_a_shipment_longer_than_its_lease_ships_once);

/// B219: work that fails gives its claim back, with the error as the reason, and the error goes
/// on to the caller: with a 5-minute lease, the next delivery is offered the order at once.
async fn b219_a_shipment_that_fails_gives_the_claim_back_at_once(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    seed(&sandbox, "B219-RS", "successful", "100.10");
    ledger.expect("B219-RS", &order("100.10")).await.expect("expect");
    let claim = claim_of(&ledger.handle_webhook(&client, &notification("B219-RS")).await.expect("decision"));
    let failed = ledger.fulfil(&claim, |_| async { Err::<(), _>(ShipError::Carrier("API unreachable")) }).await;
    assert!(matches!(failed, Err(ShipError::Carrier("API unreachable"))), "{failed:?}");
    let next = claim_of(&ledger.handle_webhook(&client, &notification("B219-RS")).await.expect("decision"));
    assert_eq!(next.offer, 2);
    ledger.fulfil(&next, |_| async { Ok::<_, ShipError>(()) }).await.expect("shipped the second time");
    let record = ledger.payment("B219-RS").await.expect("read").expect("recorded");
    let released: Vec<_> = record.events.iter().filter(|e| e.kind == EventKind::Released).map(|e| &e.detail).collect();
    assert_eq!(released, ["claim 1 released: carrier refused: API unreachable"], "{record:?}");
    assert!(record.fulfilled_at.is_some(), "{record:?}");
}
on_both!(b219_a_shipment_that_fails_gives_the_claim_back_at_once);

/// B221: a claim lost while the work runs (given back elsewhere and offered to another caller)
/// is `ClaimLost` when the work ends; the block neither marks nor releases the new holder's.
/// A claim lost before the block is `ClaimLost` with the work never run.
async fn b221_a_claim_lost_during_the_work_is_claim_lost_at_its_end(backend: Backend) {
    let db = Db::new(backend);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let (holder, other) = (db.open(LEASE_MS).await, db.open(LONG_LEASE_MS).await);
    seed(&sandbox, "B221-RS", "successful", "100.10");
    holder.expect("B221-RS", &order("100.10")).await.expect("expect");
    let claim = claim_of(&holder.settle(&client, "B221-RS").await.expect("decision"));
    let (other_ref, client_ref) = (&other, &client);
    let outcome = holder
        .fulfil(&claim, |held| async move {
            let (other, client) = (other_ref, client_ref);
            other.release(&held, "test: taken over").await?;
            let taken = claim_of(&other.settle(client, "B221-RS").await?);
            // Past a renewal: the block's renewal finds the claim offered to `other`.
            tokio::time::sleep(Duration::from_millis(LEASE_MS)).await;
            Ok::<_, ShipError>(taken)
        })
        .await;
    let Err(ShipError::Ledger(SikaError::ClaimLost { reference })) = &outcome else {
        panic!("a claim lost during the work must be ClaimLost at its end, got {outcome:?}")
    };
    assert_eq!(reference, "B221-RS");
    let record = holder.payment("B221-RS").await.expect("read").expect("recorded");
    assert_eq!((record.claims_offered, record.fulfilled_at), (2, None), "neither marked nor released: {record:?}");
    let during = holder.handle_webhook(&client, &notification("B221-RS")).await.expect("decision");
    assert_eq!(during.kind(), LedgerDecisionKind::InProgress, "the new holder's claim is live: {during:?}");

    let ran = AtomicU32::new(0);
    let before = holder.fulfil(&claim, |_| async { Ok::<_, ShipError>(ran.fetch_add(1, Ordering::SeqCst)) }).await;
    assert!(matches!(before, Err(ShipError::Ledger(SikaError::ClaimLost { .. }))), "{before:?}");
    assert_eq!(ran.load(Ordering::SeqCst), 0, "the work of a claim lost before the block never runs");
}
on_both!(b221_a_claim_lost_during_the_work_is_claim_lost_at_its_end);

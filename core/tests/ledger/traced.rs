//! B305 for Rust callers (ADR 0085): a reconcile run is a `tracing` span `sika.ledger.reconcile`
//! in the caller's span, with each verification (`sika.verify_transaction`) inside it, and
//! claiming a payment it found ready is a span `sika.ledger.claim` naming the reference, as the
//! other ledger operations are (before, a run and its claims made no span of their own, so a
//! scheduled job's verifications were children of whatever span was current).

use sika_core::ledger::{LedgerDecision, ReconcileOptions};
use tracing::{Instrument, info_span};

use super::support::Sandbox;
use super::support::spans::Recorder;
use super::{Backend, Db, LONG_LEASE_MS, order, seed};

#[tokio::test]
async fn b305_a_reconcile_run_and_its_claims_are_spans_in_the_callers_with_the_verifications_inside() {
    let db = Db::new(Backend::Sqlite);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let ledger = db.open(LONG_LEASE_MS).await;
    for reference in ["B305-RS-1", "B305-RS-2"] {
        seed(&sandbox, reference, "successful", "25.50");
        ledger.expect(reference, &order("25.50")).await.expect("expect");
    }
    // The current-thread runtime: every span of the run is made on this thread, where the
    // recorder is the default subscriber.
    let (recorder, _guard) = Recorder::install();
    let options = ReconcileOptions { older_than_ms: 0, ..ReconcileOptions::default() };
    let report = ledger.reconcile(&client, &options).instrument(info_span!("job: reconcile")).await.expect("the run");
    assert_eq!(report.ready.len(), 2, "{report:?}");
    let decision = ledger.claim(&report.ready[0]).instrument(info_span!("job: ship")).await.expect("claim");
    assert!(matches!(decision, LedgerDecision::Fulfil { .. }), "{decision:?}");

    let spans = recorder.spans();
    let named = |name: &str| spans.iter().filter(|s| s.name == name).collect::<Vec<_>>();
    let (job, ship) = (named("job: reconcile")[0], named("job: ship")[0]);
    let [run] = named("sika.ledger.reconcile")[..] else { panic!("one run span: {spans:?}") };
    assert_eq!(run.parent, Some(job.id));
    assert_eq!(run.fields.get("sika.operation").map(String::as_str), Some("ledger.reconcile"));
    let verifications = named("sika.verify_transaction");
    assert_eq!(verifications.len(), 2, "{spans:?}");
    assert!(verifications.iter().all(|v| v.parent == Some(run.id)), "the verifications are the run's: {spans:?}");
    let [claim] = named("sika.ledger.claim")[..] else { panic!("one claim span: {spans:?}") };
    assert_eq!(claim.parent, Some(ship.id));
    assert_eq!(claim.fields.get("sika.reference"), Some(&report.ready[0].reference));
}

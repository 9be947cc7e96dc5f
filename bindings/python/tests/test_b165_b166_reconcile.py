"""B165, B166: the ledger's `reconcile`, exported: a scheduled job's run over the payments still
open, on SQLite and PostgreSQL, blocking and async (Celery beat or cron call the blocking one).

B165: paid, pending and failed payments: the paid ones are `ready` (a run claims nothing, ADR
0081) and `claim` gives each `Fulfil` exactly once over two runs,
the pending ones are checked again by the second run, the failed ones are not; a payment whose
check failed (a 503 on a client without retries) is in `failures` with its request id, and the
next run checks it. B166: `limit` 0 or a negative setting is `InvalidInput` naming it, with
nothing sent; a payment younger than `older_than_ms` is not checked. B315: a failure carries the
typed error (`error`), whose text and request id are its `reason` and `request_id`."""

from __future__ import annotations

from decimal import Decimal

import pytest

import sika
from support import transaction_object

ORDER = sika.ExpectedPayment(amount=Decimal("25.50"), currency="GHS")
DUE_NOW = sika.ReconcileOptions(older_than_ms=0, concurrency=2)


def seed(sandbox, ledger, expect) -> dict[str, list[str]]:
    references = {"successful": ["B165-PAID-1", "B165-PAID-2"], "pending": ["B165-PENDING"], "failed": ["B165-FAILED"]}
    for status, refs in references.items():
        for reference in refs:
            sandbox.seed_transaction(transaction_object(reference, status, "25.50"))
            expect(ledger, reference)
    return references


def fulfilled(report) -> set[str]:
    """The payments the run found paid in full: ready, unclaimed (ADR 0081)."""
    assert not [c for c in report.checked if isinstance(c.decision, sika.LedgerDecision.FULFIL)], report
    return {ready.reference for ready in report.ready}


def test_b165_blocking_reconcile_fulfils_each_paid_payment_once(open_ledger, sandbox):
    client = sandbox.blocking_client(max_retries=0)
    ledger = open_ledger()
    references = seed(sandbox, ledger, lambda ledger, reference: ledger.expect(reference, ORDER))
    sandbox.fault("/transaction/verify", "status", count=1, status=503)

    first = ledger.reconcile(client, DUE_NOW)
    assert len(first.checked) + len(first.ready) + len(first.failures) == 4, first
    (failure,) = first.failures
    assert "503" in failure.reason and failure.request_id, failure
    assert failure.reference in references["successful"], failure  # the oldest two go first
    for ready in first.ready:
        decision = ledger.claim(ready)
        assert isinstance(decision, sika.LedgerDecision.FULFIL), decision
        ledger.mark_fulfilled(decision.claim)

    second = ledger.reconcile(client, DUE_NOW)
    assert second.failures == []
    # The pending payment and the one that failed; never the failed payment, decided already.
    assert {c.reference for c in second.checked} | fulfilled(second) == {"B165-PENDING", failure.reference}, second
    assert fulfilled(first).isdisjoint(fulfilled(second))
    assert fulfilled(first) | fulfilled(second) == set(references["successful"])
    record = ledger.payment("B165-PAID-1")
    assert sika.EventSource.RECONCILE in {event.source for event in record.events}, record


async def test_b165_async_reconcile_fulfils_each_paid_payment_once(open_ledger, sandbox):
    client = sandbox.client()
    ledger = open_ledger(sika.Ledger)
    for reference, status in (("B165-A-PAID", "successful"), ("B165-A-PENDING", "pending")):
        sandbox.seed_transaction(transaction_object(reference, status, "25.50"))
        await ledger.expect(reference, ORDER)
    first = await ledger.reconcile(client, DUE_NOW)
    assert fulfilled(first) == {"B165-A-PAID"}, first
    decision = await ledger.claim(first.ready[0])
    assert isinstance(decision, sika.LedgerDecision.FULFIL), decision
    async with ledger.fulfilment(decision.claim):
        pass
    second = await ledger.reconcile(client, DUE_NOW)
    assert [c.reference for c in second.checked] == ["B165-A-PENDING"], second
    assert isinstance(second.checked[0].decision, sika.LedgerDecision.DECIDED)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        (sika.ReconcileOptions(limit=0), "limit"),
        (sika.ReconcileOptions(concurrency=0), "concurrency"),
        (sika.ReconcileOptions(older_than_ms=-1), "older_than_ms"),
    ],
)
def test_b166_reconcile_refuses_bad_options_with_nothing_sent(open_ledger, sandbox, options, field):
    client = sandbox.blocking_client()
    ledger = open_ledger()
    sandbox.seed_transaction(transaction_object("B166-1", "successful", "25.50"))
    ledger.expect("B166-1", ORDER)
    sandbox.clear_requests()
    with pytest.raises(sika.SikaError.InvalidInput) as raised:
        ledger.reconcile(client, options)
    assert raised.value.field == field
    young = ledger.reconcile(client)  # the default: a minute old at least
    assert (young.checked, young.failures) == ([], [])
    assert sandbox.requests() == []


def test_b315_a_reconcile_failure_carries_the_typed_error(open_ledger, sandbox):
    client = sandbox.blocking_client(max_retries=0)
    ledger = open_ledger()
    sandbox.seed_transaction(transaction_object("B315-PAID", "successful", "25.50"))
    ledger.expect("B315-PAID", ORDER)
    sandbox.fault("/transaction/verify", "status", count=1, status=503)

    (failure,) = ledger.reconcile(client, DUE_NOW).failures
    # Before issue 47 only the text: a job had to parse "503" out of `reason`.
    error = failure.error
    assert isinstance(error, sika.SikaError.Api) and error.http_status == 503, repr(error)
    assert error.request_id == failure.request_id and error.request_id
    assert str(error) == failure.reason

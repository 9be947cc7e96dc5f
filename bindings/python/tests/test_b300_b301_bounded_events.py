"""B300, B301 from Python (issue 43 item 7): a payment's audit trail stays bounded through the
binding. Deliveries repeated in a row are one event with a count (`repeats`, `last_at`), and
`payment()` gives the first 100 events, saying more follow (`more_events`), with
`payment_events(reference, after, limit)` paging the rest, oldest first; a bad page is
`InvalidInput` naming its field. The Rust suite (`core/tests/ledger/bounded.rs`) checks the
same on SQLite and PostgreSQL, with 20,000 deliveries."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

import sika
from support import Sandbox, transaction_object

ORDER = sika.ExpectedPayment(amount=Decimal("25.50"), currency="GHS")
SHOWN = 100  # the events `payment()` gives (ADR 0085)


def notification(reference: str) -> bytes:
    return json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()


def fulfilled(sandbox: Sandbox, ledger: sika.BlockingLedger, client: sika.BlockingClient, reference: str) -> None:
    sandbox.seed_transaction(transaction_object(reference, "successful", "25.50"))
    ledger.expect(reference, ORDER)
    decision = ledger.settle(client, reference)
    assert isinstance(decision, sika.LedgerDecision.FULFIL), decision
    ledger.mark_fulfilled(decision.claim)


def test_b300_repeated_deliveries_of_a_fulfilled_order_are_one_event_with_a_count(sandbox, tmp_path):
    ledger = sika.BlockingLedger.sqlite(str(tmp_path / "ledger.db"))
    client = sandbox.blocking_client()
    fulfilled(sandbox, ledger, client, "B300-PY")
    before = len(ledger.payment("B300-PY").events)
    for _ in range(500):
        decision = ledger.handle_webhook(client, notification("B300-PY"))
        assert isinstance(decision, sika.LedgerDecision.ALREADY_FULFILLED), decision
    record = ledger.payment("B300-PY")
    assert len(record.events) == before + 1, [(event.kind, event.repeats) for event in record.events]
    last = record.events[-1]
    assert (last.repeats, last.last_at >= last.at, record.more_events) == (500, True, False), last


def test_b301_payment_gives_a_bounded_page_of_events_and_the_rest_are_paged(sandbox, tmp_path):
    ledger = sika.BlockingLedger.sqlite(str(tmp_path / "ledger.db"))
    client = sandbox.blocking_client()
    fulfilled(sandbox, ledger, client, "B301-PY")
    for _ in range(60):  # a delivery and a settle in turn: no two in a row are the same event
        ledger.handle_webhook(client, notification("B301-PY"))
        ledger.settle(client, "B301-PY")
    total = len(ledger.payment_events("B301-PY", 0, 1000))
    assert total > SHOWN + 20, total
    record = ledger.payment("B301-PY")
    assert (len(record.events), record.more_events) == (SHOWN, True)
    every = list(record.events)
    while page := ledger.payment_events("B301-PY", every[-1].sequence, 40):
        assert len(page) <= 40
        every.extend(page)
    assert len(every) == total
    sequences = [event.sequence for event in every]
    assert sequences == sorted(set(sequences)), "oldest first, no event twice"
    assert ledger.payment_events("B301-PY-NEVER", 0, 10) == []
    for after, limit, field in [(0, 0, "limit"), (0, 1001, "limit"), (-1, 10, "after")]:
        with pytest.raises(sika.SikaError.InvalidInput) as refused:
            ledger.payment_events("B301-PY", after, limit)
        assert refused.value.field == field, refused.value

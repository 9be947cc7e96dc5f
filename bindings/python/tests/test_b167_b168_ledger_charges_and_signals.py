"""B167, B168: the ledger's last metre in Python (issue 28, issue 27).

B167: a charge through the ledger (`initiate_charge(client, request)`) records the request's
amount and currency as the reference's expected payment before anything is sent: a bad request
or a reference already expected with other figures is `InvalidInput` with nothing sent, and
the webhook that follows is decided against the charge's own figures. Blocking and async, on
SQLite and on PostgreSQL.

B168: a signal with a Python handler interrupts a `BlockingLedger` call on the main thread as
it does a `BlockingClient` call (B99, ADR 0042): SIGINT 1 s into a `settle` or a `reconcile`
whose check the sandbox answers slowly gives `KeyboardInterrupt` before 1.2 s, the connection
is closed and nothing more is sent, and the ledger goes on working: the interrupted check
recorded no claim."""

from __future__ import annotations

import json
import threading
import time
from decimal import Decimal

import pytest

import sika
from support import (
    SIGNAL_AT_S,
    SIGNAL_ENDED_BY_S,
    assert_nothing_more_sent,
    charge,
    record_watched_calls,
    settled_connections,
    signal_in,
    transaction_object,
)

NEVER_ANSWERS = "+233244123333"


def notification(reference: str) -> bytes:
    return json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()


async def settled(value):
    """The blocking ledger's answer, or the async ledger's awaited."""
    return await value if hasattr(value, "__await__") else value


@pytest.mark.parametrize("kind", ["blocking", "async"])
async def test_b167_a_charge_through_the_ledger_records_the_order_before_it_is_sent(open_ledger, sandbox, kind):
    if kind == "blocking":
        ledger, client = open_ledger(sika.BlockingLedger), sandbox.blocking_client()
    else:
        ledger, client = open_ledger(sika.Ledger), sandbox.client()
    # A bad request: nothing recorded, nothing sent.
    with pytest.raises(sika.SikaError.InvalidInput) as bad:
        await settled(ledger.initiate_charge(client, charge("B167-BAD", NEVER_ANSWERS, amount="0")))
    assert bad.value.field == "amount"
    assert await settled(ledger.payment("B167-BAD")) is None
    # A reference already expected with other figures: nothing sent, the record kept.
    other = sika.ExpectedPayment(amount=Decimal("99.00"), currency="GHS")
    await settled(ledger.expect("B167-OTHER", other))
    with pytest.raises(sika.SikaError.InvalidInput) as refused:
        await settled(ledger.initiate_charge(client, charge("B167-OTHER", NEVER_ANSWERS)))
    assert refused.value.field == "expected" and "B167-OTHER" in str(refused.value)
    assert sandbox.requests() == []
    assert (await settled(ledger.payment("B167-OTHER"))).expected == other
    # A good charge: its figures recorded (the currency as it is sent), then sent once.
    await settled(ledger.initiate_charge(client, charge("B167-1", NEVER_ANSWERS, amount="25.50", currency="ghs")))
    record = await settled(ledger.payment("B167-1"))
    assert record.expected == sika.ExpectedPayment(amount=Decimal("25.50"), currency="GHS")
    assert [(event.source, event.kind) for event in record.events] == [
        (sika.EventSource.EXPECT, sika.EventKind.EXPECTED)
    ]
    assert [request["path"] for request in sandbox.requests()] == ["/charge"]
    # The webhook that follows is decided against the charge's own figures.
    sandbox.set_status("B167-1", "successful")
    decision = await settled(ledger.handle_webhook(client, notification("B167-1")))
    assert isinstance(decision, sika.LedgerDecision.FULFIL), decision
    await settled(ledger.mark_fulfilled(decision.claim))


def slow_check(sandbox, reference: str) -> int:
    """Expects nothing: seeds `reference` as paid and makes its next check take 15 s; returns
    the sandbox's open connections before the call."""
    sandbox.seed_transaction(transaction_object(reference, "successful", "100.10"))
    baseline_open = settled_connections(sandbox)["open"]
    sandbox.clear_requests()
    sandbox.fault("/transaction/verify", "delay", count=1, delay_ms=15_000)
    return baseline_open


def interrupted(call) -> float:
    """Runs `call` with SIGINT sent 1 s in; it must raise `KeyboardInterrupt`. Its duration."""
    started = time.monotonic()
    timer = signal_in(SIGNAL_AT_S)
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
        return time.monotonic() - started
    finally:
        timer.cancel()


ORDER = sika.ExpectedPayment(amount=Decimal("100.10"), currency="GHS")


@pytest.mark.usefixtures("sigint_raises")
def test_b168_sigint_interrupts_a_blocking_ledger_settle_and_cancels_it(open_ledger, sandbox):
    ledger, client = open_ledger(), sandbox.blocking_client(timeout_ms=15_000, max_retries=0)
    ledger.expect("B168-SETTLE", ORDER)
    baseline_open = slow_check(sandbox, "B168-SETTLE")
    elapsed = interrupted(lambda: ledger.settle(client, "B168-SETTLE"))
    assert SIGNAL_AT_S <= elapsed < SIGNAL_ENDED_BY_S, elapsed
    assert_nothing_more_sent(sandbox, 1, baseline_open)
    # The ledger still works, and the interrupted settle held no claim.
    decision = ledger.settle(client, "B168-SETTLE")
    assert isinstance(decision, sika.LedgerDecision.FULFIL) and decision.claim.offer == 1, decision


@pytest.mark.usefixtures("sigint_raises")
def test_b168_sigint_interrupts_a_blocking_reconcile_and_no_check_follows(open_ledger, sandbox):
    ledger, client = open_ledger(), sandbox.blocking_client(timeout_ms=15_000, max_retries=0)
    references = [f"B168-RECONCILE-{index}" for index in range(3)]
    for reference in references:
        ledger.expect(reference, ORDER)
        sandbox.seed_transaction(transaction_object(reference, "successful", "100.10"))
    baseline_open = slow_check(sandbox, references[0])
    options = sika.ReconcileOptions(older_than_ms=0, concurrency=1)
    elapsed = interrupted(lambda: ledger.reconcile(client, options))
    assert SIGNAL_AT_S <= elapsed < SIGNAL_ENDED_BY_S, elapsed
    assert_nothing_more_sent(sandbox, 1, baseline_open)
    report = ledger.reconcile(client, options)
    assert sorted(ready.reference for ready in report.ready) == references, report
    assert report.checked == [], report


def test_b168_a_blocking_ledger_call_off_the_main_thread_is_the_cores_own(open_ledger, sandbox, monkeypatch):
    # Signal handlers run on the main thread only: there the call waits interruptibly; on any
    # other thread it is the core's own blocking call (ADR 0042, ADR 0070).
    ledger, client = open_ledger(), sandbox.blocking_client()
    ledger.expect("B168-THREADS", ORDER)
    sandbox.seed_transaction(transaction_object("B168-THREADS", "pending", "100.10"))
    waits = record_watched_calls(monkeypatch)
    answers: list[object] = []
    worker = threading.Thread(target=lambda: answers.append(ledger.settle(client, "B168-THREADS")))
    worker.start()
    worker.join(30)
    assert len(answers) == 1 and waits == []
    ledger.settle(client, "B168-THREADS")
    assert waits and all(thread is threading.main_thread() for thread in waits)

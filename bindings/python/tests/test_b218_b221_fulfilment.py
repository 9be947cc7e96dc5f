"""B218-B221: exactly once against time through the fulfilment blocks (issue 43, ADR 0071), on
SQLite and on a throwaway PostgreSQL cluster, with the sandbox as the service.

B218: a shipment three times longer than the lease, in `with ledger.fulfilment(claim)` (and
`async with` on the async `Ledger`), is shipped once: the block renews the claim, every delivery
meanwhile is answered "in progress" (503), and the claim is marked when the block ends.
B219: a shipment that raises on its first try gives the claim back: the very next delivery is
offered the order (no wait for the lease) and ships it, once.
B220: a worker SIGKILLed inside the block: its claim lapses after the (short) lease, the next
delivery is offered it again, logged at WARN with the reference and the offer; only then is
it shipped once more. An interruption that is not an error (`KeyboardInterrupt`) keeps the
claim the same way: the shipment may have gone out.
B221: a claim lost while the block runs (released and offered to another caller) is raised as
`ClaimLost` when the block ends, and neither marked nor released by the block.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import signal
import time
from decimal import Decimal

import pytest

import sika
from support import Sandbox, poll, transaction_object

AMOUNT = "100.10"
ORDER = sika.ExpectedPayment(amount=Decimal(AMOUNT), currency="GHS")
LEASE_MS = 600


def notification(reference: str) -> bytes:
    return json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()


def paid_order(sandbox: Sandbox, ledger, reference: str) -> None:
    sandbox.seed_transaction(transaction_object(reference, "successful", AMOUNT))
    ledger.expect(reference, ORDER)


def test_b218_a_shipment_longer_than_its_lease_ships_once(open_ledger, sandbox):
    client = sandbox.blocking_client()
    ledger = open_ledger(lease_ms=LEASE_MS)
    other = open_ledger()
    paid_order(sandbox, ledger, "B218-1")
    assert ledger.renew_interval_ms() == LEASE_MS // 3
    shipped: list[str] = []
    meanwhile: list[tuple[str, int]] = []
    decision = ledger.handle_webhook(client, notification("B218-1"))
    assert isinstance(decision, sika.LedgerDecision.FULFIL)
    with ledger.fulfilment(decision.claim) as claim:
        deadline = time.monotonic() + 3 * LEASE_MS / 1000
        while time.monotonic() < deadline:  # the slow shipment, with redeliveries racing it
            time.sleep(0.15)
            answer = other.handle_webhook(client, notification("B218-1"))
            meanwhile.append((type(answer).__name__, answer.http_status()))
        shipped.append(claim.reference)
    assert shipped == ["B218-1"]
    assert set(meanwhile) == {("LedgerDecision.IN_PROGRESS", 503)}, meanwhile
    record = ledger.payment("B218-1")
    assert (record.claims_offered, record.fulfilled_at is not None) == (1, True), record
    after = other.handle_webhook(client, notification("B218-1"))
    assert isinstance(after, sika.LedgerDecision.ALREADY_FULFILLED)


async def test_b218_the_async_block_renews_and_marks(open_ledger, sandbox):
    client = sandbox.client()
    ledger = open_ledger(sika.Ledger, lease_ms=LEASE_MS)
    paid_order(sandbox, open_ledger(), "B218-2")
    decision = await ledger.settle(client, "B218-2")
    assert isinstance(decision, sika.LedgerDecision.FULFIL)
    async with ledger.fulfilment(decision.claim) as claim:
        for _ in range(6):
            await asyncio.sleep(3 * LEASE_MS / 6000)
            answer = await ledger.settle(client, "B218-2")
            assert isinstance(answer, sika.LedgerDecision.IN_PROGRESS), answer
        assert claim.reference == "B218-2"
    record = await ledger.payment("B218-2")
    assert (record.claims_offered, record.fulfilled_at is not None) == (1, True), record


def test_b219_a_shipment_that_raises_gives_the_claim_back_at_once(open_ledger, sandbox):
    client = sandbox.blocking_client()
    ledger = open_ledger()  # a 5-minute lease: only the release lets the next delivery in
    paid_order(sandbox, ledger, "B219-1")
    shipped: list[int] = []

    def handle(fail: bool) -> int:
        decision = ledger.handle_webhook(client, notification("B219-1"))
        if isinstance(decision, sika.LedgerDecision.FULFIL):
            with ledger.fulfilment(decision.claim) as claim:
                if fail:
                    raise ConnectionError("carrier API unreachable")
                shipped.append(claim.offer)
        return decision.http_status()

    with pytest.raises(ConnectionError):
        handle(fail=True)
    assert handle(fail=False) == 200
    assert handle(fail=False) == 200  # already fulfilled
    assert shipped == [2]
    events = [(event.kind, event.detail) for event in ledger.payment("B219-1").events]
    assert (sika.EventKind.RELEASED, "claim 1 released: ConnectionError: carrier API unreachable") in events, events


async def test_b219_the_async_block_gives_the_claim_back(open_ledger, sandbox):
    client = sandbox.client()
    ledger = open_ledger(sika.Ledger)
    paid_order(sandbox, open_ledger(), "B219-2")
    first = await ledger.settle(client, "B219-2")
    with pytest.raises(ValueError):
        async with ledger.fulfilment(first.claim):
            raise ValueError("label printer jammed")
    second = await ledger.settle(client, "B219-2")
    assert isinstance(second, sika.LedgerDecision.FULFIL) and second.claim.offer == 2, second


def hold_the_claim_until_killed(open_ledger, client, reference: str, ready) -> None:
    """A worker process (forked: the client made before the fork serves it, ADR 0055): takes
    the claim and starts a shipment that never ends."""
    ledger = open_ledger(lease_ms=LEASE_MS)
    decision = ledger.settle(client, reference)
    with ledger.fulfilment(decision.claim):
        ready.set()
        time.sleep(600)


def test_b220_a_worker_killed_inside_the_block_is_offered_again_after_the_lease(open_ledger, sandbox, caplog):
    client = sandbox.blocking_client()
    ledger = open_ledger()
    paid_order(sandbox, ledger, "B220-1")
    context = multiprocessing.get_context("fork")
    ready = context.Event()
    worker = context.Process(target=hold_the_claim_until_killed, args=(open_ledger, client, "B220-1", ready))
    worker.start()
    assert ready.wait(30), "the worker took no claim"
    os.kill(worker.pid, signal.SIGKILL)
    worker.join()
    during = ledger.handle_webhook(client, notification("B220-1"))
    assert isinstance(during, sika.LedgerDecision.IN_PROGRESS), during
    caplog.set_level(logging.WARNING, logger="sika")
    time.sleep(LEASE_MS / 1000 + 0.3)
    again = ledger.handle_webhook(client, notification("B220-1"))
    assert isinstance(again, sika.LedgerDecision.FULFIL) and again.claim.offer == 2, again
    warned = poll(lambda: [r for r in caplog.records if "`B220-1` offered again (claim 2)" in r.getMessage()], bool)
    assert warned and warned[0].levelno == logging.WARNING, caplog.records
    shipped = []
    with ledger.fulfilment(again.claim) as claim:
        shipped.append(claim.offer)
    assert shipped == [2]


def test_b220_an_interruption_keeps_the_claim(open_ledger, sandbox):
    client = sandbox.blocking_client()
    ledger = open_ledger()
    paid_order(sandbox, ledger, "B220-2")
    decision = ledger.settle(client, "B220-2")
    with pytest.raises(KeyboardInterrupt):
        with ledger.fulfilment(decision.claim):
            raise KeyboardInterrupt
    kept = ledger.settle(client, "B220-2")
    assert isinstance(kept, sika.LedgerDecision.IN_PROGRESS), kept
    assert sika.EventKind.RELEASED not in [event.kind for event in ledger.payment("B220-2").events]


def test_b221_a_claim_lost_during_the_block_is_claim_lost_at_its_end(open_ledger, sandbox, caplog):
    caplog.set_level(logging.WARNING, logger="sika")
    client = sandbox.blocking_client()
    ledger = open_ledger(lease_ms=LEASE_MS)
    other = open_ledger()
    paid_order(sandbox, ledger, "B221-1")
    decision = ledger.settle(client, "B221-1")
    with pytest.raises(sika.SikaError.ClaimLost):
        with ledger.fulfilment(decision.claim):
            # Another caller gets the order (here: the claim given back and offered again).
            other.release(decision.claim, "test: taken over")
            assert isinstance(other.settle(client, "B221-1"), sika.LedgerDecision.FULFIL)
            time.sleep(2 * LEASE_MS / 1000)  # a renewal finds the claim lost
    record = ledger.payment("B221-1")
    assert record.fulfilled_at is None, "a lost claim must not mark"
    assert record.claims_offered == 2
    # The renewal that found it lost said so at WARN, as it happened (the holder must stop).
    lost = poll(lambda: [r for r in caplog.records if "claim 1 of `B221-1` was lost before renewing it" in r.getMessage()], bool)
    assert lost and lost[0].levelno == logging.WARNING, caplog.records


def test_b221_fulfilment_takes_a_claim():
    ledger_class = sika.BlockingLedger
    with pytest.raises(TypeError, match="decision.claim"):
        ledger_class.fulfilment(object(), "B221-2")  # type: ignore[arg-type]

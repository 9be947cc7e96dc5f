"""B140, B141, B164: the payments ledger exported to Python (issue 28, ADR 0046, ADR 0050).

B140 is the issue's duplicate delivery as merchants deploy it: the same `charge.success` of each
order delivered many times at once to several worker processes (forked after the client was
made, as gunicorn --preload does; each worker opens its ledger, as a post-fork hook would), 8
threads each, through `BlockingLedger`, on SQLite and on a throwaway PostgreSQL cluster: exactly
one `Fulfil` per order over all workers, every other answer "already fulfilled" (HTTP 200) or
"in progress" (HTTP 503, ADR 0071), and the ledger's record says one claim, marked. The async `Ledger` gets
the same from concurrent tasks in one process.

B164: a `BlockingLedger` opened before the fork (a module-level ledger under gunicorn --preload)
serves every forked worker, each on connections of its own.

B141: the exported ledger's typed answers: a reference it does not expect is `Reject` (400)
with no request sent, settling one is `InvalidInput`, a negative setting is `InvalidInput`
naming it, and a claim marked twice stays marked."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import threading
from decimal import Decimal
from pathlib import Path

import pytest

import sika
from pg_cluster import PASSWORD
from support import Sandbox, transaction_object

WORKERS = 4
THREADS = 8
ORDERS = 12
AMOUNT = "100.10"
ORDER = sika.ExpectedPayment(amount=Decimal(AMOUNT), currency="GHS")


def notification(reference: str) -> bytes:
    return json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()


def seed_orders(sandbox: Sandbox, ledger, tag: str) -> list[str]:
    references = [f"B140-{tag}-{index}" for index in range(ORDERS)]
    for reference in references:
        sandbox.seed_transaction(transaction_object(reference, "successful", AMOUNT))
        ledger.expect(reference, ORDER)
    return references


VARIANTS = {
    "FULFIL": sika.LedgerDecision.FULFIL,
    "ALREADY_FULFILLED": sika.LedgerDecision.ALREADY_FULFILLED,
    "IN_PROGRESS": sika.LedgerDecision.IN_PROGRESS,
    "DECIDED": sika.LedgerDecision.DECIDED,
}


def variant(decision) -> str:
    return next(name for name, kind in VARIANTS.items() if isinstance(decision, kind))


def worker(open_ledger, client, references, start, results) -> None:
    """One worker process: its own ledger, `THREADS` threads each delivering every order's
    notification once, all released together; a Fulfil is marked. Puts (reference, variant
    name, HTTP status) per answer, or the error text."""
    try:
        ledger = open_ledger()
        answers: list[tuple[str, str, int]] = []
        lock = threading.Lock()
        errors: list[str] = []

        def deliver() -> None:
            start.wait()
            for reference in references:
                try:
                    decision = ledger.handle_webhook(client, notification(reference))
                    if isinstance(decision, sika.LedgerDecision.FULFIL):
                        ledger.mark_fulfilled(decision.claim)
                    with lock:
                        answers.append((reference, variant(decision), decision.http_status()))
                except Exception as error:  # noqa: BLE001  (reported to the test, which fails)
                    with lock:
                        errors.append(f"{reference}: {error!r}")

        threads = [threading.Thread(target=deliver) for _ in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        results.put(("ok", answers, errors))
    except BaseException as error:  # noqa: BLE001
        results.put(("failed", [], [repr(error)]))


def test_b140_duplicate_deliveries_to_several_worker_processes_fulfil_each_order_once(open_ledger, sandbox):
    client = sandbox.blocking_client()
    setup = open_ledger()
    references = seed_orders(sandbox, setup, "W")
    context = multiprocessing.get_context("fork")
    start = context.Barrier(WORKERS * THREADS)
    results = context.Queue()
    processes = [
        context.Process(target=worker, args=(open_ledger, client, references, start, results)) for _ in range(WORKERS)
    ]
    for process in processes:
        process.start()
    reports = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0, f"a worker died: {process.exitcode}"
    errors = [error for _, _, errs in reports for error in errs]
    assert errors == [], errors
    answers = [answer for _, answered, _ in reports for answer in answered]
    assert len(answers) == WORKERS * THREADS * ORDERS
    for reference in references:
        mine = [(name, status) for ref, name, status in answers if ref == reference]
        fulfils = [name for name, _ in mine if name == "FULFIL"]
        assert len(fulfils) == 1, f"{reference}: {len(fulfils)} Fulfil among {mine}"
        assert {name for name, _ in mine} <= {"FULFIL", "ALREADY_FULFILLED", "IN_PROGRESS"}, mine
        # A claim being worked on is answered 503, so the service delivers again (ADR 0071).
        assert all(status == (503 if name == "IN_PROGRESS" else 200) for name, status in mine), mine
        record = setup.payment(reference)
        assert record is not None
        assert (record.claims_offered, record.fulfilled_at is not None) == (1, True), record
        kinds = [event.kind for event in record.events]
        assert kinds.count(sika.EventKind.FULFIL) == 1
        assert kinds.count(sika.EventKind.FULFILLED) == 1
    # Later deliveries are answered from the ledger: already fulfilled.
    again = setup.handle_webhook(client, notification(references[0]))
    assert isinstance(again, sika.LedgerDecision.ALREADY_FULFILLED), again


def fulfil_with_the_inherited_ledger(ledger, client, reference: str, results) -> None:
    """A forked worker's order on the parent's ledger: the webhook (its first call), then the
    mark."""
    try:
        decision = ledger.handle_webhook(client, notification(reference))
        if isinstance(decision, sika.LedgerDecision.FULFIL):
            ledger.mark_fulfilled(decision.claim)
        results.put((reference, variant(decision)))
    except BaseException as error:  # noqa: BLE001
        results.put((reference, repr(error)))


def test_b164_a_ledger_opened_before_the_fork_serves_every_worker(open_ledger, sandbox):
    """gunicorn --preload with a module-level ledger: the workers use the parent's
    `BlockingLedger`, each on connections of its own (ADR 0055). On the parent's connections a
    PostgreSQL worker hung (its queries waited for the parent's runtime); on connections opened
    by its first call, a blocking decision, the mark after it hung (their tasks ran on the
    blocking client's runtime, which nothing drives between calls)."""
    client = sandbox.blocking_client()
    ledger = open_ledger()
    seed_orders(sandbox, ledger, "F")  # the parent's connections are open and used
    references = [f"B164-{index}" for index in range(2)]
    for reference in references:
        sandbox.seed_transaction(transaction_object(reference, "successful", AMOUNT))
        ledger.expect(reference, ORDER)
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    processes = [
        context.Process(target=fulfil_with_the_inherited_ledger, args=(ledger, client, reference, results))
        for reference in references
    ]
    for process in processes:
        process.start()
    try:
        answers = dict(results.get(timeout=60) for _ in processes)
    finally:
        for process in processes:
            process.join(timeout=5)
            if process.exitcode is None:
                process.kill()
    assert answers == {reference: "FULFIL" for reference in references}, answers
    for reference in references:
        record = ledger.payment(reference)
        assert record is not None and record.fulfilled_at is not None, record


async def test_b140_the_async_ledger_gives_one_fulfil_to_concurrent_tasks(open_ledger, sandbox):
    client = sandbox.client()
    ledger = open_ledger(sika.Ledger)
    references = [f"B140-A-{index}" for index in range(ORDERS)]
    for reference in references:
        sandbox.seed_transaction(transaction_object(reference, "successful", AMOUNT))
        await ledger.expect(reference, ORDER)

    async def deliver(reference: str):
        decision = await ledger.handle_webhook(client, notification(reference))
        if isinstance(decision, sika.LedgerDecision.FULFIL):
            await ledger.mark_fulfilled(decision.claim)
        return reference, decision

    answers = await asyncio.gather(*(deliver(reference) for reference in references for _ in range(THREADS)))
    for reference in references:
        mine = [decision for ref, decision in answers if ref == reference]
        assert sum(isinstance(d, sika.LedgerDecision.FULFIL) for d in mine) == 1, mine
        assert all(d.acknowledge() for d in mine), mine
        record = await ledger.payment(reference)
        assert record is not None and record.fulfilled_at is not None


def test_b141_the_exported_ledger_answers_bad_input_with_typed_errors(open_ledger, sandbox):
    client = sandbox.blocking_client()
    ledger = open_ledger()
    sandbox.seed_transaction(transaction_object("B141-UNKNOWN", "successful", AMOUNT))
    sandbox.clear_requests()
    unexpected = ledger.handle_webhook(client, notification("B141-UNKNOWN"))
    assert isinstance(unexpected, sika.LedgerDecision.DECIDED), unexpected
    assert isinstance(unexpected.decision, sika.WebhookDecision.REJECT), unexpected
    assert "B141-UNKNOWN" in unexpected.decision.reason
    assert unexpected.http_status() == 400
    with pytest.raises(sika.SikaError.InvalidInput) as settled:
        ledger.settle(client, "B141-UNKNOWN")
    assert settled.value.field == "reference"
    assert sandbox.requests() == [], "nothing sent for a reference the ledger does not expect"
    assert ledger.payment("B141-UNKNOWN") is None
    # Other values for a known reference are refused, never overwritten.
    ledger.expect("B141-1", ORDER)
    with pytest.raises(sika.SikaError.InvalidInput):
        ledger.expect("B141-1", sika.ExpectedPayment(amount=Decimal("1.00"), currency="GHS"))
    # A claim marked twice stays marked.
    sandbox.seed_transaction(transaction_object("B141-1", "successful", AMOUNT))
    decision = ledger.handle_webhook(client, notification("B141-1"))
    assert isinstance(decision, sika.LedgerDecision.FULFIL), decision
    ledger.mark_fulfilled(decision.claim)
    ledger.mark_fulfilled(decision.claim)
    assert ledger.payment("B141-1").fulfilled_at is not None


def test_b141_a_negative_ledger_setting_is_invalid_input_naming_it(tmp_path: Path):
    with pytest.raises(sika.SikaError.InvalidInput) as refused:
        sika.BlockingLedger.sqlite(str(tmp_path / "l.db"), sika.LedgerOptions(lease_ms=-1))
    assert refused.value.field == "lease_ms"


def test_b141_the_postgres_password_is_never_shown():
    # Nothing listens on port 1: the error says so, without the password.
    url = f"postgresql://sika:{PASSWORD}@127.0.0.1:1/postgres"
    with pytest.raises(sika.SikaError.Storage) as failed:
        sika.BlockingLedger.postgres(sika.SecretUrl(url), sika.LedgerOptions(connect_timeout_ms=2000))
    assert PASSWORD not in str(failed.value) and PASSWORD not in repr(failed.value)

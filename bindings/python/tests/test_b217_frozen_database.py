"""B217 from Python: every ledger operation has a deadline (`timeout_ms`), on the main thread
and on worker threads alike (issue 43 item 6). With a throwaway PostgreSQL cluster frozen
(SIGSTOP: connections open, nothing answers) each `BlockingLedger` operation ends with
`SikaError.Storage` near its deadline, and works again once the cluster is back; opening a ledger
against a server that accepts and never answers ends at `connect_timeout_ms`. Before the core's
deadlines a worker thread's `mark_fulfilled` ran 56 s here: Python's signals reach only the main
thread, so nothing else ended it. A row lock held by another session ends each operation that
waits for it the same way (the server's `lock_timeout`). The Rust suite
(`core/tests/ledger/time.rs`) checks the same on the core's futures.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest

import sika
from pg_cluster import Cluster
from support import Sandbox, transaction_object

TIMEOUT_MS = 1_000
# Well past the deadline, far below the hang it replaces (a loaded CI machine is slow).
BOUND_S = 4 * TIMEOUT_MS / 1000
ORDER = sika.ExpectedPayment(amount=Decimal("100.10"), currency="GHS")


def notification(reference: str) -> bytes:
    return json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    started = Cluster()
    yield started
    started.thaw()  # a failed test must not leave it stopped for `stop`
    started.stop()


def operations(ledger, client, claim) -> dict[str, Callable[[], object]]:
    """Every operation of the ledger that reaches the database, by name."""
    return {
        "expect": lambda: ledger.expect("B217-PY-2", ORDER),
        "handle_webhook": lambda: ledger.handle_webhook(client, notification("B217-PY-1")),
        "settle": lambda: ledger.settle(client, "B217-PY-1"),
        "renew": lambda: ledger.renew(claim),
        "release": lambda: ledger.release(claim, "frozen"),
        "mark_fulfilled": lambda: ledger.mark_fulfilled(claim),
        "payment": lambda: ledger.payment("B217-PY-1"),
        "reconcile": lambda: ledger.reconcile(client),
    }


def ends_at_the_deadline(name: str, call: Callable[[], object], because: str = "did not answer within") -> str | None:
    """None when `call` raised `Storage` saying `because` within the bound, else what went wrong."""
    started = time.monotonic()
    try:
        outcome: object = call()
    except sika.SikaError.Storage as error:
        outcome = error
    took = time.monotonic() - started
    if not isinstance(outcome, sika.SikaError.Storage) or because not in str(outcome):
        return f"{name}: must be Storage ({because}), got {outcome!r}"
    return None if took < BOUND_S else f"{name} took {took:.1f} s"


def test_b217_a_frozen_database_ends_every_operation_at_its_deadline_on_any_thread(cluster, sandbox: Sandbox):
    client = sandbox.blocking_client()
    options = sika.LedgerOptions(timeout_ms=TIMEOUT_MS, connect_timeout_ms=15_000, max_connections=4)
    ledger = sika.BlockingLedger.postgres(sika.SecretUrl(cluster.url), options)
    sandbox.seed_transaction(transaction_object("B217-PY-1", "successful", "100.10"))
    ledger.expect("B217-PY-1", ORDER)
    decision = ledger.handle_webhook(client, notification("B217-PY-1"))
    assert isinstance(decision, sika.LedgerDecision.FULFIL), decision
    calls = operations(ledger, client, decision.claim)
    cluster.freeze()
    on_main = [ends_at_the_deadline(name, call) for name, call in calls.items()]
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="worker") as workers:
        on_workers = list(workers.map(lambda item: ends_at_the_deadline(*item), calls.items()))
    cluster.thaw()
    assert [problem for problem in on_main if problem] == [], "on the main thread"
    assert [problem for problem in on_workers if problem] == [], "on worker threads"
    # Back: the same claim marks (nothing changed while frozen), on fresh connections.
    ledger.mark_fulfilled(decision.claim)
    after = ledger.settle(client, "B217-PY-1")
    assert isinstance(after, sika.LedgerDecision.ALREADY_FULFILLED), after


def test_b217_opening_against_a_server_that_never_answers_ends_at_the_connect_timeout():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)  # the kernel accepts; nobody ever answers
        url = sika.SecretUrl(f"postgresql://sika:pw@127.0.0.1:{listener.getsockname()[1]}/postgres")
        options = sika.LedgerOptions(connect_timeout_ms=500, timeout_ms=TIMEOUT_MS)

        def opening() -> str | None:
            started = time.monotonic()
            with pytest.raises(sika.SikaError.Storage):
                sika.BlockingLedger.postgres(url, options)
            took = time.monotonic() - started
            return None if took < BOUND_S else f"opening took {took:.1f} s"

        on_worker: list[str | None] = []
        worker = threading.Thread(target=lambda: on_worker.append(opening()))
        worker.start()
        on_main = opening()
        worker.join(timeout=30)
        assert (on_main, on_worker) == (None, [None])


def test_b217_a_row_lock_held_elsewhere_ends_each_waiting_operation_at_its_deadline_on_any_thread(
    cluster, sandbox: Sandbox
):
    client = sandbox.blocking_client()
    options = sika.LedgerOptions(timeout_ms=TIMEOUT_MS, max_connections=4)
    ledger = sika.BlockingLedger.postgres(sika.SecretUrl(cluster.url), options)
    sandbox.seed_transaction(transaction_object("B217-PY-1", "successful", "100.10"))
    ledger.expect("B217-PY-1", ORDER)
    decision = ledger.handle_webhook(client, notification("B217-PY-1"))
    assert isinstance(decision, sika.LedgerDecision.FULFIL), decision
    every = operations(ledger, client, decision.claim)
    # The operations that write the payment's row (reading it takes no lock).
    waiting = {name: every[name] for name in ("handle_webhook", "settle", "renew", "release", "mark_fulfilled")}
    with cluster.row_locked("sika_payments", "B217-PY-1"):
        on_main = [ends_at_the_deadline(name, call, "timeout") for name, call in waiting.items()]
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="worker") as workers:
            on_workers = list(workers.map(lambda item: ends_at_the_deadline(item[0], item[1], "timeout"), waiting.items()))
    assert [problem for problem in on_main if problem] == [], "on the main thread"
    assert [problem for problem in on_workers if problem] == [], "on worker threads"
    # The lock gone: the same claim marks, as nothing was written while it was held.
    ledger.mark_fulfilled(decision.claim)
    after = ledger.settle(client, "B217-PY-1")
    assert isinstance(after, sika.LedgerDecision.ALREADY_FULFILLED), after

"""B270, B271: a reconcile run claims nothing; each payment is claimed only as its fulfilment
starts (issue 43 item 4, ADR 0081), on SQLite and on a throwaway PostgreSQL cluster.

B271: the README's Celery reconcile task, its very code (extracted from README.md, as B39 and
B179 do), run over 450 paid payments whose shipments make a run three times longer than the
lease: twice in a row, then (over 450 more) twice at once on two ledgers. Every payment is
shipped exactly once, each offered one claim (no lease lapsed, no re-offer), no `ClaimLost`
and no WARN line about a lost or re-offered claim.

B270: `claim(ready)` in Python: `Fulfil` once, then `InProgress` while the claim is live and
`AlreadyFulfilled` once marked; a reference no run found paid is `Decided(RetryLater)`, and
claim sends nothing to the service.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
import time
import typing
from collections import Counter
from decimal import Decimal

import sika
from support import Sandbox, transaction_object
from test_deployments import README

AMOUNT = "25.00"
ORDER = sika.ExpectedPayment(amount=Decimal(AMOUNT), currency="GHS")
PAYMENTS = 450
LEASE_MS = 800
# Each shipment's time: 450 of them take 6.75 s, over eight leases; two runs at once share them,
# each over four.
SHIPMENT_S = 0.015


def readme_reconcile_task() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    tasks = [block for block in blocks if "ledger.reconcile(" in block]
    assert len(tasks) == 1, tasks
    return tasks[0]


class _CeleryApp:
    """What the README's task needs of Celery's app: `@app.task(name=...)`, the function as is."""

    @staticmethod
    def task(name: str) -> typing.Callable[[typing.Callable[..., typing.Any]], typing.Callable[..., typing.Any]]:
        return lambda function: function


class SlowOrders:
    """The shop's orders: each shipment takes `SHIPMENT_S`, and every one is counted."""

    def __init__(self) -> None:
        self.shipped: Counter[str] = Counter()
        self.overlapping: list[str] = []
        self._shipping: set[str] = set()
        self._lock = threading.Lock()

    def ship(self, reference: str) -> None:
        with self._lock:
            if reference in self._shipping:
                self.overlapping.append(reference)
            self._shipping.add(reference)
            self.shipped[reference] += 1
        time.sleep(SHIPMENT_S)
        with self._lock:
            self._shipping.discard(reference)


def readme_task(ledger: typing.Any, client: typing.Any, orders: SlowOrders) -> typing.Callable[..., typing.Any]:
    """The README's task, bound to this ledger, client and orders as the Celery app's module binds them."""
    namespace: dict[str, typing.Any] = {
        "app": _CeleryApp(),
        "sika": sika,
        "Any": typing.Any,
        "ledger": ledger,
        "client": client,
        "orders": orders,
    }
    exec(compile(readme_reconcile_task(), "README.md (Celery reconcile task)", "exec"), namespace)
    return typing.cast(typing.Callable[..., typing.Any], namespace["reconcile_payments"])


def paid_orders(sandbox: Sandbox, ledger: typing.Any, tag: str) -> list[str]:
    references = [f"B271-{tag}-{index:03}" for index in range(PAYMENTS)]
    for reference in references:
        sandbox.seed_transaction(transaction_object(reference, "successful", AMOUNT))
        ledger.expect(reference, ORDER)
    return references


def timed(task: typing.Callable[..., typing.Any]) -> tuple[dict, float]:
    started = time.monotonic()
    result = task(0)
    return result, time.monotonic() - started


def assert_each_shipped_once(ledger: typing.Any, orders: SlowOrders, references: list[str]) -> None:
    twice = {reference: count for reference, count in orders.shipped.items() if count != 1}
    assert not twice, f"shipped more than once: {twice}"
    assert not orders.overlapping, f"shipped by two callers at once: {orders.overlapping}"
    missing = [reference for reference in references if orders.shipped[reference] != 1]
    assert not missing, f"{len(missing)} never shipped, first {missing[:5]}"
    for reference in references:
        record = ledger.payment(reference)
        assert (record.claims_offered, record.fulfilled_at is not None) == (1, True), record


def test_b271_the_readme_reconcile_task_ships_each_payment_once_at_any_limit_lease_and_shipment_time(
    open_ledger, sandbox, caplog
):
    caplog.set_level(logging.WARNING, logger="sika")
    client = sandbox.blocking_client()
    ledger = open_ledger(lease_ms=LEASE_MS)
    lease_s = LEASE_MS / 1000

    # Twice in a row: the first run ships them all, the second finds nothing to do.
    in_a_row = paid_orders(sandbox, ledger, "ROW")
    orders = SlowOrders()
    task = readme_task(ledger, client, orders)
    first, took = timed(task)
    assert took > 3 * lease_s, f"the run took {took:.1f} s: not three leases"
    assert sorted(first["fulfilled"]) == in_a_row and first["failures"] == [], first
    second, _ = timed(task)
    assert second == {"checked": [], "ready": [], "fulfilled": [], "failures": []}, second
    assert_each_shipped_once(ledger, orders, in_a_row)

    # Twice at once, on two ledgers (two workers' own connections) over one database.
    at_once = paid_orders(sandbox, ledger, "ONCE")
    orders = SlowOrders()
    tasks = [readme_task(ledger, client, orders), readme_task(open_ledger(lease_ms=LEASE_MS), client, orders)]
    results: list[tuple[dict, float] | BaseException] = [RuntimeError("did not run")] * len(tasks)

    def run(index: int) -> None:
        try:
            results[index] = timed(tasks[index])
        except BaseException as error:  # noqa: BLE001 (reported below: a ClaimLost would be one)
            results[index] = error

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(tasks))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    errors = [result for result in results if isinstance(result, BaseException)]
    assert not errors, errors
    reports = [typing.cast(tuple, result)[0] for result in results]
    for report, took in typing.cast(list, results):
        assert took > 3 * lease_s, f"a run took {took:.1f} s: not three leases"
        assert report["failures"] == [], report
    fulfilled = [reference for report in reports for reference in report["fulfilled"]]
    assert sorted(fulfilled) == at_once, "each payment fulfilled by one run, once"
    assert all(report["fulfilled"] for report in reports), "one run shipped everything: no race was run"
    assert_each_shipped_once(ledger, orders, at_once)

    warnings = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
    assert not [text for text in warnings if "lost" in text or "offered again" in text], warnings


def test_b270_claim_takes_a_ready_payment_once_and_sends_nothing(open_ledger, sandbox):
    client = sandbox.blocking_client()
    ledger, other = open_ledger(), open_ledger()
    sandbox.seed_transaction(transaction_object("B270-PAID", "successful", AMOUNT))
    sandbox.seed_transaction(transaction_object("B270-PENDING", "pending", AMOUNT))
    for reference in ["B270-PAID", "B270-PENDING"]:
        ledger.expect(reference, ORDER)
    report = ledger.reconcile(client, sika.ReconcileOptions(older_than_ms=0))
    assert [ready.reference for ready in report.ready] == ["B270-PAID"], report
    assert [payment.reference for payment in report.checked] == ["B270-PENDING"], report
    ready = report.ready[0]
    assert ready.transaction.tx_ref == "B270-PAID"
    assert ledger.payment("B270-PAID").claims_offered == 0, "the run claimed it"
    sandbox.clear_requests()

    decision = ledger.claim(ready)
    assert isinstance(decision, sika.LedgerDecision.FULFIL), decision
    assert (decision.claim.offer, decision.transaction) == (1, ready.transaction)
    assert isinstance(other.claim(ready), sika.LedgerDecision.IN_PROGRESS)
    with ledger.fulfilment(decision.claim):
        pass
    assert isinstance(other.claim(ready), sika.LedgerDecision.ALREADY_FULFILLED)
    pending = sika.ReadyPayment(
        reference="B270-PENDING", transaction=dataclasses.replace(ready.transaction, tx_ref="B270-PENDING")
    )
    answer = other.claim(pending)
    assert isinstance(answer, sika.LedgerDecision.DECIDED), answer
    assert isinstance(answer.decision, sika.WebhookDecision.RETRY_LATER), answer
    assert [request for request in sandbox.requests() if "/verify/" in request["path"]] == [], "claim sent a request"

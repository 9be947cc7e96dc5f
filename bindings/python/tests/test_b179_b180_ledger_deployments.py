"""B179, B180: the deployment apps (`deployments/`) fulfil through the ledger (issue 28).

B179: the Flask app under gunicorn `--preload` (sync workers; its `BlockingClient` and
`BlockingLedger` made at import, in the master, before the fork) and the FastAPI app under
uvicorn (its `Client` and `Ledger` made at import), each on an SQLite ledger and on a throwaway
PostgreSQL cluster. 200 orders are placed through the app (`expect`); the sandbox delivers every
order's notification twice at once, many orders at a time. The handler ships on `Fulfil` and
the order book's `ship` is not idempotent (one row per call, with the worker's pid), so a double
fulfilment shows: each paid order is shipped exactly once, every other order never, and every
delivery is answered as the ledger decided.

B180: a Celery prefork worker's task reconciles the ledger: payments pending when the orders
were placed, paid since, are shipped once by the task called twice at once (two pool processes
race), its result plain JSON data.

B321: a shipment that raises in the README's handler is shipped by the service's own next
delivery, at once: the handler's exception gives the claim back (the block's `release`), the
delivery is answered 500, and the sandbox's retry 300 ms later is `Fulfil` and ships it, once,
though the lease is 5 minutes."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from decimal import Decimal

import httpx
import pytest
from celery import Celery

import sika
from deployments import celery_config, shop
from deployments.driving import (
    BATCH_DEADLINE_S,
    CALL_DEADLINE_S,
    no_problems,
    run_at_once,
    send_webhook,
)
from deployments.orders import Orders
from deployments.results import outcome
from deployments.servers import Shape, gunicorn, start, start_celery_worker, uvicorn
from pg_cluster import PASSWORD, Cluster
from support import Sandbox, poll, transaction_object
from test_deployments import README, handler_region, readme_region, shop_environment

WORKERS = 4
SHAPES = [
    Shape("flask-gunicorn-preload", gunicorn("deployments.flask_app:app", "sync", WORKERS), workers=WORKERS),
    Shape("fastapi-uvicorn", uvicorn("deployments.fastapi_app:app", "uvloop")),
]
DATABASES = ["sqlite", "postgres"]

AMOUNT = "25.00"
# 200 orders: what the service says of each kind, the amount it was paid, how many there are,
# and how each of its deliveries must be answered.
KINDS = {
    "PAID": ("successful", AMOUNT, 160, 200),  # Fulfil once, then AlreadyFulfilled (InProgress: 503, retried)
    "FAILED": ("failed", AMOUNT, 20, 200),  # Ignore
    "SHORT": ("successful", "2.50", 10, 200),  # Investigate: paid, not in full
    "PENDING": ("pending", AMOUNT, 10, 503),  # RetryLater
}
# Each notification is delivered this many times at once (deliveries repeat, and race).
DELIVERIES = 2


# As the service does, the sandbox delivers again a delivery answered with an error or not
# within its 5 s (a loaded machine's stall): 2 retries, after 300 ms and 600 ms.
RETRIES_MS = "300,600"
ATTEMPTS = 1 + len(RETRIES_MS.split(","))


@pytest.fixture(scope="module")
def ledger_sandbox():
    running = Sandbox("--webhook-retry-ms", RETRIES_MS)
    yield running
    running.stop()


@dataclass(frozen=True)
class LedgerDatabase:
    """The ledger's database: its kind, and its path or URL as the apps' environment names it
    (out of the repr: a PostgreSQL URL holds the password)."""

    kind: str
    location: str = field(repr=False)


@pytest.fixture(params=DATABASES)
def ledger_database(request, tmp_path):
    """An SQLite file, or a throwaway PostgreSQL cluster (stopped after the test)."""
    if request.param == "sqlite":
        yield LedgerDatabase("SQ", str(tmp_path / "ledger.sqlite"))
        return
    cluster = Cluster()
    try:
        yield LedgerDatabase("PG", cluster.url)
    finally:
        cluster.stop()


def open_ledger(database: str) -> sika.BlockingLedger:
    """The test's own view of the apps' ledger, given its path or URL."""
    if database.startswith("postgresql://"):
        return sika.BlockingLedger.postgres(sika.SecretUrl(database))
    return sika.BlockingLedger.sqlite(database)


def deliveries_by_reference(sandbox: Sandbox, url: str) -> dict[str, list[list]]:
    """Each reference's deliveries to `url`, each as its attempts' HTTP statuses in order
    (None: not answered within the sandbox's 5 s)."""
    attempts: dict[str, dict[int, list]] = {}
    for attempt in sorted(sandbox.webhooks(), key=lambda attempt: attempt["attempt"]):
        if attempt["url"] == url:
            attempts.setdefault(attempt["reference"], {}).setdefault(attempt["delivery_id"], []).append(
                attempt["http_status"]
            )
    return {reference: list(by_delivery.values()) for reference, by_delivery in attempts.items()}


def settled(deliveries: list[list] | None, status: int, count: int) -> bool:
    """Whether there are `count` deliveries and each was answered `status`: a 200 once, after
    any attempts that got no answer or a 503 (the other delivery held the claim: in progress,
    answered so that the service delivers again, ADR 0071); an error status on every attempt
    answered, all of them made."""
    if not deliveries or len(deliveries) != count:
        return False
    for attempts in deliveries:
        answered = [answer for answer in attempts if answer is not None]
        if status == 200 and (answered[-1:] != [200] or set(answered[:-1]) - {503}):
            return False
        if status != 200 and (len(attempts) != ATTEMPTS or set(answered) != {status}):
            return False
    return True


def place_order(http: httpx.Client, url: str, reference: str):
    def job():
        try:
            answer = http.post(url, json={"reference": reference, "amount": AMOUNT, "currency": "GHS"})
        except httpx.HTTPError as error:
            return f"order {reference}: no answer ({error!r})"
        return None if answer.status_code == 200 else f"order {reference}: HTTP {answer.status_code} {answer.text}"

    job.__name__ = f"order {reference}"
    return job


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
def test_b179_the_deployed_apps_fulfil_through_the_ledger_once_under_duplicate_deliveries(
    shape, ledger_database, ledger_sandbox, tmp_path
):
    sandbox = ledger_sandbox
    database = ledger_database.kind
    tag = f"B179-{''.join(word[0] for word in shape.name.split('-')).upper()}-{database}"
    orders = Orders(str(tmp_path / "orders.sqlite"))
    orders.create_schema()
    references = {kind: [f"{tag}-{kind}-{index}" for index in range(count)] for kind, (_, _, count, _) in KINDS.items()}
    for kind, (status, amount, _, _) in KINDS.items():
        for reference in references[kind]:
            sandbox.seed_transaction(transaction_object(reference, status, amount))
    everyone = [reference for refs in references.values() for reference in refs]
    assert len(everyone) == 200

    environment = shop_environment(sandbox, tmp_path / "orders.sqlite", ledger_database.location)
    server = start(shape, environment, tmp_path / "server.log")
    http = httpx.Client(timeout=CALL_DEADLINE_S, trust_env=False)
    try:
        problems = run_at_once([place_order(http, server.route("/orders"), reference) for reference in everyone])
        assert not problems, no_problems(problems)
        webhook_url = server.route("/ledger/webhooks/sika")
        # Every notification twice at once, 12 orders at a time: up to 24 deliveries in flight.
        started = time.monotonic()
        jobs = [
            send_webhook(sandbox, reference, DELIVERIES, url=webhook_url, at_once=True, http=http)
            for reference in everyone
        ]
        jobs.append(send_webhook(sandbox, f"{tag}-NOT-OURS", 1, url=webhook_url, http=http))
        jobs.append(send_webhook(sandbox, f"{tag}-JUNK", 1, body="not json", url=webhook_url, http=http))
        problems = run_at_once(jobs)
        expected = {reference: status for kind, (_, _, _, status) in KINDS.items() for reference in references[kind]}
        expected |= {f"{tag}-NOT-OURS": 400, f"{tag}-JUNK": 400}
        counts = {reference: 1 if status == 400 else DELIVERIES for reference, status in expected.items()}
        answers = poll(
            lambda: deliveries_by_reference(sandbox, webhook_url),
            until=lambda answers: all(
                settled(answers.get(reference), status, counts[reference]) for reference, status in expected.items()
            ),
            deadline_s=BATCH_DEADLINE_S,
        )
        delivered_s = time.monotonic() - started
        shipments = orders.shipments()
        problems += server.health_problems()
    finally:
        http.close()
        server.stop()
    if PASSWORD in server.log():
        problems.append("the server's log holds the PostgreSQL password")

    problems += [
        f"{reference}: deliveries answered {answers.get(reference)}, expected {status}"
        for reference, status in expected.items()
        if not settled(answers.get(reference), status, counts[reference])
    ]
    paid = set(references["PAID"])
    doubles = {reference: pids for reference, pids in shipments.items() if len(pids) > 1}
    problems += [f"{reference} shipped {len(pids)} times, by {pids}" for reference, pids in doubles.items()]
    problems += [f"{reference} never shipped" for reference in sorted(paid - shipments.keys())]
    problems += [f"{reference} shipped, but not paid in full" for reference in sorted(shipments.keys() - paid)]
    assert not problems, no_problems(problems)
    if shape.workers:
        shipped_by = {pid for pids in shipments.values() for pid in pids}
        assert len(shipped_by) >= 2, f"one worker shipped every order: {shipped_by}"

    # The ledger's own record agrees: one claim offered per paid order, and marked.
    ledger = open_ledger(ledger_database.location)
    for reference in references["PAID"]:
        record = ledger.payment(reference)
        assert record is not None and (record.claims_offered, record.fulfilled_at is not None) == (1, True), record
    for reference in references["SHORT"] + references["FAILED"]:
        record = ledger.payment(reference)
        assert record is not None and (record.claims_offered, record.fulfilled_at) == (0, None), record
    print(f"{shape.name} on {database}: {len(everyone) * DELIVERIES} deliveries in {delivered_s:.1f} s")


# --- B321: a shipment that fails, shipped by the service's redelivery -----------------------

FLAKY = 4
# How uvicorn reports the exception of a handler (gunicorn's sync worker logs it as an error).
HANDLER_RAISED = "Exception in ASGI application"


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
def test_b321_a_shipment_that_raises_is_shipped_by_the_services_next_delivery_at_once(
    shape, ledger_sandbox, tmp_path
):
    sandbox = ledger_sandbox
    tag = f"B321-{''.join(word[0] for word in shape.name.split('-')).upper()}"
    orders = Orders(str(tmp_path / "orders.sqlite"))
    orders.create_schema()
    references = [f"{tag}-{index}" for index in range(FLAKY)]
    for reference in references:
        sandbox.seed_transaction(transaction_object(reference, "successful", AMOUNT))
        orders.fail_first_shipment(reference)
    environment = shop_environment(sandbox, tmp_path / "orders.sqlite")
    server = start(shape, environment, tmp_path / "server.log")
    http = httpx.Client(timeout=CALL_DEADLINE_S, trust_env=False)
    try:
        problems = run_at_once([place_order(http, server.route("/orders"), reference) for reference in references])
        assert not problems, no_problems(problems)
        webhook_url = server.route("/ledger/webhooks/sika")
        problems = run_at_once([send_webhook(sandbox, ref, 1, url=webhook_url, http=http) for ref in references])
        # The first attempt raised (500); the retry, after RETRIES_MS's first wait, shipped.
        answers = poll(
            lambda: deliveries_by_reference(sandbox, webhook_url),
            until=lambda answers: all(answers.get(reference) == [[500, 200]] for reference in references),
            deadline_s=BATCH_DEADLINE_S,
        )
        shipments = orders.shipments()
        problems += [line for line in server.health_problems() if HANDLER_RAISED not in line]
    finally:
        http.close()
        server.stop()
    problems += [
        f"{reference}: its delivery's attempts were answered {answers.get(reference)}, expected [[500, 200]]"
        for reference in references
        if answers.get(reference) != [[500, 200]]
    ]
    problems += [
        f"{reference} shipped {len(shipments.get(reference, []))} times" for reference in references
        if len(shipments.get(reference, [])) != 1
    ]  # fmt: skip
    assert not problems, no_problems(problems)
    ledger = open_ledger(environment[shop.LEDGER_DB])
    for reference in references:
        record = ledger.payment(reference)
        assert record is not None and (record.claims_offered, record.fulfilled_at is not None) == (2, True), record
        released = [event.detail for event in record.events if event.kind == sika.EventKind.RELEASED]
        assert released == [f"claim 1 released: ShipmentFailed: the carrier refused {reference}"], released


# --- B180: a reconcile task on Celery's prefork pool --------------------------------------


@dataclass
class CeleryLedgerDeployment:
    caller: Celery
    orders: Orders
    ledger: sika.BlockingLedger


@pytest.fixture
def celery_ledger(ledger_sandbox, tmp_path):
    orders = Orders(str(tmp_path / "orders.sqlite"))
    orders.create_schema()
    environment = shop_environment(ledger_sandbox, tmp_path / "orders.sqlite")
    environment[celery_config.DIRECTORY] = str(tmp_path)
    worker = start_celery_worker(3, environment, tmp_path / "worker.log")
    caller = Celery("caller", set_as_current=False)
    caller.conf.update(celery_config.settings(str(tmp_path)))
    try:
        yield CeleryLedgerDeployment(caller, orders, open_ledger(environment[shop.LEDGER_DB]))
        assert not worker.health_problems(), no_problems(worker.health_problems())
    finally:
        worker.stop()


def run_task(caller: Celery, *arguments):
    return caller.send_task("shop.reconcile_payments", args=list(arguments))


def test_b180_a_celery_reconcile_task_fulfils_payments_that_became_successful_once(celery_ledger, ledger_sandbox):
    sandbox, ledger, caller = ledger_sandbox, celery_ledger.ledger, celery_ledger.caller
    became_paid = [f"B180-PAID-{index}" for index in range(6)]
    still_pending, failed = "B180-PENDING", "B180-FAILED"
    for reference in [*became_paid, still_pending]:
        sandbox.seed_transaction(transaction_object(reference, "pending", AMOUNT))
    sandbox.seed_transaction(transaction_object(failed, "failed", AMOUNT))
    for reference in [*became_paid, still_pending, failed]:
        ledger.expect(reference, sika.ExpectedPayment(amount=Decimal(AMOUNT), currency="GHS"))

    deadline = time.monotonic() + BATCH_DEADLINE_S
    first = outcome(run_task(caller, 0), "reconcile while pending", deadline)
    assert isinstance(first, dict) and (first["ready"], first["fulfilled"], first["failures"]) == ([], [], []), first
    assert sorted(first["checked"]) == sorted([*became_paid, still_pending, failed]), first

    for reference in became_paid:
        sandbox.seed_transaction(transaction_object(reference, "successful", AMOUNT))
    # Called twice at once: two pool processes reconcile the same open payments.
    runs = [run_task(caller, 0), run_task(caller, 0)]
    deadline = time.monotonic() + BATCH_DEADLINE_S
    results = [outcome(result, f"reconcile {index}", deadline) for index, result in enumerate(runs)]
    for result in results:
        assert isinstance(result, dict) and set(result) == {"checked", "ready", "fulfilled", "failures"}, result
        assert result["failures"] == [], result
        # The failed payment was decided by the first run: never checked again.
        assert failed not in result["checked"], result
        # Found paid by the run, claimed only by the task (ADR 0081): a subset of the paid ones.
        assert set(result["fulfilled"]) <= set(result["ready"]) <= set(became_paid), result
    fulfilled = [reference for result in results for reference in result["fulfilled"]]
    assert sorted(fulfilled) == sorted(became_paid), results
    shipments = celery_ledger.orders.shipments()
    assert sorted(shipments) == sorted(became_paid), shipments
    assert all(len(pids) == 1 for pids in shipments.values()), shipments

    # Later runs find nothing more to fulfil; the pending payment is still checked.
    again = outcome(run_task(caller, 0), "reconcile again", time.monotonic() + BATCH_DEADLINE_S)
    assert again == {"checked": [still_pending], "ready": [], "fulfilled": [], "failures": []}, again
    for reference in became_paid:
        record = ledger.payment(reference)
        assert record is not None and (record.claims_offered, record.fulfilled_at is not None) == (1, True), record
        assert sika.EventSource.RECONCILE in {event.source for event in record.events}, record


# --- the README's ledger code is the tested apps' code ---------------------------------------


def test_b179_the_readme_ledger_handlers_and_reconcile_task_are_the_tested_apps_code():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    handlers = [block for block in blocks if '@app.post("/ledger/webhooks/sika")' in block]
    expected = (
        handler_region("fastapi_app.py", "FastAPI ledger") + "\n" + handler_region("flask_app.py", "Flask ledger")
    )
    assert handlers == [expected]
    tasks = [block for block in blocks if "ledger.reconcile(" in block]
    assert tasks == [readme_region("celery_app.py", "Celery reconcile task")]

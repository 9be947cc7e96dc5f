"""B39: the SDK the way merchants deploy Python servers, each with its client made before the
process forks: Flask and Django under gunicorn --preload (sync and gthread workers), FastAPI
under uvicorn (asyncio, uvloop) and gunicorn's UvicornWorker, Django's async views under
uvicorn, a Celery prefork worker, `multiprocessing.Pool` and `ProcessPoolExecutor` with fork.

Every shape drives several calls at once across its workers against the sandbox (verifies of
distinct seeded references, charges, `confirm_payment`), the servers also receive real webhook
deliveries from the sandbox, and each test asserts: every answer names the reference it was
asked about (no crossed answers), every wait ends within its deadline (no hangs: a call stuck
in a broken worker ends as the shop's 5 s SDK timeout or the test's own deadline), and no
worker died, was killed or was replaced (no crashes). The apps are in `deployments/`."""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from celery import Celery

import sika
from deployments import celery_config, process_pools, shop
from deployments.driving import (
    BATCH_DEADLINE_S,
    CALL_DEADLINE_S,
    CONCURRENCY,
    Seeded,
    Shop,
    answers_by_reference,
    no_problems,
    run_at_once,
    send_webhook,
)
from deployments.orders import Fulfilment, Orders
from deployments.results import (
    FutureResult,
    charged,
    confirmed,
    crashed_workers,
    judge_pool_answers,
    judge_records,
    new_children,
    outcome,
    shut_down,
    stop_pool,
    verified,
)
from deployments.servers import Server, Shape, gunicorn, start, start_celery_worker, uvicorn
from support import KEY, Sandbox, poll, transaction_object

# The sandbox answers a USSD charge after this delay, then delivers charge.success.
CONFIRM_AFTER_MS = 150
# Ends in 3333: the simulated customer never answers, so the charge stays pending.
PHONE_NEVER_ANSWERS = "+233244123333"
# Ends in 0000: the charge succeeds, and the sandbox delivers charge.success.
PHONE_PAYS = "+233244120000"

README = Path(__file__).resolve().parents[3] / "README.md"
DEPLOYMENTS_DIR = Path(__file__).resolve().parent / "deployments"

SHAPES = [
    Shape("flask-gunicorn-sync", gunicorn("deployments.flask_app:app", "sync", 3), workers=3),
    # As many connections per worker as threads: a burst of calls spreads over both workers.
    Shape(
        "flask-gunicorn-gthread",
        gunicorn("deployments.flask_app:app", "gthread", 2, "--threads=4", "--worker-connections=4"),
        workers=2,
    ),
    Shape("fastapi-uvicorn-asyncio", uvicorn("deployments.fastapi_app:app", "asyncio")),
    Shape("fastapi-uvicorn-uvloop", uvicorn("deployments.fastapi_app:app", "uvloop")),
    Shape(
        "fastapi-gunicorn-uvicornworker",
        gunicorn("deployments.fastapi_app:app", "uvicorn.workers.UvicornWorker", 2),
        workers=2,
    ),
    Shape(
        "django-gunicorn-sync",
        gunicorn("deployments.django_app:wsgi_application", "sync", 3),
        prefix="/sync",
        workers=3,
    ),
    Shape("django-uvicorn-async", uvicorn("deployments.django_app:asgi_application", "uvloop"), prefix="/async"),
]


def tag_of(name: str) -> str:
    """A short reference prefix per shape (`flask-gunicorn-sync`: `FGS`): references are unique
    across the module's one sandbox."""
    return "".join(word[0] for word in name.split("-")).upper()


# --- the sandbox and what is seeded in it ------------------------------------------------


@pytest.fixture(scope="module")
def deployment_sandbox():
    """One sandbox for the module: every shape uses references of its own."""
    running = Sandbox("--confirm-after-ms", str(CONFIRM_AFTER_MS))
    yield running
    running.stop()


def seed_paid(sandbox: Sandbox, tag: str, count: int) -> list[Seeded]:
    """`count` successful transactions, each of its own amount (`1.10`, `2.11`, ...), so an
    answer about another one shows in its amount as well as its reference."""
    seeded = [Seeded(f"{tag}-V{index}", f"{index + 1}.{index + 10}") for index in range(count)]
    for transaction in seeded:
        sandbox.seed_transaction(transaction_object(transaction.reference, "successful", transaction.amount))
    return seeded


class Environment(dict):
    """An app's environment, its secrets (the key, a database URL's password) out of its repr:
    a failing test's traceback shows the arguments of each call."""

    def __repr__(self) -> str:
        return repr(
            {name: "<hidden>" if name in (shop.SECRET_KEY, shop.LEDGER_DB) else value for name, value in self.items()}
        )


def shop_environment(sandbox: Sandbox, orders_db: Path, ledger_db: str | None = None) -> dict[str, str]:
    """The apps' settings: the sandbox, the order book, and the ledger's database (by default
    an SQLite file beside the order book)."""
    return Environment(
        {
            shop.BASE_URL: sandbox.url,
            shop.SECRET_KEY: KEY,
            shop.ORDERS_DB: str(orders_db),
            shop.LEDGER_DB: ledger_db or str(orders_db.with_name("ledger.sqlite")),
        }
    )


# --- the HTTP servers --------------------------------------------------------------------


@dataclass
class Deployment:
    shop: Shop
    orders: Orders
    tag: str


@pytest.fixture(scope="module", params=SHAPES, ids=lambda shape: shape.name)
def deployment(request, deployment_sandbox, tmp_path_factory):
    shape = request.param
    directory = tmp_path_factory.mktemp(shape.name)
    orders = Orders(str(directory / "orders.sqlite"))
    orders.create_schema()
    server = start(shape, shop_environment(deployment_sandbox, directory / "orders.sqlite"), directory / "server.log")
    # No proxy from the environment: only the loopback servers of this test are ever called.
    # A new connection per call (none kept alive): each call is one more accept, which any
    # worker may win, so the calls spread over the workers.
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=0)
    http = httpx.Client(timeout=CALL_DEADLINE_S, trust_env=False, limits=limits)
    try:
        yield Deployment(Shop(server, http), orders, tag_of(shape.name))
    finally:
        http.close()
        server.stop()


def test_b39_concurrent_calls_across_workers_are_each_answered_about_their_reference(deployment, deployment_sandbox):
    served = deployment.shop
    seeded = seed_paid(deployment_sandbox, deployment.tag, 12)
    pending = [f"{deployment.tag}-P{index}" for index in range(4)]
    jobs = [served.verify(transaction) for transaction in seeded + seeded]
    jobs += [served.confirm(transaction.reference, transaction.amount, "CONFIRMED") for transaction in seeded[::2]]
    jobs += [served.charge(reference, PHONE_NEVER_ANSWERS) for reference in pending]
    jobs += [served.verify_unknown(f"{deployment.tag}-UNKNOWN{index}") for index in range(2)]
    # Interleaved, so calls of every kind are in flight together.
    problems = run_at_once(jobs[::2] + jobs[1::2])
    # The charges were taken: confirming them (the sandbox's customer never answers) is NotYet.
    problems += run_at_once([served.confirm(reference, "20", "NOT_YET") for reference in pending])

    problems += served.server.health_problems()
    assert not problems, no_problems(problems)
    if served.server.shape.workers:
        assert len(served.pids) >= 2, f"one worker served every call: {served.pids}"


def test_b39_real_webhook_deliveries_fulfil_each_paid_order_once(deployment, deployment_sandbox):
    sandbox, tag, orders = deployment_sandbox, deployment.tag, deployment.orders
    charged = [f"{tag}-PAY{index}" for index in range(4)]
    paid, failed, short, never_charged = f"{tag}-PAID", f"{tag}-FAILED", f"{tag}-SHORT", f"{tag}-NEVER"
    for reference in charged:
        orders.add(reference, str(shop.CHARGE_AMOUNT))
    seeded = [(paid, "successful", "25.00"), (failed, "failed", "25.00"), (short, "successful", "2.50")]
    for reference, status, amount in seeded:
        sandbox.seed_transaction(transaction_object(reference, status, amount))
    for reference in [paid, failed, short, never_charged]:
        orders.add(reference, "25.00")
    not_ours, junk = f"{tag}-NOT-OURS", f"{tag}-JUNK"
    # Each reference and what its deliveries must be answered (deliveries repeat).
    expected_answers = {
        **{reference: [200] * 3 for reference in charged},  # Fulfil
        paid: [200] * 3,  # Fulfil
        failed: [200] * 2,  # Ignore
        short: [200] * 2,  # Investigate
        never_charged: [503],  # RetryLater: within the grace, perhaps an early notification (B53)
        not_ours: [400],  # no such order
        junk: [400],  # not a notification
    }
    webhook_url = deployment.shop.server.route("/webhooks/sika")
    sandbox.settings(webhook_url=webhook_url, webhook_repeat=3)
    try:
        # The charged ones are delivered by the sandbox's own USSD simulation; the others are
        # sent meanwhile, several at once.
        jobs = [deployment.shop.charge(reference, PHONE_PAYS) for reference in charged]
        jobs += [send_webhook(sandbox, reference, times) for reference, times in [(paid, 3), (failed, 2), (short, 2)]]
        jobs += [send_webhook(sandbox, reference, 1) for reference in [never_charged, not_ours]]
        jobs += [send_webhook(sandbox, junk, 1, body="not json")]
        problems = run_at_once(jobs)
        answers = poll(
            lambda: answers_by_reference(sandbox, webhook_url),
            until=lambda answers: all(len(answers.get(reference, [])) == 3 for reference in charged),
            deadline_s=BATCH_DEADLINE_S,
        )
    finally:
        sandbox.settings(webhook_url=None, webhook_repeat=1)

    problems += [
        f"deliveries of {reference} answered {answers.get(reference)}, expected {expected}"
        for reference, expected in expected_answers.items()
        if answers.get(reference) != expected
    ]
    for reference, fulfilment in orders.fulfilments().items():
        if reference in [*charged, paid]:
            # Every delivery was fulfilled, and the order shipped by exactly one worker.
            if fulfilment.fulfil_calls != 3 or fulfilment.shipped_by_pid is None:
                problems.append(f"{reference}: {fulfilment}, expected 3 fulfil calls and one shipment")
        elif fulfilment != Fulfilment(0, None):
            problems.append(f"{reference} must not be fulfilled: {fulfilment}")
    problems += deployment.shop.server.health_problems()
    assert not problems, no_problems(problems)


# --- the README's webhook handlers are the tested apps' code -------------------------------


def readme_region(module: str, name: str) -> str:
    """The code between `# README: {name} (begin)` and `(end)` in a deployment app."""
    text = (DEPLOYMENTS_DIR / module).read_text()
    begin, end = f"# README: {name} (begin)\n", f"# README: {name} (end)\n"
    assert text.count(begin) == 1 and text.count(end) == 1, f"{module}: one {name} region"
    return text[text.index(begin) + len(begin) : text.index(end)]


def handler_region(module: str, framework: str) -> str:
    return readme_region(module, f"{framework} webhook handler")


def test_b39_the_readme_webhook_handlers_are_the_tested_apps_code():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    handlers = [block for block in blocks if '@app.post("/webhooks/sika")' in block]
    expected = handler_region("fastapi_app.py", "FastAPI") + "\n" + handler_region("flask_app.py", "Flask")
    assert handlers == [expected]


# --- Celery's prefork pool ---------------------------------------------------------------


@dataclass
class CeleryDeployment:
    worker: Server
    caller: Celery


@pytest.fixture(scope="module")
def celery_deployment(deployment_sandbox, tmp_path_factory):
    directory = tmp_path_factory.mktemp("celery")
    environment = shop_environment(deployment_sandbox, directory / "orders.sqlite")
    environment[celery_config.DIRECTORY] = str(directory)
    worker = start_celery_worker(3, environment, directory / "worker.log")
    caller = Celery("caller", set_as_current=False)
    caller.conf.update(celery_config.settings(str(directory)))
    try:
        yield CeleryDeployment(worker, caller)
    finally:
        worker.stop()


def test_b39_a_celery_prefork_worker_answers_each_task_about_its_reference(celery_deployment, deployment_sandbox):
    seeded = seed_paid(deployment_sandbox, "CEL", 9)
    pending = [f"CEL-P{index}" for index in range(3)]
    send = celery_deployment.caller.send_task
    # Through JSON (Celery's default): records as their `to_dict()`, read back by the core.
    sent = [
        (
            f"verify {s.reference}",
            send("shop.verify", args=[s.reference]),
            as_record(sika.transaction_from_json, verified(s)),
        )
        for s in seeded + seeded
    ]
    sent += [
        (f"confirm {s.reference}", send("shop.confirm", args=[s.reference, s.amount, "GHS"]), paid_json(s.reference))
        for s in seeded
    ]
    sent += [
        (
            f"charge {r}",
            send("shop.charge", args=[r, PHONE_NEVER_ANSWERS]),
            as_record(sika.charge_response_from_json, charged(r)),
        )
        for r in pending
    ]

    deadline = time.monotonic() + BATCH_DEADLINE_S
    problems = [judge_records(label, outcome(result, label, deadline), check) for label, result, check in sent]
    problems = [problem for problem in problems if problem] + celery_deployment.worker.health_problems()
    assert not problems, no_problems(problems)
    served_by = set(re.findall(r"ForkPoolWorker-\d+", celery_deployment.worker.log()))
    assert len(served_by) >= 2, f"one pool process ran every task: {served_by}"


def as_record(parse, check):
    """A check of a record that came through JSON as its `to_dict()`."""
    return lambda value: isinstance(value, dict) and check(parse(json.dumps(value)))


def paid_json(reference: str):
    def check(value) -> bool:
        return (
            isinstance(value, dict)
            and value["paid"] is True
            and sika.transaction_from_json(json.dumps(value["transaction"])).tx_ref == reference
        )

    return check


def test_b98_celery_with_its_default_json_serializer_raises_charge_outcome_unknown_typed(
    celery_deployment, deployment_sandbox
):
    deployment_sandbox.fault("/charge", "after_processing", then="reset")
    try:
        result = celery_deployment.caller.send_task("shop.charge", args=["CEL-LOST", PHONE_NEVER_ANSWERS])
        error = outcome(result, "charge CEL-LOST", time.monotonic() + BATCH_DEADLINE_S)
    finally:
        deployment_sandbox.control("clear_faults")
    assert type(error) is sika.SikaError.ChargeOutcomeUnknown, repr(error)
    assert error.reference == "CEL-LOST" and error.reason, repr(error)
    assert "CEL-LOST" in str(error) and error.args == (error.reference, error.reason, error.request_id)
    assert error.request_id.startswith("sika_"), repr(error)  # no answer came: the id Sika sent (ADR 0053)
    # The service took it: verifying the reference (in the worker too) tells what happened.
    verified_later = celery_deployment.caller.send_task("shop.verify", args=["CEL-LOST"])
    answer = outcome(verified_later, "verify CEL-LOST", time.monotonic() + BATCH_DEADLINE_S)
    assert isinstance(answer, dict), repr(answer)
    assert sika.transaction_from_json(json.dumps(answer)).tx_ref == "CEL-LOST", repr(answer)
    assert not celery_deployment.worker.health_problems(), no_problems(celery_deployment.worker.health_problems())


# --- multiprocessing.Pool and ProcessPoolExecutor with fork --------------------------------


@pytest.fixture
def parent_client(deployment_sandbox):
    """The parent's client, in the module the pools' functions use, used before any fork (a
    pooled connection, a cached bank list)."""
    client = deployment_sandbox.blocking_client(timeout_ms=shop.TIMEOUT_MS)
    client.list_banks("GH")
    process_pools.client = client
    yield client
    process_pools.client = None


def fork_pool_work(sandbox: Sandbox, tag: str):
    """What each pool test submits: (label, function, arguments, check of the value)."""
    seeded = seed_paid(sandbox, tag, 9)
    pending = [f"{tag}-P{index}" for index in range(3)]
    work: list[tuple[str, Any, tuple[Any, ...], Any]] = [
        (f"verify {s.reference}", process_pools.verify, (s.reference,), verified(s)) for s in seeded + seeded
    ]
    work += [
        (f"confirm {s.reference}", process_pools.confirm, (s.reference, s.amount, "GHS"), confirmed(s.reference))
        for s in seeded
    ]
    work += [(f"charge {r}", process_pools.charge, (r, PHONE_NEVER_ANSWERS), charged(r)) for r in pending]
    return work[::2] + work[1::2]


def test_b39_a_fork_pool_uses_the_client_its_parent_made_and_used(deployment_sandbox, parent_client):
    work = fork_pool_work(deployment_sandbox, "MP")
    assert parent_client.verify_transaction("MP-V0").tx_ref == "MP-V0"
    before = multiprocessing.active_children()
    pool = multiprocessing.get_context("fork").Pool(3)
    workers = new_children(before)
    try:
        results = [(label, pool.apply_async(function, arguments), check) for label, function, arguments, check in work]
        deadline = time.monotonic() + BATCH_DEADLINE_S
        answers = [(label, outcome(result, label, deadline), check) for label, result, check in results]
        problems, pids = judge_pool_answers(answers)
        problems += crashed_workers(workers)
    finally:
        stop_pool(pool, workers)
    assert len(workers) == 3
    assert not problems, no_problems(problems)
    assert len(pids) >= 2, f"one pool process ran every call: {pids}"


def test_b39_a_fork_process_pool_executor_returns_records_across_the_boundary(deployment_sandbox, parent_client):
    work = fork_pool_work(deployment_sandbox, "PPE")
    before = multiprocessing.active_children()
    executor = concurrent.futures.ProcessPoolExecutor(3, mp_context=multiprocessing.get_context("fork"))
    workers = []
    try:
        futures = [(label, executor.submit(function, *arguments), check) for label, function, arguments, check in work]
        workers = new_children(before)
        deadline = time.monotonic() + BATCH_DEADLINE_S
        answers = [(label, outcome(FutureResult(future), label, deadline), check) for label, future, check in futures]
        problems, pids = judge_pool_answers(answers)
        problems += crashed_workers(workers)
    finally:
        shut_down(executor, workers)
    assert len(workers) == 3
    assert not problems, no_problems(problems)
    assert len(pids) >= 2, f"one pool process ran every call: {pids}"


def test_b39_a_fork_process_pool_executor_raises_sika_errors_across_the_boundary(deployment_sandbox, parent_client):
    deployment_sandbox.fault("/charge", "after_processing", then="reset")
    before = multiprocessing.active_children()
    executor = concurrent.futures.ProcessPoolExecutor(3, mp_context=multiprocessing.get_context("fork"))
    workers = []
    try:
        futures = {
            "unknown": executor.submit(process_pools.verify, "PPE-UNKNOWN"),
            "empty": executor.submit(process_pools.verify, ""),
            "malformed": executor.submit(process_pools.verify, "bad ref!"),
            "lost charge": executor.submit(process_pools.charge, "PPE-LOST", PHONE_NEVER_ANSWERS),
        }
        workers = new_children(before)
        deadline = time.monotonic() + BATCH_DEADLINE_S
        errors = {name: outcome(FutureResult(future), name, deadline) for name, future in futures.items()}
        crashed = crashed_workers(workers)
    finally:
        shut_down(executor, workers)
        deployment_sandbox.control("clear_faults")
    expected = {
        "unknown": lambda e: isinstance(e, sika.SikaError.TransactionNotFound),
        "empty": lambda e: isinstance(e, sika.SikaError.InvalidInput) and e.field == "reference",
        "malformed": lambda e: isinstance(e, sika.SikaError.InvalidReference),
        "lost charge": lambda e: isinstance(e, sika.SikaError.ChargeOutcomeUnknown) and e.reference == "PPE-LOST",
    }
    problems = [f"{name}: got {errors[name]!r}" for name, check in expected.items() if not check(errors[name])]
    assert not problems + crashed, no_problems(problems + crashed)


# --- gunicorn's worker timeout (B101) ----------------------------------------------------


def test_b101_gunicorns_worker_timeout_signal_ends_a_blocking_call_at_once(deployment_sandbox, tmp_path):
    """A sync worker stuck in a slow call (the sandbox answers after 15 s; the SDK's deadline is
    5 s) is sent SIGABRT by the arbiter after `--timeout=2`: gunicorn's handler runs at once, the
    call is cancelled and the worker exits (`sys.exit(1)` raised from the SDK's wait), before
    the SDK's deadline and never SIGKILLed; the sandbox receives nothing more."""
    timeout_s = 2
    shape = Shape(
        "flask-gunicorn-timeout",
        gunicorn("deployments.flask_app:app", "sync", 1, f"--timeout={timeout_s}"),
        workers=1,
    )
    orders = tmp_path / "orders.sqlite"
    Orders(str(orders)).create_schema()
    server = start(shape, shop_environment(deployment_sandbox, orders), tmp_path / "server.log")
    try:
        deployment_sandbox.fault("/transaction/verify", "delay", count=1, delay_ms=15_000)
        sent_before = len(deployment_sandbox.requests())
        started = time.monotonic()
        with httpx.Client(timeout=CALL_DEADLINE_S, trust_env=False) as http:
            try:
                http.get(server.route("/verify/B101-SLOW"))
            except httpx.HTTPError:
                pass  # the worker died with the request: gunicorn answers nothing
        answered_after = time.monotonic() - started
        poll(server.log, lambda text: "Worker exiting" in text or "SIGKILL" in text, deadline_s=10)
        # A worker still stuck would be SIGKILLed by the arbiter's next check, a second later.
        time.sleep(1.5)
        log = server.log()
    finally:
        deployment_sandbox.control("clear_faults")
        server.stop()
    assert "WORKER TIMEOUT" in log, log
    assert "SIGKILL" not in log, log
    # gunicorn's handler ran inside the call (its `sys.exit(1)` raised from the SDK's wait),
    # and the worker went through its own exit.
    assert "in handle_abort" in log and "SystemExit: 1" in log, log
    assert re.search(r"Worker exiting \(pid: \d+\)", log), log
    # Before the SDK's own 5 s deadline: the signal ended the call, not the deadline.
    assert answered_after < shop.TIMEOUT_MS / 1000, answered_after
    assert len(deployment_sandbox.requests()) == sent_before + 1
    time.sleep(0.6)
    assert len(deployment_sandbox.requests()) == sent_before + 1

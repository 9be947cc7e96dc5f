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
import multiprocessing
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import celery.exceptions
import httpx
import pytest
from celery import Celery

import sika
from deployments import celery_config, process_pools, shop
from deployments.orders import Fulfilment, Orders
from deployments.servers import Server, Shape, gunicorn, start, start_celery_worker, uvicorn
from support import CONTROL_OPERATIONS, KEY, Sandbox, poll, transaction_object

# Calls in flight at once: more than any shape's workers (or threads) can take, so every
# worker serves some.
CONCURRENCY = 12
# A call's bound: past the shop's 5 s SDK timeout, so a call stuck in a broken worker shows as
# its typed error when the SDK gives up, and as "no answer" only when the worker never does.
CALL_DEADLINE_S = 15.0
# A batch's bound, all its calls together.
BATCH_DEADLINE_S = 45.0
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
    Shape("flask-gunicorn-gthread", gunicorn("deployments.flask_app:app", "gthread", 2, "--threads=4"), workers=2),
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


@dataclass(frozen=True)
class Seeded:
    reference: str
    amount: str


def seed_paid(sandbox: Sandbox, tag: str, count: int) -> list[Seeded]:
    """`count` successful transactions, each of its own amount (`1.10`, `2.11`, ...), so an
    answer about another one shows in its amount as well as its reference."""
    seeded = [Seeded(f"{tag}-V{index}", f"{index + 1}.{index + 10}") for index in range(count)]
    for transaction in seeded:
        sandbox.seed_transaction(transaction_object(transaction.reference, "successful", transaction.amount))
    return seeded


def shop_environment(sandbox: Sandbox, orders_db: Path) -> dict[str, str]:
    return {shop.BASE_URL: sandbox.url, shop.SECRET_KEY: KEY, shop.ORDERS_DB: str(orders_db)}


# --- running many calls at once, each within its deadline --------------------------------


def run_at_once(jobs) -> list[str]:
    """Runs the jobs `CONCURRENCY` at a time; each returns a problem (or None). A job that
    raises, or is still running at the batch's deadline, is a problem too."""
    problems = []
    pool = ThreadPoolExecutor(max_workers=CONCURRENCY)
    try:
        futures = {pool.submit(job): job for job in jobs}
        done, late = concurrent.futures.wait(futures, timeout=BATCH_DEADLINE_S)
        for future in done:
            try:
                problems.append(future.result())
            except Exception as error:  # noqa: BLE001  (any failure of a job is reported)
                problems.append(f"{futures[future].__name__}: {error!r}")
        problems += [f"{futures[future].__name__}: still running after {BATCH_DEADLINE_S} s" for future in late]
    finally:
        # Every call has its own deadline, so the threads end by themselves.
        pool.shutdown(wait=False, cancel_futures=True)
    return sorted(problem for problem in problems if problem)


def named(name: str):
    def rename(job):
        job.__name__ = name
        return job

    return rename


class Shop:
    """The HTTP side of a deployed shop: each call returns a problem or None, and notes the
    worker process (pid) that answered."""

    def __init__(self, server: Server, http: httpx.Client) -> None:
        self.server = server
        self.http = http
        self.pids: set[int] = set()

    def _call(self, label: str, method: str, path: str, **request) -> tuple[int, dict] | str:
        try:
            answer = self.http.request(method, self.server.route(path), **request)
        except httpx.HTTPError as error:
            return f"{label}: no answer ({type(error).__name__}: {error})"
        try:
            body = answer.json()
        except ValueError:
            return f"{label}: HTTP {answer.status_code}, not JSON: {answer.text[:200]!r}"
        if "pid" in body:
            self.pids.add(body["pid"])
        return answer.status_code, body

    def verify(self, seeded: Seeded):
        @named(f"verify {seeded.reference}")
        def job():
            answer = self._call(job.__name__, "GET", f"/verify/{seeded.reference}")
            expected = {"reference": seeded.reference, "tx_ref": seeded.reference, "amount": seeded.amount}
            return mismatch(job.__name__, answer, 200, expected)

        return job

    def verify_unknown(self, reference: str):
        @named(f"verify unknown {reference}")
        def job():
            answer = self._call(job.__name__, "GET", f"/verify/{reference}")
            return mismatch(job.__name__, answer, 404, {"reference": reference, "error": "TransactionNotFound"})

        return job

    def charge(self, reference: str, phone_number: str):
        @named(f"charge {reference}")
        def job():
            answer = self._call(
                job.__name__, "POST", "/charge", json={"reference": reference, "phone_number": phone_number}
            )
            return mismatch(job.__name__, answer, 200, {"reference": reference, "tx_ref": reference, "http_status": 200})

        return job

    def confirm(self, reference: str, amount: str, expected_check: str):
        @named(f"confirm {reference}")
        def job():
            answer = self._call(
                job.__name__, "GET", f"/confirm/{reference}", params={"amount": amount, "currency": "GHS"}
            )
            expected = {"reference": reference, "check": expected_check, "tx_ref": reference}
            return mismatch(job.__name__, answer, 200, expected)

        return job


def mismatch(label: str, answer: tuple[int, dict] | str, status: int, expected: dict) -> str | None:
    """None when the answer has `status` and the expected fields, else what was wrong."""
    if isinstance(answer, str):
        return answer
    got_status, body = answer
    got = {key: body.get(key) for key in expected}
    if (got_status, got) != (status, expected):
        return f"{label}: HTTP {got_status} {body}, expected HTTP {status} {expected}"
    return None


def no_problems(problems: list[str]) -> str:
    return f"{len(problems)} problems:\n" + "\n".join(problems)


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
    http = httpx.Client(timeout=CALL_DEADLINE_S, trust_env=False, limits=httpx.Limits(max_connections=CONCURRENCY))
    try:
        yield Deployment(Shop(server, http), orders, tag_of(shape.name))
    finally:
        http.close()
        server.stop()


def test_b39_concurrent_calls_across_workers_are_each_answered_about_their_reference(deployment, deployment_sandbox):
    shop_ = deployment.shop
    seeded = seed_paid(deployment_sandbox, deployment.tag, 12)
    pending = [f"{deployment.tag}-P{index}" for index in range(4)]
    jobs = [shop_.verify(transaction) for transaction in seeded + seeded]
    jobs += [shop_.confirm(transaction.reference, transaction.amount, "CONFIRMED") for transaction in seeded[::2]]
    jobs += [shop_.charge(reference, PHONE_NEVER_ANSWERS) for reference in pending]
    jobs += [shop_.verify_unknown(f"{deployment.tag}-UNKNOWN{index}") for index in range(2)]
    # Interleaved, so calls of every kind are in flight together.
    problems = run_at_once(jobs[::2] + jobs[1::2])
    # The charges were taken: confirming them (the sandbox's customer never answers) is NotYet.
    problems += run_at_once([shop_.confirm(reference, "20", "NOT_YET") for reference in pending])

    problems += shop_.server.health_problems()
    assert not problems, no_problems(problems)
    if shop_.server.shape.workers:
        assert len(shop_.pids) >= 2, f"one worker served every call: {shop_.pids}"


def test_b39_real_webhook_deliveries_fulfil_each_paid_order_once(deployment, deployment_sandbox):
    sandbox, tag, orders = deployment_sandbox, deployment.tag, deployment.orders
    charged = [f"{tag}-PAY{index}" for index in range(4)]
    paid, failed, short, never_charged = f"{tag}-PAID", f"{tag}-FAILED", f"{tag}-SHORT", f"{tag}-NEVER"
    for reference in charged:
        orders.add(reference, str(shop.CHARGE_AMOUNT))
    for reference, status, amount in [(paid, "successful", "25.00"), (failed, "failed", "25.00"), (short, "successful", "2.50")]:
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
        never_charged: [400],  # Reject: the service does not know it
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


def send_webhook(sandbox: Sandbox, reference: str, times: int, body: str | None = None):
    """Asks the sandbox to deliver a notification `times` times now (it answers once all were
    made, each within the sandbox's 5 s delivery time-out)."""
    spec = CONTROL_OPERATIONS["send_webhook"]
    request = {"reference": reference, "times": times, **({"body": body} if body is not None else {})}

    @named(f"send webhook {reference}")
    def job():
        try:
            answer = httpx.request(
                spec["method"], sandbox.url + spec["path"], json=request, timeout=5.0 * times + 10, trust_env=False
            )
        except httpx.HTTPError as error:
            return f"{job.__name__}: the sandbox did not answer ({error!r})"
        if answer.status_code != spec["expect"]:
            return f"{job.__name__}: HTTP {answer.status_code} {answer.text}"
        return None

    return job


def answers_by_reference(sandbox: Sandbox, url: str) -> dict[str, list]:
    """The receiver's HTTP status of each delivery to `url` (None: no answer), per reference."""
    answers: dict[str, list] = {}
    for attempt in sandbox.webhooks():
        if attempt["url"] == url:
            answers.setdefault(attempt["reference"], []).append(attempt["http_status"])
    return answers


# --- the README's webhook handlers are the tested apps' code -------------------------------


def handler_region(module: str, framework: str) -> str:
    text = (DEPLOYMENTS_DIR / module).read_text()
    begin, end = f"# README: {framework} webhook handler (begin)\n", f"# README: {framework} webhook handler (end)\n"
    assert text.count(begin) == 1 and text.count(end) == 1, f"{module}: one {framework} handler region"
    return text[text.index(begin) + len(begin) : text.index(end)]


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
    environment = {
        **shop_environment(deployment_sandbox, directory / "orders.sqlite"),
        celery_config.DIRECTORY: str(directory),
    }
    worker = start_celery_worker(3, environment, directory / "worker.log")
    caller = Celery("caller", set_as_current=False)
    caller.conf.update(celery_config.settings(str(directory)))
    try:
        yield CeleryDeployment(worker, caller)
    finally:
        worker.stop()


def outcome(result, label: str, deadline: float):
    """A task's (or an async result's) value or raised error, or a problem string when no
    answer came before `deadline` (time.monotonic())."""
    try:
        return result.get(timeout=max(0.1, deadline - time.monotonic()))
    except (concurrent.futures.TimeoutError, multiprocessing.TimeoutError, celery.exceptions.TimeoutError) as error:
        return f"{label}: no answer in time ({type(error).__name__})"
    except Exception as error:  # noqa: BLE001  (the caller judges the error it got)
        return error


def judge_records(label: str, value, check) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseException) or not check(value):
        return f"{label}: got {value!r}"
    return None


def test_b39_a_celery_prefork_worker_answers_each_task_about_its_reference(celery_deployment, deployment_sandbox):
    seeded = seed_paid(deployment_sandbox, "CEL", 9)
    pending = [f"CEL-P{index}" for index in range(3)]
    send = celery_deployment.caller.send_task
    sent = [(f"verify {s.reference}", send("shop.verify", args=[s.reference]), verified(s)) for s in seeded + seeded]
    sent += [
        (f"confirm {s.reference}", send("shop.confirm", args=[s.reference, s.amount, "GHS"]), confirmed(s.reference))
        for s in seeded
    ]
    sent += [(f"charge {r}", send("shop.charge", args=[r, PHONE_NEVER_ANSWERS]), charged(r)) for r in pending]

    deadline = time.monotonic() + BATCH_DEADLINE_S
    problems = [judge_records(label, outcome(result, label, deadline), check) for label, result, check in sent]
    problems = [problem for problem in problems if problem] + celery_deployment.worker.health_problems()
    assert not problems, no_problems(problems)
    served_by = set(re.findall(r"ForkPoolWorker-\d+", celery_deployment.worker.log()))
    assert len(served_by) >= 2, f"one pool process ran every task: {served_by}"


def test_b39_a_celery_task_raises_charge_outcome_unknown_to_its_caller(celery_deployment, deployment_sandbox):
    deployment_sandbox.fault("/charge", "after_processing", then="reset")
    try:
        result = celery_deployment.caller.send_task("shop.charge", args=["CEL-LOST", PHONE_NEVER_ANSWERS])
        error = outcome(result, "charge CEL-LOST", time.monotonic() + BATCH_DEADLINE_S)
    finally:
        deployment_sandbox.control("clear_faults")
    assert isinstance(error, sika.SikaError.ChargeOutcomeUnknown), repr(error)
    assert error.reference == "CEL-LOST"
    # The service took it: verifying the reference (in the worker too) tells what happened.
    verified_later = celery_deployment.caller.send_task("shop.verify", args=["CEL-LOST"])
    transaction = outcome(verified_later, "verify CEL-LOST", time.monotonic() + BATCH_DEADLINE_S)
    assert isinstance(transaction, sika.Transaction) and transaction.tx_ref == "CEL-LOST", repr(transaction)
    assert not celery_deployment.worker.health_problems(), no_problems(celery_deployment.worker.health_problems())


def verified(seeded: Seeded):
    return lambda value: (
        isinstance(value, sika.Transaction)
        and value.tx_ref == seeded.reference
        and value.amount == Decimal(seeded.amount)
        and str(value.amount) == seeded.amount
    )


def confirmed(reference: str):
    return lambda value: isinstance(value, sika.PaymentCheck.CONFIRMED) and value.transaction.tx_ref == reference


def charged(reference: str):
    return lambda value: isinstance(value, sika.ChargeResponse) and f'"tx_ref":"{reference}"' in (value.data_json or "")


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
    work = [(f"verify {s.reference}", process_pools.verify, (s.reference,), verified(s)) for s in seeded + seeded]
    work += [
        (f"confirm {s.reference}", process_pools.confirm, (s.reference, s.amount, "GHS"), confirmed(s.reference))
        for s in seeded
    ]
    work += [(f"charge {r}", process_pools.charge, (r, PHONE_NEVER_ANSWERS), charged(r)) for r in pending]
    return work[::2] + work[1::2]


def judge_pool_answers(answers) -> tuple[list[str], set[int]]:
    """Problems of (label, value or problem, check) answers whose values are (pid, record)."""
    problems, pids = [], set()
    for label, value, check in answers:
        if isinstance(value, tuple):
            pid, value = value
            pids.add(pid)
        problem = judge_records(label, value, check)
        if problem:
            problems.append(problem)
    return problems, pids


def crashed_workers(workers) -> list[str]:
    """Pool processes no longer alive (a crashed worker is replaced by the pool, silently)."""
    return [f"pool process {worker.pid} ended with {worker.exitcode}" for worker in workers if worker.exitcode is not None]


def test_b39_a_fork_pool_uses_the_client_its_parent_made_and_used(deployment_sandbox, parent_client):
    work = fork_pool_work(deployment_sandbox, "MP")
    assert parent_client.verify_transaction("MP-V0").tx_ref == "MP-V0"
    pool = multiprocessing.get_context("fork").Pool(3)
    try:
        workers = multiprocessing.active_children()
        results = [(label, pool.apply_async(function, arguments), check) for label, function, arguments, check in work]
        deadline = time.monotonic() + BATCH_DEADLINE_S
        answers = [(label, outcome(result, label, deadline), check) for label, result, check in results]
        problems, pids = judge_pool_answers(answers)
        problems += crashed_workers(workers)
    finally:
        pool.terminate()
        pool.join()
    assert len(workers) == 3
    assert not problems, no_problems(problems)
    assert len(pids) >= 2, f"one pool process ran every call: {pids}"


def test_b39_a_fork_process_pool_executor_returns_records_across_the_boundary(deployment_sandbox, parent_client):
    work = fork_pool_work(deployment_sandbox, "PPE")
    executor = concurrent.futures.ProcessPoolExecutor(3, mp_context=multiprocessing.get_context("fork"))
    try:
        futures = [(label, executor.submit(function, *arguments), check) for label, function, arguments, check in work]
        workers = multiprocessing.active_children()
        deadline = time.monotonic() + BATCH_DEADLINE_S
        answers = [(label, outcome(future_result(future), label, deadline), check) for label, future, check in futures]
        problems, pids = judge_pool_answers(answers)
        problems += crashed_workers(workers)
    finally:
        shut_down(executor)
    assert len(workers) == 3
    assert not problems, no_problems(problems)
    assert len(pids) >= 2, f"one pool process ran every call: {pids}"


def test_b39_a_fork_process_pool_executor_raises_sika_errors_across_the_boundary(deployment_sandbox, parent_client):
    deployment_sandbox.fault("/charge", "after_processing", then="reset")
    executor = concurrent.futures.ProcessPoolExecutor(3, mp_context=multiprocessing.get_context("fork"))
    try:
        futures = {
            "unknown": executor.submit(process_pools.verify, "PPE-UNKNOWN"),
            "empty": executor.submit(process_pools.verify, ""),
            "malformed": executor.submit(process_pools.verify, "bad ref!"),
            "lost charge": executor.submit(process_pools.charge, "PPE-LOST", PHONE_NEVER_ANSWERS),
        }
        workers = multiprocessing.active_children()
        deadline = time.monotonic() + BATCH_DEADLINE_S
        errors = {name: outcome(future_result(future), name, deadline) for name, future in futures.items()}
        crashed = crashed_workers(workers)
    finally:
        shut_down(executor)
        deployment_sandbox.control("clear_faults")
    expected = {
        "unknown": lambda e: isinstance(e, sika.SikaError.TransactionNotFound),
        "empty": lambda e: isinstance(e, sika.SikaError.InvalidInput) and e.field == "reference",
        "malformed": lambda e: isinstance(e, sika.SikaError.InvalidReference),
        "lost charge": lambda e: isinstance(e, sika.SikaError.ChargeOutcomeUnknown) and e.reference == "PPE-LOST",
    }
    problems = [f"{name}: got {errors[name]!r}" for name, check in expected.items() if not check(errors[name])]
    assert not problems + crashed, no_problems(problems + crashed)


class future_result:  # noqa: N801  (reads as the call it wraps)
    """A `concurrent.futures.Future` in the shape `outcome` reads (`get(timeout=...)`)."""

    def __init__(self, future: concurrent.futures.Future) -> None:
        self._future = future

    def get(self, timeout: float):
        return self._future.result(timeout=timeout)


def shut_down(executor: concurrent.futures.ProcessPoolExecutor) -> None:
    """Ends the executor without waiting on a worker that may be stuck: the workers are
    killed, then joined."""
    workers = list(multiprocessing.active_children())
    executor.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.kill()
        worker.join(timeout=5)

"""B37: fork safety. Both clients, created and used before the fork (a pooled connection
open, the runtimes running), keep working in processes forked by `os.fork` and by
multiprocessing's "fork" context while the parent keeps calling: each child verifies,
confirms and charges its own reference, every answer in every process is about the reference
asked, no child hangs (a deadline kills it and fails the test), and the parent still works.

B43: the clients' lifecycle. `close()`, `with` and `async with` shut a client down: its
connections close, later calls raise `SikaError.Configuration`, closing again is fine. And
nothing is printed when the interpreter exits without any cleanup, even with calls in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
import traceback
import warnings
from decimal import Decimal

import pytest

import sika
from sika import SikaError
from support import KEY, charge, poll_open_connections, settled_connections, transaction_object

CHILDREN = 3
# Far past the clients' 10 s timeout: a child still running then is hung.
DEADLINE_S = 30
PARENT = ("FORK-PARENT", "77.70")


def child_order(index: int) -> tuple[str, str]:
    """Each child's reference and amount: both its own, so a crossed answer cannot pass."""
    return f"FORK-CHILD-{index}", f"{10 + index}.{index:02d}"


def seed(sandbox, count: int) -> None:
    for reference, amount in [PARENT] + [child_order(index) for index in range(count)]:
        sandbox.seed_transaction(transaction_object(reference, "successful", amount))


def check_answer(transaction, reference: str, amount: str) -> None:
    assert (transaction.tx_ref, transaction.amount) == (reference, Decimal(amount)), (
        f"asked {reference}, got {transaction.tx_ref} of {transaction.amount}"
    )


def charged_reference(response) -> str:
    return json.loads(response.data_json)["tx_ref"]


def checks(blocking, client, reference: str, amount: str) -> None:
    """One process's checks with both clients: its own reference verified (several times,
    over whatever connection the pool gives) and confirmed, and a charge of its own each."""
    expected = sika.ExpectedPayment(amount=Decimal(amount), currency="GHS")
    for _ in range(3):
        check_answer(blocking.verify_transaction(reference), reference, amount)
    assert isinstance(blocking.confirm_payment(reference, expected), sika.PaymentCheck.CONFIRMED)
    assert charged_reference(blocking.initiate_charge(charge(f"{reference}-B"))) == f"{reference}-B"

    async def with_the_async_client():
        for _ in range(3):
            check_answer(await client.verify_transaction(reference), reference, amount)
        assert isinstance(await client.confirm_payment(reference, expected), sika.PaymentCheck.CONFIRMED)
        assert charged_reference(await client.initiate_charge(charge(f"{reference}-A"))) == f"{reference}-A"

    # A fresh event loop: the process's own (a forked child's inherited one is not usable).
    asyncio.run(asyncio.wait_for(with_the_async_client(), timeout=DEADLINE_S))


def fork_child(body) -> int:
    """Forks; the child runs `body` and leaves with `os._exit` (0 when it passed, 1 with the
    traceback on stderr), so nothing of the parent's (pytest, its threads) runs in it."""
    with warnings.catch_warnings():
        # Python 3.12+ warns that forking a multi-threaded process may deadlock: the very case.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        code = 1
        try:
            body()
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    return pid


def wait_for_children(pids: list[int], deadline_s: float = DEADLINE_S) -> list[str]:
    """Waits for every child until the deadline; kills those still running. The failures."""
    deadline = time.monotonic() + deadline_s
    failures = []
    for pid in pids:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                if code != 0:
                    failures.append(f"child {pid} ended with {code} (its traceback is on stderr)")
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                failures.append(f"child {pid} hung: killed at the deadline")
                break
            time.sleep(0.01)
    return failures


@contextlib.contextmanager
def parent_calling(blocking, client):
    """The parent keeps calling with both clients (a thread each; the async one on its own
    event loop) while the body forks; every answer must be about the parent's reference."""
    stop = threading.Event()
    calls = {"blocking": 0, "async": 0}
    errors: list[BaseException] = []

    def blocking_calls():
        while not stop.is_set():
            check_answer(blocking.verify_transaction(PARENT[0]), *PARENT)
            calls["blocking"] += 1

    def async_calls():
        async def loop():
            while not stop.is_set():
                check_answer(await client.verify_transaction(PARENT[0]), *PARENT)
                calls["async"] += 1

        asyncio.run(loop())

    def recording(target):
        def run():
            try:
                target()
            except BaseException as error:
                errors.append(error)

        return threading.Thread(target=run)

    threads = [recording(blocking_calls), recording(async_calls)]
    for thread in threads:
        thread.start()
    try:
        yield calls
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=DEADLINE_S)
    assert not errors, errors
    assert calls["blocking"] > 0 and calls["async"] > 0, f"the parent did not call while forking: {calls}"


def used_clients(sandbox):
    """Both clients, each with a pooled connection and a runtime that has run."""
    blocking, client = sandbox.blocking_client(), sandbox.client()
    check_answer(blocking.verify_transaction(PARENT[0]), *PARENT)
    check_answer(asyncio.run(client.verify_transaction(PARENT[0])), *PARENT)
    return blocking, client


def charges_sent(sandbox) -> int:
    return sum(1 for request in sandbox.requests() if request["path"] == "/charge")


def test_b37_os_fork_children_of_a_process_using_both_clients_get_their_own_answers(sandbox):
    seed(sandbox, CHILDREN)
    blocking, client = used_clients(sandbox)
    with parent_calling(blocking, client):
        pids = []
        for index in range(CHILDREN):
            pids.append(fork_child(lambda index=index: checks(blocking, client, *child_order(index))))
            time.sleep(0.005)  # the forks land at different points of the parent's calls
        failures = wait_for_children(pids)
    assert not failures, failures
    checks(blocking, client, *PARENT)
    # Every charge of every process reached the service once (two per process).
    assert charges_sent(sandbox) == 2 * (CHILDREN + 1)


# What multiprocessing's workers inherit by fork: the parent's clients, already used.
_inherited: dict = {}


def _worker_checks(index: int) -> tuple[int, int]:
    checks(_inherited["blocking"], _inherited["client"], *child_order(index))
    return index, os.getpid()


def test_b37_multiprocessing_fork_workers_use_the_inherited_clients(sandbox):
    seed(sandbox, CHILDREN)
    _inherited["blocking"], _inherited["client"] = used_clients(sandbox)
    try:
        with parent_calling(_inherited["blocking"], _inherited["client"]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                pool = multiprocessing.get_context("fork").Pool(CHILDREN)
            try:
                done = pool.map_async(_worker_checks, range(CHILDREN)).get(timeout=DEADLINE_S)
            finally:
                pool.terminate()
                pool.join()
        assert sorted(index for index, _ in done) == list(range(CHILDREN))
        assert os.getpid() not in {pid for _, pid in done}, "the checks ran in the workers"
        checks(_inherited["blocking"], _inherited["client"], *PARENT)
        assert charges_sent(sandbox) == 2 * (CHILDREN + 1)
    finally:
        _inherited.clear()


class RetryWaits(logging.Handler):
    """The waits the SDK announced before each retry ("retry N in X ms", its WARNING records)."""

    def __init__(self):
        super().__init__()
        self.waits: list[int] = []

    def emit(self, record):
        announced = re.search(r"; retry \d+ in (\d+) ms$", record.getMessage())
        if announced:
            self.waits.append(int(announced.group(1)))

    def taken(self) -> list[int]:
        sika.flush_log_records(10_000)  # records reach handlers on the SDK's logging thread
        waits, self.waits = self.waits, []
        return waits


def test_b37_forked_workers_draw_their_own_retry_waits(sandbox, tmp_path):
    """A gunicorn master with --preload that has retried once forks its workers; each meets
    the same outage. Workers that inherited one jitter state would retry it in step."""
    retries = 3
    seed(sandbox, 0)
    waits = RetryWaits()
    logger = logging.getLogger("sika")
    logger.addHandler(waits)
    try:
        blocking = sandbox.blocking_client(max_retries=retries)
        sandbox.fault("/transaction/verify", "status", count=1, status=503)
        check_answer(blocking.verify_transaction(PARENT[0]), *PARENT)
        assert len(waits.taken()) == 1, "the parent retried once"
        drawn = []
        # One worker after the other, so the sandbox's fault count is each one's alone.
        for worker in range(2):
            sandbox.fault("/transaction/verify", "status", count=retries, status=503)
            report = tmp_path / f"waits-{worker}.json"

            def worker_calls(report=report):
                check_answer(blocking.verify_transaction(PARENT[0]), *PARENT)
                report.write_text(json.dumps(waits.taken()))

            assert wait_for_children([fork_child(worker_calls)]) == []
            drawn.append(json.loads(report.read_text()))
    finally:
        logger.removeHandler(waits)
    assert [len(worker) for worker in drawn] == [retries, retries], drawn
    # Waits in [0, 200), [0, 400) and [0, 800) ms: equal by chance once in 64 million.
    assert drawn[0] != drawn[1], f"two forked workers retried an outage in step: {drawn}"


def test_b43_close_shuts_the_blocking_client_down(sandbox):
    seed(sandbox, 0)
    client = sandbox.blocking_client()
    baseline = settled_connections(sandbox)
    check_answer(client.verify_transaction(PARENT[0]), *PARENT)
    client.close()
    after = poll_open_connections(sandbox, lambda n: n == baseline["open"])
    assert after == baseline["open"], "close() closed the pooled connection"
    with pytest.raises(SikaError.Configuration) as raised:
        client.verify_transaction(PARENT[0])
    assert str(raised.value) == "configuration error: the client has been shut down"
    client.close()  # again: nothing happens
    with pytest.raises(SikaError.Configuration):
        client.list_banks("GH")
    assert len(sandbox.requests()) == 1, "nothing sent after close()"


def test_b43_with_shuts_the_blocking_client_down(sandbox):
    seed(sandbox, 0)
    with sandbox.blocking_client() as client:
        check_answer(client.verify_transaction(PARENT[0]), *PARENT)
    with pytest.raises(SikaError.Configuration):
        client.verify_transaction(PARENT[0])
    client.shutdown()


async def test_b43_async_with_and_close_shut_the_async_client_down(sandbox):
    seed(sandbox, 0)
    baseline = settled_connections(sandbox)
    async with sandbox.client() as client:
        check_answer(await client.verify_transaction(PARENT[0]), *PARENT)
    after = await asyncio.to_thread(poll_open_connections, sandbox, lambda n: n == baseline["open"])
    assert after == baseline["open"], "leaving `async with` closed the pooled connection"
    with pytest.raises(SikaError.Configuration):
        await client.verify_transaction(PARENT[0])
    other = sandbox.client()
    other.close()
    other.close()
    with pytest.raises(SikaError.Configuration):
        await other.list_banks("GH")
    assert len(sandbox.requests()) == 1, "nothing sent after the shutdown"


# Scripts that exit without any cleanup, given the sandbox's URL and the key as arguments.
EXIT_PREAMBLE = """
import asyncio, sys, threading, time, types

def config():
    return sika.ClientConfig(secret_key=sika.SecretKey(sys.argv[2]), base_url=sys.argv[1], timeout_ms=10_000)
"""
EXIT_SCRIPTS = {
    # The async call's wake-up comes from one of the SDK's threads just as the script ends.
    "both clients used": """
        import sika
        blocking, client = sika.BlockingClient(config()), sika.Client(config())
        blocking.list_banks("GH")
        asyncio.run(client.list_banks("GH"))
    """,
    "calls in flight in threads": """
        import sika
        blocking, client = sika.BlockingClient(config()), sika.Client(config())
        blocking.list_banks("GH")
        asyncio.run(client.list_banks("GH"))
        # Answered only after the exit (the sandbox delays these).
        threading.Thread(target=lambda: blocking.verify_transaction("SLOW-1"), daemon=True).start()
        threading.Thread(target=lambda: asyncio.run(client.verify_transaction("SLOW-2")), daemon=True).start()
        time.sleep(0.2)
    """,
    # An app's module, imported before sika, that imports it later and holds the clients, and
    # that outlives the garbage collection at exit (a daemon thread refers to it): CPython
    # wipes the globals of modules imported later (the bindings) before this one's.
    "clients held by a module alive at exit": """
        holder = types.ModuleType("holder")
        sys.modules["holder"] = holder
        import sika
        holder.sika = sika
        holder.clients = [sika.BlockingClient(config()), sika.Client(config())]
        holder.clients[0].list_banks("GH")
        asyncio.run(holder.clients[1].list_banks("GH"))
        threading.Thread(target=lambda module=holder: time.sleep(60), daemon=True).start()
    """,
}


@pytest.mark.parametrize("scenario", list(EXIT_SCRIPTS))
def test_b43_nothing_is_printed_at_interpreter_exit(sandbox, tmp_path, scenario):
    for reference in ("SLOW-1", "SLOW-2"):
        sandbox.seed_transaction(transaction_object(reference, "successful", "1.00"))
    sandbox.fault("/transaction/verify", "delay", count=100, delay_ms=5_000)
    script = tmp_path / "exit_without_cleanup.py"
    script.write_text(EXIT_PREAMBLE + textwrap.dedent(EXIT_SCRIPTS[scenario]))
    # The wake-up race at exit is a matter of timing: several runs, side by side.
    runs = [
        subprocess.Popen(
            [sys.executable, str(script), sandbox.url, KEY], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(6)
    ]
    for run in runs:
        stdout, stderr = run.communicate(timeout=DEADLINE_S)
        assert (run.returncode, stdout, stderr) == (0, "", ""), f"{scenario}: exit {run.returncode}\n{stderr}"

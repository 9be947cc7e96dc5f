"""Issue 25 item 3 (ADR 0044): the core's records reach `logging` on the SDK's logging thread,
off the request path.

B82: a handler that takes 200 ms a record never makes a call exceed its deadline.
B83: a full queue drops records, counts them and reports the count in a later record.
B84: forks while the SDK logs DEBUG to a file with calls in flight never hang the child.
B85: records carry their facts as `extra` attributes; Investigate and Reject are WARNINGs.
The parameters come from the `slow_log_handler` scenario of tests/fixtures/faults.json."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
import time
from decimal import Decimal

import pytest

import sika
from support import scenario, transaction_object

SLOW = scenario("slow_log_handler")


class Kept(logging.Handler):
    """Keeps every record; optionally waits `delay_s` in each, or until `release` is set."""

    def __init__(self, delay_s: float = 0.0, release: threading.Event | None = None):
        super().__init__()
        self.records: list[logging.LogRecord] = []
        self.delay_s = delay_s
        self.gate = release
        self.threads: set[str] = set()

    def emit(self, record):
        # The OS thread's name: a Rust thread is a `Dummy-N` to `threading`.
        with open(f"/proc/self/task/{threading.get_native_id()}/comm") as comm:
            self.threads.add(comm.read().strip())
        if self.gate is not None:
            self.gate.wait(30)
        if self.delay_s:
            time.sleep(self.delay_s)
        self.records.append(record)


@pytest.fixture
def sika_at_debug():
    """The `sika` logger at DEBUG with the handlers a test adds; put back as it was after."""
    logger = logging.getLogger("sika")
    saved = logger.level
    added: list[logging.Handler] = []

    def add(handler: logging.Handler) -> logging.Handler:
        logger.addHandler(handler)
        added.append(handler)
        return handler

    logger.setLevel(logging.DEBUG)
    yield add
    for handler in added:
        logger.removeHandler(handler)
    logger.setLevel(saved)
    sika.flush_log_records(10_000)


async def test_b82_a_slow_handler_never_makes_a_call_exceed_its_deadline(sandbox, sika_at_debug):
    reference = "B82-1"
    sandbox.seed_transaction(transaction_object(reference, "successful", "5"))
    slow = sika_at_debug(Kept(delay_s=SLOW["handler_delay_ms"] / 1000))
    client = sandbox.client(timeout_ms=SLOW["deadline_ms"], max_retries=0)
    deadline_s = SLOW["deadline_ms"] / 1000
    slack_s = SLOW["slack_ms"] / 1000

    async def one() -> float:
        started = time.monotonic()
        transaction = await client.verify_transaction(reference)
        assert transaction.tx_ref == reference
        return time.monotonic() - started

    durations = await asyncio.gather(*(one() for _ in range(SLOW["calls"])))
    late = [round(d, 2) for d in durations if d > deadline_s + slack_s]
    assert late == [], f"{len(late)} of {SLOW['calls']} calls ended after their deadline: {late}"
    # The records still arrive, in the handler, on the SDK's logging thread.
    sika.flush_log_records(1_000)
    assert slow.records, "no record reached the slow handler"
    assert slow.threads == {"sika-log"}, slow.threads


def test_b83_a_full_queue_drops_and_reports_how_many_in_a_later_record(sandbox, sika_at_debug):
    reference = "B83-1"
    sandbox.seed_transaction(transaction_object(reference, "successful", "5"))
    release = threading.Event()
    stalled = sika_at_debug(Kept(release=release))
    client = sandbox.blocking_client(max_retries=0)
    calls = SLOW["queue_capacity"] + 76
    started = time.monotonic()
    for _ in range(calls):
        client.verify_transaction(reference)
    elapsed = time.monotonic() - started
    release.set()
    sika.flush_log_records(30_000)
    lines = [r for r in stalled.records if r.getMessage().startswith(f"GET /transaction/verify/{reference} ")]
    reports = [r for r in stalled.records if r.dropped]
    assert len(reports) == 1, [r.getMessage() for r in reports]
    report = reports[0]
    assert report.levelno == logging.WARNING and report.name == "sika"
    assert f"{report.dropped} log records of the SDK were dropped" in report.getMessage()
    assert len(lines) + report.dropped == calls, (len(lines), report.dropped)
    assert report.dropped >= calls - SLOW["queue_capacity"] - 1
    # The stalled handler held no call: all of them ran while it waited (30 s at most).
    assert elapsed < 25, elapsed


def test_b84_the_logging_thread_keeps_one_python_thread_state(sandbox, sika_at_debug):
    # A thread state made per record was the window in which a fork left the child waiting for
    # ever (CPython 3.11 takes its runtime lock in the child before resetting it): the logging
    # thread keeps one, so what it stores in a `threading.local` outlives the record.
    reference = "B84-2"
    sandbox.seed_transaction(transaction_object(reference, "successful", "5"))
    kept = threading.local()
    seen: list[tuple[int, str | None]] = []

    class Probe(logging.Handler):
        def emit(self, record):
            seen.append((threading.get_native_id(), getattr(kept, "mark", None)))
            kept.mark = "kept"

    sika_at_debug(Probe())
    client = sandbox.blocking_client(max_retries=0)
    for _ in range(3):
        client.verify_transaction(reference)
    sika.flush_log_records(10_000)
    assert len(seen) >= 3, seen
    assert len({thread for thread, _ in seen}) == 1, "records reach the handlers on one thread"
    assert [mark for _, mark in seen] == [None] + ["kept"] * (len(seen) - 1), seen


def test_b84_forks_while_the_sdk_logs_to_a_file_never_hang_the_child(sandbox, sika_at_debug, tmp_path):
    reference = "B84-1"
    sandbox.seed_transaction(transaction_object(reference, "successful", "5"))
    file_handler = sika_at_debug(logging.FileHandler(tmp_path / "sika.log"))
    client = sandbox.blocking_client(max_retries=0)
    stop = threading.Event()

    def traffic():
        while not stop.is_set():
            try:
                client.verify_transaction(reference)
            except sika.SikaError:
                pass

    threads = [threading.Thread(target=traffic, daemon=True) for _ in range(4)]
    for thread in threads:
        thread.start()
    hangs = 0
    try:
        time.sleep(0.2)  # calls in flight, records on their way to the file
        for index in range(SLOW["forks"]):
            pid = os.fork()
            if pid == 0:
                try:
                    logging.getLogger("sika.test").warning("child %d", index)
                    file_handler.flush()
                finally:
                    os._exit(0)
            deadline = time.monotonic() + SLOW["child_timeout_ms"] / 1000
            while True:
                done, _status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    hangs += 1
                    break
                time.sleep(0.005)
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
    assert hangs == 0, f"{hangs} of {SLOW['forks']} children hung"
    sika.flush_log_records(10_000)
    logged = (tmp_path / "sika.log").read_text()
    assert f"GET /transaction/verify/{reference} -> HTTP 200" in logged
    assert logged.count("child ") == SLOW["forks"], logged.count("child ")


async def test_b85_records_carry_their_facts_as_attributes(sandbox, make_client, sika_at_debug):
    kept = sika_at_debug(Kept())
    reference = "B85-1"
    sandbox.seed_transaction(transaction_object(reference, "successful", "5"))
    await make_client(max_retries=0).verify_transaction(reference)
    sika.flush_log_records(10_000)
    [line] = [r for r in kept.records if r.getMessage().startswith(f"GET /transaction/verify/{reference} ")]
    assert (line.operation, line.reference, line.http_status, line.attempt) == ("verify_transaction", reference, 200, 1)
    assert isinstance(line.duration_ms, int) and line.getMessage().endswith(f" in {line.duration_ms} ms")
    assert line.dropped is None
    assert line.name == "sika.transport" and line.levelno == logging.DEBUG
    # B207: the id the sandbox received, as an attribute of its own.
    assert line.request_id == sandbox.requests()[-1]["request_id"] and line.request_id.endswith("_1")


async def test_b85_investigate_and_reject_are_logged_at_warning(sandbox, make_client, sika_at_debug):
    kept = sika_at_debug(Kept())
    client = make_client(max_retries=0)
    reference = "B85-INVESTIGATE"
    sandbox.seed_transaction(transaction_object(reference, "successful", "5"))
    body = f'{{"event":"charge.success","data":{{"reference":"{reference}"}}}}'.encode()
    investigate = await client.handle_webhook(body, sika.ExpectedPayment(amount=Decimal("50"), currency="GHS"))
    assert isinstance(investigate, sika.WebhookDecision.INVESTIGATE), investigate
    reject = await client.handle_webhook(b"not json", sika.ExpectedPayment(amount=Decimal("5"), currency="GHS"))
    assert isinstance(reject, sika.WebhookDecision.REJECT), reject
    sika.flush_log_records(10_000)
    decisions = [r for r in kept.records if r.operation == "handle_webhook"]
    warnings = [(r.reference, r.getMessage()) for r in decisions if r.levelno == logging.WARNING]
    assert warnings == [
        (reference, f"webhook for {reference}: Investigate: {investigate.reason}"),
        (None, f"webhook for no reference: Reject: {reject.reason}"),
    ], warnings

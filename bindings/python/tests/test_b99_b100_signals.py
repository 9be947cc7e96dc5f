"""B99, B100: a signal with a Python handler interrupts a `BlockingClient` call at once, and the
call is cancelled: SIGINT 1 s into a 15 s call (the sandbox answers slowly) gives
`KeyboardInterrupt` before 1.2 s, the connection is closed and nothing more is sent; the same in
`await_final_status`; a handler that returns lets the call finish (issue 27, ADR 0042).
(B101, gunicorn's worker-timeout SIGABRT, is in test_deployments.py; SIGTERM and SIGQUIT,
B112 and B113, in test_b112_b113_sigterm_sigquit.py.)"""

from __future__ import annotations

import signal
import threading
import time
from decimal import Decimal

import pytest

import sika
from support import (
    SIGNAL_AT_S,
    SIGNAL_ENDED_BY_S,
    assert_nothing_more_sent,
    record_watched_calls,
    settled_connections,
    signal_in,
    transaction_object,
)


@pytest.mark.usefixtures("sigint_raises")
def test_b99_sigint_interrupts_a_slow_blocking_call_and_cancels_it(sandbox):
    client = sandbox.blocking_client(timeout_ms=15_000, max_retries=0)
    baseline_open = settled_connections(sandbox)["open"]
    sandbox.clear_requests()
    sandbox.fault("/transaction/verify", "delay", count=1, delay_ms=15_000)
    started = time.monotonic()
    timer = signal_in(SIGNAL_AT_S)
    try:
        with pytest.raises(KeyboardInterrupt):
            client.verify_transaction("B99-SLOW")
        elapsed = time.monotonic() - started
    finally:
        timer.cancel()
    assert SIGNAL_AT_S <= elapsed < SIGNAL_ENDED_BY_S, elapsed
    assert_nothing_more_sent(sandbox, 1, baseline_open)
    # The client still works.
    sandbox.seed_transaction(transaction_object("B99-OK", "successful", "100.10"))
    assert client.verify_transaction("B99-OK").tx_ref == "B99-OK"


@pytest.mark.usefixtures("sigint_raises")
def test_b100_sigint_interrupts_await_final_status_and_no_check_follows(sandbox):
    client = sandbox.blocking_client(timeout_ms=15_000)
    reference = "B100-PENDING"
    sandbox.seed_transaction(transaction_object(reference, "pending", "100.10"))
    baseline_open = settled_connections(sandbox)["open"]
    sandbox.clear_requests()
    options = sika.AwaitOptions(initial_delay_ms=0, interval_ms=100, max_interval_ms=100, timeout_ms=15_000)
    started = time.monotonic()
    timer = signal_in(SIGNAL_AT_S)
    try:
        with pytest.raises(KeyboardInterrupt):
            client.await_final_status(reference, options)
        elapsed = time.monotonic() - started
    finally:
        timer.cancel()
    assert SIGNAL_AT_S <= elapsed < SIGNAL_ENDED_BY_S, elapsed
    checks = len(sandbox.requests())
    assert checks >= 3, checks  # it was checking every 100 ms until the signal
    # (An idle pooled connection of an earlier check may stay open.)
    assert_nothing_more_sent(sandbox, checks, baseline_open + 1)


def test_b99_a_handler_that_returns_lets_the_call_finish(sandbox):
    client = sandbox.blocking_client(timeout_ms=15_000)
    reference = "B99-HANDLED"
    sandbox.seed_transaction(transaction_object(reference, "successful", "100.10"))
    sandbox.fault("/transaction/verify", "delay", count=1, delay_ms=800)
    handled = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: handled.append(time.monotonic()))
    started = time.monotonic()
    timer = signal_in(0.3, signal.SIGUSR1)
    try:
        check = client.confirm_payment(reference, sika.ExpectedPayment(amount=Decimal("100.10"), currency="GHS"))
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR1, previous)
    assert isinstance(check, sika.PaymentCheck.CONFIRMED)
    # The handler ran while the call waited, not after it.
    assert len(handled) == 1 and handled[0] - started < 0.7, [t - started for t in handled]


def test_b99_only_the_main_thread_waits_interruptibly(sandbox, monkeypatch):
    # Signal handlers run on the main thread only, so a call on another thread does not watch
    # for them: the core's own blocking call, on its caller's thread (ADR 0070).
    waits = record_watched_calls(monkeypatch)
    client = sandbox.blocking_client()
    sandbox.seed_transaction(transaction_object("B99-THREADS", "successful", "100.10"))
    results: list[str] = []
    worker = threading.Thread(target=lambda: results.append(client.verify_transaction("B99-THREADS").tx_ref))
    worker.start()
    worker.join(30)
    assert results == ["B99-THREADS"]
    assert waits == []
    assert client.verify_transaction("B99-THREADS").tx_ref == "B99-THREADS"
    assert waits == [threading.main_thread()]

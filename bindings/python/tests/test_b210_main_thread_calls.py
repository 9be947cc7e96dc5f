"""B210: a blocking call on the main thread is the core's own call, on that thread, and still
gives way to signals (ADR 0070): it watches the pipe CPython's `signal.set_wakeup_fd` writes to,
so no thread of the SDK's runtime runs Python for it; the wakeup fd and `sys.unraisablehook` it
replaces for the call are put back after it, and another library's wakeup fd learns of the
signals that came meanwhile. (That a signal's handler interrupts or lets the call go on is B99,
B100, B112 and B168.)"""

from __future__ import annotations

import signal
import socket
import sys
import time

from support import THREAD_STATE_IDS, run_fresh_interpreter, signal_in, transaction_object

# Run in a fresh interpreter, so no earlier test made the runtime threads' Python states.
CHILD = THREAD_STATE_IDS + r"""
import json, sys
import sika

url, key, reference = sys.argv[1:4]
config = sika.ClientConfig(secret_key=sika.SecretKey(key), base_url=url, timeout_ms=10_000, max_retries=0)
client = sika.BlockingClient(config)
before = state_ids()
for _ in range(50):
    assert client.verify_transaction(reference).tx_ref == reference
print(json.dumps({"before": sorted(before), "after": sorted(state_ids())}))
"""


def test_b210_no_thread_of_the_sdk_runs_python_for_a_main_thread_call(sandbox):
    # ADR 0042's first form completed each call on the SDK's runtime threads, which took the
    # GIL (and, ADR 0062, kept a Python thread state each) to wake the main thread.
    states = run_fresh_interpreter(sandbox, CHILD, "B210-MAIN")
    assert states["after"] == states["before"], states


def test_b210_the_wakeup_fd_and_unraisable_hook_are_put_back_and_told_of_the_signals(sandbox):
    client = sandbox.blocking_client(timeout_ms=15_000)
    reference = "B210-WAKEUP"
    sandbox.seed_transaction(transaction_object(reference, "successful", "100.10"))
    sandbox.fault("/transaction/verify", "delay", count=1, delay_ms=800)
    theirs, other_end = socket.socketpair()
    theirs.setblocking(False)
    other_end.setblocking(False)
    handled: list[float] = []
    previous_handler = signal.signal(signal.SIGUSR1, lambda signum, frame: handled.append(time.monotonic()))
    previous_fd = signal.set_wakeup_fd(theirs.fileno())
    hook = sys.unraisablehook
    started = time.monotonic()
    timer = signal_in(0.3, signal.SIGUSR1)
    try:
        assert client.verify_transaction(reference).tx_ref == reference
        assert signal.set_wakeup_fd(-1) == theirs.fileno(), "the library's wakeup fd is back"
        assert sys.unraisablehook is hook
    finally:
        timer.cancel()
        signal.set_wakeup_fd(previous_fd)
        signal.signal(signal.SIGUSR1, previous_handler)
    assert len(handled) == 1 and handled[0] - started < 0.7, [t - started for t in handled]
    # What CPython wrote to the call's pipe was passed on: the signal's number, once.
    assert other_end.recv(16) == bytes([signal.SIGUSR1])
    theirs.close()
    other_end.close()


def test_b210_a_handler_may_make_a_blocking_call_of_its_own(sandbox):
    # The handlers run outside the core's runtime, so a handler's own call is a call like any.
    client = sandbox.blocking_client(timeout_ms=15_000)
    for reference in ("B210-OUTER", "B210-INNER"):
        sandbox.seed_transaction(transaction_object(reference, "successful", "100.10"))
    sandbox.fault("/transaction/verify/B210-OUTER", "delay", count=1, delay_ms=800)
    inner: list[str] = []
    hook = sys.unraisablehook

    def handler(signum: int, frame: object) -> None:
        inner.append(client.verify_transaction("B210-INNER").tx_ref)
        assert sys.unraisablehook is not hook, "inside the outer call, its hook is set"

    previous_handler = signal.signal(signal.SIGUSR1, handler)
    timer = signal_in(0.3, signal.SIGUSR1)
    try:
        assert client.verify_transaction("B210-OUTER").tx_ref == "B210-OUTER"
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR1, previous_handler)
    assert inner == ["B210-INNER"]
    assert sys.unraisablehook is hook

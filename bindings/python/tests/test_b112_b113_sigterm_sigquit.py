"""B112, B113: the signals a host sends to stop a worker, SIGTERM and SIGQUIT, during a
`BlockingClient` call on the main thread (issue 27, item 1; ADR 0042). A Python handler that
raises `SystemExit`, as gunicorn's worker does for SIGQUIT (`sys.exit(0)`) and as a container's
entry point often does for SIGTERM, interrupts the call and `await_final_status` within the bound
and cancels them (B112); with no handler, the default disposition still ends the process at once
(B113). SIGINT is B99/B100 (test_b99_b100_signals.py), gunicorn's SIGABRT is B101."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import sika
from support import (
    KEY,
    SIGNAL_AT_S,
    SIGNAL_ENDED_BY_S,
    assert_nothing_more_sent,
    poll,
    settled_connections,
    signal_in,
    transaction_object,
)

STOP_SIGNALS = [pytest.param(signal.SIGTERM, id="SIGTERM"), pytest.param(signal.SIGQUIT, id="SIGQUIT")]
# From the signal to the end of the call (or of the process): the 100 ms, made generous
# for a loaded machine as in B99.
SIGNAL_BOUND_S = SIGNAL_ENDED_BY_S - SIGNAL_AT_S
AWAIT_OPTIONS = {"initial_delay_ms": 0, "interval_ms": 100, "max_interval_ms": 100, "timeout_ms": 15_000}


class _Stop:
    """A handler that raises `SystemExit` naming its signal, installed for the test only."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.ran: list[int] = []

    def __enter__(self) -> _Stop:
        self.previous = signal.signal(self.signum, self.handle)
        return self

    def __exit__(self, *exc_info: object) -> None:
        signal.signal(self.signum, self.previous)

    def handle(self, signum: int, frame: object) -> None:
        self.ran.append(signum)
        sys.exit(f"stopped by {signal.Signals(signum).name}")


@pytest.mark.parametrize("signum", STOP_SIGNALS)
def test_b112_a_raising_stop_handler_interrupts_a_slow_blocking_call(sandbox, signum):
    client = sandbox.blocking_client(timeout_ms=15_000, max_retries=0)
    baseline_open = settled_connections(sandbox)["open"]
    sandbox.clear_requests()
    sandbox.fault("/transaction/verify", "delay", count=1, delay_ms=15_000)
    with _Stop(signum) as stop:
        started = time.monotonic()
        timer = signal_in(SIGNAL_AT_S, signum)
        try:
            with pytest.raises(SystemExit) as exited:
                client.verify_transaction("B112-SLOW")
            elapsed = time.monotonic() - started
        finally:
            timer.cancel()
    assert stop.ran == [signum]
    assert exited.value.code == f"stopped by {signal.Signals(signum).name}"
    assert SIGNAL_AT_S <= elapsed < SIGNAL_ENDED_BY_S, elapsed
    assert_nothing_more_sent(sandbox, 1, baseline_open)
    # The client still works.
    sandbox.seed_transaction(transaction_object("B112-OK", "successful", "100.10"))
    assert client.verify_transaction("B112-OK").tx_ref == "B112-OK"


@pytest.mark.parametrize("signum", STOP_SIGNALS)
def test_b112_a_raising_stop_handler_interrupts_await_final_status(sandbox, signum):
    client = sandbox.blocking_client(timeout_ms=15_000)
    reference = "B112-PENDING"
    sandbox.seed_transaction(transaction_object(reference, "pending", "100.10"))
    baseline_open = settled_connections(sandbox)["open"]
    sandbox.clear_requests()
    with _Stop(signum) as stop:
        started = time.monotonic()
        timer = signal_in(SIGNAL_AT_S, signum)
        try:
            with pytest.raises(SystemExit):
                client.await_final_status(reference, sika.AwaitOptions(**AWAIT_OPTIONS))
            elapsed = time.monotonic() - started
        finally:
            timer.cancel()
    assert stop.ran == [signum]
    assert SIGNAL_AT_S <= elapsed < SIGNAL_ENDED_BY_S, elapsed
    checks = len(sandbox.requests())
    assert checks >= 3, checks  # it was checking every 100 ms until the signal
    # (An idle pooled connection of an earlier check may stay open.)
    assert_nothing_more_sent(sandbox, checks, baseline_open + 1)


# A merchant's script: a blocking client made as its README says, one call on the main thread.
CHILD = textwrap.dedent(
    """
    import sys
    import sika

    url, key, call = sys.argv[1:]
    client = sika.BlockingClient(
        sika.ClientConfig(secret_key=sika.SecretKey(key), base_url=url, timeout_ms=15_000, max_retries=0)
    )
    print("calling", flush=True)
    if call == "verify":
        client.verify_transaction("B113-SLOW")
    else:
        client.await_final_status("B113-PENDING", sika.AwaitOptions(**AWAIT_OPTIONS))
    print("returned", flush=True)
    """
).replace("**AWAIT_OPTIONS", ", ".join(f"{name}={value}" for name, value in AWAIT_OPTIONS.items()))


def _default_dispositions() -> None:
    # The child starts as a process manager would start it: SIGTERM and SIGQUIT at their default
    # (an inherited "ignore" would survive exec), and no core file for SIGQUIT.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@pytest.mark.parametrize("call", ["verify", "await_final_status"])
@pytest.mark.parametrize("signum", STOP_SIGNALS)
def test_b113_the_default_stop_disposition_ends_a_process_in_a_blocking_call(sandbox, signum, call):
    sandbox.seed_transaction(transaction_object("B113-PENDING", "pending", "100.10"))
    sandbox.fault("/transaction/verify/B113-SLOW", "delay", count=1, delay_ms=15_000)
    baseline_open = settled_connections(sandbox)["open"]
    sandbox.clear_requests()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, sandbox.url, KEY, call],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_dispositions,
    )
    try:
        # The call is under way: its request reached the sandbox (three checks for the wait).
        wanted = 1 if call == "verify" else 3
        arrived = poll(lambda: len(sandbox.requests()), lambda n: n >= wanted, deadline_s=30)
        assert arrived >= wanted, (arrived, child.poll())
        signalled = time.monotonic()
        child.send_signal(signum)
        code = child.wait(timeout=30)
        ended_after = time.monotonic() - signalled
        out, err = child.communicate()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert code == -signum, (code, out, err)
    assert ended_after < SIGNAL_BOUND_S, ended_after
    assert out == "calling\n", out
    assert err == "", err
    # The kernel closed the call's connection; no check follows.
    assert_nothing_more_sent(sandbox, len(sandbox.requests()), baseline_open + (call != "verify"))

"""B74: a cap on the connections a client opens; B76: `with_options`, a view of a client with
its own per-call budget over the same connections (ADR 0038, ADR 0039)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from sika import SikaError
from support import AwaitableBlockingClient, scenario, transaction_object

CAP = scenario("connection_cap")


async def test_b74_concurrent_async_calls_stay_within_the_connection_cap(sandbox):
    calls = CAP["calls"]
    cap = CAP["max_connections_per_host"]
    sandbox.seed_transaction(transaction_object("B74-SEEDED", "successful", "100.10"))
    client = sandbox.client(max_connections_per_host=cap, timeout_ms=120_000, max_retries=0)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            # The sandbox's own count; its answer to this request is one of them.
            peak = max(peak, sandbox.connections()["open"] - 1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        results = await asyncio.gather(
            *(client.verify_transaction("B74-SEEDED") for _ in range(calls)), return_exceptions=True
        )
    finally:
        done.set()
        sampler.join()
    failures = [result for result in results if isinstance(result, BaseException)]
    assert not failures, f"{len(failures)} of {calls} failed, first: {failures[0]!r}"
    assert 1 <= peak <= cap + CAP["overshoot_allowed"], f"{calls} calls held up to {peak} connections (cap {cap})"


@pytest.mark.parametrize("kind", ["async", "blocking"])
async def test_b76_with_options_applies_its_own_timeout_over_the_same_client(sandbox, kind):
    sandbox.seed_transaction(transaction_object("B76-SEEDED", "successful", "100.10"))
    base = sandbox.client(timeout_ms=10_000) if kind == "async" else sandbox.blocking_client(timeout_ms=10_000)
    view = base.with_options(timeout_ms=300, max_retries=0)
    assert type(view) is type(base)
    client, quick = (base, view) if kind == "async" else (AwaitableBlockingClient(base), AwaitableBlockingClient(view))
    assert (await quick.verify_transaction("B76-SEEDED")).tx_ref == "B76-SEEDED"

    sandbox.fault("/transaction/verify", "delay", count=2, delay_ms=1_500)
    started = time.monotonic()
    with pytest.raises(SikaError.Timeout):
        await quick.verify_transaction("B76-SEEDED")
    assert time.monotonic() - started < 1.4
    # The client's own 10 s budget outlasts the delay.
    assert (await client.verify_transaction("B76-SEEDED")).tx_ref == "B76-SEEDED"

    with pytest.raises(SikaError.InvalidInput) as negative:
        base.with_options(timeout_ms=-1)
    assert negative.value.field == "timeout_ms"
    with pytest.raises(SikaError.Configuration):
        base.with_options(timeout_ms=0)
    # One pool: shutting the view down shuts the client down.
    view.shutdown()
    with pytest.raises(SikaError.Configuration):
        await client.verify_transaction("B76-SEEDED")


def test_b76_a_blocking_view_on_the_main_thread_keeps_its_own_timeout(sandbox):
    # On the main thread a blocking call waits interruptibly over the async client's future
    # (ADR 0042): the view's own async companion carries the view's budget.
    sandbox.seed_transaction(transaction_object("B76-MAIN", "successful", "100.10"))
    base = sandbox.blocking_client(timeout_ms=10_000)
    view = base.with_options(timeout_ms=300, max_retries=0)
    assert view._sika_async is not None
    sandbox.fault("/transaction/verify", "delay", count=1, delay_ms=1_500)
    started = time.monotonic()
    with pytest.raises(SikaError.Timeout):
        view.verify_transaction("B76-MAIN")
    assert time.monotonic() - started < 1.4
    assert base.verify_transaction("B76-MAIN").tx_ref == "B76-MAIN"

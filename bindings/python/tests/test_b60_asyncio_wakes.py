"""B60: asyncio completion wake-ups are coalesced. Calls that complete in one burst (a sandbox
delay fault answers them all at the same moment) all resolve with their own answers, and the
SDK's threads wake the event loop (`call_soon_threadsafe`) far fewer times than calls
complete: one wake-up for every completion ready at that moment, where the generated code
woke the loop once per completion. Cancellation under load, two loops in two threads and a
forked child's loop keep working (docs/adr/0030-asyncio-wake-ups.md)."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
import weakref

import pytest

import sika
from support import transaction_object
from test_process_model import fork_child, wait_for_children

BURST = 300
# Every call of a burst has its own connection, so the answers land at once (a smaller
# connection cap, ADR 0038, would answer the burst in waves, each its own wake-up).
# Long enough for every call of the burst to be sent before the first answer comes.
ANSWER_DELAY_MS = 700
DEADLINE_S = 60


def seed(sandbox, prefix: str, count: int) -> list[str]:
    references = [f"{prefix}-{index}" for index in range(count)]
    for reference in references:
        sandbox.seed_transaction(transaction_object(reference, "successful", "1.00"))
    return references


def new_loop(kind: str) -> asyncio.AbstractEventLoop:
    if kind == "uvloop":
        import uvloop

        return uvloop.new_event_loop()
    return asyncio.new_event_loop()


async def verify_all(client, references: list[str]) -> list[str]:
    transactions = await asyncio.wait_for(
        asyncio.gather(*(client.verify_transaction(reference) for reference in references)), DEADLINE_S
    )
    return [transaction.tx_ref for transaction in transactions]


class CountedWakeUps:
    """Counts the loop's `call_soon_threadsafe` calls: the wake-ups other threads ask for."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.count = 0
        original = loop.call_soon_threadsafe

        def counted(*args, **kwargs):
            self.count += 1  # under the GIL; a lost increment would only lower the bound's margin
            return original(*args, **kwargs)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign,assignment]


async def verify_all_while_the_loop_is_busy(sandbox, client, references: list[str]) -> list[str]:
    """Starts every call, waits (without holding the loop) until the sandbox has received every
    request, then holds the loop's thread until every delayed answer is due and a second more:
    the answers land while the loop is busy, as they do on a loaded server. Without holding it
    the count depends on how the machine spreads the answers (161 wake-ups for 300 on one CI
    run, where the answers came one by one)."""
    calls = asyncio.ensure_future(verify_all(client, references))
    sent = {f"/transaction/verify/{reference}" for reference in references}
    while sum(request["path"] in sent for request in sandbox.requests()) < len(sent):
        await asyncio.sleep(0.01)
    time.sleep(ANSWER_DELAY_MS / 1000 + 1)
    return await calls


def test_b60_a_burst_of_completions_resolves_every_call_with_few_loop_wake_ups(sandbox):
    references = seed(sandbox, "BURST", BURST)
    sandbox.clear_requests()
    sandbox.fault("/transaction/verify", "delay", count=BURST, delay_ms=ANSWER_DELAY_MS)
    client = sandbox.client(max_connections_per_host=BURST)
    loop = asyncio.new_event_loop()
    try:
        wake_ups = CountedWakeUps(loop)
        assert loop.run_until_complete(verify_all_while_the_loop_is_busy(sandbox, client, references)) == references
    finally:
        loop.close()
    # Each call completes from an SDK thread (its answer came after the poll); the generated
    # code woke the loop for each (BURST wake-ups). Coalesced, one wake-up serves every
    # completion that is ready by the time the loop drains its queue.
    assert wake_ups.count <= BURST // 4, f"{wake_ups.count} loop wake-ups for {BURST} completions"


@pytest.mark.parametrize("kind", ["asyncio", "uvloop"])
def test_b60_a_burst_resolves_every_call_on_either_loop(sandbox, kind):
    references = seed(sandbox, f"BURST-{kind}", BURST)
    sandbox.fault("/transaction/verify", "delay", count=BURST, delay_ms=ANSWER_DELAY_MS)
    client = sandbox.client(max_connections_per_host=BURST)
    loop = new_loop(kind)
    try:
        assert loop.run_until_complete(verify_all(client, references)) == references
        # The same loop again, with the answers not delayed: completions inside the poll too.
        assert loop.run_until_complete(verify_all(client, references)) == references
    finally:
        loop.close()


def test_b60_calls_cancelled_while_a_burst_completes_end_and_the_rest_resolve(sandbox):
    references = seed(sandbox, "CANCEL", BURST)
    sandbox.fault("/transaction/verify", "delay", count=BURST, delay_ms=ANSWER_DELAY_MS)
    client = sandbox.client(max_connections_per_host=BURST)

    async def burst_with_cancellations():
        tasks = [asyncio.ensure_future(client.verify_transaction(reference)) for reference in references]
        # Every other call: half cancelled before the answers come, half just as they land.
        asyncio.get_running_loop().call_later(ANSWER_DELAY_MS / 2000, lambda: [t.cancel() for t in tasks[0::4]])
        asyncio.get_running_loop().call_later(ANSWER_DELAY_MS / 1000, lambda: [t.cancel() for t in tasks[2::4]])
        await asyncio.wait(tasks, timeout=DEADLINE_S)
        return tasks

    tasks = asyncio.run(burst_with_cancellations())
    for index, (task, reference) in enumerate(zip(tasks, references)):
        assert task.done(), f"call {index} did not end"
        if index % 4 == 0:
            assert task.cancelled(), f"call {index}, cancelled before its answer, was not cancelled"
        elif index % 2 == 1:
            assert task.result().tx_ref == reference
        elif not task.cancelled():  # cancelled as its answer landed: either outcome is right
            assert task.result().tx_ref == reference
    # Every continuation was called back and let go, the cancelled calls' included.
    assert sika._runtime.asyncio_wakes.waiters == {}
    # The client and a new loop serve the next burst.
    sandbox.fault("/transaction/verify", "delay", count=BURST, delay_ms=ANSWER_DELAY_MS)
    assert asyncio.run(verify_all(client, references)) == references


def test_b60_two_loops_in_two_threads_each_get_their_own_answers(sandbox):
    per_loop = BURST // 2
    references = {kind: seed(sandbox, f"LOOP-{kind}", per_loop) for kind in ("asyncio", "uvloop")}
    sandbox.fault("/transaction/verify", "delay", count=BURST, delay_ms=ANSWER_DELAY_MS)
    client = sandbox.client(max_connections_per_host=BURST)
    results: dict[str, object] = {}
    start_together = threading.Barrier(2)

    def run(kind: str) -> None:
        loop = new_loop(kind)
        try:
            start_together.wait()
            results[kind] = loop.run_until_complete(verify_all(client, references[kind]))
        except BaseException as error:  # reported by the assertion below
            results[kind] = error
        finally:
            loop.close()

    threads = [threading.Thread(target=run, args=(kind,)) for kind in references]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(DEADLINE_S)
    assert results == references


def test_b60_a_child_forked_while_a_loop_has_a_burst_in_flight_runs_its_own_loop(sandbox):
    parent_references = seed(sandbox, "PARENT", BURST)
    child_references = seed(sandbox, "CHILD", BURST // 3)
    sandbox.fault("/transaction/verify", "delay", count=BURST, delay_ms=ANSWER_DELAY_MS)
    client = sandbox.client(max_connections_per_host=BURST)
    loop = asyncio.new_event_loop()
    in_flight = asyncio.run_coroutine_threadsafe(verify_all(client, parent_references), loop)
    loop_thread = threading.Thread(target=loop.run_forever, daemon=True)
    loop_thread.start()
    try:
        pids = []
        # The forks land before, during and after the parent's burst of completions.
        for pause in (ANSWER_DELAY_MS / 2000, ANSWER_DELAY_MS / 2000, ANSWER_DELAY_MS / 1000):
            threading.Event().wait(pause)

            def child() -> None:
                assert asyncio.run(verify_all(client, child_references)) == child_references

            pids.append(fork_child(child))
        assert not wait_for_children(pids)
        assert in_flight.result(DEADLINE_S) == parent_references
    finally:
        loop.call_soon_threadsafe(loop.stop)
        loop_thread.join(DEADLINE_S)
        loop.close()


def test_b60_calls_answered_while_their_loop_stood_still_are_freed_when_it_closes(sandbox):
    references = seed(sandbox, "STILL", 50)
    sandbox.fault("/transaction/verify", "delay", count=50, delay_ms=300)
    client = sandbox.client(max_connections_per_host=BURST)
    loop = asyncio.new_event_loop()
    calls = [loop.create_task(client.verify_transaction(reference)) for reference in references]
    loop.run_until_complete(asyncio.sleep(0.1))
    assert not any(call.done() for call in calls), "the calls should still be in flight"
    # The answers land while the loop is not running: their wake-up is scheduled, never run.
    time.sleep(1.0)
    loop.close()
    answered = [weakref.ref(call) for call in calls]
    del calls
    gc.collect()
    # Nothing of the SDK's holds them (the generated code's handles went with the loop's
    # scheduled callbacks), so their coroutines were closed, which freed their Rust futures.
    assert all(call() is None for call in answered), "an answered call outlived its closed loop"
    assert asyncio.run(verify_all(client, references[:5])) == references[:5]

"""B74: a cap on the sockets a client opens; B191: charges keep sockets of their own under it;
B76: `with_options`, a view of a client with its own per-call budget over the same connections
(ADR 0038, ADR 0039, ADR 0065)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from sika import SikaError
from support import AwaitableBlockingClient, charge, scenario, transaction_object

CAP = scenario("connection_cap")


def sockets_to(port: int) -> set[tuple[str, str]]:
    """This process's sockets to 127.0.0.1:`port` in `/proc/net/tcp` (connecting, established, or
    closed by the peer and not yet by us), each by its local address and inode: the client's
    side, counted as the Rust test counts it."""
    remote = f"0100007F:{port:04X}"
    with open("/proc/net/tcp") as table:
        rows = [line.split() for line in table.readlines()[1:]]
    return {(row[1], row[9]) for row in rows if row[2] == remote and row[3] in ("01", "02", "08")}


async def test_b74_concurrent_async_calls_stay_within_the_connection_cap(sandbox):
    calls = CAP["calls"]
    cap = CAP["max_connections_per_host"]
    idle_timeout_ms = CAP["pool_idle_timeout_ms"]
    port = int(sandbox.url.rsplit(":", 1)[1])
    sandbox.seed_transaction(transaction_object("B74-SEEDED", "successful", "100.10"))
    client = sandbox.client(
        max_connections_per_host=cap, pool_idle_timeout_ms=idle_timeout_ms, timeout_ms=120_000, max_retries=0
    )
    # Each charge is answered after a delay, so its own socket stays open long enough to be seen.
    charges = CAP["then_charges"]
    sandbox.fault("/charge", "delay", count=charges, delay_ms=CAP["charge_delay_ms"])
    peak = 0
    done = threading.Event()

    def sample() -> None:
        # The kernel prints the table bucket by bucket, not at one instant: a sample counts only
        # the sockets in two reads in a row, which were all open at the instant between them.
        nonlocal peak
        last = sockets_to(port)
        while not done.is_set():
            now = sockets_to(port)
            peak = max(peak, len(now & last))
            last = now
            time.sleep(0.001)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        results = await asyncio.gather(
            *(client.verify_transaction("B74-SEEDED") for _ in range(calls)), return_exceptions=True
        )
        # Then a burst of charges while the reads' sockets are still pooled.
        results += await asyncio.gather(
            *(client.initiate_charge(charge(f"B74-CHARGE-{n}")) for n in range(charges)), return_exceptions=True
        )
    finally:
        # Stopped before the control requests below, whose sockets are this process's too.
        done.set()
        sampler.join()
    # No connection begun during the burst opens after it (ADR 0065): past the idle timeout
    # the sandbox accepts only this test's own control requests (one each).
    accepted = sandbox.connections()["accepted"]
    await asyncio.sleep(idle_timeout_ms * 3 / 1000)
    opened_after = sandbox.connections()["accepted"] - accepted - 1
    failures = [result for result in results if isinstance(result, BaseException)]
    assert not failures, f"{len(failures)} of {len(results)} failed, first: {failures[0]!r}"
    assert 1 <= peak <= cap, f"{len(results)} calls held up to {peak} sockets (cap {cap})"
    assert opened_after == 0, f"{opened_after} connections opened after the burst, for calls already answered"


async def test_b191_charges_are_answered_while_reads_hold_every_read_socket(sandbox):
    setup = scenario("charges_under_read_load")
    sandbox.seed_transaction(transaction_object("B191-SEEDED", "successful", "100.10"))
    sandbox.fault("/transaction/verify", "delay", count=1_000_000_000, delay_ms=setup["read_delay_ms"])
    client = sandbox.client(max_connections_per_host=setup["max_connections_per_host"], max_retries=0)
    reading = True

    async def read_steadily() -> None:
        while reading:
            await client.verify_transaction("B191-SEEDED")

    readers = [asyncio.create_task(read_steadily()) for _ in range(setup["readers"])]
    # The reads hold every read socket before the first charge.
    await asyncio.sleep(setup["read_delay_ms"] * 10 / 1000)
    charging = client.with_options(timeout_ms=setup["charge_timeout_ms"])
    try:
        for n in range(setup["charges"]):
            await charging.initiate_charge(charge(f"B191-{n}"))
    finally:
        reading = False
        await asyncio.gather(*readers)


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
    # On the main thread a blocking call also watches for signals (ADR 0070): the view's call
    # is still its own, with its budget.
    sandbox.seed_transaction(transaction_object("B76-MAIN", "successful", "100.10"))
    base = sandbox.blocking_client(timeout_ms=10_000)
    view = base.with_options(timeout_ms=300, max_retries=0)
    sandbox.fault("/transaction/verify", "delay", count=1, delay_ms=1_500)
    started = time.monotonic()
    with pytest.raises(SikaError.Timeout):
        view.verify_transaction("B76-MAIN")
    assert time.monotonic() - started < 1.4
    assert base.verify_transaction("B76-MAIN").tx_ref == "B76-MAIN"

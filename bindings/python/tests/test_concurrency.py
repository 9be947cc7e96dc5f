"""B18: one client shared by many threads (blocking) and many tasks (async) at once, and
blocking calls that release the GIL while they wait."""

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from sika import SikaError
from support import blocking_client, silent_server, transaction_object


def seed(sandbox, prefix: str, count: int) -> list[str]:
    references = [f"{prefix}-{index}" for index in range(count)]
    for reference in references:
        sandbox.seed_transaction(transaction_object(reference, "successful", "1.00"))
    sandbox.clear_requests()
    return references


def test_b18_one_blocking_client_is_shared_by_16_threads(sandbox):
    references = seed(sandbox, "THREAD", 16)
    client = sandbox.blocking_client()
    start_together = threading.Barrier(len(references))

    def verify_five_times(reference):
        start_together.wait()
        return [client.verify_transaction(reference).tx_ref for _ in range(5)]

    with ThreadPoolExecutor(max_workers=len(references)) as pool:
        results = list(pool.map(verify_five_times, references))

    assert results == [[reference] * 5 for reference in references]
    assert len(sandbox.requests()) == 5 * len(references)


async def test_b18_one_async_client_serves_32_concurrent_calls(sandbox):
    references = seed(sandbox, "TASK", 32)
    client = sandbox.client()
    transactions = await asyncio.gather(*(client.verify_transaction(reference) for reference in references))
    assert [transaction.tx_ref for transaction in transactions] == references
    assert len(sandbox.requests()) == len(references)


def test_b18_a_waiting_blocking_call_releases_the_gil():
    # The call waits out its whole timeout inside Rust while another Python thread ticks.
    ticks: list[float] = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    with silent_server() as silent_url:
        client = blocking_client(silent_url, timeout_ms=600, max_retries=0)
        ticker = threading.Thread(target=tick)
        ticker.start()
        started = time.monotonic()
        try:
            with pytest.raises(SikaError.Timeout):
                client.verify_transaction("ORDER-1")
        finally:
            ended = time.monotonic()
            stop.set()
            ticker.join()

    assert ended - started >= 0.4, "the call waited for its timeout"
    # Holding the GIL would freeze the ticker for the whole call.
    during = [moment for moment in ticks if started + 0.1 < moment < ended - 0.1]
    assert len(during) >= 20, f"only {len(during)} ticks while the call waited"

"""Instructions per call of the Python hot paths, for bench/analysis.md (issue 45).

Wall-clock figures on this shared 2-core machine move by 2x with the load; the instructions a
call executes do not. Each mode runs `CALLS` calls after a warm-up, and is meant to be run under
`valgrind --tool=callgrind` twice, with two counts of calls: the difference of the two totals,
divided by the difference of the counts, is the instructions of one call in this process (the
sandbox is another process, not counted). `bench/python/profile_calls.sh` does that.

    SIKA_BENCH_KEY=... python bench/python/profile_calls.py MODE URL REFERENCE CALLS

Modes:
- `lift`: the flat reader of one full `Transaction` from its buffer (no I/O);
- `async`: `Client.verify_transaction`, 100 in flight on one event loop;
- `blocking-main`: `BlockingClient.verify_transaction` on the main thread (ADR 0070's watch);
- `blocking-worker`: the same from a worker thread (no watch);
- `floor`: a future completed from a thread, 100 in flight (asyncio alone, no Sika);
- `aiohttp`, `requests`: the hand-written contenders of scripts/bench, for scale (100 in flight
  on one event loop; sequential on the main thread).
"""

from __future__ import annotations

import asyncio
import sys
import threading

import bench  # bench/python/bench.py: the same clients and helpers as scripts/bench
import sika


def main() -> None:
    mode, url, reference, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    if mode == "lift":
        flat_lift, _, _ = bench.transaction_lifts(bench.full_transaction_body())
        for _ in range(50):
            flat_lift()
        for _ in range(calls):
            flat_lift()
    elif mode in ("async", "floor", "aiohttp"):
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        client = loop.run_until_complete(_async_client(url))
        floor = bench.ThreadCompletedCall(loop)
        by_aiohttp = loop.run_until_complete(_aiohttp_client(url))

        async def verify() -> None:
            bench.sika_check(await client.verify_transaction(reference), reference)

        async def verify_by_aiohttp() -> None:
            await by_aiohttp.verify(reference)

        call = {"async": verify, "floor": floor.call, "aiohttp": verify_by_aiohttp}[mode]
        loop.run_until_complete(bench.async_rate(call, 200, 100))
        if calls:
            loop.run_until_complete(bench.async_rate(call, calls, 100))
        floor.close()
        loop.run_until_complete(by_aiohttp.session.close())
        loop.close()
    elif mode == "requests":
        by_requests = bench.RequestsClient(url)
        for _ in range(50 + calls):
            by_requests.verify(reference)
    elif mode in ("blocking-main", "blocking-worker"):
        blocking = sika.BlockingClient(bench.config(url))

        def run(count: int) -> None:
            for _ in range(count):
                bench.sika_check(blocking.verify_transaction(reference), reference)

        if mode == "blocking-main":
            run(50)
            run(calls)
        else:
            worker = threading.Thread(target=lambda: (run(50), run(calls)))
            worker.start()
            worker.join()
    else:
        raise SystemExit(f"unknown mode {mode}")


async def _async_client(url: str) -> sika.Client:
    return sika.Client(bench.config(url))


async def _aiohttp_client(url: str) -> bench.AiohttpClient:
    return bench.AiohttpClient(url)


if __name__ == "__main__":
    main()

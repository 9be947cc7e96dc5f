"""A/B of the asyncio wake-ups (ADR 0030): Sika's continuation and poll loop (coalesced
wake-ups, sika/_runtime/asyncio_wakes.py) against the ones UniFFI generated, which the runtime
keeps (`generated_rust_call_async`, `generated_continuation_callback`), alternated in one
process, 100 verifications in flight, with aiohttp in the same rounds. Medians of the rounds, as ratios. Run with the bench venv's interpreter and the
sika wheel to measure on the path (the SIKA_BENCH_KEY sandbox at the URL, one seeded reference):

    SIKA_BENCH_KEY=... python bench/python/ab_asyncio_wakes.py URL REFERENCE ROUNDS CALLS [no-io]

`no-io` measures the protocol alone: each call is a verification of an empty reference, a typed
error from the core with nothing sent (no aiohttp then).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

import bench  # bench/python/bench.py: the same clients and rate as scripts/bench
import sika
from sika._ffi import sika_ffi
from sika._runtime import asyncio_wakes


def main() -> None:
    url, reference, rounds, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    paths = {"coalesced": sika_ffi._uniffi_rust_call_async, "generated": asyncio_wakes.generated_rust_call_async}
    # Only the generated poll loop reads the module's continuation callback: its own.
    sika_ffi._uniffi_continuation_callback = asyncio_wakes.generated_continuation_callback
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    async def make():
        return sika.Client(bench.config(url)), bench.AiohttpClient(url)

    client, by_aiohttp = loop.run_until_complete(make())

    no_io = sys.argv[5:] == ["no-io"]

    def sika_path(name):
        async def call():
            sika_ffi._uniffi_rust_call_async = paths[name]
            bench.sika_check(await client.verify_transaction(reference), reference)

        async def call_no_io():
            sika_ffi._uniffi_rust_call_async = paths[name]
            try:
                await client.verify_transaction("")
            except sika.SikaError.InvalidInput:
                return
            raise AssertionError("an empty reference was accepted")

        return call_no_io if no_io else call

    contenders = {"sika coalesced": sika_path("coalesced"), "sika generated": sika_path("generated")}
    if not no_io:
        contenders["aiohttp"] = lambda: by_aiohttp.verify(reference)
    for call in contenders.values():
        loop.run_until_complete(bench.async_rate(call, 400, 100))
    rates: dict[str, list[float]] = {name: [] for name in contenders}
    # This process's CPU time per call (all its threads; the sandbox is another process): on
    # a machine others load too, steadier than the rate.
    cpu_us: dict[str, list[float]] = {name: [] for name in contenders}
    for index in range(rounds):
        # Alternating the order too, so no path always follows the same one.
        order = list(contenders) if index % 2 == 0 else list(reversed(contenders))
        for name in order:
            started = time.process_time()
            rates[name].append(loop.run_until_complete(bench.async_rate(contenders[name], calls, 100)))
            cpu_us[name].append((time.process_time() - started) / calls * 1e6)
    loop.run_until_complete(by_aiohttp.session.close())
    medians = {name: statistics.median(values) for name, values in rates.items()}
    for name, values in rates.items():
        print(f"{name}: median {medians[name]:.0f} calls/s ({', '.join(f'{v:.0f}' for v in values)})")
        print(f"{name}: median {statistics.median(cpu_us[name]):.1f} CPU us/call")
    cpu = {name: statistics.median(values) for name, values in cpu_us.items()}
    print(f"CPU per call, generated / coalesced: {cpu['sika generated'] / cpu['sika coalesced']:.2f}")
    print(f"coalesced / generated: {medians['sika coalesced'] / medians['sika generated']:.2f}")
    if not no_io:
        print(f"coalesced / aiohttp: {medians['sika coalesced'] / medians['aiohttp']:.2f}")
        print(f"generated / aiohttp: {medians['sika generated'] / medians['aiohttp']:.2f}")


if __name__ == "__main__":
    main()

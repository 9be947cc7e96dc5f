"""Python benchmarks of the Sika SDK against the clients merchants write by hand.

Run by scripts/bench (which starts the release sandbox, seeds the transaction and builds the
wheel and the Rust contenders); prints one line per sample on stdout:
    RESULT<TAB>group<TAB>contender<TAB>unit<TAB>value
Every comparison is interleaved: round r runs contender A, then B, then C, ... then round r+1.
The key comes from SIKA_BENCH_KEY and is never printed.

    bench.py all URL REFERENCE --rounds R --calls N [--rust-bin PATH]
    bench.py rss URL REFERENCE --calls 100000
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import ctypes
import gc
import json
import os
import queue
import subprocess
import sys
import threading
import time
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote

import aiohttp
import httpx
import requests

import sika

KEY = os.environ["SIKA_BENCH_KEY"]


def emit(group: str, contender: str, unit: str, value: float) -> None:
    print(f"RESULT\t{group}\t{contender}\t{unit}\t{value:.6g}", flush=True)


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def config(url: str, **settings) -> sika.ClientConfig:
    return sika.ClientConfig(secret_key=sika.SecretKey(KEY), base_url=url, **settings)


# --- the hand-written clients: what a merchant writes today -------------------------------


class VerifyError(Exception):
    pass


def _checked(status_code: int, body: dict, reference: str) -> tuple[str, Decimal]:
    """The same work as the SDK's verify, by hand: envelope, status, amount as Decimal."""
    if status_code != 200 or body.get("status") is not True:
        raise VerifyError(f"HTTP {status_code}: {body.get('message')}")
    data = body["data"]
    if data["tx_ref"] != reference:
        raise VerifyError("reference mismatch")
    return data["status"], data["amount"]


class RequestsClient:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.session = requests.Session()
        self.session.headers.update({"Authorization": f"Bearer {KEY}", "Accept": "application/json"})

    def verify(self, reference: str) -> tuple[str, Decimal]:
        response = self.session.get(f"{self.base_url}/transaction/verify/{quote(reference, safe='')}", timeout=30)
        return _checked(response.status_code, response.json(parse_float=Decimal), reference)


class HttpxClient:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.client = httpx.Client(headers={"Authorization": f"Bearer {KEY}", "Accept": "application/json"}, timeout=30)

    def verify(self, reference: str) -> tuple[str, Decimal]:
        response = self.client.get(f"{self.base_url}/transaction/verify/{quote(reference, safe='')}")
        return _checked(response.status_code, json.loads(response.content, parse_float=Decimal), reference)


class AiohttpClient:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.session = aiohttp.ClientSession(
            headers={"Authorization": f"Bearer {KEY}", "Accept": "application/json"},
            connector=aiohttp.TCPConnector(limit=100),
        )

    async def verify(self, reference: str) -> tuple[str, Decimal]:
        async with self.session.get(f"{self.base_url}/transaction/verify/{quote(reference, safe='')}") as response:
            body = await response.read()
            return _checked(response.status, json.loads(body, parse_float=Decimal), reference)


class HttpxAsyncClient:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.client = httpx.AsyncClient(
            headers={"Authorization": f"Bearer {KEY}", "Accept": "application/json"},
            timeout=30,
            limits=httpx.Limits(max_connections=100, max_keepalive_connections=100),
        )

    async def verify(self, reference: str) -> tuple[str, Decimal]:
        response = await self.client.get(f"{self.base_url}/transaction/verify/{quote(reference, safe='')}")
        return _checked(response.status_code, json.loads(response.content, parse_float=Decimal), reference)


class ThreadCompletedCall:
    """The floor of any asyncio call whose work runs off the event loop (as every FFI-backed
    client's does): a future completed from a worker thread with `call_soon_threadsafe`, with no
    I/O, no parsing and no lifting. Its rate bounds what such a client can reach on this loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.pending: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._complete, daemon=True).start()

    def _complete(self) -> None:
        while (future := self.pending.get()) is not None:
            self.loop.call_soon_threadsafe(future.set_result, None)

    async def call(self) -> None:
        future = self.loop.create_future()
        self.pending.put(future)
        await future

    def close(self) -> None:
        self.pending.put(None)


# --- helpers --------------------------------------------------------------------------------


def rate(call, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return calls / (time.perf_counter() - started)


def per_call_us(call, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - started) / calls * 1e6


async def async_rate(call, calls: int, in_flight: int) -> float:
    per_worker = calls // in_flight

    async def worker() -> None:
        for _ in range(per_worker):
            await call()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(in_flight)))
    return per_worker * in_flight / (time.perf_counter() - started)


def rust_rate(binary: str, mode: str, url: str, reference: str, calls: int) -> float:
    out = subprocess.run([binary, mode, url, reference, str(calls), "1"], check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def sika_check(transaction: sika.Transaction, reference: str) -> None:
    # The SDK's answer is the full record: make sure it is the one we expect (no silent error).
    assert transaction.tx_ref == reference and transaction.status.is_successful()


def control(url: str, method: str, path: str, body: object | None = None) -> None:
    data = None if body is None else json.dumps(body).encode()
    response = requests.request(method, f"{url}{path}", data=data, headers={"content-type": "application/json"})
    response.raise_for_status()


def bank_list_body(count: int) -> bytes:
    banks = [
        {
            "id": 100_000 + i,
            "name": f"Bank number {i} of Nigeria",
            "code": f"{i:06d}",
            "active": i % 7 != 0,
            "country": "Nigeria",
            "currency": "NGN",
            "type": "nuban",
            "createdAt": "2024-01-15T10:30:00.000Z",
            "updatedAt": "2024-01-15T10:30:00.000Z",
        }
        for i in range(count)
    ]
    return json.dumps({"status": True, "message": "Banks retrieved successfully", "data": banks}).encode()


# --- the benchmarks -------------------------------------------------------------------------


def full_transaction_body() -> bytes:
    """The recorded full transaction (every field), as the bench's verify reads it."""
    fixture = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "responses" / "verify_successful.json"
    return fixture.read_bytes()


def transaction_lifts(body: bytes):
    """Three callables lifting one full Transaction: the flat reader, UniFFI's generated
    `read`, and the constructors alone (records and variants built from ready leaf values)."""
    ffi = sika._ffi.sika_ffi
    transaction = sika.decode_transaction_response(200, body)
    converter = ffi._UniffiFfiConverterTypeTransaction
    buffer = converter.lower(transaction)
    data = ctypes.string_at(buffer.data, buffer.len)
    buffer.free()
    kept = ctypes.create_string_buffer(data, len(data))
    pointer, size = ctypes.cast(kept, ctypes.POINTER(ctypes.c_char)), len(data)
    reader = sika._ffi.sika_ffi_readers._uniffi_sika_read_TypeTransaction
    generated_read = next(generated for c, _, generated in sika._runtime.readers.WIRED if c is converter)
    generated_read = generated_read.__func__

    def flat_lift(kept=kept):  # `kept`: the buffer lives as long as its pointer is used
        return sika._runtime.readers.read_all(reader, ctypes.string_at(pointer, size))[0]

    def generated_lift():
        # UniFFI's `read`; its nested reads are generated too inside `generated_readers()`.
        return generated_read(ffi._UniffiRustBufferStream(pointer, size))

    fields = dict(vars(transaction))
    customer = dict(vars(transaction.customer))
    custom_fields = [dict(vars(field)) for field in transaction.custom_fields]
    status, payment_type = transaction.status, transaction.payment_type

    def constructors():
        return ffi.Transaction(**{
            **fields,
            "customer": ffi.Customer(**customer),
            "custom_fields": [ffi.CustomField(**field) for field in custom_fields],
            "status": type(status)(*vars(status).values()),
            "payment_type": type(payment_type)(*vars(payment_type).values()),
        })  # fmt: skip

    with generated_readers():
        assert generated_lift() == flat_lift() == constructors() == transaction
    return flat_lift, generated_lift, constructors


@contextlib.contextmanager
def generated_readers():
    """UniFFI's generated readers in place of the flat ones (ADR 0028), for the block."""
    sika._runtime.readers.use_flat_readers(False)
    try:
        yield
    finally:
        sika._runtime.readers.use_flat_readers(True)


def bench_all(args: argparse.Namespace) -> None:
    url, reference, rounds, calls = args.url, args.reference, args.rounds, args.calls

    # Sequential verify: the SDK's BlockingClient against requests and httpx, and the Rust
    # limit (each Rust round is one process: its loop times itself after 20 warm-up calls).
    blocking = sika.BlockingClient(config(url))
    by_requests = RequestsClient(url)
    by_httpx = HttpxClient(url)
    contenders = {
        "sika.BlockingClient": lambda: sika_check(blocking.verify_transaction(reference), reference),
        "requests.Session": lambda: by_requests.verify(reference),
        "httpx.Client": lambda: by_httpx.verify(reference),
    }
    # The same client from a worker thread of its own (gunicorn's gthread workers, thread
    # pools, `asyncio.to_thread`): there a call is the core's blocking call on its caller's
    # thread (ADR 0010), where the main thread's call hands its wait to the SDK's runtime so
    # that signal handlers run at once (ADR 0042). The other rows run on the main thread.
    worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench-worker")
    off_main = {"sika.BlockingClient, from a worker thread": contenders["sika.BlockingClient"]}
    for call in contenders.values():
        for _ in range(50):
            call()
    for call in off_main.values():
        worker.submit(rate, call, 50).result()
    progress(f"python: sequential verify, {rounds} rounds of {calls} calls")
    for _ in range(rounds):
        for name, call in contenders.items():
            emit("py_verify_sequential", name, "calls/s", rate(call, calls))
        for name, call in off_main.items():
            emit("py_verify_sequential", name, "calls/s", worker.submit(rate, call, calls).result())
        if args.rust_bin:
            emit("py_verify_sequential", "rust reqwest+serde (raw)", "calls/s", rust_rate(args.rust_bin, "raw", url, reference, calls))
            emit("py_verify_sequential", "rust reqwest+serde (raw, multi-thread runtime)", "calls/s", rust_rate(args.rust_bin, "raw-mt", url, reference, calls))
            emit("py_verify_sequential", "rust sika_core::BlockingClient", "calls/s", rust_rate(args.rust_bin, "sdk", url, reference, calls))

    worker.shutdown()

    # 100 calls in flight under asyncio.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    async def make_async():
        return sika.Client(config(url)), AiohttpClient(url), HttpxAsyncClient(url)

    sika_async, by_aiohttp, by_httpx_async = loop.run_until_complete(make_async())

    async def sika_verify():
        sika_check(await sika_async.verify_transaction(reference), reference)

    floor = ThreadCompletedCall(loop)
    async_contenders = {
        "sika.Client": sika_verify,
        "aiohttp": lambda: by_aiohttp.verify(reference),
        "httpx.AsyncClient": lambda: by_httpx_async.verify(reference),
        "asyncio floor: a future completed from a thread (no I/O)": floor.call,
    }
    async_calls = calls * 4
    for call in async_contenders.values():
        loop.run_until_complete(async_rate(call, 400, 100))
    progress(f"python: 100 in flight, {rounds} rounds of {async_calls} calls")
    for _ in range(rounds):
        for name, call in async_contenders.items():
            emit("py_verify_100_in_flight", name, "calls/s", loop.run_until_complete(async_rate(call, async_calls, 100)))

    async def close_async():
        await by_aiohttp.session.close()
        await by_httpx_async.client.aclose()

    loop.run_until_complete(close_async())
    floor.close()
    loop.close()

    # One FFI call without I/O (the status logic), against a pure-Python function of the same job.
    progress("python: FFI calls without I/O")
    status = sika.TransactionStatus.PENDING()
    ffi_calls = 200_000

    def python_is_final(value: str) -> bool:
        return value not in ("pending",) and value in ("successful", "failed", "abandoned", "reversed")

    # The floor under any generated call: one ctypes call of an argument-less C function of the
    # same library (UniFFI's contract-version check), with nothing lowered, lifted or checked.
    bare_ctypes_call = sika._ffi.sika_ffi._UniffiLib.ffi_sika_core_uniffi_contract_version

    for _ in range(rounds):
        emit("py_ffi_call", "TransactionStatus.is_final (FFI)", "us/call", per_call_us(lambda: status.is_final(), ffi_calls))
        emit("py_ffi_call", "TransactionStatus.merchant_action (FFI)", "us/call", per_call_us(lambda: status.merchant_action(), ffi_calls))
        emit("py_ffi_call", "pure-Python is_final", "us/call", per_call_us(lambda: python_is_final("pending"), ffi_calls))
        emit("py_ffi_call", "bare ctypes call into the library (no UniFFI code)", "us/call", per_call_us(bare_ctypes_call, ffi_calls))

    # Decoding a 5,000-bank list: typed records (Decimal-free, but 10,000 datetimes and an enum
    # each) against untyped json.loads plus the same envelope check.
    progress("python: decoding 5,000 banks")
    body = bank_list_body(5000)

    def untyped() -> None:
        envelope = json.loads(body)
        assert envelope["status"] is True and len(envelope["data"]) == 5000

    def typed() -> None:
        assert len(sika.decode_banks_response(200, body)) == 5000

    for _ in range(rounds):
        emit("py_decode_5000_banks", "sika.decode_banks_response (typed)", "ms", per_call_us(typed, 20) / 1000)
        emit("py_decode_5000_banks", "json.loads (untyped)", "ms", per_call_us(untyped, 20) / 1000)

    # Cached bank lists: the seeded NG list (5 banks), and a 5,000-bank list served once by the
    # sandbox (a `body` fault) and then from the cache.
    progress("python: cached bank lists")
    cached = sika.BlockingClient(config(url))
    cached.list_banks("NG")
    control(url, "POST", "/__sandbox/faults", {"path": "/bank", "kind": "body", "count": 1, "body": body.decode()})
    big = sika.BlockingClient(config(url))
    assert len(big.list_banks("GH")) == 5000
    for _ in range(rounds):
        emit("py_cached_banks", "list_banks, 5 banks cached", "us/call", per_call_us(lambda: cached.list_banks("NG"), 20_000))
        emit("py_cached_banks", "list_banks, 5,000 banks cached", "us/call", per_call_us(lambda: big.list_banks("GH"), 20))

    # Lifting one full Transaction from its buffer (no I/O, the buffer's free left out: the same
    # Rust call either way): the flat reader (ADR 0028), UniFFI's generated `read` (put back for
    # the call), and only the constructors the lift ends in, given ready leaf values.
    progress("python: lifting one Transaction")
    flat_lift, generated_lift, constructors = transaction_lifts(full_transaction_body())
    lifts = 20_000
    for _ in range(rounds):
        emit("py_lift_transaction", "flat reader (the SDK's lift)", "us/call", per_call_us(flat_lift, lifts))
        with generated_readers():
            emit("py_lift_transaction", "UniFFI's generated lift", "us/call", per_call_us(generated_lift, lifts))
        emit("py_lift_transaction", "constructors alone", "us/call", per_call_us(constructors, lifts))


def bench_rss(args: argparse.Namespace) -> None:
    """RSS of this process before and after `calls` verifications (after a warm-up)."""

    def rss_kib() -> int:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    client = sika.BlockingClient(config(args.url))
    for _ in range(2000):
        client.verify_transaction(args.reference)
    gc.collect()
    before = rss_kib()
    progress(f"python: RSS over {args.calls} verifications (from {before} KiB)")
    for _ in range(args.calls):
        transaction = client.verify_transaction(args.reference)
    sika_check(transaction, args.reference)
    gc.collect()
    after = rss_kib()
    emit("py_rss", "RSS after warm-up", "KiB", before)
    emit("py_rss", f"RSS after {args.calls} verifications", "KiB", after)
    emit("py_rss", "growth", "KiB", after - before)


def bench_import(args: argparse.Namespace) -> None:
    """`import sika` in a fresh interpreter (issue 27: under 30 ms), as `-X importtime` counts
    it: the cumulative microseconds of the `sika` package, one process per round. Also with
    asyncio imported first, as in any asyncio or FastAPI app: the generated bindings import
    asyncio, so this part is Sika's own; and asyncio alone, the floor of the first figure."""
    progress(f"python: import time, {args.rounds} rounds")

    def cumulative_ms(code: str, module: str) -> float:
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True)
        lines = [line for line in done.stderr.splitlines() if line.rstrip().endswith(f"| {module}")]
        return int(lines[-1].split("|")[1]) / 1000

    for _ in range(args.rounds):
        emit("py_import", "import sika (-X importtime, cumulative)", "ms", cumulative_ms("import sika", "sika"))
        emit("py_import", "import sika after asyncio (Sika's own part)", "ms", cumulative_ms("import asyncio; import sika", "sika"))
        emit("py_import", "import asyncio alone", "ms", cumulative_ms("import asyncio", "asyncio"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["all", "rss", "import"])
    parser.add_argument("url")
    parser.add_argument("reference")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rust-bin")
    args = parser.parse_args()
    {"all": bench_all, "rss": bench_rss, "import": bench_import}[args.mode](args)


if __name__ == "__main__":
    main()

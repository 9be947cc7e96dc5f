"""What OpenTelemetry's bridge costs a Python call (issue 30, ADR 0059): `scripts/bench --only tracing`.

    tracing.py run URL REFERENCE --rounds R --calls N
    tracing.py worker SETUP URL REFERENCE --calls N      (one process, one setup; run by `run`)

`run` starts, per round, one interpreter per setup, in the same order every round (interleaved:
a burst of load from elsewhere hits every setup alike), and prints the RESULT lines of each:
    RESULT<TAB>group<TAB>contender<TAB>unit<TAB>value
The setups (each its own process: OpenTelemetry's providers are set once per process):
    absent     `opentelemetry` not importable (`sys.modules` entries of None, set before
               `import sika`): nothing is wrapped, as without `sika[otel]`
    absent-aa  the same again (A/A: the noise between two identical setups)
    api        `opentelemetry-api` importable, no SDK configured
    off        an SDK TracerProvider with the ALWAYS_OFF sampler, no MeterProvider
    on         an SDK TracerProvider sampling every span into an in-memory exporter (cleared
               after each timing), no MeterProvider
Per round: `BlockingClient.verify_transaction` against the release sandbox, microseconds per
call over N calls (after a warm-up), and the differences from `absent` in the same round. Then,
in each process with the bridge installed, the bridge alone with no I/O: its steps timed
directly on a real call's end (`_start` and the span's end; `trace_next_call` there and back;
`take_ended_call` with none pending; the lift of the call's end), and the whole wrapper around
a method without I/O, the lift aside. The key comes from SIKA_BENCH_KEY and is never printed.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import sys
import time

SETUPS = ["absent", "on", "api", "off", "absent-aa"]
NAMES = {
    "absent": "(a) OpenTelemetry absent",
    "absent-aa": "(a') OpenTelemetry absent again (A/A)",
    "api": "(b) opentelemetry-api, no SDK",
    "off": "(c) SDK, sampling off (ALWAYS_OFF), no MeterProvider",
    "on": "(d) SDK, sampling on, in-memory exporter",
}
DIFFERENCES = [("absent-aa", "(a') - (a): the noise"), ("api", "(b) - (a)"), ("off", "(c) - (a)"), ("on", "(d) - (a)")]
BRIDGE_CALLS = 20_000


def emit(group: str, contender: str, unit: str, value: float) -> None:
    print(f"RESULT\t{group}\t{contender}\t{unit}\t{value:.6g}", flush=True)


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def per_call_us(call, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - started) / calls * 1e6


def setup(kind: str) -> object | None:
    """OpenTelemetry as `kind` has it, before `import sika`; the in-memory exporter for `on`."""
    if kind.startswith("absent"):
        # A None entry makes `import opentelemetry` fail and `importlib.util.find_spec` answer
        # None, as when the package is not installed.
        sys.modules["opentelemetry"] = None  # type: ignore[assignment]
        sys.modules["opentelemetry.trace"] = None  # type: ignore[assignment]
        return None
    if kind == "api":
        return None
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON

    provider = TracerProvider(sampler=ALWAYS_OFF if kind == "off" else ALWAYS_ON)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return exporter


def worker(args: argparse.Namespace) -> None:
    exporter = setup(args.setup)
    import sika
    from sika import _tracing
    from sika._ffi import sika_ffi as ffi
    from sika._ffi import sika_ffi_types as ffi_types
    from sika._ffi.sika_ffi_types import take_ended_call, trace_next_call

    key = os.environ["SIKA_BENCH_KEY"]
    client = sika.BlockingClient(sika.ClientConfig(secret_key=sika.SecretKey(key), base_url=args.url))
    # The bridge's wrapper (sika/_tracing.py), or the method as it is without it.
    wrapped = sika.BlockingClient.verify_transaction.__code__.co_filename == _tracing.__file__
    # The setup is the one named: no bridge without OpenTelemetry, a bridge with it.
    assert wrapped == (not args.setup.startswith("absent")), (args.setup, wrapped)
    reference = args.reference

    def verify() -> None:
        transaction = client.verify_transaction(reference)
        assert transaction.tx_ref == reference and transaction.status.is_successful()

    for _ in range(100):
        verify()
    if exporter is not None:
        exporter.clear()
    emit("py_tracing_verify", NAMES[args.setup], "us/call", per_call_us(verify, args.calls))
    if exporter is not None:
        # Every call was recorded when sampling is on (the call's span and its attempt's), none
        # when it is off.
        spans = len(exporter.get_finished_spans())
        assert spans == (2 * args.calls if args.setup == "on" else 0), (args.setup, spans)
        exporter.clear()
    # A reference: one FFI call without I/O (the `python` part's `py_ffi_call`), to scale the
    # figures below by the machine's load at the time.
    status = sika.TransactionStatus.PENDING()
    emit("py_tracing_bridge", f"{NAMES[args.setup]}: reference, TransactionStatus.is_final (one FFI call)", "us/call", per_call_us(lambda: status.is_final(), BRIDGE_CALLS))
    if not wrapped:
        return

    # The bridge alone, no I/O: its steps around one real call's end.
    operation = "verify_transaction"
    transaction = client.verify_transaction(reference)
    started = _tracing._start(operation)
    if started is None:  # no SDK: the call is not traced; `_start` is the whole bridge
        emit("py_tracing_bridge", f"{NAMES[args.setup]}: _start (the whole bridge)", "us/call", per_call_us(lambda: _tracing._start(operation), BRIDGE_CALLS))
        return
    span, call = started
    trace_next_call(call)
    sika.BlockingClient.verify_transaction.__wrapped__(client, reference)  # the method, unwrapped
    trace_next_call(None)
    ended = take_ended_call(call.id)
    assert ended is not None and len(ended.end.attempts) == 1, ended
    span.end()

    def start_and_end() -> None:
        span, _ = _tracing._start(operation)  # type: ignore[misc]
        span.end()

    def handed_over() -> None:
        trace_next_call(call)
        trace_next_call(None)

    def none_pending() -> None:
        take_ended_call(call.id)

    # The call's end as the core hands it over: the flat reader's lift of its bytes.
    converter = ffi._UniffiFfiConverterTypeEndedCall
    buffer = converter.lower(ended)
    data = ctypes.string_at(buffer.data, buffer.len)
    buffer.free()
    reader = sika._ffi.sika_ffi_readers._uniffi_sika_read_TypeEndedCall
    assert sika._runtime.readers.read_all(reader, data)[0] == ended

    def lift() -> None:
        sika._runtime.readers.read_all(reader, data)

    # The whole bridge: its wrapper around a method without I/O that returns the transaction,
    # `take_ended_call` answering (after its real FFI call, none pending) with the real call's
    # end; only the lift of that end is left out (timed above).
    def taken(call_id: int) -> object:
        real_take(call_id)
        return ended

    real_take = ffi_types.take_ended_call
    ffi_types.take_ended_call = taken
    if hasattr(_tracing, "take_ended_call"):
        _tracing.take_ended_call = taken  # type: ignore[attr-defined]
    bridged = _tracing._traced_blocking(operation, lambda self, reference: transaction)

    def whole() -> None:
        bridged(client, reference)

    name = NAMES[args.setup]
    calls = BRIDGE_CALLS if args.setup != "on" else BRIDGE_CALLS // 4
    for label, step in [
        ("_start + span.end", start_and_end),
        ("trace_next_call(call) + trace_next_call(None)", handed_over),
        ("take_ended_call, none pending", none_pending),
        ("lift of the call's end (one attempt)", lift),
        ("the whole bridge, the lift aside", whole),
    ]:
        emit("py_tracing_bridge", f"{name}: {label}", "us/call", per_call_us(step, calls))
        if exporter is not None:
            exporter.clear()


def run(args: argparse.Namespace) -> None:
    progress(f"python tracing: {args.rounds} rounds of {len(SETUPS)} processes, {args.calls} calls each")
    for _ in range(args.rounds):
        measured: dict[str, float] = {}
        for kind in SETUPS:
            done = subprocess.run(
                [sys.executable, __file__, "worker", kind, args.url, args.reference, "--calls", str(args.calls)],
                check=True,
                stdout=subprocess.PIPE,
                text=True,
            )
            for line in done.stdout.splitlines():
                print(line, flush=True)
                parts = line.split("\t")
                if parts[:2] == ["RESULT", "py_tracing_verify"]:
                    measured[kind] = float(parts[4])
        for kind, label in DIFFERENCES:
            emit("py_tracing_added", label, "us/call", measured[kind] - measured["absent"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["run", "worker"])
    parser.add_argument("rest", nargs="+")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    if args.mode == "run":
        args.url, args.reference = args.rest
        run(args)
    else:
        args.setup, args.url, args.reference = args.rest
        assert args.setup in NAMES, args.setup
        worker(args)


if __name__ == "__main__":
    main()

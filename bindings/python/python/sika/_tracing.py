"""Sika's calls in OpenTelemetry (issue 30, ADR 0058, 0059), set up when ``sika`` is imported
with ``opentelemetry-api`` installed (``pip install sika[otel]``); without it nothing is loaded,
no method is wrapped and no call pays anything.

Each client call is a span ``sika.<method>`` (``sika.operation``, ``sika.reference``, and on
failure ``error.type`` and ``sika.request_id``), a child of the context current where the call
is made: a FastAPI or Flask request's span, a Celery task's. Its requests carry that span's W3C
context (``traceparent``, ``tracestate``) to the service. Each HTTP attempt is a child span
``GET /transaction/verify/{reference}`` with OpenTelemetry's stable HTTP client attributes
(``http.request.method``, ``server.address``, ``server.port``, ``url.template``,
``http.response.status_code``, ``http.request.resend_count`` on retries, ``error.type``), and
its duration is recorded in the ``http.client.request.duration`` histogram (seconds); retries
count in ``sika.client.retries``, and each payment decision (a ``PaymentCheck`` or a
``WebhookDecision``, as the core names it in the call's end) in ``sika.decisions`` by
``sika.decision`` (``confirmed``, ``not_paid``,
``mismatch``, ``fulfil``, ``retry_later``, ``reject``, ...). No key, phone number or e-mail is
ever an attribute.

The ledger's operations are spans the same way (ADR 0085): ``sika.ledger.handle_webhook``,
``sika.ledger.settle``, ``sika.ledger.renew``, ``sika.ledger.mark_fulfilled``,
``sika.ledger.release``, ``sika.ledger.reconcile``, ... (every coroutine method of ``Ledger``
and its ``BlockingLedger`` twin), children of the current context; the verifications they send
are their attempt spans and carry their context. Counters: ``sika.ledger.claims.offered`` (every
claim given), ``sika.ledger.claims.reoffered`` (an offer above 1: the claim before it lapsed or
was released), ``sika.ledger.claims.released`` and ``sika.ledger.fulfilments`` (claims marked
fulfilled), each by ``sika.operation``.

All of it runs here, in the method's own Python frame, before and after the call: the core is
never called back (ADR 0059). Python code run from inside a Rust call (a poll) by a daemon
thread while the interpreter exits is ended by `pthread_exit` with Rust frames below it, which
aborts the process. So the span is started first, handed to the core with `trace_next_call` for
the call that this thread starts next (an async call: at its first poll, wrapped here; a
blocking call: at once), and the call's start and end, with its attempts and the times the core
measured, are taken back with `take_ended_call` once the call returned, failed or was cancelled.
With no OpenTelemetry SDK configured the call's span is invalid and the call is not traced.

The per-call path is kept short (`scripts/bench --only tracing`, ADR 0059's "Cost"): the
tracer, instruments and OpenTelemetry's names are loaded once; with no SDK's tracer provider
no span is started at all; the thread's pending span is forgotten only when no call took it;
a span that does not record (sampling off) gets no attributes and no attempt spans, while the
metrics are recorded as before (a `MeterProvider` counts every call, sampled or not).
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import itertools
import threading
import types
import typing

from ._ffi.sika_ffi_types import TracedCall, take_ended_call, trace_next_call

if typing.TYPE_CHECKING:
    from opentelemetry.metrics import Counter, Histogram
    from opentelemetry.trace import Span, Tracer

    from ._ffi.sika_ffi_types import EndedCall

_SCOPE = "sika"


class _Instruments:
    """The application's OpenTelemetry tracer and instruments, loaded at the first call:
    `import sika` does not import OpenTelemetry."""

    def __init__(self) -> None:
        self.tracer: Tracer | None = None
        self.duration: Histogram | None = None
        self.retries: Counter | None = None
        self.decisions: Counter | None = None
        self.ledger: dict[str, Counter] = {}
        # OpenTelemetry's names the per-call path uses, imported once.
        self.trace: typing.Any = None
        self.no_sdk: tuple[type, ...] = ()
        self.client_kind: typing.Any = None
        self.error_status: typing.Any = None

    def load(self) -> tuple[Tracer, Histogram, Counter]:
        if self.tracer is None or self.duration is None or self.retries is None:
            from opentelemetry import metrics, trace
            from opentelemetry.trace import SpanKind, Status, StatusCode

            self.trace = trace
            # The API's own providers: no SDK configured, every span invalid, nothing traced.
            self.no_sdk = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
            self.client_kind = SpanKind.CLIENT
            self.error_status = Status(StatusCode.ERROR)

            meter = metrics.get_meter(_SCOPE)
            self.duration = meter.create_histogram(
                "http.client.request.duration", unit="s", description="Duration of HTTP client requests."
            )
            self.retries = meter.create_counter(
                "sika.client.retries", unit="{retry}", description="HTTP requests Sika sent again."
            )
            self.decisions = meter.create_counter(
                "sika.decisions", unit="{decision}", description="Sika's payment decisions, by kind."
            )
            self.ledger = {
                name: meter.create_counter(f"sika.ledger.{name}", unit=unit, description=description)
                for name, unit, description in _LEDGER_COUNTERS
            }
            self.tracer = trace.get_tracer(_SCOPE)
        return self.tracer, self.duration, self.retries


# The ledger's counters: name under `sika.ledger.`, unit, description.
_LEDGER_COUNTERS = (
    ("claims.offered", "{claim}", "Claims the ledger gave to fulfil an order."),
    ("claims.reoffered", "{claim}", "Claims given again after the previous one lapsed or was released."),
    ("claims.released", "{claim}", "Claims given back (release)."),
    ("fulfilments", "{claim}", "Claims marked fulfilled."),
)
# Which successful ledger operation counts in which counter, besides the offers.
_LEDGER_DONE = {"ledger.release": "claims.released", "ledger.mark_fulfilled": "fulfilments"}

_instruments = _Instruments()
_next_id = itertools.count(1).__next__
# The span of the async call this thread is about to make, until its first poll takes it.
_pending = threading.local()


def _start(operation: str) -> tuple[Span, TracedCall] | None:
    """The call's span, a child of the current context, and what the core sends for it; none
    when it is not traced (no SDK, or OpenTelemetry failed: a tracer never fails a payment)."""
    try:
        tracer = _instruments.tracer or _instruments.load()[0]
        # No SDK: the API's tracers start only invalid spans; none is started.
        if isinstance(_instruments.trace.get_tracer_provider(), _instruments.no_sdk):
            return None
        span = tracer.start_span(f"sika.{operation}", attributes={"sika.operation": operation})
        context = span.get_span_context()
        if not context.is_valid:
            span.end()
            return None
        traceparent = f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"
        state = context.trace_state.to_header() if context.trace_state else None
        return span, TracedCall(id=_next_id(), traceparent=traceparent, tracestate=state or None)
    except Exception:  # noqa: BLE001  (a tracer must never fail a payment call)
        return None


def _finish(span: Span, call_id: int) -> bool:
    """Records the call's attempts (their spans, durations and retries) and its decision, and
    ends its span. True when a call took the span (its end was there to take)."""
    taken = False
    try:
        ended = take_ended_call(call_id)
        if ended is not None:
            taken = True
            _record(span, ended)
    except Exception:  # noqa: BLE001, S110  (a tracer must never fail a payment call)
        pass
    finally:
        span.end()
    return taken


def _record(span: Span, ended: EndedCall) -> None:
    tracer, duration, retries = _instruments.load()
    call, end = ended.call, ended.end
    # A span that does not record (sampling off) keeps no attribute and has no attempt spans;
    # the metrics are recorded either way.
    recording = span.is_recording()
    if end.decision is not None and _instruments.decisions is not None:
        if recording:
            span.set_attribute("sika.decision", end.decision)
        _instruments.decisions.add(1, {"sika.operation": call.operation, "sika.decision": end.decision})
    _count_ledger(call.operation, end)
    parent = None
    if recording:
        if call.reference is not None:
            span.set_attribute("sika.reference", call.reference)
        if end.error_type is not None:
            span.set_attribute("error.type", end.error_type)
            if end.request_id is not None:
                span.set_attribute("sika.request_id", end.request_id)
            span.set_status(_instruments.error_status)
        parent = _instruments.trace.set_span_in_context(span)
    for attempt in end.attempts:
        attributes: dict[str, str | int] = {
            "http.request.method": attempt.method,
            "server.address": call.server_address,
            "server.port": call.server_port,
            "url.template": attempt.url_template,
        }
        if attempt.status_code is not None:
            attributes["http.response.status_code"] = attempt.status_code
        if attempt.error_type is not None:
            attributes["error.type"] = attempt.error_type
        duration.record((attempt.ended_at_unix_nanos - attempt.started_at_unix_nanos) / 1e9, attributes)
        if attempt.resend_count:
            retries.add(1, {"sika.operation": call.operation})
            attributes["http.request.resend_count"] = attempt.resend_count
        if not recording:
            continue
        child = tracer.start_span(
            f"{attempt.method} {attempt.url_template}",
            context=parent,
            kind=_instruments.client_kind,
            attributes=attributes,
            start_time=attempt.started_at_unix_nanos,
        )
        child.set_attribute("sika.request_id", attempt.request_id)
        if attempt.error_type is not None:
            child.set_status(_instruments.error_status)
        child.end(end_time=attempt.ended_at_unix_nanos)


def _count_ledger(operation: str, end: typing.Any) -> None:
    """The ledger's counters for a call's end: its claims offered (and offered again), a
    release, a fulfilment."""
    counters = _instruments.ledger
    if not counters:
        return
    attributes = {"sika.operation": operation}
    if end.offers:
        counters["claims.offered"].add(len(end.offers), attributes)
        again = sum(1 for offer in end.offers if offer > 1)
        if again:
            counters["claims.reoffered"].add(again, attributes)
    done = _LEDGER_DONE.get(operation)
    if done is not None and end.error_type is None:
        counters[done].add(1, attributes)


def _traced_async(operation: str, method: typing.Any) -> typing.Any:
    @functools.wraps(method)
    async def traced(self: typing.Any, *args: typing.Any, **kwargs: typing.Any) -> typing.Any:
        started = _start(operation)
        if started is None:
            return await method(self, *args, **kwargs)
        span, call = started
        # Taken by `_first_poll_traced` before the method's coroutine first waits: nothing
        # else runs on this thread in between.
        _pending.call = call
        try:
            return await method(self, *args, **kwargs)
        finally:
            _pending.call = None
            _finish(span, call.id)

    return traced


def _traced_blocking(operation: str, method: typing.Any) -> typing.Any:
    @functools.wraps(method)
    def traced(self: typing.Any, *args: typing.Any, **kwargs: typing.Any) -> typing.Any:
        started = _start(operation)
        if started is None:
            return method(self, *args, **kwargs)
        span, call = started
        # The call starts on this thread (its own blocking call, or the first poll of its
        # async twin, ADR 0042) before any other call of this thread.
        trace_next_call(call)
        try:
            return method(self, *args, **kwargs)
        finally:
            # A call that took the span left nothing pending; else it is forgotten here.
            if not _finish(span, call.id):
                trace_next_call(None)

    return traced


def _first_poll_traced(poll: typing.Any, call: TracedCall) -> typing.Any:
    """`poll`, whose first call starts the call traced as `call`."""
    first = [True]

    def traced_poll(*args: typing.Any) -> typing.Any:
        if not first:
            return poll(*args)
        first.clear()
        trace_next_call(call)
        try:
            return poll(*args)
        finally:
            trace_next_call(None)

    return traced_poll


def _install(ffi: types.ModuleType) -> None:
    from ._runtime import _shape

    # The network calls: the async client's coroutine methods, and their blocking twins; the
    # ledger's operations (`ledger.<method>`) the same way.
    for asynchronous, blocking, prefix in (("Client", "BlockingClient", ""), ("Ledger", "BlockingLedger", "ledger.")):
        async_class = _shape.class_(ffi, asynchronous)
        blocking_class = _shape.class_(ffi, blocking)
        for name, method in list(vars(async_class).items()):
            if name.startswith("_") or not inspect.iscoroutinefunction(method):
                continue
            operation = prefix + name
            setattr(async_class, name, _traced_async(operation, method))
            setattr(blocking_class, name, _traced_blocking(operation, _shape.attribute(blocking_class, name)))
    awaited = _shape.function(
        ffi,
        "_uniffi_rust_call_async",
        ["rust_future", "ffi_poll", "ffi_complete", "ffi_free", "lift_func", "error_ffi_converter"],
    )

    async def _uniffi_rust_call_async(
        rust_future: typing.Any,
        ffi_poll: typing.Any,
        ffi_complete: typing.Any,
        ffi_free: typing.Any,
        lift_func: typing.Any,
        error_ffi_converter: typing.Any,
    ) -> typing.Any:
        call = getattr(_pending, "call", None)
        if call is not None:
            _pending.call = None
            ffi_poll = _first_poll_traced(ffi_poll, call)
        return await awaited(rust_future, ffi_poll, ffi_complete, ffi_free, lift_func, error_ffi_converter)

    ffi._uniffi_rust_call_async = _uniffi_rust_call_async  # type: ignore[attr-defined]


if importlib.util.find_spec("opentelemetry") is not None and importlib.util.find_spec("opentelemetry.trace") is not None:
    _install(importlib.import_module("sika._ffi.sika_ffi"))

"""Sika's calls in OpenTelemetry (issue 30, ADR 0058), set up when ``sika`` is imported with
``opentelemetry-api`` installed (``pip install sika[otel]``); without it nothing is loaded and
no call pays anything.

Each client call is a span ``sika.<method>`` (``sika.operation``, ``sika.reference``, and on
failure ``error.type`` and ``sika.request_id``), a child of the context current where the call
is made: a FastAPI or Flask request's span, a Celery task's. Its requests carry that span's W3C
context (``traceparent``, ``tracestate``) to the service. Each HTTP attempt is a child span
``GET /transaction/verify/{reference}`` with OpenTelemetry's stable HTTP client attributes
(``http.request.method``, ``server.address``, ``server.port``, ``url.template``,
``http.response.status_code``, ``http.request.resend_count`` on retries, ``error.type``), and
its duration is recorded in the ``http.client.request.duration`` histogram (seconds). No key,
phone number or e-mail is ever an attribute.

The core calls this bridge only on the thread that makes the call, as it starts and where its
result is taken (never on the SDK's threads), so the current context is the caller's and no
callback makes a thread state of its own. The attempts' spans are made when the call ends, with
the times the core measured. With no OpenTelemetry SDK configured the call's span is invalid and
the call is not traced.
"""

from __future__ import annotations

import importlib.util
import itertools
import typing

from ._ffi.sika_ffi_types import CallEnd, CallStart, TracedCall, set_tracer

if typing.TYPE_CHECKING:
    from opentelemetry.metrics import Histogram
    from opentelemetry.trace import Span, Tracer

_SCOPE = "sika"


class _OpenTelemetry:
    """The core's `Tracer`, through the application's OpenTelemetry providers."""

    def __init__(self) -> None:
        self._open: dict[int, tuple[Span, CallStart]] = {}
        self._next_id = itertools.count(1).__next__
        self._tracer: Tracer | None = None
        self._duration: Histogram | None = None

    def _instruments(self) -> tuple[Tracer, Histogram]:
        # Loaded at the first call: `import sika` does not import OpenTelemetry.
        if self._tracer is None or self._duration is None:
            from opentelemetry import metrics, trace

            self._tracer = trace.get_tracer(_SCOPE)
            self._duration = metrics.get_meter(_SCOPE).create_histogram(
                "http.client.request.duration", unit="s", description="Duration of HTTP client requests."
            )
        return self._tracer, self._duration

    def call_started(self, call: CallStart) -> TracedCall | None:
        try:
            tracer, _ = self._instruments()
            attributes: dict[str, str] = {"sika.operation": call.operation}
            if call.reference is not None:
                attributes["sika.reference"] = call.reference
            span = tracer.start_span(f"sika.{call.operation}", attributes=attributes)
            context = span.get_span_context()
            if not context.is_valid:
                span.end()
                return None
            call_id = self._next_id()
            self._open[call_id] = (span, call)
            traceparent = f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"
            return TracedCall(id=call_id, traceparent=traceparent, tracestate=context.trace_state.to_header() or None)
        except Exception:  # noqa: BLE001  (a tracer must never fail a payment call)
            return None

    def call_ended(self, end: CallEnd) -> None:
        opened = self._open.pop(end.id, None)
        if opened is None:
            return
        span, call = opened
        try:
            self._record_attempts(span, call, end)
            if end.error_type is not None:
                from opentelemetry.trace import Status, StatusCode

                span.set_attribute("error.type", end.error_type)
                if end.request_id is not None:
                    span.set_attribute("sika.request_id", end.request_id)
                span.set_status(Status(StatusCode.ERROR))
        except Exception:  # noqa: BLE001, S110  (a tracer must never fail a payment call)
            pass
        finally:
            span.end()

    def _record_attempts(self, span: Span, call: CallStart, end: CallEnd) -> None:
        from opentelemetry import trace
        from opentelemetry.trace import SpanKind, Status, StatusCode

        tracer, duration = self._instruments()
        parent = trace.set_span_in_context(span)
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
                attributes["http.request.resend_count"] = attempt.resend_count
            if not span.is_recording():
                continue
            child = tracer.start_span(
                f"{attempt.method} {attempt.url_template}",
                context=parent,
                kind=SpanKind.CLIENT,
                attributes=attributes,
                start_time=attempt.started_at_unix_nanos,
            )
            child.set_attribute("sika.request_id", attempt.request_id)
            if attempt.error_type is not None:
                child.set_status(Status(StatusCode.ERROR))
            child.end(end_time=attempt.ended_at_unix_nanos)


def _install() -> None:
    if importlib.util.find_spec("opentelemetry") is None or importlib.util.find_spec("opentelemetry.trace") is None:
        return
    set_tracer(_OpenTelemetry())


_install()

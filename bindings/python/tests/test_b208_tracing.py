"""B208: Sika's calls in the application's OpenTelemetry (issue 30, ADR 0058), read back through
the OpenTelemetry SDK's in-memory exporters.

A call made inside the application's span is a child span `sika.<method>`; its requests carry
that span's W3C context to the service (the sandbox's request log shows what it received); a
call retried twice has three attempt spans `GET /transaction/verify/{reference}` with the HTTP
client attributes, exactly; their durations are in `http.client.request.duration`; no key,
phone number or e-mail is in any span or metric. Without an OpenTelemetry SDK nothing is sent."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult

import sika
import test_b54_async_shutdown as b54
from support import KEY, charge, transaction_object

TEMPLATE = "/transaction/verify/{reference}"


class Switch(Sampler):
    """Samples every span while on: the global providers outlive the module (OpenTelemetry sets
    them once per process), and the later tests' calls must not pile spans up in memory (B33)."""

    on = True

    def should_sample(self, parent_context, trace_id, name, kind=None, attributes=None, links=None, trace_state=None):
        decision = Decision.RECORD_AND_SAMPLE if self.on else Decision.DROP
        return SamplingResult(decision, attributes if self.on else None)

    def get_description(self) -> str:
        return "on while the B208 tests run"


class Telemetry:
    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.metrics = InMemoryMetricReader()
        self.switch = Switch()
        provider = TracerProvider(sampler=self.switch)
        provider.add_span_processor(SimpleSpanProcessor(self.spans))
        trace.set_tracer_provider(provider)
        self.meter_provider = MeterProvider(metric_readers=[self.metrics])
        metrics.set_meter_provider(self.meter_provider)

    def close(self) -> None:
        self.switch.on = False
        self.spans.clear()
        self.meter_provider.shutdown()

    def finished(self) -> dict[str, list]:
        by_name: dict[str, list] = {}
        for span in self.spans.get_finished_spans():
            by_name.setdefault(span.name, []).append(span)
        return by_name


@pytest.fixture(scope="module")
def telemetry():
    # The global providers can be set once per process: the module's tests share them.
    telemetry = Telemetry()
    yield telemetry
    telemetry.close()


@pytest.fixture
def spans(telemetry):
    telemetry.spans.clear()
    return telemetry


def traceparent_of(span) -> str:
    context = span.get_span_context()
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"


@pytest.mark.parametrize("kind", ["blocking", "async"])
async def test_b208_a_call_retried_twice_is_a_child_span_with_three_attempts(spans, sandbox, kind):
    sandbox.seed_transaction(transaction_object("B208-PAID", "successful", "100.10"))
    sandbox.fault("/transaction/verify", "status", count=2, status=503)
    sandbox.clear_requests()
    tracer = trace.get_tracer("shop")
    with tracer.start_as_current_span("POST /orders/pay") as request:
        if kind == "blocking":
            transaction = sandbox.blocking_client(max_retries=3).verify_transaction("B208-PAID")
        else:
            transaction = await sandbox.client(max_retries=3).verify_transaction("B208-PAID")
    assert transaction.tx_ref == "B208-PAID"
    finished = spans.finished()
    (call,) = finished["sika.verify_transaction"]
    assert call.parent.span_id == request.get_span_context().span_id
    assert call.context.trace_id == request.get_span_context().trace_id
    assert dict(call.attributes) == {"sika.operation": "verify_transaction", "sika.reference": "B208-PAID"}
    attempts = sorted(finished[f"GET {TEMPLATE}"], key=lambda span: span.start_time)
    assert [span.parent.span_id for span in attempts] == [call.context.span_id] * 3
    port = int(sandbox.url.rsplit(":", 1)[1])
    expected = {
        "http.request.method": "GET",
        "server.address": "127.0.0.1",
        "server.port": port,
        "url.template": TEMPLATE,
    }
    ids = [entry["request_id"] for entry in sandbox.requests()]
    assert [dict(span.attributes) for span in attempts] == [
        {**expected, "http.response.status_code": 503, "error.type": "503", "sika.request_id": ids[0]},
        {
            **expected,
            "http.response.status_code": 503,
            "error.type": "503",
            "http.request.resend_count": 1,
            "sika.request_id": ids[1],
        },
        {**expected, "http.response.status_code": 200, "http.request.resend_count": 2, "sika.request_id": ids[2]},
    ]
    assert all(span.end_time <= later.start_time for span, later in zip(attempts, attempts[1:]))
    # Every request carried the call span's context to the service.
    assert [entry["traceparent"] for entry in sandbox.requests()] == [traceparent_of(call)] * 3


def test_b208_a_failed_call_names_its_error_and_request_id(spans, sandbox):
    client = sandbox.blocking_client(max_retries=0, not_found_grace_ms=0)
    with pytest.raises(sika.SikaError.TransactionNotFound) as raised:
        client.verify_transaction("B208-MISSING")
    (call,) = spans.finished()["sika.verify_transaction"]
    assert call.attributes["error.type"] == "TransactionNotFound"
    assert call.attributes["sika.request_id"] == raised.value.request_id
    assert call.status.status_code == trace.StatusCode.ERROR


def test_b208_no_secret_in_any_span_or_metric(spans, sandbox):
    client = sandbox.blocking_client()
    request = charge("B208-CHARGE", "+233244125678")
    client.initiate_charge(request)
    text = json.dumps(
        [json.loads(span.to_json()) for span in spans.spans.get_finished_spans()]
        + [json.loads(spans.metrics.get_metrics_data().to_json())]
    )
    assert "sika.initiate_charge" in text and "/charge" in text
    for secret in [KEY, request.phone_number, "244125678", request.email]:
        assert secret not in text


def test_b208_the_attempts_durations_are_in_the_http_client_histogram(spans, sandbox):
    sandbox.seed_transaction(transaction_object("B208-TIMED", "successful", "100.10"))
    sandbox.blocking_client().verify_transaction("B208-TIMED")
    points = [
        point
        for resource in spans.metrics.get_metrics_data().resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == "http.client.request.duration"
        for point in metric.data.data_points
    ]
    assert metric_unit(spans) == "s"
    ok = [p for p in points if p.attributes.get("http.response.status_code") == 200]
    assert ok and ok[0].count >= 1 and ok[0].attributes["url.template"] == TEMPLATE


def metric_unit(spans) -> str:
    for resource in spans.metrics.get_metrics_data().resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == "http.client.request.duration":
                    return metric.unit
    return ""


def test_b208_without_an_opentelemetry_sdk_nothing_is_sent(sandbox):
    # A process with opentelemetry-api but no SDK configured: the call is not traced.
    sandbox.seed_transaction(transaction_object("B208-PLAIN", "successful", "100.10"))
    sandbox.clear_requests()
    script = (
        "import sika, sys;"
        "config = sika.ClientConfig(secret_key=sika.SecretKey(sys.argv[1]), base_url=sys.argv[2]);"
        "print(sika.BlockingClient(config).verify_transaction('B208-PLAIN').tx_ref)"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script, KEY, sandbox.url], capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 0 and ran.stdout.strip() == "B208-PLAIN", ran.stderr
    assert [(entry["traceparent"], entry["tracestate"]) for entry in sandbox.requests()] == [(None, None)]


def points_of(spans, name: str) -> list:
    data = spans.metrics.get_metrics_data()  # None before anything was recorded
    return [
        point
        for resource in (data.resource_metrics if data is not None else [])
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == name
        for point in metric.data.data_points
    ]


def test_b208_an_unsampled_call_still_sends_its_context_and_records_its_metrics(spans, sandbox):
    # Sampling off: the call's span records nothing (no span is exported), but the call still
    # carries its unsampled W3C context (the sampled flag off) to the service, and its attempts' durations
    # and retries are still in the metrics (ADR 0059: the bridge's cheaper path changes neither).
    sandbox.seed_transaction(transaction_object("B208-UNSAMPLED", "successful", "100.10"))
    sandbox.fault("/transaction/verify", "status", count=1, status=503)
    sandbox.clear_requests()

    def counts() -> tuple[int, int]:
        failed = [
            p.count
            for p in points_of(spans, "http.client.request.duration")
            if p.attributes.get("http.response.status_code") == 503
        ]
        retried = [p.value for p in points_of(spans, "sika.client.retries") if p.attributes["sika.operation"] == "verify_transaction"]
        return sum(failed), sum(retried)

    before = counts()
    spans.switch.on = False
    try:
        transaction = sandbox.blocking_client(max_retries=2).verify_transaction("B208-UNSAMPLED")
    finally:
        spans.switch.on = True
    assert transaction.tx_ref == "B208-UNSAMPLED"
    assert spans.finished() == {}
    sent = [entry["traceparent"] for entry in sandbox.requests()]
    assert len(sent) == 2 and sent[0] == sent[1], sent
    assert re.fullmatch(r"00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}", sent[0]), sent
    assert int(sent[0][-2:], 16) & 1 == 0, sent  # the sampled flag is off
    after = counts()
    assert (after[0] - before[0], after[1] - before[1]) == (1, 1), (before, after)


def test_b208_retries_and_decisions_are_counted(spans, sandbox):
    sandbox.seed_transaction(transaction_object("B208-DECIDED", "successful", "100.10"))
    sandbox.fault("/transaction/verify", "status", count=1, status=503)
    client = sandbox.blocking_client(max_retries=2)
    check = client.confirm_payment("B208-DECIDED", sika.ExpectedPayment(amount="100.10", currency="GHS"))
    assert check.is_confirmed
    retries = [p for p in points_of(spans, "sika.client.retries") if p.attributes["sika.operation"] == "confirm_payment"]
    assert [p.value for p in retries] == [1]
    decisions = {
        (p.attributes["sika.operation"], p.attributes["sika.decision"]): p.value
        for p in points_of(spans, "sika.decisions")
    }
    assert decisions.get(("confirm_payment", "confirmed")) == 1, decisions
    (call,) = spans.finished()["sika.confirm_payment"]
    assert call.attributes["sika.decision"] == "confirmed"


def test_b208_a_fastapi_request_span_is_the_parent_of_the_call(spans, sandbox):
    from fastapi import FastAPI
    from fastapi.testclient import TestClient
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

    sandbox.seed_transaction(transaction_object("B208-SHOP", "successful", "100.10"))
    client = sandbox.client()
    app = FastAPI()

    @app.get("/orders/{reference}")
    async def order(reference: str) -> dict[str, str]:
        return {"status": (await client.verify_transaction(reference)).status}

    FastAPIInstrumentor.instrument_app(app)
    try:
        with TestClient(app) as http:
            assert http.get("/orders/B208-SHOP").json() == {"status": "successful"}
    finally:
        FastAPIInstrumentor.uninstrument_app(app)
    finished = spans.finished()
    (request,) = finished["GET /orders/{reference}"]
    (call,) = finished["sika.verify_transaction"]
    assert call.parent.span_id == request.context.span_id
    assert [entry["traceparent"] for entry in sandbox.requests()][-1] == traceparent_of(call)


# B54's exit race with every call traced: the child configures an OpenTelemetry SDK.
TRACED = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

provider = TracerProvider(shutdown_on_exit=False)  # its own exit hook is not under test
provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
trace.set_tracer_provider(provider)
"""


def test_b184_interpreter_exit_with_traced_async_calls_in_flight_is_clean(sandbox, tmp_path):
    # Python run from inside a poll by a daemon thread while the interpreter exits aborted the
    # process (the bridge's callbacks, ADR 0059): the bridge now runs in the methods' frames.
    sandbox.fault("/transaction/verify", "hang", count=10_000)
    sandbox.fault("/bank", "delay", count=100_000, delay_ms=b54.ANSWER_DELAY_MS)
    script = tmp_path / "traced_exit_with_calls_in_flight.py"
    body = b54.CALLS_IN_FLIGHT.format(stagger=b54.STAGGER_S, exit_after=b54.EXIT_AFTER_S) + "sys.exit(0)\n"
    script.write_text(b54.PREAMBLE + TRACED + textwrap.dedent(body))
    b54.assert_all_clean(b54.run_children(script, sandbox, "asyncio"))


@pytest.mark.parametrize("kind", ["blocking", "async"])
async def test_b305_the_ledgers_operations_are_spans_under_the_merchants_with_verifications_as_children(
    spans, sandbox, tmp_path, kind
):
    """B305: each ledger operation (ADR 0085) is a span `sika.ledger.<operation>`, a child of
    the merchant's span; the verification it sends is its attempt span and carries its context;
    the fulfilment block's renewals and mark are spans of the same trace; claims offered and
    fulfilments are counted."""
    reference = f"B305-{kind.upper()}"
    order = sika.ExpectedPayment(amount="100.10", currency="GHS")
    sandbox.seed_transaction(transaction_object(reference, "successful", "100.10"))
    blocking = sika.BlockingLedger.sqlite(str(tmp_path / "ledger.db"), sika.LedgerOptions(lease_ms=600))
    blocking.expect(reference, order)
    body = json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()
    counters = ["sika.ledger.claims.offered", "sika.ledger.fulfilments"]
    before = {name: sum(p.value for p in points_of(spans, name)) for name in counters}
    spans.spans.clear()
    sandbox.clear_requests()
    tracer = trace.get_tracer("shop")
    with tracer.start_as_current_span("POST /webhooks/sika") as request:
        if kind == "blocking":
            decision = blocking.handle_webhook(sandbox.blocking_client(), body)
            with blocking.fulfilment(decision.claim):
                pass
        else:
            ledger = blocking.async_ledger()
            decision = await ledger.handle_webhook(sandbox.client(), body)
            async with ledger.fulfilment(decision.claim):
                pass
    assert isinstance(decision, sika.LedgerDecision.FULFIL)
    finished = spans.finished()
    (decide,) = finished["sika.ledger.handle_webhook"]
    merchant = request.get_span_context()
    assert decide.parent.span_id == merchant.span_id
    assert decide.context.trace_id == merchant.trace_id
    assert decide.attributes["sika.operation"] == "ledger.handle_webhook"
    assert decide.attributes["sika.decision"] == "fulfil"
    (verification,) = finished[f"GET {TEMPLATE}"]
    assert verification.parent.span_id == decide.context.span_id, "the verification is the decision's child"
    assert [entry["traceparent"] for entry in sandbox.requests()] == [traceparent_of(decide)]
    for operation in ["sika.ledger.renew", "sika.ledger.mark_fulfilled"]:
        for span in finished[operation]:
            assert span.parent.span_id == merchant.span_id, operation
            assert span.attributes["sika.reference"] == reference
    after = {name: sum(p.value for p in points_of(spans, name)) for name in counters}
    assert {name: after[name] - before[name] for name in counters} == dict.fromkeys(counters, 1)


def test_b305_a_claim_given_back_is_counted_and_its_next_offer_is_counted_again(spans, sandbox, tmp_path):
    """B305: a fulfilment block that raises releases its claim (a `sika.ledger.release` span under
    the merchant's, `sika.ledger.claims.released`); the next delivery's claim is offer 2, counted
    in `sika.ledger.claims.reoffered` as well as offered."""
    reference = "B305-RELEASED"
    sandbox.seed_transaction(transaction_object(reference, "successful", "100.10"))
    ledger = sika.BlockingLedger.sqlite(str(tmp_path / "ledger.db"))
    ledger.expect(reference, sika.ExpectedPayment(amount="100.10", currency="GHS"))
    body = json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()
    client = sandbox.blocking_client()
    counters = [f"sika.ledger.claims.{name}" for name in ("offered", "reoffered", "released")]
    before = {name: sum(p.value for p in points_of(spans, name)) for name in counters}
    spans.spans.clear()
    with trace.get_tracer("shop").start_as_current_span("POST /webhooks/sika") as request:
        first = ledger.handle_webhook(client, body)
        with pytest.raises(ConnectionError), ledger.fulfilment(first.claim):
            raise ConnectionError("carrier API unreachable")
    (release,) = spans.finished()["sika.ledger.release"]
    assert release.parent.span_id == request.get_span_context().span_id
    assert release.attributes["sika.reference"] == reference
    again = ledger.handle_webhook(client, body)
    assert isinstance(again, sika.LedgerDecision.FULFIL) and again.claim.offer == 2, again
    after = {name: sum(p.value for p in points_of(spans, name)) for name in counters}
    deltas = {name: after[name] - before[name] for name in counters}
    assert deltas == {counters[0]: 2, counters[1]: 1, counters[2]: 1}, deltas

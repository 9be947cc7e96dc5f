"""The payment-safety layer (B21-B27): confirm_payment, handle_webhook, await_final_status,
phone numbers, charges whose outcome is unknown, retries and the bank cache."""

import asyncio
import http.server
import threading
import time
from decimal import Decimal

import pytest

import sika
from support import charge, check_call_row, scenario_cases, scenario_rows

ORDER = sika.ExpectedPayment(amount=Decimal("25.00"), currency="GHS")
FAST = dict(initial_delay_ms=50, interval_ms=50, max_interval_ms=200)


def notification(reference: str) -> bytes:
    return b'{"event":"charge.success","data":{"reference":"' + reference.encode() + b'"}}'


@pytest.mark.parametrize("row", scenario_rows("b21_confirm_payment.json"))
async def test_b21_confirm_payment_confirms_only_an_exact_match(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


@pytest.mark.parametrize("row", scenario_rows("b22_webhook_decisions.json"))
async def test_b22_a_webhook_is_decided_only_after_verification(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


def test_b22_parse_webhook_event_is_unverified_and_typed():
    event = sika.parse_webhook_event(notification("R-1"))
    assert (event.event, event.reference) == ("charge.success", "R-1")
    with pytest.raises(sika.SikaError.InvalidInput) as raised:
        sika.parse_webhook_event(b"{")
    assert raised.value.field == "webhook"


async def test_b23_await_final_status_follows_the_ussd_answer(client):
    for suffix, expected in [("0000", sika.TransactionStatus.SUCCESSFUL()), ("1111", sika.TransactionStatus.FAILED())]:
        reference = f"WAIT-{suffix}"
        await client.initiate_charge(charge(reference, f"+23324412{suffix}"))
        transaction = await client.await_final_status(reference, sika.AwaitOptions(timeout_ms=5000, **FAST))
        assert transaction.status == expected


async def test_b23_a_customer_who_never_answers_times_out_within_the_budget(client):
    await client.initiate_charge(charge("WAIT-3333", "+233244123333"))
    started = time.monotonic()
    with pytest.raises(sika.SikaError.Timeout):
        await client.await_final_status("WAIT-3333", sika.AwaitOptions(timeout_ms=600, **FAST))
    assert time.monotonic() - started < 3


async def test_b23_a_cancellation_handle_stops_the_wait_and_the_polling(sandbox):
    client = sandbox.client()
    await client.initiate_charge(charge("WAIT-CANCEL", "+233244123333"))
    cancellation = sika.Cancellation()
    options = sika.AwaitOptions(timeout_ms=60_000, cancellation=cancellation, **FAST)
    waiting = asyncio.ensure_future(client.await_final_status("WAIT-CANCEL", options))
    await asyncio.sleep(0.3)
    cancellation.cancel()
    with pytest.raises(sika.SikaError.Cancelled):
        await asyncio.wait_for(waiting, timeout=2)
    polls = len(sandbox.requests())
    await asyncio.sleep(0.3)
    assert len(sandbox.requests()) == polls, "no verification after cancellation"


def test_b23_a_blocking_wait_is_cancelled_from_another_thread(sandbox):
    client = sandbox.blocking_client()
    client.initiate_charge(charge("WAIT-THREAD", "+233244123333"))
    cancellation = sika.Cancellation()
    threading.Timer(0.3, cancellation.cancel).start()
    started = time.monotonic()
    with pytest.raises(sika.SikaError.Cancelled):
        client.await_final_status("WAIT-THREAD", sika.AwaitOptions(timeout_ms=60_000, cancellation=cancellation, **FAST))
    assert time.monotonic() - started < 2


async def test_b23_cancelling_the_asyncio_task_stops_the_rust_work(sandbox):
    client = sandbox.client()
    await client.initiate_charge(charge("WAIT-TASK", "+233244123333"))
    task = asyncio.ensure_future(client.await_final_status("WAIT-TASK", sika.AwaitOptions(timeout_ms=60_000, **FAST)))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    polls = len(sandbox.requests())
    await asyncio.sleep(0.4)
    assert len(sandbox.requests()) == polls, "the Rust future kept polling after the task was cancelled"


@pytest.mark.parametrize(
    "case", scenario_cases("b24_phone_numbers.json"), ids=lambda case: f"{case['input']!r} {case['country']}"
)
def test_b24_normalize_phone_number(case):
    expect = case["expect"]
    if "normalized" in expect:
        assert sika.normalize_phone_number(case["input"], case["country"]) == expect["normalized"]
    else:
        with pytest.raises(sika.SikaError.InvalidInput) as raised:
            sika.normalize_phone_number(case["input"], case["country"])
        assert raised.value.field == expect["invalid_input"]


@pytest.mark.parametrize("row", scenario_rows("b25_lost_charge.json"))
async def test_b25_a_charge_whose_answer_is_lost_is_outcome_unknown_and_sent_once(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


@pytest.mark.parametrize("row", scenario_rows("b26_retries.json"))
async def test_b26_reads_are_retried_and_charges_are_not(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


@pytest.mark.parametrize("row", scenario_rows("b27_bank_cache.json"))
async def test_b27_bank_lists_are_cached_and_refresh_bypasses_the_cache(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


def test_b22_repeated_real_deliveries_each_get_the_same_verified_decision(sandbox):
    """The sandbox delivers the charge.success notification three times to a real endpoint,
    whose handler lets Sika decide; every delivery is verified and answered alike."""
    client = sandbox.blocking_client()
    decisions = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            decision = client.handle_webhook(body, sika.ExpectedPayment(amount=Decimal("20"), currency="GHS"))
            decisions.append(decision)
            self.send_response(decision.http_status())
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sandbox.settings(webhook_url=f"http://127.0.0.1:{server.server_port}/webhooks/sika", webhook_repeat=3)
        client.initiate_charge(charge("HOOK-E2E", "+233244120000"))
        deadline = time.monotonic() + 5
        while len(decisions) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        server.shutdown()
    assert len(decisions) == 3
    assert all(isinstance(d, sika.WebhookDecision.FULFIL) for d in decisions)
    assert decisions[0] == decisions[1] == decisions[2]
    assert [d["http_status"] for d in sandbox.webhooks()] == [200, 200, 200]


@pytest.mark.parametrize("row", scenario_rows("b36_answer_about_another_reference.json"))
async def test_b36_an_answer_about_another_reference_is_never_a_transaction_of_this_one(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)

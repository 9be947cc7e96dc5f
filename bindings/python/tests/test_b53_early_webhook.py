"""B53: a reference the service does not know yet gets a grace period (ADR 0023), through both
clients. The parameters come from the `early_webhook` scenario of tests/fixtures/faults.json."""

import json
import threading
import time
from decimal import Decimal

import pytest

import sika
from support import FIXTURES_DIR, transaction_object

SCENARIOS = json.loads((FIXTURES_DIR / "faults.json").read_text())["scenarios"]
SCENARIO = next(scenario for scenario in SCENARIOS if scenario["id"] == "early_webhook")
SETUP = SCENARIO["setup"]
GRACE_MS = SETUP["not_found_grace_ms"]
ORDER = sika.ExpectedPayment(amount=Decimal(SETUP["amount"]), currency=SETUP["currency"])
AWAIT = sika.AwaitOptions(**SETUP["await"])


def notification(reference: str) -> bytes:
    return json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()


def test_b53_the_scenario_is_this_behaviour():
    assert SCENARIO["behaviour"] == "B53"


async def test_b53_an_early_webhook_is_retried_and_fulfilled_once_the_reference_is_visible(sandbox, make_client):
    client = make_client(not_found_grace_ms=GRACE_MS)
    reference = SETUP["reference"]
    early = await client.handle_webhook(notification(reference), ORDER)
    assert isinstance(early, sika.WebhookDecision.RETRY_LATER), early
    assert (early.acknowledge(), early.http_status()) == (False, 503)
    assert "does not know the reference yet" in early.reason

    sandbox.seed_transaction(transaction_object(reference, "successful", SETUP["amount"]))
    redelivered = await client.handle_webhook(notification(reference), ORDER)
    assert isinstance(redelivered, sika.WebhookDecision.FULFIL), redelivered
    assert redelivered.transaction.tx_ref == reference


async def test_b53_an_unknown_reference_is_retried_within_the_grace_and_rejected_after_it(make_client):
    client = make_client(not_found_grace_ms=GRACE_MS)
    body = notification("EARLY-NEVER-CHARGED")
    started = time.monotonic()
    assert (await client.handle_webhook(body, ORDER)).http_status() == 503
    again = await client.handle_webhook(body, ORDER)
    assert time.monotonic() - started < GRACE_MS / 1000, "the machine was too slow to check within the grace"
    assert again.http_status() == 503, "a redelivery within the grace does not restart it, nor end it"

    time.sleep(GRACE_MS / 1000)
    late = await client.handle_webhook(body, ORDER)
    assert isinstance(late, sika.WebhookDecision.REJECT), late
    assert late.http_status() == 400
    assert "still does not know" in late.reason


async def test_b53_without_a_grace_an_unknown_reference_is_rejected_at_once(make_client):
    client = make_client(not_found_grace_ms=0)
    decision = await client.handle_webhook(notification("EARLY-NO-GRACE"), ORDER)
    assert isinstance(decision, sika.WebhookDecision.REJECT), decision


def test_b53_a_negative_grace_is_invalid_input(sandbox):
    with pytest.raises(sika.SikaError.InvalidInput) as raised:
        sandbox.client(not_found_grace_ms=-1)
    assert raised.value.field == "not_found_grace_ms"


async def test_b53_await_final_status_ends_with_not_found_once_the_grace_is_over(make_client):
    client = make_client(not_found_grace_ms=GRACE_MS)
    started = time.monotonic()
    with pytest.raises(sika.SikaError.TransactionNotFound):
        await client.await_final_status("AWAIT-NEVER-CHARGED", AWAIT)
    waited_ms = (time.monotonic() - started) * 1000
    assert waited_ms >= GRACE_MS, f"ended before the grace: {waited_ms:.0f} ms"
    bound_ms = GRACE_MS + SETUP["await"]["max_interval_ms"] + 2000
    assert waited_ms < bound_ms, f"retried past the grace: {waited_ms:.0f} ms (timeout {AWAIT.timeout_ms} ms)"


async def test_b53_await_final_status_sees_a_charge_that_becomes_visible_during_the_grace(sandbox, make_client):
    client = make_client(not_found_grace_ms=GRACE_MS)
    reference = "AWAIT-EARLY"
    object_text = transaction_object(reference, "successful", SETUP["amount"])
    # A thread: the blocking client's wait holds this coroutine's thread.
    seeding = threading.Timer(GRACE_MS / 3000, sandbox.seed_transaction, args=[object_text])
    seeding.start()
    try:
        transaction = await client.await_final_status(reference, AWAIT)
    finally:
        seeding.join()
    assert transaction.status == sika.TransactionStatus.SUCCESSFUL()

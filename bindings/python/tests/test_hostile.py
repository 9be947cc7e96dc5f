"""B29: a broken or hostile service. Every fault of tests/fixtures/faults.json, injected on
/transaction/verify, ends in its typed error within the deadline, through the async `Client` and
the `BlockingClient` alike; a duplicated `status` never reads as paid."""

import json
import time
from decimal import Decimal

import pytest

import sika
from support import FIXTURES_DIR, KEY, transaction_object

FAULTS = json.loads((FIXTURES_DIR / "faults.json").read_text())
CASES = FAULTS["cases"]
BUDGET_S = FAULTS["budget_ms"] / 1000
LIMIT_S = (FAULTS["budget_ms"] + FAULTS["slack_ms"]) / 1000


def hostile_client(make_client):
    """A client of the test's kind (async or blocking) with the fault list's budget and retries."""
    return make_client(timeout_ms=FAULTS["budget_ms"], max_retries=FAULTS["max_retries"])


def test_b29_the_fault_list_is_complete():
    # A shrunken list would let the parametrized test below pass on fewer faults.
    assert len(CASES) >= 18
    assert len({case["id"] for case in CASES}) == len(CASES)
    assert {case["kind"] for case in CASES} >= {
        "status", "reset", "hang", "delay", "truncate", "drip", "body", "huge", "deep_json", "duplicate_keys", "non_utf8",
    }  # fmt: skip


def test_b29_every_case_expects_an_error_or_a_confirmed_payment():
    for case in CASES:
        assert ("error" in case) != (case.get("outcome") == "confirmed"), case["id"]
    # The faults the SDK must survive (verify and confirm still succeed) are listed too.
    assert any(case.get("outcome") == "confirmed" for case in CASES)


ERROR_CASES = [case for case in CASES if "error" in case]
CONFIRMED_CASES = [case for case in CASES if case.get("outcome") == "confirmed"]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda case: case["id"])
async def test_b29_every_fault_is_a_typed_error_within_the_deadline(sandbox, make_client, case):
    sandbox.seed_transaction(transaction_object("HOSTILE-1", "successful", "10"))
    sandbox.fault("/transaction/verify", case["kind"], count=FAULTS["count"], **case["options"])
    client = hostile_client(make_client)

    started = time.monotonic()
    with pytest.raises(sika.SikaError) as raised:
        await client.verify_transaction("HOSTILE-1")
    elapsed = time.monotonic() - started

    error = raised.value
    assert type(error).__name__ == case["error"], f"{case['id']}: {error!r} ({error})"
    assert elapsed < LIMIT_S, f"{case['id']}: took {elapsed:.2f} s, the limit is {LIMIT_S} s"
    if case["error"] == "Timeout":
        # Ended by the deadline, not by an early give-up that would hide a hang.
        assert elapsed >= BUDGET_S * 0.8, f"{case['id']}: gave up after {elapsed:.2f} s"
    assert str(error), "every error carries the core's message"
    assert KEY not in str(error) and KEY not in repr(error)
    # B64: whatever the service sent (a 7 MB message), the error's text is bounded.
    assert len(str(error)) <= FAULTS["max_message_chars"], f"{case['id']}: {len(str(error))} characters"
    assert len(repr(error)) <= 2 * FAULTS["max_message_chars"], f"{case['id']}: repr of {len(repr(error))}"
    # One attempt plus at most max_retries, never more, whatever the fault.
    sent = [request for request in sandbox.requests() if request["path"] == "/transaction/verify/HOSTILE-1"]
    assert 1 <= len(sent) <= 1 + FAULTS["max_retries"], f"{case['id']}: {len(sent)} attempts"


@pytest.mark.parametrize("case", CONFIRMED_CASES, ids=lambda case: case["id"])
async def test_b29_a_fault_the_sdk_survives_still_confirms_the_payment(sandbox, make_client, case):
    sandbox.seed_transaction(transaction_object("HOSTILE-1", "successful", "10"))
    sandbox.fault("/transaction/verify", case["kind"], count=FAULTS["count"], **case["options"])
    client = hostile_client(make_client)

    started = time.monotonic()
    transaction = await client.verify_transaction("HOSTILE-1")
    assert time.monotonic() - started < LIMIT_S, case["id"]
    assert transaction.status == sika.TransactionStatus.SUCCESSFUL(), case["id"]
    # The same client again, the fault still in place (count answers): the payment is confirmed.
    started = time.monotonic()
    check = await client.confirm_payment("HOSTILE-1", sika.ExpectedPayment(amount=Decimal("10"), currency="GHS"))
    assert time.monotonic() - started < LIMIT_S, case["id"]
    assert isinstance(check, sika.PaymentCheck.CONFIRMED), f"{case['id']}: {check}"


async def test_b29_a_duplicated_status_never_reads_as_paid(sandbox, make_client):
    sandbox.seed_transaction(transaction_object("DUP-1", "failed", "10"))
    client = hostile_client(make_client)

    sandbox.fault("/transaction/verify", "duplicate_keys", first="failed", second="successful")
    with pytest.raises(sika.SikaError.UnexpectedResponse):
        await client.verify_transaction("DUP-1")

    # The payment-safety layer reads the same answer: an error, never Confirmed or Fulfil.
    sandbox.fault("/transaction/verify", "duplicate_keys", first="failed", second="successful")
    with pytest.raises(sika.SikaError.UnexpectedResponse):
        await client.confirm_payment("DUP-1", sika.ExpectedPayment(amount=Decimal("10"), currency="GHS"))
    sandbox.fault("/transaction/verify", "duplicate_keys", first="failed", second="successful")
    decision = await client.handle_webhook(
        b'{"event":"charge.success","data":{"reference":"DUP-1"}}',
        sika.ExpectedPayment(amount=Decimal("10"), currency="GHS"),
    )
    # Not verified, so not fulfilled: the sender is asked to deliver it again later.
    assert isinstance(decision, sika.WebhookDecision.RETRY_LATER), decision
    assert (decision.acknowledge(), decision.http_status()) == (False, 503)

    # Without the fault the transaction is what it is: failed.
    assert (await client.verify_transaction("DUP-1")).status == sika.TransactionStatus.FAILED()


async def test_b29_a_fault_on_one_endpoint_leaves_the_others_alone(sandbox, make_client):
    sandbox.fault("/transaction/verify", "hang")
    providers = await hostile_client(make_client).list_mobile_money_providers()
    assert [provider.code for provider in providers] == ["MTN", "VODAFONE", "AIRTELTIGO"]


# B50: a service that echoes the key, whole or cut, or forges log lines with control characters.
ECHO_CASES = [case for case in CASES if case["kind"] == "echo_key"]
LINE_BREAKS = ("\n", "\r", "\u2028", "\u2029", "\x85")


def key_fragments(key: str, length: int = 8) -> set[str]:
    """Every fragment of the key the scrubber must remove (8 characters or more contain one)."""
    return {key[start : start + length] for start in range(len(key) - length + 1)}


def assert_fit_to_leave(text: str, what: str) -> None:
    leaked = [fragment for fragment in key_fragments(KEY) if fragment in text]
    assert not leaked, f"{what}: fragments of the key {leaked} in {text!r}"
    assert not any(brk in text for brk in LINE_BREAKS), f"{what}: a raw line break in {text!r}"


def test_b50_the_echoed_key_faults_are_listed():
    assert len(ECHO_CASES) >= 3


@pytest.mark.parametrize("case", ECHO_CASES, ids=lambda case: case["id"])
async def test_b50_echoed_key_fragments_and_line_breaks_never_leave_in_an_error(sandbox, make_client, case):
    sandbox.seed_transaction(transaction_object("HOSTILE-1", "successful", "10"))
    sandbox.fault("/transaction/verify", case["kind"], count=FAULTS["count"], **case["options"])
    with pytest.raises(sika.SikaError) as raised:
        await hostile_client(make_client).verify_transaction("HOSTILE-1")
    error = raised.value
    for text in (str(error), repr(error), *(str(value) for value in vars(error).values())):
        assert_fit_to_leave(text, case["id"])
    assert "[REDACTED]" in str(error), f"{case['id']}: the echo was not there to remove: {error}"


@pytest.mark.parametrize("status", [KEY, KEY[3:] + "\nERROR forged"], ids=["whole", "fragment_and_newline"])
async def test_b50_a_key_echoed_as_the_status_never_leaves_in_a_decision_reason(sandbox, make_client, status):
    sandbox.seed_transaction(transaction_object("ECHO-1", status, "10"))
    decision = await hostile_client(make_client).handle_webhook(
        b'{"event":"charge.success","data":{"reference":"ECHO-1"}}',
        sika.ExpectedPayment(amount=Decimal("10"), currency="GHS"),
    )
    assert not isinstance(decision, sika.WebhookDecision.FULFIL), decision
    assert_fit_to_leave(decision.reason, "decision reason")
    # The decision prints its transaction, whose status is the service's data as sent: only
    # the reason is scrubbed of the key, but nothing printed may break the line.
    assert not any(brk in str(decision) for brk in LINE_BREAKS), str(decision)
    assert "[REDACTED]" in decision.reason, decision.reason

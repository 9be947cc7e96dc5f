"""Issue 25: no input reaches InternalError (B63), texts from the service are bounded (B64), and a
key the service echoes into a record's fields is in no record, printed form, decision or log
record (B66). The faults come from tests/fixtures/faults.json."""

import json
import logging
from decimal import Decimal

import pytest

import sika
from support import FIXTURES_DIR, KEY, charge, scenario

FAULTS = json.loads((FIXTURES_DIR / "faults.json").read_text())
ECHO = scenario("echoed_key_in_fields")


def fragments(text: str, length: int = ECHO["fragment_chars"]) -> list[str]:
    """The fragments of the key (of `fragment_chars` characters) that `text` holds."""
    return [KEY[start : start + length] for start in range(len(KEY) - length + 1) if KEY[start : start + length] in text]


def printed_forms(value) -> list[str]:
    """Every way Python prints or serialises a record or object of the SDK."""
    forms = [str(value), repr(value), format(value)]
    if hasattr(value, "to_json"):
        forms.append(value.to_json())
    return forms


# ---- B63: no input reaches InternalError ----------------------------------------------------


@pytest.mark.parametrize("amount", ["1e40", "123456789012345678901234567890", "-1E+29"])
def test_b63_to_json_of_an_amount_the_core_cannot_hold_is_invalid_input(amount):
    expected = sika.ExpectedPayment(amount=Decimal(amount), currency="GHS")
    with pytest.raises(sika.SikaError.InvalidInput) as raised:
        expected.to_json()
    assert raised.value.field == "amount", raised.value
    with pytest.raises(sika.SikaError.InvalidInput):
        charge("B63-1", amount=amount).to_json()


def test_b63_to_json_of_a_representable_amount_still_works():
    assert json.loads(sika.ExpectedPayment(amount=Decimal("10.50"), currency="GHS").to_json())["amount"] == "10.50"


# ---- B64: bounded texts ----------------------------------------------------------------------

OVERSIZED = next(case for case in FAULTS["cases"] if case["id"] == "oversized_message")


async def test_b64_a_7_mb_service_message_gives_an_exception_of_bounded_size(sandbox, make_client):
    sandbox.fault("/transaction/verify", OVERSIZED["kind"], **OVERSIZED["options"])
    with pytest.raises(sika.SikaError.Api) as raised:
        await make_client(max_retries=0).verify_transaction("B64-1")
    error = raised.value
    assert len(str(error)) <= FAULTS["max_message_chars"], len(str(error))
    assert len(repr(error)) <= 2 * FAULTS["max_message_chars"], len(repr(error))
    assert len(error.service_message) <= FAULTS["max_message_chars"], len(error.service_message)
    assert "[cut: 7000000 characters in all]" in str(error), str(error)[-80:]


async def test_b64_a_webhook_decision_reason_is_bounded(sandbox, make_client):
    # An oversized message from verification, seen through the webhook's decision.
    sandbox.fault("/transaction/verify", OVERSIZED["kind"], **OVERSIZED["options"])
    decision = await make_client(max_retries=0).handle_webhook(
        b'{"event":"charge.success","data":{"reference":"B64-2"}}',
        sika.ExpectedPayment(amount=Decimal("10"), currency="GHS"),
    )
    assert len(decision.reason) <= FAULTS["max_message_chars"], len(decision.reason)
    assert len(repr(decision)) <= 2 * FAULTS["max_message_chars"], len(repr(decision))


# ---- B66: a key the service echoes into fields ------------------------------------------------


class Kept(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())
        # Structured extras a JSON formatter would print, whatever they are.
        self.messages.append(repr(record.__dict__))


@pytest.fixture
def kept_log():
    handler = Kept()
    logger = logging.getLogger("sika")
    saved = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(saved)


def echo_fault(sandbox, which: str) -> None:
    setup = ECHO[which]
    sandbox.fault(setup["path"], ECHO["fault_kind"], count=ECHO["count"], body=setup["body"])


def assert_no_key(texts, what: str) -> None:
    sika.flush_log_records(10_000)  # records reach the handlers on the SDK's logging thread
    for text in texts:
        assert not fragments(text), f"{what}: fragments of the key {fragments(text)} in {text[:300]!r}"


async def test_b66_a_key_echoed_into_the_status_is_in_no_record_decision_or_log(sandbox, make_client, kept_log):
    client = make_client(max_retries=0)
    reference = ECHO["reference"]
    expected = sika.ExpectedPayment(amount=Decimal("10"), currency="GHS")

    echo_fault(sandbox, "status_echo")
    transaction = await client.verify_transaction(reference)
    assert transaction.status == sika.TransactionStatus.UNKNOWN(ECHO["marker"]), transaction.status
    assert_no_key(
        [*printed_forms(transaction), transaction.raw_json, *printed_forms(transaction.customer)], "transaction"
    )
    assert ECHO["marker"] in transaction.raw_json

    echo_fault(sandbox, "status_echo")
    check = await client.confirm_payment(reference, expected)
    assert not isinstance(check, sika.PaymentCheck.CONFIRMED), check
    assert_no_key([str(check), repr(check)], "payment check")

    echo_fault(sandbox, "status_echo")
    decision = await client.handle_webhook(
        json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode(), expected
    )
    assert not isinstance(decision, sika.WebhookDecision.FULFIL), decision
    assert_no_key([str(decision), repr(decision), getattr(decision, "reason", "")], "decision")
    assert_no_key(kept_log.messages, "log records")


async def test_b66_a_key_echoed_into_the_tx_ref_is_in_no_error_or_log(sandbox, make_client, kept_log):
    echo_fault(sandbox, "tx_ref_echo")
    with pytest.raises(sika.SikaError) as raised:
        await make_client(max_retries=0).verify_transaction(ECHO["reference"])
    assert type(raised.value).__name__ == ECHO["tx_ref_echo"]["error"], raised.value
    assert_no_key([str(raised.value), repr(raised.value)], "error")
    # The mistyped `domain` is logged naming the transaction by its tx_ref: without the key.
    sika.flush_log_records(10_000)
    assert any("domain" in message for message in kept_log.messages), kept_log.messages
    assert_no_key(kept_log.messages, "log records")


async def test_b66_a_key_echoed_into_a_charge_message_is_in_no_response(sandbox, make_client, kept_log):
    echo_fault(sandbox, "message_echo")
    response = await make_client(max_retries=0).initiate_charge(charge("B66-CHARGE-1"))
    assert ECHO["marker"] in response.message, response.message
    assert_no_key([*printed_forms(response), response.message, response.raw_json, response.data_json], "charge")
    assert_no_key(kept_log.messages, "log records")

"""B51: descriptive fields (all but tx_ref, status, amount and currency) that are missing, null or
of another type read as None, with a warning that never quotes the customer, and the decision
proceeds. B52: times no language can hold (year 0, year 10000, a leap second) read as None through
every call, a cached bank list included; half a second before the epoch crosses exactly. The cases
are tests/fixtures/faults.json's (confirmed outcomes and the scenario `timestamps_out_of_range`)."""

import json
import logging
from decimal import Decimal

import pytest

import sika
from support import FIXTURES_DIR, SEEDED_TRANSACTION, epoch_ms, transaction_object

FAULTS = json.loads((FIXTURES_DIR / "faults.json").read_text())
CASES = {case["id"]: case for case in FAULTS["cases"]}
SCENARIO = next(s for s in FAULTS["scenarios"] if s["id"] == "timestamps_out_of_range")["setup"]
ORDER = sika.ExpectedPayment(amount=Decimal("10"), currency="GHS")
FAST = dict(initial_delay_ms=50, interval_ms=50, max_interval_ms=200)
CUSTOMER = SEEDED_TRANSACTION["object"]["customer"]

# The fields each confirmed case leaves absent (the case's body says why).
ABSENT = {
    "descriptive_field_mistyped": ["id", "domain", "has_invoice", "gateway_ref", "payment_type", "created_at", "updated_at"],
    "descriptive_fields_missing": ["id", "domain", "has_invoice", "gateway_ref", "payment_type", "created_at", "updated_at", "customer"],
    "customer_without_updated_at": [],
    "timestamp_year_10000": ["created_at", "updated_at"],
    "timestamp_leap_second_9999": ["created_at", "updated_at"],
}  # fmt: skip


def notification(reference: str) -> bytes:
    return json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()


@pytest.fixture
def warnings_kept():
    """The `sika` loggers' warnings, kept."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(level=logging.WARNING)
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("sika")
    logger.addHandler(handler)
    yield records
    logger.removeHandler(handler)


@pytest.mark.parametrize("case_id", list(ABSENT))
async def test_b51_b52_a_descriptive_fault_never_stops_the_decision(sandbox, make_client, case_id):
    case = CASES[case_id]
    assert case["outcome"] == "confirmed"
    sandbox.seed_transaction(transaction_object("HOSTILE-1", "successful", "10"))
    sandbox.fault("/transaction/verify", case["kind"], count=4, **case["options"])
    client = make_client()

    transaction = await client.verify_transaction("HOSTILE-1")
    assert (transaction.tx_ref, transaction.status, transaction.amount) == ("HOSTILE-1", "successful", Decimal("10"))
    for field in ABSENT[case_id]:
        assert getattr(transaction, field) is None, f"{case_id}: {field}"
    if case_id == "customer_without_updated_at":
        assert transaction.customer.updated_at is None and transaction.customer.created_at is not None
    if case_id == "descriptive_field_mistyped":
        customer = transaction.customer
        assert (customer.id, customer.name, customer.phone_number, customer.email) == (None, None, None, None)
        assert transaction.custom_fields == []
    # The record is still data: its JSON (absent fields as null) reads back equal.
    assert sika.transaction_from_json(transaction.to_json()) == transaction
    assert all(json.loads(transaction.to_json())[field] is None for field in ABSENT[case_id])

    check = await client.confirm_payment("HOSTILE-1", ORDER)
    assert isinstance(check, sika.PaymentCheck.CONFIRMED), check
    decision = await client.handle_webhook(notification("HOSTILE-1"), ORDER)
    assert isinstance(decision, sika.WebhookDecision.FULFIL), decision
    final = await client.await_final_status("HOSTILE-1", sika.AwaitOptions(timeout_ms=5000, **FAST))
    assert final == transaction


async def test_b51_an_absent_field_is_a_warning_that_never_quotes_the_customer(sandbox, make_client, warnings_kept):
    sandbox.seed_transaction(transaction_object("HOSTILE-1", "successful", "10"))
    case = CASES["descriptive_field_mistyped"]
    sandbox.fault("/transaction/verify", case["kind"], count=1, **case["options"])
    await make_client().verify_transaction("HOSTILE-1")
    sika.flush_log_records(10_000)  # records reach handlers on the SDK's logging thread

    messages = [record.getMessage() for record in warnings_kept if record.name.startswith("sika")]
    for field in ["`id`", "`created_at`", "`has_invoice`", "customer: `phone_number`", "customer: `email`"]:
        assert any(field in message and "read as absent" in message for message in messages), (field, messages)
    assert all("HOSTILE-1" in message for message in messages), messages
    text = "\n".join(messages)
    for secret in ["233244123456", "ama@example.com", "mallory"]:
        assert secret not in text


def with_times(reference: str, text: str) -> str:
    """The seeded transaction with `created_at` and the customer's `updated_at` set to `text`."""
    transaction = json.loads(transaction_object(reference, "successful", "10"))
    transaction["created_at"] = text
    transaction["customer"]["updated_at"] = text
    return json.dumps(transaction)


@pytest.mark.parametrize("text", SCENARIO["absent"] + [SCENARIO["exact"]["text"]])
async def test_b52_a_time_no_language_holds_is_absent_in_every_call(sandbox, make_client, text):
    expected_ms = SCENARIO["exact"]["epoch_ms"] if text == SCENARIO["exact"]["text"] else None
    sandbox.seed_transaction(with_times("B52-1", text))
    client = make_client()

    transaction = await client.verify_transaction("B52-1")
    assert epoch_ms(transaction.created_at) == expected_ms
    assert epoch_ms(transaction.customer.updated_at) == expected_ms
    assert transaction.updated_at is not None, "the other times are read"
    assert json.loads(transaction.to_json())["created_at"] == (None if expected_ms is None else text)
    assert sika.transaction_from_json(transaction.to_json()) == transaction
    check = await client.confirm_payment("B52-1", ORDER)
    assert isinstance(check, sika.PaymentCheck.CONFIRMED) and check.transaction == transaction
    decision = await client.handle_webhook(notification("B52-1"), ORDER)
    assert isinstance(decision, sika.WebhookDecision.FULFIL) and decision.transaction == transaction
    assert await client.await_final_status("B52-1", sika.AwaitOptions(timeout_ms=5000, **FAST)) == transaction

    # A bank list with such a time, then the same list from the cache.
    sandbox.fault("/bank", "body", count=1, body=SCENARIO["bank_list_body"].replace("{time}", text))
    for _ in range(2):
        banks = await client.list_banks("NG")
        assert [bank.code for bank in banks] == ["044"]
        assert epoch_ms(banks[0].created_at) == expected_ms and banks[0].updated_at is not None
    assert len([r for r in sandbox.requests() if r["path"].startswith("/bank")]) == 1, "the second came from the cache"

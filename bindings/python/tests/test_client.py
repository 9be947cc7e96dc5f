"""The clients against the sandbox: every operation and documented error, input rejected
before sending, path safety and the USSD flow. Every test taking `client` runs twice, with
the async Client and with the BlockingClient (B19); core/tests/async_client.rs is the twin."""

import asyncio
import datetime
import decimal
import inspect
import json
import time

import pytest

from sika import (
    BlockingClient,
    Client,
    PaymentType,
    SikaError,
    TransactionStatus,
)
from support import (
    FIXTURES_DIR,
    SEEDED_EXPECTED,
    charge,
    check_call_row,
    epoch_ms,
    scenario_cases,
    scenario_rows,
    transaction_object,
    unknown_keys,
)

GHANA_PROVIDER_CODES = {"MTN", "VODAFONE", "AIRTELTIGO"}  # sandbox fact


@pytest.mark.parametrize("row", scenario_rows("b02_providers_default.json"))
async def test_b02_providers_default_to_ghana_without_sending_a_country(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


@pytest.mark.parametrize("row", scenario_rows("b20_countries.json"))
async def test_b20_the_country_table_has_five_countries_and_nigeria_banks_only(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


@pytest.mark.parametrize(
    "typo",
    [
        {"operation": "countries", "input": {}, "expect": {"count": 5, "sentt": []}},
        {"operation": "countries", "input": {"refrence": "R"}, "expect": {"sent": []}},
        {"operation": "countries", "input": {}, "expect": {"sent": []}, "notes": "x"},
    ],
)
async def test_b170_the_scenario_runner_refuses_an_unknown_key(make_client, sandbox, typo):
    """A key outside the vocabulary (a typo) fails the row before any call, rather than pass
    without checking what it meant to."""
    assert unknown_keys({"operation": "countries", "input": {}, "expect": {"count": 5, "sent": []}, "note": "ok"}) == []
    with pytest.raises(AssertionError, match="keys outside the vocabulary"):
        await check_call_row(sandbox, make_client, typo)


@pytest.mark.parametrize("row", scenario_rows("b03_providers_per_country.json"))
async def test_b03_providers_per_country_are_sent_upper_case(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


@pytest.mark.parametrize("row", scenario_rows("b04_provider_errors.json"))
async def test_b04_provider_errors_are_typed(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


@pytest.mark.parametrize("row", scenario_rows("b05_banks_default.json"))
async def test_b05_banks_default_to_nigeria_with_nuban_accounts(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


@pytest.mark.parametrize("row", scenario_rows("b06_banks_unknown_country.json"))
async def test_b06_banks_of_an_unknown_country_are_an_invalid_country_code(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


@pytest.mark.parametrize("row", scenario_rows("b07_wrong_key.json"))
async def test_b07_a_wrong_key_is_unauthorized_everywhere(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


@pytest.mark.parametrize("row", scenario_rows("b08_verification_errors.json"))
async def test_b08_verification_errors_are_typed(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


async def test_b09_a_seeded_transaction_decodes_exactly(client, sandbox):
    text = transaction_object("ORDER-EXACT", "successful", "100.10", gateway_field="xyz_ref")
    sandbox.seed_transaction(text)
    seeded = json.loads(text, parse_float=decimal.Decimal)

    transaction = await client.verify_transaction("ORDER-EXACT")

    assert isinstance(transaction.amount, decimal.Decimal)
    assert str(transaction.amount) == "100.10", "the scale is kept"
    assert transaction.amount == seeded["amount"]
    assert transaction.gateway_ref == SEEDED_EXPECTED["gateway_ref"]
    assert transaction.status == TransactionStatus.SUCCESSFUL()
    assert transaction.payment_type == PaymentType.MOBILE_MONEY()
    for field in ["created_at", "updated_at"]:
        moment = getattr(transaction, field)
        assert moment.utcoffset() == datetime.timedelta(0), f"{field} is aware UTC"
        assert epoch_ms(moment) == SEEDED_EXPECTED[f"{field}_epoch_ms"], field  # to the millisecond
    customer = transaction.customer
    assert customer.phone_number == SEEDED_EXPECTED["customer_phone_number"]
    assert customer.email == SEEDED_EXPECTED["customer_email"]
    assert json.loads(transaction.raw_json) == json.loads(text), "raw_json is the object as sent"
    assert '"amount":100.10' in transaction.raw_json, "raw_json keeps the number text"


async def test_b09_a_charged_amount_verifies_exactly(client):
    await client.initiate_charge(charge("ORDER-CHARGED", phone="+233244123333", amount="100.10"))
    transaction = await client.verify_transaction("ORDER-CHARGED")
    assert str(transaction.amount) == "100.10"
    assert transaction.status == TransactionStatus.PENDING()


@pytest.mark.parametrize("row", scenario_rows("b10_success_is_unknown.json"))
async def test_b10_success_is_unknown_and_never_paid(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


@pytest.mark.parametrize("row", scenario_rows("b160_reference_shares_key_text.json"))
async def test_b160_a_reference_sharing_text_with_the_key_verifies_as_itself(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


BAD_INPUTS = json.loads((FIXTURES_DIR / "bad_inputs.json").read_text())["cases"]
INVALID_INPUT_ROWS = [row for row in BAD_INPUTS if "invalid_input" in row["expect"]]


def test_b12_the_invalid_input_rows_are_there():
    assert len(INVALID_INPUT_ROWS) >= 40, f"bad_inputs.json's invalid_input rows shrank: {len(INVALID_INPUT_ROWS)}"


@pytest.mark.parametrize("row", INVALID_INPUT_ROWS, ids=lambda row: f"{row['operation']}-{row['note']}")
async def test_b12_rejected_input_sends_nothing(make_client, sandbox, row):
    """B12 runs the `invalid_input` rows of the shared bad-input matrix (B30 runs all of it)."""
    await check_call_row(sandbox, make_client, row)


async def test_b13_a_reference_is_always_one_path_segment(client, sandbox):
    for case in scenario_cases("b13_reference_path.json"):
        reference = case["reference"]
        sandbox.seed_transaction(transaction_object(reference, "pending", "5"))
        sandbox.clear_requests()
        transaction = await client.verify_transaction(reference)
        assert transaction.tx_ref == reference
        [request] = sandbox.requests()
        assert request["path"] == case["sent_path"], reference
        assert request["query"] is None, reference


async def wait_for_final(client, reference, limit_seconds=5.0):
    """Verifies until the status is final or the limit passes; returns the last transaction."""
    deadline = time.monotonic() + limit_seconds
    while True:
        transaction = await client.verify_transaction(reference)
        if transaction.status.is_final() or time.monotonic() > deadline:
            return transaction
        await asyncio.sleep(0.05)


async def test_b14_the_ussd_flow_ends_as_each_test_number_says(client):
    outcomes = {"0000": TransactionStatus.SUCCESSFUL(), "1111": TransactionStatus.FAILED()}
    for suffix in [*outcomes, "3333"]:
        response = await client.initiate_charge(charge(f"USSD-{suffix}", phone=f"+23324412{suffix}"))
        assert response.status is True
        assert (await client.verify_transaction(f"USSD-{suffix}")).status == TransactionStatus.PENDING()
    last_charged = time.monotonic()
    for suffix, outcome in outcomes.items():
        assert (await wait_for_final(client, f"USSD-{suffix}")).status == outcome, suffix
    # Well past the sandbox's 150 ms answer delay: 3333 never answers.
    await asyncio.sleep(max(0.0, last_charged + 0.6 - time.monotonic()))
    assert (await client.verify_transaction("USSD-3333")).status == TransactionStatus.PENDING()


@pytest.mark.parametrize("row", scenario_rows("b15_duplicate_charge.json"))
async def test_b15_a_duplicate_reference_is_an_api_error_409(make_client, sandbox, row):
    await check_call_row(sandbox, make_client, row)


def test_b19_the_blocking_client_makes_plain_calls(sandbox):
    for name in ["list_mobile_money_providers", "list_banks", "verify_transaction", "initiate_charge"]:
        assert inspect.iscoroutinefunction(getattr(Client, name)), name
        assert not inspect.iscoroutinefunction(getattr(BlockingClient, name)), name
    client = sandbox.blocking_client()
    assert {p.code for p in client.list_mobile_money_providers()} == GHANA_PROVIDER_CODES
    assert all(bank.account_type.is_nuban() for bank in client.list_banks("ng"))
    sandbox.seed_transaction(transaction_object("BLOCK-1", "failed", "12.30"))
    transaction = client.verify_transaction("BLOCK-1")
    assert transaction.status == TransactionStatus.FAILED()
    assert str(transaction.amount) == "12.30"
    response = client.initiate_charge(charge("BLOCK-CHARGE", currency="ghs", provider="VODAFONE"))
    assert response.status is True
    with pytest.raises(SikaError.TransactionNotFound):
        client.verify_transaction("NOPE")

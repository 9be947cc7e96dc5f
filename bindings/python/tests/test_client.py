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
    MerchantAction,
    PaymentType,
    SikaError,
    TransactionStatus,
    countries,
)
from support import SEEDED_EXPECTED, charge, epoch_ms, scenario_cases, transaction_object

GHANA_PROVIDER_CODES = {"MTN", "VODAFONE", "AIRTELTIGO"}  # sandbox fact


async def test_b02_providers_default_to_ghana_without_sending_a_country(client, sandbox):
    providers = await client.list_mobile_money_providers()
    assert {p.code for p in providers} == GHANA_PROVIDER_CODES
    assert all(p.country == "Ghana" and p.currency == "GHS" for p in providers)
    [request] = sandbox.requests()
    assert request["path"] == "/mobile-money-providers"
    assert request["query"] is None, "no country parameter is sent"


async def test_b03_providers_per_country_are_sent_upper_case(client, sandbox):
    currency_of = {country.code: country.currency for country in countries()}
    for code, count in [("ke", 2), ("Ug", 2), ("TZ", 2), ("gh", 3)]:  # sandbox facts
        providers = await client.list_mobile_money_providers(code)
        assert len(providers) == count, code
        assert all(p.currency == currency_of[code.upper()] for p in providers), code
    queries = [request["query"] for request in sandbox.requests()]
    assert queries == ["country=KE", "country=UG", "country=TZ", "country=GH"]


async def test_b04_provider_errors_are_typed(client):
    with pytest.raises(SikaError.NoProvidersFound):
        await client.list_mobile_money_providers("NG")
    with pytest.raises(SikaError.InvalidCountryCode):
        await client.list_mobile_money_providers("ZZ")


async def test_b05_banks_default_to_nigeria_with_nuban_accounts(client, sandbox):
    nigeria = await client.list_banks()
    assert nigeria
    assert all(bank.country == "Nigeria" and bank.account_type.is_nuban() for bank in nigeria)
    assert sandbox.requests()[0]["query"] is None, "no country parameter is sent"
    ghana = await client.list_banks("GH")
    assert ghana
    assert all(bank.account_type.is_account_number() for bank in ghana)


async def test_b06_banks_of_an_unknown_country_are_an_invalid_country_code(client):
    with pytest.raises(SikaError.InvalidCountryCode):
        await client.list_banks("ZZ")


async def test_b07_a_wrong_key_is_unauthorized_everywhere(make_client, sandbox):
    client = make_client(key="sk_test_canary_wrong_3f9b")
    calls = [
        lambda: client.list_mobile_money_providers(),
        lambda: client.list_banks(),
        lambda: client.verify_transaction("ORDER-1"),
        lambda: client.initiate_charge(charge("ORDER-1")),
    ]
    for call in calls:
        with pytest.raises(SikaError.Unauthorized):
            await call()
    assert [request["authorized"] for request in sandbox.requests()] == [False] * len(calls)


async def test_b08_verification_errors_are_typed(client):
    with pytest.raises(SikaError.TransactionNotFound):
        await client.verify_transaction("NO-SUCH-ORDER")
    with pytest.raises(SikaError.InvalidReference):
        await client.verify_transaction("bad ref!")


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


async def test_b10_success_is_unknown_and_never_paid(client, sandbox):
    sandbox.seed_transaction(transaction_object("ORDER-WORD", "success", "10"))
    transaction = await client.verify_transaction("ORDER-WORD")
    assert transaction.status == TransactionStatus.UNKNOWN(value="success")
    assert transaction.status.merchant_action() == MerchantAction.INVESTIGATE
    assert not transaction.status.is_final()


async def rejected_field(call) -> str:
    with pytest.raises(SikaError.InvalidInput) as caught:
        await call
    return caught.value.field


async def test_b12_rejected_input_sends_nothing(client, sandbox):
    for country in ["", "G", "GHA", " GH", "G1"]:
        assert await rejected_field(client.list_mobile_money_providers(country)) == "country"
        assert await rejected_field(client.list_banks(country)) == "country"
    for reference in ["", ".", "..", "a\x00b"]:
        assert await rejected_field(client.verify_transaction(reference)) == "reference"
    bad_charges = [
        ("amount", charge("ORDER-V", amount="0")),
        ("amount", charge("ORDER-V", amount="NaN")),
        ("email", charge("ORDER-V", email="not-an-email")),
        ("phone_number", charge("ORDER-V", phone="0244123456")),
        ("currency", charge("ORDER-V", currency="NGN")),
    ]
    for field, request in bad_charges:
        assert await rejected_field(client.initiate_charge(request)) == field
    assert sandbox.requests() == [], "rejected input reached the service"


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


async def test_b15_a_duplicate_reference_is_an_api_error_409(client):
    request = charge("ORDER-DUPLICATE", phone="+233244123333")
    response = await client.initiate_charge(request)
    assert (response.http_status, response.status) == (200, True)
    with pytest.raises(SikaError.Api) as caught:
        await client.initiate_charge(request)
    assert caught.value.http_status == 409


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

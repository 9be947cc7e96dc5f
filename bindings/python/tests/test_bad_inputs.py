"""B30: the shared bad-input matrix (tests/fixtures/bad_inputs.json): each input gets a typed
error before anything is sent, or a correct, path-safe request and the service's typed answer.
And the settings: the FFI's integers are signed (Java has no unsigned ones), so a negative
timeout, retry count, TTL or wait option is an `InvalidInput` naming it, checked in Rust."""

import json
from decimal import Decimal, InvalidOperation

import pytest

import sika
from support import FIXTURES_DIR, KEY

MATRIX = json.loads((FIXTURES_DIR / "bad_inputs.json").read_text())["cases"]
CLIENT_SETTINGS = [
    "timeout_ms",
    "connect_timeout_ms",
    "max_retries",
    "bank_cache_ttl_seconds",
    "not_found_grace_ms",
    "max_connections_per_host",
    "pool_idle_timeout_ms",
]
AWAIT_OPTIONS = ["initial_delay_ms", "interval_ms", "max_interval_ms", "timeout_ms"]


def text(value) -> str:
    if isinstance(value, dict):
        return value["repeat"] * value["times"]
    return value


def charge_with(overrides: dict) -> sika.ChargeRequest:
    field = lambda name, default: text(overrides.get(name, default))  # noqa: E731
    try:
        amount = Decimal(field("amount", "10.50"))
    except InvalidOperation:
        pytest.fail(f"the matrix's amount is not even a Python Decimal: {overrides}")
    return sika.ChargeRequest(
        amount=amount,
        email=field("email", "ama@example.com"),
        phone_number=field("phone_number", "+233244125678"),
        reference=field("reference", "BAD-INPUT-CHARGE"),
        currency=field("currency", "GHS"),
        provider=field("provider", "MTN"),
        callback_url=field("callback_url", "https://shop.example.com/return"),
    )


def run(sandbox, client, case) -> None:
    operation, overrides = case["operation"], case["input"]
    country = text(overrides["country"]) if "country" in overrides else None
    if operation == "verify_transaction":
        client.verify_transaction(text(overrides["reference"]))
    elif operation == "list_mobile_money_providers":
        client.list_mobile_money_providers(country)
    elif operation == "list_banks":
        client.list_banks(country)
    elif operation == "initiate_charge":
        client.initiate_charge(charge_with(overrides))
    elif operation == "new_client":
        key = text(overrides.get("secret_key", KEY))
        url = text(overrides.get("base_url", sandbox.url))
        sika.BlockingClient(sika.ClientConfig(secret_key=sika.SecretKey(key), base_url=url))
    else:
        raise AssertionError(f"unknown operation {operation}")


@pytest.mark.parametrize("case", MATRIX, ids=lambda case: f"{case['operation']}-{case['note']}")
def test_b30_bad_input(sandbox, case):
    client = sandbox.blocking_client(bank_cache_ttl_seconds=0)
    expect = case["expect"]
    if "invalid_input" in expect:
        with pytest.raises(sika.SikaError.InvalidInput) as raised:
            run(sandbox, client, case)
        assert raised.value.field == expect["invalid_input"]
        assert sandbox.requests() == [], "rejected input reached the service"
    elif "configuration" in expect:
        with pytest.raises(sika.SikaError.Configuration):
            run(sandbox, client, case)
    else:
        error = None
        try:
            run(sandbox, client, case)
        except sika.SikaError as raised:
            error = type(raised).__name__
        assert error == expect.get("error")
        [sent] = sandbox.requests()
        if "sent_path" in expect:
            assert (sent["path"], sent["query"]) == (expect["sent_path"], None)
        if "sent_query" in expect:
            assert sent["query"] == expect["sent_query"]


@pytest.mark.parametrize("client_type", [sika.Client, sika.BlockingClient])
@pytest.mark.parametrize("setting", CLIENT_SETTINGS)
def test_b30_a_negative_client_setting_is_invalid_input_naming_it(sandbox, client_type, setting):
    with pytest.raises(sika.SikaError.InvalidInput) as raised:
        client_type(sandbox.config(**{setting: -1}))
    assert (raised.value.field, raised.value.reason) == (setting, "must not be negative")


@pytest.mark.parametrize("option", AWAIT_OPTIONS)
async def test_b30_a_negative_await_option_is_invalid_input_and_sends_nothing(sandbox, client, option):
    with pytest.raises(sika.SikaError.InvalidInput) as raised:
        await client.await_final_status("ORDER-1", sika.AwaitOptions(**{option: -1}))
    assert (raised.value.field, raised.value.reason) == (option, "must not be negative")
    assert sandbox.requests() == [], "a wait with a negative option reached the service"

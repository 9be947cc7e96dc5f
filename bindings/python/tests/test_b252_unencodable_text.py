"""B252: a text argument Python cannot encode as UTF-8 (a lone surrogate, as `os.fsdecode` and
`surrogateescape` make of undecodable bytes) is `SikaError.InvalidInput` naming the argument or
the record's field, and nothing is sent; before, every call raised `UnicodeEncodeError`."""

from __future__ import annotations

import decimal

import pytest

import sika
from sika import BlockingLedger, ExpectedPayment, SikaError
from support import AwaitableBlockingClient, charge

BAD = "ORDER-\ud800"
ORDER = ExpectedPayment(amount=decimal.Decimal("5"), currency="GHS")


def calls(client, ledger, ledger_client):
    """Each call with a text field, the field it names, the text in it."""
    return [
        ("verify_transaction", "reference", lambda: client.verify_transaction(BAD)),
        ("confirm_payment", "reference", lambda: client.confirm_payment(BAD, ORDER)),
        ("await_final_status", "reference", lambda: client.await_final_status(reference=BAD)),
        ("list_banks", "country", lambda: client.list_banks("G\udcff")),
        ("refresh_banks", "country", lambda: client.refresh_banks("\udcffH")),
        ("list_mobile_money_providers", "country", lambda: client.list_mobile_money_providers("\ud800")),
        ("initiate_charge", "email", lambda: client.initiate_charge(charge("B252-1", email="ama\udce9@example.com"))),
        ("initiate_charge", "phone_number", lambda: client.initiate_charge(charge("B252-2", phone="+233\ud8002441"))),
        ("initiate_charge", "reference", lambda: client.initiate_charge(charge(BAD))),
        ("initiate_charge", "callback_url", lambda: client.initiate_charge(charge("B252-3", callback_url="https://x/\udc80"))),
        ("confirm_payment", "currency", lambda: client.confirm_payment("B252-4", ExpectedPayment(amount=decimal.Decimal("5"), currency="GH\ud800"))),
        ("ledger.expect", "reference", lambda: ledger.expect(BAD, ORDER)),
        ("ledger.settle", "reference", lambda: ledger.settle(ledger_client, BAD)),
        ("ledger.payment", "reference", lambda: ledger.payment(BAD)),
    ]


async def test_b252_every_call_refuses_unencodable_text_naming_the_field(sandbox, make_client, tmp_path):
    client = make_client()
    blocking = isinstance(client, AwaitableBlockingClient)
    ledger = BlockingLedger.sqlite(str(tmp_path / "ledger.db"))
    if not blocking:
        ledger = ledger.async_ledger()
        ledger_client = client
    else:
        ledger_client = sandbox.blocking_client()
    checked = 0
    for name, field, call in calls(client, ledger, ledger_client):
        with pytest.raises(SikaError.InvalidInput) as raised:
            result = call()
            if hasattr(result, "__await__"):
                await result
        assert raised.value.field == field, (name, raised.value)
        assert "cannot be encoded as UTF-8" in raised.value.reason and "U+D" in raised.value.reason
        # Its own text encodes: logging the error cannot fail the same way.
        str(raised.value).encode("utf-8")
        repr(raised.value).encode("utf-8")
        checked += 1
    assert checked == 14
    assert sandbox.requests() == [], "nothing was sent"


def test_b252_a_constructor_and_a_client_configuration_name_their_field_too(sandbox, tmp_path):
    with pytest.raises(SikaError.InvalidInput) as raised:
        BlockingLedger.sqlite(str(tmp_path / "\udcff.db"))
    assert raised.value.field == "path"
    with pytest.raises(SikaError.InvalidInput) as raised:
        sandbox.blocking_client(user_agent_suffix="shop\ud800")
    assert raised.value.field == "user_agent_suffix"
    with pytest.raises(SikaError.InvalidInput) as raised:
        sika.transaction_status_from_text("pend\ud800ing")
    assert raised.value.field == "text"
    assert sandbox.requests() == []


def test_b252_text_that_encodes_is_untouched(sandbox):
    # Non-ASCII that UTF-8 holds (the check reads a flag for ASCII, encodes the rest once).
    client = sandbox.blocking_client()
    # (The sandbox, as the service, refuses the reference's format: it was sent, as UTF-8.)
    with pytest.raises(SikaError.InvalidReference):
        client.verify_transaction("ORDER-é-ẹ-😀")
    (request,) = sandbox.requests()
    assert request["path"] == "/transaction/verify/ORDER-%C3%A9-%E1%BA%B9-%F0%9F%98%80"

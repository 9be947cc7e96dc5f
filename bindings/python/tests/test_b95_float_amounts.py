"""B95: a float where an amount is expected is refused at once with a `TypeError` naming the
field; `Decimal`, `int` and `str` are accepted (issue 27, ADR 0042)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

import sika
from support import charge


def charge_fields(amount: object) -> dict:
    return {
        "amount": amount,
        "email": "ama@example.com",
        "phone_number": "+233244125678",
        "reference": "B95-1",
        "currency": "GHS",
        "provider": "MTN",
        "callback_url": None,
    }


@pytest.mark.parametrize("amount", [25.5, 0.1 + 0.2, 100.0, float("nan")])
def test_b95_a_float_amount_is_refused_at_construction_naming_the_field(amount):
    with pytest.raises(TypeError, match=r"sika\.ExpectedPayment\.amount: an amount is a decimal\.Decimal"):
        sika.ExpectedPayment(amount=amount, currency="GHS")
    with pytest.raises(TypeError, match=r"sika\.ChargeRequest\.amount: .*never a float"):
        sika.ChargeRequest(**charge_fields(amount))


@pytest.mark.parametrize(("amount", "text"), [(Decimal("25.50"), "25.50"), (25, "25"), ("25.50", "25.50")])
def test_b95_decimal_int_and_str_amounts_are_accepted_exactly(amount, text):
    order = sika.ExpectedPayment(amount=amount, currency="GHS")
    assert json.loads(order.to_json())["amount"] == text
    assert json.loads(sika.ChargeRequest(**charge_fields(amount)).to_json())["amount"] == text


async def test_b95_a_float_set_after_construction_is_refused_and_nothing_is_sent(sandbox, make_client):
    client = make_client()
    order = sika.ExpectedPayment(amount=Decimal("100.10"), currency="GHS")
    order.amount = 100.1  # type: ignore[assignment]
    with pytest.raises(TypeError, match="never a float"):
        await client.confirm_payment("B95-2", order)
    request = charge("B95-3")
    request.amount = 20.0  # type: ignore[assignment]
    with pytest.raises(TypeError, match="never a float"):
        await client.initiate_charge(request)
    assert sandbox.requests() == []

"""B94: no spelling of "is it paid?" is true for an unpaid outcome (issue 27, ADR 0042).

`bool()` of a `PaymentCheck`, a `WebhookDecision` or a `MerchantAction` raises `TypeError`
naming the check to use; the `is_*` checks are properties (a `bool`), so a forgotten pair of
parentheses reads the right answer and calling one fails loudly."""

from __future__ import annotations

from decimal import Decimal

import pytest

import sika
from support import transaction_object


def transaction(status: str = "pending") -> sika.Transaction:
    body = '{"status":true,"message":"ok","data":' + transaction_object("B94-1", status, "100.10") + "}"
    return sika.decode_transaction_response(200, body.encode())


def every_decision() -> list[object]:
    tx = transaction()
    return [
        sika.PaymentCheck.CONFIRMED(tx),
        sika.PaymentCheck.NOT_YET(tx),
        sika.PaymentCheck.NOT_PAID(tx, sika.MerchantAction.INVESTIGATE),
        sika.PaymentCheck.MISMATCH(tx, "amount", "100.11", "100.10"),
        sika.WebhookDecision.FULFIL(tx),
        sika.WebhookDecision.INVESTIGATE(tx, "short"),
        sika.WebhookDecision.IGNORE("another event"),
        sika.WebhookDecision.RETRY_LATER("pending"),
        sika.WebhookDecision.REJECT("malformed"),
        *sika.MerchantAction,
    ]


@pytest.mark.parametrize("value", every_decision(), ids=repr)
def test_b94_bool_of_a_decision_raises_naming_the_check_to_use(value):
    with pytest.raises(TypeError) as raised:
        bool(value)
    message = str(raised.value)
    if isinstance(value, sika.PaymentCheck):
        assert "isinstance(value, sika.PaymentCheck.CONFIRMED)" in message and "is_confirmed" in message
    elif isinstance(value, sika.WebhookDecision):
        assert "isinstance(value, sika.WebhookDecision.FULFIL)" in message and "is_fulfil" in message
    else:
        assert "the truth of a sika.MerchantAction" in message and "sika.MerchantAction.FULFIL_ORDER" in message
    with pytest.raises(TypeError):
        if value:  # the spelling that shipped unpaid orders
            pass
    with pytest.raises(TypeError):
        assert not value


def test_b94_the_is_checks_are_properties_that_give_a_bool(sandbox):
    unpaid = sika.PaymentCheck.NOT_YET(transaction())
    paid = sika.PaymentCheck.CONFIRMED(transaction("successful"))
    assert unpaid.is_confirmed is False and unpaid.is_CONFIRMED is False and unpaid.is_not_yet is True
    assert paid.is_confirmed is True and paid.is_mismatch is False
    with pytest.raises(TypeError, match="not callable"):
        unpaid.is_confirmed()  # the old spelling fails loudly instead of passing
    decision = sika.WebhookDecision.RETRY_LATER("pending")
    assert decision.is_retry_later is True and decision.is_fulfil is False and decision.is_FULFIL is False
    # A real call's outcome: an unpaid (pending) order is never read as paid.
    client = sandbox.blocking_client()
    reference = "B94-REAL"
    sandbox.seed_transaction(transaction_object(reference, "pending", "100.10"))
    check = client.confirm_payment(reference, sika.ExpectedPayment(amount=Decimal("100.10"), currency="GHS"))
    assert isinstance(check, sika.PaymentCheck.NOT_YET) and check.is_confirmed is False
    with pytest.raises(TypeError):
        bool(check)


def test_b94_equality_of_decisions_still_compares_variant_and_fields():
    tx = transaction()
    assert sika.PaymentCheck.NOT_YET(tx) == sika.PaymentCheck.NOT_YET(tx)
    assert sika.PaymentCheck.NOT_YET(tx) != sika.PaymentCheck.CONFIRMED(tx)
    assert sika.PaymentCheck.MISMATCH(tx, "amount", "1", "2") != sika.PaymentCheck.MISMATCH(tx, "amount", "1", "3")
    assert sika.WebhookDecision.REJECT("a") == sika.WebhookDecision.REJECT("a")
    assert sika.WebhookDecision.REJECT("a") != sika.WebhookDecision.IGNORE("a")
    assert sika.WebhookDecision.REJECT("a") != "a"

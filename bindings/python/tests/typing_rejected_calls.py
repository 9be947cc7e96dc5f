"""Calls a type checker must reject (B42). Each line whose comment says "rejected" is an error
for both mypy --strict and pyright in strict mode, and no other line is: tests/test_typing.py
checks both, against the installed package. Never run; only checked."""

from __future__ import annotations

from decimal import Decimal

import sika


async def wrong_calls(client: sika.Client, blocking: sika.BlockingClient) -> list[str]:
    order = sika.ExpectedPayment(amount=10.5, currency="GHS")  # rejected: a float amount, not a Decimal
    await client.verify_transaction(123)  # rejected: an int reference
    request = sika.ChargeRequest(amount="10.00", email="ama@example.com", phone_number="+233244120000", reference="R-1", currency="GHS", provider="MTN")  # rejected: a text amount
    transaction: sika.Transaction = client.verify_transaction("R-1")  # rejected: the coroutine, not awaited
    await blocking.verify_transaction("R-1")  # rejected: the blocking client's calls are not awaitable
    sika.enable_logging("debug")  # rejected: a level is a LogLevel
    status = sika.TransactionStatus.UNKNOWN()  # rejected: UNKNOWN has its value
    seen = [str(order), str(request), str(transaction), str(status)]
    try:
        await client.initiate_charge(request)
    except sika.SikaError.Api as error:
        seen.append(error.reference)  # rejected: an Api error has no reference
    match await client.confirm_payment("R-1", sika.ExpectedPayment(amount=Decimal("10.50"), currency="GHS")):
        case sika.PaymentCheck.MISMATCH(_, field, expected, actual, _):  # rejected: MISMATCH has four fields
            seen.extend([field, expected, actual])
        case sika.PaymentCheck.CONFIRMED(transaction=paid):
            paid.amount = 10.5  # rejected: a float into a Decimal field
        case _:
            pass
    return seen

"""A merchant server's calls as a type-checked application writes them: every public call of
the package, with `match` on the SDK's decisions and `except` on its typed errors. The
package is typed (`py.typed`), so `mypy --strict` and pyright in strict mode check this file
with no `Any` and no `# type: ignore` (tests/test_typing.py does, B42, and runs it against
the sandbox).

Run it against the sandbox with the package installed:
`SIKA_BASE_URL=http://127.0.0.1:PORT SIKA_SECRET_KEY=... python examples/typed_merchant_app.py`
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from decimal import Decimal

import sika

EMAIL = "ama@example.com"


def what_to_do(status: sika.TransactionStatus) -> str:
    """A status, read the way the service documents it."""
    match status:
        case sika.TransactionStatus.SUCCESSFUL():
            return "paid: fulfil the order"
        case sika.TransactionStatus.UNKNOWN(value="success"):  # a keyword pattern
            return "`success` is not `successful`: investigate, never fulfil"
        case sika.TransactionStatus.UNKNOWN(value):  # a positional pattern
            return f"unknown status {value!r}: investigate, never fulfil"
        case _:
            final = "final" if status.is_final() else "not final yet"
            return f"{status} ({final}): {action_text(status.merchant_action())}"


def action_text(action: sika.MerchantAction) -> str:
    match action:
        case sika.MerchantAction.FULFIL_ORDER:
            return "fulfil the order"
        case sika.MerchantAction.AWAIT_WEBHOOK_OR_REVERIFY:
            return "wait for the webhook or verify again"
        case sika.MerchantAction.INFORM_CUSTOMER_ALLOW_RETRY:
            return "tell the customer, allow a retry"
        case sika.MerchantAction.CONTACT_CUSTOMER:
            return "contact the customer"
        case sika.MerchantAction.UPDATE_ORDER_AND_REFUND:
            return "update the order and refund"
        case sika.MerchantAction.INVESTIGATE:
            return "investigate"


def check_narrowed(check: sika.PaymentCheck) -> str:
    """The same answer read with `isinstance` narrowing: each variant's fields are typed, and
    the field every variant has (`transaction`) reads on any of them. A decision is never true
    by itself (`bool(check)` raises `TypeError`); `is_confirmed` is a property, a `bool`."""
    reference = check.transaction.tx_ref
    if isinstance(check, sika.PaymentCheck.CONFIRMED):
        assert check.is_confirmed and not check.is_not_yet
        return f"{reference}: ship {check.transaction.amount} {check.transaction.currency}"
    if isinstance(check, sika.PaymentCheck.MISMATCH):
        return f"{reference}: {check.field} is {check.actual}, not {check.expected}"
    if isinstance(check, sika.PaymentCheck.NOT_PAID):
        return f"{reference}: not paid, {action_text(check.action)}"
    if isinstance(check, (sika.PaymentCheck.NOT_YET,)):
        assert check.is_not_yet and not check.is_confirmed
        return f"{reference}: not yet ({check.transaction.status})"
    return f"{reference}: investigate"


def decision_narrowed(decision: sika.WebhookDecision) -> str:
    """A webhook decision read with `isinstance` narrowing, every variant."""
    if isinstance(decision, sika.WebhookDecision.FULFIL):
        assert decision.is_fulfil
        return f"fulfil {decision.transaction.tx_ref} ({decision.transaction.amount})"
    if isinstance(decision, sika.WebhookDecision.INVESTIGATE):
        return f"investigate {decision.transaction.tx_ref}: {decision.reason}"
    if isinstance(decision, (sika.WebhookDecision.RETRY_LATER, sika.WebhookDecision.REJECT)):
        assert not decision.is_fulfil
        return f"HTTP {decision.http_status()}: {decision.reason}"
    if isinstance(decision, sika.WebhookDecision.IGNORE):
        return f"ignore: {decision.reason}"
    return "an answer this application does not know: investigate"


def what_the_check_says(check: sika.PaymentCheck) -> str:
    """`confirm_payment`'s answer: ship only on CONFIRMED."""
    assert check_narrowed(check).startswith(check.transaction.tx_ref)
    match check:
        case sika.PaymentCheck.CONFIRMED(transaction=paid):  # a keyword pattern
            return f"confirmed: ship {paid.amount} {paid.currency} ({paid.gateway_ref})"
        case sika.PaymentCheck.MISMATCH(_, field, expected, actual):  # positional
            return f"mismatch on {field}: expected {expected}, got {actual}"
        case sika.PaymentCheck.NOT_PAID(transaction, action):
            return f"not paid ({transaction.status}): {action_text(action)}"
        case sika.PaymentCheck.NOT_YET(transaction=pending):
            return f"not yet: {what_to_do(pending.status)}"
        case _:
            return "an answer this application does not know: investigate"


def what_to_answer(decision: sika.WebhookDecision) -> tuple[int, str]:
    """The HTTP status to answer the webhook with, and what the server does."""
    assert decision_narrowed(decision)
    match decision:
        case sika.WebhookDecision.FULFIL(transaction):
            done = f"fulfil {transaction.tx_ref}"
        case sika.WebhookDecision.INVESTIGATE(transaction=transaction, reason=reason):
            done = f"investigate {transaction.tx_ref}: {reason}"
        case sika.WebhookDecision.RETRY_LATER(reason) | sika.WebhookDecision.REJECT(reason):
            done = f"not now: {reason}"
        case sika.WebhookDecision.IGNORE(reason=reason):
            done = f"ignore: {reason}"
        case _:
            done = "unknown decision"
    acknowledged = "acknowledged" if decision.acknowledge() else "refused"
    return decision.http_status(), f"{done} ({acknowledged})"


def account_scheme(account_type: sika.BankAccountType) -> str:
    match account_type:
        case sika.BankAccountType.NUBAN():
            return "NUBAN"
        case sika.BankAccountType.ACCOUNT_NUMBER():
            return "account number"
        case sika.BankAccountType.OTHER(value):
            return value
        case _:
            return "unknown"


def payment_method(payment_type: sika.PaymentType | None) -> str:
    match payment_type:
        case sika.PaymentType.MOBILE_MONEY():
            return "mobile money"
        case sika.PaymentType.CARD():
            return "card"
        case sika.PaymentType.OTHER(value=value):
            return value
        case None:  # a descriptive field the service left out (B51)
            return "not said"
        case _:
            return "unknown"


def stored(status_text: str, payment_text: str, scheme_text: str) -> str:
    """Values the application stored as text (a database column), read back by the core's
    parsers: a status is its service text (`== "successful"`)."""
    status = sika.TransactionStatus.from_text(status_text)
    assert status == sika.transaction_status_from_text(status_text) == status_text
    payment = payment_method(sika.payment_type_from_text(payment_text))
    return f"{what_to_do(status)}; {payment}; {account_scheme(sika.bank_account_type_from_text(scheme_text))}"


def archived(transaction: sika.Transaction) -> str:
    """A transaction for the application's own store: the core's JSON (exact amounts)."""
    record = transaction.to_dict()
    assert json.loads(transaction.to_json()) == record
    assert sika.transaction_from_json(transaction.to_json()) == transaction  # read back from the store
    if transaction.customer is not None:
        assert sika.customer_from_json(transaction.customer.to_json()) == transaction.customer
    fields = transaction.custom_fields
    assert [sika.custom_field_from_json(field.to_json()) for field in fields] == fields
    match transaction:
        case sika.Transaction(_, domain, amount, currency):  # a record's positional pattern
            return f"{domain}: {amount} {currency} -> {json.dumps(record, sort_keys=True)[:40]}"
        case _:
            return "not a transaction"


def ledger_archived(record: sika.PaymentRecord, claim: sika.Claim, options: sika.LedgerOptions) -> str:
    """The ledger's records for a report or a queue: the core's JSON, read back equal."""
    assert sika.payment_record_from_json(record.to_json()) == record
    assert [sika.payment_event_from_json(event.to_json()) for event in record.events] == record.events
    assert sika.claim_from_json(claim.to_json()) == claim
    assert sika.ledger_options_from_json(options.to_json()) == options
    return f"{record.reference}: {len(record.events)} events, claim {claim.offer} until {claim.lease_expires_at}"


def decisions_archived(check: sika.PaymentCheck, decision: sika.WebhookDecision, answer: sika.LedgerDecision) -> None:
    """Decisions for an audit log or a queue: the core's JSON, with their kind, read back equal."""
    assert sika.payment_check_from_json(check.to_json()) == check
    assert sika.webhook_decision_from_json(decision.to_json()) == decision
    assert sika.ledger_decision_from_json(answer.to_json()) == answer


def cancelled_charge(reference: str) -> str:
    """After a charge's call was cancelled: whether it may have been made (then verify the
    reference, never charge it again blindly)."""
    unknown = sika.take_cancelled_charge(reference)
    return "not sent" if unknown is None else f"may have been made: {unknown}"


def reconcile_job(ledger: sika.BlockingLedger, client: sika.BlockingClient, options: sika.ReconcileOptions) -> list[str]:
    """A scheduled job (Celery beat, cron): ship what the notifications missed; a failed check
    stays open for the next run."""
    assert sika.reconcile_options_from_json(options.to_json()) == options
    report = ledger.reconcile(client, options)
    shipped: list[str] = []
    for ready in report.ready:  # paid, unclaimed: each claimed as its shipment starts (ADR 0081)
        # A queue's form of it (one task per payment) reads back as the same value.
        assert sika.ready_payment_from_json(ready.to_json()) == ready
        # Every answer, and no `case _`: checkers know there is no other (B254).
        match ledger.claim(ready):
            case sika.LedgerDecision.FULFIL(claim, transaction):
                with ledger.fulfilment(claim) as held:  # renewed while it runs; marked at the end
                    shipped.append(f"{held.reference}: {transaction.amount}")
            case sika.LedgerDecision.ALREADY_FULFILLED() | sika.LedgerDecision.IN_PROGRESS():
                pass
            case sika.LedgerDecision.DECIDED(decision):
                shipped.append(f"not shipped: {ready.reference} (HTTP {decision.http_status()})")
    for payment in report.checked:
        if isinstance(payment.decision, sika.LedgerDecision.DECIDED):
            shipped.append(f"not shipped: {payment.reference} (HTTP {payment.decision.http_status()})")
    return shipped + [f"not checked: {failure.reference} ({failure.request_id})" for failure in report.failures]


def ledger_webhook(ledger: sika.BlockingLedger, client: sika.BlockingClient, body: bytes) -> tuple[int, str]:
    """A notification decided by the ledger: a `match` over its four answers and no other, each
    returning (a checker that saw a fifth would find a path without a return: B254)."""
    decision = ledger.handle_webhook(client, body)
    match decision:
        case sika.LedgerDecision.FULFIL(claim, transaction):
            ledger.mark_fulfilled(claim)
            return decision.http_status(), f"ship {transaction.tx_ref}"
        case sika.LedgerDecision.ALREADY_FULFILLED(reference, fulfilled_at):
            return decision.http_status(), f"{reference}: shipped on {fulfilled_at:%Y-%m-%d}"
        case sika.LedgerDecision.IN_PROGRESS(reference=reference):
            return decision.http_status(), f"{reference}: being shipped"
        case sika.LedgerDecision.DECIDED(decided):
            return decision.http_status(), what_to_answer(decided)[1]


def paid(client: sika.BlockingClient, reference: str, order: sika.ExpectedPayment) -> bool:
    """`confirm_payment`'s four answers, matched exhaustively as returned (B254)."""
    match client.confirm_payment(reference, order):
        case sika.PaymentCheck.CONFIRMED():
            return True
        case sika.PaymentCheck.NOT_YET() | sika.PaymentCheck.NOT_PAID() | sika.PaymentCheck.MISMATCH():
            return False


async def checkout_through_the_ledger(
    ledger: sika.BlockingLedger, client: sika.Client, request: sika.ChargeRequest
) -> str:
    """A charge through the ledger (the async side of a `BlockingLedger` shared with threads):
    the order's figures are recorded before the charge is sent, so its webhook is decided
    against them."""
    response = await ledger.async_ledger().initiate_charge(client, request)
    return f"HTTP {response.http_status}: {request.reference} expects {request.amount} {request.currency}"


def describe(transaction: sika.Transaction) -> str:
    customer = transaction.customer
    who = "no customer" if customer is None else f"{customer.name} <{customer.email}> {customer.phone_number}"
    fields = ", ".join(f"{field.display_name}={field.value}" for field in transaction.custom_fields)
    # Descriptive fields may be absent (None) when the service leaves them out (B51).
    paid_at: str = "unknown" if transaction.updated_at is None else transaction.updated_at.isoformat()
    return (
        f"{transaction.tx_ref}: {transaction.amount} {transaction.currency} by "
        f"{payment_method(transaction.payment_type)}, {who}, [{fields}], at {paid_at}"
    )


def charge_request(reference: str, phone: str, amount: Decimal, provider: str) -> sika.ChargeRequest:
    request = sika.ChargeRequest(
        amount=amount,
        email=EMAIL,
        phone_number=sika.normalize_phone_number(phone, "GH"),
        reference=reference,
        currency="GHS",
        provider=provider,
        callback_url="https://shop.example.com/return",
    )
    assert sika.charge_request_from_json(request.to_json()) == request  # e.g. queued for a worker
    return request


def wait_options(cancellation: sika.Cancellation | None = None) -> sika.AwaitOptions:
    return sika.AwaitOptions(
        initial_delay_ms=50, interval_ms=50, max_interval_ms=200, timeout_ms=10_000, cancellation=cancellation
    )


async def checkout(client: sika.Client, reference: str, phone: str, amount: Decimal) -> str:
    """The async client: pick a provider, charge, wait for the customer, confirm."""
    providers = await client.list_mobile_money_providers("GH")
    provider = next(provider for provider in providers if provider.active)
    try:
        response = await client.initiate_charge(charge_request(reference, phone, amount, provider.code))
    except sika.SikaError.ChargeOutcomeUnknown as error:
        return f"charge {error.reference} may have been taken: verify before charging again"
    except sika.SikaError.Api as error:
        return f"charge refused with HTTP {error.http_status}: {error.service_message}"
    except sika.SikaError.InvalidInput as error:
        return f"not sent, {error.field} is wrong: {error.reason}"
    accepted = f"HTTP {response.http_status} {response.message or ''}".strip()
    try:
        final = await client.await_final_status(reference, wait_options())
    except sika.SikaError.Timeout:
        return f"{accepted}; the customer has not answered yet"
    check = await client.confirm_payment(reference, sika.ExpectedPayment(amount=amount, currency="GHS"))
    return f"{accepted}; {what_to_do(final.status)}; {what_the_check_says(check)}"


def checkout_blocking(client: sika.BlockingClient, reference: str, phone: str, amount: Decimal) -> str:
    """The same with the blocking client, as a WSGI or worker process calls it."""
    providers = client.list_mobile_money_providers()
    provider = next(provider for provider in providers if provider.active)
    try:
        response = client.initiate_charge(charge_request(reference, phone, amount, provider.code))
    except sika.SikaError.ChargeOutcomeUnknown as error:
        return f"charge {error.reference} may have been taken: verify before charging again"
    except sika.SikaError.Api as error:
        return f"charge refused with HTTP {error.http_status}: {error.service_message}"
    cancellation = sika.Cancellation()
    final = client.await_final_status(reference, wait_options(cancellation))
    assert not cancellation.is_cancelled()
    check = client.confirm_payment(reference, sika.ExpectedPayment(amount=amount, currency="GHS"))
    return f"HTTP {response.http_status}; {what_to_do(final.status)}; {what_the_check_says(check)}"


async def give_up(client: sika.Client, reference: str) -> str:
    """A wait the merchant stops (the customer left the page): a `Cancellation` ends it."""
    cancellation = sika.Cancellation()
    cancellation.cancel()
    try:
        transaction = await client.await_final_status(reference, wait_options(cancellation))
    except sika.SikaError.Cancelled:
        return f"stopped waiting for {reference}"
    return what_to_do(transaction.status)


async def verify(client: sika.Client, reference: str) -> str:
    try:
        # A request handler's own budget, over the client's connections (ADR 0039).
        transaction = await client.with_options(timeout_ms=5_000).verify_transaction(reference)
    except sika.SikaError.TransactionNotFound:
        return f"{reference}: no such transaction"
    except sika.SikaError.InvalidInput as error:
        return f"{reference}: not sent, bad {error.field}"
    except sika.SikaError.RateLimited as error:
        return f"slow down, retry after {error.retry_after_seconds} s"
    except sika.SikaError.UnexpectedResponse as error:
        return f"the service answered HTTP {error.http_status} with something else: {error.reason}"
    except sika.SikaError as error:
        return f"{reference}: {error}"
    return f"{describe(transaction)}: {what_to_do(transaction.status)}"


def verify_blocking(client: sika.BlockingClient, reference: str) -> str:
    try:
        return what_to_do(client.with_options(timeout_ms=5_000, max_retries=1).verify_transaction(reference).status)
    except sika.SikaError.TransactionNotFound as error:
        return f"{reference}: {error.message()}"


async def webhook(client: sika.Client, body: bytes, orders: dict[str, sika.ExpectedPayment]) -> tuple[int, str]:
    """A webhook endpoint: the body only names the order; the decision comes from the service."""
    try:
        event = sika.parse_webhook_event(body)
    except sika.SikaError.InvalidInput:
        return 400, "not a webhook"
    assert sika.webhook_event_from_json(event.to_json()) == event  # e.g. queued for a worker
    expected = orders.get(event.reference or "")
    if expected is None:
        return 400, f"{event.event} about an unknown order"
    assert sika.expected_payment_from_json(expected.to_json()) == expected
    return what_to_answer(await client.handle_webhook(body, expected))


def webhook_blocking(client: sika.BlockingClient, body: bytes, expected: sika.ExpectedPayment) -> tuple[int, str]:
    return what_to_answer(client.handle_webhook(body, expected))


async def banks(client: sika.Client, blocking: sika.BlockingClient, country: str) -> list[str]:
    """Bank pickers: the cached list, and a fresh one after the merchant asks."""
    cached = await client.list_banks(country)
    fresh = await client.refresh_banks(country)
    again = blocking.refresh_banks(country) + blocking.list_banks(country)
    assert len(again) == 2 * len(fresh)
    return [f"{bank.name} ({bank.code}, {account_scheme(bank.account_type)})" for bank in cached]


def offline(providers_body: bytes, banks_body: bytes, transaction_body: bytes, charge_body: bytes) -> list[str]:
    """What needs no service: the country table, phone numbers, and decoding answers that the
    application fetched with its own HTTP stack."""
    countries = sika.countries()
    assert [sika.country_info_from_json(country.to_json()) for country in countries] == countries
    lines = [f"{c.code} {c.name} {c.currency} mobile money: {c.mobile_money}" for c in countries]
    lines.append(sika.normalize_phone_number("024 412 3456", "GH"))
    providers = sika.decode_providers_response(200, providers_body)
    assert [sika.mobile_money_provider_from_json(provider.to_json()) for provider in providers] == providers
    lines.extend(provider.provider_type for provider in providers)
    banks = sika.decode_banks_response(200, banks_body)
    assert [sika.bank_from_json(bank.to_json()) for bank in banks] == banks
    lines.extend(account_scheme(bank.account_type) for bank in banks)
    lines.append(what_to_do(sika.decode_transaction_response(200, transaction_body).status))
    charge = sika.decode_charge_response(200, charge_body)
    assert sika.charge_response_from_json(charge.to_json()) == charge
    lines.append(f"{charge.http_status} {charge.status} {charge.data_json is not None} {len(charge.raw_json)}")
    return lines


def clients_from_env() -> tuple[sika.Client, sika.BlockingClient]:
    """The clients from SIKA_SECRET_KEY and SIKA_BASE_URL, or from explicit settings."""
    sika.enable_logging(sika.LogLevel.WARN)  # the `sika` logger's records on stderr
    return sika.Client.from_env(), sika.BlockingClient.from_env()


def clients(secret_key: str, base_url: str) -> tuple[sika.Client, sika.BlockingClient]:
    config = sika.ClientConfig(
        secret_key=sika.SecretKey(secret_key),
        base_url=base_url,
        timeout_ms=10_000,
        connect_timeout_ms=2_000,
        max_retries=2,
        bank_cache_ttl_seconds=600,
        user_agent_suffix=f"typed-merchant-app sika/{sika.__version__}",
    )
    return sika.Client(config), sika.BlockingClient(config)


def stop(client: sika.Client, blocking: sika.BlockingClient, reference: str) -> str:
    """The end of a client's life (a worker stopping): its connections close, and a later call
    is refused without being sent."""
    client.close()  # the same as shutdown()
    client.shutdown()  # again: nothing happens
    sika.flush_log_records(1_000)  # records still on their way to the handlers (ADR 0044)
    blocking.shutdown()
    blocking.close()
    try:
        blocking.verify_transaction(reference)
    except sika.SikaError.Configuration as error:
        return f"stopped: {error.reason}"
    return "still running"


async def merchant_day(client: sika.Client, blocking: sika.BlockingClient) -> None:
    order = f"ORDER-{time.time_ns() // 1_000_000}"
    print(await checkout(client, order, "024 412 0000", Decimal("25.50")))
    print(checkout_blocking(blocking, f"{order}-B", "024 412 0000", Decimal("10.00")))
    print(await verify(client, order))
    print(archived(await client.verify_transaction(order)))
    print(await give_up(client, order))
    print(verify_blocking(blocking, "ORDER-NEVER-CHARGED"))
    body = b'{"event":"charge.success","data":{"reference":"' + order.encode() + b'"}}'
    orders = {order: sika.ExpectedPayment(amount=Decimal("25.50"), currency="GHS")}
    print(await webhook(client, body, orders))
    print(webhook_blocking(blocking, body, orders[order]))
    print("\n".join(await banks(client, blocking, "NG")))


async def main() -> int:
    client, blocking = clients_from_env()
    async with client:
        with blocking:
            await merchant_day(client, blocking)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

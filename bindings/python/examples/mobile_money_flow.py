"""The main job of a merchant server, end to end: pick a provider, charge a mobile money
number, wait for the customer's USSD answer, verify, and act on the status.

Run it against the sandbox with `scripts/quickstart`, or by hand with the package installed:
`SIKA_BASE_URL=http://127.0.0.1:PORT SIKA_SECRET_KEY=... python examples/mobile_money_flow.py`
"""

import asyncio
import sys
import time
from decimal import Decimal

import sika


async def run() -> None:
    client = sika.Client.from_env()  # SIKA_SECRET_KEY and SIKA_BASE_URL

    print("1. Mobile money providers in Ghana:")
    providers = await client.list_mobile_money_providers("GH")
    for provider in providers:
        state = "active" if provider.active else "inactive"
        print(f"   - {provider.name} (code {provider.code}, {state})")
    provider = next((p for p in providers if p.active), None)
    if provider is None:
        print("   no active provider: nothing to charge")
        return

    reference = f"ORDER-{time.time_ns() // 1_000_000}"
    request = sika.ChargeRequest(
        amount=Decimal("25.50"),  # exact: never a float
        email="ama@example.com",
        # The sandbox answers by the last four digits: 0000 is a successful payment.
        phone_number="+233244120000",
        reference=reference,
        currency="GHS",
        provider=provider.code,
        callback_url="https://shop.example.com/orders/return",
    )
    print(f"2. Charging {request.amount} GHS to {request.phone_number} with {provider.name} (reference {reference})")
    response = await client.initiate_charge(request)
    print(f"   service said: {response.message or '(no message)'}")

    print("3. Waiting for the customer to answer the USSD prompt...")
    deadline = time.monotonic() + 60
    while True:
        transaction = await client.verify_transaction(reference)
        if sika.is_final(transaction.status) or time.monotonic() > deadline:
            break
        print(f"   status: {transaction.status} (checking again shortly)")
        await asyncio.sleep(0.5)

    print(f"4. Verified: status {transaction.status}, amount {transaction.amount} {transaction.currency}")
    action = sika.merchant_action(transaction.status)
    print(f"5. Merchant action: {action.name}")
    if (
        action == sika.MerchantAction.FULFIL_ORDER
        and transaction.amount == request.amount
        and transaction.tx_ref == reference
    ):
        print("   paid in full: ship the order")


def main() -> None:
    try:
        asyncio.run(run())
    except sika.SikaError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

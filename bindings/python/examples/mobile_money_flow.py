"""The main job of a merchant server, end to end: pick a provider, charge a mobile money
number, wait for the customer's USSD answer, confirm the payment against the order, and
answer the service's webhook, all with Sika's decisions rather than reading statuses by hand.

Run it against the sandbox with `scripts/quickstart`, or by hand with the package installed:
`SIKA_BASE_URL=http://127.0.0.1:PORT SIKA_SECRET_KEY=... python examples/mobile_money_flow.py`
(set SIKA_WEBHOOK_PORT and start the sandbox with `--webhook-url http://127.0.0.1:PORT/webhooks/sika`
to see the webhook step).
"""

import asyncio
import os
import queue
import sys
import threading
import time
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import sika

# The merchant's orders: what each reference must be paid. A real server reads its database.
ORDERS: dict = {}
DECISIONS: "queue.Queue[sika.WebhookDecision]" = queue.Queue()


# A notification is a few hundred bytes; 64 KiB leaves room and bounds what one request costs.
MAX_WEBHOOK_BODY_BYTES = 64 * 1024


def webhook_server(port: int, client: sika.BlockingClient) -> ThreadingHTTPServer:
    """A webhook endpoint as a synchronous server writes it (WSGI-style, with BlockingClient)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            # Anyone can post here: read at most MAX_WEBHOOK_BODY_BYTES, never a length the
            # sender chose, so one request cannot fill the server's memory.
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 <= length <= MAX_WEBHOOK_BODY_BYTES:
                self.send_response(413)
                self.end_headers()
                return
            body = self.rfile.read(length)
            try:
                event = sika.parse_webhook_event(body)  # unverified: only to find the order
                expected = ORDERS.get(event.reference)
            except sika.SikaError:
                expected = None
            if expected is None:
                self.send_response(400)
                self.end_headers()
                return
            decision = client.handle_webhook(body, expected)  # verifies with the service
            if isinstance(decision, sika.WebhookDecision.FULFIL):
                pass  # fulfil here, idempotently: the same notification can arrive again
            DECISIONS.put(decision)
            self.send_response(decision.http_status())
            self.end_headers()

        def log_message(self, *args) -> None:  # keep the example's output readable
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


async def run() -> None:
    client = sika.Client.from_env()  # SIKA_SECRET_KEY and SIKA_BASE_URL
    webhook_port = os.environ.get("SIKA_WEBHOOK_PORT")
    if webhook_port:
        webhook_server(int(webhook_port), sika.BlockingClient.from_env())

    print("1. Mobile money providers in Ghana:")
    providers = await client.list_mobile_money_providers("GH")
    for provider in providers:
        state = "active" if provider.active else "inactive"
        print(f"   - {provider.name} (code {provider.code}, {state})")
    provider = next((p for p in providers if p.active), None)
    if provider is None:
        print("   no active provider: nothing to charge")
        return

    phone = sika.normalize_phone_number("024 412 0000", "GH")  # as the customer typed it
    reference = f"ORDER-{time.time_ns() // 1_000_000}"
    order = sika.ExpectedPayment(amount=Decimal("25.50"), currency="GHS")
    ORDERS[reference] = order
    print(f"2. Charging {order.amount} {order.currency} to {phone} with {provider.name} (reference {reference})")
    response = await client.initiate_charge(
        sika.ChargeRequest(
            amount=order.amount,
            email="ama@example.com",
            phone_number=phone,  # the sandbox answers by the last four digits: 0000 pays
            reference=reference,
            currency=order.currency,
            provider=provider.code,
            callback_url="https://shop.example.com/orders/return",
        )
    )
    print(f"   service said: {response.message}")

    print("3. Waiting for the customer to answer the USSD prompt...")
    options = sika.AwaitOptions(initial_delay_ms=1000, interval_ms=500, max_interval_ms=2000, timeout_ms=60_000)
    transaction = await client.await_final_status(reference, options)
    print(f"   final status: {transaction.status}")

    print("4. Confirming the payment against the order:")
    check = await client.confirm_payment(reference, order)
    if isinstance(check, sika.PaymentCheck.CONFIRMED):
        print(f"   confirmed: {check.transaction.amount} {check.transaction.currency} paid: ship the order")
    else:
        print(f"   not confirmed ({type(check).__name__}): do not ship")
    action = transaction.status.merchant_action()
    print(f"   merchant action: {action.name}")

    if webhook_port:
        print("5. The service's charge.success webhook:")
        decision = await asyncio.to_thread(DECISIONS.get, timeout=10)
        print(f"   decision: {type(decision).__name__}, answered HTTP {decision.http_status()}")


def main() -> int:
    try:
        asyncio.run(run())
    except sika.SikaError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

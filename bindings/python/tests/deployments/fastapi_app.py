"""The shop as a FastAPI app with the async Client, served by uvicorn (asyncio or uvloop) and
by gunicorn's UvicornWorker with --preload (the client is made, and used, in the master, and
the workers are forked from it)."""

import asyncio
import os

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse

import sika
from deployments import shop
from deployments.orders import AsyncOrders

app = FastAPI()
client = sika.Client(shop.config())
orders = AsyncOrders(os.environ[shop.ORDERS_DB])
ledger = shop.open_ledger(sika.Ledger)
# A start-up check, as merchants make one: it starts the async runtime in this process (the
# master, under gunicorn) before the workers fork.
asyncio.run(client.list_banks("GH"))


def error_response(reference: str, error: sika.SikaError) -> JSONResponse:
    body, status = shop.error_json(reference, error)
    return JSONResponse(body, status_code=status)


@app.get("/health")
async def health():
    return {"pid": os.getpid()}


@app.get("/verify/{reference}")
async def verify(reference: str):
    try:
        return shop.transaction_json(reference, await client.verify_transaction(reference))
    except sika.SikaError as error:
        return error_response(reference, error)


@app.post("/charge")
async def charge(request: Request):
    asked = await request.json()
    try:
        response = await client.initiate_charge(shop.charge_request(asked["reference"], asked["phone_number"]))
        return shop.charge_json(asked["reference"], response)
    except sika.SikaError as error:
        return error_response(asked["reference"], error)


@app.get("/confirm/{reference}")
async def confirm(reference: str, amount: str, currency: str):
    try:
        check = await client.confirm_payment(reference, shop.expected_payment(amount, currency))
        return shop.check_json(reference, check)
    except sika.SikaError as error:
        return error_response(reference, error)


# README: FastAPI webhook handler (begin)
# FastAPI (async Client)
@app.post("/webhooks/sika")
async def sika_webhook(request: Request) -> Response:
    body = await request.body()
    try:
        event = sika.parse_webhook_event(body)
    except sika.SikaError:
        return Response(status_code=400)               # not a notification
    order = await orders.get(event.reference) if event.reference else None
    if order is None:
        return Response(status_code=400)               # not an order of ours
    decision = await client.handle_webhook(body, sika.ExpectedPayment(amount=order.amount, currency=order.currency))
    if isinstance(decision, sika.WebhookDecision.FULFIL):
        await orders.fulfil_once(order.reference)      # idempotent: deliveries repeat
    return Response(status_code=decision.http_status())
# README: FastAPI webhook handler (end)


@app.post("/orders")
async def place_order(request: Request):
    """The shop's checkout: the order's expected payment, recorded in the ledger."""
    asked = await request.json()
    await ledger.expect(asked["reference"], shop.expected_payment(asked["amount"], asked["currency"]))
    return {"reference": asked["reference"], "pid": os.getpid()}


# README: FastAPI ledger webhook handler (begin)
# FastAPI (async Client and Ledger, both made at import)
@app.post("/ledger/webhooks/sika")
async def sika_ledger_webhook(request: Request) -> Response:
    decision = await ledger.handle_webhook(client, await request.body())
    if isinstance(decision, sika.LedgerDecision.FULFIL):
        async with ledger.fulfilment(decision.claim):      # renewed while it runs, marked at its end
            await orders.ship(decision.claim.reference)    # this call alone holds the claim
    return Response(status_code=decision.http_status())
# README: FastAPI ledger webhook handler (end)

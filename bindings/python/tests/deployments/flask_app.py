"""The shop as a Flask app, served by gunicorn with --preload: the module, and so the
BlockingClient, is made in the master, and the workers are forked from it."""

import os

from flask import Flask, jsonify, request

import sika
from deployments import shop
from deployments.orders import Orders

app = Flask(__name__)
client = sika.BlockingClient(shop.config())
orders = Orders(os.environ[shop.ORDERS_DB])
# The ledger too, at import: the workers forked from the master each use it on connections of
# their own (ADR 0055).
ledger = shop.open_ledger(sika.BlockingLedger)
# A start-up check, as merchants make one: the master now holds a pooled connection and a
# cached bank list when the workers fork.
client.list_banks("GH")


@app.get("/health")
def health():
    return jsonify(pid=os.getpid())


@app.get("/verify/<reference>")
def verify(reference):
    try:
        return jsonify(shop.transaction_json(reference, client.verify_transaction(reference)))
    except sika.SikaError as error:
        body, status = shop.error_json(reference, error)
        return jsonify(body), status


@app.post("/charge")
def charge():
    asked = request.get_json()
    try:
        response = client.initiate_charge(shop.charge_request(asked["reference"], asked["phone_number"]))
        return jsonify(shop.charge_json(asked["reference"], response))
    except sika.SikaError as error:
        body, status = shop.error_json(asked["reference"], error)
        return jsonify(body), status


@app.get("/confirm/<reference>")
def confirm(reference):
    expected = shop.expected_payment(request.args["amount"], request.args["currency"])
    try:
        return jsonify(shop.check_json(reference, client.confirm_payment(reference, expected)))
    except sika.SikaError as error:
        body, status = shop.error_json(reference, error)
        return jsonify(body), status


# README: Flask webhook handler (begin)
# Flask (BlockingClient)
@app.post("/webhooks/sika")
def sika_webhook():
    body = request.get_data()
    try:
        event = sika.parse_webhook_event(body)
    except sika.SikaError:
        return "", 400                                 # not a notification
    order = orders.get(event.reference) if event.reference else None
    if order is None:
        return "", 400                                 # not an order of ours
    decision = client.handle_webhook(body, sika.ExpectedPayment(amount=order.amount, currency=order.currency))
    if isinstance(decision, sika.WebhookDecision.FULFIL):
        orders.fulfil_once(order.reference)            # idempotent: deliveries repeat
    return "", decision.http_status()
# README: Flask webhook handler (end)


@app.post("/orders")
def place_order():
    """The shop's checkout: the order's expected payment, recorded in the ledger."""
    asked = request.get_json()
    ledger.expect(asked["reference"], shop.expected_payment(asked["amount"], asked["currency"]))
    return jsonify(reference=asked["reference"], pid=os.getpid())


# README: Flask ledger webhook handler (begin)
# Flask (BlockingClient and BlockingLedger, both made at import, before gunicorn --preload forks)
@app.post("/ledger/webhooks/sika")
def sika_ledger_webhook():
    decision = ledger.handle_webhook(client, request.get_data())
    if isinstance(decision, sika.LedgerDecision.FULFIL):
        with ledger.fulfilment(decision.claim):          # renewed while it runs, marked at its end
            orders.ship(decision.claim.reference)        # this call alone holds the claim
    return "", decision.http_status()
# README: Flask ledger webhook handler (end)

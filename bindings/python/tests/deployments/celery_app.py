"""The shop's tasks on a Celery prefork worker: the module, and so the BlockingClient and the
BlockingLedger, is made (and used) in the worker's main process, and the pool's processes are
forked from it."""

import os
from typing import Any

from celery import Celery

import sika
from deployments import celery_config, shop
from deployments.orders import Orders

app = Celery("deployments.celery_app")
app.conf.update(celery_config.settings_from_environment())

client = sika.BlockingClient(shop.config())
# A start-up check: the main process holds a pooled connection when the pool forks.
client.list_banks("GH")
orders = Orders(os.environ[shop.ORDERS_DB])
ledger = shop.open_ledger(sika.BlockingLedger)


# Results go through Celery's default serializer, JSON: a record as its `to_dict()` (the core's
# JSON, amounts exact), a `SikaError` as itself (Celery rebuilds it from its `args`).


@app.task(name="shop.verify")
def verify(reference: str) -> dict[str, Any]:
    return client.verify_transaction(reference).to_dict()


@app.task(name="shop.charge")
def charge(reference: str, phone_number: str) -> dict[str, Any]:
    return client.initiate_charge(shop.charge_request(reference, phone_number)).to_dict()


@app.task(name="shop.confirm")
def confirm(reference: str, amount: str, currency: str) -> dict[str, Any]:
    check = client.confirm_payment(reference, shop.expected_payment(amount, currency))
    return {"paid": isinstance(check, sika.PaymentCheck.CONFIRMED), "transaction": check.transaction.to_dict()}


# README: Celery reconcile task (begin)
# Celery beat, every 5 minutes (the ledger and client made at import, before the pool forks)
@app.task(name="shop.reconcile_payments")
def reconcile_payments(older_than_ms: int = 60_000) -> dict[str, Any]:
    report = ledger.reconcile(client, sika.ReconcileOptions(older_than_ms=older_than_ms, limit=500, concurrency=4))
    fulfilled = []
    for ready in report.ready:  # verified paid, not claimed: each is claimed only as its turn comes
        decision = ledger.claim(ready)
        if isinstance(decision, sika.LedgerDecision.FULFIL):  # else another worker has it, or shipped it
            with ledger.fulfilment(decision.claim):  # renewed while it runs, marked at its end
                orders.ship(ready.reference)
            fulfilled.append(ready.reference)
    # Plain data for the result backend: the report holds decisions, not data (ADR 0056).
    return {
        "checked": [payment.reference for payment in report.checked],
        "ready": [ready.reference for ready in report.ready],
        "fulfilled": fulfilled,
        "failures": [failure.reference for failure in report.failures],
    }
# README: Celery reconcile task (end)

"""The shop's tasks on a Celery prefork worker: the module, and so the BlockingClient, is
made (and used) in the worker's main process, and the pool's processes are forked from it."""

from typing import Any

from celery import Celery

import sika
from deployments import celery_config, shop

app = Celery("deployments.celery_app")
app.conf.update(celery_config.settings_from_environment())

client = sika.BlockingClient(shop.config())
# A start-up check: the main process holds a pooled connection when the pool forks.
client.list_banks("GH")


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

"""The shop's tasks on a Celery prefork worker: the module, and so the BlockingClient, is
made (and used) in the worker's main process, and the pool's processes are forked from it."""

from celery import Celery

import sika
from deployments import celery_config, shop

app = Celery("deployments.celery_app")
app.conf.update(celery_config.settings_from_environment())

client = sika.BlockingClient(shop.config())
# A start-up check: the main process holds a pooled connection when the pool forks.
client.list_banks("GH")


@app.task(name="shop.verify")
def verify(reference: str) -> sika.Transaction:
    return client.verify_transaction(reference)


@app.task(name="shop.charge")
def charge(reference: str, phone_number: str) -> sika.ChargeResponse:
    return client.initiate_charge(shop.charge_request(reference, phone_number))


@app.task(name="shop.confirm")
def confirm(reference: str, amount: str, currency: str) -> sika.PaymentCheck:
    return client.confirm_payment(reference, shop.expected_payment(amount, currency))

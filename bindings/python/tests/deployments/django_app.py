"""The shop as a single-file Django project without a database: sync views with the
BlockingClient (gunicorn --preload, sync workers: made in the master, then forked) under
`/sync/`, async views with the async Client (uvicorn, ASGI) under `/async/`."""

import json
import os

import django
from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.urls import path

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1"],
    # Nothing here signs anything (no sessions, no CSRF middleware), but Django wants one.
    SECRET_KEY="deployments-test-app-signs-nothing",
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[],
    MIDDLEWARE=[],
    DATABASES={},
    USE_TZ=True,
)
django.setup()

from django.core.asgi import get_asgi_application  # noqa: E402  (needs the settings above)
from django.core.wsgi import get_wsgi_application  # noqa: E402

import sika  # noqa: E402
from deployments import shop  # noqa: E402
from deployments.orders import AsyncOrders, Orders  # noqa: E402

blocking_client = sika.BlockingClient(shop.config())
client = sika.Client(shop.config())
orders = Orders(os.environ[shop.ORDERS_DB])
async_orders = AsyncOrders(os.environ[shop.ORDERS_DB])
# A start-up check: under gunicorn the master holds a pooled connection when the workers fork.
blocking_client.list_banks("GH")


def error_response(reference: str, error: sika.SikaError) -> JsonResponse:
    body, status = shop.error_json(reference, error)
    return JsonResponse(body, status=status)


def health(request):
    return JsonResponse({"pid": os.getpid()})


def sync_verify(request, reference):
    try:
        return JsonResponse(shop.transaction_json(reference, blocking_client.verify_transaction(reference)))
    except sika.SikaError as error:
        return error_response(reference, error)


def sync_charge(request):
    asked = json.loads(request.body)
    try:
        response = blocking_client.initiate_charge(shop.charge_request(asked["reference"], asked["phone_number"]))
        return JsonResponse(shop.charge_json(asked["reference"], response))
    except sika.SikaError as error:
        return error_response(asked["reference"], error)


def sync_confirm(request, reference):
    expected = shop.expected_payment(request.GET["amount"], request.GET["currency"])
    try:
        return JsonResponse(shop.check_json(reference, blocking_client.confirm_payment(reference, expected)))
    except sika.SikaError as error:
        return error_response(reference, error)


def sync_webhook(request):
    body = request.body
    try:
        event = sika.parse_webhook_event(body)
    except sika.SikaError:
        return HttpResponse(status=400)  # not a notification
    order = orders.get(event.reference) if event.reference else None
    if order is None:
        return HttpResponse(status=400)  # not an order of ours
    decision = blocking_client.handle_webhook(body, sika.ExpectedPayment(amount=order.amount, currency=order.currency))
    if isinstance(decision, sika.WebhookDecision.FULFIL):
        orders.fulfil_once(order.reference)  # idempotent: deliveries repeat
    return HttpResponse(status=decision.http_status())


async def async_verify(request, reference):
    try:
        return JsonResponse(shop.transaction_json(reference, await client.verify_transaction(reference)))
    except sika.SikaError as error:
        return error_response(reference, error)


async def async_charge(request):
    asked = json.loads(request.body)
    try:
        response = await client.initiate_charge(shop.charge_request(asked["reference"], asked["phone_number"]))
        return JsonResponse(shop.charge_json(asked["reference"], response))
    except sika.SikaError as error:
        return error_response(asked["reference"], error)


async def async_confirm(request, reference):
    expected = shop.expected_payment(request.GET["amount"], request.GET["currency"])
    try:
        return JsonResponse(shop.check_json(reference, await client.confirm_payment(reference, expected)))
    except sika.SikaError as error:
        return error_response(reference, error)


async def async_webhook(request):
    body = request.body
    try:
        event = sika.parse_webhook_event(body)
    except sika.SikaError:
        return HttpResponse(status=400)  # not a notification
    order = await async_orders.get(event.reference) if event.reference else None
    if order is None:
        return HttpResponse(status=400)  # not an order of ours
    decision = await client.handle_webhook(body, sika.ExpectedPayment(amount=order.amount, currency=order.currency))
    if isinstance(decision, sika.WebhookDecision.FULFIL):
        await async_orders.fulfil_once(order.reference)  # idempotent: deliveries repeat
    return HttpResponse(status=decision.http_status())


urlpatterns = [
    path("sync/health", health),
    path("sync/verify/<str:reference>", sync_verify),
    path("sync/charge", sync_charge),
    path("sync/confirm/<str:reference>", sync_confirm),
    path("sync/webhooks/sika", sync_webhook),
    path("async/health", health),
    path("async/verify/<str:reference>", async_verify),
    path("async/charge", async_charge),
    path("async/confirm/<str:reference>", async_confirm),
    path("async/webhooks/sika", async_webhook),
]

wsgi_application = get_wsgi_application()
asgi_application = get_asgi_application()

"""The functions `multiprocessing.Pool` and `ProcessPoolExecutor` run in their forked
workers. `client` is set by the parent, which uses it before the pool forks: the workers
inherit it, as module-level clients are inherited."""

from __future__ import annotations

import os

import sika
from deployments import shop

client: sika.BlockingClient | None = None


def inherited() -> sika.BlockingClient:
    assert client is not None, "the parent sets `client` before the pool forks"
    return client


def verify(reference: str) -> tuple[int, sika.Transaction]:
    return os.getpid(), inherited().verify_transaction(reference)


def charge(reference: str, phone_number: str) -> tuple[int, sika.ChargeResponse]:
    return os.getpid(), inherited().initiate_charge(shop.charge_request(reference, phone_number))


def confirm(reference: str, amount: str, currency: str) -> tuple[int, sika.PaymentCheck]:
    return os.getpid(), inherited().confirm_payment(reference, shop.expected_payment(amount, currency))

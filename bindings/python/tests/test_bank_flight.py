"""B48: concurrent callers of one bank list during an outage share one fetch (one request
reaches the service) and its outcome, failure included, and each returns within its own
`timeout_ms`, never after the callers before it have each used theirs."""

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from sika import SikaError
from support import scenario

# faults.json's concurrent_bank_fetch_during_outage: every parameter of these tests.
SETUP = scenario("concurrent_bank_fetch_during_outage")
CALLERS = SETUP["callers"]
COUNTRY = SETUP["country"]
TIMEOUT_MS = SETUP["timeout_ms"]
# Queued callers would take CALLERS x timeout; sharing takes one. The bound (in timeouts)
# leaves room for a loaded machine and still fails the queue.
BOUND_S = SETUP["bound_in_timeouts"] * TIMEOUT_MS / 1000
HANG = SETUP["faults"]["hang"]
SLOW_503 = SETUP["faults"]["slow_503"]


def outage(sandbox, fault) -> type:
    """Puts the scenario's fault in place; returns the error type every caller must get."""
    sandbox.fault(SETUP["path"], fault["kind"], count=fault["count"], **fault["options"])
    return getattr(SikaError, fault["error"])


def client_settings() -> dict:
    return {"timeout_ms": TIMEOUT_MS, "max_retries": SETUP["max_retries"]}


def bank_requests(sandbox) -> int:
    return sum(1 for request in sandbox.requests() if request["path"].startswith(SETUP["path"]))


def blocking_calls(client) -> tuple[list, float]:
    start_together = threading.Barrier(CALLERS)

    def call(_):
        start_together.wait()
        try:
            return client.list_banks(COUNTRY)
        except SikaError as error:
            return error

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=CALLERS) as pool:
        outcomes = list(pool.map(call, range(CALLERS)))
    return outcomes, time.monotonic() - started


async def async_calls(client) -> tuple[list, float]:
    started = time.monotonic()
    outcomes = await asyncio.gather(*(client.list_banks(COUNTRY) for _ in range(CALLERS)), return_exceptions=True)
    return outcomes, time.monotonic() - started


def assert_all_failed(outcomes, error_type, took):
    assert len(outcomes) == CALLERS
    assert all(isinstance(outcome, error_type) for outcome in outcomes), outcomes
    assert took < BOUND_S, f"{CALLERS} callers took {took:.2f} s, more than {BOUND_S} s"


def assert_same_503(outcomes):
    assert {(outcome.http_status, str(outcome)) for outcome in outcomes} == {(SLOW_503["http_status"], str(outcomes[0]))}


def test_b48_blocking_callers_during_a_hang_share_one_fetch_and_time_out_together(sandbox):
    client = sandbox.blocking_client(**client_settings())
    expected = outage(sandbox, HANG)
    outcomes, took = blocking_calls(client)
    assert_all_failed(outcomes, expected, took)
    assert bank_requests(sandbox) == 1, "one flight, one request"

    sandbox.control("clear_faults")
    assert client.list_banks(COUNTRY), "the call after the failure fetches again"
    assert bank_requests(sandbox) == 2


def test_b48_blocking_callers_share_one_fetch_and_its_5xx(sandbox):
    client = sandbox.blocking_client(**client_settings())
    expected = outage(sandbox, SLOW_503)
    outcomes, took = blocking_calls(client)
    assert_all_failed(outcomes, expected, took)
    assert_same_503(outcomes)
    assert bank_requests(sandbox) == 1, "one flight, one request"


async def test_b48_async_callers_during_a_hang_share_one_fetch_and_time_out_together(sandbox):
    client = sandbox.client(**client_settings())
    expected = outage(sandbox, HANG)
    outcomes, took = await async_calls(client)
    assert_all_failed(outcomes, expected, took)
    assert bank_requests(sandbox) == 1, "one flight, one request"

    sandbox.control("clear_faults")
    assert await client.list_banks(COUNTRY), "the call after the failure fetches again"
    assert bank_requests(sandbox) == 2


async def test_b48_async_callers_share_one_fetch_and_its_5xx(sandbox):
    client = sandbox.client(**client_settings())
    expected = outage(sandbox, SLOW_503)
    outcomes, took = await async_calls(client)
    assert_all_failed(outcomes, expected, took)
    assert_same_503(outcomes)
    assert bank_requests(sandbox) == 1, "one flight, one request"

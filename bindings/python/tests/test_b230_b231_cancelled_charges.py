"""B230, B231: a charge cancelled after its request may have reached the service is never
"cancelled" (issue 46, ADR 0075).

B230 (the SDK chooses the error): a blocking `initiate_charge` on the main thread, plain and
through `BlockingLedger.initiate_charge`, interrupted by SIGINT after the sandbox logged
`POST /charge` (a `hang` fault: the charge is at the service, its answer never comes) raises the
handler's `KeyboardInterrupt` with `SikaError.ChargeOutcomeUnknown` as its `__cause__`: the
reference and the request id the sandbox received. Interrupted while it waits for a socket (the
client's one socket held by a hung read): nothing was sent, and the `KeyboardInterrupt` has no
cause (its suppressed context is `SikaError.Cancelled`, as before).

B231 (the host's own cancellation): an asyncio task of `Client.initiate_charge`, plain and
through `Ledger.initiate_charge`, cancelled after the sandbox logged `POST /charge` raises
`CancelledError` with the `ChargeOutcomeUnknown` as its `__cause__`; the core logged a WARN
record naming the reference and the request id; `take_cancelled_charge` answers each once.
Cancelled before any socket connected: a bare `CancelledError`, nothing sent, nothing to take.
B312: cancelled as its answer arrives (the loop busy, the answer not yet taken), the same
`ChargeOutcomeUnknown` as its cause: the answer is lost with the call.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time

import pytest

import sika
from support import SIGNAL_AT_S, charge, poll, signal_in, transaction_object

PHONE = "+233244123333"


def charges_received(sandbox) -> list[str]:
    return [request["request_id"] for request in sandbox.requests() if request["path"] == "/charge"]


def assert_outcome_unknown(error, reference: str, sandbox) -> None:
    assert isinstance(error, sika.SikaError.ChargeOutcomeUnknown), repr(error)
    assert error.reference == reference
    assert "cancelled" in error.reason
    assert error.request_id is not None and error.request_id == charges_received(sandbox)[-1]
    assert f"verify reference `{reference}`" in str(error)


def held_socket(sandbox, blocking: bool):
    """A client whose only socket is held by a read that hangs: a charge waits for it,
    unconnected. The read runs on another thread (blocking) or task."""
    sandbox.seed_transaction(transaction_object("B230-HOLD", "pending", "1"))
    sandbox.fault("/transaction/verify", "hang", count=1)
    settings = {"max_connections_per_host": 1, "timeout_ms": 5_000, "max_retries": 0}
    return (sandbox.blocking_client if blocking else sandbox.client)(**settings)


def wait_for_hold(sandbox) -> None:
    poll(sandbox.requests, lambda requests: any(r["path"] == "/transaction/verify/B230-HOLD" for r in requests))


@pytest.mark.usefixtures("sigint_raises")
@pytest.mark.parametrize("through", ["client", "ledger"])
def test_b230_sigint_after_the_charge_was_sent_raises_keyboard_interrupt_caused_by_outcome_unknown(
    sandbox, tmp_path, through
):
    client = sandbox.blocking_client(timeout_ms=15_000)
    reference = f"B230-SIGINT-{through}"
    sandbox.fault("/charge", "hang", count=1)
    if through == "ledger":
        ledger = sika.BlockingLedger.sqlite(str(tmp_path / "ledger.db"))
        call = lambda: ledger.initiate_charge(client, charge(reference, PHONE))  # noqa: E731
    else:
        call = lambda: client.initiate_charge(charge(reference, PHONE))  # noqa: E731
    timer = signal_in(SIGNAL_AT_S)
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt) as interrupted:
            call()
    finally:
        timer.cancel()
    assert time.monotonic() - started < 5, "the signal did not end the call"
    assert_outcome_unknown(interrupted.value.__cause__, reference, sandbox)
    # Given as the cause already: nothing left to take.
    assert sika.take_cancelled_charge(reference) is None
    if through == "ledger":
        # Still expected: the ledger's reconcile settles it.
        assert ledger.payment(reference) is not None


@pytest.mark.usefixtures("sigint_raises")
def test_b230_sigint_before_any_socket_connected_is_a_plain_keyboard_interrupt(sandbox):
    client = held_socket(sandbox, blocking=True)
    holder = threading.Thread(target=lambda: pytest.raises(sika.SikaError, client.verify_transaction, "B230-HOLD"))
    holder.start()
    wait_for_hold(sandbox)
    timer = signal_in(0.3)
    try:
        with pytest.raises(KeyboardInterrupt) as interrupted:
            client.initiate_charge(charge("B230-UNSENT", PHONE))
    finally:
        timer.cancel()
        client.shutdown()
    assert interrupted.value.__cause__ is None
    assert isinstance(interrupted.value.__context__, sika.SikaError.Cancelled), repr(interrupted.value.__context__)
    assert charges_received(sandbox) == []
    assert sika.take_cancelled_charge("B230-UNSENT") is None
    holder.join(timeout=15)


@pytest.mark.parametrize("through", ["client", "ledger"])
async def test_b231_an_asyncio_charge_cancelled_after_it_was_sent_raises_cancelled_error_caused_by_outcome_unknown(
    sandbox, tmp_path, through, caplog
):
    caplog.set_level(logging.WARNING, logger="sika")
    client = sandbox.client(timeout_ms=15_000)
    reference = f"B231-ASYNC-{through}"
    sandbox.fault("/charge", "hang", count=1)
    if through == "ledger":
        ledger = sika.Ledger.sqlite(str(tmp_path / "ledger.db"))
        task = asyncio.create_task(ledger.initiate_charge(client, charge(reference, PHONE)))
    else:
        task = asyncio.create_task(client.initiate_charge(charge(reference, PHONE)))
    started = time.monotonic()
    while not charges_received(sandbox):
        assert time.monotonic() - started < 5, "the charge never reached the sandbox"
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError) as cancelled:
        await task
    if sys.version_info >= (3, 11):
        assert_outcome_unknown(cancelled.value.__cause__, reference, sandbox)
        assert sika.take_cancelled_charge(reference) is None, "taken once, as the cause"
    else:
        # 3.9 and 3.10 give the awaiter a fresh CancelledError: the error waits to be taken.
        assert_outcome_unknown(sika.take_cancelled_charge(reference), reference, sandbox)
    request_id = charges_received(sandbox)[-1]
    # The log bridge hands records to `logging` from its own thread (ADR 0044).
    while not any(reference in r.getMessage() and request_id in r.getMessage() for r in caplog.records):
        assert time.monotonic() - started < 10, [r.getMessage() for r in caplog.records]
        await asyncio.sleep(0.02)
    warned = [r for r in caplog.records if reference in r.getMessage() and request_id in r.getMessage()]
    assert [r.levelno for r in warned] == [logging.WARNING], warned
    if through == "ledger":
        assert await ledger.payment(reference) is not None


async def test_b231_an_asyncio_charge_cancelled_before_any_socket_connected_is_a_bare_cancelled_error(sandbox):
    client = held_socket(sandbox, blocking=False)
    holder = asyncio.create_task(client.verify_transaction("B230-HOLD"))
    started = time.monotonic()
    while not any(r["path"] == "/transaction/verify/B230-HOLD" for r in sandbox.requests()):
        assert time.monotonic() - started < 5, "the holding read never reached the sandbox"
        await asyncio.sleep(0.02)
    task = asyncio.create_task(client.initiate_charge(charge("B231-UNSENT", PHONE)))
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError) as cancelled:
        await task
    holder.cancel()
    assert cancelled.value.__cause__ is None
    assert charges_received(sandbox) == []
    assert sika.take_cancelled_charge("B231-UNSENT") is None


async def test_b312_an_asyncio_charge_cancelled_as_its_answer_arrives_raises_cancelled_error_caused_by_outcome_unknown(
    sandbox,
):
    """The answer arrives (a 300 ms `delay` fault) while the loop is busy, so its wake waits
    behind the loop's current callback, and the task is cancelled then: the answer is lost with
    the call, and the caller must still learn the charge's outcome is unknown."""
    client = sandbox.client(timeout_ms=15_000)
    reference = "B312-ASYNC"
    sandbox.fault("/charge", "delay", count=1, delay_ms=300)
    task = asyncio.create_task(client.initiate_charge(charge(reference, PHONE)))
    started = time.monotonic()
    while not charges_received(sandbox):
        assert time.monotonic() - started < 5, "the charge never reached the sandbox"
        await asyncio.sleep(0.02)
    # The loop held: the answer comes and the call's task finishes, its wake not yet run.
    time.sleep(1.0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError) as cancelled:
        await task
    if sys.version_info >= (3, 11):
        assert_outcome_unknown(cancelled.value.__cause__, reference, sandbox)
    else:
        # 3.9 and 3.10 give the awaiter a fresh CancelledError: the error waits to be taken.
        assert_outcome_unknown(sika.take_cancelled_charge(reference), reference, sandbox)
    assert sika.take_cancelled_charge(reference) is None, "taken once"

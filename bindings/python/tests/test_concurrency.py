"""B18: one client shared by many threads (blocking) and many tasks (async) at once, and
blocking calls that release the GIL while they wait. B31: 32 callers sharing one client with
mixed operations. B32: cancelled in-flight calls end promptly and leak no connection."""

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest

import sika
from sika import SikaError
from support import (
    AwaitableBlockingClient,
    blocking_client,
    charge,
    poll,
    poll_open_connections,
    settled_connections,
    silent_server,
    transaction_object,
)


def seed(sandbox, prefix: str, count: int) -> list[str]:
    references = [f"{prefix}-{index}" for index in range(count)]
    for reference in references:
        sandbox.seed_transaction(transaction_object(reference, "successful", "1.00"))
    sandbox.clear_requests()
    return references


def test_b18_one_blocking_client_is_shared_by_16_threads(sandbox):
    references = seed(sandbox, "THREAD", 16)
    client = sandbox.blocking_client()
    start_together = threading.Barrier(len(references))

    def verify_five_times(reference):
        start_together.wait()
        return [client.verify_transaction(reference).tx_ref for _ in range(5)]

    with ThreadPoolExecutor(max_workers=len(references)) as pool:
        results = list(pool.map(verify_five_times, references))

    assert results == [[reference] * 5 for reference in references]
    assert len(sandbox.requests()) == 5 * len(references)


async def test_b18_one_async_client_serves_32_concurrent_calls(sandbox):
    references = seed(sandbox, "TASK", 32)
    client = sandbox.client()
    transactions = await asyncio.gather(*(client.verify_transaction(reference) for reference in references))
    assert [transaction.tx_ref for transaction in transactions] == references
    assert len(sandbox.requests()) == len(references)


def test_b18_a_waiting_blocking_call_releases_the_gil():
    # The call waits out its whole timeout inside Rust while another Python thread ticks.
    ticks: list[float] = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)

    with silent_server() as silent_url:
        client = blocking_client(silent_url, timeout_ms=600, max_retries=0)
        ticker = threading.Thread(target=tick)
        ticker.start()
        started = time.monotonic()
        try:
            with pytest.raises(SikaError.Timeout):
                client.verify_transaction("ORDER-1")
        finally:
            ended = time.monotonic()
            stop.set()
            ticker.join()

    assert ended - started >= 0.4, "the call waited for its timeout"
    # Holding the GIL would freeze the ticker for the whole call.
    during = [moment for moment in ticks if started + 0.1 < moment < ended - 0.1]
    assert len(during) >= 20, f"only {len(during)} ticks while the call waited"


# B31: 32 callers, one client, every operation at once.

CALLERS = 32
ROUNDS = 3
PROVIDER_COUNTRIES = ["GH", "KE", "UG", "TZ"]
BANK_COUNTRIES = ["GH", "NG", "KE", "UG", "TZ"]


class Expected:
    """What every caller must get, read once by a client of its own before the callers start."""

    def __init__(self, sandbox):
        reference = sandbox.blocking_client(bank_cache_ttl_seconds=0)
        self.providers = {country: reference.list_mobile_money_providers(country) for country in PROVIDER_COUNTRIES}
        self.banks = {country: reference.list_banks(country) for country in BANK_COUNTRIES}
        # Sandbox facts, so an empty or wrong reference answer cannot make every caller "right".
        assert {p.code for p in self.providers["GH"]} == {"MTN", "VODAFONE", "AIRTELTIGO"}
        assert {p.code for p in self.providers["KE"]} == {"MPESA_KE", "AIRTEL_KE"}
        assert all(b.account_type == sika.BankAccountType.NUBAN() for b in self.banks["NG"])
        assert all(3 <= len(banks) <= 5 for banks in self.banks.values())
        for index in range(CALLERS):
            sandbox.seed_transaction(transaction_object(f"MIX-{index}", "successful", paid_amount(index)))
        sandbox.clear_requests()


def paid_amount(index: int) -> str:
    return f"{index + 1}.{index:02d}"


async def mixed_work(client, index: int, expected: Expected) -> int:
    """One caller's mix: verify, providers, banks, charge then confirm_payment, `ROUNDS` times,
    every answer checked. Returns the number of calls made."""
    calls = 0
    paid = sika.ExpectedPayment(amount=Decimal(paid_amount(index)), currency="GHS")
    for round_ in range(ROUNDS):
        transaction = await client.verify_transaction(f"MIX-{index}")
        assert (transaction.tx_ref, transaction.amount) == (f"MIX-{index}", Decimal(paid_amount(index)))
        assert transaction.status == sika.TransactionStatus.SUCCESSFUL()

        country = PROVIDER_COUNTRIES[(index + round_) % len(PROVIDER_COUNTRIES)]
        assert await client.list_mobile_money_providers(country.lower()) == expected.providers[country]
        country = BANK_COUNTRIES[(index + round_) % len(BANK_COUNTRIES)]
        assert await client.list_banks(country) == expected.banks[country]

        reference = f"MIXCHG-{index}-{round_}"
        amount = Decimal(f"{index + 1}.50")
        # A customer who never answers (...3333): the charge stays pending whatever the timing.
        response = await client.initiate_charge(charge(reference, "+233244123333", str(amount)))
        assert (response.http_status, response.status) == (200, True)
        check = await client.confirm_payment(reference, sika.ExpectedPayment(amount=amount, currency="GHS"))
        assert isinstance(check, sika.PaymentCheck.NOT_YET), check
        assert (check.transaction.tx_ref, check.transaction.amount) == (reference, amount)

        confirmed = await client.confirm_payment(f"MIX-{index}", paid)
        assert isinstance(confirmed, sika.PaymentCheck.CONFIRMED), confirmed
        assert confirmed.transaction.tx_ref == f"MIX-{index}"
        off = sika.ExpectedPayment(amount=Decimal(paid_amount(index)) + Decimal("0.01"), currency="GHS")
        mismatch = await client.confirm_payment(f"MIX-{index}", off)
        assert isinstance(mismatch, sika.PaymentCheck.MISMATCH) and mismatch.field == "amount", mismatch
        calls += 8
    return calls


def assert_each_charge_sent_once(sandbox) -> None:
    charges = [request for request in sandbox.requests() if request["method"] == "POST"]
    assert len(charges) == CALLERS * ROUNDS
    assert all(request["path"] == "/charge" and request["authorized"] for request in charges)


def test_b31_one_blocking_client_is_shared_by_32_threads_with_mixed_operations(sandbox):
    expected = Expected(sandbox)
    client = sandbox.blocking_client()
    start_together = threading.Barrier(CALLERS)

    def caller(index):
        start_together.wait()
        # The thread's own event loop only sequences the plain blocking calls of `mixed_work`.
        return asyncio.run(mixed_work(AwaitableBlockingClient(client), index, expected))

    with ThreadPoolExecutor(max_workers=CALLERS) as pool:
        calls = list(pool.map(caller, range(CALLERS)))

    assert calls == [8 * ROUNDS] * CALLERS
    assert_each_charge_sent_once(sandbox)


async def test_b31_one_async_client_is_shared_by_32_tasks_with_mixed_operations(sandbox):
    expected = Expected(sandbox)
    client = sandbox.client()
    calls = await asyncio.gather(*(mixed_work(client, index, expected) for index in range(CALLERS)))
    assert calls == [8 * ROUNDS] * CALLERS
    assert_each_charge_sent_once(sandbox)


def test_b31_one_async_client_is_shared_by_4_event_loops_in_4_threads(sandbox):
    expected = Expected(sandbox)
    client = sandbox.client()
    loops = 4

    async def eight_tasks(first):
        return await asyncio.gather(*(mixed_work(client, index, expected) for index in range(first, first + CALLERS // loops)))

    with ThreadPoolExecutor(max_workers=loops) as pool:
        calls = list(pool.map(lambda n: asyncio.run(eight_tasks(n * CALLERS // loops)), range(loops)))

    assert [count for per_loop in calls for count in per_loop] == [8 * ROUNDS] * CALLERS
    assert_each_charge_sent_once(sandbox)


# B32: cancelling calls stuck on a `hang` fault.

HUNG = 4  # calls ended by task.cancel(), and as many again by asyncio.wait_for
WAIT_FOR_S = 3.0


async def test_b32_cancelled_tasks_end_promptly_and_close_their_connections(sandbox):
    sandbox.seed_transaction(transaction_object("ALIVE-1", "successful", "5"))
    client = sandbox.client(timeout_ms=60_000, max_retries=0)
    baseline = settled_connections(sandbox)
    sandbox.fault("/transaction/verify/HUNG", "hang", count=2 * HUNG)

    cancelled = [asyncio.ensure_future(client.verify_transaction(f"HUNG-C{n}")) for n in range(HUNG)]
    timed = [
        asyncio.ensure_future(asyncio.wait_for(client.verify_transaction(f"HUNG-W{n}"), timeout=WAIT_FOR_S))
        for n in range(HUNG)
    ]
    started = time.monotonic()
    # Every call is in flight: its connection is open at the sandbox, unanswered.
    in_flight = await asyncio.to_thread(
        poll_open_connections, sandbox, lambda n: n >= baseline["open"] + 2 * HUNG, deadline_s=1
    )
    assert in_flight >= baseline["open"] + 2 * HUNG, f"{in_flight} open, baseline {baseline}"
    hung_requests = lambda: [r for r in sandbox.requests() if r["path"].startswith("/transaction/verify/HUNG")]  # noqa: E731
    arrived = await asyncio.to_thread(poll, hung_requests, lambda sent: len(sent) == 2 * HUNG, 1)
    assert len(arrived) == 2 * HUNG, arrived
    assert not any(task.done() for task in cancelled + timed)

    for task in cancelled:
        task.cancel()
    cancel_at = time.monotonic()
    done, pending = await asyncio.wait(cancelled, timeout=1)
    assert not pending, "task.cancel() did not end the calls"
    assert all(task.cancelled() for task in done)
    assert time.monotonic() - cancel_at < 1

    results = await asyncio.gather(*timed, return_exceptions=True)
    assert all(isinstance(result, asyncio.TimeoutError) for result in results), results
    assert time.monotonic() - started < WAIT_FOR_S + 1, "wait_for ended the calls at its timeout"

    # Nothing is left running on the loop: only this test's own task.
    assert asyncio.all_tasks() == {asyncio.current_task()}
    # Every hung connection is closed: back to the baseline (this poll's own request included).
    after = await asyncio.to_thread(poll_open_connections, sandbox, lambda n: n == baseline["open"])
    assert after == baseline["open"], f"{after} connections open, {baseline['open']} before the calls"
    assert len(hung_requests()) == 2 * HUNG, "each cancelled call was sent once and never retried"

    # The client still works.
    assert (await client.verify_transaction("ALIVE-1")).tx_ref == "ALIVE-1"
    assert [provider.code for provider in await client.list_mobile_money_providers("KE")] == ["MPESA_KE", "AIRTEL_KE"]


def test_b32_a_blocking_wait_stuck_on_a_hang_is_cancelled_from_another_thread(sandbox):
    # Seeded, not charged: the client has no pooled connection yet, so the baseline is exact.
    sandbox.seed_transaction(transaction_object("HUNG-WAIT", "pending", "5"))
    client = sandbox.blocking_client()
    baseline = settled_connections(sandbox)
    sandbox.fault("/transaction/verify/HUNG-WAIT", "hang")
    cancellation = sika.Cancellation()
    seen: dict = {}

    def cancel_once_stuck():
        seen["open"] = poll_open_connections(sandbox, lambda n: n >= baseline["open"] + 1)
        seen["sent"] = len(poll(sandbox.requests, lambda sent: len(sent) == 1))
        seen["at"] = time.monotonic()
        cancellation.cancel()

    canceller = threading.Thread(target=cancel_once_stuck)
    canceller.start()
    options = sika.AwaitOptions(timeout_ms=60_000, initial_delay_ms=0, interval_ms=50, cancellation=cancellation)
    with pytest.raises(SikaError.Cancelled):
        client.await_final_status("HUNG-WAIT", options)
    ended = time.monotonic()
    canceller.join()

    assert seen["open"] >= baseline["open"] + 1 and seen["sent"] == 1, f"the verification was not in flight: {seen}"
    assert ended - seen["at"] < 1, f"ended {ended - seen['at']:.2f} s after the cancellation"
    after = poll_open_connections(sandbox, lambda n: n == baseline["open"])
    assert after == baseline["open"], f"{after} connections open, {baseline['open']} before the wait"
    polls = [r for r in sandbox.requests() if r["path"] == "/transaction/verify/HUNG-WAIT"]
    assert len(polls) == 1, "nothing was sent after the cancellation"
    assert client.verify_transaction("HUNG-WAIT").status == sika.TransactionStatus.PENDING()

"""B33: memory stays bounded over 100,000 calls.

The process's resident set (VmRSS) is read after a warm-up (allocator arenas, the client's
runtime and connection pool, the interpreter's caches all reach their working size) and again
after 100,000 more calls. The allowed growth, GROWTH_BOUND, is 8 MiB: a leak of one
Transaction's raw_json per call (about 1 KiB for the record used here) would be about 100 MB,
and even a leak of one 80-byte object per call would be 8 MB.

Runtime, measured on the 2-core development machine against the debug sandbox: about 35 s for
the 105,000 verify calls, a few seconds for the functions without I/O.
"""

import gc
import time
from decimal import Decimal
from pathlib import Path

import pytest

import sika
from support import transaction_object

CALLS = 100_000
WARM_UP = 5_000
GROWTH_BOUND = 8 * 1024 * 1024
STATUS = Path("/proc/self/status")

pytestmark = pytest.mark.skipif(not STATUS.exists(), reason="VmRSS is read from /proc (Linux)")


def resident_bytes() -> int:
    gc.collect()
    for line in STATUS.read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS line in /proc/self/status")


def grows_by(call, warm_up: int = WARM_UP, calls: int = CALLS) -> tuple[int, float]:
    """Runs `call(i)` `warm_up` times, then `calls` more times; the RSS growth over the latter
    and their duration in seconds."""
    for index in range(warm_up):
        call(index)
    before = resident_bytes()
    started = time.monotonic()
    for index in range(calls):
        call(index)
    elapsed = time.monotonic() - started
    return resident_bytes() - before, elapsed


def full_record(reference: str) -> str:
    """A transaction with every part the client lifts into Python: a customer, custom fields, an
    exact decimal amount, a description, timestamps (the raw JSON is kept whole as well)."""
    base = transaction_object(reference, "successful", "1234.56")
    return base.replace('"description":null', '"description":"Order 1001: two bags of rice, one of beans"').replace(
        '"meta":{"custom_fields":[]}',
        '"meta":{"custom_fields":['
        '{"display_name":"Order ID","variable_name":"order_id","value":"1001"},'
        '{"display_name":"Branch","variable_name":"branch","value":"Accra Central"},'
        '{"display_name":"Cashier","variable_name":"cashier","value":"Kofi Boateng"}]}',
    )


def test_b33_100000_blocking_verifications_keep_memory_bounded(sandbox):
    record = full_record("MEMORY-1")
    sandbox.seed_transaction(record)
    client = sandbox.blocking_client()
    expected_amount = Decimal("1234.56")

    def verify(_):
        transaction = client.verify_transaction("MEMORY-1")
        assert transaction.amount == expected_amount and len(transaction.custom_fields) == 3

    growth, elapsed = grows_by(verify)

    last = client.verify_transaction("MEMORY-1")
    assert last.customer.name == "Ama" and last.custom_fields[2].value == "Kofi Boateng"
    assert len(last.raw_json) >= len(record), "the whole record was lifted each call"
    assert growth < GROWTH_BOUND, f"RSS grew by {growth / 2**20:.1f} MiB over {CALLS} calls ({elapsed:.1f} s)"
    print(f"\nB33 verify: {CALLS} calls in {elapsed:.1f} s, RSS growth {growth / 2**10:.0f} KiB")


def test_b33_100000_calls_without_io_keep_memory_bounded():
    statuses = [
        sika.TransactionStatus.SUCCESSFUL(),
        sika.TransactionStatus.PENDING(),
        sika.TransactionStatus.FAILED(),
        sika.TransactionStatus.UNKNOWN("success"),
    ]
    actions = [status.merchant_action() for status in statuses]
    finals = [status.is_final() for status in statuses]
    assert actions[0] == sika.MerchantAction.FULFIL_ORDER and actions[3] == sika.MerchantAction.INVESTIGATE
    assert finals == [True, False, True, False]
    body = b'{"event":"charge.success","data":{"reference":"ORDER-1001","amount":1234.56}}'
    verify_body = ('{"status":true,"message":"Verification successful","data":' + full_record("MEMORY-2") + "}").encode()

    def pure(index):
        status = statuses[index % 4]
        assert status.merchant_action() == actions[index % 4]
        assert status.is_final() is finals[index % 4]
        assert sika.parse_webhook_event(body).reference == "ORDER-1001"
        # The same lifting as a verification, without the network.
        assert sika.decode_transaction_response(200, verify_body).custom_fields[1].value == "Accra Central"

    growth, elapsed = grows_by(pure)
    assert growth < GROWTH_BOUND, f"RSS grew by {growth / 2**20:.1f} MiB over {CALLS} rounds ({elapsed:.1f} s)"
    print(f"\nB33 no I/O: {CALLS} rounds of 4 calls in {elapsed:.1f} s, RSS growth {growth / 2**10:.0f} KiB")

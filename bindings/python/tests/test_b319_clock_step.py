"""B319 from Python, with a real clock shim: an SQLite ledger's leases are on the machine's boot
clock (ADR 0095), so a process whose wall clock is 10 minutes ahead or behind (libfaketime from
Debian's `faketime`, which scripts/setup installs, shifting only the wall clock: the boot clock
stays the kernel's) is answered `IN_PROGRESS` while this process holds a live 5-minute claim on
the same file, and a claim it takes lasts its lease on the shared clock. Before ADR 0095 the
process ahead was given `FULFIL` for the live claim: two machines' worth of clocks, two
shipments. The Rust suite (`core/tests/ledger/time.rs`) checks the same with an injected offset.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest

import sika
from support import KEY, Sandbox, transaction_object

LIBFAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
STEP_S = 10 * 60
ORDER = sika.ExpectedPayment(amount=Decimal("100.10"), currency="GHS")

# Run under the shim: two deliveries of the live claim's notification, then a claim of its own.
SKEWED = """
import json, sys, time
import sika
path, url, key, live, own = sys.argv[1:]
ledger = sika.BlockingLedger.sqlite(path)
client = sika.BlockingClient(sika.ClientConfig(secret_key=sika.SecretKey(key), base_url=url))
def body(reference):
    return json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()
decisions = [type(ledger.handle_webhook(client, body(live))).__name__ for _ in range(2)]
own_decision = ledger.settle(client, own)
print(json.dumps({
    "wall": time.time(),
    "decisions": decisions,
    "own": type(own_decision).__name__,
    "own_lease_expires_at": own_decision.claim.lease_expires_at.timestamp() if hasattr(own_decision, "claim") else None,
}))
"""


def run_skewed(offset: str, ledger_path: Path, sandbox: Sandbox, live: str, own: str) -> dict:
    assert LIBFAKETIME.exists(), f"{LIBFAKETIME} is missing: run scripts/setup (it installs faketime)"
    environment = {
        **os.environ,
        "LD_PRELOAD": str(LIBFAKETIME),
        "FAKETIME": offset,
        # The shim moves the wall clock only: the boot clock is the kernel's, as after an NTP step.
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }
    child = subprocess.run(
        [sys.executable, "-c", SKEWED, str(ledger_path), sandbox.url, KEY, live, own],
        capture_output=True, text=True, timeout=120, env=environment,
    )  # fmt: skip
    assert child.returncode == 0, child.stderr
    return json.loads(child.stdout.strip().splitlines()[-1])


def notification(reference: str) -> bytes:
    return json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()


@pytest.mark.parametrize("offset", ["+10m", "-10m"], ids=["ahead", "behind"])
def test_b319_a_process_whose_wall_clock_was_stepped_is_not_given_a_live_claim(sandbox, tmp_path, offset):
    tag = f"B319-PY-{'AHEAD' if offset.startswith('+') else 'BEHIND'}"
    live, own = f"{tag}-1", f"{tag}-2"
    path = tmp_path / "ledger.db"
    ledger = sika.BlockingLedger.sqlite(str(path))  # the default 5-minute lease
    client = sandbox.blocking_client()
    for reference in (live, own):
        sandbox.seed_transaction(transaction_object(reference, "successful", "100.10"))
        ledger.expect(reference, ORDER)
    held = ledger.handle_webhook(client, notification(live))
    assert isinstance(held, sika.LedgerDecision.FULFIL), held

    skewed = run_skewed(offset, path, sandbox, live, own)

    shift = skewed["wall"] - time.time()
    assert abs(shift) > STEP_S - 60, f"the shim did not move the child's wall clock ({shift:.0f} s)"
    assert skewed["decisions"] == ["LedgerDecision.IN_PROGRESS"] * 2, "a live claim given twice"
    assert skewed["own"] == "LedgerDecision.FULFIL", skewed
    # Its claim lasts the lease on the shared clock: not 10 minutes more or less.
    lease_left = skewed["own_lease_expires_at"] - datetime.datetime.now(datetime.timezone.utc).timestamp()
    assert 4 * 60 < lease_left <= 5 * 60 + 5, f"{lease_left:.0f} s"
    during = ledger.settle(client, own)
    assert isinstance(during, sika.LedgerDecision.IN_PROGRESS), during
    ledger.mark_fulfilled(held.claim)

"""B161: `sika listen --forward-to` in front of the Python example app's webhook route
(`examples/mobile_money_flow.py`), then `sika trigger charge.success --times 3 --concurrent`
(issue 29's forwarding test; B87 runs the same against a merchant server written in Rust).

The app gets the sandbox's notification three times through `sika listen`, verifies each with
the service and decides Fulfil for each (its order is paid in full: fulfilment is idempotent);
`sika trigger` prints three 200s; `sika listen` prints each event with the app's answer and its
time. The key is in no output. `sika` is the binary shipped beside `sika-sandbox`
(`SIKA_SANDBOX_BIN`): the build's in `scripts/test python`, the installed one in
`scripts/test-installed-python`."""

import os
import queue
import re
import signal
import socket
import subprocess
import threading
from decimal import Decimal
from pathlib import Path

import pytest

import sika
from support import KEY

# Generous bounds, only so a broken command fails the test instead of hanging it.
WAIT_S = 20.0
REFERENCE = "ORDER-B161"
# `HH:MM:SS` at the start of each line `sika listen` prints.
TIME = r"\d\d:\d\d:\d\d"


def sika_binary() -> str:
    sandbox_binary = os.environ.get("SIKA_SANDBOX_BIN")
    if not sandbox_binary:
        raise RuntimeError("SIKA_SANDBOX_BIN is not set: run the suite with scripts/test-python")
    binary = Path(sandbox_binary).with_name("sika")
    assert binary.is_file(), f"no `sika` beside {sandbox_binary}: both ship together"
    return str(binary)


@pytest.fixture
def example_url(example, sandbox):
    """The example's webhook route on a free loopback port, with the order it expects."""
    example.ORDERS[REFERENCE] = sika.ExpectedPayment(amount=Decimal("25.50"), currency="GHS")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = example.webhook_server(port, sandbox.blocking_client())
    yield f"http://127.0.0.1:{port}/webhooks/sika"
    server.shutdown()
    server.server_close()


def sika_env(sandbox) -> dict:
    # The key through the environment, never an argument (B62); no colour in what is checked.
    return {**os.environ, "SIKA_BASE_URL": sandbox.url, "SIKA_SECRET_KEY": KEY, "NO_COLOR": "1"}


def lines_of(pipe) -> "tuple[queue.Queue[str], threading.Thread]":
    """The pipe's lines, read on a thread (done at end of file), so that waiting for one can give up."""
    lines: "queue.Queue[str]" = queue.Queue()

    def read() -> None:
        for line in iter(pipe.readline, ""):
            lines.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return lines, reader


@pytest.fixture
def listen(sandbox, example_url):
    """`sika listen --forward-to` the example, ready (its `Ready!` line read); stopped by the test."""
    process = subprocess.Popen(
        [sika_binary(), "listen", "--forward-to", example_url],
        env=sika_env(sandbox),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    stderr, stderr_reader = lines_of(process.stderr)
    try:
        ready = stderr.get(timeout=WAIT_S)
    except queue.Empty:
        process.kill()
        pytest.fail(f"`sika listen` printed no line within {WAIT_S} s")
    assert ready.startswith("Ready! Forwarding the sandbox's webhooks to " + example_url), ready
    yield process, stderr, stderr_reader
    if process.poll() is None:
        process.kill()
        process.wait()


def test_b161_listen_forwards_three_concurrent_triggers_to_the_example(example, sandbox, example_url, listen):
    process, stderr, stderr_reader = listen
    trigger = subprocess.run(
        [sika_binary(), "trigger", "charge.success", "--reference", REFERENCE, "--amount", "25.50"]
        + ["--currency", "GHS", "--times", "3", "--concurrent"],
        env=sika_env(sandbox),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert trigger.returncode == 0, trigger.stdout + trigger.stderr

    # What arrived: three notifications, each verified with the service and decided Fulfil
    # (the order is paid in full), each answered 200.
    decisions = [example.DECISIONS.get(timeout=WAIT_S) for _ in range(3)]
    assert example.DECISIONS.empty(), "more than three deliveries reached the app"
    for decision in decisions:
        assert isinstance(decision, sika.WebhookDecision.FULFIL), decision
        assert decision.transaction.tx_ref == REFERENCE
        assert decision.transaction.amount == Decimal("25.50")
        assert decision.http_status() == 200
    verifies = [r for r in sandbox.requests() if r["method"] == "GET" and REFERENCE in r["path"]]
    assert len(verifies) == 3, sandbox.requests()

    # The sandbox delivered to `sika listen`'s receiver, not to the app itself: the app's
    # answers reached the sandbox through it.
    deliveries = sandbox.webhooks()
    assert len(deliveries) == 3, deliveries
    for delivery in deliveries:
        assert delivery["delivered"] is True and delivery["http_status"] == 200, delivery
        assert delivery["reference"] == REFERENCE and delivery["event"] == "charge.success", delivery
        assert delivery["url"] != example_url and delivery["url"].startswith("http://127.0.0.1:"), delivery

    # What trigger printed: a header and the app's three answers.
    table = trigger.stdout.splitlines()
    assert table[0].split() == ["DELIVERY", "EVENT", "REFERENCE", "ANSWER", "TIME"], trigger.stdout
    assert len(table) == 4, trigger.stdout
    for row in table[1:]:
        assert re.fullmatch(rf"\s*\d+\s+charge\.success\s+{REFERENCE}\s+200\s+\d+ ms\s*", row), row

    # What listen printed: each event, then the app's answer with its time, six lines in all.
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=WAIT_S) == 0
    assert process.stdout is not None
    printed = process.stdout.read()
    stderr_reader.join(timeout=WAIT_S)
    lines = printed.splitlines()
    assert len(lines) == 6, printed
    events = [line for line in lines if re.fullmatch(rf"{TIME}  --> charge\.success \[{REFERENCE}\]", line)]
    answers = [
        line for line in lines if re.fullmatch(rf"{TIME}  <-- \[200\] POST {re.escape(example_url)} \(\d+ ms\)", line)
    ]
    assert len(events) == 3 and len(answers) == 3, printed

    # No key in anything either command printed.
    everything = [trigger.stdout, trigger.stderr, printed, *list(stderr.queue)]
    assert not any(KEY in text for text in everything)
    assert not any("sk_test_canary" in text for text in everything)

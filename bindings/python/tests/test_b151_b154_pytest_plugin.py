"""The pytest plugin of ``sika[testing]`` (B151-B154), run as a merchant's suite would use it:
pytester writes a suite into a temporary project and runs it in a pytest subprocess, so the
plugin is loaded by its ``pytest11`` entry point from the installed package, and the suite
reaches the sandbox binary through ``SIKA_SANDBOX_BIN`` (as the shipped wheel's PATH would)."""

from __future__ import annotations

import json
import os

import pytest

# A merchant's suite: the sandbox's URL and key, both clients, a seeded transaction, a fault,
# a notification delivered to a receiver of the test's own, and state reset between tests.
MERCHANT_SUITE = """
import decimal
import http.server
import json
import os
import threading

import pytest

import sika

RECORD = os.environ["SIKA_KIT_RECORD"]


WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")


def record(name, value):
    with open(os.path.join(RECORD, name), "w") as out:
        json.dump(value, out)


@pytest.fixture(autouse=True)
def record_the_sandbox(request):
    # Which sandbox each test got, by worker.
    if "sika_sandbox" in request.fixturenames:
        record(f"url-{WORKER}-{request.node.name}", request.getfixturevalue("sika_sandbox").base_url)


def test_a_seeded_transaction_through_both_clients(sika_sandbox, sika_blocking_client):
    assert sika_sandbox.base_url.startswith("http://127.0.0.1:")
    assert sika_sandbox.secret_key not in repr(sika_sandbox)
    sika_sandbox.seed_transaction("ORDER-17", amount="25.50", currency="GHS", status="successful")
    order = sika.ExpectedPayment(amount=decimal.Decimal("25.50"), currency="GHS")
    check = sika_blocking_client.confirm_payment("ORDER-17", order)
    assert check.is_confirmed, check
    assert [r["path"] for r in sika_sandbox.requests()] == ["/transaction/verify/ORDER-17"]


async def test_the_async_client_and_a_state_reset_before_each_test(sika_sandbox, sika_client):
    # Nothing is left from the other tests: no transaction, no request.
    assert sika_sandbox.requests() == []
    with pytest.raises(sika.SikaError.TransactionNotFound):
        await sika_client.verify_transaction("ORDER-17")
    sika_sandbox.seed_transaction("ORDER-18", amount="3", status="pending")
    transaction = await sika_client.verify_transaction("ORDER-18")
    assert str(transaction.amount) == "3" and transaction.status == "pending"


def test_a_fault(sika_sandbox, sika_blocking_client):
    sika_sandbox.add_fault("/mobile-money-providers", "status", status=401)
    with pytest.raises(sika.SikaError.Api):
        sika_blocking_client.list_mobile_money_providers("GH")
    assert sika_sandbox.requests()[0]["path"] == "/mobile-money-providers"
    assert len(sika_blocking_client.list_mobile_money_providers("GH")) > 0


def test_a_notification_three_times_at_once(sika_sandbox):
    received = []

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            received.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sika_sandbox.set_webhook_url(f"http://127.0.0.1:{server.server_port}/webhooks/sika")
        sika_sandbox.seed_transaction("ORDER-19")
        sent = sika_sandbox.trigger("ORDER-19", times=3, concurrent=True)
        assert [attempt["http_status"] for attempt in sent] == [200, 200, 200]
    finally:
        server.shutdown()
        server.server_close()
    assert [body["data"]["reference"] for body in received] == ["ORDER-19"] * 3
    deliveries = sika_sandbox.deliveries()
    assert len(deliveries) == 3 and all(d["delivered"] and d["duration_ms"] >= 0 for d in deliveries)


def test_settings_are_put_back(sika_sandbox):
    assert sika_sandbox.deliveries() == []
    settings = sika_sandbox.change_settings()
    assert settings["webhook_url"] is None and settings["webhook_retry_ms"] == []
    record("key-" + WORKER, sika_sandbox.secret_key)
"""


def _sandboxes(record) -> dict[str, set[str]]:
    """The base URLs each worker's tests got."""
    urls: dict[str, set[str]] = {}
    for path in record.glob("url-*"):
        worker = path.name.split("-")[1]
        urls.setdefault(worker, set()).add(json.loads(path.read_text()))
    return urls


def _merchant_suite(pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory):
    pytester.makepyfile(test_merchant=MERCHANT_SUITE)
    pytester.makeini("[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n")
    record = tmp_path_factory.mktemp("record")
    pytester._monkeypatch.setenv("SIKA_KIT_RECORD", str(record))
    return record


def test_b151_a_merchant_suite_uses_the_sika_sandbox_fixture(pytester, tmp_path_factory):
    record = _merchant_suite(pytester, tmp_path_factory)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=5)
    # One sandbox for the session: the five tests asked for it and all got the same one.
    assert len(list(record.glob("url-*"))) == 5
    urls = _sandboxes(record)
    assert list(urls) == ["main"] and len(urls["main"]) == 1, urls
    # The key is fresh (not the suite's own canary) and never in the output.
    key = json.loads((record / "key-main").read_text())
    assert key.startswith("sk_test_") and key not in result.stdout.str() + result.stderr.str()


def test_b152_under_xdist_each_worker_has_its_own_sandbox(pytester, tmp_path_factory):
    record = _merchant_suite(pytester, tmp_path_factory)
    # Two workers, each with its own session: the tests that record land in either worker,
    # and each passes only on a sandbox reset before it (the same checks as without xdist).
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    result.assert_outcomes(passed=5)
    assert "2 workers" in result.stdout.str()
    # xdist's load scheduling gives each worker tests of its own (five tests, two workers): one
    # sandbox per worker, each worker's tests all on its own one.
    urls = _sandboxes(record)
    assert sorted(urls) == ["gw0", "gw1"], urls
    assert len(urls["gw0"]) == 1 and len(urls["gw1"]) == 1 and urls["gw0"] != urls["gw1"], urls


def test_b153_the_key_is_never_on_the_sandbox_command_line(tmp_path):
    from sika.testing import start_sandbox

    with start_sandbox() as handle:
        assert handle.secret_key.startswith("sk_test_") and handle.secret_key not in repr(handle)
        own = str(os.getpid())
        found = 0
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = stat.read().rsplit(")", 1)[1].split()[1]
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    argv = cmdline.read().decode(errors="replace")
            except (OSError, IndexError):
                continue
            if parent == own and "sika-sandbox" in argv:
                found += 1
                assert handle.secret_key not in argv
        assert found == 1


def test_b154_bad_input_raises_and_sends_nothing():
    from sika.testing import SandboxError, start_sandbox

    with start_sandbox() as handle:
        for amount in ("25,50", "1e3", "-1", "", "NaN"):
            with pytest.raises(ValueError, match="amount"):
                handle.seed_transaction("ORDER-1", amount=amount)
        with pytest.raises(ValueError, match="reference"):
            handle.seed_transaction("")
        with pytest.raises(ValueError, match="tx_ref"):
            handle.seed_transaction("ORDER-1", tx_ref="OTHER")
        with pytest.raises(SandboxError, match="No webhook URL configured"):
            handle.trigger("ORDER-1")
        assert handle.deliveries() == []
        with pytest.raises(SandboxError, match="Transaction not found"):
            handle.transaction("ORDER-1")

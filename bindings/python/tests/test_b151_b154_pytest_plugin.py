"""The pytest plugin of ``sika[testing]`` (B151-B154), run as a merchant's suite would use it:
pytester writes a suite into a temporary project and runs it in a pytest subprocess, so the
plugin is loaded by its ``pytest11`` entry point from the installed package, and the suite
reaches the sandbox binary through ``SIKA_SANDBOX_BIN`` (as the shipped wheel's PATH would)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from support import charge

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


# ---- B250: the receiver and ledger fixtures, and the README's example as it is written --------

README = Path(__file__).resolve().parents[3] / "README.md"


def readme_plugin_example() -> str:
    """The repository README's Python block that shows the plugin (the one test of idempotent
    fulfilment), exactly as written."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    (block,) = [block for block in blocks if "def test_fulfilment_is_idempotent(" in block]
    return block


# The README's handler, and a handler that is not idempotent: it ships on every delivery the
# client decides to fulfil (the client alone cannot know another delivery shipped already).
LEDGER_HANDLER = """        decision = sika_ledger.handle_webhook(sika_blocking_client, body)
        if isinstance(decision, sika.LedgerDecision.FULFIL):
            with sika_ledger.fulfilment(decision.claim):      # marked when the block ends
                shipped.append(decision.claim.reference)      # ship the order
        return decision.http_status()
"""
NAIVE_HANDLER = """        decision = sika_blocking_client.handle_webhook(body, ORDER)
        if isinstance(decision, sika.WebhookDecision.FULFIL):
            shipped.append(decision.transaction.tx_ref)
        return decision.http_status()
"""


def test_b250_the_readme_plugin_example_runs_as_written(pytester):
    example = readme_plugin_example()
    assert "my_webhook_url" not in example
    pytester.makepyfile(test_readme_example=example)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=example.count("\ndef test_"))
    assert example.count("\ndef test_") == 3


def test_b250_the_readme_example_counts_shipments_so_a_handler_that_ships_twice_fails_it(pytester):
    example = readme_plugin_example()
    assert example.count(LEDGER_HANDLER) == 1, "the README's handler changed: update LEDGER_HANDLER"
    pytester.makepyfile(test_readme_example=example.replace(LEDGER_HANDLER, NAIVE_HANDLER))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-v", "-k", "idempotent")
    # Every delivery was answered 200, as before: only the count of shipments tells.
    result.assert_outcomes(failed=1)
    result.stdout.re_match_lines([r'.*assert shipped == \["ORDER-18"\]', r".*Left contains 2 more items, first extra item: 'ORDER-18'"])


def test_b250_the_receiver_records_answers_and_reports_a_handler_that_raised():
    from sika.testing import SandboxError, WebhookReceiver

    def handler(body: bytes) -> int:
        if b"boom" in body:
            raise RuntimeError("the handler failed")
        return 202

    receiver = WebhookReceiver(handler)
    assert receiver.url.startswith("http://127.0.0.1:") and receiver.url.endswith("/webhooks/sika")
    for body in (b'{"event":"charge.success"}', b"boom"):
        request = urllib.request.Request(receiver.url, data=body, method="POST", headers={"x-test": "1"})
        try:
            status = urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=10).status
        except urllib.error.HTTPError as error:
            status = error.code
        assert status == (202 if body != b"boom" else 500)
    first, second = receiver.deliveries
    assert (first.path, first.status, first.body, first.headers["x-test"]) == ("/webhooks/sika", 202, b'{"event":"charge.success"}', "1")
    assert first.json() == {"event": "charge.success"} and first.error is None
    assert second.status == 500 and "RuntimeError: the handler failed" in (second.error or "")
    with pytest.raises(SandboxError, match="the handler failed"):
        receiver.close()


def test_b250_wait_for_deliveries_waits_for_the_sandboxs_own_and_says_what_it_saw():
    from sika.testing import SandboxError, WebhookReceiver, start_sandbox

    with start_sandbox(confirm_after_ms=300) as sandbox, WebhookReceiver() as receiver:
        sandbox.set_webhook_url(receiver.url)
        client = sandbox.blocking_client()
        client.initiate_charge(charge("B250-WAIT"))
        assert sandbox.deliveries() == []  # the simulated customer has not answered yet
        (attempt,) = sandbox.wait_for_deliveries(1, reference="B250-WAIT")
        assert attempt["delivered"] and attempt["http_status"] == 200
        assert [delivery.json()["data"]["reference"] for delivery in receiver.deliveries] == ["B250-WAIT"]
        with pytest.raises(SandboxError, match=r"1 of 2 deliveries of 'B250-WAIT' within 0.2 s"):
            sandbox.wait_for_deliveries(2, reference="B250-WAIT", timeout_s=0.2)
        with pytest.raises(ValueError):
            sandbox.wait_for_deliveries(0)


def test_b250_the_ledger_fixture_is_a_fresh_sqlite_ledger_per_test(pytester):
    pytester.makepyfile(
        test_ledgers="""
import decimal
import sika

ORDER = sika.ExpectedPayment(amount=decimal.Decimal("5"), currency="GHS")

def test_one(sika_ledger, tmp_path):
    assert isinstance(sika_ledger, sika.BlockingLedger)
    assert list(tmp_path.glob("sika-ledger.sqlite*"))
    sika_ledger.expect("ORDER-1", ORDER)
    assert sika_ledger.payment("ORDER-1").expected == ORDER

def test_two(sika_ledger):
    assert sika_ledger.payment("ORDER-1") is None
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


# ---- B251: the sandbox installed with the interpreter, found without PATH ---------------------


def test_b251_the_sandbox_of_the_interpreters_scripts_directory_comes_before_path(tmp_path, monkeypatch):
    import sysconfig

    from sika.testing import SandboxError, sandbox_binary

    scripts, on_path = tmp_path / "venv-bin", tmp_path / "path-bin"
    for directory in (scripts, on_path):
        directory.mkdir()
        (directory / "sika-sandbox").write_text("#!/bin/sh\n")
        (directory / "sika-sandbox").chmod(0o755)
    monkeypatch.delenv("SIKA_SANDBOX_BIN", raising=False)
    monkeypatch.setenv("PATH", str(on_path))
    monkeypatch.setattr(sysconfig, "get_path", lambda name, *args, **kwargs: str(scripts) if name == "scripts" else None)
    assert sandbox_binary() == str(scripts / "sika-sandbox")
    (scripts / "sika-sandbox").unlink()
    assert sandbox_binary() == str(on_path / "sika-sandbox")
    monkeypatch.setenv("SIKA_SANDBOX_BIN", "/given/sika-sandbox")
    assert sandbox_binary() == "/given/sika-sandbox"
    monkeypatch.delenv("SIKA_SANDBOX_BIN")
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(SandboxError, match=re.escape(str(scripts))):
        sandbox_binary()


def test_b251_a_venv_that_is_not_activated_runs_the_plugin_with_its_own_sandbox(tmp_path):
    # A venv of its own (the suite's packages through a .pth file), with the sandbox in its
    # bin/ as `pip install "sika[testing]"` puts it there, run as `venv/bin/python -m pytest`
    # by a CI job that never activates it: no SIKA_SANDBOX_BIN, and no venv on PATH.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    own_site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    suite_site = Path(sika_package_dir()).parent
    (Path(own_site) / "suite.pth").write_text(str(suite_site) + "\n")
    from sika.testing import sandbox_binary

    (venv / "bin" / "sika-sandbox").symlink_to(Path(sandbox_binary()).resolve())
    (tmp_path / "test_venv.py").write_text(
        "import os, sys\n"
        "def test_the_venvs_sandbox(sika_sandbox, sika_blocking_client):\n"
        "    sika_sandbox.seed_transaction('VENV-1')\n"
        "    assert sika_blocking_client.verify_transaction('VENV-1').tx_ref == 'VENV-1'\n"
        "    assert 'SIKA_SANDBOX_BIN' not in os.environ\n"
    )
    environment = {name: value for name, value in os.environ.items() if name not in ("SIKA_SANDBOX_BIN", "VIRTUAL_ENV", "PYTHONPATH")}
    environment["PATH"] = "/usr/bin:/bin"
    assert not any(Path(directory, "sika-sandbox").exists() for directory in environment["PATH"].split(":"))
    result = subprocess.run(
        [python, "-m", "pytest", "-p", "no:cacheprovider", "-q", "test_venv.py"],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def sika_package_dir() -> str:
    import sika

    return str(Path(sika.__file__).resolve().parent)

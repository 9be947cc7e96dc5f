"""The sandbox harness and the sample data shared by the suite (the repository's tests/README.md)."""

from __future__ import annotations

import contextlib
import decimal
import json
import os
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

from sika import BlockingClient, ChargeRequest, Client, ClientConfig, SecretKey

# A canary: no message, str() or repr() the SDK produces may ever contain it (B16, B17).
KEY = "sk_test_canary_7c2e4f1a"

FIXTURES_DIR = Path(__file__).resolve().parents[3] / "tests" / "fixtures"


class Sandbox:
    """The project's sandbox binary on a free loopback port; `stop()` kills it."""

    def __init__(self, *extra_args: str) -> None:
        binary = os.environ.get("SIKA_SANDBOX_BIN")
        if not binary:
            raise RuntimeError("SIKA_SANDBOX_BIN is not set: run the suite with scripts/test-python")
        # stdin stays a pipe: with --exit-on-stdin-eof the sandbox dies with this process.
        self._process = subprocess.Popen(
            [binary, "--port", "0", "--secret-key", KEY, "--exit-on-stdin-eof", *extra_args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        first_line = self._process.stdout.readline().decode().strip()
        prefix = "listening on "
        if not first_line.startswith(prefix):
            self.stop()
            raise RuntimeError(f"the sandbox did not start: {first_line!r}")
        self.url = first_line[len(prefix) :]

    def stop(self) -> None:
        self._process.kill()
        self._process.wait()
        self._process.stdin.close()
        self._process.stdout.close()

    def config(self, key: str = KEY, **settings) -> ClientConfig:
        settings = {"timeout_ms": 10_000, **settings}
        return ClientConfig(secret_key=SecretKey(key), base_url=self.url, **settings)

    def client(self, **settings) -> Client:
        return Client(self.config(**settings))

    def blocking_client(self, **settings) -> BlockingClient:
        return BlockingClient(self.config(**settings))

    # The control API (plain HTTP, no auth).

    def _control(self, method: str, path: str, body: str | None = None) -> dict:
        request = urllib.request.Request(
            self.url + "/__sandbox" + path,
            data=None if body is None else body.encode(),
            method=method,
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def seed_transaction(self, object_text: str) -> None:
        """Stores a transaction object, sent as text so every number keeps its exact text."""
        self._control("POST", "/transactions", object_text)

    def set_status(self, reference: str, status: str) -> None:
        path = "/transactions/" + urllib.parse.quote(reference, safe="") + "/status"
        self._control("POST", path, json.dumps({"status": status}))

    def requests(self) -> list[dict]:
        """The API requests received: `{method, path (as on the wire), query, authorized}`."""
        return self._control("GET", "/requests")["data"]

    def clear_requests(self) -> None:
        self._control("DELETE", "/requests")

    def settings(self, **settings) -> None:
        """Changes the sandbox's runtime settings (webhook_url, webhook_repeat, confirm_after_ms)."""
        self._control("POST", "/settings", json.dumps(settings))

    def webhooks(self) -> list[dict]:
        """The webhook deliveries attempted: `{reference, delivered, event, url, http_status, error}`."""
        return self._control("GET", "/webhooks")["data"]

    def connections(self) -> dict:
        """`{"open": N, "accepted": M}`: TCP connections open now (this request's own included)
        and accepted since the sandbox started."""
        return self._control("GET", "/connections")["data"]

    def fault(self, path: str, kind: str, count: int = 1, **options) -> None:
        """Makes the next `count` API requests under `path` fail as `kind` describes."""
        self._control("POST", "/faults", json.dumps({"path": path, "kind": kind, "count": count, **options}))


class AwaitableBlockingClient:
    """A BlockingClient in the async client's shape: each method is the blocking client's
    plain call made from a coroutine, so one test body covers both clients (B19)."""

    def __init__(self, client):
        self._client = client

    def __getattr__(self, name):
        method = getattr(self._client, name)

        async def call(*args, **kwargs):
            return method(*args, **kwargs)

        return call


def transaction_object(reference: str, status: str, amount: str, gateway_field: str = "gw_ref") -> str:
    """A complete transaction object as the service sends it, as JSON text (amount as given)."""
    return (
        '{"id":7,"domain":"test","amount":' + amount + ',"currency":"GHS","due_date":null,'
        '"has_invoice":false,"invoice_number":null,"description":null,'
        '"tx_ref":' + json.dumps(reference) + ',"' + gateway_field + '":"GW-SEED",'
        '"status":' + json.dumps(status) + ',"payment_type":"mobile_money",'
        '"created_at":"2024-05-01T12:00:00.250Z","updated_at":"2024-05-01T12:03:20.500Z",'
        '"customer":{"id":1,"name":"Ama","phone_number":"+233244123456","email":"ama@example.com",'
        '"created_at":"2024-04-01T09:00:00.000Z","updated_at":"2024-04-01T09:00:00.000Z"},'
        '"meta":{"custom_fields":[]}}'
    )


def charge(reference: str, phone: str = "+233244125678", amount: str = "20", **changes) -> ChargeRequest:
    """A valid mobile money charge in Ghana, with any field changed."""
    fields = {
        "amount": decimal.Decimal(amount),
        "email": "ama@example.com",
        "phone_number": phone,
        "reference": reference,
        "currency": "GHS",
        "provider": "MTN",
        "callback_url": "https://shop.example.com/return",
        **changes,
    }
    return ChargeRequest(**fields)


def blocking_client(base_url: str, **settings) -> BlockingClient:
    """A blocking client for a URL other than the sandbox's."""
    return BlockingClient(ClientConfig(secret_key=SecretKey(KEY), base_url=base_url, **settings))


@contextlib.contextmanager
def silent_server():
    """A loopback URL whose server accepts connections (in the kernel's backlog) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


def closed_port_url() -> str:
    """A loopback URL where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def poll(read, until, deadline_s: float = 5.0):
    """Calls `read()` until `until(value)` holds or the deadline passes; returns the last value
    (the caller asserts on it: the deadline is a bound, never the check itself)."""
    end = time.monotonic() + deadline_s
    while True:
        value = read()
        if until(value) or time.monotonic() >= end:
            return value
        time.sleep(0.02)


def settled_connections(sandbox: Sandbox, deadline_s: float = 2.0) -> dict:
    """The sandbox's connection counts once they stop changing: a connection whose client has
    just closed it (the previous control request, say) is counted until the server has dropped
    it, so a single read can be one too high for a baseline."""
    previous = sandbox.connections()
    stop = time.monotonic() + deadline_s
    while time.monotonic() < stop:
        time.sleep(0.05)
        current = sandbox.connections()
        if current["open"] == previous["open"]:
            return current
        previous = current
    return previous


def poll_open_connections(sandbox: Sandbox, until, deadline_s: float = 5.0) -> int:
    """Polls the sandbox's open TCP connection count (this poll's own request included)."""
    return poll(lambda: sandbox.connections()["open"], until, deadline_s)

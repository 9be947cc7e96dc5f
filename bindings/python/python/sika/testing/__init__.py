"""The merchant's test kit: the shipped sandbox (``sika-sandbox``) for an integration's own tests.

``pip install "sika[testing]"`` installs the sandbox's wheel and this kit's pytest plugin,
registered through the ``pytest11`` entry point: a test asks for the ``sika_sandbox`` fixture
and gets a :class:`SandboxHandle` (README "Test your integration"), for the merchant's webhook
endpoint a :class:`WebhookReceiver` (``sika_webhook_receiver``), and a ledger on a temporary
SQLite file (``sika_ledger``). Outside pytest, :func:`start_sandbox` gives the same handle as a
context manager, and :class:`WebhookReceiver` is one too.

The sandbox binary is ``SIKA_SANDBOX_BIN`` when set, else the ``sika-sandbox`` installed with
this interpreter (``sysconfig.get_path("scripts")``: the venv's ``bin``, where ``pip install
"sika[testing]"`` put it, found also when the venv is not activated, as with
``venv/bin/python -m pytest``), else ``sika-sandbox`` on ``PATH``. Each sandbox gets a fresh
random key, passed in its environment (never its command line, which every local user can
read). The control API's operations are read from ``sandbox_control.json``, the repository's
``tests/fixtures/sandbox_control.json`` (the one description every language's helper uses).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import secrets
import shutil
import subprocess
import sysconfig
import tempfile
import threading
import time
import traceback
import types
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable, Iterator, Optional

if TYPE_CHECKING:
    from sika import BlockingClient, Client, ClientConfig

__all__ = ["Delivery", "SandboxError", "SandboxHandle", "WebhookReceiver", "sandbox_binary", "start_sandbox"]

_CONTROL = json.loads((Path(__file__).with_name("sandbox_control.json")).read_text(encoding="utf-8"))
_OPERATIONS: dict[str, dict[str, Any]] = _CONTROL["operations"]

# A decimal as the service writes amounts (the JSON number's text is sent as it is).
_AMOUNT = re.compile(r"(0|[1-9][0-9]*)(\.[0-9]+)?")

# What reset() puts back: the settings a fresh sandbox of this kit starts with.
DEFAULT_CONFIRM_AFTER_MS = 200


class SandboxError(Exception):
    """The sandbox could not start, or its control API refused a call (the answer is in the text)."""


class SandboxHandle:
    """A running sandbox: its base URL and key, ready clients, and its control API.

    Every control method sends one request of ``sandbox_control.json`` and raises
    :class:`SandboxError` when the sandbox answers anything but that operation's success.
    """

    def __init__(self, base_url: str, secret_key: str, confirm_after_ms: int) -> None:
        self.base_url = base_url
        self._secret_key = secret_key
        self._confirm_after_ms = confirm_after_ms

    def __repr__(self) -> str:
        # Never the key: a failing assertion prints the fixture's repr.
        return f"SandboxHandle(base_url={self.base_url!r})"

    @property
    def secret_key(self) -> str:
        """The key this sandbox accepts (random per sandbox; give it to the code under test)."""
        return self._secret_key

    # Clients.

    def config(self, **settings: Any) -> ClientConfig:
        """A ``ClientConfig`` for this sandbox: its URL and key, and any other settings."""
        from sika import ClientConfig, SecretKey

        return ClientConfig(secret_key=SecretKey(self._secret_key), base_url=self.base_url, **settings)

    def client(self, **settings: Any) -> Client:
        """An async ``sika.Client`` for this sandbox."""
        from sika import Client

        return Client(self.config(**settings))

    def blocking_client(self, **settings: Any) -> BlockingClient:
        """A ``sika.BlockingClient`` for this sandbox."""
        from sika import BlockingClient

        return BlockingClient(self.config(**settings))

    # State.

    def seed_transaction(
        self,
        reference: str,
        *,
        amount: str = "10.00",
        currency: str = "GHS",
        status: str = "successful",
        **fields: Any,
    ) -> dict[str, Any]:
        """Stores a transaction as the service would report it (replacing one with the same
        reference). ``amount`` is decimal text (``"25.50"`` stays ``25.50`` on the wire); other
        keyword arguments are extra fields of the object. Bad input raises ``ValueError`` and
        sends nothing."""
        if not isinstance(reference, str) or not reference:
            raise ValueError(f"reference must be a non-empty string, not {reference!r}")
        if not isinstance(amount, str) or not _AMOUNT.fullmatch(amount):
            raise ValueError(f"amount must be decimal text such as '25.50', not {amount!r}")
        for name, value in (("currency", currency), ("status", status)):
            if not isinstance(value, str) or not value:
                raise ValueError(f"{name} must be a non-empty string, not {value!r}")
        reserved = {"tx_ref", "amount", "currency", "status"} & fields.keys()
        if reserved:
            raise ValueError(f"give {', '.join(sorted(reserved))} as the named arguments")
        known = {"tx_ref": reference, "currency": currency, "status": status, "payment_type": "mobile_money"}
        body = {**known, **fields}
        # The amount goes in as the number's own text.
        text = json.dumps(body)[:-1] + f', "amount": {amount}}}'
        return self._call("seed_transaction", body=text)  # type: ignore[no-any-return]

    def transaction(self, reference: str) -> dict[str, Any]:
        """The transaction object the sandbox holds for ``reference``."""
        return self._call("get_transaction", reference=reference)  # type: ignore[no-any-return]

    def set_status(self, reference: str, status: str) -> None:
        """Changes a transaction's status (any text, also one the service never documented)."""
        self._call("set_status", reference=reference, body={"status": status})

    def add_fault(self, path: str, kind: str, count: int = 1, **options: Any) -> dict[str, Any]:
        """Makes the next ``count`` API requests under ``path`` fail as ``kind`` says
        (``status``, ``delay``, ``reset``, ...: the sandbox's README lists the faults)."""
        body = {"path": path, "kind": kind, "count": count, **options}
        return self._call("add_fault", body=body)  # type: ignore[no-any-return]

    def requests(self) -> list[dict[str, Any]]:
        """The API requests the sandbox received, oldest first: ``method``, ``path`` (as on the
        wire), ``query``, ``authorized``, ``request_id`` (the ``X-Request-Id`` sent),
        ``answered_request_id``, ``in_flight``, ``received_ms``, and the W3C trace context the
        request carried, ``traceparent`` and ``tracestate`` (``None`` when absent)."""
        return self._call("requests")  # type: ignore[no-any-return]

    # Webhooks.

    def set_webhook_url(self, url: Optional[str]) -> None:
        """Where the sandbox delivers notifications (a loopback URL), or ``None`` for nowhere."""
        self.change_settings(webhook_url=url)

    def change_settings(self, **settings: Any) -> dict[str, Any]:
        """Changes run-time settings (``webhook_url``, ``confirm_after_ms``, ``webhook_repeat``,
        ``webhook_retry_ms``); :meth:`reset` puts this kit's defaults back."""
        return self._call("change_settings", body=settings)  # type: ignore[no-any-return]

    def trigger(
        self,
        reference: str,
        *,
        event: str = "charge.success",
        times: int = 1,
        concurrent: bool = False,
        url: Optional[str] = None,
    ) -> list[dict[str, Any]]:
        """Delivers the notification of ``reference`` ``times`` times (all at once when
        ``concurrent``) to the webhook URL (or ``url``); returns each delivery's first attempt
        with the receiver's answer and time."""
        body: dict[str, Any] = {"reference": reference, "event": event, "times": times, "concurrent": concurrent}
        if url is not None:
            body["url"] = url
        return self._call("send_webhook", body=body)  # type: ignore[no-any-return]

    def deliveries(self) -> list[dict[str, Any]]:
        """Every webhook delivery attempt, oldest first: reference, event, url, ``http_status``
        (the receiver's answer), ``delivered``, ``error``, ``delivery_id``, ``attempt``,
        ``sent_at``, ``duration_ms``. An attempt is listed once the receiver answered it (or it
        failed)."""
        return self._call("webhooks")  # type: ignore[no-any-return]

    def wait_for_deliveries(
        self, count: int, *, reference: Optional[str] = None, timeout_s: float = 10.0
    ) -> list[dict[str, Any]]:
        """Waits until at least ``count`` delivery attempts (of ``reference``, when given) have
        ended, answered or failed, and returns them (as :meth:`deliveries` lists them). For the
        notifications the sandbox sends on its own (after a charge succeeds, and its retries);
        :meth:`trigger` returns once its deliveries ended. Raises :class:`SandboxError` after
        ``timeout_s`` seconds, with the attempts seen."""
        if not isinstance(count, int) or count < 1:
            raise ValueError(f"count must be a positive int, not {count!r}")
        deadline = time.monotonic() + timeout_s
        while True:
            found = [d for d in self.deliveries() if reference is None or d.get("reference") == reference]
            if len(found) >= count:
                return found
            if time.monotonic() >= deadline:
                about = "" if reference is None else f" of {reference!r}"
                raise SandboxError(
                    f"{len(found)} of {count} deliveries{about} within {timeout_s} s: {json.dumps(found)}"
                )
            time.sleep(0.02)

    def reset(self) -> None:
        """Forgets transactions, requests, deliveries and faults, and puts back this kit's
        settings (no webhook URL, no retries, one delivery per notification)."""
        self._call("reset")
        self.change_settings(
            webhook_url=None, confirm_after_ms=self._confirm_after_ms, webhook_repeat=1, webhook_retry_ms=[]
        )

    # The control API, as sandbox_control.json describes it.

    def _call(self, operation: str, reference: Optional[str] = None, body: Any = None) -> Any:
        spec = _OPERATIONS[operation]
        path: str = spec["path"]
        if reference is not None:
            path = path.replace("{reference}", urllib.parse.quote(reference, safe=""))
        data = None if body is None else (body if isinstance(body, str) else json.dumps(body)).encode()
        request = urllib.request.Request(
            self.base_url + path, data=data, method=spec["method"], headers={"content-type": "application/json"}
        )
        # The sandbox is on loopback: never through a proxy from the environment.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=30) as response:
                status, answer = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, answer = error.code, error.read()
        except OSError as error:
            raise SandboxError(f"sandbox control {operation}: {error}") from error
        if status != spec["expect"]:
            text = answer.decode(errors="replace")
            raise SandboxError(f"sandbox control {operation} ({spec['method']} {path}): HTTP {status}: {text}")
        return json.loads(answer).get("data")


def sandbox_binary() -> str:
    """``SIKA_SANDBOX_BIN``; else the ``sika-sandbox`` installed with this interpreter (its
    scripts directory, ``sysconfig.get_path("scripts")``: a venv's ``bin``, also when the venv
    is not activated); else ``sika-sandbox`` on ``PATH``."""
    configured = os.environ.get("SIKA_SANDBOX_BIN")
    if configured:
        return configured
    scripts = sysconfig.get_path("scripts")
    installed = shutil.which("sika-sandbox", path=scripts) if scripts else None
    binary = installed or shutil.which("sika-sandbox")
    if not binary:
        raise SandboxError(
            f"no sika-sandbox in this interpreter's scripts directory ({scripts}) nor on PATH: install "
            'the kit with `pip install "sika[testing]"` (or sika-sandbox), or set SIKA_SANDBOX_BIN to the binary'
        )
    return binary


@contextlib.contextmanager
def start_sandbox(confirm_after_ms: int = DEFAULT_CONFIRM_AFTER_MS) -> Iterator[SandboxHandle]:
    """Starts the sandbox on a free loopback port with a fresh key; stops it on exit."""
    key = "sk_test_" + secrets.token_hex(16)
    log: IO[bytes] = tempfile.TemporaryFile()
    # stdin stays a pipe: with --exit-on-stdin-eof the sandbox dies with this process.
    process = subprocess.Popen(
        [sandbox_binary(), "--port", "0", "--exit-on-stdin-eof", "--confirm-after-ms", str(confirm_after_ms)],
        env={**os.environ, "SIKA_SANDBOX_SECRET_KEY": key},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline().decode(errors="replace").strip()
        prefix = "listening on "
        if not first.startswith(prefix):
            process.kill()
            process.wait()
            log.seek(0)
            stderr = log.read().decode(errors="replace").replace(key, "[key]")
            raise SandboxError(f"the sandbox did not start (exit {process.returncode}): {first!r} {stderr}")
        yield SandboxHandle(first[len(prefix) :], key, confirm_after_ms)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()
        log.close()


@dataclasses.dataclass(frozen=True)
class Delivery:
    """One request a :class:`WebhookReceiver` received, with the status it answered."""

    #: The request's path (``/webhooks/sika``).
    path: str
    #: Its headers, names in lower case.
    headers: dict[str, str]
    #: Its body, as received (give it to ``handle_webhook`` as it is).
    body: bytes
    #: The HTTP status the receiver answered (the handler's; 500 when it raised).
    status: int
    #: The handler's exception with its traceback, when it raised.
    error: Optional[str] = None

    def json(self) -> Any:
        """The body parsed as JSON (``ValueError`` when it is not)."""
        return json.loads(self.body)


#: What a receiver's handler is given and answers: the request's body, the HTTP status.
Handler = Callable[[bytes], int]


class WebhookReceiver:
    """The merchant's webhook endpoint for a test: an HTTP server on a free loopback port that
    records every delivery and answers each with ``handler(body)``, the status of your app's
    webhook handler (200 when no handler is set). Deliveries are served at once, each on its
    own thread, as your server would.

    ``url`` is the address to give the sandbox (``set_webhook_url``). A handler that raises is
    answered 500, and :meth:`close` (the fixture's teardown) raises :class:`SandboxError` with
    its traceback, so a failing handler fails the test.
    """

    def __init__(self, handler: Optional[Handler] = None, path: str = "/webhooks/sika") -> None:
        # Here, not at the top: the plugin imports this module in every pytest run.
        import http.server

        self.handler = handler
        self._path = path
        self._deliveries: list[Delivery] = []
        self._lock = threading.Lock()
        receiver = self

        class _Request(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                status, error = receiver._answer(body)
                headers = {name.lower(): value for name, value in self.headers.items()}
                receiver._record(Delivery(self.path, headers, body, status, error))
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Request)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="sika-webhook-receiver", daemon=True)
        self._thread.start()

    def __repr__(self) -> str:
        return f"WebhookReceiver(url={self.url!r})"

    @property
    def url(self) -> str:
        """Where the receiver listens: ``http://127.0.0.1:PORT/webhooks/sika``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}{self._path}"

    @property
    def deliveries(self) -> list[Delivery]:
        """What it received so far, in the order answered."""
        with self._lock:
            return list(self._deliveries)

    def _answer(self, body: bytes) -> tuple[int, Optional[str]]:
        handler = self.handler
        if handler is None:
            return 200, None
        try:
            return int(handler(body)), None
        except Exception:  # noqa: BLE001 - answered 500, raised again by close()
            return 500, traceback.format_exc()

    def _record(self, delivery: Delivery) -> None:
        with self._lock:
            self._deliveries.append(delivery)

    def close(self) -> None:
        """Stops the server; raises :class:`SandboxError` if the handler raised."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
        failed = [delivery.error for delivery in self.deliveries if delivery.error is not None]
        if failed:
            raise SandboxError(f"the webhook handler raised on {len(failed)} deliveries; the first:\n{failed[0]}")

    def __enter__(self) -> WebhookReceiver:
        return self

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        error: Optional[BaseException],
        trace: Optional[types.TracebackType],
    ) -> None:
        self.close()

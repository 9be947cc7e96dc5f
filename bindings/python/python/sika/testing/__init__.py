"""The merchant's test kit: the shipped sandbox (``sika-sandbox``) for an integration's own tests.

``pip install "sika[testing]"`` installs the sandbox's wheel and this kit's pytest plugin,
registered through the ``pytest11`` entry point: a test asks for the ``sika_sandbox`` fixture
and gets a :class:`SandboxHandle` (README "Test your integration"). Outside pytest,
:func:`start_sandbox` gives the same handle as a context manager.

The sandbox binary is ``SIKA_SANDBOX_BIN`` when set, else ``sika-sandbox`` on ``PATH`` (the
sandbox's wheel puts it there). Each sandbox gets a fresh random key, passed in its
environment (never its command line, which every local user can read). The control API's
operations are read from ``sandbox_control.json``, the repository's
``tests/fixtures/sandbox_control.json`` (the one description every language's helper uses).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Iterator, Optional

if TYPE_CHECKING:
    from sika import BlockingClient, Client, ClientConfig

__all__ = ["SandboxError", "SandboxHandle", "start_sandbox"]

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
        """The API requests the sandbox received: ``{method, path, query, authorized}``."""
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
        (the receiver's answer), ``delivered``, ``delivery_id``, ``attempt``, ``sent_at``,
        ``duration_ms``."""
        return self._call("webhooks")  # type: ignore[no-any-return]

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
    """``SIKA_SANDBOX_BIN``, else ``sika-sandbox`` on ``PATH``."""
    binary = os.environ.get("SIKA_SANDBOX_BIN") or shutil.which("sika-sandbox")
    if not binary:
        raise SandboxError(
            'no sika-sandbox: install the kit with `pip install "sika[testing]"` (or sika-sandbox), '
            "or set SIKA_SANDBOX_BIN to the binary"
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

"""The pytest plugin of ``sika[testing]`` (entry point ``pytest11``: ``sika``).

Fixtures:

- ``sika_sandbox`` (session scope): a :class:`sika.testing.SandboxHandle`, one sandbox per
  session (so one per pytest-xdist worker), started on first use; its state is reset before
  every test by an autouse fixture that starts nothing.
- ``sika_client`` / ``sika_blocking_client``: an async and a blocking client for it.
- ``sika_webhook_receiver``: a :class:`sika.testing.WebhookReceiver`, the merchant's webhook
  endpoint for one test (a server on a free loopback port that records each delivery and
  answers it with the status its ``handler`` returns); give its ``url`` to the sandbox.
- ``sika_ledger``: a ``sika.BlockingLedger`` on a SQLite file of the test's own temporary
  directory (``sika_ledger.async_ledger()`` is the same ledger with async methods).

The ini option ``sika_sandbox_confirm_after_ms`` sets how long the simulated customer takes to
answer a charge (default 200 ms).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import pytest

from sika.testing import DEFAULT_CONFIRM_AFTER_MS, SandboxHandle, WebhookReceiver, start_sandbox

if TYPE_CHECKING:
    from sika import BlockingClient, BlockingLedger, Client

_STARTED = pytest.StashKey[SandboxHandle]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "sika_sandbox_confirm_after_ms",
        "sika_sandbox: milliseconds before the simulated customer answers a charge",
        default=str(DEFAULT_CONFIRM_AFTER_MS),
    )


@pytest.fixture(scope="session")
def sika_sandbox(request: pytest.FixtureRequest) -> Iterator[SandboxHandle]:
    """The session's sandbox (one per pytest-xdist worker), started on first use; reset
    before every test (no transactions, requests, deliveries or faults; the kit's settings)."""
    confirm_after_ms = int(request.config.getini("sika_sandbox_confirm_after_ms"))
    with start_sandbox(confirm_after_ms=confirm_after_ms) as handle:
        request.session.stash[_STARTED] = handle
        yield handle
        del request.session.stash[_STARTED]


@pytest.fixture(autouse=True)
def _sika_sandbox_reset(request: pytest.FixtureRequest) -> None:
    """Before each test, a sandbox an earlier test started is reset; none is started here."""
    handle = request.session.stash.get(_STARTED, None)
    if handle is not None:
        handle.reset()


@pytest.fixture
def sika_client(sika_sandbox: SandboxHandle) -> Client:
    """An async ``sika.Client`` for the sandbox."""
    return sika_sandbox.client()


@pytest.fixture
def sika_blocking_client(sika_sandbox: SandboxHandle) -> BlockingClient:
    """A ``sika.BlockingClient`` for the sandbox."""
    return sika_sandbox.blocking_client()


@pytest.fixture
def sika_webhook_receiver() -> Iterator[WebhookReceiver]:
    """The merchant's webhook endpoint for this test, on a free loopback port: set its
    ``handler`` (the request's body in, the HTTP status out: your app's webhook handler) and
    give its ``url`` to the sandbox. A handler that raised fails the test at teardown."""
    with WebhookReceiver() as receiver:
        yield receiver


@pytest.fixture
def sika_ledger(tmp_path: Path) -> BlockingLedger:
    """A ``sika.BlockingLedger`` on a SQLite file in the test's temporary directory, empty."""
    from sika import BlockingLedger

    return BlockingLedger.sqlite(str(tmp_path / "sika-ledger.sqlite"))

"""Fixtures: a fresh sandbox per test, SIGINT as `KeyboardInterrupt`, the client under test, async or blocking, the example
app with a webhook route, and a ledger on SQLite or a throwaway PostgreSQL."""

import importlib.util
import signal
import typing
from pathlib import Path

import pytest

import sika
from pg_cluster import Cluster
from support import AwaitableBlockingClient, Sandbox


@pytest.fixture
def sandbox():
    running = Sandbox("--confirm-after-ms", "150")
    yield running
    running.stop()


@pytest.fixture
def sigint_raises():
    """SIGINT raises `KeyboardInterrupt`, as in a terminal: Python installs that handler only
    when it starts with SIGINT not ignored, and a job a non-interactive shell starts in the
    background (`cmd &`, as CI runners and nohup scripts do) starts with it ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture(params=["async", "blocking"])
def make_client(request, sandbox):
    """Builds a client of the test's kind against the sandbox, with optional settings."""

    def make(**settings):
        if request.param == "async":
            return sandbox.client(**settings)
        return AwaitableBlockingClient(sandbox.blocking_client(**settings))

    return make


@pytest.fixture
def client(make_client):
    return make_client()


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mobile_money_flow.py"


@pytest.fixture
def example(request):
    """`examples/mobile_money_flow.py` loaded afresh for the test (its ORDERS and DECISIONS empty)."""
    spec = importlib.util.spec_from_file_location(f"mobile_money_flow_{request.node.name}", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["sqlite", "postgres"])
def open_ledger(request, tmp_path: Path):
    """`open_ledger(kind, **settings)`: a `BlockingLedger` or `Ledger` on the test's database,
    with `LedgerOptions(**settings)`. The
    PostgreSQL cluster is started once per test and stopped after it."""
    cluster = Cluster() if request.param == "postgres" else None

    def open_ledger(kind: typing.Any = sika.BlockingLedger, **settings: typing.Any) -> typing.Any:
        if cluster is None:
            return kind.sqlite(str(tmp_path / "ledger.db"), sika.LedgerOptions(**settings))
        # A generous connect: a loaded CI machine starts many sessions at once slowly (ADR 0071).
        options = {"max_connections": 4, "connect_timeout_ms": 15_000, **settings}
        return kind.postgres(sika.SecretUrl(cluster.url), sika.LedgerOptions(**options))

    yield open_ledger
    if cluster is not None:
        cluster.stop()

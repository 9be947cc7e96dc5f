"""Fixtures: a fresh sandbox per test, the client under test, async or blocking, and the example
app with a webhook route."""

import importlib.util
from pathlib import Path

import pytest

from support import AwaitableBlockingClient, Sandbox


@pytest.fixture
def sandbox():
    running = Sandbox("--confirm-after-ms", "150")
    yield running
    running.stop()


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

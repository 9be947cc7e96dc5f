"""Fixtures: a fresh sandbox per test, and the client under test, async or blocking."""

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

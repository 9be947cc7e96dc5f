"""Fixtures: a fresh sandbox per test, and the client under test, async or blocking."""

import pytest

from support import Sandbox


@pytest.fixture
def sandbox():
    running = Sandbox("--confirm-after-ms", "150")
    yield running
    running.stop()


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

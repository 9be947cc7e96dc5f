"""Fixtures: the SDK's two clients pointed at Prism (a third-party mock of docs/openapi.yaml),
directly or through a proxy that chooses Prism's answer with `Prefer`."""

import pytest

from prism_support import PreferProxy, blocking_client, client, prism_url


class AwaitableBlockingClient:
    """A BlockingClient in the async client's shape (as in tests/conftest.py), so one test body
    covers both clients."""

    def __init__(self, wrapped):
        self._client = wrapped

    def __getattr__(self, name):
        method = getattr(self._client, name)

        async def call(*args, **kwargs):
            return method(*args, **kwargs)

        return call


@pytest.fixture(params=["async", "blocking"])
def make_client(request):
    """Builds a client of the test's kind for a base URL (Prism's, or the proxy's)."""

    def make(base_url):
        if request.param == "async":
            return client(base_url)
        return AwaitableBlockingClient(blocking_client(base_url))

    return make


@pytest.fixture
def prism(make_client):
    """A client talking to Prism directly: Prism answers with each operation's first example."""
    return make_client(prism_url())


@pytest.fixture
def proxy():
    running = PreferProxy(prism_url())
    yield running
    running.close()


@pytest.fixture
def via_proxy(make_client, proxy):
    """A client whose requests reach Prism with `Prefer: proxy.prefer`."""
    return make_client(proxy.url)

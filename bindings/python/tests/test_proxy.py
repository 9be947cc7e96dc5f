"""B47: no proxy for loopback targets; environment proxies ignored; an explicit `proxy` checked."""

import socket
import threading

import pytest

from sika import Client, ClientConfig, SecretKey, SikaError
from support import KEY, scenario, transaction_object

# A hostile proxy's forged answer, had the SDK sent the call (and the key) to it.
FORGED = b'{"status":"success","data":{"status":"successful"}}'
# faults.json's environment_proxies: the variables that must be ignored.
ENVIRONMENT = scenario("environment_proxies")


class FakeProxy:
    """Records the first line of each request it receives; answers each with a forged body."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = "http://127.0.0.1:%d" % self.listener.getsockname()[1]
        self.seen: list[str] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with connection:
                head = b""
                while b"\r\n\r\n" not in head and len(head) < 16384:
                    chunk = connection.recv(1024)
                    if not chunk:
                        break
                    head += chunk
                self.seen.append(head.split(b"\r\n", 1)[0].decode("latin-1"))
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                    b"Content-Length: %d\r\n\r\n%s" % (len(FORGED), FORGED)
                )

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def proxy():
    running = FakeProxy()
    yield running
    running.close()


@pytest.mark.parametrize("variables", ENVIRONMENT["loopback_variable_sets"], ids="+".join)
async def test_b47_environment_proxy_is_not_used_for_loopback(sandbox, make_client, proxy, monkeypatch, variables):
    sandbox.seed_transaction(transaction_object("B47-PY", "successful", "5"))
    # Only while the SDK builds and calls: the test's own control requests go direct.
    with monkeypatch.context() as environment:
        for name in ENVIRONMENT["cleared_variables"]:
            environment.delenv(name, raising=False)
        for name in variables:
            environment.setenv(name, proxy.url)
        transaction = await make_client().verify_transaction("B47-PY")
    assert transaction.tx_ref == "B47-PY"
    assert proxy.seen == [], "the proxy saw the loopback call and its key"
    assert len(sandbox.requests()) == 1


async def test_b47_https_proxy_environment_is_ignored_for_https_targets(proxy, monkeypatch):
    for name in ENVIRONMENT["cleared_variables"]:
        monkeypatch.delenv(name, raising=False)
    for name in ENVIRONMENT["https_variables"]:
        monkeypatch.setenv(name, proxy.url)
    # `.invalid` never resolves: ignoring the environment, the call fails before any traffic.
    config = ClientConfig(
        secret_key=SecretKey(KEY), base_url="https://sika-proxy-test.invalid", timeout_ms=5_000, max_retries=0
    )
    with pytest.raises(SikaError.Network):
        await Client(config).verify_transaction("B47-HTTPS")
    assert proxy.seen == [], "an environment proxy was used without the merchant's setting"


async def test_b47_explicit_proxy_is_not_used_for_loopback(sandbox, make_client, proxy):
    sandbox.seed_transaction(transaction_object("B47-PY-EXPLICIT", "successful", "5"))
    transaction = await make_client(proxy=proxy.url).verify_transaction("B47-PY-EXPLICIT")
    assert transaction.tx_ref == "B47-PY-EXPLICIT"
    assert proxy.seen == []


@pytest.mark.parametrize("bad", ["not a url", "ftp://127.0.0.1:21", "http://127.0.0.1:1/?x=1", "socks5://127.0.0.1:1"])
def test_b47_a_bad_proxy_is_invalid_input_and_nothing_is_sent(sandbox, bad):
    with pytest.raises(SikaError.InvalidInput) as raised:
        sandbox.blocking_client(proxy=bad)
    assert raised.value.field == "proxy"
    assert sandbox.requests() == []

"""B47: no proxy for loopback targets; environment proxies ignored; an explicit `proxy` checked.
B81: the proxy, a `SecretUrl` object, never prints its password; a plain string for it (or for
the key) is refused when the configuration is made, naming the field."""

import copy
import dataclasses
import pickle
import socket
import threading

import pytest

from sika import BlockingClient, Client, ClientConfig, SecretKey, SecretUrl, SikaError
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
    transaction = await make_client(proxy=SecretUrl(proxy.url)).verify_transaction("B47-PY-EXPLICIT")
    assert transaction.tx_ref == "B47-PY-EXPLICIT"
    assert proxy.seen == []


@pytest.mark.parametrize("bad", ["not a url", "ftp://127.0.0.1:21", "http://127.0.0.1:1/?x=1", "socks5://127.0.0.1:1"])
def test_b47_a_bad_proxy_is_invalid_input_and_nothing_is_sent(sandbox, bad):
    with pytest.raises(SikaError.InvalidInput) as raised:
        sandbox.blocking_client(proxy=SecretUrl(bad))
    assert raised.value.field == "proxy"
    assert sandbox.requests() == []


# ---- B81: the proxy password is in no printed or serialised form (issue 25 item 4) ----------

PASSWORD = "pa55word_canary_B81"


def test_b81_the_proxy_password_is_in_no_printed_form_of_a_configuration():
    config = ClientConfig(
        secret_key=SecretKey(KEY),
        base_url="https://api.example.com",
        proxy=SecretUrl(f"http://merchant:{PASSWORD}@proxy.internal:3128"),
    )
    forms = [repr(config), str(config), format(config), repr(config.proxy), str(config.proxy)]
    forms.append(repr(dataclasses.asdict(config)) if dataclasses.is_dataclass(config) else "")
    forms.append(repr(copy.deepcopy(config)))
    for text in forms:
        assert PASSWORD not in text and "merchant:" not in text, text
    with pytest.raises(TypeError):  # an object never pickles (ADR 0015), so neither does its text
        pickle.dumps(config.proxy)
    # The object still carries the URL: a client made with it checks and uses it.
    with pytest.raises(SikaError.InvalidInput) as raised:
        BlockingClient(
            ClientConfig(secret_key=SecretKey(KEY), base_url="https://api.example.com", proxy=SecretUrl(f"ftp://u:{PASSWORD}@x:1"))
        )
    assert raised.value.field == "proxy"
    assert PASSWORD not in str(raised.value) and PASSWORD not in repr(raised.value)


TEXT_PROXY = f"http://merchant:{PASSWORD}@proxy.internal:3128"


def test_b81_a_proxy_given_as_text_is_refused_when_the_configuration_is_made():
    # Before (issue 47): accepted, and `repr(config)` printed the password whole.
    with pytest.raises(SikaError.InvalidInput) as raised:
        ClientConfig(secret_key=SecretKey(KEY), base_url="https://api.example.com", proxy=TEXT_PROXY)  # type: ignore[arg-type]
    assert raised.value.field == "proxy"
    assert "sika.SecretUrl" in raised.value.reason
    for text in (str(raised.value), repr(raised.value), repr(raised.value.args)):
        assert PASSWORD not in text and "merchant:" not in text, text


def test_b81_a_key_given_as_text_is_refused_too_and_so_is_setting_either_later():
    with pytest.raises(SikaError.InvalidInput) as raised:
        ClientConfig(secret_key=KEY, base_url="https://api.example.com")  # type: ignore[arg-type]
    assert raised.value.field == "secret_key" and KEY not in str(raised.value) + repr(raised.value)
    config = ClientConfig(secret_key=SecretKey(KEY), base_url="https://api.example.com")
    for field, text in (("proxy", TEXT_PROXY), ("secret_key", KEY)):
        with pytest.raises(SikaError.InvalidInput) as raised:
            setattr(config, field, text)
        assert raised.value.field == field
    with pytest.raises(SikaError.InvalidInput):
        dataclasses.replace(config, proxy=TEXT_PROXY)
    # What the fields take is unchanged: the objects, and None for the proxy.
    config.proxy = SecretUrl(TEXT_PROXY)
    config.proxy = None
    assert config.proxy is None and PASSWORD not in repr(config)


def test_b81_a_base_url_with_credentials_prints_none_of_them():
    config = ClientConfig(secret_key=SecretKey(KEY), base_url=f"https://merchant:{PASSWORD}@api.example.com/v1")
    for text in (repr(config), str(config), format(config), repr(copy.deepcopy(config))):
        assert PASSWORD not in text and "merchant:" not in text, text
        assert "https://[REDACTED]@api.example.com/v1" in text, text
    with pytest.raises(SikaError.Configuration) as raised:
        BlockingClient(config)
    assert PASSWORD not in str(raised.value) + repr(raised.value)

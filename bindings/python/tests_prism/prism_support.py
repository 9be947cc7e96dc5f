"""The Prism mock of docs/openapi.yaml (started by scripts/test-contract) and a header-adding
loopback proxy in front of it, so a test can pick Prism's response with `Prefer`."""

from __future__ import annotations

import http.client
import http.server
import os
import threading
import urllib.parse

from sika import BlockingClient, Client, ClientConfig, SecretKey

# Prism checks that a bearer token is present, not its value. A canary, like every suite's
# key: scripts/test fails if any output shows it.
KEY = "sk_test_canary_prism_9d4c"

# Hop-by-hop headers are the proxy's own business, not forwarded.
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}


def prism_url() -> str:
    url = os.environ.get("SIKA_PRISM_URL")
    if not url:
        raise RuntimeError("SIKA_PRISM_URL is not set: run the suite with scripts/test-contract")
    return url.rstrip("/")


def config(base_url: str) -> ClientConfig:
    # No retries (an error answer must reach the test as it is) and no bank cache (each test
    # chooses its own answer).
    return ClientConfig(
        secret_key=SecretKey(KEY), base_url=base_url, timeout_ms=10_000, max_retries=0, bank_cache_ttl_seconds=0
    )


def client(base_url: str) -> Client:
    return Client(config(base_url))


def blocking_client(base_url: str) -> BlockingClient:
    return BlockingClient(config(base_url))


class PreferProxy:
    """A loopback HTTP proxy that forwards every request to Prism with `Prefer: <prefer>` added.

    The SDK has no way to send a header of the caller's choice (by design: only the auth,
    content type and user agent go out), so this is how a test selects Prism's error examples
    (`code=404, example=transaction_not_found`) or dynamic generation (`dynamic=true`)."""

    def __init__(self, upstream: str) -> None:
        self.prefer: str | None = None
        self.seen: list[dict] = []  # what the SDK sent and what Prism answered, for assertions
        target = urllib.parse.urlsplit(upstream)
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP | {"host"}}
                if proxy.prefer:
                    headers["Prefer"] = proxy.prefer
                sent = {k.lower(): v for k, v in self.headers.items()}
                exchange = {"method": self.command, "path": self.path, "headers": sent}
                proxy.seen.append(exchange)
                upstream_conn = http.client.HTTPConnection(target.hostname, target.port, timeout=10)
                try:
                    upstream_conn.request(self.command, self.path, body=body, headers=headers)
                    answer = upstream_conn.getresponse()
                    payload = answer.read()
                    exchange.update(answer_status=answer.status, answer_body=payload)
                    self.send_response(answer.status, answer.reason)
                    for name, value in answer.getheaders():
                        if name.lower() not in _HOP_BY_HOP | {"content-length"}:
                            self.send_header(name, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                finally:
                    upstream_conn.close()

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

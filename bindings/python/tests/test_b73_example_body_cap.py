"""B73 in Python: the example's webhook route (`examples/mobile_money_flow.py`) caps the body it
reads. A declared length over the cap is answered 413 before any of the body is read (the test
sends the headers alone: a server that waited for the body would never answer), and the service
is asked nothing. A body at the cap is read and judged (junk: 400)."""

import socket

import pytest

# How long the test waits for an answer: generous, only so a server that reads the body it was
# promised (and never gets) fails the test instead of hanging it.
ANSWER_WAIT_S = 10.0


@pytest.fixture
def webhook_port(example, sandbox):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = example.webhook_server(port, sandbox.blocking_client())
    yield port
    server.shutdown()
    server.server_close()


def post_headers(port: int, content_length: str, body: bytes = b"") -> int:
    """Sends a POST to the webhook route declaring `content_length`, with `body` (possibly none
    of what it declares), and returns the status of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=ANSWER_WAIT_S) as connection:
        connection.sendall(
            b"POST /webhooks/sika HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + b"Content-Length: "
            + content_length.encode()
            + b"\r\n\r\n"
            + body
        )
        answer = b""
        while b"\r\n" not in answer:
            try:
                chunk = connection.recv(4096)
            except socket.timeout:
                pytest.fail(f"no answer within {ANSWER_WAIT_S} s: the route waited for the body it was promised")
            if not chunk:
                break
            answer += chunk
    status_line = answer.split(b"\r\n", 1)[0].split()
    assert len(status_line) >= 2, answer
    return int(status_line[1])


def test_b73_example_webhook_over_the_cap_is_413_before_reading(example, sandbox, webhook_port):
    cap = example.MAX_WEBHOOK_BODY_BYTES
    assert cap == 64 * 1024
    # 10 MiB promised, nothing of it sent: the answer comes from the headers alone.
    assert post_headers(webhook_port, str(10 * 1024 * 1024)) == 413
    assert post_headers(webhook_port, str(cap + 1)) == 413
    # A negative length is no length.
    assert post_headers(webhook_port, "-1") == 413
    assert sandbox.requests() == [], "a refused webhook asked the service something"


def test_b73_example_webhook_at_the_cap_is_read_and_judged(example, sandbox, webhook_port):
    # Exactly the cap: read whole, then judged as any body (junk names no order: 400).
    body = b"x" * example.MAX_WEBHOOK_BODY_BYTES
    assert post_headers(webhook_port, str(len(body)), body) == 400
    assert sandbox.requests() == []

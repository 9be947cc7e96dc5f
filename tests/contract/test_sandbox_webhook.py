"""The part of the contract Schemathesis does not reach: the `charge.success` webhook. Our
sandbox's delivery is checked against the document's `webhooks` entry, then the flow the spec
prescribes (verify `data.reference`; process only `successful`) against the verify schema.

Needs the sandbox that scripts/test-contract starts (SIKA_CONTRACT_SANDBOX_URL, and its key
in SIKA_CONTRACT_KEY); loopback only."""

from __future__ import annotations

import http.server
import json
import os
import queue
import threading
import time
import urllib.request

import jsonschema_rs
import pytest

from openapi_doc import DOC


def sandbox() -> tuple[str, str]:
    url, key = os.environ.get("SIKA_CONTRACT_SANDBOX_URL"), os.environ.get("SIKA_CONTRACT_KEY")
    if not url or not key:
        pytest.fail("SIKA_CONTRACT_SANDBOX_URL and SIKA_CONTRACT_KEY are not set: run scripts/test-contract")
    return url.rstrip("/"), key


def call(method: str, url: str, body: dict | None = None, key: str | None = None) -> tuple[int, str, dict]:
    headers = {"content-type": "application/json"}
    if key:
        headers["authorization"] = "Bearer " + key
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.headers.get("content-type", ""), json.loads(response.read())


@pytest.fixture
def receiver():
    """A loopback endpoint that records each notification and acknowledges it with 200."""
    deliveries: queue.Queue = queue.Queue()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            deliveries.put((self.path, self.headers.get("content-type", ""), body))
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    url, _ = sandbox()
    call("POST", url + "/__sandbox/settings", {"webhook_url": f"http://127.0.0.1:{server.server_address[1]}/hook"})
    try:
        yield deliveries
    finally:
        call("POST", url + "/__sandbox/settings", {"webhook_url": None})
        server.shutdown()
        server.server_close()


def test_the_charge_success_webhook_follows_the_contract(receiver):
    url, key = sandbox()
    reference = f"CONTRACT-WEBHOOK-{time.time_ns()}"
    charge = DOC["paths"]["/charge"]["post"]["requestBody"]["content"]["application/json"]["examples"]["ghana_mtn"]
    # The document's own example, with a fresh reference and a number the sandbox confirms.
    body = {**charge["value"], "reference": reference, "phone_number": "+233244120000"}
    status, _, answer = call("POST", url + "/charge", body, key)
    assert (status, answer["status"]) == (200, True)

    path, content_type, payload = receiver.get(timeout=15)
    webhook = DOC["webhooks"]["charge.success"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    event = json.loads(payload)
    errors = [e.message for e in jsonschema_rs.Draft202012Validator(webhook).iter_errors(event)]
    assert not errors, errors
    assert content_type.startswith("application/json")
    assert (event["event"], event["data"]["reference"]) == ("charge.success", reference)

    # The rule: verify data.reference, process only `successful`.
    status, content_type, verified = call("GET", url + "/transaction/verify/" + event["data"]["reference"], key=key)
    schema = DOC["paths"]["/transaction/verify/{reference}"]["get"]["responses"]["200"]["content"]["application/json"]
    validator = jsonschema_rs.Draft202012Validator(schema["schema"], validate_formats=True)
    errors = [e.message for e in validator.iter_errors(verified)]
    assert not errors, errors
    assert content_type.startswith("application/json")
    assert verified["data"]["status"] == "successful"

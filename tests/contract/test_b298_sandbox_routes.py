"""B298: the sandbox serves exactly the operations of docs/openapi.yaml (whose set the document
test proves is the spec's), each behind the key, and sandbox/README.md's table of the service
lists exactly them with the spec's documented messages. Nothing here keeps a list of routes:
the sandbox answers its own (`GET /__sandbox/routes`, built from its router's one table), the
document and the README are read.

Needs the sandbox that scripts/test-contract starts (SIKA_CONTRACT_SANDBOX_URL); loopback only."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest

import spec_doc
from openapi_doc import DOC, METHODS
from test_sandbox_webhook import sandbox

README = spec_doc.ROOT / "sandbox" / "README.md"


def document_paths() -> set[str]:
    """`METHOD /path` of every operation under the document's `paths` (webhooks are the merchant's)."""
    return {f"{method.upper()} {path}" for path, item in DOC["paths"].items() for method in item if method in METHODS}


def sandbox_routes() -> set[str]:
    url, _ = sandbox()
    with urllib.request.urlopen(f"{url}/__sandbox/routes", timeout=10) as response:
        routes = json.loads(response.read())["data"]
    return {f"{route['method']} {route['path']}" for route in routes}


def test_b298_the_sandbox_routes_exactly_the_document_operations():
    assert sandbox_routes() == document_paths()


@pytest.mark.parametrize("label", sorted(document_paths()))
def test_b298_every_document_operation_needs_the_key_on_the_sandbox(label):
    url, _ = sandbox()
    method, path = label.split(" ", 1)
    filled = re.sub(r"\{[^}/]+\}", "anything", path)
    request = urllib.request.Request(f"{url}{filled}", data=b"{}" if method == "POST" else None, method=method)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 401
    assert json.loads(refused.value.read()) == {"status": False, "message": "Unauthorized", "data": None}


README_REQUEST = re.compile(r"^`(?P<method>[A-Z]+) (?P<path>/[^`\[?]*)")


def readme_service_rows() -> dict[str, str]:
    """`METHOD /path` -> the errors cell of the README's "The service" table."""
    tables = spec_doc.tables(README.read_text())
    (table,) = [t for t in tables if t.section == "The service" and t.header[0] == "request"]
    rows = {}
    for request, _success, errors in table.rows:
        if match := README_REQUEST.match(request):
            rows[f"{match['method']} {match['path']}"] = errors
    return rows


def test_b298_the_readme_table_lists_the_document_operations_with_their_messages():
    rows = readme_service_rows()
    assert set(rows) == document_paths()
    for label, messages in spec_doc.errors_by_operation().items():
        # `Unauthorized` is the table's first row: every API path, checked first.
        missing = [m for m in messages - {"Unauthorized"} if f"`{m}`" not in rows[label]]
        assert not missing, f"sandbox/README.md's {label} row lacks the spec's {missing}"

"""B200-B206: every request carries `X-Request-Id` (one call id, the attempt's number), and every
error that follows a request carries the id to quote to support: the service's, else Sika's
(ADR 0053). The cases are `tests/fixtures/request_ids.json`, shared by every language."""

from __future__ import annotations

import json
import pickle
import re

import pytest

import sika
from support import FIXTURES_DIR, KEY, charge, variant_name

FILE = json.loads((FIXTURES_DIR / "request_ids.json").read_text())
SENT = re.compile(r"^(sika_[0-9a-f]{32})_([0-9]+)$")


def parts(sent: str) -> tuple[str, int]:
    match = SENT.match(sent)
    assert match, sent
    return match.group(1), int(match.group(2))


async def call(client, case: dict):
    if case["call"] == "verify":
        return await client.verify_transaction(case["reference"])
    if case["call"] == "providers":
        return await client.list_mobile_money_providers(case["country"])
    if case["call"] == "charge":
        return await client.initiate_charge(charge(case["reference"], phone="+233241234567", amount="10", callback_url=None))
    raise AssertionError(case["call"])


@pytest.mark.parametrize("case", FILE["cases"], ids=lambda case: case["id"])
async def test_b200_b206_every_error_after_a_request_carries_its_request_id(sandbox, make_client, case):
    if "fault" in case:
        fault = case["fault"]
        sandbox.fault(fault["path"], fault["kind"], fault["count"], **fault["options"])
    settings = {"timeout_ms": FILE["budget_ms"], "max_retries": FILE["max_retries"]}
    if "secret_key" in case:
        settings["key"] = case["secret_key"]
    with pytest.raises(sika.SikaError) as raised:
        await call(make_client(**settings), case)
    error = raised.value
    assert variant_name(error) == case["error"], repr(error)

    requests = sandbox.requests()
    assert len(requests) == case["attempts"], requests
    calls = [parts(r["request_id"]) for r in requests]
    assert calls == [(calls[0][0], n) for n in range(1, case["attempts"] + 1)]
    quoted = error.request_id
    assert isinstance(quoted, str), repr(error)
    if case["quote"] == "service":
        assert quoted == requests[-1]["answered_request_id"]
    elif case["quote"] == "sika":
        assert quoted == requests[-1]["request_id"]
    else:
        assert len(quoted) <= FILE["max_request_id_chars"]
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c == "\u2028" for c in quoted), repr(quoted)
        assert KEY not in quoted and KEY[8:] not in quoted, quoted
        assert quoted.startswith(case["starts_with"])
    assert f"(request id {quoted})" in str(error)
    # ADR 0043: it crosses pickle and Celery's JSON (`type(e)(*args)`) whole.
    for back in (pickle.loads(pickle.dumps(error)), type(error)(*json.loads(json.dumps(error.args)))):
        assert type(back) is type(error) and back.request_id == quoted and str(back) == str(error)


async def test_b205_errors_before_sending_carry_no_request_id(sandbox, client):
    with pytest.raises(sika.SikaError.InvalidInput) as raised:
        await client.verify_transaction("")
    assert raised.value.request_id is None
    assert sandbox.requests() == []


def test_b205_errors_read_from_bytes_carry_no_request_id():
    body = (FIXTURES_DIR / "responses" / "error_transaction_not_found.json").read_bytes()
    with pytest.raises(sika.SikaError.TransactionNotFound) as raised:
        sika.decode_transaction_response(404, body)
    assert raised.value.request_id is None
    assert "request id" not in str(raised.value)

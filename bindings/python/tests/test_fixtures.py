"""B01: every recorded response of tests/fixtures/ decodes to its expected values, through
the same core decoding the clients use (core/tests/fixtures.rs is the Rust twin)."""

import enum
import json

import pytest

from sika import (
    SikaError,
    decode_banks_response,
    decode_charge_response,
    decode_providers_response,
    decode_transaction_response,
)
from support import FIXTURES_DIR, epoch_ms

CASES = json.loads((FIXTURES_DIR / "cases.json").read_text())["cases"]


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def kind(value) -> str:
    """An enum value as cases.json writes it: `Kind`, or `Kind:value` for a kept value."""
    if isinstance(value, enum.Enum):  # MerchantAction.FULFIL_ORDER
        return camel(value.name)
    name = camel(type(value).__name__.rsplit(".", 1)[-1])  # "TransactionStatus.UNKNOWN"
    return f"{name}:{value.value}" if hasattr(value, "value") else name


def provider_json(p):
    return {
        "id": p.id, "name": p.name, "code": p.code, "active": p.active, "country": p.country,
        "currency": p.currency, "provider_type": p.provider_type, "logo": p.logo,
        "created_at_ms": epoch_ms(p.created_at), "updated_at_ms": epoch_ms(p.updated_at),
    }  # fmt: skip


def bank_json(b):
    return {
        "id": b.id, "name": b.name, "code": b.code, "active": b.active, "country": b.country,
        "currency": b.currency, "account_type": kind(b.account_type),
        "created_at_ms": epoch_ms(b.created_at), "updated_at_ms": epoch_ms(b.updated_at),
    }  # fmt: skip


def customer_json(c):
    return {
        "id": c.id, "name": c.name, "phone_number": c.phone_number, "email": c.email,
        "created_at_ms": epoch_ms(c.created_at), "updated_at_ms": epoch_ms(c.updated_at),
    }  # fmt: skip


def transaction_json(t):
    return {
        # str(Decimal) keeps the scale: "100.10" stays "100.10".
        "id": t.id, "domain": t.domain, "amount": str(t.amount), "currency": t.currency,
        "due_date": t.due_date, "has_invoice": t.has_invoice, "invoice_number": t.invoice_number,
        "description": t.description, "tx_ref": t.tx_ref, "gateway_ref": t.gateway_ref,
        "status": kind(t.status), "payment_type": None if t.payment_type is None else kind(t.payment_type),
        "created_at_ms": epoch_ms(t.created_at), "updated_at_ms": epoch_ms(t.updated_at),
        "customer": None if t.customer is None else customer_json(t.customer),
        "custom_fields": [
            {"display_name": f.display_name, "variable_name": f.variable_name, "value": f.value}
            for f in t.custom_fields
        ],
        "merchant_action": kind(t.status.merchant_action()), "is_final": t.status.is_final(),
    }  # fmt: skip


def charge_json(c):
    return {"http_status": c.http_status, "status": c.status, "message": c.message, "data_json": c.data_json}


def decoded(case, body: bytes) -> dict:
    status = case["http_status"]
    operation = case["operation"]
    if operation == "list_mobile_money_providers":
        return {"providers": [provider_json(p) for p in decode_providers_response(status, body)]}
    if operation == "list_banks":
        return {"banks": [bank_json(b) for b in decode_banks_response(status, body)]}
    if operation == "verify_transaction":
        transaction = decode_transaction_response(status, body)
        json.loads(transaction.raw_json)  # raw_json is JSON
        return {"transaction": transaction_json(transaction)}
    if operation == "initiate_charge":
        charge = decode_charge_response(status, body)
        assert charge.raw_json.encode() == body, "raw_json is the body as sent"
        return {"charge": charge_json(charge)}
    raise AssertionError(f"unknown operation {operation}")


def test_b01_the_fixture_set_is_complete():
    assert len(CASES) >= 30, f"the fixture set shrank: {len(CASES)}"


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_b01_fixture_decodes_to_its_expected_values(case):
    body = (FIXTURES_DIR / case["body_file"]).read_bytes()
    expected = case["expect"]
    if "error" not in expected:
        assert decoded(case, body) == expected
        return
    with pytest.raises(SikaError) as caught:
        decoded(case, body)
    error, want = caught.value, expected["error"]
    got = {"kind": type(error).__name__}
    if "http_status" in want:
        got["http_status"] = error.http_status
    if "message" in want:
        got["message"] = error.service_message  # the `Api` variant's field: the service's message
    assert got == want


VERIFIED = [c for c in CASES if "transaction" in c["expect"]]


@pytest.mark.parametrize("case", VERIFIED, ids=[case["name"] for case in VERIFIED])
def test_b01_raw_json_is_a_verbatim_slice_of_the_body(case):
    body = (FIXTURES_DIR / case["body_file"]).read_bytes()
    transaction = decode_transaction_response(case["http_status"], body)
    assert transaction.raw_json in body.decode()

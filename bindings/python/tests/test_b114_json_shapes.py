"""B114: one JSON shape (issue 27, item 6; ADR 0047). A `Transaction` gives the bytes of
`tests/fixtures/json_shapes/transaction.json`, the core's `to_json()`, through every way Python
writes it: `to_json()`, `to_dict()`, pydantic (an adapter, a model holding it), FastAPI with a
declared type and without one (`to_dict()` or a model returned); a decision through FastAPI and
pydantic holds the same bytes. Returned bare without a declared type, FastAPI's own encoder
writes its own shape (every `Decimal` a JSON number): the README says so."""

from __future__ import annotations

import json
from typing import Optional

from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel, TypeAdapter

import sika
from support import FIXTURES_DIR

SHAPES = FIXTURES_DIR / "json_shapes"


def expected(name: str) -> bytes:
    """A fixture's bytes, without the file's final newline."""
    text = (SHAPES / name).read_bytes()
    assert text.endswith(b"\n") and not text.endswith(b"\n\n"), name
    return text[:-1]


def transaction() -> sika.Transaction:
    return sika.decode_transaction_response(200, (SHAPES / "transaction_response.json").read_bytes())


TRANSACTION = expected("transaction.json")


class Order(BaseModel):
    number: int
    payment: sika.Transaction
    refunds: list[sika.Transaction]
    previous: Optional[sika.Transaction] = None  # noqa: UP045 (Python 3.9: pydantic evaluates the annotation)


def test_b114_to_json_and_to_dict_are_the_fixture_bytes():
    tx = transaction()
    assert tx.to_json().encode() == TRANSACTION
    assert json.dumps(tx.to_dict(), ensure_ascii=False, separators=(",", ":")).encode() == TRANSACTION
    # The exact amount text and the core's timestamps, as the fixture's README describes them.
    assert b'"amount":"100.10"' in TRANSACTION and b'"updated_at":"2024-05-01T12:01:30.000Z"' in TRANSACTION


def test_b114_pydantic_writes_the_fixture_bytes_and_reads_them_back():
    tx = transaction()
    adapter = TypeAdapter(sika.Transaction)
    assert adapter.dump_json(tx) == TRANSACTION
    assert json.dumps(adapter.dump_python(tx, mode="json"), ensure_ascii=False, separators=(",", ":")).encode() == (
        TRANSACTION
    )
    assert adapter.validate_json(TRANSACTION) == tx
    order = Order(number=7, payment=tx, refunds=[tx])
    written = order.model_dump_json().encode()
    assert written == b'{"number":7,"payment":' + TRANSACTION + b',"refunds":[' + TRANSACTION + b'],"previous":null}'
    assert Order.model_validate_json(written) == order
    # In Python mode a model keeps the record itself.
    assert order.model_dump()["payment"]["amount"] == tx.amount


def test_b114_fastapi_with_and_without_a_declared_type_writes_the_fixture_bytes():
    tx = transaction()
    check = sika.PaymentCheck.NOT_PAID(tx, sika.MerchantAction.INVESTIGATE)
    app = FastAPI()

    @app.get("/declared")
    def declared() -> sika.Transaction:
        return tx

    @app.get("/response-model", response_model=sika.Transaction)
    def response_model():
        return tx

    @app.get("/undeclared-to-dict")
    def undeclared_to_dict():
        return tx.to_dict()

    @app.get("/undeclared-model")
    def undeclared_model():
        return Order(number=7, payment=tx, refunds=[])

    @app.get("/declared-model")
    def declared_model() -> Order:
        return Order(number=7, payment=tx, refunds=[])

    @app.get("/decision")
    def decision() -> sika.PaymentCheck:
        return check

    @app.get("/bare")
    def bare():
        return tx

    with TestClient(app) as http:

        def body(path: str) -> bytes:
            answer = http.get(path)
            assert answer.status_code == 200, (path, answer.text)
            return answer.content

        assert body("/declared") == TRANSACTION
        assert body("/response-model") == TRANSACTION
        assert body("/undeclared-to-dict") == TRANSACTION
        in_model = b'{"number":7,"payment":' + TRANSACTION + b',"refunds":[],"previous":null}'
        assert body("/undeclared-model") == in_model
        assert body("/declared-model") == in_model
        assert body("/decision") == expected("payment_check_not_paid.json")
        assert json.loads(body("/decision"))["transaction"] == json.loads(TRANSACTION)
        # Returned bare with no declared type, FastAPI's `jsonable_encoder` takes any dataclass
        # through `dataclasses.asdict` and writes every `Decimal` as a number, before any hook
        # of the record's: its own shape, as the README says (declare the type or return
        # `to_dict()`).
        bare_answer = json.loads(body("/bare"))
        assert bare_answer["amount"] == 100.1 and body("/bare") != TRANSACTION
        # The app's OpenAPI document (its `/docs`) is built: the decision as an object whose
        # `outcome` is a variant's name, the record with its amount as text.
        openapi = http.get("/openapi.json")
        assert openapi.status_code == 200, openapi.text
        document = openapi.json()
        decision_schema = document["paths"]["/decision"]["get"]["responses"]["200"]["content"]["application/json"]
        assert decision_schema["schema"]["properties"]["outcome"]["enum"] == [
            "CONFIRMED",
            "NOT_YET",
            "NOT_PAID",
            "MISMATCH",
        ]
        assert document["components"]["schemas"]["Transaction"]["properties"]["amount"]["type"] == "string"

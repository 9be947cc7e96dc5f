"""B40: records are data. Their fields are dataclass fields, so `dataclasses`, pydantic and
FastAPI serialise them with no adapter; `to_json()`/`to_dict()` are the core's text; statuses
are their service text; printing masks the customer. Over the seeded transaction of
tests/fixtures/seeded_transaction.json, verified through the sandbox."""

import copy
import dataclasses
import datetime
import decimal
import inspect
import json

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import BaseModel, TypeAdapter

import sika
from sika import BankAccountType, PaymentType, Transaction, TransactionStatus
from support import FIXTURES_DIR, SEEDED_EXPECTED, SEEDED_TRANSACTION, Sandbox, charge, transaction_object

PHONE = SEEDED_EXPECTED["customer_phone_number"]
EMAIL = SEEDED_EXPECTED["customer_email"]
# The customer's details as the logs mask them (core/src/validation.rs).
MASKED_PHONE = "+233*******56"
MASKED_EMAIL = "a***@example.com"


@pytest.fixture(scope="module")
def verified():
    """`verify(status)`: the seeded transaction with that status and amount 100.10, verified."""
    sandbox = Sandbox()
    client = sandbox.blocking_client()

    def verify(status: str) -> Transaction:
        reference = f"REC-{status}"
        sandbox.seed_transaction(transaction_object(reference, status, "100.10"))
        return client.verify_transaction(reference)

    yield verify
    sandbox.stop()


@pytest.fixture
def transaction(verified) -> Transaction:
    return verified("successful")


def banks():
    body = (FIXTURES_DIR / "responses" / "banks_ng.json").read_bytes()
    return sika.decode_banks_response(200, body)


def record_classes():
    """Every exported record: a dataclass with UniFFI's keyword-only `__init__`."""
    return [
        value
        for name in sika.__all__
        if dataclasses.is_dataclass(value := getattr(sika, name)) and isinstance(value, type)
    ]


def test_b40_every_record_lists_every_field_with_its_type():
    records = record_classes()
    assert {"Transaction", "Customer", "CustomField", "Bank", "ChargeRequest", "ClientConfig"} <= {
        record.__name__ for record in records
    }
    for record in records:
        parameters = inspect.signature(record.__init__).parameters
        declared = {name: p.annotation for name, p in parameters.items() if name != "self"}
        fields = {field.name: field.type for field in dataclasses.fields(record)}
        assert fields == declared, record.__name__
        assert fields, f"{record.__name__} has fields"


def test_b40_the_variants_of_enums_with_data_list_their_fields(transaction):
    check = sika.PaymentCheck.NOT_PAID(transaction=transaction, action=sika.MerchantAction.INVESTIGATE)
    assert [field.name for field in dataclasses.fields(check)] == ["transaction", "action"]
    data = dataclasses.asdict(check)
    assert data["transaction"]["status"] == "successful" and data["action"] is sika.MerchantAction.INVESTIGATE
    assert [field.name for field in dataclasses.fields(sika.WebhookDecision.FULFIL)] == ["transaction"]
    assert PHONE not in repr(check) and MASKED_PHONE in repr(check)


def test_b40_asdict_has_the_whole_transaction(transaction):
    data = dataclasses.asdict(transaction)
    assert list(data) == [field.name for field in dataclasses.fields(Transaction)]
    assert data["amount"] == decimal.Decimal("100.10") and str(data["amount"]) == "100.10"
    assert data["status"] == "successful" and isinstance(data["status"], str)
    assert data["payment_type"] == "mobile_money"
    assert isinstance(data["created_at"], datetime.datetime)
    assert data["customer"]["phone_number"] == PHONE
    assert data["custom_fields"] == []
    # Everything but the timestamps and the amount is already JSON for the standard library.
    encoded = json.loads(json.dumps(data, default=str))
    assert (encoded["status"], encoded["amount"]) == ("successful", "100.10")


def test_b40_pydantic_dumps_and_reads_a_transaction(transaction):
    adapter = TypeAdapter(Transaction)
    dumped = adapter.dump_python(transaction, mode="json")
    assert dumped["amount"] == "100.10"
    assert dumped["status"] == "successful"
    assert dumped["payment_type"] == "mobile_money"
    assert datetime.datetime.fromisoformat(dumped["created_at"].replace("Z", "+00:00")) == transaction.created_at
    assert dumped["customer"]["email"] == EMAIL
    text = adapter.dump_json(transaction)
    assert json.loads(text) == dumped
    # And back: the status from its text, by the core's parser.
    assert adapter.validate_json(text) == transaction
    assert adapter.validate_python(dumped).status.is_successful()

    class Order(BaseModel):
        number: int
        payment: Transaction

    order = Order(number=7, payment=transaction)
    assert json.loads(order.model_dump_json())["payment"]["status"] == "successful"
    assert Order.model_validate_json(order.model_dump_json()).payment == transaction
    assert Order.model_json_schema()["$defs"]["Transaction"]["properties"]["status"]["type"] == "string"


def test_b40_fastapi_returns_a_transaction_as_json(transaction):
    app = FastAPI()

    @app.get("/plain")
    def plain():
        return transaction

    @app.get("/typed")
    def typed() -> Transaction:
        return transaction

    with TestClient(app) as http:
        plain_answer = http.get("/plain")
        typed_answer = http.get("/typed")
        schema = http.get("/openapi.json")
    for answer in [plain_answer, typed_answer]:
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["tx_ref"] == transaction.tx_ref
        assert body["status"] == "successful"
        assert body["customer"]["phone_number"] == PHONE
        assert body["created_at"].startswith("2024-05-01T12:00:00.123")
    # Declared as a Transaction, the amount is pydantic's exact decimal text; returned plain,
    # FastAPI's own encoder writes every Decimal as a JSON number.
    assert typed_answer.json()["amount"] == "100.10"
    assert decimal.Decimal(str(plain_answer.json()["amount"])) == decimal.Decimal("100.10")
    assert schema.status_code == 200, schema.text


def test_b40_to_json_and_to_dict_are_the_core_text(transaction):
    as_dict = transaction.to_dict()
    assert as_dict == json.loads(transaction.to_json())
    assert as_dict["amount"] == "100.10"
    assert as_dict["status"] == "successful"
    assert as_dict["created_at"] == "2024-05-01T12:00:00.123Z"
    assert as_dict["updated_at"] == "2024-05-01T12:30:00.000Z"
    assert as_dict["customer"]["created_at"] == "2024-04-01T09:00:00.000Z"
    # The service's names: the seeded object's own, but the gateway reference (its key varies
    # by brand) and the custom fields (under `meta`), as the record names them, and the body.
    service_names = set(SEEDED_TRANSACTION["object"]) - {"gw_ref", "meta"}
    assert set(as_dict) == service_names | {"gateway_ref", "custom_fields", "raw_json"}
    assert as_dict["raw_json"] == transaction.raw_json
    bank = banks()[0]
    assert {"type", "createdAt", "updatedAt"} <= set(bank.to_dict())
    assert bank.to_dict()["type"] == "nuban"
    request = charge("REC-CHARGE", amount="20.50")
    assert json.loads(request.to_json())["amount"] == "20.50"


def test_b40_comparing_with_another_type_is_false(transaction):
    for other in [None, 1, "successful", object(), transaction.customer]:
        assert (transaction == other) is False
        assert (transaction != other) is True
    assert transaction == copy.deepcopy(transaction)
    changed = dataclasses.replace(transaction, amount=decimal.Decimal("100.11"))
    assert changed != transaction
    assert (transaction.customer == None) is False  # noqa: E711 (the comparison is the test)


def test_b40_printing_masks_the_customer(transaction):
    shown, represented = str(transaction), repr(transaction)
    assert shown == f"transaction {transaction.tx_ref}: successful, 100.10 GHS, customer {MASKED_PHONE} {MASKED_EMAIL}"
    for text in [shown, represented, repr(transaction.customer), str(transaction.customer)]:
        assert PHONE not in text and EMAIL not in text, text
        assert MASKED_PHONE in text and MASKED_EMAIL in text, text
    for part in [transaction.tx_ref, "Successful", "100.10", "GHS"]:
        assert part in represented
    request = charge("REC-PRINT", phone=PHONE, email=EMAIL)
    assert PHONE not in f"{request} {request!r}" and MASKED_PHONE in str(request)
    assert repr(banks()[0]).startswith("Bank(id=")


TEXTS = [
    (TransactionStatus, "successful", TransactionStatus.SUCCESSFUL()),
    (TransactionStatus, "pending", TransactionStatus.PENDING()),
    (TransactionStatus, "failed", TransactionStatus.FAILED()),
    (TransactionStatus, "abandoned", TransactionStatus.ABANDONED()),
    (TransactionStatus, "reversed", TransactionStatus.REVERSED()),
    (TransactionStatus, "success", TransactionStatus.UNKNOWN(value="success")),
    (TransactionStatus, "Successful", TransactionStatus.UNKNOWN(value="Successful")),
    (PaymentType, "card", PaymentType.CARD()),
    (PaymentType, "mobile_money", PaymentType.MOBILE_MONEY()),
    (PaymentType, "bank_transfer", PaymentType.OTHER(value="bank_transfer")),
    (BankAccountType, "nuban", BankAccountType.NUBAN()),
    (BankAccountType, "account_number", BankAccountType.ACCOUNT_NUMBER()),
    (BankAccountType, "iban", BankAccountType.OTHER(value="iban")),
]


@pytest.mark.parametrize(("kind", "text", "value"), TEXTS, ids=[f"{k.__name__}:{t}" for k, t, _ in TEXTS])
def test_b40_a_service_value_is_its_text(kind, text, value):
    parsed = kind.from_text(text)
    assert parsed == value and type(parsed) is type(value)
    assert value == text and text == value and not (value != text)
    assert str(value) == text and json.dumps(value) == json.dumps(text)
    assert hash(value) == hash(text) and value in {text} and text in {value}
    assert not dataclasses.is_dataclass(value)
    assert repr(value).startswith(f"{kind.__name__}.")


def test_b40_variants_stay_distinct_from_each_other():
    # Equal text never makes two variants equal: only the core's parser turns text into one.
    hand_made = TransactionStatus.UNKNOWN(value="successful")
    assert hand_made != TransactionStatus.SUCCESSFUL()
    assert TransactionStatus.from_text("successful") != hand_made
    assert TransactionStatus.SUCCESSFUL() != "pending"
    assert TransactionStatus.UNKNOWN(value="a") != TransactionStatus.UNKNOWN(value="b")
    with pytest.raises(RuntimeError):
        TransactionStatus()


def test_b40_a_transaction_status_compares_with_text(verified):
    assert verified("successful").status == "successful"
    word = verified("success").status
    assert word == "success" and word != "successful" and word.is_unknown()
    assert word.merchant_action() == sika.MerchantAction.INVESTIGATE


def test_b186_a_merchant_test_builds_a_transaction_from_the_fields_every_transaction_has():
    # A test double for the merchant's own fulfilment code: the descriptive fields default.
    transaction = sika.Transaction(
        amount=decimal.Decimal("25.50"),
        currency="GHS",
        tx_ref="PY-DOUBLE-1",
        status=sika.TransactionStatus.SUCCESSFUL(),
        raw_json="{}",
    )
    assert transaction.status.merchant_action() == sika.MerchantAction.FULFIL_ORDER
    assert (transaction.id, transaction.customer, transaction.created_at, transaction.payment_type) == (None,) * 4
    assert transaction.custom_fields == []
    assert sika.transaction_from_json(transaction.to_json()) == transaction

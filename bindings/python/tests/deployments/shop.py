"""What every deployed app shares: the client's settings from the environment the test sets,
and the SDK's answers as JSON that names the reference each one is about (the tests assert it:
an answer about another reference would be a crossed answer)."""

import json
import os
from decimal import Decimal

import sika

# Set by test_deployments.py for the server it starts.
BASE_URL = "SIKA_SHOP_BASE_URL"
SECRET_KEY = "SIKA_SHOP_SECRET_KEY"
ORDERS_DB = "SIKA_SHOP_ORDERS_DB"
# The ledger's database: an SQLite file's path or a `postgresql://` URL.
LEDGER_DB = "SIKA_SHOP_LEDGER_DB"

# Shorter than the tests' own deadlines, so that a call stuck in a broken child answers as a
# typed error the test can show instead of a dropped connection.
TIMEOUT_MS = 5000

CHARGE_AMOUNT = Decimal("20")


def config() -> sika.ClientConfig:
    return sika.ClientConfig(
        secret_key=sika.SecretKey(os.environ[SECRET_KEY]), base_url=os.environ[BASE_URL], timeout_ms=TIMEOUT_MS
    )


def open_ledger(kind):
    """The shop's ledger (`sika.BlockingLedger` or `sika.Ledger`), on the database the
    environment names: PostgreSQL for a URL, else an SQLite file."""
    database = os.environ[LEDGER_DB]
    if database.startswith(("postgres://", "postgresql://")):
        return kind.postgres(sika.SecretUrl(database))
    return kind.sqlite(database)


def charge_request(reference: str, phone_number: str) -> sika.ChargeRequest:
    return sika.ChargeRequest(
        amount=CHARGE_AMOUNT,
        email="ama@example.com",
        phone_number=phone_number,
        reference=reference,
        currency="GHS",
        provider="MTN",
        callback_url="https://shop.example.com/return",
    )


def transaction_json(reference: str, transaction: sika.Transaction) -> dict:
    return {
        "reference": reference,
        "tx_ref": transaction.tx_ref,
        "amount": str(transaction.amount),
        "status": str(transaction.status),
        "pid": os.getpid(),
    }


def charge_json(reference: str, response: sika.ChargeResponse) -> dict:
    data = json.loads(response.data_json) if response.data_json else {}
    return {
        "reference": reference,
        "tx_ref": data.get("tx_ref"),
        "http_status": response.http_status,
        "pid": os.getpid(),
    }


def check_json(reference: str, check: sika.PaymentCheck) -> dict:
    transaction = getattr(check, "transaction", None)
    return {
        "reference": reference,
        # The variant's own name (`CONFIRMED`), not its qualified one.
        "check": type(check).__name__.rsplit(".", 1)[-1],
        "tx_ref": transaction.tx_ref if transaction else None,
        "pid": os.getpid(),
    }


def error_json(reference: str, error: sika.SikaError) -> tuple[dict, int]:
    """A typed error as JSON, and the HTTP status the app answers with it."""
    status = 404 if isinstance(error, sika.SikaError.TransactionNotFound) else 502
    return {"reference": reference, "error": type(error).__name__, "message": str(error), "pid": os.getpid()}, status


def expected_payment(query_amount: str, query_currency: str) -> sika.ExpectedPayment:
    return sika.ExpectedPayment(amount=Decimal(query_amount), currency=query_currency)

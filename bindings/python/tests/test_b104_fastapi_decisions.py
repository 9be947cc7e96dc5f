"""B104: FastAPI accepts `-> sika.PaymentCheck` and `-> sika.WebhookDecision` as declared
response types (a pydantic core schema over the core's JSON, pydantic imported only when asked):
the app starts and answers `{"outcome": ..., fields}`, the transaction as `to_dict()` (amount
`"100.10"` exactly); `import sika` imports no pydantic (issue 27, ADR 0042)."""

from __future__ import annotations

import json
import subprocess
import sys

from fastapi import FastAPI
from fastapi.testclient import TestClient

import sika
from support import transaction_object


def transaction() -> sika.Transaction:
    body = '{"status":true,"message":"ok","data":' + transaction_object("B104-1", "successful", "100.10") + "}"
    return sika.decode_transaction_response(200, body.encode())


def test_b104_a_fastapi_app_declaring_decision_types_starts_and_answers():
    tx = transaction()
    app = FastAPI()

    @app.get("/check")
    def check() -> sika.PaymentCheck:
        return sika.PaymentCheck.CONFIRMED(tx)

    @app.get("/not-paid")
    def not_paid() -> sika.PaymentCheck:
        return sika.PaymentCheck.NOT_PAID(tx, sika.MerchantAction.INVESTIGATE)

    @app.get("/webhook")
    def webhook() -> sika.WebhookDecision:
        return sika.WebhookDecision.RETRY_LATER("not visible yet")

    http = TestClient(app)
    answer = http.get("/check")
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"outcome": "CONFIRMED", "transaction": tx.to_dict()}
    assert '"amount":"100.10"' in answer.text
    assert http.get("/not-paid").json() == {"outcome": "NOT_PAID", "transaction": tx.to_dict(), "action": "INVESTIGATE"}
    assert http.get("/webhook").json() == {"outcome": "RETRY_LATER", "reason": "not visible yet"}
    assert json.loads(http.get("/check").text)["transaction"]["tx_ref"] == "B104-1"


def test_b104_import_sika_imports_no_pydantic():
    probe = "import sys, sika; print(any(name.startswith('pydantic') for name in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"

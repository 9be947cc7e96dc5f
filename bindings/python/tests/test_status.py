"""B11: what to do for every status; the core's documentation as the package's docstrings
(B20, the country table, runs its scenario file in test_client.py). Pure core logic, no sandbox."""

import inspect

import pytest

import sika
from sika import MerchantAction, TransactionStatus
from support import scenario_cases, variant_name

STATUS_ROWS = scenario_cases("b11_status_actions.json")


@pytest.mark.parametrize("row", STATUS_ROWS, ids=lambda row: repr(row["text"]))
def test_b11_merchant_action_and_finality_of_every_status(row):
    status = sika.transaction_status_from_text(row["text"])
    assert str(status) == row["text"], "the text is kept"
    assert variant_name(status) == row["status"]
    assert variant_name(status.merchant_action()) == row["merchant_action"]
    assert status.is_final() is row["is_final"]


def test_b11_the_rows_cover_every_status_and_action():
    assert {row["merchant_action"] for row in STATUS_ROWS} == {variant_name(action) for action in MerchantAction}
    variants = {type(sika.transaction_status_from_text(row["text"])) for row in STATUS_ROWS}
    assert variants == {cls for cls in vars(TransactionStatus).values() if isinstance(cls, type)}


# Phrases of the core's doc comments (core/src/status.rs, core/src/models/transaction.rs,
# core/src/error.rs), which UniFFI copies into the generated classes and methods.
CORE_DOCS = [
    (sika.TransactionStatus, "The status of a transaction, as reported by verification."),
    (sika.TransactionStatus.is_final, "Whether the status will not change by waiting"),
    (sika.TransactionStatus.merchant_action, "What the merchant should do, as the service documents it."),
    (sika.Customer, "The customer of a transaction."),
    # Field docs, which sika/_runtime/records.py lists under `Attributes:` (UniFFI drops them).
    (sika.Customer, "phone_number: Phone number, international format (`+233...`)."),
    (sika.Transaction, "status: The status. Only `Successful` means paid."),
    (sika.Transaction, "A transaction, as verification reports it."),
    (sika.SikaError, "Messages never contain the secret key."),
]


@pytest.mark.parametrize(("documented", "phrase"), CORE_DOCS, ids=[f"{d.__qualname__}:{p[:12]}" for d, p in CORE_DOCS])
def test_b35_the_core_doc_comments_are_the_docstrings(documented, phrase):
    assert phrase in inspect.getdoc(documented)

"""B11: what to do for every status; B20: the country table; the core's documentation as the
package's docstrings. Pure core logic, no sandbox."""

import inspect

import pytest

import sika
from sika import MerchantAction, TransactionStatus, countries

# The product contract (README "Statuses and what to do").
STATUSES = [
    (TransactionStatus.SUCCESSFUL(), MerchantAction.FULFIL_ORDER, True),
    (TransactionStatus.PENDING(), MerchantAction.AWAIT_WEBHOOK_OR_REVERIFY, False),
    (TransactionStatus.FAILED(), MerchantAction.INFORM_CUSTOMER_ALLOW_RETRY, True),
    (TransactionStatus.ABANDONED(), MerchantAction.CONTACT_CUSTOMER, True),
    (TransactionStatus.REVERSED(), MerchantAction.UPDATE_ORDER_AND_REFUND, True),
    (TransactionStatus.UNKNOWN(value="success"), MerchantAction.INVESTIGATE, False),
    (TransactionStatus.UNKNOWN(value="Successful"), MerchantAction.INVESTIGATE, False),
    (TransactionStatus.UNKNOWN(value=""), MerchantAction.INVESTIGATE, False),
]


# str() of a status is the service's text; repr() keeps the empty one visible as ''.
@pytest.mark.parametrize(("status", "action", "final"), STATUSES, ids=[repr(str(s)) for s, _, _ in STATUSES])
def test_b11_merchant_action_and_finality_of_every_status(status, action, final):
    assert status.merchant_action() == action
    assert status.is_final() is final


def test_b11_the_table_covers_every_status_and_action():
    assert {action for _, action, _ in STATUSES} == set(MerchantAction)
    variants = {type(status) for status, _, _ in STATUSES}
    assert variants == {cls for cls in vars(TransactionStatus).values() if isinstance(cls, type)}


def test_b20_five_countries_and_nigeria_has_banks_only():
    table = {country.code: country for country in countries()}
    assert len(countries()) == 5
    assert set(table) == {"GH", "KE", "UG", "TZ", "NG"}
    nigeria = table.pop("NG")
    assert (nigeria.name, nigeria.currency, nigeria.mobile_money) == ("Nigeria", "NGN", False)
    assert nigeria.bank_account_type.is_nuban()
    for code, country in table.items():
        assert country.mobile_money, code
        assert country.bank_account_type.is_account_number(), code


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

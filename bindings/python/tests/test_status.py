"""B11: what to do for every status; B20: the country table. Pure core logic, no sandbox."""

import pytest

from sika import MerchantAction, TransactionStatus, countries, is_final, merchant_action

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


@pytest.mark.parametrize(("status", "action", "final"), STATUSES, ids=[str(s) for s, _, _ in STATUSES])
def test_b11_merchant_action_and_finality_of_every_status(status, action, final):
    assert merchant_action(status) == action
    assert is_final(status) is final


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

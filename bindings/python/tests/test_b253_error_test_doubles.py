"""B253: a test double of an error is one line: every variant's optional last fields
(`request_id`, `retry_after_seconds`) default to None, in its signature, its `args`, pickling
and the typed declarations; the required fields stay required, and `Api`'s service message is
`service_message`."""

from __future__ import annotations

import ast
import inspect
import json
import pickle
from pathlib import Path

import pytest

import sika
from sika import SikaError
from sika._ffi import sika_ffi_types as declared


class Shop:
    """A merchant's code under test: charges, and on an unknown outcome verifies before
    charging again."""

    def __init__(self, charge) -> None:
        self.charge = charge
        self.to_verify: list[str] = []

    def checkout(self, reference: str) -> str:
        try:
            self.charge(reference)
        except SikaError.ChargeOutcomeUnknown as error:
            self.to_verify.append(error.reference)
            return "verify before charging again"
        return "charged"


def test_b253_a_one_line_test_double_of_an_error_works():
    def charge(reference: str) -> None:
        # Before (issue 47): TypeError, request_id was required.
        raise sika.SikaError.ChargeOutcomeUnknown(reference=reference, reason="the connection broke")

    shop = Shop(charge)
    assert shop.checkout("ORDER-7") == "verify before charging again" and shop.to_verify == ["ORDER-7"]


# Each variant with only its required fields, and what its optional ones default to.
DOUBLES = [
    (SikaError.Unauthorized(), {"request_id": None}),
    (SikaError.TransactionNotFound(), {"request_id": None}),
    (SikaError.Api(http_status=409, service_message="Duplicate transaction reference"), {"request_id": None}),
    (SikaError.RateLimited(), {"retry_after_seconds": None, "request_id": None}),
    (SikaError.Timeout(), {"request_id": None}),
    (SikaError.Network(reason="reset"), {"request_id": None}),
    (SikaError.UnexpectedResponse(http_status=502, reason="not JSON"), {"request_id": None}),
    (SikaError.ChargeOutcomeUnknown(reference="R", reason="x"), {"request_id": None}),
]


@pytest.mark.parametrize("error, defaults", DOUBLES, ids=lambda value: type(value).__name__ if isinstance(value, SikaError) else "")
def test_b253_optional_fields_default_to_none_and_the_error_stays_whole(error, defaults):
    for field, value in defaults.items():
        assert getattr(error, field) is value
        assert inspect.signature(type(error)).parameters[field].default is None
    assert str(error) == type(error).message(error)  # the core's text
    # Rebuilt from its args (ADR 0043), through JSON and pickle, the same error.
    for again in (type(error)(*error.args), type(error)(*json.loads(json.dumps(error.args))), pickle.loads(pickle.dumps(error))):
        assert type(again) is type(error) and vars(again) == vars(error)


def test_b253_required_fields_stay_required_and_given_ones_are_kept():
    with pytest.raises(TypeError):
        SikaError.ChargeOutcomeUnknown(reference="R")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        SikaError.InvalidInput(field="email")  # type: ignore[call-arg]
    error = SikaError.ChargeOutcomeUnknown("R", "x", "req_1")
    assert error.request_id == "req_1" and error.args == ("R", "x", "req_1")
    assert SikaError.RateLimited(30).retry_after_seconds == 30
    with pytest.raises(TypeError):
        SikaError.Api(409, message="the old name")  # type: ignore[call-arg]


def test_b253_the_declarations_say_so():
    tree = ast.parse(Path(declared.__file__).read_text())
    (variant,) = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and node.name == "SikaError_ChargeOutcomeUnknown"]
    (init,) = [node for node in variant.body if isinstance(node, ast.FunctionDef) and node.name == "__init__"]
    assert ast.unparse(init.args) == "self, reference: str, reason: str, request_id: typing.Optional[str]=..."

"""B115: Jedi, the completion engine of IPython, Jupyter and Jedi-based editors, shows the
constructor parameters of every record (`ClientConfig(`, `ChargeRequest(`, `ExpectedPayment(`,
`AwaitOptions(`, ...) and of the clients, both from the source alone (`jedi.Script`: an
editor) and from the live objects (`jedi.Interpreter`: IPython, Jupyter); typing `name(`
offers `parameter=` completions (issue 27, item 5)."""

from __future__ import annotations

import dataclasses
import inspect

import jedi
import pytest

import sika

RECORDS = sorted(
    name for name in sika.__all__ if isinstance(value := getattr(sika, name), type) and dataclasses.is_dataclass(value)
)
CLASSES = [*RECORDS, "Client", "BlockingClient"]


def parameters(name: str) -> list[str]:
    """The constructor's parameters, as Python sees them."""
    signature = inspect.signature(getattr(sika, name).__init__)
    return [parameter for parameter in signature.parameters if parameter != "self"]


def test_b115_the_records_named_by_the_issue_are_checked():
    assert {"ClientConfig", "ChargeRequest", "ExpectedPayment", "AwaitOptions", "Transaction"} <= set(RECORDS)


@pytest.mark.parametrize("name", CLASSES)
def test_b115_jedi_shows_constructor_parameters_from_the_source(name):
    code = f"import sika\nsika.{name}("
    column = len(f"sika.{name}(")
    script = jedi.Script(code)
    signatures = script.get_signatures(2, column)
    assert [[parameter.name for parameter in signature.params] for signature in signatures] == [parameters(name)]
    offered = {completion.name for completion in script.complete(2, column)}
    assert {f"{parameter}=" for parameter in parameters(name)} <= offered, offered


@pytest.mark.parametrize("name", CLASSES)
def test_b115_jedi_shows_constructor_parameters_in_an_interpreter(name):
    code = f"sika.{name}("
    interpreter = jedi.Interpreter(code, [{"sika": sika}])
    signatures = interpreter.get_signatures(1, len(code))
    assert [[parameter.name for parameter in signature.params] for signature in signatures] == [parameters(name)]
    offered = {completion.name for completion in interpreter.complete(1, len(code))}
    assert {f"{parameter}=" for parameter in parameters(name)} <= offered, offered

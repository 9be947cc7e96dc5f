"""A float is never an amount (issue 27, ADR 0042).

UniFFI lowers the `Amount` custom type with `str(value)` (uniffi.toml), so a float was taken
at run time (`ExpectedPayment(amount=0.1 + 0.2, ...)` asked for `0.30000000000000004`), although
the docs say never to use one. Here:
- every record with an amount field (a field the generated `__init__` annotates `Amount`, or an
  optional one) refuses a float in it at construction, with a `TypeError` naming the record
  and the field; `decimal.Decimal`, `int` and `str` are taken as before (the core then checks
  the value: `InvalidInput` for text that is no amount);
- the `Amount` converter refuses a float too, for a field changed after construction.
"""

from __future__ import annotations

import inspect
import re
import types
import typing

from . import _shape

_AMOUNT = re.compile(r"\bAmount\b")


def refusal(where: str, value: object) -> TypeError:
    return TypeError(
        f"{where}: an amount is a decimal.Decimal, an int or a str (exact), never a float "
        f"(got {value!r}); write Decimal({str(value)!r}) if that is the amount you mean"
    )


def _refusing_floats(cls: type, fields: typing.Sequence[str]) -> None:
    generated = _shape.own(cls, "__init__")

    def __init__(self: object, *args: typing.Any, **kwargs: typing.Any) -> None:
        for name in fields:
            value = kwargs.get(name)
            if isinstance(value, float):
                raise refusal(f"sika.{cls.__name__}.{name}", value)
        generated(self, *args, **kwargs)

    __init__.__signature__ = inspect.signature(generated)  # type: ignore[attr-defined]
    __init__.__wrapped__ = generated  # type: ignore[attr-defined]
    __init__.__doc__ = generated.__doc__
    cls.__init__ = __init__  # type: ignore[misc]


def _converter_refusing_floats(ffi: types.ModuleType) -> None:
    converter = _shape.class_(ffi, "_UniffiFfiConverterTypeAmount")
    for method, parameters in (("write", ["value", "buf"]), ("check_lower", ["value"]), ("lower", ["value"])):
        generated = _shape.function(converter, method, parameters)

        def refusing(value: typing.Any, *rest: typing.Any, _generated: typing.Any = generated) -> typing.Any:
            if isinstance(value, float):
                raise refusal("sika: an amount set after construction", value)
            return _generated(value, *rest)

        setattr(converter, method, staticmethod(refusing))


def install(ffi: types.ModuleType, records: typing.Iterable[tuple[str, bool]]) -> None:
    for name, _ in records:
        cls = _shape.class_(ffi, name)
        init = _shape.own(cls, "__init__")
        fields = [
            field
            for field, hint in init.__annotations__.items()
            if field != "return" and isinstance(hint, str) and _AMOUNT.search(hint)
        ]
        if fields:
            _refusing_floats(cls, fields)
    _converter_refusing_floats(ffi)

"""No spelling of "is it paid?" is true for an unpaid outcome (issue 27, ADR 0042).

UniFFI's decisions (`PaymentCheck`, `WebhookDecision`: the enums with data that are not text)
are objects, so every value is truthy: `if client.confirm_payment(...):` shipped an unpaid
order, and so did `if check.is_confirmed:` with its parentheses forgotten (a bound method is
truthy). Here, from the generator's list of those enums (`sika_ffi_meta.DATA_ENUMS`), and for
`MerchantAction` (a flat `enum.Enum` whose every member is truthy too):
- `bool()` raises `TypeError` naming the check to use;
- each variant's `is_NAME` and `is_name` are properties: a `bool`, so `if check.is_confirmed:`
  is right, and `check.is_confirmed()` fails loudly (`'bool' object is not callable`).

UniFFI's generated `__eq__` of each variant and its converter's `write` and `check_lower` call
`value.is_NAME()`: the converter's are kept, given the value through a view whose `is_NAME()`
is the property's answer; `__eq__` is UniFFI's rule written with `isinstance` (the same variant,
equal fields, `NotImplemented` for another type).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing

from . import _shape


def _refuse(what: str, use: str) -> typing.Callable[[object], typing.NoReturn]:
    def __bool__(self: object) -> typing.NoReturn:
        raise TypeError(
            f"the truth of a sika.{what} is ambiguous: every value is an object, paid or not. "
            f"Use {use}. (`bool()` of a sika.{what} is refused so that no outcome reads as paid.)"
        )

    return __bool__


def _check(variant: type) -> property:
    def is_variant(self: object) -> bool:
        return isinstance(self, variant)

    return property(is_variant, doc=f"Whether this value is `{variant.__name__}` (a property: no parentheses).")


class _AsGenerated:
    """A decision as UniFFI's generated code reads it: its `is_NAME()` are methods."""

    __slots__ = ("_value",)

    def __init__(self, value: object) -> None:
        self._value = value

    def __getattr__(self, name: str) -> typing.Any:
        found = getattr(self._value, name)
        if name.startswith("is_") and isinstance(found, bool):
            return lambda: found
        return found


def _with_methods(generated: typing.Callable[..., typing.Any]) -> typing.Callable[..., typing.Any]:
    def through_view(value: typing.Any, *args: typing.Any) -> typing.Any:
        return generated(_AsGenerated(value), *args)

    return through_view


def _eq_of_fields(
    variant: type, enum: type, fields: typing.Sequence[str]
) -> typing.Callable[[object, object], typing.Any]:
    """UniFFI's `__eq__` of a variant, with `isinstance` for its `is_NAME()`: the same variant
    and equal fields; `NotImplemented` for another type."""

    def __eq__(self: object, other: object) -> typing.Any:
        if not isinstance(other, enum):
            return NotImplemented
        return isinstance(other, variant) and all(getattr(self, name) == getattr(other, name) for name in fields)

    return __eq__


def _as_json(value: object) -> dict[str, typing.Any]:
    """A decision as JSON for pydantic and FastAPI: `{"outcome": "CONFIRMED", ...its fields}`,
    a record field as the core's JSON (`to_dict()`: exact amounts), an action as its name."""
    result: dict[str, typing.Any] = {"outcome": type(value).__name__.rpartition(".")[2]}
    for field in dataclasses.fields(typing.cast(typing.Any, value)):
        found = getattr(value, field.name)
        to_dict = getattr(found, "to_dict", None)
        if to_dict is not None:
            found = to_dict()
        elif isinstance(found, enum.Enum):
            found = found.name
        result[field.name] = found
    return result


def _pydantic_schema(cls: type, source: typing.Any, handler: typing.Any) -> typing.Any:
    # Imported only when pydantic asks (FastAPI's `-> sika.PaymentCheck`): never at `import sika`.
    from pydantic_core import core_schema

    return core_schema.is_instance_schema(cls, serialization=core_schema.plain_serializer_function_ser_schema(_as_json))


def _pydantic_json_schema(variants: typing.Sequence[str]) -> typing.Any:
    """The JSON Schema of a decision as `_as_json` writes it (FastAPI's `/openapi.json`, `/docs`):
    an object whose `outcome` is a variant's name."""

    def schema(cls: type, core_schema: typing.Any, handler: typing.Any) -> dict[str, typing.Any]:
        return {
            "type": "object",
            "title": cls.__name__,
            "properties": {"outcome": {"type": "string", "enum": list(variants)}},
            "required": ["outcome"],
        }

    return classmethod(schema)


def install(ffi: types.ModuleType, data_enums: typing.Mapping[str, typing.Sequence[str]]) -> None:
    for name, variants in data_enums.items():
        decision = _shape.class_(ffi, name)
        decision.__bool__ = _refuse(  # type: ignore[attr-defined]
            name,
            f"isinstance(value, sika.{name}.{variants[0]}) or value.is_{variants[0].lower()} "
            "(a property: no parentheses)",
        )
        for variant in variants:
            made = _shape.attribute(decision, variant)
            for spelling in {f"is_{variant}", f"is_{variant.lower()}"}:
                _shape.function(decision, spelling, ["self"])
                setattr(decision, spelling, _check(made))
            nested = made.__bases__[0]
            _shape.function(nested, "__eq__", ["self", "other"])
            fields = [field.name for field in dataclasses.fields(nested)]
            nested.__eq__ = _eq_of_fields(made, decision, fields)
        decision.__get_pydantic_core_schema__ = classmethod(_pydantic_schema)  # type: ignore[attr-defined]
        decision.__get_pydantic_json_schema__ = _pydantic_json_schema(variants)  # type: ignore[attr-defined]
        converter = _shape.class_(ffi, f"_UniffiFfiConverterType{name}")
        write = _shape.function(converter, "write", ["value", "buf"])
        check_lower = _shape.function(converter, "check_lower", ["value"])
        converter.write = staticmethod(_with_methods(write))  # type: ignore[attr-defined]
        converter.check_lower = staticmethod(_with_methods(check_lower))  # type: ignore[attr-defined]
    action = _shape.class_(ffi, "MerchantAction")
    action.__bool__ = _refuse(  # type: ignore[attr-defined]
        "MerchantAction", "a comparison: `action is sika.MerchantAction.FULFIL_ORDER`"
    )

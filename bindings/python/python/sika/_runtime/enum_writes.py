"""An enum's fieldless variants are written as bytes encoded once (B59, ADR 0029).

UniFFI's `write` and `check_lower` of an enum test every variant in turn (`value.is_SUCCESSFUL()`,
`value.is_PENDING()`, ...): six method calls to lower any `TransactionStatus`. Here each enum
(not errors) with fieldless variants, listed by the generator (`sika_ffi_meta.ENUM_WRITES`),
gets their bytes as UniFFI's own `write` makes them; its `write` then finds a fieldless
variant by its class (a flat enum's member by itself) and writes those bytes, and its
`check_lower` accepts it at once. Anything else goes to UniFFI's `write` and `check_lower`,
kept on the converter as `generated_write` and `generated_check_lower` for the B59 test.
"""

from __future__ import annotations

import types
import typing

from . import _shape
from .calls import BytesWriter


def _encode(converter: typing.Any, enum_class: type, flat: bool, values: typing.Sequence[typing.Any]) -> None:
    generated_write = _shape.function(converter, "write", ["value", "buf"])
    generated_check_lower = _shape.function(converter, "check_lower", ["value"])
    _shape.own(converter, "write", staticmethod)
    _shape.own(converter, "check_lower", staticmethod)
    encoded: dict[typing.Any, bytes] = {}
    for value in values:
        writer = BytesWriter()
        generated_write(value, writer)
        encoded[value if flat else type(value)] = bytes(writer.data)
    get = encoded.get
    if flat:

        def write(value: typing.Any, buf: typing.Any) -> None:
            if type(value) is enum_class:
                buf.write(encoded[value])
            else:
                generated_write(value, buf)

        def check_lower(value: typing.Any) -> None:
            if type(value) is not enum_class:
                generated_check_lower(value)

    else:

        def write(value: typing.Any, buf: typing.Any) -> None:
            data = get(type(value))
            if data is None:
                generated_write(value, buf)
            else:
                buf.write(data)

        def check_lower(value: typing.Any) -> None:
            if type(value) not in encoded:
                generated_check_lower(value)

    converter.generated_write = staticmethod(generated_write)
    converter.generated_check_lower = staticmethod(generated_check_lower)
    converter.write = staticmethod(write)
    converter.check_lower = staticmethod(check_lower)


def install(ffi: types.ModuleType, enum_writes: typing.Iterable[tuple[str, str, bool, tuple[str, ...]]]) -> None:
    for converter, name, flat, variants in enum_writes:
        enum_class = _shape.class_(ffi, name)
        values = [getattr(enum_class, v) if flat else _shape.attribute(enum_class, v)() for v in variants]
        _encode(_shape.class_(ffi, f"_UniffiFfiConverter{converter}"), enum_class, flat, values)

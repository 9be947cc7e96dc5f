"""A bytes argument is lowered by its bytes, whatever buffer holds them (B80, issue 25 item 6).

UniFFI's generated `_UniffiFfiConverterBytes` accepts any object with the buffer protocol
(`check_lower` asks for a `memoryview`) and then writes `len(value)` as the byte count. For a
buffer of items wider than a byte (`memoryview(array.array('i', ...))`, a NumPy array) `len` is
the number of items, not of bytes: the core read a length that did not match the bytes written
and the call ended in an `InternalError`. Here `write` takes the buffer's bytes in C order
(`memoryview.tobytes()`, also for a non-contiguous view) and writes their count: the core gets
exactly the bytes the object holds. `bytes` and `bytearray` (items of one byte, contiguous) are
written as they are, with no copy.
"""

from __future__ import annotations

import types
import typing

from . import _shape


def install(ffi: types.ModuleType) -> None:
    converter = _shape.class_(ffi, "_UniffiFfiConverterBytes")
    _shape.function(converter, "write", ["value", "buf"])
    _shape.own(converter, "write", staticmethod)

    def write(value: typing.Any, buf: typing.Any) -> None:
        data = value if type(value) is bytes or type(value) is bytearray else memoryview(value).tobytes()
        buf.write_i32(len(data))
        buf.write(data)

    converter.write = staticmethod(write)  # type: ignore[attr-defined]

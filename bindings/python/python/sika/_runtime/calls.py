"""The synchronous call path: a status per call, read only on error, and arguments lowered
into one Rust buffer of their exact size (ADR 0029, B59).

As generated, every Rust call builds a `_UniffiRustCallStatus` with a `default()` buffer and a
second argument tuple, and every string, enum or record argument is lowered through
`_UniffiRustBufferBuilder`: a 16-byte Rust allocation, then a `reserve` call and a `memmove`
per field. Here:
- a call makes one zeroed status of its own and inspects it only when Rust set its code. A
  status per call measured as fast as a per-thread free list of reused ones, and is never
  shared (not by another thread while ctypes released the GIL, not by a finalizer's call in
  the middle of this one, not across a fork);
- an argument is written into a `bytearray` with the builder's own `struct` formats, then
  copied once into a Rust buffer of exactly its size by one call of the core
  (`sika_ffi_rust_buffer_of`, core/src/ffi/host_buffers.rs), which keeps the GIL: it never
  waits. The bytes are the builder's (B59 compares them).
"""

from __future__ import annotations

import ctypes
import struct
import types
import typing

from . import _shape

_I8 = struct.Struct(">b").pack
_U8 = struct.Struct(">B").pack
_I16 = struct.Struct(">h").pack
_U16 = struct.Struct(">H").pack
_I32 = struct.Struct(">i").pack
_U32 = struct.Struct(">I").pack
_I64 = struct.Struct(">q").pack
_U64 = struct.Struct(">Q").pack
_FLOAT = struct.Struct(">f").pack
_DOUBLE = struct.Struct(">d").pack
_SIZE_T = struct.Struct("@N").pack


class BytesWriter:
    """The writes of UniFFI's `_UniffiRustBufferBuilder` (same formats), into a bytearray."""

    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, value: bytes) -> None:
        self.data += value

    def write_i8(self, v: int) -> None:
        self.data += _I8(v)

    def write_u8(self, v: int) -> None:
        self.data += _U8(v)

    def write_i16(self, v: int) -> None:
        self.data += _I16(v)

    def write_u16(self, v: int) -> None:
        self.data += _U16(v)

    def write_i32(self, v: int) -> None:
        self.data += _I32(v)

    def write_u32(self, v: int) -> None:
        self.data += _U32(v)

    def write_i64(self, v: int) -> None:
        self.data += _I64(v)

    def write_u64(self, v: int) -> None:
        self.data += _U64(v)

    def write_float(self, v: float) -> None:
        self.data += _FLOAT(v)

    def write_double(self, v: float) -> None:
        self.data += _DOUBLE(v)

    def write_c_size_t(self, v: int) -> None:
        self.data += _SIZE_T(v)


def install(ffi: types.ModuleType) -> None:
    _shape.function(ffi, "_uniffi_rust_call_with_error", ["error_ffi_converter", "fn", "*args"])
    _shape.function(ffi, "_uniffi_rust_call", ["fn", "*args"])
    check_call_status = _shape.function(ffi, "_uniffi_check_call_status", ["error_ffi_converter", "call_status"])
    status_class: typing.Any = _shape.class_(ffi, "_UniffiRustCallStatus")
    library = _shape.attribute(ffi, "_UniffiLib")
    string = _shape.class_(ffi, "_UniffiFfiConverterString")
    _shape.function(string, "lower", ["value"])
    _shape.own(string, "lower", staticmethod)
    buffer = _shape.class_(ffi, "_UniffiConverterRustBuffer")
    _shape.function(buffer, "lower", ["cls", "value"])
    _shape.own(buffer, "lower", classmethod)
    rust_buffer = _shape.class_(ffi, "_UniffiRustBuffer")

    def _uniffi_rust_call_with_error(
        error_ffi_converter: typing.Any,
        fn: typing.Any,
        *args: typing.Any,
        _status: typing.Any = status_class,
        _byref: typing.Any = ctypes.byref,
        _check: typing.Any = check_call_status,
    ) -> typing.Any:
        call_status = _status()
        result = fn(*args, _byref(call_status))
        if call_status.code:
            _check(error_ffi_converter, call_status)
        return result

    # The core's buffer of bytes in one call, through a PyDLL handle: it never waits.
    buffer_of = ctypes.PyDLL(library._name, handle=library._handle).sika_ffi_rust_buffer_of
    buffer_of.argtypes = (ctypes.c_char_p, ctypes.c_size_t)
    buffer_of.restype = rust_buffer

    def rust_buffer_of(data: bytes) -> typing.Any:
        return buffer_of(data, len(data))

    def lower_string(value: str) -> typing.Any:
        return rust_buffer_of(value.encode("utf-8"))

    def lower_buffer(cls: typing.Any, value: typing.Any) -> typing.Any:
        writer = BytesWriter()
        cls.write(value, writer)
        return rust_buffer_of(bytes(writer.data))

    ffi._uniffi_rust_call_with_error = _uniffi_rust_call_with_error  # type: ignore[attr-defined]
    string.lower = staticmethod(lower_string)  # type: ignore[attr-defined]
    buffer.lower = classmethod(lower_buffer)  # type: ignore[attr-defined]

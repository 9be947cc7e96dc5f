"""Flat readers of returned buffers (ADR 0028).

UniFFI's Python lifts a returned buffer one value at a time through converter classes (each
field a method call, each integer a `struct.unpack` of a fresh slice). The generator writes
`sika_ffi_readers.py` from the interface's metadata: a reader function per record, enum (not
errors), optional, sequence and map, taking the buffer's bytes and an offset and returning the
value and the offset after it. Here each such converter's `lift` and `read` become its reader's;
UniFFI's `read` is kept, and `use_flat_readers(False)` puts it back (B58 compares both).
"""

from __future__ import annotations

import ctypes
import struct
import types
import typing

from . import _shape

Reader = typing.Callable[[bytes, int], tuple[typing.Any, int]]

# (converter, (flat read, flat lift), generated read), for `use_flat_readers`.
WIRED: list[tuple[typing.Any, tuple[typing.Any, typing.Any], typing.Any]] = []
_internal_error: type[Exception] = Exception
_stream_class: typing.Any = None


def read_generated(converter: typing.Any, b: bytes, o: int) -> tuple[typing.Any, int]:
    """A type the readers do not know (an object, an error): UniFFI's converter reads it."""
    stream = _stream_class(b, len(b))
    stream.offset = o
    return converter.read(stream), stream.offset


def read_all(reader: Reader, data: bytes) -> tuple[typing.Any, int]:
    try:
        value, end = reader(data, 0)
    except (struct.error, IndexError):
        raise _internal_error("read past end of rust buffer") from None
    if end > len(data):
        raise _internal_error("read past end of rust buffer")
    return value, end


def _wire(converter: typing.Any, reader: Reader) -> None:
    # The converter's `lift` (a returned buffer, freed here as UniFFI's `lift` frees it) and
    # `read` (a value nested in a buffer UniFFI's code reads) become the flat reader.
    _shape.own(converter, "read")
    if "lift" in converter.__dict__:
        raise _shape.mismatch(f"`{converter.__name__}` defines its own `lift`")
    generated_read = converter.__dict__["read"]
    string_at = ctypes.string_at

    def lift(rbuf: typing.Any) -> typing.Any:
        try:
            size = rbuf.len
            value, end = read_all(reader, string_at(rbuf.data, size) if size else b"")
            if end != size:
                raise RuntimeError(f"junk data left in buffer at end of consume_with_stream {size - end}")
        finally:
            rbuf.free()
        return value

    def read(stream: typing.Any) -> typing.Any:
        value, end = read_all(reader, stream.data[stream.offset : stream.len])
        stream.offset += end
        return value

    flat = (staticmethod(read), staticmethod(lift))
    WIRED.append((converter, flat, generated_read))
    converter.read, converter.lift = flat


def use_flat_readers(flat: bool) -> None:
    """`False` puts UniFFI's generated `read` (and inherited `lift`) back, `True` the readers."""
    for converter, (read, lift), generated_read in WIRED:
        if flat:
            converter.read, converter.lift = read, lift
        else:
            converter.read = generated_read
            if "lift" in converter.__dict__:
                del converter.lift


def install(ffi: types.ModuleType, readers: types.ModuleType) -> None:
    global _internal_error, _stream_class
    _internal_error = _shape.class_(ffi, "InternalError")
    _stream_class = _shape.class_(ffi, "_UniffiRustBufferStream")
    for converter, reader in readers.READERS:
        _wire(_shape.class_(ffi, f"_UniffiFfiConverter{converter}"), reader)

//! Python: the synchronous call path: a reused call status and one-shot argument lowering
//! (ADR 0029).
//!
//! As generated, every Rust call builds a new `_UniffiRustCallStatus` (and the empty
//! `_UniffiRustBuffer` in it) and a new argument tuple, and every string, enum or record
//! argument is lowered through `_UniffiRustBufferBuilder`: a 16-byte Rust allocation, then a
//! Rust `reserve` call and a `memmove` for each field written. Here:
//! - a call makes one zeroed status of its own (no `default()` buffer, no second argument
//!   tuple) and reads it only when Rust set an error. A status per call measured as fast as a
//!   per-thread free list of reused ones, and is never shared: not by another thread while
//!   ctypes released the GIL, not by a finalizer's call in the middle of this one, not across
//!   a fork;
//! - an argument is written into a Python `bytearray` with the builder's own `struct` formats,
//!   then copied once into one Rust buffer of exactly its size (a string: encoded once,
//!   copied once), made by one call of the core (`sika_ffi_rust_buffer_of`,
//!   core/src/ffi/host_buffers.rs) that reads the `bytes` object's own storage. The bytes are
//!   the builder's (test B59 compares them).

use crate::patch::replace_exactly;

const CALL: &str = r#"def _uniffi_rust_call(fn, *args):
    # Call a rust function
    return _uniffi_rust_call_with_error(None, fn, *args)

def _uniffi_rust_call_with_error(error_ffi_converter, fn, *args):
    # Call a rust function and handle any errors
    #
    # This function is used for rust calls that return Result<> and therefore can set the CALL_ERROR status code.
    # error_ffi_converter must be set to the _UniffiConverter for the error class that corresponds to the result.
    call_status = _UniffiRustCallStatus.default()

    args_with_error = args + (ctypes.byref(call_status),)
    result = fn(*args_with_error)
    _uniffi_check_call_status(error_ffi_converter, call_status)
    return result
"#;

const SIKA_CALL: &str = r#"def _uniffi_rust_call(fn, *args):
    # Call a rust function
    return _uniffi_rust_call_with_error(None, fn, *args)

def _uniffi_rust_call_with_error(error_ffi_converter, fn, *args):
    # Sika (ADR 0029): a zeroed status of this call's own (a per-thread free list of reused
    # statuses measured the same, 0.9 us a call either way, and could be shared by a
    # finalizer's call in the middle of this one), no `default()` buffer and no argument
    # tuple built twice; the status is only inspected when Rust set an error.
    call_status = _UniffiRustCallStatus()
    result = fn(*args, ctypes.byref(call_status))
    if call_status.code:
        _uniffi_check_call_status(error_ffi_converter, call_status)
    return result

class _UniffiSikaBytesWriter:
    # Sika (ADR 0029): the writes of `_UniffiRustBufferBuilder` (same formats), into a
    # bytearray, so that an argument is copied once into a Rust buffer of its exact size.
    __slots__ = ("data",)

    def __init__(self):
        self.data = bytearray()

    def write(self, value):
        self.data += value

    def write_i8(self, v):
        self.data += _UNIFFI_SIKA_I8(v)

    def write_u8(self, v):
        self.data += _UNIFFI_SIKA_U8(v)

    def write_i16(self, v):
        self.data += _UNIFFI_SIKA_I16(v)

    def write_u16(self, v):
        self.data += _UNIFFI_SIKA_U16(v)

    def write_i32(self, v):
        self.data += _UNIFFI_SIKA_I32(v)

    def write_u32(self, v):
        self.data += _UNIFFI_SIKA_U32(v)

    def write_i64(self, v):
        self.data += _UNIFFI_SIKA_I64(v)

    def write_u64(self, v):
        self.data += _UNIFFI_SIKA_U64(v)

    def write_float(self, v):
        self.data += _UNIFFI_SIKA_FLOAT(v)

    def write_double(self, v):
        self.data += _UNIFFI_SIKA_DOUBLE(v)

    def write_c_size_t(self, v):
        self.data += _UNIFFI_SIKA_SIZE_T(v)

_UNIFFI_SIKA_I8 = struct.Struct(">b").pack
_UNIFFI_SIKA_U8 = struct.Struct(">B").pack
_UNIFFI_SIKA_I16 = struct.Struct(">h").pack
_UNIFFI_SIKA_U16 = struct.Struct(">H").pack
_UNIFFI_SIKA_I32 = struct.Struct(">i").pack
_UNIFFI_SIKA_U32 = struct.Struct(">I").pack
_UNIFFI_SIKA_I64 = struct.Struct(">q").pack
_UNIFFI_SIKA_U64 = struct.Struct(">Q").pack
_UNIFFI_SIKA_FLOAT = struct.Struct(">f").pack
_UNIFFI_SIKA_DOUBLE = struct.Struct(">d").pack
_UNIFFI_SIKA_SIZE_T = struct.Struct("@N").pack

def _uniffi_sika_rust_buffer_of(data):
    # One call: the core copies the bytes object's own storage into a buffer of exactly its
    # size (core/src/ffi/host_buffers.rs; declared after the library's functions, below).
    return _uniffi_sika_buffer_of(data, len(data))
"#;

/// Where every function's argument types are set: the contract check follows them.
const AFTER_THE_DECLARATIONS: &str = "\n_uniffi_check_contract_api_version(_UniffiLib)\n";

/// The core's one-call buffer, bound once: it never waits, so it keeps the GIL (gil_held.rs).
const BUFFER_OF: &str = "
# Sika (patch/python/call.rs): the core's buffer of bytes in one call, bound once.
_uniffi_sika_buffer_of = ctypes.PyDLL(_UniffiLib._name, handle=_UniffiLib._handle).sika_ffi_rust_buffer_of
_uniffi_sika_buffer_of.argtypes = (ctypes.c_char_p, ctypes.c_size_t)
_uniffi_sika_buffer_of.restype = _UniffiRustBuffer
";

const STRING_LOWER: &str = r#"    @staticmethod
    def lower(value):
        with _UniffiRustBuffer.alloc_with_builder() as builder:
            builder.write(value.encode("utf-8"))
            return builder.finalize()
"#;

const SIKA_STRING_LOWER: &str = r#"    @staticmethod
    def lower(value):
        # Sika (ADR 0029): encoded once, copied once into a buffer of its exact size.
        return _uniffi_sika_rust_buffer_of(value.encode("utf-8"))
"#;

const BUFFER_LOWER: &str = r#"    @classmethod
    def lower(cls, value):
        with _UniffiRustBuffer.alloc_with_builder() as builder:
            cls.write(value, builder)
            return builder.finalize()"#;

const SIKA_BUFFER_LOWER: &str = r#"    @classmethod
    def lower(cls, value):
        # Sika (ADR 0029): written into a bytearray, copied once into a buffer of its exact size.
        writer = _UniffiSikaBytesWriter()
        cls.write(value, writer)
        return _uniffi_sika_rust_buffer_of(bytes(writer.data))
"#;

pub fn patch(text: String) -> Result<String, String> {
    let text = replace_exactly(&text, CALL, SIKA_CALL, 1, "`_uniffi_rust_call` and `_uniffi_rust_call_with_error`")?;
    let text = replace_exactly(&text, STRING_LOWER, SIKA_STRING_LOWER, 1, "the string converter's `lower`")?;
    let text = replace_exactly(&text, BUFFER_LOWER, SIKA_BUFFER_LOWER, 1, "`_UniffiConverterRustBuffer.lower`")?;
    replace_exactly(
        &text,
        AFTER_THE_DECLARATIONS,
        &format!("{BUFFER_OF}{AFTER_THE_DECLARATIONS}"),
        1,
        "the contract version check after the declarations",
    )
}

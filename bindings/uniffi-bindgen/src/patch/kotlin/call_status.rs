//! Kotlin: a Rust call's status lives in native memory reused per thread (ADR 0031).
//!
//! As generated, every call into Rust builds a fresh `UniffiRustCallStatus` JNA `Structure`
//! (two native allocations, each registered with JNA's cleaner, and a reflective field set-up
//! for the status and its nested `RustBuffer`), JNA writes it to native memory by reflection
//! before the call and reads it back by reflection after. A no-I/O call makes two such calls
//! (the argument's `RustBuffer` allocation, then the method), a verify several.
//!
//! Here the `external fun`s take the status as a plain `Pointer` (direct mapping passes it as
//! an address, with no reflection), pointing into a per-thread stack of 32-byte blocks allocated
//! once: a call takes the next block (so a call made while lowering an argument, or from a
//! callback Rust makes on this thread, takes its own), clears its code, and gives it back once
//! checked. The check reads the code byte, and on an error copies the error buffer out before
//! anything else runs, so the error is lifted exactly as before (same `SikaException`s, same
//! `InternalException` for a panic). The call status of callbacks from Rust (`UniffiRustCallStatus`
//! by reference) and of foreign futures is untouched.

use crate::patch::replace_exactly;

/// UniFFI's declaration of the status parameter of every `external fun` that takes one.
const STATUS_PARAMETER: &str = "uniffi_out_err: UniffiRustCallStatus, \n";

const CALL_WITH_ERROR: &str = "\
private inline fun <U, E: kotlin.Exception> uniffiRustCallWithError(errorHandler: UniffiRustCallStatusErrorHandler<E>, callback: (UniffiRustCallStatus) -> U): U {
    var status = UniffiRustCallStatus()
    val return_value = callback(status)
    uniffiCheckCallStatus(errorHandler, status)
    return return_value
}
";

const CALL_WITH_ERROR_PATCHED: &str = "\
// Sika: the call status is a block of this thread's stack of native blocks, not a JNA Structure
// (bindings/uniffi-bindgen/src/patch/kotlin/call_status.rs, ADR 0031).
private inline fun <U, E: kotlin.Exception> uniffiRustCallWithError(errorHandler: UniffiRustCallStatusErrorHandler<E>, callback: (Pointer) -> U): U {
    val statuses = uniffiCallStatuses.get()
    val status = statuses.push()
    try {
        val return_value = callback(status)
        uniffiCheckCallStatus(errorHandler, status)
        return return_value
    } finally {
        statuses.pop()
    }
}

// One thread's call statuses: a stack, because lowering an argument calls Rust (a `RustBuffer`
// allocation) before the outer call is made, and Rust may call back into Kotlin, which may call
// Rust, on the same thread. Only its own thread touches it; a call never suspends between
// `push` and `pop`, so a coroutine resumed on another thread uses that thread's stack.
internal class UniffiCallStatusStack {
    private val blocks = ArrayList<com.sun.jna.Memory>()
    private var depth = 0

    fun push(): Pointer {
        if (depth == blocks.size) {
            blocks.add(com.sun.jna.Memory(UNIFFI_CALL_STATUS_SIZE))
        }
        val block = blocks[depth]
        depth += 1
        // Rust writes the status only when the call fails: a cleared block is a success.
        block.clear()
        return block
    }

    fun pop() {
        depth -= 1
    }
}

private val uniffiCallStatuses: ThreadLocal<UniffiCallStatusStack> = ThreadLocal.withInitial { UniffiCallStatusStack() }

// The layout of RustCallStatus { code: i8, error_buf: RustBuffer }, as JNA lays it out for this
// platform: the error buffer is its last field, so it starts its size before the end.
private val UNIFFI_CALL_STATUS_SIZE: Long = UniffiRustCallStatus().size().toLong()
private val UNIFFI_CALL_STATUS_ERROR_BUF: Long = UNIFFI_CALL_STATUS_SIZE - RustBuffer().size().toLong()
";

const CHECK_SIGNATURE: &str = "private fun<E: kotlin.Exception> uniffiCheckCallStatus(errorHandler: UniffiRustCallStatusErrorHandler<E>, status: UniffiRustCallStatus) {
    if (status.isSuccess()) {
        return
    } else if (status.isError()) {
        throw errorHandler.lift(status.error_buf)
    } else if (status.isPanic()) {
        // when the rust code sees a panic, it tries to construct a rustbuffer
        // with the message.  but if that code panics, then it just sends back
        // an empty buffer.
        if (status.error_buf.len > 0) {
            throw InternalException(FfiConverterString.lift(status.error_buf))
        } else {
            throw InternalException(\"Rust panic\")
        }
    } else {
        throw InternalException(\"Unknown rust call status: $status.code\")
    }
}
";

const CHECK_PATCHED: &str = "private fun<E: kotlin.Exception> uniffiCheckCallStatus(errorHandler: UniffiRustCallStatusErrorHandler<E>, status: Pointer) {
    val code = status.getByte(0)
    if (code == UNIFFI_CALL_SUCCESS) {
        return
    }
    // Copied out before anything else calls Rust on this thread (lifting the error frees it).
    val errorBuf = RustBuffer.create(
        status.getLong(UNIFFI_CALL_STATUS_ERROR_BUF).toULong(),
        status.getLong(UNIFFI_CALL_STATUS_ERROR_BUF + 8).toULong(),
        status.getPointer(UNIFFI_CALL_STATUS_ERROR_BUF + 16),
    )
    if (code == UNIFFI_CALL_ERROR) {
        throw errorHandler.lift(errorBuf)
    } else if (code == UNIFFI_CALL_UNEXPECTED_ERROR) {
        // when the rust code sees a panic, it tries to construct a rustbuffer
        // with the message.  but if that code panics, then it just sends back
        // an empty buffer.
        if (errorBuf.len > 0) {
            throw InternalException(FfiConverterString.lift(errorBuf))
        } else {
            throw InternalException(\"Rust panic\")
        }
    } else {
        throw InternalException(\"Unknown rust call status: $code\")
    }
}
";

pub fn patch(text: String) -> Result<String, String> {
    let declared = text.matches(STATUS_PARAMETER).count();
    let external = text.matches("uniffi_out_err: ").count();
    if declared == 0 || declared != external {
        return Err(format!(
            "{declared} `external fun`s take the call status as UniFFI declares it, of {external} with a status"
        ));
    }
    let text = replace_exactly(&text, STATUS_PARAMETER, "uniffi_out_err: Pointer, \n", declared, "status parameters")?;
    let text = replace_exactly(&text, CALL_WITH_ERROR, CALL_WITH_ERROR_PATCHED, 1, "`uniffiRustCallWithError`")?;
    let text = replace_exactly(&text, CHECK_SIGNATURE, CHECK_PATCHED, 1, "`uniffiCheckCallStatus`")?;
    let text = replace_exactly(
        &text,
        "private inline fun <U> uniffiRustCall(callback: (UniffiRustCallStatus) -> U): U {\n",
        "private inline fun <U> uniffiRustCall(callback: (Pointer) -> U): U {\n",
        1,
        "`uniffiRustCall`",
    )?;
    replace_exactly(
        &text,
        "    completeFunc: (Long, UniffiRustCallStatus) -> F,\n",
        "    completeFunc: (Long, Pointer) -> F,\n",
        1,
        "the `completeFunc` of `uniffiRustCallAsync`",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generated(parameters: &str) -> String {
        format!(
            "{CALL_WITH_ERROR}{CHECK_SIGNATURE}private inline fun <U> uniffiRustCall(callback: (UniffiRustCallStatus) -> U): U {{\n    completeFunc: (Long, UniffiRustCallStatus) -> F,\n{parameters}"
        )
    }

    #[test]
    fn b176_every_status_parameter_becomes_a_pointer() {
        let text = generated(
            "    external fun f(`a`: Long,uniffi_out_err: UniffiRustCallStatus, \n    ): Byte\n    external fun g(uniffi_out_err: UniffiRustCallStatus, \n    ): Unit\n",
        );
        let patched = patch(text).unwrap();
        assert_eq!(patched.matches("uniffi_out_err: Pointer, \n").count(), 2);
        assert!(!patched.contains("(UniffiRustCallStatus) -> U"));
        assert!(patched.contains("statuses.push()"));
        assert!(patched.contains("status: Pointer) {\n    val code = status.getByte(0)"));
    }

    #[test]
    fn b176_a_status_parameter_of_another_shape_fails_the_build() {
        let text = generated("    external fun f(uniffi_out_err: UniffiRustCallStatus,\n    ): Byte\n");
        assert!(patch(text).is_err());
    }
}

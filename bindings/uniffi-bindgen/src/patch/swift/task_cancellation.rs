//! Swift: cancelling the `Task` of an async call cancels the Rust future.
//!
//! UniFFI 0.32's Swift never tells Rust that a Task was cancelled: a cancelled call keeps its
//! request (and connection) until the client's `timeoutMs`, and a cancelled call status ends in
//! `fatalError`. The Rust side supports cancelling a future (`ffi_*_rust_future_cancel_*`, which
//! the Kotlin bindings call on coroutine cancellation); this wires it in the way upstream
//! proposes (uniffi-rs #2771):
//! 1. `uniffiRustCallAsync` takes a `cancelFunc` and runs its poll loop inside
//!    `withTaskCancellationHandler`, whose handler cancels the Rust future (Rust then drops it:
//!    the request is abandoned and its connection closed);
//! 2. every call site passes the `ffi_*_rust_future_cancel_*` matching its `free` function;
//! 3. a cancelled call throws `CancellationError()` instead of crashing.

use crate::patch::replace_exactly;

/// The first and the last line of UniFFI's poll loop in `uniffiRustCallAsync`: the loop is
/// wrapped between them, not copied (the loop itself stays as generated).
const POLL_LOOP_FIRST: &str = "    var pollResult: Int8;\n    repeat {\n";
const POLL_LOOP_LAST: &str = "    } while pollResult != UNIFFI_RUST_FUTURE_POLL_READY\n";

pub fn patch(text: String) -> Result<String, String> {
    let text = replace_exactly(
        &text,
        "    freeFunc: (UInt64) -> (),\n    liftFunc: (F) throws -> T,",
        "    cancelFunc: @escaping @Sendable (UInt64) -> (),\n    freeFunc: (UInt64) -> (),\n    liftFunc: (F) throws -> T,",
        1,
        "the uniffiRustCallAsync signature",
    )?;
    let text = replace_exactly(
        &text,
        POLL_LOOP_FIRST,
        &format!(
            "    // Sika: a cancelled Task cancels the Rust future; Rust then wakes the pending poll as\n    \
             // ready and `completeFunc` reports the call as cancelled (CancellationError below).\n    \
             await withTaskCancellationHandler {{\n{POLL_LOOP_FIRST}"
        ),
        1,
        "the start of the poll loop of uniffiRustCallAsync",
    )?;
    let text = replace_exactly(
        &text,
        POLL_LOOP_LAST,
        &format!("{POLL_LOOP_LAST}    }} onCancel: {{\n        cancelFunc(rustFuture)\n    }}\n"),
        1,
        "the end of the poll loop of uniffiRustCallAsync",
    )?;
    let text = replace_exactly(
        &text,
        "            fatalError(\"Cancellation not supported yet\")",
        "            // Sika: only an async call whose Task was cancelled ends this way.\n            throw CancellationError()",
        1,
        "the CALL_CANCELLED case",
    )?;
    pass_cancel_functions(&text)
}

/// Adds `cancelFunc: ffi_X_rust_future_cancel_Y,` before each `freeFunc: ffi_X_rust_future_free_Y,`.
fn pass_cancel_functions(text: &str) -> Result<String, String> {
    let mut patched = String::with_capacity(text.len() + 4096);
    let mut sites = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(function) = trimmed.strip_prefix("freeFunc: ").and_then(|rest| rest.trim_end().strip_suffix(','))
            && function.starts_with("ffi_")
            && function.contains("_rust_future_free_")
        {
            let indent = &line[..line.len() - trimmed.len()];
            let cancel = function.replacen("_rust_future_free_", "_rust_future_cancel_", 1);
            patched.push_str(&format!("{indent}cancelFunc: {cancel},\n"));
            sites += 1;
        }
        patched.push_str(line);
    }
    let calls = text.matches("rustFutureFunc: {").count();
    if sites == 0 || sites != calls {
        return Err(format!("{sites} call sites patched, {calls} async calls in the generated code"));
    }
    Ok(patched)
}

#!/usr/bin/env python3
"""Makes the generated Swift async methods stop when their Swift Task is cancelled.

UniFFI 0.32's Swift never tells Rust that a Task was cancelled: a cancelled
`client.verifyTransaction(...)` keeps its request (and connection) until the client's
`timeoutMs`, and a cancelled call status would hit `fatalError("Cancellation not supported
yet")`. The Rust side already supports cancelling a future (`ffi_*_rust_future_cancel_*`, as
the Kotlin bindings use on coroutine cancellation). This patch, applied by scripts/build-ffi to
the freshly generated Sika.swift, wires it in the way upstream proposes (uniffi-rs #2771):

1. `uniffiRustCallAsync` takes a `cancelFunc` and runs its poll loop inside
   `withTaskCancellationHandler`, whose handler cancels the Rust future (Rust then drops it:
   the request is abandoned and its connection closed);
2. every call site passes the `ffi_sika_ffi_rust_future_cancel_*` matching its `free` function;
3. a cancelled call throws `CancellationError()` instead of crashing.

Presentation only: no behaviour of the SDK lives here. Each step checks that the generated code
still has the shape it expects and fails the build otherwise (a UniFFI upgrade must be looked at,
never silently half-patched).

    patch-task-cancellation.py GENERATED_SWIFT_FILE
"""

import re
import sys
import textwrap


def replace_once(text: str, old: str, new: str, what: str) -> str:
    count = text.count(old)
    if count != 1:
        sys.exit(f"patch-task-cancellation: expected one {what} in the generated Swift, found {count}")
    return text.replace(old, new)


def patch(text: str) -> str:
    text = replace_once(
        text,
        "    freeFunc: (UInt64) -> (),\n    liftFunc: (F) throws -> T,",
        "    cancelFunc: @escaping @Sendable (UInt64) -> (),\n"
        "    freeFunc: (UInt64) -> (),\n    liftFunc: (F) throws -> T,",
        "uniffiRustCallAsync signature",
    )
    poll_loop = """    var pollResult: Int8;
    repeat {
        pollResult = await withUnsafeContinuation {
            pollFunc(
                rustFuture,
                { handle, pollResult in
                    uniffiFutureContinuationCallback(handle: handle, pollResult: pollResult)
                },
                uniffiContinuationHandleMap.insert(obj: $0)
            )
        }
    } while pollResult != UNIFFI_RUST_FUTURE_POLL_READY
"""
    text = replace_once(
        text,
        poll_loop,
        "    // Sika: a cancelled Task cancels the Rust future; Rust then wakes the pending poll as\n"
        "    // ready and `completeFunc` reports the call as cancelled (CancellationError below).\n"
        "    await withTaskCancellationHandler {\n"
        + textwrap.indent(poll_loop, "    ")
        + "    } onCancel: {\n        cancelFunc(rustFuture)\n    }\n",
        "poll loop of uniffiRustCallAsync",
    )
    text = replace_once(
        text,
        '            fatalError("Cancellation not supported yet")',
        "            // Sika: only an async call whose Task was cancelled ends this way.\n"
        "            throw CancellationError()",
        "CALL_CANCELLED case",
    )
    call_site = re.compile(r"^(\s*)freeFunc: ffi_sika_ffi_rust_future_free_(\w+),$", re.MULTILINE)
    text, sites = call_site.subn(
        r"\1cancelFunc: ffi_sika_ffi_rust_future_cancel_\2,\n\1freeFunc: ffi_sika_ffi_rust_future_free_\2,", text
    )
    calls = text.count("rustFutureFunc: {")
    if sites == 0 or calls != sites:
        sys.exit(f"patch-task-cancellation: {sites} call sites patched, {calls} async calls in the generated Swift")
    return text


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    with open(path, encoding="utf-8") as file:
        text = file.read()
    with open(path, "w", encoding="utf-8") as file:
        file.write(patch(text))


if __name__ == "__main__":
    main()

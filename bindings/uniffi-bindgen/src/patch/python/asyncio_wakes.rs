//! Python asyncio: coalesced completion wake-ups and no per-poll loop work the call does not
//! need (docs/adr/0030-asyncio-wake-ups.md, B60). The Python is `asyncio_wakes.py`, which
//! replaces the generated continuation callback; `_uniffi_rust_call_async`'s poll loop is
//! replaced below. Both shapes are checked.
//!
//! - A continuation called from one of the SDK's threads queues its completion for its event
//!   loop and wakes the loop (`call_soon_threadsafe`) only when no wake-up is pending there;
//!   the loop-side drain resolves every queued completion. Generated: one self-pipe write, one
//!   handle and one loop iteration per completion.
//! - A continuation called inside the poll (the call was ready when polled, on the loop's own
//!   thread) records its poll code; the coroutine reads it when the poll returns and yields
//!   once (`asyncio.sleep(0)`: the same cancellation point and fairness) with no future and no
//!   `call_soon`. Generated: a future per poll, a `call_soon` and two loop iterations.
//! - The continuations' handles: a dict and a counter, each step atomic under the GIL, instead
//!   of the generated handle map's lock and a tuple per insert; one waiter object per call.
//! - Kept from `lifecycle.rs`'s earlier patch of the callback (B54): on the loop's own thread
//!   never `call_soon_threadsafe` (its self-pipe write releases the GIL), a completion for a
//!   closed loop dropped silently; and fork safety: the queues and waiters are the module's
//!   own and a forked child starts with none.

use crate::patch::replace_exactly;

const GENERATED_CALLBACK: &str = "\
# Continuation callback for async functions
# lift the return value or error and resolve the future, causing the async function to resume.
@_UNIFFI_RUST_FUTURE_CONTINUATION_CALLBACK
def _uniffi_continuation_callback(future_ptr, poll_code):
    (eventloop, future) = _UniffiContinuationHandleMap.remove(future_ptr)
    eventloop.call_soon_threadsafe(_uniffi_set_future_result, future, poll_code)
";

const GENERATED_POLL_LOOP: &str = "        eventloop = _uniffi_get_event_loop()

        # Loop and poll until we see a _UNIFFI_RUST_FUTURE_POLL_READY value
        while True:
            future = eventloop.create_future()
            ffi_poll(
                rust_future,
                _uniffi_continuation_callback,
                _UniffiContinuationHandleMap.insert((eventloop, future)),
            )
            poll_code = await future
            if poll_code == _UNIFFI_RUST_FUTURE_POLL_READY:
                break
";

const POLL_LOOP: &str = "        eventloop = _uniffi_get_event_loop()
        # Sika (patch/python/asyncio_wakes.rs): one waiter and one handle per call; a future
        # only when the poll did not complete the continuation itself.
        waiter = _SikaWaiter(_sika_loop_wakes(eventloop))
        # False only with uniffi_set_event_loop from another thread: then the loop's drain
        # may resolve the future at any time, so it exists before each poll.
        on_loop = _sika_get_running_loop() is eventloop
        handle = _sika_next_handle()

        # Loop and poll until we see a _UNIFFI_RUST_FUTURE_POLL_READY value
        while True:
            if not on_loop:
                waiter.future = eventloop.create_future()
            _sika_waiters[handle] = waiter
            ffi_poll(rust_future, _uniffi_continuation_callback, handle)
            poll_code = waiter.code
            if poll_code is None:
                future = waiter.future
                if future is None:
                    waiter.future = future = eventloop.create_future()
                poll_code = await future
                waiter.future = None
            else:
                waiter.code = None
                # Completed inside the poll: one turn of the loop before going on, as the
                # generated code's future gave (other tasks run, a cancellation lands here),
                # without a future and its call_soon.
                await asyncio.sleep(0)
            if poll_code == _UNIFFI_RUST_FUTURE_POLL_READY:
                break
";

pub fn patch(text: String) -> Result<String, String> {
    let text =
        replace_exactly(&text, GENERATED_CALLBACK, include_str!("asyncio_wakes.py"), 1, "the continuation callback")?;
    replace_exactly(&text, GENERATED_POLL_LOOP, POLL_LOOP, 1, "the poll loop of `_uniffi_rust_call_async`")
}

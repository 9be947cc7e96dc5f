"""Awaited calls: coalesced completion wake-ups, and no loop work a call does not need
(ADR 0030, B54, B60).

Sika's `_uniffi_rust_call_async` and continuation callback replace the generated ones:
- A continuation called from one of the SDK's threads queues its completion for its event loop
  and wakes the loop (`call_soon_threadsafe`) only when no wake-up is pending there; the
  loop-side drain resolves every queued completion. Generated: one self-pipe write, one handle
  and one loop iteration per completion.
- A continuation called inside the poll (the call was ready when polled, on the loop's own
  thread) records its poll code; the coroutine reads it when the poll returns and yields once
  (`asyncio.sleep(0)`: the same cancellation point and fairness) with no future and no
  `call_soon`. Generated: a future per poll, a `call_soon` and two loop iterations.
- On the loop's own thread never `call_soon_threadsafe`: its self-pipe write releases the GIL,
  and a daemon loop thread retaking it while the interpreter finalizes is ended by
  `pthread_exit`, whose unwind through the Rust frames crashed (B54). A completion for a
  closed loop is dropped silently.
- The continuations' handles are a dict and a counter, each step atomic under the GIL, not the
  generated handle map's lock and tuple; a forked child starts with none.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import os
import threading
import types
import typing
import weakref

from . import _shape
from .thread_states import keep_this_threads_state

_get_running_loop = asyncio._get_running_loop
# The continuation's handle: a key of `waiters`. No lock: a dict's store and pop and the
# counter's next are each one atomic step under the GIL.
_next_handle = itertools.count(1, 2).__next__
waiters: dict[int, Waiter] = {}


class LoopWakes:
    """The completions queued for one event loop by other threads, and whether a wake-up of the
    loop is pending. Found through a per-thread cache (a loop runs on one thread); a thread that
    changes loops makes a new one, which is correct (every guarantee holds per queue) and only
    coalesces less. Held by its calls in flight and its scheduled drain, and only weakly by the
    cache; it holds the loop weakly too: it must not keep a closed loop alive."""

    __slots__ = ("__weakref__", "loop_ref", "pending", "queue")

    def __init__(self, eventloop: asyncio.AbstractEventLoop) -> None:
        self.loop_ref = weakref.ref(eventloop)
        self.queue: collections.deque[tuple[Waiter, int]] = collections.deque()
        self.pending = False

    def drain(self) -> None:
        # Cleared before draining: a completion appended after this line is either drained
        # below or finds no wake-up pending and schedules one, so none is left behind.
        self.pending = False
        queue = self.queue
        # Only the loop's thread pops, so a non-empty queue has an item to pop.
        while queue:
            waiter, poll_code = queue.popleft()
            future = waiter.future
            if future is not None and not future.cancelled():
                future.set_result(poll_code)


class Waiter:
    """One async call's continuation: its loop's queue, the poll code when the continuation
    came inside the poll, else the future the coroutine awaits."""

    __slots__ = ("code", "future", "wakes")

    def __init__(self, wakes: LoopWakes) -> None:
        self.wakes = wakes
        self.code: int | None = None
        self.future: asyncio.Future[int] | None = None


_thread_state = threading.local()

# UniFFI's own, as generated, for the A/B bench (bench/python/ab_asyncio_wakes.py).
generated_rust_call_async: typing.Any = None
generated_continuation_callback: typing.Any = None


def _loop_wakes(eventloop: asyncio.AbstractEventLoop) -> LoopWakes:
    cached = getattr(_thread_state, "wakes", None)
    wakes = None if cached is None else cached()
    if wakes is None or wakes.loop_ref() is not eventloop:
        wakes = LoopWakes(eventloop)
        _thread_state.wakes = weakref.ref(wakes)
    return wakes


def _after_fork_in_child() -> None:
    # A forked child has only the forking thread: no completion of the parent's calls can come
    # there, and a queue or a pending flag copied from the parent must not hold back its loops.
    global waiters, _thread_state
    waiters = {}
    _thread_state = threading.local()


def _continuation(future_ptr: int, poll_code: int) -> None:
    waiter = waiters.pop(future_ptr)
    wakes = waiter.wakes
    eventloop = wakes.loop_ref()
    if eventloop is None:
        # The loop is gone, and with it every task that could await this call.
        return
    if _get_running_loop() is eventloop:
        future = waiter.future
        if future is None:
            # Inside the poll (the coroutine sets a future only once the poll returned).
            waiter.code = poll_code
        elif not future.done():
            # Outside any poll (a Rust waker run on this thread): resolve it on the next turn.
            eventloop.call_soon(_set_result, future, poll_code)
        return
    # From a thread of the SDK's runtime, which keeps its Python thread state (thread_states).
    keep_this_threads_state()
    wakes.queue.append((waiter, poll_code))
    if wakes.pending:
        if eventloop.is_closed():
            # Closed before its drain ran: nothing will drain this queue, and what it holds
            # would keep the abandoned calls alive.
            wakes.queue.clear()
        return
    wakes.pending = True
    try:
        eventloop.call_soon_threadsafe(wakes.drain)
    except RuntimeError:
        # The loop was closed with calls in flight: nobody can await them now, so their
        # completions are dropped, silently (B54), and so are later ones (above).
        if not eventloop.is_closed():
            wakes.pending = False
            raise
        wakes.queue.clear()


def _set_result(future: asyncio.Future[int], poll_code: int) -> None:
    if not future.cancelled():
        future.set_result(poll_code)


def install(ffi: types.ModuleType) -> None:
    callback_type = _shape.attribute(ffi, "_UNIFFI_RUST_FUTURE_CONTINUATION_CALLBACK")
    _shape.attribute(ffi, "_uniffi_continuation_callback")
    _shape.function(
        ffi,
        "_uniffi_rust_call_async",
        ["rust_future", "ffi_poll", "ffi_complete", "ffi_free", "lift_func", "error_ffi_converter"],
    )
    get_event_loop = _shape.function(ffi, "_uniffi_get_event_loop", [])
    poll_ready = _shape.attribute(ffi, "_UNIFFI_RUST_FUTURE_POLL_READY")
    rust_call_with_error: typing.Any = _shape.attribute(ffi, "_uniffi_rust_call_with_error")
    continuation = callback_type(_continuation)
    global generated_rust_call_async, generated_continuation_callback
    generated_rust_call_async = ffi._uniffi_rust_call_async
    generated_continuation_callback = ffi._uniffi_continuation_callback

    async def _uniffi_rust_call_async(
        rust_future: typing.Any,
        ffi_poll: typing.Any,
        ffi_complete: typing.Any,
        ffi_free: typing.Any,
        lift_func: typing.Any,
        error_ffi_converter: typing.Any,
    ) -> typing.Any:
        try:
            eventloop = get_event_loop()
            waiter = Waiter(_loop_wakes(eventloop))
            # False only with uniffi_set_event_loop from another thread: then the loop's drain
            # may resolve the future at any time, so it exists before each poll.
            on_loop = _get_running_loop() is eventloop
            handle = _next_handle()
            while True:
                if not on_loop:
                    waiter.future = eventloop.create_future()
                waiters[handle] = waiter
                ffi_poll(rust_future, continuation, handle)
                poll_code = waiter.code
                if poll_code is None:
                    future = waiter.future
                    if future is None:
                        waiter.future = future = eventloop.create_future()
                    poll_code = await future
                    waiter.future = None
                else:
                    waiter.code = None
                    # Completed inside the poll: one turn of the loop before going on, as a
                    # future would give (other tasks run, a cancellation lands here).
                    await asyncio.sleep(0)
                if poll_code == poll_ready:
                    break
            return lift_func(rust_call_with_error(error_ffi_converter, ffi_complete, rust_future))
        finally:
            ffi_free(rust_future)

    ffi._uniffi_continuation_callback = continuation  # type: ignore[attr-defined]
    ffi._uniffi_rust_call_async = _uniffi_rust_call_async  # type: ignore[attr-defined]
    os.register_at_fork(after_in_child=_after_fork_in_child)

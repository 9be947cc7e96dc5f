"""A `BlockingClient` call gives way to a signal's Python handler (issue 27, ADR 0042).

CPython runs a signal's Python handler only on the main thread, between bytecodes: a blocking
call that waited inside Rust delayed Ctrl-C, and gunicorn's SIGTERM and worker-timeout SIGABRT,
until it returned (15 s for a 15 s deadline), and went on sending meanwhile. As on the JVM (ADR
0036), each `BlockingClient` method here runs the async `Client` method's Rust future (the core's
own call, on the SDK's runtime) and waits for it on a lock, which a signal interrupts: the handler
runs at once, and if it raises (`KeyboardInterrupt`, gunicorn's `SystemExit`) the Rust future is
freed, which cancels the call (its connection closed, nothing sent after), and the exception
propagates. A handler that returns lets the wait go on.

Only the main thread takes this path: a signal's handler never runs on another thread, so a call
there is the core's own blocking call, on its caller's thread, as before (ADR 0010).
Each `BlockingClient` holds an async `Client` made from the same configuration (`_sika_async`),
shut down with it. A `BlockingLedger` takes the same path (its `reconcile` is the longest blocking
call there is): its companion is `async_ledger()`, the same ledger with async methods, and a
`BlockingClient` argument is passed as its async companion. Once the interpreter exits (`atexit`), a call is the core's own blocking call
again: the SDK no longer wakes Python from its threads then (ADR 0013). The methods keep their signatures and carry the async method's documentation.
"""

from __future__ import annotations

import atexit
import inspect
import itertools
import os
import threading
import types
import typing

from . import _shape
from .thread_states import keep_this_threads_state

_state = threading.local()
_next_handle = itertools.count(2, 2).__next__


class _Wait:
    """One poll's continuation: a lock released when it comes, and its poll code."""

    __slots__ = ("code", "lock")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lock.acquire()
        self.code = -1


_waits: dict[int, _Wait] = {}


def _continuation(handle: int, poll_code: int) -> None:
    wait = _waits.pop(handle, None)
    if wait is not None:
        if threading.get_ident() != threading.main_thread().ident:
            # Not inside the poll (the main thread's own call): a thread of the SDK's runtime,
            # which keeps its Python thread state (thread_states).
            keep_this_threads_state()
        wait.code = poll_code
        wait.lock.release()


def _after_fork_in_child() -> None:
    global _waits
    _waits = {}


class _Exit:
    """Whether the interpreter is exiting: from the `atexit` hook registered with
    `lifecycle`'s, the SDK no longer wakes Python from its threads (ADR 0013), so a blocking
    call made then (an application's own `atexit` handler) is the core's own blocking call,
    on the caller's thread, as before this runtime."""

    started = False


def _exiting() -> None:
    _Exit.started = True


def _described(
    method: typing.Any, owner: str, name: str, asynchronous: typing.Any, generated: typing.Any
) -> typing.Any:
    """`method` as `OWNER.NAME`: the generated signature, the async method's documentation (the
    generated text is only "See `Client.NAME`")."""
    method.__name__ = name
    method.__qualname__ = f"{owner}.{name}"
    method.__doc__ = asynchronous.__doc__
    method.__signature__ = inspect.signature(generated)
    method.__wrapped__ = generated
    return method


_Companion = typing.Callable[[typing.Any], typing.Any]
# A `BlockingClient` argument without an async companion: the call takes the generated path.
_NO_COMPANION = object()


def _client_companion(value: typing.Any) -> typing.Any:
    """A `BlockingClient` argument's async companion (`_NO_COMPANION` when it has none); any
    other argument as it is."""
    if type(value).__name__ == "BlockingClient":
        return getattr(value, "_sika_async", _NO_COMPANION)
    return value


def _blocking_method(
    owner: str, name: str, asynchronous: typing.Any, generated: typing.Any, companion_of: _Companion
) -> typing.Any:
    def method(self: typing.Any, *args: typing.Any, **kwargs: typing.Any) -> typing.Any:
        # CPython runs signal handlers on the main thread only: a call on any other thread
        # cannot be interrupted by one, so it stays the core's own blocking call on its
        # caller's thread (ADR 0010), with no hand-over between threads per poll.
        if _Exit.started or threading.current_thread() is not threading.main_thread():
            return generated(self, *args, **kwargs)
        companion = companion_of(self)
        passed = [_client_companion(value) for value in args]
        named = {key: _client_companion(value) for key, value in kwargs.items()}
        if companion is None or any(value is _NO_COMPANION for value in [*passed, *named.values()]):
            return generated(self, *args, **kwargs)
        coroutine = asynchronous(companion, *passed, **named)
        _state.blocking = True
        try:
            coroutine.send(None)
        except StopIteration as done:
            return done.value
        finally:
            _state.blocking = False
        coroutine.close()
        raise RuntimeError(f"sika.{owner}.{name}: the call did not complete synchronously")

    return _described(method, owner, name, asynchronous, generated)


def _view_method(name: str, asynchronous: typing.Any, generated: typing.Any) -> typing.Any:
    def method(self: typing.Any, *args: typing.Any, **kwargs: typing.Any) -> typing.Any:
        view = generated(self, *args, **kwargs)
        companion = getattr(self, "_sika_async", None)
        if companion is not None:
            view._sika_async = asynchronous(companion, *args, **kwargs)
        return view

    return _described(method, "BlockingClient", name, asynchronous, generated)


def install(ffi: types.ModuleType) -> None:
    blocking = _shape.class_(ffi, "BlockingClient")
    client: typing.Any = _shape.class_(ffi, "Client")
    callback_type = _shape.attribute(ffi, "_UNIFFI_RUST_FUTURE_CONTINUATION_CALLBACK")
    poll_ready = _shape.attribute(ffi, "_UNIFFI_RUST_FUTURE_POLL_READY")
    rust_call_with_error: typing.Any = _shape.attribute(ffi, "_uniffi_rust_call_with_error")
    awaited = _shape.function(
        ffi,
        "_uniffi_rust_call_async",
        ["rust_future", "ffi_poll", "ffi_complete", "ffi_free", "lift_func", "error_ffi_converter"],
    )
    continuation = callback_type(_continuation)
    state = _state

    def wait_for(
        rust_future: typing.Any,
        ffi_poll: typing.Any,
        ffi_complete: typing.Any,
        ffi_free: typing.Any,
        lift_func: typing.Any,
        error_ffi_converter: typing.Any,
    ) -> typing.Any:
        try:
            while True:
                wait = _Wait()
                handle = _next_handle()
                _waits[handle] = wait
                ffi_poll(rust_future, continuation, handle)
                try:
                    # Interrupted by a signal: its handler runs here; if it raises, the call
                    # ends (the future is freed below, which cancels it in the core).
                    wait.lock.acquire()
                except BaseException:
                    _waits.pop(handle, None)
                    raise
                if wait.code == poll_ready:
                    break
            return lift_func(rust_call_with_error(error_ffi_converter, ffi_complete, rust_future))
        finally:
            ffi_free(rust_future)

    async def _uniffi_rust_call_async(
        rust_future: typing.Any,
        ffi_poll: typing.Any,
        ffi_complete: typing.Any,
        ffi_free: typing.Any,
        lift_func: typing.Any,
        error_ffi_converter: typing.Any,
    ) -> typing.Any:
        if getattr(state, "blocking", False):
            state.blocking = False
            return wait_for(rust_future, ffi_poll, ffi_complete, ffi_free, lift_func, error_ffi_converter)
        return await awaited(rust_future, ffi_poll, ffi_complete, ffi_free, lift_func, error_ffi_converter)

    ffi._uniffi_rust_call_async = _uniffi_rust_call_async  # type: ignore[attr-defined]

    generated_init = _shape.function(blocking, "__init__", ["self", "config"])
    generated_from_env = _shape.function(blocking, "from_env", ["cls"])
    generated_shutdown = _shape.function(blocking, "shutdown", ["self"])

    def __init__(self: typing.Any, config: typing.Any) -> None:
        generated_init(self, config)
        self._sika_async = client(config)

    def from_env(cls: typing.Any) -> typing.Any:
        made = generated_from_env(cls)
        made._sika_async = client.from_env()
        return made

    def shutdown(self: typing.Any) -> None:
        companion = getattr(self, "_sika_async", None)
        if companion is not None:
            companion.shutdown()
        generated_shutdown(self)

    __init__.__signature__ = inspect.signature(generated_init)  # type: ignore[attr-defined]
    __init__.__doc__ = generated_init.__doc__
    from_env.__doc__ = generated_from_env.__doc__
    shutdown.__doc__ = generated_shutdown.__doc__
    blocking.__init__ = __init__  # type: ignore[misc]
    blocking.from_env = classmethod(from_env)  # type: ignore[attr-defined]
    blocking.shutdown = shutdown  # type: ignore[attr-defined]

    for name, generated in list(vars(blocking).items()):
        if (
            name.startswith("_")
            or name in ("shutdown", "from_env")
            or not inspect.isfunction(generated)
            or generated.__module__ != ffi.__name__
        ):
            continue
        asynchronous = _shape.attribute(client, name)
        if inspect.iscoroutinefunction(asynchronous):
            setattr(blocking, name, _blocking_method("BlockingClient", name, asynchronous, generated, _own_companion))
        else:
            # A method that makes a view of the client (`with_options`): the view's async
            # companion is the same view of this client's companion.
            setattr(blocking, name, _view_method(name, asynchronous, generated))
    _install_ledger(ffi)
    os.register_at_fork(after_in_child=_after_fork_in_child)
    atexit.register(_exiting)


def _own_companion(made: typing.Any) -> typing.Any:
    return getattr(made, "_sika_async", None)


def _ledger_companion(made: typing.Any) -> typing.Any:
    """The `BlockingLedger`'s `async_ledger()`, made on its first interruptible call: the same
    ledger (its store, its connections), so nothing is opened twice."""
    companion = getattr(made, "_sika_async", None)
    if companion is None:
        companion = made._sika_async = made.async_ledger()
    return companion


def _install_ledger(ffi: types.ModuleType) -> None:
    blocking_ledger = _shape.class_(ffi, "BlockingLedger")
    ledger = _shape.class_(ffi, "Ledger")
    _shape.function(blocking_ledger, "async_ledger", ["self"])
    for name, generated in list(vars(blocking_ledger).items()):
        if name.startswith("_") or name == "async_ledger" or not inspect.isfunction(generated):
            continue
        asynchronous = _shape.attribute(ledger, name)
        if not inspect.iscoroutinefunction(asynchronous):
            raise _shape.mismatch(f"`Ledger.{name}` is not a coroutine function")
        method = _blocking_method("BlockingLedger", name, asynchronous, generated, _ledger_companion)
        setattr(blocking_ledger, name, method)

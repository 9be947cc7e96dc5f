"""A blocking call on the main thread gives way to a signal's Python handler (issue 27; ADR 0042,
ADR 0070).

CPython runs a signal's Python handler only on the main thread, between bytecodes: a blocking
call that waited inside Rust delayed Ctrl-C, and gunicorn's SIGTERM and worker-timeout SIGABRT,
until it returned (15 s for a 15 s deadline), and went on sending meanwhile. So a `BlockingClient`
or `BlockingLedger` call on the main thread watches a pipe that CPython writes to when a signal
comes (`signal.set_wakeup_fd`, set for the call and restored after). The call is still the
core's own, on its caller's thread (ADR 0010); when the pipe is readable, the core returns to
Python outside its runtime and calls `_give_way`, which drains the pipe and runs the handlers
(`PyErr_CheckSignals`). A handler that returns lets the same call resume; one that raises
(`KeyboardInterrupt`, gunicorn's `SystemExit`) makes the core drop the call, which closes its
connection (nothing sent after), and its exception propagates from the call
(core/src/interruptions.rs). A charge dropped so after its request may have reached the service
is `ChargeOutcomeUnknown` in the core (ADR 0075): the handler's exception is raised with it as
its `__cause__`.

CPython runs a pending handler as soon as `_give_way`'s frame starts, before its first line:
a handler that raises there ends the callback, and ctypes reports the exception as unraisable
and returns nothing. So `_give_way` says "go on" by setting a flag the core reads, never by
its result, and during a watched call `sys.unraisablehook` keeps such an exception for the
call to raise.

ADR 0042's first form waited for the async client's future on a lock instead: every call then
crossed to the SDK's runtime threads and back, which made a call on the main thread 1.48x the
time of one on another thread.

A signal's handler never runs on another thread, so a call there does not watch. A wakeup fd
another library set (an event loop's) is put back after the call, with the signal numbers that
came meanwhile written to it.
"""

from __future__ import annotations

import ctypes
import inspect
import os
import signal
import sys
import threading
import types
import typing

from . import _shape


class _Call:
    """One watched call of the main thread: the wakeup fd it replaced, and the exception a
    signal's handler raised during it."""

    __slots__ = ("previous_fd", "previous_hook", "raised")

    def __init__(self, previous_fd: int) -> None:
        self.previous_fd = previous_fd
        self.previous_hook = sys.unraisablehook
        self.raised: BaseException | None = None


# The main thread's watched calls, innermost last (a handler may make a call of its own).
_calls: list[_Call] = []
# `PyErr_CheckSignals`, with the GIL held: runs the pending handlers, raises what one raises.
_check_signals = ctypes.pythonapi.PyErr_CheckSignals
_check_signals.argtypes = []
_check_signals.restype = ctypes.c_int
# Set by `_give_way` when it went to its end: the core clears it before each call, and resumes
# the call only if it is set then.
_went_on = ctypes.c_int8(0)


class _Pipe:
    """This process's pipe for the main thread's calls (a forked child opens its own): CPython
    writes a signal's number to its write end, the core watches its read end."""

    pid = -1
    read_end = -1
    write_end = -1

    @classmethod
    def drain(cls) -> bytes:
        taken = b""
        while True:
            try:
                chunk = os.read(cls.read_end, 512)
            except BlockingIOError:
                return taken
            if not chunk:
                return taken
            taken += chunk


def _give_way() -> None:
    """Called by the core, on the main thread, when a watched call's pipe is readable: runs the
    signals' handlers, and lets the call resume if none raised."""
    if not _calls:
        # A call of the main thread that does not watch (a ledger's constructor): the wakeup
        # fd is not this pipe, so what it holds is left from an earlier call's signals.
        _Pipe.drain()
        _went_on.value = 1
        return
    call = _calls[-1]
    try:
        _pass_on(call.previous_fd)
        _check_signals()
    except BaseException as error:  # noqa: BLE001 - KeyboardInterrupt and SystemExit above all
        call.raised = error
        return
    _went_on.value = 1


def _pass_on(previous_fd: int) -> None:
    """Drains the pipe; another library's wakeup fd, replaced for the call, learns of the signals
    as if it had stayed set."""
    numbers = _Pipe.drain()
    if numbers and previous_fd not in (-1, _Pipe.write_end):
        try:
            os.write(previous_fd, numbers)
        except OSError:
            pass


def _keep_unraisable(unraisable: typing.Any) -> None:
    """`sys.unraisablehook` during a watched call: a handler's exception that ended `_give_way`
    before its first line is the call's to raise; anything else goes to the hook it replaced."""
    if _calls and _ended_give_way(unraisable):
        if _calls[-1].raised is None:
            _calls[-1].raised = unraisable.exc_value
        return
    # The outermost call's: an inner call's (a handler's own call) is this hook.
    (_calls[0].previous_hook if _calls else sys.__unraisablehook__)(unraisable)


def _ended_give_way(unraisable: typing.Any) -> bool:
    """Whether `unraisable` is an exception that ended `_give_way`: its traceback holds that
    frame (ctypes names the callback as the object only before Python 3.13)."""
    traceback = unraisable.exc_traceback
    while traceback is not None:
        if traceback.tb_frame.f_code is _give_way.__code__:
            return True
        traceback = traceback.tb_next
    return unraisable.object is _give_way


def install(ffi: types.ModuleType) -> None:
    blocking = _shape.class_(ffi, "BlockingClient")
    client: typing.Any = _shape.class_(ffi, "Client")
    blocking_ledger = _shape.class_(ffi, "BlockingLedger")
    errors: typing.Any = _shape.attribute(ffi, "SikaError")
    cancelled: typing.Any = _shape.attribute(errors, "Cancelled")
    # A charge dropped after it may have been sent ends so, not `Cancelled` (ADR 0075).
    outcome_unknown: typing.Any = _shape.attribute(errors, "ChargeOutcomeUnknown")
    library: typing.Any = _shape.attribute(ffi, "_UniffiLib")
    watch_this_thread = _shape.attribute(library, "sika_ffi_watch_this_thread")
    give_way_type = ctypes.CFUNCTYPE(None)
    watch_this_thread.argtypes = [ctypes.c_int, give_way_type, ctypes.POINTER(ctypes.c_int8)]
    watch_this_thread.restype = None
    give_way = give_way_type(_give_way)

    def watch_main_thread() -> None:
        """This process's pipe, and the main thread's calls watching it (once per process)."""
        if _Pipe.pid == os.getpid():
            return
        read_end, write_end = os.pipe()
        # CPython writes to the wakeup fd from its signal handler: it must never block.
        os.set_blocking(read_end, False)
        os.set_blocking(write_end, False)
        _Pipe.read_end, _Pipe.write_end, _Pipe.pid = read_end, write_end, os.getpid()
        watch_this_thread(read_end, give_way, ctypes.byref(_went_on))

    def after_fork_in_child() -> None:
        # The parent's pipe is shared with it: the child's signals must not wake the parent's
        # calls, nor the parent's the child's. The forking thread is the child's main thread.
        if _Pipe.pid == -1:
            return
        watch_this_thread(-1, give_way_type(), None)
        if threading.current_thread() is threading.main_thread():
            current = signal.set_wakeup_fd(-1)
            if current != _Pipe.write_end:
                signal.set_wakeup_fd(current)
        os.close(_Pipe.read_end)
        os.close(_Pipe.write_end)
        _Pipe.pid = _Pipe.read_end = _Pipe.write_end = -1
        _calls.clear()

    def watched(owner: str, name: str, generated: typing.Any, asynchronous: typing.Any) -> typing.Any:
        def method(self: typing.Any, *args: typing.Any, **kwargs: typing.Any) -> typing.Any:
            if threading.current_thread() is not threading.main_thread():
                return generated(self, *args, **kwargs)
            watch_main_thread()
            try:
                call = _Call(signal.set_wakeup_fd(_Pipe.write_end, warn_on_full_buffer=False))
            except ValueError:
                # Not the main interpreter (a sub-interpreter's main thread): no wakeup fd there.
                return generated(self, *args, **kwargs)
            _calls.append(call)
            sys.unraisablehook = _keep_unraisable
            try:
                return generated(self, *args, **kwargs)
            except cancelled:
                if call.raised is not None:
                    raise call.raised from None
                raise
            except outcome_unknown as unknown:
                # The handler's exception is the host's to raise (KeyboardInterrupt, gunicorn's
                # SystemExit), with the charge that may have gone through as its cause: the core
                # logged it at WARN with its reference and request id (ADR 0075).
                if call.raised is not None:
                    raise call.raised from unknown
                raise
            finally:
                _calls.pop()
                sys.unraisablehook = call.previous_hook
                signal.set_wakeup_fd(call.previous_fd)
                # A signal's number written after the last drain (its handler ran in Python,
                # before or after the core's wait): this call's, not the next one's.
                _pass_on(call.previous_fd)

        method.__name__ = name
        method.__qualname__ = f"{owner}.{name}"
        # The generated text is only "See `Client.NAME`": the async twin's documentation.
        method.__doc__ = asynchronous.__doc__
        method.__signature__ = inspect.signature(generated)  # type: ignore[attr-defined]
        method.__wrapped__ = generated  # type: ignore[attr-defined]
        return method

    # The network calls: the methods whose async twin is a coroutine (`with_options` makes a
    # view, `shutdown` ends the client), and every ledger operation.
    for name, generated in list(vars(blocking).items()):
        if name.startswith("_") or not inspect.isfunction(generated) or generated.__module__ != ffi.__name__:
            continue
        asynchronous = getattr(client, name, None)
        if inspect.iscoroutinefunction(asynchronous):
            setattr(blocking, name, watched("BlockingClient", name, generated, asynchronous))
        elif asynchronous is not None and name != "shutdown":
            # A call that sends nothing (`with_options`): its documentation only.
            generated.__doc__ = asynchronous.__doc__
    ledger = _shape.class_(ffi, "Ledger")
    for name, generated in list(vars(blocking_ledger).items()):
        # `async_ledger` makes the async ledger: nothing to wait for.
        if name.startswith("_") or name == "async_ledger" or not inspect.isfunction(generated):
            continue
        asynchronous = _shape.attribute(ledger, name)
        if inspect.iscoroutinefunction(asynchronous):
            setattr(blocking_ledger, name, watched("BlockingLedger", name, generated, asynchronous))
        else:
            # A call that reads a setting (`renew_interval_ms`): nothing to wait for, its
            # documentation only.
            generated.__doc__ = asynchronous.__doc__
    os.register_at_fork(after_in_child=after_fork_in_child)

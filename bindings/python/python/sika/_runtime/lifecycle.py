"""The clients' lifecycle, and the module's at interpreter exit (ADR 0013).

- `BlockingClient` gets `close()` and `with`, `Client` gets `close()` and `async with`, over the
  core's exported `shutdown()` (UniFFI cannot export a context manager).
- Every object's `__del__` does nothing once the interpreter is finalizing: the generated
  module's globals can be wiped before the last reference to an object goes, and freeing it
  then printed `Exception ignored in ... __del__`. The process is ending; the operating system
  takes the memory and closes the sockets.
- At exit (`atexit`, before CPython finalizes) the SDK's threads stop waking event loops, and
  the wakes in progress are waited for: a thread entering Python during finalization is ended
  mid-call, which aborted the process (core/src/ffi/wake_gate.rs).
"""

from __future__ import annotations

import atexit
import sys
import types
import typing

from . import _shape


def _guarded_del(generated: typing.Callable[[object], None]) -> typing.Callable[[object], None]:
    def __del__(
        self: object,
        _is_finalizing: typing.Callable[[], bool] = sys.is_finalizing,
        _generated: typing.Callable[[object], None] = generated,
    ) -> None:
        if _is_finalizing():
            return
        _generated(self)

    return __del__


def _close(self: typing.Any) -> None:
    """Shuts the client down (`shutdown()`); calling it again does nothing."""
    self.shutdown()


def _enter(self: typing.Any) -> typing.Any:
    return self


def _exit(self: typing.Any, *exc_info: object) -> None:
    self.shutdown()


async def _aenter(self: typing.Any) -> typing.Any:
    return self


async def _aexit(self: typing.Any, *exc_info: object) -> None:
    self.shutdown()


def install(ffi: types.ModuleType, objects: typing.Iterable[str]) -> None:
    for name in objects:
        cls = _shape.class_(ffi, name)
        cls.__del__ = _guarded_del(_shape.function(cls, "__del__", ["self"]))  # type: ignore[attr-defined]
    blocking = _shape.class_(ffi, "BlockingClient")
    client = _shape.class_(ffi, "Client")
    for cls in (blocking, client):
        _shape.function(cls, "shutdown", ["self"])
        cls.close = _close  # type: ignore[attr-defined]
    blocking.__enter__ = _enter  # type: ignore[attr-defined]
    blocking.__exit__ = _exit  # type: ignore[attr-defined]
    client.__aenter__ = _aenter  # type: ignore[attr-defined]
    client.__aexit__ = _aexit  # type: ignore[attr-defined]

    library = _shape.attribute(ffi, "_UniffiLib")
    close_host_wakes = _shape.attribute(library, "sika_ffi_close_host_wakes")
    close_host_wakes.argtypes = []
    close_host_wakes.restype = None
    atexit.register(close_host_wakes)

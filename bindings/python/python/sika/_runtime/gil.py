"""The library functions that never wait are called with the GIL held (B54, B59; ADR 0013, 0032).

UniFFI loads the library with `ctypes.CDLL`, whose every call releases the GIL and takes it
back. That costs a crash at exit (a poll that finds its call answered calls the continuation
back inline, inside Rust, where ctypes' thunk retakes the GIL: a daemon thread doing so while
the interpreter finalizes is ended by `pthread_exit`, whose unwind through Rust frames crashed)
and time (a release and a retake per call). The functions listed by the generator in
`sika_ffi_meta.FUNCTIONS_KEEPING_THE_GIL`, chosen from the metadata by a rule (ADR 0033: the
futures' and buffers' scaffolding, the async methods, which only make a future, the methods of
records and enums, and the free functions that compute a value from plain arguments), are
re-bound through a `PyDLL` handle of the same library, which keeps the GIL. Every other
function still releases it.
"""

from __future__ import annotations

import ctypes
import types
import typing

from . import _shape


def install(ffi: types.ModuleType, names: typing.Iterable[str]) -> None:
    library = _shape.attribute(ffi, "_UniffiLib")
    held = ctypes.PyDLL(library._name, handle=library._handle)
    for name in names:
        released = _shape.attribute(library, name)
        if released.argtypes is None:
            raise _shape.mismatch(f"`_UniffiLib.{name}` has no declared argument types")
        function = getattr(held, name)
        function.argtypes = released.argtypes
        function.restype = released.restype
        setattr(library, name, function)

"""Copying an object never duplicates its Rust handle, and pickling one is refused (ADR 0015).

A generated object (`SecretKey`, `Cancellation`, `Client`, `BlockingClient`) wraps one handle
to a Rust `Arc`, freed by `__del__`. Python's default copy and pickle copy the wrapper's
`__dict__`, handle included: two wrappers then free one handle (`copy.deepcopy(config)`
aborted the interpreter at exit), and a handle unpickled in another process points at nothing.
- `__copy__` and `__deepcopy__` return the object itself: the Rust object is shared by design,
  so a copy of a record that holds one (a `ClientConfig`) shares it;
- `__reduce__` raises `TypeError` saying what to do instead.
"""

from __future__ import annotations

import types
import typing

from . import _shape


def _copy(self: object) -> object:
    return self


def _deepcopy(self: object, memo: typing.Any) -> object:
    return self


def _refuse_pickling(self: object) -> typing.NoReturn:
    raise TypeError(
        f"cannot pickle sika.{type(self).__name__}: it is a handle to an object of the Rust core, "
        "which exists only in this process. Create it in the process that uses it: a worker builds "
        "its own client (sika.BlockingClient.from_env() or sika.Client.from_env() read "
        "SIKA_SECRET_KEY and SIKA_BASE_URL), and a secret key is never pickled; read it from the "
        "environment where it is used."
    )


def install(ffi: types.ModuleType, objects: typing.Iterable[str]) -> None:
    for name in objects:
        cls = _shape.class_(ffi, name)
        _shape.own(cls, "_uniffi_clone_handle")
        cls.__copy__ = _copy  # type: ignore[attr-defined]
        cls.__deepcopy__ = _deepcopy  # type: ignore[attr-defined]
        cls.__reduce__ = _refuse_pickling  # type: ignore[assignment]

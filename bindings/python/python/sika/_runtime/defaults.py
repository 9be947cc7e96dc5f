"""Signatures show a default as `DEFAULT`, never as `<object object at 0x...>` (issue 27).

UniFFI marks "the core's default" with a bare `object()` (`_DEFAULT`), which `help()`, IDEs and
`inspect.signature` print as `<object object at 0x7f...>`. The generated code compares each
argument with the module's `_DEFAULT` when called, so it is rebound here to a sentinel that
prints as `DEFAULT`, and every generated function's default values that were the old one are
replaced by it (before any other module of the runtime wraps a function).
"""

from __future__ import annotations

import types
import typing

from . import _shape


class _Default:
    """An argument left to the core's default."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DEFAULT"

    def __reduce__(self) -> str:
        return "DEFAULT"


DEFAULT = _Default()


def _functions(owner: object, module: str, seen: set[int]) -> typing.Iterator[types.FunctionType]:
    """The functions of `owner` (a module or a class), and of the classes it holds that
    `module` defines (nested ones included)."""
    if id(owner) in seen:
        return
    seen.add(id(owner))
    for value in list(vars(owner).values()):
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, types.FunctionType):
            yield value
        elif isinstance(value, type) and value.__module__ == module:
            yield from _functions(value, module, seen)


def install(ffi: types.ModuleType) -> None:
    old = _shape.attribute(ffi, "_DEFAULT")
    if type(old) is not object:
        raise _shape.mismatch("`_DEFAULT` is not a bare object()")
    for function in _functions(ffi, ffi.__name__, set()):
        if function.__module__ != ffi.__name__:
            continue
        if function.__defaults__ and any(value is old for value in function.__defaults__):
            function.__defaults__ = tuple(DEFAULT if value is old else value for value in function.__defaults__)
        if function.__kwdefaults__ and any(value is old for value in function.__kwdefaults__.values()):
            function.__kwdefaults__ = {
                name: DEFAULT if value is old else value for name, value in function.__kwdefaults__.items()
            }
    ffi._DEFAULT = DEFAULT  # type: ignore[attr-defined]

"""`str(error)` is the core's message, and an error crosses a process boundary whole.

UniFFI's Python errors ignore the exported `Display`: their `str()` is a dump of the fields, or
empty, and Python code, loggers and frameworks read `str(error)`. The base class gets a
`__str__` that returns the exported `message()` (the core's text), falling back to the field
dump when the core cannot take the error (a variant built by hand with a field of the wrong
type): `str()` and `repr()` never raise.

A variant's `__init__` takes its fields while its `args` holds one dump of them, so pickle
(which rebuilds an exception from `args`) failed: multiprocessing, `concurrent.futures`, Celery
and RQ lost the error. The base class gets a `__reduce__` that rebuilds the variant from its
fields, read by the names of its generated `__init__`'s parameters.
"""

from __future__ import annotations

import types
import typing

from . import _shape


def _str(self: Exception) -> str:
    # `message` is looked up on the class: the Api variant's `message` field hides the method.
    message = getattr(type(self), "message", None)
    if message is not None:
        try:
            return str(message(self))
        except Exception:
            # Built by hand with a field the core cannot take: the fields, as UniFFI prints them.
            pass
    return Exception.__str__(self)


def _reduce(self: Exception) -> typing.Any:
    code = getattr(type(self).__init__, "__code__", None)
    if code is None:  # the base class itself, built like any exception
        return Exception.__reduce__(self)
    names = code.co_varnames[1 : code.co_argcount]
    return (type(self), tuple(getattr(self, name) for name in names), self.__dict__ or None)


def install(ffi: types.ModuleType, error_classes: typing.Iterable[str]) -> None:
    for name in error_classes:
        base = _shape.class_(ffi, name)
        if not issubclass(base, Exception) or "__str__" in base.__dict__ or "__reduce__" in base.__dict__:
            raise _shape.mismatch(f"`{name}` is not a bare Exception subclass")
        base.__str__ = _str  # type: ignore[method-assign, assignment]
        base.__reduce__ = _reduce  # type: ignore[method-assign, assignment]

"""`str(error)` is the core's message, and an error crosses a process boundary whole.

UniFFI's Python errors ignore the exported `Display`: their `str()` is a dump of the fields, or
empty, and Python code, loggers and frameworks read `str(error)`. The base class gets a
`__str__` that returns the exported `message()` (the core's text), falling back to the field
dump when the core cannot take the error (a variant built by hand with a field of the wrong
type): `str()` and `repr()` never raise.

A variant's `__init__` takes its fields while its `args` held one dump of them, so pickle
(which rebuilds an exception from `args`) failed: multiprocessing, `concurrent.futures`, Celery
and RQ lost the error. The base class gets a `__reduce__` that rebuilds the variant from its
fields, read by the names of its generated `__init__`'s parameters. And each variant's `args`
are its fields in its constructor's order (issue 27, ADR 0043): `type(e)(*e.args)` rebuilds it,
which is how Celery's default JSON result serializer, and others, bring an error back.

`request_id` is a field of the variants that follow a request (ADR 0053); the base class
gets `request_id = None`, so `error.request_id` reads on every variant (`None` on those no
request preceded: `InvalidInput`, `Configuration`, `Cancelled`, `Storage`, `ClaimLost`).

The optional fields a variant ends with (`request_id`, `retry_after_seconds`) default to None:
the generated constructor required them, so a test double of one line (`raise
SikaError.ChargeOutcomeUnknown(reference="R", reason="x")`) was a `TypeError`. The generated
`__init__` gets those defaults, from the list the generator derives from the metadata
(`ERROR_DEFAULTS`, issue 47; UniFFI 0.32 takes no `#[uniffi(default)]` on an error's fields).
"""

from __future__ import annotations

import inspect
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
    return _fields_text(self)


def _field_names(cls: type) -> tuple[str, ...]:
    # The generated `__init__`'s parameters (under the wrapper that sets `args`).
    code = getattr(inspect.unwrap(vars(cls).get("__init__", object.__init__)), "__code__", None)
    if code is None:
        return ()
    return tuple(code.co_varnames[1 : code.co_argcount])


def _fields_text(self: Exception) -> str:
    names = _field_names(type(self))
    if not names or not all(hasattr(self, name) for name in names):
        return Exception.__str__(self)
    return ", ".join(f"{name}={getattr(self, name)!r}" for name in names)


def _args_are_fields(cls: type, defaulted: typing.Sequence[str]) -> None:
    """The variant's `__init__`, its `defaulted` (last) fields defaulting to None, then its
    `args` set to its fields in the constructor's order."""
    generated = _shape.own(cls, "__init__")
    names = _field_names(cls)
    if defaulted:
        if not inspect.isfunction(generated) or generated.__defaults__ or names[-len(defaulted) :] != tuple(defaulted):
            raise _shape.mismatch(f"`{cls.__qualname__}` does not end with the fields {tuple(defaulted)}")
        generated.__defaults__ = (None,) * len(defaulted)

    def __init__(self: BaseException, *args: typing.Any, **kwargs: typing.Any) -> None:
        generated(self, *args, **kwargs)
        self.args = tuple(getattr(self, name) for name in names)

    __init__.__signature__ = inspect.signature(generated)  # type: ignore[attr-defined]
    __init__.__wrapped__ = generated  # type: ignore[attr-defined]
    cls.__init__ = __init__  # type: ignore[misc]


def _reduce(self: Exception) -> typing.Any:
    if type(self).__init__ is Exception.__init__:  # the base class itself, built like any exception
        return Exception.__reduce__(self)
    names = _field_names(type(self))
    return (type(self), tuple(getattr(self, name) for name in names), self.__dict__ or None)


def install(
    ffi: types.ModuleType,
    error_classes: typing.Sequence[str],
    defaults: typing.Mapping[tuple[str, str], typing.Sequence[str]],
) -> None:
    for error, variant in defaults:
        if error not in error_classes or not isinstance(getattr(_shape.class_(ffi, error), variant, None), type):
            raise _shape.mismatch(f"no error variant `{error}.{variant}`")
    for name in error_classes:
        base = _shape.class_(ffi, name)
        if not issubclass(base, Exception) or "__str__" in base.__dict__ or "__reduce__" in base.__dict__:
            raise _shape.mismatch(f"`{name}` is not a bare Exception subclass")
        base.__str__ = _str  # type: ignore[method-assign, assignment]
        base.__reduce__ = _reduce  # type: ignore[method-assign, assignment]
        base.request_id = None  # type: ignore[attr-defined]
        for variant in vars(base).values():
            if isinstance(variant, type) and issubclass(variant, base) and variant is not base:
                _args_are_fields(variant, defaults.get((name, variant.__name__), ()))

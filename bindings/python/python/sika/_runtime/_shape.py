"""What the runtime expects of UniFFI's generated module, checked before it rebinds anything.

Each module of this package replaces names of the generated `sika_ffi` (functions, converter
methods, class attributes). It first asks here that each name exists with the shape it was
written for, so an upgrade of UniFFI that changes one fails the import with the version this
runtime was written for, never half-applied (ADR 0033).
"""

from __future__ import annotations

import inspect
import types
import typing

# The UniFFI release whose generated Python these modules were written against (Cargo.lock).
UNIFFI_VERSION = "0.32.2"


def mismatch(what: str) -> ImportError:
    return ImportError(
        f"sika's runtime (sika/_runtime) was written for the Python module UniFFI {UNIFFI_VERSION} "
        f"generates; the generated sika._ffi.sika_ffi differs: {what}"
    )


def attribute(owner: object, name: str) -> typing.Any:
    """`owner.name`, which must exist."""
    try:
        return getattr(owner, name)
    except AttributeError:
        raise mismatch(f"no `{name}` in {getattr(owner, '__name__', owner)!r}") from None


def own(cls: type, name: str, kind: type | None = None) -> typing.Any:
    """The attribute `name` defined in `cls`'s own body (not inherited), of `kind` if given
    (`staticmethod`, `classmethod`, a function)."""
    if name not in cls.__dict__:
        raise mismatch(f"`{cls.__qualname__}` does not define `{name}`")
    value = cls.__dict__[name]
    if kind is not None and not isinstance(value, kind):
        raise mismatch(f"`{cls.__qualname__}.{name}` is a {type(value).__name__}, not a {kind.__name__}")
    return value


def function(owner: object, name: str, parameters: typing.Sequence[str]) -> types.FunctionType:
    """The function `owner.name` (a module's or a class's own), taking exactly `parameters`."""
    value = own(owner, name) if isinstance(owner, type) else attribute(owner, name)
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if not isinstance(value, types.FunctionType):
        raise mismatch(f"`{name}` is a {type(value).__name__}, not a function")
    found = [("*" if p.kind is p.VAR_POSITIONAL else "") + p.name for p in inspect.signature(value).parameters.values()]
    if found != list(parameters):
        raise mismatch(f"`{name}` takes ({', '.join(found)}), expected ({', '.join(parameters)})")
    return value


def class_(owner: object, name: str) -> type:
    value = attribute(owner, name)
    if not isinstance(value, type):
        raise mismatch(f"`{name}` is not a class")
    return value

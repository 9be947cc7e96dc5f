"""A text Python cannot encode is `SikaError.InvalidInput` naming its field, nothing sent (issue 47).

A Python `str` may hold what UTF-8 cannot: a lone surrogate (`"\\ud800"`, which `os.fsdecode`
and `surrogateescape` make of undecodable bytes). UniFFI's `check_lower` of a string checks its
type only, so such a text reached the encoding that lowers it and every call raised
`UnicodeEncodeError` (8 of 8 calls), an exception no handler of `SikaError` catches. Here the
string converter's `check_lower`, which every argument and every field of a record goes
through before anything is lowered (so before anything is sent), also checks that the text
encodes, and raises `InvalidInput`. The field it names is found from the call in progress: the
innermost record field holding the text (`email` of a `ChargeRequest`), else the argument
(`reference`), read from the generated module's frames, which only this error path looks at.
An ASCII text (most) costs one flag read.
"""

from __future__ import annotations

import sys
import types
import typing

from . import _shape


def _first_parameter(code: types.CodeType) -> str | None:
    """A converter's checked value: its first parameter after `cls`."""
    parameters = [name for name in code.co_varnames[: code.co_argcount] if name != "cls"]
    return parameters[0] if parameters else None


def _holds(container: object, target: object) -> bool:
    if isinstance(container, dict):
        return any(key is target or value is target for key, value in container.items())
    if isinstance(container, (list, tuple, set, frozenset)):
        return any(item is target for item in container)
    return False


def field_of(value: str, generated_file: str) -> str:
    """The field or argument whose text `value` is, in the generated call that checks it."""
    target: object = value
    field: str | None = None
    frame = sys._getframe(2)  # the caller of `check_lower`
    while frame is not None and frame.f_code.co_filename == generated_file:
        code = frame.f_code
        local_values = dict(frame.f_locals)
        if code.co_name == "check_lower":
            checked = _first_parameter(code)
            container = local_values.get(checked) if checked is not None else None
            if container is not None and container is not target:
                if _holds(container, target):
                    target = container
                else:
                    # A record or a variant: the attribute holding the text.
                    attributes: dict[str, object] = getattr(container, "__dict__", {})
                    names = [name for name, held in attributes.items() if held is target]
                    if names and field is None:
                        field = names[0]
                    target = container
        else:
            # The generated function or method: its argument.
            names = [name for name in code.co_varnames[: code.co_argcount] if local_values.get(name) is target]
            if field is None and names:
                field = names[0]
            break
        frame = frame.f_back  # type: ignore[assignment]
    return field or "text"


def install(ffi: types.ModuleType) -> None:
    string = _shape.class_(ffi, "_UniffiFfiConverterString")
    generated = _shape.function(string, "check_lower", ["value"])
    _shape.own(string, "check_lower", staticmethod)
    generated_file: str = _shape.attribute(ffi, "__file__")
    invalid_input: typing.Any = _shape.attribute(_shape.class_(ffi, "SikaError"), "InvalidInput")

    def check_lower(value: typing.Any) -> typing.Any:
        checked = generated(value)
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as error:
                character = value[error.start]
                reason = (
                    f"is text that cannot be encoded as UTF-8 (U+{ord(character):04X} at index {error.start}: "
                    f"{error.reason})"
                )
                raise invalid_input(field=field_of(value, generated_file), reason=reason) from None
        return checked

    string.check_lower = staticmethod(check_lower)  # type: ignore[attr-defined]
